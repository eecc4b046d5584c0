// SPDX-License-Identifier: MIT OR Apache-2.0
//! The coins cache's memory accounting against what it really allocates: a counting global
//! allocator (this test binary's own) measures the bytes the cache's table and coins hold, and
//! `CoinsCache::mem_usage` must neither undercount them nor overstate them by more than the
//! allocator's rounding. `--dbcache` bounds the process only if this count is honest.

use fullverify::encode::{OutPoint, TxOut};
use fullverify::utxo::{ChainMeta, Coin, CoinsCache, MemStore};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Bytes allocated less bytes freed by this thread (tests run on threads of their own, so
    /// one test does not see another's allocations).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The highest `LIVE` has been since the last [`reset_peak`].
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // A thread being torn down has no counter left; nothing of a test happens there.
    let _ = LIVE.try_with(|l| {
        l.set(l.get() + delta);
        let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
    });
}

/// Starts a new peak at the bytes held now.
fn reset_peak() {
    PEAK.with(|p| p.set(live()));
}

fn peak() -> isize {
    PEAK.with(Cell::get)
}

// SAFETY: every call is forwarded to the system allocator with the same layout; the counter is
// only arithmetic beside it (a const-initialized thread local, which never allocates).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: ptr was allocated by this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> isize {
    LIVE.with(Cell::get)
}

fn op(i: u32) -> OutPoint {
    let mut txid = [0u8; 32];
    txid[..4].copy_from_slice(&i.wrapping_mul(2_654_435_761).to_le_bytes());
    txid[4..8].copy_from_slice(&i.to_le_bytes());
    OutPoint { txid, vout: i % 3 }
}

/// Scripts of the sizes the eras use: P2PKH 25, P2WPKH 22, P2TR 34, P2PK 35 and 67, bare
/// multisig 105, and an empty one.
fn coin(i: u32) -> Coin {
    let len = [25, 22, 34, 35, 67, 105, 0][i as usize % 7];
    Coin { out: TxOut { value: i as i64, script_pubkey: vec![0x51; len] }, height: i, coinbase: false }
}

/// Requested bytes held, against the cache's count: the count may round each script up to the
/// allocator's block (at most 8 + 15 bytes more, or 32 for a tiny one) but never fall short.
fn check(c: &CoinsCache<MemStore>, base: isize, coins: usize, what: &str) {
    let held = (live() - base) as usize;
    let counted = c.mem_usage();
    assert!(counted >= held, "{what}: counted {counted} < held {held}");
    assert!(counted <= held + 32 * coins + 64, "{what}: counted {counted} for {held} held ({coins} coins)");
}

#[test]
fn mem_usage_counts_the_table_and_scripts_the_cache_allocates() {
    let mut c = CoinsCache::new(MemStore::new(), 1 << 30);
    let base = live();
    assert_eq!(c.mem_usage(), 0);
    // Through several table growths, including the sizes right after one (half empty).
    for n in [1u32, 7, 8, 100, 1_000, 1_793, 1_800, 20_000, 100_000] {
        for i in c.len() as u32..n {
            c.add(op(i), coin(i), false);
        }
        check(&c, base, n as usize, &format!("{n} coins"));
    }
    // Spending fresh coins frees their scripts; stored ones become deletions (no script).
    for i in (0..100_000).step_by(2) {
        c.spend(&op(i));
    }
    check(&c, base, 50_000, "after spending half");
    let meta = ChainMeta { height: 1, hash: [1; 32], muhash: None, utxo_count: 50_000, total_amount: 0 };
    c.flush(meta, vec![]).unwrap();
    assert_eq!(c.mem_usage(), 0);
    // Reads cache what they fetch from the store; spends of stored coins leave deletions.
    let base = live();
    for i in (1..100_000).step_by(2).take(10_000) {
        assert!(c.get(&op(i)).unwrap().is_some());
    }
    for i in (1..100_000).step_by(2).skip(10_000).take(5_000) {
        c.spend(&op(i));
    }
    check(&c, base, 10_000, "after reads and deletions");
}

#[test]
fn a_cache_flushed_at_half_its_budget_stays_within_it() {
    // Filled as the chain state fills it: coins added until over_half_budget, then flushed.
    let budget = 8 << 20;
    let mut c = CoinsCache::new(MemStore::new(), budget);
    let base = live();
    let mut i = 0u32;
    while !c.over_half_budget() {
        c.add(op(i), coin(i), false);
        i += 1;
    }
    let held = (live() - base) as usize;
    assert!(held <= budget / 2, "{held} bytes held under a budget of {budget}");
    // What writing these entries costs is reserved beside them.
    assert!(c.flush_cost() >= held + c.len() * fullverify::utxo::FLUSH_ENTRY_MEM);
    // And the half is used, not a small part of it: the last coin crossed it.
    assert!(held >= budget / 16, "{held} bytes of {budget}: the count overstates the cache");
}

/// A flush into the on-disk store takes no more than the cache charges for it: from the cache
/// full of dirty coins to the commit's end (the sorted batch, fjall's write batch, the
/// memtable), the bytes this thread holds never pass what the cache counted for itself plus
/// `FLUSH_ENTRY_MEM` for each dirty entry. The chain state flushes on that figure, so it is what
/// bounds the process while a flush is written.
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
#[test]
fn a_flush_into_the_disk_store_stays_within_its_flush_cost() {
    let dir = std::env::temp_dir().join(format!("fullverify-flush-cost-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = fullverify::utxo::DiskStore::open(&dir).unwrap();
    let mut c = CoinsCache::new(store, 1 << 30);
    let meta = ChainMeta { height: 1, hash: [1; 32], muhash: None, utxo_count: 0, total_amount: 0 };
    // A first flush, so that the store's own one-off allocations are behind us.
    c.add(op(u32::MAX), coin(0), false);
    c.flush(meta.clone(), vec![]).unwrap();
    let base = live();
    for i in 0..200_000 {
        c.add(op(i), coin(i), false);
    }
    let cost = c.flush_cost();
    reset_peak();
    c.flush(meta, vec![]).unwrap();
    let used = (peak() - base) as usize;
    assert!(used <= cost, "the flush held {used} bytes at its peak, the cache charged {cost}");
    // Beyond the cache's own memory: about 260 bytes a coin; 308 when the store kept the sorted
    // batch until its memtable was filled.
    let per_coin = used.saturating_sub(cost - 200_000 * fullverify::utxo::FLUSH_ENTRY_MEM) / 200_000;
    assert!(per_coin <= 280, "the flush held {per_coin} bytes a coin beyond the cache");
    drop(c);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The on-disk store's block cache, filled by lookups spread over every coin, holds no more heap
/// than the store counts for it ([`fullverify::utxo::DiskStore::block_cache_heap`], part of what
/// it keeps resident), and more than its capacity: fjall weighs a block by its uncompressed
/// length but keeps it decoded, so the capacity alone undercounts it about twofold.
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
#[test]
fn the_disk_stores_block_cache_holds_no_more_than_it_counts() {
    use fullverify::utxo::Store;
    const COINS: u32 = 400_000;
    for capacity in [1u64 << 20, 8 << 20] {
        let dir =
            std::env::temp_dir().join(format!("fullverify-block-cache-{}-{capacity}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = fullverify::utxo::DiskStore::open_with(&dir, capacity).unwrap();
        let mut c = CoinsCache::new(store, 1 << 30);
        // In several commits, each written out of the memtables into tables.
        for part in 0..4 {
            let meta =
                ChainMeta { height: part + 1, hash: [1; 32], muhash: None, utxo_count: 0, total_amount: 0 };
            for i in part * COINS / 4..(part + 1) * COINS / 4 {
                c.add(op(i), coin(i), false);
            }
            c.flush(meta, vec![]).unwrap();
        }
        let store = c.store();
        let counted = store.block_cache_heap();
        assert!(store.resident_bytes() >= counted + store.filter_mem_usage());
        let base = live();
        for k in 0..COINS {
            let i = k.wrapping_mul(7_919) % COINS;
            assert_eq!(store.get(&op(i)).unwrap(), Some(coin(i)), "coin {i}");
        }
        let held = (live() - base) as usize;
        assert!(held <= counted, "a block cache of {capacity} bytes held {held}, counted {counted}");
        assert!(held > capacity as usize, "a block cache of {capacity} bytes held only {held}");
        drop(c);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
