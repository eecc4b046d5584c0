// SPDX-License-Identifier: MIT OR Apache-2.0
//! Where a crew helper runs: the calling thread's CPU, and moving a new helper off its
//! spawner's.

/// The CPU the calling thread runs on, where the platform tells.
pub(super) fn current_cpu() -> Option<usize> {
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
pub(super) fn leave_cpu(spawner: Option<usize>) {
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
