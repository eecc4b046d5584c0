// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify::secp256k1`: field and scalar elements as Python ints, points,
//! the GLV split and wNAF, ECDSA and BIP340 signing and verification.
//!
//! Conventions: field elements are ints in `[0, p)`, scalars ints in `[0, n)`; anything else
//! raises `fullverify.Error`. Keys, messages and signatures are `bytes`. Verification follows
//! Bitcoin Core: a malformed key or signature verifies as `False`; only a wrong message length
//! (a caller bug, not data) raises.
use crate::{backend_arg, Error};
use fullverify::secp256k1::arith::{self, AffinePoint, FieldElement, Scalar};
use fullverify::secp256k1::{self as secp, ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};

fn err(e: secp::Error) -> PyErr {
    Error::new_err(e.to_string())
}

/// A Python int in `[0, 2^256)` to 32 big-endian bytes.
fn int_to_be32(v: &Bound<'_, PyAny>, what: &str) -> PyResult<[u8; 32]> {
    if !v.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!("{what} must be an int")));
    }
    if v.lt(0)? {
        return Err(Error::new_err(format!("{what} must be non-negative")));
    }
    let b = v
        .call_method1("to_bytes", (32, "big"))
        .map_err(|_| Error::new_err(format!("{what} must be below 2^256")))?;
    let b: &[u8] = b.extract()?;
    Ok(b.try_into().expect("to_bytes(32) gives 32 bytes"))
}

fn be32_to_int<'py>(py: Python<'py>, b: &[u8; 32]) -> PyResult<Bound<'py, PyAny>> {
    py.get_type::<PyInt>().call_method1("from_bytes", (PyBytes::new(py, b), "big"))
}

fn fe(v: &Bound<'_, PyAny>, what: &str) -> PyResult<FieldElement> {
    FieldElement::from_bytes(&int_to_be32(v, what)?)
        .map_err(|_| Error::new_err(format!("{what} must be below p")))
}

fn sc(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Scalar> {
    Scalar::from_bytes(&int_to_be32(v, what)?).map_err(|_| Error::new_err(format!("{what} must be below n")))
}

fn fe_out<'py>(py: Python<'py>, f: &FieldElement) -> PyResult<Bound<'py, PyAny>> {
    be32_to_int(py, &f.to_bytes())
}

fn sc_out<'py>(py: Python<'py>, s: &Scalar) -> PyResult<Bound<'py, PyAny>> {
    be32_to_int(py, &s.to_bytes())
}

/// A scalar as a signed int in (−n/2, n/2].
fn sc_signed<'py>(py: Python<'py>, s: &Scalar) -> PyResult<Bound<'py, PyAny>> {
    if s.is_high() {
        sc_out(py, &s.negate())?.neg()
    } else {
        sc_out(py, s)
    }
}

fn bytes32(b: &[u8], what: &str) -> PyResult<[u8; 32]> {
    b.try_into().map_err(|_| Error::new_err(format!("{what} must be 32 bytes, got {}", b.len())))
}

/// A key and a lax-DER signature as Core verifies them (S normalized to the low half), or
/// `None` when either is malformed: `ecdsa_verify` and its many-item forms.
pub(crate) fn ecdsa_parts(
    b: Backend,
    pubkey: &[u8],
    sig_der: &[u8],
) -> Option<(PublicKey, ecdsa::Signature)> {
    let (Ok(pk), Ok(mut sig)) = (PublicKey::parse_with(b, pubkey), ecdsa::Signature::from_der_lax(sig_der))
    else {
        return None;
    };
    sig.normalize_s();
    Some((pk, sig))
}

/// A valid x-only key and a 64-byte signature, or `None`: `schnorr_verify` and its many-item
/// and batch forms.
pub(crate) fn schnorr_parts(b: Backend, pubkey: &[u8], sig: &[u8]) -> Option<(XOnlyPublicKey, [u8; 64])> {
    let (Ok(pk32), Ok(sig64)) = (<[u8; 32]>::try_from(pubkey), <[u8; 64]>::try_from(sig)) else {
        return None;
    };
    Some((XOnlyPublicKey::parse_with(b, &pk32).ok()?, sig64))
}

/// Field and scalar operations on ints: each `name(a[, b])` parses its arguments with `parse`
/// (naming them in errors), applies the core's `op` and converts the result with `out`.
macro_rules! int_ops {
    ($parse:ident, $out:ident: $($(#[$doc:meta])* $name:ident($a:ident $(, $b:ident)?) => $op:ident;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        fn $name<'py>(
            py: Python<'py>,
            $a: &Bound<'py, PyAny>,
            $($b: &Bound<'py, PyAny>,)?
        ) -> PyResult<Bound<'py, PyAny>> {
            $out(py, &$parse($a, stringify!($a))?.$op($(&$parse($b, stringify!($b))?)?))
        }
    )*};
}

// ---- field ---------------------------------------------------------------------------------

int_ops! { fe, fe_out:
    /// `(a + b) mod p`.
    fe_add(a, b) => add;
    /// `(a − b) mod p`.
    fe_sub(a, b) => sub;
    /// `−a mod p`.
    fe_neg(a) => neg;
    /// `a·b mod p`.
    fe_mul(a, b) => mul;
    /// `a² mod p`.
    fe_sqr(a) => sqr;
    /// `a^(p−2) mod p` (constant time; the inverse of 0 is 0).
    fe_inv(a) => inv;
    /// Variable-time inverse (safegcd); the inverse of 0 is 0.
    fe_inv_vartime(a) => inv_vartime;
}

/// A square root of `a` mod p, or `None` if `a` is not a square.
#[pyfunction]
fn fe_sqrt<'py>(py: Python<'py>, a: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    fe(a, "a")?.sqrt().map(|r| fe_out(py, &r)).transpose()
}

// ---- scalar --------------------------------------------------------------------------------

int_ops! { sc, sc_out:
    /// `(a + b) mod n`.
    scalar_add(a, b) => add;
    /// `−a mod n`.
    scalar_neg(a) => negate;
    /// `a·b mod n`.
    scalar_mul(a, b) => mul;
    /// Constant-time inverse mod n (0 maps to 0).
    scalar_inv(a) => inv;
    /// Variable-time (safegcd) inverse mod n (0 maps to 0).
    scalar_inv_vartime(a) => inv_vartime;
}

/// The GLV split of a scalar with its intermediates.
///
/// `k ≡ k1 + λ·k2 (mod n)` with `|k1|, |k2| < 2^128` as signed values. `c1`, `c2` are the
/// rounded lattice coefficients `round(k·g1 / 2^384)`, `round(k·g2 / 2^384)`. Unpacks as
/// `k1, k2` (values mod n), like the oracle's split.
#[pyclass(name = "GlvSplit", module = "fullverify", frozen, get_all)]
pub struct PyGlvSplit {
    k: Py<PyAny>,
    k1: Py<PyAny>,
    k2: Py<PyAny>,
    k1_signed: Py<PyAny>,
    k2_signed: Py<PyAny>,
    c1: Py<PyAny>,
    c2: Py<PyAny>,
    fallback: bool,
}

#[pymethods]
impl PyGlvSplit {
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (self.k1.clone_ref(py), self.k2.clone_ref(py))
            .into_pyobject(py)?
            .into_any()
            .try_iter()
            .map(|i| i.into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "GlvSplit(k1_signed={}, k2_signed={}, c1={}, c2={}, fallback={})",
            self.k1_signed.bind(py),
            self.k2_signed.bind(py),
            self.c1.bind(py),
            self.c2.bind(py),
            if self.fallback { "True" } else { "False" }
        )
    }
}

/// GLV split `k = k1 + λ·k2 (mod n)`.
#[pyfunction]
fn glv_split(py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<PyGlvSplit> {
    let s = sc(k, "k")?;
    let g = s.split_lambda();
    Ok(PyGlvSplit {
        k: sc_out(py, &s)?.unbind(),
        k1: sc_out(py, &g.k1)?.unbind(),
        k2: sc_out(py, &g.k2)?.unbind(),
        k1_signed: sc_signed(py, &g.k1)?.unbind(),
        k2_signed: sc_signed(py, &g.k2)?.unbind(),
        c1: sc_out(py, &g.c1)?.unbind(),
        c2: sc_out(py, &g.c2)?.unbind(),
        fallback: g.fallback,
    })
}

/// Width-`w` NAF digits of a scalar, least significant first: `sum(d·2^i) ≡ k (mod n)`. A
/// scalar above n/2 is written as `−(n − k)` (all digits negated), as the multiplication does.
#[pyfunction]
fn wnaf(k: &Bound<'_, PyAny>, w: usize) -> PyResult<Vec<i32>> {
    if !(2..=31).contains(&w) {
        return Err(Error::new_err(format!("window must be in 2..=31, got {w}")));
    }
    Ok(arith::wnaf(&sc(k, "k")?, w))
}

// ---- points --------------------------------------------------------------------------------

/// A point of secp256k1 in affine coordinates, or the point at infinity.
#[pyclass(name = "Point", module = "fullverify", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyPoint(AffinePoint);

#[pymethods]
impl PyPoint {
    /// The point `(x, y)`; raises if it is not on the curve.
    #[new]
    fn new(x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyPoint(AffinePoint::from_xy(&fe(x, "x")?, &fe(y, "y")?).map_err(err)?))
    }

    /// The generator G.
    #[staticmethod]
    fn generator() -> Self {
        PyPoint(AffinePoint::generator())
    }

    /// The point at infinity.
    #[staticmethod]
    fn infinity() -> Self {
        PyPoint(AffinePoint::generator().add(&AffinePoint::generator().neg()))
    }

    /// Parses a public key encoding as libsecp256k1 does (33, 65 bytes; hybrid 0x06/0x07).
    #[staticmethod]
    fn parse(data: &[u8]) -> PyResult<Self> {
        Ok(PyPoint(PublicKey::parse(data).map_err(err)?.point()))
    }

    /// BIP340 lift_x: the point with x-coordinate `x` and even y (or odd y if `odd`).
    #[staticmethod]
    #[pyo3(signature = (x, odd=false))]
    fn lift_x(x: &Bound<'_, PyAny>, odd: bool) -> PyResult<Self> {
        Ok(PyPoint(AffinePoint::lift_x(&fe(x, "x")?, odd).map_err(err)?))
    }

    /// `k·G` (variable time).
    #[staticmethod]
    fn mul_generator(k: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyPoint(AffinePoint::mul_generator(&sc(k, "k")?)))
    }

    /// SEC1 encoding (33 or 65 bytes); raises for infinity.
    #[pyo3(signature = (compressed=true))]
    fn serialize<'py>(&self, py: Python<'py>, compressed: bool) -> PyResult<Bound<'py, PyBytes>> {
        let xy = self.0.to_bytes().ok_or_else(|| Error::new_err("the point at infinity has no encoding"))?;
        if compressed {
            let mut out = [0u8; 33];
            out[0] = 2 | (xy[63] & 1);
            out[1..].copy_from_slice(&xy[..32]);
            Ok(PyBytes::new(py, &out))
        } else {
            let mut out = [0u8; 65];
            out[0] = 4;
            out[1..].copy_from_slice(&xy);
            Ok(PyBytes::new(py, &out))
        }
    }

    /// x-coordinate (None at infinity).
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.0.x().map(|v| fe_out(py, &v)).transpose()
    }

    /// y-coordinate (None at infinity).
    #[getter]
    fn y<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.0.y().map(|v| fe_out(py, &v)).transpose()
    }

    /// Whether this is the point at infinity.
    #[getter]
    fn is_infinity(&self) -> bool {
        self.0.is_infinity()
    }

    fn __add__(&self, other: &PyPoint) -> PyPoint {
        PyPoint(self.0.add(&other.0))
    }

    fn __neg__(&self) -> PyPoint {
        PyPoint(self.0.neg())
    }

    fn __sub__(&self, other: &PyPoint) -> PyPoint {
        PyPoint(self.0.add(&other.0.neg()))
    }

    /// `k·P` for an int `k` in `[0, n)`.
    fn __mul__(&self, k: &Bound<'_, PyAny>) -> PyResult<PyPoint> {
        Ok(PyPoint(self.0.mul_vartime(&sc(k, "k")?)))
    }

    fn __rmul__(&self, k: &Bound<'_, PyAny>) -> PyResult<PyPoint> {
        self.__mul__(k)
    }

    /// `2·P`.
    fn double(&self) -> PyPoint {
        PyPoint(self.0.double())
    }

    /// `a·P + b·G` by the verification machinery (GLV + wNAF Strauss).
    fn lincomb(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyPoint> {
        Ok(PyPoint(self.0.lincomb_vartime(&sc(a, "a")?, &sc(b, "b")?)))
    }

    fn __hash__(&self) -> u64 {
        let b = self.0.to_bytes().unwrap_or([0; 64]);
        u64::from_le_bytes(b[..8].try_into().expect("8"))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match (self.x(py)?, self.y(py)?) {
            (Some(x), Some(y)) => format!(
                "Point({}, {})",
                x.call_method1("__format__", ("#066x",))?,
                y.call_method1("__format__", ("#066x",))?
            ),
            _ => "Point.infinity()".to_string(),
        })
    }
}

// ---- ECDSA ---------------------------------------------------------------------------------

/// RFC6979 deterministic ECDSA with low S; returns the DER encoding.
#[pyfunction]
fn ecdsa_sign<'py>(py: Python<'py>, seckey: &[u8], msg32: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let sk = bytes32(seckey, "seckey")?;
    let m = bytes32(msg32, "msg32")?;
    let sig = ecdsa::try_sign(&sk, &m).map_err(err)?;
    Ok(PyBytes::new(py, &sig.to_der()))
}

/// Verifies a DER signature (lax DER as Bitcoin Core; high S accepted) on a 32-byte message.
/// Malformed keys or signatures return False.
#[pyfunction]
#[pyo3(signature = (pubkey, msg32, sig_der, backend=None))]
fn ecdsa_verify(
    py: Python<'_>,
    pubkey: &[u8],
    msg32: &[u8],
    sig_der: &[u8],
    backend: Option<&str>,
) -> PyResult<bool> {
    let m = bytes32(msg32, "msg32")?;
    let b = backend_arg(backend)?;
    let Some((pk, sig)) = ecdsa_parts(b, pubkey, sig_der) else { return Ok(false) };
    Ok(py.detach(|| ecdsa::verify_with(b, &pk, &m, &sig)))
}

/// Parses a DER signature: strict DER unless `lax` (Core's lax parser); returns `(r, s)`.
#[pyfunction]
#[pyo3(signature = (sig_der, lax=false))]
fn ecdsa_parse_der<'py>(
    py: Python<'py>,
    sig_der: &[u8],
    lax: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let sig = if lax { ecdsa::Signature::from_der_lax(sig_der) } else { ecdsa::Signature::from_der(sig_der) }
        .map_err(err)?;
    let c = sig.to_compact();
    let (r, s) = c.split_at(32);
    Ok((be32_to_int(py, r.try_into().expect("32"))?, be32_to_int(py, s.try_into().expect("32"))?))
}

/// The public key of a secret key (33-byte compressed, or 65 bytes).
#[pyfunction]
#[pyo3(signature = (seckey, compressed=true))]
fn pubkey_from_secret<'py>(
    py: Python<'py>,
    seckey: &[u8],
    compressed: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let pk = PublicKey::from_secret(&bytes32(seckey, "seckey")?).map_err(err)?;
    Ok(if compressed {
        PyBytes::new(py, &pk.serialize_compressed())
    } else {
        PyBytes::new(py, &pk.serialize_uncompressed())
    })
}

// ---- BIP340 --------------------------------------------------------------------------------

/// BIP340 signature of `msg` (any length) with 32 bytes of auxiliary randomness.
#[pyfunction]
#[pyo3(signature = (seckey, msg, aux_rand=None))]
fn schnorr_sign<'py>(
    py: Python<'py>,
    seckey: &[u8],
    msg: &[u8],
    aux_rand: Option<&[u8]>,
) -> PyResult<Bound<'py, PyBytes>> {
    let sk = bytes32(seckey, "seckey")?;
    let aux = match aux_rand {
        Some(a) => bytes32(a, "aux_rand")?,
        None => [0u8; 32],
    };
    Ok(PyBytes::new(py, &schnorr::try_sign(&sk, msg, &aux).map_err(err)?))
}

/// BIP340 verification. A key that is not a valid x-only key, or a signature that is not 64
/// bytes, verifies as False.
#[pyfunction]
#[pyo3(signature = (pubkey, msg, sig, backend=None))]
fn schnorr_verify(
    py: Python<'_>,
    pubkey: &[u8],
    msg: &[u8],
    sig: &[u8],
    backend: Option<&str>,
) -> PyResult<bool> {
    let b = backend_arg(backend)?;
    let Some((pk, sig64)) = schnorr_parts(b, pubkey, sig) else { return Ok(false) };
    Ok(py.detach(|| schnorr::verify_with(b, &pk, msg, &sig64)))
}

/// The BIP340 x-only public key of a secret key.
#[pyfunction]
fn xonly_pubkey<'py>(py: Python<'py>, seckey: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let pk = PublicKey::from_secret(&bytes32(seckey, "seckey")?).map_err(err)?;
    Ok(PyBytes::new(py, &pk.x_only().0.serialize()))
}

/// BIP341 output key: `internal + tweak·G` as `(xonly32, parity)`.
#[pyfunction]
fn xonly_tweak_add<'py>(
    py: Python<'py>,
    internal: &[u8],
    tweak: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, bool)> {
    let pk = XOnlyPublicKey::parse(&bytes32(internal, "internal")?).map_err(err)?;
    let (q, parity) = pk.tweak_add(&bytes32(tweak, "tweak")?).map_err(err)?;
    Ok((PyBytes::new(py, &q.serialize()), parity))
}

/// Times `repeat` passes over `items` (pubkey, msg32, DER signature) verified inside Rust, with
/// the same parsing work as `ecdsa_verify` and no Python call per verification. Returns the
/// nanoseconds per verification: the baseline for measuring Python call overhead.
#[pyfunction]
#[pyo3(signature = (items, repeat=1, backend=None))]
fn time_ecdsa_verify(
    py: Python<'_>,
    items: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    repeat: usize,
    backend: Option<&str>,
) -> PyResult<f64> {
    let b = backend_arg(backend)?;
    let mut parsed = Vec::with_capacity(items.len());
    for (pk, m, sig) in &items {
        parsed.push((pk.as_slice(), bytes32(m, "msg32")?, sig.as_slice()));
    }
    if parsed.is_empty() || repeat == 0 {
        return Err(Error::new_err("time_ecdsa_verify needs at least one item and repeat >= 1"));
    }
    Ok(py.detach(|| {
        let t = std::time::Instant::now();
        let mut ok = 0usize;
        for _ in 0..repeat {
            for (pk, m, sig) in &parsed {
                if let Some((pk, sig)) = ecdsa_parts(b, pk, sig) {
                    ok += usize::from(ecdsa::verify_with(b, &pk, m, &sig));
                }
            }
        }
        std::hint::black_box(ok);
        t.elapsed().as_nanos() as f64 / (repeat * parsed.len()) as f64
    }))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPoint>()?;
    m.add_class::<PyGlvSplit>()?;
    for f in [
        wrap_pyfunction!(fe_add, m)?,
        wrap_pyfunction!(fe_sub, m)?,
        wrap_pyfunction!(fe_neg, m)?,
        wrap_pyfunction!(fe_mul, m)?,
        wrap_pyfunction!(fe_sqr, m)?,
        wrap_pyfunction!(fe_inv, m)?,
        wrap_pyfunction!(fe_inv_vartime, m)?,
        wrap_pyfunction!(fe_sqrt, m)?,
        wrap_pyfunction!(scalar_add, m)?,
        wrap_pyfunction!(scalar_neg, m)?,
        wrap_pyfunction!(scalar_mul, m)?,
        wrap_pyfunction!(scalar_inv, m)?,
        wrap_pyfunction!(scalar_inv_vartime, m)?,
        wrap_pyfunction!(glv_split, m)?,
        wrap_pyfunction!(wnaf, m)?,
        wrap_pyfunction!(ecdsa_sign, m)?,
        wrap_pyfunction!(ecdsa_verify, m)?,
        wrap_pyfunction!(ecdsa_parse_der, m)?,
        wrap_pyfunction!(pubkey_from_secret, m)?,
        wrap_pyfunction!(schnorr_sign, m)?,
        wrap_pyfunction!(schnorr_verify, m)?,
        wrap_pyfunction!(xonly_pubkey, m)?,
        wrap_pyfunction!(xonly_tweak_add, m)?,
        wrap_pyfunction!(time_ecdsa_verify, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
