// SPDX-License-Identifier: MIT OR Apache-2.0
//! Block and transaction weight (BIP141) and sigop cost (Core's `GetTransactionSigOpCost`)
//! against independent references: the raw block bytes, Core's `getblockstats` numbers, and
//! rust-bitcoin's weight and `total_sigop_cost`.

use fullverify_testkit as common;

use common::harness::REAL_BLOCKS;
use fullverify::encode::{Block, Transaction, MAX_BLOCK_WEIGHT};
use fullverify::script::sigops::{self, MAX_BLOCK_SIGOPS_COST};
use std::collections::HashMap;

/// The raw bytes of a vector block (a framed `f9beb4d9 || len || block` file unwrapped).
fn raw_block(rel: &str) -> Option<Vec<u8>> {
    let b = common::read_maybe_compressed(&fullverify_testkit::vector_file(rel)?);
    Some(if b.starts_with(&[0xf9, 0xbe, 0xb4, 0xd9]) { b[8..].to_vec() } else { b })
}

#[test]
fn block_weight_vs_raw_bytes_and_rust_bitcoin() {
    for rel in [
        "blocks_with_prevouts/mainnet_866342.block.zst",
        "blocks_with_prevouts/mainnet_277647.blk.bz2",
        "blocks_with_prevouts/testnet3_928816.block.raw",
        "blocks/mainnet_702861.block.raw",
        "core/block413567.raw",
    ] {
        let Some(raw) = raw_block(rel) else { return };
        let b = Block::from_bytes(&raw).expect(rel);
        assert_eq!(b.total_size(), raw.len(), "{rel}: total size");
        let stripped: usize = 80
            + fullverify::encode::compact_size_len(b.txdata.len() as u64)
            + b.txdata.iter().map(|t| t.to_bytes(false).len()).sum::<usize>();
        assert_eq!(b.base_size(), stripped, "{rel}: stripped size");
        assert_eq!(b.weight(), 3 * stripped + raw.len(), "{rel}: weight");
        assert!(b.weight() <= MAX_BLOCK_WEIGHT, "{rel}: weight {}", b.weight());
        let theirs: bitcoin::Block = bitcoin::consensus::deserialize(&raw).expect(rel);
        assert_eq!(b.weight() as u64, theirs.weight().to_wu(), "{rel}: weight vs rust-bitcoin");
        for (t, tt) in b.txdata.iter().zip(&theirs.txdata) {
            assert_eq!(t.weight() as u64, tt.weight().to_wu(), "{rel}: tx weight vs rust-bitcoin");
        }
    }
}

/// Core's `getblockstats`: `total_weight`/`total_size` over non-coinbase transactions,
/// `swtotal_weight` over those with witness data.
#[test]
fn tx_weight_vs_core_getblockstats() {
    let Some(j) = common::load_json("core/rpc_getblockstats.json") else { return };
    let blocks = j["blocks"].as_array().expect("blocks");
    let stats = j["stats"].as_array().expect("stats");
    assert!(!stats.is_empty());
    let mut saw_segwit = false;
    for s in stats {
        let height = s["height"].as_u64().expect("height") as usize;
        let b = Block::from_bytes(&common::unhex(blocks[height].as_str().expect("hex"))).expect("block");
        let txs: Vec<&Transaction> = b.txdata.iter().filter(|t| !t.is_coinbase()).collect();
        let sw: Vec<&&Transaction> = txs.iter().filter(|t| t.has_witness()).collect();
        saw_segwit |= !sw.is_empty();
        let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k}")) as usize;
        assert_eq!(txs.iter().map(|t| t.weight()).sum::<usize>(), n("total_weight"), "height {height}");
        assert_eq!(txs.iter().map(|t| t.total_size()).sum::<usize>(), n("total_size"), "height {height}");
        assert_eq!(sw.iter().map(|t| t.weight()).sum::<usize>(), n("swtotal_weight"), "height {height}");
        assert_eq!(sw.iter().map(|t| t.total_size()).sum::<usize>(), n("swtotal_size"), "height {height}");
        assert_eq!(sw.len(), n("swtxs"), "height {height}");
    }
    assert!(saw_segwit, "the stats cover a block with segwit transactions");
}

/// Every transaction's sigop cost equals rust-bitcoin's `total_sigop_cost` (an independent
/// implementation of the same rules), and the block stays within the budget.
#[test]
fn sigop_cost_vs_rust_bitcoin_real_blocks() {
    use bitcoin::consensus::deserialize;
    for real in REAL_BLOCKS {
        let Some(b) = real.load() else { return };
        let block = real.block;
        let mut k = 0;
        let mut total = 0u64;
        let (mut p2sh, mut witness) = (0u64, 0u64);
        for tx in &b.block.txdata {
            let spent = if tx.is_coinbase() { &[][..] } else { &b.spent[k..k + tx.inputs.len()] };
            k += spent.len();
            let ours = sigops::transaction_sigop_cost(tx, spent, b.flags);
            let theirs_tx: bitcoin::Transaction = deserialize(&tx.to_bytes(true)).expect("tx");
            let map: HashMap<bitcoin::OutPoint, bitcoin::TxOut> = theirs_tx
                .input
                .iter()
                .zip(spent)
                .map(|(i, o)| (i.previous_output, deserialize(&serialize_txout(o)).expect("txout")))
                .collect();
            let theirs = theirs_tx.total_sigop_cost(|op| map.get(op).cloned());
            assert_eq!(ours, theirs as u64, "{block}: tx {}", fullverify::encode::display_hex(&tx.txid()));
            total += ours;
            p2sh += tx
                .inputs
                .iter()
                .zip(spent)
                .map(|(i, o)| sigops::p2sh_sigop_count(&o.script_pubkey, &i.script_sig) as u64)
                .sum::<u64>();
            witness += tx
                .inputs
                .iter()
                .zip(spent)
                .map(|(i, o)| {
                    sigops::witness_sigop_count(&i.script_sig, &o.script_pubkey, &i.witness, b.flags) as u64
                })
                .sum::<u64>();
        }
        assert_eq!(k, b.spent.len());
        assert_eq!(total, 4 * (sigops::block_legacy_sigop_count(&b.block) + p2sh) + witness, "{block}");
        assert!(total <= MAX_BLOCK_SIGOPS_COST, "{block}: cost {total}");
        eprintln!("{block}: sigop cost {total} (P2SH {p2sh}, witness {witness})");
    }
}

fn serialize_txout(o: &fullverify::encode::TxOut) -> Vec<u8> {
    let mut v = Vec::new();
    o.encode(&mut v);
    v
}
