// SPDX-License-Identifier: MIT OR Apache-2.0
//! AVX-512 IFMA kernels: eight independent 52-bit-limb computations per instruction.
//!
//! - [`lanes`]: the lane abstraction, one method per AVX-512 instruction, with the portable
//!   `[u64; 8]` model `Emulated` (every target) and the register type `Ifma` (x86-64);
//! - [`field`]: `Fe5x52x8`, eight elements of GF(p) in 5×52-bit limbs;
//! - [`num3072`]: MuHash's 3072-bit multiplication modulo 2^3072 − 1103717 in 52-bit limbs.
//!
//! The kernels are written once, generic over the lane type, so the tests run the very
//! code that runs on IFMA hardware through the model on every machine. On a CPU without IFMA
//! the model is a correctness tool, not a speed path: nothing selects it outside tests.
//! Private to the crate: the public entry points (`ecdsa::verify_many`,
//! `schnorr::verify_many`, MuHash) reach the `Ifma` lane type only through an Ifma
//! [`Backend`](crate::Backend) token, inside `#[target_feature]` functions.

pub(crate) mod field;
pub(crate) mod lanes;
pub(crate) mod num3072;
#[cfg(test)]
mod tests;
