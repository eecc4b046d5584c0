// SPDX-License-Identifier: MIT OR Apache-2.0
//! The corpus on disk: blk*.dat files of framed blocks with their undo data in rev*.dat beside
//! them (written from memory or as they are generated, and read back) and `manifest.json`, and
//! the cache folder that is generated once and then reused.
//!
//! The folder is a Bitcoin Core blocks directory without its genesis block (the chain starts
//! at height 1; readers put the network's genesis block first) and without `xor.dat` (the
//! files are not obfuscated): as Core does, a block's undo record goes to the rev file with
//! its blk file's number, checksummed with its parent's hash.

use super::generate::{generate_with, Corpus, Observer};
use super::manifest::{Manifest, FORMAT_VERSION};
use super::profile::{Profile, Spec, DEFAULT_UTXOS};
use fullverify::chain::Network;
use fullverify::undo::BlockUndo;
use fullverify_driver::blocksdir::BlocksWriter;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use fullverify_driver::blocksdir::rev_file_name;

/// A corpus being written: its blocks and undo records through the driver's
/// [`BlocksWriter`] (Core's file split and record framing), without `xor.dat`.
struct CorpusWriter {
    dir: PathBuf,
    files: BlocksWriter,
}

impl CorpusWriter {
    fn create(dir: &Path) -> std::io::Result<CorpusWriter> {
        let files =
            BlocksWriter::plain(dir, Network::Regtest.params().magic).map_err(std::io::Error::other)?;
        Ok(CorpusWriter { dir: dir.to_path_buf(), files })
    }

    /// Appends a block and its undo record.
    fn push(&mut self, b: &[u8], undo: &BlockUndo) -> std::io::Result<()> {
        self.files.block(b, Some(undo)).map_err(std::io::Error::other)
    }

    /// Closes the last files and writes `manifest.json` with the blk files' names.
    fn finish(self, manifest: &Manifest) -> std::io::Result<Manifest> {
        let mut m = manifest.clone();
        m.files = self.files.blk_files();
        self.files.finish().map_err(std::io::Error::other)?;
        let mut text = serde_json::to_string_pretty(&m).expect("manifest json");
        text.push('\n');
        std::fs::write(self.dir.join("manifest.json"), text)?;
        Ok(m)
    }
}

/// Writes the block and undo files and `manifest.json` into `dir` (created), returning the
/// manifest.
pub fn write_corpus(corpus: &Corpus, dir: &Path) -> std::io::Result<Manifest> {
    let mut w = CorpusWriter::create(dir)?;
    for (b, u) in corpus.blocks.iter().zip(&corpus.undo) {
        w.push(b, u)?;
    }
    w.finish(&corpus.manifest)
}

/// Generates the corpus of `spec` into `dir` (created), writing each block as it is made;
/// the same files as [`write_corpus`] of [`generate_spec`](crate::chaingen::generate_spec),
/// without the blocks in memory.
pub fn generate_to_dir(
    spec: &Spec,
    threads: usize,
    observer: &mut dyn Observer,
    dir: &Path,
) -> std::io::Result<Manifest> {
    let mut w = CorpusWriter::create(dir)?;
    let m = generate_with(spec, threads, observer, &mut |b, u| w.push(&b, &u))?;
    w.finish(&m)
}

/// Calls `f` with the height and bytes of every block of the corpus in `dir`, in chain order.
pub fn for_each_block(
    dir: &Path,
    manifest: &Manifest,
    mut f: impl FnMut(u32, &[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let magic = Network::Regtest.params().magic;
    let mut height = manifest.first_height;
    for name in &manifest.files {
        let p = dir.join(name);
        let mut r = BufReader::new(File::open(&p).map_err(|e| format!("{}: {e}", p.display()))?);
        let mut head = [0u8; 8];
        loop {
            match r.read_exact(&mut head) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(format!("{}: {e}", p.display())),
            }
            if head[..4] != magic {
                return Err(format!("{}: no block magic before height {height}", p.display()));
            }
            let mut b = vec![0u8; u32::from_le_bytes(head[4..].try_into().expect("4")) as usize];
            r.read_exact(&mut b).map_err(|e| format!("{}: {e}", p.display()))?;
            f(height, &b)?;
            height += 1;
        }
    }
    Ok(())
}

impl Spec {
    /// The corpus's name, its cache folder's: `<profile>-<seed>-v<format>`, with the set size
    /// after the profile when it is not the default (`utxo-heavy-200000utxos-<seed>-v<format>`),
    /// so that corpora of different sizes never share a folder.
    pub fn id(&self) -> String {
        let size = match self.utxo_target() {
            Some(n) if n != DEFAULT_UTXOS => format!("-{n}utxos"),
            _ => String::new(),
        };
        format!("{}{size}-{}-v{}", self.profile.name(), self.seed, FORMAT_VERSION)
    }
}

/// The cache folder of a corpus under `root`: `<root>/<profile>-<seed>-v<FORMAT_VERSION>`.
pub fn cache_dir(root: &Path, profile: Profile, seed: u64) -> PathBuf {
    spec_dir(root, &Spec::new(profile, seed))
}

/// The cache folder of the corpus of `spec` under `root`: `<root>/<id>` ([`Spec::id`]).
pub fn spec_dir(root: &Path, spec: &Spec) -> PathBuf {
    root.join(spec.id())
}

/// The corpus of `profile` and `seed` under `root`, generated first unless a complete one is
/// there ([`ensure_spec`]).
pub fn ensure_corpus(
    root: &Path,
    profile: Profile,
    seed: u64,
    threads: usize,
    observer: &mut dyn Observer,
) -> std::io::Result<(PathBuf, Manifest, bool)> {
    ensure_spec(root, &Spec::new(profile, seed), threads, observer)
}

/// The corpus of `spec` under `root`, generated first unless a complete one is there (a
/// folder whose manifest matches and records the set's growth). Generation writes to a
/// temporary sibling folder and renames it, so an interrupted run leaves no half corpus
/// behind.
pub fn ensure_spec(
    root: &Path,
    spec: &Spec,
    threads: usize,
    observer: &mut dyn Observer,
) -> std::io::Result<(PathBuf, Manifest, bool)> {
    let dir = spec_dir(root, spec);
    if let Ok(m) = Manifest::read(&dir) {
        if m.format_version == FORMAT_VERSION
            && m.seed == spec.seed
            && m.profile == spec.profile
            && m.utxo_target == spec.utxo_target()
            && !m.growth.is_empty()
            && m.files.iter().all(|f| dir.join(f).is_file() && dir.join(rev_file_name(f)).is_file())
        {
            return Ok((dir, m, false));
        }
    }
    let m = generate_replacing(spec, threads, observer, &dir)?;
    Ok((dir, m, true))
}

/// [`generate_to_dir`] into a temporary sibling of `dir`, renamed to `dir` (replacing what was
/// there) once complete: a failed or interrupted run leaves `dir` as it was (a failed one
/// removes its temporary folder).
pub fn generate_replacing(
    spec: &Spec,
    threads: usize,
    observer: &mut dyn Observer,
    dir: &Path,
) -> std::io::Result<Manifest> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| spec.id());
    let tmp = dir.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let m = generate_to_dir(spec, threads, observer, &tmp).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&tmp);
    })?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&tmp, dir)?;
    Ok(m)
}
