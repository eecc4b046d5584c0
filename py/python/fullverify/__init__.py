# SPDX-License-Identifier: MIT OR Apache-2.0
"""fullverify: a Bitcoin full-verification workbench.

The fast core is the Rust extension ``fullverify._native``, re-exported here; the pure-Python
exact-arithmetic reference it is checked against is ``fullverify.oracle``.

>>> import fullverify
>>> fullverify.sha256d(b"").hex()[:16]
'5df6e0e2761359d3'
"""

try:
    from fullverify._native import (
        Error,
        MuHash3072,
        __version__,
        available_backends,
        backend,
        use_backend,
        merkle_root,
        sha256,
        sha256d,
        sha256d64,
        tagged_hash,
        fe_add,
        fe_sub,
        fe_neg,
        fe_mul,
        fe_sqr,
        fe_inv,
        fe_inv_vartime,
        fe_sqrt,
        scalar_add,
        scalar_neg,
        scalar_mul,
        scalar_inv,
        scalar_inv_vartime,
        GlvSplit,
        glv_split,
        wnaf,
        Point,
        ecdsa_sign,
        ecdsa_verify,
        ecdsa_verify_many,
        ecdsa_parse_der,
        pubkey_from_secret,
        schnorr_sign,
        schnorr_verify,
        schnorr_verify_batch,
        schnorr_find_invalid,
        schnorr_verify_many,
        xonly_pubkey,
        xonly_tweak_add,
        time_ecdsa_verify,
        Transaction,
        Block,
        legacy_sighash,
        bip143_preimage,
        bip143_sighash,
        bip143_hashes,
        bip341_hashes,
        bip341_sigmsg,
        bip341_sighash,
        verify_input,
        verify_tx,
        parse_asm,
        to_asm,
        script_flags,
        script_error_names,
        check_block,
        replay,
        SwiftPlan,
    )
except ImportError as _err:  # the extension is not built: fullverify.oracle still works
    _NATIVE_IMPORT_ERROR: "ImportError | None" = _err
else:
    _NATIVE_IMPORT_ERROR = None


def __getattr__(name: str) -> object:
    if _NATIVE_IMPORT_ERROR is not None and name in __all__:
        raise ImportError(
            f"fullverify.{name} needs the compiled extension fullverify._native, which failed to "
            f"import ({_NATIVE_IMPORT_ERROR}); build it with `maturin develop` in py/"
        )
    raise AttributeError(f"module 'fullverify' has no attribute {name!r}")


__all__ = [
    "Error",
    "MuHash3072",
    "__version__",
    "available_backends",
    "backend",
    "use_backend",
    "merkle_root",
    "sha256",
    "sha256d",
    "sha256d64",
    "tagged_hash",
    "fe_add",
    "fe_sub",
    "fe_neg",
    "fe_mul",
    "fe_sqr",
    "fe_inv",
    "fe_inv_vartime",
    "fe_sqrt",
    "scalar_add",
    "scalar_neg",
    "scalar_mul",
    "scalar_inv",
    "scalar_inv_vartime",
    "GlvSplit",
    "glv_split",
    "wnaf",
    "Point",
    "ecdsa_sign",
    "ecdsa_verify",
    "ecdsa_verify_many",
    "ecdsa_parse_der",
    "pubkey_from_secret",
    "schnorr_sign",
    "schnorr_verify",
    "schnorr_verify_batch",
    "schnorr_find_invalid",
    "schnorr_verify_many",
    "xonly_pubkey",
    "xonly_tweak_add",
    "time_ecdsa_verify",
    "Transaction",
    "Block",
    "legacy_sighash",
    "bip143_preimage",
    "bip143_sighash",
    "bip143_hashes",
    "bip341_hashes",
    "bip341_sigmsg",
    "bip341_sighash",
    "verify_input",
    "verify_tx",
    "parse_asm",
    "to_asm",
    "script_flags",
    "script_error_names",
    "check_block",
    "replay",
    "SwiftPlan",
]
