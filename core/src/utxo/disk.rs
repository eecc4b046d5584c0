// SPDX-License-Identifier: MIT OR Apache-2.0
//! The on-disk store: a fjall keyspace (feature `store`, not on wasm32).

use super::coin::{outpoint_from_key, outpoint_key, txout_ser_of_record, Coin};
use super::prefetch::prefetch;
use super::store::{ChainMeta, FlushBatch, Store, StoreError};
use super::txid_filter::TxidFilter;
use crate::encode::OutPoint;
use crate::hash::Sha256;
use std::fmt;

/// The on-disk [`Store`]: a fjall keyspace with partitions `coins`, `headers` and `meta`.
/// A flush is one cross-partition write batch followed by a full sync, and, once the coins'
/// memtables hold 4 MiB or more, a wait for them to be written to a table.
///
/// A filter over the txids of the stored coins, kept in memory, answers most lookups of coins
/// the store does not hold (BIP30's) without reading it; it learns a batch's txids before every
/// commit writes, is saved beside the store when the store is dropped, and when the store is
/// opened it is read back from there if the keyspace has taken no write since the save, or
/// else filled from the keys.
pub struct DiskStore {
    dir: std::path::PathBuf,
    keyspace: fjall::Keyspace,
    coins: fjall::PartitionHandle,
    headers: fjall::PartitionHandle,
    meta: fjall::PartitionHandle,
    txids: TxidFilter,
    /// Whether the txid filter was read back from [`FILTER_FILE`] rather than filled.
    filter_read_back: bool,
}

/// The error for a coin record (or key) that does not decode.
fn corrupt_record(key: &[u8]) -> StoreError {
    match outpoint_from_key(key) {
        Some(op) => StoreError(format!("corrupt coin {op:?}")),
        None => StoreError("bad coin key".into()),
    }
}

fn se<E: fmt::Display>(e: E) -> StoreError {
    StoreError(e.to_string())
}

/// The keyspace's marker file: present once fjall has created a keyspace, and then recovered.
const KEYSPACE_MARKER: &str = "version";
/// The keyspace's folders besides its marker.
const KEYSPACE_FOLDERS: [&str; 2] = ["partitions", "journals"];
/// Present, as a file, while a new store is being made in the directory: written and synced
/// before the keyspace's first file, removed once the whole keyspace is synced. (Earlier
/// versions made the store in a folder of this name and moved it into place.)
const CREATING: &str = ".creating";
/// The txid filter saved by a store that was dropped: [`FILTER_MAGIC`], the keyspace's sequence
/// number and the SHA-256 of the best-block record (absent: of nothing) when it was saved, the
/// filter ([`TxidFilter::to_bytes`]), and the SHA-256 of all that.
///
/// Opening reads it back only when the checksum holds and both fingerprints equal the store's
/// as recovered, and removes it either way. Every write to the keyspace takes a new sequence
/// number, so a store written after the save (by any process, or a later commit of this one)
/// no longer matches; one that lost writes to a crash matches only if it lost every write made
/// since the save, and then holds what it held at the save. The filter is a superset of the
/// txids of every coin committed while it was in memory, so it never reports a held txid absent.
pub(super) const FILTER_FILE: &str = "txids.filter";
/// Where [`FILTER_FILE`] is written before it is renamed into place.
const FILTER_TMP: &str = "txids.filter.tmp";
/// The first bytes of [`FILTER_FILE`] (its format's version in the last).
const FILTER_MAGIC: &[u8; 8] = b"fvtxidf1";
/// The block cache of [`DiskStore::open`]: the largest Core gives its coins database.
const DEFAULT_CACHE_BYTES: u64 = 8 << 20;

/// The key of the tombstones [`DiskStore::write_out_recovered`] writes to wake fjall's flush
/// thread (in the `meta` partition, whose only other key is `best`).
const WAKE_KEY: &[u8] = b"wake";
/// The heap fjall's block cache holds per byte of its capacity, and beside it. The cache weighs
/// a table block by its uncompressed length but keeps it decoded, each key and value an
/// allocation of its own, with a table sized for a million entries: filled by random reads
/// (`core/tests/cache_memory.rs`), a 1 MiB cache held 3.1 MiB, a 4 MiB one 8.2 MiB and a
/// 16 MiB one 28.6 MiB.
const BLOCK_CACHE_HEAP_PER_BYTE: u64 = 2;
/// See [`BLOCK_CACHE_HEAP_PER_BYTE`].
const BLOCK_CACHE_HEAP_FIXED: u64 = 2 << 20;

impl DiskStore {
    /// Calls `f` with the key and record of every stored coin whose txid prefix is in
    /// `prefixes`, in key order; the first error (the store's or `f`'s) ends the walk.
    fn for_each_record_in(
        &self,
        prefixes: std::ops::Range<u32>,
        mut f: impl FnMut(&[u8], &[u8]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        use std::ops::Bound;
        if prefixes.is_empty() {
            return Ok(());
        }
        // Keys start with the txid, so a prefix range is a key range: from the first prefix's
        // two bytes (below every key that starts with them) to the end prefix's two bytes
        // (below every key of that prefix), or to the end of the key space.
        let from = Bound::Included((prefixes.start as u16).to_be_bytes());
        let to = u16::try_from(prefixes.end).map_or(Bound::Unbounded, |p| Bound::Excluded(p.to_be_bytes()));
        for kv in self.coins.range((from, to)) {
            let (k, v) = kv.map_err(se)?;
            f(&k, &v)?;
        }
        Ok(())
    }

    /// Writes `record` under `key` in the coins partition as it is, bypassing the coin
    /// encoding (tests: a damaged record).
    #[cfg(test)]
    pub(crate) fn put_raw_record(&self, key: &[u8], record: &[u8]) {
        self.coins.insert(key, record).expect("insert");
    }

    /// Opens the store in `dir`, or creates it when `dir` is missing or empty.
    ///
    /// A new store is made whole (keyspace and partitions, synced) or not at all: the file
    /// `.creating` is made durable before the keyspace's first file and removed once the
    /// keyspace is synced, so a process killed while creating it leaves a directory that says
    /// so. fjall alone does not guarantee that: a partition is marked initialized before its
    /// level manifest is written, and a keyspace killed between the two cannot be opened again.
    /// The leftovers of a creation that was stopped are removed and the store is made again;
    /// any other file in a directory without a store is refused, never overwritten.
    ///
    /// The new keyspace is the one used: fjall closes a keyspace only after its monitor thread
    /// wakes (every 250 ms), so a create-close-reopen would cost a quarter of a second.
    pub fn open(dir: &std::path::Path) -> Result<DiskStore, StoreError> {
        DiskStore::open_with(dir, DEFAULT_CACHE_BYTES)
    }

    /// [`DiskStore::open`] with a block cache of `cache_bytes` (decoded data blocks read from
    /// disk, shared by the partitions).
    pub fn open_with(dir: &std::path::Path, cache_bytes: u64) -> Result<DiskStore, StoreError> {
        DiskStore::open_niced(dir, cache_bytes, 0)
    }

    /// [`DiskStore::open_with`], the threads fjall starts for the store (flushing memtables,
    /// compacting, monitoring) running `nice` steps below the calling thread's priority on Linux
    /// (their own nice value): when the CPUs are short, the threads that validate go first and
    /// the store's upkeep takes the time left. Nothing elsewhere, nor with `nice` 0.
    pub fn open_niced(dir: &std::path::Path, cache_bytes: u64, nice: u8) -> Result<DiskStore, StoreError> {
        let creating = dir.join(CREATING);
        let marker = dir.join(KEYSPACE_MARKER).try_exists().map_err(|e| io(dir, e))?;
        let interrupted = std::fs::symlink_metadata(&creating).is_ok_and(|m| m.is_file());
        if !marker || interrupted {
            return create(dir, cache_bytes, nice, coins_options(L0_TABLES, TABLE_BYTES));
        }
        if creating.is_dir() {
            // The staging folder of an earlier version, left empty after its store was moved
            // into place (the marker moves last).
            std::fs::remove_dir_all(&creating).map_err(|e| io(&creating, e))?;
        }
        let keyspace = open_keyspace(keyspace_config(dir, cache_bytes), nice)?;
        DiskStore::with_partitions(dir, keyspace, coins_options(L0_TABLES, TABLE_BYTES))
    }

    /// A new store in `dir` whose coins are compacted with `l0_tables` and `table_bytes` (tests:
    /// compaction that merges after a few megabytes rather than a gigabyte).
    #[cfg(test)]
    pub(crate) fn create_with_compaction(
        dir: &std::path::Path,
        l0_tables: u8,
        table_bytes: u32,
    ) -> Result<DiskStore, StoreError> {
        create(dir, DEFAULT_CACHE_BYTES, 0, coins_options(l0_tables, table_bytes))
    }

    /// Opens the partitions; `coins` gives the options of a coins partition made now.
    fn with_partitions(
        dir: &std::path::Path,
        keyspace: fjall::Keyspace,
        coins: fjall::PartitionCreateOptions,
    ) -> Result<DiskStore, StoreError> {
        let opts = fjall::PartitionCreateOptions::default;
        let coins = keyspace.open_partition("coins", coins).map_err(se)?;
        let headers = keyspace.open_partition("headers", opts()).map_err(se)?;
        let meta = keyspace.open_partition("meta", opts()).map_err(se)?;
        // Before anything is written (the recovery below writes): the state the filter was saved for.
        let fingerprint = filter_fingerprint(&keyspace, &meta)?;
        let saved = read_filter(dir, &fingerprint);
        let read_back = saved.is_some();
        let txids = match saved {
            Some(f) => f,
            None => {
                let txids = TxidFilter::new();
                let mut failed = None;
                txids.insert_all(coins.keys().map_while(|k| {
                    let op = k
                        .map_err(se)
                        .and_then(|k| outpoint_from_key(&k).ok_or_else(|| StoreError("bad coin key".into())));
                    op.map(|op| op.txid).map_err(|e| failed = Some(e)).ok()
                }));
                if let Some(e) = failed {
                    return Err(e);
                }
                txids
            }
        };
        let store = DiskStore {
            dir: dir.to_path_buf(),
            keyspace,
            coins,
            headers,
            meta,
            txids,
            filter_read_back: read_back,
        };
        store.write_out_recovered()?;
        Ok(store)
    }

    /// Whether the txid filter was read back from the file a cleanly dropped store saved, rather
    /// than filled from every key, when the store opened.
    pub fn filter_read_back(&self) -> bool {
        self.filter_read_back
    }

    /// Writes to tables every memtable fjall recovered from the journals when it opened the
    /// keyspace, and waits for them.
    ///
    /// The store never seals the headers' and best-block record's memtables, so their journals
    /// pile up, and a keyspace opened after a process ended without closing it (killed, or a
    /// replay that exits with its store left open) recovers a memtable of each per journal, and
    /// the coins' that had not been written. fjall queues them all but wakes its flush thread
    /// only once per partition, and each wake writes [`FLUSH_TASKS_PER_WAKE`] of them: the rest
    /// stayed queued ahead of the coins' next memtable, and the first write-out, which waits
    /// for that one ([`DiskStore::seal_coins_table`]), waited for ever (a replay resumed at
    /// height 9,000 of the 20-million-coin corpus hung there). Each wake given here (a
    /// tombstone of a key no one reads, sealed in the record's memtable) queues one memtable and
    /// writes up to [`FLUSH_TASKS_PER_WAKE`], so the backlog shrinks to nothing.
    fn write_out_recovered(&self) -> Result<(), StoreError> {
        use fjall::AbstractTree;
        let sealed = || {
            [&self.coins, &self.headers, &self.meta]
                .iter()
                .map(|p| p.tree.sealed_memtable_count())
                .sum::<usize>()
        };
        let mut last = usize::MAX;
        self.wait_for_flush_thread(|| {
            let now = sealed();
            if now > 0 && now >= last {
                self.meta.remove(WAKE_KEY).map_err(se)?;
                self.meta.rotate_memtable().map_err(se)?;
            }
            last = now;
            Ok(now > 0)
        })
    }

    /// Waits, with a pause doubling from 100 µs to 10 ms between looks, until `work_left` says
    /// the flush thread has nothing more to write; `work_left` may wake the thread as it looks.
    /// A flush thread that failed poisons the keyspace, and the next look returns its error
    /// instead of waiting for a table that never comes.
    fn wait_for_flush_thread(
        &self,
        mut work_left: impl FnMut() -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        let mut pause = std::time::Duration::from_micros(100);
        while work_left()? {
            // Writes nothing after a synced commit; fails once the keyspace is poisoned.
            self.keyspace.persist(fjall::PersistMode::Buffer).map_err(se)?;
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(10));
        }
        Ok(())
    }

    /// Writes the coins' memtables to tables once they hold [`WRITE_OUT_BYTES`] or more, and
    /// waits until fjall's flush thread has written them.
    ///
    /// fjall keeps written coins in memtables (16 MiB each, up to 64 MiB in all) until its
    /// flush thread writes them out, after the cache has handed their memory back: a large
    /// flush of the cache would briefly hold its coins twice, once in the memtables and once in
    /// the cache filling again, and every read probes the memtables first. A small commit (a
    /// flush after every block) leaves its coins to collect until they pass the threshold, so
    /// that the wait comes once per [`WRITE_OUT_BYTES`] rather than once per commit.
    ///
    /// A flush thread that fails poisons the keyspace and stops; the wait checks for that
    /// between looks and returns the error instead of waiting for a table that never comes.
    fn write_out_coins(&self) -> Result<(), StoreError> {
        use fjall::AbstractTree;
        let tree = &self.coins.tree;
        if tree.active_memtable_size() < WRITE_OUT_BYTES && tree.sealed_memtable_count() == 0 {
            return Ok(());
        }
        self.seal_coins_table()
    }

    /// Seals the coins' memtable and waits until fjall's flush thread has written every sealed
    /// one to a table; the error of a failed flush thread (a poisoned keyspace) ends the wait.
    pub(super) fn seal_coins_table(&self) -> Result<(), StoreError> {
        use fjall::AbstractTree;
        let tree = &self.coins.tree;
        self.coins.rotate_memtable().map_err(se)?;
        self.wait_for_flush_thread(|| Ok(tree.sealed_memtable_count() > 0))
    }

    /// Syncs everything written to disk, journals included (tests).
    #[cfg(test)]
    pub(crate) fn sync_all(&self) {
        self.keyspace.persist(fjall::PersistMode::SyncAll).expect("sync");
    }

    /// Bytes held by the coins partition's active memtable (tests).
    #[cfg(test)]
    pub(crate) fn coins_memtable_bytes(&self) -> u64 {
        use fjall::AbstractTree;
        u64::from(self.coins.tree.active_memtable_size())
    }

    /// The heap the block cache may hold once full: twice its capacity plus 2 MiB, because
    /// fjall counts the capacity in uncompressed block bytes and holds the blocks decoded.
    pub fn block_cache_heap(&self) -> usize {
        (self.keyspace.cache_capacity() * BLOCK_CACHE_HEAP_PER_BYTE + BLOCK_CACHE_HEAP_FIXED) as usize
    }

    /// Bytes held in memory by the txid filter.
    pub fn filter_mem_usage(&self) -> usize {
        self.txids.mem_usage()
    }

    /// The coins partition's tables on disk and the memtable flushes that made them (tests).
    #[cfg(test)]
    pub(crate) fn coins_tables(&self) -> (usize, usize) {
        (self.coins.segment_count(), self.coins.flushes_completed())
    }
}

/// The options a new `coins` partition is made with (fjall keeps a partition's options from its
/// creation; a store made before keeps its own): leveled compaction with tables of
/// `table_bytes`, ten times larger levels, and `l0_tables` tables from memtable flushes before
/// they are merged into level 1.
///
/// fjall's default is 4 such tables. The coins are random keys, so every table a memtable flush
/// writes spans the whole key space, and merging it into level 1 rewrites all of level 1. A flush
/// of the cache writes hundreds of thousands of coins, a few memtables' worth; with 4 tables
/// nearly every flush rewrote level 1, ever more of it as the set grew. With [`L0_TABLES`] it
/// is rewritten a quarter as often (and level 1 holds four times as much), at the cost of more
/// tables for a point read to look at, each behind a bloom filter.
fn coins_options(l0_tables: u8, table_bytes: u32) -> fjall::PartitionCreateOptions {
    let levels =
        fjall::compaction::Leveled { l0_threshold: l0_tables, target_size: table_bytes, level_ratio: 10 };
    fjall::PartitionCreateOptions::default().compaction_strategy(fjall::compaction::Strategy::Leveled(levels))
}

/// Memtable flushes' tables the coins partition holds before merging them into level 1.
const L0_TABLES: u8 = 16;
/// The level-0 table count at which fjall 2 halts every write until a merge has taken tables
/// out of level 0 (it slows them from 20). A merge threshold above it is never reached: the
/// commit waits for a merge that never starts (a replay with 48 stopped making progress).
const FJALL_L0_HALT: u8 = 32;
const _: () = assert!(L0_TABLES <= FJALL_L0_HALT, "level 0 would fill past fjall's write halt");
/// The coins' memtable bytes past which a commit writes them to a table and waits for it
/// (see [`DiskStore::write_out_coins`]).
pub(super) const WRITE_OUT_BYTES: u32 = 4 << 20;
/// The size of the coins' tables after compaction (fjall's default).
const TABLE_BYTES: u32 = 64 << 20;
/// How many coins ahead of the one it writes a commit asks for a coin's memory (and half as
/// many for its script's): a coin takes some 100–200 ns to write, a miss to memory about 100.
const PREFETCH_AHEAD: usize = 16;

fn io(path: &std::path::Path, e: std::io::Error) -> StoreError {
    StoreError(format!("{}: {e}", path.display()))
}

fn sync_dir(dir: &std::path::Path) -> Result<(), StoreError> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io(dir, e))
}

/// How many of the queued memtables fjall's flush thread writes each time it is woken (its
/// "flush workers" count; the number of CPUs up to 4 by default). The thread is woken once per
/// memtable sealed, so with one a backlog never shrinks; each write also wakes the compaction
/// thread this many times, so it is not set without bound.
const FLUSH_TASKS_PER_WAKE: usize = 8;

/// How a store's keyspace is configured: a block cache of `cache_bytes`, and
/// [`FLUSH_TASKS_PER_WAKE`].
fn keyspace_config(dir: &std::path::Path, cache_bytes: u64) -> fjall::Config {
    fjall::Config::new(dir).cache_size(cache_bytes).flush_workers(FLUSH_TASKS_PER_WAKE)
}

/// Opens `config`'s keyspace. With `nice` above 0 on Linux it is opened from a thread of its
/// own whose priority is lowered first: the threads fjall starts there inherit it (a thread's
/// priority cannot be raised back without privilege, so the caller's own is left alone).
fn open_keyspace(config: fjall::Config, nice: u8) -> Result<fjall::Keyspace, StoreError> {
    if nice == 0 || !cfg!(target_os = "linux") {
        return config.open().map_err(se);
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            super::store::lower_thread_priority(nice);
            config.open().map_err(se)
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// Makes an empty store in `dir` and opens it (see [`DiskStore::open`]).
fn create(
    dir: &std::path::Path,
    cache_bytes: u64,
    nice: u8,
    coins: fjall::PartitionCreateOptions,
) -> Result<DiskStore, StoreError> {
    use std::fs;
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name();
        let path = entry.path();
        let leftover = name == CREATING
            || name == KEYSPACE_MARKER
            || name == FILTER_FILE
            || name == FILTER_TMP
            || KEYSPACE_FOLDERS.iter().any(|f| name == *f);
        if !leftover {
            return Err(StoreError(format!(
                "{} holds {} but no chain state: give an empty or new directory",
                dir.display(),
                name.to_string_lossy()
            )));
        }
        if name == CREATING {
            // Kept until the new store is whole, so a kill from here on is seen as one.
            continue;
        }
        let removed = if entry.file_type().map_err(|e| io(&path, e))?.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.map_err(|e| io(&path, e))?;
    }
    let creating = dir.join(CREATING);
    if creating.is_dir() {
        fs::remove_dir_all(&creating).map_err(|e| io(&creating, e))?;
    }
    fs::File::create(&creating).and_then(|f| f.sync_all()).map_err(|e| io(&creating, e))?;
    sync_dir(dir)?;
    let keyspace = open_keyspace(keyspace_config(dir, cache_bytes), nice)?;
    let store = DiskStore::with_partitions(dir, keyspace, coins)?;
    store.keyspace.persist(fjall::PersistMode::SyncAll).map_err(se)?;
    sync_dir(dir)?;
    fs::remove_file(&creating).map_err(|e| io(&creating, e))?;
    sync_dir(dir)?;
    Ok(store)
}

impl Drop for DiskStore {
    /// Saves the txid filter for the next opening. A store that cannot (a full disk, a failed
    /// keyspace) leaves no file, and the next opening fills the filter from the keys.
    fn drop(&mut self) {
        let _ = Store::save_for_reopening(self);
    }
}

/// What [`FILTER_FILE`] must match: the keyspace's sequence number (LE u64) and the SHA-256 of
/// the best-block record, or of nothing when there is none.
fn filter_fingerprint(
    keyspace: &fjall::Keyspace,
    meta: &fjall::PartitionHandle,
) -> Result<[u8; 40], StoreError> {
    let best = meta.get(b"best").map_err(se)?;
    let mut out = [0u8; 40];
    out[..8].copy_from_slice(&keyspace.instant().to_le_bytes());
    out[8..].copy_from_slice(&crate::hash::sha256(best.as_deref().unwrap_or_default()));
    Ok(out)
}

/// The filter saved in `dir`'s [`FILTER_FILE`] if its checksum holds and it was saved for
/// `fingerprint`; the file (and any unfinished save) is removed either way, so a later state
/// of the store can never meet it.
fn read_filter(dir: &std::path::Path, fingerprint: &[u8; 40]) -> Option<TxidFilter> {
    let _ = std::fs::remove_file(dir.join(FILTER_TMP));
    let path = dir.join(FILTER_FILE);
    let bytes = std::fs::read(&path).ok()?;
    let _ = std::fs::remove_file(&path);
    decode_filter_file(&bytes, fingerprint)
}

/// The filter in the bytes of a [`FILTER_FILE`], if they are one saved for `fingerprint`.
fn decode_filter_file(bytes: &[u8], fingerprint: &[u8; 40]) -> Option<TxidFilter> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(32)?)?;
    let rest = body.strip_prefix(FILTER_MAGIC)?.strip_prefix(fingerprint)?;
    if crate::hash::sha256(body)[..] != *sum {
        return None;
    }
    TxidFilter::from_bytes(rest)
}

impl Store for DiskStore {
    /// The block cache at its full heap ([`DiskStore::block_cache_heap`]), the coins tables'
    /// bloom filters (fjall keeps each table's filter in memory, about ten bits a coin below
    /// its first levels, and a compaction's new tables' beside the old ones' until it ends) and
    /// the txid filter.
    fn resident_bytes(&self) -> usize {
        use fjall::AbstractTree;
        self.block_cache_heap() + self.coins.tree.bloom_filter_size() + self.txids.mem_usage()
    }
    fn may_hold_txid(&self, txid: &[u8; 32]) -> bool {
        self.txids.may_contain(txid)
    }
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        if !self.txids.may_contain(&op.txid) {
            return Ok(None);
        }
        match self.coins.get(outpoint_key(op)).map_err(se)? {
            Some(v) => {
                Coin::from_bytes(&v).map(Some).ok_or_else(|| StoreError(format!("corrupt coin {op:?}")))
            }
            None => Ok(None),
        }
    }
    fn commit(&self, batch: FlushBatch<'_>) -> Result<(), StoreError> {
        // Sized up front: a flush of millions of coins would otherwise grow the batch by
        // doubling, up to twice the memory it needs. Buffered as `Keyspace::batch` does; the
        // sync follows the commit.
        let items = batch.coins.len() + batch.headers.len() + 1;
        // The filter learns the batch's txids before any of its coins can be read.
        self.txids.insert_all(batch.coins.iter().filter(|(_, c)| c.is_some()).map(|(op, _)| op.txid));
        let mut b = fjall::Batch::with_capacity(self.keyspace.clone(), items)
            .durability(Some(fjall::PersistMode::Buffer));
        // fjall copies each record into its own allocation: one buffer serves every coin.
        let mut record = Vec::with_capacity(64);
        let coins = &batch.coins;
        for (i, (op, c)) in coins.iter().enumerate() {
            // In key order each coin is a cache miss in the cache's table and its script one
            // more in the heap, the second waiting on the first: ask for both ahead, the coin
            // [`PREFETCH_AHEAD`] places before it is written and its script half as many.
            if let Some((_, Some(ahead))) = coins.get(i + PREFETCH_AHEAD) {
                prefetch(*ahead);
            }
            if let Some((_, Some(near))) = coins.get(i + PREFETCH_AHEAD / 2) {
                prefetch(near.out.script_pubkey.as_ptr());
            }
            match c {
                Some(c) => {
                    c.write_to(&mut record);
                    b.insert(&self.coins, outpoint_key(op), record.as_slice());
                }
                None => b.remove(&self.coins, outpoint_key(op)),
            }
        }
        for (h, rec) in &batch.headers {
            b.insert(&self.headers, h.to_be_bytes(), rec.to_vec());
        }
        if let Some(m) = &batch.meta {
            b.insert(&self.meta, b"best", m.to_bytes());
        }
        // The sorted list of coins is not needed once fjall's batch holds their records: let
        // it go before the records are copied into the memtables, where a flush's memory peaks.
        drop(batch);
        b.commit().map_err(se)?;
        self.keyspace.persist(fjall::PersistMode::SyncAll).map_err(se)?;
        self.write_out_coins()
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        match self.meta.get(b"best").map_err(se)? {
            Some(v) => ChainMeta::from_bytes(&v)
                .map(Some)
                .ok_or_else(|| StoreError("corrupt best-block record".into())),
            None => Ok(None),
        }
    }
    fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError> {
        self.for_each_record_in(prefixes, |k, v| {
            let op = outpoint_from_key(k).ok_or_else(|| corrupt_record(k))?;
            let coin = Coin::from_bytes(v).ok_or_else(|| corrupt_record(k))?;
            f(&op, &coin);
            Ok(())
        })
    }
    fn for_each_element_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &[u8]),
    ) -> Result<(), StoreError> {
        let mut buf = Vec::with_capacity(128);
        self.for_each_record_in(prefixes, |k, v| {
            let op = txout_ser_of_record(k, v, &mut buf).ok_or_else(|| corrupt_record(k))?;
            f(&op, &buf);
            Ok(())
        })
    }
    /// Saves the txid filter to `txids.filter` in the store's folder for the next opening,
    /// after syncing every write (so the sequence number it records is the one a reopened
    /// keyspace recovers).
    fn save_for_reopening(&self) -> Result<(), StoreError> {
        self.keyspace.persist(fjall::PersistMode::SyncAll).map_err(se)?;
        let mut head = FILTER_MAGIC.to_vec();
        head.extend_from_slice(&filter_fingerprint(&self.keyspace, &self.meta)?);
        let filter = self.txids.to_bytes();
        let mut sum = Sha256::new();
        sum.update(&head);
        sum.update(&filter);
        let (tmp, path) = (self.dir.join(FILTER_TMP), self.dir.join(FILTER_FILE));
        let written = (|| {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&head)?;
            f.write_all(&filter)?;
            f.write_all(&sum.finalize())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&path, e));
        }
        sync_dir(&self.dir)
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
