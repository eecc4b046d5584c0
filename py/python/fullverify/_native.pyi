# SPDX-License-Identifier: MIT OR Apache-2.0
"""Type stubs for the Rust extension ``fullverify._native``."""

from collections.abc import Iterable, Iterator
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

def use_backend(name: Optional[str] = None) -> None:
    """Forces the backend for calls that name none; ``None`` returns to detection."""

# ---- secp256k1: field elements are ints in [0, p), scalars ints in [0, n) ----

def fe_add(a: int, b: int) -> int: ...
def fe_sub(a: int, b: int) -> int: ...
def fe_neg(a: int) -> int: ...
def fe_mul(a: int, b: int) -> int: ...
def fe_sqr(a: int) -> int: ...
def fe_inv(a: int) -> int:
    """Constant-time inverse mod p (0 maps to 0)."""
def fe_inv_vartime(a: int) -> int:
    """Variable-time (safegcd) inverse mod p (0 maps to 0)."""
def fe_sqrt(a: int) -> Optional[int]:
    """A square root mod p, or None for a non-square."""
def scalar_add(a: int, b: int) -> int: ...
def scalar_neg(a: int) -> int: ...
def scalar_mul(a: int, b: int) -> int: ...
def scalar_inv(a: int) -> int: ...
def scalar_inv_vartime(a: int) -> int: ...

@final
class GlvSplit:
    """``k = k1 + lambda*k2 (mod n)``; unpacks as ``k1, k2`` (values mod n)."""

    @property
    def k(self) -> int: ...
    @property
    def k1(self) -> int: ...
    @property
    def k2(self) -> int: ...
    @property
    def k1_signed(self) -> int: ...
    @property
    def k2_signed(self) -> int: ...
    @property
    def c1(self) -> int: ...
    @property
    def c2(self) -> int: ...
    @property
    def fallback(self) -> bool: ...
    def __iter__(self) -> Iterator[int]: ...

def glv_split(k: int) -> GlvSplit:
    """GLV split with the lattice intermediates."""
def wnaf(k: int, w: int) -> list[int]:
    """Width-w NAF digits, least significant first; a scalar above n/2 is written as -(n - k)."""

@final
class Point:
    """A secp256k1 point (affine) or the point at infinity."""

    def __new__(cls, x: int, y: int) -> "Point": ...
    @staticmethod
    def generator() -> "Point": ...
    @staticmethod
    def infinity() -> "Point": ...
    @staticmethod
    def parse(data: bytes) -> "Point": ...
    @staticmethod
    def lift_x(x: int, odd: bool = False) -> "Point": ...
    @staticmethod
    def mul_generator(k: int) -> "Point": ...
    def serialize(self, compressed: bool = True) -> bytes: ...
    @property
    def x(self) -> Optional[int]: ...
    @property
    def y(self) -> Optional[int]: ...
    @property
    def is_infinity(self) -> bool: ...
    def __add__(self, other: "Point", /) -> "Point": ...
    def __sub__(self, other: "Point", /) -> "Point": ...
    def __neg__(self) -> "Point": ...
    def __mul__(self, k: int, /) -> "Point": ...
    def __rmul__(self, k: int, /) -> "Point": ...
    def double(self) -> "Point": ...
    def lincomb(self, a: int, b: int) -> "Point":
        """``a*self + b*G`` by the verification machinery."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...

def ecdsa_sign(seckey: bytes, msg32: bytes) -> bytes:
    """RFC6979 ECDSA with low S; DER-encoded."""
def ecdsa_verify(pubkey: bytes, msg32: bytes, sig_der: bytes, backend: Optional[str] = None) -> bool:
    """Bitcoin Core semantics: lax DER, high S accepted; malformed input verifies False."""
def ecdsa_parse_der(sig_der: bytes, lax: bool = False) -> tuple[int, int]: ...
def pubkey_from_secret(seckey: bytes, compressed: bool = True) -> bytes: ...
def schnorr_sign(seckey: bytes, msg: bytes, aux_rand: Optional[bytes] = None) -> bytes:
    """BIP340 signature."""
def schnorr_verify(pubkey: bytes, msg: bytes, sig: bytes, backend: Optional[str] = None) -> bool:
    """BIP340 verification; malformed input verifies False."""
def xonly_pubkey(seckey: bytes) -> bytes: ...
def xonly_tweak_add(internal: bytes, tweak: bytes) -> tuple[bytes, bool]:
    """BIP341 output key ``internal + tweak*G``: ``(xonly, odd_y)``."""
def time_ecdsa_verify(
    items: list[tuple[bytes, bytes, bytes]], repeat: int = 1, backend: Optional[str] = None
) -> float:
    """Nanoseconds per verification of ``(pubkey, msg32, der)`` items, timed inside Rust."""
