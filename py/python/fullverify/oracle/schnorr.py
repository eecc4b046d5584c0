# SPDX-License-Identifier: MIT OR Apache-2.0
"""BIP340 Schnorr signatures, following the BIP's reference algorithm step by step."""

from . import group
from ._rust import mirrors
from .field import P
from .scalar import N
from .sha256 import tagged_hash

__all__ = ["pubkey_gen", "sign", "verify"]


def _xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def pubkey_gen(seckey):
    """x-only public key bytes(d*G)."""
    d = int.from_bytes(seckey, "big")
    if not 1 <= d < N:
        raise ValueError("secret key out of range")
    return group.mul_g(d)[0].to_bytes(32, "big")


@mirrors("schnorr.sign")
def sign(msg, seckey, aux_rand):
    """BIP340 Sign(sk, m, a). ``msg`` may have any length; aux_rand is 32 bytes."""
    if len(aux_rand) != 32:
        raise ValueError("aux_rand must be 32 bytes")
    d0 = int.from_bytes(seckey, "big")
    if not 1 <= d0 < N:
        raise ValueError("secret key out of range")
    pt = group.mul_g(d0)
    d = d0 if pt[1] % 2 == 0 else N - d0
    t = _xor(d.to_bytes(32, "big"), tagged_hash("BIP0340/aux", aux_rand))
    px = pt[0].to_bytes(32, "big")
    k0 = int.from_bytes(tagged_hash("BIP0340/nonce", t + px + msg), "big") % N
    if k0 == 0:
        raise ValueError("nonce is zero")
    rpt = group.mul_g(k0)
    k = k0 if rpt[1] % 2 == 0 else N - k0
    rx = rpt[0].to_bytes(32, "big")
    e = int.from_bytes(tagged_hash("BIP0340/challenge", rx + px + msg), "big") % N
    sig = rx + ((k + e * d) % N).to_bytes(32, "big")
    if not verify(msg, px, sig):
        raise AssertionError("produced signature does not verify")
    return sig


@mirrors("schnorr.verify")
def verify(msg, pubkey, sig):
    """BIP340 Verify(pk, m, sig)."""
    if len(pubkey) != 32 or len(sig) != 64:
        return False
    pt = group.lift_x(int.from_bytes(pubkey, "big"))
    r = int.from_bytes(sig[:32], "big")
    s = int.from_bytes(sig[32:], "big")
    if pt is None or r >= P or s >= N:
        return False
    e = int.from_bytes(tagged_hash("BIP0340/challenge", sig[:32] + pubkey + msg), "big") % N
    rpt = group.affine_add(group.mul_g(s), group.affine_neg(group.mul(e, pt)))
    if rpt is None or rpt[1] % 2 != 0 or rpt[0] != r:
        return False
    return True
