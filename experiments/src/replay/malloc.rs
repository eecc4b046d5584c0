// SPDX-License-Identifier: MIT OR Apache-2.0
//! `--malloc`: the settings of glibc's allocator (the system allocator on GNU/Linux), applied
//! before any other thread starts and recorded in the packet.

use clap::ValueEnum;
use serde_json::{json, Value};

/// The global allocator the `replay` binary was built with (`--features mimalloc`).
pub const ALLOCATOR: &str = if cfg!(feature = "mimalloc") { "mimalloc" } else { "system" };

/// `--malloc tuned|default`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MallocArg {
    /// Grow the heap 64 MiB at a time, serve blocks under 32 MiB from it, trim above 256 MiB.
    Tuned,
    /// glibc's own settings.
    Default,
}

/// glibc's malloc parameters set by `--malloc tuned`: grow the heap 64 MiB at a time, serve
/// blocks under 32 MiB (glibc's largest threshold) from the heap instead of their own
/// mappings, and give memory back only above 256 MiB at the top. Each `brk`, `mmap`,
/// `munmap` and arena `mprotect` takes the process's address-space lock for writing; a
/// thread whose page fault waits on that lock sleeps, and on a virtual machine a sleeping
/// thread was measured to wake up to a scheduler tick (4 ms) late.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
const MALLOC_TUNED: [(&str, libc::c_int, libc::c_int); 3] = [
    ("top_pad", libc::M_TOP_PAD, 64 << 20),
    ("mmap_threshold", libc::M_MMAP_THRESHOLD, 32 << 20),
    ("trim_threshold", libc::M_TRIM_THRESHOLD, 256 << 20),
];

/// Applies `--malloc` (call it before any other thread starts) and returns what the packet
/// records (`null` where it does not apply: mimalloc, or a C library other than glibc).
pub fn apply(arg: MallocArg) -> Value {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
    {
        let mut values = serde_json::Map::new();
        if arg == MallocArg::Tuned {
            for (name, param, value) in MALLOC_TUNED {
                // SAFETY: mallopt only sets one of glibc's malloc parameters (under its own
                // lock); it returns 1 when the value was taken.
                let taken = unsafe { libc::mallopt(param, value) } == 1;
                values.insert(name.to_string(), if taken { json!(value) } else { Value::Null });
            }
        }
        let settings = if arg == MallocArg::Tuned { "tuned" } else { "default" };
        json!({ "library": "glibc", "settings": settings, "values": values })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc"))))]
    {
        let _ = (arg, json!(null));
        Value::Null
    }
}
