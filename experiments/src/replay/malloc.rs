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
    /// Grow the heap 64 MiB at a time, serve blocks under 32 MiB from it, trim above 256 MiB;
    /// and give free pages back whenever the resident set passes the memory budget.
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

/// How often the trimmer of `--malloc tuned` reads the resident set size.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
const TRIM_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How far the resident set must grow past what the last trim left before the trimmer tries
/// again: where the live memory itself is above the limit, trimming cannot help and is not
/// repeated every poll.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
const TRIM_REGROW: u64 = 16 << 20;

/// `malloc_trim` calls the trimmer has made.
static TRIMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The process's resident set in bytes (`/proc/self/statm`), `None` where it cannot be read.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
fn resident_bytes() -> Option<u64> {
    static PAGE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    // SAFETY: sysconf only reads a system constant.
    let page = (*PAGE.get_or_init(|| u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()))?;
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page)
}

/// Starts the thread that keeps glibc from holding freed memory past `limit`: every
/// [`TRIM_POLL`] it reads the resident set and, above `limit` (and [`TRIM_REGROW`] above what
/// its last trim left), calls `malloc_trim(0)`, which returns every free page of every arena to
/// the kernel. The memory a run frees in bulk (a flush's batch and memtable, the tables of a
/// landed flush) is scattered between live blocks, so the heap's top rarely falls far enough
/// for glibc to shrink it on its own: on the 4-million-coin corpus with a 256 MiB budget the
/// resident set peaked 170 MiB above the live heap.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
fn start_trimmer(limit: u64) {
    let spawned = std::thread::Builder::new().name("fv-trim".into()).spawn(move || {
        let mut floor = 0u64;
        loop {
            std::thread::sleep(TRIM_POLL);
            let Some(rss) = resident_bytes() else { return };
            if rss > limit.max(floor + TRIM_REGROW) {
                // SAFETY: malloc_trim takes each arena's lock in turn and only releases free
                // pages; it is safe to call while other threads allocate.
                unsafe { libc::malloc_trim(0) };
                TRIMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                floor = resident_bytes().unwrap_or(rss);
            }
        }
    });
    // Without the thread the run goes on as glibc alone would manage it (the packet's trim
    // count stays 0).
    drop(spawned);
}

/// The number of `malloc_trim` calls `--malloc tuned` has made so far.
pub fn trims() -> u64 {
    TRIMS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Applies `--malloc` (call it before any other thread starts) and returns what the packet
/// records (`null` where it does not apply: mimalloc, or a C library other than glibc).
/// `budget`: the run's memory budget in bytes (`--dbcache`); under `tuned` free pages are
/// given back whenever the resident set passes an eighth above it.
pub fn apply(arg: MallocArg, budget: u64) -> Value {
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
            let limit = budget + budget / 8;
            start_trimmer(limit);
            values.insert("trim_above".to_string(), json!(limit));
        }
        let settings = if arg == MallocArg::Tuned { "tuned" } else { "default" };
        json!({ "library": "glibc", "settings": settings, "values": values })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc"))))]
    {
        let _ = (arg, budget, json!(null));
        Value::Null
    }
}
