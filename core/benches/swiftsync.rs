// SPDX-License-Identifier: MIT OR Apache-2.0
//! SwiftSync micro-benchmarks: `aggregate/add/<script>` (ns per coin added to a BIP 457
//! aggregate: one salted SHA-256 and a 256-bit add), and `hints/encode|decode/<n>` (one block's
//! BIP 456 Elias–Fano record). Throughput is reported in elements.
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fullverify::encode::OutPoint;
use fullverify::swiftsync::{encode_indices, Aggregate, BlockHints, CoinElement, Salt};
use fullverify_testkit::SplitMix64;

const COINS: usize = 1024;

fn bench_aggregate(c: &mut Criterion) {
    let mut rng = SplitMix64(457);
    let mut g = c.benchmark_group("aggregate");
    g.throughput(Throughput::Elements(COINS as u64));
    // P2WPKH (22 bytes), P2TR (34), uncompressed P2PK (67), 1-of-3 bare multisig (105), and a
    // 300-byte script past the stack-padded path.
    for (name, len) in
        [("p2wpkh", 22usize), ("p2tr", 34), ("p2pk65", 67), ("multisig105", 105), ("script300", 300)]
    {
        let scripts: Vec<Vec<u8>> = (0..COINS)
            .map(|_| {
                let mut s = vec![0u8; len];
                rng.fill(&mut s);
                s
            })
            .collect();
        let coins: Vec<CoinElement<'_>> = scripts
            .iter()
            .map(|s| CoinElement {
                outpoint: OutPoint { txid: rng.bytes32(), vout: (rng.next_u64() % 8) as u32 },
                height: (rng.next_u64() % 900_000) as u32,
                coinbase: rng.next_u64().is_multiple_of(16),
                script_pubkey: s,
                amount: rng.next_u64() % 10_000_000_000,
            })
            .collect();
        let mut agg = Aggregate::new(Salt::from_bytes(rng.bytes32()));
        g.bench_function(BenchmarkId::new("add", name), |b| {
            b.iter(|| {
                for e in black_box(&coins) {
                    agg.add(e);
                }
            })
        });
        black_box(agg.value());
    }
    g.finish();
}

fn bench_hints(c: &mut Criterion) {
    let mut rng = SplitMix64(456);
    let mut g = c.benchmark_group("hints");
    for outputs in [100u32, 3000] {
        let idx: Vec<u32> = (0..outputs).filter(|_| rng.next_u64().is_multiple_of(10)).collect();
        let mut rec = Vec::new();
        encode_indices(&idx, &mut rec).unwrap();
        g.throughput(Throughput::Elements(idx.len() as u64));
        g.bench_function(BenchmarkId::new("encode", outputs), |b| {
            let mut out = Vec::with_capacity(rec.len());
            b.iter(|| {
                out.clear();
                encode_indices(black_box(&idx), &mut out).unwrap();
            })
        });
        g.bench_function(BenchmarkId::new("decode", outputs), |b| {
            b.iter(|| BlockHints::parse(black_box(&rec)).unwrap().0.iter().sum::<u32>())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_aggregate, bench_hints);
criterion_main!(benches);
