// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bitcoin's merkle root.
//!
//! Level by level, adjacent pairs `(h[2i], h[2i+1])` become `SHA256d(h[2i] || h[2i+1])`;
//! a level of odd length first duplicates its last node. The root of no leaves is all zeros,
//! of one leaf the leaf itself.
//!
//! Because of the duplication, the lists `[a, b, c]` and `[a, b, c, c]` have the same root
//! (CVE-2012-2459). Bitcoin Core's `ComputeMerkleRoot` therefore reports a tree as *mutated*
//! when, on any level, a pair about to be hashed consists of two equal nodes (checked before
//! the odd duplicate is appended, so the duplicate itself never counts). A block whose tree is
//! mutated is invalid even if its root matches. The same rule is applied here.

use super::sha256d64::sha256d64_many;
use crate::Backend;

/// A merkle root and Core's "mutated" flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MerkleRoot {
    /// The root, in internal byte order (as it appears in a block header).
    pub root: [u8; 32],
    /// Whether some level contained an equal adjacent pair (CVE-2012-2459).
    pub mutated: bool,
}

/// The merkle root of `leaves` (internal byte order) with the detected backend's kernel.
pub fn merkle_root(leaves: &[[u8; 32]]) -> MerkleRoot {
    merkle_root_with(Backend::detect(), leaves)
}

/// The merkle root of `leaves` with an explicit backend for the `sha256d64` kernel.
pub fn merkle_root_with(backend: Backend, leaves: &[[u8; 32]]) -> MerkleRoot {
    match leaves {
        [] => return MerkleRoot { root: [0; 32], mutated: false },
        [only] => return MerkleRoot { root: *only, mutated: false },
        _ => {}
    }
    let mut mutated = false;
    // Two buffers reused for every level: `cur` holds an even number of nodes before hashing.
    let mut cur: Vec<[u8; 32]> = Vec::with_capacity(leaves.len() + 1);
    cur.extend_from_slice(leaves);
    let mut next: Vec<[u8; 32]> = Vec::with_capacity(leaves.len().div_ceil(2));
    while cur.len() > 1 {
        for pair in cur.chunks_exact(2) {
            mutated |= pair[0] == pair[1];
        }
        if cur.len() % 2 == 1 {
            let last = cur[cur.len() - 1];
            cur.push(last);
        }
        let (pairs, rest) = cur.as_flattened().as_chunks::<64>();
        debug_assert!(rest.is_empty());
        next.clear();
        next.resize(pairs.len(), [0; 32]);
        sha256d64_many(backend, pairs, &mut next);
        core::mem::swap(&mut cur, &mut next);
    }
    MerkleRoot { root: cur[0], mutated }
}

/// The witness merkle root (BIP141): the merkle root of the wtxids with the coinbase's wtxid
/// replaced by 32 zero bytes. `wtxids[0]` is ignored and may be anything.
pub fn witness_merkle_root(wtxids: &[[u8; 32]]) -> MerkleRoot {
    if wtxids.is_empty() {
        return merkle_root(wtxids);
    }
    let mut leaves = wtxids.to_vec();
    leaves[0] = [0; 32];
    merkle_root(&leaves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::sha256d;

    /// The definition, written plainly and recursively (without the mutation check).
    fn reference_root(level: &[[u8; 32]]) -> [u8; 32] {
        if level.is_empty() {
            return [0; 32];
        }
        if level.len() == 1 {
            return level[0];
        }
        let mut next = Vec::new();
        for i in (0..level.len()).step_by(2) {
            let l = level[i];
            let r = if i + 1 < level.len() { level[i + 1] } else { level[i] };
            let mut buf = [0u8; 64];
            buf[..32].copy_from_slice(&l);
            buf[32..].copy_from_slice(&r);
            next.push(sha256d(&buf));
        }
        reference_root(&next)
    }

    fn leaves(n: usize) -> Vec<[u8; 32]> {
        (0..n as u32).map(|i| sha256d(&i.to_le_bytes())).collect()
    }

    #[test]
    fn merkle_vs_reference_all_sizes_and_backends() {
        for n in 0..70 {
            let l = leaves(n);
            let want = reference_root(&l);
            for b in Backend::available() {
                let got = merkle_root_with(b, &l);
                assert_eq!(got.root, want, "n={n} {b}");
                assert!(!got.mutated, "n={n}");
            }
        }
    }

    #[test]
    fn mutated_on_duplicated_pair_and_same_root() {
        // [a, b, c] and [a, b, c, c] share a root; only the latter is mutated.
        let l = leaves(3);
        let mut dup = l.clone();
        dup.push(l[2]);
        let a = merkle_root(&l);
        let b = merkle_root(&dup);
        assert_eq!(a.root, b.root);
        assert!(!a.mutated);
        assert!(b.mutated);
        // Deeper: six leaves, the last two duplicated by the attacker at level 0.
        let l6 = leaves(5);
        let mut d6 = l6.clone();
        d6.push(l6[4]);
        assert_eq!(merkle_root(&l6).root, merkle_root(&d6).root);
        assert!(merkle_root(&d6).mutated && !merkle_root(&l6).mutated);
        // A duplicated pair on a higher level (two equal subtrees) is also flagged.
        let mut l4 = leaves(2);
        l4.extend(leaves(2));
        assert!(merkle_root(&l4).mutated);
    }

    #[test]
    fn witness_root_zeroes_coinbase() {
        let l = leaves(4);
        let mut z = l.clone();
        z[0] = [0; 32];
        assert_eq!(witness_merkle_root(&l).root, reference_root(&z));
        assert_eq!(witness_merkle_root(&[]).root, [0; 32]);
    }
}
