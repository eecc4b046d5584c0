// SPDX-License-Identifier: MIT OR Apache-2.0
//! SHA-256 and the hashes Bitcoin builds on it.
//!
//! - [`sha256`], [`sha256d`]: SHA-256 (FIPS 180-4) and SHA-256(SHA-256(m)). The compression
//!   function is the `sha2` crate's, which selects SHA-NI at run time on x86-64.
//! - [`Sha256`]: a streaming engine that can start from a *midstate* (the eight state words
//!   after some whole 64-byte blocks). BIP340 tagged hashes
//!   `SHA256(SHA256(tag) || SHA256(tag) || m)` start from the midstate after the one block
//!   `SHA256(tag) || SHA256(tag)`, computed once per tag ([`TaggedHash`]).
//! - [`sha256d64_many`]: many independent 64-byte messages to their double SHA-256, the inner
//!   loop of merkle roots. The x86-64 kernel runs two messages interleaved on SHA-NI so that
//!   one message's round latency hides the other's; the portable path uses `sha2`.
//! - [`merkle_root`], [`witness_merkle_root`]: Bitcoin's merkle tree (odd levels duplicate their
//!   last node) with Core's CVE-2012-2459 "mutated" report.

mod legacy;
mod merkle;
mod sha256;
mod sha256d64;
mod two_way;
pub(crate) use two_way::update_two;
pub mod tags;

pub use legacy::{hash160, ripemd160, sha1};
pub use merkle::{merkle_root, merkle_root_with, witness_merkle_root, MerkleRoot};
pub use sha256::{compress_blocks, sha256, sha256d, state_to_bytes, tagged_hash, Sha256, TaggedHash, IV};
#[cfg(target_arch = "x86_64")]
pub use sha256d64::sha256d64_shani_2way;
pub use sha256d64::{sha256d64_many, sha256d64_portable};
