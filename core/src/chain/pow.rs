// SPDX-License-Identifier: MIT OR Apache-2.0
//! Proof of work and difficulty: Core's `CheckProofOfWork`, `GetNextWorkRequired` and
//! `CalculateNextWorkRequired` (`src/pow.cpp`), and the median time past of a header chain.

use super::params::ChainParams;
use super::target::{derive_target, U256};
use crate::encode::BlockHeader;

/// Core's `CheckProofOfWork`.
pub fn check_proof_of_work(hash: &[u8; 32], bits: u32, params: &ChainParams) -> bool {
    match derive_target(bits, &params.pow_limit()) {
        Some(t) => U256::from_le_bytes(hash) <= t,
        None => false,
    }
}

/// What the header rules need to know about an ancestor block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderEntry {
    /// Block hash, internal byte order.
    pub hash: [u8; 32],
    /// Block timestamp (`nTime`), seconds since the epoch.
    pub time: u32,
    /// Compact target (`nBits`).
    pub bits: u32,
}

impl HeaderEntry {
    /// The entry of a header (hashes it).
    pub fn of(h: &BlockHeader) -> HeaderEntry {
        HeaderEntry { hash: h.block_hash(), time: h.time, bits: h.bits }
    }
}

/// Median of the timestamps of the block at `height` and its ≤ 10 predecessors
/// (`GetMedianTimePast`); `chain[i]` is the block at height `i`.
pub fn median_time_past(chain: &[HeaderEntry], height: u32) -> i64 {
    let end = height as usize + 1;
    let start = end.saturating_sub(11);
    let mut t: Vec<u32> = chain[start..end].iter().map(|e| e.time).collect();
    t.sort_unstable();
    t[t.len() / 2] as i64
}

/// `GetNextWorkRequired` for the block after `chain.last()` with timestamp `new_time`.
pub fn next_work_required(chain: &[HeaderEntry], new_time: u32, params: &ChainParams) -> u32 {
    let last_h = chain.len() as u32 - 1;
    let last = &chain[last_h as usize];
    let interval = params.difficulty_adjustment_interval();
    let limit = params.pow_limit_bits;
    if !(last_h + 1).is_multiple_of(interval) {
        if params.pow_allow_min_difficulty_blocks {
            // A block more than 20 minutes after its parent may use the minimum difficulty.
            if new_time as i64 > last.time as i64 + params.pow_target_spacing * 2 {
                return limit;
            }
            // Otherwise the bits of the last block that was not a min-difficulty exception.
            let mut i = last_h;
            while i > 0 && !i.is_multiple_of(interval) && chain[i as usize].bits == limit {
                i -= 1;
            }
            return chain[i as usize].bits;
        }
        return last.bits;
    }
    let first = &chain[(last_h + 1 - interval) as usize];
    calculate_next_work_required(last, first, params)
}

/// `CalculateNextWorkRequired`.
pub fn calculate_next_work_required(last: &HeaderEntry, first: &HeaderEntry, params: &ChainParams) -> u32 {
    if params.pow_no_retargeting {
        return last.bits;
    }
    let span = params.pow_target_timespan;
    let actual = (last.time as i64 - first.time as i64).clamp(span / 4, span * 4);
    let base = if params.enforce_bip94 { first.bits } else { last.bits };
    let limit = params.pow_limit();
    let mut t = U256::from_compact(base).0.mul_u64(actual as u64).div_u64(span as u64);
    if t > limit {
        t = limit;
    }
    t.to_compact()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{MAINNET, REGTEST, TESTNET3, TESTNET4};

    #[test]
    fn retarget_vs_core_pow_tests() {
        // Core pow_tests: get_next_work (32256 → 0x1d00d86a), pow limit cap, and the clamps.
        let c = |t0: u32, t1: u32, bits: u32| {
            calculate_next_work_required(
                &HeaderEntry { hash: [0; 32], time: t1, bits },
                &HeaderEntry { hash: [0; 32], time: t0, bits },
                &MAINNET,
            )
        };
        assert_eq!(c(1261130161, 1262152739, 0x1d00ffff), 0x1d00d86a);
        assert_eq!(c(1231006505, 1233061996, 0x1d00ffff), 0x1d00ffff);
        assert_eq!(c(1279008237, 1279297671, 0x1c05a3f4), 0x1c0168fd);
        assert_eq!(c(1263163443, 1269211443, 0x1c387f6f), 0x1d00e1fd);
    }

    /// A chain of `n` headers 600 s apart, all with `bits`.
    fn synthetic_chain(n: u32, bits: u32) -> Vec<HeaderEntry> {
        (0..n).map(|i| HeaderEntry { hash: [i as u8; 32], time: 1_700_000_000 + 600 * i, bits }).collect()
    }

    #[test]
    fn testnet_min_difficulty_rules() {
        let bits = 0x1c0fffff;
        let limit = TESTNET3.pow_limit_bits;
        let mut c = synthetic_chain(2100, bits);
        let last = c.last().unwrap().time;
        // More than 20 minutes after the parent: the pow limit is allowed (and required).
        assert_eq!(next_work_required(&c, last + 1201, &TESTNET3), limit);
        assert_eq!(next_work_required(&c, last + 1200, &TESTNET3), bits);
        // After min-difficulty blocks, a normal block takes the last real difficulty.
        for e in &mut c[2090..] {
            e.bits = limit;
        }
        assert_eq!(next_work_required(&c, c.last().unwrap().time + 60, &TESTNET3), bits);
        // Mainnet has no such rule.
        assert_eq!(next_work_required(&c, last + 5000, &MAINNET), limit);
        assert_eq!(next_work_required(&synthetic_chain(2100, bits), last + 5000, &MAINNET), bits);
        // Regtest never retargets.
        let r = synthetic_chain(2016, 0x207fffff);
        assert_eq!(next_work_required(&r, r.last().unwrap().time + 1, &REGTEST), 0x207fffff);
    }

    #[test]
    fn bip94_retarget_uses_the_first_block_of_the_period() {
        // A period whose last block is a min-difficulty exception, timespan exactly 2 weeks
        // (first block at 0, last at 2015 · 600 + 600): testnet3 scales the last block's bits
        // (the limit), testnet4 the first block's.
        let bits = 0x1c0fffff;
        let mut c = synthetic_chain(2016, bits);
        c[2015].bits = TESTNET3.pow_limit_bits;
        c[2015].time = c[0].time + 14 * 24 * 3600;
        let t = c[2015].time + 600;
        assert_eq!(next_work_required(&c, t, &TESTNET3), TESTNET3.pow_limit_bits);
        assert_eq!(next_work_required(&c, t, &TESTNET4), bits);
    }
}
