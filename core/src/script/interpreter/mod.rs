// SPDX-License-Identifier: MIT OR Apache-2.0
//! `EvalScript` and `VerifyScript` with Core's semantics (script/interpreter.cpp), one file per
//! section of Core's interpreter:
//!
//! - [`num`]: `CScriptNum` and `CastToBool`;
//! - [`encoding`]: signature (BIP66 DER, low S, hash type) and public-key encoding rules, and
//!   minimal pushes;
//! - [`scriptcode`]: the push serialization and `FindAndDelete` of pre-segwit script code;
//! - [`taproot`]: BIP341/342 constants, control-block hashing and `OP_SUCCESSx`;
//! - [`checker`]: the signature checker ([`SigVerifier`] at the elliptic-curve boundary) and
//!   the CLTV/CSV comparisons;
//! - [`exec`]: what one execution runs under ([`SigVersion`], the taproot execution data);
//! - [`eval`]: `EvalScript`, the opcode loop;
//! - [`verify`]: `VerifyScript` and witness programs, and the per-input entry points;
//! - [`error`]: why a script failed ([`ScriptError`]).

pub mod checker;
pub mod encoding;
pub mod error;
pub mod eval;
pub mod exec;
pub mod num;
pub mod scriptcode;
pub mod taproot;
pub mod verify;

pub use checker::{MultisigClaim, MultisigKey, SigVerifier, TweakCheck};
pub use encoding::{is_low_der_signature, is_valid_signature_encoding};
pub use error::ScriptError;
pub use eval::{
    MAX_OPS_PER_SCRIPT, MAX_PUBKEYS_PER_MULTISIG, MAX_SCRIPT_ELEMENT_SIZE, MAX_SCRIPT_SIZE, MAX_STACK_SIZE,
};
pub use exec::SigVersion;
pub use num::{cast_to_bool, scriptnum_decode, scriptnum_encode};
pub use scriptcode::{find_and_delete, push_data_script};
pub use taproot::{
    is_op_success, tapbranch_hash, tapleaf_hash, taproot_merkle_root, taptweak_hash, ANNEX_TAG,
    TAPROOT_CONTROL_BASE_SIZE, TAPROOT_CONTROL_MAX_NODE_COUNT, TAPROOT_CONTROL_MAX_SIZE,
    TAPROOT_CONTROL_NODE_SIZE, TAPROOT_LEAF_MASK, TAPROOT_LEAF_TAPSCRIPT, VALIDATION_WEIGHT_OFFSET,
    VALIDATION_WEIGHT_PER_SIGOP_PASSED,
};
pub use verify::{verify_input, verify_script, verify_tx};

#[cfg(test)]
mod tests;
