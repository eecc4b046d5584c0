// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 signing (the default scheme with auxiliary randomness); the secret path is constant
//! time.

use super::verify::challenge;
use crate::hash::tags;
use crate::secp256k1::ecmult_gen::mul_g;
use crate::secp256k1::error::Error;
use crate::secp256k1::scalar::Scalar;

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
