// SPDX-License-Identifier: MIT OR Apache-2.0
//! `replay`: validates a chain of blocks from genesis (or one block with its spent outputs) with
//! every rule and every signature, and writes a result packet.
//!
//! Pipeline per block: read from the source → parse → context-free and contextual checks →
//! fetch the spent coins → scripts in parallel → apply to the UTXO cache and MuHash → periodic
//! crash-consistent flush. The state in `--datadir` survives the process: a later run with the
//! same datadir resumes after the last flushed block, skipping the blocks of the source that
//! are already connected. The command line, the run and the summary are
//! `fullverify_experiments::replay`; the run itself is `fullverify_driver::replay`.
//!
//! Exit codes: 0 success, 1 an invalid block (the state of the last valid block is flushed and
//! reported), 2 a usage error, 3 a source that cannot be read or a storage failure.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use fullverify_driver::replay::Failure;
use fullverify_experiments::replay::cli::Cli;
use fullverify_experiments::replay::Run;
use std::process::ExitCode;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match Run::from_cli(Cli::parse()) {
        Ok(run) => ExitCode::from(run.exiting().execute().exit_code),
        // Usage errors in clap's format (exit code 2).
        Err(Failure::Usage(m)) => Cli::command().error(ErrorKind::ValueValidation, m).exit(),
        Err(f) => {
            eprintln!("{f}");
            ExitCode::from(f.exit_code())
        }
    }
}
