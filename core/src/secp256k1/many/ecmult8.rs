// SPDX-License-Identifier: MIT OR Apache-2.0
//! The eight-way engine: R = na·A + ng·G on eight lanes at once, with signed fixed windows
//! (every lane adds at the same bit positions), a global-Z table of A and static tables of G.

use super::fe8::Fe8;
use crate::backend::portable::field::Fe5x52;
use crate::secp256k1::field::batch_inv_var;
use crate::secp256k1::group::{Ge, Gej};
use crate::secp256k1::scalar::Scalar;

/// Window of the variable point A.
pub(crate) const WA: u32 = 5;
/// Window of G.
pub(crate) const WG: u32 = 12;
const TA: usize = 1 << (WA - 1);
const TG: usize = 1 << (WG - 1);
/// Windows per 128-bit half (the top window of each absorbs the last carry).
const NWA: usize = 128usize.div_ceil(WA as usize) + 1;
const NWG: usize = 128usize.div_ceil(WG as usize);

/// A table of TA affine points (x, y), one per lane.
type TableX8<V> = [(V, V); TA];

/// Eight Jacobian points (infinity is tracked by the caller, as a lane mask).
#[derive(Clone, Copy)]
pub(crate) struct GejX8<V: Fe8> {
    pub(crate) x: V,
    pub(crate) y: V,
    pub(crate) z: V,
}

#[allow(clippy::wrong_self_convention)]
impl<V: Fe8> GejX8<V> {
    /// 2P in every lane (a = 0): 4 squarings, 3 multiplications.
    #[inline(always)]
    pub(crate) fn double(&self) -> Self {
        let y2 = self.y.sqr();
        let s = self.x.mul(&y2).mul_pow2::<2>();
        let z = self.y.mul(&self.z).mul_pow2::<1>();
        let m = self.x.sqr().mul3();
        let y4_8 = y2.sqr().mul_pow2::<3>();
        let x = m.sqr().sub(&s.mul_pow2::<1>());
        let y = m.mul(&s.sub(&x)).sub(&y4_8);
        GejX8 { x, y, z }
    }

    /// P + (bx, by) with the second point affine (Z = 1): 3 squarings, 8 multiplications.
    /// Returns the z-ratio H too. H = 0 (equal or opposite points) gives Z = 0.
    #[inline(always)]
    pub(crate) fn add_affine(&self, bx: &V, by: &V) -> (Self, V) {
        let z12 = self.z.sqr();
        let u2 = bx.mul(&z12);
        let s2 = by.mul(&z12).mul(&self.z);
        self.add_finish(&u2, &s2, &self.z)
    }

    /// P + Q where Q's coordinates are (bx, by, 1/bzinv): 3 squarings, 9 multiplications.
    #[inline(always)]
    pub(crate) fn add_zinv(&self, bx: &V, by: &V, bzinv: &V) -> Self {
        let az = self.z.mul(bzinv);
        let z12 = az.sqr();
        let u2 = bx.mul(&z12);
        let s2 = by.mul(&z12).mul(&az);
        self.add_finish(&u2, &s2, &self.z).0
    }

    #[inline(always)]
    fn add_finish(&self, u2: &V, s2: &V, z: &V) -> (Self, V) {
        let (u1, s1) = (&self.x, &self.y);
        let h = u2.sub(u1);
        let i = s2.sub(s1);
        let h2 = h.sqr();
        let h3 = h2.mul(&h);
        let t = u1.mul(&h2);
        let z3 = z.mul(&h);
        let x3 = i.sqr().sub(&h3).sub(&t.mul_pow2::<1>());
        let y3 = i.mul(&t.sub(&x3)).sub(&s1.mul(&h3));
        (GejX8 { x: x3, y: y3, z: z3 }, h)
    }

    /// Lane i from `b` where bit i of `m` is set.
    #[inline(always)]
    fn blend(&self, m: u8, b: &Self) -> Self {
        GejX8 { x: self.x.blend(m, &b.x), y: self.y.blend(m, &b.y), z: self.z.blend(m, &b.z) }
    }

    /// Lane i as a portable Jacobian point (`infinity` from bit i of `inf`).
    #[inline(always)]
    pub(crate) fn to_lanes(&self, inf: u8) -> [Gej<Fe5x52>; 8] {
        let (x, y, z) = (self.x.to_lanes(), self.y.to_lanes(), self.z.to_lanes());
        core::array::from_fn(|i| Gej { x: x[i], y: y[i], z: z[i], infinity: (inf >> i) & 1 == 1 })
    }
}

/// Static tables of 1…2^(WG−1) times G and 2^128·G, affine, canonical 52-bit limbs:
/// entry e at `[10e, 10e + 10)` (x limbs then y limbs).
pub(crate) struct GenTables8 {
    g: Vec<u64>,
    g128: Vec<u64>,
}

impl GenTables8 {
    fn build() -> GenTables8 {
        let g = Ge::<Fe5x52>::generator();
        let mut h = g.to_gej();
        for _ in 0..128 {
            h = h.double_var();
        }
        let h = h.to_ge_var();
        GenTables8 { g: multiples_flat(&g, TG), g128: multiples_flat(&h, TG) }
    }

    /// The process-wide tables (built on first use, 2 × 160 KiB).
    pub(crate) fn get() -> &'static GenTables8 {
        static T: std::sync::OnceLock<GenTables8> = std::sync::OnceLock::new();
        T.get_or_init(GenTables8::build)
    }
}

/// [P, 2P, …, mP] affine (one batch inversion), flattened as 10 limbs per entry.
fn multiples_flat(p: &Ge<Fe5x52>, m: usize) -> Vec<u64> {
    let mut jac = Vec::with_capacity(m);
    let mut cur = p.to_gej();
    jac.push(cur);
    for _ in 1..m {
        cur = cur.add_ge_var(p).0;
        jac.push(cur);
    }
    let mut zs: Vec<Fe5x52> = jac.iter().map(|q| q.z).collect();
    batch_inv_var(&mut zs);
    let mut out = Vec::with_capacity(10 * m);
    for (q, zi) in jac.iter().zip(zs.iter()) {
        assert!(!q.infinity, "small multiples of a point of prime order are finite");
        let a = q.to_ge_zinv(zi);
        out.extend_from_slice(&a.x.normalize().0);
        out.extend_from_slice(&a.y.normalize().0);
    }
    out
}

/// Signed fixed-window digits of a 128-bit magnitude times `sign`: v = Σ d_j·2^(wj),
/// d_j ∈ [−2^(w−1), 2^(w−1)). The last window never carries out (v < 2^128 and
/// `nwin·w ≥ 129`).
fn recode<const NW: usize>(v: u128, sign: i32, w: u32) -> [i32; NW] {
    let mut out = [0i32; NW];
    let mut carry = 0i32;
    let half = 1i32 << (w - 1);
    for (j, o) in out.iter_mut().enumerate() {
        let sh = j as u32 * w;
        let bits = if sh >= 128 { 0 } else { ((v >> sh) as u32 & ((1u32 << w) - 1)) as i32 };
        let mut d = bits + carry;
        carry = 0;
        if d >= half {
            d -= 1 << w;
            carry = 1;
        }
        *o = sign * d;
    }
    debug_assert_eq!(carry, 0);
    out
}

/// A scalar that is short as a signed value (|k| < 2^128) as magnitude and sign; `None` when
/// it is not short.
fn short_signed(k: &Scalar) -> Option<(u128, i32)> {
    let (m, sign) = if k.is_high() { (k.negate(), -1) } else { (*k, 1) };
    let w = m.to_words();
    if w[2] | w[3] != 0 {
        return None;
    }
    Some((w[0] as u128 | (w[1] as u128) << 64, sign))
}

/// One lane's input to [`ecmult8`]: R = na·A + ng·G.
#[derive(Clone, Copy)]
pub(crate) struct Ecmult8Input {
    /// A, finite, normalized.
    pub(crate) a: Ge<Fe5x52>,
    pub(crate) na: Scalar,
    pub(crate) ng: Scalar,
}

/// Digits of one lane, or `None` when the lane must take the scalar path (GLV fallback).
struct LaneDigits {
    k1: [i32; NWA],
    k2: [i32; NWA],
    glo: [i32; NWG],
    ghi: [i32; NWG],
}

fn lane_digits(na: &Scalar, ng: &Scalar) -> Option<LaneDigits> {
    let split = na.split_lambda();
    if split.fallback {
        return None;
    }
    let (v1, s1) = short_signed(&split.k1)?;
    let (v2, s2) = short_signed(&split.k2)?;
    let w = ng.to_words();
    Some(LaneDigits {
        k1: recode(v1, s1, WA),
        k2: recode(v2, s2, WA),
        glo: recode(w[0] as u128 | (w[1] as u128) << 64, 1, WG),
        ghi: recode(w[2] as u128 | (w[3] as u128) << 64, 1, WG),
    })
}

/// Masks and gather offsets for one window of eight lanes: (nonzero, negative, entry index).
#[inline(always)]
fn digit_masks(d: [i32; 8]) -> (u8, u8, [u64; 8]) {
    let mut nz = 0u8;
    let mut neg = 0u8;
    let mut idx = [0u64; 8];
    for i in 0..8 {
        nz |= ((d[i] != 0) as u8) << i;
        neg |= ((d[i] < 0) as u8) << i;
        idx[i] = d[i].unsigned_abs().saturating_sub(1) as u64;
    }
    (nz, neg, idx)
}

/// The table of A (or λA) flattened for gathers: entry e, word w (x then y, `TABLE_WORDS`
/// each), lane l at `(2·TABLE_WORDS·e + w)·8 + l`.
#[inline(always)]
fn flatten_table<V: Fe8>(t: &TableX8<V>) -> Vec<u64> {
    let mut out = Vec::with_capacity(TA * 16 * V::TABLE_WORDS);
    for (x, y) in t {
        x.write_table(&mut out);
        y.write_table(&mut out);
    }
    out
}

/// Lane l's entry `idx[l]` of a per-lane table (see [`flatten_table`]).
#[inline(always)]
fn lookup_lanes<V: Fe8>(t: &[u64], idx: &[u64; 8]) -> (V, V) {
    let w = V::TABLE_WORDS;
    let base: [u64; 8] = core::array::from_fn(|l| idx[l] * (16 * w) as u64 + l as u64);
    (V::read_table(t, &base), V::read_table(&t[8 * w..], &base))
}

/// Entry `idx[l]` of a shared table (see [`GenTables8`]) in lane l.
#[inline(always)]
fn lookup_shared<V: Fe8>(t: &[u64], idx: &[u64; 8]) -> (V, V) {
    let base: [u64; 8] = core::array::from_fn(|l| idx[l] * 10);
    (V::read_limbs52(t, &base), V::read_limbs52(&t[5..], &base))
}

/// 1…TA times A per lane in the global-Z frame, and Z_global.
#[inline(always)]
fn a_table<V: Fe8>(ax: &V, ay: &V) -> (TableX8<V>, V) {
    let one = V::one();
    let a = GejX8 { x: *ax, y: *ay, z: one };
    let mut pre = [a; TA];
    let mut zr = [one; TA];
    pre[1] = a.double();
    zr[1] = pre[1].z;
    for i in 2..TA {
        let (p, h) = pre[i - 1].add_affine(ax, ay);
        pre[i] = p;
        zr[i] = h;
    }
    let mut out = [(one, one); TA];
    let last = TA - 1;
    out[last] = (pre[last].x, pre[last].y);
    let mut zs = zr[last];
    for i in (0..last).rev() {
        let zs2 = zs.sqr();
        let zs3 = zs2.mul(&zs);
        out[i] = (pre[i].x.mul(&zs2), pre[i].y.mul(&zs3));
        if i > 0 {
            zs = zs.mul(&zr[i]);
        }
    }
    (out, pre[last].z)
}

/// The result of [`ecmult8`] in portable form: eight Jacobian points (true Z; `infinity` set
/// on the lanes that are infinity), and the lanes whose digits could not be formed (to be done
/// by the scalar code).
pub(crate) struct Ecmult8Output {
    pub(crate) r: [Gej<Fe5x52>; 8],
    pub(crate) scalar_lanes: u8,
}

/// na·A + ng·G in each of eight lanes of the field `V`. A lane whose result has Z ≡ 0 met an
/// exceptional addition and must be recomputed by the scalar code (see the module
/// documentation). Inlined into one `#[target_feature]` function per register type (and into
/// one plain function per lane model in the tests), which the verifiers call.
#[inline(always)]
pub(crate) fn ecmult8<V: Fe8>(inp: &[Ecmult8Input; 8]) -> Ecmult8Output {
    let mut scalar_lanes = 0u8;
    let mut digits: [LaneDigits; 8] =
        core::array::from_fn(|_| LaneDigits { k1: [0; NWA], k2: [0; NWA], glo: [0; NWG], ghi: [0; NWG] });
    for (i, x) in inp.iter().enumerate() {
        match lane_digits(&x.na, &x.ng) {
            Some(d) => digits[i] = d,
            None => scalar_lanes |= 1 << i,
        }
    }
    let ax = V::from_lanes(&core::array::from_fn(|i| inp[i].a.x));
    let ay = V::from_lanes(&core::array::from_fn(|i| inp[i].a.y));
    let (ta, zg) = a_table(&ax, &ay);
    let beta = V::splat(&crate::secp256k1::ecmult::beta::<Fe5x52>());
    // Plain loops, not closures, keep the kernels inside the caller's target features.
    let mut tl = ta;
    for e in tl.iter_mut() {
        e.0 = e.0.mul(&beta);
    }
    let ta = flatten_table(&ta);
    let tl = flatten_table(&tl);
    let gt = GenTables8::get();

    let mut r = GejX8 { x: V::zero(), y: V::zero(), z: V::one() };
    let mut inf = 0xFFu8;
    let top = ((NWA - 1) * WA as usize).max((NWG - 1) * WG as usize);
    for bit in (0..=top).rev() {
        if inf != 0xFF {
            r = r.double();
        }
        if bit % WA as usize == 0 {
            let j = bit / WA as usize;
            for (tab, stream) in [(&ta, 0), (&tl, 1)] {
                let d = core::array::from_fn(|l| if stream == 0 { digits[l].k1[j] } else { digits[l].k2[j] });
                let (nz, neg, idx) = digit_masks(d);
                if nz == 0 {
                    continue;
                }
                let (bx, by) = lookup_lanes::<V>(tab, &idx);
                let by = by.blend(neg, &by.neg());
                let (sum, _) = r.add_affine(&bx, &by);
                r = r.blend(nz & !inf, &sum);
                let fresh = nz & inf;
                if fresh != 0 {
                    r = r.blend(fresh, &GejX8 { x: bx, y: by, z: V::one() });
                }
                inf &= !nz;
            }
        }
        if bit % WG as usize == 0 {
            let j = bit / WG as usize;
            for (tab, stream) in [(&gt.g, 0), (&gt.g128, 1)] {
                let d =
                    core::array::from_fn(|l| if stream == 0 { digits[l].glo[j] } else { digits[l].ghi[j] });
                let (nz, neg, idx) = digit_masks(d);
                if nz == 0 {
                    continue;
                }
                let (bx, by) = lookup_shared::<V>(tab, &idx);
                let by = by.blend(neg, &by.neg());
                let sum = r.add_zinv(&bx, &by, &zg);
                r = r.blend(nz & !inf, &sum);
                let fresh = nz & inf;
                if fresh != 0 {
                    let z2 = zg.sqr();
                    let z3 = z2.mul(&zg);
                    r = r.blend(fresh, &GejX8 { x: bx.mul(&z2), y: by.mul(&z3), z: V::one() });
                }
                inf &= !nz;
            }
        }
    }
    r.z = r.z.mul(&zg);
    Ecmult8Output { r: r.to_lanes(inf), scalar_lanes }
}

/// Whether lane `i` of `out` holds a usable result: finite and Z ≠ 0 (no exceptional
/// addition), with digits formed; the portable point when so.
pub(crate) fn lane_result(out: &Ecmult8Output, i: usize) -> Option<Gej<Fe5x52>> {
    let p = out.r[i];
    if (out.scalar_lanes >> i) & 1 == 1 || p.infinity || p.z.normalizes_to_zero_var() {
        return None;
    }
    Some(p)
}

/// [`ecmult8`] on AVX-512 IFMA registers: the one copy of the engine for them, compiled with
/// the features enabled so that the lane operations inline as single instructions.
///
/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[inline(never)]
pub(crate) unsafe fn ecmult8_ifma(inp: &[Ecmult8Input; 8]) -> Ecmult8Output {
    use crate::backend::ifma::{field::Fe5x52x8, lanes::Ifma};
    ecmult8::<Fe5x52x8<Ifma>>(inp)
}

/// [`ecmult8`] on pairs of AVX2 registers (`Fe10x26x8`): the one copy of the engine for them.
///
/// # Safety
/// The CPU must have AVX2, BMI2 and ADX (an Avx2 token).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2,adx")]
#[inline(never)]
pub(crate) unsafe fn ecmult8_avx2(inp: &[Ecmult8Input; 8]) -> Ecmult8Output {
    use crate::backend::avx2::{field::Fe10x26x8, lanes::Avx2};
    ecmult8::<Fe10x26x8<Avx2>>(inp)
}
