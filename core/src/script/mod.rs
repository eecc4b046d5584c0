// SPDX-License-Identifier: MIT OR Apache-2.0
//! The script interpreter, with Bitcoin Core's verification flags and error names.
//!
//! - [`opcodes`]: opcode values, names, the op reader and script templates;
//! - [`asm`]: Core's script assembly notation (`ParseScript`) used by the JSON vectors;
//! - [`interpreter`]: `EvalScript`/`VerifyScript` semantics: legacy, P2SH (BIP16), segwit v0
//!   (BIP141/143), taproot key and script path (BIP341) and tapscript (BIP342);
//! - [`sigops`]: legacy, P2SH and witness signature-operation counting.
//!
//! The entry point for a transaction input is [`verify_input`]. It takes the transaction's
//! shared [`crate::sighash::TxContext`] and a [`SigVerifier`], the signature-checking backend
//! (Core's `BaseSignatureChecker` split at the elliptic-curve boundary), so the interpreter has
//! no dependency on a particular secp256k1 implementation and keeps no mutable shared state:
//! every call owns its stacks, so it is safe from many threads at once.

pub mod asm;
pub mod interpreter;
pub mod opcodes;
pub mod sigops;
pub mod verifier;

pub use interpreter::{verify_input, verify_script, verify_tx, ScriptError, SigVerifier};
pub use verifier::NativeVerifier;

/// Verification flags, bit-for-bit Core's `SCRIPT_VERIFY_*` (script/interpreter.h).
pub mod flags {
    pub const NONE: u32 = 0;
    pub const P2SH: u32 = 1 << 0;
    pub const STRICTENC: u32 = 1 << 1;
    pub const DERSIG: u32 = 1 << 2;
    pub const LOW_S: u32 = 1 << 3;
    pub const NULLDUMMY: u32 = 1 << 4;
    pub const SIGPUSHONLY: u32 = 1 << 5;
    pub const MINIMALDATA: u32 = 1 << 6;
    pub const DISCOURAGE_UPGRADABLE_NOPS: u32 = 1 << 7;
    pub const CLEANSTACK: u32 = 1 << 8;
    pub const CHECKLOCKTIMEVERIFY: u32 = 1 << 9;
    pub const CHECKSEQUENCEVERIFY: u32 = 1 << 10;
    pub const WITNESS: u32 = 1 << 11;
    pub const DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: u32 = 1 << 12;
    pub const MINIMALIF: u32 = 1 << 13;
    pub const NULLFAIL: u32 = 1 << 14;
    pub const WITNESS_PUBKEYTYPE: u32 = 1 << 15;
    pub const CONST_SCRIPTCODE: u32 = 1 << 16;
    pub const TAPROOT: u32 = 1 << 17;
    pub const DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: u32 = 1 << 18;
    pub const DISCOURAGE_OP_SUCCESS: u32 = 1 << 19;
    pub const DISCOURAGE_UPGRADABLE_PUBKEYTYPE: u32 = 1 << 20;

    /// Every flag with its Core name (as written in the JSON vectors).
    pub const ALL: [(&str, u32); 21] = [
        ("P2SH", P2SH),
        ("STRICTENC", STRICTENC),
        ("DERSIG", DERSIG),
        ("LOW_S", LOW_S),
        ("NULLDUMMY", NULLDUMMY),
        ("SIGPUSHONLY", SIGPUSHONLY),
        ("MINIMALDATA", MINIMALDATA),
        ("DISCOURAGE_UPGRADABLE_NOPS", DISCOURAGE_UPGRADABLE_NOPS),
        ("CLEANSTACK", CLEANSTACK),
        ("CHECKLOCKTIMEVERIFY", CHECKLOCKTIMEVERIFY),
        ("CHECKSEQUENCEVERIFY", CHECKSEQUENCEVERIFY),
        ("WITNESS", WITNESS),
        ("DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM", DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM),
        ("MINIMALIF", MINIMALIF),
        ("NULLFAIL", NULLFAIL),
        ("WITNESS_PUBKEYTYPE", WITNESS_PUBKEYTYPE),
        ("CONST_SCRIPTCODE", CONST_SCRIPTCODE),
        ("TAPROOT", TAPROOT),
        ("DISCOURAGE_UPGRADABLE_TAPROOT_VERSION", DISCOURAGE_UPGRADABLE_TAPROOT_VERSION),
        ("DISCOURAGE_OP_SUCCESS", DISCOURAGE_OP_SUCCESS),
        ("DISCOURAGE_UPGRADABLE_PUBKEYTYPE", DISCOURAGE_UPGRADABLE_PUBKEYTYPE),
    ];

    /// Parses Core's comma-separated flag list (`"P2SH,STRICTENC"`; `""`/`"NONE"` = 0).
    pub fn parse(s: &str) -> Result<u32, String> {
        let mut v = 0;
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty() && *n != "NONE") {
            match ALL.iter().find(|(n, _)| *n == name) {
                Some((_, f)) => v |= f,
                None => return Err(format!("unknown flag {name}")),
            }
        }
        Ok(v)
    }

    /// The consensus flags in force at a block height, as Core's `GetBlockScriptFlags`:
    /// P2SH, WITNESS and TAPROOT for every block (Core applies them retroactively; only two
    /// historic exception blocks differ, not modelled here), DERSIG/CLTV/CSV/NULLDUMMY from
    /// their buried deployment heights (NULLDUMMY with segwit).
    pub fn for_height(height: u32, heights: &DeploymentHeights) -> u32 {
        let mut f = P2SH | WITNESS | TAPROOT;
        if height >= heights.bip66 {
            f |= DERSIG;
        }
        if height >= heights.bip65 {
            f |= CHECKLOCKTIMEVERIFY;
        }
        if height >= heights.csv {
            f |= CHECKSEQUENCEVERIFY;
        }
        if height >= heights.segwit {
            f |= NULLDUMMY;
        }
        f
    }

    /// Buried deployment heights of one network (chainparams.cpp).
    #[derive(Clone, Copy, Debug)]
    pub struct DeploymentHeights {
        pub bip66: u32,
        pub bip65: u32,
        pub csv: u32,
        pub segwit: u32,
    }

    /// Mainnet.
    pub const MAINNET: DeploymentHeights =
        DeploymentHeights { bip66: 363_725, bip65: 388_381, csv: 419_328, segwit: 481_824 };
    /// Testnet3.
    pub const TESTNET3: DeploymentHeights =
        DeploymentHeights { bip66: 330_776, bip65: 581_885, csv: 770_112, segwit: 834_624 };
    /// Regtest: everything from height 1 (segwit from 0).
    pub const REGTEST: DeploymentHeights = DeploymentHeights { bip66: 1, bip65: 1, csv: 1, segwit: 0 };
}
