// SPDX-License-Identifier: MIT OR Apache-2.0
//! Hex text to bytes and back, with errors that say where the input went wrong.
//!
//! Decoding ignores ASCII whitespace (so a pasted, wrapped or space-grouped dump decodes) and
//! accepts both letter cases. Every other character must be a hex digit, and the digits must
//! pair up: `n` digits give `n / 2` bytes, and odd `n` is an error. Positions in error
//! messages count characters (not bytes) from 0 in the text as given.

use core::fmt;

/// Why a hex text did not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexError {
    /// A character that is neither a hex digit nor whitespace.
    BadDigit { ch: char, pos: usize },
    /// The digits (whitespace not counted) do not pair up into bytes.
    OddLength { digits: usize },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::BadDigit { ch, pos } => {
                write!(f, "invalid hex digit {ch:?} at position {pos}")
            }
            HexError::OddLength { digits } => {
                write!(f, "odd number of hex digits ({digits}); each byte needs two")
            }
        }
    }
}

impl std::error::Error for HexError {}

fn nibble(c: char) -> Option<u8> {
    c.to_digit(16).map(|d| d as u8)
}

/// Decodes hex text, skipping ASCII whitespace.
pub fn decode(text: &str) -> Result<Vec<u8>, HexError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    let mut digits = 0usize;
    for (pos, ch) in text.chars().enumerate() {
        if ch.is_ascii_whitespace() {
            continue;
        }
        let n = nibble(ch).ok_or(HexError::BadDigit { ch, pos })?;
        digits += 1;
        match high.take() {
            None => high = Some(n),
            Some(h) => out.push((h << 4) | n),
        }
    }
    if high.is_some() {
        return Err(HexError::OddLength { digits });
    }
    Ok(out)
}

/// Lower-case hex of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_vs_encode_round_trip() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&bytes)).unwrap(), bytes);
        assert_eq!(decode(&encode(&bytes).to_uppercase()).unwrap(), bytes);
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
        assert_eq!(decode(" de ad\n\tBE\r\nef ").unwrap(), vec![0xde, 0xad, 0xbe, 0xef]);
    }

    #[test]
    fn decode_errors_name_the_problem() {
        assert_eq!(decode("abc"), Err(HexError::OddLength { digits: 3 }));
        assert_eq!(decode("a b c"), Err(HexError::OddLength { digits: 3 }));
        assert_eq!(decode("00zz"), Err(HexError::BadDigit { ch: 'z', pos: 2 }));
        assert_eq!(decode("0x00"), Err(HexError::BadDigit { ch: 'x', pos: 1 }));
        // Positions count characters, so a multi-byte character does not shift later ones.
        assert_eq!(decode("é0g"), Err(HexError::BadDigit { ch: 'é', pos: 0 }));
        assert_eq!(decode("00\u{00e9}"), Err(HexError::BadDigit { ch: 'é', pos: 2 }));
        assert_eq!(decode("0g").unwrap_err().to_string(), "invalid hex digit 'g' at position 1");
        assert_eq!(
            decode("abc").unwrap_err().to_string(),
            "odd number of hex digits (3); each byte needs two"
        );
    }
}
