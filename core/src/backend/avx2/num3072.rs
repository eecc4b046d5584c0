// SPDX-License-Identifier: MIT OR Apache-2.0
//! MuHash's 3072-bit product on 28-bit limbs, eight independent products at once: lane l of
//! every operand is a number of its own, so each `vpmuludq` does eight useful 32×32-bit
//! products (four per register) with no shuffles, broadcasts or carries between lanes.
//!
//! A value is 110 limbs of 28 bits (3080 bits), each limb at most [`LIMB_MAX`]: a little above
//! 2^28, so the product's carries can stop early. The product is one level of Karatsuba over
//! 55-limb halves (three half products of 3,025 lane multiplications instead of four), each
//! half product a schoolbook that takes its rows five at a time (a_i … a_(i+4) in registers):
//! each b_j read is multiplied by the five, and five column accumulators slide along, one
//! column leaving for memory per step. No column sum of the whole product passes 2^63 (at most
//! 110 products below 2^56.2), so sums kept modulo 2^64 come out exact even where Karatsuba's
//! middle product passes 2^64 on the way.
//!
//! Reduction modulo `m = 2^3072 − d` (d = 1103717): with `e = 2^8·d < 2^28.1`,
//! `2^3080 ≡ e (mod m)`, so the upper 110 limbs of the 220-limb product are multiplied by e
//! and added to the lower 110, and the carry out of that (< 2^28.4) is folded once more into
//! the lowest three limbs. The result is congruent to a·b modulo m, below 2^3081, but reduced
//! neither below 2^3072 nor below m: a running product stays in this form and is converted
//! once at the end ([`words_from_limbs28`]).

use super::lanes::{LaneOps, Lanes};

/// 28-bit limbs of an operand.
pub(crate) const LIMBS28: usize = 110;
/// Mask of a 28-bit limb.
const M28: u64 = (1 << 28) - 1;
/// The largest limb an operand may hold: 110·(2^28 + 2^24)² < 2^63 keeps every column sum
/// of the product below 2^63. The product's own limbs stay at or below 2^28 + 1.
pub(crate) const LIMB_MAX: u64 = (1 << 28) + (1 << 24);
/// `e = 2^8·d ≡ 2^3080 (mod m)`, below 2^32 as the multiplier needs.
const E: u64 = 256 * 1_103_717;
/// Rows of the schoolbook in registers at once; divides [`LIMBS28`] / 2.
const ROWS: usize = 5;

/// Eight operands, limb-major: `x[i][l]` is limb i of lane l's number.
pub(crate) type Lanes28 = [[u64; 8]; LIMBS28];

/// 384 little-endian bytes (a value below 2^3072) to 110 limbs of 28 bits.
pub(crate) fn limbs28_from_le_bytes(b: &[u8; 384]) -> [u64; LIMBS28] {
    // Limb k starts at bit 28k = byte 3.5k: even limbs on a byte boundary, odd ones four bits
    // in. Four bytes from there hold it; the last reads run past byte 383 into zeros.
    let mut padded = [0u8; 388];
    padded[..384].copy_from_slice(b);
    core::array::from_fn(|k| {
        let at = 7 * k / 2;
        let w = u32::from_le_bytes(padded[at..at + 4].try_into().expect("4 bytes"));
        (u64::from(w) >> (4 * (k & 1))) & M28
    })
}

/// 110 limbs (each at most [`LIMB_MAX`], a value below 2^3081) to the 49 little-endian words
/// of their sum Σ l_k·2^(28k).
pub(crate) fn words_from_limbs28(l: &[u64; LIMBS28]) -> [u64; 49] {
    let mut out = [0u64; 49];
    let mut acc: u128 = 0;
    let mut at = 0; // bit position of acc's bit 0
    let mut w = 0;
    for (k, &v) in l.iter().enumerate() {
        acc += u128::from(v) << (28 * k - at);
        if 28 * (k + 1) - at >= 64 {
            out[w] = acc as u64;
            acc >>= 64;
            at += 64;
            w += 1;
        }
    }
    while w < 49 {
        out[w] = acc as u64;
        acc >>= 64;
        w += 1;
    }
    debug_assert_eq!(acc, 0);
    out
}

/// Limbs of a Karatsuba half.
const HALF: usize = LIMBS28 / 2;

/// The schoolbook product of two 55-limb operands, in 110 column sums (the last zero), each
/// the exact sum of its products modulo 2^64.
#[inline(always)]
fn schoolbook55<H: LaneOps>(a: &[H; HALF], b: &[H; HALF]) -> [H; LIMBS28] {
    let zero = H::splat(0);
    let mut col = [zero; LIMBS28];
    for i0 in (0..HALF).step_by(ROWS) {
        let av = [a[i0], a[i0 + 1], a[i0 + 2], a[i0 + 3], a[i0 + 4]];
        // acc[(c − i0) mod ROWS] holds column c while rows i0 … i0 + 4 still add to it. At
        // step j, a_(i0+r)·b_j goes to column i0 + j + r, and column i0 + j receives its last
        // term (r = 0), so it leaves for memory and its register starts column i0 + j + 5.
        let mut acc = [zero; ROWS];
        // One step per b_j, unrolled five times so that every accumulator index is a
        // constant and the five stay in registers.
        macro_rules! step {
            ($j:expr, $s:literal, [$($r:literal => $k:literal),*]) => {{
                let bj = b[$j];
                $(acc[$k] = acc[$k].add(av[$r].mul32(bj));)*
                col[i0 + $j] = col[i0 + $j].add(acc[$s]);
                acc[$s] = zero;
            }};
        }
        for j0 in (0..HALF).step_by(ROWS) {
            step!(j0, 0, [0 => 0, 1 => 1, 2 => 2, 3 => 3, 4 => 4]);
            step!(j0 + 1, 1, [0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 0]);
            step!(j0 + 2, 2, [0 => 2, 1 => 3, 2 => 4, 3 => 0, 4 => 1]);
            step!(j0 + 3, 3, [0 => 3, 1 => 4, 2 => 0, 3 => 1, 4 => 2]);
            step!(j0 + 4, 4, [0 => 4, 1 => 0, 2 => 1, 3 => 2, 4 => 3]);
        }
        // No more b: columns i0 + 55 … i0 + 58 are complete (55 is a multiple of ROWS, so
        // column i0 + 55 + s is in acc[s]).
        col[i0 + HALF] = col[i0 + HALF].add(acc[0]);
        col[i0 + HALF + 1] = col[i0 + HALF + 1].add(acc[1]);
        col[i0 + HALF + 2] = col[i0 + HALF + 2].add(acc[2]);
        col[i0 + HALF + 3] = col[i0 + HALF + 3].add(acc[3]);
    }
    col
}

/// The three 55-limb products of one level of Karatsuba on register `h`'s lanes (lanes
/// 4h … 4h + 3) of a and b: with a = a0 + x^55·a1 and b likewise (x = 2^28),
/// `[z0, zm, z2] = [a0·b0, (a0 + a1)(b0 + b1), a1·b1]`, and the column sums of a·b are those
/// of z0 + x^55·(zm − z0 − z2) + x^110·z2 ([`column`]): three 55-limb products instead of
/// four. The sums a0 + a1 and b0 + b1 have limbs below 2^30 (the multiplier takes 32 bits);
/// zm's columns may pass 2^64, but every sum is kept modulo 2^64 and each final column, a sum
/// of at most 110 products of limbs within [`LIMB_MAX`], is below 2^63, so it comes out exact.
#[inline(always)]
fn karatsuba<L: Lanes>(a: &Lanes28, b: &Lanes28, h: usize) -> [[L::Half; LIMBS28]; 3] {
    let zero = <L::Half as LaneOps>::splat(0);
    let (mut a0, mut a1, mut b0, mut b1) = ([zero; HALF], [zero; HALF], [zero; HALF], [zero; HALF]);
    let (mut am, mut bm) = ([zero; HALF], [zero; HALF]);
    for i in 0..HALF {
        a0[i] = half::<L>(a, i, h);
        a1[i] = half::<L>(a, HALF + i, h);
        b0[i] = half::<L>(b, i, h);
        b1[i] = half::<L>(b, HALF + i, h);
        am[i] = a0[i].add(a1[i]);
        bm[i] = b0[i].add(b1[i]);
    }
    [schoolbook55(&a0, &b0), schoolbook55(&am, &bm), schoolbook55(&a1, &b1)]
}

/// Column k of the product from [`karatsuba`]'s `[z0, zm, z2]` (each 110 columns, the last
/// zero), for k < 219.
#[inline(always)]
fn column<H: LaneOps>(z: &[[H; LIMBS28]; 3], k: usize) -> H {
    let [z0, zm, z2] = z;
    let mut c = if k < LIMBS28 { z0[k] } else { z2[k - LIMBS28] };
    if (HALF..HALF + LIMBS28).contains(&k) {
        let j = k - HALF;
        c = c.add(zm[j].sub(z0[j]).sub(z2[j]));
    }
    c
}

/// `a·b mod m` for each of the eight lanes, in 28-bit limbs: every limb of `a` and `b` at
/// most [`LIMB_MAX`]; every limb of the result at most 2^28 + 1, the result congruent to the
/// product modulo m (see the module documentation).
#[inline(always)]
pub(crate) fn mul_mod_lanes28<L: Lanes>(a: &Lanes28, b: &Lanes28) -> Lanes28 {
    debug_assert!(a.iter().chain(b).flatten().all(|&v| v <= LIMB_MAX), "limb above LIMB_MAX");
    // One register's lanes after the other: a half's five rows, five accumulators and the
    // operand fit the sixteen registers, both halves' do not.
    let z_lo = karatsuba::<L>(a, b, 0);
    let z_hi = karatsuba::<L>(a, b, 1);
    let m28 = L::splat(M28);
    // Carry the columns (each < 2^63) into 220 limbs: the lower 110 go to `out`, the upper
    // 110 to `hi`; the last, limb 219, is what stands above 2^(28·219), below 2^29 for
    // operands within LIMB_MAX.
    let mut out = [[0u64; 8]; LIMBS28];
    let mut hi = [L::splat(0); LIMBS28];
    let mut carry = L::splat(0);
    for k in 0..2 * LIMBS28 - 1 {
        let v = L::from_halves([column(&z_lo, k), column(&z_hi, k)]).add(carry);
        if k < LIMBS28 {
            out[k] = v.and(m28).to_array();
        } else {
            hi[k - LIMBS28] = v.and(m28);
        }
        carry = v.shr::<28>();
    }
    hi[LIMBS28 - 1] = carry;
    // lo + hi·e: each hi limb < 2^29 and e < 2^29, so each term is below 2^58.
    let e = L::splat(E);
    let mut carry = L::splat(0);
    for (o, &h) in out.iter_mut().zip(&hi) {
        let v = L::from_array(*o).add(h.mul32(e)).add(carry);
        *o = v.and(m28).to_array();
        carry = v.shr::<28>();
    }
    // The carry out stands for carry·2^3080 ≡ carry·e; carry < 2^28.4, the product < 2^56.5.
    // Limb 0 then carries < 2^28.5 into limb 1, and limb 1 at most 2 into limb 2, which may
    // end at 2^28 + 1: within LIMB_MAX.
    let v = L::from_array(out[0]).add(carry.mul32(e));
    out[0] = v.and(m28).to_array();
    let v = L::from_array(out[1]).add(v.shr::<28>());
    out[1] = v.and(m28).to_array();
    out[2] = L::from_array(out[2]).add(v.shr::<28>()).to_array();
    out
}

/// Register `h` of limb `i` of eight limb-major operands (the compiler drops the other
/// register's load). A function, not a closure: closures inside the kernel are compiled
/// apart from the `#[target_feature]` function that inlines it, and their lane operations
/// would become calls.
#[inline(always)]
fn half<L: Lanes>(x: &Lanes28, i: usize, h: usize) -> L::Half {
    L::from_array(x[i]).halves()[h]
}

/// [`mul_mod_lanes28`] on AVX2 registers under an Avx2 token, on the lane model otherwise
/// (which no caller reaches today: the accumulators that call it are made for Avx2 tokens).
pub(crate) fn mul_on(backend: crate::Backend, a: &Lanes28, b: &Lanes28) -> Lanes28 {
    #[cfg(target_arch = "x86_64")]
    if backend.kind() == crate::backend::BackendKind::Avx2 {
        // SAFETY: an Avx2 token exists only when `Cpu::get()` saw avx2, bmi2 and adx.
        return unsafe { mul_avx2(a, b) };
    }
    let _ = backend;
    mul_mod_lanes28::<super::lanes::Emulated>(a, b)
}

/// [`mul_mod_lanes28`] on AVX2 registers.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn mul_avx2(a: &Lanes28, b: &Lanes28) -> Lanes28 {
    mul_mod_lanes28::<super::lanes::Avx2>(a, b)
}
