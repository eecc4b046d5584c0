// SPDX-License-Identifier: MIT OR Apache-2.0
//! The write-back coins cache (Core's `CCoinsViewCache` with its DIRTY/FRESH flags) over a
//! [`Store`], with a memory budget.

use super::coin::{txout_ser_into, Coin};
use super::outpoint_hash::OutPointMap;
use super::store::{txid_prefix, ChainMeta, FlushBatch, Store, StoreError, TXID_PREFIXES};
use super::txid_filter::TxidFilter;
use crate::encode::OutPoint;
use std::collections::hash_map::Entry as Slot;
use std::sync::{mpsc, Arc};

/// Bytes of one table bucket: the key and entry, and the table's control byte.
const BUCKET_MEM: usize = std::mem::size_of::<(OutPoint, Entry)>() + 1;

/// What writing one entry costs while its flush is in flight, beyond the entry itself: its
/// place in the sorted batch (48 bytes) while the store builds its own batch, the store's batch
/// item (80) with its key and value (about 90 more), and the store's memtable node once
/// committed (about 86). The on-disk store lets go of the sorted batch before it fills its
/// memtable, so at most about 260 bytes are held at once (`core/tests/cache_memory.rs`
/// measures the requested bytes; heaptrack put 304 on the utxo-heavy replay while the sorted
/// batch was kept to the end); rounded up, with the allocator's headers and rounding.
pub const FLUSH_ENTRY_MEM: usize = 320;

/// The heap block that holds `bytes` bytes as glibc's allocator lays it out: an 8-byte header,
/// rounded up to 16 bytes, 32 at least; nothing for an empty vector.
fn heap_block(bytes: usize) -> usize {
    if bytes == 0 {
        0
    } else {
        ((bytes + 8 + 15) & !15).max(32)
    }
}

/// The table memory of a map that can hold `capacity` entries without growing: a power of two
/// of buckets, 7/8 of which are usable, and one group of control bytes more.
fn table_mem(capacity: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = if capacity < 8 {
        (capacity + 1).next_power_of_two()
    } else {
        (capacity * 8 / 7).next_power_of_two()
    };
    buckets * BUCKET_MEM + 16
}

impl Coin {
    /// The heap memory the coin holds (its script), as the allocator counts it; the table
    /// slot it sits in is counted with the table.
    pub fn mem_usage(&self) -> usize {
        heap_block(self.out.script_pubkey.capacity())
    }
}

/// What an entry holds on the heap: its coin's script, nothing for a pending deletion.
fn entry_mem(coin: Option<&Coin>) -> usize {
    coin.map_or(0, Coin::mem_usage)
}

/// The error of a flush whose writer thread ended without answering.
fn writer_gone() -> StoreError {
    StoreError("the flush thread stopped".into())
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
/// except through [`CoinsCache::flush`] and [`CoinsCache::flush_in_background`].
///
/// A background flush takes the cache's entries away whole and writes them on a thread of its
/// own while the cache starts again empty. Until that commit lands, its entries sit between
/// the cache and the store: a read that misses the cache finds them there before the store,
/// so it never matters whether the store shows the commit yet. "Not in the store" (fresh)
/// means not in the store once the commit in flight has landed.
pub struct CoinsCache<S: Store> {
    store: Arc<S>,
    map: OutPointMap<Entry>,
    mem: usize,
    /// Dirty entries in `map` (what a flush of it writes).
    dirty: usize,
    budget: usize,
    /// The txids of the coins added to `map` (a superset: bits are only set), so that BIP30's
    /// question "may a coin of this transaction exist?" is answered without a lookup per output
    /// ([`CoinsCache::may_hold_txid`]). Coins read from the store are left out: the store's
    /// own answer covers them while it holds them, and once spent they are not unspent. Made
    /// at the first coin added, so that an empty cache holds nothing.
    txids: Option<TxidFilter>,
    /// The txid `txids` learnt last: a transaction's outputs are added one after another.
    last_txid: Option<[u8; 32]>,
    writing: Option<Writing>,
    /// The thread that writes background flushes, one after another, started on first use.
    writer: Option<Writer>,
    /// How far below its starter's priority the writer thread runs.
    writer_nice: u8,
}

/// A flush being written by the writer thread.
struct Writing {
    /// The entries it writes; read-only, shared with the writer.
    map: Arc<OutPointMap<Entry>>,
    /// The txids of the coins added to those entries while they were the cache's.
    txids: Option<TxidFilter>,
    /// The number of coin records written, or the commit's error, once done.
    done: std::sync::Mutex<mpsc::Receiver<Result<usize, StoreError>>>,
}

/// One flush for the writer thread: the entries and how many of them are dirty, the best block
/// and headers, and where to answer.
type Job = (
    Arc<OutPointMap<Entry>>,
    usize,
    ChainMeta,
    Vec<(u32, [u8; 40])>,
    mpsc::Sender<Result<usize, StoreError>>,
);

/// The writer thread and its queue. One thread for the cache's life, so every flush is
/// written by the same thread, in order.
struct Writer {
    jobs: mpsc::Sender<Job>,
    thread: std::thread::JoinHandle<()>,
}

/// The dirty entries of `map` as a batch in the store's key order (txid bytes, then output
/// index): an on-disk store's memtable is a skip list, where millions of random keys miss the
/// cache on every level of every insert and sorted ones find the last path cached (a
/// 4-million-coin flush took a quarter of the time).
/// `dirty` is the number of dirty entries (the batch is allocated at its exact size).
fn batch_of(
    map: &OutPointMap<Entry>,
    dirty: usize,
    meta: ChainMeta,
    headers: Vec<(u32, [u8; 40])>,
) -> FlushBatch<'_> {
    let mut coins: Vec<(OutPoint, Option<&Coin>)> = Vec::with_capacity(dirty);
    coins.extend(map.iter().filter(|(_, e)| e.dirty).map(|(op, e)| (*op, e.coin.as_ref())));
    debug_assert_eq!(coins.len(), dirty, "the dirty count matches the entries");
    FlushBatch::in_key_order(coins, headers, Some(meta))
}

/// Frees a large table away from the caller (tearing down millions of entries takes a good
/// part of a second); in place when it is small or no thread can be started.
fn free_elsewhere(map: OutPointMap<Entry>) {
    if map.len() >= 1 << 16 && !cfg!(target_arch = "wasm32") {
        // A thread that cannot be started drops its closure, and the table with it, here.
        let _ = std::thread::Builder::new().name("fv-free".into()).spawn(move || drop_prefetching(map));
    }
}

/// Drops a table's entries in its own order, each coin's script asked for [`FREE_AHEAD`]
/// entries before it is freed: freeing a script reads the allocator's header beside it, one
/// cache miss per coin that would otherwise come one after another.
fn drop_prefetching(mut map: OutPointMap<Entry>) {
    let mut window = std::collections::VecDeque::with_capacity(FREE_AHEAD);
    for (_, e) in map.drain() {
        if let Some(c) = &e.coin {
            super::prefetch::prefetch(c.out.script_pubkey.as_ptr());
        }
        if window.len() == FREE_AHEAD {
            window.pop_front();
        }
        window.push_back(e);
    }
}

/// How many entries ahead of the one it frees [`drop_prefetching`] asks for a script.
const FREE_AHEAD: usize = 16;

/// Txids the first stage of the cache's txid filter is sized for (8 KiB; each later stage holds
/// four times as many): the filter starts again empty at every flush, and a small cache (or a
/// chain of small blocks) should not pay for a large one.
const CACHE_TXIDS_FIRST: usize = 1 << 12;

impl<S: Store> CoinsCache<S> {
    /// An empty cache over `store` that asks to be flushed above `budget` bytes.
    pub fn new(store: S, budget: usize) -> CoinsCache<S> {
        CoinsCache {
            store: Arc::new(store),
            map: OutPointMap::default(),
            mem: 0,
            dirty: 0,
            budget,
            txids: None,
            last_txid: None,
            writing: None,
            writer: None,
            writer_nice: 0,
        }
    }

    /// Runs the thread that writes background flushes `nice` steps below the priority of the
    /// thread that starts it (Linux: its own nice value); takes effect when that thread starts,
    /// at the first background flush.
    pub fn set_writer_nice(&mut self, nice: u8) {
        self.writer_nice = nice;
    }

    /// The underlying store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Bytes used by the cache: its table (by capacity, not by the entries in it), the
    /// scripts its coins hold and its txid filter (not counting a flush still being written).
    pub fn mem_usage(&self) -> usize {
        self.mem + table_mem(self.map.capacity()) + self.txids.as_ref().map_or(0, TxidFilter::mem_usage)
    }

    /// Whether an unspent coin of the transaction `txid` may exist in the cache, a flush in
    /// flight or the store: `false` only if none does (a filter of each layer's txids; the
    /// store's own answer, [`Store::may_hold_txid`], for what it holds).
    pub fn may_hold_txid(&self, txid: &[u8; 32]) -> bool {
        let held = |f: &Option<TxidFilter>| f.as_ref().is_some_and(|f| f.may_contain(txid));
        held(&self.txids)
            || self.writing.as_ref().is_some_and(|w| held(&w.txids))
            || self.store.may_hold_txid(txid)
    }

    /// Hands the txid filter over with the entries it describes (to a flush); the next coin
    /// added starts a new one.
    fn take_txids(&mut self) -> Option<TxidFilter> {
        self.last_txid = None;
        self.txids.take()
    }

    /// Enters `txids` into the cache's txid filter, made if there is none.
    fn learn_txids(&mut self, txids: impl IntoIterator<Item = [u8; 32]>) {
        self.txids
            .get_or_insert_with(|| TxidFilter::with_first_capacity(CACHE_TXIDS_FIRST))
            .insert_all(txids);
    }

    /// What the cache costs once handed to a flush: its own memory and what writing its
    /// dirty entries takes on top ([`FLUSH_ENTRY_MEM`] each; clean ones are not written).
    pub fn flush_cost(&self) -> usize {
        self.mem_usage() + self.dirty * FLUSH_ENTRY_MEM
    }

    /// Dirty entries: coins added or spent since the last flush, which the next one writes.
    pub fn dirty_len(&self) -> usize {
        self.dirty
    }

    /// What the table's next growth would add while it moves its entries: the doubled table
    /// beside the old one. Counted once the table has less than an eighth of its capacity
    /// left, so that a few blocks' coins cannot reach the growth before the owner looks again;
    /// 0 before that.
    pub fn growth_cost(&self) -> usize {
        let capacity = self.map.capacity();
        if capacity - self.map.len() > capacity / 8 {
            return 0;
        }
        table_mem(capacity.max(1) * 2)
    }

    /// Whether the cache, once handed to a background flush, would take more than half the
    /// budget ([`CoinsCache::flush_cost`]), or would once its table grew
    /// ([`CoinsCache::growth_cost`]). The budget is what is left after the memory the store
    /// keeps resident ([`Store::resident_bytes`]); the flush in flight and the cache filling up
    /// again share it, so the owner flushes at half of it, and before a growth that would pass
    /// it rather than after (the grown table, mostly empty, would be handed to the flush whole).
    pub fn over_half_budget(&self) -> bool {
        self.flush_cost() + self.growth_cost() > self.budget.saturating_sub(self.store.resident_bytes()) / 2
    }

    /// Cached entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no entry is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The unspent coin at `op`, reading through a flush in flight and then the store (and
    /// caching what it read from the store).
    pub fn get(&mut self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        if let Some(c) = self.cached(op) {
            return Ok(c.clone());
        }
        let c = self.store.get(op)?;
        if let Some(c) = &c {
            self.keep_read(*op, c.clone());
        }
        Ok(c)
    }

    /// Whether `op` is unspent, reading it into the cache as [`CoinsCache::get`] does but
    /// without copying the coin out (reading ahead of a block only wants it cached).
    pub fn load(&mut self, op: &OutPoint) -> Result<bool, StoreError> {
        if let Some(c) = self.cached(op) {
            return Ok(c.is_some());
        }
        let c = self.store.get(op)?;
        let found = c.is_some();
        if let Some(c) = c {
            self.keep_read(*op, c);
        }
        Ok(found)
    }

    /// The cache's word on `op` (`Some(None)`: spent), then a flush in flight's.
    fn cached(&self, op: &OutPoint) -> Option<&Option<Coin>> {
        let e = self.map.get(op).or_else(|| self.writing.as_ref()?.map.get(op))?;
        Some(&e.coin)
    }

    /// Caches a coin read from the store, clean.
    fn keep_read(&mut self, op: OutPoint, c: Coin) {
        self.mem += c.mem_usage();
        self.map.insert(op, Entry { coin: Some(c), dirty: false, fresh: false });
    }

    /// Spends `op` (which must be unspent).
    pub fn spend(&mut self, op: &OutPoint) {
        match self.map.entry(*op) {
            Slot::Occupied(e) if e.get().fresh => {
                let e = e.remove();
                self.mem -= e.coin.map_or(0, |c| c.mem_usage());
                self.dirty -= 1;
            }
            Slot::Occupied(mut e) => {
                let e = e.get_mut();
                if let Some(c) = e.coin.take() {
                    self.mem -= c.mem_usage();
                }
                self.dirty += usize::from(!e.dirty);
                e.dirty = true;
            }
            Slot::Vacant(v) => {
                v.insert(Entry { coin: None, dirty: true, fresh: false });
                self.dirty += 1;
            }
        }
    }

    /// Adds a coin. `possible_overwrite`: the store might hold a coin at `op` (Core passes the
    /// coinbase flag: only duplicate coinbases can overwrite), so it is not marked fresh.
    pub fn add(&mut self, op: OutPoint, coin: Coin, possible_overwrite: bool) {
        self.mem += coin.mem_usage();
        if self.last_txid != Some(op.txid) {
            self.learn_txids([op.txid]);
            self.last_txid = Some(op.txid);
        }
        // One lookup: most coins added are new to the cache.
        match self.map.entry(op) {
            Slot::Occupied(mut e) => {
                // A spent entry that the store still holds is never fresh (fresh ones are
                // removed when spent); an unspent entry keeps its flag.
                let fresh = e.get().fresh;
                let old = e.insert(Entry { coin: Some(coin), dirty: true, fresh });
                self.mem -= entry_mem(old.coin.as_ref());
                self.dirty += usize::from(!old.dirty);
            }
            Slot::Vacant(v) => {
                v.insert(Entry { coin: Some(coin), dirty: true, fresh: !possible_overwrite });
                self.dirty += 1;
            }
        }
    }

    /// Calls `f` with every unspent coin: the cached ones, and the stored ones the cache does not
    /// override (spent or changed since the last flush). In no particular order.
    pub fn for_each_coin(&self, f: &mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), StoreError> {
        self.for_each_coin_in(0..TXID_PREFIXES, f)
    }

    /// [`CoinsCache::for_each_coin`] for the coins whose [`txid_prefix`] is in `prefixes`: the
    /// parts of a split key space can be walked on several threads at once. A flush in flight
    /// shadows the store for its keys, so whether the store shows it yet does not matter.
    pub fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError> {
        self.store.for_each_coin_in(prefixes.clone(), &mut |op, c| {
            if !self.shadows(op) {
                f(op, c)
            }
        })?;
        self.for_each_cached_coin_in(prefixes, f);
        Ok(())
    }

    /// [`CoinsCache::for_each_coin_in`] as MuHash elements (Core's `TxOutSer`): the store's
    /// coins as [`Store::for_each_element_in`] hands them over (from their records as they lie,
    /// on disk), the cached ones encoded.
    pub fn for_each_element_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&[u8]),
    ) -> Result<(), StoreError> {
        self.store.for_each_element_in(prefixes.clone(), &mut |op, e| {
            if !self.shadows(op) {
                f(e)
            }
        })?;
        let mut buf = Vec::with_capacity(128);
        self.for_each_cached_coin_in(prefixes, &mut |op, c| {
            txout_ser_into(op, c, &mut buf);
            f(&buf)
        });
        Ok(())
    }

    /// Whether the cache or the flush in flight holds an entry for `op`, which then stands for
    /// the store's.
    fn shadows(&self, op: &OutPoint) -> bool {
        self.map.contains_key(op) || self.writing.as_ref().is_some_and(|w| w.map.contains_key(op))
    }

    /// Calls `f` with the unspent coins of the flush in flight that the cache does not override
    /// and with the cache's own, whose [`txid_prefix`] is in `prefixes`.
    fn for_each_cached_coin_in(&self, prefixes: std::ops::Range<u32>, f: &mut dyn FnMut(&OutPoint, &Coin)) {
        for (op, e) in self.writing.as_ref().map(|w| &*w.map).into_iter().flatten() {
            if let (Some(c), true) = (&e.coin, prefixes.contains(&txid_prefix(op))) {
                if !self.map.contains_key(op) {
                    f(op, c);
                }
            }
        }
        for (op, e) in &self.map {
            if let (Some(c), true) = (&e.coin, prefixes.contains(&txid_prefix(op))) {
                f(op, c);
            }
        }
    }

    /// Writes every dirty entry with `meta` and `headers` in one atomic commit and waits for
    /// it, then empties the cache; a background flush still in flight lands first. Returns the
    /// number of coin records written or deleted. If a commit fails the cache keeps every
    /// change it did not write, so a later flush can retry.
    pub fn flush(&mut self, meta: ChainMeta, headers: Vec<(u32, [u8; 40])>) -> Result<usize, StoreError> {
        self.land()?;
        let map = std::mem::take(&mut self.map);
        let batch = batch_of(&map, self.dirty, meta, headers);
        let n = batch.coins.len();
        if let Err(e) = self.store.commit(batch) {
            self.map = map;
            return Err(e);
        }
        self.mem = 0;
        self.dirty = 0;
        self.take_txids();
        free_elsewhere(map);
        Ok(n)
    }

    /// Waits for a background flush in flight and takes its result: the coin records it wrote
    /// (`None` when there was none). If its commit failed, its entries come back into the cache
    /// under any newer ones, and the error is returned.
    pub fn land(&mut self) -> Result<Option<usize>, StoreError> {
        let Some(w) = self.writing.take() else { return Ok(None) };
        let done = w.done.lock().unwrap_or_else(|e| e.into_inner()).recv();
        self.finish(w, done.unwrap_or_else(|_| Err(writer_gone())))
    }

    /// Takes the answer of the flush `w`.
    fn finish(&mut self, w: Writing, done: Result<usize, StoreError>) -> Result<Option<usize>, StoreError> {
        match done {
            Ok(n) => {
                // The writer has let go of its reference: this one is the last.
                if let Ok(map) = Arc::try_unwrap(w.map) {
                    free_elsewhere(map);
                }
                Ok(Some(n))
            }
            Err(e) => {
                let map = Arc::try_unwrap(w.map).unwrap_or_else(|m| (*m).clone());
                let mut back = Vec::new();
                for (op, e) in map {
                    if e.dirty && !self.map.contains_key(&op) {
                        self.mem += entry_mem(e.coin.as_ref());
                        if e.coin.is_some() {
                            back.push(op.txid);
                        }
                        self.map.insert(op, e);
                        self.dirty += 1;
                    }
                }
                if !back.is_empty() {
                    self.learn_txids(back);
                }
                Err(e)
            }
        }
    }

    /// Whether a background flush is in flight.
    pub fn is_writing(&self) -> bool {
        self.writing.is_some()
    }

    /// [`CoinsCache::land`] if the background flush has finished writing; never waits.
    pub fn poll(&mut self) -> Result<Option<usize>, StoreError> {
        match &self.writing {
            Some(w) => {
                let answer = w.done.lock().unwrap_or_else(|e| e.into_inner()).try_recv();
                match answer {
                    Err(mpsc::TryRecvError::Empty) => Ok(None),
                    answer => {
                        let w = self.writing.take().expect("in flight");
                        self.finish(w, answer.unwrap_or_else(|_| Err(writer_gone())))
                    }
                }
            }
            _ => Ok(None),
        }
    }
}

impl<S: Store + 'static> CoinsCache<S> {
    /// [`CoinsCache::flush`] without waiting for the commit: the entries are taken away whole
    /// and written (sorted, as one atomic commit) by a thread of its own, and the cache starts
    /// again empty; reads find the entries in flight until they land ([`CoinsCache::poll`],
    /// [`CoinsCache::land`]). A flush already in flight lands first, so commits reach the store
    /// in order. On wasm, where there are no threads, the flush is done in place; elsewhere a
    /// writer thread that cannot be started is a [`StoreError`], with the cache unchanged.
    pub fn flush_in_background(
        &mut self,
        meta: ChainMeta,
        headers: Vec<(u32, [u8; 40])>,
    ) -> Result<(), StoreError> {
        self.land()?;
        if cfg!(target_arch = "wasm32") {
            return self.flush(meta, headers).map(drop);
        }
        if self.writer.is_none() {
            let nice = self.writer_nice;
            let (jobs, queue) = mpsc::channel::<Job>();
            let store = Arc::clone(&self.store);
            let thread = std::thread::Builder::new()
                .name("fv-flush".into())
                .spawn(move || {
                    super::store::lower_thread_priority(nice);
                    for (map, dirty, meta, headers, answer) in queue {
                        let batch = batch_of(&map, dirty, meta, headers);
                        let n = batch.coins.len();
                        let done = store.commit(batch).map(|()| n);
                        drop(map);
                        let _ = answer.send(done);
                    }
                })
                .map_err(|e| StoreError(format!("cannot start the flush thread: {e}")))?;
            self.writer = Some(Writer { jobs, thread });
        }
        let map = Arc::new(std::mem::take(&mut self.map));
        let dirty = std::mem::take(&mut self.dirty);
        let txids = self.take_txids();
        self.mem = 0;
        let (answer, done) = mpsc::channel();
        let writer = self.writer.as_ref().expect("started above");
        if let Err(mpsc::SendError((map, ..))) =
            writer.jobs.send((Arc::clone(&map), dirty, meta, headers, answer))
        {
            drop(map);
            self.writer = None;
        }
        self.writing = Some(Writing { map, txids, done: std::sync::Mutex::new(done) });
        Ok(())
    }
}

impl<S: Store> Drop for CoinsCache<S> {
    fn drop(&mut self) {
        // A commit in flight finishes before the store can be let go.
        if let Some(w) = self.writing.take() {
            let _ = w.done.lock().map(|d| d.recv());
        }
        if let Some(w) = self.writer.take() {
            drop(w.jobs);
            let _ = w.thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::utxo::tests::{coin, spread_txid};
    use crate::utxo::MemStore;

    impl<S: Store> CoinsCache<S> {
        /// Bytes of the table alone, by capacity.
        fn table_bytes(&self) -> usize {
            table_mem(self.map.capacity())
        }
    }

    #[test]
    fn the_cache_asks_for_a_flush_before_its_table_grows_past_half_the_budget() {
        // Coins added one at a time until the cache asks to be flushed, for budgets from 256 KiB
        // to 16 MiB: every growth of the table on the way held the old table beside the new one,
        // and that must have fitted in half the budget with everything else the cache held.
        let mut grown = 0;
        for budget in (16..=1024).map(|k: usize| k << 14) {
            let mut c = CoinsCache::new(MemStore::new(), budget);
            let mut i = 0u32;
            while !c.over_half_budget() {
                let (cost, table) = (c.flush_cost(), c.table_bytes());
                c.add(OutPoint { txid: spread_txid(i), vout: 0 }, coin(i64::from(i)), false);
                if c.table_bytes() > table {
                    grown += 1;
                    let held = cost + c.table_bytes();
                    assert!(
                        held <= budget / 2,
                        "budget {budget}, coin {i}: growth to {} held {held}",
                        c.table_bytes()
                    );
                }
                i += 1;
            }
            // Not long before it had to: the cache uses a good part of its half.
            assert!(c.flush_cost() > budget / 6, "budget {budget}: asked at {}", c.flush_cost());
        }
        assert!(grown > 1000, "{grown} growths seen");
    }
}
