// SPDX-License-Identifier: MIT OR Apache-2.0
//! The replay's resource figures measured from a baseline. A test binary of its own: CPU times and
//! the peak resident set are the whole process's, which other tests running beside it would move.

use fullverify_driver::metrics::{baseline, resources, resources_since};
use std::time::{Duration, Instant};

fn burn(ms: u64) {
    let t = Instant::now();
    let mut x = 1u64;
    while t.elapsed() < Duration::from_millis(ms) {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
}

/// Writes `mib` MiB page by page, so that every page is resident, then frees it (a block this
/// large is its own mapping, given back to the system when freed).
fn touch(mib: usize) {
    let mut v = vec![0u8; mib << 20];
    for i in (0..v.len()).step_by(4096) {
        v[i] = 1;
    }
    std::hint::black_box(&v);
}

/// What was spent before the baseline is left out: CPU burnt, and memory touched and freed,
/// before it do not appear in what is measured from it; CPU burnt and memory touched after it do.
#[test]
fn resources_since_leave_out_what_came_before() {
    burn(300);
    touch(256);
    let whole = resources(Duration::ZERO);
    let b = baseline();
    burn(100);
    let r = resources_since(&b, Duration::from_millis(100));
    assert!(r.user_s + r.sys_s >= 0.05, "{r:?}");
    assert!(r.user_s + 0.1 < whole.user_s, "the CPU before the baseline is counted: {r:?} against {whole:?}");
    if cfg!(target_os = "linux") {
        assert!(r.peak_rss_bytes + (128 << 20) < whole.peak_rss_bytes, "{r:?} against {whole:?}");
        touch(192);
        let r = resources_since(&b, Duration::from_millis(100));
        assert!(r.peak_rss_bytes > 192 << 20, "{r:?}");
    }
}
