# SPDX-License-Identifier: MIT OR Apache-2.0
"""The committed core/tests/data/oracle_*.json files and the cross-check runner."""

import json

import pytest

from conftest import REPO_ROOT
from fullverify.oracle import ecdsa, glv, group, schnorr
from fullverify.oracle.field import P
from fullverify.oracle.scalar import N
from fullverify.oracle.tools import crosscheck, gen_vectors

DATA = REPO_ROOT / "core" / "tests" / "data"


@pytest.fixture(scope="module")
def generated():
    return gen_vectors.generate(gen_vectors.DEFAULT_SEED)


def test_committed_files_regenerate(generated):
    total = 0
    for name, obj in generated.items():
        text = (DATA / name).read_text()
        assert text == gen_vectors.dumps(obj), f"{name} is stale: rerun gen_vectors"
        loaded = json.loads(text)
        assert str(loaded["seed"]) in loaded["_comment"]
        total += len(text)
    assert total < 300_000


def _i(h):
    return int(h, 16)


def test_field_file_semantics():
    cases = json.loads((DATA / "oracle_field.json").read_text())["cases"]
    values = {_i(c["a"]) for c in cases}
    for must in (0, 1, P - 1, P - 2, 2**32 + 977, P - 2**32 - 977, 2**52 - 1):
        assert must in values
    for c in cases:
        a, b = _i(c["a"]), _i(c["b"])
        assert _i(c["mul"]) == a * b % P and _i(c["sqr"]) == a * a % P
        assert _i(c["add"]) == (a + b) % P and _i(c["neg"]) == -a % P
        assert a == 0 or _i(c["inv"]) * a % P == 1
        assert (c["sqrt"] is None) == (a != 0 and pow(a, (P - 1) // 2, P) != 1)
        assert c["sqrt"] is None or _i(c["sqrt"]) ** 2 % P == a


def test_scalar_and_glv_file_semantics():
    data = json.loads((DATA / "oracle_scalar.json").read_text())
    ks = set()
    for rec in data["glv"]:
        k = _i(rec["k"])
        ks.add(k)
        for variant in ("shift384", "exact"):
            s = rec[variant]
            k1 = int(s["k1_signed"].replace("-", "-0x") if "-" in s["k1_signed"] else "0x" + s["k1_signed"], 16)
            k2 = int(s["k2_signed"].replace("-", "-0x") if "-" in s["k2_signed"] else "0x" + s["k2_signed"], 16)
            assert (k1 + _i(data["lambda"]) * k2 - k) % N == 0
            assert abs(k1) < 2**128 and abs(k2) < 2**128
    for must in (0, 1, N - 1, glv.LAMBDA, N - glv.LAMBDA, 2**128, 2**128 - 1, N >> 1):
        assert must in ks
    assert any(not rec["roundings_agree"] for rec in data["glv"])


def test_wnaf_file_semantics():
    for c in json.loads((DATA / "oracle_wnaf.json").read_text())["cases"]:
        assert sum(d << i for i, d in c["digits"]) % N == _i(c["k"])
        assert all(abs(d) < 2 ** (c["w"] - 1) and d % 2 for _, d in c["digits"])


def test_signature_file_semantics():
    data = json.loads((DATA / "oracle_signatures.json").read_text())
    for c in data["ecdsa_verify"]:
        assert ecdsa.verify(bytes.fromhex(c["pubkey"]), bytes.fromhex(c["msg"]), bytes.fromhex(c["der"])) is c["valid"]
    assert any("r+n" in c["note"] and c["valid"] for c in data["ecdsa_verify"])
    for c in data["schnorr_verify"]:
        assert schnorr.verify(bytes.fromhex(c["msg"]), bytes.fromhex(c["pubkey"]), bytes.fromhex(c["sig"])) is c["valid"]
    for c in data["ecdsa_sign"][:3]:
        pt = group.mul_g(_i(c["seckey"]))
        assert ecdsa.verify_rs(pt, bytes.fromhex(c["msg"]), _i(c["r"]), _i(c["s"]))


def test_crosscheck_runner(vectors, capsys):
    assert crosscheck.main(["--vectors", str(vectors), "--data", str(DATA), "--max-inputs", "50"]) == 0
    out = capsys.readouterr().out.strip().splitlines()[-1]
    passed, failed = out.split(" passed, ")
    assert int(passed) > 550 and failed == "0 failed"


def test_oracle_imported_from_this_tree():
    import fullverify.oracle as oracle

    assert REPO_ROOT in __import__("pathlib").Path(oracle.__file__).resolve().parents
