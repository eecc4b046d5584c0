// SPDX-License-Identifier: MIT OR Apache-2.0
//! `fullverify._native`: thin bindings over the `fullverify` core.
use pyo3::prelude::*;

#[pymodule]
fn _native(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
