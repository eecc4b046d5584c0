# SPDX-License-Identifier: MIT OR Apache-2.0
"""fullverify: a Bitcoin full-verification workbench.

The fast core is the Rust extension ``fullverify._native``, re-exported here; the pure-Python
exact-arithmetic reference it is checked against is ``fullverify.oracle``.

>>> import fullverify
>>> fullverify.sha256d(b"").hex()[:16]
'5df6e0e2761359d3'
"""

from fullverify._native import (
    Error,
    __version__,
    available_backends,
    backend,
    merkle_root,
    sha256,
    sha256d,
    sha256d64,
    tagged_hash,
)

__all__ = [
    "Error",
    "__version__",
    "available_backends",
    "backend",
    "merkle_root",
    "sha256",
    "sha256d",
    "sha256d64",
    "tagged_hash",
]
