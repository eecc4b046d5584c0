# SPDX-License-Identifier: MIT OR Apache-2.0
"""MuHash3072 binding against the oracle (Python big integers) and Core's test vector."""

from hypothesis import given, settings
from hypothesis import strategies as st

import fullverify
from fullverify.oracle import muhash as oracle


def test_core_vector() -> None:
    def from_int(i: int) -> fullverify.MuHash3072:
        return fullverify.MuHash3072(bytes([i]) + bytes(31))

    acc = from_int(0)
    acc *= from_int(1)
    acc /= from_int(2)
    assert acc.finalize()[::-1].hex() == "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.binary(max_size=40)), max_size=6))
def test_vs_oracle(ops: list[tuple[bool, bytes]]) -> None:
    native = fullverify.MuHash3072()
    ref = oracle.MuHash3072()
    for ins, data in ops:
        if ins:
            native.insert(data)
            ref.insert(data)
        else:
            native.remove(data)
            ref.remove(data)
    assert native.serialize() == ref.serialize()
    assert native.finalize() == ref.finalize()


def test_bad_serialization_length() -> None:
    import pytest

    with pytest.raises(ValueError):
        fullverify.MuHash3072.deserialize(b"\x00" * 767)
