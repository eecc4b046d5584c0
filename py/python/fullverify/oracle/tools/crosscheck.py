# SPDX-License-Identifier: MIT OR Apache-2.0
"""Cross-check the oracle against external vectors and the committed oracle vectors.

Usage (from the repository root)::

    PYTHONPATH=py/python python3 -m fullverify.oracle.tools.crosscheck --vectors ../shared/vectors \\
        [--data core/tests/data] [--max-inputs 500] [-v]

Prints one line per failed check (every check with -v) and finally
``N passed, M failed``; the exit status is 1 when anything failed or no check ran.
"""

import argparse
import csv
import json
import os
import pathlib
import sys

from .. import muhash, schnorr, sighash, taproot
from ..sha256 import sha256d
from ..tx import TxOut, parse_block, parse_tx
from . import realdata


class Runner:
    def __init__(self, verbose=False):
        self.passed = 0
        self.failed = 0
        self.verbose = verbose

    def check(self, name, fn):
        try:
            ok = bool(fn())
            detail = ""
        except Exception as exc:  # noqa: BLE001 - a crash is a failed check
            ok, detail = False, f" ({type(exc).__name__}: {exc})"
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        if self.verbose or not ok:
            print(f"{'ok  ' if ok else 'FAIL'} {name}{detail}")


def check_bip340(r, v):
    rows = list(csv.DictReader(open(v / "bips" / "bip340_test_vectors.csv")))
    r.check("bip340: 19 vectors present", lambda: len(rows) == 19)
    for row in rows:
        pk, msg, sig = (bytes.fromhex(row[k]) for k in ("public key", "message", "signature"))
        want = row["verification result"] == "TRUE"
        r.check(f"bip340 verify #{row['index']}", lambda: schnorr.verify(msg, pk, sig) is want)
        if row["secret key"]:
            sk, aux = bytes.fromhex(row["secret key"]), bytes.fromhex(row["aux_rand"])
            r.check(f"bip340 sign #{row['index']}", lambda: schnorr.sign(msg, sk, aux) == sig)


def check_legacy(r, v):
    cases = [c for c in json.load(open(v / "core" / "sighash.json")) if len(c) == 5]
    r.check("core/sighash.json: 500 cases present", lambda: len(cases) == 500)
    for i, (raw, script, n_in, ht, want) in enumerate(cases):
        r.check(f"legacy sighash #{i}", lambda: sighash.legacy_sighash(
            parse_tx(bytes.fromhex(raw)), n_in, bytes.fromhex(script), ht)[::-1].hex() == want)


def check_bip143(r, v):
    for i, c in enumerate(json.load(open(v / "bips" / "bip143_sighash_examples.json"))):
        def one(c=c):
            tx = parse_tx(bytes.fromhex(c["unsigned_tx"]))
            pre = sighash.bip143_preimage(tx, c["input_index"], bytes.fromhex(c["script_code"]),
                                          c["amount"], c["hash_type"])
            return pre.hex() == c["preimage"] and sha256d(pre).hex() == c["sighash"]
        r.check(f"bip143 #{i} {c['example']}", one)


def check_bip341(r, v):
    path = v / "core" / "bip341_wallet_vectors.json"
    r.check("bip341: core copy == bips copy",
            lambda: path.read_bytes() == (v / "bips" / "bip341_wallet_test_vectors.json").read_bytes())
    data = json.load(open(path))
    for i, case in enumerate(data["scriptPubKey"]):
        def spk(case=case):
            g, inter, exp = case["given"], case["intermediary"], case["expected"]
            internal = bytes.fromhex(g["internalPubkey"])
            root, leaves = taproot.tree_info(g["scriptTree"])
            qx, parity = taproot.tweak_pubkey(internal, root)
            blocks = [taproot.control_block(internal, lf["leafVersion"], parity, p).hex() for lf, _, p in leaves]
            return ((root.hex() if root else None) == inter["merkleRoot"]
                    and [h.hex() for _, h, _ in leaves] == inter.get("leafHashes", [])
                    and taproot.tap_tweak(internal, root).hex() == inter["tweak"]
                    and qx.hex() == inter["tweakedPubkey"] and exp["scriptPubKey"] == "5120" + qx.hex()
                    and blocks == exp.get("scriptPathControlBlocks", []))
        r.check(f"bip341 scriptPubKey #{i}", spk)
    for case in data["keyPathSpending"]:
        tx = parse_tx(bytes.fromhex(case["given"]["rawUnsignedTx"]))
        spent = [TxOut(u["amountSats"], bytes.fromhex(u["scriptPubKey"])) for u in case["given"]["utxosSpent"]]
        for inp in case["inputSpending"]:
            g, inter = inp["given"], inp["intermediary"]

            def key_path(g=g, inter=inter, inp=inp):
                idx, ht = g["txinIndex"], g["hashType"]
                root = bytes.fromhex(g["merkleRoot"]) if g["merkleRoot"] else None
                sh = sighash.bip341_sighash(tx, idx, spent, ht)
                tweaked = taproot.tweak_seckey(bytes.fromhex(g["internalPrivkey"]), root)
                sig = schnorr.sign(sh, tweaked, bytes(32)) + (bytes([ht]) if ht else b"")
                return ((b"\x00" + sighash.bip341_sigmsg(tx, idx, spent, ht)).hex() == inter["sigMsg"]
                        and sh.hex() == inter["sigHash"] and tweaked.hex() == inter["tweakedPrivkey"]
                        and [sig.hex()] == inp["expected"]["witness"])
            r.check(f"bip341 key path input {g['txinIndex']} hashType {g['hashType']:#x}", key_path)


def check_muhash(r, _v):
    def from_int(i):
        return muhash.MuHash3072(bytes([i]) + bytes(31))

    def core_value():
        acc = from_int(0)
        acc *= from_int(1)
        acc /= from_int(2)
        return acc.finalize()[::-1].hex() == "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863"

    def overflow():
        m = muhash.MuHash3072.deserialize(b"\xff" * 384 + b"\x01" + bytes(383))
        return m.finalize().hex() == "3a31e6903aff0de9f62f9a9f7f8b861de76ce2cda09822b90014319ae5dc2271"

    r.check("muhash Core muhash_tests value", core_value)
    r.check("muhash Core overflow value", overflow)


def _block_ok(raw, want_hash=None):
    blk = parse_block(raw)
    root, mutated = blk.compute_merkle_root()
    ok = root == blk.merkle_root and not mutated
    if want_hash:
        ok = ok and blk.hash()[::-1].hex() == want_hash
    return ok


def check_blocks(r, v):
    r.check("block 413567 merkle root + hash", lambda: _block_ok(
        (v / "core" / "block413567.raw").read_bytes(),
        "0000000000000000025aff8be8a55df8f89c77296db6198f272d6577325d4069"))
    r.check("block 702861 merkle root + hash", lambda: _block_ok(
        (v / "blocks" / "mainnet_702861.block.raw").read_bytes(),
        "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae"))
    r.check("testnet3 block 928816 merkle root + hash", lambda: _block_ok(
        (v / "blocks_with_prevouts" / "testnet3_928816.block.raw").read_bytes(),
        "00000000000001c4b87edf974ddc601d88dda332265b9849a944a5ff0141a378"))
    for row in json.load(open(v / "core" / "blockfilters.json"))[1:]:
        r.check(f"blockfilters block {row[0]} merkle root + hash",
                lambda row=row: _block_ok(bytes.fromhex(row[2]), row[1]))
    lines = (v / "chain" / "regtest_1-206.blocks.hex.txt").read_text().split()
    r.check(f"regtest chain: {len(lines)} blocks, merkle roots and prev-hash links", lambda: _chain_ok(lines))


def _chain_ok(lines):
    prev = None
    for line in lines:
        blk = parse_block(bytes.fromhex(line))
        if blk.compute_merkle_root()[0] != blk.merkle_root:
            return False
        if prev is not None and blk.prev_hash != prev:
            return False
        prev = blk.hash()
    return True


def check_real_spends(r, v, max_inputs):
    for name, ok in realdata.taproot_cases(v):
        r.check(name, lambda ok=ok: ok)
    for name, ok in realdata.testnet3_segwit_cases(v, max_inputs):
        r.check(name, lambda ok=ok: ok)


def check_committed(r, data):
    from .gen_vectors import dumps, generate
    for name, obj in generate(json.loads((data / "oracle_field.json").read_text())["seed"]).items():
        r.check(f"{name} regenerates byte-identically",
                lambda name=name, obj=obj: (data / name).read_text() == dumps(obj))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", default=os.environ.get("FULLVERIFY_VECTORS", "../shared/vectors"))
    ap.add_argument("--data", default=None, help="also check committed oracle_*.json in this folder")
    ap.add_argument("--max-inputs", type=int, default=500,
                    help="real testnet3 inputs to verify (0 = all 8692; about 3 ms each)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    r = Runner(args.verbose)
    v = pathlib.Path(args.vectors)
    if (v / "MANIFEST.md").is_file():
        for fn in (check_bip340, check_legacy, check_bip143, check_bip341, check_muhash, check_blocks):
            fn(r, v)
        check_real_spends(r, v, args.max_inputs or None)
    else:
        print(f"external vectors not found at {v} (set --vectors or FULLVERIFY_VECTORS)")
    if args.data:
        check_committed(r, pathlib.Path(args.data))
    print(f"{r.passed} passed, {r.failed} failed")
    return 0 if r.failed == 0 and r.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
