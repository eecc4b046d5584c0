// SPDX-License-Identifier: MIT OR Apache-2.0
//! `sha256d64`: the double SHA-256 of many independent 64-byte messages.
//!
//! For a 64-byte message `m`, `SHA256(m)` is two compressions: the message block, then the
//! constant padding block `80 00 … 00 || be64(512)`. `SHA256(d)` of the 32-byte digest `d` is
//! one compression of `d || 80 00 … 00 || be64(256)`. The padding block never changes, so its
//! message schedule plus round constants (`W[t] + K[t]`, t < 64) is computed at compile time and
//! those 16 groups of rounds need no schedule work at all.
//!
//! The x86-64 kernel keeps two independent messages in flight. `SHA256RNDS2` has a latency of
//! several cycles and a throughput of about one per cycle or two on current cores, so a single
//! message leaves the unit idle between dependent rounds; interleaving a second message fills
//! those slots. Odd leftovers go through the portable path.

// The schedule constants serve the x86-64 kernel (and its tests) only.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::sha256::{compress_blocks, state_to_bytes, IV};
#[cfg(target_arch = "x86_64")]
use crate::backend::BackendKind;
use crate::Backend;

/// Round constants K[0..64] (FIPS 180-4 §4.2.2).
pub(crate) const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// The padding block that follows a 64-byte message: `0x80`, zeros, bit length 512.
const PAD64_WORDS: [u32; 16] = [0x8000_0000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512];

/// Message schedule W[0..64] of a block given as 16 big-endian words (FIPS 180-4 §6.2.2 step 1).
const fn schedule(block: [u32; 16]) -> [u32; 64] {
    let mut w = [0u32; 64];
    let mut t = 0;
    while t < 16 {
        w[t] = block[t];
        t += 1;
    }
    while t < 64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
        t += 1;
    }
    w
}

/// `W[t] + K[t]` for the constant padding block of a 64-byte message.
pub(crate) const PAD64_WK: [u32; 64] = {
    let w = schedule(PAD64_WORDS);
    let mut wk = [0u32; 64];
    let mut t = 0;
    while t < 64 {
        wk[t] = w[t].wrapping_add(K[t]);
        t += 1;
    }
    wk
};

/// Double SHA-256 of one 64-byte message through the `sha2` compression function, with the
/// padding blocks built directly (no buffering).
#[inline]
fn sha256d64_one(input: &[u8; 64]) -> [u8; 32] {
    let mut st = IV;
    let mut pad = [0u8; 64];
    pad[0] = 0x80;
    pad[62] = 0x02; // be64(512)
    compress_blocks(&mut st, &[*input, pad]);
    let mut second = [0u8; 64];
    second[..32].copy_from_slice(&state_to_bytes(&st));
    second[32] = 0x80;
    second[62] = 0x01; // be64(256)
    let mut st2 = IV;
    compress_blocks(&mut st2, &[second]);
    state_to_bytes(&st2)
}

/// Portable `sha256d64`: one message at a time through `sha2`.
pub fn sha256d64_portable(inputs: &[[u8; 64]], out: &mut [[u8; 32]]) {
    assert_eq!(inputs.len(), out.len(), "sha256d64: one output per input");
    for (o, i) in out.iter_mut().zip(inputs) {
        *o = sha256d64_one(i);
    }
}

/// Double SHA-256 of each 64-byte input into `out[i]`, with the kernel `backend` selects.
///
/// Panics if `inputs.len() != out.len()`.
pub fn sha256d64_many(backend: Backend, inputs: &[[u8; 64]], out: &mut [[u8; 32]]) {
    assert_eq!(inputs.len(), out.len(), "sha256d64: one output per input");
    match backend.kind() {
        // The SHA-NI kernel checks the CPU itself (SHA-NI is not implied by the token).
        #[cfg(target_arch = "x86_64")]
        BackendKind::Asm | BackendKind::Avx2 | BackendKind::Ifma if crate::backend::Cpu::get().sha_ni => {
            sha256d64_shani_2way(inputs, out)
        }
        _ => sha256d64_portable(inputs, out),
    }
}

/// The two-way SHA-NI kernel. Falls back to the portable path when the CPU lacks SHA-NI.
#[cfg(target_arch = "x86_64")]
pub fn sha256d64_shani_2way(inputs: &[[u8; 64]], out: &mut [[u8; 32]]) {
    assert_eq!(inputs.len(), out.len(), "sha256d64: one output per input");
    if !crate::backend::Cpu::get().sha_ni {
        return sha256d64_portable(inputs, out);
    }
    let (pairs_in, rest_in) = inputs.as_chunks::<2>();
    let (pairs_out, rest_out) = out.as_chunks_mut::<2>();
    for (i, o) in pairs_in.iter().zip(pairs_out.iter_mut()) {
        // SAFETY: Cpu::get() saw sha + sse4.1 (which imply sse2/ssse3) on this CPU.
        unsafe { shani::two_way(i, o) };
    }
    sha256d64_portable(rest_in, rest_out);
}

/// Compresses `a_block` into `a` and `b_block` into `b` (states in FIPS 180-4 word order) with
/// the two-way SHA-NI kernel, the two streams' rounds interleaved; `false`, with nothing done,
/// where the CPU lacks SHA-NI (or is not x86-64).
pub(crate) fn compress_two(
    a: &mut [u32; 8],
    a_block: &[u8; 64],
    b: &mut [u32; 8],
    b_block: &[u8; 64],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::backend::Cpu::get().sha_ni {
        // SAFETY: Cpu::get() saw sha + sse4.1 (which imply sse2/ssse3) on this CPU.
        unsafe { shani::compress_states(a, a_block, b, b_block) };
        return true;
    }
    let _ = (a, a_block, b, b_block);
    false
}

#[cfg(target_arch = "x86_64")]
mod shani {
    //! SHA-NI register layout: the eight state words live in two registers as
    //! `ABEF` and `CDGH` (lane 3 … lane 0), the order `SHA256RNDS2` expects.
    //! Message words are kept in groups of four, `W[4i..4i+4]`, lane 0 first.
    #![allow(unused_unsafe)]
    use super::{IV, K, PAD64_WK};
    use core::arch::x86_64::*;

    /// Byte order within each 32-bit lane reversed (big-endian words <-> little-endian lanes).
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn bswap_mask() -> __m128i {
        _mm_set_epi64x(0x0c0d0e0f_08090a0b, 0x04050607_00010203)
    }

    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn load_words(p: &[u32]) -> __m128i {
        debug_assert!(p.len() >= 4);
        // SAFETY: p has at least four u32s; unaligned load.
        unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
    }

    /// The IV in `(ABEF, CDGH)` form.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn iv() -> (__m128i, __m128i) {
        // SAFETY: IV has eight words.
        unsafe { to_abef_cdgh(load_words(&IV[..4]), load_words(&IV[4..])) }
    }

    /// `(a b c d), (e f g h)` (lane 0 first) -> `(ABEF, CDGH)`.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn to_abef_cdgh(abcd: __m128i, efgh: __m128i) -> (__m128i, __m128i) {
        let cdab = _mm_shuffle_epi32(abcd, 0xB1);
        let efgh_r = _mm_shuffle_epi32(efgh, 0x1B);
        let abef = _mm_alignr_epi8(cdab, efgh_r, 8);
        let cdgh = _mm_blend_epi16(efgh_r, cdab, 0xF0);
        (abef, cdgh)
    }

    /// `(ABEF, CDGH)` -> `(a b c d), (e f g h)` (lane 0 first).
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn from_abef_cdgh(abef: __m128i, cdgh: __m128i) -> (__m128i, __m128i) {
        let feba = _mm_shuffle_epi32(abef, 0x1B);
        let dchg = _mm_shuffle_epi32(cdgh, 0xB1);
        let abcd = _mm_blend_epi16(feba, dchg, 0xF0);
        let efgh = _mm_alignr_epi8(dchg, feba, 8);
        (abcd, efgh)
    }

    /// Four rounds with `wk = W + K` for those rounds.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn rounds4(s: &mut (__m128i, __m128i), wk: __m128i) {
        s.1 = _mm_sha256rnds2_epu32(s.1, s.0, wk);
        s.0 = _mm_sha256rnds2_epu32(s.0, s.1, _mm_shuffle_epi32(wk, 0x0E));
    }

    /// Next schedule group from the previous four: `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]`.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn next_group(w0: __m128i, w1: __m128i, w2: __m128i, w3: __m128i) -> __m128i {
        // w0 = W[t-16..t-12], w1 = W[t-12..t-8], w2 = W[t-8..t-4], w3 = W[t-4..t]
        let t7 = _mm_alignr_epi8(w3, w2, 4); // W[t-7..t-3]
        _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), t7), w3)
    }

    /// One compression of a message block (four groups) for two independent states.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn compress2(
        a: &mut (__m128i, __m128i),
        b: &mut (__m128i, __m128i),
        mut wa: [__m128i; 4],
        mut wb: [__m128i; 4],
    ) {
        let (sa, sb) = (*a, *b);
        macro_rules! group {
            ($g:expr, $i:expr) => {{
                // SAFETY: K has 64 words and $g < 16.
                let k = unsafe { load_words(&K[4 * $g..]) };
                if $g >= 4 {
                    wa[$i] = next_group(wa[$i], wa[($i + 1) % 4], wa[($i + 2) % 4], wa[($i + 3) % 4]);
                    wb[$i] = next_group(wb[$i], wb[($i + 1) % 4], wb[($i + 2) % 4], wb[($i + 3) % 4]);
                }
                rounds4(a, _mm_add_epi32(wa[$i], k));
                rounds4(b, _mm_add_epi32(wb[$i], k));
            }};
        }
        group!(0, 0);
        group!(1, 1);
        group!(2, 2);
        group!(3, 3);
        group!(4, 0);
        group!(5, 1);
        group!(6, 2);
        group!(7, 3);
        group!(8, 0);
        group!(9, 1);
        group!(10, 2);
        group!(11, 3);
        group!(12, 0);
        group!(13, 1);
        group!(14, 2);
        group!(15, 3);
        a.0 = _mm_add_epi32(a.0, sa.0);
        a.1 = _mm_add_epi32(a.1, sa.1);
        b.0 = _mm_add_epi32(b.0, sb.0);
        b.1 = _mm_add_epi32(b.1, sb.1);
    }

    /// The constant padding block after a 64-byte message, for two states: rounds only.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn pad64_2(a: &mut (__m128i, __m128i), b: &mut (__m128i, __m128i)) {
        let (sa, sb) = (*a, *b);
        for g in 0..16 {
            // SAFETY: PAD64_WK has 64 words and g < 16.
            let wk = unsafe { load_words(&PAD64_WK[4 * g..]) };
            rounds4(a, wk);
            rounds4(b, wk);
        }
        a.0 = _mm_add_epi32(a.0, sa.0);
        a.1 = _mm_add_epi32(a.1, sa.1);
        b.0 = _mm_add_epi32(b.0, sb.0);
        b.1 = _mm_add_epi32(b.1, sb.1);
    }

    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn load_block(m: &[u8; 64]) -> [__m128i; 4] {
        let mask = bswap_mask();
        let p = m.as_ptr().cast::<__m128i>();
        // SAFETY: m is 64 bytes; four unaligned 16-byte loads.
        unsafe {
            [
                _mm_shuffle_epi8(_mm_loadu_si128(p), mask),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(1)), mask),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(2)), mask),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(3)), mask),
            ]
        }
    }

    /// The block `digest || 80 00.. || be64(256)` as four word groups.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn digest_block(s: (__m128i, __m128i)) -> [__m128i; 4] {
        let (abcd, efgh) = from_abef_cdgh(s.0, s.1);
        [abcd, efgh, _mm_set_epi32(0, 0, 0, 0x8000_0000u32 as i32), _mm_set_epi32(256, 0, 0, 0)]
    }

    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn store_digest(s: (__m128i, __m128i), out: &mut [u8; 32]) {
        let (abcd, efgh) = from_abef_cdgh(s.0, s.1);
        let mask = bswap_mask();
        let p = out.as_mut_ptr().cast::<__m128i>();
        // SAFETY: out is 32 bytes; two unaligned 16-byte stores.
        unsafe {
            _mm_storeu_si128(p, _mm_shuffle_epi8(abcd, mask));
            _mm_storeu_si128(p.add(1), _mm_shuffle_epi8(efgh, mask));
        }
    }

    /// `a` and `b` (FIPS 180-4 word order) each compressed with its block, two-way.
    ///
    /// # Safety
    /// The CPU must support SHA, SSE2, SSSE3 and SSE4.1.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) unsafe fn compress_states(
        a: &mut [u32; 8],
        a_block: &[u8; 64],
        b: &mut [u32; 8],
        b_block: &[u8; 64],
    ) {
        // SAFETY (whole body): the caller guarantees the target features; every pointer access
        // is within the fixed-size arrays named.
        unsafe {
            let mut sa = to_abef_cdgh(load_words(&a[..4]), load_words(&a[4..]));
            let mut sb = to_abef_cdgh(load_words(&b[..4]), load_words(&b[4..]));
            compress2(&mut sa, &mut sb, load_block(a_block), load_block(b_block));
            for (s, out) in [(sa, a), (sb, b)] {
                let (abcd, efgh) = from_abef_cdgh(s.0, s.1);
                _mm_storeu_si128(out.as_mut_ptr().cast(), abcd);
                _mm_storeu_si128(out.as_mut_ptr().add(4).cast(), efgh);
            }
        }
    }

    /// `out[j] = SHA256(SHA256(inp[j]))` for j = 0, 1.
    ///
    /// # Safety
    /// The CPU must support SHA, SSE2, SSSE3 and SSE4.1.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) unsafe fn two_way(inp: &[[u8; 64]; 2], out: &mut [[u8; 32]; 2]) {
        // SAFETY (whole body): the caller guarantees the target features; every pointer access
        // is within the fixed-size arrays named.
        unsafe {
            let mut a = iv();
            let mut b = a;
            compress2(&mut a, &mut b, load_block(&inp[0]), load_block(&inp[1]));
            pad64_2(&mut a, &mut b);
            let (wa, wb) = (digest_block(a), digest_block(b));
            a = iv();
            b = a;
            compress2(&mut a, &mut b, wa, wb);
            store_digest(a, &mut out[0]);
            store_digest(b, &mut out[1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    fn reference(m: &[u8; 64]) -> [u8; 32] {
        sha2::Sha256::digest(sha2::Sha256::digest(m)).into()
    }

    fn inputs(n: usize, seed: u64) -> Vec<[u8; 64]> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                let mut m = [0u8; 64];
                for b in m.iter_mut() {
                    // splitmix64
                    x = x.wrapping_add(0x9e3779b97f4a7c15);
                    let mut z = x;
                    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
                    *b = (z ^ (z >> 31)) as u8;
                }
                m
            })
            .collect()
    }

    #[test]
    fn pad64_schedule_matches_runtime_compression() {
        // The precomputed W+K must give the same state as compressing the padding block.
        let mut st = IV;
        let mut pad = [0u8; 64];
        pad[0] = 0x80;
        pad[62] = 2;
        compress_blocks(&mut st, &[[0u8; 64], pad]);
        assert_eq!(state_to_bytes(&st), crate::hash::sha256(&[0u8; 64]));
        assert_eq!(PAD64_WK[0], 0x8000_0000u32.wrapping_add(K[0]));
    }

    #[test]
    fn sha256d64_every_backend_vs_sha2_sizes_0_to_130() {
        for n in 0..=130 {
            let inp = inputs(n, n as u64);
            let want: Vec<[u8; 32]> = inp.iter().map(reference).collect();
            let mut got = vec![[0u8; 32]; n];
            sha256d64_portable(&inp, &mut got);
            assert_eq!(got, want, "portable n={n}");
            for b in Backend::available() {
                let mut got = vec![[0u8; 32]; n];
                sha256d64_many(b, &inp, &mut got);
                assert_eq!(got, want, "{b} n={n}");
            }
            #[cfg(target_arch = "x86_64")]
            {
                let mut got = vec![[0u8; 32]; n];
                sha256d64_shani_2way(&inp, &mut got);
                assert_eq!(got, want, "shani n={n}");
            }
        }
    }

    #[test]
    fn sha256d64_structured_inputs() {
        let mut inp = vec![[0u8; 64], [0xff; 64]];
        for bit in 0..512 {
            let mut m = [0u8; 64];
            m[bit / 8] = 0x80 >> (bit % 8);
            inp.push(m);
        }
        let want: Vec<[u8; 32]> = inp.iter().map(reference).collect();
        for b in Backend::available() {
            let mut got = vec![[0u8; 32]; inp.len()];
            sha256d64_many(b, &inp, &mut got);
            assert_eq!(got, want, "{b}");
        }
    }

    #[test]
    #[should_panic(expected = "one output per input")]
    fn length_mismatch_panics() {
        let mut out = [[0u8; 32]; 1];
        sha256d64_many(Backend::portable(), &[[0u8; 64]; 2], &mut out);
    }
}
