// SPDX-License-Identifier: MIT OR Apache-2.0
//! MuHash3072: Bitcoin Core's rolling hash of a set (`gettxoutsetinfo muhash`).
//!
//! Elements are hashed to the multiplicative group of integers modulo the prime
//! `m = 2^3072 − 1103717`:
//!
//! ```text
//! to_num(d) = int_le(ChaCha20(key = SHA256(d), nonce = 0, counter = 0)[0..384])
//! state     = (numerator, denominator), both starting at 1
//! insert(d): numerator   ← numerator · to_num(d)   (mod m)
//! remove(d): denominator ← denominator · to_num(d) (mod m)
//! finalize  = SHA256(le_384(numerator · denominator^(m−2) mod m))
//! ```
//!
//! Insertion and removal commute, so the digest depends only on the multiset. Values are kept
//! below 2^3072 but not necessarily below m between operations ("weakly reduced", as Core's
//! `Num3072`); a full reduction happens only where a canonical value is needed. The byte
//! layout of [`MuHash3072::serialize`] is Core's: numerator then denominator, each 384 bytes
//! little-endian.

use crate::hash::sha256;

/// 64-bit limbs in a 3072-bit number.
const LIMBS: usize = 48;
/// `m = 2^3072 − MAX_PRIME_DIFF`.
const MAX_PRIME_DIFF: u64 = 1_103_717;

/// A 3072-bit number, little-endian limbs, always `< 2^3072`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Num3072 {
    limbs: [u64; LIMBS],
}

impl core::fmt::Debug for Num3072 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Num3072(0x")?;
        for l in self.limbs.iter().rev() {
            write!(f, "{l:016x}")?;
        }
        write!(f, ")")
    }
}

impl Num3072 {
    /// The number 1.
    pub const ONE: Num3072 = {
        let mut limbs = [0u64; LIMBS];
        limbs[0] = 1;
        Num3072 { limbs }
    };

    /// From 384 little-endian bytes (any value below 2^3072 is accepted, as in Core).
    pub fn from_le_bytes(b: &[u8; 384]) -> Num3072 {
        let mut limbs = [0u64; LIMBS];
        for (l, c) in limbs.iter_mut().zip(b.chunks_exact(8)) {
            *l = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        }
        Num3072 { limbs }
    }

    /// To 384 little-endian bytes (as stored, without reduction).
    pub fn to_le_bytes(&self) -> [u8; 384] {
        let mut b = [0u8; 384];
        for (c, l) in b.chunks_exact_mut(8).zip(&self.limbs) {
            c.copy_from_slice(&l.to_le_bytes());
        }
        b
    }

    /// Whether the value is `≥ m`, i.e. limbs 1.. are all ones and limb 0 `≥ 2^64 − d`.
    fn is_overflow(&self) -> bool {
        self.limbs[0] > u64::MAX - MAX_PRIME_DIFF && self.limbs[1..].iter().all(|&l| l == u64::MAX)
    }

    /// Subtracts m once (valid when `m ≤ self < 2^3072`): adding d wraps past 2^3072.
    fn full_reduce(&mut self) {
        let mut carry = MAX_PRIME_DIFF as u128;
        for l in self.limbs.iter_mut() {
            let s = *l as u128 + carry;
            *l = s as u64;
            carry = s >> 64;
        }
        // The carry out is the 2^3072 that is dropped.
    }

    /// The canonical representative in `[0, m)`.
    pub fn reduced(mut self) -> Num3072 {
        if self.is_overflow() {
            self.full_reduce();
        }
        self
    }

    /// `self · other mod m`, weakly reduced (`< 2^3072`), on the detected backend.
    pub fn mul(&self, other: &Num3072) -> Num3072 {
        self.mul_with(crate::Backend::detect(), other)
    }

    /// [`Num3072::mul`] on `backend`: the 52-bit-limb IFMA product on an Ifma token, the 64-bit
    /// schoolbook with MULX and two carry chains (ADCX/ADOX) on Asm and Avx2 tokens, the
    /// portable 64-bit schoolbook otherwise. Every backend gives the same limbs.
    ///
    /// ```
    /// use fullverify::muhash::Num3072;
    /// use fullverify::Backend;
    ///
    /// let a = Num3072::from_le_bytes(&[0xA5; 384]);
    /// let b = Num3072::from_le_bytes(&[0x3C; 384]);
    /// let want = a.mul_with(Backend::portable(), &b);
    /// for backend in Backend::available() {
    ///     assert_eq!(a.mul_with(backend, &b), want);
    /// }
    /// ```
    pub fn mul_with(&self, backend: crate::Backend, other: &Num3072) -> Num3072 {
        match backend.kind() {
            #[cfg(target_arch = "x86_64")]
            crate::backend::BackendKind::Ifma => {
                // SAFETY: an Ifma token exists only when `Cpu::get()` saw avx512f, avx512ifma
                // and avx512vl.
                unsafe { self.mul_ifma(other) }
            }
            #[cfg(target_arch = "x86_64")]
            crate::backend::BackendKind::Asm | crate::backend::BackendKind::Avx2 => {
                // SAFETY: Asm and Avx2 tokens exist only when `Cpu::get()` saw BMI2 and ADX.
                Self::fold(&unsafe { crate::backend::x86_64_asm::num3072::mul(&self.limbs, &other.limbs) })
            }
            _ => self.mul_portable(other),
        }
    }

    /// [`Num3072::mul_lanes`] on AVX-512 registers.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F, IFMA and VL.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    unsafe fn mul_ifma(&self, other: &Num3072) -> Num3072 {
        self.mul_lanes::<crate::backend::ifma::lanes::Ifma>(other)
    }

    /// The product on 52-bit limbs with eight-lane multiply-adds (`backend::ifma::num3072`).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn mul_lanes<L: crate::backend::ifma::lanes::Lanes>(&self, other: &Num3072) -> Num3072 {
        use crate::backend::ifma::num3072::{columns_to_words, mul_columns, to_limbs52};
        let col = mul_columns::<L>(&to_limbs52(&self.limbs), &to_limbs52(&other.limbs));
        Self::fold(&columns_to_words(&col))
    }

    /// The 64-bit schoolbook product (every target), column by column ("product scanning"):
    /// each output word sums its column's 128-bit products into a three-word accumulator. Two
    /// accumulators take alternate rows, so consecutive additions do not wait on each other's
    /// carries, and each column's word is written once.
    fn mul_portable(&self, other: &Num3072) -> Num3072 {
        let (a, b) = (&self.limbs, &other.limbs);
        let mut t = [0u64; 2 * LIMBS];
        // What column k passes to column k + 1: its sum shifted down one word (< 2^71).
        let mut carry: u128 = 0;
        for (k, word) in t.iter_mut().enumerate().take(2 * LIMBS - 1) {
            let first = k.saturating_sub(LIMBS - 1);
            let last = k.min(LIMBS - 1);
            // Two accumulators (low 128 bits, overflow count), even and odd rows.
            let (mut s0, mut o0) = (carry, 0u64);
            let (mut s1, mut o1) = (0u128, 0u64);
            let mut i = first;
            while i < last {
                let (x, c) = s0.overflowing_add(u128::from(a[i]) * u128::from(b[k - i]));
                s0 = x;
                o0 += u64::from(c);
                let (y, d) = s1.overflowing_add(u128::from(a[i + 1]) * u128::from(b[k - i - 1]));
                s1 = y;
                o1 += u64::from(d);
                i += 2;
            }
            if i == last {
                let (x, c) = s0.overflowing_add(u128::from(a[i]) * u128::from(b[k - i]));
                s0 = x;
                o0 += u64::from(c);
            }
            let (sum, c) = s0.overflowing_add(s1);
            let over = o0 + o1 + u64::from(c);
            *word = sum as u64;
            // (over·2^128 + sum) >> 64, over being at most 48 + 1.
            carry = (sum >> 64) | (u128::from(over) << 64);
        }
        t[2 * LIMBS - 1] = carry as u64;
        debug_assert_eq!(carry >> 64, 0);
        Self::fold(&t)
    }

    /// `self² mod m`.
    pub fn sqr(&self) -> Num3072 {
        self.mul(self)
    }

    /// Reduces a 6144-bit product: `lo + hi·2^3072 ≡ lo + hi·d (mod m)`.
    fn fold(t: &[u64; 2 * LIMBS]) -> Num3072 {
        let d = MAX_PRIME_DIFF as u128;
        let mut r = [0u64; LIMBS];
        // r = lo + hi·d; hi·d < 2^3072·2^21, so the carry out is < 2^22.
        let mut carry: u128 = 0;
        for i in 0..LIMBS {
            let v = t[i] as u128 + t[i + LIMBS] as u128 * d + carry;
            r[i] = v as u64;
            carry = v >> 64;
        }
        // Fold the carry (c < 2^22, c·d < 2^43) back in; this can carry out at most once more.
        while carry != 0 {
            let mut c = carry * d;
            for l in r.iter_mut() {
                if c == 0 {
                    break;
                }
                let v = *l as u128 + c;
                *l = v as u64;
                c = v >> 64;
            }
            carry = c; // 0 or 1: one more 2^3072 to fold
        }
        Num3072 { limbs: r }
    }

    /// `x^(2^k)` by k squarings.
    fn sqr_n(&self, k: usize) -> Num3072 {
        let mut x = *self;
        for _ in 0..k {
            x = x.sqr();
        }
        x
    }

    /// The inverse `self^(m−2) mod m` (Fermat; m is prime). The inverse of 0 is 0.
    ///
    /// `m − 2 = (2^3051 − 1)·2^21 + 993433`, since `2^21 − 1103719 = 993433`: an all-ones run
    /// of 3051 bits built by an addition chain (`x_{a+b} = x_a^(2^b) · x_b` with
    /// `x_k = self^(2^k − 1)`), 21 squarings, and a 20-bit tail by square-and-multiply.
    pub fn inverse(&self) -> Num3072 {
        let a = self.reduced();
        // x_k = a^(2^k − 1): x_3 from a, then x_{2k} = x_k^(2^k)·x_k for k = 3, 6, …, 768.
        let x3 = a.sqr().mul(&a).sqr().mul(&a);
        let mut x = [x3; 10];
        for i in 1..10 {
            x[i] = x[i - 1].sqr_n(3 << (i - 1)).mul(&x[i - 1]);
        }
        // x[i] = x_{3·2^i}; 3051 = 1536 + 768 + 384 + 192 + 96 + 48 + 24 + 3, each step
        // x_{j+k} = x_j^(2^k)·x_k appending one more run of ones.
        let mut acc = x[9];
        for i in [8, 7, 6, 5, 4, 3, 0] {
            acc = acc.sqr_n(3 << i).mul(&x[i]);
        }
        // acc = a^(2^3051 − 1). Now the low 21 bits of the exponent: 993433.
        const TAIL: u32 = (1 << 21) - (MAX_PRIME_DIFF as u32 + 2);
        for bit in (0..21).rev() {
            acc = acc.sqr();
            if (TAIL >> bit) & 1 == 1 {
                acc = acc.mul(&a);
            }
        }
        acc.reduced()
    }
}

/// ChaCha20 block function (RFC 8439 §2.3): 64 bytes of keystream for (key, counter, nonce).
pub fn chacha20_block(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> [u8; 64] {
    #[inline(always)]
    fn qr(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(16);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(12);
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(8);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(7);
    }
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
    let mut init = [0u32; 16];
    init[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
    for i in 0..8 {
        init[4 + i] = word(&key[4 * i..4 * i + 4]);
    }
    init[12] = counter;
    for i in 0..3 {
        init[13 + i] = word(&nonce[4 * i..4 * i + 4]);
    }
    let mut s = init;
    for _ in 0..10 {
        qr(&mut s, 0, 4, 8, 12);
        qr(&mut s, 1, 5, 9, 13);
        qr(&mut s, 2, 6, 10, 14);
        qr(&mut s, 3, 7, 11, 15);
        qr(&mut s, 0, 5, 10, 15);
        qr(&mut s, 1, 6, 11, 12);
        qr(&mut s, 2, 7, 8, 13);
        qr(&mut s, 3, 4, 9, 14);
    }
    let mut out = [0u8; 64];
    for i in 0..16 {
        out[4 * i..4 * i + 4].copy_from_slice(&s[i].wrapping_add(init[i]).to_le_bytes());
    }
    out
}

/// Maps data to a group element: 384 bytes of ChaCha20 keystream keyed by `SHA256(data)`.
pub fn to_num3072(data: &[u8]) -> Num3072 {
    to_num3072_with(crate::Backend::detect(), data)
}

/// [`to_num3072`] on `backend`: the six keystream blocks in one eight-lane pass on the AVX2
/// and IFMA backends (where the CPU has AVX2 and the `no_avx2` feature is off), one block at a
/// time otherwise.
pub fn to_num3072_with(backend: crate::Backend, data: &[u8]) -> Num3072 {
    Num3072::from_le_bytes(&keystream_384(backend, &sha256(data)))
}

/// The first 384 bytes of ChaCha20's keystream for `key` (nonce 0, counters 0–5).
fn keystream_384(backend: crate::Backend, key: &[u8; 32]) -> [u8; 384] {
    let mut bytes = [0u8; 384];
    #[cfg(target_arch = "x86_64")]
    if matches!(backend.kind(), crate::backend::BackendKind::Avx2 | crate::backend::BackendKind::Ifma)
        && !cfg!(feature = "no_avx2")
        && crate::backend::Cpu::get().avx2
    {
        // SAFETY: Cpu::get() saw AVX2.
        let blocks = unsafe { crate::backend::avx2::chacha20::blocks8(key, 0, &[0; 12]) };
        for (chunk, block) in bytes.chunks_exact_mut(64).zip(&blocks) {
            for (c, w) in chunk.chunks_exact_mut(4).zip(block) {
                c.copy_from_slice(&w.to_le_bytes());
            }
        }
        return bytes;
    }
    let _ = backend;
    for (i, chunk) in bytes.chunks_exact_mut(64).enumerate() {
        chunk.copy_from_slice(&chacha20_block(key, i as u32, &[0; 12]));
    }
    bytes
}

/// The product of many MuHash elements, for hashing a whole set at once (the final MuHash
/// policy): [`SetProduct::insert`] equals [`MuHash3072::insert`], and
/// [`SetProduct::finish`] gives the accumulator. On the IFMA backend the running product stays
/// in 52-bit limbs between multiplications, converted once at the end. On the AVX2 backend it
/// is eight running products in 28-bit limbs, one per lane of the AVX2 kernel
/// (`backend::avx2::num3072`): elements are taken eight at a time, one into each lane, and
/// the eight lanes are multiplied together at the end, with the elements of a last,
/// incomplete group multiplied in one by one. Elsewhere it is a [`Num3072`] multiplied as by
/// `insert`.
///
/// ```
/// use fullverify::muhash::{MuHash3072, SetProduct};
/// use fullverify::Backend;
///
/// let mut m = MuHash3072::new();
/// let want = m.insert(b"coin 1").insert(b"coin 2").finalize();
/// for backend in Backend::available() {
///     let mut p = SetProduct::new(backend);
///     p.insert(b"coin 2");
///     p.insert(b"coin 1");
///     assert_eq!(p.finish().finalize(), want);
/// }
/// ```
#[derive(Clone, Debug)]
pub struct SetProduct {
    backend: crate::Backend,
    acc: ProductAcc,
}

#[derive(Clone, Debug)]
enum ProductAcc {
    /// 48 words below 2^3072, as in [`MuHash3072`].
    Words(Num3072),
    /// 60 limbs below 2^52, a value below 2^3120 (IFMA).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Limbs52([u64; crate::backend::ifma::num3072::LIMBS52]),
    /// Eight products in 28-bit limbs and the next group of elements (AVX2).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Lanes28(Box<Lanes28Acc>),
}

/// The AVX2 accumulator of [`SetProduct`]: lane l of `acc` is the product of the elements
/// that went to lane l. Hashed elements wait as their ChaCha20 keys in `keys` until there are
/// eight, which are expanded together, straight into limbs (`elems`), and multiplied in;
/// numbers given as such fill `next` lane by lane and are multiplied in when all eight are
/// there.
#[derive(Clone, Debug)]
struct Lanes28Acc {
    acc: crate::backend::avx2::num3072::Lanes28,
    next: crate::backend::avx2::num3072::Lanes28,
    /// Lanes of `next` filled.
    filled: usize,
    keys: [[u8; 32]; 8],
    /// Keys waiting in `keys`.
    waiting: usize,
    /// Room for the elements of eight keys.
    elems: crate::backend::avx2::num3072::Lanes28,
    /// Whether `acc` holds anything but ones.
    used: bool,
}

impl SetProduct {
    /// The empty product (1), multiplied on `backend`.
    pub fn new(backend: crate::Backend) -> SetProduct {
        let acc = match backend.kind() {
            #[cfg(target_arch = "x86_64")]
            crate::backend::BackendKind::Ifma => {
                let mut one = [0u64; crate::backend::ifma::num3072::LIMBS52];
                one[0] = 1;
                ProductAcc::Limbs52(one)
            }
            #[cfg(target_arch = "x86_64")]
            crate::backend::BackendKind::Avx2 => {
                let mut ones = [[0u64; 8]; crate::backend::avx2::num3072::LIMBS28];
                ones[0] = [1; 8];
                ProductAcc::Lanes28(Box::new(Lanes28Acc {
                    acc: ones,
                    next: ones,
                    filled: 0,
                    keys: [[0; 32]; 8],
                    waiting: 0,
                    elems: ones,
                    used: false,
                }))
            }
            _ => ProductAcc::Words(Num3072::ONE),
        };
        SetProduct { backend, acc }
    }

    /// Multiplies in the element of `data`.
    pub fn insert(&mut self, data: &[u8]) {
        let key = sha256(data);
        match &mut self.acc {
            ProductAcc::Words(n) => {
                *n = n.mul_with(self.backend, &Num3072::from_le_bytes(&keystream_384(self.backend, &key)))
            }
            ProductAcc::Limbs52(l) => {
                let x =
                    crate::backend::ifma::num3072::limbs52_from_le_bytes(&keystream_384(self.backend, &key));
                *l = crate::backend::ifma::num3072::mul_on(self.backend, l, &x);
            }
            ProductAcc::Lanes28(p) => p.push_key(self.backend, key),
        }
    }

    /// Multiplies in `x` (any value below 2^3072).
    pub fn mul_num(&mut self, x: &Num3072) {
        match &mut self.acc {
            ProductAcc::Words(n) => *n = n.mul_with(self.backend, x),
            ProductAcc::Limbs52(l) => {
                let x = crate::backend::ifma::num3072::to_limbs52(&x.limbs);
                *l = crate::backend::ifma::num3072::mul_on(self.backend, l, &x);
            }
            ProductAcc::Lanes28(p) => {
                p.push(self.backend, &crate::backend::avx2::num3072::limbs28_from_le_bytes(&x.to_le_bytes()))
            }
        }
    }

    /// The product as a MuHash accumulator (numerator; denominator 1).
    pub fn finish(&self) -> MuHash3072 {
        let numerator = match &self.acc {
            ProductAcc::Words(n) => *n,
            ProductAcc::Limbs52(l) => Num3072::fold(&crate::backend::ifma::num3072::words_from_limbs52(l)),
            ProductAcc::Lanes28(p) => p.product(self.backend),
        };
        MuHash3072 { numerator, denominator: Num3072::ONE }
    }
}

impl Lanes28Acc {
    /// Puts an element (limbs below 2^28) into the next free lane of `next`, and multiplies
    /// `next` into `acc` once all eight lanes are filled.
    fn push(&mut self, backend: crate::Backend, x: &[u64; crate::backend::avx2::num3072::LIMBS28]) {
        for (limb, &v) in self.next.iter_mut().zip(x) {
            limb[self.filled] = v;
        }
        self.filled += 1;
        if self.filled == 8 {
            crate::backend::avx2::num3072::mul_on(backend, &mut self.acc, &self.next);
            self.filled = 0;
            self.used = true;
        }
    }

    /// Puts a hashed element's ChaCha20 key into the next free place of `keys`, and expands the
    /// eight and multiplies them into `acc` once all are there.
    fn push_key(&mut self, backend: crate::Backend, key: [u8; 32]) {
        self.keys[self.waiting] = key;
        self.waiting += 1;
        if self.waiting == 8 {
            elements8_on(backend, &self.keys, &mut self.elems);
            crate::backend::avx2::num3072::mul_on(backend, &mut self.acc, &self.elems);
            self.waiting = 0;
            self.used = true;
        }
    }

    /// The product of everything pushed, as a weakly reduced [`Num3072`]: the eight lanes of
    /// `acc` (when any group was complete), the numbers waiting in `next` and the elements of
    /// the keys waiting in `keys`, multiplied one by one.
    fn product(&self, backend: crate::Backend) -> Num3072 {
        let num = |lane: usize, of: &crate::backend::avx2::num3072::Lanes28| {
            let limbs = core::array::from_fn(|i| of[i][lane]);
            Num3072::fold(&crate::backend::avx2::num3072::words_from_limbs28(&limbs))
        };
        let mut out = Num3072::ONE;
        if self.used {
            for lane in 0..8 {
                out = out.mul_with(backend, &num(lane, &self.acc));
            }
        }
        for lane in 0..self.filled {
            out = out.mul_with(backend, &num(lane, &self.next));
        }
        for key in &self.keys[..self.waiting] {
            out = out.mul_with(backend, &Num3072::from_le_bytes(&keystream_384(backend, key)));
        }
        out
    }
}

/// MuHash's elements of eight keys in the AVX2 product's 28-bit limb lanes, lane l from
/// `keys[l]`: eight keys per ChaCha20 pass (`backend::avx2::chacha20::elements8`) under an Avx2
/// token, [`keystream_384`] key by key otherwise.
pub(crate) fn elements8_on(
    backend: crate::Backend,
    keys: &[[u8; 32]; 8],
    out: &mut crate::backend::avx2::num3072::Lanes28,
) {
    #[cfg(target_arch = "x86_64")]
    if backend.kind() == crate::backend::BackendKind::Avx2 {
        // SAFETY: an Avx2 token exists only when `Cpu::get()` saw avx2, bmi2 and adx.
        return unsafe { crate::backend::avx2::chacha20::elements8(keys, out) };
    }
    for (lane, key) in keys.iter().enumerate() {
        let limbs = crate::backend::avx2::num3072::limbs28_from_le_bytes(&keystream_384(backend, key));
        for (limb, v) in out.iter_mut().zip(limbs) {
            limb[lane] = v;
        }
    }
}

/// The rolling set hash. See the module documentation.
///
/// ```
/// use fullverify::muhash::MuHash3072;
///
/// // Order does not matter, and removal undoes insertion.
/// let mut a = MuHash3072::new();
/// a.insert(b"coin 1").insert(b"coin 2").insert(b"coin 3");
/// let mut b = MuHash3072::new();
/// b.insert(b"coin 3").insert(b"coin 1");
/// a.remove(b"coin 2");
/// assert_eq!(a.finalize(), b.finalize());
///
/// // Bitcoin Core's muhash test: FromInt(0) * FromInt(1) / FromInt(2), where FromInt(i) is the
/// // set holding the 32 bytes [i, 0, ..., 0]; Core displays the digest byte-reversed.
/// let from_int = |i: u8| {
///     let mut d = [0u8; 32];
///     d[0] = i;
///     let mut m = MuHash3072::new();
///     m.insert(&d);
///     m
/// };
/// let mut acc = from_int(0);
/// acc.combine(&from_int(1)).remove_set(&from_int(2));
/// let mut out = acc.finalize();
/// out.reverse();
/// assert_eq!(hex::encode(out), "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MuHash3072 {
    numerator: Num3072,
    denominator: Num3072,
}

impl Default for MuHash3072 {
    fn default() -> Self {
        MuHash3072::new()
    }
}

impl MuHash3072 {
    /// The hash of the empty set.
    pub const fn new() -> MuHash3072 {
        MuHash3072 { numerator: Num3072::ONE, denominator: Num3072::ONE }
    }

    /// Adds `data` to the set.
    pub fn insert(&mut self, data: &[u8]) -> &mut Self {
        self.numerator = self.numerator.mul(&to_num3072(data));
        self
    }

    /// [`MuHash3072::insert`] with the multiplication on `backend`.
    pub fn insert_with(&mut self, backend: crate::Backend, data: &[u8]) -> &mut Self {
        self.numerator = self.numerator.mul_with(backend, &to_num3072_with(backend, data));
        self
    }

    /// Removes `data` from the set (it need not have been inserted: the hash is of a
    /// multiset with signed multiplicities).
    pub fn remove(&mut self, data: &[u8]) -> &mut Self {
        self.denominator = self.denominator.mul(&to_num3072(data));
        self
    }

    /// Combines with another accumulator (set union): Core's `operator*=`.
    pub fn combine(&mut self, other: &MuHash3072) -> &mut Self {
        self.numerator = self.numerator.mul(&other.numerator);
        self.denominator = self.denominator.mul(&other.denominator);
        self
    }

    /// Removes another accumulator's set: Core's `operator/=`.
    pub fn remove_set(&mut self, other: &MuHash3072) -> &mut Self {
        self.numerator = self.numerator.mul(&other.denominator);
        self.denominator = self.denominator.mul(&other.numerator);
        self
    }

    /// The 32-byte digest (raw SHA-256 output; Core displays it byte-reversed). Leaves the
    /// accumulator holding the same set with denominator 1.
    pub fn finalize(&mut self) -> [u8; 32] {
        let inv = self.denominator.inverse();
        self.numerator = self.numerator.reduced().mul(&inv).reduced();
        self.denominator = Num3072::ONE;
        sha256(&self.numerator.to_le_bytes())
    }

    /// Core's serialization: numerator then denominator, 384 bytes little-endian each.
    pub fn serialize(&self) -> [u8; 768] {
        let mut out = [0u8; 768];
        out[..384].copy_from_slice(&self.numerator.to_le_bytes());
        out[384..].copy_from_slice(&self.denominator.to_le_bytes());
        out
    }

    /// Inverse of [`MuHash3072::serialize`].
    pub fn deserialize(b: &[u8; 768]) -> MuHash3072 {
        let (n, d) = b.split_at(384);
        MuHash3072 {
            numerator: Num3072::from_le_bytes(n.try_into().expect("384")),
            denominator: Num3072::from_le_bytes(d.try_into().expect("384")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_int(i: u8) -> MuHash3072 {
        let mut m = MuHash3072::new();
        let mut d = [0u8; 32];
        d[0] = i;
        m.insert(&d);
        m
    }

    /// The MULX/ADCX/ADOX product against num-bigint, word for word before any reduction, and
    /// the reduced product against the portable one, on operands that saturate every carry
    /// chain (all ones, m − 1, m, single saturated words, powers of two) and random ones.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn num3072_adx_product_vs_bigint_and_portable() {
        use num_bigint::BigUint;
        let Some(asm) = crate::backend::require_or_skip(crate::backend::BackendKind::Asm) else { return };
        let big =
            |w: &[u64]| BigUint::from_bytes_le(&w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
        let mut shapes: Vec<[u64; LIMBS]> = vec![[0; LIMBS], [u64::MAX; LIMBS]];
        let mut one = [0; LIMBS];
        one[0] = 1;
        shapes.push(one);
        let mut m = [u64::MAX; LIMBS];
        m[0] = u64::MAX - MAX_PRIME_DIFF + 1;
        shapes.push(m);
        m[0] -= 1;
        shapes.push(m);
        // Words at the ends and on both sides of the middle (where a product split in halves
        // would cut).
        for k in [0, 1, 23, 24, 25, 46, 47] {
            let mut w = [0; LIMBS];
            w[k] = u64::MAX;
            shapes.push(w);
            let mut p = [0; LIMBS];
            p[k] = 1 << (k % 64);
            shapes.push(p);
            let mut below = [u64::MAX; LIMBS];
            below[k] = u64::MAX - 1;
            shapes.push(below);
        }
        // Halves equal, and one half all ones with the other zero, in both orders: operands
        // whose halves are as alike and as unlike as they can be.
        let mut lo_ones = [0; LIMBS];
        lo_ones[..LIMBS / 2].fill(u64::MAX);
        let mut hi_ones = [0; LIMBS];
        hi_ones[LIMBS / 2..].fill(u64::MAX);
        shapes.extend([lo_ones, hi_ones]);
        let mut seed = 0x3072_u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed ^ (seed >> 29)
        };
        let half: [u64; LIMBS / 2] = core::array::from_fn(|_| next());
        shapes.push(core::array::from_fn(|i| half[i % (LIMBS / 2)]));
        for _ in 0..40 {
            shapes.push(core::array::from_fn(|_| next()));
        }
        for a in &shapes {
            for b in &shapes {
                // SAFETY: an Asm token exists only when the CPU has BMI2 and ADX.
                let t = unsafe { crate::backend::x86_64_asm::num3072::mul(a, b) };
                assert_eq!(big(&t), big(a) * big(b));
                let (x, y) = (Num3072 { limbs: *a }, Num3072 { limbs: *b });
                assert_eq!(x.mul_with(asm, &y), x.mul_with(crate::Backend::portable(), &y));
            }
        }
    }

    #[test]
    fn chacha20_rfc8439_block() {
        let key: [u8; 32] = core::array::from_fn(|i| i as u8);
        let nonce = [0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0];
        let out = chacha20_block(&key, 1, &nonce);
        assert_eq!(
            hex::encode(&out[..32]),
            "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        );
    }

    #[test]
    fn core_muhash_test_vector() {
        // Bitcoin Core crypto_tests/muhash_tests: FromInt(0) * FromInt(1) / FromInt(2),
        // compared as a uint256 (byte-reversed display).
        let mut acc = from_int(0);
        acc.combine(&from_int(1));
        acc.remove_set(&from_int(2));
        let mut out = acc.finalize();
        out.reverse();
        assert_eq!(hex::encode(out), "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863");
        // The same by insert/remove.
        let mut acc2 = from_int(0);
        let (mut one, mut two) = ([0u8; 32], [0u8; 32]);
        one[0] = 1;
        two[0] = 2;
        acc2.insert(&one).remove(&two);
        let mut out2 = acc2.finalize();
        out2.reverse();
        assert_eq!(out, out2);
    }

    #[test]
    fn overflowing_numerator_is_reduced() {
        // Core: numerator 2^3072 − 1 (≥ m), denominator 1.
        let mut ser = [0u8; 768];
        ser[..384].fill(0xff);
        ser[384] = 1;
        let mut m = MuHash3072::deserialize(&ser);
        assert_eq!(
            hex::encode(m.finalize()),
            "3a31e6903aff0de9f62f9a9f7f8b861de76ce2cda09822b90014319ae5dc2271"
        );
    }

    #[test]
    fn inverse_and_order_independence() {
        let x = to_num3072(b"fullverify");
        assert_eq!(x.mul(&x.inverse()).reduced(), Num3072::ONE);
        let mut a = MuHash3072::new();
        a.insert(b"x").insert(b"y").remove(b"z");
        let mut b = MuHash3072::new();
        b.remove(b"z").insert(b"y").insert(b"x");
        assert_eq!(a.finalize(), b.finalize());
        let mut c = MuHash3072::new();
        c.insert(b"q").remove(b"q");
        assert_eq!(c.finalize(), MuHash3072::new().finalize());
        // Serialization round trip.
        assert_eq!(MuHash3072::deserialize(&a.serialize()), a);
    }

    #[test]
    fn fold_handles_maximal_operands() {
        // (2^3072 − 1)^2 exercises every carry in the product and both folds.
        let max = Num3072 { limbs: [u64::MAX; LIMBS] };
        let sq = max.sqr().reduced();
        // 2^3072 − 1 ≡ d − 1 (mod m), so its square is (d − 1)^2.
        let mut want = [0u64; LIMBS];
        want[0] = (MAX_PRIME_DIFF - 1) * (MAX_PRIME_DIFF - 1);
        assert_eq!(sq, Num3072 { limbs: want });
    }
}
