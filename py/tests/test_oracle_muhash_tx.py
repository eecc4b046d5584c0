# SPDX-License-Identifier: MIT OR Apache-2.0
"""MuHash3072 / ChaCha20, transactions, blocks and merkle roots."""

import pytest

from fullverify.oracle import muhash, sha256 as H, tx as T


def _from_int(i):
    return muhash.MuHash3072(bytes([i]) + bytes(31))


def test_chacha20_rfc8439_block():
    # RFC 8439 section 2.3.2 test vector (key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1)
    out = muhash.chacha20_block(bytes(range(32)), 1, bytes.fromhex("000000090000004a00000000"))
    assert out[:32].hex() == "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"


def test_muhash_core_vectors():
    # Core src/test/crypto_tests.cpp muhash_tests: uint256S(...) literal, i.e. reversed hex.
    want = "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863"
    acc = _from_int(0)
    acc *= _from_int(1)
    acc /= _from_int(2)
    assert acc.finalize()[::-1].hex() == want
    acc2 = _from_int(0)
    acc2.insert(bytes([1]) + bytes(31)).remove(bytes([2]) + bytes(31))
    assert acc2.finalize()[::-1].hex() == want
    # overflow check: numerator = 2^3072 - 1 (not reduced), denominator = 1; HexStr (not reversed)
    over = muhash.MuHash3072.deserialize(b"\xff" * 384 + b"\x01" + bytes(383))
    assert over.finalize().hex() == "3a31e6903aff0de9f62f9a9f7f8b861de76ce2cda09822b90014319ae5dc2271"


def test_muhash_order_independence_and_empty():
    a = muhash.MuHash3072().insert(b"x").insert(b"y").remove(b"z")
    b = muhash.MuHash3072().remove(b"z").insert(b"y").insert(b"x")
    assert a.finalize() == b.finalize()
    c = muhash.MuHash3072().insert(b"q").remove(b"q")
    assert c.finalize() == muhash.MuHash3072().finalize()


def test_block413567_merkle(vectors):
    blk = T.parse_block((vectors / "core" / "block413567.raw").read_bytes())
    assert len(blk.txs) == 1557
    assert blk.hash()[::-1].hex() == "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069"
    root, mutated = blk.compute_merkle_root()
    assert root == blk.merkle_root and not mutated
    # CVE-2012-2459: duplicating the last transaction keeps the root but is flagged mutated
    ids = [t.txid() for t in blk.txs]
    assert len(ids) % 2 == 1
    root2, mutated2 = H.merkle_root(ids + ids[-1:])
    assert root2 == root and mutated2
    assert sum(len(t.serialize()) for t in blk.txs) + 80 + 3 == 999887


def test_block702861_witness_commitment(vectors):
    blk = T.parse_block((vectors / "blocks" / "mainnet_702861.block.raw").read_bytes())
    assert blk.compute_merkle_root()[0] == blk.merkle_root
    wroot, _ = blk.compute_witness_merkle_root()
    nonce = blk.txs[0].vin[0].witness[0]
    commit = H.sha256d(wroot + nonce)
    spks = [o.script_pubkey for o in blk.txs[0].vout if o.script_pubkey[:6] == bytes.fromhex("6a24aa21a9ed")]
    assert spks[-1][6:38] == commit
    for t in blk.txs[:50]:
        assert T.parse_tx(t.serialize()).serialize() == t.serialize()


def test_compact_size_strict():
    ok = {b"\xfc": 0xFC, b"\xfd\xfd\x00": 0xFD, b"\xfe\x00\x00\x01\x00": 0x10000}
    for enc, v in ok.items():
        assert T.read_compact_size(T.Reader(enc)) == v
        assert T.ser_compact_size(v) == enc
    for enc in (b"\xfd\xfc\x00", b"\xfe\xff\xff\x00\x00", b"\xff" + (2**32 - 1).to_bytes(8, "little"),
                b"\xfe\x01\x00\x00\x02", b"\xfd\x01"):
        with pytest.raises(T.DecodeError):
            T.read_compact_size(T.Reader(enc))


def test_tx_witness_flags():
    legacy = bytes.fromhex("01000000" "01" + "11" * 32 + "00000000" "00" "ffffffff" "01"
                           "0000000000000000" "00" "00000000")
    tx = T.parse_tx(legacy)
    assert tx.txid() == tx.wtxid()
    tx.vin[0].witness = [b"\x01"]
    wit = tx.serialize()
    assert wit[4:6] == b"\x00\x01" and T.parse_tx(wit).vin[0].witness == [b"\x01"]
    assert tx.txid() != tx.wtxid() and T.parse_tx(wit).txid() == T.parse_tx(legacy).txid()
    superfluous = wit[:-7] + b"\x00" + wit[-4:]  # witness stack of zero items
    with pytest.raises(T.DecodeError, match="Superfluous"):
        T.parse_tx(superfluous)
    with pytest.raises(T.DecodeError, match="Unknown"):
        T.parse_tx(wit[:5] + b"\x02" + wit[6:])
    with pytest.raises(T.DecodeError):
        T.parse_tx(legacy + b"\x00")
