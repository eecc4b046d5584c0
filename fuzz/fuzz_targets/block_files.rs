// SPDX-License-Identifier: MIT OR Apache-2.0
//! The block-file readers of the replay (fullverify-driver's `source`) on arbitrary bytes: the
//! framed reader (`--source framed` and `corpus`: `magic | u32 LE length | block` records with
//! zero padding between them) and the scan of a Bitcoin Core `blk*.dat` file
//! (`--source core-blocks`: obfuscated with `xor.dat`'s key, garbage passed over to the next
//! magic as Core's importer does).
//!
//! Layout: byte 0 picks the key (odd: bytes 1..9 are the obfuscation key, even: no key); the
//! file is the rest.
//!
//! Properties:
//! - framed: every record starts at a magic at the offset it reports, carries exactly the bytes
//!   its length field says, has a length Core reads as a block (80 to `MAX_SIZE`), and only
//!   zero bytes lie between records; a reader that stops with an error names the file and an
//!   offset inside it; a file read to its end frames back to its bytes (less trailing zeros);
//! - Core scan: the records equal those of a reference scanner written here from Core's
//!   importer's rules (next magic; a length under 80 or over `MAX_SIZE` skipped from the byte
//!   after its magic; a record cut short by the end of the file ends the scan), headers are the
//!   de-obfuscated bytes, and the obfuscated file scans to the same records and the same notes
//!   as its plain bytes; every note names the file.
#![no_main]

use fullverify_driver::source::{scan_block_file, xor_at, FramedReader, SourceError, MAX_RECORD_BYTES, MIN_RECORD_BYTES};
use libfuzzer_sys::fuzz_target;
use std::io::{BufReader, Cursor};

/// Regtest's magic (any fixed value would do; the seeds use this one).
const MAGIC: [u8; 4] = [0xfa, 0xbf, 0xb5, 0xda];
const NAME: &str = "blk00000.dat";

fuzz_target!(|data: &[u8]| {
    let (key, file) = match data.split_first() {
        Some((&b, rest)) if b & 1 == 1 && rest.len() >= 8 => {
            (<[u8; 8]>::try_from(&rest[..8]).expect("8 bytes"), &rest[8..])
        }
        Some((_, rest)) => ([0u8; 8], rest),
        None => ([0u8; 8], data),
    };
    framed(file);
    core_scan(file, &key);
});

fn check_error(e: &SourceError, len: usize) {
    let text = e.to_string();
    assert!(text.contains(NAME), "an error that does not name the file: {text}");
    if let SourceError::Corrupt { at, .. } = e {
        assert!(at.offset <= len as u64, "error offset {} past the file ({len} bytes): {text}", at.offset);
    }
}

fn framed(file: &[u8]) {
    let mut r = FramedReader::new(Cursor::new(file), MAGIC, NAME.to_string(), false);
    let mut rebuilt = Vec::with_capacity(file.len());
    let mut end = 0usize;
    loop {
        match r.next_record() {
            Ok(Some((offset, block))) => {
                let at = usize::try_from(offset).expect("an offset in memory");
                assert!(at >= end, "record at {at} overlaps the one before (ends at {end})");
                assert!(file[end..at].iter().all(|&b| b == 0), "non-zero bytes skipped before {at}");
                assert_eq!(file[at..at + 4], MAGIC);
                let len = u32::from_le_bytes(file[at + 4..at + 8].try_into().expect("4 bytes"));
                assert!((MIN_RECORD_BYTES..=MAX_RECORD_BYTES).contains(&len), "length {len} read as a block");
                assert_eq!(block.len(), len as usize);
                assert_eq!(block[..], file[at + 8..at + 8 + block.len()]);
                rebuilt.resize(at, 0);
                rebuilt.extend_from_slice(&file[at..at + 8]);
                rebuilt.extend_from_slice(&block);
                end = at + 8 + block.len();
            }
            Ok(None) => {
                assert!(file[end..].iter().all(|&b| b == 0), "non-zero bytes after the last record");
                assert_eq!(rebuilt[..], file[..end]);
                assert!(r.next_record().expect("a finished reader stays finished").is_none());
                return;
            }
            Err(e) => {
                check_error(&e, file.len());
                assert!(r.next_record().expect("a reader that failed stays finished").is_none());
                return;
            }
        }
    }
}

/// Core's importer, written from its rules over the plain bytes: `(offset, length)` of each
/// record read as a block.
fn reference_scan(plain: &[u8]) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut from = 0usize;
    loop {
        let Some(start) = (from..plain.len().saturating_sub(3)).find(|&i| plain[i..i + 4] == MAGIC) else {
            return out;
        };
        if plain.len() - start < 8 {
            return out;
        }
        let len = u32::from_le_bytes(plain[start + 4..start + 8].try_into().expect("4 bytes"));
        if !(MIN_RECORD_BYTES..=MAX_RECORD_BYTES).contains(&len) {
            from = start + 1;
            continue;
        }
        if ((plain.len() - start - 8) as u64) < u64::from(len) {
            return out;
        }
        out.push((start as u64, len));
        from = start + 8 + len as usize;
    }
}

fn scan(file: &[u8], key: &[u8; 8], notes: &mut Vec<String>) -> Vec<(u64, u32, [u8; 80])> {
    let mut r = BufReader::with_capacity(64, Cursor::new(file));
    scan_block_file(&mut r, file.len() as u64, NAME, MAGIC, key, notes).expect("reading memory cannot fail")
}

fn core_scan(plain: &[u8], key: &[u8; 8]) {
    let mut notes = Vec::new();
    let records = scan(plain, &[0; 8], &mut notes);
    let want = reference_scan(plain);
    let got: Vec<(u64, u32)> = records.iter().map(|&(o, l, _)| (o, l)).collect();
    assert_eq!(got, want, "records differ from the reference scan");
    for (o, l, h) in &records {
        let at = *o as usize + 8;
        assert!(*l >= 80);
        assert_eq!(h[..], plain[at..at + 80]);
    }
    for n in &notes {
        assert!(n.contains(NAME), "a note that does not name the file: {n}");
    }
    // The same bytes as Core writes them under a key: the same records, the same notes.
    let mut obfuscated = plain.to_vec();
    xor_at(&mut obfuscated, 0, key);
    let mut notes_x = Vec::new();
    assert_eq!(scan(&obfuscated, key, &mut notes_x), records);
    assert_eq!(notes_x, notes);
}
