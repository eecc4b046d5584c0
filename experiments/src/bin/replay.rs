// SPDX-License-Identifier: MIT OR Apache-2.0
//! `replay`: validates a chain of blocks from genesis (or one block with its spent outputs) with
//! every rule and every signature, and writes a result packet.
//!
//! Pipeline per block: read from the source → parse → context-free and contextual checks →
//! fetch the spent coins → scripts in parallel → apply to the UTXO cache and MuHash → periodic
//! crash-consistent flush. The state in `--datadir` survives the process: a later run with the
//! same datadir resumes after the last flushed block, skipping the blocks of the source that
//! are already connected.
//!
//! Exit codes: 0 success, 1 an invalid block (the state of the last valid block is flushed and
//! reported), 2 a usage error, 3 a source that cannot be read or a storage failure.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use fullverify::chain::Network;
use fullverify::chainstate::{ChainError, Chainstate, ChainstateOptions, StateSummary};
use fullverify::encode::{display_hex, Block};
use fullverify::utxo::Coin;
use fullverify::validation::{check_decoded_block_with_spent, SigMode};
use fullverify::Backend;
use fullverify_experiments::chaingen::{self, Manifest, Profile, DEFAULT_SEED};
use fullverify_experiments::replay::packet::{bands, file_sha256, resources, BlockRecord, Resources};
use fullverify_experiments::replay::progress::Progress;
use fullverify_experiments::replay::source::{self, display_name, RawBlock, Source};
use fullverify_experiments::replay::spent::{bip34_height, finish_spent, read_spent_early, SpentFormat};
use fullverify_experiments::report::{results_dir, Packet};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The global allocator this binary was built with (`--features mimalloc`), for the packet.
const ALLOCATOR: &str = if cfg!(feature = "mimalloc") { "mimalloc" } else { "system" };

/// `--malloc`: the settings of glibc's allocator (the system allocator on GNU/Linux).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MallocArg {
    Tuned,
    Default,
}

/// glibc's malloc parameters set by `--malloc tuned`: grow the heap 64 MiB at a time, serve
/// blocks under 32 MiB (glibc's largest threshold) from the heap instead of their own
/// mappings, and give memory back only above 256 MiB at the top. Each `brk`, `mmap`,
/// `munmap` and arena `mprotect` takes the process's address-space lock for writing; a
/// thread whose page fault waits on that lock sleeps, and on a virtual machine a sleeping
/// thread was measured to wake up to a scheduler tick (4 ms) late.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
const MALLOC_TUNED: [(&str, libc::c_int, libc::c_int); 3] = [
    ("top_pad", libc::M_TOP_PAD, 64 << 20),
    ("mmap_threshold", libc::M_MMAP_THRESHOLD, 32 << 20),
    ("trim_threshold", libc::M_TRIM_THRESHOLD, 256 << 20),
];

/// What `--malloc` did, for the packet (`null` where it does not apply: mimalloc, or a C
/// library other than glibc).
static MALLOC: std::sync::OnceLock<Value> = std::sync::OnceLock::new();

/// Applies `--malloc` (before any other thread starts) and returns what the packet records.
fn apply_malloc(arg: MallocArg) -> Value {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
    {
        let mut values = serde_json::Map::new();
        if arg == MallocArg::Tuned {
            for (name, param, value) in MALLOC_TUNED {
                // SAFETY: mallopt only sets one of glibc's malloc parameters (under its own
                // lock); it returns 1 when the value was taken.
                let taken = unsafe { libc::mallopt(param, value) } == 1;
                values.insert(name.to_string(), if taken { json!(value) } else { Value::Null });
            }
        }
        let settings = if arg == MallocArg::Tuned { "tuned" } else { "default" };
        json!({ "library": "glibc", "settings": settings, "values": values })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc"))))]
    {
        let _ = arg;
        Value::Null
    }
}

const EXIT_INVALID: u8 = 1;
const EXIT_IO: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SpentFormatArg {
    Floresta,
    Bcoin,
    Btcd,
    Auto,
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
  corpus DIR         a corpus written by `chaingen` (blk*.dat in chain order and
                     manifest.json); regtest; inputs/s are reported per era
  block FILE         one block (raw, framed, or compressed) validated with its spent outputs
                     from --spent, without a chain
A chain source that starts at height 1 is preceded by the network's genesis block.
Without --source: the `default` chaingen corpus (seed 20090103) in
target/chaingen/default-20090103-v<format>/ of the repository, generated first when it is not
there (about 2,000 regtest blocks and 300,000 inputs).

EXIT CODES:
  0 success; 1 an invalid block (the state of the last valid block is flushed and written to
  the packet); 2 a usage error; 3 a source that cannot be read, or a storage failure."
)]
struct Cli {
    /// Block source: KIND PATH with KIND one of framed, hex, core-blocks, corpus, block.
    #[arg(long, num_args = 2, value_names = ["KIND", "PATH"])]
    source: Option<Vec<String>>,

    /// Network: mainnet, testnet3 (alias testnet), testnet4, signet, regtest. Default: regtest
    /// for a corpus (and without --source), mainnet otherwise.
    #[arg(long, value_parser = parse_network)]
    network: Option<Network>,

    /// Chain-state directory; a later run with the same directory resumes from its last flush.
    /// Default: a temporary directory, removed at the end.
    #[arg(long, value_name = "DIR")]
    datadir: Option<PathBuf>,

    /// Script-check threads. Default: all logical CPUs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// UTXO cache budget in MiB; the cache is flushed to the datadir when it is exceeded.
    #[arg(long, value_name = "MB", default_value_t = 450, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    dbcache: u64,

    /// Also flush the state every N blocks (bounds the work lost to a crash).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    flush_every: Option<u32>,

    /// Stop after connecting the block at this height.
    #[arg(long, value_name = "H")]
    stop_height: Option<u32>,

    /// `none` (default: every signature is checked) or a block hash (display hex) up to which
    /// scripts are not checked; anything but `none` is recorded in the packet.
    #[arg(long, value_name = "none|HASH", default_value = "none", value_parser = parse_assumevalid)]
    assumevalid: AssumeValid,

    /// Signature backend: portable, asm, ifma. Default: the best one this CPU runs.
    #[arg(long, value_parser = parse_backend)]
    backend: Option<Backend>,

    /// How signatures are checked: `inline` (each when its script reaches it), `many` (each
    /// block's ECDSA and BIP340 checks outside CHECKMULTISIG recorded while its scripts run,
    /// then verified eight at a time with verify_many on the ifma backend; inputs with a failed
    /// check are run again exactly). Default: `many` on the ifma backend, `inline` otherwise.
    /// Verdicts and reported failures are the same in every mode.
    #[arg(long, value_name = "inline|many", value_parser = parse_sig_checks)]
    sig_checks: Option<SigMode>,

    /// Verify each block's BIP340 signatures in batches after its scripts ran; any failure
    /// is re-checked input by input, so verdicts and reported failures do not change.
    #[arg(long)]
    batch_schnorr: bool,

    /// Where to write the packet. Default: results/replay/<run-id>.json in the repository.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,

    /// With `--source block`: the spent outputs of the block's inputs.
    #[arg(long, value_name = "FILE")]
    spent: Option<PathBuf>,

    /// With `--source block`: format of --spent.
    #[arg(long, value_enum, default_value = "auto")]
    spent_format: SpentFormatArg,

    /// With `--source block`: the block's height. Default: read from the coinbase (BIP34).
    #[arg(long, value_name = "H")]
    height: Option<u32>,

    /// Settings of the system allocator (glibc): `tuned` grows the heap 64 MiB at a time,
    /// serves blocks under 32 MiB from the heap and returns memory only above 256 MiB, so that
    /// threads rarely wait on the kernel's address-space lock; `default` keeps glibc's.
    /// Recorded in the packet; no effect with mimalloc or another C library.
    #[arg(long, value_enum, default_value = "tuned")]
    malloc: MallocArg,

    /// No progress display and no summary (errors are still printed).
    #[arg(long)]
    quiet: bool,
}

impl Cli {
    /// The network in force (see `--network`).
    fn net(&self) -> Network {
        self.network.unwrap_or(Network::Mainnet)
    }

    /// The signature mode in force for `backend` (see `--sig-checks` and `--batch-schnorr`).
    fn sig_mode(&self, backend: Backend) -> SigMode {
        self.sig_checks
            .unwrap_or_else(|| SigMode::for_backend(backend))
            .with_batch_schnorr(self.batch_schnorr)
    }
}

#[derive(Clone, Copy, Debug)]
struct AssumeValid(Option<[u8; 32]>);

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

/// Exits with a usage error (code 2) in clap's format.
fn usage_error(msg: impl std::fmt::Display) -> ! {
    Cli::command().error(ErrorKind::ValueValidation, msg).exit()
}

/// The repository root (the parent of this package), fixed at compile time.
fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The default corpus in `target/chaingen/` of the repository, generated when absent.
fn default_corpus(threads: usize, quiet: bool) -> std::io::Result<PathBuf> {
    struct Note(bool, Instant);
    impl chaingen::Observer for Note {
        fn block(&mut self, height: u32, inputs: u64) {
            if !self.0 && height.is_multiple_of(500) {
                eprintln!(
                    "chaingen: height {height}, {inputs} inputs, {:.1} s",
                    self.1.elapsed().as_secs_f64()
                );
            }
        }
    }
    let root = repo_root().join("target").join("chaingen");
    let dir = chaingen::cache_dir(&root, Profile::Default, DEFAULT_SEED);
    if !quiet && Manifest::read(&dir).is_err() {
        eprintln!("replay: generating the default corpus into {} (once)", dir.display());
    }
    let t0 = Instant::now();
    let (dir, _, generated) =
        chaingen::ensure_corpus(&root, Profile::Default, DEFAULT_SEED, threads, &mut Note(quiet, t0))?;
    if generated && !quiet {
        eprintln!("chaingen: done in {:.1} s", t0.elapsed().as_secs_f64());
    }
    Ok(dir)
}

/// A temporary state directory, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Counters of a run.
#[derive(Default)]
struct Totals {
    blocks: u64,
    txs: u64,
    inputs: u64,
    read: Duration,
    parse: Duration,
    fetch: Duration,
    scripts: Duration,
    apply: Duration,
    flush: Duration,
    records: Vec<BlockRecord>,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn summary_json(s: &StateSummary) -> Value {
    json!({
        "height": s.height,
        "tip": s.tip.map(|h| display_hex(&h)),
        "utxo_count": s.utxo_count,
        "total_amount": s.total_amount,
        "muhash": s.muhash,
    })
}

fn binary_sha256() -> Option<String> {
    std::env::current_exe().ok().and_then(|p| file_sha256(&p).ok())
}

fn new_packet(cli: &Cli, backend: Backend, threads: usize, kind: &str) -> Packet {
    let params = json!({
        "network": cli.net().name(),
        "source_kind": kind,
        "dbcache_mb": cli.dbcache,
        "flush_every": cli.flush_every,
        "stop_height": cli.stop_height,
        "resumable_datadir": cli.datadir.is_some(),
        "batch_schnorr": cli.batch_schnorr,
        "sig_mode": cli.sig_mode(backend).name(),
    });
    let mut p = Packet::new("replay", backend.name(), threads, params);
    p.set(
        "binary",
        json!({
            "name": "replay",
            "sha256": binary_sha256(),
            "rustflags": env!("FULLVERIFY_RUSTFLAGS"),
        }),
    );
    p.set("allocator", ALLOCATOR);
    p.set("malloc", MALLOC.get().cloned().unwrap_or(Value::Null));
    p.set(
        "assumevalid",
        json!({ "enabled": cli.assumevalid.0.is_some(), "hash": cli.assumevalid.0.map(|h| display_hex(&h)) }),
    );
    p
}

fn write_packet(cli: &Cli, p: &Packet) -> Result<PathBuf, String> {
    match &cli.json {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            let mut text = serde_json::to_string_pretty(&p.to_json()).expect("json");
            text.push('\n');
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(path.clone())
        }
        None => p.write(&results_dir()).map_err(|e| format!("writing the packet: {e}")),
    }
}

fn finish_packet(cli: &Cli, p: &Packet) -> bool {
    match write_packet(cli, p) {
        Ok(path) => {
            if !cli.quiet {
                eprintln!("packet: {}", path.display());
            }
            true
        }
        Err(e) => {
            eprintln!("error: {e}");
            false
        }
    }
}

/// Serializes a block (BIP144 form when it has witnesses).
fn block_bytes(b: &Block) -> Vec<u8> {
    let mut v = b.header.to_bytes().to_vec();
    fullverify::encode::write_compact_size(&mut v, b.txdata.len() as u64);
    for tx in &b.txdata {
        v.extend_from_slice(&tx.to_bytes(true));
    }
    v
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    MALLOC.get_or_init(|| apply_malloc(cli.malloc));
    let threads = cli
        .threads
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
    let backend = cli.backend.unwrap_or_else(Backend::detect);
    let kind = cli.source.as_ref().map_or_else(|| "corpus".to_string(), |v| v[0].clone());
    let kind = kind.as_str();
    if !matches!(kind, "block" | "framed" | "hex" | "core-blocks" | "corpus") {
        usage_error(format!("unknown source kind {kind:?} (framed, hex, core-blocks, corpus or block)"));
    }
    if kind != "block" && (cli.spent.is_some() || cli.height.is_some()) {
        usage_error("--spent and --height apply only to --source block");
    }
    if kind == "block"
        && (cli.datadir.is_some()
            || cli.stop_height.is_some()
            || cli.flush_every.is_some()
            || cli.assumevalid.0.is_some())
    {
        usage_error("--datadir, --stop-height, --flush-every and --assumevalid apply only to chain sources");
    }
    if kind == "corpus" {
        if cli.network.is_some_and(|n| n != Network::Regtest) {
            if cli.source.is_none() {
                usage_error("the default source is a regtest corpus; pass --source for other networks");
            }
            usage_error("a chaingen corpus is a regtest chain (--network regtest)");
        }
        cli.network = Some(Network::Regtest);
    }
    let path = match &cli.source {
        Some(v) => PathBuf::from(&v[1]),
        None => match default_corpus(threads, cli.quiet) {
            Ok(dir) => dir,
            Err(e) => {
                eprintln!("error: generating the default corpus: {e}");
                return ExitCode::from(EXIT_IO);
            }
        },
    };
    let cli = cli;
    if !path.exists() {
        usage_error(format!("source {}: no such file or directory", path.display()));
    }
    let code = match kind {
        "block" => run_block(&cli, &path, threads, backend),
        "framed" | "hex" | "core-blocks" | "corpus" => run_chain(&cli, kind, &path, threads, backend),
        other => {
            usage_error(format!("unknown source kind {other:?} (framed, hex, core-blocks, corpus or block)"))
        }
    };
    ExitCode::from(code)
}

fn open_source(kind: &str, path: &Path, network: Network) -> Result<Source, source::SourceError> {
    let params = network.params();
    match kind {
        "framed" => source::framed(path, params.magic),
        "hex" => source::hex_lines(path),
        "corpus" => source::corpus(path, params.magic),
        _ => source::core_blocks(path, params.magic, params.genesis_hash),
    }
}

fn run_chain(cli: &Cli, kind: &str, path: &Path, threads: usize, backend: Backend) -> u8 {
    let start = Instant::now();
    let mut src = match open_source(kind, path, cli.net()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_IO;
        }
    };
    let (datadir, _temp) = match &cli.datadir {
        Some(d) => (d.clone(), None),
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let d = std::env::temp_dir().join(format!("fullverify-replay-{}-{nanos}", std::process::id()));
            (d.clone(), Some(TempDir(d)))
        }
    };
    if let Err(e) = std::fs::create_dir_all(&datadir) {
        eprintln!("error: {}: {e}", datadir.display());
        return EXIT_IO;
    }
    let opts = ChainstateOptions {
        network: cli.net(),
        threads,
        dbcache_bytes: (cli.dbcache as usize) << 20,
        backend,
        assumevalid: cli.assumevalid.0,
        flush_every_blocks: cli.flush_every,
        sig_mode: cli.sig_mode(backend),
    };
    let t_open = Instant::now();
    let opened = Chainstate::open(&datadir, opts);
    let open_s = t_open.elapsed();
    let mut cs = match opened {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: opening the chain state in {}: {e}", datadir.display());
            return EXIT_IO;
        }
    };
    let resumed_from = cs.tip();
    if let (Some((h, _)), false) = (resumed_from, cli.quiet) {
        eprintln!("replay: resuming after height {h} from {}", datadir.display());
    }
    if let (Some(stop), Some((h, _))) = (cli.stop_height, resumed_from) {
        if h >= stop {
            eprintln!("replay: the state is already at height {h}, at or past --stop-height {stop}");
        }
    }
    let total = match (resumed_from, src.total) {
        (None, Some(t)) => Some(cli.stop_height.map_or(t, |s| t.min(u64::from(s) + 1))),
        _ => None,
    };
    let mut progress = Progress::new(total, cli.quiet);
    let mut packet = new_packet(cli, backend, threads, kind);
    let mut t = Totals::default();
    let mut digest = Sha256::new();
    let mut source_bytes = 0u64;
    let mut source_blocks = 0u64;
    // Blocks of the source that are already in the state are skipped until the tip is found.
    let mut waiting_for_tip = resumed_from.map(|(_, h)| h);
    let mut failure: Option<(u8, String, Value)> = None;
    let mut last = Instant::now();
    loop {
        if let (Some(stop), Some((h, _))) = (cli.stop_height, cs.tip()) {
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
                failure = Some((
                    EXIT_IO,
                    format!("error: {e}"),
                    json!({"kind": "source", "message": e.to_string()}),
                ));
                break;
            }
        };
        digest.update(&raw.bytes);
        source_bytes += raw.bytes.len() as u64;
        source_blocks += 1;
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
            let genesis = block_bytes(&cli.net().params().genesis_block());
            if let Err(e) = connect(&mut cs, &genesis, &mut t, &mut progress, &mut last) {
                failure = Some(e);
                break;
            }
        }
        if let Err(mut e) = connect(&mut cs, &raw.bytes, &mut t, &mut progress, &mut last) {
            e.1 = format!("{} (source {})", e.1, raw.origin);
            failure = Some(e);
            break;
        }
    }
    progress.finish();
    if failure.is_none() {
        if let Some(tip) = waiting_for_tip {
            failure = Some((
                EXIT_IO,
                format!(
                    "error: the source does not contain the state's tip {} (nor its child); is it the same chain?",
                    display_hex(&tip)
                ),
                json!({"kind": "source", "message": "the source does not connect to the state's tip"}),
            ));
        }
    }
    let t_flush = Instant::now();
    let flushed = cs.flush();
    t.flush += t_flush.elapsed();
    if let Err(e) = flushed {
        let msg = format!("error: flushing the chain state: {e}");
        if failure.is_none() {
            failure = Some((EXIT_IO, msg, json!({"kind": "store", "message": e.to_string()})));
        } else {
            eprintln!("{msg}");
        }
    }
    let wall = start.elapsed();
    let summary = cs.summary();
    drop(cs);
    let res = resources(wall);
    let rate = |x: u64| if wall.as_secs_f64() > 0.0 { x as f64 / wall.as_secs_f64() } else { 0.0 };
    packet.set(
        "source",
        json!({
            "kind": kind,
            "path": display_name(path),
            "blocks_read": source_blocks,
            "bytes_read": source_bytes,
            "sha256": hex::encode(digest.finalize()),
            "resumed_from_height": resumed_from.map(|(h, _)| h),
        }),
    );
    packet.set("tip", summary.tip.map(|h| display_hex(&h)));
    packet.set("state", summary_json(&summary));
    packet.set("resources", &res);
    packet.set(
        "metrics",
        json!({
            "blocks": t.blocks,
            "txs": t.txs,
            "inputs": t.inputs,
            "wall_s": secs(wall),
            "inputs_per_s": rate(t.inputs),
            "blocks_per_s": rate(t.blocks),
            "bands": bands(&t.records),
        }),
    );
    let corpus = if kind == "corpus" { Manifest::read(path).ok() } else { None };
    let eras = corpus.as_ref().map(|m| era_rates(m, &t.records));
    let mut state_matches = false;
    if let Some(m) = &corpus {
        let st = &m.expected_state;
        state_matches = failure.is_none()
            && summary.tip.map(|h| display_hex(&h)) == Some(m.tip.clone())
            && summary.utxo_count == st.utxo_count
            && summary.total_amount == st.total_amount
            && summary.muhash == st.muhash;
        packet.set(
            "corpus",
            json!({
                "generator": m.generator,
                "format_version": m.format_version,
                "profile": m.profile,
                "seed": m.seed,
                "tip_height": m.tip_height,
                "sha256": m.sha256,
                "expected_state": st,
                "state_matches_manifest": state_matches,
            }),
        );
        packet.set("eras", eras.clone());
    }
    packet.set(
        "phases",
        json!({
            "open_s": secs(open_s),
            "read_parse_s": secs(t.read + t.parse),
            "fetch_s": secs(t.fetch),
            "scripts_s": secs(t.scripts),
            "apply_s": secs(t.apply),
            "flush_s": secs(t.flush),
        }),
    );
    let code = match &failure {
        Some((code, msg, err)) => {
            eprintln!("{msg}");
            packet.set("error", err);
            *code
        }
        None => 0,
    };
    if !cli.quiet {
        print_summary(&t, open_s, wall, &summary, &res);
        for e in eras.iter().flatten() {
            eprintln!(
                "era {:8} heights {:>6}..={:<6} {:>9} inputs in {:>8.3} s: {:>9.0} inputs/s",
                e["name"].as_str().unwrap_or(""),
                e["first_height"],
                e["last_height"],
                e["inputs"],
                e["seconds"].as_f64().unwrap_or(0.0),
                e["inputs_per_s"].as_f64().unwrap_or(0.0)
            );
        }
        if let Some(m) = &corpus {
            let ok = state_matches;
            eprintln!(
                "corpus: {} profile, seed {}: final state {} the manifest",
                m.profile.name(),
                m.seed,
                if ok { "equals" } else { "DIFFERS FROM" }
            );
        }
    }
    if !finish_packet(cli, &packet) && code == 0 {
        return EXIT_IO;
    }
    code
}

/// Inputs, time and inputs/s per era of a corpus, from the per-block records.
fn era_rates(m: &Manifest, records: &[BlockRecord]) -> Vec<Value> {
    m.eras
        .iter()
        .map(|e| {
            let (mut inputs, mut seconds, mut blocks) = (0u64, 0f64, 0u64);
            for r in records.iter().filter(|r| (e.first_height..=e.last_height).contains(&r.height)) {
                inputs += u64::from(r.inputs);
                seconds += r.seconds;
                blocks += 1;
            }
            json!({
                "name": e.name,
                "first_height": e.first_height,
                "last_height": e.last_height,
                "blocks": blocks,
                "inputs": inputs,
                "seconds": seconds,
                "inputs_per_s": if seconds > 0.0 { inputs as f64 / seconds } else { 0.0 },
            })
        })
        .collect()
}

/// Connects one block and records its numbers; on failure returns (exit code, message,
/// packet `error`).
fn connect(
    cs: &mut Chainstate,
    bytes: &[u8],
    t: &mut Totals,
    progress: &mut Progress,
    last: &mut Instant,
) -> Result<(), (u8, String, Value)> {
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
            progress.block(height, inputs);
            Ok(())
        }
        Err(ChainError::Invalid(e)) => {
            let err = json!({
                "kind": "invalid-block",
                "message": e.to_string(),
                "height": e.height,
                "hash": display_hex(&e.hash),
                "reason": e.reason,
                "tx": e.tx.map(|(i, txid)| json!({"index": i, "txid": display_hex(&txid)})),
                "input": e.input,
            });
            Err((EXIT_INVALID, e.to_string(), err))
        }
        Err(e) => Err((EXIT_IO, format!("error: {e}"), json!({"kind": "store", "message": e.to_string()}))),
    }
}

fn btc(sat: i64) -> String {
    format!("{}.{:08}", sat / 100_000_000, (sat % 100_000_000).abs())
}

fn print_summary(t: &Totals, open_s: Duration, wall: Duration, s: &StateSummary, r: &Resources) {
    let w = wall.as_secs_f64().max(1e-9);
    eprintln!(
        "replay: {} blocks, {} txs, {} inputs in {:.3} s: {:.1} blocks/s, {:.0} inputs/s (user {:.2} s, sys {:.2} s, peak RSS {} MiB)",
        t.blocks,
        t.txs,
        t.inputs,
        w,
        t.blocks as f64 / w,
        t.inputs as f64 / w,
        r.user_s,
        r.sys_s,
        r.peak_rss_bytes >> 20
    );
    eprintln!(
        "phases: open {:.3} s, read+parse {:.3} s, fetch {:.3} s, scripts {:.3} s, apply {:.3} s, flush {:.3} s",
        secs(open_s),
        secs(t.read + t.parse),
        secs(t.fetch),
        secs(t.scripts),
        secs(t.apply),
        secs(t.flush)
    );
    match (s.height, s.tip) {
        (Some(h), Some(tip)) => eprintln!(
            "state: height {h}, tip {}, {} UTXOs, {} BTC, MuHash {}",
            display_hex(&tip),
            s.utxo_count,
            btc(s.total_amount),
            s.muhash
        ),
        _ => eprintln!("state: empty (no block connected)"),
    }
}

/// Reads a single block: raw, framed with any network's magic, or compressed.
fn read_single_block(path: &Path) -> Result<Vec<u8>, String> {
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

fn run_block(cli: &Cli, path: &Path, threads: usize, backend: Backend) -> u8 {
    let start = Instant::now();
    let Some(spent_path) = &cli.spent else { usage_error("--source block needs --spent FILE") };
    if !spent_path.exists() {
        usage_error(format!("--spent {}: no such file", spent_path.display()));
    }
    let t_read = Instant::now();
    let format = match cli.spent_format {
        SpentFormatArg::Floresta => Some(SpentFormat::Floresta),
        SpentFormatArg::Bcoin => Some(SpentFormat::Bcoin),
        SpentFormatArg::Btcd => Some(SpentFormat::Btcd),
        SpentFormatArg::Auto => None,
    };
    // With two or more threads the spent-output file is read (decompressed, and decoded where
    // the format allows) on a second thread while this one reads and decodes the block; that
    // thread is the helper the script checks use next.
    let read_block = || {
        read_single_block(path).and_then(|raw| match Block::from_bytes(&raw) {
            Ok(b) => Ok((raw, b)),
            Err(e) => Err(format!("{}: not a block: {e}", display_name(path))),
        })
    };
    let (block_read, early) =
        fullverify::crew::join(threads, read_block, || read_spent_early(spent_path, format));
    let (raw, block) = match block_read {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_IO;
        }
    };
    let (spent, format) = match early.and_then(|e| finish_spent(spent_path, e, &block)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_IO;
        }
    };
    // Reading the block and its spent outputs (decompression and decoding included).
    let read_s = t_read.elapsed();
    let Some(height) = cli.height.or_else(|| bip34_height(&block)) else {
        usage_error("the block states no height in its coinbase (before BIP34); pass --height H")
    };
    let heights_known = spent.iter().all(|s| s.height.is_some());
    let coins: Vec<Coin> = spent
        .into_iter()
        .map(|s| Coin { out: s.txout, height: s.height.unwrap_or(0), coinbase: s.coinbase.unwrap_or(false) })
        .collect();
    let result = check_decoded_block_with_spent(
        &block,
        &coins,
        height,
        cli.net(),
        threads,
        backend,
        cli.sig_mode(backend),
    );
    let wall = start.elapsed();
    let res = resources(wall);
    let mut packet = new_packet(cli, backend, threads, "block");
    let mut digest = Sha256::new();
    digest.update(&raw);
    packet.set(
        "source",
        json!({
            "kind": "block",
            "path": display_name(path),
            "blocks_read": 1,
            "bytes_read": raw.len(),
            "sha256": hex::encode(digest.finalize()),
            "spent": {
                "path": display_name(spent_path),
                "format": format.name(),
                "sha256": file_sha256(spent_path).ok(),
                "heights_known": heights_known,
            },
        }),
    );
    packet.set("resources", &res);
    let hash = block.block_hash();
    packet.set("tip", display_hex(&hash));
    let code = match result {
        Ok(s) => {
            let w = wall.as_secs_f64().max(1e-9);
            packet.set(
                "block",
                json!({
                    "hash": display_hex(&s.hash),
                    "height": height,
                    "txs": s.txs,
                    "inputs": s.inputs,
                    "fees": s.fees,
                    "sigops_cost": s.sigops_cost,
                    "coinbase_value": s.coinbase_value,
                    "subsidy": s.subsidy,
                }),
            );
            packet.set(
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
            packet.set(
                "phases",
                json!({
                    "read_parse_s": secs(read_s + s.parse),
                    "fetch_s": 0.0,
                    "checks_s": secs(s.checks),
                    "scripts_s": secs(s.scripts),
                    "checks_beside_scripts": s.checks_beside_scripts,
                    "apply_s": 0.0,
                    "flush_s": 0.0,
                }),
            );
            if !cli.quiet {
                eprintln!(
                    "block {} at height {height}: valid; {} txs, {} inputs, fees {} sat, sigops cost {}",
                    display_hex(&s.hash),
                    s.txs,
                    s.inputs,
                    s.fees,
                    s.sigops_cost
                );
                let beside =
                    if s.checks_beside_scripts { " (the checks ran beside the scripts)" } else { "" };
                eprintln!(
                    "time: {:.3} s wall ({:.0} inputs/s); checks {:.3} s, scripts {:.3} s{beside}, reading and decoding the block and its spent outputs {:.3} s",
                    w,
                    s.inputs as f64 / w,
                    secs(s.checks),
                    secs(s.scripts),
                    secs(read_s)
                );
            }
            0
        }
        Err(e) => {
            eprintln!("{e}");
            let w = wall.as_secs_f64();
            let inputs = coins.len();
            packet.set(
                "metrics",
                json!({
                    "blocks": 0,
                    "txs": block.txdata.len(),
                    "inputs": inputs,
                    "wall_s": w,
                    "inputs_per_s": 0.0,
                    "blocks_per_s": 0.0,
                    "bands": [],
                }),
            );
            packet.set(
                "phases",
                json!({"read_parse_s": secs(read_s), "fetch_s": 0.0, "scripts_s": 0.0, "apply_s": 0.0, "flush_s": 0.0}),
            );
            packet.set(
                "error",
                json!({
                    "kind": "invalid-block",
                    "message": e.to_string(),
                    "height": e.height,
                    "hash": display_hex(&e.hash),
                    "reason": e.reason,
                    "tx": e.tx.map(|(i, txid)| json!({"index": i, "txid": display_hex(&txid)})),
                    "input": e.input,
                }),
            );
            EXIT_INVALID
        }
    };
    if !finish_packet(cli, &packet) && code == 0 {
        return EXIT_IO;
    }
    code
}
