// SPDX-License-Identifier: MIT OR Apache-2.0
//! Blocks (fullverify::encode::Block) on arbitrary bytes.
//!
//! Properties:
//! - decode → encode (header, CompactSize count, each transaction with witnesses) gives the
//!   input back, byte for byte; the header alone round-trips through its 80 bytes;
//! - the block hash is SHA256d of the first 80 bytes; every txid and wtxid is the SHA256d of
//!   its stripped and full encodings, and the same after decoding the re-encoding;
//! - sizes and weight follow from the encodings;
//! - the merkle root (txids and witness) is the same on every backend, and the context-free
//!   block check (regtest parameters, so that proof of work is cheap to meet) gives the same
//!   verdict on every backend and never panics.
#![no_main]

use fullverify::chain::Network;
use fullverify::encode::{write_compact_size, Block, BlockHeader, Reader, WITNESS_SCALE_FACTOR};
use fullverify::hash::{merkle_root_with, sha256d, witness_merkle_root};
use fullverify::validation::check_block;
use fullverify::Backend;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    if let Ok(h) = BlockHeader::decode(&mut r) {
        assert_eq!(&h.to_bytes()[..], &data[..80]);
        assert_eq!(h.block_hash(), sha256d(&data[..80]));
    }
    let mut r = Reader::new(data);
    let Ok(block) = Block::decode(&mut r) else {
        assert!(Block::from_bytes(data).is_err());
        return;
    };
    let bytes = &data[..r.position()];
    assert_eq!(Block::from_bytes(data).is_ok(), r.remaining() == 0);

    let mut enc = block.header.to_bytes().to_vec();
    write_compact_size(&mut enc, block.txdata.len() as u64);
    let mut stripped = enc.clone();
    for tx in &block.txdata {
        enc.extend_from_slice(&tx.to_bytes(true));
        stripped.extend_from_slice(&tx.to_bytes(false));
    }
    assert_eq!(enc, bytes, "decode then encode changed the bytes");
    assert_eq!(block.block_hash(), sha256d(&bytes[..80]));
    assert_eq!(block.total_size(), enc.len());
    assert_eq!(block.base_size(), stripped.len());
    assert_eq!(block.weight(), stripped.len() * (WITNESS_SCALE_FACTOR - 1) + enc.len());

    let again = Block::from_bytes(&enc).expect("the encoding does not decode");
    assert_eq!(again, block);
    let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
    let wtxids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.wtxid()).collect();
    for (tx, (id, wid)) in again.txdata.iter().zip(txids.iter().zip(&wtxids)) {
        assert_eq!(tx.txid(), *id);
        assert_eq!(tx.wtxid(), *wid);
        assert_eq!(*id, sha256d(&tx.to_bytes(false)));
        assert_eq!(*wid, sha256d(&tx.to_bytes(true)));
    }

    let portable = merkle_root_with(Backend::portable(), &txids);
    for b in Backend::available() {
        let m = merkle_root_with(b, &txids);
        assert_eq!((m.root, m.mutated), (portable.root, portable.mutated), "merkle root on {b}");
    }
    let _ = witness_merkle_root(&wtxids);

    let params = Network::Regtest.params();
    let verdict = check_block(&block, 0, params, Backend::portable())
        .map(|c| (c.hash, c.txids))
        .map_err(|e| e.to_string());
    for b in Backend::available() {
        let v = check_block(&block, 0, params, b).map(|c| (c.hash, c.txids)).map_err(|e| e.to_string());
        assert_eq!(v, verdict, "check_block on {b}");
    }
    if let Ok((hash, ids)) = verdict {
        assert_eq!(hash, block.block_hash());
        assert_eq!(ids, txids);
    }
});
