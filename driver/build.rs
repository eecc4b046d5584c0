// SPDX-License-Identifier: MIT OR Apache-2.0
//! Records the compiler version and flags, target and profile for result packets
//! (`report::Packet`, `replay::RUSTFLAGS`).
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FULLVERIFY_RUSTC_VERSION={version}");
    println!("cargo:rustc-env=FULLVERIFY_TARGET={}", std::env::var("TARGET").unwrap_or_default());
    println!("cargo:rustc-env=FULLVERIFY_PROFILE={}", std::env::var("PROFILE").unwrap_or_default());
    // The flags rustc was given (`RUSTFLAGS` and friends, as cargo passes them on).
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default().replace('\x1f', " ");
    println!("cargo:rustc-env=FULLVERIFY_RUSTFLAGS={rustflags}");
    println!("cargo:rerun-if-changed=build.rs");
}
