# SPDX-License-Identifier: MIT OR Apache-2.0
"""Block validation and replay from Python: ``fullverify.check_block`` on real blocks with their
spent outputs, and ``fullverify.replay`` of mainnet 0..438 against a UTXO set rebuilt here and
hashed with the pure-Python MuHash oracle."""

import json
import pathlib
import shutil
import struct
import subprocess
from typing import Any, Union

import pytest

import fullverify
from fullverify.oracle.muhash import MuHash3072 as OracleMuHash

MAINNET_MAGIC = bytes.fromhex("f9beb4d9")


def framed_blocks(data: bytes) -> list[bytes]:
    """The blocks of a framed file (magic | u32 LE length | block, repeated)."""
    out = []
    pos = 0
    while pos < len(data):
        assert data[pos : pos + 4] == MAINNET_MAGIC
        (n,) = struct.unpack_from("<I", data, pos + 4)
        out.append(data[pos + 8 : pos + 8 + n])
        pos += 8 + n
    return out


def compact_size(n: int) -> bytes:
    if n < 0xFD:
        return bytes([n])
    if n <= 0xFFFF:
        return b"\xfd" + struct.pack("<H", n)
    if n <= 0xFFFFFFFF:
        return b"\xfe" + struct.pack("<I", n)
    return b"\xff" + struct.pack("<Q", n)


def bcoin_undo(data: bytes) -> list[tuple[int, bytes]]:
    """bcoin undo records: i64 LE value | CompactSize length | scriptPubKey, until the end."""
    out = []
    pos = 0
    while pos < len(data):
        (value,) = struct.unpack_from("<q", data, pos)
        n = data[pos + 8]
        pos += 9
        if n == 0xFD:
            (n,) = struct.unpack_from("<H", data, pos)
            pos += 2
        elif n >= 0xFE:
            raise AssertionError("script longer than 65535 bytes in the undo data")
        out.append((value, data[pos : pos + n]))
        pos += n
    return out


# ---- check_block ----


@pytest.fixture(scope="module")
def testnet3_928816(vectors: pathlib.Path) -> tuple[bytes, list[tuple[int, bytes]]]:
    d = vectors / "blocks_with_prevouts"
    block = (d / "testnet3_928816.block.raw").read_bytes()
    spent = bcoin_undo((d / "testnet3_928816.spent_outputs.bin").read_bytes())
    assert len(spent) == 8692
    return block, spent


def test_check_block_testnet3_928816(testnet3_928816: tuple[bytes, list[tuple[int, bytes]]]) -> None:
    block, spent = testnet3_928816
    assert fullverify.check_block(block, spent, 928816, "testnet3") is None
    assert fullverify.check_block(block, spent, 928816, network="testnet", threads=1) is None


def test_check_block_mutations(testnet3_928816: tuple[bytes, list[tuple[int, bytes]]]) -> None:
    block, spent = testnet3_928816
    parsed = fullverify.Block.parse(block)
    # The first segwit input: BIP143 signs its amount, so one satoshi more fails its script.
    # (One satoshi less is caught before the scripts: the coinbase claims every fee.)
    k = 0
    first_witness = None
    for tx in parsed.transactions[1:]:
        for inp in tx.inputs:
            if inp["witness"] and first_witness is None:
                first_witness = k
            k += 1
    assert first_witness is not None
    bad = list(spent)
    value, spk = bad[first_witness]
    assert spk[:2] == b"\x00\x14"  # P2WPKH: the CHECKSIG returns false
    bad[first_witness] = (value + 1, spk)
    assert fullverify.check_block(block, bad, 928816, "testnet3") == (
        "block-script-verify-flag-failed "
        "(Script evaluated without error but finished with a false/empty top stack element)"
    )
    bad[first_witness] = (value - 1, spk)
    assert fullverify.check_block(block, bad, 928816, "testnet3") == "bad-cb-amount"
    # Every input worth nothing: the first transaction spends less than it creates.
    zero = [(0, s) for _, s in spent]
    assert fullverify.check_block(block, zero, 928816, "testnet3") == "bad-txns-in-belowout"
    # One block lower, transactions locked to height 928815 are not final yet (checked before
    # the coinbase's BIP34 height); two blocks higher the BIP34 height push no longer matches.
    assert any(tx.locktime == 928815 for tx in parsed.transactions)
    assert fullverify.check_block(block, spent, 928815, "testnet3") == "bad-txns-nonfinal"
    assert fullverify.check_block(block, spent, 928818, "testnet3") == "bad-cb-height"


def test_check_block_spent_output_forms(testnet3_928816: tuple[bytes, list[tuple[int, bytes]]]) -> None:
    block, spent = testnet3_928816
    as_dicts: list[dict[str, Any]] = [{"amount": v, "script_pubkey": s} for v, s in spent]
    assert fullverify.check_block(block, as_dicts, 928816, "testnet3") is None
    # A coinbase coin created one block earlier is not mature.
    immature: list[tuple[int, bytes, int, bool]] = [(v, s, 928815, False) for v, s in spent]
    assert fullverify.check_block(block, immature, 928816, "testnet3") is None
    immature[0] = (spent[0][0], spent[0][1], 928815, True)
    assert fullverify.check_block(block, immature, 928816, "testnet3") == "bad-txns-premature-spend-of-coinbase"


def test_check_block_argument_errors(testnet3_928816: tuple[bytes, list[tuple[int, bytes]]]) -> None:
    block, spent = testnet3_928816
    with pytest.raises(fullverify.Error, match="spent-outputs-mismatch"):
        fullverify.check_block(block, spent[:-1], 928816, "testnet3")
    with pytest.raises(fullverify.Error, match="bad-block-decode"):
        fullverify.check_block(block[:-1], spent, 928816, "testnet3")
    with pytest.raises(fullverify.Error, match="unknown network"):
        fullverify.check_block(block, spent, 928816, "testnet5")
    with pytest.raises(fullverify.Error, match="unknown key"):
        fullverify.check_block(block, [{"value": 1, "script_pubkey": b""}], 928816, "testnet3")
    with pytest.raises(TypeError):
        fullverify.check_block(block, [(1,)], 928816, "testnet3")  # type: ignore[list-item]


def test_check_block_mainnet_866342(vectors: pathlib.Path) -> None:
    zstd = shutil.which("zstd")
    if zstd is None:
        pytest.skip("SKIP mainnet 866342: the zstd command is not installed")
    d = vectors / "blocks_with_prevouts"

    def unzstd(p: pathlib.Path) -> bytes:
        return subprocess.run([zstd, "-dc", str(p)], check=True, capture_output=True).stdout

    block = unzstd(d / "mainnet_866342.block.zst")
    entries = json.loads(unzstd(d / "mainnet_866342.spent_utxos.json.zst"))
    assert len(entries) == 7972
    spent: list[tuple[int, bytes, int, bool]] = [
        (
            e["txout"]["value"],
            bytes.fromhex(e["txout"]["script_pubkey"]),
            e["creation_height"],
            e["is_coinbase"],
        )
        for e in entries
    ]
    assert fullverify.check_block(block, spent, 866342) is None

    def with_amount(k: int, delta: int) -> Union[str, None]:
        bad = list(spent)
        v, s, h, cb = bad[k]
        bad[k] = (v + delta, s, h, cb)
        return fullverify.check_block(block, bad, 866342)

    def first(prefix: str) -> int:
        return next(k for k, c in enumerate(spent) if c[1].startswith(bytes.fromhex(prefix)))

    # Segwit v0 and taproot signatures commit to the amount: one satoshi more fails the script.
    # A legacy signature does not, so a P2PKH input worth more is still valid.
    p2wpkh, p2tr, p2pkh = first("0014"), first("5120"), first("76a914")
    for k in (p2wpkh, p2tr):
        reason = with_amount(k, 1)
        assert reason is not None and reason.startswith("block-script-verify-flag-failed ("), reason
    assert with_amount(p2pkh, 1) is None
    # One satoshi less: the coinbase claims every fee, so it now claims too much (checked
    # before any script, as in Core).
    assert with_amount(p2tr, -1) == "bad-cb-amount"
    assert with_amount(p2pkh, -spent[p2pkh][0]) == "bad-txns-in-belowout"


# ---- replay ----


def utxo_set_after(blocks: list[bytes]) -> dict[tuple[bytes, int], tuple[int, bytes, int, bool]]:
    """The UTXO set after connecting `blocks` from genesis: outpoint -> (value, spk, height,
    coinbase). The genesis output is not spendable, as in Core."""
    utxos: dict[tuple[bytes, int], tuple[int, bytes, int, bool]] = {}
    for height, raw in enumerate(blocks):
        if height == 0:
            continue
        for tx in fullverify.Block.parse(raw).transactions:
            if not tx.is_coinbase:
                for inp in tx.inputs:
                    del utxos[(inp["prevout_txid"], inp["prevout_vout"])]
            for vout, (value, spk) in enumerate(tx.outputs):
                if spk[:1] != b"\x6a" and len(spk) <= 10_000:
                    utxos[(tx.txid, vout)] = (value, spk, height, tx.is_coinbase)
    return utxos


def oracle_muhash(utxos: dict[tuple[bytes, int], tuple[int, bytes, int, bool]]) -> str:
    """Core's `gettxoutsetinfo muhash` of a UTXO set, with the pure-Python oracle."""
    m = OracleMuHash()
    for (txid, vout), (value, spk, height, coinbase) in utxos.items():
        ser = (
            txid
            + struct.pack("<I", vout)
            + struct.pack("<I", height * 2 + int(coinbase))
            + struct.pack("<q", value)
            + compact_size(len(spk))
            + spk
        )
        m.insert(ser)
    digest: bytes = m.finalize()
    return digest[::-1].hex()


def test_replay_mainnet_0_438(vectors: pathlib.Path) -> None:
    source = vectors / "chain" / "mainnet_0-438.blk.dat"
    blocks = framed_blocks(source.read_bytes())
    assert len(blocks) == 439
    r = fullverify.replay(str(source), threads=2)
    assert r["error"] is None
    assert r["network"] == "mainnet"
    assert r["height"] == 438
    assert r["blocks"] == 439
    assert r["utxo_count"] == 443
    assert r["total_amount"] == 2_190_000_000_000
    assert r["tip"] == fullverify.Block.parse(blocks[-1]).hash_hex
    # Seven transactions spend one coin each.
    assert r["inputs"] == 7
    assert r["wall_s"] > 0 and r["inputs_per_s"] >= 0
    utxos = utxo_set_after(blocks)
    assert len(utxos) == 443
    assert sum(v for v, _, _, _ in utxos.values()) == 2_190_000_000_000
    assert r["muhash"] == oracle_muhash(utxos)


def test_replay_stop_resume_and_hex(vectors: pathlib.Path, tmp_path: pathlib.Path) -> None:
    source = vectors / "chain" / "mainnet_0-438.blk.dat"
    blocks = framed_blocks(source.read_bytes())
    datadir = tmp_path / "state"
    first = fullverify.replay(source, stop_height=200, datadir=str(datadir), threads=1)
    assert (first["height"], first["blocks"], first["resumed_from_height"]) == (200, 201, None)
    assert first["muhash"] == oracle_muhash(utxo_set_after(blocks[:201]))
    # The rest, from a hex file of blocks 1..438 (a resumed state skips what it has).
    hex_file = tmp_path / "blocks.hex"
    hex_file.write_text("".join(b.hex() + "\n" for b in blocks[1:]))
    rest = fullverify.replay(hex_file, datadir=datadir, threads=1)
    assert (rest["height"], rest["blocks"], rest["resumed_from_height"]) == (438, 238, 200)
    whole = fullverify.replay(source, threads=1)
    for key in ("height", "tip", "utxo_count", "total_amount", "muhash"):
        assert rest[key] == whole[key], key


def test_replay_reports_an_invalid_block(vectors: pathlib.Path, tmp_path: pathlib.Path) -> None:
    blocks = framed_blocks((vectors / "chain" / "mainnet_0-438.blk.dat").read_bytes())
    # Block 170 (the first spend) with a flipped byte in its spending signature.
    b170 = bytearray(blocks[170])
    sig_at = b170.index(bytes.fromhex("47304402204e45"))
    b170[sig_at + 10] ^= 1
    path = tmp_path / "bad.blk"
    path.write_bytes(b"".join(MAINNET_MAGIC + struct.pack("<I", len(b)) + b for b in blocks[:170] + [bytes(b170)]))
    r = fullverify.replay(path, threads=1)
    # The merkle root commits to the transaction: the mutation is caught before the script.
    err: Union[dict[str, Any], None] = r["error"]
    assert err is not None
    assert (err["reason"], err["height"]) == ("bad-txnmrklroot", 170)
    assert r["height"] == 169


def test_replay_source_errors(tmp_path: pathlib.Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01\x02\x03 not a block file")
    with pytest.raises(fullverify.Error, match="neither framed"):
        fullverify.replay(junk)
    testnet = tmp_path / "testnet.blk"
    testnet.write_bytes(bytes.fromhex("0b110907") + bytes(4))
    with pytest.raises(fullverify.Error, match="framed testnet3 blocks, not mainnet"):
        fullverify.replay(testnet)
    with pytest.raises(fullverify.Error):
        fullverify.replay(tmp_path / "missing.blk")
