// SPDX-License-Identifier: MIT OR Apache-2.0
//! `fullverify._native`: thin bindings over the `fullverify` core.
//!
//! Python `bytes` in and out; wrong lengths and types raise `fullverify.Error`, a `ValueError`
//! subclass carrying the core's message. Long computations release the GIL.
use pyo3::prelude::*;
use std::sync::Mutex;

mod batch;
mod chain;
mod hash;
mod muhash;
mod secp;
mod secp_many;
mod swiftsync;
mod tx;

pyo3::create_exception!(
    fullverify,
    Error,
    pyo3::exceptions::PyValueError,
    "Raised for malformed input: wrong lengths, non-canonical encodings, invalid values."
);

/// The backend calls use when they name none: forced by `use_backend`, else
/// `Backend::detect()` (which honours `FULLVERIFY_BACKEND`).
#[pyfunction]
fn backend() -> PyResult<&'static str> {
    Ok(backend_arg(None)?.name())
}

/// Backends this CPU and build can run, worst first.
#[pyfunction]
fn available_backends() -> Vec<&'static str> {
    fullverify::Backend::available().into_iter().map(|b| b.name()).collect()
}

/// The backend forced by `use_backend` (`None`: detection).
static FORCED: Mutex<Option<fullverify::Backend>> = Mutex::new(None);

/// A backend token from its name; `fullverify.Error` for an unknown name or a backend this
/// CPU cannot run.
fn parse_backend(n: &str) -> PyResult<fullverify::Backend> {
    n.parse::<fullverify::Backend>().map_err(|e| Error::new_err(e.to_string()))
}

fn forced() -> Option<fullverify::Backend> {
    *FORCED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The backend for a call: the named one, else the one `use_backend` forced, else detection.
pub(crate) fn backend_arg(name: Option<&str>) -> PyResult<fullverify::Backend> {
    match name {
        Some(n) => parse_backend(n),
        None => Ok(forced().unwrap_or_else(fullverify::Backend::detect)),
    }
}

/// Forces the backend used by calls that do not name one (`None` returns to detection).
/// Raises `fullverify.Error` for a backend this CPU cannot run.
#[pyfunction]
#[pyo3(signature = (name=None))]
fn use_backend(name: Option<&str>) -> PyResult<()> {
    let b = name.map(parse_backend).transpose()?;
    *FORCED.lock().unwrap_or_else(|e| e.into_inner()) = b;
    Ok(())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(backend, m)?)?;
    m.add_function(wrap_pyfunction!(available_backends, m)?)?;
    m.add_function(wrap_pyfunction!(use_backend, m)?)?;
    chain::register(m)?;
    hash::register(m)?;
    muhash::register(m)?;
    secp::register(m)?;
    batch::register(m)?;
    secp_many::register(m)?;
    swiftsync::register(m)?;
    tx::register(m)?;
    Ok(())
}
