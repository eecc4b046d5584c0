# SPDX-License-Identifier: MIT OR Apache-2.0
"""Type stubs for the Rust extension ``fullverify._native``."""

from collections.abc import Iterable
from typing import Optional, Union

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
