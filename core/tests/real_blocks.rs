// SPDX-License-Identifier: MIT OR Apache-2.0
//! Real blocks with their spent outputs: every input verifies under the flags of its height,
//! and mutations (one signature byte, one spent amount, one spent scriptPubKey byte) of up to
//! a few hundred inputs of each spent-output kind make the mutated input fail.
//!
//! BIP341 signatures commit to every spent amount and scriptPubKey of the transaction, so an
//! amount or scriptPubKey mutation also fails the transaction's *other* taproot inputs; legacy
//! signatures do not commit to amounts, so amount mutations are sampled on segwit inputs only.

use fullverify_testkit as common;

use common::harness::{self, BlockWithPrevouts, RealBlock, MAINNET_277647, MAINNET_866342, TESTNET3_928816};
use common::SecpVerifier;
use fullverify::encode::{display_hex, TxOut};
use fullverify::script::opcodes::{get_op, witness_program};
use fullverify::script::verify_input;
use fullverify::sighash::TxContext;

/// Which mutation to apply to one input.
#[derive(Clone, Copy, Debug)]
enum Mutation {
    SigByte,
    Amount,
    SpkByte,
}

/// Flips a byte inside the input's first signature-sized element (64..=73 bytes) of its
/// witness, or else its scriptSig; false if none.
fn flip_signature(tx: &mut fullverify::encode::Transaction, i: usize) -> bool {
    let inp = &mut tx.inputs[i];
    if let Some(item) = inp.witness.iter_mut().find(|w| (64..=73).contains(&w.len())) {
        item[10] ^= 0x01;
        return true;
    }
    let mut pc = 0;
    while pc < inp.script_sig.len() {
        let Some(op) = get_op(&inp.script_sig, &mut pc) else { return false };
        if (64..=73).contains(&op.data.len()) {
            let data_at = pc - op.data.len();
            inp.script_sig[data_at + 10] ^= 0x01;
            return true;
        }
    }
    false
}

fn is_taproot(o: &TxOut) -> bool {
    matches!(witness_program(&o.script_pubkey), Some((1, p)) if p.len() == 32)
}

fn check_block(b: &BlockWithPrevouts, expect_hash: &str, per_kind: usize) {
    assert_eq!(display_hex(&b.block.block_hash()), expect_hash);
    let t0 = std::time::Instant::now();
    let o = harness::verify_block_inputs(b, &SecpVerifier);
    let dt = t0.elapsed();
    o.assert_all_passed(&format!("block {} (flags {}, libsecp256k1)", b.height, b.flags));
    eprintln!("  {} inputs in {dt:?}", o.passed);
    let t0 = std::time::Instant::now();
    let o = harness::verify_block_inputs(b, &fullverify::script::NativeVerifier);
    let dt = t0.elapsed();
    o.assert_all_passed(&format!("block {} (flags {}, native secp256k1)", b.height, b.flags));
    eprintln!("  {} inputs in {dt:?} (native)", o.passed);

    // Mutations, stratified by the kind of output spent: up to `per_kind` inputs of each
    // kind, each mutated three ways.
    let mut by_kind: std::collections::BTreeMap<&'static str, Vec<(usize, usize, usize)>> =
        Default::default();
    let mut k = 0;
    for (t, tx) in b.block.txdata.iter().enumerate() {
        if tx.is_coinbase() {
            continue;
        }
        for i in 0..tx.inputs.len() {
            by_kind.entry(kind_of(&b.spent[k + i], &tx.inputs[i].witness)).or_default().push((t, i, k));
        }
        k += tx.inputs.len();
    }
    let mut rng = fullverify_testkit::SplitMix64(fullverify_testkit::test_seed());
    let mut done: std::collections::BTreeMap<String, usize> = Default::default();
    for (kind, inputs) in &by_kind {
        for n in 0..per_kind.min(inputs.len()) {
            // A deterministic spread: a random pick for each slot.
            let (t, i, base) = inputs
                [if inputs.len() <= per_kind { n } else { (rng.next_u64() % inputs.len() as u64) as usize }];
            for m in [Mutation::SigByte, Mutation::Amount, Mutation::SpkByte] {
                let mut tx = b.block.txdata[t].clone();
                let mut spent: Vec<TxOut> = b.spent[base..base + tx.inputs.len()].to_vec();
                match m {
                    Mutation::SigByte => {
                        if !flip_signature(&mut tx, i) {
                            continue;
                        }
                    }
                    Mutation::Amount => {
                        // Only segwit signatures commit to the amount: skip legacy inputs and
                        // witness scripts without a signature (hash locks and the like).
                        let has_sig = flip_signature(&mut tx.clone(), i);
                        if tx.inputs[i].witness.is_empty() || !has_sig {
                            continue;
                        }
                        spent[i].value ^= 1;
                    }
                    Mutation::SpkByte => {
                        let n = spent[i].script_pubkey.len();
                        if n == 0 {
                            continue;
                        }
                        spent[i].script_pubkey[n / 2] ^= 0x01;
                    }
                }
                *done.entry(format!("{kind}/{m:?}")).or_default() += 1;
                let ctx = TxContext::new(&tx, Some(&spent));
                let witness_script = || {
                    fullverify::script::asm::to_asm(
                        tx.inputs[i].witness.last().map(|w| &w[..]).unwrap_or(&[]),
                    )
                };
                let err = match verify_input(&ctx, i, b.flags, &SecpVerifier) {
                    Ok(()) => panic!(
                        "{m:?} on {kind} tx {t} input {i} still verifies; witness script {}",
                        witness_script()
                    ),
                    Err(e) => e.name(),
                };
                let allowed = expected_errors(kind, m);
                assert!(
                    allowed.is_empty() || allowed.contains(&err),
                    "{m:?} on {kind} tx {t} input {i} failed with {err}, expected one of {allowed:?}; witness script {}",
                    witness_script()
                );
                // Other inputs still pass (up to 16 of them), except taproot inputs when an
                // amount or scriptPubKey (which BIP341 commits to for all inputs) changed.
                for j in (0..tx.inputs.len()).filter(|&j| j != i).take(16) {
                    if matches!(m, Mutation::Amount | Mutation::SpkByte) && is_taproot(&spent[j]) {
                        continue;
                    }
                    assert!(
                        verify_input(&ctx, j, b.flags, &SecpVerifier).is_ok(),
                        "{m:?} on tx {t} input {i} broke input {j}"
                    );
                }
            }
        }
    }
    eprintln!("  mutations per kind: {done:?}");
    assert!(done.keys().any(|k| k.ends_with("SigByte")) && done.keys().any(|k| k.ends_with("SpkByte")));
}

/// Core's script error for a mutation of an input spending `kind`, as Core's interpreter reports
/// it under consensus flags (no NULLFAIL): a wrong ECDSA signature leaves false on the stack
/// (`EVAL_FALSE`, or the `…VERIFY` error where the script verifies it), a wrong BIP340 signature
/// is an error of its own (`SCHNORR_SIG`), and a changed scriptPubKey breaks the hash it commits
/// to. An empty slice accepts any error: P2WSH scripts branch on a signature's result (a failed
/// check can take a timelock branch), and uncommon scripts fail in their own ways.
fn expected_errors(kind: &str, m: Mutation) -> &'static [&'static str] {
    const ECDSA_FALSE: &[&str] = &["EVAL_FALSE", "CHECKSIGVERIFY", "CHECKMULTISIGVERIFY"];
    match (kind, m) {
        ("p2tr-key" | "p2tr-script", Mutation::SigByte | Mutation::Amount) => &["SCHNORR_SIG"],
        ("p2tr-key", Mutation::SpkByte) => &["SCHNORR_SIG"],
        ("p2tr-script" | "p2wsh", Mutation::SpkByte) => &["WITNESS_PROGRAM_MISMATCH"],
        // P2WPKH runs the implied `DUP HASH160 <program> EQUALVERIFY CHECKSIG`.
        ("p2pkh" | "p2wpkh", Mutation::SpkByte) => &["EQUALVERIFY"],
        ("p2sh", Mutation::SpkByte) => &["EVAL_FALSE"],
        ("p2pkh" | "p2sh" | "p2wpkh", Mutation::SigByte | Mutation::Amount) => ECDSA_FALSE,
        _ => &[],
    }
}

/// The kind of output an input spends (taproot split into key and script path).
fn kind_of(o: &TxOut, witness: &[Vec<u8>]) -> &'static str {
    let spk = &o.script_pubkey;
    if spk.len() == 25 && spk[0] == 0x76 && spk[1] == 0xa9 {
        return "p2pkh";
    }
    if fullverify::script::opcodes::is_p2sh(spk) {
        return "p2sh";
    }
    match witness_program(spk) {
        Some((0, p)) if p.len() == 20 => "p2wpkh",
        Some((0, p)) if p.len() == 32 => "p2wsh",
        Some((1, p)) if p.len() == 32 => {
            let annex = witness.len() >= 2 && witness.last().and_then(|w| w.first()) == Some(&0x50);
            if witness.len() - annex as usize == 1 {
                "p2tr-key"
            } else {
                "p2tr-script"
            }
        }
        _ => "other",
    }
}

/// Loads `real`, checks its height and input count, then [`check_block`].
fn check_real_block(real: RealBlock, height: u32, inputs: usize, expect_hash: &str, per_kind: usize) {
    let Some(b) = real.load() else { return };
    assert_eq!(b.height, height);
    assert_eq!(b.spent.len(), inputs);
    check_block(&b, expect_hash, per_kind);
}

#[test]
fn mainnet_866342_all_inputs() {
    check_real_block(
        MAINNET_866342,
        866_342,
        7972,
        "000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1",
        100,
    );
}

#[test]
fn mainnet_277647_all_inputs() {
    check_real_block(
        MAINNET_277647,
        277_647,
        732,
        "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8",
        300,
    );
}

#[test]
fn testnet3_928816_all_inputs() {
    check_real_block(
        TESTNET3_928816,
        928_816,
        8692,
        "00000000000001c4b87edf974ddc601d88dda332265b9849a944a5ff0141a378",
        300,
    );
}

/// `verify_input` from several threads sharing one read-only `TxContext` per transaction
/// (lazily computed aggregates included) gives the same verdicts as one thread.
#[test]
fn mainnet_866342_shared_contexts_across_threads() {
    let Some(b) = MAINNET_866342.load() else { return };
    let mut ctxs = Vec::new();
    let mut k = 0;
    for tx in b.block.txdata.iter().filter(|t| !t.is_coinbase()) {
        ctxs.push(TxContext::new(tx, Some(&b.spent[k..k + tx.inputs.len()])));
        k += tx.inputs.len();
    }
    let work: Vec<(usize, usize)> =
        ctxs.iter().enumerate().flat_map(|(t, c)| (0..c.tx.inputs.len()).map(move |i| (t, i))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let ok = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(t, i)) = work.get(n) else { break };
                if verify_input(&ctxs[t], i, b.flags, &SecpVerifier).is_ok() {
                    ok.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(ok.into_inner(), 7972);
}
