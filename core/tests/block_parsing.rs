// SPDX-License-Identifier: MIT OR Apache-2.0
//! Real blocks parse exactly, re-serialize byte for byte, hash to their known block hashes,
//! and their txids/wtxids give the header's merkle root and the coinbase's witness commitment.

use fullverify_testkit as common;

use fullverify::encode::{display_hex, Block, OutPoint, Transaction, TxCheckError, TxIn, TxOut};
use fullverify::hash::{merkle_root, sha256d, witness_merkle_root};

fn check(rel: &str, hash: &str, n_tx: usize) {
    let Some(p) = fullverify_testkit::vector_file(rel) else { return };
    let raw = common::read_maybe_compressed(&p);
    let b = Block::from_bytes(&raw).expect("parses");
    assert_eq!(display_hex(&b.block_hash()), hash);
    assert_eq!(b.txdata.len(), n_tx);
    // Byte-exact re-serialization.
    let mut out = b.header.to_bytes().to_vec();
    fullverify::encode::write_compact_size(&mut out, b.txdata.len() as u64);
    for tx in &b.txdata {
        tx.encode(&mut out, true);
    }
    assert_eq!(out, raw);
    // Merkle root of txids.
    let txids: Vec<[u8; 32]> = b.txdata.iter().map(|t| t.txid()).collect();
    let m = merkle_root(&txids);
    assert_eq!(m.root, b.header.merkle_root);
    assert!(!m.mutated);
    // BIP141 witness commitment: the last coinbase output starting 6a24aa21a9ed carries
    // dSHA256(witness root || witness reserved value).
    if b.txdata.iter().any(|t| t.has_witness()) {
        let wtxids: Vec<[u8; 32]> = b.txdata.iter().map(|t| t.wtxid()).collect();
        let root = witness_merkle_root(&wtxids).root;
        let cb = &b.txdata[0];
        let reserved = &cb.inputs[0].witness[0];
        let commit = cb
            .outputs
            .iter()
            .rev()
            .find(|o| {
                o.script_pubkey.len() >= 38 && o.script_pubkey[..6] == [0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]
            })
            .expect("commitment output");
        assert_eq!(commit.script_pubkey[6..38], sha256d(&[&root[..], reserved].concat()));
    }
}

#[test]
fn block_decode_vs_known_hashes_and_roots() {
    check(
        "blocks/mainnet_702861.block.raw",
        "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae",
        2500,
    );
    check("core/block413567.raw", "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069", 1557);
    check(
        "blocks_with_prevouts/mainnet_866342.block.zst",
        "000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1",
        4864,
    );
    check(
        "blocks_with_prevouts/testnet3_928816.block.raw",
        "00000000000001c4b87edf974ddc601d88dda332265b9849a944a5ff0141a378",
        889,
    );
}

#[test]
fn truncated_blocks_fail_cleanly() {
    let Some(p) = fullverify_testkit::vector_file("core/block413567.raw") else { return };
    let raw = common::read_maybe_compressed(&p);
    let mut rng = fullverify_testkit::SplitMix64(fullverify_testkit::test_seed());
    for _ in 0..200 {
        let cut = (rng.next_u64() % raw.len() as u64) as usize;
        assert!(Block::from_bytes(&raw[..cut]).is_err());
    }
    let mut extra = raw.clone();
    extra.push(0);
    assert_eq!(Block::from_bytes(&extra), Err(fullverify::encode::DecodeError::TrailingBytes(1)));
}

/// `CheckTransaction`'s duplicate-input rule: a repeated prevout is found wherever the two copies
/// sit, in transactions of few inputs and of many; outpoints one txid bit or one index apart are
/// not repeats.
#[test]
fn duplicate_prevouts_found_in_any_position() {
    let input = |k: usize| TxIn {
        prevout: OutPoint { txid: [(k % 7) as u8 + 1; 32], vout: (k / 7) as u32 },
        script_sig: Vec::new(),
        sequence: 0,
        witness: Vec::new(),
    };
    let tx = |inputs: Vec<TxIn>| Transaction {
        version: 1,
        inputs,
        outputs: vec![TxOut { value: 1, script_pubkey: vec![0x51] }],
        lock_time: 0,
    };
    for n in [1usize, 2, 3, 8, 9, 40, 300] {
        let inputs: Vec<TxIn> = (0..n).map(input).collect();
        assert_eq!(tx(inputs.clone()).check(), Ok(()), "{n} distinct inputs");
        for (a, b) in [(0, 1), (0, n.saturating_sub(1)), (n / 2, n.saturating_sub(1)), (1, n / 2)] {
            if a >= b || b >= n {
                continue;
            }
            let mut dup = inputs.clone();
            dup[b].prevout = dup[a].prevout;
            assert_eq!(tx(dup.clone()).check(), Err(TxCheckError::InputsDuplicate), "{n} inputs, {a} = {b}");
            // One txid bit off (no other input has a txid of two different bytes).
            let mut near = dup.clone();
            near[b].prevout.txid[31] ^= 1;
            assert_eq!(tx(near).check(), Ok(()), "{n} inputs, {b} one bit off {a}");
            let mut other_index = dup;
            other_index[b].prevout.vout ^= 1 << 31;
            assert_eq!(tx(other_index).check(), Ok(()), "{n} inputs, {b} another index than {a}");
        }
    }
}
