// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECDSA signing with RFC 6979 nonces (HMAC-SHA256 DRBG over key ‖ (z mod n)) and low S; the
//! secret path (k·G, k⁻¹, the products with d) is constant time.

use super::signature::Signature;
use crate::secp256k1::ecmult_gen::mul_g;
use crate::secp256k1::error::Error;
use crate::secp256k1::scalar::Scalar;

/// RFC 6979 nonce generator (HMAC-SHA256 DRBG) seeded with key ‖ msg.
pub(crate) struct Rfc6979 {
    k: [u8; 32],
    v: [u8; 32],
    retry: bool,
}

impl Rfc6979 {
    pub(crate) fn new(key: &[u8; 32], msg: &[u8; 32]) -> Rfc6979 {
        let mut k = [0u8; 32];
        let mut v = [1u8; 32];
        k = hmac_sha256(&k, &[&v, &[0x00], key, msg]);
        v = hmac_sha256(&k, &[&v]);
        k = hmac_sha256(&k, &[&v, &[0x01], key, msg]);
        v = hmac_sha256(&k, &[&v]);
        Rfc6979 { k, v, retry: false }
    }

    pub(crate) fn next(&mut self) -> [u8; 32] {
        if self.retry {
            self.k = hmac_sha256(&self.k, &[&self.v, &[0x00]]);
            self.v = hmac_sha256(&self.k, &[&self.v]);
        }
        self.v = hmac_sha256(&self.k, &[&self.v]);
        self.retry = true;
        self.v
    }
}

/// Signs a 32-byte message hash with RFC 6979 and low S; an error for an invalid key.
pub fn try_sign(seckey: &[u8; 32], msg32: &[u8; 32]) -> Result<Signature, Error> {
    let d = Scalar::from_bytes_nonzero(seckey)?;
    let z = Scalar::from_bytes_reduce(msg32).0;
    let mut rng = Rfc6979::new(seckey, &z.to_bytes());
    loop {
        let (k, overflow) = Scalar::from_bytes_reduce(&rng.next());
        if overflow || k.is_zero() {
            continue;
        }
        let rp = mul_g(&k);
        let (r, _) = Scalar::from_bytes_reduce(&rp.x.to_be_bytes());
        if r.is_zero() {
            continue;
        }
        let s = k.inv().mul(&z.add(&r.mul(&d)));
        if s.is_zero() {
            continue;
        }
        let s = s.select(&s.negate(), s.is_high());
        return Ok(Signature { r, s });
    }
}

/// Signs a 32-byte message hash with RFC 6979 nonces and low S.
///
/// # Panics
/// When `seckey` is zero or ≥ n (use [`try_sign`] to get an error instead).
pub fn sign(seckey: &[u8; 32], msg32: &[u8; 32]) -> Signature {
    try_sign(seckey, msg32).expect("ecdsa::sign: secret key must be in [1, n)")
}

/// HMAC-SHA256 (RFC 2104) over a list of message pieces.
fn hmac_sha256(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    use crate::hash::Sha256;
    let mut ipad = [0x36u8; 64];
    let mut opad = [0x5cu8; 64];
    for i in 0..32 {
        ipad[i] ^= key[i];
        opad[i] ^= key[i];
    }
    let mut h = Sha256::new();
    h.update(&ipad);
    for p in parts {
        h.update(p);
    }
    let inner = h.finalize();
    let mut h = Sha256::new();
    h.update(&opad);
    h.update(&inner);
    h.finalize()
}
