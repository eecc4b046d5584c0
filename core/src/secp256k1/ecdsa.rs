// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECDSA over secp256k1 with Bitcoin Core's verification semantics.
//!
//! Verification of (r, s) on message hash z (reduced mod n) under key Q:
//! u1 = z·s⁻¹, u2 = r·s⁻¹, R = u1·G + u2·Q; valid iff R ≠ ∞ and x(R) ≡ r (mod n).
//! Since n < p, x(R) mod n = r means x(R) ∈ {r, r + n} (the latter only when r + n < p); each
//! candidate is compared projectively as c·Z² = X, so no field inversion is needed.
//! s⁻¹ uses the variable-time safegcd inverse (all inputs are public).
//! A high s (> n/2) verifies exactly like n − s (R just changes sign), matching consensus,
//! which normalizes s before verifying.
//!
//! Parsing: [`Signature::from_der`] is libsecp256k1's strict DER parser; [`Signature::from_der_lax`]
//! follows Bitcoin Core's `ecdsa_signature_parse_der_lax` (pubkey.cpp). In both, an integer that
//! does not fit below n yields the all-zero signature, which never verifies.
//!
//! Signing: RFC 6979 nonces (HMAC-SHA256 DRBG over key ‖ (z mod n)), low-S output; the secret
//! path (k·G, k⁻¹, the products with d) is constant time.

use super::ecmult::{ecmult, EcmultField};
use super::ecmult_gen::mul_g;
use super::field::P_WORDS;
use super::group::Ge;
use super::scalar::{Scalar, N};
use super::{hmac_sha256, Error, PublicKey};
use crate::backend::Backend;

/// An ECDSA signature (r, s); either may be zero after lax/strict parsing of an overflowing
/// integer, in which case it never verifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// r: x(k·G) mod n.
    pub r: Scalar,
    /// s = k⁻¹·(z + r·d) mod n.
    pub s: Scalar,
}

impl Signature {
    /// 64 bytes r ‖ s; an error when r or s is ≥ n (zero values are accepted and fail later).
    pub fn from_compact(b: &[u8; 64]) -> Result<Signature, Error> {
        let r = Scalar::from_bytes(b[..32].try_into().unwrap())?;
        let s = Scalar::from_bytes(b[32..].try_into().unwrap())?;
        Ok(Signature { r, s })
    }

    /// 64 bytes r ‖ s.
    pub fn to_compact(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r.to_bytes());
        out[32..].copy_from_slice(&self.s.to_bytes());
        out
    }

    /// Strict DER (libsecp256k1 `ecdsa_signature_parse_der`).
    pub fn from_der(b: &[u8]) -> Result<Signature, Error> {
        let mut pos = 0usize;
        if b.first() != Some(&0x30) {
            return Err(Error::InvalidDer);
        }
        pos += 1;
        let len = der_read_len(b, &mut pos)?;
        if len != b.len() - pos {
            return Err(Error::InvalidDer);
        }
        let r = der_parse_integer(b, &mut pos)?;
        let s = der_parse_integer(b, &mut pos)?;
        if pos != b.len() {
            return Err(Error::InvalidDer);
        }
        Ok(Signature { r, s })
    }

    /// Lax DER as Bitcoin Core's `ecdsa_signature_parse_der_lax`: tolerates negative integers,
    /// excess padding, garbage after the signature and overlong length descriptors.
    pub fn from_der_lax(input: &[u8]) -> Result<Signature, Error> {
        let n = input.len();
        let mut pos = 0usize;
        let err = Err(Error::InvalidDer);
        // Sequence tag.
        if pos == n || input[pos] != 0x30 {
            return err;
        }
        pos += 1;
        // Sequence length: skipped (a long form's bytes are jumped over).
        if pos == n {
            return err;
        }
        let mut lenbyte = input[pos] as usize;
        pos += 1;
        if lenbyte & 0x80 != 0 {
            lenbyte -= 0x80;
            if lenbyte > n - pos {
                return err;
            }
            pos += lenbyte;
        }
        let (rpos, rlen) = match lax_integer(input, &mut pos) {
            Some(v) => v,
            None => return err,
        };
        pos = rpos + rlen;
        let (spos, slen) = match lax_integer(input, &mut pos) {
            Some(v) => v,
            None => return err,
        };
        let strip = |mut p: usize, mut l: usize| {
            while l > 0 && input[p] == 0 {
                p += 1;
                l -= 1;
            }
            (p, l)
        };
        let (rpos, rlen) = strip(rpos, rlen);
        let (spos, slen) = strip(spos, slen);
        let mut tmp = [0u8; 64];
        let mut overflow = rlen > 32 || slen > 32;
        if !overflow {
            tmp[32 - rlen..32].copy_from_slice(&input[rpos..rpos + rlen]);
            tmp[64 - slen..64].copy_from_slice(&input[spos..spos + slen]);
        }
        let mut sig = Signature { r: Scalar::ZERO, s: Scalar::ZERO };
        if !overflow {
            match Signature::from_compact(&tmp) {
                Ok(s) => sig = s,
                Err(_) => overflow = true,
            }
        }
        if overflow {
            sig = Signature { r: Scalar::ZERO, s: Scalar::ZERO };
        }
        Ok(sig)
    }

    /// Strict DER encoding (minimal integers).
    pub fn to_der(&self) -> Vec<u8> {
        fn int(v: &[u8; 32]) -> Vec<u8> {
            let start = v.iter().position(|&b| b != 0).unwrap_or(31);
            let mut out = Vec::with_capacity(33);
            if v[start] & 0x80 != 0 {
                out.push(0);
            }
            out.extend_from_slice(&v[start..]);
            out
        }
        let r = int(&self.r.to_bytes());
        let s = int(&self.s.to_bytes());
        let mut out = Vec::with_capacity(6 + r.len() + s.len());
        out.push(0x30);
        out.push((4 + r.len() + s.len()) as u8);
        out.push(0x02);
        out.push(r.len() as u8);
        out.extend_from_slice(&r);
        out.push(0x02);
        out.push(s.len() as u8);
        out.extend_from_slice(&s);
        out
    }

    /// Replaces a high s by n − s; returns whether s was high.
    pub fn normalize_s(&mut self) -> bool {
        let high = self.s.is_high();
        if high {
            self.s = self.s.negate();
        }
        high
    }
}

/// One lax INTEGER header: returns (content position, content length) with bounds checked.
fn lax_integer(input: &[u8], pos: &mut usize) -> Option<(usize, usize)> {
    let n = input.len();
    if *pos == n || input[*pos] != 0x02 {
        return None;
    }
    *pos += 1;
    if *pos == n {
        return None;
    }
    let mut lenbyte = input[*pos] as usize;
    *pos += 1;
    let len;
    if lenbyte & 0x80 != 0 {
        lenbyte -= 0x80;
        if lenbyte > n - *pos {
            return None;
        }
        while lenbyte > 0 && input[*pos] == 0 {
            *pos += 1;
            lenbyte -= 1;
        }
        if lenbyte >= 4 {
            return None;
        }
        let mut l = 0usize;
        while lenbyte > 0 {
            l = (l << 8) + input[*pos] as usize;
            *pos += 1;
            lenbyte -= 1;
        }
        len = l;
    } else {
        len = lenbyte;
    }
    if len > n - *pos {
        return None;
    }
    Some((*pos, len))
}

/// A DER length (strict: minimal, definite).
fn der_read_len(b: &[u8], pos: &mut usize) -> Result<usize, Error> {
    let e = Err(Error::InvalidDer);
    if *pos >= b.len() {
        return e;
    }
    let b1 = b[*pos];
    *pos += 1;
    if b1 == 0xFF {
        return e;
    }
    if b1 & 0x80 == 0 {
        return Ok(b1 as usize);
    }
    if b1 == 0x80 {
        return e;
    }
    let mut left = (b1 & 0x7F) as usize;
    if left > b.len() - *pos {
        return e;
    }
    if b[*pos] == 0 {
        return e;
    }
    if left > core::mem::size_of::<usize>() {
        return e;
    }
    let mut len = 0usize;
    while left > 0 {
        len = (len << 8) | b[*pos] as usize;
        *pos += 1;
        left -= 1;
    }
    if len > b.len() - *pos || len < 128 {
        return e;
    }
    Ok(len)
}

/// A strict DER INTEGER; values that are negative or ≥ n become zero.
fn der_parse_integer(b: &[u8], pos: &mut usize) -> Result<Scalar, Error> {
    let e = Err(Error::InvalidDer);
    if *pos >= b.len() || b[*pos] != 0x02 {
        return e;
    }
    *pos += 1;
    let mut len = der_read_len(b, pos)?;
    if len == 0 || len > b.len() - *pos {
        return e;
    }
    let first = b[*pos];
    if first == 0x00 && len > 1 && b[*pos + 1] & 0x80 == 0 {
        return e;
    }
    if first == 0xFF && len > 1 && b[*pos + 1] & 0x80 != 0 {
        return e;
    }
    let mut overflow = first & 0x80 != 0;
    let mut p = *pos;
    *pos += len;
    while len > 0 && b[p] == 0 {
        len -= 1;
        p += 1;
    }
    if len > 32 {
        overflow = true;
    }
    let mut v = Scalar::ZERO;
    if !overflow {
        let mut buf = [0u8; 32];
        buf[32 - len..].copy_from_slice(&b[p..p + len]);
        match Scalar::from_bytes(&buf) {
            Ok(s) => v = s,
            Err(_) => overflow = true,
        }
    }
    Ok(if overflow { Scalar::ZERO } else { v })
}

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
    let rw = r.to_words();
    if rp.x_eq_var(&F::from_u64x4(rw)) {
        return true;
    }
    if super::field::words_ge(&rw, &P_MINUS_N) {
        return false;
    }
    // r + n < p: compare with r + n as a field element.
    let mut w = [0u64; 4];
    let mut carry = 0u128;
    for i in 0..4 {
        let t = rw[i] as u128 + N[i] as u128 + carry;
        w[i] = t as u64;
        carry = t >> 64;
    }
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

// ---- Many signatures at once ----------------------------------------------------------------

/// One item of [`verify_many`]: the arguments of [`verify`] (key, 32-byte message hash,
/// signature).
pub type VerifyItem<'a> = (&'a PublicKey, &'a [u8; 32], &'a Signature);

/// Verifies every item on `backend` and returns one answer per item, in order; each equals
/// [`verify_with`] on the same arguments.
///
/// On an Ifma token the items are verified eight at a time, one per lane of the AVX-512
/// registers (a remainder of three to seven runs as one group with idle lanes, of one or two
/// one by one on the best scalar field); on other
/// backends this is a loop over [`verify_with`].
///
/// ```
/// use fullverify::secp256k1::{ecdsa, PublicKey};
/// use fullverify::Backend;
///
/// let keys: Vec<_> = (1..=10u8).map(|i| PublicKey::from_secret(&[i; 32]).unwrap()).collect();
/// let msgs: Vec<[u8; 32]> = (1..=10u8).map(|i| [i ^ 0x55; 32]).collect();
/// let sigs: Vec<_> = (1..=10u8).map(|i| ecdsa::sign(&[i; 32], &msgs[i as usize - 1])).collect();
/// let mut items: Vec<ecdsa::VerifyItem> = (0..10).map(|i| (&keys[i], &msgs[i], &sigs[i])).collect();
/// items[9].0 = &keys[0];
/// let ok = ecdsa::verify_many(Backend::detect(), &items);
/// assert_eq!(ok, [true, true, true, true, true, true, true, true, true, false]);
/// ```
pub fn verify_many(backend: Backend, items: &[VerifyItem<'_>]) -> Vec<bool> {
    super::many::ecdsa_verify_many(backend, items)
}
