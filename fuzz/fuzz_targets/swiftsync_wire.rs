// SPDX-License-Identifier: MIT OR Apache-2.0
//! What SwiftSync's processes send each other (fullverify-driver's `swiftsync`), decoded from
//! arbitrary bytes: a range's result (`RangeResult`, from a worker to the client), a bundle of
//! blocks with their candidate undo records (`Bundle`, from the client to a worker that does
//! not see the blocks directory) and the plan (`SwiftPlan`, to every worker).
//!
//! Layout: byte 0 picks the format (0: result, 1: bundle, 2: plan, 3: a result built from the
//! rest of the input); the rest is the message.
//!
//! Properties:
//! - a decoder returns an error or a value, never panics, on any bytes;
//! - what decodes is the canonical encoding: encoding the value again gives the input bytes
//!   (a plan: up to the network's name, so its encoding is a fixed point);
//! - a result built from arbitrary fields encodes and decodes back to those fields.
#![no_main]

use fullverify::swiftsync::Salt;
use fullverify::validation::BlockError;
use fullverify_driver::swiftsync::{Bundle, RangeCounts, RangeResult, SetPart, SwiftPlan};
use fuzz_support::Cut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, msg)) = data.split_first() else { return };
    let salt = Salt::from_bytes([7; 32]);
    match pick % 4 {
        0 => {
            if let Ok(r) = RangeResult::from_bytes(msg, &salt) {
                assert_eq!(r.to_bytes(), msg, "a result that is not its own encoding");
            }
        }
        1 => {
            if let Ok(b) = Bundle::from_bytes(msg) {
                let again = b.to_bytes();
                assert_eq!(again, msg, "a bundle that is not its own encoding");
                assert_eq!(Bundle::from_bytes(&again).expect("its own encoding decodes"), b);
            }
        }
        2 => {
            // A plan may name its network by any name the network parses from ("bitcoin" for
            // mainnet); its encoding uses the canonical one, so it is a fixed point instead.
            if let Ok(p) = SwiftPlan::from_bytes(msg, None) {
                let once = p.to_bytes();
                let again = SwiftPlan::from_bytes(&once, None).expect("its own encoding decodes");
                assert_eq!(again.to_bytes(), once, "a plan's encoding is not a fixed point");
                assert_eq!(again.chain.blocks.len(), p.chain.blocks.len());
            }
        }
        _ => built_result(msg, &salt),
    }
});

fn built_result(b: &[u8], salt: &Salt) {
    let mut c = Cut::new(b);
    let first = u32::from_le_bytes(c.array());
    let last = u32::from_le_bytes(c.array());
    let flags = c.byte();
    let count = u64::from_le_bytes(c.array());
    let total = i64::from_le_bytes(c.array());
    let hash: [u8; 32] = c.array();
    let n = usize::from(c.byte());
    let bip30: Vec<(u64, u32, u32)> = (0..n)
        .map(|_| {
            (u64::from_le_bytes(c.array()), u32::from_le_bytes(c.array()), u32::from_le_bytes(c.array()))
        })
        .collect();
    let text = String::from_utf8_lossy(&c.array::<24>()).into_owned();
    let mut aggregate = fullverify::swiftsync::Aggregate::new(salt.clone());
    aggregate.add_hash(&hash);
    let invalid = (flags & 1 == 1).then(|| BlockError {
        reason: text.clone(),
        hash,
        height: first,
        tx: (flags & 2 == 2).then_some((last as usize, hash)),
        input: (flags & 4 == 4).then_some(count as u32 as usize),
    });
    let r = RangeResult {
        counts: RangeCounts {
            heights: (first, last),
            blocks: count,
            txs: count.rotate_left(7),
            inputs: total as u64,
            bytes_read: u64::from(first),
            undo_bytes: u64::from(last),
            wall: std::time::Duration::from_nanos(count ^ 0x5555),
        },
        aggregate,
        set: SetPart { count, total, muhash: fullverify::muhash::MuHash3072::new() },
        bip30,
        invalid,
        mismatch: None,
        source: (flags & 8 == 8).then(|| text.clone()),
    };
    let bytes = r.to_bytes();
    let back = RangeResult::from_bytes(&bytes, salt).expect("a result's own encoding decodes");
    assert_eq!(back.counts, r.counts);
    assert_eq!(back.aggregate.value(), r.aggregate.value());
    assert_eq!((back.set.count, back.set.total), (r.set.count, r.set.total));
    assert_eq!(back.set.muhash.serialize(), r.set.muhash.serialize());
    assert_eq!(back.bip30, r.bip30);
    assert_eq!(back.invalid, r.invalid);
    assert_eq!(back.source, r.source);
    assert_eq!(back.to_bytes(), bytes);
}
