# SPDX-License-Identifier: MIT OR Apache-2.0
"""Type stubs for the Rust extension ``fullverify._native``."""

from collections.abc import Iterable
from typing import Optional, Union, final



__version__: str


class Error(ValueError):
    """Malformed input: wrong lengths, non-canonical encodings, invalid values."""

def backend() -> str:
    """The backend in use: ``"portable"``, ``"asm"`` or ``"ifma"``."""

def available_backends() -> list[str]:
    """Backends this CPU and build can run, worst first."""

def sha256(data: bytes) -> bytes:
    """SHA-256 of ``data``."""

def sha256d(data: bytes) -> bytes:
    """Double SHA-256 of ``data``."""

def tagged_hash(tag: Union[str, bytes], msg: bytes) -> bytes:
    """BIP340 tagged hash ``SHA256(SHA256(tag) || SHA256(tag) || msg)``."""

def merkle_root(hashes: Iterable[bytes], backend: Optional[str] = None) -> tuple[bytes, bool]:
    """Bitcoin merkle root of 32-byte hashes and Core's CVE-2012-2459 ``mutated`` flag."""

def sha256d64(messages: Iterable[bytes], backend: Optional[str] = None) -> list[bytes]:
    """Double SHA-256 of each 64-byte message."""

@final
class MuHash3072:
    """MuHash3072, Bitcoin Core's rolling set hash (``gettxoutsetinfo muhash``)."""

    def __new__(cls, data: Optional[bytes] = None) -> "MuHash3072": ...
    def insert(self, data: bytes) -> "MuHash3072":
        """Adds ``data`` to the set."""
    def remove(self, data: bytes) -> "MuHash3072":
        """Removes ``data`` from the set."""
    def __imul__(self, other: "MuHash3072", /) -> "MuHash3072": ...
    def __itruediv__(self, other: "MuHash3072", /) -> "MuHash3072": ...
    def finalize(self) -> bytes:
        """The 32-byte digest (raw SHA-256 output)."""
    def serialize(self) -> bytes:
        """Core's 768-byte serialization."""
    @staticmethod
    def deserialize(data: bytes) -> "MuHash3072": ...
    def __copy__(self) -> "MuHash3072": ...
