// SPDX-License-Identifier: MIT OR Apache-2.0
//! A hint to the CPU to bring memory in before it is read: walks over coins in an order that
//! is not their order in memory (a flush in key order, a table freed) ask for each a few coins
//! ahead.

/// Asks the CPU to bring the cache line at `p` in, without waiting for it and without reading
/// it (nothing where no such hint is available).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is SSE, part of every x86-64 CPU; a prefetch reads nothing into the
    // program and never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
