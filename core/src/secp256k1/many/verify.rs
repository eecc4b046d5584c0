// SPDX-License-Identifier: MIT OR Apache-2.0
//! Eight ECDSA or BIP340 verifications side by side over the eight-way engine; lanes the engine
//! cannot finish (exceptional additions, infinity, a GLV fallback) go to the single verifier.

#[cfg(target_arch = "x86_64")]
use super::ecmult8::{ecmult8_avx2, ecmult8_ifma};
use super::ecmult8::{lane_result, Ecmult8Input, Ecmult8Output};
use crate::backend::portable::field::Fe5x52;
use crate::backend::Backend;
use crate::secp256k1::ecdsa::signature::Signature;
use crate::secp256k1::ecdsa::verify as ecdsa;
use crate::secp256k1::ecmult::EcmultField;
use crate::secp256k1::field::{batch_inv_var, FieldOps};
use crate::secp256k1::group::Ge;
use crate::secp256k1::scalar::Scalar;
use crate::secp256k1::schnorr::verify as schnorr;

/// One ECDSA item: key, 32-byte message hash, signature (the arguments of `ecdsa::verify`).
pub(crate) type EcdsaItem<'a> = ecdsa::VerifyItem<'a>;
/// One BIP340 item: x-only key, message, 64-byte signature (the arguments of
/// `schnorr::verify`).
pub(crate) type SchnorrItem<'a> = schnorr::VerifyItem<'a>;

/// Eight ECDSA verifications; `engine` is the eight-way engine (`ecmult8` on one lane field),
/// `F` the scalar field used for lanes that need the scalar path. Identical to
/// `ecdsa::verify_generic::<F>` on each item.
#[inline]
pub(crate) fn ecdsa_verify8<F: EcmultField>(engine: Engine<'_>, items: &[EcdsaItem<'_>; 8]) -> [bool; 8] {
    let mut res = [false; 8];
    let mut active = 0u8;
    let dummy = Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE };
    let mut inp = [dummy; 8];
    // The lanes that can verify at all (r, s nonzero, a finite key).
    let mut live = [0usize; 8];
    let mut n = 0;
    for (i, (pk, _, sig)) in items.iter().enumerate() {
        if !(sig.r.is_zero() || sig.s.is_zero() || pk.0.infinity) {
            live[n] = i;
            n += 1;
        }
    }
    let live = &live[..n];
    // Their s⁻¹ by one inversion (Montgomery's trick): prefix[k] is the product of the first k
    // live s values.
    let mut prefix = [Scalar::ONE; 9];
    for (k, &i) in live.iter().enumerate() {
        prefix[k + 1] = prefix[k].mul(&items[i].2.s);
    }
    let mut inv = prefix[n].inv_vartime();
    for (k, &i) in live.iter().enumerate().rev() {
        let (pk, msg32, sig) = items[i];
        let sinv = inv.mul(&prefix[k]);
        inv = inv.mul(&sig.s);
        let z = Scalar::from_bytes_reduce(msg32).0;
        inp[i] = Ecmult8Input { a: pk.0.normalize(), na: sig.r.mul(&sinv), ng: z.mul(&sinv) };
        active |= 1 << i;
    }
    let out = engine(&inp);
    for (i, (pk, msg32, sig)) in items.iter().enumerate() {
        if (active >> i) & 1 == 0 {
            continue;
        }
        res[i] = match lane_result(&out, i) {
            Some(p) => ecdsa::x_matches_r(&p, &sig.r),
            None => ecdsa::verify_generic::<F>(&Ge::from_portable(&pk.0), msg32, sig),
        };
    }
    res
}

/// Eight BIP340 verifications on `engine`; identical to `schnorr::verify_generic::<F>` on each
/// item.
#[inline]
pub(crate) fn schnorr_verify8<F: EcmultField>(engine: Engine<'_>, items: &[SchnorrItem<'_>; 8]) -> [bool; 8] {
    let mut res = [false; 8];
    let mut active = 0u8;
    let dummy = Ecmult8Input { a: Ge::generator(), na: Scalar::ZERO, ng: Scalar::ONE };
    let mut inp = [dummy; 8];
    let mut rxs = [Fe5x52::ZERO; 8];
    let mut pkx = [[0u8; 32]; 8];
    for (i, (pk, msg, sig)) in items.iter().enumerate() {
        let r_bytes: &[u8; 32] = sig[..32].try_into().unwrap();
        let Some(rx) = Fe5x52::from_be_bytes(r_bytes) else { continue };
        let Ok(s) = Scalar::from_bytes(sig[32..].try_into().unwrap()) else { continue };
        pkx[i] = pk.serialize();
        let e = schnorr::challenge(r_bytes, &pkx[i], msg);
        rxs[i] = rx;
        inp[i] = Ecmult8Input { a: pk.0.normalize(), na: e.negate(), ng: s };
        active |= 1 << i;
    }
    let out = engine(&inp);
    let lanes = &out.r;
    // Lanes whose x matches still need the parity of y: one shared inversion.
    let mut need_y: Vec<usize> = Vec::with_capacity(8);
    for (i, (pk, msg, sig)) in items.iter().enumerate() {
        if (active >> i) & 1 == 0 {
            continue;
        }
        match lane_result(&out, i) {
            Some(p) => {
                if p.x_eq_var(&rxs[i]) {
                    need_y.push(i);
                }
            }
            None => res[i] = schnorr::verify_generic::<F>(&Ge::from_portable(&pk.0), &pkx[i], msg, sig),
        }
    }
    let mut zs: Vec<Fe5x52> = need_y.iter().map(|&i| lanes[i].z).collect();
    batch_inv_var(&mut zs);
    for (&i, zi) in need_y.iter().zip(zs.iter()) {
        let y = lanes[i].y.mul(&zi.sqr().mul(zi)).normalize();
        res[i] = !y.is_odd();
    }
    res
}

/// The eight-way engine the verifiers run: `ecmult8` on one eight-lane field. On registers it
/// is a closure made by the dispatch arm of a token (over the one `#[target_feature]` copy of
/// the engine for that register type); in the tests, a plain function over a lane model.
pub(crate) type Engine<'a> = &'a dyn Fn(&[Ecmult8Input; 8]) -> Ecmult8Output;

/// On the IFMA engine a remainder of at least this many items (of 1…7) runs as one eight-lane
/// group with idle lanes: one group costs about two scalar verifications.
pub(crate) const MIN_PADDED_IFMA: usize = 3;

/// The same on the AVX2 engine, where one group costs about five scalar verifications
/// (`ifmabench`: eight-way 1.6× the Asm verifier).
pub(crate) const MIN_PADDED_AVX2: usize = 6;

/// `$eight` over chunks of eight items; at least `$min_padded` items left over run as one group
/// padded with `$idle` items (which the eight-way code leaves out of its work), fewer go to
/// `$one`.
///
/// A macro rather than a function taking `impl Fn`, from when the verifiers ran inside
/// `#[target_feature]` functions (called through `Fn::call`, the eight-way body was compiled
/// outside them and every lane operation became an out-of-line call, twenty times slower). The
/// lane work is now all inside the engines (`ecmult8_ifma`, `ecmult8_avx2`), and `$eight` and
/// `$one` hold scalar code only.
macro_rules! verify_many_in_eights {
    ($items:expr, $min_padded:expr, $idle:expr, $eight:expr, $one:expr) => {{
        let items = $items;
        let mut out = Vec::with_capacity(items.len());
        let mut chunks = items.chunks_exact(8);
        for c in &mut chunks {
            out.extend_from_slice(&$eight(c.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if rest.len() >= $min_padded {
            let mut group = [$idle; 8];
            group[..rest.len()].copy_from_slice(rest);
            out.extend_from_slice(&$eight(&group)[..rest.len()]);
        } else {
            out.extend(rest.iter().map($one));
        }
        out
    }};
}

/// [`ecdsa_verify8`] on `engine` over all items, a remainder of `min_padded` or more items as
/// one padded group (see `verify_many_in_eights!`).
pub(crate) fn ecdsa_verify_many_lanes<F: EcmultField>(
    engine: Engine<'_>,
    min_padded: usize,
    items: &[EcdsaItem<'_>],
) -> Vec<bool> {
    // Idle lanes get r = 0, which leaves them out of the eight-way work.
    let idle = Signature { r: Scalar::ZERO, s: Scalar::ZERO };
    let Some(&(pk, msg, _)) = items.first() else { return Vec::new() };
    verify_many_in_eights!(items, min_padded, (pk, msg, &idle), |g| ecdsa_verify8::<F>(engine, g), |&(
        pk,
        msg32,
        sig,
    )| {
        ecdsa::verify_generic::<F>(&Ge::from_portable(&pk.0), msg32, sig)
    })
}

/// [`schnorr_verify8`] on `engine` over all items (as [`ecdsa_verify_many_lanes`]).
pub(crate) fn schnorr_verify_many_lanes<F: EcmultField>(
    engine: Engine<'_>,
    min_padded: usize,
    items: &[SchnorrItem<'_>],
) -> Vec<bool> {
    // Idle lanes get an R above p, which leaves them out of the eight-way work.
    const IDLE: [u8; 64] = [0xff; 64];
    let Some(&(pk, msg, _)) = items.first() else { return Vec::new() };
    verify_many_in_eights!(items, min_padded, (pk, msg, &IDLE), |g| schnorr_verify8::<F>(engine, g), |&(
        pk,
        msg,
        sig,
    )| {
        schnorr::verify_generic::<F>(&Ge::from_portable(&pk.0), &pk.serialize(), msg, sig)
    })
}

/// Verifies every item on `backend` and returns one answer per item, in order; each equals
/// [`verify_with`](crate::secp256k1::ecdsa::verify_with) on the same arguments.
///
/// On an Ifma token the items are verified eight at a time, one per lane of the AVX-512
/// registers, and on an Avx2 token eight at a time in pairs of AVX2 registers (a remainder of
/// three to seven items, six or seven on Avx2, runs as one group with idle lanes, a smaller
/// one item by item on the best scalar field); on other backends this is a loop over
/// [`verify_with`](crate::secp256k1::ecdsa::verify_with).
///
/// ```
/// use fullverify::secp256k1::{ecdsa, PublicKey};
/// use fullverify::Backend;
///
/// let keys: Vec<_> = (1..=10u8).map(|i| PublicKey::from_secret(&[i; 32]).unwrap()).collect();
/// let msgs: Vec<[u8; 32]> = (1..=10u8).map(|i| [i ^ 0x55; 32]).collect();
/// let sigs: Vec<_> = (1..=10u8).map(|i| ecdsa::sign(&[i; 32], &msgs[i as usize - 1])).collect();
/// let mut items: Vec<ecdsa::VerifyItem> = (0..10).map(|i| (&keys[i], &msgs[i], &sigs[i])).collect();
/// items[9].0 = &keys[0];
/// let ok = ecdsa::verify_many(Backend::detect(), &items);
/// assert_eq!(ok, [true, true, true, true, true, true, true, true, true, false]);
/// ```
pub fn ecdsa_verify_many(backend: Backend, items: &[ecdsa::VerifyItem<'_>]) -> Vec<bool> {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        crate::backend::BackendKind::Ifma => {
            // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
            // avx512vl. The closure is made here only, behind that token.
            let engine = |inp: &[Ecmult8Input; 8]| unsafe { ecmult8_ifma(inp) };
            with_field!(backend, F => ecdsa_verify_many_lanes::<F>(&engine, MIN_PADDED_IFMA, items))
        }
        #[cfg(target_arch = "x86_64")]
        crate::backend::BackendKind::Avx2 => {
            // SAFETY: an Avx2 token exists only when `Cpu::get()` saw avx2 (and bmi2, adx).
            // The closure is made here only, behind that token.
            let engine = |inp: &[Ecmult8Input; 8]| unsafe { ecmult8_avx2(inp) };
            with_field!(backend, F => ecdsa_verify_many_lanes::<F>(&engine, MIN_PADDED_AVX2, items))
        }
        _ => items.iter().map(|&(pk, m, s)| ecdsa::verify_with(backend, pk, m, s)).collect(),
    }
}

/// Verifies every item on `backend` and returns one answer per item, in order; each equals
/// [`verify_with`](crate::secp256k1::schnorr::verify_with) on the same arguments.
///
/// On an Ifma token the items are verified eight at a time, one per lane of the AVX-512
/// registers, and on an Avx2 token eight at a time in pairs of AVX2 registers (a remainder of
/// three to seven items, six or seven on Avx2, runs as one group with idle lanes, a smaller
/// one item by item on the best scalar field); on other backends this is a loop over
/// [`verify_with`](crate::secp256k1::schnorr::verify_with).
///
/// ```
/// use fullverify::secp256k1::{schnorr, PublicKey};
/// use fullverify::Backend;
///
/// let keys: Vec<_> = (1..=10u8).map(|i| PublicKey::from_secret(&[i; 32]).unwrap().x_only().0).collect();
/// let sigs: Vec<_> = (1..=10u8).map(|i| schnorr::sign(&[i; 32], b"m", &[0; 32])).collect();
/// let mut items: Vec<schnorr::VerifyItem> = keys.iter().zip(&sigs).map(|(k, s)| (k, &b"m"[..], s)).collect();
/// items[3].1 = b"another";
/// let ok = schnorr::verify_many(Backend::detect(), &items);
/// assert_eq!(ok.iter().filter(|&&b| b).count(), 9);
/// assert!(!ok[3]);
/// ```
pub fn schnorr_verify_many(backend: Backend, items: &[schnorr::VerifyItem<'_>]) -> Vec<bool> {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        crate::backend::BackendKind::Ifma => {
            // SAFETY: as in `ecdsa_verify_many`.
            let engine = |inp: &[Ecmult8Input; 8]| unsafe { ecmult8_ifma(inp) };
            with_field!(backend, F => schnorr_verify_many_lanes::<F>(&engine, MIN_PADDED_IFMA, items))
        }
        #[cfg(target_arch = "x86_64")]
        crate::backend::BackendKind::Avx2 => {
            // SAFETY: as in `ecdsa_verify_many`.
            let engine = |inp: &[Ecmult8Input; 8]| unsafe { ecmult8_avx2(inp) };
            with_field!(backend, F => schnorr_verify_many_lanes::<F>(&engine, MIN_PADDED_AVX2, items))
        }
        _ => items.iter().map(|&(pk, m, s)| schnorr::verify_with(backend, pk, m, s)).collect(),
    }
}
