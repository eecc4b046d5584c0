// SPDX-License-Identifier: MIT OR Apache-2.0
//! The BIP 456 hints file of a corpus's tip, from the generator's own final set: a producer
//! independent of the replay's (`replay --write-hints` reads the set off a chain state that
//! connected the blocks; this one takes the coins the generator never spent), so the two files
//! being equal says both sets are right.

use super::generate::Observer;
use fullverify::chain::Network;
use fullverify::encode::{Block, OutPoint};
use fullverify::swiftsync::{counted_outputs, HintsWriter};
use fullverify::utxo::Coin;
use std::collections::HashSet;

/// An observer that keeps the outpoints of the final set and forwards progress to `inner`.
pub struct CollectUnspent<'a> {
    /// The observer progress goes to.
    pub inner: &'a mut dyn Observer,
    /// The final set's outpoints.
    pub set: HashSet<OutPoint>,
}

impl<'a> CollectUnspent<'a> {
    /// An empty collection forwarding to `inner`.
    pub fn new(inner: &'a mut dyn Observer) -> CollectUnspent<'a> {
        CollectUnspent { inner, set: HashSet::new() }
    }
}

impl Observer for CollectUnspent<'_> {
    fn block(&mut self, height: u32, inputs: u64) {
        self.inner.block(height, inputs);
    }

    fn growth(&mut self, height: u32, utxos: u64) {
        self.inner.growth(height, utxos);
    }

    fn unspent(&mut self, op: &OutPoint, _coin: &Coin) {
        self.set.insert(*op);
    }
}

/// Writes the hints file for the tip `tip` of a regtest corpus whose final set is `set`, one
/// block at a time from height 1 (the genesis block's record is empty: its outputs are not
/// spendable).
pub struct HintsOf<'s> {
    set: &'s HashSet<OutPoint>,
    w: HintsWriter<Vec<u8>>,
    height: u32,
    tip: u32,
}

impl<'s> HintsOf<'s> {
    /// A file for `tip` over `set`, its genesis record written.
    pub fn new(set: &'s HashSet<OutPoint>, tip: u32) -> Result<HintsOf<'s>, String> {
        let mut w = HintsWriter::new(Vec::new(), tip).map_err(|e| e.to_string())?;
        w.push(&[]).map_err(|e| e.to_string())?;
        Ok(HintsOf { set, w, height: 0, tip })
    }

    /// The record of the next block, `raw`.
    pub fn block(&mut self, raw: &[u8]) -> Result<(), String> {
        self.height += 1;
        let height = self.height;
        let block = Block::from_bytes(raw).map_err(|e| format!("block {height}: {e}"))?;
        let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
        let unspent: Vec<u32> = counted_outputs(&block, Network::Regtest, height)
            .filter(|o| self.set.contains(&OutPoint { txid: txids[o.tx], vout: o.vout }))
            .map(|o| o.index)
            .collect();
        self.w.push(&unspent).map_err(|e| format!("block {height}: {e}"))
    }

    /// The file's bytes; `Err` unless every block up to the tip was given.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        if self.height != self.tip {
            return Err(format!("{} blocks after genesis, the tip is at {}", self.height, self.tip));
        }
        self.w.finish().map_err(|e| e.to_string())
    }
}
