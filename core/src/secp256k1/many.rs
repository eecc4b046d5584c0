// SPDX-License-Identifier: MIT OR Apache-2.0
//! Eight-way verification: eight independent ECDSA or BIP340 verifications side by side, one
//! per lane of [`Fe5x52x8`] (the IFMA backend's field), generic over the lane type so that
//! the same code runs on AVX-512 IFMA registers and on the portable `[u64; 8]` model.
//!
//! Per lane the work is that of `ecmult`: R = na·A + ng·G with na = k1 + λ·k2 (GLV) and
//! ng = g_lo + 2^128·g_hi. Scalar work (inverse of s, the challenge hash, the GLV split and
//! the digit recoding) stays scalar, lane by lane. The point arithmetic runs eight-wide, which
//! asks for the same instruction stream in every lane, so the digits are *signed fixed
//! windows* rather than wNAF: every scalar is written as Σ d_j·2^(wj) with
//! d_j ∈ [−2^(w−1), 2^(w−1)), and all lanes add at the same bit positions; a lane whose digit
//! is zero keeps its value through a blend. A uses w = [`WA`] (tables of 1…16 times A and λA,
//! 26 windows per 128-bit half), G uses w = [`WG`] (two static tables of 1…2048 times G and
//! 2^128·G, 11 windows per half): 125 doublings and 74 additions per batch of eight.
//!
//! The table of A is built without inversion on the curve isomorphic to E in which its last
//! entry is affine ("global Z", as in `ecmult`): the accumulator lives in that frame, G's
//! points enter with Z = 1/Z_global, and the final Z is multiplied by Z_global.
//!
//! Exceptional cases are not handled eight-wide. An addition of two equal or opposite points
//! (H = 0) makes Z zero, and Z stays zero through every later formula; a lane whose final Z is
//! zero, whose result is infinity, or whose GLV split fell back, is verified again by the
//! scalar code, so every answer is exactly the scalar verifier's. All of this is variable
//! time: verification inputs are public.

use super::ecdsa::Signature;
use super::ecmult::EcmultField;
use super::field::{batch_inv_var, FieldOps};
use super::group::{Ge, Gej};
use super::scalar::{Scalar, N};
use super::{PublicKey, XOnlyPublicKey};
use crate::backend::ifma::field::Fe5x52x8;
use crate::backend::ifma::lanes::Lanes;
use crate::backend::portable::field::Fe5x52;
use crate::backend::Backend;

/// Window of the variable point A.
pub(crate) const WA: u32 = 5;
/// Window of G.
pub(crate) const WG: u32 = 12;
const TA: usize = 1 << (WA - 1);
const TG: usize = 1 << (WG - 1);
/// Windows per 128-bit half (the top window of each absorbs the last carry).
const NWA: usize = 128usize.div_ceil(WA as usize) + 1;
const NWG: usize = 128usize.div_ceil(WG as usize);

type Fe<L> = Fe5x52x8<L>;
/// A table of TA affine points (x, y), one per lane.
type TableX8<L> = [(Fe<L>, Fe<L>); TA];

/// Eight Jacobian points (infinity is tracked by the caller, as a lane mask).
#[derive(Clone, Copy)]
pub(crate) struct GejX8<L: Lanes> {
    pub(crate) x: Fe<L>,
    pub(crate) y: Fe<L>,
    pub(crate) z: Fe<L>,
}

#[allow(clippy::wrong_self_convention)]
impl<L: Lanes> GejX8<L> {
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
    pub(crate) fn add_affine(&self, bx: &Fe<L>, by: &Fe<L>) -> (Self, Fe<L>) {
        let z12 = self.z.sqr();
        let u2 = bx.mul(&z12);
        let s2 = by.mul(&z12).mul(&self.z);
        self.add_finish(&u2, &s2, &self.z)
    }

    /// P + Q where Q's coordinates are (bx, by, 1/bzinv): 3 squarings, 9 multiplications.
    #[inline(always)]
    pub(crate) fn add_zinv(&self, bx: &Fe<L>, by: &Fe<L>, bzinv: &Fe<L>) -> Self {
        let az = self.z.mul(bzinv);
        let z12 = az.sqr();
        let u2 = bx.mul(&z12);
        let s2 = by.mul(&z12).mul(&az);
        self.add_finish(&u2, &s2, &self.z).0
    }

    #[inline(always)]
    fn add_finish(&self, u2: &Fe<L>, s2: &Fe<L>, z: &Fe<L>) -> (Self, Fe<L>) {
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

/// The table of A (or λA) flattened for gathers: entry e, limb k (x then y), lane l at
/// `(10e + k)·8 + l`.
#[inline(always)]
fn flatten_table<L: Lanes>(t: &TableX8<L>) -> Vec<u64> {
    let mut out = Vec::with_capacity(TA * 80);
    for (x, y) in t {
        for c in x.l.iter().chain(y.l.iter()) {
            out.extend_from_slice(&c.to_array());
        }
    }
    out
}

/// Lane l's entry `idx[l]` of a per-lane table (see [`flatten_table`]).
#[inline(always)]
fn lookup_lanes<L: Lanes>(t: &[u64], idx: &[u64; 8]) -> (Fe<L>, Fe<L>) {
    let base = L::from_array(core::array::from_fn(|l| idx[l] * 80 + l as u64));
    let (mut x, mut y) = ([base; 5], [base; 5]);
    for k in 0..5 {
        x[k] = L::gather(&t[k * 8..], base);
        y[k] = L::gather(&t[(k + 5) * 8..], base);
    }
    (Fe5x52x8 { l: x }, Fe5x52x8 { l: y })
}

/// Entry `idx[l]` of a shared table (see [`GenTables8`]) in lane l.
#[inline(always)]
fn lookup_shared<L: Lanes>(t: &[u64], idx: &[u64; 8]) -> (Fe<L>, Fe<L>) {
    let base = L::from_array(core::array::from_fn(|l| idx[l] * 10));
    let (mut x, mut y) = ([base; 5], [base; 5]);
    for k in 0..5 {
        x[k] = L::gather(&t[k..], base);
        y[k] = L::gather(&t[k + 5..], base);
    }
    (Fe5x52x8 { l: x }, Fe5x52x8 { l: y })
}

/// 1…TA times A per lane in the global-Z frame, and Z_global.
#[inline(always)]
fn a_table<L: Lanes>(ax: &Fe<L>, ay: &Fe<L>) -> (TableX8<L>, Fe<L>) {
    let one = Fe::<L>::one();
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

/// The result of [`ecmult8`]: eight Jacobian points (true Z), the lanes that are infinity,
/// and the lanes whose digits could not be formed (to be done by the scalar code).
pub(crate) struct Ecmult8Output<L: Lanes> {
    pub(crate) r: GejX8<L>,
    pub(crate) inf: u8,
    pub(crate) scalar_lanes: u8,
}

/// na·A + ng·G in each of eight lanes. A lane whose result has Z ≡ 0 met an exceptional
/// addition and must be recomputed by the scalar code (see the module documentation).
#[inline(always)]
pub(crate) fn ecmult8<L: Lanes>(inp: &[Ecmult8Input; 8]) -> Ecmult8Output<L> {
    let mut scalar_lanes = 0u8;
    let mut digits: [LaneDigits; 8] =
        core::array::from_fn(|_| LaneDigits { k1: [0; NWA], k2: [0; NWA], glo: [0; NWG], ghi: [0; NWG] });
    for (i, x) in inp.iter().enumerate() {
        match lane_digits(&x.na, &x.ng) {
            Some(d) => digits[i] = d,
            None => scalar_lanes |= 1 << i,
        }
    }
    let ax = Fe::<L>::from_lanes(&core::array::from_fn(|i| inp[i].a.x));
    let ay = Fe::<L>::from_lanes(&core::array::from_fn(|i| inp[i].a.y));
    let (ta, zg) = a_table(&ax, &ay);
    let beta = Fe::<L>::splat(&super::ecmult::beta::<Fe5x52>());
    // Plain loops, not closures, keep the kernels inside the caller's target features.
    let mut tl = ta;
    for e in tl.iter_mut() {
        e.0 = e.0.mul(&beta);
    }
    let ta = flatten_table(&ta);
    let tl = flatten_table(&tl);
    let gt = GenTables8::get();

    let mut r = GejX8 { x: Fe::<L>::zero(), y: Fe::<L>::zero(), z: Fe::<L>::one() };
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
                let (bx, by) = lookup_lanes::<L>(tab, &idx);
                let by = by.blend(neg, &by.neg());
                let (sum, _) = r.add_affine(&bx, &by);
                r = r.blend(nz & !inf, &sum);
                let fresh = nz & inf;
                if fresh != 0 {
                    r = r.blend(fresh, &GejX8 { x: bx, y: by, z: Fe::<L>::one() });
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
                let (bx, by) = lookup_shared::<L>(tab, &idx);
                let by = by.blend(neg, &by.neg());
                let sum = r.add_zinv(&bx, &by, &zg);
                r = r.blend(nz & !inf, &sum);
                let fresh = nz & inf;
                if fresh != 0 {
                    let z2 = zg.sqr();
                    let z3 = z2.mul(&zg);
                    r = r.blend(fresh, &GejX8 { x: bx.mul(&z2), y: by.mul(&z3), z: Fe::<L>::one() });
                }
                inf &= !nz;
            }
        }
    }
    r.z = r.z.mul(&zg);
    Ecmult8Output { r, inf, scalar_lanes }
}

/// Whether lane `i` of `out` holds a usable result: finite and Z ≠ 0 (no exceptional
/// addition), with digits formed; the portable point when so.
fn lane_result<L: Lanes>(out: &Ecmult8Output<L>, lanes: &[Gej<Fe5x52>; 8], i: usize) -> Option<Gej<Fe5x52>> {
    let p = lanes[i];
    if (out.scalar_lanes >> i) & 1 == 1 || p.infinity || p.z.normalizes_to_zero_var() {
        return None;
    }
    Some(p)
}

/// One ECDSA item: key, 32-byte message hash, signature (the arguments of `ecdsa::verify`).
pub(crate) type EcdsaItem<'a> = (&'a PublicKey, &'a [u8; 32], &'a Signature);
/// One BIP340 item: x-only key, message, 64-byte signature (the arguments of
/// `schnorr::verify`).
pub(crate) type SchnorrItem<'a> = (&'a XOnlyPublicKey, &'a [u8], &'a [u8; 64]);

/// x(R) ≡ r (mod n) for a finite R with Z ≠ 0: the tail of `ecdsa::verify_generic`.
fn ecdsa_x_matches(rp: &Gej<Fe5x52>, r: &Scalar) -> bool {
    let rw = r.to_words();
    if rp.x_eq_var(&Fe5x52::from_u64x4(rw)) {
        return true;
    }
    // r + n as a field element, when it is below p.
    let mut w = [0u64; 4];
    let mut carry = 0u128;
    for i in 0..4 {
        let t = rw[i] as u128 + N[i] as u128 + carry;
        w[i] = t as u64;
        carry = t >> 64;
    }
    if carry != 0 || super::field::words_ge(&w, &super::field::P_WORDS) {
        return false;
    }
    rp.x_eq_var(&Fe5x52::from_u64x4(w))
}

/// Eight ECDSA verifications; `F` is the scalar field used for lanes that need the scalar
/// path. Identical to `ecdsa::verify_generic::<F>` on each item.
#[inline(always)]
pub(crate) fn ecdsa_verify8<L: Lanes, F: EcmultField>(items: &[EcdsaItem<'_>; 8]) -> [bool; 8] {
    let mut res = [false; 8];
    let mut active = 0u8;
    let dummy = Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE };
    let mut inp = [dummy; 8];
    // The lanes' s⁻¹ by one inversion (Montgomery's trick): prefix[k] is the product of the
    // first k active s values.
    let mut prefix = [Scalar::ONE; 9];
    let mut n = 0;
    for (pk, _, sig) in items.iter() {
        if sig.r.is_zero() || sig.s.is_zero() || pk.0.infinity {
            continue;
        }
        prefix[n + 1] = prefix[n].mul(&sig.s);
        n += 1;
    }
    let mut inv = prefix[n].inv_vartime();
    let mut sinvs = [Scalar::ZERO; 8];
    let mut k = n;
    for (i, (pk, _, sig)) in items.iter().enumerate().rev() {
        if sig.r.is_zero() || sig.s.is_zero() || pk.0.infinity {
            continue;
        }
        k -= 1;
        sinvs[i] = inv.mul(&prefix[k]);
        inv = inv.mul(&sig.s);
    }
    for (i, (pk, msg32, sig)) in items.iter().enumerate() {
        if sig.r.is_zero() || sig.s.is_zero() || pk.0.infinity {
            continue;
        }
        let z = Scalar::from_bytes_reduce(msg32).0;
        let sinv = sinvs[i];
        inp[i] = Ecmult8Input { a: pk.0.normalize(), na: sig.r.mul(&sinv), ng: z.mul(&sinv) };
        active |= 1 << i;
    }
    let out = ecmult8::<L>(&inp);
    let lanes = out.r.to_lanes(out.inf);
    for (i, (pk, msg32, sig)) in items.iter().enumerate() {
        if (active >> i) & 1 == 0 {
            continue;
        }
        res[i] = match lane_result(&out, &lanes, i) {
            Some(p) => ecdsa_x_matches(&p, &sig.r),
            None => super::ecdsa::verify_generic::<F>(&Ge::from_portable(&pk.0), msg32, sig),
        };
    }
    res
}

/// Eight BIP340 verifications; identical to `schnorr::verify_generic::<F>` on each item.
#[inline(always)]
pub(crate) fn schnorr_verify8<L: Lanes, F: EcmultField>(items: &[SchnorrItem<'_>; 8]) -> [bool; 8] {
    let mut res = [false; 8];
    let mut active = 0u8;
    let dummy = Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE };
    let mut inp = [dummy; 8];
    let mut rxs = [Fe5x52::ZERO; 8];
    let mut pkx = [[0u8; 32]; 8];
    for (i, (pk, msg, sig)) in items.iter().enumerate() {
        let r_bytes: &[u8; 32] = sig[..32].try_into().unwrap();
        let Some(rx) = Fe5x52::from_be_bytes(r_bytes) else { continue };
        let Ok(s) = Scalar::from_bytes(sig[32..].try_into().unwrap()) else { continue };
        pkx[i] = pk.serialize();
        let e = super::schnorr::challenge(r_bytes, &pkx[i], msg);
        rxs[i] = rx;
        inp[i] = Ecmult8Input { a: pk.0.normalize(), na: e.negate(), ng: s };
        active |= 1 << i;
    }
    let out = ecmult8::<L>(&inp);
    let lanes = out.r.to_lanes(out.inf);
    // Lanes whose x matches still need the parity of y: one shared inversion.
    let mut need_y: Vec<usize> = Vec::with_capacity(8);
    for (i, (pk, msg, sig)) in items.iter().enumerate() {
        if (active >> i) & 1 == 0 {
            continue;
        }
        match lane_result(&out, &lanes, i) {
            Some(p) => {
                if p.x_eq_var(&rxs[i]) {
                    need_y.push(i);
                }
            }
            None => {
                res[i] = super::schnorr::verify_generic::<F>(&Ge::from_portable(&pk.0), &pkx[i], msg, sig)
            }
        }
    }
    let mut zs: Vec<Fe5x52> = need_y.iter().map(|&i| lanes[i].z).collect();
    batch_inv_var(&mut zs);
    for (&i, zi) in need_y.iter().zip(zs.iter()) {
        let y = lanes[i].y.mul(&zi.sqr().mul(zi)).normalize();
        res[i] = !y.is_odd();
    }
    res
}

/// A remainder of at least this many items (of 1…7) runs as one eight-lane group with idle
/// lanes: one group costs about two scalar verifications.
const MIN_PADDED: usize = 3;

/// [`ecdsa_verify8`] over chunks of eight; 3…7 items left over run as one group with idle
/// lanes, 1 or 2 go to the scalar code.
#[inline(always)]
pub(crate) fn ecdsa_verify_many_lanes<L: Lanes, F: EcmultField>(items: &[EcdsaItem<'_>]) -> Vec<bool> {
    let mut out = Vec::with_capacity(items.len());
    let mut chunks = items.chunks_exact(8);
    for c in &mut chunks {
        out.extend_from_slice(&ecdsa_verify8::<L, F>(c.try_into().unwrap()));
    }
    let rest = chunks.remainder();
    if rest.len() >= MIN_PADDED {
        // Idle lanes get r = 0, which leaves them out of the eight-way work.
        let idle = Signature { r: Scalar::ZERO, s: Scalar::ZERO };
        let mut group: [EcdsaItem<'_>; 8] = [(rest[0].0, rest[0].1, &idle); 8];
        group[..rest.len()].copy_from_slice(rest);
        out.extend_from_slice(&ecdsa_verify8::<L, F>(&group)[..rest.len()]);
        return out;
    }
    for (pk, msg32, sig) in rest {
        out.push(super::ecdsa::verify_generic::<F>(&Ge::from_portable(&pk.0), msg32, sig));
    }
    out
}

/// [`schnorr_verify8`] over chunks of eight; a remainder as in [`ecdsa_verify_many_lanes`].
#[inline(always)]
pub(crate) fn schnorr_verify_many_lanes<L: Lanes, F: EcmultField>(items: &[SchnorrItem<'_>]) -> Vec<bool> {
    let mut out = Vec::with_capacity(items.len());
    let mut chunks = items.chunks_exact(8);
    for c in &mut chunks {
        out.extend_from_slice(&schnorr_verify8::<L, F>(c.try_into().unwrap()));
    }
    let rest = chunks.remainder();
    if rest.len() >= MIN_PADDED {
        // Idle lanes get an R above p, which leaves them out of the eight-way work.
        const IDLE: [u8; 64] = [0xff; 64];
        let mut group: [SchnorrItem<'_>; 8] = [(rest[0].0, rest[0].1, &IDLE); 8];
        group[..rest.len()].copy_from_slice(rest);
        out.extend_from_slice(&schnorr_verify8::<L, F>(&group)[..rest.len()]);
        return out;
    }
    for (pk, msg, sig) in rest {
        let px = pk.serialize();
        out.push(super::schnorr::verify_generic::<F>(&Ge::from_portable(&pk.0), &px, msg, sig));
    }
    out
}

/// Eight curve points from their x coordinates (canonical, below p) and the wanted parity of
/// y: the square roots of x³ + 7 on all lanes at once; `None` where x³ + 7 is not a square.
/// Identical to `Ge::from_x` on each lane.
#[inline(always)]
pub(crate) fn from_x8<L: Lanes>(xs: &[Fe5x52; 8], odd: [bool; 8]) -> [Option<Ge<Fe5x52>>; 8] {
    let c: [Fe5x52; 8] =
        core::array::from_fn(|i| xs[i].sqr().mul(&xs[i]).add(&Fe5x52::from_u64x4([7, 0, 0, 0])).normalize());
    let r = Fe5x52x8::<L>::from_lanes(&c).pow_p1_4().to_lanes();
    core::array::from_fn(|i| {
        if !r[i].sqr().eq_var(&c[i]) {
            return None;
        }
        let y = r[i].normalize();
        let y = if y.is_odd() != odd[i] { y.negate(1).normalize() } else { y };
        Some(Ge { x: xs[i].normalize(), y, infinity: false })
    })
}

/// [`from_x8`] over every item: groups of eight on the lanes, the 0…7 left over one by one.
#[inline(always)]
pub(crate) fn from_x_many_lanes<L: Lanes>(items: &[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>> {
    let mut out = Vec::with_capacity(items.len());
    let mut chunks = items.chunks_exact(8);
    for c in &mut chunks {
        let xs = core::array::from_fn(|i| c[i].0);
        let odd = core::array::from_fn(|i| c[i].1);
        out.extend_from_slice(&from_x8::<L>(&xs, odd));
    }
    out.extend(chunks.remainder().iter().map(|(x, odd)| Ge::from_x(x, *odd)));
    out
}

/// [`from_x_many_lanes`] on AVX-512 registers.
///
/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn from_x_many_ifma(items: &[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>> {
    from_x_many_lanes::<crate::backend::ifma::lanes::Ifma>(items)
}

/// Points from (x, parity of y) for many items: eight lanes at a time on an Ifma token, one by
/// one with the token's field otherwise. Each answer equals `Ge::from_x` on its item.
pub(crate) fn from_x_many(backend: Backend, items: &[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>> {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
        // avx512vl.
        crate::backend::BackendKind::Ifma => unsafe { from_x_many_ifma(items) },
        _ => items.iter().map(|(x, odd)| super::decompress_x(backend, x, *odd)).collect(),
    }
}

/// [`ecdsa_verify_many_lanes`] on AVX-512 registers, compiled with the features enabled so
/// that the lane operations inline as single instructions.
///
/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL, and BMI2+ADX when `F` is the Asm field.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn ecdsa_verify_many_ifma<F: EcmultField>(items: &[EcdsaItem<'_>]) -> Vec<bool> {
    ecdsa_verify_many_lanes::<crate::backend::ifma::lanes::Ifma, F>(items)
}

/// [`schnorr_verify_many_lanes`] on AVX-512 registers.
///
/// # Safety
/// As [`ecdsa_verify_many_ifma`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn schnorr_verify_many_ifma<F: EcmultField>(items: &[SchnorrItem<'_>]) -> Vec<bool> {
    schnorr_verify_many_lanes::<crate::backend::ifma::lanes::Ifma, F>(items)
}

/// `ecdsa::verify_many`: eight-way on an Ifma token, one by one otherwise.
pub(crate) fn ecdsa_verify_many(backend: Backend, items: &[EcdsaItem<'_>]) -> Vec<bool> {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        crate::backend::BackendKind::Ifma => with_field!(backend, F => {
            // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
            // avx512vl; `with_field!` picks the Asm field only when BMI2+ADX are present.
            unsafe { ecdsa_verify_many_ifma::<F>(items) }
        }),
        _ => items.iter().map(|&(pk, m, s)| super::ecdsa::verify_with(backend, pk, m, s)).collect(),
    }
}

/// `schnorr::verify_many`: eight-way on an Ifma token, one by one otherwise.
pub(crate) fn schnorr_verify_many(backend: Backend, items: &[SchnorrItem<'_>]) -> Vec<bool> {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        crate::backend::BackendKind::Ifma => with_field!(backend, F => {
            // SAFETY: as in `ecdsa_verify_many`.
            unsafe { schnorr_verify_many_ifma::<F>(items) }
        }),
        _ => items.iter().map(|&(pk, m, s)| super::schnorr::verify_with(backend, pk, m, s)).collect(),
    }
}

// ---- Measuring the eight-lane field ---------------------------------------------------------

/// Per-lane inverse (0 ↦ 0) through the scalar field: one safegcd inversion and 24
/// multiplications (Montgomery's trick over the eight lanes). Variable time.
#[inline(always)]
pub(crate) fn inv_lanes_var<L: Lanes>(x: &Fe<L>) -> Fe<L> {
    let mut v = x.to_lanes();
    batch_inv_var(&mut v);
    Fe::from_lanes(&v)
}

#[inline(always)]
fn field_chain_x8_lanes<L: Lanes>(
    kernel: super::field::FieldKernel,
    a: &[super::field::FieldElement; 8],
    b: &[super::field::FieldElement; 8],
    n: usize,
) -> [super::field::FieldElement; 8] {
    use super::field::FieldKernel;
    let mut x = Fe::<L>::from_lanes(&core::array::from_fn(|i| a[i].0));
    let y = Fe::<L>::from_lanes(&core::array::from_fn(|i| b[i].0));
    // Plain loops, not closures, keep the kernels inside the caller's target features.
    for _ in 0..n {
        x = match kernel {
            FieldKernel::Mul => x.mul(&y),
            FieldKernel::Sqr => x.sqr(),
            FieldKernel::Inv => x.inv(),
            FieldKernel::InvVartime => inv_lanes_var(&x),
        };
    }
    let out = x.normalize().to_lanes();
    core::array::from_fn(|i| super::field::FieldElement(out[i]))
}

/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn field_chain_x8_ifma(
    kernel: super::field::FieldKernel,
    a: &[super::field::FieldElement; 8],
    b: &[super::field::FieldElement; 8],
    n: usize,
) -> [super::field::FieldElement; 8] {
    field_chain_x8_lanes::<crate::backend::ifma::lanes::Ifma>(kernel, a, b, n)
}

/// [`field_chain_with`](super::field::field_chain_with) on eight lanes at once: lane i starts
/// from `a[i]` and applies `kernel` `n` times (with `b[i]` the other factor of `Mul`), on the
/// eight-lane field `Fe5x52x8`. `Inv` is the addition chain on all lanes, `InvVartime` one
/// scalar safegcd inversion shared by the lanes (Montgomery's trick).
///
/// An Ifma token runs the AVX-512 IFMA kernels; any other token runs the same kernels on the
/// portable eight-lane model, which checks correctness and is slow by design.
///
/// ```
/// use fullverify::secp256k1::arith::{field_chain_x8_with, FieldElement, FieldKernel};
/// use fullverify::Backend;
///
/// let a: [FieldElement; 8] = core::array::from_fn(|i| FieldElement::from_u64(i as u64 + 2));
/// let b = [FieldElement::from_u64(3); 8];
/// for backend in Backend::available() {
///     let r = field_chain_x8_with(backend, FieldKernel::Mul, &a, &b, 2);
///     assert_eq!(r[5], FieldElement::from_u64(7 * 9));
/// }
/// ```
pub fn field_chain_x8_with(
    backend: Backend,
    kernel: super::field::FieldKernel,
    a: &[super::field::FieldElement; 8],
    b: &[super::field::FieldElement; 8],
    n: usize,
) -> [super::field::FieldElement; 8] {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
        // avx512vl.
        crate::backend::BackendKind::Ifma => unsafe { field_chain_x8_ifma(kernel, a, b, n) },
        _ => field_chain_x8_lanes::<crate::backend::ifma::lanes::Emulated>(kernel, a, b, n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ifma::lanes::Emulated;
    use crate::backend::{require_or_skip, BackendKind};
    use crate::secp256k1::{ecdsa, schnorr};
    use fullverify_testkit::{test_iters, test_seed, SplitMix64};

    /// Valid ECDSA and BIP340 items over a few keys, plus the special cases: results at
    /// infinity and (ECDSA) a signature that verifies only through x(R) = r + n.
    struct Pool {
        pks: Vec<PublicKey>,
        xpks: Vec<XOnlyPublicKey>,
        msgs: Vec<[u8; 32]>,
        esigs: Vec<Signature>,
        ssigs: Vec<[u8; 64]>,
    }

    fn scalar(rng: &mut SplitMix64) -> Scalar {
        let mut b = [0u8; 32];
        rng.fill(&mut b);
        Scalar::from_bytes_reduce(&b).0
    }

    fn pool(rng: &mut SplitMix64, n: usize) -> Pool {
        let mut p = Pool { pks: vec![], xpks: vec![], msgs: vec![], esigs: vec![], ssigs: vec![] };
        for _ in 0..n {
            let mut sk = [0u8; 32];
            rng.fill(&mut sk);
            let mut msg = [0u8; 32];
            rng.fill(&mut msg);
            let pk = PublicKey::from_secret(&sk).unwrap();
            p.pks.push(pk);
            p.xpks.push(pk.x_only().0);
            p.msgs.push(msg);
            let mut sig = ecdsa::sign(&sk, &msg);
            if rng.next_u64().is_multiple_of(2) {
                sig.s = sig.s.negate(); // high s verifies too
            }
            p.esigs.push(sig);
            p.ssigs.push(schnorr::sign(&sk, &msg, &msg));
        }
        p
    }

    /// ECDSA items whose R is infinity: z = −r·d, so u1 + u2·d = 0.
    fn ecdsa_infinity(rng: &mut SplitMix64) -> (PublicKey, [u8; 32], Signature) {
        let d = scalar(rng);
        let pk = PublicKey::from_secret(&d.to_bytes()).unwrap();
        let sig = Signature { r: scalar(rng), s: scalar(rng) };
        let z = sig.r.mul(&d).negate();
        (pk, z.to_bytes(), sig)
    }

    /// An ECDSA item that verifies only through the r + n branch: R with x(R) ≥ n is chosen
    /// first, then u1, u2 at random, Q = u2⁻¹·(R − u1·G), s = r·u2⁻¹, z = u1·s.
    fn ecdsa_r_plus_n(rng: &mut SplitMix64) -> (PublicKey, [u8; 32], Signature) {
        let mut xw = N;
        loop {
            xw[0] += 1 + rng.next_u64() % 1000;
            let x = Fe5x52::from_u64x4(xw);
            if let Some(rp) = Ge::<Fe5x52>::from_x(&x, rng.next_u64() % 2 == 1) {
                let r = Scalar::from_words_reduce(xw).0;
                let (u1, u2) = (scalar(rng), scalar(rng));
                let u2i = u2.inv_vartime();
                let q = super::super::ecmult::ecmult(&rp, &u2i, &u1.mul(&u2i).negate()).to_ge_var();
                let s = r.mul(&u2i);
                let z = u1.mul(&s);
                let sig = Signature { r, s };
                let pk = PublicKey(q);
                assert!(ecdsa::verify_with(crate::Backend::portable(), &pk, &z.to_bytes(), &sig));
                return (pk, z.to_bytes(), sig);
            }
        }
    }

    /// A BIP340 item whose R is infinity: s = e·d.
    fn schnorr_infinity(rng: &mut SplitMix64) -> (XOnlyPublicKey, [u8; 32], [u8; 64]) {
        let d = scalar(rng);
        let (xpk, _) = PublicKey::from_secret(&d.to_bytes()).unwrap().x_only();
        let mut msg = [0u8; 32];
        rng.fill(&mut msg);
        let r = Ge::<Fe5x52>::generator().x.to_be_bytes();
        let e = schnorr::challenge(&r, &xpk.serialize(), &msg);
        // s·G − e·P = ∞ with P = ±d·G (even y): s = ±e·d.
        let dd = if PublicKey::from_secret(&d.to_bytes()).unwrap().x_only().1 { d.negate() } else { d };
        let s = e.mul(&dd);
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(&r);
        sig[32..].copy_from_slice(&s.to_bytes());
        (xpk, msg, sig)
    }

    /// Random batches mixing valid and corrupted items in every lane, checked against the
    /// single verifier; `f` is the eight-way verifier under test.
    fn check_ecdsa(batches: usize, f: impl Fn(&[EcdsaItem<'_>]) -> Vec<bool>) {
        let mut rng = SplitMix64(test_seed());
        let p = pool(&mut rng, 64);
        let inf: Vec<_> = (0..8).map(|_| ecdsa_infinity(&mut rng)).collect();
        let rpn: Vec<_> = (0..4).map(|_| ecdsa_r_plus_n(&mut rng)).collect();
        let mut corrupted: Vec<([u8; 32], Signature)> = Vec::new();
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..batches {
            let len = 8 + (rng.next_u64() % 10) as usize;
            corrupted.clear();
            let mut picks = Vec::with_capacity(len);
            for _ in 0..len {
                let i = (rng.next_u64() % 64) as usize;
                let kind = rng.next_u64() % 12;
                picks.push((i, kind));
                let mut m = p.msgs[i];
                let mut s = p.esigs[i];
                match kind {
                    0 => m[(rng.next_u64() % 32) as usize] ^= 1,
                    1 => s.r = s.r.add(&Scalar::ONE),
                    2 => s.s = Scalar::ZERO,
                    3 => s.r = Scalar::ZERO,
                    _ => {}
                }
                corrupted.push((m, s));
            }
            let items: Vec<EcdsaItem> = picks
                .iter()
                .zip(corrupted.iter())
                .map(|(&(i, kind), (m, s))| match kind {
                    4 => (&p.pks[(i + 1) % 64], m, s),
                    5 => (&inf[i % 8].0, &inf[i % 8].1, &inf[i % 8].2),
                    6 => (&rpn[i % 4].0, &rpn[i % 4].1, &rpn[i % 4].2),
                    _ => (&p.pks[i], m, s),
                })
                .collect();
            let want: Vec<bool> = items
                .iter()
                .map(|&(pk, m, s)| ecdsa::verify_with(crate::Backend::portable(), pk, m, s))
                .collect();
            assert_eq!(f(&items), want);
            valid += want.iter().filter(|&&b| b).count();
            invalid += want.iter().filter(|&&b| !b).count();
        }
        assert!(valid > batches && invalid > batches, "{valid} valid, {invalid} invalid");
    }

    fn check_schnorr(batches: usize, f: impl Fn(&[SchnorrItem<'_>]) -> Vec<bool>) {
        let mut rng = SplitMix64(test_seed() ^ 3);
        let p = pool(&mut rng, 64);
        let inf: Vec<_> = (0..8).map(|_| schnorr_infinity(&mut rng)).collect();
        let mut corrupted: Vec<([u8; 32], [u8; 64])> = Vec::new();
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..batches {
            let len = 8 + (rng.next_u64() % 10) as usize;
            corrupted.clear();
            let mut picks = Vec::with_capacity(len);
            for _ in 0..len {
                let i = (rng.next_u64() % 64) as usize;
                let kind = rng.next_u64() % 12;
                picks.push((i, kind));
                let mut m = p.msgs[i];
                let mut s = p.ssigs[i];
                match kind {
                    0 => m[(rng.next_u64() % 32) as usize] ^= 1,
                    1 => s[(rng.next_u64() % 64) as usize] ^= 0x10,
                    2 => s[..32].copy_from_slice(&[0xFF; 32]), // r ≥ p
                    3 => s[32..].copy_from_slice(&[0xFF; 32]), // s ≥ n
                    _ => {}
                }
                corrupted.push((m, s));
            }
            let items: Vec<SchnorrItem> = picks
                .iter()
                .zip(corrupted.iter())
                .map(|(&(i, kind), (m, s))| match kind {
                    4 => (&p.xpks[(i + 1) % 64], &m[..], s),
                    5 => (&inf[i % 8].0, &inf[i % 8].1[..], &inf[i % 8].2),
                    _ => (&p.xpks[i], &m[..], s),
                })
                .collect();
            let want: Vec<bool> = items
                .iter()
                .map(|&(pk, m, s)| schnorr::verify_with(crate::Backend::portable(), pk, m, s))
                .collect();
            assert_eq!(f(&items), want);
            valid += want.iter().filter(|&&b| b).count();
            invalid += want.iter().filter(|&&b| !b).count();
        }
        assert!(valid > batches && invalid > batches, "{valid} valid, {invalid} invalid");
    }

    #[test]
    fn ecdsa_verify_many_emulated_vs_single() {
        check_ecdsa(test_iters(300), ecdsa_verify_many_lanes::<Emulated, Fe5x52>);
    }

    #[test]
    fn schnorr_verify_many_emulated_vs_single() {
        check_schnorr(test_iters(300), schnorr_verify_many_lanes::<Emulated, Fe5x52>);
    }

    #[test]
    fn ecdsa_verify_many_ifma_vs_single() {
        let Some(b) = require_or_skip(BackendKind::Ifma) else { return };
        check_ecdsa(test_iters(10_000), |items| ecdsa::verify_many(b, items));
    }

    #[test]
    fn schnorr_verify_many_ifma_vs_single() {
        let Some(b) = require_or_skip(BackendKind::Ifma) else { return };
        check_schnorr(test_iters(10_000), |items| schnorr::verify_many(b, items));
    }

    #[test]
    fn special_lanes_take_the_exceptional_path() {
        // Infinity in a lane is found by the eight-way code itself (Z = 0 or infinity).
        let mut rng = SplitMix64(test_seed() ^ 4);
        let it: Vec<_> = (0..8).map(|_| ecdsa_infinity(&mut rng)).collect();
        let items: [EcdsaItem; 8] = core::array::from_fn(|i| (&it[i].0, &it[i].1, &it[i].2));
        let mut inp = [Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE }; 8];
        for (i, (pk, m, s)) in items.iter().enumerate() {
            let sinv = s.s.inv_vartime();
            let z = Scalar::from_bytes_reduce(m).0;
            inp[i] = Ecmult8Input { a: pk.0, na: s.r.mul(&sinv), ng: z.mul(&sinv) };
        }
        let out = ecmult8::<Emulated>(&inp);
        let lanes = out.r.to_lanes(out.inf);
        for i in 0..8 {
            assert!(lane_result(&out, &lanes, i).is_none(), "lane {i}");
        }
        assert_eq!(ecdsa_verify8::<Emulated, Fe5x52>(&items), [false; 8]);
    }

    /// x coordinates for the square-root tests: random ones (about half on the curve),
    /// structured ones (0, 1, 7, p − 1, 2^k, limb-saturated), the generator's, each with both
    /// parities.
    fn x_cases(rng: &mut SplitMix64, n: usize) -> Vec<(Fe5x52, bool)> {
        let mut raw: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32], Ge::<Fe5x52>::generator().x.to_be_bytes()];
        let mut one = [0u8; 32];
        one[31] = 1;
        raw.push(one);
        one[31] = 7;
        raw.push(one);
        let mut pm1 = [0xffu8; 32];
        pm1[27] = 0xfe;
        pm1[28..].copy_from_slice(&[0xff, 0xff, 0xfc, 0x2e]);
        raw.push(pm1);
        for k in [0usize, 51, 52, 103, 104, 200, 255] {
            let mut b = [0u8; 32];
            b[31 - k / 8] = 1 << (k % 8);
            raw.push(b);
        }
        let mut sat = [0u8; 32];
        sat[25..].copy_from_slice(&[0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        raw.push(sat);
        while raw.len() < n {
            raw.push(rng.bytes32());
        }
        let mut out = Vec::new();
        for (j, b) in raw.iter().enumerate() {
            if let Some(x) = Fe5x52::from_be_bytes(b) {
                out.push((x, j % 2 == 0));
                out.push((x, j % 2 == 1));
            }
        }
        out
    }

    fn check_from_x_many(f: impl Fn(&[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>>) {
        let mut rng = SplitMix64(test_seed() ^ 0x5157);
        let cases = x_cases(&mut rng, test_iters(400));
        let got = f(&cases);
        assert_eq!(got.len(), cases.len());
        let mut on_curve = 0;
        for ((x, odd), g) in cases.iter().zip(&got) {
            let want = Ge::from_x(x, *odd);
            match (want, g) {
                (None, None) => {}
                (Some(w), Some(g)) => {
                    on_curve += 1;
                    assert_eq!(
                        (w.x.to_be_bytes(), w.y.to_be_bytes()),
                        (g.x.to_be_bytes(), g.y.to_be_bytes())
                    );
                    assert_eq!(g.y.is_odd(), *odd);
                }
                _ => panic!("x {:?} odd {odd}: {want:?} vs {g:?}", x.to_be_bytes()),
            }
        }
        assert!(on_curve > cases.len() / 4 && on_curve < cases.len(), "{on_curve} of {}", cases.len());
    }

    #[test]
    fn from_x_many_emulated_vs_single() {
        check_from_x_many(from_x_many_lanes::<Emulated>);
    }

    #[test]
    fn from_x_many_ifma_vs_single() {
        let Some(b) = require_or_skip(BackendKind::Ifma) else { return };
        check_from_x_many(|items| from_x_many(b, items));
    }
}
