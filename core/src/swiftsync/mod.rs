// SPDX-License-Identifier: MIT OR Apache-2.0
//! SwiftSync's data formats: the BIP 456 hints file and the BIP 457 hash aggregate.
//!
//! SwiftSync (BIP 457) validates blocks in any order with two pieces of state: *hints* that
//! say which outputs are still unspent at a terminal height, and a 32-byte *aggregate* that
//! every other output is added to and every input subtracted from. At the terminal height the
//! aggregate must be zero (or the outputs' aggregate equal the inputs'); then the hinted outputs
//! are exactly the UTXO set. Spent coins for the inputs come from BIP 455's `bspent` messages
//! or local undo data; that codec is not here.
//!
//! # Unspendable outputs (BIP 457 "Specification")
//!
//! An output is *unspendable* when its script is longer than 10,000 bytes, starts with
//! `OP_RETURN`, or is "a BIP-30 unspendable coinbase output". The BIP names no block for the
//! last; here they are the coinbase outputs of mainnet blocks 91722 and 91812, whose txids the
//! coinbases of 91880 and 91842 repeat, overwriting the unspent coins
//! ([`MAINNET_OVERWRITTEN_COINBASES`]). Unspendable outputs get no hint index and are never
//! aggregated. [`counted_outputs`] numbers a block's other outputs.
//!
//! # Hints file (BIP 456 "Hintsfile", "Elias-Fano Serialization", "Deserialization")
//!
//! ```text
//! file   = 55 54 58 4f ‖ 00 ‖ height (LE u32) ‖ record(0) ‖ record(1) ‖ … ‖ record(height)
//! record = 00                                      if N = 0
//!        = CompactSize(N) ‖ CompactSize(M) ‖ L ‖ H  otherwise
//! ```
//!
//! One record per block from height 0 through the header's height inclusive (so `height + 1`
//! records), each over the block's output indices that are unspent at that height. Indices
//! count the block's outputs in block order, coinbase first, *skipping unspendable outputs*;
//! the first counted output is index 0, and outputs spent later in the same block still take
//! an index. `N` is the number of indices, `M` the greatest, ℓ = ⌊log2((M + 1)/N)⌋, `L` the
//! ⌈N·ℓ/8⌉-byte string of ℓ-bit low parts, `H` the ⌈(N + ⌊M/2^ℓ⌋)/8⌉-byte unary string with
//! bit `⌊i_j/2^ℓ⌋ + j` set for the `j`-th index. Bits fill bytes from the most significant
//! down, and each low part is written least significant bit first: the prose leaves bit order
//! open and the BIP's `elias_fano.json` vectors fix it.
//!
//! Checked when reading: magic, version, exactly `height + 1` records and nothing after them
//! (BIP 456 "Interpreting the Hintsfile": a count that does not match the height MUST fail),
//! canonical CompactSizes within 32 bits, `N ≤ M + 1`, field lengths, zero padding bits,
//! exactly `N` terminators in `H`, strictly increasing indices ending at `M`. Not checkable
//! from the file alone: that an index is below the block's number of counted outputs
//! ([`BlockHints::check_outputs`] once the block is known), and that the hints are *true*;
//! wrong hints make the aggregate fail to balance (BIP 456 "Distribution").
//!
//! Writing is streaming ([`HintsWriter`]); reading is either random access by height over a
//! file in memory ([`HintsFile`], one framing pass, records checked when read) or sequential
//! from a stream ([`HintsReader`]).
//!
//! # Aggregate (BIP 457 "Aggregation")
//!
//! ```text
//! element = height·2 + coinbase (LE u32)          BIP 455 "Height and Coinbase Flag Code"
//!         ‖ CompactSize(len) ‖ scriptPubKey        "as in the block representation"
//!         ‖ amount (LE u64)
//!         ‖ txid ‖ vout (LE u32)                   the outpoint "as in the block representation"
//! hash    = SHA256(salt ‖ element), digest read as a big-endian 256-bit integer
//! Agg     = Σ hash mod 2^256
//! ```
//!
//! The BIP fixes the field order, the amount's width and endianness, and the sum modulo 2^256.
//! It leaves open the byte order of the 32-bit height code (little-endian here, as everywhere
//! in Bitcoin's serialization and in Core's coin encodings), where the salt goes (a 32-byte
//! prefix here, as in Core's SwiftSync drafts), and how the digest becomes an integer
//! (big-endian here, as the `swiftsync` reference accumulator reads its digests). The salt is
//! secret and per run, so no aggregate value is exchanged and these choices never meet another
//! implementation's; the element layout is what a BIP 455 peer must reproduce. Each element
//! costs one SHA-256 (two compressions for common scripts) over the crate's compression
//! function (SHA-NI when present).
//!
//! What a balanced aggregate proves is only that the two multisets agree, up to a collision
//! of salted SHA-256 sums. The block checks, the BIP-30 duplicate check before BIP 34, and
//! supply checks are the caller's.
//!
//! Files: `elias_fano` (one block's record), `hints` (the file), `aggregate` (salt, coin
//! element, sum), `outputs` (unspendable outputs and the index count).

mod aggregate;
mod elias_fano;
mod hints;
mod outputs;
#[cfg(test)]
mod tests_aggregate;
#[cfg(test)]
mod tests_hints;

pub use aggregate::{Aggregate, CoinElement, Salt};
pub use elias_fano::{encode_indices, low_bit_width, record_len, BlockHints, Indices, RecordError};
pub use hints::{header, HintsError, HintsFile, HintsReader, HintsWriter, HEADER_LEN, MAGIC, VERSION};
pub use outputs::{
    coinbase_overwritten, counted_outputs, is_unspendable_script, CountedOutput,
    MAINNET_OVERWRITTEN_COINBASES,
};
