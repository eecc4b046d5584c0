// SPDX-License-Identifier: MIT OR Apache-2.0
//! The coins the generator can spend ([`Utxo`]), and the pool of the `utxo-heavy` profile,
//! which holds tens of millions of them.
//!
//! The pool has three parts. Fresh coins are the outputs of payments of the last
//! [`FRESH_BLOCKS`] blocks; the planner spends most of them again within a few blocks, and the
//! rest join the tail. The tail is most of the set: the payouts' small outputs,
//! consolidations' outputs, matured coinbases and the fresh coins that outlived their window.
//! A tail or fresh coin takes 32 bytes ([`Coin`]; its script is made again from its kind and
//! keys when it is spent or hashed), kept by creation height with a Fenwick tree of the
//! counts ([`Aged`]), so that a coin is drawn by rank or near a height in O(log n). Coins of at
//! least [`BIG`] satoshis are kept whole and fund the payouts.

use super::keys::Rng;
use super::profile::Kind;
use super::scripts::{Gen, TapLeaf};
use fullverify::encode::{OutPoint, TxOut};
use fullverify::utxo::Coin as SetCoin;
use std::sync::Arc;

/// A coin the generator can spend.
#[derive(Clone, Debug)]
pub(super) struct Utxo {
    pub(super) op: OutPoint,
    pub(super) value: i64,
    pub(super) kind: Kind,
    pub(super) keys: [u16; 3],
    pub(super) height: u32,
    pub(super) coinbase: bool,
    pub(super) spk: Vec<u8>,
    pub(super) leaf: Option<Arc<TapLeaf>>,
}

/// What a transaction is for, which decides where the utxo-heavy pool keeps its new coins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A payment: its outputs are fresh coins, mostly spent within a few blocks.
    Payment,
    /// A payout fanning out to many small outputs: the long tail.
    Payout,
    /// Many old coins into one.
    Consolidation,
    /// A coinbase output that has matured.
    Coinbase,
}

/// Fresh coins older than this many blocks join the tail.
pub(super) const FRESH_BLOCKS: u32 = 12;

/// Coins of at least this value (0.5 BTC) fund payouts and are kept whole.
pub(super) const BIG: i64 = 50_000_000;

/// The payouts' smallest output value.
const PAYOUT_MIN: i64 = 5_000;

/// The range of a payout output's value for a final set of `utxos` coins: from 5,000 sat up
/// to 100,000 sat, less above 8,000,000 coins so that the tail holds at most about a third of
/// regtest's 15,000 BTC (at 20,000,000 coins: up to 40,000 sat, 23,000 on average).
pub(super) fn payout_range(utxos: u64) -> (i64, i64) {
    (PAYOUT_MIN, (800_000_000_000 / utxos.max(1)).clamp(8 * PAYOUT_MIN as u64, 100_000) as i64)
}

const NO_LEAF: u32 = u32::MAX;

/// A tail or fresh coin: its transaction (an index into [`Heavy`]'s txids), output, value,
/// kind and keys, and its taproot leaf (an index into the leaves), in 32 bytes; the height is
/// its bucket's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Coin {
    tx: u32,
    vout: u32,
    value: i64,
    keys: [u16; 3],
    kind: Kind,
    coinbase: bool,
    leaf: u32,
}

const _: () = assert!(std::mem::size_of::<Coin>() == 32);

/// Coins by creation height with a Fenwick tree of the bucket sizes.
pub(super) struct Aged {
    buckets: Vec<Vec<Coin>>,
    tree: Vec<u64>,
    len: u64,
}

impl Aged {
    fn new(heights: usize) -> Aged {
        Aged { buckets: vec![Vec::new(); heights], tree: vec![0; heights + 1], len: 0 }
    }

    fn add(&mut self, height: usize, delta: i64) {
        let mut i = height + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
        self.len = self.len.wrapping_add_signed(delta);
    }

    /// Coins created at or below `height`.
    fn count_through(&self, height: usize) -> u64 {
        let mut i = (height + 1).min(self.tree.len() - 1);
        let mut n = 0;
        while i > 0 {
            n += self.tree[i];
            i &= i - 1;
        }
        n
    }

    /// The height of the coin of rank `k` (0-based, oldest first); `k` < `len`.
    fn height_of_rank(&self, mut k: u64) -> usize {
        let mut pos = 0;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] <= k {
                pos = next;
                k -= self.tree[next];
            }
            step >>= 1;
        }
        pos
    }

    fn push(&mut self, height: u32, coin: Coin) {
        self.buckets[height as usize].push(coin);
        self.add(height as usize, 1);
    }

    /// A random coin of the non-empty bucket `height`.
    fn take_in(&mut self, height: usize, rng: &mut Rng) -> (u32, Coin) {
        let b = &mut self.buckets[height];
        let c = b.swap_remove(rng.below(b.len()));
        self.add(height, -1);
        (height as u32, c)
    }

    /// A coin drawn uniformly among those created at or below `height`.
    fn take_uniform_through(&mut self, height: usize, rng: &mut Rng) -> Option<(u32, Coin)> {
        let n = self.count_through(height);
        (n > 0).then(|| {
            let h = self.height_of_rank(rng.next() % n);
            self.take_in(h, rng)
        })
    }

    /// A coin of the newest bucket at or below `height`, or else of the oldest bucket.
    fn take_near(&mut self, height: usize, rng: &mut Rng) -> Option<(u32, Coin)> {
        if self.len == 0 {
            return None;
        }
        let h = self.height_of_rank(self.count_through(height).max(1) - 1);
        Some(self.take_in(h, rng))
    }
}

/// A coin taken from the pool for a transaction being planned, and where it goes back.
pub(super) enum Taken {
    Fresh(u32, Coin),
    Tail(u32, Coin),
    Big(Utxo),
}

impl Taken {
    pub(super) fn value(&self) -> i64 {
        match self {
            Taken::Fresh(_, c) | Taken::Tail(_, c) => c.value,
            Taken::Big(u) => u.value,
        }
    }
}

/// The utxo-heavy pool and its goals.
pub(super) struct Heavy {
    utxos: u64,
    inputs: u64,
    first: u32,
    span: u32,
    /// The range of a payout output's value ([`payout_range`]).
    pub(super) payout: (i64, i64),
    fresh: Aged,
    tail: Aged,
    big: Vec<Utxo>,
    txids: Vec<[u8; 32]>,
    leaves: Vec<Arc<TapLeaf>>,
    /// Heights below this have left the fresh part.
    fresh_floor: u32,
    /// Consolidation inputs owed, and the size of the next consolidation.
    pub(super) credit: usize,
    pub(super) next_consolidation: usize,
    /// Outputs of the next payout.
    pub(super) next_payout: usize,
}

impl Heavy {
    /// The pool of a corpus with `utxos` coins at the tip whose spend range is
    /// `first..=tip`.
    pub(super) fn new(utxos: u64, first: u32, tip: u32) -> Heavy {
        Heavy {
            utxos,
            inputs: utxos / 10 + utxos / 500,
            first,
            span: tip + 1 - first,
            payout: payout_range(utxos),
            fresh: Aged::new(tip as usize + 1),
            tail: Aged::new(tip as usize + 1),
            big: Vec::new(),
            txids: Vec::new(),
            leaves: Vec::new(),
            fresh_floor: 0,
            credit: 0,
            next_consolidation: 100,
            next_payout: 1_000,
        }
    }

    /// Coins in the pool.
    pub(super) fn len(&self) -> u64 {
        self.fresh.len + self.tail.len + self.big.len() as u64
    }

    /// The inputs so far and the coins in the set that the block at `height` aims at.
    pub(super) fn goals(&self, height: u32) -> (u64, u64) {
        let num = u128::from(height + 1 - self.first);
        let den = u128::from(self.span);
        let c = |total: u64| (u128::from(total) * num * (den + num) / (2 * den * den)) as u64;
        (c(self.inputs), c(self.utxos))
    }

    /// Keeps a new or matured coin where coins of `role` go.
    pub(super) fn keep(&mut self, u: Utxo, role: Role) {
        if u.value >= BIG {
            self.big.push(u);
            return;
        }
        let height = u.height;
        let fresh = role == Role::Payment;
        let c = self.compact(u);
        if fresh {
            self.fresh.push(height, c);
        } else {
            self.tail.push(height, c);
        }
    }

    fn compact(&mut self, u: Utxo) -> Coin {
        if self.txids.last() != Some(&u.op.txid) {
            self.txids.push(u.op.txid);
        }
        let leaf = match u.leaf {
            Some(l) => {
                self.leaves.push(l);
                self.leaves.len() as u32 - 1
            }
            None => NO_LEAF,
        };
        Coin {
            tx: self.txids.len() as u32 - 1,
            vout: u.op.vout,
            value: u.value,
            keys: u.keys,
            kind: u.kind,
            coinbase: u.coinbase,
            leaf,
        }
    }

    pub(super) fn put_back(&mut self, t: Taken) {
        match t {
            Taken::Fresh(h, c) => self.fresh.push(h, c),
            Taken::Tail(h, c) => self.tail.push(h, c),
            Taken::Big(u) => self.big.push(u),
        }
    }

    /// Moves the fresh coins that are too old for the block at `height` to the tail.
    pub(super) fn age_fresh(&mut self, height: u32) {
        let floor = height.saturating_sub(FRESH_BLOCKS);
        for h in self.fresh_floor..floor {
            let coins = std::mem::take(&mut self.fresh.buckets[h as usize]);
            if coins.is_empty() {
                continue;
            }
            self.fresh.add(h as usize, -(coins.len() as i64));
            self.tail.add(h as usize, coins.len() as i64);
            let b = &mut self.tail.buckets[h as usize];
            b.extend(coins);
            b.shrink_to_fit();
        }
        self.fresh_floor = self.fresh_floor.max(floor);
    }

    /// A fresh coin at an age drawn geometrically (1, 2, … blocks: 45 %, 25 %, 14 %, …).
    pub(super) fn take_fresh(&mut self, height: u32, rng: &mut Rng) -> Option<Taken> {
        if self.fresh.len == 0 {
            return None;
        }
        let mut age = 1;
        while age < FRESH_BLOCKS && rng.chance(550) {
            age += 1;
        }
        let (h, c) = self.fresh.take_near(height.saturating_sub(age) as usize, rng)?;
        Some(Taken::Fresh(h, c))
    }

    /// A tail coin drawn uniformly over the tail or at a log-uniform age.
    pub(super) fn take_spread(&mut self, height: u32, rng: &mut Rng) -> Option<Taken> {
        if self.tail.len == 0 {
            return None;
        }
        let (h, c) = if rng.chance(500) {
            let h = self.tail.height_of_rank(rng.next() % self.tail.len);
            self.tail.take_in(h, rng)
        } else {
            let age = rng.log_uniform(1, i64::from(height.max(2) - 1)) as u32;
            self.tail.take_near(height.saturating_sub(age) as usize, rng)?
        };
        Some(Taken::Tail(h, c))
    }

    /// A tail coin drawn uniformly among those at least 1,000 blocks old (half the spend
    /// range's age at `height`, while that is younger).
    pub(super) fn take_old(&mut self, height: u32, rng: &mut Rng) -> Option<Taken> {
        let age = ((height - self.first) / 2).clamp(1, 1_000);
        let (h, c) = self.tail.take_uniform_through(height.saturating_sub(age) as usize, rng)?;
        Some(Taken::Tail(h, c))
    }

    /// A large coin of at least `need`, scanning from a random point.
    pub(super) fn take_big(&mut self, need: i64, rng: &mut Rng) -> Option<Taken> {
        let n = self.big.len();
        let start = rng.below(n);
        let i = (0..n).map(|k| (start + k) % n).find(|&i| self.big[i].value >= need)?;
        Some(Taken::Big(self.big.swap_remove(i)))
    }

    /// A coin for a payment: fresh or from the tail as `fresh` says, else the other, else
    /// a large one.
    pub(super) fn take_for_payment(&mut self, fresh: bool, height: u32, rng: &mut Rng) -> Option<Taken> {
        let first = if fresh { self.take_fresh(height, rng) } else { self.take_spread(height, rng) };
        first
            .or_else(|| if fresh { self.take_spread(height, rng) } else { self.take_fresh(height, rng) })
            .or_else(|| self.take_big(0, rng))
    }

    /// The coin a taken one stands for, its script made again.
    pub(super) fn utxo_of(&self, g: &Gen, t: &Taken) -> Utxo {
        let (height, c) = match t {
            Taken::Fresh(height, c) | Taken::Tail(height, c) => (*height, c),
            Taken::Big(u) => return u.clone(),
        };
        let leaf = (c.leaf != NO_LEAF).then(|| self.leaves[c.leaf as usize].clone());
        Utxo {
            op: OutPoint { txid: self.txids[c.tx as usize], vout: c.vout },
            value: c.value,
            kind: c.kind,
            keys: c.keys,
            height,
            coinbase: c.coinbase,
            spk: g.script(c.kind, c.keys, leaf.as_deref()),
            leaf,
        }
    }

    /// Calls `f` with every coin of the pool.
    pub(super) fn for_each_coin(&self, g: &Gen, f: &mut dyn FnMut(&OutPoint, &SetCoin)) {
        for u in &self.big {
            let coin = SetCoin {
                out: TxOut { value: u.value, script_pubkey: u.spk.clone() },
                height: u.height,
                coinbase: u.coinbase,
            };
            f(&u.op, &coin);
        }
        for part in [&self.fresh, &self.tail] {
            for (h, b) in part.buckets.iter().enumerate() {
                for c in b {
                    let leaf = (c.leaf != NO_LEAF).then(|| &*self.leaves[c.leaf as usize]);
                    let coin = SetCoin {
                        out: TxOut { value: c.value, script_pubkey: g.script(c.kind, c.keys, leaf) },
                        height: h as u32,
                        coinbase: c.coinbase,
                    };
                    f(&OutPoint { txid: self.txids[c.tx as usize], vout: c.vout }, &coin);
                }
            }
        }
    }
}
