// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's `script_assets_test` over the 2,760 feature_taproot.py cases: every success passes
//! under each consensus-flag subset of its flags, every failure fails under each superset.

use fullverify_testkit as common;

use common::harness::{self, check_vector_file};
use common::SecpVerifier;

const ASSETS: &str = "script_assets/script_assets_test.btcd_taproot_ref.json.gz";

#[test]
fn interpreter_vs_core_script_assets() {
    check_vector_file(ASSETS, 2760, |j| harness::run_script_assets(j, &SecpVerifier));
}

#[test]
fn interpreter_with_native_verifier_vs_core_script_assets() {
    check_vector_file(ASSETS, 2760, |j| harness::run_script_assets(j, &fullverify::script::NativeVerifier));
}
