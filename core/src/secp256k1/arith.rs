// SPDX-License-Identifier: MIT OR Apache-2.0
//! Field, scalar and point arithmetic of secp256k1, for exploration, teaching and tests.
//!
//! This is the public face of the arithmetic the signature code is built from. It always runs
//! on the Portable backend and trades speed for simple invariants:
//!
//! - [`FieldElement`]: an element of GF(p), p = 2^256 − 2^32 − 977. Always the canonical
//!   representative in [0, p); every operation returns a canonical value. Bytes are 32
//!   big-endian bytes.
//! - [`Scalar`]: an integer mod n, the group order. Always fully reduced (< n).
//! - [`AffinePoint`]: a point (x, y), or the point at infinity. The constructors from
//!   coordinates or bytes check y² = x³ + 7; points computed from checked points stay on the
//!   curve.
//! - [`JacobianPoint`]: (X, Y, Z) standing for (X/Z², Y/Z³), or infinity (Z = 0).
//!   [`JacobianPoint::from_xyz`] does *not* check the curve equation, so that formulas can be
//!   explored on arbitrary inputs; results computed from an off-curve point are meaningless.
//!   Equality compares the points, not the coordinates.
//! - [`Scalar::split_lambda`] / [`GlvSplit`] and [`wnaf`]: the decompositions the verifier's
//!   multiplication uses, exposed so that they can be inspected.
//! - [`field_chain_with`]: runs a chain of one field kernel on a chosen [`Backend`] token's
//!   kernels, for measuring them; [`field_chain_x8_with`] does the same on eight lanes of
//!   the IFMA field (these two are the only items here that use a backend other than
//!   Portable).
//!
//! Operations named `_vartime` take time that depends on their inputs; use them on public
//! data only. The rest (field and scalar `inv`, [`AffinePoint::mul_generator`]) are
//! constant time.
//!
//! ```
//! use fullverify::secp256k1::arith::{AffinePoint, FieldElement, Scalar};
//!
//! // The generator satisfies y² = x³ + 7.
//! let g = AffinePoint::generator();
//! let (x, y) = (g.x().unwrap(), g.y().unwrap());
//! assert_eq!(y.sqr(), x.sqr().mul(&x).add(&FieldElement::from_u64(7)));
//!
//! // 2·G + 3·G = 5·G, and n·G = ∞ (n − 1 = −1).
//! let two_g = AffinePoint::mul_generator(&Scalar::from_u64(2));
//! let three_g = AffinePoint::mul_generator(&Scalar::from_u64(3));
//! assert_eq!(two_g.add(&three_g), AffinePoint::mul_generator(&Scalar::from_u64(5)));
//! let minus_one = Scalar::ONE.negate();
//! assert!(g.mul_vartime(&minus_one).add(&g).is_infinity());
//!
//! // A GLV split recombines to the scalar.
//! let k = Scalar::from_u64(123_456_789);
//! let s = k.split_lambda();
//! assert_eq!(s.k1.add(&s.k2.mul(&fullverify::secp256k1::arith::LAMBDA)), k);
//! ```

#[cfg(doc)]
use crate::Backend;

pub use super::ecmult::wnaf;
pub use super::field::{field_chain_with, FieldElement, FieldKernel};
pub use super::many::field_chain_x8_with;
pub use super::point::{AffinePoint, JacobianPoint};
pub use super::scalar::{GlvSplit, Scalar, LAMBDA};
