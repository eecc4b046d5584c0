// SPDX-License-Identifier: MIT OR Apache-2.0
//! Unit tests: field and scalar kernels against exact integer arithmetic (`num-bigint`,
//! proptest plus structured values), the inversion chains checked exponent-exactly, the GLV
//! split against exact arithmetic, wNAF reconstruction, and every group routine against a slow
//! affine reference.

use super::ecmult::{ecmult, wnaf, GenTables, WINDOW_G};
use super::field::{batch_inv_var, inv, inv_var, pow_p1_4, sqrt, FieldOps};
use super::group::{Ge, Gej};
use super::scalar::{Scalar, LAMBDA};
use crate::backend::portable::field::Fe5x52;
use fullverify_testkit::{test_iters, test_seed, SplitMix64};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use proptest::prelude::*;

pub(crate) fn p() -> BigUint {
    (BigUint::one() << 256) - (BigUint::one() << 32) - BigUint::from(977u32)
}
pub(crate) fn n() -> BigUint {
    BigUint::parse_bytes(b"FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141", 16).unwrap()
}
pub(crate) fn big(w: &[u64; 4]) -> BigUint {
    let mut b = Vec::with_capacity(32);
    for x in w {
        b.extend_from_slice(&x.to_le_bytes());
    }
    BigUint::from_bytes_le(&b)
}
pub(crate) fn words(x: &BigUint) -> [u64; 4] {
    let mut b = x.to_bytes_le();
    assert!(b.len() <= 32);
    b.resize(32, 0);
    core::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()))
}

/// Structured 256-bit values: 0, 1, small, 2^i, 2^i ± 1, p − k, C, p − C, per-limb saturation.
pub(crate) fn structured_values() -> Vec<[u64; 4]> {
    let p = p();
    let mut v: Vec<BigUint> = vec![BigUint::zero(), BigUint::one(), BigUint::from(2u32), BigUint::from(7u32)];
    for i in 0..256 {
        let t: BigUint = BigUint::one() << (i as usize);
        v.push(t.clone());
        v.push(&t + 1u32);
        v.push(&t - 1u32);
    }
    for k in [1u32, 2, 3, 977, 0x3D1] {
        v.push(&p - k);
    }
    let c = BigUint::from(0x1_0000_03D1u64);
    v.push(c.clone());
    v.push(&p - &c);
    v.push(&p + 1u32); // ≥ p: reduced by the kernels that accept it
    v.push((BigUint::one() << 256) - 1u32);
    // Saturated 52-bit and 64-bit limbs.
    for limb in 0..5 {
        v.push(((BigUint::one() << 52) - 1u32) << (52 * limb));
    }
    for limb in 0..4 {
        v.push(BigUint::from(u64::MAX) << (64 * limb));
    }
    v.into_iter().filter(|x| x.bits() <= 256).map(|x| words(&x)).collect()
}

/// The field kernel operations of one backend as plain fn pointers over canonical words, so
/// one harness checks every backend against exact arithmetic and against each other.
#[derive(Clone, Copy)]
pub(crate) struct FieldFns {
    pub name: &'static str,
    pub mul: fn(&[u64; 4], &[u64; 4]) -> [u64; 4],
    pub sqr: fn(&[u64; 4]) -> [u64; 4],
    pub add: fn(&[u64; 4], &[u64; 4]) -> [u64; 4],
    pub neg: fn(&[u64; 4]) -> [u64; 4],
    pub normalize: fn(&[u64; 4]) -> [u64; 4],
    pub inv: fn(&[u64; 4]) -> [u64; 4],
    pub inv_var: fn(&[u64; 4]) -> [u64; 4],
    /// A lazily reduced chain: ((a + b)·(a − b) + a·8)² with magnitudes up to 8 on inputs.
    pub lazy: fn(&[u64; 4], &[u64; 4]) -> [u64; 4],
}

pub(crate) fn field_fns<F: FieldOps>(name: &'static str) -> FieldFns {
    fn f<F: FieldOps>(a: &[u64; 4]) -> F {
        F::from_u64x4(*a)
    }
    FieldFns {
        name,
        mul: |a, b| f::<F>(a).mul(&f::<F>(b)).normalize().to_u64x4(),
        sqr: |a| f::<F>(a).sqr().normalize().to_u64x4(),
        add: |a, b| f::<F>(a).add(&f::<F>(b)).normalize().to_u64x4(),
        neg: |a| f::<F>(a).negate(1).normalize().to_u64x4(),
        normalize: |a| f::<F>(a).normalize().to_u64x4(),
        inv: |a| inv(&f::<F>(a)).normalize().to_u64x4(),
        inv_var: |a| inv_var(&f::<F>(a)).normalize().to_u64x4(),
        lazy: |a, b| {
            let (a, b) = (f::<F>(a), f::<F>(b));
            let s = a.add(&b); // 2
            let d = a.add(&b.negate(1)); // 3
            let t = s.mul(&d).add(&a.mul_int(7)); // 8
            t.sqr().mul(&t).normalize().to_u64x4()
        },
    }
}

/// Checks one backend's kernels on (a, b) against exact arithmetic.
pub(crate) fn check_field_pair(k: &FieldFns, a: &[u64; 4], b: &[u64; 4]) {
    let p = p();
    let (ab, bb) = (big(a), big(b));
    let name = k.name;
    assert_eq!(big(&(k.mul)(a, b)), (&ab * &bb) % &p, "{name} mul {a:x?} {b:x?}");
    assert_eq!(big(&(k.sqr)(a)), (&ab * &ab) % &p, "{name} sqr {a:x?}");
    assert_eq!(big(&(k.add)(a, b)), (&ab + &bb) % &p, "{name} add");
    assert_eq!(big(&(k.neg)(a)), (&p - (&ab % &p)) % &p, "{name} neg {a:x?}");
    assert_eq!(big(&(k.normalize)(a)), &ab % &p, "{name} normalize");
    let s = (&ab + &bb) % &p;
    let d = (&ab + &p - (&bb % &p)) % &p;
    let t = (&s * &d + &ab * 7u32) % &p;
    assert_eq!(big(&(k.lazy)(a, b)), t.modpow(&BigUint::from(3u32), &p), "{name} lazy chain");
}

pub(crate) fn check_field_inv(k: &FieldFns, a: &[u64; 4]) {
    let p = p();
    let ab = big(a) % &p;
    let expect = if ab.is_zero() { BigUint::zero() } else { ab.modpow(&(&p - 2u32), &p) };
    assert_eq!(big(&(k.inv)(a)), expect, "{} inv {a:x?}", k.name);
    assert_eq!(big(&(k.inv_var)(a)), expect, "{} inv_var {a:x?}", k.name);
}

/// Compares two backends output for output on the same inputs.
pub(crate) fn check_field_backends_agree(x: &FieldFns, y: &FieldFns, a: &[u64; 4], b: &[u64; 4]) {
    assert_eq!((x.mul)(a, b), (y.mul)(a, b), "mul {} vs {}", x.name, y.name);
    assert_eq!((x.sqr)(a), (y.sqr)(a), "sqr");
    assert_eq!((x.add)(a, b), (y.add)(a, b), "add");
    assert_eq!((x.neg)(a), (y.neg)(a), "neg");
    assert_eq!((x.lazy)(a, b), (y.lazy)(a, b), "lazy");
}

pub(crate) fn run_field_harness(k: &FieldFns) {
    let sv = structured_values();
    for a in &sv {
        for b in sv.iter().step_by(7) {
            check_field_pair(k, a, b);
        }
        check_field_inv(k, a);
    }
    let mut rng = SplitMix64(test_seed());
    for _ in 0..test_iters(20_000) {
        let a = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        let b = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        check_field_pair(k, &a, &b);
    }
    for _ in 0..test_iters(500) {
        let a = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        check_field_inv(k, &a);
    }
}

#[test]
fn portable_field_vs_bigint_structured_and_random() {
    run_field_harness(&field_fns::<Fe5x52>("portable"));
}

#[test]
fn portable_4x64_field_vs_bigint_and_5x52() {
    use crate::backend::portable::field4x64::Fe4x64;
    let k = field_fns::<Fe4x64>("portable4x64");
    run_field_harness(&k);
    let other = field_fns::<Fe5x52>("portable");
    let sv = structured_values();
    for a in &sv {
        for b in sv.iter().step_by(3) {
            check_field_backends_agree(&k, &other, a, b);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn asm_field_vs_bigint_and_portable() {
    use crate::backend::x86_64_asm::field::Fe4x64Asm;
    use crate::backend::{require_or_skip, BackendKind};
    if require_or_skip(BackendKind::Asm).is_none() {
        return;
    }
    let asm = field_fns::<Fe4x64Asm>("asm");
    let portable = field_fns::<Fe5x52>("portable");
    run_field_harness(&asm);
    let sv = structured_values();
    for a in &sv {
        for b in &sv {
            check_field_backends_agree(&asm, &portable, a, b);
        }
    }
    let mut rng = SplitMix64(test_seed() ^ 9);
    for _ in 0..test_iters(20_000) {
        let a = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        let b = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        check_field_backends_agree(&asm, &portable, &a, &b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn portable_field_vs_bigint_proptest(a in any::<[u64; 4]>(), b in any::<[u64; 4]>()) {
        check_field_pair(&field_fns::<Fe5x52>("portable"), &a, &b);
    }

    #[test]
    fn scalar_vs_bigint_proptest(a in any::<[u64; 4]>(), b in any::<[u64; 4]>()) {
        check_scalar_pair(&a, &b);
    }
}

/// Exponent tracker: a "field" whose value is the exponent e of a^e, so running an addition
/// chain on `ONE`-as-a^1 yields the exponent it computes, exactly (mod 2^320).
#[derive(Clone, Copy, Debug)]
struct Exp([u64; 5]);

impl Exp {
    fn add5(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
        let mut r = [0u64; 5];
        let mut c = 0u128;
        for i in 0..5 {
            let t = a[i] as u128 + b[i] as u128 + c;
            r[i] = t as u64;
            c = t >> 64;
        }
        r
    }
}

impl FieldOps for Exp {
    const ZERO: Self = Exp([0; 5]);
    const ONE: Self = Exp([0; 5]);
    fn from_u64x4(a: [u64; 4]) -> Self {
        Exp([a[0], a[1], a[2], a[3], 0])
    }
    fn to_u64x4(&self) -> [u64; 4] {
        [self.0[0], self.0[1], self.0[2], self.0[3]]
    }
    fn mul(&self, b: &Self) -> Self {
        Exp(Exp::add5(&self.0, &b.0))
    }
    fn sqr(&self) -> Self {
        Exp(Exp::add5(&self.0, &self.0))
    }
    fn add(&self, _: &Self) -> Self {
        unreachable!("chains only multiply")
    }
    fn mul_int(&self, _: u32) -> Self {
        unreachable!()
    }
    fn negate(&self, _: u32) -> Self {
        unreachable!()
    }
    fn normalize_weak(&self) -> Self {
        *self
    }
    fn normalize(&self) -> Self {
        *self
    }
    fn normalizes_to_zero_var(&self) -> bool {
        unreachable!()
    }
    fn is_odd(&self) -> bool {
        unreachable!()
    }
}

#[test]
fn addition_chains_vs_exact_exponents() {
    let a = Exp([1, 0, 0, 0, 0]);
    let e = inv(&a);
    assert_eq!(big(&e.to_u64x4()), p() - 2u32);
    assert_eq!(e.0[4], 0);
    let e = pow_p1_4(&a);
    assert_eq!(big(&e.to_u64x4()), (p() + 1u32) >> 2);
    assert_eq!(e.0[4], 0);
}

#[test]
fn sqrt_and_batch_inverse_vs_bigint() {
    let p = p();
    let mut rng = SplitMix64(test_seed() ^ 1);
    let mut squares = 0;
    for _ in 0..test_iters(300) {
        let a = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64() >> 1];
        let ab = big(&a);
        let r = sqrt(&Fe5x52::from_u64x4(a));
        let is_qr = ab.modpow(&((&p - 1u32) >> 1), &p).is_one() || ab.is_zero();
        assert_eq!(r.is_some(), is_qr);
        if let Some(r) = r {
            squares += 1;
            assert_eq!((big(&r.to_u64x4()).pow(2)) % &p, ab % &p);
        }
    }
    assert!(squares > 50);
    let mut v: Vec<Fe5x52> = (0..37u64).map(|i| Fe5x52::from_u64x4([i * 0x1234567, i, 0, i << 7])).collect();
    let orig = v.clone();
    batch_inv_var(&mut v);
    for (x, y) in orig.iter().zip(v.iter()) {
        let xb = big(&x.normalize().to_u64x4());
        let expect = if xb.is_zero() { BigUint::zero() } else { xb.modpow(&(&p - 2u32), &p) };
        assert_eq!(big(&y.normalize().to_u64x4()), expect);
    }
}

// ---------------------------------------------------------------------------------------
// Scalars.

fn check_scalar_pair(a: &[u64; 4], b: &[u64; 4]) {
    let n = n();
    let (sa, oa) = Scalar::from_words_reduce(*a);
    let (sb, _) = Scalar::from_words_reduce(*b);
    assert_eq!(oa, big(a) >= n);
    let (ab, bb) = (big(a) % &n, big(b) % &n);
    assert_eq!(big(&sa.to_words()), ab);
    assert_eq!(big(&sa.mul(&sb).to_words()), (&ab * &bb) % &n, "mul {a:x?} {b:x?}");
    assert_eq!(big(&sa.add(&sb).to_words()), (&ab + &bb) % &n, "add");
    assert_eq!(big(&sa.negate().to_words()), (&n - &ab) % &n, "negate");
    assert_eq!(sa.is_high(), ab > (&n >> 1));
    // reduce512 on a raw 512-bit value.
    let mut l = [0u64; 8];
    l[..4].copy_from_slice(a);
    l[4..].copy_from_slice(b);
    let full = big(a) + (big(b) << 256);
    assert_eq!(big(&Scalar::reduce512(&l).to_words()), full % &n, "reduce512");
}

fn check_scalar_inv(a: &[u64; 4]) {
    let n = n();
    let (s, _) = Scalar::from_words_reduce(*a);
    let ab = big(&s.to_words());
    let expect = if ab.is_zero() { BigUint::zero() } else { ab.modpow(&(&n - 2u32), &n) };
    assert_eq!(big(&s.inv_vartime().to_words()), expect, "inv_vartime {a:x?}");
    assert_eq!(big(&s.inv().to_words()), expect, "inv {a:x?}");
}

fn scalar_structured() -> Vec<[u64; 4]> {
    let n = n();
    let mut v: Vec<[u64; 4]> = structured_values();
    for k in [1u32, 2, 3] {
        v.push(words(&(&n - k)));
    }
    v.push(words(&n));
    v.push(words(&(&n >> 1)));
    v.push(words(&((&n >> 1) + 1u32)));
    v.push(LAMBDA.to_words());
    v.push(words(&(&n - big(&LAMBDA.to_words()))));
    v
}

#[test]
fn scalar_vs_bigint_structured_and_random() {
    let sv = scalar_structured();
    for a in &sv {
        for b in sv.iter().step_by(5) {
            check_scalar_pair(a, b);
        }
        check_scalar_inv(a);
    }
    let mut rng = SplitMix64(test_seed() ^ 2);
    for _ in 0..test_iters(300) {
        let a = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        check_scalar_inv(&a);
    }
}

/// Exact rounding ⌊k·g / 2^384⌉.
fn round384(k: &BigUint, g: &BigUint) -> BigUint {
    (k * g + (BigUint::one() << 383)) >> 384
}

fn check_split(k: &Scalar) {
    let n = n();
    let lam = big(&LAMBDA.to_words());
    let kb = big(&k.to_words());
    let s = k.split_lambda();
    assert!(!s.fallback, "split fell back for {k:?}");
    let k1 = big(&s.k1.to_words());
    let k2 = big(&s.k2.to_words());
    assert_eq!((&k1 + &lam * &k2) % &n, kb, "k1 + λ·k2 ≠ k for {k:?}");
    let short = |x: &BigUint| x.bits() <= 128 || (&n - x).bits() <= 128;
    assert!(short(&k1) && short(&k2), "split not short for {k:?}");
    let g1 = BigUint::parse_bytes(b"3086d221a7d46bcde86c90e49284eb153daa8a1471e8ca7fe893209a45dbb031", 16)
        .unwrap();
    let g2 = BigUint::parse_bytes(b"e4437ed6010e88286f547fa90abfe4c4221208ac9df506c61571b4ae8ac47f71", 16)
        .unwrap();
    assert_eq!(big(&s.c1.to_words()), round384(&kb, &g1));
    assert_eq!(big(&s.c2.to_words()), round384(&kb, &g2));
}

#[test]
fn glv_split_vs_exact_integers() {
    let n = n();
    let lam = big(&LAMBDA.to_words());
    let special = [
        BigUint::zero(),
        BigUint::one(),
        &n - 1u32,
        lam.clone(),
        &n - &lam,
        BigUint::one() << 128,
        (BigUint::one() << 128) - 1u32,
        &n >> 1,
        (&n >> 1) + 1u32,
        BigUint::one() << 255,
    ];
    for k in &special {
        check_split(&Scalar::from_words_reduce(words(&(k % &n))).0);
    }
    let mut rng = SplitMix64(test_seed() ^ 3);
    for _ in 0..test_iters(20_000) {
        let w = [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()];
        check_split(&Scalar::from_words_reduce(w).0);
    }
}

#[test]
fn wnaf_reconstructs_scalar() {
    let n = n();
    let mut rng = SplitMix64(test_seed() ^ 4);
    for i in 0..test_iters(3000) {
        let w = 2 + (i % 15);
        let k = Scalar::from_words_reduce([rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()]).0;
        let k = if i % 5 == 0 { k.split_lambda().k2 } else { k };
        let d = wnaf(&k, w);
        let mut acc_pos = BigUint::zero();
        let mut acc_neg = BigUint::zero();
        let mut last: Option<usize> = None;
        for (j, &x) in d.iter().enumerate() {
            if x != 0 {
                assert!(x % 2 != 0 && x.unsigned_abs() < (1 << (w - 1)), "digit {x} w={w}");
                if let Some(l) = last {
                    assert!(j - l >= w, "digits too close");
                }
                last = Some(j);
                if x > 0 {
                    acc_pos += BigUint::from(x as u32) << j;
                } else {
                    acc_neg += BigUint::from((-x) as u32) << j;
                }
            }
        }
        let val = (acc_pos + &n * 4u32 - acc_neg) % &n;
        assert_eq!(val, big(&k.to_words()), "wnaf w={w}");
    }
}

// ---------------------------------------------------------------------------------------
// Group routines against a slow affine reference over BigUint.

type Pt = Option<(BigUint, BigUint)>;

fn ref_add(a: &Pt, b: &Pt) -> Pt {
    let p = p();
    let (a, b) = match (a, b) {
        (None, _) => return b.clone(),
        (_, None) => return a.clone(),
        (Some(a), Some(b)) => (a, b),
    };
    let inv = |x: &BigUint| x.modpow(&(&p - 2u32), &p);
    let l = if a.0 == b.0 {
        if (&a.1 + &b.1) % &p == BigUint::zero() {
            return None;
        }
        (BigUint::from(3u32) * &a.0 * &a.0) % &p * inv(&(BigUint::from(2u32) * &a.1 % &p)) % &p
    } else {
        ((&b.1 + &p - &a.1) % &p) * inv(&((&b.0 + &p - &a.0) % &p)) % &p
    };
    let x = (&l * &l + &p * 2u32 - &a.0 - &b.0) % &p;
    let y = (&l * ((&a.0 + &p - &x) % &p) + &p - &a.1) % &p;
    Some((x, y))
}

fn ref_mul(k: &BigUint, a: &Pt) -> Pt {
    let mut r: Pt = None;
    for i in (0..k.bits()).rev() {
        r = ref_add(&r, &r);
        if k.bit(i) {
            r = ref_add(&r, a);
        }
    }
    r
}

fn to_pt(g: &Ge<Fe5x52>) -> Pt {
    (!g.infinity).then(|| (big(&g.x.normalize().to_u64x4()), big(&g.y.normalize().to_u64x4())))
}
fn to_pt_j(g: &Gej<Fe5x52>) -> Pt {
    to_pt(&g.to_ge_var())
}
fn from_pt(p: &Pt) -> Ge<Fe5x52> {
    match p {
        None => Ge::INFINITY,
        Some((x, y)) => {
            Ge { x: Fe5x52::from_u64x4(words(x)), y: Fe5x52::from_u64x4(words(y)), infinity: false }
        }
    }
}
/// A Jacobian form of an affine point with a chosen Z.
fn with_z(p: &Ge<Fe5x52>, z: &Fe5x52) -> Gej<Fe5x52> {
    if p.infinity {
        return Gej::INFINITY;
    }
    let z2 = z.sqr();
    Gej { x: p.x.mul(&z2), y: p.y.mul(&z2.mul(z)), z: *z, infinity: false }
}

fn gen_pt() -> Pt {
    to_pt(&Ge::<Fe5x52>::generator())
}

#[test]
fn group_routines_vs_affine_reference() {
    let n = n();
    let g = gen_pt();
    let mut rng = SplitMix64(test_seed() ^ 5);
    let rand_k =
        |rng: &mut SplitMix64| big(&[rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()]) % &n;
    let mut points: Vec<Pt> = vec![None, g.clone(), ref_add(&g, &g)];
    for _ in 0..6 {
        points.push(ref_mul(&rand_k(&mut rng), &g));
    }
    let z = Fe5x52::from_u64x4([0x1234_5678_9abc_def1, 77, 0, 0xFFFF_FFFF_0000_0001]);
    for a in &points {
        let ga = from_pt(a);
        assert!(ga.is_valid_var());
        let ja = with_z(&ga, &z);
        assert_eq!(to_pt_j(&ja.double_var()), ref_add(a, a), "double");
        let neg_a = a.as_ref().map(|(x, y)| (x.clone(), (p() - y) % p()));
        let mut others = points.clone();
        others.push(neg_a.clone());
        for b in &others {
            let gb = from_pt(b);
            let expect = ref_add(a, b);
            let (s, zr) = ja.add_ge_var(&gb);
            assert_eq!(to_pt_j(&s), expect, "add_ge_var");
            if let (Some(zr), false) = (zr, s.infinity) {
                assert!(s.z.eq_var(&ja.z.mul(&zr)), "z-ratio");
            }
            let jb = with_z(&gb, &z.sqr().add(&Fe5x52::ONE));
            assert_eq!(to_pt_j(&ja.add_var(&jb)), expect, "add_var");
            // add_zinv_var: b given in a frame with Z_b = 1/bzinv.
            let bzinv = Fe5x52::from_u64x4([5, 6, 7, 8]);
            let bi = inv(&bzinv);
            let bi2 = bi.sqr();
            let b_frame = if gb.infinity {
                Ge::INFINITY
            } else {
                // Frame coordinates of the true affine b with Z = 1/bzinv: (x/bzinv², y/bzinv³).
                Ge { x: gb.x.mul(&bi2), y: gb.y.mul(&bi2.mul(&bi)), infinity: false }
            };
            assert_eq!(to_pt_j(&ja.add_zinv_var(&b_frame, &bzinv)), expect, "add_zinv_var");
        }
    }
}

#[test]
fn ecmult_and_mul_g_vs_reference() {
    let n = n();
    let g = gen_pt();
    let mut rng = SplitMix64(test_seed() ^ 6);
    let q = ref_mul(&BigUint::from(0xC0FFEEu32), &g);
    let gq = from_pt(&q);
    let lam = big(&LAMBDA.to_words());
    let specials =
        [BigUint::zero(), BigUint::one(), &n - 1u32, lam.clone(), &n - &lam, BigUint::one() << 128, &n >> 1];
    let mut ks: Vec<BigUint> = specials.to_vec();
    for _ in 0..test_iters(24) {
        ks.push(big(&[rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()]) % &n);
    }
    for (i, a) in ks.iter().enumerate() {
        let b = &ks[(i * 7 + 3) % ks.len()];
        let sa = Scalar::from_words_reduce(words(a)).0;
        let sb = Scalar::from_words_reduce(words(b)).0;
        let expect = ref_add(&ref_mul(a, &q), &ref_mul(b, &g));
        assert_eq!(to_pt_j(&ecmult(&gq, &sa, &sb)), expect, "ecmult a={a:x} b={b:x}");
        assert_eq!(to_pt_j(&ecmult(&Ge::INFINITY, &sa, &sb)), ref_mul(b, &g), "ecmult with A = ∞");
        assert_eq!(to_pt(&super::ecmult_gen::mul_g(&sb)), ref_mul(b, &g), "mul_g");
    }
    // A = G and A = −G (cancellation through the accumulator): a·G + (n − a)·G = ∞.
    let k = Scalar::from_u64(12345);
    assert!(ecmult(&Ge::<Fe5x52>::generator(), &k, &k.negate()).infinity);
}

#[test]
fn generator_tables_are_odd_multiples() {
    let t = GenTables::build();
    assert_eq!(t.g.len(), 1 << (WINDOW_G - 2));
    let g = gen_pt();
    let h = ref_mul(&(BigUint::one() << 128), &g);
    for i in [0usize, 1, 2, 100, t.g.len() - 1] {
        let k = BigUint::from(2 * i as u64 + 1);
        assert_eq!(to_pt(&t.g[i].load()), ref_mul(&k, &g));
        assert_eq!(to_pt(&t.g128[i].load()), ref_mul(&k, &h));
    }
}

#[test]
fn ecdsa_r_plus_n_branch() {
    use super::ecdsa::verify::verify_generic;
    use super::ecdsa::Signature;
    // Find R with x(R) ≥ n, set r = x(R) − n, choose s and z, and solve for the key
    // Q = u2⁻¹·(R − u1·G) so that (r, s) is valid only through the r + n comparison.
    let n = n();
    let mut t = 1u32;
    let r_pt = loop {
        let x = &n + t;
        if let Some(pt) = Ge::<Fe5x52>::from_x(&Fe5x52::from_u64x4(words(&x)), false) {
            break pt;
        }
        t += 1;
        assert!(t < 1000, "no curve point with x just above n");
    };
    let r = Scalar::from_u64(t as u64);
    let s = Scalar::from_u64(0x1234_5678);
    let z = [7u8; 32];
    let zs = Scalar::from_bytes_reduce(&z).0;
    let sinv = s.inv_vartime();
    let (u1, u2) = (zs.mul(&sinv), r.mul(&sinv));
    // Q = u2⁻¹·R − (u1/u2)·G.
    let u2i = u2.inv_vartime();
    let q = ecmult(&r_pt, &u2i, &u1.mul(&u2i).negate()).to_ge_var();
    let sig = Signature { r, s };
    assert!(verify_generic::<Fe5x52>(&q, &z, &sig), "r + n branch must accept");
    // The plain comparison alone would reject: x(R) = r + n, not r.
    let rj = ecmult(&q, &u2, &u1);
    assert!(!rj.x_eq_var(&Fe5x52::from_u64x4(r.to_words())));
    assert!(rj.x_eq_var(&Fe5x52::from_u64x4(words(&(&n + t)))));
    assert!(!verify_generic::<Fe5x52>(&q, &[8u8; 32], &sig));
    // And libsecp256k1 agrees.
    let pk = super::PublicKey(q);
    let lpk = secp256k1::PublicKey::from_slice(&pk.serialize_compressed()).unwrap();
    let lsig = secp256k1::ecdsa::Signature::from_compact(&sig.to_compact()).unwrap();
    assert!(secp256k1::ecdsa::verify(&lsig, secp256k1::Message::from_digest(z), &lpk).is_ok());
    assert!(super::ecdsa::verify(&pk, &z, &sig));
}

/// Key parsing decompresses on the caller's backend; both backends must give the same point
/// (or the same rejection) for every x, including x ≥ p and non-residues.
#[test]
fn decompress_asm_vs_portable() {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::backend::x86_64_asm::field::Fe4x64Asm;
        use crate::backend::{require_or_skip, Backend, BackendKind};
        let Some(asm) = require_or_skip(BackendKind::Asm) else { return };
        let mut rng = SplitMix64(test_seed() ^ 0xdec0);
        let mut xs: Vec<[u8; 32]> = vec![[0; 32], [0xff; 32]];
        let p = Fe5x52::from_u64x4([0xFFFF_FFFE_FFFF_FC2F, !0, !0, !0]).to_be_bytes();
        xs.push(p);
        for i in 0..64u8 {
            let mut x = [0u8; 32];
            x[31] = i;
            xs.push(x);
        }
        for _ in 0..test_iters(2000) {
            xs.push(rng.bytes32());
        }
        for x in xs {
            for odd in [false, true] {
                let a = <Fe5x52 as FieldOps>::from_be_bytes(&x).and_then(|f| Ge::from_x(&f, odd));
                let b =
                    <Fe4x64Asm as FieldOps>::from_be_bytes(&x).and_then(|f| Ge::<Fe4x64Asm>::from_x(&f, odd));
                match (a, b) {
                    (None, None) => {}
                    (Some(a), Some(b)) => {
                        assert_eq!(a.x.normalize().to_u64x4(), b.x.normalize().to_u64x4());
                        assert_eq!(a.y.normalize().to_u64x4(), b.y.normalize().to_u64x4());
                    }
                    _ => panic!("backends disagree on x = {x:02x?}"),
                }
                // The public parser agrees with the portable decompression on either backend.
                let mut enc = [0u8; 33];
                enc[0] = 2 | u8::from(odd);
                enc[1..].copy_from_slice(&x);
                for backend in [Backend::portable(), asm] {
                    let parsed = super::PublicKey::parse_with(backend, &enc).ok();
                    assert_eq!(
                        parsed.map(|p| p.serialize_uncompressed()[1..].to_vec()),
                        a.map(|g| {
                            let mut v = g.x.normalize().to_be_bytes().to_vec();
                            v.extend_from_slice(&g.y.normalize().to_be_bytes());
                            v
                        }),
                        "{backend}"
                    );
                }
            }
        }
    }
}

/// The public per-backend kernel chains agree with the portable `FieldElement` operations.
#[test]
fn field_chain_with_every_backend_vs_field_element() {
    use super::arith::{field_chain_with, FieldElement, FieldKernel};
    let mut rng = SplitMix64(test_seed() ^ 0xc4a1);
    for _ in 0..test_iters(200) {
        let a = FieldElement::from_bytes_reduce(&rng.bytes32());
        let b = FieldElement::from_bytes_reduce(&rng.bytes32());
        let n = (rng.next_u64() % 20) as usize;
        let mut want = [a; 4];
        for _ in 0..n {
            want[0] = want[0].mul(&b);
            want[1] = want[1].sqr();
        }
        for _ in 0..n.min(3) {
            want[2] = want[2].inv();
            want[3] = want[3].inv_vartime();
        }
        for backend in crate::Backend::available() {
            let kernels = [FieldKernel::Mul, FieldKernel::Sqr, FieldKernel::Inv, FieldKernel::InvVartime];
            for (i, k) in kernels.into_iter().enumerate() {
                let len = if i < 2 { n } else { n.min(3) };
                assert_eq!(field_chain_with(backend, k, &a, &b, len), want[i], "{backend} {k:?} n={len}");
            }
        }
    }
}
