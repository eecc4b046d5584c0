// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECDSA verification with Core's semantics (`CPubKey::Verify`, high S accepted): one
//! signature, inversion-free x comparison with the r + n candidate.

use super::signature::Signature;
use crate::backend::Backend;
use crate::secp256k1::ecmult::{ecmult, EcmultField};
use crate::secp256k1::field::{words_ge, FieldOps, P_WORDS};
use crate::secp256k1::group::{Ge, Gej};
use crate::secp256k1::keys::PublicKey;
use crate::secp256k1::scalar::{Scalar, N};

/// p − n: r + n < p exactly when r < p − n.
const P_MINUS_N: [u64; 4] = {
    let mut out = [0u64; 4];
    let mut borrow = 0u64;
    let mut i = 0;
    while i < 4 {
        let (d1, b1) = P_WORDS[i].overflowing_sub(N[i]);
        let (d2, b2) = d1.overflowing_sub(borrow);
        out[i] = d2;
        borrow = (b1 | b2) as u64;
        i += 1;
    }
    out
};

/// The verification core, generic over the field backend.
pub(crate) fn verify_generic<F: EcmultField>(pk: &Ge<F>, msg32: &[u8; 32], sig: &Signature) -> bool {
    let (r, s) = (sig.r, sig.s);
    if r.is_zero() || s.is_zero() || pk.infinity {
        return false;
    }
    let z = Scalar::from_bytes_reduce(msg32).0;
    let sinv = s.inv_vartime();
    let u1 = z.mul(&sinv);
    let u2 = r.mul(&sinv);
    let rp = ecmult(pk, &u2, &u1);
    if rp.infinity {
        return false;
    }
    x_matches_r(&rp, &r)
}

/// x(R) ≡ r (mod n) for a finite R: since n < p, x(R) mod n = r means x(R) ∈ {r, r + n}, the
/// second only when r + n < p; each candidate c is compared projectively (c·Z² = X).
pub(crate) fn x_matches_r<F: FieldOps>(rp: &Gej<F>, r: &Scalar) -> bool {
    let rw = r.to_words();
    if rp.x_eq_var(&F::from_u64x4(rw)) {
        return true;
    }
    if words_ge(&rw, &P_MINUS_N) {
        return false;
    }
    // r + n < p: compare with r + n as a field element.
    let mut carry = false;
    let w: [u64; 4] = core::array::from_fn(|i| {
        let (a, c1) = rw[i].overflowing_add(N[i]);
        let (b, c2) = a.overflowing_add(carry as u64);
        carry = c1 | c2;
        b
    });
    rp.x_eq_var(&F::from_u64x4(w))
}

/// Verifies with Core's semantics (high S accepted) on the detected backend.
///
/// `msg32` is the 32-byte message hash (for Bitcoin, the signature hash), reduced mod n.
///
/// ```
/// use fullverify::secp256k1::{ecdsa, PublicKey};
///
/// let seckey = [0x11; 32];
/// let pk = PublicKey::from_secret(&seckey).unwrap();
/// let msg32 = fullverify::hash::sha256d(b"message");
/// let sig = ecdsa::sign(&seckey, &msg32);
/// assert!(ecdsa::verify(&pk, &msg32, &sig));
///
/// // DER round trip, as signatures appear in scripts.
/// let der = sig.to_der();
/// assert_eq!(ecdsa::Signature::from_der(&der), Ok(sig));
///
/// // Another message, or another key, fails.
/// assert!(!ecdsa::verify(&pk, &fullverify::hash::sha256d(b"other"), &sig));
/// let other = PublicKey::from_secret(&[0x22; 32]).unwrap();
/// assert!(!ecdsa::verify(&other, &msg32, &sig));
///
/// // A high S verifies too (consensus normalizes S before verifying).
/// let mut high = sig;
/// high.s = high.s.negate();
/// assert!(ecdsa::verify(&pk, &msg32, &high));
/// ```
pub fn verify(pk: &PublicKey, msg32: &[u8; 32], sig: &Signature) -> bool {
    verify_with(Backend::detect(), pk, msg32, sig)
}

/// [`verify`] on an explicit backend (a backend without secp256k1 kernels uses Portable).
/// Every backend gives the same answer.
///
/// ```
/// use fullverify::secp256k1::{ecdsa, PublicKey};
/// use fullverify::Backend;
///
/// let pk = PublicKey::from_secret(&[0x11; 32]).unwrap();
/// let sig = ecdsa::sign(&[0x11; 32], &[0x5a; 32]);
/// for backend in Backend::available() {
///     assert!(ecdsa::verify_with(backend, &pk, &[0x5a; 32], &sig), "{backend}");
/// }
/// ```
pub fn verify_with(backend: Backend, pk: &PublicKey, msg32: &[u8; 32], sig: &Signature) -> bool {
    with_field!(backend, F => verify_generic::<F>(&Ge::from_portable(&pk.0), msg32, sig))
}

/// One item of [`verify_many`](super::verify_many): the arguments of [`verify`] (key, 32-byte
/// message hash,
/// signature).
pub type VerifyItem<'a> = (&'a PublicKey, &'a [u8; 32], &'a Signature);
