// SPDX-License-Identifier: MIT OR Apache-2.0
//! The generated corpus: deterministic for a seed whatever the thread count, valid block by
//! block under fullverify with the manifest's final state, and counted as its manifest says;
//! the utxo-heavy profile also through a coins cache far smaller than its set, with spends
//! that reach the whole age range.

use fullverify::chain::Network;
use fullverify::chainstate::{Chainstate, ChainstateOptions, MuhashPolicy};
use fullverify::encode::{Block, OutPoint};
use fullverify_experiments::chaingen::{
    block_bytes, generate, generate_spec, recount, Corpus, Kind, Manifest, Profile, Spec, DEFAULT_SEED,
};
use std::collections::HashMap;
use std::sync::OnceLock;

fn connect_all(blocks: &[Vec<u8>], m: &Manifest) {
    let mut opts = ChainstateOptions::new(Network::Regtest);
    opts.threads = 2;
    let mut cs = Chainstate::open_in_memory(opts);
    cs.connect_block(&block_bytes(&Network::Regtest.params().genesis_block())).expect("genesis");
    for (i, b) in blocks.iter().enumerate() {
        if let Err(e) = cs.connect_block(b) {
            panic!("block {} rejected: {e}", i + 1);
        }
    }
    let s = cs.summary();
    assert_eq!(s.height, Some(m.tip_height));
    assert_eq!(s.tip.map(|h| fullverify::encode::display_hex(&h)), Some(m.tip.clone()));
    assert_eq!(s.utxo_count, m.expected_state.utxo_count);
    assert_eq!(s.total_amount, m.expected_state.total_amount);
    assert_eq!(s.muhash.as_ref(), Some(&m.expected_state.muhash));
}

/// The corpus of `profile` and `seed`, checked valid block by block and counted as its manifest
/// says ([`connect_all`], [`recount`]).
fn valid_corpus(profile: Profile, seed: u64) -> Corpus {
    let c = generate(profile, seed, 2, &mut ());
    connect_all(&c.blocks, &c.manifest);
    assert_eq!(recount(&c.blocks, &c.manifest).unwrap(), c.manifest.inputs_by_era);
    c
}

#[test]
fn same_seed_same_bytes_for_any_thread_count() {
    let a = generate(Profile::Tiny, 11, 1, &mut ());
    let b = generate(Profile::Tiny, 11, 2, &mut ());
    let c = generate(Profile::Tiny, 11, 2, &mut ());
    assert_eq!(a.manifest.sha256, b.manifest.sha256);
    assert_eq!(b.manifest.sha256, c.manifest.sha256);
    assert_eq!(a.blocks, b.blocks);
    assert_eq!(a.manifest, b.manifest);
    // Another seed is another chain.
    let d = generate(Profile::Tiny, 12, 2, &mut ());
    assert_ne!(d.manifest.sha256, a.manifest.sha256);
}

#[test]
fn every_block_is_valid_and_the_counts_match_a_recount() {
    let c = valid_corpus(Profile::Tiny, 5);
    let m = &c.manifest;
    let total: u64 = m.inputs_by_type.values().sum();
    assert_eq!(total, m.inputs);
    assert_eq!(m.eras.iter().map(|e| e.inputs).sum::<u64>(), m.inputs);
    // Every era spends its own new kinds.
    assert!(m.inputs_by_era["legacy"].contains_key("p2pkh"));
    assert!(m.inputs_by_era["segwit"].keys().any(|k| k.starts_with("p2w") || k == "p2sh-p2wpkh"));
    assert!(m.inputs_by_era["taproot"].contains_key("p2tr-key"));
}

#[test]
fn small_profile_is_valid_with_every_kind_and_the_stress_shapes() {
    let c = valid_corpus(Profile::Small, 20_090_103);
    let m = &c.manifest;
    for k in fullverify_experiments::chaingen::Kind::ALL {
        assert!(m.inputs_by_type.get(k.name()).copied().unwrap_or(0) > 0, "no {} input", k.name());
    }
    assert!(m.in_block_spends > 0);
    let shapes: Vec<&str> = m.stress.iter().map(|s| s.shape.as_str()).collect();
    for want in ["fan-out", "consolidation", "full-block"] {
        assert!(shapes.contains(&want), "{want} missing from {shapes:?}");
    }
    assert!(m.stress.iter().any(|s| s.shape == "fan-out" && s.size == 3_000));
    assert!(m.stress.iter().any(|s| s.shape.ends_with("consolidation") && s.size >= 1_000));
    let weights: Vec<usize> =
        c.blocks.iter().map(|b| fullverify::encode::Block::from_bytes(b).unwrap().weight()).collect();
    assert!(weights.iter().all(|&w| w <= 4_000_000));
    let max = weights.iter().copied().max().unwrap_or(0);
    assert!(max > 3_500_000, "no block near the weight limit (largest {max} WU)");
}

/// The utxo-heavy size the tests use.
const HEAVY_UTXOS: u64 = 200_000;

fn heavy_spec() -> Spec {
    Spec::new(Profile::UtxoHeavy, DEFAULT_SEED).with_utxos(HEAVY_UTXOS).unwrap()
}

/// The utxo-heavy corpus of [`HEAVY_UTXOS`] coins, made once (two threads) for every test.
fn heavy() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| generate_spec(&heavy_spec(), 2, &mut ()))
}

#[test]
fn utxo_heavy_is_the_same_for_any_thread_count_and_named_by_its_size() {
    let a = generate_spec(&heavy_spec(), 1, &mut ());
    let b = heavy();
    assert_eq!(a.manifest, b.manifest);
    assert!(a.blocks == b.blocks, "the blocks differ between one and two threads");
    // The size is part of the name unless it is the default.
    assert_eq!(heavy_spec().id(), format!("utxo-heavy-200000utxos-{DEFAULT_SEED}-v2"));
    let default = Spec::new(Profile::UtxoHeavy, DEFAULT_SEED);
    assert_eq!(default.id(), format!("utxo-heavy-{DEFAULT_SEED}-v2"));
    assert_eq!(default.with_utxos(20_000_000).unwrap().id(), default.id());
    assert_ne!(default.with_utxos(300_000).unwrap().id(), heavy_spec().id());
    assert!(Spec::new(Profile::Small, 1).with_utxos(HEAVY_UTXOS).is_err());
}

#[test]
fn utxo_heavy_manifest_matches_a_recount_and_its_targets() {
    let c = heavy();
    let m = &c.manifest;
    assert_eq!(recount(&c.blocks, m).unwrap(), m.inputs_by_era);
    assert_eq!(m.utxo_target, Some(HEAVY_UTXOS));
    assert_eq!(m.tip_height as usize, c.blocks.len());
    let st = &m.expected_state;
    assert!(
        st.utxo_count >= HEAVY_UTXOS && st.utxo_count < HEAVY_UTXOS * 101 / 100,
        "{} coins",
        st.utxo_count
    );
    assert!(m.inputs >= HEAVY_UTXOS / 10, "{} inputs", m.inputs);
    for k in Kind::ALL {
        assert!(m.inputs_by_type.get(k.name()).copied().unwrap_or(0) > 0, "no {} input", k.name());
    }
    assert_eq!(m.spend_ages.iter().map(|b| b.inputs).sum::<u64>(), m.inputs);
    // The set grows along the chain to its final size.
    assert_eq!(m.growth.len(), 10);
    assert!(m.growth.windows(2).all(|w| w[0].utxo_count < w[1].utxo_count), "{:?}", m.growth);
    assert_eq!(m.growth.last().map(|g| (g.height, g.utxo_count)), Some((m.tip_height, st.utxo_count)));
    // Payouts fan out to thousands of small outputs.
    let widest = c
        .blocks
        .iter()
        .flat_map(|b| Block::from_bytes(b).unwrap().txdata.into_iter().skip(1))
        .map(|t| t.outputs.len())
        .max();
    assert!(widest >= Some(1_000), "widest transaction: {widest:?} outputs");
}

/// Connects the utxo-heavy corpus to an on-disk chain state whose coins cache is about a
/// fiftieth of the set, so that it flushes again and again and reads most spent coins back
/// from the store; halfway the state is closed and opened again. Every block is valid, the
/// set's size at each tenth is the manifest's and the final state is the manifest's.
#[test]
fn utxo_heavy_is_valid_through_a_small_cache_with_flushes_and_a_reopen() {
    let c = heavy();
    let m = &c.manifest;
    let dir = std::env::temp_dir().join(format!("fv-chaingen-heavy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut opts = ChainstateOptions::new(Network::Regtest);
    opts.threads = 2;
    opts.dbcache_bytes = 512 << 10;
    opts.muhash = MuhashPolicy::Incremental;
    let mut cs = Chainstate::open(&dir, opts.clone()).unwrap();
    cs.connect_block(&block_bytes(&Network::Regtest.params().genesis_block())).expect("genesis");
    let half = m.tip_height / 2;
    let mut flushes = 0;
    for (i, b) in c.blocks.iter().enumerate() {
        let height = i as u32 + 1;
        match cs.connect_block(b) {
            Ok(s) => flushes += usize::from(!s.flush.is_zero()),
            Err(e) => panic!("block {height} rejected: {e}"),
        }
        if let Some(g) = m.growth.iter().find(|g| g.height == height) {
            assert_eq!(cs.summary().utxo_count, g.utxo_count, "coins at height {height}");
        }
        if height == half {
            cs.flush().unwrap();
            let before = cs.summary();
            drop(cs);
            cs = Chainstate::open(&dir, opts.clone()).unwrap();
            assert_eq!(cs.summary(), before, "the state reopened at height {half}");
        }
    }
    assert!(flushes >= 20, "only {flushes} flushes: the cache held the set");
    let s = cs.summary();
    drop(cs);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(s.height, Some(m.tip_height));
    assert_eq!(s.tip.map(|h| fullverify::encode::display_hex(&h)), Some(m.tip.clone()));
    assert_eq!(s.utxo_count, m.expected_state.utxo_count);
    assert_eq!(s.total_amount, m.expected_state.total_amount);
    assert_eq!(s.muhash.as_ref(), Some(&m.expected_state.muhash));
}

/// The ages of the spent coins, recounted from the blocks: many spends of coins from the last
/// few blocks, a real share of coins more than 1,000 blocks old, spent coins from every tenth
/// of the chain, a final set spread over the whole chain too; and the manifest's age bands.
#[test]
fn utxo_heavy_spends_reach_the_whole_age_range() {
    let c = heavy();
    let m = &c.manifest;
    let tip = m.tip_height;
    let mut born: HashMap<OutPoint, u32> = HashMap::new();
    let mut ages = Vec::with_capacity(m.inputs as usize);
    let mut spent_from = [0u64; 10];
    for (i, raw) in c.blocks.iter().enumerate() {
        let height = i as u32 + 1;
        for tx in Block::from_bytes(raw).unwrap().txdata {
            if !tx.is_coinbase() {
                for input in &tx.inputs {
                    let h = born.remove(&input.prevout).expect("a known coin");
                    ages.push(height - h);
                    spent_from[(h * 10 / (tip + 1)) as usize] += 1;
                }
            }
            let txid = tx.txid();
            for (v, o) in tx.outputs.iter().enumerate() {
                if o.script_pubkey.first() != Some(&0x6a) {
                    born.insert(OutPoint { txid, vout: v as u32 }, height);
                }
            }
        }
    }
    let n = ages.len() as f64;
    let share = |f: &dyn Fn(u32) -> bool| ages.iter().filter(|&&a| f(a)).count() as f64 / n;
    let recent = share(&|a| a <= 6);
    let old = share(&|a| a > 1_000);
    assert!(
        (0.3..0.8).contains(&recent),
        "{:.1} % of spends are of coins at most 6 blocks old",
        recent * 100.0
    );
    assert!(old >= 0.12, "only {:.1} % of spends are of coins more than 1,000 blocks old", old * 100.0);
    // Spent coins come from every tenth of the chain (the first tenth has little but
    // coinbases, which fund payouts), not only from the recent blocks.
    for (k, &s) in spent_from.iter().enumerate().skip(1) {
        assert!(s as f64 >= 0.02 * n, "{s} spends of coins from tenth {k} of the chain: {spent_from:?}");
    }
    // The final set, a long tail: every tenth but the first holds at least 3 % of it.
    let mut left = [0u64; 10];
    for &h in born.values() {
        left[(h * 10 / (tip + 1)) as usize] += 1;
    }
    assert_eq!(born.len() as u64, m.expected_state.utxo_count);
    for (k, &l) in left.iter().enumerate().skip(1) {
        assert!(l * 100 >= 3 * born.len() as u64, "tenth {k} holds {l} of the final coins: {left:?}");
    }
    // The manifest's bands say the same.
    for b in &m.spend_ages {
        let count = ages.iter().filter(|&&a| a >= b.min_age && b.max_age.is_none_or(|x| a <= x)).count();
        assert_eq!(b.inputs, count as u64, "ages {}..={:?}", b.min_age, b.max_age);
    }
}
