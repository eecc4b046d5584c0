// SPDX-License-Identifier: MIT OR Apache-2.0
//! The GLV explorer: how a scalar splits into two half-length scalars and what the split saves
//! in the verifier's interleaved wNAF ladder.
//!
//! Everything comes from [`fullverify::secp256k1::arith`]: [`Scalar::split_lambda`] gives
//! c1, c2, k1, k2; [`wnaf`] the digit streams; [`AffinePoint`] the endomorphism check
//! λ·Q = (β·x, y).

use crate::hex;
use crate::view::{to_js, FieldError};
use fullverify::secp256k1::arith::{wnaf, AffinePoint, FieldElement, Scalar, LAMBDA};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// β, a cube root of unity mod p with λ·(x, y) = (β·x, y), big-endian.
const BETA: [u8; 32] = [
    0x7a, 0xe9, 0x6a, 0x2b, 0x65, 0x7c, 0x07, 0x10, 0x6e, 0x64, 0x47, 0x9e, 0xac, 0x34, 0x34, 0xe9, 0x9c,
    0xf0, 0x49, 0x75, 0x12, 0xf5, 0x89, 0x95, 0xc1, 0x39, 0x6c, 0x28, 0x71, 0x95, 0x01, 0xee,
];

/// A 256-bit big-endian number as decimal.
pub fn to_decimal(be: &[u8; 32]) -> String {
    let mut limbs: Vec<u32> = be.chunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect();
    let mut digits = Vec::new();
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u64;
        for l in limbs.iter_mut() {
            let cur = (rem << 32) | u64::from(*l);
            *l = (cur / 10) as u32;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        return "0".into();
    }
    digits.reverse();
    String::from_utf8(digits).expect("ASCII digits")
}

/// Reads decimal or `0x` hex text as a 256-bit big-endian number (None if it is longer).
fn parse_u256(text: &str) -> Result<[u8; 32], String> {
    let t = text.trim().replace('_', "");
    let mut out = [0u8; 32];
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let h = h.trim_start_matches('0');
        if h.is_empty() {
            return Ok(out);
        }
        if h.len() > 64 {
            return Err("more than 256 bits".into());
        }
        let padded = format!("{h:0>64}");
        let b = hex::decode(&padded).map_err(|e| format!("not hex: {e}"))?;
        out.copy_from_slice(&b);
        return Ok(out);
    }
    if t.is_empty() {
        return Err("enter a scalar (decimal, or hex with 0x)".into());
    }
    for (i, c) in t.chars().enumerate() {
        let d = c
            .to_digit(10)
            .ok_or_else(|| format!("'{c}' at position {i} is not a decimal digit (use 0x for hex)"))?;
        // out = out * 10 + d
        let mut carry = d;
        for byte in out.iter_mut().rev() {
            let v = u32::from(*byte) * 10 + carry;
            *byte = v as u8;
            carry = v >> 8;
        }
        if carry != 0 {
            return Err("more than 256 bits".into());
        }
    }
    Ok(out)
}

/// A scalar from decimal or `0x` hex text; an error for values ≥ n.
pub fn parse_scalar(field: &'static str, text: &str) -> Result<Scalar, FieldError> {
    let b = parse_u256(text).map_err(|m| FieldError::new(field, m))?;
    Scalar::from_bytes(&b).map_err(|_| {
        FieldError::new(field, "out of range: a scalar must be below the group order n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
    })
}

/// A scalar read as a signed value in (−n/2, n/2]: decimal with sign, and the bit length of
/// its absolute value.
fn signed(s: &Scalar) -> (String, u32, bool) {
    let neg = s.is_high();
    let abs = if neg { s.negate() } else { *s };
    let b = abs.to_bytes();
    let bits = b.iter().position(|&x| x != 0).map_or(0, |i| (32 - i as u32) * 8 - b[i].leading_zeros());
    let d = to_decimal(&b);
    (if neg { format!("-{d}") } else { d }, bits, neg)
}

fn bit_length(s: &Scalar) -> u32 {
    let b = s.to_bytes();
    b.iter().position(|&x| x != 0).map_or(0, |i| (32 - i as u32) * 8 - b[i].leading_zeros())
}

/// One half of the split.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Half {
    /// Signed decimal.
    pub decimal: String,
    /// The scalar mod n, hex.
    pub hex: String,
    /// Bits of |k_i|.
    pub bits: u32,
    /// Whether the signed value is negative.
    pub negative: bool,
    /// wNAF digits of the scalar mod n, least significant first (as the ladder consumes a
    /// negative half: the digits of its absolute value, negated).
    pub wnaf: Vec<i32>,
    /// Non-zero digits.
    pub nonzero: usize,
}

/// Operation counts of one method.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Method name.
    pub method: String,
    /// Point doublings.
    pub doublings: usize,
    /// Point additions.
    pub additions: usize,
    /// What the counts include.
    pub detail: String,
}

/// The GLV panel's view.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GlvView {
    /// k, decimal.
    pub k: String,
    /// k, hex.
    pub k_hex: String,
    /// Bits of k.
    pub k_bits: u32,
    /// c1 = ⌊k·g1 / 2^384⌉.
    pub c1: String,
    /// c2 = ⌊k·g2 / 2^384⌉.
    pub c2: String,
    /// k1.
    pub k1: Half,
    /// k2.
    pub k2: Half,
    /// k1 + λ·k2 mod n, hex (equals `kHex`).
    pub recombined: String,
    /// Whether k1 + λ·k2 ≡ k (mod n).
    pub identity_holds: bool,
    /// Whether the split fell back to (k, 0).
    pub fallback: bool,
    /// λ, hex.
    pub lambda: String,
    /// The window width.
    pub w: usize,
    /// Operation counts.
    pub costs: Vec<Cost>,
    /// The endomorphism check, when asked for.
    pub point: Option<PointView>,
}

/// λ·Q = (β·x, y) for Q = k·G.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PointView {
    /// Q = k·G, x and y hex.
    pub qx: String,
    /// Q's y.
    pub qy: String,
    /// λ·Q computed as a scalar multiplication: x.
    pub lambda_qx: String,
    /// λ·Q's y.
    pub lambda_qy: String,
    /// β·x mod p.
    pub beta_x: String,
    /// β, hex.
    pub beta: String,
    /// Whether λ·Q = (β·x, y).
    pub holds: bool,
}

/// The split of `k_text` with window `w` (2..=8), and the endomorphism check when `point`.
pub fn split(k_text: &str, w: usize, point: bool) -> Result<GlvView, FieldError> {
    if !(2..=8).contains(&w) {
        return Err(FieldError::new("w", format!("window width {w} is outside 2..=8")));
    }
    let k = parse_scalar("k", k_text)?;
    let s = k.split_lambda();
    let half = |x: &Scalar| {
        let (decimal, bits, negative) = signed(x);
        let digits = wnaf(x, w);
        let nonzero = digits.iter().filter(|&&d| d != 0).count();
        Half { decimal, hex: hex::encode(&x.to_bytes()), bits, negative, wnaf: digits, nonzero }
    };
    // The ladder runs on the short halves: a negative half is used as |k_i| with the point
    // negated, so its digits are those of |k_i| (negated), not those of n − |k_i|.
    let short = |x: &Scalar| {
        let (_, _, neg) = signed(x);
        let abs = if neg { x.negate() } else { *x };
        let mut d = wnaf(&abs, w);
        if neg {
            d.iter_mut().for_each(|v| *v = -*v);
        }
        d
    };
    let mut k1 = half(&s.k1);
    let mut k2 = half(&s.k2);
    k1.wnaf = short(&s.k1);
    k2.wnaf = short(&s.k2);
    k1.nonzero = k1.wnaf.iter().filter(|&&d| d != 0).count();
    k2.nonzero = k2.wnaf.iter().filter(|&&d| d != 0).count();
    let recombined = s.k1.add(&s.k2.mul(&LAMBDA));
    let table = 1usize << (w - 2);
    let len = k1.wnaf.len().max(k2.wnaf.len());
    let kbits = bit_length(&k);
    let ones = k.to_bytes().iter().map(|b| b.count_ones() as usize).sum::<usize>();
    let plain_wnaf = wnaf(&k, w);
    let plain_nz = plain_wnaf.iter().filter(|&&d| d != 0).count();
    let costs = vec![
        Cost {
            method: "double-and-add on k".into(),
            doublings: (kbits as usize).saturating_sub(1),
            additions: ones.saturating_sub(1),
            detail: "one doubling per bit after the first, one addition per further set bit".into(),
        },
        Cost {
            method: format!("wNAF (w = {w}) on k"),
            doublings: plain_wnaf.len().saturating_sub(1) + 1,
            additions: plain_nz.saturating_sub(1) + table - 1,
            detail: format!("ladder over {} digits plus a table of {table} odd multiples (1 doubling, {} additions)", plain_wnaf.len(), table - 1),
        },
        Cost {
            method: format!("GLV + interleaved wNAF (w = {w})"),
            doublings: len.saturating_sub(1) + 1,
            additions: (k1.nonzero + k2.nonzero).saturating_sub(1) + table - 1,
            detail: format!(
                "one shared ladder over {len} digit positions; the λ table is the first one with x·β (no point operations); table: 1 doubling, {} additions",
                table - 1
            ),
        },
    ];
    let point = point.then(|| {
        let q = AffinePoint::mul_generator(&k);
        let beta = FieldElement::from_bytes(&BETA).expect("β < p");
        match (q.x(), q.y()) {
            (Some(x), Some(y)) => {
                let lq = q.mul_vartime(&LAMBDA);
                let bx = beta.mul(&x);
                let (lx, ly) = (lq.x().expect("finite"), lq.y().expect("finite"));
                PointView {
                    qx: hex::encode(&x.to_bytes()),
                    qy: hex::encode(&y.to_bytes()),
                    lambda_qx: hex::encode(&lx.to_bytes()),
                    lambda_qy: hex::encode(&ly.to_bytes()),
                    beta_x: hex::encode(&bx.to_bytes()),
                    beta: hex::encode(&BETA),
                    holds: lx == bx && ly == y,
                }
            }
            _ => PointView {
                qx: "infinity".into(),
                qy: "infinity".into(),
                lambda_qx: "infinity".into(),
                lambda_qy: "infinity".into(),
                beta_x: "—".into(),
                beta: hex::encode(&BETA),
                holds: q.mul_vartime(&LAMBDA).is_infinity(),
            },
        }
    });
    Ok(GlvView {
        k: to_decimal(&k.to_bytes()),
        k_hex: hex::encode(&k.to_bytes()),
        k_bits: kbits,
        c1: to_decimal(&s.c1.to_bytes()),
        c2: to_decimal(&s.c2.to_bytes()),
        k1,
        k2,
        recombined: hex::encode(&recombined.to_bytes()),
        identity_holds: recombined == k,
        fallback: s.fallback,
        lambda: hex::encode(&LAMBDA.to_bytes()),
        w,
        costs,
        point,
    })
}

/// The GLV panel: see [`split`]. Throws an `Error` with a `field` property (`k` or `w`).
#[wasm_bindgen(js_name = glvSplit)]
pub fn glv_split(k: &str, w: usize, point: bool) -> Result<JsValue, JsValue> {
    to_js(&split(k, w, point)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trip_and_range() {
        let n_minus_1 = "115792089237316195423570985008687907852837564279074904382605163141518161494336";
        let s = parse_scalar("k", n_minus_1).unwrap();
        assert_eq!(s, Scalar::ONE.negate());
        assert_eq!(to_decimal(&s.to_bytes()), n_minus_1);
        assert!(parse_scalar(
            "k",
            "115792089237316195423570985008687907852837564279074904382605163141518161494337"
        )
        .is_err());
        assert_eq!(parse_scalar("k", "0x10").unwrap(), Scalar::from_u64(16));
        assert!(parse_scalar("k", "12a").is_err());
    }

    #[test]
    fn split_recombines_and_halves_are_short() {
        for k in [
            "1",
            "0x", /* zero */
            "123456789",
            "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
        ] {
            let v = split(k, 5, true).unwrap();
            assert!(v.identity_holds, "{k}");
            assert!(v.k1.bits <= 128 && v.k2.bits <= 128, "{k}");
            assert!(v.point.unwrap().holds, "{k}");
        }
    }
}
