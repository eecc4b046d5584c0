# SPDX-License-Identifier: MIT OR Apache-2.0
"""fullverify.swiftsync: SwiftSync from Python, in this process and on a Dask LocalCluster.

The small chaingen corpus is replayed once by the ``replay`` binary, which writes its hints file
and a Core-shaped blocks directory and reports the sequential state; every run here must reach
that state (count, total, MuHash): on 1, 2 and 3 threads, with ranges shuffled, with the blocks
read from the directory or sent as bundles, through Dask with two worker processes, and after a
worker process is killed in the middle of the run. Tampered hints end in the mismatch, a
failing range task fails the run with its error, and the command line gives replay's exit codes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from fullverify import Error, SwiftPlan, swiftsync

REPO = Path(__file__).resolve().parents[2]


def cargo_run(*args: str) -> None:
    subprocess.run(
        ["cargo", "run", "--release", "-q", "-p", "fullverify-experiments", "--bin", *args], cwd=REPO, check=True
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Path, Path, Dict[str, Any]]:
    """The small corpus's blocks directory and hints, and the sequential replay's state."""
    root = tmp_path_factory.mktemp("swiftsync")
    corpus = root / "small"
    cargo_run("chaingen", "--", "--profile", "small", "--out", str(corpus))
    packet = root / "replay.json"
    cargo_run(
        "replay", "--", "--source", "corpus", str(corpus), "--network", "regtest",
        "--write-hints", str(root / "hints"), "--write-blocks", str(root / "blocks"), "--json", str(packet),
    )
    state = json.loads(packet.read_text())["state"]
    return root / "blocks", root / "hints", state


SCHEMA = json.loads((REPO / "results" / "schema" / "swiftsync.schema.json").read_text())


def same_state(packet: Dict[str, Any], state: Dict[str, Any]) -> None:
    import jsonschema

    jsonschema.validate({k: v for k, v in packet.items() if k != "path"}, SCHEMA)
    assert packet.get("error") is None, packet.get("error")
    assert packet["aggregate"] == {"checked": True, "balanced": True}
    got = packet["state"]
    for k in ("height", "tip", "utxo_count", "total_amount", "muhash"):
        assert got[k] == state[k], k


def test_in_process_equals_sequential_for_1_2_3_threads_shuffled_and_bundled(
    written: Tuple[Path, Path, Dict[str, Any]],
) -> None:
    blocks, hints, state = written
    for threads in (1, 2, 3):
        for kw in ({}, {"order": threads, "range_blocks": 7}, {"transfer": "bytes", "ranges": 5}):
            p = swiftsync.run(blocks, hints, "regtest", threads=threads, **kw)
            same_state(p, state)
            assert p["engine"] == {"kind": "threads", "workers": threads, "driver": "python"}
            assert p["metrics"]["blocks"] == state["height"] + 1
    # Ranges as pairs must cover every height once.
    p = swiftsync.run(blocks, hints, "regtest", ranges=[(100, 200), (0, 99)], threads=2)
    same_state(p, state)
    assert sorted((r["first_height"], r["last_height"]) for r in p["ranges"]) == [(0, 99), (100, 200)]
    for bad in ([(0, 99)], [(0, 120), (100, 200)], [(1, 200)]):
        with pytest.raises(ValueError, match="cover heights"):
            swiftsync.run(blocks, hints, "regtest", ranges=bad, threads=1)


def test_plan_pieces_and_their_errors(written: Tuple[Path, Path, Dict[str, Any]]) -> None:
    blocks, hints, state = written
    plan = SwiftPlan.open(blocks, "regtest")
    assert (plan.blocks, plan.tip_height, plan.tip_hash) == (201, 200, state["tip"])
    assert plan.header_error is None
    assert plan.ranges(50) == [(0, 49), (50, 99), (100, 149), (150, 199), (200, 200)]
    data = plan.to_bytes()
    again = SwiftPlan.from_bytes(data, blocks)
    assert (again.blocks, again.tip_hash) == (plan.blocks, plan.tip_hash)
    with pytest.raises(Error, match="plan"):
        SwiftPlan.from_bytes(data[:-1], blocks)
    salt = bytes(range(32))
    h = hints.read_bytes()
    out = again.validate_range(h, salt, 0, 99)
    st = SwiftPlan.result_stats(out)
    assert (st["first_height"], st["last_height"], st["blocks"]) == (0, 99, 100)
    assert st["invalid"] is False and st["mismatch"] is False and st["source_error"] is None
    counts = ("first_height", "last_height", "blocks", "txs", "inputs", "bytes_read", "undo_bytes")
    assert all(type(st[k]) is int for k in counts) and isinstance(st["wall_s"], float)
    assert st["txs"] >= st["blocks"] and st["bytes_read"] > 80 * st["blocks"] and st["wall_s"] > 0
    bundled = SwiftPlan.from_bytes(data).validate_range(h, salt, 0, 99, bundle=plan.bundle(0, 99))
    assert SwiftPlan.result_stats(bundled)["inputs"] == st["inputs"]
    with pytest.raises(Error, match="salt"):
        again.validate_range(h, b"short", 0, 1)
    with pytest.raises(Error, match="bundle"):
        SwiftPlan.from_bytes(data).validate_range(h, salt, 0, 5)
    with pytest.raises(Error, match="record count does not match the height"):
        plan.check_hints(h[:5] + (150).to_bytes(4, "little") + h[9:])
    with pytest.raises(Error):
        SwiftPlan.open(blocks / "nowhere", "regtest")


def test_a_flipped_hint_is_the_mismatch_never_a_state(
    written: Tuple[Path, Path, Dict[str, Any]], tmp_path: Path
) -> None:
    blocks, hints, _ = written
    data = bytearray(hints.read_bytes())
    data[len(data) // 2] ^= 0x04
    bad = tmp_path / "hints"
    bad.write_bytes(bytes(data))
    try:
        p = swiftsync.run(blocks, bad, "regtest", threads=2)
    except Error as e:  # the flip broke the file's structure: refused before any range
        assert "hints" in str(e)
        return
    assert p["state"] is None
    assert p["error"]["kind"] in ("swiftsync-mismatch", "invalid-block"), p["error"]
    assert p["aggregate"]["balanced"] is False or p["error"]["kind"] == "invalid-block"


# ---- Dask --------------------------------------------------------------------------------

distributed = pytest.importorskip("distributed", reason="dask[distributed] is the cluster extra")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def test_dask_two_worker_processes_equal_sequential_by_path_and_by_bytes(
    written: Tuple[Path, Path, Dict[str, Any]], client: Any, tmp_path: Path
) -> None:
    blocks, hints, state = written
    for transfer in ("path", "bytes"):
        p = swiftsync.run(blocks, hints, "regtest", client, transfer=transfer, order=11, results_dir=tmp_path)
        same_state(p, state)
        e = p["engine"]
        assert (e["kind"], e["workers"], e["threads"], e["transfer"]) == ("dask", 2, 2, transfer)
        assert e["worker_processes_used"] == 2
        assert e["overhead"]["native_s"] > 0 and e["overhead"]["fraction"] >= 0
        moved = e["bytes_moved"]["to_workers"]
        if transfer == "bytes":
            assert moved > p["bytes_read"]["blocks"]
        else:
            assert moved == e["bytes_moved"]["plan"]
        assert Path(p["path"]).parent == tmp_path / "swiftsync"
        assert json.loads(Path(p["path"]).read_text())["state"] == p["state"]


def test_the_corpus_directory_itself_in_process_and_through_dask(
    written: Tuple[Path, Path, Dict[str, Any]], client: Any, tmp_path: Path
) -> None:
    """chaingen writes each block's undo data beside it: the corpus is read as it is, the
    network's genesis block in front, here and by the workers (through the plan's bytes)."""
    blocks, hints, state = written
    corpus = blocks.parent / "small"
    for c, transfer in ((None, "bytes"), (client, "path")):
        p = swiftsync.run(corpus, hints, "regtest", c, transfer=transfer, order=3, results_dir=tmp_path)
        same_state(p, state)
        assert (p["source"]["kind"], p["params"]["source_kind"]) == ("corpus", "corpus")
        assert p["metrics"]["blocks"] == state["height"] + 1


def test_dask_worker_killed_mid_run_is_retried_to_the_same_state(
    written: Tuple[Path, Path, Dict[str, Any]], client: Any
) -> None:
    blocks, hints, state = written
    pids: Dict[str, int] = client.run(os.getpid)
    killed: List[int] = []

    def kill_one(stats: Dict[str, Any]) -> None:
        if not killed:
            pid = sorted(pids.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    p = swiftsync.run(blocks, hints, "regtest", client, range_blocks=4, on_range=kill_one)
    assert killed, "no worker was killed"
    same_state(p, state)
    assert len(p["ranges"]) == 51
    client.wait_for_workers(2, timeout=60)


def test_dask_failed_range_fails_the_run_with_its_error(
    written: Tuple[Path, Path, Dict[str, Any]], client: Any, tmp_path: Path
) -> None:
    blocks, hints, _ = written
    with pytest.raises(swiftsync.SwiftSyncError, match=r"range \d+\.\.\d+ failed: .*backend"):
        swiftsync.run(blocks, hints, "regtest", client, backend="no-such-backend")
    # Workers that cannot read the blocks: a source error in the packet, no state.
    p = swiftsync.run(blocks, hints, "regtest", client, worker_blocks_dir=tmp_path / "empty")
    assert p["state"] is None and p["error"]["kind"] == "source", p["error"]


def test_command_line_local_cluster_and_exit_codes(
    written: Tuple[Path, Path, Dict[str, Any]], tmp_path: Path
) -> None:
    blocks, hints, state = written
    cmd = [sys.executable, "-m", "fullverify.swiftsync", "--blocks", str(blocks), "--hints", str(hints),
           "--network", "regtest", "--out", str(tmp_path), "--no-progress"]
    r = subprocess.run(cmd + ["--local-workers", "2"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "engine: dask (2 workers, 2 threads)" in r.stdout
    assert f"{state['utxo_count']} coins" in r.stdout
    packets = list((tmp_path / "swiftsync").glob("*.json"))
    assert len(packets) == 1
    assert json.loads(packets[0].read_text())["state"]["muhash"] == state["muhash"]
    # A tampered undo record: the mismatch, exit 1.
    bad = tmp_path / "bad"
    shutil.copytree(blocks, bad)
    rev = bad / "rev00000.dat"
    b = bytearray(rev.read_bytes())
    b[len(b) // 2] ^= 0x10
    rev.write_bytes(bytes(b))
    r = subprocess.run(cmd[:4] + [str(bad)] + cmd[5:] + ["--threads", "2"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "the hints or the undo data do not match the chain" in r.stdout
    r = subprocess.run(cmd[:4] + [str(tmp_path / "none")] + cmd[5:], capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, (r.stdout, r.stderr)
