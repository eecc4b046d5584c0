// SPDX-License-Identifier: MIT OR Apache-2.0
//! From an x-coordinate to a curve point: the square root of x³ + 7 with the wanted parity of
//! y, which parsing a compressed or x-only key needs (BIP340's `lift_x`), one at a time on the
//! caller's backend or eight at a time on the AVX-512 or AVX2 lanes.

use super::error::Error;
use super::field::FieldOps;
use super::group::Ge;
use super::many::Fe8;
use crate::backend::portable::field::Fe5x52;
use crate::backend::Backend;

/// The point with x-coordinate `x` (big-endian) and the given y parity, in portable form: the
/// square root that parsing a compressed or x-only key needs, computed on `backend` (it is
/// most of the parsing cost, and every compressed key of a block is parsed once per input).
pub(crate) fn decompress(backend: Backend, x: &[u8; 32], odd: bool) -> Result<Ge<Fe5x52>, Error> {
    with_field!(backend, F => {
        let xf = F::from_be_bytes(x).ok_or(Error::FieldOverflow)?;
        Ge::<F>::from_x(&xf, odd).map(|p| p.to_portable()).ok_or(Error::NotOnCurve)
    })
}

/// [`decompress`] of an x already below p.
pub(crate) fn decompress_x(backend: Backend, x: &Fe5x52, odd: bool) -> Option<Ge<Fe5x52>> {
    decompress(backend, &x.to_be_bytes(), odd).ok()
}

/// Eight curve points from their x coordinates (canonical, below p) and the wanted parity of
/// y: the square roots of x³ + 7 on all lanes of the eight-lane field `V` at once; `None`
/// where x³ + 7 is not a square.
/// Identical to `Ge::from_x` on each lane.
// Off x86-64 the eight-lane path runs only in tests (on the portable lane model).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn from_x8<V: Fe8>(xs: &[Fe5x52; 8], odd: [bool; 8]) -> [Option<Ge<Fe5x52>>; 8] {
    let c: [Fe5x52; 8] =
        core::array::from_fn(|i| xs[i].sqr().mul(&xs[i]).add(&Fe5x52::from_u64x4([7, 0, 0, 0])).normalize());
    let r = V::from_lanes(&c).pow_p1_4().to_lanes();
    core::array::from_fn(|i| {
        if !r[i].sqr().eq_var(&c[i]) {
            return None;
        }
        let y = r[i].normalize();
        let y = if y.is_odd() != odd[i] { y.negate(1).normalize() } else { y };
        Some(Ge { x: xs[i].normalize(), y, infinity: false })
    })
}

/// On the IFMA lanes a remainder of at least this many keys (of 1…7) is lifted as one padded
/// group of eight: a group's square roots cost about two scalar ones (`ifmabench`: squaring
/// 28 ns per step of eight lanes against 15 ns for one on the Asm field).
// Used by the x86_64 registers and by the lane-model tests on every target.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const MIN_PADDED_LIFT_IFMA: usize = 3;

/// The same on the AVX2 lanes, where a group costs about six scalar square roots (93 ns per
/// step of eight).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const MIN_PADDED_LIFT_AVX2: usize = 7;

/// [`from_x8`] over every item: groups of eight on the lanes; a remainder of at least
/// `min_padded` items as one group padded with copies of its first item, a smaller one
/// through `one` (the token's scalar field: on an Ifma or Avx2 token the Asm field where the
/// CPU has it, not the portable one).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn from_x_many_lanes<V: Fe8>(
    min_padded: usize,
    one: &dyn Fn(&Fe5x52, bool) -> Option<Ge<Fe5x52>>,
    items: &[(Fe5x52, bool)],
) -> Vec<Option<Ge<Fe5x52>>> {
    let mut out = Vec::with_capacity(items.len());
    let full = items.len() / 8 * 8;
    let rest = &items[full..];
    let padded = !rest.is_empty() && rest.len() >= min_padded;
    // One call site of the (inlined) eight-lane lift: the last group is the padded remainder.
    for start in (0..full + if padded { 8 } else { 0 }).step_by(8) {
        let item = |i: usize| items.get(start + i).unwrap_or(&items[start]);
        let xs = core::array::from_fn(|i| item(i).0);
        let odd = core::array::from_fn(|i| item(i).1);
        let n = (items.len() - start).min(8);
        out.extend_from_slice(&from_x8::<V>(&xs, odd)[..n]);
    }
    if !padded {
        out.extend(rest.iter().map(|(x, odd)| one(x, *odd)));
    }
    out
}

/// [`from_x_many_lanes`] on AVX-512 registers.
///
/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn from_x_many_ifma(
    one: &dyn Fn(&Fe5x52, bool) -> Option<Ge<Fe5x52>>,
    items: &[(Fe5x52, bool)],
) -> Vec<Option<Ge<Fe5x52>>> {
    from_x_many_lanes::<crate::backend::ifma::field::Fe5x52x8<crate::backend::ifma::lanes::Ifma>>(
        MIN_PADDED_LIFT_IFMA,
        one,
        items,
    )
}

/// [`from_x_many_lanes`] on AVX2 registers.
///
/// # Safety
/// The CPU must have AVX2, BMI2 and ADX (an Avx2 token).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2,adx")]
unsafe fn from_x_many_avx2(
    one: &dyn Fn(&Fe5x52, bool) -> Option<Ge<Fe5x52>>,
    items: &[(Fe5x52, bool)],
) -> Vec<Option<Ge<Fe5x52>>> {
    from_x_many_lanes::<crate::backend::avx2::field::Fe10x26x8<crate::backend::avx2::lanes::Avx2>>(
        MIN_PADDED_LIFT_AVX2,
        one,
        items,
    )
}

/// Points from (x, parity of y) for many items: eight lanes at a time on an Ifma or Avx2 token,
/// one by one with the token's field otherwise. Each answer equals `Ge::from_x` on its item.
pub(crate) fn from_x_many(backend: Backend, items: &[(Fe5x52, bool)]) -> Vec<Option<Ge<Fe5x52>>> {
    let one = |x: &Fe5x52, odd: bool| decompress_x(backend, x, odd);
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
        // avx512vl.
        crate::backend::BackendKind::Ifma => unsafe { from_x_many_ifma(&one, items) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Avx2 token exists only when `Cpu::get()` saw avx2 (and bmi2, adx).
        crate::backend::BackendKind::Avx2 => unsafe { from_x_many_avx2(&one, items) },
        _ => items.iter().map(|(x, odd)| one(x, *odd)).collect(),
    }
}
