// SPDX-License-Identifier: MIT OR Apache-2.0
//! Bindings for `fullverify_driver::swiftsync`: the pieces a SwiftSync run is made of, for the
//! Python driver (`fullverify.swiftsync`) that spreads the block ranges over threads or a Dask
//! cluster. A `SwiftPlan` is made once on the client (index and header pass), travels to the
//! workers as bytes, validates ranges there (GIL released) into result bytes, and merges them
//! back into the run's packet on the client.
use crate::chain::network_arg;
use crate::{backend_arg, Error};
use fullverify::swiftsync::{HintsFile, Salt};
use fullverify::validation::{CheckOptions, SigMode};
use fullverify_driver::replay::Failure;
use fullverify_driver::swiftsync::{
    check_hints, validate_range, Bundle, RangeOrder, RangeResult, SwiftOutcome, SwiftSettings,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The located chain of a blocks directory and its checked headers (the index and header
/// pass of a SwiftSync run), made on the client and sent to the workers as bytes.
#[pyclass(frozen, module = "fullverify._native")]
pub struct SwiftPlan {
    plan: fullverify_driver::swiftsync::SwiftPlan,
}

fn salt_arg(salt: &[u8]) -> PyResult<Salt> {
    let b: [u8; 32] =
        salt.try_into().map_err(|_| Error::new_err(format!("salt: {} bytes, expected 32", salt.len())))?;
    Ok(Salt::from_bytes(b))
}

fn sig_mode_arg(name: Option<&str>, backend: fullverify::Backend) -> PyResult<SigMode> {
    match name {
        None => Ok(SigMode::for_backend(backend)),
        Some(n) => SigMode::parse_name(n).map_err(|e| Error::new_err(e.to_string())),
    }
}

fn failure_err(f: Failure) -> PyErr {
    Error::new_err(crate::chain::failure_message(&f))
}

#[pymethods]
impl SwiftPlan {
    /// Indexes the Core blocks directory `blocks_dir` for `network` and checks every header of
    /// its most-work chain at the adjusted time `now` (default: the clock). A header that
    /// breaks a rule is `header_error`; a directory that cannot be read raises.
    #[staticmethod]
    #[pyo3(signature = (blocks_dir, network = "mainnet", now = None))]
    fn open(py: Python<'_>, blocks_dir: PathBuf, network: &str, now: Option<i64>) -> PyResult<SwiftPlan> {
        let net = network_arg(network)?;
        let plan = py
            .detach(|| fullverify_driver::swiftsync::SwiftPlan::open(&blocks_dir, net, now))
            .map_err(failure_err)?;
        Ok(SwiftPlan { plan })
    }

    /// A plan from `to_bytes`, its blocks read from `blocks_dir` (this side's view of the
    /// directory) or, with None, sent as bundles.
    #[staticmethod]
    #[pyo3(signature = (data, blocks_dir = None))]
    fn from_bytes(py: Python<'_>, data: &[u8], blocks_dir: Option<PathBuf>) -> PyResult<SwiftPlan> {
        let plan = py
            .detach(|| fullverify_driver::swiftsync::SwiftPlan::from_bytes(data, blocks_dir.as_deref()))
            .map_err(Error::new_err)?;
        Ok(SwiftPlan { plan })
    }

    /// The plan as bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        if let Some(e) = &self.plan.header_error {
            return Err(Error::new_err(format!("a plan whose header {} failed has no block pass", e.height)));
        }
        Ok(PyBytes::new(py, &self.plan.to_bytes()))
    }

    /// The network's name.
    #[getter]
    fn network(&self) -> &'static str {
        self.plan.network.name()
    }

    /// Blocks in the chain, genesis included.
    #[getter]
    fn blocks(&self) -> usize {
        self.plan.chain.blocks.len()
    }

    /// Height of the tip.
    #[getter]
    fn tip_height(&self) -> u32 {
        self.plan.tip_height()
    }

    /// The tip's hash, hex in display order.
    #[getter]
    fn tip_hash(&self) -> String {
        fullverify::encode::display_hex(&self.plan.tip_hash())
    }

    /// Core's reason for the first header that broke a rule, with its height, or None.
    #[getter]
    fn header_error(&self) -> Option<(String, u32)> {
        self.plan.header_error.as_ref().map(|e| (e.reason.clone(), e.height))
    }

    /// Seconds spent indexing the directory and in the header pass.
    #[getter]
    fn plan_seconds(&self) -> (f64, f64) {
        (self.plan.index_time.as_secs_f64(), self.plan.headers_time.as_secs_f64())
    }

    /// The heights as `(first, last)` ranges of `range_blocks` blocks (None: by block bytes,
    /// shrinking towards the tip, each a quarter of what is left shared among `workers`),
    /// lowest first.
    #[pyo3(signature = (range_blocks = None, workers = 1))]
    fn ranges(&self, range_blocks: Option<u32>, workers: usize) -> Vec<(u32, u32)> {
        self.plan.ranges(range_blocks, workers)
    }

    /// Raises unless `hints` is a hints file (BIP 456) for this chain's tip.
    fn check_hints(&self, hints: &[u8]) -> PyResult<()> {
        check_hints(hints, &self.plan).map_err(failure_err)
    }

    /// The blocks of `first..=last` with their candidate undo records, as bytes for a worker
    /// that does not see the directory (the rev files it needs are read on this side).
    fn bundle<'py>(&self, py: Python<'py>, first: u32, last: u32) -> PyResult<Bound<'py, PyBytes>> {
        if first > last || last > self.plan.tip_height() {
            return Err(Error::new_err(format!("range {first}..={last} is not within the chain")));
        }
        let bytes = py
            .detach(|| {
                Bundle::read(&self.plan.chain, self.plan.undo_files(), first, last).map(|b| b.to_bytes())
            })
            .map_err(Error::new_err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Validates the blocks `first..=last` with the hints file `hints` under the run's `salt`
    /// (32 secret bytes), from this plan's directory or from `bundle`; one script thread. The
    /// result as bytes, for `merge`. Releases the GIL.
    #[pyo3(signature = (hints, salt, first, last, backend = None, sig_mode = None, bundle = None))]
    #[allow(clippy::too_many_arguments)]
    fn validate_range<'py>(
        &self,
        py: Python<'py>,
        hints: &[u8],
        salt: &[u8],
        first: u32,
        last: u32,
        backend: Option<&str>,
        sig_mode: Option<&str>,
        bundle: Option<&[u8]>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let salt = salt_arg(salt)?;
        let b = backend_arg(backend)?;
        let opts = CheckOptions {
            network: self.plan.network,
            threads: 1,
            backend: b,
            sig_mode: sig_mode_arg(sig_mode, b)?,
        };
        let bytes = py
            .detach(|| {
                let hints = HintsFile::parse(hints).map_err(|e| format!("hints: {e}"))?;
                let bundle = bundle.map(Bundle::from_bytes).transpose()?;
                validate_range(&self.plan, &hints, &salt, opts, bundle.as_ref(), first, last)
                    .map(|r| r.to_bytes())
            })
            .map_err(Error::new_err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Merges the ranges' `results` (`(taken, result bytes)`: the position in which a range was
    /// started, what `validate_range` returned) into the run's packet, as JSON: the aggregate
    /// check, BIP30, the verdict and the state. `engine` (JSON) is the packet's engine object;
    /// the other arguments are recorded in its `params`.
    #[pyo3(signature = (salt, results, hints_path, hints_len, engine, workers, backend = None, sig_mode = None, range_blocks = None, order = None, wall_s = 0.0, blocks_s = 0.0))]
    #[allow(clippy::too_many_arguments)]
    fn merge(
        &self,
        py: Python<'_>,
        salt: &[u8],
        results: Vec<(usize, Vec<u8>)>,
        hints_path: PathBuf,
        hints_len: u64,
        engine: &str,
        workers: usize,
        backend: Option<&str>,
        sig_mode: Option<&str>,
        range_blocks: Option<u32>,
        order: Option<u64>,
        wall_s: f64,
        blocks_s: f64,
    ) -> PyResult<String> {
        let salt = salt_arg(salt)?;
        let b = backend_arg(backend)?;
        let mut s = SwiftSettings::new(self.plan.network);
        s.threads = workers.max(1);
        s.backend = b;
        s.sig_mode = sig_mode_arg(sig_mode, b)?;
        s.range_blocks = range_blocks;
        s.order = order.map_or(RangeOrder::Ascending, RangeOrder::Shuffled);
        let engine: serde_json::Value =
            serde_json::from_str(engine).map_err(|e| Error::new_err(format!("engine: {e}")))?;
        py.detach(|| {
            let start = Instant::now();
            let mut o = SwiftOutcome::started(&self.plan, &hints_path, hints_len, s.threads);
            o.engine = engine;
            if o.failure.is_none() {
                let parsed = results
                    .iter()
                    .map(|(taken, bytes)| RangeResult::from_bytes(bytes, &salt).map(|r| (*taken, r)))
                    .collect::<Result<Vec<_>, String>>()?;
                o.phases.blocks = Duration::from_secs_f64(blocks_s.max(0.0));
                o.merge(&self.plan, &salt, parsed);
            }
            let mut o = o.finished(start);
            o.phases.wall = Duration::from_secs_f64(wall_s.max(0.0)) + o.phases.wall;
            Ok::<String, String>(o.packet(&s).to_json().to_string())
        })
        .map_err(Error::new_err)
    }

    /// What a range's result bytes say of its work: first and last height, blocks,
    /// transactions, inputs, block and undo bytes, its seconds on the worker, and whether it
    /// found an invalid block, a mismatch or a read failure.
    #[staticmethod]
    fn result_stats<'py>(py: Python<'py>, result: &[u8]) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        // The aggregate is not read here: any salt will do.
        let r = RangeResult::from_bytes(result, &Salt::from_bytes([0; 32])).map_err(Error::new_err)?;
        let d = pyo3::types::PyDict::new(py);
        for (key, v) in r.counts.fields() {
            // Counts are unsigned integers; the wall time the one float.
            match v.as_u64() {
                Some(n) => d.set_item(key, n)?,
                None => d.set_item(key, v.as_f64())?,
            }
        }
        d.set_item("invalid", r.invalid.is_some())?;
        d.set_item("mismatch", r.mismatch.is_some())?;
        d.set_item("source_error", r.source)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "SwiftPlan(network={:?}, blocks={}, tip_height={})",
            self.plan.network.name(),
            self.plan.chain.blocks.len(),
            self.plan.tip_height()
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SwiftPlan>()
}
