// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's script_tests.json, tx_valid.json and tx_invalid.json with Core's harness semantics
//! (see `common/harness.rs`), signatures checked by libsecp256k1.

use fullverify_testkit as common;

use common::{harness, SecpVerifier};
use fullverify::script::NativeVerifier;

#[test]
fn interpreter_vs_core_script_tests() {
    let Some(j) = common::load_json("core/script_tests.json") else { return };
    let o = harness::run_script_tests(&j, &SecpVerifier, &common::tweak_xonly);
    assert_eq!(o.passed + o.failed, 1222);
    o.assert_all_passed("core/script_tests.json");
}

#[test]
fn interpreter_vs_core_tx_valid() {
    let Some(j) = common::load_json("core/tx_valid.json") else { return };
    let o = harness::run_tx_valid(&j, &SecpVerifier);
    assert_eq!(o.passed + o.failed, 121);
    o.assert_all_passed("core/tx_valid.json");
}

#[test]
fn interpreter_vs_core_tx_invalid() {
    let Some(j) = common::load_json("core/tx_invalid.json") else { return };
    let o = harness::run_tx_invalid(&j, &SecpVerifier);
    assert_eq!(o.passed + o.failed, 93);
    o.assert_all_passed("core/tx_invalid.json");
}

#[test]
fn interpreter_with_native_verifier_vs_core_vectors() {
    let (Some(s), Some(v), Some(i)) = (
        common::load_json("core/script_tests.json"),
        common::load_json("core/tx_valid.json"),
        common::load_json("core/tx_invalid.json"),
    ) else {
        return;
    };
    harness::run_script_tests(&s, &NativeVerifier, &common::tweak_xonly_native)
        .assert_all_passed("script_tests (native)");
    harness::run_tx_valid(&v, &NativeVerifier).assert_all_passed("tx_valid (native)");
    harness::run_tx_invalid(&i, &NativeVerifier).assert_all_passed("tx_invalid (native)");
}
