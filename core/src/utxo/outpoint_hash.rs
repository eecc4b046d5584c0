// SPDX-License-Identifier: MIT OR Apache-2.0
//! The hash of the coin tables: outpoints keyed by a salt drawn once per process.
//!
//! A txid is a double SHA-256, so its words are already uniform to anyone who cannot choose
//! them; what a table keyed by outpoints must resist is someone who grinds txids to crowd one
//! bucket. Each 64-bit word is XORed with a secret salt word and two words at a time go through
//! a folded 64×64→128-bit multiplication (the high half XORed onto the low half), so bucket and
//! tag bits depend on salt and key together. That is a fast keyed hash, not a PRF: it resists
//! blind grinding (an attacker sees neither the salt nor the table) but is not claimed to
//! resist one who measures this process's timing, where Core's salted SipHash would. Bitcoin
//! Core keys its coins cache the same way in spirit (`SaltedOutpointHasher`).
//!
//! The derived `Hash` of [`OutPoint`] writes the txid as a 32-byte slice (after its length)
//! and then the index: [`OutPointHasher`] takes that sequence fast and any other in a generic,
//! slower way, so it is correct for every key type.

use crate::encode::OutPoint;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

/// A map keyed by outpoints, hashed by [`SaltedOutPoints`].
pub type OutPointMap<V> = HashMap<OutPoint, V, SaltedOutPoints>;
/// A set of outpoints, hashed by [`SaltedOutPoints`].
pub type OutPointSet = HashSet<OutPoint, SaltedOutPoints>;

/// Builds [`OutPointHasher`]s with this process's salt (the same for every table, so tables can
/// be cloned and compared).
#[derive(Clone, Copy, Debug, Default)]
pub struct SaltedOutPoints;

/// The salt: four words from the standard library's per-process random keys.
fn salt() -> &'static [u64; 4] {
    static SALT: std::sync::OnceLock<[u64; 4]> = std::sync::OnceLock::new();
    SALT.get_or_init(fresh_salt)
}

/// Four words from the standard library's random keys (other words each call: its keys change
/// with every `RandomState`).
pub(crate) fn fresh_salt() -> [u64; 4] {
    let r = std::collections::hash_map::RandomState::new();
    core::array::from_fn(|i| r.hash_one(i as u64 ^ 0x6f75_7470_6f69_6e74))
}

/// A txid's 32 bytes mixed with `salt`: two independent products over its four salted words.
#[inline(always)]
fn salted_txid(salt: &[u64; 4], b: &[u8; 32]) -> u64 {
    let w = |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    fold_mul(w(0) ^ salt[0], w(1) ^ salt[1] ^ K[0]) ^ fold_mul(w(2) ^ salt[2], w(3) ^ salt[3] ^ K[1])
}

/// The 64-bit hash of a txid alone under `salt` (the txid filter's, whose salt is kept with it).
#[inline]
#[cfg_attr(not(all(feature = "store", not(target_arch = "wasm32"))), allow(dead_code))]
pub(crate) fn txid_hash_with(salt: &[u64; 4], txid: &[u8; 32]) -> u64 {
    fold_mul(salted_txid(salt, txid) ^ salt[2], K[1] ^ salt[3])
}

/// `a·b` as 128 bits, high half XORed onto the low half.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Odd constants (digits of π) that keep a folded product from collapsing when a word is zero.
const K: [u64; 2] = [0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344];

impl BuildHasher for SaltedOutPoints {
    type Hasher = OutPointHasher;
    #[inline]
    fn build_hasher(&self) -> OutPointHasher {
        OutPointHasher { salt: salt(), acc: 0 }
    }
}

/// The hasher of [`SaltedOutPoints`].
#[derive(Clone, Debug)]
pub struct OutPointHasher {
    salt: &'static [u64; 4],
    acc: u64,
}

impl Hasher for OutPointHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        if let Ok(b) = <&[u8; 32]>::try_from(bytes) {
            self.acc = self.acc.rotate_left(23) ^ salted_txid(self.salt, b);
            return;
        }
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word) ^ (chunk.len() as u64) << 59);
        }
    }

    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.acc = fold_mul(self.acc ^ v ^ self.salt[1], K[0] ^ self.salt[0]);
    }

    #[inline]
    fn write_usize(&mut self, v: usize) {
        // A slice's length: the txid's 32 is the same for every outpoint, so it only needs
        // to keep different layouts apart, not to be mixed.
        self.acc = self.acc.wrapping_add(v as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        fold_mul(self.acc ^ self.salt[2], K[1] ^ self.salt[3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(op: &OutPoint) -> u64 {
        SaltedOutPoints.hash_one(op)
    }

    #[test]
    fn equal_outpoints_hash_equal_and_neighbours_differ() {
        let a = OutPoint { txid: [7; 32], vout: 3 };
        assert_eq!(hash(&a), hash(&OutPoint { txid: [7; 32], vout: 3 }));
        // Every single-bit change of txid or index changes the hash, and spreads over both the
        // bucket bits (low) and the tag bits (top 7) that hashbrown uses.
        let mut low = std::collections::HashSet::new();
        let mut top = std::collections::HashSet::new();
        for bit in 0..(256 + 32) {
            let mut b = a;
            if bit < 256 {
                b.txid[bit / 8] ^= 1 << (bit % 8);
            } else {
                b.vout ^= 1 << (bit - 256);
            }
            let h = hash(&b);
            assert_ne!(h, hash(&a), "bit {bit}");
            low.insert(h & 0xFFF);
            top.insert(h >> 57);
        }
        assert!(low.len() > 250, "low bits poorly spread: {}", low.len());
        assert!(top.len() > 100, "tag bits poorly spread: {}", top.len());
    }

    #[test]
    fn grinding_one_word_does_not_crowd_a_bucket() {
        // Txids equal but for one word, or sharing their low words, and consecutive indices
        // of one transaction: spread over 4096 buckets like random keys.
        let mut keys = Vec::new();
        for i in 0..4096u64 {
            let mut txid = [0u8; 32];
            txid[24..].copy_from_slice(&i.to_le_bytes());
            keys.push(OutPoint { txid, vout: 0 });
            keys.push(OutPoint { txid: [0xAB; 32], vout: i as u32 });
        }
        let mut buckets = vec![0u32; 4096];
        for k in &keys {
            buckets[(hash(k) & 0xFFF) as usize] += 1;
        }
        // 8192 keys in 4096 buckets: a uniform hash fills about 86 % and none gets more
        // than a dozen.
        let used = buckets.iter().filter(|&&n| n > 0).count();
        assert!(used > 3300, "{used} buckets used");
        assert!(*buckets.iter().max().unwrap() < 14);
    }

    #[test]
    fn other_keys_hash_through_the_generic_path() {
        let mut m: HashMap<Vec<u8>, u32, SaltedOutPoints> = HashMap::default();
        // Keys of 1 to 4 bytes and of 32 (the fast path's length).
        let key = |i: u32| {
            if i.is_multiple_of(2) {
                i.to_string().into_bytes()
            } else {
                let mut k = vec![0u8; 32];
                k[..4].copy_from_slice(&i.to_le_bytes());
                k
            }
        };
        for i in 0..512u32 {
            m.insert(key(i), i);
        }
        assert_eq!(m.len(), 512);
        for i in 0..512u32 {
            assert_eq!(m.get(&key(i)), Some(&i));
        }
    }
}
