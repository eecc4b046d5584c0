# SPDX-License-Identifier: MIT OR Apache-2.0
"""SHA-256, double SHA-256, BIP340 tagged hashes and Core's merkle root (hashlib-based)."""

import hashlib

from ._rust import mirrors

__all__ = ["sha256", "sha256d", "tagged_hash", "merkle_root", "HashAccumulator"]


@mirrors("hash.sha256")
def sha256(data):
    """SHA-256 of bytes."""
    return hashlib.sha256(bytes(data)).digest()


@mirrors("hash.sha256d")
def sha256d(data):
    """SHA-256(SHA-256(data)), Core's Hash()/hash256."""
    return hashlib.sha256(hashlib.sha256(bytes(data)).digest()).digest()


@mirrors("hash.tagged")
def tagged_hash(tag, data):
    """BIP340 tagged hash: SHA256(SHA256(tag) || SHA256(tag) || data). ``tag`` is str or bytes."""
    t = tag.encode() if isinstance(tag, str) else bytes(tag)
    th = hashlib.sha256(t).digest()
    return hashlib.sha256(th + th + bytes(data)).digest()


@mirrors("hash.merkle_root")
def merkle_root(leaves):
    """Core's ComputeMerkleRoot: returns (root, mutated).

    Leaves are 32-byte hashes in internal byte order. At each level, before the
    odd-length duplication, ``mutated`` is set if any pair (2i, 2i+1) is equal
    (CVE-2012-2459 detection). An odd level duplicates its last hash. An empty
    list gives 32 zero bytes.
    """
    level = [bytes(h) for h in leaves]
    mutated = False
    if not level:
        return bytes(32), False
    while len(level) > 1:
        for i in range(0, len(level) - 1, 2):
            if level[i] == level[i + 1]:
                mutated = True
        if len(level) % 2:
            level.append(level[-1])
        level = [sha256d(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0], mutated


class HashAccumulator:
    """SHA-256 over a stream of outputs, each framed as u32le(len) || bytes.

    Rust tests reproduce the same stream and compare one 32-byte digest.
    """

    def __init__(self):
        self._h = hashlib.sha256()
        self.count = 0

    def push(self, data):
        data = bytes(data)
        self._h.update(len(data).to_bytes(4, "little") + data)
        self.count += 1

    def digest(self):
        return self._h.copy().digest()
