// SPDX-License-Identifier: MIT OR Apache-2.0
//! The UTXO set's MuHash3072: per block (the coins a block creates and spends, for the
//! incremental policy) and over a whole set at once (the final policy).

use super::coin::{txout_ser, Coin};
use crate::backend::Backend;
use crate::encode::OutPoint;
use crate::muhash::MuHash3072;
use std::sync::{mpsc, Mutex};

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

/// Coins per batch handed to a worker by [`muhash_of_set`].
const SET_BATCH: usize = 1024;

/// MuHash3072 of a whole set of coins, computed once (the final MuHash policy): `for_each`
/// calls its argument with every coin. The elements are hashed on `threads` workers, each
/// multiplying its batches into an accumulator of its own, and the accumulators are combined
/// at the end (the product does not depend on the order). One ChaCha20 expansion and one
/// 3072-bit multiplication per coin, on `backend`.
pub fn muhash_of_set<E>(
    threads: usize,
    backend: Backend,
    for_each: impl FnOnce(&mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), E>,
) -> Result<MuHash3072, E> {
    if threads <= 1 {
        let mut m = MuHash3072::new();
        for_each(&mut |op, c| {
            m.insert_with(backend, &txout_ser(op, c));
        })?;
        return Ok(m);
    }
    let (tx, rx) = mpsc::sync_channel::<Vec<Vec<u8>>>(2 * threads);
    let rx = Mutex::new(rx);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut m = MuHash3072::new();
                    loop {
                        let batch = rx.lock().expect("no panics while held").recv();
                        let Ok(batch) = batch else { return m };
                        for e in &batch {
                            m.insert_with(backend, e);
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
