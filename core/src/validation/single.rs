// SPDX-License-Identifier: MIT OR Apache-2.0
//! One block without its chain, given the coins it spends: `CheckBlock`, `ContextualCheckBlock`
//! and `ConnectBlock` as Core's `TestBlockValidity` runs them, minus what needs ancestors.

use super::block::{check_block_with_txids, contextual_check_block, CheckedBlock};
use super::connect::{connect_inputs, CoinSource, ConnectContext, ConnectError, ConnectOutcome};
use super::deferred::{verify_scripts_beside, verify_scripts_with, Checks, SigMode};
use super::error::BlockError;
use super::header::check_block_header;
use super::scripts::{script_failure, script_flags};
use crate::backend::Backend;
use crate::chain::{ChainParams, Network};
use crate::crew::{build_in_two, Side};
use crate::encode::{Block, OutPoint, TxOut};
use crate::utxo::Coin;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// How [`check_block_with_spent`] checks a block: the network whose rules apply, the script
/// workers (≥ 1; the calling thread is one), the signature backend and how the signature checks
/// are done ([`verify_scripts_with`]; the verdict is the same in every mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// The network whose rules apply.
    pub network: Network,
    /// Script-check workers.
    pub threads: usize,
    /// Signature backend.
    pub backend: Backend,
    /// How the signature checks are done.
    pub sig_mode: SigMode,
}

impl CheckOptions {
    /// `network` on `threads` workers with `backend` and the signature mode that suits it
    /// ([`SigMode::for_backend`]).
    pub fn new(network: Network, threads: usize, backend: Backend) -> CheckOptions {
        CheckOptions { network, threads, backend, sig_mode: SigMode::for_backend(backend) }
    }
}

/// The result of [`check_block_with_spent`].
#[derive(Clone, Debug)]
pub struct BlockCheckSummary {
    /// The block hash (internal byte order).
    pub hash: [u8; 32],
    /// Transactions in the block, the coinbase included.
    pub txs: usize,
    /// Non-coinbase inputs.
    pub inputs: usize,
    /// Sum of the transaction fees in satoshis.
    pub fees: i64,
    /// Total signature-operation cost of the block.
    pub sigops_cost: u64,
    /// Sum of the coinbase outputs.
    pub coinbase_value: i64,
    /// The block subsidy at the height (`GetBlockSubsidy`); `coinbase_value ≤ subsidy + fees`.
    pub subsidy: i64,
    /// Time to decode the block.
    pub parse: Duration,
    /// Time of every check except the scripts.
    pub checks: Duration,
    /// Time spent verifying input scripts.
    pub scripts: Duration,
    /// Whether the checks ran alongside the scripts (two or more threads): `checks` is then
    /// the time of that job, and `scripts` the time of the scripts and that job together.
    pub checks_beside_scripts: bool,
}

struct ListSource(HashMap<OutPoint, Coin>);

impl CoinSource for ListSource {
    type Error = std::convert::Infallible;
    fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, Self::Error> {
        Ok(self.0.get(op).cloned())
    }
}

/// Validates one block without its chain: `spent` holds the coin spent by every non-coinbase
/// input in block order. Everything that needs ancestors is skipped: the expected `nBits`, the
/// median-time-past rules (time-based lock times and BIP68 time locks) and BIP30 (the given
/// coins are exactly the spent ones, so no overwrite can be seen). All other rules, the
/// coinbase amount and every script are checked.
///
/// `spent[k].height` and `spent[k].coinbase` matter for coinbase maturity; the rule flags are
/// those of `height` on the options' network ([`ChainParams::script_flags`]). A rejected block
/// is reported as a [`BlockError`] whose `reason` is Core's reject reason. Scripts run as
/// [`CheckOptions`] says, without changing the result.
///
/// Mainnet block 170, the first transaction between two keys, spends the coinbase of block 9:
///
/// ```
/// use fullverify::chain::Network;
/// use fullverify::encode::TxOut;
/// use fullverify::utxo::Coin;
/// use fullverify::validation::{check_block_with_spent, CheckOptions, SigMode};
/// use fullverify::Backend;
///
/// let block = hex::decode(concat!(
///     "0100000055bd840a78798ad0da853f68974f3d183e2bd1db6a842c1feecf222a00000000ff104ccb05421ab9",
///     "3e63f8c3ce5c2c2e9dbb37de2764b3a3175c8166562cac7d51b96a49ffff001d283e9e700201000000010000",
///     "000000000000000000000000000000000000000000000000000000000000ffffffff0704ffff001d0102ffff",
///     "ffff0100f2052a01000000434104d46c4968bde02899d2aa0963367c7a6ce34eec332b32e42e5f3407e052d6",
///     "4ac625da6f0718e7b302140434bd725706957c092db53805b821a85b23a7ac61725bac000000000100000001",
///     "c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45",
///     "e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4ac",
///     "dd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f5",
///     "1b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a06",
///     "26f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a38",
///     "2e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412",
///     "a3ac00000000",
/// ))
/// .unwrap();
/// let p2pk = hex::decode(concat!(
///     "410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf97444",
///     "64f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac",
/// ))
/// .unwrap();
/// let coin = |value: i64, script_pubkey: Vec<u8>| Coin {
///     out: TxOut { value, script_pubkey },
///     height: 9,
///     coinbase: true,
/// };
/// let opts = CheckOptions { network: Network::Mainnet, threads: 1, backend: Backend::detect(), sig_mode: SigMode::Inline };
///
/// let ok = check_block_with_spent(&block, &[coin(5_000_000_000, p2pk.clone())], 170, &opts)
///     .unwrap();
/// assert_eq!((ok.txs, ok.inputs, ok.fees), (2, 1, 0));
///
/// // 49 BTC in, 50 BTC out.
/// let e = check_block_with_spent(&block, &[coin(4_900_000_000, p2pk.clone())], 170, &opts)
///     .unwrap_err();
/// assert_eq!(e.reason, "bad-txns-in-belowout");
///
/// // Another key: the signature does not verify.
/// let mut other = p2pk.clone();
/// other[10] ^= 1;
/// let e = check_block_with_spent(&block, &[coin(5_000_000_000, other)], 170, &opts)
///     .unwrap_err();
/// assert_eq!(
///     e.reason,
///     "block-script-verify-flag-failed (Script evaluated without error but finished with a \
///      false/empty top stack element)"
/// );
/// assert_eq!((e.tx.map(|t| t.0), e.input), (Some(1), Some(0)));
///
/// // A coinbase output spent too early.
/// let e = check_block_with_spent(&block, &[coin(5_000_000_000, p2pk)], 100, &opts)
///     .unwrap_err();
/// assert_eq!(e.reason, "bad-txns-premature-spend-of-coinbase");
/// ```
pub fn check_block_with_spent(
    raw_block: &[u8],
    spent: &[Coin],
    height: u32,
    opts: &CheckOptions,
) -> Result<BlockCheckSummary, BlockError> {
    let t0 = Instant::now();
    let block = Block::from_bytes(raw_block)
        .map_err(|e| BlockError::new(format!("bad-block-decode ({e})"), [0; 32], height))?;
    let parse = t0.elapsed();
    let mut summary = check_decoded_block_with_spent(&block, spent, height, opts)?;
    summary.parse = parse;
    Ok(summary)
}

/// What a block checked apart from its chain can be told of the chain once its headers are
/// known (a headers-first pass): the median time past of every block below it, so that the
/// rules [`check_block_with_spent`] skips for want of ancestors (lock-time finality against
/// the parent's MTP, BIP68 time locks against the MTP before each spent coin's block) are
/// checked as [`crate::chainstate::Chainstate`] checks them.
#[derive(Clone, Copy)]
pub struct ChainContext<'a> {
    /// Median time past of the block at a height; asked only for heights below the block's.
    pub mtp: &'a (dyn Fn(u32) -> i64 + Sync),
}

impl std::fmt::Debug for ChainContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChainContext { mtp: .. }")
    }
}

/// [`check_decoded_block_with_spent`] with the chain's median times past: finality and BIP68
/// as in a connected chain. BIP30 is still the caller's (it needs the UTXO set). `txids`: the
/// block's txids when the caller has them already (one per transaction, in block order, from
/// this block), so they are not hashed again.
pub fn check_decoded_block_in_chain(
    block: &Block,
    txids: Option<&[[u8; 32]]>,
    spent: &[Coin],
    height: u32,
    opts: &CheckOptions,
    chain: ChainContext<'_>,
) -> Result<BlockCheckSummary, BlockError> {
    check_decoded(block, txids, spent, height, opts, Some(chain.mtp))
}

/// [`check_block_with_spent`] on a block already decoded (`parse` is zero in the summary).
///
/// With two or more threads the scripts are verified against `spent` while one more thread
/// runs every other check alongside them (`CheckBlock`, `ContextualCheckBlock` and the input
/// checks of `ConnectBlock`); the verdict is that of the sequential order, in which a failed
/// check outranks a failed script. Then `checks` and `scripts` in the summary overlap and may
/// add up to more than the time taken. A block whose header fails its proof of work is
/// rejected before any script runs.
pub fn check_decoded_block_with_spent(
    block: &Block,
    spent: &[Coin],
    height: u32,
    opts: &CheckOptions,
) -> Result<BlockCheckSummary, BlockError> {
    check_decoded(block, None, spent, height, opts, None)
}

/// Median time past by height, when the chain is known.
type Mtp<'a> = Option<&'a (dyn Fn(u32) -> i64 + Sync)>;

fn check_decoded(
    block: &Block,
    txids: Option<&[[u8; 32]]>,
    spent: &[Coin],
    height: u32,
    opts: &CheckOptions,
    mtp: Mtp<'_>,
) -> Result<BlockCheckSummary, BlockError> {
    let &CheckOptions { network, threads, backend, sig_mode } = opts;
    let params = network.params();
    let n_inputs = block.spending_inputs();
    let hash = block.block_hash();
    if threads < 2 || spent.len() != n_inputs || check_block_header(&block.header, &hash, params).is_err() {
        // One step after the other.
        let t = Instant::now();
        let (checked, out, _) =
            connect_with_spent(block, txids, spent, height, params, (threads, backend, sig_mode), mtp, true)?;
        let totals = (out.fees, out.sigops_cost);
        let checks = t.elapsed() - out.scripts;
        return Ok(summary(block, &checked, n_inputs, totals, params, height, checks, out.scripts));
    }
    let flags = script_flags(params, height, &hash);
    // The outputs spent by each transaction, as given; the checks below find the real ones
    // (an input may spend an output of this block).
    // Built in two halves of about equal input counts (one on a crew helper).
    let mut first_input: Vec<usize> = Vec::with_capacity(block.txdata.len());
    let mut k = 0;
    for tx in &block.txdata {
        first_input.push(k);
        if !tx.is_coinbase() {
            k += tx.inputs.len();
        }
    }
    let mid = first_input.partition_point(|&i| i < n_inputs / 2);
    let given: Vec<Vec<TxOut>> = build_in_two(threads, block.txdata.len(), mid, |t| {
        let tx = &block.txdata[t];
        if tx.is_coinbase() {
            Vec::new()
        } else {
            spent[first_input[t]..first_input[t] + tx.inputs.len()].iter().map(|c| c.out.clone()).collect()
        }
    });
    let mut checks = None;
    let side = Side::new(|| {
        let t = Instant::now();
        // What the summary needs is kept; the rest is dropped here, beside the scripts, and so
        // are the real spent outputs unless they differ from the given ones.
        let r =
            connect_with_spent(block, txids, spent, height, params, (threads, backend, sig_mode), mtp, false)
                .map(|(checked, out, spent_outs)| {
                    let differ = (spent_outs != given).then_some(spent_outs);
                    (checked, out.fees, out.sigops_cost, differ)
                });
        checks = Some((r, t.elapsed()));
    });
    let ts = Instant::now();
    let how = Checks { flags, threads, backend, mode: sig_mode };
    let scripts_ok = verify_scripts_beside(&block.txdata, &given, how, &side);
    let scripts = ts.elapsed();
    drop(side);
    let (checks, checks_time) = checks.expect("the side job has run");
    let (checked, fees, sigops_cost, differ) = checks?;
    // The scripts ran against the given outputs; where those differ from the real ones (only
    // when an input spends an output of this block and the list disagrees with it), the
    // scripts are verified again against the real ones.
    let (scripts_ok, scripts) = match differ {
        None => (scripts_ok, scripts),
        Some(real) => {
            let ts = Instant::now();
            (
                verify_scripts_with(&block.txdata, &real, flags, threads, backend, sig_mode),
                scripts + ts.elapsed(),
            )
        }
    };
    scripts_ok.map_err(|f| script_failure(&checked, height, f))?;
    Ok(BlockCheckSummary {
        checks_beside_scripts: true,
        ..summary(block, &checked, n_inputs, (fees, sigops_cost), params, height, checks_time, scripts)
    })
}

/// The checks of [`check_decoded_block_with_spent`] in Core's order, the scripts last when
/// `verify_scripts`: the checked block, what connecting it gave (its counts, fees and times; no
/// delta), and the outputs spent by each transaction.
#[allow(clippy::too_many_arguments)]
fn connect_with_spent(
    block: &Block,
    txids: Option<&[[u8; 32]]>,
    spent: &[Coin],
    height: u32,
    params: &'static ChainParams,
    (threads, backend, sig_mode): (usize, Backend, SigMode),
    mtp: Mtp<'_>,
    verify_scripts: bool,
) -> Result<(CheckedBlock, ConnectOutcome, Vec<Vec<TxOut>>), BlockError> {
    let checked = check_block_with_txids(block, txids, height, params, backend)?;
    // The lock-time cutoff a connected chain uses: the parent's MTP once CSV is active.
    let cutoff = mtp.map(|mtp| match height {
        h if h >= params.csv_height && h > 0 => mtp(h - 1),
        _ => block.header.time as i64,
    });
    contextual_check_block(block, &checked, height, cutoff, params)?;
    let n_inputs = block.spending_inputs();
    if spent.len() != n_inputs {
        return Err(BlockError::new(
            format!("spent-outputs-mismatch ({} for {n_inputs} inputs)", spent.len()),
            checked.hash,
            height,
        ));
    }
    let in_block: HashSet<[u8; 32]> = checked.txids.iter().copied().collect();
    let mut map = HashMap::new();
    let mut k = 0;
    for tx in block.txdata.iter().filter(|t| !t.is_coinbase()) {
        for inp in &tx.inputs {
            if !in_block.contains(&inp.prevout.txid) {
                map.insert(inp.prevout, spent[k].clone());
            }
            k += 1;
        }
    }
    let ctx = ConnectContext {
        params,
        height,
        flags: script_flags(params, height, &checked.hash),
        mtp: mtp.map(|m| m as &dyn Fn(u32) -> i64),
        enforce_bip30: false,
        verify_scripts,
        threads,
        backend,
        sig_mode,
    };
    let invalid = |e: ConnectError<std::convert::Infallible>| match e {
        ConnectError::Invalid(b) => b,
        ConnectError::Source(never) => match never {},
    };
    let mut source = ListSource(map);
    let (mut out, spent_outs) =
        connect_inputs(block, &checked, &ctx, &mut source).map_err(invalid)?.counts_and_spent_outputs();
    if verify_scripts {
        let ts = Instant::now();
        verify_scripts_with(&block.txdata, &spent_outs, ctx.flags, threads, backend, sig_mode)
            .map_err(|f| script_failure(&checked, height, f))?;
        out.scripts = ts.elapsed();
    }
    Ok((checked, out, spent_outs))
}

#[allow(clippy::too_many_arguments)]
fn summary(
    block: &Block,
    checked: &CheckedBlock,
    inputs: usize,
    (fees, sigops_cost): (i64, u64),
    params: &ChainParams,
    height: u32,
    checks: Duration,
    scripts: Duration,
) -> BlockCheckSummary {
    BlockCheckSummary {
        hash: checked.hash,
        txs: block.txdata.len(),
        inputs,
        fees,
        sigops_cost,
        coinbase_value: block.txdata[0].outputs.iter().map(|o| o.value).sum(),
        subsidy: params.block_subsidy(height),
        parse: Duration::ZERO,
        checks,
        scripts,
        checks_beside_scripts: false,
    }
}
