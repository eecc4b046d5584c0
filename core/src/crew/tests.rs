// SPDX-License-Identifier: MIT OR Apache-2.0
//! The crew: jobs on every worker, joins, pieces claimed, waiting counted.

use super::*;

/// Both halves land in order for every split point, on one thread or two, with items that
/// own heap memory; a panic in either half reaches the caller.
#[test]
fn build_in_two_is_the_serial_list() {
    for n in [0, 1, SPLIT_MIN - 1, SPLIT_MIN, 1000] {
        let serial: Vec<String> = (0..n).map(|i| format!("item {i}")).collect();
        for mid in [0, 1, n / 3, n / 2, n.saturating_sub(1), n, n + 1] {
            for threads in [1, 2, 4] {
                assert_eq!(
                    build_in_two(threads, n, mid, |i| format!("item {i}")),
                    serial,
                    "{n} {mid} {threads}"
                );
            }
        }
    }
    for bad in [10, 900] {
        let r = std::panic::catch_unwind(|| {
            build_in_two(2, 1000, 500, |i| if i == bad { panic!("item {i}") } else { vec![i; 3] })
        });
        assert!(r.is_err());
    }
}
/// Claimed by several threads at once, the pieces cover `0..len` once each, in order of
/// claiming; each is `min` to `max` long but the last, and for one claimer they never grow.
#[test]
fn claims_cover_every_item_once_in_shrinking_pieces() {
    for (len, workers, min, max) in [
        (0, 2, 1, 16),
        (1, 2, 1, 16),
        (5, 2, 4, 32),
        (100, 2, 4, 32),
        (300, 2, 4, 32),
        (1000, 3, 1, 16),
        (4097, 8, 8, 8),
    ] {
        let c = Claims::new(len, workers, min, max);
        let mut one: Vec<std::ops::Range<usize>> = std::iter::from_fn(|| c.claim()).collect();
        assert_eq!(one.iter().map(|r| r.start).collect::<Vec<_>>(), {
            let mut s = vec![0];
            s.extend(one.iter().map(|r| r.end));
            s.pop();
            s
        });
        assert_eq!(one.last().map_or(0, |r| r.end), len);
        assert!(one.windows(2).all(|w| w[0].len() >= w[1].len()), "{one:?}");
        if len >= 4 * workers * max {
            // Large pieces first, the smallest ones at the end.
            assert_eq!(one[0].len(), max, "{one:?}");
            assert_eq!(one[one.len() - 2].len(), min, "{one:?}");
        }
        let last = one.pop();
        assert!(one.iter().all(|r| (min..=max).contains(&r.len())), "{one:?}");
        assert!(last.is_none_or(|r| (1..=max).contains(&r.len())));
        assert!(c.claim().is_none());
    }
    let c = Claims::new(100_000, 4, 1, 16);
    let got = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let mut mine = Vec::new();
                while let Some(r) = c.claim() {
                    mine.push(r);
                }
                assert!(mine.windows(2).all(|w| w[0].end <= w[1].start));
                got.lock().unwrap().extend(mine);
            });
        }
    });
    let mut all = got.into_inner().unwrap();
    all.sort_by_key(|r| r.start);
    assert_eq!(all.first().map(|r| r.start), Some(0));
    assert!(all.windows(2).all(|w| w[0].end == w[1].start));
    assert_eq!(all.last().map(|r| r.end), Some(100_000));
}

use std::collections::HashSet;

/// Runs a job on `workers` workers that each run `then` after checking in and waiting (up to
/// ten seconds) for all to have: the caller cannot finish it before every helper took it, so
/// none is let off. Returns how many ran it; each runs it at most once.
fn all_arrive(workers: usize, then: impl Fn() + Sync) -> usize {
    let arrived = AtomicUsize::new(0);
    let ids = Mutex::new(HashSet::new());
    on_crew(workers, &|| {
        assert!(ids.lock().unwrap().insert(std::thread::current().id()), "a worker ran the job twice");
        arrived.fetch_add(1, Ordering::AcqRel);
        let start = Instant::now();
        while arrived.load(Ordering::Acquire) < workers && start.elapsed() < Duration::from_secs(10) {
            std::hint::spin_loop();
        }
        then();
    });
    arrived.into_inner()
}

/// Every worker runs each job at most once, on distinct threads, the caller always, for
/// changing worker counts; a job that waits for all its workers gets them (no helper is let
/// off a job its caller has not finished); jobs borrow the caller's locals; nested calls work.
#[test]
fn every_worker_runs_each_job_once() {
    for workers in [1, 2, 3, 2, 5, 1, 4] {
        for _ in 0..50 {
            let ids = Mutex::new(Vec::new());
            let count = AtomicUsize::new(0);
            on_crew(workers, &|| {
                count.fetch_add(1, Ordering::Relaxed);
                ids.lock().unwrap().push(std::thread::current().id());
            });
            let ran = count.into_inner();
            assert!((1..=workers).contains(&ran));
            let ids = ids.into_inner().unwrap();
            assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ran);
            assert!(ids.contains(&std::thread::current().id()));
            assert_eq!(all_arrive(workers, || ()), workers);
        }
    }
    let total = AtomicUsize::new(0);
    all_arrive(2, || _ = all_arrive(3, || _ = total.fetch_add(1, Ordering::Relaxed)));
    assert_eq!(total.into_inner(), 6);
    // `join` borrows, returns both results, and runs both on one thread too.
    let v = [1u64, 2, 3];
    for threads in [1, 2, 4] {
        let (sum, len) = join(threads, || v.iter().sum::<u64>(), || v.len());
        assert_eq!((sum, len), (6, 3));
    }
}

/// Short jobs with the number of workers changing every time: helpers left out of a round
/// look at the job slot late, when it is empty or holds a later round, and must neither
/// run a job twice nor miss one.
#[test]
fn changing_worker_counts_back_to_back() {
    jobs_with_changing_worker_counts(3_000);
}

/// `calls` jobs on this thread's crew, the number of workers changing every time; each job
/// must run exactly once per worker (every worker waits for the others to check in, so none
/// is let off). After every third job the helpers are told to rest
/// ([`rest_helpers`]), half of those times with a pause after it, so that the next job
/// finds helpers parked, parking or still spinning: none may miss it.
fn jobs_with_changing_worker_counts(calls: usize) {
    let counts = [4, 2, 3, 1, 4, 2, 2, 3];
    for k in 0..calls {
        let workers = counts[k % counts.len()];
        assert_eq!(all_arrive(workers, || ()), workers, "call {k}");
        if k % 3 == 2 {
            rest_helpers();
            if k % 6 == 5 {
                // Long enough for the helpers to see it and park before the next job.
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }
}

/// The same with a pause between the steps of publishing each round, so that helpers
/// left out of earlier rounds find the next job in the slot before its round number is
/// out. A helper that ran it early must not run it again when the number appears, and its
/// finishing must count against that round.
#[test]
fn late_helpers_during_slow_publication() {
    // On a thread of its own (with a crew of its own), watched: a lost decrement would
    // leave the caller waiting for ever.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        CREW.with(|c| {
            let mut c = c.borrow_mut();
            let crew = c.get_or_insert_with(Crew::new);
            crew.shared.pause_ns.store(30_000, Ordering::Relaxed);
        });
        let outcome = catch_unwind(|| jobs_with_changing_worker_counts(400));
        let _ = tx.send(outcome.is_ok());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(ok) => assert!(ok, "a job ran the wrong number of times"),
        Err(_) => panic!("the crew's caller is still waiting after 60 s"),
    }
}

/// A panic in a helper or in the caller reaches the caller after every worker has
/// finished, and the crew keeps working afterwards.
#[test]
fn panics_reach_the_caller() {
    let caller = std::thread::current().id();
    for in_caller in [false, true] {
        let finished = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            all_arrive(3, || {
                if (std::thread::current().id() == caller) == in_caller {
                    panic!("job failed");
                }
                std::thread::sleep(Duration::from_millis(5));
                finished.fetch_add(1, Ordering::Relaxed);
            });
        }));
        assert!(r.is_err());
        assert_eq!(all_arrive(3, || ()), 3);
    }
}

/// A thread started on its spawner's CPU moves to another allowed one and gets its mask
/// back; on any other CPU, or without a spawner CPU, nothing changes. Needs two allowed
/// CPUs (skipped, and said, otherwise).
#[cfg(target_os = "linux")]
#[test]
fn a_helper_on_its_spawners_cpu_moves_off_it() {
    fn allowed() -> Vec<usize> {
        // SAFETY: all zeros is the empty set; pid 0 is this thread; the set has `size` bytes.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
            (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
        }
    }
    let mask = allowed();
    if mask.len() < 2 || current_cpu().is_none() {
        eprintln!("skipped: needs two allowed CPUs and sched_getcpu ({} allowed)", mask.len());
        return;
    }
    std::thread::spawn(move || {
        // The scheduler may move the thread right after it left; one clean move suffices.
        let moved = (0..5).any(|_| {
            let here = current_cpu().expect("sched_getcpu");
            leave_cpu(Some(here));
            current_cpu() != Some(here)
        });
        assert!(moved, "the thread stayed on its CPU");
        assert_eq!(allowed(), mask, "the CPU mask was not restored");
        leave_cpu(None);
        let elsewhere = mask.iter().copied().find(|&c| Some(c) != current_cpu()).unwrap();
        leave_cpu(Some(elsewhere));
        assert_eq!(allowed(), mask);
    })
    .join()
    .unwrap();
}

/// Idle work: a helper does it while its caller rests between jobs, never inside a job and not
/// before the caller's first rest; it stops when the unit says there is nothing to do and starts
/// again at the next rest; a value retired meanwhile is dropped on the helper; a unit that
/// panics ends the idle work and the crew goes on. On a thread of its own (a crew of its own).
#[test]
fn idle_work_runs_between_jobs_while_the_caller_rests() {
    std::thread::spawn(|| {
        let in_job = Arc::new(AtomicBool::new(false));
        let budget = Arc::new(AtomicUsize::new(0));
        let units = Arc::new(Mutex::new(Vec::new()));
        // Times a unit found nothing to do (and so ended the helper's idle work until the next rest).
        let empty = Arc::new(AtomicUsize::new(0));
        let (flag, left, done) = (Arc::clone(&in_job), Arc::clone(&budget), Arc::clone(&units));
        let found_empty = Arc::clone(&empty);
        assert_eq!(all_arrive(2, || ()), 2);
        let guard = idle_work(move || {
            if left.load(Ordering::Acquire) == 0 {
                found_empty.fetch_add(1, Ordering::AcqRel);
                return false;
            }
            left.fetch_sub(1, Ordering::AcqRel);
            done.lock().unwrap().push((std::thread::current().id(), flag.load(Ordering::Acquire)));
            true
        });
        let wait_for = |n: usize| {
            let start = Instant::now();
            while units.lock().unwrap().len() < n && start.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(1));
            }
            units.lock().unwrap().len()
        };
        // Work is there, but the caller has not rested: nothing is done.
        budget.store(3, Ordering::Release);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(units.lock().unwrap().len(), 0);
        for round in 1..=3 {
            rest_helpers();
            assert_eq!(wait_for(3 * round), 3 * round, "round {round}");
            // Nothing more to do: the helper stops (and parks) until the next rest. It has stopped
            // once a unit has found the budget empty; work given before that would still be done.
            let start = Instant::now();
            while empty.load(Ordering::Acquire) < round && start.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_eq!(empty.load(Ordering::Acquire), round, "round {round}: the helper stopped once");
            budget.store(3, Ordering::Release);
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(units.lock().unwrap().len(), 3 * round);
            // Saying it again before the next job wakes nobody: the helpers already know.
            rest_helpers();
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(units.lock().unwrap().len(), 3 * round, "round {round}: a second rest");
            in_job.store(true, Ordering::Release);
            all_arrive(2, || ());
            in_job.store(false, Ordering::Release);
        }
        let me = std::thread::current().id();
        assert!(units.lock().unwrap().iter().all(|&(on, during_job)| on != me && !during_job));
        // Retired values are dropped by a helper at the caller's next rest.
        struct Noted(Arc<Mutex<Option<std::thread::ThreadId>>>);
        impl Drop for Noted {
            fn drop(&mut self) {
                *self.0.lock().unwrap() = Some(std::thread::current().id());
            }
        }
        let dropped = Arc::new(Mutex::new(None));
        retire(Noted(Arc::clone(&dropped)));
        assert_eq!(*dropped.lock().unwrap(), None);
        rest_helpers();
        let start = Instant::now();
        while dropped.lock().unwrap().is_none() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let on = dropped.lock().unwrap().expect("dropped at the rest");
        assert_ne!(on, me);
        drop(guard);
        // A panicking unit ends the idle work; jobs go on.
        let tries = Arc::new(AtomicUsize::new(0));
        let t = Arc::clone(&tries);
        let _guard = idle_work(move || {
            t.fetch_add(1, Ordering::AcqRel);
            panic!("idle unit failed");
        });
        for _ in 0..3 {
            rest_helpers();
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(all_arrive(2, || ()), 2);
        }
        assert_eq!(tries.load(Ordering::Acquire), 1);
    })
    .join()
    .expect("the idle work behaves");
    // Without helpers a retired value is dropped at once, on the caller.
    std::thread::spawn(|| {
        let dropped = Arc::new(AtomicBool::new(false));
        struct Flag(Arc<AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        retire(Flag(Arc::clone(&dropped)));
        assert!(dropped.load(Ordering::Acquire));
    })
    .join()
    .unwrap();
}

/// A job that its caller finishes while the helper is held up (here in a unit of idle work
/// that waits for the job to end) returns without it: the helper is let off, and takes the
/// next job as usual. Watched: a caller waiting for the held-up helper would wait for ever.
#[test]
fn a_helper_held_up_is_let_off_a_job_its_caller_finished() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = catch_unwind(|| {
            assert_eq!(all_arrive(2, || ()), 2);
            let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
            let release_rx = Mutex::new(release_rx);
            let started = Arc::new(AtomicBool::new(false));
            let s = Arc::clone(&started);
            let once = AtomicBool::new(false);
            let _guard = idle_work(move || {
                if once.swap(true, Ordering::AcqRel) {
                    return false;
                }
                s.store(true, Ordering::Release);
                // Held until the test says so (or ten seconds).
                let _ = release_rx.lock().unwrap().recv_timeout(Duration::from_secs(10));
                true
            });
            rest_helpers();
            while !started.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            let before = stats().let_off;
            let ran = AtomicUsize::new(0);
            on_crew(2, &|| _ = ran.fetch_add(1, Ordering::Relaxed));
            assert_eq!(ran.into_inner(), 1);
            assert!(stats().let_off > before);
            release_tx.send(()).unwrap();
            assert_eq!(all_arrive(2, || ()), 2);
        });
        let _ = tx.send(outcome.is_ok());
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(ok) => assert!(ok, "the job ran wrongly"),
        Err(_) => panic!("the caller waited for a helper that had not taken its job"),
    }
}
