// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 verification and signing: every available fullverify backend, libsecp256k1 and
//! k256 on the same signatures. IDs `<op>/<arm>/<n>`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fullverify::secp256k1::{schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_testkit::SplitMix64;
use std::hint::black_box;

mod round_robin;
use round_robin::verify_each;

const N: usize = 64;

fn bench(c: &mut Criterion) {
    let mut rng = SplitMix64(43);
    let cs: Vec<(XOnlyPublicKey, [u8; 32], [u8; 64])> = (0..N)
        .map(|_| {
            let sk = rng.bytes32();
            let msg = rng.bytes32();
            let aux = rng.bytes32();
            let pk = PublicKey::from_secret(&sk).unwrap().x_only().0;
            (pk, msg, schnorr::sign(&sk, &msg, &aux))
        })
        .collect();
    let mut g = c.benchmark_group("schnorr_verify");
    for b in Backend::available() {
        verify_each(&mut g, b.name(), &cs, |(pk, m, s)| {
            schnorr::verify_with(b, black_box(pk), black_box(m), black_box(s))
        });
    }
    let ls: Vec<_> = cs
        .iter()
        .map(|(pk, m, s)| {
            (
                secp256k1::XOnlyPublicKey::from_byte_array(pk.serialize()).unwrap(),
                *m,
                secp256k1::schnorr::Signature::from_byte_array(*s),
            )
        })
        .collect();
    verify_each(&mut g, "libsecp256k1", &ls, |(pk, m, s)| {
        secp256k1::schnorr::verify(black_box(s), black_box(m), black_box(pk)).is_ok()
    });
    let ks: Vec<_> = cs
        .iter()
        .map(|(pk, m, s)| {
            (
                k256::schnorr::VerifyingKey::from_bytes(&pk.serialize()).unwrap(),
                *m,
                k256::schnorr::Signature::try_from(&s[..]).unwrap(),
            )
        })
        .collect();
    verify_each(&mut g, "k256", &ks, |(pk, m, s)| {
        black_box(pk).verify_raw(black_box(m), black_box(s)).is_ok()
    });
    g.finish();

    let mut g = c.benchmark_group("schnorr_sign");
    let sk = rng.bytes32();
    let aux = rng.bytes32();
    let msg = rng.bytes32();
    g.bench_function(BenchmarkId::new("portable", 1), |bn| {
        bn.iter(|| schnorr::sign(black_box(&sk), black_box(&msg), black_box(&aux)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3)).warm_up_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
