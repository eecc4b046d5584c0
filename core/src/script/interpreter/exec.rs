// SPDX-License-Identifier: MIT OR Apache-2.0
//! What one script execution runs under, shared by the checker, the opcode loop and
//! `VerifyScript`: Core's `SigVersion` and `ScriptExecutionData` (`src/script/interpreter.h`).

/// Which rules a script runs under (Core's `SigVersion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigVersion {
    /// Legacy and P2SH scripts: legacy sighash, FindAndDelete, ECDSA.
    Base,
    /// Segwit v0 (P2WPKH, P2WSH): BIP143 sighash, ECDSA.
    WitnessV0,
    /// Taproot key path (BIP341): a BIP340 signature, no script.
    Taproot,
    /// Tapscript (BIP342): the taproot script path.
    Tapscript,
}

/// Per-execution taproot data (Core's `ScriptExecutionData`).
#[derive(Clone, Debug, Default)]
pub(super) struct ExecData {
    pub(super) tapleaf_hash: Option<[u8; 32]>,
    pub(super) codesep_pos: u32,
    pub(super) annex: Option<Vec<u8>>,
    pub(super) validation_weight_left: i64,
}
