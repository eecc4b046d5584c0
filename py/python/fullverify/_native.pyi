# SPDX-License-Identifier: MIT OR Apache-2.0
"""Type stubs for the Rust extension ``fullverify._native``."""

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Optional, Union, final



__version__: str


class Error(ValueError):
    """Malformed input: wrong lengths, non-canonical encodings, invalid values."""

def backend() -> str:
    """The backend in use: ``"portable"``, ``"asm"``, ``"avx2"`` or ``"ifma"``."""

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
def schnorr_verify_batch(items: list[tuple[bytes, bytes, bytes]], backend: Optional[str] = None) -> bool:
    """BIP340 batch verification of ``(pubkey32, msg, sig64)`` items: True when all are valid."""
def schnorr_find_invalid(items: list[tuple[bytes, bytes, bytes]], backend: Optional[str] = None) -> list[int]:
    """Indices (ascending) of the invalid items; malformed keys or signatures count as invalid."""
def ecdsa_verify_many(items: Sequence[tuple[bytes, bytes, bytes]], backend: Optional[str] = None) -> list[bool]:
    """``ecdsa_verify`` on each ``(pubkey, msg32, sig_der)``; eight at a time on the ifma and avx2 backends."""
def schnorr_verify_many(items: Sequence[tuple[bytes, bytes, bytes]], backend: Optional[str] = None) -> list[bool]:
    """``schnorr_verify`` on each ``(pubkey32, msg, sig64)``; eight at a time on the ifma and avx2 backends."""
def xonly_pubkey(seckey: bytes) -> bytes: ...
def xonly_tweak_add(internal: bytes, tweak: bytes) -> tuple[bytes, bool]:
    """BIP341 output key ``internal + tweak*G``: ``(xonly, odd_y)``."""
def time_ecdsa_verify(
    items: list[tuple[bytes, bytes, bytes]], repeat: int = 1, backend: Optional[str] = None
) -> float:
    """Nanoseconds per verification of ``(pubkey, msg32, der)`` items, timed inside Rust."""

# ---- transactions, sighash, script, blocks (hashes in internal byte order) ----

_SpentOutputs = list[tuple[int, bytes]]

@final
class Transaction:
    """A parsed transaction (BIP144 extended format accepted)."""

    @staticmethod
    def parse(data: bytes) -> "Transaction": ...
    def serialize(self, witness: bool = True) -> bytes: ...
    @property
    def version(self) -> int: ...
    @property
    def locktime(self) -> int: ...
    @property
    def txid(self) -> bytes: ...
    @property
    def wtxid(self) -> bytes: ...
    @property
    def txid_hex(self) -> str: ...
    @property
    def weight(self) -> int: ...
    @property
    def vsize(self) -> int: ...
    @property
    def has_witness(self) -> bool: ...
    @property
    def is_coinbase(self) -> bool: ...
    @property
    def inputs(self) -> list[dict[str, Any]]: ...
    @property
    def outputs(self) -> list[tuple[int, bytes]]: ...
    def check(self) -> Optional[str]:
        """Core's CheckTransaction: None, or the reject reason."""

@final
class Block:
    """A parsed block."""

    @staticmethod
    def parse(data: bytes) -> "Block": ...
    @property
    def hash(self) -> bytes: ...
    @property
    def hash_hex(self) -> str: ...
    @property
    def header(self) -> dict[str, Any]: ...
    @property
    def transactions(self) -> list[Transaction]: ...
    def merkle_root(self) -> tuple[bytes, bool]: ...
    def witness_merkle_root(self) -> bytes: ...
    @property
    def weight(self) -> int: ...
    @property
    def legacy_sigops(self) -> int: ...
    def __len__(self) -> int: ...

_TxLike = Union[Transaction, bytes]

def legacy_sighash(tx: _TxLike, index: int, script_code: bytes, hash_type: int) -> bytes: ...
def bip143_preimage(tx: _TxLike, index: int, script_code: bytes, amount: int, hash_type: int) -> bytes: ...
def bip143_sighash(tx: _TxLike, index: int, script_code: bytes, amount: int, hash_type: int) -> bytes: ...
def bip143_hashes(tx: _TxLike) -> dict[str, bytes]: ...
def bip341_hashes(tx: _TxLike, spent_outputs: _SpentOutputs) -> dict[str, bytes]: ...
def bip341_sigmsg(
    tx: _TxLike,
    index: int,
    spent_outputs: _SpentOutputs,
    hash_type: int,
    annex: Optional[bytes] = None,
    leaf_hash: Optional[bytes] = None,
    codesep_pos: int = 0xFFFFFFFF,
) -> bytes:
    """0x00 epoch byte followed by SigMsg (and BIP342's extension for a script path)."""
# bip341_sigmsg's parameters again: a stub spells out each function's own signature.
def bip341_sighash(
    tx: _TxLike,
    index: int,
    spent_outputs: _SpentOutputs,
    hash_type: int,
    annex: Optional[bytes] = None,
    leaf_hash: Optional[bytes] = None,
    codesep_pos: int = 0xFFFFFFFF,
) -> bytes: ...
def verify_input(tx: _TxLike, index: int, spent_outputs: _SpentOutputs, flags: Union[int, str]) -> tuple[bool, str]:
    """``(ok, error_name)`` with Core's ScriptError names ("OK" on success)."""
def verify_tx(tx: _TxLike, spent_outputs: _SpentOutputs, flags: Union[int, str]) -> list[tuple[bool, str]]: ...
def parse_asm(asm: str) -> bytes: ...
def to_asm(script: bytes) -> str: ...
def script_flags() -> dict[str, int]: ...
def script_error_names() -> list[str]: ...

# ---- block validation and replay ----

_SpentCoin = Union[tuple[int, bytes], tuple[int, bytes, int, bool], dict[str, Any]]

def check_block(
    block: bytes,
    spent_outputs: Iterable[_SpentCoin],
    height: int,
    network: str = "mainnet",
    threads: int = 0,
    backend: Optional[str] = None,
) -> Optional[str]:
    """Core's reject reason for the block, or None when it is valid.

    ``spent_outputs``: one per non-coinbase input in block order, ``(amount, script_pubkey)``,
    ``(amount, script_pubkey, height, coinbase)`` or a dict with those keys (``amount`` and
    ``script_pubkey`` required). Rules that need ancestors (nBits, median time past, BIP30)
    are skipped.
    """

def replay(
    source: Union[str, "os.PathLike[str]"],
    *,
    network: str = "mainnet",
    threads: int = 0,
    dbcache_mb: int = 450,
    stop_height: Optional[int] = None,
    datadir: Union[str, "os.PathLike[str]", None] = None,
    backend: Optional[str] = None,
    muhash: str = "final",
) -> dict[str, Any]:
    """Replays a framed (``magic | u32 LE length | block``) or hex (one block per line) file
    with every consensus rule, in memory or resuming the chain state in ``datadir``.

    Returns ``height``, ``tip``, ``utxo_count``, ``total_amount``, ``muhash`` (the state at
    the tip), ``blocks``, ``txs``, ``inputs``, ``wall_s``, ``inputs_per_s``, ``network``,
    ``resumed_from_height``, ``notes`` (what the source skipped, each with its file and byte
    offset) and ``error`` (None, or the invalid block's ``reason``, ``height``, ``hash``,
    ``tx``, ``input`` and ``message``). A source that cannot be read raises ``Error`` with the
    ``replay`` binary's message, naming the file and byte offset.
    """

@final
class SwiftPlan:
    """The located chain of a Core blocks directory and its checked headers: the index and
    header pass of a SwiftSync run (BIP 457), made on the client and sent to workers as bytes
    (``fullverify.swiftsync`` drives a whole run)."""

    @staticmethod
    def open(
        blocks_dir: Union[str, "os.PathLike[str]"], network: str = "mainnet", now: Optional[int] = None
    ) -> "SwiftPlan": ...
    @staticmethod
    def from_bytes(data: bytes, blocks_dir: Union[str, "os.PathLike[str]", None] = None) -> "SwiftPlan": ...
    def to_bytes(self) -> bytes: ...
    @property
    def network(self) -> str: ...
    @property
    def blocks(self) -> int: ...
    @property
    def tip_height(self) -> int: ...
    @property
    def tip_hash(self) -> str: ...
    @property
    def header_error(self) -> Optional[tuple[str, int]]: ...
    @property
    def plan_seconds(self) -> tuple[float, float]: ...
    def ranges(self, range_blocks: Optional[int] = None, workers: int = 1) -> list[tuple[int, int]]: ...
    def check_hints(self, hints: bytes) -> None: ...
    def bundle(self, first: int, last: int) -> bytes: ...
    def validate_range(
        self,
        hints: bytes,
        salt: bytes,
        first: int,
        last: int,
        backend: Optional[str] = None,
        sig_mode: Optional[str] = None,
        bundle: Optional[bytes] = None,
    ) -> bytes: ...
    def merge(
        self,
        salt: bytes,
        results: Sequence[tuple[int, bytes]],
        hints_path: Union[str, "os.PathLike[str]"],
        hints_len: int,
        engine: str,
        workers: int,
        backend: Optional[str] = None,
        sig_mode: Optional[str] = None,
        range_blocks: Optional[int] = None,
        order: Optional[int] = None,
        wall_s: float = 0.0,
        blocks_s: float = 0.0,
    ) -> str: ...
    @staticmethod
    def result_stats(result: bytes) -> dict[str, Any]: ...
