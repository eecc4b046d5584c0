# SPDX-License-Identifier: MIT OR Apache-2.0
"""baseline: freezes what a replay baseline is, from an abrun campaign packet.

Writes <out>/baselines/<name>.json (schema: results/schema/baselines.schema.json) with the
source revision, the arms' binaries (path, SHA-256, allocator, RUSTFLAGS), the toolchain
(rustc, cargo, the C compiler and linker as `cc --version` / `ld --version` name them on
their first line, the [profile.release] flags of Cargo.toml, RUSTFLAGS), the source's identity
(corpus manifest and data SHA-256s, or the block and spent-output files' SHA-256s), the final
state (tip, height, UTXO count, total amount, MuHash; or the block) and both arms' medians with
the campaign's speed-up and interval. A later run is compared with a baseline by running the
same binaries' configuration again and checking the state is identical and the medians close.

    python experiments/python/baseline.py --name replay-default --abrun results/abrun/<run-id>.json \\
        --arm candidate --posture "mimalloc, 2 threads, detected backend"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import packet as pk  # noqa: E402

ROOT = pk.ROOT


def first_line(*cmd: str) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.splitlines()[0].strip() if out.strip() else "unknown"


def sha256_file(p: Path) -> str | None:
    if not p.is_file():
        return None
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def release_profile() -> dict[str, Any]:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    return dict(cargo.get("profile", {}).get("release", {}))


def source_identity(ab: dict[str, Any]) -> dict[str, Any]:
    src = dict(ab["source"])
    out: dict[str, Any] = {"kind": src["kind"], "path": src["path"], "blocks_sha256": src["sha256"],
                           "stop_height": src.get("stop_height"), "network": src.get("network")}
    if src["kind"] == "corpus":
        c = src.get("corpus") or {}
        out["corpus"] = c
        manifest = ROOT / "target" / "chaingen" / src["path"] / "manifest.json"
        out["manifest_sha256"] = sha256_file(manifest)
        out["manifest_data_sha256"] = c.get("sha256")
    if src["kind"] == "block":
        # The files as the campaign's arguments name them (relative to the repository root).
        args = ab["arms"]["control"]["args"]
        files: dict[str, Any] = {}
        for flag, key in (("--source", "block"), ("--spent", "spent")):
            if flag in args:
                i = args.index(flag)
                rel = args[i + 2] if flag == "--source" else args[i + 1]
                files[key] = {"path": Path(rel).name, "sha256": sha256_file(ROOT / rel)}
        out["files"] = files
        if "spent" in src:
            out["spent"] = src["spent"]
    return out


def arm_entry(arm: dict[str, Any]) -> dict[str, Any]:
    b = dict(arm["binary"])
    b["file_sha256_now"] = sha256_file(ROOT / b["path"])
    return {"label": arm["label"], "binary": b, "args": arm["args"], "backend": arm["backend"],
            "threads": arm["threads"], "n": arm["n"], "medians": arm["medians"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="baseline.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--name", required=True, help="baseline name: writes baselines/<name>.json")
    ap.add_argument("--abrun", required=True, type=Path, help="the abrun campaign packet it is taken from")
    ap.add_argument("--arm", choices=["control", "candidate"], required=True,
                    help="the arm that is the canonical configuration")
    ap.add_argument("--posture", required=True, help="the canonical posture, in words (recorded)")
    ap.add_argument("--out", type=Path, default=None,
                    help="results folder (default $FULLVERIFY_RESULTS or results/)")
    a = ap.parse_args(argv)
    if not all(c.isalnum() or c in "-_" for c in a.name):
        ap.error("--name: letters, digits, - and _ only")
    ab = json.loads(a.abrun.read_text())
    if ab.get("experiment") != "abrun":
        ap.error(f"{a.abrun}: not an abrun packet")
    if not ab["final_state"]["same"]:
        ap.error(f"{a.abrun}: the arms reached different final states; no baseline from it")
    canonical = ab["arms"][a.arm]
    p = pk.packet("baselines", canonical["backend"], {"name": a.name, "arm": a.arm}, {
        "canonical_wall_median_s": canonical["medians"]["wall_s"],
        "canonical_inputs_per_s_median": canonical["medians"]["inputs_per_s"],
        "speedup": ab["speedup"]["ratio"],
        "speedup_ci95": ab["speedup"]["ci"],
    })
    p["threads"] = canonical["threads"]
    try:
        abrun_path = str(a.abrun.resolve().relative_to(ROOT))
    except ValueError:
        abrun_path = a.abrun.name
    p["name"] = a.name
    p["posture"] = {"text": a.posture, "arm": a.arm, "label": canonical["label"],
                    "allocator": canonical["binary"]["allocator"], "threads": canonical["threads"],
                    "backend": canonical["backend"], "args": canonical["args"]}
    p["revision"] = {"git_rev": p["git_rev"], "dirty": p["dirty"],
                     "binaries_git_rev": sorted({str(x["binary"].get("git_rev")) for x in ab["arms"].values()}),
                     "abrun_git_rev": ab["git_rev"]}
    p["toolchain"] = {
        "rustc": canonical["binary"].get("rustc") or first_line("rustc", "--version"),
        "rustc_now": first_line("rustc", "--version"),
        "cargo": first_line("cargo", "--version"),
        "cc": first_line("cc", "--version"),
        "ld": first_line("ld", "--version"),
        "rustflags_binary": canonical["binary"]["rustflags"],
        "rustflags_env": os.environ.get("RUSTFLAGS", ""),
        "profile": canonical["binary"].get("profile"),
        "profile_release": release_profile(),
    }
    p["source"] = source_identity(ab)
    p["state"] = ab["final_state"]["value"]
    p["arms"] = {role: arm_entry(ab["arms"][role]) for role in ("control", "candidate")}
    p["campaign"] = {"path": abrun_path, "run_id": ab["run_id"], "name": ab["name"],
                     "speedup": ab["speedup"], "disturbed": ab["load"]["disturbed"],
                     "pairs": ab["params"]["pairs"]}
    out = a.out or Path(os.environ.get("FULLVERIFY_RESULTS", ROOT / "results"))
    d = out / "baselines"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{a.name}.json"
    path.write_text(json.dumps(p, indent=2) + "\n")
    print(f"baseline {a.name}: {canonical['label']} {canonical['medians']['wall_s']:.3f} s median wall; "
          f"state {json.dumps(p['state'])}\nwritten: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
