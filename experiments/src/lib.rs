// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared pieces of the experiment drivers.
//!
//! - [`cli`]: the command line shared by the micro-benchmark drivers.
//! - [`report`]: result packets (`results/<experiment>/<run-id>.json`), the contract between
//!   native runs and the notebooks; the JSON Schema is `results/schema/packet.schema.json`.
//! - [`timing`]: alternating A/B/… measurement and robust statistics (median, IQR,
//!   bootstrap confidence interval of the median).
//! - [`sighash`]: the transactions and per-scheme loops `sighashbench` measures.
//! - [`chaingen`]: a deterministic, mainnet-shaped regtest chain (the replay's default corpus).
//! - [`replay`]: block sources, spent-output readers, progress and packet pieces of the
//!   `replay` binary.
pub mod chaingen;
pub mod cli;
pub mod replay;
pub mod report;
pub mod sighash;
pub mod timing;
