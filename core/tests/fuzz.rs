// SPDX-License-Identifier: MIT OR Apache-2.0
//! Fuzz-style property tests: decoding and interpreting arbitrary bytes never panics, and
//! whatever decodes re-encodes to the same bytes (the encoding is canonical).

use fullverify_testkit as common;

use common::SecpVerifier;
use fullverify::encode::{Block, Transaction, TxOut};
use fullverify::script::verify_input;
use fullverify::sighash::TxContext;
use proptest::prelude::*;

/// A valid segwit transaction (BIP143 example) to mutate.
const SEED_TX: &str = "01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000";

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: fullverify_testkit::test_iters(20000) as u32,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn tx_decode_arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = Block::from_bytes(&b);
        if let Ok(tx) = Transaction::from_bytes(&b) {
            prop_assert_eq!(tx.to_bytes(true), b);
        }
    }

    #[test]
    fn tx_decode_mutated_valid_tx(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4), cut in any::<prop::sample::Index>()) {
        let mut b = common::unhex(SEED_TX);
        for (i, v) in &edits {
            let i = i.index(b.len());
            b[i] = *v;
        }
        if edits[0].1 & 1 == 1 {
            b.truncate(cut.index(b.len()));
        }
        if let Ok(tx) = Transaction::from_bytes(&b) {
            prop_assert_eq!(tx.to_bytes(true), b);
            let _ = tx.check();
        }
    }

    #[test]
    fn interpreter_arbitrary_scripts(
        sig in prop::collection::vec(any::<u8>(), 0..60),
        spk in prop::collection::vec(any::<u8>(), 0..60),
        wit in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..4),
        flags in any::<u32>(),
        amount in any::<i64>(),
    ) {
        let (tx, spent) = common::harness::script_test_txs(sig, spk, wit, amount);
        let outs: [TxOut; 1] = [spent];
        let ctx = TxContext::new(&tx, Some(&outs));
        let _ = verify_input(&ctx, 0, fullverify::script::ScriptFlags::from_bits_truncate(flags), &SecpVerifier);
        let _ = fullverify::script::sigops::legacy_sigop_count(&outs[0].script_pubkey, true);
    }

    #[test]
    fn asm_parser_arbitrary_text(s in "[ -~\t\n]{0,60}") {
        let _ = fullverify::script::asm::parse_asm(&s);
    }
}
