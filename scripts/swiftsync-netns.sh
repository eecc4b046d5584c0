#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# SwiftSync on "several hosts" of this one machine: a Dask scheduler and two workers, each in a
# network namespace of its own (ip netns, veth pairs on a bridge), talking real TCP; the client
# runs in the root namespace. The chain (a chaingen corpus written as a Core blocks directory
# with its hints by one replay) must reach the replay's state through the cluster, with the
# workers reading the blocks from the shared file system and with the client sending them.
#
#   sudo scripts/swiftsync-netns.sh [PROFILE]      (default profile: small; needs root, iproute2)
#
# Not part of the test command: it needs root and a few minutes. It leaves nothing behind
# (namespaces, links and processes are removed on exit).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PROFILE=${1:-small}
PY=${PYTHON:-$ROOT/.venv/bin/python}
DASK=$(dirname "$PY")/dask
[ "$(id -u)" = 0 ] || { echo "needs root (ip netns)" >&2; exit 2; }
command -v ip >/dev/null || { echo "needs iproute2 (apt-get install iproute2)" >&2; exit 2; }
"$PY" -c "import distributed, fullverify" || { echo "needs the package with its cluster extra in $PY" >&2; exit 2; }

WORK=$(mktemp -d)
NS=(fvss-sched fvss-w1 fvss-w2)
ADDR=(10.231.0.1 10.231.0.2 10.231.0.3)
BR=fvss-br
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
  ip link del "$BR" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== the chain: chaingen --profile $PROFILE, one replay writing the blocks directory and hints"
cargo build --release -q -p fullverify-experiments --bin chaingen --bin replay
BIN=$(cargo metadata -q --format-version 1 --no-deps | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release
"$BIN/chaingen" --profile "$PROFILE" --out "$WORK/corpus" >/dev/null 2>&1
"$BIN/replay" --source corpus "$WORK/corpus" --network regtest --write-hints "$WORK/hints" \
  --write-blocks "$WORK/blocks" --json "$WORK/replay.json" >/dev/null

echo "== three namespaces on a bridge"
ip link add "$BR" type bridge
ip addr add 10.231.0.254/24 dev "$BR"
ip link set "$BR" up
for i in 0 1 2; do
  n=${NS[$i]}
  ip netns add "$n"
  ip link add "v-$n" type veth peer name eth0 netns "$n"
  ip link set "v-$n" master "$BR" up
  ip -n "$n" addr add "${ADDR[$i]}/24" dev eth0
  ip -n "$n" link set eth0 up
  ip -n "$n" link set lo up
done

SCHED="tcp://${ADDR[0]}:8786"
ip netns exec "${NS[0]}" "$DASK" scheduler --host "${ADDR[0]}" --port 8786 --no-dashboard >"$WORK/sched.log" 2>&1 &
PIDS+=($!)
sleep 3
for i in 1 2; do
  ip netns exec "${NS[$i]}" "$DASK" worker "$SCHED" --host "${ADDR[$i]}" --nthreads 1 --nworkers 1 \
    --no-dashboard --name "host$i" >"$WORK/worker$i.log" 2>&1 &
  PIDS+=($!)
done

"$PY" - "$SCHED" "$WORK" <<'EOF'
import json, sys, time
from pathlib import Path
import distributed
from fullverify import swiftsync

sched, work = sys.argv[1], Path(sys.argv[2])
state = json.loads((work / "replay.json").read_text())["state"]
client = distributed.Client(sched, timeout=60)
client.wait_for_workers(2, timeout=60)
hosts = sorted(w["host"] for w in client.scheduler_info(n_workers=-1)["workers"].values())
print(f"workers at {', '.join(hosts)}; scheduler {sched}")
ok = True
for transfer in ("path", "bytes"):
    p = swiftsync.run(work / "blocks", work / "hints", "regtest", client, transfer=transfer)
    st = p["state"]
    same = st is not None and all(st[k] == state[k] for k in ("height", "utxo_count", "total_amount", "muhash"))
    ok &= same
    e = p["engine"]
    print(f"{transfer}: {p['metrics']['inputs_per_s']:,.0f} inputs/s, {len(p['ranges'])} ranges on "
          f"{e['worker_processes_used']} worker processes, {e['bytes_moved']['to_workers']:,} bytes to the workers, "
          f"Dask overhead {100 * e['overhead']['fraction']:.1f} %: state {'equal to' if same else 'DIFFERENT from'} the replay's")
client.close()
sys.exit(0 if ok else 1)
EOF
echo "swiftsync-netns: the state through three namespaces over TCP equals the sequential replay's"
