# SPDX-License-Identifier: MIT OR Apache-2.0
"""ECDSA (Core semantics, RFC6979) and BIP340 Schnorr, including the BIP340 vectors."""

import csv

import pytest
from hypothesis import given, settings, strategies as st

from fullverify.oracle import ecdsa, group, schnorr
from fullverify.oracle.scalar import N
from fullverify.oracle.sha256 import sha256

keys = st.integers(min_value=1, max_value=N - 1).map(lambda d: d.to_bytes(32, "big"))
msgs = st.binary(min_size=32, max_size=32)


def test_bip340_vectors(vectors):
    rows = list(csv.DictReader(open(vectors / "bips" / "bip340_test_vectors.csv")))
    assert len(rows) == 19
    signed = 0
    for row in rows:
        pk = bytes.fromhex(row["public key"])
        msg = bytes.fromhex(row["message"])
        sig = bytes.fromhex(row["signature"])
        expect = row["verification result"] == "TRUE"
        if row["secret key"]:
            sk = bytes.fromhex(row["secret key"])
            assert schnorr.pubkey_gen(sk) == pk, row["index"]
            assert schnorr.sign(msg, sk, bytes.fromhex(row["aux_rand"])) == sig, row["index"]
            signed += 1
        assert schnorr.verify(msg, pk, sig) is expect, (row["index"], row["comment"])
    assert signed == 8


def test_rfc6979_known_vector():
    # Widely published secp256k1 RFC6979 vector: key 1, msg sha256("Satoshi Nakamoto").
    r, s = ecdsa.sign((1).to_bytes(32, "big"), sha256(b"Satoshi Nakamoto"))
    assert r == 0x934B1EA10A4B3C1757E2B0C017D0B6143CE3C9A7E6A4A49860D7A6AB210EE3D8
    assert s == 0x2442CE9D2B916064108014783E923EC36B49743E2FFA1C4496F01A512AAFD9E5


@settings(max_examples=15, deadline=None)
@given(keys, msgs, st.integers(min_value=0, max_value=63))
def test_ecdsa_sign_verify_and_mutations(sk, msg, bit):
    r, s = ecdsa.sign(sk, msg)
    assert s <= N // 2
    pub = group.encode(group.mul_g(int.from_bytes(sk, "big")))
    der = ecdsa.encode_der(r, s)
    assert ecdsa.is_valid_signature_encoding(der + b"\x01")
    assert ecdsa.parse_der_strict(der) == (r, s)
    assert ecdsa.verify(pub, msg, der)
    assert ecdsa.verify(pub, msg, ecdsa.encode_der(r, N - s))  # high S accepted by Core
    bad_msg = bytearray(msg)
    bad_msg[bit % 32] ^= 1 << (bit % 8)
    assert not ecdsa.verify(pub, bytes(bad_msg), der)
    assert not ecdsa.verify(pub, msg, ecdsa.encode_der(r, (s + 1) % N))
    assert not ecdsa.verify(pub, msg, ecdsa.encode_der((r + 1) % N, s))


@settings(max_examples=10, deadline=None)
@given(keys, st.binary(max_size=80), st.binary(min_size=32, max_size=32), st.integers(0, 511))
def test_schnorr_sign_verify_and_mutations(sk, msg, aux, bit):
    sig = schnorr.sign(msg, sk, aux)
    pk = schnorr.pubkey_gen(sk)
    assert schnorr.verify(msg, pk, sig)
    bad = bytearray(sig)
    bad[bit // 8] ^= 1 << (bit % 8)
    assert not schnorr.verify(msg, pk, bytes(bad))
    assert not schnorr.verify(msg + b"\x00", pk, sig)


def test_ecdsa_r_plus_n_case():
    q, m, r, s, rpt = ecdsa.construct_r_plus_n_case()
    assert rpt[0] >= N and r == rpt[0] - N
    assert ecdsa.verify_rs(q, m, r, s)
    assert ecdsa.verify(group.encode(q), m, ecdsa.encode_der(r, s))
    assert not ecdsa.verify_rs(q, m, rpt[0], s)  # r >= n is never valid


def test_der_lax_and_strict():
    r, s = 0x1234, 0x5678
    der = ecdsa.encode_der(r, s)
    assert ecdsa.parse_der_lax(der) == (r, s)
    # BER long-form lengths and padding: lax accepts, strict rejects
    ber = b"\x30\x81\x0a\x02\x82\x00\x02\x12\x34\x02\x03\x00\x56\x78"
    assert ecdsa.parse_der_lax(ber) == (r, s)
    assert not ecdsa.is_valid_signature_encoding(ber + b"\x01")
    with pytest.raises(ValueError):
        ecdsa.parse_der_strict(ber)
    # excess zero padding is strict-invalid
    padded = b"\x30\x09\x02\x03\x00\x12\x34\x02\x02\x56\x78"
    assert ecdsa.parse_der_lax(padded) == (r, s)
    assert not ecdsa.is_valid_signature_encoding(padded + b"\x01")
    # overflowing R: parsed, but as (0, 0)
    big = b"\x02\x21\x01" + b"\xff" * 32
    assert ecdsa.parse_der_lax(b"\x30\x27" + big + b"\x02\x02\x56\x78") == (0, 0)
    assert ecdsa.parse_der_lax(b"\x30\x06\x02\x02\x12") is None
    assert ecdsa.parse_der_lax(b"\x31" + der[1:]) is None
    assert ecdsa.parse_der_lax(b"") is None
