// SPDX-License-Identifier: MIT OR Apache-2.0
//! `VerifyScript` and `VerifyWitnessProgram` (script/interpreter.cpp): scriptSig then
//! scriptPubKey, P2SH (BIP16), segwit v0 (BIP141/143), taproot key and script path (BIP341).

use super::checker::{Checker, SigVerifier, TweakCheck};
use super::error::{Res, ScriptError};
use super::eval::{eval_script, Stack, MAX_SCRIPT_ELEMENT_SIZE, MAX_STACK_SIZE};
use super::exec::{ExecData, SigVersion};
use super::num::cast_to_bool;
use super::scriptcode::push_data_script;
use super::taproot::*;
use crate::encode::TxOut;
use crate::hash::sha256;
use crate::script::opcodes::*;
use crate::script::ScriptFlags;
use crate::sighash::TxContext;

fn execute_witness_script<V: SigVerifier + ?Sized>(
    stack_in: &[Vec<u8>],
    script: &[u8],
    flags: ScriptFlags,
    sigversion: SigVersion,
    checker: &Checker<'_, V>,
    exec: &mut ExecData,
) -> Res<()> {
    if sigversion == SigVersion::Tapscript {
        // OP_SUCCESSx overrides everything, including the element size limits.
        let mut pc = 0;
        while pc < script.len() {
            let op = get_op(script, &mut pc).ok_or(ScriptError::BadOpcode)?;
            if is_op_success(op.opcode) {
                if flags.contains(ScriptFlags::DISCOURAGE_OP_SUCCESS) {
                    return Err(ScriptError::DiscourageOpSuccess);
                }
                return Ok(());
            }
        }
        // Tapscript enforces the initial stack size limit.
        if stack_in.len() > MAX_STACK_SIZE {
            return Err(ScriptError::StackSize);
        }
    }
    if stack_in.iter().any(|e| e.len() > MAX_SCRIPT_ELEMENT_SIZE) {
        return Err(ScriptError::PushSize);
    }
    let mut stack: Stack = stack_in.to_vec();
    eval_script(&mut stack, script, flags, checker, sigversion, exec)?;
    // Scripts inside witnesses implicitly require a clean stack.
    if stack.len() != 1 {
        return Err(ScriptError::CleanStack);
    }
    if !cast_to_bool(&stack[0]) {
        return Err(ScriptError::EvalFalse);
    }
    Ok(())
}

fn verify_witness_program<V: SigVerifier + ?Sized>(
    witness: &[Vec<u8>],
    version: u8,
    program: &[u8],
    flags: ScriptFlags,
    checker: &Checker<'_, V>,
    is_p2sh: bool,
) -> Res<()> {
    let mut exec = ExecData::default();
    if version == 0 {
        if program.len() == 32 {
            // BIP141 P2WSH: the last witness item is the script; SHA256(script) == program.
            let (script, stack) = witness.split_last().ok_or(ScriptError::WitnessProgramWitnessEmpty)?;
            if sha256(script) != program {
                return Err(ScriptError::WitnessProgramMismatch);
            }
            return execute_witness_script(stack, script, flags, SigVersion::WitnessV0, checker, &mut exec);
        } else if program.len() == 20 {
            // BIP141 P2WPKH: exactly two items; runs DUP HASH160 <program> EQUALVERIFY CHECKSIG.
            if witness.len() != 2 {
                return Err(ScriptError::WitnessProgramMismatch);
            }
            let mut script = Vec::with_capacity(25);
            script.extend_from_slice(&[OP_DUP, OP_HASH160, 20]);
            script.extend_from_slice(program);
            script.extend_from_slice(&[OP_EQUALVERIFY, OP_CHECKSIG]);
            return execute_witness_script(
                witness,
                &script,
                flags,
                SigVersion::WitnessV0,
                checker,
                &mut exec,
            );
        } else {
            return Err(ScriptError::WitnessProgramWrongLength);
        }
    }
    if version == 1 && program.len() == 32 && !is_p2sh {
        // BIP341 taproot: 32-byte non-P2SH witness v1 program.
        if !flags.contains(ScriptFlags::TAPROOT) {
            return Ok(());
        }
        let mut stack: &[Vec<u8>] = witness;
        if stack.is_empty() {
            return Err(ScriptError::WitnessProgramWitnessEmpty);
        }
        // "If there are at least two witness elements, and the first byte of the last element
        // is 0x50, this last element is called annex a and is removed from the witness stack."
        if stack.len() >= 2 && stack[stack.len() - 1].first() == Some(&ANNEX_TAG) {
            exec.annex = Some(stack[stack.len() - 1].clone());
            stack = &stack[..stack.len() - 1];
        }
        let output: &[u8; 32] = program.try_into().expect("32 bytes");
        if stack.len() == 1 {
            // Key path: the single element is a signature for the output key.
            return checker.check_schnorr(&stack[0], output, SigVersion::Taproot, &exec);
        }
        // Script path: [... stack, script, control].
        let control = &stack[stack.len() - 1];
        let script = &stack[stack.len() - 2];
        let stack = &stack[..stack.len() - 2];
        if control.len() < TAPROOT_CONTROL_BASE_SIZE
            || control.len() > TAPROOT_CONTROL_MAX_SIZE
            || !(control.len() - TAPROOT_CONTROL_BASE_SIZE).is_multiple_of(TAPROOT_CONTROL_NODE_SIZE)
        {
            return Err(ScriptError::TaprootWrongControlSize);
        }
        let leaf_version = control[0] & TAPROOT_LEAF_MASK;
        let leaf = tapleaf_hash(leaf_version, script);
        let root = taproot_merkle_root(control, leaf);
        let internal: &[u8; 32] = control[1..33].try_into().expect("32 bytes");
        let tweak = taptweak_hash(internal, Some(&root));
        let check = TweakCheck { internal, tweak: &tweak, output, parity: control[0] & 1 == 1 };
        if !checker.verifier.tweak_add_check(&check) {
            return Err(ScriptError::WitnessProgramMismatch);
        }
        exec.tapleaf_hash = Some(leaf);
        if leaf_version == TAPROOT_LEAF_TAPSCRIPT {
            // BIP342: budget = 50 + serialized size of the whole witness (annex included).
            exec.validation_weight_left = witness_serialized_size(witness) as i64 + VALIDATION_WEIGHT_OFFSET;
            exec.codesep_pos = u32::MAX;
            return execute_witness_script(stack, script, flags, SigVersion::Tapscript, checker, &mut exec);
        }
        if flags.contains(ScriptFlags::DISCOURAGE_UPGRADABLE_TAPROOT_VERSION) {
            return Err(ScriptError::DiscourageUpgradableTaprootVersion);
        }
        return Ok(());
    }
    // Pay-to-anchor (v1, program 0x4e73, not P2SH) is exempt from the upgradability discouragement.
    if version == 1 && program == [0x4e, 0x73] && !is_p2sh {
        return Ok(());
    }
    if flags.contains(ScriptFlags::DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM) {
        return Err(ScriptError::DiscourageUpgradableWitnessProgram);
    }
    // Other version/size/P2SH combinations succeed for future soft-fork compatibility.
    Ok(())
}

/// Core's `VerifyScript` for input `input_index` of `ctx.tx`, spending an output with
/// `script_pubkey` and `amount`. Most callers want [`verify_input`].
#[allow(clippy::too_many_arguments)]
pub fn verify_script<V: SigVerifier + ?Sized>(
    ctx: &TxContext<'_>,
    input_index: usize,
    script_pubkey: &[u8],
    amount: i64,
    flags: ScriptFlags,
    verifier: &V,
) -> Res<()> {
    let input = ctx.tx.inputs.get(input_index).ok_or(ScriptError::UnknownError)?;
    let script_sig = &input.script_sig[..];
    let witness = &input.witness[..];
    let checker = Checker { ctx, n_in: input_index, amount, verifier };
    let mut exec = ExecData::default();
    let mut had_witness = false;

    if flags.contains(ScriptFlags::SIGPUSHONLY) && !is_push_only(script_sig) {
        return Err(ScriptError::SigPushOnly);
    }
    // scriptSig and scriptPubKey run in sequence on one stack (not concatenated: CVE-2010-5141).
    let mut stack: Stack = Vec::new();
    eval_script(&mut stack, script_sig, flags, &checker, SigVersion::Base, &mut exec)?;
    let stack_copy = if flags.contains(ScriptFlags::P2SH) { Some(stack.clone()) } else { None };
    eval_script(&mut stack, script_pubkey, flags, &checker, SigVersion::Base, &mut exec)?;
    match stack.last() {
        Some(v) if cast_to_bool(v) => {}
        _ => return Err(ScriptError::EvalFalse),
    }

    // Bare witness programs.
    if flags.contains(ScriptFlags::WITNESS) {
        if let Some((ver, prog)) = witness_program(script_pubkey) {
            had_witness = true;
            if !script_sig.is_empty() {
                return Err(ScriptError::WitnessMalleated);
            }
            verify_witness_program(witness, ver, prog, flags, &checker, false)?;
            // The stack is not clean for witness programs; bypass CLEANSTACK.
            stack.truncate(1);
        }
    }

    // BIP16 pay-to-script-hash.
    if flags.contains(ScriptFlags::P2SH) && is_p2sh(script_pubkey) {
        if !is_push_only(script_sig) {
            return Err(ScriptError::SigPushOnly);
        }
        stack = stack_copy.expect("P2SH flag set");
        // Non-empty: HASH160 <h> EQUAL succeeded on it.
        let redeem = stack.pop().ok_or(ScriptError::EvalFalse)?;
        eval_script(&mut stack, &redeem, flags, &checker, SigVersion::Base, &mut exec)?;
        match stack.last() {
            Some(v) if cast_to_bool(v) => {}
            _ => return Err(ScriptError::EvalFalse),
        }
        if flags.contains(ScriptFlags::WITNESS) {
            if let Some((ver, prog)) = witness_program(&redeem) {
                had_witness = true;
                // The scriptSig must be exactly one push of the redeem script.
                if script_sig != push_data_script(&redeem).as_slice() {
                    return Err(ScriptError::WitnessMalleatedP2sh);
                }
                verify_witness_program(witness, ver, prog, flags, &checker, true)?;
                stack.truncate(1);
            }
        }
    }

    // CLEANSTACK only after P2SH and witness evaluation (Core asserts P2SH and WITNESS are set).
    if flags.contains(ScriptFlags::CLEANSTACK) && stack.len() != 1 {
        return Err(ScriptError::CleanStack);
    }
    if flags.contains(ScriptFlags::WITNESS) && !had_witness && !witness.is_empty() {
        return Err(ScriptError::WitnessUnexpected);
    }
    Ok(())
}

/// Verifies input `input_index` of `ctx.tx` against the output it spends, taken from the
/// context's spent outputs (`TxContext::new(tx, Some(spent_outputs))`, one per input).
///
/// Thread-safe: the context is read-only (its lazily computed hashes are `OnceLock`s) and all
/// scratch state lives on this call's stack. Fails with [`ScriptError::UnknownError`] when the
/// context has no spent output for `input_index`.
///
/// ```
/// use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
/// use fullverify::hash::sha256;
/// use fullverify::script::opcodes::{OP_EQUAL, OP_SHA256};
/// use fullverify::script::{verify_input, NativeVerifier, ScriptError, ScriptFlags};
/// use fullverify::sighash::TxContext;
///
/// // A hash lock: `OP_SHA256 <sha256(secret)> OP_EQUAL`, spent by pushing the secret.
/// let secret = b"open sesame";
/// let mut script_pubkey = vec![OP_SHA256, 32];
/// script_pubkey.extend_from_slice(&sha256(secret));
/// script_pubkey.push(OP_EQUAL);
/// let spent = [TxOut { value: 10_000, script_pubkey }];
///
/// let mut script_sig = vec![secret.len() as u8];
/// script_sig.extend_from_slice(secret);
/// let mut tx = Transaction {
///     version: 2,
///     inputs: vec![TxIn {
///         prevout: OutPoint { txid: [7; 32], vout: 0 },
///         script_sig,
///         sequence: 0xffff_ffff,
///         witness: vec![],
///     }],
///     outputs: vec![TxOut { value: 9_000, script_pubkey: vec![] }],
///     lock_time: 0,
/// };
/// let flags: ScriptFlags = "P2SH,WITNESS,TAPROOT".parse().unwrap();
/// let ctx = TxContext::new(&tx, Some(&spent));
/// assert_eq!(verify_input(&ctx, 0, flags, &NativeVerifier), Ok(()));
///
/// // The wrong secret leaves false on the stack.
/// tx.inputs[0].script_sig[1] ^= 1;
/// let ctx = TxContext::new(&tx, Some(&spent));
/// assert_eq!(verify_input(&ctx, 0, flags, &NativeVerifier), Err(ScriptError::EvalFalse));
/// ```
pub fn verify_input<V: SigVerifier + ?Sized>(
    ctx: &TxContext<'_>,
    input_index: usize,
    flags: ScriptFlags,
    verifier: &V,
) -> Res<()> {
    let spent: &TxOut =
        ctx.spent_outputs.and_then(|s| s.get(input_index)).ok_or(ScriptError::UnknownError)?;
    verify_script(ctx, input_index, &spent.script_pubkey, spent.value, flags, verifier)
}

/// Verifies every input of `ctx.tx` (one thread); the first failure as `(input, error)`.
pub fn verify_tx<V: SigVerifier + ?Sized>(
    ctx: &TxContext<'_>,
    flags: ScriptFlags,
    verifier: &V,
) -> Result<(), (usize, ScriptError)> {
    (0..ctx.tx.inputs.len()).try_for_each(|i| verify_input(ctx, i, flags, verifier).map_err(|e| (i, e)))
}
