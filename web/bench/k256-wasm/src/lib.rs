// SPDX-License-Identifier: MIT OR Apache-2.0
//! k256's ECDSA and BIP340 verification behind the same call shapes as the explorer's
//! `verifyEcdsa` / `verifyBip340`, plus BIP340 signing to make test data.

use k256::ecdsa::signature::hazmat::PrehashVerifier;
use k256::ecdsa::{Signature, VerifyingKey};
use k256::schnorr;
use k256::schnorr::signature::hazmat::PrehashSigner;
use wasm_bindgen::prelude::*;

/// ECDSA over a 32-byte hash; `der` is a strict-DER signature. False on any parse failure.
#[wasm_bindgen(js_name = verifyEcdsa)]
pub fn verify_ecdsa(pubkey: &[u8], msg32: &[u8], der: &[u8]) -> bool {
    let (Ok(pk), Ok(sig)) = (VerifyingKey::from_sec1_bytes(pubkey), Signature::from_der(der)) else {
        return false;
    };
    pk.verify_prehash(msg32, &sig).is_ok()
}

/// BIP340 verification of a 32-byte message. False on any parse failure.
#[wasm_bindgen(js_name = verifyBip340)]
pub fn verify_bip340(pubkey: &[u8], msg: &[u8], sig: &[u8]) -> bool {
    let (Ok(pk), Ok(sig)) = (schnorr::VerifyingKey::from_bytes(pubkey), schnorr::Signature::try_from(sig))
    else {
        return false;
    };
    pk.verify_raw(msg, &sig).is_ok()
}

/// BIP340 key pair and signature for test data: returns x-only key (32) ‖ signature (64).
#[wasm_bindgen(js_name = signBip340)]
pub fn sign_bip340(secret: &[u8], msg32: &[u8]) -> Vec<u8> {
    let sk = schnorr::SigningKey::from_bytes(secret).expect("a valid secret key");
    let sig: schnorr::Signature = sk.sign_prehash(msg32).expect("signing a 32-byte message");
    let mut out = sk.verifying_key().to_bytes().to_vec();
    out.extend_from_slice(&sig.to_bytes());
    out
}
