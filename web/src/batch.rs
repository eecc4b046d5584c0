// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 batch verification for scripts: `schnorrVerifyBatch` and `schnorrFindInvalid` take
//! an array of `[pubkey32, msg, sig64]` triples of `Uint8Array`s. A key that is not a valid
//! x-only key or a signature that is not 64 bytes makes its item invalid; an argument of the
//! wrong type throws.

use crate::bytes_arg;
use crate::sig::schnorr_parts;
use fullverify::secp256k1::{schnorr, XOnlyPublicKey};
use js_sys::Array;
use wasm_bindgen::prelude::*;

type Parsed = (Vec<(usize, XOnlyPublicKey, Vec<u8>, [u8; 64])>, Vec<usize>);

/// The well-formed items (index, key, message, signature) and the indices of the others.
fn parse(items: &Array) -> Result<Parsed, JsError> {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for (i, v) in items.iter().enumerate() {
        let t = v.dyn_into::<Array>().map_err(|_| JsError::new(&format!("item {i} must be an array")))?;
        if t.length() != 3 {
            return Err(JsError::new(&format!("item {i} must be [pubkey, msg, sig]")));
        }
        let pk = bytes_arg(&t.get(0), "pubkey")?;
        let msg = bytes_arg(&t.get(1), "msg")?;
        let sig = bytes_arg(&t.get(2), "sig")?;
        match schnorr_parts(&pk, &sig) {
            Some((k, s)) => ok.push((i, k, msg, s)),
            None => bad.push(i),
        }
    }
    Ok((ok, bad))
}

/// True when every `[pubkey, msg, sig]` item is a valid BIP340 signature (checked together).
#[wasm_bindgen(js_name = schnorrVerifyBatch)]
pub fn schnorr_verify_batch(
    #[wasm_bindgen(unchecked_param_type = "Array<[Uint8Array, Uint8Array, Uint8Array]>")] items: Array,
) -> Result<bool, JsError> {
    let (ok, bad) = parse(&items)?;
    let batch: Vec<schnorr::BatchItem> = ok.iter().map(|(_, k, m, s)| (k, &m[..], s)).collect();
    Ok(bad.is_empty() && schnorr::verify_batch(&batch))
}

/// The indices (ascending) of the invalid items.
#[wasm_bindgen(js_name = schnorrFindInvalid)]
pub fn schnorr_find_invalid(
    #[wasm_bindgen(unchecked_param_type = "Array<[Uint8Array, Uint8Array, Uint8Array]>")] items: Array,
) -> Result<Vec<u32>, JsError> {
    let (ok, mut bad) = parse(&items)?;
    let batch: Vec<schnorr::BatchItem> = ok.iter().map(|(_, k, m, s)| (k, &m[..], s)).collect();
    bad.extend(schnorr::find_invalid(&batch).into_iter().map(|j| ok[j].0));
    bad.sort_unstable();
    Ok(bad.into_iter().map(|i| i as u32).collect())
}
