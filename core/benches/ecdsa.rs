// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECDSA verification and signing: every available fullverify backend, libsecp256k1 (the
//! `secp256k1` crate) and k256, on the same signatures. IDs `<op>/<arm>/<n>`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fullverify::secp256k1::{ecdsa, PublicKey};
use fullverify::Backend;
use fullverify_testkit::SplitMix64;
use k256::ecdsa::signature::hazmat::PrehashVerifier;
use std::hint::black_box;

mod round_robin;
use round_robin::verify_each;

const N: usize = 64;

struct Case {
    pk: PublicKey,
    msg: [u8; 32],
    sig: ecdsa::Signature,
}

fn cases() -> Vec<Case> {
    let mut rng = SplitMix64(42);
    (0..N)
        .map(|_| {
            let sk = rng.bytes32();
            let msg = rng.bytes32();
            Case { pk: PublicKey::from_secret(&sk).unwrap(), msg, sig: ecdsa::sign(&sk, &msg) }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let cs = cases();
    let mut g = c.benchmark_group("ecdsa_verify");
    for b in Backend::available() {
        verify_each(&mut g, b.name(), &cs, |k| {
            ecdsa::verify_with(b, black_box(&k.pk), black_box(&k.msg), black_box(&k.sig))
        });
    }
    let ls: Vec<_> = cs
        .iter()
        .map(|k| {
            (
                secp256k1::PublicKey::from_slice(&k.pk.serialize_compressed()).unwrap(),
                secp256k1::Message::from_digest(k.msg),
                secp256k1::ecdsa::Signature::from_compact(&k.sig.to_compact()).unwrap(),
            )
        })
        .collect();
    verify_each(&mut g, "libsecp256k1", &ls, |(pk, m, s)| {
        secp256k1::ecdsa::verify(black_box(s), *black_box(m), black_box(pk)).is_ok()
    });
    let ks: Vec<_> = cs
        .iter()
        .map(|k| {
            (
                k256::ecdsa::VerifyingKey::from_sec1_bytes(&k.pk.serialize_compressed()).unwrap(),
                k.msg,
                k256::ecdsa::Signature::from_slice(&k.sig.to_compact()).unwrap(),
            )
        })
        .collect();
    verify_each(&mut g, "k256", &ks, |(pk, m, s)| {
        black_box(pk).verify_prehash(black_box(m), black_box(s)).is_ok()
    });
    g.finish();

    let mut g = c.benchmark_group("ecdsa_sign");
    let mut rng = SplitMix64(7);
    let sk = rng.bytes32();
    let msg = rng.bytes32();
    g.bench_function(BenchmarkId::new("portable", 1), |bn| {
        bn.iter(|| ecdsa::sign(black_box(&sk), black_box(&msg)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3)).warm_up_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
