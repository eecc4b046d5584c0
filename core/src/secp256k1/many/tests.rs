// SPDX-License-Identifier: MIT OR Apache-2.0
//! The eight-way engine against the single verifiers, over both eight-lane fields: each through
//! its portable lane model on every machine, and through the registers via `verify_many` and
//! `from_x_many` on a token where the CPU has the instructions.

use super::ecmult8::{ecmult8, lane_result, Ecmult8Input, Ecmult8Output};
use super::verify::{
    ecdsa_verify8, ecdsa_verify_many_lanes, schnorr_verify_many_lanes, EcdsaItem, Engine, SchnorrItem,
    MIN_PADDED_AVX2, MIN_PADDED_IFMA,
};
use crate::backend::avx2::field::Fe10x26x8;
use crate::backend::ifma::field::Fe5x52x8;
use crate::backend::portable::field::Fe5x52;
use crate::backend::{require_or_skip, BackendKind};
use crate::secp256k1::ecdsa::Signature;
use crate::secp256k1::field::FieldOps;
use crate::secp256k1::group::Ge;
use crate::secp256k1::lift::{from_x_many, from_x_many_lanes, MIN_PADDED_LIFT_AVX2, MIN_PADDED_LIFT_IFMA};
use crate::secp256k1::scalar::{Scalar, N};
use crate::secp256k1::{ecdsa, schnorr};
use crate::secp256k1::{PublicKey, XOnlyPublicKey};
use fullverify_testkit::{test_iters, test_seed, SplitMix64};

/// `Fe5x52x8` on the model of the AVX-512 lanes.
type Ifma8 = Fe5x52x8<crate::backend::ifma::lanes::Emulated>;
/// `Fe10x26x8` on the model of the AVX2 lanes.
type Avx8 = Fe10x26x8<crate::backend::avx2::lanes::Emulated>;

/// The engine on the IFMA lane model (one out-of-line copy, as on the registers).
#[inline(never)]
fn engine_ifma8(inp: &[Ecmult8Input; 8]) -> Ecmult8Output {
    ecmult8::<Ifma8>(inp)
}

/// The engine on the AVX2 lane model.
#[inline(never)]
fn engine_avx8(inp: &[Ecmult8Input; 8]) -> Ecmult8Output {
    ecmult8::<Avx8>(inp)
}

/// Valid ECDSA and BIP340 items over a few keys, plus the special cases: results at
/// infinity and (ECDSA) a signature that verifies only through x(R) = r + n.
struct Pool {
    pks: Vec<PublicKey>,
    xpks: Vec<XOnlyPublicKey>,
    msgs: Vec<[u8; 32]>,
    esigs: Vec<Signature>,
    ssigs: Vec<[u8; 64]>,
}

fn scalar(rng: &mut SplitMix64) -> Scalar {
    let mut b = [0u8; 32];
    rng.fill(&mut b);
    Scalar::from_bytes_reduce(&b).0
}

fn pool(rng: &mut SplitMix64, n: usize) -> Pool {
    let mut p = Pool { pks: vec![], xpks: vec![], msgs: vec![], esigs: vec![], ssigs: vec![] };
    for _ in 0..n {
        let mut sk = [0u8; 32];
        rng.fill(&mut sk);
        let mut msg = [0u8; 32];
        rng.fill(&mut msg);
        let pk = PublicKey::from_secret(&sk).unwrap();
        p.pks.push(pk);
        p.xpks.push(pk.x_only().0);
        p.msgs.push(msg);
        let mut sig = ecdsa::sign(&sk, &msg);
        if rng.next_u64().is_multiple_of(2) {
            sig.s = sig.s.negate(); // high s verifies too
        }
        p.esigs.push(sig);
        p.ssigs.push(schnorr::sign(&sk, &msg, &msg));
    }
    p
}

/// ECDSA items whose R is infinity: z = −r·d, so u1 + u2·d = 0.
fn ecdsa_infinity(rng: &mut SplitMix64) -> (PublicKey, [u8; 32], Signature) {
    let d = scalar(rng);
    let pk = PublicKey::from_secret(&d.to_bytes()).unwrap();
    let sig = Signature { r: scalar(rng), s: scalar(rng) };
    let z = sig.r.mul(&d).negate();
    (pk, z.to_bytes(), sig)
}

/// An ECDSA item that verifies only through the r + n branch: R with x(R) ≥ n is chosen
/// first, then u1, u2 at random, Q = u2⁻¹·(R − u1·G), s = r·u2⁻¹, z = u1·s.
fn ecdsa_r_plus_n(rng: &mut SplitMix64) -> (PublicKey, [u8; 32], Signature) {
    let mut xw = N;
    loop {
        xw[0] += 1 + rng.next_u64() % 1000;
        let x = Fe5x52::from_u64x4(xw);
        if let Some(rp) = Ge::<Fe5x52>::from_x(&x, rng.next_u64() % 2 == 1) {
            let r = Scalar::from_words_reduce(xw).0;
            let (u1, u2) = (scalar(rng), scalar(rng));
            let u2i = u2.inv_vartime();
            let q = super::super::ecmult::ecmult(&rp, &u2i, &u1.mul(&u2i).negate()).to_ge_var();
            let s = r.mul(&u2i);
            let z = u1.mul(&s);
            let sig = Signature { r, s };
            let pk = PublicKey(q);
            assert!(ecdsa::verify_with(crate::Backend::portable(), &pk, &z.to_bytes(), &sig));
            return (pk, z.to_bytes(), sig);
        }
    }
}

/// A BIP340 item whose R is infinity: s = e·d.
fn schnorr_infinity(rng: &mut SplitMix64) -> (XOnlyPublicKey, [u8; 32], [u8; 64]) {
    let d = scalar(rng);
    let (xpk, _) = PublicKey::from_secret(&d.to_bytes()).unwrap().x_only();
    let mut msg = [0u8; 32];
    rng.fill(&mut msg);
    let r = Ge::<Fe5x52>::generator().x.to_be_bytes();
    let e = schnorr::verify::challenge(&r, &xpk.serialize(), &msg);
    // s·G − e·P = ∞ with P = ±d·G (even y): s = ±e·d.
    let dd = if PublicKey::from_secret(&d.to_bytes()).unwrap().x_only().1 { d.negate() } else { d };
    let s = e.mul(&dd);
    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(&r);
    sig[32..].copy_from_slice(&s.to_bytes());
    (xpk, msg, sig)
}

/// `batches` random batches of 8 to 17 picks from the pool, each a pool index and a
/// corruption kind in 0..12 (`corrupt` changes the message or signature for some kinds);
/// `check` gets the picks and their (message, signature) pairs and returns the reference
/// verdicts, after comparing them with the verifier under test. Both verdicts must occur.
fn random_batches<S: Copy>(
    rng: &mut SplitMix64,
    batches: usize,
    pool: (&[[u8; 32]], &[S]),
    corrupt: impl Fn(&mut SplitMix64, u64, &mut [u8; 32], &mut S),
    mut check: impl FnMut(&[(usize, u64)], &[([u8; 32], S)]) -> Vec<bool>,
) {
    let (msgs, sigs) = pool;
    let mut corrupted = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..batches {
        let len = 8 + (rng.next_u64() % 10) as usize;
        corrupted.clear();
        let mut picks = Vec::with_capacity(len);
        for _ in 0..len {
            let i = (rng.next_u64() % msgs.len() as u64) as usize;
            let kind = rng.next_u64() % 12;
            picks.push((i, kind));
            let (mut m, mut s) = (msgs[i], sigs[i]);
            corrupt(rng, kind, &mut m, &mut s);
            corrupted.push((m, s));
        }
        let want = check(&picks, &corrupted);
        valid += want.iter().filter(|&&b| b).count();
        invalid += want.iter().filter(|&&b| !b).count();
    }
    assert!(valid > batches && invalid > batches, "{valid} valid, {invalid} invalid");
}

/// Random batches mixing valid and corrupted items in every lane, checked against the
/// single verifier; `f` is the eight-way verifier under test. Besides the pool's items: results
/// at infinity, signatures valid only through r + n, and valid ones whose eight-way sum meets a
/// doubling ([`ecdsa_doubling`]); idle lanes come with batch lengths that are not a multiple of
/// eight.
fn check_ecdsa(batches: usize, f: impl Fn(&[EcdsaItem<'_>]) -> Vec<bool>) {
    let mut rng = SplitMix64(test_seed());
    let p = pool(&mut rng, 64);
    let inf: Vec<_> = (0..8).map(|_| ecdsa_infinity(&mut rng)).collect();
    let rpn: Vec<_> = (0..4).map(|_| ecdsa_r_plus_n(&mut rng)).collect();
    let dbl: Vec<_> = (1..=8u64).map(|k| ecdsa_doubling(1 + k % 3, k)).collect();
    let corrupt = |rng: &mut SplitMix64, kind, m: &mut [u8; 32], s: &mut Signature| match kind {
        0 => m[(rng.next_u64() % 32) as usize] ^= 1,
        1 => s.r = s.r.add(&Scalar::ONE),
        2 => s.s = Scalar::ZERO,
        3 => s.r = Scalar::ZERO,
        _ => {}
    };
    random_batches(&mut rng, batches, (&p.msgs, &p.esigs), corrupt, |picks, corrupted| {
        let items: Vec<EcdsaItem> = picks
            .iter()
            .zip(corrupted)
            .map(|(&(i, kind), (m, s))| match kind {
                4 => (&p.pks[(i + 1) % 64], m, s),
                5 => (&inf[i % 8].0, &inf[i % 8].1, &inf[i % 8].2),
                6 => (&rpn[i % 4].0, &rpn[i % 4].1, &rpn[i % 4].2),
                7 => (&dbl[i % 8].0, &dbl[i % 8].1, &dbl[i % 8].2),
                _ => (&p.pks[i], m, s),
            })
            .collect();
        let want: Vec<bool> = items
            .iter()
            .map(|&(pk, m, s)| ecdsa::verify_with(crate::Backend::portable(), pk, m, s))
            .collect();
        assert_eq!(f(&items), want);
        want
    });
}

fn check_schnorr(batches: usize, f: impl Fn(&[SchnorrItem<'_>]) -> Vec<bool>) {
    let mut rng = SplitMix64(test_seed() ^ 3);
    let p = pool(&mut rng, 64);
    let inf: Vec<_> = (0..8).map(|_| schnorr_infinity(&mut rng)).collect();
    let corrupt = |rng: &mut SplitMix64, kind, m: &mut [u8; 32], s: &mut [u8; 64]| match kind {
        0 => m[(rng.next_u64() % 32) as usize] ^= 1,
        1 => s[(rng.next_u64() % 64) as usize] ^= 0x10,
        2 => s[..32].copy_from_slice(&[0xFF; 32]), // r ≥ p
        3 => s[32..].copy_from_slice(&[0xFF; 32]), // s ≥ n
        _ => {}
    };
    random_batches(&mut rng, batches, (&p.msgs, &p.ssigs), corrupt, |picks, corrupted| {
        let items: Vec<SchnorrItem> = picks
            .iter()
            .zip(corrupted)
            .map(|(&(i, kind), (m, s))| match kind {
                4 => (&p.xpks[(i + 1) % 64], &m[..], s),
                5 => (&inf[i % 8].0, &inf[i % 8].1[..], &inf[i % 8].2),
                _ => (&p.xpks[i], &m[..], s),
            })
            .collect();
        let want: Vec<bool> = items
            .iter()
            .map(|&(pk, m, s)| schnorr::verify_with(crate::Backend::portable(), pk, m, s))
            .collect();
        assert_eq!(f(&items), want);
        want
    });
}

#[test]
fn ecdsa_verify_many_emulated_vs_single() {
    check_ecdsa(test_iters(300), |items| {
        ecdsa_verify_many_lanes::<Fe5x52>(&engine_ifma8, MIN_PADDED_IFMA, items)
    });
}

#[test]
fn schnorr_verify_many_emulated_vs_single() {
    check_schnorr(test_iters(300), |items| {
        schnorr_verify_many_lanes::<Fe5x52>(&engine_ifma8, MIN_PADDED_IFMA, items)
    });
}

#[test]
fn ecdsa_verify_many_avx2_emulated_vs_single() {
    check_ecdsa(test_iters(300), |items| {
        ecdsa_verify_many_lanes::<Fe5x52>(&engine_avx8, MIN_PADDED_AVX2, items)
    });
}

#[test]
fn schnorr_verify_many_avx2_emulated_vs_single() {
    check_schnorr(test_iters(300), |items| {
        schnorr_verify_many_lanes::<Fe5x52>(&engine_avx8, MIN_PADDED_AVX2, items)
    });
}

#[test]
fn ecdsa_verify_many_ifma_vs_single() {
    let Some(b) = require_or_skip(BackendKind::Ifma) else { return };
    check_ecdsa(test_iters(10_000), |items| ecdsa::verify_many(b, items));
}

#[test]
fn schnorr_verify_many_ifma_vs_single() {
    let Some(b) = require_or_skip(BackendKind::Ifma) else { return };
    check_schnorr(test_iters(10_000), |items| schnorr::verify_many(b, items));
}

#[test]
fn ecdsa_verify_many_avx2_vs_single() {
    let Some(b) = require_or_skip(BackendKind::Avx2) else { return };
    check_ecdsa(test_iters(10_000), |items| ecdsa::verify_many(b, items));
}

#[test]
fn schnorr_verify_many_avx2_vs_single() {
    let Some(b) = require_or_skip(BackendKind::Avx2) else { return };
    check_schnorr(test_iters(10_000), |items| schnorr::verify_many(b, items));
}

#[test]
fn special_lanes_take_the_exceptional_path() {
    check_special_lanes(&engine_ifma8);
    check_special_lanes(&engine_avx8);
}

fn check_special_lanes(engine: Engine<'_>) {
    // Infinity in a lane is found by the eight-way code itself (Z = 0 or infinity).
    let mut rng = SplitMix64(test_seed() ^ 4);
    let it: Vec<_> = (0..8).map(|_| ecdsa_infinity(&mut rng)).collect();
    let items: [EcdsaItem; 8] = core::array::from_fn(|i| (&it[i].0, &it[i].1, &it[i].2));
    let mut inp = [Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE }; 8];
    for (i, (pk, m, s)) in items.iter().enumerate() {
        let sinv = s.s.inv_vartime();
        let z = Scalar::from_bytes_reduce(m).0;
        inp[i] = Ecmult8Input { a: pk.0, na: s.r.mul(&sinv), ng: z.mul(&sinv) };
    }
    let out = engine(&inp);
    for i in 0..8 {
        assert!(lane_result(&out, i).is_none(), "lane {i}");
    }
    assert_eq!(ecdsa_verify8::<Fe5x52>(engine, &items), [false; 8]);
}

/// A named engine the tests own.
type NamedEngine = (&'static str, Box<dyn Fn(&[Ecmult8Input; 8]) -> Ecmult8Output>);

/// The engines this machine can run on registers, behind their tokens.
fn register_engines() -> Vec<NamedEngine> {
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut out: Vec<NamedEngine> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use super::ecmult8::{ecmult8_avx2, ecmult8_ifma};
        if require_or_skip(BackendKind::Avx2).is_some() {
            // SAFETY: the CPU has AVX2, BMI2 and ADX (an Avx2 token exists).
            out.push(("avx2", Box::new(|inp| unsafe { ecmult8_avx2(inp) })));
        }
        if require_or_skip(BackendKind::Ifma).is_some() {
            // SAFETY: the CPU has AVX-512 F, IFMA and VL (an Ifma token exists).
            out.push(("ifma", Box::new(|inp| unsafe { ecmult8_ifma(inp) })));
        }
    }
    out
}

/// Random inputs (no special structure) finish on the lanes: every lane's result is usable
/// and equals the scalar `ecmult`, so `verify_many` does not quietly fall back to the single
/// verifier.
fn check_ordinary_lanes(name: &str, engine: Engine<'_>, rounds: usize) {
    let mut rng = SplitMix64(test_seed() ^ 5);
    for _ in 0..rounds {
        let inp: [Ecmult8Input; 8] = core::array::from_fn(|_| {
            let d = scalar(&mut rng);
            let a = PublicKey::from_secret(&d.to_bytes()).unwrap().0;
            Ecmult8Input { a, na: scalar(&mut rng), ng: scalar(&mut rng) }
        });
        let out = engine(&inp);
        for (i, x) in inp.iter().enumerate() {
            let p = lane_result(&out, i).unwrap_or_else(|| panic!("{name}: lane {i} left the engine"));
            let want = super::super::ecmult::ecmult(&x.a, &x.na, &x.ng);
            assert!(p.eq_var(&want), "{name}: lane {i}");
        }
    }
}

#[test]
fn ordinary_lanes_finish_in_the_engine() {
    check_ordinary_lanes("ifma model", &engine_ifma8, test_iters(4));
    check_ordinary_lanes("avx2 model", &engine_avx8, test_iters(4));
    for (name, engine) in register_engines() {
        check_ordinary_lanes(name, &*engine, test_iters(200));
    }
}

/// Valid ECDSA items whose eight-way sum meets an exceptional addition (a doubling): the key
/// is a·G, u1 = a·b and u2 = b for small a, b, so the A and G windows each add a·b·G at the
/// last bit: R = 2ab·G, r = x(R), s = r/b, z = a·r.
fn ecdsa_doubling(a: u64, b: u64) -> (PublicKey, [u8; 32], Signature) {
    let (sa, sb) = (Scalar::from_u64(a), Scalar::from_u64(b));
    let pk = PublicKey::from_secret(&sa.to_bytes()).unwrap();
    let rp = PublicKey::from_secret(&Scalar::from_u64(2 * a * b).to_bytes()).unwrap();
    let r = Scalar::from_bytes_reduce(&rp.0.x.normalize().to_be_bytes()).0;
    let sig = Signature { r, s: r.mul(&sb.inv_vartime()) };
    let z = sa.mul(&r);
    (pk, z.to_bytes(), sig)
}

#[test]
fn exceptional_additions_take_the_exceptional_path() {
    let it: Vec<_> = (1..=8u64).map(|k| ecdsa_doubling(1 + k % 3, k)).collect();
    for (pk, m, s) in &it {
        assert!(ecdsa::verify_with(crate::Backend::portable(), pk, m, s));
    }
    let items: [EcdsaItem; 8] = core::array::from_fn(|i| (&it[i].0, &it[i].1, &it[i].2));
    let mut engines: Vec<NamedEngine> =
        vec![("ifma model", Box::new(engine_ifma8)), ("avx2 model", Box::new(engine_avx8))];
    engines.extend(register_engines());
    for (name, engine) in &engines {
        let mut inp = [Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE }; 8];
        for (i, (pk, m, s)) in items.iter().enumerate() {
            let sinv = s.s.inv_vartime();
            let z = Scalar::from_bytes_reduce(m).0;
            inp[i] = Ecmult8Input { a: pk.0, na: s.r.mul(&sinv), ng: z.mul(&sinv) };
        }
        let out = engine(&inp);
        for i in 0..8 {
            assert!(lane_result(&out, i).is_none(), "{name}: lane {i} should have met a doubling");
        }
        assert_eq!(ecdsa_verify8::<Fe5x52>(&**engine, &items), [true; 8], "{name}");
    }
}

/// x coordinates for the square-root tests: random ones (about half on the curve),
/// structured ones (0, 1, 7, p − 1, 2^k, limb-saturated), the generator's, each with both
/// parities.
fn x_cases(rng: &mut SplitMix64, n: usize) -> Vec<(Fe5x52, bool)> {
    let mut raw: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32], Ge::<Fe5x52>::generator().x.to_be_bytes()];
    let mut one = [0u8; 32];
    one[31] = 1;
    raw.push(one);
    one[31] = 7;
    raw.push(one);
    let mut pm1 = [0xffu8; 32];
    pm1[27] = 0xfe;
    pm1[28..].copy_from_slice(&[0xff, 0xff, 0xfc, 0x2e]);
    raw.push(pm1);
    for k in [0usize, 51, 52, 103, 104, 200, 255] {
        let mut b = [0u8; 32];
        b[31 - k / 8] = 1 << (k % 8);
        raw.push(b);
    }
    let mut sat = [0u8; 32];
    sat[25..].copy_from_slice(&[0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    raw.push(sat);
    while raw.len() < n {
        raw.push(rng.bytes32());
    }
    let mut out = Vec::new();
    for (j, b) in raw.iter().enumerate() {
        if let Some(x) = Fe5x52::from_be_bytes(b) {
            out.push((x, j % 2 == 0));
            out.push((x, j % 2 == 1));
        }
    }
    out
}

fn check_from_x_many(f: impl Fn(&[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>>) {
    let mut rng = SplitMix64(test_seed() ^ 0x5157);
    let cases = x_cases(&mut rng, test_iters(400));
    let got = f(&cases);
    assert_eq!(got.len(), cases.len());
    let mut on_curve = 0;
    for ((x, odd), g) in cases.iter().zip(&got) {
        let want = Ge::from_x(x, *odd);
        match (want, g) {
            (None, None) => {}
            (Some(w), Some(g)) => {
                on_curve += 1;
                assert_eq!((w.x.to_be_bytes(), w.y.to_be_bytes()), (g.x.to_be_bytes(), g.y.to_be_bytes()));
                assert_eq!(g.y.is_odd(), *odd);
            }
            _ => panic!("x {:?} odd {odd}: {want:?} vs {g:?}", x.to_be_bytes()),
        }
    }
    assert!(on_curve > cases.len() / 4 && on_curve < cases.len(), "{on_curve} of {}", cases.len());
}

/// The lifts on the two lane models, each instantiated once (the lane code is inlined into its
/// caller, and every further call site would be compiled again).
#[inline(never)]
fn lift_ifma8(min_padded: usize, items: &[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>> {
    from_x_many_lanes::<Ifma8>(min_padded, &|x: &Fe5x52, odd: bool| Ge::from_x(x, odd), items)
}

#[inline(never)]
fn lift_avx8(min_padded: usize, items: &[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>> {
    from_x_many_lanes::<Avx8>(min_padded, &|x: &Fe5x52, odd: bool| Ge::from_x(x, odd), items)
}

#[test]
fn from_x_many_emulated_vs_single() {
    check_from_x_many(|items| lift_ifma8(MIN_PADDED_LIFT_IFMA, items));
    check_from_x_many(|items| lift_avx8(MIN_PADDED_LIFT_AVX2, items));
}

/// Every remainder of 1…7 keys, padded into a group or lifted one by one (both sides of each
/// threshold), equals `Ge::from_x` key by key, on the lane models and on the CPU's tokens.
#[test]
fn from_x_many_remainders_vs_single() {
    let mut rng = SplitMix64(test_seed() ^ 0x11f7);
    let cases = x_cases(&mut rng, 64);
    let mut tokens = Vec::new();
    for kind in [BackendKind::Ifma, BackendKind::Avx2] {
        if let Some(b) = require_or_skip(kind) {
            tokens.push(b);
        }
    }
    for n in 1..=23 {
        for start in [0, 7, 31] {
            let items = &cases[start..start + n];
            let want: Vec<_> = items.iter().map(|(x, odd)| Ge::from_x(x, *odd)).collect();
            let mut got = Vec::new();
            for min_padded in [1, 3, 7, 8] {
                got.push(lift_ifma8(min_padded, items));
                got.push(lift_avx8(min_padded, items));
            }
            got.extend(tokens.iter().map(|&b| from_x_many(b, items)));
            for g in got {
                let enc = |v: &[Option<Ge<Fe5x52>>]| -> Vec<_> {
                    v.iter().map(|p| p.map(|p| (p.x.to_be_bytes(), p.y.to_be_bytes()))).collect()
                };
                assert_eq!(enc(&g), enc(&want), "{n} keys from {start}");
            }
        }
    }
}

#[test]
fn from_x_many_ifma_vs_single() {
    let Some(b) = require_or_skip(BackendKind::Ifma) else { return };
    check_from_x_many(|items| from_x_many(b, items));
}

#[test]
fn from_x_many_avx2_vs_single() {
    let Some(b) = require_or_skip(BackendKind::Avx2) else { return };
    check_from_x_many(|items| from_x_many(b, items));
}
