// SPDX-License-Identifier: MIT OR Apache-2.0
//! One chain in order from an ordered source (framed, hex, corpus): each block must extend the
//! one before it. What Core's importer passes over without harm is skipped and noted: a second
//! copy of a block, and a block on a fork whose work does not exceed the chain read before it
//! (Core stores such a block and keeps its active chain). A block whose parent was not read
//! before it, or a fork that gains more work than the chain (which Core would switch to), is
//! refused with its file and offset: an ordered source cannot be reordered or reorganized.
//!
//! Only the last [`WINDOW`] blocks are remembered: a copy of, or a fork from, an older block is
//! refused as a block whose parent is unknown.

use super::{display_hash, header_work, Notes, RawBlock, Source, SourceError};
use std::collections::{HashMap, VecDeque};

/// How many of the blocks read last a later block may repeat or fork from.
pub const WINDOW: usize = 10_000;

type Blocks = Box<dyn Iterator<Item = Result<RawBlock, SourceError>> + Send>;

/// `blocks` (of a source of `kind`) as one chain in order, with its notes.
pub(super) fn in_order(kind: &'static str, name: String, total: Option<u64>, blocks: Blocks) -> Source {
    let notes = Notes::default();
    let filter = InOrder {
        blocks,
        kind,
        work: HashMap::new(),
        order: VecDeque::new(),
        tip: None,
        notes: notes.clone(),
        failed: false,
    };
    Source { kind, name, total, notes, blocks: Box::new(filter) }
}

struct InOrder {
    blocks: Blocks,
    kind: &'static str,
    /// Chain work up to each remembered block, counted from the source's first block.
    work: HashMap<[u8; 32], u128>,
    /// The remembered blocks, oldest first.
    order: VecDeque<[u8; 32]>,
    /// The last block passed on and its chain work.
    tip: Option<([u8; 32], u128)>,
    notes: Notes,
    failed: bool,
}

impl InOrder {
    fn remember(&mut self, hash: [u8; 32], work: u128) {
        self.work.insert(hash, work);
        self.order.push_back(hash);
        if self.order.len() > WINDOW {
            if let Some(old) = self.order.pop_front() {
                self.work.remove(&old);
            }
        }
    }

    fn refuse(&mut self, b: RawBlock, what: String) -> Option<Result<RawBlock, SourceError>> {
        self.failed = true;
        Some(Err(SourceError::Corrupt { at: b.origin, what }))
    }

    fn read_before(&self) -> String {
        if self.order.len() < WINDOW {
            "the blocks read before it".into()
        } else {
            format!("the last {WINDOW} blocks read")
        }
    }
}

impl Iterator for InOrder {
    type Item = Result<RawBlock, SourceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.failed {
                return None;
            }
            let b = match self.blocks.next()? {
                Ok(b) => b,
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            };
            let (hash, prev) = (b.hash(), b.prev_hash());
            let bits = b.bytes.get(72..76).map_or(0, |x| u32::from_le_bytes(x.try_into().expect("4 bytes")));
            let own = header_work(bits);
            if self.work.contains_key(&hash) {
                self.notes.push(format!(
                    "{}: a second copy of block {}; skipped, as Core skips a block it already has",
                    b.origin,
                    display_hash(&hash)
                ));
                continue;
            }
            let total = match self.tip {
                None => own,
                Some((tip, work)) if prev == tip => work.saturating_add(own),
                Some((_, tip_work)) => match self.work.get(&prev) {
                    Some(&w) if w.saturating_add(own) <= tip_work => {
                        self.remember(hash, w.saturating_add(own));
                        self.notes.push(format!(
                            "{}: block {} is on a fork from block {} with no more work than the chain \
                             read before it; skipped, as Core keeps such a block off its active chain",
                            b.origin,
                            display_hash(&hash),
                            display_hash(&prev)
                        ));
                        continue;
                    }
                    Some(_) => {
                        let what = format!(
                            "block {} takes a fork from block {} past the work of the chain read before \
                             it; a {} source must hold one chain in order (--source core-blocks \
                             replays the most-work chain of a blocks directory)",
                            display_hash(&hash),
                            display_hash(&prev),
                            self.kind
                        );
                        return self.refuse(b, what);
                    }
                    None => {
                        let what = format!(
                            "block {}: its parent {} is not among {}; a {} source must hold one chain \
                             in order (--source core-blocks rebuilds the order from the headers)",
                            display_hash(&hash),
                            display_hash(&prev),
                            self.read_before(),
                            self.kind
                        );
                        return self.refuse(b, what);
                    }
                },
            };
            self.remember(hash, total);
            self.tip = Some((hash, total));
            return Some(Ok(b));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Origin;
    use super::*;

    /// A fake block: a header with `prev`, nBits `bits` and `tag` in its nonce.
    fn block(prev: [u8; 32], bits: u32, tag: u32, at: u64) -> RawBlock {
        let mut bytes = vec![0u8; 81];
        bytes[4..36].copy_from_slice(&prev);
        bytes[72..76].copy_from_slice(&bits.to_le_bytes());
        bytes[76..80].copy_from_slice(&tag.to_le_bytes());
        RawBlock { bytes, origin: Origin { file: "f".into(), offset: at, decompressed: false } }
    }

    fn run(blocks: Vec<RawBlock>) -> (Vec<u64>, Option<String>, Vec<String>) {
        let src = in_order("framed", "f".into(), None, Box::new(blocks.into_iter().map(Ok)));
        let notes = src.notes.clone();
        let (mut ok, mut err) = (Vec::new(), None);
        for r in src {
            match r {
                Ok(b) => ok.push(b.origin.offset),
                Err(e) => err = Some(e.to_string()),
            }
        }
        (ok, err, notes.lines())
    }

    #[test]
    fn copies_and_lighter_forks_are_skipped_others_refused() {
        const EASY: u32 = 0x207f_ffff;
        let a = block([0; 32], EASY, 0, 0);
        let b = block(a.hash(), EASY, 1, 100);
        let c = block(b.hash(), EASY, 2, 200);
        // b' forks from a with the same work as b: skipped; c' on b' outweighs c: refused.
        let b2 = block(a.hash(), EASY, 9, 300);
        let c2 = block(b2.hash(), EASY, 9, 400);
        let d2 = block(c2.hash(), EASY, 9, 500);
        let (ok, err, notes) = run(vec![a.clone(), b.clone(), b.clone(), c.clone(), b2.clone(), c2.clone()]);
        assert_eq!((ok, err), (vec![0, 100, 200], None));
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("f at byte 100: a second copy of block "), "{notes:?}");
        assert!(notes[1].starts_with("f at byte 300: block ") && notes[1].contains("on a fork"), "{notes:?}");
        assert!(notes[2].starts_with("f at byte 400: block ") && notes[2].contains("on a fork"), "{notes:?}");
        let (ok, err, _) = run(vec![a.clone(), b.clone(), c.clone(), b2, c2, d2]);
        assert_eq!(ok, vec![0, 100, 200]);
        let err = err.unwrap();
        assert!(
            err.starts_with("f at byte 500: block ") && err.contains("past the work of the chain"),
            "{err}"
        );
        // A block whose parent was not read: refused.
        let orphan = block([7; 32], EASY, 3, 600);
        let (ok, err, _) = run(vec![a, b, orphan, c]);
        assert_eq!(ok, vec![0, 100]);
        let err = err.unwrap();
        assert!(
            err.starts_with("f at byte 600: block ")
                && err.contains("is not among the blocks read before it")
        );
    }
}
