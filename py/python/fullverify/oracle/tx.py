# SPDX-License-Identifier: MIT OR Apache-2.0
"""Consensus encoding: strict CompactSize, transactions (BIP144 witness form), blocks.

Mirrors Core's ``UnserializeTransaction``: an empty input vector followed by a
flag byte selects the extended (witness) format; flag bit 0 means witnesses
follow; a witness flag with all-empty witnesses is "Superfluous witness record";
unknown flag bits are rejected. CompactSize must be canonical (shortest form) and
at most MAX_SIZE = 0x02000000 (Core's ``ReadCompactSize`` with range check).
"""

from dataclasses import dataclass, field
from typing import List

from ._rust import mirrors
from .sha256 import merkle_root, sha256d

MAX_SIZE = 0x02000000

__all__ = [
    "MAX_SIZE", "DecodeError", "Reader", "ser_compact_size", "read_compact_size", "ser_bytes",
    "OutPoint", "TxIn", "TxOut", "Tx", "parse_tx", "Block", "parse_block",
]


class DecodeError(ValueError):
    """Malformed or non-canonical consensus encoding."""


class Reader:
    def __init__(self, data, pos=0):
        self.data = bytes(data)
        self.pos = pos

    def read(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise DecodeError("unexpected end of data")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u8(self):
        return self.read(1)[0]

    def u32(self):
        return int.from_bytes(self.read(4), "little")

    def i32(self):
        return int.from_bytes(self.read(4), "little", signed=True)

    def i64(self):
        return int.from_bytes(self.read(8), "little", signed=True)

    def compact_size(self, range_check=True):
        return read_compact_size(self, range_check)

    def var_bytes(self):
        return self.read(self.compact_size())

    def at_end(self):
        return self.pos == len(self.data)


def ser_compact_size(n):
    if n < 0xFD:
        return bytes([n])
    if n <= 0xFFFF:
        return b"\xfd" + n.to_bytes(2, "little")
    if n <= 0xFFFFFFFF:
        return b"\xfe" + n.to_bytes(4, "little")
    return b"\xff" + n.to_bytes(8, "little")


@mirrors("tx.compact_size")
def read_compact_size(r, range_check=True):
    """Read a canonical CompactSize from a Reader; non-canonical forms raise DecodeError."""
    b = r.u8()
    if b < 0xFD:
        v = b
    elif b == 0xFD:
        v = int.from_bytes(r.read(2), "little")
        if v < 0xFD:
            raise DecodeError("non-canonical ReadCompactSize()")
    elif b == 0xFE:
        v = int.from_bytes(r.read(4), "little")
        if v < 0x10000:
            raise DecodeError("non-canonical ReadCompactSize()")
    else:
        v = int.from_bytes(r.read(8), "little")
        if v < 0x100000000:
            raise DecodeError("non-canonical ReadCompactSize()")
    if range_check and v > MAX_SIZE:
        raise DecodeError("ReadCompactSize(): size too large")
    return v


def ser_bytes(b):
    return ser_compact_size(len(b)) + bytes(b)


@dataclass
class OutPoint:
    txid: bytes  # internal byte order
    n: int

    def serialize(self):
        return self.txid + self.n.to_bytes(4, "little")


@dataclass
class TxIn:
    prevout: OutPoint
    script_sig: bytes
    sequence: int
    witness: List[bytes] = field(default_factory=list)


@dataclass
class TxOut:
    value: int
    script_pubkey: bytes

    def serialize(self):
        return self.value.to_bytes(8, "little", signed=True) + ser_bytes(self.script_pubkey)


@dataclass
class Tx:
    version: int
    vin: List[TxIn]
    vout: List[TxOut]
    locktime: int

    def has_witness(self):
        return any(i.witness for i in self.vin)

    @mirrors("tx.serialize")
    def serialize(self, with_witness=True):
        """Consensus serialization; BIP144 extended form iff with_witness and any witness."""
        ext = with_witness and self.has_witness()
        out = self.version.to_bytes(4, "little", signed=True)
        if ext:
            out += b"\x00\x01"
        out += ser_compact_size(len(self.vin))
        for i in self.vin:
            out += i.prevout.serialize() + ser_bytes(i.script_sig) + i.sequence.to_bytes(4, "little")
        out += ser_compact_size(len(self.vout))
        for o in self.vout:
            out += o.serialize()
        if ext:
            for i in self.vin:
                out += ser_compact_size(len(i.witness))
                for item in i.witness:
                    out += ser_bytes(item)
        return out + self.locktime.to_bytes(4, "little")

    @mirrors("tx.txid")
    def txid(self):
        """sha256d of the non-witness serialization (internal byte order)."""
        return sha256d(self.serialize(with_witness=False))

    @mirrors("tx.wtxid")
    def wtxid(self):
        """sha256d of the witness serialization (internal byte order)."""
        return sha256d(self.serialize(with_witness=True))


def _read_inputs(r):
    return [
        TxIn(OutPoint(r.read(32), r.u32()), r.var_bytes(), r.u32())
        for _ in range(r.compact_size())
    ]


def _read_outputs(r):
    return [TxOut(r.i64(), r.var_bytes()) for _ in range(r.compact_size())]


def read_tx(r, allow_witness=True):
    version = r.i32()
    flags = 0
    vin = _read_inputs(r)
    vout = []
    if not vin and allow_witness:
        flags = r.u8()
        if flags != 0:
            vin = _read_inputs(r)
            vout = _read_outputs(r)
    else:
        vout = _read_outputs(r)
    if (flags & 1) and allow_witness:
        flags ^= 1
        for i in vin:
            i.witness = [r.var_bytes() for _ in range(r.compact_size())]
        if not any(i.witness for i in vin):
            raise DecodeError("Superfluous witness record")
    if flags:
        raise DecodeError("Unknown transaction optional data")
    locktime = r.u32()
    return Tx(version, vin, vout, locktime)


@mirrors("tx.parse")
def parse_tx(data, allow_witness=True):
    """Parse exactly one transaction from bytes (trailing data is an error)."""
    r = Reader(data)
    tx = read_tx(r, allow_witness)
    if not r.at_end():
        raise DecodeError("trailing data after transaction")
    return tx


@dataclass
class Block:
    header: bytes
    txs: List[Tx]

    @property
    def version(self):
        return int.from_bytes(self.header[0:4], "little", signed=True)

    @property
    def prev_hash(self):
        return self.header[4:36]

    @property
    def merkle_root(self):
        return self.header[36:68]

    def hash(self):
        return sha256d(self.header)

    def compute_merkle_root(self):
        """(root, mutated) over txids."""
        return merkle_root([t.txid() for t in self.txs])

    def compute_witness_merkle_root(self):
        """(root, mutated) over wtxids with the coinbase's replaced by zero."""
        return merkle_root([bytes(32)] + [t.wtxid() for t in self.txs[1:]])


@mirrors("tx.parse_block")
def parse_block(data):
    """80-byte header || CompactSize tx count || transactions; no trailing data."""
    r = Reader(data)
    header = r.read(80)
    txs = [read_tx(r) for _ in range(r.compact_size())]
    if not r.at_end():
        raise DecodeError("trailing data after block")
    return Block(header, txs)
