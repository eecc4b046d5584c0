// SPDX-License-Identifier: MIT OR Apache-2.0
//! AVX2 kernels: eight independent 26-bit-limb computations, four lanes per register and two
//! registers per instruction pair, for CPUs with AVX2 but without AVX-512 IFMA.
//!
//! - [`lanes`]: the lane abstraction, one AVX2 instruction per register for each method, with
//!   the portable `[u64; 8]` model `Emulated` (every target) and the register type `Avx2`
//!   (x86-64);
//! - [`chacha20`]: ChaCha20 on eight block counters or eight keys at once (MuHash's element
//!   expansion);
//! - [`field`]: `Fe10x26x8`, eight elements of GF(p) in ten 26-bit limbs;
//! - [`num3072`]: eight of MuHash's 3072-bit products at once, in 110 limbs of 28 bits.
//!
//! As with the IFMA kernels, the code is written once, generic over the lane type, so the
//! tests run the very code that runs on AVX2 hardware through the model on every machine.
//! Private to the crate: the public entry points (`ecdsa::verify_many`,
//! `schnorr::verify_many`, bulk key parsing) reach the `Avx2` lane type only through an Avx2
//! [`Backend`](crate::Backend) token, inside `#[target_feature]` functions.

#[cfg(target_arch = "x86_64")]
pub(crate) mod chacha20;
pub(crate) mod field;
pub(crate) mod lanes;
pub(crate) mod num3072;
#[cfg(test)]
mod tests;
