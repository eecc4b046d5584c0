// SPDX-License-Identifier: MIT OR Apache-2.0
//! `Fe4x64`: GF(p) as four 64-bit limbs with `u128` products, any value < 2^256 (weakly
//! reduced: it may be ≥ p). p = 2^256 − C, C = 2^32 + 977, so a carry out of bit 256 folds back
//! as "+C" and "subtract p" is "add C, drop bit 256".
//!
//! The limb-level helpers here (`add`, `mul_int`, `normalize`, `negate`, `reduce512`) are shared
//! with the x86-64 assembly backend, which replaces only the 512-bit product.

// `Fe4x64` is the u128 reference that the Asm kernels are tested against; outside tests only
// the limb helpers are used (by the Asm backend, x86-64 only).
#![cfg_attr(not(test), allow(dead_code))]

/// 2^256 mod p.
pub const C: u64 = 0x1_0000_03D1;
/// p as little-endian words.
pub const P: [u64; 4] = [0xFFFF_FFFE_FFFF_FC2F, u64::MAX, u64::MAX, u64::MAX];

#[inline(always)]
fn adc(a: u64, b: u64, c: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + c as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a` plus `C` when `carry` is 1 (a mask, no multiplication), and the carry out of bit 256.
#[inline(always)]
fn add_c_if(a: [u64; 4], carry: u64) -> ([u64; 4], u64) {
    let (r0, c) = adc(a[0], C & carry.wrapping_neg(), 0);
    let (r1, c) = adc(a[1], 0, c);
    let (r2, c) = adc(a[2], 0, c);
    let (r3, c) = adc(a[3], 0, c);
    ([r0, r1, r2, r3], c)
}

/// a + k·C for k < 2^40 (a carry word): at most one further wrap, folded again.
#[inline(always)]
pub fn fold(a: [u64; 4], k: u64) -> [u64; 4] {
    let t = (k as u128) * (C as u128);
    let (r0, c) = adc(a[0], t as u64, 0);
    let (r1, c) = adc(a[1], (t >> 64) as u64, c);
    let (r2, c) = adc(a[2], 0, c);
    let (r3, c) = adc(a[3], 0, c);
    // A wrap leaves a value < 2^73, so adding C once more cannot wrap again.
    add_c_if([r0, r1, r2, r3], c).0
}

/// a + b mod p (< 2^256): the carry bit c adds c·C (a mask, no multiplication), and a second
/// wrap (only when the sum exceeded 2^257 − C) adds C once more.
#[inline(always)]
pub fn add(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, c) = adc(a[0], b[0], 0);
    let (r1, c) = adc(a[1], b[1], c);
    let (r2, c) = adc(a[2], b[2], c);
    let (r3, c) = adc(a[3], b[3], c);
    let (r, c) = add_c_if([r0, r1, r2, r3], c);
    // After a second wrap the value is < C, so this last addition cannot carry.
    add_c_if(r, c).0
}

/// k·a mod p.
#[inline(always)]
pub fn mul_int(a: &[u64; 4], k: u32) -> [u64; 4] {
    let k = k as u128;
    let mut r = [0u64; 4];
    let mut carry = 0u128;
    for (ri, ai) in r.iter_mut().zip(a.iter()) {
        let t = (*ai as u128) * k + carry;
        *ri = t as u64;
        carry = t >> 64;
    }
    fold(r, carry as u64)
}

/// The canonical representative: a + C carries out of bit 256 exactly when a ≥ p.
#[inline(always)]
pub fn normalize(a: &[u64; 4]) -> [u64; 4] {
    let (t0, c) = adc(a[0], C, 0);
    let (t1, c) = adc(a[1], 0, c);
    let (t2, c) = adc(a[2], 0, c);
    let (t3, c) = adc(a[3], 0, c);
    let m = c.wrapping_neg();
    [(t0 & m) | (a[0] & !m), (t1 & m) | (a[1] & !m), (t2 & m) | (a[2] & !m), (t3 & m) | (a[3] & !m)]
}

/// p − a (of the canonical a), in [1, p].
#[inline(always)]
pub fn negate(a: &[u64; 4]) -> [u64; 4] {
    let a = normalize(a);
    let mut r = [0u64; 4];
    let mut borrow = 0u64;
    for i in 0..4 {
        let t = (P[i] as u128).wrapping_sub(a[i] as u128 + borrow as u128);
        r[i] = t as u64;
        borrow = (t >> 127) as u64;
    }
    r
}

/// Whether a ≡ 0: a < 2^256 < 2p, so a ∈ {0, p}.
#[inline(always)]
pub fn is_zero_mod_p(a: &[u64; 4]) -> bool {
    (a[0] | a[1] | a[2] | a[3]) == 0 || *a == P
}

/// lo + hi·C mod p for a 512-bit value (lo, hi): hi·C < 2^289, so the carry word < 2^34.
#[inline(always)]
pub fn reduce512(w: &[u64; 8]) -> [u64; 4] {
    let mut r = [0u64; 4];
    let mut carry = 0u128;
    for i in 0..4 {
        let t = w[i] as u128 + (w[i + 4] as u128) * (C as u128) + carry;
        r[i] = t as u64;
        carry = t >> 64;
    }
    fold(r, carry as u64)
}

/// A field element in portable 4×64 representation (see module docs).
#[derive(Clone, Copy, Debug)]
pub struct Fe4x64(pub [u64; 4]);

impl Fe4x64 {
    pub const ZERO: Fe4x64 = Fe4x64([0; 4]);
    pub const ONE: Fe4x64 = Fe4x64([1, 0, 0, 0]);

    /// a·b mod p: schoolbook 512-bit product with `u128`, then the C fold.
    #[inline(never)]
    pub fn mul(&self, b: &Fe4x64) -> Fe4x64 {
        let (a, b) = (&self.0, &b.0);
        let mut w = [0u64; 8];
        for i in 0..4 {
            let mut carry = 0u128;
            for j in 0..4 {
                // a_i·b_j + w + carry < 2^128: (2^64−1)² + 2·(2^64−1) = 2^128 − 1.
                let t = (a[i] as u128) * (b[j] as u128) + w[i + j] as u128 + carry;
                w[i + j] = t as u64;
                carry = t >> 64;
            }
            w[i + 4] = carry as u64;
        }
        Fe4x64(reduce512(&w))
    }

    /// a² mod p: six cross products doubled plus four squares (10 multiplications).
    #[inline(never)]
    pub fn sqr(&self) -> Fe4x64 {
        let a = &self.0;
        let m = |x: u64, y: u64| (x as u128) * (y as u128);
        // Cross products Σ_{i<j} a_i a_j 2^(64(i+j)) into w[1..7].
        let mut w = [0u64; 8];
        let t = m(a[0], a[1]);
        w[1] = t as u64;
        let t = m(a[0], a[2]) + (t >> 64);
        w[2] = t as u64;
        let t = m(a[0], a[3]) + (t >> 64);
        w[3] = t as u64;
        w[4] = (t >> 64) as u64;
        let t = m(a[1], a[2]) + w[3] as u128;
        w[3] = t as u64;
        let t = m(a[1], a[3]) + w[4] as u128 + (t >> 64);
        w[4] = t as u64;
        w[5] = (t >> 64) as u64;
        let t = m(a[2], a[3]) + w[5] as u128;
        w[5] = t as u64;
        w[6] = (t >> 64) as u64;
        // Double (w[7] receives the top bit), then add the squares a_i² at 2^(128i).
        w[7] = w[6] >> 63;
        for k in (2..7).rev() {
            w[k] = (w[k] << 1) | (w[k - 1] >> 63);
        }
        w[1] <<= 1;
        let mut carry = 0u128;
        for i in 0..4 {
            let s = m(a[i], a[i]);
            let t = w[2 * i] as u128 + (s as u64) as u128 + carry;
            w[2 * i] = t as u64;
            let t = w[2 * i + 1] as u128 + (s >> 64) + (t >> 64);
            w[2 * i + 1] = t as u64;
            carry = t >> 64;
        }
        Fe4x64(reduce512(&w))
    }
}

/// `FieldOps` for a 4×64 type `$t(pub(crate) [u64; 4])` whose own kernels are `mul` and `sqr`;
/// the rest (values kept below 2^256, folded by C) is the limb arithmetic of this module.
macro_rules! impl_field_ops_4x64 {
    ($t:ty) => {
        impl $crate::backend::field::FieldOps for $t {
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            #[inline(always)]
            fn from_u64x4(a: [u64; 4]) -> Self {
                Self(a)
            }
            #[inline(always)]
            fn to_u64x4(&self) -> [u64; 4] {
                self.0
            }
            #[inline(always)]
            fn mul(&self, b: &Self) -> Self {
                <$t>::mul(self, b)
            }
            #[inline(always)]
            fn sqr(&self) -> Self {
                <$t>::sqr(self)
            }
            #[inline(always)]
            fn add(&self, b: &Self) -> Self {
                Self($crate::backend::portable::field4x64::add(&self.0, &b.0))
            }
            #[inline(always)]
            fn mul_int(&self, k: u32) -> Self {
                Self($crate::backend::portable::field4x64::mul_int(&self.0, k))
            }
            #[inline(always)]
            fn negate(&self, _m: u32) -> Self {
                Self($crate::backend::portable::field4x64::negate(&self.0))
            }
            #[inline(always)]
            fn normalize_weak(&self) -> Self {
                *self
            }
            #[inline(always)]
            fn normalize(&self) -> Self {
                Self($crate::backend::portable::field4x64::normalize(&self.0))
            }
            #[inline(always)]
            fn normalizes_to_zero_var(&self) -> bool {
                $crate::backend::portable::field4x64::is_zero_mod_p(&self.0)
            }
            #[inline(always)]
            fn is_odd(&self) -> bool {
                self.0[0] & 1 == 1
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use impl_field_ops_4x64;

impl_field_ops_4x64!(Fe4x64);
