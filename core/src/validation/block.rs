// SPDX-License-Identifier: MIT OR Apache-2.0
//! Context-free and contextual block rules: Core's `CheckBlock` and `ContextualCheckBlock`
//! (`src/validation.cpp`), with `IsFinalTx`, BIP141 weight and the witness commitment.

use super::error::BlockError;
use super::header::check_block_header;
use super::signet::check_signet_solution;
use super::witness::{check_witness_commitment, witness_root};
use crate::backend::Backend;
use crate::chain::ChainParams;
/// `WITNESS_SCALE_FACTOR` (BIP141), the one the encoder's weight uses.
pub use crate::encode::WITNESS_SCALE_FACTOR;
use crate::encode::{weight_from_sizes, Block, Transaction, MAX_BLOCK_WEIGHT};
use crate::hash::merkle_root_with;
use crate::script::sigops::tx_legacy_sigop_count;

/// `MAX_BLOCK_SIGOPS_COST`.
pub const MAX_BLOCK_SIGOPS_COST: u64 = 80_000;
/// `LOCKTIME_THRESHOLD`: lock times below are heights, above are times.
pub const LOCKTIME_THRESHOLD: u32 = 500_000_000;

/// What the context-free checks computed and later stages reuse.
#[derive(Clone, Debug)]
pub struct CheckedBlock {
    /// The block hash (internal byte order).
    pub hash: [u8; 32],
    /// The txid of every transaction, in block order.
    pub txids: Vec<[u8; 32]>,
    /// BIP141 weight; its limit is a contextual rule in Core, checked by
    /// [`contextual_check_block`].
    pub(super) weight: usize,
    /// The root the coinbase's witness commitment must match, when it has a commitment output
    /// (whether it must depends on the height: [`contextual_check_block`]).
    pub(super) witness_root: Option<[u8; 32]>,
    /// Each transaction's legacy sigop count (`GetLegacySigOpCount`), in block order: the
    /// part of its sigop cost that needs no spent output, which the connection adds to.
    pub(super) legacy_sigops: Vec<u32>,
}

/// `CheckBlock` (the proof of work included). `height` only labels errors.
pub fn check_block(
    block: &Block,
    height: u32,
    params: &ChainParams,
    backend: Backend,
) -> Result<CheckedBlock, BlockError> {
    check_block_with_txids(block, None, height, params, backend)
}

/// [`check_block`] with the block's txids when the caller has computed them already (`Some`:
/// one per transaction, in block order, from this block's transactions), so they are not
/// hashed twice.
pub fn check_block_with_txids(
    block: &Block,
    txids: Option<&[[u8; 32]]>,
    height: u32,
    params: &ChainParams,
    backend: Backend,
) -> Result<CheckedBlock, BlockError> {
    let hash = block.block_hash();
    let err = |r: &str| BlockError::new(r, hash, height);
    check_block_header(&block.header, &hash, params).map_err(err)?;
    let txids: Vec<[u8; 32]> = match txids {
        Some(t) => {
            debug_assert_eq!(t.len(), block.txdata.len());
            t.to_vec()
        }
        None => block.txdata.iter().map(|t| t.txid()).collect(),
    };
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
    let base_size = block.base_size();
    if block.txdata.is_empty()
        || block.txdata.len() * 4 > MAX_BLOCK_WEIGHT
        || base_size * 4 > MAX_BLOCK_WEIGHT
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
    let mut legacy_sigops = Vec::with_capacity(block.txdata.len());
    for (i, tx) in block.txdata.iter().enumerate() {
        let n = tx_legacy_sigop_count(tx);
        legacy_sigops.push(n);
        sigops += n as u64;
        if sigops * WITNESS_SCALE_FACTOR as u64 > MAX_BLOCK_SIGOPS_COST {
            return Err(at("bad-blk-sigops", i));
        }
    }
    // Both are context-free work that the contextual checks only compare, computed here so a
    // replay does it with the read-ahead, beside the scripts of the block before. The weight is
    // `Block::weight` with the base size of the length check above.
    let weight = weight_from_sizes(base_size, block.total_size());
    let witness_root = witness_root(block);
    Ok(CheckedBlock { hash, txids, weight, witness_root, legacy_sigops })
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
    check_witness_commitment(block, (checked.hash, &checked.txids), checked.witness_root, height, params)?;
    if checked.weight > MAX_BLOCK_WEIGHT {
        return Err(err("bad-blk-weight"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bip34_push_encoding() {
        assert_eq!(bip34_height_push(1), vec![0x51]);
        assert_eq!(bip34_height_push(16), vec![0x60]);
        assert_eq!(bip34_height_push(17), vec![1, 17]);
        assert_eq!(bip34_height_push(128), vec![2, 0x80, 0]);
        assert_eq!(bip34_height_push(227_931), vec![3, 0x5b, 0x7a, 0x03]);
    }
}
