// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify::{validation, chainstate}`: one block checked against its spent
//! outputs, and a replay of a block file through the chain state.
//!
//! Networks are named as on the command line (`"mainnet"`, `"testnet3"` or `"testnet"`,
//! `"testnet4"`, `"signet"`, `"regtest"`). Both calls release the GIL while they validate.
use crate::{backend_arg, Error};
use fullverify::chain::{ChainParams, Network};
use fullverify::chainstate::{ChainError, Chainstate, ChainstateOptions};
use fullverify::encode::{display_hex, TxOut};
use fullverify::utxo::Coin;
use fullverify::validation::{check_block_with_spent, SigMode};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Instant;

/// Largest block a frame may announce (`MAX_BLOCK_SERIALIZED_SIZE`).
const MAX_BLOCK_BYTES: u32 = 4_000_000;

fn network_arg(name: &str) -> PyResult<Network> {
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
        check_block_with_spent(block, &coins, height, network, threads, b, SigMode::for_backend(b))
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
// Replay
// ---------------------------------------------------------------------------------------------

/// Blocks from a file: framed (`magic ‖ u32 LE length ‖ block`, repeated, as Core's blk*.dat
/// without obfuscation; four zero bytes end the data, as Core's preallocated files) or hex
/// (one block per line).
enum BlockFile {
    Framed { r: BufReader<File>, magic: [u8; 4] },
    Hex { lines: std::io::Lines<BufReader<File>>, line: usize },
}

fn from_hex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    let nib = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    b.chunks(2).map(|p| Some(nib(p[0])? << 4 | nib(p[1])?)).collect()
}

impl BlockFile {
    fn open(path: &Path, params: &ChainParams) -> Result<BlockFile, String> {
        let io = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut r = BufReader::new(File::open(path).map_err(io)?);
        let head = r.fill_buf().map_err(io)?;
        if head.len() >= 4 && head[..4] == params.magic {
            return Ok(BlockFile::Framed { r, magic: params.magic });
        }
        if let Some(n) = Network::ALL.iter().find(|n| head.len() >= 4 && head[..4] == n.params().magic) {
            return Err(format!("{}: framed {n} blocks, not {}", path.display(), params.network));
        }
        if head.iter().take(160).all(|c| c.is_ascii_hexdigit() || c.is_ascii_whitespace()) {
            return Ok(BlockFile::Hex { lines: r.lines(), line: 0 });
        }
        Err(format!(
            "{}: neither framed {} blocks (magic {}) nor hex blocks one per line",
            path.display(),
            params.network,
            params.magic.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ))
    }

    fn next_block(&mut self) -> Option<Result<Vec<u8>, String>> {
        match self {
            BlockFile::Framed { r, magic } => {
                let mut head = [0u8; 8];
                match read_exact_or_eof(r, &mut head) {
                    Ok(0) => return None,
                    Ok(8) => {}
                    Ok(_) => return Some(Err("truncated frame header".into())),
                    Err(e) => return Some(Err(e.to_string())),
                }
                if head[..4] == [0; 4] {
                    return None;
                }
                if head[..4] != *magic {
                    return Some(Err(format!("bad frame magic {:02x?}", &head[..4])));
                }
                let len = u32::from_le_bytes(head[4..].try_into().expect("4"));
                if len > MAX_BLOCK_BYTES {
                    return Some(Err(format!("frame of {len} bytes")));
                }
                let mut block = vec![0u8; len as usize];
                match read_exact_or_eof(r, &mut block) {
                    Ok(n) if n == block.len() => Some(Ok(block)),
                    Ok(_) => Some(Err("truncated block".into())),
                    Err(e) => Some(Err(e.to_string())),
                }
            }
            BlockFile::Hex { lines, line } => loop {
                *line += 1;
                let l = match lines.next()? {
                    Ok(l) => l,
                    Err(e) => return Some(Err(e.to_string())),
                };
                let l = l.trim();
                if l.is_empty() {
                    continue;
                }
                return Some(from_hex(l).ok_or_else(|| format!("line {line}: not hex")));
            },
        }
    }
}

/// Fills `buf`; returns how many bytes were read before the end of the file.
fn read_exact_or_eof(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn block_prev_hash(raw: &[u8]) -> Option<[u8; 32]> {
    raw.get(4..36).map(|s| s.try_into().expect("32"))
}

/// What a replay produced (built into a dict once the GIL is held again).
struct ReplayOutcome {
    network: Network,
    summary: fullverify::chainstate::StateSummary,
    resumed_from: Option<u32>,
    blocks: u64,
    txs: u64,
    inputs: u64,
    wall_s: f64,
    invalid: Option<fullverify::validation::BlockError>,
}

#[allow(clippy::too_many_arguments)]
fn run_replay(
    source: &Path,
    network: Network,
    threads: usize,
    dbcache_mb: usize,
    stop_height: Option<u32>,
    datadir: Option<&Path>,
    backend: fullverify::Backend,
) -> Result<ReplayOutcome, String> {
    let start = Instant::now();
    let params = network.params();
    let mut opts = ChainstateOptions::new(network);
    opts.threads = threads;
    opts.dbcache_bytes = dbcache_mb << 20;
    opts.backend = backend;
    opts.sig_mode = SigMode::for_backend(backend);
    let mut cs = match datadir {
        Some(d) => Chainstate::open(d, opts).map_err(|e| format!("{}: {e}", d.display()))?,
        None => Chainstate::open_in_memory(opts),
    };
    let mut src = BlockFile::open(source, params)?;
    let resumed_from = cs.tip();
    // Blocks of the source already in the state are skipped until the tip is found.
    let mut waiting_for_tip = resumed_from.map(|(_, h)| h);
    let (mut blocks, mut txs, mut inputs) = (0u64, 0u64, 0u64);
    let mut invalid = None;
    let mut connect = |cs: &mut Chainstate, raw: &[u8]| -> Result<bool, String> {
        match cs.connect_block(raw) {
            Ok(s) => {
                blocks += 1;
                txs += s.txs as u64;
                // The coinbase's input spends nothing: count the inputs that spend coins.
                inputs += s.inputs.saturating_sub(1) as u64;
                Ok(true)
            }
            Err(ChainError::Invalid(e)) => {
                invalid = Some(e);
                Ok(false)
            }
            Err(e) => Err(e.to_string()),
        }
    };
    loop {
        if let (Some(stop), Some((h, _))) = (stop_height, cs.tip()) {
            if h >= stop {
                break;
            }
        }
        let Some(raw) = src.next_block() else { break };
        let raw = raw.map_err(|e| format!("{}: {e}", source.display()))?;
        let prev = block_prev_hash(&raw)
            .ok_or_else(|| format!("{}: block shorter than a header", source.display()))?;
        if let Some(tip) = waiting_for_tip {
            if fullverify::hash::sha256d(&raw[..80.min(raw.len())]) == tip {
                waiting_for_tip = None;
                continue;
            }
            if prev != tip {
                continue;
            }
            waiting_for_tip = None;
        }
        if cs.tip().is_none() && prev != [0; 32] {
            // A source that starts at height 1: connect the network's genesis block first.
            let g = params.genesis_block();
            let mut genesis = g.header.to_bytes().to_vec();
            fullverify::encode::write_compact_size(&mut genesis, g.txdata.len() as u64);
            for tx in &g.txdata {
                genesis.extend_from_slice(&tx.to_bytes(true));
            }
            if !connect(&mut cs, &genesis)? {
                break;
            }
        }
        if !connect(&mut cs, &raw)? {
            break;
        }
    }
    if let Some(tip) = waiting_for_tip {
        return Err(format!(
            "{}: the source does not contain the state's tip {} (nor its child)",
            source.display(),
            display_hex(&tip)
        ));
    }
    cs.flush().map_err(|e| format!("flushing the chain state: {e}"))?;
    Ok(ReplayOutcome {
        network,
        summary: cs.summary(),
        resumed_from: resumed_from.map(|(h, _)| h),
        blocks,
        txs,
        inputs,
        wall_s: start.elapsed().as_secs_f64(),
        invalid,
    })
}

/// Replays the blocks of ``source`` (a path: framed ``magic | u32 LE length | block`` records
/// as in Core's blk*.dat without obfuscation, or hex blocks one per line) through the chain
/// state with every consensus rule, and returns the result.
///
/// Blocks must come in chain order; a source starting at height 1 gets the network's genesis
/// block first. ``datadir``: an on-disk chain state, resumed from its last flush (blocks of the
/// source up to its tip are skipped) and flushed at the end; without it the state is in memory.
/// ``stop_height`` stops once the tip reaches that height. ``threads=0`` uses every core;
/// ``dbcache_mb`` is the coins cache budget.
///
/// The dict holds the state at the tip as the replay packet's ``state`` (``height``, ``tip``
/// (display hex), ``utxo_count``, ``total_amount`` (satoshis), ``muhash`` (Core's
/// ``gettxoutsetinfo muhash`` form)), the run's ``blocks``, ``txs``, ``inputs`` (inputs that
/// spend a coin), ``wall_s`` and ``inputs_per_s``, ``network``, ``resumed_from_height`` and
/// ``error``: ``None``, or for an invalid block a dict with ``reason`` (Core's reject reason),
/// ``height``, ``hash``, ``tx`` (``{"index", "txid"}`` or ``None``), ``input`` and
/// ``message``; the state is then the one before that block. Unreadable sources and store
/// failures raise ``fullverify.Error``.
#[pyfunction]
#[pyo3(signature = (source, *, network="mainnet", threads=0, dbcache_mb=450, stop_height=None, datadir=None, backend=None))]
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
) -> PyResult<Bound<'py, PyDict>> {
    let network = network_arg(network)?;
    let b = backend_arg(backend)?;
    let threads = threads_arg(threads);
    let o = py
        .detach(|| run_replay(&source, network, threads, dbcache_mb, stop_height, datadir.as_deref(), b))
        .map_err(Error::new_err)?;
    let d = PyDict::new(py);
    d.set_item("network", o.network.name())?;
    d.set_item("height", o.summary.height)?;
    d.set_item("tip", o.summary.tip.map(|h| display_hex(&h)))?;
    d.set_item("utxo_count", o.summary.utxo_count)?;
    d.set_item("total_amount", o.summary.total_amount)?;
    d.set_item("muhash", o.summary.muhash)?;
    d.set_item("blocks", o.blocks)?;
    d.set_item("txs", o.txs)?;
    d.set_item("inputs", o.inputs)?;
    d.set_item("wall_s", o.wall_s)?;
    d.set_item("inputs_per_s", if o.wall_s > 0.0 { o.inputs as f64 / o.wall_s } else { 0.0 })?;
    d.set_item("resumed_from_height", o.resumed_from)?;
    match o.invalid {
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_block, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    Ok(())
}
