# SPDX-License-Identifier: MIT OR Apache-2.0
"""Signature checks on real spends from the shared vectors (used by crosscheck and tests).

* ``taproot_cases``: Core's feature_taproot.py dump (script_assets, gzip). For every
  successful P2TR spend that is a key path spend, or a script path spend of a
  ``<32-byte key> OP_CHECKSIG`` leaf, recompute the BIP341 sighash (annex,
  ext flag, hash type) and verify the BIP340 signature.
* ``testnet3_segwit_cases``: block 928816 with its spent outputs: P2WPKH and
  P2SH-P2WPKH inputs (BIP143 + ECDSA with Core semantics) and P2PKH inputs
  (legacy sighash incl. FindAndDelete + ECDSA).
Each generator yields (name, ok) pairs.
"""

import gzip
import json

from .. import ecdsa, schnorr, sighash, taproot
from ..tx import Reader, TxOut, parse_block, parse_tx


def _txout(hexstr):
    r = Reader(bytes.fromhex(hexstr))
    return TxOut(r.i64(), r.var_bytes())


def taproot_cases(vectors, limit=None):
    path = vectors / "script_assets" / "script_assets_test.btcd_taproot_ref.json.gz"
    done = 0
    for case in json.load(gzip.open(path)):
        if "TAPROOT" not in case["flags"].split(","):
            continue
        idx = case["index"]
        spent = [_txout(p) for p in case["prevouts"]]
        spk = spent[idx].script_pubkey
        if len(spk) != 34 or spk[:2] != b"\x51\x20":
            continue
        wit = [bytes.fromhex(w) for w in case["success"]["witness"]]
        annex = wit.pop() if len(wit) >= 2 and wit[-1][:1] == b"\x50" else None
        tx = parse_tx(bytes.fromhex(case["tx"]))
        if len(wit) == 1:
            sig, pk, leaf = wit[0], spk[2:], None
        elif len(wit) == 3 and len(wit[1]) == 34 and wit[1][0] == 0x20 and wit[1][33] == 0xAC \
                and wit[2][0] & 0xFE == 0xC0:
            sig, pk = wit[0], wit[1][1:33]
            leaf = taproot.leaf_hash(wit[1], wit[2][0] & 0xFE)
        else:
            continue
        if len(sig) not in (64, 65) or (len(sig) == 65 and sig[64] == 0):
            continue
        ht = sig[64] if len(sig) == 65 else 0
        name = f"taproot {'script' if leaf else 'key'} path, hash type {ht:#x}{', annex' if annex else ''}: {case['comment']}"
        try:
            sh = sighash.bip341_sighash(tx, idx, spent, ht, annex=annex, leaf_hash=leaf)
            ok = schnorr.verify(sh, pk, sig[:64])
        except ValueError:
            ok = False
        yield name, ok
        done += 1
        if limit and done >= limit:
            return


def testnet3_segwit_cases(vectors, limit=None):
    d = vectors / "blocks_with_prevouts"
    block = parse_block((d / "testnet3_928816.block.raw").read_bytes())
    r = Reader((d / "testnet3_928816.spent_outputs.bin").read_bytes())
    done = 0
    for tx in block.txs[1:]:
        for i, txin in enumerate(tx.vin):
            prev = TxOut(r.i64(), r.var_bytes())
            spk = prev.script_pubkey
            prog = None
            if len(spk) == 22 and spk[:2] == b"\x00\x14":
                prog, kind = spk[2:], "P2WPKH"
            elif len(spk) == 23 and spk[:2] == b"\xa9\x14" and len(txin.script_sig) == 23 \
                    and txin.script_sig[1:3] == b"\x00\x14":
                prog, kind = txin.script_sig[3:], "P2SH-P2WPKH"
            if prog is not None and len(txin.witness) == 2:
                sig, pub = txin.witness
                code = b"\x76\xa9\x14" + prog + b"\x88\xac"
                sh = sighash.bip143_sighash(tx, i, code, prev.value, sig[-1])
            elif len(spk) == 25 and spk[:3] == b"\x76\xa9\x14":
                kind = "P2PKH"
                ok, _, sig, pc = sighash.get_op(txin.script_sig, 0)
                ok2, _, pub, _ = sighash.get_op(txin.script_sig, pc)
                if not (ok and ok2 and sig):
                    continue
                sh = sighash.legacy_sighash_for_checksig(tx, i, spk, sig)
            else:
                continue
            yield f"testnet3 928816 {kind} {tx.txid()[::-1].hex()}:{i}", ecdsa.verify(pub, sh, sig[:-1])
            done += 1
            if limit and done >= limit:
                return
