// SPDX-License-Identifier: MIT OR Apache-2.0
//! sigbench: ECDSA and BIP340 verification of the same signatures by fullverify (every
//! available backend), libsecp256k1 (the `secp256k1` crate) and k256.
//!
//! Each round times every arm over the whole signature set (arm order rotated per round, so
//! drift and frequency changes hit all arms alike); per-arm medians over rounds are reported
//! with the raw samples. Writes `results/sigbench/<run-id>.json` and ends with one line
//! `ecdsa_ratio_vs_libsecp256k1=<x> schnorr_ratio_vs_libsecp256k1=<y> backend=<name>`
//! (best fullverify backend median ÷ libsecp256k1 median).
//!
//! Usage: `sigbench [--quick] [--sigs N] [--rounds R] [--only ARM --kind ecdsa|schnorr]`
//! (`--only` runs one arm in a loop without writing results, for profilers such as callgrind).

use fullverify::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use fullverify::Backend;
use fullverify_experiments::report::{results_dir, Packet};
use fullverify_experiments::timing::{median, Stats};
use fullverify_testkit::SplitMix64;
use k256::ecdsa::signature::hazmat::PrehashVerifier;
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

struct Set {
    ecdsa: Vec<(PublicKey, [u8; 32], ecdsa::Signature)>,
    schnorr: Vec<(XOnlyPublicKey, [u8; 32], [u8; 64])>,
}

fn make_set(n: usize) -> Set {
    let mut rng = SplitMix64(0x51_6BE4C);
    let mut e = Vec::with_capacity(n);
    let mut s = Vec::with_capacity(n);
    for _ in 0..n {
        let sk = rng.bytes32();
        let msg = rng.bytes32();
        let aux = rng.bytes32();
        let pk = PublicKey::from_secret(&sk).expect("key");
        e.push((pk, msg, ecdsa::sign(&sk, &msg)));
        s.push((pk.x_only().0, msg, schnorr::sign(&sk, &msg, &aux)));
    }
    Set { ecdsa: e, schnorr: s }
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let nsigs: usize = opt("--sigs").and_then(|s| s.parse().ok()).unwrap_or(if quick { 512 } else { 1024 });
    let rounds: usize = opt("--rounds").and_then(|s| s.parse().ok()).unwrap_or(if quick { 21 } else { 41 });
    let set = make_set(nsigs);

    if let Some(only) = opt("--only") {
        let kind = opt("--kind").unwrap_or_else(|| "ecdsa".into());
        let arms = arms(&set, &kind);
        let (_, f) = arms.iter().find(|(n, _)| *n == only).unwrap_or_else(|| panic!("no arm {only}"));
        let mut total = 0;
        for _ in 0..rounds {
            total += f();
        }
        println!("{only} {kind}: {total} verified");
        return;
    }

    let mut metrics = serde_json::Map::new();
    let mut ratios = Vec::new();
    let best = Backend::detect();
    for kind in ["ecdsa", "schnorr"] {
        let res = run_kind(&set, kind, rounds, nsigs);
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

    let mut packet = Packet::new(
        "sigbench",
        best.name(),
        1,
        json!({ "sigs": nsigs, "rounds": rounds, "quick": quick,
                "available_backends": Backend::available().iter().map(|b| b.name()).collect::<Vec<_>>(),
                "peers": { "libsecp256k1": "secp256k1 crate 0.33", "k256": "k256 0.13" } }),
    );
    packet.set("metrics", serde_json::Value::Object(metrics));
    let dir = opt("--out").map(std::path::PathBuf::from).unwrap_or_else(results_dir);
    let path = packet.write(&dir).expect("write packet");
    eprintln!("wrote {}", path.display());
    let best_name = if ratios[0].1 == ratios[1].1 {
        ratios[0].1.name().to_string()
    } else {
        format!("{}/{}", ratios[0].1.name(), ratios[1].1.name())
    };
    println!(
        "ecdsa_ratio_vs_libsecp256k1={:.3} schnorr_ratio_vs_libsecp256k1={:.3} backend={}",
        ratios[0].0, ratios[1].0, best_name
    );
}
