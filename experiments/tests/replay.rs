// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `replay` binary end to end: every source kind, resume and crash-resume against an
//! uninterrupted run, invalid blocks, corrupt sources and bad command lines; every packet is
//! validated against `results/schema/replay.schema.json`.
//!
//! Tests that need the external vectors skip with a message when they are absent, and fail
//! instead when `FULLVERIFY_REQUIRE_VECTORS=1`.

mod common;

use common::small_corpus;
use fullverify_testkit::{test_seed, vector_file, Scratch, SplitMix64, Tmpfs};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_replay");

/// A vector file, or `None` (skip) when absent; a failure under `FULLVERIFY_REQUIRE_VECTORS=1`.
fn vector(rel: &str) -> Option<PathBuf> {
    let p = vector_file(rel);
    if p.is_none() && std::env::var("FULLVERIFY_REQUIRE_VECTORS").is_ok_and(|v| v == "1") {
        panic!("FULLVERIFY_REQUIRE_VECTORS=1 but {rel} is absent");
    }
    p
}

/// Mainnet block 866342 and its spent outputs (Floresta JSON), or `None` as [`vector`].
fn block_866342() -> Option<(PathBuf, PathBuf)> {
    Some((
        vector("blocks_with_prevouts/mainnet_866342.block.zst")?,
        vector("blocks_with_prevouts/mainnet_866342.spent_utxos.json.zst")?,
    ))
}

/// A scratch directory of this test binary (see [`Scratch`]).
fn scratch(name: &str) -> Scratch {
    Scratch::new("fv-replay-test", name)
}

fn schema_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/schema/replay.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn assert_valid_packet(packet: &Value) {
    let v = schema_validator();
    let errors: Vec<String> =
        v.iter_errors(packet).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "packet does not match the schema:\n{}\n{packet:#}", errors.join("\n"));
}

/// Runs the binary with `args` and `--json <scratch>/<tag>.json --quiet`; returns the output
/// and the packet, if one was written.
fn replay(scratch: &Scratch, tag: &str, args: &[&str]) -> (Output, Option<Value>) {
    let json = scratch.path(&format!("{tag}.json"));
    let out = Command::new(BIN)
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--quiet")
        .stdin(Stdio::null())
        .output()
        .expect("replay runs");
    let packet =
        std::fs::read_to_string(&json).ok().map(|t| serde_json::from_str(&t).expect("packet is JSON"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "replay panicked: {stderr}");
    (out, packet)
}

fn ok_packet(scratch: &Scratch, tag: &str, args: &[&str]) -> Value {
    let (out, packet) = replay(scratch, tag, args);
    assert!(
        out.status.success(),
        "replay {args:?} failed with {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let p = packet.expect("a packet was written");
    assert_valid_packet(&p);
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn mainnet_0_438_from_genesis() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let sc = scratch("m438");
    let p = ok_packet(&sc, "full", &["--source", "framed", s(&file), "--network", "mainnet"]);
    assert_eq!(p["state"]["height"], 438);
    assert_eq!(p["state"]["utxo_count"], 443);
    assert_eq!(p["state"]["total_amount"], 2_190_000_000_000i64);
    assert_eq!(p["metrics"]["blocks"], 439);
    // Seven transactions spend coins, one input each (heights 170..248).
    assert_eq!(p["metrics"]["inputs"], 7);
    assert_eq!(p["assumevalid"]["enabled"], false);
    assert_eq!(p["source"]["path"], "mainnet_0-438.blk.dat");
    assert_eq!(p["tip"], "0000000025c6b644f8add734be7e666fa4afa43ca0204d623a0c0b1fd2104c7a");
    // Below BIP34, BIP30 asks about every transaction: its time is a measured part of the fetch.
    let (bip30, fetch) = (p["phases"]["bip30_s"].as_f64().unwrap(), p["phases"]["fetch_s"].as_f64().unwrap());
    assert!(bip30 > 0.0 && bip30 <= fetch, "{}", p["phases"]);
}

#[test]
fn chaingen_corpus_replays_to_the_manifest_state_with_era_rates() {
    use fullverify_experiments::chaingen::{generate, write_corpus, Profile};
    let sc = scratch("corpus");
    let dir = sc.path("tiny");
    let m = write_corpus(&generate(Profile::Tiny, 7, 2, &mut ()), &dir).unwrap();
    let p = ok_packet(&sc, "corpus", &["--source", "corpus", s(&dir), "--threads", "2"]);
    assert_eq!(p["params"]["network"], "regtest");
    assert_eq!(p["tip"], m.tip);
    assert_eq!(p["state"]["height"], m.tip_height);
    assert_eq!(p["state"]["utxo_count"], m.expected_state.utxo_count);
    assert_eq!(p["state"]["total_amount"], m.expected_state.total_amount);
    assert_eq!(p["state"]["muhash"], m.expected_state.muhash.as_str());
    assert_eq!(p["metrics"]["inputs"], m.inputs);
    assert_eq!(p["source"]["sha256"], m.sha256.as_str());
    assert_eq!(p["corpus"]["state_matches_manifest"], true);
    let eras = p["eras"].as_array().unwrap();
    assert_eq!(eras.len(), 3);
    for (e, want) in eras.iter().zip(&m.eras) {
        assert_eq!(e["name"], want.name.as_str());
        assert_eq!(e["inputs"], want.inputs);
        assert!(e["inputs_per_s"].as_f64().unwrap() > 0.0, "{e}");
    }
    // A corpus is regtest only.
    let (out, _) = replay(&sc, "corpus-mainnet", &["--source", "corpus", s(&dir), "--network", "mainnet"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn btcd_bz2_subset_matches_the_bitcoinj_file() {
    let (Some(bz2), Some(full)) =
        (vector("chain/mainnet_1-255.blk.bz2"), vector("chain/mainnet_0-438.blk.dat"))
    else {
        return;
    };
    let sc = scratch("bz2");
    let a = ok_packet(&sc, "bz2", &["--source", "framed", s(&bz2)]);
    let b = ok_packet(&sc, "cut", &["--source", "framed", s(&full), "--stop-height", "255"]);
    assert_eq!(a["state"]["height"], 255);
    assert_eq!(a["state"], b["state"]);
    // 255 blocks from the file plus the genesis block prepended.
    assert_eq!(a["metrics"]["blocks"], 256);
    assert_eq!(a["source"]["blocks_read"], 255);
}

#[test]
fn regtest_hex_file() {
    let Some(file) = vector("chain/regtest_1-206.blocks.hex.txt") else { return };
    let sc = scratch("regtest");
    let p = ok_packet(&sc, "rt", &["--source", "hex", s(&file), "--network", "regtest"]);
    assert_eq!(p["state"]["height"], 206);
    assert!(p["metrics"]["inputs"].as_u64().unwrap() >= 26);
}

#[test]
fn single_blocks_with_spent_outputs() {
    let sc = scratch("blocks");
    let cases = [
        (
            "mainnet_866342.block.zst",
            "mainnet_866342.spent_utxos.json.zst",
            "mainnet",
            866_342,
            7972,
            "floresta",
        ),
        ("mainnet_277647.blk.bz2", "mainnet_277647.utxostore.bz2", "mainnet", 277_647, 732, "btcd"),
        (
            "testnet3_928816.block.raw",
            "testnet3_928816.spent_outputs.bin",
            "testnet3",
            928_816,
            8692,
            "bcoin",
        ),
    ];
    for (block, spent, net, height, inputs, format) in cases {
        let (Some(b), Some(sp)) = (
            vector(&format!("blocks_with_prevouts/{block}")),
            vector(&format!("blocks_with_prevouts/{spent}")),
        ) else {
            return;
        };
        let h = height.to_string();
        let p = ok_packet(
            &sc,
            block,
            &["--source", "block", s(&b), "--spent", s(&sp), "--network", net, "--height", &h],
        );
        assert_eq!(p["block"]["height"], height);
        assert_eq!(p["block"]["inputs"], inputs);
        assert_eq!(p["metrics"]["inputs"], inputs);
        assert_eq!(p["source"]["spent"]["format"], format);
        assert!(p.get("error").is_none());
    }
    // The height comes from the coinbase when not given (BIP34).
    if let Some((b, sp)) = block_866342() {
        let p = ok_packet(&sc, "bip34", &["--source", "block", s(&b), "--spent", s(&sp), "--threads", "1"]);
        assert_eq!(p["block"]["height"], 866_342);
        // One spent output changed: the block is rejected with exit code 1.
        let json =
            String::from_utf8(fullverify_experiments::replay::source::read_maybe_compressed(&sp).unwrap())
                .unwrap();
        let mut v: Value = serde_json::from_str(&json).unwrap();
        let old = v[0]["txout"]["value"].as_i64().unwrap();
        v[0]["txout"]["value"] = (old + 1).into();
        let bad = sc.path("bad_spent.json");
        std::fs::write(&bad, v.to_string()).unwrap();
        let (out, packet) = replay(&sc, "badspent", &["--source", "block", s(&b), "--spent", s(&bad)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("invalid block at height 866342 ("), "{err}");
        let p = packet.unwrap();
        assert_valid_packet(&p);
        assert_eq!(p["error"]["kind"], "invalid-block");
    }
}

/// `--sig-checks` and `--batch-schnorr` are recorded in the packet and change neither the
/// block's counts nor the error of a rejected block.
#[test]
fn signature_modes_are_recorded_and_give_the_same_results() {
    let Some((b, sp)) = block_866342() else { return };
    let sc = scratch("batch_schnorr");
    let base = ["--source", "block", s(&b), "--spent", s(&sp), "--threads", "2"];
    let modes: [(&str, &[&str]); 4] = [
        ("inline", &["--sig-checks", "inline"]),
        ("batch-schnorr", &["--sig-checks", "inline", "--batch-schnorr"]),
        ("many", &["--sig-checks", "many"]),
        ("many+batch-schnorr", &["--sig-checks", "many", "--batch-schnorr"]),
    ];
    let mut blocks = Vec::new();
    for (name, extra) in modes {
        let p = ok_packet(&sc, name, &[&base[..], extra].concat());
        assert_eq!(p["params"]["sig_mode"], name);
        assert_eq!(p["params"]["batch_schnorr"], name.ends_with("batch-schnorr"));
        blocks.push(p["block"].clone());
    }
    assert!(blocks.iter().all(|b| *b == blocks[0]));
    // A changed amount of a taproot input: its signature fails, reported the same either way.
    let json = String::from_utf8(fullverify_experiments::replay::source::read_maybe_compressed(&sp).unwrap())
        .unwrap();
    let mut v: Value = serde_json::from_str(&json).unwrap();
    let k = v
        .as_array()
        .unwrap()
        .iter()
        .position(|e| {
            e["txout"]["script_pubkey"].as_str().is_some_and(|h| h.starts_with("5120") && h.len() == 68)
        })
        .expect("a taproot input");
    let old = v[k]["txout"]["value"].as_i64().unwrap();
    v[k]["txout"]["value"] = (old + 1).into();
    let bad = sc.path("bad_spent.json");
    std::fs::write(&bad, v.to_string()).unwrap();
    let bad_base = ["--source", "block", s(&b), "--spent", s(&bad), "--threads", "2"];
    let mut errors = Vec::new();
    for (tag, extra) in modes {
        let args = [&bad_base[..], extra].concat();
        let (out, packet) = replay(&sc, &format!("bad-{tag}"), &args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("(Invalid Schnorr signature)"), "{err}");
        let p = packet.unwrap();
        assert_valid_packet(&p);
        errors.push(p["error"].clone());
    }
    assert!(errors.iter().all(|e| *e == errors[0]), "{errors:?}");
}

/// `--malloc tuned` (the default) and `--malloc default` validate the same block to the same
/// result, and each packet records what was set (on glibc; null elsewhere); under `tuned` a run
/// whose resident set passes its budget gives free pages back, and says how often.
#[test]
fn malloc_settings_are_recorded_and_give_the_same_results() {
    let Some((b, sp)) = block_866342() else { return };
    let sc = scratch("malloc");
    let base = ["--source", "block", s(&b), "--spent", s(&sp), "--threads", "2"];
    let implicit = ok_packet(&sc, "implicit", &base);
    let tuned = ok_packet(&sc, "tuned", &[&base[..], &["--malloc", "tuned"]].concat());
    let default = ok_packet(&sc, "default", &[&base[..], &["--malloc", "default"]].concat());
    assert_eq!(implicit["block"], tuned["block"]);
    assert_eq!(default["block"], tuned["block"]);
    let glibc = cfg!(all(target_os = "linux", target_env = "gnu")) && tuned["allocator"] == "system";
    if glibc {
        assert_eq!(implicit["malloc"]["values"], tuned["malloc"]["values"]);
        assert_eq!(tuned["malloc"]["settings"], "tuned");
        let values = tuned["malloc"]["values"].as_object().unwrap();
        assert_eq!(values.len(), 4);
        // glibc took every value (it refuses an mmap threshold above 32 MiB).
        assert!(values.values().all(Value::is_u64), "{values:?}");
        // Free pages go back above the default --dbcache (450 MiB) plus an eighth.
        assert_eq!(values["trim_above"], (450u64 << 20) * 9 / 8);
        assert!(tuned["malloc"]["trims"].is_u64());
        assert_eq!(default["malloc"]["settings"], "default");
        assert!(default["malloc"]["values"].as_object().unwrap().is_empty());
        assert_eq!(default["malloc"]["trims"], 0);
        // With a budget the run cannot keep to, the trimmer trims, and the result is the same.
        let small = ok_packet(&sc, "trimmed", &[&base[..], &["--dbcache", "1"]].concat());
        assert_eq!(small["block"], tuned["block"]);
        assert_eq!(small["malloc"]["values"]["trim_above"], (1u64 << 20) * 9 / 8);
        assert!(small["malloc"]["trims"].as_u64().unwrap() > 0, "{}", small["malloc"]);
    } else {
        assert!(tuned["malloc"].is_null() && default["malloc"].is_null());
    }
}

/// Framed records of a file, as `(offset, payload)`.
fn records(data: &[u8]) -> Vec<(usize, Vec<u8>)> {
    let mut v = Vec::new();
    let mut pos = 0;
    while pos + 8 <= data.len() {
        let len = u32::from_le_bytes(data[pos + 4..pos + 8].try_into().unwrap()) as usize;
        v.push((pos, data[pos + 8..pos + 8 + len].to_vec()));
        pos += 8 + len;
    }
    v
}

fn frame(magic: &[u8], payload: &[u8]) -> Vec<u8> {
    [magic, &(payload.len() as u32).to_le_bytes(), payload].concat()
}

#[test]
fn core_blocks_dir_shuffled_across_two_xored_files() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let data = std::fs::read(&file).unwrap();
    let magic = &data[..4];
    let mut blocks: Vec<Vec<u8>> = records(&data).into_iter().map(|(_, b)| b).collect();
    assert_eq!(blocks.len(), 439);
    let mut rng = SplitMix64(test_seed());
    // A stale branch of five blocks off height 100 (changed nonces, so new hashes and no valid
    // proof of work): less work than the main chain, so it must not be chosen.
    let chain: Vec<Vec<u8>> = records(&data).into_iter().map(|(_, b)| b).collect();
    let mut prev = fullverify::hash::sha256d(&chain[100][..80]);
    for b in &chain[101..106] {
        let mut f = b.clone();
        f[4..36].copy_from_slice(&prev);
        f[76] ^= 0x5a;
        prev = fullverify::hash::sha256d(&f[..80]);
        blocks.push(f);
    }
    // Fisher-Yates shuffle, then two files with zero padding between and after records.
    for i in (1..blocks.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        blocks.swap(i, j);
    }
    let key: [u8; 8] = rng.next_u64().to_le_bytes();
    let sc = scratch("coredir");
    let dir = sc.path("blocks");
    std::fs::create_dir_all(&dir).unwrap();
    let split = 150 + (rng.next_u64() % 100) as usize;
    for (name, part) in [("blk00000.dat", &blocks[..split]), ("blk00001.dat", &blocks[split..])] {
        let mut f = Vec::new();
        for b in part {
            f.extend_from_slice(&frame(magic, b));
            if rng.next_u64().is_multiple_of(4) {
                f.extend(std::iter::repeat_n(0u8, (rng.next_u64() % 9) as usize));
            }
        }
        f.extend(std::iter::repeat_n(0u8, 4096));
        for (i, b) in f.iter_mut().enumerate() {
            *b ^= key[i % 8];
        }
        std::fs::write(dir.join(name), f).unwrap();
    }
    std::fs::write(dir.join("xor.dat"), key).unwrap();
    // Files that are not block files are ignored.
    std::fs::write(dir.join("rev00000.dat"), b"undo").unwrap();
    let a = ok_packet(&sc, "dir", &["--source", "core-blocks", s(&dir)]);
    let b = ok_packet(&sc, "file", &["--source", "framed", s(&file)]);
    assert_eq!(a["state"], b["state"]);
    assert_eq!(a["state"]["height"], 438);
    assert_eq!(a["source"]["kind"], "core-blocks");
    // The blocks read are the chain's, in chain order: same digest as the framed file's.
    assert_eq!(a["source"]["sha256"], b["source"]["sha256"]);
}

#[test]
fn resume_after_stop_height_equals_one_run() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let sc = scratch("resume");
    let d = sc.path("state");
    let whole = ok_packet(&sc, "whole", &["--source", "framed", s(&file)]);
    let first = ok_packet(
        &sc,
        "first",
        &["--source", "framed", s(&file), "--datadir", s(&d), "--stop-height", "200"],
    );
    assert_eq!(first["state"]["height"], 200);
    assert_eq!(first["metrics"]["blocks"], 201);
    let second = ok_packet(&sc, "second", &["--source", "framed", s(&file), "--datadir", s(&d)]);
    assert_eq!(second["source"]["resumed_from_height"], 200);
    assert_eq!(second["metrics"]["blocks"], 238);
    assert_eq!(second["state"], whole["state"]);
    // A third run has nothing left to do and reports the same state.
    let third = ok_packet(&sc, "third", &["--source", "framed", s(&file), "--datadir", s(&d)]);
    assert_eq!(third["metrics"]["blocks"], 0);
    assert_eq!(third["state"], whole["state"]);
}

#[test]
fn crash_resume_matches_an_uninterrupted_run() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let sc = scratch("crash");
    let args = ["--source", "framed", s(&file), "--flush-every", "1"];
    let t = Instant::now();
    let whole = ok_packet(&sc, "whole", &args);
    let full_time = t.elapsed();
    let d = sc.path("state");
    let mut rng = SplitMix64(test_seed() ^ 0xc4a5);
    let mut killed_mid_run = 0;
    for round in 0..6 {
        let mut child = Command::new(BIN)
            .args(args)
            .args(["--datadir", s(&d), "--quiet", "--json"])
            .arg(sc.path(&format!("kill{round}.json")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let wait = full_time.mul_f64((rng.next_u64() % 1000) as f64 / 1000.0 * 0.6);
        std::thread::sleep(wait);
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        }
        // `Child::kill` sends SIGKILL on Unix: no destructor or flush runs.
        let _ = child.kill();
        child.wait().unwrap();
    }
    eprintln!(
        "crash-resume: {killed_mid_run} of 6 runs killed before they finished (full run {full_time:?})"
    );
    let resumed = ok_packet(&sc, "resumed", &[&args[..], &["--datadir", s(&d)]].concat());
    assert_eq!(resumed["state"], whole["state"]);
    assert_eq!(resumed["state"]["muhash"], whole["state"]["muhash"]);
}

#[test]
fn invalid_block_stops_with_the_last_valid_state_flushed() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let data = std::fs::read(&file).unwrap();
    let recs = records(&data);
    // Block 300 with one byte of its coinbase scriptSig changed: the merkle root no longer matches.
    let mut bad = recs[300].1.clone();
    bad[80 + 1 + 4 + 1 + 36 + 1 + 2] ^= 0x01;
    let mut out = Vec::new();
    for (i, (_, b)) in recs.iter().enumerate() {
        out.extend_from_slice(&frame(&data[..4], if i == 300 { &bad } else { b }));
    }
    let sc = scratch("invalid");
    let corrupt = sc.path("corrupt.blk");
    std::fs::write(&corrupt, out).unwrap();
    let d = sc.path("state");
    let (o, packet) = replay(&sc, "bad", &["--source", "framed", s(&corrupt), "--datadir", s(&d)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let line = err.lines().find(|l| l.starts_with("invalid block")).expect("an invalid-block line");
    assert!(line.starts_with("invalid block at height 300 ("), "{line}");
    assert!(line.contains("bad-txnmrklroot"), "{line}");
    let p = packet.unwrap();
    assert_valid_packet(&p);
    assert_eq!(p["state"]["height"], 299);
    assert_eq!(p["error"]["height"], 300);
    assert_eq!(p["error"]["reason"], "bad-txnmrklroot");
    // The flushed state resumes with the good file to the same end as one clean run.
    let good = ok_packet(&sc, "good", &["--source", "framed", s(&file), "--datadir", s(&d)]);
    let clean = ok_packet(&sc, "clean", &["--source", "framed", s(&file)]);
    assert_eq!(good["source"]["resumed_from_height"], 299);
    assert_eq!(good["state"], clean["state"]);
}

#[test]
fn truncated_and_corrupt_sources_name_file_and_offset() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let data = std::fs::read(&file).unwrap();
    let recs = records(&data);
    let (off, _) = recs[120];
    let sc = scratch("trunc");
    let cut = sc.path("cut.blk");
    std::fs::write(&cut, &data[..off + 8 + 50]).unwrap();
    let (o, packet) = replay(&sc, "cut", &["--source", "framed", s(&cut)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains(&format!("cut.blk at byte {off}: truncated block record")), "{err}");
    let p = packet.unwrap();
    assert_valid_packet(&p);
    assert_eq!(p["state"]["height"], 119);
    assert_eq!(p["error"]["kind"], "source");
    // Garbage where a record should start.
    let mut garbled = data[..recs[10].0].to_vec();
    garbled.extend_from_slice(b"not a block record");
    let g = sc.path("garbled.blk");
    std::fs::write(&g, garbled).unwrap();
    let (o, _) = replay(&sc, "garbled", &["--source", "framed", s(&g)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("garbled.blk at byte {}: expected network magic f9beb4d9", recs[10].0)),
        "{err}"
    );
    // A bad hex line names its byte offset.
    let h = sc.path("blocks.hex");
    std::fs::write(&h, format!("{}\nzz\n", hex::encode(&recs[0].1))).unwrap();
    let (o, _) = replay(&sc, "hex", &["--source", "hex", s(&h)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains(&format!("blocks.hex at byte {}: bad hex", recs[0].1.len() * 2 + 1)), "{err}");
}

#[test]
fn bad_command_lines_exit_2_with_a_message() {
    let sc = scratch("cli");
    let missing = sc.path("missing.blk");
    let scratch_file = sc.path("present.blk");
    std::fs::write(&scratch_file, [0u8; 100]).unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--threads", "0"], "--threads"),
        (vec!["--threads", "many"], "--threads"),
        (vec!["--network", "moon"], "unknown network"),
        (vec!["--network", "mainnet"], "the default source is a regtest corpus"),
        (vec!["--backend", "quantum"], "--backend"),
        (vec!["--assumevalid", "xyz"], "neither `none` nor a 64-digit block hash"),
        (vec!["--source", "tape", "x"], "unknown source kind"),
        (vec!["--source", "framed"], "--source"),
        (vec!["--source", "framed", s(&missing)], "no such file"),
        (vec!["--no-such-option"], "--no-such-option"),
        (vec!["--height", "5"], "apply only to --source block"),
        (vec!["--source", "block", s(&scratch_file), "--stop-height", "3"], "apply only to chain sources"),
        (vec!["--dbcache", "0"], "--dbcache"),
        (vec!["--sig-checks", "later"], "expected inline or many"),
        (vec!["--malloc", "huge"], "--malloc"),
    ];
    for (args, needle) in cases {
        let out = Command::new(BIN).args(&args).stdin(Stdio::null()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: expected {needle:?} in {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // --help documents every option and exits 0.
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for opt in [
        "--source",
        "--network",
        "--datadir",
        "--threads",
        "--dbcache",
        "--flush-every",
        "--stop-height",
        "--assumevalid",
        "--backend",
        "--json",
        "--spent",
        "--spent-format",
        "--height",
        "--malloc",
        "--quiet",
        "core-blocks",
    ] {
        assert!(help.contains(opt), "--help does not mention {opt}");
    }
    // A backend this CPU cannot run is refused with a reason, not used.
    for b in fullverify::BackendKind::ALL.iter().filter(|b| !b.is_supported()) {
        let out = Command::new(BIN).args(["--backend", b.name()]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("backend {} is not available", b.name())), "{err}");
    }
}

#[test]
fn assumevalid_is_recorded() {
    let Some(file) = vector("chain/mainnet_0-438.blk.dat") else { return };
    let sc = scratch("av");
    let tip = "0000000025c6b644f8add734be7e666fa4afa43ca0204d623a0c0b1fd2104c7a";
    let p = ok_packet(&sc, "av", &["--source", "framed", s(&file), "--assumevalid", tip]);
    assert_eq!(p["assumevalid"]["enabled"], true);
    assert_eq!(p["assumevalid"]["hash"], tip);
    assert_eq!(p["state"]["height"], 438);
}

/// `strace`, or `None` with a line saying the test skips (the test command installs it).
fn strace() -> Option<&'static str> {
    let ok = Command::new("strace").arg("-V").stdout(Stdio::null()).status().is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIP kill inside a flush: strace is not installed");
    }
    ok.then_some("strace")
}

#[test]
fn a_kill_inside_a_flush_resumes_to_the_same_state() {
    let Some(strace) = strace() else { return };
    let corpus = small_corpus();
    let sc = scratch("kill-in-flush");
    // A cache of 1 MiB: about thirty flushes of thousands of coins each, every one written in
    // many write calls (the store's journal, then its segments from background threads).
    let base = ["--source", "corpus", s(&corpus), "--network", "regtest", "--dbcache", "1"];
    let clean = ok_packet(&sc, "clean", &base);
    // Every write and sync the replay makes below is the store's: count them once.
    const WRITES: &str = "write,pwrite64,writev";
    const SYNCS: &str = "fsync,fdatasync";
    let trace = sc.path("calls.trace");
    let counted = Command::new(strace)
        .args(["-f", "-qq", "-e", &format!("trace={WRITES},{SYNCS}"), "-o", s(&trace), BIN])
        .args(base)
        .args(["--datadir", s(&sc.path("counted")), "--quiet", "--json", s(&sc.path("counted.json"))])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(counted.success());
    let trace = std::fs::read_to_string(&trace).unwrap();
    // strace counts the calls for an injection per thread, so each kind is counted for the
    // thread making the most of it: the writes for the cache's flush writer (every flush's
    // journal), the syncs for the main thread (the store's creation and the last flush).
    let count = |calls: &str| {
        let names: Vec<String> = calls.split(',').map(|c| format!(" {c}(")).collect();
        let mut n = std::collections::HashMap::<&str, usize>::new();
        for l in trace.lines().filter(|l| names.iter().any(|n| l.contains(n.as_str()))) {
            *n.entry(l.split_whitespace().next().unwrap_or("")).or_default() += 1;
        }
        n.into_values().max().unwrap_or(0)
    };
    let (writes, syncs) = (count(WRITES), count(SYNCS));
    assert!(writes > 300 && syncs > 20, "{writes} writes, {syncs} syncs: the flushes are not large");
    // SIGKILL on entering the k-th write (the batch's journal or a segment half written) or
    // the k-th fsync (the store half created, or a flush written and not yet made durable), at
    // points spread over the run. The 9th sync falls inside the store's creation (its first
    // partition being made), a state fjall alone cannot reopen.
    let points = [
        (WRITES, writes / 7),
        (WRITES, writes * 3 / 7),
        (WRITES, writes * 5 / 7),
        (SYNCS, 9),
        (SYNCS, syncs - 8),
        (SYNCS, syncs - 2),
    ];
    let mut resumed_from = Vec::new();
    for (i, (calls, k)) in points.into_iter().enumerate() {
        let d = sc.path(&format!("state{i}"));
        let killed = Command::new(strace)
            .args(["-f", "-qq", "-o", "/dev/null", "-e", &format!("trace={calls}")])
            .args(["-e", &format!("inject={calls}:signal=SIGKILL:when={k}"), BIN])
            .args(base)
            .args(["--datadir", s(&d), "--quiet", "--json", s(&sc.path(&format!("killed{i}.json")))])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert!(
            killed.signal() == Some(9) || killed.code() == Some(128 + 9),
            "run {i} ({calls} #{k}) was not killed: {killed:?}"
        );
        let resumed = ok_packet(&sc, &format!("resumed{i}"), &[&base[..], &["--datadir", s(&d)]].concat());
        assert_eq!(resumed["state"], clean["state"], "killed at {calls} #{k}");
        resumed_from.push(resumed["source"]["resumed_from_height"].as_u64());
    }
    eprintln!("kill inside a flush: {writes} writes; resumed from heights {resumed_from:?}");
    // The kills landed at different points of the chain, not all before the first flush.
    assert!(
        resumed_from.iter().flatten().collect::<std::collections::BTreeSet<_>>().len() >= 3,
        "{resumed_from:?}"
    );
}

#[test]
fn a_full_or_read_only_datadir_stops_with_exit_3_and_resumes_to_the_same_state() {
    let corpus = small_corpus();
    let sc = scratch("storage");
    let base = ["--source", "corpus", s(&corpus), "--network", "regtest", "--dbcache", "1"];
    let clean = ok_packet(&sc, "clean", &base);
    // A disk that fills up during a flush: exit 3, the datadir and the cause named.
    let Some(full) = Tmpfs::mount(&sc.path("full"), "2m", "storage faults") else { return };
    let d = full.path().join("state");
    let (o, p) = replay(&sc, "full", &[&base[..], &["--datadir", s(&d)]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let p = p.expect("a packet");
    assert_eq!(p["error"]["kind"], "store");
    let msg = p["error"]["message"].as_str().unwrap();
    assert!(msg.contains(s(&d)) && msg.contains("No space left on device"), "{msg}");
    // Nothing corrupt: the datadir, copied to a good disk, resumes to the clean run's state.
    let good = sc.path("good");
    assert!(Command::new("cp").args(["-a", s(&d), s(&good)]).status().unwrap().success());
    let resumed = ok_packet(&sc, "resumed", &[&base[..], &["--datadir", s(&good)]].concat());
    assert!(resumed["source"]["resumed_from_height"].as_u64().is_some_and(|h| h > 100), "{resumed}");
    assert_eq!(resumed["state"], clean["state"]);
    drop(full);
    // Writes failing: a partial state on a file system then remounted read-only.
    let Some(ro) = Tmpfs::mount(&sc.path("ro"), "64m", "storage faults") else { return };
    let d = ro.path().join("state");
    ok_packet(&sc, "part", &[&base[..], &["--datadir", s(&d), "--stop-height", "150"]].concat());
    ro.remount("ro");
    let (o, p) = replay(&sc, "ro", &[&base[..], &["--datadir", s(&d)]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let msg = p.map(|p| p["error"]["message"].to_string()).unwrap_or_else(|| err.to_string());
    assert!(msg.contains(s(&d)) && msg.contains("Read-only file system"), "{msg}");
    ro.remount("rw");
    let resumed = ok_packet(&sc, "rw", &[&base[..], &["--datadir", s(&d)]].concat());
    assert_eq!(resumed["source"]["resumed_from_height"], 150);
    assert_eq!(resumed["state"], clean["state"]);
}
