// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 verification of one signature: the challenge, s·G − e·P by `ecmult`, the projective
//! x check and the even-y check.

use crate::backend::Backend;
use crate::hash::tags;
use crate::secp256k1::ecmult::{ecmult, EcmultField};
use crate::secp256k1::field::inv_var;
use crate::secp256k1::group::Ge;
use crate::secp256k1::keys::XOnlyPublicKey;
use crate::secp256k1::scalar::Scalar;

/// e = H_challenge(r ‖ px ‖ m) mod n.
pub(crate) fn challenge(r: &[u8; 32], px: &[u8; 32], msg: &[u8]) -> Scalar {
    let mut h = tags::bip340_challenge().engine();
    h.update(r);
    h.update(px);
    h.update(msg);
    Scalar::from_bytes_reduce(&h.finalize()).0
}

/// The verification core, generic over the field backend. `pk` has even y.
pub(crate) fn verify_generic<F: EcmultField>(
    pk: &Ge<F>,
    pk_x: &[u8; 32],
    msg: &[u8],
    sig: &[u8; 64],
) -> bool {
    let r_bytes: &[u8; 32] = sig[..32].try_into().unwrap();
    let rx = match F::from_be_bytes(r_bytes) {
        Some(x) => x,
        None => return false,
    };
    let s = match Scalar::from_bytes(sig[32..].try_into().unwrap()) {
        Ok(s) => s,
        Err(_) => return false,
    };
    let e = challenge(r_bytes, pk_x, msg);
    let rp = ecmult(pk, &e.negate(), &s);
    if rp.infinity || !rp.x_eq_var(&rx) {
        return false;
    }
    let zi = inv_var(&rp.z);
    let y = rp.y.mul(&zi.sqr().mul(&zi)).normalize();
    !y.is_odd()
}

/// BIP340 verification on the detected backend; malformed input gives `false`.
///
/// ```
/// use fullverify::secp256k1::{schnorr, PublicKey, XOnlyPublicKey};
///
/// let seckey = [0x42; 32];
/// let (xonly, _) = PublicKey::from_secret(&seckey).unwrap().x_only();
/// let msg = b"any length of message";
/// let sig = schnorr::sign(&seckey, msg, &[0; 32]);
/// assert!(schnorr::verify(&xonly, msg, &sig));
///
/// // Keys travel as 32 bytes (BIP340 lift_x on parsing).
/// let parsed = XOnlyPublicKey::parse(&xonly.serialize()).unwrap();
/// assert!(schnorr::verify(&parsed, msg, &sig));
///
/// let mut bad = sig;
/// bad[63] ^= 1;
/// assert!(!schnorr::verify(&xonly, msg, &bad));
/// assert!(!schnorr::verify(&xonly, b"another message", &sig));
/// ```
pub fn verify(pk: &XOnlyPublicKey, msg: &[u8], sig: &[u8; 64]) -> bool {
    verify_with(Backend::detect(), pk, msg, sig)
}

/// [`verify`] on an explicit backend (a backend without secp256k1 kernels uses Portable).
/// Every backend gives the same answer.
///
/// ```
/// use fullverify::secp256k1::{schnorr, PublicKey, XOnlyPublicKey};
/// use fullverify::Backend;
///
/// let (xonly, _) = PublicKey::from_secret(&[0x42; 32]).unwrap().x_only();
/// let sig = schnorr::sign(&[0x42; 32], b"msg", &[7; 32]);
/// for backend in Backend::available() {
///     let pk = XOnlyPublicKey::parse_with(backend, &xonly.serialize()).unwrap();
///     assert!(schnorr::verify_with(backend, &pk, b"msg", &sig), "{backend}");
/// }
/// ```
pub fn verify_with(backend: Backend, pk: &XOnlyPublicKey, msg: &[u8], sig: &[u8; 64]) -> bool {
    let px = pk.serialize();
    with_field!(backend, F => verify_generic::<F>(&Ge::from_portable(&pk.0), &px, msg, sig))
}

/// One item of [`verify_many`](super::verify_many): the arguments of [`verify`] (key, message,
/// signature).
pub type VerifyItem<'a> = (&'a XOnlyPublicKey, &'a [u8], &'a [u8; 64]);
