// SPDX-License-Identifier: MIT OR Apache-2.0
//! Spent outputs of one block, for validating it without a chain.
//!
//! Three file formats list the outputs a block spends, one entry per non-coinbase input in
//! block order (or keyed by outpoint):
//!
//! - **floresta**: a JSON array of `{"txout": {"value": sat, "script_pubkey": hex},
//!   "is_coinbase": bool, "creation_height": u32, "creation_time": u32}` in input order.
//! - **bcoin**: undo records `i64 LE value || CompactSize length || scriptPubKey` in input
//!   order, until the end of the file (no height or coinbase flag).
//! - **btcd**: a utxostore, repeated `txid[32] || u32 LE vout || u32 LE n || payload[n]` with
//!   payload `VARINT(height·2 + coinbase) || VARINT(CompressAmount(value)) || compressed
//!   script` in Bitcoin Core's `VARINT` and `CTxOutCompressor` encodings. Entries are keyed by
//!   outpoint, so they are put into input order here; an input may also spend an output
//!   created earlier in the same block.
//!
//! Any of them may be bzip2-, zstd- or gzip-compressed.

use super::source::read_maybe_compressed;
use fullverify::encode::{Block, OutPoint, Reader, TxOut};
use fullverify::undo;
use std::collections::HashMap;
use std::path::Path;

/// An output spent by the block, with what the file says about its creation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpentOutput {
    /// The output itself.
    pub txout: TxOut,
    /// Height of the block that created it, when the format records it.
    pub height: Option<u32>,
    /// Whether a coinbase created it, when the format records it.
    pub coinbase: Option<bool>,
}

fullverify::named_enum! {
    /// A spent-output file format (named as on the command line).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum SpentFormat as "spent-output format" {
        /// floresta's JSON array, in input order.
        Floresta => "floresta",
        /// bcoin's undo records, in input order.
        Bcoin => "bcoin",
        /// btcd's utxostore, keyed by outpoint.
        Btcd => "btcd",
    }
}

impl SpentFormat {
    /// Guesses the format from the file name, then from the (decompressed) content.
    pub fn detect(path: &Path, content: &[u8]) -> Option<SpentFormat> {
        let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        if name.contains(".json") || name.contains("spent_utxos") {
            return Some(SpentFormat::Floresta);
        }
        if name.contains("utxostore") {
            return Some(SpentFormat::Btcd);
        }
        if name.contains("undo") || name.contains("spent_outputs") {
            return Some(SpentFormat::Bcoin);
        }
        match content.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => Some(SpentFormat::Floresta),
            _ => None,
        }
    }
}

/// One entry of the Floresta-style JSON list, decoded straight into typed fields (the hex
/// borrowed from the input where it has no escapes).
#[derive(serde::Deserialize)]
struct FlorestaEntry<'a> {
    #[serde(borrow)]
    txout: FlorestaTxOut<'a>,
    creation_height: Option<u64>,
    is_coinbase: Option<bool>,
}

#[derive(serde::Deserialize)]
struct FlorestaTxOut<'a> {
    value: i64,
    #[serde(borrow)]
    script_pubkey: std::borrow::Cow<'a, str>,
}

fn floresta(content: &[u8]) -> Result<Vec<SpentOutput>, String> {
    let entries: Vec<FlorestaEntry<'_>> =
        serde_json::from_slice(content).map_err(|e| format!("JSON: {e}"))?;
    entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let script_pubkey = hex::decode(e.txout.script_pubkey.as_bytes())
                .map_err(|x| format!("entry {i}: script_pubkey hex: {x}"))?;
            let height = e.creation_height.map(|h| h as u32);
            Ok(SpentOutput {
                txout: TxOut { value: e.txout.value, script_pubkey },
                height,
                coinbase: e.is_coinbase,
            })
        })
        .collect()
}

fn bcoin(content: &[u8]) -> Result<Vec<SpentOutput>, String> {
    let mut r = Reader::new(content);
    let mut v = Vec::new();
    while r.remaining() > 0 {
        let at = r.position();
        let txout = TxOut::decode(&mut r).map_err(|e| format!("entry {} at byte {at}: {e}", v.len()))?;
        v.push(SpentOutput { txout, height: None, coinbase: None });
    }
    Ok(v)
}

fn btcd(content: &[u8], block: &Block) -> Result<Vec<SpentOutput>, String> {
    let mut r = Reader::new(content);
    let mut map: HashMap<OutPoint, SpentOutput> = HashMap::new();
    while r.remaining() > 0 {
        let at = r.position();
        let entry = (|| -> Result<(OutPoint, SpentOutput), String> {
            let e = |x: fullverify::encode::DecodeError| x.to_string();
            let txid: [u8; 32] = r.array().map_err(e)?;
            let vout = r.u32().map_err(e)?;
            let n = r.u32().map_err(e)?;
            // The payload is Core's coin serialization without the legacy version: the code
            // (height·2 + coinbase) and the compressed output, read by the undo module.
            let mut p = Reader::new(r.bytes(u64::from(n)).map_err(e)?);
            let code = undo::read_varint_u32(&mut p).map_err(|e| e.to_string())?;
            let at = p.position();
            let txout = undo::read_txout(&mut p).map_err(|e| e.to_string())?;
            // Core reads the amount as 64 bits unsigned: one past i64 comes back negative.
            if txout.value < 0 {
                return Err(format!("amount at payload byte {at} out of range"));
            }
            if p.remaining() > 0 {
                return Err(format!("{n}-byte payload: {} trailing after the coin", p.remaining()));
            }
            let height = code >> 1;
            Ok((
                OutPoint { txid, vout },
                SpentOutput { txout, height: Some(height), coinbase: Some(code & 1 == 1) },
            ))
        })()
        .map_err(|e| format!("entry at byte {at}: {e}"))?;
        map.insert(entry.0, entry.1);
    }
    // Input order; outputs created earlier in the block are looked up among its transactions.
    let mut created: HashMap<OutPoint, TxOut> = HashMap::new();
    let mut out = Vec::new();
    for tx in &block.txdata {
        if !tx.is_coinbase() {
            for i in &tx.inputs {
                if let Some(s) = map.get(&i.prevout) {
                    out.push(s.clone());
                } else if let Some(o) = created.get(&i.prevout) {
                    out.push(SpentOutput { txout: o.clone(), height: None, coinbase: Some(false) });
                } else {
                    let mut t = i.prevout.txid;
                    t.reverse();
                    return Err(format!(
                        "no entry for the spent output {}:{}",
                        hex::encode(t),
                        i.prevout.vout
                    ));
                }
            }
        }
        let txid = tx.txid();
        for (n, o) in tx.outputs.iter().enumerate() {
            created.insert(OutPoint { txid, vout: n as u32 }, o.clone());
        }
    }
    Ok(out)
}

/// A spent-output file read before its block is decoded ([`read_spent_early`]).
pub enum EarlySpent {
    /// Decoded: the formats that do not need the block.
    Decoded(Vec<SpentOutput>, SpentFormat),
    /// The (decompressed) file content of a format decoded against the block.
    NeedsBlock(Vec<u8>, SpentFormat),
}

/// Reads (and decompresses) the spent-output file at `path` and decodes it when its format does
/// not need the block: a caller can do this while it decodes the block, then finish with
/// [`finish_spent`].
pub fn read_spent_early(path: &Path, format: Option<SpentFormat>) -> Result<EarlySpent, String> {
    let name = super::source::display_name(path);
    let content = read_maybe_compressed(path).map_err(|e| e.to_string())?;
    let format = format
        .or_else(|| SpentFormat::detect(path, &content))
        .ok_or_else(|| format!("{name}: cannot tell the spent-output format; pass --spent-format"))?;
    let decoded = match format {
        SpentFormat::Floresta => floresta(&content),
        SpentFormat::Bcoin => bcoin(&content),
        SpentFormat::Btcd => return Ok(EarlySpent::NeedsBlock(content, format)),
    };
    decoded
        .map(|s| EarlySpent::Decoded(s, format))
        .map_err(|e| format!("{name} ({} format): {e}", format.name()))
}

/// Completes [`read_spent_early`] with the block: decodes what needs it and checks that there
/// is one spent output per non-coinbase input.
pub fn finish_spent(
    path: &Path,
    early: EarlySpent,
    block: &Block,
) -> Result<(Vec<SpentOutput>, SpentFormat), String> {
    let name = super::source::display_name(path);
    let (spent, format) = match early {
        EarlySpent::Decoded(s, f) => (s, f),
        EarlySpent::NeedsBlock(content, f) => {
            let s = match f {
                SpentFormat::Floresta => floresta(&content),
                SpentFormat::Bcoin => bcoin(&content),
                SpentFormat::Btcd => btcd(&content, block),
            }
            .map_err(|e| format!("{name} ({} format): {e}", f.name()))?;
            (s, f)
        }
    };
    let inputs = block.spending_inputs();
    if spent.len() != inputs {
        return Err(format!(
            "{name}: {} spent outputs for the block's {inputs} non-coinbase inputs",
            spent.len()
        ));
    }
    Ok((spent, format))
}

/// The height a block states in its coinbase (BIP34: the first push of the scriptSig), if the
/// push is a minimal 1–4 byte number.
pub fn bip34_height(block: &Block) -> Option<u32> {
    let cb = &block.txdata.first()?.inputs.first()?.script_sig;
    let n = *cb.first()? as usize;
    if !(1..=4).contains(&n) || cb.len() <= n {
        return None;
    }
    let mut b = [0u8; 4];
    b[..n].copy_from_slice(&cb[1..1 + n]);
    // A negative number is no height.
    if cb[n] & 0x80 != 0 {
        return None;
    }
    Some(u32::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fullverify::encode::{BlockHeader, Transaction, TxIn};

    fn tx(inputs: &[OutPoint], outputs: Vec<TxOut>) -> Transaction {
        let inputs = inputs.iter().map(|&prevout| TxIn { prevout, ..TxIn::default() }).collect();
        Transaction { version: 2, inputs, outputs, lock_time: 0 }
    }

    /// One utxostore entry: `txid || vout || n || VARINT(code) || compressed output`.
    fn entry(op: &OutPoint, code: u64, payload_tail: &[u8]) -> Vec<u8> {
        let mut payload = Vec::new();
        undo::write_varint(&mut payload, code);
        payload.extend_from_slice(payload_tail);
        let mut e = op.txid.to_vec();
        e.extend_from_slice(&op.vout.to_le_bytes());
        e.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        e.extend_from_slice(&payload);
        e
    }

    fn compressed(out: &TxOut) -> Vec<u8> {
        let mut b = Vec::new();
        undo::write_txout(&mut b, out);
        b
    }

    #[test]
    fn btcd_entries_are_put_in_input_order() {
        let p2pkh = TxOut {
            value: 50_0000_0000,
            script_pubkey: [&[0x76, 0xa9, 20][..], &[7; 20], &[0x88, 0xac]].concat(),
        };
        let bare = TxOut { value: 1_234_567, script_pubkey: vec![0x51, 0x52, 0xae] };
        let (a, b) = (OutPoint { txid: [1; 32], vout: 0 }, OutPoint { txid: [2; 32], vout: 7 });
        let coinbase = tx(&[OutPoint::NULL], vec![p2pkh.clone()]);
        let first = tx(&[b, a], vec![bare.clone()]);
        // Spends an output of the transaction before it, which has no entry in the file.
        let second = tx(&[OutPoint { txid: first.txid(), vout: 0 }], vec![]);
        let block = Block {
            header: BlockHeader::decode(&mut Reader::new(&[0; 80])).unwrap(),
            txdata: vec![coinbase, first, second],
        };
        // Keyed by outpoint: the file's order is not the inputs'.
        let file =
            [entry(&a, 2 * 100 + 1, &compressed(&p2pkh)), entry(&b, 2 * 7, &compressed(&bare))].concat();
        let got = btcd(&file, &block).unwrap();
        let want = [
            SpentOutput { txout: bare.clone(), height: Some(7), coinbase: Some(false) },
            SpentOutput { txout: p2pkh.clone(), height: Some(100), coinbase: Some(true) },
            SpentOutput { txout: bare.clone(), height: None, coinbase: Some(false) },
        ];
        assert_eq!(got, want);

        // A payload cut inside its script, an amount no value compresses to, an amount beyond
        // i64, a code wider than 32 bits, an input with no entry.
        let p = compressed(&p2pkh);
        let cut = [entry(&a, 1, &p[..p.len() - 1]), entry(&b, 2, &compressed(&bare))].concat();
        assert!(btcd(&cut, &block).is_err());
        let mut huge = Vec::new();
        undo::write_varint(&mut huge, u64::MAX);
        huge.push(0x06);
        assert!(btcd(&[entry(&a, 1, &huge), entry(&b, 2, &compressed(&bare))].concat(), &block).is_err());
        let mut negative = Vec::new();
        // 10^10·10^9 = 10^19 satoshis: decompresses, but beyond i64.
        undo::write_varint(&mut negative, 100_000_000_000);
        negative.push(0x06);
        let e =
            btcd(&[entry(&a, 1, &negative), entry(&b, 2, &compressed(&bare))].concat(), &block).unwrap_err();
        assert!(e.contains("out of range"), "{e}");
        assert!(btcd(&[entry(&a, 1 << 32, &p), entry(&b, 2, &compressed(&bare))].concat(), &block).is_err());
        let long = [p.as_slice(), &[0]].concat();
        let e = btcd(&[entry(&a, 1, &long), entry(&b, 2, &compressed(&bare))].concat(), &block).unwrap_err();
        assert!(e.contains("1 trailing after the coin"), "{e}");
        let e = btcd(&entry(&a, 1, &p), &block).unwrap_err();
        assert!(e.contains("no entry for the spent output"), "{e}");
    }
}
