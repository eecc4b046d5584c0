// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP 456 "Elias-Fano Serialization": one block's strictly increasing output indices.
//!
//! ```text
//! N = 0 : 00
//! N > 0 : CompactSize(N) ‖ CompactSize(M) ‖ L ‖ H
//!         M = greatest index, ℓ = ⌊log2((M + 1) / N)⌋
//!         L = ⌈N·ℓ / 8⌉ bytes: the low ℓ bits of each index, in index order
//!         H = ⌈(N + ⌊M / 2^ℓ⌋) / 8⌉ bytes: bit (⌊i_j / 2^ℓ⌋ + j) set for each index i_j
//! ```
//!
//! Bit order (fixed by the BIP's `elias_fano.json` vectors, which the prose leaves open): both
//! bit strings fill each byte from its most significant bit down (stream bit `p` is
//! `byte[p / 8] & (0x80 >> p % 8)`), and each ℓ-bit low part is emitted least significant bit
//! first. Unused bits of the last byte of `L` and of `H` are zero.

use crate::encode::{write_compact_size, DecodeError, Reader};
use core::fmt;

/// Why one block's Elias–Fano record is malformed or does not fit the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The record ends early: `needed` more bytes were required, `remaining` were left.
    Truncated {
        /// Bytes the next field needs.
        needed: u64,
        /// Bytes that were left.
        remaining: usize,
    },
    /// `N` or `M` is a CompactSize in a longer form than its value needs.
    NonCanonicalCompactSize,
    /// `N` or `M` is above the 32-bit range BIP 456 gives them.
    ValueTooLarge(u64),
    /// More indices than the writer can count in 32 bits.
    TooManyIndices(usize),
    /// `N` strictly increasing indices cannot all be at most `M` (`N > M + 1`).
    CountExceedsRange {
        /// The record's `N`.
        n: u32,
        /// The record's `M`.
        m: u32,
    },
    /// `H` holds `ones` set bits where the record announces `n` indices.
    HighBitsCount {
        /// Set bits found in `H`.
        ones: u64,
        /// The record's `N`.
        n: u32,
    },
    /// Bits past the end of `L` or `H` in their last byte are not zero.
    NonZeroPadding {
        /// `"L"` or `"H"`.
        field: &'static str,
    },
    /// Index `position` is not greater than the one before it.
    NotIncreasing {
        /// Position of the offending index in the list.
        position: usize,
        /// The index before it.
        previous: u32,
        /// The offending index.
        index: u32,
    },
    /// The greatest decoded index differs from the record's `M`.
    MaxMismatch {
        /// The record's `M`.
        m: u32,
        /// The last decoded index.
        last: u32,
    },
    /// An index names an output the block does not have.
    IndexOutOfRange {
        /// The offending index.
        index: u32,
        /// The block's number of counted (spendable) outputs.
        outputs: u32,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Truncated { needed, remaining } => {
                write!(f, "record truncated: {needed} more bytes needed, {remaining} left")
            }
            RecordError::NonCanonicalCompactSize => write!(f, "non-canonical CompactSize for N or M"),
            RecordError::ValueTooLarge(v) => write!(f, "N or M is {v}, above the 32-bit range"),
            RecordError::TooManyIndices(n) => write!(f, "{n} indices do not fit a 32-bit count"),
            RecordError::CountExceedsRange { n, m } => {
                write!(f, "{n} strictly increasing indices cannot all be at most M = {m}")
            }
            RecordError::HighBitsCount { ones, n } => {
                write!(f, "high bits hold {ones} terminators for N = {n} indices")
            }
            RecordError::NonZeroPadding { field } => write!(f, "padding bits of {field} are not zero"),
            RecordError::NotIncreasing { position, previous, index } => write!(
                f,
                "indices out of order: index {index} at position {position} is not above {previous}"
            ),
            RecordError::MaxMismatch { m, last } => {
                write!(f, "greatest index {last} differs from the record's M = {m}")
            }
            RecordError::IndexOutOfRange { index, outputs } => {
                write!(f, "index {index} out of range: the block has {outputs} spendable outputs")
            }
        }
    }
}

impl std::error::Error for RecordError {}

fn decode_error(e: DecodeError) -> RecordError {
    match e {
        DecodeError::UnexpectedEnd { needed, remaining } => RecordError::Truncated { needed, remaining },
        DecodeError::NonCanonicalCompactSize => RecordError::NonCanonicalCompactSize,
        // compact_size_unchecked returns only the two errors above.
        _ => RecordError::NonCanonicalCompactSize,
    }
}

/// A canonical CompactSize that fits 32 bits.
fn read_u32(r: &mut Reader<'_>) -> Result<u32, RecordError> {
    let v = r.compact_size_unchecked().map_err(decode_error)?;
    u32::try_from(v).map_err(|_| RecordError::ValueTooLarge(v))
}

/// ℓ = ⌊log2((M + 1) / N)⌋ for `1 ≤ N ≤ M + 1` (0 ≤ ℓ ≤ 32).
#[inline]
pub fn low_bit_width(n: u32, m: u32) -> u32 {
    debug_assert!(n >= 1 && u64::from(n) <= u64::from(m) + 1);
    ((u64::from(m) + 1) / u64::from(n)).ilog2()
}

/// Byte lengths of `L` and `H` and the bit count of `H` for `N`, `M` and `ℓ`.
#[inline]
fn field_lengths(n: u32, m: u32, l: u32) -> (usize, usize, u64) {
    let low_bits = u64::from(n) * u64::from(l);
    let high_bits = u64::from(n) + (u64::from(m) >> l);
    (low_bits.div_ceil(8) as usize, high_bits.div_ceil(8) as usize, high_bits)
}

/// ORs the `nbits` most significant bits of `window` into `buf` from stream bit `p` on.
#[inline]
fn or_bits(buf: &mut [u8], p: usize, window: u64, nbits: u32) {
    let shifted = window >> (p % 8);
    let bytes = ((p % 8) as u32 + nbits).div_ceil(8) as usize;
    for (k, b) in shifted.to_be_bytes()[..bytes].iter().enumerate() {
        buf[p / 8 + k] |= b;
    }
}

/// The ℓ-bit low part stored from stream bit `p` (least significant bit first).
#[inline]
fn low_part(low: &[u8], p: usize, l: u32) -> u32 {
    if l == 0 {
        return 0;
    }
    let mut w = [0u8; 8];
    let start = p / 8;
    let end = (start + 8).min(low.len());
    w[..end - start].copy_from_slice(&low[start..end]);
    let window = u64::from_be_bytes(w) << (p % 8);
    (window.reverse_bits() & ((1u64 << l) - 1)) as u32
}

/// Appends the BIP 456 record of `indices` (strictly increasing) to `out`.
///
/// Nothing is appended on error.
pub fn encode_indices(indices: &[u32], out: &mut Vec<u8>) -> Result<(), RecordError> {
    let Some(&m) = indices.last() else {
        out.push(0);
        return Ok(());
    };
    for (j, w) in indices.windows(2).enumerate() {
        if w[1] <= w[0] {
            return Err(RecordError::NotIncreasing { position: j + 1, previous: w[0], index: w[1] });
        }
    }
    let n = u32::try_from(indices.len()).map_err(|_| RecordError::TooManyIndices(indices.len()))?;
    let l = low_bit_width(n, m);
    let (low_len, high_len, _) = field_lengths(n, m, l);
    write_compact_size(out, n.into());
    write_compact_size(out, m.into());
    let base = out.len();
    out.resize(base + low_len + high_len, 0);
    let (low, high) = out[base..].split_at_mut(low_len);
    let mask = ((1u64 << l) - 1) as u32;
    for (j, &i) in indices.iter().enumerate() {
        if l > 0 {
            // Bit t of the low part goes to stream bit j·ℓ + t: reverse, then top-align.
            let rev = u64::from(i & mask).reverse_bits();
            or_bits(low, j * l as usize, rev, l);
        }
        let pos = (u64::from(i) >> l) as usize + j;
        high[pos / 8] |= 0x80 >> (pos % 8);
    }
    Ok(())
}

/// The length of the record at the start of `bytes`, from `N` and `M` alone (no bit checks).
pub fn record_len(bytes: &[u8]) -> Result<usize, RecordError> {
    let mut r = Reader::new(bytes);
    let n = read_u32(&mut r)?;
    if n == 0 {
        return Ok(r.position());
    }
    let m = read_u32(&mut r)?;
    if u64::from(n) > u64::from(m) + 1 {
        return Err(RecordError::CountExceedsRange { n, m });
    }
    let (low_len, high_len, _) = field_lengths(n, m, low_bit_width(n, m));
    r.bytes((low_len + high_len) as u64).map_err(decode_error)?;
    Ok(r.position())
}

/// One block's validated hints: a view over its BIP 456 record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHints<'a> {
    n: u32,
    m: u32,
    l: u32,
    low: &'a [u8],
    high: &'a [u8],
    encoded: &'a [u8],
}

impl<'a> BlockHints<'a> {
    /// Parses and fully checks the record at the start of `bytes`; returns it and its length.
    ///
    /// Checked: canonical 32-bit `N` and `M`, `N ≤ M + 1`, the field lengths, zero padding,
    /// exactly `N` terminators in `H`, strictly increasing indices, and a last index equal to
    /// `M`. So every record has exactly one accepted encoding, the one [`encode_indices`]
    /// writes.
    pub fn parse(bytes: &'a [u8]) -> Result<(BlockHints<'a>, usize), RecordError> {
        let mut r = Reader::new(bytes);
        let n = read_u32(&mut r)?;
        if n == 0 {
            let len = r.position();
            let empty = BlockHints { n: 0, m: 0, l: 0, low: &[], high: &[], encoded: &bytes[..len] };
            return Ok((empty, len));
        }
        let m = read_u32(&mut r)?;
        if u64::from(n) > u64::from(m) + 1 {
            return Err(RecordError::CountExceedsRange { n, m });
        }
        let l = low_bit_width(n, m);
        let (low_len, high_len, high_bits) = field_lengths(n, m, l);
        let low = r.bytes(low_len as u64).map_err(decode_error)?;
        let high = r.bytes(high_len as u64).map_err(decode_error)?;
        let len = r.position();
        let hints = BlockHints { n, m, l, low, high, encoded: &bytes[..len] };
        hints.check(high_bits)?;
        Ok((hints, len))
    }

    fn check(&self, high_bits: u64) -> Result<(), RecordError> {
        let pad_ok = |bytes: &[u8], bits: u64| {
            let used = (bits % 8) as u32;
            used == 0 || bytes.last().is_none_or(|&b| b & (0xffu8 >> used) == 0)
        };
        if !pad_ok(self.low, u64::from(self.n) * u64::from(self.l)) {
            return Err(RecordError::NonZeroPadding { field: "L" });
        }
        if !pad_ok(self.high, high_bits) {
            return Err(RecordError::NonZeroPadding { field: "H" });
        }
        let ones: u64 = self.high.iter().map(|b| u64::from(b.count_ones())).sum();
        if ones != u64::from(self.n) {
            return Err(RecordError::HighBitsCount { ones, n: self.n });
        }
        let mut prev: Option<u32> = None;
        for (position, index) in self.iter().enumerate() {
            if let Some(previous) = prev.filter(|&p| index <= p) {
                return Err(RecordError::NotIncreasing { position, previous, index });
            }
            prev = Some(index);
        }
        match prev {
            Some(last) if last != self.m => Err(RecordError::MaxMismatch { m: self.m, last }),
            _ => Ok(()),
        }
    }

    /// Number of indices (`N`).
    pub fn len(&self) -> usize {
        self.n as usize
    }

    /// Whether the block keeps no output.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The greatest index (`M`), if any.
    pub fn max(&self) -> Option<u32> {
        (self.n > 0).then_some(self.m)
    }

    /// The low-part width ℓ (0 for an empty record).
    pub fn low_bits(&self) -> u32 {
        self.l
    }

    /// The record's bytes as read.
    pub fn encoded(&self) -> &'a [u8] {
        self.encoded
    }

    /// The `j`-th index (0-based), found by a select on `H`; `None` past the end.
    pub fn get(&self, j: usize) -> Option<u32> {
        if j >= self.len() {
            return None;
        }
        let mut seen = 0usize;
        for (b, &byte) in self.high.iter().enumerate() {
            let ones = byte.count_ones() as usize;
            if seen + ones > j {
                let mut x = byte;
                for _ in 0..j - seen {
                    x &= !(0x80u8 >> x.leading_zeros());
                }
                let pos = b * 8 + x.leading_zeros() as usize;
                return Some(self.compose(j, pos));
            }
            seen += ones;
        }
        None
    }

    #[inline]
    fn compose(&self, j: usize, high_pos: usize) -> u32 {
        let high = (high_pos - j) as u64;
        ((high << self.l) | u64::from(low_part(self.low, j * self.l as usize, self.l))) as u32
    }

    /// The indices in increasing order.
    pub fn iter(&self) -> Indices<'a> {
        Indices { hints: *self, j: 0, word_base: 0, word: 0, next_byte: 0 }
    }

    /// The indices collected.
    pub fn to_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }

    /// Checks that every index names one of the block's `outputs` counted outputs.
    pub fn check_outputs(&self, outputs: u32) -> Result<(), RecordError> {
        match self.max() {
            Some(index) if index >= outputs => Err(RecordError::IndexOutOfRange { index, outputs }),
            _ => Ok(()),
        }
    }
}

/// Iterator over a record's indices (sequential decode, eight `H` bytes at a time).
#[derive(Clone, Debug)]
pub struct Indices<'a> {
    hints: BlockHints<'a>,
    j: usize,
    word_base: usize,
    word: u64,
    next_byte: usize,
}

impl Iterator for Indices<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.j >= self.hints.len() {
            return None;
        }
        while self.word == 0 {
            let high = self.hints.high;
            if self.next_byte >= high.len() {
                return None; // unreachable for a parsed record (N terminators present)
            }
            let end = (self.next_byte + 8).min(high.len());
            let mut w = [0u8; 8];
            w[..end - self.next_byte].copy_from_slice(&high[self.next_byte..end]);
            self.word = u64::from_be_bytes(w);
            self.word_base = self.next_byte * 8;
            self.next_byte = end;
        }
        let lz = self.word.leading_zeros();
        self.word &= !(1u64 << 63 >> lz);
        let v = self.hints.compose(self.j, self.word_base + lz as usize);
        self.j += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.hints.len() - self.j;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Indices<'_> {}
