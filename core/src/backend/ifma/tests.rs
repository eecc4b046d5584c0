// SPDX-License-Identifier: MIT OR Apache-2.0
//! Tests of the IFMA kernels: the `Emulated` lanes against a `u128` model of each instruction,
//! `Ifma` against `Emulated` bit for bit (on IFMA CPUs), `Fe5x52x8` against the scalar field
//! and `num-bigint`, and the 52-bit Num3072 product against the 64-bit one and `num-bigint`.

use super::field::Fe5x52x8;
use super::lanes::{Emulated, Lanes};
use crate::backend::portable::field::Fe5x52;
#[cfg(target_arch = "x86_64")]
use crate::backend::BackendKind;
use crate::muhash::Num3072;
use fullverify_testkit::{test_iters, test_seed, SplitMix64};
use num_bigint::BigUint;

const M52: u64 = (1 << 52) - 1;

/// Inputs that stress the multiplier: limbs at 2^52 − 1, values with bits 52…63 set (which
/// the multiplier must ignore), zero, one, all ones.
fn lane_value(rng: &mut SplitMix64) -> u64 {
    match rng.next_u64() % 8 {
        0 => M52,
        1 => M52 | (rng.next_u64() << 52),
        2 => 0,
        3 => 1,
        4 => u64::MAX,
        5 => rng.next_u64() & M52,
        6 => (1 << 52) | (rng.next_u64() & 0xFFF),
        _ => rng.next_u64(),
    }
}

fn lanes(rng: &mut SplitMix64) -> [u64; 8] {
    core::array::from_fn(|_| lane_value(rng))
}

/// The `u128` model of each instruction, lane by lane.
mod model {
    pub fn madd52lo(a: u64, b: u64, c: u64) -> u64 {
        let p = (b as u128 % (1 << 52)) * (c as u128 % (1 << 52));
        ((a as u128 + p % (1 << 52)) % (1u128 << 64)) as u64
    }
    pub fn madd52hi(a: u64, b: u64, c: u64) -> u64 {
        let p = (b as u128 % (1 << 52)) * (c as u128 % (1 << 52));
        ((a as u128 + p / (1 << 52)) % (1u128 << 64)) as u64
    }
}

#[test]
fn emulated_lanes_vs_u128_model() {
    let mut rng = SplitMix64(test_seed());
    for _ in 0..test_iters(20_000) {
        let (a, b, c) = (lanes(&mut rng), lanes(&mut rng), lanes(&mut rng));
        let (ea, eb, ec) = (Emulated(a), Emulated(b), Emulated(c));
        let m = rng.next_u64() as u8;
        let lo = ea.madd52lo(eb, ec).0;
        let hi = ea.madd52hi(eb, ec).0;
        for i in 0..8 {
            assert_eq!(lo[i], model::madd52lo(a[i], b[i], c[i]), "madd52lo {:x} {:x} {:x}", a[i], b[i], c[i]);
            assert_eq!(hi[i], model::madd52hi(a[i], b[i], c[i]), "madd52hi {:x} {:x} {:x}", a[i], b[i], c[i]);
            assert_eq!(ea.add(eb).0[i], ((a[i] as u128 + b[i] as u128) % (1 << 64)) as u64);
            assert_eq!(ea.sub(eb).0[i], ((a[i] as u128 + (1 << 64) - b[i] as u128) % (1 << 64)) as u64);
            assert_eq!(ea.and(eb).0[i], a[i] & b[i]);
            assert_eq!(ea.or(eb).0[i], a[i] | b[i]);
            assert_eq!(ea.shr::<52>().0[i], (a[i] as u128 / (1 << 52)) as u64);
            assert_eq!(ea.shr::<48>().0[i], (a[i] as u128 / (1 << 48)) as u64);
            assert_eq!(ea.shl::<4>().0[i], ((a[i] as u128 * 16) % (1 << 64)) as u64);
            assert_eq!(ea.shl::<64>().0[i], 0);
            assert_eq!((ea.eq_mask(eb) >> i) & 1 == 1, a[i] == b[i]);
            assert_eq!((ea.eq_mask(ea) >> i) & 1, 1);
            assert_eq!(Emulated::blend(m, ea, eb).0[i], if (m >> i) & 1 == 1 { b[i] } else { a[i] });
            assert_eq!(ea.permute(eb).0[i], a[(b[i] % 8) as usize]);
        }
        let table: Vec<u64> = (0..64).map(|_| rng.next_u64()).collect();
        let idx: [u64; 8] = core::array::from_fn(|_| rng.next_u64() % 64);
        let g = Emulated::gather(&table, Emulated(idx)).0;
        assert!((0..8).all(|i| g[i] == table[idx[i] as usize]));
        assert_eq!(Emulated::splat(a[0]).0, [a[0]; 8]);
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn ifma_lanes_vs_emulated() {
    use super::lanes::Ifma;
    if crate::backend::require_or_skip(BackendKind::Ifma).is_none() {
        return;
    }
    let mut rng = SplitMix64(test_seed());
    for _ in 0..test_iters(20_000) {
        let (a, b, c) = (lanes(&mut rng), lanes(&mut rng), lanes(&mut rng));
        let (ea, eb, ec) = (Emulated(a), Emulated(b), Emulated(c));
        let (ia, ib, ic) = (Ifma::from_array(a), Ifma::from_array(b), Ifma::from_array(c));
        let m = rng.next_u64() as u8;
        assert_eq!(ia.to_array(), a);
        assert_eq!(ia.madd52lo(ib, ic).to_array(), ea.madd52lo(eb, ec).0);
        assert_eq!(ia.madd52hi(ib, ic).to_array(), ea.madd52hi(eb, ec).0);
        assert_eq!(ia.add(ib).to_array(), ea.add(eb).0);
        assert_eq!(ia.sub(ib).to_array(), ea.sub(eb).0);
        assert_eq!(ia.and(ib).to_array(), ea.and(eb).0);
        assert_eq!(ia.or(ib).to_array(), ea.or(eb).0);
        assert_eq!(ia.shr::<52>().to_array(), ea.shr::<52>().0);
        assert_eq!(ia.shr::<48>().to_array(), ea.shr::<48>().0);
        assert_eq!(ia.shl::<3>().to_array(), ea.shl::<3>().0);
        assert_eq!(ia.eq_mask(ib), ea.eq_mask(eb));
        assert_eq!(ia.eq_mask(ia), 0xFF);
        assert_eq!(Ifma::blend(m, ia, ib).to_array(), Emulated::blend(m, ea, eb).0);
        assert_eq!(ia.permute(ib).to_array(), ea.permute(eb).0);
        assert_eq!(Ifma::splat(c[3]).to_array(), Emulated::splat(c[3]).0);
        let table: Vec<u64> = (0..64).map(|_| rng.next_u64()).collect();
        let idx: [u64; 8] = core::array::from_fn(|_| rng.next_u64() % 64);
        assert_eq!(
            Ifma::gather(&table, Ifma::from_array(idx)).to_array(),
            Emulated::gather(&table, Emulated(idx)).0
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
#[should_panic(expected = "gather index out of range")]
fn ifma_gather_checks_bounds() {
    use super::lanes::Ifma;
    if crate::backend::require_or_skip(BackendKind::Ifma).is_none() {
        panic!("gather index out of range (skipped: no IFMA)");
    }
    let t = [1u64; 8];
    Ifma::gather(&t, Ifma::from_array([0, 1, 2, 3, 4, 5, 6, 8]));
}

// ---- Fe5x52x8 -------------------------------------------------------------------------------

fn p_big() -> BigUint {
    (BigUint::from(1u8) << 256) - BigUint::from(0x1_0000_03D1u64)
}

fn to_big(a: &Fe5x52) -> BigUint {
    let mut v = BigUint::from(0u8);
    for k in (0..5).rev() {
        v = (v << 52) + BigUint::from(a.0[k]);
    }
    v
}

/// Structured values: 0, 1, p−1, p−2^32, 2^255, 2^256−1 mod p, limb-saturated, and random.
fn structured(rng: &mut SplitMix64) -> Fe5x52 {
    let p = crate::secp256k1::field::P_WORDS;
    let w: [u64; 4] = match rng.next_u64() % 10 {
        0 => [0; 4],
        1 => [1, 0, 0, 0],
        2 => [p[0] - 1, p[1], p[2], p[3]],
        3 => [p[0] - (1 << 32), p[1], p[2], p[3]],
        4 => [0, 0, 0, 1 << 63],
        5 => [u64::MAX; 4],
        6 => [M52, M52 << 52 >> 12, u64::MAX >> 4, u64::MAX],
        7 => [rng.next_u64(), 0, 0, rng.next_u64() >> (rng.next_u64() % 64)],
        _ => core::array::from_fn(|_| rng.next_u64()),
    };
    Fe5x52::from_u64x4(w).normalize()
}

/// A weak (not canonical) representation of the same value: limbs pushed toward their
/// bounds by adding p or 2p limb by limb where it fits the invariant.
fn weaken(a: &Fe5x52, rng: &mut SplitMix64) -> Fe5x52 {
    let pl = super::field::P_LIMBS;
    if rng.next_u64().is_multiple_of(2) {
        return *a;
    }
    // a + p: limbs < 2^53, then carry so that limbs 0..3 < 2^52 and limb 4 < 2^49.
    let mut l: [u64; 5] = core::array::from_fn(|k| a.0[k] + pl[k]);
    for k in 0..4 {
        l[k + 1] += l[k] >> 52;
        l[k] &= M52;
    }
    Fe5x52(l)
}

fn check_fe8<L: Lanes>(iters: usize) {
    let mut rng = SplitMix64(test_seed());
    let p = p_big();
    let mut products = 0usize;
    for it in 0..iters {
        let a: [Fe5x52; 8] = core::array::from_fn(|_| structured(&mut rng));
        let b: [Fe5x52; 8] = core::array::from_fn(|_| structured(&mut rng));
        let wa: [Fe5x52; 8] = core::array::from_fn(|i| weaken(&a[i], &mut rng));
        let wb: [Fe5x52; 8] = core::array::from_fn(|i| weaken(&b[i], &mut rng));
        let xa = Fe5x52x8::<L> {
            l: core::array::from_fn(|k| L::from_array(core::array::from_fn(|i| wa[i].0[k]))),
        };
        let xb = Fe5x52x8::<L> {
            l: core::array::from_fn(|k| L::from_array(core::array::from_fn(|i| wb[i].0[k]))),
        };
        let mul = xa.mul(&xb);
        let sqr = xa.sqr();
        let add = xa.add(&xb);
        let sub = xa.sub(&xb);
        let neg = xa.neg();
        let m8 = xa.mul_pow2::<3>();
        let m3 = xa.mul3();
        let norm = mul.normalize();
        type Want<'a> = &'a dyn Fn(usize) -> Fe5x52;
        let checks: [(&Fe5x52x8<L>, Want); 7] = [
            (&mul, &|i| a[i].mul(&b[i])),
            (&sqr, &|i| a[i].sqr()),
            (&add, &|i| a[i].add(&b[i])),
            (&sub, &|i| a[i].add(&b[i].negate(1))),
            (&neg, &|i| a[i].negate(1)),
            (&m8, &|i| a[i].mul_int(8)),
            (&m3, &|i| a[i].mul_int(3)),
        ];
        for (got, want) in checks {
            let g = got.to_lanes();
            for (i, gi) in g.iter().enumerate() {
                // The weak invariant: limbs fit the multiplier.
                assert!(gi.0[..4].iter().all(|&x| x <= M52) && gi.0[4] < 1 << 49, "weak invariant {gi:?}");
                assert_eq!(gi.normalize().0, want(i).normalize().0, "lane {i} of iteration {it}");
            }
        }
        for (i, n) in norm.to_lanes().iter().enumerate() {
            assert_eq!(n.0, a[i].mul(&b[i]).normalize().0, "normalize lane {i}");
        }
        if it % 16 == 0 {
            // num-bigint on every lane of the product.
            for (i, g) in mul.to_lanes().iter().enumerate() {
                assert_eq!(to_big(g) % &p, to_big(&a[i]) * to_big(&b[i]) % &p);
            }
        }
        products += 8;
    }
    assert!(products >= iters * 8);
}

#[test]
fn fe5x52x8_emulated_vs_scalar_field() {
    // 125 000 × 8 = 10^6 lane products (and as many squares, sums, differences).
    check_fe8::<Emulated>(test_iters(125_000));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn fe5x52x8_ifma_vs_scalar_field() {
    if crate::backend::require_or_skip(BackendKind::Ifma).is_none() {
        return;
    }
    check_fe8::<super::lanes::Ifma>(test_iters(125_000));
}

fn check_fe8_inverse<L: Lanes>() {
    let mut rng = SplitMix64(test_seed() ^ 1);
    for _ in 0..test_iters(20) {
        let a: [Fe5x52; 8] = core::array::from_fn(|_| structured(&mut rng));
        let x = Fe5x52x8::<L>::from_lanes(&a);
        let f = x.inv().to_lanes();
        let v = crate::secp256k1::many::inv_lanes_var(&x).to_lanes();
        let z = x.is_zero_mask();
        for i in 0..8 {
            let want = crate::secp256k1::field::inv_var(&a[i]).normalize();
            assert_eq!(f[i].normalize().0, want.0);
            assert_eq!(v[i].normalize().0, want.0);
            assert_eq!((z >> i) & 1 == 1, a[i].normalizes_to_zero_var());
        }
    }
}

#[test]
fn fe5x52x8_inverse_emulated_vs_scalar() {
    check_fe8_inverse::<Emulated>();
}

#[cfg(target_arch = "x86_64")]
#[test]
fn fe5x52x8_inverse_ifma_vs_scalar() {
    if crate::backend::require_or_skip(BackendKind::Ifma).is_none() {
        return;
    }
    check_fe8_inverse::<super::lanes::Ifma>();
}

// ---- Num3072 --------------------------------------------------------------------------------

fn num_big(n: &Num3072) -> BigUint {
    BigUint::from_bytes_le(&n.to_le_bytes())
}

fn num_structured(rng: &mut SplitMix64) -> Num3072 {
    let mut b = [0u8; 384];
    match rng.next_u64() % 5 {
        0 => b = [0xFF; 384],
        1 => b[0] = 1,
        2 => {
            // m − 1 = 2^3072 − 1103718.
            b = [0xFF; 384];
            let low = (u64::MAX - 1_103_717).to_le_bytes();
            b[..8].copy_from_slice(&low);
        }
        _ => rng.fill(&mut b),
    }
    Num3072::from_le_bytes(&b)
}

fn check_num3072<L: Lanes>(iters: usize) {
    let mut rng = SplitMix64(test_seed() ^ 2);
    let m = (BigUint::from(1u8) << 3072) - BigUint::from(1_103_717u32);
    for _ in 0..iters {
        let a = num_structured(&mut rng);
        let b = num_structured(&mut rng);
        let want = a.mul_with(crate::Backend::portable(), &b);
        let got = a.mul_lanes::<L>(&b);
        assert_eq!(got, want);
        assert_eq!(num_big(&got) % &m, num_big(&a) * num_big(&b) % &m);
    }
}

#[test]
fn num3072_emulated_vs_portable_vs_bigint() {
    check_num3072::<Emulated>(test_iters(300));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn num3072_ifma_vs_portable_vs_bigint() {
    let Some(b) = crate::backend::require_or_skip(BackendKind::Ifma) else { return };
    check_num3072::<super::lanes::Ifma>(test_iters(2000));
    let x = Num3072::from_le_bytes(&[0x77; 384]);
    let y = Num3072::from_le_bytes(&[0xEE; 384]);
    assert_eq!(x.mul_with(b, &y), x.mul_with(crate::Backend::portable(), &y));
}

// ---- Num3072 in 52-bit limbs (the running product of the final MuHash) -----------------------

use super::num3072::{
    fold_over, limbs52_from_le_bytes, mul_mod_limbs52, to_limbs52, words_from_limbs52, LIMBS52,
};

fn limbs_big(l: &[u64; LIMBS52]) -> BigUint {
    l.iter().rev().fold(BigUint::from(0u8), |acc, &v| (acc << 52) + BigUint::from(v))
}

fn muhash_modulus() -> BigUint {
    (BigUint::from(1u8) << 3072) - BigUint::from(1_103_717u32)
}

/// Operands anywhere below 2^3120, limb-saturated ones included: all ones (2^3120 − 1), 2^3072
/// − 1, m, m + 1 in limbs, zero, one, sparse limbs at 2^52 − 1, random.
fn limbs_structured(rng: &mut SplitMix64) -> [u64; LIMBS52] {
    match rng.next_u64() % 8 {
        0 => [M52; LIMBS52],
        1 => to_limbs52(&[u64::MAX; 48]),
        2 => {
            // m = 2^3072 − 1103717 and m + 1.
            let mut w = [u64::MAX; 48];
            w[0] = u64::MAX - 1_103_717 + 1 + rng.next_u64() % 2;
            to_limbs52(&w)
        }
        3 => {
            let mut l = [0u64; LIMBS52];
            l[0] = rng.next_u64() % 2;
            l
        }
        4 => core::array::from_fn(|_| if rng.next_u64().is_multiple_of(3) { M52 } else { 0 }),
        _ => core::array::from_fn(|_| rng.next_u64() & M52),
    }
}

fn check_limbs52<L: Lanes>(iters: usize) {
    let mut rng = SplitMix64(test_seed() ^ 52);
    let m = muhash_modulus();
    // A running product, as the final MuHash keeps it, beside independent pairs.
    let mut acc = limbs_structured(&mut rng);
    let mut acc_big = limbs_big(&acc) % &m;
    for _ in 0..iters {
        let a = limbs_structured(&mut rng);
        let b = limbs_structured(&mut rng);
        let got = mul_mod_limbs52::<L>(&a, &b);
        assert!(got.iter().all(|&v| v <= M52), "limb out of range");
        assert_eq!(limbs_big(&got) % &m, limbs_big(&a) * limbs_big(&b) % &m);
        acc = mul_mod_limbs52::<L>(&acc, &b);
        acc_big = acc_big * limbs_big(&b) % &m;
        assert_eq!(limbs_big(&acc) % &m, acc_big);
    }
}

#[test]
fn num3072_limbs52_emulated_vs_bigint() {
    check_limbs52::<Emulated>(test_iters(300));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn num3072_limbs52_ifma_vs_bigint() {
    if crate::backend::require_or_skip(BackendKind::Ifma).is_none() {
        return;
    }
    check_limbs52::<super::lanes::Ifma>(test_iters(2000));
}

#[test]
fn num3072_limbs52_fold_over_carries_through_every_limb() {
    let m = muhash_modulus();
    // Limbs 3… all ones: the folded part carries off the top and is folded a second time.
    for over in [1u128, 15, 16, (1 << 52) - 1, (1 << 77) - 1, (1 << 80) - 1] {
        for low in [0u64, 1, M52] {
            let mut l = [M52; LIMBS52];
            l[0] = low;
            let before = limbs_big(&l);
            fold_over(&mut l, over);
            assert!(l.iter().all(|&v| v <= M52));
            let want = (before + (BigUint::from(over) << 3120)) % &m;
            assert_eq!(limbs_big(&l) % &m, want, "over {over:#x}, low {low:#x}");
        }
    }
}

#[test]
fn num3072_limbs52_conversions_round_trip() {
    let mut rng = SplitMix64(test_seed() ^ 0x52);
    for i in 0..200 {
        let mut b = [0u8; 384];
        match i % 3 {
            0 => b = [0xFF; 384],
            1 => b[383] = 0x80,
            _ => rng.fill(&mut b),
        }
        let n = Num3072::from_le_bytes(&b);
        let l = limbs52_from_le_bytes(&b);
        let words: [u64; 48] =
            core::array::from_fn(|k| u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap()));
        assert_eq!(l, to_limbs52(&words));
        assert_eq!(limbs_big(&l), num_big(&n));
        let back = words_from_limbs52::<49>(&l);
        assert_eq!(&back[..48], &words[..]);
        assert_eq!(back[48], 0);
    }
    let top = words_from_limbs52::<49>(&[M52; LIMBS52]);
    assert_eq!(limbs_big(&[M52; LIMBS52]), (BigUint::from(1u8) << 3120) - 1u8);
    assert_eq!(&top[..48], &[u64::MAX; 48][..]);
    assert_eq!(top[48], (1 << 48) - 1);
}

#[test]
fn set_product_equals_muhash_insert_on_every_backend() {
    use crate::muhash::{to_num3072 as to_num, MuHash3072, SetProduct};
    let mut rng = SplitMix64(test_seed() ^ 0x5e7);
    let m = muhash_modulus();
    let data: Vec<Vec<u8>> = (0..test_iters(200))
        .map(|i| {
            let mut d = vec![0u8; (i * 7) % 90];
            rng.fill(&mut d);
            d
        })
        .collect();
    let mut want = MuHash3072::new();
    for d in &data {
        want.insert_with(crate::Backend::portable(), d);
    }
    let want_digest = want.finalize();
    // Structured factors multiplied in directly, against a BigUint model; 0 and m (≡ 0) end
    // any product in 0, so they go alone.
    let m_minus_1 = {
        let mut w = [0xFFu8; 384];
        w[..8].copy_from_slice(&(u64::MAX - 1_103_717).to_le_bytes());
        Num3072::from_le_bytes(&w)
    };
    let factors = [Num3072::ONE, Num3072::from_le_bytes(&[0xFF; 384]), m_minus_1, to_num(b"f")];
    for backend in crate::Backend::available() {
        let mut p = SetProduct::new(backend);
        for d in data.iter().rev() {
            p.insert(d);
        }
        assert_eq!(p.finish().finalize(), want_digest, "{backend}");
        let mut q = SetProduct::new(backend);
        let mut model = BigUint::from(1u8);
        for f in factors.iter().cycle().take(30) {
            q.mul_num(f);
            model = model * num_big(f) % &m;
        }
        let got = q.finish().finalize();
        let mut model_bytes = model.to_bytes_le();
        model_bytes.resize(384, 0);
        assert_eq!(got, crate::hash::sha256(&model_bytes), "{backend}");
        let m_itself = {
            let mut w = [0xFFu8; 384];
            w[..8].copy_from_slice(&(u64::MAX - 1_103_717 + 1).to_le_bytes());
            Num3072::from_le_bytes(&w)
        };
        for zero in [Num3072::from_le_bytes(&[0; 384]), m_itself] {
            let mut z = SetProduct::new(backend);
            z.insert(b"x");
            z.mul_num(&zero);
            assert_eq!(z.finish().finalize(), crate::hash::sha256(&[0u8; 384]), "{backend}");
        }
    }
}
