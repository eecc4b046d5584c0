// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mirrors Bitcoin Core's rev*.dat records of src/node/blockstorage.cpp (`WriteBlockUndo`,
//! `ReadBlockUndo`, `InitBlocksdirXorKey`) and the file obfuscation of src/util/obfuscation.h.
//!
//! A rev file is a sequence of records, appended as blocks are connected:
//!
//! ```text
//! network magic (4) ‖ size (LE u32) ‖ CBlockUndo (size bytes) ‖ checksum (32)
//! ```
//!
//! where the checksum is SHA256d(previous block's hash ‖ CBlockUndo bytes): Core's
//! `HashWriter hasher; hasher << pprev->GetBlockHash() << blockundo`. The block index keeps the
//! offset of the `CBlockUndo` bytes (`nUndoPos`, 8 past the record's start); a record names
//! no block, so the checksum, with the parent's hash, is what ties it to one.
//!
//! Since Core 28 the blocks directory holds `xor.dat`, an 8-byte key, and every byte of the
//! blk and rev files is stored XORed with `key[offset mod 8]`, `offset` being the byte's
//! position in its file. An older directory has no `xor.dat` (a zero key). Files are
//! preallocated in chunks, so a file may end in zeros that were never written (and never
//! obfuscated): reading stops where only such zeros remain.

use super::error::{UndoError, UndoErrorKind};
use super::record::BlockUndo;
use crate::encode::{Block, Sink};
use crate::hash::{sha256, Sha256};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// The length of the obfuscation key in `xor.dat`.
pub const XOR_KEY_LEN: usize = 8;

/// Bytes a record adds to its `CBlockUndo` (`UNDO_DATA_DISK_OVERHEAD`): the 8-byte header and
/// the 32-byte checksum.
pub const RECORD_OVERHEAD: usize = 40;

/// The blk/rev file obfuscation key of a blocks directory (Core's `Obfuscation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XorKey(pub [u8; XOR_KEY_LEN]);

impl XorKey {
    /// No obfuscation (a blocks directory without `xor.dat`, or `-blocksxor=0`).
    pub const ZERO: XorKey = XorKey([0; XOR_KEY_LEN]);

    /// Whether the key leaves the bytes as they are.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; XOR_KEY_LEN]
    }

    /// The key of `xor.dat`'s content: its first 8 bytes, as Core reads them.
    pub fn from_bytes(b: &[u8]) -> Result<XorKey, UndoError> {
        let k = b.get(..XOR_KEY_LEN).ok_or_else(|| UndoError::new(UndoErrorKind::ShortXorKey(b.len())))?;
        Ok(XorKey(k.try_into().expect("8 bytes")))
    }

    /// The key of the blocks directory `blocks_dir`: `xor.dat` when it exists, else
    /// [`XorKey::ZERO`].
    pub fn read(blocks_dir: &Path) -> Result<XorKey, UndoError> {
        let path = blocks_dir.join("xor.dat");
        let name = path.display().to_string();
        match std::fs::read(&path) {
            Ok(b) => XorKey::from_bytes(&b).map_err(|e| e.in_file(&name)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(XorKey::ZERO),
            Err(e) => Err(UndoError::from(e).in_file(&name)),
        }
    }

    /// XORs `data`, which starts at byte `file_offset` of its file, with the key (obfuscating
    /// and de-obfuscating are the same operation).
    pub fn apply(&self, data: &mut [u8], file_offset: u64) {
        if self.is_zero() {
            return;
        }
        let start = (file_offset % XOR_KEY_LEN as u64) as usize;
        for (i, b) in data.iter_mut().enumerate() {
            *b ^= self.0[(start + i) % XOR_KEY_LEN];
        }
    }
}

/// The checksum of a record: SHA256d(`prev_hash` ‖ `undo`), `prev_hash` in internal byte order.
pub fn undo_checksum(prev_hash: &[u8; 32], undo: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(prev_hash);
    h.update(undo);
    sha256(&h.finalize())
}

/// Writes one record, not obfuscated: magic, size, the `CBlockUndo`, the checksum.
pub fn encode_record<S: Sink + ?Sized>(s: &mut S, magic: [u8; 4], prev_hash: &[u8; 32], undo: &BlockUndo) {
    let bytes = undo.to_bytes();
    s.put(&magic);
    s.put(&(bytes.len() as u32).to_le_bytes());
    s.put(&bytes);
    s.put(&undo_checksum(prev_hash, &bytes));
}

/// One record of a rev file, de-obfuscated. The records of a file read whole share its bytes
/// (one buffer, not one allocation a record), so a clone is cheap and a file being read costs
/// its size once.
#[derive(Clone)]
pub struct RevRecord {
    /// Offset of the record (its magic) in the file.
    pub offset: u64,
    /// The bytes holding the record's `CBlockUndo` at `at..at + len`.
    bytes: Arc<Vec<u8>>,
    at: usize,
    len: usize,
    /// The checksum stored after them.
    pub checksum: [u8; 32],
}

impl PartialEq for RevRecord {
    fn eq(&self, other: &RevRecord) -> bool {
        self.offset == other.offset && self.checksum == other.checksum && self.undo() == other.undo()
    }
}

impl Eq for RevRecord {}

impl std::fmt::Debug for RevRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RevRecord")
            .field("offset", &self.offset)
            .field("undo_len", &self.len)
            .field("checksum", &self.checksum)
            .finish()
    }
}

impl RevRecord {
    /// A record of the `CBlockUndo` bytes `undo` at file offset `offset` (of its magic), with
    /// the checksum stored after them.
    pub fn new(offset: u64, undo: Vec<u8>, checksum: [u8; 32]) -> RevRecord {
        let len = undo.len();
        RevRecord { offset, bytes: Arc::new(undo), at: 0, len, checksum }
    }

    /// The `CBlockUndo` bytes.
    pub fn undo(&self) -> &[u8] {
        &self.bytes[self.at..self.at + self.len]
    }

    /// The buffer the record's bytes are in, and its length (tests: the records of a file
    /// share it, and it ends with the last record).
    #[cfg(test)]
    pub(crate) fn buffer(&self) -> (*const u8, usize) {
        (self.bytes.as_ptr(), self.bytes.len())
    }

    /// Offset of the `CBlockUndo` bytes in the file: the block index's `nUndoPos`.
    pub fn undo_pos(&self) -> u64 {
        self.offset + 8
    }

    /// Bytes the record takes in the file.
    pub fn disk_len(&self) -> u64 {
        (self.len + RECORD_OVERHEAD) as u64
    }

    /// Whether the checksum is the one of a block whose parent is `prev_hash`.
    pub fn checksum_matches(&self, prev_hash: &[u8; 32]) -> bool {
        undo_checksum(prev_hash, self.undo()) == self.checksum
    }

    /// Checks the checksum against the parent's hash `prev_hash` (Core's "Checksum mismatch").
    pub fn verify(&self, prev_hash: &[u8; 32]) -> Result<(), UndoError> {
        let computed = undo_checksum(prev_hash, self.undo());
        if computed != self.checksum {
            let kind = UndoErrorKind::ChecksumMismatch { stored: self.checksum, computed };
            return Err(UndoError::at(kind, self.undo_pos() + self.len as u64));
        }
        Ok(())
    }

    /// Decodes the `CBlockUndo` without checking the checksum; error offsets are file offsets.
    pub fn decode_unchecked(&self) -> Result<BlockUndo, UndoError> {
        BlockUndo::from_bytes(self.undo()).map_err(|e| e.shifted(self.undo_pos()))
    }

    /// `ReadBlockUndo`: checks the checksum against the parent's hash `prev_hash`, then decodes
    /// the `CBlockUndo` (which must fill the record). Error offsets are file offsets.
    pub fn decode(&self, prev_hash: &[u8; 32]) -> Result<BlockUndo, UndoError> {
        self.verify(prev_hash)?;
        self.decode_unchecked()
    }
}

/// The records of one rev file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RevFile {
    /// The file's name, for errors.
    pub name: Option<String>,
    /// The records in file order.
    pub records: Vec<RevRecord>,
}

impl RevFile {
    /// Reads the rev file at `path`, de-obfuscating it with `key`, and splits it into records
    /// that must start with `magic` (checksums are checked when a record is decoded).
    pub fn open(path: &Path, magic: [u8; 4], key: &XorKey) -> Result<RevFile, UndoError> {
        let name = path.display().to_string();
        let raw = std::fs::read(path).map_err(|e| UndoError::from(e).in_file(&name))?;
        RevFile::parse_owned(raw, magic, key, Some(&name))
    }

    /// Splits the file content `raw` (as stored, from offset 0) into records, de-obfuscating it
    /// with `key`. Reading stops at the end, or where only never-written zero bytes remain.
    pub fn parse(raw: &[u8], magic: [u8; 4], key: &XorKey, name: Option<&str>) -> Result<RevFile, UndoError> {
        RevFile::parse_owned(raw.to_vec(), magic, key, name)
    }

    /// [`RevFile::parse`] of bytes it may de-obfuscate in place.
    fn parse_owned(
        mut data: Vec<u8>,
        magic: [u8; 4],
        key: &XorKey,
        name: Option<&str>,
    ) -> Result<RevFile, UndoError> {
        let ctx = |e: UndoError| match name {
            Some(n) => e.in_file(n),
            None => e,
        };
        // The end of the bytes as stored: zero padding Core never wrote is zero before the key.
        let end = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        key.apply(&mut data, 0);
        // Record boundaries first, then the buffer is shared by every record.
        let mut spans: Vec<(usize, usize, [u8; 32])> = Vec::new();
        let mut pos = 0usize;
        while pos < end {
            let truncated = |needed: usize, at: usize| {
                let kind =
                    UndoErrorKind::Truncated { needed: needed as u64, remaining: (data.len() - at) as u64 };
                ctx(UndoError::at(kind, at as u64))
            };
            if data.len() - pos < 8 {
                return Err(truncated(8, pos));
            }
            let found: [u8; 4] = data[pos..pos + 4].try_into().expect("4 bytes");
            if found != magic {
                return Err(ctx(UndoError::at(
                    UndoErrorKind::BadMagic { found, expected: magic },
                    pos as u64,
                )));
            }
            let size = u32::from_le_bytes(data[pos + 4..pos + 8].try_into().expect("4 bytes")) as usize;
            let body = pos + 8;
            if data.len() - body < size + 32 {
                return Err(truncated(size + 32, body));
            }
            spans.push((pos, size, data[body + size..body + size + 32].try_into().expect("32 bytes")));
            pos = body + size + 32;
        }
        // Past the last record only padding remains.
        data.truncate(pos);
        let bytes = Arc::new(data);
        let records = spans
            .into_iter()
            .map(|(offset, len, checksum)| RevRecord {
                offset: offset as u64,
                bytes: Arc::clone(&bytes),
                at: offset + 8,
                len,
                checksum,
            })
            .collect();
        Ok(RevFile { name: name.map(str::to_string), records })
    }

    fn ctx(&self, e: UndoError) -> UndoError {
        match &self.name {
            Some(n) => e.in_file(n),
            None => e,
        }
    }

    /// Decodes record `index` after checking its checksum against `prev_hash`; errors name the
    /// file.
    ///
    /// # Panics
    /// When `index` is out of range.
    pub fn decode(&self, index: usize, prev_hash: &[u8; 32]) -> Result<BlockUndo, UndoError> {
        self.records[index].decode(prev_hash).map_err(|e| self.ctx(e))
    }

    /// The records whose checksum verifies with the parent hash `prev_hash`, in file order
    /// (more than one when several children of that parent were connected).
    pub fn records_after<'a>(&'a self, prev_hash: &'a [u8; 32]) -> impl Iterator<Item = &'a RevRecord> + 'a {
        self.records.iter().filter(move |r| r.checksum_matches(prev_hash))
    }

    /// The undo data of `block` (at `height`, when known, for errors): the first record whose
    /// checksum verifies with the block's parent and whose counts match the block's
    /// ([`BlockUndo::check_counts`]). A record that verifies but does not decode is an error;
    /// no matching record is [`UndoErrorKind::NoRecord`].
    pub fn block_undo(&self, block: &Block, height: Option<u32>) -> Result<BlockUndo, UndoError> {
        let hash = block.block_hash();
        let named = |e: UndoError| self.ctx(e).in_block(Some(hash), height);
        let mut mismatch = None;
        for r in self.records_after(&block.header.prev_block) {
            let u = r.decode_unchecked().map_err(named)?;
            match u.check_counts(block) {
                Ok(()) => return Ok(u),
                Err(e) => mismatch = mismatch.or(Some(e.shifted(r.undo_pos()))),
            }
        }
        Err(named(mismatch.unwrap_or_else(|| UndoError::new(UndoErrorKind::NoRecord))))
    }
}

/// Appends records to a rev file, obfuscated with the directory's key as Core writes them.
#[derive(Debug)]
pub struct RevWriter<W: Write> {
    inner: W,
    magic: [u8; 4],
    key: XorKey,
    pos: u64,
}

impl<W: Write> RevWriter<W> {
    /// A writer whose next byte goes to offset `pos` of the file behind `inner`, for the
    /// network `magic`.
    pub fn new(inner: W, magic: [u8; 4], key: XorKey, pos: u64) -> RevWriter<W> {
        RevWriter { inner, magic, key, pos }
    }

    /// Appends the record of a block whose parent is `prev_hash`; returns the offset of its
    /// `CBlockUndo` bytes (the block index's `nUndoPos`).
    pub fn append(&mut self, prev_hash: &[u8; 32], undo: &BlockUndo) -> Result<u64, UndoError> {
        let mut rec = Vec::new();
        encode_record(&mut rec, self.magic, prev_hash, undo);
        self.key.apply(&mut rec, self.pos);
        self.inner.write_all(&rec)?;
        let undo_pos = self.pos + 8;
        self.pos += rec.len() as u64;
        Ok(undo_pos)
    }

    /// Offset of the next byte written.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Flushes and returns the inner writer.
    pub fn into_inner(mut self) -> Result<W, UndoError> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::sha256d;

    #[test]
    fn checksum_is_sha256d_of_parent_then_undo() {
        let prev = [7u8; 32];
        let undo = [1u8, 2, 3];
        assert_eq!(undo_checksum(&prev, &undo), sha256d(&[&prev[..], &undo].concat()));
    }
}
