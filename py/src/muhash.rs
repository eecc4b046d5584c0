// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify::muhash`.
use crate::Error;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// MuHash3072, Bitcoin Core's rolling set hash (`gettxoutsetinfo muhash`).
///
/// ``insert``/``remove`` return the object, so calls chain. ``finalize`` returns the raw
/// SHA-256 digest (Core displays it byte-reversed) and leaves the set unchanged.
#[pyclass(name = "MuHash3072", module = "fullverify")]
#[derive(Clone)]
pub struct PyMuHash(fullverify::muhash::MuHash3072);

#[pymethods]
impl PyMuHash {
    #[new]
    #[pyo3(signature = (data=None))]
    fn new(data: Option<&[u8]>) -> Self {
        let mut m = fullverify::muhash::MuHash3072::new();
        if let Some(d) = data {
            m.insert(d);
        }
        PyMuHash(m)
    }

    /// Adds ``data`` to the set.
    fn insert<'py>(mut slf: PyRefMut<'py, Self>, data: &[u8]) -> PyRefMut<'py, Self> {
        slf.0.insert(data);
        slf
    }

    /// Removes ``data`` from the set.
    fn remove<'py>(mut slf: PyRefMut<'py, Self>, data: &[u8]) -> PyRefMut<'py, Self> {
        slf.0.remove(data);
        slf
    }

    /// Set union with another accumulator (Core's ``*=``).
    fn __imul__(&mut self, other: &PyMuHash) {
        self.0.combine(&other.0);
    }

    /// Removes another accumulator's set (Core's ``/=``).
    fn __itruediv__(&mut self, other: &PyMuHash) {
        self.0.remove_set(&other.0);
    }

    /// The 32-byte digest.
    fn finalize<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let d = py.detach(|| self.0.finalize());
        PyBytes::new(py, &d)
    }

    /// Core's 768-byte serialization (numerator || denominator, little-endian).
    fn serialize<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.serialize())
    }

    /// Inverse of ``serialize``.
    #[staticmethod]
    fn deserialize(data: &[u8]) -> PyResult<Self> {
        let b: &[u8; 768] = data.try_into().map_err(|_| {
            Error::new_err(format!("MuHash3072 serialization is 768 bytes, got {}", data.len()))
        })?;
        Ok(PyMuHash(fullverify::muhash::MuHash3072::deserialize(b)))
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __repr__(&self) -> String {
        let mut c = self.0;
        format!("MuHash3072(digest={})", c.finalize().iter().map(|b| format!("{b:02x}")).collect::<String>())
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMuHash>()
}
