// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared pieces of the experiment drivers.
//!
//! - [`cli`]: the command line shared by the micro-benchmark drivers.
//! - [`report`]: result packets (`results/<experiment>/<run-id>.json`; `fullverify_driver`'s,
//!   re-exported), the contract between native runs and the notebooks.
//! - [`timing`]: alternating A/B/… measurement and robust statistics (median, IQR,
//!   bootstrap confidence interval of the median).
//! - [`sighash`]: the transactions and per-scheme loops `sighashbench` measures.
//! - [`chaingen`]: a deterministic, mainnet-shaped regtest chain (the replay's default corpus).
//! - [`replay`]: the `replay` command (command line, run, summary) over
//!   `fullverify_driver::replay`.
pub mod chaingen;
pub mod cli;
pub mod replay;
pub use fullverify_driver::report;
pub mod sighash;
pub mod timing;
