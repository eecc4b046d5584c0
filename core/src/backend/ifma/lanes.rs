// SPDX-License-Identifier: MIT OR Apache-2.0
//! Eight 64-bit lanes: the operations the IFMA kernels are written in.
//!
//! Every method of [`Lanes`] is one AVX-512 instruction (`gather` adds a bounds check), with
//! the instruction's exact semantics:
//!
//! | method           | intrinsic                     | lane i                                  |
//! |------------------|-------------------------------|-----------------------------------------|
//! | `splat(v)`       | `_mm512_set1_epi64`           | v                                       |
//! | `from_array`     | `_mm512_loadu_si512`          | a\[i\]                                  |
//! | `add`, `sub`     | `_mm512_add/sub_epi64`        | a ± b mod 2^64                          |
//! | `and`, `or`      | `_mm512_and/or_si512`         | a & b, a \| b                           |
//! | `shr::<N>`       | `_mm512_srli_epi64`           | a >> N (0 when N ≥ 64)                  |
//! | `shl::<N>`       | `_mm512_slli_epi64`           | a << N mod 2^64 (0 when N ≥ 64)         |
//! | `madd52lo(b, c)` | `_mm512_madd52lo_epu64`       | a + (lo52(b)·lo52(c) mod 2^52), mod 2^64 |
//! | `madd52hi(b, c)` | `_mm512_madd52hi_epu64`       | a + ⌊lo52(b)·lo52(c) / 2^52⌋, mod 2^64   |
//! | `eq_mask(b)`     | `_mm512_cmpeq_epi64_mask`     | bit i of the mask: a = b                |
//! | `blend(m, a, b)` | `_mm512_mask_blend_epi64`     | b if bit i of m is set, else a          |
//! | `permute(idx)`   | `_mm512_permutexvar_epi64`    | a\[idx\[i\] mod 8\]                     |
//! | `gather(t, idx)` | `_mm512_i64gather_epi64`      | t\[idx\[i\]\] (every index checked < len) |
//!
//! lo52(x) is x mod 2^52: the multiplier ignores bits 52…63 of its inputs.
//!
//! Two implementations: [`Emulated`], eight `u64` in an array, runs everywhere (wasm32
//! included) and is the model the tests check; `Ifma` (x86-64 only) holds an `__m512i`. Its
//! methods are safe functions over AVX-512 F/VL/IFMA instructions. That is sound because the
//! type is private to the crate and values of it are created only on paths reached through a
//! [`Backend`](crate::Backend) token of kind Ifma (issued only after `Cpu::get()` saw
//! avx512f, avx512ifma and avx512vl) or in tests after `require_or_skip(BackendKind::Ifma)`.
//! The entry points that run them are `#[target_feature]` functions, so these
//! `#[inline(always)]` methods compile to single instructions inside them.

/// Eight 64-bit lanes with AVX-512 semantics (see the module documentation). `or` and
/// `permute` complete the instruction set the kernels are written in; only tests and the
/// canonical-zero check use them today.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) trait Lanes: Copy + Send + Sync + 'static {
    fn splat(v: u64) -> Self;
    fn from_array(a: [u64; 8]) -> Self;
    fn to_array(self) -> [u64; 8];
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn shr<const N: u32>(self) -> Self;
    fn shl<const N: u32>(self) -> Self;
    /// self + lo52(lo52(b)·lo52(c)).
    fn madd52lo(self, b: Self, c: Self) -> Self;
    /// self + hi52(lo52(b)·lo52(c)), the product's bits 52…103.
    fn madd52hi(self, b: Self, c: Self) -> Self;
    fn eq_mask(self, b: Self) -> u8;
    /// Lane i of `b` where bit i of `m` is set, else lane i of `a`.
    fn blend(m: u8, a: Self, b: Self) -> Self;
    /// Lane i is lane `idx[i] mod 8` of self.
    fn permute(self, idx: Self) -> Self;
    /// Lane i is `t[idx[i]]`; panics when an index is not below `t.len()`.
    fn gather(t: &[u64], idx: Self) -> Self;
}

/// The portable model: eight `u64`, each operation a loop over the lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Emulated(pub(crate) [u64; 8]);

const LO52: u64 = (1 << 52) - 1;

impl Lanes for Emulated {
    #[inline(always)]
    fn splat(v: u64) -> Self {
        Emulated([v; 8])
    }
    #[inline(always)]
    fn from_array(a: [u64; 8]) -> Self {
        Emulated(a)
    }
    #[inline(always)]
    fn to_array(self) -> [u64; 8] {
        self.0
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[i].wrapping_add(b.0[i])))
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[i].wrapping_sub(b.0[i])))
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[i] & b.0[i]))
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[i] | b.0[i]))
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[i].checked_shr(N).unwrap_or(0)))
    }
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[i].checked_shl(N).unwrap_or(0)))
    }
    #[inline(always)]
    fn madd52lo(self, b: Self, c: Self) -> Self {
        Emulated(core::array::from_fn(|i| {
            let p = (b.0[i] & LO52) as u128 * (c.0[i] & LO52) as u128;
            self.0[i].wrapping_add(p as u64 & LO52)
        }))
    }
    #[inline(always)]
    fn madd52hi(self, b: Self, c: Self) -> Self {
        Emulated(core::array::from_fn(|i| {
            let p = (b.0[i] & LO52) as u128 * (c.0[i] & LO52) as u128;
            self.0[i].wrapping_add((p >> 52) as u64)
        }))
    }
    #[inline(always)]
    fn eq_mask(self, b: Self) -> u8 {
        (0..8).fold(0u8, |m, i| m | (((self.0[i] == b.0[i]) as u8) << i))
    }
    #[inline(always)]
    fn blend(m: u8, a: Self, b: Self) -> Self {
        Emulated(core::array::from_fn(|i| if (m >> i) & 1 == 1 { b.0[i] } else { a.0[i] }))
    }
    #[inline(always)]
    fn permute(self, idx: Self) -> Self {
        Emulated(core::array::from_fn(|i| self.0[(idx.0[i] & 7) as usize]))
    }
    #[inline(always)]
    fn gather(t: &[u64], idx: Self) -> Self {
        Emulated(core::array::from_fn(|i| t[idx.0[i] as usize]))
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::Ifma;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Lanes;
    use core::arch::x86_64::*;

    /// Eight lanes in one AVX-512 register. Created only on paths behind an Ifma token (see
    /// the module documentation).
    #[derive(Clone, Copy, Debug)]
    #[repr(transparent)]
    pub(crate) struct Ifma(__m512i);

    // Every `unsafe` block below calls one AVX-512 F/IFMA intrinsic on register operands.
    // SAFETY (shared by all of them): values of `Ifma` exist only after an Ifma `Backend`
    // token was issued, i.e. after `Cpu::get()` saw avx512f, avx512ifma and avx512vl (see
    // the module documentation), so the instructions exist on this CPU.
    impl Lanes for Ifma {
        #[inline(always)]
        fn splat(v: u64) -> Self {
            // SAFETY: AVX-512 F is present (see above).
            Ifma(unsafe { _mm512_set1_epi64(v as i64) })
        }
        #[inline(always)]
        fn from_array(a: [u64; 8]) -> Self {
            // SAFETY: AVX-512 F is present; reads 64 bytes from a valid array (unaligned
            // load).
            Ifma(unsafe { _mm512_loadu_si512(a.as_ptr() as *const _) })
        }
        #[inline(always)]
        fn to_array(self) -> [u64; 8] {
            let mut out = [0u64; 8];
            // SAFETY: AVX-512 F is present; writes 64 bytes into a valid array.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr() as *mut _, self.0) };
            out
        }
        #[inline(always)]
        fn add(self, b: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_add_epi64(self.0, b.0) })
        }
        #[inline(always)]
        fn sub(self, b: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_sub_epi64(self.0, b.0) })
        }
        #[inline(always)]
        fn and(self, b: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_and_si512(self.0, b.0) })
        }
        #[inline(always)]
        fn or(self, b: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_or_si512(self.0, b.0) })
        }
        #[inline(always)]
        fn shr<const N: u32>(self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_srli_epi64::<N>(self.0) })
        }
        #[inline(always)]
        fn shl<const N: u32>(self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_slli_epi64::<N>(self.0) })
        }
        #[inline(always)]
        fn madd52lo(self, b: Self, c: Self) -> Self {
            // SAFETY: AVX-512 IFMA is present.
            Ifma(unsafe { _mm512_madd52lo_epu64(self.0, b.0, c.0) })
        }
        #[inline(always)]
        fn madd52hi(self, b: Self, c: Self) -> Self {
            // SAFETY: AVX-512 IFMA is present.
            Ifma(unsafe { _mm512_madd52hi_epu64(self.0, b.0, c.0) })
        }
        #[inline(always)]
        fn eq_mask(self, b: Self) -> u8 {
            // SAFETY: AVX-512 F is present.
            unsafe { _mm512_cmpeq_epi64_mask(self.0, b.0) }
        }
        #[inline(always)]
        fn blend(m: u8, a: Self, b: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_mask_blend_epi64(m, a.0, b.0) })
        }
        #[inline(always)]
        fn permute(self, idx: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            Ifma(unsafe { _mm512_permutexvar_epi64(idx.0, self.0) })
        }
        #[inline(always)]
        fn gather(t: &[u64], idx: Self) -> Self {
            // SAFETY: AVX-512 F is present.
            let out_of_range = unsafe { _mm512_cmpge_epu64_mask(idx.0, _mm512_set1_epi64(t.len() as i64)) };
            assert!(out_of_range == 0, "gather index out of range");
            // SAFETY: AVX-512 F is present; every index was just checked to be below
            // `t.len()`, so each of the eight 8-byte reads lies inside `t`.
            Ifma(unsafe { _mm512_i64gather_epi64::<8>(idx.0, t.as_ptr() as *const i64) })
        }
    }
}
