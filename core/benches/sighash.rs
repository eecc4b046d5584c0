// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sighash cost per input against rust-bitcoin's `SighashCache`, and whole-block script
//! verification of mainnet 866342 against libbitcoinconsensus (Core 26).
//!
//! - `bip143/<impl>/<shape>` and `bip341/<impl>/<shape>`: all inputs' sighashes of one
//!   transaction, context construction included (ours: `TxContext::new`; rust-bitcoin:
//!   `SighashCache::new`); throughput is per input. Shapes `<inputs>x<outputs>`: 1x2, 100x5,
//!   1372x100, 2x3000.
//! - `block866342/<impl>`: every input of the block, one thread. Ours uses `verify_input`
//!   with signatures checked by libsecp256k1 (`fullverify+libsecp256k1`) or by fullverify's own
//!   secp256k1 layer (`fullverify+native`); libbitcoinconsensus re-parses the transaction and
//!   rebuilds its precomputed data on every call (its API takes one input at a time).

use fullverify_testkit as common;

use bitcoin::hashes::Hash;
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
use fullverify::sighash::TxContext;
use std::hint::black_box;
use std::time::Duration;

fn shape(n_in: usize, n_out: usize, taproot: bool) -> (Transaction, Vec<TxOut>) {
    let mut rng = fullverify_testkit::SplitMix64(n_in as u64 * 31 + n_out as u64);
    let tx = Transaction {
        version: 2,
        inputs: (0..n_in)
            .map(|i| TxIn {
                prevout: OutPoint { txid: rng.bytes32(), vout: i as u32 % 3 },
                script_sig: vec![],
                sequence: 0xffff_fffd,
                witness: vec![],
            })
            .collect(),
        outputs: (0..n_out)
            .map(|i| TxOut {
                value: 10_000 + i as i64,
                script_pubkey: [&[0x00, 20][..], &rng.bytes32()[..20]].concat(),
            })
            .collect(),
        lock_time: 0,
    };
    let spent = (0..n_in)
        .map(|i| {
            let spk = if taproot {
                [&[0x51, 32][..], &rng.bytes32()].concat()
            } else {
                [&[0x00, 20][..], &rng.bytes32()[..20]].concat()
            };
            TxOut { value: 50_000 + i as i64, script_pubkey: spk }
        })
        .collect();
    (tx, spent)
}

/// The same transaction and spent outputs as rust-bitcoin's types.
fn to_rb(tx: &Transaction, spent: &[TxOut]) -> (bitcoin::Transaction, Vec<bitcoin::TxOut>) {
    let rtx = bitcoin::consensus::deserialize(&tx.to_bytes(true)).expect("same encoding");
    let rspent = spent
        .iter()
        .map(|o| bitcoin::TxOut {
            value: bitcoin::Amount::from_sat(o.value as u64),
            script_pubkey: bitcoin::ScriptBuf::from_bytes(o.script_pubkey.clone()),
        })
        .collect();
    (rtx, rspent)
}

/// A group measuring all inputs' sighashes of one transaction, with throughput per input.
fn per_input_group<'a>(c: &'a mut Criterion, name: &str, n_in: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(n_in as u64));
    g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2)).sample_size(20);
    g
}

fn sighash_benches(c: &mut Criterion) {
    for (n_in, n_out) in [(1, 2), (100, 5), (1372, 100), (2, 3000)] {
        let id = format!("{n_in}x{n_out}");
        // BIP143 (P2WPKH inputs).
        let (tx, spent) = shape(n_in, n_out, false);
        let (rtx, rspent) = to_rb(&tx, &spent);
        // Same answers first.
        {
            let ctx = TxContext::new(&tx, Some(&spent));
            let mut cache = bitcoin::sighash::SighashCache::new(&rtx);
            for i in [0, n_in - 1] {
                let code = [&[0x76, 0xa9, 20][..], &spent[i].script_pubkey[2..], &[0x88, 0xac]].concat();
                let ours = ctx.bip143_sighash(i, &code, spent[i].value, 1).unwrap();
                let theirs = cache
                    .p2wpkh_signature_hash(
                        i,
                        &rspent[i].script_pubkey,
                        rspent[i].value,
                        bitcoin::EcdsaSighashType::All,
                    )
                    .unwrap();
                assert_eq!(ours, theirs.to_byte_array());
            }
        }
        let mut g = per_input_group(c, "bip143", n_in);
        g.bench_function(BenchmarkId::new("fullverify", &id), |b| {
            b.iter(|| {
                let ctx = TxContext::new(&tx, Some(&spent));
                let mut acc = 0u8;
                for (i, o) in spent.iter().enumerate() {
                    let mut code = [0u8; 25];
                    code[..3].copy_from_slice(&[0x76, 0xa9, 20]);
                    code[3..23].copy_from_slice(&o.script_pubkey[2..]);
                    code[23..].copy_from_slice(&[0x88, 0xac]);
                    acc ^= ctx.bip143_sighash(i, &code, o.value, 1).unwrap()[0];
                }
                black_box(acc)
            })
        });
        g.bench_function(BenchmarkId::new("rust-bitcoin", &id), |b| {
            b.iter(|| {
                let mut cache = bitcoin::sighash::SighashCache::new(&rtx);
                let mut acc = 0u8;
                for (i, o) in rspent.iter().enumerate() {
                    let h = cache
                        .p2wpkh_signature_hash(i, &o.script_pubkey, o.value, bitcoin::EcdsaSighashType::All)
                        .unwrap();
                    acc ^= h.to_byte_array()[0];
                }
                black_box(acc)
            })
        });
        g.finish();

        // BIP341 (key-path, SIGHASH_DEFAULT).
        let (tx, spent) = shape(n_in, n_out, true);
        let (rtx, rspent) = to_rb(&tx, &spent);
        {
            let ctx = TxContext::new(&tx, Some(&spent));
            let mut cache = bitcoin::sighash::SighashCache::new(&rtx);
            let prevouts = bitcoin::sighash::Prevouts::All(&rspent);
            for i in [0, n_in - 1] {
                let ours = ctx.bip341_sighash(i, 0, None, None).unwrap();
                let theirs = cache
                    .taproot_key_spend_signature_hash(i, &prevouts, bitcoin::TapSighashType::Default)
                    .unwrap();
                assert_eq!(ours, theirs.to_byte_array());
            }
        }
        let mut g = per_input_group(c, "bip341", n_in);
        g.bench_function(BenchmarkId::new("fullverify", &id), |b| {
            b.iter(|| {
                let ctx = TxContext::new(&tx, Some(&spent));
                let mut acc = 0u8;
                for i in 0..n_in {
                    acc ^= ctx.bip341_sighash(i, 0, None, None).unwrap()[0];
                }
                black_box(acc)
            })
        });
        g.bench_function(BenchmarkId::new("rust-bitcoin", &id), |b| {
            b.iter(|| {
                let mut cache = bitcoin::sighash::SighashCache::new(&rtx);
                let prevouts = bitcoin::sighash::Prevouts::All(&rspent);
                let mut acc = 0u8;
                for i in 0..n_in {
                    acc ^= cache
                        .taproot_key_spend_signature_hash(i, &prevouts, bitcoin::TapSighashType::Default)
                        .unwrap()
                        .to_byte_array()[0];
                }
                black_box(acc)
            })
        });
        g.finish();
    }
}

fn block_bench(c: &mut Criterion) {
    let Some(b) = common::harness::MAINNET_866342.load() else { return };
    let n_inputs = b.spent.len();
    let mut g = c.benchmark_group("block866342");
    g.throughput(Throughput::Elements(n_inputs as u64));
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(8));
    g.bench_function("fullverify+libsecp256k1", |bn| {
        bn.iter(|| {
            let o = common::harness::verify_block_inputs(&b, &common::SecpVerifier);
            assert_eq!(o.failed, 0);
            black_box(o.passed)
        })
    });
    g.bench_function("fullverify+native", |bn| {
        bn.iter(|| {
            let o = common::harness::verify_block_inputs(&b, &fullverify::script::NativeVerifier);
            assert_eq!(o.failed, 0);
            black_box(o.passed)
        })
    });
    // Core flags in libbitcoinconsensus: the consensus subset it accepts.
    let flags =
        b.flags.bits() & (bitcoinconsensus::VERIFY_ALL_PRE_TAPROOT | bitcoinconsensus::VERIFY_TAPROOT);
    g.bench_function("libbitcoinconsensus", |bn| {
        bn.iter(|| {
            let mut k = 0;
            let mut ok = 0;
            for tx in b.block.txdata.iter().filter(|t| !t.is_coinbase()) {
                let bytes = tx.to_bytes(true);
                let spent = &b.spent[k..k + tx.inputs.len()];
                k += tx.inputs.len();
                let utxos: Vec<bitcoinconsensus::Utxo> = spent
                    .iter()
                    .map(|o| bitcoinconsensus::Utxo {
                        script_pubkey: o.script_pubkey.as_ptr(),
                        script_pubkey_len: o.script_pubkey.len() as u32,
                        value: o.value,
                    })
                    .collect();
                for (i, o) in spent.iter().enumerate() {
                    if bitcoinconsensus::verify_with_flags(
                        &o.script_pubkey,
                        o.value as u64,
                        &bytes,
                        Some(&utxos),
                        i,
                        flags,
                    )
                    .is_ok()
                    {
                        ok += 1;
                    }
                }
            }
            assert_eq!(ok, n_inputs);
            black_box(ok)
        })
    });
    g.finish();
}

criterion_group!(benches, sighash_benches, block_bench);
criterion_main!(benches);
