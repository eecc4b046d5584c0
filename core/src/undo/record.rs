// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mirrors Bitcoin Core's src/undo.h (`TxInUndoFormatter`, `CTxUndo`, `CBlockUndo`) and how
//! validation.cpp's `ConnectBlock`/`DisconnectBlock` pair undo entries with a block's inputs.
//!
//! A block's undo data lists the coins its transactions spent: one [`TxUndo`] per non-coinbase
//! transaction in block order, each with one coin per input in input order. Each coin is
//!
//! ```text
//! VARINT(height·2 + coinbase) ‖ [VARINT(0) when height > 0] ‖ VARINT(CompressAmount(value)) ‖ compressed script
//! ```
//!
//! The `VARINT(0)` stands where versions before 0.15 stored the spending transaction's version;
//! Core still writes a zero byte there and reads (and ignores) any 32-bit value. Such files
//! also used height 0 for a spend that was not the last of its transaction's outputs (the
//! height then unknown); this reader returns that height as it is.

use super::compress::{read_txout, read_varint_u32, write_txout, write_varint};
use super::error::{UndoError, UndoErrorKind};
use crate::encode::{write_compact_size, Block, Reader, Sink};
use crate::utxo::Coin;

/// Writes one spent coin as Core's `TxInUndoFormatter` does.
pub fn write_undo_coin<S: Sink + ?Sized>(s: &mut S, coin: &Coin) {
    write_varint(s, u64::from(coin.height.wrapping_mul(2) | coin.coinbase as u32));
    if coin.height > 0 {
        // The legacy version field, always zero now.
        s.put(&[0]);
    }
    write_txout(s, &coin.out);
}

/// Reads one spent coin as Core's `TxInUndoFormatter` does (offsets in errors are the
/// reader's).
pub fn read_undo_coin(r: &mut Reader<'_>) -> Result<Coin, UndoError> {
    let code = read_varint_u32(r)?;
    let height = code >> 1;
    if height > 0 {
        read_varint_u32(r)?;
    }
    let out = read_txout(r)?;
    Ok(Coin { out, height, coinbase: code & 1 == 1 })
}

/// The smallest encoding of a coin: code, amount and a one-byte script size.
const MIN_COIN_LEN: usize = 3;

fn read_count(r: &mut Reader<'_>) -> Result<u64, UndoError> {
    let at = r.position() as u64;
    r.compact_size().map_err(|e| UndoError::at(e.into(), at))
}

/// The undo data of one transaction (Core's `CTxUndo`): the coins its inputs spent, in input
/// order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxUndo {
    /// One coin per input, in input order.
    pub coins: Vec<Coin>,
}

impl TxUndo {
    /// `CompactSize(count) ‖ coins`.
    pub fn encode<S: Sink + ?Sized>(&self, s: &mut S) {
        write_compact_size(s, self.coins.len() as u64);
        for c in &self.coins {
            write_undo_coin(s, c);
        }
    }

    /// Reads one `CTxUndo`.
    pub fn decode(r: &mut Reader<'_>) -> Result<TxUndo, UndoError> {
        let n = read_count(r)?;
        let mut coins = Vec::with_capacity(n.min((r.remaining() / MIN_COIN_LEN) as u64) as usize);
        for _ in 0..n {
            coins.push(read_undo_coin(r)?);
        }
        Ok(TxUndo { coins })
    }
}

/// The undo data of one block (Core's `CBlockUndo`): one [`TxUndo`] per transaction but the
/// coinbase, in block order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockUndo {
    /// One entry per non-coinbase transaction, in block order.
    pub txs: Vec<TxUndo>,
}

impl BlockUndo {
    /// `CompactSize(count) ‖ CTxUndo…`.
    pub fn encode<S: Sink + ?Sized>(&self, s: &mut S) {
        write_compact_size(s, self.txs.len() as u64);
        for t in &self.txs {
            t.encode(s);
        }
    }

    /// The serialization as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.encode(&mut v);
        v
    }

    /// Reads one `CBlockUndo`.
    pub fn decode(r: &mut Reader<'_>) -> Result<BlockUndo, UndoError> {
        let n = read_count(r)?;
        let mut txs = Vec::with_capacity(n.min(r.remaining() as u64) as usize);
        for _ in 0..n {
            txs.push(TxUndo::decode(r)?);
        }
        Ok(BlockUndo { txs })
    }

    /// Parses exactly one `CBlockUndo` from `bytes`; bytes left over are
    /// [`UndoErrorKind::SizeMismatch`].
    pub fn from_bytes(bytes: &[u8]) -> Result<BlockUndo, UndoError> {
        let mut r = Reader::new(bytes);
        let u = BlockUndo::decode(&mut r)?;
        if r.remaining() > 0 {
            let kind = UndoErrorKind::SizeMismatch { size: bytes.len() as u32, unused: r.remaining() as u64 };
            return Err(UndoError::at(kind, r.position() as u64));
        }
        Ok(u)
    }

    /// Coins in all entries.
    pub fn coin_count(&self) -> usize {
        self.txs.iter().map(|t| t.coins.len()).sum()
    }

    /// Checks the shape against `block`: one entry per non-coinbase transaction, and each
    /// entry one coin per input of its transaction. Errors name the block's hash.
    pub fn check_counts(&self, block: &Block) -> Result<(), UndoError> {
        let fail = |kind| Err(UndoError::new(kind).in_block(Some(block.block_hash()), None));
        let spenders = block.txdata.len().saturating_sub(1);
        if self.txs.len() != spenders {
            return fail(UndoErrorKind::TxCountMismatch { undo: self.txs.len(), block: spenders });
        }
        for (i, (u, tx)) in self.txs.iter().zip(block.txdata.iter().skip(1)).enumerate() {
            if u.coins.len() != tx.inputs.len() {
                return fail(UndoErrorKind::CoinCountMismatch {
                    tx: i + 1,
                    undo: u.coins.len(),
                    inputs: tx.inputs.len(),
                });
            }
        }
        Ok(())
    }

    /// The coins `block` spends, one per non-coinbase input in block order: the shape
    /// [`crate::validation::check_block_with_spent`] takes. Fails unless the counts match
    /// ([`BlockUndo::check_counts`]).
    pub fn spent_coins(&self, block: &Block) -> Result<Vec<Coin>, UndoError> {
        self.check_counts(block)?;
        Ok(self.txs.iter().flat_map(|t| t.coins.iter().cloned()).collect())
    }

    /// [`BlockUndo::spent_coins`] without copying the coins.
    pub fn into_spent_coins(self, block: &Block) -> Result<Vec<Coin>, UndoError> {
        self.check_counts(block)?;
        Ok(self.txs.into_iter().flat_map(|t| t.coins).collect())
    }

    /// The undo data of `block` from the coins it spends (one per non-coinbase input in block
    /// order, as [`BlockUndo::spent_coins`] gives them): what Core's `ConnectBlock` records.
    /// Fails when `spent` has another length than the block's non-coinbase inputs.
    pub fn from_spent(block: &Block, spent: &[Coin]) -> Result<BlockUndo, UndoError> {
        let inputs: usize = block.txdata.iter().skip(1).map(|t| t.inputs.len()).sum();
        if spent.len() != inputs {
            let kind = UndoErrorKind::SpentCountMismatch { spent: spent.len(), inputs };
            return Err(UndoError::new(kind).in_block(Some(block.block_hash()), None));
        }
        let mut at = 0;
        let txs = block
            .txdata
            .iter()
            .skip(1)
            .map(|tx| {
                let coins = spent[at..at + tx.inputs.len()].to_vec();
                at += tx.inputs.len();
                TxUndo { coins }
            })
            .collect();
        Ok(BlockUndo { txs })
    }
}
