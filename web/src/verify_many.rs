// SPDX-License-Identifier: MIT OR Apache-2.0
//! `ecdsaVerifyMany` and `schnorrVerifyMany`: many signatures in one call, over fixed-size
//! records concatenated in `Uint8Array`s; one byte per item comes back (1 valid, 0 not).
//! In the browser the backend is Portable, so this is the single verifier in a loop; the
//! eight-way path exists on CPUs with AVX-512 IFMA.

use crate::sig::schnorr_parts;
use fullverify::secp256k1::{ecdsa, schnorr, PublicKey};
use fullverify::Backend;
use wasm_bindgen::prelude::*;

/// Splits `data` into `n` records of `size` bytes, or an error naming the argument.
fn records<'a>(data: &'a [u8], size: usize, n: usize, what: &str) -> Result<Vec<&'a [u8]>, JsError> {
    if data.len() != size * n {
        return Err(JsError::new(&format!(
            "{what}: expected {n} records of {size} bytes, got {} bytes",
            data.len()
        )));
    }
    Ok(data.chunks_exact(size).collect())
}

/// The records of the three arguments, as many as `keys` holds keys of `key_size` bytes.
type Records<'a> = (Vec<&'a [u8]>, Vec<&'a [u8]>, Vec<&'a [u8]>);

fn item_records<'a>(
    keys: &'a [u8],
    key_size: usize,
    msgs32: &'a [u8],
    sigs: &'a [u8],
) -> Result<Records<'a>, JsError> {
    let n = keys.len() / key_size;
    Ok((
        records(keys, key_size, n, "keys")?,
        records(msgs32, 32, n, "msgs32")?,
        records(sigs, 64, n, "sigs")?,
    ))
}

/// One byte per item: the verdicts of the parsed items at their indices, 0 for the others.
fn scatter(n: usize, parsed: impl Iterator<Item = usize>, results: Vec<bool>) -> Vec<u8> {
    let mut out = vec![0u8; n];
    for (i, ok) in parsed.zip(results) {
        out[i] = ok as u8;
    }
    out
}

/// ECDSA with Bitcoin Core's semantics on many items: `keys` are 33-byte compressed keys,
/// `msgs32` 32-byte message hashes and `sigs` 64-byte compact signatures (r ‖ s), all
/// concatenated. A key or signature that does not parse verifies as 0.
#[wasm_bindgen(js_name = ecdsaVerifyMany)]
pub fn ecdsa_verify_many(keys: &[u8], msgs32: &[u8], sigs: &[u8]) -> Result<Vec<u8>, JsError> {
    let (k, m, s) = item_records(keys, 33, msgs32, sigs)?;
    let b = Backend::detect();
    let mut parsed = Vec::with_capacity(k.len());
    for i in 0..k.len() {
        let sig = ecdsa::Signature::from_compact(s[i].try_into().expect("64 bytes"));
        if let (Ok(pk), Ok(mut sig)) = (PublicKey::parse_with(b, k[i]), sig) {
            sig.normalize_s();
            parsed.push((i, pk, <[u8; 32]>::try_from(m[i]).expect("32 bytes"), sig));
        }
    }
    let items: Vec<ecdsa::VerifyItem> = parsed.iter().map(|(_, pk, m, s)| (pk, m, s)).collect();
    Ok(scatter(k.len(), parsed.iter().map(|p| p.0), ecdsa::verify_many(b, &items)))
}

/// BIP340 on many items: `keys` are 32-byte x-only keys, `msgs32` 32-byte messages and
/// `sigs` 64-byte signatures, all concatenated. A key that does not lift verifies as 0.
#[wasm_bindgen(js_name = schnorrVerifyMany)]
pub fn schnorr_verify_many(keys: &[u8], msgs32: &[u8], sigs: &[u8]) -> Result<Vec<u8>, JsError> {
    let (k, m, s) = item_records(keys, 32, msgs32, sigs)?;
    let parsed: Vec<_> =
        (0..k.len()).filter_map(|i| schnorr_parts(k[i], s[i]).map(|(pk, sig)| (i, pk, sig))).collect();
    let items: Vec<schnorr::VerifyItem> = parsed.iter().map(|(i, pk, s)| (pk, m[*i], s)).collect();
    Ok(scatter(k.len(), parsed.iter().map(|p| p.0), schnorr::verify_many(Backend::detect(), &items)))
}
