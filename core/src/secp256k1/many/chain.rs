// SPDX-License-Identifier: MIT OR Apache-2.0
//! Chains of one eight-lane field operation, for measuring the lanes against the scalar field
//! (`arith::field_chain_x8_with`).

use super::fe8::Fe8;
use crate::backend::ifma::field::Fe5x52x8;
use crate::backend::Backend;
use crate::secp256k1::field::batch_inv_var;

/// Per-lane inverse (0 ↦ 0) through the scalar field: one safegcd inversion and 24
/// multiplications (Montgomery's trick over the eight lanes). Variable time.
#[inline(always)]
pub(crate) fn inv_lanes_var<V: Fe8>(x: &V) -> V {
    let mut v = x.to_lanes();
    batch_inv_var(&mut v);
    V::from_lanes(&v)
}

/// [`field_chain_x8_with`] on the eight-lane field `V` (inlined into each register type's
/// `#[target_feature]` function).
#[inline(always)]
fn field_chain_x8_lanes<V: Fe8>(
    kernel: crate::secp256k1::field::FieldKernel,
    a: &[crate::secp256k1::field::FieldElement; 8],
    b: &[crate::secp256k1::field::FieldElement; 8],
    n: usize,
) -> [crate::secp256k1::field::FieldElement; 8] {
    use crate::secp256k1::field::FieldKernel;
    let mut x = V::from_lanes(&core::array::from_fn(|i| a[i].0));
    let y = V::from_lanes(&core::array::from_fn(|i| b[i].0));
    // Plain loops, not closures, keep the kernels inside the caller's target features.
    for _ in 0..n {
        x = match kernel {
            FieldKernel::Mul => x.mul(&y),
            FieldKernel::Sqr => x.sqr(),
            FieldKernel::Inv => x.inv(),
            FieldKernel::InvVartime => inv_lanes_var(&x),
        };
    }
    let out = x.normalize().to_lanes();
    core::array::from_fn(|i| crate::secp256k1::field::FieldElement(out[i]))
}

/// [`field_chain_x8_lanes`] on AVX-512 IFMA registers.
///
/// # Safety
/// The CPU must have AVX-512 F, IFMA and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
unsafe fn field_chain_x8_ifma(
    kernel: crate::secp256k1::field::FieldKernel,
    a: &[crate::secp256k1::field::FieldElement; 8],
    b: &[crate::secp256k1::field::FieldElement; 8],
    n: usize,
) -> [crate::secp256k1::field::FieldElement; 8] {
    field_chain_x8_lanes::<Fe5x52x8<crate::backend::ifma::lanes::Ifma>>(kernel, a, b, n)
}

/// [`field_chain_x8_lanes`] on pairs of AVX2 registers (`Fe10x26x8`).
///
/// # Safety
/// The CPU must have AVX2, BMI2 and ADX (an Avx2 token).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2,adx")]
unsafe fn field_chain_x8_avx2(
    kernel: crate::secp256k1::field::FieldKernel,
    a: &[crate::secp256k1::field::FieldElement; 8],
    b: &[crate::secp256k1::field::FieldElement; 8],
    n: usize,
) -> [crate::secp256k1::field::FieldElement; 8] {
    use crate::backend::avx2::{field::Fe10x26x8, lanes::Avx2};
    field_chain_x8_lanes::<Fe10x26x8<Avx2>>(kernel, a, b, n)
}

/// [`field_chain_with`](crate::secp256k1::field::field_chain_with) on eight lanes at once: lane i starts
/// from `a[i]` and applies `kernel` `n` times (with `b[i]` the other factor of `Mul`), on the
/// eight-lane field of the token. `Inv` is the addition chain on all lanes, `InvVartime` one
/// scalar safegcd inversion shared by the lanes (Montgomery's trick).
///
/// An Ifma token runs the AVX-512 IFMA kernels (`Fe5x52x8`), an Avx2 token the AVX2 kernels
/// (`Fe10x26x8`, two registers per limb); any other token runs `Fe5x52x8` on the portable
/// eight-lane model, which checks correctness and is slow by design.
///
/// ```
/// use fullverify::secp256k1::arith::{field_chain_x8_with, FieldElement, FieldKernel};
/// use fullverify::Backend;
///
/// let a: [FieldElement; 8] = core::array::from_fn(|i| FieldElement::from_u64(i as u64 + 2));
/// let b = [FieldElement::from_u64(3); 8];
/// for backend in Backend::available() {
///     let r = field_chain_x8_with(backend, FieldKernel::Mul, &a, &b, 2);
///     assert_eq!(r[5], FieldElement::from_u64(7 * 9));
/// }
/// ```
pub fn field_chain_x8_with(
    backend: Backend,
    kernel: crate::secp256k1::field::FieldKernel,
    a: &[crate::secp256k1::field::FieldElement; 8],
    b: &[crate::secp256k1::field::FieldElement; 8],
    n: usize,
) -> [crate::secp256k1::field::FieldElement; 8] {
    match backend.kind() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma and
        // avx512vl.
        crate::backend::BackendKind::Ifma => unsafe { field_chain_x8_ifma(kernel, a, b, n) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an Avx2 token exists only when `Cpu::get()` saw avx2 (and bmi2, adx).
        crate::backend::BackendKind::Avx2 => unsafe { field_chain_x8_avx2(kernel, a, b, n) },
        _ => field_chain_x8_lanes::<Fe5x52x8<crate::backend::ifma::lanes::Emulated>>(kernel, a, b, n),
    }
}
