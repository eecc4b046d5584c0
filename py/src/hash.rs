// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify::hash`.
use crate::{backend_arg, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// SHA-256 of `data`.
#[pyfunction]
fn sha256<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &fullverify::hash::sha256(data))
}

/// Double SHA-256 of `data`.
#[pyfunction]
fn sha256d<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &fullverify::hash::sha256d(data))
}

/// A tag given as `str` (UTF-8) or `bytes`.
fn tag_bytes(tag: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = tag.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = tag.extract::<&[u8]>() {
        return Ok(b.to_vec());
    }
    Err(pyo3::exceptions::PyTypeError::new_err("tag must be str or bytes"))
}

/// BIP340 tagged hash `SHA256(SHA256(tag) || SHA256(tag) || msg)`.
#[pyfunction]
fn tagged_hash<'py>(py: Python<'py>, tag: &Bound<'py, PyAny>, msg: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let tag = tag_bytes(tag)?;
    Ok(PyBytes::new(py, &fullverify::hash::tagged_hash(&tag, msg)))
}

/// An iterable of `N`-byte `bytes` (the argument `what`, for errors).
fn fixed_items<const N: usize>(items: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<[u8; N]>> {
    let mut out = Vec::new();
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        let b: &[u8] = item
            .extract()
            .map_err(|_| pyo3::exceptions::PyTypeError::new_err(format!("{what}[{i}] must be bytes")))?;
        let h: [u8; N] = b
            .try_into()
            .map_err(|_| Error::new_err(format!("{what}[{i}] must be {N} bytes, got {}", b.len())))?;
        out.push(h);
    }
    Ok(out)
}

/// Bitcoin merkle root of 32-byte hashes (internal byte order) -> `(root, mutated)`.
///
/// `mutated` is Bitcoin Core's CVE-2012-2459 flag: some level had two equal adjacent nodes.
#[pyfunction]
#[pyo3(signature = (hashes, backend=None))]
fn merkle_root<'py>(
    py: Python<'py>,
    hashes: &Bound<'py, PyAny>,
    backend: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, bool)> {
    let leaves = fixed_items::<32>(hashes, "hashes")?;
    let b = backend_arg(backend)?;
    let r = py.detach(|| fullverify::hash::merkle_root_with(b, &leaves));
    Ok((PyBytes::new(py, &r.root), r.mutated))
}

/// Double SHA-256 of each 64-byte message (the merkle inner loop) with a chosen backend.
#[pyfunction]
#[pyo3(signature = (messages, backend=None))]
fn sha256d64<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    backend: Option<&str>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let inp = fixed_items::<64>(messages, "messages")?;
    let b = backend_arg(backend)?;
    let out = py.detach(|| {
        let mut out = vec![[0u8; 32]; inp.len()];
        fullverify::hash::sha256d64_many(b, &inp, &mut out);
        out
    });
    Ok(out.iter().map(|h| PyBytes::new(py, h)).collect())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sha256, m)?)?;
    m.add_function(wrap_pyfunction!(sha256d, m)?)?;
    m.add_function(wrap_pyfunction!(tagged_hash, m)?)?;
    m.add_function(wrap_pyfunction!(merkle_root, m)?)?;
    m.add_function(wrap_pyfunction!(sha256d64, m)?)?;
    Ok(())
}
