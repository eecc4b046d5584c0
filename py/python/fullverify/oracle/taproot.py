# SPDX-License-Identifier: MIT OR Apache-2.0
"""BIP341 key tweaking, script trees, leaf hashes and control blocks."""

from . import group
from ._rust import mirrors
from .scalar import N
from .sha256 import tagged_hash
from .tx import ser_bytes

__all__ = ["leaf_hash", "branch_hash", "tree_info", "tap_tweak", "tweak_pubkey", "tweak_seckey",
           "control_block"]


@mirrors("taproot.leaf_hash")
def leaf_hash(script, leaf_version=0xC0):
    """hash_TapLeaf(leaf_version || compact_size(script) || script)."""
    return tagged_hash("TapLeaf", bytes([leaf_version]) + ser_bytes(script))


def branch_hash(a, b):
    """hash_TapBranch of the two child hashes in lexicographic order."""
    return tagged_hash("TapBranch", min(a, b) + max(a, b))


def tree_info(tree):
    """Walk a BIP341-vector-style tree (None, leaf dict, or [left, right]).

    Returns (merkle_root or None, [(leaf dict, leaf_hash, merkle path)] in tree order).
    """
    if tree is None:
        return None, []
    if isinstance(tree, dict):
        h = leaf_hash(bytes.fromhex(tree["script"]), tree["leafVersion"])
        return h, [(tree, h, b"")]
    left_h, left = tree_info(tree[0])
    right_h, right = tree_info(tree[1])
    leaves = [(lf, h, path + right_h) for lf, h, path in left]
    leaves += [(lf, h, path + left_h) for lf, h, path in right]
    return branch_hash(left_h, right_h), leaves


def tap_tweak(internal_x, merkle_root=None):
    """t = int(hash_TapTweak(P || merkle_root)), merkle_root omitted for key-only outputs."""
    return tagged_hash("TapTweak", bytes(internal_x) + (merkle_root or b""))


@mirrors("taproot.tweak")
def tweak_pubkey(internal_x, merkle_root=None):
    """Q = lift_x(P) + t*G; returns (Q_x bytes, parity of Q.y). Raises if t >= n or invalid."""
    pt = group.lift_x(int.from_bytes(internal_x, "big"))
    if pt is None:
        raise ValueError("internal key not on curve")
    t = int.from_bytes(tap_tweak(internal_x, merkle_root), "big")
    if t >= N:
        raise ValueError("tweak out of range")
    q = group.affine_add(pt, group.mul_g(t))
    if q is None:
        raise ValueError("tweaked key is infinity")
    return q[0].to_bytes(32, "big"), q[1] & 1


def tweak_seckey(seckey, merkle_root=None):
    """BIP341 taproot_tweak_seckey: negate d if P.y is odd, then add the tweak."""
    d = int.from_bytes(seckey, "big")
    pt = group.mul_g(d)
    if pt[1] & 1:
        d = N - d
    t = int.from_bytes(tap_tweak(pt[0].to_bytes(32, "big"), merkle_root), "big")
    if t >= N:
        raise ValueError("tweak out of range")
    return ((d + t) % N).to_bytes(32, "big")


def control_block(internal_x, leaf_version, parity, path):
    """(leaf_version | parity) || internal key || merkle path."""
    return bytes([leaf_version | parity]) + bytes(internal_x) + path
