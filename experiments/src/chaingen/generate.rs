// SPDX-License-Identifier: MIT OR Apache-2.0
//! The generator's loop: from a profile and a seed, every block in chain order (kept in memory
//! or handed on as it is made), then the final UTXO set (count, amount, MuHash) and the
//! manifest.

use super::keys::{derive_keys, Rng};
use super::manifest::{AgeBand, Era, ExpectedState, Growth, Manifest, FORMAT_VERSION};
use super::plan::{State, AGE_BANDS};
use super::pool::{Heavy, Role};
use super::profile::{Profile, Spec, ERAS};
use super::scripts::Gen;
use fullverify::chain::{Network, COINBASE_MATURITY};
use fullverify::encode::{display_hex, OutPoint, TxOut};
use fullverify::hash::sha256d;
use fullverify::undo::BlockUndo;
use fullverify::utxo::{muhash_of_set, Coin};
use fullverify::Backend;
use sha2::Digest;
use std::collections::{BTreeMap, VecDeque};

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 20_090_103;

/// Generator progress, for a display.
pub trait Observer {
    /// Called after each block with its height and the inputs spent so far.
    fn block(&mut self, height: u32, inputs: u64);

    /// Called after the block at each tenth of the chain with the set's size.
    fn growth(&mut self, _height: u32, _utxos: u64) {}

    /// Called at the end with every coin of the final set, as the generator kept it (its own
    /// bookkeeping, not a replay of the blocks): what a hints file must call unspent.
    fn unspent(&mut self, _op: &OutPoint, _coin: &Coin) {}
}

impl Observer for () {
    fn block(&mut self, _: u32, _: u64) {}
}

/// A generated chain in memory.
pub struct Corpus {
    /// Serialized blocks from height 1 to the tip.
    pub blocks: Vec<Vec<u8>>,
    /// Their undo data (`undo[i]`: the coins `blocks[i]` spends).
    pub undo: Vec<BlockUndo>,
    /// Its manifest (`files` empty until written).
    pub manifest: Manifest,
}

/// Generates the corpus of `profile` from `seed` with `threads` signing threads (`utxo-heavy`
/// at its default size; [`generate_spec`] for another).
pub fn generate(profile: Profile, seed: u64, threads: usize, observer: &mut dyn Observer) -> Corpus {
    generate_spec(&Spec::new(profile, seed), threads, observer)
}

/// Generates the corpus of `spec` in memory.
pub fn generate_spec(spec: &Spec, threads: usize, observer: &mut dyn Observer) -> Corpus {
    let (mut blocks, mut undo) = (Vec::new(), Vec::new());
    let manifest = generate_with(spec, threads, observer, &mut |b, u| {
        blocks.push(b);
        undo.push(u);
        Ok(())
    })
    .expect("keeping blocks in memory does not fail");
    Corpus { blocks, undo, manifest }
}

/// Generates the corpus of `spec`, handing each block and its undo data to `sink` as soon as
/// it is made (so that a corpus larger than memory can be written as it is generated), and
/// returns its manifest (`files` empty) or the first error of `sink`.
pub fn generate_with(
    spec: &Spec,
    threads: usize,
    observer: &mut dyn Observer,
    sink: &mut dyn FnMut(Vec<u8>, BlockUndo) -> std::io::Result<()>,
) -> std::io::Result<Manifest> {
    let (profile, seed) = (spec.profile, spec.seed);
    let tip = spec.tip_height();
    let first_spend = COINBASE_MATURITY + 1;
    let span = tip + 1 - first_spend;
    let era_bounds = [first_spend, first_spend + span * 35 / 100, first_spend + span * 70 / 100, tip + 1];
    let mut schedule = BTreeMap::new();
    let at = |f: u32| first_spend + span * f / 100;
    let shapes: &[(u32, &str)] = if spec.utxo_target().is_some() {
        &[(40, "consolidation"), (65, "consolidation"), (90, "consolidation")]
    } else {
        &[
            (20, "fan-out"),
            (30, "legacy-consolidation"),
            (45, "full-block"),
            (50, "fan-out"),
            (60, "consolidation"),
            (75, "full-block"),
            (80, "fan-out"),
            (90, "consolidation"),
            (96, "full-block"),
        ]
    };
    for &(f, shape) in shapes {
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
        ages: [0; AGE_BANDS.len()],
        heavy: spec.utxo_target().map(|n| Box::new(Heavy::new(n, first_spend, tip))),
    };
    let mut prev = Network::Regtest.params().genesis_hash;
    let mut digest = sha2::Sha256::new();
    let mut n_txs = 0u64;
    let mut block_bytes = 0u64;
    let mut growth = Vec::new();
    for height in 1..=tip {
        while st.immature.front().is_some_and(|u| u.height + COINBASE_MATURITY <= height) {
            let u = st.immature.pop_front().expect("front");
            st.keep(u, Role::Coinbase);
        }
        let plan = if st.heavy.is_some() { st.plan_heavy_block(height) } else { st.plan_block(height) };
        n_txs += plan.txs.len() as u64 + 1;
        let (b, undo) = st.build_block(height, prev, plan);
        prev = sha256d(&b[..80]);
        digest.update(&b);
        block_bytes += b.len() as u64;
        sink(b, undo)?;
        let inputs = st.era_inputs.iter().sum();
        observer.block(height, inputs);
        if (1..=10).any(|k| tip * k / 10 == height)
            && growth.last().is_none_or(|g: &Growth| g.height != height)
        {
            let utxo_count = st.utxo_count();
            observer.growth(height, utxo_count);
            growth.push(Growth { height, utxo_count, inputs });
        }
    }
    let (utxo_count, total_amount, muhash) = final_set(&st, threads, observer);
    let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
    for per in st.counts.values() {
        for (k, v) in per {
            *by_type.entry(k.clone()).or_default() += v;
        }
    }
    Ok(Manifest {
        format_version: FORMAT_VERSION,
        generator: "chaingen".into(),
        seed,
        profile,
        utxo_target: spec.utxo_target(),
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
        spend_ages: AGE_BANDS
            .iter()
            .zip(st.ages)
            .map(|(&(min_age, max_age), inputs)| AgeBand { min_age, max_age, inputs })
            .collect(),
        growth,
        files: Vec::new(),
        block_bytes,
        sha256: hex::encode(digest.finalize()),
        expected_state: ExpectedState { utxo_count, total_amount, muhash },
    })
}

/// The final set's count, total and MuHash (display hex): the pools and the immature
/// coinbases.
fn final_set(st: &State, threads: usize, observer: &mut dyn Observer) -> (u64, i64, String) {
    let mut count = 0u64;
    let mut total = 0i64;
    let m = muhash_of_set(threads, Backend::detect(), |f| {
        let mut each = |op: &OutPoint, c: &Coin| {
            count += 1;
            total += c.out.value;
            observer.unspent(op, c);
            f(op, c);
        };
        for u in st.pool.iter().chain(st.immature.iter()) {
            let coin = Coin {
                out: TxOut { value: u.value, script_pubkey: u.spk.clone() },
                height: u.height,
                coinbase: u.coinbase,
            };
            each(&u.op, &coin);
        }
        if let Some(h) = &st.heavy {
            h.for_each_coin(&st.g, &mut each);
        }
        Ok::<(), std::convert::Infallible>(())
    });
    let Ok(mut m) = m;
    let mut d = m.finalize();
    d.reverse();
    (count, total, hex::encode(d))
}
