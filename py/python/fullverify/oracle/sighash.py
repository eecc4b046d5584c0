# SPDX-License-Identifier: MIT OR Apache-2.0
"""Signature hashes: legacy (Core's SignatureHash for SigVersion::BASE), BIP143, BIP341/342.

Legacy quirks reproduced:
* input index out of range, or SIGHASH_SINGLE with no matching output, return the
  "one" hash 0x01 00..00 (the SIGHASH_SINGLE bug) instead of failing;
* OP_CODESEPARATORs are removed from the scriptCode while serializing (Core's
  ``SerializeScriptCode``, including its behaviour on a script whose last push is
  truncated: the declared length counts every byte, the bytes written stop where
  the failed GetOp stopped);
* the signature itself is removed from the scriptCode with ``find_and_delete``
  before hashing by the CHECKSIG caller (``legacy_sighash_for_checksig``);
* the 4-byte hash type is appended as a signed int32, the full value.
"""

from ._rust import mirrors
from .sha256 import sha256, sha256d, tagged_hash
from .tx import ser_bytes, ser_compact_size

SIGHASH_DEFAULT = 0
SIGHASH_ALL = 1
SIGHASH_NONE = 2
SIGHASH_SINGLE = 3
SIGHASH_ANYONECANPAY = 0x80
OP_CODESEPARATOR = 0xAB
ONE = (1).to_bytes(32, "little")

__all__ = [
    "get_op", "find_and_delete", "push_data", "legacy_sighash", "legacy_sighash_for_checksig",
    "bip143_preimage", "bip143_sighash", "bip341_sigmsg", "bip341_sighash", "ONE",
]


def get_op(script, pc):
    """Core's GetScriptOp: returns (ok, opcode, data, new_pc).

    On failure new_pc is where Core's iterator stopped (after the opcode and any
    length bytes it managed to read).
    """
    end = len(script)
    if pc >= end:
        return False, None, None, pc
    op = script[pc]
    pc += 1
    if op <= 0x4E:
        if op < 0x4C:
            size = op
        else:
            width = {0x4C: 1, 0x4D: 2, 0x4E: 4}[op]
            if end - pc < width:
                return False, op, None, pc
            size = int.from_bytes(script[pc:pc + width], "little")
            pc += width
        if end - pc < size:
            return False, op, None, pc
        data = script[pc:pc + size]
        return True, op, data, pc + size
    return True, op, None, pc


def push_data(data):
    """The minimal push used by Core's ``CScript() << data`` for FindAndDelete patterns."""
    n = len(data)
    if n < 0x4C:
        return bytes([n]) + data
    if n <= 0xFF:
        return b"\x4c" + bytes([n]) + data
    if n <= 0xFFFF:
        return b"\x4d" + n.to_bytes(2, "little") + data
    return b"\x4e" + n.to_bytes(4, "little") + data


@mirrors("sighash.find_and_delete")
def find_and_delete(script, pattern):
    """Core's FindAndDelete: remove every opcode-aligned occurrence of ``pattern``.

    Returns (new_script, count). Matching is tried at each opcode boundary, and
    repeatedly (a match directly after a match is also removed).
    """
    script, pattern = bytes(script), bytes(pattern)
    if not pattern:
        return script, 0
    result = b""
    found = 0
    pc = pc2 = 0
    while True:
        result += script[pc2:pc]
        while len(script) - pc >= len(pattern) and script[pc:pc + len(pattern)] == pattern:
            pc += len(pattern)
            found += 1
        pc2 = pc
        ok, _, _, pc = get_op(script, pc)
        if not ok:
            break
    if found:
        result += script[pc2:]
        return result, found
    return script, 0


def _serialize_script_code(script):
    """Core's CTransactionSignatureSerializer::SerializeScriptCode."""
    pc = 0
    seps = 0
    while True:
        ok, op, _, pc = get_op(script, pc)
        if not ok:
            break
        if op == OP_CODESEPARATOR:
            seps += 1
    out = ser_compact_size(len(script) - seps)
    begin = pc = 0
    while True:
        ok, op, _, pc = get_op(script, pc)
        if not ok:
            break
        if op == OP_CODESEPARATOR:
            out += script[begin:pc - 1]
            begin = pc
    if begin != len(script):
        out += script[begin:pc]
    return out


def legacy_preimage(tx, n_in, script_code, hash_type):
    """The bytes hashed by ``legacy_sighash`` (None where the result is ONE)."""
    script_code = bytes(script_code)
    base = hash_type & 0x1F
    anyone = bool(hash_type & SIGHASH_ANYONECANPAY)
    single, none = base == SIGHASH_SINGLE, base == SIGHASH_NONE
    if n_in >= len(tx.vin):
        return None
    if single and n_in >= len(tx.vout):
        return None
    out = tx.version.to_bytes(4, "little", signed=True)
    inputs = [n_in] if anyone else range(len(tx.vin))
    out += ser_compact_size(len(inputs))
    for i in inputs:
        txin = tx.vin[i]
        out += txin.prevout.serialize()
        out += _serialize_script_code(script_code) if i == n_in else b"\x00"
        seq = 0 if (i != n_in and (single or none)) else txin.sequence
        out += seq.to_bytes(4, "little")
    n_out = 0 if none else (n_in + 1 if single else len(tx.vout))
    out += ser_compact_size(n_out)
    for j in range(n_out):
        if single and j != n_in:
            out += (-1).to_bytes(8, "little", signed=True) + b"\x00"
        else:
            out += tx.vout[j].serialize()
    out += tx.locktime.to_bytes(4, "little")
    out += (hash_type & 0xFFFFFFFF).to_bytes(4, "little")
    return out


@mirrors("sighash.legacy")
def legacy_sighash(tx, n_in, script_code, hash_type):
    """Legacy (pre-segwit) sighash, 32 bytes in internal order (Core's SignatureHash, BASE).

    ``hash_type`` is the full signed/unsigned 32-bit value; only bits 0x1f and 0x80
    select behaviour, all 32 bits are committed.
    """
    pre = legacy_preimage(tx, n_in, script_code, hash_type)
    return ONE if pre is None else sha256d(pre)


def legacy_sighash_for_checksig(tx, n_in, script_code, sig_with_type):
    """What OP_CHECKSIG hashes for a legacy input: FindAndDelete(scriptCode, push(sig)) first."""
    cleaned, _ = find_and_delete(script_code, push_data(bytes(sig_with_type)))
    return legacy_sighash(tx, n_in, cleaned, sig_with_type[-1] if sig_with_type else 0)


@mirrors("sighash.bip143")
def bip143_preimage(tx, n_in, script_code, amount, hash_type):
    """BIP143 preimage for segwit v0 (scriptCode as given, no OP_CODESEPARATOR removal).

    1 nVersion | 2 hashPrevouts | 3 hashSequence | 4 outpoint | 5 scriptCode |
    6 amount | 7 nSequence | 8 hashOutputs | 9 nLocktime | 10 sighash type.
    """
    base = hash_type & 0x1F
    anyone = bool(hash_type & SIGHASH_ANYONECANPAY)
    zero = bytes(32)
    hash_prevouts = zero if anyone else sha256d(b"".join(i.prevout.serialize() for i in tx.vin))
    if anyone or base in (SIGHASH_SINGLE, SIGHASH_NONE):
        hash_sequence = zero
    else:
        hash_sequence = sha256d(b"".join(i.sequence.to_bytes(4, "little") for i in tx.vin))
    if base not in (SIGHASH_SINGLE, SIGHASH_NONE):
        hash_outputs = sha256d(b"".join(o.serialize() for o in tx.vout))
    elif base == SIGHASH_SINGLE and n_in < len(tx.vout):
        hash_outputs = sha256d(tx.vout[n_in].serialize())
    else:
        hash_outputs = zero
    txin = tx.vin[n_in]
    return (
        tx.version.to_bytes(4, "little", signed=True)
        + hash_prevouts
        + hash_sequence
        + txin.prevout.serialize()
        + ser_bytes(script_code)
        + amount.to_bytes(8, "little", signed=True)
        + txin.sequence.to_bytes(4, "little")
        + hash_outputs
        + tx.locktime.to_bytes(4, "little")
        + (hash_type & 0xFFFFFFFF).to_bytes(4, "little")
    )


def bip143_sighash(tx, n_in, script_code, amount, hash_type):
    return sha256d(bip143_preimage(tx, n_in, script_code, amount, hash_type))


VALID_BIP341_TYPES = (0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83)


@mirrors("sighash.bip341")
def bip341_sigmsg(tx, n_in, spent, hash_type, annex=None, leaf_hash=None, codesep_pos=0xFFFFFFFF,
                  key_version=0):
    """BIP341 SigMsg(hash_type, ext_flag) (without the 0x00 epoch), plus BIP342 ext.

    ``spent``: list of TxOut for every input. ``annex``: the annex bytes including
    the 0x50 prefix, or None. ``leaf_hash`` given => script path (ext_flag = 1)
    and the BIP342 extension (tapleaf_hash || key_version || codesep_pos) follows.
    Raises ValueError for an invalid hash type or SIGHASH_SINGLE without a
    matching output (Core's SignatureHashSchnorr returns false).
    """
    if hash_type not in VALID_BIP341_TYPES:
        raise ValueError("invalid BIP341 hash type")
    if len(spent) != len(tx.vin) or n_in >= len(tx.vin):
        raise ValueError("spent outputs do not match inputs")
    out_type = SIGHASH_ALL if hash_type == 0 else hash_type & 3
    anyone = bool(hash_type & SIGHASH_ANYONECANPAY)
    ext_flag = 0 if leaf_hash is None else 1
    m = bytes([hash_type])
    m += tx.version.to_bytes(4, "little", signed=True) + tx.locktime.to_bytes(4, "little")
    if not anyone:
        m += sha256(b"".join(i.prevout.serialize() for i in tx.vin))
        m += sha256(b"".join(o.value.to_bytes(8, "little", signed=True) for o in spent))
        m += sha256(b"".join(ser_bytes(o.script_pubkey) for o in spent))
        m += sha256(b"".join(i.sequence.to_bytes(4, "little") for i in tx.vin))
    if out_type == SIGHASH_ALL:
        m += sha256(b"".join(o.serialize() for o in tx.vout))
    spend_type = ext_flag * 2 + (1 if annex is not None else 0)
    m += bytes([spend_type])
    if anyone:
        txin = tx.vin[n_in]
        m += txin.prevout.serialize() + spent[n_in].serialize() + txin.sequence.to_bytes(4, "little")
    else:
        m += n_in.to_bytes(4, "little")
    if annex is not None:
        m += sha256(ser_bytes(annex))
    if out_type == SIGHASH_SINGLE:
        if n_in >= len(tx.vout):
            raise ValueError("SIGHASH_SINGLE without matching output")
        m += sha256(tx.vout[n_in].serialize())
    if leaf_hash is not None:
        m += bytes(leaf_hash) + bytes([key_version]) + codesep_pos.to_bytes(4, "little")
    return m


def bip341_sighash(*args, **kwargs):
    """hash_TapSighash(0x00 || SigMsg)."""
    return tagged_hash("TapSighash", b"\x00" + bip341_sigmsg(*args, **kwargs))
