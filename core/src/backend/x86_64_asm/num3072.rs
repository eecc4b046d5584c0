// SPDX-License-Identifier: MIT OR Apache-2.0
//! The 3072-bit schoolbook product of MuHash3072 (`muhash::Num3072`) with MULX and two carry
//! chains: row by row, each row adds `a_i · b` into the running product, the low halves of the
//! 128-bit products through ADCX (carry flag) and the high halves through ADOX (overflow flag),
//! so the two chains of additions run side by side instead of waiting on one flag.

/// Words of a 3072-bit number.
const WORDS: usize = 48;

/// One row: `t[0..49] += a · b[0..48]`, where `t[48]` is zero on entry.
///
/// Word j of the row is `lo(a·b_j) + hi(a·b_(j−1))`: for each j, MULX gives both halves of
/// `a·b_j` (a in RDX), ADCX adds `t[j]` to the low half on the carry chain, ADOX adds the high
/// half of the previous product on the overflow chain, and the sum goes back to `t[j]`. Two
/// registers take the high halves in turn, so nothing is moved between steps. The last word is
/// the last high half plus both chains' carries; it cannot overflow, because `t[0..48] + a·b` is
/// below 2^(64·49).
///
/// # Safety
/// The CPU must have BMI2 and ADX; `t` must be valid for reading and writing 49 words and `b`
/// for reading 48.
#[inline]
#[target_feature(enable = "bmi2,adx")]
unsafe fn row(t: *mut u64, b: *const u64, a: u64) {
    macro_rules! steps {
        ($(($even:literal, $odd:literal))*) => {
            // SAFETY: the caller promises BMI2 and ADX, 49 writable words at t and 48 readable
            // at b; only the named registers and the flags are changed.
            unsafe {
                core::arch::asm!(
                    // Clears CF and OF, and the previous high half before word 0.
                    "xor {hb:e}, {hb:e}",
                    $(
                        concat!("mulx {ha}, {lo}, qword ptr [{b} + 8*", $even, "]"),
                        concat!("adcx {lo}, qword ptr [{t} + 8*", $even, "]"),
                        "adox {lo}, {hb}",
                        concat!("mov qword ptr [{t} + 8*", $even, "], {lo}"),
                        concat!("mulx {hb}, {lo}, qword ptr [{b} + 8*", $odd, "]"),
                        concat!("adcx {lo}, qword ptr [{t} + 8*", $odd, "]"),
                        "adox {lo}, {ha}",
                        concat!("mov qword ptr [{t} + 8*", $odd, "], {lo}"),
                    )*
                    // MOV leaves the flags alone: the last high half takes both carries.
                    "mov {lo:e}, 0",
                    "adcx {hb}, {lo}",
                    "adox {hb}, {lo}",
                    "mov qword ptr [{t} + 8*48], {hb}",
                    t = in(reg) t,
                    b = in(reg) b,
                    in("rdx") a,
                    lo = out(reg) _,
                    ha = out(reg) _,
                    hb = out(reg) _,
                    options(nostack),
                )
            }
        };
    }
    steps! {
        (0, 1) (2, 3) (4, 5) (6, 7) (8, 9) (10, 11) (12, 13) (14, 15) (16, 17) (18, 19)
        (20, 21) (22, 23) (24, 25) (26, 27) (28, 29) (30, 31) (32, 33) (34, 35) (36, 37) (38, 39)
        (40, 41) (42, 43) (44, 45) (46, 47)
    }
}

/// The 96-word product `a · b`.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[target_feature(enable = "bmi2,adx")]
pub(crate) unsafe fn mul(a: &[u64; WORDS], b: &[u64; WORDS]) -> [u64; 2 * WORDS] {
    let mut t = [0u64; 2 * WORDS];
    for (i, &ai) in a.iter().enumerate() {
        // SAFETY: i ≤ 47, so t[i..i + 49] lies inside the 96 words, and t[i + 48] is still zero
        // (rows before this one wrote up to t[i + 47]); b is 48 words; the caller promises BMI2
        // and ADX.
        unsafe { row(t.as_mut_ptr().add(i), b.as_ptr(), ai) };
    }
    t
}
