// SPDX-License-Identifier: MIT OR Apache-2.0
//! Signet block solutions (BIP325): Core's `CheckSignetBlockSolution` and `SignetTxs::Create`
//! (`src/signet.cpp`), the two virtual transactions whose script check signs a signet block.

use super::witness::witness_commitment_index;
use crate::encode::{Block, OutPoint, Reader, Transaction, TxIn, TxOut};
use crate::hash::merkle_root;
use crate::script::interpreter::{push_data_script, verify_input};
use crate::script::opcodes::get_op;
use crate::script::{NativeVerifier, ScriptFlags};
use crate::sighash::TxContext;

/// BIP325's tag of the solution push inside the witness commitment output.
pub const SIGNET_HEADER: [u8; 4] = [0xec, 0xc7, 0xda, 0xa2];

/// The flags a signet solution is verified with.
pub fn signet_solution_flags() -> ScriptFlags {
    ScriptFlags::P2SH | ScriptFlags::WITNESS | ScriptFlags::DERSIG | ScriptFlags::NULLDUMMY
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
            replacement.extend_from_slice(&push_data_script(&SIGNET_HEADER));
        } else {
            replacement.extend_from_slice(&push_data_script(op.data));
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
        let mut r = Reader::new(&solution);
        script_sig = r.var_bytes().ok()?.to_vec();
        let n = r.compact_size().ok()?;
        for _ in 0..n {
            witness.push(r.var_bytes().ok()?.to_vec());
        }
        r.finish().ok()?;
    }
    let mut leaves = txids.to_vec();
    leaves[0] = cb.txid();
    let root = merkle_root(&leaves).root;
    let mut data = Vec::with_capacity(76);
    data.extend_from_slice(&block.header.version.to_le_bytes());
    data.extend_from_slice(&block.header.prev_block);
    data.extend_from_slice(&root);
    data.extend_from_slice(&block.header.time.to_le_bytes());
    let mut to_spend_sig = vec![0x00];
    to_spend_sig.extend_from_slice(&push_data_script(&data));
    // Both are version 0 with lock time 0 and one output of 0; their inputs have sequence 0.
    let one_in_one_out = |input: TxIn, script_pubkey: Vec<u8>| Transaction {
        version: 0,
        inputs: vec![input],
        outputs: vec![TxOut { value: 0, script_pubkey }],
        lock_time: 0,
    };
    let null = OutPoint::NULL;
    let to_spend = one_in_one_out(
        TxIn { prevout: null, script_sig: to_spend_sig, ..TxIn::default() },
        challenge.to_vec(),
    );
    let prevout = OutPoint { txid: to_spend.txid(), vout: 0 };
    let to_sign = one_in_one_out(TxIn { prevout, script_sig, sequence: 0, witness }, vec![0x6a]);
    Some((to_spend, to_sign))
}

/// Core's `CheckSignetBlockSolution` (BIP325) for a block other than genesis: the solution in
/// `to_sign` ([`signet_txs`]) must satisfy the challenge under [`signet_solution_flags`].
pub fn check_signet_solution(block: &Block, txids: &[[u8; 32]], challenge: &[u8]) -> bool {
    let Some((to_spend, to_sign)) = signet_txs(block, txids, challenge) else { return false };
    let spent = [to_spend.outputs[0].clone()];
    let ctx = TxContext::new(&to_sign, Some(&spent));
    verify_input(&ctx, 0, signet_solution_flags(), &NativeVerifier).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::BlockHeader;

    /// A signet block under a 1-of-1 multisig challenge with a key of ours: the solution made
    /// with [`signet_txs`] is accepted; a wrong key, no solution, or extra bytes are not; an
    /// `OP_TRUE` challenge needs no solution.
    #[test]
    fn signet_solution_round_trip() {
        let sk = [7u8; 32];
        let pk = crate::secp256k1::PublicKey::from_secret(&sk).unwrap().serialize_compressed();
        let mut challenge = vec![0x51, 33];
        challenge.extend_from_slice(&pk);
        challenge.extend_from_slice(&[0x51, 0xae]);
        let make = |solution: Option<Vec<u8>>| {
            let mut commit = vec![0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed];
            commit.extend_from_slice(&[0x11; 32]);
            if let Some(sol) = solution {
                commit.extend_from_slice(&push_data_script(&[&SIGNET_HEADER[..], &sol[..]].concat()));
            }
            let cb = Transaction {
                version: 2,
                inputs: vec![TxIn {
                    prevout: OutPoint::NULL,
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
            script_sig.extend_from_slice(&push_data_script(&sig));
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
}
