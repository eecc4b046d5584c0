# SPDX-License-Identifier: MIT OR Apache-2.0
"""Legacy, BIP143 and BIP341 sighashes against Core's and the BIPs' vectors."""

import json

import pytest

from fullverify.oracle import schnorr, sighash, taproot
from fullverify.oracle.tx import TxOut, parse_tx


def test_core_sighash_json(vectors):
    cases = [c for c in json.load(open(vectors / "core" / "sighash.json")) if len(c) == 5]
    assert len(cases) == 500
    for raw, script, n_in, hash_type, expected in cases:
        tx = parse_tx(bytes.fromhex(raw))
        got = sighash.legacy_sighash(tx, n_in, bytes.fromhex(script), hash_type)
        assert got[::-1].hex() == expected, (raw, n_in, hash_type)


def test_legacy_quirks():
    tx = parse_tx(bytes.fromhex(
        "0100000001" + "11" * 32 + "00000000" + "00" + "ffffffff" + "01" + "0000000000000000" + "00"
        + "00000000"))
    # SIGHASH_SINGLE with no matching output and out-of-range input: the "one" hash
    tx.vout = []
    assert sighash.legacy_sighash(tx, 0, b"", 3) == sighash.ONE
    assert sighash.legacy_sighash(tx, 5, b"", 1) == sighash.ONE
    # FindAndDelete: opcode-aligned, repeated
    assert sighash.find_and_delete(bytes.fromhex("ab51abab52"), b"\xab") == (b"\x51\x52", 3)
    assert sighash.find_and_delete(bytes.fromhex("0201ab"), b"\xab") == (bytes.fromhex("0201ab"), 0)
    # OP_CODESEPARATOR removal in the scriptCode serialization
    assert sighash._serialize_script_code(bytes.fromhex("51ab52")) == bytes.fromhex("025152")


def test_bip143_examples(vectors):
    cases = json.load(open(vectors / "bips" / "bip143_sighash_examples.json"))
    assert len(cases) == 13
    for c in cases:
        tx = parse_tx(bytes.fromhex(c["unsigned_tx"]))
        pre = sighash.bip143_preimage(tx, c["input_index"], bytes.fromhex(c["script_code"]),
                                      c["amount"], c["hash_type"])
        assert pre.hex() == c["preimage"], c["example"]
        assert sighash.bip143_sighash(tx, c["input_index"], bytes.fromhex(c["script_code"]),
                                      c["amount"], c["hash_type"]).hex() == c["sighash"]


def test_bip341_script_pubkeys(vectors):
    data = json.load(open(vectors / "core" / "bip341_wallet_vectors.json"))
    for case in data["scriptPubKey"]:
        g, inter, exp = case["given"], case["intermediary"], case["expected"]
        internal = bytes.fromhex(g["internalPubkey"])
        root, leaves = taproot.tree_info(g["scriptTree"])
        assert (root.hex() if root else None) == inter["merkleRoot"]
        assert [h.hex() for _, h, _ in leaves] == inter.get("leafHashes", [])
        assert taproot.tap_tweak(internal, root).hex() == inter["tweak"]
        qx, parity = taproot.tweak_pubkey(internal, root)
        assert qx.hex() == inter["tweakedPubkey"]
        assert exp["scriptPubKey"] == "5120" + qx.hex()
        blocks = [taproot.control_block(internal, lf["leafVersion"], parity, path).hex()
                  for lf, _, path in leaves]
        assert blocks == exp.get("scriptPathControlBlocks", [])


def test_bip341_key_path_spending(vectors):
    data = json.load(open(vectors / "core" / "bip341_wallet_vectors.json"))
    for case in data["keyPathSpending"]:
        tx = parse_tx(bytes.fromhex(case["given"]["rawUnsignedTx"]))
        spent = [TxOut(u["amountSats"], bytes.fromhex(u["scriptPubKey"]))
                 for u in case["given"]["utxosSpent"]]
        assert len(case["inputSpending"]) == 7
        for inp in case["inputSpending"]:
            g, inter = inp["given"], inp["intermediary"]
            idx, ht = g["txinIndex"], g["hashType"]
            root = bytes.fromhex(g["merkleRoot"]) if g["merkleRoot"] else None
            msg = sighash.bip341_sigmsg(tx, idx, spent, ht)
            assert (b"\x00" + msg).hex() == inter["sigMsg"]
            sh = sighash.bip341_sighash(tx, idx, spent, ht)
            assert sh.hex() == inter["sigHash"]
            sk = bytes.fromhex(g["internalPrivkey"])
            assert schnorr.pubkey_gen(sk).hex() == inter["internalPubkey"]
            assert taproot.tap_tweak(bytes.fromhex(inter["internalPubkey"]), root).hex() == inter["tweak"]
            tweaked = taproot.tweak_seckey(sk, root)
            assert tweaked.hex() == inter["tweakedPrivkey"]
            sig = schnorr.sign(sh, tweaked, bytes(32)) + (bytes([ht]) if ht else b"")
            assert [sig.hex()] == inp["expected"]["witness"]


def test_bip341_sigmsg_variants():
    tx = parse_tx(bytes.fromhex(
        "02000000" "02" + "aa" * 32 + "00000000" "00" "feffffff" + "bb" * 32 + "01000000" "00"
        "ffffffff" "01" "e803000000000000" "0151" "00000000"))
    spent = [TxOut(5000, b"\x51\x20" + bytes(32)), TxOut(6000, b"\x00\x14" + bytes(20))]
    base = len(sighash.bip341_sigmsg(tx, 0, spent, 0))
    assert base == 174 - 1 + 1  # 175 - 1 (no epoch byte here)
    for ht, delta in ((1, 0), (2, -32), (3, 0), (0x81, -49), (0x82, -81), (0x83, -49)):
        assert len(sighash.bip341_sigmsg(tx, 0, spent, ht)) == base + delta, ht
    assert len(sighash.bip341_sigmsg(tx, 0, spent, 0, annex=b"\x50\x01")) == base + 32
    leaf = taproot.leaf_hash(b"\x51")
    assert len(sighash.bip341_sigmsg(tx, 0, spent, 0, leaf_hash=leaf, codesep_pos=3)) == base + 37
    with pytest.raises(ValueError):
        sighash.bip341_sigmsg(tx, 1, spent, 3)  # SINGLE without output
    with pytest.raises(ValueError):
        sighash.bip341_sigmsg(tx, 0, spent, 4)


def test_taproot_real_spends(vectors):
    """Core's feature_taproot dump: key path and <key> OP_CHECKSIG script path spends."""
    from fullverify.oracle.tools import realdata

    results = list(realdata.taproot_cases(vectors))
    assert len(results) > 300
    assert any("script path" in n and "annex" in n for n, _ in results)
    bad = [n for n, ok in results if not ok]
    assert not bad, bad[:5]


def test_testnet3_real_ecdsa_spends(vectors):
    """Real P2WPKH (BIP143) and P2PKH (legacy) inputs of testnet3 block 928816 verify."""
    from fullverify.oracle.tools import realdata

    results = list(realdata.testnet3_segwit_cases(vectors, 150))
    assert len(results) == 150
    assert {name.split()[2] for name, _ in results} >= {"P2WPKH", "P2PKH"}
    assert all(ok for _, ok in results)


def test_checksig_find_and_delete():
    tx = parse_tx(bytes.fromhex(
        "0100000001" + "11" * 32 + "00000000" + "00" + "ffffffff" + "01" + "0000000000000000" + "00"
        + "00000000"))
    sig = bytes.fromhex("3006020101020101") + b"\x01"
    script = sighash.push_data(sig) + b"\x75\x51"  # <sig> DROP 1
    assert sighash.legacy_sighash_for_checksig(tx, 0, script, sig) == \
        sighash.legacy_sighash(tx, 0, b"\x75\x51", 1)
    assert sighash.legacy_sighash_for_checksig(tx, 0, script, sig) != \
        sighash.legacy_sighash(tx, 0, script, 1)
