// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sighash vectors: Core's sighash.json (legacy), the BIP143 examples, the BIP341 wallet
//! vectors; and the cost bound of legacy hashing on a 20,000-input transaction.

use fullverify_testkit as common;

use common::harness::{self, check_vector_file};
use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
use fullverify::sighash::{legacy_sighash, TxContext, SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_SINGLE};

#[test]
fn legacy_sighash_vs_core_sighash_json() {
    check_vector_file("core/sighash.json", 500, harness::run_sighash_json);
}

#[test]
fn bip143_vs_bip_examples() {
    check_vector_file("bips/bip143_sighash_examples.json", 13, harness::run_bip143);
}

#[test]
fn bip341_vs_wallet_vectors() {
    let Some(j) = check_vector_file("core/bip341_wallet_vectors.json", 8, |j| {
        harness::run_bip341_wallet(j, &common::tweak_xonly, &common::SecpVerifier)
    }) else {
        return;
    };
    let o = harness::run_bip341_wallet(&j, &common::tweak_xonly_native, &fullverify::script::NativeVerifier);
    o.assert_all_passed("core/bip341_wallet_vectors.json (native)");
}

/// A naive reference: build the modified transaction Core's serializer describes, serialize
/// it, append the hash type, double-SHA256 (no code separators in the script here).
fn legacy_reference(tx: &Transaction, n_in: usize, script: &[u8], ht: u32) -> [u8; 32] {
    let mut t = tx.clone();
    let base = ht & 0x1f;
    for (i, inp) in t.inputs.iter_mut().enumerate() {
        inp.script_sig = if i == n_in { script.to_vec() } else { vec![] };
        inp.witness.clear();
        if i != n_in && (base == 2 || base == 3) {
            inp.sequence = 0;
        }
    }
    if base == 2 {
        t.outputs.clear();
    } else if base == 3 {
        t.outputs.truncate(n_in + 1);
        for o in &mut t.outputs[..n_in] {
            *o = TxOut { value: -1, script_pubkey: vec![] };
        }
    }
    if ht & 0x80 != 0 {
        t.inputs = vec![t.inputs[n_in].clone()];
    }
    let mut b = t.to_bytes(false);
    b.extend_from_slice(&ht.to_le_bytes());
    fullverify::hash::sha256d(&b)
}

/// Every input of transactions of 1 to 40 inputs (either side of the prefix engines' 32) and 0
/// to 3 outputs, under ALL-class hash types and the others, with script codes holding
/// `OP_CODESEPARATOR`s: the context's hash (from the shared image of the transaction) equals
/// the direct function's, and the naive reference's where it applies (no separators, and not
/// the SIGHASH_SINGLE bug's constant).
#[test]
fn legacy_sighash_of_every_input_matches_the_reference() {
    let mut rng = fullverify_testkit::SplitMix64(fullverify_testkit::test_seed());
    let p2pkh: Vec<u8> = [&[0x76, 0xa9, 0x14][..], &[7; 20], &[0x88, 0xac]].concat();
    let codes: [&[u8]; 4] = [&[], &[0x51], &p2pkh, &[0x51, 0xab, 0x52, 0xab, 0x53]];
    for n in [1usize, 2, 3, 31, 32, 33, 40] {
        for outs in 0..4 {
            let tx = Transaction {
                version: rng.next_u64() as i32,
                inputs: (0..n)
                    .map(|i| TxIn {
                        prevout: OutPoint { txid: rng.bytes32(), vout: rng.next_u64() as u32 },
                        script_sig: vec![0x51; i % 3],
                        sequence: rng.next_u64() as u32,
                        witness: vec![],
                    })
                    .collect(),
                outputs: (0..outs)
                    .map(|k| TxOut {
                        value: rng.next_u64() as i64 >> 8,
                        script_pubkey: vec![0x6a; 3 * k + 1],
                    })
                    .collect(),
                lock_time: rng.next_u64() as u32,
            };
            let ctx = TxContext::new(&tx, None);
            for i in 0..n {
                let code = codes[(i + outs) % codes.len()];
                for ht in [SIGHASH_ALL, 0, 4, 0x21, 2, SIGHASH_SINGLE, SIGHASH_ALL | SIGHASH_ANYONECANPAY] {
                    let got = ctx.legacy_sighash(i, code, ht);
                    assert_eq!(got, legacy_sighash(&tx, i, code, ht), "{n} inputs, input {i}, type {ht:#x}");
                    let single_bug = ht & 0x1f == SIGHASH_SINGLE && i >= outs;
                    if !code.contains(&0xab) && !single_bug {
                        assert_eq!(
                            got,
                            legacy_reference(&tx, i, code, ht),
                            "{n} inputs, input {i}, type {ht:#x}"
                        );
                    }
                }
            }
        }
    }
}

/// The legacy hashes computed in pairs (input i's with the one input i+1 is expected to ask
/// for, read from the output it spends and its script sig): transactions of 3–40 inputs
/// spending P2PKH, P2PK, bare multisig, P2SH multisig and other outputs, with and without
/// witnesses, script sigs of every hash type; every input asked for the expected script code
/// and hash type, for another script code, for another hash type, in order, backwards and
/// twice: each answer equals the direct function's.
#[test]
fn legacy_sighash_computed_in_pairs_matches_the_direct_function() {
    let mut rng = fullverify_testkit::SplitMix64(fullverify_testkit::test_seed());
    let p2pkh: Vec<u8> = [&[0x76, 0xa9, 0x14][..], &[7; 20], &[0x88, 0xac]].concat();
    let p2pk: Vec<u8> = [&[33u8][..], &[2; 33], &[0xac]].concat();
    let bare_multi: Vec<u8> = [&[0x51, 33][..], &[3; 33], &[0x51, 0xae]].concat();
    let redeem: Vec<u8> = [&[0x52, 33][..], &[4; 33], &[33], &[5; 33], &[0x52, 0xae]].concat();
    let p2sh: Vec<u8> = [&[0xa9, 0x14][..], &[9; 20], &[0x87]].concat();
    let with_sep: Vec<u8> = [&p2pkh[..3], &[0xab], &p2pkh[3..]].concat();
    let other: Vec<u8> = vec![0x51];
    let push = |d: &[u8]| [&[d.len() as u8][..], d].concat();
    for n in [3usize, 4, 5, 8, 31, 32, 33, 40] {
        for order in 0..3 {
            let mut spent = Vec::new();
            let mut codes = Vec::new();
            let tx = Transaction {
                version: 1,
                inputs: (0..n)
                    .map(|i| {
                        let ht = [1u8, 1, 1, 0x81, 2, 3, 0x41, 0][rng.next_u64() as usize % 8];
                        let sig = [&[0x30; 71][..], &[ht]].concat();
                        let kind = rng.next_u64() as usize % 7;
                        let (spk, code, script_sig) = match kind {
                            0 => (p2pkh.clone(), p2pkh.clone(), [push(&sig), push(&[2; 33])].concat()),
                            1 => (p2pk.clone(), p2pk.clone(), push(&sig)),
                            2 => (bare_multi.clone(), bare_multi.clone(), [vec![0], push(&sig)].concat()),
                            3 => (
                                p2sh.clone(),
                                redeem.clone(),
                                [
                                    vec![0],
                                    push(&sig),
                                    push(&sig),
                                    vec![0x4c, redeem.len() as u8],
                                    redeem.clone(),
                                ]
                                .concat(),
                            ),
                            4 => (with_sep.clone(), with_sep.clone(), push(&sig)),
                            5 => (other.clone(), other.clone(), vec![]),
                            _ => (p2pkh.clone(), p2pkh.clone(), vec![0x6a]),
                        };
                        spent.push(TxOut { value: 5, script_pubkey: spk });
                        codes.push((code, u32::from(ht)));
                        TxIn {
                            prevout: OutPoint { txid: rng.bytes32(), vout: i as u32 },
                            script_sig,
                            sequence: rng.next_u64() as u32,
                            witness: if i % 9 == 8 { vec![vec![1]] } else { vec![] },
                        }
                    })
                    .collect(),
                outputs: (0..2)
                    .map(|k| TxOut { value: 7 * k, script_pubkey: vec![0x51; 25 + k as usize] })
                    .collect(),
                lock_time: 0,
            };
            let ctx = TxContext::new(&tx, Some(&spent));
            let mut asks: Vec<usize> = (0..n).collect();
            if order == 1 {
                asks.reverse();
            }
            if order == 2 {
                asks = (0..n).flat_map(|i| [i, i]).collect();
            }
            for i in asks {
                let (code, ht) = &codes[i];
                for (c, h) in
                    [(&code[..], *ht), (&other[..], *ht), (&code[..], SIGHASH_ALL), (&p2pkh[..], 0x81)]
                {
                    assert_eq!(
                        ctx.legacy_sighash(i, c, h),
                        legacy_sighash(&tx, i, c, h),
                        "{n} inputs, input {i}, type {h:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn legacy_sighash_of_20000_inputs_matches_the_reference() {
    let mut rng = fullverify_testkit::SplitMix64(fullverify_testkit::test_seed());
    let n = 20_000;
    let tx = Transaction {
        version: 1,
        inputs: (0..n)
            .map(|i| TxIn {
                prevout: OutPoint { txid: rng.bytes32(), vout: i as u32 },
                script_sig: vec![],
                sequence: 0xffff_fffe,
                witness: vec![],
            })
            .collect(),
        outputs: (0..3).map(|i| TxOut { value: 1000 * i, script_pubkey: vec![0x51; 25] }).collect(),
        lock_time: 0,
    };
    let script =
        [0x76, 0xa9, 0x14, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 0x88, 0xac];
    let ctx = TxContext::new(&tx, None);
    // Correctness against the naive reference on a few inputs and hash types (the cached
    // prefix path for ALL-class types, the direct path for the others).
    for (i, ht) in [
        (0, SIGHASH_ALL),
        (1, SIGHASH_SINGLE),
        (2, 2 | SIGHASH_ANYONECANPAY),
        (n - 1, SIGHASH_ALL),
        (777, 0),
        (n / 2, 0x41),
    ] {
        assert_eq!(
            ctx.legacy_sighash(i, &script, ht),
            legacy_reference(&tx, i, &script, ht),
            "input {i} type {ht:#x}"
        );
        assert_eq!(
            ctx.legacy_sighash(i, &script, ht),
            legacy_sighash(&tx, i, &script, ht),
            "input {i} type {ht:#x}"
        );
    }
    // SIGHASH_SINGLE beyond the outputs signs the constant "1".
    assert_eq!(legacy_sighash(&tx, 5, &script, SIGHASH_SINGLE), fullverify::sighash::ONE_HASH);
    // All 20,000 inputs with SIGHASH_ALL. Each hashes only the bytes after its own input (the
    // prefix engines are built once), with no allocation: about half a pass over the ~820 kB
    // transaction on average. The time is printed, not asserted (tests never assert timings;
    // `sighashbench` measures the growth exponent).
    let t0 = std::time::Instant::now();
    let mut acc = 0u8;
    for i in 0..n {
        acc ^= ctx.legacy_sighash(i, &script, SIGHASH_ALL)[0];
    }
    let dt = t0.elapsed();
    eprintln!("legacy sighash: all {n} inputs in {dt:?} ({:?}/input), acc {acc}", dt / n as u32);
}
