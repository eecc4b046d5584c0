// SPDX-License-Identifier: MIT OR Apache-2.0
//! The blocks of a chain run's source, read ahead of the validation.
//!
//! Three parties read the source: the replay's thread (a block nobody read ahead), the side job
//! of a block's scripts (the next block, decoded, put through `CheckBlock` and its coins read
//! into the cache), and the crew's idle work ([`fullverify::crew::idle_work`]): while the
//! replay's thread applies a block and connects the next one's inputs, its helper would park;
//! instead it reads and prepares the blocks after the next, up to [`DEPTH`] of them. Blocks
//! are handed out in the source's order: whoever wants the next one takes it from the blocks
//! already read, or reads it, or waits for the reader that has the source. A block read ahead
//! but never taken (after a failing block, past the stop height) is neither counted nor in the
//! source's digest: every block read carries the digest as it will be once it is taken.

use crate::source::{RawBlock, Source, SourceError};
use fullverify::chain::ChainParams;
use fullverify::chainstate::PreparedBlock;
use fullverify::crew::{idle_work, IdleWork};
use fullverify::Backend;
use sha2::{Digest, Sha256};
use std::any::Any;
use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The most blocks the idle work reads ahead of the one the validation takes next.
pub(super) const DEPTH: usize = 2;

/// The source's next item as read: the block prepared (when asked for, and always when read
/// ahead), the time reading and preparing took, and the source's digest with the block's
/// bytes added (adopted when the block is taken).
pub(super) struct ReadAhead {
    pub(super) next: Option<Result<RawBlock, SourceError>>,
    pub(super) prepared: Option<PreparedBlock>,
    pub(super) read: Duration,
    pub(super) digest_after: Option<Sha256>,
}

/// A block read, or the panic its reader caught (resumed where the block is taken).
type Slot = Result<ReadAhead, Box<dyn Any + Send>>;

struct State {
    /// `None` while a reader has it.
    src: Option<Source>,
    /// The source's digest over every block read so far, taken or not.
    digest: Sha256,
    /// Read, in order, not yet taken.
    ready: VecDeque<Slot>,
    /// Whether the idle work may read (once the run has found the state's tip).
    active: bool,
    /// The source gave its end or an error: the idle work reads no more.
    ended: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a reader gives the source back.
    returned: Condvar,
    params: &'static ChainParams,
    backend: Backend,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the source's next item with the lock held in `g` and the source taken out of it
    /// meanwhile (others wait for it): the item, prepared when `prepare` and a block.
    fn read<'a>(&'a self, mut g: MutexGuard<'a, State>, prepare: bool) -> (MutexGuard<'a, State>, Slot) {
        let mut src = g.src.take().expect("the source is here");
        let mut digest = g.digest.clone();
        drop(g);
        let r = catch_unwind(AssertUnwindSafe(|| {
            let t = Instant::now();
            let next = src.next();
            let (prepared, digest_after) = match &next {
                Some(Ok(b)) => {
                    digest.update(&b.bytes);
                    let p = prepare.then(|| PreparedBlock::new(&b.bytes, self.params, self.backend));
                    (p, Some(digest.clone()))
                }
                _ => (None, None),
            };
            ReadAhead { next, prepared, read: t.elapsed(), digest_after }
        }));
        let mut g = self.lock();
        g.src = Some(src);
        match &r {
            Ok(a) => match (&a.next, &a.digest_after) {
                (Some(Ok(_)), Some(d)) => g.digest = d.clone(),
                _ => g.ended = true,
            },
            Err(_) => g.ended = true,
        }
        self.returned.notify_all();
        (g, r)
    }

    /// One unit of idle work: the next block read and prepared, if there is room.
    fn idle_unit(&self) -> bool {
        let g = self.lock();
        if !g.active || g.ended || g.src.is_none() || g.ready.len() >= DEPTH {
            return false;
        }
        let (mut g, r) = self.read(g, true);
        g.ready.push_back(r);
        true
    }
}

/// The source of a chain run, shared with the side jobs and the crew's idle work.
pub(super) struct Ahead {
    shared: Arc<Shared>,
    idle: Option<IdleWork>,
}

impl Ahead {
    /// `src` from its start; with `idle`, the calling thread's crew helpers read ahead between
    /// jobs once [`Ahead::activate`] allows it.
    pub(super) fn new(src: Source, params: &'static ChainParams, backend: Backend, idle: bool) -> Ahead {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                src: Some(src),
                digest: Sha256::new(),
                ready: VecDeque::new(),
                active: false,
                ended: false,
            }),
            returned: Condvar::new(),
            params,
            backend,
        });
        let idle = idle.then(|| {
            let s = Arc::clone(&shared);
            idle_work(move || s.idle_unit())
        });
        Ahead { shared, idle }
    }

    /// Lets the idle work read ahead (the blocks skipped up to a resumed state's tip are not
    /// worth preparing).
    pub(super) fn activate(&self) {
        if self.idle.is_some() {
            self.shared.lock().active = true;
        }
    }

    /// The source's next item: read ahead already, or read here (and prepared when `prepare`),
    /// after any reader that has the source now. A panic of the reader that read it is resumed
    /// here.
    pub(super) fn take(&self, prepare: bool) -> ReadAhead {
        let mut g = self.shared.lock();
        loop {
            if let Some(slot) = g.ready.pop_front() {
                drop(g);
                return slot.unwrap_or_else(|p| resume_unwind(p));
            }
            if g.src.is_some() {
                let (g, r) = self.shared.read(g, prepare);
                drop(g);
                return r.unwrap_or_else(|p| resume_unwind(p));
            }
            g = self.shared.returned.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Ends the reading ahead and gives the source back, once no reader has it.
    pub(super) fn into_source(mut self) -> Source {
        drop(self.idle.take());
        let mut g = self.shared.lock();
        loop {
            if let Some(src) = g.src.take() {
                return src;
            }
            g = self.shared.returned.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}
