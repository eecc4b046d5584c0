// SPDX-License-Identifier: MIT OR Apache-2.0
//! ECDSA over secp256k1 with Bitcoin Core's verification semantics.
//!
//! Verification of (r, s) on message hash z (reduced mod n) under key Q:
//! u1 = z·s⁻¹, u2 = r·s⁻¹, R = u1·G + u2·Q; valid iff R ≠ ∞ and x(R) ≡ r (mod n).
//! Since n < p, x(R) mod n = r means x(R) ∈ {r, r + n} (the latter only when r + n < p); each
//! candidate is compared projectively as c·Z² = X, so no field inversion is needed.
//! s⁻¹ uses the variable-time safegcd inverse (all inputs are public).
//! A high s (> n/2) verifies exactly like n − s (R just changes sign), matching consensus,
//! which normalizes s before verifying.
//!
//! Parsing: [`Signature::from_der`] is libsecp256k1's strict DER parser; [`Signature::from_der_lax`]
//! follows Bitcoin Core's `ecdsa_signature_parse_der_lax` (pubkey.cpp). In both, an integer that
//! does not fit below n yields the all-zero signature, which never verifies.
//!
//! Signing: RFC 6979 nonces (HMAC-SHA256 DRBG over key ‖ (z mod n)), low-S output; the secret
//! path (k·G, k⁻¹, the products with d) is constant time.

mod sign;
pub(crate) mod signature;
pub(crate) mod verify;

pub use sign::{sign, try_sign};
pub use signature::Signature;
pub use verify::{verify, verify_with, VerifyItem};
// Eight at a time on the AVX-512 lanes: the eight-way code builds on the single verification.
pub use super::many::ecdsa_verify_many as verify_many;
