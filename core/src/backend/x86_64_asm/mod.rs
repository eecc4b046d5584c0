// SPDX-License-Identifier: MIT OR Apache-2.0
//! x86-64 kernels in `core::arch::asm!` using MULX (BMI2) and ADCX/ADOX (ADX). Only reached
//! through dispatch after `Backend::Asm.is_supported()` saw both features.

pub mod field;
