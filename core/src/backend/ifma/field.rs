// SPDX-License-Identifier: MIT OR Apache-2.0
//! `Fe5x52x8`: eight independent elements of GF(p), p = 2^256 − 0x1000003D1, one per lane,
//! in five 52-bit limbs (limb k of every element in one [`Lanes`] value).
//!
//! Invariant ("weak"): limbs 0…3 < 2^52 and limb 4 < 2^49, so the value is < 2^257 < 2p and
//! every limb fits the 52-bit inputs of `madd52lo`/`madd52hi`. Every operation takes and
//! returns weak elements; canonical form ([`Fe5x52x8::normalize`]) is asked for explicitly.
//!
//! Multiplication: the 25 limb products a_i·b_j are split by the multiplier into their low
//! and high 52 bits, which go to columns i+j and i+j+1: ten columns c_0…c_9 < 10·2^52, with
//! Σ c_k·2^(52k) = a·b. The high columns are carried to 52-bit limbs (c_4…c_9, a serial
//! chain), then folded with 2^260 ≡ R = 0x1000003D10 (mod p): c_k += lo(c_{k+5}·R),
//! c_{k+1} += hi(c_{k+5}·R), again on the multiplier. What sits above bit 256 (c_4 ≫ 48 and
//! the new top column) folds once more with 2^256 ≡ 0x1000003D1, and one carry chain brings
//! the result back to the weak form. Squaring computes the ten cross products once, doubles
//! them and adds the five squares (15 products).

use super::lanes::Lanes;
use crate::backend::field::{pow_p_minus_2, pow_p_plus_1_over_4};
use crate::backend::portable::field::Fe5x52;

const M52: u64 = (1 << 52) - 1;
const M48: u64 = (1 << 48) - 1;
/// 2^256 mod p.
const C256: u64 = 0x1_0000_03D1;
/// 2^260 mod p.
const C260: u64 = 0x10_0000_3D10;
/// 4p in 52-bit limbs: every limb is at least the matching limb of a weak element.
const P4: [u64; 5] = [0xF_FFFE_FFFF_FC2F * 4, M52 * 4, M52 * 4, M52 * 4, M48 * 4];
/// p in 52-bit limbs.
const P: [u64; 5] = [0xF_FFFE_FFFF_FC2F, M52, M52, M52, M48];

/// Eight field elements, one per lane (see the module documentation). Conversions take
/// `&self` like the rest of the kernel API.
#[derive(Clone, Copy)]
pub(crate) struct Fe5x52x8<L: Lanes> {
    pub(crate) l: [L; 5],
}

/// Carries limbs 0→1→2→3→4 (each left < 2^52); limb 4 keeps the carry.
#[inline(always)]
fn carry4<L: Lanes>(c: &mut [L; 5]) {
    let m = L::splat(M52);
    c[1] = c[1].add(c[0].shr::<52>());
    c[0] = c[0].and(m);
    c[2] = c[2].add(c[1].shr::<52>());
    c[1] = c[1].and(m);
    c[3] = c[3].add(c[2].shr::<52>());
    c[2] = c[2].and(m);
    c[4] = c[4].add(c[3].shr::<52>());
    c[3] = c[3].and(m);
}

#[allow(clippy::wrong_self_convention)]
impl<L: Lanes> Fe5x52x8<L> {
    /// Every lane 0.
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        Fe5x52x8 { l: [L::splat(0); 5] }
    }

    /// Every lane 1.
    #[inline(always)]
    pub(crate) fn one() -> Self {
        Fe5x52x8 { l: [L::splat(1), L::splat(0), L::splat(0), L::splat(0), L::splat(0)] }
    }

    /// Every lane `a` (portable, magnitude ≤ 1 so that its limbs are weak).
    #[inline(always)]
    pub(crate) fn splat(a: &Fe5x52) -> Self {
        let a = a.normalize();
        Fe5x52x8 { l: core::array::from_fn(|k| L::splat(a.0[k])) }
    }

    /// Lane i from `a[i]` (normalized first).
    #[inline(always)]
    pub(crate) fn from_lanes(a: &[Fe5x52; 8]) -> Self {
        let n: [Fe5x52; 8] = core::array::from_fn(|i| a[i].normalize());
        Fe5x52x8 { l: core::array::from_fn(|k| L::from_array(core::array::from_fn(|i| n[i].0[k]))) }
    }

    /// The eight elements as portable values (weak: magnitude ≤ 2 in the 5×52 rules).
    #[inline(always)]
    pub(crate) fn to_lanes(&self) -> [Fe5x52; 8] {
        let w: [[u64; 8]; 5] = core::array::from_fn(|k| self.l[k].to_array());
        core::array::from_fn(|i| Fe5x52(core::array::from_fn(|k| w[k][i])))
    }

    /// Limbs of any size below 2^63 back to the weak form: the bits above 2^256 fold as
    /// ·0x1000003D1, then one carry chain.
    #[inline(always)]
    pub(crate) fn normalize_weak_from(mut c: [L; 5]) -> Self {
        // c4 < 2^63 ⇒ t < 2^15 and t·C256 < 2^48: the low half of the product is all of it.
        let t = c[4].shr::<48>();
        c[4] = c[4].and(L::splat(M48));
        c[0] = c[0].madd52lo(t, L::splat(C256));
        carry4(&mut c);
        // c4 < 2^48 + 2^11.
        Fe5x52x8 { l: c }
    }

    /// a·b.
    #[inline(always)]
    pub(crate) fn mul(&self, b: &Self) -> Self {
        let a = &self.l;
        let b = &b.l;
        let z = L::splat(0);
        // Low and high halves in separate accumulators: two short dependency chains per column.
        let mut lo = [z; 10];
        let mut hi = [z; 10];
        for i in 0..5 {
            for j in 0..5 {
                lo[i + j] = lo[i + j].madd52lo(a[i], b[j]);
                hi[i + j + 1] = hi[i + j + 1].madd52hi(a[i], b[j]);
            }
        }
        let c: [L; 10] = core::array::from_fn(|k| lo[k].add(hi[k]));
        Self::reduce10(c)
    }

    /// a².
    #[inline(always)]
    pub(crate) fn sqr(&self) -> Self {
        let a = &self.l;
        let z = L::splat(0);
        let mut x = [z; 10];
        for i in 0..5 {
            for j in i + 1..5 {
                x[i + j] = x[i + j].madd52lo(a[i], a[j]);
                x[i + j + 1] = x[i + j + 1].madd52hi(a[i], a[j]);
            }
        }
        let mut c: [L; 10] = core::array::from_fn(|k| x[k].add(x[k]));
        for i in 0..5 {
            c[2 * i] = c[2 * i].madd52lo(a[i], a[i]);
            c[2 * i + 1] = c[2 * i + 1].madd52hi(a[i], a[i]);
        }
        Self::reduce10(c)
    }

    /// Σ c_k·2^(52k) mod p to weak form, for columns c_k < 2^57 whose value is < 2^514.
    #[inline(always)]
    fn reduce10(mut c: [L; 10]) -> Self {
        let m = L::splat(M52);
        // High columns to 52-bit limbs; the value is < 2^514, so c9 < 2^46 after the chain.
        for k in 4..9 {
            c[k + 1] = c[k + 1].add(c[k].shr::<52>());
            c[k] = c[k].and(m);
        }
        // Fold 2^260 ≡ C260 (< 2^37): c0…c3 < 2^57 + 2^53, c4 < 2^53 + 2^52, top < 2^31.
        let r = L::splat(C260);
        let mut top = L::splat(0);
        for k in 0..5 {
            c[k] = c[k].madd52lo(c[k + 5], r);
            if k < 4 {
                c[k + 1] = c[k + 1].madd52hi(c[k + 5], r);
            } else {
                top = top.madd52hi(c[9], r);
            }
        }
        // Everything above 2^256: t = c4 ≫ 48 + top·2^4 < 2^36, t·C256 < 2^69.
        let t = c[4].shr::<48>().add(top.shl::<4>());
        let mut l = [c[0], c[1], c[2], c[3], c[4].and(L::splat(M48))];
        let k = L::splat(C256);
        l[0] = l[0].madd52lo(t, k);
        l[1] = l[1].madd52hi(t, k);
        carry4(&mut l);
        // l4 < 2^48 + 2^6.
        Fe5x52x8 { l }
    }

    /// a + b.
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn add(&self, b: &Self) -> Self {
        Self::normalize_weak_from(core::array::from_fn(|k| self.l[k].add(b.l[k])))
    }

    /// −a (4p − a limb by limb: no borrow for weak a).
    #[inline(always)]
    pub(crate) fn neg(&self) -> Self {
        Self::normalize_weak_from(core::array::from_fn(|k| L::splat(P4[k]).sub(self.l[k])))
    }

    /// a − b.
    #[inline(always)]
    pub(crate) fn sub(&self, b: &Self) -> Self {
        Self::normalize_weak_from(core::array::from_fn(|k| self.l[k].add(L::splat(P4[k])).sub(b.l[k])))
    }

    /// 2^N·a for N ≤ 3.
    #[inline(always)]
    pub(crate) fn mul_pow2<const N: u32>(&self) -> Self {
        Self::normalize_weak_from(core::array::from_fn(|k| self.l[k].shl::<N>()))
    }

    /// 3·a.
    #[inline(always)]
    pub(crate) fn mul3(&self) -> Self {
        Self::normalize_weak_from(core::array::from_fn(|k| self.l[k].shl::<1>().add(self.l[k])))
    }

    /// Lane i from `b` where bit i of `m` is set, else from `self`.
    #[inline(always)]
    pub(crate) fn blend(&self, m: u8, b: &Self) -> Self {
        Fe5x52x8 { l: core::array::from_fn(|k| L::blend(m, self.l[k], b.l[k])) }
    }

    /// The canonical representative of every lane, in [0, p).
    #[inline(always)]
    pub(crate) fn normalize(&self) -> Self {
        // Weak values are < 2^256 + 2^213 after this pass, so one subtraction of p suffices.
        let a = Self::normalize_weak_from(self.l).l;
        // a + C256 carries past bit 256 exactly when a ≥ p.
        let mut s = a;
        s[0] = s[0].add(L::splat(C256));
        carry4(&mut s);
        let ge = !s[4].shr::<48>().eq_mask(L::splat(0));
        s[4] = s[4].and(L::splat(M48));
        Fe5x52x8 { l: core::array::from_fn(|k| L::blend(ge, a[k], s[k])) }
    }

    /// Mask of the lanes whose value is 0 mod p.
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn is_zero_mask(&self) -> u8 {
        let n = self.normalize().l;
        let any = n[0].or(n[1]).or(n[2]).or(n[3]).or(n[4]);
        any.eq_mask(L::splat(0))
    }

    /// a^(p−2) = a⁻¹ per lane (0 ↦ 0) by the addition chain of `secp256k1::field::inv`:
    /// 255 squarings and 15 multiplications on all eight lanes at once.
    #[inline(always)]
    pub(crate) fn inv(&self) -> Self {
        pow_p_minus_2(self)
    }

    /// a^((p+1)/4) per lane, the candidate square root, by the addition chain of
    /// `secp256k1::field::sqrt`: 253 squarings and 13 multiplications on all eight lanes.
    /// The caller checks that its square is a (a is a quadratic residue exactly then).
    #[inline(always)]
    pub(crate) fn pow_p1_4(&self) -> Self {
        pow_p_plus_1_over_4(self)
    }
}

crate::backend::field::chain_ops_by_mul_sqr!(impl<L: Lanes> for Fe5x52x8<L>);

/// p in 52-bit limbs (for tests and the canonical-form check).
#[allow(dead_code)]
pub(crate) const P_LIMBS: [u64; 5] = P;
