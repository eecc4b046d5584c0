// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECDSA signatures: compact (r ‖ s) and DER encodings, libsecp256k1's strict DER parser and
//! Bitcoin Core's lax one (`ecdsa_signature_parse_der_lax`, `src/pubkey.cpp`).

use crate::secp256k1::error::Error;
use crate::secp256k1::scalar::Scalar;

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
