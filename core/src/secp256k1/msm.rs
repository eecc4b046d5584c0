// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multi-scalar multiplication Σ kᵢ·Pᵢ (variable time, public inputs only).
//!
//! Every term is first brought to at most 128-bit signed scalars: a scalar k with
//! min(k, n − k) < 2^128 is used as it is (its sign moved onto the point); any other k is split
//! by GLV into k = k1 + λ·k2 with |k1|, |k2| < 2^128, where λ·(x, y) = (β·x, y) costs one field
//! multiplication. Batch verification profits directly: its per-signature weights are 128-bit,
//! so the R terms need no split at all.
//!
//! Two algorithms, chosen by [`MsmAlgorithm`]:
//!
//! - **Strauss** (interleaved wNAF): per term a table of the odd multiples P, 3P, …, 15P
//!   (window 5) in Jacobian form, all tables brought to affine form together with one batch
//!   inversion; then one shared chain of ~129 doublings, adding a table entry (mixed addition)
//!   at each nonzero digit of each wNAF stream. A term of the generator G, when the caller
//!   knows it (batch verification), uses the precomputed tables of G and 2^128·G of `ecmult`.
//!   Cost: ~129 doublings + Σ (1 + 7 Jacobian additions + ~22 mixed additions per stream).
//! - **Pippenger** (bucket method): the ≤ 128-bit magnitudes are recoded into signed digits
//!   d ∈ [−2^(c−1), 2^(c−1)] of c bits (⌊128/c⌋ + 1 windows). For each window, from the top:
//!   every point is mixed-added (negated for negative digits) to bucket |d|; the window sum
//!   Σ j·B_j is formed by running sums (T ← T + B_j, S ← S + T from the top bucket down,
//!   2·2^(c−1) Jacobian additions); the accumulator is doubled c times and S added.
//!   Cost for N points: (⌊128/c⌋ + 1)·(N mixed additions + 2^c additions + c doublings);
//!   [`pippenger_window`] picks c minimising it with the formula costs of `group` (mixed
//!   addition 8M + 3S, Jacobian addition 12M + 4S, doubling 3M + 4S).
//!
//! [`MsmStats`] counts the group operations for benchmarks; the counting code is a generic
//! parameter, so the uncounted entry points carry none of it.

use super::ecmult::{beta, wnaf_into, GenTables, WINDOW_G, WNAF_MAX};
use super::field::{batch_inv_var, FieldOps};
use super::group::{Ge, Gej};
use super::point::AffinePoint;
use super::scalar::Scalar;
use crate::backend::Backend;

/// Which multi-scalar multiplication algorithm to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MsmAlgorithm {
    /// Strauss below [`STRAUSS_MAX_POINTS`] points after the GLV split, Pippenger above.
    Auto,
    /// Interleaved wNAF (best for few points).
    Strauss,
    /// The bucket method (best for many points).
    Pippenger,
}

impl MsmAlgorithm {
    /// A short lowercase name (`auto`, `strauss`, `pippenger`).
    pub fn name(&self) -> &'static str {
        match self {
            MsmAlgorithm::Auto => "auto",
            MsmAlgorithm::Strauss => "strauss",
            MsmAlgorithm::Pippenger => "pippenger",
        }
    }
}

/// [`MsmAlgorithm::Auto`] runs Strauss when the number of ≤ 128-bit points (after the GLV
/// split; a batch of b signatures has about 3b) is below this, Pippenger otherwise. Set from
/// the crossover measured by `sigbench` (see the README).
pub const STRAUSS_MAX_POINTS: usize = 80;

/// Counts of the group operations one multi-scalar multiplication performed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsmStats {
    /// Point doublings.
    pub doublings: u64,
    /// Jacobian + Jacobian additions (both operands finite).
    pub additions: u64,
    /// Jacobian + affine additions (both operands finite).
    pub mixed_additions: u64,
    /// Field inversions (a batch inversion counts once).
    pub inversions: u64,
    /// Points after the GLV split (the n of the cost model).
    pub points: u64,
    /// The algorithm that ran (never `Auto`).
    pub algorithm: Option<MsmAlgorithm>,
    /// The Pippenger window c, or the Strauss wNAF window.
    pub window: usize,
}

/// Receives operation counts; `()` ignores them at no cost.
pub(crate) trait OpCounter {
    fn dbl(&mut self);
    fn add(&mut self);
    fn madd(&mut self);
    fn inv(&mut self);
    fn setup(&mut self, alg: MsmAlgorithm, points: usize, window: usize);
}

impl OpCounter for () {
    #[inline(always)]
    fn dbl(&mut self) {}
    #[inline(always)]
    fn add(&mut self) {}
    #[inline(always)]
    fn madd(&mut self) {}
    #[inline(always)]
    fn inv(&mut self) {}
    #[inline(always)]
    fn setup(&mut self, _: MsmAlgorithm, _: usize, _: usize) {}
}

impl OpCounter for MsmStats {
    fn dbl(&mut self) {
        self.doublings += 1;
    }
    fn add(&mut self) {
        self.additions += 1;
    }
    fn madd(&mut self) {
        self.mixed_additions += 1;
    }
    fn inv(&mut self) {
        self.inversions += 1;
    }
    fn setup(&mut self, alg: MsmAlgorithm, points: usize, window: usize) {
        self.algorithm = Some(alg);
        self.points = points as u64;
        self.window = window;
    }
}

#[inline(always)]
fn dbl<F: FieldOps, C: OpCounter>(p: &Gej<F>, c: &mut C) -> Gej<F> {
    if !p.infinity {
        c.dbl();
    }
    p.double_var()
}

#[inline(always)]
fn madd<F: FieldOps, C: OpCounter>(p: &Gej<F>, q: &Ge<F>, c: &mut C) -> Gej<F> {
    if !p.infinity && !q.infinity {
        c.madd();
    }
    p.add_ge_var(q).0
}

#[inline(always)]
fn jadd<F: FieldOps, C: OpCounter>(p: &Gej<F>, q: &Gej<F>, c: &mut C) -> Gej<F> {
    if !p.infinity && !q.infinity {
        c.add();
    }
    p.add_var(q)
}

/// (|k|, k is negative) for a scalar with min(k, n − k) < 2^128.
#[inline]
fn short_magnitude(k: &Scalar) -> (u128, bool) {
    let (m, neg) = if k.is_high() { (k.negate(), true) } else { (*k, false) };
    let w = m.to_words();
    debug_assert!(w[2] == 0 && w[3] == 0);
    ((w[0] as u128) | ((w[1] as u128) << 64), neg)
}

/// Appends the ≤ 128-bit (point, magnitude) pairs of k·P: one for a short k, two (P, λP)
/// otherwise. Zero scalars and infinity are dropped.
fn push_split<F: FieldOps>(k: &Scalar, p: &Ge<F>, out: &mut Vec<(Ge<F>, u128)>) {
    if p.infinity || k.is_zero() {
        return;
    }
    let mut push = |k: &Scalar, p: Ge<F>| {
        if k.is_zero() {
            return;
        }
        let (m, neg) = short_magnitude(k);
        out.push((if neg { p.neg() } else { p }, m));
    };
    if k.is_short() {
        push(k, *p);
    } else {
        let s = k.split_lambda();
        push(&s.k1, *p);
        push(&s.k2, Ge { x: p.x.mul(&beta::<F>()), y: p.y, infinity: false });
    }
}

/// Number of ≤ 128-bit points the terms become (the n of the cost models).
fn split_count(terms: &[(Scalar, Ge<impl FieldOps>)]) -> usize {
    terms
        .iter()
        .map(|(k, p)| {
            if p.infinity || k.is_zero() {
                0
            } else if k.is_short() {
                1
            } else {
                2
            }
        })
        .sum()
}

/// Formula costs in field-multiplication equivalents (a squaring counted as 0.8).
const COST_MADD: f64 = 8.0 + 3.0 * 0.8;
const COST_ADD: f64 = 12.0 + 4.0 * 0.8;
const COST_DBL: f64 = 3.0 + 4.0 * 0.8;

/// Modelled cost of Pippenger with window c over `points` ≤ 128-bit points.
fn pippenger_cost(points: usize, c: usize) -> f64 {
    let windows = (128 / c + 1) as f64;
    windows * (points as f64 * COST_MADD + (1u64 << c) as f64 * COST_ADD + c as f64 * COST_DBL)
}

/// The Pippenger window c ∈ [2, 16] that minimises the modelled cost for `points` ≤ 128-bit
/// points (see the module documentation).
pub fn pippenger_window(points: usize) -> usize {
    (2..=16)
        .min_by(|&a, &b| pippenger_cost(points, a).partial_cmp(&pippenger_cost(points, b)).unwrap())
        .unwrap()
}

/// Strauss wNAF window for the variable points (tables of 2^(w−2) = 8 odd multiples).
const STRAUSS_WINDOW: usize = 5;
const STRAUSS_TABLE: usize = 1 << (STRAUSS_WINDOW - 2);

/// Σ kᵢ·Pᵢ + ng·G, generic over the field backend; `ng` uses the precomputed generator
/// tables (Strauss) or joins the points (Pippenger).
pub(crate) fn msm_generic<F: FieldOps, C: OpCounter>(
    ng: &Scalar,
    terms: &[(Scalar, Ge<F>)],
    alg: MsmAlgorithm,
    c: &mut C,
) -> Gej<F> {
    let alg = match alg {
        MsmAlgorithm::Auto => {
            if split_count(terms) < STRAUSS_MAX_POINTS {
                MsmAlgorithm::Strauss
            } else {
                MsmAlgorithm::Pippenger
            }
        }
        a => a,
    };
    match alg {
        MsmAlgorithm::Pippenger => {
            let mut pts = Vec::with_capacity(split_count(terms) + 2);
            push_split(ng, &Ge::generator(), &mut pts);
            for (k, p) in terms {
                push_split(k, p, &mut pts);
            }
            pippenger(&pts, c)
        }
        _ => strauss(ng, terms, c),
    }
}

/// Signed digits of `m` in windows of c bits: d ∈ [−2^(c−1), 2^(c−1)], Σ dⱼ·2^(jc) = m.
#[inline]
fn signed_digits(m: u128, c: usize, out: &mut [i32]) {
    let half = 1i64 << (c - 1);
    let mask = (1u128 << c) - 1;
    let mut carry = 0i64;
    for (j, d) in out.iter_mut().enumerate() {
        let shift = j * c;
        let bits = if shift < 128 { ((m >> shift) & mask) as i64 } else { 0 };
        let v = bits + carry;
        if v > half {
            *d = (v - (1i64 << c)) as i32;
            carry = 1;
        } else {
            *d = v as i32;
            carry = 0;
        }
    }
    debug_assert_eq!(carry, 0);
}

/// The bucket method over (point, ≤ 128-bit magnitude) pairs.
fn pippenger<F: FieldOps, C: OpCounter>(pts: &[(Ge<F>, u128)], c: &mut C) -> Gej<F> {
    let w = pippenger_window(pts.len());
    c.setup(MsmAlgorithm::Pippenger, pts.len(), w);
    if pts.is_empty() {
        return Gej::INFINITY;
    }
    let windows = 128 / w + 1;
    let mut digits = vec![0i32; pts.len() * windows];
    for (i, (_, m)) in pts.iter().enumerate() {
        signed_digits(*m, w, &mut digits[i * windows..(i + 1) * windows]);
    }
    let nb = 1usize << (w - 1);
    let mut buckets = vec![Gej::<F>::INFINITY; nb];
    let mut acc = Gej::<F>::INFINITY;
    for j in (0..windows).rev() {
        for _ in 0..w {
            acc = dbl(&acc, c);
        }
        buckets.fill(Gej::INFINITY);
        for (i, (p, _)) in pts.iter().enumerate() {
            let d = digits[i * windows + j];
            if d > 0 {
                let b = &mut buckets[(d - 1) as usize];
                *b = madd(b, p, c);
            } else if d < 0 {
                let b = &mut buckets[(-d - 1) as usize];
                *b = madd(b, &p.neg(), c);
            }
        }
        // Σ (j+1)·B_j by running sums from the top bucket down.
        let mut run = Gej::<F>::INFINITY;
        let mut sum = Gej::<F>::INFINITY;
        for b in buckets.iter().rev() {
            run = jadd(&run, b, c);
            sum = jadd(&sum, &run, c);
        }
        acc = jadd(&acc, &sum, c);
    }
    acc
}

/// Interleaved wNAF over per-term tables of odd multiples, brought to affine form together.
fn strauss<F: FieldOps, C: OpCounter>(ng: &Scalar, terms: &[(Scalar, Ge<F>)], c: &mut C) -> Gej<F> {
    // Every nonzero wNAF digit of every stream becomes an event (bit, entry): bits 0–28 of the
    // entry index the table entry, bit 29 selects the λ tables and bit 30 negates the point.
    const LAMBDA_FLAG: u32 = 1 << 29;
    const NEG_FLAG: u32 = 1 << 30;
    let mut buf = [0i32; WNAF_MAX];
    let mut events: Vec<(u16, u32)> = Vec::with_capacity(48 * terms.len());
    let mut jac: Vec<Gej<F>> = Vec::with_capacity(STRAUSS_TABLE * terms.len());
    let mut nstreams = 0usize;
    let mut stream = |k: &Scalar, table: usize, lambda: bool, events: &mut Vec<(u16, u32)>| {
        if k.is_zero() {
            return;
        }
        nstreams += 1;
        let len = wnaf_into(k, STRAUSS_WINDOW, &mut buf);
        for (bit, &d) in buf.iter().enumerate().take(len) {
            if d != 0 {
                let mut e = (table * STRAUSS_TABLE) as u32 + (d.unsigned_abs() - 1) / 2;
                if lambda {
                    e |= LAMBDA_FLAG;
                }
                if d < 0 {
                    e |= NEG_FLAG;
                }
                events.push((bit as u16, e));
            }
        }
    };
    for (k, p) in terms {
        if p.infinity || k.is_zero() {
            continue;
        }
        let table = jac.len() / STRAUSS_TABLE;
        if k.is_short() {
            stream(k, table, false, &mut events);
        } else {
            let s = k.split_lambda();
            stream(&s.k1, table, false, &mut events);
            stream(&s.k2, table, true, &mut events);
        }
        // P, 3P, …, 15P in Jacobian form: D = 2P, then repeated additions of D.
        let d = dbl(&p.to_gej(), c);
        let mut cur = p.to_gej();
        jac.push(cur);
        for _ in 1..STRAUSS_TABLE {
            cur = jadd(&cur, &d, c);
            jac.push(cur);
        }
    }
    c.setup(MsmAlgorithm::Strauss, nstreams, STRAUSS_WINDOW);
    // One batch inversion for every table entry.
    let mut zs: Vec<F> = jac.iter().map(|q| if q.infinity { F::ZERO } else { q.z }).collect();
    if !zs.is_empty() {
        c.inv();
    }
    batch_inv_var(&mut zs);
    let b = beta::<F>();
    let mut tables: Vec<Ge<F>> = Vec::with_capacity(2 * jac.len());
    for (q, zi) in jac.iter().zip(zs.iter()) {
        tables.push(if q.infinity { Ge::INFINITY } else { q.to_ge_zinv(zi) });
    }
    let lambda_tables: Vec<Ge<F>> =
        tables.iter().map(|e| Ge { x: e.x.mul(&b), y: e.y, infinity: e.infinity }).collect();

    // The generator term: 128-bit halves against the precomputed tables.
    let mut wg_lo = [0i32; WNAF_MAX];
    let mut wg_hi = [0i32; WNAF_MAX];
    let words = ng.to_words();
    let g_lo = Scalar::from_words_reduce([words[0], words[1], 0, 0]).0;
    let g_hi = Scalar::from_words_reduce([words[2], words[3], 0, 0]).0;
    let lg_lo = wnaf_into(&g_lo, WINDOW_G, &mut wg_lo);
    let lg_hi = wnaf_into(&g_hi, WINDOW_G, &mut wg_hi);
    let gt = if lg_lo.max(lg_hi) > 0 { Some(GenTables::get()) } else { None };

    // Events grouped by bit (counting sort), so the chain walks them in order.
    let mut start = [0usize; WNAF_MAX + 1];
    for &(bit, _) in &events {
        start[bit as usize + 1] += 1;
    }
    for i in 0..WNAF_MAX {
        start[i + 1] += start[i];
    }
    let mut fill = start;
    let mut sorted = vec![0u32; events.len()];
    for &(bit, e) in &events {
        sorted[fill[bit as usize]] = e;
        fill[bit as usize] += 1;
    }
    let top = (0..WNAF_MAX).rev().find(|&i| start[i + 1] > start[i]).map_or(0, |i| i + 1);
    let bits = top.max(lg_lo).max(lg_hi);
    let mut r = Gej::<F>::INFINITY;
    for i in (0..bits).rev() {
        r = dbl(&r, c);
        for &e in &sorted[start[i]..start[i + 1]] {
            let t = if e & LAMBDA_FLAG != 0 { &lambda_tables } else { &tables };
            let p = &t[(e & (LAMBDA_FLAG - 1)) as usize];
            r = madd(&r, &if e & NEG_FLAG != 0 { p.neg() } else { *p }, c);
        }
        if let Some(gt) = gt {
            for (w, t) in [(&wg_lo, &gt.g), (&wg_hi, &gt.g128)] {
                let d = w[i];
                if d != 0 {
                    let e = t[((d.unsigned_abs() - 1) / 2) as usize].load::<F>();
                    r = madd(&r, &if d > 0 { e } else { e.neg() }, c);
                }
            }
        }
    }
    r
}

fn run_public<C: OpCounter>(
    backend: Backend,
    terms: &[(Scalar, AffinePoint)],
    alg: MsmAlgorithm,
    c: &mut C,
) -> AffinePoint {
    with_field!(backend, F => {
        let t: Vec<(Scalar, Ge<F>)> = terms.iter().map(|(k, p)| (*k, Ge::<F>::from_portable(&p.0))).collect();
        let r = msm_generic::<F, C>(&Scalar::ZERO, &t, alg, c);
        AffinePoint(r.to_ge_var().to_portable())
    })
}

/// Σ kᵢ·Pᵢ on the detected backend, variable time (public data only); infinity for no terms.
///
/// ```
/// use fullverify::secp256k1::arith::{AffinePoint, Scalar};
/// use fullverify::secp256k1::msm::{msm, MsmAlgorithm};
///
/// let g = AffinePoint::generator();
/// let p = AffinePoint::mul_generator(&Scalar::from_u64(5));
/// // 3·G + 2·(5G) = 13·G, by either algorithm.
/// let terms = [(Scalar::from_u64(3), g), (Scalar::from_u64(2), p)];
/// for alg in [MsmAlgorithm::Auto, MsmAlgorithm::Strauss, MsmAlgorithm::Pippenger] {
///     assert_eq!(msm(&terms, alg), AffinePoint::mul_generator(&Scalar::from_u64(13)));
/// }
/// assert!(msm(&[], MsmAlgorithm::Auto).is_infinity());
/// ```
pub fn msm(terms: &[(Scalar, AffinePoint)], alg: MsmAlgorithm) -> AffinePoint {
    msm_with(Backend::detect(), terms, alg)
}

/// [`msm`] on an explicit backend; every backend gives the same point.
pub fn msm_with(backend: Backend, terms: &[(Scalar, AffinePoint)], alg: MsmAlgorithm) -> AffinePoint {
    run_public(backend, terms, alg, &mut ())
}

/// [`msm_with`] that also returns the operation counts.
pub fn msm_with_stats(
    backend: Backend,
    terms: &[(Scalar, AffinePoint)],
    alg: MsmAlgorithm,
) -> (AffinePoint, MsmStats) {
    let mut st = MsmStats::default();
    let r = run_public(backend, terms, alg, &mut st);
    (r, st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_digits_recombine() {
        let mut rng = fullverify_testkit::SplitMix64(5);
        for c in 2..=16 {
            let windows = 128 / c + 1;
            let mut d = vec![0i32; windows];
            for m in [0u128, 1, u128::MAX, 1u128 << 127, (1u128 << 127) - 1]
                .into_iter()
                .chain((0..50).map(|_| ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128))
            {
                signed_digits(m, c, &mut d);
                let half = 1i32 << (c - 1);
                assert!(d.iter().all(|&x| (-half..=half).contains(&x)));
                let acc = d.iter().enumerate().fold(num_bigint::BigInt::from(0), |acc, (j, &x)| {
                    acc + (num_bigint::BigInt::from(x) << (j * c))
                });
                assert_eq!(acc, num_bigint::BigInt::from(m), "c={c} m={m:x}");
            }
        }
    }

    #[test]
    fn window_grows_with_points() {
        let ws: Vec<usize> =
            [1, 10, 100, 1000, 10_000, 100_000].iter().map(|&n| pippenger_window(n)).collect();
        assert!(ws.windows(2).all(|p| p[0] <= p[1]), "{ws:?}");
        assert!(ws[5] > ws[0]);
    }
}
