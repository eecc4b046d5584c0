// SPDX-License-Identifier: MIT OR Apache-2.0
//! `ifmabench`: the AVX-512 IFMA backend against the best scalar backend, arms alternated in
//! one run:
//!
//! - field multiplication and squaring: a dependent chain on the scalar kernels (latency per
//!   operation) against a dependent chain on eight lanes (latency per step; eight elements
//!   per step, so per-element throughput is a step over eight); the per-lane inverse by the
//!   eight-lane addition chain and by one shared scalar safegcd;
//! - verifications per second on one core: scalar `verify_with` one by one against
//!   `verify_many` on the Ifma token, ECDSA and BIP340;
//! - MuHash: `Num3072` multiplication and `MuHash3072::insert`, portable against IFMA.
//!
//! ```text
//! ifmabench [--quick] [--rounds N] [--out DIR]
//! ```
//! Writes `results/ifma/<run-id>.json` (or under `--out`) and ends with one line
//! `ecdsa_many_speedup_vs_asm=<x> schnorr_many_speedup_vs_asm=<y> num3072_mul_speedup=<z>
//! backend=ifma` (ratios of medians of the same run). Needs a CPU with AVX-512 IFMA.

use fullverify::muhash::{MuHash3072, Num3072};
use fullverify::secp256k1::arith::{field_chain_with, field_chain_x8_with, FieldElement, FieldKernel};
use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_experiments::cli::BenchArgs;
use fullverify_experiments::report::{results_dir, Packet};
use fullverify_experiments::timing::{alternate, calibrate, keep, Arm, ArmSamples};
use fullverify_testkit::SplitMix64;
use serde_json::json;

fn median_of(s: &[ArmSamples], name: &str) -> f64 {
    s.iter().find(|a| a.name == name).map_or(f64::NAN, |a| a.stats.median)
}

fn print_arms(title: &str, s: &[ArmSamples], base: &str) {
    let b = median_of(s, base);
    println!("{title}");
    for a in s {
        println!("  {:<34} {:>10.2} ns  ({:.2}x vs {base})", a.name, a.stats.median, b / a.stats.median);
    }
}

fn main() {
    let args = BenchArgs::parse("ifmabench");
    let Some(ifma) = Backend::ifma() else {
        eprintln!("ifmabench: this CPU or build has no AVX-512 IFMA (needs avx512f avx512ifma avx512vl)");
        std::process::exit(1);
    };
    let scalar = Backend::asm().unwrap_or(Backend::portable());
    // Short samples and many rounds: on a shared machine a sample that is preempted is an
    // outlier the median ignores, and short samples are preempted less often.
    let rounds = args.rounds.unwrap_or(if args.quick { 15 } else { 101 });
    let sample_ns = if args.quick { 1e6 } else { 2e6 };
    let mut rng = SplitMix64(0x1f3a_0001);
    let fe = |rng: &mut SplitMix64| FieldElement::from_bytes_reduce(&rng.bytes32());

    // 1. Field kernels.
    let a8: [FieldElement; 8] = core::array::from_fn(|_| fe(&mut rng));
    let b8: [FieldElement; 8] = core::array::from_fn(|_| fe(&mut rng));
    for k in [FieldKernel::Mul, FieldKernel::Sqr, FieldKernel::Inv, FieldKernel::InvVartime] {
        let r8 = field_chain_x8_with(ifma, k, &a8, &b8, 3);
        for i in 0..8 {
            assert_eq!(r8[i], field_chain_with(Backend::portable(), k, &a8[i], &b8[i], 3), "{k:?} lane {i}");
        }
    }
    let chain = 1000usize;
    let field = {
        let (a, b) = (a8[0], b8[0]);
        let (a8, b8) = (&a8, &b8);
        let mut arms: Vec<Arm> = Vec::new();
        for (name, k, n) in [
            ("mul", FieldKernel::Mul, chain),
            ("sqr", FieldKernel::Sqr, chain),
            ("inv", FieldKernel::Inv, 4),
            ("inv_vartime", FieldKernel::InvVartime, 4),
        ] {
            let reps = calibrate(
                || {
                    keep(field_chain_with(scalar, k, &a, &b, n));
                },
                sample_ns,
            );
            arms.push(Arm::new(format!("{name}/{scalar}/latency"), reps * n as u64, move || {
                for _ in 0..reps {
                    keep(field_chain_with(scalar, k, keep(&a), &b, n));
                }
            }));
            let reps = calibrate(
                || {
                    keep(field_chain_x8_with(ifma, k, a8, b8, n));
                },
                sample_ns,
            );
            arms.push(Arm::new(format!("{name}_x8/ifma/step"), reps * n as u64, move || {
                for _ in 0..reps {
                    keep(field_chain_x8_with(ifma, k, keep(a8), b8, n));
                }
            }));
        }
        alternate(&mut arms, rounds)
    };
    println!("field kernels (ns per dependent operation; an x8 step is eight elements):");
    for a in &field {
        let per_elem = if a.name.contains("_x8") {
            format!("  = {:.2} ns per element", a.stats.median / 8.0)
        } else {
            String::new()
        };
        println!("  {:<28} {:>9.2} ns{per_elem}", a.name, a.stats.median);
    }

    // 2. Verification.
    let n_items = 64usize;
    let sks: Vec<[u8; 32]> = (0..n_items).map(|_| rng.bytes32()).collect();
    let msgs: Vec<[u8; 32]> = (0..n_items).map(|_| rng.bytes32()).collect();
    let pks: Vec<PublicKey> = sks.iter().map(|s| PublicKey::from_secret(s).unwrap()).collect();
    let xpks: Vec<XOnlyPublicKey> = pks.iter().map(|p| p.x_only().0).collect();
    let esigs: Vec<ecdsa::Signature> = sks.iter().zip(&msgs).map(|(s, m)| ecdsa::sign(s, m)).collect();
    let ssigs: Vec<[u8; 64]> = sks.iter().zip(&msgs).map(|(s, m)| schnorr::sign(s, m, m)).collect();
    let eitems: Vec<ecdsa::VerifyItem> = (0..n_items).map(|i| (&pks[i], &msgs[i], &esigs[i])).collect();
    let sitems: Vec<schnorr::VerifyItem> =
        (0..n_items).map(|i| (&xpks[i], &msgs[i][..], &ssigs[i])).collect();
    assert!(ecdsa::verify_many(ifma, &eitems).iter().all(|&b| b));
    assert!(schnorr::verify_many(ifma, &sitems).iter().all(|&b| b));
    let verify = {
        let (eitems, sitems) = (&eitems, &sitems);
        let mut arms: Vec<Arm> = Vec::new();
        arms.push(Arm::new(format!("ecdsa_verify/{scalar}"), n_items as u64, move || {
            for &(p, m, s) in eitems {
                keep(ecdsa::verify_with(scalar, p, m, s));
            }
        }));
        arms.push(Arm::new("ecdsa_verify_many/ifma", n_items as u64, move || {
            keep(ecdsa::verify_many(ifma, keep(eitems)));
        }));
        arms.push(Arm::new(format!("schnorr_verify/{scalar}"), n_items as u64, move || {
            for &(p, m, s) in sitems {
                keep(schnorr::verify_with(scalar, p, m, s));
            }
        }));
        arms.push(Arm::new("schnorr_verify_many/ifma", n_items as u64, move || {
            keep(schnorr::verify_many(ifma, keep(sitems)));
        }));
        alternate(&mut arms, rounds)
    };
    print_arms("verification (ns per signature, one core):", &verify, &format!("ecdsa_verify/{scalar}"));
    let ecdsa_speedup =
        median_of(&verify, &format!("ecdsa_verify/{scalar}")) / median_of(&verify, "ecdsa_verify_many/ifma");
    let schnorr_speedup = median_of(&verify, &format!("schnorr_verify/{scalar}"))
        / median_of(&verify, "schnorr_verify_many/ifma");

    // 3. MuHash.
    let mut buf = [0u8; 384];
    rng.fill(&mut buf);
    let x = Num3072::from_le_bytes(&buf);
    rng.fill(&mut buf);
    let y = Num3072::from_le_bytes(&buf);
    assert_eq!(x.mul_with(ifma, &y), x.mul_with(Backend::portable(), &y));
    let elems: Vec<[u8; 36]> = (0..64).map(|_| rng.bytes()).collect();
    let mut h1 = MuHash3072::new();
    let mut h2 = MuHash3072::new();
    for e in &elems {
        h1.insert_with(Backend::portable(), e);
        h2.insert_with(ifma, e);
    }
    assert_eq!(h1.finalize(), h2.finalize());
    let muhash = {
        let (x, y, elems) = (&x, &y, &elems);
        let mut arms: Vec<Arm> = Vec::new();
        for b in [Backend::portable(), ifma] {
            let reps = calibrate(
                || {
                    keep(x.mul_with(b, y));
                },
                sample_ns,
            );
            arms.push(Arm::new(format!("num3072_mul/{b}"), reps, move || {
                let mut acc = *x;
                for _ in 0..reps {
                    acc = acc.mul_with(b, keep(y));
                }
                keep(acc);
            }));
            arms.push(Arm::new(format!("muhash_insert/{b}"), elems.len() as u64, move || {
                let mut h = MuHash3072::new();
                for e in elems {
                    h.insert_with(b, keep(e));
                }
                keep(h);
            }));
        }
        alternate(&mut arms, rounds)
    };
    print_arms("MuHash3072 (ns per operation):", &muhash, "num3072_mul/portable");
    let num_speedup = median_of(&muhash, "num3072_mul/portable") / median_of(&muhash, "num3072_mul/ifma");
    let insert_speedup =
        median_of(&muhash, "muhash_insert/portable") / median_of(&muhash, "muhash_insert/ifma");

    let mut packet = Packet::new(
        "ifma",
        ifma.name(),
        1,
        json!({ "quick": args.quick, "rounds": rounds, "field_chain": chain, "verify_items": n_items,
                "scalar_backend": scalar.name(), "muhash_insert_elements": elems.len(),
                "baseline": "scalar verify_with one by one on the best scalar backend; portable Num3072 product" }),
    );
    packet.set(
        "metrics",
        json!({
            "unit": "ns",
            "field": { "unit": "ns per dependent operation (x8: per step of eight elements)", "arms": field },
            "verify": { "unit": "ns per signature", "arms": verify },
            "muhash": { "unit": "ns per Num3072 product; ns per inserted element", "arms": muhash },
            "summary": {
                "ecdsa_many_speedup_vs_asm": ecdsa_speedup,
                "schnorr_many_speedup_vs_asm": schnorr_speedup,
                "num3072_mul_speedup": num_speedup,
                "muhash_insert_speedup": insert_speedup,
                "ecdsa_verifications_per_s_scalar": 1e9 / median_of(&verify, &format!("ecdsa_verify/{scalar}")),
                "ecdsa_verifications_per_s_many": 1e9 / median_of(&verify, "ecdsa_verify_many/ifma"),
                "schnorr_verifications_per_s_scalar": 1e9 / median_of(&verify, &format!("schnorr_verify/{scalar}")),
                "schnorr_verifications_per_s_many": 1e9 / median_of(&verify, "schnorr_verify_many/ifma"),
            }
        }),
    );
    let dir = args.out.unwrap_or_else(results_dir);
    match packet.write(&dir) {
        Ok(p) => eprintln!("wrote {}", p.display()),
        Err(e) => {
            eprintln!("ifmabench: cannot write results: {e}");
            std::process::exit(1);
        }
    }
    println!(
        "ecdsa_many_speedup_vs_asm={ecdsa_speedup:.3} schnorr_many_speedup_vs_asm={schnorr_speedup:.3} num3072_mul_speedup={num_speedup:.3} backend=ifma"
    );
}
