// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 Schnorr signatures.
//!
//! Verification of (r, s) on message m under x-only key P (lifted with even y):
//! fail if r ≥ p or s ≥ n; e = H_challenge(r ‖ x(P) ‖ m) mod n; R = s·G − e·P;
//! fail if R = ∞, x(R) ≠ r, or y(R) odd. x(R) = r is checked projectively (r·Z² = X) first,
//! so a wrong signature costs no inversion; the even-y test then needs one variable-time
//! inversion of Z.
//!
//! Signing (BIP340 default scheme): d = ±sk so that d·G has even y; t = d ⊕ H_aux(aux);
//! k' = H_nonce(t ‖ x(P) ‖ m) mod n; k = ±k' so that R = k·G has even y;
//! sig = x(R) ‖ (k + e·d mod n). The secret path is constant time.
//!
//! Batch verification ([`verify_batch`], [`find_invalid`]) checks many signatures with one
//! multi-scalar multiplication; it is written in its own module and re-exported here.

use super::ecmult::{ecmult, EcmultField};
use super::ecmult_gen::mul_g;
use super::field::inv_var;
use super::group::Ge;
use super::scalar::Scalar;
use super::{Error, XOnlyPublicKey};
use crate::backend::Backend;
use crate::hash::tags;

// Batch verification lives in its own module (`secp256k1::batch`).
pub use super::batch::{
    find_invalid, find_invalid_with, verify_batch, verify_batch_with, verify_batch_with_algorithm,
    verify_batch_with_stats, BatchItem, FIND_INVALID_LEAF,
};

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

/// BIP340 signing; an error when the secret key is zero or ≥ n.
pub fn try_sign(seckey: &[u8; 32], msg: &[u8], aux: &[u8; 32]) -> Result<[u8; 64], Error> {
    let d0 = Scalar::from_bytes_nonzero(seckey)?;
    let p = mul_g(&d0);
    let d = d0.select(&d0.negate(), p.y.is_odd());
    let px = p.x.to_be_bytes();
    let mask = tags::bip340_aux().hash(aux);
    let mut t = d.to_bytes();
    for i in 0..32 {
        t[i] ^= mask[i];
    }
    let mut h = tags::bip340_nonce().engine();
    h.update(&t);
    h.update(&px);
    h.update(msg);
    let k0 = Scalar::from_bytes_reduce(&h.finalize()).0;
    if k0.is_zero() {
        // Probability 2^-256; BIP340 says fail.
        return Err(Error::ZeroScalar);
    }
    let rp = mul_g(&k0);
    let k = k0.select(&k0.negate(), rp.y.is_odd());
    let rx = rp.x.to_be_bytes();
    let e = challenge(&rx, &px, msg);
    let s = k.add(&e.mul(&d));
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&rx);
    out[32..].copy_from_slice(&s.to_bytes());
    Ok(out)
}

/// BIP340 signing with auxiliary randomness `aux`.
///
/// # Panics
/// When `seckey` is zero or ≥ n (use [`try_sign`] to get an error instead).
pub fn sign(seckey: &[u8; 32], msg: &[u8], aux: &[u8; 32]) -> [u8; 64] {
    try_sign(seckey, msg, aux).expect("schnorr::sign: secret key must be in [1, n)")
}

// ---- Many signatures at once ----------------------------------------------------------------

/// One item of [`verify_many`]: the arguments of [`verify`] (key, message, signature).
pub type VerifyItem<'a> = (&'a XOnlyPublicKey, &'a [u8], &'a [u8; 64]);

/// Verifies every item on `backend` and returns one answer per item, in order; each equals
/// [`verify_with`] on the same arguments.
///
/// On an Ifma token the items are verified eight at a time, one per lane of the AVX-512
/// registers (a remainder of three to seven runs as one group with idle lanes, of one or two
/// one by one on the best scalar field); on other
/// backends this is a loop over [`verify_with`].
///
/// ```
/// use fullverify::secp256k1::{schnorr, PublicKey};
/// use fullverify::Backend;
///
/// let keys: Vec<_> = (1..=10u8).map(|i| PublicKey::from_secret(&[i; 32]).unwrap().x_only().0).collect();
/// let sigs: Vec<_> = (1..=10u8).map(|i| schnorr::sign(&[i; 32], b"m", &[0; 32])).collect();
/// let mut items: Vec<schnorr::VerifyItem> = keys.iter().zip(&sigs).map(|(k, s)| (k, &b"m"[..], s)).collect();
/// items[3].1 = b"another";
/// let ok = schnorr::verify_many(Backend::detect(), &items);
/// assert_eq!(ok.iter().filter(|&&b| b).count(), 9);
/// assert!(!ok[3]);
/// ```
pub fn verify_many(backend: Backend, items: &[VerifyItem<'_>]) -> Vec<bool> {
    super::many::schnorr_verify_many(backend, items)
}
