// SPDX-License-Identifier: MIT OR Apache-2.0
//! Opcode values and names (Core's `script.h`), and the script-op reader (`GetScriptOp`).
//!
//! A script is a byte string of ops: `0x00..=0x4b` push that many bytes; `OP_PUSHDATA1/2/4`
//! push a 1/2/4-byte little-endian length then the bytes; everything else is one byte.

/// Pushes the empty byte string (false, zero).
pub const OP_0: u8 = 0x00;
/// Pushes the next N bytes, N given by a 1-byte length.
pub const OP_PUSHDATA1: u8 = 0x4c;
/// Pushes the next N bytes, N given by a 2-byte little-endian length.
pub const OP_PUSHDATA2: u8 = 0x4d;
/// Pushes the next N bytes, N given by a 4-byte little-endian length.
pub const OP_PUSHDATA4: u8 = 0x4e;
/// Pushes the number -1.
pub const OP_1NEGATE: u8 = 0x4f;
/// Fails when executed (OP_SUCCESS80 in tapscript).
pub const OP_RESERVED: u8 = 0x50;
/// Pushes the number 1 (true); `OP_1 + k - 1` pushes k for k in 1..=16.
pub const OP_1: u8 = 0x51;
/// Pushes the number 16.
pub const OP_16: u8 = 0x60;
/// Does nothing.
pub const OP_NOP: u8 = 0x61;
/// Fails when executed (OP_SUCCESS98 in tapscript).
pub const OP_VER: u8 = 0x62;
/// Runs the following branch if the top item is true (pops it).
pub const OP_IF: u8 = 0x63;
/// Runs the following branch if the top item is false (pops it).
pub const OP_NOTIF: u8 = 0x64;
/// Fails even in an unexecuted branch.
pub const OP_VERIF: u8 = 0x65;
/// Fails even in an unexecuted branch.
pub const OP_VERNOTIF: u8 = 0x66;
/// Switches the innermost IF/NOTIF branch.
pub const OP_ELSE: u8 = 0x67;
/// Ends the innermost IF/NOTIF.
pub const OP_ENDIF: u8 = 0x68;
/// Fails unless the top item is true; pops it.
pub const OP_VERIFY: u8 = 0x69;
/// Fails (marks an output provably unspendable).
pub const OP_RETURN: u8 = 0x6a;
/// Moves the top item to the altstack.
pub const OP_TOALTSTACK: u8 = 0x6b;
/// Moves the top altstack item to the stack.
pub const OP_FROMALTSTACK: u8 = 0x6c;
/// Removes the top two items.
pub const OP_2DROP: u8 = 0x6d;
/// Duplicates the top two items.
pub const OP_2DUP: u8 = 0x6e;
/// Duplicates the top three items.
pub const OP_3DUP: u8 = 0x6f;
/// Copies the third and fourth items to the top.
pub const OP_2OVER: u8 = 0x70;
/// Moves the fifth and sixth items to the top.
pub const OP_2ROT: u8 = 0x71;
/// Swaps the top two pairs.
pub const OP_2SWAP: u8 = 0x72;
/// Duplicates the top item if it is true.
pub const OP_IFDUP: u8 = 0x73;
/// Pushes the stack size.
pub const OP_DEPTH: u8 = 0x74;
/// Removes the top item.
pub const OP_DROP: u8 = 0x75;
/// Duplicates the top item.
pub const OP_DUP: u8 = 0x76;
/// Removes the second item.
pub const OP_NIP: u8 = 0x77;
/// Copies the second item to the top.
pub const OP_OVER: u8 = 0x78;
/// Copies the item n deep (n popped from the top) to the top.
pub const OP_PICK: u8 = 0x79;
/// Moves the item n deep (n popped from the top) to the top.
pub const OP_ROLL: u8 = 0x7a;
/// Moves the third item to the top.
pub const OP_ROT: u8 = 0x7b;
/// Swaps the top two items.
pub const OP_SWAP: u8 = 0x7c;
/// Copies the top item below the second.
pub const OP_TUCK: u8 = 0x7d;
/// Disabled (fails even unexecuted); OP_SUCCESS126 in tapscript.
pub const OP_CAT: u8 = 0x7e;
/// Disabled (fails even unexecuted); OP_SUCCESS127 in tapscript.
pub const OP_SUBSTR: u8 = 0x7f;
/// Disabled (fails even unexecuted); OP_SUCCESS128 in tapscript.
pub const OP_LEFT: u8 = 0x80;
/// Disabled (fails even unexecuted); OP_SUCCESS129 in tapscript.
pub const OP_RIGHT: u8 = 0x81;
/// Pushes the byte length of the top item (kept).
pub const OP_SIZE: u8 = 0x82;
/// Disabled (fails even unexecuted); OP_SUCCESS131 in tapscript.
pub const OP_INVERT: u8 = 0x83;
/// Disabled (fails even unexecuted); OP_SUCCESS132 in tapscript.
pub const OP_AND: u8 = 0x84;
/// Disabled (fails even unexecuted); OP_SUCCESS133 in tapscript.
pub const OP_OR: u8 = 0x85;
/// Disabled (fails even unexecuted); OP_SUCCESS134 in tapscript.
pub const OP_XOR: u8 = 0x86;
/// Pushes whether the top two items are byte-equal (pops them).
pub const OP_EQUAL: u8 = 0x87;
/// OP_EQUAL then OP_VERIFY.
pub const OP_EQUALVERIFY: u8 = 0x88;
/// Fails when executed (OP_SUCCESS137 in tapscript).
pub const OP_RESERVED1: u8 = 0x89;
/// Fails when executed (OP_SUCCESS138 in tapscript).
pub const OP_RESERVED2: u8 = 0x8a;
/// Adds 1 to the top number.
pub const OP_1ADD: u8 = 0x8b;
/// Subtracts 1 from the top number.
pub const OP_1SUB: u8 = 0x8c;
/// Disabled (fails even unexecuted); OP_SUCCESS141 in tapscript.
pub const OP_2MUL: u8 = 0x8d;
/// Disabled (fails even unexecuted); OP_SUCCESS142 in tapscript.
pub const OP_2DIV: u8 = 0x8e;
/// Negates the top number.
pub const OP_NEGATE: u8 = 0x8f;
/// Replaces the top number by its absolute value.
pub const OP_ABS: u8 = 0x90;
/// Replaces 0 by 1 and any other number by 0.
pub const OP_NOT: u8 = 0x91;
/// Replaces 0 by 0 and any other number by 1.
pub const OP_0NOTEQUAL: u8 = 0x92;
/// Pushes a + b (both popped).
pub const OP_ADD: u8 = 0x93;
/// Pushes a - b (both popped).
pub const OP_SUB: u8 = 0x94;
/// Disabled (fails even unexecuted); OP_SUCCESS149 in tapscript.
pub const OP_MUL: u8 = 0x95;
/// Disabled (fails even unexecuted); OP_SUCCESS150 in tapscript.
pub const OP_DIV: u8 = 0x96;
/// Disabled (fails even unexecuted); OP_SUCCESS151 in tapscript.
pub const OP_MOD: u8 = 0x97;
/// Disabled (fails even unexecuted); OP_SUCCESS152 in tapscript.
pub const OP_LSHIFT: u8 = 0x98;
/// Disabled (fails even unexecuted); OP_SUCCESS153 in tapscript.
pub const OP_RSHIFT: u8 = 0x99;
/// Pushes whether both numbers are non-zero.
pub const OP_BOOLAND: u8 = 0x9a;
/// Pushes whether either number is non-zero.
pub const OP_BOOLOR: u8 = 0x9b;
/// Pushes whether the two numbers are equal.
pub const OP_NUMEQUAL: u8 = 0x9c;
/// OP_NUMEQUAL then OP_VERIFY.
pub const OP_NUMEQUALVERIFY: u8 = 0x9d;
/// Pushes whether the two numbers differ.
pub const OP_NUMNOTEQUAL: u8 = 0x9e;
/// Pushes whether a < b.
pub const OP_LESSTHAN: u8 = 0x9f;
/// Pushes whether a > b.
pub const OP_GREATERTHAN: u8 = 0xa0;
/// Pushes whether a ≤ b.
pub const OP_LESSTHANOREQUAL: u8 = 0xa1;
/// Pushes whether a ≥ b.
pub const OP_GREATERTHANOREQUAL: u8 = 0xa2;
/// Pushes the smaller of two numbers.
pub const OP_MIN: u8 = 0xa3;
/// Pushes the larger of two numbers.
pub const OP_MAX: u8 = 0xa4;
/// Pushes whether min ≤ x < max (`x min max`).
pub const OP_WITHIN: u8 = 0xa5;
/// Replaces the top item by its RIPEMD-160.
pub const OP_RIPEMD160: u8 = 0xa6;
/// Replaces the top item by its SHA-1.
pub const OP_SHA1: u8 = 0xa7;
/// Replaces the top item by its SHA-256.
pub const OP_SHA256: u8 = 0xa8;
/// Replaces the top item by RIPEMD-160(SHA-256(x)).
pub const OP_HASH160: u8 = 0xa9;
/// Replaces the top item by SHA-256(SHA-256(x)).
pub const OP_HASH256: u8 = 0xaa;
/// Starts the signed script code after this op (its position in tapscript).
pub const OP_CODESEPARATOR: u8 = 0xab;
/// Pushes whether the signature is valid for the public key and transaction.
pub const OP_CHECKSIG: u8 = 0xac;
/// OP_CHECKSIG then OP_VERIFY.
pub const OP_CHECKSIGVERIFY: u8 = 0xad;
/// m-of-n signature check (not in tapscript).
pub const OP_CHECKMULTISIG: u8 = 0xae;
/// OP_CHECKMULTISIG then OP_VERIFY.
pub const OP_CHECKMULTISIGVERIFY: u8 = 0xaf;
/// Does nothing (reserved for upgrades).
pub const OP_NOP1: u8 = 0xb0;
/// BIP65 (formerly OP_NOP2): fails unless the transaction's lock time reaches the top number.
pub const OP_CHECKLOCKTIMEVERIFY: u8 = 0xb1;
/// BIP112 (formerly OP_NOP3): fails unless the input's relative lock time reaches the top number.
pub const OP_CHECKSEQUENCEVERIFY: u8 = 0xb2;
/// Does nothing (reserved for upgrades); `OP_NOP4..=OP_NOP10` are 0xb3..=0xb9.
pub const OP_NOP4: u8 = 0xb3;
/// Does nothing (reserved for upgrades).
pub const OP_NOP10: u8 = 0xb9;
/// BIP342: `sig n pubkey` → `n + 1` if the signature is valid, `n` if empty (tapscript only).
pub const OP_CHECKSIGADD: u8 = 0xba;
/// Not an opcode: Core's marker for an unparseable op.
pub const OP_INVALIDOPCODE: u8 = 0xff;

/// Core's opcode names (`GetOpName`), without the `OP_` prefix where Core's asm allows it.
#[rustfmt::skip]
pub fn op_name(op: u8) -> Option<&'static str> {
    Some(match op {
        0x00 => "0",
        OP_PUSHDATA1 => "OP_PUSHDATA1",
        OP_PUSHDATA2 => "OP_PUSHDATA2",
        OP_PUSHDATA4 => "OP_PUSHDATA4",
        OP_1NEGATE => "-1",
        OP_RESERVED => "OP_RESERVED",
        0x51 => "1", 0x52 => "2", 0x53 => "3", 0x54 => "4", 0x55 => "5", 0x56 => "6",
        0x57 => "7", 0x58 => "8", 0x59 => "9", 0x5a => "10", 0x5b => "11", 0x5c => "12",
        0x5d => "13", 0x5e => "14", 0x5f => "15", 0x60 => "16",
        OP_NOP => "OP_NOP", OP_VER => "OP_VER", OP_IF => "OP_IF", OP_NOTIF => "OP_NOTIF",
        OP_VERIF => "OP_VERIF", OP_VERNOTIF => "OP_VERNOTIF", OP_ELSE => "OP_ELSE",
        OP_ENDIF => "OP_ENDIF", OP_VERIFY => "OP_VERIFY", OP_RETURN => "OP_RETURN",
        OP_TOALTSTACK => "OP_TOALTSTACK", OP_FROMALTSTACK => "OP_FROMALTSTACK",
        OP_2DROP => "OP_2DROP", OP_2DUP => "OP_2DUP", OP_3DUP => "OP_3DUP",
        OP_2OVER => "OP_2OVER", OP_2ROT => "OP_2ROT", OP_2SWAP => "OP_2SWAP",
        OP_IFDUP => "OP_IFDUP", OP_DEPTH => "OP_DEPTH", OP_DROP => "OP_DROP", OP_DUP => "OP_DUP",
        OP_NIP => "OP_NIP", OP_OVER => "OP_OVER", OP_PICK => "OP_PICK", OP_ROLL => "OP_ROLL",
        OP_ROT => "OP_ROT", OP_SWAP => "OP_SWAP", OP_TUCK => "OP_TUCK", OP_CAT => "OP_CAT",
        OP_SUBSTR => "OP_SUBSTR", OP_LEFT => "OP_LEFT", OP_RIGHT => "OP_RIGHT",
        OP_SIZE => "OP_SIZE", OP_INVERT => "OP_INVERT", OP_AND => "OP_AND", OP_OR => "OP_OR",
        OP_XOR => "OP_XOR", OP_EQUAL => "OP_EQUAL", OP_EQUALVERIFY => "OP_EQUALVERIFY",
        OP_RESERVED1 => "OP_RESERVED1", OP_RESERVED2 => "OP_RESERVED2", OP_1ADD => "OP_1ADD",
        OP_1SUB => "OP_1SUB", OP_2MUL => "OP_2MUL", OP_2DIV => "OP_2DIV",
        OP_NEGATE => "OP_NEGATE", OP_ABS => "OP_ABS", OP_NOT => "OP_NOT",
        OP_0NOTEQUAL => "OP_0NOTEQUAL", OP_ADD => "OP_ADD", OP_SUB => "OP_SUB",
        OP_MUL => "OP_MUL", OP_DIV => "OP_DIV", OP_MOD => "OP_MOD", OP_LSHIFT => "OP_LSHIFT",
        OP_RSHIFT => "OP_RSHIFT", OP_BOOLAND => "OP_BOOLAND", OP_BOOLOR => "OP_BOOLOR",
        OP_NUMEQUAL => "OP_NUMEQUAL", OP_NUMEQUALVERIFY => "OP_NUMEQUALVERIFY",
        OP_NUMNOTEQUAL => "OP_NUMNOTEQUAL", OP_LESSTHAN => "OP_LESSTHAN",
        OP_GREATERTHAN => "OP_GREATERTHAN", OP_LESSTHANOREQUAL => "OP_LESSTHANOREQUAL",
        OP_GREATERTHANOREQUAL => "OP_GREATERTHANOREQUAL", OP_MIN => "OP_MIN", OP_MAX => "OP_MAX",
        OP_WITHIN => "OP_WITHIN", OP_RIPEMD160 => "OP_RIPEMD160", OP_SHA1 => "OP_SHA1",
        OP_SHA256 => "OP_SHA256", OP_HASH160 => "OP_HASH160", OP_HASH256 => "OP_HASH256",
        OP_CODESEPARATOR => "OP_CODESEPARATOR", OP_CHECKSIG => "OP_CHECKSIG",
        OP_CHECKSIGVERIFY => "OP_CHECKSIGVERIFY", OP_CHECKMULTISIG => "OP_CHECKMULTISIG",
        OP_CHECKMULTISIGVERIFY => "OP_CHECKMULTISIGVERIFY", OP_NOP1 => "OP_NOP1",
        OP_CHECKLOCKTIMEVERIFY => "OP_CHECKLOCKTIMEVERIFY",
        OP_CHECKSEQUENCEVERIFY => "OP_CHECKSEQUENCEVERIFY", OP_NOP4 => "OP_NOP4",
        0xb4 => "OP_NOP5", 0xb5 => "OP_NOP6", 0xb6 => "OP_NOP7", 0xb7 => "OP_NOP8",
        0xb8 => "OP_NOP9", OP_NOP10 => "OP_NOP10", OP_CHECKSIGADD => "OP_CHECKSIGADD",
        OP_INVALIDOPCODE => "OP_INVALIDOPCODE",
        _ => return None,
    })
}

/// One parsed op: the opcode and, for pushes, the pushed bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op<'a> {
    /// The opcode byte.
    pub opcode: u8,
    /// The pushed bytes (empty for non-push opcodes and OP_0).
    pub data: &'a [u8],
}

/// Reads the op at `*pc` (Core's `GetScriptOp`). On success `*pc` moves past it. On a truncated
/// push it returns `None` with `*pc` advanced exactly as far as Core's reader had read (past the
/// opcode and any length bytes), which the legacy sighash's code-separator stripping relies on.
#[inline]
pub fn get_op<'a>(script: &'a [u8], pc: &mut usize) -> Option<Op<'a>> {
    let end = script.len();
    if *pc >= end {
        return None;
    }
    let opcode = script[*pc];
    *pc += 1;
    if opcode > OP_PUSHDATA4 {
        return Some(Op { opcode, data: &[] });
    }
    let size = match opcode {
        OP_PUSHDATA1 => {
            if end - *pc < 1 {
                return None;
            }
            let n = script[*pc] as usize;
            *pc += 1;
            n
        }
        OP_PUSHDATA2 => {
            if end - *pc < 2 {
                return None;
            }
            let n = u16::from_le_bytes([script[*pc], script[*pc + 1]]) as usize;
            *pc += 2;
            n
        }
        OP_PUSHDATA4 => {
            if end - *pc < 4 {
                return None;
            }
            let n =
                u32::from_le_bytes([script[*pc], script[*pc + 1], script[*pc + 2], script[*pc + 3]]) as usize;
            *pc += 4;
            n
        }
        n => n as usize,
    };
    if end - *pc < size {
        return None;
    }
    let data = &script[*pc..*pc + size];
    *pc += size;
    Some(Op { opcode, data })
}

/// Whether a script is push-only (Core's `IsPushOnly`: every op ≤ OP_16, and parseable).
pub fn is_push_only(script: &[u8]) -> bool {
    let mut pc = 0;
    while pc < script.len() {
        match get_op(script, &mut pc) {
            Some(op) if op.opcode <= OP_16 => {}
            _ => return false,
        }
    }
    true
}

/// Whether `script` is P2SH: `OP_HASH160 <20> OP_EQUAL`.
pub fn is_p2sh(script: &[u8]) -> bool {
    script.len() == 23 && script[0] == OP_HASH160 && script[1] == 0x14 && script[22] == OP_EQUAL
}

/// The witness program `(version, program)` if `script` is one (BIP141: a version push
/// `OP_0`/`OP_1..OP_16` followed by one direct push of 2..40 bytes, total 4..42 bytes).
pub fn witness_program(script: &[u8]) -> Option<(u8, &[u8])> {
    if script.len() < 4 || script.len() > 42 {
        return None;
    }
    let v = script[0];
    if v != OP_0 && !(OP_1..=OP_16).contains(&v) {
        return None;
    }
    if script[1] as usize + 2 == script.len() {
        let ver = if v == OP_0 { 0 } else { v - OP_1 + 1 };
        Some((ver, &script[2..]))
    } else {
        None
    }
}

/// Whether the script starts with `OP_RETURN` or is larger than 10,000 bytes (Core's
/// `IsUnspendable`).
pub fn is_unspendable(script: &[u8]) -> bool {
    (!script.is_empty() && script[0] == OP_RETURN) || script.len() > 10_000
}
