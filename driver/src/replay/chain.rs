// SPDX-License-Identifier: MIT OR Apache-2.0
//! A chain replay: a source's blocks connected one by one through the chain state, resumed from
//! its last flush, into a [`ChainOutcome`] and its packet.

use super::ahead::{Ahead, ReadAhead};
use super::write::{write_tip_hints, BlocksOut, Written};
use super::{block_bytes, summary_json, Failure, Settings, SourceKind, Store};
use crate::metrics::{bands, baseline, resources_since, BlockRecord, Resources};
use crate::report::Packet;
use crate::source::{self, display_name, RawBlock, Source, SourceError};
use fullverify::chain::Network;
use fullverify::chainstate::{ChainError, Chainstate, ConnectStats, Prefetch, PreparedBlock, StateSummary};
use fullverify::encode::display_hex;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a chain run tells its caller while it runs (every method does nothing by default).
pub trait Observer {
    /// The chain state was resumed after `height` from `datadir`.
    fn resumed(&mut self, _height: u32, _datadir: &Path) {}
    /// Blocks are about to be connected; `total` is how many, when the source knows.
    fn start(&mut self, _total: Option<u64>) {}
    /// The block at `height`, spending `inputs` coins, was connected.
    fn block(&mut self, _height: u32, _inputs: u64) {}
    /// No more blocks will be connected.
    fn finish(&mut self) {}
}

impl Observer for () {}

/// Counts and phase times of a chain run.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Blocks connected.
    pub blocks: u64,
    /// Transactions in them.
    pub txs: u64,
    /// Inputs that spend a coin (the coinbase's input does not).
    pub inputs: u64,
    /// Reading blocks from the source.
    pub read: Duration,
    /// Decoding them.
    pub parse: Duration,
    /// Fetching the coins they spend.
    pub fetch: Duration,
    /// The part of `fetch` that BIP30's lookups of their own outputs took.
    pub bip30: Duration,
    /// Their scripts.
    pub scripts: Duration,
    /// Applying them to the UTXO cache (MuHash included).
    pub apply: Duration,
    /// Flushing the chain state.
    pub flush: Duration,
    /// Computing the set's MuHash at the end (the final policy's pass over the set).
    pub muhash: Duration,
    /// One record per connected block.
    pub records: Vec<BlockRecord>,
}

/// What a chain run read from its source.
#[derive(Clone, Debug)]
pub struct SourceStats {
    /// Blocks read (those skipped up to a resumed tip included).
    pub blocks_read: u64,
    /// Their bytes.
    pub bytes_read: u64,
    /// SHA-256 of those bytes, block after block, hex.
    pub sha256: String,
    /// What the source passed over instead of failing, with file and offset ([`Notes`]).
    ///
    /// [`Notes`]: crate::source::Notes
    pub notes: Vec<String>,
}

/// The result of [`run_chain`].
#[derive(Debug)]
pub struct ChainOutcome {
    /// The source kind.
    pub kind: SourceKind,
    /// The source path.
    pub path: PathBuf,
    /// The state at the tip (after the last valid block), as flushed.
    pub summary: StateSummary,
    /// The height the state was resumed after, if it was.
    pub resumed_from: Option<u32>,
    /// Counts and phase times.
    pub totals: Totals,
    /// Opening the chain state.
    pub open: Duration,
    /// The whole run.
    pub wall: Duration,
    /// The resources the run used: CPU times and peak resident set from its start (what the
    /// process did before, such as generating the corpus, is left out; see
    /// [`crate::metrics::baseline`]).
    pub resources: Resources,
    /// What was read from the source.
    pub source: SourceStats,
    /// The crews' waiting during the run (spinning and parking of the worker threads).
    pub crew: fullverify::crew::Stats,
    /// Why the run stopped before the source's end, if it did.
    pub failure: Option<Failure>,
    /// The hints file and blocks directory written, if asked for.
    pub written: Written,
}

impl ChainOutcome {
    /// 0, or the failure's exit code.
    pub fn exit_code(&self) -> u8 {
        self.failure.as_ref().map_or(0, Failure::exit_code)
    }

    /// The replay packet: `settings`' params, the source, the state, resources, metrics with
    /// per-band rates, the phase split and the error, if any.
    pub fn packet(&self, settings: &Settings) -> Packet {
        let mut p = settings.packet(self.kind);
        let (t, wall) = (&self.totals, self.wall);
        let rate = |x: u64| if wall.as_secs_f64() > 0.0 { x as f64 / wall.as_secs_f64() } else { 0.0 };
        p.set(
            "source",
            json!({
                "kind": self.kind.name(),
                "path": display_name(&self.path),
                "blocks_read": self.source.blocks_read,
                "bytes_read": self.source.bytes_read,
                "sha256": self.source.sha256,
                "notes": self.source.notes,
                "resumed_from_height": self.resumed_from,
            }),
        );
        p.set("tip", self.summary.tip.map(|h| display_hex(&h)));
        p.set("state", summary_json(&self.summary));
        p.set("resources", &self.resources);
        p.set(
            "metrics",
            json!({
                "blocks": t.blocks,
                "txs": t.txs,
                "inputs": t.inputs,
                "wall_s": wall.as_secs_f64(),
                "inputs_per_s": rate(t.inputs),
                "blocks_per_s": rate(t.blocks),
                "bands": bands(&t.records),
                "crew": crew_json(&self.crew),
            }),
        );
        p.set(
            "phases",
            json!({
                "open_s": self.open.as_secs_f64(),
                "read_parse_s": (t.read + t.parse).as_secs_f64(),
                "fetch_s": t.fetch.as_secs_f64(),
                "bip30_s": t.bip30.as_secs_f64(),
                "scripts_s": t.scripts.as_secs_f64(),
                "apply_s": t.apply.as_secs_f64(),
                "flush_s": t.flush.as_secs_f64(),
                "muhash_s": t.muhash.as_secs_f64(),
            }),
        );
        if settings.write != Default::default() {
            let w = &settings.write;
            p.set("written", self.written.to_json(w.hints.as_deref(), w.blocks.as_deref()));
        }
        if let Some(f) = &self.failure {
            p.set("error", f.to_json());
        }
        p
    }
}

/// The crews' waiting as the packet's `metrics.crew`.
fn crew_json(c: &fullverify::crew::Stats) -> serde_json::Value {
    json!({
        "jobs": c.jobs,
        "caller_spin_s": c.caller_spin_ns as f64 * 1e-9,
        "caller_parks": c.caller_parks,
        "helper_spin_s": c.helper_spin_ns as f64 * 1e-9,
        "helper_parks": c.helper_parks,
        "idle_units": c.idle_units,
        "idle_s": c.idle_ns as f64 * 1e-9,
        "let_off": c.let_off,
    })
}

/// Opens a chain source of `kind` for `network`.
pub fn open_source(kind: SourceKind, path: &Path, network: Network) -> Result<Source, SourceError> {
    let params = network.params();
    match kind {
        SourceKind::Framed => source::framed(path, params.magic),
        SourceKind::Hex => source::hex_lines(path),
        SourceKind::Corpus => source::corpus(path, params.magic),
        SourceKind::CoreBlocks | SourceKind::Block => source::core_blocks(path, params),
    }
}

/// A temporary state directory, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Replays the chain of `kind` at `path` with `settings`. `Err`: the run could not start (the
/// source or the chain state could not be opened); a run that started returns its outcome,
/// with the failure that stopped it, if any, and the state flushed.
pub fn run_chain(
    kind: SourceKind,
    path: &Path,
    settings: &Settings,
    observer: &mut dyn Observer,
) -> Result<ChainOutcome, Failure> {
    if kind == SourceKind::Block {
        return Err(Failure::Usage("a single block is validated with run_block, not as a chain".into()));
    }
    let start = Instant::now();
    let before = baseline();
    let crew_before = fullverify::crew::stats();
    let src = open_source(kind, path, settings.chain.network).map_err(|e| Failure::Source(e.to_string()))?;
    let opts = settings.chain.clone();
    let (datadir, _temp) = match &settings.store {
        Store::Dir(d) => (Some(d.clone()), None),
        Store::Memory => (None, None),
        Store::Temporary => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let d = std::env::temp_dir().join(format!("fullverify-replay-{}-{nanos}", std::process::id()));
            (Some(d.clone()), Some(TempDir(d)))
        }
    };
    let t_open = Instant::now();
    let mut cs = match &datadir {
        None => Chainstate::open_in_memory(opts),
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| Failure::Store(format!("{}: {e}", d.display())))?;
            Chainstate::open(d, opts)
                .map_err(|e| Failure::Store(format!("opening the chain state in {}: {e}", d.display())))?
        }
    };
    let open = t_open.elapsed();
    let resumed_from = cs.tip();
    let mut blocks_out = match &settings.write.blocks {
        Some(_) if resumed_from.is_some() => {
            return Err(Failure::Usage("--write-blocks needs a run from genesis, not a resumed state".into()))
        }
        Some(dir) => Some(BlocksOut::create(dir, settings.chain.network)?),
        None => None,
    };
    if let (Some((h, _)), Some(d)) = (resumed_from, &datadir) {
        observer.resumed(h, d);
    }
    let total = match (resumed_from, src.total) {
        (None, Some(t)) => Some(settings.stop_height.map_or(t, |s| t.min(u64::from(s) + 1))),
        _ => None,
    };
    observer.start(total);
    let mut t = Totals::default();
    let mut digest = Sha256::new();
    let (params, backend) = (settings.chain.network.params(), settings.chain.backend);
    // With two or more workers, the crew's helper reads and prepares blocks while this thread
    // applies a block and connects the next one's inputs (see `ahead`).
    let reader = Ahead::new(src, params, backend, settings.read_ahead && settings.chain.threads >= 2);
    let (mut bytes_read, mut blocks_read) = (0u64, 0u64);
    // Blocks of the source that are already in the state are skipped until the tip is found.
    let mut waiting_for_tip = resumed_from.map(|(_, h)| h);
    let mut failure: Option<Failure> = None;
    let mut last = Instant::now();
    // The next block, read, prepared and its coins read ahead beside the scripts of the one
    // before; `None` when it was not (the first block, or after a skipped one).
    let mut ahead: Option<ReadAhead> = None;
    loop {
        let tip_height = cs.tip().map(|(h, _)| h);
        if let (Some(stop), Some(h)) = (settings.stop_height, tip_height) {
            if h >= stop {
                break;
            }
        }
        let ReadAhead { next, prepared, read, digest_after } = match ahead.take() {
            Some(a) => a,
            None => reader.take(false),
        };
        t.read += read;
        let raw: RawBlock = match next {
            None => break,
            Some(Ok(b)) => b,
            Some(Err(e)) => {
                failure = Some(Failure::Source(e.to_string()));
                break;
            }
        };
        if let Some(d) = digest_after {
            digest = d;
        }
        bytes_read += raw.bytes.len() as u64;
        blocks_read += 1;
        if let Some(tip) = waiting_for_tip {
            if raw.hash() == tip {
                waiting_for_tip = None;
                last = Instant::now();
                continue;
            }
            if raw.prev_hash() != tip {
                continue;
            }
            waiting_for_tip = None;
        }
        if tip_height.is_none() && raw.prev_hash() != [0; 32] {
            // A source that starts at height 1: connect the network's genesis block first.
            let genesis = block_bytes(&params.genesis_block());
            let p = cs.prepare(&genesis);
            let r = cs_connect(&mut cs, p, |_| ()).0;
            if let Err(e) = record(&cs, r, &mut t, observer, &mut last) {
                failure = Some(e);
                break;
            }
            if let Some(out) = &mut blocks_out {
                if let Err(e) = out.connected(&genesis, 0, None) {
                    failure = Some(e);
                    break;
                }
            }
        }
        let height = cs.tip().map_or(0, |(h, _)| h + 1);
        let undo = blocks_out.as_ref().and_then(|o| o.undo_before(&mut cs, &raw.bytes, height));
        let prepared = prepared.unwrap_or_else(|| cs.prepare(&raw.bytes));
        // Beside this block's scripts: the next block is read, decoded, put through CheckBlock,
        // and the coins it spends read into the cache, unless this block is the last wanted.
        let last_wanted = !settings.read_ahead
            || settings.stop_height.is_some_and(|s| cs.tip().map_or(0, |(h, _)| h + 1) >= s);
        reader.activate();
        let (r, next_ahead) = cs_connect(&mut cs, prepared, |prefetch| {
            if last_wanted {
                return None;
            }
            // Prepared: here, or by the idle work that read it.
            let a = reader.take(true);
            if let Some(p) = &a.prepared {
                prefetch.block(p);
            }
            Some(a)
        });
        if let Err(mut e) = record(&cs, r, &mut t, observer, &mut last) {
            if let Failure::Invalid { origin, .. } = &mut e {
                *origin = Some(raw.origin.to_string());
            }
            failure = Some(e);
            break;
        }
        if let Some(out) = &mut blocks_out {
            if let Err(e) = out.connected(&raw.bytes, height, undo.as_ref()) {
                failure = Some(e);
                break;
            }
        }
        ahead = next_ahead.flatten();
    }
    observer.finish();
    let src_notes = reader.into_source().notes.lines();
    if failure.is_none() {
        if let Some(tip) = waiting_for_tip {
            failure = Some(Failure::Source(format!(
                "the source does not contain the state's tip {} (nor its child); is it the same chain?",
                display_hex(&tip)
            )));
        }
    }
    let mut written = Written::default();
    if let Some(out) = blocks_out {
        match out.finish() {
            Ok(w) => written.blocks = Some(w),
            Err(f) if failure.is_none() => failure = Some(f),
            Err(f) => eprintln!("{f}"),
        }
    }
    let t_flush = Instant::now();
    let flushed = cs.flush();
    t.flush += t_flush.elapsed();
    if let Err(e) = flushed {
        let f = Failure::Store(format!("flushing the chain state: {e}"));
        match failure {
            None => failure = Some(f),
            // The first failure is the one reported; this one is still worth a line.
            Some(_) => eprintln!("{f}"),
        }
    }
    match cs.compute_muhash() {
        Ok(d) => t.muhash = d,
        Err(e) => {
            let f = Failure::Store(format!("reading the UTXO set for its MuHash: {e}"));
            match failure {
                None => failure = Some(f),
                Some(_) => eprintln!("{f}"),
            }
        }
    }
    if let (Some(out), None) = (&settings.write.hints, &failure) {
        match write_tip_hints(&mut cs, kind, path, settings.chain.network, out) {
            Ok(w) => written.hints = Some(w),
            Err(f) => failure = Some(f),
        }
    }
    if let (Some(Failure::Store(m)), Some(d)) = (&failure, &datadir) {
        failure = Some(Failure::Store(store_failure(d, m)));
    }
    let wall = start.elapsed();
    let summary = cs.summary();
    if settings.leave_store_open && _temp.is_none() {
        // Everything it holds is synced: the process's exit is its close. What a close would
        // save for the next opening is saved first (a failure only costs that opening time).
        let _ = cs.save_for_reopening();
        std::mem::forget(cs);
    } else {
        drop(cs);
    }
    Ok(ChainOutcome {
        kind,
        path: path.to_path_buf(),
        summary,
        resumed_from: resumed_from.map(|(h, _)| h),
        totals: t,
        open,
        wall,
        resources: resources_since(&before, wall),
        source: SourceStats {
            blocks_read,
            bytes_read,
            sha256: hex::encode(digest.finalize()),
            notes: src_notes,
        },
        crew: fullverify::crew::stats().since(&crew_before),
        failure,
        written,
    })
}

/// A store failure's message with the datadir it happened in and, when the datadir's file
/// system now refuses a small write, why (a full disk, a read-only file system): the store's
/// own error can be only that it stopped after a failed write (fjall: `Poisoned`).
fn store_failure(datadir: &Path, message: &str) -> String {
    let probe = datadir.join(".fullverify-write-probe");
    let why = match std::fs::write(&probe, [0u8; 64 << 10]) {
        Ok(()) => String::new(),
        Err(e) => format!("; the datadir refuses writes: {e}"),
    };
    let _ = std::fs::remove_file(&probe);
    format!("the chain state in {}: {message}{why}", datadir.display())
}

/// [`Chainstate::connect_prepared`] (a function, so the side job's closure type is inferred).
fn cs_connect<T: Send>(
    cs: &mut Chainstate,
    p: PreparedBlock,
    beside: impl FnOnce(&mut Prefetch<'_>) -> T + Send,
) -> (Result<ConnectStats, ChainError>, Option<T>) {
    cs.connect_prepared(p, beside)
}

/// Records a connected block's numbers, or turns its error into the run's failure.
fn record(
    cs: &Chainstate,
    r: Result<ConnectStats, ChainError>,
    t: &mut Totals,
    observer: &mut dyn Observer,
    last: &mut Instant,
) -> Result<(), Failure> {
    match r {
        Ok(s) => {
            let height = cs.tip().map_or(0, |(h, _)| h);
            // The coinbase's single input spends nothing: count the inputs that spend coins.
            let inputs = s.inputs.saturating_sub(1) as u64;
            t.blocks += 1;
            t.txs += s.txs as u64;
            t.inputs += inputs;
            t.parse += s.parse;
            t.fetch += s.fetch;
            t.bip30 += s.bip30;
            t.scripts += s.scripts;
            t.apply += s.apply;
            t.flush += s.flush;
            let now = Instant::now();
            t.records.push(BlockRecord {
                height,
                txs: s.txs as u32,
                inputs: inputs as u32,
                seconds: (now - *last).as_secs_f64(),
            });
            *last = now;
            observer.block(height, inputs);
            Ok(())
        }
        Err(ChainError::Invalid(error)) => Err(Failure::Invalid { error: Box::new(error), origin: None }),
        Err(e) => Err(Failure::Store(e.to_string())),
    }
}
