// SPDX-License-Identifier: MIT OR Apache-2.0
//! `Fe5x52`: an element of GF(p), p = 2^256 − 2^32 − 977, as five limbs of 52 bits.
//!
//! Value = Σ nᵢ·2^(52·i). Because 2^256 ≡ C = 2^32 + 977 (mod p), also 2^260 ≡ R = 16·C =
//! 0x1000003D10, which folds a column at limb position 5 + k back onto limb k.
//!
//! **Magnitude.** A limb vector has magnitude `m` when nᵢ ≤ 2m·(2^52 − 1) for i < 4 and
//! n₄ ≤ 2m·(2^48 − 1). Additions add magnitudes; `negate(m)` returns magnitude m + 1;
//! `mul`/`sqr` accept inputs of magnitude ≤ 8 and return magnitude 1; `normalize_weak`
//! returns magnitude 1; `normalize` returns the unique representative in [0, p) with
//! n₀..n₃ < 2^52 and n₄ < 2^48. The bounds are checked with `debug_assert!`s.

pub(crate) use crate::backend::field::Fe5x52;
use crate::backend::field::FieldOps;

const M52: u64 = 0xF_FFFF_FFFF_FFFF;
const M48: u64 = 0xFFFF_FFFF_FFFF;
/// 2^256 mod p.
const C: u64 = 0x1_0000_03D1;
/// 2^260 mod p.
const R: u64 = C << 4;
/// p in 5×52 limbs.
const P0: u64 = 0xF_FFFE_FFFF_FC2F;

/// Propagates the carries from limb 0 up into limb 4, leaving limbs 0 to 3 below 2^52.
#[inline(always)]
fn carry_up(mut t: [u64; 5]) -> [u64; 5] {
    for i in 0..4 {
        t[i + 1] += t[i] >> 52;
        t[i] &= M52;
    }
    t
}

#[inline(always)]
fn check_mag(a: &[u64; 5], m: u64) {
    debug_assert!(a[0] <= 2 * m * M52 && a[1] <= 2 * m * M52 && a[2] <= 2 * m * M52);
    debug_assert!(a[3] <= 2 * m * M52 && a[4] <= 2 * m * M48, "magnitude above {m}: {a:x?}");
}

// Conversions take `&self` like the rest of the kernel API (clippy asks for `self` only since
// the type became crate-private).
#[allow(clippy::wrong_self_convention)]
impl Fe5x52 {
    pub const ZERO: Fe5x52 = Fe5x52([0; 5]);
    pub const ONE: Fe5x52 = Fe5x52([1, 0, 0, 0, 0]);

    /// 32 big-endian bytes. Precondition: normalized.
    #[inline]
    pub fn to_be_bytes(&self) -> [u8; 32] {
        let [a0, a1, a2, a3] = self.to_u64x4();
        let mut out = [0u8; 32];
        for (i, w) in [a3, a2, a1, a0].iter().enumerate() {
            out[8 * i..8 * i + 8].copy_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// Little-endian 64-bit words. Precondition: normalized.
    #[inline]
    pub fn to_u64x4(&self) -> [u64; 4] {
        let n = &self.0;
        debug_assert!(n[0] <= M52 && n[1] <= M52 && n[2] <= M52 && n[3] <= M52 && n[4] <= M48);
        [
            n[0] | (n[1] << 52),
            (n[1] >> 12) | (n[2] << 40),
            (n[2] >> 24) | (n[3] << 28),
            (n[3] >> 36) | (n[4] << 16),
        ]
    }

    /// From little-endian 64-bit words (any value < 2^256).
    #[inline]
    pub fn from_u64x4(a: [u64; 4]) -> Fe5x52 {
        Fe5x52([
            a[0] & M52,
            ((a[0] >> 52) | (a[1] << 12)) & M52,
            ((a[1] >> 40) | (a[2] << 24)) & M52,
            ((a[2] >> 28) | (a[3] << 36)) & M52,
            a[3] >> 16,
        ])
    }

    /// a·b mod p. Inputs of magnitude ≤ 8, output magnitude 1.
    #[inline(never)]
    pub fn mul(&self, b: &Fe5x52) -> Fe5x52 {
        let a = &self.0;
        let b = &b.0;
        check_mag(a, 8);
        check_mag(b, 8);
        let m = mul_wide;
        // Limbs < 2^57, so each product < 2^114 and a column of ≤ 5 products < 2^117.
        let c0 = m(a[0], b[0]);
        let c1 = m(a[0], b[1]) + m(a[1], b[0]);
        let c2 = m(a[0], b[2]) + m(a[1], b[1]) + m(a[2], b[0]);
        let c3 = m(a[0], b[3]) + m(a[1], b[2]) + m(a[2], b[1]) + m(a[3], b[0]);
        let c4 = m(a[0], b[4]) + m(a[1], b[3]) + m(a[2], b[2]) + m(a[3], b[1]) + m(a[4], b[0]);
        let c5 = m(a[1], b[4]) + m(a[2], b[3]) + m(a[3], b[2]) + m(a[4], b[1]);
        let c6 = m(a[2], b[4]) + m(a[3], b[3]) + m(a[4], b[2]);
        let c7 = m(a[3], b[4]) + m(a[4], b[3]);
        let c8 = m(a[4], b[4]);
        reduce9([c0, c1, c2, c3, c4, c5, c6, c7, c8])
    }

    /// a² mod p. Input magnitude ≤ 8, output magnitude 1.
    #[inline(never)]
    pub fn sqr(&self) -> Fe5x52 {
        let a = &self.0;
        check_mag(a, 8);
        let m = mul_wide;
        let (d0, d1, d2, d3) = (a[0] * 2, a[1] * 2, a[2] * 2, a[3] * 2);
        let c0 = m(a[0], a[0]);
        let c1 = m(d0, a[1]);
        let c2 = m(d0, a[2]) + m(a[1], a[1]);
        let c3 = m(d0, a[3]) + m(d1, a[2]);
        let c4 = m(d0, a[4]) + m(d1, a[3]) + m(a[2], a[2]);
        let c5 = m(d1, a[4]) + m(d2, a[3]);
        let c6 = m(d2, a[4]) + m(a[3], a[3]);
        let c7 = m(d3, a[4]);
        let c8 = m(a[4], a[4]);
        reduce9([c0, c1, c2, c3, c4, c5, c6, c7, c8])
    }

    /// Limb-wise sum; magnitudes add.
    #[inline(always)]
    pub fn add(&self, b: &Fe5x52) -> Fe5x52 {
        let (a, b) = (&self.0, &b.0);
        Fe5x52([a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4]])
    }

    /// Multiply by a small integer k; magnitude multiplies by k.
    #[inline(always)]
    pub fn mul_int(&self, k: u32) -> Fe5x52 {
        let k = k as u64;
        let a = &self.0;
        Fe5x52([a[0] * k, a[1] * k, a[2] * k, a[3] * k, a[4] * k])
    }

    /// −a, computed as 2(m+1)·p − a. Input magnitude ≤ m, output magnitude m + 1.
    #[inline(always)]
    pub fn negate(&self, m: u32) -> Fe5x52 {
        let a = &self.0;
        check_mag(a, m as u64);
        let k = 2 * (m as u64 + 1);
        Fe5x52([k * P0 - a[0], k * M52 - a[1], k * M52 - a[2], k * M52 - a[3], k * M48 - a[4]])
    }

    /// Reduce to magnitude 1 (value unchanged mod p, not necessarily < p).
    #[inline(always)]
    pub fn normalize_weak(&self) -> Fe5x52 {
        let [mut t0, t1, t2, t3, mut t4] = self.0;
        let x = t4 >> 48;
        t4 &= M48;
        t0 += x * C;
        let t = carry_up([t0, t1, t2, t3, t4]);
        // t4 ≤ 2^48 here: at most one bit above the 256-bit boundary.
        debug_assert!(t[4] >> 49 == 0);
        Fe5x52(t)
    }

    /// The canonical representative in [0, p), constant time.
    #[inline(always)]
    pub fn normalize(&self) -> Fe5x52 {
        let [mut t0, t1, t2, t3, t4] = self.normalize_weak().0;
        // Now value < 2^256 + 2^52·C; it is ≥ p iff bit 256 is set or all upper limbs are
        // saturated and t0 ≥ P0.
        let ge_p = (t4 >> 48) | (((t4 == M48) & ((t1 & t2 & t3) == M52) & (t0 >= P0)) as u64);
        t0 += ge_p * C;
        let mut t = carry_up([t0, t1, t2, t3, t4]);
        t[4] &= M48;
        Fe5x52(t)
    }

    /// Whether the value is ≡ 0 (mod p). Variable time.
    #[inline(always)]
    pub fn normalizes_to_zero_var(&self) -> bool {
        let t = self.normalize().0;
        (t[0] | t[1] | t[2] | t[3] | t[4]) == 0
    }

    /// Whether a normalized element is zero.
    #[inline(always)]
    pub fn is_zero(&self) -> bool {
        let t = &self.0;
        (t[0] | t[1] | t[2] | t[3] | t[4]) == 0
    }

    /// Parity of a normalized element.
    #[inline(always)]
    pub fn is_odd(&self) -> bool {
        self.0[0] & 1 == 1
    }

    /// `if flag { *self = *b }` without a branch.
    #[inline(always)]
    pub fn cmov(&mut self, b: &Fe5x52, flag: bool) {
        let mask = (flag as u64).wrapping_neg();
        for i in 0..5 {
            self.0[i] ^= mask & (self.0[i] ^ b.0[i]);
        }
    }
}

/// x·y as u128 for x, y < 2^57 (every limb product the kernels form: limbs of magnitude ≤ 8,
/// doubled limbs in `sqr`, and a 52-bit limb times R).
///
/// On wasm32 a `u128` product is a call to the `__multi3` routine, which multiplies full
/// 128-bit operands; here the high halves are known to be < 2^25, so three cross products of
/// 32-bit halves (each an exact `i64.mul`) give the result inline, about twice as fast in the
/// verifier. Other targets have a native 64×64→128 multiply and use it.
#[inline(always)]
fn mul_wide(x: u64, y: u64) -> u128 {
    debug_assert!(x >> 57 == 0 && y >> 57 == 0);
    #[cfg(target_arch = "wasm32")]
    {
        mul_wide_split(x, y)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        (x as u128) * (y as u128)
    }
}

/// The split form of [`mul_wide`] (compiled everywhere so that native tests check it).
#[inline(always)]
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
fn mul_wide_split(x: u64, y: u64) -> u128 {
    let (xl, xh) = (x & 0xffff_ffff, x >> 32);
    let (yl, yh) = (y & 0xffff_ffff, y >> 32);
    // xh, yh < 2^25: each cross product < 2^57 and their sum < 2^58 fits in a u64.
    let mid = xh * yl + xl * yh;
    let (lo, carry) = (xl * yl).overflowing_add(mid << 32);
    let hi = xh * yh + (mid >> 32) + carry as u64;
    ((hi as u128) << 64) | lo as u128
}

/// Fold nine 104+-bit columns (column k weighs 2^(52k)) into a magnitude-1 element.
#[inline(always)]
fn reduce9(c: [u128; 9]) -> Fe5x52 {
    let m52 = M52 as u128;
    // Carry the high columns into 52-bit limbs h5..h8 and a top word h9 (< 2^66).
    let h5 = c[5];
    let h6 = c[6] + (h5 >> 52);
    let h7 = c[7] + (h6 >> 52);
    let h8 = c[8] + (h7 >> 52);
    let h9 = (h8 >> 52) as u64;
    let (h5, h6, h7, h8) = ((h5 & m52) as u64, (h6 & m52) as u64, (h7 & m52) as u64, (h8 & m52) as u64);
    let r = R as u128;
    // Each hₖ·R < 2^89 (h9·R < 2^103), and each column < 2^117, so every sum fits in u128.
    let r0 = c[0] + mul_wide(h5, R);
    let r1 = c[1] + mul_wide(h6, R) + (r0 >> 52);
    let r2 = c[2] + mul_wide(h7, R) + (r1 >> 52);
    let r3 = c[3] + mul_wide(h8, R) + (r2 >> 52);
    let r4 = c[4] + (h9 as u128) * r + (r3 >> 52);
    let (l0, l1, l2, l3) = ((r0 & m52) as u64, (r1 & m52) as u64, (r2 & m52) as u64, (r3 & m52) as u64);
    // r4 < 2^118 holds bits 208..; bits ≥ 256 (top < 2^70) fold back as top·C.
    let l4 = (r4 as u64) & M48;
    let top = r4 >> 48;
    let t0 = (l0 as u128) + top * (C as u128);
    let n0 = (t0 as u64) & M52;
    let t1 = (l1 as u128) + (t0 >> 52);
    // t1 < 2^52 + 2^51: within magnitude 1.
    debug_assert!(t1 >> 64 == 0);
    Fe5x52([n0, t1 as u64, l2, l3, l4])
}

// The kernels above are the FieldOps contract for the Portable backend.
/// Trait methods that are the inherent kernel method of the same name.
macro_rules! forward {
    ($($name:ident($($arg:ident: $t:ty),*) -> $ret:ty;)*) => {$(
        #[inline(always)]
        fn $name(&self, $($arg: $t),*) -> $ret {
            Fe5x52::$name(self, $($arg),*)
        }
    )*};
}

impl FieldOps for Fe5x52 {
    const ZERO: Self = Fe5x52::ZERO;
    const ONE: Self = Fe5x52::ONE;

    forward! {
        to_u64x4() -> [u64; 4];
        mul(b: &Self) -> Self;
        sqr() -> Self;
        add(b: &Self) -> Self;
        mul_int(k: u32) -> Self;
        negate(m: u32) -> Self;
        normalize_weak() -> Self;
        normalize() -> Self;
        normalizes_to_zero_var() -> bool;
        is_odd() -> bool;
    }

    #[inline(always)]
    fn from_u64x4(a: [u64; 4]) -> Self {
        Fe5x52::from_u64x4(a)
    }
    #[inline(always)]
    fn from_portable(a: &Fe5x52) -> Self {
        *a
    }
    #[inline(always)]
    fn to_portable(&self) -> Fe5x52 {
        *self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_product_matches_u128_below_2_57() {
        let max = (1u64 << 57) - 1;
        let edges = [0, 1, 0xffff_ffff, 1 << 32, (1 << 32) + 1, M52, M52 * 16, max - 1, max, R];
        for &x in &edges {
            for &y in &edges {
                assert_eq!(mul_wide_split(x, y), (x as u128) * (y as u128), "{x:#x} * {y:#x}");
            }
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let x = s >> 7;
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let y = s >> (7 + (s & 31));
            assert_eq!(mul_wide_split(x, y), (x as u128) * (y as u128), "{x:#x} * {y:#x}");
        }
    }
}
