// SPDX-License-Identifier: MIT OR Apache-2.0
//! BIP340 Schnorr signatures.
//!
//! Verification of (r, s) on message m under x-only key P (lifted with even y):
//! fail if r ≥ p or s ≥ n; e = H_challenge(r ‖ x(P) ‖ m) mod n; R = s·G − e·P;
//! fail if R = ∞, x(R) ≠ r, or y(R) odd. x(R) = r is checked projectively (r·Z² = X) first,
//! so a wrong signature costs no inversion; the even-y test then needs one variable-time
//! inversion of Z.
//!
//! Signing (BIP340 default scheme): d = ±sk so that d·G has even y; t = d ⊕ H_aux(aux);
//! k' = H_nonce(t ‖ x(P) ‖ m) mod n; k = ±k' so that R = k·G has even y;
//! sig = x(R) ‖ (k + e·d mod n). The secret path is constant time.
//!
//! Batch verification ([`verify_batch`], [`find_invalid`]) checks many signatures with one
//! multi-scalar multiplication; it is written in its own file (`batch.rs`) and re-exported here.

mod batch;
mod sign;
pub(crate) mod verify;

pub use batch::{
    find_invalid, find_invalid_with, verify_batch, verify_batch_with, verify_batch_with_algorithm,
    verify_batch_with_stats, BatchItem, FIND_INVALID_LEAF,
};
pub use sign::{sign, try_sign};
pub use verify::{verify, verify_with, VerifyItem};
// Eight at a time on the AVX-512 lanes: the eight-way code builds on the single verification.
pub use super::many::schnorr_verify_many as verify_many;
