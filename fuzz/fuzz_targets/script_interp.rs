// SPDX-License-Identifier: MIT OR Apache-2.0
//! The script interpreter (fullverify::script) on a fuzzed transaction, spent outputs and
//! flags, with the real signature checks.
//!
//! Input: flags (LE u32, unnamed bits dropped) ‖ input index (1 byte) ‖ count of spent outputs
//! (1 byte) ‖ that many `CTxOut` ‖ the spending transaction (the rest). The seeds are Core's
//! `script_assets_test` cases (taproot key and script paths, segwit v0, legacy, with valid
//! signatures), so the fuzzer starts from spends that verify.
//!
//! Properties:
//! - every backend's verifier (`BackendVerifier`) and `NativeVerifier` give the same verdict
//!   and the same error;
//! - every signature mode of the block check (`verify_scripts_with`: inline, BIP340 batches,
//!   eight-wide ECDSA/BIP340, both) on every backend reports what `verify_tx` reports with the
//!   inline verifier: the same first failing input and error, or success;
//! - soft-fork monotonicity: a spend valid under a set of flags stays valid with any one flag
//!   taken away (and the flags that need it: CLEANSTACK needs P2SH and WITNESS, WITNESS needs
//!   P2SH), as Core's script_assets_test checks for its consensus flags.
#![no_main]

use fullverify::encode::{Reader, Transaction, TxOut};
use fullverify::script::{verify_input, verify_tx, BackendVerifier, NativeVerifier, ScriptFlags};
use fullverify::sighash::TxContext;
use fullverify::validation::{verify_scripts_with, SigMode};
use fullverify::Backend;
use libfuzzer_sys::fuzz_target;

/// Flags as the interpreter requires them: CLEANSTACK only with P2SH and WITNESS, WITNESS
/// only with P2SH (Core asserts both).
fn sane(mut f: ScriptFlags) -> ScriptFlags {
    if !f.contains(ScriptFlags::P2SH) {
        f.remove(ScriptFlags::WITNESS);
    }
    if !f.contains(ScriptFlags::P2SH) || !f.contains(ScriptFlags::WITNESS) {
        f.remove(ScriptFlags::CLEANSTACK);
    }
    f
}

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let (Ok(bits), Ok(index), Ok(count)) = (r.u32(), r.u8(), r.u8()) else { return };
    let flags = sane(ScriptFlags::from_bits_truncate(bits));
    let mut spent = Vec::new();
    for _ in 0..count {
        let Ok(o) = TxOut::decode(&mut r) else { return };
        spent.push(o);
    }
    let Ok(tx) = Transaction::decode(&mut r) else { return };
    if tx.inputs.len() != spent.len() || tx.inputs.is_empty() || tx.inputs.len() > 16 {
        return;
    }
    let index = index as usize % tx.inputs.len();
    let ctx = TxContext::new(&tx, Some(&spent));

    // One input: every verifier agrees.
    let want = verify_input(&ctx, index, flags, &BackendVerifier(Backend::portable()));
    assert_eq!(verify_input(&ctx, index, flags, &NativeVerifier), want, "NativeVerifier");
    for b in Backend::available() {
        assert_eq!(verify_input(&ctx, index, flags, &BackendVerifier(b)), want, "BackendVerifier({b})");
    }

    // Monotonicity: taking a flag away never turns a valid spend invalid.
    if want.is_ok() {
        for (name, f) in flags.iter() {
            let fewer = sane(flags - f);
            let got = verify_input(&ctx, index, fewer, &BackendVerifier(Backend::portable()));
            assert!(got.is_ok(), "valid under {flags:?}, {got:?} without {name} ({fewer:?})");
        }
    }

    // The whole transaction: every signature mode on every backend reports what the inline
    // verifier reports (a coinbase is skipped by the block check: leave it out).
    if tx.is_coinbase() {
        return;
    }
    let inline = verify_tx(&ctx, flags, &BackendVerifier(Backend::portable()));
    let txs = [tx.clone()];
    let spents = [spent.clone()];
    for b in Backend::available() {
        for mode in SigMode::ALL {
            let got = verify_scripts_with(&txs, &spents, flags, 1, b, mode).map_err(|f| {
                assert_eq!(f.tx, 0);
                (f.input, f.error)
            });
            assert_eq!(got, inline, "verify_scripts_with({b}, {mode}) against verify_tx");
        }
    }
});
