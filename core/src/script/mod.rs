// SPDX-License-Identifier: MIT OR Apache-2.0
//! The script interpreter, with Bitcoin Core's verification flags and error names.
//!
//! - [`opcodes`]: opcode values, names, the op reader and script templates;
//! - [`asm`]: Core's script assembly notation (`ParseScript`) used by the JSON vectors;
//! - [`flags`]: [`ScriptFlags`], Core's `SCRIPT_VERIFY_*` set;
//! - [`interpreter`]: `EvalScript`/`VerifyScript` semantics: legacy, P2SH (BIP16), segwit v0
//!   (BIP141/143), taproot key and script path (BIP341) and tapscript (BIP342), one file per
//!   section of Core's interpreter;
//! - [`sigops`]: legacy, P2SH and witness signature-operation counting and a transaction's
//!   sigop cost;
//! - [`verifier`]: [`NativeVerifier`], the signature checks over [`crate::secp256k1`].
//!
//! The entry point for a transaction input is [`verify_input`]. It takes the transaction's
//! shared [`crate::sighash::TxContext`] and a [`SigVerifier`], the signature-checking backend
//! (Core's `BaseSignatureChecker` split at the elliptic-curve boundary), so the interpreter has
//! no dependency on a particular secp256k1 implementation and keeps no mutable shared state:
//! every call owns its stacks, so it is safe from many threads at once.

pub mod asm;
pub mod flags;
pub mod interpreter;
pub mod opcodes;
pub mod sigops;
pub mod verifier;

pub use flags::ScriptFlags;
pub use interpreter::{verify_input, verify_script, verify_tx, ScriptError, SigVerifier, TweakCheck};
pub use verifier::{BackendVerifier, NativeVerifier};
