// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's undo data (fullverify::undo) on arbitrary bytes: `CBlockUndo`, `CTxUndo`, one coin,
//! `TxOutCompression`, `ScriptCompression`, `VARINT`, amounts and rev-file records.
//!
//! Properties:
//! - decode → encode → decode gives equal values, and the second encoding equals the first;
//! - where the input is in canonical form (legacy version field 0, every script in the form
//!   Core's compressor writes, no over-long raw script) the encoding is the input, byte for
//!   byte; canonicity is judged by a separate walk over the bytes with the field readers;
//! - that walk and the record decoders agree on success and on the bytes consumed;
//! - `VARINT` agrees with a 128-bit reference reader; its encoding is the bytes read (the code
//!   is a bijection); the amount compression inverts;
//! - errors carry an offset inside the input and display;
//! - a rev file re-frames to its bytes (then only never-written zeros), reads the same
//!   obfuscated with a key, and records written by `RevWriter` read back and verify.
#![no_main]

use fullverify::encode::Reader;
use fullverify::undo::{
    compress_amount, decompress_amount, encode_record, read_script, read_txout, read_undo_coin,
    read_varint_u32, read_varint_u64, script_len, varint_len, write_script, write_txout, write_undo_coin,
    write_varint, BlockUndo, CompressedScript, RevFile, RevWriter, TxUndo, UndoError, UndoErrorKind, XorKey,
    MAX_SCRIPT_SIZE, SPECIAL_SCRIPTS,
};
use fuzz_support::{fnv, reference_varint};
use libfuzzer_sys::fuzz_target;

/// Mainnet's magic (any fixed value would do; the seeds use this one).
const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

fuzz_target!(|data: &[u8]| {
    varints(data);
    amounts(data);
    script(data);
    txout(data);
    coin(data);
    tx_undo(data);
    block_undo(data);
    rev_file(data);
});

fn check_error(e: &UndoError, len: usize) {
    if let Some(at) = e.offset() {
        assert!(at <= len as u64, "error offset {at} past the input ({len} bytes): {e}");
    }
    if let UndoErrorKind::Truncated { needed, remaining } = e.kind() {
        assert!(remaining < needed, "{e}");
    }
    let _ = e.to_string();
}

fn varints(data: &[u8]) {
    let reference = reference_varint(data);
    let mut r = Reader::new(data);
    match read_varint_u64(&mut r) {
        Ok(v) => {
            let (want, used) = reference.expect("a VARINT the reference cannot read");
            assert_eq!(u128::from(v), want);
            assert_eq!(r.position(), used);
            let mut enc = Vec::new();
            write_varint(&mut enc, v);
            assert_eq!(enc, &data[..used], "VARINT is a bijection: its encoding is what was read");
            assert_eq!(varint_len(v), used);
        }
        Err(e) => {
            check_error(&e, data.len());
            match e.kind() {
                UndoErrorKind::VarIntTooLarge { bits: 64 } => {
                    // Too large: the reference value, if it can be read at all, exceeds 64 bits,
                    // or the reader stopped at the digit that would overflow.
                    if let Some((v, _)) = reference {
                        assert!(v > u128::from(u64::MAX), "{v} rejected as too large");
                    }
                }
                UndoErrorKind::Truncated { .. } => assert!(reference.is_none() || data.is_empty()),
                k => panic!("unexpected VARINT error {k:?}"),
            }
        }
    }
    let mut r = Reader::new(data);
    match read_varint_u32(&mut r) {
        Ok(v) => assert_eq!(reference.map(|(v, _)| v), Some(u128::from(v))),
        Err(e) => {
            check_error(&e, data.len());
            if let (UndoErrorKind::VarIntTooLarge { bits }, Some((v, _))) = (e.kind(), reference) {
                assert_eq!(*bits, 32);
                assert!(v > u128::from(u32::MAX));
            }
        }
    }
}

fn amounts(data: &[u8]) {
    let mut w = [0u8; 8];
    let n = data.len().min(8);
    w[..n].copy_from_slice(&data[..n]);
    let x = u64::from_le_bytes(w);
    if let Some(a) = decompress_amount(x) {
        assert_eq!(compress_amount(a), x, "compress(decompress({x}))");
    }
    // Every amount up to u64::MAX / 9 (all a coin can hold) inverts.
    let a = x % (u64::MAX / 9 + 1);
    assert_eq!(decompress_amount(compress_amount(a)), Some(a), "decompress(compress({a}))");
}

/// A walk over one compressed script: `Some(canonical)` when it reads, `None` when it fails.
fn walk_script(r: &mut Reader<'_>) -> Option<bool> {
    let n = read_varint_u32(r).ok()?;
    if n < SPECIAL_SCRIPTS {
        let payload = r.bytes(CompressedScript::payload_len(n) as u64).ok()?;
        let c = CompressedScript::from_parts(n, payload)?;
        c.to_script().ok()?;
        return Some(true);
    }
    let raw = r.bytes(u64::from(n - SPECIAL_SCRIPTS)).ok()?;
    Some(raw.len() <= MAX_SCRIPT_SIZE && CompressedScript::from_script(raw).is_none())
}

fn walk_txout(r: &mut Reader<'_>) -> Option<bool> {
    decompress_amount(read_varint_u64(r).ok()?)?;
    walk_script(r)
}

fn walk_coin(r: &mut Reader<'_>) -> Option<bool> {
    let code = read_varint_u32(r).ok()?;
    let mut canonical = true;
    if code >> 1 > 0 {
        canonical &= read_varint_u32(r).ok()? == 0;
    }
    Some(walk_txout(r)? && canonical)
}

fn walk_tx_undo(r: &mut Reader<'_>) -> Option<bool> {
    let n = r.compact_size().ok()?;
    let mut canonical = true;
    for _ in 0..n {
        canonical &= walk_coin(r)?;
    }
    Some(canonical)
}

fn walk_block_undo(r: &mut Reader<'_>) -> Option<bool> {
    let n = r.compact_size().ok()?;
    let mut canonical = true;
    for _ in 0..n {
        canonical &= walk_tx_undo(r)?;
    }
    Some(canonical)
}

/// Runs decoder `dec` and the walk `walk` over `data` and checks what they share: success,
/// bytes consumed, and — when the walk calls the input canonical — that `enc` gives it back.
fn agree<T, E>(
    data: &[u8],
    dec: impl Fn(&mut Reader<'_>) -> Result<T, UndoError>,
    walk: impl Fn(&mut Reader<'_>) -> Option<bool>,
    enc: impl Fn(&T) -> Vec<u8>,
    check: impl Fn(&T, &[u8]) -> Result<(), E>,
) where
    E: std::fmt::Debug,
{
    let mut r = Reader::new(data);
    let got = dec(&mut r);
    let mut w = Reader::new(data);
    let walked = walk(&mut w);
    match got {
        Ok(v) => {
            let canonical = walked.expect("decoder accepted what the walk rejects");
            assert_eq!(r.position(), w.position(), "consumed bytes differ");
            let read = &data[..r.position()];
            let bytes = enc(&v);
            if canonical {
                assert_eq!(bytes, read, "canonical input re-encodes to other bytes");
            }
            // decode → encode → decode: same value and, from then on, the same bytes.
            let mut r2 = Reader::new(&bytes);
            let again = dec(&mut r2).expect("the re-encoding does not decode");
            assert_eq!(r2.remaining(), 0, "the re-encoding has bytes left over");
            check(&again, &bytes).expect("values differ after the round trip");
            assert_eq!(enc(&again), bytes, "second encoding differs from the first");
            let mut w2 = Reader::new(&bytes);
            assert_eq!(walk(&mut w2), Some(true), "the re-encoding is not canonical");
        }
        Err(e) => {
            check_error(&e, data.len());
            assert!(walked.is_none(), "decoder rejects what the walk reads: {e}");
        }
    }
}

fn script(data: &[u8]) {
    let first = read_script(&mut Reader::new(data)).ok();
    if let Some(spk) = &first {
        assert!(spk.len() <= MAX_SCRIPT_SIZE, "a script longer than MAX_SCRIPT_SIZE was returned");
        assert_eq!(script_len(spk), encode_script(spk).len());
    }
    agree(
        data,
        read_script,
        walk_script,
        |s| encode_script(s),
        |again, _| if Some(again) == first.as_ref() { Ok(()) } else { Err(again.clone()) },
    );
}

fn encode_script(spk: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    write_script(&mut v, spk);
    v
}

fn txout(data: &[u8]) {
    let mut r = Reader::new(data);
    let first = read_txout(&mut r).ok();
    agree(
        data,
        read_txout,
        walk_txout,
        |o| {
            let mut v = Vec::new();
            write_txout(&mut v, o);
            v
        },
        |again, _| if Some(again) == first.as_ref() { Ok(()) } else { Err(again.clone()) },
    );
}

fn coin(data: &[u8]) {
    let mut r = Reader::new(data);
    let first = read_undo_coin(&mut r).ok();
    if let Some(c) = &first {
        assert!(c.height <= u32::MAX >> 1);
    }
    agree(
        data,
        read_undo_coin,
        walk_coin,
        |c| {
            let mut v = Vec::new();
            write_undo_coin(&mut v, c);
            v
        },
        |again, _| if Some(again) == first.as_ref() { Ok(()) } else { Err(again.clone()) },
    );
}

fn tx_undo(data: &[u8]) {
    let mut r = Reader::new(data);
    let first = TxUndo::decode(&mut r).ok();
    agree(
        data,
        TxUndo::decode,
        walk_tx_undo,
        |t| {
            let mut v = Vec::new();
            t.encode(&mut v);
            v
        },
        |again, _| if Some(again) == first.as_ref() { Ok(()) } else { Err(again.clone()) },
    );
}

fn block_undo(data: &[u8]) {
    let mut r = Reader::new(data);
    let first = BlockUndo::decode(&mut r).ok();
    agree(data, BlockUndo::decode, walk_block_undo, BlockUndo::to_bytes, |again, _| {
        if Some(again) == first.as_ref() {
            Ok(())
        } else {
            Err(again.clone())
        }
    });
    // from_bytes is decode plus "nothing left over".
    match (BlockUndo::from_bytes(data), first) {
        (Ok(u), Some(f)) => {
            assert_eq!(u, f);
            let coins: usize = u.txs.iter().map(|t| t.coins.len()).sum();
            assert_eq!(u.coin_count(), coins);
        }
        (Err(e), Some(_)) => {
            check_error(&e, data.len());
            assert!(matches!(e.kind(), UndoErrorKind::SizeMismatch { .. }), "{e}");
        }
        (Ok(_), None) => panic!("from_bytes accepts what decode rejects"),
        (Err(e), None) => check_error(&e, data.len()),
    }
}

fn rev_file(data: &[u8]) {
    let file = match RevFile::parse(data, MAGIC, &XorKey::ZERO, None) {
        Ok(f) => f,
        Err(e) => return check_error(&e, data.len()),
    };
    // Re-framing the records gives the input back, followed only by never-written zeros.
    let mut framed = Vec::new();
    for rec in &file.records {
        assert_eq!(rec.offset, framed.len() as u64);
        assert_eq!(rec.undo_pos(), rec.offset + 8);
        framed.extend_from_slice(&MAGIC);
        framed.extend_from_slice(&(rec.undo().len() as u32).to_le_bytes());
        framed.extend_from_slice(rec.undo());
        framed.extend_from_slice(&rec.checksum);
        assert_eq!(rec.disk_len(), framed.len() as u64 - rec.offset);
    }
    assert_eq!(&data[..framed.len()], &framed[..]);
    assert!(data[framed.len()..].iter().all(|&b| b == 0), "unread bytes that are not zero");

    // Obfuscated as Core writes it (the records, not the never-written tail), the file reads
    // back the same with its key.
    let key = XorKey(fnv(data).to_le_bytes());
    let mut obf = framed.clone();
    key.apply(&mut obf, 0);
    obf.extend_from_slice(&data[framed.len()..]);
    let back = RevFile::parse(&obf, MAGIC, &key, None).expect("obfuscated file does not read");
    assert_eq!(back.records, file.records);

    // Records whose undo data decodes: written again by RevWriter (obfuscated, at an offset
    // not a multiple of the key length), they read back, verify and decode to the same value.
    let start = (fnv(&framed) % 13) as usize;
    let mut w = RevWriter::new(vec![0u8; start], MAGIC, key, start as u64);
    let mut written = Vec::new();
    for (i, rec) in file.records.iter().enumerate() {
        let prev = [i as u8; 32];
        assert_eq!(rec.checksum_matches(&prev), rec.verify(&prev).is_ok());
        match rec.decode_unchecked() {
            Ok(u) => {
                let pos = w.append(&prev, &u).expect("writing to memory");
                written.push((pos, prev, u));
            }
            Err(e) => check_error(&e, data.len()),
        }
    }
    // The first `start` bytes stand for earlier records; the rest, de-obfuscated from its
    // offset, reads unkeyed.
    let mut plain = w.into_inner().expect("flush").split_off(start);
    key.apply(&mut plain, start as u64);
    let reread = RevFile::parse(&plain, MAGIC, &XorKey::ZERO, None).expect("written records do not read");
    assert_eq!(reread.records.len(), written.len());
    for (rec, (pos, prev, u)) in reread.records.iter().zip(&written) {
        assert_eq!(rec.undo_pos() + start as u64, *pos);
        assert_eq!(rec.decode(prev).as_ref(), Ok(u));
        let mut one = Vec::new();
        encode_record(&mut one, MAGIC, prev, u);
        assert_eq!(one.len() as u64, rec.disk_len());
    }
}
