// SPDX-License-Identifier: MIT OR Apache-2.0
//! Signature-operation counting (Core's `GetSigOpCount`, `GetP2SHSigOpCount`,
//! `CountWitnessSigOps`).
//!
//! Legacy counting charges CHECKSIG(VERIFY) 1 and CHECKMULTISIG(VERIFY) 20, or, when
//! `accurate` and preceded by `OP_1..OP_16`, that number. It stops at the first unparseable op.
//! Witness sigops (BIP141) are not scaled; block code multiplies legacy counts by 4.

use super::opcodes::*;
use super::ScriptFlags;

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

/// `CScript::GetSigOpCount(scriptSig)`: accurate count of the P2SH redeem script (the last
/// push of `script_sig`) when `script_pubkey` is P2SH; legacy accurate count otherwise.
pub fn p2sh_sigop_count(script_pubkey: &[u8], script_sig: &[u8]) -> u32 {
    if !is_p2sh(script_pubkey) {
        return legacy_sigop_count(script_pubkey, true);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigop_counts_vs_core_rules() {
        // 2-of-3 multisig: accurate 3, inaccurate 20.
        let mut ms = vec![OP_1 + 1];
        for _ in 0..3 {
            ms.push(33);
            ms.extend_from_slice(&[2u8; 33]);
        }
        ms.extend_from_slice(&[OP_1 + 2, OP_CHECKMULTISIG]);
        assert_eq!(legacy_sigop_count(&ms, true), 3);
        assert_eq!(legacy_sigop_count(&ms, false), 20);
        assert_eq!(legacy_sigop_count(&[OP_CHECKSIG, OP_CHECKSIGVERIFY, 0x4c], true), 2);
        // P2SH spend of that redeem script.
        let mut spk = vec![OP_HASH160, 20];
        spk.extend_from_slice(&crate::hash::hash160(&ms));
        spk.push(OP_EQUAL);
        let sig = crate::script::interpreter::push_data_script(&ms);
        assert_eq!(p2sh_sigop_count(&spk, &sig), 3);
        // P2WPKH counts 1.
        let mut wpkh = vec![0, 20];
        wpkh.extend_from_slice(&[7u8; 20]);
        assert_eq!(
            witness_sigop_count(&[], &wpkh, &[vec![1], vec![2]], ScriptFlags::P2SH | ScriptFlags::WITNESS),
            1
        );
        assert_eq!(witness_sigop_count(&[], &wpkh, &[], ScriptFlags::P2SH), 0);
    }
}
