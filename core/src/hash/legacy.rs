// SPDX-License-Identifier: MIT OR Apache-2.0
//! RIPEMD-160 and SHA-1, needed only by script opcodes (`OP_RIPEMD160`, `OP_SHA1`,
//! `OP_HASH160`). Straightforward one-shot implementations; not on any hot path except
//! HASH160 of a pubkey (one 64-byte block).
//!
//! RIPEMD-160: Dobbertin, Bosselaers, Preneel (1996): two parallel lines of 5 rounds × 16 steps
//! over 32-bit words, combined at the end. SHA-1: FIPS 180-4 §6.1.

/// Calls `f` with each 64-byte block of `data` after MD4-family padding (0x80, zeros to 56 mod
/// 64, the bit length as 8 bytes: little-endian for RIPEMD-160, big-endian for SHA-1): the
/// whole blocks of `data` as they lie, then the padded tail from the stack, so that hashing
/// allocates nothing.
fn for_each_padded_block(data: &[u8], big_endian: bool, mut f: impl FnMut(&[u8])) {
    let whole = data.len() / 64 * 64;
    data[..whole].chunks_exact(64).for_each(&mut f);
    let rest = &data[whole..];
    let mut tail = [0u8; 128];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    // The length needs 8 bytes after the 0x80: one block when the rest leaves them, else two.
    let n = if rest.len() < 56 { 64 } else { 128 };
    let bits = (data.len() as u64).wrapping_mul(8);
    tail[n - 8..n].copy_from_slice(&if big_endian { bits.to_be_bytes() } else { bits.to_le_bytes() });
    tail[..n].chunks_exact(64).for_each(f);
}

const RL: [usize; 80] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11,
    8, 3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12, 1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5,
    6, 2, 4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
];
const RR: [usize; 80] = [
    5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1,
    2, 15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13, 8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7,
    10, 14, 12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
];
const SL: [u32; 80] = [
    11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8, 7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7,
    13, 12, 11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5, 11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5,
    6, 8, 6, 5, 12, 9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
];
const SR: [u32; 80] = [
    8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6, 9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15,
    13, 11, 9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5, 15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9,
    12, 5, 15, 8, 8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
];
const KL: [u32; 5] = [0x0000_0000, 0x5a82_7999, 0x6ed9_eba1, 0x8f1b_bcdc, 0xa953_fd4e];
const KR: [u32; 5] = [0x50a2_8be6, 0x5c4d_d124, 0x6d70_3ef3, 0x7a6d_76e9, 0x0000_0000];

#[inline]
fn f(j: usize, x: u32, y: u32, z: u32) -> u32 {
    match j / 16 {
        0 => x ^ y ^ z,
        1 => (x & y) | (!x & z),
        2 => (x | !y) ^ z,
        3 => (x & z) | (y & !z),
        _ => x ^ (y | !z),
    }
}

/// One RIPEMD-160 step on a line's state (a, b, c, d, e): T = rol_s(a + f + x + K) + e, then
/// (a, b, c, d, e) ← (e, T, b, rol_10(c), d).
#[inline(always)]
fn ripemd_step(s: &mut [u32; 5], f: u32, x: u32, k: u32, rot: u32) {
    let [a, b, c, d, e] = *s;
    let t = a.wrapping_add(f).wrapping_add(x).wrapping_add(k).rotate_left(rot).wrapping_add(e);
    *s = [e, t, b, c.rotate_left(10), d];
}

/// RIPEMD-160 of `data`.
pub fn ripemd160(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];
    for_each_padded_block(data, false, |block| {
        let mut x = [0u32; 16];
        for (i, w) in x.iter_mut().enumerate() {
            *w = u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        // The left and right lines run the same step with their own schedules.
        let (mut l, mut r) = (h, h);
        for j in 0..80 {
            let (fl, fr) = (f(j, l[1], l[2], l[3]), f(79 - j, r[1], r[2], r[3]));
            ripemd_step(&mut l, fl, x[RL[j]], KL[j / 16], SL[j]);
            ripemd_step(&mut r, fr, x[RR[j]], KR[j / 16], SR[j]);
        }
        let t = h[1].wrapping_add(l[2]).wrapping_add(r[3]);
        h[1] = h[2].wrapping_add(l[3]).wrapping_add(r[4]);
        h[2] = h[3].wrapping_add(l[4]).wrapping_add(r[0]);
        h[3] = h[4].wrapping_add(l[0]).wrapping_add(r[1]);
        h[4] = h[0].wrapping_add(l[1]).wrapping_add(r[2]);
        h[0] = t;
    });
    let mut out = [0u8; 20];
    for (i, w) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// SHA-1 of `data`.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];
    for_each_padded_block(data, true, |block| {
        let mut w = [0u32; 80];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let (mut a, mut b, mut c, mut d, mut e) = (h[0], h[1], h[2], h[3], h[4]);
        for (i, wi) in w.iter().enumerate() {
            let (fv, k) = match i / 20 {
                0 => ((b & c) | (!b & d), 0x5a82_7999),
                1 => (b ^ c ^ d, 0x6ed9_eba1),
                2 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
                _ => (b ^ c ^ d, 0xca62_c1d6u32),
            };
            let t = a.rotate_left(5).wrapping_add(fv).wrapping_add(e).wrapping_add(k).wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        h[0] = h[0].wrapping_add(a);
        h[1] = h[1].wrapping_add(b);
        h[2] = h[2].wrapping_add(c);
        h[3] = h[3].wrapping_add(d);
        h[4] = h[4].wrapping_add(e);
    });
    let mut out = [0u8; 20];
    for (i, w) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// `RIPEMD160(SHA256(data))`: Bitcoin's HASH160.
pub fn hash160(data: &[u8]) -> [u8; 20] {
    ripemd160(&super::sha256::sha256(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages both sets of published vectors use: empty, "abc", the 448-bit message.
    const MESSAGES: [&[u8]; 3] = [b"", b"abc", b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"];

    #[test]
    fn ripemd160_and_sha1_vs_published_vectors() {
        // The RIPEMD-160 authors' vectors and FIPS 180's for SHA-1.
        type Hash = fn(&[u8]) -> [u8; 20];
        let cases: [(Hash, [&str; 3]); 2] = [
            (
                ripemd160,
                [
                    "9c1185a5c5e9fc54612808977ee8f548b2258d31",
                    "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc",
                    "12a053384a9c0c88e405a06c27dcf49ada62eb2b",
                ],
            ),
            (
                sha1,
                [
                    "da39a3ee5e6b4b0d3255bfef95601890afd80709",
                    "a9993e364706816aba3e25717850c26c9cd0d89d",
                    "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
                ],
            ),
        ];
        for (hash, want) in cases {
            for (m, w) in MESSAGES.iter().zip(want) {
                assert_eq!(hex::encode(hash(m)), w);
            }
        }
        assert_eq!(hex::encode(ripemd160(&[b'a'; 1_000_000])), "52783243c1697bdbe16d37f97f68f08325dc1528");
    }

    /// The blocks hashed are the padded message as the definition writes it out, at every
    /// length over three blocks (the tail's one-or-two-block boundary at 55/56, whole blocks).
    #[test]
    fn padded_blocks_match_the_definition() {
        let data: Vec<u8> = (0..200u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in 0..=data.len() {
            for big_endian in [false, true] {
                let m = &data[..len];
                let mut want = m.to_vec();
                want.push(0x80);
                while want.len() % 64 != 56 {
                    want.push(0);
                }
                let bits = (len as u64) * 8;
                want.extend_from_slice(&if big_endian { bits.to_be_bytes() } else { bits.to_le_bytes() });
                let mut got = Vec::new();
                for_each_padded_block(m, big_endian, |b| {
                    assert_eq!(b.len(), 64);
                    got.extend_from_slice(b)
                });
                assert_eq!(got, want, "length {len}, big-endian {big_endian}");
            }
        }
    }
}
