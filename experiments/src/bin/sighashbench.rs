// SPDX-License-Identifier: MIT OR Apache-2.0
//! `sighashbench`: the cost of every input's signature hash against the transaction's input
//! count, legacy (quadratic: each input hashes the whole modified transaction) against BIP143
//! and BIP341 (linear: aggregates once per transaction, then a fixed-size message per input).
//!
//! For each input count `n` (geometric, 1 … 2,000) one transaction is built
//! ([`fullverify_experiments::sighash::make_tx`]) and each arm computes all `n` signature
//! hashes of it with a fresh `TxContext`; the arms — `legacy` (Core's `SignatureHash`),
//! `legacy_txcontext` (the same hashes from the context's prefix engines), `bip143`, `bip341`
//! — alternate round by round. Samples are ns per input (the whole transaction's time over
//! `n`); the summary fits the growth exponent of the per-transaction time (≈ 2 quadratic,
//! ≈ 1 linear) on `n ≥ 50`. Before timing, every arm's hashes are checked against another
//! path through the core (legacy against the context's legacy, BIP143 against the double
//! SHA-256 of its preimage, BIP341 against the tagged hash of its message).
//!
//! ```text
//! sighashbench [--quick] [--rounds N] [--out DIR]
//! ```
//! Writes `results/sighash/<run-id>.json` (or under `--out`) and ends with one line
//! `legacy_exponent=<x> bip143_exponent=<y> bip341_exponent=<z> legacy_over_bip143_at_<n>=<r>`.

use fullverify::hash::{sha256d, tagged_hash};
use fullverify::sighash::{TxContext, SIGHASH_ALL, SIGHASH_DEFAULT};
use fullverify::Backend;
use fullverify_experiments::cli::BenchArgs;
use fullverify_experiments::report::{results_dir, Packet};
use fullverify_experiments::sighash::{
    all_sighashes, all_sighashes_into, loglog_slope, make_tx, Scheme, SighashTx,
};
use fullverify_experiments::timing::{alternate, calibrate, keep, Arm};
use serde_json::json;

const SEED: u64 = 0x5167_4a54;
/// Input counts from which the growth exponent is fitted.
const FIT_FROM: usize = 50;

/// Every arm's hashes against a second path through the core, for every input.
fn cross_check(t: &SighashTx) {
    let n = t.tx.inputs.len();
    let legacy = all_sighashes(Scheme::Legacy, t);
    assert_eq!(
        legacy,
        all_sighashes(Scheme::LegacyCtx, t),
        "legacy: TxContext against SignatureHash, {n} inputs"
    );
    let ctx = TxContext::new(&t.tx, Some(&t.spent_p2tr));
    let b143 = all_sighashes(Scheme::Bip143, t);
    let b341 = all_sighashes(Scheme::Bip341, t);
    for i in 0..n {
        let pre = ctx.bip143_preimage(i, &t.script_codes[i], t.amounts[i], SIGHASH_ALL).expect("in range");
        assert_eq!(b143[i], sha256d(&pre), "bip143 input {i} of {n}");
        let msg = ctx.bip341_sigmsg(i, SIGHASH_DEFAULT, None, None).expect("in range");
        assert_eq!(b341[i], tagged_hash(b"TapSighash", &msg), "bip341 input {i} of {n}");
    }
}

fn main() {
    let args = BenchArgs::parse("sighashbench");
    let rounds = args.rounds.unwrap_or(if args.quick { 3 } else { 15 });
    let sample_ns = if args.quick { 1e6 } else { 2e7 };
    let sizes: Vec<usize> =
        if args.quick { vec![1, 10, 100, 300] } else { vec![1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000] };
    let max_n = *sizes.last().expect("sizes");

    let mut points: Vec<serde_json::Value> = Vec::new();
    let mut fit: Vec<(Scheme, Vec<(f64, f64)>)> = Scheme::ALL.iter().map(|&s| (s, Vec::new())).collect();
    println!("ns per input (median of {rounds} rounds; all n sighashes of one transaction / n):");
    println!(
        "  {:>6} {:>9}  {:>12} {:>17} {:>12} {:>12}",
        "inputs", "tx bytes", "legacy", "legacy_txcontext", "bip143", "bip341"
    );
    for &n in &sizes {
        let t = make_tx(n, SEED ^ n as u64);
        cross_check(&t);
        let t = &t;
        let mut arms: Vec<Arm> = Vec::new();
        for scheme in Scheme::ALL {
            let mut out = vec![[0u8; 32]; n];
            let reps = calibrate(|| all_sighashes_into(scheme, keep(t), &mut out), sample_ns);
            arms.push(Arm::new(scheme.name(), reps * n as u64, move || {
                for _ in 0..reps {
                    all_sighashes_into(scheme, keep(t), &mut out);
                    keep(&out);
                }
            }));
        }
        let s = alternate(&mut arms, rounds);
        let per_input: Vec<f64> = s.iter().map(|a| a.stats.median).collect();
        println!(
            "  {n:>6} {:>9}  {:>12.0} {:>17.0} {:>12.0} {:>12.0}",
            t.tx.base_size(),
            per_input[0],
            per_input[1],
            per_input[2],
            per_input[3]
        );
        if n >= FIT_FROM {
            for (k, (_, pts)) in fit.iter_mut().enumerate() {
                pts.push((n as f64, per_input[k] * n as f64));
            }
        }
        let per_tx: serde_json::Map<String, serde_json::Value> =
            s.iter().map(|a| (a.name.clone(), json!(a.stats.median * n as f64))).collect();
        points.push(json!({
            "inputs": n,
            "tx_base_bytes": t.tx.base_size(),
            "per_tx_median_ns": per_tx,
            "arms": s,
        }));
    }

    let exponents: serde_json::Map<String, serde_json::Value> = fit
        .iter()
        .filter(|(_, pts)| pts.len() >= 2)
        .map(|(s, pts)| (s.name().to_string(), json!(loglog_slope(pts))))
        .collect();
    let at_max = points.last().expect("points");
    let per_tx = |name: &str| at_max["per_tx_median_ns"][name].as_f64().unwrap_or(f64::NAN);
    let legacy_over_bip143 = per_tx("legacy") / per_tx("bip143");
    let legacy_over_bip341 = per_tx("legacy") / per_tx("bip341");

    let mut packet = Packet::new(
        "sighash",
        Backend::detect().name(),
        1,
        json!({
            "quick": args.quick,
            "rounds": rounds,
            "sizes": sizes,
            "seed": SEED,
            "fit_from_inputs": FIT_FROM,
            "transaction": "version 2, n inputs (distinct outpoints, empty scriptSig and witness), 2 outputs (P2WPKH, P2TR)",
            "arms": {
                "legacy": "fullverify::sighash::legacy_sighash (Core's SignatureHash, SigVersion::BASE), P2PKH script code, SIGHASH_ALL",
                "legacy_txcontext": "TxContext::legacy_sighash (prefix engines from 32 inputs on), P2PKH script code, SIGHASH_ALL",
                "bip143": "TxContext::bip143_sighash, P2WPKH script code, SIGHASH_ALL",
                "bip341": "TxContext::bip341_sighash, key path, SIGHASH_DEFAULT",
            },
            "timed": "all n sighashes of one transaction with a fresh TxContext (its precomputation included)",
        }),
    );
    packet.set(
        "metrics",
        json!({
            "unit": "ns per input (all n sighashes of one transaction, divided by n)",
            "sizes": points,
            "summary": {
                "growth_exponent": exponents,
                "max_inputs": max_n,
                "legacy_over_bip143_at_max": legacy_over_bip143,
                "legacy_over_bip341_at_max": legacy_over_bip341,
            }
        }),
    );
    let dir = args.out.unwrap_or_else(results_dir);
    match packet.write(&dir) {
        Ok(p) => eprintln!("wrote {}", p.display()),
        Err(e) => {
            eprintln!("sighashbench: cannot write results: {e}");
            std::process::exit(1);
        }
    }
    let e = |name: &str| exponents.get(name).and_then(|v| v.as_f64()).unwrap_or(f64::NAN);
    println!(
        "legacy_exponent={:.3} bip143_exponent={:.3} bip341_exponent={:.3} legacy_over_bip143_at_{max_n}={legacy_over_bip143:.1}",
        e("legacy"),
        e("bip143"),
        e("bip341")
    );
}
