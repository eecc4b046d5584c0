// SPDX-License-Identifier: MIT OR Apache-2.0
//! SHA-256 (FIPS 180-4) over the `sha2` crate's compression function (SHA-NI at run time on
//! x86-64): one-shot, double, a streaming engine that starts from a midstate, and BIP340 tagged
//! hashes with their midstates computed once.

use sha2::digest::generic_array::GenericArray;

/// SHA-256 initial hash value H(0) (FIPS 180-4 §5.3.3).
pub const IV: [u32; 8] =
    [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// Compresses whole 64-byte blocks into `state` (the `sha2` crate's compression function).
#[inline]
pub fn compress_blocks(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    for block in blocks {
        sha2::compress256(state, core::slice::from_ref(GenericArray::from_slice(block)));
    }
}

/// Big-endian serialization of a state.
#[inline]
pub fn state_to_bytes(state: &[u32; 8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// A streaming SHA-256 engine that may start from a midstate.
#[derive(Clone, Debug)]
pub struct Sha256 {
    pub(super) state: [u32; 8],
    pub(super) buf: [u8; 64],
    pub(super) buf_len: usize,
    /// Bytes absorbed so far, including those before the midstate.
    pub(super) total: u64,
}

impl Default for Sha256 {
    fn default() -> Self {
        Sha256::new()
    }
}

impl Sha256 {
    /// A fresh engine at the standard IV.
    pub const fn new() -> Sha256 {
        Sha256 { state: IV, buf: [0; 64], buf_len: 0, total: 0 }
    }

    /// An engine that continues from `state`, which has absorbed `bytes_so_far` bytes
    /// (a multiple of 64).
    pub const fn from_midstate(state: [u32; 8], bytes_so_far: u64) -> Sha256 {
        assert!(bytes_so_far.is_multiple_of(64), "a midstate covers whole blocks");
        Sha256 { state, buf: [0; 64], buf_len: 0, total: bytes_so_far }
    }

    /// The state words and byte count, if the engine sits on a block boundary.
    pub fn midstate(&self) -> Option<([u32; 8], u64)> {
        (self.buf_len == 0).then_some((self.state, self.total))
    }

    /// Absorbs `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.buf_len > 0 {
            let take = (64 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 64 {
                return;
            }
            let block = self.buf;
            compress_blocks(&mut self.state, core::slice::from_ref(&block));
            self.buf_len = 0;
        }
        let (blocks, rest) = data.as_chunks::<64>();
        if !blocks.is_empty() {
            compress_blocks(&mut self.state, blocks);
        }
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Chained form of [`Sha256::update`].
    pub fn chain(mut self, data: &[u8]) -> Sha256 {
        self.update(data);
        self
    }

    /// Pads (FIPS 180-4 §5.1.1) and returns the digest.
    pub fn finalize(mut self) -> [u8; 32] {
        let bit_len = self.total.wrapping_mul(8);
        let mut block = [0u8; 128];
        block[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
        block[self.buf_len] = 0x80;
        let n = if self.buf_len < 56 { 64 } else { 128 };
        block[n - 8..n].copy_from_slice(&bit_len.to_be_bytes());
        let (blocks, _) = block[..n].as_chunks::<64>();
        compress_blocks(&mut self.state, blocks);
        state_to_bytes(&self.state)
    }
}

/// SHA-256 of `data`.
#[inline]
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::new().chain(data).finalize()
}

/// Double SHA-256, `SHA256(SHA256(data))`: txids, block hashes, merkle nodes.
#[inline]
pub fn sha256d(data: &[u8]) -> [u8; 32] {
    sha256(&sha256(data))
}

/// A BIP340 tag with its midstate: the state after compressing `SHA256(tag) || SHA256(tag)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaggedHash {
    midstate: [u32; 8],
}

impl TaggedHash {
    /// Computes the midstate for `tag` (one SHA-256 of the tag plus one compression).
    pub fn new(tag: &[u8]) -> TaggedHash {
        let t = sha256(tag);
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&t);
        block[32..].copy_from_slice(&t);
        let mut midstate = IV;
        compress_blocks(&mut midstate, &[block]);
        TaggedHash { midstate }
    }

    /// The cached state after the tag block.
    pub fn midstate(&self) -> [u32; 8] {
        self.midstate
    }

    /// An engine positioned after the tag prefix; feed it the message.
    #[inline]
    pub fn engine(&self) -> Sha256 {
        Sha256::from_midstate(self.midstate, 64)
    }

    /// `SHA256(SHA256(tag) || SHA256(tag) || msg)`.
    #[inline]
    pub fn hash(&self, msg: &[u8]) -> [u8; 32] {
        self.engine().chain(msg).finalize()
    }
}

/// `tagged_hash(tag, msg)` without caching (computes the tag's midstate each call).
pub fn tagged_hash(tag: &[u8], msg: &[u8]) -> [u8; 32] {
    TaggedHash::new(tag).hash(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::tags;
    use sha2::Digest;

    #[test]
    fn nist_short_and_long_messages() {
        // FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and the million-'a' long message.
        assert_eq!(
            hex::encode(sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex::encode(sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex::encode(sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            hex::encode(sha256(
                b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            )),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        );
        let mut e = Sha256::new();
        let chunk = [b'a'; 1000];
        for _ in 0..1000 {
            e.update(&chunk);
        }
        assert_eq!(
            hex::encode(e.finalize()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn engine_vs_sha2_every_length_and_split() {
        let data: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        for len in 0..data.len() {
            let want: [u8; 32] = sha2::Sha256::digest(&data[..len]).into();
            assert_eq!(sha256(&data[..len]), want, "len {len}");
            let split = (len * 7) / 11;
            let got = Sha256::new().chain(&data[..split]).chain(&data[split..len]).finalize();
            assert_eq!(got, want, "len {len} split {split}");
        }
        let want: [u8; 32] = sha2::Sha256::digest(sha2::Sha256::digest(b"hello")).into();
        assert_eq!(sha256d(b"hello"), want);
    }

    #[test]
    fn tagged_hash_matches_definition() {
        for tag in [&b"BIP0340/challenge"[..], b"TapLeaf", b"TapSighash", b"", b"x"] {
            for msg in [&b""[..], b"abc", &[7u8; 200][..]] {
                let t = sha2::Sha256::digest(tag);
                let want: [u8; 32] =
                    sha2::Sha256::new().chain_update(t).chain_update(t).chain_update(msg).finalize().into();
                assert_eq!(tagged_hash(tag, msg), want);
            }
        }
        assert_eq!(tags::tap_leaf().hash(b"q"), tagged_hash(b"TapLeaf", b"q"));
        assert_eq!(tags::bip340_challenge().hash(b""), tagged_hash(b"BIP0340/challenge", b""));
        // Midstate round trip.
        let e = tags::tap_tweak().engine();
        let (st, n) = e.midstate().unwrap();
        assert_eq!(n, 64);
        assert_eq!(st, tags::tap_tweak().midstate());
    }
}
