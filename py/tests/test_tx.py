# SPDX-License-Identifier: MIT OR Apache-2.0
"""Transactions, sighash and script verification: bindings vs external vectors and the oracle."""

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fullverify
from fullverify.oracle import sighash as o_sighash
from fullverify.oracle import tx as o_tx

TESTNET3_FLAGS = "P2SH,DERSIG,CHECKLOCKTIMEVERIFY,CHECKSEQUENCEVERIFY,WITNESS,NULLDUMMY"


def load(vectors: Path, rel: str) -> Any:
    return json.loads((vectors / rel).read_text())


def test_core_sighash_json_vs_native_and_oracle(vectors: Path) -> None:
    cases = [c for c in load(vectors, "core/sighash.json") if len(c) == 5]
    assert len(cases) == 500
    for raw, script, index, hash_type, want in cases:
        tx = fullverify.Transaction.parse(bytes.fromhex(raw))
        got = fullverify.legacy_sighash(tx, index, bytes.fromhex(script), hash_type)
        assert got[::-1].hex() == want
        ref = o_sighash.legacy_sighash(o_tx.parse_tx(bytes.fromhex(raw)), index, bytes.fromhex(script), hash_type & 0xFFFFFFFF)
        assert got == ref


def test_bip143_examples(vectors: Path) -> None:
    cases = load(vectors, "bips/bip143_sighash_examples.json")
    assert len(cases) == 13
    for c in cases:
        tx = bytes.fromhex(c["unsigned_tx"])
        args = (c["input_index"], bytes.fromhex(c["script_code"]), c["amount"], c["hash_type"])
        assert fullverify.bip143_preimage(tx, *args).hex() == c["preimage"]
        assert fullverify.bip143_sighash(tx, *args).hex() == c["sighash"]


def test_bip341_wallet_vectors(vectors: Path) -> None:
    v = load(vectors, "core/bip341_wallet_vectors.json")["keyPathSpending"][0]
    tx = fullverify.Transaction.parse(bytes.fromhex(v["given"]["rawUnsignedTx"]))
    spent = [(u["amountSats"], bytes.fromhex(u["scriptPubKey"])) for u in v["given"]["utxosSpent"]]
    h = fullverify.bip341_hashes(tx, spent)
    inter = v["intermediary"]
    assert h["sha_prevouts"].hex() == inter["hashPrevouts"]
    assert h["sha_amounts"].hex() == inter["hashAmounts"]
    assert h["sha_scriptpubkeys"].hex() == inter["hashScriptPubkeys"]
    assert h["sha_sequences"].hex() == inter["hashSequences"]
    assert h["sha_outputs"].hex() == inter["hashOutputs"]
    for inp in v["inputSpending"]:
        g, i = inp["given"], inp["intermediary"]
        msg = fullverify.bip341_sigmsg(tx, g["txinIndex"], spent, g["hashType"])
        assert msg.hex() == i["sigMsg"]
        assert fullverify.bip341_sighash(tx, g["txinIndex"], spent, g["hashType"]).hex() == i["sigHash"]


def _testnet3(vectors: Path) -> tuple[fullverify.Block, list[tuple[int, bytes]]]:
    block = fullverify.Block.parse((vectors / "blocks_with_prevouts/testnet3_928816.block.raw").read_bytes())
    raw = (vectors / "blocks_with_prevouts/testnet3_928816.spent_outputs.bin").read_bytes()
    r = o_tx.Reader(raw)
    spent = []
    while not r.at_end():
        value = r.i64()
        spent.append((value, r.var_bytes()))
    return block, spent


def test_testnet3_block_every_input_verifies(vectors: Path) -> None:
    block, spent = _testnet3(vectors)
    assert block.hash_hex == "00000000000001c4b87edf974ddc601d88dda332265b9849a944a5ff0141a378"
    root, mutated = block.merkle_root()
    assert root == block.header["merkle_root"] and not mutated
    pos, checked = 0, 0
    for tx in block.transactions[1:]:
        n = len(tx.inputs)
        mine = spent[pos : pos + n]
        pos += n
        results = fullverify.verify_tx(tx, mine, TESTNET3_FLAGS)
        assert all(ok for ok, _ in results), (tx.txid_hex, results)
        checked += n
    assert pos == len(spent) == checked == 8692
    # A changed amount breaks exactly that P2WPKH input's BIP143 signature (legacy inputs do not
    # commit to amounts).
    pos = 0
    for tx in block.transactions[1:]:
        mine = spent[pos : pos + len(tx.inputs)]
        pos += len(tx.inputs)
        seg = [k for k, (_, spk) in enumerate(mine) if spk[:2] == b"\x00\x14"]
        if len(mine) > 1 and seg:
            k = seg[0]
            bad = [(a + 1, s) if j == k else (a, s) for j, (a, s) in enumerate(mine)]
            results = fullverify.verify_tx(tx, bad, TESTNET3_FLAGS)
            assert [ok for ok, _ in results] == [j != k for j in range(len(mine))]
            assert results[k][1] != "OK"
            break
    else:
        raise AssertionError("no multi-input transaction with a P2WPKH input")


def test_verify_input_error_names() -> None:
    # A P2PKH-like spend with an empty scriptSig fails with Core's error name.
    spk = fullverify.parse_asm("DUP HASH160 0x14 0x" + "00" * 20 + " EQUALVERIFY CHECKSIG")
    tx = bytes.fromhex("01000000" "01" + "11" * 32 + "00000000" "00" "ffffffff" "01" + "00" * 8 + "00" "00000000")
    ok, err = fullverify.verify_input(tx, 0, [(0, spk)], "P2SH")
    assert not ok and err in fullverify.script_error_names()
    assert fullverify.verify_input(tx, 0, [(0, fullverify.parse_asm("1"))], 0) == (True, "OK")
    assert fullverify.verify_input(tx, 0, [(0, fullverify.parse_asm("0"))], 0) == (False, "EVAL_FALSE")


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_tx_roundtrip_and_ids_vs_oracle(data: st.DataObject) -> None:
    n_in = data.draw(st.integers(1, 4))
    n_out = data.draw(st.integers(0, 4))
    witness = data.draw(st.booleans())
    ins = []
    for _ in range(n_in):
        ins.append((data.draw(st.binary(min_size=36, max_size=36)), data.draw(st.binary(max_size=80)),
                    data.draw(st.integers(0, 2**32 - 1)),
                    data.draw(st.lists(st.binary(max_size=40), min_size=1 if witness else 0, max_size=3 if witness else 0))))
    outs = [(data.draw(st.integers(0, 2**63 - 1)), data.draw(st.binary(max_size=60))) for _ in range(n_out)]

    def cs(n: int) -> bytes:
        return bytes([n]) if n < 0xFD else b"\xfd" + n.to_bytes(2, "little")

    raw = (2).to_bytes(4, "little") + (b"\x00\x01" if witness else b"") + cs(n_in)
    for prev, sig, seq, _ in ins:
        raw += prev + cs(len(sig)) + sig + seq.to_bytes(4, "little")
    raw += cs(n_out) + b"".join(v.to_bytes(8, "little") + cs(len(s)) + s for v, s in outs)
    if witness:
        for *_, wit in ins:
            raw += cs(len(wit)) + b"".join(cs(len(w)) + w for w in wit)
    raw += (500000).to_bytes(4, "little")
    tx = fullverify.Transaction.parse(raw)
    ref = o_tx.parse_tx(raw)
    assert tx.serialize() == raw == ref.serialize()
    assert tx.txid == ref.txid() and tx.wtxid == ref.wtxid()
    assert tx.serialize(witness=False) == ref.serialize(with_witness=False)
    ht = data.draw(st.sampled_from([1, 2, 3, 0x81, 0x82, 0x83, 0, 0x44, 2**31 + 1]))
    code = data.draw(st.binary(max_size=30))
    idx = data.draw(st.integers(0, n_in - 1))
    assert fullverify.legacy_sighash(tx, idx, code, ht) == o_sighash.legacy_sighash(ref, idx, code, ht)
    amount = data.draw(st.integers(0, 2**40))
    if ht in (1, 2, 3, 0x81, 0x82, 0x83):
        assert fullverify.bip143_preimage(tx, idx, code, amount, ht) == o_sighash.bip143_preimage(ref, idx, code, amount, ht)
    spent = [(data.draw(st.integers(0, 2**40)), data.draw(st.binary(max_size=35))) for _ in range(n_in)]
    if ht in (0, 1, 2, 3, 0x81, 0x82, 0x83) and not ((ht & 3) == 3 and idx >= n_out):
        spent_o = [o_tx.TxOut(a, s) for a, s in spent]
        assert fullverify.bip341_sigmsg(tx, idx, spent, ht)[1:] == o_sighash.bip341_sigmsg(ref, idx, spent_o, ht)


@pytest.mark.parametrize(
    "call",
    [
        lambda: fullverify.Transaction.parse(b""),
        lambda: fullverify.Transaction.parse(bytes.fromhex("0100000001")),
        lambda: fullverify.Transaction.parse(bytes.fromhex("01000000" "fd0100")),
        lambda: fullverify.Block.parse(b"\x00" * 80),
        lambda: fullverify.legacy_sighash(bytes.fromhex("01000000000000000000"), 0, b"", 1),
        lambda: fullverify.bip341_sighash(bytes.fromhex("01000000000000000000"), 0, [], 0),
        lambda: fullverify.verify_input(bytes.fromhex("01000000000000000000"), 0, [], "P2SH"),
        lambda: fullverify.parse_asm("NOT_AN_OPCODE"),
        lambda: fullverify.verify_input(b"", 0, [], "NO_SUCH_FLAG"),
    ],
)
def test_bad_input_raises_value_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        call()


def test_wrong_types() -> None:
    with pytest.raises(TypeError):
        fullverify.legacy_sighash(123, 0, b"", 1)  # type: ignore[arg-type]
