// SPDX-License-Identifier: MIT OR Apache-2.0
//! `Fe4x64Asm`: GF(p) as four 64-bit limbs, any value < 2^256 (weakly reduced: it may be ≥ p).
//!
//! p = 2^256 − C with C = 2^32 + 977, so 2^256 ≡ C: a carry out of bit 256 folds back as "+C",
//! and "subtract p" is "add C, drop bit 256".
//!
//! `mul`/`sqr` are inline assembly: the 512-bit product is formed in eight registers with
//! MULX and two independent carry chains (ADCX on CF, ADOX on OF); squaring computes the six
//! cross products once, doubles them and adds the four squares (10 multiplications). The high
//! half is folded as hi·C (< 2^290), the top word once more (< 2^67), and a last carry adds C.
//! Every other operation is the portable 4×64 limb code (`backend::portable::field4x64`).
//! Magnitude arguments of the shared [`FieldOps`](crate::secp256k1::field::FieldOps) contract
//! are ignored: every output is < 2^256.
//!
//! **Who may call these kernels.** `mul`/`sqr` are safe functions over MULX/ADCX/ADOX, which
//! only BMI2+ADX CPUs have. That is sound because `Fe4x64Asm` is private to the crate and the
//! crate instantiates code with it only in the Asm arm of `with_field!`
//! (`crate::secp256k1`), which runs only for a [`Backend`](crate::Backend) token of kind Asm;
//! such a token exists only when `Cpu::get()` saw both features (and the build allows Asm).
//! Crate-internal tests reach it only after obtaining such a token.

use core::arch::asm;

/// The reduction both `mul` and `sqr` end with, as one asm template: the 512-bit product in
/// r8..r15 folded to a value below 2^256 in r8..r11 (clobbers rax, rcx, rdx, r12, r13).
macro_rules! fold_512 {
    () => {
        concat!(
            // Fold: [r8..r11] + [r12..r15]·C < 2^290; top word in r12 (< 2^34).
            "mov rdx, 0x1000003D1\n",
            "xor eax, eax\n",
            "mulx rcx, rax, r12\n",
            "adcx r8, rax\n",
            "adox r9, rcx\n",
            "mulx rcx, rax, r13\n",
            "adcx r9, rax\n",
            "adox r10, rcx\n",
            "mulx rcx, rax, r14\n",
            "adcx r10, rax\n",
            "adox r11, rcx\n",
            "mulx r12, rax, r15\n",
            "adcx r11, rax\n",
            "mov eax, 0\n",
            "adox r12, rax\n",
            "adcx r12, rax\n",
            // Fold the top word: top·C < 2^67.
            "mulx r13, rax, r12\n",
            "add r8, rax\n",
            "adc r9, r13\n",
            "adc r10, 0\n",
            "adc r11, 0\n",
            // A carry out leaves a value < 2^67: add C once, no further carry.
            "sbb rax, rax\n",
            "and rax, rdx\n",
            "add r8, rax\n",
            "adc r9, 0\n",
            "adc r10, 0\n",
            "adc r11, 0\n",
        )
    };
}

/// `asm!` over a 512-bit product's template (leaving it in r8..r15), then [`fold_512!`], the
/// product's input operands, and what both kernels share: the result in r8..r11 as the four
/// outputs, the clobbered registers and the options. Expands to the `asm!` call; the caller
/// wraps it in `unsafe` with its own `SAFETY` note.
macro_rules! product_then_fold {
    (($r0:ident, $r1:ident, $r2:ident, $r3:ident), [$($template:literal,)*], $($input:tt)*) => {
        asm!(
            $($template,)*
            fold_512!(),
            $($input)*
            out("r8") $r0, out("r9") $r1, out("r10") $r2, out("r11") $r3,
            out("r12") _, out("r13") _, out("r14") _, out("r15") _,
            out("rax") _, out("rcx") _, out("rdx") _,
            options(pure, readonly, nostack),
        )
    };
}

/// A field element in 4×64 representation (value < 2^256, maybe ≥ p).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fe4x64Asm(pub(crate) [u64; 4]);

impl Fe4x64Asm {
    pub(crate) const ZERO: Fe4x64Asm = Fe4x64Asm([0; 4]);
    pub(crate) const ONE: Fe4x64Asm = Fe4x64Asm([1, 0, 0, 0]);

    /// a·b mod p (result < 2^256).
    #[inline(always)]
    pub(crate) fn mul(&self, b: &Fe4x64Asm) -> Fe4x64Asm {
        let (r0, r1, r2, r3);
        // SAFETY: reads 32 bytes through each of the two valid pointers; writes only the
        // declared registers. Needs BMI2+ADX: this code is reached only through an Asm
        // `Backend` token, which exists only on a CPU with both (see the module docs).
        unsafe {
            product_then_fold!(
                (r0, r1, r2, r3),
                [
                // Row 0: t0..t4 = a0·b.
                "mov rdx, qword ptr [rsi]",
                "mulx r9, r8, qword ptr [rdi]",
                "mulx r10, rax, qword ptr [rdi + 8]",
                "add r9, rax",
                "mulx r11, rax, qword ptr [rdi + 16]",
                "adc r10, rax",
                "mulx r12, rax, qword ptr [rdi + 24]",
                "adc r11, rax",
                "adc r12, 0",
                // Row 1: t1..t5 += a1·b (low halves on CF, high halves on OF).
                "mov rdx, qword ptr [rsi + 8]",
                "xor eax, eax",
                "mulx rcx, rax, qword ptr [rdi]",
                "adcx r9, rax",
                "adox r10, rcx",
                "mulx rcx, rax, qword ptr [rdi + 8]",
                "adcx r10, rax",
                "adox r11, rcx",
                "mulx rcx, rax, qword ptr [rdi + 16]",
                "adcx r11, rax",
                "adox r12, rcx",
                "mulx r13, rax, qword ptr [rdi + 24]",
                "adcx r12, rax",
                "mov eax, 0",
                "adox r13, rax",
                "adcx r13, rax",
                // Row 2: t2..t6 += a2·b.
                "mov rdx, qword ptr [rsi + 16]",
                "xor eax, eax",
                "mulx rcx, rax, qword ptr [rdi]",
                "adcx r10, rax",
                "adox r11, rcx",
                "mulx rcx, rax, qword ptr [rdi + 8]",
                "adcx r11, rax",
                "adox r12, rcx",
                "mulx rcx, rax, qword ptr [rdi + 16]",
                "adcx r12, rax",
                "adox r13, rcx",
                "mulx r14, rax, qword ptr [rdi + 24]",
                "adcx r13, rax",
                "mov eax, 0",
                "adox r14, rax",
                "adcx r14, rax",
                // Row 3: t3..t7 += a3·b.
                "mov rdx, qword ptr [rsi + 24]",
                "xor eax, eax",
                "mulx rcx, rax, qword ptr [rdi]",
                "adcx r11, rax",
                "adox r12, rcx",
                "mulx rcx, rax, qword ptr [rdi + 8]",
                "adcx r12, rax",
                "adox r13, rcx",
                "mulx rcx, rax, qword ptr [rdi + 16]",
                "adcx r13, rax",
                "adox r14, rcx",
                "mulx r15, rax, qword ptr [rdi + 24]",
                "adcx r14, rax",
                "mov eax, 0",
                "adox r15, rax",
                "adcx r15, rax",
                ],
                in("rsi") self.0.as_ptr(),
                in("rdi") b.0.as_ptr(),
            );
        }
        Fe4x64Asm([r0, r1, r2, r3])
    }

    /// a² mod p with 10 multiplications (result < 2^256).
    #[inline(always)]
    pub(crate) fn sqr(&self) -> Fe4x64Asm {
        let (r0, r1, r2, r3);
        // SAFETY: reads 32 bytes through one valid pointer; writes only the declared
        // registers. Needs BMI2+ADX: this code is reached only through an Asm `Backend`
        // token, which exists only on a CPU with both (see the module docs).
        unsafe {
            product_then_fold!(
                (r0, r1, r2, r3),
                [
                // Cross products a_i·a_j (i < j) into t1..t6 = r9..r14.
                "mov rdx, qword ptr [rsi]",
                "mulx r10, r9, qword ptr [rsi + 8]",
                "mulx r11, rax, qword ptr [rsi + 16]",
                "add r10, rax",
                "mulx r12, rax, qword ptr [rsi + 24]",
                "adc r11, rax",
                "adc r12, 0",
                "mov rdx, qword ptr [rsi + 8]",
                "xor r13d, r13d",
                "mulx rcx, rax, qword ptr [rsi + 16]",
                "adcx r11, rax",
                "adox r12, rcx",
                "mulx rcx, rax, qword ptr [rsi + 24]",
                "adcx r12, rax",
                "adox r13, rcx",
                "mov rdx, qword ptr [rsi + 16]",
                "mulx r14, rax, qword ptr [rsi + 24]",
                "adcx r13, rax",
                "mov eax, 0",
                "adox r14, rax",
                "adcx r14, rax",
                // Double them into t1..t7.
                "xor r15d, r15d",
                "add r9, r9",
                "adc r10, r10",
                "adc r11, r11",
                "adc r12, r12",
                "adc r13, r13",
                "adc r14, r14",
                "adc r15, r15",
                // Add the squares a_i² at t_{2i}.
                "mov rdx, qword ptr [rsi]",
                "mulx rcx, r8, rdx",
                "add r9, rcx",
                "mov rdx, qword ptr [rsi + 8]",
                "mulx rcx, rax, rdx",
                "adc r10, rax",
                "adc r11, rcx",
                "mov rdx, qword ptr [rsi + 16]",
                "mulx rcx, rax, rdx",
                "adc r12, rax",
                "adc r13, rcx",
                "mov rdx, qword ptr [rsi + 24]",
                "mulx rcx, rax, rdx",
                "adc r14, rax",
                "adc r15, rcx",
                ],
                in("rsi") self.0.as_ptr(),
            );
        }
        Fe4x64Asm([r0, r1, r2, r3])
    }
}

// MULX/ADX `mul`/`sqr` above, the shared 4×64 limb code for the rest.
crate::backend::portable::field4x64::impl_field_ops_4x64!(Fe4x64Asm);
