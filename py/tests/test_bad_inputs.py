# SPDX-License-Identifier: MIT OR Apache-2.0
"""Bad block files from Python: ``fullverify.replay`` and ``fullverify.SwiftPlan.open`` raise
``fullverify.Error`` with the ``replay`` binary's message (file name and byte offset), and a
skipped second copy of a block is listed in the result's ``notes``. The blocks are mainnet
0..10 from the vectors' framed file."""

import pathlib
import struct
from typing import Callable

import pytest

import fullverify

MAGIC = bytes.fromhex("f9beb4d9")


def blocks_0_10(vectors: pathlib.Path) -> list[bytes]:
    data = (vectors / "chain" / "mainnet_0-438.blk.dat").read_bytes()
    out: list[bytes] = []
    pos = 0
    while len(out) < 11:
        (n,) = struct.unpack_from("<I", data, pos + 4)
        out.append(data[pos + 8 : pos + 8 + n])
        pos += 8 + n
    return out


def frame(block: bytes) -> bytes:
    return MAGIC + struct.pack("<I", len(block)) + block


def write(path: pathlib.Path, parts: list[bytes]) -> list[int]:
    """Writes the parts one after the other; returns the offset of each."""
    offsets: list[int] = []
    pos = 0
    for p in parts:
        offsets.append(pos)
        pos += len(p)
    path.write_bytes(b"".join(parts))
    return offsets


def shown(block: bytes) -> str:
    return fullverify.Block.parse(block).hash_hex


Case = tuple[str, Callable[[list[bytes]], list[bytes]], int, Callable[[list[bytes]], str]]

# (name, the file's parts, the part the message points at, the message after "FILE at byte N: ")
CASES: list[Case] = [
    (
        "zero_length",
        lambda b: [frame(x) for x in b[:4]] + [MAGIC + bytes(4)] + [frame(x) for x in b[4:]],
        4,
        lambda b: "record length 0 is shorter than a block header (80 bytes)",
    ),
    (
        "two_gib",
        lambda b: [frame(x) for x in b[:4]] + [MAGIC + struct.pack("<I", 1 << 31)] + [frame(x) for x in b[4:]],
        4,
        lambda b: "record length 2147483648 is above 33554432 bytes, the most Core reads as one block (MAX_SIZE)",
    ),
    (
        "truncated",
        lambda b: [frame(x) for x in b[:10]] + [frame(b[10])[:50]],
        10,
        lambda b: f"truncated block record: 42 of {len(b[10])} bytes",
    ),
    (
        "garbage",
        lambda b: [frame(x) for x in b[:4]] + [b"garbage!"] + [frame(x) for x in b[4:]],
        4,
        lambda b: "expected network magic f9beb4d9, found 67617262",
    ),
    (
        "parent_later",
        lambda b: [frame(x) for x in b[:4]] + [frame(b[5]), frame(b[4])] + [frame(x) for x in b[6:]],
        4,
        lambda b: (
            f"block {shown(b[5])}: its parent {shown(b[4])} is not among the blocks read before it; a framed "
            "source must hold one chain in order (--source core-blocks rebuilds the order from the headers)"
        ),
    ),
]


@pytest.mark.parametrize("name,parts,at,message", CASES, ids=[c[0] for c in CASES])
def test_unreadable_framed_file_raises_with_file_and_offset(
    vectors: pathlib.Path,
    tmp_path: pathlib.Path,
    name: str,
    parts: Callable[[list[bytes]], list[bytes]],
    at: int,
    message: Callable[[list[bytes]], str],
) -> None:
    b = blocks_0_10(vectors)
    path = tmp_path / f"{name}.blk"
    offsets = write(path, parts(b))
    with pytest.raises(fullverify.Error) as e:
        fullverify.replay(path, threads=1)
    assert str(e.value) == f"{name}.blk at byte {offsets[at]}: {message(b)}"


def test_second_copy_of_a_block_is_skipped_and_noted(vectors: pathlib.Path, tmp_path: pathlib.Path) -> None:
    b = blocks_0_10(vectors)
    path = tmp_path / "copy.blk"
    offsets = write(path, [frame(x) for x in b[:6]] + [frame(b[5])] + [frame(x) for x in b[6:]])
    r = fullverify.replay(path, threads=1)
    assert r["error"] is None
    assert (r["height"], r["blocks"], r["utxo_count"]) == (10, 11, 10)
    assert r["notes"] == [
        f"copy.blk at byte {offsets[6]}: a second copy of block {shown(b[5])}; skipped, as Core skips a block "
        "it already has"
    ]


def test_wrong_xor_dat_size_raises(vectors: pathlib.Path, tmp_path: pathlib.Path) -> None:
    b = blocks_0_10(vectors)
    blocks = tmp_path / "blocks"
    blocks.mkdir()
    write(blocks / "blk00000.dat", [frame(x) for x in b])
    (blocks / "xor.dat").write_bytes(bytes(7))
    with pytest.raises(fullverify.Error) as e:
        fullverify.SwiftPlan.open(blocks)
    assert str(e.value) == "blocks/xor.dat at byte 0: 7 bytes, expected an 8-byte key"
