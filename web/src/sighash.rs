// SPDX-License-Identifier: MIT OR Apache-2.0
//! The sighash explorer: which signature-hash algorithm an input uses and why, every field of
//! its preimage in order with its bytes and meaning, the digest, and the input's script
//! verdict.
//!
//! The fields are laid out here for display; [`explain`] checks that their concatenation is
//! byte for byte the preimage the core hashes (`legacy_preimage`, `bip143_preimage`,
//! `bip341_sigmsg`), and that the digest is the core's, so the page cannot show a layout the
//! verifier does not use.

use crate::hex;
use crate::view::{consistent, hex_field, to_js, FieldError};
use fullverify::encode::{write_compact_size, write_var_bytes, Transaction, TxOut};
use fullverify::hash::{sha256, sha256d, tagged_hash};
use fullverify::script::interpreter::{find_and_delete, push_data_script, tapleaf_hash};
use fullverify::script::opcodes::{get_op, OP_CODESEPARATOR};
use fullverify::script::{verify_input, NativeVerifier, ScriptFlags};
use fullverify::sighash::{
    legacy_preimage, TxContext, ONE_HASH, SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Core's consensus flags for a recent block (every deployment active).
pub const DEFAULT_FLAGS: &str =
    "P2SH,DERSIG,CHECKLOCKTIMEVERIFY,CHECKSEQUENCEVERIFY,WITNESS,NULLDUMMY,TAPROOT";

/// The signature-hash algorithm an input uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Algorithm {
    /// Pre-segwit `SignatureHash` (the modified transaction, double SHA-256).
    #[serde(rename = "legacy")]
    Legacy,
    /// Segwit v0 (BIP143).
    #[serde(rename = "bip143")]
    Bip143,
    /// Taproot key path (BIP341).
    #[serde(rename = "bip341-key")]
    Bip341Key,
    /// Taproot script path (BIP341 with BIP342's extension).
    #[serde(rename = "bip341-script")]
    Bip341Script,
}

/// One field of the preimage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Short name (stable; the page compares fields by it to highlight changes).
    pub name: String,
    /// The bytes, lower-case hex.
    pub hex: String,
    /// What the bytes are.
    pub meaning: String,
}

/// An aggregate hash and the serialized items it covers, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Aggregate {
    /// Its name in the BIP (`hashPrevouts`, `sha_amounts`, ...).
    pub name: String,
    /// `sha256d` or `sha256`.
    pub hash: &'static str,
    /// The digest, hex.
    pub hex: String,
    /// Each covered item's bytes, hex.
    pub covers: Vec<String>,
}

/// The sighash panel's view of one input.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SighashView {
    /// Which algorithm applies.
    pub algorithm: Algorithm,
    /// Why (the output type spent, the flags and the witness shape).
    pub reason: String,
    /// The spent output type, in words.
    pub output_type: String,
    /// The hash type hashed.
    pub hash_type: u32,
    /// Its name (`SIGHASH_ALL|ANYONECANPAY`, `SIGHASH_DEFAULT`, ...).
    pub hash_type_name: String,
    /// The hash type found in the input's first signature, if one was found.
    pub signature_hash_type: Option<u32>,
    /// The preimage fields, in order (empty when legacy signs the constant 1).
    pub fields: Vec<Field>,
    /// The aggregate hashes the preimage uses.
    pub aggregates: Vec<Aggregate>,
    /// The whole preimage (for BIP341: the epoch byte and SigMsg), hex.
    pub preimage: String,
    /// How the digest is formed from the preimage.
    pub digest_rule: String,
    /// The digest that is signed, hex (as the BIPs print it: the hash's bytes in order).
    pub sighash: String,
    /// `valid`, or `invalid: <Core's SCRIPT_ERR name>`.
    pub verdict: String,
    /// The flags used, Core's names.
    pub flags: String,
    /// Notes on what the view assumes (codeseparator position, FindAndDelete, ...).
    pub notes: Vec<String>,
    /// The transaction's inputs and outputs counts and its txid (display order).
    pub inputs: usize,
    /// Number of outputs.
    pub outputs: usize,
    /// txid, display (reversed) hex.
    pub txid: String,
}

/// Parses `amount:spkhex` entries separated by commas or newlines.
pub fn parse_prevouts(text: &str) -> Result<Vec<TxOut>, FieldError> {
    let mut out = Vec::new();
    for (i, item) in text.split([',', '\n']).map(str::trim).filter(|s| !s.is_empty()).enumerate() {
        let (amount, spk) = item.split_once(':').ok_or_else(|| {
            FieldError::new("prevouts", format!("spent output {i}: expected <amount>:<scriptPubKey hex>"))
        })?;
        let value: i64 = amount.trim().parse().map_err(|_| {
            FieldError::new(
                "prevouts",
                format!("spent output {i}: amount {:?} is not a whole number of satoshis", amount.trim()),
            )
        })?;
        let script_pubkey = hex::decode(spk)
            .map_err(|e| FieldError::new("prevouts", format!("spent output {i}: scriptPubKey: {e}")))?;
        out.push(TxOut { value, script_pubkey });
    }
    Ok(out)
}

/// The name of a hash type.
pub fn hash_type_name(ht: u32, taproot: bool) -> String {
    if taproot && ht == 0 {
        return "SIGHASH_DEFAULT".into();
    }
    let base = match ht & 0x1f {
        1 => "SIGHASH_ALL".to_string(),
        2 => "SIGHASH_NONE".to_string(),
        3 => "SIGHASH_SINGLE".to_string(),
        b => format!("undefined base {b:#x} (treated as SIGHASH_ALL)"),
    };
    let other = ht & !0x9f;
    let mut s = base;
    if ht & SIGHASH_ANYONECANPAY != 0 {
        s.push_str("|ANYONECANPAY");
    }
    if other != 0 {
        s.push_str(&format!(" (other bits {other:#x})"));
    }
    s
}

fn field(name: &str, bytes: &[u8], meaning: impl Into<String>) -> Field {
    Field { name: name.into(), hex: hex::encode(bytes), meaning: meaning.into() }
}

/// Records the aggregate `name` (the digest `d` under `hash` of the items `covers`) and returns
/// `d` for the preimage field that shows it.
fn aggregate(
    aggregates: &mut Vec<Aggregate>,
    name: &str,
    hash: &'static str,
    d: [u8; 32],
    covers: Vec<String>,
) -> [u8; 32] {
    aggregates.push(Aggregate { name: name.into(), hash, hex: hex::encode(&d), covers });
    d
}

fn var_bytes(b: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    write_var_bytes(&mut v, b);
    v
}

fn compact(n: usize) -> Vec<u8> {
    let mut v = Vec::new();
    write_compact_size(&mut v, n as u64);
    v
}

fn outpoint_bytes(tx: &Transaction, i: usize) -> Vec<u8> {
    let mut v = Vec::new();
    tx.inputs[i].prevout.encode(&mut v);
    v
}

fn output_bytes(o: &TxOut) -> Vec<u8> {
    let mut v = Vec::new();
    o.encode(&mut v);
    v
}

/// The pushes of a push-only script, or None.
fn pushes(script: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut pc = 0;
    let mut out = Vec::new();
    while pc < script.len() {
        let op = get_op(script, &mut pc)?;
        if op.opcode > 0x60 {
            return None;
        }
        out.push(op.data.to_vec());
    }
    Some(out)
}

fn is_p2sh(spk: &[u8]) -> bool {
    spk.len() == 23 && spk[0] == 0xa9 && spk[1] == 0x14 && spk[22] == 0x87
}

/// (version, program) of a witness program.
fn witness_program(spk: &[u8]) -> Option<(u8, &[u8])> {
    let n = spk.len();
    if !(4..=42).contains(&n) || spk[1] as usize != n - 2 {
        return None;
    }
    match spk[0] {
        0x00 => Some((0, &spk[2..])),
        0x51..=0x60 => Some((spk[0] - 0x50, &spk[2..])),
        _ => None,
    }
}

/// Looks like a DER signature with a hash-type byte (for finding the one to explain).
fn looks_like_ecdsa_sig(b: &[u8]) -> bool {
    (9..=73).contains(&b.len()) && b[0] == 0x30 && b[1] as usize == b.len() - 3
}

fn output_type_name(spk: &[u8]) -> String {
    if spk.len() == 25 && spk[..3] == [0x76, 0xa9, 0x14] && spk[23..] == [0x88, 0xac] {
        "P2PKH".into()
    } else if is_p2sh(spk) {
        "P2SH".into()
    } else if (spk.len() == 35 || spk.len() == 67) && *spk.last().unwrap() == 0xac {
        "P2PK".into()
    } else if let Some((v, p)) = witness_program(spk) {
        match (v, p.len()) {
            (0, 20) => "P2WPKH".into(),
            (0, 32) => "P2WSH".into(),
            (1, 32) => "P2TR".into(),
            _ => format!("witness v{v} program of {} bytes", p.len()),
        }
    } else if spk.last() == Some(&0xae) {
        "bare multisig".into()
    } else {
        "non-standard script".into()
    }
}

/// How an input spends, found from its scripts and witness.
enum Plan {
    Legacy {
        script_code: Vec<u8>,
        sig: Option<Vec<u8>>,
    },
    V0 {
        script_code: Vec<u8>,
        sig: Option<Vec<u8>>,
        wrapped: bool,
        wpkh: bool,
    },
    TapKey {
        sig: Vec<u8>,
        annex: Option<Vec<u8>>,
    },
    TapScript {
        leaf: [u8; 32],
        leaf_version: u8,
        script: Vec<u8>,
        sig: Option<Vec<u8>>,
        annex: Option<Vec<u8>>,
    },
}

fn plan(tx: &Transaction, i: usize, spk: &[u8], flags: ScriptFlags, reason: &mut Vec<String>) -> Plan {
    let input = &tx.inputs[i];
    let witness = &input.witness;
    let mut program_spk = spk.to_vec();
    let mut wrapped = false;
    if is_p2sh(spk) && flags.contains(ScriptFlags::P2SH) {
        if let Some(p) = pushes(&input.script_sig).and_then(|p| p.last().cloned()) {
            if witness_program(&p).is_some() && flags.contains(ScriptFlags::WITNESS) {
                reason.push(
                    "the spent output is P2SH and the redeem script is a witness program (nested segwit)"
                        .into(),
                );
                program_spk = p;
                wrapped = true;
            } else {
                reason.push("the spent output is P2SH (BIP16) and the redeem script is not a witness program (or WITNESS is off): legacy hashing over the redeem script".into());
                let sig =
                    pushes(&input.script_sig).and_then(|ps| ps.into_iter().find(|x| looks_like_ecdsa_sig(x)));
                return Plan::Legacy { script_code: p, sig };
            }
        }
    }
    if let Some((v, prog)) = witness_program(&program_spk) {
        if flags.contains(ScriptFlags::WITNESS) {
            if v == 0 && prog.len() == 20 {
                reason.push("version-0 witness program of 20 bytes (P2WPKH): BIP143, scriptCode = the P2PKH script of the key hash".into());
                let mut sc = vec![0x76, 0xa9, 0x14];
                sc.extend_from_slice(prog);
                sc.extend_from_slice(&[0x88, 0xac]);
                return Plan::V0 { script_code: sc, sig: witness.first().cloned(), wrapped, wpkh: true };
            }
            if v == 0 && prog.len() == 32 {
                reason.push("version-0 witness program of 32 bytes (P2WSH): BIP143, scriptCode = the witness script (last witness item)".into());
                let sc = witness.last().cloned().unwrap_or_default();
                let sig = witness.iter().find(|x| looks_like_ecdsa_sig(x)).cloned();
                return Plan::V0 { script_code: sc, sig, wrapped, wpkh: false };
            }
            if v == 1 && prog.len() == 32 && !wrapped && flags.contains(ScriptFlags::TAPROOT) {
                let mut stack: Vec<Vec<u8>> = witness.clone();
                let annex = if stack.len() >= 2 && stack.last().and_then(|a| a.first()) == Some(&0x50) {
                    reason.push(
                        "the last witness item starts with 0x50: it is the annex, committed to by sha_annex"
                            .into(),
                    );
                    stack.pop()
                } else {
                    None
                };
                if stack.len() == 1 {
                    reason.push("version-1 witness program of 32 bytes (P2TR) with one witness item: taproot key path (BIP341), the item is a BIP340 signature".into());
                    return Plan::TapKey { sig: stack.remove(0), annex };
                }
                if stack.len() >= 2 {
                    let control = stack.pop().unwrap_or_default();
                    let script = stack.pop().unwrap_or_default();
                    let leaf_version = control.first().map_or(0, |c| c & 0xfe);
                    reason.push(format!(
                        "version-1 witness program of 32 bytes (P2TR) with {} witness items: taproot script path (BIP341/BIP342); the last item is the control block (leaf version {leaf_version:#04x}), the one before it the leaf script",
                        stack.len() + 2
                    ));
                    let sig = stack.iter().find(|x| x.len() == 64 || x.len() == 65).cloned();
                    return Plan::TapScript {
                        leaf: tapleaf_hash(leaf_version, &script),
                        leaf_version,
                        script,
                        sig,
                        annex,
                    };
                }
            }
        }
    }
    if reason.is_empty() {
        reason.push(format!(
            "the spent output is {} and no witness rule applies under these flags: legacy hashing, scriptCode = the scriptPubKey",
            output_type_name(spk)
        ));
    }
    let sig = pushes(&input.script_sig).and_then(|ps| ps.into_iter().find(|x| looks_like_ecdsa_sig(x)));
    Plan::Legacy { script_code: spk.to_vec(), sig }
}

/// Everything about input `input` of the transaction `tx_hex`, spending `prevouts`
/// (`amount:spk` entries), under `flags` (Core's names, comma-separated; empty text for the
/// default set). `hash_type` overrides the one found in the input's signature.
pub fn explain(
    tx_hex: &str,
    prevouts: &str,
    input: &str,
    flags: &str,
    hash_type: Option<u32>,
) -> Result<SighashView, FieldError> {
    let raw = hex_field("tx", tx_hex)?;
    if raw.is_empty() {
        return Err(FieldError::new("tx", "paste a raw transaction in hex"));
    }
    let tx = Transaction::from_bytes(&raw)
        .map_err(|e| FieldError::new("tx", format!("not a transaction: {e}")))?;
    let spent = parse_prevouts(prevouts)?;
    if spent.len() != tx.inputs.len() {
        return Err(FieldError::new(
            "prevouts",
            format!(
                "the transaction has {} inputs but {} spent outputs were given (one per input, in order)",
                tx.inputs.len(),
                spent.len()
            ),
        ));
    }
    let i: usize = input
        .trim()
        .parse()
        .map_err(|_| FieldError::new("input", format!("input index {input:?} is not a number")))?;
    if i >= tx.inputs.len() {
        return Err(FieldError::new(
            "input",
            format!("input {i} does not exist (the transaction has {} inputs)", tx.inputs.len()),
        ));
    }
    let flags_text = if flags.trim().is_empty() { DEFAULT_FLAGS } else { flags.trim() };
    let flags: ScriptFlags = flags_text.parse().map_err(|e| FieldError::new("flags", format!("{e}")))?;

    let ctx = TxContext::new(&tx, Some(&spent));
    let verdict = match verify_input(&ctx, i, flags, &NativeVerifier) {
        Ok(()) => "valid".to_string(),
        Err(e) => format!("invalid: {}", e.name()),
    };
    let spk = &spent[i].script_pubkey;
    let mut reason = Vec::new();
    let plan = plan(&tx, i, spk, flags, &mut reason);
    let mut notes = Vec::new();
    let mut txid = tx.txid();
    txid.reverse();

    let sig_ht = |sig: &Option<Vec<u8>>| sig.as_ref().and_then(|s| s.last()).map(|&b| u32::from(b));
    let (algorithm, signature_hash_type, fields, aggregates, preimage, digest, digest_rule, taproot) =
        match plan {
            Plan::Legacy { script_code, sig } => {
                let sht = sig_ht(&sig);
                let ht = hash_type.or(sht).unwrap_or(1);
                let mut sc = script_code.clone();
                if let Some(s) = &sig {
                    if find_and_delete(&mut sc, &push_data_script(s)) > 0 {
                        notes.push("FindAndDelete removed the signature's push from the scriptCode".into());
                    }
                }
                if sc.contains(&OP_CODESEPARATOR) {
                    notes.push("the scriptCode shown is the whole script with OP_CODESEPARATORs removed (as if none was executed)".into());
                }
                let fields = legacy_fields(&tx, i, &sc, ht);
                let pre = legacy_preimage(&tx, i, &sc, ht);
                let (preimage, digest) = match &pre {
                    Some(p) => (p.clone(), sha256d(p)),
                    None => {
                        notes.push("SIGHASH_SINGLE with no output at this input's index: Core signs the constant 1 (the \"SIGHASH_SINGLE bug\"), there is no preimage".into());
                        (Vec::new(), ONE_HASH)
                    }
                };
                if let Some(p) = &pre {
                    check_concat(&fields, p)?;
                }
                let core = fullverify::sighash::legacy_sighash(&tx, i, &sc, ht);
                consistent(digest == core, "tx", "legacy digest")?;
                (
                    Algorithm::Legacy,
                    sht,
                    fields,
                    Vec::new(),
                    preimage,
                    digest,
                    "SHA256(SHA256(preimage))",
                    false,
                )
            }
            Plan::V0 { script_code, sig, wrapped, wpkh } => {
                let sht = sig_ht(&sig);
                let ht = hash_type.or(sht).unwrap_or(1);
                if wrapped {
                    notes.push(format!(
                        "the witness program is the P2SH redeem script ({})",
                        if wpkh { "P2SH-P2WPKH" } else { "P2SH-P2WSH" }
                    ));
                }
                if !wpkh && script_code.contains(&OP_CODESEPARATOR) {
                    notes.push("the scriptCode shown is the whole witness script (as if no OP_CODESEPARATOR was executed)".into());
                }
                let amount = spent[i].value;
                let (fields, aggregates) = bip143_fields(&ctx, i, &script_code, amount, ht);
                let pre = ctx.bip143_preimage(i, &script_code, amount, ht).expect("index checked");
                check_concat(&fields, &pre)?;
                let digest = ctx.bip143_sighash(i, &script_code, amount, ht).expect("index checked");
                consistent(digest == sha256d(&pre), "tx", "BIP143 digest")?;
                (Algorithm::Bip143, sht, fields, aggregates, pre, digest, "SHA256(SHA256(preimage))", false)
            }
            Plan::TapKey { sig, annex } => {
                let sht = match sig.len() {
                    64 => Some(0),
                    65 => Some(u32::from(sig[64])),
                    _ => None,
                };
                let ht = hash_type.or(sht).unwrap_or(0);
                let (f, a, p, d) = bip341(&ctx, i, ht, annex.as_deref(), None)?;
                (Algorithm::Bip341Key, sht, f, a, p, d, "TaggedHash(\"TapSighash\", 0x00 ‖ SigMsg)", true)
            }
            Plan::TapScript { leaf, leaf_version, script, sig, annex } => {
                let sht = sig.as_ref().map(|s| if s.len() == 65 { u32::from(s[64]) } else { 0 });
                let ht = hash_type.or(sht).unwrap_or(0);
                if script.contains(&OP_CODESEPARATOR) {
                    notes.push("codesep_pos is shown as 0xffffffff (no OP_CODESEPARATOR executed before the signature check)".into());
                }
                notes.push(format!(
                "tapleaf_hash = TaggedHash(\"TapLeaf\", {leaf_version:02x} ‖ CompactSize ‖ script of {} bytes)",
                script.len()
            ));
                let (f, a, p, d) = bip341(&ctx, i, ht, annex.as_deref(), Some((leaf, u32::MAX)))?;
                (
                    Algorithm::Bip341Script,
                    sht,
                    f,
                    a,
                    p,
                    d,
                    "TaggedHash(\"TapSighash\", 0x00 ‖ SigMsg ‖ ext)",
                    true,
                )
            }
        };
    let ht = match algorithm {
        Algorithm::Bip341Key | Algorithm::Bip341Script => hash_type.or(signature_hash_type).unwrap_or(0),
        _ => hash_type.or(signature_hash_type).unwrap_or(1),
    };
    if signature_hash_type.is_none() && hash_type.is_none() {
        notes.push("no signature found in the input: the hash type defaults to SIGHASH_ALL (legacy, BIP143) or SIGHASH_DEFAULT (BIP341)".into());
    }
    Ok(SighashView {
        algorithm,
        reason: reason.join("; "),
        output_type: output_type_name(spk),
        hash_type: ht,
        hash_type_name: hash_type_name(ht, taproot),
        signature_hash_type,
        fields,
        aggregates,
        preimage: hex::encode(&preimage),
        digest_rule: digest_rule.into(),
        sighash: hex::encode(&digest),
        verdict,
        flags: flags.to_string(),
        notes,
        inputs: tx.inputs.len(),
        outputs: tx.outputs.len(),
        txid: hex::encode(&txid),
    })
}

/// The display layout must be the preimage the core hashes.
fn check_concat(fields: &[Field], preimage: &[u8]) -> Result<(), FieldError> {
    let joined: String = fields.iter().map(|f| f.hex.as_str()).collect();
    consistent(joined == hex::encode(preimage), "tx", "the field layout differs from the core's preimage")
}

fn legacy_fields(tx: &Transaction, n_in: usize, sc: &[u8], ht: u32) -> Vec<Field> {
    let base = ht & 0x1f;
    let acp = ht & SIGHASH_ANYONECANPAY != 0;
    let none = base == SIGHASH_NONE;
    let single = base == SIGHASH_SINGLE;
    if single && n_in >= tx.outputs.len() {
        return Vec::new();
    }
    let mut f = vec![field("nVersion", &tx.version.to_le_bytes(), format!("version {}", tx.version))];
    let idx: Vec<usize> = if acp { vec![n_in] } else { (0..tx.inputs.len()).collect() };
    f.push(field(
        "input count",
        &compact(idx.len()),
        if acp {
            "1: ANYONECANPAY keeps only the signing input".to_string()
        } else {
            format!("{} inputs", idx.len())
        },
    ));
    for &j in &idx {
        let op = &tx.inputs[j].prevout;
        let mut txid = op.txid;
        txid.reverse();
        f.push(field(
            &format!("input {j} outpoint"),
            &outpoint_bytes(tx, j),
            format!("txid {} : vout {}", hex::encode(&txid), op.vout),
        ));
        if j == n_in {
            let stripped: Vec<u8> = strip_codeseparators(sc);
            f.push(field(
                &format!("input {j} scriptCode"),
                &var_bytes(&stripped),
                "the signing input's script: scriptCode with OP_CODESEPARATORs removed, length-prefixed",
            ));
        } else {
            f.push(field(&format!("input {j} script"), &[0], "other inputs' scripts are emptied"));
        }
        let seq = if j != n_in && (none || single) { 0u32 } else { tx.inputs[j].sequence };
        f.push(field(
            &format!("input {j} nSequence"),
            &seq.to_le_bytes(),
            if j != n_in && (none || single) {
                "zeroed: NONE/SINGLE let other inputs change their sequence".to_string()
            } else {
                format!("{seq:#010x}")
            },
        ));
    }
    if none {
        f.push(field("output count", &[0], "0: SIGHASH_NONE commits to no output"));
    } else if single {
        f.push(field(
            "output count",
            &compact(n_in + 1),
            "outputs up to the signing input's index (SIGHASH_SINGLE)",
        ));
        for j in 0..n_in {
            let mut b = (-1i64).to_le_bytes().to_vec();
            b.push(0);
            f.push(field(&format!("output {j}"), &b, "blanked: value −1, empty script"));
        }
        f.push(field(
            &format!("output {n_in}"),
            &output_bytes(&tx.outputs[n_in]),
            format!("{} sat", tx.outputs[n_in].value),
        ));
    } else {
        f.push(field("output count", &compact(tx.outputs.len()), format!("{} outputs", tx.outputs.len())));
        for (j, o) in tx.outputs.iter().enumerate() {
            f.push(field(
                &format!("output {j}"),
                &output_bytes(o),
                format!("{} sat to {}", o.value, output_type_name(&o.script_pubkey)),
            ));
        }
    }
    f.push(field("nLockTime", &tx.lock_time.to_le_bytes(), format!("lock time {}", tx.lock_time)));
    f.push(field("hash type", &ht.to_le_bytes(), format!("{} as 4 bytes", hash_type_name(ht, false))));
    f
}

fn strip_codeseparators(script: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(script.len());
    let mut pc = 0;
    let mut begin = 0;
    while let Some(op) = get_op(script, &mut pc) {
        if op.opcode == OP_CODESEPARATOR {
            out.extend_from_slice(&script[begin..pc - 1]);
            begin = pc;
        }
    }
    if begin != script.len() {
        out.extend_from_slice(&script[begin..pc]);
    }
    out
}

fn bip143_fields(
    ctx: &TxContext<'_>,
    n_in: usize,
    sc: &[u8],
    amount: i64,
    ht: u32,
) -> (Vec<Field>, Vec<Aggregate>) {
    let tx = ctx.tx;
    let base = ht & 0x1f;
    let acp = ht & SIGHASH_ANYONECANPAY != 0;
    let h = ctx.bip143_hashes();
    let zero = [0u8; 32];
    let mut aggregates = Vec::new();
    let mut agg = |name: &str, d, covers| aggregate(&mut aggregates, name, "sha256d", d, covers);
    let mut f = vec![field("nVersion", &tx.version.to_le_bytes(), format!("version {}", tx.version))];
    if acp {
        f.push(field("hashPrevouts", &zero, "zero: ANYONECANPAY"));
    } else {
        let prevouts = (0..tx.inputs.len()).map(|j| hex::encode(&outpoint_bytes(tx, j))).collect();
        let d = agg("hashPrevouts", h.hash_prevouts, prevouts);
        f.push(field("hashPrevouts", &d, format!("SHA256d of the {} outpoints", tx.inputs.len())));
    }
    if acp || base == SIGHASH_SINGLE || base == SIGHASH_NONE {
        f.push(field("hashSequence", &zero, "zero: ANYONECANPAY, SINGLE or NONE"));
    } else {
        let seqs = tx.inputs.iter().map(|x| hex::encode(&x.sequence.to_le_bytes())).collect();
        let d = agg("hashSequence", h.hash_sequence, seqs);
        f.push(field("hashSequence", &d, format!("SHA256d of the {} nSequence values", tx.inputs.len())));
    }
    let op = &tx.inputs[n_in].prevout;
    let mut txid = op.txid;
    txid.reverse();
    f.push(field(
        "outpoint",
        &outpoint_bytes(tx, n_in),
        format!("txid {} : vout {}", hex::encode(&txid), op.vout),
    ));
    f.push(field("scriptCode", &var_bytes(sc), format!("{} bytes, length-prefixed", sc.len())));
    f.push(field("amount", &amount.to_le_bytes(), format!("{amount} sat spent by this input")));
    let seq = tx.inputs[n_in].sequence;
    f.push(field("nSequence", &seq.to_le_bytes(), format!("{seq:#010x}")));
    if base != SIGHASH_SINGLE && base != SIGHASH_NONE {
        let outs = tx.outputs.iter().map(|o| hex::encode(&output_bytes(o))).collect();
        let d = agg("hashOutputs", h.hash_outputs, outs);
        f.push(field("hashOutputs", &d, format!("SHA256d of the {} outputs", tx.outputs.len())));
    } else if base == SIGHASH_SINGLE && n_in < tx.outputs.len() {
        let o = output_bytes(&tx.outputs[n_in]);
        let d = agg("hashOutputs (single)", sha256d(&o), vec![hex::encode(&o)]);
        f.push(field("hashOutputs", &d, format!("SINGLE: SHA256d of output {n_in} only")));
    } else {
        f.push(field("hashOutputs", &zero, "zero: NONE, or SINGLE without a matching output"));
    }
    f.push(field("nLockTime", &tx.lock_time.to_le_bytes(), format!("lock time {}", tx.lock_time)));
    f.push(field("hash type", &ht.to_le_bytes(), format!("{} as 4 bytes", hash_type_name(ht, false))));
    (f, aggregates)
}

type Bip341Parts = (Vec<Field>, Vec<Aggregate>, Vec<u8>, [u8; 32]);

fn bip341(
    ctx: &TxContext<'_>,
    n_in: usize,
    ht: u32,
    annex: Option<&[u8]>,
    tapscript: Option<([u8; 32], u32)>,
) -> Result<Bip341Parts, FieldError> {
    let tx = ctx.tx;
    let spent = ctx.spent_outputs.expect("checked by the caller");
    let bad = || {
        FieldError::new(
            "hashType",
            format!("hash type {ht:#04x} is not defined for taproot (0x00-0x03, 0x81-0x83)"),
        )
    };
    let ht8 = u8::try_from(ht).map_err(|_| bad())?;
    let msg = ctx.bip341_sigmsg(n_in, ht8, annex, tapscript).map_err(|e| match e {
        fullverify::sighash::SighashError::SingleWithoutOutput => {
            FieldError::new("hashType", "SIGHASH_SINGLE needs an output at this input's index")
        }
        _ => bad(),
    })?;
    let digest = ctx.bip341_sighash(n_in, ht8, annex, tapscript).expect("same checks as the message");
    consistent(digest == tagged_hash(b"TapSighash", &msg), "tx", "BIP341 digest")?;
    let output_type = if ht8 == 0 { 1 } else { ht8 & 3 };
    let acp = ht8 & 0x80 != 0;
    let mut f = vec![
        field("epoch", &[0], "0x00: the only sighash epoch"),
        field("hash_type", &[ht8], hash_type_name(ht, true)),
        field("nVersion", &tx.version.to_le_bytes(), format!("version {}", tx.version)),
        field("nLockTime", &tx.lock_time.to_le_bytes(), format!("lock time {}", tx.lock_time)),
    ];
    let mut aggregates = Vec::new();
    let mut agg = |name: &str, d, covers| aggregate(&mut aggregates, name, "sha256", d, covers);
    if !acp {
        let n = tx.inputs.len();
        let d = agg(
            "sha_prevouts",
            ctx.sha_prevouts(),
            (0..n).map(|j| hex::encode(&outpoint_bytes(tx, j))).collect(),
        );
        f.push(field("sha_prevouts", &d, format!("SHA256 of the {n} outpoints")));
        let d = agg(
            "sha_amounts",
            ctx.sha_amounts().expect("spent outputs given"),
            spent.iter().map(|o| hex::encode(&o.value.to_le_bytes())).collect(),
        );
        f.push(field("sha_amounts", &d, format!("SHA256 of the {n} spent amounts")));
        let d = agg(
            "sha_scriptpubkeys",
            ctx.sha_scriptpubkeys().expect("spent outputs given"),
            spent.iter().map(|o| hex::encode(&var_bytes(&o.script_pubkey))).collect(),
        );
        f.push(field("sha_scriptpubkeys", &d, format!("SHA256 of the {n} spent scriptPubKeys")));
        let d = agg(
            "sha_sequences",
            ctx.sha_sequences(),
            tx.inputs.iter().map(|x| hex::encode(&x.sequence.to_le_bytes())).collect(),
        );
        f.push(field("sha_sequences", &d, format!("SHA256 of the {n} nSequence values")));
    }
    if output_type == 1 {
        let d = agg(
            "sha_outputs",
            ctx.sha_outputs(),
            tx.outputs.iter().map(|o| hex::encode(&output_bytes(o))).collect(),
        );
        f.push(field("sha_outputs", &d, format!("SHA256 of the {} outputs", tx.outputs.len())));
    }
    let ext = u8::from(tapscript.is_some());
    let st = ext * 2 + u8::from(annex.is_some());
    f.push(field(
        "spend_type",
        &[st],
        format!("ext_flag {ext} × 2 + annex_present {}", u8::from(annex.is_some())),
    ));
    if acp {
        let op = &tx.inputs[n_in].prevout;
        f.push(field(
            "outpoint",
            &outpoint_bytes(tx, n_in),
            format!("this input's outpoint (vout {})", op.vout),
        ));
        f.push(field("amount", &spent[n_in].value.to_le_bytes(), format!("{} sat", spent[n_in].value)));
        f.push(field(
            "scriptPubKey",
            &var_bytes(&spent[n_in].script_pubkey),
            "the spent scriptPubKey, length-prefixed",
        ));
        f.push(field(
            "nSequence",
            &tx.inputs[n_in].sequence.to_le_bytes(),
            format!("{:#010x}", tx.inputs[n_in].sequence),
        ));
    } else {
        f.push(field("input_index", &(n_in as u32).to_le_bytes(), format!("input {n_in}")));
    }
    if let Some(a) = annex {
        let d = sha256(&var_bytes(a));
        f.push(field("sha_annex", &d, format!("SHA256 of the {}-byte annex, length-prefixed", a.len())));
    }
    if output_type == 3 {
        let o = output_bytes(&tx.outputs[n_in]);
        f.push(field("sha_single_output", &sha256(&o), format!("SINGLE: SHA256 of output {n_in}")));
    }
    if let Some((leaf, pos)) = tapscript {
        f.push(field("tapleaf_hash", &leaf, "the executed leaf (BIP342 extension)"));
        f.push(field("key_version", &[0], "0x00"));
        f.push(field(
            "codesep_pos",
            &pos.to_le_bytes(),
            if pos == u32::MAX {
                "0xffffffff: no OP_CODESEPARATOR executed".to_string()
            } else {
                format!("opcode position {pos}")
            },
        ));
    }
    check_concat(&f, &msg)?;
    Ok((f, aggregates, msg, digest))
}

/// The sighash panel: see [`explain`]. `hashType` is a number or `undefined` (use the
/// signature's). Throws an `Error` with a `field` property naming the bad input.
#[wasm_bindgen(js_name = explainSighash)]
pub fn explain_sighash(
    tx: &str,
    prevouts: &str,
    input: &str,
    flags: &str,
    hash_type: Option<u32>,
) -> Result<JsValue, JsValue> {
    to_js(&explain(tx, prevouts, input, flags, hash_type)?)
}

/// Core's default consensus flag set the page uses when none are given.
#[wasm_bindgen(js_name = defaultFlags)]
pub fn default_flags() -> String {
    DEFAULT_FLAGS.into()
}

/// Every flag name the interpreter knows, in Core's bit order.
#[wasm_bindgen(js_name = flagNames)]
pub fn flag_names() -> Vec<String> {
    ScriptFlags::NAMED.iter().map(|(n, _)| n.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // BIP143 "Native P2WPKH" example, input 1.
    const P2WPKH_TX: &str = "01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000";
    const P2WPKH_PREVOUTS: &str = "625000000:2103c9f4836b9a4f77fc0d81f7bcb01b7f1b35916864b9476c241ce9fc198bd25432ac,600000000:00141d0f172a0ecb48aee1be1f2687d2963ae33f71a1";

    #[test]
    fn bip143_native_p2wpkh() {
        let v = explain(P2WPKH_TX, P2WPKH_PREVOUTS, "1", "", None).unwrap();
        assert_eq!(v.algorithm, Algorithm::Bip143);
        assert_eq!(v.sighash, "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670");
        assert_eq!(v.verdict, "valid");
        assert_eq!(v.fields.len(), 10);
        // A changed amount changes the digest and the verdict.
        let bad = P2WPKH_PREVOUTS.replace("600000000:", "600000001:");
        let v = explain(P2WPKH_TX, &bad, "1", "", None).unwrap();
        assert_ne!(v.sighash, "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670");
        assert!(v.verdict.starts_with("invalid: "), "{}", v.verdict);
        // Input 0 is a P2PK spend: legacy.
        let v = explain(P2WPKH_TX, P2WPKH_PREVOUTS, "0", "", None).unwrap();
        assert_eq!(v.algorithm, Algorithm::Legacy);
        assert_eq!(v.verdict, "valid");
        // Every hash type lays out the core's preimage (checked inside explain).
        for ht in [1, 2, 3, 0x81, 0x82, 0x83] {
            explain(P2WPKH_TX, P2WPKH_PREVOUTS, "0", "", Some(ht)).unwrap();
            explain(P2WPKH_TX, P2WPKH_PREVOUTS, "1", "", Some(ht)).unwrap();
        }
    }

    #[test]
    fn errors_name_their_field() {
        assert_eq!(explain("zz", "", "0", "", None).unwrap_err().field, "tx");
        assert_eq!(explain(&P2WPKH_TX[..100], "", "0", "", None).unwrap_err().field, "tx");
        assert_eq!(explain(P2WPKH_TX, "1:00", "0", "", None).unwrap_err().field, "prevouts");
        assert_eq!(explain(P2WPKH_TX, P2WPKH_PREVOUTS, "2", "", None).unwrap_err().field, "input");
        assert_eq!(explain(P2WPKH_TX, P2WPKH_PREVOUTS, "0", "P2SH,BOGUS", None).unwrap_err().field, "flags");
    }
}
