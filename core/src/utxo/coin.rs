// SPDX-License-Identifier: MIT OR Apache-2.0
//! A coin (Core's `Coin`: an unspent output with its height and coinbase flag), its storage
//! form and store key, and its MuHash element (Core's `TxOutSer`).

use crate::encode::{OutPoint, Reader, TxOut};

/// An unspent output with what the consensus rules need to know about its creation (Core's
/// `Coin`: the coinbase flag for maturity, the height for maturity and BIP68).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coin {
    /// The output: amount in satoshis and scriptPubKey.
    pub out: TxOut,
    /// Height of the block that created the output.
    pub height: u32,
    /// Whether the output belongs to a coinbase transaction (maturity applies).
    pub coinbase: bool,
}

impl Coin {
    /// Storage form: `height·2 + coinbase (LE u32) ‖ value (LE i64) ‖ CompactSize ‖ spk`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(13 + self.out.script_pubkey.len());
        self.write_to(&mut v);
        v
    }

    /// [`Coin::to_bytes`] written over `buf` (cleared first), so a flush of many coins reuses
    /// one buffer.
    pub fn write_to(&self, buf: &mut Vec<u8>) {
        buf.clear();
        self.append_to(buf);
    }

    /// Appends the storage form to `buf`.
    fn append_to(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&(self.height.wrapping_mul(2) | self.coinbase as u32).to_le_bytes());
        self.out.encode(buf);
    }

    /// Inverse of [`Coin::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Option<Coin> {
        let (code, value, spk) = record_parts(b)?;
        Some(Coin {
            out: TxOut { value, script_pubkey: spk.to_vec() },
            height: code >> 1,
            coinbase: code & 1 == 1,
        })
    }
}

/// The parts of a coin's storage form (code, then the output as transactions encode it: value,
/// scriptPubKey), read in place; `None` unless `b` is exactly one well-formed record.
fn record_parts(b: &[u8]) -> Option<(u32, i64, &[u8])> {
    let mut r = Reader::new(b);
    let code = r.u32().ok()?;
    let (value, spk) = TxOut::decode_in_place(&mut r).ok()?;
    r.finish().ok()?;
    Some((code, value, spk))
}

/// Whether `b` is a coin's storage form, exactly as [`Coin::from_bytes`] would take it (without
/// building the coin). Such a record is canonical (the CompactSize shortest), so its bytes are
/// the ones [`Coin::to_bytes`] gives for the coin it decodes to.
#[cfg_attr(not(all(feature = "store", not(target_arch = "wasm32"))), allow(dead_code))]
pub fn is_coin_record(b: &[u8]) -> bool {
    record_parts(b).is_some()
}

/// The MuHash element (Core's `TxOutSer`) of a stored coin from its store key and record, over
/// `buf` (cleared first): the outpoint as transactions encode it (txid, then the output index
/// little-endian), then the record as it lies, which is the coin's storage form. `None` unless
/// the key is 36 bytes and the record passes [`is_coin_record`].
#[cfg_attr(not(all(feature = "store", not(target_arch = "wasm32"))), allow(dead_code))]
pub fn txout_ser_of_record(key: &[u8], record: &[u8], buf: &mut Vec<u8>) -> Option<OutPoint> {
    let op = outpoint_from_key(key)?;
    if !is_coin_record(record) {
        return None;
    }
    buf.clear();
    op.encode(buf);
    buf.extend_from_slice(record);
    Some(op)
}

/// Core's `TxOutSer(outpoint, coin)`: the MuHash element of one coin.
pub fn txout_ser(op: &OutPoint, coin: &Coin) -> Vec<u8> {
    let mut v = Vec::with_capacity(36 + 13 + coin.out.script_pubkey.len());
    txout_ser_into(op, coin, &mut v);
    v
}

/// [`txout_ser`] written over `buf` (cleared first), so a pass over many coins reuses one buffer.
pub fn txout_ser_into(op: &OutPoint, coin: &Coin, buf: &mut Vec<u8>) {
    buf.clear();
    op.encode(buf);
    coin.append_to(buf);
}

/// Inverse of [`outpoint_key`]; `None` unless `k` is 36 bytes.
pub fn outpoint_from_key(k: &[u8]) -> Option<OutPoint> {
    let k: &[u8; 36] = k.try_into().ok()?;
    Some(OutPoint {
        txid: k[..32].try_into().expect("32 bytes"),
        vout: u32::from_be_bytes(k[32..].try_into().expect("4 bytes")),
    })
}

/// The 36-byte store key of an outpoint: txid, then vout big-endian (ordered by vout).
pub fn outpoint_key(op: &OutPoint) -> [u8; 36] {
    let mut k = [0u8; 36];
    k[..32].copy_from_slice(&op.txid);
    k[32..].copy_from_slice(&op.vout.to_be_bytes());
    k
}
