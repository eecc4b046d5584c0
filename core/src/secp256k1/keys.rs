// SPDX-License-Identifier: MIT OR Apache-2.0
//! Public keys: SEC1 parsing as libsecp256k1 does it (compressed, uncompressed, hybrid with the
//! parity check), BIP340 x-only keys (lift_x, even y), bulk parsing, and the BIP341 tweak.

use super::ecmult;
use super::ecmult_gen;
use super::error::Error;
use super::field::FieldOps;
use super::group::Ge;
use super::lift::{decompress, from_x_many};
use super::point::AffinePoint;
use super::scalar::Scalar;
use crate::backend::portable::field::Fe5x52;
use crate::backend::Backend;

/// The compressed keys' (x, parity) pairs of `keys` that pass the prefix and range checks,
/// decompressed together with [`many::from_x_many`]; every other key parsed on its own.
fn parse_many_impl<K>(
    backend: Backend,
    keys: &[K],
    split: impl Fn(&K) -> Result<Option<(Fe5x52, bool)>, Error>,
    finish: impl Fn(&K) -> Result<Ge<Fe5x52>, Error>,
) -> Vec<Result<Ge<Fe5x52>, Error>> {
    let mut out: Vec<Result<Ge<Fe5x52>, Error>> = Vec::with_capacity(keys.len());
    let mut pending: Vec<(Fe5x52, bool)> = Vec::new();
    let mut slots: Vec<usize> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        match split(k) {
            Ok(Some(xo)) => {
                pending.push(xo);
                slots.push(i);
                out.push(Err(Error::NotOnCurve));
            }
            Ok(None) => out.push(finish(k)),
            Err(e) => out.push(Err(e)),
        }
    }
    for (slot, p) in slots.into_iter().zip(from_x_many(backend, &pending)) {
        out[slot] = p.ok_or(Error::NotOnCurve);
    }
    out
}

/// A valid public key (a finite curve point), normalized.
#[derive(Clone, Copy, Debug)]
pub struct PublicKey(pub(crate) Ge<Fe5x52>);

/// Keys are equal when their encodings are (the point is stored normalized, but the encoding
/// is what a key is).
macro_rules! eq_by_encoding {
    ($($T:ident => $encode:ident),*) => {$(
        impl PartialEq for $T {
            fn eq(&self, o: &$T) -> bool {
                self.$encode() == o.$encode()
            }
        }
        impl Eq for $T {}
    )*};
}

eq_by_encoding!(PublicKey => serialize_uncompressed, XOnlyPublicKey => serialize);

impl PublicKey {
    /// Parses a SEC1 public key exactly as libsecp256k1's `ec_pubkey_parse`, decompressing on
    /// the detected backend.
    ///
    /// ```
    /// use fullverify::secp256k1::{Error, PublicKey};
    ///
    /// let pk = PublicKey::from_secret(&[7; 32]).unwrap();
    /// let c = pk.serialize_compressed();
    /// assert_eq!(PublicKey::parse(&c), Ok(pk));
    /// assert_eq!(PublicKey::parse(&pk.serialize_uncompressed()), Ok(pk));
    /// assert_eq!(PublicKey::parse(&c[..32]), Err(Error::InvalidLength));
    /// ```
    pub fn parse(b: &[u8]) -> Result<PublicKey, Error> {
        PublicKey::parse_with(Backend::detect(), b)
    }

    /// [`PublicKey::parse`] with compressed keys decompressed on `backend`.
    pub fn parse_with(backend: Backend, b: &[u8]) -> Result<PublicKey, Error> {
        match b.len() {
            33 => {
                if b[0] != 0x02 && b[0] != 0x03 {
                    return Err(Error::InvalidPrefix);
                }
                Ok(PublicKey(decompress(backend, b[1..33].try_into().unwrap(), b[0] == 0x03)?))
            }
            65 => {
                if !matches!(b[0], 0x04 | 0x06 | 0x07) {
                    return Err(Error::InvalidPrefix);
                }
                let x = Fe5x52::from_be_bytes(b[1..33].try_into().unwrap()).ok_or(Error::FieldOverflow)?;
                let y = Fe5x52::from_be_bytes(b[33..65].try_into().unwrap()).ok_or(Error::FieldOverflow)?;
                if b[0] != 0x04 && y.is_odd() != (b[0] == 0x07) {
                    return Err(Error::HybridParity);
                }
                let p = Ge { x, y, infinity: false };
                if !p.is_valid_var() {
                    return Err(Error::NotOnCurve);
                }
                Ok(PublicKey(p))
            }
            _ => Err(Error::InvalidLength),
        }
    }

    /// [`PublicKey::parse_with`] on every key of `keys`, in order. On an Ifma or Avx2 token the
    /// compressed keys' square roots are taken eight at a time, one per lane.
    ///
    /// ```
    /// use fullverify::secp256k1::{Error, PublicKey};
    /// use fullverify::Backend;
    ///
    /// let pk = PublicKey::from_secret(&[3; 32]).unwrap();
    /// let (c, u) = (pk.serialize_compressed(), pk.serialize_uncompressed());
    /// let keys: Vec<&[u8]> = vec![&c, &u, &c[..32], &c, &c, &c, &c, &c, &c, &c];
    /// let got = PublicKey::parse_many_with(Backend::detect(), &keys);
    /// assert_eq!(got[0], Ok(pk));
    /// assert_eq!(got[1], Ok(pk));
    /// assert_eq!(got[2], Err(Error::InvalidLength));
    /// assert!(got[3..].iter().all(|k| *k == Ok(pk)));
    /// ```
    pub fn parse_many_with(backend: Backend, keys: &[&[u8]]) -> Vec<Result<PublicKey, Error>> {
        let split = |b: &&[u8]| -> Result<Option<(Fe5x52, bool)>, Error> {
            if b.len() != 33 {
                return Ok(None);
            }
            if b[0] != 0x02 && b[0] != 0x03 {
                return Err(Error::InvalidPrefix);
            }
            let x = Fe5x52::from_be_bytes(b[1..33].try_into().unwrap()).ok_or(Error::FieldOverflow)?;
            Ok(Some((x, b[0] == 0x03)))
        };
        let finish = |b: &&[u8]| PublicKey::parse_with(backend, b).map(|k| k.0);
        parse_many_impl(backend, keys, split, finish).into_iter().map(|r| r.map(PublicKey)).collect()
    }

    /// The public key d·G of a secret key (constant time in d).
    pub fn from_secret(seckey: &[u8; 32]) -> Result<PublicKey, Error> {
        let d = Scalar::from_bytes_nonzero(seckey)?;
        Ok(PublicKey(ecmult_gen::mul_g(&d)))
    }

    /// 33 bytes: 0x02/0x03 (parity of y) then x.
    pub fn serialize_compressed(&self) -> [u8; 33] {
        let mut out = [0u8; 33];
        out[0] = 0x02 | (self.0.y.is_odd() as u8);
        out[1..].copy_from_slice(&self.0.x.to_be_bytes());
        out
    }

    /// 65 bytes: 0x04, x, y.
    pub fn serialize_uncompressed(&self) -> [u8; 65] {
        let mut out = [0u8; 65];
        out[0] = 0x04;
        out[1..33].copy_from_slice(&self.0.x.to_be_bytes());
        out[33..].copy_from_slice(&self.0.y.to_be_bytes());
        out
    }

    /// The point.
    pub fn point(&self) -> AffinePoint {
        AffinePoint(self.0)
    }

    /// The x-only key and whether y was odd.
    pub fn x_only(&self) -> (XOnlyPublicKey, bool) {
        let odd = self.0.y.is_odd();
        let p = if odd { self.0.neg().normalize() } else { self.0 };
        (XOnlyPublicKey(p), odd)
    }
}

/// A BIP340 x-only public key: the curve point with this x and even y.
#[derive(Clone, Copy, Debug)]
pub struct XOnlyPublicKey(pub(crate) Ge<Fe5x52>);

impl XOnlyPublicKey {
    /// lift_x on the detected backend: fails when x ≥ p or x³ + 7 is not a square.
    pub fn parse(b: &[u8; 32]) -> Result<XOnlyPublicKey, Error> {
        XOnlyPublicKey::parse_with(Backend::detect(), b)
    }

    /// [`XOnlyPublicKey::parse`] with the square root computed on `backend`.
    pub fn parse_with(backend: Backend, b: &[u8; 32]) -> Result<XOnlyPublicKey, Error> {
        decompress(backend, b, false).map(XOnlyPublicKey)
    }

    /// [`XOnlyPublicKey::parse_with`] on every key of `keys`, in order; on an Ifma or Avx2
    /// token the square roots are taken eight at a time, one per lane.
    ///
    /// ```
    /// use fullverify::secp256k1::{Error, PublicKey, XOnlyPublicKey};
    /// use fullverify::Backend;
    ///
    /// let x = PublicKey::from_secret(&[5; 32]).unwrap().x_only().0;
    /// let mut keys = vec![x.serialize(); 9];
    /// keys[4] = [0xff; 32]; // above p
    /// let got = XOnlyPublicKey::parse_many_with(Backend::detect(), &keys);
    /// assert_eq!(got[4], Err(Error::FieldOverflow));
    /// assert!(got.iter().enumerate().all(|(i, k)| i == 4 || *k == Ok(x)));
    /// ```
    pub fn parse_many_with(backend: Backend, keys: &[[u8; 32]]) -> Vec<Result<XOnlyPublicKey, Error>> {
        let split =
            |b: &[u8; 32]| Fe5x52::from_be_bytes(b).ok_or(Error::FieldOverflow).map(|x| Some((x, false)));
        let finish = |_: &[u8; 32]| unreachable!("every x-only key goes through the square root");
        parse_many_impl(backend, keys, split, finish).into_iter().map(|r| r.map(XOnlyPublicKey)).collect()
    }

    /// The 32-byte x coordinate.
    pub fn serialize(&self) -> [u8; 32] {
        self.0.x.to_be_bytes()
    }

    /// The full point (even y).
    pub fn point(&self) -> AffinePoint {
        AffinePoint(self.0)
    }

    /// BIP341 output-key tweak: Q = P + t·G. Returns the x-only Q and the parity of its y.
    /// Fails when t ≥ n or Q is infinity.
    pub fn tweak_add(&self, tweak: &[u8; 32]) -> Result<(XOnlyPublicKey, bool), Error> {
        let t = Scalar::from_bytes(tweak)?;
        let q = ecmult::ecmult(&self.0, &Scalar::ONE, &t);
        if q.infinity {
            return Err(Error::Infinity);
        }
        let q = q.to_ge_var();
        Ok(PublicKey(q).x_only())
    }
}

/// Whether `output_xonly` with parity `output_parity` equals internal + t·G, as libsecp256k1's
/// `xonly_pubkey_tweak_add_check` (the taproot script-path commitment check).
pub fn tweak_add_check(
    internal: &XOnlyPublicKey,
    tweak: &[u8; 32],
    output_xonly: &[u8; 32],
    output_parity: bool,
) -> bool {
    match internal.tweak_add(tweak) {
        Ok((q, odd)) => q.serialize() == *output_xonly && odd == output_parity,
        Err(_) => false,
    }
}

/// BIP341 secret-key tweak for key-path signing: d' = (±d) + t with the sign making d·G's y
/// even. Fails when d or t is out of range or d' = 0. Constant time in d.
pub fn secret_tweak_add_xonly(seckey: &[u8; 32], tweak: &[u8; 32]) -> Result<[u8; 32], Error> {
    let d = Scalar::from_bytes_nonzero(seckey)?;
    let t = Scalar::from_bytes(tweak)?;
    let p = ecmult_gen::mul_g(&d);
    let d = d.select(&d.negate(), p.y.is_odd());
    let r = d.add(&t);
    if r.is_zero() {
        return Err(Error::ZeroScalar);
    }
    Ok(r.to_bytes())
}
