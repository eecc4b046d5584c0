// SPDX-License-Identifier: MIT OR Apache-2.0
//! Random and mutated signatures cross-checked against libsecp256k1 (the `secp256k1` crate)
//! and `k256`, in both directions: our signatures verified by them, theirs by us, with every
//! verdict compared. Scales with FULLVERIFY_TEST_ITERS (default 25 000 per test; four tests,
//! so 10^5 signature cases with their mutations per run).

use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_testkit::{test_iters, test_seed, SplitMix64};
use k256::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
use secp256k1 as ls;

fn rand_seckey(rng: &mut SplitMix64) -> [u8; 32] {
    loop {
        let k = rng.bytes32();
        if ls::SecretKey::from_secret_bytes(k).is_ok() {
            return k;
        }
    }
}

/// Our ECDSA verdict on every available backend (all must agree).
fn ours_ecdsa(pk: &PublicKey, msg: &[u8; 32], sig: &ecdsa::Signature) -> bool {
    let v = ecdsa::verify(pk, msg, sig);
    for b in Backend::available() {
        assert_eq!(ecdsa::verify_with(b, pk, msg, sig), v, "backend {b} disagrees");
    }
    v
}

/// libsecp256k1's verdict with Core semantics (lax-parsed compact signature, S normalized).
fn theirs_ecdsa(pk: &[u8], msg: &[u8; 32], compact: &[u8; 64]) -> Option<bool> {
    let pk = ls::PublicKey::from_slice(pk).ok()?;
    let mut sig = match ls::ecdsa::Signature::from_compact(compact) {
        Ok(s) => s,
        Err(_) => return Some(false),
    };
    sig.normalize_s();
    Some(ls::ecdsa::verify(&sig, ls::Message::from_digest(*msg), &pk).is_ok())
}

fn ecdsa_cases(seed: u64, iters: usize) {
    let mut rng = SplitMix64(seed);
    for i in 0..iters {
        let sk = rand_seckey(&mut rng);
        let msg = rng.bytes32();
        let pk = PublicKey::from_secret(&sk).unwrap();
        let lsk = ls::SecretKey::from_secret_bytes(sk).unwrap();
        let lpk = ls::PublicKey::from_secret_key(&lsk);
        assert_eq!(pk.serialize_compressed(), lpk.serialize(), "pubkey mismatch");
        assert_eq!(pk.serialize_uncompressed(), lpk.serialize_uncompressed());
        // Our signature (RFC 6979, low S) must be byte-identical to libsecp256k1's.
        let sig = ecdsa::sign(&sk, &msg);
        let lsig = ls::ecdsa::sign(ls::Message::from_digest(msg), &lsk);
        assert_eq!(sig.to_compact(), lsig.serialize_compact(), "case {i}: signature bytes");
        assert_eq!(sig.to_der(), lsig.serialize_der().to_vec());
        assert!(ours_ecdsa(&pk, &msg, &sig));
        assert!(ls::ecdsa::verify(&lsig, ls::Message::from_digest(msg), &lpk).is_ok());
        if i % 8 == 0 {
            let kvk = k256::ecdsa::VerifyingKey::from_sec1_bytes(&pk.serialize_compressed()).unwrap();
            let ksig = k256::ecdsa::Signature::from_slice(&sig.to_compact()).unwrap();
            assert!(kvk.verify_prehash(&msg, &ksig).is_ok(), "k256 rejects our signature");
            // And k256's own signature (its RFC 6979 nonce, low S) verifies here.
            let ksk = k256::ecdsa::SigningKey::from_bytes((&sk).into()).unwrap();
            let theirs: k256::ecdsa::Signature = ksk.sign_prehash(&msg).unwrap();
            let bytes: [u8; 64] = theirs.to_bytes().into();
            let ours_view = ecdsa::Signature::from_compact(&bytes).unwrap();
            assert!(ours_ecdsa(&pk, &msg, &ours_view), "k256 signature rejected here");
        }
        // One mutation per case, compared with libsecp256k1 (Core semantics).
        let mut compact = sig.to_compact();
        let mut m = msg;
        let mut pkb = if rng.next_u64() & 1 == 0 {
            pk.serialize_compressed().to_vec()
        } else {
            pk.serialize_uncompressed().to_vec()
        };
        let bit = (rng.next_u64() % 256) as usize;
        match i % 9 {
            0 => compact[bit / 8] ^= 1 << (bit % 8),
            1 => compact[32 + bit / 8] ^= 1 << (bit % 8),
            2 => m[bit / 8] ^= 1 << (bit % 8),
            3 => {
                let j = (rng.next_u64() as usize) % pkb.len();
                pkb[j] ^= 1 << (rng.next_u64() % 8);
            }
            4 => compact[..32].fill(0),
            5 => compact[32..].fill(0),
            6 => {
                // s → n − s (high S): consensus accepts it.
                let s = ecdsa::Signature::from_compact(&compact).unwrap();
                compact[32..].copy_from_slice(&s.s.negate().to_bytes());
            }
            7 => compact[..32].fill(0xFF),
            _ => compact[32..].fill(0xFF),
        }
        let ours_pk = PublicKey::parse(&pkb);
        let theirs = theirs_ecdsa(&pkb, &m, &compact);
        match (ours_pk, theirs) {
            (Err(_), None) => {}
            (Ok(p), Some(t)) => {
                let ours = match ecdsa::Signature::from_compact(&compact) {
                    Ok(s) => ours_ecdsa(&p, &m, &s),
                    Err(_) => false,
                };
                assert_eq!(ours, t, "case {i}: mutation {} verdict", i % 9);
                if i % 9 == 6 {
                    assert!(ours, "high S must verify");
                }
            }
            (o, t) => panic!("case {i}: pubkey parse disagrees: ours {o:?}, theirs {t:?}"),
        }
    }
}

fn schnorr_cases(seed: u64, iters: usize) {
    let mut rng = SplitMix64(seed);
    for i in 0..iters {
        let sk = rand_seckey(&mut rng);
        let aux = rng.bytes32();
        let mlen = (rng.next_u64() % 80) as usize;
        let mut msg = vec![0u8; mlen];
        rng.fill(&mut msg);
        let kp = ls::Keypair::from_secret_bytes(sk).unwrap();
        let (lx, _) = kp.x_only_public_key();
        let sig = schnorr::sign(&sk, &msg, &aux);
        let lsig = ls::schnorr::sign_with_aux_rand(&msg, &kp, &aux);
        assert_eq!(sig, lsig.to_byte_array(), "case {i}: BIP340 signature bytes");
        let px = XOnlyPublicKey::parse(&lx.to_byte_array()).unwrap();
        assert!(schnorr::verify(&px, &msg, &sig));
        for b in Backend::available() {
            assert!(schnorr::verify_with(b, &px, &msg, &sig));
        }
        if i % 8 == 0 {
            let kvk = k256::schnorr::VerifyingKey::from_bytes(&lx.to_byte_array()).unwrap();
            let ksig = k256::schnorr::Signature::try_from(&sig[..]).unwrap();
            assert!(kvk.verify_raw(&msg, &ksig).is_ok(), "k256 rejects our BIP340 signature");
        }
        // Mutations.
        let mut s2 = sig;
        let mut m2 = msg.clone();
        let mut pkb = lx.to_byte_array();
        let bit = (rng.next_u64() % 256) as usize;
        match i % 7 {
            0 => s2[bit / 8] ^= 1 << (bit % 8),
            1 => s2[32 + bit / 8] ^= 1 << (bit % 8),
            2 if !m2.is_empty() => {
                let j = bit % m2.len();
                m2[j] ^= 1;
            }
            2 => m2.push(0),
            3 => pkb[bit / 8] ^= 1 << (bit % 8),
            4 => s2[..32].fill(0xFF),
            5 => s2[32..].fill(0xFF),
            _ => s2[..32].copy_from_slice(&pkb),
        }
        let theirs = ls::XOnlyPublicKey::from_byte_array(pkb)
            .ok()
            .map(|pk| ls::schnorr::verify(&ls::schnorr::Signature::from_byte_array(s2), &m2, &pk).is_ok());
        let ours = XOnlyPublicKey::parse(&pkb).ok().map(|pk| {
            let v = schnorr::verify(&pk, &m2, &s2);
            for b in Backend::available() {
                assert_eq!(schnorr::verify_with(b, &pk, &m2, &s2), v);
            }
            v
        });
        assert_eq!(ours, theirs, "case {i}: mutation {}", i % 7);
    }
}

#[test]
fn ecdsa_vs_libsecp256k1_and_k256_a() {
    ecdsa_cases(test_seed(), test_iters(25_000));
}

#[test]
fn ecdsa_vs_libsecp256k1_and_k256_b() {
    ecdsa_cases(test_seed() ^ 0xA5A5_0000_1111_2222, test_iters(25_000));
}

#[test]
fn schnorr_vs_libsecp256k1_and_k256_a() {
    schnorr_cases(test_seed() ^ 0x5C40_0001, test_iters(25_000));
}

#[test]
fn schnorr_vs_libsecp256k1_and_k256_b() {
    schnorr_cases(test_seed() ^ 0x5C40_0002, test_iters(25_000));
}

/// Theirs → ours: libsecp256k1 signatures with random (not RFC 6979) nonces through our
/// verifier, including their high-S twins.
#[test]
fn libsecp256k1_signatures_verify_here() {
    let mut rng = SplitMix64(test_seed() ^ 0x7E57);
    for _ in 0..test_iters(2_000) {
        let sk = rand_seckey(&mut rng);
        let lsk = ls::SecretKey::from_secret_bytes(sk).unwrap();
        let msg = rng.bytes32();
        let extra = rng.bytes32();
        let lsig = ls::ecdsa::sign_with_noncedata(ls::Message::from_digest(msg), &lsk, &extra);
        let pk = PublicKey::parse(&ls::PublicKey::from_secret_key(&lsk).serialize()).unwrap();
        let sig = ecdsa::Signature::from_der(&lsig.serialize_der()).unwrap();
        assert!(ecdsa::verify(&pk, &msg, &sig));
        let mut high = sig;
        high.s = high.s.negate();
        assert!(ecdsa::verify(&pk, &msg, &high));
        assert!(high.clone().normalize_s());
        let mut other = msg;
        other[0] ^= 1;
        assert!(!ecdsa::verify(&pk, &other, &sig));
    }
}

/// BIP341 output-key tweaks and the script-path commitment check vs libsecp256k1.
#[test]
fn xonly_tweak_add_vs_libsecp256k1() {
    use fullverify::secp256k1::{secret_tweak_add_xonly, tweak_add_check};
    let mut rng = SplitMix64(test_seed() ^ 0x7A9);
    for i in 0..test_iters(1_000) {
        let sk = rand_seckey(&mut rng);
        let kp = ls::Keypair::from_secret_bytes(sk).unwrap();
        let (lx, _) = kp.x_only_public_key();
        let internal = XOnlyPublicKey::parse(&lx.to_byte_array()).unwrap();
        let tweak = if i == 0 { [0xFF; 32] } else { rng.bytes32() };
        let lt = ls::Scalar::from_be_bytes(tweak);
        let ours = internal.tweak_add(&tweak);
        let lt = lt.ok();
        let theirs = lt.and_then(|t| lx.add_tweak(&t).ok());
        assert_eq!(ours.is_ok(), theirs.is_some());
        if let (Ok((q, odd)), Some((lq, lpar))) = (ours, theirs) {
            assert_eq!(q.serialize(), lq.to_byte_array());
            assert_eq!(odd, lpar == ls::Parity::Odd);
            assert!(tweak_add_check(&internal, &tweak, &q.serialize(), odd));
            assert!(!tweak_add_check(&internal, &tweak, &q.serialize(), !odd));
            let mut wrong = q.serialize();
            wrong[31] ^= 1;
            assert!(!tweak_add_check(&internal, &tweak, &wrong, odd));
            assert!(lx.tweak_add_check(&lq, lpar, lt.unwrap()));
            // Key-path signing with the tweaked secret verifies under the output key.
            let tsk = secret_tweak_add_xonly(&sk, &tweak).unwrap();
            let msg = rng.bytes32();
            let sig = schnorr::sign(&tsk, &msg, &[0u8; 32]);
            assert!(schnorr::verify(&q, &msg, &sig));
        }
    }
}
