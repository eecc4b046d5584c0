// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared test harness pieces (used by unit tests, integration tests, benches and experiments).
//!
//! - [`vectors_dir`] locates the external vectors: `$FULLVERIFY_VECTORS`, else `../shared/vectors`
//!   relative to the workspace root. When absent it says so loudly on stderr and returns `None`;
//!   callers skip.
//! - [`test_seed`] / [`test_iters`]: `FULLVERIFY_TEST_SEED` and `FULLVERIFY_TEST_ITERS`, with the
//!   seed printed so a failing run can be repeated.

use std::path::PathBuf;

/// The external vectors directory, or `None` (after a loud `SKIP` message) when it is absent.
pub fn vectors_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("FULLVERIFY_VECTORS") {
        let p = PathBuf::from(p);
        if p.is_dir() {
            return Some(p);
        }
        eprintln!("SKIP: FULLVERIFY_VECTORS={} is not a directory", p.display());
        return None;
    }
    // CARGO_MANIFEST_DIR of this crate is <workspace>/core; the vectors sit beside the workspace.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for cand in [root.join("../../shared/vectors"), root.join("../shared/vectors")] {
        if cand.is_dir() {
            return Some(cand);
        }
    }
    eprintln!(
        "SKIP: external vectors not found (set FULLVERIFY_VECTORS or place shared/vectors beside the repository)"
    );
    None
}

/// A file under the vectors directory, or `None` (loudly) when the directory or file is absent.
pub fn vector_file(rel: &str) -> Option<PathBuf> {
    let p = vectors_dir()?.join(rel);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("SKIP: vector file {rel} not found");
        None
    }
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

/// A small deterministic generator (SplitMix64) for tests and corpora; not for secrets.
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

    /// 32 pseudo-random bytes.
    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.fill(&mut b);
        b
    }
}
