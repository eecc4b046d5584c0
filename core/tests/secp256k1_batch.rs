// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multi-scalar multiplication against the naive sum Σ kᵢ·Pᵢ, Strauss against Pippenger, and
//! BIP340 batch verification against single verification, on every available backend.

use fullverify::backend::{require_or_skip, BackendKind};
use fullverify::secp256k1::arith::{AffinePoint, Scalar};
use fullverify::secp256k1::msm::{msm_with, msm_with_stats, MsmAlgorithm};
use fullverify::secp256k1::{schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_testkit::{test_iters, test_seed, SplitMix64};

const ALGS: [MsmAlgorithm; 3] = [MsmAlgorithm::Auto, MsmAlgorithm::Strauss, MsmAlgorithm::Pippenger];

fn rand_scalar(rng: &mut SplitMix64) -> Scalar {
    Scalar::from_bytes_reduce(&rng.bytes32()).0
}

fn naive(terms: &[(Scalar, AffinePoint)]) -> AffinePoint {
    terms.iter().fold(AffinePoint::INFINITY, |acc, (k, p)| acc.add(&p.mul_vartime(k)))
}

/// Random terms of size n, with structured scalars and points mixed in.
fn terms(rng: &mut SplitMix64, n: usize, structured: bool) -> Vec<(Scalar, AffinePoint)> {
    let minus_one = Scalar::ONE.negate();
    let mut out: Vec<(Scalar, AffinePoint)> = Vec::with_capacity(n);
    while out.len() < n {
        let p = AffinePoint::mul_generator(&rand_scalar(rng));
        let k = rand_scalar(rng);
        if !structured {
            out.push((k, p));
            continue;
        }
        let short = Scalar::from_u64(rng.next_u64());
        let pick = rng.next_u64() % 9;
        let cand: Vec<(Scalar, AffinePoint)> = match pick {
            0 => vec![(Scalar::ZERO, p)],
            1 => vec![(Scalar::ONE, p)],
            2 => vec![(minus_one, p)],
            3 => vec![(k, p), (k, p)],
            4 => vec![(k, p), (k, p.neg())],
            5 => vec![(k, AffinePoint::INFINITY)],
            6 => vec![(short, p), (short.negate(), p)],
            7 => vec![(k, p), (k.negate(), p)],
            _ => vec![(k, p)],
        };
        for t in cand {
            if out.len() < n {
                out.push(t);
            }
        }
    }
    out
}

fn check_msm(backend: Backend, seed: u64) {
    let mut rng = SplitMix64(seed);
    for n in [0usize, 1, 2, 3, 7, 64, 65, 1000] {
        for structured in [false, true] {
            let t = terms(&mut rng, n, structured);
            let want = naive(&t);
            for alg in ALGS {
                assert_eq!(
                    msm_with(backend, &t, alg),
                    want,
                    "{backend} {alg:?} n={n} structured={structured}"
                );
            }
            let (_, st_s) = msm_with_stats(backend, &t, MsmAlgorithm::Strauss);
            let (_, st_p) = msm_with_stats(backend, &t, MsmAlgorithm::Pippenger);
            assert_eq!(st_s.algorithm, Some(MsmAlgorithm::Strauss));
            assert_eq!(st_p.algorithm, Some(MsmAlgorithm::Pippenger));
            if n >= 64 && !structured {
                assert!(
                    st_s.doublings >= 120 && st_s.mixed_additions > 0 && st_s.inversions == 1,
                    "{st_s:?}"
                );
                assert!(st_p.mixed_additions > 0 && st_p.additions > 0, "{st_p:?}");
            }
        }
    }
    // A sum that is infinity, and one whose only point is infinity.
    let p = AffinePoint::mul_generator(&rand_scalar(&mut rng));
    let k = rand_scalar(&mut rng);
    for alg in ALGS {
        assert!(msm_with(backend, &[(k, p), (k, p.neg())], alg).is_infinity());
        assert!(msm_with(backend, &[(k, AffinePoint::INFINITY)], alg).is_infinity());
        assert!(msm_with(backend, &[(Scalar::ONE.negate(), p), (Scalar::ONE, p)], alg).is_infinity());
    }
}

#[test]
fn msm_vs_naive_every_backend() {
    let seed = test_seed();
    for b in Backend::available() {
        check_msm(b, seed);
    }
}

#[test]
fn msm_asm_vs_portable() {
    let Some(asm) = require_or_skip(BackendKind::Asm) else { return };
    let mut rng = SplitMix64(test_seed() ^ 0xa5);
    for n in [5usize, 200, 700] {
        let t = terms(&mut rng, n, true);
        for alg in ALGS {
            assert_eq!(msm_with(asm, &t, alg), msm_with(Backend::portable(), &t, alg));
        }
    }
}

struct Pool {
    keys: Vec<XOnlyPublicKey>,
    msgs: Vec<[u8; 32]>,
    sigs: Vec<[u8; 64]>,
}

fn pool(seed: u64, n: usize) -> Pool {
    let mut rng = SplitMix64(seed);
    let mut p = Pool { keys: Vec::new(), msgs: Vec::new(), sigs: Vec::new() };
    for _ in 0..n {
        let sk = rng.bytes32();
        let msg = rng.bytes32();
        p.keys.push(PublicKey::from_secret(&sk).unwrap().x_only().0);
        p.sigs.push(schnorr::sign(&sk, &msg, &rng.bytes32()));
        p.msgs.push(msg);
    }
    p
}

impl Pool {
    fn items(&self) -> Vec<schnorr::BatchItem<'_>> {
        (0..self.keys.len()).map(|i| (&self.keys[i], &self.msgs[i][..], &self.sigs[i])).collect()
    }
}

fn add_one_be(b: &mut [u8]) {
    for x in b.iter_mut().rev() {
        let (v, c) = x.overflowing_add(1);
        *x = v;
        if !c {
            break;
        }
    }
}

fn sub_one_be(b: &mut [u8]) {
    for x in b.iter_mut().rev() {
        let (v, c) = x.overflowing_sub(1);
        *x = v;
        if !c {
            break;
        }
    }
}

#[test]
fn batch_all_valid_sizes_vs_single() {
    let p = pool(test_seed(), 4096);
    let items = p.items();
    for b in Backend::available() {
        assert!(schnorr::verify_batch_with(b, &[]));
        for n in 1..=300 {
            assert!(schnorr::verify_batch_with(b, &items[..n]), "{b} size {n}");
        }
        for alg in ALGS {
            for n in [1usize, 2, 3] {
                assert!(schnorr::verify_batch_with_algorithm(b, alg, &items[..n]), "{b} {alg:?} {n}");
            }
            for n in [2500usize, 4096] {
                assert!(schnorr::verify_batch_with_algorithm(b, alg, &items[..n]), "{b} {alg:?} {n}");
            }
        }
        assert!(schnorr::find_invalid_with(b, &items[..1000]).is_empty());
    }
}

#[test]
fn batch_negative_controls_at_every_position() {
    let p = pool(test_seed() ^ 1, 65);
    let other_key = p.keys[64];
    for b in Backend::available() {
        for pos in 0..64 {
            for control in 0..4 {
                let mut sigs = p.sigs[..64].to_vec();
                let mut msgs = p.msgs[..64].to_vec();
                let mut keys = p.keys[..64].to_vec();
                match control {
                    0 => add_one_be(&mut sigs[pos][32..]),
                    1 => msgs[pos][(pos * 7) % 32] ^= 1 << (pos % 8),
                    2 => add_one_be(&mut sigs[pos][..32]),
                    _ => keys[pos] = other_key,
                }
                let items: Vec<schnorr::BatchItem> =
                    (0..64).map(|i| (&keys[i], &msgs[i][..], &sigs[i])).collect();
                assert!(!schnorr::verify_with(b, items[pos].0, items[pos].1, items[pos].2));
                for alg in ALGS {
                    assert!(
                        !schnorr::verify_batch_with_algorithm(b, alg, &items),
                        "{b} {alg:?} control {control} at {pos}"
                    );
                }
                assert_eq!(schnorr::find_invalid_with(b, &items), vec![pos], "{b} control {control}");
            }
        }
    }
}

/// Two invalid signatures whose errors cancel when the equations are summed without weights
/// (s₁ + 1 and s₂ − 1): only the random weights catch them.
#[test]
fn batch_cancelling_errors_rejected() {
    let p = pool(test_seed() ^ 2, 8);
    for b in Backend::available() {
        for (i, j) in [(0usize, 1usize), (3, 6), (7, 0)] {
            let mut sigs = p.sigs.clone();
            add_one_be(&mut sigs[i][32..]);
            sub_one_be(&mut sigs[j][32..]);
            let items: Vec<schnorr::BatchItem> =
                (0..8).map(|k| (&p.keys[k], &p.msgs[k][..], &sigs[k])).collect();
            for alg in ALGS {
                assert!(!schnorr::verify_batch_with_algorithm(b, alg, &items), "{b} {alg:?} {i},{j}");
            }
            let mut want = vec![i, j];
            want.sort();
            assert_eq!(schnorr::find_invalid_with(b, &items), want);
        }
    }
}

#[test]
fn batch_mixed_vs_single_verification() {
    let seed = test_seed() ^ 3;
    let base = pool(seed, 256);
    let mut rng = SplitMix64(seed);
    // A pool of 512 items: the valid ones and one corruption of each, of every kind
    // (including r ≥ p, s ≥ n and an r off the curve).
    let mut keys = base.keys.clone();
    let mut msgs = base.msgs.clone();
    let mut sigs = base.sigs.clone();
    for i in 0..256 {
        let (mut k, mut m, mut s) = (base.keys[i], base.msgs[i], base.sigs[i]);
        match i % 7 {
            0 => add_one_be(&mut s[32..]),
            1 => m[i % 32] ^= 0x80,
            2 => add_one_be(&mut s[..32]),
            3 => k = base.keys[(i + 1) % 256],
            4 => s[..32].copy_from_slice(&[0xff; 32]),
            5 => s[32..].copy_from_slice(&[0xff; 32]),
            _ => s.swap(0, 40),
        }
        keys.push(k);
        msgs.push(m);
        sigs.push(s);
    }
    let backends = Backend::available();
    let singles: Vec<bool> = (0..512).map(|i| schnorr::verify(&keys[i], &msgs[i], &sigs[i])).collect();
    assert!(singles[..256].iter().all(|&v| v) && singles[256..].iter().all(|&v| !v));
    let iters = test_iters(10_000);
    let mut invalid_batches = 0;
    for it in 0..iters {
        let n = 1 + (rng.next_u64() % 24) as usize;
        // 0: every item valid; r > 0: each item invalid with probability 1/(16/r).
        let bad_rate = rng.next_u64() % 4;
        let idx: Vec<usize> = (0..n)
            .map(|_| {
                let j = (rng.next_u64() % 256) as usize;
                if bad_rate > 0 && rng.next_u64().is_multiple_of(16 / bad_rate) {
                    j + 256
                } else {
                    j
                }
            })
            .collect();
        let items: Vec<schnorr::BatchItem> =
            idx.iter().map(|&j| (&keys[j], &msgs[j][..], &sigs[j])).collect();
        let want: Vec<usize> = (0..n).filter(|&k| !singles[idx[k]]).collect();
        invalid_batches += usize::from(!want.is_empty());
        let b = backends[it % backends.len()];
        let alg = ALGS[it % 3];
        assert_eq!(schnorr::verify_batch_with_algorithm(b, alg, &items), want.is_empty(), "iteration {it}");
        if it % 8 == 0 {
            assert_eq!(schnorr::find_invalid_with(b, &items), want, "iteration {it}");
        }
    }
    assert!(invalid_batches > iters / 4 && invalid_batches < iters, "{invalid_batches}");
}

#[test]
fn batch_single_item_equals_single_verify() {
    let p = pool(test_seed() ^ 4, 16);
    for b in Backend::available() {
        for i in 0..16 {
            let mut s = p.sigs[i];
            for flip in [None, Some(63usize), Some(5)] {
                if let Some(f) = flip {
                    s[f] ^= 1;
                }
                let single = schnorr::verify_with(b, &p.keys[i], &p.msgs[i], &s);
                for alg in ALGS {
                    let item = [(&p.keys[i], &p.msgs[i][..], &s)];
                    assert_eq!(schnorr::verify_batch_with_algorithm(b, alg, &item), single);
                }
            }
        }
    }
}
