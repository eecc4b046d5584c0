// SPDX-License-Identifier: MIT OR Apache-2.0
//! A SwiftSync run: the header pass, the ranges on the workers, the merge and the verdict.

use super::headers::HeaderChain;
use super::range::{run_range, RangeResult, Shared};
use super::undo::UndoFiles;
use crate::metrics::{resources, Resources};
use crate::replay::{summary_json, Failure};
use crate::report::Packet;
use crate::source::{display_name, CoreChain};
use fullverify::chain::Network;
use fullverify::chainstate::StateSummary;
use fullverify::encode::{display_hex, OutPoint};
use fullverify::swiftsync::{Aggregate, HintsFile, Salt};
use fullverify::utxo::{muhash_of_set, Coin};
use fullverify::validation::{BlockError, CheckOptions, SigMode};
use fullverify::Backend;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The message of an aggregate mismatch (BIP 457: the hints or the served coins are wrong).
pub const MISMATCH: &str = "swiftsync: the hints or the undo data do not match the chain";

/// The order in which the workers take the ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeOrder {
    /// Lowest heights first.
    Ascending,
    /// A permutation drawn from this seed (tests: the result must not depend on the order).
    Shuffled(u64),
}

/// How a SwiftSync run goes.
#[derive(Clone, Debug)]
pub struct SwiftSettings {
    /// The network whose rules apply.
    pub network: Network,
    /// Workers taking ranges (≥ 1).
    pub threads: usize,
    /// Signature backend.
    pub backend: Backend,
    /// How signature checks are done.
    pub sig_mode: SigMode,
    /// Blocks per range; `None`: about eight ranges per worker.
    pub range_blocks: Option<u32>,
    /// The order the ranges are taken in.
    pub order: RangeOrder,
    /// The salt; `None`: 32 bytes from the operating system, once per run.
    pub salt: Option<Salt>,
    /// The adjusted time for the header's future limit; `None`: the system clock.
    pub now: Option<i64>,
}

impl SwiftSettings {
    /// All cores, the detected backend and its signature mode, ascending ranges, a random salt.
    pub fn new(network: Network) -> SwiftSettings {
        let backend = Backend::detect();
        SwiftSettings {
            network,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            backend,
            sig_mode: SigMode::for_backend(backend),
            range_blocks: None,
            order: RangeOrder::Ascending,
            salt: None,
            now: None,
        }
    }
}

/// One range's numbers, for the packet.
#[derive(Clone, Debug)]
pub struct RangeStats {
    /// First and last height.
    pub heights: (u32, u32),
    /// Blocks, transactions and inputs validated.
    pub blocks: u64,
    /// Transactions.
    pub txs: u64,
    /// Inputs.
    pub inputs: u64,
    /// Block bytes read.
    pub bytes_read: u64,
    /// Time on its worker.
    pub wall: Duration,
    /// The order in which it was taken (0 first).
    pub taken: usize,
}

/// The result of [`run_swiftsync`].
#[derive(Debug)]
pub struct SwiftOutcome {
    /// The blocks directory.
    pub blocks_dir: PathBuf,
    /// The hints file.
    pub hints_path: PathBuf,
    /// The state at the tip, once the aggregate balanced; `None` otherwise.
    pub summary: Option<StateSummary>,
    /// The tip the headers reached (height, hash), whatever the verdict.
    pub tip: Option<(u32, [u8; 32])>,
    /// Whether the aggregate balanced (`None`: the block pass did not run).
    pub balanced: Option<bool>,
    /// Per range.
    pub ranges: Vec<RangeStats>,
    /// Workers.
    pub threads: usize,
    /// Times: index (headers scanned), header checks, block pass, merge, MuHash, the whole run.
    pub phases: Phases,
    /// Bytes of blocks, rev files and hints read.
    pub bytes: (u64, u64, u64),
    /// Resource usage at the end.
    pub resources: Resources,
    /// Why the run failed, if it did.
    pub failure: Option<Failure>,
}

/// Phase times of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Reading the headers of the blk files and choosing the chain.
    pub index: Duration,
    /// The header pass.
    pub headers: Duration,
    /// The ranges.
    pub blocks: Duration,
    /// Adding the ranges' sums and UTXO parts, the BIP30 check.
    pub merge: Duration,
    /// The set's count, total and MuHash.
    pub muhash: Duration,
    /// The whole run.
    pub wall: Duration,
}

impl SwiftOutcome {
    /// 0, or the failure's exit code.
    pub fn exit_code(&self) -> u8 {
        self.failure.as_ref().map_or(0, Failure::exit_code)
    }

    /// Inputs validated.
    pub fn inputs(&self) -> u64 {
        self.ranges.iter().map(|r| r.inputs).sum()
    }

    /// The `swiftsync` packet (`results/schema/swiftsync.schema.json`).
    pub fn packet(&self, s: &SwiftSettings) -> Packet {
        let params = json!({
            "mode": "swiftsync",
            "network": s.network.name(),
            "source_kind": "core-blocks",
            "sig_mode": s.sig_mode.name(),
            "range_blocks": s.range_blocks,
            "order": match s.order { RangeOrder::Ascending => "ascending".to_string(), RangeOrder::Shuffled(seed) => format!("shuffled:{seed}") },
        });
        let mut p = Packet::new("swiftsync", s.backend.name(), self.threads, params);
        let wall = self.phases.wall.as_secs_f64();
        let (blocks, txs, inputs) =
            self.ranges.iter().fold((0, 0, 0), |a, r| (a.0 + r.blocks, a.1 + r.txs, a.2 + r.inputs));
        p.set("engine", json!({ "kind": "threads", "workers": self.threads }));
        p.set(
            "source",
            json!({
                "kind": "core-blocks",
                "path": display_name(&self.blocks_dir),
                "hints": display_name(&self.hints_path),
            }),
        );
        p.set("tip", self.tip.map(|(_, h)| display_hex(&h)));
        p.set("state", self.summary.as_ref().map(summary_json));
        p.set("aggregate", json!({ "checked": self.balanced.is_some(), "balanced": self.balanced }));
        p.set(
            "ranges",
            self.ranges
                .iter()
                .map(|r| {
                    json!({
                        "first_height": r.heights.0,
                        "last_height": r.heights.1,
                        "taken": r.taken,
                        "blocks": r.blocks,
                        "txs": r.txs,
                        "inputs": r.inputs,
                        "bytes_read": r.bytes_read,
                        "wall_s": r.wall.as_secs_f64(),
                    })
                })
                .collect::<Vec<Value>>(),
        );
        p.set("bytes_read", json!({ "blocks": self.bytes.0, "undo": self.bytes.1, "hints": self.bytes.2 }));
        p.set("resources", &self.resources);
        p.set(
            "metrics",
            json!({
                "blocks": blocks,
                "txs": txs,
                "inputs": inputs,
                "wall_s": wall,
                "inputs_per_s": if wall > 0.0 { inputs as f64 / wall } else { 0.0 },
                "blocks_per_s": if wall > 0.0 { blocks as f64 / wall } else { 0.0 },
            }),
        );
        let ph = &self.phases;
        p.set(
            "phases",
            json!({
                "index_s": ph.index.as_secs_f64(),
                "headers_s": ph.headers.as_secs_f64(),
                "blocks_s": ph.blocks.as_secs_f64(),
                "merge_s": ph.merge.as_secs_f64(),
                "muhash_s": ph.muhash.as_secs_f64(),
            }),
        );
        if let Some(f) = &self.failure {
            p.set("error", f.to_json());
        }
        p
    }
}

/// A permutation of `0..n` from `seed` (SplitMix64, Fisher–Yates).
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut x = seed;
    let mut next = || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// Validates the chain of the Core blocks directory `blocks_dir` with the hints file
/// `hints_path` (BIP 457). `Err`: the run could not start (the directory or the hints cannot
/// be read, the hints are for another height). A run that started returns its outcome: the
/// state when the aggregate balanced and no block failed, else the failure (the lowest failing
/// block, or the mismatch).
pub fn run_swiftsync(
    blocks_dir: &Path,
    hints_path: &Path,
    s: &SwiftSettings,
) -> Result<SwiftOutcome, Failure> {
    let start = Instant::now();
    let params = s.network.params();
    let threads = s.threads.max(1);
    let chain = CoreChain::open(blocks_dir, params.magic, params.genesis_hash)
        .map_err(|e| Failure::Source(e.to_string()))?;
    let hint_bytes = std::fs::read(hints_path)
        .map_err(|e| Failure::Source(format!("--hints {}: {e}", hints_path.display())))?;
    let hints = HintsFile::parse(&hint_bytes)
        .map_err(|e| Failure::Source(format!("--hints {}: {e}", hints_path.display())))?;
    let mut phases = Phases { index: start.elapsed(), ..Phases::default() };
    let tip_height = chain.blocks.len() as u32 - 1;
    let tip = Some((tip_height, chain.blocks[tip_height as usize].hash));
    if hints.terminal_height() != tip_height {
        return Err(Failure::Usage(format!(
            "--hints {}: hints for height {}, but the chain in {} ends at height {tip_height}",
            hints_path.display(),
            hints.terminal_height(),
            display_name(blocks_dir)
        )));
    }
    let mut outcome = SwiftOutcome {
        blocks_dir: blocks_dir.to_path_buf(),
        hints_path: hints_path.to_path_buf(),
        summary: None,
        tip,
        balanced: None,
        ranges: Vec::new(),
        threads,
        phases,
        bytes: (0, 0, hint_bytes.len() as u64),
        resources: resources(start.elapsed()),
        failure: None,
    };
    let finish = |mut o: SwiftOutcome, phases: Phases| {
        o.phases = Phases { wall: start.elapsed(), ..phases };
        o.resources = resources(o.phases.wall);
        Ok(o)
    };
    // Headers first, in order.
    let t = Instant::now();
    let now = s.now.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    });
    let headers = match HeaderChain::check(chain.blocks.iter().map(|b| b.header), params, now) {
        Ok(h) => h,
        Err(e) => {
            phases.headers = t.elapsed();
            let b = &chain.blocks[e.height as usize];
            outcome.failure = Some(Failure::Invalid { error: e, origin: Some(chain.origin(b).to_string()) });
            return finish(outcome, phases);
        }
    };
    phases.headers = t.elapsed();
    // The blocks, in ranges, on the workers.
    let t = Instant::now();
    let salt = match &s.salt {
        Some(x) => x.clone(),
        None => Salt::from_os_random().map_err(|e| Failure::Source(format!("a random salt: {e}")))?,
    };
    let undo = UndoFiles::new(&chain, params.magic);
    let n = chain.blocks.len() as u32;
    let per = s.range_blocks.unwrap_or_else(|| (n / (8 * threads as u32)).max(1)).max(1);
    let ranges: Vec<(u32, u32)> =
        (0..n).step_by(per as usize).map(|a| (a, (a + per - 1).min(n - 1))).collect();
    let order = match s.order {
        RangeOrder::Ascending => (0..ranges.len()).collect(),
        RangeOrder::Shuffled(seed) => shuffled(ranges.len(), seed),
    };
    let shared = Shared {
        chain: &chain,
        headers: &headers,
        undo: &undo,
        hints: &hints,
        salt: &salt,
        opts: CheckOptions { network: s.network, threads: 1, backend: s.backend, sig_mode: s.sig_mode },
    };
    let cursor = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, RangeResult)>> = Mutex::new(Vec::with_capacity(ranges.len()));
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let taken = cursor.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = order.get(taken) else { break };
                let (a, b) = ranges[i];
                let r = run_range(&shared, a, b);
                results.lock().expect("no worker panicked").push((taken, r));
            });
        }
    });
    let mut results = results.into_inner().expect("no worker panicked");
    results.sort_by_key(|(_, r)| r.heights.0);
    phases.blocks = t.elapsed();
    // Merge.
    let t = Instant::now();
    let mut aggregate = Aggregate::new(salt);
    let mut invalid: Option<BlockError> = None;
    let mut mismatch: Option<(u32, String)> = None;
    let mut source: Option<String> = None;
    let mut utxos: Vec<(OutPoint, Coin)> = Vec::new();
    let mut bip30: Vec<([u8; 32], u32, usize)> = Vec::new();
    for (taken, r) in &mut results {
        aggregate.combine(&r.aggregate);
        if let Some(e) = r.invalid.take() {
            if invalid.as_ref().is_none_or(|i| e.height < i.height) {
                invalid = Some(e);
            }
        }
        if let Some(m) = r.mismatch.take() {
            if mismatch.as_ref().is_none_or(|(h, _)| m.height < *h) {
                mismatch = Some((m.height, m.what));
            }
        }
        if source.is_none() {
            source = r.source.take();
        }
        utxos.append(&mut r.utxos);
        bip30.append(&mut r.bip30);
        outcome.bytes.0 += r.bytes_read;
        outcome.ranges.push(RangeStats {
            heights: r.heights,
            blocks: r.blocks,
            txs: r.txs,
            inputs: r.inputs,
            bytes_read: r.bytes_read,
            wall: r.wall,
            taken: *taken,
        });
    }
    outcome.bytes.1 = undo.bytes_read();
    // BIP30 without a UTXO set: a txid seen again where BIP30 applies is refused (stricter than
    // Core, which allows it when every output of the earlier one was spent by then).
    bip30.sort_unstable();
    for w in bip30.windows(2) {
        if w[0].0 == w[1].0 {
            let (txid, height, t) = w[1];
            let later = BlockError {
                reason: "bad-txns-BIP30".into(),
                hash: chain.blocks[height as usize].hash,
                height,
                tx: Some((t, txid)),
                input: None,
            };
            if invalid.as_ref().is_none_or(|i| later.height < i.height) {
                invalid = Some(later);
            }
        }
    }
    phases.merge = t.elapsed();
    if let Some(m) = source {
        outcome.failure = Some(Failure::Source(m));
        return finish(outcome, phases);
    }
    let balanced = mismatch.is_none() && aggregate.is_balanced();
    outcome.balanced = Some(balanced);
    if !balanced {
        let detail = match mismatch {
            Some((h, what)) => format!("block {h}: {what}"),
            None => "the spent coins and the outputs the hints call spent differ".into(),
        };
        outcome.failure = Some(Failure::Mismatch(detail));
        return finish(outcome, phases);
    }
    if let Some(e) = invalid {
        let origin = Some(chain.origin(&chain.blocks[e.height as usize]).to_string());
        outcome.failure = Some(Failure::Invalid { error: Box::new(e), origin });
        return finish(outcome, phases);
    }
    // The hinted outputs are the UTXO set at the tip.
    let t = Instant::now();
    let total: i64 = utxos.iter().map(|(_, c)| c.out.value).sum();
    let mut m = muhash_of_set(threads, s.backend, |f| {
        for (op, c) in &utxos {
            f(op, c);
        }
        Ok::<(), std::convert::Infallible>(())
    })
    .unwrap_or_else(|never| match never {});
    let mut digest = m.finalize();
    digest.reverse();
    outcome.summary = Some(StateSummary {
        height: Some(tip_height),
        tip: tip.map(|t| t.1),
        utxo_count: utxos.len() as u64,
        total_amount: total,
        muhash: Some(hex::encode(digest)),
    });
    phases.muhash = t.elapsed();
    finish(outcome, phases)
}
