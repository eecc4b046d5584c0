// SPDX-License-Identifier: MIT OR Apache-2.0
//! A filter over the txids the on-disk store holds coins of, so that a lookup of a coin it
//! cannot hold is answered in memory; the coins cache keeps one over the coins added to it, so
//! that BIP30 asks once per transaction rather than once per output whether any of its outputs
//! may already exist (`CoinsCache::may_hold_txid`).
//!
//! Most lookups that miss the store are BIP30's: before a block's outputs are added, every one
//! of them is looked up to show that it overwrites no unspent coin, and a new transaction's
//! txid is, but for the two historical duplicates, never in the set. On a set larger than the
//! cache each such lookup reaches the LSM tree, which probes the bloom filter of every table
//! that may hold the key and now and then loads a block for a false positive. One filter over
//! whole txids answers nearly all of them with a probe or two of memory.
//!
//! The filter is a scalable split-block bloom filter: stages of 256-bit blocks, each key
//! setting one bit in each of a block's eight 32-bit words, the next stage four times the
//! capacity of the last once that fills. Bits are only ever set: a txid whose coins were all
//! spent stays in (a later lookup of it reads the store, as without the filter), and a txid
//! never inserted is reported as possibly present with the stages' summed false-positive rate
//! (about 0.1 % each at 16 bits per key). It never reports a held txid absent: the store sets a
//! batch's bits before it writes the batch, and fills the filter from its keys when it opens.
//!
//! Filling it from the keys reads every key of the store (seconds on tens of millions of
//! coins), so a store closed cleanly saves its filter beside it ([`TxidFilter::to_bytes`], with
//! the salt it hashes with) and the next opening reads that back when it still describes the
//! store (see `DiskStore`).

use super::outpoint_hash::{fresh_salt, txid_hash_with};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Txids the first stage is sized for; each later stage holds four times the one before.
#[cfg_attr(not(all(feature = "store", not(target_arch = "wasm32"))), allow(dead_code))]
const FIRST_CAPACITY: usize = 1 << 16;
/// Filter bits per txid a stage is sized for.
const BITS_PER_KEY: usize = 16;
/// Stages at most: the last would be sized for 2^16 · 4^19 = 2^54 txids.
const MAX_STAGES: usize = 20;

/// Odd multipliers, one per word of a block, that spread a key's 32 bits over the word's 32
/// bit positions (the salts of Parquet's split-block bloom filter).
const SALTS: [u32; 8] =
    [0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x7054_95c7, 0x2df1_424b, 0x9efc_4947, 0x5c6b_fb31];

/// One stage: `blocks` 256-bit blocks and the number of txids it was sized for.
struct Stage {
    blocks: Box<[[AtomicU32; 8]]>,
    capacity: usize,
}

/// The 256-bit blocks of a stage sized for `capacity` txids.
fn stage_blocks(capacity: usize) -> usize {
    (capacity * BITS_PER_KEY).div_ceil(256).max(1)
}

impl Stage {
    fn new(capacity: usize) -> Stage {
        Stage { blocks: (0..stage_blocks(capacity)).map(|_| Default::default()).collect(), capacity }
    }

    /// The block of `h` (its high bits) and the eight bit masks (its low 32 bits).
    #[inline]
    fn place(&self, h: u64) -> (&[AtomicU32; 8], [u32; 8]) {
        let i = ((u128::from(h) * self.blocks.len() as u128) >> 64) as usize;
        let key = h as u32;
        (&self.blocks[i], SALTS.map(|s| 1 << (key.wrapping_mul(s) >> 27)))
    }

    fn insert(&self, h: u64) {
        let (block, masks) = self.place(h);
        for (w, m) in block.iter().zip(masks) {
            // Relaxed: a reader learns of the batch these bits belong to through the store's
            // commit (a lock) and the flush's answer, both of which order these writes first.
            w.fetch_or(m, Ordering::Relaxed);
        }
    }

    fn may_contain(&self, h: u64) -> bool {
        let (block, masks) = self.place(h);
        block.iter().zip(masks).all(|(w, m)| w.load(Ordering::Relaxed) & m == m)
    }
}

/// A stage's own hash of `h`: a folded multiplication by a stage constant, so that the stages'
/// false positives are independent.
#[inline]
fn stage_hash(h: u64, stage: usize) -> u64 {
    let k = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(stage as u64 + 1) | 1;
    let p = u128::from(h ^ (k >> 7)) * u128::from(k);
    (p as u64) ^ ((p >> 64) as u64)
}

/// A concurrent filter of txids: inserts (serialised among themselves) and lookups may run on
/// different threads at once.
pub(crate) struct TxidFilter {
    /// The key of the filter's txid hash, drawn when the filter is made and saved with it.
    salt: [u64; 4],
    stages: [OnceLock<Stage>; MAX_STAGES],
    /// Stages in use (published after the stage is set).
    live: AtomicUsize,
    /// Txids inserted into the newest stage, under the lock that serialises inserts.
    newest_len: Mutex<usize>,
}

impl TxidFilter {
    /// An empty filter (one stage) with a fresh salt.
    #[cfg_attr(not(all(feature = "store", not(target_arch = "wasm32"))), allow(dead_code))]
    pub(crate) fn new() -> TxidFilter {
        TxidFilter::with_first_capacity(FIRST_CAPACITY)
    }

    /// [`TxidFilter::new`] with a first stage sized for `first` txids (at least one), for a
    /// filter that often starts again empty and is mostly small. Only a filter made by
    /// [`TxidFilter::new`] can be read back from its bytes (the stages' sizes are not saved).
    pub(crate) fn with_first_capacity(first: usize) -> TxidFilter {
        let first = first.max(1);
        let f = TxidFilter {
            salt: fresh_salt(),
            stages: Default::default(),
            live: AtomicUsize::new(1),
            newest_len: Mutex::new(0),
        };
        let _ = f.stages[0].set(Stage::new(first));
        f
    }

    /// The stage-independent hash of a txid.
    #[inline]
    fn txid_hash(&self, txid: &[u8; 32]) -> u64 {
        txid_hash_with(&self.salt, txid)
    }

    /// The filter as bytes: the salt, the number of live stages and the newest one's fill (LE
    /// u64 each), then each stage's words (LE u32). Taken under the insert lock, so no batch is
    /// half in it.
    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let len = self.newest_len.lock().unwrap_or_else(|e| e.into_inner());
        let live = self.live.load(Ordering::Acquire);
        let mut out = Vec::with_capacity(48 + self.mem_usage());
        for w in self.salt.iter().chain(&[live as u64, *len as u64]) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for stage in self.stages[..live].iter().filter_map(OnceLock::get) {
            for w in stage.blocks.iter().flatten() {
                out.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
            }
        }
        out
    }

    /// The filter [`TxidFilter::to_bytes`] wrote, or `None` if `b` is not one (wrong length,
    /// no stage or too many, a fill past its stage's capacity).
    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    pub(crate) fn from_bytes(b: &[u8]) -> Option<TxidFilter> {
        let word = |i: usize| Some(u64::from_le_bytes(b.get(8 * i..8 * i + 8)?.try_into().ok()?));
        let salt = [word(0)?, word(1)?, word(2)?, word(3)?];
        let live = usize::try_from(word(4)?).ok().filter(|l| (1..=MAX_STAGES).contains(l))?;
        let len = usize::try_from(word(5)?).ok()?;
        // The length is checked before any stage is made: a count of stages claims memory.
        let words: u128 = (0..live).map(|k| stage_blocks(FIRST_CAPACITY << (2 * k)) as u128 * 32).sum();
        if b.len() as u128 != 48 + words {
            return None;
        }
        let f = TxidFilter {
            salt,
            stages: Default::default(),
            live: AtomicUsize::new(live),
            newest_len: Mutex::new(0),
        };
        let mut rest = &b[48..];
        for (k, slot) in f.stages[..live].iter().enumerate() {
            let stage = Stage::new(FIRST_CAPACITY << (2 * k));
            let (words, tail) = rest.split_at_checked(stage.blocks.len() * 32)?;
            for (w, b) in stage.blocks.iter().flatten().zip(words.chunks_exact(4)) {
                w.store(u32::from_le_bytes(b.try_into().ok()?), Ordering::Relaxed);
            }
            let _ = slot.set(stage);
            rest = tail;
        }
        let newest = f.stages[live - 1].get()?.capacity;
        if !rest.is_empty() || len > newest {
            return None;
        }
        *f.newest_len.lock().unwrap_or_else(|e| e.into_inner()) = len;
        Some(f)
    }

    /// Inserts every txid of `txids`. A txid equal to the one before it is skipped (the store
    /// passes its keys' txids in key order, where a transaction's outputs are consecutive);
    /// other repeats are harmless but count toward a stage's fill.
    pub(crate) fn insert_all(&self, txids: impl IntoIterator<Item = [u8; 32]>) {
        let mut len = self.newest_len.lock().unwrap_or_else(|e| e.into_inner());
        let mut k = self.live.load(Ordering::Acquire) - 1;
        let mut stage = self.stages[k].get().expect("live stages are set");
        let mut last = None;
        for txid in txids.into_iter().filter(|t| last.replace(*t) != Some(*t)) {
            if *len >= stage.capacity && k + 1 < MAX_STAGES {
                let next = Stage::new(stage.capacity * 4);
                k += 1;
                let _ = self.stages[k].set(next);
                self.live.store(k + 1, Ordering::Release);
                stage = self.stages[k].get().expect("set above");
                *len = 0;
            }
            stage.insert(stage_hash(self.txid_hash(&txid), k));
            *len += 1;
        }
    }

    /// Whether `txid` may have been inserted: `false` only if it never was.
    #[inline]
    pub(crate) fn may_contain(&self, txid: &[u8; 32]) -> bool {
        let h = self.txid_hash(txid);
        let live = self.live.load(Ordering::Acquire);
        self.stages[..live]
            .iter()
            .enumerate()
            .any(|(k, s)| s.get().is_some_and(|s| s.may_contain(stage_hash(h, k))))
    }

    /// Bytes the stages hold.
    pub(crate) fn mem_usage(&self) -> usize {
        self.stages.iter().filter_map(OnceLock::get).map(|s| s.blocks.len() * 32).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random txids (splitmix64 words).
    fn txids(seed: u64, n: usize) -> Vec<[u8; 32]> {
        let mut x = seed;
        let mut next = move || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        (0..n)
            .map(|_| {
                let mut t = [0u8; 32];
                for c in t.chunks_mut(8) {
                    c.copy_from_slice(&next().to_le_bytes());
                }
                t
            })
            .collect()
    }

    #[test]
    fn never_forgets_and_rarely_invents() {
        let f = TxidFilter::new();
        // Enough to fill three stages (2^16 + 2^18 + part of 2^20), in uneven batches.
        let held = txids(1, 400_000);
        for part in held.chunks(77_777) {
            f.insert_all(part.iter().copied());
        }
        assert_eq!(f.live.load(Ordering::Relaxed), 3);
        assert!(held.iter().all(|t| f.may_contain(t)), "an inserted txid is never reported absent");
        // Structured txids too: all zero, all ones, a single bit.
        let edges: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32], {
            let mut t = [0; 32];
            t[31] = 1;
            t
        }];
        f.insert_all(edges.iter().copied());
        assert!(edges.iter().all(|t| f.may_contain(t)));
        let others = txids(2, 200_000);
        let false_pos = others.iter().filter(|t| f.may_contain(t)).count();
        // Three stages at about 0.1 % each; 1 % leaves room for the split-block layout's spread.
        assert!(false_pos < others.len() / 100, "{false_pos} false positives in {}", others.len());
        assert!(false_pos > 0, "a bloom filter this full reports some txids it never saw");
    }

    /// A filter read back from its bytes answers every txid as the one that wrote them (its salt
    /// travels with it), and takes inserts on; bytes of any other length or shape are refused,
    /// before a stage count they claim could allocate anything.
    #[test]
    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    fn bytes_round_trip_and_refuse_other_shapes() {
        let f = TxidFilter::new();
        let held = txids(4, 350_000);
        f.insert_all(held.iter().copied());
        assert_eq!(f.live.load(Ordering::Relaxed), 3);
        let bytes = f.to_bytes();
        assert_eq!(bytes.len(), 48 + f.mem_usage());
        let g = TxidFilter::from_bytes(&bytes).expect("its own bytes");
        assert_eq!(g.to_bytes(), bytes);
        let others = txids(5, 50_000);
        assert!(held.iter().all(|t| g.may_contain(t)));
        assert!(others.iter().all(|t| g.may_contain(t) == f.may_contain(t)));
        // Inserts go on into the newest stage from where the saved fill left off.
        let more = txids(6, 1_100_000);
        g.insert_all(more.iter().copied());
        assert_eq!(g.live.load(Ordering::Relaxed), 4);
        assert!(held.iter().chain(&more).all(|t| g.may_contain(t)));
        // Another process's filter (another salt) sets other bits for the same txids.
        let h = TxidFilter::new();
        h.insert_all(held.iter().copied());
        assert_ne!(h.to_bytes()[48..], bytes[48..]);

        let with = |i: usize, v: u64| {
            let mut b = bytes.clone();
            b[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
            b
        };
        let capacity_3 = FIRST_CAPACITY << 4;
        for (what, b) in [
            ("short", bytes[..bytes.len() - 1].to_vec()),
            ("long", [&bytes[..], &[0]].concat()),
            ("header only", bytes[..48].to_vec()),
            ("nothing", vec![]),
            ("no stage", with(4, 0)),
            ("a stage more", with(4, 4)),
            ("every stage", with(4, MAX_STAGES as u64)),
            ("past the last stage", with(4, MAX_STAGES as u64 + 1)),
            ("a huge stage count", with(4, u64::MAX)),
            ("fill past capacity", with(5, capacity_3 as u64 + 1)),
        ] {
            assert!(TxidFilter::from_bytes(&b).is_none(), "{what}");
        }
        assert!(TxidFilter::from_bytes(&with(5, capacity_3 as u64)).is_some(), "a full newest stage");
    }

    /// Bytes of a filter damaged at random (a byte changed, cut, lengthened, a stage count or a
    /// fill rewritten): reading them back never panics, and whatever is accepted writes the
    /// same bytes again.
    #[test]
    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    fn damaged_bytes_are_refused_or_read_exactly() {
        let f = TxidFilter::new();
        f.insert_all(txids(7, 70_000));
        let bytes = f.to_bytes();
        let mut x = 0x853c_49e6_748f_ea9bu64;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..3000 {
            let mut b = bytes.clone();
            match next(5) {
                0 => {
                    let at = next(b.len());
                    b[at] = next(256) as u8;
                }
                1 => b.truncate(next(b.len())),
                2 => b.extend(std::iter::repeat_n(0, 1 + next(64))),
                3 => b[32..40].copy_from_slice(&(next(MAX_STAGES + 3) as u64).to_le_bytes()),
                _ => b[40..48].copy_from_slice(&(next(FIRST_CAPACITY << 3) as u64).to_le_bytes()),
            }
            match TxidFilter::from_bytes(&b) {
                Some(g) => {
                    assert_eq!(g.to_bytes(), b);
                    accepted += 1;
                }
                None => refused += 1,
            }
        }
        assert!(accepted > 0 && refused > 0, "{accepted} accepted, {refused} refused");
    }

    #[test]
    fn empty_filter_holds_nothing() {
        let f = TxidFilter::new();
        assert!(txids(3, 10_000).iter().all(|t| !f.may_contain(t)));
        assert_eq!(f.mem_usage(), FIRST_CAPACITY * BITS_PER_KEY / 8);
    }
}
