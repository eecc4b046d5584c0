# SPDX-License-Identifier: MIT OR Apache-2.0
"""Result packets from Python drivers: the same layout as experiments/src/report.rs.

See results/schema/packet.schema.json. Provenance (git revision, dirty flag, compiler, CPU
model and flags) is collected here so that Python-side experiments are as reproducible as the
native ones.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RELEVANT_FLAGS = ["bmi2", "adx", "sha_ni", "avx2", "avx512f", "avx512ifma", "avx512vl", "avx512bw",
                  "sse4_1", "ssse3", "aes", "pclmulqdq"]


def _run(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine() -> dict[str, Any]:
    info = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("model name")),
                 platform.processor() or platform.machine())
    flags_line = next((l.split(":", 1)[1].split() for l in info.splitlines() if l.startswith("flags")), [])
    mem = 0
    if Path("/proc/meminfo").exists():
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    return {
        "model": model,
        "flags": [f for f in RELEVANT_FLAGS if f in flags_line],
        "logical_cpus": os.cpu_count() or 1,
        "mem_total_bytes": mem,
        "hostname": socket.gethostname(),
        "os": platform.system().lower(),
    }


def stats(samples: list[float]) -> dict[str, Any]:
    s = sorted(samples)
    q = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [s[0]] * 3
    # Seeded bootstrap of the median (repeatable).
    import random

    rng = random.Random(0xB00757A9)
    meds = sorted(statistics.median(rng.choices(s, k=len(s))) for _ in range(1000))
    return {"n": len(s), "median": statistics.median(s), "q1": q[0], "q3": q[2], "min": s[0],
            "mean": statistics.fmean(s), "median_ci95": [meds[25], meds[974]]}


def revision() -> tuple[str, bool]:
    """The checked-out revision ("unknown" outside a repository) and whether tracked files differ
    from it."""
    rev = _run("git", "rev-parse", "HEAD") or "unknown"
    return rev, bool(_run("git", "status", "--porcelain", "--untracked-files=no"))


def packet(experiment: str, backend: str, params: dict[str, Any], metrics: dict[str, Any],
           built_from: tuple[str, bool] | None = None) -> dict[str, Any]:
    """A packet. `built_from`: the revision() the measured binaries were built from, when that is
    not what is checked out now (a run that outlasts commits); by default the current one."""
    rev, dirty = built_from or revision()
    now = int(time.time())
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    return {
        "schema_version": 1,
        "experiment": experiment,
        "run_id": f"{stamp}-{rev[:10] if rev != 'unknown' else 'unknown'}",
        "created_unix": now,
        "git_rev": rev,
        "dirty": dirty,
        "rustc": _run("rustc", "--version") or "rustc unknown",
        "profile": "release",
        "target": f"{platform.machine()}-{platform.system().lower()}",
        "cpu": machine(),
        "backend": backend,
        "threads": 1,
        "params": params,
        "metrics": metrics,
        "python": platform.python_version(),
    }


def write(p: dict[str, Any], results_dir: Path | None = None) -> Path:
    d = (results_dir or Path(os.environ.get("FULLVERIFY_RESULTS", ROOT / "results"))) / p["experiment"]
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{p['run_id']}.json"
    path.write_text(json.dumps(p, indent=2) + "\n")
    return path
