// SPDX-License-Identifier: MIT OR Apache-2.0
//! Script code as signature hashes see it: Core's serialization of a push (`CScript << data`)
//! and `FindAndDelete`, which strips signatures from pre-segwit script code.

use crate::script::opcodes::*;

/// `CScript() << data`: the push of `data` Core's serializer would produce.
pub fn push_data_script(data: &[u8]) -> Vec<u8> {
    let mut s = Vec::with_capacity(data.len() + 5);
    let n = data.len();
    if n < OP_PUSHDATA1 as usize {
        s.push(n as u8);
    } else if n <= 0xff {
        s.push(OP_PUSHDATA1);
        s.push(n as u8);
    } else if n <= 0xffff {
        s.push(OP_PUSHDATA2);
        s.extend_from_slice(&(n as u16).to_le_bytes());
    } else {
        s.push(OP_PUSHDATA4);
        s.extend_from_slice(&(n as u32).to_le_bytes());
    }
    s.extend_from_slice(data);
    s
}

/// `FindAndDelete`: removes every op-aligned occurrence of `pattern` from `script`; returns the
/// number removed.
pub fn find_and_delete(script: &mut Vec<u8>, pattern: &[u8]) -> usize {
    if pattern.is_empty() {
        return 0;
    }
    let mut found = 0;
    let mut result = Vec::with_capacity(script.len());
    let mut pc = 0;
    let mut pc2 = 0;
    let end = script.len();
    loop {
        result.extend_from_slice(&script[pc2..pc]);
        while end - pc >= pattern.len() && script[pc..pc + pattern.len()] == *pattern {
            pc += pattern.len();
            found += 1;
        }
        pc2 = pc;
        if get_op(script, &mut pc).is_none() {
            break;
        }
    }
    if found > 0 {
        result.extend_from_slice(&script[pc2..end]);
        *script = result;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_and_delete_matches_core_cases() {
        // Cases from Core's script_FindAndDelete test.
        // Not op-aligned: the pattern sits inside a push.
        let mut s = vec![0x02, 0x01, 0x02, 0x51];
        assert_eq!(find_and_delete(&mut s, &[0x01, 0x02]), 0);
        assert_eq!(s, vec![0x02, 0x01, 0x02, 0x51]);
        let mut s = vec![0x01, 0x02, 0x01, 0x02];
        assert_eq!(find_and_delete(&mut s, &[0x01, 0x02]), 2);
        assert!(s.is_empty());
        let mut s = vec![OP_CODESEPARATOR, 0x01, 0x02];
        assert_eq!(find_and_delete(&mut s, &[0x01, 0x02]), 1);
        assert_eq!(s, vec![OP_CODESEPARATOR]);
    }
}
