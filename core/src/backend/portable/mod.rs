// SPDX-License-Identifier: MIT OR Apache-2.0
//! Portable kernels: pure Rust with `u128` products, valid on every target including wasm32.
//! Private to the crate; the public arithmetic is `crate::secp256k1::arith`.

pub(crate) mod field;
pub(crate) mod field4x64;
