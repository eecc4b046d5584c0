// SPDX-License-Identifier: MIT OR Apache-2.0
//! Merkle roots of real blocks (`../shared/vectors`) equal their headers' merkle root with every
//! backend; the BIP141 witness commitment of segwit blocks matches; and duplicating the last
//! transaction of an odd-length block keeps the root but raises Core's "mutated" flag
//! (CVE-2012-2459).
use fullverify_testkit as common;

use fullverify::encode::Block;
use fullverify::hash::{merkle_root_with, sha256d, witness_merkle_root};
use fullverify::Backend;
use fullverify_testkit::vector_file;

/// (file, display block hash, has a witness commitment)
const BLOCKS: &[(&str, &str, bool)] = &[
    ("core/block413567.raw", "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069", false),
    (
        "blocks/mainnet_702861.block.raw",
        "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae",
        true,
    ),
    (
        "blocks_with_prevouts/mainnet_866342.block.zst",
        "000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1",
        true,
    ),
    (
        "blocks_with_prevouts/testnet3_928816.block.raw",
        "00000000000001c4b87edf974ddc601d88dda332265b9849a944a5ff0141a378",
        true,
    ),
];

fn display(h: &[u8; 32]) -> String {
    h.iter().rev().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn real_block_merkle_roots_every_backend() {
    let mut checked = 0;
    for &(file, hash, segwit) in BLOCKS {
        let Some(path) = vector_file(file) else { continue };
        let block = Block::from_bytes(&common::read_maybe_compressed(&path)).expect("block parses");
        assert_eq!(display(&block.block_hash()), hash, "{file}: block hash");
        let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
        for b in Backend::available() {
            let r = merkle_root_with(b, &txids);
            assert_eq!(r.root, block.header.merkle_root, "{file}: merkle root with {b}");
            assert!(!r.mutated, "{file}: not mutated");
        }
        if segwit {
            // BIP141: the coinbase has an output whose script starts 6a 24 aa21a9ed and carries
            // SHA256d(witness_root || reserved), reserved = the coinbase's single witness item.
            let wtxids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.wtxid()).collect();
            let wroot = witness_merkle_root(&wtxids).root;
            let coinbase = &block.txdata[0];
            let reserved = &coinbase.inputs[0].witness[0];
            let mut buf = wroot.to_vec();
            buf.extend_from_slice(reserved);
            let commitment = sha256d(&buf);
            let out = coinbase
                .outputs
                .iter()
                .rev()
                .find(|o| {
                    o.script_pubkey.len() >= 38
                        && o.script_pubkey[..6] == [0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]
                })
                .expect("witness commitment output");
            assert_eq!(out.script_pubkey[6..38], commitment, "{file}: witness commitment");
        }
        checked += 1;
    }
    eprintln!("checked {checked} real blocks");
    // Absent files are skipped one by one (or fail under FULLVERIFY_REQUIRE_VECTORS); an empty
    // loop is never a pass.
    assert!(checked > 0, "no real block was checked");
}

#[test]
fn duplicated_tail_is_mutated_with_the_same_root() {
    let Some(path) = vector_file("core/block413567.raw") else { return };
    let block = Block::from_bytes(&common::read_maybe_compressed(&path)).unwrap();
    let mut txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
    if txids.len().is_multiple_of(2) {
        txids.pop(); // make the count odd so that duplicating the tail is the attack
    }
    let honest = merkle_root_with(Backend::detect(), &txids);
    txids.push(*txids.last().unwrap());
    for b in Backend::available() {
        let forged = merkle_root_with(b, &txids);
        assert_eq!(forged.root, honest.root, "{b}");
        assert!(forged.mutated && !honest.mutated, "{b}");
    }
}
