// SPDX-License-Identifier: MIT OR Apache-2.0
//! Eight 64-bit lanes as two four-lane AVX2 registers: the operations the AVX2 kernels are
//! written in.
//!
//! Every method of [`LaneOps`] and [`Lanes`] is one AVX2 instruction per register, applied to
//! both registers (lanes 0…3 in the first, 4…7 in the second), with the instruction's exact
//! semantics; [`LaneOps`] is implemented by the four-lane halves too (one register, one
//! instruction):
//!
//! | method           | intrinsic                          | lane i                                   |
//! |------------------|------------------------------------|------------------------------------------|
//! | `splat(v)`       | `_mm256_set1_epi64x`               | v                                        |
//! | `from_array`     | `_mm256_loadu_si256`               | a\[i\]                                   |
//! | `add`, `sub`     | `_mm256_add/sub_epi64`             | a ± b mod 2^64                           |
//! | `and`, `or`      | `_mm256_and/or_si256`              | a & b, a \| b                            |
//! | `shr::<N>`       | `_mm256_srli_epi64`                | a >> N (0 when N ≥ 64)                   |
//! | `shl::<N>`       | `_mm256_slli_epi64`                | a << N mod 2^64 (0 when N ≥ 64)          |
//! | `mul32(b)`       | `_mm256_mul_epu32`                 | lo32(a)·lo32(b), the full 64-bit product |
//! | `eq_mask(b)`     | `_mm256_cmpeq_epi64` + `_mm256_movemask_pd` | bit i of the mask: a = b        |
//! | `blend(m, a, b)` | `_mm256_blendv_epi8` (mask from m) | b if bit i of m is set, else a           |
//! | `gather(t, idx)` | `_mm256_i64gather_epi64`           | t\[idx\[i\]\] (every index checked < len)  |
//!
//! lo32(x) is x mod 2^32: the multiplier ignores bits 32…63 of its inputs. `blend` first
//! turns the eight mask bits into two lane masks (broadcast, `and` with 1, 2, 4, 8 per lane,
//! compare), which the compiler shares between blends with the same mask.
//!
//! Two registers, not one: a field multiplication is a few hundred instructions whose
//! dependency chains (the carries) are long; two independent registers in flight keep the
//! multiplier ports busy where one register does not (on Zen 3 one four-lane register is
//! slower than the scalar MULX kernel, two are faster). The multiplication itself runs on one
//! half after the other ([`Lanes::halves`]): a half's ten limbs and its column sum fit the
//! sixteen registers, both halves' do not, and the out-of-order core overlaps the two anyway.
//!
//! Two implementations: [`Emulated`], eight `u64` in an array (halves [`EmulatedHalf`]), runs
//! everywhere (wasm32 included) and is the model the tests check; `Avx2` (x86-64 only) holds
//! two `__m256i` (halves `Avx2Half`, one each). Their methods are safe functions over AVX2
//! instructions. That is sound because the type is
//! private to the crate and values of it are created only on paths reached through a
//! [`Backend`](crate::Backend) token of kind Avx2 (issued only after `Cpu::get()` saw avx2,
//! bmi2 and adx) or in tests after `require_or_skip(BackendKind::Avx2)`. The entry points
//! that run them are `#[target_feature(enable = "avx2,bmi2,adx")]` functions, so these
//! `#[inline(always)]` methods compile to single instructions inside them.

/// The lane arithmetic the field kernels are written in, with AVX2 semantics (see the module
/// documentation): implemented by the eight-lane types and by their four-lane halves, so that
/// the multiplication can run on one register at a time. `or` completes the instruction set;
/// only tests and the canonical-zero check use it today.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) trait LaneOps: Copy {
    fn splat(v: u64) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn shr<const N: i32>(self) -> Self;
    fn shl<const N: i32>(self) -> Self;
    /// lo32(self)·lo32(b), exact in 64 bits.
    fn mul32(self, b: Self) -> Self;
}

/// Eight 64-bit lanes with AVX2 semantics (see the module documentation).
pub(crate) trait Lanes: LaneOps + Send + Sync + 'static {
    /// Four lanes, one register: lanes 0…3 or 4…7.
    type Half: LaneOps;
    /// Lanes 0…3 and 4…7.
    fn halves(self) -> [Self::Half; 2];
    /// The inverse of [`Lanes::halves`].
    fn from_halves(h: [Self::Half; 2]) -> Self;
    fn from_array(a: [u64; 8]) -> Self;
    fn to_array(self) -> [u64; 8];
    fn eq_mask(self, b: Self) -> u8;
    /// Lane i of `b` where bit i of `m` is set, else lane i of `a`.
    fn blend(m: u8, a: Self, b: Self) -> Self;
    /// Lane i is `t[idx[i]]`; panics when an index is not below `t.len()`.
    fn gather(t: &[u64], idx: &[u64; 8]) -> Self;
}

/// The portable model: eight `u64`, each operation a loop over the lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Emulated(pub(crate) [u64; 8]);

/// Four lanes of the model (a half of [`Emulated`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EmulatedHalf(pub(crate) [u64; 4]);

const LO32: u64 = (1 << 32) - 1;

/// [`LaneOps`] for a model type: a tuple struct of `u64` lanes.
macro_rules! emulated_lane_ops {
    ($T:ident, $n:literal) => {
        impl LaneOps for $T {
            #[inline(always)]
            fn splat(v: u64) -> Self {
                $T([v; $n])
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                $T(core::array::from_fn(|i| self.0[i].wrapping_add(b.0[i])))
            }
            #[inline(always)]
            fn sub(self, b: Self) -> Self {
                $T(core::array::from_fn(|i| self.0[i].wrapping_sub(b.0[i])))
            }
            #[inline(always)]
            fn and(self, b: Self) -> Self {
                $T(core::array::from_fn(|i| self.0[i] & b.0[i]))
            }
            #[inline(always)]
            fn or(self, b: Self) -> Self {
                $T(core::array::from_fn(|i| self.0[i] | b.0[i]))
            }
            #[inline(always)]
            fn shr<const N: i32>(self) -> Self {
                $T(core::array::from_fn(|i| self.0[i].checked_shr(N as u32).unwrap_or(0)))
            }
            #[inline(always)]
            fn shl<const N: i32>(self) -> Self {
                $T(core::array::from_fn(|i| self.0[i].checked_shl(N as u32).unwrap_or(0)))
            }
            #[inline(always)]
            fn mul32(self, b: Self) -> Self {
                $T(core::array::from_fn(|i| (self.0[i] & LO32) * (b.0[i] & LO32)))
            }
        }
    };
}
emulated_lane_ops!(Emulated, 8);
emulated_lane_ops!(EmulatedHalf, 4);

impl Lanes for Emulated {
    type Half = EmulatedHalf;
    #[inline(always)]
    fn halves(self) -> [EmulatedHalf; 2] {
        let a = self.0;
        [EmulatedHalf([a[0], a[1], a[2], a[3]]), EmulatedHalf([a[4], a[5], a[6], a[7]])]
    }
    #[inline(always)]
    fn from_halves(h: [EmulatedHalf; 2]) -> Self {
        let ([a0, a1, a2, a3], [a4, a5, a6, a7]) = (h[0].0, h[1].0);
        Emulated([a0, a1, a2, a3, a4, a5, a6, a7])
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
    fn eq_mask(self, b: Self) -> u8 {
        (0..8).fold(0u8, |m, i| m | (((self.0[i] == b.0[i]) as u8) << i))
    }
    #[inline(always)]
    fn blend(m: u8, a: Self, b: Self) -> Self {
        Emulated(core::array::from_fn(|i| if (m >> i) & 1 == 1 { b.0[i] } else { a.0[i] }))
    }
    #[inline(always)]
    fn gather(t: &[u64], idx: &[u64; 8]) -> Self {
        Emulated(core::array::from_fn(|i| t[idx[i] as usize]))
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::Avx2;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{LaneOps, Lanes};
    use core::arch::x86_64::*;

    /// Eight lanes in two AVX2 registers (lanes 0…3, 4…7). Created only on paths behind an
    /// Avx2 token (see the module documentation).
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx2([__m256i; 2]);

    /// Four lanes in one AVX2 register: a half of [`Avx2`], made only from one.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx2Half(__m256i);

    /// The lane mask of four mask bits: lane j all ones when bit j of `m` is set.
    #[inline(always)]
    fn lane_mask(m: u8) -> __m256i {
        // SAFETY: AVX2 is present (see the comment on the `Lanes` impl below).
        unsafe {
            let bits = _mm256_set_epi64x(8, 4, 2, 1);
            _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(m as i64), bits), bits)
        }
    }

    // Every `unsafe` block below calls AVX2 intrinsics on register operands (or on memory it
    // names, as stated at the block).
    // SAFETY (shared by all of them): values of `Avx2` exist only after an Avx2 `Backend`
    // token was issued, i.e. after `Cpu::get()` saw avx2 (see the module documentation), and
    // values of `Avx2Half` only as halves of those, so the instructions exist on this CPU.
    impl LaneOps for Avx2Half {
        #[inline(always)]
        fn splat(v: u64) -> Self {
            // SAFETY: AVX2 is present (see above).
            Avx2Half(unsafe { _mm256_set1_epi64x(v as i64) })
        }
        #[inline(always)]
        fn add(self, b: Self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_add_epi64(self.0, b.0) })
        }
        #[inline(always)]
        fn sub(self, b: Self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_sub_epi64(self.0, b.0) })
        }
        #[inline(always)]
        fn and(self, b: Self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_and_si256(self.0, b.0) })
        }
        #[inline(always)]
        fn or(self, b: Self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_or_si256(self.0, b.0) })
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_srli_epi64::<N>(self.0) })
        }
        #[inline(always)]
        fn shl<const N: i32>(self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_slli_epi64::<N>(self.0) })
        }
        #[inline(always)]
        fn mul32(self, b: Self) -> Self {
            // SAFETY: AVX2 is present.
            Avx2Half(unsafe { _mm256_mul_epu32(self.0, b.0) })
        }
    }

    /// `a.f(b)` on both halves through [`Avx2Half`]'s instruction.
    macro_rules! both {
        ($a:ident.$f:ident($b:ident)) => {{
            let ([a0, a1], [b0, b1]) = ($a.halves(), $b.halves());
            Avx2::from_halves([a0.$f(b0), a1.$f(b1)])
        }};
    }

    impl LaneOps for Avx2 {
        #[inline(always)]
        fn splat(v: u64) -> Self {
            let r = Avx2Half::splat(v);
            Avx2([r.0, r.0])
        }
        #[inline(always)]
        fn add(self, b: Self) -> Self {
            both!(self.add(b))
        }
        #[inline(always)]
        fn sub(self, b: Self) -> Self {
            both!(self.sub(b))
        }
        #[inline(always)]
        fn and(self, b: Self) -> Self {
            both!(self.and(b))
        }
        #[inline(always)]
        fn or(self, b: Self) -> Self {
            both!(self.or(b))
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            let [a0, a1] = self.halves();
            Avx2::from_halves([a0.shr::<N>(), a1.shr::<N>()])
        }
        #[inline(always)]
        fn shl<const N: i32>(self) -> Self {
            let [a0, a1] = self.halves();
            Avx2::from_halves([a0.shl::<N>(), a1.shl::<N>()])
        }
        #[inline(always)]
        fn mul32(self, b: Self) -> Self {
            both!(self.mul32(b))
        }
    }

    impl Lanes for Avx2 {
        type Half = Avx2Half;
        #[inline(always)]
        fn halves(self) -> [Avx2Half; 2] {
            [Avx2Half(self.0[0]), Avx2Half(self.0[1])]
        }
        #[inline(always)]
        fn from_halves(h: [Avx2Half; 2]) -> Self {
            Avx2([h[0].0, h[1].0])
        }
        #[inline(always)]
        fn from_array(a: [u64; 8]) -> Self {
            // SAFETY: AVX2 is present; reads 2 × 32 bytes from a valid 64-byte array
            // (unaligned loads).
            unsafe {
                let p = a.as_ptr() as *const __m256i;
                Avx2([_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))])
            }
        }
        #[inline(always)]
        fn to_array(self) -> [u64; 8] {
            let mut out = [0u64; 8];
            // SAFETY: AVX2 is present; writes 2 × 32 bytes into a valid 64-byte array.
            unsafe {
                let p = out.as_mut_ptr() as *mut __m256i;
                _mm256_storeu_si256(p, self.0[0]);
                _mm256_storeu_si256(p.add(1), self.0[1]);
            }
            out
        }
        #[inline(always)]
        fn eq_mask(self, b: Self) -> u8 {
            // SAFETY: AVX2 is present.
            unsafe {
                let lo = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(self.0[0], b.0[0])));
                let hi = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(self.0[1], b.0[1])));
                (lo | hi << 4) as u8
            }
        }
        #[inline(always)]
        fn blend(m: u8, a: Self, b: Self) -> Self {
            let (lo, hi) = (lane_mask(m & 15), lane_mask(m >> 4));
            // SAFETY: AVX2 is present.
            unsafe { Avx2([_mm256_blendv_epi8(a.0[0], b.0[0], lo), _mm256_blendv_epi8(a.0[1], b.0[1], hi)]) }
        }
        #[inline(always)]
        fn gather(t: &[u64], idx: &[u64; 8]) -> Self {
            assert!(idx.iter().all(|&i| i < t.len() as u64), "gather index out of range");
            // SAFETY: AVX2 is present; every index was just checked to be below `t.len()`, so
            // each of the eight 8-byte reads lies inside `t` (the indices are read from a valid
            // 64-byte array by unaligned loads).
            unsafe {
                let p = idx.as_ptr() as *const __m256i;
                let base = t.as_ptr() as *const i64;
                Avx2([
                    _mm256_i64gather_epi64::<8>(base, _mm256_loadu_si256(p)),
                    _mm256_i64gather_epi64::<8>(base, _mm256_loadu_si256(p.add(1))),
                ])
            }
        }
    }
}
