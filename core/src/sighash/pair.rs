// SPDX-License-Identifier: MIT OR Apache-2.0
//! Two ALL-class legacy signature hashes at once. A legacy preimage is the whole transaction,
//! so a transaction of n inputs hashes about n²/2 input records, and an input's hashing is one
//! dependent chain of SHA-256 compressions. Computing input i's hash, [`TxContext`] also
//! computes input i+1's, for the script code and hash type that input's spend is expected to
//! ask for (read from the output it spends and its script sig), their blocks compressed in
//! pairs by the two-way SHA-NI kernel; input i+1's check takes that hash only if it asks for
//! exactly that script code and hash type, and computes its own otherwise.

use super::{all_class, LegacyImage, TxContext};
use crate::encode::{write_compact_size, Sink};
use crate::hash::{sha256, update_two};
use crate::script::opcodes::{get_op, is_p2sh, OP_16, OP_CHECKMULTISIG, OP_CHECKSIG, OP_CODESEPARATOR};
use std::sync::OnceLock;

/// Transactions with at least this many inputs compute their legacy hashes in pairs.
const PAIR_MIN_INPUTS: usize = 4;

/// An input's ALL-class legacy hash computed ahead, and what it was computed for.
#[derive(Debug)]
pub(super) struct Ahead {
    script_code: CodeAt,
    hash_type: u32,
    hash: [u8; 32],
}

/// Where an input's expected script code is: the output it spends, or a push of its script sig
/// (a P2SH redeem script; the byte range). Not a slice: the context's lifetime stays covariant.
#[derive(Debug, Clone)]
enum CodeAt {
    Spent,
    ScriptSig(std::ops::Range<usize>),
}

impl<'a> TxContext<'a> {
    /// Input `i`'s ALL-class legacy hash for `script_code` and `hash_type` when it was computed
    /// ahead for them, or computed here together with input i+1's expected one; `None` to
    /// compute it alone (a small transaction, a script code with `OP_CODESEPARATOR` bytes, no
    /// expectation for the next input, or its hash already there).
    pub(super) fn legacy_paired(
        &self,
        image: &LegacyImage,
        i: usize,
        script_code: &[u8],
        hash_type: u32,
    ) -> Option<[u8; 32]> {
        let n = self.tx.inputs.len();
        if n < PAIR_MIN_INPUTS || script_code.contains(&OP_CODESEPARATOR) {
            return None;
        }
        let slots = self.legacy_ahead.get_or_init(|| (0..n).map(|_| OnceLock::new()).collect());
        if let Some(a) = slots[i].get() {
            if self.code_at(i, &a.script_code) == script_code && a.hash_type == hash_type {
                return Some(a.hash);
            }
        }
        let next = slots.get(i + 1).filter(|s| s.get().is_none())?;
        let (at, ht) = self.legacy_expected(i + 1)?;
        let code = self.code_at(i + 1, &at);
        let (mine, theirs) = self.legacy_two(image, (i, script_code, hash_type), (i + 1, code, ht));
        let _ = next.set(Ahead { script_code: at, hash_type: ht, hash: theirs });
        Some(mine)
    }

    /// The bytes `at` names for input `j`.
    fn code_at(&self, j: usize, at: &CodeAt) -> &'a [u8] {
        let tx: &'a crate::encode::Transaction = self.tx;
        match at {
            CodeAt::Spent => self.spent_outputs.map_or(&[], |s| &s[j].script_pubkey),
            CodeAt::ScriptSig(r) => &tx.inputs[j].script_sig[r.clone()],
        }
    }

    /// The script code and hash type input `j`'s signature check is expected to ask for: a
    /// spend without witness of an output whose script (or, for P2SH, the redeem script, the
    /// script sig's last push) ends in `CHECKSIG` or `CHECKMULTISIG` and has no
    /// `OP_CODESEPARATOR` byte, the hash type being the last byte of the script sig's first
    /// non-empty push; ALL-class only. A wrong expectation costs a hash, never a verdict.
    fn legacy_expected(&self, j: usize) -> Option<(CodeAt, u32)> {
        let tx: &'a crate::encode::Transaction = self.tx;
        let spent = self.spent_outputs?.get(j)?;
        let input = &tx.inputs[j];
        if !input.witness.is_empty() {
            return None;
        }
        let (mut pc, mut first, mut last) = (0, None, None);
        while pc < input.script_sig.len() {
            let op = get_op(&input.script_sig, &mut pc)?;
            if op.opcode > OP_16 {
                return None;
            }
            if first.is_none() && !op.data.is_empty() {
                first = Some(op.data);
            }
            last = Some(pc - op.data.len()..pc);
        }
        let at = if is_p2sh(&spent.script_pubkey) { CodeAt::ScriptSig(last?) } else { CodeAt::Spent };
        let code = self.code_at(j, &at);
        if !matches!(code.last(), Some(&(OP_CHECKSIG | OP_CHECKMULTISIG))) || code.contains(&OP_CODESEPARATOR)
        {
            return None;
        }
        let hash_type = u32::from(*first?.last()?);
        all_class(hash_type).then_some((at, hash_type))
    }

    /// The ALL-class legacy hashes of two inputs (index, script code without `OP_CODESEPARATOR`
    /// bytes, hash type), their preimages absorbed together.
    fn legacy_two(
        &self,
        image: &LegacyImage,
        a: (usize, &[u8], u32),
        b: (usize, &[u8], u32),
    ) -> ([u8; 32], [u8; 32]) {
        let (mut ea, mut eb) = (self.legacy_start(image, a.0), self.legacy_start(image, b.0));
        let (la, lb) = (CompactSize::of(a.1.len()), CompactSize::of(b.1.len()));
        let (ta, tb) = (a.2.to_le_bytes(), b.2.to_le_bytes());
        // The input's record with the script code for its empty script, the rest of the
        // transaction, the hash type (as `legacy_sighash` absorbs them).
        fn parts<'p>(
            image: &'p LegacyImage,
            i: usize,
            len: &'p [u8],
            code: &'p [u8],
            t: &'p [u8],
        ) -> [&'p [u8]; 5] {
            let at = image.input_at(i);
            [&image.bytes[at..at + 36], len, code, &image.bytes[at + 37..], t]
        }
        let pa = parts(image, a.0, la.as_slice(), a.1, &ta);
        let pb = parts(image, b.0, lb.as_slice(), b.1, &tb);
        update_two(&mut ea, &pa, &mut eb, &pb);
        (sha256(&ea.finalize()), sha256(&eb.finalize()))
    }
}

/// The few bytes of a compact size, written by [`write_compact_size`] on the stack.
#[derive(Default)]
struct CompactSize {
    bytes: [u8; 9],
    len: usize,
}

impl CompactSize {
    fn of(n: usize) -> CompactSize {
        let mut c = CompactSize::default();
        write_compact_size(&mut c, n as u64);
        c
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Sink for CompactSize {
    fn put(&mut self, b: &[u8]) {
        self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }
}
