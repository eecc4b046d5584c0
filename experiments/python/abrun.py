# SPDX-License-Identifier: MIT OR Apache-2.0
"""abrun: an A/B campaign of two replay configurations, run as interleaved pairs.

Each arm is a replay binary and its arguments (different --threads, --backend,
--batch-schnorr, or two binaries built differently, e.g. with --features mimalloc). The
campaign runs N pairs (default 5, at least 3); pair i runs control then candidate when i is
even and candidate then control when i is odd, so neither arm always runs first. Every run
writes its own replay packet (replay --json) into a scratch folder; abrun reads the
resources, rates and final state from it.

Load. Before every run abrun sleeps --settle seconds and measures the CPU time other
processes used in that window (from /proc/stat: busy jiffies, in CPUs); during the run it
measures the machine's busy CPU time minus the run's own (the child's rusage), divided by the
run's wall time. A run is *disturbed* when either exceeds --load-threshold CPUs (default:
logical CPUs x 0.5). The 1-, 5- and 15-minute load averages before and after each run are
recorded too, but do not decide: the 1-minute average right after a run still carries most of
that run's own load. A campaign with a disturbed run is flagged in the packet; with --strict
it is refused (exit 4, no packet). --wait-quiet S retries the settle window for up to S
seconds until it is quiet.

Final state. All runs of both arms must reach the same final state: for chain sources
state.{tip, height, utxo_count, total_amount, muhash}; for --source block the block's
{hash, height, txs, inputs, fees, sigops_cost} and no error. The packet records the check; a
difference exits 1 (the packet is still written, marked).

Statistics per arm: medians of wall, user CPU, system CPU, mean cores used
((user+sys)/wall), peak RSS and inputs/s, from the replay packets. The speed-up is
median(control wall) / median(candidate wall) (> 1: the candidate is faster) with a seeded
95 % percentile-bootstrap interval that resamples *pairs* (stats.py).

Writes <out>/abrun/<run-id>.json (schema: results/schema/abrun.schema.json) and prints its path
on stdout (progress goes to stderr).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import packet as pk  # noqa: E402
import stats  # noqa: E402

ROOT = pk.ROOT
EXIT_STATE_DIFFERS = 1
EXIT_USAGE = 2
EXIT_RUN_FAILED = 3
EXIT_DISTURBED = 4
RESERVED = ("--json", "--quiet")


@dataclass
class Arm:
    role: str  # control | candidate
    label: str
    binary: Path
    args: list[str]

    @staticmethod
    def parse(role: str, spec: str) -> "Arm":
        parts = spec.split("::", 2)
        if len(parts) < 2 or not parts[0] or not parts[1]:
            raise ValueError(f"--{role} {spec!r}: expected LABEL::BINARY[::ARGS]")
        label, binary = parts[0], parts[1]
        args = shlex.split(parts[2]) if len(parts) == 3 else []
        for a in args:
            if a.split("=", 1)[0] in RESERVED:
                raise ValueError(f"--{role}: {a} is set by abrun")
        path = Path(binary)
        if not path.is_absolute():
            path = (ROOT / path) if (ROOT / path).exists() else Path.cwd() / path
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ValueError(f"--{role}: {binary}: not an executable file")
        return Arm(role, label, path, args)


def display_path(p: Path) -> str:
    """Relative to the repository when inside it, else the file name only."""
    try:
        return str(p.resolve().relative_to(ROOT))
    except ValueError:
        return p.name


def sha256_file(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def loadavg() -> list[float]:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def busy_cpu_seconds() -> float | None:
    """Machine-wide busy CPU time (user, nice, system, irq, softirq) in seconds."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    v = [int(x) for x in first[1:8]]
    user, nice, system, _idle, _iowait, irq, softirq = v
    return (user + nice + system + irq + softirq) / CLK_TCK


def settle(seconds: float) -> float | None:
    """Sleeps `seconds` and returns the CPUs other processes kept busy meanwhile."""
    b0, t0 = busy_cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    b1, t1 = busy_cpu_seconds(), time.monotonic()
    if b0 is None or b1 is None:
        return None
    return max(0.0, (b1 - b0) / (t1 - t0))


def final_state(p: dict[str, Any]) -> dict[str, Any]:
    if "error" in p:
        return {"error": p["error"].get("kind"), "message": p["error"].get("message")}
    if p.get("source", {}).get("kind") == "block":
        b = p["block"]
        return {k: b[k] for k in ("hash", "height", "txs", "inputs", "fees", "sigops_cost")}
    s = p["state"]
    return {k: s[k] for k in ("height", "tip", "utxo_count", "total_amount", "muhash")}


def run_once(arm: Arm, scratch: Path, tag: str, a: argparse.Namespace, threshold: float) -> dict[str, Any]:
    out = scratch / f"{tag}.json"
    cmd = [str(arm.binary), *arm.args, "--quiet", "--json", str(out)]
    deadline = time.monotonic() + a.wait_quiet
    while True:
        before = loadavg()
        foreign_before = settle(a.settle)
        if foreign_before is None or foreign_before <= threshold or time.monotonic() >= deadline:
            break
    b0 = busy_cpu_seconds()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    b1 = busy_cpu_seconds()
    after = loadavg()
    if proc.returncode != 0 or not out.is_file():
        sys.stderr.write(err.decode(errors="replace"))
        raise RuntimeError(f"{arm.label} ({tag}) exited with {proc.returncode}: {shlex.join(cmd)}")
    own = ru.ru_utime + ru.ru_stime
    foreign_during = None if b0 is None or b1 is None else max(0.0, (b1 - b0 - own) / wall)
    p = json.loads(out.read_text())
    r = p["resources"]
    disturbed = any(x is not None and x > threshold for x in (foreign_before, foreign_during))
    return {
        "tag": tag,
        "run_id": p["run_id"],
        "wall_s": r["wall_s"],
        "user_s": r["user_s"],
        "sys_s": r["sys_s"],
        "cores": (r["user_s"] + r["sys_s"]) / r["wall_s"] if r["wall_s"] > 0 else 0.0,
        "peak_rss_bytes": r["peak_rss_bytes"],
        "inputs": p["metrics"]["inputs"],
        "inputs_per_s": p["metrics"]["inputs_per_s"],
        "process": {"wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime},
        "load": {
            "loadavg_before": before,
            "loadavg_after": after,
            "foreign_cpus_before": foreign_before,
            "foreign_cpus_during": foreign_during,
            "disturbed": disturbed,
        },
        "final_state": final_state(p),
        # Where the host put the vCPUs, as the packet measured it (absent with one CPU).
        "core_to_core_ns": p.get("cpu", {}).get("core_to_core_ns"),
        "_packet": p,
    }


def arm_summary(arm: Arm, runs: list[dict[str, Any]]) -> dict[str, Any]:
    p = runs[0]["_packet"]
    keys = ("wall_s", "user_s", "sys_s", "cores", "peak_rss_bytes", "inputs_per_s")
    return {
        "label": arm.label,
        "binary": {
            "path": display_path(arm.binary),
            "sha256": sha256_file(arm.binary),
            "allocator": p.get("allocator", "system"),
            "rustflags": p.get("binary", {}).get("rustflags", ""),
            "rustc": p.get("rustc"),
            "profile": p.get("profile"),
            "git_rev": p.get("git_rev"),
            "dirty": p.get("dirty"),
        },
        "args": arm.args,
        "backend": p["backend"],
        "threads": p["threads"],
        "batch_schnorr": bool(p.get("params", {}).get("batch_schnorr", False)),
        "medians": {k: stats.median([float(r[k]) for r in runs]) for k in keys},
        "n": len(runs),
        "runs": [{k: v for k, v in r.items() if k != "_packet"} for r in runs],
    }


def source_of(p: dict[str, Any]) -> dict[str, Any]:
    src = p.get("source", {})
    out: dict[str, Any] = {k: src.get(k) for k in ("kind", "path", "sha256", "blocks_read")}
    if "spent" in src:
        out["spent"] = {k: src["spent"].get(k) for k in ("path", "format", "sha256")}
    if "corpus" in p:
        c = p["corpus"]
        out["corpus"] = {k: c.get(k) for k in ("generator", "profile", "seed", "format_version",
                                                "tip_height", "sha256", "state_matches_manifest")}
    out["stop_height"] = p.get("params", {}).get("stop_height")
    out["network"] = p.get("params", {}).get("network")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="abrun.py",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""arms: LABEL::BINARY::ARGS, e.g.
  --control   "system::target/abrun-bin/replay-system::--threads 2"
  --candidate "mimalloc::target/abrun-bin/replay-mimalloc::--threads 2"
BINARY is relative to the repository root (or absolute); ARGS are split like a shell does and
passed to the binary, which runs in the repository root (so ../shared/vectors/... works);
abrun adds --quiet --json. Both arms see the same source: pass it in both ARGS.

load: a run is disturbed when other processes kept more than --load-threshold CPUs busy in the
settle window before it, or during it (machine busy time minus the run's own CPU time, per
second of its wall time), from /proc/stat. 1-minute load averages are recorded, not judged.

exit codes: 0 done; 1 the arms reached different final states (packet written, marked);
2 usage; 3 a run failed; 4 --strict and a run was disturbed (no packet).""",
    )
    ap.add_argument("--name", required=True, help="campaign name (recorded; e.g. alloc-corpus)")
    ap.add_argument("--control", required=True, metavar="LABEL::BINARY::ARGS")
    ap.add_argument("--candidate", required=True, metavar="LABEL::BINARY::ARGS")
    ap.add_argument("--pairs", type=int, default=5, help="interleaved pairs, >= 3 (default 5)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="unrecorded runs of each arm before the pairs (default 1)")
    ap.add_argument("--out", type=Path, default=None,
                    help="results folder (default $FULLVERIFY_RESULTS or results/); writes <out>/abrun/")
    ap.add_argument("--scratch", type=Path, default=None,
                    help="folder for the runs' replay packets (default: a temporary folder, removed)")
    ap.add_argument("--load-threshold", type=float, default=None,
                    help="CPUs of other load that make a run disturbed (default logical CPUs x 0.5)")
    ap.add_argument("--settle", type=float, default=1.0, help="seconds of idle measurement before each run")
    ap.add_argument("--wait-quiet", type=float, default=0.0,
                    help="retry the settle window up to this many seconds until it is quiet (default 0)")
    ap.add_argument("--strict", action="store_true", help="refuse a campaign with a disturbed run")
    ap.add_argument("--resamples", type=int, default=stats.DEFAULT_RESAMPLES)
    ap.add_argument("--seed", type=int, default=stats.DEFAULT_SEED)
    ap.add_argument("--note", default="", help="free text recorded in the packet")
    a = ap.parse_args(argv)
    if a.pairs < 3:
        ap.error("--pairs must be at least 3")
    if a.warmup < 0 or a.settle < 0 or a.wait_quiet < 0:
        ap.error("--warmup, --settle and --wait-quiet must be >= 0")
    try:
        arms = [Arm.parse("control", a.control), Arm.parse("candidate", a.candidate)]
    except ValueError as e:
        ap.error(str(e))
    cpus = os.cpu_count() or 1
    threshold = a.load_threshold if a.load_threshold is not None else cpus * 0.5

    scratch_tmp = None
    if a.scratch is None:
        scratch_tmp = tempfile.mkdtemp(prefix="abrun-")
        scratch = Path(scratch_tmp)
    else:
        scratch = a.scratch
        scratch.mkdir(parents=True, exist_ok=True)
    try:
        runs: dict[str, list[dict[str, Any]]] = {"control": [], "candidate": []}
        order: list[str] = []
        for w in range(a.warmup):
            for arm in arms:
                run_once(arm, scratch, f"warmup{w}-{arm.role}", a, threshold)
                print(f"abrun {a.name}: warm-up {arm.label} done", file=sys.stderr)
        for i in range(a.pairs):
            seq = arms if i % 2 == 0 else arms[::-1]
            order.append("".join("A" if x.role == "control" else "B" for x in seq))
            for pos, arm in enumerate(seq):
                r = run_once(arm, scratch, f"pair{i}-{arm.role}", a, threshold)
                r["pair"], r["position"] = i, pos
                runs[arm.role].append(r)
                flag = " DISTURBED" if r["load"]["disturbed"] else ""
                ld = r["load"]
                c2c = "n/a" if r["core_to_core_ns"] is None else f"{r['core_to_core_ns']:.0f} ns"
                print(f"abrun {a.name}: pair {i} {arm.label}: {r['wall_s']:.3f} s wall, "
                      f"{r['inputs_per_s']:.0f} inputs/s; other load before {ld['foreign_cpus_before'] or 0:.2f}, "
                      f"during {ld['foreign_cpus_during'] or 0:.2f} CPUs; core-to-core {c2c}{flag}", file=sys.stderr)
                if a.strict and r["load"]["disturbed"]:
                    print(f"abrun {a.name}: --strict: run disturbed by other load (threshold {threshold} CPUs); "
                          "no packet written", file=sys.stderr)
                    return EXIT_DISTURBED
    except RuntimeError as e:
        print(f"abrun {a.name}: {e}", file=sys.stderr)
        return EXIT_RUN_FAILED
    finally:
        if scratch_tmp is not None:
            shutil.rmtree(scratch_tmp, ignore_errors=True)

    all_runs = runs["control"] + runs["candidate"]
    states = [json.dumps(r["final_state"], sort_keys=True) for r in all_runs]
    same = len(set(states)) == 1
    ref = all_runs[0]["_packet"]
    summaries = {arm.role: arm_summary(arm, runs[arm.role]) for arm in arms}
    cw = [r["wall_s"] for r in runs["control"]]
    bw = [r["wall_s"] for r in runs["candidate"]]
    speedup = stats.ratio_ci(cw, bw, resamples=a.resamples, seed=a.seed)
    disturbed = [r["tag"] for r in all_runs if r["load"]["disturbed"]]
    for role in ("control", "candidate"):
        for r in summaries[role]["runs"]:
            r.pop("final_state", None)
    params = {
        "name": a.name,
        "pairs": a.pairs,
        "warmup": a.warmup,
        "order": order,
        "load_threshold_cpus": threshold,
        "settle_s": a.settle,
        "wait_quiet_s": a.wait_quiet,
        "strict": a.strict,
        "resamples": a.resamples,
        "seed": a.seed,
    }
    cm, bm = summaries["control"]["medians"], summaries["candidate"]["medians"]
    metrics = {
        "speedup": speedup["ratio"],
        "speedup_ci95": speedup["ci"],
        "control_wall_median_s": cm["wall_s"],
        "candidate_wall_median_s": bm["wall_s"],
        "control_inputs_per_s_median": cm["inputs_per_s"],
        "candidate_inputs_per_s_median": bm["inputs_per_s"],
    }
    p = pk.packet("abrun", ref["backend"], params, metrics)
    p["threads"] = ref["threads"]
    p["name"] = a.name
    p["note"] = a.note
    p["source"] = source_of(ref)
    p["arms"] = summaries
    p["speedup"] = speedup
    p["final_state"] = {"same": same, "value": all_runs[0]["final_state"],
                        "distinct": sorted(set(states)) if not same else []}
    p["load"] = {
        "threshold_cpus": threshold,
        "definition": "a run is disturbed when other processes kept more than threshold_cpus CPUs busy in the "
                      "settle window before it or during it (/proc/stat busy time minus the run's own CPU time)",
        "disturbed_runs": disturbed,
        "disturbed": bool(disturbed),
    }
    out = a.out or Path(os.environ.get("FULLVERIFY_RESULTS", ROOT / "results"))
    path = pk.write(p, out)
    lo, hi = speedup["ci"]
    print(f"abrun {a.name}: {summaries['control']['label']} {cm['wall_s']:.3f} s, "
          f"{summaries['candidate']['label']} {bm['wall_s']:.3f} s (medians of {a.pairs}); "
          f"speed-up {speedup['ratio']:.3f} [{lo:.3f}, {hi:.3f}]; final state "
          f"{'equal' if same else 'DIFFERS'}; {len(disturbed)} disturbed run(s)", file=sys.stderr)
    print(display_path(path) if a.out is None else path)
    return 0 if same else EXIT_STATE_DIFFERS


if __name__ == "__main__":
    sys.exit(main())
