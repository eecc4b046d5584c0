// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP341/342 constants and hashes: control blocks, tapleaf/tapbranch/taptweak hashes, the
//! tapscript validation-weight budget and `OP_SUCCESSx` (script/interpreter.cpp,
//! script/script.cpp).

use crate::encode::{compact_size_len, var_bytes_len};
use crate::hash::tags;

/// BIP342 validation weight charged per executed (non-empty) signature check.
pub const VALIDATION_WEIGHT_PER_SIGOP_PASSED: i64 = 50;
/// BIP342 validation weight budget on top of the serialized witness size.
pub const VALIDATION_WEIGHT_OFFSET: i64 = 50;
/// Control block: leaf version/parity byte and the 32-byte internal key.
pub const TAPROOT_CONTROL_BASE_SIZE: usize = 33;
/// Control block: size of one merkle path node.
pub const TAPROOT_CONTROL_NODE_SIZE: usize = 32;
/// Control block: most merkle path nodes (tree depth).
pub const TAPROOT_CONTROL_MAX_NODE_COUNT: usize = 128;
/// Largest control block.
pub const TAPROOT_CONTROL_MAX_SIZE: usize =
    TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * TAPROOT_CONTROL_MAX_NODE_COUNT;
/// The leaf-version bits of a control block's first byte (the low bit is the output key's
/// parity).
pub const TAPROOT_LEAF_MASK: u8 = 0xfe;
/// The tapscript leaf version (BIP342).
pub const TAPROOT_LEAF_TAPSCRIPT: u8 = 0xc0;
/// First byte of a taproot annex (the last witness item, when there are at least two).
pub const ANNEX_TAG: u8 = 0x50;

/// Whether an opcode is one of BIP342's OP_SUCCESSx.
pub fn is_op_success(op: u8) -> bool {
    op == 80
        || op == 98
        || (126..=129).contains(&op)
        || (131..=134).contains(&op)
        || (137..=138).contains(&op)
        || (141..=142).contains(&op)
        || (149..=153).contains(&op)
        || (187..=254).contains(&op)
}

/// BIP341 tapleaf hash: `hash_TapLeaf(leaf_version || compact_size(len) || script)`.
pub fn tapleaf_hash(leaf_version: u8, script: &[u8]) -> [u8; 32] {
    let mut e = tags::tap_leaf().engine();
    e.update(&[leaf_version]);
    crate::encode::write_var_bytes(&mut e, script);
    e.finalize()
}

/// `hash_TapBranch(min(a,b) || max(a,b))`.
pub fn tapbranch_hash(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut e = tags::tap_branch().engine();
    e.update(lo);
    e.update(hi);
    e.finalize()
}

/// The merkle root a control block proves for a leaf (BIP341 `ComputeTaprootMerkleRoot`).
pub fn taproot_merkle_root(control: &[u8], leaf_hash: [u8; 32]) -> [u8; 32] {
    let mut k = leaf_hash;
    for node in control[TAPROOT_CONTROL_BASE_SIZE..].chunks_exact(TAPROOT_CONTROL_NODE_SIZE) {
        let node: &[u8; 32] = node.try_into().expect("32 bytes");
        k = tapbranch_hash(&k, node);
    }
    k
}

/// `hash_TapTweak(internal || merkle_root)` (merkle root omitted for key-only outputs).
pub fn taptweak_hash(internal: &[u8; 32], merkle_root: Option<&[u8; 32]>) -> [u8; 32] {
    let mut e = tags::tap_tweak().engine();
    e.update(internal);
    if let Some(r) = merkle_root {
        e.update(r);
    }
    e.finalize()
}

/// Serialized size of a witness stack (CompactSize count + each item with its length).
pub(super) fn witness_serialized_size(w: &[Vec<u8>]) -> usize {
    compact_size_len(w.len() as u64) + w.iter().map(|i| var_bytes_len(i)).sum::<usize>()
}
