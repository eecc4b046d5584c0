// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's undo data against real data:
//!
//! - mainnet 277647's btcd utxostore holds 732 coins in Core's compression (`VARINT` code,
//!   `TxOutCompression`; no legacy version field): each decodes and re-encodes to the same
//!   bytes, the coins are the outputs the block's inputs name, each P2PKH hash is the HASH160 of
//!   the key its spender reveals, and the block validates with them.
//! - Bitcoin Core itself (libbitcoinkernel through `scripts/core-undo-dump`, when its Python
//!   module `pbk` is installed) connects the regtest chain 1–206 and mainnet 0–438 into fresh data
//!   directories; its rev00000.dat, de-obfuscated with its xor.dat key, is read here: every
//!   checksum verifies, every record's coins equal both the coins `pbk` reports and those a
//!   replay of the chain's transactions spent, the blocks validate with them, and encoding the
//!   replay's coins gives Core's records and its obfuscated file byte for byte.
//!
//! `FULLVERIFY_UNDO_CORPUS=FILE` runs the Core comparison on a regtest blk file of one's own
//! too (a chaingen corpus). Without `pbk` the Core part is skipped with a message (`FULLVERIFY_REQUIRE_PBK=1` makes it
//! fail instead); `FULLVERIFY_PYTHON` names the interpreter (default: the virtual environment's,
//! else `<repository>/.venv/bin/python`, else `python3`).

use fullverify::chain::Network;
use fullverify::encode::{display_hex, Block, OutPoint, Reader};
use fullverify::hash::hash160;
use fullverify::undo::{
    read_txout, read_varint_u32, write_txout, write_varint, BlockUndo, CompressedScript, RevFile, RevWriter,
    UndoErrorKind, XorKey,
};
use fullverify::utxo::Coin;
use fullverify::validation::{check_decoded_block_with_spent, CheckOptions};
use fullverify::Backend;
use fullverify_testkit::{read_maybe_compressed, vector_file};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

fn opts(network: Network) -> CheckOptions {
    CheckOptions::new(network, 2, Backend::detect())
}

/// The blocks of a `magic ‖ LE u32 size ‖ block` file.
fn frames(data: &[u8], magic: [u8; 4]) -> Vec<Block> {
    let mut r = Reader::new(data);
    let mut v = Vec::new();
    while r.remaining() > 0 {
        assert_eq!(r.array::<4>().unwrap(), magic);
        let n = r.u32().unwrap();
        v.push(Block::from_bytes(r.bytes(u64::from(n)).unwrap()).unwrap());
    }
    v
}

/// The pushes of a push-only script.
fn pushes(script: &[u8]) -> Vec<&[u8]> {
    let mut r = Reader::new(script);
    let mut v = Vec::new();
    while r.remaining() > 0 {
        let op = r.u8().unwrap();
        let n = match op {
            0x01..=0x4b => u64::from(op),
            0x4c => u64::from(r.u8().unwrap()),
            0x4d => u64::from(r.u16().unwrap()),
            _ => panic!("not a push: {op:#x}"),
        };
        v.push(r.bytes(n).unwrap());
    }
    v
}

#[test]
fn mainnet_277647_utxostore_coins_round_trip_and_are_the_spent_outputs() {
    let Some(store) = vector_file("blocks_with_prevouts/mainnet_277647.utxostore.bz2") else { return };
    let Some(blk) = vector_file("blocks_with_prevouts/mainnet_277647.blk.bz2") else { return };
    let raw = read_maybe_compressed(&blk);
    let raw = if raw.starts_with(&Network::Mainnet.params().magic) { raw[8..].to_vec() } else { raw };
    let block = Block::from_bytes(&raw).unwrap();
    let data = read_maybe_compressed(&store);
    let mut r = Reader::new(&data);
    let mut coins: HashMap<OutPoint, Coin> = HashMap::new();
    while r.remaining() > 0 {
        let op = OutPoint { txid: r.array().unwrap(), vout: r.u32().unwrap() };
        let n = r.u32().unwrap();
        let payload = r.bytes(u64::from(n)).unwrap();
        let mut p = Reader::new(payload);
        let code = read_varint_u32(&mut p).unwrap();
        let out = read_txout(&mut p).unwrap();
        assert_eq!(p.remaining(), 0, "{op:?}: the payload is exactly code and compressed output");
        assert_eq!(payload[p.position() - 21], 0, "{op:?}: P2PKH, script form 0");
        let mut again = Vec::new();
        write_varint(&mut again, u64::from(code));
        write_txout(&mut again, &out);
        assert_eq!(again, payload, "{op:?}: re-encoding gives the stored bytes");
        let coin = Coin { out, height: code >> 1, coinbase: code & 1 == 1 };
        assert!(coins.insert(op, coin).is_none());
    }
    assert_eq!(coins.len(), 732);
    assert!(coins.values().all(|c| matches!(
        CompressedScript::from_script(&c.out.script_pubkey),
        Some(CompressedScript::P2pkh(_))
    )));
    // Input order: every input's outpoint is a stored coin or an output of an earlier
    // transaction of the block; every stored coin is spent once (those of height 277647 are
    // outputs of the block's own earlier transactions, and equal to them).
    let height = 277_647;
    let mut created: HashMap<OutPoint, Coin> = HashMap::new();
    let mut spent = Vec::new();
    let mut used = 0;
    for tx in &block.txdata {
        if !tx.is_coinbase() {
            for i in &tx.inputs {
                let c = match coins.get(&i.prevout) {
                    Some(c) => {
                        used += 1;
                        // An independent check of the script: the spender reveals the key.
                        let key = *pushes(&i.script_sig).last().unwrap();
                        assert_eq!(hash160(key)[..], c.out.script_pubkey[3..23]);
                        if c.height == height {
                            // The store also lists outputs of the block itself: they must be.
                            assert_eq!(created.get(&i.prevout), Some(c));
                        } else {
                            assert!(c.height < height);
                        }
                        c.clone()
                    }
                    None => created.remove(&i.prevout).expect("an output the block created"),
                };
                spent.push(c);
            }
        }
        let txid = tx.txid();
        for (n, o) in tx.outputs.iter().enumerate() {
            let c = Coin { out: o.clone(), height, coinbase: tx.is_coinbase() };
            created.insert(OutPoint { txid, vout: n as u32 }, c);
        }
    }
    assert_eq!(used, 732);
    let summary = check_decoded_block_with_spent(&block, &spent, height, &opts(Network::Mainnet)).unwrap();
    assert_eq!(summary.inputs, spent.len());
    // Through an undo record and back.
    let undo = BlockUndo::from_spent(&block, &spent).unwrap();
    let back = BlockUndo::from_bytes(&undo.to_bytes()).unwrap();
    assert_eq!(back.into_spent_coins(&block).unwrap(), spent);
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python() -> PathBuf {
    if let Ok(p) = std::env::var("FULLVERIFY_PYTHON") {
        return p.into();
    }
    if let Ok(v) = std::env::var("VIRTUAL_ENV") {
        let p = Path::new(&v).join("bin/python");
        if p.is_file() {
            return p;
        }
    }
    let p = repo_root().join(".venv/bin/python");
    if p.is_file() {
        p
    } else {
        "python3".into()
    }
}

/// Has Core connect `file` into a fresh data directory under `name`; the data directory and
/// `pbk`'s view of each block's spent coins, or `None` (after a SKIP message) without `pbk`.
fn core_datadir(name: &str, chain: &str, file: &Path) -> Option<(PathBuf, serde_json::Value)> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("undo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("spent.json");
    let datadir = dir.join("datadir");
    let out = Command::new(python())
        .arg(repo_root().join("scripts/core-undo-dump"))
        .args(["--chain", chain, "--blocks"])
        .arg(file)
        .arg("--datadir")
        .arg(&datadir)
        .arg("--out")
        .arg(&json)
        .output()
        .expect("run python");
    if out.status.code() == Some(3) {
        let why = String::from_utf8_lossy(&out.stderr);
        let required = std::env::var("FULLVERIFY_REQUIRE_PBK").is_ok_and(|v| v == "1");
        assert!(!required, "FULLVERIFY_REQUIRE_PBK=1, but {why}");
        eprintln!("SKIP: Core's undo files: {}", why.trim());
        return None;
    }
    assert!(out.status.success(), "core-undo-dump: {}", String::from_utf8_lossy(&out.stderr));
    let j = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    Some((datadir, j))
}

/// Core's rev00000.dat for `blocks` (index = height, genesis first) against fullverify.
fn check_core_undo(
    name: &str,
    network: Network,
    blocks: &[Block],
    file: &Path,
) -> BTreeMap<Option<u8>, usize> {
    let Some((datadir, j)) = core_datadir(name, network.name(), file) else { return BTreeMap::new() };
    let tip = blocks.len() - 1;
    assert_eq!(j["height"].as_u64(), Some(tip as u64), "Core connected every block");
    assert_eq!(j["tip"].as_str(), Some(display_hex(&blocks[tip].block_hash()).as_str()));
    let blocks_dir = datadir.join("blocks");
    let key = XorKey::read(&blocks_dir).unwrap();
    assert!(!key.is_zero(), "Core 28 and later obfuscate with a random key");
    let magic = network.params().magic;
    assert!(!blocks_dir.join("rev00001.dat").exists(), "the records fit one rev file");
    let raw = std::fs::read(blocks_dir.join("rev00000.dat")).unwrap();
    let rev = RevFile::parse(&raw, magic, &key, Some("rev00000.dat")).unwrap();
    assert_eq!(rev.records.len(), tip, "one record per connected block, none for genesis");
    let mut utxo: HashMap<OutPoint, Coin> = HashMap::new();
    let mut writer = RevWriter::new(Vec::new(), magic, key, 0);
    let mut forms = BTreeMap::new();
    for (h, b) in blocks.iter().enumerate().skip(1) {
        let rec = &rev.records[h - 1];
        let undo = rec.decode(&b.header.prev_block).unwrap_or_else(|e| panic!("height {h}: {e}"));
        let from_core = undo.spent_coins(b).unwrap();
        assert_eq!(rev.block_undo(b, Some(h as u32)).unwrap(), undo);
        // The replay: the coins the block's inputs spend, in order.
        let mut spent = Vec::new();
        for (t, tx) in b.txdata.iter().enumerate() {
            if t > 0 {
                spent.extend(tx.inputs.iter().map(|i| utxo.remove(&i.prevout).expect("a known coin")));
            }
            let txid = tx.txid();
            for (n, o) in tx.outputs.iter().enumerate() {
                let coin = Coin { out: o.clone(), height: h as u32, coinbase: t == 0 };
                utxo.insert(OutPoint { txid, vout: n as u32 }, coin);
            }
        }
        assert_eq!(from_core, spent, "height {h}: Core's undo coins are the replay's");
        // pbk's view of the same undo data.
        let jb = &j["blocks"][h - 1];
        assert_eq!(jb["hash"].as_str(), Some(display_hex(&b.block_hash()).as_str()));
        let txs = jb["txs"].as_array().unwrap();
        assert_eq!(txs.len(), undo.txs.len());
        for (jt, u) in txs.iter().zip(&undo.txs) {
            let jc: Vec<Coin> = jt
                .as_array()
                .unwrap()
                .iter()
                .map(|c| Coin {
                    out: fullverify::encode::TxOut {
                        value: c[2].as_i64().unwrap(),
                        script_pubkey: hex::decode(c[3].as_str().unwrap()).unwrap(),
                    },
                    height: c[0].as_u64().unwrap() as u32,
                    coinbase: c[1].as_bool().unwrap(),
                })
                .collect();
            assert_eq!(jc, u.coins, "height {h}: pbk's coins");
        }
        for c in &spent {
            *forms
                .entry(CompressedScript::from_script(&c.out.script_pubkey).map(|f| f.kind()))
                .or_insert(0) += 1;
        }
        // Byte for byte: the replay's coins encode to Core's record.
        let mine = BlockUndo::from_spent(b, &spent).unwrap();
        assert_eq!(mine.to_bytes(), rec.undo(), "height {h}: encoding");
        assert_eq!(writer.append(&b.header.prev_block, &mine).unwrap(), rec.undo_pos());
        check_decoded_block_with_spent(b, &from_core, h as u32, &opts(network))
            .unwrap_or_else(|e| panic!("height {h}: {}", e.reason));
    }
    // The obfuscated file as Core wrote it; the rest is preallocated zeros.
    let written = writer.into_inner().unwrap();
    assert_eq!(written, raw[..written.len()], "the obfuscated records");
    assert!(raw[written.len()..].iter().all(|&b| b == 0));
    // A damaged record no longer verifies.
    let mut bad = raw.clone();
    let last = rev.records.last().unwrap();
    bad[last.undo_pos() as usize] ^= 1;
    let f = RevFile::parse(&bad, magic, &key, Some("rev00000.dat")).unwrap();
    let e = f.decode(tip - 1, &blocks[tip].header.prev_block).unwrap_err();
    assert!(matches!(e.kind(), UndoErrorKind::ChecksumMismatch { .. }), "{e}");
    let _ = std::fs::remove_dir_all(datadir.parent().unwrap());
    forms
}

#[test]
fn core_rev_file_of_regtest_1_206() {
    let Some(raw) = fullverify_testkit::harness::regtest_1_206() else { return };
    let blocks: Vec<Block> = raw.iter().map(|b| Block::from_bytes(b).unwrap()).collect();
    let magic = Network::Regtest.params().magic;
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("undo-regtest-blocks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("blocks.dat");
    let framed: Vec<u8> =
        raw[1..].iter().flat_map(|b| [&magic[..], &(b.len() as u32).to_le_bytes(), b].concat()).collect();
    std::fs::write(&file, framed).unwrap();
    let forms = check_core_undo("regtest", Network::Regtest, &blocks, &file);
    let _ = std::fs::remove_dir_all(&dir);
    if !forms.is_empty() {
        // P2WPKH coins: stored raw.
        assert_eq!(forms.get(&None), Some(&26), "{forms:?}");
    }
}

#[test]
fn core_rev_file_of_mainnet_0_438() {
    let Some(file) = vector_file("chain/mainnet_0-438.blk.dat") else { return };
    let blocks = frames(&std::fs::read(&file).unwrap(), Network::Mainnet.params().magic);
    assert_eq!(blocks.len(), 439);
    let forms = check_core_undo("mainnet", Network::Mainnet, &blocks, &file);
    if !forms.is_empty() {
        // Early coinbases pay to uncompressed keys: forms 4 and 5, y recovered from x.
        assert_eq!(forms.get(&Some(4)).unwrap_or(&0) + forms.get(&Some(5)).unwrap_or(&0), 7, "{forms:?}");
    }
}

/// Opt-in, for a larger chain: `FULLVERIFY_UNDO_CORPUS=FILE`, a regtest blk file of heights 1
/// on (a chaingen corpus's blk00000.dat, which has every script type the generator makes).
#[test]
fn core_rev_file_of_a_given_regtest_corpus() {
    let Ok(path) = std::env::var("FULLVERIFY_UNDO_CORPUS") else {
        eprintln!("SKIP: FULLVERIFY_UNDO_CORPUS (a regtest blk file) is not set");
        return;
    };
    let file = PathBuf::from(path);
    let mut blocks = vec![Network::Regtest.params().genesis_block()];
    blocks.extend(frames(&std::fs::read(&file).unwrap(), Network::Regtest.params().magic));
    let forms = check_core_undo("corpus", Network::Regtest, &blocks, &file);
    eprintln!("spent coins by script form (None: raw): {forms:?}");
}
