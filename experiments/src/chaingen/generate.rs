// SPDX-License-Identifier: MIT OR Apache-2.0
//! The generator's loop: from a profile and a seed, every block in chain order, then the final
//! UTXO set (count, amount, MuHash) and the manifest of the corpus in memory.

use super::keys::{derive_keys, par_map, Rng};
use super::manifest::{Era, ExpectedState, Manifest, FORMAT_VERSION};
use super::plan::{State, Utxo};
use super::profile::{Profile, ERAS};
use super::scripts::Gen;
use fullverify::chain::{Network, COINBASE_MATURITY};
use fullverify::encode::{display_hex, TxOut};
use fullverify::hash::sha256d;
use fullverify::muhash::MuHash3072;
use fullverify::utxo::{txout_ser, Coin};
use std::collections::{BTreeMap, VecDeque};

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 20_090_103;

/// Generator progress, for a display.
pub trait Observer {
    /// Called after each block with its height and the inputs spent so far.
    fn block(&mut self, height: u32, inputs: u64);
}

impl Observer for () {
    fn block(&mut self, _: u32, _: u64) {}
}

/// A generated chain in memory.
pub struct Corpus {
    /// Serialized blocks from height 1 to the tip.
    pub blocks: Vec<Vec<u8>>,
    /// Its manifest (`files` empty until written).
    pub manifest: Manifest,
}

/// Generates the corpus of `profile` from `seed` with `threads` signing threads.
pub fn generate(profile: Profile, seed: u64, threads: usize, observer: &mut dyn Observer) -> Corpus {
    let tip = profile.tip_height();
    let first_spend = COINBASE_MATURITY + 1;
    let span = tip + 1 - first_spend;
    let era_bounds = [first_spend, first_spend + span * 35 / 100, first_spend + span * 70 / 100, tip + 1];
    let mut schedule = BTreeMap::new();
    let at = |f: u32| first_spend + span * f / 100;
    for (f, shape) in [
        (20, "fan-out"),
        (30, "legacy-consolidation"),
        (45, "full-block"),
        (50, "fan-out"),
        (60, "consolidation"),
        (75, "full-block"),
        (80, "fan-out"),
        (90, "consolidation"),
        (96, "full-block"),
    ] {
        schedule.insert(at(f), shape);
    }
    let mut st = State {
        g: Gen { keys: derive_keys(seed, threads), rng: Rng(seed ^ 0x6368_6169_6e67_656e) },
        profile,
        pool: Vec::new(),
        immature: VecDeque::new(),
        era_bounds,
        counts: BTreeMap::new(),
        era_inputs: [0; 3],
        in_block_spends: 0,
        stress: Vec::new(),
        schedule,
        threads,
        seed,
    };
    let mut prev = Network::Regtest.params().genesis_hash;
    let mut blocks = Vec::with_capacity(tip as usize);
    let mut digest = sha2::Sha256::new();
    let mut n_txs = 0u64;
    for height in 1..=tip {
        while st.immature.front().is_some_and(|u| u.height + COINBASE_MATURITY <= height) {
            let u = st.immature.pop_front().expect("front");
            st.pool.push(u);
        }
        let plan = st.plan_block(height);
        n_txs += plan.txs.len() as u64 + 1;
        let b = st.build_block(height, prev, plan);
        prev = sha256d(&b[..80]);
        use sha2::Digest;
        digest.update(&b);
        blocks.push(b);
        observer.block(height, st.era_inputs.iter().sum());
    }
    // The final set: the pool and the immature coinbases.
    let coins: Vec<&Utxo> = st.pool.iter().chain(st.immature.iter()).collect();
    let total_amount: i64 = coins.iter().map(|u| u.value).sum();
    let parts = par_map(&coins.chunks(4096).collect::<Vec<_>>(), threads, |chunk| {
        let mut m = MuHash3072::new();
        for u in chunk.iter() {
            let coin = Coin {
                out: TxOut { value: u.value, script_pubkey: u.spk.clone() },
                height: u.height,
                coinbase: u.coinbase,
            };
            m.insert(&txout_ser(&u.op, &coin));
        }
        m
    });
    let mut m = MuHash3072::new();
    for p in &parts {
        m.combine(p);
    }
    let mut d = m.finalize();
    d.reverse();
    let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
    for per in st.counts.values() {
        for (k, v) in per {
            *by_type.entry(k.clone()).or_default() += v;
        }
    }
    use sha2::Digest;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        generator: "chaingen".into(),
        seed,
        profile,
        network: "regtest".into(),
        first_height: 1,
        tip_height: tip,
        tip: display_hex(&prev),
        txs: n_txs,
        inputs: st.era_inputs.iter().sum(),
        eras: (0..3)
            .map(|e| Era {
                name: ERAS[e].into(),
                first_height: era_bounds[e],
                last_height: era_bounds[e + 1] - 1,
                inputs: st.era_inputs[e],
            })
            .collect(),
        inputs_by_era: st.counts,
        inputs_by_type: by_type,
        in_block_spends: st.in_block_spends,
        stress: st.stress,
        files: Vec::new(),
        block_bytes: blocks.iter().map(|b| b.len() as u64).sum(),
        sha256: hex::encode(digest.finalize()),
        expected_state: ExpectedState {
            utxo_count: coins.len() as u64,
            total_amount,
            muhash: hex::encode(d),
        },
    };
    Corpus { blocks, manifest }
}
