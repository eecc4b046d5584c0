// SPDX-License-Identifier: MIT OR Apache-2.0
//! `ScriptError` (script/script_error.h): why a script failed, with the names Core's test
//! vectors use.

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

/// A script result.
pub(crate) type Res<T> = Result<T, ScriptError>;
