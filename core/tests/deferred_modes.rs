// SPDX-License-Identifier: MIT OR Apache-2.0
//! The deferred signature modes against inline verification: scripts where a failing
//! `CHECKSIG` is part of a valid spend, and `CHECKMULTISIG`s signed by every subset and order of
//! their keys, with keys that do not parse, keys of the wrong size, hybrid and uncompressed keys
//! that the flags refuse, empty, unparseable and wrong signatures, bare and P2WSH, followed by
//! `NOT`, as `CHECKMULTISIGVERIFY`, two in one script; every mode and thread count gives the
//! verdict and the failing input of `verify_scripts`.

use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
use fullverify::hash::sha256;
use fullverify::script::interpreter::push_data_script;
use fullverify::script::opcodes::{
    OP_0, OP_1, OP_CHECKMULTISIG, OP_CHECKMULTISIGVERIFY, OP_CHECKSIG, OP_NOT,
};
use fullverify::script::{BackendVerifier, ScriptFlags};
use fullverify::secp256k1::{ecdsa, PublicKey};
use fullverify::sighash::{legacy_sighash, TxContext};
use fullverify::validation::{verify_scripts, verify_scripts_with, SigMode};
use fullverify::Backend;

/// An unsigned transaction spending outputs `vouts` of a made-up transaction (`txid`), paying
/// one satoshi to `OP_1`.
fn spending(txid: [u8; 32], vouts: impl Iterator<Item = u32>) -> Transaction {
    Transaction {
        version: 1,
        inputs: vouts
            .map(|vout| TxIn {
                prevout: OutPoint { txid, vout },
                script_sig: Vec::new(),
                sequence: u32::MAX,
                witness: Vec::new(),
            })
            .collect(),
        outputs: vec![TxOut { value: 1, script_pubkey: vec![OP_1] }],
        lock_time: 0,
    }
}

/// xorshift64*: the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const KEYS: usize = 4;

fn secret(i: usize) -> [u8; 32] {
    [i as u8 + 1; 32]
}

/// A key of a multisig: the secret behind it (if any) and its bytes.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Compressed(usize),
    Uncompressed(usize),
    /// Prefix 6 or 7 by the parity of y: refused under `STRICTENC`, a key otherwise.
    Hybrid(usize),
    /// 33 bytes whose x is not on the curve: never verifies.
    OffCurve,
    /// 32 bytes after a compressed prefix: the check fails without verifying.
    WrongSize,
}

impl Slot {
    fn bytes(self) -> Vec<u8> {
        let pk = |i: usize| PublicKey::from_secret(&secret(i)).unwrap();
        match self {
            Slot::Compressed(i) => pk(i).serialize_compressed().to_vec(),
            Slot::Uncompressed(i) => pk(i).serialize_uncompressed().to_vec(),
            Slot::Hybrid(i) => {
                let mut b = pk(i).serialize_uncompressed().to_vec();
                b[0] = 6 | (b[64] & 1);
                b
            }
            Slot::OffCurve => {
                let mut k = [0u8; 33];
                k[0] = 2;
                (1u8..)
                    .map(|i| {
                        k[32] = i;
                        k
                    })
                    .find(|k| PublicKey::parse(k).is_err())
                    .unwrap()
                    .to_vec()
            }
            Slot::WrongSize => vec![2; 32],
        }
    }
}

/// A signature of a multisig.
#[derive(Clone, Copy, Debug)]
enum Sig {
    By(usize),
    /// Valid DER by key 0 over another message.
    Wrong,
    Empty,
    Unparseable,
}

/// One multisig: its keys, its signatures in order.
#[derive(Clone, Debug)]
struct Multi {
    keys: Vec<Slot>,
    sigs: Vec<Sig>,
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    Plain,
    Not,
    Verify,
    Two,
}

#[derive(Clone, Debug)]
struct Case {
    shape: Shape,
    multis: Vec<Multi>,
    witness: bool,
}

/// A random slot; `refusable` allows the keys some flags refuse (hybrid, and uncompressed in
/// a witness script).
fn random_slot(r: &mut Rng, refusable: bool) -> Slot {
    let i = r.below(KEYS);
    match r.below(10) {
        0 if refusable => Slot::Uncompressed(i),
        1 if refusable => Slot::Hybrid(i),
        2 => Slot::OffCurve,
        3 => Slot::WrongSize,
        _ => Slot::Compressed(i),
    }
}

/// An honest multisig (valid under every flag set here) signed by any `m` of its keys, so
/// often not the first `m`; keys after the last signer may be ones the flags refuse, since the
/// loop never reaches them. A dishonest one is anything.
fn random_multi(r: &mut Rng, honest: bool) -> Multi {
    let n = 1 + r.below(4);
    if !honest {
        let keys: Vec<Slot> = (0..n).map(|_| random_slot(r, true)).collect();
        let sigs = (0..r.below(n + 1))
            .map(|_| match r.below(6) {
                0 => Sig::Wrong,
                1 => Sig::Empty,
                2 => Sig::Unparseable,
                _ => Sig::By(r.below(KEYS)),
            })
            .collect();
        return Multi { keys, sigs };
    }
    let m = 1 + r.below(n);
    let mut signers: Vec<usize> = (0..n).collect();
    while signers.len() > m {
        signers.remove(r.below(signers.len()));
    }
    let last = *signers.last().expect("m ≥ 1");
    let mut keys = Vec::with_capacity(n);
    let mut sigs = Vec::with_capacity(m);
    for j in 0..n {
        if signers.contains(&j) {
            let i = r.below(KEYS);
            keys.push(Slot::Compressed(i));
            sigs.push(Sig::By(i));
        } else {
            keys.push(random_slot(r, j > last));
        }
    }
    Multi { keys, sigs }
}

fn multisig_script(m: &Multi, op: u8) -> Vec<u8> {
    let mut s = vec![OP_1 - 1 + m.sigs.len() as u8];
    if m.sigs.is_empty() {
        s[0] = OP_0;
    }
    for k in &m.keys {
        s.extend(push_data_script(&k.bytes()));
    }
    s.push(OP_1 - 1 + m.keys.len() as u8);
    s.push(op);
    s
}

impl Case {
    /// The script the signatures are checked against.
    fn script(&self) -> Vec<u8> {
        match self.shape {
            Shape::Plain => multisig_script(&self.multis[0], OP_CHECKMULTISIG),
            Shape::Not => {
                let mut s = multisig_script(&self.multis[0], OP_CHECKMULTISIG);
                s.push(OP_NOT);
                s
            }
            Shape::Verify => {
                let mut s = multisig_script(&self.multis[0], OP_CHECKMULTISIGVERIFY);
                s.push(OP_1);
                s
            }
            Shape::Two => {
                let mut s = multisig_script(&self.multis[0], OP_CHECKMULTISIGVERIFY);
                s.extend(multisig_script(&self.multis[1], OP_CHECKMULTISIG));
                s
            }
        }
    }

    fn spent(&self) -> TxOut {
        let script = self.script();
        let script_pubkey = if self.witness {
            let mut s = vec![OP_0, 32];
            s.extend_from_slice(&sha256(&script));
            s
        } else {
            script
        };
        TxOut { value: 50_000, script_pubkey }
    }

    /// The stack items before the script: for each multisig, last first, the dummy and its
    /// signatures.
    fn items(&self, msg: &[u8; 32]) -> Vec<Vec<u8>> {
        let mut items = Vec::new();
        for m in self.multis.iter().rev() {
            items.push(Vec::new());
            for s in &m.sigs {
                items.push(match *s {
                    Sig::By(i) => {
                        let mut d = ecdsa::sign(&secret(i), msg).to_der();
                        d.push(1);
                        d
                    }
                    Sig::Wrong => {
                        let mut d = ecdsa::sign(&secret(0), &[0x5a; 32]).to_der();
                        d.push(1);
                        d
                    }
                    Sig::Empty => Vec::new(),
                    Sig::Unparseable => vec![0x30, 0x02, 0x01, 1],
                });
            }
        }
        items
    }
}

fn random_case(r: &mut Rng, honest: bool) -> Case {
    let shape = match r.below(6) {
        0 => Shape::Not,
        1 => Shape::Verify,
        2 => Shape::Two,
        _ => Shape::Plain,
    };
    let count = if matches!(shape, Shape::Two) { 2 } else { 1 };
    let mut multis: Vec<Multi> = (0..count).map(|_| random_multi(r, honest)).collect();
    if honest && matches!(shape, Shape::Not) {
        // `NOT` passes when the multisig fails; with empty signatures it fails without an
        // error under `NULLFAIL`.
        multis[0].sigs.iter_mut().for_each(|s| *s = Sig::Empty);
    }
    Case { shape, multis, witness: r.chance(40) }
}

/// A transaction spending one output per case, signed (`SIGHASH_ALL`).
fn build(cases: &[Case]) -> (Transaction, Vec<TxOut>) {
    let spent: Vec<TxOut> = cases.iter().map(Case::spent).collect();
    let mut tx = spending([9; 32], 0..cases.len() as u32);
    let mut script_sigs = Vec::new();
    let mut witnesses = Vec::new();
    {
        let ctx = TxContext::new(&tx, Some(&spent));
        for (n, c) in cases.iter().enumerate() {
            let script = c.script();
            if c.witness {
                let msg = ctx.bip143_sighash(n, &script, spent[n].value, 1).unwrap();
                let mut w = c.items(&msg);
                w.push(script);
                witnesses.push(w);
                script_sigs.push(Vec::new());
            } else {
                let msg = legacy_sighash(&tx, n, &script, 1);
                script_sigs.push(c.items(&msg).iter().flat_map(|i| push_data_script(i)).collect());
                witnesses.push(Vec::new());
            }
        }
    }
    for (n, (ss, w)) in script_sigs.into_iter().zip(witnesses).enumerate() {
        tx.inputs[n].script_sig = ss;
        tx.inputs[n].witness = w;
    }
    (tx, spent)
}

#[test]
fn deferred_modes_settle_multisigs_as_inline_verification_does() {
    let backend = Backend::detect();
    let base = ScriptFlags::P2SH | ScriptFlags::WITNESS;
    let flag_sets = [
        base,
        base | ScriptFlags::STRICTENC,
        base | ScriptFlags::NULLFAIL | ScriptFlags::NULLDUMMY,
        base | ScriptFlags::STRICTENC
            | ScriptFlags::NULLFAIL
            | ScriptFlags::WITNESS_PUBKEYTYPE
            | ScriptFlags::DERSIG,
    ];
    let mut r = Rng(0x6d75_6c74_6973_6967);
    let (mut valid, mut invalid, mut reported) = (0, 0, std::collections::HashSet::new());
    for block in 0..400 {
        // Mostly honest spends in long blocks (several workers, many claims, the failure late if
        // any), anything in short ones.
        let long = block % 2 == 0;
        let n = if long { 20 + r.below(30) } else { 1 + r.below(4) };
        let cases: Vec<Case> = (0..n)
            .map(|_| {
                let honest = r.chance(if long { 99 } else { 50 });
                random_case(&mut r, honest)
            })
            .collect();
        let (tx, spent) = build(&cases);
        let coinbase = Transaction { inputs: Vec::new(), ..tx.clone() };
        let txs = [coinbase, tx];
        let spent = [Vec::new(), spent];
        let flags = flag_sets[block % flag_sets.len()];
        let want = verify_scripts(&txs, &spent, flags, 1, &BackendVerifier(backend));
        match want {
            Ok(()) => valid += 1,
            Err(f) => {
                invalid += 1;
                reported.insert(format!("{:?}", f.error));
            }
        }
        for mode in SigMode::ALL {
            for threads in [1, 2, 3] {
                let got = verify_scripts_with(&txs, &spent, flags, threads, backend, mode);
                assert_eq!(got, want, "block {block}, {mode}, {threads} threads, flags {flags:?}: {cases:?}");
            }
        }
    }
    // The cases are meant to reach both verdicts and several ways of failing.
    assert!(valid >= 100 && invalid >= 100, "{valid} valid, {invalid} invalid");
    assert!(reported.len() >= 4, "errors reported: {reported:?}");
}

/// Scripts in which a failing `CHECKSIG` is part of a valid spend, and one in which a valid
/// signature makes the spend fail: every signature mode gives the verdict and the failing
/// input of inline verification, on 1 to 3 threads.
#[test]
fn deferred_modes_agree_where_checksig_may_fail() {
    let key = |i: u8| ([i; 32], PublicKey::from_secret(&[i; 32]).unwrap().serialize_compressed());
    let (sk_a, pk_a) = key(1);
    let (sk_b, pk_b) = key(2);
    let script = |parts: &[&[u8]], ops: &[u8]| {
        let mut s = Vec::new();
        for p in parts {
            s.extend_from_slice(&push_data_script(p));
        }
        s.extend_from_slice(ops);
        s
    };
    let checksig_not = script(&[&pk_a], &[OP_CHECKSIG, OP_NOT]);
    // A compressed key whose x is not on the curve: CHECKSIG answers false (keys are parsed
    // only when the deferred checks are verified).
    let off_curve = (1u8..)
        .map(|i| {
            let mut k = [0u8; 33];
            k[0] = 2;
            k[32] = i;
            k
        })
        .find(|k| PublicKey::parse(k).is_err())
        .unwrap();
    let bad_key_not = script(&[&off_curve], &[OP_CHECKSIG, OP_NOT]);
    let bad_key = script(&[&off_curve], &[OP_CHECKSIG]);
    let checksig = script(&[&pk_a], &[OP_CHECKSIG]);
    let mut multisig = vec![OP_1];
    multisig.extend(script(&[&pk_a, &pk_b], &[OP_1 + 1, OP_CHECKMULTISIG]));
    // (spent script, signing key, whether the script sig starts with the multisig dummy)
    let cases: [(&[u8], [u8; 32], bool); 8] = [
        (&checksig_not, sk_b, false), // wrong key: CHECKSIG fails, NOT makes it pass
        (&checksig, sk_a, false),     // plain valid spend
        (&multisig, sk_b, true),      // 1-of-2 signed by the second key
        (&checksig_not, sk_a, false), // right key: CHECKSIG passes, NOT fails the spend
        (&checksig, sk_b, false),     // wrong key: fails
        (&multisig, [3; 32], true),   // 1-of-2 signed by neither key: fails
        (&bad_key_not, sk_a, false),  // a key off the curve: CHECKSIG fails, NOT passes
        (&bad_key, sk_a, false),      // a key off the curve: fails
    ];
    let build = |which: &[usize]| {
        let mut tx = spending([7; 32], which.iter().map(|&c| c as u32));
        let spent: Vec<TxOut> =
            which.iter().map(|&c| TxOut { value: 10, script_pubkey: cases[c].0.to_vec() }).collect();
        for (n, &c) in which.iter().enumerate() {
            let (spk, sk, dummy) = cases[c];
            let msg = legacy_sighash(&tx, n, spk, 1);
            let mut sig = ecdsa::sign(&sk, &msg).to_der();
            sig.push(1);
            let mut ss = if dummy { vec![0] } else { Vec::new() };
            ss.extend_from_slice(&push_data_script(&sig));
            tx.inputs[n].script_sig = ss;
        }
        (tx, spent)
    };
    let b = Backend::detect();
    let flags = ScriptFlags::P2SH;
    let mut seen = (0, 0);
    for which in [
        &[0, 1, 2][..],
        &[0, 1, 2, 3],
        &[3, 0, 1],
        &[0, 4, 2, 3],
        &[2, 2, 0, 0, 1],
        &[2, 5, 2],
        &[5],
        &[6, 1],
        &[6, 7],
    ] {
        let (tx, spent) = build(which);
        let coinbase = Transaction { inputs: Vec::new(), ..tx.clone() };
        let txs = [coinbase, tx.clone(), tx];
        let spent = [Vec::new(), spent.clone(), spent];
        let want = verify_scripts(&txs, &spent, flags, 1, &BackendVerifier(b));
        match want {
            Ok(()) => seen.0 += 1,
            Err(_) => seen.1 += 1,
        }
        for mode in SigMode::ALL {
            for threads in 1..=3 {
                let got = verify_scripts_with(&txs, &spent, flags, threads, b, mode);
                assert_eq!(got, want, "{which:?} {mode} threads {threads}");
            }
        }
    }
    assert_eq!(seen, (3, 6), "the cases are meant to cover valid and invalid blocks");
}

/// The recorded `CHECKMULTISIG` checks and the other ECDSA checks are verified as one list, so
/// that one group of eight may hold the tail of the first and the head of the second. One input
/// signed by the wrong key, at every position of transactions of `CHECKMULTISIG` (1-of-1) and
/// `CHECKSIG` inputs, the lists' lengths either side of eight, the multisig inputs first or last:
/// every mode and thread count reports the failing input inline verification reports.
#[test]
fn deferred_modes_find_a_bad_check_where_the_two_ecdsa_lists_meet() {
    let (sk_good, sk_bad) = ([1u8; 32], [2u8; 32]);
    let pk = PublicKey::from_secret(&sk_good).unwrap().serialize_compressed();
    let mut multisig = vec![OP_1];
    multisig.extend(push_data_script(&pk));
    multisig.extend([OP_1, OP_CHECKMULTISIG]);
    let mut checksig = push_data_script(&pk);
    checksig.push(OP_CHECKSIG);
    let b = Backend::detect();
    let flags = ScriptFlags::P2SH;
    for (multis, others) in [(1, 1), (3, 9), (5, 3), (8, 2), (9, 7), (13, 11), (4, 0), (0, 5)] {
        let n = multis + others;
        for multis_last in [false, true] {
            // Which inputs spend the multisig script.
            let is_multi: Vec<bool> =
                (0..n).map(|i| if multis_last { i >= others } else { i < multis }).collect();
            assert_eq!(is_multi.iter().filter(|&&m| m).count(), multis);
            for bad in 0..n {
                let mut tx = spending([9; 32], 0..n as u32);
                let spent: Vec<TxOut> = is_multi
                    .iter()
                    .map(|&m| TxOut {
                        value: 10,
                        script_pubkey: if m { multisig.clone() } else { checksig.clone() },
                    })
                    .collect();
                for i in 0..n {
                    let msg = legacy_sighash(&tx, i, &spent[i].script_pubkey, 1);
                    let mut sig = ecdsa::sign(if i == bad { &sk_bad } else { &sk_good }, &msg).to_der();
                    sig.push(1);
                    let mut ss = if is_multi[i] { vec![OP_0] } else { Vec::new() };
                    ss.extend(push_data_script(&sig));
                    tx.inputs[i].script_sig = ss;
                }
                let coinbase = Transaction { inputs: Vec::new(), ..tx.clone() };
                let txs = [coinbase, tx];
                let spent = [Vec::new(), spent];
                let want = verify_scripts(&txs, &spent, flags, 1, &BackendVerifier(b));
                assert!(want.is_err(), "input {bad} is signed by the wrong key");
                for mode in SigMode::ALL {
                    for threads in 1..=3 {
                        let got = verify_scripts_with(&txs, &spent, flags, threads, b, mode);
                        assert_eq!(got, want, "{multis}+{others} multisigs last {multis_last}, bad {bad}, {mode}, {threads} threads");
                    }
                }
            }
        }
    }
}
