# SPDX-License-Identifier: MIT OR Apache-2.0
"""GLV endomorphism, the scalar split k = k1 + lambda*k2 (mod n), and wNAF.

The endomorphism phi(x, y) = (beta*x, y) equals multiplication by lambda, where
lambda^3 == 1 (mod n) and beta^3 == 1 (mod p).

Lattice. L = {(a, b) : a + b*lambda == 0 (mod n)} has the short basis
v1 = (a1, b1), v2 = (a2, b2) with
    a1 = b2 = 0x3086d221a7d46bcde86c90e49284eb15,
    b1 = -0xe4437ed6010e88286f547fa90abfe4c3,
    a2 = 0x114ca50f7a8e2f3f657c1108d9d44cfd8.
For a scalar k we pick the lattice vector c1*v1 + c2*v2 closest to (k, 0):
    c1 = round(b2*k / n),  c2 = round(-b1*k / n)
and return (k1, k2) = (k, 0) - c1*v1 - c2*v2, i.e.
    k2 = -c1*b1 - c2*b2 (mod n),  k1 = k - lambda*k2 (mod n).

Two roundings are provided:
* ``split_lambda_exact``: c1, c2 rounded from the exact rationals
  (round half up: c = floor((2*num + n) / (2*n)));
* ``split_lambda_spec`` / ``split_lambda``: libsecp256k1's variant, which uses
  the precomputed g1 = round(2^384 * b2 / n), g2 = round(2^384 * (-b1) / n) and
  c1 = (k*g1 + 2^383) >> 384, c2 = (k*g2 + 2^383) >> 384 (a 512-bit product
  shifted right by 384 with the bit below the cut added, ``scalar_mul_shift_var``).
  ``split_lambda`` does that with 64-bit limbs as the C/Rust code does and is
  ``spec_checked`` against the big-int formula.
|g/2^384 - b/n| <= 2^-385, so the two roundings differ only when b*k/n lies within
2^-129 of a half-integer; such k exist (``near_half_k``) and both results are then
valid decompositions.

Signed convention: k1, k2 are returned as scalars mod n *and* as signed ints in
(-n/2, n/2] (``k1_signed``, ``k2_signed``); both satisfy |k1|, |k2| < 2^128 and
k1 + lambda*k2 == k (mod n). The Rust code negates a point instead of carrying a
negative scalar: a "negative" k_i is the scalar n - |k_i|, whose bit 255 is set.
"""

from dataclasses import dataclass

from . import group
from ._rust import mirrors
from .field import P
from .scalar import N
from .spec import spec_checked

LAMBDA = 0x5363AD4CC05C30E0A5261C028812645A122E22EA20816678DF02967C1B23BD72
BETA = 0x7AE96A2B657C07106E64479EAC3434E99CF0497512F58995C1396C28719501EE
A1 = 0x3086D221A7D46BCDE86C90E49284EB15
B1 = -0xE4437ED6010E88286F547FA90ABFE4C3
A2 = 0x114CA50F7A8E2F3F657C1108D9D44CFD8
B2 = A1
MINUS_B1 = (-B1) % N
MINUS_B2 = (-B2) % N
G1 = 0x3086D221A7D46BCDE86C90E49284EB153DAA8A1471E8CA7FE893209A45DBB031
G2 = 0xE4437ED6010E88286F547FA90ABFE4C4221208AC9DF506C61571B4AE8AC47F71
SHIFT = 384
assert G1 == (2 * (B2 << SHIFT) + N) // (2 * N)  # g1 = round(2^384 * b2 / n)
assert G2 == (2 * ((-B1) << SHIFT) + N) // (2 * N)  # g2 = round(2^384 * -b1 / n)
assert (A1 + B1 * LAMBDA) % N == 0 and (A2 + B2 * LAMBDA) % N == 0
assert pow(LAMBDA, 3, N) == 1 and pow(BETA, 3, P) == 1

__all__ = [
    "LAMBDA", "BETA", "A1", "B1", "A2", "B2", "G1", "G2", "GlvSplit", "split", "split_lambda",
    "split_lambda_spec", "split_lambda_exact", "check_split", "near_half_k", "endo",
    "wnaf", "wnaf_scalar", "wnaf_value", "ecmult_glv",
]


def _round_div(num, den):
    """round(num/den) for den > 0, halves rounded up."""
    return (2 * num + den) // (2 * den)


def _signed(x):
    x %= N
    return x - N if x > N // 2 else x


@dataclass(frozen=True)
class GlvSplit:
    """Result of a split, with every intermediate value."""

    k: int
    c1: int
    c2: int
    k1: int  # mod n
    k2: int  # mod n
    k1_signed: int
    k2_signed: int
    rounding: str  # "shift384" or "exact"

    def pair(self):
        return (self.k1, self.k2)

    def __iter__(self):
        """Unpacks as ``k1, k2 = split(k)`` (values mod n)."""
        return iter((self.k1, self.k2))


def _finish(k, c1, c2, rounding):
    k2 = (c1 * MINUS_B1 + c2 * MINUS_B2) % N
    k1 = (k - LAMBDA * k2) % N
    return GlvSplit(k, c1, c2, k1, k2, _signed(k1), _signed(k2), rounding)


def split_lambda_exact(k):
    """GLV split with c1 = round(b2*k/n), c2 = round(-b1*k/n) from exact rationals."""
    k %= N
    return _finish(k, _round_div(B2 * k, N), _round_div(-B1 * k, N), "exact")


def split_lambda_spec(k):
    """GLV split, 384-bit shift variant, as one big-int formula (the spec)."""
    k %= N
    half = 1 << (SHIFT - 1)
    return _finish(k, (k * G1 + half) >> SHIFT, (k * G2 + half) >> SHIFT, "shift384")


_M64 = (1 << 64) - 1


def _limbs(x, n):
    return [(x >> (64 * i)) & _M64 for i in range(n)]


def _mul_shift_var(a, b, shift):
    """``scalar_mul_shift_var`` on 4x64-bit limbs: round(a*b / 2^shift) for shift >= 256.

    Schoolbook 4x4 limb product into 8 limbs (each partial product < 2^128, carries
    propagated limb by limb), then take limbs shift/64.., and add bit (shift-1).
    """
    al, bl = _limbs(a, 4), _limbs(b, 4)
    l = [0] * 8
    for i in range(4):
        carry = 0
        for j in range(4):
            t = l[i + j] + al[i] * bl[j] + carry  # <= (2^64-1) + (2^64-1)^2 + (2^64-1) = 2^128 - 1
            l[i + j] = t & _M64
            carry = t >> 64
        l[i + 4] = carry
    limbs, low = shift >> 6, shift & 63
    r = 0
    for i in range(4):
        src = limbs + i
        v = 0
        if src < 8:
            v = l[src] >> low
            if low and src + 1 < 8:
                v |= (l[src + 1] << (64 - low)) & _M64
        r |= v << (64 * i)
    bit = (l[(shift - 1) >> 6] >> ((shift - 1) & 63)) & 1
    return r + bit


@mirrors("scalar.split_lambda")
@spec_checked(split_lambda_spec)
def split_lambda(k):
    """GLV split as libsecp256k1 computes it (limb-level mul_shift_var), spec-checked."""
    k %= N
    c1 = _mul_shift_var(k, G1, SHIFT)
    c2 = _mul_shift_var(k, G2, SHIFT)
    return _finish(k, c1, c2, "shift384")


split = split_lambda  # ``k1, k2 = split(k)``; the GlvSplit also carries c1, c2 and signed forms


def check_split(s):
    """Assert the GLV invariants of a GlvSplit; returns True."""
    assert (s.k1 + LAMBDA * s.k2 - s.k) % N == 0, "k1 + lambda*k2 != k"
    assert abs(s.k1_signed) < 2**128 and abs(s.k2_signed) < 2**128, "split too long"
    assert s.k1_signed % N == s.k1 and s.k2_signed % N == s.k2
    return True


def near_half_k(which=1):
    """A scalar k with b2*k/n (which=1) or -b1*k/n (which=2) within 1/(2n) of a half-integer.

    k = t * b^-1 mod n with t = (n-1)/2 gives b*k == (n-1)/2 (mod n). Used to probe
    where exact and 384-bit-shift rounding can disagree.
    """
    b = B2 if which == 1 else -B1
    return ((N - 1) // 2) * pow(b, -1, N) % N


def endo(pt):
    """phi(x, y) = (beta*x, y) == lambda * (x, y)."""
    return None if pt is None else (BETA * pt[0] % P, pt[1])


# ------------------------------------------------------------------ wNAF


def wnaf(k, w):
    """Width-w NAF digits of a (signed) int k, least significant first.

    Every nonzero digit is odd with |d| < 2^(w-1), any w consecutive digits hold at
    most one nonzero, and sum(d_i * 2^i) == k. For k < 0 the digits are those of -k
    negated (the sign-magnitude convention used for GLV halves).
    """
    if w < 2:
        raise ValueError("w must be >= 2")
    if k < 0:
        return [-d for d in wnaf(-k, w)]
    out = []
    while k:
        if k & 1:
            d = k & ((1 << w) - 1)
            if d >= 1 << (w - 1):
                d -= 1 << w
            k -= d
        else:
            d = 0
        out.append(d)
        k >>= 1
    return out


def wnaf_value(digits):
    return sum(d << i for i, d in enumerate(digits))


def _wnaf_scalar_spec(s, w, length=256):
    s %= N
    sign = 1
    if s >> 255:
        s, sign = N - s, -1
    d = wnaf(s, w)
    if len(d) > length:
        raise ValueError("scalar does not fit in wNAF length")
    return [sign * x for x in d] + [0] * (length - len(d))


@mirrors("ecmult.wnaf")
@spec_checked(_wnaf_scalar_spec)
def wnaf_scalar(s, w, length=256):
    """``secp256k1_ecmult_wnaf``: fixed-length wNAF of a scalar, bit-scanning form.

    If bit 255 of s is set, s is replaced by n - s and every digit is negated, so
    the digits reconstruct s (mod n). Spec-checked against ``wnaf``.
    """
    if not 2 <= w <= 31:
        raise ValueError("w must be in [2, 31]")
    s %= N
    sign = 1
    if s >> 255:
        s, sign = N - s, -1
    out = [0] * length
    carry = 0
    bit = 0
    while bit < length:
        if ((s >> bit) & 1) == carry:
            bit += 1
            continue
        now = min(w, length - bit)
        word = ((s >> bit) & ((1 << now) - 1)) + carry
        carry = (word >> (w - 1)) & 1
        word -= carry << w
        out[bit] = sign * word
        bit += now
    if carry or s >> length:
        raise ValueError("scalar does not fit in wNAF length")
    return out


def _odd_multiples(pt, w):
    """[1P, 3P, 5P, ..., (2^(w-1)-1)P] in affine form."""
    twice = group.affine_double(pt)
    table = [pt]
    for _ in range((1 << (w - 2)) - 1):
        table.append(group.affine_add(table[-1], twice))
    return table


def _ecmult_glv_spec(k, pt, w=5):
    return group.mul(k, pt)


@spec_checked(_ecmult_glv_spec)
def ecmult_glv(k, pt, w=5):
    """k * pt via GLV split + two interleaved wNAF streams (Strauss), checked against ``mul``."""
    if pt is None:
        return None
    s = split_lambda(k)
    streams = []
    for ks, base in ((s.k1_signed, pt), (s.k2_signed, endo(pt))):
        streams.append((wnaf(ks, w), _odd_multiples(base, w)))
    top = max(len(d) for d, _ in streams)
    acc = group.JINF
    for i in range(top - 1, -1, -1):
        acc = group.jacobian_double(acc)
        for digits, table in streams:
            d = digits[i] if i < len(digits) else 0
            if d > 0:
                acc = group.jacobian_add_affine(acc, table[d >> 1])
            elif d < 0:
                acc = group.jacobian_add_affine(acc, group.affine_neg(table[(-d) >> 1]))
    return group.to_affine(acc)
