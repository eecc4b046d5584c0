// SPDX-License-Identifier: MIT OR Apache-2.0
//! Block validation with Bitcoin Core's rules and reject reasons: a map of the files, one per
//! concept, each named after what Core calls it.
//!
//! The stages, in Core's order:
//!
//! 1. [`check_block_header`] (`CheckBlockHeader`): the proof of work (`high-hash`; Core gives
//!    the same reason when `nBits` itself is negative, zero, overflowing or above the limit).
//! 2. [`contextual_check_block_header`] (`ContextualCheckBlockHeader`): expected `nBits`
//!    (`bad-diffbits`), timestamp above the median of the last 11 (`time-too-old`), at most two
//!    hours ahead of the clock (`time-too-new`), BIP94's timewarp rule, and the minimum version
//!    after BIP34/66/65 (`bad-version(0x…)`).
//! 3. [`check_block`] (`CheckBlock`): on signet the BIP325 block solution
//!    ([`check_signet_solution`], `bad-signet-blksig`), the merkle root and the CVE-2012-2459
//!    duplicate-subtree mutation, size limits, exactly one coinbase and first,
//!    `CheckTransaction` for every transaction, legacy sigops.
//! 4. [`contextual_check_block`] (`ContextualCheckBlock`): finality against the BIP113 median
//!    time past (or the block time before CSV), BIP34 height in the coinbase, the BIP141
//!    witness commitment (or no witness at all), block weight.
//! 5. [`connect_block`] (`ConnectBlock`): BIP30, inputs present and mature, amounts, BIP68
//!    sequence locks, sigop cost, coinbase value, then every input's script in parallel
//!    ([`verify_scripts`]). It produces a [`BlockDelta`] and changes nothing: the caller applies
//!    the delta only when the whole block is valid.
//!
//! Script failures are reported as [`SCRIPT_FAILURE_PREFIX`]` (<error>)` with Core's
//! `ScriptErrorString` text, after every non-script rule of the block, as Core does when it
//! completes its check queue after the transaction loop. The prefix is Core's since v30
//! (`block-script-verify-flag-failed`; earlier releases said
//! `mandatory-script-verify-flag-failed`).
//!
//! The order in which a block meets them:
//!
//! ```text
//! header.rs    CheckBlockHeader, ContextualCheckBlockHeader      (PoW, nBits, MTP, version)
//!     │
//! block.rs     CheckBlock ─► signet.rs (BIP325 solution)         (merkle, size, coinbase, sigops)
//!     │        ContextualCheckBlock ─► witness.rs (BIP141)        (finality, BIP34, commitment, weight)
//!     │
//! connect.rs   ConnectBlock: coins from a CoinSource, BIP30, maturity, amounts, BIP68, sigop cost
//!     │
//! scripts.rs   every input's script on the workers (inline signature checks)
//!  or deferred.rs  the same with signature checks recorded, then verified many at a time
//!     ▼
//! BlockDelta   applied by the caller (crate::chainstate) only when the whole block is valid
//!
//! single.rs    one block and the coins it spends, without its chain (the path above, minus
//!              what needs ancestors; on two threads its checks run beside the scripts)
//! error.rs     BlockError and Core's reject-reason texts, shared by all of the above
//! ```

// A rejected block is reported by value (`BlockError`, `ChainError::Invalid(BlockError)`), the
// shape drivers match on; that path runs once per invalid block, so the size costs nothing.
#![allow(clippy::result_large_err)]

mod block;
mod claims;
mod connect;
mod deferred;
mod error;
mod header;
mod scripts;
mod signet;
mod single;
mod witness;

pub use block::{
    bip34_height_push, check_block, check_block_with_txids, contextual_check_block, is_final_tx,
    CheckedBlock, LOCKTIME_THRESHOLD, MAX_BLOCK_SIGOPS_COST, WITNESS_SCALE_FACTOR,
};
pub(crate) use connect::connect_beside;
pub use connect::{
    connect_block, connect_block_beside, BlockDelta, CoinSource, ConnectContext, ConnectError, ConnectOutcome,
};
pub use deferred::{verify_scripts_with, SigMode, MAX_SCHNORR_BATCH};
pub use error::{script_error_string, BlockError, SCRIPT_FAILURE_PREFIX};
pub use header::{check_block_header, contextual_check_block_header};
pub use scripts::{script_flags, verify_scripts, ScriptFailure};
pub use signet::{check_signet_solution, signet_solution_flags, signet_txs, SIGNET_HEADER};
pub use single::{
    check_block_with_spent, check_decoded_block_in_chain, check_decoded_block_with_spent, BlockCheckSummary,
    ChainContext, CheckOptions,
};
pub use witness::witness_commitment_index;
