// SPDX-License-Identifier: MIT OR Apache-2.0
//! The BIP 456 hints file: header, then one Elias–Fano record per block.
//!
//! ```text
//! magic 55 54 58 4f ("UTXO") ‖ version 00 ‖ height (LE u32)
//!   ‖ record(block 0) ‖ record(block 1) ‖ … ‖ record(block height)
//! ```
//!
//! There is no offset table and no record length prefix: a record's length follows from its
//! `N` and `M`, so random access by height needs one pass over the framing
//! ([`HintsFile::parse`]), after which each record is read and checked on demand.

use super::elias_fano::{encode_indices, record_len, BlockHints, RecordError};
use core::fmt;
use std::io::{self, Read, Write};

/// The file identifier, `"UTXO"` (BIP 456 "Hintsfile").
pub const MAGIC: [u8; 4] = [0x55, 0x54, 0x58, 0x4f];
/// The only version BIP 456 defines.
pub const VERSION: u8 = 0x00;
/// Magic, version and height.
pub const HEADER_LEN: usize = 9;

/// Why a hints file cannot be read or written.
#[derive(Debug)]
pub enum HintsError {
    /// The first four bytes are not [`MAGIC`].
    BadMagic([u8; 4]),
    /// The version byte is not [`VERSION`].
    UnsupportedVersion(u8),
    /// The file ends inside its 9-byte header.
    TruncatedHeader {
        /// Bytes present.
        len: usize,
    },
    /// The file ends after `records` whole records; the height calls for `height + 1`.
    TooFewRecords {
        /// The header's terminal height.
        terminal_height: u32,
        /// Records present.
        records: u64,
    },
    /// Bytes follow the `height + 1` records the header calls for.
    TrailingBytes {
        /// The header's terminal height.
        terminal_height: u32,
        /// How many bytes follow.
        extra: u64,
    },
    /// The record of block `height` is malformed (or, when writing, its indices are).
    Record {
        /// The block height.
        height: u32,
        /// What is wrong with it.
        error: RecordError,
    },
    /// A block above the terminal height was asked for.
    HeightOutOfRange {
        /// The height asked for.
        height: u32,
        /// The file's terminal height.
        terminal_height: u32,
    },
    /// A writer was given a block after the terminal height's.
    TooManyBlocks {
        /// The writer's terminal height.
        terminal_height: u32,
    },
    /// A writer was finished before the terminal height's block.
    MissingBlocks {
        /// The writer's terminal height.
        terminal_height: u32,
        /// Blocks written.
        written: u64,
    },
    /// The underlying reader or writer failed.
    Io(io::Error),
}

impl fmt::Display for HintsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HintsError::BadMagic(m) => {
                write!(f, "not a hints file: magic {:02x?}, expected {:02x?}", m, MAGIC)
            }
            HintsError::UnsupportedVersion(v) => {
                write!(f, "unsupported hints file version {v} (only {VERSION} is defined)")
            }
            HintsError::TruncatedHeader { len } => {
                write!(f, "hints file truncated: {len} bytes, the header alone is {HEADER_LEN}")
            }
            HintsError::TooFewRecords { terminal_height, records } => write!(
                f,
                "record count does not match the height: {records} records, terminal height \
                 {terminal_height} needs {}",
                u64::from(*terminal_height) + 1
            ),
            HintsError::TrailingBytes { terminal_height, extra } => write!(
                f,
                "record count does not match the height: {extra} bytes follow the {} records of \
                 terminal height {terminal_height}",
                u64::from(*terminal_height) + 1
            ),
            HintsError::Record { height, error } => write!(f, "hints for block {height}: {error}"),
            HintsError::HeightOutOfRange { height, terminal_height } => {
                write!(f, "no hints for block {height}: the file ends at height {terminal_height}")
            }
            HintsError::TooManyBlocks { terminal_height } => {
                write!(f, "hints file is complete: it ends at height {terminal_height}")
            }
            HintsError::MissingBlocks { terminal_height, written } => write!(
                f,
                "hints file incomplete: {written} blocks written, terminal height \
                 {terminal_height} needs {}",
                u64::from(*terminal_height) + 1
            ),
            HintsError::Io(e) => write!(f, "hints file I/O: {e}"),
        }
    }
}

impl std::error::Error for HintsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HintsError::Record { error, .. } => Some(error),
            HintsError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for HintsError {
    fn from(e: io::Error) -> Self {
        HintsError::Io(e)
    }
}

/// Checks magic and version; returns the terminal height.
fn parse_header(h: &[u8]) -> Result<u32, HintsError> {
    if h.len() < HEADER_LEN {
        return Err(HintsError::TruncatedHeader { len: h.len() });
    }
    let magic: [u8; 4] = h[..4].try_into().expect("4 bytes");
    if magic != MAGIC {
        return Err(HintsError::BadMagic(magic));
    }
    if h[4] != VERSION {
        return Err(HintsError::UnsupportedVersion(h[4]));
    }
    Ok(u32::from_le_bytes(h[5..9].try_into().expect("4 bytes")))
}

/// The 9-byte header for `terminal_height`.
pub fn header(terminal_height: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..4].copy_from_slice(&MAGIC);
    h[4] = VERSION;
    h[5..].copy_from_slice(&terminal_height.to_le_bytes());
    h
}

/// Writes a hints file block by block: the header first, then one record per [`push`].
///
/// [`push`]: HintsWriter::push
#[derive(Debug)]
pub struct HintsWriter<W: Write> {
    out: W,
    terminal_height: u32,
    written: u64,
    scratch: Vec<u8>,
}

impl<W: Write> HintsWriter<W> {
    /// Writes the header for a file ending at `terminal_height`.
    pub fn new(mut out: W, terminal_height: u32) -> Result<HintsWriter<W>, HintsError> {
        out.write_all(&header(terminal_height))?;
        Ok(HintsWriter { out, terminal_height, written: 0, scratch: Vec::new() })
    }

    /// The height the next [`HintsWriter::push`] writes, `None` once the file is complete.
    pub fn next_height(&self) -> Option<u32> {
        (self.written <= u64::from(self.terminal_height)).then_some(self.written as u32)
    }

    /// Writes the next block's unspent output indices (strictly increasing).
    pub fn push(&mut self, indices: &[u32]) -> Result<(), HintsError> {
        let height =
            self.next_height().ok_or(HintsError::TooManyBlocks { terminal_height: self.terminal_height })?;
        self.scratch.clear();
        encode_indices(indices, &mut self.scratch).map_err(|error| HintsError::Record { height, error })?;
        self.out.write_all(&self.scratch)?;
        self.written += 1;
        Ok(())
    }

    /// [`HintsWriter::push`], first checking every index against the block's number of counted
    /// (spendable) outputs.
    pub fn push_checked(&mut self, indices: &[u32], outputs: u32) -> Result<(), HintsError> {
        if let Some(&index) = indices.iter().find(|&&i| i >= outputs) {
            let height = self
                .next_height()
                .ok_or(HintsError::TooManyBlocks { terminal_height: self.terminal_height })?;
            return Err(HintsError::Record {
                height,
                error: RecordError::IndexOutOfRange { index, outputs },
            });
        }
        self.push(indices)
    }

    /// Checks that every block up to the terminal height was written, flushes, and returns the
    /// writer.
    pub fn finish(mut self) -> Result<W, HintsError> {
        if self.written != u64::from(self.terminal_height) + 1 {
            return Err(HintsError::MissingBlocks {
                terminal_height: self.terminal_height,
                written: self.written,
            });
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A hints file held in memory, framed once for random access by height.
#[derive(Clone, Debug)]
pub struct HintsFile<'a> {
    bytes: &'a [u8],
    terminal_height: u32,
    /// Start of each block's record; one more entry marks the end.
    offsets: Vec<usize>,
}

impl<'a> HintsFile<'a> {
    /// Checks the header and the framing: exactly `height + 1` records, nothing after them.
    ///
    /// Each record's `N`, `M` and length are checked here; its bits when it is read
    /// ([`HintsFile::block`]) or by [`HintsFile::validate`].
    pub fn parse(bytes: &'a [u8]) -> Result<HintsFile<'a>, HintsError> {
        let terminal_height = parse_header(bytes)?;
        let records = u64::from(terminal_height) + 1;
        // Every record is at least one byte, so the file bounds the allocation.
        let cap = records.min((bytes.len() - HEADER_LEN) as u64) as usize + 1;
        let mut offsets = Vec::with_capacity(cap);
        let mut at = HEADER_LEN;
        for height in 0..=terminal_height {
            if at == bytes.len() {
                return Err(HintsError::TooFewRecords { terminal_height, records: u64::from(height) });
            }
            offsets.push(at);
            at += record_len(&bytes[at..]).map_err(|error| HintsError::Record { height, error })?;
        }
        offsets.push(at);
        if at != bytes.len() {
            return Err(HintsError::TrailingBytes { terminal_height, extra: (bytes.len() - at) as u64 });
        }
        Ok(HintsFile { bytes, terminal_height, offsets })
    }

    /// The height of the last block the file covers.
    pub fn terminal_height(&self) -> u32 {
        self.terminal_height
    }

    /// The hints of block `height`, fully checked.
    pub fn block(&self, height: u32) -> Result<BlockHints<'a>, HintsError> {
        if height > self.terminal_height {
            return Err(HintsError::HeightOutOfRange { height, terminal_height: self.terminal_height });
        }
        let h = height as usize;
        let record = &self.bytes[self.offsets[h]..self.offsets[h + 1]];
        BlockHints::parse(record).map(|(b, _)| b).map_err(|error| HintsError::Record { height, error })
    }

    /// Every block's hints in height order.
    pub fn blocks(&self) -> impl Iterator<Item = Result<(u32, BlockHints<'a>), HintsError>> + '_ {
        (0..=self.terminal_height).map(move |h| self.block(h).map(|b| (h, b)))
    }

    /// Checks every record's bits (the first malformed one is reported).
    pub fn validate(&self) -> Result<(), HintsError> {
        self.blocks().try_for_each(|r| r.map(drop))
    }
}

/// Reads a hints file sequentially from a stream, one block at a time.
#[derive(Debug)]
pub struct HintsReader<R: Read> {
    input: R,
    terminal_height: u32,
    next: u64,
    buf: Vec<u8>,
}

/// Reads up to `buf.len()` bytes; returns how many were read (fewer only at end of stream).
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Largest first piece [`read_append`] asks for; later pieces double with what arrived.
const READ_PIECE: usize = 64 * 1024;

/// Appends up to `n` bytes of `r` to `buf`; returns how many were read (fewer only at end of
/// stream). The buffer grows with the bytes that arrive, in pieces of at most [`READ_PIECE`] or
/// what was already read: a record's `N` and `M` can announce a gigabyte in ten bytes, and a
/// short stream must not cost that much memory before it is found short.
fn read_append<R: Read>(r: &mut R, buf: &mut Vec<u8>, n: usize) -> io::Result<usize> {
    let start = buf.len();
    while buf.len() - start < n {
        let at = buf.len();
        let piece = (n - (at - start)).min(READ_PIECE.max(at - start));
        buf.resize(at + piece, 0);
        let got = read_full(r, &mut buf[at..])?;
        buf.truncate(at + got);
        if got < piece {
            break;
        }
    }
    Ok(buf.len() - start)
}

impl<R: Read> HintsReader<R> {
    /// Reads and checks the header.
    pub fn new(mut input: R) -> Result<HintsReader<R>, HintsError> {
        let mut h = [0u8; HEADER_LEN];
        let got = read_full(&mut input, &mut h)?;
        let terminal_height = parse_header(&h[..got])?;
        Ok(HintsReader { input, terminal_height, next: 0, buf: Vec::new() })
    }

    /// The height of the last block the file covers.
    pub fn terminal_height(&self) -> u32 {
        self.terminal_height
    }

    /// Reads the next block's indices into `out` (cleared first) and returns its height;
    /// `Ok(None)` after the terminal height's block, once the stream is checked to end there.
    pub fn next_block(&mut self, out: &mut Vec<u32>) -> Result<Option<u32>, HintsError> {
        out.clear();
        let terminal_height = self.terminal_height;
        if self.next > u64::from(terminal_height) {
            let extra = io::copy(&mut self.input, &mut io::sink())?;
            if extra > 0 {
                return Err(HintsError::TrailingBytes { terminal_height, extra });
            }
            return Ok(None);
        }
        let height = self.next as u32;
        let rec = |error| HintsError::Record { height, error };
        // Grow the buffer until record_len stops asking for more: N, M, then L and H.
        self.buf.clear();
        let mut want = 1usize;
        loop {
            let have = self.buf.len();
            let got = read_append(&mut self.input, &mut self.buf, want - have)?;
            if self.buf.is_empty() {
                return Err(HintsError::TooFewRecords { terminal_height, records: self.next });
            }
            match record_len(&self.buf) {
                Ok(len) if len <= self.buf.len() => break,
                Ok(len) => want = len,
                Err(RecordError::Truncated { needed, remaining }) if got == want - have => {
                    want = self.buf.len() - remaining + needed as usize;
                }
                Err(error) => return Err(rec(error)),
            }
        }
        let (hints, _) = BlockHints::parse(&self.buf).map_err(rec)?;
        out.extend(hints.iter());
        self.next += 1;
        Ok(Some(height))
    }
}
