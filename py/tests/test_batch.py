# SPDX-License-Identifier: MIT OR Apache-2.0
"""BIP340 batch verification bindings against single verification and the oracle."""

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

import fullverify
from fullverify.oracle import schnorr as o_schnorr


def _items(n: int, tag: bytes = b"batch") -> list[tuple[bytes, bytes, bytes]]:
    out = []
    for i in range(n):
        sk = hashlib.sha256(tag + b" key %d" % i).digest()
        msg = hashlib.sha256(tag + b" msg %d" % i).digest()
        out.append((fullverify.xonly_pubkey(sk), msg, fullverify.schnorr_sign(sk, msg, bytes(32))))
    return out


POOL = _items(48)


def _corrupt(item: tuple[bytes, bytes, bytes], kind: int) -> tuple[bytes, bytes, bytes]:
    pk, msg, sig = item
    if kind == 0:  # s + 1
        return pk, msg, sig[:32] + ((int.from_bytes(sig[32:], "big") + 1) % 2**256).to_bytes(32, "big")
    if kind == 1:  # one message bit
        return pk, bytes([msg[0] ^ 1]) + msg[1:], sig
    if kind == 2:  # r + 1
        return pk, msg, ((int.from_bytes(sig[:32], "big") + 1) % 2**256).to_bytes(32, "big") + sig[32:]
    if kind == 3:  # another key
        return POOL[(POOL.index(item) + 1) % len(POOL)][0], msg, sig
    return pk, msg, sig[:63]  # malformed length


def test_all_valid_and_empty() -> None:
    assert fullverify.schnorr_verify_batch([])
    assert fullverify.schnorr_find_invalid([]) == []
    for n in (1, 2, 3, 17, 48):
        for b in fullverify.available_backends():
            assert fullverify.schnorr_verify_batch(POOL[:n], backend=b)
            assert fullverify.schnorr_find_invalid(POOL[:n], backend=b) == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, len(POOL) - 1), st.integers(-1, 4)), min_size=1, max_size=24),
)
def test_batch_vs_single_and_oracle(picks: list[tuple[int, int]]) -> None:
    items = [POOL[i] if kind < 0 else _corrupt(POOL[i], kind) for i, kind in picks]
    single = [fullverify.schnorr_verify(*it) for it in items]
    # The oracle agrees with single verification on every well-formed item.
    for (pk, msg, sig), ok in zip(items, single):
        if len(sig) == 64:
            assert o_schnorr.verify(msg, pk, sig) == ok
    want = [i for i, ok in enumerate(single) if not ok]
    assert fullverify.schnorr_verify_batch(items) == (not want)
    assert fullverify.schnorr_find_invalid(items) == want
