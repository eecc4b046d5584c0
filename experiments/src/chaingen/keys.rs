// SPDX-License-Identifier: MIT OR Apache-2.0
//! The seeded choice generator (SplitMix64), the keys derived from the seed in every form the
//! generator uses, and the ordered map over threads that derives keys and signs in parallel.

use fullverify::hash::{hash160, sha256, tags};
use fullverify::secp256k1::{secret_tweak_add_xonly, PublicKey};

/// SplitMix64: the generator's only source of choices.
#[derive(Clone, Debug)]
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(super) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub(super) fn chance(&mut self, per_mille: u32) -> bool {
        (self.next() % 1000) < u64::from(per_mille)
    }
    /// A value in `lo..=hi` (`lo` ≥ 1) whose logarithm is about uniform: a doubling of `lo`
    /// drawn uniformly, then a value in it (integers only, so the same on every machine).
    pub(super) fn log_uniform(&mut self, lo: i64, hi: i64) -> i64 {
        let octaves = (hi / lo).max(1).ilog2() as usize;
        let base = lo << self.below(octaves + 1);
        (base + self.below(base as usize) as i64).min(hi)
    }
    pub(super) fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for c in b.chunks_mut(8) {
            c.copy_from_slice(&self.next().to_le_bytes());
        }
        b
    }
}

/// One key with every form the generator uses.
pub(super) struct Key {
    pub(super) sk: [u8; 32],
    pub(super) compressed: [u8; 33],
    pub(super) uncompressed: [u8; 65],
    pub(super) hybrid: [u8; 65],
    pub(super) xonly: [u8; 32],
    /// Key-path-only taproot output key and the matching tweaked secret key.
    pub(super) tr_output: [u8; 32],
    pub(super) tr_sk: [u8; 32],
    /// HASH160 of the compressed, uncompressed and hybrid keys and of the P2WPKH program
    /// nested in P2SH: the single-key scripts without hashing for every new output.
    pub(super) h160: [[u8; 20]; 4],
}

pub(super) const KEY_COUNT: usize = 512;

pub(super) fn derive_keys(seed: u64, threads: usize) -> Vec<Key> {
    let make = |i: usize| {
        let mut ctr = 0u32;
        loop {
            let mut m = b"chaingen key".to_vec();
            m.extend_from_slice(&seed.to_le_bytes());
            m.extend_from_slice(&(i as u64).to_le_bytes());
            m.extend_from_slice(&ctr.to_le_bytes());
            let sk = sha256(&m);
            if let Ok(pk) = PublicKey::from_secret(&sk) {
                let uncompressed = pk.serialize_uncompressed();
                let mut hybrid = uncompressed;
                hybrid[0] = 0x06 | (uncompressed[64] & 1);
                let (x, _) = pk.x_only();
                let xonly = x.serialize();
                let tweak = tags::tap_tweak().hash(&xonly);
                let (q, _) = x.tweak_add(&tweak).expect("taproot tweak");
                let tr_sk = secret_tweak_add_xonly(&sk, &tweak).expect("taproot secret tweak");
                let compressed = pk.serialize_compressed();
                let key_hash = hash160(&compressed);
                let mut program = vec![0x00, 0x14];
                program.extend_from_slice(&key_hash);
                let h160 = [key_hash, hash160(&uncompressed), hash160(&hybrid), hash160(&program)];
                return Key {
                    sk,
                    compressed,
                    uncompressed,
                    hybrid,
                    xonly,
                    tr_output: q.serialize(),
                    tr_sk,
                    h160,
                };
            }
            ctr += 1;
        }
    };
    par_map(&(0..KEY_COUNT).collect::<Vec<_>>(), threads, |&i| make(i))
}

/// Maps `items` in order over `threads` contiguous chunks.
pub(super) fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.max(1).min(items.len().max(1));
    if threads == 1 || items.len() < 8 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("chaingen worker")).collect()
    })
}
