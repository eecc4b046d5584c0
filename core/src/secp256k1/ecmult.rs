// SPDX-License-Identifier: MIT OR Apache-2.0
//! Variable-time double multiplication R = na·A + ng·G (Strauss interleaving of wNAF streams).
//!
//! - na is split by GLV into na = k1 + λ·k2 (|k1|, |k2| < 2^128), so A and λA = (β·x, y)
//!   contribute two 129-bit wNAF streams of window [`WINDOW_A`].
//! - ng = g_lo + 2^128·g_hi uses two precomputed tables of odd multiples of G and 2^128·G with
//!   window [`WINDOW_G`] (built once per backend on first use).
//! - The odd multiples A, 3A, …, (2^(w−1)−1)·A are built without any inversion: with D = 2A,
//!   they are computed on the isomorphic curve in which D is affine, then rescaled to one
//!   common Z ("global Z"). The accumulator lives in that frame too, G-table points are added
//!   with their frame Z = 1/Z_global, and the final Z is multiplied by Z_global.
//!
//! Total for 256-bit scalars: ~128 doublings and ~(2·129/(WA+1) + 2·128/(WG+1)) additions.

use super::field::{batch_inv_var, FieldOps};
use super::group::{Ge, Gej};
use super::scalar::Scalar;
use crate::backend::portable::field::Fe5x52;

/// wNAF window for the variable point A (table of 2^(w−2) = 8 odd multiples).
pub(crate) const WINDOW_A: usize = 5;
/// wNAF window for G (tables of 2^(w−2) odd multiples of G and of 2^128·G).
///
/// Sized by measurement: in sigbench A/B runs (3 alternations, 512 signatures × 15 rounds)
/// window 13 (2 × 2048 entries, 256 KiB) verified as fast as window 15 (1 MiB, libsecp256k1's
/// choice) within noise (Asm 0.87–0.91× vs 0.89–0.91× of libsecp256k1), builds 4× faster on first
/// use and leaves more cache to the rest of block validation.
pub(crate) const WINDOW_G: usize = 13;
const TABLE_A: usize = 1 << (WINDOW_A - 2);
const TABLE_G: usize = 1 << (WINDOW_G - 2);

/// β, the cube root of unity mod p with λ·(x, y) = (β·x, y).
pub(crate) fn beta<F: FieldOps>() -> F {
    F::from_u64x4([
        0xC139_6C28_7195_01EE,
        0x9CF0_4975_12F5_8995,
        0x6E64_479E_AC34_34E9,
        0x7AE9_6A2B_657C_0710,
    ])
}

/// Field backends usable by [`ecmult`] (every [`FieldOps`] type).
pub(crate) trait EcmultField: FieldOps {}
impl<F: FieldOps> EcmultField for F {}

/// An affine point in canonical little-endian words (x then y), one 64-byte cache line, so a
/// table lookup touches exactly one line. Shared by every backend (`load` converts).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct GeStorage(pub(crate) [u64; 8]);

impl GeStorage {
    /// From a finite affine point.
    pub(crate) fn from_ge<F: FieldOps>(p: &Ge<F>) -> GeStorage {
        debug_assert!(!p.infinity);
        let x = p.x.normalize().to_u64x4();
        let y = p.y.normalize().to_u64x4();
        GeStorage([x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]])
    }

    /// As a backend's affine point.
    #[inline(always)]
    pub(crate) fn load<F: FieldOps>(&self) -> Ge<F> {
        let w = &self.0;
        Ge {
            x: F::from_u64x4([w[0], w[1], w[2], w[3]]),
            y: F::from_u64x4([w[4], w[5], w[6], w[7]]),
            infinity: false,
        }
    }
}

/// Odd multiples (1, 3, …, 2^(WINDOW_G−1) − 1) of G and of 2^128·G: 2 × 2^(WINDOW_G−2) × 64
/// bytes (256 KiB at window 13), built on first use with one batch inversion.
pub(crate) struct GenTables {
    pub(crate) g: Vec<GeStorage>,
    pub(crate) g128: Vec<GeStorage>,
}

impl GenTables {
    /// Builds both tables.
    pub(crate) fn build() -> GenTables {
        let g = Ge::<Fe5x52>::generator();
        let mut h = g.to_gej();
        for _ in 0..128 {
            h = h.double_var();
        }
        let h = h.to_ge_var();
        let store = |v: Vec<Ge<Fe5x52>>| v.iter().map(GeStorage::from_ge).collect();
        GenTables {
            g: store(odd_multiples_affine(&g, TABLE_G)),
            g128: store(odd_multiples_affine(&h, TABLE_G)),
        }
    }

    /// The process-wide tables.
    pub(crate) fn get() -> &'static GenTables {
        static T: std::sync::OnceLock<GenTables> = std::sync::OnceLock::new();
        T.get_or_init(GenTables::build)
    }
}

/// [P, 3P, …, (2m−1)·P] in affine form via one batch inversion (P finite).
pub(crate) fn odd_multiples_affine<F: FieldOps>(p: &Ge<F>, m: usize) -> Vec<Ge<F>> {
    let d = p.to_gej().double_var();
    let mut jac = Vec::with_capacity(m);
    let mut cur = p.to_gej();
    jac.push(cur);
    for _ in 1..m {
        cur = cur.add_var(&d);
        jac.push(cur);
    }
    let mut zs: Vec<F> = jac.iter().map(|q| if q.infinity { F::ZERO } else { q.z }).collect();
    batch_inv_var(&mut zs);
    jac.iter()
        .zip(zs.iter())
        .map(|(q, zi)| if q.infinity { Ge::INFINITY } else { q.to_ge_zinv(zi) })
        .collect()
}

/// Maximum wNAF length for a 256-bit scalar.
pub(crate) const WNAF_MAX: usize = 257;

/// Width-w NAF of s (digits odd or zero, |d| < 2^(w−1), nonzero digits at least w apart).
/// A scalar above n/2 is treated as the negative −(n − s), so split halves give short
/// streams. Returns the length (index of the top nonzero digit + 1). Variable time.
pub(crate) fn wnaf_into(s: &Scalar, w: usize, out: &mut [i32; WNAF_MAX]) -> usize {
    debug_assert!((2..=31).contains(&w));
    let (s, sign) = if s.is_high() { (s.negate(), -1i32) } else { (*s, 1i32) };
    out.fill(0);
    let mut carry = 0u32;
    let mut bit = 0usize;
    let mut len = 0usize;
    while bit < 256 {
        if s.bits_var(bit, 1) == carry {
            bit += 1;
            continue;
        }
        let now = core::cmp::min(w, 256 - bit);
        let mut word = (s.bits_var(bit, now) + carry) as i32;
        carry = ((word >> (w - 1)) & 1) as u32;
        word -= (carry << w) as i32;
        out[bit] = sign * word;
        len = bit + 1;
        bit += now;
    }
    if carry != 0 {
        out[256] = sign;
        len = 257;
    }
    len
}

/// Width-w NAF digits of s, least significant first, trimmed to its length.
pub fn wnaf(s: &Scalar, w: usize) -> Vec<i32> {
    let mut out = [0i32; WNAF_MAX];
    let len = wnaf_into(s, w, &mut out);
    out[..len].to_vec()
}

/// Odd multiples of A sharing one Z: returns the frame-affine entries and the global Z.
/// Requires A finite.
fn odd_multiples_globalz<F: FieldOps>(a: &Ge<F>) -> ([Ge<F>; TABLE_A], F) {
    let d = a.to_gej().double_var();
    // In the frame where true Z = frame Z · d.z, D is affine and A is (x·dz², y·dz³, 1).
    let d_ge = Ge { x: d.x, y: d.y, infinity: false };
    let dz2 = d.z.sqr();
    let dz3 = dz2.mul(&d.z);
    let mut pre = [Gej::<F>::INFINITY; TABLE_A];
    let mut zr = [F::ONE; TABLE_A];
    pre[0] = Gej { x: a.x.mul(&dz2), y: a.y.mul(&dz3), z: F::ONE, infinity: false };
    for i in 1..TABLE_A {
        let (p, r) = pre[i - 1].add_ge_var(&d_ge);
        match r {
            Some(r) => {
                pre[i] = p;
                zr[i] = r;
            }
            // Impossible in a group of prime order > 2^(w); handled by the slow path anyway.
            None => return odd_multiples_fallback(a),
        }
    }
    let mut out = [Ge::<F>::INFINITY; TABLE_A];
    let last = TABLE_A - 1;
    out[last] = Ge { x: pre[last].x, y: pre[last].y, infinity: false };
    let mut zs = zr[last];
    for i in (0..last).rev() {
        let zs2 = zs.sqr();
        let zs3 = zs2.mul(&zs);
        out[i] = Ge { x: pre[i].x.mul(&zs2), y: pre[i].y.mul(&zs3), infinity: false };
        zs = zs.mul(&zr[i]);
    }
    (out, pre[last].z.mul(&d.z))
}

fn odd_multiples_fallback<F: FieldOps>(a: &Ge<F>) -> ([Ge<F>; TABLE_A], F) {
    let v = odd_multiples_affine(a, TABLE_A);
    (core::array::from_fn(|i| v[i]), F::ONE)
}

#[inline(always)]
fn gtable_get<F: FieldOps>(t: &[GeStorage], n: i32) -> Ge<F> {
    let e = t[((n.unsigned_abs() - 1) / 2) as usize].load::<F>();
    if n > 0 {
        e
    } else {
        e.neg()
    }
}

#[inline(always)]
fn table_get<F: FieldOps>(t: &[Ge<F>], n: i32) -> Ge<F> {
    let e = &t[((n.unsigned_abs() - 1) / 2) as usize];
    if n > 0 {
        *e
    } else {
        e.neg()
    }
}

/// na·A + ng·G, variable time (all inputs public).
pub(crate) fn ecmult<F: EcmultField>(a: &Ge<F>, na: &Scalar, ng: &Scalar) -> Gej<F> {
    let mut w1 = [0i32; WNAF_MAX];
    let mut w2 = [0i32; WNAF_MAX];
    let mut wg_lo = [0i32; WNAF_MAX];
    let mut wg_hi = [0i32; WNAF_MAX];
    let (mut l1, mut l2) = (0, 0);
    let mut ta = [Ge::<F>::INFINITY; TABLE_A];
    let mut tl = [Ge::<F>::INFINITY; TABLE_A];
    let mut zg = F::ONE;
    if !a.infinity && !na.is_zero() {
        let split = na.split_lambda();
        l1 = wnaf_into(&split.k1, WINDOW_A, &mut w1);
        l2 = wnaf_into(&split.k2, WINDOW_A, &mut w2);
        let (t, z) = odd_multiples_globalz(a);
        ta = t;
        zg = z;
        let b = beta::<F>();
        for i in 0..TABLE_A {
            tl[i] = Ge { x: ta[i].x.mul(&b), y: ta[i].y, infinity: false };
        }
    }
    let words = ng.to_words();
    let g_lo = Scalar::from_words_reduce([words[0], words[1], 0, 0]).0;
    let g_hi = Scalar::from_words_reduce([words[2], words[3], 0, 0]).0;
    let lg_lo = wnaf_into(&g_lo, WINDOW_G, &mut wg_lo);
    let lg_hi = wnaf_into(&g_hi, WINDOW_G, &mut wg_hi);
    let gt = GenTables::get();
    let bits = l1.max(l2).max(lg_lo).max(lg_hi);
    let mut r = Gej::<F>::INFINITY;
    for i in (0..bits).rev() {
        r = r.double_var();
        let n = w1[i];
        if n != 0 {
            r = r.add_ge_var(&table_get(&ta, n)).0;
        }
        let n = w2[i];
        if n != 0 {
            r = r.add_ge_var(&table_get(&tl, n)).0;
        }
        let n = wg_lo[i];
        if n != 0 {
            r = r.add_zinv_var(&gtable_get(&gt.g, n), &zg);
        }
        let n = wg_hi[i];
        if n != 0 {
            r = r.add_zinv_var(&gtable_get(&gt.g128, n), &zg);
        }
    }
    if !r.infinity {
        r.z = r.z.mul(&zg);
    }
    r
}
