// SPDX-License-Identifier: MIT OR Apache-2.0
//! A 3072-bit value (MuHash's numbers) between its 384 little-endian bytes or 64-bit words and
//! `N` limbs of `BITS` bits, the forms the lane kernels multiply in: 110 limbs of 28 bits for
//! AVX2, 60 of 52 for IFMA.

/// 384 little-endian bytes (a value below 2^3072) to `N` limbs of `BITS` bits, limb k holding
/// bits `BITS·k … BITS·k + BITS − 1` (the limbs above the value are zero).
///
/// Limb k starts in byte `BITS·k / 8`, `BITS·k mod 8` bits in; eight bytes from there hold it
/// (`BITS` ≤ 56), and the reads past byte 383 see zeros.
pub(crate) fn from_le_bytes<const BITS: usize, const N: usize>(b: &[u8; 384]) -> [u64; N] {
    const { assert!(BITS <= 56 && BITS * N >= 3072 && BITS * (N - 1) / 8 + 8 <= 392) };
    let mut padded = [0u8; 392];
    padded[..384].copy_from_slice(b);
    core::array::from_fn(|k| {
        let (at, shift) = (BITS * k / 8, BITS * k % 8);
        let w = u64::from_le_bytes(padded[at..at + 8].try_into().expect("8 bytes"));
        (w >> shift) & ((1 << BITS) - 1)
    })
}

/// `N` limbs weighing `2^(BITS·k)` to the `W` little-endian words of their sum
/// Σ l_k·2^(BITS·k), carrying as it goes, so a limb may stand above `BITS` bits (a kernel's
/// lazily reduced output): each below 2^(BITS + 8), the sum below 2^(64·W). A `W` of twice
/// 48 gives a product's width, the form MuHash's fold reduces.
pub(crate) fn to_words<const BITS: usize, const N: usize, const W: usize>(l: &[u64; N]) -> [u64; W] {
    // `acc` holds the sum's bits from `at` up that are not yet written. Before limb k is added
    // its shift BITS·k − at is below 64 (a word leaves as soon as it would not be) and `acc`
    // is below 2^(BITS·k + 9 − at) < 2^73; the limb adds less than 2^(BITS + 8 + 63), so with
    // BITS ≤ 55 `acc` never passes 2^128.
    const { assert!(BITS <= 55 && 64 * W >= BITS * N) };
    debug_assert!(l.iter().all(|&v| v >> (BITS + 8) == 0), "a limb at 2^(BITS + 8) or above");
    let mut out = [0u64; W];
    let mut acc: u128 = 0;
    let mut at = 0;
    let mut w = 0;
    for (k, &v) in l.iter().enumerate() {
        acc += u128::from(v) << (BITS * k - at);
        if BITS * (k + 1) - at >= 64 {
            out[w] = acc as u64;
            acc >>= 64;
            at += 64;
            w += 1;
        }
    }
    while w < W {
        out[w] = acc as u64;
        acc >>= 64;
        w += 1;
    }
    debug_assert_eq!(acc, 0, "the sum does not fit W words");
    out
}

#[cfg(test)]
mod tests {
    use super::{from_le_bytes, to_words};
    use fullverify_testkit::{test_seed, SplitMix64};
    use num_bigint::BigUint;

    fn big_of_limbs(l: &[u64], bits: usize) -> BigUint {
        l.iter().rev().fold(BigUint::from(0u8), |acc, &v| (acc << bits) + BigUint::from(v))
    }

    fn big_of_words(w: &[u64]) -> BigUint {
        big_of_limbs(w, 64)
    }

    /// Bytes to limbs to words, both radixes the kernels use and an odd one, on structured
    /// values (zero, all ones, the top bit, one byte at each end) and random ones; the limbs
    /// are checked against the big integer, the words of any width give the value back.
    fn round_trip<const BITS: usize, const N: usize>(rng: &mut SplitMix64) {
        for i in 0..64 {
            let mut b = [0u8; 384];
            match i {
                0 => {}
                1 => b = [0xFF; 384],
                2 => b[383] = 0x80,
                3 => b[0] = 1,
                _ => rng.fill(&mut b),
            }
            let value = BigUint::from_bytes_le(&b);
            let l = from_le_bytes::<BITS, N>(&b);
            assert!(l.iter().all(|&v| v >> BITS == 0), "{BITS}-bit limbs");
            assert_eq!(big_of_limbs(&l, BITS), value, "{BITS}-bit limbs");
            assert_eq!(big_of_words(&to_words::<BITS, N, 49>(&l)), value);
            let wide = to_words::<BITS, N, 96>(&l);
            assert_eq!(big_of_words(&wide), value);
            assert!(wide[48..].iter().all(|&w| w == 0));
        }
    }

    #[test]
    fn bytes_limbs_and_words_round_trip() {
        let mut rng = SplitMix64(test_seed());
        round_trip::<28, 110>(&mut rng);
        round_trip::<52, 60>(&mut rng);
        round_trip::<26, 119>(&mut rng);
    }

    /// Limbs above their radix (a kernel's lazy output), every one at the largest allowed
    /// and random ones below it: the words carry them into the exact sum.
    #[test]
    fn words_carry_limbs_above_their_radix() {
        let mut rng = SplitMix64(test_seed() ^ 1);
        for i in 0..32 {
            let l: [u64; 110] =
                core::array::from_fn(|_| if i == 0 { (1 << 36) - 1 } else { rng.next_u64() >> 28 });
            assert_eq!(big_of_words(&to_words::<28, 110, 49>(&l)), big_of_limbs(&l, 28));
        }
        let l = [(1u64 << 60) - 1; 60];
        assert_eq!(big_of_words(&to_words::<52, 60, 50>(&l)), big_of_limbs(&l, 52));
    }
}
