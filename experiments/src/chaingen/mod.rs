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
//! The `utxo-heavy` profile is shaped for the coins store instead: its set grows the way
//! mainnet's does, to 20,000,000 coins at the tip by default ([`Spec::with_utxos`] scales it;
//! the chain has one block per 2,000 coins, at least 3,000, and inputs for a tenth of the set).
//! Payments mostly spend coins of the last few blocks, and most of their outputs are spent
//! again within a few blocks; payouts of one input fan out to hundreds or thousands of small
//! outputs of the era's kinds, a long tail most of which is never spent; consolidations gather
//! coins at least 1,000 blocks old, and a share of payments draws coins at log-uniform ages, so
//! that the lookups spread over the whole set and not only the recent part a cache holds
//! (its scheduled shapes are three consolidations of 1,000–1,500 such coins). Its
//! pool keeps a coin in 32 bytes and the blocks can be written as they are made
//! ([`generate_to_dir`]), so a set of tens of millions fits in a few GB. Every manifest records
//! the set's size at each tenth of the chain ([`Growth`]) and the spends by the age of their
//! coin ([`AgeBand`]).
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
//! - `pool`: the coins the generator can spend, and the utxo-heavy pool of compact coins by
//!   creation height;
//! - `plan`: the choice of each block's spends, transactions and stress shapes;
//! - `heavy`: the utxo-heavy profile's choice of payments, consolidations and payouts;
//! - `sign`: ECDSA and Schnorr signatures and the scriptSig and witness of every kind of input;
//! - `block`: signing a planned block level by level and assembling it (coinbase, witness
//!   commitment, merkle root, proof of work) into its bytes ([`block_bytes`]);
//! - `generate`: the loop over heights, the final UTXO set and the corpus in memory or handed
//!   on block by block ([`generate()`], [`generate_spec`], [`generate_with`], [`Corpus`]);
//! - `manifest`: `manifest.json` ([`Manifest`]) and [`recount`];
//! - `hints`: the BIP 456 hints file of the tip from the generator's own final set
//!   ([`HintsOf`], [`CollectUnspent`]);
//! - `write`: the blk*.dat files and the rev*.dat files of their undo data (written as the
//!   blocks are made, [`generate_to_dir`], or from memory, and read back, [`for_each_block`]),
//!   the manifest on disk and the cache folder named by [`Spec::id`] ([`ensure_corpus`],
//!   [`ensure_spec`]).

mod block;
mod generate;
mod heavy;
mod hints;
mod keys;
mod manifest;
mod plan;
mod pool;
mod profile;
mod scripts;
mod sign;
mod write;

pub use block::block_bytes;
pub use generate::{generate, generate_spec, generate_with, Corpus, Observer, DEFAULT_SEED};
pub use hints::{CollectUnspent, HintsOf};
pub use manifest::{recount, AgeBand, Counts, Era, ExpectedState, Growth, Manifest, Stress, FORMAT_VERSION};
pub use profile::{Kind, Profile, Spec, DEFAULT_UTXOS, ERAS, MIN_UTXOS};
pub use write::{
    cache_dir, ensure_corpus, ensure_spec, for_each_block, generate_replacing, generate_to_dir, spec_dir,
    write_corpus,
};
