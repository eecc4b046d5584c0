// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `ecdsa::verify_many` and `schnorr::verify_many`: lists of items in, one
//! `bool` per item out, each equal to the single-item function on the same arguments (on an
//! Ifma backend the items are verified eight at a time).
use crate::secp::{ecdsa_parts, schnorr_parts};
use crate::{backend_arg, Error};
use fullverify::secp256k1::{ecdsa, schnorr, PublicKey};
use pyo3::prelude::*;

/// One verdict per item: `results` at the `parsed` items' indices, `false` for the rest.
fn scatter(n: usize, parsed: impl Iterator<Item = usize>, results: Vec<bool>) -> Vec<bool> {
    let mut out = vec![false; n];
    for (i, ok) in parsed.zip(results) {
        out[i] = ok;
    }
    out
}

/// ECDSA verification of many ``(pubkey, msg32, sig_der)`` items, with ``ecdsa_verify``'s
/// semantics for each (lax DER, high S accepted, a malformed key or signature is ``False``;
/// a message that is not 32 bytes raises).
#[pyfunction]
#[pyo3(signature = (items, backend=None))]
fn ecdsa_verify_many(
    py: Python<'_>,
    items: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    backend: Option<&str>,
) -> PyResult<Vec<bool>> {
    let b = backend_arg(backend)?;
    let mut parsed: Vec<(usize, PublicKey, [u8; 32], ecdsa::Signature)> = Vec::with_capacity(items.len());
    for (i, (pk, msg, sig)) in items.iter().enumerate() {
        let m: [u8; 32] = msg[..]
            .try_into()
            .map_err(|_| Error::new_err(format!("item {i}: msg32 must be 32 bytes, got {}", msg.len())))?;
        if let Some((pk, sig)) = ecdsa_parts(b, pk, sig) {
            parsed.push((i, pk, m, sig));
        }
    }
    let results = py.detach(|| {
        let v: Vec<ecdsa::VerifyItem> = parsed.iter().map(|(_, pk, m, s)| (pk, m, s)).collect();
        ecdsa::verify_many(b, &v)
    });
    Ok(scatter(items.len(), parsed.iter().map(|p| p.0), results))
}

/// BIP340 verification of many ``(pubkey32, msg, sig64)`` items, with ``schnorr_verify``'s
/// semantics for each (malformed input is ``False``).
#[pyfunction]
#[pyo3(signature = (items, backend=None))]
fn schnorr_verify_many(
    py: Python<'_>,
    items: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    backend: Option<&str>,
) -> PyResult<Vec<bool>> {
    let b = backend_arg(backend)?;
    let parsed: Vec<_> = items
        .iter()
        .enumerate()
        .filter_map(|(i, (pk, _, sig))| schnorr_parts(b, pk, sig).map(|(pk, sig)| (i, pk, sig)))
        .collect();
    let results = py.detach(|| {
        let v: Vec<schnorr::VerifyItem> = parsed.iter().map(|(i, pk, s)| (pk, &items[*i].1[..], s)).collect();
        schnorr::verify_many(b, &v)
    });
    Ok(scatter(items.len(), parsed.iter().map(|p| p.0), results))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ecdsa_verify_many, m)?)?;
    m.add_function(wrap_pyfunction!(schnorr_verify_many, m)?)?;
    Ok(())
}
