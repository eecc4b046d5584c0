// SPDX-License-Identifier: MIT OR Apache-2.0
//! MuHash3072 micro-benchmarks, per element: `muhash/mul/<backend>` (one 3072-bit product
//! modulo 2^3072 − 1103717), `muhash/to_num` (SHA-256 and the 384-byte ChaCha20 expansion of a
//! 60-byte coin), `muhash/insert/<backend>` (both, as the incremental MuHash pays per coin)
//! `muhash/set_insert/<backend>` (the same through `SetProduct`, as the final MuHash pays) and
//! `muhash/set_mul/<backend>` (`SetProduct`'s product alone: a 3072-bit factor multiplied in;
//! on AVX2, one lane of the eight-lane product and the factor's conversion to 28-bit limbs).
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fullverify::muhash::{to_num3072, MuHash3072, Num3072, SetProduct};
use fullverify::Backend;
use fullverify_testkit::SplitMix64;

fn bench_muhash(c: &mut Criterion) {
    let mut rng = SplitMix64(3072);
    let mut g = c.benchmark_group("muhash");
    g.throughput(Throughput::Elements(1));
    let x = Num3072::from_le_bytes(&rng.bytes());
    let y = Num3072::from_le_bytes(&rng.bytes());
    for b in Backend::available() {
        g.bench_function(BenchmarkId::new("mul", b.name()), |bch| {
            let mut acc = x;
            bch.iter(|| acc = acc.mul_with(b, black_box(&y)))
        });
    }
    let coin: [u8; 60] = rng.bytes();
    g.bench_function("to_num", |bch| bch.iter(|| to_num3072(black_box(&coin))));
    for b in Backend::available() {
        g.bench_function(BenchmarkId::new("insert", b.name()), |bch| {
            let mut m = MuHash3072::new();
            bch.iter(|| {
                m.insert_with(b, black_box(&coin));
            })
        });
    }
    for b in Backend::available() {
        g.bench_function(BenchmarkId::new("set_insert", b.name()), |bch| {
            let mut p = SetProduct::new(b);
            bch.iter(|| p.insert(black_box(&coin)))
        });
    }
    for b in Backend::available() {
        g.bench_function(BenchmarkId::new("set_mul", b.name()), |bch| {
            let mut p = SetProduct::new(b);
            bch.iter(|| p.mul_num(black_box(&y)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_muhash);
criterion_main!(benches);
