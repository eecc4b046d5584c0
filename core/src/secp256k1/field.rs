// SPDX-License-Identifier: MIT OR Apache-2.0
//! GF(p), p = 2^256 − 2^32 − 977 = 2^256 − C with C = 0x1000003D1.
//!
//! [`FieldOps`] is the contract between the group code and a backend's machine-level kernels
//! (mul, sqr, add, negate, normalize). The magnitude rules are those of the 5×52 kernel (see
//! `backend::portable::field`): callers keep every `mul`/`sqr` input at magnitude ≤ 8, and a
//! backend with fully reduced limbs simply treats every magnitude as 1.
//!
//! Derived operations are written once here, generic over the backend:
//! - [`inv`]: a^(p−2) by an addition chain (255 squarings, 15 multiplications; constant time);
//! - [`inv_var`]: safegcd (variable time, public inputs only);
//! - [`sqrt`]: a^((p+1)/4), valid because p ≡ 3 (mod 4), with a squaring check;
//! - [`batch_inv_var`]: Montgomery's trick, one inversion for n elements.
//!
//! The module is private to the crate: the kernels and everything generic over them must not
//! be instantiable from outside, since the Asm kernels need BMI2+ADX (see `with_field!`).
//! [`FieldElement`], the always-normalized portable wrapper, and [`field_chain_with`], which
//! takes a `Backend` token, are public through `crate::secp256k1::arith`.

use super::modinv::{modinv64_var, ModInfo, Signed62};
use crate::backend::field::{pow_p_minus_2, pow_p_plus_1_over_4};
pub(crate) use crate::backend::field::{words_from_be, words_ge, words_to_be, FieldOps, P_WORDS};
use crate::backend::portable::field::Fe5x52;
use core::fmt;

/// a^(p−2) = a⁻¹ (0 ↦ 0), constant time (the addition chain of
/// `backend::field::pow_p_minus_2`).
pub(crate) fn inv<F: FieldOps>(a: &F) -> F {
    pow_p_minus_2(a)
}

/// a^((p+1)/4); equals a square root when one exists.
pub(crate) fn pow_p1_4<F: FieldOps>(a: &F) -> F {
    pow_p_plus_1_over_4(a)
}

/// A square root of a, or `None` when a is not a quadratic residue. Constant time apart from
/// the final verdict.
pub(crate) fn sqrt<F: FieldOps>(a: &F) -> Option<F> {
    let r = pow_p1_4(a);
    if r.sqr().eq_var(a) {
        Some(r.normalize())
    } else {
        None
    }
}

const P_MODINFO: ModInfo =
    ModInfo { modulus: Signed62([-0x1_0000_03D1, 0, 0, 0, 256]), modulus_inv62: 0x27C7_F6E2_2DDA_CACF };

/// a⁻¹ (0 ↦ 0) by safegcd; variable time, public inputs only.
pub(crate) fn inv_var<F: FieldOps>(a: &F) -> F {
    let w = a.normalize().to_u64x4();
    let r = modinv64_var(&Signed62::from_u64x4(w), &P_MODINFO);
    F::from_u64x4(r.to_u64x4())
}

/// Inverts every element of `a` in place (zeros stay zero) with one `inv_var`.
pub(crate) fn batch_inv_var<F: FieldOps>(a: &mut [F]) {
    if a.is_empty() {
        return;
    }
    let mut prefix = Vec::with_capacity(a.len());
    let mut acc = F::ONE;
    for x in a.iter() {
        prefix.push(acc);
        if !x.normalizes_to_zero_var() {
            acc = acc.mul(x);
        }
    }
    let mut inv_acc = inv_var(&acc);
    for (x, pre) in a.iter_mut().zip(prefix.iter()).rev() {
        if x.normalizes_to_zero_var() {
            *x = F::ZERO;
            continue;
        }
        let xi = inv_acc.mul(pre);
        inv_acc = inv_acc.mul(x);
        *x = xi;
    }
}

/// An element of GF(p), p = 2^256 − 2^32 − 977, on the Portable backend.
///
/// Invariant: the value is always the canonical representative in [0, p); every constructor
/// and operation returns a canonical value, so [`FieldElement::to_bytes`] and equality need
/// no reduction.
#[derive(Clone, Copy)]
pub struct FieldElement(pub(crate) Fe5x52);

impl FieldElement {
    /// 0.
    pub const ZERO: FieldElement = FieldElement(Fe5x52::ZERO);
    /// 1.
    pub const ONE: FieldElement = FieldElement(Fe5x52::ONE);

    /// From 32 big-endian bytes; an error when the value is ≥ p.
    pub fn from_bytes(b: &[u8; 32]) -> Result<FieldElement, super::Error> {
        Fe5x52::from_be_bytes(b).map(FieldElement).ok_or(super::Error::FieldOverflow)
    }
    /// From 32 big-endian bytes, reduced mod p.
    pub fn from_bytes_reduce(b: &[u8; 32]) -> FieldElement {
        FieldElement(Fe5x52::from_u64x4(words_from_be(b)).normalize())
    }
    /// From a small integer.
    pub fn from_u64(v: u64) -> FieldElement {
        FieldElement(Fe5x52::from_u64x4([v, 0, 0, 0]))
    }
    /// 32 big-endian bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        words_to_be(&self.0.to_u64x4())
    }
    /// (a + b) mod p.
    pub fn add(&self, b: &FieldElement) -> FieldElement {
        FieldElement(self.0.add(&b.0).normalize())
    }
    /// (a − b) mod p.
    pub fn sub(&self, b: &FieldElement) -> FieldElement {
        FieldElement(self.0.add(&b.0.negate(1)).normalize())
    }
    /// −a mod p.
    pub fn neg(&self) -> FieldElement {
        FieldElement(self.0.negate(1).normalize())
    }
    /// a·b mod p.
    pub fn mul(&self, b: &FieldElement) -> FieldElement {
        FieldElement(self.0.mul(&b.0).normalize())
    }
    /// a² mod p.
    pub fn sqr(&self) -> FieldElement {
        FieldElement(self.0.sqr().normalize())
    }
    /// Inverse (0 ↦ 0), constant time.
    pub fn inv(&self) -> FieldElement {
        FieldElement(inv(&self.0).normalize())
    }
    /// Inverse (0 ↦ 0), variable time.
    pub fn inv_vartime(&self) -> FieldElement {
        FieldElement(inv_var(&self.0).normalize())
    }
    /// A square root, if one exists: a^((p+1)/4), checked by squaring (p ≡ 3 mod 4). Which of
    /// the two roots is returned is not specified; negate to get the other.
    pub fn sqrt(&self) -> Option<FieldElement> {
        sqrt(&self.0).map(FieldElement)
    }
    /// Whether a = 0.
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
    /// Whether the canonical value is odd (the parity used by key encodings).
    pub fn is_odd(&self) -> bool {
        self.0.is_odd()
    }
}

/// A field kernel for [`field_chain_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKernel {
    /// x ← x·b.
    Mul,
    /// x ← x².
    Sqr,
    /// x ← x⁻¹ by the constant-time addition chain (0 ↦ 0).
    Inv,
    /// x ← x⁻¹ by variable-time safegcd (0 ↦ 0).
    InvVartime,
}

/// Applies `kernel` `n` times in a dependent chain starting from `a` (`b` is the other factor
/// of [`FieldKernel::Mul`]), on `backend`'s field kernels, and returns the canonical result.
///
/// The result does not depend on the backend; the point is to measure each backend's kernels
/// (the dispatch and the conversion from and to the portable form happen once per call).
///
/// ```
/// use fullverify::secp256k1::arith::{field_chain_with, FieldElement, FieldKernel};
/// use fullverify::Backend;
///
/// let a = FieldElement::from_u64(3);
/// let b = FieldElement::from_u64(5);
/// for backend in Backend::available() {
///     let r = field_chain_with(backend, FieldKernel::Mul, &a, &b, 2);
///     assert_eq!(r, FieldElement::from_u64(75));
/// }
/// ```
pub fn field_chain_with(
    backend: crate::Backend,
    kernel: FieldKernel,
    a: &FieldElement,
    b: &FieldElement,
    n: usize,
) -> FieldElement {
    with_field!(backend, F => {
        let mut x = F::from_portable(&a.0);
        let y = F::from_portable(&b.0);
        match kernel {
            FieldKernel::Mul => (0..n).for_each(|_| x = x.mul(&y)),
            FieldKernel::Sqr => (0..n).for_each(|_| x = x.sqr()),
            FieldKernel::Inv => (0..n).for_each(|_| x = inv(&x)),
            FieldKernel::InvVartime => (0..n).for_each(|_| x = inv_var(&x)),
        }
        FieldElement(x.to_portable().normalize())
    })
}

impl PartialEq for FieldElement {
    fn eq(&self, o: &FieldElement) -> bool {
        self.to_bytes() == o.to_bytes()
    }
}
impl Eq for FieldElement {}

impl fmt::Debug for FieldElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_hex(f, "FieldElement", &self.to_bytes())
    }
}

/// `Name(hex)`: the `Debug` form of the public field element and scalar types.
pub(crate) fn debug_hex(f: &mut fmt::Formatter<'_>, name: &str, bytes: &[u8]) -> fmt::Result {
    write!(f, "{name}(")?;
    bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))?;
    f.write_str(")")
}
