# SPDX-License-Identifier: MIT OR Apache-2.0
"""ECDSA over secp256k1 with Bitcoin Core's semantics.

* ``verify_rs``: the bare equation. r, s in [1, n-1]; m = msg32 mod n;
  R = (m/s)G + (r/s)Q; accept iff R != O and x(R) == r or x(R) == r + n
  (the second only possible when r + n < p). High S is accepted here.
* ``verify``: Core's ``CPubKey::Verify``: lax DER parse, normalize S to the
  low half (``secp256k1_ecdsa_signature_normalize``), then ``verify_rs``.
* ``parse_der_lax``: Core's ``ecdsa_signature_parse_der_lax`` (pubkey.cpp).
* ``is_valid_signature_encoding``: BIP66 strict DER (with the hash type byte);
  ``parse_der_strict`` applies it to a bare DER signature.
* ``sign``: RFC6979 (HMAC-SHA256 DRBG over key || msg mod n [|| extra]), low-S.
"""

import hashlib
import hmac

from . import group
from ._rust import mirrors
from .field import P
from .scalar import N
from .sha256 import sha256

__all__ = ["verify_rs", "verify", "sign", "sign_der", "encode_der", "parse_der_lax",
           "parse_der_strict", "is_valid_signature_encoding", "normalize_s", "rfc6979_nonce",
           "construct_r_plus_n_case"]


@mirrors("ecdsa.verify")
def verify_rs(q, msg32, r, s):
    """ECDSA verification equation on an affine public key point ``q``."""
    if q is None or not group.is_on_curve(q):
        return False
    if not (1 <= r < N and 1 <= s < N):
        return False
    m = int.from_bytes(msg32, "big") % N
    w = pow(s, -1, N)
    pt = group.ecmult(m * w % N, r * w % N, q)
    if pt is None:
        return False
    if pt[0] == r:
        return True
    # r+n case: x(R) in [n, p) reduces to r = x(R) - n.
    return r + N < P and pt[0] == r + N


@mirrors("ecdsa.normalize_s")
def normalize_s(r, s):
    """Map s to min(s, n - s)."""
    return r, (N - s if s > N // 2 else s)


def verify(pubkey_bytes, msg32, der_sig):
    """Core's CPubKey::Verify: pubkey parse, lax DER, normalize S, verify."""
    try:
        q = group.decode(pubkey_bytes)
    except ValueError:
        return False
    rs = parse_der_lax(der_sig)
    if rs is None:
        return False
    r, s = normalize_s(*rs)
    return verify_rs(q, msg32, r, s)


def _lax_header(sig, pos, tag):
    """The tag-and-length step Core's lax parser takes for the sequence and each integer.

    Needs ``tag`` at ``pos`` and a length byte after it. Returns ``(pos, lenbyte, long_form)``
    with ``pos`` past the length byte; in the long form (high bit set) ``lenbyte`` is the count
    of length bytes that follow, which must fit in ``sig``. None when the step fails.
    """
    n = len(sig)
    if pos == n or sig[pos] != tag:
        return None
    pos += 1
    if pos == n:
        return None
    lenbyte = sig[pos]
    pos += 1
    if not lenbyte & 0x80:
        return pos, lenbyte, False
    lenbyte -= 0x80
    if lenbyte > n - pos:
        return None
    return pos, lenbyte, True


@mirrors("ecdsa.parse_der_lax")
def parse_der_lax(sig):
    """Core's ecdsa_signature_parse_der_lax: returns (r, s) or None.

    Accepts BER-ish length encodings, ignores the sequence length, strips leading
    zeros; an R or S that does not fit in 32 bytes or is >= n yields (0, 0)
    (parsed, but never valid), exactly as Core does.
    """
    sig = bytes(sig)
    n = len(sig)
    head = _lax_header(sig, 0, 0x30)
    if head is None:
        return None
    pos, lenbyte, long_form = head
    if long_form:
        pos += lenbyte  # the sequence length itself is ignored
    ints = []
    for _ in range(2):
        head = _lax_header(sig, pos, 0x02)
        if head is None:
            return None
        pos, lenbyte, long_form = head
        if long_form:
            while lenbyte > 0 and sig[pos] == 0:
                pos += 1
                lenbyte -= 1
            if lenbyte >= 4:
                return None
            ilen = 0
            while lenbyte > 0:
                ilen = (ilen << 8) + sig[pos]
                pos += 1
                lenbyte -= 1
        else:
            ilen = lenbyte
        if ilen > n - pos:
            return None
        ints.append(sig[pos:pos + ilen])
        pos += ilen
    vals = []
    for b in ints:
        b = b.lstrip(b"\x00")
        if len(b) > 32:
            return (0, 0)
        vals.append(int.from_bytes(b, "big"))
    if vals[0] >= N or vals[1] >= N:
        return (0, 0)
    return vals[0], vals[1]


def is_valid_signature_encoding(sig):
    """BIP66 IsValidSignatureEncoding on DER || hashtype."""
    sig = bytes(sig)
    if len(sig) < 9 or len(sig) > 73:
        return False
    if sig[0] != 0x30 or sig[1] != len(sig) - 3:
        return False
    len_r = sig[3]
    if 5 + len_r >= len(sig):
        return False
    len_s = sig[5 + len_r]
    if len_r + len_s + 7 != len(sig):
        return False
    if sig[2] != 0x02 or len_r == 0 or sig[4] & 0x80:
        return False
    if len_r > 1 and sig[4] == 0 and not sig[5] & 0x80:
        return False
    if sig[len_r + 4] != 0x02 or len_s == 0 or sig[len_r + 6] & 0x80:
        return False
    if len_s > 1 and sig[len_r + 6] == 0 and not sig[len_r + 7] & 0x80:
        return False
    return True


@mirrors("ecdsa.parse_der_strict")
def parse_der_strict(der):
    """Strict DER (BIP66 rules) without hash type -> (r, s) ints (not reduced); ValueError."""
    der = bytes(der)
    if not is_valid_signature_encoding(der + b"\x01"):
        raise ValueError("not strict DER")
    len_r = der[3]
    r = int.from_bytes(der[4:4 + len_r], "big")
    s = int.from_bytes(der[6 + len_r:], "big")
    return r, s


def _der_int(v):
    b = v.to_bytes((v.bit_length() + 7) // 8 or 1, "big")
    if b[0] & 0x80:
        b = b"\x00" + b
    return b"\x02" + bytes([len(b)]) + b


def encode_der(r, s):
    body = _der_int(r) + _der_int(s)
    return b"\x30" + bytes([len(body)]) + body


def rfc6979_nonce(seckey, msg32, extra=None, counter=0):
    """RFC6979 HMAC-SHA256 nonce as libsecp256k1's nonce_function_rfc6979.

    Seed: key32 || (msg32 mod n as 32 bytes) [|| extra32]. ``counter`` skips that
    many accepted candidates (libsecp256k1's retry counter).
    """
    d = int.from_bytes(seckey, "big")
    m = (int.from_bytes(msg32, "big") % N).to_bytes(32, "big")
    seed = d.to_bytes(32, "big") + m + (bytes(extra) if extra else b"")
    v, k = b"\x01" * 32, b"\x00" * 32
    k = hmac.new(k, v + b"\x00" + seed, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + seed, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    retry = False
    while True:
        if retry:
            k = hmac.new(k, v + b"\x00", hashlib.sha256).digest()
            v = hmac.new(k, v, hashlib.sha256).digest()
        v = hmac.new(k, v, hashlib.sha256).digest()
        retry = True
        cand = int.from_bytes(v, "big")
        if 1 <= cand < N:
            if counter == 0:
                return cand
            counter -= 1


@mirrors("ecdsa.sign")
def sign(seckey, msg32, extra=None):
    """RFC6979 deterministic ECDSA signature (r, s) with low S."""
    d = int.from_bytes(seckey, "big")
    if not 1 <= d < N:
        raise ValueError("secret key out of range")
    m = int.from_bytes(msg32, "big") % N
    counter = 0
    while True:
        k = rfc6979_nonce(seckey, msg32, extra, counter)
        rp = group.mul_g(k)
        r = rp[0] % N
        s = pow(k, -1, N) * (m + r * d) % N
        if r != 0 and s != 0:
            return normalize_s(r, s)
        counter += 1


def sign_der(seckey, msg32, extra=None):
    return encode_der(*sign(seckey, msg32, extra))


def construct_r_plus_n_case(seed=b""):
    """A valid (pubkey point, msg32, r, s, R) whose nonce point has x(R) >= n.

    Pick the first x > n with x^3 + 7 square, R = lift(x), r = x - n; choose m, s
    from ``seed`` and solve for the key: Q = r^-1 (s R - m G). Then
    (m/s) G + (r/s) Q = R, so the signature verifies only through the r+n branch.
    Nobody knows the secret key of Q.
    """
    x = N + 1  # r = x - n must be nonzero
    while group.lift_x(x) is None:
        x += 1
    rpt = group.lift_x(x)
    r = x - N
    m = int.from_bytes(sha256(b"r+n msg" + seed), "big") % N
    s = int.from_bytes(sha256(b"r+n s" + seed), "big") % N or 1
    srm = group.affine_add(group.mul(s, rpt), group.affine_neg(group.mul_g(m)))
    q = group.mul(pow(r, -1, N), srm)
    return q, m.to_bytes(32, "big"), r, s, rpt
