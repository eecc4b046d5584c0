// SPDX-License-Identifier: MIT OR Apache-2.0
//! The field-kernel contract: [`FieldOps`], which each backend's GF(p) kernels implement
//! (mul, sqr, add, negate, normalize), and [`Fe5x52`], the one representation every backend
//! converts to and from (public key, point and field-element types store it).
//!
//! The contract sits with the kernels that implement it, below the curve code that uses it:
//! `backend::{portable, x86_64_asm}` implement it, `secp256k1::field` writes the derived
//! operations (inverses, square root, batch inverse) once over it. `Fe5x52`'s kernels and
//! magnitude rules are in `backend::portable::field`.

use core::fmt;

/// A field element in 5×52 representation with lazy reduction (see `backend::portable::field`).
#[derive(Clone, Copy, Debug)]
pub struct Fe5x52(pub [u64; 5]);

/// Machine-level field kernels of one backend. Each backend implements it in its own folder
/// (`backend::portable`, `backend::x86_64_asm`); the derived operations over it are in
/// `secp256k1::field`.
pub(crate) trait FieldOps: Copy + Clone + fmt::Debug + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
    /// From little-endian words of a value < 2^256 (magnitude 1, maybe ≥ p).
    fn from_u64x4(a: [u64; 4]) -> Self;
    /// Little-endian words. Precondition: normalized.
    fn to_u64x4(&self) -> [u64; 4];
    fn mul(&self, b: &Self) -> Self;
    fn sqr(&self) -> Self;
    fn add(&self, b: &Self) -> Self;
    fn mul_int(&self, k: u32) -> Self;
    fn negate(&self, m: u32) -> Self;
    fn normalize_weak(&self) -> Self;
    fn normalize(&self) -> Self;
    fn normalizes_to_zero_var(&self) -> bool;
    /// Precondition: normalized.
    fn is_odd(&self) -> bool;

    /// Equality of values mod p (variable time).
    #[inline(always)]
    fn eq_var(&self, b: &Self) -> bool {
        self.add(&b.negate(1)).normalizes_to_zero_var()
    }
    /// From 32 big-endian bytes; `None` when the value is ≥ p.
    fn from_be_bytes(b: &[u8; 32]) -> Option<Self> {
        let w = words_from_be(b);
        if ge_p(&w) {
            None
        } else {
            Some(Self::from_u64x4(w))
        }
    }
    /// From the portable representation that public types store (input magnitude ≤ 1 per
    /// the 5×52 rules). The Portable backend overrides this with the identity.
    #[inline(always)]
    fn from_portable(a: &Fe5x52) -> Self {
        Self::from_u64x4(a.normalize().to_u64x4())
    }
    /// To the portable representation, normalized. The Portable backend overrides this with
    /// the identity (keeping the input's magnitude).
    #[inline(always)]
    fn to_portable(&self) -> Fe5x52 {
        Fe5x52::from_u64x4(self.normalize().to_u64x4())
    }
}

/// p as little-endian words.
pub(crate) const P_WORDS: [u64; 4] =
    [0xFFFF_FFFE_FFFF_FC2F, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF];

/// Big-endian bytes to little-endian words.
#[inline]
pub(crate) fn words_from_be(b: &[u8; 32]) -> [u64; 4] {
    core::array::from_fn(|i| u64::from_be_bytes(b[24 - 8 * i..32 - 8 * i].try_into().unwrap()))
}

/// Little-endian words to big-endian bytes.
#[inline]
pub(crate) fn words_to_be(w: &[u64; 4]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for i in 0..4 {
        out[24 - 8 * i..32 - 8 * i].copy_from_slice(&w[i].to_be_bytes());
    }
    out
}

/// Whether little-endian words `a` ≥ `b` (variable time).
#[inline]
pub(crate) fn words_ge(a: &[u64; 4], b: &[u64; 4]) -> bool {
    for i in (0..4).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

#[inline]
fn ge_p(w: &[u64; 4]) -> bool {
    words_ge(w, &P_WORDS)
}

/// The operations an addition chain needs: implemented by every [`FieldOps`] type and by the
/// eight-lane `Fe5x52x8` and `Fe10x26x8`, so the chains below are written once for both.
pub(crate) trait ChainOps: Copy {
    fn chain_mul(&self, b: &Self) -> Self;
    fn chain_sqr(&self) -> Self;
    /// a^(2^n).
    #[inline(always)]
    fn chain_sqr_n(&self, n: usize) -> Self {
        let mut r = *self;
        for _ in 0..n {
            r = r.chain_sqr();
        }
        r
    }
}

/// `impl ChainOps` for a type with `mul` and `sqr` methods (the trait's or its own).
macro_rules! chain_ops_by_mul_sqr {
    (impl<$P:ident: $B:path> for $T:ty) => {
        impl<$P: $B> $crate::backend::field::ChainOps for $T {
            #[inline(always)]
            fn chain_mul(&self, b: &Self) -> Self {
                self.mul(b)
            }
            #[inline(always)]
            fn chain_sqr(&self) -> Self {
                self.sqr()
            }
        }
    };
}
pub(crate) use chain_ops_by_mul_sqr;

chain_ops_by_mul_sqr!(impl<F: FieldOps> for F);

/// `[$e(i₀), $e(i₁), …]` for the listed indices, written out as an array literal: for arrays
/// of lane values, where `core::array::from_fn` may be compiled out of line (and its closure
/// with it, outside the caller's `#[target_feature]` function, where every lane operation
/// becomes a call) and a loop over a zero-filled array leaves the fill behind (a `memset`).
macro_rules! array_by_index {
    (|$k:ident| $e:expr; $($i:literal)+) => {
        [$({
            let $k: usize = $i;
            $e
        }),+]
    };
}
pub(crate) use array_by_index;

/// The shared start of the inversion (a^(p−2)) and square-root (a^((p+1)/4)) chains:
/// (x2, x22, x223) with xk = a^(2^k − 1), by 222 squarings and 11 multiplications.
#[inline(always)]
pub(crate) fn pow_2k_minus_1<T: ChainOps>(a: &T) -> (T, T, T) {
    let x2 = a.chain_sqr().chain_mul(a);
    let x3 = x2.chain_sqr().chain_mul(a);
    let x6 = x3.chain_sqr_n(3).chain_mul(&x3);
    let x9 = x6.chain_sqr_n(3).chain_mul(&x3);
    let x11 = x9.chain_sqr_n(2).chain_mul(&x2);
    let x22 = x11.chain_sqr_n(11).chain_mul(&x11);
    let x44 = x22.chain_sqr_n(22).chain_mul(&x22);
    let x88 = x44.chain_sqr_n(44).chain_mul(&x44);
    let x176 = x88.chain_sqr_n(88).chain_mul(&x88);
    let x220 = x176.chain_sqr_n(44).chain_mul(&x44);
    let x223 = x220.chain_sqr_n(3).chain_mul(&x3);
    (x2, x22, x223)
}

/// a^(p−2) = a⁻¹ (0 ↦ 0), constant time: 255 squarings and 15 multiplications.
///
/// p − 2 in binary is 223 ones, a zero, 22 ones, four zeros, 1, 0, 11, 0, 1:
/// ((((2^223−1)·2^23 + 2^22−1)·2^5 + 1)·2^3 + 3)·2^2 + 1.
#[inline(always)]
pub(crate) fn pow_p_minus_2<T: ChainOps>(a: &T) -> T {
    let (x2, x22, x223) = pow_2k_minus_1(a);
    let t = x223.chain_sqr_n(23).chain_mul(&x22);
    let t = t.chain_sqr_n(5).chain_mul(a);
    let t = t.chain_sqr_n(3).chain_mul(&x2);
    t.chain_sqr_n(2).chain_mul(a)
}

/// a^((p+1)/4), a square root of a when one exists: 253 squarings and 13 multiplications.
/// (p+1)/4 = ((2^223−1)·2^23 + 2^22−1)·2^6 + 3)·2^2.
#[inline(always)]
pub(crate) fn pow_p_plus_1_over_4<T: ChainOps>(a: &T) -> T {
    let (x2, x22, x223) = pow_2k_minus_1(a);
    let t = x223.chain_sqr_n(23).chain_mul(&x22);
    let t = t.chain_sqr_n(6).chain_mul(&x2);
    t.chain_sqr_n(2)
}
