// SPDX-License-Identifier: MIT OR Apache-2.0
//! `fullverify._native`: thin bindings over the `fullverify` core.
//!
//! Python `bytes` in and out; wrong lengths and types raise `fullverify.Error`, a `ValueError`
//! subclass carrying the core's message. Long computations release the GIL.
use pyo3::prelude::*;

mod hash;
mod muhash;

pyo3::create_exception!(
    fullverify,
    Error,
    pyo3::exceptions::PyValueError,
    "Raised for malformed input: wrong lengths, non-canonical encodings, invalid values."
);

/// The backend `Backend::detect()` chose (or `FULLVERIFY_BACKEND` forced).
#[pyfunction]
fn backend() -> &'static str {
    fullverify::Backend::detect().name()
}

/// Backends this CPU and build can run, worst first.
#[pyfunction]
fn available_backends() -> Vec<&'static str> {
    fullverify::Backend::available().into_iter().map(|b| b.name()).collect()
}

/// Parses a backend name, or returns the detected backend for `None`.
pub(crate) fn backend_arg(name: Option<&str>) -> PyResult<fullverify::Backend> {
    match name {
        None => Ok(fullverify::Backend::detect()),
        Some(n) => {
            let b: fullverify::Backend = n.parse().map_err(|e| Error::new_err(format!("{e}")))?;
            if b.is_supported() {
                Ok(b)
            } else {
                Err(Error::new_err(format!("backend {b} is not available on this CPU (needs {})", b.required_flags())))
            }
        }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(backend, m)?)?;
    m.add_function(wrap_pyfunction!(available_backends, m)?)?;
    hash::register(m)?;
    muhash::register(m)?;
    Ok(())
}
