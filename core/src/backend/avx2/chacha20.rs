// SPDX-License-Identifier: MIT OR Apache-2.0
//! ChaCha20 (RFC 8439) on eight consecutive block counters at once: state word `i` of the
//! eight blocks sits in register `i`, one block per 32-bit lane, so the twenty rounds run
//! unchanged on eight blocks. MuHash expands every element to six blocks; one pass gives them.
//! [`elements8`] runs eight keys instead, one per lane, and hands MuHash's elements over
//! already in the AVX2 product's limbs. Checked against the scalar block function
//! (`muhash::chacha20_block`) in the tests.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// The 16 state words of eight blocks with counters `counter..counter + 8` (wrapping), after
/// the rounds and the final addition: `out[b][i]` is word `i` of block `b`.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn blocks8(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> [[u32; 16]; 8] {
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes")) as i32;
    let mut init = [_mm256_setzero_si256(); 16];
    for (i, c) in [0x6170_7865u32, 0x3320_646e, 0x7962_2d32, 0x6b20_6574].into_iter().enumerate() {
        init[i] = _mm256_set1_epi32(c as i32);
    }
    for i in 0..8 {
        init[4 + i] = _mm256_set1_epi32(word(&key[4 * i..4 * i + 4]));
    }
    let c = counter as i32;
    init[12] = _mm256_setr_epi32(
        c,
        c.wrapping_add(1),
        c.wrapping_add(2),
        c.wrapping_add(3),
        c.wrapping_add(4),
        c.wrapping_add(5),
        c.wrapping_add(6),
        c.wrapping_add(7),
    );
    for i in 0..3 {
        init[13 + i] = _mm256_set1_epi32(word(&nonce[4 * i..4 * i + 4]));
    }
    let s = permute8(&init);
    let mut lanes = [[0u32; 8]; 16];
    for i in 0..16 {
        let v = s[i];
        // SAFETY: writes 32 bytes into a valid [u32; 8] (unaligned store).
        unsafe { _mm256_storeu_si256(lanes[i].as_mut_ptr() as *mut __m256i, v) };
    }
    core::array::from_fn(|b| core::array::from_fn(|i| lanes[i][b]))
}

/// The twenty rounds and the final addition on eight ChaCha20 states, word `i` of each in
/// lane l of register `i`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn permute8(init: &[__m256i; 16]) -> [__m256i; 16] {
    // Byte shuffles rotating each 32-bit lane left by 16 and by 8.
    let rot16 = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15,
        12, 13,
    );
    let rot8 = _mm256_setr_epi8(
        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12,
        13, 14,
    );
    let mut s = *init;
    // One quarter round on columns or diagonals of all eight states (a macro, so that its
    // intrinsics are compiled inside this AVX2 function).
    macro_rules! qr {
        ($a:literal, $b:literal, $c:literal, $d:literal) => {
            s[$a] = _mm256_add_epi32(s[$a], s[$b]);
            s[$d] = _mm256_shuffle_epi8(_mm256_xor_si256(s[$d], s[$a]), rot16);
            s[$c] = _mm256_add_epi32(s[$c], s[$d]);
            let x = _mm256_xor_si256(s[$b], s[$c]);
            s[$b] = _mm256_or_si256(_mm256_slli_epi32::<12>(x), _mm256_srli_epi32::<20>(x));
            s[$a] = _mm256_add_epi32(s[$a], s[$b]);
            s[$d] = _mm256_shuffle_epi8(_mm256_xor_si256(s[$d], s[$a]), rot8);
            s[$c] = _mm256_add_epi32(s[$c], s[$d]);
            let x = _mm256_xor_si256(s[$b], s[$c]);
            s[$b] = _mm256_or_si256(_mm256_slli_epi32::<7>(x), _mm256_srli_epi32::<25>(x));
        };
    }
    for _ in 0..10 {
        qr!(0, 4, 8, 12);
        qr!(1, 5, 9, 13);
        qr!(2, 6, 10, 14);
        qr!(3, 7, 11, 15);
        qr!(0, 5, 10, 15);
        qr!(1, 6, 11, 12);
        qr!(2, 7, 8, 13);
        qr!(3, 4, 9, 14);
    }
    for i in 0..16 {
        s[i] = _mm256_add_epi32(s[i], init[i]);
    }
    s
}

/// MuHash's elements of eight keys at once: lane l of `out` becomes the first 384 bytes of
/// ChaCha20's keystream for `keys[l]` (nonce 0, counters 0–5), read as a little-endian number,
/// in 110 limbs of 28 bits (each below 2^28), limb-major as the AVX2 product takes it.
///
/// Each of the six passes gives block b of all eight keys (six passes for six blocks each,
/// where one key at a time would run eight blocks for six); the 96 keystream words of a lane
/// are then cut into limbs in the registers, eight lanes per instruction: limb k is bits 28k …
/// 28k + 27, in word 7k/8 and the next.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn elements8(keys: &[[u8; 32]; 8], out: &mut super::num3072::Lanes28) {
    let mut init = [_mm256_setzero_si256(); 16];
    for (i, c) in [0x6170_7865u32, 0x3320_646e, 0x7962_2d32, 0x6b20_6574].into_iter().enumerate() {
        init[i] = _mm256_set1_epi32(c as i32);
    }
    for i in 0..8 {
        let w: [u32; 8] = core::array::from_fn(|l| {
            u32::from_le_bytes(keys[l][4 * i..4 * i + 4].try_into().expect("4 bytes"))
        });
        // SAFETY: reads 32 bytes from a valid [u32; 8] (unaligned load).
        init[4 + i] = unsafe { _mm256_loadu_si256(w.as_ptr() as *const __m256i) };
    }
    // Words 0 … 95 of the eight keystreams, and a zero word 96 above the last limb's top.
    let mut words = [[0u32; 8]; 97];
    for b in 0..6 {
        init[12] = _mm256_set1_epi32(b);
        let s = permute8(&init);
        for i in 0..16 {
            // SAFETY: writes 32 bytes into a valid [u32; 8] (unaligned store).
            unsafe { _mm256_storeu_si256(words[16 * b as usize + i].as_mut_ptr() as *mut __m256i, s[i]) };
        }
    }
    let m28 = _mm256_set1_epi64x((1 << 28) - 1);
    for (k, limb) in out.iter_mut().enumerate() {
        let (w, shift) = (7 * k / 8, (28 * k % 32) as i64);
        // SAFETY: reads 32 bytes from valid [u32; 8]s (unaligned loads).
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(words[w].as_ptr() as *const __m256i),
                _mm256_loadu_si256(words[w + 1].as_ptr() as *const __m256i),
            )
        };
        let count = _mm_cvtsi64_si128(shift);
        // Lanes 0–3 from the low 128 bits, 4–7 from the high: word w | word w+1 << 32, shifted
        // (a macro, so that its intrinsics are compiled inside this AVX2 function).
        macro_rules! part {
            ($lo:expr, $hi:expr) => {{
                let x = _mm256_or_si256(
                    _mm256_cvtepu32_epi64($lo),
                    _mm256_slli_epi64::<32>(_mm256_cvtepu32_epi64($hi)),
                );
                _mm256_and_si256(_mm256_srl_epi64(x, count), m28)
            }};
        }
        let low = part!(_mm256_castsi256_si128(lo), _mm256_castsi256_si128(hi));
        let high = part!(_mm256_extracti128_si256::<1>(lo), _mm256_extracti128_si256::<1>(hi));
        // SAFETY: writes 64 bytes into a valid [u64; 8] (two unaligned stores).
        unsafe {
            _mm256_storeu_si256(limb.as_mut_ptr() as *mut __m256i, low);
            _mm256_storeu_si256(limb.as_mut_ptr().add(4) as *mut __m256i, high);
        }
    }
}
