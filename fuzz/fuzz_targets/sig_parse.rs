// SPDX-License-Identifier: MIT OR Apache-2.0
//! Key and signature parsing and verification (fullverify::secp256k1) against libsecp256k1
//! (the `secp256k1` crate) and across backends.
//!
//! Properties, on the whole input and on its prefixes of the encodings' lengths:
//! - strict DER: accepted exactly when libsecp256k1's `ecdsa_signature_parse_der` accepts,
//!   with the same (r, s); `to_der` gives the input back unless an integer overflowed to zero;
//!   `from_der(to_der(sig)) == sig`;
//! - lax DER: exactly libsecp256k1's `ecdsa_signature_parse_der_lax` (Core's), and a
//!   superset of strict DER with the same values, except where strict DER read an integer as
//!   zero (negative or over 32 bytes: lax DER reads those bytes as unsigned);
//! - compact: accepted when libsecp256k1 accepts, round trip to the same 64 bytes;
//! - public keys (compressed, uncompressed, hybrid): accepted exactly when `ec_pubkey_parse`
//!   accepts, the same point, on every backend, one by one and in bulk (`parse_many_with`);
//!   serialization round-trips;
//! - x-only keys: exactly `xonly_pubkey_parse`, on every backend; `serialize` gives the input;
//! - verification: ECDSA and BIP340 verdicts are the same on every backend, one by one and
//!   eight-wide (`verify_many`), equal libsecp256k1's (ECDSA after normalising s, as
//!   consensus does), and BIP340 batch verification agrees with them. The input either gives
//!   (message, key, signature) as bytes or a secret key and message to sign, then tampers
//!   with one of them as the input says, so valid signatures are fuzzed as well as invalid.
#![no_main]

use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fuzz_support::Cut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    der(data);
    compact(data);
    pubkeys(data);
    for n in [33usize, 65] {
        if data.len() > n {
            pubkeys(&data[..n]);
        }
    }
    xonly(data);
    verify(data);
});

fn der(data: &[u8]) {
    let strict = ecdsa::Signature::from_der(data);
    let reference = secp256k1::ecdsa::Signature::from_der(data);
    match (&strict, &reference) {
        (Ok(s), Ok(r)) => assert_eq!(s.to_compact(), r.serialize_compact(), "strict DER values"),
        (Err(_), Err(_)) => {}
        _ => panic!("strict DER verdicts differ: ours {strict:?}, libsecp256k1 {reference:?}"),
    }
    let lax = ecdsa::Signature::from_der_lax(data);
    let lax_ref = secp256k1::ecdsa::Signature::from_der_lax(data);
    match (&lax, &lax_ref) {
        (Ok(s), Ok(r)) => assert_eq!(s.to_compact(), r.serialize_compact(), "lax DER values"),
        (Err(_), Err(_)) => {}
        _ => panic!("lax DER verdicts differ: ours {lax:?}, libsecp256k1 {lax_ref:?}"),
    }
    if let Ok(sig) = strict {
        // Strict DER reads a negative or over-long integer as zero, as libsecp256k1 does; lax
        // DER (Core's) reads the same bytes as unsigned, so only the other signatures must
        // come out equal.
        if !sig.r.is_zero() && !sig.s.is_zero() {
            assert_eq!(lax, Ok(sig), "lax DER rejects or changes a strict DER signature");
        } else {
            assert!(lax.is_ok(), "lax DER rejects a strict DER signature");
        }
        let der = sig.to_der();
        let zero = [0u8; 32];
        if der != data {
            assert!(
                sig.r.to_bytes() == zero || sig.s.to_bytes() == zero,
                "a strict DER signature without an overflowed integer re-encodes to other bytes"
            );
        }
        assert_eq!(ecdsa::Signature::from_der(&der), Ok(sig));
        assert_eq!(ecdsa::Signature::from_der_lax(&der), Ok(sig));
    }
    if let Ok(sig) = lax {
        assert_eq!(ecdsa::Signature::from_der(&sig.to_der()), Ok(sig));
    }
}

fn compact(data: &[u8]) {
    let Some(b) = data.get(..64) else { return };
    let b: [u8; 64] = b.try_into().expect("64");
    let ours = ecdsa::Signature::from_compact(&b);
    let theirs = secp256k1::ecdsa::Signature::from_compact(&b);
    assert_eq!(ours.is_ok(), theirs.is_ok(), "compact verdicts differ");
    if let Ok(sig) = ours {
        assert_eq!(sig.to_compact(), b);
        let mut low = sig;
        let was_high = low.normalize_s();
        assert!(!low.s.is_high());
        let mut r = theirs.expect("checked");
        r.normalize_s();
        assert_eq!(low.to_compact(), r.serialize_compact(), "normalize_s");
        assert_eq!(was_high, low != sig);
    }
}

fn pubkeys(data: &[u8]) {
    let ours = PublicKey::parse_with(Backend::portable(), data);
    let theirs = secp256k1::PublicKey::from_slice(data);
    match (&ours, &theirs) {
        (Ok(k), Ok(r)) => {
            assert_eq!(k.serialize_uncompressed(), r.serialize_uncompressed(), "key points differ");
            assert_eq!(k.serialize_compressed(), r.serialize());
            assert_eq!(PublicKey::parse(&k.serialize_compressed()), Ok(*k));
            assert_eq!(PublicKey::parse(&k.serialize_uncompressed()), Ok(*k));
            match data.len() {
                33 => assert_eq!(&k.serialize_compressed()[..], data),
                _ if data[0] == 0x04 => assert_eq!(&k.serialize_uncompressed()[..], data),
                _ => assert_eq!(&k.serialize_uncompressed()[1..], &data[1..], "hybrid key"),
            }
            let (x, odd) = k.x_only();
            assert_eq!(x.serialize()[..], k.serialize_compressed()[1..]);
            assert_eq!(odd, k.serialize_compressed()[0] == 0x03);
        }
        (Err(_), Err(_)) => {}
        _ => panic!("public key verdicts differ: ours {ours:?}, libsecp256k1 {theirs:?}"),
    }
    for backend in Backend::available() {
        assert_eq!(PublicKey::parse_with(backend, data), ours, "parse_with on {backend}");
        // In bulk, among other keys (a group of eight and a remainder).
        let filler = k_g();
        let mut keys: Vec<&[u8]> = vec![&filler; 9];
        keys.insert(3, data);
        keys.push(data);
        let many = PublicKey::parse_many_with(backend, &keys);
        assert_eq!(many[3], ours, "parse_many_with on {backend}");
        assert_eq!(many[10], ours, "parse_many_with on {backend}");
    }
}

/// The compressed generator, a key that always parses.
fn k_g() -> [u8; 33] {
    let mut g = [0u8; 33];
    g[0] = 0x02;
    g[1..].copy_from_slice(&[
        0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0, 0x62, 0x95, 0xce, 0x87, 0x0b, 0x07, 0x02,
        0x9b, 0xfc, 0xdb, 0x2d, 0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98,
    ]);
    g
}

fn xonly(data: &[u8]) {
    let Some(b) = data.get(..32) else { return };
    let b: [u8; 32] = b.try_into().expect("32");
    let ours = XOnlyPublicKey::parse_with(Backend::portable(), &b);
    let theirs = secp256k1::XOnlyPublicKey::from_byte_array(b);
    assert_eq!(ours.is_ok(), theirs.is_ok(), "x-only verdicts differ: {ours:?} {theirs:?}");
    if let Ok(k) = &ours {
        assert_eq!(k.serialize(), b);
    }
    for backend in Backend::available() {
        assert_eq!(XOnlyPublicKey::parse_with(backend, &b), ours, "x-only parse_with on {backend}");
        let many = XOnlyPublicKey::parse_many_with(backend, &[b; 9]);
        assert!(many.iter().all(|k| *k == ours), "x-only parse_many_with on {backend}");
    }
}

/// Flips bit `at` (modulo the length) of `bytes`.
fn flip(bytes: &mut [u8], at: u8) {
    let n = bytes.len() * 8;
    let bit = (at as usize * 7) % n;
    bytes[bit / 8] ^= 1 << (bit % 8);
}

fn verify(data: &[u8]) {
    let mut cut = Cut::new(data);
    let mode = cut.byte();
    // In the signing mode: 0 leaves the signatures as made, 1-3 tamper with one part.
    let how = (mode >> 1) % 4;
    let tamper = cut.byte();
    let msg: [u8; 32] = cut.array();
    let (key_bytes, xkey_bytes, der_sig, schnorr_sig) = if mode & 1 == 0 {
        // Everything from the input: a compressed key, an x-only key, a DER and a BIP340 sig.
        let key: [u8; 33] = cut.array();
        let xkey: [u8; 32] = cut.array();
        let sch: [u8; 64] = cut.array();
        (key.to_vec(), xkey, cut.rest().to_vec(), sch)
    } else {
        // A secret key and auxiliary randomness from the input; sign, then maybe tamper.
        let sk: [u8; 32] = cut.array();
        let aux: [u8; 32] = cut.array();
        let Ok(pk) = PublicKey::from_secret(&sk) else { return };
        let Ok(sig) = ecdsa::try_sign(&sk, &msg) else { return };
        let Ok(sch) = schnorr::try_sign(&sk, &msg, &aux) else { return };
        let mut der = sig.to_der();
        let mut key = pk.serialize_compressed().to_vec();
        let mut xkey = pk.x_only().0.serialize();
        let mut sch = sch;
        match how {
            1 => flip(&mut der, tamper),
            2 => {
                flip(&mut key[1..], tamper);
                flip(&mut xkey, tamper);
            }
            3 => flip(&mut sch, tamper),
            _ => {}
        }
        if mode & 0x10 != 0 {
            // A high s (consensus normalises it; libsecp256k1 alone would reject it).
            let mut high = ecdsa::Signature::from_der(&der).unwrap_or(sig);
            high.s = high.s.negate();
            der = high.to_der();
        }
        (key, xkey, der, sch)
    };
    let msg_for_schnorr: Vec<u8> =
        if mode & 0x20 != 0 { msg[..(tamper % 33) as usize].to_vec() } else { msg.to_vec() };

    // ECDSA.
    if let (Ok(pk), Ok(sig)) = (PublicKey::parse(&key_bytes), ecdsa::Signature::from_der_lax(&der_sig)) {
        let want = ecdsa::verify_with(Backend::portable(), &pk, &msg, &sig);
        for backend in Backend::available() {
            assert_eq!(ecdsa::verify_with(backend, &pk, &msg, &sig), want, "ECDSA verify on {backend}");
            let items = vec![(&pk, &msg, &sig); 9];
            let many = ecdsa::verify_many(backend, &items);
            assert!(many.iter().all(|&v| v == want), "ECDSA verify_many on {backend}");
        }
        let rpk = secp256k1::PublicKey::from_slice(&key_bytes).expect("libsecp256k1 parses the key");
        let mut rsig = secp256k1::ecdsa::Signature::from_compact(&sig.to_compact())
            .or_else(|_| secp256k1::ecdsa::Signature::from_der_lax(&der_sig))
            .expect("libsecp256k1 parses the signature");
        rsig.normalize_s();
        let theirs = secp256k1::ecdsa::verify(&rsig, secp256k1::Message::from_digest(msg), &rpk).is_ok();
        assert_eq!(want, theirs, "ECDSA verdict differs from libsecp256k1");
        if mode & 1 == 1 && how == 0 {
            assert!(want, "a fresh ECDSA signature does not verify");
        }
    }

    // BIP340.
    if let Ok(xk) = XOnlyPublicKey::parse(&xkey_bytes) {
        let want = schnorr::verify_with(Backend::portable(), &xk, &msg_for_schnorr, &schnorr_sig);
        for backend in Backend::available() {
            assert_eq!(
                schnorr::verify_with(backend, &xk, &msg_for_schnorr, &schnorr_sig),
                want,
                "BIP340 verify on {backend}"
            );
            let items = vec![(&xk, &msg_for_schnorr[..], &schnorr_sig); 9];
            let many = schnorr::verify_many(backend, &items);
            assert!(many.iter().all(|&v| v == want), "BIP340 verify_many on {backend}");
            let batch = [(&xk, &msg_for_schnorr[..], &schnorr_sig); 3];
            assert_eq!(schnorr::verify_batch_with(backend, &batch), want, "BIP340 batch on {backend}");
        }
        let rxk =
            secp256k1::XOnlyPublicKey::from_byte_array(xkey_bytes).expect("libsecp256k1 parses the key");
        let rsig = secp256k1::schnorr::Signature::from_byte_array(schnorr_sig);
        let theirs = secp256k1::schnorr::verify(&rsig, &msg_for_schnorr, &rxk).is_ok();
        assert_eq!(want, theirs, "BIP340 verdict differs from libsecp256k1");
        if mode & 1 == 1 && how == 0 && mode & 0x20 == 0 {
            assert!(want, "a fresh BIP340 signature does not verify");
        }
    }
}
