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
///
/// Column-wise: the vector for columns 8m … 8m + 7 sums `a_i·b_(c−i)` over the rows i that
/// reach them, a broadcast of `a_i` times `b` read from offset 8m − i. Four rows at a time go
/// to four pairs of accumulators, so consecutive multiply-adds do not wait on each other, and
/// nothing but those eight registers is live (a row-wise order keeps eighteen accumulators and
/// spills them).
#[inline(always)]
pub(crate) fn mul_columns<L: Lanes>(a: &[u64; LIMBS52], b: &[u64; LIMBS52]) -> [u64; COLS] {
    // b after 64 zeros and before 8, so every window 8m − i + 64 … + 8 is in bounds and the
    // limbs outside b read as zero.
    const PAD: usize = 64;
    let mut bpad = [0u64; PAD + LIMBS52 + 8];
    bpad[PAD..PAD + LIMBS52].copy_from_slice(b);
    let window = |m: usize, i: usize| {
        let at = PAD + 8 * m - i;
        L::from_array(bpad[at..at + 8].try_into().expect("8 limbs"))
    };
    let z = L::splat(0);
    let mut out = [0u64; COLS];
    // Column 118 is the last with a product term; block 15 (columns 120…) stays zero.
    for m in 0..COLS / 8 - 1 {
        // Rows with a column of the block in 0 … 59 + i: i in [8m − 59, 8m + 7] ∩ [0, 59].
        let first = (8 * m).saturating_sub(LIMBS52 - 1);
        let last = (8 * m + 7).min(LIMBS52 - 1);
        let (mut lo, mut hi) = ([z; 4], [z; 4]);
        let mut i = first;
        while i + 4 <= last + 1 {
            for k in 0..4 {
                let av = L::splat(a[i + k]);
                let bv = window(m, i + k);
                lo[k] = lo[k].madd52lo(av, bv);
                hi[k] = hi[k].madd52hi(av, bv);
            }
            i += 4;
        }
        while i <= last {
            let av = L::splat(a[i]);
            let bv = window(m, i);
            lo[0] = lo[0].madd52lo(av, bv);
            hi[0] = hi[0].madd52hi(av, bv);
            i += 1;
        }
        let l = lo[0].add(lo[1]).add(lo[2].add(lo[3])).to_array();
        let h = hi[0].add(hi[1]).add(hi[2].add(hi[3])).to_array();
        // The high halves weigh one column more.
        for t in 0..8 {
            out[8 * m + t] = out[8 * m + t].wrapping_add(l[t]);
            out[8 * m + t + 1] = out[8 * m + t + 1].wrapping_add(h[t]);
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

/// Mask of a 52-bit limb.
const M52: u64 = (1 << 52) - 1;
/// `d = 2^3072 − m`, MuHash's modulus `m` being prime.
const D: u64 = 1_103_717;

/// 384 little-endian bytes (a value < 2^3072) to 60 limbs of 52 bits.
pub(crate) fn limbs52_from_le_bytes(b: &[u8; 384]) -> [u64; LIMBS52] {
    crate::backend::limbs::from_le_bytes::<52, LIMBS52>(b)
}

/// 60 limbs of 52 bits (a value < 2^3120) to `W` (49 or more) little-endian words that hold it.
pub(crate) fn words_from_limbs52<const W: usize>(l: &[u64; LIMBS52]) -> [u64; W] {
    crate::backend::limbs::to_words::<52, LIMBS52, W>(l)
}

/// `a·b` modulo `m = 2^3072 − d`, staying in 52-bit limbs: both operands are 60 limbs below
/// 2^52 (any value below 2^3120), and so is the result, which is congruent to `a·b` modulo m
/// but reduced neither below 2^3072 nor below m. A product of many factors can stay in this
/// form and be converted once at the end, skipping the word conversions of every step.
///
/// Reduction: column `60 + j` weighs `2^3120·2^(52j)`, and `2^3120 = 2^48·2^3072 ≡ 2^48·d`,
/// so its sum `c` moves down as `c·d·2^48` at column j: the low 4 bits of `c·d` above bit 48
/// of column j, the next 52 into column j + 1, the rest into column j + 2. What then stands
/// above 2^3120 after carrying is folded the same way until nothing does.
#[inline(always)]
pub(crate) fn mul_mod_limbs52<L: Lanes>(a: &[u64; LIMBS52], b: &[u64; LIMBS52]) -> [u64; LIMBS52] {
    let col = mul_columns::<L>(a, b);
    // a, b < 2^3120, so the product has no column at 120 or above.
    debug_assert!(col[2 * LIMBS52..].iter().all(|&c| c == 0));
    // Columns are < 2^59 (mul_columns); each of r[0..62] gains at most 2^52 + 2^52 + 2^29 more.
    let mut r = [0u64; LIMBS52 + 2];
    r[..LIMBS52].copy_from_slice(&col[..LIMBS52]);
    for j in 0..LIMBS52 {
        let t = u128::from(col[LIMBS52 + j]) * u128::from(D); // < 2^80
        r[j] += (t as u64 & 0xF) << 48;
        r[j + 1] += (t >> 4) as u64 & M52;
        r[j + 2] += (t >> 56) as u64; // < 2^24
    }
    let mut out = [0u64; LIMBS52];
    let mut carry = 0u64;
    for k in 0..LIMBS52 {
        let v = r[k] + carry;
        out[k] = v & M52;
        carry = v >> 52;
    }
    // The part at or above 2^3120: r[60] < 2^52 + 2^24 and r[61] < 2^24, so it is < 2^77.
    let over = u128::from(carry) + u128::from(r[LIMBS52]) + (u128::from(r[LIMBS52 + 1]) << 52);
    fold_over(&mut out, over);
    out
}

/// Adds `over·2^3120 ≡ over·d·2^48 (mod m)` to the normalized limbs `l` (each < 2^52), for
/// `over < 2^80`, leaving them normalized: a carry out of the top limb is one more 2^3120 and
/// is folded again (it happens only when limbs 3… are all ones).
pub(crate) fn fold_over(l: &mut [u64; LIMBS52], mut over: u128) {
    debug_assert!(over < 1 << 80);
    while over != 0 {
        let t = over * u128::from(D); // < 2^101
        let add = [(t as u64 & 0xF) << 48, (t >> 4) as u64 & M52, (t >> 56) as u64];
        let mut c = 0u64;
        let mut k = 0;
        while k < LIMBS52 && (k < add.len() || c != 0) {
            let v = l[k] + add.get(k).copied().unwrap_or(0) + c;
            l[k] = v & M52;
            c = v >> 52;
            k += 1;
        }
        over = if k == LIMBS52 { u128::from(c) } else { 0 };
    }
}

/// [`mul_mod_limbs52`] on AVX-512 registers under an Ifma token, on the lane model otherwise
/// (which no caller reaches today: the accumulators that call it are made for Ifma tokens).
pub(crate) fn mul_on(backend: crate::Backend, a: &[u64; LIMBS52], b: &[u64; LIMBS52]) -> [u64; LIMBS52] {
    #[cfg(target_arch = "x86_64")]
    if backend.kind() == crate::backend::BackendKind::Ifma {
        // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
        // avx512vl.
        return unsafe { mul_ifma(a, b) };
    }
    let _ = backend;
    mul_mod_limbs52::<super::lanes::Emulated>(a, b)
}

/// [`mul_mod_limbs52`] on AVX-512 registers.
///
/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn mul_ifma(a: &[u64; LIMBS52], b: &[u64; LIMBS52]) -> [u64; LIMBS52] {
    mul_mod_limbs52::<super::lanes::Ifma>(a, b)
}
