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

/// The keyspace's marker file: present once fjall has created a keyspace, and then recovered.
const KEYSPACE_MARKER: &str = "version";
/// The keyspace's folders besides its marker.
const KEYSPACE_FOLDERS: [&str; 2] = ["partitions", "journals"];
/// Where a new store is made before it is moved into place.
const STAGING: &str = ".creating";
/// The store's partitions.
const PARTITIONS: [&str; 3] = ["coins", "headers", "meta"];

impl DiskStore {
    /// Opens the store in `dir`, or creates it when `dir` is missing or empty.
    ///
    /// A new store is made whole (keyspace and partitions, synced) in a staging folder inside
    /// `dir`, then moved into place with the keyspace's marker last, so a process killed while
    /// creating it leaves either no store or a whole one. fjall alone does not guarantee that: a
    /// partition is marked initialized before its level manifest is written, and a keyspace
    /// killed between the two cannot be opened again. The leftovers of a creation that was
    /// stopped (its folders without the marker) are removed and the store is made again; any
    /// other file in a directory without a store is refused, never overwritten.
    pub fn open(dir: &std::path::Path) -> Result<DiskStore, StoreError> {
        if !dir.join(KEYSPACE_MARKER).try_exists().map_err(|e| io(dir, e))? {
            create(dir)?;
        }
        let keyspace = fjall::Config::new(dir).open().map_err(se)?;
        let opts = fjall::PartitionCreateOptions::default;
        let coins = keyspace.open_partition("coins", opts()).map_err(se)?;
        let headers = keyspace.open_partition("headers", opts()).map_err(se)?;
        let meta = keyspace.open_partition("meta", opts()).map_err(se)?;
        Ok(DiskStore { keyspace, coins, headers, meta })
    }
}

fn io(path: &std::path::Path, e: std::io::Error) -> StoreError {
    StoreError(format!("{}: {e}", path.display()))
}

/// Makes an empty store in `dir` (see [`DiskStore::open`]).
fn create(dir: &std::path::Path) -> Result<(), StoreError> {
    use std::fs;
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name();
        let path = entry.path();
        if name == STAGING || KEYSPACE_FOLDERS.iter().any(|f| name == *f) {
            fs::remove_dir_all(&path).map_err(|e| io(&path, e))?;
        } else {
            return Err(StoreError(format!(
                "{} holds {} but no chain state: give an empty or new directory",
                dir.display(),
                name.to_string_lossy()
            )));
        }
    }
    let staging = dir.join(STAGING);
    {
        let keyspace = fjall::Config::new(&staging).open().map_err(se)?;
        for p in PARTITIONS {
            keyspace.open_partition(p, fjall::PartitionCreateOptions::default()).map_err(se)?;
        }
        keyspace.persist(fjall::PersistMode::SyncAll).map_err(se)?;
    }
    for name in KEYSPACE_FOLDERS.into_iter().chain([KEYSPACE_MARKER]) {
        let (from, to) = (staging.join(name), dir.join(name));
        fs::rename(&from, &to).map_err(|e| io(&from, e))?;
        // The folders are in place before the marker is.
        fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io(dir, e))?;
    }
    fs::remove_dir(&staging).map_err(|e| io(&staging, e))
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
