// SPDX-License-Identifier: MIT OR Apache-2.0
//! The measurement the signature benches share: one verification per iteration, cycling
//! through a set of cases.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};

/// Measures `verify` on one case per iteration, cycling through `cases`, as `<group>/<arm>/1`;
/// every case must verify.
pub fn verify_each<T>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    arm: &str,
    cases: &[T],
    verify: impl Fn(&T) -> bool,
) {
    let mut i = 0;
    g.bench_function(BenchmarkId::new(arm, 1), |bn| {
        bn.iter(|| {
            let c = &cases[i % cases.len()];
            i += 1;
            assert!(verify(c));
        })
    });
}
