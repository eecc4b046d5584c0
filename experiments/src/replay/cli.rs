// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `replay` command line.

use super::malloc::MallocArg;
use clap::{Parser, ValueEnum};
use fullverify::chain::Network;
use fullverify::chainstate::MuhashPolicy;
use fullverify::validation::SigMode;
use fullverify::Backend;
use std::path::PathBuf;

/// `--spent-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SpentFormatArg {
    /// floresta's JSON array.
    Floresta,
    /// bcoin's undo records.
    Bcoin,
    /// btcd's utxostore.
    Btcd,
    /// Detected from the file.
    Auto,
}

/// `--mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Block after block through the chain state (the UTXO set looked up and updated).
    Sequential,
    /// BIP 457 SwiftSync: headers first, then every block on its own with its coins from the
    /// undo data and a hints file; needs --hints and --source core-blocks or corpus.
    Swiftsync,
}

/// `--fallback`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FallbackArg {
    /// Stop at the aggregate mismatch.
    None,
    /// After an aggregate mismatch, replay the chain sequentially to name the first bad block.
    Sequential,
}

/// Validate Bitcoin blocks with every consensus rule and every signature, and write a result
/// packet (JSON) with the final state, timings and provenance.
#[derive(Parser, Debug)]
#[command(
    name = "replay",
    version,
    after_help = "\
SOURCES (--source KIND PATH):
  framed FILE        records `magic | u32 LE length | block` with the network's magic, in chain
                     order; the file may be bzip2-, zstd- or gzip-compressed
  hex FILE           one hex-encoded block per line, in chain order
  core-blocks DIR    a Bitcoin Core blocks/ directory: blk*.dat files (xor.dat obfuscation
                     undone); the most-work chain from genesis is rebuilt from the headers
  corpus DIR         a corpus written by `chaingen` (blk*.dat in chain order, rev*.dat of
                     their undo data, manifest.json); regtest; inputs/s are reported per
                     era and the final state is compared with the manifest's
  block FILE         one block (raw, framed, or compressed) validated with its spent outputs
                     from --spent, without a chain
A chain source that starts at height 1 is preceded by the network's genesis block.

SWIFTSYNC (--mode swiftsync --hints FILE --source core-blocks|corpus DIR [--threads N]):
  BIP 457, fully validating: the headers are checked first, in order (proof of work,
  retargets, median time past, time limit); then every block is validated on its own, in
  ranges taken by N workers in any order, with the coins it spends from the rev*.dat undo
  records beside the blk files (matched to the block by their checksum over the parent's
  hash) and a BIP 456 hints file saying which outputs are unspent at its terminal height
  (the tip of the chain). A salted hash aggregate of every spent coin must equal that of
  every output the hints call spent; then the hinted outputs are the UTXO set, and its
  count, total and MuHash are computed once. A per-block failure is reported as in the
  sequential replay (the lowest failing height); a mismatch of the aggregate is
  `swiftsync: the hints or the undo data do not match the chain` (exit code 1), and
  --fallback sequential then replays the chain block after block. Packet:
  results/swiftsync/<run-id>.json.
  A corpus carries its undo data: `chaingen --profile P --write-hints FILE` gives the hints.
  Making the inputs from any chain source: `replay --source KIND PATH --write-hints FILE
  --write-blocks DIR` writes the tip's hints file and a Core-shaped blocks directory.
Without --source: the `default` chaingen corpus (seed 20090103) in
target/chaingen/default-20090103-v<format>/ of the repository, generated first when it is not
there (about 2,000 regtest blocks and 300,000 inputs).

EXIT CODES:
  0 success; 1 an invalid block (the state of the last valid block is flushed and written to
  the packet); 2 a usage error; 3 a source that cannot be read, or a storage failure."
)]
pub struct Cli {
    /// Block source: KIND PATH with KIND one of framed, hex, core-blocks, corpus, block.
    #[arg(long, num_args = 2, value_names = ["KIND", "PATH"])]
    pub source: Option<Vec<String>>,

    /// Network: mainnet, testnet3 (alias testnet), testnet4, signet, regtest. Default: regtest
    /// for a corpus (and without --source), mainnet otherwise.
    #[arg(long, value_parser = parse_network)]
    pub network: Option<Network>,

    /// Chain-state directory; a later run with the same directory resumes from its last flush.
    /// Default: a temporary directory, removed at the end.
    #[arg(long, value_name = "DIR")]
    pub datadir: Option<PathBuf>,

    /// Script-check threads. Default: all logical CPUs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Memory budget of the chain state in MiB (Core's -dbcache): what the store keeps in
    /// memory (a block cache of an eighth, at most 8 MiB, and its filters) comes off it, the
    /// rest is for the coins cache and the flush it writes in the background; the cache is
    /// flushed to the datadir at half of that.
    #[arg(long, value_name = "MB", default_value_t = 450, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub dbcache: u64,

    /// Also flush the state every N blocks (bounds the work lost to a crash).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub flush_every: Option<u32>,

    /// Stop after connecting the block at this height.
    #[arg(long, value_name = "H")]
    pub stop_height: Option<u32>,

    /// `none` (default: every signature is checked) or a block hash (display hex) up to which
    /// scripts are not checked; anything but `none` is recorded in the packet.
    #[arg(long, value_name = "none|HASH", default_value = "none", value_parser = parse_assumevalid)]
    pub assumevalid: AssumeValid,

    /// Signature backend: portable, asm, avx2, ifma. Default: the best one this CPU runs.
    #[arg(long, value_parser = parse_backend)]
    pub backend: Option<Backend>,

    /// How signatures are checked: `inline` (each when its script reaches it), `many` (each
    /// block's ECDSA and BIP340 checks outside CHECKMULTISIG recorded while its scripts run,
    /// then verified eight at a time with verify_many on the ifma and avx2 backends; inputs with
    /// a failed check are run again exactly). Default: `many` on the ifma and avx2 backends,
    /// `inline` otherwise.
    /// Verdicts and reported failures are the same in every mode.
    #[arg(long, value_name = "inline|many", value_parser = parse_sig_checks)]
    pub sig_checks: Option<SigMode>,

    /// When the UTXO set's MuHash3072 is computed: `final` (once, over the final set, in
    /// parallel: the cost follows the set's size), `incremental` (per block, every coin created
    /// or spent: the cost follows the chain's history) or `off` (never). The value is the same
    /// under `final` and `incremental`; the packet records the policy and the time spent.
    #[arg(long, value_name = "final|incremental|off", default_value = "final", value_parser = parse_muhash)]
    pub muhash: MuhashPolicy,

    /// Read each next block, decode it, run CheckBlock on it and read the coins it spends
    /// after the block before it has connected, instead of beside that block's scripts (the
    /// block pipeline, on by default). Verdicts and states are the same either way.
    #[arg(long)]
    pub no_read_ahead: bool,

    /// How many steps of priority (nice) below the validating threads the on-disk chain
    /// state's background threads run on Linux (the flush writer, fjall's memtable flushes and
    /// compactions); 0 for the same priority
    #[arg(long, value_name = "N", default_value_t = fullverify::chainstate::DEFAULT_BACKGROUND_NICE,
          value_parser = clap::value_parser!(u8).range(0..=19))]
    pub background_nice: u8,

    /// Verify each block's BIP340 signatures in batches after its scripts ran; any failure
    /// is re-checked input by input, so verdicts and reported failures do not change.
    #[arg(long)]
    pub batch_schnorr: bool,

    /// Where to write the packet. Default: results/replay/<run-id>.json in the repository.
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,

    /// With `--source block`: the spent outputs of the block's inputs.
    #[arg(long, value_name = "FILE")]
    pub spent: Option<PathBuf>,

    /// With `--source block`: format of --spent.
    #[arg(long, value_enum, default_value = "auto")]
    pub spent_format: SpentFormatArg,

    /// With `--source block`: the block's height. Default: read from the coinbase (BIP34).
    #[arg(long, value_name = "H")]
    pub height: Option<u32>,

    /// Settings of the system allocator (glibc): `tuned` grows the heap 64 MiB at a time,
    /// serves blocks under 32 MiB from the heap and returns memory only above 256 MiB, so that
    /// threads rarely wait on the kernel's address-space lock, and gives free pages back
    /// (malloc_trim) whenever the resident set passes --dbcache plus an eighth; `default` keeps
    /// glibc's. Recorded in the packet; no effect with mimalloc or another C library.
    #[arg(long, value_enum, default_value = "tuned")]
    pub malloc: MallocArg,

    /// `sequential` (default) or `swiftsync` (see SWIFTSYNC below).
    #[arg(long, value_enum, default_value = "sequential")]
    pub mode: ModeArg,

    /// With `--mode swiftsync`: the BIP 456 hints file (its terminal height is the chain's tip).
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,

    /// With `--mode swiftsync`: what follows an aggregate mismatch (`none` or `sequential`).
    #[arg(long, value_enum, default_value = "none")]
    pub fallback: FallbackArg,

    /// After a replay that ends without a failure: write the BIP 456 hints file of the tip
    /// (every block's counted outputs that are still unspent) to FILE.
    #[arg(long, value_name = "FILE")]
    pub write_hints: Option<PathBuf>,

    /// While replaying from genesis: write a Bitcoin Core-shaped blocks directory to DIR
    /// (blk*.dat, rev*.dat undo records, xor.dat; DIR must not hold block files yet), which
    /// `--source core-blocks` and `--mode swiftsync` read.
    #[arg(long, value_name = "DIR")]
    pub write_blocks: Option<PathBuf>,

    /// No progress display and no summary (errors, and notes of input the source skipped, are
    /// still printed).
    #[arg(long)]
    pub quiet: bool,
}

/// `--assumevalid`: `None` checks every script.
#[derive(Clone, Copy, Debug)]
pub struct AssumeValid(pub Option<[u8; 32]>);

fn parse_network(s: &str) -> Result<Network, String> {
    s.parse::<Network>().map_err(|e| e.to_string())
}

fn parse_sig_checks(s: &str) -> Result<SigMode, String> {
    match s {
        "inline" => Ok(SigMode::Inline),
        "many" => Ok(SigMode::Many),
        _ => Err(format!("{s:?}: expected inline or many (BIP340 batching is --batch-schnorr)")),
    }
}

fn parse_muhash(s: &str) -> Result<MuhashPolicy, String> {
    MuhashPolicy::parse_name(s).map_err(|e| e.to_string())
}

fn parse_backend(s: &str) -> Result<Backend, String> {
    // Parsing a `Backend` checks the CPU and the build: the error says what is missing.
    s.parse::<Backend>().map_err(|e| e.to_string())
}

fn parse_assumevalid(s: &str) -> Result<AssumeValid, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(AssumeValid(None));
    }
    let mut h: [u8; 32] = hex::decode(s)
        .ok()
        .and_then(|v| v.try_into().ok())
        .ok_or_else(|| format!("{s:?} is neither `none` nor a 64-digit block hash"))?;
    h.reverse();
    Ok(AssumeValid(Some(h)))
}
