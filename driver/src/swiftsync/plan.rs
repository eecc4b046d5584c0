// SPDX-License-Identifier: MIT OR Apache-2.0
//! The plan of a SwiftSync run: the located chain of a blocks directory and its checked
//! headers, made once (index and header pass) and handed to every worker, in this process or,
//! as bytes, in another one ([`SwiftPlan::to_bytes`]).
//!
//! ```text
//! plan    = "FVSSPLAN" ‖ u8 version (1) ‖ str network ‖ str dir name ‖ key[8]
//!           ‖ CompactSize n_files ‖ str file name…
//!           ‖ CompactSize n_blocks ‖ (CompactSize file ‖ u64 offset ‖ u32 len ‖ header[80])…
//! str     = CompactSize length ‖ UTF-8 bytes
//! ```
//!
//! A plan read back trusts its headers: they were checked where it was made. Its blocks are
//! read from the directory the reader names (the same files on a shared file system), or come
//! with each range as a [`Bundle`](super::wire::Bundle).

use super::headers::HeaderChain;
use super::undo::UndoFiles;
use super::wire::{put_str, take_magic, take_str, wire_err};
use crate::replay::Failure;
use crate::source::{display_name, CoreChain, LocatedBlock};
use fullverify::chain::{HeaderEntry, Network};
use fullverify::encode::{write_compact_size, BlockHeader, Reader};
use fullverify::validation::BlockError;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const MAGIC: &[u8; 8] = b"FVSSPLAN";
const VERSION: u8 = 1;

/// The located chain and its checked headers.
pub struct SwiftPlan {
    /// The network whose rules apply.
    pub network: Network,
    /// The blocks directory the blocks are read from (`None`: they come in bundles).
    pub blocks_dir: Option<PathBuf>,
    /// The chain, from genesis.
    pub chain: CoreChain,
    /// The checked headers: all of them, or those below the first that failed.
    pub headers: HeaderChain,
    /// The first header that broke a rule, if one did (no block pass then).
    pub header_error: Option<Box<BlockError>>,
    /// Time to index the directory's headers.
    pub index_time: Duration,
    /// Time of the header pass.
    pub headers_time: Duration,
    /// The rev files beside the blk files, each read on first use and kept for every range
    /// this plan validates or bundles.
    undo: OnceLock<UndoFiles>,
}

impl SwiftPlan {
    /// Indexes `blocks_dir` for `network` and checks every header of its most-work chain at the
    /// adjusted time `now` (`None`: the system clock). `Err`: the directory cannot be read; a
    /// header that breaks a rule is [`SwiftPlan::header_error`].
    pub fn open(blocks_dir: &Path, network: Network, now: Option<i64>) -> Result<SwiftPlan, Failure> {
        let t = Instant::now();
        let params = network.params();
        let chain = CoreChain::open(blocks_dir, params.magic, params.genesis_hash)
            .map_err(|e| Failure::Source(e.to_string()))?;
        let index_time = t.elapsed();
        let t = Instant::now();
        let now = now.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
        let (headers, header_error) =
            match HeaderChain::check(chain.blocks.iter().map(|b| b.header), params, now) {
                Ok(h) => (h, None),
                Err(e) => (HeaderChain::trusted(Vec::new(), params), Some(e)),
            };
        Ok(SwiftPlan {
            network,
            blocks_dir: Some(blocks_dir.to_path_buf()),
            chain,
            headers,
            header_error,
            index_time,
            headers_time: t.elapsed(),
            undo: OnceLock::new(),
        })
    }

    /// Height of the chain's tip.
    pub fn tip_height(&self) -> u32 {
        self.chain.blocks.len() as u32 - 1
    }

    /// The tip's hash.
    pub fn tip_hash(&self) -> [u8; 32] {
        self.chain.blocks[self.tip_height() as usize].hash
    }

    /// The heights split into ranges, lowest first: of `range_blocks` blocks each, or (`None`)
    /// about eight per worker of `workers` holding about equal block bytes, so that the empty
    /// early blocks of a chain do not make ranges of very unequal work (the bytes are known
    /// from the index; the inputs, which cost most, follow them closely).
    pub fn ranges(&self, range_blocks: Option<u32>, workers: usize) -> Vec<(u32, u32)> {
        let blocks = &self.chain.blocks;
        let n = blocks.len() as u32;
        if let Some(per) = range_blocks {
            let per = per.max(1);
            return (0..n).step_by(per as usize).map(|a| (a, (a + per - 1).min(n - 1))).collect();
        }
        let total: u64 = blocks.iter().map(|b| u64::from(b.len)).sum();
        let target = total.div_ceil(8 * workers.max(1) as u64).max(1);
        let mut out = Vec::new();
        let (mut start, mut acc) = (0u32, 0u64);
        for (h, b) in blocks.iter().enumerate() {
            acc += u64::from(b.len);
            if acc >= target && (h as u32) + 1 < n {
                out.push((start, h as u32));
                start = h as u32 + 1;
                acc = 0;
            }
        }
        out.push((start, n - 1));
        out
    }

    /// The plan as bytes, for workers elsewhere (a plan with a failed header has no block pass
    /// and is not sent).
    pub fn to_bytes(&self) -> Vec<u8> {
        let c = &self.chain;
        let mut out = Vec::with_capacity(64 + c.blocks.len() * 100);
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        put_str(&mut out, self.network.name());
        put_str(&mut out, &c.dir_name);
        out.extend_from_slice(&c.key);
        write_compact_size(&mut out, c.files.len() as u64);
        for f in &c.files {
            put_str(&mut out, &f.file_name().unwrap_or_default().to_string_lossy());
        }
        write_compact_size(&mut out, c.blocks.len() as u64);
        for b in &c.blocks {
            write_compact_size(&mut out, b.file as u64);
            out.extend_from_slice(&b.offset.to_le_bytes());
            out.extend_from_slice(&b.len.to_le_bytes());
            out.extend_from_slice(&b.header);
        }
        out
    }

    /// A plan from [`SwiftPlan::to_bytes`], its blocks to be read from `blocks_dir` (the
    /// worker's view of the directory) or, with `None`, to come in bundles. The headers are
    /// linked again (each must name the one before as its parent) but not checked.
    pub fn from_bytes(bytes: &[u8], blocks_dir: Option<&Path>) -> Result<SwiftPlan, String> {
        let mut r = Reader::new(bytes);
        let e = wire_err("plan");
        take_magic(&mut r, MAGIC, VERSION, "plan")?;
        let network: Network = take_str(&mut r, "plan")?.parse().map_err(|e| format!("plan: {e}"))?;
        let dir_name = take_str(&mut r, "plan")?;
        let key = r.array::<8>().map_err(&e)?;
        let n_files = r.compact_size().map_err(&e)? as usize;
        let mut files = Vec::with_capacity(n_files.min(1 << 16));
        let mut names = Vec::with_capacity(n_files.min(1 << 16));
        for _ in 0..n_files {
            let f = take_str(&mut r, "plan")?;
            if f.contains('/') || f.contains('\\') || f.starts_with('.') {
                return Err(format!("plan: file name {f:?} is not a plain name"));
            }
            names.push(format!("{dir_name}/{f}"));
            files.push(blocks_dir.map_or_else(|| PathBuf::from(&f), |d| d.join(&f)));
        }
        let n_blocks = r.compact_size().map_err(&e)? as usize;
        if n_blocks == 0 {
            return Err("plan: no blocks".into());
        }
        let mut blocks: Vec<LocatedBlock> = Vec::with_capacity(n_blocks.min(r.remaining() / 93));
        let mut entries: Vec<HeaderEntry> = Vec::with_capacity(blocks.capacity());
        for h in 0..n_blocks {
            let file = r.compact_size().map_err(&e)? as usize;
            if file >= files.len() {
                return Err(format!("plan: block {h} in file {file} of {}", files.len()));
            }
            let offset = r.u64().map_err(&e)?;
            let len = r.u32().map_err(&e)?;
            let header: [u8; 80] = r.array().map_err(&e)?;
            let decoded = BlockHeader::decode(&mut Reader::new(&header)).map_err(&e)?;
            if let Some(parent) = entries.last() {
                if decoded.prev_block != parent.hash {
                    return Err(format!("plan: header {h} does not follow header {}", h - 1));
                }
            }
            let entry = HeaderEntry::of(&decoded);
            blocks.push(LocatedBlock { file, offset, len, header, hash: entry.hash });
            entries.push(entry);
        }
        r.finish().map_err(&e)?;
        let params = network.params();
        if blocks[0].hash != params.genesis_hash {
            return Err(format!("plan: block 0 is not the {} genesis block", network.name()));
        }
        Ok(SwiftPlan {
            network,
            blocks_dir: blocks_dir.map(Path::to_path_buf),
            chain: CoreChain {
                dir_name,
                key,
                files,
                names,
                blocks,
                fork_parents: Default::default(),
                notes: Vec::new(),
            },
            headers: HeaderChain::trusted(entries, params),
            header_error: None,
            index_time: Duration::ZERO,
            headers_time: Duration::ZERO,
            undo: OnceLock::new(),
        })
    }

    /// The chain's rev files (nothing is read until a block needs its record).
    pub fn undo_files(&self) -> &UndoFiles {
        self.undo.get_or_init(|| UndoFiles::new(&self.chain, self.network.params().magic))
    }

    /// The display name of the blocks directory.
    pub fn dir_name(&self) -> String {
        self.blocks_dir.as_deref().map_or_else(|| self.chain.dir_name.clone(), display_name)
    }
}
