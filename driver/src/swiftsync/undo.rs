// SPDX-License-Identifier: MIT OR Apache-2.0
//! The undo records of a blocks directory, matched to blocks by their checksum.
//!
//! Core writes a block's undo record to the rev file numbered like the block's blk file, in the
//! order blocks were connected, and the record names no block: its checksum,
//! SHA256d(parent's hash ‖ CBlockUndo), is what ties it to one. A block's record is looked for
//! in its rev file, first at the position the block has among the file's blocks (where it is
//! when blocks were connected in file order, as a replay writes them), then among all of the
//! file's records; the first whose checksum verifies with the block's parent and whose counts
//! match the block's inputs is taken. A rev file is read when a block of its blk file first
//! needs it and shared by the workers while a range is at blocks of that file
//! ([`UndoFiles::hold`]): when the last such range moves on it is let go, and read again should a
//! later range need it, so a run holds about one rev file per range in progress, not every file
//! it has read.

use crate::blocksdir::rev_file_name;
use crate::source::CoreChain;
use fullverify::encode::Block;
use fullverify::undo::{BlockUndo, RevFile, RevRecord, XorKey};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A rev file as read, or why it could not be.
type Loaded = Result<Arc<RevFile>, String>;

/// One rev file: what was read of it, and how many ranges in progress need it.
#[derive(Default)]
struct Slot {
    loaded: Mutex<Option<Loaded>>,
    holders: Mutex<usize>,
}

/// The rev files beside a chain's blk files.
pub struct UndoFiles {
    paths: Vec<PathBuf>,
    names: Vec<String>,
    magic: [u8; 4],
    key: XorKey,
    slots: Vec<Slot>,
    /// `files[h]`: the blk file of the block at height `h`.
    files: Vec<usize>,
    /// `position[h]`: the block's position among the chain's blocks of its blk file that have
    /// an undo record (genesis has none).
    position: Vec<usize>,
    bytes_read: AtomicU64,
}

impl UndoFiles {
    /// The rev files of `chain` (`revNNNNN.dat` beside each `blkNNNNN.dat`) for the network
    /// with `magic`; nothing is read yet.
    pub fn new(chain: &CoreChain, magic: [u8; 4]) -> UndoFiles {
        let paths: Vec<PathBuf> = chain
            .files
            .iter()
            .map(|p| p.with_file_name(rev_file_name(&p.file_name().unwrap_or_default().to_string_lossy())))
            .collect();
        let names = chain.names.iter().map(|n| rev_file_name(n)).collect();
        let mut seen = vec![0usize; chain.files.len()];
        let position = chain
            .blocks
            .iter()
            .enumerate()
            .map(|(h, b)| {
                let p = seen[b.file];
                if h > 0 {
                    seen[b.file] += 1;
                }
                p
            })
            .collect();
        UndoFiles {
            slots: (0..paths.len()).map(|_| Slot::default()).collect(),
            files: chain.blocks.iter().map(|b| b.file).collect(),
            paths,
            names,
            magic,
            key: XorKey(chain.key),
            position,
            bytes_read: AtomicU64::new(0),
        }
    }

    /// The display name of the first rev file that a block above genesis needs and that does
    /// not exist, if one does not.
    pub fn missing(&self) -> Option<&str> {
        let mut needed = vec![false; self.paths.len()];
        for &f in self.files.iter().skip(1) {
            needed[f] = true;
        }
        (0..self.paths.len()).find(|&i| needed[i] && !self.paths[i].exists()).map(|i| self.names[i].as_str())
    }

    /// Bytes of rev files read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// The rev file of blk file `file`, read unless it is held already.
    fn rev(&self, file: usize) -> Loaded {
        let mut loaded = self.slots[file].loaded.lock().unwrap_or_else(PoisonError::into_inner);
        loaded
            .get_or_insert_with(|| {
                let r = RevFile::open(&self.paths[file], self.magic, &self.key).map_err(|e| e.to_string());
                let f = Arc::new(r?);
                let n: u64 = f.records.iter().map(|r| r.disk_len()).sum();
                self.bytes_read.fetch_add(n, Ordering::Relaxed);
                Ok(f)
            })
            .clone()
    }

    /// Marks the rev file of blk file `file` as needed until the guard is dropped; a file no
    /// guard holds any more is let go (and read again if needed later).
    pub fn hold(&self, file: usize) -> Hold<'_> {
        *self.slots[file].holders.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        Hold { undo: self, file }
    }

    /// Keeps `held` on the rev file of the block at `height`: the guard it has when that is its
    /// file, a new one (the old one dropped after) when the block is in another file.
    pub fn hold_for<'a>(&'a self, held: &mut Option<Hold<'a>>, height: u32) {
        let file = self.files[height as usize];
        if held.as_ref().is_none_or(|h| h.file != file) {
            *held = Some(self.hold(file));
        }
    }

    /// Rev files read and not let go (for tests).
    pub fn resident(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.loaded.lock().unwrap_or_else(PoisonError::into_inner).is_some())
            .count()
    }

    /// The records that may be the undo data of the block at `height` of `chain`, without
    /// decoding the block: those of its rev file whose checksum verifies with its parent. The
    /// one at the block's position alone when it verifies and the parent has one child in the
    /// directory; every verifying record otherwise. None for the genesis block.
    pub fn candidates(&self, chain: &CoreChain, height: u32) -> Result<Vec<RevRecord>, String> {
        if height == 0 {
            return Ok(Vec::new());
        }
        let loc = &chain.blocks[height as usize];
        let rev = self.rev(loc.file)?;
        let rev = rev.as_ref();
        let prev = &chain.blocks[height as usize - 1].hash;
        if !chain.fork_parents.contains(prev) {
            if let Some(r) =
                rev.records.get(self.position[height as usize]).filter(|r| r.checksum_matches(prev))
            {
                return Ok(vec![r.clone()]);
            }
        }
        Ok(rev.records_after(prev).cloned().collect())
    }

    /// The undo data of `block`, at `height` in blk file `file`. `Err`: why no record of its
    /// rev file is the block's (a file that cannot be read or split, no record whose checksum
    /// verifies, or records that verify but do not decode or fit the block).
    pub fn block_undo(&self, block: &Block, height: u32, file: usize) -> Result<BlockUndo, String> {
        let rev = self.rev(file)?;
        let rev = rev.as_ref();
        let prev = &block.header.prev_block;
        let guess = rev.records.get(self.position[height as usize]).filter(|r| r.checksum_matches(prev));
        if let Some(r) = guess {
            if let Ok(u) = r.decode_unchecked() {
                if u.check_counts(block).is_ok() {
                    return Ok(u);
                }
            }
        }
        rev.block_undo(block, Some(height)).map_err(|e| e.to_string())
    }

    /// The display name of the rev file of blk file `file`.
    pub fn name(&self, file: usize) -> &str {
        &self.names[file]
    }
}

/// A rev file kept read until this is dropped ([`UndoFiles::hold`]).
pub struct Hold<'a> {
    undo: &'a UndoFiles,
    file: usize,
}

impl Drop for Hold<'_> {
    fn drop(&mut self) {
        let slot = &self.undo.slots[self.file];
        let mut holders = slot.holders.lock().unwrap_or_else(PoisonError::into_inner);
        *holders -= 1;
        if *holders == 0 {
            // Under the holders' lock: whoever holds the file from now on reads it again.
            *slot.loaded.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
    }
}
