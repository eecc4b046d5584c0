// SPDX-License-Identifier: MIT OR Apache-2.0
//! `EvalScript` (script/interpreter.cpp): runs one script on a stack.
//!
//! Limits: script ≤ 10,000 bytes and ≤ 201 non-push ops (legacy and segwit v0 only), element
//! ≤ 520 bytes, stack + altstack ≤ 1,000 items. Tapscript (BIP342) drops the size and op-count
//! limits and bounds signature checks by a validation-weight budget:
//! `50 + serialized witness size`, minus 50 per non-empty signature checked.

use super::checker::{Checker, MultisigClaim, MultisigKey, SigVerifier, SEQUENCE_LOCKTIME_DISABLE_FLAG};
use super::encoding::{
    check_minimal_push, check_pubkey_encoding, check_signature_encoding, pubkey_size_valid,
};
use super::error::{Res, ScriptError};
use super::exec::{ExecData, SigVersion};
use super::num::{cast_to_bool, getint, scriptnum_decode, scriptnum_encode};
use super::scriptcode::{find_and_delete, push_data_script};
use super::taproot::VALIDATION_WEIGHT_PER_SIGOP_PASSED;
use crate::hash::{hash160, ripemd160, sha1, sha256, sha256d};
use crate::script::opcodes::*;
use crate::script::ScriptFlags;

/// Largest legacy or segwit v0 script (bytes).
pub const MAX_SCRIPT_SIZE: usize = 10_000;
/// Largest stack element (bytes).
pub const MAX_SCRIPT_ELEMENT_SIZE: usize = 520;
/// Most non-push ops in a legacy or segwit v0 script (CHECKMULTISIG keys included).
pub const MAX_OPS_PER_SCRIPT: usize = 201;
/// Most public keys in one CHECKMULTISIG.
pub const MAX_PUBKEYS_PER_MULTISIG: i64 = 20;
/// Most items on the stack and altstack together.
pub const MAX_STACK_SIZE: usize = 1000;

/// Core's `ConditionStack`: the IF/ELSE nesting as a size and the position of the first false.
struct CondStack {
    size: usize,
    first_false: Option<usize>,
}

impl CondStack {
    fn all_true(&self) -> bool {
        self.first_false.is_none()
    }
    fn push(&mut self, v: bool) {
        if self.first_false.is_none() && !v {
            self.first_false = Some(self.size);
        }
        self.size += 1;
    }
    fn pop(&mut self) {
        self.size -= 1;
        if self.first_false == Some(self.size) {
            self.first_false = None;
        }
    }
    fn toggle_top(&mut self) {
        match self.first_false {
            None => self.first_false = Some(self.size - 1),
            Some(p) if p == self.size - 1 => self.first_false = None,
            _ => {}
        }
    }
}

/// The main stack or the altstack.
pub(super) type Stack = Vec<Vec<u8>>;

/// Rotates the top `n` stack items left by `k`, failing when the stack holds fewer than `n`.
#[inline]
fn rotate_top(stack: &mut Stack, n: usize, k: usize) -> Res<()> {
    top(stack, n)?;
    let len = stack.len();
    stack[len - n..].rotate_left(k);
    Ok(())
}

#[inline]
fn top(stack: &Stack, i: usize) -> Res<&Vec<u8>> {
    if stack.len() < i {
        return Err(ScriptError::InvalidStackOperation);
    }
    Ok(&stack[stack.len() - i])
}

const TRUE: &[u8] = &[1];

#[allow(clippy::too_many_arguments)]
fn eval_checksig<V: SigVerifier + ?Sized>(
    sig: &[u8],
    pubkey: &[u8],
    script: &[u8],
    codehash_begin: usize,
    exec: &mut ExecData,
    flags: ScriptFlags,
    checker: &Checker<'_, V>,
    sigversion: SigVersion,
) -> Res<bool> {
    match sigversion {
        SigVersion::Base | SigVersion::WitnessV0 => {
            let mut script_code = script[codehash_begin..].to_vec();
            // Drop the signature in pre-segwit scripts but not segwit scripts.
            if sigversion == SigVersion::Base {
                let found = find_and_delete(&mut script_code, &push_data_script(sig));
                if found > 0 && flags.contains(ScriptFlags::CONST_SCRIPTCODE) {
                    return Err(ScriptError::SigFindAndDelete);
                }
            }
            check_signature_encoding(sig, flags)?;
            check_pubkey_encoding(pubkey, flags, sigversion)?;
            let ok = checker.check_ecdsa(sig, pubkey, &script_code, sigversion);
            if !ok && flags.contains(ScriptFlags::NULLFAIL) && !sig.is_empty() {
                return Err(ScriptError::NullFail);
            }
            Ok(ok)
        }
        SigVersion::Tapscript => {
            // BIP342 order: upgradable key types before other rules; an empty signature with an
            // invalid key fails; a non-empty invalid signature fails.
            let success = !sig.is_empty();
            if success {
                exec.validation_weight_left -= VALIDATION_WEIGHT_PER_SIGOP_PASSED;
                if exec.validation_weight_left < 0 {
                    return Err(ScriptError::TapscriptValidationWeight);
                }
            }
            if pubkey.is_empty() {
                return Err(ScriptError::TapscriptEmptyPubkey);
            } else if pubkey.len() == 32 {
                if success {
                    let pk: &[u8; 32] = pubkey.try_into().expect("32 bytes");
                    checker.check_schnorr(sig, pk, sigversion, exec)?;
                }
            } else if flags.contains(ScriptFlags::DISCOURAGE_UPGRADABLE_PUBKEYTYPE) {
                return Err(ScriptError::DiscourageUpgradablePubkeyType);
            }
            Ok(success)
        }
        SigVersion::Taproot => unreachable!("key path spends do not execute scripts"),
    }
}

/// The opcodes disabled since 2010 (CVE-2010-5137): they fail even in unexecuted branches.
fn is_disabled(opcode: u8) -> bool {
    matches!(
        opcode,
        OP_CAT
            | OP_SUBSTR
            | OP_LEFT
            | OP_RIGHT
            | OP_INVERT
            | OP_AND
            | OP_OR
            | OP_XOR
            | OP_2MUL
            | OP_2DIV
            | OP_MUL
            | OP_DIV
            | OP_MOD
            | OP_LSHIFT
            | OP_RSHIFT
    )
}

/// `OP_CHECKMULTISIG(VERIFY)` before tapscript: `[dummy] [sig ...] n_sigs [pubkey ...] n_keys`,
/// each key tried in order against the next signature; `op_count` is charged one op per key.
#[allow(clippy::too_many_arguments)]
#[inline]
fn eval_checkmultisig<V: SigVerifier + ?Sized>(
    stack: &mut Stack,
    opcode: u8,
    script: &[u8],
    codehash_begin: usize,
    op_count: &mut usize,
    flags: ScriptFlags,
    checker: &Checker<'_, V>,
    sigversion: SigVersion,
) -> Res<()> {
    let minimal = flags.contains(ScriptFlags::MINIMALDATA);
    if sigversion == SigVersion::Tapscript {
        return Err(ScriptError::TapscriptCheckMultisig);
    }
    // ([sig ...] num_of_signatures [pubkey ...] num_of_pubkeys -- bool)
    let mut i = 1usize;
    let mut n_keys = getint(scriptnum_decode(top(stack, i)?, minimal, 4)?);
    if !(0..=MAX_PUBKEYS_PER_MULTISIG).contains(&n_keys) {
        return Err(ScriptError::PubkeyCount);
    }
    *op_count += n_keys as usize;
    if *op_count > MAX_OPS_PER_SCRIPT {
        return Err(ScriptError::OpCount);
    }
    i += 1;
    let mut ikey = i;
    // ikey2: position of the last non-signature item (for NULLFAIL cleanup).
    let mut ikey2 = n_keys as usize + 2;
    i += n_keys as usize;
    let mut n_sigs = getint(scriptnum_decode(top(stack, i)?, minimal, 4)?);
    if n_sigs < 0 || n_sigs > n_keys {
        return Err(ScriptError::SigCount);
    }
    i += 1;
    let mut isig = i;
    i += n_sigs as usize;
    if stack.len() < i {
        return Err(ScriptError::InvalidStackOperation);
    }
    let mut script_code = script[codehash_begin..].to_vec();
    if sigversion == SigVersion::Base {
        for k in 0..n_sigs as usize {
            let sig = &stack[stack.len() - isig - k];
            let found = find_and_delete(&mut script_code, &push_data_script(sig));
            if found > 0 && flags.contains(ScriptFlags::CONST_SCRIPTCODE) {
                return Err(ScriptError::SigFindAndDelete);
            }
        }
    }
    let (first_sig, first_key) = (isig, ikey);
    let (all_sigs, all_keys) = (n_sigs as usize, n_keys as usize);
    // Each signature's message, computed on its first check. The script code is the same for
    // every signature here, so the message depends only on the hash type (a signature's last
    // byte): a signature of the same hash type as one before it takes that one's message.
    let mut msgs = [None; MAX_PUBKEYS_PER_MULTISIG as usize];
    let mut success = true;
    while success && n_sigs > 0 {
        let sig = &stack[stack.len() - isig];
        let key = &stack[stack.len() - ikey];
        // Encoding checks in evaluation order (observable under STRICTENC).
        check_signature_encoding(sig, flags)?;
        check_pubkey_encoding(key, flags, sigversion)?;
        let k = isig - first_sig;
        if let (None, Some(&hash_type)) = (msgs[k], sig.last()) {
            msgs[k] = (0..k).find_map(|j| {
                let earlier = &stack[stack.len() - first_sig - j];
                msgs[j].filter(|_| earlier.last() == Some(&hash_type))
            });
        }
        if checker.check_ecdsa_multisig(sig, key, &script_code, sigversion, &mut msgs[k]) {
            isig += 1;
            n_sigs -= 1;
        }
        ikey += 1;
        n_keys -= 1;
        // More signatures left than keys: too many failed already.
        if n_sigs > n_keys {
            success = false;
        }
    }
    if success && all_sigs > 0 && checker.verifier.wants_multisig_claims() {
        // Every signature was matched, so each is non-empty and has its message.
        let sigs: Vec<(&[u8], [u8; 32])> = (0..all_sigs)
            .map(|k| {
                let sig = &stack[stack.len() - first_sig - k];
                (&sig[..sig.len() - 1], msgs[k].flatten().expect("a matched signature has a message"))
            })
            .collect();
        let keys: Vec<MultisigKey<'_>> = (0..all_keys)
            .map(|k| {
                let key = &stack[stack.len() - first_key - k];
                if check_pubkey_encoding(key, flags, sigversion).is_err() {
                    MultisigKey::Refused
                } else if pubkey_size_valid(key) {
                    MultisigKey::Key(key)
                } else {
                    MultisigKey::Unusable
                }
            })
            .collect();
        checker.verifier.multisig_claim(&MultisigClaim { sigs: &sigs, keys: &keys });
    }
    // Clean up the arguments; on failure every signature must be empty (NULLFAIL).
    while i > 1 {
        i -= 1;
        if !success
            && flags.contains(ScriptFlags::NULLFAIL)
            && ikey2 == 0
            && !stack[stack.len() - 1].is_empty()
        {
            return Err(ScriptError::NullFail);
        }
        ikey2 = ikey2.saturating_sub(1);
        stack.pop();
    }
    // The extra consumed element (the CHECKMULTISIG bug), zero under NULLDUMMY.
    let dummy = stack.last().ok_or(ScriptError::InvalidStackOperation)?;
    if flags.contains(ScriptFlags::NULLDUMMY) && !dummy.is_empty() {
        return Err(ScriptError::SigNullDummy);
    }
    stack.pop();
    if opcode == OP_CHECKMULTISIGVERIFY {
        if !success {
            return Err(ScriptError::CheckMultisigVerify);
        }
    } else {
        stack.push(if success { TRUE.to_vec() } else { Vec::new() });
    }
    Ok(())
}

/// Core's `EvalScript`: runs `script` on `stack`.
pub(super) fn eval_script<V: SigVerifier + ?Sized>(
    stack: &mut Stack,
    script: &[u8],
    flags: ScriptFlags,
    checker: &Checker<'_, V>,
    sigversion: SigVersion,
    exec: &mut ExecData,
) -> Res<()> {
    let legacy_limits = matches!(sigversion, SigVersion::Base | SigVersion::WitnessV0);
    if legacy_limits && script.len() > MAX_SCRIPT_SIZE {
        return Err(ScriptError::ScriptSize);
    }
    let minimal = flags.contains(ScriptFlags::MINIMALDATA);
    let mut pc = 0usize;
    let mut codehash_begin = 0usize;
    let mut cond = CondStack { size: 0, first_false: None };
    let mut alt: Stack = Vec::new();
    let mut op_count = 0usize;
    let mut opcode_pos: u32 = 0;
    let end = script.len();

    while pc < end {
        let f_exec = cond.all_true();
        let op = get_op(script, &mut pc).ok_or(ScriptError::BadOpcode)?;
        let opcode = op.opcode;
        if op.data.len() > MAX_SCRIPT_ELEMENT_SIZE {
            return Err(ScriptError::PushSize);
        }
        if legacy_limits && opcode > OP_16 {
            op_count += 1;
            if op_count > MAX_OPS_PER_SCRIPT {
                return Err(ScriptError::OpCount);
            }
        }
        // Disabled opcodes fail even in unexecuted branches (CVE-2010-5137).
        if is_disabled(opcode) {
            return Err(ScriptError::DisabledOpcode);
        }
        if opcode == OP_CODESEPARATOR
            && sigversion == SigVersion::Base
            && flags.contains(ScriptFlags::CONST_SCRIPTCODE)
        {
            return Err(ScriptError::OpCodeSeparator);
        }

        if f_exec && opcode <= OP_PUSHDATA4 {
            if minimal && !check_minimal_push(op.data, opcode) {
                return Err(ScriptError::MinimalData);
            }
            stack.push(op.data.to_vec());
        } else if f_exec || (OP_IF..=OP_ENDIF).contains(&opcode) {
            match opcode {
                OP_1NEGATE | OP_1..=OP_16 => {
                    stack.push(scriptnum_encode(opcode as i64 - (OP_1 as i64 - 1)));
                }
                OP_NOP => {}
                OP_CHECKLOCKTIMEVERIFY if flags.contains(ScriptFlags::CHECKLOCKTIMEVERIFY) => {
                    // 5-byte operands: nLockTime is a u32 and must stay representable.
                    let n = scriptnum_decode(top(stack, 1)?, minimal, 5)?;
                    if n < 0 {
                        return Err(ScriptError::NegativeLocktime);
                    }
                    if !checker.check_locktime(n) {
                        return Err(ScriptError::UnsatisfiedLocktime);
                    }
                }
                OP_CHECKSEQUENCEVERIFY if flags.contains(ScriptFlags::CHECKSEQUENCEVERIFY) => {
                    let n = scriptnum_decode(top(stack, 1)?, minimal, 5)?;
                    if n < 0 {
                        return Err(ScriptError::NegativeLocktime);
                    }
                    // The disable flag makes CSV a NOP (reserved for future soft forks).
                    if n & SEQUENCE_LOCKTIME_DISABLE_FLAG == 0 && !checker.check_sequence(n) {
                        return Err(ScriptError::UnsatisfiedLocktime);
                    }
                }
                // Not enabled: plain NOP2/NOP3 (no discouragement, as Core).
                OP_CHECKLOCKTIMEVERIFY | OP_CHECKSEQUENCEVERIFY => {}
                OP_NOP1 | OP_NOP4..=OP_NOP10 => {
                    if flags.contains(ScriptFlags::DISCOURAGE_UPGRADABLE_NOPS) {
                        return Err(ScriptError::DiscourageUpgradableNops);
                    }
                }
                OP_IF | OP_NOTIF => {
                    let mut value = false;
                    if f_exec {
                        let v = stack.last().ok_or(ScriptError::InvalidStackOperation)?;
                        if sigversion == SigVersion::Tapscript && (v.len() > 1 || (v.len() == 1 && v[0] != 1))
                        {
                            return Err(ScriptError::TapscriptMinimalIf);
                        }
                        if sigversion == SigVersion::WitnessV0
                            && flags.contains(ScriptFlags::MINIMALIF)
                            && (v.len() > 1 || (v.len() == 1 && v[0] != 1))
                        {
                            return Err(ScriptError::MinimalIf);
                        }
                        value = cast_to_bool(v);
                        if opcode == OP_NOTIF {
                            value = !value;
                        }
                        stack.pop();
                    }
                    cond.push(value);
                }
                OP_ELSE => {
                    if cond.size == 0 {
                        return Err(ScriptError::UnbalancedConditional);
                    }
                    cond.toggle_top();
                }
                OP_ENDIF => {
                    if cond.size == 0 {
                        return Err(ScriptError::UnbalancedConditional);
                    }
                    cond.pop();
                }
                OP_VERIFY => {
                    if !cast_to_bool(top(stack, 1)?) {
                        return Err(ScriptError::Verify);
                    }
                    stack.pop();
                }
                OP_RETURN => return Err(ScriptError::OpReturn),
                OP_TOALTSTACK => {
                    let v = stack.pop().ok_or(ScriptError::InvalidStackOperation)?;
                    alt.push(v);
                }
                OP_FROMALTSTACK => {
                    let v = alt.pop().ok_or(ScriptError::InvalidAltstackOperation)?;
                    stack.push(v);
                }
                OP_2DROP => {
                    top(stack, 2)?;
                    stack.truncate(stack.len() - 2);
                }
                OP_2DUP => {
                    let a = top(stack, 2)?.clone();
                    let b = top(stack, 1)?.clone();
                    stack.push(a);
                    stack.push(b);
                }
                OP_3DUP => {
                    let a = top(stack, 3)?.clone();
                    let b = top(stack, 2)?.clone();
                    let c = top(stack, 1)?.clone();
                    stack.extend([a, b, c]);
                }
                OP_2OVER => {
                    let a = top(stack, 4)?.clone();
                    let b = top(stack, 3)?.clone();
                    stack.extend([a, b]);
                }
                // (x1 x2 x3 x4 x5 x6 -- x3 x4 x5 x6 x1 x2)
                OP_2ROT => rotate_top(stack, 6, 2)?,
                // (x1 x2 x3 x4 -- x3 x4 x1 x2)
                OP_2SWAP => rotate_top(stack, 4, 2)?,
                OP_IFDUP => {
                    let v = top(stack, 1)?;
                    if cast_to_bool(v) {
                        let v = v.clone();
                        stack.push(v);
                    }
                }
                OP_DEPTH => {
                    let n = stack.len() as i64;
                    stack.push(scriptnum_encode(n));
                }
                OP_DROP => {
                    stack.pop().ok_or(ScriptError::InvalidStackOperation)?;
                }
                OP_DUP => {
                    let v = top(stack, 1)?.clone();
                    stack.push(v);
                }
                OP_NIP => {
                    top(stack, 2)?;
                    let n = stack.len();
                    stack.remove(n - 2);
                }
                OP_OVER => {
                    let v = top(stack, 2)?.clone();
                    stack.push(v);
                }
                OP_PICK | OP_ROLL => {
                    // (xn ... x1 x0 n -- xn ... x1 x0 xn): the depth check precedes decoding.
                    top(stack, 2)?;
                    let n = getint(scriptnum_decode(top(stack, 1)?, minimal, 4)?);
                    stack.pop();
                    if n < 0 || n as usize >= stack.len() {
                        return Err(ScriptError::InvalidStackOperation);
                    }
                    let idx = stack.len() - 1 - n as usize;
                    let v = if opcode == OP_ROLL { stack.remove(idx) } else { stack[idx].clone() };
                    stack.push(v);
                }
                // (x1 x2 x3 -- x2 x3 x1)
                OP_ROT => rotate_top(stack, 3, 1)?,
                // (x1 x2 -- x2 x1)
                OP_SWAP => rotate_top(stack, 2, 1)?,
                OP_TUCK => {
                    top(stack, 2)?;
                    let v = stack[stack.len() - 1].clone();
                    let n = stack.len();
                    stack.insert(n - 2, v);
                }
                OP_SIZE => {
                    let n = top(stack, 1)?.len() as i64;
                    stack.push(scriptnum_encode(n));
                }
                OP_EQUAL | OP_EQUALVERIFY => {
                    top(stack, 2)?;
                    let b = stack.pop().expect("checked");
                    let a = stack.pop().expect("checked");
                    let eq = a == b;
                    stack.push(if eq { TRUE.to_vec() } else { Vec::new() });
                    if opcode == OP_EQUALVERIFY {
                        if !eq {
                            return Err(ScriptError::EqualVerify);
                        }
                        stack.pop();
                    }
                }
                OP_1ADD | OP_1SUB | OP_NEGATE | OP_ABS | OP_NOT | OP_0NOTEQUAL => {
                    let a = scriptnum_decode(top(stack, 1)?, minimal, 4)?;
                    let r = match opcode {
                        OP_1ADD => a + 1,
                        OP_1SUB => a - 1,
                        OP_NEGATE => -a,
                        OP_ABS => a.abs(),
                        OP_NOT => (a == 0) as i64,
                        _ => (a != 0) as i64,
                    };
                    stack.pop();
                    stack.push(scriptnum_encode(r));
                }
                OP_ADD
                | OP_SUB
                | OP_BOOLAND
                | OP_BOOLOR
                | OP_NUMEQUAL
                | OP_NUMEQUALVERIFY
                | OP_NUMNOTEQUAL
                | OP_LESSTHAN
                | OP_GREATERTHAN
                | OP_LESSTHANOREQUAL
                | OP_GREATERTHANOREQUAL
                | OP_MIN
                | OP_MAX => {
                    let a = scriptnum_decode(top(stack, 2)?, minimal, 4)?;
                    let b = scriptnum_decode(top(stack, 1)?, minimal, 4)?;
                    let r = match opcode {
                        OP_ADD => a + b,
                        OP_SUB => a - b,
                        OP_BOOLAND => (a != 0 && b != 0) as i64,
                        OP_BOOLOR => (a != 0 || b != 0) as i64,
                        OP_NUMEQUAL | OP_NUMEQUALVERIFY => (a == b) as i64,
                        OP_NUMNOTEQUAL => (a != b) as i64,
                        OP_LESSTHAN => (a < b) as i64,
                        OP_GREATERTHAN => (a > b) as i64,
                        OP_LESSTHANOREQUAL => (a <= b) as i64,
                        OP_GREATERTHANOREQUAL => (a >= b) as i64,
                        OP_MIN => a.min(b),
                        _ => a.max(b),
                    };
                    stack.truncate(stack.len() - 2);
                    stack.push(scriptnum_encode(r));
                    if opcode == OP_NUMEQUALVERIFY {
                        if !cast_to_bool(top(stack, 1)?) {
                            return Err(ScriptError::NumEqualVerify);
                        }
                        stack.pop();
                    }
                }
                OP_WITHIN => {
                    let x = scriptnum_decode(top(stack, 3)?, minimal, 4)?;
                    let lo = scriptnum_decode(top(stack, 2)?, minimal, 4)?;
                    let hi = scriptnum_decode(top(stack, 1)?, minimal, 4)?;
                    stack.truncate(stack.len() - 3);
                    stack.push(if lo <= x && x < hi { TRUE.to_vec() } else { Vec::new() });
                }
                OP_RIPEMD160 | OP_SHA1 | OP_SHA256 | OP_HASH160 | OP_HASH256 => {
                    let v = top(stack, 1)?;
                    let h: Vec<u8> = match opcode {
                        OP_RIPEMD160 => ripemd160(v).to_vec(),
                        OP_SHA1 => sha1(v).to_vec(),
                        OP_SHA256 => sha256(v).to_vec(),
                        OP_HASH160 => hash160(v).to_vec(),
                        _ => sha256d(v).to_vec(),
                    };
                    stack.pop();
                    stack.push(h);
                }
                OP_CODESEPARATOR => {
                    // Hash starts after the code separator.
                    codehash_begin = pc;
                    exec.codesep_pos = opcode_pos;
                }
                OP_CHECKSIG | OP_CHECKSIGVERIFY | OP_CHECKSIGADD => {
                    // (sig pubkey -- bool), or in tapscript only (sig num pubkey -- num).
                    let add = opcode == OP_CHECKSIGADD;
                    if add && legacy_limits {
                        return Err(ScriptError::BadOpcode);
                    }
                    let args = if add { 3 } else { 2 };
                    top(stack, args)?;
                    let n = stack.len();
                    let num = if add { Some(scriptnum_decode(&stack[n - 2], minimal, 4)?) } else { None };
                    let ok = eval_checksig(
                        &stack[n - args],
                        &stack[n - 1],
                        script,
                        codehash_begin,
                        exec,
                        flags,
                        checker,
                        sigversion,
                    )?;
                    stack.truncate(n - args);
                    match num {
                        Some(num) => stack.push(scriptnum_encode(num + ok as i64)),
                        None if opcode == OP_CHECKSIGVERIFY && !ok => {
                            return Err(ScriptError::CheckSigVerify)
                        }
                        None if opcode == OP_CHECKSIGVERIFY => {}
                        None => stack.push(if ok { TRUE.to_vec() } else { Vec::new() }),
                    }
                }
                OP_CHECKMULTISIG | OP_CHECKMULTISIGVERIFY => {
                    eval_checkmultisig(
                        stack,
                        opcode,
                        script,
                        codehash_begin,
                        &mut op_count,
                        flags,
                        checker,
                        sigversion,
                    )?;
                }
                _ => return Err(ScriptError::BadOpcode),
            }
        }

        if stack.len() + alt.len() > MAX_STACK_SIZE {
            return Err(ScriptError::StackSize);
        }
        opcode_pos = opcode_pos.wrapping_add(1);
    }
    if cond.size != 0 {
        return Err(ScriptError::UnbalancedConditional);
    }
    Ok(())
}
