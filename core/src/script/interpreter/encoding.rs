// SPDX-License-Identifier: MIT OR Apache-2.0
//! Encoding rules for signatures, public keys and pushes: `IsValidSignatureEncoding` (BIP66),
//! `IsLowDERSignature`, `CheckSignatureEncoding`, `CheckPubKeyEncoding` and
//! `CheckMinimalPush` (script/interpreter.cpp).

use super::error::{Res, ScriptError};
use super::exec::SigVersion;
use crate::script::opcodes::*;
use crate::script::ScriptFlags;

/// BIP66 strict DER check on a signature including its hash-type byte
/// (`IsValidSignatureEncoding`).
pub fn is_valid_signature_encoding(sig: &[u8]) -> bool {
    // Format: 0x30 [total-length] 0x02 [R-length] [R] 0x02 [S-length] [S] [sighash]
    let n = sig.len();
    if !(9..=73).contains(&n) {
        return false;
    }
    if sig[0] != 0x30 || sig[1] as usize != n - 3 {
        return false;
    }
    let len_r = sig[3] as usize;
    if 5 + len_r >= n {
        return false;
    }
    let len_s = sig[5 + len_r] as usize;
    if len_r + len_s + 7 != n {
        return false;
    }
    if sig[2] != 0x02 || len_r == 0 || sig[4] & 0x80 != 0 {
        return false;
    }
    if len_r > 1 && sig[4] == 0 && sig[5] & 0x80 == 0 {
        return false;
    }
    if sig[len_r + 4] != 0x02 || len_s == 0 || sig[len_r + 6] & 0x80 != 0 {
        return false;
    }
    if len_s > 1 && sig[len_r + 6] == 0 && sig[len_r + 7] & 0x80 == 0 {
        return false;
    }
    true
}

/// The secp256k1 group order n, big-endian.
const ORDER: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xba,
    0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];

/// ⌊n/2⌋, big-endian.
const HALF_ORDER: [u8; 32] = [
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5d,
    0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
];

/// A DER integer's value as libsecp256k1's lax parser reads it: leading zeros stripped, then
/// `None` (overflow) if it is longer than 32 bytes or not below n.
fn lax_scalar(v: &[u8]) -> Option<[u8; 32]> {
    let mut v = v;
    while let [0, rest @ ..] = v {
        v = rest;
    }
    if v.len() > 32 {
        return None;
    }
    let mut b = [0u8; 32];
    b[32 - v.len()..].copy_from_slice(v);
    (b < ORDER).then_some(b)
}

/// Core's `IsLowDERSignature` after the strict encoding check, i.e. `CPubKey::CheckLowS`:
/// whether the S of a strictly DER-encoded signature (with hash-type byte) is at most n/2.
///
/// `CheckLowS` parses with the lax DER parser, which replaces a signature whose R or S
/// overflows by the all-zero signature; that one counts as low (and later fails verification).
pub fn is_low_der_signature(sig: &[u8]) -> bool {
    debug_assert!(is_valid_signature_encoding(sig));
    let len_r = sig[3] as usize;
    let len_s = sig[5 + len_r] as usize;
    let r = &sig[4..4 + len_r];
    let s = &sig[6 + len_r..6 + len_r + len_s];
    match (lax_scalar(r), lax_scalar(s)) {
        (Some(_), Some(s)) => s <= HALF_ORDER,
        _ => true,
    }
}

pub(super) fn check_signature_encoding(sig: &[u8], flags: ScriptFlags) -> Res<()> {
    // An empty signature is allowed: the compact way to provide an invalid signature.
    if sig.is_empty() {
        return Ok(());
    }
    if flags.intersects(ScriptFlags::DERSIG | ScriptFlags::LOW_S | ScriptFlags::STRICTENC)
        && !is_valid_signature_encoding(sig)
    {
        return Err(ScriptError::SigDer);
    }
    if flags.contains(ScriptFlags::LOW_S) && !is_low_der_signature(sig) {
        return Err(ScriptError::SigHighS);
    }
    if flags.contains(ScriptFlags::STRICTENC) {
        let ht = sig[sig.len() - 1] & !0x80;
        if !(1..=3).contains(&ht) {
            return Err(ScriptError::SigHashtype);
        }
    }
    Ok(())
}

fn is_compressed_or_uncompressed(pk: &[u8]) -> bool {
    match pk.first() {
        Some(0x04) => pk.len() == 65,
        Some(0x02 | 0x03) => pk.len() == 33,
        _ => false,
    }
}

pub(super) fn check_pubkey_encoding(pk: &[u8], flags: ScriptFlags, sigversion: SigVersion) -> Res<()> {
    if flags.contains(ScriptFlags::STRICTENC) && !is_compressed_or_uncompressed(pk) {
        return Err(ScriptError::PubkeyType);
    }
    // Only compressed keys are accepted in segwit v0 under WITNESS_PUBKEYTYPE.
    if flags.contains(ScriptFlags::WITNESS_PUBKEYTYPE)
        && sigversion == SigVersion::WitnessV0
        && !(pk.len() == 33 && (pk[0] == 2 || pk[0] == 3))
    {
        return Err(ScriptError::WitnessPubkeyType);
    }
    Ok(())
}

/// `CPubKey::IsValid`: the size the header byte announces.
pub(super) fn pubkey_size_valid(pk: &[u8]) -> bool {
    match pk.first() {
        Some(0x02 | 0x03) => pk.len() == 33,
        Some(0x04 | 0x06 | 0x07) => pk.len() == 65,
        _ => false,
    }
}

pub(super) fn check_minimal_push(data: &[u8], opcode: u8) -> bool {
    if data.is_empty() {
        return opcode == OP_0;
    }
    if data.len() == 1 && (1..=16).contains(&data[0]) {
        return false;
    }
    if data.len() == 1 && data[0] == 0x81 {
        return false;
    }
    if data.len() <= 75 {
        return opcode as usize == data.len();
    }
    if data.len() <= 255 {
        return opcode == OP_PUSHDATA1;
    }
    if data.len() <= 65535 {
        return opcode == OP_PUSHDATA2;
    }
    true
}
