// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`Fe8`]: the eight-lane field the eight-way engine is written over, with exactly the
//! operations `ecmult8`, the verifiers, the field chains and `lift::from_x8` use. Two types
//! implement it: `Fe5x52x8` (five 52-bit limbs, on AVX-512 IFMA lanes or their model) and
//! `Fe10x26x8` (ten 26-bit limbs, on AVX2 lanes or their model).
//!
//! Contract: every operation takes and returns elements in the implementing type's weak
//! form (an invariant on the limbs under which every limb is a valid multiplier input), so
//! any composition of the operations is valid without magnitude bookkeeping at the call
//! site; [`Fe8::normalize`] gives the canonical representative of every lane, and
//! [`Fe8::to_lanes`] portable elements of magnitude ≤ 2.

use crate::backend::avx2::field::{Fe10x26x8, MulSqr};
use crate::backend::field::{array_by_index, ChainOps};
use crate::backend::ifma::field::Fe5x52x8;
use crate::backend::ifma::lanes::Lanes as Lanes52;
use crate::backend::portable::field::Fe5x52;

/// Eight elements of GF(p), one per lane (see the module documentation).
pub(crate) trait Fe8: ChainOps + Send + Sync + 'static {
    /// Words per element and lane in the format of [`Fe8::write_table`].
    const TABLE_WORDS: usize;
    /// Every lane 0.
    fn zero() -> Self;
    /// Every lane 1.
    fn one() -> Self;
    /// Every lane `a` (any portable magnitude).
    fn splat(a: &Fe5x52) -> Self;
    /// Lane i from `a[i]` (any portable magnitude).
    fn from_lanes(a: &[Fe5x52; 8]) -> Self;
    /// The eight elements as portable values (magnitude ≤ 2).
    fn to_lanes(&self) -> [Fe5x52; 8];
    fn mul(&self, b: &Self) -> Self;
    fn sqr(&self) -> Self;
    fn sub(&self, b: &Self) -> Self;
    fn neg(&self) -> Self;
    /// 2^N·a for N ≤ 3.
    fn mul_pow2<const N: u32>(&self) -> Self;
    fn mul3(&self) -> Self;
    /// Lane i from `b` where bit i of `m` is set, else from `self`.
    fn blend(&self, m: u8, b: &Self) -> Self;
    /// The canonical representative of every lane.
    fn normalize(&self) -> Self;
    /// a^(p−2) per lane by the addition chain (0 ↦ 0).
    fn inv(&self) -> Self;
    /// a^((p+1)/4) per lane, the candidate square root.
    fn pow_p1_4(&self) -> Self;
    /// Appends the element in `TABLE_WORDS` words per lane: word w of lane i at `8w + i`.
    fn write_table(&self, out: &mut Vec<u64>);
    /// The element [`Fe8::write_table`] wrote, lane i starting at `t[base[i]]`.
    fn read_table(t: &[u64], base: &[u64; 8]) -> Self;
    /// Lane i from the five canonical 52-bit limbs at `t[base[i]…base[i] + 5]`.
    fn read_limbs52(t: &[u64], base: &[u64; 8]) -> Self;
}

impl<L: Lanes52> Fe8 for Fe5x52x8<L> {
    const TABLE_WORDS: usize = 5;
    #[inline(always)]
    fn zero() -> Self {
        Fe5x52x8::zero()
    }
    #[inline(always)]
    fn one() -> Self {
        Fe5x52x8::one()
    }
    #[inline(always)]
    fn splat(a: &Fe5x52) -> Self {
        Fe5x52x8::splat(a)
    }
    #[inline(always)]
    fn from_lanes(a: &[Fe5x52; 8]) -> Self {
        Fe5x52x8::from_lanes(a)
    }
    #[inline(always)]
    fn to_lanes(&self) -> [Fe5x52; 8] {
        Fe5x52x8::to_lanes(self)
    }
    #[inline(always)]
    fn mul(&self, b: &Self) -> Self {
        Fe5x52x8::mul(self, b)
    }
    #[inline(always)]
    fn sqr(&self) -> Self {
        Fe5x52x8::sqr(self)
    }
    #[inline(always)]
    fn sub(&self, b: &Self) -> Self {
        Fe5x52x8::sub(self, b)
    }
    #[inline(always)]
    fn neg(&self) -> Self {
        Fe5x52x8::neg(self)
    }
    #[inline(always)]
    fn mul_pow2<const N: u32>(&self) -> Self {
        Fe5x52x8::mul_pow2::<N>(self)
    }
    #[inline(always)]
    fn mul3(&self) -> Self {
        Fe5x52x8::mul3(self)
    }
    #[inline(always)]
    fn blend(&self, m: u8, b: &Self) -> Self {
        Fe5x52x8::blend(self, m, b)
    }
    #[inline(always)]
    fn normalize(&self) -> Self {
        Fe5x52x8::normalize(self)
    }
    #[inline(always)]
    fn inv(&self) -> Self {
        Fe5x52x8::inv(self)
    }
    #[inline(always)]
    fn pow_p1_4(&self) -> Self {
        Fe5x52x8::pow_p1_4(self)
    }
    #[inline(always)]
    fn write_table(&self, out: &mut Vec<u64>) {
        for c in &self.l {
            out.extend_from_slice(&c.to_array());
        }
    }
    #[inline(always)]
    fn read_table(t: &[u64], base: &[u64; 8]) -> Self {
        let idx = L::from_array(*base);
        Fe5x52x8 { l: array_by_index!(|k| L::gather(&t[8 * k..], idx); 0 1 2 3 4) }
    }
    #[inline(always)]
    fn read_limbs52(t: &[u64], base: &[u64; 8]) -> Self {
        let idx = L::from_array(*base);
        Fe5x52x8 { l: array_by_index!(|k| L::gather(&t[k..], idx); 0 1 2 3 4) }
    }
}

impl<L: MulSqr> Fe8 for Fe10x26x8<L> {
    const TABLE_WORDS: usize = 5;
    #[inline(always)]
    fn zero() -> Self {
        Fe10x26x8::zero()
    }
    #[inline(always)]
    fn one() -> Self {
        Fe10x26x8::one()
    }
    #[inline(always)]
    fn splat(a: &Fe5x52) -> Self {
        Fe10x26x8::splat(a)
    }
    #[inline(always)]
    fn from_lanes(a: &[Fe5x52; 8]) -> Self {
        Fe10x26x8::from_lanes(a)
    }
    #[inline(always)]
    fn to_lanes(&self) -> [Fe5x52; 8] {
        Fe10x26x8::to_lanes(self)
    }
    #[inline(always)]
    fn mul(&self, b: &Self) -> Self {
        L::fe_mul(self, b)
    }
    #[inline(always)]
    fn sqr(&self) -> Self {
        L::fe_sqr(self)
    }
    #[inline(always)]
    fn sub(&self, b: &Self) -> Self {
        Fe10x26x8::sub(self, b)
    }
    #[inline(always)]
    fn neg(&self) -> Self {
        Fe10x26x8::neg(self)
    }
    #[inline(always)]
    fn mul_pow2<const N: u32>(&self) -> Self {
        // The lane shifts take an `i32` count (the intrinsics' type).
        match N {
            1 => Fe10x26x8::mul_pow2::<1>(self),
            2 => Fe10x26x8::mul_pow2::<2>(self),
            3 => Fe10x26x8::mul_pow2::<3>(self),
            _ => panic!("mul_pow2: 2^{N} above 8"),
        }
    }
    #[inline(always)]
    fn mul3(&self) -> Self {
        Fe10x26x8::mul3(self)
    }
    #[inline(always)]
    fn blend(&self, m: u8, b: &Self) -> Self {
        Fe10x26x8::blend(self, m, b)
    }
    #[inline(always)]
    fn normalize(&self) -> Self {
        Fe10x26x8::normalize(self)
    }
    #[inline(always)]
    fn inv(&self) -> Self {
        Fe10x26x8::inv(self)
    }
    #[inline(always)]
    fn pow_p1_4(&self) -> Self {
        Fe10x26x8::pow_p1_4(self)
    }
    #[inline(always)]
    fn write_table(&self, out: &mut Vec<u64>) {
        self.write_words(out)
    }
    #[inline(always)]
    fn read_table(t: &[u64], base: &[u64; 8]) -> Self {
        Fe10x26x8::read_words(t, base)
    }
    #[inline(always)]
    fn read_limbs52(t: &[u64], base: &[u64; 8]) -> Self {
        Fe10x26x8::read_limbs52(t, base)
    }
}
