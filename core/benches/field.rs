// SPDX-License-Identifier: MIT OR Apache-2.0
//! Field kernels per backend: mul, sqr (latency chains of 16 dependent ops, reported per
//! chain), the addition-chain inverse and the safegcd inverse. IDs `<op>/<backend>/<n>`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fullverify::backend::portable::field::Fe5x52;
use fullverify::secp256k1::field::{inv, inv_var, FieldOps};
use fullverify_testkit::SplitMix64;
use std::hint::black_box;

fn kernels<F: FieldOps>(c: &mut Criterion, name: &str) {
    let mut rng = SplitMix64(11);
    let a = F::from_be_bytes(&{
        let mut b = rng.bytes32();
        b[0] = 0x7f;
        b
    })
    .unwrap();
    let b = a.sqr();
    let mut g = c.benchmark_group("field");
    g.bench_function(BenchmarkId::new(format!("fe_mul/{name}"), 16), |bn| {
        bn.iter(|| {
            let mut x = *black_box(&a);
            for _ in 0..16 {
                x = x.mul(&b);
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new(format!("fe_sqr/{name}"), 16), |bn| {
        bn.iter(|| {
            let mut x = *black_box(&a);
            for _ in 0..16 {
                x = x.sqr();
            }
            x
        })
    });
    g.bench_function(BenchmarkId::new(format!("fe_inv/{name}"), 1), |bn| bn.iter(|| inv(black_box(&a))));
    g.bench_function(BenchmarkId::new(format!("fe_inv_var/{name}"), 1), |bn| {
        bn.iter(|| inv_var(black_box(&a)))
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    kernels::<Fe5x52>(c, "portable");
    kernels::<fullverify::backend::portable::field4x64::Fe4x64>(c, "portable4x64");
    #[cfg(target_arch = "x86_64")]
    if fullverify::Backend::asm().is_some() {
        kernels::<fullverify::backend::x86_64_asm::field::Fe4x64>(c, "asm");
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
