// SPDX-License-Identifier: MIT OR Apache-2.0
//! Core's script assembly notation (`ParseScript` in core_read.cpp), as used by
//! `script_tests.json`, `tx_valid.json` and `tx_invalid.json`, and a disassembler.
//!
//! Words are separated by spaces, tabs or newlines:
//! - a decimal number in −0xFFFFFFFF..=0xFFFFFFFF becomes a minimal push (`OP_0`, `OP_1NEGATE`,
//!   `OP_1..OP_16`, or a CScriptNum push);
//! - `0x<hex>` inserts the raw bytes (not a push);
//! - `'text'` pushes the bytes of `text`;
//! - an opcode name with or without `OP_` (`ADD`, `OP_ADD`), for `OP_NOP` and above plus
//!   `OP_RESERVED` (up to `OP_CHECKSIGADD`).

use super::interpreter::{push_data_script, scriptnum_encode};
use super::opcodes::{get_op, op_name, OP_0, OP_1, OP_CHECKSIGADD, OP_NOP, OP_RESERVED};

/// Why an asm string does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError(pub String);

impl std::fmt::Display for AsmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "script parse error: {}", self.0)
    }
}

impl std::error::Error for AsmError {}

fn lookup_opcode(word: &str) -> Option<u8> {
    (OP_NOP..=OP_CHECKSIGADD)
        .chain([OP_RESERVED])
        .find(|&op| op_name(op).is_some_and(|n| n == word || n.strip_prefix("OP_") == Some(word)))
}

/// Appends the minimal push of the integer `n` (CScript's `operator<<(int64_t)`).
pub fn push_int(out: &mut Vec<u8>, n: i64) {
    if n == -1 || (1..=16).contains(&n) {
        out.push((n + (OP_1 as i64 - 1)) as u8);
    } else if n == 0 {
        out.push(OP_0);
    } else {
        out.extend_from_slice(&push_data_script(&scriptnum_encode(n)));
    }
}

fn parse_hex(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// Parses Core's script assembly into script bytes.
pub fn parse_asm(s: &str) -> Result<Vec<u8>, AsmError> {
    let mut out = Vec::new();
    for w in s.split([' ', '\t', '\n']).filter(|w| !w.is_empty()) {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if digits(w) || (w.starts_with('-') && digits(&w[1..])) {
            let n: i64 = w.parse().map_err(|_| AsmError(format!("bad number {w}")))?;
            if !(-0xffff_ffff..=0xffff_ffff).contains(&n) {
                return Err(AsmError(format!("decimal {w} out of range")));
            }
            push_int(&mut out, n);
        } else if let Some(h) = w.strip_prefix("0x").and_then(parse_hex) {
            out.extend_from_slice(&h);
        } else if w.len() >= 2 && w.starts_with('\'') && w.ends_with('\'') {
            out.extend_from_slice(&push_data_script(&w.as_bytes()[1..w.len() - 1]));
        } else if let Some(op) = lookup_opcode(w) {
            out.push(op);
        } else {
            return Err(AsmError(format!("unknown opcode {w}")));
        }
    }
    Ok(out)
}

/// A readable disassembly: pushes as hex, opcodes by name, `[error]` at a truncated push.
pub fn to_asm(script: &[u8]) -> String {
    let mut parts = Vec::new();
    let mut pc = 0;
    while pc < script.len() {
        match get_op(script, &mut pc) {
            Some(op) if op.opcode <= 0x4e && op.opcode != 0 => {
                parts.push(op.data.iter().map(|b| format!("{b:02x}")).collect::<String>())
            }
            Some(op) => parts.push(
                op_name(op.opcode)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("OP_UNKNOWN_{:#04x}", op.opcode)),
            ),
            None => {
                parts.push("[error]".into());
                break;
            }
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_asm_forms() {
        assert_eq!(parse_asm("0 1 16 -1 17").unwrap(), vec![0x00, 0x51, 0x60, 0x4f, 0x01, 0x11]);
        assert_eq!(parse_asm("DUP OP_HASH160 0x14 0xaa").unwrap(), vec![0x76, 0xa9, 0x14, 0xaa]);
        assert_eq!(parse_asm("'ab' NOP2").unwrap_err().0, "unknown opcode NOP2");
        assert_eq!(parse_asm("'ab' CHECKLOCKTIMEVERIFY").unwrap(), vec![0x02, b'a', b'b', 0xb1]);
        assert_eq!(parse_asm("-128").unwrap(), vec![0x02, 0x80, 0x80]);
        assert!(parse_asm("4294967296").is_err());
        assert!(parse_asm("0x").is_err());
        assert!(parse_asm("1").is_ok());
    }
}
