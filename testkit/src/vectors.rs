// SPDX-License-Identifier: MIT OR Apache-2.0
//! Locating the external vectors, and the skip-or-fail contract.
//!
//! - [`vectors_dir`] is `$FULLVERIFY_VECTORS`, else `shared/vectors` beside the repository.
//! - [`vector_file`] returns a file under it, or `None` after printing `SKIP: …` when the folder
//!   or the file is absent. With `FULLVERIFY_REQUIRE_VECTORS=1` (CI sets it) an absent folder or
//!   file panics instead, naming what is missing, so a run with the vectors gone cannot pass.
//! - [`test_seed`] / [`test_iters`]: `FULLVERIFY_TEST_SEED` and `FULLVERIFY_TEST_ITERS`, with the
//!   seed printed so a failing run can be repeated.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Whether `FULLVERIFY_REQUIRE_VECTORS` is set to a true value (`1`, `true`, `yes`).
pub fn vectors_required() -> bool {
    matches!(
        std::env::var("FULLVERIFY_REQUIRE_VECTORS").unwrap_or_default().trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes"
    )
}

/// Skips loudly, or fails when the vectors are required.
fn missing(what: &str) {
    assert!(!vectors_required(), "FULLVERIFY_REQUIRE_VECTORS is set, but {what}");
    eprintln!("SKIP: {what}");
}

/// The external vectors directory, or `None` (after a loud `SKIP` message) when it is absent.
///
/// # Panics
/// When the directory is absent and `FULLVERIFY_REQUIRE_VECTORS=1`.
pub fn vectors_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("FULLVERIFY_VECTORS") {
        let p = PathBuf::from(p);
        if p.is_dir() {
            return Some(p);
        }
        missing(&format!("FULLVERIFY_VECTORS={} is not a directory", p.display()));
        return None;
    }
    // CARGO_MANIFEST_DIR of this crate is <repository>/testkit; the vectors sit beside the
    // repository.
    let cand = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors");
    if cand.is_dir() {
        return Some(cand);
    }
    missing(
        "external vectors not found (set FULLVERIFY_VECTORS or place shared/vectors beside the repository)",
    );
    None
}

/// A file under the vectors directory, or `None` (loudly) when the directory or file is absent.
///
/// # Panics
/// When the file is absent and `FULLVERIFY_REQUIRE_VECTORS=1`; the message names the file.
pub fn vector_file(rel: &str) -> Option<PathBuf> {
    let dir = vectors_dir()?;
    let p = dir.join(rel);
    if p.is_file() {
        Some(p)
    } else {
        missing(&format!("vector file {rel} not found under {}", dir.display()));
        None
    }
}

/// The bytes of a vector file, decompressed by extension (`.zst`, `.bz2`, `.gz`).
///
/// # Panics
/// When the file cannot be read or decompressed: vectors are trusted input.
pub fn read_maybe_compressed(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.to_string_lossy();
    if name.ends_with(".zst") {
        zstd::decode_all(&raw[..]).expect("zstd")
    } else if name.ends_with(".bz2") {
        let mut out = Vec::new();
        bzip2::read::BzDecoder::new(&raw[..]).read_to_end(&mut out).expect("bz2");
        out
    } else if name.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..]).read_to_end(&mut out).expect("gzip");
        out
    } else {
        raw
    }
}

/// A JSON vector file, or `None` (loudly, see [`vector_file`]) when it is absent.
pub fn load_json(rel: &str) -> Option<serde_json::Value> {
    let p = vector_file(rel)?;
    Some(serde_json::from_slice(&read_maybe_compressed(&p)).unwrap_or_else(|e| panic!("{rel}: {e}")))
}

/// The test seed: `FULLVERIFY_TEST_SEED` or a fixed default; printed once per call site.
pub fn test_seed() -> u64 {
    let seed =
        std::env::var("FULLVERIFY_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_f00d_u64);
    eprintln!("FULLVERIFY_TEST_SEED={seed}");
    seed
}

/// Iteration count: `FULLVERIFY_TEST_ITERS` or `default`.
pub fn test_iters(default: usize) -> usize {
    std::env::var("FULLVERIFY_TEST_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// A small deterministic generator (SplitMix64) for tests and benchmarks; not for secrets.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fills `buf` with pseudo-random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    /// `N` pseudo-random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0u8; N];
        self.fill(&mut b);
        b
    }

    /// 32 pseudo-random bytes.
    pub fn bytes32(&mut self) -> [u8; 32] {
        self.bytes()
    }
}

/// A fresh scratch directory under the system's temporary folder, named after the test binary's
/// `prefix`, the process and `name`; removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// Creates (emptying first) `<tmp>/<prefix>-<pid>-<name>`.
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    /// A path inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The directory itself.
    pub fn dir(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_mix_is_deterministic_and_fills_partial_chunks() {
        let mut a = SplitMix64(7);
        let mut b = SplitMix64(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut buf = [0u8; 13];
        a.fill(&mut buf);
        assert_ne!(buf, [0u8; 13]);
        assert_ne!(a.bytes32(), a.bytes32());
    }
}
