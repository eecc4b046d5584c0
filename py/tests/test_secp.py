# SPDX-License-Identifier: MIT OR Apache-2.0
"""secp256k1 bindings against the pure-Python oracle (exact integer arithmetic)."""

import hashlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fullverify
from fullverify.oracle import ecdsa as o_ecdsa
from fullverify.oracle import field as o_field
from fullverify.oracle import glv as o_glv
from fullverify.oracle import group as o_group
from fullverify.oracle import scalar as o_scalar
from fullverify.oracle import schnorr as o_schnorr

P = o_field.P
N = o_scalar.N
LAMBDA = o_glv.LAMBDA

# Structured values first: 0, 1, p-1, 2^k and 2^k +- 1, limb-saturated values, C = 2^32 + 977.
EDGE = sorted(
    {0, 1, 2, 3, 2**32 + 977}
    | {2**k + d for k in (32, 52, 64, 104, 128, 156, 192, 208, 255) for d in (-1, 0, 1)}
    | {sum((2**52 - 1) << (52 * i) for i in range(j)) for j in range(1, 5)}
)
fes = st.one_of(st.sampled_from([e % P for e in EDGE] + [P - 1, P - 2, P - (2**32 + 977)]), st.integers(0, P - 1))
scalars = st.one_of(
    st.sampled_from(
        [e % N for e in EDGE] + [N - 1, N - 2, N >> 1, (N >> 1) + 1, LAMBDA, N - LAMBDA, 2**128, 2**128 - 1]
    ),
    st.integers(0, N - 1),
)
nonzero = scalars.filter(lambda k: k != 0)
keys = st.integers(1, N - 1).map(lambda k: k.to_bytes(32, "big"))
msgs32 = st.binary(min_size=32, max_size=32)
MANY = settings(max_examples=1000, deadline=None)
SOME = settings(max_examples=300, deadline=None)


@SOME
@given(fes, fes)
def test_field_ops_vs_oracle(a: int, b: int) -> None:
    assert fullverify.fe_add(a, b) == o_field.add(a, b)
    assert fullverify.fe_sub(a, b) == o_field.sub(a, b)
    assert fullverify.fe_mul(a, b) == o_field.mul(a, b)
    assert fullverify.fe_sqr(a) == o_field.sqr(a)
    assert fullverify.fe_neg(a) == o_field.neg(a)
    assert fullverify.fe_inv(a) == fullverify.fe_inv_vartime(a) == o_field.inv(a)
    r = fullverify.fe_sqrt(a)
    assert (r is None) == (o_field.sqrt(a) is None)
    if r is not None:
        assert r * r % P == a


@SOME
@given(scalars, scalars)
def test_scalar_ops_vs_oracle(a: int, b: int) -> None:
    assert fullverify.scalar_add(a, b) == o_scalar.add(a, b)
    assert fullverify.scalar_mul(a, b) == o_scalar.mul(a, b)
    assert fullverify.scalar_neg(a) == o_scalar.neg(a)
    assert fullverify.scalar_inv(a) == fullverify.scalar_inv_vartime(a) == o_scalar.inv(a)


@MANY
@given(scalars)
@example(o_glv.near_half_k(1))
@example(o_glv.near_half_k(2))
def test_glv_split_vs_oracle(k: int) -> None:
    s = fullverify.glv_split(k)
    k1, k2 = s
    assert (k1 + LAMBDA * k2) % N == k
    assert (s.k1_signed + LAMBDA * s.k2_signed) % N == k
    assert abs(s.k1_signed) < 2**128 and abs(s.k2_signed) < 2**128
    assert not s.fallback
    ref = o_glv.split_lambda(k)
    assert (s.k1, s.k2, s.c1, s.c2) == (ref.k1, ref.k2, ref.c1, ref.c2)
    assert (s.k1_signed, s.k2_signed) == (ref.k1_signed, ref.k2_signed)


@SOME
@given(scalars, st.sampled_from([2, 4, 5, 8, 15, 16]))
def test_wnaf_reconstructs_and_matches_oracle(k: int, w: int) -> None:
    digits = fullverify.wnaf(k, w)
    assert sum(d << i for i, d in enumerate(digits)) % N == k
    for i, d in enumerate(digits):
        if d:
            assert d % 2 and abs(d) < 2 ** (w - 1)
            assert not any(digits[i + 1 : i + w])
    # A scalar above n/2 stands for -(n - k), so GLV halves give short streams. The width-w NAF
    # of an integer is unique, so the digits equal the oracle's exactly.
    want = [-d for d in o_glv.wnaf(N - k, w)] if k > N // 2 else o_glv.wnaf(k, w)
    assert digits == want


@SOME
@given(nonzero, nonzero)
def test_point_ops_vs_oracle(a: int, b: int) -> None:
    pa, pb = fullverify.Point.mul_generator(a), fullverify.Point.mul_generator(b)
    ra, rb = o_group.mul_g(a), o_group.mul_g(b)
    assert (pa.x, pa.y) == ra
    s = pa + pb
    rs = o_group.affine_add(ra, rb)
    assert (s.x, s.y) == ((None, None) if rs is None else rs)
    assert (pa.double().x, pa.double().y) == o_group.affine_double(ra)
    assert (pa - pa).is_infinity and (pa + (-pa)).is_infinity
    assert pa + pa == pa.double()
    assert pb * a == pa * b == fullverify.Point.mul_generator(o_scalar.mul(a, b))
    assert pa.lincomb(b, a) == pa * b + fullverify.Point.mul_generator(a)
    for comp in (True, False):
        enc = pa.serialize(compressed=comp)
        assert enc == o_group.encode(ra, compressed=comp)
        assert fullverify.Point.parse(enc) == pa
    x, y = pa.x, pa.y
    assert x is not None and y is not None
    assert fullverify.Point.lift_x(x) == fullverify.Point(x, y if y % 2 == 0 else P - y)


def test_infinity_and_degenerate_shapes() -> None:
    g = fullverify.Point.generator()
    inf = fullverify.Point.infinity()
    assert inf.is_infinity and inf.x is None
    assert g + inf == g and inf + g == g and inf + inf == inf
    assert g * 0 == inf and (g * (N - 1)) == -g
    with pytest.raises(ValueError):
        inf.serialize()


@MANY
@given(keys, msgs32)
def test_ecdsa_sign_verify_vs_oracle(sk: bytes, msg: bytes) -> None:
    sig = fullverify.ecdsa_sign(sk, msg)
    assert sig == o_ecdsa.sign_der(sk, msg)
    pub = fullverify.pubkey_from_secret(sk)
    assert fullverify.ecdsa_verify(pub, msg, sig)
    assert o_ecdsa.verify(pub, msg, sig)
    bad = bytes([msg[0] ^ 1]) + msg[1:]
    assert not fullverify.ecdsa_verify(pub, bad, sig)
    assert fullverify.ecdsa_verify(pub, bad, sig) == o_ecdsa.verify(pub, bad, sig)


@SOME
@given(keys, msgs32, st.integers(0, 8 * 70 - 1))
def test_ecdsa_mutated_signature_verdicts_agree(sk: bytes, msg: bytes, bit: int) -> None:
    sig = bytearray(fullverify.ecdsa_sign(sk, msg))
    bit %= 8 * len(sig)
    sig[bit // 8] ^= 1 << (bit % 8)
    pub = fullverify.pubkey_from_secret(sk, compressed=False)
    assert fullverify.ecdsa_verify(pub, msg, bytes(sig)) == o_ecdsa.verify(pub, msg, bytes(sig))


def test_ecdsa_high_s_and_r_plus_n() -> None:
    sk = hashlib.sha256(b"high-s").digest()
    msg = hashlib.sha256(b"m").digest()
    r, s = fullverify.ecdsa_parse_der(fullverify.ecdsa_sign(sk, msg))
    high = o_ecdsa.encode_der(r, N - s)
    pub = fullverify.pubkey_from_secret(sk)
    assert fullverify.ecdsa_verify(pub, msg, high)  # consensus accepts high S
    # A signature whose nonce point has x(R) >= n: valid only through the r + n branch.
    q, m, r, s2, _ = o_ecdsa.construct_r_plus_n_case()
    qpub = o_group.encode(q)
    der = o_ecdsa.encode_der(r, s2)
    assert o_ecdsa.verify(qpub, m, der)
    assert fullverify.ecdsa_verify(qpub, m, der)
    assert not fullverify.ecdsa_verify(qpub, m, o_ecdsa.encode_der(r + 1, s2))


@MANY
@given(keys, st.binary(max_size=100), st.binary(min_size=32, max_size=32))
def test_schnorr_sign_verify_vs_oracle(sk: bytes, msg: bytes, aux: bytes) -> None:
    sig = fullverify.schnorr_sign(sk, msg, aux)
    pub = fullverify.xonly_pubkey(sk)
    assert pub == o_schnorr.pubkey_gen(sk)
    assert sig == o_schnorr.sign(msg, sk, aux)
    assert fullverify.schnorr_verify(pub, msg, sig)
    flipped = bytes([sig[0] ^ 0x80]) + sig[1:]
    assert fullverify.schnorr_verify(pub, msg, flipped) == o_schnorr.verify(msg, pub, flipped) is False


def test_every_backend_agrees() -> None:
    sk = hashlib.sha256(b"backend").digest()
    msg = hashlib.sha256(b"msg").digest()
    sig, pub = fullverify.ecdsa_sign(sk, msg), fullverify.pubkey_from_secret(sk)
    ssig, xpub = fullverify.schnorr_sign(sk, msg), fullverify.xonly_pubkey(sk)
    for b in fullverify.available_backends():
        assert fullverify.ecdsa_verify(pub, msg, sig, backend=b)
        assert fullverify.schnorr_verify(xpub, msg, ssig, backend=b)
        fullverify.use_backend(b)
        assert fullverify.backend() == b
        assert fullverify.ecdsa_verify(pub, msg, sig)
    fullverify.use_backend(None)
    with pytest.raises(ValueError):
        fullverify.use_backend("nonsense")


def test_taproot_tweak_vs_oracle() -> None:
    from fullverify.oracle import taproot as o_taproot

    sk = hashlib.sha256(b"internal").digest()
    internal = fullverify.xonly_pubkey(sk)
    tweak = fullverify.tagged_hash("TapTweak", internal)
    q, parity = fullverify.xonly_tweak_add(internal, tweak)
    assert (q, int(parity)) == o_taproot.tweak_pubkey(internal)
    point = fullverify.Point.lift_x(int.from_bytes(internal, "big")) + fullverify.Point.mul_generator(
        int.from_bytes(tweak, "big")
    )
    assert q == point.serialize()[1:] and parity == (point.serialize()[0] == 3)


@pytest.mark.parametrize(
    "call",
    [
        lambda: fullverify.fe_mul(P, 1),
        lambda: fullverify.fe_mul(-1, 1),
        lambda: fullverify.fe_mul(2**256, 1),
        lambda: fullverify.scalar_mul(N, 1),
        lambda: fullverify.wnaf(1, 1),
        lambda: fullverify.Point(1, 1),
        lambda: fullverify.Point.parse(b"\x02" + b"\xff" * 32),
        lambda: fullverify.Point.parse(b"\x05" + bytes(32)),
        lambda: fullverify.Point.lift_x(P - 1 if o_field.sqrt((pow(P - 1, 3, P) + 7) % P) is None else 5),
        lambda: fullverify.ecdsa_sign(bytes(32), bytes(32)),
        lambda: fullverify.ecdsa_sign(bytes(31), bytes(32)),
        lambda: fullverify.ecdsa_verify(bytes(33), bytes(31), b""),
        lambda: fullverify.schnorr_sign(N.to_bytes(32, "big"), b""),
        lambda: fullverify.ecdsa_parse_der(b"\x30\x00"),
        lambda: fullverify.xonly_tweak_add(b"\xff" * 32, bytes(32)),
    ],
)
def test_bad_input_raises_value_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        call()


def test_malformed_verify_input_is_false() -> None:
    assert not fullverify.ecdsa_verify(b"\x02" + bytes(32), bytes(32), b"\x30\x06\x02\x01\x01\x02\x01\x01")
    assert not fullverify.ecdsa_verify(b"", bytes(32), b"")
    assert not fullverify.schnorr_verify(bytes(32), b"", bytes(64))
    assert not fullverify.schnorr_verify(bytes(31), b"", bytes(64))


def test_wrong_types_raise_type_error() -> None:
    with pytest.raises(TypeError):
        fullverify.fe_mul("1", 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        fullverify.Point.mul_generator(1.0)  # type: ignore[arg-type]


def test_verify_many_matches_single_on_every_backend() -> None:
    keys = [hashlib.sha256(bytes([i])).digest() for i in range(19)]
    msgs = [hashlib.sha256(b"m" + bytes([i])).digest() for i in range(19)]
    eitems = [(fullverify.pubkey_from_secret(k), m, fullverify.ecdsa_sign(k, m)) for k, m in zip(keys, msgs)]
    sitems = [(fullverify.xonly_pubkey(k), m, fullverify.schnorr_sign(k, m)) for k, m in zip(keys, msgs)]
    # Invalid items in several lanes: another message, a malformed key, a truncated signature.
    eitems[3] = (eitems[3][0], msgs[4], eitems[3][2])
    eitems[9] = (b"\x05" + eitems[9][0][1:], eitems[9][1], eitems[9][2])
    sitems[0] = (sitems[0][0], msgs[1], sitems[0][2])
    sitems[17] = (sitems[17][0], sitems[17][1], sitems[17][2][:63])
    for b in fullverify.available_backends():
        want_e = [fullverify.ecdsa_verify(p, m, s, backend=b) for p, m, s in eitems]
        want_s = [fullverify.schnorr_verify(p, m, s, backend=b) for p, m, s in sitems]
        assert fullverify.ecdsa_verify_many(eitems, backend=b) == want_e
        assert fullverify.schnorr_verify_many(sitems, backend=b) == want_s
        assert want_e.count(False) == 2 and want_s.count(False) == 2
    assert fullverify.ecdsa_verify_many([]) == []
    with pytest.raises(fullverify.Error):
        fullverify.ecdsa_verify_many([(eitems[0][0], b"short", eitems[0][2])])
