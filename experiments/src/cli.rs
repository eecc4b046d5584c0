// SPDX-License-Identifier: MIT OR Apache-2.0
//! The command line shared by the micro-benchmark drivers (`hashbench`, `ifmabench`):
//! `NAME [--quick] [--rounds N] [--clock wall|cpu] [--out DIR]`.

use crate::timing::Clock;
use std::path::PathBuf;

/// Parsed options of a benchmark driver.
#[derive(Clone, Debug, Default)]
pub struct BenchArgs {
    /// A short smoke run (fewer rounds and sizes).
    pub quick: bool,
    /// Rounds of alternated measurement, overriding the driver's default.
    pub rounds: Option<usize>,
    /// Results folder (default: the repository's `results/`).
    pub out: Option<PathBuf>,
    /// What a sample measures: elapsed time (the default) or the thread's CPU time.
    pub clock: Clock,
}

impl BenchArgs {
    /// Parses the process arguments for the driver `name`; prints usage and exits 0 on
    /// `--help`, exits 2 on an unknown argument or a bad `--rounds` value.
    pub fn parse(name: &str) -> BenchArgs {
        match BenchArgs::parse_from(std::env::args().skip(1)) {
            Ok(Some(a)) => a,
            Ok(None) => {
                println!("{name} [--quick] [--rounds N] [--clock wall|cpu] [--out DIR]");
                std::process::exit(0);
            }
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(2);
            }
        }
    }

    /// Parses `args`; `Ok(None)` for `--help`.
    pub fn parse_from(args: impl IntoIterator<Item = String>) -> Result<Option<BenchArgs>, String> {
        let mut a = BenchArgs::default();
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--quick" => a.quick = true,
                "--rounds" => {
                    let v = it.next().ok_or("--rounds needs a number")?;
                    a.rounds = Some(v.parse().map_err(|_| format!("--rounds: {v:?} is not a number"))?);
                }
                "--out" => a.out = Some(it.next().ok_or("--out needs a folder")?.into()),
                "--clock" => {
                    let v = it.next().ok_or("--clock needs wall or cpu")?;
                    a.clock =
                        Clock::parse(&v).ok_or_else(|| format!("--clock: {v:?} is neither wall nor cpu"))?;
                }
                "-h" | "--help" => return Ok(None),
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        Ok(Some(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &[&str]) -> Result<Option<BenchArgs>, String> {
        BenchArgs::parse_from(v.iter().map(|s| s.to_string()))
    }

    #[test]
    fn options_and_errors() {
        let a = parse(&["--quick", "--rounds", "7", "--out", "r"]).unwrap().unwrap();
        assert_eq!(a.clock, Clock::Wall);
        assert!(a.quick);
        assert_eq!(a.rounds, Some(7));
        assert_eq!(a.out, Some(PathBuf::from("r")));
        assert!(parse(&["--help"]).unwrap().is_none());
        assert!(parse(&["--rounds", "x"]).is_err());
        assert!(parse(&["--rounds"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        assert_eq!(parse(&["--clock", "cpu"]).unwrap().unwrap().clock, Clock::ThreadCpu);
        assert!(parse(&["--clock", "tsc"]).is_err());
    }
}
