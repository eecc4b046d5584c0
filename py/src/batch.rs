// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for BIP340 batch verification: `schnorr_verify_batch` and `schnorr_find_invalid`
//! over lists of `(pubkey32, msg, sig64)` tuples of bytes.
//!
//! A key that is not a valid x-only key or a signature that is not 64 bytes makes its item
//! invalid, as in `schnorr_verify`; nothing about the data raises.
use crate::backend_arg;
use crate::secp::schnorr_parts;
use fullverify::secp256k1::{schnorr, XOnlyPublicKey};
use pyo3::prelude::*;

type PyItem = (Vec<u8>, Vec<u8>, Vec<u8>);
/// Well-formed items as (index, key, signature), and the indices of malformed ones.
type Parsed = (Vec<(usize, XOnlyPublicKey, [u8; 64])>, Vec<usize>);

/// Splits `items` into well-formed and malformed ones.
fn parse(b: fullverify::Backend, items: &[PyItem]) -> Parsed {
    let mut ok = Vec::with_capacity(items.len());
    let mut bad = Vec::new();
    for (i, (pk, _, sig)) in items.iter().enumerate() {
        match schnorr_parts(b, pk, sig) {
            Some((k, s)) => ok.push((i, k, s)),
            None => bad.push(i),
        }
    }
    (ok, bad)
}

/// BIP340 batch verification of `(pubkey, msg, sig)` items: True when every signature is valid
/// (an empty list is valid).
#[pyfunction]
#[pyo3(signature = (items, backend=None))]
fn schnorr_verify_batch(py: Python<'_>, items: Vec<PyItem>, backend: Option<&str>) -> PyResult<bool> {
    let b = backend_arg(backend)?;
    let (ok, bad) = parse(b, &items);
    if !bad.is_empty() {
        return Ok(false);
    }
    Ok(py.detach(|| {
        let batch: Vec<schnorr::BatchItem> = ok.iter().map(|(i, k, s)| (k, &items[*i].1[..], s)).collect();
        schnorr::verify_batch_with(b, &batch)
    }))
}

/// The indices (ascending) of the invalid items of a batch.
#[pyfunction]
#[pyo3(signature = (items, backend=None))]
fn schnorr_find_invalid(py: Python<'_>, items: Vec<PyItem>, backend: Option<&str>) -> PyResult<Vec<usize>> {
    let b = backend_arg(backend)?;
    let (ok, mut bad) = parse(b, &items);
    let found = py.detach(|| {
        let batch: Vec<schnorr::BatchItem> = ok.iter().map(|(i, k, s)| (k, &items[*i].1[..], s)).collect();
        schnorr::find_invalid_with(b, &batch)
    });
    bad.extend(found.into_iter().map(|j| ok[j].0));
    bad.sort_unstable();
    Ok(bad)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(schnorr_verify_batch, m)?)?;
    m.add_function(wrap_pyfunction!(schnorr_find_invalid, m)?)?;
    Ok(())
}
