// SPDX-License-Identifier: MIT OR Apache-2.0
//! Result packets: `results/<experiment>/<run-id>.json`.
//!
//! Every packet records what ran (git revision and whether the tree was dirty, compiler,
//! profile, target), where it ran (CPU model and flags, core count, memory, host name), how
//! (backend, threads, parameters) and what came out (metrics with raw samples). The schema is
//! `results/schema/packet.schema.json`; notebooks read nothing else.

use serde::Serialize;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// Version of the packet layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// The machine a packet was produced on.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// CPU model name.
    pub model: String,
    /// The CPU flags relevant to the backends (subset of `/proc/cpuinfo` flags).
    pub flags: Vec<String>,
    /// Logical CPUs.
    pub logical_cpus: usize,
    /// Total memory in bytes (0 if unknown).
    pub mem_total_bytes: u64,
    /// Host name.
    pub hostname: String,
    /// Operating system.
    pub os: String,
    /// One-way latency in nanoseconds of a cache line handed between threads on the first two
    /// CPUs the process may use, measured when the packet is written ([`core_to_core_ns`]);
    /// absent with one CPU, off Linux, or when the probe could not finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core_to_core_ns: Option<f64>,
}

/// CPU flags that matter to some backend or kernel.
const RELEVANT_FLAGS: &[&str] = &[
    "bmi2",
    "adx",
    "sha_ni",
    "avx2",
    "avx512f",
    "avx512ifma",
    "avx512vl",
    "avx512bw",
    "sse4_1",
    "ssse3",
    "aes",
    "pclmulqdq",
];

impl Machine {
    /// Reads the current machine's description.
    pub fn current() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            cpuinfo
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        };
        let model = field("model name").unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let all: Vec<String> =
            field("flags").unwrap_or_default().split_whitespace().map(str::to_string).collect();
        let flags =
            RELEVANT_FLAGS.iter().filter(|f| all.iter().any(|a| a == *f)).map(|f| f.to_string()).collect();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let mem_total_bytes = meminfo
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024);
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        Machine {
            model,
            flags,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            mem_total_bytes,
            hostname,
            os: std::env::consts::OS.to_string(),
            core_to_core_ns: core_to_core_ns(),
        }
    }
}

/// One-way latency in nanoseconds of a cache line handed back and forth between two threads
/// pinned to the first two CPUs the process may run on (a counter each thread advances when it
/// sees the other's value, `PROBE_HANDOFFS` times in all). On a virtual machine the host may
/// place the two vCPUs on cores that share a cache or on different dies, and the work two
/// validating threads share (blocks decoded on one and checked on the other, recorded
/// signature checks, the crew's counters) costs accordingly, so a packet of a two-thread run
/// carries the latency it ran beside. `None` with fewer than two CPUs, off Linux, or when the
/// handoffs take longer than `PROBE_LIMIT` (a CPU busy with other work).
pub fn core_to_core_ns() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let cpus = allowed_cpus();
        if cpus.len() < 2 {
            return None;
        }
        ping_pong(cpus[0], cpus[1])
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Handoffs [`core_to_core_ns`] times (each thread waits for half of them).
const PROBE_HANDOFFS: u64 = 40_000;
/// How long [`core_to_core_ns`] may take before it gives up.
const PROBE_LIMIT: std::time::Duration = std::time::Duration::from_millis(50);

/// The CPUs the calling thread may run on, in increasing order.
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is plain data and all zeroes is the empty set; `sched_getaffinity`
    // writes at most `size_of::<cpu_set_t>()` bytes into the set it is given.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: see above; the size passed is the set's own.
    let got = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if got != 0 {
        return Vec::new();
    }
    // SAFETY: CPU_ISSET reads the set within its size (`CPU_SETSIZE` bits).
    (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
}

/// Pins the calling thread to `cpu`; whether it could.
#[cfg(target_os = "linux")]
fn pin_to(cpu: usize) -> bool {
    // SAFETY: as in `allowed_cpus`; CPU_SET writes the bit of `cpu`, which is below
    // `CPU_SETSIZE` (it came from `allowed_cpus`), and `sched_setaffinity` only reads the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// [`core_to_core_ns`] between `a` and `b`: two scoped threads, pinned, take turns advancing
/// one counter; either gives up (and so does the other) past [`PROBE_LIMIT`].
#[cfg(target_os = "linux")]
fn ping_pong(a: usize, b: usize) -> Option<f64> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let turn = AtomicU64::new(0);
    let abort = AtomicBool::new(false);
    let ready = std::sync::Barrier::new(2);
    let start = std::time::Instant::now();
    // The thread on `a` moves the counter from even values, the other from odd ones; the one on
    // `a` times the handoffs from when both are pinned.
    let play = |cpu: usize, first: bool| -> Option<std::time::Duration> {
        let pinned = pin_to(cpu);
        if !pinned {
            abort.store(true, Ordering::Relaxed);
        }
        ready.wait();
        let t0 = std::time::Instant::now();
        let mut mine = u64::from(!first);
        while pinned && mine < PROBE_HANDOFFS {
            let mut spins = 0u32;
            while turn.load(Ordering::Acquire) != mine {
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(1024)
                    && (abort.load(Ordering::Relaxed) || start.elapsed() > PROBE_LIMIT)
                {
                    abort.store(true, Ordering::Relaxed);
                    return None;
                }
                std::hint::spin_loop();
            }
            turn.store(mine + 1, Ordering::Release);
            mine += 2;
        }
        (pinned && !abort.load(Ordering::Relaxed)).then(|| t0.elapsed())
    };
    let (here, other) = std::thread::scope(|s| {
        let other = s.spawn(|| play(b, false));
        let here = s.spawn(|| play(a, true));
        (here.join().ok().flatten(), other.join().ok().flatten())
    });
    other?;
    here.map(|d| d.as_nanos() as f64 / PROBE_HANDOFFS as f64)
}

/// Git revision of the source tree the binary was built from, and whether that tree has
/// uncommitted changes.
pub fn git_state() -> (String, bool) {
    // Ask the source tree this binary was built from, wherever it is run from.
    let tree = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let rev = Command::new("git")
        .args(["-C", tree, "rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let dirty = Command::new("git")
        .args(["-C", tree, "status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| !o.stdout.is_empty());
    (rev, dirty)
}

/// `YYYYMMDDTHHMMSSZ` for a Unix time.
pub fn utc_stamp(unix: u64) -> String {
    let (days, secs) = (unix / 86_400, unix % 86_400);
    // Civil-from-days (proleptic Gregorian), days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// A result packet under construction.
#[derive(Clone, Debug)]
pub struct Packet {
    /// Experiment name (the folder under `results/`).
    pub experiment: String,
    /// Unique id: UTC timestamp and short git revision.
    pub run_id: String,
    fields: Map<String, Value>,
}

impl Packet {
    /// Starts a packet with the provenance fields filled in.
    pub fn new(experiment: &str, backend: &str, threads: usize, params: Value) -> Packet {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let (git_rev, dirty) = git_state();
        let short = git_rev.get(..10).unwrap_or(&git_rev).to_string();
        let run_id = format!("{}-{}", utc_stamp(now), short);
        let mut fields = Map::new();
        fields.insert("schema_version".into(), json!(SCHEMA_VERSION));
        fields.insert("experiment".into(), json!(experiment));
        fields.insert("run_id".into(), json!(run_id));
        fields.insert("created_unix".into(), json!(now));
        fields.insert("git_rev".into(), json!(git_rev));
        fields.insert("dirty".into(), json!(dirty));
        fields.insert("rustc".into(), json!(env!("FULLVERIFY_RUSTC_VERSION")));
        fields.insert("profile".into(), json!(env!("FULLVERIFY_PROFILE")));
        fields.insert("target".into(), json!(env!("FULLVERIFY_TARGET")));
        fields.insert("cpu".into(), serde_json::to_value(Machine::current()).expect("machine"));
        fields.insert("backend".into(), json!(backend));
        fields.insert("threads".into(), json!(threads));
        fields.insert("params".into(), params);
        fields.insert("metrics".into(), json!({}));
        Packet { experiment: experiment.to_string(), run_id, fields }
    }

    /// Sets a top-level field (e.g. `metrics`, `corpus`, `state`, `arms`).
    pub fn set(&mut self, key: &str, value: impl Serialize) -> &mut Packet {
        self.fields.insert(key.to_string(), serde_json::to_value(value).expect("serializable"));
        self
    }

    /// The packet as JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(self.fields.clone())
    }

    /// Writes `<results_dir>/<experiment>/<run-id>.json` and returns the path.
    pub fn write(&self, results_dir: &Path) -> std::io::Result<PathBuf> {
        let dir = results_dir.join(&self.experiment);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.json", self.run_id));
        let mut text = serde_json::to_string_pretty(&self.to_json()).expect("json");
        text.push('\n');
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

/// The `results/` folder: `$FULLVERIFY_RESULTS`, else `results/` of the workspace.
pub fn results_dir() -> PathBuf {
    std::env::var_os("FULLVERIFY_RESULTS").map(PathBuf::from).unwrap_or_else(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        manifest.parent().unwrap_or(manifest).join("results")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        assert_eq!(utc_stamp(1_796_036_645), "20261130T110405Z");
    }

    #[test]
    fn packet_has_provenance_fields() {
        let mut p = Packet::new("unit", "portable", 1, json!({"k": 1}));
        p.set("metrics", json!({"x": 2}));
        let v = p.to_json();
        for key in [
            "schema_version",
            "experiment",
            "run_id",
            "git_rev",
            "dirty",
            "rustc",
            "profile",
            "target",
            "cpu",
            "backend",
            "threads",
            "params",
            "metrics",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert!(v["rustc"].as_str().unwrap().starts_with("rustc "));
        let dir = std::env::temp_dir().join(format!("fv-report-{}", std::process::id()));
        let path = p.write(&dir).unwrap();
        let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back, v);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
