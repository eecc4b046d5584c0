// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two SHA-256 streams absorbed together: their blocks compressed in pairs by the two-way
//! SHA-NI kernel, whose interleaved rounds keep the unit busy where one chain of compressions
//! waits on each round's result.

use super::sha256::{compress_blocks, Sha256};
use super::sha256d64::compress_two;

/// Absorbs the slices `a_parts` into `a` and `b_parts` into `b`, as [`Sha256::update`] of
/// each slice in turn would, compressing a block of each stream together (the two-way
/// SHA-NI kernel) while both have one; the rest one stream at a time.
pub(crate) fn update_two(a: &mut Sha256, a_parts: &[&[u8]], b: &mut Sha256, b_parts: &[&[u8]]) {
    let (mut fa, mut fb) = (Feed { parts: a_parts, at: 0 }, Feed { parts: b_parts, at: 0 });
    while fa.fill(a) && fb.fill(b) {
        let (ba, bb) = (a.buf, b.buf);
        if !compress_two(&mut a.state, &ba, &mut b.state, &bb) {
            compress_blocks(&mut a.state, core::slice::from_ref(&ba));
            compress_blocks(&mut b.state, core::slice::from_ref(&bb));
        }
        a.buf_len = 0;
        b.buf_len = 0;
    }
    fa.rest(a);
    fb.rest(b);
}

/// What is left of a list of slices for [`update_two`]: `parts[0][at..]`, then the
/// rest of `parts`.
struct Feed<'p> {
    parts: &'p [&'p [u8]],
    at: usize,
}

impl Feed<'_> {
    /// Fills `e`'s block buffer from the slices: whether it is full (to be compressed).
    fn fill(&mut self, e: &mut Sha256) -> bool {
        while e.buf_len < 64 {
            let Some((first, rest)) = self.parts.split_first() else { return false };
            let take = (64 - e.buf_len).min(first.len() - self.at);
            e.buf[e.buf_len..e.buf_len + take].copy_from_slice(&first[self.at..self.at + take]);
            e.buf_len += take;
            e.total = e.total.wrapping_add(take as u64);
            self.at += take;
            if self.at == first.len() {
                (self.parts, self.at) = (rest, 0);
            }
        }
        true
    }

    /// Absorbs what is left into `e`, whose buffer may be full.
    fn rest(self, e: &mut Sha256) {
        if e.buf_len == 64 {
            let block = e.buf;
            compress_blocks(&mut e.state, core::slice::from_ref(&block));
            e.buf_len = 0;
        }
        if let Some((first, rest)) = self.parts.split_first() {
            e.update(&first[self.at..]);
            for p in rest {
                e.update(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two streams absorbed together equal each absorbed alone: engines mid-block or on a
    /// boundary, slices of every length 0–200 cut at random, streams of unequal lengths, on
    /// the two-way kernel where the CPU has SHA-NI.
    #[test]
    fn update_two_equals_update_of_each() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let data: Vec<u8> = (0..4096).map(|_| next() as u8).collect();
        for round in 0..400 {
            let mut engines = [Sha256::new(), Sha256::new()];
            let mut cuts: [Vec<&[u8]>; 2] = [Vec::new(), Vec::new()];
            for (k, e) in engines.iter_mut().enumerate() {
                // A start that leaves 0..63 bytes in the buffer, then 0..6 slices.
                let lead = (next() % 200) as usize;
                e.update(&data[1000 * k..1000 * k + lead]);
                let mut at = 2000 + 900 * k;
                for _ in 0..next() % 7 {
                    let len = if round % 5 == 0 { 0 } else { (next() % 200) as usize };
                    cuts[k].push(&data[at..at + len]);
                    at += len;
                }
            }
            let want: Vec<[u8; 32]> = engines
                .iter()
                .zip(&cuts)
                .map(|(e, parts)| parts.iter().fold(e.clone(), |e, p| e.chain(p)).finalize())
                .collect();
            let [mut a, mut b] = engines;
            update_two(&mut a, &cuts[0], &mut b, &cuts[1]);
            assert_eq!([a.finalize(), b.finalize()], [want[0], want[1]], "round {round}");
        }
    }
}
