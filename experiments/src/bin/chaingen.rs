// SPDX-License-Identifier: MIT OR Apache-2.0
//! `chaingen`: writes a deterministic, mainnet-shaped regtest corpus (blk*.dat files and
//! `manifest.json`); see `fullverify_experiments::chaingen`.
//!
//! Exit codes: 0 success, 1 a block the generator made that fullverify rejects (`--verify`),
//! 2 a usage error, 3 an I/O failure.

use clap::Parser;
use fullverify::chain::Network;
use fullverify::chainstate::{Chainstate, ChainstateOptions};
use fullverify_experiments::chaingen::{self, block_bytes, Profile, Spec, DEFAULT_SEED};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Generate a deterministic regtest chain shaped like mainnet's eras.
#[derive(Parser, Debug)]
#[command(name = "chaingen", version)]
struct Cli {
    /// tiny (~130 blocks), small (~200 blocks, ~20k inputs), default (~2,000 blocks, ~250k
    /// inputs), large (~12,000 blocks, ~3M inputs) or utxo-heavy (a set of 20M coins at the
    /// tip by default, ~10,000 blocks, ~2M inputs).
    #[arg(long, default_value = "default")]
    profile: Profile,

    /// utxo-heavy only: coins in the set at the tip (at least 50,000; default 20,000,000). The
    /// chain has N/2,000 blocks (at least 3,000) and 10.2 % of N inputs; a size other
    /// than the default is part of the cache folder's name.
    #[arg(long, value_name = "N")]
    utxos: Option<u64>,

    /// Seed of every choice the generator makes.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,

    /// Signing threads (the output does not depend on it). Default: all logical CPUs.
    #[arg(long)]
    threads: Option<usize>,

    /// Output folder (always written; it must hold no blk files yet). Default:
    /// target/chaingen/<profile>-<seed>-v<format> in the repository
    /// (<profile>-<N>utxos-<seed>-v<format> with --utxos), reused when already complete (unless
    /// --verify or --write-hints, which generate it again and replace it once complete).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// Also connect every block, read back from the written files, to an in-memory fullverify
    /// chain state and compare the final state with the manifest.
    #[arg(long)]
    verify: bool,

    /// Also write the BIP 456 hints file of the tip, from the generator's own final set (the
    /// same bytes as `replay --write-hints` writes for this corpus). Generates even when a
    /// complete cache folder exists.
    #[arg(long, value_name = "FILE")]
    write_hints: Option<PathBuf>,
}

fn repo_root() -> PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

struct Dots(Instant);

impl chaingen::Observer for Dots {
    fn block(&mut self, height: u32, inputs: u64) {
        if height.is_multiple_of(250) {
            eprintln!("chaingen: height {height}, {inputs} inputs, {:.1} s", self.0.elapsed().as_secs_f64());
        }
    }

    fn growth(&mut self, height: u32, utxos: u64) {
        eprintln!("chaingen: height {height}, {utxos} coins in the set");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let threads = cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut spec = Spec::new(cli.profile, cli.seed);
    if let Some(n) = cli.utxos {
        spec = match spec.with_utxos(n) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
    }
    let t0 = Instant::now();
    let mut obs = Dots(t0);
    let root = repo_root().join("target").join("chaingen");
    if cli.out.is_none() && !cli.verify && cli.write_hints.is_none() {
        // The cache folder: reused when complete.
        return match chaingen::ensure_spec(&root, &spec, threads, &mut obs) {
            Ok((dir, m, generated)) => {
                let how = if generated {
                    format!("generated in {:.1} s", t0.elapsed().as_secs_f64())
                } else {
                    "cached".into()
                };
                eprintln!(
                    "chaingen: {}: {} blocks, {} inputs, {} coins at the tip ({how})",
                    spec.id(),
                    m.tip_height,
                    m.inputs,
                    m.expected_state.utxo_count
                );
                println!("{}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(3)
            }
        };
    }
    let mut collect = chaingen::CollectUnspent::new(&mut obs);
    // A folder of the user's must hold no blk files yet; the cache folder is replaced whole.
    let (dir, written) = match &cli.out {
        Some(dir) => (dir.clone(), chaingen::generate_to_dir(&spec, threads, &mut collect, dir)),
        None => {
            let dir = chaingen::spec_dir(&root, &spec);
            let m = chaingen::generate_replacing(&spec, threads, &mut collect, &dir);
            (dir, m)
        }
    };
    let manifest = match written {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: writing {}: {e}", dir.display());
            return ExitCode::from(3);
        }
    };
    let gen_s = t0.elapsed().as_secs_f64();
    eprintln!(
        "chaingen: {}: {} blocks, {} txs, {} inputs, {} coins at the tip, {} MB in {:.1} s with {threads} threads -> {}",
        spec.id(),
        manifest.tip_height,
        manifest.txs,
        manifest.inputs,
        manifest.expected_state.utxo_count,
        manifest.block_bytes / 1_000_000,
        gen_s,
        dir.display()
    );
    for e in &manifest.eras {
        eprintln!(
            "  {:8} heights {:>5}..={:<5} {:>8} inputs",
            e.name, e.first_height, e.last_height, e.inputs
        );
    }
    if let Some(path) = &cli.write_hints {
        let written = chaingen::HintsOf::new(&collect.set, manifest.tip_height).and_then(|mut h| {
            chaingen::for_each_block(&dir, &manifest, |_, b| h.block(b))?;
            h.finish()
        });
        match written.map(|bytes| std::fs::write(path, &bytes).map(|()| bytes.len())) {
            Ok(Ok(n)) => {
                eprintln!("hints: {n} bytes for the tip at {} -> {}", manifest.tip_height, path.display())
            }
            Ok(Err(e)) => {
                eprintln!("error: writing {}: {e}", path.display());
                return ExitCode::from(3);
            }
            Err(e) => {
                eprintln!("error: the hints file: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if cli.verify {
        let mut opts = ChainstateOptions::new(Network::Regtest);
        opts.threads = threads;
        let mut cs = Chainstate::open_in_memory(opts);
        let t1 = Instant::now();
        if let Err(e) = cs.connect_block(&block_bytes(&Network::Regtest.params().genesis_block())) {
            eprintln!("error: genesis rejected: {e}");
            return ExitCode::from(1);
        }
        let read = chaingen::for_each_block(&dir, &manifest, |height, b| {
            cs.connect_block(b).map(|_| ()).map_err(|e| format!("block at height {height} rejected: {e}"))
        });
        if let Err(e) = read {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
        let s = cs.summary();
        let want = &manifest.expected_state;
        if s.height != Some(manifest.tip_height)
            || s.utxo_count != want.utxo_count
            || s.total_amount != want.total_amount
            || s.muhash.as_ref() != Some(&want.muhash)
        {
            eprintln!("error: final state {s:?} differs from the manifest's {want:?}");
            return ExitCode::from(1);
        }
        eprintln!("verify: every block valid, final state equal ({:.1} s)", t1.elapsed().as_secs_f64());
    }
    println!("{}", dir.display());
    ExitCode::SUCCESS
}
