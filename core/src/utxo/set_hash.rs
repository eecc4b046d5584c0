// SPDX-License-Identifier: MIT OR Apache-2.0
//! The UTXO set's MuHash3072: per block (the coins a block creates and spends, for the
//! incremental policy) and over a whole set at once (the final policy).

use super::coin::{txout_ser, Coin};
use crate::encode::OutPoint;
use crate::muhash::MuHash3072;

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
