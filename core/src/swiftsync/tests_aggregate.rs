// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP 457 aggregate tests: the element layout byte by byte, the digest against the `sha2`
//! crate, the adder on chosen integers, balance under reordering, and every way a changed,
//! dropped or repeated coin unbalances it.

use super::*;
use crate::encode::{OutPoint, TxOut};
use crate::utxo::Coin;
use fullverify_testkit::SplitMix64;
use sha2::Digest;

fn salt(seed: u8) -> Salt {
    Salt::from_bytes([seed; 32])
}

/// Owned coin data for tests.
#[derive(Clone, Debug, PartialEq)]
struct TestCoin {
    outpoint: OutPoint,
    height: u32,
    coinbase: bool,
    script: Vec<u8>,
    amount: u64,
}

impl TestCoin {
    fn element(&self) -> CoinElement<'_> {
        CoinElement {
            outpoint: self.outpoint,
            height: self.height,
            coinbase: self.coinbase,
            script_pubkey: &self.script,
            amount: self.amount,
        }
    }
}

fn random_coin(rng: &mut SplitMix64) -> TestCoin {
    let len = [0usize, 22, 25, 34, 67, 105, 180, 216, 300, 10_000][(rng.next_u64() % 10) as usize];
    let mut script = vec![0u8; len];
    rng.fill(&mut script);
    TestCoin {
        outpoint: OutPoint { txid: rng.bytes32(), vout: (rng.next_u64() % 5000) as u32 },
        height: (rng.next_u64() % 1_000_000) as u32,
        coinbase: rng.next_u64().is_multiple_of(4),
        script,
        amount: rng.next_u64() % 2_100_000_000_000_000,
    }
}

#[test]
fn element_layout_byte_by_byte() {
    let c = TestCoin {
        outpoint: OutPoint { txid: core::array::from_fn(|i| i as u8), vout: 0x0403_0201 },
        height: 0x0012_3456,
        coinbase: true,
        script: vec![0x51, 0x20, 0xaa],
        amount: 0x0807_0605_0403_0201,
    };
    let mut got = Vec::new();
    c.element().serialize(&mut got);
    let mut want = vec![0xad, 0x68, 0x24, 0x00]; // (0x123456 << 1) | 1, little-endian
    want.extend([0x03, 0x51, 0x20, 0xaa]); // CompactSize length, script
    want.extend([1, 2, 3, 4, 5, 6, 7, 8]); // amount, little-endian
    want.extend(0u8..32); // txid
    want.extend([1, 2, 3, 4]); // vout, little-endian
    assert_eq!(got, want);
    assert_eq!(c.element().serialized_len(), want.len());
    assert_eq!(c.element().height_code(), 0x0024_68ad);
    // A 253-byte script takes a three-byte CompactSize.
    let long = TestCoin { script: vec![7; 253], coinbase: false, ..c.clone() };
    let mut got = Vec::new();
    long.element().serialize(&mut got);
    assert_eq!(&got[..7], &[0xac, 0x68, 0x24, 0x00, 0xfd, 0xfd, 0x00]);
    assert_eq!(got.len(), long.element().serialized_len());
    // From a Coin and from a TxOut alike.
    let coin = Coin { out: TxOut { value: 5, script_pubkey: vec![1, 2] }, height: 9, coinbase: false };
    let e = CoinElement::from_coin(c.outpoint, &coin);
    assert_eq!(e, CoinElement::from_output(c.outpoint, &coin.out, 9, false));
    assert_eq!((e.amount, e.height, e.script_pubkey), (5, 9, &[1u8, 2][..]));
}

#[test]
fn digest_is_salted_sha256_of_the_element() {
    let mut rng = SplitMix64(457);
    let s = Salt::from_bytes(rng.bytes32());
    let agg = Aggregate::new(s.clone());
    // Every script length across the fast path's block boundaries and into the streamed path.
    for len in (0..260).chain([300, 520, 10_000]) {
        let mut c = random_coin(&mut rng);
        c.script = vec![0u8; len];
        rng.fill(&mut c.script);
        let mut msg = s.as_bytes().to_vec();
        c.element().serialize(&mut msg);
        let want: [u8; 32] = sha2::Sha256::digest(&msg).into();
        assert_eq!(agg.element_hash(&c.element()), want, "script length {len}");
        assert_eq!(agg.element_bytes_hash(&msg[32..]), want);
        // add() sums exactly that digest read big-endian.
        let mut a = Aggregate::new(s.clone());
        a.add(&c.element());
        assert_eq!(a.value(), want);
        let mut b = Aggregate::new(s.clone());
        b.add_element_bytes(&msg[32..]);
        assert_eq!(a, b);
    }
}

/// `v` as a 256-bit big-endian integer with `x` in the low limb and `hi` in the high one.
fn int(hi: u64, x: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..8].copy_from_slice(&hi.to_be_bytes());
    b[24..].copy_from_slice(&x.to_be_bytes());
    b
}

#[test]
fn adder_on_chosen_integers() {
    let max = [0xffu8; 32];
    let zero = [0u8; 32];
    let one = int(0, 1);
    let mut a = Aggregate::new(salt(1));
    a.add_hash(&zero);
    assert!(a.is_balanced());
    a.add_hash(&max);
    assert_eq!(a.value(), max);
    a.add_hash(&one); // 2^256 − 1 + 1 wraps to 0
    assert!(a.is_balanced());
    a.sub_hash(&one); // 0 − 1 wraps to 2^256 − 1
    assert_eq!(a.value(), max);
    a.add_hash(&max); // (2^256 − 1)·2 = 2^256 − 2
    assert_eq!(a.value(), {
        let mut m = max;
        m[31] = 0xfe;
        m
    });
    // Carries across every limb: 2^64 − 1 + 1 = 2^64, then 2^128 − 1 + 1, 2^192 − 1 + 1.
    for limbs in 1..=3usize {
        let mut a = Aggregate::new(salt(1));
        let mut v = [0u8; 32];
        v[32 - 8 * limbs..].fill(0xff);
        a.add_hash(&v);
        a.add_hash(&one);
        let mut want = [0u8; 32];
        want[31 - 8 * limbs] = 1;
        assert_eq!(a.value(), want, "carry out of {limbs} limbs");
        a.sub_hash(&one); // the borrow runs back down
        assert_eq!(a.value(), v);
    }
    // High limb overflow is dropped: 2^255 + 2^255 = 0.
    let mut a = Aggregate::new(salt(1));
    a.add_hash(&int(1 << 63, 0));
    a.add_hash(&int(1 << 63, 0));
    assert!(a.is_balanced());
    // Against u128 pairs on random values: (a + b) − b = a and sums agree with num-bigint.
    let mut rng = SplitMix64(3);
    let m = num_bigint::BigUint::from(1u8) << 256;
    let mut acc = Aggregate::new(salt(1));
    let mut want = num_bigint::BigUint::from(0u8);
    for _ in 0..2000 {
        let v = rng.bytes32();
        let big = num_bigint::BigUint::from_bytes_be(&v);
        if rng.next_u64().is_multiple_of(3) {
            acc.sub_hash(&v);
            want = (want + &m - big) % &m;
        } else {
            acc.add_hash(&v);
            want = (want + big) % &m;
        }
        let mut w = want.to_bytes_be();
        while w.len() < 32 {
            w.insert(0, 0);
        }
        assert_eq!(acc.value().to_vec(), w);
    }
}

#[test]
fn add_then_sub_balances_in_any_order() {
    let mut rng = SplitMix64(fullverify_testkit::test_seed() ^ 11);
    let coins: Vec<TestCoin> = (0..300).map(|_| random_coin(&mut rng)).collect();
    let mut a = Aggregate::new(salt(9));
    for c in &coins {
        a.add(&c.element());
    }
    assert!(!a.is_balanced());
    // Subtract in a shuffled order.
    let mut order: Vec<usize> = (0..coins.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    for &i in &order {
        a.sub(&coins[i].element());
    }
    assert!(a.is_balanced());
    // Two aggregates, outputs and inputs, compare equal.
    let (mut outs, mut ins) = (Aggregate::new(salt(9)), Aggregate::new(salt(9)));
    for (c, &i) in coins.iter().zip(&order) {
        outs.add(&c.element());
        ins.add(&coins[i].element());
    }
    assert_eq!(outs, ins);
    // A different salt gives a different sum of the same coins.
    let mut other = Aggregate::new(salt(10));
    for c in &coins {
        other.add(&c.element());
    }
    assert_ne!(other.value(), outs.value());
}

/// Adds `added` and subtracts `spent`; whether the result balances.
fn balances(added: &[TestCoin], spent: &[TestCoin]) -> bool {
    let mut a = Aggregate::new(salt(4));
    added.iter().for_each(|c| a.add(&c.element()));
    spent.iter().for_each(|c| a.sub(&c.element()));
    a.is_balanced()
}

#[test]
fn any_changed_field_unbalances() {
    let mut rng = SplitMix64(21);
    let coins: Vec<TestCoin> = (0..20).map(|_| random_coin(&mut rng)).collect();
    assert!(balances(&coins, &coins));
    type Mutation = fn(&mut TestCoin);
    let mutations: &[(&str, Mutation)] = &[
        ("amount", |c| c.amount ^= 1),
        ("amount high bit", |c| c.amount ^= 1 << 63),
        ("height", |c| c.height ^= 1),
        ("coinbase flag", |c| c.coinbase = !c.coinbase),
        ("script byte", |c| match c.script.first_mut() {
            Some(b) => *b ^= 0x80,
            None => c.script.push(0),
        }),
        ("script length", |c| c.script.push(0)),
        ("txid", |c| c.outpoint.txid[31] ^= 1),
        ("vout", |c| c.outpoint.vout ^= 1),
    ];
    for (name, f) in mutations {
        for i in [0, 7, 19] {
            let mut spent = coins.clone();
            f(&mut spent[i]);
            assert_ne!(spent[i], coins[i]);
            assert!(!balances(&coins, &spent), "changed {name} of coin {i} still balances");
        }
    }
    // Height and coinbase flag swapped into each other's bit: height·2 + 1 vs (height·2 + 1)·1.
    let mut a = coins[0].clone();
    a.height = 5;
    a.coinbase = true;
    let mut b = a.clone();
    b.height = 11; // code 22 vs code 11 — different, and the hash sees the code
    b.coinbase = false;
    assert!(!balances(&[a], &[b]));
}

#[test]
fn dropped_or_repeated_coin_unbalances() {
    let mut rng = SplitMix64(31);
    let coins: Vec<TestCoin> = (0..50).map(|_| random_coin(&mut rng)).collect();
    assert!(!balances(&coins, &coins[1..]), "dropped spend");
    assert!(!balances(&coins[1..], &coins), "spend of a coin never added");
    let mut twice = coins.clone();
    twice.push(coins[3].clone());
    assert!(!balances(&coins, &twice), "coin spent twice");
    assert!(!balances(&twice, &coins), "coin added twice, spent once");
    assert!(balances(&twice, &twice), "a multiset, not a set");
}

#[test]
fn combine_of_partial_sums_equals_one_sum() {
    let mut rng = SplitMix64(41);
    let coins: Vec<TestCoin> = (0..400).map(|_| random_coin(&mut rng)).collect();
    let mut whole = Aggregate::new(salt(2));
    coins.iter().for_each(|c| whole.add(&c.element()));
    for workers in [1usize, 2, 3, 7, 16] {
        let mut parts: Vec<Aggregate> = (0..workers).map(|_| Aggregate::new(salt(2))).collect();
        for (i, c) in coins.iter().enumerate() {
            parts[i % workers].add(&c.element());
        }
        let mut merged = Aggregate::new(salt(2));
        parts.iter().for_each(|p| merged.combine(p));
        assert_eq!(merged, whole, "{workers} workers");
    }
    // Workers that only subtract merge into the balancing total too.
    let mut spent = Aggregate::new(salt(2));
    coins.iter().for_each(|c| spent.sub(&c.element()));
    let mut total = whole.clone();
    total.combine(&spent);
    assert!(total.is_balanced());
}

#[test]
#[should_panic(expected = "different salts")]
fn combine_refuses_other_salts() {
    Aggregate::new(salt(1)).combine(&Aggregate::new(salt(2)));
}

#[test]
fn salt_is_not_printed() {
    let s = salt(0xab);
    assert_eq!(format!("{s:?}"), "Salt(..)");
    let a = Aggregate::new(s);
    assert!(!format!("{a:?}").contains("abab"));
    #[cfg(unix)]
    assert_ne!(Salt::from_os_random().unwrap(), Salt::from_os_random().unwrap());
}
