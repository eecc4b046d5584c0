// SPDX-License-Identifier: MIT OR Apache-2.0
//! The BIP141 witness commitment: Core's `GetWitnessCommitmentIndex` and the commitment part of
//! `ContextualCheckBlock` (`src/validation.cpp`), which also rejects witnesses without one.

use super::error::BlockError;
use crate::chain::ChainParams;
use crate::encode::Block;
use crate::hash::{merkle_root, sha256d};

/// The coinbase's witness commitment output index (`GetWitnessCommitmentIndex`): the last
/// output whose script starts `OP_RETURN 0x24 aa21a9ed` and is at least 38 bytes.
pub fn witness_commitment_index(block: &Block) -> Option<usize> {
    let cb = block.txdata.first()?;
    cb.outputs.iter().rposition(|o| {
        let s = &o.script_pubkey;
        s.len() >= 38 && s[..6] == [0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]
    })
}

/// The root the witness commitment commits to, when the coinbase has a commitment output: the
/// merkle root of the wtxids, the coinbase's taken as zero. Needs nothing but the block, so
/// [`check_block`](super::check_block) computes it (off the serial path of a replay); whether it
/// must match depends on the height, which [`check_witness_commitment`] knows.
pub(super) fn witness_root(block: &Block) -> Option<[u8; 32]> {
    witness_commitment_index(block)?;
    // The coinbase's leaf is zero: put there directly, instead of hashing the coinbase for
    // `witness_merkle_root` to overwrite in a copy of the list.
    let wtxids: Vec<[u8; 32]> =
        std::iter::once([0; 32]).chain(block.txdata.iter().skip(1).map(|t| t.wtxid())).collect();
    Some(merkle_root(&wtxids).root)
}

/// The witness rules of `ContextualCheckBlock`: after segwit, a commitment in the coinbase must
/// match the witness merkle root (`root`, from [`witness_root`]) with the coinbase's 32-byte
/// witness nonce; without a commitment (or before segwit) no transaction may carry a witness.
/// `hash` and `txids` label errors.
pub(super) fn check_witness_commitment(
    block: &Block,
    (hash, txids): ([u8; 32], &[[u8; 32]]),
    root: Option<[u8; 32]>,
    height: u32,
    params: &ChainParams,
) -> Result<(), BlockError> {
    let err = |r: &str| BlockError::new(r, hash, height);
    let mut committed = false;
    if height >= params.segwit_height {
        if let Some(pos) = witness_commitment_index(block) {
            let w = &block.txdata[0].inputs[0].witness;
            if w.len() != 1 || w[0].len() != 32 {
                return Err(err("bad-witness-nonce-size"));
            }
            let root = root.expect("check_block computes the root of every block with a commitment output");
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
            return Err(BlockError { tx: Some((i, txids[i])), ..err("unexpected-witness") });
        }
    }
    Ok(())
}
