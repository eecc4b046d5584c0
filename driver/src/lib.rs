// SPDX-License-Identifier: MIT OR Apache-2.0
//! What fullverify's drivers share: the replay run, the sources it reads, and the result
//! packets every experiment writes. The `replay` binary (`fullverify-experiments`), the
//! benchmark drivers and Python's `fullverify.replay` are built on it; none of them repeats it.
//!
//! - [`replay`]: a chain from a source through the chain state, or one block with its spent
//!   outputs, into a structured outcome and a packet (`results/schema/replay.schema.json`).
//! - [`source`]: framed files (optionally compressed), hex-per-line files, chaingen corpora and
//!   Bitcoin Core `blocks/` directories, each yielding raw blocks in chain order with their
//!   file offsets.
//! - [`blocksdir`]: writing a Core-shaped blocks directory (blk, rev, xor.dat).
//! - [`spent`]: the spent-output formats that let one block be validated without its chain.
//! - [`swiftsync`]: BIP 457 SwiftSync over a Core blocks directory and a BIP 456 hints file:
//!   headers first, then every block on its own, in ranges on several workers.
//! - [`metrics`]: resource usage, file digests and per-height-band rates.
//! - [`report`]: result packets (`results/<experiment>/<run-id>.json`), the contract between
//!   native runs and the notebooks; the JSON Schema is `results/schema/packet.schema.json`.

#![deny(missing_docs)]

pub mod blocksdir;
pub mod metrics;
pub mod replay;
pub mod report;
pub mod source;
pub mod spent;
pub mod swiftsync;
