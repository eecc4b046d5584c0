// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 reference vectors (all of them, signing bytes included) from the external vectors
//! directory; skipped loudly when absent.

use fullverify::secp256k1::{schnorr, XOnlyPublicKey};
use fullverify_testkit::harness::bip340_vectors;

#[test]
fn bip340_vectors_sign_and_verify() {
    let Some(vectors) = bip340_vectors() else { return };
    let mut count = 0;
    for v in &vectors {
        let (idx, msg, sig, expect) = (&v.index, &v.message, &v.signature, v.valid);
        if let Some((sk, aux)) = &v.signing {
            assert_eq!(&schnorr::sign(sk, msg, aux), sig, "vector {idx}: signature bytes");
        }
        let verdict = match XOnlyPublicKey::parse(&v.public_key) {
            Ok(pk) => {
                let mut all = Vec::new();
                for b in fullverify::Backend::available() {
                    all.push(schnorr::verify_with(b, &pk, msg, sig));
                }
                assert!(all.iter().all(|&v| v == all[0]), "vector {idx}: backends disagree");
                all[0]
            }
            Err(_) => false,
        };
        assert_eq!(verdict, expect, "vector {idx}: verification result");
        count += 1;
    }
    assert_eq!(count, 19, "expected all 19 BIP340 vectors");
}
