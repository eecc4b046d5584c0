// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every parser fed arbitrary bytes (no panics), and the key and DER parsers compared with
//! libsecp256k1's (strict DER, Core-style lax DER, SEC1 keys including hybrid forms).

use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use proptest::prelude::*;
use secp256k1 as ls;

fn check_pubkey(b: &[u8]) {
    let ours = PublicKey::parse(b);
    // libsecp256k1 (as wrapped by the crate) accepts 33- and 65-byte keys, hybrid included.
    let theirs = ls::PublicKey::from_slice(b);
    assert_eq!(ours.is_ok(), theirs.is_ok(), "pubkey {}", hex::encode(b));
    if let (Ok(o), Ok(t)) = (ours, theirs) {
        assert_eq!(o.serialize_uncompressed(), t.serialize_uncompressed());
    }
}

fn check_der(b: &[u8]) {
    let strict = ecdsa::Signature::from_der(b);
    let theirs = ls::ecdsa::Signature::from_der(b);
    assert_eq!(strict.is_ok(), theirs.is_ok(), "strict DER {}", hex::encode(b));
    if let (Ok(o), Ok(t)) = (strict, theirs) {
        assert_eq!(o.to_compact(), t.serialize_compact());
    }
    let lax = ecdsa::Signature::from_der_lax(b);
    let theirs = ls::ecdsa::Signature::from_der_lax(b);
    assert_eq!(lax.is_ok(), theirs.is_ok(), "lax DER {}", hex::encode(b));
    if let (Ok(o), Ok(t)) = (lax, theirs) {
        assert_eq!(o.to_compact(), t.serialize_compact());
    }
}

/// Byte strings shaped like DER signatures with random damage.
fn der_like() -> impl Strategy<Value = Vec<u8>> {
    (any::<[u8; 32]>(), any::<[u8; 32]>(), 0usize..40, 0usize..40, any::<u64>()).prop_map(
        |(r, s, rl, sl, m)| {
            let rl = rl.min(33);
            let sl = sl.min(33);
            let mut v = vec![0x30, 0, 0x02, rl as u8];
            v.extend((0..rl).map(|i| if i == 0 && m & 1 == 1 { 0 } else { r[i % 32] }));
            v.push(0x02);
            v.push(sl as u8);
            v.extend((0..sl).map(|i| if i == 0 && m & 2 == 2 { 0 } else { s[i % 32] }));
            v[1] = (v.len() - 2) as u8;
            match (m >> 2) % 8 {
                0 => v[1] = v[1].wrapping_add(1),
                1 => v.push((m >> 8) as u8),
                2 => {
                    // Long-form sequence length.
                    let l = v[1];
                    v[1] = 0x81;
                    v.insert(2, l);
                }
                3 => {
                    let i = (m >> 16) as usize % v.len();
                    v[i] ^= (m >> 24) as u8;
                }
                4 => {
                    let l = (m >> 32) as usize % v.len();
                    v.truncate(l);
                }
                _ => {}
            }
            v
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn parsers_never_panic_on_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..100)) {
        let _ = PublicKey::parse(&b);
        let _ = ecdsa::Signature::from_der(&b);
        let _ = ecdsa::Signature::from_der_lax(&b);
        if b.len() >= 64 {
            let c: [u8; 64] = b[..64].try_into().unwrap();
            let _ = ecdsa::Signature::from_compact(&c);
            let x: [u8; 32] = b[..32].try_into().unwrap();
            if let Ok(pk) = XOnlyPublicKey::parse(&x) {
                let _ = schnorr::verify(&pk, &b[64..], &c);
            }
        }
        check_der(&b);
        if b.len() == 33 || b.len() == 65 {
            check_pubkey(&b);
        }
    }

    #[test]
    fn der_parsers_vs_libsecp256k1(v in der_like()) {
        check_der(&v);
    }

    #[test]
    fn pubkey_parse_vs_libsecp256k1(x in any::<[u8; 32]>(), y in any::<[u8; 32]>(), prefix in 0u8..9, compressed in any::<bool>()) {
        let mut b = vec![prefix];
        b.extend_from_slice(&x);
        if !compressed {
            b.extend_from_slice(&y);
        }
        check_pubkey(&b);
        // And the valid forms of a real key, with the hybrid prefixes.
        if let Ok(pk) = PublicKey::parse(&[&[0x02u8][..], &x[..]].concat()) {
            let mut u = pk.serialize_uncompressed();
            check_pubkey(&u);
            u[0] = 0x06 | (u[64] & 1);
            check_pubkey(&u);
            assert!(PublicKey::parse(&u).is_ok());
            u[0] ^= 1;
            check_pubkey(&u);
            assert!(PublicKey::parse(&u).is_err());
        }
    }

    #[test]
    fn xonly_parse_vs_libsecp256k1(x in any::<[u8; 32]>()) {
        let ours = XOnlyPublicKey::parse(&x);
        let theirs = ls::XOnlyPublicKey::from_byte_array(x);
        prop_assert_eq!(ours.is_ok(), theirs.is_ok());
    }
}

#[test]
fn known_der_edge_cases() {
    // A "negative" r: lax DER reads the bytes as unsigned (r = 0x80); strict DER parses it as
    // an out-of-range integer and yields the zero signature.
    let neg = hex::decode("3006020180020101").unwrap();
    let lax = ecdsa::Signature::from_der_lax(&neg).unwrap();
    assert_eq!(lax.r, fullverify::secp256k1::Scalar::from_u64(0x80));
    assert!(ecdsa::Signature::from_der(&neg).unwrap().r.is_zero());
    check_der(&neg);
    // The same for a 32-byte s with its top bit set (found by the sig_parse fuzz target, whose
    // property had assumed lax DER gives strict DER's values whenever strict DER accepts):
    // strict s = 0, lax s = the unsigned bytes, both as libsecp256k1.
    let neg_s = hex::decode(
        "304402200e2c149b114ec546015c13b2b464bbcb0cdc5872e6775787527af6cbc4830b6c0220fed396c6979fb15a9a2b\
         96caa634866eaf20dc0ff3c03e512c1d5a1654f14801",
    )
    .unwrap();
    assert!(ecdsa::Signature::from_der(&neg_s).unwrap().s.is_zero());
    assert_eq!(ecdsa::Signature::from_der_lax(&neg_s).unwrap().s.to_bytes()[..2], [0xfe, 0xd3]);
    check_der(&neg_s);
    // Excess padding: lax accepts, strict rejects.
    let pad = hex::decode("300702020001020101").unwrap();
    assert!(ecdsa::Signature::from_der(&pad).is_err());
    assert!(ecdsa::Signature::from_der_lax(&pad).is_ok());
    check_der(&pad);
    // Garbage after the sequence: lax accepts.
    let garbage = hex::decode("3006020101020101ffff").unwrap();
    assert!(ecdsa::Signature::from_der_lax(&garbage).is_ok());
    assert!(ecdsa::Signature::from_der(&garbage).is_err());
    check_der(&garbage);
    // A zero or overflowing signature never verifies.
    let pk = PublicKey::from_secret(&[1u8; 32]).unwrap();
    let zero = ecdsa::Signature::from_der_lax(
        &hex::decode("3026022100ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff020101")
            .unwrap(),
    )
    .unwrap();
    assert!(zero.r.is_zero() && zero.s.is_zero());
    assert!(!ecdsa::verify(&pk, &[0u8; 32], &zero));
    assert!(!ecdsa::verify(&pk, &[0u8; 32], &lax));
    assert!(ecdsa::Signature::from_compact(&[0xFF; 64]).is_err());
}
