// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scalars modulo the group order
//! n = 0xFFFFFFFF FFFFFFFF FFFFFFFF FFFFFFFE BAAEDCE6 AF48A03B BFD25E8C D0364141,
//! as four little-endian 64-bit words, always fully reduced (< n).
//!
//! Reduction of a 512-bit product uses 2^256 ≡ N_C = 2^256 − n (a 129-bit number):
//! 512 → 386 → 259 → 257 bits, then one conditional subtraction.
//!
//! GLV: with λ a cube root of unity mod n (λ·(x, y) = (β·x, y)), any k splits as
//! k = k1 + λ·k2 with |k1|, |k2| < 2^128, by rounding against the reduced lattice basis
//! (a1, b1), (a2, b2) of {(x, y) : x + λ·y ≡ 0}: c1 = ⌊b2·k/n⌉, c2 = ⌊−b1·k/n⌉ are computed
//! as ⌊k·g/2^384⌉ with g1 = ⌊2^384·b2/n⌉, g2 = ⌊2^384·(−b1)/n⌉; then k2 = −c1·b1 − c2·b2 and
//! k1 = k − λ·k2.

use super::field::{words_from_be, words_to_be};
use super::modinv::{modinv64_var, ModInfo, Signed62};
use core::fmt;

/// n as little-endian words.
pub(crate) const N: [u64; 4] =
    [0xBFD2_5E8C_D036_4141, 0xBAAE_DCE6_AF48_A03B, 0xFFFF_FFFF_FFFF_FFFE, 0xFFFF_FFFF_FFFF_FFFF];
/// 2^256 − n.
const NC: [u64; 3] = [0x402D_A173_2FC9_BEBF, 0x4551_2319_50B7_5FC4, 1];
/// ⌊n/2⌋.
const N_HALF: [u64; 4] =
    [0xDFE9_2F46_681B_20A0, 0x5D57_6E73_57A4_501D, 0xFFFF_FFFF_FFFF_FFFF, 0x7FFF_FFFF_FFFF_FFFF];

/// An integer modulo the group order n. Invariant: always fully reduced (< n).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Scalar(pub(crate) [u64; 4]);

/// λ, the cube root of unity mod n matching β mod p.
pub const LAMBDA: Scalar =
    Scalar([0xDF02_967C_1B23_BD72, 0x122E_22EA_2081_6678, 0xA526_1C02_8812_645A, 0x5363_AD4C_C05C_30E0]);
const G1: [u64; 4] =
    [0xE893_209A_45DB_B031, 0x3DAA_8A14_71E8_CA7F, 0xE86C_90E4_9284_EB15, 0x3086_D221_A7D4_6BCD];
const G2: [u64; 4] =
    [0x1571_B4AE_8AC4_7F71, 0x2212_08AC_9DF5_06C6, 0x6F54_7FA9_0ABF_E4C4, 0xE443_7ED6_010E_8828];
/// −b1 mod n (= 0xe4437ed6010e88286f547fa90abfe4c3).
const MINUS_B1: Scalar = Scalar([0x6F54_7FA9_0ABF_E4C3, 0xE443_7ED6_010E_8828, 0, 0]);
/// −b2 mod n (b2 = a1).
const MINUS_B2: Scalar =
    Scalar([0xD765_CDA8_3DB1_562C, 0x8A28_0AC5_0774_346D, 0xFFFF_FFFF_FFFF_FFFE, 0xFFFF_FFFF_FFFF_FFFF]);

const N_MODINFO: ModInfo = ModInfo {
    modulus: Signed62([-0x2D_A173_2FC9_BEBF, -0x1544_8C65_42DD_7F11, -0x14, 0, 256]),
    modulus_inv62: 0x34F2_0099_AA77_4EC1,
};

#[inline(always)]
fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128) + (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

#[inline(always)]
fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub((b as u128) + (borrow as u128));
    (t as u64, ((t >> 64) as u64) & 1)
}

/// out = lo + hi·N_C as little-endian words (caller sizes `out` to hold the result).
#[inline(always)]
fn add_mul_nc(lo: &[u64], hi: &[u64], out: &mut [u64]) {
    let mut acc = [0u128; 8];
    debug_assert!(out.len() <= 8);
    // Column sums of hi·N_C, then lo, carried once at the end; each column < 2^131 would
    // overflow, so carry progressively instead.
    let mut carry: u128 = 0;
    for k in 0..out.len() {
        let mut lo_part: u128 = carry;
        let mut hi_part: u128 = 0;
        if k < lo.len() {
            lo_part += lo[k] as u128;
        }
        for (i, &h) in hi.iter().enumerate() {
            if k >= i && k - i < 3 {
                let p = (h as u128) * (NC[k - i] as u128);
                lo_part += p & 0xFFFF_FFFF_FFFF_FFFF;
                hi_part += p >> 64;
            }
        }
        acc[k] = lo_part & 0xFFFF_FFFF_FFFF_FFFF;
        carry = (lo_part >> 64) + hi_part;
        out[k] = acc[k] as u64;
    }
    debug_assert!(carry == 0, "add_mul_nc output too short");
}

impl Scalar {
    /// 0.
    pub const ZERO: Scalar = Scalar([0; 4]);
    /// 1.
    pub const ONE: Scalar = Scalar([1, 0, 0, 0]);

    /// From little-endian words, reducing once (any value < 2^256 is < 2n); also reports
    /// whether the input was ≥ n. Constant time.
    #[inline]
    pub(crate) fn from_words_reduce(w: [u64; 4]) -> (Scalar, bool) {
        let (r0, b) = sbb(w[0], N[0], 0);
        let (r1, b) = sbb(w[1], N[1], b);
        let (r2, b) = sbb(w[2], N[2], b);
        let (r3, b) = sbb(w[3], N[3], b);
        // No borrow ⇔ w ≥ n: keep the difference.
        let m = (b ^ 1).wrapping_neg();
        let r = Scalar([
            (r0 & m) | (w[0] & !m),
            (r1 & m) | (w[1] & !m),
            (r2 & m) | (w[2] & !m),
            (r3 & m) | (w[3] & !m),
        ]);
        (r, b == 0)
    }

    /// From 32 big-endian bytes, reduced mod n; also reports whether the input was ≥ n.
    pub fn from_bytes_reduce(b: &[u8; 32]) -> (Scalar, bool) {
        Scalar::from_words_reduce(words_from_be(b))
    }

    /// From 32 big-endian bytes; an error when the value is ≥ n.
    pub fn from_bytes(b: &[u8; 32]) -> Result<Scalar, super::Error> {
        match Scalar::from_bytes_reduce(b) {
            (s, false) => Ok(s),
            (_, true) => Err(super::Error::ScalarOverflow),
        }
    }

    /// From 32 big-endian bytes; an error when the value is 0 or ≥ n (secret keys, nonces).
    pub fn from_bytes_nonzero(b: &[u8; 32]) -> Result<Scalar, super::Error> {
        let s = Scalar::from_bytes(b)?;
        if s.is_zero() {
            Err(super::Error::ZeroScalar)
        } else {
            Ok(s)
        }
    }

    /// A small integer (every `u64` is below n).
    pub fn from_u64(v: u64) -> Scalar {
        Scalar([v, 0, 0, 0])
    }

    /// 32 big-endian bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        words_to_be(&self.0)
    }

    /// Little-endian words.
    #[allow(clippy::wrong_self_convention)] // `&self` like the other accessors
    pub(crate) fn to_words(&self) -> [u64; 4] {
        self.0
    }

    /// Whether a = 0.
    pub fn is_zero(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    /// Whether the value exceeds ⌊n/2⌋ (a "high" S). Constant time: the borrow of ⌊n/2⌋ − a.
    pub fn is_high(&self) -> bool {
        let a = &self.0;
        let (_, b) = sbb(N_HALF[0], a[0], 0);
        let (_, b) = sbb(N_HALF[1], a[1], b);
        let (_, b) = sbb(N_HALF[2], a[2], b);
        let (_, b) = sbb(N_HALF[3], a[3], b);
        b == 1
    }

    /// a + b mod n, constant time.
    pub fn add(&self, b: &Scalar) -> Scalar {
        let (a, b) = (&self.0, &b.0);
        let (r0, c) = adc(a[0], b[0], 0);
        let (r1, c) = adc(a[1], b[1], c);
        let (r2, c) = adc(a[2], b[2], c);
        let (r3, c) = adc(a[3], b[3], c);
        // Subtract n when the sum carried out or is ≥ n: compute r − n and keep it then.
        let (s0, bo) = sbb(r0, N[0], 0);
        let (s1, bo) = sbb(r1, N[1], bo);
        let (s2, bo) = sbb(r2, N[2], bo);
        let (s3, bo) = sbb(r3, N[3], bo);
        let use_sub = (c | (bo ^ 1)) & 1;
        let m = use_sub.wrapping_neg();
        Scalar([(s0 & m) | (r0 & !m), (s1 & m) | (r1 & !m), (s2 & m) | (r2 & !m), (s3 & m) | (r3 & !m)])
    }

    /// −a mod n, constant time.
    pub fn negate(&self) -> Scalar {
        let a = &self.0;
        let nz = ((a[0] | a[1] | a[2] | a[3]) != 0) as u64;
        let m = nz.wrapping_neg();
        let (r0, b) = sbb(N[0], a[0], 0);
        let (r1, b) = sbb(N[1], a[1], b);
        let (r2, b) = sbb(N[2], a[2], b);
        let (r3, _) = sbb(N[3], a[3], b);
        Scalar([r0 & m, r1 & m, r2 & m, r3 & m])
    }

    /// a − b mod n.
    pub fn sub(&self, b: &Scalar) -> Scalar {
        self.add(&b.negate())
    }

    /// The 512-bit product of the representatives, little-endian.
    #[inline(always)]
    pub(crate) fn mul_wide(&self, b: &Scalar) -> [u64; 8] {
        let (a, b) = (&self.0, &b.0);
        let mut r = [0u64; 8];
        for i in 0..4 {
            let mut carry: u64 = 0;
            for j in 0..4 {
                let t = (a[i] as u128) * (b[j] as u128) + (r[i + j] as u128) + (carry as u128);
                r[i + j] = t as u64;
                carry = (t >> 64) as u64;
            }
            r[i + 4] = carry;
        }
        r
    }

    /// A 512-bit value mod n, constant time.
    pub(crate) fn reduce512(l: &[u64; 8]) -> Scalar {
        // m = l[0..4] + l[4..8]·N_C < 2^256 + 2^385: 7 words.
        let mut m = [0u64; 7];
        add_mul_nc(&l[0..4], &l[4..8], &mut m);
        // p = m[0..4] + m[4..7]·N_C < 2^256 + 2^259: 5 words.
        let mut p = [0u64; 5];
        add_mul_nc(&m[0..4], &m[4..7], &mut p);
        // q = p[0..4] + p[4]·N_C < 2^256 + 2^133: 4 words and a carry bit.
        let mut q = [0u64; 5];
        add_mul_nc(&p[0..4], &p[4..5], &mut q);
        debug_assert!(q[4] <= 1);
        // Fold the carry bit once more (q[4]·N_C), then one conditional subtraction.
        let c = q[4];
        let (r0, k) = adc(q[0], NC[0] & c.wrapping_neg(), 0);
        let (r1, k) = adc(q[1], NC[1] & c.wrapping_neg(), k);
        let (r2, k) = adc(q[2], c, k);
        let (r3, k) = adc(q[3], 0, k);
        debug_assert!(k == 0);
        let w = [r0, r1, r2, r3];
        let (s0, bo) = sbb(w[0], N[0], 0);
        let (s1, bo) = sbb(w[1], N[1], bo);
        let (s2, bo) = sbb(w[2], N[2], bo);
        let (s3, bo) = sbb(w[3], N[3], bo);
        let m = (bo ^ 1).wrapping_neg();
        Scalar([
            (s0 & m) | (w[0] & !m),
            (s1 & m) | (w[1] & !m),
            (s2 & m) | (w[2] & !m),
            (s3 & m) | (w[3] & !m),
        ])
    }

    /// a·b mod n, constant time.
    pub fn mul(&self, b: &Scalar) -> Scalar {
        Scalar::reduce512(&self.mul_wide(b))
    }

    /// a² mod n, constant time.
    pub fn sqr(&self) -> Scalar {
        self.mul(self)
    }

    /// a⁻¹ mod n (0 ↦ 0) by safegcd; variable time, public inputs only.
    pub fn inv_vartime(&self) -> Scalar {
        let r = modinv64_var(&Signed62::from_u64x4(self.0), &N_MODINFO);
        Scalar(r.to_u64x4())
    }

    /// a⁻¹ mod n (0 ↦ 0) as a^(n−2): square-and-multiply over the public exponent, so the
    /// sequence of operations does not depend on a (constant time in a).
    pub fn inv(&self) -> Scalar {
        let e = [N[0] - 2, N[1], N[2], N[3]];
        // 4-bit fixed window: table of a^0..a^15.
        let mut table = [Scalar::ONE; 16];
        for i in 1..16 {
            table[i] = table[i - 1].mul(self);
        }
        let mut r = Scalar::ONE;
        for i in (0..64).rev() {
            for _ in 0..4 {
                r = r.sqr();
            }
            let nib = ((e[i / 16] >> ((i % 16) * 4)) & 15) as usize;
            // The exponent is public, so indexing by it leaks nothing about a.
            r = r.mul(&table[nib]);
        }
        r
    }

    /// Bits [offset, offset+count) of the representative, count ≤ 32 (variable time).
    #[inline]
    pub(crate) fn bits_var(&self, offset: usize, count: usize) -> u32 {
        debug_assert!((1..=32).contains(&count));
        if offset >= 256 {
            return 0;
        }
        let limb = offset / 64;
        let sh = offset % 64;
        let mut v = self.0[limb] >> sh;
        if sh + count > 64 && limb + 1 < 4 {
            v |= self.0[limb + 1] << (64 - sh);
        }
        (v & ((1u64 << count) - 1)) as u32
    }

    /// ⌊a·g / 2^384⌉ for a 256-bit g (the GLV rounding step); variable time in nothing secret.
    fn mul_shift_384(&self, g: &[u64; 4]) -> Scalar {
        let w = self.mul_wide(&Scalar(*g));
        let round = (w[5] >> 63) & 1;
        let (r0, c) = adc(w[6], round, 0);
        let (r1, _) = adc(w[7], 0, c);
        Scalar([r0, r1, 0, 0])
    }

    /// The GLV split with its intermediates. Never fails: when the rounding bound check would
    /// fail (it cannot for valid constants), it falls back to k1 = k, k2 = 0.
    pub fn split_lambda(&self) -> GlvSplit {
        let c1 = self.mul_shift_384(&G1);
        let c2 = self.mul_shift_384(&G2);
        let k2 = c1.mul(&MINUS_B1).add(&c2.mul(&MINUS_B2));
        let k1 = self.sub(&k2.mul(&LAMBDA));
        let ok = k1.is_short() && k2.is_short();
        if ok {
            GlvSplit { k1, k2, c1, c2, fallback: false }
        } else {
            GlvSplit { k1: *self, k2: Scalar::ZERO, c1, c2, fallback: true }
        }
    }

    /// Whether min(a, n − a) < 2^128.
    pub(crate) fn is_short(&self) -> bool {
        (self.0[2] | self.0[3]) == 0 || {
            let m = self.negate();
            (m.0[2] | m.0[3]) == 0
        }
    }

    /// Constant-time select: `if flag { *b } else { *self }`.
    pub(crate) fn select(&self, b: &Scalar, flag: bool) -> Scalar {
        let m = (flag as u64).wrapping_neg();
        Scalar(core::array::from_fn(|i| (self.0[i] & !m) | (b.0[i] & m)))
    }
}

/// k = k1 + λ·k2 (mod n) with |k1|, |k2| < 2^128 (as signed values: a scalar above n/2
/// stands for its negative), and the rounded quotients c1, c2 that produced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlvSplit {
    /// k1 = k − λ·k2 (mod n), short: |k1| < 2^128 as a signed value.
    pub k1: Scalar,
    /// k2 = −c1·b1 − c2·b2 (mod n), short: |k2| < 2^128 as a signed value.
    pub k2: Scalar,
    /// c1 = ⌊k·g1 / 2^384⌉, the rounded first lattice coefficient.
    pub c1: Scalar,
    /// c2 = ⌊k·g2 / 2^384⌉, the rounded second lattice coefficient.
    pub c2: Scalar,
    /// True when the bound check failed and the split fell back to (k, 0).
    pub fallback: bool,
}

impl fmt::Debug for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::field::debug_hex(f, "Scalar", &self.to_bytes())
    }
}
