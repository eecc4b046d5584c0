// SPDX-License-Identifier: MIT OR Apache-2.0
//! Block sources: raw blocks in chain order, each with the file and byte offset it came from.
//!
//! - [`framed`]: `magic | u32 LE length | block` records (Bitcoin Core's `blk*.dat` record
//!   layout), optionally bzip2-, zstd- or gzip-compressed (detected by the file's first bytes);
//!   runs of zero bytes between or after records are skipped as padding.
//! - [`hex_lines`]: one hex-encoded block per line.
//! - [`corpus`]: a chaingen corpus, its `blk*.dat` files read in order as one framed stream.
//! - [`core_blocks`]: a Bitcoin Core `blocks/` directory. Every `blk*.dat` file is scanned
//!   (XOR-de-obfuscated with the 8-byte key of `xor.dat` when present: byte `i` of a file is
//!   XORed with `key[i % 8]`), the headers are linked by their previous-block hashes from the
//!   genesis block, and the chain with the most work is replayed, so files whose blocks are
//!   out of order (as Core writes them) are read correctly. A directory whose files start at
//!   the genesis block's child (a chaingen corpus) gets the network's genesis block in front.
//!
//! Record sizes follow what Core reads: a record of 80 bytes (a header) up to `MAX_SIZE`
//! ([`MAX_RECORD_BYTES`], 32 MiB, above which Core's `ReadRawBlock` refuses a record) is read as
//! a block, so a block too large to be valid (over [`MAX_BLOCK_BYTES`]) reaches validation and
//! is rejected there with Core's reason (`bad-blk-length` or `bad-blk-weight`).
//!
//! The ordered sources (framed, hex, corpus) hold one chain in order: anything else in them is
//! refused with its file and offset, except what Core's importer passes over without harm (a
//! second copy of a block, a block on a fork with no more work than the chain read before it),
//! which is skipped and noted. The blocks-directory reader does what Core's importer
//! (`LoadExternalBlockFile`) does with bytes that are not a readable record: it scans on to the
//! next magic, and ignores a record cut short at the end of a file; each such skip is noted.
//! Notes ([`Notes`]) name the file and offset and reach the packet (`source.notes`).
//!
//! Offsets in messages are byte offsets in the file as stored; for a compressed file they are
//! offsets in the decompressed stream, and the message says so.

mod order;

use fullverify::chain::ChainParams;
use fullverify::hash::sha256d;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Largest serialized block that can be valid (Core's `MAX_BLOCK_SERIALIZED_SIZE`): the weight
/// limit caps a block at 4,000,000 bytes. Larger records are still read (up to
/// [`MAX_RECORD_BYTES`]), so that validation rejects them with Core's reason.
pub const MAX_BLOCK_BYTES: u32 = 4_000_000;

/// Largest record read as one block: Core's `MAX_SIZE` (0x02000000, 33,554,432 bytes), above
/// which its `ReadRawBlock` refuses to read a block record.
pub const MAX_RECORD_BYTES: u32 = fullverify::encode::MAX_SIZE as u32;

/// Smallest record read as one block: a block header.
pub const MIN_RECORD_BYTES: u32 = 80;

/// Why a record length cannot be read as a block, if it cannot.
fn unreadable_length(len: u32) -> Option<String> {
    if len < MIN_RECORD_BYTES {
        Some(format!("record length {len} is shorter than a block header ({MIN_RECORD_BYTES} bytes)"))
    } else if len > MAX_RECORD_BYTES {
        Some(format!(
            "record length {len} is above {MAX_RECORD_BYTES} bytes, the most Core reads as one block (MAX_SIZE)"
        ))
    } else {
        None
    }
}

/// Most notes a source keeps; the rest are counted.
pub const MAX_NOTES: usize = 100;

/// What a source passed over instead of failing, one line each, with the file and offset:
/// shared between a [`Source`] and the reader that fills it while it is read.
#[derive(Clone, Debug, Default)]
pub struct Notes(Arc<Mutex<(Vec<String>, u64)>>);

impl Notes {
    /// Adds a line (kept while fewer than [`MAX_NOTES`] are, counted after that).
    pub fn push(&self, line: String) {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if g.0.len() < MAX_NOTES {
            g.0.push(line);
        } else {
            g.1 += 1;
        }
    }

    /// The lines so far, and a last one counting those not kept.
    pub fn lines(&self) -> Vec<String> {
        let g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut v = g.0.clone();
        if g.1 > 0 {
            v.push(format!("... and {} more", g.1));
        }
        v
    }
}

/// Where a block came from, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// File name as given (or relative to the blocks directory).
    pub file: String,
    /// Byte offset of the record (its magic), or of the line for hex sources.
    pub offset: u64,
    /// `true` when `offset` counts bytes of the decompressed stream.
    pub decompressed: bool,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.decompressed { "decompressed byte" } else { "byte" };
        write!(f, "{} at {what} {}", self.file, self.offset)
    }
}

/// One block as read.
#[derive(Clone, Debug)]
pub struct RawBlock {
    /// The serialized block.
    pub bytes: Vec<u8>,
    /// Where it was read.
    pub origin: Origin,
}

impl RawBlock {
    /// The block hash (internal byte order), from the first 80 bytes.
    pub fn hash(&self) -> [u8; 32] {
        sha256d(&self.bytes[..80.min(self.bytes.len())])
    }

    /// The previous block's hash as stated in the header.
    pub fn prev_hash(&self) -> [u8; 32] {
        let mut h = [0u8; 32];
        if self.bytes.len() >= 36 {
            h.copy_from_slice(&self.bytes[4..36]);
        }
        h
    }
}

/// A source that cannot be read.
#[derive(Debug)]
pub enum SourceError {
    /// The file or directory cannot be opened or read.
    Io {
        /// The file or directory.
        path: String,
        /// What the system said.
        error: io::Error,
    },
    /// The bytes are not what the format requires.
    Corrupt {
        /// Where in the source.
        at: Origin,
        /// What is wrong there.
        what: String,
    },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Io { path, error } => write!(f, "{path}: {error}"),
            SourceError::Corrupt { at, what } => write!(f, "{at}: {what}"),
        }
    }
}

impl std::error::Error for SourceError {}

/// A stream of blocks in chain order.
pub struct Source {
    /// `framed`, `hex` or `core-blocks`.
    pub kind: &'static str,
    /// The file or directory name as shown in messages and packets.
    pub name: String,
    /// Number of blocks, when known in advance.
    pub total: Option<u64>,
    /// What was passed over so far (a blocks directory's are all known when it is opened).
    pub notes: Notes,
    blocks: Box<dyn Iterator<Item = Result<RawBlock, SourceError>> + Send>,
}

impl Iterator for Source {
    type Item = Result<RawBlock, SourceError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.blocks.next()
    }
}

/// File name for messages and packets: the path as given when relative, else the file name.
pub fn display_name(path: &Path) -> String {
    if path.is_relative() {
        path.display().to_string()
    } else {
        path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
    }
}

fn io_err(path: &str) -> impl FnOnce(io::Error) -> SourceError + '_ {
    move |error| SourceError::Io { path: path.to_string(), error }
}

/// Compression detected from a file's first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// bzip2 (`BZh`).
    Bzip2,
    /// Zstandard (frame magic `28 b5 2f fd`).
    Zstd,
    /// gzip (`1f 8b`).
    Gzip,
}

/// Detects the compression of a stream from its first bytes.
pub fn detect_compression(head: &[u8]) -> Compression {
    if head.starts_with(b"BZh") {
        Compression::Bzip2
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else {
        Compression::None
    }
}

/// Opens a file, transparently decompressing bzip2, zstd or gzip.
pub fn open_maybe_compressed(path: &Path) -> Result<(Box<dyn Read + Send>, Compression), SourceError> {
    let name = display_name(path);
    let mut f = BufReader::with_capacity(1 << 20, File::open(path).map_err(io_err(&name))?);
    let head = f.fill_buf().map_err(io_err(&name))?.to_vec();
    let c = detect_compression(&head);
    let r: Box<dyn Read + Send> = match c {
        Compression::None => Box::new(f),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(f)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(f).map_err(io_err(&name))?),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(f)),
    };
    Ok((r, c))
}

/// Reads a whole file, decompressing it if needed.
pub fn read_maybe_compressed(path: &Path) -> Result<Vec<u8>, SourceError> {
    let name = display_name(path);
    let raw = std::fs::read(path).map_err(io_err(&name))?;
    match detect_compression(&raw) {
        Compression::None => Ok(raw),
        Compression::Zstd => zstd_whole(&raw).map_err(io_err(&name)),
        _ => {
            let (mut r, _) = open_maybe_compressed(path)?;
            let mut v = Vec::new();
            r.read_to_end(&mut v).map_err(io_err(&name))?;
            Ok(v)
        }
    }
}

/// Largest output [`zstd_whole`] decompresses in one pass.
const ZSTD_ONE_PASS_MAX: usize = 256 << 20;

/// Decompresses a whole zstd file. One pass into one buffer where the output fits in the size
/// the frame states, or else in 32 times the input (up to [`ZSTD_ONE_PASS_MAX`]): the
/// streaming decoder allocates the frame's whole window (128 MiB for files made with
/// `--long`) and copies out of it. Anything else is streamed.
fn zstd_whole(raw: &[u8]) -> io::Result<Vec<u8>> {
    let stated = zstd::zstd_safe::get_frame_content_size(raw).ok().flatten();
    let cap = stated.map_or(raw.len().saturating_mul(32), |n| usize::try_from(n).unwrap_or(usize::MAX));
    if cap <= ZSTD_ONE_PASS_MAX {
        if let Ok(v) = zstd::bulk::decompress(raw, cap) {
            return Ok(v);
        }
    }
    let mut v = Vec::new();
    zstd::stream::read::Decoder::new(raw)?.read_to_end(&mut v)?;
    Ok(v)
}

/// Reads up to `buf.len()` bytes; returns how many were read (short only at end of stream).
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Parses `magic | len | block` records from a byte stream.
pub struct FramedReader<R: Read> {
    inner: R,
    magic: [u8; 4],
    file: String,
    decompressed: bool,
    pos: u64,
    /// A byte read ahead while skipping padding.
    pending: Option<u8>,
    done: bool,
}

impl<R: Read> FramedReader<R> {
    /// A reader of records with network magic `magic`.
    pub fn new(inner: R, magic: [u8; 4], file: String, decompressed: bool) -> Self {
        FramedReader { inner, magic, file, decompressed, pos: 0, pending: None, done: false }
    }

    fn origin(&self, offset: u64) -> Origin {
        Origin { file: self.file.clone(), offset, decompressed: self.decompressed }
    }

    fn corrupt(&self, offset: u64, what: String) -> SourceError {
        SourceError::Corrupt { at: self.origin(offset), what }
    }

    fn read_into(&mut self, buf: &mut [u8]) -> Result<usize, SourceError> {
        let mut n = 0;
        if let (Some(b), false) = (self.pending, buf.is_empty()) {
            buf[0] = b;
            self.pending = None;
            n = 1;
        }
        let k = read_full(&mut self.inner, &mut buf[n..]).map_err(|error| SourceError::Io {
            path: format!("{} (near byte {})", self.file, self.pos),
            error,
        })?;
        self.pos += (n + k) as u64;
        Ok(n + k)
    }

    /// Skips zero bytes; `false` at end of stream.
    fn skip_padding(&mut self) -> Result<bool, SourceError> {
        loop {
            let mut b = [0u8; 1];
            if self.read_into(&mut b)? == 0 {
                return Ok(false);
            }
            if b[0] != 0 {
                self.pending = Some(b[0]);
                self.pos -= 1;
                return Ok(true);
            }
        }
    }

    /// The next record: `(offset of its magic, payload)`.
    pub fn next_record(&mut self) -> Result<Option<(u64, Vec<u8>)>, SourceError> {
        if self.done || !self.skip_padding()? {
            self.done = true;
            return Ok(None);
        }
        let start = self.pos;
        let mut head = [0u8; 8];
        let n = self.read_into(&mut head)?;
        if n < 8 {
            self.done = true;
            return Err(self.corrupt(start, format!("truncated record header ({n} of 8 bytes)")));
        }
        if head[..4] != self.magic {
            self.done = true;
            return Err(self.corrupt(
                start,
                format!(
                    "expected network magic {}, found {}",
                    hex::encode(self.magic),
                    hex::encode(&head[..4])
                ),
            ));
        }
        let len = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes"));
        if let Some(why) = unreadable_length(len) {
            self.done = true;
            return Err(self.corrupt(start, why));
        }
        // The body as it arrives: a length field is not trusted with an allocation before the
        // bytes are there (a 32 MiB field in a short file costs 32 MiB otherwise).
        let mut block = Vec::with_capacity((len as usize).min(1 << 20));
        let got = (&mut self.inner).take(u64::from(len)).read_to_end(&mut block).map_err(|error| {
            SourceError::Io { path: format!("{} (near byte {})", self.file, self.pos), error }
        })?;
        self.pos += got as u64;
        if got < len as usize {
            self.done = true;
            return Err(self.corrupt(start, format!("truncated block record: {got} of {len} bytes")));
        }
        Ok(Some((start, block)))
    }
}

impl<R: Read> Iterator for FramedReader<R> {
    type Item = Result<RawBlock, SourceError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self.next_record() {
            Ok(Some((offset, bytes))) => Some(Ok(RawBlock { bytes, origin: self.origin(offset) })),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// Counts the records of an uncompressed framed file by reading their 8-byte heads only (no
/// block is read: a buffered reader would fill its buffer at every head).
fn count_records(path: &Path, magic: [u8; 4]) -> Option<u64> {
    let mut f = File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut pos = 0u64;
    let mut n = 0u64;
    while pos + 8 <= len {
        let mut head = [0u8; 8];
        read_head(&mut f, pos, &mut head).ok()?;
        if head == [0; 8] {
            break;
        }
        if head[..4] != magic {
            return None;
        }
        let l = u64::from(u32::from_le_bytes(head[4..].try_into().ok()?));
        pos += 8 + l;
        n += 1;
    }
    Some(n)
}

/// The 8 bytes of `f` at `pos` (one positioned read where the platform has it).
fn read_head(f: &mut File, pos: u64, head: &mut [u8; 8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(f, head, pos)
    }
    #[cfg(not(unix))]
    {
        f.seek(SeekFrom::Start(pos))?;
        f.read_exact(head)
    }
}

/// A framed file (`magic | len | block` records), possibly compressed.
pub fn framed(path: &Path, magic: [u8; 4]) -> Result<Source, SourceError> {
    let name = display_name(path);
    let (r, c) = open_maybe_compressed(path)?;
    let total = if c == Compression::None { count_records(path, magic) } else { None };
    let reader = FramedReader::new(r, magic, name.clone(), c != Compression::None);
    Ok(order::in_order("framed", name, total, Box::new(reader)))
}

/// One hex block per line (blank lines are skipped); the offset of a block is its line number.
pub fn hex_lines(path: &Path) -> Result<Source, SourceError> {
    let name = display_name(path);
    let text = read_maybe_compressed(path)?;
    let text = String::from_utf8(text).map_err(|e| SourceError::Corrupt {
        at: Origin { file: name.clone(), offset: e.utf8_error().valid_up_to() as u64, decompressed: false },
        what: "not UTF-8 text".into(),
    })?;
    let mut blocks = Vec::new();
    let mut offset = 0u64;
    for line in text.split_inclusive('\n') {
        let at = Origin { file: name.clone(), offset, decompressed: false };
        offset += line.len() as u64;
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        match hex::decode(l) {
            Ok(bytes) if bytes.len() >= 80 => blocks.push(Ok(RawBlock { bytes, origin: at })),
            Ok(bytes) => {
                blocks.push(Err(SourceError::Corrupt {
                    at,
                    what: format!("{} bytes is too short for a block", bytes.len()),
                }));
                break;
            }
            Err(e) => {
                blocks.push(Err(SourceError::Corrupt { at, what: format!("bad hex: {e}") }));
                break;
            }
        }
    }
    let total = Some(blocks.iter().filter(|b| b.is_ok()).count() as u64);
    Ok(order::in_order("hex", name, total, Box::new(blocks.into_iter())))
}

// ---------------------------------------------------------------------------------------------
// Bitcoin Core blocks directory
// ---------------------------------------------------------------------------------------------

/// XORs `buf`, which starts at byte `offset` of its file, with the 8-byte key.
pub fn xor_at(buf: &mut [u8], offset: u64, key: &[u8; 8]) {
    if key == &[0; 8] {
        return;
    }
    for (i, b) in buf.iter_mut().enumerate() {
        *b ^= key[((offset + i as u64) % 8) as usize];
    }
}

/// [`scan_block_file`] over the file at `path`.
fn scan_headers(
    path: &Path,
    name: &str,
    magic: [u8; 4],
    key: &[u8; 8],
    notes: &mut Vec<String>,
) -> Result<Vec<(u64, u32, [u8; 80])>, SourceError> {
    let f = File::open(path).map_err(io_err(name))?;
    let file_len = f.metadata().map_err(io_err(name))?.len();
    scan_block_file(&mut BufReader::with_capacity(1 << 16, f), file_len, name, magic, key, notes)
}

/// Lists the records of one (obfuscated) block file without reading the blocks: the offset of
/// each record's magic, its length and its de-obfuscated 80-byte header. As Core's importer
/// (`LoadExternalBlockFile`): bytes that do not start a record are passed over up to the next
/// magic; a record whose length cannot be a block (under [`MIN_RECORD_BYTES`] or over
/// [`MAX_RECORD_BYTES`]) is passed over and the scan goes on from the byte after its magic; a
/// record or record header cut short by the end
/// of the file is ignored. Each of these is noted in `notes`, except runs of zero bytes (Core's
/// preallocated padding).
///
/// `r` reads the file, `file_len` bytes long; `name` is the file's name in notes and errors.
pub fn scan_block_file<R: Read + Seek>(
    r: &mut BufReader<R>,
    file_len: u64,
    name: &str,
    magic: [u8; 4],
    key: &[u8; 8],
    notes: &mut Vec<String>,
) -> Result<Vec<(u64, u32, [u8; 80])>, SourceError> {
    let at = |offset: u64| Origin { file: name.to_string(), offset, decompressed: false };
    let mut out = Vec::new();
    // `pos`: the next byte `r` reads. Bytes from `gap` on belong to no record; `nonzero` is the
    // first of them that is not zero.
    let (mut pos, mut gap, mut nonzero) = (0u64, 0u64, None::<u64>);
    let skipped = |notes: &mut Vec<String>, nonzero: Option<u64>, end: u64| {
        if let Some(nz) = nonzero.filter(|&nz| nz < end) {
            notes.push(format!(
                "{}: {} bytes that are not a block record skipped up to {}, as Core's importer does",
                at(nz),
                end - nz,
                if end < file_len { "the next magic" } else { "the end of the file" }
            ));
        }
    };
    loop {
        // The next magic, one de-obfuscated byte at a time.
        let mut window = [0u8; 4];
        let mut filled = 0usize;
        let start = loop {
            if pos >= file_len {
                skipped(notes, nonzero, file_len);
                return Ok(out);
            }
            let mut b = [0u8; 1];
            r.read_exact(&mut b).map_err(io_err(name))?;
            xor_at(&mut b, pos, key);
            if b[0] != 0 && pos >= gap && nonzero.is_none() {
                nonzero = Some(pos);
            }
            pos += 1;
            window.rotate_left(1);
            window[3] = b[0];
            filled += 1;
            if filled >= 4 && window == magic {
                break pos - 4;
            }
        };
        skipped(notes, nonzero, start);
        if file_len - start < 8 {
            notes.push(format!(
                "{}: a record header cut short by the end of the file ({} of 8 bytes); ignored, as \
                 Core's importer ignores it",
                at(start),
                file_len - start
            ));
            return Ok(out);
        }
        let mut len = [0u8; 4];
        r.read_exact(&mut len).map_err(io_err(name))?;
        xor_at(&mut len, start + 4, key);
        let len = u32::from_le_bytes(len);
        if let Some(why) = unreadable_length(len) {
            notes.push(format!(
                "{}: {why}; skipped, and the scan goes on after its magic, as Core's importer does",
                at(start)
            ));
            pos = start + 1;
            r.seek(SeekFrom::Start(pos)).map_err(io_err(name))?;
            (gap, nonzero) = (start + 8, None);
            continue;
        }
        if file_len - start - 8 < u64::from(len) {
            notes.push(format!(
                "{}: a block record cut short by the end of the file ({} of {len} bytes); ignored, \
                 as Core's importer ignores it",
                at(start),
                file_len - start - 8
            ));
            return Ok(out);
        }
        let mut header = [0u8; 80];
        r.read_exact(&mut header).map_err(io_err(name))?;
        xor_at(&mut header, start + 8, key);
        r.seek_relative(i64::from(len) - 80).map_err(io_err(name))?;
        pos = start + 8 + u64::from(len);
        (gap, nonzero) = (pos, None);
        out.push((start, len, header));
    }
}

/// Work represented by a header's compact target: about 2^256 / (target + 1), as Core's
/// `GetBlockProof`, computed in 128 bits (saturating; exact for every real difficulty).
pub fn header_work(bits: u32) -> u128 {
    let exp = bits >> 24;
    let mant = u128::from(bits & 0x007f_ffff);
    if mant == 0 || bits & 0x0080_0000 != 0 {
        return 0;
    }
    // target = mant * 256^(exp - 3); work ≈ 2^(256 - 8(exp-3)) / mant.
    let shift = 256i64 - 8 * (i64::from(exp) - 3);
    if shift <= 0 {
        return 1;
    }
    let shift = shift as u32;
    if shift <= 127 {
        ((1u128 << shift) / mant).max(1)
    } else {
        let base = (1u128 << 127) / mant;
        let extra = shift - 127;
        if base.leading_zeros() <= extra {
            u128::MAX
        } else {
            base << extra
        }
    }
}

struct Located {
    prev: [u8; 32],
    work: u128,
    file: usize,
    /// Offset of the payload (after magic and length).
    offset: u64,
    len: u32,
    header: [u8; 80],
}

/// One block of a Bitcoin Core blocks directory's best chain, located but not read.
#[derive(Clone, Debug)]
pub struct LocatedBlock {
    /// Index of its file in [`CoreChain::files`].
    pub file: usize,
    /// Offset of the block's bytes in the file (after the record's magic and length).
    pub offset: u64,
    /// Its length in bytes.
    pub len: u32,
    /// Its header, de-obfuscated.
    pub header: [u8; 80],
    /// Its hash (internal byte order).
    pub hash: [u8; 32],
}

/// The most-work chain of a Bitcoin Core blocks directory, from its headers: where each block
/// is, and how to read it.
#[derive(Clone, Debug)]
pub struct CoreChain {
    /// The directory's display name.
    pub dir_name: String,
    /// The blk/rev obfuscation key (`xor.dat`; zero without one).
    pub key: [u8; 8],
    /// The blk*.dat files, by number.
    pub files: Vec<PathBuf>,
    /// Their display names.
    pub names: Vec<String>,
    /// The chain from genesis (`[h]` = the block at height h).
    pub blocks: Vec<LocatedBlock>,
    /// Hashes of the blocks with more than one child among the directory's headers (where the
    /// undo records of two children can share a checksum's parent).
    pub fork_parents: std::collections::HashSet<[u8; 32]>,
    /// What the scan passed over, as Core's importer would (see [`Notes`]): bytes and records
    /// that are not readable blocks, second copies of blocks, blocks that do not descend from
    /// the genesis block, blocks off the most-work chain.
    pub notes: Vec<String>,
    /// The network's genesis block, when no file holds it but a stored block is its child (a
    /// chaingen corpus, whose files start at height 1): block 0 is read from here.
    pub genesis: Option<Vec<u8>>,
}

impl CoreChain {
    /// Indexes the blocks directory `dir` for the network of `params`: the headers of every
    /// blk file, then the most-work chain from genesis (the first header to reach the most work
    /// wins). Without the genesis block in the files, a chain starting at its child is read with
    /// the network's genesis block in front ([`CoreChain::genesis`]).
    pub fn open(dir: &Path, params: &ChainParams) -> Result<CoreChain, SourceError> {
        let (magic, genesis) = (params.magic, params.genesis_hash);
        let dir_name = display_name(dir);
        let key = read_xor_key(dir, &dir_name)?;
        let files = blk_files(dir)?;
        let names: Vec<String> = files
            .iter()
            .map(|p| format!("{dir_name}/{}", p.file_name().unwrap_or_default().to_string_lossy()))
            .collect();
        let mut index: HashMap<[u8; 32], Located> = HashMap::new();
        let mut children: HashMap<[u8; 32], Vec<[u8; 32]>> = HashMap::new();
        let mut notes = Vec::new();
        let mut copies = 0u64;
        for (fi, path) in files.iter().enumerate() {
            for (offset, len, header) in scan_headers(path, &names[fi], magic, &key, &mut notes)? {
                let hash = sha256d(&header);
                if let Some(first) = index.get(&hash) {
                    // Core's importer skips a block it already has.
                    copies += 1;
                    if copies <= 10 {
                        notes.push(format!(
                            "{} at byte {offset}: a second copy of block {} (first at {} byte {}); ignored, \
                             as Core ignores a block it already has",
                            names[fi],
                            display_hash(&hash),
                            names[first.file],
                            first.offset - 8
                        ));
                    }
                    continue;
                }
                let prev: [u8; 32] = header[4..36].try_into().expect("32 bytes");
                let bits = u32::from_le_bytes(header[72..76].try_into().expect("4 bytes"));
                let work = header_work(bits);
                index.insert(hash, Located { prev, work, file: fi, offset: offset + 8, len, header });
                children.entry(prev).or_default().push(hash);
            }
        }
        let mut implied = None;
        if let std::collections::hash_map::Entry::Vacant(slot) = index.entry(genesis) {
            if !children.contains_key(&genesis) {
                return Err(SourceError::Corrupt {
                    at: Origin { file: dir_name, offset: 0, decompressed: false },
                    what: format!(
                        "the genesis block {} of this network is not in the directory, nor is a block \
                         that follows it",
                        display_hash(&genesis)
                    ),
                });
            }
            let raw = crate::replay::block_bytes(&params.genesis_block());
            let header: [u8; 80] = raw[..80].try_into().expect("80-byte header");
            let work = header_work(u32::from_le_bytes(header[72..76].try_into().expect("4 bytes")));
            let len = raw.len() as u32;
            slot.insert(Located { prev: [0; 32], work, file: 0, offset: 0, len, header });
            implied = Some(raw);
        }
        // Cumulative work from genesis, breadth first; the first header to reach the maximum wins.
        let mut best = (index[&genesis].work, genesis);
        let mut total_work: HashMap<[u8; 32], u128> = HashMap::new();
        total_work.insert(genesis, index[&genesis].work);
        let mut queue = std::collections::VecDeque::from([genesis]);
        while let Some(h) = queue.pop_front() {
            let w = total_work[&h];
            if w > best.0 {
                best = (w, h);
            }
            for c in children.get(&h).into_iter().flatten() {
                total_work.insert(*c, w.saturating_add(index[c].work));
                queue.push_back(*c);
            }
        }
        let mut chain = vec![best.1];
        while *chain.last().expect("non-empty") != genesis {
            chain.push(index[chain.last().expect("non-empty")].prev);
        }
        chain.reverse();
        if copies > 10 {
            notes.push(format!("{} more second copies of blocks ignored", copies - 10));
        }
        // Blocks whose parent never turned up (Core keeps them aside, unconnected), and forks
        // with less work (Core stores them off its active chain): each kind noted once, at its
        // first block in file order, with a count.
        let first = |it: Box<dyn Iterator<Item = &[u8; 32]> + '_>| {
            let mut n = 0u64;
            let mut min: Option<(usize, u64, [u8; 32])> = None;
            for h in it {
                n += 1;
                let l = &index[h];
                if min.is_none_or(|m| (l.file, l.offset) < (m.0, m.1)) {
                    min = Some((l.file, l.offset, *h));
                }
            }
            min.map(|(f, o, h)| (n, format!("{} at byte {}", names[f], o - 8), display_hash(&h)))
        };
        let unlinked = index.keys().filter(|h| !total_work.contains_key(*h));
        if let Some((n, at, hash)) =
            (index.len() > total_work.len()).then(|| first(Box::new(unlinked))).flatten()
        {
            notes.push(format!(
                "{at}: block {hash} does not descend from the genesis block (a parent is missing from the \
                 directory; {n} such blocks in all); not replayed, as Core keeps such blocks aside"
            ));
        }
        // The first blocks of the forks: children of a chain block other than the next one.
        let fork_roots = chain.iter().enumerate().flat_map(|(i, h)| {
            let next = chain.get(i + 1);
            children.get(h).into_iter().flatten().filter(move |c| Some(*c) != next)
        });
        if let Some((_, at, hash)) = first(Box::new(fork_roots)) {
            notes.push(format!(
                "{at}: block {hash} starts a fork without the most work ({} blocks off the chain in \
                 all); not replayed, as Core keeps them off its active chain",
                total_work.len() - chain.len()
            ));
        }
        let blocks = chain
            .iter()
            .map(|h| {
                let l = &index[h];
                LocatedBlock { file: l.file, offset: l.offset, len: l.len, header: l.header, hash: *h }
            })
            .collect();
        let fork_parents = children.iter().filter(|(_, c)| c.len() > 1).map(|(p, _)| *p).collect();
        Ok(CoreChain { dir_name, key, files, names, blocks, fork_parents, notes, genesis: implied })
    }

    /// Where block `b` was found, for messages.
    pub fn origin(&self, b: &LocatedBlock) -> Origin {
        if self.is_implied(b) {
            let file = format!("{} (the network's genesis block, not in the directory)", self.dir_name);
            return Origin { file, offset: 0, decompressed: false };
        }
        Origin { file: self.names[b.file].clone(), offset: b.offset - 8, decompressed: false }
    }

    /// Whether `b` is the genesis block put in front of a directory that does not hold it.
    fn is_implied(&self, b: &LocatedBlock) -> bool {
        self.genesis.is_some() && b.hash == self.blocks[0].hash
    }

    /// The block at `height`, read through `open` (the blk file opened last, kept open for
    /// the next read and replaced when the block is in another one).
    pub fn read_at(&self, open: &mut Option<(usize, File)>, height: u32) -> Result<Vec<u8>, SourceError> {
        let b = &self.blocks[height as usize];
        if let Some(g) = self.genesis.as_ref().filter(|_| height == 0) {
            return Ok(g.clone());
        }
        if open.as_ref().is_none_or(|(i, _)| *i != b.file) {
            *open = Some((b.file, self.open_file(b.file)?));
        }
        self.read_block(&mut open.as_mut().expect("opened").1, b)
    }

    /// Reads and de-obfuscates block `b` through `file` (an open handle of its blk file).
    pub fn read_block(&self, file: &mut File, b: &LocatedBlock) -> Result<Vec<u8>, SourceError> {
        let mut bytes = vec![0u8; b.len as usize];
        file.seek(SeekFrom::Start(b.offset)).map_err(io_err(&self.names[b.file]))?;
        file.read_exact(&mut bytes).map_err(|_| SourceError::Corrupt {
            at: self.origin(b),
            what: "block record changed or truncated since it was indexed".into(),
        })?;
        xor_at(&mut bytes, b.offset, &self.key);
        Ok(bytes)
    }

    /// Opens blk file `fi`.
    pub fn open_file(&self, fi: usize) -> Result<File, SourceError> {
        File::open(&self.files[fi]).map_err(io_err(&self.names[fi]))
    }
}

/// The obfuscation key of the blocks directory `dir` (`xor.dat`, or zero without one).
fn read_xor_key(dir: &Path, dir_name: &str) -> Result<[u8; 8], SourceError> {
    match std::fs::read(dir.join("xor.dat")) {
        Ok(k) if k.len() == 8 => Ok(k.try_into().expect("8 bytes")),
        Ok(k) => Err(SourceError::Corrupt {
            at: Origin { file: format!("{dir_name}/xor.dat"), offset: 0, decompressed: false },
            what: format!("{} bytes, expected an 8-byte key", k.len()),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok([0; 8]),
        Err(error) => Err(SourceError::Io { path: format!("{dir_name}/xor.dat"), error }),
    }
}

/// The files of a blocks directory, sorted by their number.
fn blk_files(dir: &Path) -> Result<Vec<PathBuf>, SourceError> {
    let name = display_name(dir);
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map_err(io_err(&name))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let f = e.file_name().to_string_lossy().into_owned();
            let num = f.strip_prefix("blk")?.strip_suffix(".dat")?.parse::<u64>().ok()?;
            Some((num, e.path()))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(SourceError::Io {
            path: name,
            error: io::Error::new(io::ErrorKind::NotFound, "no blk*.dat files"),
        });
    }
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

/// A generated corpus (see `crate::chaingen`): its `blk*.dat` files read in order as one framed
/// stream (the blocks are written in chain order, so no index is rebuilt).
pub fn corpus(dir: &Path, magic: [u8; 4]) -> Result<Source, SourceError> {
    let name = display_name(dir);
    let files = blk_files(dir)?;
    let mut total = Some(0u64);
    for f in &files {
        total = total.zip(count_records(f, magic)).map(|(a, b)| a + b);
    }
    let blocks = files.into_iter().flat_map(move |path| {
        let file = format!(
            "{}/{}",
            display_name(dir_of(&path)),
            path.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned())
        );
        let opened: Box<dyn Iterator<Item = Result<RawBlock, SourceError>> + Send> =
            match std::fs::File::open(&path) {
                Ok(f) => {
                    Box::new(FramedReader::new(io::BufReader::with_capacity(1 << 20, f), magic, file, false))
                }
                Err(error) => Box::new(std::iter::once(Err(SourceError::Io { path: file, error }))),
            };
        opened
    });
    Ok(order::in_order("corpus", name, total, Box::new(blocks)))
}

fn dir_of(p: &Path) -> &Path {
    p.parent().unwrap_or(p)
}

/// A Bitcoin Core blocks directory: the most-work chain from `genesis` found in its files
/// ([`CoreChain::open`]), block after block.
pub fn core_blocks(dir: &Path, params: &ChainParams) -> Result<Source, SourceError> {
    let chain = CoreChain::open(dir, params)?;
    let total = Some(chain.blocks.len() as u64);
    let name = chain.dir_name.clone();
    let notes = Notes::default();
    for n in &chain.notes {
        notes.push(n.clone());
    }
    let mut open: Option<(usize, File)> = None;
    let mut next = 0u32;
    let blocks = std::iter::from_fn(move || {
        let b = chain.blocks.get(next as usize)?;
        let read = chain.read_at(&mut open, next).map(|bytes| RawBlock { bytes, origin: chain.origin(b) });
        next += 1;
        Some(read)
    });
    Ok(Source { kind: "core-blocks", name, total, notes, blocks: Box::new(blocks) })
}

/// A hash in display order (byte-reversed hex), as block explorers and Core print it.
pub fn display_hash(h: &[u8; 32]) -> String {
    let mut r = *h;
    r.reverse();
    hex::encode(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole-file zstd: frames that state their size and frames that do not, several frames,
    /// a ratio beyond the one-pass guess (streamed instead) and long-distance matching all
    /// give back the input.
    #[test]
    fn zstd_whole_round_trips() {
        let varied: Vec<u8> =
            (0u32..300_000).flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 13).to_le_bytes()).collect();
        let zeros = vec![0u8; 4 << 20];
        for data in [&varied[..], &zeros[..], &[][..], b"x"] {
            // A frame stating its size.
            let stated = zstd::bulk::compress(data, 3).unwrap();
            assert_eq!(zstd_whole(&stated).unwrap(), data);
            // Streamed frames state no size; with --long's 128 MiB window.
            let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            e.long_distance_matching(true).unwrap();
            e.window_log(27).unwrap();
            std::io::Write::write_all(&mut e, data).unwrap();
            let streamed = e.finish().unwrap();
            if data.len() > 1 {
                assert_eq!(zstd::zstd_safe::get_frame_content_size(&streamed).ok().flatten(), None);
            }
            assert_eq!(zstd_whole(&streamed).unwrap(), data);
            // Two frames.
            let mut two = stated.clone();
            two.extend_from_slice(&streamed);
            assert_eq!(zstd_whole(&two).unwrap(), [data, data].concat());
        }
        // Zeros compress far beyond 32 times: streamed, still whole.
        let mut e = zstd::stream::Encoder::new(Vec::new(), 19).unwrap();
        std::io::Write::write_all(&mut e, &zeros).unwrap();
        let z = e.finish().unwrap();
        assert!(z.len() * 32 < zeros.len());
        assert_eq!(zstd_whole(&z).unwrap(), zeros);
        // A truncated file is an error.
        assert!(zstd_whole(&z[..z.len() - 1]).is_err());
    }

    fn record(magic: [u8; 4], payload: &[u8]) -> Vec<u8> {
        let mut v = magic.to_vec();
        v.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn framed_records_with_padding_and_truncation() {
        let m = [0xfa, 0xbf, 0xb5, 0xda];
        let a = vec![1u8; 81];
        let b = vec![2u8; 90];
        let mut data = record(m, &a);
        data.extend_from_slice(&[0; 5]);
        data.extend_from_slice(&record(m, &b));
        data.extend_from_slice(&[0; 16]);
        let got: Vec<_> = FramedReader::new(&data[..], m, "f".into(), false).collect();
        assert_eq!(got.len(), 2);
        let g1 = got[1].as_ref().unwrap();
        assert_eq!((g1.bytes.clone(), g1.origin.offset), (b.clone(), 94));
        // Cut inside the second block.
        let cut = &data[..94 + 8 + 40];
        let got: Vec<_> = FramedReader::new(cut, m, "f.dat".into(), false).collect();
        let e = got[1].as_ref().unwrap_err().to_string();
        assert_eq!(e, "f.dat at byte 94: truncated block record: 40 of 90 bytes");
        // Wrong magic.
        let got: Vec<_> = FramedReader::new(&data[..], [0xf9, 0xbe, 0xb4, 0xd9], "g".into(), false).collect();
        assert!(got[0].as_ref().unwrap_err().to_string().contains("expected network magic f9beb4d9"));
    }

    /// The count of a framed file's records, read from their heads alone: blocks larger and
    /// smaller than a read buffer, the zeros a block file ends with, a truncated last record
    /// (counted: the reader reports it), and `None` for a file that is not framed with `magic`.
    #[test]
    fn records_counted_from_their_heads() {
        let m = [0xfa, 0xbf, 0xb5, 0xda];
        let dir = std::env::temp_dir().join(format!("fullverify-count-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("blk00000.dat");
        let mut data = Vec::new();
        for (i, len) in [81usize, 20_000, 0, 8_192, 1, 100_000, 7].into_iter().enumerate() {
            data.extend_from_slice(&record(m, &vec![i as u8; len]));
        }
        let count = |bytes: &[u8], magic| {
            std::fs::write(&path, bytes).unwrap();
            count_records(&path, magic)
        };
        assert_eq!(count(&data, m), Some(7));
        assert_eq!(count(&data[..0], m), Some(0));
        assert_eq!(count(&data[..data.len() - 3], m), Some(7));
        assert_eq!(count(&data[..8 + 81 + 4], m), Some(1));
        let mut padded = data.clone();
        padded.extend_from_slice(&[0; 4096]);
        assert_eq!(count(&padded, m), Some(7));
        assert_eq!(count(&data, [0xf9, 0xbe, 0xb4, 0xd9]), None);
        let mut junk = data.clone();
        junk[8 + 81] ^= 1;
        assert_eq!(count(&junk, m), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn xor_by_file_offset() {
        let key = [1, 2, 3, 4, 5, 6, 7, 8];
        let data: Vec<u8> = (0..40).collect();
        let mut whole = data.clone();
        xor_at(&mut whole, 0, &key);
        let mut tail = data[13..].to_vec();
        xor_at(&mut tail, 13, &key);
        assert_eq!(&whole[13..], &tail[..]);
        xor_at(&mut whole, 0, &key);
        assert_eq!(whole, data);
    }

    #[test]
    fn scan_of_an_obfuscated_block_file() {
        let m = [0xf9, 0xbe, 0xb4, 0xd9];
        let key = [9, 8, 7, 6, 5, 4, 3, 2];
        let (a, b) = ((0..100u8).collect::<Vec<_>>(), vec![3u8; 120]);
        let mut data = record(m, &a);
        data.extend_from_slice(&[0; 3]);
        data.extend_from_slice(&record(m, &b));
        data.extend_from_slice(&[0; 64]);
        let mut file = data.clone();
        xor_at(&mut file, 0, &key);
        let path = std::env::temp_dir().join(format!("fv-scan-{}.dat", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let mut notes = Vec::new();
        let got = scan_headers(&path, "blk00000.dat", m, &key, &mut notes).unwrap();
        assert_eq!(got.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>(), [(0, 100), (111, 120)]);
        assert_eq!(&got[0].2[..], &a[..80]);
        assert_eq!(&got[1].2[..], &b[..80]);
        // Zero padding is not noted.
        assert!(notes.is_empty(), "{notes:?}");
        // Cut inside the second record: ignored, as Core's importer does, and noted.
        std::fs::write(&path, &file[..111 + 8 + 90]).unwrap();
        let got = scan_headers(&path, "blk00000.dat", m, &key, &mut notes).unwrap();
        assert_eq!(got.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>(), [(0, 100)]);
        assert_eq!(
            notes,
            ["blk00000.dat at byte 111: a block record cut short by the end of the file (90 of 120 \
              bytes); ignored, as Core's importer ignores it"]
        );
        // Garbage, a record of length 0 and one of 2 GiB before the second record: each passed
        // over up to the next magic.
        let mut data = record(m, &a);
        data.extend_from_slice(b"garbage");
        data.extend_from_slice(&m);
        data.extend_from_slice(&0u32.to_le_bytes());
        data.extend_from_slice(&m);
        data.extend_from_slice(&0x8000_0000u32.to_le_bytes());
        data.extend_from_slice(&record(m, &b));
        data.extend_from_slice(&[0xff; 3]);
        let mut file = data.clone();
        xor_at(&mut file, 0, &key);
        std::fs::write(&path, &file).unwrap();
        notes.clear();
        let got = scan_headers(&path, "blk00000.dat", m, &key, &mut notes).unwrap();
        assert_eq!(got.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>(), [(0, 100), (131, 120)]);
        assert_eq!(
            notes,
            [
                "blk00000.dat at byte 108: 7 bytes that are not a block record skipped up to the next \
                 magic, as Core's importer does",
                "blk00000.dat at byte 115: record length 0 is shorter than a block header (80 bytes); \
                 skipped, and the scan goes on after its magic, as Core's importer does",
                "blk00000.dat at byte 123: record length 2147483648 is above 33554432 bytes, the most \
                 Core reads as one block (MAX_SIZE); skipped, and the scan goes on after its magic, as \
                 Core's importer does",
                "blk00000.dat at byte 259: 3 bytes that are not a block record skipped up to the end of \
                 the file, as Core's importer does",
            ]
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn work_of_compact_targets() {
        // Difficulty 1 (mainnet genesis): 2^256 / (0xffff * 2^208 + 1) = 0x100010001.
        assert_eq!(header_work(0x1d00ffff), 0x1_0001_0001);
        // Regtest's minimum difficulty: 2, as Core's GetBlockProof.
        assert_eq!(header_work(0x207fffff), 2);
        assert!(header_work(0x1b0404cb) > header_work(0x1d00ffff));
        assert_eq!(header_work(0x1d800000), 0);
    }
}
