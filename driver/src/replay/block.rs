// SPDX-License-Identifier: MIT OR Apache-2.0
//! One block validated with the outputs it spends, without its chain, into a [`BlockOutcome`]
//! and its packet.

use super::{invalid_json, Failure, Settings, SourceKind, EXIT_INVALID};
use crate::metrics::{resources, Resources};
use crate::report::Packet;
use crate::source::{self, display_name};
use crate::spent::{bip34_height, finish_spent, read_spent_early, SpentFormat};
use fullverify::chain::Network;
use fullverify::encode::{display_hex, Block};
use fullverify::utxo::Coin;
use fullverify::validation::{check_decoded_block_with_spent, BlockCheckSummary, BlockError, CheckOptions};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    let c = &settings.chain;
    let threads = c.threads;
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
        &CheckOptions { network: c.network, threads, backend: c.backend, sig_mode: c.sig_mode },
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
