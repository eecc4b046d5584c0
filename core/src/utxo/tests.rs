// SPDX-License-Identifier: MIT OR Apache-2.0
use super::*;
use crate::encode::{OutPoint, TxOut};
use crate::muhash::MuHash3072;

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
