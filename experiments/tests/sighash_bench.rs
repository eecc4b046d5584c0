// SPDX-License-Identifier: MIT OR Apache-2.0
//! `sighashbench` measures what it claims: the transactions it builds, hashed by the loops it
//! times, give the signature hashes of an independent implementation written here from the
//! specifications (Core's legacy `SignatureHash`, BIP143, BIP341) on the `sha2` crate, for
//! every input, on both sides of the core's 32-input switch to legacy prefix engines.

use fullverify::encode::{Transaction, TxOut};
use fullverify_experiments::sighash::{all_sighashes, make_tx, Scheme, SighashTx};
use sha2::{Digest, Sha256};

fn sha256(b: &[u8]) -> [u8; 32] {
    Sha256::digest(b).into()
}

fn sha256d(b: &[u8]) -> [u8; 32] {
    sha256(&sha256(b))
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

fn var_bytes(v: &mut Vec<u8>, b: &[u8]) {
    compact(v, b.len());
    v.extend_from_slice(b);
}

fn outpoint(v: &mut Vec<u8>, tx: &Transaction, i: usize) {
    v.extend_from_slice(&tx.inputs[i].prevout.txid);
    v.extend_from_slice(&tx.inputs[i].prevout.vout.to_le_bytes());
}

fn txout(v: &mut Vec<u8>, o: &TxOut) {
    v.extend_from_slice(&o.value.to_le_bytes());
    var_bytes(v, &o.script_pubkey);
}

/// SIGHASH_ALL legacy: the transaction with every scriptSig emptied except this input's,
/// which is the script code (no OP_CODESEPARATOR in a P2PKH script), then the 4-byte type.
fn legacy(t: &SighashTx, n_in: usize) -> [u8; 32] {
    let tx = &t.tx;
    let mut v = Vec::new();
    v.extend_from_slice(&tx.version.to_le_bytes());
    compact(&mut v, tx.inputs.len());
    for i in 0..tx.inputs.len() {
        outpoint(&mut v, tx, i);
        var_bytes(&mut v, if i == n_in { &t.script_codes[i] } else { &[] });
        v.extend_from_slice(&tx.inputs[i].sequence.to_le_bytes());
    }
    compact(&mut v, tx.outputs.len());
    for o in &tx.outputs {
        txout(&mut v, o);
    }
    v.extend_from_slice(&tx.lock_time.to_le_bytes());
    v.extend_from_slice(&1u32.to_le_bytes());
    sha256d(&v)
}

/// BIP143 with SIGHASH_ALL: the ten-field preimage, double SHA-256.
fn bip143(t: &SighashTx, n_in: usize) -> [u8; 32] {
    let tx = &t.tx;
    let (mut prevouts, mut seqs, mut outs) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..tx.inputs.len() {
        outpoint(&mut prevouts, tx, i);
        seqs.extend_from_slice(&tx.inputs[i].sequence.to_le_bytes());
    }
    for o in &tx.outputs {
        txout(&mut outs, o);
    }
    let mut v = Vec::new();
    v.extend_from_slice(&tx.version.to_le_bytes());
    v.extend_from_slice(&sha256d(&prevouts));
    v.extend_from_slice(&sha256d(&seqs));
    outpoint(&mut v, tx, n_in);
    var_bytes(&mut v, &t.script_codes[n_in]);
    v.extend_from_slice(&t.amounts[n_in].to_le_bytes());
    v.extend_from_slice(&tx.inputs[n_in].sequence.to_le_bytes());
    v.extend_from_slice(&sha256d(&outs));
    v.extend_from_slice(&tx.lock_time.to_le_bytes());
    v.extend_from_slice(&1u32.to_le_bytes());
    sha256d(&v)
}

/// BIP341 key path, SIGHASH_DEFAULT, no annex: `hash_TapSighash(0x00 || SigMsg(0x00, 0))`.
fn bip341(t: &SighashTx, n_in: usize) -> [u8; 32] {
    let tx = &t.tx;
    let (mut prevouts, mut amounts, mut spks, mut seqs, mut outs) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..tx.inputs.len() {
        outpoint(&mut prevouts, tx, i);
        amounts.extend_from_slice(&t.spent_p2tr[i].value.to_le_bytes());
        var_bytes(&mut spks, &t.spent_p2tr[i].script_pubkey);
        seqs.extend_from_slice(&tx.inputs[i].sequence.to_le_bytes());
    }
    for o in &tx.outputs {
        txout(&mut outs, o);
    }
    let tag = sha256(b"TapSighash");
    let mut v = Vec::new();
    v.extend_from_slice(&tag);
    v.extend_from_slice(&tag);
    v.push(0x00); // epoch
    v.push(0x00); // hash_type
    v.extend_from_slice(&tx.version.to_le_bytes());
    v.extend_from_slice(&tx.lock_time.to_le_bytes());
    for part in [&prevouts, &amounts, &spks, &seqs, &outs] {
        v.extend_from_slice(&sha256(part));
    }
    v.push(0x00); // spend_type: key path, no annex
    v.extend_from_slice(&(n_in as u32).to_le_bytes());
    sha256(&v)
}

#[test]
fn every_arm_matches_the_specification() {
    for n in [1usize, 2, 7, 31, 32, 33, 100, 260] {
        let t = make_tx(n, 0x5167_4a54 ^ n as u64);
        let want: [Vec<[u8; 32]>; 3] = [
            (0..n).map(|i| legacy(&t, i)).collect(),
            (0..n).map(|i| bip143(&t, i)).collect(),
            (0..n).map(|i| bip341(&t, i)).collect(),
        ];
        for scheme in Scheme::ALL {
            let got = all_sighashes(scheme, &t);
            let want = match scheme {
                Scheme::Legacy | Scheme::LegacyCtx => &want[0],
                Scheme::Bip143 => &want[1],
                Scheme::Bip341 => &want[2],
            };
            assert_eq!(got.len(), n);
            for i in 0..n {
                assert_eq!(got[i], want[i], "{} input {i} of {n}", scheme.name());
            }
        }
    }
}

#[test]
fn every_input_has_its_own_hash() {
    // A loop that hashed one input n times would pass a comparison with itself; the hashes of
    // one transaction's inputs must all differ.
    let t = make_tx(64, 9);
    for scheme in Scheme::ALL {
        let mut h = all_sighashes(scheme, &t);
        h.sort();
        h.dedup();
        assert_eq!(h.len(), 64, "{}", scheme.name());
    }
}
