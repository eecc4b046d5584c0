// SPDX-License-Identifier: MIT OR Apache-2.0
//! Field kernels per backend: mul, sqr (latency chains of 16 dependent ops, reported per
//! chain), the addition-chain inverse and the safegcd inverse. IDs `<op>/<backend>/<n>`.
//!
//! Each measurement is one `arith::field_chain_with` call: one dispatch on the backend token
//! and one conversion from and to the portable form around the chain.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fullverify::secp256k1::arith::{field_chain_with, FieldElement, FieldKernel};
use fullverify::Backend;
use fullverify_testkit::SplitMix64;
use std::hint::black_box;

fn kernels(c: &mut Criterion, backend: Backend) {
    let mut rng = SplitMix64(11);
    let a = FieldElement::from_bytes(&{
        let mut b = rng.bytes32();
        b[0] = 0x7f;
        b
    })
    .unwrap();
    let b = a.sqr();
    let name = backend.name();
    let mut g = c.benchmark_group("field");
    for (op, kernel, n) in [
        ("fe_mul", FieldKernel::Mul, 16),
        ("fe_sqr", FieldKernel::Sqr, 16),
        ("fe_inv", FieldKernel::Inv, 1),
        ("fe_inv_var", FieldKernel::InvVartime, 1),
    ] {
        g.bench_function(BenchmarkId::new(format!("{op}/{name}"), n), |bn| {
            bn.iter(|| field_chain_with(backend, kernel, black_box(&a), &b, n))
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    for backend in Backend::available() {
        kernels(c, backend);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
