// SPDX-License-Identifier: MIT OR Apache-2.0
//! Measurement on a shared, noisy machine.
//!
//! Arms are run *alternately* in rounds (A B C A B C …) so that slow drifts in machine load hit
//! every arm alike, and results are summarised by order statistics, which a few preempted
//! samples cannot move: the median, the inter-quartile range, and a bootstrap 95 % confidence
//! interval of the median. Ratios between arms are ratios of medians.

use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

/// Summary statistics of one arm's samples (nanoseconds per operation).
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    /// Number of samples.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Smallest sample.
    pub min: f64,
    /// Arithmetic mean (for reference only; the median is the headline).
    pub mean: f64,
    /// Bootstrap 95 % confidence interval of the median: `[lo, hi]`.
    pub median_ci95: [f64; 2],
}

/// Linear-interpolated quantile of sorted data, `q` in [0, 1].
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty(), "quantile of no samples");
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Median of unsorted data.
pub fn median(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    quantile_sorted(&s, 0.5)
}

impl Stats {
    /// Statistics of `samples` (must be non-empty). The bootstrap is seeded, hence repeatable.
    pub fn of(samples: &[f64]) -> Stats {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let mut rng = fullverify_testkit::SplitMix64(0xb007_57a9);
        let mut meds: Vec<f64> = (0..1000)
            .map(|_| {
                let mut r: Vec<f64> = (0..n).map(|_| s[(rng.next_u64() % n as u64) as usize]).collect();
                r.sort_by(f64::total_cmp);
                quantile_sorted(&r, 0.5)
            })
            .collect();
        meds.sort_by(f64::total_cmp);
        Stats {
            n,
            median: quantile_sorted(&s, 0.5),
            q1: quantile_sorted(&s, 0.25),
            q3: quantile_sorted(&s, 0.75),
            min: s[0],
            mean: s.iter().sum::<f64>() / n as f64,
            median_ci95: [quantile_sorted(&meds, 0.025), quantile_sorted(&meds, 0.975)],
        }
    }
}

/// One arm of an alternating comparison: a name and a closure that performs `ops` operations
/// per call (the samples are reported per operation).
pub struct Arm<'a> {
    /// Arm name, used as the key in result packets.
    pub name: String,
    /// Operations performed by one call of `run`.
    pub ops: u64,
    /// The measured work.
    pub run: Box<dyn FnMut() + 'a>,
}

impl<'a> Arm<'a> {
    /// A new arm.
    pub fn new(name: impl Into<String>, ops: u64, run: impl FnMut() + 'a) -> Arm<'a> {
        Arm { name: name.into(), ops, run: Box::new(run) }
    }
}

/// Raw samples per arm, in arm order.
#[derive(Clone, Debug, Serialize)]
pub struct ArmSamples {
    /// Arm name.
    pub name: String,
    /// Nanoseconds per operation, one per round.
    pub ns_per_op: Vec<f64>,
    /// Summary.
    pub stats: Stats,
}

/// What a sample measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// Elapsed time (`Instant`).
    #[default]
    Wall,
    /// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): time the thread was
    /// descheduled is left out, so on a machine shared with other jobs a sample does not grow
    /// with their load (a busy sibling hyperthread still slows it).
    ThreadCpu,
}

impl Clock {
    /// `wall` or `cpu`.
    pub fn parse(s: &str) -> Option<Clock> {
        match s {
            "wall" => Some(Clock::Wall),
            "cpu" => Some(Clock::ThreadCpu),
            _ => None,
        }
    }

    /// The name [`Clock::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::ThreadCpu => "cpu",
        }
    }

    /// Nanoseconds `f` took on this clock.
    pub fn time(self, f: impl FnOnce()) -> f64 {
        match self {
            Clock::Wall => {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos() as f64
            }
            Clock::ThreadCpu => {
                let t = thread_cpu_ns();
                f();
                thread_cpu_ns() - t
            }
        }
    }
}

/// The calling thread's CPU time in nanoseconds.
fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `clock_gettime` writes the `timespec` it is given and reads nothing else.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Runs every arm once as warm-up, then `rounds` rounds in which each arm runs once, in an
/// order that rotates every round (A B C, B C A, C A B, …).
pub fn alternate(arms: &mut [Arm<'_>], rounds: usize) -> Vec<ArmSamples> {
    alternate_on(Clock::Wall, arms, rounds)
}

/// [`alternate`] with samples on `clock`.
pub fn alternate_on(clock: Clock, arms: &mut [Arm<'_>], rounds: usize) -> Vec<ArmSamples> {
    assert!(rounds > 0 && !arms.is_empty());
    for a in arms.iter_mut() {
        (a.run)();
    }
    let mut samples = vec![Vec::with_capacity(rounds); arms.len()];
    for r in 0..rounds {
        for k in 0..arms.len() {
            let i = (r + k) % arms.len();
            let dt = clock.time(&mut arms[i].run);
            samples[i].push(dt / arms[i].ops as f64);
        }
    }
    arms.iter()
        .zip(samples)
        .map(|(a, s)| ArmSamples { name: a.name.clone(), stats: Stats::of(&s), ns_per_op: s })
        .collect()
}

/// Chooses a repetition count so that `f` repeated that often takes about `target_ns`.
pub fn calibrate(mut f: impl FnMut(), target_ns: f64) -> u64 {
    let mut reps = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        let dt = t.elapsed().as_nanos() as f64;
        if dt >= target_ns / 4.0 || reps >= 1 << 30 {
            return ((reps as f64) * target_ns / dt.max(1.0)).ceil().max(1.0) as u64;
        }
        reps *= 4;
    }
}

/// Keeps a value alive and opaque to the optimiser.
#[inline]
pub fn keep<T>(x: T) -> T {
    black_box(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_stats() {
        let s = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(median(&s), 3.0);
        let st = Stats::of(&s);
        assert_eq!((st.q1, st.q3, st.min, st.mean), (2.0, 4.0, 1.0, 3.0));
        assert!(st.median_ci95[0] <= 3.0 && st.median_ci95[1] >= 3.0);
        assert_eq!(median(&[1.0, 2.0]), 1.5);
    }

    #[test]
    fn alternate_runs_each_arm_each_round() {
        let (mut a, mut b) = (0u32, 0u32);
        {
            let mut arms = [Arm::new("a", 1, || a += 1), Arm::new("b", 2, || b += 1)];
            let out = alternate(&mut arms, 7);
            assert_eq!(out.len(), 2);
            assert_eq!(out[0].ns_per_op.len(), 7);
            assert_eq!(out[1].name, "b");
        }
        assert_eq!((a, b), (8, 8));
    }

    #[test]
    fn cpu_clock_counts_work_not_sleep() {
        let slept = Clock::ThreadCpu.time(|| std::thread::sleep(std::time::Duration::from_millis(20)));
        assert!(slept < 10e6, "{slept} ns of CPU time for a 20 ms sleep");
        assert!(Clock::Wall.time(|| std::thread::sleep(std::time::Duration::from_millis(20))) >= 20e6);
        assert_eq!(Clock::parse(Clock::ThreadCpu.name()), Some(Clock::ThreadCpu));
    }
}
