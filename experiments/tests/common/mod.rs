// SPDX-License-Identifier: MIT OR Apache-2.0
//! What more than one of the experiments' test binaries needs.

use fullverify_experiments::chaingen::{ensure_corpus, Profile, DEFAULT_SEED};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `small` chaingen corpus in `target/chaingen/`, generated once for the test binary: its
/// tests run in parallel, and two generating it into the same folder at once fail.
pub fn small_corpus() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/chaingen");
        ensure_corpus(&root, Profile::Small, DEFAULT_SEED, 2, &mut ()).expect("the small corpus").0
    })
    .clone()
}
