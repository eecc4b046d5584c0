// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every bad input to the block readers, end to end through the `replay` binary: what each
//! reader does with record lengths outside what Core reads, blocks too large to be valid,
//! truncated files, bytes between records, second copies of blocks, blocks whose parent is
//! missing, forks, and a wrong `xor.dat`. Each case asserts the exit code, the message (with
//! the file and byte offset where there is one) and, where the run goes on or stops after a
//! valid block, the final state. The README's table of bad inputs lists the same cases.
//!
//! The chains are built here: regtest blocks whose coinbase pays the subsidy to `OP_TRUE`, so
//! the state after height `h` is `h` coins of 50 BTC.

use fullverify::chain::{check_proof_of_work, Network};
use fullverify::encode::{Block, BlockHeader, OutPoint, Transaction, TxIn, TxOut};
use fullverify::hash::{merkle_root, sha256d, witness_merkle_root};
use fullverify::validation::bip34_height_push;
use fullverify_experiments::chaingen::block_bytes;
use fullverify_testkit::Scratch;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_replay");
const MAGIC: [u8; 4] = [0xfa, 0xbf, 0xb5, 0xda];
const COIN: i64 = 100_000_000;
/// Core's `MAX_SIZE`: the largest record read as a block.
const MAX_SIZE: u32 = 0x0200_0000;

/// What a block carries besides its coinbase.
#[derive(Clone, Copy, Default)]
struct Extra {
    /// Tells apart blocks at the same height (forks).
    tag: u8,
    /// Bytes of an extra coinbase output script (counts in the stripped size).
    big_output: usize,
    /// Bytes of the witness of a second transaction (counts in the weight only once).
    big_witness: usize,
    /// A coin spent by a transaction whose scriptSig is `OP_RETURN`: its script fails.
    failing_spend: Option<OutPoint>,
}

/// A mined regtest block at `height` on `prev`.
fn mine(prev: [u8; 32], height: u32, extra: Extra) -> Vec<u8> {
    let params = Network::Regtest.params();
    let mut script_sig = bip34_height_push(height);
    script_sig.extend_from_slice(&[1, extra.tag]);
    let mut outputs = vec![TxOut { value: params.block_subsidy(height), script_pubkey: vec![0x51] }];
    if extra.big_output > 0 {
        outputs.push(TxOut { value: 0, script_pubkey: vec![0x6a; extra.big_output] });
    }
    let mut others = Vec::new();
    if extra.big_witness > 0 {
        others.push(Transaction {
            version: 2,
            inputs: vec![TxIn {
                prevout: OutPoint { txid: [0x11; 32], vout: 0 },
                script_sig: Vec::new(),
                sequence: u32::MAX,
                witness: vec![vec![0x5a; extra.big_witness]],
            }],
            outputs: vec![TxOut { value: 1, script_pubkey: vec![0x51] }],
            lock_time: 0,
        });
    }
    if let Some(prevout) = extra.failing_spend {
        others.push(Transaction {
            version: 2,
            inputs: vec![TxIn { prevout, script_sig: vec![0x6a], sequence: u32::MAX, witness: Vec::new() }],
            outputs: vec![TxOut { value: COIN, script_pubkey: vec![0x51] }],
            lock_time: 0,
        });
    }
    let mut wtxids = vec![[0u8; 32]];
    wtxids.extend(others.iter().map(Transaction::wtxid));
    let commitment = sha256d(&[witness_merkle_root(&wtxids).root, [0u8; 32]].concat());
    let mut spk = vec![0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed];
    spk.extend_from_slice(&commitment);
    outputs.push(TxOut { value: 0, script_pubkey: spk });
    let coinbase = Transaction {
        version: 2,
        inputs: vec![TxIn {
            prevout: OutPoint::NULL,
            script_sig,
            sequence: u32::MAX,
            witness: vec![vec![0; 32]],
        }],
        outputs,
        lock_time: 0,
    };
    let txdata: Vec<Transaction> = std::iter::once(coinbase).chain(others).collect();
    let txids: Vec<[u8; 32]> = txdata.iter().map(Transaction::txid).collect();
    let mut header = BlockHeader {
        version: 0x2000_0000,
        prev_block: prev,
        merkle_root: merkle_root(&txids).root,
        time: params.genesis_block().header.time + height * 600,
        bits: 0x207f_ffff,
        nonce: 0,
    };
    while !check_proof_of_work(&header.block_hash(), header.bits, params) {
        header.nonce += 1;
    }
    block_bytes(&Block { header, txdata })
}

fn hash(block: &[u8]) -> [u8; 32] {
    sha256d(&block[..80])
}

/// A hash as Core prints it.
fn shown(h: [u8; 32]) -> String {
    let mut r = h;
    r.reverse();
    hex::encode(r)
}

/// The regtest genesis block and `n` blocks on it (index = height).
fn chain(n: u32) -> Vec<Vec<u8>> {
    let mut v = vec![block_bytes(&Network::Regtest.params().genesis_block())];
    for h in 1..=n {
        let prev = hash(&v[h as usize - 1]);
        v.push(mine(prev, h, Extra::default()));
    }
    v
}

/// A record `magic | len | payload`.
fn frame(payload: &[u8]) -> Vec<u8> {
    [&MAGIC[..], &(payload.len() as u32).to_le_bytes(), payload].concat()
}

/// A record header stating `len`, with no payload.
fn head(len: u32) -> Vec<u8> {
    [&MAGIC[..], &len.to_le_bytes()].concat()
}

type Heights = std::ops::RangeInclusive<usize>;

/// The records of the blocks of `c` at `heights`, one part each.
fn frames(c: &[Vec<u8>], heights: Heights) -> Vec<Vec<u8>> {
    heights.map(|i| frame(&c[i])).collect()
}

/// The records of `before`, then `mid`, then the records of `after`.
fn with(c: &[Vec<u8>], before: Heights, mid: Vec<Vec<u8>>, after: Heights) -> Vec<Vec<u8>> {
    [frames(c, before), mid, frames(c, after)].concat()
}

/// The bytes of `parts` and the offset at which each part starts.
fn file(parts: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
    let mut data = Vec::new();
    let mut at = Vec::new();
    for p in parts {
        at.push(data.len() as u64);
        data.extend_from_slice(p);
    }
    (data, at)
}

fn scratch(name: &str) -> Scratch {
    Scratch::new("fv-bad-inputs", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// What a run of the binary gave: exit code, standard error and the packet, if written.
struct Ran {
    code: Option<i32>,
    stderr: String,
    packet: Option<Value>,
}

impl Ran {
    /// The packet's chain height and coin count, which must be those of `height` coinbases.
    fn assert_state(&self, height: u32, what: &str) {
        let p = self.packet.as_ref().unwrap_or_else(|| panic!("{what}: no packet; {}", self.stderr));
        assert_eq!(p["state"]["height"], height, "{what}: {}", self.stderr);
        assert_eq!(p["state"]["utxo_count"], height, "{what}");
        assert_eq!(p["state"]["total_amount"], i64::from(height) * 50 * COIN, "{what}");
    }

    fn notes(&self) -> Vec<String> {
        let p = self.packet.as_ref().expect("a packet");
        p["source"]["notes"]
            .as_array()
            .expect("source.notes")
            .iter()
            .map(|n| n.as_str().unwrap().into())
            .collect()
    }
}

fn schema_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/schema/replay.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Runs `replay --source KIND PATH --network regtest`, its packet validated against the schema.
fn replay(sc: &Scratch, tag: &str, kind: &str, path: &Path) -> Ran {
    let json = sc.path(&format!("{tag}.json"));
    let out = Command::new(BIN)
        .args(["--source", kind, s(path), "--network", "regtest", "--threads", "2", "--quiet", "--json"])
        .arg(&json)
        .stdin(Stdio::null())
        .output()
        .expect("replay runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{tag}: replay panicked: {stderr}");
    let packet: Option<Value> =
        std::fs::read_to_string(&json).ok().map(|t| serde_json::from_str(&t).expect("packet is JSON"));
    if let Some(p) = &packet {
        let v = schema_validator();
        let errors: Vec<String> = v.iter_errors(p).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{tag}: packet does not match the schema: {errors:?}");
    }
    Ran { code: out.status.code(), stderr, packet }
}

/// One bad input: the file's parts, then what must happen.
struct Case {
    name: &'static str,
    parts: Vec<Vec<u8>>,
    /// Exit code.
    exit: i32,
    /// A line of standard error (exit 1 or 3) or a note (exit 0), given the file's name in
    /// messages and the offsets of the parts; `None` for a run that notes nothing.
    message: Message,
    /// The height of the state at the end.
    height: u32,
}

/// What a case must print or note, from the file's name and the offsets of its parts.
type Message = Box<dyn Fn(&str, &[u64]) -> Option<String>>;

/// A case: the file's parts, the exit code, the message and the height at the end.
fn case(name: &'static str, parts: Vec<Vec<u8>>, exit: i32, message: Message, height: u32) -> Case {
    Case { name, parts, exit, message, height }
}

/// No message: a run that notes nothing.
fn quiet() -> Message {
    Box::new(|_, _| None)
}

/// A note about part `i`: `FILE at byte N: text`.
fn note_at(i: usize, text: String) -> Message {
    Box::new(move |file, at| Some(format!("{file} at byte {}: {text}", at[i])))
}

/// An error about part `i`: `error: FILE at byte N: text`.
fn error_at(i: usize, text: String) -> Message {
    Box::new(move |file, at| Some(format!("error: {file} at byte {}: {text}", at[i])))
}

/// Block `hash` (height 4, part 4) rejected by validation with `reason`.
fn invalid_at_4(hash: &str, reason: &'static str) -> Message {
    let hash = hash.to_string();
    Box::new(move |file, at| {
        Some(format!("invalid block at height 4 ({hash}): {reason} (source {file} at byte {})", at[4]))
    })
}

/// Why a record length is not read as a block.
fn unreadable(len: u32) -> String {
    if len < 80 {
        format!("record length {len} is shorter than a block header (80 bytes)")
    } else {
        format!("record length {len} is above 33554432 bytes, the most Core reads as one block (MAX_SIZE)")
    }
}

fn second_copy(h: &str) -> String {
    format!("a second copy of block {h}; skipped, as Core skips a block it already has")
}

fn before_parent(h: &str, parent: &str, kind: &str) -> String {
    format!(
        "block {h}: its parent {parent} is not among the blocks read before it; a {kind} source must hold one \
         chain in order (--source core-blocks rebuilds the order from the headers)"
    )
}

fn fork_past_work(h: &str, from: &str, kind: &str) -> String {
    format!(
        "block {h} takes a fork from block {from} past the work of the chain read before it; a {kind} source \
         must hold one chain in order (--source core-blocks replays the most-work chain of a blocks directory)"
    )
}

/// Checks one case run from `file` (the name messages use).
fn check(case: &Case, ran: &Ran, file: &str, at: &[u64]) {
    let what = case.name;
    assert_eq!(ran.code, Some(case.exit), "{what}: {}", ran.stderr);
    match ((case.message)(file, at), case.exit) {
        (Some(m), 0) => {
            let notes = ran.notes();
            assert!(notes.contains(&m), "{what}: no note {m:?} in {notes:?}");
            // Printed as well, with --quiet.
            assert!(ran.stderr.contains(&format!("note: {m}\n")), "{what}: {}", ran.stderr);
        }
        (Some(m), _) => {
            let line = ran.stderr.lines().find(|l| !l.starts_with("note: ")).unwrap_or("");
            assert_eq!(line, m, "{what}");
        }
        (None, _) => assert_eq!(ran.notes(), Vec::<String>::new(), "{what}"),
    }
    ran.assert_state(case.height, what);
}

/// Writes each case's file with `write` (case number, bytes → the path to replay and the name
/// messages give the file), replays it with `--source kind` and checks the outcome.
fn run_cases(sc: &Scratch, kind: &str, cases: &[Case], write: impl Fn(usize, Vec<u8>) -> (PathBuf, String)) {
    for (i, case) in cases.iter().enumerate() {
        let (data, at) = file(&case.parts);
        let (path, name) = write(i, data);
        let ran = replay(sc, &format!("case{i}"), kind, &path);
        check(case, &ran, &name, &at);
    }
}

/// The blocks and defects the ordered readers (framed, corpus) meet: what each one does.
fn ordered_cases(c: &[Vec<u8>], big: &[Vec<u8>; 2], fork: &[Vec<u8>], kind: &'static str) -> Vec<Case> {
    let f = |range: Heights| frames(c, range);
    let with = |before: Heights, mid: Vec<Vec<u8>>, after: Heights| with(c, before, mid, after);
    let (h4, h5) = (shown(hash(&c[4])), shown(hash(&c[5])));
    let (hf4, hf5, hf6) = (shown(hash(&fork[0])), shown(hash(&fork[1])), shown(hash(&fork[2])));
    let (len8, big0, big1) = (c[8].len(), shown(hash(&big[0])), shown(hash(&big[1])));
    vec![
        case("record length 0", with(0..=3, vec![head(0)], 4..=8), 3, error_at(4, unreadable(0)), 3),
        case(
            "record length 79",
            with(0..=3, vec![[head(79), vec![1; 79]].concat()], 4..=8),
            3,
            error_at(4, unreadable(79)),
            3,
        ),
        case(
            "record length 2 GiB",
            with(0..=3, vec![head(0x8000_0000)], 4..=8),
            3,
            error_at(4, unreadable(0x8000_0000)),
            3,
        ),
        case(
            "record length MAX_SIZE + 1",
            with(0..=3, vec![head(MAX_SIZE + 1), vec![0x5a; 100]], 4..=8),
            3,
            error_at(4, unreadable(MAX_SIZE + 1)),
            3,
        ),
        case(
            "truncated last record",
            [f(0..=7), vec![frame(&c[8])[..8 + 100].to_vec()]].concat(),
            3,
            error_at(8, format!("truncated block record: 100 of {len8} bytes")),
            7,
        ),
        case(
            "garbage between records",
            with(0..=3, vec![b"garbage!".to_vec()], 4..=8),
            3,
            error_at(4, "expected network magic fabfb5da, found 67617262".into()),
            3,
        ),
        case("a second copy of a block", with(0..=4, vec![frame(&c[4])], 5..=8), 0, note_at(5, second_copy(&h4)), 8),
        case(
            "a block before its parent",
            [f(0..=3), vec![frame(&c[5]), frame(&c[4])], f(6..=8)].concat(),
            3,
            error_at(4, before_parent(&h5, &h4, kind)),
            3,
        ),
        case(
            "a fork with less work",
            with(0..=6, vec![frame(&fork[0]), frame(&fork[1])], 7..=8),
            0,
            note_at(
                8,
                format!(
                    "block {hf5} is on a fork from block {hf4} with no more work than the chain read before it; \
                     skipped, as Core keeps such a block off its active chain"
                ),
            ),
            8,
        ),
        case(
            "a fork that gains more work",
            with(0..=5, fork.iter().map(|b| frame(b)).collect(), 6..=8),
            3,
            error_at(8, fork_past_work(&hf6, &hf5, kind)),
            5,
        ),
        case(
            "a block over 4,000,000 bytes, stripped size too",
            with(0..=3, vec![frame(&big[0])], 5..=8),
            1,
            invalid_at_4(&big0, "bad-blk-length"),
            3,
        ),
        case(
            "a block over 4,000,000 bytes, witness",
            with(0..=3, vec![frame(&big[1])], 5..=8),
            1,
            invalid_at_4(&big1, "bad-blk-weight"),
            3,
        ),
    ]
}

/// Blocks at height 4 on block 3 too large to be valid: one whose stripped size is over the
/// limit (`bad-blk-length`), one whose witness takes the weight over it (`bad-blk-weight`).
fn oversize(c: &[Vec<u8>]) -> [Vec<u8>; 2] {
    let p = hash(&c[3]);
    let a = mine(p, 4, Extra { big_output: 4_000_100, ..Extra::default() });
    let b = mine(p, 4, Extra { big_witness: 4_000_100, ..Extra::default() });
    for x in [&a, &b] {
        assert!(x.len() > 4_000_000 && x.len() < 4_001_000, "{}", x.len());
    }
    [a, b]
}

/// A fork from block 3: heights 4', 5' and 6'.
fn fork_from_3(c: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = Vec::new();
    for h in 4..=6u32 {
        let prev = v.last().map_or_else(|| hash(&c[3]), |b| hash(b));
        v.push(mine(prev, h, Extra { tag: 7, ..Extra::default() }));
    }
    v
}

#[test]
fn framed_file_bad_inputs() {
    let c = chain(8);
    let (big, fork) = (oversize(&c), fork_from_3(&c));
    let sc = scratch("framed");
    run_cases(&sc, "framed", &ordered_cases(&c, &big, &fork, "framed"), |i, data| {
        let name = format!("case{i}.blk");
        std::fs::write(sc.path(&name), data).unwrap();
        (sc.path(&name), name)
    });
    // The whole chain, untouched: every block connects and nothing is noted.
    let (data, _) = file(&c.iter().map(|b| frame(b)).collect::<Vec<_>>());
    std::fs::write(sc.path("good.blk"), data).unwrap();
    let ran = replay(&sc, "good", "framed", &sc.path("good.blk"));
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.notes(), Vec::<String>::new());
    ran.assert_state(8, "good");
}

#[test]
fn corpus_bad_inputs() {
    let c = chain(8);
    let (big, fork) = (oversize(&c), fork_from_3(&c));
    let sc = scratch("corpus");
    run_cases(&sc, "corpus", &ordered_cases(&c, &big, &fork, "corpus"), |i, data| {
        let dir = sc.path(&format!("corpus{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("blk00000.dat"), data).unwrap();
        (dir, format!("corpus{i}/blk00000.dat"))
    });
}

/// A hex file (one block per line) meets the same chain-order rules as a framed one; offsets
/// are those of its lines.
#[test]
fn hex_file_bad_inputs() {
    let c = chain(8);
    let fork = fork_from_3(&c);
    let line = |b: &[u8]| format!("{}\n", hex::encode(b)).into_bytes();
    let lines = |heights: Heights| heights.map(|i| line(&c[i])).collect::<Vec<_>>();
    let (h4, h5) = (shown(hash(&c[4])), shown(hash(&c[5])));
    let (hf5, hf6) = (shown(hash(&fork[1])), shown(hash(&fork[2])));
    let cases = [
        case(
            "a second copy of a block",
            [lines(0..=4), lines(4..=8)].concat(),
            0,
            note_at(5, second_copy(&h4)),
            8,
        ),
        case(
            "a block before its parent",
            [lines(0..=3), lines(5..=5), lines(4..=4), lines(6..=8)].concat(),
            3,
            error_at(4, before_parent(&h5, &h4, "hex")),
            3,
        ),
        case(
            "a fork that gains more work",
            [lines(0..=5), fork.iter().map(|b| line(b)).collect(), lines(6..=8)].concat(),
            3,
            error_at(8, fork_past_work(&hf6, &hf5, "hex")),
            5,
        ),
        case(
            "a line shorter than a header",
            [lines(0..=3), vec![line(&c[4][..40])], lines(4..=8)].concat(),
            3,
            error_at(4, "40 bytes is too short for a block".into()),
            3,
        ),
    ];
    let sc = scratch("hex");
    run_cases(&sc, "hex", &cases, |i, data| {
        let name = format!("case{i}.hex");
        std::fs::write(sc.path(&name), data).unwrap();
        (sc.path(&name), name)
    });
}

/// XORs `data`, which starts at byte 0 of its file, with `key`.
fn xored(mut data: Vec<u8>, key: &[u8; 8]) -> Vec<u8> {
    for (i, b) in data.iter_mut().enumerate() {
        *b ^= key[i % 8];
    }
    data
}

const KEY: [u8; 8] = [0x3c, 0x91, 0x07, 0xe2, 0x55, 0xaa, 0x18, 0x6f];

/// A blocks directory `name` holding `blk00000.dat` (obfuscated with [`KEY`]) and `xor.dat`.
fn blocks_dir(sc: &Scratch, name: &str, data: Vec<u8>) -> PathBuf {
    let dir = sc.path(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("blk00000.dat"), xored(data, &KEY)).unwrap();
    std::fs::write(dir.join("xor.dat"), KEY).unwrap();
    dir
}

#[test]
fn core_blocks_dir_bad_inputs() {
    let c = chain(8);
    let (big, fork) = (oversize(&c), fork_from_3(&c));
    let f = |range: Heights| frames(&c, range);
    let with = |before: Heights, mid: Vec<Vec<u8>>, after: Heights| with(&c, before, mid, after);
    let (h4, hf4, len8) = (shown(hash(&c[4])), shown(hash(&fork[0])), c[8].len());
    // A block whose parent is in no file: 5' on a 4' that is missing.
    let orphan = shown(hash(&fork[1]));
    let big0 = shown(hash(&big[0]));
    let skipped = |len: u32| {
        note_at(
            4,
            format!(
                "{}; skipped, and the scan goes on after its magic, as Core's importer does",
                unreadable(len)
            ),
        )
    };
    let cases = vec![
        case(
            "garbage between records",
            with(0..=3, vec![b"garbage!".to_vec()], 4..=8),
            0,
            note_at(
                4,
                "8 bytes that are not a block record skipped up to the next magic, as Core's importer does".into(),
            ),
            8,
        ),
        case("zero bytes between records (padding)", with(0..=3, vec![vec![0; 4096]], 4..=8), 0, quiet(), 8),
        case("record length 0", with(0..=3, vec![head(0)], 4..=8), 0, skipped(0), 8),
        case("record length 2 GiB", with(0..=3, vec![head(0x8000_0000)], 4..=8), 0, skipped(0x8000_0000), 8),
        case(
            "truncated last record",
            [f(0..=7), vec![frame(&c[8])[..8 + 100].to_vec()]].concat(),
            0,
            note_at(
                8,
                format!(
                    "a block record cut short by the end of the file (100 of {len8} bytes); ignored, as Core's \
                     importer ignores it"
                ),
            ),
            7,
        ),
        case(
            "truncated record header",
            [f(0..=8), vec![MAGIC[..].to_vec(), vec![1, 2]]].concat(),
            0,
            note_at(
                9,
                "a record header cut short by the end of the file (6 of 8 bytes); ignored, as Core's importer \
                 ignores it"
                    .into(),
            ),
            8,
        ),
        case(
            "a second copy of a block",
            [f(0..=8), vec![frame(&c[4])]].concat(),
            0,
            Box::new(move |file, at| {
                Some(format!(
                    "{file} at byte {}: a second copy of block {h4} (first at {file} byte {}); ignored, as Core \
                     ignores a block it already has",
                    at[9], at[4]
                ))
            }),
            8,
        ),
        case(
            "blocks out of order (kept aside until the parent comes)",
            [f(0..=3), f(8..=8), f(6..=7), f(5..=5), f(4..=4)].concat(),
            0,
            quiet(),
            8,
        ),
        case(
            "a block whose parent is not in the directory",
            [f(0..=8), vec![frame(&fork[1])]].concat(),
            0,
            note_at(
                9,
                format!(
                    "block {orphan} does not descend from the genesis block (a parent is missing from the \
                     directory; 1 such blocks in all); not replayed, as Core keeps such blocks aside"
                ),
            ),
            8,
        ),
        case(
            "a fork with less work",
            [f(0..=8), fork[..2].iter().map(|b| frame(b)).collect()].concat(),
            0,
            note_at(
                9,
                format!(
                    "block {hf4} starts a fork without the most work (2 blocks off the chain in all); not \
                     replayed, as Core keeps them off its active chain"
                ),
            ),
            8,
        ),
        case(
            "a block over 4,000,000 bytes on the most-work chain",
            with(0..=3, vec![frame(&big[0])], 5..=8),
            1,
            invalid_at_4(&big0, "bad-blk-length"),
            3,
        ),
    ];
    let sc = scratch("coredir");
    run_cases(&sc, "core-blocks", &cases, |i, data| {
        let name = format!("blocks{i}");
        (blocks_dir(&sc, &name, data), format!("{name}/blk00000.dat"))
    });
}

/// `xor.dat` must hold the 8-byte key: any other size is refused before a block is read (Core
/// reads exactly 8 bytes from it and stops at start-up when there are fewer).
/// A block whose script fails stops the run after the next block was read ahead (beside its
/// scripts, or by the crew's helper between blocks): the packet's count and digest of the
/// source cover the blocks taken, up to the failing one, and not the one read ahead; without
/// reading ahead they are the same.
#[test]
fn the_block_read_ahead_of_a_failing_one_is_not_counted_as_read() {
    let mut c = chain(104);
    let coinbase_1 = Block::from_bytes(&c[1]).unwrap().txdata[0].txid();
    let bad = mine(
        hash(&c[104]),
        105,
        Extra { failing_spend: Some(OutPoint { txid: coinbase_1, vout: 0 }), ..Extra::default() },
    );
    c.push(bad);
    let next = mine(hash(&c[105]), 106, Extra::default());
    c.push(next);
    let sc = scratch("read-ahead");
    let path = sc.path("chain.blk");
    std::fs::write(&path, file(&frames(&c, 0..=106)).0).unwrap();
    let taken: Vec<u8> = c[..=105].concat();
    for extra in [&[][..], &["--no-read-ahead"][..]] {
        let json = sc.path("run.json");
        let out = Command::new(BIN)
            .args(["--source", "framed", s(&path), "--network", "regtest", "--threads", "2", "--quiet"])
            .args(extra)
            .arg("--json")
            .arg(&json)
            .output()
            .expect("replay runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains("block-script-verify-flag-failed"), "{extra:?}: {err}");
        let p: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(p["state"]["height"], 104, "{extra:?}");
        assert_eq!(p["error"]["height"], 105, "{extra:?}");
        assert_eq!(p["source"]["blocks_read"], 106, "{extra:?}");
        assert_eq!(p["source"]["bytes_read"], taken.len(), "{extra:?}");
        assert_eq!(p["source"]["sha256"], hex::encode(fullverify::hash::sha256(&taken)), "{extra:?}");
        // Without reading ahead the crew's helper reads nothing between the scripts (with it,
        // whether it gets to a block before the main thread does depends on the scheduler).
        if !extra.is_empty() {
            assert_eq!(p["metrics"]["crew"]["idle_units"], 0, "{extra:?}");
        }
    }
}

#[test]
fn wrong_xor_dat_size_is_refused() {
    let c = chain(3);
    let (data, _) = file(&c.iter().map(|b| frame(b)).collect::<Vec<_>>());
    let sc = scratch("xor");
    for n in [0usize, 7, 9] {
        let dir = blocks_dir(&sc, &format!("blocks{n}"), data.clone());
        std::fs::write(dir.join("xor.dat"), &KEY.repeat(2)[..n]).unwrap();
        let ran = replay(&sc, &format!("xor{n}"), "core-blocks", &dir);
        assert_eq!(ran.code, Some(3), "{n}: {}", ran.stderr);
        assert_eq!(
            ran.stderr.trim_end(),
            format!("error: blocks{n}/xor.dat at byte 0: {n} bytes, expected an 8-byte key"),
            "{n}"
        );
        assert!(ran.packet.is_none(), "{n}: a run refused before it starts writes no packet");
    }
}
