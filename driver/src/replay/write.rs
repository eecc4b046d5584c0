// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a chain replay can write besides its packet: the BIP 456 hints file of its tip
//! (`--write-hints`) and a Core-shaped blocks directory (`--write-blocks`, through
//! [`crate::blocksdir::BlocksWriter`]).

use super::chain::open_source;
use super::{block_bytes, Failure, SourceKind};
use crate::blocksdir::{spent_coins, BlocksWriter};
use fullverify::chain::Network;
use fullverify::chainstate::Chainstate;
use fullverify::encode::{display_hex, Block, OutPoint};
use fullverify::swiftsync::{counted_outputs, HintsWriter};
use fullverify::undo::{BlockUndo, XorKey};
use serde_json::{json, Value};
use std::io::BufWriter;
use std::path::Path;

/// What was written, for the packet's `written`.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// The hints file: its terminal height, the outputs it marks unspent, its bytes.
    pub hints: Option<(u32, u64, u64)>,
    /// The blocks directory: blocks and block bytes written.
    pub blocks: Option<(u64, u64)>,
}

impl Written {
    /// The packet's `written` object.
    pub fn to_json(&self, hints: Option<&Path>, blocks: Option<&Path>) -> Value {
        json!({
            "hints": self.hints.map(|(h, n, b)| json!({
                "path": hints.map(crate::source::display_name),
                "terminal_height": h,
                "unspent_outputs": n,
                "bytes": b,
            })),
            "blocks": self.blocks.map(|(n, b)| json!({
                "path": blocks.map(crate::source::display_name),
                "blocks": n,
                "block_bytes": b,
            })),
        })
    }
}

/// Writes the hints file of the chain state's tip to `out`: for every block from genesis to
/// the tip (read again from the source `kind` at `path`), the indices of its counted outputs
/// (BIP 457: every output but the unspendable ones) whose coin is in the UTXO set, created by
/// that block. Returns the terminal height, the number of unspent outputs marked and the
/// file's size.
pub fn write_tip_hints(
    cs: &mut Chainstate,
    kind: SourceKind,
    path: &Path,
    network: Network,
    out: &Path,
) -> Result<(u32, u64, u64), Failure> {
    let Some((tip, _)) = cs.tip() else {
        return Err(Failure::Usage("--write-hints: no block was connected".into()));
    };
    let store = |e: &dyn std::fmt::Display| Failure::Store(format!("--write-hints {}: {e}", out.display()));
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| store(&e))?;
    }
    let file = std::fs::File::create(out).map_err(|e| store(&e))?;
    let mut w = HintsWriter::new(BufWriter::with_capacity(1 << 20, file), tip).map_err(|e| store(&e))?;
    let src = open_source(kind, path, network).map_err(|e| Failure::Source(e.to_string()))?;
    let genesis = block_bytes(&network.params().genesis_block());
    let mut blocks = src.map(|r| r.map(|b| b.bytes));
    let first = blocks.next();
    // A source that starts at height 1 gets the network's genesis block first.
    let starts_at_one = matches!(&first, Some(Ok(b)) if b.get(4..36) != Some(&[0u8; 32][..]));
    let lead = starts_at_one.then_some(Ok(genesis));
    let mut chain = lead.into_iter().chain(first).chain(blocks);
    let (mut marked, mut indices) = (0u64, Vec::new());
    for h in 0..=tip {
        let raw = match chain.next() {
            Some(Ok(b)) => b,
            Some(Err(e)) => return Err(Failure::Source(e.to_string())),
            None => return Err(Failure::Source(format!("--write-hints: the source ends before height {h}"))),
        };
        let block = Block::from_bytes(&raw).map_err(|e| Failure::Source(format!("block {h}: {e}")))?;
        let hash = block.block_hash();
        if cs.headers()[h as usize].hash != hash {
            return Err(Failure::Source(format!(
                "--write-hints: block {} at height {h} of the source is not the state's",
                display_hex(&hash)
            )));
        }
        indices.clear();
        let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
        for o in counted_outputs(&block, network, h) {
            let op = OutPoint { txid: txids[o.tx], vout: o.vout };
            let coin = cs.coin(&op).map_err(|e| Failure::Store(e.to_string()))?;
            if coin.is_some_and(|c| c.height == h) {
                indices.push(o.index);
            }
        }
        marked += indices.len() as u64;
        w.push(&indices).map_err(|e| store(&e))?;
    }
    w.finish().map_err(|e| store(&e))?;
    let bytes = std::fs::metadata(out).map_err(|e| store(&e))?.len();
    Ok((tip, marked, bytes))
}

/// A blocks directory being written as a replay connects blocks.
pub(super) struct BlocksOut {
    writer: BlocksWriter,
}

impl BlocksOut {
    /// Creates `dir` with a fresh random obfuscation key, as Core does.
    pub(super) fn create(dir: &Path, network: Network) -> Result<BlocksOut, Failure> {
        let mut key = [0u8; 8];
        let salt = fullverify::swiftsync::Salt::from_os_random()
            .map_err(|e| Failure::Store(format!("--write-blocks: a random key: {e}")))?;
        key.copy_from_slice(&salt.as_bytes()[..8]);
        let writer = BlocksWriter::create(dir, network.params().magic, XorKey(key))
            .map_err(|e| Failure::Store(format!("--write-blocks: {e}")))?;
        Ok(BlocksOut { writer })
    }

    /// The undo record of `raw` (at `height`) from the coins the state holds before it is
    /// connected; `None` for the genesis block, and for a block whose coins are not all there
    /// (it will be rejected).
    pub(super) fn undo_before(&self, cs: &mut Chainstate, raw: &[u8], height: u32) -> Option<BlockUndo> {
        if height == 0 {
            return None;
        }
        let block = Block::from_bytes(raw).ok()?;
        let spent = spent_coins(&block, height, |op| cs.coin(op).ok().flatten())?;
        BlockUndo::from_spent(&block, &spent).ok()
    }

    /// Appends a connected block and its undo record (none for genesis).
    pub(super) fn connected(
        &mut self,
        raw: &[u8],
        height: u32,
        undo: Option<&BlockUndo>,
    ) -> Result<(), Failure> {
        if height > 0 && undo.is_none() {
            return Err(Failure::Store(format!("--write-blocks: no undo record for the block at {height}")));
        }
        self.writer.block(raw, undo).map_err(|e| Failure::Store(format!("--write-blocks: {e}")))
    }

    /// Flushes the files.
    pub(super) fn finish(self) -> Result<(u64, u64), Failure> {
        self.writer.finish().map_err(|e| Failure::Store(format!("--write-blocks: {e}")))
    }
}
