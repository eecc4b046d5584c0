// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's script_tests.json, tx_valid.json and tx_invalid.json with Core's harness semantics
//! (see `common/harness.rs`), signatures checked by libsecp256k1.

use fullverify_testkit as common;

use common::harness::{self, check_vector_file};
use common::SecpVerifier;
use fullverify::script::NativeVerifier;

#[test]
fn interpreter_vs_core_script_tests() {
    check_vector_file("core/script_tests.json", 1222, |j| {
        harness::run_script_tests(j, &SecpVerifier, &common::tweak_xonly)
    });
}

#[test]
fn interpreter_vs_core_tx_valid() {
    check_vector_file("core/tx_valid.json", 121, |j| harness::run_tx_valid(j, &SecpVerifier));
}

#[test]
fn interpreter_vs_core_tx_invalid() {
    check_vector_file("core/tx_invalid.json", 93, |j| harness::run_tx_invalid(j, &SecpVerifier));
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
