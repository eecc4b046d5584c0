// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`NativeVerifier`] and [`BackendVerifier`]: the production [`SigVerifier`] over fullverify's
//! own secp256k1 layer, on the detected or on a chosen backend.
//!
//! ECDSA follows Core's `CPubKey::Verify`: parse the key as libsecp256k1 does (compressed,
//! uncompressed, hybrid), parse the signature with the lax DER parser, normalise S to the
//! lower half, verify. BIP340 and the BIP341 tweak check are direct.
//!
//! This file is the single point where the interpreter meets elliptic-curve code; swapping
//! the signature backend means changing only this file.

use super::interpreter::{SigVerifier, TweakCheck};
use crate::backend::Backend;
use crate::secp256k1::{self as secp, ecdsa, schnorr, PublicKey, XOnlyPublicKey};

/// Signature checks with [`crate::secp256k1`] on the detected backend
/// ([`Backend::detect`]); the same checks as [`BackendVerifier`].
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeVerifier;

impl SigVerifier for NativeVerifier {
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        BackendVerifier(Backend::detect()).verify_ecdsa(pubkey, sig, msg32)
    }

    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool {
        BackendVerifier(Backend::detect()).verify_schnorr(xonly, sig64, msg32)
    }

    fn tweak_add_check(&self, check: &TweakCheck<'_>) -> bool {
        BackendVerifier(Backend::detect()).tweak_add_check(check)
    }
}

/// Signature checks with [`crate::secp256k1`] on an explicitly chosen backend: keys are parsed
/// (and decompressed) and signatures verified on that backend.
#[derive(Clone, Copy, Debug)]
pub struct BackendVerifier(pub Backend);

impl SigVerifier for BackendVerifier {
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        let Ok(pk) = PublicKey::parse_with(self.0, pubkey) else { return false };
        let Ok(mut s) = ecdsa::Signature::from_der_lax(sig) else { return false };
        s.normalize_s();
        ecdsa::verify_with(self.0, &pk, msg32, &s)
    }

    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool {
        let Ok(pk) = XOnlyPublicKey::parse_with(self.0, xonly) else { return false };
        schnorr::verify_with(self.0, &pk, msg32, sig64)
    }

    fn tweak_add_check(&self, check: &TweakCheck<'_>) -> bool {
        let Ok(p) = XOnlyPublicKey::parse_with(self.0, check.internal) else { return false };
        secp::tweak_add_check(&p, check.tweak, check.output, check.parity)
    }
}
