// SPDX-License-Identifier: MIT OR Apache-2.0
//! MuHash3072 (fullverify::muhash) under fuzzed element sets and fuzzed 3072-bit numbers.
//!
//! Properties:
//! - the hash of a multiset does not depend on the order of insertion (the input's order, its
//!   reverse and a rotation chosen by the input);
//! - inserting an element and removing it again is the identity; so is `combine` followed by
//!   `remove_set` of the same accumulator, and union by `combine` equals inserting both sets;
//! - `deserialize(serialize(x)) == x`;
//! - every backend's `insert_with` gives the same state;
//! - `Num3072::mul` (every backend) is `a·b mod m` of a num-bigint reference, for inputs
//!   anywhere below 2^3072 (weakly reduced ones included), and `reduced` is the canonical
//!   residue; `inverse` is the reference's modular inverse (checked for one value of the mode
//!   byte only: one inversion is some 3,000 products, about a second in the instrumented build).
//!
//! Equality of two accumulators is checked without inversion, as n₁·d₂ = n₂·d₁ (mod m);
//! `finalize` (one inversion) runs for one value of the mode byte.
#![no_main]

use fullverify::muhash::{MuHash3072, Num3072};
use fullverify::Backend;
use fuzz_support::Cut;
use libfuzzer_sys::fuzz_target;
use num_bigint::BigUint;
use std::sync::OnceLock;

fn modulus() -> &'static BigUint {
    static M: OnceLock<BigUint> = OnceLock::new();
    M.get_or_init(|| (BigUint::from(1u8) << 3072u32) - BigUint::from(1_103_717u32))
}

fn big(n: &Num3072) -> BigUint {
    BigUint::from_bytes_le(&n.to_le_bytes())
}

fn parts(h: &MuHash3072) -> (Num3072, Num3072) {
    let s = h.serialize();
    (
        Num3072::from_le_bytes(s[..384].try_into().expect("384")),
        Num3072::from_le_bytes(s[384..].try_into().expect("384")),
    )
}

/// Whether two accumulators hold the same multiset: n₁·d₂ ≡ n₂·d₁ (mod m).
fn same_set(a: &MuHash3072, b: &MuHash3072) -> bool {
    let (na, da) = parts(a);
    let (nb, db) = parts(b);
    na.mul(&db).reduced() == nb.mul(&da).reduced()
}

fuzz_target!(|data: &[u8]| {
    let mut cut = Cut::new(data);
    let flags = cut.byte();
    if flags & 0x80 != 0 {
        numbers(&mut cut, flags);
    } else {
        sets(&mut cut, flags);
    }
});

/// The input as elements: a length byte (0..=63) and that many bytes, at most 24 elements.
fn sets(cut: &mut Cut<'_>, flags: u8) {
    let mut elems: Vec<&[u8]> = Vec::new();
    while !cut.is_empty() && elems.len() < 24 {
        let n = (cut.byte() & 63) as usize;
        elems.push(cut.take(n));
    }
    let split = if elems.is_empty() { 0 } else { (flags as usize) % (elems.len() + 1) };

    let mut forward = MuHash3072::new();
    for e in &elems {
        forward.insert(e);
    }
    let mut backward = MuHash3072::new();
    for e in elems.iter().rev() {
        backward.insert(e);
    }
    let mut rotated = MuHash3072::new();
    for e in elems[split..].iter().chain(&elems[..split]) {
        rotated.insert(e);
    }
    assert!(same_set(&forward, &backward), "order changed the set hash");
    assert!(same_set(&forward, &rotated), "order changed the set hash");

    // The two halves combined are the whole.
    let (lo, hi) = elems.split_at(split);
    let mut a = MuHash3072::new();
    for e in lo {
        a.insert(e);
    }
    let mut b = MuHash3072::new();
    for e in hi {
        b.insert(e);
    }
    let mut union = a;
    union.combine(&b);
    assert!(same_set(&union, &forward), "combine is not set union");
    union.remove_set(&b);
    assert!(same_set(&union, &a), "remove_set does not undo combine");

    // Insert then remove an extra element (the last one, again): the identity.
    let mut extra = forward;
    let x = elems.last().copied().unwrap_or(b"");
    extra.insert(x).remove(x);
    assert!(same_set(&extra, &forward), "insert then remove is not the identity");
    // Removing every element leaves the empty set.
    let mut empty = forward;
    for e in &elems {
        empty.remove(e);
    }
    assert!(same_set(&empty, &MuHash3072::new()), "removing every element does not empty the set");

    // Serialization round trip.
    assert_eq!(MuHash3072::deserialize(&forward.serialize()), forward);
    assert_eq!(MuHash3072::deserialize(&extra.serialize()).serialize(), extra.serialize());

    // Backends agree state for state.
    for backend in Backend::available() {
        let mut h = MuHash3072::new();
        for e in &elems {
            h.insert_with(backend, e);
        }
        assert_eq!(h.serialize(), forward.serialize(), "insert_with on {backend}");
    }

    // Finalize (an inversion, about a second in this instrumented build) only for one value
    // of the mode byte: the digests of equal sets are equal, and finalize keeps the set.
    if flags == 0x40 {
        let mut kept = forward;
        let want = kept.finalize();
        assert!(same_set(&kept, &forward), "finalize changed the set");
        assert_eq!(
            MuHash3072::deserialize(&rotated.serialize()).finalize(),
            want,
            "digests of one set differ"
        );
    }
}

/// A 384-byte number from the input: raw bytes, or (by `shape`) one near 2^3072 or near m,
/// where the reduction's edge cases are.
fn number(cut: &mut Cut<'_>) -> Num3072 {
    let shape = cut.byte();
    let raw: [u8; 48] = cut.array();
    let mut b = [0u8; 384];
    match shape % 4 {
        0 => {
            // The 48 bytes repeated: spreads the input over all limbs.
            for (i, x) in b.iter_mut().enumerate() {
                *x = raw[i % 48] ^ (i / 48) as u8;
            }
        }
        1 => {
            // All ones above, fuzzed low bytes: 2^3072 − small, around m = 2^3072 − 1103717.
            b.fill(0xff);
            b[..8].copy_from_slice(&raw[..8]);
        }
        2 => {
            // m + small, m − small (as limbs: 2^3072 − 1103717 ± k).
            let k = u64::from_le_bytes(raw[..8].try_into().expect("8")) % 4_000_000;
            let low = (u64::MAX - 1_103_717 + 1).wrapping_add(k).wrapping_sub(2_000_000);
            b.fill(0xff);
            b[..8].copy_from_slice(&low.to_le_bytes());
        }
        _ => {
            // Small: fuzzed low limbs, zeros above.
            b[..48].copy_from_slice(&raw);
        }
    }
    Num3072::from_le_bytes(&b)
}

fn numbers(cut: &mut Cut<'_>, flags: u8) {
    let a = number(cut);
    let b = number(cut);
    let m = modulus();
    let (ba, bb) = (big(&a), big(&b));
    let want = (&ba * &bb) % m;
    let got = a.mul(&b);
    assert!(big(&got) < (BigUint::from(1u8) << 3072u32));
    assert_eq!(big(&got.reduced()), want, "mul");
    assert_eq!(big(&a.reduced()), &ba % m, "reduced");
    assert_eq!(big(&a.sqr().reduced()), (&ba * &ba) % m, "sqr");
    for backend in Backend::available() {
        assert_eq!(a.mul_with(backend, &b), got, "mul_with on {backend}");
    }
    assert_eq!(b.mul(&a), got, "mul does not commute");
    // The inverse against the reference (Fermat: a^(m−2)), for one value of the mode byte.
    if flags == 0xc0 {
        let inv = a.inverse();
        let r = &ba % m;
        if r == BigUint::from(0u8) {
            assert_eq!(big(&inv), BigUint::from(0u8));
        } else {
            assert_eq!((big(&inv) * &r) % m, BigUint::from(1u8), "inverse");
            assert!(big(&inv) < *m);
        }
    }
}
