# SPDX-License-Identifier: MIT OR Apache-2.0
"""Scalars modulo the group order n of secp256k1, on plain Python ints."""

from ._rust import mirrors

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

# add/neg/mul/inv are field.py's with n for p, written out so that each module reads alone.

__all__ = ["N", "add", "neg", "mul", "inv", "from_bytes", "to_bytes", "is_high", "to_signed"]


@mirrors("scalar.add")
def add(a, b):
    """a + b mod n."""
    return (a + b) % N


@mirrors("scalar.neg")
def neg(a):
    """-a mod n."""
    return (-a) % N


@mirrors("scalar.mul")
def mul(a, b):
    """a * b mod n."""
    return (a * b) % N


@mirrors("scalar.inv")
def inv(a):
    """a^(n-2) mod n; inv(0) == 0 as in libsecp256k1."""
    return pow(a % N, N - 2, N)


@mirrors("scalar.from_bytes")
def from_bytes(b32):
    """Big-endian 32 bytes -> (value mod n, overflow) like ``secp256k1_scalar_set_b32``."""
    if len(b32) != 32:
        raise ValueError("scalar encoding must be 32 bytes")
    v = int.from_bytes(b32, "big")
    return v % N, v >= N


def to_bytes(a):
    """Canonical big-endian 32-byte encoding of a mod n."""
    return (a % N).to_bytes(32, "big")


def is_high(a):
    """True iff a > n/2 (the 'high-S' half)."""
    return (a % N) > N // 2


def to_signed(a):
    """Signed representative in (-n/2, n/2]."""
    a %= N
    return a - N if a > N // 2 else a
