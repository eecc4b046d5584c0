// SPDX-License-Identifier: MIT OR Apache-2.0
//! What SwiftSync workers in other processes receive and return, as bytes: a range's result
//! ([`RangeResult::to_bytes`]) and, when the workers do not see the blocks directory, a
//! range's blocks with their candidate undo records ([`Bundle`]).
//!
//! ```text
//! result  = "FVSSPART" ‖ u8 version (2) ‖ u32 first ‖ u32 last ‖ aggregate[32] (big-endian)
//!           ‖ u64 set count ‖ i64 set total ‖ MuHash3072 state[768]
//!           ‖ CompactSize n ‖ (u64 txid prefix ‖ u32 height ‖ u32 tx)…    BIP30 transactions
//!           ‖ opt error ‖ opt (u32 height ‖ str) ‖ opt str                   invalid, mismatch, source
//!           ‖ u64 blocks ‖ u64 txs ‖ u64 inputs ‖ u64 block bytes ‖ u64 undo bytes ‖ u64 wall ns
//! error   = str reason ‖ hash[32] ‖ u32 height ‖ opt (u32 tx ‖ txid[32]) ‖ opt u32 input
//! bundle  = "FVSSBNDL" ‖ u8 version (1) ‖ u32 first ‖ CompactSize n
//!           ‖ (var_bytes block ‖ str rev name ‖ CompactSize k ‖ (u64 offset ‖ checksum[32] ‖ var_bytes undo)…)…
//! opt X   = u8 0 | u8 1 ‖ X;   str = CompactSize length ‖ UTF-8
//! ```
//!
//! The salt never travels in a result: the caller that reads one supplies it.

use super::range::{DataMismatch, RangeCounts, RangeResult, SetPart};
use super::undo::UndoFiles;
use crate::source::CoreChain;
use fullverify::encode::{write_compact_size, Block, DecodeError, Reader};
use fullverify::muhash::MuHash3072;
use fullverify::swiftsync::{Aggregate, Salt};
use fullverify::undo::{BlockUndo, RevFile, RevRecord};
use fullverify::validation::BlockError;
use std::time::Duration;

const RESULT_MAGIC: &[u8; 8] = b"FVSSPART";
const BUNDLE_MAGIC: &[u8; 8] = b"FVSSBNDL";
/// The result format's version: 2 since BIP30 transactions travel as txid prefixes.
const RESULT_VERSION: u8 = 2;
const BUNDLE_VERSION: u8 = 1;

/// A decoding error of `what` as a message.
pub(crate) fn wire_err(what: &'static str) -> impl Fn(DecodeError) -> String {
    move |e| format!("{what}: {e}")
}

/// Reads a format's 8-byte magic and version byte; `what` names the format in errors.
pub(crate) fn take_magic(
    r: &mut Reader<'_>,
    magic: &[u8; 8],
    version: u8,
    what: &'static str,
) -> Result<(), String> {
    if r.array::<8>().map_err(wire_err(what))? != *magic {
        return Err(format!("{what}: not a fullverify SwiftSync {what}"));
    }
    let v = r.u8().map_err(wire_err(what))?;
    if v != version {
        return Err(format!("{what}: version {v}, this build reads {version}"));
    }
    Ok(())
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    write_compact_size(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

pub(crate) fn take_str(r: &mut Reader<'_>, what: &'static str) -> Result<String, String> {
    let b = r.var_bytes().map_err(wire_err(what))?;
    String::from_utf8(b.to_vec()).map_err(|_| format!("{what}: a string that is not UTF-8"))
}

fn put_opt<T>(out: &mut Vec<u8>, v: Option<&T>, f: impl FnOnce(&mut Vec<u8>, &T)) {
    match v {
        None => out.push(0),
        Some(x) => {
            out.push(1);
            f(out, x);
        }
    }
}

fn take_opt<T>(
    r: &mut Reader<'_>,
    what: &'static str,
    f: impl FnOnce(&mut Reader<'_>) -> Result<T, String>,
) -> Result<Option<T>, String> {
    match r.u8().map_err(wire_err(what))? {
        0 => Ok(None),
        1 => f(r).map(Some),
        b => Err(format!("{what}: option tag {b}")),
    }
}

fn put_error(out: &mut Vec<u8>, e: &BlockError) {
    put_str(out, &e.reason);
    out.extend_from_slice(&e.hash);
    out.extend_from_slice(&e.height.to_le_bytes());
    put_opt(out, e.tx.as_ref(), |o, (t, id)| {
        o.extend_from_slice(&(*t as u32).to_le_bytes());
        o.extend_from_slice(id);
    });
    put_opt(out, e.input.as_ref(), |o, i| o.extend_from_slice(&(*i as u32).to_le_bytes()));
}

fn take_error(r: &mut Reader<'_>) -> Result<BlockError, String> {
    let e = wire_err("range result");
    let reason = take_str(r, "range result")?;
    let hash = r.array().map_err(&e)?;
    let height = r.u32().map_err(&e)?;
    let tx = take_opt(r, "range result", |r| Ok((r.u32().map_err(&e)? as usize, r.array().map_err(&e)?)))?;
    let input = take_opt(r, "range result", |r| Ok(r.u32().map_err(&e)? as usize))?;
    Ok(BlockError { reason, hash, height, tx, input })
}

impl RangeResult {
    /// The result as bytes (the salt stays behind).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(900 + 16 * self.bip30.len());
        out.extend_from_slice(RESULT_MAGIC);
        out.push(RESULT_VERSION);
        let c = &self.counts;
        out.extend_from_slice(&c.heights.0.to_le_bytes());
        out.extend_from_slice(&c.heights.1.to_le_bytes());
        out.extend_from_slice(&self.aggregate.value());
        out.extend_from_slice(&self.set.count.to_le_bytes());
        out.extend_from_slice(&self.set.total.to_le_bytes());
        out.extend_from_slice(&self.set.muhash.serialize());
        write_compact_size(&mut out, self.bip30.len() as u64);
        for (prefix, height, t) in &self.bip30 {
            out.extend_from_slice(&prefix.to_le_bytes());
            out.extend_from_slice(&height.to_le_bytes());
            out.extend_from_slice(&t.to_le_bytes());
        }
        put_opt(&mut out, self.invalid.as_ref(), put_error);
        put_opt(&mut out, self.mismatch.as_ref(), |o, m| {
            o.extend_from_slice(&m.height.to_le_bytes());
            put_str(o, &m.what);
        });
        put_opt(&mut out, self.source.as_ref(), |o, s| put_str(o, s));
        for v in [c.blocks, c.txs, c.inputs, c.bytes_read, c.undo_bytes] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(c.wall.as_nanos() as u64).to_le_bytes());
        out
    }

    /// A result from [`RangeResult::to_bytes`], its aggregate under `salt` (the run's).
    pub fn from_bytes(bytes: &[u8], salt: &Salt) -> Result<RangeResult, String> {
        let mut r = Reader::new(bytes);
        let e = wire_err("range result");
        take_magic(&mut r, RESULT_MAGIC, RESULT_VERSION, "range result")?;
        let heights = (r.u32().map_err(&e)?, r.u32().map_err(&e)?);
        let mut aggregate = Aggregate::new(salt.clone());
        aggregate.add_hash(&r.array().map_err(&e)?);
        let count = r.u64().map_err(&e)?;
        let total = r.i64().map_err(&e)?;
        let muhash = MuHash3072::deserialize(&r.array().map_err(&e)?);
        let n = r.compact_size().map_err(&e)? as usize;
        let mut bip30 = Vec::with_capacity(n.min(r.remaining() / 16));
        for _ in 0..n {
            bip30.push((r.u64().map_err(&e)?, r.u32().map_err(&e)?, r.u32().map_err(&e)?));
        }
        let invalid = take_opt(&mut r, "range result", take_error)?;
        let mismatch = take_opt(&mut r, "range result", |r| {
            Ok(DataMismatch { height: r.u32().map_err(&e)?, what: take_str(r, "range result")? })
        })?;
        let source = take_opt(&mut r, "range result", |r| take_str(r, "range result"))?;
        let mut v = [0u64; 6];
        for x in &mut v {
            *x = r.u64().map_err(&e)?;
        }
        r.finish().map_err(&e)?;
        let counts = RangeCounts {
            heights,
            blocks: v[0],
            txs: v[1],
            inputs: v[2],
            bytes_read: v[3],
            undo_bytes: v[4],
            wall: Duration::from_nanos(v[5]),
        };
        Ok(RangeResult {
            counts,
            aggregate,
            set: SetPart { count, total, muhash },
            bip30,
            invalid,
            mismatch,
            source,
        })
    }
}

/// One block of a [`Bundle`]: its bytes and the records of its rev file that may be its undo
/// data (those whose checksum verifies with its parent), as a [`RevFile`] named like the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundledBlock {
    /// The block, de-obfuscated.
    pub raw: Vec<u8>,
    /// Candidate undo records (none for the genesis block), named after their rev file.
    pub undo: RevFile,
}

/// A range's blocks and undo records, for a worker that does not see the blocks directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    /// The height of the first block.
    pub first: u32,
    /// The blocks, in height order.
    pub blocks: Vec<BundledBlock>,
}

impl Bundle {
    /// The bundle as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let size: usize = self
            .blocks
            .iter()
            .map(|b| b.raw.len() + 64 + b.undo.records.iter().map(|u| u.undo().len() + 50).sum::<usize>())
            .sum();
        let mut out = Vec::with_capacity(32 + size);
        out.extend_from_slice(BUNDLE_MAGIC);
        out.push(BUNDLE_VERSION);
        out.extend_from_slice(&self.first.to_le_bytes());
        write_compact_size(&mut out, self.blocks.len() as u64);
        for b in &self.blocks {
            write_compact_size(&mut out, b.raw.len() as u64);
            out.extend_from_slice(&b.raw);
            put_str(&mut out, b.undo.name.as_deref().unwrap_or_default());
            write_compact_size(&mut out, b.undo.records.len() as u64);
            for u in &b.undo.records {
                out.extend_from_slice(&u.offset.to_le_bytes());
                out.extend_from_slice(&u.checksum);
                write_compact_size(&mut out, u.undo().len() as u64);
                out.extend_from_slice(u.undo());
            }
        }
        out
    }

    /// A bundle from [`Bundle::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Bundle, String> {
        let mut r = Reader::new(bytes);
        let e = wire_err("bundle");
        take_magic(&mut r, BUNDLE_MAGIC, BUNDLE_VERSION, "bundle")?;
        let first = r.u32().map_err(&e)?;
        let n = r.compact_size().map_err(&e)? as usize;
        let mut blocks = Vec::with_capacity(n.min(r.remaining() / 80));
        for _ in 0..n {
            let raw = r.var_bytes().map_err(&e)?.to_vec();
            let rev_name = take_str(&mut r, "bundle")?;
            let k = r.compact_size().map_err(&e)? as usize;
            let mut undo = Vec::with_capacity(k.min(r.remaining() / 41));
            for _ in 0..k {
                let offset = r.u64().map_err(&e)?;
                let checksum = r.array().map_err(&e)?;
                let bytes = r.var_bytes().map_err(&e)?.to_vec();
                undo.push(RevRecord::new(offset, bytes, checksum));
            }
            blocks.push(BundledBlock { raw, undo: RevFile { name: Some(rev_name), records: undo } });
        }
        r.finish().map_err(&e)?;
        Ok(Bundle { first, blocks })
    }

    /// Reads the blocks at heights `first..=last` of `chain` and their candidate undo records
    /// ([`UndoFiles::candidates`]).
    pub fn read(chain: &CoreChain, undo: &UndoFiles, first: u32, last: u32) -> Result<Bundle, String> {
        let mut blocks = Vec::with_capacity((last - first + 1) as usize);
        let mut open: Option<(usize, std::fs::File)> = None;
        let mut held = None;
        for height in first..=last {
            undo.hold_for(&mut held, height);
            let loc = &chain.blocks[height as usize];
            let raw = chain.read_at(&mut open, height).map_err(|e| e.to_string())?;
            let candidates = undo.candidates(chain, height)?;
            let undo = RevFile { name: Some(undo.name(loc.file).to_string()), records: candidates };
            blocks.push(BundledBlock { raw, undo });
        }
        Ok(Bundle { first, blocks })
    }

    /// The bundled block at `height`.
    pub(crate) fn get(&self, height: u32) -> Result<&BundledBlock, String> {
        height
            .checked_sub(self.first)
            .and_then(|i| self.blocks.get(i as usize))
            .ok_or_else(|| format!("the bundle of heights {}.. has no block {height}", self.first))
    }

    /// The undo data of `block` at `height`, from its candidates, as [`RevFile::block_undo`]
    /// chooses it.
    pub(crate) fn block_undo(&self, block: &Block, height: u32) -> Result<BlockUndo, String> {
        self.get(height)?.undo.block_undo(block, Some(height)).map_err(|e| e.to_string())
    }
}
