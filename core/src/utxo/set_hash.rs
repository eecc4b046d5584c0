// SPDX-License-Identifier: MIT OR Apache-2.0
//! The UTXO set's MuHash3072: per block (the coins a block creates and spends, for the
//! incremental policy) and over a whole set at once (the final policy).

use super::coin::{txout_ser, txout_ser_into, Coin};
use super::store::TXID_PREFIXES;
use crate::backend::Backend;
use crate::encode::OutPoint;
use crate::muhash::{MuHash3072, SetProduct};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

/// The MuHash change of a block: every created coin inserted, every spent coin removed. The
/// product is order-independent, so large blocks are split across `threads` workers whose
/// partial accumulators are combined.
pub fn muhash_delta(spent: &[(OutPoint, Coin)], created: &[(OutPoint, Coin)], threads: usize) -> MuHash3072 {
    let backend = Backend::detect();
    let part = |spent: &[(OutPoint, Coin)], created: &[(OutPoint, Coin)]| {
        let mut buf = Vec::with_capacity(128);
        let mut removed = SetProduct::new(backend);
        for (op, c) in spent {
            txout_ser_into(op, c, &mut buf);
            removed.insert(&buf);
        }
        let mut added = SetProduct::new(backend);
        for (op, c) in created {
            txout_ser_into(op, c, &mut buf);
            added.insert(&buf);
        }
        let mut m = added.finish();
        m.remove_set(&removed.finish());
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

/// Coins per batch handed to a worker by [`muhash_of_set`].
const SET_BATCH: usize = 1024;

/// MuHash3072 of a whole set of coins, computed once (the final MuHash policy): `for_each`
/// calls its argument with every coin. The elements are hashed on `threads` workers, each
/// multiplying its batches into an accumulator of its own, and the accumulators are combined
/// at the end (the product does not depend on the order). One ChaCha20 expansion and one
/// 3072-bit multiplication per coin, on `backend`, into a [`SetProduct`].
pub fn muhash_of_set<E>(
    threads: usize,
    backend: Backend,
    for_each: impl FnOnce(&mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), E>,
) -> Result<MuHash3072, E> {
    if threads <= 1 {
        let mut p = SetProduct::new(backend);
        let mut buf = Vec::with_capacity(128);
        for_each(&mut |op, c| {
            txout_ser_into(op, c, &mut buf);
            p.insert(&buf);
        })?;
        return Ok(p.finish());
    }
    let (tx, rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(2 * threads);
    let rx = Mutex::new(rx);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut p = SetProduct::new(backend);
                    loop {
                        let batch = rx.lock().expect("no panics while held").recv();
                        let Ok(batch) = batch else { return p.finish() };
                        for e in &batch {
                            p.insert(e);
                        }
                    }
                })
            })
            .collect();
        let mut batch = Vec::with_capacity(SET_BATCH);
        let scanned = for_each(&mut |op, c| {
            batch.push(txout_ser(op, c));
            if batch.len() == SET_BATCH {
                // The workers outlive the sender: a send fails only if one panicked.
                let _ = tx.send(std::mem::replace(&mut batch, Vec::with_capacity(SET_BATCH)));
            }
        });
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        let mut m = MuHash3072::new();
        for w in workers {
            m.combine(&w.join().expect("muhash worker"));
        }
        scanned.map(|()| m)
    })
}

/// Parts per worker in [`muhash_of_parts`]: more parts than workers, so a worker slowed by
/// another process does not leave the others waiting on its last range.
const PARTS_PER_WORKER: u32 = 8;

/// MuHash3072 of a whole set whose coins can be walked by key range (the final MuHash policy
/// over a store): `each_part(prefixes, f)` calls `f` with the MuHash element (Core's
/// `TxOutSer`, as [`CoinsCache::for_each_element_in`](super::CoinsCache::for_each_element_in)
/// gives it) of every coin whose [`txid_prefix`](super::txid_prefix) is in `prefixes`. The key
/// space is cut into ranges that `threads` workers take in turn, each reading and hashing its
/// own coins into an accumulator of its own; the accumulators are combined at the end. Unlike
/// [`muhash_of_set`], no single thread reads for all the others. The first error ends the pass.
pub fn muhash_of_parts<E: Send>(
    threads: usize,
    backend: Backend,
    each_part: impl Fn(Range<u32>, &mut dyn FnMut(&[u8])) -> Result<(), E> + Sync,
) -> Result<MuHash3072, E> {
    let threads = threads.max(1);
    let parts = if threads == 1 { 1 } else { threads as u32 * PARTS_PER_WORKER };
    let range = |i: u32| {
        let at = |i: u32| (u64::from(TXID_PREFIXES) * u64::from(i) / u64::from(parts)) as u32;
        at(i)..at(i + 1)
    };
    let next = AtomicUsize::new(0);
    let worker = || -> Result<MuHash3072, E> {
        let mut p = SetProduct::new(backend);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed) as u32;
            if i >= parts {
                return Ok(p.finish());
            }
            each_part(range(i), &mut |e| p.insert(e))?;
        }
    };
    if threads == 1 {
        return worker();
    }
    let results: Vec<Result<MuHash3072, E>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(worker)).collect();
        handles.into_iter().map(|h| h.join().expect("muhash worker")).collect()
    });
    let mut m = MuHash3072::new();
    for r in results {
        m.combine(&r?);
    }
    Ok(m)
}
