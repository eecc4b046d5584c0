// SPDX-License-Identifier: MIT OR Apache-2.0
//! # fullverify
//!
//! A research workbench for Bitcoin full verification: every block, every signature, no
//! assumevalid shortcut, with each fast path tested against a slower reference.
//!
//! Layers, each using only the ones listed before it:
//!
//! 1. [`backend`] — which machine-level kernels to use (Portable, x86-64 Asm, AVX-512 IFMA),
//!    chosen once at run time and dispatched at coarse entry points.
//! 2. [`hash`] — SHA-256, double SHA-256, BIP340 tagged hashes with cached midstates,
//!    the many-message `sha256d64` kernel, and Bitcoin's merkle root.
//! 3. [`secp256k1`] — field and scalar arithmetic, group law, GLV/wNAF multiplication,
//!    ECDSA (Core semantics) and BIP340 verification and signing.
//! 4. [`encode`] — consensus encoding: bounded readers, canonical CompactSize, transactions
//!    (BIP144 extended format), headers and blocks.
//! 5. [`script`] and [`sighash`] — legacy/BIP143/BIP341 signature hashes from a per-transaction
//!    context built once, and the script interpreter with Core's flags and error names.
//!    Signature checks go through [`script::SigVerifier`]; [`script::NativeVerifier`] is the
//!    implementation over [`secp256k1`].
//! 6. [`muhash`] — MuHash3072, the rolling hash of the UTXO set (Core's
//!    `gettxoutsetinfo muhash`); it uses only the hashing layer.
//! 7. [`chain`] — networks and their consensus parameters, compact targets, proof of work,
//!    retargeting, subsidy, buried deployments and Core's script-flag exceptions.
//! 8. [`utxo`] — coins, the write-back coins cache over a store (in memory, or on disk with
//!    the `store` feature) and the MuHash element of a coin.
//! 9. [`undo`] — Core's undo data (blocks/rev*.dat): the coins each block spent in Core's
//!    compressed form, rev-file records with their checksums and the `xor.dat` obfuscation.
//! 10. [`validation`] — Core's header, block and connect rules with Core's reject reasons, and
//!     the parallel script check over all inputs of a block.
//! 11. [`chainstate`] — the chain state the replay drives: connect blocks one by one, flush
//!     atomically with the best block, resume after a crash.
//! 12. [`swiftsync`] — SwiftSync's formats: the BIP 456 hints file (Elias–Fano coded unspent
//!     output indices per block) and the BIP 457 salted SHA-256 aggregate of coins.
//!
//! docs/ARCHITECTURE.md in the repository describes the layers and the replay pipeline.
//!
//! # Backends and soundness
//!
//! Backend-specific kernels (x86-64 assembly needing BMI2+ADX, and later AVX-512 IFMA) are
//! private to the crate. Public entry points reach them only through a [`Backend`] token,
//! which can only be obtained after the CPU was checked, so no safe code can execute an
//! instruction the CPU lacks. Field, scalar and point arithmetic for exploration is public in
//! [`secp256k1::arith`], on the Portable backend.

#![deny(missing_docs)]

pub mod backend;
pub mod chain;
pub mod chainstate;
pub mod crew;
pub mod encode;
pub mod hash;
pub mod muhash;
mod named;
pub mod script;
pub mod secp256k1;
pub mod sighash;
pub mod swiftsync;
pub mod undo;
pub mod utxo;
pub mod validation;

pub use backend::{Backend, BackendKind};
pub use named::UnknownName;
