// SPDX-License-Identifier: MIT OR Apache-2.0
//! Harnesses for the external vector formats, with Core's semantics. Shared by the integration
//! tests (`core/tests/*.rs`) and the conformance runner (`experiments/src/bin/conformance.rs`), so
//! both apply one definition of "pass".
//!
//! Every `run_*` returns an [`Outcome`]: counts plus a message per failure.
#![allow(dead_code)]

use fullverify::chain::Network;
use fullverify::encode::{Block, OutPoint, Reader, Transaction, TxIn, TxOut};
use fullverify::script::asm::parse_asm;
use fullverify::script::flags::{self as fl, ScriptFlags as F};
use fullverify::script::{verify_input, verify_script, ScriptError, SigVerifier, TweakCheck};
use fullverify::sighash::TxContext;
use fullverify::utxo::Coin;
use fullverify_driver::spent;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

/// `internal + tweak·G` as (x-only output key, odd parity): the taproot tweak a harness needs,
/// supplied by the caller so the same runner checks libsecp256k1 and fullverify's own layer.
pub type TweakFn = dyn Fn(&[u8; 32], &[u8; 32]) -> ([u8; 32], bool);

/// Pass/fail counts with failure messages.
#[derive(Debug, Default)]
pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
    pub failures: Vec<String>,
}

impl Outcome {
    pub fn check(&mut self, ok: bool, msg: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            if self.failures.len() < 50 {
                self.failures.push(msg());
            }
        }
    }
    pub fn merge(&mut self, o: Outcome) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.failures.extend(o.failures);
    }
    /// Panics with the first failures when any case failed.
    pub fn assert_all_passed(&self, what: &str) {
        assert!(
            self.failed == 0 && self.passed > 0,
            "{what}: {} passed, {} failed; first failures:\n{}",
            self.passed,
            self.failed,
            self.failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        );
        eprintln!("{what}: {} passed, 0 failed", self.passed);
    }
}

/// Runs `run` on the JSON vector file `rel` and asserts that it counted `cases` cases, all
/// passing; returns the file's content, or `None` (loudly, see [`crate::vector_file`]) when it
/// is absent.
pub fn check_vector_file(rel: &str, cases: usize, run: impl FnOnce(&Value) -> Outcome) -> Option<Value> {
    let json = crate::load_json(rel)?;
    let o = run(&json);
    assert_eq!(o.passed + o.failed, cases, "{rel}: cases");
    o.assert_all_passed(rel);
    Some(json)
}

/// Runs `run` on the case `parse` makes of each row of `json`, in order. A row it cannot parse
/// is a failure, `unparseable(row, error)` its message; rows it skips (`Ok(None)`) do not count.
fn for_each_case<T>(
    json: &Value,
    parse: impl Fn(&Value) -> Result<Option<T>, String>,
    unparseable: impl Fn(&Value, &str) -> String,
    mut run: impl FnMut(&mut Outcome, T),
) -> Outcome {
    let mut out = Outcome::default();
    for row in json.as_array().into_iter().flatten() {
        match parse(row) {
            Ok(Some(c)) => run(&mut out, c),
            Ok(None) => {}
            Err(e) => out.check(false, || unparseable(row, &e)),
        }
    }
    out
}

fn h(s: &str) -> Result<Vec<u8>, String> {
    hex::decode(s).map_err(|e| format!("bad hex {s:?}: {e}"))
}

fn rev32(s: &str) -> Result<[u8; 32], String> {
    let mut v: [u8; 32] = h(s)?.try_into().map_err(|_| format!("not 32 bytes: {s}"))?;
    v.reverse();
    Ok(v)
}

fn btc_to_sat(v: &Value) -> i64 {
    (v.as_f64().expect("amount") * 1e8).round() as i64
}

/// A verifier wrapper that remembers successful checks (Core's signature cache), so harnesses
/// that re-run one input under many flag sets pay for each signature once.
pub struct CachingVerifier<'a, V: SigVerifier> {
    inner: &'a V,
    ok: Mutex<HashSet<Vec<u8>>>,
}

impl<'a, V: SigVerifier> CachingVerifier<'a, V> {
    pub fn new(inner: &'a V) -> Self {
        CachingVerifier { inner, ok: Mutex::new(HashSet::new()) }
    }
    fn cached(&self, key: Vec<u8>, f: impl FnOnce() -> bool) -> bool {
        if self.ok.lock().unwrap().contains(&key) {
            return true;
        }
        let r = f();
        if r {
            self.ok.lock().unwrap().insert(key);
        }
        r
    }
}

impl<V: SigVerifier> SigVerifier for CachingVerifier<'_, V> {
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        let key = [&[0u8][..], pubkey, &[0xff], sig, msg32].concat();
        self.cached(key, || self.inner.verify_ecdsa(pubkey, sig, msg32))
    }
    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool {
        let key = [&[1u8][..], xonly, sig64, msg32].concat();
        self.cached(key, || self.inner.verify_schnorr(xonly, sig64, msg32))
    }
    fn tweak_add_check(&self, check: &TweakCheck<'_>) -> bool {
        let c = check;
        let key = [&[2u8][..], c.internal, c.tweak, c.output, &[c.parity as u8]].concat();
        self.cached(key, || self.inner.tweak_add_check(check))
    }
}

// ---------------------------------------------------------------------------------------------
// script_tests.json
// ---------------------------------------------------------------------------------------------

/// BIP341's NUMS point H (x-only), the internal key for the generated tapscript cases.
pub const NUMS_H: [u8; 32] = [
    0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54, 0xb7, 0x8b, 0x4b, 0x60, 0x35, 0xe9, 0x7a, 0x5e, 0x07,
    0x8a, 0x5a, 0x0f, 0x28, 0xec, 0x96, 0xd5, 0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0,
];

/// Core's `BuildCreditingTransaction`/`BuildSpendingTransaction` pair.
pub fn script_test_txs(
    script_sig: Vec<u8>,
    script_pubkey: Vec<u8>,
    witness: Vec<Vec<u8>>,
    amount: i64,
) -> (Transaction, TxOut) {
    let credit = Transaction {
        version: 1,
        inputs: vec![TxIn {
            prevout: OutPoint::NULL,
            script_sig: vec![0x00, 0x00],
            sequence: u32::MAX,
            witness: vec![],
        }],
        outputs: vec![TxOut { value: amount, script_pubkey }],
        lock_time: 0,
    };
    let spend = Transaction {
        version: 1,
        inputs: vec![TxIn {
            prevout: OutPoint { txid: credit.txid(), vout: 0 },
            script_sig,
            sequence: u32::MAX,
            witness,
        }],
        outputs: vec![TxOut { value: amount, script_pubkey: vec![] }],
        lock_time: 0,
    };
    (spend, credit.outputs[0].clone())
}

/// One parsed script test.
pub struct ScriptTest {
    pub script_sig: Vec<u8>,
    pub script_pubkey: Vec<u8>,
    pub witness: Vec<Vec<u8>>,
    pub amount: i64,
    pub flags: F,
    pub expected: String,
    pub label: String,
}

/// Parses one row of script_tests.json (`None` for comment rows). `tweak` computes the
/// taproot output key for the `#TAPROOTOUTPUT#` placeholder.
pub fn parse_script_test(row: &Value, tweak: &TweakFn) -> Result<Option<ScriptTest>, String> {
    let arr = row.as_array().ok_or("row not an array")?;
    if arr.len() < 4 {
        return Ok(None);
    }
    let mut pos = 0;
    let mut witness = Vec::new();
    let mut amount = 0;
    let mut tap_script: Option<Vec<u8>> = None;
    let mut output_key: Option<[u8; 32]> = None;
    if let Some(w) = arr[0].as_array() {
        for e in &w[..w.len() - 1] {
            let s = e.as_str().ok_or("witness item not a string")?;
            if let Some(asm) = s.strip_prefix("#SCRIPT#") {
                let sc = parse_asm(asm).map_err(|e| e.to_string())?;
                witness.push(sc.clone());
                tap_script = Some(sc);
            } else if s == "#CONTROLBLOCK#" {
                let sc = tap_script.as_ref().ok_or("#CONTROLBLOCK# without #SCRIPT#")?;
                let leaf = fullverify::script::interpreter::tapleaf_hash(0xc0, sc);
                let t = fullverify::script::interpreter::taptweak_hash(&NUMS_H, Some(&leaf));
                let (q, odd) = tweak(&NUMS_H, &t);
                output_key = Some(q);
                let mut cb = vec![0xc0 | odd as u8];
                cb.extend_from_slice(&NUMS_H);
                witness.push(cb);
            } else {
                witness.push(h(s)?);
            }
        }
        amount = btc_to_sat(&w[w.len() - 1]);
        pos = 1;
    }
    let s = |i: usize| arr.get(i).and_then(Value::as_str).ok_or(format!("field {i} not a string"));
    let sig_asm = s(pos)?;
    let mut pk_asm = s(pos + 1)?.to_string();
    if pk_asm.contains("#TAPROOTOUTPUT#") {
        let q = output_key.ok_or("#TAPROOTOUTPUT# without control block")?;
        pk_asm = pk_asm.replace("#TAPROOTOUTPUT#", &format!("0x{}", hex::encode(q)));
    }
    let mut flags: F = s(pos + 2)?.parse().map_err(|e: fl::ParseFlagsError| e.to_string())?;
    if flags.contains(F::CLEANSTACK) {
        flags |= F::P2SH | F::WITNESS;
    }
    Ok(Some(ScriptTest {
        script_sig: parse_asm(sig_asm).map_err(|e| e.to_string())?,
        script_pubkey: parse_asm(&pk_asm).map_err(|e| e.to_string())?,
        witness,
        amount,
        flags,
        expected: s(pos + 3)?.to_string(),
        label: format!("{sig_asm} | {pk_asm} | {}", s(pos + 2)?),
    }))
}

fn run_one_script_test<V: SigVerifier>(t: &ScriptTest, flags: F, v: &V) -> Result<(), ScriptError> {
    let (spend, spent) =
        script_test_txs(t.script_sig.clone(), t.script_pubkey.clone(), t.witness.clone(), t.amount);
    let outs = [spent];
    let ctx = TxContext::new(&spend, Some(&outs));
    verify_input(&ctx, 0, flags, v)
}

/// Core's `script_tests`: the expected error by name under the given flags, then 16 random
/// flag perturbations that must not change the verdict (removing flags from a passing test,
/// adding flags to a failing one).
pub fn run_script_tests<V: SigVerifier>(json: &Value, v: &V, tweak: &TweakFn) -> Outcome {
    let mut rng = crate::SplitMix64(0x5c41_7e57);
    let parse = |row: &Value| parse_script_test(row, tweak);
    let unparseable = |row: &Value, e: &str| format!("unparseable row {row}: {e}");
    for_each_case(json, parse, unparseable, |out, t| {
        let r = run_one_script_test(&t, t.flags, v);
        let got = match r {
            Ok(()) => "OK",
            Err(e) => e.name(),
        };
        let expect_ok = t.expected == "OK";
        let mut ok = got == t.expected;
        let mut detail = String::new();
        for _ in 0..16 {
            let extra = F::from_bits_truncate((rng.next_u64() & 0xffff) as u32);
            let combined = if expect_ok { t.flags - extra } else { t.flags | extra };
            if combined.contains(F::CLEANSTACK) && !combined.contains(F::P2SH | F::WITNESS) {
                continue;
            }
            if combined.contains(F::WITNESS) && !combined.contains(F::P2SH) {
                continue;
            }
            if run_one_script_test(&t, combined, v).is_ok() != expect_ok {
                ok = false;
                detail = format!(" (verdict changed with flags {combined})");
            }
        }
        out.check(ok, || format!("{}: expected {}, got {got}{detail}", t.label, t.expected));
    })
}

// ---------------------------------------------------------------------------------------------
// BIP340 test vectors
// ---------------------------------------------------------------------------------------------

/// One row of BIP340's `test-vectors.csv`.
pub struct Bip340Vector {
    pub index: String,
    /// The secret key and aux_rand, for the vectors that sign.
    pub signing: Option<([u8; 32], [u8; 32])>,
    pub public_key: [u8; 32],
    pub message: Vec<u8>,
    pub signature: [u8; 64],
    /// The expected verification result.
    pub valid: bool,
}

/// `bips/bip340_test_vectors.csv`, or `None` (loudly, see [`crate::vector_file`]) when it is
/// absent.
pub fn bip340_vectors() -> Option<Vec<Bip340Vector>> {
    let path = crate::vector_file("bips/bip340_test_vectors.csv")?;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let unhex = |s: &str| crate::unhex(s.trim());
    let b32 = |s: &str| -> [u8; 32] { unhex(s).try_into().expect("32 bytes") };
    let rows = text.lines().skip(1).filter(|l| !l.trim().is_empty());
    Some(
        rows.map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Bip340Vector {
                index: f[0].to_string(),
                signing: (!f[1].is_empty()).then(|| (b32(f[1]), b32(f[3]))),
                public_key: b32(f[2]),
                message: unhex(f[4]),
                signature: unhex(f[5]).try_into().expect("64 bytes"),
                valid: f[6] == "TRUE",
            }
        })
        .collect(),
    )
}

// ---------------------------------------------------------------------------------------------
// tx_valid.json / tx_invalid.json
// ---------------------------------------------------------------------------------------------

/// Flags the transaction harness varies: every named flag.
fn trim_flags(mut f: F) -> F {
    // WITNESS requires P2SH; CLEANSTACK requires WITNESS.
    if !f.contains(F::P2SH) {
        f.remove(F::WITNESS);
    }
    if !f.contains(F::WITNESS) {
        f.remove(F::CLEANSTACK);
    }
    f
}

fn fill_flags(mut f: F) -> F {
    if f.contains(F::CLEANSTACK) {
        f |= F::WITNESS;
    }
    if f.contains(F::WITNESS) {
        f |= F::P2SH;
    }
    f
}

const ALL_NAMED: F = F::ALL;

fn exclude_individual_flags(flags: F) -> Vec<F> {
    let mut v = Vec::new();
    for (_, f) in F::NAMED {
        let e = trim_flags(flags - f);
        if e != flags && !v.contains(&e) {
            v.push(e);
        }
    }
    v
}

struct TxCase {
    tx: Transaction,
    spent: Vec<TxOut>,
    flags_str: String,
    label: String,
}

fn parse_tx_case(row: &Value) -> Result<Option<TxCase>, String> {
    let arr = row.as_array().ok_or("row not an array")?;
    if arr.len() < 3 || !arr[0].is_array() {
        return Ok(None);
    }
    let mut prev: HashMap<OutPoint, TxOut> = HashMap::new();
    for p in arr[0].as_array().unwrap() {
        let p = p.as_array().ok_or("prevout not an array")?;
        let txid = rev32(p[0].as_str().ok_or("txid")?)?;
        let vout = p[1].as_i64().ok_or("vout")? as u32;
        let spk = parse_asm(p[2].as_str().ok_or("spk")?).map_err(|e| e.to_string())?;
        let value = p.get(3).and_then(Value::as_i64).unwrap_or(0);
        prev.insert(OutPoint { txid, vout }, TxOut { value, script_pubkey: spk });
    }
    let raw = h(arr[1].as_str().ok_or("tx hex")?)?;
    let tx = Transaction::from_bytes(&raw).map_err(|e| format!("tx does not deserialize: {e}"))?;
    let spent = tx
        .inputs
        .iter()
        .map(|i| prev.get(&i.prevout).cloned().ok_or_else(|| "missing prevout".to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let flags_str = arr[2].as_str().ok_or("flags")?.to_string();
    Ok(Some(TxCase {
        label: format!(
            "{} [{}]",
            &arr[1].as_str().unwrap()[..arr[1].as_str().unwrap().len().min(60)],
            flags_str
        ),
        tx,
        spent,
        flags_str,
    }))
}

/// [`for_each_case`] over the rows of `what` (tx_valid.json or tx_invalid.json).
fn for_each_tx_case(json: &Value, what: &str, run: impl FnMut(&mut Outcome, TxCase)) -> Outcome {
    for_each_case(json, parse_tx_case, |_, e| format!("unparseable {what} row: {e}"), run)
}

fn tx_scripts_ok<V: SigVerifier>(c: &TxCase, flags: F, v: &V) -> bool {
    let ctx = TxContext::new(&c.tx, Some(&c.spent));
    (0..c.tx.inputs.len()).all(|i| verify_input(&ctx, i, flags, v).is_ok())
}

/// Core's `tx_valid` harness: CheckTransaction passes; scripts pass under all flags except the
/// excluded ones, and still pass with any flag (or random flags) removed; and the exclusions
/// are necessary (re-adding any excluded flag makes it fail).
pub fn run_tx_valid<V: SigVerifier>(json: &Value, v: &V) -> Outcome {
    let mut rng = crate::SplitMix64(0x7a11_d000);
    for_each_tx_case(json, "tx_valid", |out, c| {
        let excluded = match c.flags_str.parse::<F>() {
            Ok(f) => f,
            Err(e) => return out.check(false, || format!("{}: {e}", c.label)),
        };
        let mut why = Vec::new();
        if let Err(e) = c.tx.check() {
            why.push(format!("CheckTransaction: {}", e.reason()));
        }
        let base = ALL_NAMED - excluded;
        if base != fill_flags(base) {
            why.push("bad flag combination".into());
        }
        if !tx_scripts_ok(&c, base, v) {
            why.push("fails under all-but-excluded flags".into());
        }
        for (name, f) in F::NAMED {
            let flags = trim_flags(ALL_NAMED - (excluded | f));
            if !tx_scripts_ok(&c, flags, v) {
                why.push(format!("fails with {name} unset"));
            }
            let random = F::from_bits_truncate(rng.next_u64() as u32);
            let flags = trim_flags(ALL_NAMED - (excluded | random));
            if !tx_scripts_ok(&c, flags, v) {
                why.push(format!("fails with random flags {flags}"));
            }
        }
        for e in exclude_individual_flags(excluded) {
            if tx_scripts_ok(&c, ALL_NAMED - e, v) {
                why.push(format!("passes with flags {}: exclusion not needed", ALL_NAMED - e));
            }
        }
        out.check(why.is_empty(), || format!("{}: {}", c.label, why.join("; ")));
    })
}

/// Core's `tx_invalid` harness: `BADTX` cases fail CheckTransaction; others fail scripts under
/// the listed flags, still fail with any flag (or random flags) added, and pass with any
/// listed flag removed (the flags are minimal).
pub fn run_tx_invalid<V: SigVerifier>(json: &Value, v: &V) -> Outcome {
    let mut rng = crate::SplitMix64(0x1a5a_11d0);
    for_each_tx_case(json, "tx_invalid", |out, c| {
        let check = c.tx.check();
        if c.flags_str == "BADTX" || check.is_err() {
            return out.check(c.flags_str == "BADTX" && check.is_err(), || {
                format!("{}: CheckTransaction gave {check:?}", c.label)
            });
        }
        let flags = match c.flags_str.parse::<F>() {
            Ok(f) => f,
            Err(e) => return out.check(false, || format!("{}: {e}", c.label)),
        };
        let mut why = Vec::new();
        if flags != fill_flags(flags) {
            why.push("bad flag combination".to_string());
        }
        if tx_scripts_ok(&c, flags, v) {
            why.push("passes under its flags".into());
        }
        for (name, f) in F::NAMED {
            if tx_scripts_ok(&c, fill_flags(flags | f), v) {
                why.push(format!("passes with {name} added"));
            }
            let random = F::from_bits_truncate(rng.next_u64() as u32);
            if tx_scripts_ok(&c, fill_flags(flags | random), v) {
                why.push(format!("passes with random flags {random} added"));
            }
        }
        for e in exclude_individual_flags(flags) {
            if !tx_scripts_ok(&c, e, v) {
                why.push(format!("still fails with flags {e}: flags not minimal"));
            }
        }
        out.check(why.is_empty(), || format!("{}: {}", c.label, why.join("; ")));
    })
}

// ---------------------------------------------------------------------------------------------
// Sighash vectors
// ---------------------------------------------------------------------------------------------

/// Core's sighash.json: `[raw tx, script, input index, hashType (i32), sighash (display hex)]`.
pub fn run_sighash_json(json: &Value) -> Outcome {
    let mut out = Outcome::default();
    for row in json.as_array().into_iter().flatten() {
        let Some(a) = row.as_array().filter(|a| a.len() == 5) else { continue };
        let r = (|| -> Result<bool, String> {
            let raw = h(a[0].as_str().ok_or("tx")?)?;
            let mut rd = Reader::new(&raw);
            let tx = Transaction::decode(&mut rd).map_err(|e| e.to_string())?;
            let script = h(a[1].as_str().ok_or("script")?)?;
            let n_in = a[2].as_u64().ok_or("index")? as usize;
            let ht = a[3].as_i64().ok_or("hashtype")? as i32 as u32;
            let expect = rev32(a[4].as_str().ok_or("hash")?)?;
            let ctx = TxContext::new(&tx, None);
            // The displayed preimage hashes to the same value.
            let via_preimage = match fullverify::sighash::legacy_preimage(&tx, n_in, &script, ht) {
                Some(p) => fullverify::hash::sha256d(&p),
                None => fullverify::sighash::ONE_HASH,
            };
            Ok(ctx.legacy_sighash(n_in, &script, ht) == expect && via_preimage == expect)
        })();
        out.check(matches!(r, Ok(true)), || format!("sighash.json row {row}: {r:?}"));
    }
    out
}

/// The BIP143 examples: preimage and sighash for each of the 13 computations.
pub fn run_bip143(json: &Value) -> Outcome {
    let mut out = Outcome::default();
    let cases = json
        .as_array()
        .cloned()
        .or_else(|| json.get("cases").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    for c in &cases {
        let r = (|| -> Result<(), String> {
            let s = |k: &str| c.get(k).and_then(Value::as_str).ok_or(format!("field {k}"));
            let tx = Transaction::from_bytes(&h(s("unsigned_tx")?)?).map_err(|e| e.to_string())?;
            let idx = c["input_index"].as_u64().ok_or("input_index")? as usize;
            let sc = h(s("script_code")?)?;
            let amount = c["amount"].as_i64().ok_or("amount")?;
            let ht = c["hash_type"].as_i64().ok_or("hash_type")? as u32;
            let ctx = TxContext::new(&tx, None);
            let pre = ctx.bip143_preimage(idx, &sc, amount, ht).map_err(|e| format!("{e:?}"))?;
            if hex::encode(&pre) != s("preimage")? {
                return Err("preimage differs".into());
            }
            let sh = ctx.bip143_sighash(idx, &sc, amount, ht).map_err(|e| format!("{e:?}"))?;
            let want = s("sighash")?;
            // The examples print sighashes in internal byte order.
            if hex::encode(sh) != want && hex::encode(sh.iter().rev().copied().collect::<Vec<_>>()) != want {
                return Err("sighash differs".into());
            }
            Ok(())
        })();
        out.check(r.is_ok(), || format!("bip143 case {c}: {r:?}"));
    }
    out
}

/// BIP341 wallet vectors: every leaf hash, merkle root, tweak, tweaked key, control block and
/// script pubkey; every key-path sighash with its intermediaries.
pub fn run_bip341_wallet<V: SigVerifier>(json: &Value, tweak: &TweakFn, v: &V) -> Outcome {
    use fullverify::script::interpreter::{tapbranch_hash, tapleaf_hash, taptweak_hash};
    let mut out = Outcome::default();
    // scriptPubKey cases.
    for c in json["scriptPubKey"].as_array().into_iter().flatten() {
        let r = (|| -> Result<(), String> {
            let internal: [u8; 32] =
                h(c["given"]["internalPubkey"].as_str().ok_or("internal")?)?.try_into().map_err(|_| "len")?;
            // Leaves in depth-first order with their hashes; the tree's root.
            fn walk(node: &Value, leaves: &mut Vec<(u8, Vec<u8>, [u8; 32])>) -> Result<[u8; 32], String> {
                if node.is_null() {
                    return Err("empty".into());
                }
                if let Some(arr) = node.as_array() {
                    let a = walk(&arr[0], leaves)?;
                    let b = walk(&arr[1], leaves)?;
                    return Ok(tapbranch_hash(&a, &b));
                }
                let ver = node["leafVersion"].as_u64().ok_or("leafVersion")? as u8;
                let script =
                    hex::decode(node["script"].as_str().ok_or("script")?).map_err(|e| e.to_string())?;
                let lh = tapleaf_hash(ver, &script);
                leaves.push((ver, script, lh));
                Ok(lh)
            }
            let mut leaves = Vec::new();
            let tree = &c["given"]["scriptTree"];
            let root = if tree.is_null() { None } else { Some(walk(tree, &mut leaves)?) };
            let inter = &c["intermediary"];
            if let Some(lhs) = inter["leafHashes"].as_array() {
                for (i, lh) in lhs.iter().enumerate() {
                    if lh.as_str() != Some(&hex::encode(leaves[i].2)) {
                        return Err(format!("leaf hash {i}"));
                    }
                }
            }
            match (root, inter["merkleRoot"].as_str()) {
                (Some(r), Some(w)) if hex::encode(r) == w => {}
                (None, None) => {}
                _ => return Err("merkle root".into()),
            }
            let t = taptweak_hash(&internal, root.as_ref());
            if inter["tweak"].as_str() != Some(&hex::encode(t)) {
                return Err("tweak".into());
            }
            let (q, odd) = tweak(&internal, &t);
            if inter["tweakedPubkey"].as_str() != Some(&hex::encode(q)) {
                return Err("tweaked key".into());
            }
            let spk = [&[0x51u8, 0x20][..], &q].concat();
            if c["expected"]["scriptPubKey"].as_str() != Some(&hex::encode(&spk)) {
                return Err("scriptPubKey".into());
            }
            // Control blocks: leaf version | parity, internal key, then the sibling path. The
            // path is recomputed from the tree and checked by proving the root.
            if let Some(cbs) = c["expected"]["scriptPathControlBlocks"].as_array() {
                for (i, cb) in cbs.iter().enumerate() {
                    let cb = h(cb.as_str().ok_or("cb")?)?;
                    let (ver, _, lh) = &leaves[i];
                    if cb[0] != (ver | odd as u8) || cb[1..33] != internal {
                        return Err(format!("control block {i} header"));
                    }
                    if fullverify::script::interpreter::taproot_merkle_root(&cb, *lh) != root.unwrap() {
                        return Err(format!("control block {i} path"));
                    }
                }
            }
            Ok(())
        })();
        out.check(r.is_ok(), || format!("bip341 scriptPubKey case: {r:?}"));
    }
    // Key-path spending.
    for c in json["keyPathSpending"].as_array().into_iter().flatten() {
        let r = (|| -> Result<usize, String> {
            let tx = Transaction::from_bytes(&h(c["given"]["rawUnsignedTx"].as_str().ok_or("tx")?)?)
                .map_err(|e| e.to_string())?;
            let spent: Vec<TxOut> = c["given"]["utxosSpent"]
                .as_array()
                .ok_or("utxos")?
                .iter()
                .map(|u| {
                    Ok(TxOut {
                        value: u["amountSats"].as_i64().ok_or("amount")?,
                        script_pubkey: h(u["scriptPubKey"].as_str().ok_or("spk")?)?,
                    })
                })
                .collect::<Result<_, String>>()?;
            let ctx = TxContext::new(&tx, Some(&spent));
            let hs = ctx.bip341_hashes().ok_or("hashes")?;
            let im = &c["intermediary"];
            for (k, v) in [
                ("hashPrevouts", hs.sha_prevouts),
                ("hashAmounts", hs.sha_amounts),
                ("hashScriptPubkeys", hs.sha_scriptpubkeys),
                ("hashSequences", hs.sha_sequences),
                ("hashOutputs", hs.sha_outputs),
            ] {
                if im[k].as_str() != Some(&hex::encode(v)) {
                    return Err(k.to_string());
                }
            }
            let mut n = 0;
            for inp in c["inputSpending"].as_array().ok_or("inputs")? {
                let idx = inp["given"]["txinIndex"].as_u64().ok_or("idx")? as usize;
                let ht = inp["given"]["hashType"].as_u64().ok_or("ht")? as u8;
                let internal: [u8; 32] = h(inp["intermediary"]["internalPubkey"].as_str().ok_or("ik")?)?
                    .try_into()
                    .map_err(|_| "len")?;
                let root =
                    inp["given"]["merkleRoot"].as_str().map(|s| <[u8; 32]>::try_from(h(s).unwrap()).unwrap());
                let t = taptweak_hash(&internal, root.as_ref());
                if inp["intermediary"]["tweak"].as_str() != Some(&hex::encode(t)) {
                    return Err(format!("input {idx} tweak"));
                }
                let msg = ctx.bip341_sigmsg(idx, ht, None, None).map_err(|e| format!("{e:?}"))?;
                if inp["intermediary"]["sigMsg"].as_str() != Some(&hex::encode(&msg)) {
                    return Err(format!("input {idx} sigMsg"));
                }
                let sh = ctx.bip341_sighash(idx, ht, None, None).map_err(|e| format!("{e:?}"))?;
                if inp["intermediary"]["sigHash"].as_str() != Some(&hex::encode(sh)) {
                    return Err(format!("input {idx} sigHash"));
                }
                n += 1;
            }
            // The expected witnesses make a signed transaction whose key-path inputs verify.
            let mut signed = tx.clone();
            let mut idxs = Vec::new();
            for inp in c["inputSpending"].as_array().ok_or("inputs")? {
                let idx = inp["given"]["txinIndex"].as_u64().ok_or("idx")? as usize;
                signed.inputs[idx].witness = inp["expected"]["witness"]
                    .as_array()
                    .ok_or("witness")?
                    .iter()
                    .map(|x| h(x.as_str().unwrap_or("?")))
                    .collect::<Result<_, _>>()?;
                idxs.push(idx);
            }
            let sctx = TxContext::new(&signed, Some(&spent));
            for idx in idxs {
                verify_input(&sctx, idx, F::P2SH | F::WITNESS | F::TAPROOT, v)
                    .map_err(|e| format!("input {idx} signature: {e}"))?;
            }
            Ok(n)
        })();
        out.check(r.is_ok(), || format!("bip341 keyPathSpending: {r:?}"));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// script_assets (Core's script_assets_test)
// ---------------------------------------------------------------------------------------------

/// Core's `AllConsensusFlags`: combinations of the 7 consensus flags, WITNESS ⇒ P2SH and
/// TAPROOT ⇒ WITNESS.
pub fn all_consensus_flags() -> Vec<F> {
    let mut v = Vec::new();
    for i in 0..128u32 {
        let mut f = F::NONE;
        for (bit, flag) in [
            (1, F::P2SH),
            (2, F::DERSIG),
            (4, F::NULLDUMMY),
            (8, F::CHECKLOCKTIMEVERIFY),
            (16, F::CHECKSEQUENCEVERIFY),
            (32, F::WITNESS),
            (64, F::TAPROOT),
        ] {
            if i & bit != 0 {
                f |= flag;
            }
        }
        if f.contains(F::WITNESS) && !f.contains(F::P2SH) {
            continue;
        }
        if f.contains(F::TAPROOT) && !f.contains(F::WITNESS) {
            continue;
        }
        v.push(f);
    }
    v
}

/// Core's `script_assets_test`: each `success` passes under every consensus flag subset of
/// `flags` (all sets when `final`), each `failure` fails under every superset. One case counts
/// once, passing only if every one of its checks does.
pub fn run_script_assets<V: SigVerifier>(json: &Value, v: &V) -> Outcome {
    let mut out = Outcome::default();
    let all = all_consensus_flags();
    let cache = CachingVerifier::new(v);
    for (n, t) in json.as_array().into_iter().flatten().enumerate() {
        let r = (|| -> Result<(), String> {
            let mut tx =
                Transaction::from_bytes(&h(t["tx"].as_str().ok_or("tx")?)?).map_err(|e| e.to_string())?;
            let prevouts: Vec<TxOut> = t["prevouts"]
                .as_array()
                .ok_or("prevouts")?
                .iter()
                .map(|p| {
                    let b = h(p.as_str().ok_or("prevout")?)?;
                    let mut r = Reader::new(&b);
                    let o = TxOut::decode(&mut r).map_err(|e| e.to_string())?;
                    r.finish().map_err(|e| e.to_string())?;
                    Ok(o)
                })
                .collect::<Result<_, String>>()?;
            let idx = t["index"].as_u64().ok_or("index")? as usize;
            let test_flags: F = t["flags"]
                .as_str()
                .ok_or("flags")?
                .parse()
                .map_err(|e: fl::ParseFlagsError| e.to_string())?;
            let fin = t.get("final").and_then(Value::as_bool).unwrap_or(false);
            for (key, want_ok) in [("success", true), ("failure", false)] {
                let Some(w) = t.get(key) else { continue };
                tx.inputs[idx].script_sig = h(w["scriptSig"].as_str().ok_or("scriptSig")?)?;
                tx.inputs[idx].witness = w["witness"]
                    .as_array()
                    .ok_or("witness")?
                    .iter()
                    .map(|x| h(x.as_str().unwrap_or("?")))
                    .collect::<Result<_, _>>()?;
                let ctx = TxContext::new(&tx, Some(&prevouts));
                for &f in &all {
                    let applies =
                        if want_ok { fin || test_flags.contains(f) } else { f.contains(test_flags) };
                    if !applies {
                        continue;
                    }
                    let res = verify_script(
                        &ctx,
                        idx,
                        &prevouts[idx].script_pubkey,
                        prevouts[idx].value,
                        f,
                        &cache,
                    );
                    if res.is_ok() != want_ok {
                        return Err(format!("{key} with flags {f}: {res:?}"));
                    }
                }
            }
            Ok(())
        })();
        out.check(r.is_ok(), || {
            format!("script_assets case {n} ({}): {r:?}", t["comment"].as_str().unwrap_or(""))
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Real blocks with spent outputs
// ---------------------------------------------------------------------------------------------

/// The spent-output file formats, as the replay reads them.
pub use fullverify_driver::spent::SpentFormat;

/// A block and the outputs its non-coinbase inputs spend (block order).
pub struct BlockWithPrevouts {
    /// The block's bytes (a framed record unwrapped).
    pub raw: Vec<u8>,
    pub block: Block,
    pub spent: Vec<TxOut>,
    /// The spent outputs as coins: creation height and coinbase flag where the format records
    /// them, elsewhere height 0 and not coinbase (maturity then holds trivially).
    pub coins: Vec<Coin>,
    pub network: Network,
    pub height: u32,
    pub flags: F,
}

/// Verifies every input of a block; returns the outcome per input.
pub fn verify_block_inputs<V: SigVerifier>(b: &BlockWithPrevouts, v: &V) -> Outcome {
    let mut out = Outcome::default();
    let mut k = 0;
    for (t, tx) in b.block.txdata.iter().enumerate() {
        if tx.is_coinbase() {
            continue;
        }
        let spent = &b.spent[k..k + tx.inputs.len()];
        k += tx.inputs.len();
        let ctx = TxContext::new(tx, Some(spent));
        for i in 0..tx.inputs.len() {
            let r = verify_input(&ctx, i, b.flags, v);
            out.check(r.is_ok(), || format!("tx {t} input {i}: {r:?}"));
        }
    }
    out
}

/// Loads a block file (raw, framed or compressed) with its spent-output file, both read as the
/// replay reads them (`fullverify_driver`); `format` `None` guesses the spent-output format from
/// the file name. The height is the one the coinbase states (BIP34), else 0.
pub fn load_block_with_prevouts(
    block_path: &Path,
    spent_path: &Path,
    format: Option<SpentFormat>,
    network: Network,
) -> Result<BlockWithPrevouts, String> {
    let raw = fullverify_driver::replay::read_single_block(block_path)?;
    let block = Block::from_bytes(&raw).map_err(|e| format!("block: {e}"))?;
    let early = spent::read_spent_early(spent_path, format)?;
    let (outputs, _) = spent::finish_spent(spent_path, early, &block)?;
    let height = spent::bip34_height(&block).unwrap_or(0);
    let flags = network.params().script_flags(height, &block.block_hash());
    let coins = outputs
        .iter()
        .map(|s| Coin {
            out: s.txout.clone(),
            height: s.height.unwrap_or(0),
            coinbase: s.coinbase.unwrap_or(false),
        })
        .collect();
    let spent = outputs.into_iter().map(|s| s.txout).collect();
    Ok(BlockWithPrevouts { raw, block, spent, coins, network, height, flags })
}

/// A block of `blocks_with_prevouts/` with its spent-output file.
#[derive(Clone, Copy, Debug)]
pub struct RealBlock {
    /// The block file, relative to the vectors directory.
    pub block: &'static str,
    /// The spent-output file, relative to the vectors directory.
    pub spent: &'static str,
    pub format: SpentFormat,
    pub network: Network,
}

/// Mainnet 866342: Floresta's JSON spent outputs (with creation heights and coinbase flags).
pub const MAINNET_866342: RealBlock = RealBlock {
    block: "blocks_with_prevouts/mainnet_866342.block.zst",
    spent: "blocks_with_prevouts/mainnet_866342.spent_utxos.json.zst",
    format: SpentFormat::Floresta,
    network: Network::Mainnet,
};

/// Mainnet 277647: a btcd utxostore.
pub const MAINNET_277647: RealBlock = RealBlock {
    block: "blocks_with_prevouts/mainnet_277647.blk.bz2",
    spent: "blocks_with_prevouts/mainnet_277647.utxostore.bz2",
    format: SpentFormat::Btcd,
    network: Network::Mainnet,
};

/// Testnet3 928816: bcoin undo records.
pub const TESTNET3_928816: RealBlock = RealBlock {
    block: "blocks_with_prevouts/testnet3_928816.block.raw",
    spent: "blocks_with_prevouts/testnet3_928816.spent_outputs.bin",
    format: SpentFormat::Bcoin,
    network: Network::Testnet3,
};

/// Every real block with spent outputs, one per spent-output format.
pub const REAL_BLOCKS: [RealBlock; 3] = [MAINNET_866342, MAINNET_277647, TESTNET3_928816];

impl RealBlock {
    /// The block with its spent outputs, or `None` (loudly, see [`crate::vector_file`]) when a
    /// file is absent.
    ///
    /// # Panics
    /// When the files are there but do not load.
    pub fn load(&self) -> Option<BlockWithPrevouts> {
        let block = crate::vector_file(self.block)?;
        let spent = crate::vector_file(self.spent)?;
        Some(
            load_block_with_prevouts(&block, &spent, Some(self.format), self.network)
                .unwrap_or_else(|e| panic!("{}: {e}", self.block)),
        )
    }
}

/// `chain/regtest_1-206.blocks.hex.txt` as raw blocks after the regtest genesis block (heights
/// 0..=206), or `None` (loudly, see [`crate::vector_file`]) when it is absent.
pub fn regtest_1_206() -> Option<Vec<Vec<u8>>> {
    let p = crate::vector_file("chain/regtest_1-206.blocks.hex.txt")?;
    let text = String::from_utf8(crate::read_maybe_compressed(&p)).unwrap();
    let mut v = vec![crate::block_bytes(&Network::Regtest.params().genesis_block())];
    v.extend(text.lines().filter(|l| !l.trim().is_empty()).map(|l| hex::decode(l.trim()).unwrap()));
    Some(v)
}
