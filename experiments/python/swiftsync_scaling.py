# SPDX-License-Identifier: MIT OR Apache-2.0
"""SwiftSync scaling campaign: the same chain through every engine, interleaved.

Arms (each run once per round, in a rotated order, so drift hits every arm alike):

- ``sequential-N``: ``replay --source core-blocks`` on N threads (the ordinary replay);
- ``threads-N``: ``replay --mode swiftsync`` on N threads (the native engine);
- ``dask-W``: ``fullverify.swiftsync.run`` on a Dask ``LocalCluster`` of W worker processes
  with one thread each, the workers reading the blocks directory (``transfer="path"``);
- ``dask-W-bytes``: the same with the client sending each range's blocks (``transfer="bytes"``).

Every arm must reach the same state (count, total, MuHash); the packet
(``results/swiftsync-scaling/<run-id>.json``) has each arm's inputs/s (median and 95 %
interval over rounds), the paired ratios the bars are about (``dask-2`` over ``dask-1``,
``threads-N`` over ``sequential-N``), Dask's overhead fractions, the bytes moved, and the
per-range costs the scaling model in docs/SWIFTSYNC.md is fed with.

    python experiments/python/swiftsync_scaling.py --profile default --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import packet  # noqa: E402

from fullverify import swiftsync  # noqa: E402

ROOT = packet.ROOT


def cargo_bin(name: str) -> Path:
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "fullverify-experiments", "--bin", name],
                   cwd=ROOT, check=True)
    meta = json.loads(subprocess.run(["cargo", "metadata", "-q", "--format-version", "1", "--no-deps"],
                                     cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    return Path(meta["target_directory"]) / "release" / name


def prepare(profile: str, work: Path, replay: Path) -> tuple[Path, Path, Dict[str, Any]]:
    """The profile's corpus as a Core blocks directory and its hints, from one replay."""
    chaingen = cargo_bin("chaingen")
    corpus = work / profile
    subprocess.run([str(chaingen), "--profile", profile, "--out", str(corpus)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = work / "written.json"
    subprocess.run([str(replay), "--source", "corpus", str(corpus), "--network", "regtest", "--write-hints",
                    str(work / "hints"), "--write-blocks", str(work / "blocks"), "--json", str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    return work / "blocks", work / "hints", json.loads(out.read_text())["state"]


def replay_arm(replay: Path, blocks: Path, hints: Path, threads: int, swift: bool, work: Path) -> Callable[[], Dict[str, Any]]:
    def go() -> Dict[str, Any]:
        out = work / "arm.json"
        cmd = [str(replay), "--source", "core-blocks", str(blocks), "--network", "regtest", "--threads", str(threads),
               "--json", str(out)]
        if swift:
            cmd += ["--mode", "swiftsync", "--hints", str(hints)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p: Dict[str, Any] = json.loads(out.read_text())
        return p
    return go


def dask_arm(client: Any, blocks: Path, hints: Path, transfer: str) -> Callable[[], Dict[str, Any]]:
    def go() -> Dict[str, Any]:
        return swiftsync.run(blocks, hints, "regtest", client, transfer=transfer)
    return go


def summary(p: Dict[str, Any]) -> Dict[str, Any]:
    m = p["metrics"]
    s: Dict[str, Any] = {"wall_s": m["wall_s"], "inputs": m["inputs"], "inputs_per_s": m["inputs_per_s"]}
    if p.get("experiment") == "swiftsync":
        s["ranges"] = len(p["ranges"])
        s["range_wall_s"] = [r["wall_s"] for r in p["ranges"]]
        s["phases"] = p["phases"]
        e = p["engine"]
        if e["kind"] == "dask":
            s["overhead"] = e["overhead"]
            s["bytes_moved"] = e["bytes_moved"]
            s["client_s"] = e["client_s"]
    return s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="default", help="chaingen profile (small, default, large, ...)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-bytes", action="store_true", help="skip the transfer=bytes arms")
    ap.add_argument("--out", type=Path, default=ROOT / "results")
    a = ap.parse_args()
    import distributed

    dist: Any = distributed
    replay = cargo_bin("replay")
    work = Path(tempfile.mkdtemp(prefix="fv-swiftsync-scaling-"))
    blocks, hints, state = prepare(a.profile, work, replay)
    clusters = {w: dist.LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None,
                                     silence_logs=40) for w in a.workers}
    clients = {w: dist.Client(c) for w, c in clusters.items()}
    arms: Dict[str, Callable[[], Dict[str, Any]]] = {}
    for t in sorted({1, max(a.workers)}):
        arms[f"sequential-{t}"] = replay_arm(replay, blocks, hints, t, False, work)
        arms[f"threads-{t}"] = replay_arm(replay, blocks, hints, t, True, work)
    for w, c in clients.items():
        arms[f"dask-{w}"] = dask_arm(c, blocks, hints, "path")
        if not a.no_bytes:
            arms[f"dask-{w}-bytes"] = dask_arm(c, blocks, hints, "bytes")
    names = list(arms)
    runs: Dict[str, List[Dict[str, Any]]] = {n: [] for n in names}
    for n in names:  # one warm-up each: caches, worker imports, plan caches of a first run
        arms[n]()
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            p = arms[n]()
            st = p["state"]
            for k in ("utxo_count", "total_amount", "muhash"):
                if st is None or st[k] != state[k]:
                    raise SystemExit(f"{n}: state differs from the written replay's ({k})")
            runs[n].append(summary(p))
            print(f"round {r + 1} {n}: {runs[n][-1]['inputs_per_s']:,.0f} inputs/s", file=sys.stderr)
    for c in clients.values():
        c.close()
    for cl in clusters.values():
        cl.close()

    def ratio(a_: str, b_: str) -> Dict[str, Any]:
        xs = [x["inputs_per_s"] / y["inputs_per_s"] for x, y in zip(runs[a_], runs[b_])]
        return {"of": a_, "over": b_, **packet.stats(xs)}

    arms_out = {n: {"inputs_per_s": packet.stats([x["inputs_per_s"] for x in v]),
                    "wall_s": packet.stats([x["wall_s"] for x in v]), "runs": v} for n, v in runs.items()}
    ratios = []
    top = max(a.workers)
    if 1 in a.workers and top > 1:
        ratios.append(ratio(f"dask-{top}", "dask-1"))
        if not a.no_bytes:
            ratios.append(ratio(f"dask-{top}-bytes", f"dask-{top}"))
    for t in sorted({1, top}):
        ratios.append(ratio(f"threads-{t}", f"sequential-{t}"))
    ratios.append(ratio(f"dask-{top}", f"threads-{top}"))
    overhead = {n: statistics.median(x["overhead"]["fraction"] for x in v) for n, v in runs.items() if "overhead" in v[0]}
    pk = packet.packet("swiftsync-scaling", fullverify_backend(), {
        "profile": a.profile, "rounds": a.rounds, "workers": a.workers, "network": "regtest",
        "threads_per_worker": 1, "arms": names,
    }, {"state": state, "ratios": ratios, "overhead_fraction_median": overhead})
    pk["arms_detail"] = arms_out
    path = packet.write(pk, a.out)
    for r_ in ratios:
        print(f"{r_['of']} / {r_['over']}: median {r_['median']:.2f}x (95 % {r_['median_ci95'][0]:.2f}-"
              f"{r_['median_ci95'][1]:.2f})")
    for n, f in overhead.items():
        print(f"{n}: Dask overhead {100 * f:.1f} % of the ranges' time")
    print(f"packet: {path}")
    return 0


def fullverify_backend() -> str:
    import fullverify

    return str(fullverify.backend())


if __name__ == "__main__":
    sys.exit(main())
