// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reject reasons: Core's `BlockValidationState` (the reason and where it happened) and
//! `ScriptErrorString` (`src/script/script_error.cpp`), the text of a failed input script.

use crate::encode::display_hex;
use crate::script::interpreter::ScriptError;
use std::fmt;

/// The reject reason of a failing input script, followed by ` (<ScriptErrorString>)`.
pub const SCRIPT_FAILURE_PREFIX: &str = "block-script-verify-flag-failed";

/// A rejected block: Core's reject reason and where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockError {
    /// Core's reject reason (`bad-txns-inputs-missingorspent`, ...).
    pub reason: String,
    /// The block hash (internal byte order).
    pub hash: [u8; 32],
    /// Height of the block (the height it was checked at).
    pub height: u32,
    /// The failing transaction's index in the block and its txid, when there is one.
    pub tx: Option<(usize, [u8; 32])>,
    /// The failing input's index in that transaction, when there is one.
    pub input: Option<usize>,
}

impl BlockError {
    pub(crate) fn new(reason: impl Into<String>, hash: [u8; 32], height: u32) -> BlockError {
        BlockError { reason: reason.into(), hash, height, tx: None, input: None }
    }
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid block at height {} ({}): {}", self.height, display_hex(&self.hash), self.reason)?;
        if let Some((_, txid)) = &self.tx {
            write!(f, " [tx {}", display_hex(txid))?;
            if let Some(i) = self.input {
                write!(f, " input {i}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

impl std::error::Error for BlockError {}

/// Core's `ScriptErrorString` text for a script error.
pub fn script_error_string(e: ScriptError) -> &'static str {
    use ScriptError::*;
    match e {
        UnknownError => "unknown error",
        EvalFalse => "Script evaluated without error but finished with a false/empty top stack element",
        OpReturn => "OP_RETURN was encountered",
        ScriptSize => "Script is too big",
        PushSize => "Push value size limit exceeded",
        OpCount => "Operation limit exceeded",
        StackSize => "Stack size limit exceeded",
        SigCount => "Signature count negative or greater than pubkey count",
        PubkeyCount => "Pubkey count negative or limit exceeded",
        Verify => "Script failed an OP_VERIFY operation",
        EqualVerify => "Script failed an OP_EQUALVERIFY operation",
        CheckMultisigVerify => "Script failed an OP_CHECKMULTISIGVERIFY operation",
        CheckSigVerify => "Script failed an OP_CHECKSIGVERIFY operation",
        NumEqualVerify => "Script failed an OP_NUMEQUALVERIFY operation",
        BadOpcode => "Opcode missing or not understood",
        DisabledOpcode => "Attempted to use a disabled opcode",
        InvalidStackOperation => "Operation not valid with the current stack size",
        InvalidAltstackOperation => "Operation not valid with the current altstack size",
        UnbalancedConditional => "Invalid OP_IF construction",
        NegativeLocktime => "Negative locktime",
        UnsatisfiedLocktime => "Locktime requirement not satisfied",
        SigHashtype => "Signature hash type missing or not understood",
        SigDer => "Non-canonical DER signature",
        MinimalData => "Data push larger than necessary",
        SigPushOnly => "Only push operators allowed in signatures",
        SigHighS => "Non-canonical signature: S value is unnecessarily high",
        SigNullDummy => "Dummy CHECKMULTISIG argument must be zero",
        PubkeyType => "Public key is neither compressed or uncompressed",
        CleanStack => "Stack size must be exactly one after execution",
        MinimalIf => "OP_IF/NOTIF argument must be minimal",
        NullFail => "Signature must be zero for failed CHECK(MULTI)SIG operation",
        DiscourageUpgradableNops => "NOPx reserved for soft-fork upgrades",
        DiscourageUpgradableWitnessProgram => "Witness version reserved for soft-fork upgrades",
        DiscourageUpgradableTaprootVersion => "Taproot version reserved for soft-fork upgrades",
        DiscourageOpSuccess => "OP_SUCCESSx reserved for soft-fork upgrades",
        DiscourageUpgradablePubkeyType => "Public key version reserved for soft-fork upgrades",
        WitnessProgramWrongLength => "Witness program has incorrect length",
        WitnessProgramWitnessEmpty => "Witness program was passed an empty witness",
        WitnessProgramMismatch => "Witness program hash mismatch",
        WitnessMalleated => "Witness requires empty scriptSig",
        WitnessMalleatedP2sh => "Witness requires only-redeemscript scriptSig",
        WitnessUnexpected => "Witness provided for non-witness script",
        WitnessPubkeyType => "Using non-compressed keys in segwit",
        SchnorrSigSize => "Invalid Schnorr signature size",
        SchnorrSigHashtype => "Invalid Schnorr signature hash type",
        SchnorrSig => "Invalid Schnorr signature",
        TaprootWrongControlSize => "Invalid Taproot control block size",
        TapscriptValidationWeight => "Too much signature validation relative to witness weight",
        TapscriptCheckMultisig => "OP_CHECKMULTISIG(VERIFY) is not available in tapscript",
        TapscriptMinimalIf => "OP_IF/NOTIF argument must be minimal in tapscript",
        OpCodeSeparator => "Using OP_CODESEPARATOR in non-witness script",
        SigFindAndDelete => "Signature is found in scriptCode",
        TapscriptEmptyPubkey => "Empty public key in tapscript",
        ScriptNum => "Script number overflowed or is non-minimally encoded",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_display() {
        let mut e = BlockError::new("bad-cb-amount", [0; 32], 5);
        e.tx = Some((0, [1; 32]));
        e.input = Some(2);
        let s = e.to_string();
        assert!(s.starts_with("invalid block at height 5 (0000"));
        assert!(s.ends_with(
            ": bad-cb-amount [tx 0101010101010101010101010101010101010101010101010101010101010101 input 2]"
        ));
    }
}
