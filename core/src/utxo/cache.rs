// SPDX-License-Identifier: MIT OR Apache-2.0
//! The write-back coins cache (Core's `CCoinsViewCache` with its DIRTY/FRESH flags) over a
//! [`Store`], with a memory budget.

use super::coin::Coin;
use super::store::{txid_prefix, ChainMeta, FlushBatch, Store, StoreError, TXID_PREFIXES};
use crate::encode::OutPoint;
use std::collections::HashMap;

impl Coin {
    /// Approximate heap and table footprint in a cache, for the memory budget.
    pub fn mem_usage(&self) -> usize {
        std::mem::size_of::<(OutPoint, Entry)>() + 16 + self.out.script_pubkey.capacity()
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

    /// Calls `f` with every unspent coin: the cached ones, and the stored ones the cache does not
    /// override (spent or changed since the last flush). In no particular order.
    pub fn for_each_coin(&self, f: &mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), StoreError> {
        self.for_each_coin_in(0..TXID_PREFIXES, f)
    }

    /// [`CoinsCache::for_each_coin`] for the coins whose [`txid_prefix`] is in `prefixes`: the
    /// parts of a split key space can be walked on several threads at once.
    pub fn for_each_coin_in(
        &self,
        prefixes: std::ops::Range<u32>,
        f: &mut dyn FnMut(&OutPoint, &Coin),
    ) -> Result<(), StoreError> {
        self.store.for_each_coin_in(prefixes.clone(), &mut |op, c| {
            if !self.map.contains_key(op) {
                f(op, c)
            }
        })?;
        for (op, e) in &self.map {
            if let (Some(c), true) = (&e.coin, prefixes.contains(&txid_prefix(op))) {
                f(op, c);
            }
        }
        Ok(())
    }

    /// Writes every dirty entry with `meta` and `headers` in one atomic commit, then empties the
    /// cache. Returns the number of coin records written or deleted. If the commit fails the
    /// cache keeps every change (as dirty, not fresh), so a later flush can retry.
    ///
    /// The batch's coins come in key order (txid bytes, then output index; the store's key
    /// order): an on-disk store's memtable is a skip list, where millions of random keys miss
    /// the cache on every level of every insert and sorted ones find the last path cached
    /// (a 4-million-coin flush took a quarter of the time). The cache's table is given back
    /// before the store sees the batch, so the two are not held at once.
    pub fn flush(&mut self, meta: ChainMeta, headers: Vec<(u32, [u8; 40])>) -> Result<usize, StoreError> {
        let map = std::mem::take(&mut self.map);
        let mut coins: Vec<(OutPoint, Option<Coin>)> =
            map.into_iter().filter(|(_, e)| e.dirty).map(|(op, e)| (op, e.coin)).collect();
        coins.sort_unstable_by_key(|(op, _)| (op.txid, op.vout));
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
