// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bitcoin Core's undo data (blocks/rev*.dat), read and written: src/undo.h, src/compressor.*,
//! the rev-file records of src/node/blockstorage.cpp and the blocks-directory obfuscation.
//!
//! When Core connects a block it records the coins the block spent, so that it can disconnect
//! the block again: a [`BlockUndo`] (Core's `CBlockUndo`) with one [`TxUndo`] per non-coinbase
//! transaction and one coin per input, each coin in Core's compact form (`VARINT` height and
//! coinbase flag, compressed amount, compressed script). The same records are what a
//! verifier needs to check a block without the UTXO set: [`BlockUndo::spent_coins`] gives them
//! in the order [`crate::validation::check_block_with_spent`] takes. (The draft BIP 455, "block
//! spent coins" of bitcoin/bips PR 2152, proposes serving peers these coins as a flat list
//! filtered by a creation-height cutoff; that message is not implemented here.)
//!
//! Files:
//!
//! - `compress` — `VARINT` ([`read_varint_u32`], [`read_varint_u64`], [`write_varint`]), amount
//!   compression ([`compress_amount`], [`decompress_amount`]), script compression
//!   ([`CompressedScript`], [`write_script`], [`read_script`]) and `TxOutCompression`
//!   ([`write_txout`], [`read_txout`]).
//! - `record` — [`write_undo_coin`]/[`read_undo_coin`] (`TxInUndoFormatter`), [`TxUndo`],
//!   [`BlockUndo`] and the pairing with a block's inputs.
//! - `file` — rev-file records ([`RevFile`], [`RevRecord`], [`RevWriter`]), their checksum
//!   ([`undo_checksum`]) and the `xor.dat` obfuscation ([`XorKey`]).
//! - `error` — [`UndoError`]: what failed ([`UndoErrorKind`]) with the file, byte offset and
//!   block where known.
//!
//! Reading a Core data directory's undo data for a block:
//!
//! ```no_run
//! use fullverify::chain::Network;
//! use fullverify::undo::{RevFile, XorKey};
//! # fn block() -> fullverify::encode::Block { Network::Regtest.params().genesis_block() }
//! let blocks = std::path::Path::new("datadir/blocks");
//! let key = XorKey::read(blocks)?;
//! let rev = RevFile::open(&blocks.join("rev00000.dat"), Network::Regtest.params().magic, &key)?;
//! let block = block();
//! let spent = rev.block_undo(&block, None)?.into_spent_coins(&block)?;
//! # let _ = spent;
//! # Ok::<(), fullverify::undo::UndoError>(())
//! ```

mod compress;
mod error;
mod file;
mod record;
#[cfg(test)]
mod tests;

pub use compress::{
    compress_amount, decompress_amount, read_script, read_txout, read_varint_u32, read_varint_u64,
    script_len, varint_len, write_script, write_txout, write_varint, CompressedScript, MAX_SCRIPT_SIZE,
    SPECIAL_SCRIPTS,
};
pub use error::{UndoError, UndoErrorKind};
pub use file::{
    encode_record, undo_checksum, RevFile, RevRecord, RevWriter, XorKey, RECORD_OVERHEAD, XOR_KEY_LEN,
};
pub use record::{read_undo_coin, write_undo_coin, BlockUndo, TxUndo};
