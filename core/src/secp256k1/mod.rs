// SPDX-License-Identifier: MIT OR Apache-2.0
//! secp256k1: y² = x³ + 7 over GF(p), p = 2^256 − 2^32 − 977, group order n (prime).
//!
//! Public surface:
//! - [`ecdsa`] — Bitcoin Core verification semantics, strict and lax DER, RFC 6979 signing;
//! - [`schnorr`] — BIP340 verification and signing;
//! - [`PublicKey`], [`XOnlyPublicKey`] — key parsing and serialization, the BIP341 tweak;
//! - [`arith`] — field, scalar and point arithmetic for exploration and tests (always on
//!   the Portable backend);
//! - [`msm`] — multi-scalar multiplication (Strauss and Pippenger) with operation counts.
//!
//! Inside the crate the layers are (each uses only those above it): `field` — GF(p), the
//! `FieldOps` kernel contract that each backend implements (mul, sqr, add, negate,
//! normalize) and the derived ops written once (addition-chain inverse, safegcd inverse,
//! sqrt, batch inverse); `scalar` — integers mod n and the GLV split; `group` — affine and
//! Jacobian points; `ecmult` — u1·G + u2·Q by GLV + wNAF Strauss; `ecmult_gen` — constant-time
//! k·G for signing; then the signature schemes.
//!
//! Backends: the group, ecmult and verification code is generic over `FieldOps` and
//! monomorphised per backend: `Fe5x52` (Portable, every target) and `Fe4x64Asm` (Asm:
//! MULX/ADCX/ADOX, x86-64 with BMI2+ADX). Both and every generic function over them are private
//! to the crate. An entry point picks one from the [`Backend`](crate::Backend) token it is
//! given (the `_with` variants) or from [`Backend::detect`](crate::Backend::detect), once per
//! call, through one dispatch macro,
//! `with_field!`. Public key, point and field-element types store the portable form; signing
//! always runs the constant-time portable path.
//!
//! Keys: [`PublicKey::parse`] follows libsecp256k1 (33-byte compressed, 65-byte uncompressed,
//! hybrid 0x06/0x07 with the parity check); [`XOnlyPublicKey`] is BIP340's lift_x (even y).
//! Decompression (a square root) runs on the caller's backend.

/// Runs `$body` with the type alias `$F` naming the field kernels of the [`Backend`] token
/// `$backend`: the one dispatch from a token to a monomorphised code path. Evaluates to
/// `$body`'s value; a `?` or `return` in `$body` leaves the enclosing function.
///
/// The Asm arm is the only place the crate instantiates code with `Fe4x64Asm`, whose kernels
/// need BMI2+ADX. It is reached for a token of kind Asm, issued only after the CPU check, and
/// for a token of kind Ifma or Avx2 when `Cpu::get()` also saw BMI2+ADX (and the build allows
/// Asm; an Avx2 token implies BMI2+ADX): the eight-lane backends' own kernels are eight-lane,
/// so their scalar work runs on the best scalar field.
macro_rules! with_field {
    ($backend:expr, $F:ident => $body:expr) => {
        match $crate::backend::Backend::kind($backend) {
            #[cfg(target_arch = "x86_64")]
            $crate::backend::BackendKind::Asm => {
                type $F = $crate::backend::x86_64_asm::field::Fe4x64Asm;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            $crate::backend::BackendKind::Ifma | $crate::backend::BackendKind::Avx2
                if !cfg!(feature = "no_asm") && $crate::backend::Cpu::get().bmi2_adx =>
            {
                type $F = $crate::backend::x86_64_asm::field::Fe4x64Asm;
                $body
            }
            _ => {
                type $F = $crate::backend::portable::field::Fe5x52;
                $body
            }
        }
    };
}

pub mod arith;
pub mod ecdsa;
pub(crate) mod ecmult;
pub(crate) mod ecmult_gen;
mod error;
pub(crate) mod field;
pub(crate) mod group;
mod keys;
mod lift;
// Off x86-64 the eight-way code runs only in tests (on the portable lane model).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod many;
pub(crate) mod modinv;
pub mod msm;
pub(crate) mod point;
pub(crate) mod scalar;
pub mod schnorr;
#[cfg(test)]
mod tests;

pub use error::Error;
pub use keys::{secret_tweak_add_xonly, tweak_add_check, PublicKey, XOnlyPublicKey};
/// Integers mod n (also in [`arith`]); ECDSA signatures hold two of them.
pub use scalar::Scalar;
