// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `replay` command: its command line, the run and the summary, over the driver's replay
//! (`fullverify_driver::replay`), which Python's `fullverify.replay` drives too.
//!
//! `Run::from_cli(cli)?.execute()` is the whole binary: [`Run::from_cli`] applies `--malloc`,
//! checks the arguments and finds the source (generating the default corpus when it is
//! missing); [`Run::execute`] replays with a progress display, prints the summary, checks a
//! chaingen corpus's final state against its manifest, and writes the packet.
//!
//! - [`cli`]: the clap command line.
//! - [`malloc`]: `--malloc`, glibc's allocator settings.
//! - [`progress`]: a live bar on a terminal, periodic lines otherwise.

pub mod cli;
pub mod malloc;
pub mod progress;

pub use fullverify_driver::{metrics, source, spent};

use crate::chaingen::{self, Manifest, Profile, DEFAULT_SEED};
use cli::{Cli, FallbackArg, ModeArg, SpentFormatArg};
use fullverify::chain::Network;
use fullverify::chainstate::ChainstateOptions;
use fullverify::encode::display_hex;
use fullverify::Backend;
use fullverify_driver::metrics::{file_sha256, BlockRecord};
use fullverify_driver::replay::{
    run_block, run_chain, BlockOutcome, BlockRun, ChainOutcome, Failure, Observer, Settings, SourceKind,
    Store, WriteOut, EXIT_IO, RUSTFLAGS,
};
use fullverify_driver::report::{results_dir, Packet};
use fullverify_driver::spent::SpentFormat;
use fullverify_driver::swiftsync::{run_swiftsync, SwiftOutcome, SwiftSettings};
use progress::Progress;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A replay the command line asked for, ready to run.
pub struct Run {
    kind: SourceKind,
    path: PathBuf,
    settings: Settings,
    block: Option<BlockRun>,
    swift: Option<Swift>,
    json: Option<PathBuf>,
    quiet: bool,
    malloc: Value,
}

/// `--mode swiftsync`: the hints file, the settings, and whether a mismatch falls back to the
/// sequential replay.
struct Swift {
    hints: PathBuf,
    settings: SwiftSettings,
    fallback: bool,
}

/// What a run ended with: the packet (unless the run could not start) and the exit code.
pub struct Finished {
    /// The packet written, if the run started.
    pub packet: Option<Packet>,
    /// 0, or the first failure's code (see `replay --help`).
    pub exit_code: u8,
}

impl Run {
    /// Applies `--malloc` (before any other thread starts), checks the arguments and finds the
    /// source. `Err`: a usage error, or the default corpus could not be generated.
    pub fn from_cli(mut cli: Cli) -> Result<Run, Failure> {
        let malloc = malloc::apply(cli.malloc, cli.dbcache << 20);
        let usage = |m: &str| Failure::Usage(m.to_string());
        let threads = cli
            .threads
            .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
        let kind: SourceKind = match &cli.source {
            Some(v) => v[0].parse().map_err(|e: fullverify::UnknownName| Failure::Usage(e.to_string()))?,
            None => SourceKind::Corpus,
        };
        if kind == SourceKind::Block && (cli.write_hints.is_some() || cli.write_blocks.is_some()) {
            return Err(usage("--write-hints and --write-blocks apply only to chain sources"));
        }
        if kind != SourceKind::Block && (cli.spent.is_some() || cli.height.is_some()) {
            return Err(usage("--spent and --height apply only to --source block"));
        }
        if kind == SourceKind::Block
            && (cli.datadir.is_some()
                || cli.stop_height.is_some()
                || cli.flush_every.is_some()
                || cli.assumevalid.0.is_some())
        {
            return Err(usage(
                "--datadir, --stop-height, --flush-every and --assumevalid apply only to chain sources",
            ));
        }
        if kind == SourceKind::Corpus {
            if cli.network.is_some_and(|n| n != Network::Regtest) {
                if cli.source.is_none() {
                    return Err(usage(
                        "the default source is a regtest corpus; pass --source for other networks",
                    ));
                }
                return Err(usage("a chaingen corpus is a regtest chain (--network regtest)"));
            }
            cli.network = Some(Network::Regtest);
        }
        let path = match &cli.source {
            Some(v) => PathBuf::from(&v[1]),
            None => default_corpus(threads, cli.quiet)
                .map_err(|e| Failure::Source(format!("generating the default corpus: {e}")))?,
        };
        if !path.exists() {
            return Err(Failure::Usage(format!("source {}: no such file or directory", path.display())));
        }
        let backend = cli.backend.unwrap_or_else(Backend::detect);
        let sig_mode = cli
            .sig_checks
            .unwrap_or_else(|| fullverify::validation::SigMode::for_backend(backend))
            .with_batch_schnorr(cli.batch_schnorr);
        let settings = Settings {
            chain: ChainstateOptions {
                network: cli.network.unwrap_or(Network::Mainnet),
                threads,
                dbcache_bytes: (cli.dbcache as usize) << 20,
                backend,
                assumevalid: cli.assumevalid.0,
                flush_every_blocks: cli.flush_every,
                sig_mode,
                muhash: cli.muhash,
                background_nice: cli.background_nice,
            },
            stop_height: cli.stop_height,
            store: cli.datadir.clone().map_or(Store::Temporary, Store::Dir),
            read_ahead: !cli.no_read_ahead,
            write: WriteOut { hints: cli.write_hints.clone(), blocks: cli.write_blocks.clone() },
            leave_store_open: false,
        };
        let block = match kind {
            SourceKind::Block => {
                let spent = cli.spent.clone().ok_or_else(|| usage("--source block needs --spent FILE"))?;
                if !spent.exists() {
                    return Err(Failure::Usage(format!("--spent {}: no such file", spent.display())));
                }
                let spent_format = match cli.spent_format {
                    SpentFormatArg::Floresta => Some(SpentFormat::Floresta),
                    SpentFormatArg::Bcoin => Some(SpentFormat::Bcoin),
                    SpentFormatArg::Btcd => Some(SpentFormat::Btcd),
                    SpentFormatArg::Auto => None,
                };
                Some(BlockRun { path: path.clone(), spent, spent_format, height: cli.height })
            }
            _ => None,
        };
        let swift = match cli.mode {
            ModeArg::Sequential => {
                if cli.hints.is_some() || cli.fallback != FallbackArg::None {
                    return Err(usage("--hints and --fallback apply only to --mode swiftsync"));
                }
                None
            }
            ModeArg::Swiftsync => {
                let hints = cli.hints.clone().ok_or_else(|| usage("--mode swiftsync needs --hints FILE"))?;
                if !matches!(kind, SourceKind::CoreBlocks | SourceKind::Corpus) || cli.source.is_none() {
                    return Err(usage(
                        "--mode swiftsync reads --source core-blocks DIR or --source corpus DIR (blk and rev files)",
                    ));
                }
                if cli.write_hints.is_some()
                    || cli.write_blocks.is_some()
                    || cli.datadir.is_some()
                    || cli.stop_height.is_some()
                    || cli.flush_every.is_some()
                    || cli.assumevalid.0.is_some()
                {
                    return Err(usage(
                        "--mode swiftsync validates the whole chain of the directory: no --write-hints, \
                         --write-blocks, --datadir, --stop-height, --flush-every or --assumevalid",
                    ));
                }
                let c = &settings.chain;
                let mut s = SwiftSettings::new(c.network);
                (s.threads, s.backend, s.sig_mode) = (c.threads, c.backend, c.sig_mode);
                Some(Swift { hints, settings: s, fallback: cli.fallback == FallbackArg::Sequential })
            }
        };
        Ok(Run { kind, path, settings, block, swift, json: cli.json, quiet: cli.quiet, malloc })
    }

    /// The settings the run uses.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// For a process that exits when the run returns: a chain-state directory is left open
    /// after its last synced flush instead of closed ([`Settings::leave_store_open`]).
    pub fn exiting(mut self) -> Run {
        self.settings.leave_store_open = true;
        self
    }

    /// Replays, prints the summary (unless `--quiet`) and writes the packet.
    pub fn execute(self) -> Finished {
        if let Some(sw) = &self.swift {
            return self.execute_swiftsync(sw);
        }
        let (packet, code) = match &self.block {
            Some(b) => match run_block(b, &self.settings) {
                Ok(o) => (self.block_packet(&o), o.exit_code()),
                Err(f) => return self.failed(f),
            },
            None => {
                let mut progress =
                    ChainProgress { bar: None, quiet: self.quiet, stop: self.settings.stop_height };
                match run_chain(self.kind, &self.path, &self.settings, &mut progress) {
                    Ok(o) => (self.chain_packet(&o), o.exit_code()),
                    Err(f) => return self.failed(f),
                }
            }
        };
        let code = match self.write(&packet) {
            Ok(()) => code,
            Err(e) => {
                eprintln!("error: {e}");
                if code == 0 {
                    EXIT_IO
                } else {
                    code
                }
            }
        };
        Finished { packet: Some(packet), exit_code: code }
    }

    /// `--mode swiftsync`: the run, its summary and packet, and after a mismatch with
    /// `--fallback sequential` the sequential replay (its own packet; its exit code).
    fn execute_swiftsync(&self, sw: &Swift) -> Finished {
        let o = match run_swiftsync(&self.path, &sw.hints, &sw.settings) {
            Ok(o) => o,
            Err(f) => return self.failed(f),
        };
        let mut p = o.packet(&sw.settings);
        self.stamp(&mut p);
        p.set("fallback", json!({ "asked": sw.fallback, "ran": false }));
        if let Some(f) = &o.failure {
            eprintln!("{f}");
        }
        let corpus = self.against_manifest(o.summary.as_ref());
        if let Some((m, matches)) = &corpus {
            p.set("corpus", corpus_json(m, *matches));
        }
        if !self.quiet {
            print_swiftsync_summary(&o);
            if let Some((m, matches)) = &corpus {
                print_corpus_line(m, *matches);
            }
        }
        let mismatch = matches!(o.failure, Some(Failure::Mismatch(_)));
        let mut code = o.exit_code();
        if mismatch && sw.fallback {
            p.set("fallback", json!({ "asked": true, "ran": true }));
            if !self.quiet {
                eprintln!("swiftsync: --fallback sequential: replaying the chain block after block");
            }
            let seq = Run {
                kind: self.kind,
                path: self.path.clone(),
                settings: self.settings.clone(),
                block: None,
                swift: None,
                json: self.json.as_ref().map(|j| j.with_extension("sequential.json")),
                quiet: self.quiet,
                malloc: self.malloc.clone(),
            };
            let f = seq.execute();
            code = f.exit_code;
        }
        match self.write(&p) {
            Ok(()) => {}
            Err(e) => {
                eprintln!("error: {e}");
                if code == 0 {
                    code = EXIT_IO;
                }
            }
        }
        Finished { packet: Some(p), exit_code: code }
    }

    fn failed(&self, f: Failure) -> Finished {
        eprintln!("{f}");
        Finished { packet: None, exit_code: f.exit_code() }
    }

    /// What the binary adds to the driver's packet: the binary, the allocator and `--malloc`.
    fn stamp(&self, p: &mut Packet) {
        p.set(
            "binary",
            json!({
                "name": "replay",
                "sha256": std::env::current_exe().ok().and_then(|p| file_sha256(&p).ok()),
                "rustflags": RUSTFLAGS,
            }),
        );
        p.set("allocator", malloc::ALLOCATOR);
        let mut malloc = self.malloc.clone();
        if let Some(m) = malloc.as_object_mut() {
            m.insert("trims".into(), json!(malloc::trims()));
        }
        p.set("malloc", &malloc);
    }

    fn chain_packet(&self, o: &ChainOutcome) -> Packet {
        let mut p = o.packet(&self.settings);
        self.stamp(&mut p);
        // What the source passed over, even with --quiet: the run did not see all of its input.
        for n in &o.source.notes {
            eprintln!("note: {n}");
        }
        if let Some(f) = &o.failure {
            eprintln!("{f}");
        }
        let corpus = self.against_manifest(o.failure.is_none().then_some(&o.summary));
        let eras = corpus.as_ref().map(|(m, _)| era_rates(m, &o.totals.records));
        if let Some((m, matches)) = &corpus {
            p.set("corpus", corpus_json(m, *matches));
            p.set("eras", eras.clone());
        }
        if !self.quiet {
            print_chain_summary(o);
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
            if let Some((m, matches)) = &corpus {
                print_corpus_line(m, *matches);
            }
        }
        p
    }

    /// For a `--source corpus` run: the corpus's manifest, and whether `state` (the final state
    /// of a run that did not fail) is the state it expects.
    fn against_manifest(
        &self,
        state: Option<&fullverify::chainstate::StateSummary>,
    ) -> Option<(Manifest, bool)> {
        if self.kind != SourceKind::Corpus {
            return None;
        }
        let m = Manifest::read(&self.path).ok()?;
        let st = &m.expected_state;
        let matches = state.is_some_and(|s| {
            s.tip.map(|h| display_hex(&h)) == Some(m.tip.clone())
                && s.utxo_count == st.utxo_count
                && s.total_amount == st.total_amount
                && s.muhash.as_deref() == Some(st.muhash.as_str())
        });
        Some((m, matches))
    }

    fn block_packet(&self, o: &BlockOutcome) -> Packet {
        let mut p = o.packet(&self.settings);
        self.stamp(&mut p);
        let secs = Duration::as_secs_f64;
        match &o.result {
            Ok(s) if !self.quiet => {
                let w = o.wall.as_secs_f64().max(1e-9);
                eprintln!(
                    "block {} at height {}: valid; {} txs, {} inputs, fees {} sat, sigops cost {}",
                    display_hex(&s.hash),
                    o.height,
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
                    secs(&s.checks),
                    secs(&s.scripts),
                    secs(&o.read)
                );
            }
            Ok(_) => {}
            Err(e) => eprintln!("{e}"),
        }
        p
    }

    /// Writes the packet to `--json` or `results/<experiment>/`.
    fn write(&self, p: &Packet) -> Result<(), String> {
        let path = match &self.json {
            Some(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                }
                let mut text = serde_json::to_string_pretty(&p.to_json()).expect("json");
                text.push('\n');
                std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
                path.clone()
            }
            None => p.write(&results_dir()).map_err(|e| format!("writing the packet: {e}"))?,
        };
        if !self.quiet {
            eprintln!("packet: {}", path.display());
        }
        Ok(())
    }
}

/// The progress display and the resume notes of a chain run.
struct ChainProgress {
    bar: Option<Progress>,
    quiet: bool,
    stop: Option<u32>,
}

impl Observer for ChainProgress {
    fn resumed(&mut self, height: u32, datadir: &Path) {
        if !self.quiet {
            eprintln!("replay: resuming after height {height} from {}", datadir.display());
        }
        if let Some(stop) = self.stop.filter(|&s| height >= s) {
            eprintln!("replay: the state is already at height {height}, at or past --stop-height {stop}");
        }
    }

    fn start(&mut self, total: Option<u64>) {
        self.bar = Some(Progress::new(total, self.quiet));
    }

    fn block(&mut self, height: u32, inputs: u64) {
        if let Some(b) = &mut self.bar {
            b.block(height, inputs);
        }
    }

    fn finish(&mut self) {
        if let Some(b) = &mut self.bar {
            b.finish();
        }
    }
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

/// The `corpus` object of a packet: the manifest's identity and expected state, and whether the
/// run reached it.
fn corpus_json(m: &Manifest, matches: bool) -> serde_json::Value {
    json!({
        "generator": m.generator,
        "format_version": m.format_version,
        "profile": m.profile,
        "seed": m.seed,
        "tip_height": m.tip_height,
        "sha256": m.sha256,
        "expected_state": m.expected_state,
        "state_matches_manifest": matches,
    })
}

fn print_corpus_line(m: &Manifest, matches: bool) {
    eprintln!(
        "corpus: {} profile, seed {}: final state {} the manifest",
        m.profile.name(),
        m.seed,
        if matches { "equals" } else { "DIFFERS FROM" }
    );
}

fn print_swiftsync_summary(o: &SwiftOutcome) {
    let w = o.phases.wall.as_secs_f64().max(1e-9);
    let blocks: u64 = o.ranges.iter().map(|r| r.counts.blocks).sum();
    let ph = &o.phases;
    eprintln!(
        "swiftsync: {} blocks, {} inputs in {:.3} s: {:.0} inputs/s; {} ranges on {} workers (user {:.2} s, peak RSS {} MiB)",
        blocks,
        o.inputs(),
        w,
        o.inputs() as f64 / w,
        o.ranges.len(),
        o.threads,
        o.resources.user_s,
        o.resources.peak_rss_bytes >> 20
    );
    eprintln!(
        "phases: index {:.3} s, headers {:.3} s, blocks {:.3} s, merge {:.3} s, muhash {:.3} s; read {} block bytes, {} undo bytes",
        ph.index.as_secs_f64(),
        ph.headers.as_secs_f64(),
        ph.blocks.as_secs_f64(),
        ph.merge.as_secs_f64(),
        ph.muhash.as_secs_f64(),
        o.bytes.0,
        o.bytes.1
    );
    match (&o.summary, o.balanced) {
        (Some(s), _) => eprintln!(
            "state: height {}, tip {}, {} UTXOs, {} BTC, MuHash {} (aggregate balanced)",
            s.height.unwrap_or(0),
            s.tip.map(|t| display_hex(&t)).unwrap_or_default(),
            s.utxo_count,
            btc(s.total_amount),
            s.muhash.as_deref().unwrap_or("")
        ),
        (None, Some(false)) => eprintln!("state: none (the aggregate did not balance)"),
        (None, _) => eprintln!("state: none"),
    }
}

fn btc(sat: i64) -> String {
    format!("{}.{:08}", sat / 100_000_000, (sat % 100_000_000).abs())
}

fn print_chain_summary(o: &ChainOutcome) {
    let (t, r, s) = (&o.totals, &o.resources, &o.summary);
    let w = o.wall.as_secs_f64().max(1e-9);
    let secs = Duration::as_secs_f64;
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
        "phases: open {:.3} s, read+parse {:.3} s, fetch {:.3} s (BIP30 {:.3} s), scripts {:.3} s, apply {:.3} s, flush {:.3} s, muhash {:.3} s",
        secs(&o.open),
        secs(&(t.read + t.parse)),
        secs(&t.fetch),
        secs(&t.bip30),
        secs(&t.scripts),
        secs(&t.apply),
        secs(&t.flush),
        secs(&t.muhash)
    );
    match (s.height, s.tip) {
        (Some(h), Some(tip)) => eprintln!(
            "state: height {h}, tip {}, {} UTXOs, {} BTC, MuHash {}",
            display_hex(&tip),
            s.utxo_count,
            btc(s.total_amount),
            s.muhash.as_deref().unwrap_or("not computed (--muhash off)")
        ),
        _ => eprintln!("state: empty (no block connected)"),
    }
}
