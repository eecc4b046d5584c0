// SPDX-License-Identifier: MIT OR Apache-2.0
//! Signature-operation counting (Core's `GetSigOpCount`, `GetLegacySigOpCount`,
//! `GetP2SHSigOpCount`, `CountWitnessSigOps` and `GetTransactionSigOpCost`).
//!
//! Legacy counting charges CHECKSIG(VERIFY) 1 and CHECKMULTISIG(VERIFY) 20, or, when
//! `accurate` and preceded by `OP_1..OP_16`, that number. It stops at the first unparseable op.
//! A transaction's sigop cost (BIP141) is `4 × (legacy + P2SH) + witness`: legacy sigops of
//! every scriptSig and scriptPubKey counted inaccurately, P2SH redeem scripts and segwit v0
//! witness scripts counted accurately, taproot not at all (tapscript is budgeted by validation
//! weight instead). A block's cost is at most [`MAX_BLOCK_SIGOPS_COST`].

use super::opcodes::*;
use super::ScriptFlags;
use crate::encode::{Block, Transaction, TxOut, WITNESS_SCALE_FACTOR};

/// `MAX_BLOCK_SIGOPS_COST` (consensus/consensus.h): the sigop cost budget of a block.
pub const MAX_BLOCK_SIGOPS_COST: u64 = 80_000;

/// `CScript::GetSigOpCount(fAccurate)`.
pub fn legacy_sigop_count(script: &[u8], accurate: bool) -> u32 {
    let mut n = 0u32;
    let mut pc = 0;
    let mut last = OP_INVALIDOPCODE;
    while pc < script.len() {
        let Some(op) = get_op(script, &mut pc) else { break };
        match op.opcode {
            OP_CHECKSIG | OP_CHECKSIGVERIFY => n += 1,
            OP_CHECKMULTISIG | OP_CHECKMULTISIGVERIFY => {
                if accurate && (OP_1..=OP_16).contains(&last) {
                    n += (last - OP_1 + 1) as u32;
                } else {
                    n += 20;
                }
            }
            _ => {}
        }
        last = op.opcode;
    }
    n
}

/// The last push of a push-only script, or `None` if it is not push-only.
fn last_push(script_sig: &[u8]) -> Option<Vec<u8>> {
    let mut pc = 0;
    let mut data = Vec::new();
    while pc < script_sig.len() {
        let op = get_op(script_sig, &mut pc)?;
        if op.opcode > OP_16 {
            return None;
        }
        data = op.data.to_vec();
    }
    Some(data)
}

/// The sigops of the P2SH redeem script an input reveals: the accurate count of the last push
/// of `script_sig` when `script_pubkey` is P2SH, 0 otherwise, and 0 when `script_sig` is not
/// push-only (one input's term of Core's `GetP2SHSigOpCount`).
pub fn p2sh_sigop_count(script_pubkey: &[u8], script_sig: &[u8]) -> u32 {
    if !is_p2sh(script_pubkey) {
        return 0;
    }
    match last_push(script_sig) {
        Some(redeem) => legacy_sigop_count(&redeem, true),
        None => 0,
    }
}

fn witness_program_sigops(version: u8, program: &[u8], witness: &[Vec<u8>]) -> u32 {
    if version == 0 {
        if program.len() == 20 {
            return 1;
        }
        if program.len() == 32 {
            if let Some(script) = witness.last() {
                return legacy_sigop_count(script, true);
            }
        }
    }
    // Future versions (and taproot, budgeted by validation weight instead) count 0.
    0
}

/// `CountWitnessSigOps`: sigops of a segwit v0 spend (bare or P2SH-wrapped).
pub fn witness_sigop_count(
    script_sig: &[u8],
    script_pubkey: &[u8],
    witness: &[Vec<u8>],
    flags: ScriptFlags,
) -> u32 {
    if !flags.contains(ScriptFlags::WITNESS) {
        return 0;
    }
    debug_assert!(flags.contains(ScriptFlags::P2SH));
    if let Some((v, p)) = witness_program(script_pubkey) {
        return witness_program_sigops(v, p, witness);
    }
    if is_p2sh(script_pubkey) && is_push_only(script_sig) {
        if let Some(redeem) = last_push(script_sig) {
            if let Some((v, p)) = witness_program(&redeem) {
                return witness_program_sigops(v, p, witness);
            }
        }
    }
    0
}

/// `GetLegacySigOpCount`: the inaccurate legacy count over a transaction's scriptSigs and
/// scriptPubKeys.
pub fn tx_legacy_sigop_count(tx: &Transaction) -> u32 {
    tx.inputs.iter().map(|i| legacy_sigop_count(&i.script_sig, false)).sum::<u32>()
        + tx.outputs.iter().map(|o| legacy_sigop_count(&o.script_pubkey, false)).sum::<u32>()
}

/// [`tx_legacy_sigop_count`] summed over a block (the quantity Core's context-free
/// `CheckBlock` bounds by `MAX_BLOCK_SIGOPS_COST / 4`).
pub fn block_legacy_sigop_count(block: &Block) -> u64 {
    block.txdata.iter().map(|t| tx_legacy_sigop_count(t) as u64).sum()
}

/// `GetTransactionSigOpCost`: `4 × legacy + 4 × P2SH (with the P2SH flag) + witness (with the
/// WITNESS flag)`. A coinbase counts its legacy sigops only and needs no spent outputs.
///
/// # Panics
/// If `tx` is not a coinbase and `spent_outputs` does not hold one output per input.
pub fn transaction_sigop_cost(tx: &Transaction, spent_outputs: &[TxOut], flags: ScriptFlags) -> u64 {
    transaction_sigop_cost_with_legacy(tx, tx_legacy_sigop_count(tx), spent_outputs, flags)
}

/// [`transaction_sigop_cost`] with the transaction's legacy count ([`tx_legacy_sigop_count`])
/// given, as block validation has it from `CheckBlock`.
///
/// # Panics
/// If `tx` is not a coinbase and `spent_outputs` does not hold one output per input.
pub fn transaction_sigop_cost_with_legacy(
    tx: &Transaction,
    legacy: u32,
    spent_outputs: &[TxOut],
    flags: ScriptFlags,
) -> u64 {
    u64::from(legacy) * WITNESS_SCALE_FACTOR as u64 + spent_sigop_cost(tx, spent_outputs, flags)
}

/// The part of [`transaction_sigop_cost`] that depends on the spent outputs: `4 × P2SH (with
/// the P2SH flag) + witness (with the WITNESS flag)`; 0 for a coinbase.
///
/// # Panics
/// If `tx` is not a coinbase and `spent_outputs` does not hold one output per input.
pub fn spent_sigop_cost(tx: &Transaction, spent_outputs: &[TxOut], flags: ScriptFlags) -> u64 {
    if tx.is_coinbase() {
        return 0;
    }
    assert_eq!(spent_outputs.len(), tx.inputs.len(), "one spent output per input");
    let spends = tx.inputs.iter().zip(spent_outputs);
    let mut cost = 0;
    if flags.contains(ScriptFlags::P2SH) {
        cost += spends
            .clone()
            .map(|(i, o)| p2sh_sigop_count(&o.script_pubkey, &i.script_sig) as u64)
            .sum::<u64>()
            * WITNESS_SCALE_FACTOR as u64;
    }
    cost + spends
        .map(|(i, o)| witness_sigop_count(&i.script_sig, &o.script_pubkey, &i.witness, flags) as u64)
        .sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-of-3 bare multisig script: 3 accurate sigops, 20 inaccurate.
    fn multisig_2_of_3() -> Vec<u8> {
        let mut ms = vec![OP_1 + 1];
        for _ in 0..3 {
            ms.push(33);
            ms.extend_from_slice(&[2u8; 33]);
        }
        ms.extend_from_slice(&[OP_1 + 2, OP_CHECKMULTISIG]);
        ms
    }

    #[test]
    fn sigop_counts_vs_core_rules() {
        // 2-of-3 multisig: accurate 3, inaccurate 20.
        let ms = multisig_2_of_3();
        assert_eq!(legacy_sigop_count(&ms, true), 3);
        assert_eq!(legacy_sigop_count(&ms, false), 20);
        assert_eq!(legacy_sigop_count(&[OP_CHECKSIG, OP_CHECKSIGVERIFY, 0x4c], true), 2);
        // P2SH spend of that redeem script.
        let mut spk = vec![OP_HASH160, 20];
        spk.extend_from_slice(&crate::hash::hash160(&ms));
        spk.push(OP_EQUAL);
        let sig = crate::script::interpreter::push_data_script(&ms);
        assert_eq!(p2sh_sigop_count(&spk, &sig), 3);
        // Not P2SH: nothing, whatever the scriptPubKey holds (Core's GetP2SHSigOpCount).
        let mut p2pkh = vec![OP_DUP, OP_HASH160, 20];
        p2pkh.extend_from_slice(&[7u8; 20]);
        p2pkh.extend_from_slice(&[OP_EQUALVERIFY, OP_CHECKSIG]);
        assert_eq!(p2sh_sigop_count(&p2pkh, &sig), 0);
        assert_eq!(p2sh_sigop_count(&ms, &sig), 0);
        // P2WPKH counts 1.
        let mut wpkh = vec![0, 20];
        wpkh.extend_from_slice(&[7u8; 20]);
        assert_eq!(
            witness_sigop_count(&[], &wpkh, &[vec![1], vec![2]], ScriptFlags::P2SH | ScriptFlags::WITNESS),
            1
        );
        assert_eq!(witness_sigop_count(&[], &wpkh, &[], ScriptFlags::P2SH), 0);
    }

    #[test]
    fn transaction_sigop_cost_vs_core_rules() {
        use crate::encode::{OutPoint, TxIn};
        // Redeem script: 2-of-3 multisig (3 accurate sigops) wrapped in P2SH.
        let ms = multisig_2_of_3();
        let mut p2sh = vec![OP_HASH160, 20];
        p2sh.extend_from_slice(&crate::hash::hash160(&ms));
        p2sh.push(OP_EQUAL);
        let mut wpkh = vec![0, 20];
        wpkh.extend_from_slice(&[7u8; 20]);
        let input = |script_sig: Vec<u8>, witness: Vec<Vec<u8>>| TxIn {
            prevout: OutPoint { txid: [1; 32], vout: 0 },
            script_sig,
            sequence: 0,
            witness,
        };
        let tx = Transaction {
            version: 2,
            inputs: vec![
                input(crate::script::interpreter::push_data_script(&ms), vec![]),
                input(vec![], vec![vec![1], vec![2]]),
            ],
            // One bare CHECKSIG output: 1 legacy sigop.
            outputs: vec![TxOut { value: 0, script_pubkey: vec![OP_CHECKSIG] }],
            lock_time: 0,
        };
        let spent =
            [TxOut { value: 0, script_pubkey: p2sh }, TxOut { value: 0, script_pubkey: wpkh.clone() }];
        let all = ScriptFlags::P2SH | ScriptFlags::WITNESS;
        // Legacy: the multisig inside the scriptSig push is data, the output has 1.
        assert_eq!(tx_legacy_sigop_count(&tx), 1);
        assert_eq!(transaction_sigop_cost(&tx, &spent, all), 4 + 4 * 3 + 1);
        assert_eq!(transaction_sigop_cost(&tx, &spent, ScriptFlags::P2SH), 4 + 4 * 3);
        assert_eq!(transaction_sigop_cost(&tx, &spent, ScriptFlags::NONE), 4);
        // A coinbase counts legacy sigops only and needs no spent outputs.
        let mut cb = tx.clone();
        cb.inputs = vec![TxIn {
            prevout: OutPoint::NULL,
            script_sig: vec![OP_CHECKSIG, OP_CHECKSIG],
            sequence: 0,
            witness: vec![],
        }];
        assert_eq!(transaction_sigop_cost(&cb, &[], all), 4 * 3);
    }
}
