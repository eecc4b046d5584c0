// SPDX-License-Identifier: MIT OR Apache-2.0
//! Block validation with Bitcoin Core's rules and reject reasons.
//!
//! The stages, in Core's order:
//!
//! 1. [`check_block_header`] (`CheckBlockHeader`): the proof of work (`high-hash`; Core gives
//!    the same reason when `nBits` itself is negative, zero, overflowing or above the limit).
//! 2. [`contextual_check_block_header`] (`ContextualCheckBlockHeader`): expected `nBits`
//!    (`bad-diffbits`), timestamp above the median of the last 11 (`time-too-old`), at most two
//!    hours ahead of the clock (`time-too-new`), BIP94's timewarp rule, and the minimum version
//!    after BIP34/66/65 (`bad-version(0x…)`).
//! 3. [`check_block`] (`CheckBlock`): on signet the BIP325 block solution
//!    ([`check_signet_solution`], `bad-signet-blksig`), the merkle root and the CVE-2012-2459
//!    duplicate-subtree mutation, size limits, exactly one coinbase and first,
//!    `CheckTransaction` for every transaction, legacy sigops.
//! 4. [`contextual_check_block`] (`ContextualCheckBlock`): finality against the BIP113 median
//!    time past (or the block time before CSV), BIP34 height in the coinbase, the BIP141
//!    witness commitment (or no witness at all), block weight.
//! 5. [`connect_block`] (`ConnectBlock`): BIP30, inputs present and mature, amounts, BIP68
//!    sequence locks, sigop cost, coinbase value, then every input's script in parallel
//!    ([`verify_scripts`]). It produces a [`BlockDelta`] and changes nothing: the caller applies
//!    the delta only when the whole block is valid.
//!
//! Script failures are reported as [`SCRIPT_FAILURE_PREFIX`]` (<error>)` with Core's
//! `ScriptErrorString` text, after every non-script rule of the block, as Core does when it
//! completes its check queue after the transaction loop. The prefix is Core's since v30
//! (`block-script-verify-flag-failed`; earlier releases said
//! `mandatory-script-verify-flag-failed`).

// A rejected block is reported by value (`BlockError`, `ChainError::Invalid(BlockError)`), the
// shape drivers match on; that path runs once per invalid block, so the size costs nothing.
#![allow(clippy::result_large_err)]

use crate::backend::Backend;
use crate::chain::{
    self, ChainParams, HeaderEntry, Network, COINBASE_MATURITY, MAX_FUTURE_BLOCK_TIME, MAX_TIMEWARP,
};
use crate::encode::{
    display_hex, Block, BlockHeader, OutPoint, Transaction, TxOut, MAX_BLOCK_WEIGHT, MAX_MONEY,
};
use crate::hash::sha256d;
use crate::hash::{merkle_root_with, witness_merkle_root};
use crate::script::interpreter::{verify_input, ScriptError, SigVerifier};
use crate::script::opcodes::get_op;
use crate::script::sigops::{transaction_sigop_cost, tx_legacy_sigop_count};
use crate::script::{BackendVerifier, ScriptFlags};
use crate::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use crate::sighash::TxContext;
use crate::utxo::Coin;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// `MAX_BLOCK_SIGOPS_COST`.
pub const MAX_BLOCK_SIGOPS_COST: u64 = 80_000;
/// `WITNESS_SCALE_FACTOR`.
pub const WITNESS_SCALE_FACTOR: u64 = 4;
/// `LOCKTIME_THRESHOLD`: lock times below are heights, above are times.
pub const LOCKTIME_THRESHOLD: u32 = 500_000_000;

/// The reject reason of a failing input script, followed by ` (<ScriptErrorString>)`.
pub const SCRIPT_FAILURE_PREFIX: &str = "block-script-verify-flag-failed";

/// The script flags of the block `hash` at `height` (Core's `GetBlockScriptFlags`).
pub fn script_flags(params: &ChainParams, height: u32, hash: &[u8; 32]) -> ScriptFlags {
    params.script_flags(height, hash)
}

/// A rejected block: Core's reject reason and where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockError {
    /// Core's reject reason (`bad-txns-inputs-missingorspent`, ...).
    pub reason: String,
    /// The block hash (internal byte order).
    pub hash: [u8; 32],
    /// Height of the block (the height it was checked at).
    pub height: u32,
    /// The failing transaction's index in the block and its txid, when there is one.
    pub tx: Option<(usize, [u8; 32])>,
    /// The failing input's index in that transaction, when there is one.
    pub input: Option<usize>,
}

impl BlockError {
    fn new(reason: impl Into<String>, hash: [u8; 32], height: u32) -> BlockError {
        BlockError { reason: reason.into(), hash, height, tx: None, input: None }
    }
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid block at height {} ({}): {}", self.height, display_hex(&self.hash), self.reason)?;
        if let Some((_, txid)) = &self.tx {
            write!(f, " [tx {}", display_hex(txid))?;
            if let Some(i) = self.input {
                write!(f, " input {i}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

impl std::error::Error for BlockError {}

/// Core's `ScriptErrorString` text for a script error.
pub fn script_error_string(e: ScriptError) -> &'static str {
    use ScriptError::*;
    match e {
        UnknownError => "unknown error",
        EvalFalse => "Script evaluated without error but finished with a false/empty top stack element",
        OpReturn => "OP_RETURN was encountered",
        ScriptSize => "Script is too big",
        PushSize => "Push value size limit exceeded",
        OpCount => "Operation limit exceeded",
        StackSize => "Stack size limit exceeded",
        SigCount => "Signature count negative or greater than pubkey count",
        PubkeyCount => "Pubkey count negative or limit exceeded",
        Verify => "Script failed an OP_VERIFY operation",
        EqualVerify => "Script failed an OP_EQUALVERIFY operation",
        CheckMultisigVerify => "Script failed an OP_CHECKMULTISIGVERIFY operation",
        CheckSigVerify => "Script failed an OP_CHECKSIGVERIFY operation",
        NumEqualVerify => "Script failed an OP_NUMEQUALVERIFY operation",
        BadOpcode => "Opcode missing or not understood",
        DisabledOpcode => "Attempted to use a disabled opcode",
        InvalidStackOperation => "Operation not valid with the current stack size",
        InvalidAltstackOperation => "Operation not valid with the current altstack size",
        UnbalancedConditional => "Invalid OP_IF construction",
        NegativeLocktime => "Negative locktime",
        UnsatisfiedLocktime => "Locktime requirement not satisfied",
        SigHashtype => "Signature hash type missing or not understood",
        SigDer => "Non-canonical DER signature",
        MinimalData => "Data push larger than necessary",
        SigPushOnly => "Only push operators allowed in signatures",
        SigHighS => "Non-canonical signature: S value is unnecessarily high",
        SigNullDummy => "Dummy CHECKMULTISIG argument must be zero",
        PubkeyType => "Public key is neither compressed or uncompressed",
        CleanStack => "Stack size must be exactly one after execution",
        MinimalIf => "OP_IF/NOTIF argument must be minimal",
        NullFail => "Signature must be zero for failed CHECK(MULTI)SIG operation",
        DiscourageUpgradableNops => "NOPx reserved for soft-fork upgrades",
        DiscourageUpgradableWitnessProgram => "Witness version reserved for soft-fork upgrades",
        DiscourageUpgradableTaprootVersion => "Taproot version reserved for soft-fork upgrades",
        DiscourageOpSuccess => "OP_SUCCESSx reserved for soft-fork upgrades",
        DiscourageUpgradablePubkeyType => "Public key version reserved for soft-fork upgrades",
        WitnessProgramWrongLength => "Witness program has incorrect length",
        WitnessProgramWitnessEmpty => "Witness program was passed an empty witness",
        WitnessProgramMismatch => "Witness program hash mismatch",
        WitnessMalleated => "Witness requires empty scriptSig",
        WitnessMalleatedP2sh => "Witness requires only-redeemscript scriptSig",
        WitnessUnexpected => "Witness provided for non-witness script",
        WitnessPubkeyType => "Using non-compressed keys in segwit",
        SchnorrSigSize => "Invalid Schnorr signature size",
        SchnorrSigHashtype => "Invalid Schnorr signature hash type",
        SchnorrSig => "Invalid Schnorr signature",
        TaprootWrongControlSize => "Invalid Taproot control block size",
        TapscriptValidationWeight => "Too much signature validation relative to witness weight",
        TapscriptCheckMultisig => "OP_CHECKMULTISIG(VERIFY) is not available in tapscript",
        TapscriptMinimalIf => "OP_IF/NOTIF argument must be minimal in tapscript",
        OpCodeSeparator => "Using OP_CODESEPARATOR in non-witness script",
        SigFindAndDelete => "Signature is found in scriptCode",
        TapscriptEmptyPubkey => "Empty public key in tapscript",
        ScriptNum => "Script number overflowed or is non-minimally encoded",
    }
}

// ---------------------------------------------------------------------------------------------
// Header checks
// ---------------------------------------------------------------------------------------------

/// `CheckBlockHeader`: the header's hash meets its own target.
pub fn check_block_header(
    header: &BlockHeader,
    hash: &[u8; 32],
    params: &ChainParams,
) -> Result<(), &'static str> {
    if chain::check_proof_of_work(hash, header.bits, params) {
        Ok(())
    } else {
        Err("high-hash")
    }
}

/// `ContextualCheckBlockHeader` for a header on top of `chain` (`chain[i]` = block at height i,
/// non-empty); `now` is the adjusted clock in seconds.
pub fn contextual_check_block_header(
    header: &BlockHeader,
    chain: &[HeaderEntry],
    params: &ChainParams,
    now: i64,
) -> Result<(), String> {
    let height = chain.len() as u32;
    if header.bits != chain::next_work_required(chain, header.time, params) {
        return Err("bad-diffbits".into());
    }
    let prev_h = height - 1;
    if header.time as i64 <= chain::median_time_past(chain, prev_h) {
        return Err("time-too-old".into());
    }
    if params.enforce_bip94
        && height.is_multiple_of(params.difficulty_adjustment_interval())
        && (header.time as i64) < chain[prev_h as usize].time as i64 - MAX_TIMEWARP
    {
        return Err("time-timewarp-attack".into());
    }
    if header.time as i64 > now + MAX_FUTURE_BLOCK_TIME {
        return Err("time-too-new".into());
    }
    let v = header.version;
    if (v < 2 && height >= params.bip34_height)
        || (v < 3 && height >= params.bip66_height)
        || (v < 4 && height >= params.bip65_height)
    {
        return Err(format!("bad-version(0x{:08x})", v as u32));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Block checks
// ---------------------------------------------------------------------------------------------

/// What the context-free checks computed and later stages reuse.
#[derive(Clone, Debug)]
pub struct CheckedBlock {
    /// The block hash (internal byte order).
    pub hash: [u8; 32],
    /// The txid of every transaction, in block order.
    pub txids: Vec<[u8; 32]>,
}

/// `CheckBlock` (the proof of work included). `height` only labels errors.
pub fn check_block(
    block: &Block,
    height: u32,
    params: &ChainParams,
    backend: Backend,
) -> Result<CheckedBlock, BlockError> {
    let hash = block.block_hash();
    let err = |r: &str| BlockError::new(r, hash, height);
    check_block_header(&block.header, &hash, params).map_err(err)?;
    let txids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
    if let Some(challenge) = params.signet_challenge {
        if hash != params.genesis_hash && !check_signet_solution(block, &txids, challenge) {
            return Err(err("bad-signet-blksig"));
        }
    }
    let m = merkle_root_with(backend, &txids);
    if m.root != block.header.merkle_root {
        return Err(err("bad-txnmrklroot"));
    }
    if m.mutated {
        return Err(err("bad-txns-duplicate"));
    }
    if block.txdata.is_empty()
        || block.txdata.len() * 4 > MAX_BLOCK_WEIGHT
        || stripped_size(block) * 4 > MAX_BLOCK_WEIGHT
    {
        return Err(err("bad-blk-length"));
    }
    if !block.txdata[0].is_coinbase() {
        return Err(err("bad-cb-missing"));
    }
    let at = |r: &str, i: usize| BlockError { tx: Some((i, txids[i])), ..err(r) };
    for (i, tx) in block.txdata.iter().enumerate().skip(1) {
        if tx.is_coinbase() {
            return Err(at("bad-cb-multiple", i));
        }
    }
    let mut sigops = 0u64;
    for (i, tx) in block.txdata.iter().enumerate() {
        tx.check().map_err(|e| at(e.reason(), i))?;
    }
    for (i, tx) in block.txdata.iter().enumerate() {
        sigops += tx_legacy_sigop_count(tx) as u64;
        if sigops * WITNESS_SCALE_FACTOR > MAX_BLOCK_SIGOPS_COST {
            return Err(at("bad-blk-sigops", i));
        }
    }
    Ok(CheckedBlock { hash, txids })
}

fn stripped_size(block: &Block) -> usize {
    80 + crate::encode::compact_size_len(block.txdata.len() as u64)
        + block.txdata.iter().map(|t| t.base_size()).sum::<usize>()
}

/// BIP141 block weight.
pub fn block_weight(block: &Block) -> usize {
    let total: usize = 80
        + crate::encode::compact_size_len(block.txdata.len() as u64)
        + block.txdata.iter().map(|t| t.to_bytes(true).len()).sum::<usize>();
    stripped_size(block) * 3 + total
}

/// `IsFinalTx`.
pub fn is_final_tx(tx: &Transaction, height: u32, cutoff_time: i64) -> bool {
    if tx.lock_time == 0 {
        return true;
    }
    let lim = if tx.lock_time < LOCKTIME_THRESHOLD { height as i64 } else { cutoff_time };
    if (tx.lock_time as i64) < lim {
        return true;
    }
    tx.inputs.iter().all(|i| i.sequence == u32::MAX)
}

/// The coinbase's witness commitment output index (`GetWitnessCommitmentIndex`): the last
/// output whose script starts `OP_RETURN 0x24 aa21a9ed` and is at least 38 bytes.
pub fn witness_commitment_index(block: &Block) -> Option<usize> {
    let cb = block.txdata.first()?;
    cb.outputs.iter().rposition(|o| {
        let s = &o.script_pubkey;
        s.len() >= 38 && s[..6] == [0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]
    })
}

/// The coinbase height push BIP34 requires (`CScript() << nHeight`).
pub fn bip34_height_push(height: u32) -> Vec<u8> {
    let h = height as i64;
    if h == 0 {
        return vec![0x00];
    }
    if (1..=16).contains(&h) {
        return vec![0x50 + h as u8];
    }
    let mut n = Vec::new();
    let mut v = h;
    while v > 0 {
        n.push((v & 0xff) as u8);
        v >>= 8;
    }
    if n.last().is_some_and(|b| b & 0x80 != 0) {
        n.push(0);
    }
    let mut out = vec![n.len() as u8];
    out.extend_from_slice(&n);
    out
}

/// `ContextualCheckBlock`. `lock_time_cutoff` is the previous block's median time past once CSV
/// is active (BIP113), the block's own time before; `None` skips time-based finality (a single
/// block checked without its ancestors).
pub fn contextual_check_block(
    block: &Block,
    checked: &CheckedBlock,
    height: u32,
    lock_time_cutoff: Option<i64>,
    params: &ChainParams,
) -> Result<(), BlockError> {
    let err = |r: &str| BlockError::new(r, checked.hash, height);
    for (i, tx) in block.txdata.iter().enumerate() {
        let final_ = match lock_time_cutoff {
            Some(c) => is_final_tx(tx, height, c),
            None => tx.lock_time >= LOCKTIME_THRESHOLD || is_final_tx(tx, height, i64::MAX),
        };
        if !final_ {
            return Err(BlockError { tx: Some((i, checked.txids[i])), ..err("bad-txns-nonfinal") });
        }
    }
    if height >= params.bip34_height {
        let want = bip34_height_push(height);
        if !block.txdata[0].inputs[0].script_sig.starts_with(&want) {
            return Err(err("bad-cb-height"));
        }
    }
    let mut committed = false;
    if height >= params.segwit_height {
        if let Some(pos) = witness_commitment_index(block) {
            let w = &block.txdata[0].inputs[0].witness;
            if w.len() != 1 || w[0].len() != 32 {
                return Err(err("bad-witness-nonce-size"));
            }
            let mut wtxids: Vec<[u8; 32]> = block.txdata.iter().map(|t| t.wtxid()).collect();
            wtxids[0] = [0; 32];
            let root = witness_merkle_root(&wtxids).root;
            let mut pre = [0u8; 64];
            pre[..32].copy_from_slice(&root);
            pre[32..].copy_from_slice(&w[0]);
            if sha256d(&pre)[..] != block.txdata[0].outputs[pos].script_pubkey[6..38] {
                return Err(err("bad-witness-merkle-match"));
            }
            committed = true;
        }
    }
    if !committed {
        if let Some(i) = block.txdata.iter().position(|t| t.has_witness()) {
            return Err(BlockError { tx: Some((i, checked.txids[i])), ..err("unexpected-witness") });
        }
    }
    if block_weight(block) > MAX_BLOCK_WEIGHT {
        return Err(err("bad-blk-weight"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Signet (BIP325)
// ---------------------------------------------------------------------------------------------

/// BIP325's tag of the solution push inside the witness commitment output.
pub const SIGNET_HEADER: [u8; 4] = [0xec, 0xc7, 0xda, 0xa2];

/// The flags a signet solution is verified with.
pub fn signet_solution_flags() -> ScriptFlags {
    ScriptFlags::P2SH | ScriptFlags::WITNESS | ScriptFlags::DERSIG | ScriptFlags::NULLDUMMY
}

/// Appends a data push of `data` as Core's `CScript << bytes` writes it (never `OP_n`).
fn push_data(out: &mut Vec<u8>, data: &[u8]) {
    let n = data.len();
    if n < 0x4c {
        out.push(n as u8);
    } else if n <= 0xff {
        out.extend_from_slice(&[0x4c, n as u8]);
    } else if n <= 0xffff {
        out.push(0x4d);
        out.extend_from_slice(&(n as u16).to_le_bytes());
    } else {
        out.push(0x4e);
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    out.extend_from_slice(data);
}

/// Core's `FetchAndClearCommitmentSection`: the data after the first push starting with
/// [`SIGNET_HEADER`] (and longer than it), with that push cut back to the bare header in the
/// rewritten script; `None` when there is no such push.
fn fetch_and_clear_signet_section(script: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut replacement = Vec::with_capacity(script.len());
    let mut solution = None;
    let mut pc = 0;
    while pc < script.len() {
        let Some(op) = get_op(script, &mut pc) else { break };
        if op.data.is_empty() {
            replacement.push(op.opcode);
        } else if solution.is_none()
            && op.data.len() > SIGNET_HEADER.len()
            && op.data.starts_with(&SIGNET_HEADER)
        {
            solution = Some(op.data[SIGNET_HEADER.len()..].to_vec());
            push_data(&mut replacement, &SIGNET_HEADER);
        } else {
            push_data(&mut replacement, op.data);
        }
    }
    solution.map(|s| (s, replacement))
}

/// BIP325's virtual transactions of a block (Core's `SignetTxs::Create`): `to_spend`
/// (version 0, one input from the null outpoint with scriptSig
/// `OP_0 <nVersion ‖ hashPrevBlock ‖ signet merkle root ‖ nTime>`, sequence 0, one output of 0
/// paying `challenge`) and `to_sign` (version 0, spending `to_spend:0` with the solution's
/// scriptSig and witness, sequence 0, one `OP_RETURN` output). The signet merkle root is the
/// block's merkle root with the solution cut out of the coinbase's witness commitment output.
/// A block without a solution gets an empty one; `None`: no witness commitment, or a solution
/// that does not parse exactly.
pub fn signet_txs(block: &Block, txids: &[[u8; 32]], challenge: &[u8]) -> Option<(Transaction, Transaction)> {
    let cidx = witness_commitment_index(block)?;
    let mut cb = block.txdata[0].clone();
    let mut script_sig = Vec::new();
    let mut witness = Vec::new();
    if let Some((solution, replacement)) = fetch_and_clear_signet_section(&cb.outputs[cidx].script_pubkey) {
        cb.outputs[cidx].script_pubkey = replacement;
        let mut r = crate::encode::Reader::new(&solution);
        script_sig = r.var_bytes().ok()?.to_vec();
        let n = r.compact_size().ok()?;
        for _ in 0..n {
            witness.push(r.var_bytes().ok()?.to_vec());
        }
        r.finish().ok()?;
    }
    let mut leaves = txids.to_vec();
    leaves[0] = cb.txid();
    let root = crate::hash::merkle_root(&leaves).root;
    let mut data = Vec::with_capacity(76);
    data.extend_from_slice(&block.header.version.to_le_bytes());
    data.extend_from_slice(&block.header.prev_block);
    data.extend_from_slice(&root);
    data.extend_from_slice(&block.header.time.to_le_bytes());
    let mut to_spend_sig = vec![0x00];
    push_data(&mut to_spend_sig, &data);
    let to_spend = Transaction {
        version: 0,
        inputs: vec![crate::encode::TxIn {
            prevout: OutPoint { txid: [0; 32], vout: u32::MAX },
            script_sig: to_spend_sig,
            sequence: 0,
            witness: Vec::new(),
        }],
        outputs: vec![TxOut { value: 0, script_pubkey: challenge.to_vec() }],
        lock_time: 0,
    };
    let to_sign = Transaction {
        version: 0,
        inputs: vec![crate::encode::TxIn {
            prevout: OutPoint { txid: to_spend.txid(), vout: 0 },
            script_sig,
            sequence: 0,
            witness,
        }],
        outputs: vec![TxOut { value: 0, script_pubkey: vec![0x6a] }],
        lock_time: 0,
    };
    Some((to_spend, to_sign))
}

/// Core's `CheckSignetBlockSolution` (BIP325) for a block other than genesis: the solution in
/// `to_sign` ([`signet_txs`]) must satisfy the challenge under [`signet_solution_flags`].
pub fn check_signet_solution(block: &Block, txids: &[[u8; 32]], challenge: &[u8]) -> bool {
    let Some((to_spend, to_sign)) = signet_txs(block, txids, challenge) else { return false };
    let spent = [to_spend.outputs[0].clone()];
    let ctx = TxContext::new(&to_sign, Some(&spent));
    verify_input(&ctx, 0, signet_solution_flags(), &crate::script::NativeVerifier).is_ok()
}

// ---------------------------------------------------------------------------------------------
// Script checks in parallel
// ---------------------------------------------------------------------------------------------

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

/// Inputs claimed per step by a worker.
const CHUNK: usize = 16;

/// Verifies every input of every non-coinbase transaction of `txs`; `spent[t]` holds the
/// outputs spent by transaction `t` (empty for the coinbase). Each transaction's sighash
/// context is built once and shared; `threads` workers claim chunks of the flat input list
/// through an atomic cursor. The failure reported is always the one at the lowest flat index:
/// a chunk is skipped only when it starts after an already-found failure, so every input
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
fn flat_inputs<'a>(
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

/// Lists shorter than this are built on one thread by [`build_in_two`].
const SPLIT_MIN: usize = 256;

/// `[f(0), f(1), …, f(n − 1)]`. With two or more threads and at least [`SPLIT_MIN`] items,
/// the items from `mid` on are made by a crew helper (see [`crate::crew::join`]) while this
/// thread makes the ones before, each writing its own part of the result.
fn build_in_two<R: Send>(threads: usize, n: usize, mid: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let mut v = Vec::with_capacity(n);
    if threads < 2 || n < SPLIT_MIN || mid == 0 || mid >= n {
        v.extend((0..n).map(f));
        return v;
    }
    fn fill<R>(slots: &mut [std::mem::MaybeUninit<R>], first: usize, f: &impl Fn(usize) -> R) {
        for (k, slot) in slots.iter_mut().enumerate() {
            slot.write(f(first + k));
        }
    }
    let (lo, hi) = v.spare_capacity_mut()[..n].split_at_mut(mid);
    crate::crew::join(threads, || fill(lo, 0, &f), || fill(hi, mid, &f));
    // SAFETY: the two halves cover slots 0..n (capacity n), and `join` returns only after
    // both have written every slot of theirs; a panic in either is resumed by `join` before
    // this line, leaving the vector empty (what was written leaks, nothing is read).
    unsafe { v.set_len(n) };
    v
}

/// Runs `work` on `threads` workers (the calling thread and its crew, see [`crate::crew`]) and
/// returns what each returned, in no particular order.
fn on_workers<R: Send>(threads: usize, work: impl Fn() -> R + Sync) -> Vec<R> {
    on_workers_beside(threads, work, &Side::none())
}

/// A job run by the first worker to start, before it claims its share of the work (once in
/// all); see [`on_workers_beside`].
struct Side<'a>(std::sync::Mutex<Option<Box<dyn FnOnce() + Send + 'a>>>);

impl<'a> Side<'a> {
    fn new(job: impl FnOnce() + Send + 'a) -> Side<'a> {
        Side(std::sync::Mutex::new(Some(Box::new(job))))
    }

    fn none() -> Side<'a> {
        Side(std::sync::Mutex::new(None))
    }

    /// Runs the job unless it has run.
    fn run(&self) {
        let job = self.0.lock().expect("no panics while held").take();
        if let Some(job) = job {
            job();
        }
    }
}

/// [`on_workers`], the first worker to start running `side` first: the other workers share
/// the work meanwhile, and the one that ran it claims what is left.
fn on_workers_beside<R: Send>(threads: usize, work: impl Fn() -> R + Sync, side: &Side<'_>) -> Vec<R> {
    let work = || {
        side.run();
        work()
    };
    if threads <= 1 {
        return vec![work()];
    }
    let all = std::sync::Mutex::new(Vec::with_capacity(threads));
    crate::crew::on_crew(threads, &|| {
        let r = work();
        all.lock().expect("no panics while held").push(r);
    });
    all.into_inner().expect("no panics while held")
}

/// The worker pool of [`verify_scripts`] over the inputs `flat` (in block order): the failure
/// at the lowest position of `flat`, if any.
fn run_flat<V: SigVerifier>(
    ctxs: &[Option<TxContext<'_>>],
    flat: &[(u32, u32)],
    flags: ScriptFlags,
    threads: usize,
    verifier: &V,
    side: &Side<'_>,
) -> Result<(), ScriptFailure> {
    let cursor = AtomicUsize::new(0);
    let first_fail = AtomicUsize::new(usize::MAX);
    let errors: std::sync::Mutex<HashMap<usize, ScriptError>> = Default::default();
    let work = || loop {
        let start = cursor.fetch_add(CHUNK, Ordering::Relaxed);
        if start >= flat.len() || start > first_fail.load(Ordering::Relaxed) {
            break;
        }
        for (k, &(t, i)) in flat[start..(start + CHUNK).min(flat.len())].iter().enumerate() {
            let ctx = ctxs[t as usize].as_ref().expect("non-coinbase");
            if let Err(e) = verify_input(ctx, i as usize, flags, verifier) {
                let idx = start + k;
                errors.lock().expect("no panics while held").insert(idx, e);
                first_fail.fetch_min(idx, Ordering::Relaxed);
                break;
            }
        }
    };
    on_workers_beside(threads.max(1).min(flat.len().div_ceil(CHUNK).max(1)), work, side);
    let idx = first_fail.into_inner();
    if idx == usize::MAX {
        return Ok(());
    }
    let e = errors.into_inner().expect("no panics while held")[&idx];
    let (t, i) = flat[idx];
    Err(ScriptFailure { tx: t as usize, input: i as usize, error: e })
}

/// How the signature checks of a block's scripts are done ([`verify_scripts_with`]). Every
/// mode gives the same verdicts and reports the same failing input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SigMode {
    /// Each check is done when the interpreter reaches it.
    #[default]
    Inline,
    /// BIP340 checks are deferred and verified in batches ([`schnorr::verify_batch_with`]);
    /// ECDSA checks are done inline.
    BatchSchnorr,
    /// ECDSA checks (outside `CHECKMULTISIG`) and BIP340 checks are deferred, then verified many
    /// at a time with [`ecdsa::verify_many`] and [`schnorr::verify_many`]: eight per AVX-512
    /// register on an Ifma token.
    Many,
    /// [`SigMode::Many`] for ECDSA, with the BIP340 checks batched as in
    /// [`SigMode::BatchSchnorr`].
    ManyBatchSchnorr,
}

impl SigMode {
    /// Every mode, in the order of [`SigMode::name`]'s list.
    pub const ALL: [SigMode; 4] =
        [SigMode::Inline, SigMode::BatchSchnorr, SigMode::Many, SigMode::ManyBatchSchnorr];

    /// The faster mode for `backend` when BIP340 checks are not batched: [`SigMode::Many`] on
    /// an Ifma token (where `verify_many` runs eight lanes at once), [`SigMode::Inline`]
    /// elsewhere (where `verify_many` is a loop over single checks and deferring only adds
    /// bookkeeping).
    pub fn for_backend(backend: Backend) -> SigMode {
        if backend.kind() == crate::backend::BackendKind::Ifma {
            SigMode::Many
        } else {
            SigMode::Inline
        }
    }

    /// The same mode with the BIP340 checks batched (or not).
    pub fn with_batch_schnorr(self, batch: bool) -> SigMode {
        match (self.defers_ecdsa(), batch) {
            (false, false) => SigMode::Inline,
            (false, true) => SigMode::BatchSchnorr,
            (true, false) => SigMode::Many,
            (true, true) => SigMode::ManyBatchSchnorr,
        }
    }

    /// The name used on command lines and in result packets: `inline`, `batch-schnorr`,
    /// `many`, `many+batch-schnorr`.
    pub fn name(self) -> &'static str {
        match self {
            SigMode::Inline => "inline",
            SigMode::BatchSchnorr => "batch-schnorr",
            SigMode::Many => "many",
            SigMode::ManyBatchSchnorr => "many+batch-schnorr",
        }
    }

    /// Whether ECDSA checks are deferred.
    pub fn defers_ecdsa(self) -> bool {
        matches!(self, SigMode::Many | SigMode::ManyBatchSchnorr)
    }

    /// Whether BIP340 checks are batched.
    pub fn batches_schnorr(self) -> bool {
        matches!(self, SigMode::BatchSchnorr | SigMode::ManyBatchSchnorr)
    }
}

impl fmt::Display for SigMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SigMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SigMode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            format!("unknown signature mode {s:?} (inline, batch-schnorr, many, many+batch-schnorr)")
        })
    }
}

/// A deferred ECDSA check: the key's bytes (parsed later, many at once), the message, the
/// parsed signature.
type EcdsaItem = (KeyBytes, [u8; 32], ecdsa::Signature);

/// A deferred BIP340 check: the x-only key, the message, the signature.
type SchnorrItem = ([u8; 32], [u8; 32], [u8; 64]);

/// The checks recorded by one [`DeferringVerifier`], each with the position (in the flat input
/// list) of the input that made it.
#[derive(Default)]
struct Deferred {
    ecdsa: Vec<EcdsaItem>,
    ecdsa_owner: Vec<u32>,
    /// For a `CHECKMULTISIG` check, its key in the [`Memo`]: the key, signature and message
    /// bytes.
    ecdsa_memo: Vec<Option<Box<[u8]>>>,
    schnorr: Vec<SchnorrItem>,
    schnorr_owner: Vec<u32>,
}

/// A SEC1 public key's bytes (33 or 65; any other length never parses).
#[derive(Clone, Copy)]
struct KeyBytes {
    len: u8,
    bytes: [u8; 65],
}

impl KeyBytes {
    fn new(b: &[u8]) -> KeyBytes {
        let mut bytes = [0u8; 65];
        let len = b.len().min(65);
        bytes[..len].copy_from_slice(&b[..len]);
        // A longer input keeps a length that never parses.
        KeyBytes { len: if b.len() > 65 { 0 } else { len as u8 }, bytes }
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// Exact answers of `CHECKMULTISIG` checks verified in an earlier round, by the bytes of the
/// key, the DER signature and the message (the whole bytes: no hash stands in for them).
type Memo = HashMap<Box<[u8]>, bool>;

/// The memo key of an ECDSA check.
fn memo_key(pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> Box<[u8]> {
    let mut k = Vec::with_capacity(2 + pubkey.len() + sig.len() + 32);
    k.push(pubkey.len() as u8);
    k.extend_from_slice(pubkey);
    k.push(sig.len() as u8);
    k.extend_from_slice(sig);
    k.extend_from_slice(msg32);
    k.into_boxed_slice()
}

/// A [`SigVerifier`] that answers `true` to the checks it may defer, records them, and does the
/// others at once; one per worker of [`verify_scripts_with`].
///
/// Deferred: BIP340 checks, and ECDSA checks when `ecdsa` is set. `CHECKMULTISIG` tries each
/// signature against the keys in turn, so failures are routine there: its checks are answered
/// from `memo` when an earlier round verified them, and deferred otherwise. Keys are recorded
/// as bytes and parsed in bulk with the verification ([`PublicKey::parse_many_with`],
/// [`XOnlyPublicKey::parse_many_with`]: the square roots eight at a time on an Ifma token); a key
/// that does not parse makes its check invalid. Done at once: ECDSA signatures that do not
/// parse (answered `false`, as exact verification would), the BIP341 tweak check.
///
/// Why this is sound: the interpreter is a deterministic function of the input and of the
/// answers its verifier gives. If every recorded check turns out valid, each deferred answer
/// was the exact one (and the memo holds exact answers), so the run was the exact run and its
/// result is exact. An input with any invalid recorded check, or whose script failed, is run
/// again: with the memo (a second round) or exactly. No property of the scripts themselves is
/// assumed.
struct DeferringVerifier<'m> {
    backend: Backend,
    ecdsa: bool,
    memo: &'m Memo,
    /// Only the owning worker touches it; the lock is never contended.
    items: std::sync::Mutex<Deferred>,
}

impl DeferringVerifier<'_> {
    fn mark(&self) -> (usize, usize) {
        let d = self.items.lock().expect("no panics while held");
        (d.ecdsa.len(), d.schnorr.len())
    }

    /// The checks recorded since `mark` belong to the input at position `owner`.
    fn own(&self, mark: (usize, usize), owner: u32) {
        let d = &mut *self.items.lock().expect("no panics while held");
        debug_assert!(d.ecdsa_owner.len() == mark.0 && d.schnorr_owner.len() == mark.1);
        d.ecdsa_owner.resize(d.ecdsa.len(), owner);
        d.schnorr_owner.resize(d.schnorr.len(), owner);
    }

    /// Forgets the checks recorded since `mark` (their input is run again anyway).
    fn drop_since(&self, mark: (usize, usize)) {
        let d = &mut *self.items.lock().expect("no panics while held");
        d.ecdsa.truncate(mark.0);
        d.ecdsa_memo.truncate(mark.0);
        d.schnorr.truncate(mark.1);
    }

    fn defer_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32], memo: Option<Box<[u8]>>) -> bool {
        // The signature is parsed as `BackendVerifier::verify_ecdsa` does; the key is parsed
        // with the others when the checks are verified (a key that does not parse makes the
        // check invalid, and its input runs again).
        let Ok(mut s) = ecdsa::Signature::from_der_lax(sig) else { return false };
        s.normalize_s();
        let d = &mut *self.items.lock().expect("no panics while held");
        d.ecdsa.push((KeyBytes::new(pubkey), *msg32, s));
        d.ecdsa_memo.push(memo);
        true
    }
}

impl SigVerifier for DeferringVerifier<'_> {
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        if !self.ecdsa {
            return BackendVerifier(self.backend).verify_ecdsa(pubkey, sig, msg32);
        }
        self.defer_ecdsa(pubkey, sig, msg32, None)
    }

    fn verify_ecdsa_multisig(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        if !self.ecdsa {
            return BackendVerifier(self.backend).verify_ecdsa(pubkey, sig, msg32);
        }
        let key = memo_key(pubkey, sig, msg32);
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        self.defer_ecdsa(pubkey, sig, msg32, Some(key))
    }

    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool {
        // The key is parsed with the others when the checks are verified.
        self.items.lock().expect("no panics while held").schnorr.push((*xonly, *msg32, *sig64));
        true
    }

    fn tweak_add_check(
        &self,
        internal: &[u8; 32],
        tweak: &[u8; 32],
        output: &[u8; 32],
        parity: bool,
    ) -> bool {
        BackendVerifier(self.backend).tweak_add_check(internal, tweak, output, parity)
    }
}

/// Largest number of signatures in one batch of [`SigMode::BatchSchnorr`].
pub const MAX_SCHNORR_BATCH: usize = 4096;

/// Most signatures per step of a `verify_many` worker (a multiple of the eight lanes).
const MANY_CHUNK: usize = 128;

/// Rounds with deferred checks before the inputs still in doubt are verified exactly. The
/// second round answers `CHECKMULTISIG` checks from the first round's memo, which settles a
/// multisig whose signatures are not paired with the first keys tried; bounding the rounds
/// bounds how often one input's script can run (three times at most).
const DEFERRED_ROUNDS: usize = 2;

/// [`verify_scripts`] with [`BackendVerifier`]`(backend)` and the signature checks done as
/// `mode` says. The result, the failure reported included, is always that of
/// [`verify_scripts`] (up to the batch's failure probability of about 2^−128 per batch for
/// accepting an invalid BIP340 signature in the batched modes).
///
/// Apart from [`SigMode::Inline`], this runs in rounds, each step on `threads` workers:
/// 1. every input's script runs with the deferrable checks answered `true` and recorded (see
///    the soundness note on `DeferringVerifier`: a run whose recorded checks are all valid is
///    the exact run);
/// 2. the recorded checks are verified: ECDSA with [`ecdsa::verify_many`], BIP340 with
///    [`schnorr::verify_many`] or in batches of at most [`MAX_SCHNORR_BATCH`] (a batch that
///    fails is verified item by item to find its inputs); the answers of `CHECKMULTISIG`
///    checks go into a memo;
/// 3. an input whose script failed, or that recorded an invalid check, stays in doubt. Those
///    that recorded an invalid `CHECKMULTISIG` check run again from step 1 with the memo (one
///    more round); the rest, and any still in doubt after that, are verified exactly in block
///    order, and the first that fails is the failure reported. Every input not in doubt is
///    valid, so this is the lowest failing input, as [`verify_scripts`] reports.
///
/// ```
/// use fullverify::encode::Transaction;
/// use fullverify::script::{BackendVerifier, ScriptFlags};
/// use fullverify::validation::{verify_scripts, verify_scripts_with, SigMode};
/// use fullverify::Backend;
///
/// // No inputs to check: every mode agrees.
/// let b = Backend::detect();
/// for mode in SigMode::ALL {
///     assert_eq!(
///         verify_scripts_with(&[], &[], ScriptFlags::NONE, 2, b, mode),
///         verify_scripts(&[] as &[Transaction], &[], ScriptFlags::NONE, 2, &BackendVerifier(b))
///     );
/// }
/// ```
pub fn verify_scripts_with(
    txs: &[Transaction],
    spent: &[Vec<TxOut>],
    flags: ScriptFlags,
    threads: usize,
    backend: Backend,
    mode: SigMode,
) -> Result<(), ScriptFailure> {
    verify_scripts_beside(txs, spent, flags, threads, backend, mode, &Side::none())
}

/// [`verify_scripts_with`], one worker running `side` first (see [`on_workers_beside`]); `side`
/// has run when this returns.
fn verify_scripts_beside(
    txs: &[Transaction],
    spent: &[Vec<TxOut>],
    flags: ScriptFlags,
    threads: usize,
    backend: Backend,
    mode: SigMode,
    side: &Side<'_>,
) -> Result<(), ScriptFailure> {
    // Whatever path the checks take, the side job has run before this returns (it runs here
    // when no worker took it, e.g. with no inputs).
    let r = (|| {
        let exact = BackendVerifier(backend);
        let (ctxs, flat) = flat_inputs(txs, spent, threads);
        if mode == SigMode::Inline {
            return run_flat(&ctxs, &flat, flags, threads, &exact, side);
        }
        let threads = threads.max(1);
        let mut memo = Memo::new();
        let mut pending: Vec<u32> = (0..flat.len() as u32).collect();
        let mut doubt: Vec<u32> = Vec::new();
        for round in 0..DEFERRED_ROUNDS {
            if pending.is_empty() {
                break;
            }
            let side = if round == 0 { side } else { &Side::none() };
            let (all, failed) =
                deferred_round(&ctxs, &flat, &pending, flags, threads, backend, mode, &memo, side);
            let bad = verify_recorded(all, &mut memo, threads, backend, mode);
            doubt.extend(failed);
            pending.clear();
            for (owner, multisig) in bad {
                if multisig && round + 1 < DEFERRED_ROUNDS {
                    pending.push(owner);
                } else {
                    doubt.push(owner);
                }
            }
            pending.sort_unstable();
            pending.dedup();
            // An input is re-run in the next round or verified exactly, not both.
            doubt.retain(|p| pending.binary_search(p).is_err());
        }
        doubt.extend(pending);
        if doubt.is_empty() {
            return Ok(());
        }
        doubt.sort_unstable();
        doubt.dedup();
        let suspects: Vec<(u32, u32)> = doubt.iter().map(|&p| flat[p as usize]).collect();
        run_flat(&ctxs, &suspects, flags, threads, &exact, &Side::none())
    })();
    side.run();
    r
}

/// Step 1 of [`verify_scripts_with`] over the inputs at `positions` of `flat`: the checks
/// recorded, and the positions whose script failed.
#[allow(clippy::too_many_arguments)]
fn deferred_round(
    ctxs: &[Option<TxContext<'_>>],
    flat: &[(u32, u32)],
    positions: &[u32],
    flags: ScriptFlags,
    threads: usize,
    backend: Backend,
    mode: SigMode,
    memo: &Memo,
    side: &Side<'_>,
) -> (Deferred, Vec<u32>) {
    let cursor = AtomicUsize::new(0);
    let work = || {
        let v = DeferringVerifier { backend, ecdsa: mode.defers_ecdsa(), memo, items: Default::default() };
        let mut failed: Vec<u32> = Vec::new();
        loop {
            let start = cursor.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= positions.len() {
                break;
            }
            for &pos in &positions[start..(start + CHUNK).min(positions.len())] {
                let (t, i) = flat[pos as usize];
                let ctx = ctxs[t as usize].as_ref().expect("non-coinbase");
                let mark = v.mark();
                if verify_input(ctx, i as usize, flags, &v).is_ok() {
                    v.own(mark, pos);
                } else {
                    v.drop_since(mark);
                    failed.push(pos);
                }
            }
        }
        (v.items.into_inner().expect("no panics while held"), failed)
    };
    let mut parts = on_workers_beside(threads.min(positions.len().div_ceil(CHUNK).max(1)), work, side);
    // The others are appended to the largest part (the order of the checks does not matter:
    // each names its owner).
    let largest = (0..parts.len()).max_by_key(|&k| parts[k].0.ecdsa.len() + parts[k].0.schnorr.len());
    let (mut all, mut failed) = largest.map(|k| parts.swap_remove(k)).unwrap_or_default();
    for (d, f) in parts {
        all.ecdsa.extend(d.ecdsa);
        all.ecdsa_owner.extend(d.ecdsa_owner);
        all.ecdsa_memo.extend(d.ecdsa_memo);
        all.schnorr.extend(d.schnorr);
        all.schnorr_owner.extend(d.schnorr_owner);
        failed.extend(f);
    }
    (all, failed)
}

/// Step 2 of [`verify_scripts_with`]: verifies the recorded checks, adds the answers of
/// `CHECKMULTISIG` checks to `memo`, and returns the owners of invalid checks, each with
/// whether the invalid check was a `CHECKMULTISIG` one (only then can the memo change the next
/// run of that input).
fn verify_recorded(
    mut all: Deferred,
    memo: &mut Memo,
    threads: usize,
    backend: Backend,
    mode: SigMode,
) -> Vec<(u32, bool)> {
    let ecdsa_check = |items: &[EcdsaItem]| {
        let keys: Vec<&[u8]> = items.iter().map(|(k, _, _)| k.as_slice()).collect();
        let pks = PublicKey::parse_many_with(backend, &keys);
        let (idx, refs): (Vec<usize>, Vec<ecdsa::VerifyItem<'_>>) = items
            .iter()
            .zip(&pks)
            .enumerate()
            .filter_map(|(k, ((_, m, s), pk))| Some((k, (pk.as_ref().ok()?, m, s))))
            .unzip();
        scatter(items.len(), &idx, ecdsa::verify_many(backend, &refs))
    };
    let schnorr_check = |items: &[SchnorrItem]| {
        let keys: Vec<[u8; 32]> = items.iter().map(|(k, _, _)| *k).collect();
        let pks = XOnlyPublicKey::parse_many_with(backend, &keys);
        let (idx, refs): (Vec<usize>, Vec<schnorr::VerifyItem<'_>>) = items
            .iter()
            .zip(&pks)
            .enumerate()
            .filter_map(|(k, ((_, m, s), pk))| Some((k, (pk.as_ref().ok()?, &m[..], s))))
            .unzip();
        if mode.batches_schnorr() && idx.len() == items.len() && schnorr::verify_batch_with(backend, &refs) {
            return vec![true; items.len()];
        }
        scatter(items.len(), &idx, schnorr::verify_many(backend, &refs))
    };
    // Batches are as large as an equal share allows; otherwise both lists are cut as one.
    let schnorr_batch = mode
        .batches_schnorr()
        .then(|| all.schnorr.len().div_ceil(threads.max(1)).clamp(1, MAX_SCHNORR_BATCH));
    let plan = chunk_plan(all.ecdsa.len(), all.schnorr.len(), schnorr_batch, threads);
    let (ecdsa_ok, schnorr_ok) =
        verify_planned(&plan, threads, |r| ecdsa_check(&all.ecdsa[r]), |r| schnorr_check(&all.schnorr[r]));
    let mut bad: Vec<(u32, bool)> = Vec::new();
    for (k, valid) in ecdsa_ok.into_iter().enumerate() {
        let key = all.ecdsa_memo[k].take();
        if !valid {
            bad.push((all.ecdsa_owner[k], key.is_some()));
        }
        if let Some(key) = key {
            memo.insert(key, valid);
        }
    }
    bad.extend(
        schnorr_ok
            .into_iter()
            .enumerate()
            .filter(|(_, valid)| !valid)
            .map(|(k, _)| (all.schnorr_owner[k], false)),
    );
    bad
}

/// A step of [`verify_planned`]: items `range` of the ECDSA list (`schnorr` false) or of the
/// BIP340 list.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Step {
    schnorr: bool,
    range: std::ops::Range<usize>,
}

/// The steps over `ecdsa` ECDSA checks, then `schnorr` BIP340 checks, for `threads` workers
/// claiming them in order. With `schnorr_batch`, BIP340 steps have that size (the last may be
/// smaller). Otherwise a step takes a share of what is left in both lists, `left / (2 ×
/// threads)`, in whole groups of eight and at most [`MANY_CHUNK`], so the last steps are small
/// and the workers finish together; a step never spans the two lists.
fn chunk_plan(ecdsa: usize, schnorr: usize, schnorr_batch: Option<usize>, threads: usize) -> Vec<Step> {
    let threads = threads.max(1);
    let mut plan = Vec::new();
    let total = ecdsa + if schnorr_batch.is_some() { 0 } else { schnorr };
    let mut at = 0;
    while at < total {
        let share = ((total - at) / (2 * threads)).next_multiple_of(8).clamp(8, MANY_CHUNK);
        let (schnorr, base, len) = if at < ecdsa { (false, 0, ecdsa) } else { (true, ecdsa, schnorr) };
        let start = at - base;
        let end = (start + share).min(len);
        plan.push(Step { schnorr, range: start..end });
        at = base + end;
    }
    if let Some(batch) = schnorr_batch {
        let mut start = 0;
        while start < schnorr {
            let end = (start + batch).min(schnorr);
            plan.push(Step { schnorr: true, range: start..end });
            start = end;
        }
    }
    plan
}

/// Runs the steps of `plan` on `threads` workers claiming them in order, ECDSA steps with
/// `ecdsa` and BIP340 steps with `schnorr`: the answers for each list, in order.
fn verify_planned(
    plan: &[Step],
    threads: usize,
    ecdsa: impl Fn(std::ops::Range<usize>) -> Vec<bool> + Sync,
    schnorr: impl Fn(std::ops::Range<usize>) -> Vec<bool> + Sync,
) -> (Vec<bool>, Vec<bool>) {
    let cursor = AtomicUsize::new(0);
    let work = || {
        let mut done: Vec<(usize, Vec<bool>)> = Vec::new();
        loop {
            let k = cursor.fetch_add(1, Ordering::Relaxed);
            let Some(step) = plan.get(k) else { return done };
            let ok = if step.schnorr { schnorr(step.range.clone()) } else { ecdsa(step.range.clone()) };
            done.push((k, ok));
        }
    };
    let len =
        |schnorr: bool| plan.iter().filter(|s| s.schnorr == schnorr).map(|s| s.range.end).max().unwrap_or(0);
    let (mut ecdsa_ok, mut schnorr_ok) = (vec![false; len(false)], vec![false; len(true)]);
    if plan.is_empty() {
        return (ecdsa_ok, schnorr_ok);
    }
    for (k, ok) in on_workers(threads.min(plan.len()), work).into_iter().flatten() {
        let step = &plan[k];
        let out = if step.schnorr { &mut schnorr_ok } else { &mut ecdsa_ok };
        out[step.range.clone()].copy_from_slice(&ok);
    }
    (ecdsa_ok, schnorr_ok)
}

/// `n` answers, `false` except at the positions `idx`, which take `ok` in order.
fn scatter(n: usize, idx: &[usize], ok: Vec<bool>) -> Vec<bool> {
    let mut out = vec![false; n];
    for (&i, v) in idx.iter().zip(ok) {
        out[i] = v;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Connect
// ---------------------------------------------------------------------------------------------

/// Where [`connect_block`] reads coins from (the chainstate's cache, or a given list).
pub trait CoinSource {
    /// The error of a failed lookup.
    type Error;
    /// The unspent coin at `op` before this block.
    fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, Self::Error>;
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
    /// How the signature checks are done ([`verify_scripts_with`]); the verdict and the
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
pub fn connect_block<S: CoinSource>(
    block: &Block,
    checked: &CheckedBlock,
    ctx: &ConnectContext<'_>,
    source: &mut S,
) -> Result<ConnectOutcome, ConnectError<S::Error>> {
    let (mut out, spent_outs) = connect_inputs(block, checked, ctx, source)?;
    if ctx.verify_scripts {
        let ts = Instant::now();
        verify_scripts_with(&block.txdata, &spent_outs, ctx.flags, ctx.threads, ctx.backend, ctx.sig_mode)
            .map_err(|f| ConnectError::Invalid(script_failure(checked, ctx.height, f)))?;
        out.scripts = ts.elapsed();
    }
    Ok(out)
}

/// The block error of a failed input script.
fn script_failure(checked: &CheckedBlock, height: u32, f: ScriptFailure) -> BlockError {
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

/// What [`connect_inputs`] gives: the outcome and the outputs spent by each transaction.
type Connected = (ConnectOutcome, Vec<Vec<TxOut>>);

/// Everything [`connect_block`] checks except the input scripts, and the outputs spent by each
/// transaction (empty for the coinbase), which the scripts are verified against.
fn connect_inputs<S: CoinSource>(
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
    let mut fetch = Duration::ZERO;
    // BIP30: no output of this block may overwrite an unspent coin.
    if ctx.enforce_bip30 {
        let tf = Instant::now();
        for (t, tx) in block.txdata.iter().enumerate() {
            for vout in 0..tx.outputs.len() as u32 {
                let op = OutPoint { txid: checked.txids[t], vout };
                if source.coin(&op).map_err(ConnectError::Source)?.is_some() {
                    return Err(at("bad-txns-BIP30", t, None));
                }
            }
        }
        fetch += tf.elapsed();
    }
    // Coins created in this block and not yet spent, and pre-block coins spent so far.
    let mut created: HashMap<OutPoint, Coin> = HashMap::new();
    let mut spent_before: HashSet<OutPoint> = HashSet::new();
    let mut delta_spent: Vec<(OutPoint, Coin)> = Vec::new();
    let mut spent_outs: Vec<Vec<TxOut>> = Vec::with_capacity(block.txdata.len());
    let (mut fees, mut sigops, mut inputs) = (0i64, 0u64, 0usize);
    for (t, tx) in block.txdata.iter().enumerate() {
        inputs += tx.inputs.len();
        let mut coins: Vec<Coin> = Vec::new();
        if !tx.is_coinbase() {
            // HaveInputs: every input present and unspent.
            let tf = Instant::now();
            for (i, inp) in tx.inputs.iter().enumerate() {
                let c = if let Some(c) = created.remove(&inp.prevout) {
                    Some(c)
                } else if spent_before.contains(&inp.prevout) {
                    None
                } else {
                    match source.coin(&inp.prevout).map_err(ConnectError::Source)? {
                        Some(c) => {
                            spent_before.insert(inp.prevout);
                            delta_spent.push((inp.prevout, c.clone()));
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
        sigops += transaction_sigop_cost(tx, &outs, ctx.flags);
        if sigops > MAX_BLOCK_SIGOPS_COST {
            return Err(at("bad-blk-sigops", t, None));
        }
        spent_outs.push(outs);
        for (vout, o) in tx.outputs.iter().enumerate() {
            if crate::script::opcodes::is_unspendable(&o.script_pubkey) {
                continue;
            }
            let op = OutPoint { txid: checked.txids[t], vout: vout as u32 };
            created.insert(op, Coin { out: o.clone(), height, coinbase: tx.is_coinbase() });
        }
    }
    let cb_out: i64 = block.txdata[0].outputs.iter().map(|o| o.value).sum();
    if cb_out > fees + ctx.params.block_subsidy(height) {
        return Err(at("bad-cb-amount", 0, None));
    }
    // Deterministic order of created coins: block order.
    let mut created_v: Vec<(OutPoint, Coin)> = Vec::with_capacity(created.len());
    for (t, tx) in block.txdata.iter().enumerate() {
        for vout in 0..tx.outputs.len() as u32 {
            let op = OutPoint { txid: checked.txids[t], vout };
            if let Some(c) = created.remove(&op) {
                created_v.push((op, c));
            }
        }
    }
    let out = ConnectOutcome {
        delta: BlockDelta { spent: delta_spent, created: created_v },
        inputs,
        sigops_cost: sigops,
        fees,
        fetch,
        scripts: Duration::ZERO,
    };
    Ok((out, spent_outs))
}

// ---------------------------------------------------------------------------------------------
// A single block with its spent outputs
// ---------------------------------------------------------------------------------------------

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
/// those of `height` on `network` ([`ChainParams::script_flags`]). A rejected block is
/// reported as a [`BlockError`] whose `reason` is Core's reject reason. Scripts run on
/// `threads` workers with `backend`; `sig_mode` says how the signature checks are done
/// ([`verify_scripts_with`]), without changing the result.
///
/// Mainnet block 170, the first transaction between two keys, spends the coinbase of block 9:
///
/// ```
/// use fullverify::chain::Network;
/// use fullverify::encode::TxOut;
/// use fullverify::utxo::Coin;
/// use fullverify::validation::{check_block_with_spent, SigMode};
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
/// let b = Backend::detect();
///
/// let ok = check_block_with_spent(&block, &[coin(5_000_000_000, p2pk.clone())], 170, Network::Mainnet, 1, b, SigMode::Inline)
///     .unwrap();
/// assert_eq!((ok.txs, ok.inputs, ok.fees), (2, 1, 0));
///
/// // 49 BTC in, 50 BTC out.
/// let e = check_block_with_spent(&block, &[coin(4_900_000_000, p2pk.clone())], 170, Network::Mainnet, 1, b, SigMode::Inline)
///     .unwrap_err();
/// assert_eq!(e.reason, "bad-txns-in-belowout");
///
/// // Another key: the signature does not verify.
/// let mut other = p2pk.clone();
/// other[10] ^= 1;
/// let e = check_block_with_spent(&block, &[coin(5_000_000_000, other)], 170, Network::Mainnet, 1, b, SigMode::Inline)
///     .unwrap_err();
/// assert_eq!(
///     e.reason,
///     "block-script-verify-flag-failed (Script evaluated without error but finished with a \
///      false/empty top stack element)"
/// );
/// assert_eq!((e.tx.map(|t| t.0), e.input), (Some(1), Some(0)));
///
/// // A coinbase output spent too early.
/// let e = check_block_with_spent(&block, &[coin(5_000_000_000, p2pk)], 100, Network::Mainnet, 1, b, SigMode::Inline)
///     .unwrap_err();
/// assert_eq!(e.reason, "bad-txns-premature-spend-of-coinbase");
/// ```
pub fn check_block_with_spent(
    raw_block: &[u8],
    spent: &[Coin],
    height: u32,
    network: Network,
    threads: usize,
    backend: Backend,
    sig_mode: SigMode,
) -> Result<BlockCheckSummary, BlockError> {
    let t0 = Instant::now();
    let block = Block::from_bytes(raw_block)
        .map_err(|e| BlockError::new(format!("bad-block-decode ({e})"), [0; 32], height))?;
    let parse = t0.elapsed();
    let mut summary =
        check_decoded_block_with_spent(&block, spent, height, network, threads, backend, sig_mode)?;
    summary.parse = parse;
    Ok(summary)
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
    network: Network,
    threads: usize,
    backend: Backend,
    sig_mode: SigMode,
) -> Result<BlockCheckSummary, BlockError> {
    let params = network.params();
    let n_inputs: usize = block.txdata.iter().filter(|t| !t.is_coinbase()).map(|t| t.inputs.len()).sum();
    let hash = block.block_hash();
    if threads < 2 || spent.len() != n_inputs || check_block_header(&block.header, &hash, params).is_err() {
        // One step after the other.
        let t = Instant::now();
        let (checked, out, _) =
            connect_with_spent(block, spent, height, params, threads, backend, sig_mode, true)?;
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
        let r = connect_with_spent(block, spent, height, params, threads, backend, sig_mode, false).map(
            |(checked, out, spent_outs)| {
                let differ = (spent_outs != given).then_some(spent_outs);
                (checked, out.fees, out.sigops_cost, differ)
            },
        );
        checks = Some((r, t.elapsed()));
    });
    let ts = Instant::now();
    let scripts_ok = verify_scripts_beside(&block.txdata, &given, flags, threads, backend, sig_mode, &side);
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
/// `verify_scripts`: the checked block, what connecting it gave, and the outputs spent by
/// each transaction.
#[allow(clippy::too_many_arguments)]
fn connect_with_spent(
    block: &Block,
    spent: &[Coin],
    height: u32,
    params: &'static ChainParams,
    threads: usize,
    backend: Backend,
    sig_mode: SigMode,
    verify_scripts: bool,
) -> Result<(CheckedBlock, ConnectOutcome, Vec<Vec<TxOut>>), BlockError> {
    let checked = check_block(block, height, params, backend)?;
    contextual_check_block(block, &checked, height, None, params)?;
    let n_inputs: usize = block.txdata.iter().filter(|t| !t.is_coinbase()).map(|t| t.inputs.len()).sum();
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
        mtp: None,
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
    let (mut out, spent_outs) = connect_inputs(block, &checked, &ctx, &mut source).map_err(invalid)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Both halves land in order for every split point, on one thread or two, with items that
    /// own heap memory; a panic in either half reaches the caller.
    #[test]
    fn build_in_two_is_the_serial_list() {
        for n in [0, 1, SPLIT_MIN - 1, SPLIT_MIN, 1000] {
            let serial: Vec<String> = (0..n).map(|i| format!("item {i}")).collect();
            for mid in [0, 1, n / 3, n / 2, n.saturating_sub(1), n, n + 1] {
                for threads in [1, 2, 4] {
                    assert_eq!(
                        build_in_two(threads, n, mid, |i| format!("item {i}")),
                        serial,
                        "{n} {mid} {threads}"
                    );
                }
            }
        }
        for bad in [10, 900] {
            let r = std::panic::catch_unwind(|| {
                build_in_two(2, 1000, 500, |i| if i == bad { panic!("item {i}") } else { vec![i; 3] })
            });
            assert!(r.is_err());
        }
    }

    /// Every check is in exactly one step, in order; a step never spans the two lists; steps
    /// are whole groups of eight (but the last of a list) and at most `MANY_CHUNK`, shrinking
    /// toward the end; batches have the batch size.
    #[test]
    fn chunk_plan_covers_each_list_once() {
        let sizes: [usize; 14] = [0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 500, 1000, 5678];
        for &ecdsa in &sizes {
            for &schnorr in &sizes {
                for threads in [1, 2, 3, 8] {
                    for batch in [None, Some(schnorr.div_ceil(threads).clamp(1, MAX_SCHNORR_BATCH))] {
                        let plan = chunk_plan(ecdsa, schnorr, batch, threads);
                        for (list, n) in [(false, ecdsa), (true, schnorr)] {
                            let steps: Vec<_> = plan.iter().filter(|s| s.schnorr == list).collect();
                            let mut at = 0;
                            for (k, s) in steps.iter().enumerate() {
                                assert_eq!(s.range.start, at, "{ecdsa} {schnorr} {threads} {batch:?}");
                                assert!(s.range.end > s.range.start);
                                let len = s.range.len();
                                let last = k + 1 == steps.len();
                                match (list, batch) {
                                    (true, Some(b)) => assert!(len == b || (last && len < b)),
                                    _ => assert!(len <= MANY_CHUNK && (len % 8 == 0 || last)),
                                }
                                at = s.range.end;
                            }
                            assert_eq!(at, n);
                        }
                        // ECDSA steps come first.
                        let first_schnorr = plan.iter().position(|s| s.schnorr).unwrap_or(plan.len());
                        assert!(plan[first_schnorr..].iter().all(|s| s.schnorr));
                    }
                }
            }
        }
        // Two workers, 5678 + 2375 checks: full steps first, eight at the end.
        let plan = chunk_plan(5678, 2375, None, 2);
        assert_eq!(plan[0].range.len(), MANY_CHUNK);
        assert_eq!(plan.last().unwrap().range.len(), 2375 % 8);
        assert!(plan.iter().rev().skip(1).take(3).all(|s| s.range.len() == 8));
    }

    /// Scripts in which a failing `CHECKSIG` is part of a valid spend, and one in which a valid
    /// signature makes the spend fail: every signature mode gives the verdict and the failing
    /// input of inline verification, on 1 to 3 threads.
    #[test]
    fn deferred_modes_agree_where_checksig_may_fail() {
        const OP_1: u8 = 0x51;
        const OP_2: u8 = 0x52;
        const OP_NOT: u8 = 0x91;
        const OP_CHECKSIG: u8 = 0xac;
        const OP_CHECKMULTISIG: u8 = 0xae;
        let key = |i: u8| ([i; 32], PublicKey::from_secret(&[i; 32]).unwrap().serialize_compressed());
        let (sk_a, pk_a) = key(1);
        let (sk_b, pk_b) = key(2);
        let script = |parts: &[&[u8]], ops: &[u8]| {
            let mut s = Vec::new();
            for p in parts {
                push_data(&mut s, p);
            }
            s.extend_from_slice(ops);
            s
        };
        let checksig_not = script(&[&pk_a], &[OP_CHECKSIG, OP_NOT]);
        // A compressed key whose x is not on the curve: CHECKSIG answers false (keys are parsed
        // only when the deferred checks are verified).
        let off_curve = (1u8..)
            .map(|i| {
                let mut k = [0u8; 33];
                k[0] = 2;
                k[32] = i;
                k
            })
            .find(|k| PublicKey::parse(k).is_err())
            .unwrap();
        let bad_key_not = script(&[&off_curve], &[OP_CHECKSIG, OP_NOT]);
        let bad_key = script(&[&off_curve], &[OP_CHECKSIG]);
        let checksig = script(&[&pk_a], &[OP_CHECKSIG]);
        let mut multisig = vec![OP_1];
        multisig.extend(script(&[&pk_a, &pk_b], &[OP_2, OP_CHECKMULTISIG]));
        // (spent script, signing key, whether the script sig starts with the multisig dummy)
        let cases: [(&[u8], [u8; 32], bool); 8] = [
            (&checksig_not, sk_b, false), // wrong key: CHECKSIG fails, NOT makes it pass
            (&checksig, sk_a, false),     // plain valid spend
            (&multisig, sk_b, true),      // 1-of-2 signed by the second key
            (&checksig_not, sk_a, false), // right key: CHECKSIG passes, NOT fails the spend
            (&checksig, sk_b, false),     // wrong key: fails
            (&multisig, [3; 32], true),   // 1-of-2 signed by neither key: fails
            (&bad_key_not, sk_a, false),  // a key off the curve: CHECKSIG fails, NOT passes
            (&bad_key, sk_a, false),      // a key off the curve: fails
        ];
        let build = |which: &[usize]| {
            let mut tx = Transaction {
                version: 1,
                inputs: which
                    .iter()
                    .map(|&c| crate::encode::TxIn {
                        prevout: OutPoint { txid: [7; 32], vout: c as u32 },
                        script_sig: Vec::new(),
                        sequence: u32::MAX,
                        witness: Vec::new(),
                    })
                    .collect(),
                outputs: vec![TxOut { value: 1, script_pubkey: vec![OP_1] }],
                lock_time: 0,
            };
            let spent: Vec<TxOut> =
                which.iter().map(|&c| TxOut { value: 10, script_pubkey: cases[c].0.to_vec() }).collect();
            for (n, &c) in which.iter().enumerate() {
                let (spk, sk, dummy) = cases[c];
                let msg = crate::sighash::legacy_sighash(&tx, n, spk, 1);
                let mut sig = ecdsa::sign(&sk, &msg).to_der();
                sig.push(1);
                let mut ss = if dummy { vec![0] } else { Vec::new() };
                push_data(&mut ss, &sig);
                tx.inputs[n].script_sig = ss;
            }
            (tx, spent)
        };
        let b = Backend::detect();
        let flags = ScriptFlags::P2SH;
        let mut seen = (0, 0);
        for which in [
            &[0, 1, 2][..],
            &[0, 1, 2, 3],
            &[3, 0, 1],
            &[0, 4, 2, 3],
            &[2, 2, 0, 0, 1],
            &[2, 5, 2],
            &[5],
            &[6, 1],
            &[6, 7],
        ] {
            let (tx, spent) = build(which);
            let coinbase = Transaction { inputs: Vec::new(), ..tx.clone() };
            let txs = [coinbase, tx.clone(), tx];
            let spent = [Vec::new(), spent.clone(), spent];
            let want = verify_scripts(&txs, &spent, flags, 1, &BackendVerifier(b));
            match want {
                Ok(()) => seen.0 += 1,
                Err(_) => seen.1 += 1,
            }
            for mode in SigMode::ALL {
                for threads in 1..=3 {
                    let got = verify_scripts_with(&txs, &spent, flags, threads, b, mode);
                    assert_eq!(got, want, "{which:?} {mode} threads {threads}");
                }
            }
        }
        assert_eq!(seen, (3, 6), "the cases are meant to cover valid and invalid blocks");
    }

    #[test]
    fn bip94_timewarp_rule() {
        let p = &chain::TESTNET4;
        let chain_: Vec<HeaderEntry> = (0..2016u32)
            .map(|i| HeaderEntry { hash: [i as u8; 32], time: 1_700_000_000 + 600 * i, bits: 0x1d00ffff })
            .collect();
        let prev = chain_.last().unwrap().time;
        let mut h = BlockHeader {
            version: 4,
            prev_block: [0; 32],
            merkle_root: [0; 32],
            time: prev - 601,
            bits: 0,
            nonce: 0,
        };
        h.bits = chain::next_work_required(&chain_, h.time, p);
        assert_eq!(
            contextual_check_block_header(&h, &chain_, p, i64::MAX / 2),
            Err("time-timewarp-attack".into())
        );
        h.time = prev - 600;
        h.bits = chain::next_work_required(&chain_, h.time, p);
        assert_eq!(contextual_check_block_header(&h, &chain_, p, i64::MAX / 2), Ok(()));
        // Testnet3 has no timewarp rule.
        let p3 = Network::Testnet3.params();
        h.time = prev - 601;
        h.version = 1;
        h.bits = chain::next_work_required(&chain_, h.time, p3);
        assert_eq!(contextual_check_block_header(&h, &chain_, p3, i64::MAX / 2), Ok(()));
        // Version 3 after BIP65 is rejected with Core's formatting.
        h.version = 3;
        let mut tall = chain_.clone();
        tall.resize(581_885, *chain_.last().unwrap());
        for (i, e) in tall.iter_mut().enumerate().skip(2016) {
            e.time = 1_700_000_000 + 600 * i as u32;
        }
        h.time = tall.last().unwrap().time + 1;
        h.bits = chain::next_work_required(&tall, h.time, p3);
        assert_eq!(
            contextual_check_block_header(&h, &tall, p3, i64::MAX / 2),
            Err("bad-version(0x00000003)".into())
        );
    }

    /// A signet block under a 1-of-1 multisig challenge with a key of ours: the solution made
    /// with [`signet_txs`] is accepted; a wrong key, no solution, or extra bytes are not; an
    /// `OP_TRUE` challenge needs no solution.
    #[test]
    fn signet_solution_round_trip() {
        use crate::encode::TxIn;
        let sk = [7u8; 32];
        let pk = crate::secp256k1::PublicKey::from_secret(&sk).unwrap().serialize_compressed();
        let mut challenge = vec![0x51, 33];
        challenge.extend_from_slice(&pk);
        challenge.extend_from_slice(&[0x51, 0xae]);
        let make = |solution: Option<Vec<u8>>| {
            let mut commit = vec![0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed];
            commit.extend_from_slice(&[0x11; 32]);
            if let Some(sol) = solution {
                push_data(&mut commit, &[&SIGNET_HEADER[..], &sol[..]].concat());
            }
            let cb = Transaction {
                version: 2,
                inputs: vec![TxIn {
                    prevout: OutPoint { txid: [0; 32], vout: u32::MAX },
                    script_sig: vec![0x51, 0x51],
                    sequence: u32::MAX,
                    witness: vec![vec![0; 32]],
                }],
                outputs: vec![
                    TxOut { value: 50, script_pubkey: vec![0x51] },
                    TxOut { value: 0, script_pubkey: commit },
                ],
                lock_time: 0,
            };
            let header = BlockHeader {
                version: 0x2000_0000,
                prev_block: [3; 32],
                merkle_root: [0; 32],
                time: 1_600_000_000,
                bits: 0x1e0377ae,
                nonce: 0,
            };
            let b = Block { header, txdata: vec![cb] };
            let txids = vec![b.txdata[0].txid()];
            (b, txids)
        };
        let sign = |key: &[u8; 32]| {
            // The signed message does not depend on the solution (it is cut back to the bare
            // header), so sign over a block holding an empty one.
            let (b, txids) = make(Some(vec![0, 0]));
            let (_, to_sign) = signet_txs(&b, &txids, &challenge).unwrap();
            let msg = crate::sighash::legacy_sighash(&to_sign, 0, &challenge, 1);
            let mut sig = crate::secp256k1::ecdsa::sign(key, &msg).to_der();
            sig.push(1);
            let mut script_sig = vec![0x00];
            push_data(&mut script_sig, &sig);
            let mut sol = Vec::new();
            crate::encode::write_var_bytes(&mut sol, &script_sig);
            sol.push(0); // empty witness
            sol
        };
        let good = sign(&sk);
        let (b, t) = make(Some(good.clone()));
        assert!(check_signet_solution(&b, &t, &challenge));
        let (b, t) = make(Some(sign(&[8u8; 32])));
        assert!(!check_signet_solution(&b, &t, &challenge));
        let (b, t) = make(None);
        assert!(!check_signet_solution(&b, &t, &challenge));
        assert!(check_signet_solution(&b, &t, &[0x51]));
        let (b, t) = make(Some([&good[..], &[0]].concat()));
        assert!(!check_signet_solution(&b, &t, &challenge));
    }

    #[test]
    fn bip34_push_encoding() {
        assert_eq!(bip34_height_push(1), vec![0x51]);
        assert_eq!(bip34_height_push(16), vec![0x60]);
        assert_eq!(bip34_height_push(17), vec![1, 17]);
        assert_eq!(bip34_height_push(128), vec![2, 0x80, 0]);
        assert_eq!(bip34_height_push(227_931), vec![3, 0x5b, 0x7a, 0x03]);
    }

    #[test]
    fn error_display() {
        let mut e = BlockError::new("bad-cb-amount", [0; 32], 5);
        e.tx = Some((0, [1; 32]));
        e.input = Some(2);
        let s = e.to_string();
        assert!(s.starts_with("invalid block at height 5 (0000"));
        assert!(s.ends_with(
            ": bad-cb-amount [tx 0101010101010101010101010101010101010101010101010101010101010101 input 2]"
        ));
    }
}
