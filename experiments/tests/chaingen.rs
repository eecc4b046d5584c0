// SPDX-License-Identifier: MIT OR Apache-2.0
//! The generated corpus: deterministic for a seed whatever the thread count, valid block by
//! block under fullverify with the manifest's final state, and counted as its manifest says.

use fullverify::chain::Network;
use fullverify::chainstate::{Chainstate, ChainstateOptions};
use fullverify_experiments::chaingen::{block_bytes, generate, recount, Corpus, Manifest, Profile};

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
    let weights: Vec<usize> = c
        .blocks
        .iter()
        .map(|b| fullverify::validation::block_weight(&fullverify::encode::Block::from_bytes(b).unwrap()))
        .collect();
    assert!(weights.iter().all(|&w| w <= 4_000_000));
    let max = weights.iter().copied().max().unwrap_or(0);
    assert!(max > 3_500_000, "no block near the weight limit (largest {max} WU)");
}
