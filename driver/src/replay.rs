// SPDX-License-Identifier: MIT OR Apache-2.0
//! The replay run: a chain of blocks from a source through the chain state, or one block with
//! its spent outputs, into a structured outcome and a result packet. The `replay` binary
//! (command line, progress, summary) and Python's `fullverify.replay` both drive this.
//!
//! A chain run: open the source and the chain state (resumed from its last flush when
//! `datadir` holds one) → skip the source's blocks up to the state's tip → connect block by
//! block (a source that starts at height 1 gets the network's genesis block first) until the
//! source ends, `stop_height` is reached, a block is invalid or a read fails → flush → the
//! state at the tip. Nothing is printed; an [`Observer`] hears of progress.

use crate::metrics::{bands, resources, BlockRecord, Resources};
use crate::report::Packet;
use crate::source::{self, display_name, RawBlock, Source, SourceError};
use crate::spent::{bip34_height, finish_spent, read_spent_early, SpentFormat};
use fullverify::chain::Network;
use fullverify::chainstate::{ChainError, Chainstate, ChainstateOptions, StateSummary};
use fullverify::encode::{display_hex, Block};
use fullverify::utxo::Coin;
use fullverify::validation::{check_decoded_block_with_spent, BlockCheckSummary, BlockError, SigMode};
use fullverify::Backend;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Exit code of a run that stopped at an invalid block.
pub const EXIT_INVALID: u8 = 1;
/// Exit code of a usage error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a source that cannot be read, or of a storage failure.
pub const EXIT_IO: u8 = 3;

/// The flags rustc was given for this build (recorded in the packet's `binary`).
pub const RUSTFLAGS: &str = env!("FULLVERIFY_RUSTFLAGS");

/// Where the blocks come from (`--source KIND PATH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// `magic | u32 LE length | block` records in chain order, maybe compressed.
    Framed,
    /// One hex-encoded block per line, in chain order.
    Hex,
    /// A Bitcoin Core `blocks/` directory; the most-work chain is rebuilt from the headers.
    CoreBlocks,
    /// A corpus written by `chaingen` (blk*.dat in chain order and manifest.json).
    Corpus,
    /// One block, validated with its spent outputs and without its chain.
    Block,
}

impl SourceKind {
    /// Every kind, in the order of [`SourceKind::name`]'s list.
    pub const ALL: [SourceKind; 5] =
        [SourceKind::Framed, SourceKind::Hex, SourceKind::CoreBlocks, SourceKind::Corpus, SourceKind::Block];

    /// The name on the command line and in packets: `framed`, `hex`, `core-blocks`, `corpus`,
    /// `block`.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Framed => "framed",
            SourceKind::Hex => "hex",
            SourceKind::CoreBlocks => "core-blocks",
            SourceKind::Corpus => "corpus",
            SourceKind::Block => "block",
        }
    }

    /// The kind of a block file given without one, for `network`: framed when it starts with
    /// the network's magic or is compressed, hex when its start is hex digits and white space.
    /// A file framed with another network's magic, or neither, is an error that says so.
    pub fn detect(path: &Path, network: Network) -> Result<SourceKind, String> {
        use std::io::Read;
        let magic = network.params().magic;
        let io = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut head = Vec::with_capacity(160);
        std::fs::File::open(path).map_err(io)?.take(160).read_to_end(&mut head).map_err(io)?;
        if head.starts_with(&magic) || source::detect_compression(&head) != source::Compression::None {
            return Ok(SourceKind::Framed);
        }
        if let Some(n) = Network::ALL.iter().find(|n| head.starts_with(&n.params().magic)) {
            return Err(format!("{}: framed {n} blocks, not {network}", path.display()));
        }
        if head.iter().all(|c| c.is_ascii_hexdigit() || c.is_ascii_whitespace()) {
            return Ok(SourceKind::Hex);
        }
        Err(format!(
            "{}: neither framed {network} blocks (magic {}) nor hex blocks one per line",
            path.display(),
            hex::encode(magic)
        ))
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SourceKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SourceKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown source kind {s:?} (framed, hex, core-blocks, corpus or block)"))
    }
}

/// How a replay runs, whatever its source.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The network whose rules apply.
    pub network: Network,
    /// Script-check threads (≥ 1; the calling thread is one of them).
    pub threads: usize,
    /// Signature backend.
    pub backend: Backend,
    /// How signature checks are done (the verdicts are the same in every mode).
    pub sig_mode: SigMode,
    /// UTXO cache budget in MiB.
    pub dbcache_mb: u64,
    /// Also flush every this many blocks.
    pub flush_every: Option<u32>,
    /// Stop after connecting the block at this height.
    pub stop_height: Option<u32>,
    /// Where the chain state lives.
    pub store: Store,
    /// Scripts are not checked up to this block (recorded in the packet); `None`: every one.
    pub assumevalid: Option<[u8; 32]>,
}

impl Settings {
    /// Every core, the best backend this CPU runs and its signature mode, a 450 MiB cache, a
    /// temporary on-disk chain state, every script checked.
    pub fn new(network: Network) -> Settings {
        let backend = Backend::detect();
        Settings {
            network,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            backend,
            sig_mode: SigMode::for_backend(backend),
            dbcache_mb: 450,
            flush_every: None,
            stop_height: None,
            store: Store::Temporary,
            assumevalid: None,
        }
    }

    /// A replay packet with these settings in `params` and `assumevalid`; the caller adds what
    /// it knows of the binary.
    pub fn packet(&self, kind: SourceKind) -> Packet {
        let params = json!({
            "network": self.network.name(),
            "source_kind": kind.name(),
            "dbcache_mb": self.dbcache_mb,
            "flush_every": self.flush_every,
            "stop_height": self.stop_height,
            "resumable_datadir": matches!(self.store, Store::Dir(_)),
            "batch_schnorr": self.sig_mode.batches_schnorr(),
            "sig_mode": self.sig_mode.name(),
        });
        let mut p = Packet::new("replay", self.backend.name(), self.threads, params);
        p.set(
            "assumevalid",
            json!({ "enabled": self.assumevalid.is_some(), "hash": self.assumevalid.map(|h| display_hex(&h)) }),
        );
        p
    }
}

/// Where a chain run keeps its chain state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Store {
    /// A directory of its own, removed at the end.
    Temporary,
    /// This directory: resumed from its last flush, flushed at the end.
    Dir(PathBuf),
    /// In memory (nothing written; no flush limit but the cache budget's).
    Memory,
}

/// Why a run stopped early, or could not start.
#[derive(Debug)]
pub enum Failure {
    /// The arguments do not make a run (exit code 2).
    Usage(String),
    /// The source cannot be read (exit code 3).
    Source(String),
    /// The chain state's store failed (exit code 3).
    Store(String),
    /// A block breaks a consensus rule (exit code 1); `origin` says where the source had it.
    Invalid {
        /// Core's reject reason and where it happened.
        error: Box<BlockError>,
        /// The file and offset of the block in the source, when it came from one.
        origin: Option<String>,
    },
}

impl Failure {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => EXIT_USAGE,
            Failure::Source(_) | Failure::Store(_) => EXIT_IO,
            Failure::Invalid { .. } => EXIT_INVALID,
        }
    }

    /// The packet's `error` object.
    pub fn to_json(&self) -> Value {
        match self {
            Failure::Usage(m) => json!({"kind": "usage", "message": m}),
            Failure::Source(m) => json!({"kind": "source", "message": m}),
            Failure::Store(m) => json!({"kind": "store", "message": m}),
            Failure::Invalid { error: e, .. } => invalid_json(e),
        }
    }
}

impl fmt::Display for Failure {
    /// The line the binary prints: Core's words for an invalid block, `error: …` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(m) | Failure::Source(m) | Failure::Store(m) => write!(f, "error: {m}"),
            Failure::Invalid { error, origin: Some(o) } => write!(f, "{error} (source {o})"),
            Failure::Invalid { error, origin: None } => write!(f, "{error}"),
        }
    }
}

/// The packet's `error` object for an invalid block.
fn invalid_json(e: &BlockError) -> Value {
    json!({
        "kind": "invalid-block",
        "message": e.to_string(),
        "height": e.height,
        "hash": display_hex(&e.hash),
        "reason": e.reason,
        "tx": e.tx.map(|(i, txid)| json!({"index": i, "txid": display_hex(&txid)})),
        "input": e.input,
    })
}

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
    /// Their scripts.
    pub scripts: Duration,
    /// Applying them to the UTXO cache (MuHash included).
    pub apply: Duration,
    /// Flushing the chain state.
    pub flush: Duration,
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
    /// The process's resource usage at the end.
    pub resources: Resources,
    /// What was read from the source.
    pub source: SourceStats,
    /// Why the run stopped before the source's end, if it did.
    pub failure: Option<Failure>,
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
            }),
        );
        p.set(
            "phases",
            json!({
                "open_s": self.open.as_secs_f64(),
                "read_parse_s": (t.read + t.parse).as_secs_f64(),
                "fetch_s": t.fetch.as_secs_f64(),
                "scripts_s": t.scripts.as_secs_f64(),
                "apply_s": t.apply.as_secs_f64(),
                "flush_s": t.flush.as_secs_f64(),
            }),
        );
        if let Some(f) = &self.failure {
            p.set("error", f.to_json());
        }
        p
    }
}

/// The packet's `state`: height, tip (display hex), UTXO count, total amount, MuHash.
pub fn summary_json(s: &StateSummary) -> Value {
    json!({
        "height": s.height,
        "tip": s.tip.map(|h| display_hex(&h)),
        "utxo_count": s.utxo_count,
        "total_amount": s.total_amount,
        "muhash": s.muhash,
    })
}

/// Serializes a block (BIP144 form when it has witnesses).
pub fn block_bytes(b: &Block) -> Vec<u8> {
    let mut v = b.header.to_bytes().to_vec();
    fullverify::encode::write_compact_size(&mut v, b.txdata.len() as u64);
    for tx in &b.txdata {
        v.extend_from_slice(&tx.to_bytes(true));
    }
    v
}

/// Opens a chain source of `kind` for `network`.
pub fn open_source(kind: SourceKind, path: &Path, network: Network) -> Result<Source, SourceError> {
    let params = network.params();
    match kind {
        SourceKind::Framed => source::framed(path, params.magic),
        SourceKind::Hex => source::hex_lines(path),
        SourceKind::Corpus => source::corpus(path, params.magic),
        SourceKind::CoreBlocks | SourceKind::Block => {
            source::core_blocks(path, params.magic, params.genesis_hash)
        }
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
    let mut src = open_source(kind, path, settings.network).map_err(|e| Failure::Source(e.to_string()))?;
    let opts = ChainstateOptions {
        network: settings.network,
        threads: settings.threads,
        dbcache_bytes: (settings.dbcache_mb as usize) << 20,
        backend: settings.backend,
        assumevalid: settings.assumevalid,
        flush_every_blocks: settings.flush_every,
        sig_mode: settings.sig_mode,
    };
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
    let (mut bytes_read, mut blocks_read) = (0u64, 0u64);
    // Blocks of the source that are already in the state are skipped until the tip is found.
    let mut waiting_for_tip = resumed_from.map(|(_, h)| h);
    let mut failure: Option<Failure> = None;
    let mut last = Instant::now();
    loop {
        if let (Some(stop), Some((h, _))) = (settings.stop_height, cs.tip()) {
            if h >= stop {
                break;
            }
        }
        let t_read = Instant::now();
        let next = src.next();
        t.read += t_read.elapsed();
        let raw: RawBlock = match next {
            None => break,
            Some(Ok(b)) => b,
            Some(Err(e)) => {
                failure = Some(Failure::Source(e.to_string()));
                break;
            }
        };
        digest.update(&raw.bytes);
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
        if cs.tip().is_none() && raw.prev_hash() != [0; 32] {
            // A source that starts at height 1: connect the network's genesis block first.
            let genesis = block_bytes(&settings.network.params().genesis_block());
            if let Err(e) = connect(&mut cs, &genesis, &mut t, observer, &mut last) {
                failure = Some(e);
                break;
            }
        }
        if let Err(mut e) = connect(&mut cs, &raw.bytes, &mut t, observer, &mut last) {
            if let Failure::Invalid { origin, .. } = &mut e {
                *origin = Some(raw.origin.to_string());
            }
            failure = Some(e);
            break;
        }
    }
    observer.finish();
    if failure.is_none() {
        if let Some(tip) = waiting_for_tip {
            failure = Some(Failure::Source(format!(
                "the source does not contain the state's tip {} (nor its child); is it the same chain?",
                display_hex(&tip)
            )));
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
    let wall = start.elapsed();
    let summary = cs.summary();
    drop(cs);
    Ok(ChainOutcome {
        kind,
        path: path.to_path_buf(),
        summary,
        resumed_from: resumed_from.map(|(h, _)| h),
        totals: t,
        open,
        wall,
        resources: resources(wall),
        source: SourceStats { blocks_read, bytes_read, sha256: hex::encode(digest.finalize()) },
        failure,
    })
}

/// Connects one block and records its numbers.
fn connect(
    cs: &mut Chainstate,
    bytes: &[u8],
    t: &mut Totals,
    observer: &mut dyn Observer,
    last: &mut Instant,
) -> Result<(), Failure> {
    match cs.connect_block(bytes) {
        Ok(s) => {
            let height = cs.tip().map_or(0, |(h, _)| h);
            // The coinbase's single input spends nothing: count the inputs that spend coins.
            let inputs = s.inputs.saturating_sub(1) as u64;
            t.blocks += 1;
            t.txs += s.txs as u64;
            t.inputs += inputs;
            t.parse += s.parse;
            t.fetch += s.fetch;
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

/// A single block to validate without its chain, and where its spent outputs are.
#[derive(Clone, Debug)]
pub struct BlockRun {
    /// The block: raw, framed with any network's magic, or compressed.
    pub path: PathBuf,
    /// The outputs its inputs spend.
    pub spent: PathBuf,
    /// The format of `spent`; `None`: detected.
    pub spent_format: Option<SpentFormat>,
    /// The block's height; `None`: read from the coinbase (BIP34).
    pub height: Option<u32>,
}

/// The result of [`run_block`].
#[derive(Debug)]
pub struct BlockOutcome {
    /// What was run.
    pub run: BlockRun,
    /// The block's hash.
    pub hash: [u8; 32],
    /// Its height.
    pub height: u32,
    /// Its transactions.
    pub txs: usize,
    /// Its non-coinbase inputs (as many spent outputs were given).
    pub inputs: usize,
    /// The block's size in bytes, as read.
    pub bytes: usize,
    /// SHA-256 of the block's bytes, hex.
    pub sha256: String,
    /// The format the spent outputs were read in.
    pub spent_format: SpentFormat,
    /// Whether the spent-output file gave every coin's height and coinbase flag.
    pub heights_known: bool,
    /// Reading and decoding the block and its spent outputs.
    pub read: Duration,
    /// The whole run.
    pub wall: Duration,
    /// The process's resource usage at the end.
    pub resources: Resources,
    /// The checks' summary, or why the block is invalid.
    pub result: Result<BlockCheckSummary, BlockError>,
}

impl BlockOutcome {
    /// 0, or [`EXIT_INVALID`].
    pub fn exit_code(&self) -> u8 {
        if self.result.is_ok() {
            0
        } else {
            EXIT_INVALID
        }
    }

    /// The replay packet of a single block (`source.kind = "block"`).
    pub fn packet(&self, settings: &Settings) -> Packet {
        let mut p = settings.packet(SourceKind::Block);
        p.set(
            "source",
            json!({
                "kind": "block",
                "path": display_name(&self.run.path),
                "blocks_read": 1,
                "bytes_read": self.bytes,
                "sha256": self.sha256,
                "spent": {
                    "path": display_name(&self.run.spent),
                    "format": self.spent_format.name(),
                    "sha256": crate::metrics::file_sha256(&self.run.spent).ok(),
                    "heights_known": self.heights_known,
                },
            }),
        );
        p.set("resources", &self.resources);
        p.set("tip", display_hex(&self.hash));
        let secs = |d: Duration| d.as_secs_f64();
        match &self.result {
            Ok(s) => {
                let w = self.wall.as_secs_f64().max(1e-9);
                p.set(
                    "block",
                    json!({
                        "hash": display_hex(&s.hash),
                        "height": self.height,
                        "txs": s.txs,
                        "inputs": s.inputs,
                        "fees": s.fees,
                        "sigops_cost": s.sigops_cost,
                        "coinbase_value": s.coinbase_value,
                        "subsidy": s.subsidy,
                    }),
                );
                p.set(
                    "metrics",
                    json!({
                        "blocks": 1,
                        "txs": s.txs,
                        "inputs": s.inputs,
                        "wall_s": w,
                        "inputs_per_s": s.inputs as f64 / w,
                        "blocks_per_s": 1.0 / w,
                        "bands": [],
                    }),
                );
                p.set(
                    "phases",
                    json!({
                        "read_parse_s": secs(self.read + s.parse),
                        "fetch_s": 0.0,
                        "checks_s": secs(s.checks),
                        "scripts_s": secs(s.scripts),
                        "checks_beside_scripts": s.checks_beside_scripts,
                        "apply_s": 0.0,
                        "flush_s": 0.0,
                    }),
                );
            }
            Err(e) => {
                p.set(
                    "metrics",
                    json!({
                        "blocks": 0,
                        "txs": self.txs,
                        "inputs": self.inputs,
                        "wall_s": self.wall.as_secs_f64(),
                        "inputs_per_s": 0.0,
                        "blocks_per_s": 0.0,
                        "bands": [],
                    }),
                );
                p.set(
                    "phases",
                    json!({"read_parse_s": secs(self.read), "fetch_s": 0.0, "scripts_s": 0.0, "apply_s": 0.0, "flush_s": 0.0}),
                );
                p.set("error", invalid_json(e));
            }
        }
        p
    }
}

/// Reads a single block: raw, framed with any network's magic, or compressed.
pub fn read_single_block(path: &Path) -> Result<Vec<u8>, String> {
    let data = source::read_maybe_compressed(path).map_err(|e| e.to_string())?;
    let magics: Vec<[u8; 4]> = Network::ALL.iter().map(|n| n.params().magic).collect();
    if data.len() >= 8 && magics.iter().any(|m| data[..4] == m[..]) {
        let len = u32::from_le_bytes(data[4..8].try_into().expect("4 bytes")) as usize;
        return data.get(8..8 + len).map(<[u8]>::to_vec).ok_or_else(|| {
            format!("{}: truncated block record: {} of {len} bytes", display_name(path), data.len() - 8)
        });
    }
    Ok(data)
}

/// Validates one block with its spent outputs (`settings`' network, threads, backend and
/// signature mode; the chain settings do not apply). `Err`: the block or its spent outputs
/// could not be read, or its height is unknown; an invalid block is an `Ok` outcome.
pub fn run_block(run: &BlockRun, settings: &Settings) -> Result<BlockOutcome, Failure> {
    let start = Instant::now();
    let threads = settings.threads;
    // With two or more threads the spent-output file is read (decompressed, and decoded where
    // the format allows) on a second thread while this one reads and decodes the block; that
    // thread is the helper the script checks use next.
    let read_block = || {
        read_single_block(&run.path).and_then(|raw| match Block::from_bytes(&raw) {
            Ok(b) => Ok((raw, b)),
            Err(e) => Err(format!("{}: not a block: {e}", display_name(&run.path))),
        })
    };
    let (block_read, early) =
        fullverify::crew::join(threads, read_block, || read_spent_early(&run.spent, run.spent_format));
    let (raw, block) = block_read.map_err(Failure::Source)?;
    let (spent, format) = early.and_then(|e| finish_spent(&run.spent, e, &block)).map_err(Failure::Source)?;
    let read = start.elapsed();
    let height = run.height.or_else(|| bip34_height(&block)).ok_or_else(|| {
        Failure::Usage("the block states no height in its coinbase (before BIP34); pass --height H".into())
    })?;
    let heights_known = spent.iter().all(|s| s.height.is_some());
    let coins: Vec<Coin> = spent
        .into_iter()
        .map(|s| Coin { out: s.txout, height: s.height.unwrap_or(0), coinbase: s.coinbase.unwrap_or(false) })
        .collect();
    let result = check_decoded_block_with_spent(
        &block,
        &coins,
        height,
        settings.network,
        threads,
        settings.backend,
        settings.sig_mode,
    );
    let wall = start.elapsed();
    Ok(BlockOutcome {
        run: run.clone(),
        hash: block.block_hash(),
        height,
        txs: block.txdata.len(),
        inputs: coins.len(),
        bytes: raw.len(),
        sha256: hex::encode(Sha256::digest(&raw)),
        spent_format: format,
        heights_known,
        read,
        wall,
        resources: resources(wall),
        result,
    })
}
