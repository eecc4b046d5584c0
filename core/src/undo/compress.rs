// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mirrors Bitcoin Core's src/compressor.h and src/compressor.cpp (`CompressAmount`,
//! `DecompressAmount`, `ScriptCompression`, `TxOutCompression`) and `VARINT` of src/serialize.h.
//!
//! **VARINT** is Core's MSB-first base-128 code with a "+1" offset on every continuation digit:
//! a value `n ≤ 127` is one byte; otherwise the last byte holds `n & 0x7f` and the bytes before
//! it encode `(n >> 7) − 1` with the high bit set. Because of the offset every byte string ending
//! in a byte below 0x80 is the encoding of exactly one value: there is no longer form of a value
//! to reject (`80 00` is 128, not 0). What a reader must reject is a value beyond its field's
//! width, as `ReadVarInt` does ("size too large"): the coin code, the legacy version and the
//! script size are `uint32_t`/`unsigned int`, the amount `uint64_t`.
//!
//! **Amounts**: `CompressAmount` strips the trailing decimal zeros `e` (at most 9); for `e < 9`
//! the last remaining digit `d` (1–9) is folded in: `1 + 10·(9·n + d − 1) + e`; for `e = 9`
//! `1 + 10·(n − 1) + 9`; zero is 0. Core computes this in wrapping `uint64_t` arithmetic, as
//! [`compress_amount`] does, so it is exactly invertible for every amount up to `u64::MAX / 9`
//! (every amount a coin can have).
//!
//! **Scripts**: six special forms, selected by the first `VARINT` `nSize`:
//!
//! | nSize | script | payload |
//! | --- | --- | --- |
//! | 0 | P2PKH `76 a9 14 <20> 88 ac` | the 20-byte key hash |
//! | 1 | P2SH `a9 14 <20> 87` | the 20-byte script hash |
//! | 2, 3 | P2PK with a compressed key `21 02/03 <32> ac` | x; nSize is the key's prefix |
//! | 4, 5 | P2PK with an uncompressed key `41 04 <64> ac` | x; nSize is 4 + parity of y |
//!
//! Any other script is `VARINT(len + 6)` and the raw bytes. An uncompressed key is stored in form
//! 4/5 only when it is a valid curve point (`CPubKey::IsFullyValid`); reading it back needs y
//! again, which is taken from x by a square root ([`PublicKey::parse`] of the compressed key).
//! A compressed key is stored as it is, valid or not. A raw script longer than
//! [`MAX_SCRIPT_SIZE`] is read as the single byte `OP_RETURN`, its bytes skipped, as Core does
//! (such outputs are unspendable and never become coins).

use super::error::{UndoError, UndoErrorKind};
use crate::encode::{Reader, Sink, TxOut};
use crate::secp256k1::PublicKey;

/// `MAX_SCRIPT_SIZE` (script/script.h): longer raw scripts are read as `OP_RETURN`.
pub const MAX_SCRIPT_SIZE: usize = 10_000;

/// `nSpecialScripts`: script sizes below this select a special form.
pub const SPECIAL_SCRIPTS: u32 = 6;

const OP_RETURN: u8 = 0x6a;
const OP_DUP: u8 = 0x76;
const OP_HASH160: u8 = 0xa9;
const OP_EQUAL: u8 = 0x87;
const OP_EQUALVERIFY: u8 = 0x88;
const OP_CHECKSIG: u8 = 0xac;

/// Reads a `VARINT` whose value must not exceed `max` (`ReadVarInt` for a field of that width).
fn read_varint(r: &mut Reader<'_>, max: u64, bits: u32) -> Result<u64, UndoError> {
    let start = r.position() as u64;
    let mut n: u64 = 0;
    loop {
        let at = r.position() as u64;
        let b = r.u8().map_err(|e| UndoError::at(e.into(), at))?;
        if n > max >> 7 {
            return Err(UndoError::at(UndoErrorKind::VarIntTooLarge { bits }, start));
        }
        n = (n << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Ok(n);
        }
        if n == max {
            return Err(UndoError::at(UndoErrorKind::VarIntTooLarge { bits }, start));
        }
        n += 1;
    }
}

/// Reads a `VARINT` into a 32-bit field (the coin code, the legacy version, the script size).
pub fn read_varint_u32(r: &mut Reader<'_>) -> Result<u32, UndoError> {
    read_varint(r, u64::from(u32::MAX), 32).map(|v| v as u32)
}

/// Reads a `VARINT` into a 64-bit field (the compressed amount).
pub fn read_varint_u64(r: &mut Reader<'_>) -> Result<u64, UndoError> {
    read_varint(r, u64::MAX, 64)
}

/// The digits of `v`'s `VARINT`, last digit first; returns how many were used.
fn varint_digits(mut v: u64, tmp: &mut [u8; 10]) -> usize {
    let mut len = 0;
    loop {
        tmp[len] = (v & 0x7f) as u8 | if len > 0 { 0x80 } else { 0 };
        if v <= 0x7f {
            return len + 1;
        }
        v = (v >> 7) - 1;
        len += 1;
    }
}

/// Writes `v` as a `VARINT` (`WriteVarInt`).
pub fn write_varint<S: Sink + ?Sized>(s: &mut S, v: u64) {
    let mut tmp = [0u8; 10];
    let len = varint_digits(v, &mut tmp);
    tmp[..len].reverse();
    s.put(&tmp[..len]);
}

/// The length in bytes of `v`'s `VARINT`.
pub fn varint_len(v: u64) -> usize {
    varint_digits(v, &mut [0u8; 10])
}

/// Core's `CompressAmount`, in the same wrapping 64-bit arithmetic.
pub fn compress_amount(mut n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let mut e = 0u64;
    while n.is_multiple_of(10) && e < 9 {
        n /= 10;
        e += 1;
    }
    if e < 9 {
        let d = n % 10;
        n /= 10;
        1u64.wrapping_add(n.wrapping_mul(9).wrapping_add(d - 1).wrapping_mul(10)).wrapping_add(e)
    } else {
        1u64.wrapping_add((n - 1).wrapping_mul(10)).wrapping_add(9)
    }
}

/// Core's `DecompressAmount`; `None` where the result would exceed 64 bits (no amount
/// compresses to such an `x`; Core's arithmetic would wrap).
pub fn decompress_amount(x: u64) -> Option<u64> {
    if x == 0 {
        return Some(0);
    }
    let x = x - 1;
    let e = (x % 10) as u32;
    let x = x / 10;
    let n = if e < 9 {
        let d = x % 9 + 1;
        (x / 9).checked_mul(10)?.checked_add(d)?
    } else {
        x + 1
    };
    n.checked_mul(10u64.pow(e))
}

/// A script in one of the six special forms of Core's `ScriptCompression`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompressedScript {
    /// Form 0: `OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG`.
    P2pkh([u8; 20]),
    /// Form 1: `OP_HASH160 <20> OP_EQUAL`.
    P2sh([u8; 20]),
    /// Forms 2 and 3: `<33-byte key> OP_CHECKSIG` with prefix 0x02 (even) or 0x03 (odd y).
    P2pkCompressed {
        /// Whether the key's prefix is 0x03.
        odd: bool,
        /// The key's x coordinate (not checked to be on the curve, as in Core).
        x: [u8; 32],
    },
    /// Forms 4 and 5: `<65-byte key 04 x y> OP_CHECKSIG` for a valid curve point, stored as x
    /// and the parity of y.
    P2pkUncompressed {
        /// Whether y is odd.
        odd: bool,
        /// The key's x coordinate.
        x: [u8; 32],
    },
}

impl CompressedScript {
    /// Core's `CompressScript`: the special form of `spk`, or `None` when it is stored raw.
    pub fn from_script(spk: &[u8]) -> Option<CompressedScript> {
        match spk.len() {
            25 if spk[..3] == [OP_DUP, OP_HASH160, 20] && spk[23..] == [OP_EQUALVERIFY, OP_CHECKSIG] => {
                Some(CompressedScript::P2pkh(spk[3..23].try_into().expect("20 bytes")))
            }
            23 if spk[..2] == [OP_HASH160, 20] && spk[22] == OP_EQUAL => {
                Some(CompressedScript::P2sh(spk[2..22].try_into().expect("20 bytes")))
            }
            35 if spk[0] == 33 && spk[34] == OP_CHECKSIG && (spk[1] == 0x02 || spk[1] == 0x03) => {
                Some(CompressedScript::P2pkCompressed {
                    odd: spk[1] == 0x03,
                    x: spk[2..34].try_into().expect("32 bytes"),
                })
            }
            // `IsFullyValid`: only a key that parses (on the curve, coordinates below p).
            67 if spk[0] == 65
                && spk[66] == OP_CHECKSIG
                && spk[1] == 0x04
                && PublicKey::parse(&spk[1..66]).is_ok() =>
            {
                Some(CompressedScript::P2pkUncompressed {
                    odd: spk[65] & 1 == 1,
                    x: spk[2..34].try_into().expect("32 bytes"),
                })
            }
            _ => None,
        }
    }

    /// The form number (`nSize`, 0–5).
    pub fn kind(&self) -> u8 {
        match self {
            CompressedScript::P2pkh(_) => 0,
            CompressedScript::P2sh(_) => 1,
            CompressedScript::P2pkCompressed { odd, .. } => 2 + *odd as u8,
            CompressedScript::P2pkUncompressed { odd, .. } => 4 + *odd as u8,
        }
    }

    /// The bytes stored after the form number (20 or 32).
    pub fn payload(&self) -> &[u8] {
        match self {
            CompressedScript::P2pkh(h) | CompressedScript::P2sh(h) => h,
            CompressedScript::P2pkCompressed { x, .. } | CompressedScript::P2pkUncompressed { x, .. } => x,
        }
    }

    /// Core's `GetSpecialScriptSize`: the payload length of form `kind` (`kind < 6`).
    pub fn payload_len(kind: u32) -> usize {
        if kind < 2 {
            20
        } else {
            32
        }
    }

    /// The form `kind` (`< 6`) with its payload; `None` for a payload of the wrong length or
    /// a kind of 6 and more.
    pub fn from_parts(kind: u32, payload: &[u8]) -> Option<CompressedScript> {
        if kind >= SPECIAL_SCRIPTS || payload.len() != Self::payload_len(kind) {
            return None;
        }
        Some(match kind {
            0 => CompressedScript::P2pkh(payload.try_into().ok()?),
            1 => CompressedScript::P2sh(payload.try_into().ok()?),
            2 | 3 => CompressedScript::P2pkCompressed { odd: kind == 3, x: payload.try_into().ok()? },
            _ => CompressedScript::P2pkUncompressed { odd: kind == 5, x: payload.try_into().ok()? },
        })
    }

    /// Core's `DecompressScript`: the scriptPubKey. Forms 4 and 5 recover y from x; an x that is
    /// no curve point's is [`UndoErrorKind::InvalidCompressedKey`].
    pub fn to_script(&self) -> Result<Vec<u8>, UndoErrorKind> {
        Ok(match self {
            CompressedScript::P2pkh(h) => {
                [&[OP_DUP, OP_HASH160, 20][..], h, &[OP_EQUALVERIFY, OP_CHECKSIG]].concat()
            }
            CompressedScript::P2sh(h) => [&[OP_HASH160, 20][..], h, &[OP_EQUAL]].concat(),
            CompressedScript::P2pkCompressed { odd, x } => {
                [&[33, 0x02 | *odd as u8][..], x, &[OP_CHECKSIG]].concat()
            }
            CompressedScript::P2pkUncompressed { odd, x } => {
                let mut key = [0u8; 33];
                key[0] = 0x02 | *odd as u8;
                key[1..].copy_from_slice(x);
                let pk = PublicKey::parse(&key).map_err(|_| UndoErrorKind::InvalidCompressedKey)?;
                [&[65][..], &pk.serialize_uncompressed(), &[OP_CHECKSIG]].concat()
            }
        })
    }
}

/// Writes `spk` in Core's `ScriptCompression`: a special form when it has one, else
/// `VARINT(len + 6)` and the bytes.
pub fn write_script<S: Sink + ?Sized>(s: &mut S, spk: &[u8]) {
    match CompressedScript::from_script(spk) {
        Some(c) => {
            s.put(&[c.kind()]);
            s.put(c.payload());
        }
        None => {
            write_varint(s, spk.len() as u64 + u64::from(SPECIAL_SCRIPTS));
            s.put(spk);
        }
    }
}

/// The length of [`write_script`]'s encoding of `spk`.
pub fn script_len(spk: &[u8]) -> usize {
    match CompressedScript::from_script(spk) {
        Some(c) => 1 + c.payload().len(),
        None => varint_len(spk.len() as u64 + u64::from(SPECIAL_SCRIPTS)) + spk.len(),
    }
}

/// Reads a script in Core's `ScriptCompression` (offsets in errors are the reader's).
pub fn read_script(r: &mut Reader<'_>) -> Result<Vec<u8>, UndoError> {
    let start = r.position() as u64;
    let n = read_varint_u32(r)?;
    let at = r.position() as u64;
    if n < SPECIAL_SCRIPTS {
        let payload =
            r.bytes(CompressedScript::payload_len(n) as u64).map_err(|e| UndoError::at(e.into(), at))?;
        let c = CompressedScript::from_parts(n, payload).expect("kind and length checked");
        return c.to_script().map_err(|k| UndoError::at(k, start));
    }
    let len = u64::from(n - SPECIAL_SCRIPTS);
    let bytes = r.bytes(len).map_err(|e| UndoError::at(e.into(), at))?;
    if len > MAX_SCRIPT_SIZE as u64 {
        // Overly long script: replaced with a short invalid one.
        return Ok(vec![OP_RETURN]);
    }
    Ok(bytes.to_vec())
}

/// Writes an output in Core's `TxOutCompression`: `VARINT(CompressAmount(value))` then the
/// compressed script. The value is taken as `uint64_t`, as Core converts it.
pub fn write_txout<S: Sink + ?Sized>(s: &mut S, out: &TxOut) {
    write_varint(s, compress_amount(out.value as u64));
    write_script(s, &out.script_pubkey);
}

/// Reads an output in Core's `TxOutCompression` (the inverse of [`write_txout`]).
pub fn read_txout(r: &mut Reader<'_>) -> Result<TxOut, UndoError> {
    let at = r.position() as u64;
    let x = read_varint_u64(r)?;
    let amount = decompress_amount(x).ok_or_else(|| UndoError::at(UndoErrorKind::AmountOverflow(x), at))?;
    let script_pubkey = read_script(r)?;
    Ok(TxOut { value: amount as i64, script_pubkey })
}
