// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every input's script, in parallel: Core's `CCheckQueue` (`src/checkqueue.h`) as used by
//! `ConnectBlock`, and `GetBlockScriptFlags`. The lowest failing input is the one reported.

use super::block::CheckedBlock;
use super::error::{script_error_string, BlockError, SCRIPT_FAILURE_PREFIX};
use crate::chain::ChainParams;
use crate::crew::{build_in_two, on_workers_beside, Claims, Side};
use crate::encode::{Transaction, TxOut};
use crate::script::interpreter::{verify_input, ScriptError, SigVerifier};
use crate::script::ScriptFlags;
use crate::sighash::TxContext;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The script flags of the block `hash` at `height` (Core's `GetBlockScriptFlags`).
pub fn script_flags(params: &ChainParams, height: u32, hash: &[u8; 32]) -> ScriptFlags {
    params.script_flags(height, hash)
}

/// The first failing input of [`verify_scripts`]: transaction index in the block, input index
/// in the transaction, script error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptFailure {
    /// Index of the transaction in the block.
    pub tx: usize,
    /// Index of the input in that transaction.
    pub input: usize,
    /// The interpreter's error.
    pub error: ScriptError,
}

/// The most inputs a worker claims at once, and the fewest inputs that make a second worker
/// worth starting. Pieces shrink towards one input at the end of the list (see `Claims`): an
/// input with its signature checks done at once takes tens of microseconds, so whole pieces of
/// 16 left the first worker done waiting half a millisecond or so at every block.
pub(super) const CHUNK: usize = 16;

/// How many of `threads` workers a job over `inputs` inputs starts: one more for every
/// [`CHUNK`] inputs, at least one.
pub(super) fn workers_for(threads: usize, inputs: usize) -> usize {
    threads.max(1).min(inputs.div_ceil(CHUNK).max(1))
}

/// Verifies every input of every non-coinbase transaction of `txs`; `spent[t]` holds the
/// outputs spent by transaction `t` (empty for the coinbase). Each transaction's sighash
/// context is built once and shared; `threads` workers claim consecutive pieces of the flat
/// input list, shrinking towards the end. The failure reported is always the one at the lowest flat index:
/// a piece is skipped only when it starts after an already-found failure, so every input
/// before the reported one has been checked.
pub fn verify_scripts<V: SigVerifier>(
    txs: &[Transaction],
    spent: &[Vec<TxOut>],
    flags: ScriptFlags,
    threads: usize,
    verifier: &V,
) -> Result<(), ScriptFailure> {
    let (ctxs, flat) = flat_inputs(txs, spent, threads);
    run_flat(&ctxs, &flat, flags, threads, verifier, &Side::none())
}

/// Every transaction's sighash context (`None` for the coinbase) and the flat list of inputs
/// to check as (transaction, input) pairs in block order. With two or more threads the
/// contexts of the second half of the block are written by a crew helper (fresh memory:
/// most of this step is the page faults).
pub(super) fn flat_inputs<'a>(
    txs: &'a [Transaction],
    spent: &'a [Vec<TxOut>],
    threads: usize,
) -> (Vec<Option<TxContext<'a>>>, Vec<(u32, u32)>) {
    let ctxs = build_in_two(threads, txs.len(), txs.len() / 2, |t| {
        let tx = &txs[t];
        (!tx.is_coinbase()).then(|| TxContext::new(tx, spent.get(t).map(Vec::as_slice)))
    });
    let mut flat: Vec<(u32, u32)> = Vec::new();
    for (t, tx) in txs.iter().enumerate() {
        if ctxs[t].is_some() {
            flat.extend((0..tx.inputs.len() as u32).map(|i| (t as u32, i)));
        }
    }
    (ctxs, flat)
}

/// The worker pool of [`verify_scripts`] over the inputs `flat` (in block order): the failure
/// at the lowest position of `flat`, if any.
pub(super) fn run_flat<V: SigVerifier>(
    ctxs: &[Option<TxContext<'_>>],
    flat: &[(u32, u32)],
    flags: ScriptFlags,
    threads: usize,
    verifier: &V,
    side: &Side<'_>,
) -> Result<(), ScriptFailure> {
    let workers = workers_for(threads, flat.len());
    let claims = Claims::new(flat.len(), workers, 1, CHUNK);
    let first_fail = AtomicUsize::new(usize::MAX);
    let errors: std::sync::Mutex<HashMap<usize, ScriptError>> = Default::default();
    let work = || {
        while let Some(piece) = claims.claim() {
            let start = piece.start;
            if start > first_fail.load(Ordering::Relaxed) {
                break;
            }
            for (k, &(t, i)) in flat[piece].iter().enumerate() {
                let ctx = ctxs[t as usize].as_ref().expect("non-coinbase");
                if let Err(e) = verify_input(ctx, i as usize, flags, verifier) {
                    let idx = start + k;
                    errors.lock().expect("no panics while held").insert(idx, e);
                    first_fail.fetch_min(idx, Ordering::Relaxed);
                    break;
                }
            }
        }
    };
    on_workers_beside(workers, work, side);
    let idx = first_fail.into_inner();
    if idx == usize::MAX {
        return Ok(());
    }
    let e = errors.into_inner().expect("no panics while held")[&idx];
    let (t, i) = flat[idx];
    Err(ScriptFailure { tx: t as usize, input: i as usize, error: e })
}

/// The block error of a failed input script.
pub(super) fn script_failure(checked: &CheckedBlock, height: u32, f: ScriptFailure) -> BlockError {
    BlockError {
        tx: Some((f.tx, checked.txids[f.tx])),
        input: Some(f.input),
        ..BlockError::new(
            format!("{SCRIPT_FAILURE_PREFIX} ({})", script_error_string(f.error)),
            checked.hash,
            height,
        )
    }
}
