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

mod ahead;
mod block;
mod chain;
mod write;

pub use block::{read_single_block, run_block, BlockOutcome, BlockRun};
pub use chain::{open_source, run_chain, ChainOutcome, Observer, SourceStats, Totals};
pub use write::{write_tip_hints, Written};

use crate::report::Packet;
use crate::source;
use fullverify::chain::Network;
use fullverify::chainstate::{ChainstateOptions, StateSummary};
use fullverify::encode::{display_hex, Block};
use fullverify::validation::BlockError;
use serde_json::{json, Value};
use std::fmt;
use std::path::{Path, PathBuf};

/// Exit code of a run that stopped at an invalid block.
pub const EXIT_INVALID: u8 = 1;
/// Exit code of a usage error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a source that cannot be read, or of a storage failure.
pub const EXIT_IO: u8 = 3;

/// The flags rustc was given for this build (recorded in the packet's `binary`).
pub const RUSTFLAGS: &str = env!("FULLVERIFY_RUSTFLAGS");

fullverify::named_enum! {
    /// Where the blocks come from (`--source KIND PATH`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum SourceKind as "source kind" {
        /// `magic | u32 LE length | block` records in chain order, maybe compressed.
        Framed => "framed",
        /// One hex-encoded block per line, in chain order.
        Hex => "hex",
        /// A Bitcoin Core `blocks/` directory; the most-work chain is rebuilt from the headers.
        CoreBlocks => "core-blocks",
        /// A corpus written by `chaingen` (blk*.dat in chain order and manifest.json).
        Corpus => "corpus",
        /// One block, validated with its spent outputs and without its chain.
        Block => "block",
    }
}

impl SourceKind {
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

/// How a replay runs, whatever its source.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The chain state's options: network, threads, backend, signature mode, cache budget,
    /// flush interval, assumevalid (a single block uses the first four).
    pub chain: ChainstateOptions,
    /// Stop after connecting the block at this height.
    pub stop_height: Option<u32>,
    /// Where the chain state lives.
    pub store: Store,
    /// Whether the next block is read, prepared and its coins read ahead beside each block's
    /// scripts (the block pipeline); off, each block is read after the one before connects.
    pub read_ahead: bool,
    /// What a chain run writes besides its packet.
    pub write: WriteOut,
    /// Leave a chain-state directory open when the run returns (after its final flush, which
    /// is synced), for a process that exits right after: closing a fjall keyspace waits for its
    /// monitor thread, which wakes every 250 ms, and does nothing the exit does not. A
    /// temporary store is closed and removed all the same. Never set this where the process
    /// may open the same directory again.
    pub leave_store_open: bool,
}

/// Files a chain run writes besides its packet (`--write-hints`, `--write-blocks`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteOut {
    /// The BIP 456 hints file of the tip, written after a run that ended without a failure.
    pub hints: Option<PathBuf>,
    /// A Core-shaped blocks directory (blk, rev, xor.dat), written as blocks connect; the
    /// directory must not hold block files yet.
    pub blocks: Option<PathBuf>,
}

impl Settings {
    /// [`ChainstateOptions::new`]'s defaults, a temporary on-disk chain state, no stop height,
    /// reading ahead.
    pub fn new(network: Network) -> Settings {
        Settings {
            chain: ChainstateOptions::new(network),
            stop_height: None,
            store: Store::Temporary,
            read_ahead: true,
            write: WriteOut::default(),
            leave_store_open: false,
        }
    }

    /// A replay packet with these settings in `params` and `assumevalid`; the caller adds what
    /// it knows of the binary.
    pub fn packet(&self, kind: SourceKind) -> Packet {
        let c = &self.chain;
        let params = json!({
            "network": c.network.name(),
            "source_kind": kind.name(),
            "dbcache_mb": c.dbcache_bytes >> 20,
            "flush_every": c.flush_every_blocks,
            "stop_height": self.stop_height,
            "resumable_datadir": matches!(self.store, Store::Dir(_)),
            "batch_schnorr": c.sig_mode.batches_schnorr(),
            "sig_mode": c.sig_mode.name(),
            "muhash": c.muhash.name(),
            "background_nice": c.background_nice,
            "read_ahead": self.read_ahead,
            "mode": "sequential",
            "write_hints": self.write.hints.is_some(),
            "write_blocks": self.write.blocks.is_some(),
        });
        let mut p = Packet::new("replay", c.backend.name(), c.threads, params);
        p.set(
            "assumevalid",
            json!({ "enabled": c.assumevalid.is_some(), "hash": c.assumevalid.map(|h| display_hex(&h)) }),
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
    /// SwiftSync: the aggregate did not balance, or a block's undo record or hints did not fit
    /// it (exit code 1): the hints or the undo data are not the chain's. What was seen first.
    Mismatch(String),
}

impl Failure {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => EXIT_USAGE,
            Failure::Source(_) | Failure::Store(_) => EXIT_IO,
            Failure::Invalid { .. } | Failure::Mismatch(_) => EXIT_INVALID,
        }
    }

    /// The packet's `error` object.
    pub fn to_json(&self) -> Value {
        match self {
            Failure::Usage(m) => json!({"kind": "usage", "message": m}),
            Failure::Source(m) => json!({"kind": "source", "message": m}),
            Failure::Store(m) => json!({"kind": "store", "message": m}),
            Failure::Invalid { error: e, .. } => invalid_json(e),
            Failure::Mismatch(detail) => json!({
                "kind": "swiftsync-mismatch",
                "message": crate::swiftsync::MISMATCH,
                "detail": detail,
            }),
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
            Failure::Mismatch(detail) => write!(f, "{} ({detail})", crate::swiftsync::MISMATCH),
        }
    }
}

/// The packet's `error` object for an invalid block.
pub(crate) fn invalid_json(e: &BlockError) -> Value {
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
