// SPDX-License-Identifier: MIT OR Apache-2.0
//! Variable-time modular inversion by the Bernstein–Yang "safegcd" divstep recurrence, in the
//! 62-bit batched form (62 divsteps per matrix, numbers in signed 5×62-bit limbs).
//!
//! For odd modulus M and x, the recurrence on (δ, f, g), starting at (1, M, x), is
//! δ > 0 and g odd: (1 − δ, g, (g − f)/2); g odd otherwise: (1 + δ, f, (g + f)/2); g even:
//! (1 + δ, f, g/2). It reaches g = 0 with f = ±gcd = ±1. The same linear transitions applied to
//! (d, e) = (0, 1) modulo M (with the division by 2^62 made exact by adding a multiple of M)
//! track f ≡ d·x, so the final d·sign(f) is x⁻¹ mod M. This version uses η = −δ and skips runs
//! of zero bits at once (variable time: only for public inputs).

/// A 256-bit value as five signed 62-bit limbs: Σ vᵢ·2^(62i).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Signed62(pub(crate) [i64; 5]);

const M62: u64 = u64::MAX >> 2;

/// A modulus and its inverse modulo 2^62.
pub(crate) struct ModInfo {
    pub(crate) modulus: Signed62,
    pub(crate) modulus_inv62: u64,
}

impl Signed62 {
    /// From little-endian 64-bit words (value < 2^256).
    pub(crate) fn from_u64x4(a: [u64; 4]) -> Signed62 {
        Signed62([
            (a[0] & M62) as i64,
            (((a[0] >> 62) | (a[1] << 2)) & M62) as i64,
            (((a[1] >> 60) | (a[2] << 4)) & M62) as i64,
            (((a[2] >> 58) | (a[3] << 6)) & M62) as i64,
            (a[3] >> 56) as i64,
        ])
    }

    /// To little-endian 64-bit words. Precondition: every limb in [0, 2^62), top limb < 2^8.
    #[allow(clippy::wrong_self_convention)] // `&self` like `FieldOps::to_u64x4`
    pub(crate) fn to_u64x4(&self) -> [u64; 4] {
        let v = self.0.map(|x| x as u64);
        [
            v[0] | (v[1] << 62),
            (v[1] >> 2) | (v[2] << 60),
            (v[2] >> 4) | (v[3] << 58),
            (v[3] >> 6) | (v[4] << 56),
        ]
    }
}

/// The transition matrix of 62 divsteps, scaled by 2^62: [u v; q r].
struct Trans {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// 62 divsteps on the low bits of f (odd) and g; returns the new η.
fn divsteps_62_var(mut eta: i64, f0: u64, g0: u64, t: &mut Trans) -> i64 {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut i: i32 = 62;
    loop {
        // Shift out zero bits of g (at most i of them).
        let zeros = (g | (u64::MAX << i)).trailing_zeros() as i32;
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros as i64;
        i -= zeros;
        if i == 0 {
            break;
        }
        debug_assert!(f & 1 == 1 && g & 1 == 1);
        let w;
        if eta < 0 {
            // Swap (f, g) → (g, −f) and the matching matrix rows.
            eta = -eta;
            let x = f;
            f = g;
            g = x.wrapping_neg();
            let y = u;
            u = q;
            q = y.wrapping_neg();
            let y = v;
            v = r;
            r = y.wrapping_neg();
            // Cancel up to min(η + 1, i, 6) low bits of g: w = −g/f mod 2^limit.
            let limit = core::cmp::min(eta as i32 + 1, i);
            let m = (u64::MAX >> (64 - limit)) & 63;
            w = f.wrapping_mul(g).wrapping_mul(f.wrapping_mul(f).wrapping_sub(2)) & m;
        } else {
            let limit = core::cmp::min(eta as i32 + 1, i);
            let m = (u64::MAX >> (64 - limit)) & 15;
            // f⁻¹ mod 16 is f + ((f + 1) & 4)·2.
            let inv = f.wrapping_add(((f.wrapping_add(1)) & 4) << 1);
            w = inv.wrapping_neg().wrapping_mul(g) & m;
        }
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    t.u = u as i64;
    t.v = v as i64;
    t.q = q as i64;
    t.r = r as i64;
    eta
}

/// (d, e) ← (t·(d, e)) / 2^62 mod M, keeping both in (−2M, M).
// Indexes d, e and the modulus limbs together, as libsecp256k1's `update_de_62` does.
#[allow(clippy::needless_range_loop)]
fn update_de_62(d: &mut Signed62, e: &mut Signed62, t: &Trans, mi: &ModInfo) {
    let (u, v, q, r) = (t.u, t.v, t.q, t.r);
    let sd = d.0[4] >> 63;
    let se = e.0[4] >> 63;
    let mut md = (u & sd).wrapping_add(v & se);
    let mut me = (q & sd).wrapping_add(r & se);
    let m = &mi.modulus.0;
    let mut cd = (u as i128) * (d.0[0] as i128) + (v as i128) * (e.0[0] as i128);
    let mut ce = (q as i128) * (d.0[0] as i128) + (r as i128) * (e.0[0] as i128);
    // Pick md, me so that the low 62 bits of cd + M·md and ce + M·me vanish.
    md = md.wrapping_sub(((mi.modulus_inv62.wrapping_mul(cd as u64)).wrapping_add(md as u64) & M62) as i64);
    me = me.wrapping_sub(((mi.modulus_inv62.wrapping_mul(ce as u64)).wrapping_add(me as u64) & M62) as i64);
    cd += (m[0] as i128) * (md as i128);
    ce += (m[0] as i128) * (me as i128);
    debug_assert!((cd as u64) & M62 == 0 && (ce as u64) & M62 == 0);
    cd >>= 62;
    ce >>= 62;
    for i in 1..5 {
        cd += (u as i128) * (d.0[i] as i128) + (v as i128) * (e.0[i] as i128);
        ce += (q as i128) * (d.0[i] as i128) + (r as i128) * (e.0[i] as i128);
        if m[i] != 0 {
            cd += (m[i] as i128) * (md as i128);
            ce += (m[i] as i128) * (me as i128);
        }
        d.0[i - 1] = ((cd as u64) & M62) as i64;
        e.0[i - 1] = ((ce as u64) & M62) as i64;
        cd >>= 62;
        ce >>= 62;
    }
    d.0[4] = cd as i64;
    e.0[4] = ce as i64;
}

/// (f, g) ← t·(f, g) / 2^62 over the first `len` limbs (the division is exact).
fn update_fg_62_var(len: usize, f: &mut Signed62, g: &mut Signed62, t: &Trans) {
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let mut cf = u * (f.0[0] as i128) + v * (g.0[0] as i128);
    let mut cg = q * (f.0[0] as i128) + r * (g.0[0] as i128);
    debug_assert!((cf as u64) & M62 == 0 && (cg as u64) & M62 == 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..len {
        cf += u * (f.0[i] as i128) + v * (g.0[i] as i128);
        cg += q * (f.0[i] as i128) + r * (g.0[i] as i128);
        f.0[i - 1] = ((cf as u64) & M62) as i64;
        g.0[i - 1] = ((cg as u64) & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f.0[len - 1] = cf as i64;
    g.0[len - 1] = cg as i64;
}

/// Map r ∈ (−2M, M) to sign·r mod M in [0, M), limbs in [0, 2^62).
fn normalize_62(r: &mut Signed62, sign: i64, mi: &ModInfo) {
    let m = &mi.modulus.0;
    let v = &mut r.0;
    let cond_add = v[4] >> 63;
    for i in 0..5 {
        v[i] = v[i].wrapping_add(m[i] & cond_add);
    }
    let cond_negate = sign >> 63;
    for x in v.iter_mut() {
        *x = (*x ^ cond_negate).wrapping_sub(cond_negate);
    }
    for i in 0..4 {
        v[i + 1] = v[i + 1].wrapping_add(v[i] >> 62);
        v[i] &= M62 as i64;
    }
    let cond_add = v[4] >> 63;
    for i in 0..5 {
        v[i] = v[i].wrapping_add(m[i] & cond_add);
    }
    for i in 0..4 {
        v[i + 1] = v[i + 1].wrapping_add(v[i] >> 62);
        v[i] &= M62 as i64;
    }
    debug_assert!(v[4] >= 0 && v[4] < 256);
}

/// x⁻¹ mod M (0 maps to 0), variable time. x must be < 2^256 and M odd.
pub(crate) fn modinv64_var(x: &Signed62, mi: &ModInfo) -> Signed62 {
    let mut d = Signed62([0; 5]);
    let mut e = Signed62([1, 0, 0, 0, 0]);
    let mut f = mi.modulus;
    let mut g = *x;
    let mut len = 5usize;
    let mut eta: i64 = -1;
    let mut t = Trans { u: 0, v: 0, q: 0, r: 0 };
    loop {
        eta = divsteps_62_var(eta, f.0[0] as u64, g.0[0] as u64, &mut t);
        update_de_62(&mut d, &mut e, &t, mi);
        update_fg_62_var(len, &mut f, &mut g, &t);
        if g.0[0] == 0 {
            let mut cond = 0i64;
            for j in 1..len {
                cond |= g.0[j];
            }
            if cond == 0 {
                break;
            }
        }
        // Shrink when both top limbs are just sign extension of the limb below.
        let fn_ = f.0[len - 1];
        let gn = g.0[len - 1];
        let mut cond = ((len as i64) - 2) >> 63;
        cond |= fn_ ^ (fn_ >> 63);
        cond |= gn ^ (gn >> 63);
        if cond == 0 {
            f.0[len - 2] |= (fn_ as u64).wrapping_shl(62) as i64;
            g.0[len - 2] |= (gn as u64).wrapping_shl(62) as i64;
            len -= 1;
        }
    }
    let sign = f.0[len - 1];
    normalize_62(&mut d, sign, mi);
    d
}
