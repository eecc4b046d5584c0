// SPDX-License-Identifier: MIT OR Apache-2.0
//! The store behind the coins cache: the trait, what a flush writes ([`FlushBatch`], with the
//! best-block record [`ChainMeta`]), and the in-memory store.

use super::coin::{txout_ser_into, Coin};
use super::outpoint_hash::OutPointMap;
use crate::encode::OutPoint;
use crate::muhash::MuHash3072;
use std::fmt;

/// The chain state recorded with every flush: the best block and the UTXO set's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainMeta {
    /// Height of the best block.
    pub height: u32,
    /// Hash of the best block (internal byte order).
    pub hash: [u8; 32],
    /// MuHash3072 accumulator of the UTXO set at the best block (not finalised), when the
    /// chain state keeps one (the incremental MuHash policy); stored as 768 zero bytes
    /// otherwise, which no accumulator can be (its numerator and denominator are nonzero).
    pub muhash: Option<MuHash3072>,
    /// Number of unspent outputs.
    pub utxo_count: u64,
    /// Sum of the unspent amounts in satoshis.
    pub total_amount: i64,
}

impl ChainMeta {
    const LEN: usize = 4 + 32 + 768 + 8 + 8;

    /// Fixed-size storage form (820 bytes): `height (LE u32) ‖ hash ‖ MuHash state (768 bytes,
    /// numerator ‖ denominator) ‖ utxo_count (LE u64) ‖ total_amount (LE i64)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(Self::LEN);
        v.extend_from_slice(&self.height.to_le_bytes());
        v.extend_from_slice(&self.hash);
        v.extend_from_slice(&self.muhash.map_or([0; 768], |m| m.serialize()));
        v.extend_from_slice(&self.utxo_count.to_le_bytes());
        v.extend_from_slice(&self.total_amount.to_le_bytes());
        v
    }

    /// Inverse of [`ChainMeta::to_bytes`]; `None` unless `b` is exactly 820 bytes.
    pub fn from_bytes(b: &[u8]) -> Option<ChainMeta> {
        if b.len() != Self::LEN {
            return None;
        }
        Some(ChainMeta {
            height: u32::from_le_bytes(b[0..4].try_into().ok()?),
            hash: b[4..36].try_into().ok()?,
            muhash: Some(&b[36..804])
                .filter(|m| m.iter().any(|&x| x != 0))
                .map(|m| MuHash3072::deserialize(m.try_into().expect("768 bytes"))),
            utxo_count: u64::from_le_bytes(b[804..812].try_into().ok()?),
            total_amount: i64::from_le_bytes(b[812..820].try_into().ok()?),
        })
    }
}

/// A store failure (I/O or engine error), with its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// Everything one flush writes, applied atomically by [`Store::commit`]. The coins are
/// borrowed from the cache that flushes them, which keeps serving reads while they are written.
#[derive(Clone, Debug, Default)]
pub struct FlushBatch<'a> {
    /// Coins to write (`Some`) or delete (`None`).
    pub coins: Vec<(OutPoint, Option<&'a Coin>)>,
    /// Header records `(height, 40-byte record)` appended since the last flush.
    pub headers: Vec<(u32, [u8; 40])>,
    /// The new best block and set summary.
    pub meta: Option<ChainMeta>,
}

impl<'a> FlushBatch<'a> {
    /// A batch whose `coins` are put in the order of their store keys (txid, then output
    /// index), the order a flush writes them in.
    pub fn in_key_order(
        mut coins: Vec<(OutPoint, Option<&'a Coin>)>,
        headers: Vec<(u32, [u8; 40])>,
        meta: Option<ChainMeta>,
    ) -> FlushBatch<'a> {
        coins.sort_unstable_by_key(|(op, _)| (op.txid, op.vout));
        FlushBatch { coins, headers, meta }
    }
}

/// Number of two-byte txid prefixes: [`Store::for_each_coin_in`] takes a range of them, so a
/// whole-set pass can be split into key ranges that workers read side by side.
pub const TXID_PREFIXES: u32 = 1 << 16;

/// The two-byte prefix (big-endian) of `op`'s txid: the part of the key space it falls in.
pub fn txid_prefix(op: &OutPoint) -> u32 {
    u32::from(u16::from_be_bytes([op.txid[0], op.txid[1]]))
}

/// A persistent coin map with chain metadata. Shared across threads: readers may read while
/// a commit is being written (they see the store before or after it, never half of it).
pub trait Store: Send + Sync {
    /// The coin at `op`, if unspent.
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError>;
    /// Applies a batch atomically and durably: all of it or (on error) none of it. The batch is
    /// handed over so that a store can let go of it as soon as it has taken what it needs.
    fn commit(&self, batch: FlushBatch<'_>) -> Result<(), StoreError>;
    /// The metadata of the last commit, `None` for an empty store.
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError>;
    /// Every header record, in height order (heights `0..n`).
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError>;
    /// Memory the store keeps resident besides what a commit in flight holds (its block cache
    /// and filters), in bytes: the owner of the memory budget leaves it out of what the coin
    /// cache may use. 0 for a store that keeps nothing of the kind.
    fn resident_bytes(&self) -> usize {
        0
    }
    /// Whether the store may hold a coin of the transaction `txid`: `false` only if it holds
    /// none, including the coins of a commit still being written (a reader may see them as soon
    /// as [`Store::get`] can). A store that keeps no index of its txids answers `true`, and the
    /// caller looks each output up.
    fn may_hold_txid(&self, txid: &[u8; 32]) -> bool {
        let _ = txid;
        true
    }
    /// Calls `f` with every stored coin, in no particular order.
    fn for_each_coin(&self, f: &mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), StoreError> {
        self.for_each_coin_in(0..TXID_PREFIXES, f)
    }
    /// Calls `f` with every stored coin whose [`txid_prefix`] is in `prefixes` (a range within
    /// `0..TXID_PREFIXES`), in no particular order.
    fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError>;
    /// Calls `f` with the outpoint and MuHash element (Core's `TxOutSer`: the outpoint, then the
    /// coin's storage form) of every stored coin whose [`txid_prefix`] is in `prefixes`, in no
    /// particular order: what a whole-set MuHash hashes. By default each coin is encoded from
    /// [`Store::for_each_coin_in`]; a store that keeps coins in their storage form hands them
    /// over as they lie, checked but never decoded.
    fn for_each_element_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &[u8]),
    ) -> Result<(), StoreError> {
        let mut buf = Vec::with_capacity(128);
        self.for_each_coin_in(prefixes, &mut |op, c| {
            txout_ser_into(op, c, &mut buf);
            f(op, &buf)
        })
    }
    /// Saves what lets the next opening start sooner (the on-disk store's txid filter), for a
    /// process that exits without dropping the store; a store that is dropped saves it itself.
    /// Nothing for a store that keeps nothing of the kind.
    fn save_for_reopening(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

impl Store for Box<dyn Store> {
    fn resident_bytes(&self) -> usize {
        (**self).resident_bytes()
    }
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        (**self).get(op)
    }
    fn may_hold_txid(&self, txid: &[u8; 32]) -> bool {
        (**self).may_hold_txid(txid)
    }
    fn commit(&self, batch: FlushBatch<'_>) -> Result<(), StoreError> {
        (**self).commit(batch)
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        (**self).meta()
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        (**self).headers()
    }
    fn for_each_coin(&self, f: &mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), StoreError> {
        (**self).for_each_coin(f)
    }
    fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError> {
        (**self).for_each_coin_in(prefixes, f)
    }
    fn for_each_element_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &[u8]),
    ) -> Result<(), StoreError> {
        (**self).for_each_element_in(prefixes, f)
    }
    fn save_for_reopening(&self) -> Result<(), StoreError> {
        (**self).save_for_reopening()
    }
}

/// An in-memory [`Store`].
#[derive(Debug, Default)]
pub struct MemStore(std::sync::RwLock<MemInner>);

#[derive(Debug, Default, Clone)]
struct MemInner {
    coins: OutPointMap<Coin>,
    headers: Vec<[u8; 40]>,
    meta: Option<ChainMeta>,
}

impl Clone for MemStore {
    fn clone(&self) -> MemStore {
        MemStore(std::sync::RwLock::new(self.read().clone()))
    }
}

impl MemStore {
    /// An empty store.
    pub fn new() -> MemStore {
        MemStore::default()
    }
    /// Number of stored coins.
    pub fn len(&self) -> usize {
        self.read().coins.len()
    }
    /// Whether no coin is stored.
    pub fn is_empty(&self) -> bool {
        self.read().coins.is_empty()
    }
    fn read(&self) -> std::sync::RwLockReadGuard<'_, MemInner> {
        // A commit validates before it changes anything, so a panic cannot leave half of one.
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }
}

impl Store for MemStore {
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        Ok(self.read().coins.get(op).cloned())
    }
    fn commit(&self, batch: FlushBatch<'_>) -> Result<(), StoreError> {
        let mut s = self.0.write().unwrap_or_else(|e| e.into_inner());
        // Check the header records first, so a refused batch changes nothing.
        let mut next = s.headers.len();
        for &(h, _) in &batch.headers {
            let h = h as usize;
            if h > next {
                return Err(StoreError(format!("header {h} after {next}")));
            }
            next = next.max(h + 1);
        }
        for (op, c) in &batch.coins {
            match c {
                Some(c) => {
                    s.coins.insert(*op, (*c).clone());
                }
                None => {
                    s.coins.remove(op);
                }
            }
        }
        for &(h, rec) in &batch.headers {
            let h = h as usize;
            if h < s.headers.len() {
                s.headers[h] = rec;
            } else {
                s.headers.push(rec);
            }
        }
        if batch.meta.is_some() {
            s.meta.clone_from(&batch.meta);
        }
        Ok(())
    }
    fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError> {
        // A hash map has no key order: every part walks the whole map (cheap beside hashing).
        let s = self.read();
        s.coins.iter().filter(|(op, _)| prefixes.contains(&txid_prefix(op))).for_each(|(op, c)| f(op, c));
        Ok(())
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        Ok(self.read().meta.clone())
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        Ok(self.read().headers.clone())
    }
}

/// Lowers the calling thread's scheduling priority by `nice` steps (Linux: the thread's own
/// nice value, which threads it starts inherit); does nothing elsewhere, where the call would
/// lower the whole process. For the threads that keep the chain state in the background, so
/// that the threads validating blocks take a CPU first when both want one.
pub(crate) fn lower_thread_priority(nice: u8) {
    #[cfg(target_os = "linux")]
    if nice > 0 {
        // SAFETY: `nice` only changes this thread's nice value (Linux applies it per thread); a
        // failure (already at the lowest priority) changes nothing and is not an error here.
        unsafe {
            libc::nice(i32::from(nice));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}
