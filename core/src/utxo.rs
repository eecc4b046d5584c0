// SPDX-License-Identifier: MIT OR Apache-2.0
//! The UTXO set: coins, a write-back cache with a memory budget over a store, and the set's
//! MuHash3072 commitment.
//!
//! - [`Coin`]: an unspent output with its creation height and coinbase flag (Core's `Coin`).
//! - [`Store`]: the persistent coin map plus the chain metadata ([`ChainMeta`]: best block,
//!   MuHash state, coin count and total amount) and the header chain. [`Store::commit`] writes
//!   one [`FlushBatch`] atomically, so a reader always sees the coins and the best-block marker
//!   of the same flush. [`MemStore`] keeps everything in memory (tests, wasm);
//!   [`DiskStore`] (feature `store`) is an embedded LSM store (fjall) whose batches are
//!   committed and synced as a unit.
//! - [`CoinsCache`]: Core's `CCoinsViewCache` flags. An entry is *dirty* when it differs from
//!   the store, *fresh* when the store does not hold the coin, so a fresh coin spent before the
//!   next flush is simply dropped and never reaches the disk.
//! - [`txout_ser`]: the MuHash element of a coin, Core's `TxOutSer`:
//!   `txid ‖ vout (LE u32) ‖ (height·2 + coinbase) (LE u32) ‖ value (LE i64) ‖ CompactSize ‖ spk`.
//!   The set hash is the product of `to_num3072(element)` over all coins (mod 2^3072 − 1103717),
//!   updated per block by multiplying created coins into the numerator and spent coins into the
//!   denominator ([`crate::muhash`]).

use crate::encode::{OutPoint, Reader, TxOut};
use crate::muhash::MuHash3072;
use std::collections::HashMap;
use std::fmt;

/// An unspent output with what the consensus rules need to know about its creation (Core's
/// `Coin`: the coinbase flag for maturity, the height for maturity and BIP68).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coin {
    /// The output: amount in satoshis and scriptPubKey.
    pub out: TxOut,
    /// Height of the block that created the output.
    pub height: u32,
    /// Whether the output belongs to a coinbase transaction (maturity applies).
    pub coinbase: bool,
}

impl Coin {
    /// Storage form: `height·2 + coinbase (LE u32) ‖ value (LE i64) ‖ CompactSize ‖ spk`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(13 + self.out.script_pubkey.len());
        v.extend_from_slice(&(self.height.wrapping_mul(2) | self.coinbase as u32).to_le_bytes());
        self.out.encode(&mut v);
        v
    }

    /// Inverse of [`Coin::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Option<Coin> {
        let mut r = Reader::new(b);
        let code = r.u32().ok()?;
        let out = TxOut::decode(&mut r).ok()?;
        r.finish().ok()?;
        Some(Coin { out, height: code >> 1, coinbase: code & 1 == 1 })
    }

    /// Approximate heap and table footprint in a cache, for the memory budget.
    pub fn mem_usage(&self) -> usize {
        std::mem::size_of::<(OutPoint, Entry)>() + 16 + self.out.script_pubkey.capacity()
    }
}

/// Core's `TxOutSer(outpoint, coin)`: the MuHash element of one coin.
pub fn txout_ser(op: &OutPoint, coin: &Coin) -> Vec<u8> {
    let mut v = Vec::with_capacity(36 + 13 + coin.out.script_pubkey.len());
    op.encode(&mut v);
    v.extend_from_slice(&(coin.height.wrapping_mul(2) | coin.coinbase as u32).to_le_bytes());
    coin.out.encode(&mut v);
    v
}

/// The MuHash change of a block: every created coin inserted, every spent coin removed. The
/// product is order-independent, so large blocks are split across `threads` workers whose
/// partial accumulators are combined.
pub fn muhash_delta(spent: &[(OutPoint, Coin)], created: &[(OutPoint, Coin)], threads: usize) -> MuHash3072 {
    let part = |spent: &[(OutPoint, Coin)], created: &[(OutPoint, Coin)]| {
        let mut m = MuHash3072::new();
        for (op, c) in spent {
            m.remove(&txout_ser(op, c));
        }
        for (op, c) in created {
            m.insert(&txout_ser(op, c));
        }
        m
    };
    let n = spent.len() + created.len();
    let threads = threads.max(1).min(n / 256).max(1);
    if threads == 1 {
        return part(spent, created);
    }
    let (ss, cs) = (spent.len().div_ceil(threads), created.len().div_ceil(threads));
    let parts: Vec<MuHash3072> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let s = &spent[(i * ss).min(spent.len())..((i + 1) * ss).min(spent.len())];
                let c = &created[(i * cs).min(created.len())..((i + 1) * cs).min(created.len())];
                sc.spawn(move || part(s, c))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("muhash worker")).collect()
    });
    let mut m = MuHash3072::new();
    for p in &parts {
        m.combine(p);
    }
    m
}

/// The 36-byte store key of an outpoint: txid, then vout big-endian (ordered by vout).
pub fn outpoint_key(op: &OutPoint) -> [u8; 36] {
    let mut k = [0u8; 36];
    k[..32].copy_from_slice(&op.txid);
    k[32..].copy_from_slice(&op.vout.to_be_bytes());
    k
}

/// The chain state recorded with every flush: the best block and the UTXO set's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainMeta {
    /// Height of the best block.
    pub height: u32,
    /// Hash of the best block (internal byte order).
    pub hash: [u8; 32],
    /// MuHash3072 accumulator of the UTXO set at the best block (not finalised).
    pub muhash: MuHash3072,
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
        v.extend_from_slice(&self.muhash.serialize());
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
            muhash: MuHash3072::deserialize(b[36..804].try_into().ok()?),
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

/// Everything one flush writes, applied atomically by [`Store::commit`].
#[derive(Debug, Default)]
pub struct FlushBatch {
    /// Coins to write (`Some`) or delete (`None`).
    pub coins: Vec<(OutPoint, Option<Coin>)>,
    /// Header records `(height, 40-byte record)` appended since the last flush.
    pub headers: Vec<(u32, [u8; 40])>,
    /// The new best block and set summary.
    pub meta: Option<ChainMeta>,
}

/// A persistent coin map with chain metadata.
pub trait Store: Send {
    /// The coin at `op`, if unspent.
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError>;
    /// Applies a batch atomically and durably: all of it or (on error) none of it.
    fn commit(&mut self, batch: &FlushBatch) -> Result<(), StoreError>;
    /// The metadata of the last commit, `None` for an empty store.
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError>;
    /// Every header record, in height order (heights `0..n`).
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError>;
}

impl Store for Box<dyn Store> {
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        (**self).get(op)
    }
    fn commit(&mut self, batch: &FlushBatch) -> Result<(), StoreError> {
        (**self).commit(batch)
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        (**self).meta()
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        (**self).headers()
    }
}

/// An in-memory [`Store`].
#[derive(Debug, Default, Clone)]
pub struct MemStore {
    coins: HashMap<OutPoint, Coin>,
    headers: Vec<[u8; 40]>,
    meta: Option<ChainMeta>,
}

impl MemStore {
    /// An empty store.
    pub fn new() -> MemStore {
        MemStore::default()
    }
    /// Number of stored coins.
    pub fn len(&self) -> usize {
        self.coins.len()
    }
    /// Whether no coin is stored.
    pub fn is_empty(&self) -> bool {
        self.coins.is_empty()
    }
}

impl Store for MemStore {
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        Ok(self.coins.get(op).cloned())
    }
    fn commit(&mut self, batch: &FlushBatch) -> Result<(), StoreError> {
        if let Some(&(h, _)) = batch.headers.first() {
            if h as usize > self.headers.len() {
                return Err(StoreError(format!("header {h} after {}", self.headers.len())));
            }
        }
        for (op, c) in &batch.coins {
            match c {
                Some(c) => {
                    self.coins.insert(*op, c.clone());
                }
                None => {
                    self.coins.remove(op);
                }
            }
        }
        for &(h, rec) in &batch.headers {
            let h = h as usize;
            if h < self.headers.len() {
                self.headers[h] = rec;
            } else if h == self.headers.len() {
                self.headers.push(rec);
            } else {
                return Err(StoreError(format!("header {h} after {}", self.headers.len())));
            }
        }
        if batch.meta.is_some() {
            self.meta.clone_from(&batch.meta);
        }
        Ok(())
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        Ok(self.meta.clone())
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        Ok(self.headers.clone())
    }
}

/// The on-disk [`Store`]: a fjall keyspace with partitions `coins`, `headers` and `meta`.
/// A flush is one cross-partition write batch followed by a full sync.
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
pub struct DiskStore {
    keyspace: fjall::Keyspace,
    coins: fjall::PartitionHandle,
    headers: fjall::PartitionHandle,
    meta: fjall::PartitionHandle,
}

#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
fn se<E: fmt::Display>(e: E) -> StoreError {
    StoreError(e.to_string())
}

#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
impl DiskStore {
    /// Opens (or creates) the store in `dir`.
    pub fn open(dir: &std::path::Path) -> Result<DiskStore, StoreError> {
        let keyspace = fjall::Config::new(dir).open().map_err(se)?;
        let opts = fjall::PartitionCreateOptions::default;
        let coins = keyspace.open_partition("coins", opts()).map_err(se)?;
        let headers = keyspace.open_partition("headers", opts()).map_err(se)?;
        let meta = keyspace.open_partition("meta", opts()).map_err(se)?;
        Ok(DiskStore { keyspace, coins, headers, meta })
    }
}

#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
impl Store for DiskStore {
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        match self.coins.get(outpoint_key(op)).map_err(se)? {
            Some(v) => {
                Coin::from_bytes(&v).map(Some).ok_or_else(|| StoreError(format!("corrupt coin {op:?}")))
            }
            None => Ok(None),
        }
    }
    fn commit(&mut self, batch: &FlushBatch) -> Result<(), StoreError> {
        let mut b = self.keyspace.batch();
        for (op, c) in &batch.coins {
            match c {
                Some(c) => b.insert(&self.coins, outpoint_key(op), c.to_bytes()),
                None => b.remove(&self.coins, outpoint_key(op)),
            }
        }
        for (h, rec) in &batch.headers {
            b.insert(&self.headers, h.to_be_bytes(), rec.to_vec());
        }
        if let Some(m) = &batch.meta {
            b.insert(&self.meta, b"best", m.to_bytes());
        }
        b.commit().map_err(se)?;
        self.keyspace.persist(fjall::PersistMode::SyncAll).map_err(se)
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        match self.meta.get(b"best").map_err(se)? {
            Some(v) => ChainMeta::from_bytes(&v)
                .map(Some)
                .ok_or_else(|| StoreError("corrupt best-block record".into())),
            None => Ok(None),
        }
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        let mut out = Vec::new();
        for kv in self.headers.iter() {
            let (k, v) = kv.map_err(se)?;
            let h =
                u32::from_be_bytes(k.as_ref().try_into().map_err(|_| StoreError("bad header key".into()))?);
            if h as usize != out.len() {
                return Err(StoreError(format!("header records not contiguous at {h}")));
            }
            out.push(v.as_ref().try_into().map_err(|_| StoreError("bad header record".into()))?);
        }
        Ok(out)
    }
}

/// A cache entry: `coin == None` is a spent coin the store still holds (dirty, not fresh).
#[derive(Clone, Debug)]
pub struct Entry {
    coin: Option<Coin>,
    dirty: bool,
    fresh: bool,
}

/// A write-back coin cache over a [`Store`] with a memory budget in bytes (Core's
/// `CCoinsViewCache` with its DIRTY/FRESH flags).
///
/// Invariant: a fresh entry is always dirty and never in the store; spending it removes it. A
/// dirty entry without a coin is a pending deletion of a stored coin. Nothing reaches the store
/// except through [`CoinsCache::flush`].
pub struct CoinsCache<S: Store> {
    store: S,
    map: HashMap<OutPoint, Entry>,
    mem: usize,
    budget: usize,
}

impl<S: Store> CoinsCache<S> {
    /// An empty cache over `store` that asks to be flushed above `budget` bytes.
    pub fn new(store: S, budget: usize) -> CoinsCache<S> {
        CoinsCache { store, map: HashMap::new(), mem: 0, budget }
    }

    /// The underlying store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Approximate bytes used by cached entries.
    pub fn mem_usage(&self) -> usize {
        self.mem
    }

    /// Whether the cache is above its budget (the owner should flush).
    pub fn over_budget(&self) -> bool {
        self.mem > self.budget
    }

    /// Cached entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no entry is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The unspent coin at `op`, reading through to the store (and caching what it read).
    pub fn get(&mut self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        if let Some(e) = self.map.get(op) {
            return Ok(e.coin.clone());
        }
        let c = self.store.get(op)?;
        if let Some(c) = &c {
            self.mem += c.mem_usage();
            self.map.insert(*op, Entry { coin: Some(c.clone()), dirty: false, fresh: false });
        }
        Ok(c)
    }

    /// Spends `op` (which must be unspent).
    pub fn spend(&mut self, op: &OutPoint) {
        match self.map.get_mut(op) {
            Some(e) if e.fresh => {
                let e = self.map.remove(op).expect("present");
                self.mem -= e.coin.map_or(0, |c| c.mem_usage());
            }
            Some(e) => {
                if let Some(c) = e.coin.take() {
                    self.mem -= c.out.script_pubkey.capacity();
                }
                e.dirty = true;
            }
            None => {
                self.mem += std::mem::size_of::<(OutPoint, Entry)>() + 16;
                self.map.insert(*op, Entry { coin: None, dirty: true, fresh: false });
            }
        }
    }

    /// Adds a coin. `possible_overwrite`: the store might hold a coin at `op` (Core passes the
    /// coinbase flag: only duplicate coinbases can overwrite), so it is not marked fresh.
    pub fn add(&mut self, op: OutPoint, coin: Coin, possible_overwrite: bool) {
        self.mem += coin.mem_usage();
        let fresh = match self.map.get(&op) {
            // A spent entry that the store still holds is never fresh (fresh ones are removed
            // when spent); an unspent entry keeps its flag.
            Some(e) => e.fresh,
            None => !possible_overwrite,
        };
        if let Some(old) = self.map.insert(op, Entry { coin: Some(coin), dirty: true, fresh }) {
            self.mem -= old.coin.map_or(std::mem::size_of::<(OutPoint, Entry)>() + 16, |c| c.mem_usage());
        }
    }

    /// Writes every dirty entry with `meta` and `headers` in one atomic commit, then empties the
    /// cache. Returns the number of coin records written or deleted. If the commit fails the
    /// cache keeps every change (as dirty, not fresh), so a later flush can retry.
    pub fn flush(&mut self, meta: ChainMeta, headers: Vec<(u32, [u8; 40])>) -> Result<usize, StoreError> {
        let coins: Vec<(OutPoint, Option<Coin>)> =
            self.map.drain().filter(|(_, e)| e.dirty).map(|(op, e)| (op, e.coin)).collect();
        let n = coins.len();
        let batch = FlushBatch { coins, headers, meta: Some(meta) };
        if let Err(e) = self.store.commit(&batch) {
            self.mem = 0;
            for (op, coin) in batch.coins {
                self.mem +=
                    coin.as_ref().map_or(std::mem::size_of::<(OutPoint, Entry)>() + 16, Coin::mem_usage);
                self.map.insert(op, Entry { coin, dirty: true, fresh: false });
            }
            return Err(e);
        }
        self.mem = 0;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coin(v: i64) -> Coin {
        Coin { out: TxOut { value: v, script_pubkey: vec![0x51] }, height: 7, coinbase: v % 2 == 0 }
    }

    fn meta() -> ChainMeta {
        ChainMeta { height: 1, hash: [1; 32], muhash: MuHash3072::new(), utxo_count: 0, total_amount: 0 }
    }

    #[test]
    fn fresh_coins_spent_before_flush_never_reach_the_store() {
        let mut c = CoinsCache::new(MemStore::new(), 1 << 20);
        let a = OutPoint { txid: [1; 32], vout: 0 };
        let b = OutPoint { txid: [2; 32], vout: 1 };
        c.add(a, coin(5), false);
        c.add(b, coin(6), false);
        c.spend(&a);
        assert_eq!(c.get(&a).unwrap(), None);
        assert_eq!(c.flush(meta(), vec![]).unwrap(), 1);
        assert_eq!(c.store().len(), 1);
        assert_eq!(c.get(&b).unwrap(), Some(coin(6)));
        // Spending a stored coin writes a deletion.
        c.spend(&b);
        assert_eq!(c.flush(meta(), vec![]).unwrap(), 1);
        assert!(c.store().is_empty());
    }

    #[test]
    fn muhash_delta_any_thread_count_vs_sequential() {
        let coins: Vec<(OutPoint, Coin)> = (0..1500u32)
            .map(|i| (OutPoint { txid: [(i % 251) as u8; 32], vout: i }, coin(i as i64)))
            .collect();
        let (spent, created) = coins.split_at(600);
        let mut want = MuHash3072::new();
        for (op, c) in spent {
            want.remove(&txout_ser(op, c));
        }
        for (op, c) in created {
            want.insert(&txout_ser(op, c));
        }
        let want = want.finalize();
        for t in [1, 2, 3, 8] {
            assert_eq!(muhash_delta(spent, created, t).finalize(), want, "threads {t}");
        }
    }

    #[test]
    fn coin_and_meta_round_trip() {
        let c = Coin {
            out: TxOut { value: 1234, script_pubkey: vec![1, 2, 3] },
            height: 500_000,
            coinbase: true,
        };
        assert_eq!(Coin::from_bytes(&c.to_bytes()), Some(c));
        let mut m = meta();
        m.muhash.insert(b"x");
        m.utxo_count = 9;
        m.total_amount = -3;
        assert_eq!(ChainMeta::from_bytes(&m.to_bytes()), Some(m));
    }

    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    #[test]
    fn disk_store_commit_is_visible_after_reopen() {
        let dir = std::env::temp_dir().join(format!("fullverify-utxo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = OutPoint { txid: [3; 32], vout: 2 };
        {
            let mut s = DiskStore::open(&dir).unwrap();
            assert_eq!(s.meta().unwrap(), None);
            s.commit(&FlushBatch {
                coins: vec![(a, Some(coin(8)))],
                headers: vec![(0, [9; 40])],
                meta: Some(meta()),
            })
            .unwrap();
        }
        let s = DiskStore::open(&dir).unwrap();
        assert_eq!(s.get(&a).unwrap(), Some(coin(8)));
        assert_eq!(s.meta().unwrap(), Some(meta()));
        assert_eq!(s.headers().unwrap(), vec![[9; 40]]);
        drop(s);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
