// SPDX-License-Identifier: MIT OR Apache-2.0
//! Interpreter cases where Core's exact behaviour is easy to get wrong, each checked against
//! Core's interpreter (libbitcoinconsensus) where its flag set can express the case.

use super::*;
use crate::encode::{OutPoint, Transaction, TxIn, TxOut};
use crate::script::opcodes::*;
use crate::script::{NativeVerifier, ScriptFlags};
use crate::sighash::TxContext;

/// Core's `BuildCreditingTransaction`/`BuildSpendingTransaction` pair for one script test.
fn spend(script_sig: Vec<u8>, script_pubkey: Vec<u8>) -> (Transaction, TxOut) {
    // Version 1, lock time 0, one input with sequence 0xffffffff, one output of 0.
    let one_in_one_out = |prevout, script_sig, script_pubkey| Transaction {
        version: 1,
        inputs: vec![TxIn { prevout, script_sig, sequence: u32::MAX, witness: vec![] }],
        outputs: vec![TxOut { value: 0, script_pubkey }],
        lock_time: 0,
    };
    let credit = one_in_one_out(OutPoint::NULL, vec![0x00, 0x00], script_pubkey);
    let tx = one_in_one_out(OutPoint { txid: credit.txid(), vout: 0 }, script_sig, vec![]);
    (tx, credit.outputs[0].clone())
}

fn run(script_sig: Vec<u8>, script_pubkey: Vec<u8>, flags: ScriptFlags) -> Result<(), ScriptError> {
    let (tx, spent) = spend(script_sig, script_pubkey);
    let outs = [spent];
    let ctx = TxContext::new(&tx, Some(&outs));
    verify_input(&ctx, 0, flags, &NativeVerifier)
}

/// libbitcoinconsensus's verdict (consensus flags only).
fn core_ok(script_sig: Vec<u8>, script_pubkey: Vec<u8>, flags: ScriptFlags) -> bool {
    let (tx, spent) = spend(script_sig, script_pubkey);
    bitcoinconsensus::verify_with_flags(&spent.script_pubkey, 0, &tx.to_bytes(true), None, 0, flags.bits())
        .is_ok()
}

/// secp256k1's group order n, big-endian.
const N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xba,
    0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];

/// A DER integer: the minimal positive encoding of a big-endian value.
fn der_int(v: &[u8]) -> Vec<u8> {
    let mut v = v;
    while v.len() > 1 && v[0] == 0 && v[1] & 0x80 == 0 {
        v = &v[1..];
    }
    let mut out = vec![0x02];
    if v[0] & 0x80 != 0 {
        out.push(v.len() as u8 + 1);
        out.push(0);
    } else {
        out.push(v.len() as u8);
    }
    out.extend_from_slice(v);
    out
}

/// A strictly DER-encoded signature `(r, s)` with SIGHASH_ALL appended.
fn der_sig(r: &[u8], s: &[u8]) -> Vec<u8> {
    let (r, s) = (der_int(r), der_int(s));
    let mut sig = vec![0x30, (r.len() + s.len()) as u8];
    sig.extend(r);
    sig.extend(s);
    sig.push(1);
    assert!(is_valid_signature_encoding(&sig));
    sig
}

/// The compressed generator: a valid key for which these signatures do not verify.
const G: [u8; 33] = [
    0x02, 0x79, 0xbe, 0x66, 0x7e, 0xf9, 0xdc, 0xbb, 0xac, 0x55, 0xa0, 0x62, 0x95, 0xce, 0x87, 0x0b, 0x07,
    0x02, 0x9b, 0xfc, 0xdb, 0x2d, 0xce, 0x28, 0xd9, 0x59, 0xf2, 0x81, 0x5b, 0x16, 0xf8, 0x17, 0x98,
];

/// `<sig> <G>` and `CHECKSIG NOT`: passes exactly when the signature gets past the encoding
/// checks and then fails verification.
fn checksig_not(sig: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut script_sig = push_data_script(sig);
    script_sig.extend(push_data_script(&G));
    (script_sig, vec![OP_CHECKSIG, OP_NOT])
}

/// Core's `CheckLowS` parses with the lax DER parser, which turns an overflowing R or S
/// (≥ n, or longer than 32 bytes once leading zeros are stripped) into the all-zero
/// signature: low S, so LOW_S passes and verification then fails.
#[test]
fn low_s_vs_core_check_low_s() {
    let mut n_minus_1 = N;
    n_minus_1[31] -= 1;
    let one = [1u8];
    let mut half_plus_1 = [0u8; 32];
    // ⌊n/2⌋ + 1, the smallest high S.
    half_plus_1.copy_from_slice(&[
        0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5d,
        0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa1,
    ]);
    let long = [0x7fu8; 33];
    let cases: [(&str, Vec<u8>, Result<(), ScriptError>); 5] = [
        ("S = n", der_sig(&one, &N), Ok(())),
        ("S longer than 32 bytes", der_sig(&one, &long), Ok(())),
        ("R = n, S high", der_sig(&N, &n_minus_1), Ok(())),
        ("R longer than 32 bytes, S high", der_sig(&long, &half_plus_1), Ok(())),
        ("S = n/2 + 1", der_sig(&one, &half_plus_1), Err(ScriptError::SigHighS)),
    ];
    for (what, sig, want) in cases {
        let (ss, spk) = checksig_not(&sig);
        assert_eq!(run(ss.clone(), spk.clone(), ScriptFlags::LOW_S), want, "{what} under LOW_S");
        // NULLFAIL turns the failed check of a non-empty signature into an error.
        let want_nullfail = if want.is_ok() { Err(ScriptError::NullFail) } else { want };
        assert_eq!(
            run(ss.clone(), spk.clone(), ScriptFlags::LOW_S | ScriptFlags::NULLFAIL),
            want_nullfail,
            "{what} under LOW_S,NULLFAIL"
        );
        // Without LOW_S the signature is strict DER and fails verification, as in Core.
        assert!(core_ok(ss.clone(), spk.clone(), ScriptFlags::DERSIG), "{what}: Core under DERSIG");
        assert_eq!(run(ss, spk, ScriptFlags::DERSIG), Ok(()), "{what} under DERSIG");
    }
}

/// Core checks that PICK/ROLL have two stack items before it decodes the top one.
#[test]
fn pick_roll_stack_size_before_number_vs_core() {
    for op in [OP_PICK, OP_ROLL] {
        // One item, not a valid 4-byte number: the stack size check comes first.
        let spk = vec![5, 1, 2, 3, 4, 5, op];
        assert_eq!(run(vec![], spk.clone(), ScriptFlags::NONE), Err(ScriptError::InvalidStackOperation));
        // One item, a non-minimal number under MINIMALDATA: likewise.
        let spk = vec![2, 0, 0, op];
        assert_eq!(
            run(vec![], spk.clone(), ScriptFlags::MINIMALDATA),
            Err(ScriptError::InvalidStackOperation)
        );
        assert!(!core_ok(vec![], spk, ScriptFlags::NONE));
        // Two items: the number is decoded (and rejected) before the depth check.
        let spk = vec![OP_1, 5, 1, 2, 3, 4, 5, op];
        assert_eq!(run(vec![], spk, ScriptFlags::NONE), Err(ScriptError::ScriptNum));
        // `x 0 PICK` duplicates, `x y 1 ROLL` rotates: both leave a true top.
        assert_eq!(run(vec![], vec![OP_1, OP_0, op], ScriptFlags::NONE), Ok(()));
        assert!(core_ok(vec![], vec![OP_1, OP_0, op], ScriptFlags::NONE));
    }
}
