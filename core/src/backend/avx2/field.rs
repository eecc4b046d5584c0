// SPDX-License-Identifier: MIT OR Apache-2.0
//! `Fe10x26x8`: eight independent elements of GF(p), p = 2^256 − 0x1000003D1, one per lane,
//! in ten 26-bit limbs (libsecp256k1's `field_10x26` representation, limb k of every element
//! in one [`Lanes`] value), for a multiplier that takes 32-bit inputs (`mul32`).
//!
//! Invariant ("weak"): limbs 0…8 < 2^27 and limb 9 < 2^23 (the value is < 2^258). Every
//! operation takes and returns weak elements; canonical form ([`Fe10x26x8::normalize`]) is
//! asked for explicitly. In libsecp256k1's terms a weak element has magnitude ≤ 2 and the
//! multiplication's inputs stay below its 2^30 bound.
//!
//! Multiplication: the 100 limb products a_i·b_j (each < 2^54) are summed into 19 columns
//! c_0…c_18 (each < 10·2^54 < 2^57.4), Σ c_k·2^(26k) = a·b. The reduction uses
//! 2^260 ≡ 2^36 + R0 (mod p), R0 = 0x3D10, so a value x at position 10 + j goes to position j
//! as x·R0 and to position j + 1 as x·2^10. The multiplier needs x < 2^32, so the high
//! columns are first split at bit 26, all at once: s_m = lo26(c_m) + (c_{m−1} ≫ 26) < 2^32 for
//! the positions m = 10…19. After the fold the low columns are < 2^57.5; two passes of
//! parallel carries (no serial chain) bring them back to the weak form: the first splits
//! every column at bit 26 and folds the carry out of limb 9 with R0 again, the second is
//! [`Fe10x26x8::normalize_weak_from`]. Squaring doubles one factor of each cross product
//! (55 products).
//!
//! How it is compiled matters as much as the operation count. The products are written out
//! column by column (each column one chain of multiply-adds in a register), the kernel runs on
//! one four-lane half after the other (`Lanes::halves`: a half's operands fit the sixteen
//! registers), and no array of lane values is zero-filled first (`array_by_index!`: a fill the
//! optimiser keeps is a `memset` per operation). Above the kernels, everything multiplies
//! through [`MulSqr`], which on the registers is one out-of-line copy of each kernel: inlined
//! at each call site the engine was half a megabyte of code.
//!
//! Additions, negation and small multiples are limb-wise, followed by the same one-pass
//! parallel carry, so that every result is weak again.

use super::lanes::{LaneOps, Lanes};
use crate::backend::field::{array_by_index, pow_p_minus_2, pow_p_plus_1_over_4, ChainOps};
use crate::backend::portable::field::Fe5x52;

const M26: u64 = (1 << 26) - 1;
const M22: u64 = (1 << 22) - 1;
const LO32: u64 = (1 << 32) - 1;
/// 2^256 mod p is 0x40·2^26 + C0: C0 at limb 0, 2^6 at limb 1.
const C0: u64 = 0x3D1;
/// 2^260 mod p is 2^10·2^26 + R0: R0 at limb 0, 2^10 at limb 1.
const R0: u64 = 0x3D10;
/// p in 26-bit limbs.
const P: [u64; 10] = [0x3FF_FC2F, 0x3FF_FFBF, M26, M26, M26, M26, M26, M26, M26, M22];
/// 4p limb by limb: every limb is at least the matching limb of a weak element.
const P4: [u64; 10] =
    [4 * P[0], 4 * P[1], 4 * M26, 4 * M26, 4 * M26, 4 * M26, 4 * M26, 4 * M26, 4 * M26, 4 * M22];

/// Eight field elements, one per lane (see the module documentation). Conversions take
/// `&self` like the rest of the kernel API.
#[derive(Clone, Copy)]
pub(crate) struct Fe10x26x8<L: Lanes> {
    pub(crate) l: [L; 10],
}

/// `[$e(0), …, $e(9)]` written out (see `array_by_index!`).
macro_rules! limbs {
    (|$k:ident| $e:expr) => {
        array_by_index!(|$k| $e; 0 1 2 3 4 5 6 7 8 9)
    };
}

/// Σ x_i·y_j over the listed limb pairs, one multiply-add after another (left to right).
macro_rules! sum_of_products {
    ($x:ident[$i:literal] * $y:ident[$j:literal] $(, $xs:ident[$is:literal] * $ys:ident[$js:literal])*) => {
        $x[$i].mul32($y[$j])$(.add($xs[$is].mul32($ys[$js])))*
    };
}

/// Serial carries 0→1→…→9 (limbs 0…8 left < 2^26); limb 9 keeps the carry.
#[inline(always)]
fn carry_serial<L: Lanes>(c: &mut [L; 10]) {
    let m = L::splat(M26);
    for k in 0..9 {
        c[k + 1] = c[k + 1].add(c[k].shr::<26>());
        c[k] = c[k].and(m);
    }
}

/// Limbs 0…8 below 2^47 and limb 9 below 2^37 back to the weak form by one pass of parallel
/// carries: each limb keeps its low 26 bits (limb 9: 22) and passes the rest up; what limb 9
/// passes is above 2^256 and folds as ·0x1000003D1 (C0 at limb 0, 2^6 at limb 1).
#[inline(always)]
fn weak<T: LaneOps>(c: [T; 10]) -> [T; 10] {
    let m = T::splat(M26);
    // x < 2^15, so x·C0 < 2^25 and x·2^6 < 2^21; the carries h_k < 2^21.
    let x = c[9].shr::<22>();
    let mut l = limbs!(|k| c[k].and(m));
    l[9] = c[9].and(T::splat(M22));
    l[0] = l[0].add(x.mul32(T::splat(C0)));
    l[1] = l[1].add(x.shl::<6>());
    for k in 1..10 {
        l[k] = l[k].add(c[k - 1].shr::<26>());
    }
    l
}

/// a·b on one set of lanes (the eight-lane type or a half of it).
#[inline(always)]
fn mul10<T: LaneOps>(a: &[T; 10], b: &[T; 10]) -> [T; 10] {
    // Written out column by column: each column is one chain of multiply-adds held in a
    // register, where loops over i and j keep the nineteen sums in memory.
    let c: [T; 19] = [
        sum_of_products!(a[0] * b[0]),
        sum_of_products!(a[0] * b[1], a[1] * b[0]),
        sum_of_products!(a[0] * b[2], a[1] * b[1], a[2] * b[0]),
        sum_of_products!(a[0] * b[3], a[1] * b[2], a[2] * b[1], a[3] * b[0]),
        sum_of_products!(a[0] * b[4], a[1] * b[3], a[2] * b[2], a[3] * b[1], a[4] * b[0]),
        sum_of_products!(a[0] * b[5], a[1] * b[4], a[2] * b[3], a[3] * b[2], a[4] * b[1], a[5] * b[0]),
        sum_of_products!(
            a[0] * b[6],
            a[1] * b[5],
            a[2] * b[4],
            a[3] * b[3],
            a[4] * b[2],
            a[5] * b[1],
            a[6] * b[0]
        ),
        sum_of_products!(
            a[0] * b[7],
            a[1] * b[6],
            a[2] * b[5],
            a[3] * b[4],
            a[4] * b[3],
            a[5] * b[2],
            a[6] * b[1],
            a[7] * b[0]
        ),
        sum_of_products!(
            a[0] * b[8],
            a[1] * b[7],
            a[2] * b[6],
            a[3] * b[5],
            a[4] * b[4],
            a[5] * b[3],
            a[6] * b[2],
            a[7] * b[1],
            a[8] * b[0]
        ),
        sum_of_products!(
            a[0] * b[9],
            a[1] * b[8],
            a[2] * b[7],
            a[3] * b[6],
            a[4] * b[5],
            a[5] * b[4],
            a[6] * b[3],
            a[7] * b[2],
            a[8] * b[1],
            a[9] * b[0]
        ),
        sum_of_products!(
            a[1] * b[9],
            a[2] * b[8],
            a[3] * b[7],
            a[4] * b[6],
            a[5] * b[5],
            a[6] * b[4],
            a[7] * b[3],
            a[8] * b[2],
            a[9] * b[1]
        ),
        sum_of_products!(
            a[2] * b[9],
            a[3] * b[8],
            a[4] * b[7],
            a[5] * b[6],
            a[6] * b[5],
            a[7] * b[4],
            a[8] * b[3],
            a[9] * b[2]
        ),
        sum_of_products!(
            a[3] * b[9],
            a[4] * b[8],
            a[5] * b[7],
            a[6] * b[6],
            a[7] * b[5],
            a[8] * b[4],
            a[9] * b[3]
        ),
        sum_of_products!(a[4] * b[9], a[5] * b[8], a[6] * b[7], a[7] * b[6], a[8] * b[5], a[9] * b[4]),
        sum_of_products!(a[5] * b[9], a[6] * b[8], a[7] * b[7], a[8] * b[6], a[9] * b[5]),
        sum_of_products!(a[6] * b[9], a[7] * b[8], a[8] * b[7], a[9] * b[6]),
        sum_of_products!(a[7] * b[9], a[8] * b[8], a[9] * b[7]),
        sum_of_products!(a[8] * b[9], a[9] * b[8]),
        sum_of_products!(a[9] * b[9]),
    ];
    reduce19(c)
}

/// a² on one set of lanes.
#[inline(always)]
fn sqr10<T: LaneOps>(a: &[T; 10]) -> [T; 10] {
    // 2·a_j < 2^28: still a 32-bit multiplier input.
    let d: [T; 10] = limbs!(|j| a[j].shl::<1>());
    // Column k: the cross products a_i·2a_j with i < j, i + j = k, then a_{k/2}².
    let c: [T; 19] = [
        sum_of_products!(a[0] * a[0]),
        sum_of_products!(a[0] * d[1]),
        sum_of_products!(a[0] * d[2], a[1] * a[1]),
        sum_of_products!(a[0] * d[3], a[1] * d[2]),
        sum_of_products!(a[0] * d[4], a[1] * d[3], a[2] * a[2]),
        sum_of_products!(a[0] * d[5], a[1] * d[4], a[2] * d[3]),
        sum_of_products!(a[0] * d[6], a[1] * d[5], a[2] * d[4], a[3] * a[3]),
        sum_of_products!(a[0] * d[7], a[1] * d[6], a[2] * d[5], a[3] * d[4]),
        sum_of_products!(a[0] * d[8], a[1] * d[7], a[2] * d[6], a[3] * d[5], a[4] * a[4]),
        sum_of_products!(a[0] * d[9], a[1] * d[8], a[2] * d[7], a[3] * d[6], a[4] * d[5]),
        sum_of_products!(a[1] * d[9], a[2] * d[8], a[3] * d[7], a[4] * d[6], a[5] * a[5]),
        sum_of_products!(a[2] * d[9], a[3] * d[8], a[4] * d[7], a[5] * d[6]),
        sum_of_products!(a[3] * d[9], a[4] * d[8], a[5] * d[7], a[6] * a[6]),
        sum_of_products!(a[4] * d[9], a[5] * d[8], a[6] * d[7]),
        sum_of_products!(a[5] * d[9], a[6] * d[8], a[7] * a[7]),
        sum_of_products!(a[6] * d[9], a[7] * d[8]),
        sum_of_products!(a[7] * d[9], a[8] * a[8]),
        sum_of_products!(a[8] * d[9]),
        sum_of_products!(a[9] * a[9]),
    ];
    reduce19(c)
}

/// Σ c_k·2^(26k) mod p to weak form, for columns c_k < 2^57.4 with c_18 < 2^46 (products of
/// weak elements).
#[inline(always)]
fn reduce19<T: LaneOps>(c: [T; 19]) -> [T; 10] {
    let m = T::splat(M26);
    let r0 = T::splat(R0);
    // Positions 10…19 of the high part: s_m = lo26(c_m) + (c_{m−1} ≫ 26) < 2^26 + 2^31.4
    // (no carry into position 10 from c_9, which stays low); s_19 = c_18 ≫ 26 < 2^20.
    let mut s: [T; 10] = limbs!(|j| c[(j + 10).min(18)].and(m));
    s[9] = c[18].shr::<26>();
    for j in 1..9 {
        s[j] = s[j].add(c[j + 9].shr::<26>());
    }
    // Fold: position 10 + j → s·R0 at j (< 2^45.4) and s·2^10 at j + 1 (< 2^41.4). The
    // 2^10 part of s_19 lands at position 10 again (< 2^30) and folds once more.
    let mut lo: [T; 10] = limbs!(|j| c[j].add(s[j].mul32(r0)));
    for j in 0..9 {
        lo[j + 1] = lo[j + 1].add(s[j].shl::<10>());
    }
    let t = s[9].shl::<10>();
    lo[0] = lo[0].add(t.mul32(r0));
    lo[1] = lo[1].add(t.shl::<10>());
    // First pass: every column split at bit 26 (carries < 2^31.5); the carry out of limb 9
    // is at position 10 and folds with R0 (d_0 < 2^45.5, d_1 < 2^41.6, others < 2^31.5).
    let h9 = lo[9].shr::<26>();
    let mut d = limbs!(|k| lo[k].and(m));
    d[0] = d[0].add(h9.mul32(r0));
    d[1] = d[1].add(h9.shl::<10>());
    for k in 1..10 {
        d[k] = d[k].add(lo[k - 1].shr::<26>());
    }
    weak(d)
}

#[allow(clippy::wrong_self_convention)]
impl<L: Lanes> Fe10x26x8<L> {
    /// Every lane 0.
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        Fe10x26x8 { l: [L::splat(0); 10] }
    }

    /// Every lane 1.
    #[inline(always)]
    pub(crate) fn one() -> Self {
        Fe10x26x8 { l: limbs!(|k| L::splat((k == 0) as u64)) }
    }

    /// The ten 26-bit limbs of a canonical 5×52 element.
    #[inline(always)]
    fn limbs26(a: &Fe5x52) -> [u64; 10] {
        let n = a.normalize().0;
        core::array::from_fn(|k| if k % 2 == 0 { n[k / 2] & M26 } else { n[k / 2] >> 26 })
    }

    /// Every lane `a` (any portable magnitude).
    #[inline(always)]
    pub(crate) fn splat(a: &Fe5x52) -> Self {
        let n = Self::limbs26(a);
        Fe10x26x8 { l: limbs!(|k| L::splat(n[k])) }
    }

    /// Lane i from `a[i]` (any portable magnitude; normalized first).
    #[inline(always)]
    pub(crate) fn from_lanes(a: &[Fe5x52; 8]) -> Self {
        let n: [[u64; 10]; 8] = core::array::from_fn(|i| Self::limbs26(&a[i]));
        Fe10x26x8 { l: limbs!(|k| L::from_array(core::array::from_fn(|i| n[i][k]))) }
    }

    /// The eight elements as portable values, canonical.
    #[inline(always)]
    pub(crate) fn to_lanes(&self) -> [Fe5x52; 8] {
        let n = self.normalize();
        let w: [[u64; 8]; 10] = limbs!(|k| n.l[k].to_array());
        core::array::from_fn(|i| Fe5x52(core::array::from_fn(|k| w[2 * k][i] | w[2 * k + 1][i] << 26)))
    }

    /// Limbs 0…8 below 2^47 and limb 9 below 2^37 back to the weak form (see `weak`).
    #[inline(always)]
    pub(crate) fn normalize_weak_from(c: [L; 10]) -> Self {
        Fe10x26x8 { l: weak(c) }
    }

    /// Limb k of each half: lanes 0…3, then 4…7.
    #[inline(always)]
    fn halves(&self) -> [[L::Half; 10]; 2] {
        let h: [[L::Half; 2]; 10] = limbs!(|k| self.l[k].halves());
        [limbs!(|k| h[k][0]), limbs!(|k| h[k][1])]
    }

    /// The inverse of [`halves`](Self::halves).
    #[inline(always)]
    fn from_halves(h: [[L::Half; 10]; 2]) -> Self {
        Fe10x26x8 { l: limbs!(|k| L::from_halves([h[0][k], h[1][k]])) }
    }

    /// a·b, one half of the lanes after the other: a half's operands fit the sixteen
    /// registers, the two halves' interleaved would not.
    #[inline(always)]
    pub(crate) fn mul(&self, b: &Self) -> Self {
        let (a, b) = (self.halves(), b.halves());
        Self::from_halves([mul10(&a[0], &b[0]), mul10(&a[1], &b[1])])
    }

    /// a², one half of the lanes after the other.
    #[inline(always)]
    pub(crate) fn sqr(&self) -> Self {
        let a = self.halves();
        Self::from_halves([sqr10(&a[0]), sqr10(&a[1])])
    }

    /// a + b.
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn add(&self, b: &Self) -> Self {
        Self::normalize_weak_from(limbs!(|k| self.l[k].add(b.l[k])))
    }

    /// −a (4p − a limb by limb: no borrow for weak a).
    #[inline(always)]
    pub(crate) fn neg(&self) -> Self {
        Self::normalize_weak_from(limbs!(|k| L::splat(P4[k]).sub(self.l[k])))
    }

    /// a − b.
    #[inline(always)]
    pub(crate) fn sub(&self, b: &Self) -> Self {
        Self::normalize_weak_from(limbs!(|k| self.l[k].add(L::splat(P4[k])).sub(b.l[k])))
    }

    /// 2^N·a for N ≤ 3.
    #[inline(always)]
    pub(crate) fn mul_pow2<const N: i32>(&self) -> Self {
        Self::normalize_weak_from(limbs!(|k| self.l[k].shl::<N>()))
    }

    /// 3·a.
    #[inline(always)]
    pub(crate) fn mul3(&self) -> Self {
        Self::normalize_weak_from(limbs!(|k| self.l[k].shl::<1>().add(self.l[k])))
    }

    /// k·a for k ≤ 32 (each product lo32(limb)·k < 2^32).
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn mul_small(&self, k: u32) -> Self {
        assert!(k <= 32, "mul_small: k = {k} > 32");
        let kv = L::splat(k as u64);
        Self::normalize_weak_from(limbs!(|i| self.l[i].mul32(kv)))
    }

    /// Lane i from `b` where bit i of `m` is set, else from `self`.
    #[inline(always)]
    pub(crate) fn blend(&self, m: u8, b: &Self) -> Self {
        Fe10x26x8 { l: limbs!(|k| L::blend(m, self.l[k], b.l[k])) }
    }

    /// The canonical representative of every lane, in [0, p).
    #[inline(always)]
    pub(crate) fn normalize(&self) -> Self {
        // Fold bit 256 and up (at most one for a weak element), then serial carries: the value
        // is < 2^256 + 2^236 after this pass, so one subtraction of p suffices.
        let mut a = self.l;
        let x = a[9].shr::<22>();
        a[9] = a[9].and(L::splat(M22));
        a[0] = a[0].add(x.mul32(L::splat(C0)));
        a[1] = a[1].add(x.shl::<6>());
        carry_serial(&mut a);
        // a + 0x1000003D1 carries past bit 256 exactly when a ≥ p.
        let mut s = a;
        s[0] = s[0].add(L::splat(C0));
        s[1] = s[1].add(L::splat(1 << 6));
        carry_serial(&mut s);
        let ge = !s[9].shr::<22>().eq_mask(L::splat(0));
        s[9] = s[9].and(L::splat(M22));
        Fe10x26x8 { l: limbs!(|k| L::blend(ge, a[k], s[k])) }
    }

    /// Mask of the lanes whose value is 0 mod p.
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn is_zero_mask(&self) -> u8 {
        let n = self.normalize().l;
        let any = n[1..].iter().fold(n[0], |acc, &x| acc.or(x));
        any.eq_mask(L::splat(0))
    }

    /// The element in five words per lane, two limbs per word (limb 2w in the low 32 bits,
    /// limb 2w + 1 in the high): word w of lane i at `out[8w + i]` of what is appended.
    #[inline(always)]
    pub(crate) fn write_words(&self, out: &mut Vec<u64>) {
        for w in 0..5 {
            out.extend_from_slice(&self.l[2 * w].or(self.l[2 * w + 1].shl::<32>()).to_array());
        }
    }

    /// The element [`write_words`](Self::write_words) wrote, lane i starting at `t[base[i]]`
    /// (word w at `t[base[i] + 8w]`).
    #[inline(always)]
    pub(crate) fn read_words(t: &[u64], base: &[u64; 8]) -> Self {
        let lo = L::splat(LO32);
        let v: [L; 5] = array_by_index!(|w| L::gather(&t[8 * w..], base); 0 1 2 3 4);
        Fe10x26x8 { l: limbs!(|k| if k.is_multiple_of(2) { v[k / 2].and(lo) } else { v[k / 2].shr::<32>() }) }
    }

    /// Lane i from the canonical 5×52 limbs at `t[base[i]…base[i] + 5]`.
    #[inline(always)]
    pub(crate) fn read_limbs52(t: &[u64], base: &[u64; 8]) -> Self {
        let m = L::splat(M26);
        let v: [L; 5] = array_by_index!(|k| L::gather(&t[k..], base); 0 1 2 3 4);
        Fe10x26x8 { l: limbs!(|k| if k.is_multiple_of(2) { v[k / 2].and(m) } else { v[k / 2].shr::<26>() }) }
    }
}

/// The multiplication and squaring that everything above the kernels calls (the engine, the
/// addition chains): one out-of-line copy of [`Fe10x26x8::mul`] and [`Fe10x26x8::sqr`] on the
/// model and on the registers. Inlined at each of the engine's few
/// dozen call sites, the unrolled kernels (some 700 instructions each) made the engine half a
/// megabyte of code that ran from outside the instruction caches.
pub(crate) trait MulSqr: Lanes {
    /// a·b.
    fn fe_mul(a: &Fe10x26x8<Self>, b: &Fe10x26x8<Self>) -> Fe10x26x8<Self>;
    /// a².
    fn fe_sqr(a: &Fe10x26x8<Self>) -> Fe10x26x8<Self>;
}

/// On the model too, one out-of-line copy of each kernel: inlined at every call site of the
/// engine the emulated kernels made its test instantiation one function that took the optimiser
/// over half an hour.
impl MulSqr for super::lanes::Emulated {
    #[inline(never)]
    fn fe_mul(a: &Fe10x26x8<Self>, b: &Fe10x26x8<Self>) -> Fe10x26x8<Self> {
        a.mul(b)
    }
    #[inline(never)]
    fn fe_sqr(a: &Fe10x26x8<Self>) -> Fe10x26x8<Self> {
        a.sqr()
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Fe10x26x8, MulSqr};
    use crate::backend::avx2::lanes::Avx2;

    /// [`Fe10x26x8::mul`] on the registers, compiled once with the features enabled.
    ///
    /// # Safety
    /// The CPU must have AVX2 (values of `Avx2` exist only then).
    #[target_feature(enable = "avx2,bmi2,adx")]
    #[inline(never)]
    unsafe fn mul_avx2(a: &Fe10x26x8<Avx2>, b: &Fe10x26x8<Avx2>) -> Fe10x26x8<Avx2> {
        a.mul(b)
    }

    /// [`Fe10x26x8::sqr`] on the registers, compiled once with the features enabled.
    ///
    /// # Safety
    /// As [`mul_avx2`].
    #[target_feature(enable = "avx2,bmi2,adx")]
    #[inline(never)]
    unsafe fn sqr_avx2(a: &Fe10x26x8<Avx2>) -> Fe10x26x8<Avx2> {
        a.sqr()
    }

    impl MulSqr for Avx2 {
        #[inline(always)]
        fn fe_mul(a: &Fe10x26x8<Self>, b: &Fe10x26x8<Self>) -> Fe10x26x8<Self> {
            // SAFETY: values of `Avx2` exist only behind an Avx2 token, issued after
            // `Cpu::get()` saw avx2, bmi2 and adx (see `lanes`).
            unsafe { mul_avx2(a, b) }
        }
        #[inline(always)]
        fn fe_sqr(a: &Fe10x26x8<Self>) -> Fe10x26x8<Self> {
            // SAFETY: as in `fe_mul`.
            unsafe { sqr_avx2(a) }
        }
    }
}

impl<L: MulSqr> Fe10x26x8<L> {
    /// a^(p−2) = a⁻¹ per lane (0 ↦ 0) by the addition chain of `secp256k1::field::inv`.
    #[inline(always)]
    pub(crate) fn inv(&self) -> Self {
        pow_p_minus_2(self)
    }

    /// a^((p+1)/4) per lane, the candidate square root (the caller checks its square).
    #[inline(always)]
    pub(crate) fn pow_p1_4(&self) -> Self {
        pow_p_plus_1_over_4(self)
    }
}

impl<L: MulSqr> ChainOps for Fe10x26x8<L> {
    #[inline(always)]
    fn chain_mul(&self, b: &Self) -> Self {
        L::fe_mul(self, b)
    }
    #[inline(always)]
    fn chain_sqr(&self) -> Self {
        L::fe_sqr(self)
    }
}

/// p in 26-bit limbs (for tests).
#[cfg(test)]
pub(crate) const P_LIMBS: [u64; 10] = P;
