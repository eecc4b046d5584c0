// SPDX-License-Identifier: MIT OR Apache-2.0
//! The on-disk store: a fjall keyspace (feature `store`, not on wasm32).

use super::coin::{outpoint_from_key, outpoint_key, Coin};
use super::store::{ChainMeta, FlushBatch, Store, StoreError};
use crate::encode::OutPoint;
use std::fmt;

/// The on-disk [`Store`]: a fjall keyspace with partitions `coins`, `headers` and `meta`.
/// A flush is one cross-partition write batch followed by a full sync.
pub struct DiskStore {
    keyspace: fjall::Keyspace,
    coins: fjall::PartitionHandle,
    headers: fjall::PartitionHandle,
    meta: fjall::PartitionHandle,
}

fn se<E: fmt::Display>(e: E) -> StoreError {
    StoreError(e.to_string())
}

impl DiskStore {
    /// Opens (or creates) the store in `dir`.
    pub fn open(dir: &std::path::Path) -> Result<DiskStore, StoreError> {
        let keyspace = fjall::Config::new(dir).open().map_err(se)?;
        let opts = fjall::PartitionCreateOptions::default;
        let coins = keyspace.open_partition("coins", opts()).map_err(se)?;
        let headers = keyspace.open_partition("headers", opts()).map_err(se)?;
        let meta = keyspace.open_partition("meta", opts()).map_err(se)?;
        Ok(DiskStore { keyspace, coins, headers, meta })
    }
}

impl Store for DiskStore {
    fn get(&self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        match self.coins.get(outpoint_key(op)).map_err(se)? {
            Some(v) => {
                Coin::from_bytes(&v).map(Some).ok_or_else(|| StoreError(format!("corrupt coin {op:?}")))
            }
            None => Ok(None),
        }
    }
    fn commit(&mut self, batch: &FlushBatch) -> Result<(), StoreError> {
        let mut b = self.keyspace.batch();
        for (op, c) in &batch.coins {
            match c {
                Some(c) => b.insert(&self.coins, outpoint_key(op), c.to_bytes()),
                None => b.remove(&self.coins, outpoint_key(op)),
            }
        }
        for (h, rec) in &batch.headers {
            b.insert(&self.headers, h.to_be_bytes(), rec.to_vec());
        }
        if let Some(m) = &batch.meta {
            b.insert(&self.meta, b"best", m.to_bytes());
        }
        b.commit().map_err(se)?;
        self.keyspace.persist(fjall::PersistMode::SyncAll).map_err(se)
    }
    fn meta(&self) -> Result<Option<ChainMeta>, StoreError> {
        match self.meta.get(b"best").map_err(se)? {
            Some(v) => ChainMeta::from_bytes(&v)
                .map(Some)
                .ok_or_else(|| StoreError("corrupt best-block record".into())),
            None => Ok(None),
        }
    }
    fn for_each_coin(&self, f: &mut dyn FnMut(&OutPoint, &Coin)) -> Result<(), StoreError> {
        for kv in self.coins.iter() {
            let (k, v) = kv.map_err(se)?;
            let op = outpoint_from_key(&k).ok_or_else(|| StoreError("bad coin key".into()))?;
            let coin = Coin::from_bytes(&v).ok_or_else(|| StoreError(format!("corrupt coin {op:?}")))?;
            f(&op, &coin);
        }
        Ok(())
    }
    fn headers(&self) -> Result<Vec<[u8; 40]>, StoreError> {
        let mut out = Vec::new();
        for kv in self.headers.iter() {
            let (k, v) = kv.map_err(se)?;
            let h =
                u32::from_be_bytes(k.as_ref().try_into().map_err(|_| StoreError("bad header key".into()))?);
            if h as usize != out.len() {
                return Err(StoreError(format!("header records not contiguous at {h}")));
            }
            out.push(v.as_ref().try_into().map_err(|_| StoreError("bad header record".into()))?);
        }
        Ok(out)
    }
}
