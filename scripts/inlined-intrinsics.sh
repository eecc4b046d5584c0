#!/usr/bin/env bash
# Fails when a release binary holds an out-of-line SIMD intrinsic (a `core::arch` `_mm*`
# function compiled as its own symbol). That happens when vector code is reached through a
# function pointer, `Fn::call` or a non-inlined helper outside its `#[target_feature]`
# function: every lane operation becomes a call, and the eight-way kernels run twenty times
# slower while every test still passes.
set -euo pipefail
status=0
for bin in "$@"; do
  hits=$(nm -C "$bin" | grep -E 'core_arch::x86(_64)?::[a-z0-9_]+::_mm' || true)
  if [ -n "$hits" ]; then
    echo "$bin: out-of-line SIMD intrinsics:"
    echo "$hits" | head -20
    status=1
  else
    echo "$(basename "$bin"): every SIMD intrinsic inlined"
  fi
done
exit $status
