// SPDX-License-Identifier: MIT OR Apache-2.0
//! The corpus on disk: blk*.dat files of framed blocks and `manifest.json`, and the cache folder
//! that is generated once and then reused.

use super::generate::{generate, Corpus, Observer};
use super::manifest::{Manifest, FORMAT_VERSION};
use super::profile::Profile;
use fullverify::chain::Network;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bitcoin Core's maximum blk*.dat file size.
const MAX_BLOCKFILE_SIZE: usize = 128 << 20;

/// Writes the block files and `manifest.json` into `dir` (created), returning the manifest.
pub fn write_corpus(corpus: &Corpus, dir: &Path) -> std::io::Result<Manifest> {
    std::fs::create_dir_all(dir)?;
    let magic = Network::Regtest.params().magic;
    let mut files = Vec::new();
    let mut cur: Option<std::io::BufWriter<std::fs::File>> = None;
    let mut size = 0usize;
    for b in &corpus.blocks {
        if cur.is_none() || size + b.len() + 8 > MAX_BLOCKFILE_SIZE {
            if let Some(mut f) = cur.take() {
                f.flush()?;
            }
            let name = format!("blk{:05}.dat", files.len());
            cur = Some(std::io::BufWriter::new(std::fs::File::create(dir.join(&name))?));
            files.push(name);
            size = 0;
        }
        let f = cur.as_mut().expect("open file");
        f.write_all(&magic)?;
        f.write_all(&(b.len() as u32).to_le_bytes())?;
        f.write_all(b)?;
        size += b.len() + 8;
    }
    if let Some(mut f) = cur {
        f.flush()?;
    }
    let mut m = corpus.manifest.clone();
    m.files = files;
    let mut text = serde_json::to_string_pretty(&m).expect("manifest json");
    text.push('\n');
    std::fs::write(dir.join("manifest.json"), text)?;
    Ok(m)
}

/// The cache folder of a corpus under `root`: `<root>/<profile>-<seed>-v<FORMAT_VERSION>`.
pub fn cache_dir(root: &Path, profile: Profile, seed: u64) -> PathBuf {
    root.join(format!("{}-{seed}-v{FORMAT_VERSION}", profile.name()))
}

/// The corpus of `profile` and `seed` under `root`, generated first unless a complete one is
/// there (a folder whose manifest matches). Generation writes to a temporary sibling folder
/// and renames it, so an interrupted run leaves no half corpus behind.
pub fn ensure_corpus(
    root: &Path,
    profile: Profile,
    seed: u64,
    threads: usize,
    observer: &mut dyn Observer,
) -> std::io::Result<(PathBuf, Manifest, bool)> {
    let dir = cache_dir(root, profile, seed);
    if let Ok(m) = Manifest::read(&dir) {
        if m.format_version == FORMAT_VERSION
            && m.seed == seed
            && m.profile == profile
            && m.files.iter().all(|f| dir.join(f).is_file())
        {
            return Ok((dir, m, false));
        }
    }
    let corpus = generate(profile, seed, threads, observer);
    let tmp = root.join(format!(".{}-{seed}-v{FORMAT_VERSION}.tmp-{}", profile.name(), std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let m = write_corpus(&corpus, &tmp)?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&tmp, &dir)?;
    Ok((dir, m, true))
}
