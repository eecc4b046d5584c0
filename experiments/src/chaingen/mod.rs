// SPDX-License-Identifier: MIT OR Apache-2.0
//! `chaingen`: a deterministic regtest chain whose transactions walk through the eras of
//! mainnet, for replays that cannot download the real chain.
//!
//! From a seed and a [`Profile`] the generator builds blocks with real proof of work at regtest
//! difficulty, BIP34 heights and witness commitments. Every coin it creates belongs to a key it
//! derives from the seed, so every coin can be spent again: value keeps flowing through the
//! regtest halvings (every 150 blocks) because fees return to the coinbase.
//!
//! The spend range (from the first mature coinbase to the tip) is cut into three eras, each
//! with its own mix of output types, hash types and odd encodings:
//!
//! - `legacy`: P2PK and P2PKH with compressed, uncompressed and a few hybrid keys, bare 1-of-2
//!   multisig, P2SH 2-of-3 multisig, high-S signatures, every legacy hash type (SINGLE with an
//!   input past the last output signs the constant one hash, as on mainnet);
//! - `segwit`: adds P2WPKH, P2SH-P2WPKH and P2WSH 2-of-3 multisig with every hash type;
//! - `taproot`: adds key-path spends (default and explicit hash types), script paths with a
//!   CHECKSIG leaf or a CHECKSIGADD 2-of-3 leaf at depths up to 12, and annexes.
//!
//! Shapes that stress a verifier are scheduled at fixed points of the spend range:
//! consolidations of 1,000+ inputs (the legacy one hashes quadratically), fan-outs of 3,000
//! outputs, blocks filled close to 4,000,000 weight units, and chains of transactions that spend
//! outputs of the same block.
//!
//! Planning is sequential and driven by one seeded generator; signing is spread over threads in
//! fixed contiguous chunks and every signature is deterministic (RFC 6979, BIP340 with a derived
//! auxiliary value), so the blocks are byte-identical for any thread count.
//!
//! The corpus on disk: `blk00000.dat`, `blk00001.dat`, … of `magic | u32 LE length | block`
//! records (regtest magic `fabfb5da`, files cut at 128 MiB as Bitcoin Core does, so its block
//! importer reads them) and `manifest.json` ([`Manifest`]).
//!
//! Files, in the order a corpus is made:
//!
//! - `profile`: the corpus sizes ([`Profile`]), the output kinds ([`Kind`]) with their weight and
//!   sigop estimates, each era's output mix and the block budgets;
//! - `keys`: the seeded choice generator, the keys derived from the seed and the ordered map
//!   over threads;
//! - `scripts`: script templates, taproot trees and the making of a new output of a kind;
//! - `plan`: the coin pool and the choice of each block's spends, transactions and stress shapes;
//! - `sign`: ECDSA and Schnorr signatures and the scriptSig and witness of every kind of input;
//! - `block`: signing a planned block level by level and assembling it (coinbase, witness
//!   commitment, merkle root, proof of work) into its bytes ([`block_bytes`]);
//! - `generate`: the loop over heights, the final UTXO set and the corpus in memory
//!   ([`generate()`], [`Corpus`]);
//! - `manifest`: `manifest.json` ([`Manifest`]) and [`recount`];
//! - `write`: the blk*.dat files, the manifest on disk and the cache folder ([`ensure_corpus`]).

mod block;
mod generate;
mod keys;
mod manifest;
mod plan;
mod profile;
mod scripts;
mod sign;
mod write;

pub use block::block_bytes;
pub use generate::{generate, Corpus, Observer, DEFAULT_SEED};
pub use manifest::{recount, Counts, Era, ExpectedState, Manifest, Stress, FORMAT_VERSION};
pub use profile::{Kind, Profile, ERAS};
pub use write::{cache_dir, ensure_corpus, write_corpus};
