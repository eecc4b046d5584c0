# SPDX-License-Identifier: MIT OR Apache-2.0
"""Where the time goes: the replay's phase split and instruction counts of the signature kernels.

Two parts, one packet (``results/profile/<run-id>.json``, schema
``results/schema/profile.schema.json``):

(a) **Phase split** of a replay, from the replay's own counters (``phases`` of its packet: read
    and parse, fetch of spent coins, script checks, apply, flush). By default the newest
    ``results/replay/*.json``; ``--replay-packet FILE`` names another; ``--run-replay`` runs
    ``target/release/replay`` (default source, or the arguments given with ``--replay-arg``)
    and reads the packet it writes into a scratch folder.

(b) **Instruction counts** under ``valgrind --tool=callgrind`` of single verification, ECDSA and
    BIP340, for every arm of ``sigbench --only`` (fullverify per backend, libsecp256k1, k256).
    Each arm runs four times over the same seeded signatures with 0, R, 2R and 3R rounds; the
    instructions per verification are ``(Ir(2R) - Ir(R)) / (R x sigs)``, which removes key
    generation, signing, start-up and the tables the first round builds on first use
    (recorded as ``first_use_ir``). ``Ir(3R) - Ir(2R)`` must equal ``Ir(2R) - Ir(R)`` within
    0.1 % (the counts are deterministic); the packet records the ratio.

    Valgrind runs the program on its own model of the CPU. valgrind 3.19's CPUID reports no
    ADX, no SHA extensions and no AVX-512 (it cannot execute AVX-512), so under it the
    binary's CPU checks issue no Asm or Ifma token and SHA-256 takes its portable
    compression. The driver asks the binary what it sees (``sigbench --only`` prints
    ``cpu bmi2_adx=… sha_ni=… avx512ifma=… available=…``), compares it with the native run,
    records every hidden feature and marks the arms it could not count, with the reason.
    Counts are instructions, not time: they say nothing about latency or port pressure.

valgrind is installed with ``apt-get`` when it is missing (the driver says so).

    python experiments/python/profile.py [--quick] [--out DIR] [--sigs N] [--rounds R]
        [--replay-packet FILE | --run-replay [--replay-arg ARG ...]] [--no-build]

``--quick`` counts fullverify-portable only, over 8 signatures and 1 round (a smoke run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import packet  # noqa: E402

ROOT = packet.ROOT
KERNELS = ["ecdsa", "schnorr"]
ARMS = ["fullverify-portable", "fullverify-asm", "fullverify-ifma", "libsecp256k1", "k256"]
# What each sigbench arm needs from the CPU (as `sigbench --only` reports it).
NEEDS = {"fullverify-asm": ("bmi2_adx", "BMI2+ADX"), "fullverify-ifma": ("avx512ifma", "AVX-512 F+IFMA+VL")}
PHASES = ["open_s", "read_parse_s", "fetch_s", "checks_s", "scripts_s", "apply_s", "flush_s"]


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def build(bins: list[str]) -> None:
    cmd = ["cargo", "build", "--release", "-q", "-p", "fullverify-experiments"]
    for b in bins:
        cmd += ["--bin", b]
    subprocess.run(cmd, cwd=ROOT, check=True)


def ensure_valgrind() -> str:
    if shutil.which("valgrind") is None:
        print("valgrind not found: installing it with apt-get", file=sys.stderr)
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(sudo + ["apt-get", "update", "-q"], check=True, env=env)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "valgrind"], check=True, env=env)
    out = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def parse_cpu_line(text: str) -> dict[str, Any]:
    m = re.search(r"^cpu bmi2_adx=(\d) sha_ni=(\d) avx512ifma=(\d) available=(\S*)$", text, re.M)
    if not m:
        raise RuntimeError(f"sigbench printed no cpu line:\n{text}")
    return {"bmi2_adx": m[1] == "1", "sha_ni": m[2] == "1", "avx512ifma": m[3] == "1",
            "available": m[4].split(",") if m[4] else []}


def sigbench_cmd(binary: Path, arm: str, kernel: str, sigs: int, rounds: int) -> list[str]:
    return [str(binary), "--only", arm, "--kind", kernel, "--sigs", str(sigs), "--rounds", str(rounds)]


def native_cpu(binary: Path) -> dict[str, Any]:
    out = subprocess.run(sigbench_cmd(binary, "fullverify-portable", "ecdsa", 1, 0),
                         capture_output=True, text=True, check=True)
    return parse_cpu_line(out.stdout)


def callgrind(cmd: list[str], scratch: Path) -> tuple[int, int | None, str]:
    """(exit status, total Ir or None, stdout) of `cmd` under callgrind."""
    out_file = scratch / "callgrind.out"
    if out_file.exists():
        out_file.unlink()
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", *cmd],
                       capture_output=True, text=True)
    ir = None
    if r.returncode == 0 and out_file.exists():
        m = re.search(r"^totals: (\d+)", out_file.read_text(), re.M)
        ir = int(m[1]) if m else None
    return r.returncode, ir, r.stdout


def count_arm(binary: Path, kernel: str, arm: str, sigs: int, rounds: int, vg_cpu: dict[str, Any],
              host: dict[str, Any], scratch: Path) -> dict[str, Any]:
    entry: dict[str, Any] = {"kernel": kernel, "arm": arm}
    if arm in NEEDS:
        flag, what = NEEDS[arm]
        if not host[flag]:
            return {**entry, "counted": False, "reason": f"this CPU lacks {what}"}
        if not vg_cpu[flag]:
            why = ("valgrind cannot execute AVX-512 and its CPUID reports none" if flag == "avx512ifma"
                   else "valgrind's CPUID reports no ADX")
            return {**entry, "counted": False,
                    "reason": f"{why}, so the binary's CPU check issues no {arm.split('-')[1].capitalize()} "
                              "token under valgrind; not counted"}
    irs = []
    for r in (0, rounds, 2 * rounds, 3 * rounds):
        rc, ir, stdout = callgrind(sigbench_cmd(binary, arm, kernel, sigs, r), scratch)
        if rc == 3:
            return {**entry, "counted": False, "reason": f"sigbench has no arm {arm} under valgrind"}
        if rc != 0 or ir is None:
            raise RuntimeError(f"callgrind run failed ({rc}): {arm} {kernel} rounds={r}\n{stdout}")
        want = f"{arm} {kernel}: {r * sigs} verified"
        if want not in stdout:
            raise RuntimeError(f"expected {want!r}, got:\n{stdout}")
        irs.append(ir)
    # The first round also builds tables on first use, so the per-verification count comes
    # from the second and third R rounds.
    second, third = irs[2] - irs[1], irs[3] - irs[2]
    per = second / (rounds * sigs)
    linearity = third / second
    if abs(linearity - 1) > 1e-3:
        raise RuntimeError(f"{arm} {kernel}: Ir not linear in rounds ({irs}); counts are unusable")
    first_use = irs[1] - irs[0] - second
    print(f"  {kernel:<8} {arm:<22} {per:>12,.0f} Ir per verification", file=sys.stderr)
    return {**entry, "counted": True, "ir_per_verification": per, "verifications": rounds * sigs,
            "ir_total": {"rounds_0": irs[0], "rounds_r": irs[1], "rounds_2r": irs[2], "rounds_3r": irs[3]},
            "first_use_ir": first_use, "linearity": linearity}


def phases_from(replay: dict[str, Any], source: str) -> dict[str, Any]:
    ph = replay["phases"]
    wall = replay["metrics"]["wall_s"]
    seconds = {k.removesuffix("_s"): ph[k] for k in PHASES if k in ph}
    accounted = sum(seconds.values())
    return {
        "source": source,
        "replay_run_id": replay["run_id"],
        "backend": replay["backend"],
        "threads": replay["threads"],
        "batch_schnorr": bool(replay["params"].get("batch_schnorr", False)),
        "corpus": replay.get("source", {}).get("path"),
        "cpu_model": replay["cpu"]["model"],
        "inputs": replay["metrics"]["inputs"],
        "wall_s": wall,
        "seconds": seconds,
        "other_s": max(wall - accounted, 0.0),
        "fraction_of_wall": {k: v / wall for k, v in seconds.items()},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fullverify-portable only, few verifications")
    ap.add_argument("--sigs", type=int, default=None, help="signatures in the set (default 64; quick 8)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds R over the set (default 4; quick 1)")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default: results/)")
    ap.add_argument("--replay-packet", type=Path, default=None, help="replay packet for the phase split")
    ap.add_argument("--run-replay", action="store_true", help="run target/release/replay for the phase split")
    ap.add_argument("--replay-arg", action="append", default=[], help="argument passed on to replay")
    ap.add_argument("--no-build", action="store_true", help="use the binaries in target/release as they are")
    args = ap.parse_args()
    sigs = args.sigs or (8 if args.quick else 64)
    rounds = args.rounds or (1 if args.quick else 4)
    arms = ["fullverify-portable"] if args.quick else ARMS
    results = Path(os.environ.get("FULLVERIFY_RESULTS", ROOT / "results"))

    if not args.no_build:
        build(["sigbench", "replay"] if args.run_replay else ["sigbench"])
    sigbench = target_dir() / "release" / "sigbench"
    vg_version = ensure_valgrind()

    with tempfile.TemporaryDirectory(prefix="fv-profile-") as tmp:
        scratch = Path(tmp)
        # (a) the phase split
        if args.run_replay:
            out = scratch / "replay.json"
            cmd = [str(target_dir() / "release" / "replay"), "--quiet", "--json", str(out), *args.replay_arg]
            subprocess.run(cmd, cwd=ROOT, check=True)
            replay = json.loads(out.read_text())
            source = "replay run by profile.py" + (" " + " ".join(args.replay_arg) if args.replay_arg else "")
        else:
            path = args.replay_packet
            if path is None:
                found = sorted((results / "replay").glob("*.json"))
                if not found:
                    print(f"no replay packet under {results / 'replay'}: give --replay-packet or --run-replay",
                          file=sys.stderr)
                    return 2
                path = found[-1]
            replay = json.loads(path.read_text())
            rel = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else Path(path.name)
            source = str(rel)
        phases = phases_from(replay, source)
        print(f"phases of {phases['source']}: " + ", ".join(
            f"{k} {v:.1%}" for k, v in phases["fraction_of_wall"].items()), file=sys.stderr)

        # (b) callgrind counts
        host = native_cpu(sigbench)
        _, _, vg_out = callgrind(sigbench_cmd(sigbench, "fullverify-portable", "ecdsa", 1, 0), scratch)
        vg_cpu = parse_cpu_line(vg_out)
        hidden = [f for f in ("bmi2_adx", "sha_ni", "avx512ifma") if host[f] and not vg_cpu[f]]
        print(f"{vg_version}; native: {host}; under valgrind: {vg_cpu}", file=sys.stderr)
        counts = [count_arm(sigbench, k, a, sigs, rounds, vg_cpu, host, scratch) for k in KERNELS for a in arms]

    notes = []
    if "sha_ni" in hidden:
        notes.append("SHA-256 ran its portable compression under valgrind (SHA-NI hidden by its CPUID); "
                     "natively the binary uses SHA-NI, so hashing (BIP340's tagged hashes) counts more "
                     "instructions here than it executes")
    if "bmi2_adx" in hidden:
        notes.append("no Asm token under valgrind (ADX hidden by its CPUID): the MULX/ADCX/ADOX field "
                     "kernels are not counted")
    if "avx512ifma" in hidden:
        notes.append("no Ifma token under valgrind (it cannot execute AVX-512)")
    best = host["available"][-1] if host["available"] else "portable"
    p = packet.packet(
        "profile", best,
        {"quick": args.quick, "sigs": sigs, "rounds": rounds, "kernels": KERNELS, "arms": arms,
         "binary": "sigbench --only ARM --kind KERNEL --sigs N --rounds R",
         "method": "(Ir(2R) - Ir(R)) / (R x sigs); Ir(3R) - Ir(2R) checked equal; first_use_ir = Ir(R) - Ir(0) - (Ir(2R) - Ir(R))"},
        {
            "callgrind": {
                "unit": "instructions (Ir) per verification",
                "valgrind": vg_version,
                "cpu_native": host,
                "cpu_under_valgrind": vg_cpu,
                "hidden_features": hidden,
                "notes": notes,
                "kernels": counts,
            },
            "phases": phases,
        },
    )
    path = packet.write(p, args.out or results)
    print(f"wrote {path}", file=sys.stderr)
    for c in counts:
        if c["counted"]:
            print(f"{c['kernel']} {c['arm']} ir_per_verification={c['ir_per_verification']:.0f}")
        else:
            print(f"{c['kernel']} {c['arm']} not counted: {c['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
