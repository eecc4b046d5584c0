// SPDX-License-Identifier: MIT OR Apache-2.0
//! The signature panel: ECDSA (DER, strict or lax) and BIP340 verification with every
//! intermediate value.
//!
//! The intermediates are recomputed with [`fullverify::secp256k1::arith`]; the verdict is the
//! core's `ecdsa::verify` / `schnorr::verify`, and the two are checked to agree.

use crate::glv::to_decimal;
use crate::hex;
use crate::view::{consistent, hex_field, to_js, FieldError};
use fullverify::hash::tagged_hash;
use fullverify::secp256k1::arith::{AffinePoint, FieldElement, Scalar};
use fullverify::secp256k1::ecdsa::{self, Signature};
use fullverify::secp256k1::{schnorr, PublicKey, XOnlyPublicKey};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// One named intermediate.
#[derive(Debug, Serialize)]
pub struct Step {
    /// Its name (`r`, `s`, `u1`, ...).
    pub name: String,
    /// Its value, hex.
    pub hex: String,
    /// How it was obtained.
    pub meaning: String,
}

/// The signature panel's view.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SigView {
    /// `ecdsa` or `bip340`.
    pub scheme: String,
    /// The intermediates, in the order the verifier forms them.
    pub steps: Vec<Step>,
    /// Whether the signature verifies.
    pub valid: bool,
    /// Why not, when it does not.
    pub reason: Option<String>,
}

fn step(name: &str, bytes: &[u8], meaning: impl Into<String>) -> Step {
    Step { name: name.into(), hex: hex::encode(bytes), meaning: meaning.into() }
}

/// ECDSA: `pubkey` (33 or 65 bytes hex), `msg` (the 32-byte hash, hex), `sig` (DER hex,
/// optionally followed by nothing else), `mode` `strict` (BIP66 DER) or `lax` (Core's
/// pre-BIP66 parser).
pub fn ecdsa_explain(pubkey: &str, msg: &str, sig: &str, mode: &str) -> Result<SigView, FieldError> {
    let pk_bytes = hex_field("pubkey", pubkey)?;
    let pk = PublicKey::parse(&pk_bytes).map_err(|_| {
        FieldError::new(
            "pubkey",
            format!(
                "not a public key ({} bytes; 33 compressed or 65 uncompressed on the curve)",
                pk_bytes.len()
            ),
        )
    })?;
    let m = hex_field("msg", msg)?;
    let msg32: [u8; 32] = m
        .as_slice()
        .try_into()
        .map_err(|_| FieldError::new("msg", format!("ECDSA signs a 32-byte hash; got {} bytes", m.len())))?;
    let sig_bytes = hex_field("sig", sig)?;
    let parsed = match mode {
        "strict" => Signature::from_der(&sig_bytes),
        "lax" => Signature::from_der_lax(&sig_bytes),
        _ => return Err(FieldError::new("mode", format!("unknown DER mode {mode:?} (strict or lax)"))),
    }
    .map_err(|_| FieldError::new("sig", format!("not a {mode} DER signature")))?;
    let mut steps = vec![
        step("r", &parsed.r.to_bytes(), format!("from the DER INTEGER ({mode} parsing)")),
        step("s", &parsed.s.to_bytes(), "from the DER INTEGER"),
    ];
    let mut norm = parsed;
    let high = norm.normalize_s();
    steps.push(step(
        "s (normalised)",
        &norm.s.to_bytes(),
        if high {
            "s was above n/2: replaced by n − s (verification accepts both; LOW_S policy rejects high s)"
        } else {
            "s is already at most n/2 (low)"
        },
    ));
    let z = Scalar::from_bytes_reduce(&msg32).0;
    steps.push(step("z", &z.to_bytes(), "the message hash as an integer mod n"));
    let core_valid = ecdsa::verify(&pk, &msg32, &parsed);
    if parsed.r.is_zero() || norm.s.is_zero() {
        consistent(!core_valid, "sig", "the core accepts a zero r or s")?;
        return Ok(SigView {
            scheme: "ecdsa".into(),
            steps,
            valid: false,
            reason: Some("r or s is zero".into()),
        });
    }
    let w = norm.s.inv_vartime();
    let u1 = z.mul(&w);
    let u2 = parsed.r.mul(&w);
    steps.push(step("w", &w.to_bytes(), "s⁻¹ mod n"));
    steps.push(step("u1", &u1.to_bytes(), "z·w mod n"));
    steps.push(step("u2", &u2.to_bytes(), "r·w mod n"));
    let r_point = pk.point().lincomb_vartime(&u2, &u1);
    let (valid, reason) = match r_point.x() {
        None => {
            steps.push(step("R", &[], "u1·G + u2·Q is the point at infinity"));
            (false, Some("R is the point at infinity".to_string()))
        }
        Some(x) => {
            let xb = x.to_bytes();
            steps.push(step("R.x", &xb, "x of R = u1·G + u2·Q"));
            let xr = Scalar::from_bytes_reduce(&xb).0;
            steps.push(step("R.x mod n", &xr.to_bytes(), "compared with r"));
            let ok = xr == parsed.r;
            (ok, (!ok).then(|| "R.x mod n differs from r".to_string()))
        }
    };
    consistent(valid == core_valid, "sig", "the intermediates disagree with the core's verifier")?;
    Ok(SigView { scheme: "ecdsa".into(), steps, valid, reason })
}

/// BIP340: `pubkey` (32-byte x-only hex), `msg` (any length, hex), `sig` (64 bytes hex).
pub fn bip340_explain(pubkey: &str, msg: &str, sig: &str) -> Result<SigView, FieldError> {
    let pk_bytes = hex_field("pubkey", pubkey)?;
    let pk32: [u8; 32] = pk_bytes.as_slice().try_into().map_err(|_| {
        FieldError::new("pubkey", format!("a BIP340 key is 32 bytes (x only); got {}", pk_bytes.len()))
    })?;
    let pk = XOnlyPublicKey::parse(&pk32)
        .map_err(|_| FieldError::new("pubkey", "no curve point has this x (or x ≥ p)"))?;
    let m = hex_field("msg", msg)?;
    let s_bytes = hex_field("sig", sig)?;
    let sig64: [u8; 64] = s_bytes.as_slice().try_into().map_err(|_| {
        FieldError::new("sig", format!("a BIP340 signature is 64 bytes; got {}", s_bytes.len()))
    })?;
    let core_valid = schnorr::verify(&pk, &m, &sig64);
    let rb: [u8; 32] = sig64[..32].try_into().expect("32 bytes");
    let sb: [u8; 32] = sig64[32..].try_into().expect("32 bytes");
    let mut steps = vec![step("P", &pk32, "lift_x(pubkey): the point with this x and even y")];
    let fail = |steps, reason: &str| {
        consistent(!core_valid, "sig", "the core accepts what the intermediates reject")?;
        Ok(SigView { scheme: "bip340".into(), steps, valid: false, reason: Some(reason.into()) })
    };
    steps.push(step("r", &rb, "first 32 bytes: R's x"));
    if FieldElement::from_bytes(&rb).is_err() {
        return fail(steps, "r ≥ p");
    }
    steps.push(step("s", &sb, "last 32 bytes"));
    let Ok(s) = Scalar::from_bytes(&sb) else { return fail(steps, "s ≥ n") };
    let mut ch = Vec::with_capacity(64 + m.len());
    ch.extend_from_slice(&rb);
    ch.extend_from_slice(&pk32);
    ch.extend_from_slice(&m);
    let eh = tagged_hash(b"BIP0340/challenge", &ch);
    steps.push(step("hash", &eh, "TaggedHash(\"BIP0340/challenge\", r ‖ P.x ‖ m)"));
    let e = Scalar::from_bytes_reduce(&eh).0;
    steps.push(step("e", &e.to_bytes(), format!("the hash mod n = {}", to_decimal(&e.to_bytes()))));
    let r_point: AffinePoint = pk.point().lincomb_vartime(&e.negate(), &s);
    let (Some(x), Some(y)) = (r_point.x(), r_point.y()) else {
        steps.push(step("R", &[], "s·G − e·P is the point at infinity"));
        return fail(steps, "R is the point at infinity");
    };
    steps.push(step("R.x", &x.to_bytes(), "x of R = s·G − e·P"));
    steps.push(step("R.y", &y.to_bytes(), if y.is_odd() { "odd: BIP340 needs even y" } else { "even" }));
    let valid = !y.is_odd() && x.to_bytes() == rb;
    let reason = if y.is_odd() {
        Some("R.y is odd".to_string())
    } else if x.to_bytes() != rb {
        Some("R.x differs from r".to_string())
    } else {
        None
    };
    consistent(valid == core_valid, "sig", "the intermediates disagree with the core's verifier")?;
    Ok(SigView { scheme: "bip340".into(), steps, valid, reason })
}

/// The signature panel, ECDSA: see [`ecdsa_explain`]. Throws with a `field` property.
#[wasm_bindgen(js_name = explainEcdsa)]
pub fn explain_ecdsa(pubkey: &str, msg: &str, sig: &str, mode: &str) -> Result<JsValue, JsValue> {
    to_js(&ecdsa_explain(pubkey, msg, sig, mode)?)
}

/// The signature panel, BIP340: see [`bip340_explain`]. Throws with a `field` property.
#[wasm_bindgen(js_name = explainBip340)]
pub fn explain_bip340(pubkey: &str, msg: &str, sig: &str) -> Result<JsValue, JsValue> {
    to_js(&bip340_explain(pubkey, msg, sig)?)
}

/// Verifies an ECDSA signature (strict DER) over a 32-byte hash; false on any parse failure.
/// For benchmarks: no intermediates are formed.
#[wasm_bindgen(js_name = verifyEcdsa)]
pub fn verify_ecdsa(pubkey: &[u8], msg32: &[u8], der: &[u8]) -> bool {
    let (Ok(pk), Ok(m), Ok(sig)) =
        (PublicKey::parse(pubkey), <[u8; 32]>::try_from(msg32), Signature::from_der(der))
    else {
        return false;
    };
    ecdsa::verify(&pk, &m, &sig)
}

/// A valid x-only key and a 64-byte signature, or `None`: what every BIP340 verifier of the
/// module (`verifyBip340`, the batch and many-item forms) takes.
pub(crate) fn schnorr_parts(pubkey: &[u8], sig: &[u8]) -> Option<(XOnlyPublicKey, [u8; 64])> {
    let (Ok(pk32), Ok(sig64)) = (<[u8; 32]>::try_from(pubkey), <[u8; 64]>::try_from(sig)) else {
        return None;
    };
    Some((XOnlyPublicKey::parse(&pk32).ok()?, sig64))
}

/// Verifies a BIP340 signature; false on any parse failure. For benchmarks.
#[wasm_bindgen(js_name = verifyBip340)]
pub fn verify_bip340(pubkey: &[u8], msg: &[u8], sig: &[u8]) -> bool {
    let Some((pk, sig64)) = schnorr_parts(pubkey, sig) else { return false };
    schnorr::verify(&pk, msg, &sig64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdsa_intermediates_agree() {
        let sk = [0x11; 32];
        let pk = PublicKey::from_secret(&sk).unwrap();
        let msg = [0x5a; 32];
        let sig = ecdsa::sign(&sk, &msg);
        let mut high = sig;
        high.s = high.s.negate();
        let pk_hex = hex::encode(&pk.serialize_compressed());
        // The signature, its high-S twin (lax) and the signature on another message.
        for (m, sig, mode, valid) in
            [(msg, sig, "strict", true), (msg, high, "lax", true), ([0x5b; 32], sig, "strict", false)]
        {
            let v = ecdsa_explain(&pk_hex, &hex::encode(&m), &hex::encode(&sig.to_der()), mode).unwrap();
            assert_eq!(v.valid, valid, "{mode}");
        }
        assert_eq!(ecdsa_explain("02", "00", "30", "strict").unwrap_err().field, "pubkey");
    }

    #[test]
    fn bip340_vector_0() {
        // BIP340 test vector 0.
        let v = bip340_explain(
            "F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9",
            "0000000000000000000000000000000000000000000000000000000000000000",
            "E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA821525F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0",
        )
        .unwrap();
        assert!(v.valid, "{:?}", v.reason);
    }
}
