# SPDX-License-Identifier: MIT OR Apache-2.0
"""GLV split and wNAF."""

import pytest
from hypothesis import given, settings, strategies as st

from fullverify.oracle import glv, group
from fullverify.oracle.scalar import N

scalars = st.integers(min_value=0, max_value=N - 1)
EDGE = [0, 1, 2, N - 1, N - 2, glv.LAMBDA, N - glv.LAMBDA, 2**128, 2**128 - 1, N >> 1,
        (N >> 1) + 1, glv.near_half_k(1), glv.near_half_k(2)]


@pytest.mark.parametrize("k", EDGE)
def test_split_edges(k):
    for s in (glv.split_lambda(k), glv.split_lambda_exact(k)):
        assert glv.check_split(s)


@settings(max_examples=300, deadline=None)
@given(scalars)
def test_split_invariants(k):
    s = glv.split_lambda(k)  # spec-checked against the big-int 384-bit formula
    assert glv.check_split(s)
    e = glv.split_lambda_exact(k)
    assert glv.check_split(e)
    assert abs(s.c1 - e.c1) <= 1 and abs(s.c2 - e.c2) <= 1
    assert s.c1 == (k * glv.G1 + 2**383) >> 384


def test_roundings_differ_only_near_half():
    k = glv.near_half_k(1)
    s, e = glv.split_lambda(k), glv.split_lambda_exact(k)
    # b2*k/n sits 1/(2n) below a half-integer: exact rounds down, the shift rounds up.
    assert (e.c1, e.c2) != (s.c1, s.c2)
    assert glv.check_split(s) and glv.check_split(e)


def test_endomorphism():
    assert group.mul_g(glv.LAMBDA) == glv.endo(group.G)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=-(2**260), max_value=2**260), st.sampled_from([2, 4, 5, 15]))
def test_wnaf_reconstructs(k, w):
    d = glv.wnaf(k, w)
    assert glv.wnaf_value(d) == k
    nz = [i for i, x in enumerate(d) if x]
    assert all(d[i] % 2 == 1 and abs(d[i]) < 2 ** (w - 1) for i in nz)
    assert all(b - a >= w for a, b in zip(nz, nz[1:]))


@settings(max_examples=100, deadline=None)
@given(scalars, st.sampled_from([4, 5, 15]))
def test_wnaf_scalar(k, w):
    d = glv.wnaf_scalar(k, w)  # spec-checked against wnaf()
    assert len(d) == 256 and glv.wnaf_value(d) % N == k
    s = glv.split_lambda(k)
    for half in (s.k1, s.k2):
        assert glv.wnaf_value(glv.wnaf_scalar(half, w, 129)) % N == half


@settings(max_examples=15, deadline=None)
@given(scalars)
def test_ecmult_glv(k):
    assert glv.ecmult_glv(k, group.G) == group.mul_g(k)


def test_split_unpacks_and_reports_intermediates():
    k1, k2 = glv.split(12345)
    s = glv.split(12345)
    assert (k1, k2) == s.pair() and s.rounding == "shift384"
    assert s.c1 == (12345 * glv.G1 + 2**383) >> 384 and s.c2 == (12345 * glv.G2 + 2**383) >> 384
