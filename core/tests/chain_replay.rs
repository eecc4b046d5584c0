// SPDX-License-Identifier: MIT OR Apache-2.0
//! Whole-chain replays through [`Chainstate`]: mainnet 0..438 from genesis (UTXO count, total
//! and a MuHash recomputed here with exact big-integer arithmetic), the btcd copy of mainnet
//! 1..255, the regtest chains (Core's getblockstats fees and UTXO increases), the mainnet header
//! chain 0..10236 through the header rules, and crash-resume of the on-disk store.
use fullverify_testkit as common;

use common::harness::regtest_1_206;
use common::{block_bytes, read_maybe_compressed};
use fullverify::chain::{self, HeaderEntry, Network};
use fullverify::chainstate::{Chainstate, ChainstateOptions};
use fullverify::encode::{Block, BlockHeader, OutPoint, Reader, TxOut};
use fullverify::validation::{self, SigMode};
use fullverify_testkit::vector_file;
use num_bigint::BigUint;
use num_traits::One;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Splits `magic || u32 len || block` frames.
fn frames(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut p = 0;
    while p + 8 <= data.len() {
        assert_eq!(data[p..p + 4], [0xf9, 0xbe, 0xb4, 0xd9], "frame magic at {p}");
        let n = u32::from_le_bytes(data[p + 4..p + 8].try_into().unwrap()) as usize;
        out.push(&data[p + 8..p + 8 + n]);
        p += 8 + n;
    }
    out
}

fn opts(network: Network, threads: usize) -> ChainstateOptions {
    ChainstateOptions { threads, dbcache_bytes: 64 << 20, ..ChainstateOptions::new(network) }
}

fn rev_hex(h: &[u8; 32]) -> String {
    h.iter().rev().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// An independent MuHash: SHA-256 (the sha2 crate), ChaCha20 written out here, num-bigint.
// ---------------------------------------------------------------------------------------------

/// `blocks` 64-byte blocks of ChaCha20 keystream under `key`, counter from 0, nonce 0, from an
/// implementation that shares nothing with the core's (`rand_chacha`; with a zero nonce its
/// 64-bit counter and RFC 8439's 32-bit one give the same blocks).
fn chacha20_keystream(key: &[u8; 32], blocks: u32) -> Vec<u8> {
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    let mut out = vec![0u8; 64 * blocks as usize];
    rand_chacha::ChaCha20Rng::from_seed(*key).fill_bytes(&mut out);
    out
}

/// Core's MuHash3072 of a set of elements, printed as `gettxoutsetinfo` does.
fn muhash_exact(elements: &[Vec<u8>]) -> String {
    let p: BigUint = (BigUint::one() << 3072u32) - BigUint::from(1_103_717u32);
    let mut acc = BigUint::one();
    for e in elements {
        let key: [u8; 32] = Sha256::digest(e).into();
        acc = (acc * BigUint::from_bytes_le(&chacha20_keystream(&key, 6))) % &p;
    }
    let mut le = acc.to_bytes_le();
    le.resize(384, 0);
    let d: [u8; 32] = Sha256::digest(&le).into();
    rev_hex(&d)
}

/// The UTXO set by plain bookkeeping (created minus spent; no genesis, no unspendable outputs),
/// as Core's `TxOutSer` elements, with the total amount.
fn utxo_elements(blocks: &[Block]) -> (Vec<Vec<u8>>, i64) {
    let mut set: HashMap<OutPoint, (TxOut, u32, bool)> = HashMap::new();
    for (h, b) in blocks.iter().enumerate().skip(1) {
        for tx in &b.txdata {
            if !tx.is_coinbase() {
                for i in &tx.inputs {
                    set.remove(&i.prevout).expect("spent coin exists");
                }
            }
            let txid = tx.txid();
            for (n, o) in tx.outputs.iter().enumerate() {
                if o.script_pubkey.first() == Some(&0x6a) || o.script_pubkey.len() > 10_000 {
                    continue;
                }
                set.insert(OutPoint { txid, vout: n as u32 }, (o.clone(), h as u32, tx.is_coinbase()));
            }
        }
    }
    let mut total = 0;
    let elems = set
        .iter()
        .map(|(op, (o, h, cb))| {
            total += o.value;
            let mut v = op.txid.to_vec();
            v.extend_from_slice(&op.vout.to_le_bytes());
            v.extend_from_slice(&(h * 2 + *cb as u32).to_le_bytes());
            v.extend_from_slice(&o.value.to_le_bytes());
            fullverify::encode::write_var_bytes(&mut v, &o.script_pubkey);
            v
        })
        .collect();
    (elems, total)
}

fn mainnet_0_438() -> Option<Vec<Vec<u8>>> {
    let p = vector_file("chain/mainnet_0-438.blk.dat")?;
    Some(frames(&read_maybe_compressed(&p)).into_iter().map(|b| b.to_vec()).collect())
}

#[test]
fn mainnet_0_438_replay_vs_exact_muhash() {
    let Some(raw) = mainnet_0_438() else { return };
    assert_eq!(raw.len(), 439);
    let mut cs = Chainstate::open_in_memory(opts(Network::Mainnet, 2));
    for (h, b) in raw.iter().enumerate() {
        cs.connect_block(b).unwrap_or_else(|e| panic!("height {h}: {e}"));
    }
    let s = cs.summary();
    assert_eq!(s.height, Some(438));
    assert_eq!(rev_hex(&s.tip.unwrap()), "0000000025c6b644f8add734be7e666fa4afa43ca0204d623a0c0b1fd2104c7a");
    assert_eq!(s.utxo_count, 443);
    assert_eq!(s.total_amount, 21_900 * 100_000_000);
    let blocks: Vec<Block> = raw.iter().map(|b| Block::from_bytes(b).unwrap()).collect();
    let (elems, total) = utxo_elements(&blocks);
    assert_eq!(elems.len(), 443);
    assert_eq!(total, s.total_amount);
    assert_eq!(s.muhash, Some(muhash_exact(&elems)));
}

#[test]
fn mainnet_1_255_btcd_copy_matches_bitcoinj_copy() {
    let Some(raw) = mainnet_0_438() else { return };
    let Some(p) = vector_file("chain/mainnet_1-255.blk.bz2") else { return };
    let data = read_maybe_compressed(&p);
    let btcd = frames(&data);
    assert_eq!(btcd.len(), 255);
    let mut a = Chainstate::open_in_memory(opts(Network::Mainnet, 1));
    let genesis = block_bytes(&Network::Mainnet.params().genesis_block());
    a.connect_block(&genesis).unwrap();
    for b in &btcd {
        a.connect_block(b).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut b = Chainstate::open_in_memory(opts(Network::Mainnet, 1));
    for r in &raw[..256] {
        b.connect_block(r).unwrap();
    }
    assert_eq!(a.summary(), b.summary());
    assert_eq!(a.summary().height, Some(255));
}

#[test]
fn regtest_1_206_replay() {
    let Some(raw) = regtest_1_206() else { return };
    assert_eq!(raw.len(), 207);
    let mut cs = Chainstate::open_in_memory(opts(Network::Regtest, 2));
    let mut inputs = 0;
    for (h, b) in raw.iter().enumerate() {
        let st = cs.connect_block(b).unwrap_or_else(|e| panic!("height {h}: {e}"));
        inputs += st.inputs - st.txs.min(1);
    }
    assert_eq!(cs.summary().height, Some(206));
    assert!(inputs >= 26, "{inputs} spends");
    // The set matches plain bookkeeping, amount and MuHash.
    let blocks: Vec<Block> = raw.iter().map(|b| Block::from_bytes(b).unwrap()).collect();
    let (elems, total) = utxo_elements(&blocks);
    let s = cs.summary();
    assert_eq!(s.utxo_count, elems.len() as u64);
    assert_eq!(s.total_amount, total);
    assert_eq!(s.muhash, Some(muhash_exact(&elems)));
}

/// The regtest chain and mainnet 0..438 connected in every signature mode (inline, BIP340
/// batched, ECDSA and BIP340 deferred to `verify_many`, both), on 1 and 3 threads: identical
/// states and per-block counts.
#[test]
fn every_signature_mode_reaches_the_same_state() {
    let mut chains = 0;
    for (network, raw) in [(Network::Regtest, regtest_1_206()), (Network::Mainnet, mainnet_0_438())] {
        let Some(raw) = raw else { continue };
        chains += 1;
        let mut want = None;
        for sig_mode in SigMode::ALL {
            for threads in [1, 3] {
                let mut cs =
                    Chainstate::open_in_memory(ChainstateOptions { sig_mode, ..opts(network, threads) });
                let mut counts = Vec::new();
                for (h, b) in raw.iter().enumerate() {
                    let st = cs.connect_block(b).unwrap_or_else(|e| panic!("height {h}: {e}"));
                    counts.push((st.txs, st.inputs, st.sigops_cost, st.fees));
                }
                let got = (cs.summary(), counts);
                assert_eq!(
                    want.get_or_insert_with(|| got.clone()),
                    &got,
                    "{network:?} {sig_mode} threads {threads}"
                );
            }
        }
    }
    if std::env::var_os("FULLVERIFY_REQUIRE_VECTORS").is_some() {
        assert_eq!(chains, 2);
    }
}

/// The regtest chain connected with 1..8 script threads, twice each: identical states.
#[test]
fn regtest_replay_same_state_for_any_thread_count() {
    let Some(raw) = regtest_1_206() else { return };
    let mut want = None;
    for _ in 0..2 {
        for threads in 1..=8 {
            let mut cs = Chainstate::open_in_memory(opts(Network::Regtest, threads));
            for b in &raw {
                cs.connect_block(b).unwrap();
            }
            let s = cs.summary();
            assert_eq!(want.get_or_insert_with(|| s.clone()), &s, "threads {threads}");
        }
    }
}

#[test]
fn regtest_getblockstats_fees_and_utxo_increase() {
    let Some(v) = common::load_json("core/rpc_getblockstats.json") else { return };
    let blocks: Vec<Vec<u8>> =
        v["blocks"].as_array().unwrap().iter().map(|b| hex::decode(b.as_str().unwrap()).unwrap()).collect();
    assert_eq!(blocks.len(), 104);
    let stats: HashMap<u64, &serde_json::Value> =
        v["stats"].as_array().unwrap().iter().map(|s| (s["height"].as_u64().unwrap(), s)).collect();
    let mut cs = Chainstate::open_in_memory(opts(Network::Regtest, 2));
    let mut checked = 0;
    for (h, b) in blocks.iter().enumerate() {
        let before = cs.summary().utxo_count as i64;
        let st = cs.connect_block(b).unwrap_or_else(|e| panic!("height {h}: {e}"));
        if let Some(s) = stats.get(&(h as u64)) {
            assert_eq!(st.fees, s["totalfee"].as_i64().unwrap(), "fees at {h}");
            assert_eq!(
                cs.summary().utxo_count as i64 - before,
                s["utxo_increase_actual"].as_i64().unwrap(),
                "utxo at {h}"
            );
            assert_eq!(st.txs as i64, s["txs"].as_i64().unwrap());
            assert_eq!((st.inputs - 1) as i64, s["ins"].as_i64().unwrap());
            let mtp = chain::median_time_past(cs.headers(), h as u32);
            assert_eq!(mtp, s["mediantime"].as_i64().unwrap(), "mediantime at {h}");
            checked += 1;
        }
    }
    assert_eq!(checked, stats.len());
    assert!(checked >= 3);
}

#[test]
fn mainnet_headers_0_10236_through_header_rules() {
    let Some(p) = vector_file("chain/mainnet_headers_0-10236.bin.zst") else { return };
    let data = read_maybe_compressed(&p);
    assert_eq!(data.len(), 10_237 * 80);
    let params = Network::Mainnet.params();
    let mut r = Reader::new(&data);
    let mut chain_: Vec<HeaderEntry> = Vec::new();
    let now = i64::MAX / 2;
    let mut retargets = 0;
    let mut hdrs = Vec::new();
    while r.remaining() > 0 {
        let h = BlockHeader::decode(&mut r).unwrap();
        let hash = h.block_hash();
        if chain_.is_empty() {
            assert_eq!(hash, params.genesis_hash);
        } else {
            assert_eq!(h.prev_block, chain_.last().unwrap().hash);
            validation::check_block_header(&h, &hash, params).unwrap();
            validation::contextual_check_block_header(&h, &chain_, params, now)
                .unwrap_or_else(|e| panic!("height {}: {e}", chain_.len()));
            if chain_.len().is_multiple_of(2016) {
                retargets += 1;
            }
        }
        chain_.push(HeaderEntry::of(&h));
        hdrs.push(h);
    }
    assert_eq!(
        rev_hex(&chain_.last().unwrap().hash),
        "000000004f74d42205b9d7ae1cb5c1591e723894a71358fce73b7e0919628161"
    );
    assert_eq!(retargets, 5);
    // Negative cases on the same chain: wrong bits at a retarget boundary, MTP, future time,
    // version after BIP34 would apply (it does not yet at these heights), proof of work.
    let at = 4032;
    let mut h = hdrs[at];
    h.bits = 0x1d00fffe;
    assert_eq!(
        validation::contextual_check_block_header(&h, &chain_[..at], params, now),
        Err("bad-diffbits".into())
    );
    let mut h = hdrs[at];
    h.time = chain::median_time_past(&chain_, at as u32 - 1) as u32;
    assert_eq!(
        validation::contextual_check_block_header(&h, &chain_[..at], params, now),
        Err("time-too-old".into())
    );
    let h = hdrs[at];
    assert_eq!(
        validation::contextual_check_block_header(&h, &chain_[..at], params, h.time as i64 - 7201),
        Err("time-too-new".into())
    );
    let mut h = hdrs[at];
    h.nonce ^= 1;
    assert_eq!(validation::check_block_header(&h, &h.block_hash(), params), Err("high-hash"));
}

#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("fullverify-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
#[test]
fn store_resumes_from_last_flush_after_drop() {
    let Some(raw) = mainnet_0_438() else { return };
    let dir = tempdir("resume");
    let flushed: fullverify::chainstate::StateSummary;
    {
        let mut cs = Chainstate::open(&dir, opts(Network::Mainnet, 2)).unwrap();
        assert_eq!(cs.tip(), None);
        for b in &raw[..=200] {
            cs.connect_block(b).unwrap();
        }
        cs.flush().unwrap();
        flushed = cs.summary();
        for b in &raw[201..=300] {
            cs.connect_block(b).unwrap();
        }
        // Dropped without a flush: a crash after block 300.
    }
    let mut cs = Chainstate::open(&dir, opts(Network::Mainnet, 2)).unwrap();
    assert_eq!(cs.summary(), flushed);
    for b in &raw[201..] {
        cs.connect_block(b).unwrap();
    }
    // Periodic flushes with a tiny cache on the way, then reopen once more.
    let mut mem = Chainstate::open_in_memory(opts(Network::Mainnet, 1));
    for b in &raw {
        mem.connect_block(b).unwrap();
    }
    assert_eq!(cs.summary(), mem.summary());
    cs.flush().unwrap();
    drop(cs);
    let cs = Chainstate::open(&dir, opts(Network::Mainnet, 2)).unwrap();
    assert_eq!(cs.summary(), mem.summary());
    drop(cs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
#[test]
fn tiny_cache_and_periodic_flushes_reach_the_same_state() {
    let Some(raw) = mainnet_0_438() else { return };
    let dir = tempdir("tiny");
    let o =
        ChainstateOptions { dbcache_bytes: 4096, flush_every_blocks: Some(7), ..opts(Network::Mainnet, 1) };
    let mut cs = Chainstate::open(&dir, o.clone()).unwrap();
    let mut mem = Chainstate::open_in_memory(opts(Network::Mainnet, 1));
    for (i, b) in raw.iter().enumerate() {
        cs.connect_block(b).unwrap();
        mem.connect_block(b).unwrap();
        if i == 250 {
            drop(cs);
            cs = Chainstate::open(&dir, o.clone()).unwrap();
            // Resumed at the last periodic flush (a multiple of 7 blocks).
            let (h, _) = cs.tip().unwrap();
            assert!(h <= 250 && 250 - h < 7, "resumed at {h}");
            for r in &raw[h as usize + 1..=i] {
                cs.connect_block(r).unwrap();
            }
        }
    }
    assert_eq!(cs.summary(), mem.summary());
    drop(cs);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Mainnet 0..438 and the regtest chain under every MuHash policy: the final policy's one pass
/// over the set and the incremental per-block product give the same state (and the exact
/// MuHash checked above); `off` gives that state without a MuHash.
#[test]
fn every_muhash_policy_gives_the_same_state() {
    use fullverify::chainstate::MuhashPolicy;
    for (network, raw) in [(Network::Mainnet, mainnet_0_438()), (Network::Regtest, regtest_1_206())] {
        let Some(raw) = raw else { return };
        let run = |muhash: MuhashPolicy, threads: usize| {
            let mut cs = Chainstate::open_in_memory(ChainstateOptions { muhash, ..opts(network, threads) });
            for b in &raw {
                cs.connect_block(b).unwrap();
            }
            cs.compute_muhash().unwrap();
            cs.summary()
        };
        let want = run(MuhashPolicy::Incremental, 1);
        assert!(want.muhash.is_some());
        for threads in [1, 2, 3] {
            assert_eq!(run(MuhashPolicy::Final, threads), want, "{network} final, {threads} threads");
        }
        let off = run(MuhashPolicy::Off, 2);
        assert_eq!(off.muhash, None);
        assert_eq!(fullverify::chainstate::StateSummary { muhash: want.muhash.clone(), ..off }, want);
    }
}

/// A chain state flushed under one MuHash policy and resumed under another: the incremental
/// policy rebuilds its accumulator from the stored set when the record has none, the final
/// policy ignores a stored one; every resumed state equals the in-memory run.
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
#[test]
fn muhash_policies_resume_across_each_other() {
    use fullverify::chainstate::MuhashPolicy::{self, Final, Incremental, Off};
    let Some(raw) = mainnet_0_438() else { return };
    let mut mem = Chainstate::open_in_memory(opts(Network::Mainnet, 1));
    for b in &raw {
        mem.connect_block(b).unwrap();
    }
    let want = mem.summary();
    for (first, then) in [(Incremental, Final), (Final, Incremental), (Off, Incremental), (Incremental, Off)]
    {
        let dir = tempdir("muhash-policy");
        let o = |muhash: MuhashPolicy| ChainstateOptions { muhash, ..opts(Network::Mainnet, 2) };
        {
            let mut cs = Chainstate::open(&dir, o(first)).unwrap();
            for b in &raw[..=250] {
                cs.connect_block(b).unwrap();
            }
            cs.flush().unwrap();
        }
        let mut cs = Chainstate::open(&dir, o(then)).unwrap();
        assert_eq!(cs.tip().map(|t| t.0), Some(250));
        for b in &raw[251..] {
            cs.connect_block(b).unwrap();
        }
        let got = cs.summary();
        let expect = if then == Off { None } else { want.muhash.clone() };
        assert_eq!(got.muhash, expect, "{first} then {then}");
        assert_eq!(
            (got.tip, got.utxo_count, got.total_amount),
            (want.tip, want.utxo_count, want.total_amount)
        );
        drop(cs);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
