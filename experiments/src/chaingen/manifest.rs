// SPDX-License-Identifier: MIT OR Apache-2.0
//! `manifest.json`: what a corpus holds (eras, inputs by spent-output kind, stress shapes, the
//! final UTXO set), and a recount of the spent-output kinds from the blocks alone.

use super::profile::{Kind, Profile};
use fullverify::encode::{Block, OutPoint, TxIn};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the corpus format and of the generator's choices: a change to either gives
/// different blocks for the same seed (or, in 2, a rev file of undo data beside each blk
/// file), so it is part of the cache folder's name.
pub const FORMAT_VERSION: u32 = 2;

/// Per-era and per-kind counts of spent inputs.
pub type Counts = BTreeMap<String, BTreeMap<String, u64>>;

/// An era's height range and its input count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Era {
    /// `legacy`, `segwit` or `taproot`.
    pub name: String,
    /// First height of the era.
    pub first_height: u32,
    /// Last height of the era (inclusive).
    pub last_height: u32,
    /// Inputs spent in the era (the coinbases' excluded).
    pub inputs: u64,
}

/// A scheduled stress shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stress {
    /// The block's height.
    pub height: u32,
    /// `consolidation`, `legacy-consolidation`, `fan-out` or `full-block`.
    pub shape: String,
    /// Inputs (consolidations) or outputs (fan-outs) of the largest transaction, or the
    /// block's weight (full blocks).
    pub size: u64,
}

/// The set's size at a height: how it grows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Growth {
    /// The height (each tenth of the chain).
    pub height: u32,
    /// Coins in the set after the block at that height.
    pub utxo_count: u64,
    /// Inputs spent up to and including that block.
    pub inputs: u64,
}

/// Inputs that spend a coin of an age in a band.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgeBand {
    /// The youngest age in the band, in blocks (0: a coin of the same block).
    pub min_age: u32,
    /// The oldest age in the band; none for the last band.
    pub max_age: Option<u32>,
    /// Inputs spending a coin of an age in the band.
    pub inputs: u64,
}

/// The UTXO set the corpus ends with, as `replay` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedState {
    /// Unspent outputs.
    pub utxo_count: u64,
    /// Their total in satoshis.
    pub total_amount: i64,
    /// MuHash3072 as `gettxoutsetinfo muhash` prints it.
    pub muhash: String,
}

/// `manifest.json` of a corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// `chaingen`.
    pub generator: String,
    /// The seed.
    pub seed: u64,
    /// The profile.
    pub profile: Profile,
    /// `utxo-heavy`: the size of the final set the generator aimed at (the corpus ends with at
    /// least that many coins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utxo_target: Option<u64>,
    /// Always `regtest`.
    pub network: String,
    /// Heights of the first and last block in the files (genesis is not in them).
    pub first_height: u32,
    /// Height of the tip.
    pub tip_height: u32,
    /// Tip hash (display hex).
    pub tip: String,
    /// Transactions, the coinbases included.
    pub txs: u64,
    /// Inputs that spend a coin (the coinbases' excluded).
    pub inputs: u64,
    /// The eras in chain order (heights before the first era hold only coinbases).
    pub eras: Vec<Era>,
    /// Inputs by era and then by spent-output kind.
    pub inputs_by_era: Counts,
    /// Inputs by spent-output kind over the whole corpus.
    pub inputs_by_type: BTreeMap<String, u64>,
    /// Transactions whose inputs include an output of the same block.
    pub in_block_spends: u64,
    /// The scheduled stress shapes.
    pub stress: Vec<Stress>,
    /// Inputs by the age of the coin they spend (bands of 0, 1–6, 7–144, 145–1,000,
    /// 1,001–4,000 and more blocks).
    #[serde(default)]
    pub spend_ages: Vec<AgeBand>,
    /// The set's size after each tenth of the chain (empty in manifests of older generators).
    #[serde(default)]
    pub growth: Vec<Growth>,
    /// The block files in order (each with its rev file of undo data beside it).
    pub files: Vec<String>,
    /// Total size of the blocks (without frames).
    pub block_bytes: u64,
    /// SHA-256 of all blocks' bytes concatenated in chain order.
    pub sha256: String,
    /// The final UTXO set.
    pub expected_state: ExpectedState,
}

impl Manifest {
    /// The era of a height, if it is in one.
    pub fn era_of(&self, height: u32) -> Option<&str> {
        self.eras.iter().find(|e| (e.first_height..=e.last_height).contains(&height)).map(|e| e.name.as_str())
    }

    /// Reads `manifest.json` of the corpus in `dir`.
    pub fn read(dir: &Path) -> Result<Manifest, String> {
        let p = dir.join("manifest.json");
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
    }
}

/// The spent-output kind of every non-coinbase input of `blocks` (heights from 1), counted by
/// era from the scripts alone: a recount that checks a manifest.
pub fn recount(blocks: &[Vec<u8>], manifest: &Manifest) -> Result<Counts, String> {
    let mut coins: std::collections::HashMap<OutPoint, Vec<u8>> = std::collections::HashMap::new();
    let mut counts: Counts = BTreeMap::new();
    for (i, raw) in blocks.iter().enumerate() {
        let height = i as u32 + 1;
        let block = Block::from_bytes(raw).map_err(|e| format!("block {height}: {e}"))?;
        for tx in &block.txdata {
            if !tx.is_coinbase() {
                for input in &tx.inputs {
                    let spk = coins
                        .remove(&input.prevout)
                        .ok_or_else(|| format!("block {height}: unknown coin"))?;
                    let kind =
                        classify(&spk, input).ok_or_else(|| format!("block {height}: unknown script"))?;
                    let era = manifest
                        .era_of(height)
                        .ok_or_else(|| format!("block {height}: spend outside eras"))?;
                    *counts.entry(era.into()).or_default().entry(kind.name().into()).or_default() += 1;
                }
            }
            let txid = tx.txid();
            for (v, o) in tx.outputs.iter().enumerate() {
                coins.insert(OutPoint { txid, vout: v as u32 }, o.script_pubkey.clone());
            }
        }
    }
    Ok(counts)
}

/// The kind of a spent output, from its script and the spending input.
fn classify(spk: &[u8], input: &TxIn) -> Option<Kind> {
    Some(match spk {
        [0x21, .., 0xac] if spk.len() == 35 => Kind::P2pk,
        [0x41, .., 0xac] if spk.len() == 67 => Kind::P2pkUncompressed,
        [0x76, 0xa9, 0x14, .., 0x88, 0xac] if spk.len() == 25 => {
            let ss = &input.script_sig;
            let sig_len = *ss.first()? as usize;
            match ss.get(1 + sig_len)? {
                0x21 => Kind::P2pkh,
                0x41 if matches!(ss.get(2 + sig_len)?, 0x06 | 0x07) => Kind::P2pkhHybrid,
                0x41 => Kind::P2pkhUncompressed,
                _ => return None,
            }
        }
        [0xa9, 0x14, .., 0x87] if spk.len() == 23 => {
            if input.witness.is_empty() {
                Kind::P2shMultisig
            } else {
                Kind::P2shP2wpkh
            }
        }
        [0x00, 0x14, ..] if spk.len() == 22 => Kind::P2wpkh,
        [0x00, 0x20, ..] if spk.len() == 34 => Kind::P2wshMultisig,
        [0x51, .., 0xae] if !(spk.len() == 34 && spk[1] == 0x20) => Kind::Multisig,
        [0x51, 0x20, ..] if spk.len() == 34 => {
            let w = &input.witness;
            let n = w.len() - usize::from(w.len() >= 2 && w.last()?.first() == Some(&0x50));
            match n {
                1 => Kind::P2trKey,
                3 => Kind::P2trLeafChecksig,
                _ => Kind::P2trLeafChecksigadd,
            }
        }
        _ => return None,
    })
}
