// SPDX-License-Identifier: MIT OR Apache-2.0
//! Eight-way verification: eight independent ECDSA or BIP340 verifications side by side, one
//! per lane of an eight-lane field ([`Fe8`]: `Fe5x52x8`, the IFMA backend's, or `Fe10x26x8`,
//! the AVX2 backend's), generic over the field and its lane type so that the same code runs on
//! AVX-512 IFMA registers, on pairs of AVX2 registers and on the portable `[u64; 8]` models.
//!
//! Per lane the work is that of `ecmult`: R = na·A + ng·G with na = k1 + λ·k2 (GLV) and
//! ng = g_lo + 2^128·g_hi. Scalar work (inverse of s, the challenge hash, the GLV split and
//! the digit recoding) stays scalar, lane by lane. The point arithmetic runs eight-wide, which
//! asks for the same instruction stream in every lane, so the digits are *signed fixed
//! windows* rather than wNAF: every scalar is written as Σ d_j·2^(wj) with
//! d_j ∈ [−2^(w−1), 2^(w−1)), and all lanes add at the same bit positions; a lane whose digit
//! is zero keeps its value through a blend. A uses w = [`WA`] (tables of 1…16 times A and λA,
//! 26 windows per 128-bit half), G uses w = [`WG`] (two static tables of 1…2048 times G and
//! 2^128·G, 11 windows per half): 125 doublings and 74 additions per batch of eight.
//!
//! The table of A is built without inversion on the curve isomorphic to E in which its last
//! entry is affine ("global Z", as in `ecmult`): the accumulator lives in that frame, G's
//! points enter with Z = 1/Z_global, and the final Z is multiplied by Z_global.
//!
//! Exceptional cases are not handled eight-wide. An addition of two equal or opposite points
//! (H = 0) makes Z zero, and Z stays zero through every later formula; a lane whose final Z is
//! zero, whose result is infinity, or whose GLV split fell back, is verified again by the
//! scalar code, so every answer is exactly the scalar verifier's. All of this is variable
//! time: verification inputs are public.

mod chain;
mod ecmult8;
mod fe8;
#[cfg(test)]
mod tests;
mod verify;

pub use chain::field_chain_x8_with;
#[cfg(test)]
pub(crate) use chain::inv_lanes_var;
pub(crate) use fe8::Fe8;
pub use verify::{ecdsa_verify_many, schnorr_verify_many};
