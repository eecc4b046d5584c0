// SPDX-License-Identifier: MIT OR Apache-2.0
//! The plan of a SwiftSync run: the located chain of a blocks directory and its checked
//! headers, made once (index and header pass) and handed to every worker, in this process or,
//! as bytes, in another one ([`SwiftPlan::to_bytes`]).
//!
//! ```text
//! plan    = "FVSSPLAN" ‖ u8 version (2) ‖ str network ‖ str dir name ‖ key[8]
//!           ‖ u8 genesis (1: the network's own, not in the files; 0: block 0 is in them)
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
const VERSION: u8 = 2;

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
    /// The rev files beside the blk files, each read when a range needs it and let go when no
    /// range in progress does.
    undo: OnceLock<UndoFiles>,
}

impl SwiftPlan {
    /// Indexes `blocks_dir` for `network` and checks every header of its most-work chain at the
    /// adjusted time `now` (`None`: the system clock). `Err`: the directory cannot be read; a
    /// header that breaks a rule is [`SwiftPlan::header_error`].
    pub fn open(blocks_dir: &Path, network: Network, now: Option<i64>) -> Result<SwiftPlan, Failure> {
        let t = Instant::now();
        let params = network.params();
        let chain = CoreChain::open(blocks_dir, params).map_err(|e| Failure::Source(e.to_string()))?;
        let undo = UndoFiles::new(&chain, params.magic);
        if let Some(missing) = undo.missing() {
            return Err(Failure::Source(format!(
                "{missing}: not found; SwiftSync reads every block's undo data from the rev file beside \
                 its blk file (a chaingen corpus of format 1 has none: generate it again)"
            )));
        }
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
            undo: OnceLock::from(undo),
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
    /// by block bytes (known from the index; the inputs, which cost most, follow them closely, and
    /// the empty early blocks of a chain do not make ranges of very unequal work) in ranges that
    /// shrink towards the tip (guided self-scheduling): each takes a quarter of the bytes still
    /// left, shared among the `workers`, and never less than a 32nd of a worker's share of all.
    /// The first ranges are long, so there are few of them (about 12 for one worker, 24 for two,
    /// 98 for eight); the last are short, so when one worker takes the last range the others
    /// are idle for little time.
    pub fn ranges(&self, range_blocks: Option<u32>, workers: usize) -> Vec<(u32, u32)> {
        let blocks = &self.chain.blocks;
        let n = blocks.len() as u32;
        if let Some(per) = range_blocks {
            let per = per.max(1);
            return (0..n).step_by(per as usize).map(|a| (a, (a + per - 1).min(n - 1))).collect();
        }
        tapered_ranges(blocks.iter().map(|b| u64::from(b.len)), workers)
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
        out.push(u8::from(c.genesis.is_some()));
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
        let implied = match r.u8().map_err(&e)? {
            0 => false,
            1 => true,
            x => return Err(format!("plan: genesis flag {x}")),
        };
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
                genesis: implied.then(|| crate::replay::block_bytes(&params.genesis_block())),
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

/// [`SwiftPlan::ranges`] without a fixed length: the heights `0..` of blocks of `sizes` bytes in
/// ranges that each hold a quarter of the bytes left divided among `workers` (at least a 32nd of
/// a worker's share of all the bytes), the last range ending at the last height.
fn tapered_ranges(sizes: impl ExactSizeIterator<Item = u64> + Clone, workers: usize) -> Vec<(u32, u32)> {
    let n = sizes.len() as u32;
    let w = workers.max(1) as u64;
    let total: u64 = sizes.clone().sum();
    let floor = total.div_ceil(32 * w).max(1);
    let mut out = Vec::new();
    let (mut start, mut acc, mut left) = (0u32, 0u64, total);
    let mut target = (left / (4 * w)).max(floor);
    for (h, len) in sizes.enumerate() {
        acc += len;
        if acc >= target && (h as u32) + 1 < n {
            out.push((start, h as u32));
            start = h as u32 + 1;
            left -= acc;
            acc = 0;
            target = (left / (4 * w)).max(floor);
        }
    }
    out.push((start, n - 1));
    out
}

#[cfg(test)]
mod tests {
    use super::tapered_ranges;

    /// The ranges cover every height once, in order.
    fn covers(r: &[(u32, u32)], n: u32) {
        assert_eq!(r.first().map(|x| x.0), Some(0));
        assert_eq!(r.last().map(|x| x.1), Some(n - 1));
        for w in r.windows(2) {
            assert_eq!(w[0].1 + 1, w[1].0, "{r:?}");
        }
        assert!(r.iter().all(|(a, b)| a <= b));
    }

    #[test]
    fn tapered_ranges_shrink_towards_the_tip() {
        let n = 10_000u32;
        // Blocks that grow with height, as a chain's do.
        let sizes: Vec<u64> = (0..n).map(|h| 200 + u64::from(h) * 3).collect();
        let total: u64 = sizes.iter().sum();
        let bytes = |r: (u32, u32)| sizes[r.0 as usize..=r.1 as usize].iter().sum::<u64>();
        for (workers, count) in [(1usize, 8..=13), (2, 20..=27), (8, 90..=104)] {
            let r = tapered_ranges(sizes.iter().copied(), workers);
            covers(&r, n);
            assert!(count.contains(&r.len()), "{workers} workers: {} ranges", r.len());
            let share = total / workers as u64;
            // The first takes about a quarter of a worker's share, the last about a 32nd.
            assert!(
                bytes(r[0]) * 4 >= share * 9 / 10 && bytes(r[0]) * 4 <= share * 11 / 10,
                "{workers}: first"
            );
            assert!(bytes(r[r.len() - 2]) * 32 <= share * 11 / 10, "{workers}: last but one");
            // Never growing by more than a block (a range ends at the block that reaches its
            // share), but for the last, which takes what is left.
            let largest = *sizes.iter().max().unwrap();
            for w in r[..r.len() - 1].windows(2) {
                assert!(bytes(w[1]) <= bytes(w[0]) + largest, "{workers}: {w:?}");
            }
        }
    }

    #[test]
    fn tapered_ranges_edge_cases() {
        assert_eq!(tapered_ranges([5u64].into_iter(), 4), vec![(0, 0)]);
        assert_eq!(tapered_ranges([0u64; 3].into_iter(), 2), vec![(0, 2)]);
        // One block larger than all the others: it ends a range on its own.
        let r = tapered_ranges([1u64, 1, 1_000_000, 1, 1].into_iter(), 2);
        covers(&r, 5);
        assert!(r.contains(&(0, 2)) || r.contains(&(2, 2)), "{r:?}");
        let r = tapered_ranges(std::iter::repeat_n(1u64, 1000), 0);
        covers(&r, 1000);
    }
}
