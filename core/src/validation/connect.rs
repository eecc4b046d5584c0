// SPDX-License-Identifier: MIT OR Apache-2.0
//! Connecting a block to the UTXO set: Core's `ConnectBlock` (`src/validation.cpp`) with
//! `CheckTxInputs`, `SequenceLocks` (`src/consensus/tx_verify.cpp`), BIP30 and the sigop cost.

use super::block::{CheckedBlock, MAX_BLOCK_SIGOPS_COST};
use super::deferred::{verify_scripts_beside, Checks, SigMode};
use super::error::BlockError;
use super::scripts::script_failure;
use crate::backend::Backend;
use crate::chain::{ChainParams, COINBASE_MATURITY};
use crate::crew::Side;
use crate::encode::{Block, OutPoint, Transaction, TxOut, MAX_MONEY};
use crate::script::opcodes::is_unspendable;
use crate::script::sigops::transaction_sigop_cost_with_legacy;
use crate::script::ScriptFlags;
use crate::utxo::{Coin, OutPointSet, SaltedOutPoints};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Where [`connect_block`] reads coins from (the chainstate's cache, or a given list).
pub trait CoinSource {
    /// The error of a failed lookup.
    type Error;
    /// The unspent coin at `op` before this block.
    fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, Self::Error>;
    /// Whether an unspent coin of the transaction `txid` may exist before this block: `false`
    /// only if none does, and BIP30 then skips looking up the transaction's outputs one by one.
    /// `true` unless the source keeps an index of its txids.
    fn may_hold_txid(&mut self, txid: &[u8; 32]) -> bool {
        let _ = txid;
        true
    }
}

/// The changes a valid block makes to the UTXO set.
#[derive(Clone, Debug, Default)]
pub struct BlockDelta {
    /// Coins that existed before the block and are spent by it (outpoint, coin).
    pub spent: Vec<(OutPoint, Coin)>,
    /// Coins the block adds that are still unspent at its end; the flag says whether it is a
    /// coinbase output (a possible overwrite of a duplicate coinbase).
    pub created: Vec<(OutPoint, Coin)>,
}

/// What the chain context supplies to [`connect_block`].
pub struct ConnectContext<'a> {
    /// The network's consensus parameters.
    pub params: &'static ChainParams,
    /// Height of the block being connected.
    pub height: u32,
    /// Script flags of this block.
    pub flags: ScriptFlags,
    /// Median time past of the block at a height (ancestors only); `None` in single-block mode,
    /// where time-based BIP68 locks are not checked.
    pub mtp: Option<&'a dyn Fn(u32) -> i64>,
    /// Whether BIP30 is checked (Core's `fEnforceBIP30` after the BIP34 skip).
    pub enforce_bip30: bool,
    /// Whether to verify scripts (false only for blocks covered by assumevalid).
    pub verify_scripts: bool,
    /// Script-check worker threads (≥ 1; the calling thread is one of them).
    pub threads: usize,
    /// Signature backend for script checks.
    pub backend: Backend,
    /// How the signature checks are done ([`verify_scripts_with`](super::verify_scripts_with)); the verdict and the
    /// failure reported are the same in every mode.
    pub sig_mode: SigMode,
}

/// Per-block counts and timings of [`connect_block`].
#[derive(Clone, Debug, Default)]
pub struct ConnectOutcome {
    /// The changes to the UTXO set.
    pub delta: BlockDelta,
    /// All inputs, the coinbase's included (Core's `nInputs`).
    pub inputs: usize,
    /// Total signature-operation cost of the block.
    pub sigops_cost: u64,
    /// Sum of the transaction fees in satoshis.
    pub fees: i64,
    /// Time spent reading coins from the source (BIP30 lookups included).
    pub fetch: Duration,
    /// The part of `fetch` spent on BIP30: a lookup for every output the block creates, each a
    /// miss unless the block is invalid (zero where BIP30 is not enforced).
    pub bip30: Duration,
    /// Time spent verifying input scripts.
    pub scripts: Duration,
}

/// An error from [`connect_block`]: the block is invalid, or the coin source failed.
#[derive(Debug)]
pub enum ConnectError<E> {
    /// The block breaks a consensus rule.
    Invalid(BlockError),
    /// The coin source failed; nothing can be said about the block.
    Source(E),
}

fn money_range(v: i64) -> bool {
    (0..=MAX_MONEY).contains(&v)
}

/// BIP68 sequence-lock flags.
const SEQUENCE_DISABLE: u32 = 1 << 31;
const SEQUENCE_TYPE_TIME: u32 = 1 << 22;
const SEQUENCE_MASK: u32 = 0x0000_ffff;
const SEQUENCE_GRANULARITY: u32 = 9;

/// `CalculateSequenceLocks` + `EvaluateSequenceLocks` for a transaction in the block at
/// `height`; `prev_heights[i]` is the creation height of input i's coin.
fn sequence_locks_ok(
    tx: &Transaction,
    prev_heights: &[u32],
    height: u32,
    mtp: Option<&dyn Fn(u32) -> i64>,
) -> bool {
    if tx.version < 2 {
        return true;
    }
    let (mut min_height, mut min_time) = (-1i64, -1i64);
    for (i, inp) in tx.inputs.iter().enumerate() {
        if inp.sequence & SEQUENCE_DISABLE != 0 {
            continue;
        }
        let ch = prev_heights[i] as i64;
        let v = (inp.sequence & SEQUENCE_MASK) as i64;
        if inp.sequence & SEQUENCE_TYPE_TIME != 0 {
            if let Some(mtp) = mtp {
                let coin_time = mtp((ch - 1).max(0) as u32);
                min_time = min_time.max(coin_time + (v << SEQUENCE_GRANULARITY) - 1);
            }
        } else {
            min_height = min_height.max(ch + v - 1);
        }
    }
    if min_height >= height as i64 {
        return false;
    }
    match mtp {
        Some(mtp) if height > 0 => min_time < mtp(height - 1),
        _ => true,
    }
}

/// `ConnectBlock` after the header and block checks: reads the spent coins from `source`
/// (coins created earlier in the same block are taken from the block), applies every rule, and
/// returns the delta without changing anything.
pub fn connect_block<S: CoinSource + Send>(
    block: &Block,
    checked: &CheckedBlock,
    ctx: &ConnectContext<'_>,
    source: &mut S,
) -> Result<ConnectOutcome, ConnectError<S::Error>> {
    connect_block_beside(block, checked, ctx, source, |_| ()).0
}

/// [`connect_block`], with `beside` run on one of the script workers while the others verify
/// the scripts (before them on one thread, after the input checks without scripts): it gets
/// the coin source, which the scripts do not use, so it can read coins ahead, for instance the
/// next block's. Its result comes back unless the block failed before its scripts.
/// `ConnectOutcome::scripts` then includes the time `beside` took on its worker.
pub fn connect_block_beside<S: CoinSource + Send, T: Send>(
    block: &Block,
    checked: &CheckedBlock,
    ctx: &ConnectContext<'_>,
    source: &mut S,
    beside: impl FnOnce(&mut S) -> T + Send,
) -> (Result<ConnectOutcome, ConnectError<S::Error>>, Option<T>) {
    let (r, t) = connect_beside(block, checked, ctx, source, beside);
    (r.map(|c| c.into_outcome(|t, o| block.txdata[t].outputs[o].script_pubkey.clone())), t)
}

/// [`connect_block_beside`] before the created coins get their scripts: a caller done with the
/// block gives them its outputs' ([`Connected::taking_scripts`]).
pub(crate) fn connect_beside<S: CoinSource + Send, T: Send>(
    block: &Block,
    checked: &CheckedBlock,
    ctx: &ConnectContext<'_>,
    source: &mut S,
    beside: impl FnOnce(&mut S) -> T + Send,
) -> (Result<Connected, ConnectError<S::Error>>, Option<T>) {
    let connected = match connect_inputs(block, checked, ctx, source) {
        Ok(c) => c,
        Err(e) => return (Err(e), None),
    };
    if !ctx.verify_scripts {
        return (Ok(connected), Some(beside(source)));
    }
    let ts = Instant::now();
    let mut beside_result = None;
    let side = Side::new(|| beside_result = Some(beside(source)));
    let checks = Checks { flags: ctx.flags, threads: ctx.threads, backend: ctx.backend, mode: ctx.sig_mode };
    let r = verify_scripts_beside(&block.txdata, &connected.spent_outs, checks, &side);
    // Applying the block and connecting the next one's inputs come before the next job.
    crate::crew::rest_helpers();
    drop(side);
    let scripts = ts.elapsed();
    let r = r
        .map(|()| Connected { out: ConnectOutcome { scripts, ..connected.out }, ..connected })
        .map_err(|f| ConnectError::Invalid(script_failure(checked, ctx.height, f)));
    (r, beside_result)
}

/// What [`connect_inputs`] gives: the outcome, whose coins (`delta.spent` and `delta.created`)
/// have no script yet, the outputs spent by each transaction, where each spent coin's output is
/// among them, and where each created coin's output is in the block. The spent coins' scripts
/// are moved in once the spent outputs are no longer needed ([`Connected::into_outcome`]), so a
/// coin read from the source is copied once; the created coins' scripts are copied from the
/// block, or taken from it when the caller is done with it ([`Connected::taking_scripts`]). A caller
/// that needs only the counts gets no delta ([`Connected::counts_and_spent_outputs`]).
pub(crate) struct Connected {
    out: ConnectOutcome,
    spent_outs: Vec<Vec<TxOut>>,
    /// (transaction, input) of each coin of `out.delta.spent`, in its order.
    spent_at: Vec<(u32, u32)>,
    /// (transaction, output) of each coin of `out.delta.created`, in its order.
    created_at: Vec<(u32, u32)>,
}

impl Connected {
    /// The outcome, the spent outputs' scripts moved into its spent coins, each created coin's
    /// script `created(transaction, output)`.
    fn into_outcome(mut self, created: impl FnMut(usize, usize) -> Vec<u8>) -> ConnectOutcome {
        self.put_scripts(std::mem::take);
        self.put_created(created);
        self.out
    }

    /// The outcome, the created coins given the scripts of `block`'s outputs (taken: the
    /// caller is done with the block, which is left without them).
    pub(crate) fn taking_scripts(self, block: &mut Block) -> ConnectOutcome {
        self.into_outcome(|t, o| std::mem::take(&mut block.txdata[t].outputs[o].script_pubkey))
    }

    /// The outcome without its delta (left empty: the caller needs the counts, fees and times),
    /// and the outputs spent by each transaction.
    pub(super) fn counts_and_spent_outputs(self) -> (ConnectOutcome, Vec<Vec<TxOut>>) {
        (ConnectOutcome { delta: BlockDelta::default(), ..self.out }, self.spent_outs)
    }

    /// Gives each created coin the script `created(transaction, output)`.
    fn put_created(&mut self, mut created: impl FnMut(usize, usize) -> Vec<u8>) {
        for ((_, coin), &(t, o)) in self.out.delta.created.iter_mut().zip(&self.created_at) {
            coin.out.script_pubkey = created(t as usize, o as usize);
        }
    }

    /// Gives each spent coin the script `script` makes of its spent output's.
    fn put_scripts(&mut self, script: impl Fn(&mut Vec<u8>) -> Vec<u8>) {
        for ((_, coin), &(t, i)) in self.out.delta.spent.iter_mut().zip(&self.spent_at) {
            coin.out.script_pubkey = script(&mut self.spent_outs[t as usize][i as usize].script_pubkey);
        }
    }
}

/// Everything [`connect_block`] checks except the input scripts, and the outputs spent by each
/// transaction (empty for the coinbase), which the scripts are verified against.
pub(super) fn connect_inputs<S: CoinSource>(
    block: &Block,
    checked: &CheckedBlock,
    ctx: &ConnectContext<'_>,
    source: &mut S,
) -> Result<Connected, ConnectError<S::Error>> {
    let height = ctx.height;
    let at = |r: &str, t: usize, i: Option<usize>| {
        ConnectError::Invalid(BlockError {
            tx: Some((t, checked.txids[t])),
            input: i,
            ..BlockError::new(r, checked.hash, height)
        })
    };
    // BIP30: no output of this block may overwrite an unspent coin. A transaction whose txid
    // the source holds no coin of (nearly every one: a txid repeats only with a duplicate
    // transaction) needs no lookup per output.
    let bip30 = if ctx.enforce_bip30 {
        let tf = Instant::now();
        for (t, tx) in block.txdata.iter().enumerate() {
            if !source.may_hold_txid(&checked.txids[t]) {
                continue;
            }
            for vout in 0..tx.outputs.len() as u32 {
                let op = OutPoint { txid: checked.txids[t], vout };
                if source.coin(&op).map_err(ConnectError::Source)?.is_some() {
                    return Err(at("bad-txns-BIP30", t, None));
                }
            }
        }
        tf.elapsed()
    } else {
        Duration::ZERO
    };
    let mut fetch = bip30;
    // The block's transactions connected so far by txid (an input can spend only an earlier
    // transaction's output), the first output of each in one flat numbering, and which of
    // those outputs the block has spent; pre-block coins spent so far. Sized for the whole
    // block up front (growing them, rehashing as they went, made the fetch of the spent coins
    // about a sixth slower on the default corpus).
    let n_inputs = block.spending_inputs();
    let mut own: HashMap<[u8; 32], usize, SaltedOutPoints> =
        HashMap::with_capacity_and_hasher(block.txdata.len(), SaltedOutPoints);
    let mut n_outputs = 0;
    let first_output: Vec<usize> = block
        .txdata
        .iter()
        .map(|tx| {
            n_outputs += tx.outputs.len();
            n_outputs - tx.outputs.len()
        })
        .collect();
    let mut spent_here = vec![false; n_outputs];
    let mut spent_before = OutPointSet::with_capacity_and_hasher(n_inputs, Default::default());
    let mut delta_spent: Vec<(OutPoint, Coin)> = Vec::with_capacity(n_inputs);
    let mut spent_at: Vec<(u32, u32)> = Vec::with_capacity(n_inputs);
    let mut spent_outs: Vec<Vec<TxOut>> = Vec::with_capacity(block.txdata.len());
    let (mut fees, mut sigops, mut inputs) = (0i64, 0u64, 0usize);
    for (t, tx) in block.txdata.iter().enumerate() {
        inputs += tx.inputs.len();
        let mut coins: Vec<Coin> = Vec::with_capacity(tx.inputs.len());
        if !tx.is_coinbase() {
            // HaveInputs: every input present and unspent.
            let tf = Instant::now();
            for (i, inp) in tx.inputs.iter().enumerate() {
                // An output of an earlier transaction of this block, as Core's view holds it:
                // unspent until an input here spends it. One that does not exist or cannot be
                // spent was never added, so the outpoint is looked for as if the transaction
                // were not here (only a duplicate txid could find a coin there).
                let here = own.get(&inp.prevout.txid).and_then(|&j| {
                    let o = block.txdata[j].outputs.get(inp.prevout.vout as usize)?;
                    (!is_unspendable(&o.script_pubkey)).then_some((
                        j,
                        first_output[j] + inp.prevout.vout as usize,
                        o,
                    ))
                });
                let c = if let Some((j, k, o)) = here {
                    (!std::mem::replace(&mut spent_here[k], true)).then(|| Coin {
                        out: o.clone(),
                        height,
                        coinbase: block.txdata[j].is_coinbase(),
                    })
                } else if spent_before.contains(&inp.prevout) {
                    None
                } else {
                    match source.coin(&inp.prevout).map_err(ConnectError::Source)? {
                        Some(c) => {
                            spent_before.insert(inp.prevout);
                            // The script comes when the scripts are done with it (see
                            // `Connected`).
                            let out = TxOut { value: c.out.value, script_pubkey: Vec::new() };
                            delta_spent.push((inp.prevout, Coin { out, ..c }));
                            spent_at.push((t as u32, i as u32));
                            Some(c)
                        }
                        None => None,
                    }
                };
                match c {
                    Some(c) => coins.push(c),
                    None => {
                        fetch += tf.elapsed();
                        return Err(at("bad-txns-inputs-missingorspent", t, Some(i)));
                    }
                }
            }
            fetch += tf.elapsed();
            // CheckTxInputs.
            let mut value_in = 0i64;
            for (i, c) in coins.iter().enumerate() {
                if c.coinbase && height.saturating_sub(c.height) < COINBASE_MATURITY {
                    return Err(at("bad-txns-premature-spend-of-coinbase", t, Some(i)));
                }
                value_in = value_in.saturating_add(c.out.value);
                if !money_range(c.out.value) || !money_range(value_in) {
                    return Err(at("bad-txns-inputvalues-outofrange", t, Some(i)));
                }
            }
            let value_out: i64 = tx.outputs.iter().map(|o| o.value).sum();
            if value_in < value_out {
                return Err(at("bad-txns-in-belowout", t, None));
            }
            let fee = value_in - value_out;
            if !money_range(fee) {
                return Err(at("bad-txns-fee-outofrange", t, None));
            }
            fees += fee;
            if !money_range(fees) {
                return Err(at("bad-txns-accumulated-fee-outofrange", t, None));
            }
            // BIP68 (CSV active).
            if height >= ctx.params.csv_height {
                let prev_heights: Vec<u32> = coins.iter().map(|c| c.height).collect();
                if !sequence_locks_ok(tx, &prev_heights, height, ctx.mtp) {
                    return Err(at("bad-txns-nonfinal", t, None));
                }
            }
        }
        let outs: Vec<TxOut> = coins.into_iter().map(|c| c.out).collect();
        // `GetTransactionSigOpCost`, its legacy part counted by `CheckBlock`.
        sigops += transaction_sigop_cost_with_legacy(tx, checked.legacy_sigops[t], &outs, ctx.flags);
        if sigops > MAX_BLOCK_SIGOPS_COST {
            return Err(at("bad-blk-sigops", t, None));
        }
        spent_outs.push(outs);
        // A transaction repeated in the block never gets here: its first input was spent by
        // the first copy.
        let repeated = own.insert(checked.txids[t], t);
        debug_assert!(repeated.is_none(), "a transaction connected twice in one block");
    }
    let cb_out: i64 = block.txdata[0].outputs.iter().map(|o| o.value).sum();
    if cb_out > fees + ctx.params.block_subsidy(height) {
        return Err(at("bad-cb-amount", 0, None));
    }
    // The coins the block leaves, in block order.
    let left = n_outputs - spent_here.iter().filter(|&&s| s).count();
    let mut created_v: Vec<(OutPoint, Coin)> = Vec::with_capacity(left);
    let mut created_at: Vec<(u32, u32)> = Vec::with_capacity(left);
    for (t, tx) in block.txdata.iter().enumerate() {
        for (vout, o) in tx.outputs.iter().enumerate() {
            if spent_here[first_output[t] + vout] || is_unspendable(&o.script_pubkey) {
                continue;
            }
            let op = OutPoint { txid: checked.txids[t], vout: vout as u32 };
            // The script comes with the outcome (see `Connected`).
            let out = TxOut { value: o.value, script_pubkey: Vec::new() };
            created_v.push((op, Coin { out, height, coinbase: tx.is_coinbase() }));
            created_at.push((t as u32, vout as u32));
        }
    }
    let out = ConnectOutcome {
        delta: BlockDelta { spent: delta_spent, created: created_v },
        inputs,
        sigops_cost: sigops,
        fees,
        fetch,
        bip30,
        scripts: Duration::ZERO,
    };
    Ok(Connected { out, spent_outs, spent_at, created_at })
}
