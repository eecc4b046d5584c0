# SPDX-License-Identifier: MIT OR Apache-2.0
"""SwiftSync (BIP 457), fully validating, in this process or on a Dask cluster.

The same run as ``replay --mode swiftsync``, driven from Python:

1. on the client, the index and header pass of a Bitcoin Core blocks directory or a chaingen
   corpus (:class:`fullverify._native.SwiftPlan`), and a random secret salt;
2. one task per block range, anywhere: the Rust core validates the range's blocks with their
   undo data and the hints file (the GIL released) and returns its partial sums, its part of
   the UTXO set (counted, summed and MuHash-ed; the coins themselves never travel) and its
   statistics, as a few hundred bytes;
3. on the client, the merge: the aggregate must balance, BIP30, the lowest failing block, the
   final state; the packet that ``replay`` writes to ``results/swiftsync/``.

Without a client the ranges run on threads of this process. With a ``distributed.Client``
they run on its workers, which either read the blocks directory and the hints file from a
path they all see (``transfer="path"``: a shared file system, the usual case on a cluster) or
are sent each range's blocks and undo records and the hints by the client
(``transfer="bytes"``). ``dask[distributed]`` is needed only for the second case
(``pip install './py[cluster]'``).

>>> from fullverify import swiftsync                                       # doctest: +SKIP
>>> packet = swiftsync.run("blocks", "hints", network="regtest")          # doctest: +SKIP
>>> packet["state"]["utxo_count"], packet["aggregate"]["balanced"]        # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from fullverify._native import SwiftPlan

__all__ = ["SwiftSyncError", "run", "main", "EXIT_CODES"]

Range = Tuple[int, int]

#: Exit codes of ``python -m fullverify.swiftsync``, as ``replay``'s: a valid chain, an
#: invalid block or a mismatch, bad arguments, a source that cannot be read.
EXIT_CODES = {"ok": 0, "invalid": 1, "usage": 2, "io": 3}


class SwiftSyncError(RuntimeError):
    """A run that could not finish: a range task failed (its error is the message)."""


# ---- the worker side ---------------------------------------------------------------------

#: Plans and hints already read in this process, by the run's token: a worker process keeps
#: them for every range of the run it takes.
_PLANS: Dict[str, SwiftPlan] = {}
_HINTS: Dict[str, bytes] = {}


def _worker_plan(token: str, plan: bytes, blocks_dir: Optional[str]) -> SwiftPlan:
    p = _PLANS.get(token)
    if p is None:
        if len(_PLANS) > 4:
            _PLANS.clear()
            _HINTS.clear()
        p = SwiftPlan.from_bytes(plan, blocks_dir)
        _PLANS[token] = p
    return p


def _worker_hints(token: str, hints: Union[str, bytes]) -> bytes:
    if isinstance(hints, bytes):
        return hints
    h = _HINTS.get(token)
    if h is None:
        h = Path(hints).read_bytes()
        _HINTS[token] = h
    return h


def _range_task(
    token: str,
    plan: bytes,
    blocks_dir: Optional[str],
    hints: Union[str, bytes],
    salt: bytes,
    first: int,
    last: int,
    backend: Optional[str],
    sig_mode: Optional[str],
    bundle: Optional[bytes],
) -> Tuple[bytes, Dict[str, Any]]:
    """One range on a worker: the result bytes, and where and how long it ran."""
    t0 = time.perf_counter()
    p = _worker_plan(token, plan, blocks_dir)
    h = _worker_hints(token, hints)
    t1 = time.perf_counter()
    out = p.validate_range(h, salt, first, last, backend, sig_mode, bundle)
    t2 = time.perf_counter()
    return out, {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "setup_s": t1 - t0,
        "task_s": t2 - t0,
    }


# ---- the client side ---------------------------------------------------------------------


class _Progress:
    """A one-line progress bar over ranges on stderr (nothing when off), and the caller's
    callback with each range's statistics."""

    def __init__(self, total: int, on: bool, callback: Optional[Callable[[Dict[str, Any]], None]]) -> None:
        self.total, self.on, self.done, self.inputs = total, on, 0, 0
        self.callback = callback
        self.t0 = time.perf_counter()

    def step(self, stats: Dict[str, Any]) -> None:
        self.done += 1
        self.inputs += int(stats["inputs"])
        if self.callback is not None:
            self.callback(stats)
        if not self.on:
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        dt = time.perf_counter() - self.t0
        rate = self.inputs / dt if dt > 0 else 0.0
        sys.stderr.write(
            f"\rswiftsync [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} ranges, "
            f"{self.inputs:,} inputs, {rate:,.0f} inputs/s"
        )
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _split(plan: SwiftPlan, ranges: Union[None, int, Sequence[Range]], range_blocks: Optional[int], slots: int) -> List[Range]:
    if ranges is None:
        return [tuple(r) for r in plan.ranges(range_blocks, slots)]  # type: ignore[misc]
    if isinstance(ranges, int):
        if ranges < 1:
            raise ValueError(f"ranges={ranges}: at least one range")
        per = -(-plan.blocks // ranges)
        return [tuple(r) for r in plan.ranges(per, 1)]  # type: ignore[misc]
    out = [(int(a), int(b)) for a, b in ranges]
    covered = sorted(out)
    nxt = 0
    for a, b in covered:
        if a != nxt or b < a:
            raise ValueError(f"ranges must cover heights 0..{plan.tip_height} once each; {a}..{b} follows {nxt - 1}")
        nxt = b + 1
    if nxt != plan.blocks:
        raise ValueError(f"ranges must cover heights 0..{plan.tip_height}; they end at {nxt - 1}")
    return out


def _dask_slots(client: Any) -> Tuple[int, int]:
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return len(workers), sum(int(w.get("nthreads", 1)) for w in workers.values())


def _overhead(stream: List[Dict[str, Any]], native: Dict[str, float], tasks: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    """Dask's costs around the ranges, from its task stream: the task's own time beyond the
    native range (the Python wrapper, the plan read once per worker process), the transfers
    and deserialization, and the idle gaps between one task's end and the next task's start
    on a worker thread while ranges were left."""
    total_native = sum(native.values())
    compute = transfer = 0.0
    by_thread: Dict[Any, List[Tuple[float, float]]] = {}
    for t in stream:
        key = t.get("key")
        if isinstance(key, tuple):
            key = key[0]
        if key not in native:
            continue
        for ss in t.get("startstops", ()):
            d = float(ss["stop"]) - float(ss["start"])
            if ss["action"] == "compute":
                compute += d
                by_thread.setdefault((t.get("worker"), t.get("thread")), []).append((float(ss["start"]), float(ss["stop"])))
            elif ss["action"] in ("transfer", "deserialize", "disk-read"):
                transfer += d
    gaps = 0.0
    for spans in by_thread.values():
        spans.sort()
        for (_, stop), (start, _) in zip(spans, spans[1:]):
            gaps += max(0.0, start - stop)
    wrapper = max(0.0, compute - total_native)
    setup = sum(float(v.get("setup_s", 0.0)) for v in tasks.values())
    frac = (wrapper + transfer + gaps) / total_native if total_native > 0 else 0.0
    return {
        "native_s": total_native,
        "compute_s": compute,
        "wrapper_s": wrapper,
        "setup_s": setup,
        "transfer_s": transfer,
        "gaps_s": gaps,
        "fraction": frac,
    }


def run(
    blocks_dir: Union[str, os.PathLike[str]],
    hints: Union[str, os.PathLike[str]],
    network: str = "mainnet",
    client: Any = None,
    ranges: Union[None, int, Sequence[Range]] = None,
    *,
    range_blocks: Optional[int] = None,
    threads: Optional[int] = None,
    transfer: str = "path",
    worker_blocks_dir: Optional[Union[str, os.PathLike[str]]] = None,
    backend: Optional[str] = None,
    sig_mode: Optional[str] = None,
    order: Optional[int] = None,
    now: Optional[int] = None,
    progress: bool = False,
    on_range: Optional[Callable[[Dict[str, Any]], None]] = None,
    results_dir: Optional[Union[str, os.PathLike[str]]] = None,
) -> Dict[str, Any]:
    """Validates the chain of the Core blocks directory ``blocks_dir`` (or chaingen corpus,
    the network's genesis block put in front) with the BIP 456 hints file ``hints`` (BIP 457) and returns the run's packet (the ``swiftsync`` schema): ``state``
    once the aggregate balanced and no block failed, else ``error``.

    ``client``: a ``distributed.Client``; None runs the ranges on ``threads`` threads here
    (default: every core). ``ranges``: None (ranges by block bytes that shrink towards the
    tip, each a quarter of what is left shared among the worker threads, or ``range_blocks``
    blocks each), a number of ranges, or ``(first, last)`` pairs covering every
    height once. ``transfer``: ``"path"`` (the workers read ``worker_blocks_dir``, default
    ``blocks_dir``, and the hints file at the same path) or ``"bytes"`` (the client reads each
    range and sends it). ``order``: a seed to submit the ranges shuffled. ``now``: the adjusted
    time for the headers' future limit. ``progress``: a progress bar on stderr; ``on_range``:
    called on the client with each finished range's statistics
    (:meth:`SwiftPlan.result_stats`). ``results_dir``: also write the packet to
    ``<results_dir>/swiftsync/<run-id>.json`` (its path is the packet's ``"path"``).

    Raises :class:`fullverify.Error` when the run cannot start (no such directory, hints for
    another height) and :class:`SwiftSyncError` when a range task fails.
    """
    if transfer not in ("path", "bytes"):
        raise ValueError(f"transfer={transfer!r}: expected 'path' or 'bytes'")
    t_start = time.perf_counter()
    blocks_dir = os.fspath(blocks_dir)
    hints_path = Path(os.fspath(hints))
    plan = SwiftPlan.open(blocks_dir, network, now)
    hint_bytes = hints_path.read_bytes()
    plan.check_hints(hint_bytes)
    salt = secrets.token_bytes(32)
    if client is None:
        n_workers, slots = 1, threads or os.cpu_count() or 1
    else:
        n_workers, slots = _dask_slots(client)
        if slots == 0:
            raise SwiftSyncError("the Dask cluster has no workers")
    todo = _split(plan, ranges, range_blocks, slots)
    if order is not None:
        random.Random(order).shuffle(todo)
    results: List[Tuple[int, bytes]] = []
    stats: Dict[str, Dict[str, Any]] = {}
    engine: Dict[str, Any]
    bar = _Progress(len(todo), progress, on_range)
    t_blocks = time.perf_counter()
    if plan.header_error is not None:
        engine = {"kind": "threads" if client is None else "dask", "workers": slots, "driver": "python"}
    elif client is None:
        engine = {"kind": "threads", "workers": slots, "driver": "python"}

        def one(ab: Range) -> bytes:
            a, b = ab
            bundle = plan.bundle(a, b) if transfer == "bytes" else None
            return plan.validate_range(hint_bytes, salt, a, b, backend, sig_mode, bundle)

        with ThreadPoolExecutor(max_workers=slots) as pool:
            for taken, out in enumerate(pool.map(one, todo)):
                results.append((taken, out))
                bar.step(SwiftPlan.result_stats(out))
    else:
        engine = _run_dask(client, plan, blocks_dir, hints_path, hint_bytes, salt, todo, transfer,
                           worker_blocks_dir, backend, sig_mode, bar, results, stats)
        engine["workers"], engine["threads"] = n_workers, slots
    blocks_s = time.perf_counter() - t_blocks
    packet: Dict[str, Any] = json.loads(
        plan.merge(
            salt,
            results,
            str(hints_path),
            len(hint_bytes),
            json.dumps(engine),
            slots,
            backend,
            sig_mode,
            range_blocks,
            order,
            time.perf_counter() - t_start,
            blocks_s,
        )
    )
    packet["params"]["source_transfer"] = transfer
    if client is not None:
        packet["resources"]["measured_on"] = "client"
    if results_dir is not None:
        out_dir = Path(results_dir) / "swiftsync"
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{packet['run_id']}.json"
        path.write_text(json.dumps(packet, indent=2) + "\n")
        packet["path"] = str(path)
    return packet


def _run_dask(
    client: Any,
    plan: SwiftPlan,
    blocks_dir: str,
    hints_path: Path,
    hint_bytes: bytes,
    salt: bytes,
    todo: List[Range],
    transfer: str,
    worker_blocks_dir: Optional[Union[str, os.PathLike[str]]],
    backend: Optional[str],
    sig_mode: Optional[str],
    bar: _Progress,
    results: List[Tuple[int, bytes]],
    stats: Dict[str, Dict[str, Any]],
) -> Dict[str, Any]:
    import distributed

    dist: Any = distributed  # its functions are not annotated
    as_completed, get_task_stream = dist.as_completed, dist.get_task_stream

    token = secrets.token_hex(8)
    plan_bytes = plan.to_bytes()
    t = time.perf_counter()
    [plan_f] = client.scatter([plan_bytes], broadcast=True, hash=False)
    moved = len(plan_bytes)
    if transfer == "bytes":
        [hints_arg] = client.scatter([hint_bytes], broadcast=True, hash=False)
        moved += len(hint_bytes)
        view: Optional[str] = None
    else:
        hints_arg = str(hints_path.resolve())
        view = os.fspath(worker_blocks_dir) if worker_blocks_dir is not None else str(Path(blocks_dir).resolve())
    scatter_s = time.perf_counter() - t
    _, slots = _dask_slots(client)
    window = 2 * slots if transfer == "bytes" else len(todo)
    keys: Dict[str, Tuple[int, Range]] = {}
    native: Dict[str, float] = {}
    bundle_s = 0.0

    def submit(taken: int) -> Any:
        nonlocal moved, bundle_s
        a, b = todo[taken]
        bundle = None
        if transfer == "bytes":
            t0 = time.perf_counter()
            raw = plan.bundle(a, b)
            moved += len(raw)
            [bundle] = client.scatter([raw], hash=False)
            bundle_s += time.perf_counter() - t0
        key = f"swiftsync-range-{a}-{b}-{token}"
        keys[key] = (taken, (a, b))
        return client.submit(_range_task, token, plan_f, view, hints_arg, salt, a, b, backend, sig_mode,
                             bundle, key=key, pure=False)

    futures: List[Any] = []
    with get_task_stream(client) as ts:
        nxt = min(window, len(todo))
        futures.extend(submit(i) for i in range(nxt))
        pending = as_completed(futures, with_results=False)
        for fut in pending:
            try:
                out, info = fut.result()
            except Exception as e:
                taken, (a, b) = keys[fut.key]
                client.cancel(futures + [plan_f])
                raise SwiftSyncError(f"swiftsync range {a}..{b} failed: {e}") from e
            taken, _ = keys[fut.key]
            results.append((taken, out))
            s = SwiftPlan.result_stats(out)
            native[fut.key] = float(s["wall_s"])
            stats[fut.key] = info
            bar.step(s)
            if nxt < len(todo):
                futures.append(submit(nxt))
                pending.add(futures[-1])
                nxt += 1
        client.cancel([plan_f] + ([hints_arg] if transfer == "bytes" else []))
    stream = list(ts.data)
    hosts = sorted({f"{v['host']}:{v['pid']}" for v in stats.values()})
    return {
        "kind": "dask",
        "driver": "python",
        "scheduler": str(client.scheduler.address),
        "transfer": transfer,
        "worker_processes_used": len(hosts),
        "bytes_moved": {"plan": len(plan_bytes), "to_workers": moved, "results": sum(len(r) for _, r in results)},
        "client_s": {"scatter": scatter_s, "bundles": bundle_s},
        "overhead": _overhead(stream, native, stats),
    }


# ---- the command line --------------------------------------------------------------------


def _exit_code(packet: Dict[str, Any]) -> int:
    err = packet.get("error")
    if err is None:
        return EXIT_CODES["ok"]
    kind = err.get("kind", "")
    if kind in ("invalid-block", "swiftsync-mismatch"):
        return EXIT_CODES["invalid"]
    if kind == "usage":
        return EXIT_CODES["usage"]
    return EXIT_CODES["io"]


def main(argv: Optional[Iterable[str]] = None) -> int:
    """``python -m fullverify.swiftsync``: one run, its summary on stdout, its packet written."""
    ap = argparse.ArgumentParser(
        prog="python -m fullverify.swiftsync",
        description="SwiftSync (BIP 457), fully validating, over a Bitcoin Core blocks directory and a "
        "BIP 456 hints file: in this process, on a local Dask cluster, or on the Dask scheduler given.",
    )
    ap.add_argument("--blocks", required=True, help="the Core blocks directory (blk, rev, xor.dat)")
    ap.add_argument("--hints", required=True, help="the hints file for the chain's tip")
    ap.add_argument("--network", default="mainnet")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--scheduler", help="a Dask scheduler address, e.g. tcp://HOST:8786")
    g.add_argument("--local-workers", type=int, help="start a Dask LocalCluster of N worker processes")
    ap.add_argument("--threads", type=int, help="threads per local worker (Dask) or in-process threads")
    ap.add_argument("--transfer", choices=("path", "bytes"), default="path")
    ap.add_argument("--worker-blocks", help="the blocks directory as the workers see it (default: --blocks)")
    ap.add_argument("--ranges", type=int, help="number of equal block ranges (default: ranges that shrink towards the tip)")
    ap.add_argument("--range-blocks", type=int, help="blocks per range")
    ap.add_argument("--backend")
    ap.add_argument("--sig-checks", dest="sig_mode")
    ap.add_argument("--order", type=int, help="a seed: submit the ranges shuffled")
    ap.add_argument("--now", type=int, help="adjusted time for the headers' future limit (default: the clock)")
    ap.add_argument("--out", default="results", help="results folder (the packet goes to OUT/swiftsync/)")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(None if argv is None else list(argv))
    from fullverify._native import Error

    client: Any = None
    cluster: Any = None
    try:
        if a.scheduler or a.local_workers:
            try:
                import distributed
            except ImportError:
                print("the Dask engine needs dask[distributed]: pip install './py[cluster]'", file=sys.stderr)
                return EXIT_CODES["usage"]
            dist: Any = distributed  # its functions are not annotated
            if a.scheduler:
                client = dist.Client(a.scheduler)
            else:
                cluster = dist.LocalCluster(n_workers=a.local_workers, threads_per_worker=a.threads or 1,
                                            processes=True, dashboard_address=None)
                client = dist.Client(cluster)
        packet = run(a.blocks, a.hints, a.network, client, a.ranges, range_blocks=a.range_blocks,
                     threads=None if client else a.threads, transfer=a.transfer,
                     worker_blocks_dir=a.worker_blocks, backend=a.backend, sig_mode=a.sig_mode,
                     order=a.order, now=a.now, progress=not a.no_progress, results_dir=a.out)
    except (Error, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CODES["io"]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CODES["usage"]
    except SwiftSyncError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_CODES["io"]
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    m = packet["metrics"]
    eng = packet["engine"]
    print(f"engine: {eng['kind']} ({eng.get('workers')} workers, {eng.get('threads', eng.get('workers'))} threads)")
    print(f"blocks: {m['blocks']}, inputs: {m['inputs']}, {m['inputs_per_s']:,.0f} inputs/s, {m['wall_s']:.2f} s")
    if packet.get("state"):
        st = packet["state"]
        print(f"state: height {st['height']}, {st['utxo_count']} coins, {st['total_amount']} sat, muhash {st['muhash']}")
    if packet.get("error"):
        print(f"error: {packet['error'].get('message')}")
    print(f"packet: {packet['path']}")
    return _exit_code(packet)


if __name__ == "__main__":
    sys.exit(main())
