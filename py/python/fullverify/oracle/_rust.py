# SPDX-License-Identifier: MIT OR Apache-2.0
"""The one place that names the Rust functions the oracle mirrors.

Every public oracle function is decorated with ``@mirrors(key)``. The decorator
appends ``Mirrors: `<rust path>``` to the docstring and stores the path in
``fn.__rust_name__``, so renaming a Rust item means editing this table only.
"""

RUST_NAMES = {
    "field.add": "fullverify::secp256k1::arith::FieldElement::add",
    "field.neg": "fullverify::secp256k1::arith::FieldElement::neg",
    "field.mul": "fullverify::secp256k1::arith::FieldElement::mul",
    "field.sqr": "fullverify::secp256k1::arith::FieldElement::sqr",
    "field.inv": "fullverify::secp256k1::arith::FieldElement::inv",
    "field.sqrt": "fullverify::secp256k1::arith::FieldElement::sqrt",
    "scalar.add": "fullverify::secp256k1::arith::Scalar::add",
    "scalar.neg": "fullverify::secp256k1::arith::Scalar::negate",
    "scalar.mul": "fullverify::secp256k1::arith::Scalar::mul",
    "scalar.inv": "fullverify::secp256k1::arith::Scalar::inv",
    "scalar.from_bytes": "fullverify::secp256k1::arith::Scalar::from_bytes",
    "scalar.split_lambda": "fullverify::secp256k1::arith::Scalar::split_lambda",
    "group.double": "fullverify::secp256k1::arith::JacobianPoint::double",
    "group.add": "fullverify::secp256k1::arith::JacobianPoint::add",
    "group.add_affine": "fullverify::secp256k1::arith::JacobianPoint::add_affine",
    "group.decode": "fullverify::secp256k1::arith::AffinePoint::from_bytes",
    "group.encode": "fullverify::secp256k1::arith::AffinePoint::to_bytes",
    "group.lift_x": "fullverify::secp256k1::arith::AffinePoint::lift_x",
    "ecmult.mul": "fullverify::secp256k1::arith::AffinePoint::lincomb_vartime",
    "ecmult.wnaf": "fullverify::secp256k1::arith::wnaf",
    "ecdsa.verify": "fullverify::secp256k1::ecdsa::verify",
    "ecdsa.sign": "fullverify::secp256k1::ecdsa::sign",
    "ecdsa.parse_der_lax": "fullverify::secp256k1::ecdsa::parse_der_lax",
    "ecdsa.parse_der_strict": "fullverify::secp256k1::ecdsa::parse_der",
    "ecdsa.normalize_s": "fullverify::secp256k1::ecdsa::normalize_s",
    "schnorr.verify": "fullverify::secp256k1::schnorr::verify",
    "schnorr.sign": "fullverify::secp256k1::schnorr::sign",
    "hash.sha256": "fullverify::hash::sha256",
    "hash.sha256d": "fullverify::hash::sha256d",
    "hash.tagged": "fullverify::hash::tagged_hash",
    "hash.merkle_root": "fullverify::hash::merkle::merkle_root",
    "tx.compact_size": "fullverify::tx::read_compact_size",
    "tx.parse": "fullverify::tx::Transaction::parse",
    "tx.serialize": "fullverify::tx::Transaction::serialize",
    "tx.txid": "fullverify::tx::Transaction::txid",
    "tx.wtxid": "fullverify::tx::Transaction::wtxid",
    "tx.parse_block": "fullverify::block::Block::parse",
    "sighash.find_and_delete": "fullverify::script::find_and_delete",
    "sighash.legacy": "fullverify::sighash::legacy_sighash",
    "sighash.bip143": "fullverify::sighash::bip143_preimage",
    "sighash.bip341": "fullverify::sighash::bip341_sigmsg",
    "taproot.tweak": "fullverify::script::taproot::tweak",
    "taproot.leaf_hash": "fullverify::script::taproot::leaf_hash",
    "muhash": "fullverify::muhash::MuHash3072",
    "muhash.chacha20": "fullverify::muhash::chacha20_block",
}


def mirrors(key):
    """Decorator: record the Rust function ``RUST_NAMES[key]`` in the docstring."""
    rust = RUST_NAMES[key]

    def deco(fn):
        doc = (fn.__doc__ or "").rstrip()
        fn.__doc__ = f"{doc}\n\nMirrors: `{rust}`\n"
        fn.__rust_name__ = rust
        return fn

    return deco
