// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 batch verification (re-exported as `schnorr::verify_batch` and friends).
//!
//! For signatures (rᵢ, sᵢ) on messages mᵢ under x-only keys Pᵢ, with eᵢ = H_challenge(rᵢ ‖
//! x(Pᵢ) ‖ mᵢ) and Rᵢ = lift_x(rᵢ) (even y), every signature is valid exactly when each
//! sᵢ·G = Rᵢ + eᵢ·Pᵢ. The batch checks one random linear combination of these equations,
//!
//! (Σ aᵢ·sᵢ)·G − Σ aᵢ·Rᵢ − Σ (aᵢ·eᵢ)·Pᵢ = ∞,
//!
//! as one multi-scalar multiplication of 2b + 1 terms (`msm`), with a₁ = 1 and 128-bit
//! weights a₂ … a_b. A batch containing an invalid signature passes with probability at most
//! about 2^−128 over the weights. The weights must not be predictable by a signer before the
//! batch is fixed, so they are derived (as BIP340's batch verification section allows) from a
//! hash of the entire batch: seed = H_tag("fullverify/batch", for every item: x(Pᵢ) ‖ |mᵢ| as
//! 8 little-endian bytes ‖ mᵢ ‖ sigᵢ), and a₂ₖ, a₂ₖ₊₁ are the two 16-byte halves of
//! SHA-256(seed ‖ k as 8 little-endian bytes), read little-endian (a weight of 0 becomes 1).
//! Changing any byte of any item changes every weight.
//!
//! Items with r ≥ p, s ≥ n or an r that is not an x-coordinate on the curve are rejected
//! before the multiplication. A single item with [`MsmAlgorithm::Auto`] runs the single
//! verification, which the batch equation equals for b = 1.
//!
//! [`find_invalid`] returns the exact indices of the invalid items: items failing the range or
//! lift_x checks are invalid on their own; the rest are bisected with batch checks, and groups
//! of at most [`FIND_INVALID_LEAF`] items are verified one by one.

use super::verify::{challenge, verify_generic};
use crate::backend::Backend;
use crate::hash::{Sha256, TaggedHash};
use crate::secp256k1::field::FieldOps;
use crate::secp256k1::group::Ge;
use crate::secp256k1::keys::XOnlyPublicKey;
use crate::secp256k1::msm::{msm_generic, MsmAlgorithm, MsmStats, OpCounter};
use crate::secp256k1::scalar::Scalar;

/// One signature to verify: the key, the message and the 64-byte signature, as for
/// [`super::verify()`].
pub type BatchItem<'a> = (&'a XOnlyPublicKey, &'a [u8], &'a [u8; 64]);

/// Groups at most this large are verified one signature at a time by [`find_invalid`].
pub const FIND_INVALID_LEAF: usize = 4;

fn batch_tag() -> &'static TaggedHash {
    static T: std::sync::OnceLock<TaggedHash> = std::sync::OnceLock::new();
    T.get_or_init(|| TaggedHash::new(b"fullverify/batch"))
}

/// The weights a₁ = 1, a₂, …, a_b (see the module documentation).
pub(crate) fn batch_weights(items: &[BatchItem<'_>]) -> Vec<Scalar> {
    let mut h = batch_tag().engine();
    for (pk, msg, sig) in items {
        h.update(&pk.serialize());
        h.update(&(msg.len() as u64).to_le_bytes());
        h.update(msg);
        h.update(&sig[..]);
    }
    let seed = h.finalize();
    let mut out = Vec::with_capacity(items.len());
    out.push(Scalar::ONE);
    let mut k = 0u64;
    while out.len() < items.len() {
        let d = Sha256::new().chain(&seed).chain(&k.to_le_bytes()).finalize();
        k += 1;
        for half in d.chunks_exact(16) {
            if out.len() == items.len() {
                break;
            }
            let lo = u64::from_le_bytes(half[..8].try_into().unwrap());
            let hi = u64::from_le_bytes(half[8..].try_into().unwrap());
            let a = if lo | hi == 0 { Scalar::ONE } else { Scalar::from_words_reduce([lo, hi, 0, 0]).0 };
            out.push(a);
        }
    }
    out
}

/// The batch equation for `items` (all parsed here), generic over the backend; `false` when
/// an item fails a range or lift_x check or the combination is not infinity.
pub(crate) fn verify_batch_generic<F: FieldOps, C: OpCounter>(
    items: &[BatchItem<'_>],
    alg: MsmAlgorithm,
    c: &mut C,
) -> bool {
    if items.is_empty() {
        return true;
    }
    if items.len() == 1 && alg == MsmAlgorithm::Auto {
        let (pk, msg, sig) = items[0];
        return verify_generic::<F>(&Ge::from_portable(&pk.0), &pk.serialize(), msg, sig);
    }
    let weights = batch_weights(items);
    let mut ng = Scalar::ZERO;
    let mut terms: Vec<(Scalar, Ge<F>)> = Vec::with_capacity(2 * items.len());
    for ((pk, msg, sig), a) in items.iter().zip(weights.iter()) {
        let r_bytes: &[u8; 32] = sig[..32].try_into().unwrap();
        let Some(rx) = F::from_be_bytes(r_bytes) else { return false };
        let Ok(s) = Scalar::from_bytes(sig[32..].try_into().unwrap()) else { return false };
        let Some(r) = Ge::<F>::from_x(&rx, false) else { return false };
        let px = pk.serialize();
        let e = challenge(r_bytes, &px, msg);
        ng = ng.add(&a.mul(&s));
        terms.push((a.negate(), r));
        terms.push((a.mul(&e).negate(), Ge::from_portable(&pk.0)));
    }
    msm_generic::<F, C>(&ng, &terms, alg, c).infinity
}

/// BIP340 batch verification on the detected backend: `true` exactly when (up to a failure
/// probability of about 2^−128) every signature would pass [`super::verify()`]. An empty
/// batch is valid.
///
/// ```
/// use fullverify::secp256k1::{schnorr, PublicKey};
///
/// let keys: Vec<_> = (1u8..=8).map(|i| PublicKey::from_secret(&[i; 32]).unwrap().x_only().0).collect();
/// let msgs: Vec<[u8; 32]> = (1u8..=8).map(|i| [i ^ 0x5a; 32]).collect();
/// let sigs: Vec<[u8; 64]> = (1u8..=8).map(|i| schnorr::sign(&[i; 32], &msgs[i as usize - 1], &[0; 32])).collect();
/// let mut items: Vec<schnorr::BatchItem> =
///     (0..8).map(|i| (&keys[i], &msgs[i][..], &sigs[i])).collect();
/// assert!(schnorr::verify_batch(&items));
///
/// let mut bad = sigs[5];
/// bad[63] ^= 1;
/// items[5].2 = &bad;
/// assert!(!schnorr::verify_batch(&items));
/// assert_eq!(schnorr::find_invalid(&items), vec![5]);
/// ```
pub fn verify_batch(items: &[BatchItem<'_>]) -> bool {
    verify_batch_with(Backend::detect(), items)
}

/// [`verify_batch`] on an explicit backend.
pub fn verify_batch_with(backend: Backend, items: &[BatchItem<'_>]) -> bool {
    with_field!(backend, F => verify_batch_generic::<F, ()>(items, MsmAlgorithm::Auto, &mut ()))
}

/// [`verify_batch_with`] with an explicit multiplication algorithm (for `Strauss` and
/// `Pippenger` even a single item goes through the batch equation) and the operation counts
/// of the multiplication (all zero when it did not run).
pub fn verify_batch_with_stats(
    backend: Backend,
    alg: MsmAlgorithm,
    items: &[BatchItem<'_>],
) -> (bool, MsmStats) {
    let mut st = MsmStats::default();
    let ok = with_field!(backend, F => verify_batch_generic::<F, MsmStats>(items, alg, &mut st));
    (ok, st)
}

/// [`verify_batch_with`] with an explicit multiplication algorithm, without counting.
pub fn verify_batch_with_algorithm(backend: Backend, alg: MsmAlgorithm, items: &[BatchItem<'_>]) -> bool {
    with_field!(backend, F => verify_batch_generic::<F, ()>(items, alg, &mut ()))
}

/// The indices (ascending) of every item that fails single verification, on the detected
/// backend; empty when the whole batch is valid.
pub fn find_invalid(items: &[BatchItem<'_>]) -> Vec<usize> {
    find_invalid_with(Backend::detect(), items)
}

/// [`find_invalid`] on an explicit backend.
pub fn find_invalid_with(backend: Backend, items: &[BatchItem<'_>]) -> Vec<usize> {
    with_field!(backend, F => find_invalid_generic::<F>(items))
}

fn single<F: FieldOps>(item: &BatchItem<'_>) -> bool {
    let (pk, msg, sig) = *item;
    verify_generic::<F>(&Ge::from_portable(&pk.0), &pk.serialize(), msg, sig)
}

fn find_invalid_generic<F: FieldOps>(items: &[BatchItem<'_>]) -> Vec<usize> {
    let mut bad = Vec::new();
    let mut rest = Vec::with_capacity(items.len());
    for (i, (_, _, sig)) in items.iter().enumerate() {
        // Range and lift_x failures are invalid on their own and would fail every batch.
        let r_ok = F::from_be_bytes(sig[..32].try_into().unwrap()).and_then(|rx| Ge::<F>::from_x(&rx, false));
        let s_ok = Scalar::from_bytes(sig[32..].try_into().unwrap()).is_ok();
        if r_ok.is_some() && s_ok {
            rest.push(i);
        } else {
            bad.push(i);
        }
    }
    bisect::<F>(items, &rest, &mut bad);
    bad.sort_unstable();
    bad
}

fn bisect<F: FieldOps>(items: &[BatchItem<'_>], idx: &[usize], bad: &mut Vec<usize>) {
    if idx.len() <= FIND_INVALID_LEAF {
        bad.extend(idx.iter().copied().filter(|&i| !single::<F>(&items[i])));
        return;
    }
    let sub: Vec<BatchItem<'_>> = idx.iter().map(|&i| items[i]).collect();
    if verify_batch_generic::<F, ()>(&sub, MsmAlgorithm::Auto, &mut ()) {
        return;
    }
    let (a, b) = idx.split_at(idx.len() / 2);
    bisect::<F>(items, a, bad);
    bisect::<F>(items, b, bad);
}
