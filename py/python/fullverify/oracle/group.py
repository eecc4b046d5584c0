# SPDX-License-Identifier: MIT OR Apache-2.0
"""The secp256k1 group E: y^2 = x^3 + 7 over F_p, on plain Python ints.

Representations
* affine point: ``None`` (the point at infinity) or a tuple ``(x, y)``;
* Jacobian point: ``(X, Y, Z)`` meaning (X/Z^2, Y/Z^3); ``Z == 0`` is infinity.

The Jacobian formulas are the a = 0 ones used by libsecp256k1
(``secp256k1_gej_double``, ``secp256k1_gej_add_var``, ``secp256k1_gej_add_ge_var``);
they are ``spec_checked`` against the textbook affine chord-and-tangent law.
"""

from . import field as F
from ._rust import mirrors
from .scalar import N
from .spec import spec_checked

P = F.P
B = 7
G = (
    0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
    0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8,
)
INF = None
JINF = (0, 1, 0)

__all__ = [
    "P", "N", "G", "INF", "JINF", "is_on_curve", "affine_neg", "affine_add", "affine_double",
    "to_jacobian", "to_affine", "jacobian_double", "jacobian_add", "jacobian_add_affine",
    "double", "add", "add_affine", "mul", "mul_g", "ecmult", "decode", "encode", "lift_x",
    "has_even_y",
]


def is_on_curve(pt):
    """True for infinity or an affine point satisfying y^2 = x^3 + 7."""
    if pt is None:
        return True
    x, y = pt
    return 0 <= x < P and 0 <= y < P and (y * y - x * x * x - B) % P == 0


def has_even_y(pt):
    return pt[1] % 2 == 0


def affine_neg(pt):
    return None if pt is None else (pt[0], (-pt[1]) % P)


# ---------------------------------------------------------------- affine spec


def affine_double(pt):
    """Tangent rule: lambda = 3x^2 / 2y (a = 0). Specification for ``double``."""
    if pt is None:
        return None
    x, y = pt
    if y == 0:
        return None
    lam = 3 * x * x * pow(2 * y, -1, P) % P
    x3 = (lam * lam - 2 * x) % P
    return (x3, (lam * (x - x3) - y) % P)


def affine_add(p1, p2):
    """Chord rule with every special case spelled out. Specification for ``add``.

    * O + Q = Q, P + O = P;
    * P + (-P) = O (same x, opposite y, including y = 0);
    * P + P = double(P);
    * otherwise lambda = (y2 - y1) / (x2 - x1).
    """
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    x1, y1 = p1
    x2, y2 = p2
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return None
        return affine_double(p1)
    lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


# ---------------------------------------------------------------- Jacobian


def to_jacobian(pt):
    return JINF if pt is None else (pt[0], pt[1], 1)


def to_affine(pj):
    """(X, Y, Z) -> (X/Z^2, Y/Z^3), or None when Z == 0."""
    X, Y, Z = pj
    if Z % P == 0:
        return None
    zi = pow(Z, -1, P)
    zi2 = zi * zi % P
    return (X * zi2 % P, Y * zi2 * zi % P)


def jacobian_double(pj):
    """2P in Jacobian coordinates for a = 0 (3M + 4S style, 'dbl-2009-l').

    A = X^2, B = Y^2, C = B^2, D = 2((X + B)^2 - A - C), E = 3A, F = E^2,
    X3 = F - 2D, Y3 = E(D - X3) - 8C, Z3 = 2YZ. Infinity (Z = 0) and Y = 0
    (no such affine point exists on secp256k1) give infinity.
    """
    X, Y, Z = pj
    if Z % P == 0 or Y % P == 0:
        return JINF
    A = X * X % P
    Bq = Y * Y % P
    Cq = Bq * Bq % P
    D = 2 * ((X + Bq) ** 2 - A - Cq) % P
    E = 3 * A % P
    Fq = E * E % P
    X3 = (Fq - 2 * D) % P
    Y3 = (E * (D - X3) - 8 * Cq) % P
    Z3 = 2 * Y * Z % P
    return (X3, Y3, Z3)


def _add_finish(p1, u1, s1, h, r, z):
    """What ``jacobian_add`` and ``jacobian_add_affine`` share once they have u1, s1,
    h = u2 - u1, r = s2 - s1 and z (Z1 Z2, or Z1 for the mixed form): the P1 == +-P2 cases,
    then X3, Y3 and Z3 = z h.
    """
    if h == 0:
        return jacobian_double(p1) if r == 0 else JINF
    h2 = h * h % P
    h3 = h2 * h % P
    t = u1 * h2 % P
    X3 = (r * r - h3 - 2 * t) % P
    Y3 = (r * (t - X3) - s1 * h3) % P
    Z3 = z * h % P
    return (X3, Y3, Z3)


def jacobian_add(p1, p2):
    """P1 + P2 for Jacobian inputs (the ``gej_add_var`` formula, 12M + 4S).

    u1 = X1 Z2^2, u2 = X2 Z1^2, s1 = Y1 Z2^3, s2 = Y2 Z1^3, h = u2 - u1, r = s2 - s1.
    h == 0 and r == 0: P1 == P2 -> double; h == 0 and r != 0: P1 == -P2 -> infinity.
    Z3 = Z1 Z2 h, X3 = r^2 - h^3 - 2 u1 h^2, Y3 = r (u1 h^2 - X3) - s1 h^3.
    """
    X1, Y1, Z1 = p1
    X2, Y2, Z2 = p2
    if Z1 % P == 0:
        return p2
    if Z2 % P == 0:
        return p1
    z1s = Z1 * Z1 % P
    z2s = Z2 * Z2 % P
    u1 = X1 * z2s % P
    u2 = X2 * z1s % P
    s1 = Y1 * z2s * Z2 % P
    s2 = Y2 * z1s * Z1 % P
    return _add_finish(p1, u1, s1, (u2 - u1) % P, (s2 - s1) % P, Z1 * Z2)


def jacobian_add_affine(p1, q):
    """P1 (Jacobian) + Q (affine, possibly None): the mixed ``gej_add_ge_var`` (8M + 3S).

    Same as ``jacobian_add`` with Z2 = 1: u1 = X1, s1 = Y1, u2 = x Z1^2, s2 = y Z1^3.
    """
    if q is None:
        return p1
    X1, Y1, Z1 = p1
    if Z1 % P == 0:
        return to_jacobian(q)
    x, y = q
    z1s = Z1 * Z1 % P
    u2 = x * z1s % P
    s2 = y * z1s * Z1 % P
    return _add_finish(p1, X1, Y1, (u2 - X1) % P, (s2 - Y1) % P, Z1)


# ------------------------------------------------- public, spec-checked forms


def _spec_double(pj):
    return to_jacobian(affine_double(to_affine(pj)))


def _spec_add(p1, p2):
    return to_jacobian(affine_add(to_affine(p1), to_affine(p2)))


def _spec_add_affine(p1, q):
    return to_jacobian(affine_add(to_affine(p1), q))


@mirrors("group.double")
@spec_checked(_spec_double, key=to_affine)
def double(pj):
    """Jacobian doubling, checked against the affine tangent rule."""
    return jacobian_double(pj)


@mirrors("group.add")
@spec_checked(_spec_add, key=to_affine)
def add(p1, p2):
    """Jacobian + Jacobian, checked against the affine chord rule."""
    return jacobian_add(p1, p2)


@mirrors("group.add_affine")
@spec_checked(_spec_add_affine, key=to_affine)
def add_affine(p1, q):
    """Jacobian + affine (mixed addition), checked against the affine chord rule."""
    return jacobian_add_affine(p1, q)


def mul(k, pt):
    """k * pt (affine in, affine out) by plain left-to-right double-and-add on k mod n."""
    k %= N
    acc = JINF
    for bit in bin(k)[2:] if k else "":
        acc = jacobian_double(acc)
        if bit == "1":
            acc = jacobian_add_affine(acc, pt)
    return to_affine(acc)


def mul_g(k):
    """k * G."""
    return mul(k, G)


@mirrors("ecmult.mul")
def ecmult(u1, u2, q):
    """u1 * G + u2 * Q (the verification double multiplication), affine result."""
    a = to_jacobian(mul(u1, G))
    b = mul(u2, q)
    return to_affine(jacobian_add_affine(a, b))


# ------------------------------------------------------------ encodings


@mirrors("group.decode")
def decode(data):
    """Parse a public key as ``secp256k1_ec_pubkey_parse`` does.

    * 33 bytes, tag 0x02/0x03: x < p, lift with y parity = tag & 1;
    * 65 bytes, tag 0x04: x, y < p and on the curve;
    * 65 bytes, hybrid tag 0x06/0x07: as 0x04 and additionally y parity = tag & 1.
    Anything else raises ValueError.
    """
    data = bytes(data)
    if len(data) == 33 and data[0] in (2, 3):
        x = int.from_bytes(data[1:], "big")
        if x >= P:
            raise ValueError("x >= p")
        y = F.sqrt(x * x * x + B)
        if y is None:
            raise ValueError("x not on curve")
        if y % 2 != data[0] & 1:
            y = P - y
        return (x, y)
    if len(data) == 65 and data[0] in (4, 6, 7):
        x = int.from_bytes(data[1:33], "big")
        y = int.from_bytes(data[33:], "big")
        if x >= P or y >= P:
            raise ValueError("coordinate >= p")
        if data[0] in (6, 7) and y % 2 != data[0] & 1:
            raise ValueError("hybrid tag parity mismatch")
        if not is_on_curve((x, y)):
            raise ValueError("point not on curve")
        return (x, y)
    raise ValueError("bad public key encoding")


@mirrors("group.encode")
def encode(pt, compressed=True):
    """SEC1 encoding: 0x02/0x03 || x, or 0x04 || x || y. Infinity cannot be encoded."""
    if pt is None:
        raise ValueError("cannot encode infinity")
    x, y = pt
    if compressed:
        return bytes([2 | (y & 1)]) + x.to_bytes(32, "big")
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


@mirrors("group.lift_x")
def lift_x(x):
    """BIP340 lift_x: the point with x coordinate x and even y, or None."""
    if not 0 <= x < P:
        return None
    c = (pow(x, 3, P) + B) % P
    y = pow(c, (P + 1) // 4, P)
    if y * y % P != c:
        return None
    return (x, y if y % 2 == 0 else P - y)
