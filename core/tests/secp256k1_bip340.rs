// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 reference vectors (all of them, signing bytes included) from the external vectors
//! directory; skipped loudly when absent.

use fullverify::secp256k1::{schnorr, XOnlyPublicKey};
use fullverify_testkit::vector_file;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).expect("hex")
}

#[test]
fn bip340_vectors_sign_and_verify() {
    let Some(path) = vector_file("bips/bip340_test_vectors.csv") else { return };
    let text = std::fs::read_to_string(path).unwrap();
    let mut count = 0;
    for line in text.lines().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let (idx, sk, pk, aux, msg, sig, result) = (f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
        let expect = result == "TRUE";
        let pk_bytes: [u8; 32] = unhex(pk).try_into().unwrap();
        let msg = unhex(msg);
        let sig: [u8; 64] = unhex(sig).try_into().unwrap();
        if !sk.is_empty() {
            let sk: [u8; 32] = unhex(sk).try_into().unwrap();
            let aux: [u8; 32] = unhex(aux).try_into().unwrap();
            assert_eq!(schnorr::sign(&sk, &msg, &aux), sig, "vector {idx}: signature bytes");
        }
        let verdict = match XOnlyPublicKey::parse(&pk_bytes) {
            Ok(pk) => {
                let mut all = Vec::new();
                for b in fullverify::Backend::available() {
                    all.push(schnorr::verify_with(b, &pk, &msg, &sig));
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
