#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Rebuilds the replay binary twice (system allocator, --features mimalloc) into
# target/abrun-bin/, runs the committed A/B campaigns into results/abrun/ and writes the
# baselines into results/baselines/:
#   alloc-corpus    system vs mimalloc, default chaingen corpus, --threads 2
#   alloc-866342    system vs mimalloc, mainnet block 866342 with its spent outputs, --threads 2
#   malloc-corpus   system allocator, --malloc default vs --malloc tuned, default corpus, --threads 2
#   malloc-866342   system allocator, --malloc default vs --malloc tuned, block 866342, --threads 2
#   threads-866342  --threads 1 vs --threads 2, block 866342, canonical allocator
#   threads-corpus  --threads 1 vs --threads 2, default corpus, canonical allocator
#   threads-corpus-B  the same with --backend B forced in both arms, for every backend B this
#                   CPU runs (portable, asm, avx2, ifma)
#   sigmode-866342  --sig-checks inline vs many, block 866342, --threads 2
#   sigmode-corpus  --sig-checks inline vs many, default corpus, --threads 2
# Run it on a quiet machine; extra arguments go to every abrun (e.g. --strict, --wait-quiet 60).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
# The canonical posture (see the alloc-* campaigns): the allocator of the baselines and the
# thread-scaling campaigns.
CANONICAL_ALLOC=${CANONICAL_ALLOC:-system}
CORPUS_PAIRS=${CORPUS_PAIRS:-5}
BLOCK_PAIRS=${BLOCK_PAIRS:-9}

BIN=target/abrun-bin
mkdir -p "$BIN"
OUTDIR=${CARGO_TARGET_DIR:-target}/release
cargo build -q --release -p fullverify-experiments --bin replay
cp "$OUTDIR/replay" "$BIN/replay-system"
cargo build -q --release -p fullverify-experiments --bin replay --features mimalloc
cp "$OUTDIR/replay" "$BIN/replay-mimalloc"
# Leave the default build in place for whoever runs `cargo run --bin replay` next.
cargo build -q --release -p fullverify-experiments --bin replay

VEC=$(realpath --relative-to=. "${FULLVERIFY_VECTORS:-../shared/vectors}")
BLOCK="--source block $VEC/blocks_with_prevouts/mainnet_866342.block.zst --spent $VEC/blocks_with_prevouts/mainnet_866342.spent_utxos.json.zst"
[ -f "$VEC/blocks_with_prevouts/mainnet_866342.block.zst" ] || { echo "no block 866342 under $VEC" >&2; exit 1; }
CANON="$BIN/replay-$CANONICAL_ALLOC"

ab() { "$PY" experiments/python/abrun.py "$@" "${EXTRA[@]}"; }
EXTRA=("$@")

# campaign NAME TARGET CONTROL CANDIDATE TOPIC [SUFFIX]: the campaign NAME-TARGET on the
# default corpus (TARGET corpus, CORPUS_PAIRS pairs) or on block 866342 (TARGET 866342,
# BLOCK_PAIRS pairs, the block's arguments after each arm's). CONTROL and CANDIDATE are
# LABEL::BINARY::ARGS; the note reads "TOPIC, <the target>SUFFIX".
campaign() {
  local name=$1 target=$2 control=$3 candidate=$4 topic=$5 suffix=${6:-}
  local pairs=$CORPUS_PAIRS where="default corpus"
  if [ "$target" = 866342 ]; then
    pairs=$BLOCK_PAIRS where="block 866342" control+=" $BLOCK" candidate+=" $BLOCK"
  fi
  ab --name "$name-$target" --pairs "$pairs" --control "$control" --candidate "$candidate" \
    --note "$topic, $where$suffix"
}

ALLOC=("system::$BIN/replay-system::--threads 2" "mimalloc::$BIN/replay-mimalloc::--threads 2"
  "allocator calibration" "; canonical allocator: $CANONICAL_ALLOC")
ALLOC_CORPUS=$(campaign alloc corpus "${ALLOC[@]}")
ALLOC_BLOCK=$(campaign alloc 866342 "${ALLOC[@]}")
for target in corpus 866342; do
  campaign malloc "$target" "glibc default::$BIN/replay-system::--threads 2 --malloc default" \
    "glibc tuned::$BIN/replay-system::--threads 2 --malloc tuned" "glibc malloc settings (replay --malloc)"
done
for target in 866342 corpus; do
  campaign threads "$target" "1 thread::$CANON::--threads 1" "2 threads::$CANON::--threads 2" \
    "thread scaling" ", $CANONICAL_ALLOC allocator"
done
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
BACKENDS=(portable)
if has bmi2 adx; then BACKENDS+=(asm); fi
if has avx2 bmi2 adx; then BACKENDS+=(avx2); fi
if has avx512f avx512ifma avx512vl; then BACKENDS+=(ifma); fi
for b in "${BACKENDS[@]}"; do
  ab --name "threads-corpus-$b" --pairs "$CORPUS_PAIRS" \
    --control "1 thread::$CANON::--threads 1 --backend $b" --candidate "2 threads::$CANON::--threads 2 --backend $b" \
    --note "thread scaling with the $b backend forced, default corpus, $CANONICAL_ALLOC allocator"
done
for target in 866342 corpus; do
  campaign sigmode "$target" "inline::$CANON::--threads 2 --sig-checks inline" \
    "many::$CANON::--threads 2 --sig-checks many" \
    "signature checks inline vs deferred to verify_many" ", $CANONICAL_ALLOC allocator"
done

ARM=control; [ "$CANONICAL_ALLOC" = mimalloc ] && ARM=candidate
POSTURE="replay with the $CANONICAL_ALLOC allocator (with the system one: --malloc tuned, the default), --threads 2, the backend Backend::detect() picks, every signature checked"
"$PY" experiments/python/baseline.py --name replay-default --abrun "$ALLOC_CORPUS" --arm "$ARM" --posture "$POSTURE"
"$PY" experiments/python/baseline.py --name replay-866342 --abrun "$ALLOC_BLOCK" --arm "$ARM" --posture "$POSTURE"
