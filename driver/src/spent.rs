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

/// Bitcoin Core's `VARINT` (MSB base-128 with the "+1" offset per continuation byte).
pub fn read_core_varint(r: &mut Reader<'_>) -> Result<u64, String> {
    let mut n: u64 = 0;
    loop {
        let b = r.u8().map_err(|e| e.to_string())?;
        if n > (u64::MAX >> 7) {
            return Err("VARINT overflows 64 bits".into());
        }
        n = (n << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Ok(n);
        }
        n = n.checked_add(1).ok_or("VARINT overflows 64 bits")?;
    }
}

/// Inverse of Core's `CompressAmount`: `x = 1 + 10·(9·n' + d − 1) + e` for `value = n·10^e`
/// with last non-zero digit `d` (when `e < 9`), or `x = 1 + 10·(n − 1) + 9`.
pub fn decompress_amount(x: u64) -> Option<u64> {
    if x == 0 {
        return Some(0);
    }
    let x = x - 1;
    let e = (x % 10) as u32;
    let x = x / 10;
    let n = if e < 9 {
        let d = x % 9 + 1;
        (x / 9).checked_mul(10)?.checked_add(d)?
    } else {
        x.checked_add(1)?
    };
    n.checked_mul(10u64.checked_pow(e)?)
}

/// Core's `ScriptCompression` decoding for the special script types 0–5 and raw scripts
/// (`n ≥ 6`: `n − 6` bytes follow).
pub fn decompress_script(kind: u64, r: &mut Reader<'_>) -> Result<Vec<u8>, String> {
    let e = |x: fullverify::encode::DecodeError| x.to_string();
    Ok(match kind {
        0 => [&[0x76, 0xa9, 20][..], r.bytes(20).map_err(e)?, &[0x88, 0xac]].concat(),
        1 => [&[0xa9, 20][..], r.bytes(20).map_err(e)?, &[0x87]].concat(),
        2 | 3 => [&[33, kind as u8][..], r.bytes(32).map_err(e)?, &[0xac]].concat(),
        4 | 5 => {
            let mut c = [0u8; 33];
            c[0] = kind as u8 - 2;
            c[1..].copy_from_slice(r.bytes(32).map_err(e)?);
            let key = fullverify::secp256k1::PublicKey::parse(&c)
                .map_err(|_| "compressed public key is not on the curve".to_string())?;
            [&[65][..], &key.serialize_uncompressed()[..], &[0xac]].concat()
        }
        n => {
            let len = n - 6;
            if len > 10_000 {
                return Err(format!("compressed script of {len} bytes exceeds the script size limit"));
            }
            r.bytes(len).map_err(e)?.to_vec()
        }
    })
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
            let mut p = Reader::new(r.bytes(u64::from(n)).map_err(e)?);
            let code = read_core_varint(&mut p)?;
            let amount = decompress_amount(read_core_varint(&mut p)?).ok_or("amount out of range")?;
            let kind = read_core_varint(&mut p)?;
            let script_pubkey = decompress_script(kind, &mut p)?;
            let value = i64::try_from(amount).map_err(|_| "amount out of range")?;
            let height = u32::try_from(code >> 1).map_err(|_| "height out of range")?;
            Ok((
                OutPoint { txid, vout },
                SpentOutput {
                    txout: TxOut { value, script_pubkey },
                    height: Some(height),
                    coinbase: Some(code & 1 == 1),
                },
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

    #[test]
    fn core_varint_and_amounts() {
        // Bitcoin Core's serialize_tests (varints_bitpatterns).
        let data = [0x00, 0x7f, 0x80, 0x00, 0xa3, 0x34, 0x82, 0xfe, 0x7f, 0xc7, 0xe7, 0x56];
        let mut r = Reader::new(&data);
        let got: Vec<u64> = (0..6).map(|_| read_core_varint(&mut r).unwrap()).collect();
        assert_eq!(got, [0, 0x7f, 0x80, 0x1234, 0xffff, 0x12_3456]);
        assert!(read_core_varint(&mut Reader::new(&[0x80])).is_err());
        // Bitcoin Core's compress_tests: CompressAmount of 0, 1, CENT, COIN, 50 COIN, 21M COIN.
        for (value, compressed) in [
            (0u64, 0u64),
            (1, 1),
            (1_000_000, 7),
            (100_000_000, 9),
            (5_000_000_000, 0x32),
            (2_100_000_000_000_000, 0x1406f40),
        ] {
            assert_eq!(decompress_amount(compressed), Some(value));
        }
    }

    #[test]
    fn compressed_scripts() {
        let h = [7u8; 20];
        let p2pkh = decompress_script(0, &mut Reader::new(&h)).unwrap();
        assert_eq!(p2pkh, [&[0x76, 0xa9, 20][..], &h, &[0x88, 0xac]].concat());
        let raw = decompress_script(6 + 2, &mut Reader::new(&[0x51, 0x52])).unwrap();
        assert_eq!(raw, [0x51, 0x52]);
        assert!(decompress_script(6 + 3, &mut Reader::new(&[0x51])).is_err());
    }
}
