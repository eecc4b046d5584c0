// SPDX-License-Identifier: MIT OR Apache-2.0
//! Writing a Bitcoin Core-shaped `blocks/` directory as a chain is connected: `blk*.dat` block
//! records, `rev*.dat` undo records and `xor.dat`, so that `--source core-blocks` (and the
//! SwiftSync mode) can read a replayed chain back.
//!
//! ```text
//! blkNNNNN.dat  magic ‖ size (LE u32) ‖ block                                  (per block)
//! revNNNNN.dat  magic ‖ size (LE u32) ‖ CBlockUndo ‖ SHA256d(parent ‖ CBlockUndo) (per block but genesis)
//! xor.dat       8 random bytes; every byte of the blk and rev files is XORed with key[offset mod 8]
//! ```
//!
//! As Core does: a block's undo record goes to the rev file with its blk file's number, the
//! genesis block has none (its transactions are never connected), and a new pair of files is
//! begun when a block would take its blk file past [`MAX_BLOCKFILE_SIZE`]. The block index
//! (`blocks/index/`) is not written: readers rebuild the chain from the headers.

use fullverify::encode::{Block, OutPoint};
use fullverify::undo::{encode_record, BlockUndo, XorKey};
use fullverify::utxo::Coin;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Core's largest blk file (`MAX_BLOCKFILE_SIZE`, 128 MiB).
pub const MAX_BLOCKFILE_SIZE: u64 = 0x0800_0000;

/// The name of blk file number `n` (`blk00003.dat`).
pub fn blk_file_name(n: u32) -> String {
    format!("blk{n:05}.dat")
}

/// The rev file beside the blk file `blk`, a name or a path (`blk00003.dat` → `rev00003.dat`,
/// `blocks/blk00003.dat` → `blocks/rev00003.dat`): the last `blk` is the file name's prefix.
pub fn rev_file_name(blk: &str) -> String {
    match blk.rfind("blk") {
        Some(i) => format!("{}rev{}", &blk[..i], &blk[i + 3..]),
        None => blk.to_string(),
    }
}

/// Appends blocks and their undo records to a new blocks directory.
pub struct BlocksWriter {
    dir: PathBuf,
    magic: [u8; 4],
    key: XorKey,
    max_file: u64,
    file_no: u32,
    blk: BufWriter<File>,
    blk_pos: u64,
    rev: BufWriter<File>,
    rev_pos: u64,
    blocks: u64,
    bytes: u64,
}

impl BlocksWriter {
    /// Creates the directory `dir` (it must not hold block files yet) for the network with
    /// `magic`, obfuscated with `key` (written to `xor.dat`).
    pub fn create(dir: &Path, magic: [u8; 4], key: XorKey) -> Result<BlocksWriter, String> {
        BlocksWriter::with_file_limit(dir, magic, key, MAX_BLOCKFILE_SIZE)
    }

    /// [`BlocksWriter::create`] without `xor.dat`: the files are not obfuscated (readers take a
    /// directory without `xor.dat` as a zero key), as a chaingen corpus is written.
    pub fn plain(dir: &Path, magic: [u8; 4]) -> Result<BlocksWriter, String> {
        BlocksWriter::open(dir, magic, None, MAX_BLOCKFILE_SIZE)
    }

    /// [`BlocksWriter::create`] with another blk file limit (tests use a small one to get
    /// several files).
    pub fn with_file_limit(
        dir: &Path,
        magic: [u8; 4],
        key: XorKey,
        max_file: u64,
    ) -> Result<BlocksWriter, String> {
        BlocksWriter::open(dir, magic, Some(key), max_file)
    }

    fn open(dir: &Path, magic: [u8; 4], key: Option<XorKey>, max_file: u64) -> Result<BlocksWriter, String> {
        let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let first = blk_file_name(0);
        if dir.join(&first).exists() {
            return Err(format!("{}: already holds {first}; choose an empty directory", dir.display()));
        }
        if let Some(key) = &key {
            let xor = dir.join("xor.dat");
            std::fs::write(&xor, key.0).map_err(|e| io(&xor, e))?;
        }
        let (blk, rev) = open_pair(dir, 0)?;
        Ok(BlocksWriter {
            dir: dir.to_path_buf(),
            magic,
            key: key.unwrap_or(XorKey::ZERO),
            max_file,
            file_no: 0,
            blk,
            blk_pos: 0,
            rev,
            rev_pos: 0,
            blocks: 0,
            bytes: 0,
        })
    }

    /// Appends the block `raw` and, unless it is the genesis block (`undo` is `None`), its undo
    /// record (checksummed with its parent's hash, the block's `prev_block`).
    pub fn block(&mut self, raw: &[u8], undo: Option<&BlockUndo>) -> Result<(), String> {
        let record = 8 + raw.len() as u64;
        if self.blk_pos > 0 && self.blk_pos + record > self.max_file {
            self.next_file()?;
        }
        let mut rec = Vec::with_capacity(record as usize);
        rec.extend_from_slice(&self.magic);
        rec.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        rec.extend_from_slice(raw);
        self.key.apply(&mut rec, self.blk_pos);
        let name = self.blk_name(self.file_no);
        self.blk.write_all(&rec).map_err(|e| format!("{name}: {e}"))?;
        self.blk_pos += record;
        if let Some(u) = undo {
            let prev: [u8; 32] =
                raw.get(4..36).and_then(|p| p.try_into().ok()).ok_or("a block shorter than its header")?;
            let mut rec = Vec::new();
            encode_record(&mut rec, self.magic, &prev, u);
            self.key.apply(&mut rec, self.rev_pos);
            self.rev.write_all(&rec).map_err(|e| format!("{}: {e}", self.rev_name(self.file_no)))?;
            self.rev_pos += rec.len() as u64;
        }
        self.blocks += 1;
        self.bytes += raw.len() as u64;
        Ok(())
    }

    /// Blocks written so far, and their bytes.
    pub fn written(&self) -> (u64, u64) {
        (self.blocks, self.bytes)
    }

    /// The names of the blk files begun so far, in order (each with its rev file beside it).
    pub fn blk_files(&self) -> Vec<String> {
        (0..=self.file_no).map(blk_file_name).collect()
    }

    fn blk_name(&self, n: u32) -> String {
        self.dir.join(blk_file_name(n)).display().to_string()
    }

    fn rev_name(&self, n: u32) -> String {
        self.dir.join(rev_file_name(&blk_file_name(n))).display().to_string()
    }

    fn next_file(&mut self) -> Result<(), String> {
        self.flush()?;
        self.file_no += 1;
        let (blk, rev) = open_pair(&self.dir, self.file_no)?;
        self.blk = blk;
        self.blk_pos = 0;
        self.rev = rev;
        self.rev_pos = 0;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), String> {
        self.blk.flush().map_err(|e| format!("{}: {e}", self.blk_name(self.file_no)))?;
        self.rev.flush().map_err(|e| format!("{}: {e}", self.rev_name(self.file_no)))?;
        Ok(())
    }

    /// Flushes both files of the last pair.
    pub fn finish(mut self) -> Result<(u64, u64), String> {
        self.flush()?;
        Ok(self.written())
    }
}

fn open_pair(dir: &Path, n: u32) -> Result<(BufWriter<File>, BufWriter<File>), String> {
    let open = |name: String| {
        let p = dir.join(&name);
        File::create(&p)
            .map(|f| BufWriter::with_capacity(1 << 20, f))
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let blk = blk_file_name(n);
    let rev = rev_file_name(&blk);
    Ok((open(blk)?, open(rev)?))
}

/// The coins `block` (at `height`) spends, in input order, the way its undo record lists them:
/// a coin created earlier in the same block from the block, any other from `lookup` (the UTXO
/// set before the block). `None` when an input's coin is in neither (the block is invalid and
/// will be rejected when connected).
pub fn spent_coins(
    block: &Block,
    height: u32,
    mut lookup: impl FnMut(&OutPoint) -> Option<Coin>,
) -> Option<Vec<Coin>> {
    let mut own: HashMap<OutPoint, Coin> = HashMap::new();
    let mut spent = Vec::new();
    for (t, tx) in block.txdata.iter().enumerate() {
        if t > 0 {
            for inp in &tx.inputs {
                let c = match own.remove(&inp.prevout) {
                    Some(c) => c,
                    None => lookup(&inp.prevout)?,
                };
                spent.push(c);
            }
        }
        let txid = tx.txid();
        for (vout, o) in tx.outputs.iter().enumerate() {
            let coin = Coin { out: o.clone(), height, coinbase: t == 0 };
            own.insert(OutPoint { txid, vout: vout as u32 }, coin);
        }
    }
    Some(spent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rev_file_is_named_after_its_blk_file_in_its_folder() {
        assert_eq!(blk_file_name(3), "blk00003.dat");
        assert_eq!(rev_file_name("blk00003.dat"), "rev00003.dat");
        assert_eq!(rev_file_name(&blk_file_name(123_456)), "rev123456.dat");
        // A path: only the file name changes, however its folders are named.
        assert_eq!(rev_file_name("blk/blocks/blk00007.dat"), "blk/blocks/rev00007.dat");
    }

    #[test]
    fn a_plain_writer_leaves_out_xor_dat_and_names_its_files() {
        let dir = std::env::temp_dir().join(format!("fv-blocksdir-plain-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let w = BlocksWriter::plain(&dir, [1, 2, 3, 4]).unwrap();
        assert_eq!(w.blk_files(), vec!["blk00000.dat".to_string()]);
        w.finish().unwrap();
        assert!(!dir.join("xor.dat").exists());
        assert!(dir.join("blk00000.dat").is_file() && dir.join("rev00000.dat").is_file());
        assert!(BlocksWriter::plain(&dir, [1, 2, 3, 4]).is_err(), "a folder with blk files is refused");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
