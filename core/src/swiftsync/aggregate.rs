// SPDX-License-Identifier: MIT OR Apache-2.0
//! The BIP 457 aggregate: salted SHA-256 of each coin, read as a 256-bit integer, summed
//! modulo 2^256.
//!
//! ```text
//! element  = code (LE u32, height·2 + coinbase) ‖ CompactSize(len) ‖ script
//!            ‖ amount (LE u64) ‖ txid ‖ vout (LE u32)
//! H(coin)  = SHA256(salt ‖ element), the 32 digest bytes read big-endian
//! Agg      = Σ H(coin) mod 2^256
//! ```

use crate::encode::{var_bytes_len, write_var_bytes, OutPoint, Sink, TxOut};
use crate::hash::{compress_blocks, Sha256, IV};
use crate::utxo::Coin;
use core::fmt;

/// The per-run secret prefixed to every element before hashing.
///
/// BIP 457 asks for "an additional randomly generated salt value": whoever prepared the hints
/// or serves spent coins must not know it, or they could grind elements whose hashes cancel.
/// Choose it afresh for each run from a strong random source, and keep it private.
#[derive(Clone, PartialEq, Eq)]
pub struct Salt([u8; 32]);

impl Salt {
    /// A salt from 32 secret random bytes the caller chose.
    pub const fn from_bytes(bytes: [u8; 32]) -> Salt {
        Salt(bytes)
    }

    /// The salt's bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// 32 bytes from the operating system's random source (`/dev/urandom`).
    #[cfg(unix)]
    pub fn from_os_random() -> std::io::Result<Salt> {
        use std::io::Read;
        let mut b = [0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
        Ok(Salt(b))
    }
}

impl fmt::Debug for Salt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Salt(..)")
    }
}

/// One coin as BIP 457 hashes it, borrowing its script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoinElement<'a> {
    /// Where the coin was created.
    pub outpoint: OutPoint,
    /// Height of the block that created it.
    pub height: u32,
    /// Whether it is a coinbase output.
    pub coinbase: bool,
    /// Its scriptPubKey.
    pub script_pubkey: &'a [u8],
    /// Its amount in satoshis.
    pub amount: u64,
}

impl<'a> CoinElement<'a> {
    /// The element of `coin` at `outpoint` (a spent coin, from undo data).
    pub fn from_coin(outpoint: OutPoint, coin: &'a Coin) -> CoinElement<'a> {
        CoinElement::from_output(outpoint, &coin.out, coin.height, coin.coinbase)
    }

    /// The element of a block's output: `outpoint`, the output, the block height, and whether
    /// the transaction is the coinbase. A negative amount (never valid) is taken as its 64-bit
    /// two's complement.
    pub fn from_output(outpoint: OutPoint, out: &'a TxOut, height: u32, coinbase: bool) -> CoinElement<'a> {
        CoinElement {
            outpoint,
            height,
            coinbase,
            script_pubkey: &out.script_pubkey,
            amount: out.value as u64,
        }
    }

    /// BIP 455's height and coinbase flag code, `height·2 + coinbase` (wrapping past 2^31).
    pub fn height_code(&self) -> u32 {
        self.height.wrapping_mul(2) | self.coinbase as u32
    }

    /// Length of [`CoinElement::serialize`]'s output.
    pub fn serialized_len(&self) -> usize {
        4 + var_bytes_len(self.script_pubkey) + 8 + 36
    }

    /// Writes the element to `s`.
    pub fn write_to<S: Sink + ?Sized>(&self, s: &mut S) {
        s.put(&self.height_code().to_le_bytes());
        write_var_bytes(s, self.script_pubkey);
        s.put(&self.amount.to_le_bytes());
        self.outpoint.encode(s);
    }

    /// Appends the element to `out`.
    pub fn serialize(&self, out: &mut Vec<u8>) {
        out.reserve(self.serialized_len());
        self.write_to(out);
    }
}

/// A cursor over a fixed buffer (the fast path's message blocks).
struct Cursor<'b> {
    buf: &'b mut [u8],
    at: usize,
}

impl Sink for Cursor<'_> {
    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.buf[self.at..self.at + b.len()].copy_from_slice(b);
        self.at += b.len();
    }
}

/// Messages up to this many blocks are padded in place on the stack.
const FAST_BLOCKS: usize = 4;

/// A BIP 457 aggregate: a salt and a running sum modulo 2^256.
///
/// Use one aggregate, [`Aggregate::add`] for created coins and [`Aggregate::sub`] for spent
/// ones, and check [`Aggregate::is_balanced`]; or two (outputs and inputs), both with `add`,
/// compared with `==`. Partial sums from workers sharing the salt merge with
/// [`Aggregate::combine`]. Addition commutes, so the order of coins never matters.
#[derive(Clone, PartialEq, Eq)]
pub struct Aggregate {
    salt: Salt,
    /// Little-endian 64-bit limbs of the sum.
    sum: [u64; 4],
}

impl fmt::Debug for Aggregate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.value();
        write!(f, "Aggregate(")?;
        for b in v {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

#[inline]
fn add_limbs(a: &mut [u64; 4], b: &[u64; 4]) {
    let mut carry = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (s1, c1) = x.overflowing_add(y);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        *x = s2;
        carry = c1 | c2;
    }
}

#[inline]
fn sub_limbs(a: &mut [u64; 4], b: &[u64; 4]) {
    let mut borrow = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (d1, b1) = x.overflowing_sub(y);
        let (d2, b2) = d1.overflowing_sub(borrow as u64);
        *x = d2;
        borrow = b1 | b2;
    }
}

/// A big-endian 256-bit integer as little-endian limbs.
#[inline]
fn limbs_from_be(v: &[u8; 32]) -> [u64; 4] {
    let w = |i: usize| u64::from_be_bytes(v[32 - 8 * (i + 1)..32 - 8 * i].try_into().expect("8 bytes"));
    [w(0), w(1), w(2), w(3)]
}

/// A SHA-256 state (big-endian words) read as a big-endian 256-bit integer.
#[inline]
fn limbs_from_state(s: &[u32; 8]) -> [u64; 4] {
    let w = |i: usize| (u64::from(s[2 * i]) << 32) | u64::from(s[2 * i + 1]);
    [w(3), w(2), w(1), w(0)]
}

impl Aggregate {
    /// The zero aggregate under `salt`.
    pub fn new(salt: Salt) -> Aggregate {
        Aggregate { salt, sum: [0; 4] }
    }

    /// The salt.
    pub fn salt(&self) -> &Salt {
        &self.salt
    }

    /// `SHA256(salt ‖ element)` as state words: one SHA-256, padded in place for elements up to
    /// `64·FAST_BLOCKS − 41` bytes, streamed beyond.
    #[inline]
    fn hash_state(&self, e: &CoinElement<'_>) -> [u32; 8] {
        let len = 32 + e.serialized_len();
        let blocks = (len + 9).div_ceil(64);
        if blocks > FAST_BLOCKS {
            let mut h = Sha256::new().chain(&self.salt.0);
            e.write_to(&mut h);
            let d = h.finalize();
            return core::array::from_fn(|i| {
                u32::from_be_bytes(d[4 * i..4 * i + 4].try_into().expect("4 bytes"))
            });
        }
        let mut buf = [[0u8; 64]; FAST_BLOCKS];
        let flat = buf.as_flattened_mut();
        flat[..32].copy_from_slice(&self.salt.0);
        let mut c = Cursor { buf: flat, at: 32 };
        e.write_to(&mut c);
        flat[len] = 0x80;
        flat[blocks * 64 - 8..blocks * 64].copy_from_slice(&((len as u64) * 8).to_be_bytes());
        let mut st = IV;
        compress_blocks(&mut st, &buf[..blocks]);
        st
    }

    /// `SHA256(salt ‖ element)`: the digest BIP 457 sums, as bytes.
    pub fn element_hash(&self, e: &CoinElement<'_>) -> [u8; 32] {
        crate::hash::state_to_bytes(&self.hash_state(e))
    }

    /// `SHA256(salt ‖ element)` of an element already serialized.
    pub fn element_bytes_hash(&self, element: &[u8]) -> [u8; 32] {
        Sha256::new().chain(&self.salt.0).chain(element).finalize()
    }

    /// Adds a coin.
    #[inline]
    pub fn add(&mut self, e: &CoinElement<'_>) {
        let h = limbs_from_state(&self.hash_state(e));
        add_limbs(&mut self.sum, &h);
    }

    /// Subtracts a coin.
    #[inline]
    pub fn sub(&mut self, e: &CoinElement<'_>) {
        let h = limbs_from_state(&self.hash_state(e));
        sub_limbs(&mut self.sum, &h);
    }

    /// Adds an element already serialized ([`CoinElement::serialize`]).
    pub fn add_element_bytes(&mut self, element: &[u8]) {
        self.add_hash(&self.element_bytes_hash(element));
    }

    /// Subtracts an element already serialized.
    pub fn sub_element_bytes(&mut self, element: &[u8]) {
        self.sub_hash(&self.element_bytes_hash(element));
    }

    /// Adds a 256-bit big-endian integer (a digest from [`Aggregate::element_hash`]).
    pub fn add_hash(&mut self, v: &[u8; 32]) {
        add_limbs(&mut self.sum, &limbs_from_be(v));
    }

    /// Subtracts a 256-bit big-endian integer.
    pub fn sub_hash(&mut self, v: &[u8; 32]) {
        sub_limbs(&mut self.sum, &limbs_from_be(v));
    }

    /// Adds another aggregate's sum (a worker's partial sum).
    ///
    /// Panics if the salts differ: such sums are of different hash functions.
    pub fn combine(&mut self, other: &Aggregate) {
        assert!(self.salt == other.salt, "Aggregate::combine: partial sums under different salts");
        add_limbs(&mut self.sum, &other.sum);
    }

    /// Whether the sum is zero: every added coin was subtracted as often.
    pub fn is_balanced(&self) -> bool {
        self.sum == [0; 4]
    }

    /// The sum as a big-endian 256-bit integer.
    pub fn value(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, l) in self.sum.iter().enumerate() {
            out[32 - 8 * (i + 1)..32 - 8 * i].copy_from_slice(&l.to_be_bytes());
        }
        out
    }
}
