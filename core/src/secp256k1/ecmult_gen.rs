// SPDX-License-Identifier: MIT OR Apache-2.0
//! Constant-time fixed-base multiplication k·G for signing and key generation.
//!
//! k = Σ kᵢ·16^i over 64 nibbles; a precomputed table holds j·16^i·G for every i < 64 and
//! j < 16 (j = 0 as the projective identity (0 : 1 : 0)). The result is the sum of 64 table
//! entries, each fetched by scanning all 16 candidates with conditional moves, and added with
//! the complete projective formula of Renes–Costello–Batina (2016, algorithm 7 with a = 0,
//! b3 = 3·b = 21), which has no exceptional cases, so neither the memory access pattern nor
//! the instruction sequence depends on k.

use super::field::inv;
use super::group::{Ge, Gej};
use super::scalar::Scalar;
use crate::backend::portable::field::Fe5x52;

type F = Fe5x52;

/// A projective point (X : Y : Z) standing for (X/Z, Y/Z); identity (0 : 1 : 0).
#[derive(Clone, Copy, Debug)]
struct Proj {
    x: F,
    y: F,
    z: F,
}

#[inline(always)]
fn add(a: &F, b: &F) -> F {
    a.add(b).normalize_weak()
}
#[inline(always)]
fn sub(a: &F, b: &F) -> F {
    // a, b of magnitude 1: a − b has magnitude 3 before the weak normalization.
    a.add(&b.negate(1)).normalize_weak()
}

/// Complete addition (all inputs of magnitude 1, outputs of magnitude 1).
fn proj_add(p: &Proj, q: &Proj) -> Proj {
    let (x1, y1, z1) = (&p.x, &p.y, &p.z);
    let (x2, y2, z2) = (&q.x, &q.y, &q.z);
    let mut t0 = x1.mul(x2);
    let mut t1 = y1.mul(y2);
    let mut t2 = z1.mul(z2);
    let mut t3 = add(x1, y1);
    let mut t4 = add(x2, y2);
    t3 = t3.mul(&t4);
    t4 = add(&t0, &t1);
    t3 = sub(&t3, &t4);
    t4 = add(y1, z1);
    let mut x3 = add(y2, z2);
    t4 = t4.mul(&x3);
    x3 = add(&t1, &t2);
    t4 = sub(&t4, &x3);
    x3 = add(x1, z1);
    let mut y3 = add(x2, z2);
    x3 = x3.mul(&y3);
    y3 = add(&t0, &t2);
    y3 = sub(&x3, &y3);
    x3 = add(&t0, &t0);
    t0 = add(&x3, &t0);
    t2 = t2.mul_int(21).normalize_weak();
    let mut z3 = add(&t1, &t2);
    t1 = sub(&t1, &t2);
    y3 = y3.mul_int(21).normalize_weak();
    x3 = t4.mul(&y3);
    t2 = t3.mul(&t1);
    x3 = sub(&t2, &x3);
    y3 = y3.mul(&t0);
    t1 = t1.mul(&z3);
    y3 = add(&t1, &y3);
    t0 = t0.mul(&t3);
    z3 = z3.mul(&t4);
    z3 = add(&z3, &t0);
    Proj { x: x3, y: y3, z: z3 }
}

/// 64 × 16 affine entries j·16^i·G as (x, y) pairs; j = 0 is stored as (0, 1) with Z = 0.
struct CombTable {
    e: Vec<[(F, F); 16]>,
}

fn table() -> &'static CombTable {
    static T: std::sync::OnceLock<CombTable> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut base = Ge::<F>::generator().to_gej();
        let mut jac: Vec<Gej<F>> = Vec::with_capacity(64 * 15);
        for _ in 0..64 {
            let mut cur = base;
            for _ in 1..16 {
                jac.push(cur);
                cur = cur.add_var(&base);
            }
            for _ in 0..4 {
                base = base.double_var();
            }
        }
        let mut zs: Vec<F> = jac.iter().map(|p| p.z).collect();
        super::field::batch_inv_var(&mut zs);
        let mut e = Vec::with_capacity(64);
        for i in 0..64 {
            let mut row = [(F::ZERO, F::ONE); 16];
            for (j, slot) in row.iter_mut().enumerate().skip(1) {
                let k = i * 15 + (j - 1);
                let a = jac[k].to_ge_zinv(&zs[k]);
                *slot = (a.x, a.y);
            }
            e.push(row);
        }
        CombTable { e }
    })
}

/// k·G in constant time (k = 0 gives infinity).
pub(crate) fn mul_g(k: &Scalar) -> Ge<F> {
    let t = table();
    let words = k.to_words();
    let mut r = Proj { x: F::ZERO, y: F::ONE, z: F::ZERO };
    for i in 0..64 {
        let nib = (words[i / 16] >> ((i % 16) * 4)) & 15;
        let mut x = F::ZERO;
        let mut y = F::ONE;
        let mut z = F::ZERO;
        for (j, (ex, ey)) in t.e[i].iter().enumerate() {
            // flag = (j == nib), computed without a branch.
            let d = (j as u64) ^ nib;
            let flag = (d.wrapping_sub(1) >> 63) == 1;
            x.cmov(ex, flag);
            y.cmov(ey, flag);
            z.cmov(&F::ONE, flag & (j != 0));
        }
        r = proj_add(&r, &Proj { x, y, z });
    }
    // Affine conversion with the constant-time inverse; Z = 0 exactly when k = 0.
    let zi = inv(&r.z);
    let zn = r.z.normalize();
    let out = Ge { x: r.x.mul(&zi).normalize(), y: r.y.mul(&zi).normalize(), infinity: zn.is_zero() };
    if out.infinity {
        Ge::INFINITY
    } else {
        out
    }
}
