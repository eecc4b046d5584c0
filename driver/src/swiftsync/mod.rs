// SPDX-License-Identifier: MIT OR Apache-2.0
//! SwiftSync (BIP 457), fully validating, over a Bitcoin Core blocks directory and a BIP 456
//! hints file: the same verdicts and the same final UTXO set as the sequential replay, with
//! the blocks validated in any order.
//!
//! ```text
//! 1. index     the blk files' headers → the most-work chain (source::CoreChain)
//! 2. headers   every header in order: PoW, retargets, MTP, future limit (headers.rs)
//! 3. blocks    ranges of heights taken by the workers in any order (range.rs): each block with
//!              the coins of its undo record (undo.rs), every check; Agg −= each input's coin
//!              element, Agg += each counted output's unless the hints call it unspent; those
//!              are the range's part of the UTXO set, counted, summed and MuHash-ed
//! 4. merge     Agg summed over ranges must be 0 mod 2^256; BIP30 txids (run.rs)
//! 5. state     the parts' counts and totals added, their MuHash products multiplied
//! ```
//!
//! Steps 1–2 make a [`SwiftPlan`]; step 3 runs on threads here ([`run_swiftsync`]) or on
//! workers elsewhere ([`validate_range`], the plan and results as bytes: `wire.rs`), and
//! [`SwiftOutcome::merge`] does steps 4–5 for either.
//!
//! The salt of the aggregate is 32 random bytes per run, never written anywhere. What a
//! balanced aggregate proves (up to a collision of salted SHA-256 sums): the multiset of the
//! coins the undo records gave the inputs equals that of the outputs the hints call spent, so
//! every coin an input spent was created by an earlier output and spent once, and the hinted
//! outputs are exactly the unspent ones. A block that failed a check is only reported when the
//! aggregate balanced (the coins it was checked with were the chain's); otherwise the run ends
//! with [`MISMATCH`], and the sequential replay names the first bad block.
//!
//! Verdict order: a failed header (the header pass stops at the first); a block that could not
//! be read (exit 3); a mismatch; the lowest failing block; else the state.

mod headers;
mod plan;
mod range;
mod run;
mod undo;
mod wire;

pub use headers::HeaderChain;
pub use plan::SwiftPlan;
pub use range::{txid_prefix, Bip30Tx, RangeCounts, RangeResult, SetPart};
pub use run::{
    check_hints, read_hints, run_swiftsync, validate_range, Phases, RangeOrder, RangeStats, SwiftOutcome,
    SwiftSettings, MISMATCH,
};
pub use undo::UndoFiles;
pub use wire::{Bundle, BundledBlock};
