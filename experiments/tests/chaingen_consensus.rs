// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every input of the `small` corpus verified by Bitcoin Core 26's interpreter
//! (libbitcoinconsensus through the `bitcoinconsensus` crate) with the block's script flags and
//! every spent output (taproot needs them all): Core and fullverify agree that each is valid.

use fullverify::chain::Network;
use fullverify::encode::{Block, OutPoint, TxOut};
use fullverify_experiments::chaingen::{generate, Profile};
use std::collections::HashMap;

#[test]
fn core_interpreter_accepts_every_input_of_small() {
    let c = generate(Profile::Small, 20_090_103, 2, &mut ());
    let params = Network::Regtest.params();
    let mut coins: HashMap<OutPoint, TxOut> = HashMap::new();
    let mut checked = 0u64;
    let mut disagreements = Vec::new();
    for (i, raw) in c.blocks.iter().enumerate() {
        let height = i as u32 + 1;
        let block = Block::from_bytes(raw).unwrap();
        let flags = params.script_flags(height, &block.block_hash());
        for tx in &block.txdata {
            if !tx.is_coinbase() {
                let spent: Vec<TxOut> =
                    tx.inputs.iter().map(|x| coins.remove(&x.prevout).expect("known coin")).collect();
                let utxos: Vec<bitcoinconsensus::Utxo> = spent
                    .iter()
                    .map(|o| bitcoinconsensus::Utxo {
                        script_pubkey: o.script_pubkey.as_ptr(),
                        script_pubkey_len: o.script_pubkey.len() as u32,
                        value: o.value,
                    })
                    .collect();
                let bytes = tx.to_bytes(true);
                for (n, o) in spent.iter().enumerate() {
                    let r = bitcoinconsensus::verify_with_flags(
                        &o.script_pubkey,
                        o.value as u64,
                        &bytes,
                        Some(&utxos),
                        n,
                        flags.bits(),
                    );
                    checked += 1;
                    if let Err(e) = r {
                        disagreements
                            .push(format!("height {height} tx {} input {n}: {e:?}", hex::encode(tx.txid())));
                    }
                }
            }
            let txid = tx.txid();
            for (v, o) in tx.outputs.iter().enumerate() {
                coins.insert(OutPoint { txid, vout: v as u32 }, o.clone());
            }
        }
    }
    assert_eq!(checked, c.manifest.inputs);
    assert!(
        disagreements.is_empty(),
        "{} inputs rejected by Core's interpreter: {:?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(10)]
    );
}
