# SPDX-License-Identifier: MIT OR Apache-2.0
"""The hashing bindings against hashlib."""

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fullverify


def h(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def ref_tagged(tag: bytes, msg: bytes) -> bytes:
    t = h(tag)
    return h(t + t + msg)


def ref_merkle(level: list[bytes]) -> tuple[bytes, bool]:
    if not level:
        return bytes(32), False
    mutated = False
    while len(level) > 1:
        for i in range(0, len(level) - 1, 2):
            mutated |= level[i] == level[i + 1]
        if len(level) % 2:
            level = level + [level[-1]]
        level = [h(h(level[i] + level[i + 1])) for i in range(0, len(level), 2)]
    return level[0], mutated


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=300))
def test_sha256_vs_hashlib(data: bytes) -> None:
    assert fullverify.sha256(data) == h(data)
    assert fullverify.sha256d(data) == h(h(data))


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=200))
def test_tagged_hash_vs_hashlib(tag: bytes, msg: bytes) -> None:
    assert fullverify.tagged_hash(tag, msg) == ref_tagged(tag, msg)


def test_tagged_hash_str_tag() -> None:
    assert fullverify.tagged_hash("BIP0340/challenge", b"x") == ref_tagged(b"BIP0340/challenge", b"x")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(min_size=32, max_size=32), max_size=70))
def test_merkle_vs_reference_every_backend(leaves: list[bytes]) -> None:
    want = ref_merkle(leaves)
    assert fullverify.merkle_root(leaves) == want
    for b in fullverify.available_backends():
        assert fullverify.merkle_root(leaves, backend=b) == want


def test_merkle_mutated_flag() -> None:
    a, b, c = (h(bytes([i])) for i in range(3))
    root3, m3 = fullverify.merkle_root([a, b, c])
    root4, m4 = fullverify.merkle_root([a, b, c, c])
    assert root3 == root4
    assert (m3, m4) == (False, True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=64, max_size=64), max_size=40))
def test_sha256d64_vs_hashlib(msgs: list[bytes]) -> None:
    want = [h(h(m)) for m in msgs]
    for b in fullverify.available_backends():
        assert fullverify.sha256d64(msgs, backend=b) == want


def test_backend_reporting() -> None:
    assert fullverify.backend() in fullverify.available_backends()
    assert "portable" in fullverify.available_backends()


@pytest.mark.parametrize(
    "call",
    [
        lambda: fullverify.merkle_root([b"\x00" * 31]),
        lambda: fullverify.sha256d64([b"\x00" * 63]),
        lambda: fullverify.merkle_root([bytes(32)], backend="avx9000"),
    ],
)
def test_bad_lengths_raise_value_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        call()


def test_wrong_types_raise_type_error() -> None:
    with pytest.raises(TypeError):
        fullverify.sha256("not bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        fullverify.merkle_root([1, 2])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        fullverify.tagged_hash(3, b"")  # type: ignore[arg-type]


def test_error_is_value_error_subclass() -> None:
    assert issubclass(fullverify.Error, ValueError)
