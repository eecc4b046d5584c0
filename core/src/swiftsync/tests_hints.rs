// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP 456 tests: the BIP's Elias–Fano vectors, cross-checks against the `hintsfile` crate
//! (0.1.0 writes the vectors' bit order; 0.2.x writes every byte bit-reversed), structured
//! edge cases, and each malformed-input error.

use super::*;
use crate::chain::Network;
use crate::encode::{Block, BlockHeader, OutPoint, Transaction, TxIn, TxOut};
use fullverify_testkit::SplitMix64;

/// bitcoin/bips pull request 2152, `bip-0456/test_vectors/elias_fano.json` (BSD-3-Clause):
/// `[indices, serialized record]`.
const BIP_VECTORS: &[(&[u32], &str)] = &[
    (&[13, 16, 19, 22, 25, 28, 31, 34, 37, 40], "0a288d8d8016ad50"),
    (&[5, 12, 19, 26, 33, 40, 47, 54, 61, 68, 75, 82, 89, 96, 103, 110, 117], "11758d8d8d8d804a4949292524"),
    (
        &[
            17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47, 50, 53, 56, 59, 62, 65, 68, 71, 74, 77, 80, 83, 86,
            89, 92, 95, 98, 101, 104, 107, 110, 113, 116, 119, 122, 125, 128, 131, 134, 137, 140, 143, 146,
            149, 152, 155, 158, 161, 164,
        ],
        "32a4aaaaaaaaaaaa800094a5294a5294a5294a5294a5294a5290",
    ),
];

fn enc(indices: &[u32]) -> Vec<u8> {
    let mut v = Vec::new();
    encode_indices(indices, &mut v).expect("valid indices");
    v
}

fn dec(bytes: &[u8]) -> Vec<u32> {
    let (h, len) = BlockHints::parse(bytes).expect("valid record");
    assert_eq!(len, bytes.len());
    h.to_vec()
}

/// The record with every byte of `L` and `H` bit-reversed (the 0.2.x crate's layout).
fn reverse_fields(record: &[u8]) -> Vec<u8> {
    let mut r = crate::encode::Reader::new(record);
    if r.compact_size_unchecked().unwrap() != 0 {
        r.compact_size_unchecked().unwrap();
    }
    let fields = r.position();
    let mut out = record[..fields].to_vec();
    out.extend(record[fields..].iter().map(|b| b.reverse_bits()));
    out
}

fn crate_v01(indices: &[u32]) -> Vec<u8> {
    let mut v = Vec::new();
    hintsfile_01::EliasFano::compress(indices).write(&mut v).unwrap();
    v
}

fn crate_v02(indices: &[u32]) -> Vec<u8> {
    let mut v = Vec::new();
    hintsfile::EliasFano::compress(indices).write(&mut v).unwrap();
    v
}

/// Both crates' encodings agree with ours, and each side decodes the other's.
fn cross_check(indices: &[u32]) {
    let ours = enc(indices);
    assert_eq!(dec(&ours), indices);
    // The crates debug-assert ℓ < 16 and M < 2^32 − 1; skip those in unoptimized runs.
    let l = indices.last().map_or(0, |&m| low_bit_width(indices.len() as u32, m));
    if indices.last() == Some(&u32::MAX) || (cfg!(debug_assertions) && l >= 16) {
        return;
    }
    let v01 = crate_v01(indices);
    assert_eq!(ours, v01, "hintsfile 0.1.0 for {indices:?}");
    let got = hintsfile_01::EliasFano::from_reader(&mut ours.as_slice()).unwrap().decompress();
    assert_eq!(got, indices);
    let v02 = crate_v02(indices);
    assert_eq!(reverse_fields(&ours), v02, "hintsfile 0.2.x (bit-reversed bytes) for {indices:?}");
    assert_eq!(dec(&reverse_fields(&v02)), indices);
    let got = hintsfile::EliasFano::from_reader(&mut reverse_fields(&ours).as_slice()).unwrap().decompress();
    assert_eq!(got, indices);
}

#[test]
fn bip_vectors_encode_decode_and_random_access() {
    for (indices, hex_record) in BIP_VECTORS {
        let want = hex::decode(hex_record).unwrap();
        assert_eq!(enc(indices), want, "{indices:?}");
        let (h, len) = BlockHints::parse(&want).unwrap();
        assert_eq!(len, want.len());
        assert_eq!(h.to_vec(), *indices);
        for (j, &i) in indices.iter().enumerate() {
            assert_eq!(h.get(j), Some(i));
        }
        assert_eq!(h.get(indices.len()), None);
        assert_eq!(h.max(), indices.last().copied());
        // The 0.1.0 crate writes exactly the vectors; 0.2.x writes them bit-reversed per byte.
        assert_eq!(crate_v01(indices), want);
        assert_eq!(crate_v02(indices), reverse_fields(&want));
    }
}

#[test]
fn worked_example_3_7_12() {
    // BIP 456 "Worked Example": ℓ = 2, L = 111100, H = 101001, each padded to a byte.
    let r = enc(&[3, 7, 12]);
    assert_eq!(r, [0x03, 0x0c, 0xf0, 0xa4]);
    assert_eq!(BlockHints::parse(&r).unwrap().0.low_bits(), 2);
    // hintsfile 0.2.x's own test of this example expects the bit-reversed bytes.
    assert_eq!(crate_v02(&[3, 7, 12]), [0x03, 0x0c, 0x0f, 0x25]);
}

#[test]
fn structured_inputs_match_both_crates() {
    let mut cases: Vec<Vec<u32>> = vec![
        vec![],
        vec![0],
        vec![1],
        vec![7],
        vec![0, 1],
        (0..1000).collect(),         // every output unspent: ℓ = 0, H all ones
        (0..17).collect(),           // ℓ = 0, H ends mid-byte
        vec![1_000_000_000],         // one large index: ℓ = 29
        vec![u32::MAX - 1],          // ℓ = 31
        vec![0, u32::MAX - 1],       // ℓ = 31, two elements
        vec![5, 100_000, 4_000_000], // sparse
    ];
    // 2^k boundaries of ℓ: (M + 1)/N = 2^k gives ℓ = k; (M + 1) = N·2^k − 1 gives k − 1.
    for k in 0..=32u32 {
        for n in [1u64, 2, 3, 8, 9] {
            for (m1, l) in [(n << k, k), ((n << k) - 1, k.wrapping_sub(1))] {
                if m1 < n || m1 > 1 << 32 {
                    continue;
                }
                let m = (m1 - 1) as u32;
                let v: Vec<u32> = if m1 == n {
                    (0..n as u32).collect()
                } else {
                    let step = m / n as u32;
                    (0..n as u32 - 1).map(|j| j * step).chain([m]).collect()
                };
                assert_eq!(low_bit_width(n as u32, m), l, "n {n} m {m}");
                cases.push(v);
            }
        }
    }
    for c in &cases {
        cross_check(c);
    }
    // ℓ = 32 needs M = 2^32 − 1, which the crates reject; ours round-trips it.
    let r = enc(&[u32::MAX]);
    assert_eq!(BlockHints::parse(&r).unwrap().0.low_bits(), 32);
    assert_eq!(dec(&r), [u32::MAX]);
    assert_eq!(dec(&enc(&[0, 1, u32::MAX])), [0, 1, u32::MAX]);
}

#[test]
fn random_inputs_match_both_crates() {
    let mut rng = SplitMix64(fullverify_testkit::test_seed() ^ 0x456);
    for round in 0..fullverify_testkit::test_iters(400) {
        let outputs = 1 + (rng.next_u64() % [20, 300, 5000, 120_000][round % 4]) as u32;
        let density = rng.next_u64() % 100;
        let v: Vec<u32> = (0..outputs).filter(|_| rng.next_u64() % 100 < density).collect();
        cross_check(&v);
        let rec = enc(&v);
        let (h, _) = BlockHints::parse(&rec).unwrap();
        h.check_outputs(outputs).unwrap();
        if let Some(&last) = v.last() {
            assert_eq!(
                h.check_outputs(last),
                Err(RecordError::IndexOutOfRange { index: last, outputs: last })
            );
            let j = (rng.next_u64() % v.len() as u64) as usize;
            assert_eq!(h.get(j), Some(v[j]));
        }
    }
}

#[test]
fn writer_rejects_bad_indices() {
    let mut v = vec![9];
    assert_eq!(
        encode_indices(&[1, 5, 5], &mut v),
        Err(RecordError::NotIncreasing { position: 2, previous: 5, index: 5 })
    );
    assert_eq!(
        encode_indices(&[4, 2], &mut v),
        Err(RecordError::NotIncreasing { position: 1, previous: 4, index: 2 })
    );
    assert_eq!(v, [9], "nothing appended on error");
}

#[test]
fn malformed_records_each_error() {
    let parse = |b: &[u8]| BlockHints::parse(b).map(|(h, _)| h.to_vec());
    // N > M + 1.
    assert_eq!(parse(&[0x05, 0x00]), Err(RecordError::CountExceedsRange { n: 5, m: 0 }));
    assert_eq!(record_len(&[0x05, 0x03]), Err(RecordError::CountExceedsRange { n: 5, m: 3 }));
    // Non-canonical and out-of-range CompactSizes.
    assert_eq!(parse(&[0xfd, 0x03, 0x00]), Err(RecordError::NonCanonicalCompactSize));
    assert_eq!(parse(&[0x01, 0xfe, 0xff, 0x00, 0x00, 0x00, 0x80]), Err(RecordError::NonCanonicalCompactSize));
    let big = [0x01, 0xff, 0, 0, 0, 0, 1, 0, 0, 0];
    assert_eq!(parse(&big), Err(RecordError::ValueTooLarge(1 << 32)));
    // Truncation in each field.
    assert_eq!(parse(&[]), Err(RecordError::Truncated { needed: 1, remaining: 0 }));
    assert_eq!(parse(&[0x03]), Err(RecordError::Truncated { needed: 1, remaining: 0 }));
    assert_eq!(parse(&[0x03, 0x0c]), Err(RecordError::Truncated { needed: 1, remaining: 0 }));
    assert_eq!(parse(&[0x03, 0x0c, 0xf0]), Err(RecordError::Truncated { needed: 1, remaining: 0 }));
    assert_eq!(parse(&[0xfd, 0x00]), Err(RecordError::Truncated { needed: 2, remaining: 1 }));
    // Padding bits: L = 111100|01, H = 101001|01.
    assert_eq!(parse(&[0x03, 0x0c, 0xf1, 0xa4]), Err(RecordError::NonZeroPadding { field: "L" }));
    assert_eq!(parse(&[0x03, 0x0c, 0xf0, 0xa5]), Err(RecordError::NonZeroPadding { field: "H" }));
    // H with a terminator missing or extra (inside the k = 6 bits).
    assert_eq!(parse(&[0x03, 0x0c, 0xf0, 0xa0]), Err(RecordError::HighBitsCount { ones: 2, n: 3 }));
    assert_eq!(parse(&[0x03, 0x0c, 0xf0, 0xac]), Err(RecordError::HighBitsCount { ones: 4, n: 3 }));
    // Terminators moved earlier: highs 0, 1, 2 instead of 0, 1, 3, so the last index is 8, not 12.
    assert_eq!(parse(&[0x03, 0x0c, 0xf0, 0xa8]), Err(RecordError::MaxMismatch { m: 12, last: 8 }));
    // Two indices in one high bucket with decreasing low parts: [3, 1] under M = 3 (ℓ = 0 is
    // too small to show it, so take N = 2, M = 7: ℓ = 2, highs 0 and 1 … then equal highs).
    // Indices 6 (high 1, low 2) and 5 (high 1, low 1): L = 01 10 → 0x60, H = 01 1 → bits 1, 2.
    assert_eq!(
        parse(&[0x02, 0x07, 0x60, 0x60]),
        Err(RecordError::NotIncreasing { position: 1, previous: 6, index: 5 })
    );
    // Equal indices are rejected too: 5, 5 with M = 7.
    assert_eq!(
        parse(&[0x02, 0x07, 0xa0, 0x60]),
        Err(RecordError::NotIncreasing { position: 1, previous: 5, index: 5 })
    );
    // Messages name the problem.
    let msg = RecordError::NotIncreasing { position: 1, previous: 6, index: 5 }.to_string();
    assert!(msg.contains("out of order"), "{msg}");
    let msg = RecordError::IndexOutOfRange { index: 9, outputs: 9 }.to_string();
    assert!(msg.contains("out of range") && msg.contains("9 spendable outputs"), "{msg}");
}

fn sample_blocks(rng: &mut SplitMix64, count: usize) -> Vec<Vec<u32>> {
    (0..count)
        .map(|h| {
            let outputs = (rng.next_u64() % [1, 3, 40, 700][h % 4]) as u32;
            (0..outputs).filter(|_| rng.next_u64().is_multiple_of(5)).collect()
        })
        .collect()
}

fn write_file(terminal_height: u32, blocks: &[Vec<u32>]) -> Vec<u8> {
    let mut w = HintsWriter::new(Vec::new(), terminal_height).unwrap();
    for b in blocks {
        w.push(b).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn file_round_trip_random_and_sequential() {
    let mut rng = SplitMix64(77);
    let blocks = sample_blocks(&mut rng, 300);
    let bytes = write_file(299, &blocks);
    assert_eq!(&bytes[..HEADER_LEN], &[0x55, 0x54, 0x58, 0x4f, 0x00, 0x2b, 0x01, 0x00, 0x00]);
    let f = HintsFile::parse(&bytes).unwrap();
    assert_eq!(f.terminal_height(), 299);
    f.validate().unwrap();
    for h in [0u32, 1, 150, 299, 7, 298] {
        assert_eq!(f.block(h).unwrap().to_vec(), blocks[h as usize], "height {h}");
    }
    let all: Vec<Vec<u32>> = f.blocks().map(|r| r.unwrap().1.to_vec()).collect();
    assert_eq!(all, blocks);
    assert!(matches!(f.block(300), Err(HintsError::HeightOutOfRange { height: 300, terminal_height: 299 })));
    // The streaming reader, over a reader that hands out a few bytes at a time.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let k = buf.len().min(self.0.len()).min(3);
            buf[..k].copy_from_slice(&self.0[..k]);
            self.0 = &self.0[k..];
            Ok(k)
        }
    }
    let mut r = HintsReader::new(Trickle(&bytes)).unwrap();
    assert_eq!(r.terminal_height(), 299);
    let mut out = Vec::new();
    let mut h = 0;
    while let Some(height) = r.next_block(&mut out).unwrap() {
        assert_eq!(height, h);
        assert_eq!(out, blocks[h as usize]);
        h += 1;
    }
    assert_eq!(h, 300);
    // A file of one block (height 0) with nothing unspent is ten bytes.
    assert_eq!(write_file(0, &[vec![]]), [0x55, 0x54, 0x58, 0x4f, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn file_errors() {
    let good = write_file(2, &[vec![], vec![0, 3], vec![1]]);
    let parse = |b: &[u8]| HintsFile::parse(b).map(|f| f.terminal_height());
    let stream = |b: &[u8]| -> Result<u32, HintsError> {
        let mut r = HintsReader::new(b)?;
        let mut out = Vec::new();
        while r.next_block(&mut out)?.is_some() {}
        Ok(r.terminal_height())
    };
    assert_eq!(parse(&good).unwrap(), 2);
    assert_eq!(stream(&good).unwrap(), 2);
    for read in [parse, stream] {
        let mut b = good.clone();
        b[0] = b'X';
        assert!(matches!(read(&b), Err(HintsError::BadMagic(m)) if m == *b"XTXO"));
        let mut b = good.clone();
        b[4] = 1;
        assert!(matches!(read(&b), Err(HintsError::UnsupportedVersion(1))));
        assert!(matches!(read(&good[..5]), Err(HintsError::TruncatedHeader { len: 5 })));
        // Height 3 in the header with three records: one missing.
        let mut b = good.clone();
        b[5] = 3;
        assert!(matches!(read(&b), Err(HintsError::TooFewRecords { terminal_height: 3, records: 3 })));
        // Height 1: the third record is left over.
        let mut b = good.clone();
        b[5] = 1;
        assert!(matches!(read(&b), Err(HintsError::TrailingBytes { terminal_height: 1, extra: 4 })));
        let mut b = good.clone();
        b.push(0);
        assert!(matches!(read(&b), Err(HintsError::TrailingBytes { terminal_height: 2, extra: 1 })));
        // Records of 1, 4 and 4 bytes: cut inside the record of block 1.
        assert_eq!(good.len(), HEADER_LEN + 9);
        assert!(matches!(
            read(&good[..12]),
            Err(HintsError::Record { height: 1, error: RecordError::Truncated { .. } })
        ));
    }
    // Block 1's record (02 03 L H) with its count raised past M + 1.
    let mut b = good.clone();
    b[10] = 5;
    assert!(matches!(
        parse(&b),
        Err(HintsError::Record { height: 1, error: RecordError::CountExceedsRange { .. } })
    ));
    // Bit errors surface when the block is read (HintsFile) or streamed (HintsReader).
    let mut b = good.clone();
    let last = b.len() - 1;
    b[last] |= 0x01; // block 2's H padding
    let f = HintsFile::parse(&b).unwrap();
    assert!(f.block(1).is_ok());
    let e = f.block(2).unwrap_err();
    assert!(matches!(e, HintsError::Record { height: 2, error: RecordError::NonZeroPadding { field: "H" } }));
    assert!(e.to_string().starts_with("hints for block 2: padding bits of H"), "{e}");
    assert!(matches!(f.validate(), Err(HintsError::Record { height: 2, .. })));
    assert!(matches!(stream(&b), Err(HintsError::Record { height: 2, .. })));
    let e = parse(&good[..14]).unwrap_err();
    assert_eq!(e.to_string(), "record count does not match the height: 2 records, terminal height 2 needs 3");
}

/// A record announces its length in its first bytes: ten bytes (N = M = 2^32 − 1) announce an
/// `H` of 2^33 − 2 bits, a gigabyte. The streaming reader must find a short stream short without
/// first taking the announced size from the allocator: it asks the stream for bytes in pieces
/// that grow with what arrived. (Found by the fuzz target hints_decode: a 116-byte file made
/// the reader allocate 1 GiB.)
#[test]
fn streaming_reader_memory_follows_the_bytes_not_the_announced_length() {
    struct Watch<'a> {
        data: &'a [u8],
        largest: usize,
    }
    impl std::io::Read for Watch<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.largest = self.largest.max(buf.len());
            let k = buf.len().min(self.data.len());
            buf[..k].copy_from_slice(&self.data[..k]);
            self.data = &self.data[k..];
            Ok(k)
        }
    }
    let mut bytes = header(0).to_vec();
    bytes.extend_from_slice(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff]);
    bytes.extend_from_slice(&[0u8; 100]);
    assert_eq!(
        record_len(&bytes[HEADER_LEN..]),
        Err(RecordError::Truncated { needed: 1 << 30, remaining: 100 })
    );
    let mut w = Watch { data: &bytes, largest: 0 };
    let mut r = HintsReader::new(&mut w).unwrap();
    let e = r.next_block(&mut Vec::new()).unwrap_err();
    assert!(
        matches!(
            e,
            HintsError::Record { height: 0, error: RecordError::Truncated { needed: 1_073_741_824, .. } }
        ),
        "{e}"
    );
    drop(r);
    assert!(w.largest <= 1 << 20, "the reader asked the stream for {} bytes at once", w.largest);
}

#[test]
fn writer_errors() {
    let mut w = HintsWriter::new(Vec::new(), 1).unwrap();
    assert_eq!(w.next_height(), Some(0));
    w.push(&[]).unwrap();
    let e = w.push_checked(&[0, 4], 4).unwrap_err();
    assert!(matches!(
        e,
        HintsError::Record { height: 1, error: RecordError::IndexOutOfRange { index: 4, outputs: 4 } }
    ));
    let e = w.push(&[3, 2]).unwrap_err();
    assert!(matches!(e, HintsError::Record { height: 1, error: RecordError::NotIncreasing { .. } }));
    let e = HintsWriter::new(Vec::new(), 1).unwrap().finish().unwrap_err();
    assert!(matches!(e, HintsError::MissingBlocks { terminal_height: 1, written: 0 }));
    w.push_checked(&[0, 3], 4).unwrap();
    assert_eq!(w.next_height(), None);
    assert!(matches!(w.push(&[]), Err(HintsError::TooManyBlocks { terminal_height: 1 })));
    let bytes = w.finish().unwrap();
    assert_eq!(HintsFile::parse(&bytes).unwrap().block(1).unwrap().to_vec(), [0, 3]);
}

#[test]
fn file_framing_versus_the_crates() {
    // Same header and record stream; the crates hold `height` records (blocks 1..=height),
    // BIP 456 holds `height + 1` (blocks 0..=height). Each crate reads our file as blocks
    // shifted by one and ignores the last record.
    let mut rng = SplitMix64(5);
    let blocks = sample_blocks(&mut rng, 40);
    let ours = write_file(39, &blocks);
    let v01 = hintsfile_01::Hintsfile::from_reader(&mut ours.as_slice()).unwrap();
    for h in 1..=39u32 {
        assert_eq!(v01.indices_at_height(h).unwrap(), blocks[h as usize - 1]);
    }
    let mut built = Vec::new();
    let mut b = hintsfile_01::HintsfileBuilder::new(&mut built).initialize(39).unwrap();
    for blk in &blocks[..39] {
        b.append(hintsfile_01::EliasFano::compress(blk)).unwrap();
    }
    b.finish().unwrap();
    assert_eq!(built, ours[..ours.len() - enc(&blocks[39]).len()]);
    assert!(matches!(
        HintsFile::parse(&built),
        Err(HintsError::TooFewRecords { terminal_height: 39, records: 39 })
    ));
}

fn tx(outputs: &[&[u8]]) -> Transaction {
    Transaction {
        version: 1,
        inputs: vec![TxIn { prevout: OutPoint::NULL, ..Default::default() }],
        outputs: outputs.iter().map(|s| TxOut { value: 1, script_pubkey: s.to_vec() }).collect(),
        lock_time: 0,
    }
}

#[test]
fn counted_outputs_skip_unspendable() {
    let big = vec![0x51u8; 10_001];
    let at_limit = vec![0x51u8; 10_000];
    let block = Block {
        header: BlockHeader {
            version: 1,
            prev_block: [0; 32],
            merkle_root: [0; 32],
            time: 0,
            bits: 0,
            nonce: 0,
        },
        txdata: vec![
            tx(&[&[0x51], &[0x6a, 0x24]]),
            tx(&[&[], &big, &at_limit, &[0x00, 0x6a]]),
            tx(&[&[0x6a]]),
        ],
    };
    let got: Vec<(u32, usize, u32)> =
        counted_outputs(&block, Network::Mainnet, 5).map(|o| (o.index, o.tx, o.vout)).collect();
    assert_eq!(got, [(0, 0, 0), (1, 1, 0), (2, 1, 2), (3, 1, 3)]);
    // The overwritten coinbases of mainnet 91722 and 91812 take no index; elsewhere they do.
    let got: Vec<(u32, usize, u32)> =
        counted_outputs(&block, Network::Mainnet, 91_812).map(|o| (o.index, o.tx, o.vout)).collect();
    assert_eq!(got, [(0, 1, 0), (1, 1, 2), (2, 1, 3)]);
    assert_eq!(counted_outputs(&block, Network::Testnet3, 91_812).count(), 4);
    assert!(
        coinbase_overwritten(Network::Mainnet, 91_722) && !coinbase_overwritten(Network::Mainnet, 91_842)
    );
}
