// SPDX-License-Identifier: MIT OR Apache-2.0
//! Consensus encoding: bounded readers, canonical CompactSize, transactions, headers, blocks.
//!
//! Every read checks the requested length against the bytes that remain *before* it touches
//! them (`remaining < n` is tested, `pos + n` is never formed unchecked), and every vector's
//! capacity is capped by what the remaining bytes could possibly hold, so a hostile count can
//! neither panic nor make us allocate more than the input's size.
//!
//! CompactSize follows Core's `ReadCompactSize` (serialize.h): `< 0xfd` is one byte;
//! `0xfd` then u16, `0xfe` then u32, `0xff` then u64, each rejected when a shorter form would do
//! ("non-canonical ReadCompactSize()"), and any value above `MAX_SIZE = 0x02000000` rejected.
//!
//! Transactions use Core's extended format (BIP144): `version || 0x00 || flags || vin || vout
//! || witness || locktime`. As in `UnserializeTransaction`: an empty `vin` is read as the marker,
//! then a flag byte; flag 0 means "no inputs and no outputs"; the witness bit (1) must be the
//! only bit set, and a witness record whose stacks are all empty is rejected ("Superfluous
//! witness record").

use crate::hash::{sha256d, Sha256};
use std::fmt;

/// `MAX_SIZE` of Core's serialize.h: the largest CompactSize accepted as a length.
pub const MAX_SIZE: u64 = 0x0200_0000;

/// Why a byte string is not a valid encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A field needed `needed` bytes but only `remaining` were left.
    UnexpectedEnd {
        /// Bytes the field needed.
        needed: u64,
        /// Bytes that were left.
        remaining: usize,
    },
    /// A CompactSize used a longer form than its value needs.
    NonCanonicalCompactSize,
    /// A CompactSize length above `MAX_SIZE`.
    CompactSizeTooLarge(u64),
    /// The extended-format flag byte had bits other than the witness bit.
    UnknownOptionalData(u8),
    /// The witness flag was set but every input's witness was empty.
    SuperfluousWitnessRecord,
    /// Bytes remained after a complete object.
    TrailingBytes(usize),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::UnexpectedEnd { needed, remaining } => {
                write!(f, "unexpected end of data: needed {needed} bytes, {remaining} remain")
            }
            DecodeError::NonCanonicalCompactSize => write!(f, "non-canonical ReadCompactSize()"),
            DecodeError::CompactSizeTooLarge(v) => write!(f, "ReadCompactSize(): size {v} too large"),
            DecodeError::UnknownOptionalData(b) => {
                write!(f, "unknown transaction optional data (flags {b:#04x})")
            }
            DecodeError::SuperfluousWitnessRecord => write!(f, "superfluous witness record"),
            DecodeError::TrailingBytes(n) => write!(f, "{n} trailing bytes after object"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A bounded cursor over a byte slice.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Bytes read so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next `n` bytes; `n` is checked against what remains before use.
    #[inline]
    pub fn bytes(&mut self, n: u64) -> Result<&'a [u8], DecodeError> {
        let rem = self.remaining();
        if n > rem as u64 {
            return Err(DecodeError::UnexpectedEnd { needed: n, remaining: rem });
        }
        let n = n as usize;
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A fixed-size array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let s = self.bytes(N as u64)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }
    /// Little-endian u16.
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    /// Little-endian u32.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    /// Little-endian u64.
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// Little-endian i64.
    pub fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A CompactSize without the `MAX_SIZE` range check (Core's `ReadCompactSize(s, false)`).
    pub fn compact_size_unchecked(&mut self) -> Result<u64, DecodeError> {
        let b = self.u8()?;
        let v = match b {
            0..=0xfc => return Ok(b as u64),
            0xfd => {
                let v = self.u16()? as u64;
                if v < 0xfd {
                    return Err(DecodeError::NonCanonicalCompactSize);
                }
                v
            }
            0xfe => {
                let v = self.u32()? as u64;
                if v < 0x1_0000 {
                    return Err(DecodeError::NonCanonicalCompactSize);
                }
                v
            }
            0xff => {
                let v = self.u64()?;
                if v < 0x1_0000_0000 {
                    return Err(DecodeError::NonCanonicalCompactSize);
                }
                v
            }
        };
        Ok(v)
    }

    /// A canonical CompactSize no larger than `MAX_SIZE` (Core's `ReadCompactSize`).
    pub fn compact_size(&mut self) -> Result<u64, DecodeError> {
        let v = self.compact_size_unchecked()?;
        if v > MAX_SIZE {
            return Err(DecodeError::CompactSizeTooLarge(v));
        }
        Ok(v)
    }

    /// A CompactSize-prefixed byte string.
    pub fn var_bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let n = self.compact_size()?;
        self.bytes(n)
    }

    /// A capacity for `count` elements of at least `min_size` bytes each, capped by what the
    /// remaining input can hold.
    #[inline]
    fn capacity(&self, count: u64, min_size: usize) -> usize {
        (count.min((self.remaining() / min_size.max(1)) as u64)) as usize
    }

    /// Fails unless every byte was consumed.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(DecodeError::TrailingBytes(n)),
        }
    }
}

/// Where encoded bytes go: a buffer, a hash engine (no intermediate copy) or a byte count.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, b: &[u8]);
}

/// A [`Sink`] that only counts: the length of a serialization without building it.
#[derive(Clone, Copy, Debug, Default)]
struct ByteCount(usize);

impl Sink for ByteCount {
    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.0 += b.len();
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
}

impl Sink for Sha256 {
    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.update(b);
    }
}

/// Writes a (minimal) CompactSize.
pub fn write_compact_size<S: Sink + ?Sized>(s: &mut S, v: u64) {
    if v < 0xfd {
        s.put(&[v as u8]);
    } else if v <= 0xffff {
        s.put(&[0xfd]);
        s.put(&(v as u16).to_le_bytes());
    } else if v <= 0xffff_ffff {
        s.put(&[0xfe]);
        s.put(&(v as u32).to_le_bytes());
    } else {
        s.put(&[0xff]);
        s.put(&v.to_le_bytes());
    }
}

/// Writes a CompactSize-prefixed byte string.
pub fn write_var_bytes<S: Sink + ?Sized>(s: &mut S, b: &[u8]) {
    write_compact_size(s, b.len() as u64);
    s.put(b);
}

/// The length of [`write_var_bytes`]'s encoding of `b`.
pub fn var_bytes_len(b: &[u8]) -> usize {
    compact_size_len(b.len() as u64) + b.len()
}

/// The length of a CompactSize encoding of `v`.
pub fn compact_size_len(v: u64) -> usize {
    match v {
        0..=0xfc => 1,
        0xfd..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// A reference to an output: txid (internal byte order) and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct OutPoint {
    /// Id of the transaction that created the output (internal byte order).
    pub txid: [u8; 32],
    /// Index of the output in that transaction.
    pub vout: u32,
}

impl OutPoint {
    /// The null outpoint a coinbase input spends (and BIP325's `to_spend`).
    pub const NULL: OutPoint = OutPoint { txid: [0; 32], vout: u32::MAX };

    /// The null outpoint of a coinbase input.
    pub fn is_null(&self) -> bool {
        self.vout == u32::MAX && self.txid == [0u8; 32]
    }
    /// The 36-byte encoding.
    pub fn encode<S: Sink + ?Sized>(&self, s: &mut S) {
        s.put(&self.txid);
        s.put(&self.vout.to_le_bytes());
    }
}

/// A transaction input.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TxIn {
    /// The output this input spends.
    pub prevout: OutPoint,
    /// The unlocking script.
    pub script_sig: Vec<u8>,
    /// `nSequence` (relative lock time, BIP68, and replacement signalling).
    pub sequence: u32,
    /// The witness stack (empty when the input has none).
    pub witness: Vec<Vec<u8>>,
}

/// A transaction output.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TxOut {
    /// Amount in satoshis (signed, as Core's `CAmount`).
    pub value: i64,
    /// The locking script.
    pub script_pubkey: Vec<u8>,
}

impl TxOut {
    /// `value || CompactSize(len) || script_pubkey`.
    pub fn encode<S: Sink + ?Sized>(&self, s: &mut S) {
        s.put(&self.value.to_le_bytes());
        write_var_bytes(s, &self.script_pubkey);
    }

    /// Reads one serialized `CTxOut`.
    pub fn decode(r: &mut Reader<'_>) -> Result<TxOut, DecodeError> {
        let (value, script_pubkey) = TxOut::decode_in_place(r)?;
        Ok(TxOut { value, script_pubkey: script_pubkey.to_vec() })
    }

    /// [`TxOut::decode`] without building the output: the value and the scriptPubKey as it
    /// lies in the reader's bytes.
    pub fn decode_in_place<'a>(r: &mut Reader<'a>) -> Result<(i64, &'a [u8]), DecodeError> {
        let value = r.i64()?;
        Ok((value, r.var_bytes()?))
    }
}

/// A transaction.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Transaction {
    /// `nVersion` (signed, as Core's).
    pub version: i32,
    /// The inputs, in order.
    pub inputs: Vec<TxIn>,
    /// The outputs, in order.
    pub outputs: Vec<TxOut>,
    /// `nLockTime`.
    pub lock_time: u32,
}

impl Transaction {
    /// Whether any input carries a witness.
    pub fn has_witness(&self) -> bool {
        self.inputs.iter().any(|i| !i.witness.is_empty())
    }

    /// Whether this is a coinbase (one input with a null prevout).
    pub fn is_coinbase(&self) -> bool {
        self.inputs.len() == 1 && self.inputs[0].prevout.is_null()
    }

    /// Reads a transaction (extended format allowed) from a reader.
    pub fn decode(r: &mut Reader<'_>) -> Result<Transaction, DecodeError> {
        Self::decode_with(r, true)
    }

    /// Reads a transaction; `allow_witness = false` is Core's `TX_NO_WITNESS` parameter.
    pub fn decode_with(r: &mut Reader<'_>, allow_witness: bool) -> Result<Transaction, DecodeError> {
        let version = r.u32()? as i32;
        let mut flags = 0u8;
        let mut inputs = read_inputs(r)?;
        let mut outputs = Vec::new();
        if inputs.is_empty() && allow_witness {
            // BIP144: an empty vin is the marker; a flag byte follows.
            flags = r.u8()?;
            if flags != 0 {
                inputs = read_inputs(r)?;
                outputs = read_outputs(r)?;
            }
        } else {
            outputs = read_outputs(r)?;
        }
        if flags & 1 != 0 && allow_witness {
            flags ^= 1;
            for input in inputs.iter_mut() {
                let n = r.compact_size()?;
                let mut stack = Vec::with_capacity(r.capacity(n, 1));
                for _ in 0..n {
                    stack.push(r.var_bytes()?.to_vec());
                }
                input.witness = stack;
            }
            if !inputs.iter().any(|i| !i.witness.is_empty()) {
                return Err(DecodeError::SuperfluousWitnessRecord);
            }
        }
        if flags != 0 {
            return Err(DecodeError::UnknownOptionalData(flags));
        }
        let lock_time = r.u32()?;
        Ok(Transaction { version, inputs, outputs, lock_time })
    }

    /// Parses exactly one transaction from `bytes` (no trailing data).
    pub fn from_bytes(bytes: &[u8]) -> Result<Transaction, DecodeError> {
        let mut r = Reader::new(bytes);
        let tx = Transaction::decode(&mut r)?;
        r.finish()?;
        Ok(tx)
    }

    /// Serializes; `with_witness` uses the extended format when some input has a witness.
    pub fn encode<S: Sink + ?Sized>(&self, s: &mut S, with_witness: bool) {
        let wit = with_witness && self.has_witness();
        s.put(&self.version.to_le_bytes());
        if wit {
            s.put(&[0x00, 0x01]);
        }
        write_compact_size(s, self.inputs.len() as u64);
        for i in &self.inputs {
            i.prevout.encode(s);
            write_var_bytes(s, &i.script_sig);
            s.put(&i.sequence.to_le_bytes());
        }
        write_compact_size(s, self.outputs.len() as u64);
        for o in &self.outputs {
            o.encode(s);
        }
        if wit {
            for i in &self.inputs {
                write_compact_size(s, i.witness.len() as u64);
                for item in &i.witness {
                    write_var_bytes(s, item);
                }
            }
        }
        s.put(&self.lock_time.to_le_bytes());
    }

    /// The serialization as bytes.
    pub fn to_bytes(&self, with_witness: bool) -> Vec<u8> {
        let mut v = Vec::new();
        self.encode(&mut v, with_witness);
        v
    }

    /// The txid (internal byte order): dSHA256 of the serialization without witnesses.
    pub fn txid(&self) -> [u8; 32] {
        let mut e = Sha256::new();
        self.encode(&mut e, false);
        crate::hash::sha256(&e.finalize())
    }

    /// The wtxid (internal byte order): dSHA256 of the serialization with witnesses.
    pub fn wtxid(&self) -> [u8; 32] {
        let mut e = Sha256::new();
        self.encode(&mut e, true);
        crate::hash::sha256(&e.finalize())
    }

    /// Size without witness data (bytes).
    pub fn base_size(&self) -> usize {
        let mut n = ByteCount(0);
        self.encode(&mut n, false);
        n.0
    }

    /// Size with witness data (bytes): the serialization [`Transaction::to_bytes`]`(true)`.
    pub fn total_size(&self) -> usize {
        let mut n = ByteCount(0);
        self.encode(&mut n, true);
        n.0
    }

    /// BIP141 weight: base size × 3 + total size.
    pub fn weight(&self) -> usize {
        weight_from_sizes(self.base_size(), self.total_size())
    }
}

fn read_inputs(r: &mut Reader<'_>) -> Result<Vec<TxIn>, DecodeError> {
    let n = r.compact_size()?;
    // An input is at least 41 bytes (36 outpoint + 1 script length + 4 sequence).
    let mut v = Vec::with_capacity(r.capacity(n, 41));
    for _ in 0..n {
        let txid = r.array::<32>()?;
        let vout = r.u32()?;
        let script_sig = r.var_bytes()?.to_vec();
        let sequence = r.u32()?;
        v.push(TxIn { prevout: OutPoint { txid, vout }, script_sig, sequence, witness: Vec::new() });
    }
    Ok(v)
}

fn read_outputs(r: &mut Reader<'_>) -> Result<Vec<TxOut>, DecodeError> {
    let n = r.compact_size()?;
    // An output is at least 9 bytes (8 value + 1 script length).
    let mut v = Vec::with_capacity(r.capacity(n, 9));
    for _ in 0..n {
        v.push(TxOut::decode(r)?);
    }
    Ok(v)
}

/// An 80-byte block header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    /// `nVersion` (signed, as Core's; BIP9 version bits).
    pub version: i32,
    /// Hash of the previous block's header (internal byte order).
    pub prev_block: [u8; 32],
    /// Merkle root of the txids (internal byte order).
    pub merkle_root: [u8; 32],
    /// `nTime`, seconds since the Unix epoch.
    pub time: u32,
    /// `nBits`, the compact encoding of the proof-of-work target.
    pub bits: u32,
    /// `nNonce`.
    pub nonce: u32,
}

impl BlockHeader {
    /// Reads 80 bytes.
    pub fn decode(r: &mut Reader<'_>) -> Result<BlockHeader, DecodeError> {
        Ok(BlockHeader {
            version: r.u32()? as i32,
            prev_block: r.array()?,
            merkle_root: r.array()?,
            time: r.u32()?,
            bits: r.u32()?,
            nonce: r.u32()?,
        })
    }
    /// The 80-byte encoding.
    pub fn to_bytes(&self) -> [u8; 80] {
        let mut b = [0u8; 80];
        b[0..4].copy_from_slice(&self.version.to_le_bytes());
        b[4..36].copy_from_slice(&self.prev_block);
        b[36..68].copy_from_slice(&self.merkle_root);
        b[68..72].copy_from_slice(&self.time.to_le_bytes());
        b[72..76].copy_from_slice(&self.bits.to_le_bytes());
        b[76..80].copy_from_slice(&self.nonce.to_le_bytes());
        b
    }
    /// The block hash (internal byte order): dSHA256 of the header.
    pub fn block_hash(&self) -> [u8; 32] {
        sha256d(&self.to_bytes())
    }
}

/// A block: header and transactions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The header.
    pub header: BlockHeader,
    /// The transactions, coinbase first.
    pub txdata: Vec<Transaction>,
}

impl Block {
    /// Reads a block from a reader.
    pub fn decode(r: &mut Reader<'_>) -> Result<Block, DecodeError> {
        let header = BlockHeader::decode(r)?;
        let n = r.compact_size()?;
        // The smallest transaction is 10 bytes (version, 2 empty counts, locktime).
        let mut txdata = Vec::with_capacity(r.capacity(n, 10));
        for _ in 0..n {
            txdata.push(Transaction::decode(r)?);
        }
        Ok(Block { header, txdata })
    }

    /// Parses exactly one block from `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Block, DecodeError> {
        let mut r = Reader::new(bytes);
        let b = Block::decode(&mut r)?;
        r.finish()?;
        Ok(b)
    }

    /// The block hash.
    pub fn block_hash(&self) -> [u8; 32] {
        self.header.block_hash()
    }

    /// The inputs of its non-coinbase transactions: one per coin the block spends.
    pub fn spending_inputs(&self) -> usize {
        self.txdata.iter().filter(|t| !t.is_coinbase()).map(|t| t.inputs.len()).sum()
    }

    /// Size without witness data (bytes): header, transaction count, stripped transactions.
    pub fn base_size(&self) -> usize {
        80 + compact_size_len(self.txdata.len() as u64)
            + self.txdata.iter().map(Transaction::base_size).sum::<usize>()
    }

    /// Size of the full serialization (bytes).
    pub fn total_size(&self) -> usize {
        80 + compact_size_len(self.txdata.len() as u64)
            + self.txdata.iter().map(Transaction::total_size).sum::<usize>()
    }

    /// BIP141 block weight: base size × 3 + total size (at most [`MAX_BLOCK_WEIGHT`] in a
    /// valid block).
    pub fn weight(&self) -> usize {
        weight_from_sizes(self.base_size(), self.total_size())
    }
}

/// BIP141 weight from the serialized size without witness data (`base`) and with it (`total`).
pub const fn weight_from_sizes(base: usize, total: usize) -> usize {
    base * (WITNESS_SCALE_FACTOR - 1) + total
}

/// `MAX_MONEY`: 21 million BTC in satoshis.
pub const MAX_MONEY: i64 = 21_000_000 * 100_000_000;
/// `MAX_BLOCK_WEIGHT` (BIP141).
pub const MAX_BLOCK_WEIGHT: usize = 4_000_000;
/// `WITNESS_SCALE_FACTOR` (BIP141): weight units per non-witness byte.
pub const WITNESS_SCALE_FACTOR: usize = 4;

/// Why a transaction fails Core's context-free `CheckTransaction` (reject reasons as Core's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxCheckError {
    /// `bad-txns-vin-empty`
    VinEmpty,
    /// `bad-txns-vout-empty`
    VoutEmpty,
    /// `bad-txns-oversize`: stripped size × 4 above the block weight limit.
    Oversize,
    /// `bad-txns-vout-negative`
    VoutNegative,
    /// `bad-txns-vout-toolarge`
    VoutTooLarge,
    /// `bad-txns-txouttotal-toolarge`
    TxOutTotalTooLarge,
    /// `bad-txns-inputs-duplicate`
    InputsDuplicate,
    /// `bad-cb-length`: coinbase scriptSig outside 2..=100 bytes.
    CoinbaseLength,
    /// `bad-txns-prevout-null`: a non-coinbase input spends the null outpoint.
    PrevoutNull,
}

impl TxCheckError {
    /// Core's reject reason.
    pub fn reason(self) -> &'static str {
        match self {
            TxCheckError::VinEmpty => "bad-txns-vin-empty",
            TxCheckError::VoutEmpty => "bad-txns-vout-empty",
            TxCheckError::Oversize => "bad-txns-oversize",
            TxCheckError::VoutNegative => "bad-txns-vout-negative",
            TxCheckError::VoutTooLarge => "bad-txns-vout-toolarge",
            TxCheckError::TxOutTotalTooLarge => "bad-txns-txouttotal-toolarge",
            TxCheckError::InputsDuplicate => "bad-txns-inputs-duplicate",
            TxCheckError::CoinbaseLength => "bad-cb-length",
            TxCheckError::PrevoutNull => "bad-txns-prevout-null",
        }
    }
}

impl Transaction {
    /// Core's `CheckTransaction`: the context-free transaction rules.
    pub fn check(&self) -> Result<(), TxCheckError> {
        if self.inputs.is_empty() {
            return Err(TxCheckError::VinEmpty);
        }
        if self.outputs.is_empty() {
            return Err(TxCheckError::VoutEmpty);
        }
        if self.base_size() * 4 > MAX_BLOCK_WEIGHT {
            return Err(TxCheckError::Oversize);
        }
        let mut total: i64 = 0;
        for o in &self.outputs {
            if o.value < 0 {
                return Err(TxCheckError::VoutNegative);
            }
            if o.value > MAX_MONEY {
                return Err(TxCheckError::VoutTooLarge);
            }
            total += o.value;
            if total > MAX_MONEY {
                return Err(TxCheckError::TxOutTotalTooLarge);
            }
        }
        // Sorted, not hashed: a set would draw SipHash keys for every transaction.
        let mut ops: Vec<(&[u8; 32], u32)> =
            self.inputs.iter().map(|i| (&i.prevout.txid, i.prevout.vout)).collect();
        ops.sort_unstable();
        if ops.windows(2).any(|w| w[0] == w[1]) {
            return Err(TxCheckError::InputsDuplicate);
        }
        if self.is_coinbase() {
            let n = self.inputs[0].script_sig.len();
            if !(2..=100).contains(&n) {
                return Err(TxCheckError::CoinbaseLength);
            }
        } else if self.inputs.iter().any(|i| i.prevout.is_null()) {
            return Err(TxCheckError::PrevoutNull);
        }
        Ok(())
    }
}

/// Lower-case hex of bytes in display order (reversed), as txids and block hashes are shown.
pub fn display_hex(h: &[u8; 32]) -> String {
    h.iter().rev().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_size_canonical_rules() {
        let ok = |b: &[u8]| Reader::new(b).compact_size();
        assert_eq!(ok(&[0xfc]), Ok(0xfc));
        assert_eq!(ok(&[0xfd, 0xfd, 0x00]), Ok(0xfd));
        assert_eq!(ok(&[0xfd, 0xfc, 0x00]), Err(DecodeError::NonCanonicalCompactSize));
        assert_eq!(ok(&[0xfe, 0xff, 0xff, 0x00, 0x00]), Err(DecodeError::NonCanonicalCompactSize));
        assert_eq!(ok(&[0xfe, 0x00, 0x00, 0x00, 0x02]), Ok(MAX_SIZE));
        assert_eq!(ok(&[0xfe, 0x01, 0x00, 0x00, 0x02]), Err(DecodeError::CompactSizeTooLarge(MAX_SIZE + 1)));
        assert_eq!(
            ok(&[0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
            Err(DecodeError::NonCanonicalCompactSize)
        );
        assert!(matches!(ok(&[0xfd, 0x00]), Err(DecodeError::UnexpectedEnd { .. })));
        for v in [0u64, 1, 0xfc, 0xfd, 0xffff, 0x10000, MAX_SIZE] {
            let mut b = Vec::new();
            write_compact_size(&mut b, v);
            assert_eq!(b.len(), compact_size_len(v));
            assert_eq!(ok(&b), Ok(v));
        }
    }

    #[test]
    fn huge_counts_do_not_allocate_or_panic() {
        // version, vin count = MAX_SIZE, nothing else.
        let mut b = vec![1, 0, 0, 0, 0xfe, 0, 0, 0, 2];
        assert!(matches!(Transaction::from_bytes(&b), Err(DecodeError::UnexpectedEnd { .. })));
        b.truncate(4);
        b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert!(matches!(Transaction::from_bytes(&b), Err(DecodeError::CompactSizeTooLarge(_))));
    }

    /// An output read in place is the output encoded, its script borrowed from the bytes read;
    /// every truncation fails, both ways, with the field it cut; a non-canonical length fails.
    #[test]
    fn txout_read_in_place_is_decode_without_the_copy() {
        for (value, len) in [(0i64, 0usize), (1, 1), (-1, 25), (i64::MAX, 252), (5, 253), (7, 10_000)] {
            let out = TxOut { value, script_pubkey: (0..len).map(|i| i as u8).collect() };
            let mut b = Vec::new();
            out.encode(&mut b);
            b.push(0xAB); // what follows the output stays unread
            let mut r = Reader::new(&b);
            let (v, spk) = TxOut::decode_in_place(&mut r).unwrap();
            assert_eq!((v, spk), (value, out.script_pubkey.as_slice()));
            assert!(b.as_ptr_range().contains(&spk.as_ptr()) || spk.is_empty(), "borrowed");
            assert_eq!(r.u8(), Ok(0xAB));
            assert_eq!(TxOut::decode(&mut Reader::new(&b)), Ok(out.clone()));
            // Each truncation names the field it fell in: the value (8 bytes), the length's
            // first byte, its two-byte tail (lengths from 253), or the script itself.
            let prefix = if len < 253 { 1 } else { 3 };
            for cut in 0..b.len() - 1 {
                let (needed, remaining) = match cut {
                    0..8 => (8, cut),
                    8 => (1, 0),
                    _ if cut < 8 + prefix => (2, cut - 9),
                    _ => (len as u64, cut - 8 - prefix),
                };
                let want = Err(DecodeError::UnexpectedEnd { needed, remaining });
                let r = || Reader::new(&b[..cut]);
                assert_eq!(TxOut::decode_in_place(&mut r()).map(|(v, s)| (v, s.to_vec())), want, "{cut}");
                assert_eq!(TxOut::decode(&mut r()).map(|o| (o.value, o.script_pubkey)), want, "{cut}");
            }
        }
        let mut noncanonical = 3i64.to_le_bytes().to_vec();
        noncanonical.extend_from_slice(&[0xFD, 0x01, 0x00, 0x51]);
        assert_eq!(
            TxOut::decode_in_place(&mut Reader::new(&noncanonical)),
            Err(DecodeError::NonCanonicalCompactSize)
        );
    }

    #[test]
    fn witness_flag_rules() {
        // version || marker 0 || flag || 1 input (null prevout, empty script) || 0 outputs.
        let build = |flag: u8, witness: &[u8]| {
            let mut b = vec![1, 0, 0, 0, 0x00, flag, 1];
            b.extend_from_slice(&[0u8; 36]);
            b.extend_from_slice(&[0, 0xff, 0xff, 0xff, 0xff, 0]);
            b.extend_from_slice(witness);
            b.extend_from_slice(&[0, 0, 0, 0]);
            b
        };
        assert_eq!(Transaction::from_bytes(&build(2, &[])), Err(DecodeError::UnknownOptionalData(2)));
        assert_eq!(Transaction::from_bytes(&build(1, &[0])), Err(DecodeError::SuperfluousWitnessRecord));
        assert_eq!(Transaction::from_bytes(&build(3, &[1, 1, 7])), Err(DecodeError::UnknownOptionalData(2)));
        let tx = Transaction::from_bytes(&build(1, &[1, 1, 7])).unwrap();
        assert_eq!(tx.inputs[0].witness, vec![vec![7u8]]);
        assert_eq!(tx.to_bytes(true), build(1, &[1, 1, 7]));
        // Marker then flag 0: a transaction with no inputs and no outputs.
        let tx = Transaction::from_bytes(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert!(tx.inputs.is_empty() && tx.outputs.is_empty());
    }
}
