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
//! `on_crew` (crate-private) is the entry point, [`join`] the public one for two closures; a call made from inside a crew job (nested) runs on
//! freshly spawned scoped threads instead.

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
static STATS: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];
const JOBS: usize = 0;
const CALLER_SPIN_NS: usize = 1;
const CALLER_PARKS: usize = 2;
const HELPER_SPIN_NS: usize = 3;
const HELPER_PARKS: usize = 4;

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
    /// The first panic of a helper in the current round.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The recent gap between the end of one job and the start of the next, in nanoseconds
    /// (a moving average kept by the caller): how long a helper should expect to wait.
    gap_ns: AtomicU64,
    /// Set by [`rest_helpers`] when the caller knows its next job is not near, cleared when it
    /// publishes one: helpers waiting meanwhile park at once instead of spinning.
    rest: AtomicBool,
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
            panic: Mutex::new(None),
            gap_ns: AtomicU64::new(0),
            rest: AtomicBool::new(false),
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

    /// Runs `job` on the calling thread and on the first `helpers` helpers, and returns when
    /// all have finished it. A panic of the job on any thread is resumed here, after every
    /// helper has finished.
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
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = Some((round, ptr, helpers));
        pause(s, 1);
        s.round.store(round, Ordering::Release);
        {
            let _g = s.lock_sleep();
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(job));
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
        *s.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
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

/// The CPU the calling thread runs on, where the platform tells.
fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sched_getcpu takes nothing and only returns a number (−1 on failure).
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Moves a new helper off `spawner`, the CPU its spawner ran on, when the scheduler started
/// it there and another CPU is allowed; its CPU mask is then restored.
///
/// The scheduler usually starts a new thread on an idle CPU, but on a virtual machine whose
/// other CPU had gone idle it was seen to start it on its spawner's CPU, ahead of the spawner,
/// and the two then shared that CPU for 2–10 ms until the load balancer moved one: the whole
/// first phase ran on one CPU. Narrowing the mask moves the helper at once; the restored mask
/// lets the scheduler place it freely from then on.
fn leave_cpu(spawner: Option<usize>) {
    #[cfg(target_os = "linux")]
    {
        let Some(spawner) = spawner else { return };
        if current_cpu() != Some(spawner) {
            return;
        }
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: cpu_set_t is a plain bit array, for which all zeros is the empty set.
        let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid 0 is this thread; `allowed` is a writable set of `size` bytes.
        if unsafe { libc::sched_getaffinity(0, size, &mut allowed) } != 0
            || spawner >= libc::CPU_SETSIZE as usize
        {
            return;
        }
        let mut away = allowed;
        // SAFETY: `spawner` is below CPU_SETSIZE, checked above, so the bit is inside the set.
        let others = unsafe {
            libc::CPU_CLR(spawner, &mut away);
            libc::CPU_COUNT(&away)
        };
        if others == 0 {
            return;
        }
        // SAFETY: pid 0 is this thread; both sets are `size` bytes and the first is not empty.
        unsafe {
            if libc::sched_setaffinity(0, size, &away) == 0 {
                libc::sched_setaffinity(0, size, &allowed);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = spawner;
}

/// A helper's life: wait for a new round, take part if among the first `n` helpers.
///
/// A helper that takes part in a round is counted in `running`, so that round cannot end, nor
/// a later one start, before it has run the job: it always finds its round's job in the
/// slot. A helper left out may look late, when the slot is empty or holds a later round,
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
        let slot = *s.job.lock().unwrap_or_else(|e| e.into_inner());
        let Some((round, job, n)) = slot.filter(|&(round, _, n)| round > seen && index < n) else {
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
    let mut g = s.lock_sleep();
    let mut parked = false;
    loop {
        let r = s.round.load(Ordering::Acquire);
        if r > seen {
            return r;
        }
        if !parked && spin {
            count(HELPER_PARKS, 1);
            parked = true;
        }
        g = s.wake.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

thread_local! {
    static CREW: RefCell<Option<Crew>> = const { RefCell::new(None) };
}

/// Tells the calling thread's crew that its next job is not near (serial work comes first, such
/// as applying a block after its scripts): helpers waiting for it park now instead of spinning
/// until their budget runs out and parking then. The next job wakes them as any job does.
/// Nothing when the thread has no crew or calls from inside a job.
pub(crate) fn rest_helpers() {
    CREW.with(|c| {
        if let Ok(slot) = c.try_borrow() {
            if let Some(crew) = &*slot {
                crew.shared.rest.store(true, Ordering::Relaxed);
            }
        }
    });
}

/// Runs `job` on `workers` threads, the calling thread one of them, and returns when all have
/// finished it. The other `workers − 1` are this thread's crew (started on first use, grown
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
/// worker takes whichever closure has not started, so a helper slow to start costs nothing.
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

/// Runs `work` on `threads` workers (the calling thread and its crew) and
/// returns what each returned, in no particular order.
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
