// SPDX-License-Identifier: MIT OR Apache-2.0
//! `conformance --vectors DIR`: runs every vector file it recognises in a directory laid out
//! like `shared/vectors`, one line per file (`core/script_tests.json: 1222 passed, 0 failed`),
//! then a closing `N passed, M failed` line. Exit status 1 on any failure or unparseable file.
//!
//! Files are recognised by sub-folder and name pattern, not by exact name:
//!
//! | sub-folder | pattern | harness |
//! |---|---|---|
//! | `core/` | `script_tests*.json` | Core's script_tests (expected error names, flag perturbations) |
//! | `core/` | `tx_valid*.json`, `tx_invalid*.json` | Core's transaction_tests |
//! | `core/` | `sighash*.json` | legacy sighash |
//! | `core/`, `bips/` | `bip341_wallet*.json` | BIP341 wallet vectors |
//! | `bips/` | `bip143*.json` | BIP143 examples |
//! | `script_assets/` | `*.json`, `*.json.gz` | Core's script_assets_test |
//! | `blocks_with_prevouts/` | `<network>_<name>.{block,blk}[.raw,.zst,.bz2,.gz]` with a sibling `<network>_<name>.{spent_utxos.json,spent_outputs.bin,utxostore}[...]` | every input verifies |
//!
//! The same harness code as the integration tests (`fullverify_testkit::harness`) is used, so the
//! runner and `cargo test` agree on what passing means. Signatures, taproot tweaks and key
//! decompression use fullverify's own secp256k1 layer ([`NativeVerifier`]), and blocks and
//! spent outputs are read as the replay reads them, so the runner checks the production stack
//! end to end.

use fullverify_testkit as common;

use common::harness::{self, Outcome, SpentFormat};
use fullverify::chain::Network;
use fullverify::script::NativeVerifier;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn strip_compression(name: &str) -> &str {
    for ext in [".zst", ".bz2", ".gz"] {
        if let Some(s) = name.strip_suffix(ext) {
            return s;
        }
    }
    name
}

fn load_json(p: &Path) -> Result<serde_json::Value, String> {
    serde_json::from_slice(&common::read_maybe_compressed(p)).map_err(|e| format!("JSON: {e}"))
}

fn catch(f: impl FnOnce() -> Result<Outcome, String>) -> Result<Outcome, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => Err(e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())),
    }
}

/// The prevout file paired with a block file, and its format.
fn prevouts_for(dir: &Path, stem: &str) -> Option<(PathBuf, SpentFormat)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name()?.to_str()?.to_string();
        let Some(rest) = name.strip_prefix(stem).and_then(|r| r.strip_prefix('.')) else { continue };
        let rest = strip_compression(rest);
        let kind = match rest {
            "spent_utxos.json" => SpentFormat::Floresta,
            "spent_outputs.bin" => SpentFormat::Bcoin,
            "utxostore" => SpentFormat::Btcd,
            _ => continue,
        };
        return Some((p, kind));
    }
    None
}

/// Runs one file if recognised: `None` when it is not a vector file this runner knows.
fn run_file(root: &Path, path: &Path) -> Option<Result<Outcome, String>> {
    let rel = path.strip_prefix(root).ok()?;
    let folder = rel.parent()?.to_str()?;
    let name = rel.file_name()?.to_str()?;
    let base = strip_compression(name);
    let v = NativeVerifier;
    let tweak = &common::tweak_xonly_native;
    let json_file = base.ends_with(".json");
    let run: Box<dyn FnOnce() -> Result<Outcome, String>> = match folder {
        "core" if json_file && base.starts_with("script_tests") => {
            Box::new(move || Ok(harness::run_script_tests(&load_json(path)?, &v, tweak)))
        }
        "core" if json_file && base.starts_with("tx_valid") => {
            Box::new(move || Ok(harness::run_tx_valid(&load_json(path)?, &v)))
        }
        "core" if json_file && base.starts_with("tx_invalid") => {
            Box::new(move || Ok(harness::run_tx_invalid(&load_json(path)?, &v)))
        }
        "core" if json_file && base.starts_with("sighash") => {
            Box::new(move || Ok(harness::run_sighash_json(&load_json(path)?)))
        }
        "core" | "bips" if json_file && base.starts_with("bip341_wallet") => {
            Box::new(move || Ok(harness::run_bip341_wallet(&load_json(path)?, tweak, &v)))
        }
        "bips" if json_file && base.starts_with("bip143") => {
            Box::new(move || Ok(harness::run_bip143(&load_json(path)?)))
        }
        "script_assets" if json_file => {
            Box::new(move || Ok(harness::run_script_assets(&load_json(path)?, &v)))
        }
        "blocks_with_prevouts" => {
            let (stem, _) = base.split_once(".block").or_else(|| base.split_once(".blk"))?;
            let network = stem.split('_').next()?.to_string();
            let dir = path.parent()?.to_path_buf();
            let stem = stem.to_string();
            Box::new(move || {
                let (pp, kind) = prevouts_for(&dir, &stem).ok_or("no spent-output file beside the block")?;
                let network = network.parse::<Network>().map_err(|e| e.to_string())?;
                let b = harness::load_block_with_prevouts(path, &pp, Some(kind), network)?;
                Ok(harness::verify_block_inputs(&b, &v))
            })
        }
        _ => return None,
    };
    Some(catch(run))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let dir = match args.iter().position(|a| a == "--vectors").and_then(|i| args.get(i + 1)) {
        Some(d) => PathBuf::from(d),
        None => {
            eprintln!("usage: conformance --vectors DIR");
            return ExitCode::from(2);
        }
    };
    if !dir.is_dir() {
        eprintln!("conformance: {} is not a directory", dir.display());
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    walk(&dir, &mut files);
    let (mut passed, mut failed, mut files_run) = (0usize, 0usize, 0usize);
    for f in &files {
        let Some(r) = run_file(&dir, f) else { continue };
        files_run += 1;
        let rel = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
        match r {
            Ok(o) => {
                println!("{rel}: {} passed, {} failed", o.passed, o.failed);
                for m in o.failures.iter().take(5) {
                    eprintln!("  FAIL {m}");
                }
                passed += o.passed;
                failed += o.failed;
            }
            Err(e) => {
                println!("{rel}: unparseable ({e})");
                failed += 1;
            }
        }
    }
    if files_run == 0 {
        eprintln!("conformance: no recognised vector files under {}", dir.display());
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 || files_run == 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
