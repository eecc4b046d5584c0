// SPDX-License-Identifier: MIT OR Apache-2.0
//! `EvalScript` and `VerifyScript` with Core's semantics (script/interpreter.cpp).
//!
//! Stack elements are byte strings; numbers are CScriptNum: little-endian sign-magnitude,
//! at most 4 bytes as operands (5 for CLTV/CSV), results up to 5 bytes. Truth: any non-zero
//! byte except a trailing sign-only `0x80` ("negative zero" is false).
//!
//! Limits: script ≤ 10,000 bytes and ≤ 201 non-push ops (legacy and segwit v0 only), element
//! ≤ 520 bytes, stack + altstack ≤ 1,000 items. Tapscript (BIP342) drops the size and op-count
//! limits and bounds signature checks by a validation-weight budget:
//! `50 + serialized witness size`, minus 50 per non-empty signature checked.

use super::flags::*;
use super::opcodes::*;
use crate::encode::{compact_size_len, TxOut};
use crate::hash::{hash160, ripemd160, sha1, sha256, sha256d, tags};
use crate::sighash::TxContext;

/// Signature checking at the elliptic-curve boundary (Core's `BaseSignatureChecker` below the
/// sighash). Implementations must be thread-safe; the interpreter calls them from any thread.
pub trait SigVerifier: Sync {
    /// ECDSA with Core's `CPubKey::Verify` semantics: parse `pubkey` (33 or 65 bytes, hybrid
    /// allowed as libsecp256k1 does), parse `sig` (DER without the hash-type byte) with the lax
    /// parser, normalise S to low-S, verify against `msg32`.
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool;
    /// BIP340 verification of a 64-byte signature on a 32-byte message.
    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool;
    /// BIP341 commitment check: `output == internal + tweak·G` with `output`'s y parity equal to
    /// `parity` (libsecp256k1's `xonly_pubkey_tweak_add_check`); false if `internal` is not a
    /// valid x-only key or the tweak overflows.
    fn tweak_add_check(&self, internal: &[u8; 32], tweak: &[u8; 32], output: &[u8; 32], parity: bool)
        -> bool;
}

macro_rules! script_errors {
    ($($v:ident => $n:literal,)*) => {
        /// Why a script failed: Core's `ScriptError`. [`ScriptError::name`] gives the string
        /// the JSON vectors use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        pub enum ScriptError { $($v,)* }
        impl ScriptError {
            /// Core's test-vector name (`"EVAL_FALSE"`, `"SIG_DER"`, ...).
            pub fn name(self) -> &'static str { match self { $(ScriptError::$v => $n,)* } }
            /// Every error, for tables and bindings.
            pub const ALL: &'static [ScriptError] = &[$(ScriptError::$v,)*];
        }
    };
}

script_errors! {
    UnknownError => "UNKNOWN_ERROR",
    EvalFalse => "EVAL_FALSE",
    OpReturn => "OP_RETURN",
    ScriptSize => "SCRIPT_SIZE",
    PushSize => "PUSH_SIZE",
    OpCount => "OP_COUNT",
    StackSize => "STACK_SIZE",
    SigCount => "SIG_COUNT",
    PubkeyCount => "PUBKEY_COUNT",
    Verify => "VERIFY",
    EqualVerify => "EQUALVERIFY",
    CheckMultisigVerify => "CHECKMULTISIGVERIFY",
    CheckSigVerify => "CHECKSIGVERIFY",
    NumEqualVerify => "NUMEQUALVERIFY",
    BadOpcode => "BAD_OPCODE",
    DisabledOpcode => "DISABLED_OPCODE",
    InvalidStackOperation => "INVALID_STACK_OPERATION",
    InvalidAltstackOperation => "INVALID_ALTSTACK_OPERATION",
    UnbalancedConditional => "UNBALANCED_CONDITIONAL",
    NegativeLocktime => "NEGATIVE_LOCKTIME",
    UnsatisfiedLocktime => "UNSATISFIED_LOCKTIME",
    SigHashtype => "SIG_HASHTYPE",
    SigDer => "SIG_DER",
    MinimalData => "MINIMALDATA",
    SigPushOnly => "SIG_PUSHONLY",
    SigHighS => "SIG_HIGH_S",
    SigNullDummy => "SIG_NULLDUMMY",
    PubkeyType => "PUBKEYTYPE",
    CleanStack => "CLEANSTACK",
    MinimalIf => "MINIMALIF",
    NullFail => "NULLFAIL",
    DiscourageUpgradableNops => "DISCOURAGE_UPGRADABLE_NOPS",
    DiscourageUpgradableWitnessProgram => "DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM",
    DiscourageUpgradableTaprootVersion => "DISCOURAGE_UPGRADABLE_TAPROOT_VERSION",
    DiscourageOpSuccess => "DISCOURAGE_OP_SUCCESS",
    DiscourageUpgradablePubkeyType => "DISCOURAGE_UPGRADABLE_PUBKEYTYPE",
    WitnessProgramWrongLength => "WITNESS_PROGRAM_WRONG_LENGTH",
    WitnessProgramWitnessEmpty => "WITNESS_PROGRAM_WITNESS_EMPTY",
    WitnessProgramMismatch => "WITNESS_PROGRAM_MISMATCH",
    WitnessMalleated => "WITNESS_MALLEATED",
    WitnessMalleatedP2sh => "WITNESS_MALLEATED_P2SH",
    WitnessUnexpected => "WITNESS_UNEXPECTED",
    WitnessPubkeyType => "WITNESS_PUBKEYTYPE",
    SchnorrSigSize => "SCHNORR_SIG_SIZE",
    SchnorrSigHashtype => "SCHNORR_SIG_HASHTYPE",
    SchnorrSig => "SCHNORR_SIG",
    TaprootWrongControlSize => "TAPROOT_WRONG_CONTROL_SIZE",
    TapscriptValidationWeight => "TAPSCRIPT_VALIDATION_WEIGHT",
    TapscriptCheckMultisig => "TAPSCRIPT_CHECKMULTISIG",
    TapscriptMinimalIf => "TAPSCRIPT_MINIMALIF",
    TapscriptEmptyPubkey => "TAPSCRIPT_EMPTY_PUBKEY",
    OpCodeSeparator => "OP_CODESEPARATOR",
    SigFindAndDelete => "SIG_FINDANDDELETE",
    ScriptNum => "SCRIPTNUM",
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::error::Error for ScriptError {}

type Res<T> = Result<T, ScriptError>;

/// Core's limits.
pub const MAX_SCRIPT_SIZE: usize = 10_000;
pub const MAX_SCRIPT_ELEMENT_SIZE: usize = 520;
pub const MAX_OPS_PER_SCRIPT: usize = 201;
pub const MAX_PUBKEYS_PER_MULTISIG: i64 = 20;
pub const MAX_STACK_SIZE: usize = 1000;
/// BIP342 validation weight per executed signature check and its starting offset.
pub const VALIDATION_WEIGHT_PER_SIGOP_PASSED: i64 = 50;
pub const VALIDATION_WEIGHT_OFFSET: i64 = 50;
/// BIP341 control block sizes and the tapscript leaf version.
pub const TAPROOT_CONTROL_BASE_SIZE: usize = 33;
pub const TAPROOT_CONTROL_NODE_SIZE: usize = 32;
pub const TAPROOT_CONTROL_MAX_NODE_COUNT: usize = 128;
pub const TAPROOT_CONTROL_MAX_SIZE: usize =
    TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * TAPROOT_CONTROL_MAX_NODE_COUNT;
pub const TAPROOT_LEAF_MASK: u8 = 0xfe;
pub const TAPROOT_LEAF_TAPSCRIPT: u8 = 0xc0;
pub const ANNEX_TAG: u8 = 0x50;
const LOCKTIME_THRESHOLD: i64 = 500_000_000;
const SEQUENCE_FINAL: u32 = 0xffff_ffff;
const SEQUENCE_LOCKTIME_DISABLE_FLAG: i64 = 1 << 31;
const SEQUENCE_LOCKTIME_TYPE_FLAG: i64 = 1 << 22;
const SEQUENCE_LOCKTIME_MASK: i64 = 0x0000_ffff;

/// Which rules a script runs under (Core's `SigVersion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigVersion {
    Base,
    WitnessV0,
    Taproot,
    Tapscript,
}

// ---------------------------------------------------------------------------------------------
// CScriptNum
// ---------------------------------------------------------------------------------------------

/// Decodes a CScriptNum of at most `max_len` bytes; `minimal` rejects non-minimal encodings.
pub fn scriptnum_decode(v: &[u8], minimal: bool, max_len: usize) -> Res<i64> {
    if v.len() > max_len {
        return Err(ScriptError::ScriptNum);
    }
    if minimal && !v.is_empty() {
        // The most significant byte may be 0x00/0x80 only when the next byte's high bit needs it.
        let last = v[v.len() - 1];
        if last & 0x7f == 0 && (v.len() <= 1 || v[v.len() - 2] & 0x80 == 0) {
            return Err(ScriptError::ScriptNum);
        }
    }
    if v.is_empty() {
        return Ok(0);
    }
    let mut r: i64 = 0;
    for (i, b) in v.iter().enumerate() {
        r |= (*b as i64) << (8 * i);
    }
    let last = v[v.len() - 1];
    if last & 0x80 != 0 {
        Ok(-(r & !(0x80i64 << (8 * (v.len() - 1)))))
    } else {
        Ok(r)
    }
}

/// Encodes a CScriptNum (minimal, sign-magnitude little-endian).
pub fn scriptnum_encode(n: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(9);
    if n == 0 {
        return out;
    }
    let neg = n < 0;
    let mut a = n.unsigned_abs();
    while a > 0 {
        out.push((a & 0xff) as u8);
        a >>= 8;
    }
    let last = out.len() - 1;
    if out[last] & 0x80 != 0 {
        out.push(if neg { 0x80 } else { 0 });
    } else if neg {
        out[last] |= 0x80;
    }
    out
}

/// `CastToBool`.
pub fn cast_to_bool(v: &[u8]) -> bool {
    for (i, b) in v.iter().enumerate() {
        if *b != 0 {
            // Negative zero is false.
            return !(i == v.len() - 1 && *b == 0x80);
        }
    }
    false
}

/// `CScriptNum::getint`: clamp to the i32 range.
fn getint(n: i64) -> i64 {
    n.clamp(i32::MIN as i64, i32::MAX as i64)
}

// ---------------------------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------------------------

/// BIP66 strict DER check on a signature including its hash-type byte
/// (`IsValidSignatureEncoding`).
pub fn is_valid_signature_encoding(sig: &[u8]) -> bool {
    // Format: 0x30 [total-length] 0x02 [R-length] [R] 0x02 [S-length] [S] [sighash]
    let n = sig.len();
    if !(9..=73).contains(&n) {
        return false;
    }
    if sig[0] != 0x30 || sig[1] as usize != n - 3 {
        return false;
    }
    let len_r = sig[3] as usize;
    if 5 + len_r >= n {
        return false;
    }
    let len_s = sig[5 + len_r] as usize;
    if len_r + len_s + 7 != n {
        return false;
    }
    if sig[2] != 0x02 || len_r == 0 || sig[4] & 0x80 != 0 {
        return false;
    }
    if len_r > 1 && sig[4] == 0 && sig[5] & 0x80 == 0 {
        return false;
    }
    if sig[len_r + 4] != 0x02 || len_s == 0 || sig[len_r + 6] & 0x80 != 0 {
        return false;
    }
    if len_s > 1 && sig[len_r + 6] == 0 && sig[len_r + 7] & 0x80 == 0 {
        return false;
    }
    true
}

/// Half the secp256k1 group order, big-endian.
const HALF_ORDER: [u8; 32] = [
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5d,
    0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
];

/// Whether the S of a strictly DER-encoded signature (with hash-type byte) is ≤ n/2.
fn is_low_s(sig: &[u8]) -> bool {
    let len_r = sig[3] as usize;
    let len_s = sig[5 + len_r] as usize;
    let mut s = &sig[6 + len_r..6 + len_r + len_s];
    while let [0, rest @ ..] = s {
        s = rest;
    }
    if s.len() > 32 {
        return false;
    }
    let mut b = [0u8; 32];
    b[32 - s.len()..].copy_from_slice(s);
    b <= HALF_ORDER
}

fn check_signature_encoding(sig: &[u8], flags: u32) -> Res<()> {
    // An empty signature is allowed: the compact way to provide an invalid signature.
    if sig.is_empty() {
        return Ok(());
    }
    if flags & (DERSIG | LOW_S | STRICTENC) != 0 && !is_valid_signature_encoding(sig) {
        return Err(ScriptError::SigDer);
    }
    if flags & LOW_S != 0 && !is_low_s(sig) {
        return Err(ScriptError::SigHighS);
    }
    if flags & STRICTENC != 0 {
        let ht = sig[sig.len() - 1] & !0x80;
        if !(1..=3).contains(&ht) {
            return Err(ScriptError::SigHashtype);
        }
    }
    Ok(())
}

fn is_compressed_or_uncompressed(pk: &[u8]) -> bool {
    match pk.first() {
        Some(0x04) => pk.len() == 65,
        Some(0x02 | 0x03) => pk.len() == 33,
        _ => false,
    }
}

fn check_pubkey_encoding(pk: &[u8], flags: u32, sigversion: SigVersion) -> Res<()> {
    if flags & STRICTENC != 0 && !is_compressed_or_uncompressed(pk) {
        return Err(ScriptError::PubkeyType);
    }
    // Only compressed keys are accepted in segwit v0 under WITNESS_PUBKEYTYPE.
    if flags & WITNESS_PUBKEYTYPE != 0
        && sigversion == SigVersion::WitnessV0
        && !(pk.len() == 33 && (pk[0] == 2 || pk[0] == 3))
    {
        return Err(ScriptError::WitnessPubkeyType);
    }
    Ok(())
}

/// `CPubKey::IsValid`: the size the header byte announces.
fn pubkey_size_valid(pk: &[u8]) -> bool {
    match pk.first() {
        Some(0x02 | 0x03) => pk.len() == 33,
        Some(0x04 | 0x06 | 0x07) => pk.len() == 65,
        _ => false,
    }
}

fn check_minimal_push(data: &[u8], opcode: u8) -> bool {
    if data.is_empty() {
        return opcode == OP_0;
    }
    if data.len() == 1 && (1..=16).contains(&data[0]) {
        return false;
    }
    if data.len() == 1 && data[0] == 0x81 {
        return false;
    }
    if data.len() <= 75 {
        return opcode as usize == data.len();
    }
    if data.len() <= 255 {
        return opcode == OP_PUSHDATA1;
    }
    if data.len() <= 65535 {
        return opcode == OP_PUSHDATA2;
    }
    true
}

/// `CScript() << data`: the push of `data` Core's serializer would produce.
pub fn push_data_script(data: &[u8]) -> Vec<u8> {
    let mut s = Vec::with_capacity(data.len() + 5);
    let n = data.len();
    if n < OP_PUSHDATA1 as usize {
        s.push(n as u8);
    } else if n <= 0xff {
        s.push(OP_PUSHDATA1);
        s.push(n as u8);
    } else if n <= 0xffff {
        s.push(OP_PUSHDATA2);
        s.extend_from_slice(&(n as u16).to_le_bytes());
    } else {
        s.push(OP_PUSHDATA4);
        s.extend_from_slice(&(n as u32).to_le_bytes());
    }
    s.extend_from_slice(data);
    s
}

/// `FindAndDelete`: removes every op-aligned occurrence of `pattern` from `script`; returns the
/// number removed.
pub fn find_and_delete(script: &mut Vec<u8>, pattern: &[u8]) -> usize {
    if pattern.is_empty() {
        return 0;
    }
    let mut found = 0;
    let mut result = Vec::with_capacity(script.len());
    let mut pc = 0;
    let mut pc2 = 0;
    let end = script.len();
    loop {
        result.extend_from_slice(&script[pc2..pc]);
        while end - pc >= pattern.len() && script[pc..pc + pattern.len()] == *pattern {
            pc += pattern.len();
            found += 1;
        }
        pc2 = pc;
        if get_op(script, &mut pc).is_none() {
            break;
        }
    }
    if found > 0 {
        result.extend_from_slice(&script[pc2..end]);
        *script = result;
    }
    found
}

/// Whether an opcode is one of BIP342's OP_SUCCESSx.
pub fn is_op_success(op: u8) -> bool {
    op == 80
        || op == 98
        || (126..=129).contains(&op)
        || (131..=134).contains(&op)
        || (137..=138).contains(&op)
        || (141..=142).contains(&op)
        || (149..=153).contains(&op)
        || (187..=254).contains(&op)
}

// ---------------------------------------------------------------------------------------------
// Execution context
// ---------------------------------------------------------------------------------------------

/// Per-execution taproot data (Core's `ScriptExecutionData`).
#[derive(Clone, Debug, Default)]
struct ExecData {
    tapleaf_hash: Option<[u8; 32]>,
    codesep_pos: u32,
    annex: Option<Vec<u8>>,
    validation_weight_left: i64,
}

/// The signature checker for one input: transaction context, index, amount, verifier.
struct Checker<'a, V: SigVerifier + ?Sized> {
    ctx: &'a TxContext<'a>,
    n_in: usize,
    amount: i64,
    verifier: &'a V,
}

impl<V: SigVerifier + ?Sized> Checker<'_, V> {
    fn check_ecdsa(&self, sig: &[u8], pubkey: &[u8], script_code: &[u8], sigversion: SigVersion) -> bool {
        if !pubkey_size_valid(pubkey) || sig.is_empty() {
            return false;
        }
        let hash_type = sig[sig.len() - 1] as u32;
        let der = &sig[..sig.len() - 1];
        let msg = match sigversion {
            SigVersion::WitnessV0 => {
                match self.ctx.bip143_sighash(self.n_in, script_code, self.amount, hash_type) {
                    Ok(h) => h,
                    Err(_) => return false,
                }
            }
            _ => self.ctx.legacy_sighash(self.n_in, script_code, hash_type),
        };
        self.verifier.verify_ecdsa(pubkey, der, &msg)
    }

    fn check_schnorr(
        &self,
        sig: &[u8],
        pubkey: &[u8; 32],
        sigversion: SigVersion,
        exec: &ExecData,
    ) -> Res<()> {
        let (sig64, hash_type) = match sig.len() {
            64 => (sig, 0u8),
            65 => {
                // An explicit SIGHASH_DEFAULT byte is invalid.
                if sig[64] == 0 {
                    return Err(ScriptError::SchnorrSigHashtype);
                }
                (&sig[..64], sig[64])
            }
            _ => return Err(ScriptError::SchnorrSigSize),
        };
        let tapscript = match sigversion {
            SigVersion::Tapscript => Some((exec.tapleaf_hash.unwrap_or([0; 32]), exec.codesep_pos)),
            _ => None,
        };
        let msg = self
            .ctx
            .bip341_sighash(self.n_in, hash_type, exec.annex.as_deref(), tapscript)
            .map_err(|_| ScriptError::SchnorrSigHashtype)?;
        let sig64: &[u8; 64] = sig64.try_into().expect("64 bytes");
        if self.verifier.verify_schnorr(pubkey, sig64, &msg) {
            Ok(())
        } else {
            Err(ScriptError::SchnorrSig)
        }
    }

    fn check_locktime(&self, lock: i64) -> bool {
        let tx = self.ctx.tx;
        let tx_lock = tx.lock_time as i64;
        // Same kind (height or time) on both sides of LOCKTIME_THRESHOLD.
        if !((tx_lock < LOCKTIME_THRESHOLD && lock < LOCKTIME_THRESHOLD)
            || (tx_lock >= LOCKTIME_THRESHOLD && lock >= LOCKTIME_THRESHOLD))
        {
            return false;
        }
        if lock > tx_lock {
            return false;
        }
        // A final input would make nLockTime ineffective.
        tx.inputs[self.n_in].sequence != SEQUENCE_FINAL
    }

    fn check_sequence(&self, seq: i64) -> bool {
        let tx = self.ctx.tx;
        let tx_seq = tx.inputs[self.n_in].sequence as i64;
        // BIP68 applies to version >= 2 only (compared unsigned).
        if (tx.version as u32) < 2 {
            return false;
        }
        if tx_seq & SEQUENCE_LOCKTIME_DISABLE_FLAG != 0 {
            return false;
        }
        let mask = SEQUENCE_LOCKTIME_TYPE_FLAG | SEQUENCE_LOCKTIME_MASK;
        let tx_masked = tx_seq & mask;
        let masked = seq & mask;
        if !((tx_masked < SEQUENCE_LOCKTIME_TYPE_FLAG && masked < SEQUENCE_LOCKTIME_TYPE_FLAG)
            || (tx_masked >= SEQUENCE_LOCKTIME_TYPE_FLAG && masked >= SEQUENCE_LOCKTIME_TYPE_FLAG))
        {
            return false;
        }
        masked <= tx_masked
    }
}

// ---------------------------------------------------------------------------------------------
// EvalScript
// ---------------------------------------------------------------------------------------------

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

type Stack = Vec<Vec<u8>>;

#[inline]
fn top(stack: &Stack, i: usize) -> Res<&Vec<u8>> {
    if stack.len() < i {
        return Err(ScriptError::InvalidStackOperation);
    }
    Ok(&stack[stack.len() - i])
}

const TRUE: &[u8] = &[1];

fn eval_checksig<V: SigVerifier + ?Sized>(
    sig: &[u8],
    pubkey: &[u8],
    script: &[u8],
    codehash_begin: usize,
    exec: &mut ExecData,
    flags: u32,
    checker: &Checker<'_, V>,
    sigversion: SigVersion,
) -> Res<bool> {
    match sigversion {
        SigVersion::Base | SigVersion::WitnessV0 => {
            let mut script_code = script[codehash_begin..].to_vec();
            // Drop the signature in pre-segwit scripts but not segwit scripts.
            if sigversion == SigVersion::Base {
                let found = find_and_delete(&mut script_code, &push_data_script(sig));
                if found > 0 && flags & CONST_SCRIPTCODE != 0 {
                    return Err(ScriptError::SigFindAndDelete);
                }
            }
            check_signature_encoding(sig, flags)?;
            check_pubkey_encoding(pubkey, flags, sigversion)?;
            let ok = checker.check_ecdsa(sig, pubkey, &script_code, sigversion);
            if !ok && flags & NULLFAIL != 0 && !sig.is_empty() {
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
            } else if flags & DISCOURAGE_UPGRADABLE_PUBKEYTYPE != 0 {
                return Err(ScriptError::DiscourageUpgradablePubkeyType);
            }
            Ok(success)
        }
        SigVersion::Taproot => unreachable!("key path spends do not execute scripts"),
    }
}

/// Core's `EvalScript`: runs `script` on `stack`.
fn eval_script<V: SigVerifier + ?Sized>(
    stack: &mut Stack,
    script: &[u8],
    flags: u32,
    checker: &Checker<'_, V>,
    sigversion: SigVersion,
    exec: &mut ExecData,
) -> Res<()> {
    let legacy_limits = matches!(sigversion, SigVersion::Base | SigVersion::WitnessV0);
    if legacy_limits && script.len() > MAX_SCRIPT_SIZE {
        return Err(ScriptError::ScriptSize);
    }
    let minimal = flags & MINIMALDATA != 0;
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
        if matches!(
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
        ) {
            return Err(ScriptError::DisabledOpcode);
        }
        if opcode == OP_CODESEPARATOR && sigversion == SigVersion::Base && flags & CONST_SCRIPTCODE != 0 {
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
                OP_CHECKLOCKTIMEVERIFY if flags & CHECKLOCKTIMEVERIFY != 0 => {
                    // 5-byte operands: nLockTime is a u32 and must stay representable.
                    let n = scriptnum_decode(top(stack, 1)?, minimal, 5)?;
                    if n < 0 {
                        return Err(ScriptError::NegativeLocktime);
                    }
                    if !checker.check_locktime(n) {
                        return Err(ScriptError::UnsatisfiedLocktime);
                    }
                }
                OP_CHECKSEQUENCEVERIFY if flags & CHECKSEQUENCEVERIFY != 0 => {
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
                    if flags & DISCOURAGE_UPGRADABLE_NOPS != 0 {
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
                            && flags & MINIMALIF != 0
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
                OP_2ROT => {
                    top(stack, 6)?;
                    let n = stack.len();
                    let a = stack.remove(n - 6);
                    let b = stack.remove(n - 6);
                    stack.extend([a, b]);
                }
                OP_2SWAP => {
                    top(stack, 4)?;
                    let n = stack.len();
                    stack.swap(n - 4, n - 2);
                    stack.swap(n - 3, n - 1);
                }
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
                    let n = getint(scriptnum_decode(top(stack, 1)?, minimal, 4)?);
                    stack.pop();
                    if n < 0 || n as usize >= stack.len() {
                        return Err(ScriptError::InvalidStackOperation);
                    }
                    let idx = stack.len() - 1 - n as usize;
                    let v = if opcode == OP_ROLL { stack.remove(idx) } else { stack[idx].clone() };
                    stack.push(v);
                }
                OP_ROT => {
                    top(stack, 3)?;
                    let n = stack.len();
                    stack.swap(n - 3, n - 2);
                    stack.swap(n - 2, n - 1);
                }
                OP_SWAP => {
                    top(stack, 2)?;
                    let n = stack.len();
                    stack.swap(n - 2, n - 1);
                }
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
                OP_CHECKSIG | OP_CHECKSIGVERIFY => {
                    top(stack, 2)?;
                    let n = stack.len();
                    let ok = eval_checksig(
                        &stack[n - 2],
                        &stack[n - 1],
                        script,
                        codehash_begin,
                        exec,
                        flags,
                        checker,
                        sigversion,
                    )?;
                    stack.truncate(n - 2);
                    if opcode == OP_CHECKSIGVERIFY {
                        if !ok {
                            return Err(ScriptError::CheckSigVerify);
                        }
                    } else {
                        stack.push(if ok { TRUE.to_vec() } else { Vec::new() });
                    }
                }
                OP_CHECKSIGADD => {
                    // Only in tapscript.
                    if legacy_limits {
                        return Err(ScriptError::BadOpcode);
                    }
                    // (sig num pubkey -- num)
                    top(stack, 3)?;
                    let n = stack.len();
                    let num = scriptnum_decode(&stack[n - 2], minimal, 4)?;
                    let ok = eval_checksig(
                        &stack[n - 3],
                        &stack[n - 1],
                        script,
                        codehash_begin,
                        exec,
                        flags,
                        checker,
                        sigversion,
                    )?;
                    stack.truncate(n - 3);
                    stack.push(scriptnum_encode(num + ok as i64));
                }
                OP_CHECKMULTISIG | OP_CHECKMULTISIGVERIFY => {
                    if sigversion == SigVersion::Tapscript {
                        return Err(ScriptError::TapscriptCheckMultisig);
                    }
                    // ([sig ...] num_of_signatures [pubkey ...] num_of_pubkeys -- bool)
                    let mut i = 1usize;
                    let mut n_keys = getint(scriptnum_decode(top(stack, i)?, minimal, 4)?);
                    if !(0..=MAX_PUBKEYS_PER_MULTISIG).contains(&n_keys) {
                        return Err(ScriptError::PubkeyCount);
                    }
                    op_count += n_keys as usize;
                    if op_count > MAX_OPS_PER_SCRIPT {
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
                            if found > 0 && flags & CONST_SCRIPTCODE != 0 {
                                return Err(ScriptError::SigFindAndDelete);
                            }
                        }
                    }
                    let mut success = true;
                    while success && n_sigs > 0 {
                        let sig = &stack[stack.len() - isig];
                        let key = &stack[stack.len() - ikey];
                        // Encoding checks in evaluation order (observable under STRICTENC).
                        check_signature_encoding(sig, flags)?;
                        check_pubkey_encoding(key, flags, sigversion)?;
                        if checker.check_ecdsa(sig, key, &script_code, sigversion) {
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
                    // Clean up the arguments; on failure every signature must be empty (NULLFAIL).
                    while i > 1 {
                        i -= 1;
                        if !success
                            && flags & NULLFAIL != 0
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
                    if flags & NULLDUMMY != 0 && !dummy.is_empty() {
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

// ---------------------------------------------------------------------------------------------
// Witness programs and VerifyScript
// ---------------------------------------------------------------------------------------------

fn execute_witness_script<V: SigVerifier + ?Sized>(
    stack_in: &[Vec<u8>],
    script: &[u8],
    flags: u32,
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
                if flags & DISCOURAGE_OP_SUCCESS != 0 {
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

/// BIP341 tapleaf hash: `hash_TapLeaf(leaf_version || compact_size(len) || script)`.
pub fn tapleaf_hash(leaf_version: u8, script: &[u8]) -> [u8; 32] {
    let mut e = tags::tap_leaf().engine();
    e.update(&[leaf_version]);
    crate::encode::write_var_bytes(&mut e, script);
    e.finalize()
}

/// `hash_TapBranch(min(a,b) || max(a,b))`.
pub fn tapbranch_hash(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut e = tags::tap_branch().engine();
    e.update(lo);
    e.update(hi);
    e.finalize()
}

/// The merkle root a control block proves for a leaf (BIP341 `ComputeTaprootMerkleRoot`).
pub fn taproot_merkle_root(control: &[u8], leaf_hash: [u8; 32]) -> [u8; 32] {
    let mut k = leaf_hash;
    for node in control[TAPROOT_CONTROL_BASE_SIZE..].chunks_exact(TAPROOT_CONTROL_NODE_SIZE) {
        let node: &[u8; 32] = node.try_into().expect("32 bytes");
        k = tapbranch_hash(&k, node);
    }
    k
}

/// `hash_TapTweak(internal || merkle_root)` (merkle root omitted for key-only outputs).
pub fn taptweak_hash(internal: &[u8; 32], merkle_root: Option<&[u8; 32]>) -> [u8; 32] {
    let mut e = tags::tap_tweak().engine();
    e.update(internal);
    if let Some(r) = merkle_root {
        e.update(r);
    }
    e.finalize()
}

/// Serialized size of a witness stack (CompactSize count + each item with its length).
fn witness_serialized_size(w: &[Vec<u8>]) -> usize {
    compact_size_len(w.len() as u64)
        + w.iter().map(|i| compact_size_len(i.len() as u64) + i.len()).sum::<usize>()
}

fn verify_witness_program<V: SigVerifier + ?Sized>(
    witness: &[Vec<u8>],
    version: u8,
    program: &[u8],
    flags: u32,
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
        if flags & TAPROOT == 0 {
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
            || (control.len() - TAPROOT_CONTROL_BASE_SIZE) % TAPROOT_CONTROL_NODE_SIZE != 0
        {
            return Err(ScriptError::TaprootWrongControlSize);
        }
        let leaf_version = control[0] & TAPROOT_LEAF_MASK;
        let leaf = tapleaf_hash(leaf_version, script);
        let root = taproot_merkle_root(control, leaf);
        let internal: &[u8; 32] = control[1..33].try_into().expect("32 bytes");
        let tweak = taptweak_hash(internal, Some(&root));
        if !checker.verifier.tweak_add_check(internal, &tweak, output, control[0] & 1 == 1) {
            return Err(ScriptError::WitnessProgramMismatch);
        }
        exec.tapleaf_hash = Some(leaf);
        if leaf_version == TAPROOT_LEAF_TAPSCRIPT {
            // BIP342: budget = 50 + serialized size of the whole witness (annex included).
            exec.validation_weight_left = witness_serialized_size(witness) as i64 + VALIDATION_WEIGHT_OFFSET;
            exec.codesep_pos = u32::MAX;
            return execute_witness_script(stack, script, flags, SigVersion::Tapscript, checker, &mut exec);
        }
        if flags & DISCOURAGE_UPGRADABLE_TAPROOT_VERSION != 0 {
            return Err(ScriptError::DiscourageUpgradableTaprootVersion);
        }
        return Ok(());
    }
    // Pay-to-anchor (v1, program 0x4e73, not P2SH) is exempt from the upgradability discouragement.
    if version == 1 && program == [0x4e, 0x73] && !is_p2sh {
        return Ok(());
    }
    if flags & DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM != 0 {
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
    flags: u32,
    verifier: &V,
) -> Res<()> {
    let input = ctx.tx.inputs.get(input_index).ok_or(ScriptError::UnknownError)?;
    let script_sig = &input.script_sig[..];
    let witness = &input.witness[..];
    let checker = Checker { ctx, n_in: input_index, amount, verifier };
    let mut exec = ExecData::default();
    let mut had_witness = false;

    if flags & SIGPUSHONLY != 0 && !is_push_only(script_sig) {
        return Err(ScriptError::SigPushOnly);
    }
    // scriptSig and scriptPubKey run in sequence on one stack (not concatenated: CVE-2010-5141).
    let mut stack: Stack = Vec::new();
    eval_script(&mut stack, script_sig, flags, &checker, SigVersion::Base, &mut exec)?;
    let stack_copy = if flags & P2SH != 0 { Some(stack.clone()) } else { None };
    eval_script(&mut stack, script_pubkey, flags, &checker, SigVersion::Base, &mut exec)?;
    match stack.last() {
        Some(v) if cast_to_bool(v) => {}
        _ => return Err(ScriptError::EvalFalse),
    }

    // Bare witness programs.
    if flags & WITNESS != 0 {
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
    if flags & P2SH != 0 && is_p2sh(script_pubkey) {
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
        if flags & WITNESS != 0 {
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
    if flags & CLEANSTACK != 0 && stack.len() != 1 {
        return Err(ScriptError::CleanStack);
    }
    if flags & WITNESS != 0 && !had_witness && !witness.is_empty() {
        return Err(ScriptError::WitnessUnexpected);
    }
    Ok(())
}

/// Verifies input `input_index` of `ctx.tx` against the output it spends, taken from the
/// context's spent outputs (`TxContext::new(tx, Some(spent_outputs))`, one per input).
///
/// Thread-safe: the context is read-only (its lazily computed hashes are `OnceLock`s) and all
/// scratch state lives on this call's stack.
pub fn verify_input<V: SigVerifier + ?Sized>(
    ctx: &TxContext<'_>,
    input_index: usize,
    flags: u32,
    verifier: &V,
) -> Res<()> {
    let spent: &TxOut =
        ctx.spent_outputs.and_then(|s| s.get(input_index)).ok_or(ScriptError::UnknownError)?;
    verify_script(ctx, input_index, &spent.script_pubkey, spent.value, flags, verifier)
}

/// Verifies every input of `ctx.tx` (one thread); the first failure as `(input, error)`.
pub fn verify_tx<V: SigVerifier + ?Sized>(
    ctx: &TxContext<'_>,
    flags: u32,
    verifier: &V,
) -> Result<(), (usize, ScriptError)> {
    (0..ctx.tx.inputs.len()).try_for_each(|i| verify_input(ctx, i, flags, verifier).map_err(|e| (i, e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scriptnum_roundtrip_and_minimality() {
        for n in [0i64, 1, -1, 127, 128, -128, 255, 256, 0x7fff_ffff, -0x7fff_ffff, 1 << 32] {
            assert_eq!(scriptnum_decode(&scriptnum_encode(n), true, 5), Ok(n), "{n}");
        }
        assert_eq!(scriptnum_encode(-1), vec![0x81]);
        assert_eq!(scriptnum_encode(128), vec![0x80, 0x00]);
        assert_eq!(scriptnum_decode(&[0x00], true, 4), Err(ScriptError::ScriptNum));
        assert_eq!(scriptnum_decode(&[0x80], false, 4), Ok(0));
        assert_eq!(scriptnum_decode(&[1, 2, 3, 4, 5], false, 4), Err(ScriptError::ScriptNum));
        assert!(!cast_to_bool(&[0, 0, 0x80]));
        assert!(cast_to_bool(&[0, 0x80, 0]));
    }

    #[test]
    fn find_and_delete_matches_core_cases() {
        // Cases from Core's script_FindAndDelete test.
        // Not op-aligned: the pattern sits inside a push.
        let mut s = vec![0x02, 0x01, 0x02, 0x51];
        assert_eq!(find_and_delete(&mut s, &[0x01, 0x02]), 0);
        assert_eq!(s, vec![0x02, 0x01, 0x02, 0x51]);
        let mut s = vec![0x01, 0x02, 0x01, 0x02];
        assert_eq!(find_and_delete(&mut s, &[0x01, 0x02]), 2);
        assert!(s.is_empty());
        let mut s = vec![OP_CODESEPARATOR, 0x01, 0x02];
        assert_eq!(find_and_delete(&mut s, &[0x01, 0x02]), 1);
        assert_eq!(s, vec![OP_CODESEPARATOR]);
    }
}
