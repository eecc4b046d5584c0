// SPDX-License-Identifier: MIT OR Apache-2.0
//! Why undo data does not read: the failures Bitcoin Core's `ReadBlockUndo` (node/blockstorage.cpp)
//! and the `VARINT`/`ScriptCompression` readers (serialize.h, compressor.h) can meet, with context.
//!
//! An [`UndoError`] is an [`UndoErrorKind`] plus what is known of where it happened: the file,
//! the byte offset (in the file when the file is known, else in the buffer that was decoded),
//! and the block (hash, height).

use crate::encode::{display_hex, DecodeError};
use std::fmt;

/// What went wrong while reading or matching undo data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UndoErrorKind {
    /// A field needed more bytes than were left.
    Truncated {
        /// Bytes the field needed.
        needed: u64,
        /// Bytes that were left.
        remaining: u64,
    },
    /// A `VARINT` whose value does not fit its field (Core: "ReadVarInt(): size too large").
    /// `bits` is the width of the field: 32 for the coin code, the legacy version and the script
    /// size, 64 for the amount.
    VarIntTooLarge {
        /// Width of the field in bits.
        bits: u32,
    },
    /// A CompactSize count that is non-canonical or above `MAX_SIZE`.
    CompactSize(DecodeError),
    /// A compressed amount whose decompression exceeds 64 bits: no amount compresses to it.
    AmountOverflow(u64),
    /// Script form 4 or 5 (an uncompressed P2PK key stored by its x coordinate) with an x that
    /// is no curve point's: Core's compressor never writes it (Core's reader would give an empty
    /// script).
    InvalidCompressedKey,
    /// A record does not start with the network magic.
    BadMagic {
        /// The four bytes found (after de-obfuscation).
        found: [u8; 4],
        /// The network magic expected.
        expected: [u8; 4],
    },
    /// The record's size field and the undo data it frames disagree: the `CBlockUndo` ended
    /// `unused` bytes before the size said.
    SizeMismatch {
        /// The size field of the record.
        size: u32,
        /// Bytes of it the `CBlockUndo` did not use.
        unused: u64,
    },
    /// The 32-byte checksum after the undo data is not SHA256d(previous block hash ‖ undo data).
    ChecksumMismatch {
        /// The checksum stored in the file.
        stored: [u8; 32],
        /// The checksum computed from the previous block's hash and the undo data.
        computed: [u8; 32],
    },
    /// The undo record has a `CTxUndo` count other than the block's non-coinbase transactions.
    TxCountMismatch {
        /// `CTxUndo` entries in the record.
        undo: usize,
        /// Non-coinbase transactions in the block.
        block: usize,
    },
    /// A `CTxUndo` has a coin count other than its transaction's inputs.
    CoinCountMismatch {
        /// Index of the transaction in the block (the coinbase is 0).
        tx: usize,
        /// Coins in the `CTxUndo`.
        undo: usize,
        /// Inputs of the transaction.
        inputs: usize,
    },
    /// The spent coins given for a block are not one per non-coinbase input.
    SpentCountMismatch {
        /// Coins given.
        spent: usize,
        /// Non-coinbase inputs of the block.
        inputs: usize,
    },
    /// No record of the file is the block's: none has a checksum that verifies with the
    /// block's parent and the block's transaction and input counts.
    NoRecord,
    /// `xor.dat` holds fewer than the 8 key bytes.
    ShortXorKey(usize),
    /// A file could not be read or written.
    Io(std::io::ErrorKind, String),
}

impl fmt::Display for UndoErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UndoErrorKind::Truncated { needed, remaining } => {
                write!(f, "truncated: needed {needed} bytes, {remaining} remain")
            }
            UndoErrorKind::VarIntTooLarge { bits } => {
                write!(f, "ReadVarInt(): size too large (a {bits}-bit field)")
            }
            UndoErrorKind::CompactSize(e) => write!(f, "{e}"),
            UndoErrorKind::AmountOverflow(x) => {
                write!(f, "compressed amount {x} decompresses beyond 64 bits")
            }
            UndoErrorKind::InvalidCompressedKey => {
                write!(f, "compressed script holds an uncompressed key whose x is not on the curve")
            }
            UndoErrorKind::BadMagic { found, expected } => {
                write!(f, "bad magic {} (expected {})", hex4(found), hex4(expected))
            }
            UndoErrorKind::SizeMismatch { size, unused } => {
                write!(f, "record size {size} but the undo data ends {unused} bytes before it")
            }
            UndoErrorKind::ChecksumMismatch { stored, computed } => {
                write!(f, "checksum mismatch: stored {}, computed {}", hex32(stored), hex32(computed))
            }
            UndoErrorKind::TxCountMismatch { undo, block } => {
                write!(f, "{undo} transaction undo entries for {block} non-coinbase transactions")
            }
            UndoErrorKind::CoinCountMismatch { tx, undo, inputs } => {
                write!(f, "transaction {tx}: {undo} undo coins for {inputs} inputs")
            }
            UndoErrorKind::SpentCountMismatch { spent, inputs } => {
                write!(f, "{spent} spent coins for {inputs} non-coinbase inputs")
            }
            UndoErrorKind::NoRecord => write!(f, "no undo record of this block"),
            UndoErrorKind::ShortXorKey(n) => write!(f, "xor.dat holds {n} bytes, fewer than 8"),
            UndoErrorKind::Io(_, msg) => write!(f, "{msg}"),
        }
    }
}

fn hex4(b: &[u8; 4]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn hex32(b: &[u8; 32]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// An undo-data failure with where it happened, as far as known: the kind, the file, the byte
/// offset of the failing field (in the file when the file is known, else in the decoded
/// buffer), and the block's hash and height. Boxed, so that a `Result` stays small.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoError(Box<Detail>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Detail {
    kind: UndoErrorKind,
    file: Option<String>,
    offset: Option<u64>,
    block_hash: Option<[u8; 32]>,
    height: Option<u32>,
}

impl UndoError {
    /// An error of `kind` with no context yet.
    pub fn new(kind: UndoErrorKind) -> UndoError {
        UndoError(Box::new(Detail { kind, file: None, offset: None, block_hash: None, height: None }))
    }

    /// An error of `kind` at byte `offset`.
    pub fn at(kind: UndoErrorKind, offset: u64) -> UndoError {
        let mut e = UndoError::new(kind);
        e.0.offset = Some(offset);
        e
    }

    /// What went wrong.
    pub fn kind(&self) -> &UndoErrorKind {
        &self.0.kind
    }

    /// The file (as given to the reader), when one was read.
    pub fn file(&self) -> Option<&str> {
        self.0.file.as_deref()
    }

    /// Byte offset of the failing field: in the file when [`UndoError::file`] is set, else in
    /// the decoded buffer.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// Hash of the block (internal byte order) the data belongs to, when known.
    pub fn block_hash(&self) -> Option<[u8; 32]> {
        self.0.block_hash
    }

    /// Height of that block, when known.
    pub fn height(&self) -> Option<u32> {
        self.0.height
    }

    /// The same context with another kind.
    pub fn with_kind(mut self, kind: UndoErrorKind) -> UndoError {
        self.0.kind = kind;
        self
    }

    /// Moves the offset by `base` (a buffer's offset in the file it came from); sets it to
    /// `base` when there was none.
    pub fn shifted(mut self, base: u64) -> UndoError {
        self.0.offset = Some(self.0.offset.unwrap_or(0) + base);
        self
    }

    /// Names the file, unless one is named already.
    pub fn in_file(mut self, file: &str) -> UndoError {
        self.0.file.get_or_insert_with(|| file.to_string());
        self
    }

    /// Names the block, keeping a hash or height already known.
    pub fn in_block(mut self, hash: Option<[u8; 32]>, height: Option<u32>) -> UndoError {
        self.0.block_hash = self.0.block_hash.or(hash);
        self.0.height = self.0.height.or(height);
        self
    }
}

impl From<DecodeError> for UndoErrorKind {
    fn from(e: DecodeError) -> UndoErrorKind {
        match e {
            DecodeError::UnexpectedEnd { needed, remaining } => {
                UndoErrorKind::Truncated { needed, remaining: remaining as u64 }
            }
            other => UndoErrorKind::CompactSize(other),
        }
    }
}

impl From<std::io::Error> for UndoError {
    fn from(e: std::io::Error) -> UndoError {
        UndoError::new(UndoErrorKind::Io(e.kind(), e.to_string()))
    }
}

impl fmt::Display for UndoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.0;
        if let Some(file) = &d.file {
            write!(f, "{file}: ")?;
        }
        if let Some(o) = d.offset {
            write!(f, "byte {o}: ")?;
        }
        match (&d.block_hash, d.height) {
            (Some(h), Some(n)) => write!(f, "block {} (height {n}): ", display_hex(h))?,
            (Some(h), None) => write!(f, "block {}: ", display_hex(h))?,
            (None, Some(n)) => write!(f, "block at height {n}: ")?,
            (None, None) => {}
        }
        write!(f, "{}", d.kind)
    }
}

impl std::error::Error for UndoError {}
