// SPDX-License-Identifier: MIT OR Apache-2.0
//! Tests of the mirrors of Core's src/undo.h, src/compressor.cpp, serialize.h's VARINT and the
//! rev-file records of node/blockstorage.cpp: VARINT edges, amounts (Core's compress_tests),
//! every script form, coins, block undo records, rev files (checksums, obfuscation, damage).

use super::*;
use crate::encode::{Block, BlockHeader, OutPoint, Reader, Transaction, TxIn, TxOut};
use crate::secp256k1::PublicKey;
use crate::utxo::Coin;
use fullverify_testkit::{test_seed, SplitMix64};

fn varint(v: u64) -> Vec<u8> {
    let mut b = Vec::new();
    write_varint(&mut b, v);
    b
}

/// The value of a VARINT by its definition (each continuation digit stands for digit + 1),
/// in 128-bit arithmetic; `None` unless `b` is exactly one encoding.
fn reference_varint(b: &[u8]) -> Option<u128> {
    let (last, init) = b.split_last()?;
    if last & 0x80 != 0 || init.iter().any(|d| d & 0x80 == 0) {
        return None;
    }
    let mut n: u128 = 0;
    for d in init {
        n = n.checked_mul(128)?.checked_add(u128::from(d & 0x7f) + 1)?;
    }
    n.checked_mul(128)?.checked_add(u128::from(*last))
}

/// The encoding of `v` by the definition: base-128 digits, each but the last lowered by one.
fn reference_encode(mut v: u128) -> Vec<u8> {
    let mut digits = vec![(v & 0x7f) as u8];
    while v > 0x7f {
        v = (v >> 7) - 1;
        digits.push((v & 0x7f) as u8 | 0x80);
    }
    digits.reverse();
    digits
}

#[test]
fn varint_bit_patterns_of_core_serialize_tests() {
    for (v, hex) in [
        (0u64, "00"),
        (0x7f, "7f"),
        (0x80, "8000"),
        (0x1234, "a334"),
        (0xffff, "82fe7f"),
        (0x12_3456, "c7e756"),
        (0x8012_3456, "86ffc7e756"),
        (0xffff_ffff, "8efefefe7f"),
        (0x7fff_ffff_ffff_ffff, "fefefefefefefefe7f"),
        (u64::MAX, "80fefefefefefefefe7f"),
    ] {
        let b = varint(v);
        assert_eq!(hex::encode(&b), hex, "{v:#x}");
        assert_eq!(b.len(), varint_len(v));
        assert_eq!(read_varint_u64(&mut Reader::new(&b)), Ok(v));
        assert_eq!(reference_varint(&b), Some(u128::from(v)));
        assert_eq!(reference_encode(u128::from(v)), b);
        if v <= u64::from(u32::MAX) {
            assert_eq!(read_varint_u32(&mut Reader::new(&b)), Ok(v as u32));
        } else {
            let e = read_varint_u32(&mut Reader::new(&b)).unwrap_err();
            assert_eq!(*e.kind(), UndoErrorKind::VarIntTooLarge { bits: 32 });
        }
    }
}

#[test]
fn varint_is_a_bijection_so_no_longer_form_exists() {
    // Every string of one to three digits is the encoding of exactly one value, and the values
    // are 0 .. 128 + 128² + 128³ in order of length: there is no overlong encoding to reject.
    let mut seen = 0u64;
    for len in 1..=3usize {
        let count = 128u64.pow(len as u32);
        for i in 0..count {
            let mut b = vec![0u8; len];
            let mut k = i;
            for (j, d) in b.iter_mut().enumerate().rev() {
                *d = (k % 128) as u8 | if j + 1 < len { 0x80 } else { 0 };
                k /= 128;
            }
            let v = read_varint_u64(&mut Reader::new(&b)).unwrap();
            assert_eq!(u128::from(v), reference_varint(&b).unwrap());
            assert_eq!(v, seen + i, "{}", hex::encode(&b));
            assert_eq!(varint(v), b);
        }
        seen += count;
    }
    assert_eq!(read_varint_u64(&mut Reader::new(&[0x80, 0x00])), Ok(128));
}

#[test]
fn varint_overflow_and_truncation_are_rejected() {
    // 2^32: too large for the 32-bit fields, fine for the amount.
    let b = varint(1 << 32);
    assert_eq!(read_varint_u64(&mut Reader::new(&b)), Ok(1 << 32));
    assert_eq!(
        read_varint_u32(&mut Reader::new(&b)).unwrap_err().kind().clone(),
        UndoErrorKind::VarIntTooLarge { bits: 32 }
    );
    let b = varint(u64::from(u32::MAX) + 1);
    assert!(read_varint_u32(&mut Reader::new(&b)).is_err());
    // Past u64::MAX, and longer strings.
    for v in [u128::from(u64::MAX) + 1, u128::from(u64::MAX) + 128, 1 << 70, u128::MAX >> 1] {
        let b = reference_encode(v);
        assert_eq!(reference_varint(&b), Some(v));
        let e = read_varint_u64(&mut Reader::new(&b)).unwrap_err();
        assert_eq!(*e.kind(), UndoErrorKind::VarIntTooLarge { bits: 64 }, "{v:#x}");
    }
    let b = [0xffu8; 10].iter().chain(&[0x00]).copied().collect::<Vec<u8>>();
    assert!(read_varint_u64(&mut Reader::new(&b)).is_err());
    // Near the top: every value up to u64::MAX reads back.
    for v in [u64::MAX - 1, u64::MAX - 127, u64::MAX - 128, u64::MAX / 128, (u64::MAX >> 7) + 1] {
        assert_eq!(read_varint_u64(&mut Reader::new(&varint(v))), Ok(v), "{v:#x}");
    }
    // The offset of a failure is the VARINT's start.
    let mut r = Reader::new(&[0x05, 0x8e, 0xfe, 0xfe, 0xff, 0x00]);
    assert_eq!(read_varint_u32(&mut r), Ok(5));
    let e = read_varint_u32(&mut r).unwrap_err();
    assert_eq!((e.kind().clone(), e.offset()), (UndoErrorKind::VarIntTooLarge { bits: 32 }, Some(1)));
    let e = read_varint_u64(&mut Reader::new(&[0x80])).unwrap_err();
    assert!(matches!(e.kind(), UndoErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn amounts_of_core_compress_tests() {
    const COIN: u64 = 100_000_000;
    const CENT: u64 = 1_000_000;
    for (v, c) in [(0, 0), (1, 1), (CENT, 7), (COIN, 9), (50 * COIN, 0x32), (21_000_000 * COIN, 0x140_6f40)] {
        assert_eq!(compress_amount(v), c, "{v}");
        assert_eq!(decompress_amount(c), Some(v), "{v}");
    }
    for i in 1..=10_000u64 {
        for unit in [1, CENT, COIN, 50 * COIN] {
            assert_eq!(decompress_amount(compress_amount(i * unit)), Some(i * unit));
        }
    }
    for x in 0..100_000u64 {
        assert_eq!(compress_amount(decompress_amount(x).unwrap()), x);
    }
    for k in 0..=19u32 {
        let v = 10u64.pow(k);
        assert_eq!(decompress_amount(compress_amount(v)), Some(v), "10^{k}");
    }
    let mut rng = SplitMix64(test_seed());
    for _ in 0..100_000 {
        let v = rng.next_u64() % (u64::MAX / 9);
        assert_eq!(decompress_amount(compress_amount(v)), Some(v), "{v}");
        let m = rng.next_u64() % 2_100_000_000_000_001;
        assert_eq!(decompress_amount(compress_amount(m)), Some(m), "{m}");
    }
    // An x no amount compresses to.
    assert_eq!(decompress_amount(u64::MAX), None);
    let mut b = Vec::new();
    write_varint(&mut b, u64::MAX);
    b.push(0x06);
    let e = read_txout(&mut Reader::new(&b)).unwrap_err();
    assert_eq!((e.kind().clone(), e.offset()), (UndoErrorKind::AmountOverflow(u64::MAX), Some(0)));
}

fn compressed(spk: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    write_script(&mut b, spk);
    assert_eq!(b.len(), script_len(spk));
    b
}

/// Writes, reads back and checks the form (`None`: raw) and the encoded length.
fn round_trip(spk: &[u8], kind: Option<u8>) -> Vec<u8> {
    let b = compressed(spk);
    let form = CompressedScript::from_script(spk);
    assert_eq!(form.map(|c| c.kind()), kind, "{}", hex::encode(spk));
    match kind {
        Some(k) => {
            assert_eq!(b[0], k);
            assert_eq!(b.len(), if k < 2 { 21 } else { 33 });
        }
        None => assert_eq!(b.len(), varint_len(spk.len() as u64 + 6) + spk.len()),
    }
    let mut r = Reader::new(&b);
    assert_eq!(read_script(&mut r).unwrap(), spk, "{}", hex::encode(spk));
    assert_eq!(r.remaining(), 0);
    b
}

fn p2pk(key: &[u8]) -> Vec<u8> {
    [&[key.len() as u8][..], key, &[0xac]].concat()
}

#[test]
fn every_script_form_round_trips() {
    let h = [0x5au8; 20];
    let p2pkh = [&[0x76, 0xa9, 20][..], &h, &[0x88, 0xac]].concat();
    assert_eq!(round_trip(&p2pkh, Some(0))[1..], h);
    let p2sh = [&[0xa9, 20][..], &h, &[0x87]].concat();
    assert_eq!(round_trip(&p2sh, Some(1))[1..], h);
    // Keys with even and odd y, in both key forms.
    let (mut even, mut odd) = (false, false);
    for s in 1..=16u8 {
        let pk = PublicKey::from_secret(&[s; 32]).unwrap();
        let c = pk.serialize_compressed();
        let parity = c[0] == 0x03;
        (even, odd) = (even || !parity, odd || parity);
        let b = round_trip(&p2pk(&c), Some(2 + parity as u8));
        assert_eq!(b[1..], c[1..]);
        let u = pk.serialize_uncompressed();
        assert_eq!(u[64] & 1 == 1, parity);
        let b = round_trip(&p2pk(&u), Some(4 + parity as u8));
        assert_eq!(b[1..], u[1..33], "x only: y comes back from the curve");
    }
    assert!(even && odd);
    // A compressed key is stored compactly whether or not x is on the curve (Core does not
    // check it), and comes back unchanged.
    let off_curve =
        (0u8..=255).map(|i| [i; 32]).find(|x| PublicKey::parse(&[&[2u8][..], x].concat()).is_err()).unwrap();
    round_trip(&p2pk(&[&[0x03u8][..], &off_curve].concat()), Some(3));
    // An uncompressed key must be fully valid to be compressed: off the curve, x ≥ p, hybrid
    // prefixes and a wrong prefix all stay raw.
    let u = PublicKey::from_secret(&[9; 32]).unwrap().serialize_uncompressed();
    let mut bad_y = u;
    bad_y[64] ^= 1;
    round_trip(&p2pk(&bad_y), None);
    round_trip(&p2pk(&[&[0x04][..], &[0xff; 64][..]].concat()), None);
    let mut hybrid = u;
    hybrid[0] = 0x06 | (u[64] & 1);
    assert!(PublicKey::parse(&hybrid).is_ok());
    round_trip(&p2pk(&hybrid), None);
    // Near misses of the templates, and common scripts without a special form.
    let near = [
        [&[0x76, 0xa9, 21][..], &[0; 21], &[0x88, 0xac]].concat(),
        [&[0x76, 0xa9, 20][..], &h, &[0x88, 0xad]].concat(),
        [&[0xa9, 20][..], &h, &[0x88]].concat(),
        [&[0x00, 20][..], &h].concat(),
        [&[0x51, 32][..], &[7; 32]].concat(),
        p2pk(&[&[0x04u8][..], &[1; 32]].concat()),
        vec![],
        vec![0x6a, 0x04, 1, 2, 3, 4],
    ];
    for spk in near {
        round_trip(&spk, None);
    }
    // The raw size: 121 bytes have a one-byte size (127), 122 bytes a two-byte one (128).
    assert_eq!(round_trip(&[0x51; 121], None)[0], 127);
    assert_eq!(round_trip(&[0x51; 122], None)[..2], [0x80, 0x00]);
    round_trip(&vec![0x51; MAX_SCRIPT_SIZE], None);
}

#[test]
fn oversized_and_malformed_compressed_scripts() {
    // Longer than MAX_SCRIPT_SIZE: read as OP_RETURN, its bytes skipped.
    let long = vec![0x51; MAX_SCRIPT_SIZE + 1];
    let b = compressed(&long);
    let mut r = Reader::new(&b);
    assert_eq!(read_script(&mut r).unwrap(), [0x6a]);
    assert_eq!(r.remaining(), 0);
    assert!(matches!(
        read_script(&mut Reader::new(&b[..b.len() - 1])).unwrap_err().kind(),
        UndoErrorKind::Truncated { .. }
    ));
    // Form 4 with an x off the curve: Core's compressor never writes it.
    let off_curve =
        (0u8..=255).map(|i| [i; 32]).find(|x| PublicKey::parse(&[&[2u8][..], x].concat()).is_err()).unwrap();
    let b = [&[4u8][..], &off_curve].concat();
    let e = read_script(&mut Reader::new(&b)).unwrap_err();
    assert_eq!((e.kind().clone(), e.offset()), (UndoErrorKind::InvalidCompressedKey, Some(0)));
    // A special form cut short, and a raw size past the end.
    let e = read_script(&mut Reader::new(&[0u8; 20])).unwrap_err();
    assert_eq!(
        (e.kind().clone(), e.offset()),
        (UndoErrorKind::Truncated { needed: 20, remaining: 19 }, Some(1))
    );
    assert!(read_script(&mut Reader::new(&[6 + 3, 0x51])).is_err());
}

fn coin(height: u32, coinbase: bool, value: i64, spk: Vec<u8>) -> Coin {
    Coin { out: TxOut { value, script_pubkey: spk }, height, coinbase }
}

fn encode_coin(c: &Coin) -> Vec<u8> {
    let mut b = Vec::new();
    write_undo_coin(&mut b, c);
    b
}

#[test]
fn undo_coins_known_bytes_and_legacy_version() {
    let h = [0x11u8; 20];
    let p2pkh = [&[0x76, 0xa9, 20][..], &h, &[0x88, 0xac]].concat();
    // Height 1 coinbase of 50 BTC: code 3, the zero version, amount 0x32, form 0.
    let c = coin(1, true, 5_000_000_000, p2pkh.clone());
    let b = encode_coin(&c);
    assert_eq!(b, [&[0x03, 0x00, 0x32, 0x00][..], &h].concat());
    assert_eq!(read_undo_coin(&mut Reader::new(&b)), Ok(c.clone()));
    // Height 0: no version field.
    let c0 = coin(0, false, 1, vec![0x51]);
    assert_eq!(encode_coin(&c0), [0x00, 0x01, 0x07, 0x51]);
    // A pre-0.15 file's nonzero version (here VARINT(300)) reads as the same coin.
    let legacy = [&[0x03][..], &varint(300), &[0x32, 0x00][..], &h].concat();
    assert_eq!(read_undo_coin(&mut Reader::new(&legacy)), Ok(c));
    // Heights up to 2^31 − 1, and the code's 32-bit bound.
    let top = coin((1 << 31) - 1, true, 0, vec![]);
    assert_eq!(read_undo_coin(&mut Reader::new(&encode_coin(&top))), Ok(top));
    let over = [varint(1 << 32), vec![0, 0, 6]].concat();
    assert!(read_undo_coin(&mut Reader::new(&over)).is_err());
}

fn tx(inputs: usize, tag: u8) -> Transaction {
    Transaction {
        version: 1,
        inputs: (0..inputs)
            .map(|i| TxIn {
                prevout: OutPoint { txid: [tag; 32], vout: i as u32 },
                script_sig: vec![],
                sequence: u32::MAX,
                witness: vec![],
            })
            .collect(),
        outputs: vec![TxOut { value: 1, script_pubkey: vec![0x51] }],
        lock_time: 0,
    }
}

fn block(input_counts: &[usize], prev: [u8; 32]) -> Block {
    let mut cb = tx(1, 0);
    cb.inputs[0].prevout = OutPoint::NULL;
    let mut txdata = vec![cb];
    txdata.extend(input_counts.iter().enumerate().map(|(i, &n)| tx(n, i as u8 + 1)));
    let header = BlockHeader {
        version: 4,
        prev_block: prev,
        merkle_root: [0; 32],
        time: 0,
        bits: 0x207f_ffff,
        nonce: 0,
    };
    Block { header, txdata }
}

fn sample_coins(n: usize, rng: &mut SplitMix64) -> Vec<Coin> {
    let pk = PublicKey::from_secret(&[3; 32]).unwrap();
    (0..n)
        .map(|i| {
            let spk = match i % 5 {
                0 => [&[0x76, 0xa9, 20][..], &[i as u8; 20], &[0x88, 0xac]].concat(),
                1 => [&[0xa9, 20][..], &[i as u8; 20], &[0x87]].concat(),
                2 => p2pk(&pk.serialize_compressed()),
                3 => p2pk(&pk.serialize_uncompressed()),
                _ => [&[0x00, 20][..], &[i as u8; 20]].concat(),
            };
            let value = (rng.next_u64() % 2_100_000_000_000_000) as i64;
            coin((rng.next_u64() % 900_000) as u32, rng.next_u64().is_multiple_of(2), value, spk)
        })
        .collect()
}

#[test]
fn block_undo_pairs_with_the_block_inputs() {
    let mut rng = SplitMix64(test_seed());
    let b = block(&[1, 3, 2], [9; 32]);
    let spent = sample_coins(6, &mut rng);
    let undo = BlockUndo::from_spent(&b, &spent).unwrap();
    assert_eq!(undo.txs.iter().map(|t| t.coins.len()).collect::<Vec<_>>(), [1, 3, 2]);
    assert_eq!(undo.coin_count(), 6);
    let bytes = undo.to_bytes();
    let back = BlockUndo::from_bytes(&bytes).unwrap();
    assert_eq!(back, undo);
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.spent_coins(&b).unwrap(), spent);
    assert_eq!(back.into_spent_coins(&b).unwrap(), spent);
    // Counts that do not fit the block.
    let e = undo.check_counts(&block(&[1, 3], [9; 32])).unwrap_err();
    assert_eq!(*e.kind(), UndoErrorKind::TxCountMismatch { undo: 3, block: 2 });
    let other = block(&[1, 2, 2], [9; 32]);
    let e = undo.spent_coins(&other).unwrap_err();
    assert_eq!(*e.kind(), UndoErrorKind::CoinCountMismatch { tx: 2, undo: 3, inputs: 2 });
    assert_eq!(e.block_hash(), Some(other.block_hash()));
    assert!(e.to_string().contains(&crate::encode::display_hex(&other.block_hash())), "{e}");
    let e = BlockUndo::from_spent(&b, &spent[..5]).unwrap_err();
    assert_eq!(*e.kind(), UndoErrorKind::SpentCountMismatch { spent: 5, inputs: 6 });
    // A coinbase-only block has an empty record: one zero byte.
    let empty = BlockUndo::from_spent(&block(&[], [0; 32]), &[]).unwrap();
    assert_eq!(empty.to_bytes(), [0]);
    // Trailing bytes, a non-canonical count, a count past the data.
    let e = BlockUndo::from_bytes(&[bytes.clone(), vec![0]].concat()).unwrap_err();
    assert_eq!(
        (e.kind().clone(), e.offset()),
        (UndoErrorKind::SizeMismatch { size: bytes.len() as u32 + 1, unused: 1 }, Some(bytes.len() as u64))
    );
    let e = BlockUndo::from_bytes(&[0xfd, 0x01, 0x00]).unwrap_err();
    assert!(matches!(e.kind(), UndoErrorKind::CompactSize(_)), "{e}");
    assert!(matches!(
        BlockUndo::from_bytes(&[0xfe, 0, 0, 0, 3]).unwrap_err().kind(),
        UndoErrorKind::CompactSize(_)
    ));
    assert!(matches!(BlockUndo::from_bytes(&[2, 0]).unwrap_err().kind(), UndoErrorKind::Truncated { .. }));
}

const MAGIC: [u8; 4] = [0xfa, 0xbf, 0xb5, 0xda];

#[test]
fn xor_key_applies_by_file_offset() {
    let key = XorKey([1, 2, 3, 4, 5, 6, 7, 8]);
    let data: Vec<u8> = (0..40u8).collect();
    let mut whole = data.clone();
    key.apply(&mut whole, 0);
    assert_eq!(whole[9], 9 ^ 2);
    let mut parts = data.clone();
    let (a, rest) = parts.split_at_mut(3);
    let (b, c) = rest.split_at_mut(10);
    key.apply(a, 0);
    key.apply(b, 3);
    key.apply(c, 13);
    assert_eq!(parts, whole);
    key.apply(&mut whole, 0);
    assert_eq!(whole, data);
    assert_eq!(XorKey::from_bytes(&[1, 2, 3, 4, 5, 6, 7, 8, 9]), Ok(key));
    assert_eq!(XorKey::from_bytes(&[1, 2]).unwrap_err().kind().clone(), UndoErrorKind::ShortXorKey(2));
}

/// Three blocks of a chain, their undo data, and the rev file a writer makes of them.
fn sample_file(key: XorKey) -> (Vec<Block>, Vec<BlockUndo>, Vec<u8>, Vec<u64>) {
    let mut rng = SplitMix64(test_seed());
    let mut blocks = Vec::new();
    let mut undos = Vec::new();
    let mut prev = [0x42; 32];
    for counts in [&[2usize, 1][..], &[], &[4]] {
        let b = block(counts, prev);
        let n = counts.iter().sum();
        undos.push(BlockUndo::from_spent(&b, &sample_coins(n, &mut rng)).unwrap());
        prev = b.block_hash();
        blocks.push(b);
    }
    let mut w = RevWriter::new(Vec::new(), MAGIC, key, 0);
    let pos: Vec<u64> =
        blocks.iter().zip(&undos).map(|(b, u)| w.append(&b.header.prev_block, u).unwrap()).collect();
    (blocks, undos, w.into_inner().unwrap(), pos)
}

#[test]
fn rev_records_round_trip_obfuscated() {
    for key in [XorKey::ZERO, XorKey([0x7b, 0xcf, 0xb3, 0xc3, 0x4f, 0x63, 0xa7, 0x36])] {
        let (blocks, undos, mut raw, pos) = sample_file(key);
        let mut plain = raw.clone();
        key.apply(&mut plain, 0);
        assert_eq!(&plain[..4], &MAGIC);
        assert_eq!(raw == plain, key.is_zero());
        // Preallocated space after the records is never-written zeros.
        raw.resize(raw.len() + 1000, 0);
        let f = RevFile::parse(&raw, MAGIC, &key, Some("rev00000.dat")).unwrap();
        assert_eq!(f.records.len(), 3);
        // One buffer for the file's records, the padding after them not kept.
        let last = f.records.last().unwrap();
        assert!(f.records.iter().all(|r| r.buffer() == last.buffer()));
        assert_eq!(last.buffer().1 as u64, last.offset + last.disk_len());
        let mut expect_pos = 0;
        for (i, (r, b)) in f.records.iter().zip(&blocks).enumerate() {
            assert_eq!(r.offset, expect_pos);
            assert_eq!(r.undo_pos(), pos[i]);
            assert_eq!(r.undo(), undos[i].to_bytes());
            assert_eq!(r.checksum, undo_checksum(&b.header.prev_block, r.undo()));
            assert_eq!(f.decode(i, &b.header.prev_block).unwrap(), undos[i]);
            assert_eq!(f.block_undo(b, Some(i as u32)).unwrap(), undos[i]);
            let mut enc = Vec::new();
            encode_record(&mut enc, MAGIC, &b.header.prev_block, &undos[i]);
            assert_eq!(enc, plain[r.offset as usize..(r.offset + r.disk_len()) as usize]);
            expect_pos += r.disk_len();
        }
        // A record checked against the wrong parent.
        let e = f.decode(2, &[0; 32]).unwrap_err();
        assert!(matches!(e.kind(), UndoErrorKind::ChecksumMismatch { .. }), "{e}");
        assert_eq!(e.offset(), Some(f.records[2].undo_pos() + f.records[2].undo().len() as u64));
        assert!(e.to_string().starts_with("rev00000.dat: byte "), "{e}");
        // A block with no record.
        let lone = block(&[1], [0x99; 32]);
        let e = f.block_undo(&lone, Some(7)).unwrap_err();
        assert_eq!((e.kind().clone(), e.height()), (UndoErrorKind::NoRecord, Some(7)));
        assert!(e.to_string().contains("(height 7)"), "{e}");
    }
}

#[test]
fn damaged_rev_files_are_rejected_with_offsets() {
    let key = XorKey([9, 8, 7, 6, 5, 4, 3, 2]);
    let (blocks, _, raw, _) = sample_file(key);
    let f = RevFile::parse(&raw, MAGIC, &key, None).unwrap();
    let second = f.records[1].offset as usize;
    // A flipped bit in the first record's coins: its checksum no longer verifies.
    let mut bad = raw.clone();
    bad[12] ^= 0x10;
    let g = RevFile::parse(&bad, MAGIC, &key, None).unwrap();
    assert!(matches!(
        g.decode(0, &blocks[0].header.prev_block).unwrap_err().kind(),
        UndoErrorKind::ChecksumMismatch { .. }
    ));
    // The wrong network's magic, and a damaged second magic.
    let e = RevFile::parse(&raw, [0xf9, 0xbe, 0xb4, 0xd9], &key, Some("r")).unwrap_err();
    assert_eq!((e.offset(), e.file()), (Some(0), Some("r")));
    assert!(matches!(e.kind(), UndoErrorKind::BadMagic { found: MAGIC, .. }), "{e}");
    let mut bad = raw.clone();
    bad[second + 1] ^= 1;
    assert_eq!(RevFile::parse(&bad, MAGIC, &key, None).unwrap_err().offset(), Some(second as u64));
    // Cut inside the last record, and inside the second header.
    let e = RevFile::parse(&raw[..raw.len() - 5], MAGIC, &key, None).unwrap_err();
    assert!(matches!(e.kind(), UndoErrorKind::Truncated { .. }), "{e}");
    assert_eq!(e.offset(), Some(f.records[2].undo_pos()));
    let e = RevFile::parse(&raw[..second + 6], MAGIC, &key, None).unwrap_err();
    assert_eq!(*e.kind(), UndoErrorKind::Truncated { needed: 8, remaining: 6 });
    // A size field one longer than the CBlockUndo, with a checksum over the longer bytes.
    let u = &f.records[0];
    let mut longer = u.undo().to_vec();
    longer.push(0);
    let prev = blocks[0].header.prev_block;
    let mut rec = [&MAGIC[..], &(longer.len() as u32).to_le_bytes()].concat();
    rec.extend_from_slice(&longer);
    rec.extend_from_slice(&undo_checksum(&prev, &longer));
    let g = RevFile::parse(&rec, MAGIC, &XorKey::ZERO, Some("r")).unwrap();
    let e = g.decode(0, &prev).unwrap_err();
    assert_eq!(*e.kind(), UndoErrorKind::SizeMismatch { size: longer.len() as u32, unused: 1 });
    assert_eq!(e.offset(), Some(8 + u.undo().len() as u64));
    // Undo data that does not decode: the error offset is the file offset of the bad field.
    let mut junk = [&MAGIC[..], &3u32.to_le_bytes(), &[1, 1, 0x80]].concat();
    junk.extend_from_slice(&undo_checksum(&prev, &[1, 1, 0x80]));
    let e = RevFile::parse(&junk, MAGIC, &XorKey::ZERO, Some("r")).unwrap().decode(0, &prev).unwrap_err();
    assert_eq!((e.offset(), e.file()), (Some(11), Some("r")));
    assert!(matches!(e.kind(), UndoErrorKind::Truncated { .. }), "{e}");
}
