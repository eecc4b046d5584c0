// SPDX-License-Identifier: MIT OR Apache-2.0
//! The conformance runner end to end: every shared vector file passes; a directory with a
//! tampered expectation, an unparseable file and a block without spent outputs fails.

use std::process::Command;

fn vectors() -> Option<std::path::PathBuf> {
    fullverify_testkit::vectors_dir()
}

#[test]
fn conformance_runner_passes_shared_vectors() {
    let Some(dir) = vectors() else { return };
    let out =
        Command::new(env!("CARGO_BIN_EXE_conformance")).arg("--vectors").arg(&dir).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "runner failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("core/script_tests.json: 1222 passed, 0 failed"), "{stdout}");
    assert!(
        stdout.contains("script_assets/script_assets_test.btcd_taproot_ref.json.gz: 2760 passed, 0 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("blocks_with_prevouts/mainnet_866342.block.zst: 7972 passed, 0 failed"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
}

#[test]
fn conformance_runner_fails_on_bad_files() {
    let Some(dir) = vectors() else { return };
    let tmp = std::env::temp_dir().join(format!("fv-conformance-{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("core")).unwrap();
    std::fs::create_dir_all(tmp.join("blocks_with_prevouts")).unwrap();
    // One expectation flipped: OK becomes EVAL_FALSE.
    let text = std::fs::read_to_string(dir.join("core/script_tests.json")).unwrap();
    let tampered = text.replacen("\"P2SH,STRICTENC\", \"OK\"", "\"P2SH,STRICTENC\", \"EVAL_FALSE\"", 1);
    assert_ne!(text, tampered);
    std::fs::write(tmp.join("core/script_tests_tampered.json"), tampered).unwrap();
    std::fs::write(tmp.join("core/tx_valid_broken.json"), "not json").unwrap();
    std::fs::copy(
        dir.join("core/block413567.raw"),
        tmp.join("blocks_with_prevouts/mainnet_413567.block.raw"),
    )
    .unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_conformance")).arg("--vectors").arg(&tmp).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    std::fs::remove_dir_all(&tmp).ok();
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("core/script_tests_tampered.json: 1221 passed, 1 failed"), "{stdout}");
    assert!(stdout.contains("core/tx_valid_broken.json: unparseable"), "{stdout}");
    assert!(stdout.contains("blocks_with_prevouts/mainnet_413567.block.raw: unparseable"), "{stdout}");
    assert!(stdout.lines().last().unwrap().ends_with("1221 passed, 3 failed"), "{stdout}");
}
