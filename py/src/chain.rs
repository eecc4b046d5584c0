// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify::{validation, chainstate}`: one block checked against its spent
//! outputs, and a replay of a block file through the chain state (the `replay` binary's
//! driver, `fullverify_driver::replay`).
//!
//! Networks are named as on the command line (`"mainnet"`, `"testnet3"` or `"testnet"`,
//! `"testnet4"`, `"signet"`, `"regtest"`). Both calls release the GIL while they validate.
use crate::{backend_arg, Error};
use fullverify::chain::Network;
use fullverify::chainstate::{ChainstateOptions, MuhashPolicy};
use fullverify::encode::{display_hex, TxOut};
use fullverify::utxo::Coin;
use fullverify::validation::{check_block_with_spent, CheckOptions, SigMode};
use fullverify_driver::replay::{run_chain, Failure, Settings, SourceKind, Store};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

pub(crate) fn network_arg(name: &str) -> PyResult<Network> {
    name.parse::<Network>().map_err(|e| Error::new_err(e.to_string()))
}

fn threads_arg(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// One spent output: `(amount, script_pubkey)`, `(amount, script_pubkey, height, coinbase)`
/// or a dict with `amount`, `script_pubkey` and optionally `height` (default 0) and
/// `coinbase` (default False).
fn coin_arg(item: &Bound<'_, PyAny>, k: usize) -> PyResult<Coin> {
    let bad = || {
        PyTypeError::new_err(format!(
            "spent_outputs[{k}]: expected (amount, script_pubkey[, height, coinbase]) or a dict with \
             amount, script_pubkey[, height, coinbase]"
        ))
    };
    if let Ok(d) = item.cast::<PyDict>() {
        for key in d.keys() {
            let key: String = key.extract().map_err(|_| bad())?;
            if !["amount", "script_pubkey", "height", "coinbase"].contains(&key.as_str()) {
                return Err(Error::new_err(format!("spent_outputs[{k}]: unknown key {key:?}")));
            }
        }
        let value: i64 = d.get_item("amount")?.ok_or_else(bad)?.extract()?;
        let script_pubkey: Vec<u8> = d.get_item("script_pubkey")?.ok_or_else(bad)?.extract()?;
        let height: u32 = d.get_item("height")?.map(|h| h.extract()).transpose()?.unwrap_or(0);
        let coinbase: bool = d.get_item("coinbase")?.map(|c| c.extract()).transpose()?.unwrap_or(false);
        return Ok(Coin { out: TxOut { value, script_pubkey }, height, coinbase });
    }
    let t = item.cast::<PyTuple>().map_err(|_| bad())?;
    match t.len() {
        2 => {
            let (value, script_pubkey): (i64, Vec<u8>) = t.extract()?;
            Ok(Coin { out: TxOut { value, script_pubkey }, height: 0, coinbase: false })
        }
        4 => {
            let (value, script_pubkey, height, coinbase): (i64, Vec<u8>, u32, bool) = t.extract()?;
            Ok(Coin { out: TxOut { value, script_pubkey }, height, coinbase })
        }
        _ => Err(bad()),
    }
}

/// Validates one block without its chain, given the outputs its non-coinbase inputs spend (one
/// per input, in block order), at `height` on `network`.
///
/// Returns ``None`` when the block is valid, else Core's reject reason (the core's
/// ``BlockError.reason``): e.g. ``"bad-txns-in-belowout"``, or for a failing script
/// ``"block-script-verify-flag-failed (<Core's ScriptErrorString>)"``. The rules that need
/// ancestors are skipped: expected ``nBits``, median-time-past finality and BIP68 time locks,
/// BIP30. Coinbase maturity uses each spent output's ``height`` and ``coinbase`` (defaults 0
/// and False: always mature). ``threads=0`` uses every core.
///
/// Raises ``fullverify.Error`` for bytes that do not decode as a block, a spent-output count
/// that does not match the block's inputs, an unknown network or backend.
#[pyfunction]
#[pyo3(signature = (block, spent_outputs, height, network="mainnet", threads=0, backend=None))]
fn check_block(
    py: Python<'_>,
    block: &[u8],
    spent_outputs: &Bound<'_, PyAny>,
    height: u32,
    network: &str,
    threads: usize,
    backend: Option<&str>,
) -> PyResult<Option<String>> {
    let network = network_arg(network)?;
    let b = backend_arg(backend)?;
    let mut coins: Vec<Coin> = Vec::new();
    for (k, item) in spent_outputs.try_iter()?.enumerate() {
        coins.push(coin_arg(&item?, k)?);
    }
    let threads = threads_arg(threads);
    let r = py.detach(|| {
        check_block_with_spent(block, &coins, height, &CheckOptions::new(network, threads, b))
            .map(|_| ())
            .map_err(|e| e.reason)
    });
    match r {
        Ok(()) => Ok(None),
        // Argument errors, not consensus failures.
        Err(reason)
            if reason.starts_with("bad-block-decode") || reason.starts_with("spent-outputs-mismatch") =>
        {
            Err(Error::new_err(reason))
        }
        Err(reason) => Ok(Some(reason)),
    }
}

// ---------------------------------------------------------------------------------------------
// Replay: the driver the `replay` binary runs (`fullverify_driver::replay`)
// ---------------------------------------------------------------------------------------------

/// Replays the blocks of ``source`` (a path: framed ``magic | u32 LE length | block`` records
/// as in Core's blk*.dat without obfuscation, or hex blocks one per line) through the chain
/// state with every consensus rule, and returns the result.
///
/// Blocks must come in chain order; a source starting at height 1 gets the network's genesis
/// block first. ``datadir``: an on-disk chain state, resumed from its last flush (blocks of the
/// source up to its tip are skipped) and flushed at the end; without it the state is in memory.
/// ``stop_height`` stops once the tip reaches that height. ``threads=0`` uses every core;
/// ``dbcache_mb`` is the coins cache budget. ``muhash``: ``"final"`` (the set's MuHash once,
/// at the end), ``"incremental"`` (per block; the same value) or ``"off"``.
///
/// The dict holds the state at the tip as the replay packet's ``state`` (``height``, ``tip``
/// (display hex), ``utxo_count``, ``total_amount`` (satoshis), ``muhash`` (Core's
/// ``gettxoutsetinfo muhash`` form; ``None`` with ``muhash="off"``)), the run's ``blocks``, ``txs``, ``inputs`` (inputs that
/// spend a coin), ``wall_s`` and ``inputs_per_s``, ``network``, ``resumed_from_height`` and
/// ``error``: ``None``, or for an invalid block a dict with ``reason`` (Core's reject reason),
/// ``height``, ``hash``, ``tx`` (``{"index", "txid"}`` or ``None``), ``input`` and
/// ``message``; the state is then the one before that block. ``notes``: what the source passed
/// over instead of failing (a second copy of a block, a block on a fork with no more work than
/// the chain), each with its file and byte offset. Unreadable sources (a record length outside
/// 80 bytes to 32 MiB, a truncated record, bytes that are not a record, a block whose parent
/// was not read before it) and store failures raise ``fullverify.Error`` with the message the
/// ``replay`` binary prints, naming the file and byte offset.
#[pyfunction]
#[pyo3(signature = (source, *, network="mainnet", threads=0, dbcache_mb=450, stop_height=None, datadir=None, backend=None, muhash="final"))]
#[allow(clippy::too_many_arguments)]
fn replay<'py>(
    py: Python<'py>,
    source: std::path::PathBuf,
    network: &str,
    threads: usize,
    dbcache_mb: usize,
    stop_height: Option<u32>,
    datadir: Option<std::path::PathBuf>,
    backend: Option<&str>,
    muhash: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let network = network_arg(network)?;
    let muhash = MuhashPolicy::parse_name(muhash).map_err(|e| Error::new_err(e.to_string()))?;
    let b = backend_arg(backend)?;
    let mut chain = ChainstateOptions::new(network);
    chain.threads = threads_arg(threads);
    chain.backend = b;
    chain.sig_mode = SigMode::for_backend(b);
    chain.dbcache_bytes = dbcache_mb << 20;
    chain.muhash = muhash;
    let settings = Settings {
        chain,
        stop_height,
        store: datadir.map_or(Store::Memory, Store::Dir),
        read_ahead: true,
        write: Default::default(),
        // A Python process may open the directory again.
        leave_store_open: false,
    };
    let o = py
        .detach(|| {
            let kind = SourceKind::detect(&source, network).map_err(Failure::Source)?;
            run_chain(kind, &source, &settings, &mut ())
        })
        .map_err(|f| Error::new_err(failure_message(&f)))?;
    let invalid = match o.failure {
        None => None,
        Some(Failure::Invalid { error, .. }) => Some(error),
        Some(f) => return Err(Error::new_err(failure_message(&f))),
    };
    let wall_s = o.wall.as_secs_f64();
    let d = PyDict::new(py);
    d.set_item("network", network.name())?;
    d.set_item("height", o.summary.height)?;
    d.set_item("tip", o.summary.tip.map(|h| display_hex(&h)))?;
    d.set_item("utxo_count", o.summary.utxo_count)?;
    d.set_item("total_amount", o.summary.total_amount)?;
    d.set_item("muhash", o.summary.muhash)?;
    d.set_item("blocks", o.totals.blocks)?;
    d.set_item("txs", o.totals.txs)?;
    d.set_item("inputs", o.totals.inputs)?;
    d.set_item("wall_s", wall_s)?;
    d.set_item("inputs_per_s", if wall_s > 0.0 { o.totals.inputs as f64 / wall_s } else { 0.0 })?;
    d.set_item("resumed_from_height", o.resumed_from)?;
    d.set_item("notes", &o.source.notes)?;
    match invalid {
        None => d.set_item("error", py.None())?,
        Some(e) => {
            let err = PyDict::new(py);
            err.set_item("reason", &e.reason)?;
            err.set_item("height", e.height)?;
            err.set_item("hash", display_hex(&e.hash))?;
            match e.tx {
                Some((i, txid)) => {
                    let t = PyDict::new(py);
                    t.set_item("index", i)?;
                    t.set_item("txid", display_hex(&txid))?;
                    err.set_item("tx", t)?;
                }
                None => err.set_item("tx", py.None())?,
            }
            err.set_item("input", e.input)?;
            err.set_item("message", e.to_string())?;
            d.set_item("error", err)?;
        }
    }
    Ok(d)
}

/// The text of a failure raised as `fullverify.Error` (without the command line's `error: `).
pub(crate) fn failure_message(f: &Failure) -> String {
    match f {
        Failure::Usage(m) | Failure::Source(m) | Failure::Store(m) => m.clone(),
        Failure::Invalid { .. } | Failure::Mismatch(_) => f.to_string(),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_block, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    Ok(())
}
