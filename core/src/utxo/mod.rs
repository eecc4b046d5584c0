// SPDX-License-Identifier: MIT OR Apache-2.0
//! The UTXO set: coins, a write-back cache with a memory budget over a store, and the set's
//! MuHash3072 commitment.
//!
//! - [`Coin`]: an unspent output with its creation height and coinbase flag (Core's `Coin`).
//! - [`Store`]: the persistent coin map plus the chain metadata ([`ChainMeta`]: best block,
//!   MuHash state, coin count and total amount) and the header chain. [`Store::commit`] writes
//!   one [`FlushBatch`] atomically, so a reader always sees the coins and the best-block marker
//!   of the same flush. [`MemStore`] keeps everything in memory (tests, wasm);
//!   [`DiskStore`] (feature `store`) is an embedded LSM store (fjall) whose batches are
//!   committed and synced as a unit.
//! - [`CoinsCache`]: Core's `CCoinsViewCache` flags. An entry is *dirty* when it differs from
//!   the store, *fresh* when the store does not hold the coin, so a fresh coin spent before the
//!   next flush is simply dropped and never reaches the disk.
//! - [`txout_ser`]: the MuHash element of a coin, Core's `TxOutSer`:
//!   `txid ‖ vout (LE u32) ‖ (height·2 + coinbase) (LE u32) ‖ value (LE i64) ‖ CompactSize ‖ spk`.
//!   The set hash is the product of `to_num3072(element)` over all coins (mod 2^3072 − 1103717),
//!   updated per block by multiplying created coins into the numerator and spent coins into the
//!   denominator ([`crate::muhash`]).
//!
//! Files: `coin` (the coin, its storage form and key, its MuHash element), `store` (the store
//! trait, the flush batch and best-block record, the in-memory store), `disk` (fjall), `cache`
//! (the write-back cache), `txid_filter` (in-memory filters of the txids the on-disk store and the cache hold), `outpoint_hash` (the salted hash of the coin tables), `prefetch` (a hint to bring memory in ahead of use), `set_hash` (the set's MuHash per block or over the whole set).

mod cache;
mod coin;
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
mod disk;
#[cfg(all(test, feature = "store", not(target_arch = "wasm32")))]
mod disk_tests;
mod outpoint_hash;
mod prefetch;
mod set_hash;
mod store;
#[cfg(test)]
mod tests;
mod txid_filter;

pub use cache::{CoinsCache, Entry, FLUSH_ENTRY_MEM};
pub use coin::{outpoint_from_key, outpoint_key, txout_ser, Coin};
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
pub use disk::DiskStore;
pub use outpoint_hash::{OutPointHasher, OutPointMap, OutPointSet, SaltedOutPoints};
pub use set_hash::{muhash_delta, muhash_of_parts, muhash_of_set};
pub use store::{txid_prefix, ChainMeta, FlushBatch, MemStore, Store, StoreError, TXID_PREFIXES};
