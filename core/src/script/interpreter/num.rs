// SPDX-License-Identifier: MIT OR Apache-2.0
//! `CScriptNum` and `CastToBool` (script/script.h, script/interpreter.cpp).
//!
//! Numbers on the stack are little-endian sign-magnitude byte strings: at most 4 bytes as
//! operands (5 for CLTV/CSV), results up to 5 bytes. Truth: any non-zero byte except a trailing
//! sign-only `0x80` ("negative zero" is false).

use super::error::{Res, ScriptError};

/// Decodes a CScriptNum of at most `max_len` bytes; `minimal` rejects non-minimal encodings.
pub fn scriptnum_decode(v: &[u8], minimal: bool, max_len: usize) -> Res<i64> {
    if v.len() > max_len {
        return Err(ScriptError::ScriptNum);
    }
    if minimal && !v.is_empty() {
        // The most significant byte may be 0x00/0x80 only when the next byte's high bit needs it.
        let last = v[v.len() - 1];
        if last & 0x7f == 0 && (v.len() <= 1 || v[v.len() - 2] & 0x80 == 0) {
            return Err(ScriptError::ScriptNum);
        }
    }
    if v.is_empty() {
        return Ok(0);
    }
    let mut r: i64 = 0;
    for (i, b) in v.iter().enumerate() {
        r |= (*b as i64) << (8 * i);
    }
    let last = v[v.len() - 1];
    if last & 0x80 != 0 {
        Ok(-(r & !(0x80i64 << (8 * (v.len() - 1)))))
    } else {
        Ok(r)
    }
}

/// Encodes a CScriptNum (minimal, sign-magnitude little-endian).
pub fn scriptnum_encode(n: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(9);
    if n == 0 {
        return out;
    }
    let neg = n < 0;
    let mut a = n.unsigned_abs();
    while a > 0 {
        out.push((a & 0xff) as u8);
        a >>= 8;
    }
    let last = out.len() - 1;
    if out[last] & 0x80 != 0 {
        out.push(if neg { 0x80 } else { 0 });
    } else if neg {
        out[last] |= 0x80;
    }
    out
}

/// `CastToBool`.
pub fn cast_to_bool(v: &[u8]) -> bool {
    for (i, b) in v.iter().enumerate() {
        if *b != 0 {
            // Negative zero is false.
            return !(i == v.len() - 1 && *b == 0x80);
        }
    }
    false
}

/// `CScriptNum::getint`: clamp to the i32 range.
pub(super) fn getint(n: i64) -> i64 {
    n.clamp(i32::MIN as i64, i32::MAX as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scriptnum_roundtrip_and_minimality() {
        for n in [0i64, 1, -1, 127, 128, -128, 255, 256, 0x7fff_ffff, -0x7fff_ffff, 1 << 32] {
            assert_eq!(scriptnum_decode(&scriptnum_encode(n), true, 5), Ok(n), "{n}");
        }
        assert_eq!(scriptnum_encode(-1), vec![0x81]);
        assert_eq!(scriptnum_encode(128), vec![0x80, 0x00]);
        assert_eq!(scriptnum_decode(&[0x00], true, 4), Err(ScriptError::ScriptNum));
        assert_eq!(scriptnum_decode(&[0x80], false, 4), Ok(0));
        assert_eq!(scriptnum_decode(&[1, 2, 3, 4, 5], false, 4), Err(ScriptError::ScriptNum));
        assert!(!cast_to_bool(&[0, 0, 0x80]));
        assert!(cast_to_bool(&[0, 0x80, 0]));
    }
}
