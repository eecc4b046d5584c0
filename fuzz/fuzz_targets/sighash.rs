// SPDX-License-Identifier: MIT OR Apache-2.0
//! Signature hashes (fullverify::sighash) of a fuzzed transaction, input, script code, amount,
//! hash type, spent outputs, annex and tapscript position, against preimages written here from
//! the definitions (Core's `SignatureHash` for legacy inputs, BIP143, BIP341/342), not from
//! the core's code.
//!
//! Properties:
//! - legacy: `TxContext::legacy_sighash` (with its prefix engines for transactions of 32 inputs
//!   or more) equals the free `legacy_sighash`, SHA256d of `legacy_preimage` and SHA256d of the
//!   reference preimage (OP_CODESEPARATORs removed from the script code, with Core's handling
//!   of a truncated last push; the "1" of an input index out of range and of SIGHASH_SINGLE
//!   without its output);
//! - BIP143: `bip143_sighash` equals SHA256d of `bip143_preimage` and of the reference
//!   preimage, for every 32-bit hash type; an input index out of range is an error;
//! - BIP341: `bip341_sighash` equals the tagged hash of `bip341_sigmsg` and of the reference
//!   message, key path and script path, with and without an annex, and both fail exactly
//!   where the reference does (no spent outputs, an input index out of range, an undefined
//!   hash type, SIGHASH_SINGLE without its output), each with its error;
//! - asking twice, or for another input first, gives the same hash (the context's caches).
#![no_main]

use fullverify::encode::{Reader, Transaction, TxOut};
use fullverify::hash::{sha256, sha256d, tagged_hash};
use fullverify::sighash::{legacy_preimage, legacy_sighash, SighashError, TxContext};
use fuzz_support::Cut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut c = Cut::new(data);
    let hash_type = u32::from_le_bytes(c.array());
    let n_in = c.byte() as usize;
    let amount = i64::from_le_bytes(c.array());
    let flags = c.byte();
    let leaf: [u8; 32] = c.array();
    let codesep = u32::from_le_bytes(c.array());
    let code_len = c.byte() as usize;
    let script_code = c.take(code_len);
    let annex_len = c.byte() as usize;
    let mut annex = vec![0x50];
    annex.extend_from_slice(c.take(annex_len));
    let rest = c.rest();
    let mut r = Reader::new(rest);
    let Ok(tx) = Transaction::decode(&mut r) else { return };
    let mut c = Cut::new(&rest[r.position()..]);
    let spent: Vec<TxOut> = tx
        .inputs
        .iter()
        .map(|_| {
            let value = i64::from_le_bytes(c.array());
            let n = c.byte() as usize % 40;
            TxOut { value, script_pubkey: c.take(n).to_vec() }
        })
        .collect();

    // Legacy.
    let ctx = TxContext::new(&tx, None);
    let reference = ref_legacy(&tx, n_in, script_code, hash_type);
    if tx.inputs.len() > 1 {
        // Another input first, so the prefix engines exist before this one asks.
        let _ = ctx.legacy_sighash(tx.inputs.len() - 1 - n_in % tx.inputs.len(), script_code, hash_type);
    }
    assert_eq!(ctx.legacy_sighash(n_in, script_code, hash_type), reference, "legacy (context)");
    assert_eq!(legacy_sighash(&tx, n_in, script_code, hash_type), reference, "legacy");
    match legacy_preimage(&tx, n_in, script_code, hash_type) {
        Some(p) => assert_eq!(sha256d(&p), reference, "legacy preimage"),
        None => assert_eq!(reference, one()),
    }

    // BIP143.
    let got = ctx.bip143_sighash(n_in, script_code, amount, hash_type);
    match ref_bip143(&tx, n_in, script_code, amount, hash_type) {
        Some(p) => {
            assert_eq!(got, Ok(sha256d(&p)), "bip143");
            assert_eq!(ctx.bip143_preimage(n_in, script_code, amount, hash_type), Ok(p), "bip143 preimage");
            assert_eq!(ctx.bip143_sighash(n_in, script_code, amount, hash_type), got, "bip143 again");
        }
        None => assert_eq!(got, Err(SighashError::InputIndex)),
    }

    // BIP341 / BIP342.
    let ht = hash_type as u8;
    let annex = (flags & 1 == 1).then_some(&annex[..]);
    let tapscript = (flags & 2 == 2).then_some((leaf, codesep));
    let given = flags & 4 == 0;
    let ctx = TxContext::new(&tx, given.then_some(&spent[..]));
    let got = ctx.bip341_sighash(n_in, ht, annex, tapscript);
    let msg = ctx.bip341_sigmsg(n_in, ht, annex, tapscript);
    match ref_bip341(&tx, given.then_some(&spent[..]), n_in, ht, annex, tapscript) {
        Ok(m) => {
            assert_eq!(got, Ok(tagged_hash(b"TapSighash", &m)), "bip341");
            assert_eq!(msg, Ok(m), "bip341 sigmsg");
            assert_eq!(ctx.bip341_sighash(n_in, ht, annex, tapscript), got, "bip341 again");
        }
        Err(e) => {
            assert_eq!(got, Err(e.clone()), "bip341 error");
            assert_eq!(msg, Err(e), "bip341 sigmsg error");
        }
    }
});

const SINGLE: u32 = 3;
const NONE: u32 = 2;
const ANYONECANPAY: u32 = 0x80;

/// The hash Core signs for an input index out of range or SIGHASH_SINGLE without its output.
fn one() -> [u8; 32] {
    let mut h = [0u8; 32];
    h[0] = 1;
    h
}

fn compact(v: &mut Vec<u8>, n: usize) {
    match n {
        0..=0xfc => v.push(n as u8),
        0xfd..=0xffff => {
            v.push(0xfd);
            v.extend_from_slice(&(n as u16).to_le_bytes());
        }
        _ => {
            v.push(0xfe);
            v.extend_from_slice(&(n as u32).to_le_bytes());
        }
    }
}

fn bytes(v: &mut Vec<u8>, b: &[u8]) {
    compact(v, b.len());
    v.extend_from_slice(b);
}

fn output(v: &mut Vec<u8>, o: &TxOut) {
    v.extend_from_slice(&o.value.to_le_bytes());
    bytes(v, &o.script_pubkey);
}

fn outpoint(v: &mut Vec<u8>, tx: &Transaction, i: usize) {
    v.extend_from_slice(&tx.inputs[i].prevout.txid);
    v.extend_from_slice(&tx.inputs[i].prevout.vout.to_le_bytes());
}

/// The script code as Core serializes it for a legacy hash: the length of the script less its
/// OP_CODESEPARATORs (0xab opcodes, pushes walked as opcodes of their own), then its bytes up to
/// where the opcodes end without those separators. A push that runs past the end ends the walk
/// after its opcode and length bytes, and what follows is left out, though the length counted
/// it (Core's `SerializeScriptCode`).
fn script_code_bytes(v: &mut Vec<u8>, script: &[u8]) {
    let mut kept = Vec::with_capacity(script.len());
    let mut separators = 0;
    let mut pc = 0;
    while pc < script.len() {
        let op = script[pc];
        let (size_bytes, fixed) = match op {
            0x01..=0x4b => (0, op as usize),
            0x4c => (1, 0),
            0x4d => (2, 0),
            0x4e => (4, 0),
            _ => (0, 0),
        };
        let after_op = pc + 1;
        if script.len() - after_op < size_bytes {
            // The length bytes are cut: the walk stops after the opcode.
            kept.extend_from_slice(&script[pc..after_op]);
            break;
        }
        let mut len_le = [0u8; 8];
        len_le[..size_bytes].copy_from_slice(&script[after_op..after_op + size_bytes]);
        let n = if size_bytes == 0 { fixed } else { u64::from_le_bytes(len_le) as usize };
        let data = after_op + size_bytes;
        if script.len() - data < n {
            kept.extend_from_slice(&script[pc..data]);
            break;
        }
        if op == 0xab {
            separators += 1;
        } else {
            kept.extend_from_slice(&script[pc..data + n]);
        }
        pc = data + n;
    }
    compact(v, script.len() - separators);
    v.extend_from_slice(&kept);
}

/// Core's `SignatureHash` for `SigVersion::BASE`.
fn ref_legacy(tx: &Transaction, n_in: usize, script_code: &[u8], hash_type: u32) -> [u8; 32] {
    let base = hash_type & 0x1f;
    let acp = hash_type & ANYONECANPAY != 0;
    if n_in >= tx.inputs.len() || (base == SINGLE && n_in >= tx.outputs.len()) {
        return one();
    }
    let mut v = Vec::new();
    v.extend_from_slice(&tx.version.to_le_bytes());
    let signed: Vec<usize> = if acp { vec![n_in] } else { (0..tx.inputs.len()).collect() };
    compact(&mut v, signed.len());
    for i in signed {
        outpoint(&mut v, tx, i);
        if i == n_in {
            script_code_bytes(&mut v, script_code);
        } else {
            v.push(0);
        }
        let seq = if i != n_in && (base == SINGLE || base == NONE) { 0 } else { tx.inputs[i].sequence };
        v.extend_from_slice(&seq.to_le_bytes());
    }
    match base {
        NONE => v.push(0),
        SINGLE => {
            compact(&mut v, n_in + 1);
            for _ in 0..n_in {
                output(&mut v, &TxOut { value: -1, script_pubkey: Vec::new() });
            }
            output(&mut v, &tx.outputs[n_in]);
        }
        _ => {
            compact(&mut v, tx.outputs.len());
            tx.outputs.iter().for_each(|o| output(&mut v, o));
        }
    }
    v.extend_from_slice(&tx.lock_time.to_le_bytes());
    v.extend_from_slice(&hash_type.to_le_bytes());
    sha256d(&v)
}

/// BIP143's preimage, `None` for an input index out of range.
fn ref_bip143(
    tx: &Transaction,
    n_in: usize,
    script_code: &[u8],
    amount: i64,
    hash_type: u32,
) -> Option<Vec<u8>> {
    if n_in >= tx.inputs.len() {
        return None;
    }
    let base = hash_type & 0x1f;
    let acp = hash_type & ANYONECANPAY != 0;
    let all_inputs = |f: &dyn Fn(&mut Vec<u8>, usize)| {
        let mut v = Vec::new();
        (0..tx.inputs.len()).for_each(|i| f(&mut v, i));
        sha256d(&v)
    };
    let prevouts = if acp { [0; 32] } else { all_inputs(&|v, i| outpoint(v, tx, i)) };
    let sequences = if acp || base == SINGLE || base == NONE {
        [0; 32]
    } else {
        all_inputs(&|v, i| v.extend_from_slice(&tx.inputs[i].sequence.to_le_bytes()))
    };
    let outputs = if base != SINGLE && base != NONE {
        let mut v = Vec::new();
        tx.outputs.iter().for_each(|o| output(&mut v, o));
        sha256d(&v)
    } else if base == SINGLE && n_in < tx.outputs.len() {
        let mut v = Vec::new();
        output(&mut v, &tx.outputs[n_in]);
        sha256d(&v)
    } else {
        [0; 32]
    };
    let mut v = Vec::new();
    v.extend_from_slice(&tx.version.to_le_bytes());
    v.extend_from_slice(&prevouts);
    v.extend_from_slice(&sequences);
    outpoint(&mut v, tx, n_in);
    bytes(&mut v, script_code);
    v.extend_from_slice(&amount.to_le_bytes());
    v.extend_from_slice(&tx.inputs[n_in].sequence.to_le_bytes());
    v.extend_from_slice(&outputs);
    v.extend_from_slice(&tx.lock_time.to_le_bytes());
    v.extend_from_slice(&hash_type.to_le_bytes());
    Some(v)
}

/// `0x00 ‖ SigMsg(hash_type, ext_flag)` of BIP341, with BIP342's extension for a script path.
fn ref_bip341(
    tx: &Transaction,
    spent: Option<&[TxOut]>,
    n_in: usize,
    hash_type: u8,
    annex: Option<&[u8]>,
    tapscript: Option<([u8; 32], u32)>,
) -> Result<Vec<u8>, SighashError> {
    let spent = spent.ok_or(SighashError::MissingSpentOutputs)?;
    if n_in >= tx.inputs.len() {
        return Err(SighashError::InputIndex);
    }
    if !matches!(hash_type, 0x00..=0x03 | 0x81..=0x83) {
        return Err(SighashError::InvalidHashType(hash_type));
    }
    let out_type = hash_type & 3;
    let acp = hash_type & 0x80 != 0;
    if out_type == SINGLE as u8 && n_in >= tx.outputs.len() {
        return Err(SighashError::SingleWithoutOutput);
    }
    let mut m = vec![0x00, hash_type];
    m.extend_from_slice(&tx.version.to_le_bytes());
    m.extend_from_slice(&tx.lock_time.to_le_bytes());
    if !acp {
        let each = |f: &dyn Fn(&mut Vec<u8>, usize)| {
            let mut v = Vec::new();
            (0..tx.inputs.len()).for_each(|i| f(&mut v, i));
            sha256(&v)
        };
        m.extend_from_slice(&each(&|v, i| outpoint(v, tx, i)));
        m.extend_from_slice(&each(&|v, i| v.extend_from_slice(&spent[i].value.to_le_bytes())));
        m.extend_from_slice(&each(&|v, i| bytes(v, &spent[i].script_pubkey)));
        m.extend_from_slice(&each(&|v, i| v.extend_from_slice(&tx.inputs[i].sequence.to_le_bytes())));
    }
    if out_type != SINGLE as u8 && out_type != NONE as u8 {
        let mut v = Vec::new();
        tx.outputs.iter().for_each(|o| output(&mut v, o));
        m.extend_from_slice(&sha256(&v));
    }
    m.push(u8::from(tapscript.is_some()) * 2 + u8::from(annex.is_some()));
    if acp {
        outpoint(&mut m, tx, n_in);
        output(&mut m, &spent[n_in]);
        m.extend_from_slice(&tx.inputs[n_in].sequence.to_le_bytes());
    } else {
        m.extend_from_slice(&(n_in as u32).to_le_bytes());
    }
    if let Some(a) = annex {
        let mut v = Vec::new();
        bytes(&mut v, a);
        m.extend_from_slice(&sha256(&v));
    }
    if out_type == SINGLE as u8 {
        let mut v = Vec::new();
        output(&mut v, &tx.outputs[n_in]);
        m.extend_from_slice(&sha256(&v));
    }
    if let Some((leaf, codesep)) = tapscript {
        m.extend_from_slice(&leaf);
        m.push(0x00);
        m.extend_from_slice(&codesep.to_le_bytes());
    }
    Ok(m)
}
