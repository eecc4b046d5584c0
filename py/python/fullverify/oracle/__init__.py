# SPDX-License-Identifier: MIT OR Apache-2.0
"""fullverify.oracle: a pure-Python, exact-arithmetic reference for the Rust core.

Written for clarity, not speed; imports only the standard library. Every public
function names the Rust function it mirrors in its docstring (table in
``_rust.RUST_NAMES``). Modules:

field, scalar   F_p and Z_n on plain ints
group           affine/Jacobian points, encodings, lift_x (spec-checked formulas)
glv             lambda/beta, split_lambda (exact and 384-bit-shift rounding), wNAF
ecdsa, schnorr  Core-semantics ECDSA (lax DER, r+n), RFC6979; BIP340
sha256          sha256, sha256d, tagged hashes, merkle root with mutation flag
tx              CompactSize (strict), transactions, blocks, txid/wtxid
sighash         legacy (FindAndDelete, SINGLE bug, OP_CODESEPARATOR), BIP143, BIP341/342
taproot         tweaks, leaf/branch hashes, control blocks
muhash          MuHash3072 with a pure-Python ChaCha20
spec            the ``spec_checked`` decorator
tools           gen_vectors (core/tests/data/oracle_*.json), crosscheck (external vectors),
                realdata (signature checks on real spends)
"""

from . import ecdsa, field, glv, group, muhash, scalar, schnorr, sha256, sighash, spec, taproot, tx
from ._rust import RUST_NAMES

__all__ = ["ecdsa", "field", "glv", "group", "muhash", "scalar", "schnorr", "sha256", "sighash",
           "spec", "taproot", "tx", "RUST_NAMES"]
