// SPDX-License-Identifier: MIT OR Apache-2.0
//! The 3072-bit product of MuHash on 52-bit limbs, eight columns per vector.
//!
//! An operand < 2^3072 is written as 60 limbs of 52 bits (3120 bits). Row i of the schoolbook
//! product adds a_i·b_j to column i+j (low 52 bits of the product) and column i+j+1 (high
//! bits). With i = base + s (base a multiple of 8, s < 8), the row is a broadcast of a_i times
//! `b` shifted up by s limbs, which lines up with accumulators holding columns
//! base + 8m … base + 8m + 7: nine vector pairs of `madd52lo`/`madd52hi` per row, 1080 in all.
//! Each column receives at most 60 low and 60 high halves, < 120·2^52 < 2^59: no overflow.
//! The caller carries the columns into 64-bit words and reduces modulo 2^3072 − 1103717.

use super::lanes::Lanes;

/// 52-bit limbs of a 3072-bit operand.
pub(crate) const LIMBS52: usize = 60;
/// Columns of the product (as 16 vectors of 8).
pub(crate) const COLS: usize = 128;

/// 48 little-endian 64-bit words to 60 limbs of 52 bits.
pub(crate) fn to_limbs52(w: &[u64; 48]) -> [u64; LIMBS52] {
    core::array::from_fn(|k| {
        let bit = 52 * k;
        let (i, sh) = (bit / 64, bit % 64);
        let mut v = w[i] >> sh;
        if sh > 12 && i + 1 < 48 {
            v |= w[i + 1] << (64 - sh);
        }
        v & ((1 << 52) - 1)
    })
}

/// The column sums of a·b: Σ col[k]·2^(52k) = a·b, col[k] < 2^59.
#[inline(always)]
pub(crate) fn mul_columns<L: Lanes>(a: &[u64; LIMBS52], b: &[u64; LIMBS52]) -> [u64; COLS] {
    // b with eight zero limbs before and enough after for every shifted load.
    let mut bpad = [0u64; 8 + 64 + 8];
    bpad[8..8 + LIMBS52].copy_from_slice(b);
    let z = L::splat(0);
    let mut lo = [z; COLS / 8];
    let mut hi = [z; COLS / 8];
    // Rows base … base + 7 touch accumulator blocks base/8 … base/8 + 8: eighteen registers,
    // loaded once per group of rows.
    for (g, rows) in a.chunks(8).enumerate() {
        let mut l: [L; 9] = core::array::from_fn(|m| lo[g + m]);
        let mut h: [L; 9] = core::array::from_fn(|m| hi[g + m]);
        for (s, &ai) in rows.iter().enumerate() {
            let av = L::splat(ai);
            for m in 0..9 {
                let start = 8 + 8 * m - s;
                let bv = L::from_array(bpad[start..start + 8].try_into().unwrap());
                l[m] = l[m].madd52lo(av, bv);
                h[m] = h[m].madd52hi(av, bv);
            }
        }
        lo[g..g + 9].copy_from_slice(&l);
        hi[g..g + 9].copy_from_slice(&h);
    }
    let mut out = [0u64; COLS];
    for m in 0..COLS / 8 {
        let l = lo[m].to_array();
        let h = hi[m].to_array();
        for t in 0..8 {
            out[8 * m + t] = out[8 * m + t].wrapping_add(l[t]);
            if 8 * m + t + 1 < COLS {
                out[8 * m + t + 1] = out[8 * m + t + 1].wrapping_add(h[t]);
            }
        }
    }
    out
}

/// Column sums (each < 2^60) to 96 little-endian 64-bit words of the product (< 2^6144).
pub(crate) fn columns_to_words(col: &[u64; COLS]) -> [u64; 96] {
    let mut out = [0u64; 96];
    // Accumulate bit by bit position: word index and shift of each column.
    let mut acc: u128 = 0;
    let mut acc_bits = 0usize; // bit position of acc's bit 0
    let mut wi = 0usize;
    for (k, &c) in col.iter().enumerate() {
        let pos = 52 * k;
        if pos >= 64 * 96 {
            // Beyond the product (< 2^6144): these columns are zero.
            debug_assert_eq!(c, 0);
            continue;
        }
        // Flush whole words below `pos`.
        while acc_bits + 64 <= pos && wi < 96 {
            out[wi] = acc as u64;
            acc >>= 64;
            acc_bits += 64;
            wi += 1;
        }
        acc += (c as u128) << (pos - acc_bits);
    }
    while wi < 96 {
        out[wi] = acc as u64;
        acc >>= 64;
        wi += 1;
    }
    debug_assert_eq!(acc, 0);
    out
}
