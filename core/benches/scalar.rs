// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scalar arithmetic mod n (portable 4×64): mul, add, var-time and constant-time inverse,
//! GLV split, wNAF. IDs `<op>/portable/<n>`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fullverify::secp256k1::arith::{wnaf, Scalar};
use fullverify_testkit::SplitMix64;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut rng = SplitMix64(5);
    let a = Scalar::from_bytes_reduce(&rng.bytes32()).0;
    let b = Scalar::from_bytes_reduce(&rng.bytes32()).0;
    let mut g = c.benchmark_group("scalar");
    g.bench_function(BenchmarkId::new("mul/portable", 1), |bn| bn.iter(|| black_box(&a).mul(black_box(&b))));
    g.bench_function(BenchmarkId::new("add/portable", 1), |bn| bn.iter(|| black_box(&a).add(black_box(&b))));
    g.bench_function(BenchmarkId::new("inv_vartime/portable", 1), |bn| {
        bn.iter(|| black_box(&a).inv_vartime())
    });
    g.bench_function(BenchmarkId::new("inv/portable", 1), |bn| bn.iter(|| black_box(&a).inv()));
    g.bench_function(BenchmarkId::new("split_lambda/portable", 1), |bn| {
        bn.iter(|| black_box(&a).split_lambda())
    });
    g.bench_function(BenchmarkId::new("wnaf5/portable", 1), |bn| bn.iter(|| wnaf(black_box(&a), 5)));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
