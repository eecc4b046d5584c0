// SPDX-License-Identifier: MIT OR Apache-2.0
//! The header pass: every header of the chain, in order, through Core's header rules
//! (`CheckBlockHeader`: proof of work; `ContextualCheckBlockHeader`: the expected `nBits`
//! including retargets, the median-time-past floor, the two-hour future limit, versions), so
//! that every block then knows its height, its script flags, whether BIP30 applies to it and
//! the median times past that lock times and BIP68 are checked against.

use fullverify::chain::{median_time_past, ChainParams, HeaderEntry, BIP34_IMPLIES_BIP30_LIMIT};
use fullverify::encode::{BlockHeader, Reader};
use fullverify::validation::{check_block_header, contextual_check_block_header, BlockError};

/// The checked header chain (`entries[h]` = the block at height h).
pub struct HeaderChain {
    /// Hash, time and bits of every header.
    pub entries: Vec<HeaderEntry>,
    params: &'static ChainParams,
}

impl HeaderChain {
    /// Checks `headers` (80-byte headers from genesis, each the parent of the next) with
    /// `params` at the adjusted time `now`; the first header that breaks a rule is the error,
    /// with Core's reason.
    pub fn check(
        headers: impl IntoIterator<Item = [u8; 80]>,
        params: &'static ChainParams,
        now: i64,
    ) -> Result<HeaderChain, Box<BlockError>> {
        let mut entries: Vec<HeaderEntry> = Vec::new();
        for raw in headers {
            let height = entries.len() as u32;
            let hash = fullverify::hash::sha256d(&raw);
            let invalid =
                |r: &str| Box::new(BlockError { reason: r.into(), hash, height, tx: None, input: None });
            let header = BlockHeader::decode(&mut Reader::new(&raw))
                .map_err(|e| invalid(&format!("bad-header ({e})")))?;
            if height == 0 {
                if hash != params.genesis_hash {
                    return Err(invalid("bad-genesis"));
                }
            } else {
                if header.prev_block != entries[height as usize - 1].hash {
                    return Err(invalid("prev-blk-not-found"));
                }
                check_block_header(&header, &hash, params).map_err(invalid)?;
                contextual_check_block_header(&header, &entries, params, now).map_err(|r| invalid(&r))?;
            }
            entries.push(HeaderEntry::of(&header));
        }
        Ok(HeaderChain { entries, params })
    }

    /// Headers checked elsewhere (a plan read back): `entries[h]` the block at height h.
    pub fn trusted(entries: Vec<HeaderEntry>, params: &'static ChainParams) -> HeaderChain {
        HeaderChain { entries, params }
    }

    /// Median time past of the block at `height` (of its eleven last blocks).
    pub fn mtp(&self, height: u32) -> i64 {
        median_time_past(&self.entries, height)
    }

    /// Height of the tip.
    pub fn tip_height(&self) -> u32 {
        self.entries.len() as u32 - 1
    }

    /// Whether BIP30 applies to the block at `height` (Core's `fEnforceBIP30`, with the skip
    /// for blocks after BIP34's activation block when it is the network's `BIP34Hash`, until
    /// the height where BIP34 no longer implies BIP30).
    pub fn enforces_bip30(&self, height: u32) -> bool {
        let p = self.params;
        let hash = &self.entries[height as usize].hash;
        let mut enforce = !p.is_bip30_repeat(height, hash);
        if enforce
            && height > p.bip34_height
            && self.entries.get(p.bip34_height as usize).is_some_and(|e| e.hash == p.bip34_hash)
        {
            enforce = false;
        }
        enforce || height >= BIP34_IMPLIES_BIP30_LIMIT
    }
}
