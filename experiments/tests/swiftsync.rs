// SPDX-License-Identifier: MIT OR Apache-2.0
//! SwiftSync end to end: the hints file and the Core-shaped blocks directory a replay writes,
//! checked against a UTXO set recomputed here from the blocks; SwiftSync over them against the
//! sequential replay (count, total, MuHash) for 1, 2 and 3 workers and shuffled range orders;
//! tampered hints and undo records, each caught; an invalid tip reported as the sequential
//! replay reports it; the `replay` binary's `--mode swiftsync` and `--fallback sequential`.
//!
//! The `small` chaingen corpus is generated into `target/chaingen/` once; the mainnet 0–438 and
//! regtest 1–206 chains come from the external vectors and are skipped with a message when
//! absent (a failure under `FULLVERIFY_REQUIRE_VECTORS=1`).

mod common;

use common::small_corpus;
use fullverify::chain::Network;
use fullverify::chainstate::StateSummary;
use fullverify::encode::{Block, OutPoint};
use fullverify::swiftsync::Salt;
use fullverify::swiftsync::{counted_outputs, HintsFile, HintsWriter};
use fullverify::undo::{BlockUndo, RevFile, XorKey};
use fullverify::utxo::Coin;
use fullverify::validation::{CheckOptions, SigMode};
use fullverify_driver::blocksdir::BlocksWriter;
use fullverify_driver::replay::{open_source, run_chain, Failure, Settings, SourceKind, Store, WriteOut};
use fullverify_driver::source::CoreChain;
use fullverify_driver::swiftsync::{
    read_hints, run_swiftsync, validate_range, Bundle, RangeOrder, RangeResult, SwiftOutcome, SwiftPlan,
    SwiftSettings, MISMATCH,
};
use fullverify_experiments::chaingen::{Profile, DEFAULT_SEED};
use fullverify_testkit::{vector_file, Scratch};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_replay");

/// A scratch directory of this test binary (see [`Scratch`]).
fn scratch(name: &str) -> Scratch {
    Scratch::new("fv-swiftsync-test", name)
}

/// A replay of `kind` at `path` that writes the hints to `<out>/hints` and the blocks to
/// `<out>/blocks`; its state.
fn replay_writing(kind: SourceKind, path: &Path, network: Network, out: &Path) -> StateSummary {
    let mut s = Settings::new(network);
    s.chain.threads = 2;
    s.store = Store::Memory;
    s.write = WriteOut { hints: Some(out.join("hints")), blocks: Some(out.join("blocks")) };
    let o = run_chain(kind, path, &s, &mut ()).expect("the replay starts");
    assert!(o.failure.is_none(), "{:?}", o.failure);
    assert!(o.written.hints.is_some() && o.written.blocks.is_some());
    o.summary
}

/// The sequential replay of a Core blocks directory.
fn replay_dir(dir: &Path, network: Network) -> (StateSummary, Option<Failure>) {
    let mut s = Settings::new(network);
    s.chain.threads = 2;
    s.store = Store::Memory;
    let o = run_chain(SourceKind::CoreBlocks, dir, &s, &mut ()).expect("the replay starts");
    (o.summary, o.failure)
}

fn swift(
    dir: &Path,
    hints: &Path,
    network: Network,
    threads: usize,
    order: RangeOrder,
    per: Option<u32>,
) -> SwiftOutcome {
    let mut s = SwiftSettings::new(network);
    s.threads = threads;
    s.order = order;
    s.range_blocks = per;
    run_swiftsync(dir, hints, &s).expect("the swiftsync run starts")
}

/// The blocks of a chain source from genesis (the network's genesis first when it starts at 1).
fn blocks_of(kind: SourceKind, path: &Path, network: Network) -> Vec<Block> {
    let mut v: Vec<Block> = open_source(kind, path, network)
        .unwrap()
        .map(|r| Block::from_bytes(&r.unwrap().bytes).unwrap())
        .collect();
    if v[0].header.prev_block != [0; 32] {
        v.insert(0, network.params().genesis_block());
    }
    v
}

/// Recomputed here from the blocks alone: the coins each block spends (input order; none for
/// genesis) and the final set as `(height, hint index)` of every counted output still unspent.
fn recount(blocks: &[Block], network: Network) -> (Vec<Vec<Coin>>, BTreeSet<(u32, u32)>) {
    let mut set: HashMap<OutPoint, (Coin, u32)> = HashMap::new();
    let mut spent = Vec::new();
    for (h, b) in blocks.iter().enumerate() {
        let h = h as u32;
        let index: HashMap<(usize, u32), u32> =
            counted_outputs(b, network, h).map(|o| ((o.tx, o.vout), o.index)).collect();
        let mut coins = Vec::new();
        for (t, tx) in b.txdata.iter().enumerate() {
            if h == 0 {
                break;
            }
            if t > 0 {
                for inp in &tx.inputs {
                    coins.push(set.remove(&inp.prevout).expect("a valid chain spends known coins").0);
                }
            }
            let txid = tx.txid();
            for (vout, out) in tx.outputs.iter().enumerate() {
                if let Some(&i) = index.get(&(t, vout as u32)) {
                    let coin = Coin { out: out.clone(), height: h, coinbase: t == 0 };
                    set.insert(OutPoint { txid, vout: vout as u32 }, (coin, i));
                }
            }
        }
        spent.push(coins);
    }
    (spent, set.values().map(|(c, i)| (c.height, *i)).collect())
}

fn hinted(hints: &Path) -> BTreeSet<(u32, u32)> {
    let bytes = std::fs::read(hints).unwrap();
    let f = HintsFile::parse(&bytes).unwrap();
    f.validate().unwrap();
    f.blocks()
        .flat_map(|r| {
            let (h, b) = r.unwrap();
            b.to_vec().into_iter().map(move |i| (h, i))
        })
        .collect()
}

/// The spent coins of every block of a blocks directory from its rev files (none for genesis).
fn rev_coins(dir: &Path, network: Network) -> Vec<Vec<Coin>> {
    let p = network.params();
    let chain = CoreChain::open(dir, p).unwrap();
    let key = XorKey::read(dir).unwrap();
    let revs: Vec<RevFile> = (0..chain.files.len())
        .map(|i| RevFile::open(&dir.join(format!("rev{i:05}.dat")), p.magic, &key).unwrap())
        .collect();
    let mut out = Vec::new();
    let mut f = chain.open_file(0).unwrap();
    for (h, loc) in chain.blocks.iter().enumerate() {
        if h == 0 {
            out.push(Vec::new());
            continue;
        }
        f = if loc.file == chain.blocks[h - 1].file { f } else { chain.open_file(loc.file).unwrap() };
        let block = Block::from_bytes(&chain.read_block(&mut f, loc).unwrap()).unwrap();
        out.push(
            revs[loc.file].block_undo(&block, Some(h as u32)).unwrap().into_spent_coins(&block).unwrap(),
        );
    }
    out
}

fn same_state(a: &StateSummary, b: &StateSummary) {
    assert_eq!(
        (a.height, a.tip, a.utxo_count, a.total_amount),
        (b.height, b.tip, b.utxo_count, b.total_amount)
    );
    assert_eq!(a.muhash, b.muhash);
    assert!(a.muhash.is_some());
}

/// The small corpus replayed once with `--write-hints` and `--write-blocks`, shared by the tests.
fn small_written() -> &'static (PathBuf, StateSummary) {
    static W: OnceLock<(PathBuf, StateSummary)> = OnceLock::new();
    W.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("swiftsync-small");
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        let state = replay_writing(SourceKind::Corpus, &small_corpus(), Network::Regtest, &out);
        (out, state)
    })
}

#[test]
fn written_hints_mark_exactly_the_recounted_utxo_set() {
    let (out, state) = small_written();
    let blocks = blocks_of(SourceKind::Corpus, &small_corpus(), Network::Regtest);
    let (_, set) = recount(&blocks, Network::Regtest);
    let h = hinted(&out.join("hints"));
    assert_eq!(h.len() as u64, state.utxo_count);
    assert_eq!(h, set);
    let bytes = std::fs::read(out.join("hints")).unwrap();
    assert_eq!(HintsFile::parse(&bytes).unwrap().terminal_height(), 200);
}

#[test]
fn chaingen_writes_the_same_hints_bytes_as_the_replay() {
    let (out, _) = small_written();
    let mut quiet = ();
    let mut collect = fullverify_experiments::chaingen::CollectUnspent::new(&mut quiet);
    let spec = fullverify_experiments::chaingen::Spec::new(Profile::Small, DEFAULT_SEED);
    let corpus = fullverify_experiments::chaingen::generate_spec(&spec, 2, &mut collect);
    assert_eq!(collect.set.len() as u64, corpus.manifest.expected_state.utxo_count);
    let mut h =
        fullverify_experiments::chaingen::HintsOf::new(&collect.set, corpus.manifest.tip_height).unwrap();
    for b in &corpus.blocks {
        h.block(b).unwrap();
    }
    let bytes = h.finish().unwrap();
    assert_eq!(bytes, std::fs::read(out.join("hints")).unwrap());
    // One coin fewer in the generator's set: another file.
    let gone = *collect.set.iter().next().unwrap();
    collect.set.remove(&gone);
    let mut h =
        fullverify_experiments::chaingen::HintsOf::new(&collect.set, corpus.manifest.tip_height).unwrap();
    for b in &corpus.blocks {
        h.block(b).unwrap();
    }
    assert_ne!(h.finish().unwrap(), bytes);
    let short =
        fullverify_experiments::chaingen::HintsOf::new(&collect.set, corpus.manifest.tip_height).unwrap();
    assert!(short.finish().unwrap_err().contains("the tip is at 200"));
}

#[test]
fn written_blocks_replay_to_the_same_state_and_their_undo_is_the_spent_coins() {
    let (out, state) = small_written();
    let dir = out.join("blocks");
    assert!(dir.join("xor.dat").exists() && dir.join("rev00000.dat").exists());
    let (again, failure) = replay_dir(&dir, Network::Regtest);
    assert!(failure.is_none(), "{failure:?}");
    same_state(&again, state);
    let blocks = blocks_of(SourceKind::Corpus, &small_corpus(), Network::Regtest);
    let (spent, _) = recount(&blocks, Network::Regtest);
    assert_eq!(rev_coins(&dir, Network::Regtest), spent);
}

/// The `CBlockUndo` bytes and checksum of every record of the rev files of `dir`, in file order.
fn rev_records(dir: &Path) -> Vec<(Vec<u8>, [u8; 32])> {
    let (magic, key) = (Network::Regtest.params().magic, XorKey::read(dir).unwrap());
    let files = (0..).map(|i| dir.join(format!("rev{i:05}.dat"))).take_while(|f| f.exists());
    files
        .flat_map(|f| RevFile::open(&f, magic, &key).unwrap().records)
        .map(|r| (r.undo().to_vec(), r.checksum))
        .collect()
}

/// chaingen writes each block's undo record beside it, the same records as the replay writes
/// for the same blocks; SwiftSync (and the `replay` binary, against the manifest) reads the
/// corpus directly, the network's genesis block in front; a corpus without its rev file is
/// refused before any block.
#[test]
fn the_corpus_carries_the_replays_undo_records_and_swiftsync_reads_it_directly() {
    let (out, state) = small_written();
    let (corpus, hints) = (small_corpus(), out.join("hints"));
    let ours = rev_records(&corpus);
    assert_eq!(ours.len(), 200);
    assert!(ours == rev_records(&out.join("blocks")), "chaingen's undo records differ from the replay's");
    assert_eq!(rev_coins(&corpus, Network::Regtest), rev_coins(&out.join("blocks"), Network::Regtest));
    for (threads, order, per) in [(1, RangeOrder::Ascending, None), (3, RangeOrder::Shuffled(5), Some(13))] {
        let o = swift(&corpus, &hints, Network::Regtest, threads, order, per);
        assert!(o.failure.is_none(), "{threads} workers: {:?}", o.failure);
        same_state(o.summary.as_ref().unwrap(), state);
        assert_eq!((o.source_kind, o.inputs()), ("corpus", 24_659));
        assert_eq!(o.ranges.iter().map(|r| r.counts.blocks).sum::<u64>(), 201);
    }
    let (c, h) = (corpus.to_str().unwrap(), hints.to_str().unwrap());
    let (code, err, p) =
        run_bin(&["--mode", "swiftsync", "--source", "corpus", c, "--hints", h, "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("final state equals the manifest"), "{err}");
    assert_eq!((&p["source"]["kind"], &p["params"]["source_kind"]), (&"corpus".into(), &"corpus".into()));
    assert_eq!(p["corpus"]["state_matches_manifest"], true);
    assert_eq!(p["state"]["muhash"].as_str(), state.muhash.as_deref());
    assert_swiftsync_schema(&p);
    // The blocks without their undo data (a corpus of format 1).
    let sc = scratch("corpus-without-undo");
    for f in ["blk00000.dat", "manifest.json"] {
        std::fs::copy(corpus.join(f), sc.path(f)).unwrap();
    }
    let err =
        run_swiftsync(sc.dir(), &hints, &SwiftSettings::new(Network::Regtest)).err().unwrap().to_string();
    assert!(err.contains("rev00000.dat: not found"), "{err}");
}

#[test]
fn blocks_writer_splits_files_and_the_directory_reads_back() {
    let sc = scratch("split");
    let blocks = blocks_of(SourceKind::Corpus, &small_corpus(), Network::Regtest);
    let (spent, _) = recount(&blocks, Network::Regtest);
    let raw = |b: &Block| fullverify_driver::replay::block_bytes(b);
    let dir = sc.path("blocks");
    let p = Network::Regtest.params();
    let mut w =
        BlocksWriter::with_file_limit(&dir, p.magic, XorKey(*b"\x01\x23\x45\x67\x89\xab\xcd\xef"), 1 << 20)
            .unwrap();
    for (h, b) in blocks.iter().enumerate() {
        let undo = (h > 0).then(|| BlockUndo::from_spent(b, &spent[h]).unwrap());
        w.block(&raw(b), undo.as_ref()).unwrap();
    }
    w.finish().unwrap();
    assert!(dir.join("blk00005.dat").exists() && dir.join("rev00005.dat").exists());
    assert_eq!(rev_coins(&dir, Network::Regtest), spent);
    let (state, failure) = replay_dir(&dir, Network::Regtest);
    assert!(failure.is_none());
    let (_, written) = small_written();
    same_state(&state, written);
    // SwiftSync matches each block with its record in the rev file of its blk file, here and
    // in the bundles a client sends to workers that do not see the directory.
    let (out, _) = small_written();
    let o = swift(&dir, &out.join("hints"), Network::Regtest, 2, RangeOrder::Shuffled(3), Some(9));
    assert!(o.failure.is_none(), "{:?}", o.failure);
    same_state(o.summary.as_ref().unwrap(), written);
    let o = through_bytes(&dir, &out.join("hints"), &dir, true, Some(9));
    assert!(o.failure.is_none(), "{:?}", o.failure);
    same_state(o.summary.as_ref().unwrap(), written);
}

/// Regtest checks on one thread with the detected backend, signatures inline.
fn inline_opts() -> CheckOptions {
    CheckOptions {
        network: Network::Regtest,
        threads: 1,
        backend: fullverify::Backend::detect(),
        sig_mode: SigMode::Inline,
    }
}

/// A run as workers in other processes do it: the plan made here and read back from its bytes
/// with the blocks directory at `view` (or, `bundled`, with no directory and each range's
/// blocks sent as a bundle's bytes), the ranges in reverse, each result through its bytes, then
/// the merge.
fn through_bytes(dir: &Path, hints: &Path, view: &Path, bundled: bool, per: Option<u32>) -> SwiftOutcome {
    let t = std::time::Instant::now();
    let plan = SwiftPlan::open(dir, Network::Regtest, None).unwrap();
    let hint_bytes = read_hints(hints, &plan).unwrap();
    let parsed = HintsFile::parse(&hint_bytes).unwrap();
    let worker = SwiftPlan::from_bytes(&plan.to_bytes(), (!bundled).then_some(view)).unwrap();
    assert_eq!(worker.chain.blocks.len(), plan.chain.blocks.len());
    let salt = Salt::from_bytes([0x5a; 32]);
    let opts = inline_opts();
    let mut results = Vec::new();
    for (taken, &(a, b)) in plan.ranges(per, 2).iter().rev().enumerate() {
        let bundle = bundled.then(|| {
            let bytes = Bundle::read(&plan.chain, plan.undo_files(), a, b).unwrap().to_bytes();
            Bundle::from_bytes(&bytes).unwrap()
        });
        let r = validate_range(&worker, &parsed, &salt, opts, bundle.as_ref(), a, b).unwrap();
        let bytes = r.to_bytes();
        let back = RangeResult::from_bytes(&bytes, &salt).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        results.push((taken, back));
    }
    let mut o = SwiftOutcome::started(&plan, hints, hint_bytes.len() as u64, 2);
    o.merge(&plan, &salt, results);
    o.finished(t)
}

/// A rev file is read while a range is at its blocks, shared by the ranges there, let go when
/// the last of them moves on and read again when a later range needs it; a whole run leaves
/// none held.
#[test]
fn rev_files_are_held_while_a_range_needs_them_and_let_go_after() {
    let (out, state) = small_written();
    let plan = SwiftPlan::open(&out.join("blocks"), Network::Regtest, None).unwrap();
    let undo = plan.undo_files();
    assert_eq!((undo.resident(), undo.bytes_read()), (0, 0));
    let a = undo.hold(0);
    assert_eq!(undo.candidates(&plan.chain, 5).unwrap().len(), 1);
    let once = undo.bytes_read();
    let mut b = None;
    undo.hold_for(&mut b, 15);
    drop(a);
    assert_eq!(undo.candidates(&plan.chain, 15).unwrap().len(), 1);
    assert_eq!((undo.resident(), undo.bytes_read()), (1, once));
    drop(b);
    assert_eq!(undo.resident(), 0);
    {
        let _c = undo.hold(0);
        undo.candidates(&plan.chain, 1).unwrap();
        assert_eq!((undo.resident(), undo.bytes_read()), (1, 2 * once));
    }
    let hints = read_hints(&out.join("hints"), &plan).unwrap();
    let parsed = HintsFile::parse(&hints).unwrap();
    let salt = Salt::from_bytes([7; 32]);
    let r = validate_range(&plan, &parsed, &salt, inline_opts(), None, 0, plan.tip_height()).unwrap();
    assert_eq!((undo.resident(), r.set.count), (0, state.utxo_count));
}

#[test]
fn plans_bundles_and_range_results_through_bytes_give_the_threads_engines_state() {
    let (out, state) = small_written();
    let (dir, hints) = (out.join("blocks"), out.join("hints"));
    let sc = scratch("wire");
    // The workers' view of the directory: another path to the same files.
    let view = sc.path("view");
    std::os::unix::fs::symlink(&dir, &view).unwrap();
    let threads = swift(&dir, &hints, Network::Regtest, 2, RangeOrder::Ascending, Some(11));
    for bundled in [false, true] {
        let o = through_bytes(&dir, &hints, &view, bundled, Some(11));
        assert!(o.failure.is_none(), "bundled {bundled}: {:?}", o.failure);
        assert_eq!(o.balanced, Some(true));
        same_state(o.summary.as_ref().unwrap(), state);
        assert_eq!(o.inputs(), threads.inputs());
        assert_eq!(o.bytes.0, threads.bytes.0, "block bytes");
        assert_eq!(o.bytes.1, threads.bytes.1, "undo bytes");
        assert!(o.bytes.1 > 0);
    }
    // A plan read with no directory and no bundle cannot validate; a range outside the chain
    // and a bundle of other heights are refused.
    let plan = SwiftPlan::open(&dir, Network::Regtest, None).unwrap();
    let bytes = plan.to_bytes();
    let hint_bytes = std::fs::read(&hints).unwrap();
    let parsed = HintsFile::parse(&hint_bytes).unwrap();
    let salt = Salt::from_bytes([1; 32]);
    let opts = inline_opts();
    let bare = SwiftPlan::from_bytes(&bytes, None).unwrap();
    let e = validate_range(&bare, &parsed, &salt, opts, None, 0, 5).unwrap_err();
    assert!(e.contains("needs a bundle"), "{e}");
    let e = validate_range(&plan, &parsed, &salt, opts, None, 190, 201).unwrap_err();
    assert!(e.contains("not within the chain's heights 0..=200"), "{e}");
    let other = Bundle::read(&plan.chain, plan.undo_files(), 10, 19).unwrap();
    let e = validate_range(&bare, &parsed, &salt, opts, Some(&other), 20, 29).unwrap_err();
    assert!(e.contains("not of heights 20..=29"), "{e}");
    // Results missing a range, or under another salt, give no state.
    let r = |a, b, salt: &Salt| validate_range(&plan, &parsed, salt, opts, None, a, b).unwrap();
    let mut o = SwiftOutcome::started(&plan, &hints, 0, 1);
    o.merge(&plan, &salt, vec![(0, r(0, 99, &salt))]);
    assert!(
        matches!(&o.failure, Some(Failure::Source(m)) if m.contains("no result for heights 100..=200")),
        "{:?}",
        o.failure
    );
    assert!(o.summary.is_none());
    let mut o = SwiftOutcome::started(&plan, &hints, 0, 1);
    let other_salt = Salt::from_bytes([2; 32]);
    let moved = RangeResult::from_bytes(&r(100, 200, &other_salt).to_bytes(), &salt).unwrap();
    o.merge(&plan, &salt, vec![(0, r(0, 99, &salt)), (1, moved)]);
    assert!(matches!(o.failure, Some(Failure::Mismatch(_))), "{:?}", o.failure);
    assert!(o.summary.is_none());
    // Corrupt bytes are errors, never a plan or a result.
    for cut in [0, 8, 9, bytes.len() / 2, bytes.len() - 1] {
        assert!(SwiftPlan::from_bytes(&bytes[..cut], Some(&dir)).is_err(), "plan cut at {cut}");
    }
    let mut wrong = bytes.clone();
    let last_header = wrong.len() - 80 + 4;
    wrong[last_header] ^= 1;
    let e = SwiftPlan::from_bytes(&wrong, Some(&dir)).err().unwrap();
    assert!(e.contains("does not follow header"), "{e}");
    let res = r(0, 9, &salt).to_bytes();
    for cut in [0, 9, res.len() / 2, res.len() - 1] {
        assert!(RangeResult::from_bytes(&res[..cut], &salt).is_err(), "result cut at {cut}");
    }
}

#[test]
fn swiftsync_vs_sequential_on_small_for_1_2_3_workers_and_shuffled_ranges() {
    let (out, state) = small_written();
    let (dir, hints) = (out.join("blocks"), out.join("hints"));
    for threads in [1, 2, 3] {
        for (order, per) in [
            (RangeOrder::Ascending, None),
            (RangeOrder::Shuffled(threads as u64), Some(7)),
            (RangeOrder::Shuffled(99), Some(1)),
        ] {
            let o = swift(&dir, &hints, Network::Regtest, threads, order, per);
            assert!(o.failure.is_none(), "{threads} workers, {order:?}: {:?}", o.failure);
            assert_eq!(o.balanced, Some(true));
            same_state(o.summary.as_ref().unwrap(), state);
            assert_eq!(o.ranges.iter().map(|r| r.counts.blocks).sum::<u64>(), 201);
            assert_eq!(o.inputs(), 24_659);
            if let Some(p) = per {
                assert_eq!(o.ranges.len(), 201usize.div_ceil(p as usize));
            }
        }
    }
}

fn vector_chain(kind: SourceKind, rel: &str, network: Network, name: &str) {
    let Some(file) = vector_file(rel) else { return };
    let sc = scratch(name);
    let state = replay_writing(kind, &file, network, sc.dir());
    let blocks = blocks_of(kind, &file, network);
    let (spent, set) = recount(&blocks, network);
    assert_eq!(hinted(&sc.path("hints")), set);
    assert_eq!(rev_coins(&sc.path("blocks"), network), spent);
    for threads in [1, 2, 3] {
        let o =
            swift(&sc.path("blocks"), &sc.path("hints"), network, threads, RangeOrder::Shuffled(7), Some(5));
        assert!(o.failure.is_none(), "{:?}", o.failure);
        same_state(o.summary.as_ref().unwrap(), &state);
    }
}

#[test]
fn swiftsync_vs_sequential_on_mainnet_0_438() {
    vector_chain(SourceKind::Framed, "chain/mainnet_0-438.blk.dat", Network::Mainnet, "m438");
}

#[test]
fn swiftsync_vs_sequential_on_regtest_1_206() {
    vector_chain(SourceKind::Hex, "chain/regtest_1-206.blocks.hex.txt", Network::Regtest, "r206");
}

/// Copies the small corpus's written blocks directory into `dst`.
fn copy_blocks(dst: &Path) {
    let (out, _) = small_written();
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(out.join("blocks")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
}

/// Rewrites the rev file of a one-file blocks directory after `change` edited its records
/// (`undos[h]` of the block at height h; re-checksummed with the block's parent, as anyone who
/// serves undo data can).
fn rewrite_undo(dir: &Path, change: impl FnOnce(&mut [Option<BlockUndo>], &[Block])) {
    let p = Network::Regtest.params();
    let chain = CoreChain::open(dir, p).unwrap();
    let key = XorKey::read(dir).unwrap();
    let rev = RevFile::open(&dir.join("rev00000.dat"), p.magic, &key).unwrap();
    let mut f = chain.open_file(0).unwrap();
    let blocks: Vec<Block> = chain
        .blocks
        .iter()
        .map(|l| Block::from_bytes(&chain.read_block(&mut f, l).unwrap()).unwrap())
        .collect();
    let mut undos: Vec<Option<BlockUndo>> =
        blocks.iter().enumerate().map(|(h, b)| (h > 0).then(|| rev.block_undo(b, None).unwrap())).collect();
    change(&mut undos, &blocks);
    let mut w = fullverify::undo::RevWriter::new(Vec::new(), p.magic, key, 0);
    for (b, u) in blocks.iter().zip(&undos) {
        if let Some(u) = u {
            w.append(&b.header.prev_block, u).unwrap();
        }
    }
    std::fs::write(dir.join("rev00000.dat"), w.into_inner().unwrap()).unwrap();
}

/// A height past the coinbase era whose block has two transactions with two coins or more.
fn busy_height(blocks: &[Block]) -> usize {
    (101..blocks.len())
        .find(|&h| blocks[h].txdata.iter().skip(1).filter(|t| t.inputs.len() >= 2).count() >= 2)
        .expect("a busy block")
}

/// The first coin of the first transaction with two coins or more in `undos[h]`.
fn first_coin(undos: &mut [Option<BlockUndo>], h: usize) -> &mut Coin {
    let tx = undos[h].as_mut().unwrap().txs.iter_mut().find(|t| t.coins.len() >= 2).unwrap();
    &mut tx.coins[0]
}

/// The run must end in the mismatch or a per-block reason, never in a state.
fn assert_caught(dir: &Path, hints: &Path, what: &str) -> String {
    let o = swift(dir, hints, Network::Regtest, 2, RangeOrder::Shuffled(5), None);
    assert!(o.summary.is_none(), "{what}: a final state despite the tampering");
    match &o.failure {
        Some(Failure::Mismatch(_)) => {
            assert_eq!(o.balanced, Some(false), "{what}");
            MISMATCH.to_string()
        }
        Some(Failure::Invalid { error, .. }) => {
            assert_eq!(o.balanced, Some(true), "{what}");
            error.reason.clone()
        }
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn tampered_undo_records_are_caught() {
    let (out, _) = small_written();
    let hints = out.join("hints");
    type Change = Box<dyn Fn(&mut [Option<BlockUndo>], usize)>;
    let cases: Vec<(&str, Change)> = vec![
        ("amount", Box::new(|u, h| first_coin(u, h).out.value += 1)),
        ("script", Box::new(|u, h| *first_coin(u, h).out.script_pubkey.last_mut().unwrap() ^= 1)),
        ("height", Box::new(|u, h| first_coin(u, h).height -= 1)),
        ("coinbase flag", Box::new(|u, h| first_coin(u, h).coinbase ^= true)),
        (
            "coin dropped",
            Box::new(|u, h| {
                let tx = u[h].as_mut().unwrap().txs.iter_mut().find(|t| t.coins.len() >= 2).unwrap();
                tx.coins.remove(0);
            }),
        ),
        (
            "coin duplicated",
            Box::new(|u, h| {
                let tx = u[h].as_mut().unwrap().txs.iter_mut().find(|t| t.coins.len() >= 2).unwrap();
                tx.coins[1] = tx.coins[0].clone();
            }),
        ),
        (
            "two coins swapped between transactions",
            Box::new(|u, h| {
                let txs = &mut u[h].as_mut().unwrap().txs;
                let (a, b) = txs.split_at_mut(1);
                std::mem::swap(&mut a[0].coins[0], &mut b[0].coins[0]);
            }),
        ),
        ("another block's record", Box::new(|u, h| u[h] = u[h + 1].clone())),
    ];
    for (i, (what, change)) in cases.into_iter().enumerate() {
        let sc = scratch(&format!("undo{i}"));
        let dir = sc.path("blocks");
        copy_blocks(&dir);
        rewrite_undo(&dir, |u, blocks| change(u, busy_height(blocks)));
        let reason = assert_caught(&dir, &hints, what);
        eprintln!("{what}: {reason}");
    }
}

#[test]
fn corrupt_undo_bytes_and_flipped_hints_are_caught() {
    let (out, state) = small_written();
    // A byte of a record changed in the file: no record's checksum matches the block.
    let sc = scratch("flip");
    let dir = sc.path("blocks");
    copy_blocks(&dir);
    let rev = dir.join("rev00000.dat");
    let mut b = std::fs::read(&rev).unwrap();
    let n = b.len();
    b[n / 2] ^= 0x10;
    std::fs::write(&rev, b).unwrap();
    assert_eq!(assert_caught(&dir, &out.join("hints"), "a rev byte"), MISMATCH);
    // One hint bit flipped either way: an unspent output called spent, a spent one unspent.
    let bytes = std::fs::read(out.join("hints")).unwrap();
    let f = HintsFile::parse(&bytes).unwrap();
    let blocks = blocks_of(SourceKind::Corpus, &small_corpus(), Network::Regtest);
    let h = busy_height(&blocks) as u32;
    let counted = counted_outputs(&blocks[h as usize], Network::Regtest, h).count() as u32;
    let listed = f.block(h).unwrap().to_vec();
    let spent_one = (0..counted).find(|i| !listed.contains(i)).expect("a spent output");
    for (k, flip) in [listed[0], spent_one].into_iter().enumerate() {
        let mut w = HintsWriter::new(Vec::new(), f.terminal_height()).unwrap();
        for (height, r) in f.blocks().map(|r| r.unwrap()) {
            let mut v = r.to_vec();
            if height == h {
                match v.iter().position(|&i| i == flip) {
                    Some(p) => drop(v.remove(p)),
                    None => v.push(flip),
                }
                v.sort_unstable();
            }
            w.push(&v).unwrap();
        }
        let path = sc.path(&format!("hints{k}"));
        std::fs::write(&path, w.finish().unwrap()).unwrap();
        assert_eq!(assert_caught(&out.join("blocks"), &path, "a hint bit"), MISMATCH);
    }
    // The untouched inputs still give the state.
    let o = swift(&out.join("blocks"), &out.join("hints"), Network::Regtest, 2, RangeOrder::Ascending, None);
    same_state(o.summary.as_ref().unwrap(), state);
}

/// The small corpus's blocks directory copied to `dir` with its tip (block 200) replaced by
/// `change` applied to it; the tip's record is rewritten in place at the end of its blk file
/// (the rev file is untouched: the tip's parent, and so its undo record's checksum, are the
/// same).
fn with_mutated_tip(dir: &Path, change: impl FnOnce(&mut Block)) {
    copy_blocks(dir);
    let p = Network::Regtest.params();
    let chain = CoreChain::open(dir, p).unwrap();
    let loc = chain.blocks.last().unwrap().clone();
    let mut f = chain.open_file(loc.file).unwrap();
    let mut block = Block::from_bytes(&chain.read_block(&mut f, &loc).unwrap()).unwrap();
    change(&mut block);
    let raw = fullverify_driver::replay::block_bytes(&block);
    let path = &chain.files[loc.file];
    let mut bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len(), loc.offset as usize + loc.len as usize, "the tip is the file's last record");
    bytes.truncate(loc.offset as usize - 8);
    let mut record = p.magic.to_vec();
    record.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    record.extend_from_slice(&raw);
    fullverify_driver::source::xor_at(&mut record, loc.offset - 8, &chain.key);
    bytes.extend_from_slice(&record);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn invalid_tips_are_rejected_as_the_sequential_replay_rejects_them() {
    use fullverify_testkit::{mine, remine};
    let (out, _) = small_written();
    let hints = out.join("hints");
    // (what, the mutation, whether the block keeps its inputs: otherwise its undo record cannot
    // fit it, and the run ends in the mismatch while the sequential replay names the rule).
    type Mutation = Box<dyn Fn(&mut Block)>;
    let cases: Vec<(&str, Mutation, bool)> = vec![
        (
            "coinbase pays one satoshi too much",
            Box::new(|b| {
                b.txdata[0].outputs[0].value += 1;
                remine(b, false);
            }),
            true,
        ),
        (
            "merkle root not the transactions'",
            Box::new(|b| {
                b.header.merkle_root[0] ^= 1;
                mine(b);
            }),
            true,
        ),
        (
            "BIP34 height push of another height",
            Box::new(|b| {
                let sig = &mut b.txdata[0].inputs[0].script_sig;
                sig[1] ^= 1;
                remine(b, true);
            }),
            true,
        ),
        (
            "a transaction pays out more than it spends",
            Box::new(|b| {
                b.txdata[1].outputs[0].value += 50_000_000_000;
                remine(b, true);
            }),
            true,
        ),
        (
            "a signature byte changed",
            Box::new(|b| {
                let tx = &mut b.txdata[1];
                match tx.inputs[0].witness.first_mut() {
                    Some(w) if w.len() > 8 => w[5] ^= 1,
                    _ => tx.inputs[0].script_sig[5] ^= 1,
                }
                remine(b, true);
            }),
            true,
        ),
        (
            "nBits of another target",
            Box::new(|b| {
                b.header.bits -= 1;
                mine(b);
            }),
            true,
        ),
        (
            "the witness commitment left stale",
            Box::new(|b| {
                b.txdata[1].inputs[0].witness.push(vec![0x01]);
                remine(b, false);
            }),
            true,
        ),
        (
            "a transaction repeated",
            Box::new(|b| {
                let t = b.txdata[1].clone();
                b.txdata.push(t);
                remine(b, true);
            }),
            false,
        ),
        (
            "an input repeated within a transaction",
            Box::new(|b| {
                let i = b.txdata[1].inputs[0].clone();
                b.txdata[1].inputs.push(i);
                remine(b, true);
            }),
            false,
        ),
    ];
    for (k, (what, change, keeps_inputs)) in cases.into_iter().enumerate() {
        let sc = scratch(&format!("badtip{k}"));
        let dir = sc.path("blocks");
        with_mutated_tip(&dir, change);
        let (_, seq) = replay_dir(&dir, Network::Regtest);
        let Some(Failure::Invalid { error: want, .. }) = seq else { panic!("{what}: sequential {seq:?}") };
        assert_eq!(want.height, 200, "{what}");
        for threads in [1, 3] {
            let o = swift(&dir, &hints, Network::Regtest, threads, RangeOrder::Shuffled(k as u64), Some(4));
            assert!(o.summary.is_none(), "{what}: a final state");
            match (&o.failure, keeps_inputs) {
                (Some(Failure::Invalid { error, .. }), true) => assert_eq!(**error, *want, "{what}"),
                (Some(Failure::Mismatch(detail)), false) => {
                    assert!(detail.contains("block 200"), "{what}: {detail}")
                }
                (other, _) => panic!("{what} ({}): {other:?}", want.reason),
            }
        }
        let swift_says = if keeps_inputs { "the same" } else { "the mismatch" };
        eprintln!("{what}: sequential {}; swiftsync {swift_says}", want.reason);
    }
}

fn run_bin(args: &[&str]) -> (i32, String, serde_json::Value) {
    let sc = scratch(&format!("bin{}", args.len()));
    let json = sc.path("p.json");
    let o = Command::new(BIN).args(args).arg("--json").arg(&json).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let p = std::fs::read_to_string(&json).map(|t| serde_json::from_str(&t).unwrap()).unwrap_or_default();
    (o.status.code().unwrap_or(-1), stderr, p)
}

/// `p` is valid against `results/schema/swiftsync.schema.json`.
fn assert_swiftsync_schema(p: &serde_json::Value) {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/schema/swiftsync.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(p).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn replay_binary_mode_swiftsync_and_fallback() {
    let (out, state) = small_written();
    let (dir, hints) = (out.join("blocks"), out.join("hints"));
    let (d, h) = (dir.to_str().unwrap(), hints.to_str().unwrap());
    let base =
        ["--mode", "swiftsync", "--source", "core-blocks", d, "--network", "regtest", "--threads", "2"];
    let (code, err, p) = run_bin(&[&base[..], &["--hints", h]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(p["experiment"], "swiftsync");
    assert_eq!(p["params"]["mode"], "swiftsync");
    assert_eq!(p["state"]["muhash"].as_str(), state.muhash.as_deref());
    assert_eq!(p["state"]["utxo_count"], state.utxo_count);
    assert_eq!(p["aggregate"]["balanced"], true);
    assert!(p["ranges"].as_array().unwrap().len() > 2);
    assert_swiftsync_schema(&p);
    // Hints of another chain state: the mismatch, exit code 1; with the fallback, the
    // sequential replay runs and succeeds.
    let sc = scratch("binhints");
    let bytes = std::fs::read(&hints).unwrap();
    let f = HintsFile::parse(&bytes).unwrap();
    let at = (101..=f.terminal_height()).find(|&h| !f.block(h).unwrap().is_empty()).unwrap();
    let mut w = HintsWriter::new(Vec::new(), f.terminal_height()).unwrap();
    for (height, r) in f.blocks().map(|r| r.unwrap()) {
        let v = r.to_vec();
        w.push(if height == at { &v[1..] } else { &v }).unwrap();
    }
    let bad = sc.path("hints");
    std::fs::write(&bad, w.finish().unwrap()).unwrap();
    let b = bad.to_str().unwrap();
    let (code, err, p) = run_bin(&[&base[..], &["--hints", b, "--quiet"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(MISMATCH), "{err}");
    assert!(p["state"].is_null());
    assert_eq!(p["error"]["kind"], "swiftsync-mismatch");
    let (code, err, p) =
        run_bin(&[&base[..], &["--hints", b, "--fallback", "sequential", "--quiet"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(p["fallback"]["ran"], true);
    // Usage: swiftsync needs --hints and a core-blocks source.
    let (code, err, _) =
        run_bin(&["--mode", "swiftsync", "--source", "core-blocks", d, "--network", "regtest"]);
    assert_eq!(code, 2, "{err}");
}

/// Given the chain's median times past, a block is checked for lock-time finality against its
/// parent's MTP (as the chain state does); without them the time-based lock is not checked.
#[test]
fn chain_context_checks_lock_time_finality_against_the_parents_mtp() {
    use fullverify::encode::{Transaction, TxIn, TxOut};
    use fullverify::validation::{
        bip34_height_push, check_decoded_block_in_chain, check_decoded_block_with_spent, ChainContext,
        CheckOptions,
    };
    let p = Network::Regtest.params();
    let genesis = p.genesis_block();
    let mtp0 = i64::from(genesis.header.time);
    let block_at = |lock_time: u32| {
        let mut script_sig = bip34_height_push(1);
        script_sig.push(0x51);
        let coinbase = Transaction {
            version: 1,
            inputs: vec![TxIn {
                prevout: OutPoint { txid: [0; 32], vout: u32::MAX },
                script_sig,
                sequence: 0xffff_fffe,
                witness: Vec::new(),
            }],
            outputs: vec![TxOut { value: 50_0000_0000, script_pubkey: vec![0x51] }],
            lock_time,
        };
        let mut b = Block { header: genesis.header, txdata: vec![coinbase] };
        b.header.version = 4;
        b.header.prev_block = genesis.block_hash();
        b.header.time = genesis.header.time + 600;
        b.header.merkle_root = fullverify::hash::merkle_root(&[b.txdata[0].txid()]).root;
        while !fullverify::chain::check_proof_of_work(&b.block_hash(), b.header.bits, p) {
            b.header.nonce += 1;
        }
        b
    };
    let opts = CheckOptions::new(Network::Regtest, 1, fullverify::Backend::detect());
    let mtp = |h: u32| {
        assert_eq!(h, 0, "only the parent's MTP is asked for");
        mtp0
    };
    let chain = ChainContext { mtp: &mtp };
    // Locked until one second after the parent's MTP: not final in the chain.
    let late = block_at(mtp0 as u32 + 1);
    check_decoded_block_with_spent(&late, &[], 1, &opts).expect("no time lock is checked without the chain");
    let e = check_decoded_block_in_chain(&late, None, &[], 1, &opts, chain).unwrap_err();
    assert_eq!((e.reason.as_str(), e.tx.map(|t| t.0)), ("bad-txns-nonfinal", Some(0)));
    // Locked until one second before it: final.
    let early = block_at(mtp0 as u32 - 1);
    check_decoded_block_in_chain(&early, None, &[], 1, &opts, chain).expect("final");
}
