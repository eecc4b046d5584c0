// SPDX-License-Identifier: MIT OR Apache-2.0
//! `ifmabench`: the eight-lane backends (AVX-512 IFMA, AVX2) against the best scalar backend,
//! arms alternated in one run:
//!
//! - field multiplication and squaring: a dependent chain on the scalar kernels (latency per
//!   operation) against a dependent chain on eight lanes (latency per step; eight elements
//!   per step, so per-element throughput is a step over eight); the per-lane inverse by the
//!   eight-lane addition chain and by one shared scalar safegcd;
//! - verifications per second on one core: scalar `verify_with` one by one against
//!   `verify_many` on the Avx2 and Ifma tokens, ECDSA and BIP340;
//! - MuHash: `Num3072` multiplication, `MuHash3072::insert` and `SetProduct::insert` (the final
//!   MuHash's path), portable against IFMA.
//!
//! ```text
//! ifmabench [--quick] [--rounds N] [--clock wall|cpu] [--out DIR]
//! ```
//! Writes `results/ifma/<run-id>.json` (or under `--out`) and ends with one line of ratios of
//! medians of the same run: `ecdsa_many_speedup_vs_asm=<x> schnorr_many_speedup_vs_asm=<y>
//! num3072_mul_speedup=<z>` for IFMA, `ecdsa_avx2_many_speedup_vs_asm=<x>
//! schnorr_avx2_many_speedup_vs_asm=<y>` for AVX2, `ecdsa_avx2_vs_ifma=<x>
//! schnorr_avx2_vs_ifma=<y>` when both run, then `backend=<b>` (ifma when the CPU has it).
//! Needs a CPU with AVX-512 IFMA or AVX2 (+BMI2+ADX); the arms of a backend the CPU lacks are
//! left out. `--clock cpu` times each sample in the thread's CPU time, for a machine shared with
//! other jobs. The binary first checks itself as `scripts/inlined-intrinsics.sh` does (no SIMD
//! intrinsic compiled out of line) and refuses to measure otherwise.

use fullverify::muhash::{MuHash3072, Num3072, SetProduct};
use fullverify::secp256k1::arith::{field_chain_with, field_chain_x8_with, FieldElement, FieldKernel};
use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_experiments::cli::BenchArgs;
use fullverify_experiments::report::{results_dir, Packet};
use fullverify_experiments::timing::{alternate_on, calibrate, keep, Arm, ArmSamples};
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

/// The out-of-line SIMD intrinsics in this very binary (`scripts/inlined-intrinsics.sh`'s
/// check: `nm -C` symbols under `core_arch::x86…::_mm`), or `None` when `nm` cannot run. Any
/// hit means some lane code was compiled outside its `#[target_feature]` function, where
/// every lane operation is a call and the timings below would be meaningless.
fn out_of_line_intrinsics() -> Option<Vec<String>> {
    let exe = std::env::current_exe().ok()?;
    let out = std::process::Command::new("nm").arg("-C").arg(&exe).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let hits = text
        .lines()
        .filter(|l| {
            // `core_arch::x86::<module>::_mm…` or `core_arch::x86_64::<module>::_mm…`.
            l.split_once("core_arch::x86").is_some_and(|(_, rest)| {
                let rest = rest.strip_prefix("_64").unwrap_or(rest);
                rest.strip_prefix("::").and_then(|r| r.split_once("::")).is_some_and(|(module, name)| {
                    !module.is_empty()
                        && module.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                        && name.starts_with("_mm")
                })
            })
        })
        .map(str::to_string)
        .collect();
    Some(hits)
}

/// Median of arm `a` over median of arm `b` (how many times faster `b` is).
fn ratio(s: &[ArmSamples], a: &str, b: &str) -> f64 {
    median_of(s, a) / median_of(s, b)
}

/// Ratios of medians as JSON (`null` for an arm that did not run).
fn json_ratio(r: Option<f64>) -> serde_json::Value {
    r.filter(|x| x.is_finite()).map_or(serde_json::Value::Null, |x| json!(x))
}

fn main() {
    let args = BenchArgs::parse("ifmabench");
    let ifma = Backend::ifma();
    let avx2 = Backend::avx2();
    // The eight-lane backends this CPU runs: AVX2 first, IFMA last.
    let lanes: Vec<Backend> = [avx2, ifma].into_iter().flatten().collect();
    if lanes.is_empty() {
        eprintln!(
            "ifmabench: this CPU or build has neither AVX-512 IFMA (avx512f avx512ifma avx512vl) nor AVX2 (avx2 bmi2 adx)"
        );
        std::process::exit(1);
    }
    let inlined = match out_of_line_intrinsics() {
        Some(hits) if !hits.is_empty() => {
            eprintln!("ifmabench: out-of-line SIMD intrinsics in this binary (the lane code left its target features):");
            for h in hits.iter().take(20) {
                eprintln!("  {h}");
            }
            std::process::exit(1);
        }
        Some(_) => Some(true),
        None => {
            eprintln!("ifmabench: nm is not available; the inlining of the SIMD intrinsics is unchecked");
            None
        }
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
    for &lb in &lanes {
        for k in [FieldKernel::Mul, FieldKernel::Sqr, FieldKernel::Inv, FieldKernel::InvVartime] {
            let r8 = field_chain_x8_with(lb, k, &a8, &b8, 3);
            for i in 0..8 {
                assert_eq!(
                    r8[i],
                    field_chain_with(Backend::portable(), k, &a8[i], &b8[i], 3),
                    "{lb} {k:?} lane {i}"
                );
            }
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
            for &lb in &lanes {
                let reps = calibrate(
                    || {
                        keep(field_chain_x8_with(lb, k, a8, b8, n));
                    },
                    sample_ns,
                );
                arms.push(Arm::new(format!("{name}_x8/{lb}/step"), reps * n as u64, move || {
                    for _ in 0..reps {
                        keep(field_chain_x8_with(lb, k, keep(a8), b8, n));
                    }
                }));
            }
        }
        alternate_on(args.clock, &mut arms, rounds)
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
    for &lb in &lanes {
        assert!(ecdsa::verify_many(lb, &eitems).iter().all(|&b| b), "{lb}");
        assert!(schnorr::verify_many(lb, &sitems).iter().all(|&b| b), "{lb}");
    }
    let verify = {
        let (eitems, sitems) = (&eitems, &sitems);
        let mut arms: Vec<Arm> = Vec::new();
        arms.push(Arm::new(format!("ecdsa_verify/{scalar}"), n_items as u64, move || {
            for &(p, m, s) in eitems {
                keep(ecdsa::verify_with(scalar, p, m, s));
            }
        }));
        for &lb in &lanes {
            arms.push(Arm::new(format!("ecdsa_verify_many/{lb}"), n_items as u64, move || {
                keep(ecdsa::verify_many(lb, keep(eitems)));
            }));
        }
        arms.push(Arm::new(format!("schnorr_verify/{scalar}"), n_items as u64, move || {
            for &(p, m, s) in sitems {
                keep(schnorr::verify_with(scalar, p, m, s));
            }
        }));
        for &lb in &lanes {
            arms.push(Arm::new(format!("schnorr_verify_many/{lb}"), n_items as u64, move || {
                keep(schnorr::verify_many(lb, keep(sitems)));
            }));
        }
        alternate_on(args.clock, &mut arms, rounds)
    };
    print_arms("verification (ns per signature, one core):", &verify, &format!("ecdsa_verify/{scalar}"));
    // How many times faster `verify_many` on `lb` is than the scalar verifier, per scheme, and
    // AVX2 against IFMA.
    let speedup = |scheme: &str, lb: Option<Backend>| {
        lb.map(|b| ratio(&verify, &format!("{scheme}_verify/{scalar}"), &format!("{scheme}_verify_many/{b}")))
    };
    let (ecdsa_speedup, schnorr_speedup) = (speedup("ecdsa", ifma), speedup("schnorr", ifma));
    let (ecdsa_avx2, schnorr_avx2) = (speedup("ecdsa", avx2), speedup("schnorr", avx2));
    let vs_ifma = |scheme: &str| {
        ifma.zip(avx2).map(|(i, a)| {
            ratio(&verify, &format!("{scheme}_verify_many/{i}"), &format!("{scheme}_verify_many/{a}"))
        })
    };
    let (ecdsa_avx2_vs_ifma, schnorr_avx2_vs_ifma) = (vs_ifma("ecdsa"), vs_ifma("schnorr"));
    let per_s = |arm: String| {
        let m = median_of(&verify, &arm);
        json_ratio(Some(1e9 / m))
    };

    // 3. MuHash (IFMA only).
    let mut muhash: Vec<ArmSamples> = Vec::new();
    let (mut num_speedup, mut insert_speedup, mut set_insert_speedup, mut n_elems) = (None, None, None, 0);
    if let Some(ifma) = ifma {
        let mut buf = [0u8; 384];
        rng.fill(&mut buf);
        let x = Num3072::from_le_bytes(&buf);
        rng.fill(&mut buf);
        let y = Num3072::from_le_bytes(&buf);
        assert_eq!(x.mul_with(ifma, &y), x.mul_with(Backend::portable(), &y));
        let elems: Vec<[u8; 36]> = (0..64).map(|_| rng.bytes()).collect();
        n_elems = elems.len();
        let mut h1 = MuHash3072::new();
        let mut h2 = MuHash3072::new();
        for e in &elems {
            h1.insert_with(Backend::portable(), e);
            h2.insert_with(ifma, e);
        }
        let mut p = SetProduct::new(ifma);
        elems.iter().for_each(|e| p.insert(e));
        assert_eq!(h1.finalize(), h2.finalize());
        assert_eq!(p.finish().finalize(), h2.finalize());
        muhash = {
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
                // The final MuHash's path: a product over many elements.
                arms.push(Arm::new(format!("set_insert/{b}"), elems.len() as u64, move || {
                    let mut p = SetProduct::new(b);
                    for e in elems {
                        p.insert(keep(e));
                    }
                    keep(p.finish());
                }));
            }
            alternate_on(args.clock, &mut arms, rounds)
        };
        print_arms("MuHash3072 (ns per operation):", &muhash, "num3072_mul/portable");
        num_speedup = Some(ratio(&muhash, "num3072_mul/portable", "num3072_mul/ifma"));
        insert_speedup = Some(ratio(&muhash, "muhash_insert/portable", "muhash_insert/ifma"));
        set_insert_speedup = Some(ratio(&muhash, "muhash_insert/portable", "set_insert/ifma"));
    }

    // The packet's backend: the best eight-lane backend that ran.
    let main_backend = *lanes.last().unwrap();
    let mut summary = json!({
        "ecdsa_many_speedup_vs_asm": json_ratio(ecdsa_speedup),
        "schnorr_many_speedup_vs_asm": json_ratio(schnorr_speedup),
        "ecdsa_avx2_many_speedup_vs_asm": json_ratio(ecdsa_avx2),
        "schnorr_avx2_many_speedup_vs_asm": json_ratio(schnorr_avx2),
        "ecdsa_avx2_vs_ifma": json_ratio(ecdsa_avx2_vs_ifma),
        "schnorr_avx2_vs_ifma": json_ratio(schnorr_avx2_vs_ifma),
        "num3072_mul_speedup": json_ratio(num_speedup),
        "muhash_insert_speedup": json_ratio(insert_speedup),
        "set_insert_speedup": json_ratio(set_insert_speedup),
        "ecdsa_verifications_per_s_scalar": per_s(format!("ecdsa_verify/{scalar}")),
        "schnorr_verifications_per_s_scalar": per_s(format!("schnorr_verify/{scalar}")),
    });
    for lb in [ifma, avx2].into_iter().flatten() {
        // The IFMA keys keep their first names (`…_per_s_many`); AVX2's name the backend.
        let tag = if Some(lb) == ifma { "many".to_string() } else { format!("many_{lb}") };
        summary[format!("ecdsa_verifications_per_s_{tag}")] = per_s(format!("ecdsa_verify_many/{lb}"));
        summary[format!("schnorr_verifications_per_s_{tag}")] = per_s(format!("schnorr_verify_many/{lb}"));
    }
    let mut packet = Packet::new(
        "ifma",
        main_backend.name(),
        1,
        json!({ "quick": args.quick, "rounds": rounds, "clock": args.clock.name(), "field_chain": chain, "verify_items": n_items,
                "scalar_backend": scalar.name(), "muhash_insert_elements": n_elems,
                "lane_backends": lanes.iter().map(|b| b.name()).collect::<Vec<_>>(),
                "intrinsics_inlined": inlined,
                "baseline": "scalar verify_with one by one on the best scalar backend; portable Num3072 product" }),
    );
    packet.set(
        "metrics",
        json!({
            "unit": "ns",
            "field": { "unit": "ns per dependent operation (x8: per step of eight elements)", "arms": field },
            "verify": { "unit": "ns per signature", "arms": verify },
            "muhash": { "unit": "ns per Num3072 product; ns per inserted element", "arms": muhash },
            "summary": summary,
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
    let mut line = Vec::new();
    for (k, v) in [
        ("ecdsa_many_speedup_vs_asm", ecdsa_speedup),
        ("schnorr_many_speedup_vs_asm", schnorr_speedup),
        ("num3072_mul_speedup", num_speedup),
        ("ecdsa_avx2_many_speedup_vs_asm", ecdsa_avx2),
        ("schnorr_avx2_many_speedup_vs_asm", schnorr_avx2),
        ("ecdsa_avx2_vs_ifma", ecdsa_avx2_vs_ifma),
        ("schnorr_avx2_vs_ifma", schnorr_avx2_vs_ifma),
    ] {
        if let Some(v) = v {
            line.push(format!("{k}={v:.3}"));
        }
    }
    println!("{} backend={main_backend}", line.join(" "));
}
