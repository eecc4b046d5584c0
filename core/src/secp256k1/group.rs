// SPDX-License-Identifier: MIT OR Apache-2.0
//! The group E(GF(p)): y² = x³ + 7, of prime order n, generic over the field backend.
//!
//! - [`Ge`]: affine (x, y) or infinity.
//! - [`Gej`]: Jacobian (X, Y, Z) for (X/Z², Y/Z³), or infinity.
//!
//! Variable-time formulas (verification, public data), all with a = 0:
//! - doubling: S = 4·X·Y², M = 3·X², X' = M² − 2S, Y' = M·(S − X') − 8·Y⁴, Z' = 2·Y·Z
//!   (no point of order 2 exists, so Y ≠ 0 for finite points);
//! - addition: U1 = X1·Z2², U2 = X2·Z1², S1 = Y1·Z2³, S2 = Y2·Z1³, H = U2 − U1, I = S2 − S1;
//!   H = 0 means P = ±Q: doubling when I = 0, infinity otherwise; else
//!   X' = I² − H³ − 2·U1·H², Y' = I·(U1·H² − X') − S1·H³, Z' = Z1·Z2·H.
//!   Mixed addition (Z2 = 1) reports the z-ratio Z'/Z1 = H.
//!
//! Every output of these formulas has X, Y of magnitude ≤ 1 after `normalize_weak` and Z of
//! magnitude 1, so outputs feed straight back into `mul`.

use super::field::{sqrt, FieldOps};
use crate::backend::portable::field::Fe5x52;

/// An affine point or infinity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ge<F: FieldOps> {
    pub(crate) x: F,
    pub(crate) y: F,
    pub(crate) infinity: bool,
}

/// A Jacobian point or infinity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gej<F: FieldOps> {
    pub(crate) x: F,
    pub(crate) y: F,
    pub(crate) z: F,
    pub(crate) infinity: bool,
}

/// 7, the curve constant b.
#[inline(always)]
fn b7<F: FieldOps>() -> F {
    F::from_u64x4([7, 0, 0, 0])
}

// Conversions take `&self` like the rest of the kernel API (clippy asks for `self` only since
// the type became crate-private).
#[allow(clippy::wrong_self_convention)]
impl<F: FieldOps> Ge<F> {
    pub(crate) const INFINITY: Ge<F> = Ge { x: F::ZERO, y: F::ZERO, infinity: true };

    /// The generator G.
    pub(crate) fn generator() -> Ge<F> {
        Ge {
            x: F::from_u64x4([
                0x59F2_815B_16F8_1798,
                0x029B_FCDB_2DCE_28D9,
                0x55A0_6295_CE87_0B07,
                0x79BE_667E_F9DC_BBAC,
            ]),
            y: F::from_u64x4([
                0x9C47_D08F_FB10_D4B8,
                0xFD17_B448_A685_5419,
                0x5DA4_FBFC_0E11_08A8,
                0x483A_DA77_26A3_C465,
            ]),
            infinity: false,
        }
    }

    /// Whether y² = x³ + 7 (infinity counts as valid).
    pub(crate) fn is_valid_var(&self) -> bool {
        if self.infinity {
            return true;
        }
        let y2 = self.y.sqr();
        let x3 = self.x.sqr().mul(&self.x).add(&b7());
        y2.eq_var(&x3)
    }

    /// The point with this x and the y of the requested parity, if x is on the curve.
    pub(crate) fn from_x(x: &F, odd: bool) -> Option<Ge<F>> {
        let x = x.normalize();
        let c = x.sqr().mul(&x).add(&b7());
        let y = sqrt(&c)?;
        let y = if y.is_odd() != odd { y.negate(1).normalize() } else { y };
        Some(Ge { x, y, infinity: false })
    }

    /// −P.
    #[inline(always)]
    pub(crate) fn neg(&self) -> Ge<F> {
        Ge { x: self.x, y: self.y.normalize_weak().negate(1), infinity: self.infinity }
    }

    /// Both coordinates in canonical form.
    pub(crate) fn normalize(&self) -> Ge<F> {
        Ge { x: self.x.normalize(), y: self.y.normalize(), infinity: self.infinity }
    }

    pub(crate) fn to_gej(&self) -> Gej<F> {
        Gej { x: self.x, y: self.y, z: F::ONE, infinity: self.infinity }
    }

    /// Equality as points (variable time).
    pub(crate) fn eq_var(&self, o: &Ge<F>) -> bool {
        if self.infinity || o.infinity {
            return self.infinity == o.infinity;
        }
        self.x.eq_var(&o.x) && self.y.eq_var(&o.y)
    }

    /// From the portable form that public types store (identity for the Portable backend).
    #[inline]
    pub(crate) fn from_portable(p: &Ge<Fe5x52>) -> Ge<F> {
        if p.infinity {
            return Ge::INFINITY;
        }
        Ge { x: F::from_portable(&p.x), y: F::from_portable(&p.y), infinity: false }
    }

    /// To the portable form, coordinates normalized (identity for the Portable backend).
    #[inline]
    pub(crate) fn to_portable(&self) -> Ge<Fe5x52> {
        if self.infinity {
            return Ge::INFINITY;
        }
        Ge { x: self.x.to_portable(), y: self.y.to_portable(), infinity: false }
    }
}

// Conversions take `&self` like the rest of the kernel API (clippy asks for `self` only since
// the type became crate-private).
#[allow(clippy::wrong_self_convention)]
impl<F: FieldOps> Gej<F> {
    pub(crate) const INFINITY: Gej<F> = Gej { x: F::ZERO, y: F::ZERO, z: F::ZERO, infinity: true };

    /// Affine form with a variable-time inversion.
    pub(crate) fn to_ge_var(&self) -> Ge<F> {
        if self.infinity {
            return Ge::INFINITY;
        }
        let zi = super::field::inv_var(&self.z);
        self.to_ge_zinv(&zi)
    }

    /// Affine form given 1/Z.
    pub(crate) fn to_ge_zinv(&self, zi: &F) -> Ge<F> {
        let zi2 = zi.sqr();
        let zi3 = zi2.mul(zi);
        Ge { x: self.x.mul(&zi2).normalize(), y: self.y.mul(&zi3).normalize(), infinity: false }
    }

    /// −P.
    #[inline(always)]
    pub(crate) fn neg(&self) -> Gej<F> {
        Gej { x: self.x, y: self.y.normalize_weak().negate(1), z: self.z, infinity: self.infinity }
    }

    /// 2P (variable time: branches on infinity).
    #[inline(always)]
    pub(crate) fn double_var(&self) -> Gej<F> {
        if self.infinity {
            return *self;
        }
        // Inputs: X, Y, Z magnitude ≤ 2.
        let y2 = self.y.sqr(); // 1
        let s = self.x.mul(&y2).mul_int(4); // 4
        let z = self.y.mul(&self.z).mul_int(2); // 2
        let m = self.x.sqr().mul_int(3); // 3
        let y4_8 = y2.sqr().mul_int(8); // 8
                                        // X' = M² − 2S: 1 + 2·5 = 11 → weak-normalize to 1.
        let x = m.sqr().add(&s.negate(4).mul_int(2)).normalize_weak();
        // Y' = M·(S − X') − 8Y⁴: S − X' has magnitude 4 + 2 = 6.
        let t = s.add(&x.negate(1));
        let y = m.mul(&t).add(&y4_8.negate(8)).normalize_weak();
        Gej { x, y, z: z.normalize_weak(), infinity: false }
    }

    /// P + Q for affine Q (variable time); also returns the z-ratio Z'/Z (when finite and
    /// no special case occurred, else `None`).
    #[inline(always)]
    pub(crate) fn add_ge_var(&self, b: &Ge<F>) -> (Gej<F>, Option<F>) {
        if self.infinity {
            return (b.to_gej(), None);
        }
        if b.infinity {
            return (*self, None);
        }
        let z12 = self.z.sqr();
        let u1 = self.x;
        let u2 = b.x.mul(&z12);
        let s1 = self.y;
        let s2 = b.y.mul(&z12).mul(&self.z);
        self.add_finish(&u1, &u2, &s1, &s2, &self.z, || b.to_gej().double_var())
    }

    /// P + Q with Q given in a frame with Z_Q = 1/bzinv (see `ecmult`): Q's true Jacobian
    /// coordinates are (b.x, b.y, 1/bzinv). Variable time.
    #[inline(always)]
    pub(crate) fn add_zinv_var(&self, b: &Ge<F>, bzinv: &F) -> Gej<F> {
        if b.infinity {
            return *self;
        }
        if self.infinity {
            let bz2 = bzinv.sqr();
            let bz3 = bz2.mul(bzinv);
            return Gej { x: b.x.mul(&bz2), y: b.y.mul(&bz3), z: F::ONE, infinity: false };
        }
        // Scaling U, S by bzinv² / bzinv³ turns this into a mixed addition with az = Z·bzinv.
        let az = self.z.mul(bzinv);
        let z12 = az.sqr();
        let u1 = self.x;
        let u2 = b.x.mul(&z12);
        let s1 = self.y;
        let s2 = b.y.mul(&z12).mul(&az);
        let this = *self;
        self.add_finish(&u1, &u2, &s1, &s2, &self.z, || this.double_var()).0
    }

    /// P + Q for Jacobian Q (variable time).
    pub(crate) fn add_var(&self, b: &Gej<F>) -> Gej<F> {
        if self.infinity {
            return *b;
        }
        if b.infinity {
            return *self;
        }
        let z22 = b.z.sqr();
        let z12 = self.z.sqr();
        let u1 = self.x.mul(&z22);
        let u2 = b.x.mul(&z12);
        let s1 = self.y.mul(&z22).mul(&b.z);
        let s2 = b.y.mul(&z12).mul(&self.z);
        let zz = self.z.mul(&b.z);
        let this = *self;
        self.add_finish(&u1, &u2, &s1, &s2, &zz, || this.double_var()).0
    }

    /// Shared tail of the additions: inputs U1, S1 of magnitude ≤ 2, U2, S2 magnitude 1,
    /// `z` the product of the input Zs (magnitude ≤ 1).
    #[inline(always)]
    fn add_finish(
        &self,
        u1: &F,
        u2: &F,
        s1: &F,
        s2: &F,
        z: &F,
        dbl: impl FnOnce() -> Gej<F>,
    ) -> (Gej<F>, Option<F>) {
        let h = u2.add(&u1.negate(2)); // 4
        let i = s2.add(&s1.negate(2)); // 4
        if h.normalizes_to_zero_var() {
            if i.normalizes_to_zero_var() {
                return (dbl(), None);
            }
            return (Gej::INFINITY, None);
        }
        let h2 = h.sqr();
        let h3 = h2.mul(&h);
        let t = u1.mul(&h2); // U1·H²
        let z3 = z.mul(&h);
        // X' = I² − H³ − 2t: 1 + 2 + 4 = 7.
        let x3 = i.sqr().add(&h3.negate(1)).add(&t.negate(1).mul_int(2)).normalize_weak();
        // Y' = I·(t − X') − S1·H³.
        let y3 = i.mul(&t.add(&x3.negate(1))).add(&s1.mul(&h3).negate(1)).normalize_weak();
        (Gej { x: x3, y: y3, z: z3, infinity: false }, Some(h.normalize_weak()))
    }

    /// Equality as points (variable time).
    pub(crate) fn eq_var(&self, o: &Gej<F>) -> bool {
        if self.infinity || o.infinity {
            return self.infinity == o.infinity;
        }
        let z12 = self.z.sqr();
        let z22 = o.z.sqr();
        self.x.mul(&z22).eq_var(&o.x.mul(&z12))
            && self.y.mul(&z22).mul(&o.z).eq_var(&o.y.mul(&z12).mul(&self.z))
    }

    /// Whether the affine x of this point equals x (given normalized), without inverting:
    /// x·Z² == X.
    #[inline]
    pub(crate) fn x_eq_var(&self, x: &F) -> bool {
        if self.infinity {
            return false;
        }
        x.mul(&self.z.sqr()).eq_var(&self.x)
    }
}
