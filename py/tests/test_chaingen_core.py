# SPDX-License-Identifier: MIT OR Apache-2.0
"""Bitcoin Core (libbitcoinkernel, through py-bitcoinkernel) accepts every block of the `small`
chaingen corpus and ends at the manifest's tip; Core's UTXO count and total amount, recomputed
from its own stored blocks and undo data, equal the manifest's.

Skipped, with the reason, when the `pbk` module cannot be imported (its wheels are built for
CPython 3.11 on manylinux x86-64)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pbk = pytest.importorskip("pbk", reason="py-bitcoinkernel (module pbk) is not installed for this Python")


def test_core_accepts_the_small_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    env = dict(os.environ)
    subprocess.run(
        ["cargo", "run", "--release", "-q", "-p", "fullverify-experiments", "--bin", "chaingen", "--",
         "--profile", "small", "--out", str(corpus)],
        cwd=ROOT, check=True, env=env,
    )
    manifest = json.loads((corpus / "manifest.json").read_text())
    files = sorted(corpus.glob("blk*.dat"))
    assert files
    datadir = tmp_path / "core"
    chainman = pbk.load_chainman(datadir, pbk.ChainType.REGTEST)
    chainman.import_blocks(files)
    chain = chainman.get_active_chain()
    # Every block was connected: the active chain reaches the corpus tip.
    assert chain.height == manifest["tip_height"]
    assert str(chainman.best_entry.block_hash) == manifest["tip"]
    count = total = 0
    for h in range(1, chain.height + 1):
        entry = chain.block_tree_entries[h]
        for tx in chainman.blocks[entry].transactions:
            for out in tx.outputs:
                spk = bytes(out.script_pubkey)
                if spk[:1] != b"\x6a":
                    count += 1
                    total += out.amount
        for txs in chainman.block_spent_outputs[entry].transactions:
            for coin in txs.coins:
                count -= 1
                total -= coin.output.amount
    assert count == manifest["expected_state"]["utxo_count"]
    assert total == manifest["expected_state"]["total_amount"]
