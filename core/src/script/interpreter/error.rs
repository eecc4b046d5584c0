// SPDX-License-Identifier: MIT OR Apache-2.0
//! `ScriptError` (script/script_error.h): why a script failed, with the names Core's test
//! vectors use.

macro_rules! script_errors {
    ($($(#[$doc:meta])* $v:ident => $n:literal,)*) => {
        /// Why a script failed: Core's `ScriptError`. [`ScriptError::name`] gives the string
        /// the JSON vectors use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)]
        pub enum ScriptError { $($(#[$doc])* $v,)* }
        impl ScriptError {
            /// Core's test-vector name (`"EVAL_FALSE"`, `"SIG_DER"`, ...).
            pub fn name(self) -> &'static str { match self { $(ScriptError::$v => $n,)* } }
            /// Every error, for tables and bindings.
            pub const ALL: &'static [ScriptError] = &[$(ScriptError::$v,)*];
        }
    };
}

script_errors! {
    /// Any other failure (also: an input index with no spent output).
    UnknownError => "UNKNOWN_ERROR",
    /// The script finished with a false or empty stack top.
    EvalFalse => "EVAL_FALSE",
    /// OP_RETURN was executed.
    OpReturn => "OP_RETURN",
    /// The script is longer than 10,000 bytes.
    ScriptSize => "SCRIPT_SIZE",
    /// A pushed or initial stack element is longer than 520 bytes.
    PushSize => "PUSH_SIZE",
    /// More than 201 non-push ops (multisig keys included).
    OpCount => "OP_COUNT",
    /// More than 1,000 items on the stack and altstack.
    StackSize => "STACK_SIZE",
    /// CHECKMULTISIG signature count out of range.
    SigCount => "SIG_COUNT",
    /// CHECKMULTISIG key count out of range.
    PubkeyCount => "PUBKEY_COUNT",
    /// OP_VERIFY on a false item.
    Verify => "VERIFY",
    /// OP_EQUALVERIFY on unequal items.
    EqualVerify => "EQUALVERIFY",
    /// OP_CHECKMULTISIGVERIFY failed.
    CheckMultisigVerify => "CHECKMULTISIGVERIFY",
    /// OP_CHECKSIGVERIFY failed.
    CheckSigVerify => "CHECKSIGVERIFY",
    /// OP_NUMEQUALVERIFY failed.
    NumEqualVerify => "NUMEQUALVERIFY",
    /// An unknown or unparseable opcode was executed.
    BadOpcode => "BAD_OPCODE",
    /// A disabled opcode appeared, executed or not.
    DisabledOpcode => "DISABLED_OPCODE",
    /// An op needed more stack items than there were.
    InvalidStackOperation => "INVALID_STACK_OPERATION",
    /// OP_FROMALTSTACK on an empty altstack.
    InvalidAltstackOperation => "INVALID_ALTSTACK_OPERATION",
    /// OP_ELSE/OP_ENDIF without OP_IF, or an unclosed OP_IF.
    UnbalancedConditional => "UNBALANCED_CONDITIONAL",
    /// CLTV/CSV with a negative argument.
    NegativeLocktime => "NEGATIVE_LOCKTIME",
    /// CLTV/CSV lock time not reached.
    UnsatisfiedLocktime => "UNSATISFIED_LOCKTIME",
    /// Undefined hash type (STRICTENC).
    SigHashtype => "SIG_HASHTYPE",
    /// Signature not strict DER (DERSIG, LOW_S, STRICTENC).
    SigDer => "SIG_DER",
    /// Non-minimal push or number (MINIMALDATA).
    MinimalData => "MINIMALDATA",
    /// scriptSig not push-only (SIGPUSHONLY, or P2SH).
    SigPushOnly => "SIG_PUSHONLY",
    /// Signature S above n/2 (LOW_S).
    SigHighS => "SIG_HIGH_S",
    /// Non-empty CHECKMULTISIG dummy (NULLDUMMY).
    SigNullDummy => "SIG_NULLDUMMY",
    /// Public key neither compressed nor uncompressed (STRICTENC).
    PubkeyType => "PUBKEYTYPE",
    /// Stack not exactly one item at the end (CLEANSTACK, witness scripts).
    CleanStack => "CLEANSTACK",
    /// IF/NOTIF argument not empty or `0x01` in segwit v0 (MINIMALIF).
    MinimalIf => "MINIMALIF",
    /// A failed signature check with a non-empty signature (NULLFAIL).
    NullFail => "NULLFAIL",
    /// Reserved NOP executed (DISCOURAGE_UPGRADABLE_NOPS).
    DiscourageUpgradableNops => "DISCOURAGE_UPGRADABLE_NOPS",
    /// Unknown witness version or size (DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM).
    DiscourageUpgradableWitnessProgram => "DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM",
    /// Unknown tapleaf version (DISCOURAGE_UPGRADABLE_TAPROOT_VERSION).
    DiscourageUpgradableTaprootVersion => "DISCOURAGE_UPGRADABLE_TAPROOT_VERSION",
    /// OP_SUCCESSx in a tapscript (DISCOURAGE_OP_SUCCESS).
    DiscourageOpSuccess => "DISCOURAGE_OP_SUCCESS",
    /// Tapscript key of unknown type (DISCOURAGE_UPGRADABLE_PUBKEYTYPE).
    DiscourageUpgradablePubkeyType => "DISCOURAGE_UPGRADABLE_PUBKEYTYPE",
    /// Segwit v0 program neither 20 nor 32 bytes.
    WitnessProgramWrongLength => "WITNESS_PROGRAM_WRONG_LENGTH",
    /// Witness program spent with an empty witness.
    WitnessProgramWitnessEmpty => "WITNESS_PROGRAM_WITNESS_EMPTY",
    /// Witness does not match the program (script hash, item count, taproot commitment).
    WitnessProgramMismatch => "WITNESS_PROGRAM_MISMATCH",
    /// Non-empty scriptSig spending a bare witness program.
    WitnessMalleated => "WITNESS_MALLEATED",
    /// P2SH-wrapped witness program with a scriptSig other than one push of it.
    WitnessMalleatedP2sh => "WITNESS_MALLEATED_P2SH",
    /// Witness data on an input that spends no witness program.
    WitnessUnexpected => "WITNESS_UNEXPECTED",
    /// Uncompressed key in segwit v0 (WITNESS_PUBKEYTYPE).
    WitnessPubkeyType => "WITNESS_PUBKEYTYPE",
    /// BIP340 signature neither 64 nor 65 bytes.
    SchnorrSigSize => "SCHNORR_SIG_SIZE",
    /// Invalid taproot hash type.
    SchnorrSigHashtype => "SCHNORR_SIG_HASHTYPE",
    /// BIP340 signature does not verify.
    SchnorrSig => "SCHNORR_SIG",
    /// Control block size not 33 + 32k (k ≤ 128).
    TaprootWrongControlSize => "TAPROOT_WRONG_CONTROL_SIZE",
    /// Tapscript signature checks beyond the validation-weight budget.
    TapscriptValidationWeight => "TAPSCRIPT_VALIDATION_WEIGHT",
    /// CHECKMULTISIG(VERIFY) in a tapscript.
    TapscriptCheckMultisig => "TAPSCRIPT_CHECKMULTISIG",
    /// IF/NOTIF argument not empty or `0x01` in a tapscript.
    TapscriptMinimalIf => "TAPSCRIPT_MINIMALIF",
    /// Empty public key in a tapscript signature check.
    TapscriptEmptyPubkey => "TAPSCRIPT_EMPTY_PUBKEY",
    /// OP_CODESEPARATOR in a pre-segwit script (CONST_SCRIPTCODE).
    OpCodeSeparator => "OP_CODESEPARATOR",
    /// A signature found in its own script code (CONST_SCRIPTCODE).
    SigFindAndDelete => "SIG_FINDANDDELETE",
    /// A number operand too long or not minimally encoded.
    ScriptNum => "SCRIPTNUM",
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::error::Error for ScriptError {}

/// A script result.
pub(crate) type Res<T> = Result<T, ScriptError>;
