// SPDX-License-Identifier: MIT OR Apache-2.0
//! 256-bit targets and the compact `nBits` encoding: Core's `arith_uint256` (`SetCompact`,
//! `GetCompact`) and `DeriveTarget` (`src/pow.cpp`).

use core::cmp::Ordering;

/// An unsigned 256-bit integer (little-endian u64 limbs), enough for targets and retargeting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct U256(pub [u64; 4]);

impl Ord for U256 {
    fn cmp(&self, o: &U256) -> Ordering {
        for i in (0..4).rev() {
            match self.0[i].cmp(&o.0[i]) {
                Ordering::Equal => continue,
                x => return x,
            }
        }
        Ordering::Equal
    }
}

impl PartialOrd for U256 {
    fn partial_cmp(&self, o: &U256) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Decoded compact bits: the target and Core's negative/overflow flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compact {
    /// The sign bit (0x0080_0000) was set with a non-zero mantissa.
    pub negative: bool,
    /// The value does not fit in 256 bits.
    pub overflow: bool,
}

impl U256 {
    /// Zero.
    pub const ZERO: U256 = U256([0; 4]);

    /// A hash (internal byte order) as the little-endian number Core compares with targets.
    pub fn from_le_bytes(b: &[u8; 32]) -> U256 {
        U256(core::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8"))))
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }

    fn bits(&self) -> u32 {
        for i in (0..4).rev() {
            if self.0[i] != 0 {
                return 64 * i as u32 + 64 - self.0[i].leading_zeros();
            }
        }
        0
    }

    fn shl(&self, n: u32) -> U256 {
        let mut r = [0u64; 4];
        let (w, b) = ((n / 64) as usize, n % 64);
        for i in (0..4).rev() {
            if i >= w {
                r[i] = self.0[i - w] << b;
                if b > 0 && i > w {
                    r[i] |= self.0[i - w - 1] >> (64 - b);
                }
            }
        }
        U256(r)
    }

    fn shr(&self, n: u32) -> U256 {
        let mut r = [0u64; 4];
        let (w, b) = ((n / 64) as usize, n % 64);
        for (i, ri) in r.iter_mut().enumerate() {
            if i + w < 4 {
                *ri = self.0[i + w] >> b;
                if b > 0 && i + w + 1 < 4 {
                    *ri |= self.0[i + w + 1] << (64 - b);
                }
            }
        }
        U256(r)
    }

    /// `arith_uint256::SetCompact`: the target and the negative/overflow flags.
    pub fn from_compact(bits: u32) -> (U256, Compact) {
        let size = bits >> 24;
        let mut word = bits & 0x007f_ffff;
        let v = if size <= 3 {
            word >>= 8 * (3 - size);
            U256([word as u64, 0, 0, 0])
        } else {
            U256([word as u64, 0, 0, 0]).shl(8 * (size - 3).min(40))
        };
        let negative = word != 0 && (bits & 0x0080_0000) != 0;
        let overflow = word != 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
        (v, Compact { negative, overflow })
    }

    /// `arith_uint256::GetCompact` (non-negative).
    pub fn to_compact(&self) -> u32 {
        let mut size = self.bits().div_ceil(8);
        let mut compact: u32 = if size <= 3 {
            (self.0[0] << (8 * (3 - size))) as u32
        } else {
            self.shr(8 * (size - 3)).0[0] as u32
        };
        if compact & 0x0080_0000 != 0 {
            compact >>= 8;
            size += 1;
        }
        compact | (size << 24)
    }

    /// `self · m mod 2^256` (as `arith_uint256::operator*=(uint32)`, which truncates).
    pub fn mul_u64(&self, m: u64) -> U256 {
        let mut r = [0u64; 4];
        let mut carry = 0u128;
        for (ri, &a) in r.iter_mut().zip(&self.0) {
            let t = a as u128 * m as u128 + carry;
            *ri = t as u64;
            carry = t >> 64;
        }
        U256(r)
    }

    /// `self / d` (d > 0).
    pub fn div_u64(&self, d: u64) -> U256 {
        let mut r = [0u64; 4];
        let mut rem = 0u128;
        for i in (0..4).rev() {
            let cur = (rem << 64) | self.0[i] as u128;
            r[i] = (cur / d as u128) as u64;
            rem = cur % d as u128;
        }
        U256(r)
    }
}

/// Core's `DeriveTarget`: the target of `bits`, or `None` if it is negative, zero, overflows or
/// is easier than the pow limit.
pub fn derive_target(bits: u32, pow_limit: &U256) -> Option<U256> {
    let (t, c) = U256::from_compact(bits);
    if c.negative || c.overflow || t.is_zero() || t > *pow_limit {
        return None;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{MAINNET, REGTEST};

    #[test]
    fn compact_round_trip_vs_core_cases() {
        // Core arith_uint256_tests: SetCompact/GetCompact cases.
        let cases: [(u32, u32, bool, bool); 9] = [
            (0, 0, false, false),
            (0x00123456, 0, false, false),
            (0x01003456, 0, false, false),
            (0x01123456, 0x01120000, false, false),
            (0x01fedcba, 0x01fe0000, true, false),
            (0x04923456, 0x04923456, true, false),
            (0x05009234, 0x05009234, false, false),
            (0x20123456, 0x20123456, false, false),
            (0xff123456, 0, false, true),
        ];
        for (bits, back, neg, ovf) in cases {
            let (t, c) = U256::from_compact(bits);
            assert_eq!((c.negative, c.overflow), (neg, ovf), "{bits:08x}");
            if !neg && !ovf {
                assert_eq!(t.to_compact(), back, "{bits:08x}");
            }
        }
        assert_eq!(MAINNET.pow_limit().to_compact(), 0x1d00ffff);
        assert_eq!(REGTEST.pow_limit().to_compact(), 0x207fffff);
    }
}
