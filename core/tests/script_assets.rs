// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's `script_assets_test` over the 2,760 feature_taproot.py cases: every success passes
//! under each consensus-flag subset of its flags, every failure fails under each superset.

use fullverify_testkit as common;

use common::{harness, SecpVerifier};

#[test]
fn interpreter_vs_core_script_assets() {
    let Some(j) = common::load_json("script_assets/script_assets_test.btcd_taproot_ref.json.gz") else {
        return;
    };
    let o = harness::run_script_assets(&j, &SecpVerifier);
    assert_eq!(o.passed + o.failed, 2760);
    o.assert_all_passed("script_assets");
}

#[test]
fn interpreter_with_native_verifier_vs_core_script_assets() {
    let Some(j) = common::load_json("script_assets/script_assets_test.btcd_taproot_ref.json.gz") else {
        return;
    };
    let o = harness::run_script_assets(&j, &fullverify::script::NativeVerifier);
    assert_eq!(o.passed + o.failed, 2760);
    o.assert_all_passed("script_assets (native)");
}
