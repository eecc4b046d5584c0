// SPDX-License-Identifier: MIT OR Apache-2.0
//! The replay driver behind `src/bin/replay.rs`: block sources, spent-output readers,
//! progress display and the pieces of the replay packet.
//!
//! - [`source`]: framed files (optionally compressed), hex-per-line files and Bitcoin Core
//!   `blocks/` directories, each yielding raw blocks in chain order with their file offsets.
//! - [`spent`]: the spent-output formats that let one block be validated without its chain.
//! - [`progress`]: a live bar on a terminal, periodic lines otherwise.
//! - [`packet`]: resource usage, digests and per-band rates for the packet
//!   (`results/schema/replay.schema.json`).
pub mod packet;
pub mod progress;
pub mod source;
pub mod spent;
