// SPDX-License-Identifier: MIT OR Apache-2.0
//! Tests of the AVX2 kernels: the `Emulated` lanes against a `u128` model of each instruction,
//! `Avx2` against `Emulated` bit for bit (on AVX2 CPUs), and `Fe10x26x8` against the scalar
//! field `Fe5x52` and `num-bigint` on structured edge values, limb-saturated weak inputs and
//! random ones, through the model everywhere and through the registers where the CPU has AVX2.

use super::field::{Fe10x26x8, MulSqr, P_LIMBS};
use super::lanes::{Emulated, EmulatedHalf, LaneOps, Lanes};
use crate::backend::portable::field::Fe5x52;
#[cfg(target_arch = "x86_64")]
use crate::backend::BackendKind;
use fullverify_testkit::{test_iters, test_seed, SplitMix64};
use num_bigint::BigUint;

const M26: u64 = (1 << 26) - 1;
const M22: u64 = (1 << 22) - 1;
/// The weak bounds: limbs 0…8 below 2^27, limb 9 below 2^23.
const WEAK: [u64; 10] =
    [1 << 27, 1 << 27, 1 << 27, 1 << 27, 1 << 27, 1 << 27, 1 << 27, 1 << 27, 1 << 27, 1 << 23];

/// Lane values that stress the instructions: the 32-bit boundary the multiplier cuts at
/// (2^32 − 1, 2^32, bits 32…63 set), zero, one, all ones, random.
fn lane_value(rng: &mut SplitMix64) -> u64 {
    match rng.next_u64() % 9 {
        0 => u32::MAX as u64,
        1 => (u32::MAX as u64) | (rng.next_u64() << 32),
        2 => 0,
        3 => 1,
        4 => u64::MAX,
        5 => rng.next_u64() & u32::MAX as u64,
        6 => (1 << 32) | (rng.next_u64() & 0xFFF),
        7 => rng.next_u64() & M26,
        _ => rng.next_u64(),
    }
}

fn lanes(rng: &mut SplitMix64) -> [u64; 8] {
    core::array::from_fn(|_| lane_value(rng))
}

#[test]
fn emulated_lanes_vs_u128_model() {
    let mut rng = SplitMix64(test_seed());
    for _ in 0..test_iters(20_000) {
        let (a, b) = (lanes(&mut rng), lanes(&mut rng));
        let (ea, eb) = (Emulated(a), Emulated(b));
        let m = rng.next_u64() as u8;
        for i in 0..8 {
            let p = (a[i] as u128 % (1 << 32)) * (b[i] as u128 % (1 << 32));
            assert_eq!(ea.mul32(eb).0[i] as u128, p, "mul32 {:x} {:x}", a[i], b[i]);
            assert_eq!(ea.add(eb).0[i], ((a[i] as u128 + b[i] as u128) % (1 << 64)) as u64);
            assert_eq!(ea.sub(eb).0[i], ((a[i] as u128 + (1 << 64) - b[i] as u128) % (1 << 64)) as u64);
            assert_eq!(ea.and(eb).0[i], a[i] & b[i]);
            assert_eq!(ea.or(eb).0[i], a[i] | b[i]);
            assert_eq!(ea.shr::<26>().0[i], (a[i] as u128 / (1 << 26)) as u64);
            assert_eq!(ea.shr::<32>().0[i], (a[i] as u128 / (1 << 32)) as u64);
            assert_eq!(ea.shl::<10>().0[i], ((a[i] as u128 * 1024) % (1 << 64)) as u64);
            assert_eq!(ea.shl::<64>().0[i], 0);
            assert_eq!(ea.shr::<64>().0[i], 0);
            assert_eq!((ea.eq_mask(eb) >> i) & 1 == 1, a[i] == b[i]);
            assert_eq!((ea.eq_mask(ea) >> i) & 1, 1);
            assert_eq!(Emulated::blend(m, ea, eb).0[i], if (m >> i) & 1 == 1 { b[i] } else { a[i] });
        }
        let table: Vec<u64> = (0..64).map(|_| rng.next_u64()).collect();
        let idx: [u64; 8] = core::array::from_fn(|_| rng.next_u64() % 64);
        let g = Emulated::gather(&table, &idx).0;
        assert!((0..8).all(|i| g[i] == table[idx[i] as usize]));
        assert_eq!(Emulated::splat(a[0]).0, [a[0]; 8]);
        // The halves are lanes 0…3 and 4…7, and their operations are the lanes' own.
        let [h0, h1] = ea.halves();
        assert_eq!((h0.0, h1.0), (a[..4].try_into().unwrap(), a[4..].try_into().unwrap()));
        assert_eq!(Emulated::from_halves([h0, h1]), ea);
        let [g0, g1] = eb.halves();
        let half_ops = |x: EmulatedHalf, y: EmulatedHalf| {
            [x.mul32(y), x.add(y), x.sub(y), x.and(y), x.or(y), x.shr::<26>(), x.shl::<10>()]
        };
        let whole =
            [ea.mul32(eb), ea.add(eb), ea.sub(eb), ea.and(eb), ea.or(eb), ea.shr::<26>(), ea.shl::<10>()];
        for (k, (lo, hi)) in half_ops(h0, g0).iter().zip(half_ops(h1, g1)).enumerate() {
            assert_eq!(Emulated::from_halves([*lo, hi]), whole[k], "half op {k}");
        }
        assert_eq!(EmulatedHalf::splat(a[1]).0, [a[1]; 4]);
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_lanes_vs_emulated() {
    use super::lanes::Avx2;
    if crate::backend::require_or_skip(BackendKind::Avx2).is_none() {
        return;
    }
    let mut rng = SplitMix64(test_seed());
    for _ in 0..test_iters(20_000) {
        let (a, b) = (lanes(&mut rng), lanes(&mut rng));
        let (ea, eb) = (Emulated(a), Emulated(b));
        let (va, vb) = (Avx2::from_array(a), Avx2::from_array(b));
        let m = rng.next_u64() as u8;
        assert_eq!(va.to_array(), a);
        assert_eq!(va.mul32(vb).to_array(), ea.mul32(eb).0);
        assert_eq!(va.add(vb).to_array(), ea.add(eb).0);
        assert_eq!(va.sub(vb).to_array(), ea.sub(eb).0);
        assert_eq!(va.and(vb).to_array(), ea.and(eb).0);
        assert_eq!(va.or(vb).to_array(), ea.or(eb).0);
        assert_eq!(va.shr::<26>().to_array(), ea.shr::<26>().0);
        assert_eq!(va.shr::<32>().to_array(), ea.shr::<32>().0);
        assert_eq!(va.shl::<10>().to_array(), ea.shl::<10>().0);
        assert_eq!(va.shl::<64>().to_array(), ea.shl::<64>().0);
        assert_eq!(va.eq_mask(vb), ea.eq_mask(eb));
        assert_eq!(va.eq_mask(va), 0xFF);
        // Equal lanes in some positions only, so that the mask is neither 0 nor 0xFF.
        let mixed: [u64; 8] = core::array::from_fn(|i| if (m >> i) & 1 == 1 { a[i] } else { !a[i] });
        assert_eq!(va.eq_mask(Avx2::from_array(mixed)), m);
        assert_eq!(Avx2::blend(m, va, vb).to_array(), Emulated::blend(m, ea, eb).0);
        assert_eq!(Avx2::splat(b[3]).to_array(), Emulated::splat(b[3]).0);
        let table: Vec<u64> = (0..64).map(|_| rng.next_u64()).collect();
        let idx: [u64; 8] = core::array::from_fn(|_| rng.next_u64() % 64);
        assert_eq!(Avx2::gather(&table, &idx).to_array(), Emulated::gather(&table, &idx).0);
        // Each half's instruction against the model's half.
        let ([v0, v1], [w0, w1]) = (va.halves(), vb.halves());
        let ([e0, e1], [f0, f1]) = (ea.halves(), eb.halves());
        assert_eq!(Avx2::from_halves([v0, v1]).to_array(), a);
        let half = |x: Avx2, y: EmulatedHalf, z: EmulatedHalf| {
            let e = Emulated::from_halves([y, z]).0;
            assert_eq!(x.to_array(), e);
        };
        half(Avx2::from_halves([v0.mul32(w0), v1.mul32(w1)]), e0.mul32(f0), e1.mul32(f1));
        half(Avx2::from_halves([v0.add(w0), v1.add(w1)]), e0.add(f0), e1.add(f1));
        half(Avx2::from_halves([v0.sub(w0), v1.sub(w1)]), e0.sub(f0), e1.sub(f1));
        half(Avx2::from_halves([v0.and(w0), v1.and(w1)]), e0.and(f0), e1.and(f1));
        half(Avx2::from_halves([v0.or(w0), v1.or(w1)]), e0.or(f0), e1.or(f1));
        half(Avx2::from_halves([v0.shr::<26>(), v1.shr::<32>()]), e0.shr::<26>(), e1.shr::<32>());
        half(Avx2::from_halves([v0.shl::<10>(), v1.shl::<64>()]), e0.shl::<10>(), e1.shl::<64>());
        half(
            Avx2::from_halves([LaneOps::splat(a[2]), LaneOps::splat(a[5])]),
            EmulatedHalf([a[2]; 4]),
            EmulatedHalf([a[5]; 4]),
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
#[should_panic(expected = "gather index out of range")]
fn avx2_gather_checks_bounds() {
    use super::lanes::Avx2;
    if crate::backend::require_or_skip(BackendKind::Avx2).is_none() {
        panic!("gather index out of range (skipped: no AVX2)");
    }
    let t = [1u64; 8];
    Avx2::gather(&t, &[0, 1, 2, 3, 4, 5, 6, 8]);
}

// ---- Fe10x26x8 ------------------------------------------------------------------------------

fn p_big() -> BigUint {
    (BigUint::from(1u8) << 256) - BigUint::from(0x1_0000_03D1u64)
}

/// The value of ten 26-bit-position limbs (any sizes).
fn big10(l: &[u64; 10]) -> BigUint {
    l.iter().rev().fold(BigUint::from(0u8), |v, &x| (v << 26) + BigUint::from(x))
}

/// The canonical portable element of a value.
fn fe_of(v: &BigUint) -> Fe5x52 {
    let r = v % p_big();
    let d = r.to_u64_digits();
    Fe5x52::from_u64x4(core::array::from_fn(|i| d.get(i).copied().unwrap_or(0)))
}

/// Canonical 26-bit limbs of a value below 2^256.
fn limbs_of(v: &BigUint) -> [u64; 10] {
    let m = BigUint::from(M26);
    core::array::from_fn(|k| {
        let x: BigUint = (v >> (26 * k)) & &m;
        x.to_u64_digits().first().copied().unwrap_or(0)
    })
}

/// Structured inputs, each a weak limb vector: canonical 0, 1, p−1, p−2^32, 2^k, 2^k ± 1 and
/// random values; non-canonical p, p + 1, 2^256 − 1; limb-saturated vectors (every limb at its
/// weak maximum, or each at one of 0, 2^26 − 1, 2^26, the maximum); random weak limbs; and a
/// canonical value plus p limb by limb.
fn weak_input(rng: &mut SplitMix64) -> [u64; 10] {
    let p = p_big();
    let one = BigUint::from(1u8);
    let canon = |v: BigUint| limbs_of(&(v % &p));
    let k = (rng.next_u64() % 256) as usize;
    match rng.next_u64() % 16 {
        0 => [0; 10],
        1 => canon(one),
        2 => canon(&p - 1u8),
        3 => canon(&p - (one << 32)),
        4 => canon(one << k),
        5 => canon((one << k) + 1u8),
        6 => canon((&one << (k + 1)) - 1u8),
        7 => P_LIMBS,
        8 => {
            let mut l = P_LIMBS;
            l[0] += 1;
            l
        }
        9 => [M26, M26, M26, M26, M26, M26, M26, M26, M26, M22],
        10 => core::array::from_fn(|i| WEAK[i] - 1),
        11 => core::array::from_fn(|i| {
            let top = if i == 9 { 22 } else { 26 };
            [0, (1 << top) - 1, 1 << top, (WEAK[i]) - 1][(rng.next_u64() % 4) as usize]
        }),
        12 | 13 => core::array::from_fn(|i| rng.next_u64() % WEAK[i]),
        14 => {
            let c = canon(BigUint::from_bytes_le(&rng.bytes32()));
            core::array::from_fn(|i| c[i] + P_LIMBS[i])
        }
        _ => canon(BigUint::from_bytes_le(&rng.bytes32())),
    }
}

fn lanes_of<L: Lanes>(v: &[[u64; 10]; 8]) -> Fe10x26x8<L> {
    Fe10x26x8 { l: core::array::from_fn(|k| L::from_array(core::array::from_fn(|i| v[i][k]))) }
}

fn raw<L: Lanes>(x: &Fe10x26x8<L>) -> [[u64; 10]; 8] {
    let w: [[u64; 8]; 10] = core::array::from_fn(|k| x.l[k].to_array());
    core::array::from_fn(|i| core::array::from_fn(|k| w[k][i]))
}

/// Every lane of `got` is weak and equals `want` mod p; every `bigint`-th call also checks the
/// raw limbs' value with `num-bigint`.
fn check_lanes<L: Lanes>(what: &str, got: &Fe10x26x8<L>, want: &[Fe5x52; 8], bigint: bool) {
    let r = raw(got);
    let n = got.to_lanes();
    for i in 0..8 {
        assert!((0..10).all(|k| r[i][k] < WEAK[k]), "{what}: lane {i} not weak: {:x?}", r[i]);
        assert_eq!(n[i].0, want[i].normalize().0, "{what}: lane {i}");
        if bigint {
            assert_eq!(fe_of(&big10(&r[i])).0, want[i].normalize().0, "{what}: lane {i} (bigint)");
        }
    }
}

fn check_fe8<L: MulSqr>(iters: usize) {
    let mut rng = SplitMix64(test_seed());
    let p = p_big();
    for it in 0..iters {
        let ra: [[u64; 10]; 8] = core::array::from_fn(|_| weak_input(&mut rng));
        let rb: [[u64; 10]; 8] = core::array::from_fn(|_| weak_input(&mut rng));
        let a: [Fe5x52; 8] = core::array::from_fn(|i| fe_of(&big10(&ra[i])));
        let b: [Fe5x52; 8] = core::array::from_fn(|i| fe_of(&big10(&rb[i])));
        let (xa, xb) = (lanes_of::<L>(&ra), lanes_of::<L>(&rb));
        let bi = it % 16 == 0;
        let each = |f: &dyn Fn(usize) -> Fe5x52| -> [Fe5x52; 8] { core::array::from_fn(f) };
        check_lanes("mul", &xa.mul(&xb), &each(&|i| a[i].mul(&b[i])), bi);
        check_lanes("sqr", &xa.sqr(), &each(&|i| a[i].sqr()), bi);
        // The copies the engine calls (out of line on the registers) are the same kernels.
        assert_eq!(raw(&L::fe_mul(&xa, &xb)), raw(&xa.mul(&xb)), "fe_mul");
        assert_eq!(raw(&L::fe_sqr(&xa)), raw(&xa.sqr()), "fe_sqr");
        check_lanes("add", &xa.add(&xb), &each(&|i| a[i].add(&b[i])), bi);
        check_lanes("sub", &xa.sub(&xb), &each(&|i| a[i].add(&b[i].negate(1))), bi);
        check_lanes("neg", &xa.neg(), &each(&|i| a[i].negate(1)), bi);
        check_lanes("mul2", &xa.mul_pow2::<1>(), &each(&|i| a[i].mul_int(2)), bi);
        check_lanes("mul4", &xa.mul_pow2::<2>(), &each(&|i| a[i].mul_int(4)), bi);
        check_lanes("mul8", &xa.mul_pow2::<3>(), &each(&|i| a[i].mul_int(8)), bi);
        check_lanes("mul3", &xa.mul3(), &each(&|i| a[i].mul_int(3)), bi);
        let k = (rng.next_u64() % 33) as u32;
        check_lanes("mul_small", &xa.mul_small(k), &each(&|i| a[i].mul_int(k)), bi);
        let m = rng.next_u64() as u8;
        let bl = xa.blend(m, &xb);
        let rbl = raw(&bl);
        for i in 0..8 {
            assert_eq!(rbl[i], if (m >> i) & 1 == 1 { rb[i] } else { ra[i] }, "blend lane {i}");
        }
        // Canonical form: exactly the limbs of the value mod p.
        let norm = raw(&xa.normalize());
        let z = xa.is_zero_mask();
        for i in 0..8 {
            let v = big10(&ra[i]) % &p;
            assert_eq!(norm[i], limbs_of(&v), "normalize lane {i}: {:x?}", ra[i]);
            assert_eq!((z >> i) & 1 == 1, v == BigUint::from(0u8), "is_zero lane {i}");
        }
        // Constants, conversions and the table formats.
        assert!(Fe10x26x8::<L>::zero().to_lanes().iter().all(|e| e.0 == Fe5x52::ZERO.0));
        assert!(Fe10x26x8::<L>::one().to_lanes().iter().all(|e| e.0 == Fe5x52::ONE.0));
        assert_eq!(raw(&Fe10x26x8::<L>::from_lanes(&a)), raw(&xa.normalize()));
        let s = Fe10x26x8::<L>::splat(&a[3]).to_lanes();
        assert!(s.iter().all(|e| e.0 == a[3].0));
        let mut words = vec![0u64; 3];
        xa.write_words(&mut words);
        let base: [u64; 8] = core::array::from_fn(|i| 3 + i as u64);
        assert_eq!(raw(&Fe10x26x8::<L>::read_words(&words, &base)), ra);
        let flat: Vec<u64> = a.iter().flat_map(|e| e.0).collect();
        let base52: [u64; 8] = core::array::from_fn(|i| 5 * i as u64);
        assert_eq!(raw(&Fe10x26x8::<L>::read_limbs52(&flat, &base52)), raw(&xa.normalize()));
    }
}

/// Random chains of operations, each fed the previous results (weak outputs at their bounds
/// as inputs), against the scalar field step by step.
fn check_chains<L: Lanes>(iters: usize) {
    let mut rng = SplitMix64(test_seed() ^ 5);
    for _ in 0..iters {
        let ra: [[u64; 10]; 8] = core::array::from_fn(|_| weak_input(&mut rng));
        let rb: [[u64; 10]; 8] = core::array::from_fn(|_| weak_input(&mut rng));
        let (mut x, mut y) = (lanes_of::<L>(&ra), lanes_of::<L>(&rb));
        let mut sx: [Fe5x52; 8] = core::array::from_fn(|i| fe_of(&big10(&ra[i])));
        let mut sy: [Fe5x52; 8] = core::array::from_fn(|i| fe_of(&big10(&rb[i])));
        for step in 0..40 {
            let op = rng.next_u64() % 8;
            let (nx, nsx): (Fe10x26x8<L>, [Fe5x52; 8]) = match op {
                0 => (x.mul(&y), core::array::from_fn(|i| sx[i].mul(&sy[i]))),
                1 => (x.sqr(), core::array::from_fn(|i| sx[i].sqr())),
                2 => (x.sub(&y), core::array::from_fn(|i| sx[i].add(&sy[i].negate(1)).normalize_weak())),
                3 => (x.add(&y), core::array::from_fn(|i| sx[i].add(&sy[i]).normalize_weak())),
                4 => (x.mul_pow2::<3>(), core::array::from_fn(|i| sx[i].mul_int(8).normalize_weak())),
                5 => (x.neg(), core::array::from_fn(|i| sx[i].negate(1).normalize_weak())),
                6 => (x.mul3(), core::array::from_fn(|i| sx[i].mul_int(3).normalize_weak())),
                _ => (
                    y.sub(&x).mul_pow2::<2>(),
                    core::array::from_fn(|i| sy[i].add(&sx[i].negate(1)).mul_int(4).normalize_weak()),
                ),
            };
            check_lanes(&format!("chain step {step} op {op}"), &nx, &nsx, false);
            (y, sy) = (x, sx);
            (x, sx) = (nx, nsx);
        }
    }
}

#[test]
fn fe10x26x8_emulated_vs_scalar_field() {
    check_fe8::<Emulated>(test_iters(40_000));
}

#[test]
fn fe10x26x8_emulated_chains_vs_scalar_field() {
    check_chains::<Emulated>(test_iters(2_000));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn fe10x26x8_avx2_vs_scalar_field() {
    if crate::backend::require_or_skip(BackendKind::Avx2).is_none() {
        return;
    }
    check_fe8::<super::lanes::Avx2>(test_iters(40_000));
    check_chains::<super::lanes::Avx2>(test_iters(2_000));
}

fn check_fe8_pow<L: MulSqr>() {
    let mut rng = SplitMix64(test_seed() ^ 1);
    for _ in 0..test_iters(20) {
        let ra: [[u64; 10]; 8] = core::array::from_fn(|_| weak_input(&mut rng));
        let a: [Fe5x52; 8] = core::array::from_fn(|i| fe_of(&big10(&ra[i])));
        let x = lanes_of::<L>(&ra);
        let inv = x.inv().to_lanes();
        let root = x.pow_p1_4().to_lanes();
        for i in 0..8 {
            let want = crate::secp256k1::field::inv_var(&a[i]).normalize();
            assert_eq!(inv[i].0, want.0, "inv lane {i}");
            // (p+1)/4 power: a square root exactly when a is a square; compare with Fe5x52's.
            let mut w = a[i];
            let e = crate::secp256k1::field::P_WORDS;
            let mut exp = [e[0] + 1, e[1], e[2], e[3]];
            // (p + 1) / 4 as little-endian words (p + 1 has no carry out of word 0).
            for j in 0..4 {
                exp[j] = (exp[j] >> 2) | if j < 3 { exp[j + 1] << 62 } else { 0 };
            }
            let mut r = Fe5x52::ONE;
            for j in (0..4).rev() {
                for bit in (0..64).rev() {
                    r = r.sqr();
                    if (exp[j] >> bit) & 1 == 1 {
                        r = r.mul(&w);
                    }
                }
            }
            w = r.normalize();
            assert_eq!(root[i].0, w.0, "pow_p1_4 lane {i}");
        }
    }
}

#[test]
fn fe10x26x8_inverse_and_root_emulated_vs_scalar() {
    check_fe8_pow::<Emulated>();
}

#[cfg(target_arch = "x86_64")]
#[test]
fn fe10x26x8_inverse_and_root_avx2_vs_scalar() {
    if crate::backend::require_or_skip(BackendKind::Avx2).is_none() {
        return;
    }
    check_fe8_pow::<super::lanes::Avx2>();
}

#[cfg(target_arch = "x86_64")]
#[test]
fn chacha20_eight_blocks_equal_the_scalar_block_function() {
    if crate::backend::require_or_skip(BackendKind::Avx2).is_none() {
        return;
    }
    let mut rng = SplitMix64(test_seed() ^ 0xc4a);
    // The RFC 8439 §2.3.2 key and nonce, MuHash's nonce 0, random ones; counters from 0, mid
    // range and across the 32-bit wrap.
    let rfc_key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let rfc_nonce = [0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0];
    let mut cases = vec![(rfc_key, 1u32, rfc_nonce), (rfc_key, 0, [0; 12])];
    for counter in [0u32, 6, 0x7FFF_FFFC, u32::MAX - 3, u32::MAX] {
        cases.push((rng.bytes(), counter, rng.bytes()));
        cases.push(([0xFF; 32], counter, [0xFF; 12]));
    }
    for (key, counter, nonce) in cases {
        // SAFETY: the Avx2 token above means the CPU has AVX2.
        let got = unsafe { super::chacha20::blocks8(&key, counter, &nonce) };
        for (b, words) in got.iter().enumerate() {
            let want = crate::muhash::chacha20_block(&key, counter.wrapping_add(b as u32), &nonce);
            let got_bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(got_bytes, want, "counter {counter:#x}, block {b}");
        }
    }
}

// MuHash's 3072-bit product, eight lanes in 28-bit limbs.

use super::num3072::{
    limbs28_from_le_bytes, mul_mod_lanes28, words_from_limbs28, Lanes28, LIMBS28, LIMB_MAX,
};

const M28: u64 = (1 << 28) - 1;

fn muhash_modulus() -> BigUint {
    (BigUint::from(1u8) << 3072) - BigUint::from(1_103_717u32)
}

fn big28(l: &[u64; LIMBS28]) -> BigUint {
    l.iter().rev().fold(BigUint::from(0u8), |acc, &v| (acc << 28) + BigUint::from(v))
}

fn limbs28_of(v: &BigUint) -> [u64; LIMBS28] {
    let mut b = v.to_bytes_le();
    b.resize(384, 0);
    limbs28_from_le_bytes(&b.try_into().unwrap())
}

fn lane(x: &Lanes28, l: usize) -> [u64; LIMBS28] {
    core::array::from_fn(|i| x[i][l])
}

/// Operands anywhere the kernel accepts them: every limb at LIMB_MAX (the largest column
/// sums), 2^3072 − 1, m − 1, m, m + 1, zero, one, 2^k, sparse saturated limbs, random limbs up
/// to LIMB_MAX, and random values below 2^3072.
fn limbs28_structured(rng: &mut SplitMix64) -> [u64; LIMBS28] {
    let m = muhash_modulus();
    match rng.next_u64() % 11 {
        0 => [LIMB_MAX; LIMBS28],
        1 => limbs28_of(&((BigUint::from(1u8) << 3072) - 1u8)),
        2 => limbs28_of(&(&m - 1u8 + BigUint::from(rng.next_u64() % 3))),
        3 => {
            let mut l = [0u64; LIMBS28];
            l[0] = rng.next_u64() % 2;
            l
        }
        4 => limbs28_of(&(BigUint::from(1u8) << (rng.next_u64() % 3072))),
        5 => core::array::from_fn(|_| if rng.next_u64().is_multiple_of(3) { M28 } else { 0 }),
        6 => core::array::from_fn(|_| if rng.next_u64().is_multiple_of(2) { LIMB_MAX } else { 0 }),
        7 => core::array::from_fn(|_| rng.next_u64() % (LIMB_MAX + 1)),
        _ => {
            let mut b = [0u8; 384];
            rng.fill(&mut b);
            limbs28_from_le_bytes(&b)
        }
    }
}

fn check_lanes28<L: Lanes>(iters: usize) {
    let mut rng = SplitMix64(test_seed() ^ 28);
    let m = muhash_modulus();
    let group = |rng: &mut SplitMix64| -> Lanes28 {
        let v: [[u64; LIMBS28]; 8] = core::array::from_fn(|_| limbs28_structured(rng));
        core::array::from_fn(|i| core::array::from_fn(|l| v[l][i]))
    };
    // Eight running products, as the final MuHash keeps them, beside independent groups.
    let mut acc = group(&mut rng);
    let mut acc_big: Vec<BigUint> = (0..8).map(|l| big28(&lane(&acc, l)) % &m).collect();
    for _ in 0..iters {
        let (a, b) = (group(&mut rng), group(&mut rng));
        let mut got = a;
        mul_mod_lanes28::<L>(&mut got, &b);
        mul_mod_lanes28::<L>(&mut acc, &b);
        for (l, want_acc) in acc_big.iter_mut().enumerate() {
            let g = lane(&got, l);
            assert!(g.iter().all(|&v| v <= (1 << 28) + 1), "limb out of range");
            assert_eq!(big28(&g) % &m, big28(&lane(&a, l)) * big28(&lane(&b, l)) % &m, "lane {l}");
            *want_acc = &*want_acc * big28(&lane(&b, l)) % &m;
            assert_eq!(big28(&lane(&acc, l)) % &m, *want_acc, "running product, lane {l}");
        }
    }
}

#[test]
fn num3072_lanes28_emulated_vs_bigint() {
    check_lanes28::<Emulated>(test_iters(40));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn num3072_lanes28_avx2_vs_bigint() {
    if crate::backend::require_or_skip(BackendKind::Avx2).is_none() {
        return;
    }
    check_lanes28::<super::lanes::Avx2>(test_iters(200));
}

#[test]
fn num3072_lanes28_conversions() {
    let mut rng = SplitMix64(test_seed() ^ 0x28);
    for i in 0..200 {
        let mut b = [0u8; 384];
        match i % 3 {
            0 => b = [0xFF; 384],
            1 => b[383] = 0x80,
            _ => rng.fill(&mut b),
        }
        let l = limbs28_from_le_bytes(&b);
        assert!(l.iter().all(|&v| v <= M28));
        assert_eq!(big28(&l), BigUint::from_bytes_le(&b));
        let words = words_from_limbs28::<49>(&l);
        let mut back = BigUint::from(0u8);
        for w in words.iter().rev() {
            back = (back << 64) + BigUint::from(*w);
        }
        assert_eq!(back, BigUint::from_bytes_le(&b));
    }
    // Every limb at the bound: the value passes 2^3080 and needs the 49th word.
    let top = [LIMB_MAX; LIMBS28];
    let words = words_from_limbs28::<49>(&top);
    let mut back = BigUint::from(0u8);
    for w in words.iter().rev() {
        back = (back << 64) + BigUint::from(*w);
    }
    assert_eq!(back, big28(&top));
    assert!(back > BigUint::from(1u8) << 3080);
}

/// `muhash::elements8_on` on every backend (ChaCha20 on eight keys at once, cut into limbs in the
/// registers, under Avx2; the scalar block function elsewhere) against the scalar block
/// function read through `limbs28_from_le_bytes`: the RFC 8439 key, all-zero and all-one keys,
/// keys differing in one bit, random ones.
#[test]
fn muhash_elements_of_eight_keys_equal_the_scalar_keystream() {
    let mut rng = SplitMix64(test_seed() ^ 0xe18);
    let rfc: [u8; 32] = core::array::from_fn(|i| i as u8);
    let mut groups: Vec<[[u8; 32]; 8]> = vec![[rfc; 8], [[0; 32]; 8], [[0xFF; 32]; 8]];
    groups.push(core::array::from_fn(|l| {
        let mut k = [0u8; 32];
        k[l * 4 + (l % 4)] = 1 << l;
        k
    }));
    for _ in 0..test_iters(20) {
        groups.push(core::array::from_fn(|_| rng.bytes()));
    }
    for backend in crate::Backend::available() {
        for keys in &groups {
            let mut got = [[0u64; 8]; LIMBS28];
            crate::muhash::elements8_on(backend, keys, &mut got);
            for (l, key) in keys.iter().enumerate() {
                let mut bytes = [0u8; 384];
                for (b, chunk) in bytes.chunks_exact_mut(64).enumerate() {
                    chunk.copy_from_slice(&crate::muhash::chacha20_block(key, b as u32, &[0; 12]));
                }
                assert_eq!(lane(&got, l), limbs28_from_le_bytes(&bytes), "{backend}, lane {l}");
            }
        }
    }
}

/// Hashed elements (waiting as keys) and numbers (waiting as limbs) in one product, in counts
/// around the group size on both sides.
#[test]
fn set_product_mixing_elements_and_numbers_equals_muhash() {
    use crate::muhash::{to_num3072, MuHash3072, SetProduct};
    for (n_elems, n_nums) in [(1usize, 1usize), (7, 9), (8, 8), (9, 7), (17, 3), (3, 17), (24, 0)] {
        let elems: Vec<[u8; 4]> = (0..n_elems as u32).map(|i| i.to_le_bytes()).collect();
        let nums: Vec<[u8; 5]> = (0..n_nums as u8).map(|i| [i, 1, 2, 3, 4]).collect();
        let mut want = MuHash3072::new();
        for d in elems.iter().map(|e| &e[..]).chain(nums.iter().map(|n| &n[..])) {
            want.insert_with(crate::Backend::portable(), d);
        }
        let want = want.finalize();
        for backend in crate::Backend::available() {
            let mut p = SetProduct::new(backend);
            let (mut e, mut n) = (elems.iter(), nums.iter());
            loop {
                match (e.next(), n.next()) {
                    (None, None) => break,
                    (x, y) => {
                        x.into_iter().for_each(|d| p.insert(d));
                        y.into_iter().for_each(|d| p.mul_num(&to_num3072(d)));
                    }
                }
            }
            assert_eq!(p.finish().finalize(), want, "{backend}, {n_elems} elements, {n_nums} numbers");
        }
    }
}

#[test]
fn set_product_groups_of_eight_equal_muhash_insert() {
    use crate::muhash::{MuHash3072, SetProduct};
    // Counts around the group size: empty, a last group alone, complete groups, both.
    for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 63] {
        let data: Vec<[u8; 4]> = (0..n as u32).map(|i| i.to_le_bytes()).collect();
        let mut want = MuHash3072::new();
        for d in &data {
            want.insert_with(crate::Backend::portable(), d);
        }
        let want = want.finalize();
        for backend in crate::Backend::available() {
            let mut p = SetProduct::new(backend);
            for d in &data {
                p.insert(d);
            }
            assert_eq!(p.finish().finalize(), want, "{backend}, {n} elements");
        }
    }
}
