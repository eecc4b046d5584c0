# SPDX-License-Identifier: MIT OR Apache-2.0
"""Field axioms, group law, encodings and the spec_checked decorator."""

import pytest
from hypothesis import given, settings, strategies as st

from fullverify.oracle import field as F, group as G, scalar as S
from fullverify.oracle.spec import SpecMismatch, spec_checked

fe = st.integers(min_value=0, max_value=F.P - 1)
nz_fe = st.integers(min_value=1, max_value=F.P - 1)
sc = st.integers(min_value=1, max_value=S.N - 1)


@settings(max_examples=200, deadline=None)
@given(fe, fe, fe)
def test_field_axioms(a, b, c):
    assert F.add(a, b) == F.add(b, a)
    assert F.mul(a, b) == F.mul(b, a)
    assert F.mul(F.mul(a, b), c) == F.mul(a, F.mul(b, c))
    assert F.mul(a, F.add(b, c)) == F.add(F.mul(a, b), F.mul(a, c))
    assert F.add(a, F.neg(a)) == 0
    assert F.sqr(a) == F.mul(a, a)


@settings(max_examples=100, deadline=None)
@given(nz_fe)
def test_field_inverse_and_sqrt(a):
    assert F.mul(a, F.inv(a)) == 1
    r = F.sqrt(a)
    assert (r is not None) == F.is_square(a)
    if r is not None:
        assert F.sqr(r) == a
    r2 = F.sqrt(F.sqr(a))
    assert r2 in (a, F.P - a)


def test_field_edge_values():
    assert F.inv(0) == 0
    assert F.sqrt(0) == 0
    assert F.neg(0) == 0
    assert F.mul(F.P - 1, F.P - 1) == 1
    assert (2**256) % F.P == F.C
    assert F.sqrt(F.P - 1) is None  # -1 is a non-residue since p == 3 mod 4


@settings(max_examples=25, deadline=None)
@given(sc, sc, sc)
def test_group_associativity_and_jacobian(a, b, c):
    pa, pb, pc = G.mul_g(a), G.mul_g(b), G.mul_g(c)
    lhs = G.affine_add(G.affine_add(pa, pb), pc)
    rhs = G.affine_add(pa, G.affine_add(pb, pc))
    assert lhs == rhs == G.mul_g(a + b + c)
    # Jacobian formulas (spec-checked) with non-trivial Z
    ja = G.double(G.to_jacobian(pa))  # Z != 1
    assert G.to_affine(G.add(ja, G.to_jacobian(pb))) == G.mul_g(2 * a + b)
    assert G.to_affine(G.add_affine(ja, pb)) == G.mul_g(2 * a + b)


def test_jacobian_special_cases():
    g2 = G.double(G.to_jacobian(G.G))
    assert G.to_affine(G.add(g2, g2)) == G.mul_g(4)  # P == Q with Z != 1
    assert G.to_affine(G.add(g2, G.to_jacobian(G.mul_g(S.N - 2)))) is None  # P == -Q
    assert G.add(G.JINF, g2) == g2 and G.add(g2, G.JINF) == g2
    assert G.to_affine(G.add_affine(g2, G.mul_g(2))) == G.mul_g(4)
    assert G.to_affine(G.add_affine(g2, G.mul_g(S.N - 2))) is None
    assert G.add_affine(g2, None) == g2
    assert G.to_affine(G.double(G.JINF)) is None
    assert G.mul_g(S.N) is None and G.mul_g(0) is None
    assert G.affine_add(G.G, G.affine_neg(G.G)) is None


@settings(max_examples=20, deadline=None)
@given(sc)
def test_encodings(k):
    pt = G.mul_g(k)
    comp, unc = G.encode(pt), G.encode(pt, compressed=False)
    assert G.decode(comp) == pt and G.decode(unc) == pt
    hybrid = bytes([6 | (pt[1] & 1)]) + unc[1:]
    assert G.decode(hybrid) == pt
    with pytest.raises(ValueError):
        G.decode(bytes([7 - (pt[1] & 1)]) + unc[1:])  # wrong hybrid parity
    bad = unc[:-1] + bytes([unc[-1] ^ 1])
    with pytest.raises(ValueError):
        G.decode(bad)
    lifted = G.lift_x(pt[0])
    assert lifted[0] == pt[0] and lifted[1] % 2 == 0


def test_decode_rejects():
    for data in (b"", b"\x02" + bytes(31), b"\x05" + bytes(32), b"\x02" + F.P.to_bytes(32, "big")):
        with pytest.raises(ValueError):
            G.decode(data)
    assert G.lift_x(F.P) is None
    assert G.lift_x(5) is None  # 5^3 + 7 = 132 is not a square mod p


def test_spec_checked_detects_divergence():
    def spec(x):
        if x < 0:
            raise ValueError("negative")
        return x * 2

    @spec_checked(spec)
    def good(x):
        if x < 0:
            raise ValueError("neg")
        return x + x

    @spec_checked(spec)
    def wrong_value(x):
        return x * 2 + (x == 7)

    @spec_checked(spec)
    def wrong_error(x):
        if x < 0:
            raise KeyError(x)
        return 2 * x

    assert good(3) == 6
    with pytest.raises(ValueError):
        good(-1)
    assert wrong_value(6) == 12
    with pytest.raises(SpecMismatch):
        wrong_value(7)
    with pytest.raises(SpecMismatch):
        wrong_error(-1)


def test_rust_names_in_docstrings():
    for fn in (F.mul, F.sqr, F.inv, F.sqrt, S.mul, S.inv, G.double, G.add, G.add_affine):
        assert fn.__rust_name__.startswith("fullverify::secp256k1::")
        assert fn.__rust_name__ in fn.__doc__
