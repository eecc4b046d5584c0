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
//! column leaving for memory per step. The four lanes of one register are taken at a time:
//! the half products write over one 10.5 KiB room (each column stored the first time it is
//! reached, so nothing is cleared per half product), and the register's result goes over its
//! operand in place, so a product moves no operand copies or result arrays. No column sum of the whole product passes 2^63 (at most
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
    crate::backend::limbs::from_le_bytes::<28, LIMBS28>(b)
}

/// 110 limbs (each at most [`LIMB_MAX`], a value below 2^3081) to `W` (49 or more)
/// little-endian words of their sum Σ l_k·2^(28k).
pub(crate) fn words_from_limbs28<const W: usize>(l: &[u64; LIMBS28]) -> [u64; W] {
    crate::backend::limbs::to_words::<28, LIMBS28, W>(l)
}

/// Limbs of a Karatsuba half.
const HALF: usize = LIMBS28 / 2;

/// A 55-limb operand of the schoolbook, limb by limb.
trait Operand<H> {
    fn limb(&self, i: usize) -> H;
}

/// Limbs `base` … `base` + 54 of eight limb-major numbers on register `h` (lanes 4h … 4h + 3):
/// the lower (`base` 0) or upper (`base` 55) half of an operand of one level of Karatsuba.
struct Part<'a, L> {
    x: &'a Lanes28,
    base: usize,
    h: usize,
    lanes: core::marker::PhantomData<L>,
}

impl<'a, L> Part<'a, L> {
    #[inline(always)]
    fn new(x: &'a Lanes28, base: usize, h: usize) -> Self {
        Part { x, base, h, lanes: core::marker::PhantomData }
    }
}

impl<L: Lanes> Operand<L::Half> for Part<'_, L> {
    #[inline(always)]
    fn limb(&self, i: usize) -> L::Half {
        half::<L>(self.x, self.base + i, self.h)
    }
}

/// 55 limbs held in registers' form, from `base` of a column array.
struct Held<'a, H> {
    x: &'a [H; LIMBS28],
    base: usize,
}

impl<H: LaneOps> Operand<H> for Held<'_, H> {
    #[inline(always)]
    fn limb(&self, i: usize) -> H {
        self.x[self.base + i]
    }
}

/// The schoolbook product of two 55-limb operands, as 110 column sums (the last
/// zero) written over `col` (whatever it held), each the exact sum of its products modulo
/// 2^64.
///
/// Rows go five at a time (a_i … a_(i+4) in registers): each b_j read is multiplied by the
/// five, and five column accumulators slide along, one column leaving for memory per step.
/// Every column is stored the first time it is reached (`set`) and added to after (`add`), so
/// `col` needs no clearing: the rows from 0 reach columns 0 … 58; the rows from i0 > 0 reach
/// i0 … i0 + 58, of which i0 + 54 … i0 + 58 for the first time (the rows before ended at
/// i0 + 53).
#[inline(always)]
fn schoolbook55<H: LaneOps>(a: &impl Operand<H>, b: &impl Operand<H>, col: &mut [H; LIMBS28]) {
    let zero = H::splat(0);
    macro_rules! store {
        (set, $c:expr, $v:expr) => {
            col[$c] = $v
        };
        (add, $c:expr, $v:expr) => {
            col[$c] = col[$c].add($v)
        };
    }
    for i0 in (0..HALF).step_by(ROWS) {
        let av = [a.limb(i0), a.limb(i0 + 1), a.limb(i0 + 2), a.limb(i0 + 3), a.limb(i0 + 4)];
        // acc[(c − i0) mod ROWS] holds column c while rows i0 … i0 + 4 still add to it. At
        // step j, a_(i0+r)·b_j goes to column i0 + j + r, and column i0 + j receives its last
        // term (r = 0), so it leaves for memory and its register starts column i0 + j + 5.
        let mut acc = [zero; ROWS];
        // One step per b_j, unrolled five times so that every accumulator index is a
        // constant and the five stay in registers; `$last` is how the fifth step stores.
        macro_rules! step {
            ($op:ident, $j:expr, $s:literal, [$($r:literal => $k:literal),*]) => {{
                let bj = b.limb($j);
                $(acc[$k] = acc[$k].add(av[$r].mul32(bj));)*
                store!($op, i0 + $j, acc[$s]);
                acc[$s] = zero;
            }};
        }
        macro_rules! five {
            ($op:ident, $last:ident, $j0:expr) => {{
                let j0 = $j0;
                step!($op, j0, 0, [0 => 0, 1 => 1, 2 => 2, 3 => 3, 4 => 4]);
                step!($op, j0 + 1, 1, [0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 0]);
                step!($op, j0 + 2, 2, [0 => 2, 1 => 3, 2 => 4, 3 => 0, 4 => 1]);
                step!($op, j0 + 3, 3, [0 => 3, 1 => 4, 2 => 0, 3 => 1, 4 => 2]);
                step!($last, j0 + 4, 4, [0 => 4, 1 => 0, 2 => 1, 3 => 2, 4 => 3]);
            }};
        }
        if i0 == 0 {
            for j0 in (0..HALF).step_by(ROWS) {
                five!(set, set, j0);
            }
        } else {
            for j0 in (0..HALF - ROWS).step_by(ROWS) {
                five!(add, add, j0);
            }
            five!(add, set, HALF - ROWS);
        }
        // No more b: columns i0 + 55 … i0 + 58 are complete (55 is a multiple of ROWS, so
        // column i0 + 55 + s is in acc[s]), and reached for the first time.
        col[i0 + HALF] = acc[0];
        col[i0 + HALF + 1] = acc[1];
        col[i0 + HALF + 2] = acc[2];
        col[i0 + HALF + 3] = acc[3];
    }
    col[LIMBS28 - 1] = zero;
}

/// Column k (k < 219) of a·b on one register from the three products of one level of
/// Karatsuba, `[z0, zm, z2] = [a0·b0, (a0 + a1)(b0 + b1), a1·b1]` (each 110 columns, the last
/// zero): with x = 2^28 and a = a0 + x^55·a1 (b likewise), a·b = z0 + x^55·(zm − z0 − z2) +
/// x^110·z2. zm's columns may pass 2^64, but every sum is kept modulo 2^64 and each final
/// column, a sum of at most 110 products of limbs within [`LIMB_MAX`], is below 2^63, so it
/// comes out exact.
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

/// Replaces register `h` of limb `k` (lanes 4h … 4h + 3) of eight limb-major numbers.
#[inline(always)]
fn set_half<L: Lanes>(x: &mut Lanes28, k: usize, h: usize, v: L::Half) {
    let mut both = L::from_array(x[k]).halves();
    both[h] = v;
    x[k] = L::from_halves(both).to_array();
}

/// `a ← a·b mod m` for each of the eight lanes, in 28-bit limbs: every limb of `a` and `b` at
/// most [`LIMB_MAX`]; every limb of the result at most 2^28 + 1, the result congruent to the
/// product modulo m (see the module documentation).
///
/// One register's lanes after the other (a half's five rows, five accumulators and the operand
/// fit the sixteen registers, both halves' do not): lanes are independent, so a register's
/// result can go over its operand as soon as its three half products are taken.
#[inline(always)]
pub(crate) fn mul_mod_lanes28<L: Lanes>(a: &mut Lanes28, b: &Lanes28) {
    debug_assert!(a.iter().chain(b).flatten().all(|&v| v <= LIMB_MAX), "limb above LIMB_MAX");
    let zero = <L::Half as LaneOps>::splat(0);
    // Written over in full by each register's schoolbooks.
    let mut z = [[zero; LIMBS28]; 3];
    one_register::<L>(a, b, 0, &mut z);
    one_register::<L>(a, b, 1, &mut z);
}

/// [`mul_mod_lanes28`] on register `h` (a constant once inlined, so that each limb read is one
/// register's load), with `z` as room for the three half products.
#[inline(always)]
fn one_register<L: Lanes>(a: &mut Lanes28, b: &Lanes28, h: usize, z: &mut [[L::Half; LIMBS28]; 3]) {
    let zero = <L::Half as LaneOps>::splat(0);
    let m28 = <L::Half as LaneOps>::splat(M28);
    let e = <L::Half as LaneOps>::splat(E);
    {
        let [z0, zm, z2] = &mut *z;
        // The sums a0 + a1 and b0 + b1 wait in z2's room until z2 is taken.
        for i in 0..HALF {
            z2[i] = half::<L>(a, i, h).add(half::<L>(a, HALF + i, h));
            z2[HALF + i] = half::<L>(b, i, h).add(half::<L>(b, HALF + i, h));
        }
        schoolbook55(&Held { x: z2, base: 0 }, &Held { x: z2, base: HALF }, zm);
        schoolbook55(&Part::<L>::new(a, 0, h), &Part::<L>::new(b, 0, h), z0);
        schoolbook55(&Part::<L>::new(a, HALF, h), &Part::<L>::new(b, HALF, h), z2);
    }
    let z = &*z;
    // Carry the lower 110 columns (each < 2^63) into 28-bit limbs, over a.
    let mut carry = zero;
    for k in 0..LIMBS28 {
        let v = column(z, k).add(carry);
        set_half::<L>(a, k, h, v.and(m28));
        carry = v.shr::<28>();
    }
    // The upper 110 limbs, each `hi` < 2^29 (the last, what stands above 2^(28·219), is the
    // carry out of column 218), times e < 2^29 go onto the lower ones: 2^3080 ≡ e.
    let mut folded = zero;
    for k in 0..LIMBS28 {
        let hi = if k + 1 < LIMBS28 {
            let v = column(z, LIMBS28 + k).add(carry);
            carry = v.shr::<28>();
            v.and(m28)
        } else {
            carry
        };
        let v = half::<L>(a, k, h).add(hi.mul32(e)).add(folded);
        set_half::<L>(a, k, h, v.and(m28));
        folded = v.shr::<28>();
    }
    // The carry out stands for folded·2^3080 ≡ folded·e; folded < 2^28.4, the product <
    // 2^56.5. Limb 0 then carries < 2^28.5 into limb 1, and limb 1 at most 2 into limb 2,
    // which may end at 2^28 + 1: within LIMB_MAX.
    let v = half::<L>(a, 0, h).add(folded.mul32(e));
    set_half::<L>(a, 0, h, v.and(m28));
    let v = half::<L>(a, 1, h).add(v.shr::<28>());
    set_half::<L>(a, 1, h, v.and(m28));
    set_half::<L>(a, 2, h, half::<L>(a, 2, h).add(v.shr::<28>()));
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
pub(crate) fn mul_on(backend: crate::Backend, a: &mut Lanes28, b: &Lanes28) {
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
unsafe fn mul_avx2(a: &mut Lanes28, b: &Lanes28) {
    mul_mod_lanes28::<super::lanes::Avx2>(a, b)
}
