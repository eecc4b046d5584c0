// SPDX-License-Identifier: MIT OR Apache-2.0
//! Differential testing against Bitcoin Core's own interpreter (`libbitcoinconsensus` from
//! Core 26 through the `bitcoinconsensus` crate): randomly generated scripts and spends, under
//! random valid combinations of the consensus flags it accepts, must get the same verdict.
//!
//! Shapes: bare random scripts; P2SH, P2WSH and P2SH-P2WSH wrapping random redeem scripts;
//! P2PKH, P2WPKH and P2TR key-path spends with real signatures (random hash types, optional
//! corruption); tapscript single-leaf spends of random scripts with optional real signatures.
//! Core 26 predates pay-to-anchor; no generated shape produces that program. Each case runs
//! with both signature backends (libsecp256k1 and fullverify's own), which must also agree
//! on the exact error.

use fullverify_testkit as common;

use common::harness::{all_consensus_flags, script_test_txs, NUMS_H};
use common::SecpVerifier;
use fullverify::encode::TxOut;
use fullverify::hash::{hash160, sha256};
use fullverify::script::interpreter::{push_data_script, tapleaf_hash, taptweak_hash};
use fullverify::script::{verify_input, ScriptFlags};
use fullverify::sighash::TxContext;
use proptest::prelude::*;
use secp256k1::{Keypair, Message, SecretKey};

/// A script token: an opcode, a number, or a data push.
#[derive(Clone, Debug)]
enum Tok {
    Op(u8),
    Num(i64),
    Data(Vec<u8>),
}

fn tok() -> impl Strategy<Value = Tok> {
    prop_oneof![
        4 => (0x4fu8..=0xbau8).prop_map(Tok::Op),
        1 => (0xbbu8..=0xffu8).prop_map(Tok::Op),
        2 => prop::sample::select(vec![0x63u8, 0x64, 0x67, 0x68, 0x69, 0x76, 0x87, 0x88, 0x7c, 0x75]).prop_map(Tok::Op),
        3 => (-20i64..=20).prop_map(Tok::Num),
        1 => any::<i64>().prop_map(|n| Tok::Num(n >> (n & 63))),
        2 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Tok::Data),
        1 => prop::sample::select(vec![0x4cu8, 0x4d, 0x4e]).prop_map(Tok::Op),
    ]
}

fn assemble(toks: &[Tok]) -> Vec<u8> {
    let mut s = Vec::new();
    for t in toks {
        match t {
            Tok::Op(o) => s.push(*o),
            Tok::Num(n) => fullverify::script::asm::push_int(&mut s, *n),
            Tok::Data(d) => s.extend_from_slice(&push_data_script(d)),
        }
    }
    s
}

fn push_only(toks: &[Tok]) -> Vec<u8> {
    let mut s = Vec::new();
    for t in toks {
        match t {
            Tok::Op(o) => fullverify::script::asm::push_int(&mut s, *o as i64),
            Tok::Num(n) => fullverify::script::asm::push_int(&mut s, *n),
            Tok::Data(d) => s.extend_from_slice(&push_data_script(d)),
        }
    }
    s
}

fn items(toks: &[Tok]) -> Vec<Vec<u8>> {
    toks.iter()
        .map(|t| match t {
            Tok::Op(o) => vec![*o],
            Tok::Num(n) => fullverify::script::interpreter::scriptnum_encode(*n),
            Tok::Data(d) => d.clone(),
        })
        .collect()
}

#[derive(Clone, Debug)]
struct Case {
    kind: u8,
    a: Vec<Tok>,
    b: Vec<Tok>,
    key: [u8; 32],
    flags_idx: usize,
    hash_type: u8,
    corrupt: u8,
    version: i32,
    lock_time: u32,
    sequence: u32,
    amount: i64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0u8..8,
        prop::collection::vec(tok(), 0..12),
        prop::collection::vec(tok(), 0..12),
        any::<[u8; 32]>(),
        any::<usize>(),
        prop::sample::select(vec![0u8, 1, 2, 3, 0x81, 0x82, 0x83, 0x04, 0x80, 0x41]),
        0u8..4,
        prop::sample::select(vec![1i32, 2, -1]),
        prop::sample::select(vec![0u32, 100, 600_000_000, u32::MAX]),
        prop::sample::select(vec![u32::MAX, 0, 10, 1 << 22 | 5, 1 << 31]),
        0i64..100_000,
    )
        .prop_map(
            |(kind, a, b, key, flags_idx, hash_type, corrupt, version, lock_time, sequence, amount)| Case {
                kind,
                a,
                b,
                key,
                flags_idx,
                hash_type,
                corrupt,
                version,
                lock_time,
                sequence,
                amount,
            },
        )
}

/// Builds (spending tx, spent output) for a case; signatures are made over the final tx.
fn build(c: &Case) -> (fullverify::encode::Transaction, TxOut) {
    let sk = SecretKey::from_secret_bytes(c.key)
        .unwrap_or_else(|_| SecretKey::from_secret_bytes([1; 32]).unwrap());
    let pk = secp256k1::PublicKey::from_secret_key(&sk).serialize();
    let kp = Keypair::from_secret_key(&sk);
    let (xonly, _) = kp.x_only_public_key();
    let xonly = xonly.to_byte_array();
    let redeem = assemble(&c.b);
    let (script_sig, spk, witness) = match c.kind {
        0 => (push_only(&c.a), assemble(&c.b), vec![]),
        1 => {
            let mut sig = push_only(&c.a);
            sig.extend_from_slice(&push_data_script(&redeem));
            (sig, [&[0xa9, 20][..], &hash160(&redeem), &[0x87]].concat(), vec![])
        }
        2 | 3 => {
            let mut w = items(&c.a);
            w.push(redeem.clone());
            let wsh = [&[0x00, 32][..], &sha256(&redeem)].concat();
            if c.kind == 2 {
                (vec![], wsh, w)
            } else {
                (push_data_script(&wsh), [&[0xa9, 20][..], &hash160(&wsh), &[0x87]].concat(), w)
            }
        }
        4 => (vec![], [&[0x76, 0xa9, 20][..], &hash160(&pk), &[0x88, 0xac]].concat(), vec![]),
        5 => (vec![], [&[0x00, 20][..], &hash160(&pk)].concat(), vec![vec![], pk.to_vec()]),
        6 => {
            let t = taptweak_hash(&xonly, None);
            let (q, _) = common::tweak_xonly(&xonly, &t);
            (vec![], [&[0x51, 32][..], &q].concat(), vec![vec![]])
        }
        _ => {
            // Tapscript leaf: "<xonly> CHECKSIG" alone (the signature path; random scripts
            // mostly hit an OP_SUCCESSx), or that prefix followed by the random script.
            let mut leaf = Vec::new();
            leaf.extend_from_slice(&push_data_script(&xonly));
            leaf.push(0xac);
            let mut w = Vec::new();
            if c.corrupt & 1 == 1 {
                leaf.extend_from_slice(&redeem);
                w = items(&c.a);
            }
            let lh = tapleaf_hash(0xc0, &leaf);
            let t = taptweak_hash(&NUMS_H, Some(&lh));
            let (q, odd) = common::tweak_xonly(&NUMS_H, &t);
            w.push(vec![]); // signature slot
            w.push(leaf);
            w.push([&[0xc0 | odd as u8][..], &NUMS_H].concat());
            (vec![], [&[0x51, 32][..], &q].concat(), w)
        }
    };
    let (mut tx, spent) = script_test_txs(script_sig, spk, witness, c.amount);
    tx.version = c.version;
    tx.lock_time = c.lock_time;
    tx.inputs[0].sequence = c.sequence;
    // Real signatures where the shape has a signature slot.
    let outs = [spent.clone()];
    match c.kind {
        4 | 5 => {
            let ctx = TxContext::new(&tx, Some(&outs));
            let code = [&[0x76, 0xa9, 20][..], &hash160(&pk), &[0x88, 0xac]].concat();
            let ht = c.hash_type as u32;
            let msg = if c.kind == 4 {
                ctx.legacy_sighash(0, &code, ht)
            } else {
                ctx.bip143_sighash(0, &code, c.amount, ht).unwrap()
            };
            let mut sig = secp256k1::ecdsa::sign(Message::from_digest(msg), &sk).serialize_der().to_vec();
            sig.push(c.hash_type);
            if c.corrupt == 3 {
                sig[8] ^= 1;
            }
            if c.kind == 4 {
                let mut ss = push_data_script(&sig);
                ss.extend_from_slice(&push_data_script(&pk));
                tx.inputs[0].script_sig = ss;
            } else {
                tx.inputs[0].witness[0] = sig;
            }
        }
        6 | 7 => {
            let ctx = TxContext::new(&tx, Some(&outs));
            let ht = if c.hash_type == 0x80 { 0 } else { c.hash_type };
            let tap = if c.kind == 7 {
                let n = tx.inputs[0].witness.len();
                Some((tapleaf_hash(0xc0, &tx.inputs[0].witness[n - 2]), u32::MAX))
            } else {
                None
            };
            let sighash = ctx.bip341_sighash(0, ht, None, tap).unwrap_or([7; 32]);
            let signer = if c.kind == 6 {
                let t = taptweak_hash(&xonly, None);
                kp.add_xonly_tweak(&secp256k1::Scalar::from_be_bytes(t).unwrap()).unwrap()
            } else {
                kp
            };
            let mut sig = secp256k1::schnorr::sign_no_aux_rand(&sighash, &signer).to_byte_array().to_vec();
            if ht != 0 {
                sig.push(ht);
            }
            if c.corrupt == 3 {
                sig[5] ^= 1;
            }
            let n = tx.inputs[0].witness.len();
            let slot = if c.kind == 6 { 0 } else { n - 3 };
            tx.inputs[0].witness[slot] = sig;
        }
        _ => {}
    }
    (tx, spent)
}

fn core_verdict(tx: &fullverify::encode::Transaction, spent: &TxOut, flags: ScriptFlags) -> bool {
    let bytes = tx.to_bytes(true);
    let utxo = bitcoinconsensus::Utxo {
        script_pubkey: spent.script_pubkey.as_ptr(),
        script_pubkey_len: spent.script_pubkey.len() as u32,
        value: spent.value,
    };
    bitcoinconsensus::verify_with_flags(
        &spent.script_pubkey,
        spent.value as u64,
        &bytes,
        Some(&[utxo]),
        0,
        flags.bits(),
    )
    .is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: fullverify_testkit::test_iters(3000) as u32,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn verify_input_vs_libbitcoinconsensus(c in case()) {
        let flags_all = all_consensus_flags();
        let flags = flags_all[c.flags_idx % flags_all.len()];
        let (tx, spent) = build(&c);
        let outs = [spent.clone()];
        let ctx = TxContext::new(&tx, Some(&outs));
        let ours = verify_input(&ctx, 0, flags, &SecpVerifier);
        let native = verify_input(&ctx, 0, flags, &fullverify::script::NativeVerifier);
        let core = core_verdict(&tx, &spent, flags);
        prop_assert_eq!(ours.is_ok(), core, "kind {} flags {}: ours {:?}, Core {}", c.kind, flags, ours, core);
        prop_assert_eq!(ours, native, "libsecp256k1 and native verifiers disagree");
    }
}

/// The generator reaches both verdicts for every shape (a differential test of only failures
/// would prove little).
#[test]
fn differential_generator_reaches_both_verdicts() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen = [[false; 2]; 8];
    let flags = ScriptFlags::P2SH | ScriptFlags::WITNESS | ScriptFlags::TAPROOT;
    for _ in 0..4000 {
        let c = case().new_tree(&mut runner).unwrap().current();
        let (tx, spent) = build(&c);
        let outs = [spent.clone()];
        let ctx = TxContext::new(&tx, Some(&outs));
        seen[c.kind as usize][verify_input(&ctx, 0, flags, &SecpVerifier).is_ok() as usize] = true;
    }
    for (k, s) in seen.iter().enumerate() {
        assert!(s[0] && s[1], "shape {k} reached only one verdict: {s:?}");
    }
}
