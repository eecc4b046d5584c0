// SPDX-License-Identifier: MIT OR Apache-2.0
//! Helper threads kept between the phases of the parallel checks.
//!
//! The parallel script check runs in phases (the scripts with their signature checks
//! deferred, the recorded signatures, a second round, the exact re-check), each one job on
//! every worker. Spawning scoped threads for every phase starts a thread each time, and on a
//! virtual machine whose other CPU has gone idle such a start has been measured at several
//! milliseconds. A crew's helpers are started once per calling thread and kept between jobs.
//!
//! Waiting is adaptive. The caller measures the gap between the end of one job and the start
//! of the next; after a job a helper spins only while the next one is expected (twice the
//! recent gap, at most `SPIN_MAX`), then parks until woken, so a helper burns no CPU while
//! its caller does serial work; a caller that knows its next job is not near says so
//! (`rest_helpers`, after a block's scripts), and helpers waiting then park at once. A caller
//! done with its share of a job spins for at most `SPIN_MAX` for the helpers' last pieces,
//! then yields its CPU between looks (awake, because a woken thread on a virtual machine can
//! start a scheduler tick late) and parks only after `WAIT_AWAKE`. What the threads spent
//! waiting awake and how often they parked is counted ([`stats`]), and the replay reports it.
//!
//! While the caller rests, a helper first drops what the caller handed it ([`retire`]), then
//! does the crew's idle work, if any is registered ([`idle_work`]; the replay reads and
//! prepares the blocks ahead there), and parks when there is none left. A helper that has
//! not taken a job by the time the caller has run it to its end (still waking, or finishing a
//! unit of idle work) is let off that job: every job shares its work out by claims, so the
//! caller has done all of it.
//!
//! `on_crew` (crate-private) is the entry point, [`join`] the public one for two closures; a call made from inside a crew job (nested) runs on
//! freshly spawned scoped threads instead.

mod cpu;

use cpu::{current_cpu, leave_cpu};
use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest a thread spins before it parks: a helper waiting for the next job (and then
/// only while one is expected, see [`Shared::gap_ns`]), or a caller waiting for its helpers.
const SPIN_MAX: Duration = Duration::from_micros(200);

/// How long a caller done with its share of a job stays awake for its helpers (spinning for
/// [`SPIN_MAX`], then yielding its CPU between looks) before it parks. On a virtual machine a
/// thread woken on an idle CPU was measured to start up to a scheduler tick (4 ms) late, and
/// the helpers' last pieces usually take well under a millisecond; yielding lets any other
/// runnable thread have the CPU meanwhile.
const WAIT_AWAKE: Duration = Duration::from_millis(50);

/// A helper spins for at least this long after a job when the next one is expected at all.
const SPIN_MIN: Duration = Duration::from_micros(20);

/// Process-wide counts of the crews' waiting, for [`stats`].
static STATS: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
const JOBS: usize = 0;
const CALLER_SPIN_NS: usize = 1;
const CALLER_PARKS: usize = 2;
const HELPER_SPIN_NS: usize = 3;
const HELPER_PARKS: usize = 4;
const IDLE_UNITS: usize = 5;
const IDLE_NS: usize = 6;
const LET_OFF: usize = 7;

fn count(what: usize, n: u64) {
    STATS[what].fetch_add(n, Ordering::Relaxed);
}

/// What the crews of this process have spent waiting since it started (see [`stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Jobs run on a crew (calls that used helper threads).
    pub jobs: u64,
    /// Nanoseconds callers waited awake (spinning, then yielding) for their helpers to finish
    /// a job.
    pub caller_spin_ns: u64,
    /// Times a caller parked waiting for its helpers.
    pub caller_parks: u64,
    /// Nanoseconds helpers spun waiting for the next job.
    pub helper_spin_ns: u64,
    /// Times a helper parked waiting for the next job.
    pub helper_parks: u64,
    /// Units of idle work ([`IdleWork`]) helpers did between jobs.
    pub idle_units: u64,
    /// Nanoseconds helpers spent on them.
    pub idle_ns: u64,
    /// Times a helper had not started a job when its caller had done all of it, and was let
    /// off that job.
    pub let_off: u64,
}

impl Stats {
    /// The counts from `earlier` to `self` (both from [`stats`]).
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats {
            jobs: self.jobs - earlier.jobs,
            caller_spin_ns: self.caller_spin_ns - earlier.caller_spin_ns,
            caller_parks: self.caller_parks - earlier.caller_parks,
            helper_spin_ns: self.helper_spin_ns - earlier.helper_spin_ns,
            helper_parks: self.helper_parks - earlier.helper_parks,
            idle_units: self.idle_units - earlier.idle_units,
            idle_ns: self.idle_ns - earlier.idle_ns,
            let_off: self.let_off - earlier.let_off,
        }
    }
}

/// The crews' waiting so far, process-wide: subtract an earlier snapshot ([`Stats::since`]) to
/// get one run's.
pub fn stats() -> Stats {
    let g = |i: usize| STATS[i].load(Ordering::Relaxed);
    Stats {
        jobs: g(JOBS),
        caller_spin_ns: g(CALLER_SPIN_NS),
        caller_parks: g(CALLER_PARKS),
        helper_spin_ns: g(HELPER_SPIN_NS),
        helper_parks: g(HELPER_PARKS),
        idle_units: g(IDLE_UNITS),
        idle_ns: g(IDLE_NS),
        let_off: g(LET_OFF),
    }
}

/// The round number that tells the helpers to exit.
const STOP: u64 = u64::MAX;

/// The current job, its lifetime erased (see [`Crew::run`]).
#[derive(Clone, Copy)]
struct JobPtr(*const (dyn Fn() + Sync + 'static));

// SAFETY: the pointee is `Sync`, so calling it from several threads is sound; the pointer is
// dereferenced only while `Crew::run` keeps the job alive.
unsafe impl Send for JobPtr {}

struct Shared {
    /// Bumped for every job; helpers wait for it to change. [`STOP`] ends them.
    round: AtomicU64,
    /// The round of the current job, the job, and how many helpers (the first ones) take
    /// part; `None` between jobs.
    job: Mutex<Option<(u64, JobPtr, usize)>>,
    /// Helpers of the current round that have not finished it.
    running: AtomicUsize,
    /// Helpers that have taken the current round's job (counted under the `job` lock).
    joined: AtomicUsize,
    /// The first panic of a helper in the current round.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The recent gap between the end of one job and the start of the next, in nanoseconds
    /// (a moving average kept by the caller): how long a helper should expect to wait.
    gap_ns: AtomicU64,
    /// Set by [`rest_helpers`] when the caller knows its next job is not near, cleared when it
    /// publishes one: helpers waiting meanwhile park at once instead of spinning, or do idle
    /// work first.
    rest: AtomicBool,
    /// Work a helper may do while the caller rests ([`idle_work`]).
    idle: Mutex<Option<IdleFn>>,
    /// Changed at every rest and registration of idle work.
    idle_gen: AtomicU64,
    /// Values the caller handed over to be dropped by a helper ([`retire`]).
    retired: Mutex<Vec<Box<dyn Send>>>,
    /// Held to sleep on `wake` (helpers) or `done` (the caller).
    sleep: Mutex<()>,
    wake: Condvar,
    done: Condvar,
    /// A pause, set by tests, that the caller takes between the steps of publishing a round
    /// and a helper takes (times its place in the crew) before it looks at the job slot: it
    /// widens the windows in which a helper looks late.
    #[cfg(test)]
    pause_ns: AtomicU64,
}

/// Sleeps `times` the pause a test has set, if any (nothing outside tests).
#[inline(always)]
fn pause(s: &Shared, times: u64) {
    #[cfg(test)]
    {
        let ns = s.pause_ns.load(Ordering::Relaxed);
        if ns != 0 {
            std::thread::sleep(Duration::from_nanos(ns * times));
        }
    }
    #[cfg(not(test))]
    let _ = (s, times);
}

impl Shared {
    fn lock_sleep(&self) -> MutexGuard<'_, ()> {
        self.sleep.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes helpers look at the idle work again: a new `idle_gen`, and parked ones woken
    /// (under the sleep lock, so none misses it between its look and its wait).
    fn look_again(&self) {
        let _g = self.lock_sleep();
        self.idle_gen.fetch_add(1, Ordering::AcqRel);
        self.wake.notify_all();
    }
}

/// Helper threads of one calling thread.
struct Crew {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
    /// When the last job ended.
    last_end: Option<Instant>,
}

impl Crew {
    fn new() -> Crew {
        let shared = Arc::new(Shared {
            round: AtomicU64::new(0),
            job: Mutex::new(None),
            running: AtomicUsize::new(0),
            joined: AtomicUsize::new(0),
            panic: Mutex::new(None),
            gap_ns: AtomicU64::new(0),
            rest: AtomicBool::new(false),
            idle: Mutex::new(None),
            idle_gen: AtomicU64::new(0),
            retired: Mutex::new(Vec::new()),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
            done: Condvar::new(),
            #[cfg(test)]
            pause_ns: AtomicU64::new(0),
        });
        Crew { shared, helpers: Vec::new(), last_end: None }
    }

    /// Grows the crew to at least `n` helpers.
    fn reserve(&mut self, n: usize) {
        while self.helpers.len() < n {
            let index = self.helpers.len();
            let shared = Arc::clone(&self.shared);
            let seen = shared.round.load(Ordering::Acquire);
            let spawner = current_cpu();
            self.helpers.push(
                std::thread::Builder::new()
                    .name("fullverify-crew".into())
                    .spawn(move || {
                        leave_cpu(spawner);
                        helper(&shared, index, seen)
                    })
                    .expect("spawning a crew thread"),
            );
        }
    }

    /// Runs `job` on the calling thread and on those of the first `helpers` helpers that take
    /// it before the caller has run it to its end (the others are let off), and returns when
    /// all that took it have finished it. A panic of the job on any thread is resumed here,
    /// after every helper has finished.
    fn run(&mut self, job: &(dyn Fn() + Sync), helpers: usize) {
        debug_assert!(helpers <= self.helpers.len());
        let s = &*self.shared;
        if let Some(end) = self.last_end {
            // A moving average over about four gaps, so one long pause does not make the
            // helpers park through a run of short ones.
            let gap = end.elapsed().as_nanos().min(u64::MAX as u128) as u64;
            let old = s.gap_ns.load(Ordering::Relaxed);
            s.gap_ns.store(old - old / 4 + gap / 4, Ordering::Relaxed);
        }
        count(JOBS, 1);
        let ptr: *const (dyn Fn() + Sync + '_) = job;
        // SAFETY: only the lifetime changes (same pointer layout). The helpers call the job
        // only between finding it in the slot (filled below) and their decrement of `running`
        // (set before the slot), and this function does not return (nor unwind) before
        // `running` is zero, so `job` outlives every use; the slot is cleared before returning.
        let ptr = JobPtr(unsafe {
            std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(ptr)
        });
        // Only the crew's own thread starts rounds. `running` is set before the job is in the
        // slot: a helper left out of earlier rounds may find the job there before the round
        // number changes, and its decrement must count against this round.
        let round = s.round.load(Ordering::Acquire) + 1;
        s.rest.store(false, Ordering::Relaxed);
        s.running.store(helpers, Ordering::Release);
        pause(s, 1);
        {
            let mut slot = s.job.lock().unwrap_or_else(|e| e.into_inner());
            s.joined.store(0, Ordering::Relaxed);
            *slot = Some((round, ptr, helpers));
        }
        pause(s, 1);
        s.round.store(round, Ordering::Release);
        {
            let _g = s.lock_sleep();
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(job));
        // Helpers that have not taken the job by now are let off it: the caller has run it to
        // its end, so whatever it shares out is done (a helper still waking, or finishing a
        // unit of idle work, would only find nothing left). With the slot emptied under its
        // lock, none of them can take it any more, and `running` stops counting them.
        {
            let mut slot = s.job.lock().unwrap_or_else(|e| e.into_inner());
            *slot = None;
            let late = helpers - s.joined.load(Ordering::Relaxed);
            if late > 0 {
                count(LET_OFF, late as u64);
                s.running.fetch_sub(late, Ordering::AcqRel);
            }
        }
        // Wait for the helpers: spin for their last pieces, then stay awake yielding the CPU
        // between looks (to any other runnable thread) up to `WAIT_AWAKE`, then park until the
        // last one wakes us.
        let start = Instant::now();
        let mut spins = 0u32;
        while s.running.load(Ordering::Acquire) != 0 {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) {
                let waited = start.elapsed();
                if waited > WAIT_AWAKE {
                    count(CALLER_PARKS, 1);
                    let mut g = s.lock_sleep();
                    while s.running.load(Ordering::Acquire) != 0 {
                        g = s.done.wait(g).unwrap_or_else(|e| e.into_inner());
                    }
                    break;
                }
                if waited > SPIN_MAX {
                    std::thread::yield_now();
                    continue;
                }
            }
            std::hint::spin_loop();
        }
        count(CALLER_SPIN_NS, start.elapsed().min(WAIT_AWAKE).as_nanos() as u64);
        self.last_end = Some(Instant::now());
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if let Some(p) = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            resume_unwind(p);
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.shared.round.store(STOP, Ordering::Release);
        {
            let _g = self.shared.lock_sleep();
            self.shared.wake.notify_all();
        }
        for h in self.helpers.drain(..) {
            let _ = h.join();
        }
    }
}

/// A helper's life: wait for a new round, take part if among the first `n` helpers.
///
/// A helper of a round is counted in `running` until it has run the job, or until the caller,
/// done with the job before the helper took it, lets it off (empties the slot and stops
/// counting it, under the slot's lock, where a helper taking the job counts itself in
/// `joined`). A helper left out or let off may look late, when the slot is empty or holds a later round,
/// possibly one whose number is not yet published; it then takes that later round if it is in
/// it, or waits for the next. `seen` only grows and a helper waits for a round above it, so
/// no helper runs a round twice.
fn helper(s: &Shared, index: usize, mut seen: u64) {
    let mut spin = false;
    loop {
        let now = wait_round(s, seen, spin);
        if now == STOP {
            return;
        }
        // Later helpers look later, so those left out of a round look during the next one.
        pause(s, 1 + index as u64);
        let taken = {
            let slot = s.job.lock().unwrap_or_else(|e| e.into_inner());
            let taken = slot.filter(|&(round, _, n)| round > seen && index < n);
            if taken.is_some() {
                s.joined.fetch_add(1, Ordering::Relaxed);
            }
            taken
        };
        let Some((round, job, n)) = taken else {
            // Left out, or the round is over: sleep again right away instead of spinning.
            // `now` is above `seen` (see `wait_round`), so `seen` never goes back.
            seen = now;
            spin = false;
            continue;
        };
        debug_assert!(index < n);
        seen = round;
        spin = true;
        // SAFETY: `Crew::run` keeps the job alive until `running` is zero, which needs this
        // helper's decrement below.
        let f = unsafe { &*job.0 };
        if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
            s.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(p);
        }
        if s.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _g = s.lock_sleep();
            s.done.notify_all();
        }
    }
}

/// Waits for a round above `seen` and returns it: when `spin`, spinning first while the
/// next job is expected (twice the recent gap between jobs, within [`SPIN_MIN`] and
/// [`SPIN_MAX`]; not at all when the gaps are longer than that), then parked.
fn wait_round(s: &Shared, seen: u64, spin: bool) -> u64 {
    let gap = Duration::from_nanos(s.gap_ns.load(Ordering::Relaxed));
    if spin && gap <= SPIN_MAX && !s.rest.load(Ordering::Relaxed) {
        let budget = (2 * gap).clamp(SPIN_MIN, SPIN_MAX);
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let r = s.round.load(Ordering::Acquire);
            if r > seen {
                count(HELPER_SPIN_NS, start.elapsed().as_nanos() as u64);
                return r;
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && (start.elapsed() > budget || s.rest.load(Ordering::Relaxed)) {
                count(HELPER_SPIN_NS, start.elapsed().as_nanos() as u64);
                break;
            }
            std::hint::spin_loop();
        }
    }
    // Then idle work while the caller rests, then parked. `idle_gen` changes at every rest
    // and registration (under the sleep lock, with a wake-up), so a helper that found nothing
    // to do looks again only then.
    let mut parked = false;
    let mut nothing_at = None;
    loop {
        let r = s.round.load(Ordering::Acquire);
        if r > seen {
            return r;
        }
        let generation = s.idle_gen.load(Ordering::Acquire);
        if nothing_at != Some(generation) && s.rest.load(Ordering::Acquire) {
            let retired = std::mem::take(&mut *s.retired.lock().unwrap_or_else(|e| e.into_inner()));
            if !retired.is_empty() {
                // A value whose drop panics must not end the helper (its caller would wait
                // for it for ever).
                let _ = catch_unwind(AssertUnwindSafe(|| drop(retired)));
                continue;
            }
            if !idle_unit(s) {
                nothing_at = Some(generation);
            }
            continue;
        }
        let g = s.lock_sleep();
        let r = s.round.load(Ordering::Acquire);
        if r > seen {
            return r;
        }
        if s.idle_gen.load(Ordering::Acquire) != generation {
            continue;
        }
        if !parked && spin {
            count(HELPER_PARKS, 1);
            parked = true;
        }
        drop(s.wake.wait(g).unwrap_or_else(|e| e.into_inner()));
    }
}

/// One unit of the crew's idle work, if any is registered: whether it did something. A unit
/// that panics ends the idle work (its owner is expected to catch its own panics).
fn idle_unit(s: &Shared) -> bool {
    let Some(unit) = s.idle.lock().unwrap_or_else(|e| e.into_inner()).clone() else { return false };
    let start = Instant::now();
    match catch_unwind(AssertUnwindSafe(|| unit())) {
        Ok(true) => {
            count(IDLE_UNITS, 1);
            count(IDLE_NS, start.elapsed().as_nanos() as u64);
            true
        }
        Ok(false) => false,
        Err(_) => {
            *s.idle.lock().unwrap_or_else(|e| e.into_inner()) = None;
            false
        }
    }
}

/// Hands `value` to the calling thread's crew, whose helpers drop it while the caller rests
/// between jobs (see [`idle_work`]; before any idle work), or drops it now where the thread has
/// no helpers (or calls from inside a job). For values built on a helper with many
/// allocations, such as a block read ahead: freeing them on the thread that allocated them
/// costs the caller nothing, and glibc's allocator frees faster into the freeing thread's
/// own arena. A value waits at most until the caller's next rest.
pub fn retire<T: Send + 'static>(value: T) {
    let value = CREW.with(|c| {
        let Ok(slot) = c.try_borrow() else { return Some(value) };
        match &*slot {
            Some(crew) if !crew.helpers.is_empty() => {
                crew.shared.retired.lock().unwrap_or_else(|e| e.into_inner()).push(Box::new(value));
                None
            }
            _ => Some(value),
        }
    });
    drop(value);
}

/// Work a crew helper does between jobs instead of parking; see [`idle_work`].
type IdleFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// Registers `unit` as idle work of the calling thread's crew until the returned guard drops.
///
/// After the caller has said that its next job is not near (the validation does so after each
/// block's scripts, before applying the block and connecting the next one's inputs), a helper
/// that would otherwise park calls `unit` until it returns `false` (nothing to do now) or a job
/// arrives; it looks again at the next such rest. The helper joins a job that arrives during
/// a unit when the unit ends, so units should be short (a block read and decoded, say); work
/// that the job needs must not wait on a unit that cannot finish. The crew gets its first
/// helper now if it has none. Nothing is registered when called from inside a job. A unit that
/// panics ends the idle work.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let done = Arc::new(AtomicUsize::new(0));
/// let d = Arc::clone(&done);
/// let _guard = fullverify::crew::idle_work(move || d.fetch_add(1, Ordering::Relaxed) < 10);
/// // Helpers do it only while their caller rests between jobs.
/// let (a, b) = fullverify::crew::join(2, || 1, || 2);
/// assert_eq!(a + b, 3);
/// ```
pub fn idle_work(unit: impl Fn() -> bool + Send + Sync + 'static) -> IdleWork {
    let registered = CREW.with(|c| {
        let Ok(mut slot) = c.try_borrow_mut() else { return None };
        let crew = slot.get_or_insert_with(Crew::new);
        crew.reserve(1);
        let s = Arc::clone(&crew.shared);
        *s.idle.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(unit));
        s.look_again();
        Some(s)
    });
    IdleWork(registered)
}

/// The registration of [`idle_work`]: dropping it removes the work (a unit under way may still
/// finish).
pub struct IdleWork(Option<Arc<Shared>>);

impl Drop for IdleWork {
    fn drop(&mut self) {
        if let Some(s) = &self.0 {
            *s.idle.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}

thread_local! {
    static CREW: RefCell<Option<Crew>> = const { RefCell::new(None) };
}

/// Tells the calling thread's crew that its next job is not near (serial work comes first, such
/// as applying a block after its scripts): helpers waiting for it park now instead of spinning
/// until their budget runs out and parking then. The next job wakes them as any job does.
/// Nothing when the thread has no crew, calls from inside a job, or has said so since its last
/// job (the helpers already know: none is woken again).
pub(crate) fn rest_helpers() {
    CREW.with(|c| {
        if let Ok(slot) = c.try_borrow() {
            if let Some(crew) = &*slot {
                let s = &*crew.shared;
                if s.rest.swap(true, Ordering::AcqRel) {
                    return;
                }
                if s.idle.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
                    s.look_again();
                }
            }
        }
    });
}

/// Runs `job` on up to `workers` threads, the calling thread one of them, and returns when all
/// that ran it have finished it: a helper that has not taken the job by the time the caller's
/// run of it returns is let off, so a job must leave nothing undone that only another worker
/// would do (every job here shares its work out by claims: whoever runs it takes what is
/// left). The other `workers − 1` are this thread's crew (started on first use, grown
/// when more are asked for, kept until the thread ends); a nested call, made from inside a
/// job, spawns scoped threads instead.
pub(crate) fn on_crew(workers: usize, job: &(dyn Fn() + Sync)) {
    if workers <= 1 {
        job();
        return;
    }
    let ran = CREW.with(|c| {
        let Ok(mut slot) = c.try_borrow_mut() else { return false };
        let crew = slot.get_or_insert_with(Crew::new);
        crew.reserve(workers - 1);
        crew.run(job, workers - 1);
        true
    });
    if !ran {
        std::thread::scope(|s| {
            for _ in 1..workers {
                s.spawn(job);
            }
            job();
        });
    }
}

/// Runs `a` and `b`, on two workers when `threads` is two or more (the calling thread and one
/// of its crew, the helpers the parallel checks use next), and returns both results. Each
/// worker takes whichever closure has not started, so a helper slow to start costs nothing: the
/// calling thread runs both, and the helper is let off.
///
/// ```
/// let (x, y) = fullverify::crew::join(2, || 6 * 7, || "read");
/// assert_eq!((x, y), (42, "read"));
/// ```
pub fn join<A: Send, B: Send>(
    threads: usize,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if threads <= 1 {
        let ra = a();
        return (ra, b());
    }
    let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
    let (ra, rb) = (Mutex::new(None), Mutex::new(None));
    fn take<T>(m: &Mutex<Option<T>>) -> Option<T> {
        m.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
    on_crew(2, &|| loop {
        if let Some(f) = take(&a) {
            let r = f();
            *ra.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        } else if let Some(f) = take(&b) {
            let r = f();
            *rb.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        } else {
            break;
        }
    });
    (take(&ra).expect("a has run"), take(&rb).expect("b has run"))
}

// ---------------------------------------------------------------------------------------------
// Work spread over the caller and its crew
// ---------------------------------------------------------------------------------------------

/// Lists shorter than this are built on one thread by [`build_in_two`].
pub(crate) const SPLIT_MIN: usize = 256;

/// `[f(0), f(1), …, f(n − 1)]`. With two or more threads and at least [`SPLIT_MIN`] items,
/// the items from `mid` on are made by a crew helper (see [`join`]) while this
/// thread makes the ones before, each writing its own part of the result.
pub(crate) fn build_in_two<R: Send>(
    threads: usize,
    n: usize,
    mid: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let mut v = Vec::with_capacity(n);
    if threads < 2 || n < SPLIT_MIN || mid == 0 || mid >= n {
        v.extend((0..n).map(f));
        return v;
    }
    fn fill<R>(slots: &mut [std::mem::MaybeUninit<R>], first: usize, f: &impl Fn(usize) -> R) {
        for (k, slot) in slots.iter_mut().enumerate() {
            slot.write(f(first + k));
        }
    }
    let (lo, hi) = v.spare_capacity_mut()[..n].split_at_mut(mid);
    join(threads, || fill(lo, 0, &f), || fill(hi, mid, &f));
    // SAFETY: the two halves cover slots 0..n (capacity n), and `join` returns only after
    // both have written every slot of theirs; a panic in either is resumed by `join` before
    // this line, leaving the vector empty (what was written leaks, nothing is read).
    unsafe { v.set_len(n) };
    v
}

/// Runs `work` on up to `threads` workers (the calling thread and its crew; see [`on_crew`]
/// for a helper that comes too late) and returns what each that ran it returned, in no
/// particular order.
pub(crate) fn on_workers<R: Send>(threads: usize, work: impl Fn() -> R + Sync) -> Vec<R> {
    on_workers_beside(threads, work, &Side::none())
}

/// A worker's share of `left` items still to do among `workers`: `left / (2 × workers)`,
/// rounded up to a multiple of `multiple`, within `min..=max` (guided self-scheduling: large
/// first pieces, small last ones). [`Claims`] hands pieces of this size out as the workers ask;
/// a precomputed plan of steps can use it too.
pub(crate) fn share(left: usize, workers: usize, multiple: usize, min: usize, max: usize) -> usize {
    (left / (2 * workers.max(1))).next_multiple_of(multiple).clamp(min, max)
}

/// The pieces of `0..len` that the workers of one job claim in turn: consecutive, each a
/// share of what is left (`left / (2 × workers)`) between `min` and `max` items (the last one
/// may be shorter), so the first pieces are large and few and the last ones small. A fixed
/// piece leaves the worker that finishes first waiting out the other's last whole piece at
/// every job; with shrinking pieces the workers finish close together (guided
/// self-scheduling).
pub(crate) struct Claims {
    next: AtomicUsize,
    len: usize,
    workers: usize,
    min: usize,
    max: usize,
}

impl Claims {
    /// Pieces of `0..len` for `workers` workers, of `min` to `max` items (`1 ≤ min ≤ max`).
    pub(crate) fn new(len: usize, workers: usize, min: usize, max: usize) -> Claims {
        assert!(1 <= min && min <= max, "pieces of {min} to {max} items");
        Claims { next: AtomicUsize::new(0), len, workers: workers.max(1), min, max }
    }

    /// The next piece, or `None` when every item has been claimed. Pieces come out in
    /// increasing order, each starting where the one before ended.
    pub(crate) fn claim(&self) -> Option<std::ops::Range<usize>> {
        let mut at = self.next.load(Ordering::Relaxed);
        loop {
            if at >= self.len {
                return None;
            }
            let left = self.len - at;
            let end = at + share(left, self.workers, 1, self.min, self.max).min(left);
            match self.next.compare_exchange_weak(at, end, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(at..end),
                Err(now) => at = now,
            }
        }
    }
}

/// A job run by the first worker to start, before it claims its share of the work (once in
/// all); see [`on_workers_beside`].
pub(crate) struct Side<'a>(std::sync::Mutex<Option<Box<dyn FnOnce() + Send + 'a>>>);

impl<'a> Side<'a> {
    pub(crate) fn new(job: impl FnOnce() + Send + 'a) -> Side<'a> {
        Side(std::sync::Mutex::new(Some(Box::new(job))))
    }

    pub(crate) fn none() -> Side<'a> {
        Side(std::sync::Mutex::new(None))
    }

    /// Runs the job unless it has run.
    pub(crate) fn run(&self) {
        let job = self.0.lock().expect("no panics while held").take();
        if let Some(job) = job {
            job();
        }
    }
}

/// [`on_workers`], the first worker to start running `side` first: the other workers share
/// the work meanwhile, and the one that ran it claims what is left.
pub(crate) fn on_workers_beside<R: Send>(
    threads: usize,
    work: impl Fn() -> R + Sync,
    side: &Side<'_>,
) -> Vec<R> {
    let work = || {
        side.run();
        work()
    };
    if threads <= 1 {
        return vec![work()];
    }
    let all = std::sync::Mutex::new(Vec::with_capacity(threads));
    on_crew(threads, &|| {
        let r = work();
        all.lock().expect("no panics while held").push(r);
    });
    all.into_inner().expect("no panics while held")
}

#[cfg(test)]
mod tests;
