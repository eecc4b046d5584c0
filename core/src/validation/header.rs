// SPDX-License-Identifier: MIT OR Apache-2.0
//! Header rules: Core's `CheckBlockHeader` (the proof of work) and `ContextualCheckBlockHeader`
//! (`src/validation.cpp`: expected `nBits`, median time past, BIP94 timewarp, future limit, version).

use crate::chain::{self, ChainParams, HeaderEntry, MAX_FUTURE_BLOCK_TIME, MAX_TIMEWARP};
use crate::encode::BlockHeader;

/// `CheckBlockHeader`: the header's hash meets its own target.
pub fn check_block_header(
    header: &BlockHeader,
    hash: &[u8; 32],
    params: &ChainParams,
) -> Result<(), &'static str> {
    if chain::check_proof_of_work(hash, header.bits, params) {
        Ok(())
    } else {
        Err("high-hash")
    }
}

/// `ContextualCheckBlockHeader` for a header on top of `chain` (`chain[i]` = block at height i,
/// non-empty); `now` is the adjusted clock in seconds.
pub fn contextual_check_block_header(
    header: &BlockHeader,
    chain: &[HeaderEntry],
    params: &ChainParams,
    now: i64,
) -> Result<(), String> {
    let height = chain.len() as u32;
    if header.bits != chain::next_work_required(chain, header.time, params) {
        return Err("bad-diffbits".into());
    }
    let prev_h = height - 1;
    if header.time as i64 <= chain::median_time_past(chain, prev_h) {
        return Err("time-too-old".into());
    }
    if params.enforce_bip94
        && height.is_multiple_of(params.difficulty_adjustment_interval())
        && (header.time as i64) < chain[prev_h as usize].time as i64 - MAX_TIMEWARP
    {
        return Err("time-timewarp-attack".into());
    }
    if header.time as i64 > now + MAX_FUTURE_BLOCK_TIME {
        return Err("time-too-new".into());
    }
    let v = header.version;
    if (v < 2 && height >= params.bip34_height)
        || (v < 3 && height >= params.bip66_height)
        || (v < 4 && height >= params.bip65_height)
    {
        return Err(format!("bad-version(0x{:08x})", v as u32));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::Network;

    #[test]
    fn bip94_timewarp_rule() {
        let p = &chain::TESTNET4;
        let chain_: Vec<HeaderEntry> = (0..2016u32)
            .map(|i| HeaderEntry { hash: [i as u8; 32], time: 1_700_000_000 + 600 * i, bits: 0x1d00ffff })
            .collect();
        let prev = chain_.last().unwrap().time;
        let mut h = BlockHeader {
            version: 4,
            prev_block: [0; 32],
            merkle_root: [0; 32],
            time: prev - 601,
            bits: 0,
            nonce: 0,
        };
        h.bits = chain::next_work_required(&chain_, h.time, p);
        assert_eq!(
            contextual_check_block_header(&h, &chain_, p, i64::MAX / 2),
            Err("time-timewarp-attack".into())
        );
        h.time = prev - 600;
        h.bits = chain::next_work_required(&chain_, h.time, p);
        assert_eq!(contextual_check_block_header(&h, &chain_, p, i64::MAX / 2), Ok(()));
        // Testnet3 has no timewarp rule.
        let p3 = Network::Testnet3.params();
        h.time = prev - 601;
        h.version = 1;
        h.bits = chain::next_work_required(&chain_, h.time, p3);
        assert_eq!(contextual_check_block_header(&h, &chain_, p3, i64::MAX / 2), Ok(()));
        // Version 3 after BIP65 is rejected with Core's formatting.
        h.version = 3;
        let mut tall = chain_.clone();
        tall.resize(581_885, *chain_.last().unwrap());
        for (i, e) in tall.iter_mut().enumerate().skip(2016) {
            e.time = 1_700_000_000 + 600 * i as u32;
        }
        h.time = tall.last().unwrap().time + 1;
        h.bits = chain::next_work_required(&tall, h.time, p3);
        assert_eq!(
            contextual_check_block_header(&h, &tall, p3, i64::MAX / 2),
            Err("bad-version(0x00000003)".into())
        );
    }
}
