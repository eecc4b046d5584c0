#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the explorer's wasm package and runs every web test:
#   1. the crate's native unit tests (hex parsing, sighash/GLV/signature views);
#   2. the npm package web/www/pkg: cargo build, wasm-bindgen --target web, wasm-opt (binaryen
#      from npm, arguments from Cargo.toml's wasm-pack metadata) and package.json: the layout
#      `wasm-pack build --target web` produces, without needing wasm-pack;
#   3. the wasm-bindgen-test suite as wasm under Node.js;
#   4. the page in headless Chromium (web/e2e, node --test with playwright-core).
# Needs wasm-bindgen-cli at the version pinned in web/Cargo.toml, the wasm32-unknown-unknown
# target, Node.js >= 20 with npm, and Chromium (CHROMIUM=... overrides /usr/bin/chromium).
# Leaves the page ready to serve in web/www (see web/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "web/test.sh: $*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }

# --- tools -----------------------------------------------------------------------------------
command -v cargo >/dev/null || die "cargo not found"
want_wbg=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' web/Cargo.toml)
[ -n "$want_wbg" ] || die "could not read the pinned wasm-bindgen version from web/Cargo.toml"
command -v wasm-bindgen >/dev/null ||
  die "wasm-bindgen not found; install it with: cargo install wasm-bindgen-cli --version $want_wbg"
have_wbg=$(wasm-bindgen --version | awk '{print $2}')
[ "$have_wbg" = "$want_wbg" ] ||
  die "wasm-bindgen is $have_wbg but web/Cargo.toml pins $want_wbg; install it with: cargo install wasm-bindgen-cli --version $want_wbg"
command -v wasm-bindgen-test-runner >/dev/null ||
  die "wasm-bindgen-test-runner not found (it comes with wasm-bindgen-cli $want_wbg)"
[ -d "$(rustc --print target-libdir --target wasm32-unknown-unknown)" ] ||
  die "the wasm32-unknown-unknown target is missing; add it with: rustup target add wasm32-unknown-unknown"
command -v node >/dev/null || die "node not found (Node.js >= 20 is needed)"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
  die "Node.js $(node --version) is too old; >= 20 is needed"
command -v npm >/dev/null || die "npm not found"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] || die "no Chromium at $CHROMIUM; install it (Debian: apt-get install chromium) or set CHROMIUM=/path/to/chromium"

target_dir=$(cargo metadata --format-version 1 --no-deps |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')

# --- build -----------------------------------------------------------------------------------
step "native unit tests (fullverify-web --lib)"
cargo test -p fullverify-web --lib

step "npm dependencies (web/: playwright-core, binaryen)"
if [ -f web/package-lock.json ]; then
  (cd web && npm ci --no-audit --no-fund)
else
  (cd web && npm install --no-audit --no-fund)
fi

step "build the wasm module (release)"
cargo build -p fullverify-web --target wasm32-unknown-unknown --release

step "wasm-bindgen --target web, wasm-opt, package.json -> web/www/pkg"
rm -rf web/www/pkg
wasm-bindgen --target web --out-dir web/www/pkg \
  "$target_dir/wasm32-unknown-unknown/release/fullverify_web.wasm"
cargo metadata --format-version 1 --no-deps | node web/npm/package-json.mjs web/www/pkg
read -r -a opt_args < web/www/pkg/.wasm-opt-args || true  # no trailing newline
rm web/www/pkg/.wasm-opt-args
if [ "${#opt_args[@]}" -gt 0 ]; then
  web/node_modules/.bin/wasm-opt "${opt_args[@]}" web/www/pkg/fullverify_web_bg.wasm \
    -o web/www/pkg/fullverify_web_bg.wasm
fi
wasm_bytes=$(wc -c < web/www/pkg/fullverify_web_bg.wasm)
echo "fullverify_web_bg.wasm: $wasm_bytes bytes"
[ "$wasm_bytes" -le 1500000 ] || die "the wasm module is $wasm_bytes bytes, over the 1.5 MB budget"
(cd web/www/pkg && npm pack --dry-run --json >/dev/null) || die "npm pack fails on web/www/pkg"

# --- tests -----------------------------------------------------------------------------------
step "wasm-bindgen-test under Node.js"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test -p fullverify-web --target wasm32-unknown-unknown --tests

step "page in headless Chromium (node --test web/e2e/)"
node --test web/e2e/

echo
echo "web/test.sh: all web tests passed; screenshots in target/web-*.png"
