// SPDX-License-Identifier: MIT OR Apache-2.0
//! x86-64 kernels in `core::arch::asm!` using MULX (BMI2) and ADCX/ADOX (ADX). Private to the
//! crate: reached only through dispatch on a [`Backend`](crate::Backend) token of kind Asm,
//! which exists only when the CPU has both features.

pub(crate) mod field;
pub(crate) mod num3072;
