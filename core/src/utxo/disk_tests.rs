// SPDX-License-Identifier: MIT OR Apache-2.0
//! The on-disk store: commits, reopening, the txid filter, compaction, writing coins out of
//! fjall's memtables, recovery after a process that left the store open, a full disk, and
//! creation.
use super::tests::{coin, meta, spread_txid};
use super::*;
use crate::encode::{OutPoint, TxOut};

/// Commits `coins`, put in the key order the store expects, with `headers` and the tests'
/// best-block record.
fn commit_sorted(
    s: &DiskStore,
    coins: Vec<(OutPoint, Option<&Coin>)>,
    headers: Vec<(u32, [u8; 40])>,
) -> Result<(), StoreError> {
    s.commit(FlushBatch::in_key_order(coins, headers, Some(meta())))
}

#[test]
fn disk_store_commit_is_visible_after_reopen() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let a = OutPoint { txid: [3; 32], vout: 2 };
    {
        let s = DiskStore::open(&dir).unwrap();
        assert_eq!(s.meta().unwrap(), None);
        s.commit(FlushBatch {
            coins: vec![(a, Some(&coin(8)))],
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

/// The store's txid filter never hides a stored coin: not one whose batch also deletes an
/// earlier output of its transaction (the batch lists that deletion first), not one committed
/// before the store was reopened (the filter is filled from the keys), across the filter's
/// growth from one stage to the next; and coins never stored are still absent.
#[test]
fn disk_store_txid_filter_hides_no_coin() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-filter-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // 100,000 txids (more than the filter's first stage holds), three outputs each.
    let txid = spread_txid;
    let c = coin(8);
    let n = 100_000u32;
    {
        let s = DiskStore::open(&dir).unwrap();
        let c = &c;
        let coins: Vec<(OutPoint, Option<&Coin>)> = (0..n)
            .flat_map(|i| (0..3).map(move |v| (OutPoint { txid: txid(i), vout: v }, Some(c))))
            .collect();
        commit_sorted(&s, coins, vec![]).unwrap();
        // A transaction first seen by the filter in a batch that deletes its output 0 (listed
        // first) and adds output 1.
        let x = [0xab; 32];
        let batch = FlushBatch {
            coins: vec![(OutPoint { txid: x, vout: 0 }, None), (OutPoint { txid: x, vout: 1 }, Some(c))],
            headers: vec![],
            meta: Some(meta()),
        };
        s.commit(batch).unwrap();
        assert_eq!(s.get(&OutPoint { txid: x, vout: 1 }).unwrap(), Some(coin(8)));
        assert_eq!(s.get(&OutPoint { txid: x, vout: 0 }).unwrap(), None);
    }
    // Reopened twice: with the saved filter taken away (filled from the keys), then with the
    // filter that opening saved when dropped (read back).
    for read_back in [false, true] {
        if !read_back {
            std::fs::remove_file(dir.join(disk::FILTER_FILE)).unwrap();
        }
        let s = DiskStore::open(&dir).unwrap();
        assert_eq!(s.filter_read_back(), read_back);
        assert!(s.filter_mem_usage() > (1 << 16) * 2, "the reopened filter grew past its first stage");
        let mut told_absent = 0;
        for i in 0..n {
            assert!(s.may_hold_txid(&txid(i)), "tx {i}");
            told_absent += usize::from(!s.may_hold_txid(&txid(i + n)));
            for v in 0..3 {
                assert_eq!(s.get(&OutPoint { txid: txid(i), vout: v }).unwrap(), Some(coin(8)), "tx {i}:{v}");
            }
            assert_eq!(s.get(&OutPoint { txid: txid(i), vout: 3 }).unwrap(), None);
            assert_eq!(s.get(&OutPoint { txid: txid(i + n), vout: 0 }).unwrap(), None);
        }
        assert_eq!(s.get(&OutPoint { txid: [0xab; 32], vout: 1 }).unwrap(), Some(coin(8)));
        assert!(s.may_hold_txid(&[0xab; 32]));
        // BIP30 skips a transaction's outputs on `false`: nearly every txid never stored gets it.
        assert!(told_absent > n as usize * 99 / 100, "{told_absent} of {n} absent txids told absent");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The txid filter a dropped store saved is read back only by the state it was saved for: a
/// store written to after the save (reopened without the file, given coins or only a new
/// best-block record, and then the old file back), a file damaged in any of its parts or cut,
/// and none at all are each met by filling the filter from the keys, which finds every coin. A read-back
/// filter answers as the filled one; the file is consumed by the opening that reads it, and a
/// save that cannot be written (its temporary path taken by a directory) leaves no file.
#[test]
fn disk_store_reads_back_only_the_filter_saved_for_its_state() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-saved-filter-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join(disk::FILTER_FILE);
    let c = coin(8);
    let batch = |from: u32, to: u32| -> Vec<(OutPoint, Option<&Coin>)> {
        (from..to).map(|i| (OutPoint { txid: spread_txid(i), vout: 0 }, Some(&c))).collect()
    };
    let all_there = |s: &DiskStore, n: u32| {
        for i in 0..n {
            assert_eq!(s.get(&OutPoint { txid: spread_txid(i), vout: 0 }).unwrap(), Some(coin(8)), "tx {i}");
        }
        assert_eq!(s.get(&OutPoint { txid: spread_txid(n), vout: 0 }).unwrap(), None);
    };
    {
        let s = DiskStore::open(&dir).unwrap();
        assert!(!s.filter_read_back());
        commit_sorted(&s, batch(0, 70_000), vec![]).unwrap();
    }
    let saved = std::fs::read(&file).unwrap();
    {
        let s = DiskStore::open(&dir).unwrap();
        assert!(s.filter_read_back());
        assert!(!file.exists(), "the opening that reads the file consumes it");
        all_there(&s, 70_000);
    }
    // A store written after the save: the old file describes fewer coins than it holds.
    std::fs::remove_file(&file).unwrap();
    {
        let s = DiskStore::open(&dir).unwrap();
        assert!(!s.filter_read_back());
        commit_sorted(&s, batch(70_000, 90_000), vec![]).unwrap();
    }
    std::fs::write(&file, &saved).unwrap();
    let reopen = |expect_read_back: bool| {
        let s = DiskStore::open(&dir).unwrap();
        assert_eq!(s.filter_read_back(), expect_read_back);
        all_there(&s, 90_000);
    };
    reopen(false);
    // The file that opening saved, damaged in each of its parts.
    let good = std::fs::read(&file).unwrap();
    let n = good.len();
    let flipped = |at: usize, bit: u8| {
        let mut b = good.clone();
        b[at] ^= bit;
        b
    };
    for (what, damaged) in [
        ("magic", flipped(0, 1)),
        ("sequence number", flipped(8, 1)),
        ("best block", flipped(20, 1)),
        ("salt", flipped(48, 1)),
        ("filter bits", flipped(n / 2, 0x10)),
        ("checksum", flipped(n - 1, 1)),
        ("cut", good[..n - 33].to_vec()),
        ("empty", vec![]),
    ] {
        std::fs::write(&file, &damaged).unwrap();
        let s = DiskStore::open(&dir).unwrap();
        assert!(!s.filter_read_back(), "{what}");
        all_there(&s, 90_000);
    }
    // A commit of only a best-block record after the save.
    {
        let s = DiskStore::open(&dir).unwrap();
        assert!(s.filter_read_back());
        let other = ChainMeta { height: 7, ..meta() };
        s.commit(FlushBatch { coins: vec![], headers: vec![], meta: Some(other) }).unwrap();
    }
    std::fs::write(&file, &good).unwrap();
    reopen(false);
    // A save that fails leaves no file, and the store opens as one never saved.
    {
        let s = DiskStore::open(&dir).unwrap();
        std::fs::create_dir(dir.join("txids.filter.tmp")).unwrap();
        assert!(s.save_for_reopening().is_err());
    }
    assert!(!file.exists());
    std::fs::remove_dir(dir.join("txids.filter.tmp")).unwrap();
    reopen(false);
    reopen(true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every coin stays readable, and every spent one gone, while compaction merges the coins'
/// tables: twenty batches of 60,000 coins (each spending every second coin of the batch before),
/// each written to a table of its own, about 100 MB in all, in a store whose levels are small
/// (four tables of 1 MiB before level 1 of 4 MiB, level 2 of 40 MiB), so that merges into every
/// level happen; until the tables have been merged, then again after reopening.
#[test]
fn disk_store_compaction_keeps_every_coin() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-compact-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    const PER: u32 = 60_000;
    const BATCHES: u32 = 20;
    let op = |i: u32| OutPoint { txid: spread_txid(i), vout: i % 5 };
    let mut c = coin(0);
    c.out.script_pubkey = vec![0x51; 40];
    // Coin i is worth i: a coin read back from the wrong key shows it.
    let coins: Vec<Coin> = (0..PER * BATCHES)
        .map(|i| Coin { out: TxOut { value: i64::from(i), ..c.out.clone() }, ..c.clone() })
        .collect();
    let spent = |i: u32| i / PER + 1 < BATCHES && i.is_multiple_of(2);
    let check = |s: &DiskStore| {
        for i in (0..PER * BATCHES).step_by(7) {
            let want = if spent(i) { None } else { Some(coins[i as usize].clone()) };
            assert_eq!(s.get(&op(i)).unwrap(), want, "coin {i}");
        }
    };
    {
        let s = DiskStore::create_with_compaction(&dir, 4, 1 << 20).unwrap();
        for k in 0..BATCHES {
            let mut batch: Vec<(OutPoint, Option<&Coin>)> =
                (k * PER..(k + 1) * PER).map(|i| (op(i), Some(&coins[i as usize]))).collect();
            if k > 0 {
                batch.extend(((k - 1) * PER..k * PER).filter(|&i| spent(i)).map(|i| (op(i), None)));
            }
            commit_sorted(&s, batch, vec![]).unwrap();
            s.seal_coins_table().unwrap();
        }
        let waited = std::time::Instant::now();
        loop {
            check(&s);
            // Each flush wrote one table; any other count is compaction's work.
            let (tables, flushes) = s.coins_tables();
            if tables != flushes {
                break;
            }
            assert!(waited.elapsed().as_secs() < 60, "no merge: {tables} tables from {flushes} flushes");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
    check(&DiskStore::open(&dir).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store reopened with many of fjall's sealed memtables to recover (journals of the headers
/// and best-block record, which are never written out to tables, and coins written just before
/// the process ended) still writes a commit's coins out: every recovered memtable is flushed,
/// and the next write-out does not wait behind them for ever. A child process (this test run
/// again) writes the store, one journal per seal, syncs it and exits without closing it, as a
/// process killed there would.
#[test]
fn disk_store_reopened_with_many_sealed_journals_writes_out() {
    const CHILD: &str = "FULLVERIFY_TEST_SEALED_JOURNALS_DIR";
    const JOURNALS: u32 = 24;
    fn op(i: u32) -> OutPoint {
        OutPoint { txid: spread_txid(i), vout: 0 }
    }
    fn commit(s: &DiskStore, range: std::ops::Range<u32>) {
        let c = coin(3);
        let header = (range.start / 100, [7; 40]);
        commit_sorted(s, range.map(|i| (op(i), Some(&c))).collect(), vec![header]).unwrap();
    }
    if let Some(dir) = std::env::var_os(CHILD) {
        let s = DiskStore::open(std::path::Path::new(&dir)).unwrap();
        for k in 0..JOURNALS {
            commit(&s, k * 100..(k + 1) * 100);
            s.seal_coins_table().unwrap();
        }
        // Coins in the active memtable too; everything synced; no close.
        commit(&s, JOURNALS * 100..JOURNALS * 100 + 100);
        s.sync_all();
        std::process::exit(0);
    }
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-sealed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // This test's name in the test binary: the module path below the crate's.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let this_test = format!("{module}::disk_store_reopened_with_many_sealed_journals_writes_out");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &this_test])
        .env(CHILD, &dir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the writing process failed: {status}");
    assert!(dir.join("journals").is_dir(), "the writing process did not run {this_test}");
    let journals = std::fs::read_dir(dir.join("journals")).unwrap().count();
    assert!(journals > JOURNALS as usize / 2, "only {journals} journals left to recover");
    let (tx, rx) = std::sync::mpsc::channel();
    let reopened = dir.clone();
    std::thread::spawn(move || {
        let s = DiskStore::open(&reopened).unwrap();
        commit(&s, 10_000..10_100);
        s.seal_coins_table().unwrap();
        tx.send(s).unwrap();
    });
    let s = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the write-out after reopening did not finish within a minute");
    for i in (0..JOURNALS * 100 + 100).chain(10_000..10_100) {
        assert_eq!(s.get(&op(i)).unwrap(), Some(coin(3)), "coin {i}");
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A commit leaves at most [`WRITE_OUT_BYTES`] of coins in fjall's memtables: a large one is
/// written to a table before `commit` returns, small ones collect until they pass the threshold
/// and are then written together; every coin stays readable, before and after reopening.
#[test]
fn disk_store_commit_writes_its_coins_out_of_memory() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-writeout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let op = |i: u32| OutPoint { txid: spread_txid(i), vout: i % 3 };
    let mut c = coin(0);
    c.out.script_pubkey = vec![0x51; 25];
    let commit = |s: &DiskStore, range: std::ops::Range<u32>| {
        commit_sorted(s, range.map(|i| (op(i), Some(&c))).collect(), vec![]).unwrap();
    };
    const SMALL: u32 = 1_000;
    const LARGE: u32 = 200_000;
    // What the store holds in memory whatever its tables: the block cache and the txid filter.
    let fixed = |s: &DiskStore| s.block_cache_heap() + s.filter_mem_usage();
    {
        let s = DiskStore::open(&dir).unwrap();
        assert_eq!(s.resident_bytes(), fixed(&s), "an empty store holds no table filter");
        // A small commit stays in the memtable.
        commit(&s, 0..SMALL);
        assert!(s.coins_memtable_bytes() > 0);
        assert_eq!(s.coins_tables(), (0, 0), "a small commit waited for a table");
        // A large one is in tables when the commit returns (fjall may have split it in two).
        commit(&s, SMALL..SMALL + LARGE);
        assert_eq!(s.coins_memtable_bytes(), 0, "the large commit's coins are still in memory");
        // fjall counts a finished flush a moment after its table is listed: give the count up
        // to a second to catch up.
        let mut counts = s.coins_tables();
        for _ in 0..100 {
            if counts.0 == counts.1 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            counts = s.coins_tables();
        }
        let (tables, flushes) = counts;
        assert!(tables >= 1 && tables == flushes, "{tables} tables from {flushes} flushes");
        // The new tables' bloom filters stay in memory: at least a byte a coin.
        let written = s.resident_bytes() - fixed(&s);
        assert!(written >= LARGE as usize, "{written} bytes of table filters for {LARGE} coins");
        // Small commits collect, then go out together before they pass the threshold by more
        // than one commit's worth.
        let mut next = SMALL + LARGE;
        while s.coins_tables().1 == flushes {
            commit(&s, next..next + SMALL);
            next += SMALL;
            assert!(s.coins_memtable_bytes() < u64::from(disk::WRITE_OUT_BYTES), "after coin {next}");
            assert!(next < SMALL + LARGE + LARGE, "small commits never written out");
        }
        assert!(next - (SMALL + LARGE) > 10 * SMALL, "small commits written out one by one");
        for i in (0..next).step_by(11) {
            assert_eq!(s.get(&op(i)).unwrap(), Some(c.clone()), "coin {i}");
        }
    }
    let s = DiskStore::open(&dir).unwrap();
    for i in (0..SMALL + LARGE + SMALL).step_by(13) {
        assert_eq!(s.get(&op(i)).unwrap(), Some(c.clone()), "coin {i} after reopening");
    }
    let reopened = s.resident_bytes() - fixed(&s);
    assert!(reopened >= LARGE as usize, "{reopened} bytes of table filters after reopening");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A commit whose coins fjall's flush thread cannot write to a table (the disk fills after the
/// journal) returns the error rather than waiting for the table: the flush thread poisons the
/// keyspace and the wait sees it. Needs root for a small tmpfs; skips and says so without.
#[cfg(all(feature = "store", target_os = "linux"))]
#[test]
fn disk_store_commit_reports_a_failed_write_out() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-full-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let Some(disk) = fullverify_testkit::Tmpfs::mount(&dir, "10m", "failed write-out") else { return };
    // 80,000 coins with scripts that do not compress: a journal of about 6 MB fits on the
    // 10 MiB disk, the table of the same coins beside it does not.
    let op = |i: u32| OutPoint { txid: spread_txid(i), vout: 0 };
    let coins: Vec<Coin> = (0..80_000u32)
        .map(|i| {
            let script =
                (0..25u32).map(|k| (i.wrapping_mul(2_654_435_761).rotate_left(k) >> 7) as u8).collect();
            Coin { out: TxOut { value: i64::from(i), script_pubkey: script }, height: 7, coinbase: false }
        })
        .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    let store_dir = dir.join("state");
    std::thread::spawn(move || {
        let batch = coins.iter().zip(0..).map(|(c, i)| (op(i), Some(c))).collect();
        let s = DiskStore::open(&store_dir).unwrap();
        let r = commit_sorted(&s, batch, vec![]);
        let _ = tx.send(r.map_err(|e| e.to_string()));
        // The store is left open: its threads stop with the process.
        std::mem::forget(s);
    });
    let r = rx.recv_timeout(std::time::Duration::from_secs(120));
    drop(disk);
    let _ = std::fs::remove_dir_all(&dir);
    match r {
        Ok(Err(e)) => assert!(e.to_lowercase().contains("poison"), "{e}"),
        Ok(Ok(())) => panic!("the commit succeeded on a full disk"),
        Err(_) => panic!("the commit waited two minutes for a table that cannot be written"),
    }
}

/// A new store is created whole or not at all: the leftovers of a creation that was stopped
/// (the `.creating` file beside a keyspace, or keyspace folders without its marker) are replaced
/// by a new store, an earlier version's empty staging folder beside a whole store is removed
/// and the store kept, and a directory holding anything else is refused and left as it was.
#[test]
fn disk_store_creation_is_all_or_nothing() {
    let dir = std::env::temp_dir().join(format!("fullverify-utxo-create-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let a = OutPoint { txid: [3; 32], vout: 2 };
    let c8 = coin(8);
    let batch = FlushBatch { coins: vec![(a, Some(&c8))], headers: vec![(0, [9; 40])], meta: Some(meta()) };
    // Folders of a creation stopped half way: a partition marked initialized without its level
    // manifest, and no keyspace marker.
    let half = dir.join("half");
    std::fs::create_dir_all(half.join("partitions/coins/segments")).unwrap();
    std::fs::write(half.join("partitions/coins/manifest"), b"partial").unwrap();
    std::fs::create_dir_all(half.join("journals")).unwrap();
    {
        let s = DiskStore::open(&half).unwrap();
        assert_eq!(s.meta().unwrap(), None);
        assert!(!half.join(".creating").exists());
    }
    assert_eq!(DiskStore::open(&half).unwrap().meta().unwrap(), None);
    // A whole keyspace with data, but `.creating` still there: the creation did not finish, so
    // nothing in it is trusted; the store is made again, empty.
    let stopped = dir.join("stopped");
    DiskStore::open(&stopped).unwrap().commit(batch.clone()).unwrap();
    std::fs::write(stopped.join(".creating"), b"").unwrap();
    {
        let s = DiskStore::open(&stopped).unwrap();
        assert_eq!(s.meta().unwrap(), None);
        assert_eq!(s.get(&a).unwrap(), None);
        assert!(!stopped.join(".creating").exists());
    }
    // An earlier version's staging folder left beside its whole store: the store is kept.
    let moved = dir.join("moved");
    DiskStore::open(&moved).unwrap().commit(batch).unwrap();
    std::fs::create_dir_all(moved.join(".creating")).unwrap();
    {
        let s = DiskStore::open(&moved).unwrap();
        assert_eq!(s.meta().unwrap(), Some(meta()));
        assert_eq!(s.get(&a).unwrap(), Some(coin(8)));
        assert!(!moved.join(".creating").exists());
    }
    // Somebody's files: refused, untouched.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), b"keep").unwrap();
    let e = DiskStore::open(&other).err().expect("refused");
    assert!(e.0.contains("notes.txt") && e.0.contains("no chain state"), "{e}");
    assert_eq!(std::fs::read(other.join("notes.txt")).unwrap(), b"keep");
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A damaged coin record stops a walk of the store with an error naming the coin, whether the
/// walk decodes coins or hands their records over as MuHash elements, and so does a key of the
/// wrong length; the records around it are still walked up to it.
#[test]
fn a_damaged_record_fails_both_walks() {
    let dir = std::env::temp_dir().join(format!("fullverify-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = DiskStore::open(&dir).unwrap();
    let ops: Vec<OutPoint> = (0..3u8).map(|i| OutPoint { txid: [i * 0x40; 32], vout: 1 }).collect();
    let c = coin(4);
    commit_sorted(&s, ops.iter().map(|op| (*op, Some(&c))).collect(), Vec::new()).unwrap();
    let all = 0..TXID_PREFIXES;
    let mut n = 0;
    s.for_each_element_in(all.clone(), &mut |_, e| {
        assert_eq!(e.len(), 36 + coin(4).to_bytes().len());
        n += 1;
    })
    .unwrap();
    assert_eq!(n, 3);
    // The middle coin's record cut short by one byte.
    let key = coin::outpoint_key(&ops[1]);
    let good = coin(4).to_bytes();
    s.put_raw_record(&key, &good[..good.len() - 1]);
    let (mut coins, mut elements) = (0, 0);
    let e1 = s.for_each_coin_in(all.clone(), &mut |_, _| coins += 1).unwrap_err();
    let e2 = s.for_each_element_in(all.clone(), &mut |_, _| elements += 1).unwrap_err();
    assert_eq!((coins, elements), (1, 1));
    for e in [e1, e2] {
        assert!(e.0.contains("corrupt coin") && e.0.contains(&format!("{:?}", ops[1])), "{e}");
    }
    s.put_raw_record(&key, &good);
    s.put_raw_record(&[0x80; 35], &good);
    assert!(s.for_each_element_in(all.clone(), &mut |_, _| ()).unwrap_err().0.contains("bad coin key"));
    assert!(s.for_each_coin_in(all, &mut |_, _| ()).unwrap_err().0.contains("bad coin key"));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
