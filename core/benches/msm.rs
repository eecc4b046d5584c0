// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multi-scalar multiplication (Strauss, Pippenger) and BIP340 batch verification on every
//! available backend. IDs `msm/<backend>-<algorithm>/<n>` (time per call of n full-size terms)
//! and `verify_batch/<backend>/<b>` (time per batch of b signatures).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fullverify::secp256k1::arith::{AffinePoint, Scalar};
use fullverify::secp256k1::msm::{msm_with, MsmAlgorithm};
use fullverify::secp256k1::{schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_testkit::SplitMix64;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut rng = SplitMix64(47);
    let terms: Vec<(Scalar, AffinePoint)> = (0..1024)
        .map(|_| {
            let p = AffinePoint::mul_generator(&Scalar::from_bytes_reduce(&rng.bytes32()).0);
            (Scalar::from_bytes_reduce(&rng.bytes32()).0, p)
        })
        .collect();
    let mut g = c.benchmark_group("msm");
    g.sample_size(20);
    for b in Backend::available() {
        for alg in [MsmAlgorithm::Strauss, MsmAlgorithm::Pippenger] {
            for n in [16usize, 128, 1024] {
                g.throughput(Throughput::Elements(n as u64));
                g.bench_function(BenchmarkId::new(format!("{}-{}", b.name(), alg.name()), n), |bn| {
                    bn.iter(|| msm_with(b, black_box(&terms[..n]), alg))
                });
            }
        }
    }
    g.finish();

    let sigs: Vec<(XOnlyPublicKey, [u8; 32], [u8; 64])> = (0..1024)
        .map(|_| {
            let sk = rng.bytes32();
            let msg = rng.bytes32();
            let pk = PublicKey::from_secret(&sk).unwrap().x_only().0;
            (pk, msg, schnorr::sign(&sk, &msg, &rng.bytes32()))
        })
        .collect();
    let items: Vec<schnorr::BatchItem> = sigs.iter().map(|(k, m, s)| (k, &m[..], s)).collect();
    let mut g = c.benchmark_group("verify_batch");
    g.sample_size(20);
    for b in Backend::available() {
        for n in [8usize, 64, 1024] {
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(BenchmarkId::new(b.name(), n), |bn| {
                bn.iter(|| assert!(schnorr::verify_batch_with(b, black_box(&items[..n]))))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
