# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python call overhead of ECDSA verification.

Three arms verify the same signatures, alternated round by round:

- ``rust_inner``: the verifications timed inside Rust (``fullverify.time_ecdsa_verify``), the
  same parsing and verification work with no Python call per signature;
- ``fullverify``: one ``fullverify.ecdsa_verify`` call per signature from Python;
- ``coincurve``: one ``coincurve.PublicKey(pub).verify(sig, msg, hasher=None)`` per signature
  (libsecp256k1 through CFFI), if coincurve is installed.

Bars (issue: the Python face): fullverify ≤ 1.1 × rust_inner + 2 µs, and faster than coincurve.

With ``--signatures`` it also measures the Python baselines of the signature study (the native
side is ``sigbench``), each arm skipped with a note when its package is missing:

- ECDSA verification: ``fullverify.ecdsa_verify``, ``coincurve``, the pure-Python ``ecdsa``
  package and the project's oracle ``fullverify.oracle.ecdsa.verify``;
- BIP340 verification: ``fullverify.schnorr_verify``, ``coincurve.PublicKeyXOnly.verify`` and
  ``fullverify.oracle.schnorr.verify``;
- BIP340 batch verification: ``fullverify.schnorr_verify_batch`` over the whole set, per
  signature.

The pure-Python arms verify fewer signatures per round (``--slow-sigs``); every arm first
checks that it accepts every signature and rejects a corrupted one. Results go to
``metrics.signatures`` of the same packet.

    python experiments/python/pybench.py [--quick] [--signatures] [--out DIR]
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
    ap.add_argument("--signatures", action="store_true", help="also the signature baselines (see above)")
    ap.add_argument("--slow-sigs", type=int, default=8, help="signatures per round for pure-Python arms")
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
    metrics = {"unit": "ns per verification", "arms": out, "summary": summary}
    if args.signatures:
        metrics["signatures"] = signature_baselines(args.sigs, args.slow_sigs, rounds, coincurve)
    p = packet.packet(
        "pybench",
        fullverify.backend(),
        {"sigs": len(items), "rounds": rounds, "quick": args.quick,
         "coincurve": getattr(coincurve, "__version__", None) if coincurve else None,
         "signatures": args.signatures},
        metrics,
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


def _alternate(arms: dict[str, Any], rounds: int) -> list[dict[str, Any]]:
    """Runs each arm (a function returning ns per operation) once as warm-up, then ``rounds``
    rounds in rotating order; returns the arms with raw samples and statistics."""
    names = list(arms)
    for f in arms.values():
        f()
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for k in range(len(names)):
            n = names[(r + k) % len(names)]
            samples[n].append(arms[n]())
    return [{"name": n, "ns_per_op": samples[n], "stats": packet.stats(samples[n])} for n in names]


def _timed(items: list[Any], check: Any) -> Any:
    def run() -> float:
        t = time.perf_counter_ns()
        for it in items:
            check(*it)
        return (time.perf_counter_ns() - t) / len(items)

    return run


def signature_baselines(nsigs: int, nslow: int, rounds: int, coincurve: Any) -> dict[str, Any]:
    """The Python arms of the signature study (module docstring)."""
    from fullverify.oracle import ecdsa as o_ecdsa
    from fullverify.oracle import schnorr as o_schnorr

    try:
        import ecdsa as pyecdsa  # type: ignore[import-not-found]
    except ImportError:
        pyecdsa = None
        print("the pure-Python ecdsa package is not installed: that arm is skipped", file=sys.stderr)
    notes: list[str] = []
    ec, sc = [], []
    for i in range(nsigs):
        sk = hashlib.sha256(b"pybench sig key %d" % i).digest()
        msg = hashlib.sha256(b"pybench sig msg %d" % i).digest()
        aux = hashlib.sha256(b"pybench sig aux %d" % i).digest()
        ec.append((fullverify.pubkey_from_secret(sk), msg, fullverify.ecdsa_sign(sk, msg)))
        sc.append((fullverify.xonly_pubkey(sk), msg, fullverify.schnorr_sign(sk, msg, aux)))
    bad_msg = bytes(32)

    def gate(name: str, check: Any, items: list[Any], corrupt: Any) -> None:
        assert all(check(*it) for it in items), f"{name} rejected a valid signature"
        assert not check(*corrupt(items[0])), f"{name} accepted a corrupted signature"

    ecdsa_arms: dict[str, Any] = {}
    schnorr_arms: dict[str, Any] = {}
    ops: dict[str, int] = {}

    def add(table: dict[str, Any], name: str, check: Any, items: list[Any], corrupt: Any) -> None:
        gate(name, check, items, corrupt)
        table[name] = _timed(items, check)
        ops[name] = len(items)

    def ec_corrupt(it: tuple[bytes, bytes, bytes]) -> tuple[bytes, bytes, bytes]:
        return it[0], bad_msg, it[2]

    add(ecdsa_arms, "fullverify", fullverify.ecdsa_verify, ec, ec_corrupt)
    if coincurve is not None:
        add(ecdsa_arms, "coincurve", lambda p, m, s: coincurve.PublicKey(p).verify(s, m, hasher=None), ec, ec_corrupt)
    if pyecdsa is not None:

        def py_ecdsa(p: bytes, m: bytes, s: bytes) -> bool:
            vk = pyecdsa.VerifyingKey.from_string(p, curve=pyecdsa.SECP256k1)
            try:
                return bool(vk.verify_digest(s, m, sigdecode=pyecdsa.util.sigdecode_der))
            except pyecdsa.BadSignatureError:
                return False

        add(ecdsa_arms, "python-ecdsa", py_ecdsa, ec[:nslow], ec_corrupt)
    add(ecdsa_arms, "oracle", lambda p, m, s: o_ecdsa.verify(p, m, s), ec[:nslow], ec_corrupt)

    def sc_corrupt(it: tuple[bytes, bytes, bytes]) -> tuple[bytes, bytes, bytes]:
        return it[0], bad_msg, it[2]

    add(schnorr_arms, "fullverify", fullverify.schnorr_verify, sc, sc_corrupt)
    if coincurve is not None and hasattr(coincurve, "PublicKeyXOnly"):
        add(schnorr_arms, "coincurve", lambda p, m, s: coincurve.PublicKeyXOnly(p).verify(s, m), sc, sc_corrupt)
    elif coincurve is not None:
        notes.append("coincurve has no PublicKeyXOnly: its BIP340 arm is skipped")
    add(schnorr_arms, "oracle", lambda p, m, s: o_schnorr.verify(m, p, s), sc[:nslow], sc_corrupt)
    assert fullverify.schnorr_verify_batch(sc)
    assert fullverify.schnorr_find_invalid([sc_corrupt(sc[0])] + sc[1:]) == [0]

    def batch() -> float:
        t = time.perf_counter_ns()
        fullverify.schnorr_verify_batch(sc)
        return (time.perf_counter_ns() - t) / len(sc)

    schnorr_arms[f"fullverify-batch-{len(sc)}"] = batch
    ops[f"fullverify-batch-{len(sc)}"] = len(sc)
    result: dict[str, Any] = {"unit": "ns per signature", "ops_per_round": ops, "notes": notes}
    for kind, arms in (("ecdsa", ecdsa_arms), ("schnorr", schnorr_arms)):
        res = _alternate(arms, rounds)
        ref = next(a for a in res if a["name"] == "fullverify")["stats"]["median"]
        for a in res:
            a["ratio_vs_fullverify"] = a["stats"]["median"] / ref
            print(f"{kind:8} {a['name']:<24} {a['stats']['median'] / 1000:10.2f} µs", file=sys.stderr)
        result[kind] = res
    return result


if __name__ == "__main__":
    sys.exit(main())
