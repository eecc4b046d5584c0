// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify::{encode, sighash, script}`: transactions and blocks, the three
//! signature-hash algorithms with every intermediate, script assembly, and input verification.
//!
//! Hashes (txid, wtxid, block hash, aggregate hashes) are returned in internal byte order, as
//! they are hashed and serialized; `*_hex` properties give Bitcoin's reversed display form.
//! Spent outputs are `(amount_sat, script_pubkey)` pairs, one per input.
use crate::Error;
use fullverify::encode::{display_hex, Block, Transaction, TxOut};
use fullverify::script::{self, NativeVerifier, ScriptFlags};
use fullverify::sighash::{SighashError, TxContext};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// A parsed transaction (BIP144 extended format accepted).
#[pyclass(name = "Transaction", module = "fullverify", frozen)]
pub struct PyTransaction(pub(crate) Transaction);

fn pyerr(e: impl core::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

/// A `Transaction` or its serialization.
fn tx_arg(tx: &Bound<'_, PyAny>) -> PyResult<Transaction> {
    if let Ok(t) = tx.cast::<PyTransaction>() {
        return Ok(t.get().0.clone());
    }
    if let Ok(b) = tx.extract::<&[u8]>() {
        return Transaction::from_bytes(b).map_err(pyerr);
    }
    Err(PyTypeError::new_err("tx must be a fullverify.Transaction or bytes"))
}

fn spent_arg(tx: &Transaction, spent: Option<Vec<(i64, Vec<u8>)>>) -> PyResult<Option<Vec<TxOut>>> {
    let Some(spent) = spent else { return Ok(None) };
    if spent.len() != tx.inputs.len() {
        return Err(Error::new_err(format!(
            "spent_outputs needs one (amount, script_pubkey) per input: {} inputs, {} given",
            tx.inputs.len(),
            spent.len()
        )));
    }
    Ok(Some(spent.into_iter().map(|(value, script_pubkey)| TxOut { value, script_pubkey }).collect()))
}

/// `tx_arg` with `index` checked against its inputs.
fn tx_input_arg(tx: &Bound<'_, PyAny>, index: usize) -> PyResult<Transaction> {
    let t = tx_arg(tx)?;
    if index >= t.inputs.len() {
        return Err(Error::new_err(format!("input index {index} out of range ({} inputs)", t.inputs.len())));
    }
    Ok(t)
}

fn sighash_err(e: SighashError) -> PyErr {
    pyerr(format!("{e:?}"))
}

/// A dict of named hashes as `bytes`.
fn hashes_dict<'py>(py: Python<'py>, hashes: &[(&str, [u8; 32])]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in hashes {
        d.set_item(k, PyBytes::new(py, v))?;
    }
    Ok(d)
}

/// `(ok, error_name)` for an input's verification result.
fn verdict(r: Result<(), script::ScriptError>) -> (bool, &'static str) {
    match r {
        Ok(()) => (true, "OK"),
        Err(e) => (false, e.name()),
    }
}

/// Flags as an int bit set or Core's comma-separated names (`"P2SH,WITNESS"`).
fn flags_arg(f: &Bound<'_, PyAny>) -> PyResult<ScriptFlags> {
    if let Ok(s) = f.cast::<PyString>() {
        return s.to_cow()?.parse().map_err(pyerr);
    }
    let v: u32 =
        f.extract().map_err(|_| PyTypeError::new_err("flags must be an int or a str of flag names"))?;
    ScriptFlags::from_bits(v).ok_or_else(|| Error::new_err(format!("unknown flag bits in {v:#x}")))
}

#[pymethods]
impl PyTransaction {
    /// Parses a serialized transaction; raises `fullverify.Error` naming the rule broken.
    #[staticmethod]
    fn parse(data: &[u8]) -> PyResult<Self> {
        Ok(PyTransaction(Transaction::from_bytes(data).map_err(pyerr)?))
    }

    /// The serialization (with witness data unless `witness=False`).
    #[pyo3(signature = (witness=true))]
    fn serialize<'py>(&self, py: Python<'py>, witness: bool) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_bytes(witness))
    }

    #[getter]
    fn version(&self) -> i32 {
        self.0.version
    }
    #[getter]
    fn locktime(&self) -> u32 {
        self.0.lock_time
    }
    /// txid, internal byte order.
    #[getter]
    fn txid<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.txid())
    }
    /// wtxid, internal byte order.
    #[getter]
    fn wtxid<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.wtxid())
    }
    /// txid as Bitcoin displays it (byte-reversed hex).
    #[getter]
    fn txid_hex(&self) -> String {
        display_hex(&self.0.txid())
    }
    #[getter]
    fn weight(&self) -> usize {
        self.0.weight()
    }
    #[getter]
    fn vsize(&self) -> usize {
        self.0.weight().div_ceil(4)
    }
    #[getter]
    fn has_witness(&self) -> bool {
        self.0.has_witness()
    }
    #[getter]
    fn is_coinbase(&self) -> bool {
        self.0.is_coinbase()
    }
    /// Inputs as dicts: `prevout_txid` (internal order), `prevout_vout`, `script_sig`,
    /// `sequence`, `witness` (list of bytes).
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.0
            .inputs
            .iter()
            .map(|i| {
                let d = PyDict::new(py);
                d.set_item("prevout_txid", PyBytes::new(py, &i.prevout.txid))?;
                d.set_item("prevout_vout", i.prevout.vout)?;
                d.set_item("script_sig", PyBytes::new(py, &i.script_sig))?;
                d.set_item("sequence", i.sequence)?;
                d.set_item("witness", i.witness.iter().map(|w| PyBytes::new(py, w)).collect::<Vec<_>>())?;
                Ok(d)
            })
            .collect()
    }
    /// Outputs as `(amount_sat, script_pubkey)`.
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> Vec<(i64, Bound<'py, PyBytes>)> {
        self.0.outputs.iter().map(|o| (o.value, PyBytes::new(py, &o.script_pubkey))).collect()
    }
    /// Core's context-free `CheckTransaction`: `None` if it passes, else the reject reason.
    fn check(&self) -> Option<&'static str> {
        self.0.check().err().map(|e| e.reason())
    }
    fn __repr__(&self) -> String {
        format!(
            "Transaction(txid={}, inputs={}, outputs={})",
            display_hex(&self.0.txid()),
            self.0.inputs.len(),
            self.0.outputs.len()
        )
    }
}

/// Legacy (pre-segwit) signature hash, including FindAndDelete-free script code handling,
/// the SIGHASH_SINGLE out-of-range "1" hash and any 32-bit hash type.
#[pyfunction]
fn legacy_sighash<'py>(
    py: Python<'py>,
    tx: &Bound<'py, PyAny>,
    index: usize,
    script_code: &[u8],
    hash_type: i64,
) -> PyResult<Bound<'py, PyBytes>> {
    let t = tx_input_arg(tx, index)?;
    let h = py.detach(|| fullverify::sighash::legacy_sighash(&t, index, script_code, hash_type as u32));
    Ok(PyBytes::new(py, &h))
}

/// The two BIP143 bindings: the same arguments, checked, passed to the `TxContext` method of
/// the same name.
macro_rules! bip143_fns {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        fn $name<'py>(
            py: Python<'py>,
            tx: &Bound<'py, PyAny>,
            index: usize,
            script_code: &[u8],
            amount: i64,
            hash_type: u32,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let t = tx_input_arg(tx, index)?;
            let ctx = TxContext::new(&t, None);
            Ok(PyBytes::new(py, &ctx.$name(index, script_code, amount, hash_type).map_err(sighash_err)?))
        }
    )*};
}

bip143_fns! {
    /// BIP143 preimage (the bytes whose double SHA-256 is the sighash).
    bip143_preimage,
    /// BIP143 signature hash.
    bip143_sighash,
}

/// BIP143 aggregate hashes: `hash_prevouts`, `hash_sequence`, `hash_outputs`.
#[pyfunction]
fn bip143_hashes<'py>(py: Python<'py>, tx: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let t = tx_arg(tx)?;
    let h = TxContext::new(&t, None).bip143_hashes();
    hashes_dict(
        py,
        &[
            ("hash_prevouts", h.hash_prevouts),
            ("hash_sequence", h.hash_sequence),
            ("hash_outputs", h.hash_outputs),
        ],
    )
}

/// BIP341 aggregate hashes (single SHA-256s) over the transaction and its spent outputs.
#[pyfunction]
fn bip341_hashes<'py>(
    py: Python<'py>,
    tx: &Bound<'py, PyAny>,
    spent_outputs: Vec<(i64, Vec<u8>)>,
) -> PyResult<Bound<'py, PyDict>> {
    let t = tx_arg(tx)?;
    let spent = spent_arg(&t, Some(spent_outputs))?;
    let ctx = TxContext::new(&t, spent.as_deref());
    let h = ctx.bip341_hashes().ok_or_else(|| Error::new_err("BIP341 needs every spent output"))?;
    hashes_dict(
        py,
        &[
            ("sha_prevouts", h.sha_prevouts),
            ("sha_amounts", h.sha_amounts),
            ("sha_scriptpubkeys", h.sha_scriptpubkeys),
            ("sha_sequences", h.sha_sequences),
            ("sha_outputs", h.sha_outputs),
        ],
    )
}

type TapArgs = (Option<Vec<u8>>, Option<([u8; 32], u32)>);

fn tap_args(annex: Option<&[u8]>, leaf_hash: Option<&[u8]>, codesep_pos: u32) -> PyResult<TapArgs> {
    let leaf = match leaf_hash {
        None => None,
        Some(l) => Some((
            <[u8; 32]>::try_from(l)
                .map_err(|_| Error::new_err(format!("leaf_hash must be 32 bytes, got {}", l.len())))?,
            codesep_pos,
        )),
    };
    if let Some(a) = annex {
        if a.first() != Some(&0x50) {
            return Err(Error::new_err("an annex starts with 0x50"));
        }
    }
    Ok((annex.map(<[u8]>::to_vec), leaf))
}

/// The two BIP341 bindings: the same arguments, checked (with the annex and script-path ones),
/// passed to the `TxContext` method of the same name.
macro_rules! bip341_fns {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (tx, index, spent_outputs, hash_type, annex=None, leaf_hash=None, codesep_pos=0xffff_ffff))]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(
            py: Python<'py>,
            tx: &Bound<'py, PyAny>,
            index: usize,
            spent_outputs: Vec<(i64, Vec<u8>)>,
            hash_type: u8,
            annex: Option<&[u8]>,
            leaf_hash: Option<&[u8]>,
            codesep_pos: u32,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let t = tx_input_arg(tx, index)?;
            let spent = spent_arg(&t, Some(spent_outputs))?;
            let (annex, leaf) = tap_args(annex, leaf_hash, codesep_pos)?;
            let ctx = TxContext::new(&t, spent.as_deref());
            Ok(PyBytes::new(py, &ctx.$name(index, hash_type, annex.as_deref(), leaf).map_err(sighash_err)?))
        }
    )*};
}

bip341_fns! {
    /// BIP341 signature message: the epoch byte 0x00 followed by `SigMsg(hash_type, ext_flag)`,
    /// with BIP342's extension when `leaf_hash` is given (script path).
    bip341_sigmsg,
    /// BIP341 signature hash `hash_TapSighash(0x00 || SigMsg)`.
    bip341_sighash,
}

/// Verifies input `index` of `tx` against its spent output under `flags` (int or Core's
/// comma-separated names) with the native secp256k1 verifier. Returns `(ok, error_name)`,
/// `error_name` being Core's `ScriptError` string (`"OK"` on success).
#[pyfunction]
fn verify_input(
    py: Python<'_>,
    tx: &Bound<'_, PyAny>,
    index: usize,
    spent_outputs: Vec<(i64, Vec<u8>)>,
    flags: &Bound<'_, PyAny>,
) -> PyResult<(bool, &'static str)> {
    let t = tx_input_arg(tx, index)?;
    let f = flags_arg(flags)?;
    let spent = spent_arg(&t, Some(spent_outputs))?;
    Ok(verdict(py.detach(|| {
        let ctx = TxContext::new(&t, spent.as_deref());
        script::verify_input(&ctx, index, f, &NativeVerifier)
    })))
}

/// Verifies every input of `tx` (one per-transaction context shared by all inputs); returns a
/// list of `(ok, error_name)`.
#[pyfunction]
fn verify_tx(
    py: Python<'_>,
    tx: &Bound<'_, PyAny>,
    spent_outputs: Vec<(i64, Vec<u8>)>,
    flags: &Bound<'_, PyAny>,
) -> PyResult<Vec<(bool, &'static str)>> {
    let t = tx_arg(tx)?;
    let f = flags_arg(flags)?;
    let spent = spent_arg(&t, Some(spent_outputs))?;
    Ok(py.detach(|| {
        let ctx = TxContext::new(&t, spent.as_deref());
        (0..t.inputs.len()).map(|i| verdict(script::verify_input(&ctx, i, f, &NativeVerifier))).collect()
    }))
}

/// Script from Core's assembly notation (as in `script_tests.json`).
#[pyfunction]
fn parse_asm<'py>(py: Python<'py>, asm: &str) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &script::asm::parse_asm(asm).map_err(|e| Error::new_err(e.0))?))
}

/// Script to assembly.
#[pyfunction]
fn to_asm(script: &[u8]) -> String {
    script::asm::to_asm(script)
}

/// Core's script verification flags: `{name: bit}`.
#[pyfunction]
fn script_flags(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (n, v) in ScriptFlags::NAMED {
        d.set_item(n, v.bits())?;
    }
    Ok(d)
}

/// Every `ScriptError` name, in Core's order.
#[pyfunction]
fn script_error_names() -> Vec<&'static str> {
    script::ScriptError::ALL.iter().map(|e| e.name()).collect()
}

/// A parsed block.
#[pyclass(name = "Block", module = "fullverify", frozen)]
pub struct PyBlock(Block);

#[pymethods]
impl PyBlock {
    /// Parses exactly one serialized block.
    #[staticmethod]
    fn parse(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        Ok(PyBlock(py.detach(|| Block::from_bytes(data)).map_err(pyerr)?))
    }
    /// Block hash, internal byte order.
    #[getter]
    fn hash<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.block_hash())
    }
    #[getter]
    fn hash_hex(&self) -> String {
        display_hex(&self.0.block_hash())
    }
    /// Header fields as a dict.
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = &self.0.header;
        let d = PyDict::new(py);
        d.set_item("version", h.version)?;
        d.set_item("prev_block", PyBytes::new(py, &h.prev_block))?;
        d.set_item("merkle_root", PyBytes::new(py, &h.merkle_root))?;
        d.set_item("time", h.time)?;
        d.set_item("bits", h.bits)?;
        d.set_item("nonce", h.nonce)?;
        Ok(d)
    }
    /// The transactions.
    #[getter]
    fn transactions(&self) -> Vec<PyTransaction> {
        self.0.txdata.iter().cloned().map(PyTransaction).collect()
    }
    /// `(root, mutated)` computed from the transactions (compare with `header["merkle_root"]`).
    fn merkle_root<'py>(&self, py: Python<'py>) -> (Bound<'py, PyBytes>, bool) {
        let r = py.detach(|| {
            let ids: Vec<[u8; 32]> = self.0.txdata.iter().map(|t| t.txid()).collect();
            fullverify::hash::merkle_root(&ids)
        });
        (PyBytes::new(py, &r.root), r.mutated)
    }
    /// The BIP141 witness merkle root (coinbase wtxid replaced by zeros).
    fn witness_merkle_root<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let ids: Vec<[u8; 32]> = self.0.txdata.iter().map(|t| t.wtxid()).collect();
        PyBytes::new(py, &fullverify::hash::witness_merkle_root(&ids).root)
    }
    /// Block weight (BIP141): stripped size × 3 + total size.
    #[getter]
    fn weight(&self) -> usize {
        self.0.weight()
    }
    /// Legacy sigops (Core's `GetLegacySigOpCount` summed over the block, inaccurate counting
    /// of CHECKMULTISIG as 20), before the witness scale factor.
    #[getter]
    fn legacy_sigops(&self) -> u64 {
        script::sigops::block_legacy_sigop_count(&self.0)
    }
    fn __len__(&self) -> usize {
        self.0.txdata.len()
    }
    fn __repr__(&self) -> String {
        format!("Block(hash={}, transactions={})", display_hex(&self.0.block_hash()), self.0.txdata.len())
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTransaction>()?;
    m.add_class::<PyBlock>()?;
    for f in [
        wrap_pyfunction!(legacy_sighash, m)?,
        wrap_pyfunction!(bip143_preimage, m)?,
        wrap_pyfunction!(bip143_sighash, m)?,
        wrap_pyfunction!(bip143_hashes, m)?,
        wrap_pyfunction!(bip341_hashes, m)?,
        wrap_pyfunction!(bip341_sigmsg, m)?,
        wrap_pyfunction!(bip341_sighash, m)?,
        wrap_pyfunction!(verify_input, m)?,
        wrap_pyfunction!(verify_tx, m)?,
        wrap_pyfunction!(parse_asm, m)?,
        wrap_pyfunction!(to_asm, m)?,
        wrap_pyfunction!(script_flags, m)?,
        wrap_pyfunction!(script_error_names, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
