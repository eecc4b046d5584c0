#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the k256 peer (web/bench/k256-wasm, outside the main workspace) and the explorer's
# module, runs the same wasm-opt pass as web/test.sh on both (binaryen from web/node_modules;
# run `npm ci` in web/ first), then times both in one Node.js process. Writes
# results/web/<run-id>.json (or the path given as $1). Pass --quick as $2 for a smoke run.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-}"
target_dir=$(cargo metadata --format-version 1 --no-deps |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cargo build -p fullverify-web --target wasm32-unknown-unknown --release
wasm-bindgen --target web --out-dir "$scratch/fullverify" \
  "$target_dir/wasm32-unknown-unknown/release/fullverify_web.wasm"
(cd web/bench/k256-wasm && CARGO_TARGET_DIR="$target_dir/k256-wasm" \
  cargo build --target wasm32-unknown-unknown --release)
wasm-bindgen --target web --out-dir "$scratch/k256" \
  "$target_dir/k256-wasm/wasm32-unknown-unknown/release/k256_wasm_peer.wasm"
cargo metadata --format-version 1 --no-deps | node web/npm/package-json.mjs "$scratch/fullverify"
read -r -a opt_args < "$scratch/fullverify/.wasm-opt-args" || true  # no trailing newline
for wasm in "$scratch/fullverify/fullverify_web_bg.wasm" "$scratch/k256/k256_wasm_peer_bg.wasm"; do
  web/node_modules/.bin/wasm-opt "${opt_args[@]}" "$wasm" -o "$wasm"
done
node web/bench/bench.mjs "$scratch/fullverify" "$scratch/k256" "${out:-results/web}" ${2:-}
