// SPDX-License-Identifier: MIT OR Apache-2.0
//! One range of blocks, validated without the UTXO set (BIP 457 "Validation").
//!
//! For every block of the range, in height order, on one worker:
//!
//! ```text
//! coins   = the block's undo record (its rev file, matched by checksum)
//! verdict = CheckBlock, ContextualCheckBlock, ConnectBlock's input checks and every script,
//!           with those coins, the block's height and flags and the chain's median times past
//! for each input k:            Agg −= H(element(prevout_k, coins[k]))
//! for each counted output i:   hinted unspent → the range's part of the UTXO set
//!                              otherwise      → Agg += H(element(outpoint_i, output_i))
//! ```
//!
//! A block that fails a check is still accounted for, so the aggregate says whether the coins
//! it was checked with were the chain's: only then is its failure the block's. The genesis
//! block's outputs are not spendable (Core never adds them) and must not be hinted. Unspendable
//! outputs (BIP 457: `OP_RETURN`, scripts over 10,000 bytes, the two overwritten mainnet
//! coinbases) get no index and are never aggregated. The txids of the blocks where BIP30
//! applies are collected for the duplicate check after all ranges ([`super::run`]).

use super::headers::HeaderChain;
use super::undo::UndoFiles;
use super::wire::Bundle;
use crate::source::CoreChain;
use fullverify::chain::Network;
use fullverify::encode::{Block, OutPoint};
use fullverify::muhash::{MuHash3072, SetProduct};
use fullverify::swiftsync::{counted_outputs, Aggregate, CoinElement, HintsFile, Salt};
use fullverify::utxo::{txout_ser, Coin};
use fullverify::validation::{check_decoded_block_in_chain, BlockError, ChainContext, CheckOptions};
use std::fs::File;
use std::time::{Duration, Instant};

/// Where a range's blocks and undo records come from.
pub enum Blocks<'a> {
    /// The blocks directory: blk files read at the located offsets, rev files matched by
    /// checksum.
    Files {
        /// The located chain.
        chain: &'a CoreChain,
        /// Its rev files.
        undo: &'a UndoFiles,
    },
    /// Sent with the range.
    Bundle(&'a Bundle),
}

/// What every range shares: the checked headers, where the blocks come from, the hints, the
/// run's salt and the check options (one script thread per range).
pub struct Shared<'a> {
    /// The chain's checked headers.
    pub headers: &'a HeaderChain,
    /// The blocks and their undo records.
    pub blocks: Blocks<'a>,
    /// The hints file.
    pub hints: &'a HintsFile<'a>,
    /// The run's secret salt.
    pub salt: &'a Salt,
    /// Network, backend and signature mode.
    pub opts: CheckOptions,
}

/// Why a block could not be accounted for: its data, not its validity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataMismatch {
    /// The block's height.
    pub height: u32,
    /// What did not fit.
    pub what: String,
}

/// A range's part of the UTXO set at the terminal height (its outputs hinted unspent): the
/// set is never held, only counted, summed and hashed (MuHash3072 is a product, so the parts
/// multiply to the set's).
#[derive(Clone, Debug)]
pub struct SetPart {
    /// Coins.
    pub count: u64,
    /// Their amounts, in satoshis.
    pub total: i64,
    /// Their MuHash3072 (not finalized).
    pub muhash: MuHash3072,
}

/// A transaction of a block where BIP30 applies, as a range reports it for the duplicate
/// check: its txid's first eight bytes ([`txid_prefix`]), its block's height and its index in
/// the block. Sixteen bytes instead of the 40 of the whole txid: the merge compares whole
/// txids only where two prefixes are equal, reading those transactions again
/// ([`SwiftOutcome::merge`](super::SwiftOutcome::merge)).
pub type Bip30Tx = (u64, u32, u32);

/// The first eight bytes of `txid`, as a little-endian number.
pub fn txid_prefix(txid: &[u8; 32]) -> u64 {
    u64::from_le_bytes(txid[..8].try_into().expect("8 bytes"))
}

/// What a range did: its heights and the work counted on its worker. The same numbers travel
/// in a range's result, its line of the packet and the Python package's `result_stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeCounts {
    /// Its first and last heights.
    pub heights: (u32, u32),
    /// Blocks validated.
    pub blocks: u64,
    /// Transactions in them.
    pub txs: u64,
    /// Inputs (coins spent).
    pub inputs: u64,
    /// Block bytes read.
    pub bytes_read: u64,
    /// Undo record bytes used (those of the records taken).
    pub undo_bytes: u64,
    /// The range's time on its worker.
    pub wall: Duration,
}

impl RangeCounts {
    /// The counts as the packet's range fields name them, in that order.
    pub fn fields(&self) -> [(&'static str, serde_json::Value); 8] {
        let (first, last) = self.heights;
        [
            ("first_height", first.into()),
            ("last_height", last.into()),
            ("blocks", self.blocks.into()),
            ("txs", self.txs.into()),
            ("inputs", self.inputs.into()),
            ("bytes_read", self.bytes_read.into()),
            ("undo_bytes", self.undo_bytes.into()),
            ("wall_s", self.wall.as_secs_f64().into()),
        ]
    }
}

/// What one range gave.
#[derive(Debug)]
pub struct RangeResult {
    /// Its heights and counts.
    pub counts: RangeCounts,
    /// Its share of the aggregate: its outputs not hinted unspent, less its inputs.
    pub aggregate: Aggregate,
    /// Its outputs hinted unspent at the terminal height.
    pub set: SetPart,
    /// The transactions of its blocks where BIP30 applies ([`Bip30Tx`]).
    pub bip30: Vec<Bip30Tx>,
    /// The first block that failed a check, if one did.
    pub invalid: Option<BlockError>,
    /// The first block whose data did not fit, if one did (the range stops there).
    pub mismatch: Option<DataMismatch>,
    /// A block that could not be read (the range stops there).
    pub source: Option<String>,
}

/// Validates the blocks at heights `first..=last`.
pub fn run_range(s: &Shared<'_>, first: u32, last: u32) -> RangeResult {
    let t0 = Instant::now();
    let mut r = RangeResult {
        counts: RangeCounts { heights: (first, last), ..RangeCounts::default() },
        aggregate: Aggregate::new(s.salt.clone()),
        set: SetPart { count: 0, total: 0, muhash: MuHash3072::new() },
        bip30: Vec::new(),
        invalid: None,
        mismatch: None,
        source: None,
    };
    let mut open: Option<(usize, File)> = None;
    // The rev file of the blocks the range is at stays read until it moves to another file.
    let mut held = None;
    let mtp = |h: u32| s.headers.mtp(h);
    // The hinted coins' product, kept in the backend's own form until the range ends.
    let mut product = SetProduct::new(s.opts.backend);
    for height in first..=last {
        if let Blocks::Files { undo, .. } = &s.blocks {
            undo.hold_for(&mut held, height);
        }
        if let Err(e) = block(s, height, &mut open, &mtp, &mut product, &mut r) {
            match e {
                Stop::Mismatch(what) => r.mismatch = Some(DataMismatch { height, what }),
                Stop::Source(m) => r.source = Some(m),
            }
            break;
        }
    }
    r.set.muhash = product.finish();
    r.counts.wall = t0.elapsed();
    r
}

enum Stop {
    Mismatch(String),
    Source(String),
}

fn block(
    s: &Shared<'_>,
    height: u32,
    open: &mut Option<(usize, File)>,
    mtp: &(dyn Fn(u32) -> i64 + Sync),
    product: &mut SetProduct,
    r: &mut RangeResult,
) -> Result<(), Stop> {
    let hash = s.headers.entries[height as usize].hash;
    let read;
    let raw: &[u8] = match &s.blocks {
        Blocks::Files { chain, .. } => {
            read = chain.read_at(open, height).map_err(|e| Stop::Source(e.to_string()))?;
            &read
        }
        Blocks::Bundle(b) => &b.get(height).map_err(Stop::Source)?.raw,
    };
    r.counts.bytes_read += raw.len() as u64;
    let hints = s.hints.block(height).map_err(|e| Stop::Mismatch(e.to_string()))?;
    let block = match Block::from_bytes(raw) {
        Ok(b) => b,
        Err(e) => {
            // The outputs cannot be accounted for: the aggregate cannot balance, and the
            // sequential fallback names the block.
            let what = format!("the block does not decode ({e})");
            r.invalid.get_or_insert(BlockError {
                reason: format!("bad-block-decode ({e})"),
                hash,
                height,
                tx: None,
                input: None,
            });
            return Err(Stop::Mismatch(what));
        }
    };
    r.counts.blocks += 1;
    r.counts.txs += block.txdata.len() as u64;
    if height == 0 {
        if !hints.is_empty() {
            return Err(Stop::Mismatch("the hints mark an output of the genesis block unspent".into()));
        }
        return Ok(());
    }
    let network: Network = s.opts.network;
    let undo = match &s.blocks {
        Blocks::Files { chain, undo } => {
            let file = chain.blocks[height as usize].file;
            undo.block_undo(&block, height, file).map_err(|e| (undo.name(file).to_string(), e))
        }
        Blocks::Bundle(b) => b.block_undo(&block, height).map_err(|e| {
            (b.get(height).map_or_else(|_| String::new(), |x| x.undo.name.clone().unwrap_or_default()), e)
        }),
    }
    .map_err(|(file, e)| Stop::Mismatch(format!("no undo record in {file} is this block's: {e}")))?;
    r.counts.undo_bytes += encoded_len(&undo);
    let spent = undo.into_spent_coins(&block).map_err(|e| Stop::Mismatch(e.to_string()))?;
    r.counts.inputs += spent.len() as u64;
    let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
    if r.invalid.is_none() {
        r.invalid = spend_order(&block, &txids, &spent, height).or_else(|| {
            check_decoded_block_in_chain(&block, Some(&txids), &spent, height, &s.opts, ChainContext { mtp })
                .err()
        });
    }
    // Inputs out of the aggregate.
    let mut k = 0;
    for tx in block.txdata.iter().skip(1) {
        for inp in &tx.inputs {
            r.aggregate.sub(&CoinElement::from_coin(inp.prevout, &spent[k]));
            k += 1;
        }
    }
    // Outputs: hinted unspent into the set, the others into the aggregate.
    let mut unspent = hints.iter().peekable();
    let mut counted = 0u32;
    for o in counted_outputs(&block, network, height) {
        counted += 1;
        let op = OutPoint { txid: txids[o.tx], vout: o.vout };
        if unspent.next_if_eq(&o.index).is_some() {
            let coin = Coin { out: o.out.clone(), height, coinbase: o.tx == 0 };
            r.set.count += 1;
            r.set.total += coin.out.value;
            product.insert(&txout_ser(&op, &coin));
        } else {
            r.aggregate.add(&CoinElement::from_output(op, o.out, height, o.tx == 0));
        }
    }
    hints.check_outputs(counted).map_err(|e| Stop::Mismatch(format!("hints: {e}")))?;
    if s.headers.enforces_bip30(height) {
        r.bip30.extend(txids.iter().enumerate().map(|(t, id)| (txid_prefix(id), height, t as u32)));
    }
    Ok(())
}

/// The length of `undo` as Core serializes it (a counting pass, nothing allocated).
fn encoded_len(undo: &fullverify::undo::BlockUndo) -> u64 {
    struct Count(u64);
    impl fullverify::encode::Sink for Count {
        fn put(&mut self, b: &[u8]) {
            self.0 += b.len() as u64;
        }
    }
    let mut c = Count(0);
    undo.encode(&mut c);
    c.0
}

/// Whether every coin the undo data gives the block's inputs existed when it was spent. The
/// aggregate matches spends with outputs as multisets, in no order: on its own it would accept a
/// block that spends an output a later block (or a later transaction of the same block)
/// creates, whose element carries that later height. So a coin must come from a block below
/// this one, or from this block (Core's undo data records a coin created and spent in one block
/// with that block's height) and then from an earlier transaction. Fails as Core does for an
/// input whose coin is not there: `bad-txns-inputs-missingorspent`, with the transaction and
/// input; `None` when every coin was there.
fn spend_order(block: &Block, txids: &[[u8; 32]], spent: &[Coin], height: u32) -> Option<BlockError> {
    let mut earlier: Option<std::collections::HashMap<[u8; 32], usize>> = None;
    let mut k = 0;
    for (t, tx) in block.txdata.iter().enumerate().skip(1) {
        for (i, inp) in tx.inputs.iter().enumerate() {
            // The counts were checked with the undo record; a short list cannot get here.
            let coin = spent.get(k)?;
            k += 1;
            let exists = match coin.height.cmp(&height) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Equal => {
                    let index = earlier
                        .get_or_insert_with(|| txids.iter().enumerate().map(|(j, id)| (*id, j)).collect());
                    index.get(&inp.prevout.txid).is_some_and(|&j| j < t)
                }
            };
            if !exists {
                return Some(BlockError {
                    reason: "bad-txns-inputs-missingorspent".into(),
                    hash: block.block_hash(),
                    height,
                    tx: Some((t, txids[t])),
                    input: Some(i),
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::spend_order;
    use fullverify::encode::{Block, BlockHeader, OutPoint, Transaction, TxIn, TxOut};
    use fullverify::utxo::Coin;

    fn tx(prevouts: &[OutPoint], tag: u8) -> Transaction {
        Transaction {
            version: 2,
            inputs: prevouts
                .iter()
                .map(|&prevout| TxIn { prevout, sequence: u32::MAX, ..Default::default() })
                .collect(),
            outputs: vec![TxOut { value: 1000 + tag as i64, script_pubkey: vec![0x51] }],
            lock_time: 0,
        }
    }

    fn coin(height: u32) -> Coin {
        Coin { out: TxOut { value: 1, script_pubkey: vec![0x51] }, height, coinbase: false }
    }

    /// A block at height 10: a coinbase, then `a` spending an old coin, then `b`.
    fn check(b_spends: OutPoint, b_coin_height: u32, a_spends_b: bool) -> Result<(), String> {
        let old = OutPoint { txid: [7; 32], vout: 0 };
        let header =
            BlockHeader { version: 4, prev_block: [0; 32], merkle_root: [0; 32], time: 0, bits: 0, nonce: 0 };
        let coinbase = tx(&[OutPoint { txid: [0; 32], vout: u32::MAX }], 0);
        let b = tx(&[b_spends], 2);
        let a_prev = if a_spends_b { OutPoint { txid: b.txid(), vout: 0 } } else { old };
        let a = tx(&[a_prev], 1);
        let block = Block { header, txdata: vec![coinbase, a, b] };
        let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
        let a_coin = if a_spends_b { coin(10) } else { coin(9) };
        match spend_order(&block, &txids, &[a_coin, coin(b_coin_height)], 10) {
            None => Ok(()),
            Some(e) => Err(format!("{} tx {:?} input {:?}", e.reason, e.tx.map(|t| t.0), e.input)),
        }
    }

    #[test]
    fn a_coin_must_exist_before_the_input_that_spends_it() {
        let old = OutPoint { txid: [8; 32], vout: 3 };
        // Coins from earlier blocks, and from an earlier transaction of the same block.
        assert_eq!(check(old, 0, false), Ok(()));
        assert_eq!(check(old, 9, false), Ok(()));
        // A coin of a later block.
        assert_eq!(
            check(old, 11, false),
            Err("bad-txns-inputs-missingorspent tx Some(2) input Some(0)".into())
        );
        assert_eq!(
            check(old, u32::MAX, false),
            Err("bad-txns-inputs-missingorspent tx Some(2) input Some(0)".into())
        );
        // A coin of this block's height from a transaction that is not in the block.
        assert_eq!(
            check(old, 10, false),
            Err("bad-txns-inputs-missingorspent tx Some(2) input Some(0)".into())
        );
        // `a` spends `b`, which comes after it in the block.
        assert_eq!(
            check(old, 9, true),
            Err("bad-txns-inputs-missingorspent tx Some(1) input Some(0)".into())
        );
    }

    #[test]
    fn a_coin_of_an_earlier_transaction_in_the_block_is_there() {
        // `b` (tx 2) spends `a` (tx 1) with a coin of the block's own height.
        let old = OutPoint { txid: [7; 32], vout: 0 };
        let header =
            BlockHeader { version: 4, prev_block: [0; 32], merkle_root: [0; 32], time: 0, bits: 0, nonce: 0 };
        let coinbase = tx(&[OutPoint { txid: [0; 32], vout: u32::MAX }], 0);
        let a = tx(&[old], 1);
        let b = tx(&[OutPoint { txid: a.txid(), vout: 0 }], 2);
        let block = Block { header, txdata: vec![coinbase, a, b] };
        let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
        assert!(spend_order(&block, &txids, &[coin(3), coin(10)], 10).is_none());
        assert!(spend_order(&block, &txids, &[coin(3), coin(11)], 10).is_some());
    }
}
