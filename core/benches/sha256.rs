// SPDX-License-Identifier: MIT OR Apache-2.0
//! SHA-256 micro-benchmarks: `sha256/<len>`, `tagged/<len>`, `sha256d64/<backend>/<n>`,
//! `merkle/<backend>/<leaves>`. Throughput is reported in bytes of input.
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fullverify::hash::{merkle_root_with, sha256, sha256d64_many, tags};
use fullverify::Backend;
use fullverify_testkit::SplitMix64;

fn bench_sha256(c: &mut Criterion) {
    let mut g = c.benchmark_group("sha256");
    for len in [32usize, 64, 1024] {
        let data = vec![0xa5u8; len];
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::from_parameter(len), &data, |b, d| b.iter(|| sha256(black_box(d))));
    }
    g.finish();
    let mut g = c.benchmark_group("tagged");
    for len in [32usize, 96] {
        let data = vec![0x5au8; len];
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_with_input(BenchmarkId::from_parameter(len), &data, |b, d| {
            b.iter(|| tags::bip340_challenge().hash(black_box(d)))
        });
    }
    g.finish();
}

fn bench_sha256d64(c: &mut Criterion) {
    let mut rng = SplitMix64(7);
    let mut g = c.benchmark_group("sha256d64");
    for n in [1usize, 2, 64, 1024] {
        let inp: Vec<[u8; 64]> = (0..n).map(|_| rng.bytes()).collect();
        let mut out = vec![[0u8; 32]; n];
        g.throughput(Throughput::Bytes(64 * n as u64));
        for b in Backend::available() {
            g.bench_function(BenchmarkId::new(b.name(), n), |bch| {
                bch.iter(|| sha256d64_many(b, black_box(&inp), &mut out))
            });
        }
    }
    g.finish();
}

fn bench_merkle(c: &mut Criterion) {
    let mut rng = SplitMix64(9);
    let mut g = c.benchmark_group("merkle");
    for n in [16usize, 1000, 9001] {
        let leaves: Vec<[u8; 32]> = (0..n).map(|_| rng.bytes32()).collect();
        g.throughput(Throughput::Elements(n as u64));
        for b in Backend::available() {
            g.bench_function(BenchmarkId::new(b.name(), n), |bch| {
                bch.iter(|| merkle_root_with(b, black_box(&leaves)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_sha256, bench_sha256d64, bench_merkle);
criterion_main!(benches);
