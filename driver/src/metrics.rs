// SPDX-License-Identifier: MIT OR Apache-2.0
//! Measurements the replay packet carries: resource usage, file digests and per-height-band
//! rates.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// Time and memory the process used.
#[derive(Clone, Debug, Serialize)]
pub struct Resources {
    /// Wall-clock seconds of the replay.
    pub wall_s: f64,
    /// User CPU seconds of the process (all threads).
    pub user_s: f64,
    /// System CPU seconds of the process.
    pub sys_s: f64,
    /// Peak resident set size in bytes.
    pub peak_rss_bytes: u64,
}

/// The process's resource usage so far (`getrusage(RUSAGE_SELF)`).
pub fn resources(wall: Duration) -> Resources {
    // SAFETY: `getrusage` fills the zero-initialised struct it is given and reads nothing else.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    // Linux reports ru_maxrss in KiB, macOS in bytes.
    let unit = if cfg!(target_os = "macos") { 1 } else { 1024 };
    Resources {
        wall_s: wall.as_secs_f64(),
        user_s: secs(ru.ru_utime),
        sys_s: secs(ru.ru_stime),
        peak_rss_bytes: (ru.ru_maxrss.max(0) as u64) * unit,
    }
}

/// Where a measurement of [`resources_since`] starts: the process's CPU times so far, with its
/// peak resident set restarted from the present one where the system allows it (Linux).
#[derive(Clone, Debug)]
pub struct Baseline {
    user_s: f64,
    sys_s: f64,
}

/// Starts a measurement here, so that what the process did before (a corpus generated in the
/// same process) is left out of [`resources_since`]. On Linux the kernel's peak resident set
/// (`VmHWM`) is reset to the present one (`/proc/self/clear_refs`); where that cannot be done
/// the peak stays the process's.
pub fn baseline() -> Baseline {
    if cfg!(target_os = "linux") {
        // "5" resets the peak resident set; nothing else of the process changes.
        let _ = std::fs::write("/proc/self/clear_refs", b"5");
    }
    let r = resources(Duration::ZERO);
    Baseline { user_s: r.user_s, sys_s: r.sys_s }
}

/// The process's peak resident set since the last reset, in bytes (Linux: `VmHWM`).
fn peak_rss_since_reset() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The resources used since `b`: CPU times less those at `b`, and the peak resident set since
/// `b` (the process's peak where it could not be reset).
pub fn resources_since(b: &Baseline, wall: Duration) -> Resources {
    let r = resources(wall);
    Resources {
        wall_s: r.wall_s,
        user_s: (r.user_s - b.user_s).max(0.0),
        sys_s: (r.sys_s - b.sys_s).max(0.0),
        peak_rss_bytes: peak_rss_since_reset().unwrap_or(r.peak_rss_bytes),
    }
}

/// SHA-256 of a file, hex.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// One connected block, as recorded for the band metrics.
#[derive(Clone, Copy, Debug)]
pub struct BlockRecord {
    /// The block's height.
    pub height: u32,
    /// Its transactions.
    pub txs: u32,
    /// Its inputs that spend a coin.
    pub inputs: u32,
    /// Wall time from the end of the previous block to the end of this one (read included).
    pub seconds: f64,
}

/// Rates over a contiguous range of heights.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Band {
    /// First height of the band.
    pub from_height: u32,
    /// Last height of the band.
    pub to_height: u32,
    /// Blocks in it.
    pub blocks: u64,
    /// Their transactions.
    pub txs: u64,
    /// Their inputs that spend a coin.
    pub inputs: u64,
    /// Wall seconds the band took.
    pub seconds: f64,
    /// Blocks per second.
    pub blocks_per_s: f64,
    /// Inputs per second.
    pub inputs_per_s: f64,
}

/// Splits the run into at most 20 bands of equal height ranges: a block at height `h` of a run
/// over heights `lo..=hi` falls in band `(h - lo) * 20 / (hi - lo + 1)`, so that every tenth of
/// the run (the race's bands) is exactly two of them. Genesis, which spends nothing, rides with
/// the first band: a run from it is split over heights `1..=tip`. Bands longer than 10,000
/// blocks are rounded up to a multiple of 10,000.
pub fn bands(records: &[BlockRecord]) -> Vec<Band> {
    let (Some(first), Some(last)) = (records.first(), records.last()) else {
        return Vec::new();
    };
    let lo = u64::from(first.height.max(1));
    let span = (u64::from(last.height) + 1).saturating_sub(lo).max(1);
    let size = span.div_ceil(20);
    let band_of = |r: &BlockRecord| {
        let off = u64::from(r.height).saturating_sub(lo);
        if size > 10_000 {
            off / (size.div_ceil(10_000) * 10_000)
        } else {
            off * 20 / span
        }
    };
    records
        .chunk_by(|a, b| band_of(a) == band_of(b))
        .map(|c| {
            let seconds: f64 = c.iter().map(|r| r.seconds).sum();
            let inputs: u64 = c.iter().map(|r| u64::from(r.inputs)).sum();
            let rate = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
            Band {
                from_height: c[0].height,
                to_height: c[c.len() - 1].height,
                blocks: c.len() as u64,
                txs: c.iter().map(|r| u64::from(r.txs)).sum(),
                inputs,
                seconds,
                blocks_per_s: rate(c.len() as f64),
                inputs_per_s: rate(inputs as f64),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_cover_every_block_once() {
        for n in [1usize, 7, 20, 21, 439, 250_000] {
            let recs: Vec<BlockRecord> =
                (0..n).map(|i| BlockRecord { height: i as u32, txs: 1, inputs: 2, seconds: 0.5 }).collect();
            let b = bands(&recs);
            assert!(b.len() <= 20, "{n}: {} bands", b.len());
            assert_eq!(b.iter().map(|x| x.blocks).sum::<u64>(), n as u64);
            assert_eq!(b[0].from_height, 0);
            assert_eq!(b.last().unwrap().to_height, n as u32 - 1);
            assert_eq!(b[0].blocks_per_s, 2.0);
            assert_eq!(b[0].inputs_per_s, 4.0);
        }
    }

    /// A run from genesis to `tip` is split on the tenths of heights `1..=tip` that the race's
    /// bands use (`scripts/core-race`: band `(h - 1) * 10 / tip`): no band straddles two of them,
    /// and every tenth holds two bands; a resumed run is split over its own heights.
    #[test]
    fn bands_fall_on_the_tenths_of_the_chain() {
        for tip in [20u32, 439, 9_999, 10_000, 10_007, 199_999] {
            let recs: Vec<BlockRecord> =
                (0..=tip).map(|h| BlockRecord { height: h, txs: 1, inputs: 1, seconds: 1.0 }).collect();
            let b = bands(&recs);
            assert_eq!(b.len(), 20, "tip {tip}");
            let tenth = |h: u32| (u64::from(h.max(1)) - 1) * 10 / u64::from(tip);
            for (k, band) in b.iter().enumerate() {
                assert_eq!(tenth(band.from_height), tenth(band.to_height), "tip {tip}: band {band:?}");
                assert_eq!(tenth(band.to_height), k as u64 / 2, "tip {tip}: band {k}");
            }
        }
        let resumed: Vec<BlockRecord> =
            (1_000..1_100).map(|h| BlockRecord { height: h, txs: 1, inputs: 1, seconds: 1.0 }).collect();
        let b = bands(&resumed);
        assert_eq!(b.len(), 20);
        assert!(b.iter().all(|x| x.blocks == 5), "{b:?}");
    }

    #[test]
    fn resources_are_plausible() {
        let r = resources(Duration::from_millis(5));
        assert!(r.peak_rss_bytes > 1 << 20);
        assert!(r.user_s >= 0.0 && r.sys_s >= 0.0);
    }
}
