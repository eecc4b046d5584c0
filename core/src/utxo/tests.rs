// SPDX-License-Identifier: MIT OR Apache-2.0
use super::*;
use crate::encode::{OutPoint, TxOut};
use crate::muhash::MuHash3072;

pub(super) fn coin(v: i64) -> Coin {
    Coin { out: TxOut { value: v, script_pubkey: vec![0x51] }, height: 7, coinbase: v % 2 == 0 }
}

pub(super) fn meta() -> ChainMeta {
    ChainMeta { height: 1, hash: [1; 32], muhash: Some(MuHash3072::new()), utxo_count: 0, total_amount: 0 }
}

/// The txid numbered `i`: its first four bytes spread over the key space (a multiplicative
/// hash), its last four `i` itself, so distinct numbers give distinct txids.
pub(super) fn spread_txid(i: u32) -> [u8; 32] {
    let mut t = [0u8; 32];
    t[..4].copy_from_slice(&i.wrapping_mul(0x9e37_79b9).to_be_bytes());
    t[28..].copy_from_slice(&i.to_le_bytes());
    t
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

/// A coin added where the store may hold one (a duplicate coinbase, BIP30's exception) is not
/// fresh: spent before the next flush, it still deletes the stored coin. So is a coin added over
/// a cached entry that the store holds; one added over a fresh entry stays fresh.
#[test]
fn a_possible_overwrite_spent_before_flush_deletes_the_stored_coin() {
    let mut c = CoinsCache::new(MemStore::new(), 1 << 20);
    let (a, b) = (OutPoint { txid: [3; 32], vout: 0 }, OutPoint { txid: [4; 32], vout: 0 });
    c.add(a, coin(8), false);
    c.add(b, coin(9), false);
    c.flush(meta(), vec![]).unwrap();
    assert_eq!(c.store().len(), 2);
    // The coinbase's coin again, over the stored one, spent before the next flush.
    c.add(a, coin(10), true);
    c.spend(&a);
    // Read back from the store (cached, not fresh), replaced, then spent.
    assert_eq!(c.get(&b).unwrap(), Some(coin(9)));
    c.add(b, coin(11), false);
    c.spend(&b);
    assert_eq!(c.flush(meta(), vec![]).unwrap(), 2);
    assert!(c.store().is_empty());
    // Over a fresh entry: still fresh, so spending it leaves nothing to write.
    c.add(a, coin(12), false);
    c.add(a, coin(14), true);
    c.spend(&a);
    assert_eq!(c.flush(meta(), vec![]).unwrap(), 0);
}

/// `load` says what `get` would (a cached coin, a spent one the store still holds, one only the
/// store holds, one nowhere) and caches the coin it reads, as `get` does, without copying it.
#[test]
fn load_answers_as_get_and_keeps_what_it_read() {
    let mut c = CoinsCache::new(MemStore::new(), 1 << 20);
    let op = |i: u32| OutPoint { txid: spread_txid(i), vout: i };
    for i in 0..3 {
        c.add(op(i), coin(20 + i64::from(i)), false);
    }
    c.flush(meta(), vec![]).unwrap();
    assert!(c.is_empty());
    c.spend(&op(1));
    c.add(op(3), coin(23), false);
    // Stored only: read in, once.
    assert!(c.load(&op(0)).unwrap());
    assert_eq!(c.len(), 3);
    assert!(c.load(&op(0)).unwrap());
    assert_eq!(c.len(), 3);
    // Spent in the cache though the store holds it; cached; nowhere (nothing cached for it).
    assert!(!c.load(&op(1)).unwrap());
    assert!(c.load(&op(3)).unwrap());
    assert!(!c.load(&op(4)).unwrap());
    assert_eq!(c.len(), 3);
    for i in 0..5 {
        assert_eq!(c.load(&op(i)).unwrap(), c.get(&op(i)).unwrap().is_some(), "coin {i}");
    }
    assert_eq!(c.get(&op(0)).unwrap(), Some(coin(20)));
    // What was loaded is clean: only the spend and the new coin are written.
    assert_eq!(c.flush(meta(), vec![]).unwrap(), 2);
    assert_eq!(c.store().len(), 3);
}

/// Every thread of this process: id, name and nice value (Linux).
#[cfg(all(feature = "store", target_os = "linux"))]
fn thread_nices() -> Vec<(u32, String, i64)> {
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
    tasks
        .flatten()
        .filter_map(|e| {
            let tid = e.file_name().to_string_lossy().parse().ok()?;
            let comm = std::fs::read_to_string(e.path().join("comm")).ok()?.trim().to_string();
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // The fields after the name (which may hold spaces) start at the third; nice is the
            // nineteenth.
            let rest = stat.get(stat.rfind(')')? + 2..)?;
            let nice = rest.split(' ').nth(16)?.parse().ok()?;
            Some((tid, comm, nice))
        })
        .collect()
}

/// A store opened niced starts fjall's threads that many steps down, and a cache told so starts
/// its flush writer that many steps down, while the calling thread keeps its priority. Other
/// tests start threads meanwhile, at other values, so the check is that threads at exactly this
/// value appeared.
#[cfg(all(feature = "store", target_os = "linux"))]
#[test]
fn a_niced_store_and_flush_writer_run_below_the_caller() {
    const NICE: i64 = 7;
    // SAFETY: gettid takes nothing and returns this thread's id.
    let me = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
    let mine = |all: &[(u32, String, i64)]| all.iter().find(|t| t.0 == me).map(|t| t.2);
    let before = thread_nices();
    let base = mine(&before).expect("this thread is listed");
    // The lowest priority is 19.
    let want = (base + NICE).min(19);
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-niced-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = DiskStore::open_niced(&dir, 1 << 20, NICE as u8).unwrap();
    let after = thread_nices();
    assert_eq!(mine(&after), Some(base), "the caller's priority changed");
    let started: Vec<_> = after.iter().filter(|t| !before.iter().any(|b| b.0 == t.0)).collect();
    assert!(started.iter().any(|t| t.2 == want), "no store thread at {want}: {started:?}");
    let mut c = CoinsCache::new(store, 1 << 20);
    c.set_writer_nice(NICE as u8);
    c.add(OutPoint { txid: [9; 32], vout: 0 }, coin(5), false);
    c.flush_in_background(meta(), vec![]).unwrap();
    // Once the flush has landed, the writer has lowered itself (it does so before its first job).
    assert_eq!(c.land().unwrap(), Some(1));
    let writers: Vec<_> = thread_nices().into_iter().filter(|t| t.1 == "fv-flush").collect();
    assert!(writers.iter().any(|t| t.2 == want), "no flush writer at {want}: {writers:?}");
    assert_eq!(mine(&thread_nices()), Some(base));
    drop(c);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn muhash_delta_any_thread_count_vs_sequential() {
    let coins: Vec<(OutPoint, Coin)> =
        (0..1500u32).map(|i| (OutPoint { txid: [(i % 251) as u8; 32], vout: i }, coin(i as i64))).collect();
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
    let c =
        Coin { out: TxOut { value: 1234, script_pubkey: vec![1, 2, 3] }, height: 500_000, coinbase: true };
    assert_eq!(Coin::from_bytes(&c.to_bytes()), Some(c.clone()));
    // Written over a buffer that held a longer record: the same bytes.
    let long = Coin { out: TxOut { value: 7, script_pubkey: vec![0x51; 40] }, height: 3, coinbase: false };
    let mut buf = long.to_bytes();
    c.write_to(&mut buf);
    assert_eq!(buf, c.to_bytes());
    long.write_to(&mut buf);
    assert_eq!(Coin::from_bytes(&buf), Some(long));
    let mut m = meta();
    m.muhash.as_mut().unwrap().insert(b"x");
    m.utxo_count = 9;
    m.total_amount = -3;
    assert_eq!(ChainMeta::from_bytes(&m.to_bytes()), Some(m.clone()));
    // Without an accumulator (final or no MuHash policy).
    m.muhash = None;
    assert_eq!(ChainMeta::from_bytes(&m.to_bytes()), Some(m));
}

/// A record is taken as a coin's MuHash element as it lies exactly when it decodes to a coin,
/// and the element is then the coin's `TxOutSer`: records cut at every length, with a byte
/// more, with a CompactSize written longer than it needs or past the size limit, with the
/// longest one-byte length and the shortest three-byte one; keys of 35 and 37 bytes.
#[test]
fn coin_records_as_muhash_elements_equal_decoded_coins() {
    let op = OutPoint { txid: core::array::from_fn(|i| i as u8), vout: 0x0102_0304 };
    let key = coin::outpoint_key(&op);
    let spk = |n: usize| TxOut { value: -5, script_pubkey: vec![0xAB; n] };
    let mut records: Vec<Vec<u8>> = Vec::new();
    for (n, coinbase) in [(0usize, false), (1, true), (0xFC, false), (0xFD, true), (300, false)] {
        let c = Coin { out: spk(n), height: u32::MAX >> 1, coinbase };
        let r = c.to_bytes();
        for cut in 0..r.len() {
            records.push(r[..cut].to_vec());
        }
        let mut more = r.clone();
        more.push(0);
        records.push(more);
        records.push(r);
    }
    // Non-canonical CompactSize (0xFD then a value below 0xFD), and one past MAX_SIZE.
    let mut head = 11u32.to_le_bytes().to_vec();
    head.extend_from_slice(&7i64.to_le_bytes());
    let mut noncanonical = head.clone();
    noncanonical.extend_from_slice(&[0xFD, 0x02, 0x00, 0xAA, 0xBB]);
    records.push(noncanonical);
    let mut huge = head;
    huge.extend_from_slice(&[0xFE, 0x01, 0x00, 0x00, 0x02]);
    records.push(huge);
    let mut buf = vec![0xEE; 500];
    for r in &records {
        let decoded = Coin::from_bytes(r);
        assert_eq!(coin::is_coin_record(r), decoded.is_some(), "{r:02x?}");
        let got = coin::txout_ser_of_record(&key, r, &mut buf);
        match decoded {
            Some(c) => {
                assert_eq!(got, Some(op));
                assert_eq!(buf, txout_ser(&op, &c));
            }
            None => assert_eq!(got, None),
        }
    }
    let good = coin(3).to_bytes();
    assert_eq!(coin::txout_ser_of_record(&key[..35], &good, &mut buf), None);
    assert_eq!(coin::txout_ser_of_record(&[key.as_slice(), &[0]].concat(), &good, &mut buf), None);
}

/// The whole-set MuHash on 1 to 4 workers, read by one thread or by key range, equals
/// coin-by-coin insertion, and the cache's view of the set (stored coins it does not override,
/// plus its own) is exactly the set, before and after a flush, with coins spent from the store
/// and from the cache; over the in-memory store and the on-disk one.
#[test]
fn set_muhash_vs_incremental_over_a_cache() {
    set_muhash_over(MemStore::new());
    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    {
        let dir = std::env::temp_dir().join(format!("fv-setmuhash-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        set_muhash_over(DiskStore::open(&dir).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn set_muhash_over<S: Store>(store: S) {
    // Txids starting on both sides of every part boundary the workers cut (1 to 4 workers, 8
    // parts each), at the ends of the key space, and spread over it.
    let mut prefixes: Vec<u32> = vec![0, 1, 0xFFFE, 0xFFFF];
    for parts in [8u32, 16, 24, 32] {
        for k in 1..parts {
            let b = (u64::from(TXID_PREFIXES) * u64::from(k) / u64::from(parts)) as u32;
            prefixes.extend([b - 1, b, b + 1]);
        }
    }
    let op = |i: u32| {
        let p = prefixes.get(i as usize).copied().unwrap_or(i.wrapping_mul(2_654_435_761) >> 16);
        let mut txid = [(i % 251) as u8; 32];
        txid[..2].copy_from_slice(&(p as u16).to_be_bytes());
        OutPoint { txid, vout: i }
    };
    let mut cache = CoinsCache::new(store, 1 << 20);
    let mut set: std::collections::BTreeMap<u32, Coin> = Default::default();
    for i in 0..3000u32 {
        cache.add(op(i), coin(i as i64 + 1), i % 3 == 0);
        set.insert(i, coin(i as i64 + 1));
    }
    cache.flush(meta(), Vec::new()).unwrap();
    for i in (0..3000u32).step_by(7) {
        cache.get(&op(i)).unwrap();
        cache.spend(&op(i));
        set.remove(&i);
    }
    for i in 3000..3500u32 {
        cache.add(op(i), coin(-(i as i64)), false);
        set.insert(i, coin(-(i as i64)));
    }
    for i in (3000..3500u32).step_by(5) {
        cache.spend(&op(i));
        set.remove(&i);
    }
    let mut want = MuHash3072::new();
    for (i, c) in &set {
        want.insert(&txout_ser(&op(*i), c));
    }
    let want = want.finalize();
    for round in 0..2 {
        let mut seen = 0usize;
        cache
            .for_each_coin(&mut |o, c| {
                seen += 1;
                assert_eq!(set.get(&o.vout), Some(c));
            })
            .unwrap();
        assert_eq!(seen, set.len(), "round {round}");
        for threads in 1..=4 {
            let got = muhash_of_set(threads, crate::Backend::detect(), |f| cache.for_each_coin(f)).unwrap();
            assert_eq!(got.clone().finalize(), want, "round {round}, {threads} threads");
            let got =
                muhash_of_parts(threads, crate::Backend::detect(), |r, f| cache.for_each_element_in(r, f))
                    .unwrap();
            assert_eq!(got.clone().finalize(), want, "round {round}, {threads} threads by key range");
        }
        cache.flush(meta(), Vec::new()).unwrap();
    }
}

/// A flush hands the store its coins in the store's key order (txid bytes, then the output
/// index big-endian, as `outpoint_key` lays them out), additions and deletions alike, and the
/// store ends with exactly the cache's view of the set.
#[test]
fn flush_batches_come_in_key_order() {
    struct Recording(MemStore, std::sync::Mutex<Vec<[u8; 36]>>);
    impl Store for Recording {
        fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
            self.0.get(op)
        }
        fn commit(&self, batch: FlushBatch<'_>) -> Result<(), StoreError> {
            *self.1.lock().unwrap() = batch.coins.iter().map(|(op, _)| outpoint_key(op)).collect();
            self.0.commit(batch)
        }
        fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
            self.0.meta()
        }
        fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
            self.0.headers()
        }
        fn for_each_coin_in(
            &self,
            prefixes: std::ops::Range<u32>,
            f: &mut dyn FnMut(&OutPoint, &Coin),
        ) -> Result<(), StoreError> {
            self.0.for_each_coin_in(prefixes, f)
        }
    }
    // Eight outputs a transaction, their indices on both sides of byte boundaries (where
    // little-endian order would differ); transactions in scrambled order.
    const VOUTS: [u32; 8] = [0, 1, 255, 256, 257, 65_535, 65_536, 16_777_216];
    let op = |i: u32| {
        let g = i / 8;
        let mut txid = [(g.wrapping_mul(2_654_435_761) >> 24) as u8; 32];
        txid[28..].copy_from_slice(&g.to_be_bytes());
        OutPoint { txid, vout: VOUTS[(i % 8) as usize] }
    };
    let mut c = CoinsCache::new(Recording(MemStore::new(), Default::default()), 1 << 30);
    for i in 0..2000 {
        c.add(op(i), coin(i64::from(i) + 1), false);
    }
    c.flush(meta(), vec![]).unwrap();
    for i in (0..2000).step_by(3) {
        c.spend(&op(i));
    }
    for i in 2000..2500 {
        c.add(op(i), coin(i64::from(i) + 1), false);
    }
    c.flush(meta(), vec![]).unwrap();
    let keys = c.store().1.lock().unwrap().clone();
    assert_eq!(keys.len(), 667 + 500, "every spent and every new coin");
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "not in key order");
    let mut left = 0;
    c.for_each_coin(&mut |_, _| left += 1).unwrap();
    assert_eq!(left, 2000 - 667 + 500);
}

/// A store whose commits wait until the test lets them through, and can be told to fail the
/// next one (as a full disk would, before anything is written); it says it keeps `resident`
/// bytes in memory besides its coins.
#[derive(Default)]
struct Gated {
    inner: MemStore,
    gate: std::sync::Arc<Gate>,
    fail_next: std::sync::atomic::AtomicBool,
    resident: usize,
}

#[derive(Default)]
struct Gate {
    open: std::sync::Mutex<bool>,
    opened: std::sync::Condvar,
}

impl Gate {
    fn set_open(&self, open: bool) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = open;
        self.opened.notify_all();
    }
}

/// Opens the gate when dropped: a failed assertion must not leave the cache's drop waiting
/// for a commit held back forever.
struct OpenOnDrop(std::sync::Arc<Gate>);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.set_open(true);
    }
}

impl Gated {
    fn set_open(&self, open: bool) {
        self.gate.set_open(open);
    }
}

impl Store for Gated {
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        self.inner.get(op)
    }
    fn commit(&self, batch: FlushBatch<'_>) -> Result<(), StoreError> {
        let mut open = self.gate.open.lock().unwrap();
        while !*open {
            open = self.gate.opened.wait(open).unwrap();
        }
        if self.fail_next.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return Err(StoreError("no space left on device".into()));
        }
        self.inner.commit(batch)
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        self.inner.meta()
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        self.inner.headers()
    }
    fn resident_bytes(&self) -> usize {
        self.resident
    }
    /// Exact: whether any stored coin is of `txid`.
    fn may_hold_txid(&self, txid: &[u8; 32]) -> bool {
        let mut held = false;
        self.inner.for_each_coin(&mut |op, _| held |= op.txid == *txid).unwrap();
        held
    }
    fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError> {
        self.inner.for_each_coin_in(prefixes, f)
    }
}

fn set_of<S: Store>(c: &CoinsCache<S>) -> std::collections::BTreeMap<u32, Coin> {
    let mut got = std::collections::BTreeMap::new();
    c.for_each_coin(&mut |op, coin| assert!(got.insert(op.vout, coin.clone()).is_none(), "{op:?} twice"))
        .unwrap();
    got
}

/// While a background flush is being written, reads see its coins and its deletions (the store
/// does not show them yet), new changes go on top of it, a whole-set pass sees each coin once,
/// and after it lands the store holds exactly the set. A flush whose commit fails gives its
/// entries back under the newer ones, and the next flush writes them all.
#[test]
fn background_flush_serves_reads_until_it_lands() {
    let op = |i: u32| OutPoint { txid: [(i % 7) as u8; 32], vout: i };
    let mut c = CoinsCache::new(Gated::default(), 1 << 20);
    let _open_at_the_end = OpenOnDrop(c.store().gate.clone());
    let mut model = std::collections::BTreeMap::new();
    c.store().set_open(true);
    for i in 0..10 {
        c.add(op(i), coin(i64::from(i) + 1), false);
        model.insert(i, coin(i64::from(i) + 1));
    }
    c.flush(meta(), vec![]).unwrap();
    // In flight: coins 10..20 new, 0..5 spent (deletions of stored coins).
    for i in 10..20 {
        c.add(op(i), coin(i64::from(i) + 1), false);
        model.insert(i, coin(i64::from(i) + 1));
    }
    for i in 0..5 {
        assert_eq!(c.get(&op(i)).unwrap(), Some(coin(i64::from(i) + 1)));
        c.spend(&op(i));
        model.remove(&i);
    }
    c.store().set_open(false);
    c.flush_in_background(meta(), vec![]).unwrap();
    assert!(c.is_writing() && c.is_empty());
    assert_eq!(c.poll().unwrap(), None, "the commit is held back");
    for i in 0..5 {
        assert_eq!(c.store().get(&op(i)).unwrap(), Some(coin(i64::from(i) + 1)), "store not written yet");
        assert_eq!(c.get(&op(i)).unwrap(), None, "a deletion in flight hides the stored coin");
    }
    for i in 10..20 {
        assert_eq!(c.store().get(&op(i)).unwrap(), None);
        assert_eq!(c.get(&op(i)).unwrap(), Some(coin(i64::from(i) + 1)), "a coin in flight is found");
    }
    assert_eq!(set_of(&c), model);
    // On top of it: spend coins in flight and stored ones, add new ones.
    for i in (10..20).step_by(2).chain([5, 6]) {
        c.spend(&op(i));
        model.remove(&i);
    }
    for i in 20..25 {
        c.add(op(i), coin(-i64::from(i)), false);
        model.insert(i, coin(-i64::from(i)));
    }
    assert_eq!(set_of(&c), model);
    c.store().set_open(true);
    assert_eq!(c.land().unwrap(), Some(15), "10 coins and 5 deletions");
    assert_eq!(set_of(&c), model);
    c.flush(meta(), vec![]).unwrap();
    assert_eq!(set_of(&c.store().inner_cache()), model);

    // A failed commit: its entries come back, the next flush writes everything.
    for i in 25..30 {
        c.add(op(i), coin(i64::from(i)), false);
        model.insert(i, coin(i64::from(i)));
    }
    c.spend(&op(7));
    model.remove(&7);
    c.store().fail_next.store(true, std::sync::atomic::Ordering::SeqCst);
    c.flush_in_background(meta(), vec![]).unwrap();
    c.spend(&op(25));
    model.remove(&25);
    c.add(op(30), coin(30), false);
    model.insert(30, coin(30));
    let e = c.land().expect_err("the commit failed");
    assert!(e.0.contains("no space"), "{e}");
    assert!(!c.is_writing());
    assert_eq!(set_of(&c), model);
    c.flush(meta(), vec![]).unwrap();
    assert_eq!(set_of(&c.store().inner_cache()), model);
}

#[test]
fn what_the_store_keeps_resident_comes_out_of_the_cache_budget() {
    // The same coins added to two caches of 4 MiB, one over a store that keeps part of that
    // resident: that one asks to be flushed no later than the other, once what it would hand
    // over (with its table's next growth) passes half of what is left, and for most parts
    // earlier (both ask together where one growth of the table passes both halves). A store
    // that keeps more than the budget leaves the cache nothing.
    const BUDGET: usize = 4 << 20;
    // No commit is made: the gates stay shut.
    let store = |resident| Gated { resident, ..Gated::default() };
    let mut earlier = 0;
    for eighths in 1..8 {
        let resident = BUDGET / 8 * eighths;
        let mut lean = CoinsCache::new(store(0), BUDGET);
        let mut heavy = CoinsCache::new(store(resident), BUDGET);
        let mut heavy_asked = None;
        let mut i = 0u32;
        while !lean.over_half_budget() {
            if heavy_asked.is_none() && heavy.over_half_budget() {
                assert!(heavy.flush_cost() + heavy.growth_cost() > (BUDGET - resident) / 2);
                heavy_asked = Some(i);
            }
            let op = OutPoint { txid: spread_txid(i), vout: 0 };
            heavy.add(op, coin(i64::from(i)), false);
            lean.add(op, coin(i64::from(i)), false);
            i += 1;
        }
        assert_eq!(lean.flush_cost(), heavy.flush_cost());
        assert!(heavy.over_half_budget(), "{eighths}/8 resident");
        if heavy_asked.is_some() {
            earlier += 1;
        }
    }
    assert!(earlier >= 4, "the cache over a resident store asked first for {earlier} of 7 parts");
    let mut full = CoinsCache::new(store(2 * BUDGET), BUDGET);
    full.add(OutPoint { txid: [0; 32], vout: 0 }, coin(1), false);
    assert!(full.over_half_budget());
}

impl Gated {
    /// An empty cache over a copy of what this store holds.
    fn inner_cache(&self) -> CoinsCache<MemStore> {
        CoinsCache::new(self.inner.clone(), 1 << 20)
    }
}

#[test]
fn dirty_count_is_what_the_flush_writes() {
    // Every transition of an entry (read clean, added fresh, added over a stored coin, spent
    // fresh, spent clean, spent uncached, re-added after a spend), in a seeded random order;
    // after each round the count must equal the records the flush writes, and the flush cost
    // must charge exactly the dirty entries.
    let mut c = CoinsCache::new(MemStore::new(), 1 << 30);
    let op = |i: u32| OutPoint { txid: [(i % 97) as u8; 32], vout: i };
    let mut unspent = std::collections::BTreeSet::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for round in 0..40 {
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % 500) as u32;
            match (x >> 32) % 3 {
                0 => {
                    let _ = c.get(&op(i)).unwrap();
                }
                1 if unspent.contains(&i) => {
                    c.spend(&op(i));
                    unspent.remove(&i);
                }
                _ if !unspent.contains(&i) => {
                    c.add(op(i), coin(i64::from(i)), (x >> 40).is_multiple_of(4));
                    unspent.insert(i);
                }
                _ => {}
            }
        }
        let dirty = c.dirty_len();
        assert_eq!(c.flush_cost(), c.mem_usage() + dirty * FLUSH_ENTRY_MEM, "round {round}");
        if round % 3 == 2 {
            // Rounds without a flush carry their dirty entries into the next.
            continue;
        }
        assert_eq!(c.flush(meta(), vec![]).unwrap(), dirty, "round {round}");
        assert_eq!(c.dirty_len(), 0);
        assert_eq!(c.store().len(), unspent.len(), "round {round}");
    }
}

/// BIP30's shortcut asks the cache whether a coin of a txid may exist: the answer is `true` for
/// every unspent coin wherever it lies (added to the cache, in a flush held in flight, in a
/// flush whose commit failed and gave its entries back, in the store), and `false` for nearly
/// every txid never added, so the shortcut is taken.
#[test]
fn may_hold_txid_covers_every_unspent_coin_wherever_it_lies() {
    use std::sync::atomic::Ordering::SeqCst;
    let mut c = CoinsCache::new(Gated::default(), 1 << 30);
    let _open_at_the_end = OpenOnDrop(c.store().gate.clone());
    c.store().set_open(true);
    let mut live: Vec<OutPoint> = Vec::new();
    let check = |c: &CoinsCache<Gated>, live: &[OutPoint], when: &str| {
        for op in live {
            assert!(c.may_hold_txid(&op.txid), "{when}: {op:?} is unspent but its txid was said absent");
        }
        let absent = (0..2000u32).filter(|i| !c.may_hold_txid(&spread_txid(1 << 30 | i))).count();
        assert!(absent > 1980, "{when}: {absent} of 2000 txids never added were said absent");
    };
    let mut next = 0u32;
    for round in 0..9 {
        // A few hundred transactions of one to three outputs, then every third coin spent.
        for _ in 0..300 {
            let txid = spread_txid(next);
            for vout in 0..=next % 3 {
                c.add(OutPoint { txid, vout }, coin(i64::from(next) + 1), false);
                live.push(OutPoint { txid, vout });
            }
            next += 1;
        }
        let mut k = 0;
        live.retain(|op| {
            k += 1;
            if k % 3 == 0 {
                c.spend(op);
            }
            k % 3 != 0
        });
        check(&c, &live, &format!("round {round}, in the cache"));
        match round % 3 {
            0 => {
                c.flush(meta(), vec![]).unwrap();
                check(&c, &live, &format!("round {round}, flushed"));
            }
            1 => {
                c.store().set_open(false);
                c.flush_in_background(meta(), vec![]).unwrap();
                check(&c, &live, &format!("round {round}, in flight"));
                c.store().set_open(true);
                c.land().unwrap();
                check(&c, &live, &format!("round {round}, landed"));
            }
            _ => {
                c.store().fail_next.store(true, SeqCst);
                c.flush_in_background(meta(), vec![]).unwrap();
                assert!(c.land().is_err());
                check(&c, &live, &format!("round {round}, given back by a failed flush"));
            }
        }
    }
    c.flush(meta(), vec![]).unwrap();
    check(&c, &live, "at the end");
}
