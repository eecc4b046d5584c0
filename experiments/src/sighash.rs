// SPDX-License-Identifier: MIT OR Apache-2.0
//! The workload of `sighashbench`: one transaction of `n` inputs and every input's signature
//! hash under each scheme, through the core's sighash API.
//!
//! The transaction is the same for every scheme: `n` inputs (distinct outpoints, sequence
//! `0xfffffffd`, empty scriptSig and witness: no scheme hashes those of another input) and two
//! outputs (P2WPKH and P2TR). What each scheme commits to per input:
//!
//! - legacy: the whole modified transaction with the input's P2PKH script code, `SIGHASH_ALL`;
//! - BIP143: the P2WPKH script code (the P2PKH script of the key hash) and the spent amount,
//!   `SIGHASH_ALL`;
//! - BIP341: key-path spend of P2TR outputs (every spent amount and scriptPubKey),
//!   `SIGHASH_DEFAULT`.
//!
//! [`all_sighashes_into`] builds a fresh [`TxContext`] per call, so a measurement of it
//! includes the per-transaction precomputation (BIP143/BIP341 aggregates, legacy prefix
//! engines) exactly once per transaction, as verification pays it.

use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
use fullverify::sighash::{self, TxContext, SIGHASH_ALL, SIGHASH_DEFAULT};
use fullverify_testkit::SplitMix64;

/// A sighash scheme as the bench measures it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Core's `SignatureHash` for `SigVersion::BASE` ([`sighash::legacy_sighash`]): every
    /// input serialises and hashes the whole transaction, so all `n` cost O(n²).
    Legacy,
    /// [`TxContext::legacy_sighash`]: the same hashes; from 32 inputs on, each input starts
    /// from a cached engine that has absorbed the inputs before it, so an input hashes the
    /// bytes after it. Still O(n²) for all `n`, with half the bytes.
    LegacyCtx,
    /// [`TxContext::bip143_sighash`]: per-transaction aggregates, then a fixed-size preimage
    /// per input. O(n) for all `n`.
    Bip143,
    /// [`TxContext::bip341_sighash`]: per-transaction aggregates, then a fixed-size message
    /// per input. O(n) for all `n`.
    Bip341,
}

impl Scheme {
    /// Every scheme, in the bench's arm order.
    pub const ALL: [Scheme; 4] = [Scheme::Legacy, Scheme::LegacyCtx, Scheme::Bip143, Scheme::Bip341];

    /// The arm name used in result packets.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Legacy => "legacy",
            Scheme::LegacyCtx => "legacy_txcontext",
            Scheme::Bip143 => "bip143",
            Scheme::Bip341 => "bip341",
        }
    }
}

/// One benchmark transaction with what its inputs spend.
#[derive(Clone, Debug)]
pub struct SighashTx {
    /// The spending transaction.
    pub tx: Transaction,
    /// Per input: the P2PKH script code (legacy and BIP143).
    pub script_codes: Vec<Vec<u8>>,
    /// Per input: the spent amount (BIP143 and BIP341).
    pub amounts: Vec<i64>,
    /// Per input: the spent P2TR output (BIP341).
    pub spent_p2tr: Vec<TxOut>,
}

/// A P2PKH script of a 20-byte key hash.
fn p2pkh(h: &[u8; 20]) -> Vec<u8> {
    let mut s = vec![0x76, 0xa9, 0x14];
    s.extend_from_slice(h);
    s.extend_from_slice(&[0x88, 0xac]);
    s
}

/// The transaction with `n` inputs, deterministic in `seed`.
pub fn make_tx(n: usize, seed: u64) -> SighashTx {
    let mut rng = SplitMix64(seed);
    let mut inputs = Vec::with_capacity(n);
    let mut script_codes = Vec::with_capacity(n);
    let mut amounts = Vec::with_capacity(n);
    let mut spent_p2tr = Vec::with_capacity(n);
    for i in 0..n {
        inputs.push(TxIn {
            prevout: OutPoint { txid: rng.bytes32(), vout: (i % 3) as u32 },
            script_sig: Vec::new(),
            sequence: 0xffff_fffd,
            witness: Vec::new(),
        });
        let mut h = [0u8; 20];
        rng.fill(&mut h);
        script_codes.push(p2pkh(&h));
        let amount = 10_000 + (rng.next_u64() % 100_000_000) as i64;
        amounts.push(amount);
        let mut spk = vec![0x51, 0x20];
        spk.extend_from_slice(&rng.bytes32());
        spent_p2tr.push(TxOut { value: amount, script_pubkey: spk });
    }
    let mut wpkh = vec![0x00, 0x14];
    wpkh.extend_from_slice(&rng.bytes32()[..20]);
    let mut tr = vec![0x51, 0x20];
    tr.extend_from_slice(&rng.bytes32());
    let total: i64 = amounts.iter().sum();
    let outputs = vec![
        TxOut { value: total / 2, script_pubkey: wpkh },
        TxOut { value: total / 2 - 1000, script_pubkey: tr },
    ];
    SighashTx {
        tx: Transaction { version: 2, inputs, outputs, lock_time: 0 },
        script_codes,
        amounts,
        spent_p2tr,
    }
}

/// Writes the signature hash of every input of `t` under `scheme` into `out` (one per input),
/// with one fresh [`TxContext`] for the whole transaction.
pub fn all_sighashes_into(scheme: Scheme, t: &SighashTx, out: &mut [[u8; 32]]) {
    assert_eq!(out.len(), t.tx.inputs.len(), "one output slot per input");
    match scheme {
        Scheme::Legacy => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = sighash::legacy_sighash(&t.tx, i, &t.script_codes[i], SIGHASH_ALL);
            }
        }
        Scheme::LegacyCtx => {
            let ctx = TxContext::new(&t.tx, None);
            for (i, o) in out.iter_mut().enumerate() {
                *o = ctx.legacy_sighash(i, &t.script_codes[i], SIGHASH_ALL);
            }
        }
        Scheme::Bip143 => {
            let ctx = TxContext::new(&t.tx, None);
            for (i, o) in out.iter_mut().enumerate() {
                *o = ctx
                    .bip143_sighash(i, &t.script_codes[i], t.amounts[i], SIGHASH_ALL)
                    .expect("input in range");
            }
        }
        Scheme::Bip341 => {
            let ctx = TxContext::new(&t.tx, Some(&t.spent_p2tr));
            for (i, o) in out.iter_mut().enumerate() {
                *o = ctx.bip341_sighash(i, SIGHASH_DEFAULT, None, None).expect("spent outputs given");
            }
        }
    }
}

/// [`all_sighashes_into`] into a new vector.
pub fn all_sighashes(scheme: Scheme, t: &SighashTx) -> Vec<[u8; 32]> {
    let mut out = vec![[0u8; 32]; t.tx.inputs.len()];
    all_sighashes_into(scheme, t, &mut out);
    out
}

/// Bytes of the transaction's non-witness serialization.
pub fn base_size(t: &SighashTx) -> usize {
    t.tx.base_size()
}

/// Least-squares slope of `ln y` against `ln x`: the growth exponent of `y` in `x`.
pub fn loglog_slope(points: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_powers() {
        let sq: Vec<(f64, f64)> =
            [1.0, 10.0, 100.0, 1000.0].iter().map(|&x: &f64| (x, 3.0 * x * x)).collect();
        assert!((loglog_slope(&sq) - 2.0).abs() < 1e-9);
        let lin: Vec<(f64, f64)> = [2.0, 20.0, 200.0].iter().map(|&x: &f64| (x, 7.0 * x)).collect();
        assert!((loglog_slope(&lin) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn transaction_shape() {
        let t = make_tx(5, 1);
        assert_eq!(t.tx.inputs.len(), 5);
        assert_eq!((t.script_codes.len(), t.amounts.len(), t.spent_p2tr.len()), (5, 5, 5));
        assert_eq!(t.tx.outputs.len(), 2);
        assert!(base_size(&t) > 5 * 41);
    }
}
