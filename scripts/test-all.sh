#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs every test dependency (idempotently) and runs every test:
# Rust (unit, integration, vectors, conformance), Python (pytest + mypy), WASM (Node.js and
# headless Chromium) and the notebooks. Works on a fresh Debian machine with rustup, Python 3,
# Node.js and npm; run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export FULLVERIFY_VECTORS="${FULLVERIFY_VECTORS:-$ROOT/../shared/vectors}"
if [ ! -d "$FULLVERIFY_VECTORS" ]; then
  [ "${FULLVERIFY_REQUIRE_VECTORS:-}" = 1 ] && { echo "FAIL: FULLVERIFY_REQUIRE_VECTORS=1 but no vectors at $FULLVERIFY_VECTORS" >&2; exit 1; }
  echo "WARNING: no vectors at $FULLVERIFY_VECTORS: vector tests will SKIP" >&2
fi

step() { printf '\n==== %s (at %ss) ====\n' "$*" "$SECONDS"; }
SECONDS=0
# A fresh clone builds everything once: incremental compilation would only add its overhead.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

step "install: Rust wasm target, wasm-bindgen-cli, chromium, strace, Python venv (npm packages: web/test.sh)"
rustup target add wasm32-unknown-unknown >/dev/null
rustup component add clippy rustfmt >/dev/null 2>&1 || rustup component add clippy rustfmt
WBG_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' web/Cargo.toml)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WBG_VERSION" ]; then
  # --locked fails for this crate here; the version is pinned exactly instead.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi
# Debian packages: chromium (the page's test), strace (the kill-inside-a-flush test).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v strace >/dev/null || missing+=(strace)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -r py/requirements-test.txt
export PATH="$ROOT/.venv/bin:$PATH" VIRTUAL_ENV="$ROOT/.venv"

step "rust: formatting and lints (rustfmt, clippy -D warnings)"
cargo fmt --all --check
cargo clippy --workspace --all-targets -q -- -D warnings
# The browser build of the core (no on-disk store there) and the core without its store.
cargo clippy -q --target wasm32-unknown-unknown -p fullverify-web -- -D warnings
cargo clippy -q -p fullverify --lib --no-default-features -- -D warnings
echo "rustfmt and clippy: clean"

step "layout and docs: core files and import circles (scripts/layout.py), cargo doc -D warnings"
python scripts/layout.py
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -q -p fullverify -p fullverify-driver -p fullverify-testkit
echo "cargo doc: no warnings"

step "rust: cargo test (core, testkit, experiments)"
cargo test --workspace --exclude fullverify-py --exclude fullverify-web 2>&1

step "rust: a missing vector fails under FULLVERIFY_REQUIRE_VECTORS=1 and names the file"
EMPTY=$(mktemp -d)
if out=$(FULLVERIFY_VECTORS="$EMPTY" FULLVERIFY_REQUIRE_VECTORS=1 \
    cargo test -q -p fullverify --test sighash_vectors 2>&1); then
  echo "$out"; echo "FAIL: the vector tests passed with an empty vectors folder"; exit 1
fi
grep -q "vector file core/sighash.json not found" <<<"$out" || { echo "$out"; echo "FAIL: missing file not named"; exit 1; }
rmdir "$EMPTY"
echo "an empty vectors folder fails as required"

if [ -f experiments/src/bin/conformance.rs ]; then
  step "conformance runner on the external vectors"
  if [ -d "$FULLVERIFY_VECTORS" ]; then
    cargo run -q --release -p fullverify-experiments --bin conformance -- --vectors "$FULLVERIFY_VECTORS"
  else
    echo "SKIP conformance: no vectors"
  fi
fi

step "aarch64 under qemu-user: core tests (a subset), conformance, the Python module (scripts/aarch64)"
bash scripts/aarch64

step "experiments: smoke runs into a scratch results folder"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
cargo run -q --release -p fullverify-experiments --bin hashbench -- --quick --out "$SCRATCH/results"
cargo run -q --release -p fullverify-experiments --bin sigbench -- --quick --out "$SCRATCH/results"
cargo run -q --release -p fullverify-experiments --bin sighashbench -- --quick --out "$SCRATCH/results"
# The main job as the README's first command runs it (default source), packet into scratch.
mkdir -p "$SCRATCH/results/replay"
cargo run -q --release -p fullverify-experiments --bin replay -- --json "$SCRATCH/results/replay/smoke.json"
REPLAY="$(cargo metadata -q --format-version 1 --no-deps | python -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/replay"
bash scripts/inlined-intrinsics.sh "$REPLAY" "$(dirname "$REPLAY")/sigbench"
# An A/B campaign (3 interleaved pairs, 1 vs 2 threads, to height 150) and a baseline from it.
AB=$(python experiments/python/abrun.py --name smoke --pairs 3 --warmup 0 --settle 0.2 \
  --control "1 thread::$REPLAY::--threads 1 --stop-height 150" \
  --candidate "2 threads::$REPLAY::--threads 2 --stop-height 150" \
  --out "$SCRATCH/results" --scratch "$SCRATCH/abrun-runs")
python experiments/python/baseline.py --name smoke --abrun "$AB" --arm candidate \
  --posture "smoke run" --out "$SCRATCH/results"

step "fuzz: every target for a few seconds (scripts/fuzz, nightly toolchain), packet into scratch"
if rustup run nightly rustc --version >/dev/null 2>&1; then
  # The corpus and the artifacts go to scratch too; fuzz/target is kept between runs.
  FUZZ_CORPUS="$SCRATCH/fuzz-corpus" FUZZ_ARTIFACTS="$SCRATCH/fuzz-artifacts" \
    FULLVERIFY_RESULTS="$SCRATCH/results" bash scripts/fuzz 5
else
  echo "SKIP fuzz: no nightly toolchain"
fi

step "python: build the extension, pytest, mypy"
(cd py && maturin develop --release -q)
python experiments/python/pybench.py --quick --out "$SCRATCH/results"
# Callgrind counts of the portable kernels (installs valgrind if missing) and the phase split.
python experiments/python/profile.py --quick --no-build --out "$SCRATCH/results"
FULLVERIFY_SCRATCH_RESULTS="$SCRATCH/results" python -m pytest py/tests -q -p no:cacheprovider
# Strict typing of every test of the native module against the stubs (the oracle is untyped).
python -m mypy --config-file py/pyproject.toml py/python/fullverify/swiftsync.py $(ls py/tests/test_*.py | grep -v '/test_oracle_')
python -m mypy.stubtest fullverify._native --allowlist py/stubtest-allowlist.txt

step "wasm: wasm-bindgen-test under Node.js, page in headless Chromium"
bash web/test.sh

step "notebooks: execute headless into a scratch figures folder"
for nb in notebooks/*.ipynb; do
  FULLVERIFY_ROOT="$ROOT" FULLVERIFY_FIGURES="$SCRATCH/figures" \
    jupyter nbconvert --to notebook --execute --output-dir "$SCRATCH/nb" "$nb" --log-level=WARN
  echo "executed $nb"
done
python - "$SCRATCH/figures" <<'PY'
import sys, pathlib
figs = sorted(p.name for p in pathlib.Path(sys.argv[1]).iterdir())
nbs = sorted(pathlib.Path("notebooks").glob("*.ipynb"))
missing = [nb.stem for nb in nbs if not any(f.startswith(nb.stem) and f.endswith(".png") for f in figs)]
print(f"notebooks: {len(nbs) - len(missing)} passed, {len(missing)} failed")
sys.exit(1 if missing else 0)
PY

printf '\n==== all tests passed in %ss ====\n' "$SECONDS"
