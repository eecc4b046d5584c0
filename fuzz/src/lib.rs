// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the fuzz targets share: a cursor that cuts a fuzz input into fields, and a few
//! reference implementations written from the definitions (not from the core's code).

/// Cuts an input into fields; a field past the end is zero-filled (so every input maps to
/// some value and small inputs still reach the code under test).
pub struct Cut<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cut<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Cut<'a> {
        Cut { data, pos: 0 }
    }

    /// The next byte, 0 past the end.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// The next `N` bytes, zero-filled past the end.
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        let start = self.pos.min(self.data.len());
        let end = (self.pos + N).min(self.data.len());
        a[..end - start].copy_from_slice(&self.data[start..end]);
        self.pos += N;
        a
    }

    /// Up to `n` next bytes (fewer at the end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = self.pos.saturating_add(n).min(self.data.len());
        self.pos = end;
        &self.data[start..end]
    }

    /// Everything not yet taken.
    pub fn rest(&mut self) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        self.pos = self.data.len();
        &self.data[start..]
    }

    /// Whether the input is used up.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
}

/// The value of a Core `VARINT` read from the definition (each continuation digit stands for
/// digit + 1) in 128-bit arithmetic: `(value, bytes used)`, `None` when the input ends inside
/// it or it exceeds 128 bits.
pub fn reference_varint(b: &[u8]) -> Option<(u128, usize)> {
    let mut n: u128 = 0;
    for (i, &d) in b.iter().enumerate() {
        n = n.checked_mul(128)?.checked_add(u128::from(d & 0x7f))?;
        if d & 0x80 == 0 {
            return Some((n, i + 1));
        }
        n = n.checked_add(1)?;
    }
    None
}

/// Positions to probe in a list of `len` items: all of them when few, else the ends and a
/// spread chosen by `seed` (keeps quadratic checks linear on large inputs).
pub fn probe_positions(len: usize, seed: u64) -> Vec<usize> {
    if len <= 256 {
        return (0..len).collect();
    }
    let mut out = vec![0, 1, len / 2, len - 2, len - 1];
    let mut x = seed | 1;
    for _ in 0..59 {
        // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push((x % len as u64) as usize);
    }
    out
}

/// A 64-bit digest of `data` for choosing things deterministically (FNV-1a).
pub fn fnv(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
