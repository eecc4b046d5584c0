# SPDX-License-Identifier: MIT OR Apache-2.0
"""The secp256k1 base field F_p, p = 2^256 - 2^32 - 977, on plain Python ints.

Elements are ints in [0, p). Every function reduces its result, so outputs are
always canonical ("normalized" in libsecp256k1 terms). C = 2^32 + 977 is the
reduction constant (2^256 == C mod p).
"""

from ._rust import mirrors

P = 2**256 - 2**32 - 977
C = 2**32 + 977
assert (2**256) % P == C

__all__ = ["P", "C", "fe", "add", "sub", "neg", "mul", "sqr", "inv", "sqrt", "is_square", "half"]


def fe(x):
    """Reduce an arbitrary int into [0, p)."""
    return x % P


@mirrors("field.add")
def add(a, b):
    """a + b mod p."""
    return (a + b) % P


def sub(a, b):
    """a - b mod p."""
    return (a - b) % P


@mirrors("field.neg")
def neg(a):
    """-a mod p (0 maps to 0)."""
    return (-a) % P


@mirrors("field.mul")
def mul(a, b):
    """a * b mod p."""
    return (a * b) % P


@mirrors("field.sqr")
def sqr(a):
    """a^2 mod p."""
    return (a * a) % P


@mirrors("field.inv")
def inv(a):
    """a^(p-2) mod p (Fermat). By the libsecp256k1 convention inv(0) == 0."""
    return pow(a % P, P - 2, P)


@mirrors("field.sqrt")
def sqrt(a):
    """A square root of a, or None if a is not a square.

    Since p == 3 (mod 4), r = a^((p+1)/4) is a root iff r^2 == a. The root
    returned is exactly that power (libsecp256k1 returns the same value; its
    parity is whatever the exponentiation gives).
    """
    a %= P
    r = pow(a, (P + 1) // 4, P)
    return r if (r * r) % P == a else None


def is_square(a):
    """Euler's criterion (0 counts as a square)."""
    a %= P
    return a == 0 or pow(a, (P - 1) // 2, P) == 1


def half(a):
    """a / 2 mod p."""
    return (a * ((P + 1) // 2)) % P
