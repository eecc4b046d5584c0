// SPDX-License-Identifier: MIT OR Apache-2.0
//! Transactions (fullverify::encode::Transaction, BIP144 extended format) on arbitrary bytes.
//!
//! Properties:
//! - decode → encode gives the input back, byte for byte (the format has one encoding per
//!   transaction: canonical CompactSizes, the marker only with a witness);
//! - the wtxid is SHA256d of those bytes, the txid SHA256d of the stripped encoding, and both
//!   are the same when computed again from the re-decoded transaction;
//! - the stripped encoding decodes (with and without the witness flag allowed) to the
//!   transaction without its witnesses; sizes and weight follow from the two encodings;
//! - reading without witnesses (`TX_NO_WITNESS`) re-encodes to the bytes it consumed;
//! - `check` (CheckTransaction) returns a reason and never panics.
#![no_main]

use fullverify::encode::{Reader, Transaction, WITNESS_SCALE_FACTOR};
use fullverify::hash::sha256d;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    if let Ok(tx) = Transaction::decode(&mut r) {
        check_tx(&tx, &data[..r.position()]);
        match Transaction::from_bytes(data) {
            Ok(t) => assert_eq!(t, tx),
            Err(e) => assert!(r.remaining() > 0, "from_bytes rejects a whole transaction: {e}"),
        }
    } else {
        assert!(Transaction::from_bytes(data).is_err());
    }
    let mut r = Reader::new(data);
    if let Ok(tx) = Transaction::decode_with(&mut r, false) {
        assert!(!tx.has_witness());
        assert_eq!(tx.to_bytes(false), &data[..r.position()], "TX_NO_WITNESS read re-encodes to other bytes");
        assert_eq!(tx.to_bytes(true), tx.to_bytes(false));
    }
});

/// Checks a transaction decoded (witness allowed) from exactly `bytes`.
pub fn check_tx(tx: &Transaction, bytes: &[u8]) {
    let full = tx.to_bytes(true);
    assert_eq!(full, bytes, "decode then encode changed the bytes");
    let stripped = tx.to_bytes(false);
    assert_eq!(tx.wtxid(), sha256d(bytes));
    assert_eq!(tx.txid(), sha256d(&stripped));
    if !tx.has_witness() {
        assert_eq!(stripped, full);
        assert_eq!(tx.txid(), tx.wtxid());
    }
    assert_eq!(tx.base_size(), stripped.len());
    assert_eq!(tx.total_size(), full.len());
    assert_eq!(tx.weight(), stripped.len() * (WITNESS_SCALE_FACTOR - 1) + full.len());
    let again = Transaction::from_bytes(&full).expect("the encoding does not decode");
    assert_eq!(&again, tx);
    assert_eq!((again.txid(), again.wtxid()), (tx.txid(), tx.wtxid()), "ids not stable");
    let mut bare = tx.clone();
    for i in &mut bare.inputs {
        i.witness.clear();
    }
    let mut r = Reader::new(&stripped);
    let no_wit = Transaction::decode_with(&mut r, false).expect("stripped encoding does not decode");
    assert_eq!(r.remaining(), 0);
    assert_eq!(no_wit, bare);
    // With the witness flag allowed too: a decoded transaction never has zero inputs and some
    // outputs, the one shape whose stripped form would read as a marker.
    assert_eq!(Transaction::from_bytes(&stripped).as_ref(), Ok(&bare));
    assert_eq!(bare.txid(), tx.txid());
    if let Err(e) = tx.check() {
        assert!(!e.reason().is_empty());
    }
}
