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
//!              element, Agg += each counted output's unless the hints call it unspent, which
//!              goes to the range's part of the UTXO set
//! 4. merge     Agg summed over ranges must be 0 mod 2^256; BIP30 txids (run.rs)
//! 5. state     the hinted outputs are the set: count, total and MuHash3072, computed once
//! ```
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
mod range;
mod run;
mod undo;

pub use headers::HeaderChain;
pub use run::{run_swiftsync, Phases, RangeOrder, RangeStats, SwiftOutcome, SwiftSettings, MISMATCH};
