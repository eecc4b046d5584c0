// SPDX-License-Identifier: MIT OR Apache-2.0
//! Deferred signature checks: the scripts run with their ECDSA and BIP340 checks recorded, which
//! are then verified many at a time or in batches; no Core counterpart (Core checks inline).

use super::claims::{first_asks, memo_key, settle, Claim, EcdsaItem, KeyBytes, Memo};
use super::scripts::{flat_inputs, run_flat, workers_for, ScriptFailure};
use crate::backend::{Backend, BackendKind};
use crate::crew::{on_workers, on_workers_beside, share, Claims, Side};
use crate::encode::{Transaction, TxOut};
use crate::script::interpreter::{verify_input, MultisigClaim, SigVerifier, TweakCheck};
use crate::script::{BackendVerifier, ScriptFlags};
use crate::secp256k1::{ecdsa, schnorr, PublicKey, XOnlyPublicKey};
use crate::sighash::TxContext;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

crate::named_enum! {
    /// How the signature checks of a block's scripts are done ([`verify_scripts_with`]). Every
    /// mode gives the same verdicts and reports the same failing input. The names are those of
    /// command lines and result packets.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum SigMode as "signature mode" {
        /// Each check is done when the interpreter reaches it.
        #[default]
        Inline => "inline",
        /// BIP340 checks are deferred and verified in batches ([`schnorr::verify_batch_with`]);
        /// ECDSA checks are done inline.
        BatchSchnorr => "batch-schnorr",
        /// ECDSA checks (outside `CHECKMULTISIG`) and BIP340 checks are deferred, then verified
        /// many at a time with [`ecdsa::verify_many`] and [`schnorr::verify_many`]: eight per
        /// AVX-512 register on an Ifma token, eight per pair of AVX2 registers on an Avx2 one.
        Many => "many",
        /// [`SigMode::Many`] for ECDSA, with the BIP340 checks batched as in
        /// [`SigMode::BatchSchnorr`].
        ManyBatchSchnorr => "many+batch-schnorr",
    }
}

impl SigMode {
    /// The faster mode for `backend` when BIP340 checks are not batched: [`SigMode::Many`] on
    /// the eight-lane tokens, Ifma and Avx2 (where `verify_many` runs eight lanes at once),
    /// [`SigMode::Inline`] elsewhere (where `verify_many` is a loop over single checks and
    /// deferring only adds bookkeeping). On Avx2 `many` replayed the default corpus 1.31× as
    /// fast as `inline` on a quiet host (median of five A/B pairs, 95 % interval 1.19–1.39;
    /// an Intel Xeon with IFMA, the backend forced).
    pub fn for_backend(backend: Backend) -> SigMode {
        if matches!(backend.kind(), BackendKind::Ifma | BackendKind::Avx2) {
            SigMode::Many
        } else {
            SigMode::Inline
        }
    }

    /// The same mode with the BIP340 checks batched (or not).
    pub fn with_batch_schnorr(self, batch: bool) -> SigMode {
        match (self.defers_ecdsa(), batch) {
            (false, false) => SigMode::Inline,
            (false, true) => SigMode::BatchSchnorr,
            (true, false) => SigMode::Many,
            (true, true) => SigMode::ManyBatchSchnorr,
        }
    }

    /// Whether ECDSA checks are deferred.
    pub fn defers_ecdsa(self) -> bool {
        matches!(self, SigMode::Many | SigMode::ManyBatchSchnorr)
    }

    /// Whether BIP340 checks are batched.
    pub fn batches_schnorr(self) -> bool {
        matches!(self, SigMode::BatchSchnorr | SigMode::ManyBatchSchnorr)
    }
}

/// A deferred BIP340 check: the x-only key, the message, the signature.
type SchnorrItem = ([u8; 32], [u8; 32], [u8; 64]);

/// The checks recorded by one [`DeferringVerifier`], each with the position (in the flat input
/// list) of the input that made it.
#[derive(Default)]
struct Deferred {
    ecdsa: Vec<EcdsaItem>,
    ecdsa_owner: Vec<u32>,
    /// The ECDSA checks of `CHECKMULTISIG`s, kept apart: they are verified first (see
    /// [`verify_recorded`]).
    multi: Vec<EcdsaItem>,
    multi_owner: Vec<u32>,
    schnorr: Vec<SchnorrItem>,
    schnorr_owner: Vec<u32>,
    /// The `CHECKMULTISIG`s that succeeded, each with the position of its input.
    claims: Vec<Claim>,
    claim_owner: Vec<u32>,
}

impl Deferred {
    /// Empty lists with room for `checks` checks of each kind, so that a worker's lists rarely
    /// grow while its scripts run. Each growth is a reallocation, which takes the lock of the
    /// allocator's arena the list lives in; on two threads that lock is contended (the other
    /// thread allocating as it decodes the next block, or freeing the last one), and the
    /// growths of these lists, about nine a list and block, were a third of the replay's
    /// samples in the kernel's futex calls.
    fn with_capacity(checks: usize) -> Deferred {
        Deferred {
            ecdsa: Vec::with_capacity(checks),
            ecdsa_owner: Vec::with_capacity(checks),
            multi: Vec::with_capacity(checks),
            multi_owner: Vec::with_capacity(checks),
            schnorr: Vec::with_capacity(checks),
            schnorr_owner: Vec::with_capacity(checks),
            claims: Vec::new(),
            claim_owner: Vec::new(),
        }
    }
}

/// A [`SigVerifier`] that answers `true` to the checks it may defer, records them, and does the
/// others at once; one per worker of [`verify_scripts_with`].
///
/// Deferred: BIP340 checks, and ECDSA checks when `ecdsa` is set. `CHECKMULTISIG` tries each
/// signature against the keys in turn, so failures are routine there: its checks are recorded
/// in a list of their own, and each multisig that succeeded with the answers given is recorded
/// as a claim ([`MultisigClaim`]), settled after the verification without running its script
/// again (see [`settle`]). Keys are recorded as bytes and parsed in bulk with the verification
/// ([`PublicKey::parse_many_with`], [`XOnlyPublicKey::parse_many_with`]: the square roots eight
/// at a time on an Ifma token); a key that does not parse makes its check invalid. Done at
/// once: ECDSA signatures that do not parse (answered `false`, as exact verification would),
/// the BIP341 tweak check.
///
/// Why this is sound: the interpreter is a deterministic function of the input and of the
/// answers its verifier gives. If every recorded check turns out valid, each deferred answer
/// was the exact one, so the run was the exact run and its result is exact. A `CHECKMULTISIG`
/// acts on the script only through its success (and, on failure, the `NULLFAIL` rule and the
/// keys' encoding rules along its loop), so an input whose only invalid checks are
/// `CHECKMULTISIG` ones ran exactly when every multisig of it that succeeded still succeeds
/// with the exact answers (its claim holds): a multisig that failed with answers at least as
/// favourable fails with the exact ones too, after no more keys. Any other input with an
/// invalid check, or whose script failed, is run again exactly. No property of the scripts
/// themselves is assumed.
struct DeferringVerifier {
    backend: Backend,
    ecdsa: bool,
    /// Only the owning worker touches it; the lock is never contended.
    items: std::sync::Mutex<Deferred>,
}

/// How many checks (ECDSA, multisig, BIP340) and claims a [`DeferringVerifier`] had recorded
/// (see `mark`).
type Mark = [usize; 4];

impl DeferringVerifier {
    fn mark(&self) -> Mark {
        let d = self.items.lock().expect("no panics while held");
        [d.ecdsa.len(), d.multi.len(), d.schnorr.len(), d.claims.len()]
    }

    /// The checks and claims recorded since `mark` belong to the input at position `owner`.
    fn own(&self, mark: Mark, owner: u32) {
        let d = &mut *self.items.lock().expect("no panics while held");
        debug_assert!(
            [d.ecdsa_owner.len(), d.multi_owner.len(), d.schnorr_owner.len(), d.claim_owner.len()] == mark
        );
        d.ecdsa_owner.resize(d.ecdsa.len(), owner);
        d.multi_owner.resize(d.multi.len(), owner);
        d.schnorr_owner.resize(d.schnorr.len(), owner);
        d.claim_owner.resize(d.claims.len(), owner);
    }

    /// Forgets the checks and claims recorded since `mark` (their input is run again anyway).
    fn drop_since(&self, mark: Mark) {
        let d = &mut *self.items.lock().expect("no panics while held");
        d.ecdsa.truncate(mark[0]);
        d.multi.truncate(mark[1]);
        d.schnorr.truncate(mark[2]);
        d.claims.truncate(mark[3]);
    }

    fn defer_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32], multisig: bool) -> bool {
        // The signature is parsed as `BackendVerifier::verify_ecdsa` does; the key is parsed
        // with the others when the checks are verified (a key that does not parse makes the
        // check invalid).
        let Ok(mut s) = ecdsa::Signature::from_der_lax(sig) else { return false };
        s.normalize_s();
        let d = &mut *self.items.lock().expect("no panics while held");
        let list = if multisig { &mut d.multi } else { &mut d.ecdsa };
        list.push((KeyBytes::new(pubkey), *msg32, s));
        true
    }
}

impl SigVerifier for DeferringVerifier {
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        if !self.ecdsa {
            return BackendVerifier(self.backend).verify_ecdsa(pubkey, sig, msg32);
        }
        self.defer_ecdsa(pubkey, sig, msg32, false)
    }

    fn verify_ecdsa_multisig(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        if !self.ecdsa {
            return BackendVerifier(self.backend).verify_ecdsa(pubkey, sig, msg32);
        }
        self.defer_ecdsa(pubkey, sig, msg32, true)
    }

    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool {
        // The key is parsed with the others when the checks are verified.
        self.items.lock().expect("no panics while held").schnorr.push((*xonly, *msg32, *sig64));
        true
    }

    fn tweak_add_check(&self, check: &TweakCheck<'_>) -> bool {
        BackendVerifier(self.backend).tweak_add_check(check)
    }

    fn wants_multisig_claims(&self) -> bool {
        self.ecdsa
    }

    fn multisig_claim(&self, claim: &MultisigClaim<'_>) {
        self.items.lock().expect("no panics while held").claims.push(Claim::record(claim));
    }
}

/// Largest number of signatures in one batch of [`SigMode::BatchSchnorr`].
pub const MAX_SCHNORR_BATCH: usize = 4096;

/// Most signatures per step of a `verify_many` worker (a multiple of the eight lanes).
const MANY_CHUNK: usize = 128;

/// The fewest and most inputs a worker claims at once while recording (see [`Claims`]):
/// recording an input takes a few microseconds, so pieces of 16 left the first worker done
/// with its share waiting about half a piece at every job.
const RECORD_PIECE: (usize, usize) = (4, 32);

/// [`verify_scripts`](super::verify_scripts) with [`BackendVerifier`]`(backend)` and the
/// signature checks done as `mode` says. The result, the failure reported included, is always
/// that of `verify_scripts` (up to the batch's failure probability of about 2^−128 per batch for
/// accepting an invalid BIP340 signature in the batched modes).
///
/// Apart from [`SigMode::Inline`], this runs in steps, each on `threads` workers:
/// 1. every input's script runs with the deferrable checks answered `true` and recorded, and
///    each `CHECKMULTISIG` that succeeded recorded as a claim (see the soundness note on
///    `DeferringVerifier`: a run whose recorded checks are all valid is the exact run);
/// 2. the recorded checks are verified: ECDSA with [`ecdsa::verify_many`], BIP340 with
///    [`schnorr::verify_many`] or in batches of at most [`MAX_SCHNORR_BATCH`] (a batch that
///    fails is verified item by item to find its inputs); the answers of `CHECKMULTISIG`
///    checks go into a memo;
/// 3. an input whose only invalid checks are `CHECKMULTISIG` ones has its claims settled: the
///    loop of each is walked again with the memo's answers, the pairs it meets that were
///    never checked verified as in step 2 (a multisig signed by keys 1 and 3 of three);
/// 4. an input whose script failed, that recorded another invalid check, or with a claim that
///    does not hold, is in doubt: those are verified exactly in block order, and the first
///    that fails is the failure reported. Every input not in doubt is valid, so this is the
///    lowest failing input, as `verify_scripts` reports.
///
/// ```
/// use fullverify::encode::Transaction;
/// use fullverify::script::{BackendVerifier, ScriptFlags};
/// use fullverify::validation::{verify_scripts, verify_scripts_with, SigMode};
/// use fullverify::Backend;
///
/// // No inputs to check: every mode agrees.
/// let b = Backend::detect();
/// for mode in SigMode::ALL {
///     assert_eq!(
///         verify_scripts_with(&[], &[], ScriptFlags::NONE, 2, b, mode),
///         verify_scripts(&[] as &[Transaction], &[], ScriptFlags::NONE, 2, &BackendVerifier(b))
///     );
/// }
/// ```
pub fn verify_scripts_with(
    txs: &[Transaction],
    spent: &[Vec<TxOut>],
    flags: ScriptFlags,
    threads: usize,
    backend: Backend,
    mode: SigMode,
) -> Result<(), ScriptFailure> {
    verify_scripts_beside(txs, spent, Checks { flags, threads, backend, mode }, &Side::none())
}

/// How a block's scripts are checked: their flags, the workers, the backend, the signature
/// mode.
#[derive(Clone, Copy, Debug)]
pub(super) struct Checks {
    pub(super) flags: ScriptFlags,
    pub(super) threads: usize,
    pub(super) backend: Backend,
    pub(super) mode: SigMode,
}

/// [`verify_scripts_with`], one worker running `side` first (see [`on_workers_beside`]); `side`
/// has run when this returns.
pub(super) fn verify_scripts_beside(
    txs: &[Transaction],
    spent: &[Vec<TxOut>],
    checks: Checks,
    side: &Side<'_>,
) -> Result<(), ScriptFailure> {
    let Checks { flags, threads, backend, mode } = checks;
    // Whatever path the checks take, the side job has run before this returns (it runs here
    // when no worker took it, e.g. with no inputs).
    let r = (|| {
        let exact = BackendVerifier(backend);
        let (ctxs, flat) = flat_inputs(txs, spent, threads);
        if mode == SigMode::Inline {
            return run_flat(&ctxs, &flat, flags, threads, &exact, side);
        }
        let c = Checks { threads: threads.max(1), ..checks };
        let threads = c.threads;
        let (mut all, mut doubt) = deferred_round(&ctxs, &flat, &c, side);
        let claims: Vec<(u32, Claim)> = all.claim_owner.drain(..).zip(all.claims.drain(..)).collect();
        doubt.sort_unstable();
        let (bad, mut memo) = verify_recorded(&all, &claims, &doubt, &c);
        // The block's last job, unless a check failed: the helpers rest (reading ahead) while
        // this thread settles the multisig claims and the block is applied; a job asked for
        // below wakes them as any job does.
        crate::crew::rest_helpers();
        let mut suspects: Vec<u32> = Vec::new();
        for (owner, multisig) in bad {
            if multisig {
                suspects.push(owner);
            } else {
                doubt.push(owner);
            }
        }
        doubt.sort_unstable();
        doubt.dedup();
        // An input already in doubt is run exactly whatever its claims say.
        suspects.sort_unstable();
        suspects.dedup();
        suspects.retain(|p| doubt.binary_search(p).is_err());
        if !suspects.is_empty() {
            doubt.extend(settle(&claims, &suspects, &mut memo, |items| verify_ecdsa_items(items, &c)));
        }
        if doubt.is_empty() {
            return Ok(());
        }
        doubt.sort_unstable();
        doubt.dedup();
        let suspects: Vec<(u32, u32)> = doubt.iter().map(|&p| flat[p as usize]).collect();
        run_flat(&ctxs, &suspects, flags, threads, &exact, &Side::none())
    })();
    side.run();
    r
}

/// Step 1 of [`verify_scripts_with`] over the inputs `flat`: the checks and claims recorded,
/// and the positions whose script failed.
fn deferred_round(
    ctxs: &[Option<TxContext<'_>>],
    flat: &[(u32, u32)],
    c: &Checks,
    side: &Side<'_>,
) -> (Deferred, Vec<u32>) {
    let &Checks { flags, threads, backend, mode } = c;
    let workers = workers_for(threads, flat.len());
    let claims = Claims::new(flat.len(), workers, RECORD_PIECE.0, RECORD_PIECE.1);
    let work = || {
        let items = std::sync::Mutex::new(Deferred::with_capacity(flat.len()));
        let v = DeferringVerifier { backend, ecdsa: mode.defers_ecdsa(), items };
        let mut failed: Vec<u32> = Vec::new();
        while let Some(piece) = claims.claim() {
            for pos in piece {
                let pos = pos as u32;
                let (t, i) = flat[pos as usize];
                let ctx = ctxs[t as usize].as_ref().expect("non-coinbase");
                let mark = v.mark();
                if verify_input(ctx, i as usize, flags, &v).is_ok() {
                    v.own(mark, pos);
                } else {
                    v.drop_since(mark);
                    failed.push(pos);
                }
            }
        }
        (v.items.into_inner().expect("no panics while held"), failed)
    };
    let mut parts = on_workers_beside(workers, work, side);
    // The others are appended to the largest part (the order of the checks does not matter:
    // each names its owner).
    let largest = (0..parts.len())
        .max_by_key(|&k| parts[k].0.ecdsa.len() + parts[k].0.multi.len() + parts[k].0.schnorr.len());
    let (mut all, mut failed) = largest.map(|k| parts.swap_remove(k)).unwrap_or_default();
    for (d, f) in parts {
        all.ecdsa.extend(d.ecdsa);
        all.ecdsa_owner.extend(d.ecdsa_owner);
        all.multi.extend(d.multi);
        all.multi_owner.extend(d.multi_owner);
        all.schnorr.extend(d.schnorr);
        all.schnorr_owner.extend(d.schnorr_owner);
        all.claims.extend(d.claims);
        all.claim_owner.extend(d.claim_owner);
        failed.extend(f);
    }
    (all, failed)
}

/// The answers of ECDSA checks, verified with [`ecdsa::verify_many`] (keys parsed in bulk; a
/// key that does not parse fails its check).
fn ecdsa_check(backend: Backend, items: &[EcdsaItem]) -> Vec<bool> {
    let keys: Vec<&[u8]> = items.iter().map(|(k, _, _)| k.as_slice()).collect();
    let pks = PublicKey::parse_many_with(backend, &keys);
    let (idx, refs): (Vec<usize>, Vec<ecdsa::VerifyItem<'_>>) = items
        .iter()
        .zip(&pks)
        .enumerate()
        .filter_map(|(k, ((_, m, s), pk))| Some((k, (pk.as_ref().ok()?, m, s))))
        .unzip();
    scatter(items.len(), &idx, ecdsa::verify_many(backend, &refs))
}

/// Step 2 of [`verify_scripts_with`], with the first walk of step 3 in the same job: verifies
/// the recorded checks, the `CHECKMULTISIG` ones first; the worker that finishes their last
/// step walks the claims of the inputs with an invalid one (but those in `doubt`, sorted) and
/// publishes the checks the walks ask for, which the workers then verify before the rest. One
/// job instead of two for a block with multisigs signed by other keys than the first. Returns
/// the owners of invalid checks, each with whether the check was a `CHECKMULTISIG` one, and,
/// when an input outside `doubt` had an invalid one, the answers of every `CHECKMULTISIG` check
/// and of every check asked for (the memo [`settle`] starts from; empty otherwise).
fn verify_recorded(
    all: &Deferred,
    claims: &[(u32, Claim)],
    doubt: &[u32],
    c: &Checks,
) -> (Vec<(u32, bool)>, Memo) {
    let &Checks { threads, backend, mode, .. } = c;
    let schnorr_check = |items: &[SchnorrItem]| {
        let keys: Vec<[u8; 32]> = items.iter().map(|(k, _, _)| *k).collect();
        let pks = XOnlyPublicKey::parse_many_with(backend, &keys);
        let (idx, refs): (Vec<usize>, Vec<schnorr::VerifyItem<'_>>) = items
            .iter()
            .zip(&pks)
            .enumerate()
            .filter_map(|(k, ((_, m, s), pk))| Some((k, (pk.as_ref().ok()?, &m[..], s))))
            .unzip();
        if mode.batches_schnorr() && idx.len() == items.len() && schnorr::verify_batch_with(backend, &refs) {
            return vec![true; items.len()];
        }
        scatter(items.len(), &idx, schnorr::verify_many(backend, &refs))
    };
    // Batches are as large as an equal share allows; otherwise the lists are cut as one.
    let schnorr_batch = mode
        .batches_schnorr()
        .then(|| all.schnorr.len().div_ceil(threads.max(1)).clamp(1, MAX_SCHNORR_BATCH));
    // The ECDSA steps run over the multisig checks, then the others, as one list (`m` is where
    // the others start): the multisig checks' tail and the others' head share a group of eight
    // instead of each list ending in a short one. The steps with multisig checks come first.
    let m = all.multi.len();
    let plan = chunk_plan([m + all.ecdsa.len(), all.schnorr.len()], schnorr_batch, threads);
    let multi_steps = plan.iter().take_while(|s| s.list == List::Ecdsa && s.range.start < m).count();
    let ecdsa_items = |r: std::ops::Range<usize>| -> Cow<'_, [EcdsaItem]> {
        if r.end <= m {
            Cow::Borrowed(&all.multi[r])
        } else if r.start >= m {
            Cow::Borrowed(&all.ecdsa[r.start - m..r.end - m])
        } else {
            Cow::Owned(all.multi[r.start..].iter().chain(&all.ecdsa[..r.end - m]).copied().collect())
        }
    };
    let multi_left = AtomicUsize::new(multi_steps);
    let multi_ok: Vec<OnceLock<Vec<bool>>> = (0..multi_steps).map(|_| OnceLock::new()).collect();
    // What the walks asked for, in steps of eight, and the memo they walked with.
    let asked: OnceLock<(Vec<EcdsaItem>, Memo)> = OnceLock::new();
    let (cursor, asked_cursor) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let walk_claims = || {
        let answers = || {
            multi_ok.iter().enumerate().flat_map(|(k, ok)| {
                let ok = ok.get().expect("every multisig step is done");
                let r = plan[k].range.start..plan[k].range.end.min(m);
                all.multi[r.clone()].iter().zip(ok.iter().zip(&all.multi_owner[r]))
            })
        };
        let mut suspects: Vec<u32> = answers()
            .filter(|(_, (&valid, owner))| !valid && doubt.binary_search(owner).is_err())
            .map(|(_, (_, &owner))| owner)
            .collect();
        // Without a suspect there is nothing to walk, and `settle` is not called: no memo.
        if suspects.is_empty() {
            return;
        }
        suspects.sort_unstable();
        suspects.dedup();
        let memo: Memo = answers().map(|(item, (&valid, _))| (memo_key(item), valid)).collect();
        let _ = asked.set((first_asks(claims, &suspects, &memo), memo));
    };
    let work = || {
        // (asked for, the step's index, its answers)
        let mut done: Vec<(bool, usize, Vec<bool>)> = Vec::new();
        loop {
            if let Some((items, _)) = asked.get() {
                let k = asked_cursor.fetch_add(1, Ordering::Relaxed);
                if k * 8 < items.len() {
                    let r = k * 8..(k * 8 + 8).min(items.len());
                    done.push((true, k, ecdsa_check(backend, &items[r])));
                    continue;
                }
            }
            let k = cursor.fetch_add(1, Ordering::Relaxed);
            let Some(step) = plan.get(k) else { return done };
            let r = step.range.clone();
            match step.list {
                List::Ecdsa if k < multi_steps => {
                    let _ = multi_ok[k].set(ecdsa_check(backend, &ecdsa_items(r)));
                    if multi_left.fetch_sub(1, Ordering::AcqRel) == 1 {
                        walk_claims();
                    }
                }
                List::Ecdsa => done.push((false, k, ecdsa_check(backend, &ecdsa_items(r)))),
                List::Schnorr => done.push((false, k, schnorr_check(&all.schnorr[r]))),
            }
        }
    };
    let mut ecdsa_ok = vec![false; all.ecdsa.len()];
    let mut schnorr_ok = vec![false; all.schnorr.len()];
    let mut asked_ok: Vec<(usize, Vec<bool>)> = Vec::new();
    if !plan.is_empty() {
        for (was_asked, k, ok) in on_workers(threads.min(plan.len()), work).into_iter().flatten() {
            if was_asked {
                asked_ok.push((k, ok));
                continue;
            }
            let r = plan[k].range.clone();
            match plan[k].list {
                List::Ecdsa => ecdsa_ok[r.start - m..r.end - m].copy_from_slice(&ok),
                List::Schnorr => schnorr_ok[r].copy_from_slice(&ok),
            }
        }
    }
    // The multisig steps' answers; the last of those steps may end among the other checks.
    let multi_ok: Vec<Vec<bool>> =
        multi_ok.into_iter().map(|ok| ok.into_inner().expect("every multisig step is done")).collect();
    if let Some(ok) = multi_ok.last() {
        let r = plan[multi_ok.len() - 1].range.clone();
        if r.end > m {
            ecdsa_ok[..r.end - m].copy_from_slice(&ok[m - r.start..]);
        }
    }
    // The worker that did the last multisig step walked the claims before it went on (when any
    // input had an invalid multisig check outside `doubt`).
    let (items, mut memo) = asked.into_inner().unwrap_or_default();
    for (k, ok) in asked_ok {
        for (item, valid) in items[k * 8..].iter().zip(ok) {
            memo.insert(memo_key(item), valid);
        }
    }
    let owners_of = |ok: &[bool], owners: &[u32], multisig: bool| {
        ok.iter().zip(owners).filter(|(v, _)| !**v).map(|(_, &o)| (o, multisig)).collect::<Vec<_>>()
    };
    let mut bad = owners_of(&ecdsa_ok, &all.ecdsa_owner, false);
    for (k, ok) in multi_ok.iter().enumerate() {
        let r = plan[k].range.start..plan[k].range.end.min(m);
        bad.extend(owners_of(&ok[..r.len()], &all.multi_owner[r], true));
    }
    bad.extend(owners_of(&schnorr_ok, &all.schnorr_owner, false));
    (bad, memo)
}

/// The lists of recorded checks, in the order their steps come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    /// The ECDSA checks (in a verification job, those of `CHECKMULTISIG`s, then the others).
    Ecdsa,
    /// The BIP340 checks.
    Schnorr,
}

/// A step of a verification job: items `range` of one list.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Step {
    list: List,
    range: std::ops::Range<usize>,
}

/// The steps over the lists of `lens` checks (ECDSA, then BIP340), for `threads` workers
/// claiming them in order. With `schnorr_batch`, BIP340 steps have
/// that size (the last may be smaller). Otherwise a step takes a share of what is left in all
/// the lists ([`share`]: `left / (2 × threads)`), in whole groups of eight and at most
/// [`MANY_CHUNK`], so the last steps are small and the workers finish together; a step never
/// spans two lists.
fn chunk_plan(lens: [usize; 2], schnorr_batch: Option<usize>, threads: usize) -> Vec<Step> {
    const LISTS: [List; 2] = [List::Ecdsa, List::Schnorr];
    let threads = threads.max(1);
    let shared = if schnorr_batch.is_some() { 1 } else { 2 };
    let mut plan = Vec::new();
    let mut left: usize = lens[..shared].iter().sum();
    for (&list, &len) in LISTS[..shared].iter().zip(&lens) {
        let mut start = 0;
        while start < len {
            let end = (start + share(left, threads, 8, 8, MANY_CHUNK)).min(len);
            plan.push(Step { list, range: start..end });
            left -= end - start;
            start = end;
        }
    }
    if let Some(batch) = schnorr_batch {
        let mut start = 0;
        while start < lens[1] {
            let end = (start + batch).min(lens[1]);
            plan.push(Step { list: List::Schnorr, range: start..end });
            start = end;
        }
    }
    plan
}

/// The answers of ECDSA checks, verified on the workers as step 2 of [`verify_scripts_with`]
/// does.
fn verify_ecdsa_items(items: &[EcdsaItem], c: &Checks) -> Vec<bool> {
    let plan = chunk_plan([items.len(), 0], None, c.threads);
    let cursor = AtomicUsize::new(0);
    let work = || {
        let mut done: Vec<(usize, Vec<bool>)> = Vec::new();
        while let Some(step) = plan.get(cursor.fetch_add(1, Ordering::Relaxed)) {
            done.push((step.range.start, ecdsa_check(c.backend, &items[step.range.clone()])));
        }
        done
    };
    let mut ok = vec![false; items.len()];
    if !plan.is_empty() {
        for (start, answers) in on_workers(c.threads.min(plan.len()), work).into_iter().flatten() {
            ok[start..start + answers.len()].copy_from_slice(&answers);
        }
    }
    ok
}

/// `n` answers, `false` except at the positions `idx`, which take `ok` in order.
fn scatter(n: usize, idx: &[usize], ok: Vec<bool>) -> Vec<bool> {
    let mut out = vec![false; n];
    for (&i, v) in idx.iter().zip(ok) {
        out[i] = v;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every check is in exactly one step, in order; a step never spans two lists; the lists
    /// come in order (ECDSA, BIP340); steps are whole groups of eight (but the last of a list)
    /// and at most `MANY_CHUNK`, shrinking toward the end; batches have the batch size.
    #[test]
    fn chunk_plan_covers_each_list_once() {
        let sizes: [usize; 12] = [0, 1, 7, 8, 9, 64, 65, 129, 309, 1000, 1300, 5678];
        const LISTS: [List; 2] = [List::Ecdsa, List::Schnorr];
        for &ecdsa in &sizes {
            for &schnorr in &sizes {
                for threads in [1, 2, 3, 8] {
                    for batch in [None, Some(schnorr.div_ceil(threads).clamp(1, MAX_SCHNORR_BATCH))] {
                        let lens = [ecdsa, schnorr];
                        let plan = chunk_plan(lens, batch, threads);
                        for (list, n) in LISTS.into_iter().zip(lens) {
                            let steps: Vec<_> = plan.iter().filter(|s| s.list == list).collect();
                            let mut at = 0;
                            for (k, s) in steps.iter().enumerate() {
                                assert_eq!(s.range.start, at, "{lens:?} {threads} {batch:?}");
                                assert!(s.range.end > s.range.start);
                                let len = s.range.len();
                                let last = k + 1 == steps.len();
                                match (list, batch) {
                                    (List::Schnorr, Some(b)) => assert!(len == b || (last && len < b)),
                                    _ => assert!(len <= MANY_CHUNK && (len % 8 == 0 || last)),
                                }
                                at = s.range.end;
                            }
                            assert_eq!(at, n);
                        }
                        let order: Vec<usize> =
                            plan.iter().map(|s| LISTS.iter().position(|l| *l == s.list).unwrap()).collect();
                        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{lens:?}: lists out of order");
                    }
                }
            }
        }
        // Two workers, 5678 + 2375 checks: full steps first, eight at the end.
        let plan = chunk_plan([5678, 2375], None, 2);
        assert_eq!(plan[0].range.len(), MANY_CHUNK);
        assert_eq!(plan.last().unwrap().range.len(), 2375 % 8);
        assert!(plan.iter().rev().skip(1).take(3).all(|s| s.range.len() == 8));
    }
}
