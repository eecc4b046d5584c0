# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python call overhead of ECDSA verification.

Three arms verify the same signatures, alternated round by round:

- ``rust_inner``: the verifications timed inside Rust (``fullverify.time_ecdsa_verify``), the
  same parsing and verification work with no Python call per signature;
- ``fullverify``: one ``fullverify.ecdsa_verify`` call per signature from Python;
- ``coincurve``: one ``coincurve.PublicKey(pub).verify(sig, msg, hasher=None)`` per signature
  (libsecp256k1 through CFFI), if coincurve is installed.

Bars (issue: the Python face): fullverify ≤ 1.1 × rust_inner + 2 µs, and faster than coincurve.

    python experiments/python/pybench.py [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import packet  # noqa: E402

import fullverify  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer rounds (smoke test)")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--sigs", type=int, default=200)
    ap.add_argument("--out", type=Path, default=None, help="results folder (default: results/)")
    args = ap.parse_args()
    rounds = args.rounds or (5 if args.quick else 31)

    items = []
    for i in range(args.sigs):
        sk = hashlib.sha256(b"pybench key %d" % i).digest()
        msg = hashlib.sha256(b"pybench msg %d" % i).digest()
        items.append((fullverify.pubkey_from_secret(sk), msg, fullverify.ecdsa_sign(sk, msg)))
    assert all(fullverify.ecdsa_verify(*it) for it in items)

    try:
        import coincurve  # type: ignore[import-not-found]
    except ImportError:
        coincurve = None
        print("coincurve not installed: that arm is skipped", file=sys.stderr)

    def arm_fullverify() -> float:
        t = time.perf_counter_ns()
        for pub, msg, sig in items:
            fullverify.ecdsa_verify(pub, msg, sig)
        return (time.perf_counter_ns() - t) / len(items)

    def arm_rust() -> float:
        return fullverify.time_ecdsa_verify(items, 1)

    arms = {"rust_inner": arm_rust, "fullverify": arm_fullverify}
    if coincurve is not None:
        assert all(coincurve.PublicKey(p).verify(s, m, hasher=None) for p, m, s in items)

        def arm_coincurve() -> float:
            t = time.perf_counter_ns()
            for pub, msg, sig in items:
                coincurve.PublicKey(pub).verify(sig, msg, hasher=None)
            return (time.perf_counter_ns() - t) / len(items)

        arms["coincurve"] = arm_coincurve

    names = list(arms)
    for f in arms.values():
        f()  # warm-up
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for k in range(len(names)):
            n = names[(r + k) % len(names)]
            samples[n].append(arms[n]())

    out = [{"name": n, "ns_per_op": samples[n], "stats": packet.stats(samples[n])} for n in names]
    med = {a["name"]: a["stats"]["median"] for a in out}
    overhead = med["fullverify"] - med["rust_inner"]
    bar = 1.1 * med["rust_inner"] + 2000.0
    summary = {
        "python_overhead_ns": overhead,
        "fullverify_over_rust": med["fullverify"] / med["rust_inner"],
        "bar_ns": bar,
        "meets_overhead_bar": med["fullverify"] <= bar,
    }
    if "coincurve" in med:
        summary["fullverify_over_coincurve"] = med["fullverify"] / med["coincurve"]
    p = packet.packet(
        "pybench",
        fullverify.backend(),
        {"sigs": len(items), "rounds": rounds, "quick": args.quick,
         "coincurve": getattr(coincurve, "__version__", None) if coincurve else None},
        {"unit": "ns per verification", "arms": out, "summary": summary},
    )
    path = packet.write(p, args.out)
    for a in out:
        print(f"{a['name']:<12} {a['stats']['median'] / 1000:8.2f} µs")
    print(f"wrote {path}", file=sys.stderr)
    line = f"python_overhead_ns={overhead:.0f} fullverify_over_rust={summary['fullverify_over_rust']:.3f}"
    if "fullverify_over_coincurve" in summary:
        line += f" fullverify_over_coincurve={summary['fullverify_over_coincurve']:.3f}"
    print(line + f" backend={fullverify.backend()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
