// SPDX-License-Identifier: MIT OR Apache-2.0
//! Public point types over the portable field, for exploration and tests (see
//! [`crate::secp256k1::arith`] for the invariants): [`AffinePoint`] (x, y) or infinity, and
//! [`JacobianPoint`] (X, Y, Z) ↦ (X/Z², Y/Z³).

use super::ecmult::ecmult;
use super::ecmult_gen::mul_g;
use super::field::FieldElement;
use super::group::{Ge, Gej};
use super::{Error, Scalar};
use crate::backend::portable::field::Fe5x52;

/// An affine point or the point at infinity, on the Portable backend; coordinates canonical.
/// Points built with [`AffinePoint::from_xy`], [`AffinePoint::from_bytes`] or
/// [`AffinePoint::lift_x`] are on the curve.
#[derive(Clone, Copy, Debug)]
pub struct AffinePoint(pub(crate) Ge<Fe5x52>);

/// A point in Jacobian coordinates (X, Y, Z) ↦ (X/Z², Y/Z³), or the point at infinity, on the
/// Portable backend. Not checked to be on the curve (see [`JacobianPoint::from_xyz`]).
#[derive(Clone, Copy, Debug)]
pub struct JacobianPoint(pub(crate) Gej<Fe5x52>);

impl PartialEq for AffinePoint {
    fn eq(&self, o: &AffinePoint) -> bool {
        self.0.eq_var(&o.0)
    }
}
impl Eq for AffinePoint {}

impl PartialEq for JacobianPoint {
    fn eq(&self, o: &JacobianPoint) -> bool {
        self.0.eq_var(&o.0)
    }
}
impl Eq for JacobianPoint {}

impl AffinePoint {
    /// The point at infinity (the group identity).
    pub const INFINITY: AffinePoint = AffinePoint(Ge::INFINITY);

    /// The standard generator G.
    pub fn generator() -> AffinePoint {
        AffinePoint(Ge::generator())
    }

    /// From coordinates; checks that the point is on the curve.
    pub fn from_xy(x: &FieldElement, y: &FieldElement) -> Result<AffinePoint, Error> {
        let p = Ge { x: x.0, y: y.0, infinity: false };
        if p.is_valid_var() {
            Ok(AffinePoint(p))
        } else {
            Err(Error::NotOnCurve)
        }
    }

    /// From 64 bytes x‖y (big-endian); checks canonical coordinates and the curve equation.
    pub fn from_bytes(b: &[u8; 64]) -> Result<AffinePoint, Error> {
        let x = FieldElement::from_bytes(b[..32].try_into().unwrap())?;
        let y = FieldElement::from_bytes(b[32..].try_into().unwrap())?;
        AffinePoint::from_xy(&x, &y)
    }

    /// 64 bytes x‖y, or `None` for infinity.
    pub fn to_bytes(&self) -> Option<[u8; 64]> {
        if self.0.infinity {
            return None;
        }
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.0.x.to_be_bytes());
        out[32..].copy_from_slice(&self.0.y.to_be_bytes());
        Some(out)
    }

    /// The point with this x and the requested parity of y.
    pub fn lift_x(x: &FieldElement, odd: bool) -> Result<AffinePoint, Error> {
        Ge::from_x(&x.0, odd).map(AffinePoint).ok_or(Error::NotOnCurve)
    }

    /// Whether this is the point at infinity.
    pub fn is_infinity(&self) -> bool {
        self.0.infinity
    }
    /// x, or `None` for infinity.
    pub fn x(&self) -> Option<FieldElement> {
        (!self.0.infinity).then(|| FieldElement(self.0.x.normalize()))
    }
    /// y, or `None` for infinity.
    pub fn y(&self) -> Option<FieldElement> {
        (!self.0.infinity).then(|| FieldElement(self.0.y.normalize()))
    }

    /// −P = (x, −y).
    pub fn neg(&self) -> AffinePoint {
        AffinePoint(self.0.neg().normalize())
    }
    /// (x, y, 1), or Jacobian infinity.
    pub fn to_jacobian(&self) -> JacobianPoint {
        JacobianPoint(self.0.to_gej())
    }
    /// P + Q, variable time (one inversion).
    pub fn add(&self, o: &AffinePoint) -> AffinePoint {
        self.to_jacobian().add_affine(o).to_affine()
    }
    /// 2·P, variable time (one inversion).
    pub fn double(&self) -> AffinePoint {
        self.to_jacobian().double().to_affine()
    }
    /// k·P, variable time (public data only).
    pub fn mul_vartime(&self, k: &Scalar) -> AffinePoint {
        JacobianPoint(ecmult(&self.0, k, &Scalar::ZERO)).to_affine()
    }
    /// k·G, constant time in k.
    pub fn mul_generator(k: &Scalar) -> AffinePoint {
        AffinePoint(mul_g(k))
    }
    /// a·P + b·G, variable time.
    pub fn lincomb_vartime(&self, a: &Scalar, b: &Scalar) -> AffinePoint {
        JacobianPoint(ecmult(&self.0, a, b)).to_affine()
    }
}

impl JacobianPoint {
    /// The point at infinity.
    pub const INFINITY: JacobianPoint = JacobianPoint(Gej::INFINITY);

    /// From coordinates (no curve check, so that formulas can be explored on any input;
    /// Z = 0 means infinity).
    pub fn from_xyz(x: &FieldElement, y: &FieldElement, z: &FieldElement) -> JacobianPoint {
        if z.is_zero() {
            return JacobianPoint::INFINITY;
        }
        JacobianPoint(Gej { x: x.0, y: y.0, z: z.0, infinity: false })
    }
    /// (X, Y, Z), or `None` for infinity.
    pub fn xyz(&self) -> Option<(FieldElement, FieldElement, FieldElement)> {
        let p = &self.0;
        (!p.infinity).then(|| {
            (FieldElement(p.x.normalize()), FieldElement(p.y.normalize()), FieldElement(p.z.normalize()))
        })
    }
    /// Whether this is the point at infinity.
    pub fn is_infinity(&self) -> bool {
        self.0.infinity
    }
    /// (X/Z², Y/Z³), variable time (one inversion).
    pub fn to_affine(&self) -> AffinePoint {
        AffinePoint(self.0.to_ge_var())
    }
    /// (X, −Y, Z).
    pub fn neg(&self) -> JacobianPoint {
        JacobianPoint(self.0.neg())
    }
    /// 2·P with the a = 0 doubling formula, variable time.
    pub fn double(&self) -> JacobianPoint {
        JacobianPoint(self.0.double_var())
    }
    /// P + Q (Jacobian + Jacobian), variable time; handles P = Q and P = −Q.
    pub fn add(&self, o: &JacobianPoint) -> JacobianPoint {
        JacobianPoint(self.0.add_var(&o.0))
    }
    /// P + Q with Q affine (mixed addition), variable time.
    pub fn add_affine(&self, o: &AffinePoint) -> JacobianPoint {
        JacobianPoint(self.0.add_ge_var(&o.0).0)
    }
    /// k·P, variable time.
    pub fn mul_vartime(&self, k: &Scalar) -> JacobianPoint {
        let a = self.0.to_ge_var();
        JacobianPoint(ecmult(&a, k, &Scalar::ZERO))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fullverify_testkit::SplitMix64;

    #[test]
    fn public_point_api_vs_generator_multiples() {
        let g = AffinePoint::generator();
        let mut rng = SplitMix64(99);
        for _ in 0..20 {
            let k = Scalar::from_bytes_reduce(&rng.bytes32()).0;
            let a = AffinePoint::mul_generator(&k);
            assert_eq!(a, g.mul_vartime(&k));
            assert_eq!(a, g.to_jacobian().mul_vartime(&k).to_affine());
            // (k+1)·G = k·G + G, 2k·G = double(k·G), k·G + (−k·G) = ∞.
            assert_eq!(AffinePoint::mul_generator(&k.add(&Scalar::ONE)), a.add(&g));
            assert_eq!(AffinePoint::mul_generator(&k.add(&k)), a.double());
            assert!(a.add(&a.neg()).is_infinity());
            assert_eq!(a.to_jacobian().add(&g.to_jacobian()).to_affine(), a.add(&g));
            assert_eq!(a.to_jacobian().neg().to_affine(), a.neg());
            // Byte round trips and the on-curve check.
            let b = a.to_bytes().unwrap();
            assert_eq!(AffinePoint::from_bytes(&b).unwrap(), a);
            let mut bad = b;
            bad[63] ^= 1;
            assert_eq!(AffinePoint::from_bytes(&bad), Err(Error::NotOnCurve));
            let x = a.x().unwrap();
            let y = a.y().unwrap();
            assert_eq!(AffinePoint::lift_x(&x, y.is_odd()).unwrap(), a);
            let (jx, jy, jz) = a.to_jacobian().double().xyz().unwrap();
            assert_eq!(JacobianPoint::from_xyz(&jx, &jy, &jz).to_affine(), a.double());
            // lincomb: k·A + 1·G.
            assert_eq!(a.lincomb_vartime(&Scalar::from_u64(3), &Scalar::ONE), a.add(&a).add(&a).add(&g));
        }
        let inf = AffinePoint::INFINITY;
        assert_eq!(inf.add(&g), g);
        assert_eq!(g.add(&inf), g);
        assert!(inf.double().is_infinity());
        assert!(inf.to_bytes().is_none());
        assert!(g.mul_vartime(&Scalar::ZERO).is_infinity());
        assert!(AffinePoint::mul_generator(&Scalar::ZERO).is_infinity());
        assert!(JacobianPoint::INFINITY.add(&JacobianPoint::INFINITY).is_infinity());
        // Field element API.
        let a = FieldElement::from_u64(5);
        let b = FieldElement::from_u64(7);
        assert_eq!(a.mul(&b), FieldElement::from_u64(35));
        assert_eq!(a.sub(&b).add(&b), a);
        assert_eq!(a.mul(&a.inv()), FieldElement::ONE);
        assert_eq!(a.inv(), a.inv_vartime());
        assert_eq!(FieldElement::from_u64(4).sqrt().unwrap().sqr(), FieldElement::from_u64(4));
        assert!(FieldElement::from_bytes(&[0xFF; 32]).is_err());
        // 2^256 − 1 ≡ C − 1 (mod p).
        assert_eq!(FieldElement::from_bytes_reduce(&[0xFF; 32]), FieldElement::from_u64(0x1_0000_03D0));
    }
}
