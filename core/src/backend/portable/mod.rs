// SPDX-License-Identifier: MIT OR Apache-2.0
//! Portable kernels: pure Rust with `u128` products, valid on every target including wasm32.

pub mod field;
pub mod field4x64;
