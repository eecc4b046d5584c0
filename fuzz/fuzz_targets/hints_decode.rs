// SPDX-License-Identifier: MIT OR Apache-2.0
//! The BIP 456 hints file and its Elias–Fano block records (fullverify::swiftsync) on
//! arbitrary bytes.
//!
//! Properties:
//! - a record that parses re-encodes (`encode_indices`) to exactly its bytes (one accepted
//!   encoding per index list), and `record_len` gives its length;
//! - its indices strictly increase, number `len()`, end at `max()`, and `get(j)` equals
//!   `iter().nth(j)` (the select on `H` and the sequential decoder agree);
//! - `check_outputs` accepts exactly the output counts above the greatest index;
//! - the in-memory reader (`HintsFile`, framing then per-record checks) and the streaming
//!   reader (`HintsReader`, fed in small pieces) accept the same files with the same indices,
//!   and an accepted file is what `HintsWriter` writes from those indices.
//!
//! The input is read twice: as it is (a whole file, header included), and as a run of records
//! behind a header made for them (so the records need not start with the magic to reach the
//! file readers).
#![no_main]

use fullverify::swiftsync::{
    encode_indices, header, low_bit_width, record_len, BlockHints, HintsError, HintsFile, HintsReader,
    HintsWriter, RecordError,
};
use fuzz_support::{fnv, probe_positions};
use libfuzzer_sys::fuzz_target;
use std::io::Read;

fuzz_target!(|data: &[u8]| {
    record(data);
    file(data);
    let mut framed = Vec::new();
    let mut at = 0;
    let mut records = 0u32;
    while at < data.len() && records < 64 {
        match record_len(&data[at..]) {
            Ok(n) => {
                at += n;
                records += 1;
            }
            Err(_) => break,
        }
    }
    if records > 0 {
        framed.extend_from_slice(&header(records - 1));
        framed.extend_from_slice(&data[..at]);
        file(&framed);
    }
});

/// Checks one parsed record against its bytes.
fn check_record(h: &BlockHints<'_>, bytes: &[u8]) -> Vec<u32> {
    assert_eq!(h.encoded(), bytes);
    let v = h.to_vec();
    assert_eq!(v.len(), h.len());
    assert_eq!(h.is_empty(), v.is_empty());
    assert!(v.windows(2).all(|w| w[0] < w[1]), "indices not strictly increasing: {v:?}");
    assert_eq!(h.max(), v.last().copied());
    if let Some(m) = h.max() {
        assert_eq!(h.low_bits(), low_bit_width(v.len() as u32, m));
    } else {
        assert_eq!(h.low_bits(), 0);
    }
    assert_eq!(h.iter().len(), v.len());
    for j in probe_positions(v.len(), fnv(bytes)) {
        assert_eq!(h.get(j), Some(v[j]), "get({j})");
        assert_eq!(h.iter().nth(j), Some(v[j]), "iter().nth({j})");
    }
    assert_eq!(h.get(v.len()), None);
    assert_eq!(h.iter().nth(v.len()), None);
    let mut enc = Vec::new();
    encode_indices(&v, &mut enc).expect("parsed indices do not encode");
    assert_eq!(enc, bytes, "record re-encodes to other bytes");
    match h.max() {
        Some(m) => {
            assert!(h.check_outputs(m).is_err());
            assert!(h.check_outputs(m.saturating_add(1)).is_ok() || m == u32::MAX);
        }
        None => assert!(h.check_outputs(0).is_ok()),
    }
    v
}

fn record(data: &[u8]) {
    match BlockHints::parse(data) {
        Ok((h, len)) => {
            assert_eq!(record_len(data), Ok(len));
            check_record(&h, &data[..len]);
        }
        Err(e) => {
            let _ = e.to_string();
            if let RecordError::Truncated { needed, remaining } = e {
                assert!((remaining as u64) < needed);
            }
            // The framing alone may accept it; then only the bits can be wrong.
            if let Ok(len) = record_len(data) {
                assert!(len <= data.len());
                assert!(!matches!(
                    e,
                    RecordError::Truncated { .. }
                        | RecordError::NonCanonicalCompactSize
                        | RecordError::ValueTooLarge(_)
                        | RecordError::CountExceedsRange { .. }
                ));
            }
        }
    }
}

/// A reader that hands out at most `step` bytes a call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn streamed(data: &[u8], step: usize) -> Result<Vec<Vec<u32>>, HintsError> {
    let mut r = HintsReader::new(Trickle { data, step })?;
    let mut blocks = Vec::new();
    let mut out = Vec::new();
    while let Some(h) = r.next_block(&mut out)? {
        assert_eq!(h as usize, blocks.len());
        blocks.push(out.clone());
    }
    // Asking again after the end stays at the end.
    assert!(r.next_block(&mut out)?.is_none());
    Ok(blocks)
}

fn in_memory(data: &[u8]) -> Result<Vec<Vec<u32>>, HintsError> {
    let f = HintsFile::parse(data)?;
    let mut blocks = Vec::new();
    // Record offsets from the framing: walk them again to cut each record's bytes.
    let mut at = fullverify::swiftsync::HEADER_LEN;
    for r in f.blocks() {
        let (height, h) = r?;
        assert_eq!(height as usize, blocks.len());
        let len = record_len(&data[at..]).expect("a framed record has a length");
        blocks.push(check_record(&h, &data[at..at + len]));
        at += len;
    }
    assert_eq!(at, data.len());
    assert!(matches!(
        f.block(f.terminal_height().wrapping_add(1)),
        Err(HintsError::HeightOutOfRange { .. }) | Ok(_)
    ));
    f.validate()?;
    Ok(blocks)
}

fn file(data: &[u8]) {
    let mem = in_memory(data);
    let step = 1 + (fnv(data) % 7) as usize;
    let stream = streamed(data, step);
    match (&mem, &stream) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "in-memory and streaming readers read different indices");
            // The writer writes the file back, byte for byte.
            let mut w = HintsWriter::new(Vec::new(), (a.len() - 1) as u32).expect("writer");
            for ix in a {
                w.push(ix).expect("indices the reader returned do not write");
            }
            assert!(w.next_height().is_none());
            assert_eq!(w.finish().expect("complete"), data, "a hints file re-writes to other bytes");
        }
        (Err(a), Err(b)) => {
            let _ = (a.to_string(), b.to_string());
        }
        _ => panic!("readers disagree: in memory {mem:?}, streamed {stream:?}"),
    }
}
