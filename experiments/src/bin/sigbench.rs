// SPDX-License-Identifier: MIT OR Apache-2.0
//! sigbench: ECDSA and BIP340 signing, single verification and batch verification by
//! fullverify (every available backend), libsecp256k1 (the `secp256k1` crate) and k256.
//!
//! Every timing section runs its arms alternately, round by round (arm order rotated, so drift
//! and frequency changes hit all arms alike); medians over rounds are reported with IQR,
//! bootstrap 95 % confidence intervals and the raw samples. Signatures come from a ChaCha20
//! RNG seeded with `--seed`.
//!
//! Modes:
//! - default (the full study): correctness gates (BIP340 vectors for every implementation,
//!   cross-library signing/verification in each direction, batch negative controls), sign and
//!   verify times (≥ 7 rounds × 2,000 operations), and the batch sweep b ∈ {1, 2, 4, …, 4096}
//!   for Strauss, Pippenger and the automatic choice: ns per signature, speed-up S(b) against
//!   single verification (ours and libsecp256k1's) with a bootstrap CI of the ratio of
//!   medians, and operation counts;
//! - `--quick`: single verification only (a smoke test), ending with
//!   `ecdsa_ratio_vs_libsecp256k1=<x> schnorr_ratio_vs_libsecp256k1=<y> backend=<name>`;
//! - `--batch-quick`: batches of 2048 and 64 against libsecp256k1's single verification,
//!   ending with `batch2048_ratio_vs_libsecp256k1_single=<x> batch64_ratio_vs_libsecp256k1_single=<y>`
//!   (our per-signature batch time ÷ libsecp256k1's single verification time, same run).
//!
//! Each mode writes `results/sigbench/<run-id>.json` (or under `--out DIR`).
//!
//! Usage: `sigbench [--quick | --batch-quick] [--seed S] [--sigs N] [--rounds R] [--out DIR]
//! [--only ARM --kind ecdsa|schnorr]` (`--only` runs one verification arm `--rounds` times over
//! the set without writing results, for profilers such as callgrind; it first prints one line
//! `cpu bmi2_adx=<0|1> sha_ni=<0|1> avx512ifma=<0|1> available=<backends>` and exits 3 when the
//! arm does not exist here, e.g. `fullverify-asm` on a CPU without ADX).

use fullverify::secp256k1::msm::{MsmAlgorithm, MsmStats};
use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_experiments::report::{results_dir, Packet};
use fullverify_experiments::timing::{
    alternate, median, quantile_sorted, Arm as TimedArm, ArmSamples, Stats,
};
use fullverify_testkit::SplitMix64;
use k256::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Instant;

/// A seeded corpus: secret keys, messages, aux randomness and both kinds of signature.
struct Set {
    sks: Vec<[u8; 32]>,
    auxs: Vec<[u8; 32]>,
    ecdsa: Vec<(PublicKey, [u8; 32], ecdsa::Signature)>,
    schnorr: Vec<(XOnlyPublicKey, [u8; 32], [u8; 64])>,
}

fn bytes32(rng: &mut ChaCha20Rng) -> [u8; 32] {
    let mut b = [0u8; 32];
    rng.fill_bytes(&mut b);
    b
}

fn make_set(n: usize, seed: u64) -> Set {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut set = Set { sks: Vec::new(), auxs: Vec::new(), ecdsa: Vec::new(), schnorr: Vec::new() };
    for _ in 0..n {
        let sk = bytes32(&mut rng);
        let msg = bytes32(&mut rng);
        let aux = bytes32(&mut rng);
        let pk = PublicKey::from_secret(&sk).expect("key");
        set.ecdsa.push((pk, msg, ecdsa::sign(&sk, &msg)));
        set.schnorr.push((pk.x_only().0, msg, schnorr::sign(&sk, &msg, &aux)));
        set.sks.push(sk);
        set.auxs.push(aux);
    }
    set
}

/// One arm: a name and a closure verifying the whole set once (returns the valid count).
type Arm<'a> = (String, Box<dyn Fn() -> usize + 'a>);

fn arms<'a>(set: &'a Set, kind: &str) -> Vec<Arm<'a>> {
    let mut out: Vec<Arm<'a>> = Vec::new();
    if kind == "ecdsa" {
        for b in Backend::available() {
            out.push((
                format!("fullverify-{}", b.name()),
                Box::new(move || {
                    set.ecdsa.iter().filter(|(pk, m, s)| ecdsa::verify_with(b, black_box(pk), m, s)).count()
                }),
            ));
        }
        let ls: Vec<_> = set
            .ecdsa
            .iter()
            .map(|(pk, m, s)| {
                (
                    secp256k1::PublicKey::from_slice(&pk.serialize_compressed()).unwrap(),
                    secp256k1::Message::from_digest(*m),
                    secp256k1::ecdsa::Signature::from_compact(&s.to_compact()).unwrap(),
                )
            })
            .collect();
        out.push((
            "libsecp256k1".into(),
            Box::new(move || {
                ls.iter().filter(|(pk, m, s)| secp256k1::ecdsa::verify(s, *m, black_box(pk)).is_ok()).count()
            }),
        ));
        let ks: Vec<_> = set
            .ecdsa
            .iter()
            .map(|(pk, m, s)| {
                (
                    k256::ecdsa::VerifyingKey::from_sec1_bytes(&pk.serialize_compressed()).unwrap(),
                    *m,
                    k256::ecdsa::Signature::from_slice(&s.to_compact()).unwrap(),
                )
            })
            .collect();
        out.push((
            "k256".into(),
            Box::new(move || {
                ks.iter().filter(|(pk, m, s)| black_box(pk).verify_prehash(m, s).is_ok()).count()
            }),
        ));
    } else {
        for b in Backend::available() {
            out.push((
                format!("fullverify-{}", b.name()),
                Box::new(move || {
                    set.schnorr
                        .iter()
                        .filter(|(pk, m, s)| schnorr::verify_with(b, black_box(pk), m, s))
                        .count()
                }),
            ));
        }
        let ls: Vec<_> = set
            .schnorr
            .iter()
            .map(|(pk, m, s)| {
                (
                    secp256k1::XOnlyPublicKey::from_byte_array(pk.serialize()).unwrap(),
                    *m,
                    secp256k1::schnorr::Signature::from_byte_array(*s),
                )
            })
            .collect();
        out.push((
            "libsecp256k1".into(),
            Box::new(move || {
                ls.iter().filter(|(pk, m, s)| secp256k1::schnorr::verify(s, m, black_box(pk)).is_ok()).count()
            }),
        ));
        let ks: Vec<_> = set
            .schnorr
            .iter()
            .map(|(pk, m, s)| {
                (
                    k256::schnorr::VerifyingKey::from_bytes(&pk.serialize()).unwrap(),
                    *m,
                    k256::schnorr::Signature::try_from(&s[..]).unwrap(),
                )
            })
            .collect();
        out.push((
            "k256".into(),
            Box::new(move || ks.iter().filter(|(pk, m, s)| black_box(pk).verify_raw(m, s).is_ok()).count()),
        ));
    }
    out
}

/// Runs the rounds for one kind; returns per-arm raw ns/verify samples.
fn run_kind(set: &Set, kind: &str, rounds: usize, nsigs: usize) -> Vec<(String, Vec<f64>)> {
    let arms = arms(set, kind);
    // Warm-up: build tables, fault in pages, check every arm accepts every signature.
    for (name, f) in &arms {
        assert_eq!(f(), nsigs, "{kind}: arm {name} rejected a valid signature");
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); arms.len()];
    for r in 0..rounds {
        for j in 0..arms.len() {
            let idx = (j + r) % arms.len();
            let t = Instant::now();
            let ok = (arms[idx].1)();
            let ns = t.elapsed().as_nanos() as f64 / nsigs as f64;
            assert_eq!(ok, nsigs);
            samples[idx].push(ns);
        }
    }
    arms.into_iter().map(|(n, _)| n).zip(samples).collect()
}

fn schnorr_items(set: &Set) -> Vec<schnorr::BatchItem<'_>> {
    set.schnorr.iter().map(|(pk, m, s)| (pk, &m[..], s)).collect()
}

/// Verifies `items` in consecutive batches of `b`; returns the number of batches that passed.
fn run_batches(backend: Backend, alg: MsmAlgorithm, items: &[schnorr::BatchItem<'_>], b: usize) -> usize {
    items.chunks(b).filter(|c| schnorr::verify_batch_with_algorithm(backend, alg, black_box(c))).count()
}

/// Bootstrap 95 % confidence interval of median(num) / median(den), resampling both sample
/// sets independently (2,000 resamples, seeded).
fn ratio_ci(num: &[f64], den: &[f64]) -> [f64; 2] {
    let mut rng = SplitMix64(0x5a7e_b007);
    let mut resample = |x: &[f64]| {
        let r: Vec<f64> = (0..x.len()).map(|_| x[(rng.next_u64() % x.len() as u64) as usize]).collect();
        median(&r)
    };
    let mut v: Vec<f64> = (0..2000).map(|_| resample(num) / resample(den)).collect();
    v.sort_by(f64::total_cmp);
    [quantile_sorted(&v, 0.025), quantile_sorted(&v, 0.975)]
}

type LibSchnorr = Vec<(secp256k1::XOnlyPublicKey, [u8; 32], secp256k1::schnorr::Signature)>;

fn lib_schnorr(set: &Set) -> LibSchnorr {
    set.schnorr
        .iter()
        .map(|(pk, m, s)| {
            (
                secp256k1::XOnlyPublicKey::from_byte_array(pk.serialize()).unwrap(),
                *m,
                secp256k1::schnorr::Signature::from_byte_array(*s),
            )
        })
        .collect()
}

/// The two single-verification reference arms over `items` (ours on `best`, libsecp256k1).
fn single_arms<'a>(
    best: Backend,
    items: &'a [schnorr::BatchItem<'a>],
    lib: &'a LibSchnorr,
) -> Vec<TimedArm<'a>> {
    let n = items.len() as u64;
    vec![
        TimedArm::new("libsecp256k1-single", n, move || {
            let ok = lib
                .iter()
                .filter(|(pk, m, s)| secp256k1::schnorr::verify(s, m, black_box(pk)).is_ok())
                .count();
            assert_eq!(ok, lib.len());
        }),
        TimedArm::new(format!("fullverify-{}-single", best.name()), n, move || {
            let ok =
                items.iter().filter(|(pk, m, s)| schnorr::verify_with(best, black_box(pk), m, s)).count();
            assert_eq!(ok, items.len());
        }),
    ]
}

fn batch_arm<'a>(
    best: Backend,
    alg: MsmAlgorithm,
    items: &'a [schnorr::BatchItem<'a>],
    b: usize,
) -> TimedArm<'a> {
    TimedArm::new(format!("batch-{}-{b}", alg.name()), items.len() as u64, move || {
        assert_eq!(run_batches(best, alg, items, b), items.len().div_ceil(b), "batch {b} rejected");
    })
}

fn arm<'a>(res: &'a [ArmSamples], name: &str) -> &'a ArmSamples {
    res.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no arm {name}"))
}

fn stats_json(st: &MsmStats, b: usize) -> Value {
    let per = |x: u64| x as f64 / b as f64;
    json!({
        "algorithm": st.algorithm.map(|a| a.name()),
        "window": st.window,
        "points": st.points,
        "doublings": st.doublings,
        "additions": st.additions,
        "mixed_additions": st.mixed_additions,
        "inversions": st.inversions,
        "per_signature": {
            "doublings": per(st.doublings),
            "additions": per(st.additions),
            "mixed_additions": per(st.mixed_additions),
        },
    })
}

/// `--batch-quick`: batches of 2048 and 64 (automatic algorithm) against single verification.
fn batch_quick(set: &Set, rounds: usize, best: Backend) -> (Value, f64, f64) {
    let items = schnorr_items(set);
    let lib = lib_schnorr(set);
    let mut arms = single_arms(best, &items, &lib);
    let big = items.len();
    arms.push(batch_arm(best, MsmAlgorithm::Auto, &items, big));
    arms.push(batch_arm(best, MsmAlgorithm::Auto, &items, 64));
    let res = alternate(&mut arms, rounds);
    let lib_med = arm(&res, "libsecp256k1-single").stats.median;
    let r_big = arm(&res, &format!("batch-auto-{big}")).stats.median / lib_med;
    let r64 = arm(&res, "batch-auto-64").stats.median / lib_med;
    for a in &res {
        eprintln!(
            "schnorr {:28} {:8.2} µs/sig  ×{:.3} libsecp256k1 single",
            a.name,
            a.stats.median / 1000.0,
            a.stats.median / lib_med
        );
    }
    let metrics = json!({
        "unit": "ns per signature (median over rounds)",
        "arms": res,
        "ratio_vs_libsecp256k1_single": { format!("batch{big}"): r_big, "batch64": r64 },
    });
    (metrics, r_big, r64)
}

/// The batch sweep: every size, every algorithm, against both single verifications.
fn batch_sweep(set: &Set, rounds: usize, best: Backend) -> Value {
    let items = schnorr_items(set);
    let lib = lib_schnorr(set);
    let sizes: Vec<usize> = (0..).map(|k| 1usize << k).take_while(|&b| b <= items.len()).collect();
    let algs = [MsmAlgorithm::Strauss, MsmAlgorithm::Pippenger, MsmAlgorithm::Auto];
    let mut arms = single_arms(best, &items, &lib);
    for &b in &sizes {
        for alg in algs {
            arms.push(batch_arm(best, alg, &items, b));
        }
    }
    let res = alternate(&mut arms, rounds);
    let lib_arm = arm(&res, "libsecp256k1-single");
    let ours_arm = arm(&res, &format!("fullverify-{}-single", best.name()));
    let mut rows = Vec::new();
    let mut crossover = None;
    for &b in &sizes {
        let mut row = serde_json::Map::new();
        row.insert("b".into(), json!(b));
        for alg in algs {
            let a = arm(&res, &format!("batch-{}-{b}", alg.name()));
            let (_, st) = schnorr::verify_batch_with_stats(best, alg, &items[..b]);
            row.insert(
                alg.name().into(),
                json!({
                    "ns_per_sig": a.stats,
                    "ratio_vs_libsecp256k1_single": a.stats.median / lib_arm.stats.median,
                    "speedup_vs_libsecp256k1_single": lib_arm.stats.median / a.stats.median,
                    "speedup_vs_libsecp256k1_single_ci95": ratio_ci(&lib_arm.ns_per_op, &a.ns_per_op),
                    "speedup_vs_fullverify_single": ours_arm.stats.median / a.stats.median,
                    "speedup_vs_fullverify_single_ci95": ratio_ci(&ours_arm.ns_per_op, &a.ns_per_op),
                    "ops": stats_json(&st, b),
                }),
            );
            eprintln!(
                "batch b={b:5} {:10} {:8.2} µs/sig  S_lib={:.3} S_ours={:.3}",
                alg.name(),
                a.stats.median / 1000.0,
                lib_arm.stats.median / a.stats.median,
                ours_arm.stats.median / a.stats.median
            );
        }
        let s = arm(&res, &format!("batch-strauss-{b}")).stats.median;
        let p = arm(&res, &format!("batch-pippenger-{b}")).stats.median;
        if p < s && crossover.is_none() {
            crossover = Some(b);
        } else if p >= s {
            crossover = None;
        }
        rows.push(Value::Object(row));
    }
    json!({
        "unit": "ns per signature (median over rounds; each arm verifies the whole set in batches of b)",
        "backend": best.name(),
        "sigs": items.len(),
        "sizes": rows,
        "pippenger_overtakes_strauss_at_b": crossover,
        "single": [lib_arm, ours_arm],
        "raw": res,
    })
}

/// The correctness gates; panics when one fails (a benchmark of wrong code is worthless).
fn gates(set: &Set, seed: u64, ncross: usize) -> Value {
    let backends = Backend::available();
    let algs = [MsmAlgorithm::Auto, MsmAlgorithm::Strauss, MsmAlgorithm::Pippenger];
    // 1. BIP340 vectors, for every implementation.
    let bip340 = match fullverify_testkit::harness::bip340_vectors() {
        None => json!({ "skipped": "BIP340 vector file not found" }),
        Some(vs) => {
            type Verdict<'a> = Box<dyn Fn(&[u8; 32], &[u8], &[u8; 64]) -> bool + 'a>;
            let mut impls: Vec<(String, Verdict)> = Vec::new();
            for &b in &backends {
                impls.push((
                    format!("fullverify-{}", b.name()),
                    Box::new(move |pk, m, s| {
                        XOnlyPublicKey::parse_with(b, pk).is_ok_and(|k| schnorr::verify_with(b, &k, m, s))
                    }),
                ));
                for alg in algs {
                    impls.push((
                        format!("fullverify-{}-batch-{}", b.name(), alg.name()),
                        Box::new(move |pk, m, s| {
                            XOnlyPublicKey::parse_with(b, pk)
                                .is_ok_and(|k| schnorr::verify_batch_with_algorithm(b, alg, &[(&k, m, s)]))
                        }),
                    ));
                }
            }
            impls.push((
                "libsecp256k1".into(),
                Box::new(|pk, m, s| {
                    secp256k1::XOnlyPublicKey::from_byte_array(*pk).is_ok_and(|k| {
                        secp256k1::schnorr::verify(&secp256k1::schnorr::Signature::from_byte_array(*s), m, &k)
                            .is_ok()
                    })
                }),
            ));
            impls.push((
                "k256".into(),
                Box::new(|pk, m, s| {
                    match (
                        k256::schnorr::VerifyingKey::from_bytes(pk),
                        k256::schnorr::Signature::try_from(&s[..]),
                    ) {
                        (Ok(k), Ok(sig)) => k.verify_raw(m, &sig).is_ok(),
                        _ => false,
                    }
                }),
            ));
            let mut out = serde_json::Map::new();
            for (name, f) in &impls {
                let pass =
                    vs.iter().filter(|v| f(&v.public_key, &v.message, &v.signature) == v.valid).count();
                assert_eq!(pass, vs.len(), "BIP340 vectors: {name} passed {pass}/{}", vs.len());
                out.insert(name.clone(), json!({ "passed": pass, "total": vs.len() }));
            }
            // All vectors with a parseable key in one batch: find_invalid names the invalid ones.
            let parsed: Vec<(XOnlyPublicKey, &Vec<u8>, &[u8; 64], bool)> = vs
                .iter()
                .filter_map(|v| {
                    XOnlyPublicKey::parse(&v.public_key).ok().map(|k| (k, &v.message, &v.signature, v.valid))
                })
                .collect();
            let items: Vec<schnorr::BatchItem> = parsed.iter().map(|(k, m, s, _)| (k, &m[..], *s)).collect();
            let want: Vec<usize> = (0..parsed.len()).filter(|&i| !parsed[i].3).collect();
            for &b in &backends {
                assert_eq!(schnorr::find_invalid_with(b, &items), want, "BIP340 vectors in one batch ({b})");
                assert!(!schnorr::verify_batch_with(b, &items));
            }
            out.insert("batch_find_invalid_exact".into(), json!(true));
            Value::Object(out)
        }
    };

    // 2. Cross-library signing and verification, in every direction.
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0xC055);
    let mut c = std::collections::BTreeMap::<&str, usize>::new();
    let mut tick = |k: &'static str, ok: bool| *c.entry(k).or_insert(0) += usize::from(ok);
    for _ in 0..ncross {
        let sk = bytes32(&mut rng);
        let msg = bytes32(&mut rng);
        let aux = bytes32(&mut rng);
        let pk = PublicKey::from_secret(&sk).unwrap();
        let lsk = secp256k1::SecretKey::from_secret_bytes(sk).unwrap();
        let lpk = secp256k1::PublicKey::from_slice(&pk.serialize_compressed()).unwrap();
        let ksk = k256::ecdsa::SigningKey::from_bytes(&sk.into()).unwrap();
        // ECDSA.
        let ours = ecdsa::sign(&sk, &msg);
        let lib = secp256k1::ecdsa::sign(secp256k1::Message::from_digest(msg), &lsk);
        let ks: k256::ecdsa::Signature = ksk.sign_prehash(&msg).unwrap();
        tick("ecdsa_sig_bytes_equal_libsecp256k1", ours.to_compact() == lib.serialize_compact());
        tick(
            "ecdsa_libsecp256k1_verifies_ours",
            secp256k1::ecdsa::verify(
                &secp256k1::ecdsa::Signature::from_compact(&ours.to_compact()).unwrap(),
                secp256k1::Message::from_digest(msg),
                &lpk,
            )
            .is_ok(),
        );
        tick(
            "ecdsa_k256_verifies_ours",
            ksk.verifying_key()
                .verify_prehash(&msg, &k256::ecdsa::Signature::from_slice(&ours.to_compact()).unwrap())
                .is_ok(),
        );
        tick(
            "ecdsa_ours_verifies_libsecp256k1",
            ecdsa::verify(&pk, &msg, &ecdsa::Signature::from_compact(&lib.serialize_compact()).unwrap()),
        );
        let kb: [u8; 64] = ks.to_bytes().into();
        tick(
            "ecdsa_ours_verifies_k256",
            ecdsa::verify(&pk, &msg, &ecdsa::Signature::from_compact(&kb).unwrap()),
        );
        // BIP340.
        let (xo, _) = pk.x_only();
        let ours = schnorr::sign(&sk, &msg, &aux);
        let kp = secp256k1::Keypair::from_secret_bytes(sk).unwrap();
        let lib = secp256k1::schnorr::sign_with_aux_rand(&msg, &kp, &aux).to_byte_array();
        let kss = k256::schnorr::SigningKey::from_bytes(&sk).unwrap();
        let kb: [u8; 64] = kss.sign_raw(&msg, &aux).unwrap().to_bytes();
        tick("schnorr_sig_bytes_equal_libsecp256k1", ours == lib);
        tick("schnorr_sig_bytes_equal_k256", ours == kb);
        let lx = secp256k1::XOnlyPublicKey::from_byte_array(xo.serialize()).unwrap();
        tick(
            "schnorr_libsecp256k1_verifies_ours",
            secp256k1::schnorr::verify(&secp256k1::schnorr::Signature::from_byte_array(ours), &msg, &lx)
                .is_ok(),
        );
        tick(
            "schnorr_k256_verifies_ours",
            kss.verifying_key()
                .verify_raw(&msg, &k256::schnorr::Signature::try_from(&ours[..]).unwrap())
                .is_ok(),
        );
        tick("schnorr_ours_verifies_libsecp256k1", schnorr::verify(&xo, &msg, &lib));
        tick("schnorr_ours_verifies_k256", schnorr::verify(&xo, &msg, &kb));
    }
    for (k, v) in &c {
        assert_eq!(*v, ncross, "cross-library check {k}: {v}/{ncross}");
    }

    // 3. Negative controls inside a batch of 64, at every position, for every MSM algorithm.
    let base = &set.schnorr[..64];
    let other = set.schnorr[64].0;
    let mut controls = serde_json::Map::new();
    for (ci, name) in ["s_plus_1", "message_bit_flipped", "r_plus_1", "wrong_key"].iter().enumerate() {
        let mut rejected = 0usize;
        let mut total = 0usize;
        for pos in 0..64 {
            let mut v: Vec<(XOnlyPublicKey, [u8; 32], [u8; 64])> = base.to_vec();
            let inc = |b: &mut [u8]| {
                for x in b.iter_mut().rev() {
                    let (y, carry) = x.overflowing_add(1);
                    *x = y;
                    if !carry {
                        break;
                    }
                }
            };
            match ci {
                0 => inc(&mut v[pos].2[32..]),
                1 => v[pos].1[pos % 32] ^= 1 << (pos % 8),
                2 => inc(&mut v[pos].2[..32]),
                _ => v[pos].0 = other,
            }
            let items: Vec<schnorr::BatchItem> = v.iter().map(|(k, m, s)| (k, &m[..], s)).collect();
            for &b in &backends {
                for alg in algs {
                    total += 1;
                    rejected += usize::from(!schnorr::verify_batch_with_algorithm(b, alg, &items));
                }
                total += 1;
                rejected += usize::from(schnorr::find_invalid_with(b, &items) == vec![pos]);
            }
        }
        assert_eq!(rejected, total, "negative control {name}");
        controls.insert(name.to_string(), json!({ "rejected": rejected, "total": total }));
    }
    json!({
        "bip340_vectors": bip340,
        "cross_library": { "per_direction": ncross, "passed": c },
        "batch_negative_controls": {
            "batch_size": 64,
            "positions": 64,
            "checked_with": "every backend × {auto, strauss, pippenger} verify_batch, plus find_invalid == [position]",
            "controls": controls,
        },
    })
}

/// Signing times: 2 kinds × 3 libraries, alternated.
fn sign_times(set: &Set, n: usize, rounds: usize) -> Vec<ArmSamples> {
    let sks = &set.sks[..n];
    let auxs = &set.auxs[..n];
    let msgs: Vec<[u8; 32]> = set.ecdsa[..n].iter().map(|e| e.1).collect();
    let msgs = &msgs;
    let lsk: Vec<secp256k1::SecretKey> =
        sks.iter().map(|k| secp256k1::SecretKey::from_secret_bytes(*k).unwrap()).collect();
    let lkp: Vec<secp256k1::Keypair> =
        sks.iter().map(|k| secp256k1::Keypair::from_secret_bytes(*k).unwrap()).collect();
    let ksk: Vec<k256::ecdsa::SigningKey> =
        sks.iter().map(|k| k256::ecdsa::SigningKey::from_bytes(&(*k).into()).unwrap()).collect();
    let kss: Vec<k256::schnorr::SigningKey> =
        sks.iter().map(|k| k256::schnorr::SigningKey::from_bytes(k).unwrap()).collect();
    let (lsk, lkp, ksk, kss) = (&lsk, &lkp, &ksk, &kss);
    let ops = n as u64;
    let mut arms = vec![
        TimedArm::new("ecdsa/fullverify", ops, move || {
            for i in 0..n {
                black_box(ecdsa::sign(&sks[i], &msgs[i]));
            }
        }),
        TimedArm::new("ecdsa/libsecp256k1", ops, move || {
            for i in 0..n {
                black_box(secp256k1::ecdsa::sign(secp256k1::Message::from_digest(msgs[i]), &lsk[i]));
            }
        }),
        TimedArm::new("ecdsa/k256", ops, move || {
            for i in 0..n {
                let s: k256::ecdsa::Signature = ksk[i].sign_prehash(&msgs[i]).unwrap();
                black_box(s);
            }
        }),
        TimedArm::new("schnorr/fullverify", ops, move || {
            for i in 0..n {
                black_box(schnorr::sign(&sks[i], &msgs[i], &auxs[i]));
            }
        }),
        TimedArm::new("schnorr/libsecp256k1", ops, move || {
            for i in 0..n {
                black_box(secp256k1::schnorr::sign_with_aux_rand(&msgs[i], &lkp[i], &auxs[i]));
            }
        }),
        TimedArm::new("schnorr/k256", ops, move || {
            for i in 0..n {
                black_box(kss[i].sign_raw(&msgs[i], &auxs[i]).unwrap());
            }
        }),
    ];
    alternate(&mut arms, rounds)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let bquick = args.iter().any(|a| a == "--batch-quick");
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let seed: u64 = opt("--seed").and_then(|s| s.parse().ok()).unwrap_or(0x5167_BE4C);
    let default_sigs = if quick {
        512
    } else if bquick {
        2048
    } else {
        4096
    };
    let nsigs: usize = opt("--sigs").and_then(|s| s.parse().ok()).unwrap_or(default_sigs);
    let default_rounds = if quick {
        21
    } else if bquick {
        15
    } else {
        9
    };
    let rounds: usize = opt("--rounds").and_then(|s| s.parse().ok()).unwrap_or(default_rounds);
    let set = make_set(nsigs, seed);
    let best = Backend::detect();
    let dir = opt("--out").map(std::path::PathBuf::from).unwrap_or_else(results_dir);
    let available: Vec<&str> = Backend::available().iter().map(|b| b.name()).collect();
    let peers = json!({ "libsecp256k1": "secp256k1 crate 0.33", "k256": "k256 0.13" });

    if let Some(only) = opt("--only") {
        let kind = opt("--kind").unwrap_or_else(|| "ecdsa".into());
        // The CPU as this process sees it (under valgrind: as valgrind's CPUID reports it).
        let cpu = fullverify::backend::Cpu::get();
        println!(
            "cpu bmi2_adx={} sha_ni={} avx512ifma={} available={}",
            u8::from(cpu.bmi2_adx),
            u8::from(cpu.sha_ni),
            u8::from(cpu.avx512ifma),
            available.join(",")
        );
        let arms = arms(&set, &kind);
        let Some((_, f)) = arms.iter().find(|(n, _)| *n == only) else {
            let names: Vec<&str> = arms.iter().map(|(n, _)| n.as_str()).collect();
            eprintln!("sigbench: no arm {only} here; arms: {}", names.join(", "));
            std::process::exit(3);
        };
        let mut total = 0;
        for _ in 0..rounds {
            total += f();
        }
        println!("{only} {kind}: {total} verified");
        return;
    }

    if bquick {
        let (metrics, r_big, r64) = batch_quick(&set, rounds, best);
        let mut packet = Packet::new(
            "sigbench",
            best.name(),
            1,
            json!({ "mode": "batch-quick", "sigs": nsigs, "rounds": rounds, "seed": seed,
                    "available_backends": available, "peers": peers }),
        );
        packet.set("metrics", json!({ "batch": metrics }));
        let path = packet.write(&dir).expect("write packet");
        eprintln!("wrote {}", path.display());
        println!("batch{nsigs}_ratio_vs_libsecp256k1_single={r_big:.3} batch64_ratio_vs_libsecp256k1_single={r64:.3}");
        return;
    }

    let mut metrics = serde_json::Map::new();
    let vset_n = if quick { nsigs } else { nsigs.min(2000) };
    let vset = Set {
        sks: set.sks[..vset_n].to_vec(),
        auxs: set.auxs[..vset_n].to_vec(),
        ecdsa: set.ecdsa[..vset_n].to_vec(),
        schnorr: set.schnorr[..vset_n].to_vec(),
    };
    if !quick {
        let t = Instant::now();
        metrics.insert("gates".into(), gates(&set, seed, 1000));
        eprintln!("gates passed ({:.1} s)", t.elapsed().as_secs_f64());
        let res = sign_times(&set, vset_n, rounds);
        for a in &res {
            eprintln!("sign {:24} median {:8.2} µs", a.name, a.stats.median / 1000.0);
        }
        metrics.insert(
            "sign".into(),
            json!({
                "unit": "ns per signature (median over rounds); fullverify signs from the secret key bytes \
                         (deriving the public key each time), the peers from precomputed key objects",
                "arms": res,
            }),
        );
    }

    let mut ratios = Vec::new();
    for kind in ["ecdsa", "schnorr"] {
        let res = run_kind(&vset, kind, rounds, vset_n);
        let med = |name: &str| res.iter().find(|(n, _)| n == name).map(|(_, s)| median(s));
        let lib = med("libsecp256k1").unwrap();
        let ours_best = Backend::available()
            .iter()
            .filter_map(|b| med(&format!("fullverify-{}", b.name())).map(|m| (m, *b)))
            .min_by(|a, b| a.0.partial_cmp(&b.0).unwrap())
            .unwrap();
        let mut arms_json = Vec::new();
        for (name, smp) in &res {
            let st = Stats::of(smp);
            eprintln!(
                "{kind:8} {name:22} median {:8.2} µs  ×{:.3} libsecp256k1",
                st.median / 1000.0,
                st.median / lib
            );
            arms_json.push(json!({
                "name": name,
                "ns_per_op": smp,
                "stats": st,
                "ratio_vs_libsecp256k1": st.median / lib,
            }));
        }
        metrics.insert(
            kind.into(),
            json!({
                "unit": "ns per verification (median over rounds of the whole set)",
                "arms": arms_json,
                "best_backend": ours_best.1.name(),
                "ratio_vs_libsecp256k1": ours_best.0 / lib,
            }),
        );
        ratios.push((ours_best.0 / lib, ours_best.1));
    }

    let mut batch_line = None;
    if !quick {
        let sweep = batch_sweep(&set, rounds, best);
        let r = |b: usize| {
            sweep["sizes"]
                .as_array()
                .and_then(|rows| rows.iter().find(|r| r["b"] == json!(b)))
                .map(|r| r["auto"]["ratio_vs_libsecp256k1_single"].as_f64().unwrap())
        };
        if let (Some(a), Some(b)) = (r(2048), r(64)) {
            batch_line = Some(format!(
                "batch2048_ratio_vs_libsecp256k1_single={a:.3} batch64_ratio_vs_libsecp256k1_single={b:.3}"
            ));
        }
        eprintln!("pippenger overtakes strauss at b = {}", sweep["pippenger_overtakes_strauss_at_b"]);
        metrics.insert("batch".into(), sweep);
    }

    let mut packet = Packet::new(
        "sigbench",
        best.name(),
        1,
        json!({ "mode": if quick { "quick" } else { "full" }, "sigs": nsigs, "verify_sigs": vset_n,
                "rounds": rounds, "quick": quick, "seed": seed,
                "available_backends": available, "peers": peers }),
    );
    packet.set("metrics", Value::Object(metrics));
    let path = packet.write(&dir).expect("write packet");
    eprintln!("wrote {}", path.display());
    let best_name = if ratios[0].1 == ratios[1].1 {
        ratios[0].1.name().to_string()
    } else {
        format!("{}/{}", ratios[0].1.name(), ratios[1].1.name())
    };
    if let Some(l) = batch_line {
        println!("{l}");
    }
    println!(
        "ecdsa_ratio_vs_libsecp256k1={:.3} schnorr_ratio_vs_libsecp256k1={:.3} backend={}",
        ratios[0].0, ratios[1].0, best_name
    );
}
