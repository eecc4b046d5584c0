// SPDX-License-Identifier: MIT OR Apache-2.0
//! `verify_many` against single verification on every available backend, and the BIP340
//! reference vectors through `schnorr::verify_many` (in batches that put each vector in every
//! lane position).

use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_testkit::harness::bip340_vectors;

#[test]
fn bip340_vectors_through_verify_many() {
    let Some(vectors) = bip340_vectors() else { return };
    let mut keys = Vec::new();
    let mut msgs = Vec::new();
    let mut sigs = Vec::new();
    let mut expect = Vec::new();
    for v in &vectors {
        // Keys that do not parse never reach verification.
        let Ok(pk) = XOnlyPublicKey::parse(&v.public_key) else { continue };
        keys.push(pk);
        msgs.push(&v.message);
        sigs.push(v.signature);
        expect.push(v.valid);
    }
    assert!(keys.len() >= 15, "expected the parseable BIP340 vectors, got {}", keys.len());
    let n = keys.len();
    for backend in Backend::available() {
        // Rotations put every vector in every lane of a chunk, with a tail of every length.
        for rot in 0..n {
            for len in [8, 9, 15, 16, n] {
                let idx: Vec<usize> = (0..len).map(|k| (k + rot) % n).collect();
                let items: Vec<schnorr::VerifyItem> =
                    idx.iter().map(|&i| (&keys[i], &msgs[i][..], &sigs[i])).collect();
                let got = schnorr::verify_many(backend, &items);
                let want: Vec<bool> = idx.iter().map(|&i| expect[i]).collect();
                assert_eq!(got, want, "{backend}, rotation {rot}, length {len}");
            }
        }
    }
}

#[test]
fn ecdsa_verify_many_vs_verify_every_backend() {
    let keys: Vec<PublicKey> = (1..=20u8).map(|i| PublicKey::from_secret(&[i; 32]).unwrap()).collect();
    let msgs: Vec<[u8; 32]> = (1..=20u8).map(|i| [i.wrapping_mul(37); 32]).collect();
    let sigs: Vec<ecdsa::Signature> = (0..20).map(|i| ecdsa::sign(&[i as u8 + 1; 32], &msgs[i])).collect();
    for backend in Backend::available() {
        for len in 0..=20 {
            // Every third item gets another key.
            let items: Vec<ecdsa::VerifyItem> = (0..len)
                .map(|i| (&keys[if i % 3 == 2 { (i + 1) % 20 } else { i }], &msgs[i], &sigs[i]))
                .collect();
            let want: Vec<bool> =
                items.iter().map(|&(k, m, s)| ecdsa::verify_with(backend, k, m, s)).collect();
            assert_eq!(ecdsa::verify_many(backend, &items), want, "{backend}, {len} items");
            assert_eq!(want.iter().filter(|&&b| !b).count(), len / 3);
        }
    }
}
