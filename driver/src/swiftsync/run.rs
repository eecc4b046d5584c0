// SPDX-License-Identifier: MIT OR Apache-2.0
//! A SwiftSync run: the header pass, the ranges on the workers, the merge and the verdict.

use super::plan::SwiftPlan;
use super::range::{run_range, Bip30Tx, Blocks, RangeCounts, RangeResult, SetPart, Shared};
use super::wire::Bundle;
use crate::metrics::{resources, Resources};
use crate::replay::{summary_json, Failure};
use crate::report::Packet;
use crate::source::display_name;
use fullverify::chain::Network;
use fullverify::chainstate::StateSummary;
use fullverify::encode::{display_hex, Block};
use fullverify::muhash::MuHash3072;
use fullverify::swiftsync::{Aggregate, HintsFile, Salt};
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
    /// Blocks per range; `None`: ranges by block bytes that shrink towards the tip, each a
    /// quarter of what is left shared among the workers ([`SwiftPlan::ranges`]).
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
    /// Its heights and counts.
    pub counts: RangeCounts,
    /// The order in which it was taken (0 first).
    pub taken: usize,
}

/// The result of [`run_swiftsync`].
#[derive(Debug)]
pub struct SwiftOutcome {
    /// The blocks directory.
    pub blocks_dir: PathBuf,
    /// `core-blocks`, or `corpus` for a directory that starts at the genesis block's child (a
    /// chaingen corpus; the network's genesis block is put in front).
    pub source_kind: &'static str,
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
    /// The packet's `engine`: `{"kind": "threads", "workers": n}`, or what another engine
    /// (the Python package's Dask driver) says of itself.
    pub engine: Value,
    /// Times: index (headers scanned), header checks, block pass, merge, MuHash, the whole run.
    pub phases: Phases,
    /// Bytes of blocks, undo records and hints used.
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
    /// Adding the ranges' sums and set parts, the BIP30 check.
    pub merge: Duration,
    /// Finalizing the set's MuHash (each range hashes its part of the set).
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
        self.ranges.iter().map(|r| r.counts.inputs).sum()
    }

    /// The `swiftsync` packet (`results/schema/swiftsync.schema.json`).
    pub fn packet(&self, s: &SwiftSettings) -> Packet {
        let params = json!({
            "mode": "swiftsync",
            "network": s.network.name(),
            "source_kind": self.source_kind,
            "sig_mode": s.sig_mode.name(),
            "range_blocks": s.range_blocks,
            "order": match s.order { RangeOrder::Ascending => "ascending".to_string(), RangeOrder::Shuffled(seed) => format!("shuffled:{seed}") },
        });
        let mut p = Packet::new("swiftsync", s.backend.name(), self.threads, params);
        let wall = self.phases.wall.as_secs_f64();
        let (blocks, txs, inputs) = self
            .ranges
            .iter()
            .map(|r| &r.counts)
            .fold((0, 0, 0), |a, c| (a.0 + c.blocks, a.1 + c.txs, a.2 + c.inputs));
        p.set("engine", &self.engine);
        p.set(
            "source",
            json!({
                "kind": self.source_kind,
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
                    let mut m = serde_json::Map::new();
                    m.insert("taken".into(), r.taken.into());
                    m.extend(r.counts.fields().map(|(k, v)| (k.to_string(), v)));
                    Value::Object(m)
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
/// `hints_path` (BIP 457), on `s.threads` threads. `Err`: the run could not start (the
/// directory or the hints cannot be read, the hints are for another height). A run that started
/// returns its outcome: the state when the aggregate balanced and no block failed, else the
/// failure (the lowest failing block, or the mismatch).
pub fn run_swiftsync(
    blocks_dir: &Path,
    hints_path: &Path,
    s: &SwiftSettings,
) -> Result<SwiftOutcome, Failure> {
    let start = Instant::now();
    let threads = s.threads.max(1);
    let plan = SwiftPlan::open(blocks_dir, s.network, s.now)?;
    let hint_bytes = read_hints(hints_path, &plan)?;
    let hints = HintsFile::parse(&hint_bytes).expect("checked by read_hints");
    let mut outcome = SwiftOutcome::started(&plan, hints_path, hint_bytes.len() as u64, threads);
    if outcome.failure.is_some() {
        return Ok(outcome.finished(start));
    }
    // The blocks, in ranges, on the workers.
    let t = Instant::now();
    let salt = match &s.salt {
        Some(x) => x.clone(),
        None => Salt::from_os_random().map_err(|e| Failure::Source(format!("a random salt: {e}")))?,
    };
    let ranges = plan.ranges(s.range_blocks, threads);
    let order = match s.order {
        RangeOrder::Ascending => (0..ranges.len()).collect(),
        RangeOrder::Shuffled(seed) => shuffled(ranges.len(), seed),
    };
    let shared = Shared {
        headers: &plan.headers,
        blocks: Blocks::Files { chain: &plan.chain, undo: plan.undo_files() },
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
    outcome.phases.blocks = t.elapsed();
    outcome.merge(&plan, &salt, results.into_inner().expect("no worker panicked"));
    Ok(outcome.finished(start))
}

/// Reads the hints file at `path` and checks that it parses and is for the plan's tip.
pub fn read_hints(path: &Path, plan: &SwiftPlan) -> Result<Vec<u8>, Failure> {
    let named = |m: String| format!("--hints {}: {m}", path.display());
    let bytes = std::fs::read(path).map_err(|e| Failure::Source(named(e.to_string())))?;
    match check_hints(&bytes, plan) {
        Ok(()) => Ok(bytes),
        Err(Failure::Usage(m)) => Err(Failure::Usage(named(m))),
        Err(Failure::Source(m)) => Err(Failure::Source(named(m))),
        Err(other) => Err(other),
    }
}

/// Checks that `hints` parse as a hints file for the plan's tip (`Usage` for another height).
pub fn check_hints(hints: &[u8], plan: &SwiftPlan) -> Result<(), Failure> {
    let h = HintsFile::parse(hints).map_err(|e| Failure::Source(e.to_string()))?;
    let tip = plan.tip_height();
    if h.terminal_height() != tip {
        return Err(Failure::Usage(format!(
            "hints for height {}, but the chain in {} ends at height {tip}",
            h.terminal_height(),
            plan.dir_name()
        )));
    }
    Ok(())
}

/// Validates the range `first..=last` of `plan` with `hints` under `salt`: its blocks from the
/// plan's directory, or from `bundle` when given. For workers in other processes.
pub fn validate_range(
    plan: &SwiftPlan,
    hints: &HintsFile<'_>,
    salt: &Salt,
    opts: CheckOptions,
    bundle: Option<&Bundle>,
    first: u32,
    last: u32,
) -> Result<RangeResult, String> {
    let tip = plan.tip_height();
    if first > last || last > tip {
        return Err(format!("range {first}..={last} is not within the chain's heights 0..={tip}"));
    }
    if let Some(b) = bundle {
        if b.first != first || b.blocks.len() as u32 != last - first + 1 {
            return Err(format!("the bundle is not of heights {first}..={last}"));
        }
    }
    let blocks = match bundle {
        Some(b) => Blocks::Bundle(b),
        None if plan.blocks_dir.is_none() => {
            return Err("a plan without a blocks directory needs a bundle for each range".into());
        }
        None => Blocks::Files { chain: &plan.chain, undo: plan.undo_files() },
    };
    let shared = Shared { headers: &plan.headers, blocks, hints, salt, opts };
    Ok(run_range(&shared, first, last))
}

impl SwiftOutcome {
    /// The outcome of a run that has its plan (and a header failure, if one was found).
    pub fn started(plan: &SwiftPlan, hints_path: &Path, hint_bytes: u64, workers: usize) -> SwiftOutcome {
        let tip = Some((plan.tip_height(), plan.tip_hash()));
        let failure = plan.header_error.as_ref().map(|e| {
            let b = &plan.chain.blocks[e.height as usize];
            Failure::Invalid { error: e.clone(), origin: Some(plan.chain.origin(b).to_string()) }
        });
        SwiftOutcome {
            blocks_dir: plan.blocks_dir.clone().unwrap_or_else(|| PathBuf::from(&plan.chain.dir_name)),
            source_kind: if plan.chain.genesis.is_some() { "corpus" } else { "core-blocks" },
            hints_path: hints_path.to_path_buf(),
            summary: None,
            tip,
            balanced: None,
            ranges: Vec::new(),
            threads: workers,
            engine: json!({ "kind": "threads", "workers": workers }),
            phases: Phases { index: plan.index_time, headers: plan.headers_time, ..Phases::default() },
            bytes: (0, 0, hint_bytes),
            resources: resources(Duration::ZERO),
            failure,
        }
    }

    /// Stamps the wall time since `start` and the resources used.
    pub fn finished(mut self, start: Instant) -> SwiftOutcome {
        self.phases.wall = start.elapsed();
        self.resources = resources(self.phases.wall);
        self
    }

    /// Adds up the ranges' `results` (`(taken, result)`: the order a worker took it, its
    /// result), checks the aggregate and BIP30, and gives the verdict: a read failure, a
    /// mismatch, the lowest failing block, or the state from the ranges' set parts.
    pub fn merge(&mut self, plan: &SwiftPlan, salt: &Salt, mut results: Vec<(usize, RangeResult)>) {
        let t = Instant::now();
        results.sort_by_key(|(_, r)| r.counts.heights.0);
        let chain = &plan.chain;
        let mut aggregate = Aggregate::new(salt.clone());
        let mut invalid: Option<BlockError> = None;
        let mut mismatch: Option<(u32, String)> = None;
        let mut source: Option<String> = None;
        let mut set = SetPart { count: 0, total: 0, muhash: MuHash3072::new() };
        let mut bip30: Vec<Bip30Tx> = Vec::new();
        let mut covered = 0u32;
        for (taken, r) in &mut results {
            if r.counts.heights.0 > covered {
                source.get_or_insert_with(|| {
                    format!("no result for heights {covered}..{}", r.counts.heights.0)
                });
            } else if r.counts.heights.0 < covered {
                source.get_or_insert_with(|| {
                    format!("heights {}..={} have two results", r.counts.heights.0, covered - 1)
                });
            }
            covered = covered.max(r.counts.heights.1.saturating_add(1));
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
            set.count += r.set.count;
            set.total += r.set.total;
            set.muhash.combine(&r.set.muhash);
            bip30.append(&mut r.bip30);
            self.bytes.0 += r.counts.bytes_read;
            self.bytes.1 += r.counts.undo_bytes;
            self.ranges.push(RangeStats { counts: r.counts, taken: *taken });
        }
        if covered != plan.tip_height() + 1 && source.is_none() {
            source = Some(format!("no result for heights {covered}..={}", plan.tip_height()));
        }
        // BIP30 without a UTXO set: a txid seen again where BIP30 applies is refused (stricter
        // than Core, which allows it when every output of the earlier one was spent by then).
        let mut open = None;
        let txid_at = |height: u32, t: u32| -> Result<[u8; 32], String> {
            let raw = chain.read_at(&mut open, height).map_err(|e| e.to_string())?;
            let block = Block::from_bytes(&raw).map_err(|e| format!("block {height}: {e}"))?;
            block
                .txdata
                .get(t as usize)
                .map(|tx| tx.txid())
                .ok_or_else(|| format!("block {height}: no tx {t}"))
        };
        match repeated_txid(&mut bip30, txid_at) {
            Ok(Some((height, t, txid))) => {
                let later = BlockError {
                    reason: "bad-txns-BIP30".into(),
                    hash: chain.blocks[height as usize].hash,
                    height,
                    tx: Some((t as usize, txid)),
                    input: None,
                };
                if invalid.as_ref().is_none_or(|i| later.height < i.height) {
                    invalid = Some(later);
                }
            }
            Ok(None) => {}
            Err(e) => {
                source.get_or_insert(format!("BIP30 check: {e}"));
            }
        }
        self.phases.merge = t.elapsed();
        if let Some(m) = source {
            self.failure = Some(Failure::Source(m));
            return;
        }
        let balanced = mismatch.is_none() && aggregate.is_balanced();
        self.balanced = Some(balanced);
        if !balanced {
            let detail = match mismatch {
                Some((h, what)) => format!("block {h}: {what}"),
                None => "the spent coins and the outputs the hints call spent differ".into(),
            };
            self.failure = Some(Failure::Mismatch(detail));
            return;
        }
        if let Some(e) = invalid {
            let origin = Some(chain.origin(&chain.blocks[e.height as usize]).to_string());
            self.failure = Some(Failure::Invalid { error: Box::new(e), origin });
            return;
        }
        // The hinted outputs are the UTXO set at the tip: the parts' count, total and product.
        let t = Instant::now();
        let mut digest = set.muhash.finalize();
        digest.reverse();
        self.summary = Some(StateSummary {
            height: Some(plan.tip_height()),
            tip: Some(plan.tip_hash()),
            utxo_count: set.count,
            total_amount: set.total,
            muhash: Some(hex::encode(digest)),
        });
        self.phases.muhash = t.elapsed();
    }
}

/// The lowest `(height, tx index, txid)` of a transaction of `txs` whose txid an earlier one of
/// `txs` has (by height, then index), if any. `txs` carry txid prefixes ([`Bip30Tx`]): they are
/// sorted by them, and only transactions whose prefix another shares have their whole txid
/// read, by `txid_at(height, tx index)`.
fn repeated_txid(
    txs: &mut [Bip30Tx],
    mut txid_at: impl FnMut(u32, u32) -> Result<[u8; 32], String>,
) -> Result<Option<(u32, u32, [u8; 32])>, String> {
    txs.sort_unstable();
    let mut first: Option<(u32, u32, [u8; 32])> = None;
    for group in txs.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        let mut whole =
            group.iter().map(|&(_, h, t)| Ok((txid_at(h, t)?, h, t))).collect::<Result<Vec<_>, String>>()?;
        whole.sort_unstable();
        for w in whole.windows(2) {
            let (txid, h, t) = w[1];
            if w[0].0 == txid && first.is_none_or(|(fh, ft, _)| (h, t) < (fh, ft)) {
                first = Some((h, t, txid));
            }
        }
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::repeated_txid;
    use std::collections::HashMap;

    /// A transaction: its height, its index, its txid.
    type Tx = (u32, u32, [u8; 32]);

    /// [`repeated_txid`] of transactions as ranges report them, with a reader of their txids
    /// that counts its reads.
    fn check(txs: &[Tx]) -> (Result<Option<Tx>, String>, usize) {
        let whole: HashMap<(u32, u32), [u8; 32]> = txs.iter().map(|&(h, t, id)| ((h, t), id)).collect();
        let mut prefixes: Vec<_> =
            txs.iter().map(|&(h, t, id)| (super::super::range::txid_prefix(&id), h, t)).collect();
        let mut reads = 0;
        let r = repeated_txid(&mut prefixes, |h, t| {
            reads += 1;
            whole.get(&(h, t)).copied().ok_or_else(|| format!("no tx {h}/{t}"))
        });
        (r, reads)
    }

    fn txid(prefix: u64, rest: u8) -> [u8; 32] {
        let mut id = [rest; 32];
        id[..8].copy_from_slice(&prefix.to_le_bytes());
        id
    }

    #[test]
    fn a_repeated_txid_is_found_and_shared_prefixes_alone_are_not_one() {
        // Distinct prefixes: nothing read again, nothing found.
        let distinct: Vec<_> = (0..50u32).map(|k| (k / 5, k % 5, txid(u64::from(k) * 7919, 1))).collect();
        assert_eq!(check(&distinct), (Ok(None), 0));
        // Two txids with one prefix but not the same: both read, no duplicate.
        let mut near = distinct.clone();
        near.push((20, 0, txid(7919 * 3, 2)));
        assert_eq!(check(&near), (Ok(None), 2));
        // The same txid twice: the later one, whatever order the ranges reported them in.
        let mut twice = near.clone();
        twice.push((30, 4, txid(7919 * 3, 2)));
        twice.reverse();
        assert_eq!(check(&twice), (Ok(Some((30, 4, txid(7919 * 3, 2)))), 3));
        // Three times, and a second repeated txid at a lower height: the lowest repeat wins.
        let mut more = twice.clone();
        more.push((40, 1, txid(7919 * 3, 2)));
        more.push((25, 2, txid(7919 * 9, 1)));
        assert_eq!(check(&more).0, Ok(Some((25, 2, txid(7919 * 9, 1)))));
        // At one height, the later index.
        let same_block = vec![(5, 3, txid(1, 1)), (5, 1, txid(1, 1))];
        assert_eq!(check(&same_block).0, Ok(Some((5, 3, txid(1, 1)))));
    }

    #[test]
    fn a_transaction_that_cannot_be_read_again_is_an_error_not_a_verdict() {
        let mut txs = vec![(txid_prefix_of(9), 1, 0), (txid_prefix_of(9), 2, 0)];
        let r = repeated_txid(&mut txs, |h, _| if h == 2 { Err("unreadable".into()) } else { Ok([9; 32]) });
        assert_eq!(r, Err("unreadable".to_string()));
    }

    fn txid_prefix_of(b: u8) -> u64 {
        super::super::range::txid_prefix(&[b; 32])
    }
}
