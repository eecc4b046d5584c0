# SPDX-License-Identifier: MIT OR Apache-2.0
"""MuHash3072 exactly as Bitcoin Core (src/crypto/muhash.{h,cpp}), with a pure-Python ChaCha20.

Element of data D: key = SHA256(D); 384 bytes of ChaCha20 keystream (RFC 8439
block function, nonce 0, block counters 0..5) read as a little-endian 3072-bit
integer. The state is a fraction numerator/denominator modulo
M = 2^3072 - 1103717. Insert multiplies the numerator, Remove the denominator;
Finalize computes numerator * denominator^-1 mod M and returns
SHA256(its 384-byte little-endian encoding). Serialization is
numerator(384 LE) || denominator(384 LE), values not necessarily reduced.
"""

import hashlib

from ._rust import mirrors

MODULUS = 2**3072 - 1103717
_M32 = 0xFFFFFFFF

__all__ = ["MODULUS", "chacha20_block", "chacha20_keystream", "to_num3072", "MuHash3072"]


def _rotl(v, c):
    return ((v << c) & _M32) | (v >> (32 - c))


def _quarter(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & _M32
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & _M32
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & _M32
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & _M32
    s[b] = _rotl(s[b] ^ s[c], 7)


@mirrors("muhash.chacha20")
def chacha20_block(key, counter, nonce=bytes(12)):
    """RFC 8439 section 2.3: one 64-byte block for a 32-byte key, 32-bit counter, 12-byte nonce."""
    if len(key) != 32 or len(nonce) != 12:
        raise ValueError("bad key or nonce length")
    words = lambda b: [int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b), 4)]  # noqa: E731
    init = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + words(key) + [counter & _M32] + words(nonce)
    s = list(init)
    for _ in range(10):
        _quarter(s, 0, 4, 8, 12)
        _quarter(s, 1, 5, 9, 13)
        _quarter(s, 2, 6, 10, 14)
        _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15)
        _quarter(s, 1, 6, 11, 12)
        _quarter(s, 2, 7, 8, 13)
        _quarter(s, 3, 4, 9, 14)
    return b"".join(((a + b) & _M32).to_bytes(4, "little") for a, b in zip(s, init))


def chacha20_keystream(key, length, counter=0, nonce=bytes(12)):
    out = b""
    while len(out) < length:
        out += chacha20_block(key, counter, nonce)
        counter += 1
    return out[:length]


def to_num3072(data):
    """Core's MuHash3072::ToNum3072: ChaCha20(SHA256(data)) keystream, 384 bytes LE."""
    key = hashlib.sha256(bytes(data)).digest()
    return int.from_bytes(chacha20_keystream(key, 384), "little")


@mirrors("muhash")
class MuHash3072:
    """Core's MuHash3072 (numerator/denominator form)."""

    def __init__(self, data=None):
        self.numerator = 1 if data is None else to_num3072(data)
        self.denominator = 1

    def insert(self, data):
        self.numerator = self.numerator * to_num3072(data) % MODULUS
        return self

    def remove(self, data):
        self.denominator = self.denominator * to_num3072(data) % MODULUS
        return self

    def __imul__(self, other):
        """Core's operator*=: combine two sets."""
        self.numerator = self.numerator * other.numerator % MODULUS
        self.denominator = self.denominator * other.denominator % MODULUS
        return self

    def __itruediv__(self, other):
        """Core's operator/=: numerator *= other.denominator, denominator *= other.numerator."""
        self.numerator = self.numerator * other.denominator % MODULUS
        self.denominator = self.denominator * other.numerator % MODULUS
        return self

    def finalize(self):
        """SHA256 of (numerator / denominator mod M) as 384 little-endian bytes.

        Like Core, this also collapses the state to numerator = value, denominator = 1.
        """
        val = self.numerator % MODULUS * pow(self.denominator % MODULUS, -1, MODULUS) % MODULUS
        self.numerator, self.denominator = val, 1
        return hashlib.sha256(val.to_bytes(384, "little")).digest()

    def serialize(self):
        return self.numerator.to_bytes(384, "little") + self.denominator.to_bytes(384, "little")

    @classmethod
    def deserialize(cls, data):
        if len(data) != 768:
            raise ValueError("MuHash3072 serialization is 768 bytes")
        m = cls()
        m.numerator = int.from_bytes(data[:384], "little")
        m.denominator = int.from_bytes(data[384:], "little")
        return m
