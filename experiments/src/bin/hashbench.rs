// SPDX-License-Identifier: MIT OR Apache-2.0
//! `hashbench`: sha256d64 kernels and merkle roots, every available backend against a
//! straightforward `sha2` double hash per 64-byte node, arms alternated in one run.
//!
//! ```text
//! hashbench [--quick] [--rounds N] [--clock wall|cpu] [--out DIR]
//! ```
//! Writes `results/hash/<run-id>.json` (or under `--out`) and ends with one line
//! `merkle9001_speedup_vs_sha2=<x> sha256d64_speedup_vs_sha2=<y> backend=<name>`.

use fullverify::hash::{merkle_root_with, sha256d64_many};
use fullverify::Backend;
use fullverify_experiments::cli::BenchArgs;
use fullverify_experiments::report::{results_dir, Packet};
use fullverify_experiments::timing::{alternate_on, calibrate, keep, Arm, ArmSamples};
use fullverify_testkit::SplitMix64;
use serde_json::json;
use sha2::{Digest, Sha256};

/// The baseline: one `sha2` double hash per 64-byte node.
fn sha2_double(m: &[u8; 64]) -> [u8; 32] {
    Sha256::digest(Sha256::digest(m)).into()
}

/// The baseline merkle root: the same level loop, one `sha2` double hash per node.
fn merkle_sha2(leaves: &[[u8; 32]]) -> [u8; 32] {
    if leaves.is_empty() {
        return [0; 32];
    }
    let mut level = leaves.to_vec();
    while level.len() > 1 {
        if level.len() % 2 == 1 {
            level.push(level[level.len() - 1]);
        }
        level = level
            .chunks_exact(2)
            .map(|p| {
                let mut m = [0u8; 64];
                m[..32].copy_from_slice(&p[0]);
                m[32..].copy_from_slice(&p[1]);
                sha2_double(&m)
            })
            .collect();
    }
    level[0]
}

fn arm_json(s: &[ArmSamples]) -> serde_json::Value {
    json!(s)
}

fn median_of(s: &[ArmSamples], name: &str) -> f64 {
    s.iter().find(|a| a.name == name).map_or(f64::NAN, |a| a.stats.median)
}

fn main() {
    let args = BenchArgs::parse("hashbench");
    let rounds = args.rounds.unwrap_or(if args.quick { 9 } else { 41 });
    let sample_ns = if args.quick { 2e6 } else { 2e7 };
    let backends = Backend::available();
    let best = Backend::detect();
    let mut rng = SplitMix64(0x4a5b_0001);

    // 1. sha256d64 on a batch of independent nodes.
    let batch = 1024;
    let nodes: Vec<[u8; 64]> = (0..batch).map(|_| rng.bytes()).collect();
    let mut out = vec![[0u8; 32]; batch];
    for b in &backends {
        sha256d64_many(*b, &nodes, &mut out);
        assert!(out.iter().zip(&nodes).all(|(o, n)| *o == sha2_double(n)), "{b} disagrees with sha2");
    }
    let nodes = &nodes[..];
    let d64 = {
        let mut arms: Vec<Arm> = Vec::new();
        let reps = calibrate(
            || {
                nodes.iter().for_each(|n| {
                    keep(sha2_double(keep(n)));
                })
            },
            sample_ns,
        );
        arms.push(Arm::new("sha2_per_node", reps * batch as u64, move || {
            for _ in 0..reps {
                for n in nodes {
                    keep(sha2_double(keep(n)));
                }
            }
        }));
        for b in &backends {
            let b = *b;
            let mut o = vec![[0u8; 32]; batch];
            let reps = calibrate(|| sha256d64_many(b, keep(nodes), &mut o), sample_ns);
            arms.push(Arm::new(format!("sha256d64/{b}"), reps * batch as u64, move || {
                for _ in 0..reps {
                    sha256d64_many(b, keep(nodes), &mut o);
                    keep(&o);
                }
            }));
        }
        alternate_on(args.clock, &mut arms, rounds)
    };
    let base = median_of(&d64, "sha2_per_node");
    println!("sha256d64 (ns per 64-byte node, median of {rounds}):");
    for a in &d64 {
        println!("  {:<22} {:>8.2} ns  ({:.2}x vs sha2)", a.name, a.stats.median, base / a.stats.median);
    }

    // 2. Merkle roots from 1 to 10,000 leaves.
    let mut sizes: Vec<usize> =
        vec![1, 2, 3, 4, 7, 16, 31, 64, 100, 256, 500, 1000, 2048, 4096, 9001, 10_000];
    if args.quick {
        sizes.retain(|&n| [1, 16, 256, 1000, 9001].contains(&n));
    }
    let all_leaves: Vec<[u8; 32]> = (0..10_000).map(|_| rng.bytes32()).collect();
    let mut merkle = Vec::new();
    println!("merkle root (ns per root, median):");
    for &n in &sizes {
        let leaves = &all_leaves[..n];
        let want = merkle_sha2(leaves);
        let mut arms: Vec<Arm> = Vec::new();
        let reps = calibrate(
            || {
                keep(merkle_sha2(keep(leaves)));
            },
            sample_ns,
        );
        arms.push(Arm::new("sha2_per_node", reps, move || {
            for _ in 0..reps {
                keep(merkle_sha2(keep(leaves)));
            }
        }));
        for b in &backends {
            let b = *b;
            assert_eq!(merkle_root_with(b, leaves).root, want, "{b} merkle root, {n} leaves");
            let reps = calibrate(
                || {
                    keep(merkle_root_with(b, keep(leaves)));
                },
                sample_ns,
            );
            arms.push(Arm::new(format!("merkle/{b}"), reps, move || {
                for _ in 0..reps {
                    keep(merkle_root_with(b, keep(leaves)));
                }
            }));
        }
        let s = alternate_on(args.clock, &mut arms, rounds);
        let base = median_of(&s, "sha2_per_node");
        let line: Vec<String> = s
            .iter()
            .map(|a| format!("{} {:.0} ns ({:.2}x)", a.name, a.stats.median, base / a.stats.median))
            .collect();
        println!("  {n:>6} leaves: {}", line.join(", "));
        merkle.push(json!({ "leaves": n, "arms": arm_json(&s) }));
    }

    let m9001 = merkle.iter().find(|m| m["leaves"] == 9001).expect("9001 measured");
    let med = |v: &serde_json::Value, name: &str| {
        v["arms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == name)
            .map_or(f64::NAN, |a| a["stats"]["median"].as_f64().unwrap_or(f64::NAN))
    };
    let merkle_speedup = med(m9001, "sha2_per_node") / med(m9001, &format!("merkle/{best}"));
    let d64_speedup = base / median_of(&d64, &format!("sha256d64/{best}"));

    let mut packet = Packet::new(
        "hash",
        best.name(),
        1,
        json!({ "quick": args.quick, "rounds": rounds, "clock": args.clock.name(), "sha256d64_batch": batch, "merkle_sizes": sizes,
                "backends": backends.iter().map(|b| b.name()).collect::<Vec<_>>(),
                "baseline": "sha2 crate: Sha256::digest(Sha256::digest(node)) per 64-byte node" }),
    );
    packet.set(
        "metrics",
        json!({
            "unit": "ns",
            "sha256d64": { "unit": "ns per 64-byte node", "arms": arm_json(&d64) },
            "merkle": { "unit": "ns per root", "sizes": merkle },
            "summary": {
                "sha256d64_speedup_vs_sha2": d64_speedup,
                "merkle9001_speedup_vs_sha2": merkle_speedup,
                "best_backend": best.name(),
            }
        }),
    );
    let dir = args.out.unwrap_or_else(results_dir);
    match packet.write(&dir) {
        Ok(p) => eprintln!("wrote {}", p.display()),
        Err(e) => {
            eprintln!("hashbench: cannot write results: {e}");
            std::process::exit(1);
        }
    }
    println!(
        "merkle9001_speedup_vs_sha2={merkle_speedup:.3} sha256d64_speedup_vs_sha2={d64_speedup:.3} backend={best}"
    );
}
