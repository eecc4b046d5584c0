// SPDX-License-Identifier: MIT OR Apache-2.0
//! The chain state driven by the replay: blocks are connected one at a time on top of the tip,
//! with every rule of [`crate::validation`], and the UTXO set, its MuHash, its coin count and
//! total amount are kept up to date.
//!
//! API for drivers (stable names; additions are listed here):
//!
//! - [`Chainstate::open`] / [`Chainstate::open_in_memory`] with [`ChainstateOptions`];
//! - [`Chainstate::connect_block`] → [`ConnectStats`] or [`ChainError`];
//! - [`Chainstate::flush`], [`Chainstate::tip`], [`Chainstate::summary`] → [`StateSummary`];
//! - [`Chainstate::set_clock`] (addition): the adjusted time used by `time-too-new`
//!   (default: the system clock);
//! - [`Chainstate::params`], [`Chainstate::headers`] (the header chain, for MTP and retarget
//!   context) and [`Chainstate::coin`] (a UTXO lookup) (additions);
//! - [`ChainstateOptions::new`] (addition): defaults for a network, to override field by field;
//! - [`StateSummary`]: `height` and `tip` are `Option`s (`None` before genesis);
//! - [`crate::validation::check_block_with_spent`] for a single block with its spent coins
//!   (`&[Coin]`, one per non-coinbase input in block order), returning
//!   [`crate::validation::BlockCheckSummary`];
//! - a failing script is rejected as `block-script-verify-flag-failed (<Core error text>)`
//!   ([`crate::validation::SCRIPT_FAILURE_PREFIX`], Core's wording since v30).
//!
//! Consistency: a block that fails leaves the state exactly as before it (the connect step
//! computes a delta and applies it only when the whole block is valid). A flush writes the
//! dirty coins, the new headers and the best-block record (height, hash, MuHash state, count,
//! total amount) in one atomic, synced batch, so reopening after a crash at any moment resumes
//! at the last flush with exactly the state it had then.
//!
//! The genesis block is accepted as the first block and adds no coin (its output is not
//! spendable, as in Core). `assumevalid`: scripts are not verified for blocks up to and
//! including the block with that hash; only pass a hash of the chain being replayed (a hash
//! that never appears turns script checks off for the whole run).

// A rejected block is reported by value (`BlockError`, `ChainError::Invalid(BlockError)`), the
// shape drivers match on; that path runs once per invalid block, so the size costs nothing.
#![allow(clippy::result_large_err)]

use crate::backend::Backend;
use crate::chain::{self, ChainParams, HeaderEntry, Network, BIP34_IMPLIES_BIP30_LIMIT};
use crate::encode::{display_hex, Block, OutPoint};
use crate::muhash::MuHash3072;
use crate::utxo::{
    muhash_delta, muhash_of_parts, txout_ser, ChainMeta, Coin, CoinsCache, MemStore, Store, StoreError,
};
use crate::validation::{self, BlockError, CheckedBlock, CoinSource, ConnectContext, ConnectError, SigMode};
use std::fmt;
use std::time::{Duration, Instant};

crate::named_enum! {
    /// When the chain state computes the MuHash3072 of its UTXO set.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum MuhashPolicy as "MuHash policy" {
        /// Once, over the set, when it is asked for ([`Chainstate::summary`],
        /// [`Chainstate::compute_muhash`]): the cost follows the set's size, as Core's
        /// `gettxoutsetinfo` does. Blocks connect without touching MuHash.
        #[default]
        Final => "final",
        /// Per block: every created coin multiplied in, every spent coin divided out, the
        /// accumulator stored with each flush. The cost follows the chain's history.
        Incremental => "incremental",
        /// Never; the summary has no MuHash.
        Off => "off",
    }
}

/// How a [`Chainstate`] runs.
#[derive(Clone, Debug)]
pub struct ChainstateOptions {
    /// The network whose rules and genesis block apply.
    pub network: Network,
    /// Script-check worker threads (≥ 1).
    pub threads: usize,
    /// Memory budget in bytes (Core's `-dbcache`): what the on-disk store keeps resident (its
    /// block cache, an eighth of the budget up to 8 MiB, at its decoded size, and its
    /// filters) comes off it; the rest is shared by the coins cache and a flush being written
    /// in the background (table, scripts, and the batch and memtable the flush builds): the
    /// cache is flushed when it would take more than half of it.
    pub dbcache_bytes: usize,
    /// Signature backend for script checks.
    pub backend: Backend,
    /// Skip script checks up to and including this block hash (internal byte order).
    pub assumevalid: Option<[u8; 32]>,
    /// Also flush every this many blocks.
    pub flush_every_blocks: Option<u32>,
    /// How each block's signature checks are done
    /// ([`crate::validation::verify_scripts_with`]); the results are the same in every mode.
    pub sig_mode: SigMode,
    /// When the set's MuHash is computed; the value is the same under every policy but `off`.
    pub muhash: MuhashPolicy,
    /// How many steps of priority (nice) below the validating threads the threads that keep an
    /// on-disk chain state in the background run, on Linux: the flush writer and the store's
    /// memtable flushes and compactions. When both want the CPUs, validation goes first and
    /// the upkeep takes the time left; 0 runs them at the same priority.
    pub background_nice: u8,
}

/// [`ChainstateOptions::background_nice`] by default. On 20 million coins with a 450 MiB cache
/// on two CPUs (where the store's upkeep takes a quarter of the CPU time) the replay took 87 s
/// with the flush writer and fjall's threads 10 steps down against 92 s with none lowered (80
/// against 91 s in an earlier pair of runs); one kind of thread lowered alone gave 86–90 s. The
/// peak resident set rose by 20–30 MiB: the upkeep lags more.
pub const DEFAULT_BACKGROUND_NICE: u8 = 10;

impl ChainstateOptions {
    /// Defaults for `network`: all cores, 450 MiB cache, the detected backend, every script
    /// checked, flushes only when the cache is full, the signature mode that suits the detected
    /// backend ([`SigMode::for_backend`]: `verify_many` on an Ifma token), BIP340 checks not
    /// batched, the final MuHash policy, background threads [`DEFAULT_BACKGROUND_NICE`] steps
    /// down.
    pub fn new(network: Network) -> ChainstateOptions {
        let backend = Backend::detect();
        ChainstateOptions {
            network,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            dbcache_bytes: 450 << 20,
            backend,
            assumevalid: None,
            flush_every_blocks: None,
            sig_mode: SigMode::for_backend(backend),
            muhash: MuhashPolicy::Final,
            background_nice: DEFAULT_BACKGROUND_NICE,
        }
    }
}

/// Counts and timings of one connected block.
#[derive(Clone, Debug, Default)]
pub struct ConnectStats {
    /// Transactions in the block.
    pub txs: usize,
    /// All inputs (the coinbase's included, as Core's `nInputs`).
    pub inputs: usize,
    /// Total signature-operation cost (Core's `GetTransactionSigOpCost` summed; the block limit
    /// is [`crate::validation::MAX_BLOCK_SIGOPS_COST`]); 0 for genesis.
    pub sigops_cost: u64,
    /// Sum of the transaction fees in satoshis.
    pub fees: i64,
    /// Time to decode the block.
    pub parse: Duration,
    /// Time spent reading spent coins from the cache and store, BIP30's lookups included.
    pub fetch: Duration,
    /// The part of `fetch` spent on BIP30's lookups of the block's own outputs.
    pub bip30: Duration,
    /// Time spent verifying input scripts (zero under assumevalid).
    pub scripts: Duration,
    /// Time to apply the block's delta: counters, cache and (incremental policy) MuHash.
    pub apply: Duration,
    /// Time of the flush this block triggered (zero when none).
    pub flush: Duration,
}

/// Why a block could not be connected or the state could not be read or written.
#[derive(Debug)]
pub enum ChainError {
    /// The block breaks a consensus rule; the state is unchanged.
    Invalid(BlockError),
    /// The store failed.
    Store(StoreError),
    /// The stored state is inconsistent.
    Corrupt(String),
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainError::Invalid(e) => e.fmt(f),
            ChainError::Store(e) => e.fmt(f),
            ChainError::Corrupt(s) => write!(f, "corrupt chain state: {s}"),
        }
    }
}

impl std::error::Error for ChainError {}

impl From<StoreError> for ChainError {
    fn from(e: StoreError) -> ChainError {
        ChainError::Store(e)
    }
}

impl From<BlockError> for ChainError {
    fn from(e: BlockError) -> ChainError {
        ChainError::Invalid(e)
    }
}

/// The state at the tip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSummary {
    /// Tip height; `None` before genesis.
    pub height: Option<u32>,
    /// Tip hash (internal byte order); `None` before genesis.
    pub tip: Option<[u8; 32]>,
    /// Number of unspent outputs (provably unspendable outputs are never added).
    pub utxo_count: u64,
    /// Sum of all unspent amounts in satoshis.
    pub total_amount: i64,
    /// MuHash3072 of the set as Core's `gettxoutsetinfo muhash` prints it (byte-reversed hex);
    /// `None` under [`MuhashPolicy::Off`].
    pub muhash: Option<String>,
}

/// The chain state: header chain, UTXO cache over a store, and the set's running summary
/// (coin count, total amount and, under [`MuhashPolicy::Incremental`], the MuHash
/// accumulator), all at the tip.
///
/// Invariants: the summary always describes exactly the coins the cache and store hold
/// together; a block is either connected completely or, when it fails, not at all; the store
/// holds a prefix of the chain whose best-block record matches its coins.
///
/// Connecting the mainnet genesis block and block 1 in memory:
///
/// ```
/// use fullverify::chain::Network;
/// use fullverify::chainstate::{ChainError, Chainstate, ChainstateOptions};
/// use fullverify::encode::OutPoint;
/// use fullverify::muhash::MuHash3072;
/// use fullverify::utxo::{txout_ser, Coin};
///
/// let mut opts = ChainstateOptions::new(Network::Mainnet);
/// opts.threads = 1;
/// let mut cs = Chainstate::open_in_memory(opts);
/// assert_eq!(cs.summary().height, None);
///
/// // The genesis block, serialized from the chain parameters.
/// let genesis = Network::Mainnet.params().genesis_block();
/// let mut raw = genesis.header.to_bytes().to_vec();
/// raw.push(1);
/// raw.extend(genesis.txdata[0].to_bytes(true));
/// cs.connect_block(&raw).unwrap();
/// // Its output is not spendable: the set is still empty.
/// assert_eq!((cs.summary().height, cs.summary().utxo_count), (Some(0), 0));
///
/// let block1 = hex::decode(concat!(
///     "010000006fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000982051fd1e4ba744",
///     "bbbe680e1fee14677ba1a3c3540bf7b1cdb606e857233e0e61bc6649ffff001d01e36299010100000001000000",
///     "0000000000000000000000000000000000000000000000000000000000ffffffff0704ffff001d0104ffffffff",
///     "0100f2052a0100000043410496b538e853519c726a2c91e61ec11600ae1390813a627c66fb8be7947be63c52da",
///     "7589379515d4e0a604f8141781e62294721166bf621e73a82cbf2342c858eeac00000000",
/// ))
/// .unwrap();
/// let stats = cs.connect_block(&block1).unwrap();
/// assert_eq!((stats.txs, stats.inputs), (1, 1));
/// let s = cs.summary();
/// assert_eq!(s.height, Some(1));
/// assert_eq!(s.utxo_count, 1);
/// assert_eq!(s.total_amount, 50 * 100_000_000);
///
/// // The MuHash is that of the one coin, printed byte-reversed as Core does.
/// let tx = fullverify::encode::Transaction::from_bytes(&block1[81..]).unwrap();
/// let op = OutPoint { txid: tx.txid(), vout: 0 };
/// let coin = Coin { out: tx.outputs[0].clone(), height: 1, coinbase: true };
/// let mut digest = MuHash3072::new().insert(&txout_ser(&op, &coin)).finalize();
/// digest.reverse();
/// assert_eq!(s.muhash, Some(hex::encode(digest)));
/// assert_eq!(cs.coin(&op).unwrap(), Some(coin));
///
/// // Block 1 again does not extend the tip: rejected, and the state is unchanged.
/// match cs.connect_block(&block1) {
///     Err(ChainError::Invalid(e)) => assert_eq!(e.reason, "prev-blk-not-found"),
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(cs.summary(), s);
/// ```
pub struct Chainstate {
    params: &'static ChainParams,
    opts: ChainstateOptions,
    cache: CoinsCache<Box<dyn Store>>,
    headers: Vec<HeaderEntry>,
    /// `headers[..flushed_headers]` are in the store.
    flushed_headers: usize,
    /// The running accumulator (incremental policy only).
    muhash: Option<MuHash3072>,
    /// The final policy's MuHash, once computed, with the tip it is of.
    final_muhash: Option<([u8; 32], MuHash3072)>,
    utxo_count: u64,
    total_amount: i64,
    blocks_since_flush: u32,
    /// While a background flush is in flight: `flushed_headers` before it (restored if its
    /// commit fails).
    headers_in_flight: Option<usize>,
    clock: Option<i64>,
    assumevalid_passed: bool,
}

fn header_record(e: &HeaderEntry) -> [u8; 40] {
    let mut r = [0u8; 40];
    r[..32].copy_from_slice(&e.hash);
    r[32..36].copy_from_slice(&e.time.to_le_bytes());
    r[36..].copy_from_slice(&e.bits.to_le_bytes());
    r
}

fn header_from_record(r: &[u8; 40]) -> HeaderEntry {
    HeaderEntry {
        hash: r[..32].try_into().expect("32"),
        time: u32::from_le_bytes(r[32..36].try_into().expect("4")),
        bits: u32::from_le_bytes(r[36..].try_into().expect("4")),
    }
}

struct CacheSource<'a>(&'a mut CoinsCache<Box<dyn Store>>);

impl CoinSource for CacheSource<'_> {
    type Error = StoreError;
    fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, StoreError> {
        self.0.get(op)
    }
    fn may_hold_txid(&mut self, txid: &[u8; 32]) -> bool {
        self.0.may_hold_txid(txid)
    }
}

/// A block decoded and put through `CheckBlock` (every rule that needs nothing but the block:
/// proof of work, merkle root, sizes, coinbase, legacy sigops), which can run before the
/// blocks below it are connected, beside their scripts.
pub struct PreparedBlock {
    hash: [u8; 32],
    block: Result<Block, BlockError>,
    checked: Result<CheckedBlock, BlockError>,
    parse: Duration,
    /// The thread that decoded it (and so made its allocations).
    made_on: std::thread::ThreadId,
}

impl PreparedBlock {
    /// Decodes `raw_block` and runs `CheckBlock` for `params` on `backend`. A failure is kept
    /// (with its height filled in when the block is connected).
    pub fn new(raw_block: &[u8], params: &'static ChainParams, backend: Backend) -> PreparedBlock {
        let t0 = Instant::now();
        let hash = raw_block.get(..80).map_or([0; 32], crate::hash::sha256d);
        let block = Block::from_bytes(raw_block).map_err(|e| BlockError {
            reason: format!("bad-block-decode ({e})"),
            hash,
            height: 0,
            tx: None,
            input: None,
        });
        let parse = t0.elapsed();
        let checked = match &block {
            Ok(b) => validation::check_block(b, 0, params, backend),
            Err(e) => Err(e.clone()),
        };
        PreparedBlock { hash, block, checked, parse, made_on: std::thread::current().id() }
    }

    /// The block hash (internal byte order), from its header.
    pub fn hash(&self) -> [u8; 32] {
        self.hash
    }

    /// The decoded block, if it decoded.
    pub fn block(&self) -> Option<&Block> {
        self.block.as_ref().ok()
    }
}

/// Reads coins into the chain state's cache ahead of the block that spends them (given to
/// [`Chainstate::connect_prepared`]'s side job). Reading ahead changes no verdict: a coin the
/// block below spends is still there when read, and the block is validated against the cache
/// as it is when it is connected.
pub struct Prefetch<'a> {
    cache: &'a mut CoinsCache<Box<dyn Store>>,
}

impl Prefetch<'_> {
    /// Reads every coin `block` spends that it does not create itself; returns how many were
    /// found. A store error ends the reading ahead (the block's own fetch will meet it).
    pub fn block(&mut self, block: &PreparedBlock) -> usize {
        let (Ok(b), Ok(checked)) = (&block.block, &block.checked) else { return 0 };
        let own: std::collections::HashSet<&[u8; 32], crate::utxo::SaltedOutPoints> =
            checked.txids.iter().collect();
        let mut found = 0;
        for inp in b.txdata.iter().skip(1).flat_map(|t| &t.inputs) {
            if own.contains(&inp.prevout.txid) {
                continue;
            }
            match self.cache.load(&inp.prevout) {
                Ok(c) => found += usize::from(c),
                Err(_) => break,
            }
        }
        found
    }
}

/// The capacity of the on-disk store's block cache: an eighth of `--dbcache`, from 1 MiB up to
/// 8 MiB, the most Core gives its coins database. Lookups spread over the whole set rarely hit
/// a block twice, and a larger cache measured slower: 56 MiB against 8 MiB at `--dbcache 450`
/// on 20 million coins, 73.6 s against 65.5 s with 40 MiB more at the peak.
#[cfg(all(feature = "store", not(target_arch = "wasm32")))]
fn store_cache_bytes(dbcache_bytes: usize) -> usize {
    (dbcache_bytes / 8).clamp(1 << 20, 8 << 20)
}

impl Chainstate {
    /// A chain state over `store`; what the store keeps resident comes out of the budget.
    fn with_store(store: Box<dyn Store>, opts: ChainstateOptions) -> Result<Chainstate, ChainError> {
        let meta = store.meta()?;
        let headers: Vec<HeaderEntry> = store.headers()?.iter().map(header_from_record).collect();
        let (muhash, utxo_count, total_amount) = match &meta {
            Some(m) => {
                if headers.len() != m.height as usize + 1 || headers.last().map(|h| h.hash) != Some(m.hash) {
                    return Err(ChainError::Corrupt(format!(
                        "best block {} at {} but {} header records",
                        display_hex(&m.hash),
                        m.height,
                        headers.len()
                    )));
                }
                (m.muhash, m.utxo_count, m.total_amount)
            }
            None if headers.is_empty() => (Some(MuHash3072::new()), 0, 0),
            None => return Err(ChainError::Corrupt("header records without a best block".into())),
        };
        let params = opts.network.params();
        if let Some(g) = headers.first() {
            if g.hash != params.genesis_hash {
                return Err(ChainError::Corrupt(format!("stored chain is not {}", opts.network)));
            }
        }
        let assumevalid_passed = opts.assumevalid.is_some_and(|a| headers.iter().any(|h| h.hash == a));
        let policy = opts.muhash;
        let mut cs = Chainstate {
            params,
            cache: CoinsCache::new(store, opts.dbcache_bytes),
            flushed_headers: headers.len(),
            headers,
            muhash: None,
            final_muhash: None,
            utxo_count,
            total_amount,
            blocks_since_flush: 0,
            headers_in_flight: None,
            clock: None,
            assumevalid_passed,
            opts,
        };
        if policy == MuhashPolicy::Incremental {
            // A state flushed under another policy has no accumulator: start from its set.
            cs.muhash = match muhash {
                Some(m) => Some(m),
                None => Some(cs.set_muhash()?),
            };
        }
        Ok(cs)
    }

    /// The MuHash of the set the cache and store hold, computed over every coin.
    fn set_muhash(&self) -> Result<MuHash3072, StoreError> {
        muhash_of_parts(self.opts.threads, self.opts.backend, |r, f| self.cache.for_each_element_in(r, f))
    }

    /// Computes the set's MuHash now (the final policy's one pass over the set; under the
    /// incremental policy only its finalisation) and keeps it for [`Chainstate::summary`];
    /// returns the time it took. Nothing under [`MuhashPolicy::Off`].
    pub fn compute_muhash(&mut self) -> Result<Duration, ChainError> {
        let t = Instant::now();
        if let (MuhashPolicy::Final, Some((_, tip))) = (self.opts.muhash, self.tip()) {
            if self.final_muhash.is_none_or(|(at, _)| at != tip) {
                self.final_muhash = Some((tip, self.set_muhash()?));
            }
        }
        Ok(t.elapsed())
    }

    /// Opens (or creates) the on-disk chain state in `datadir`, resuming from its last flush;
    /// an empty directory is the state before genesis.
    #[cfg(all(feature = "store", not(target_arch = "wasm32")))]
    pub fn open(datadir: &std::path::Path, opts: ChainstateOptions) -> Result<Chainstate, ChainError> {
        let store_cache = store_cache_bytes(opts.dbcache_bytes);
        let store = crate::utxo::DiskStore::open_niced(datadir, store_cache as u64, opts.background_nice)?;
        let nice = opts.background_nice;
        let mut cs = Chainstate::with_store(Box::new(store), opts)?;
        cs.cache.set_writer_nice(nice);
        Ok(cs)
    }

    /// Without the `store` feature there is no on-disk store.
    #[cfg(not(all(feature = "store", not(target_arch = "wasm32"))))]
    pub fn open(_datadir: &std::path::Path, _opts: ChainstateOptions) -> Result<Chainstate, ChainError> {
        Err(ChainError::Store(StoreError("built without the `store` feature".into())))
    }

    /// A chain state over an in-memory store, before genesis.
    pub fn open_in_memory(opts: ChainstateOptions) -> Chainstate {
        Chainstate::with_store(Box::new(MemStore::new()), opts).expect("an empty store is consistent")
    }

    /// Sets the adjusted clock (seconds since the epoch) for the `time-too-new` rule.
    pub fn set_clock(&mut self, now: i64) {
        self.clock = Some(now);
    }

    /// The network's parameters.
    pub fn params(&self) -> &'static ChainParams {
        self.params
    }

    /// Height and hash of the tip.
    pub fn tip(&self) -> Option<(u32, [u8; 32])> {
        self.headers.last().map(|h| (self.headers.len() as u32 - 1, h.hash))
    }

    /// The header chain (`[i]` = block at height i).
    pub fn headers(&self) -> &[HeaderEntry] {
        &self.headers
    }

    /// The unspent coin at `op`.
    pub fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, ChainError> {
        Ok(self.cache.get(op)?)
    }

    /// The state at the tip.
    ///
    /// Under the final policy the MuHash is the one [`Chainstate::compute_muhash`] computed at
    /// this tip, or is computed here over the whole set (a store failure while reading it shows
    /// as a panic: call `compute_muhash` first to get it as an error).
    pub fn summary(&self) -> StateSummary {
        let muhash = match self.opts.muhash {
            MuhashPolicy::Off => None,
            MuhashPolicy::Incremental => self.muhash,
            MuhashPolicy::Final => match (self.final_muhash, self.tip()) {
                (Some((at, m)), Some((_, tip))) if at == tip => Some(m),
                _ => Some(self.set_muhash().expect("the store reads the set")),
            },
        };
        StateSummary {
            height: self.tip().map(|t| t.0),
            tip: self.tip().map(|t| t.1),
            utxo_count: self.utxo_count,
            total_amount: self.total_amount,
            muhash: muhash.map(|mut m| {
                let mut d = m.finalize();
                d.reverse();
                d.iter().map(|b| format!("{b:02x}")).collect()
            }),
        }
    }

    fn now(&self) -> i64 {
        self.clock.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        })
    }

    /// Validates `raw_block` on top of the tip and, if valid, connects it.
    pub fn connect_block(&mut self, raw_block: &[u8]) -> Result<ConnectStats, ChainError> {
        let p = self.prepare(raw_block);
        self.connect_prepared(p, |_| ()).0
    }

    /// Decodes `raw_block` and runs `CheckBlock` on it ([`PreparedBlock::new`] with this
    /// chain's parameters and backend).
    pub fn prepare(&self, raw_block: &[u8]) -> PreparedBlock {
        PreparedBlock::new(raw_block, self.params, self.opts.backend)
    }

    /// [`Chainstate::connect_block`] of a prepared block, with `beside` run on a script worker
    /// while the block's scripts run (see [`validation::connect_block_beside`]); `beside` gets a
    /// [`Prefetch`] to read coins into the cache ahead of the next block. The verdict and the
    /// state are those of [`Chainstate::connect_block`]: a prepared block's `CheckBlock`
    /// result is reported where `connect_block` would report it, after the header checks.
    /// `beside`'s result comes back unless the block failed before its scripts.
    pub fn connect_prepared<T: Send>(
        &mut self,
        p: PreparedBlock,
        beside: impl FnOnce(&mut Prefetch<'_>) -> T + Send,
    ) -> (Result<ConnectStats, ChainError>, Option<T>) {
        let mut beside = Some(beside);
        match self.connect_prepared_inner(p, &mut beside) {
            Ok((stats, t)) => (Ok(stats), t),
            // `beside` ran only if the block got as far as its scripts.
            Err(e) => (Err(e), None),
        }
    }

    fn connect_prepared_inner<T: Send, B: FnOnce(&mut Prefetch<'_>) -> T + Send>(
        &mut self,
        p: PreparedBlock,
        beside: &mut Option<B>,
    ) -> Result<(ConnectStats, Option<T>), ChainError> {
        let height = self.headers.len() as u32;
        let hash = p.hash;
        let label = |mut e: BlockError| {
            e.height = height;
            ChainError::Invalid(e)
        };
        let made_elsewhere = p.made_on != std::thread::current().id();
        let mut block = p.block.map_err(label)?;
        let invalid = |r: &str| {
            ChainError::Invalid(BlockError { reason: r.into(), hash, height, tx: None, input: None })
        };
        let mut stats = ConnectStats { txs: block.txdata.len(), parse: p.parse, ..Default::default() };
        if self.headers.is_empty() {
            if hash != self.params.genesis_hash {
                return Err(invalid("bad-genesis"));
            }
            stats.inputs = block.txdata.iter().map(|t| t.inputs.len()).sum();
            self.headers.push(HeaderEntry::of(&block.header));
            self.after_connect(&mut stats)?;
            return Ok((stats, None));
        }
        let tip = self.headers.last().expect("non-empty").hash;
        if block.header.prev_block != tip {
            return Err(invalid("prev-blk-not-found"));
        }
        let params = self.params;
        validation::check_block_header(&block.header, &hash, params).map_err(invalid)?;
        validation::contextual_check_block_header(&block.header, &self.headers, params, self.now())
            .map_err(|r| invalid(&r))?;
        let checked = p.checked.map_err(label)?;
        let prev_mtp = chain::median_time_past(&self.headers, height - 1);
        let cutoff = if height >= params.csv_height { prev_mtp } else { block.header.time as i64 };
        validation::contextual_check_block(&block, &checked, height, Some(cutoff), params)?;

        let mut enforce_bip30 = !params.is_bip30_repeat(height, &hash);
        if enforce_bip30
            && height > params.bip34_height
            && self.headers[params.bip34_height as usize].hash == params.bip34_hash
        {
            enforce_bip30 = false;
        }
        enforce_bip30 |= height >= BIP34_IMPLIES_BIP30_LIMIT;
        let verify_scripts = self.opts.assumevalid.is_none() || self.assumevalid_passed;
        let headers = &self.headers;
        let mtp = |h: u32| chain::median_time_past(headers, h);
        let ctx = ConnectContext {
            params,
            height,
            flags: validation::script_flags(params, height, &hash),
            mtp: Some(&mtp),
            enforce_bip30,
            verify_scripts,
            threads: self.opts.threads,
            backend: self.opts.backend,
            sig_mode: self.opts.sig_mode,
        };
        let beside = beside.take().expect("connect_prepared_inner runs once");
        let (connected, beside_out) =
            validation::connect_beside(&block, &checked, &ctx, &mut CacheSource(&mut self.cache), |source| {
                beside(&mut Prefetch { cache: source.0 })
            });
        // The block's outputs become the created coins: their scripts are taken, not copied.
        let out = connected.map(|c| c.taking_scripts(&mut block)).map_err(|e| match e {
            ConnectError::Invalid(b) => ChainError::Invalid(b),
            ConnectError::Source(s) => ChainError::Store(s),
        })?;
        stats.inputs = out.inputs;
        stats.sigops_cost = out.sigops_cost;
        stats.fees = out.fees;
        stats.fetch = out.fetch;
        stats.bip30 = out.bip30;
        stats.scripts = out.scripts;

        let ta = Instant::now();
        // Core's two duplicate coinbases overwrite an unspent coin: it leaves the set. Looked up
        // before anything changes, so a store error leaves the state as it was.
        let mut overwritten = Vec::new();
        if params.is_bip30_repeat(height, &hash) {
            for (op, _) in &out.delta.created {
                if let Some(old) = self.cache.get(op)? {
                    overwritten.push((*op, old));
                }
            }
        }
        if let Some(m) = &mut self.muhash {
            let mut delta = muhash_delta(&out.delta.spent, &out.delta.created, self.opts.threads);
            for (op, old) in &overwritten {
                delta.remove(&txout_ser(op, old));
            }
            m.combine(&delta);
        }
        for (_, old) in &overwritten {
            self.utxo_count -= 1;
            self.total_amount -= old.out.value;
        }
        for (op, coin) in &out.delta.spent {
            self.cache.spend(op);
            self.utxo_count -= 1;
            self.total_amount -= coin.out.value;
        }
        for (op, coin) in out.delta.created {
            self.utxo_count += 1;
            self.total_amount += coin.out.value;
            let cb = coin.coinbase;
            self.cache.add(op, coin, cb);
        }
        self.headers.push(HeaderEntry::of(&block.header));
        if self.opts.assumevalid == Some(hash) {
            self.assumevalid_passed = true;
        }
        stats.apply = ta.elapsed();
        // A block decoded on another thread (a crew helper reading ahead) is freed by a helper
        // too, between jobs (see `crew::retire`): its thousands of allocations go back to the
        // allocator's arena of the thread that made them without this thread's time.
        if made_elsewhere {
            crate::crew::retire(block);
        }
        self.after_connect(&mut stats)?;
        Ok((stats, beside_out))
    }

    fn after_connect(&mut self, stats: &mut ConnectStats) -> Result<(), ChainError> {
        self.blocks_since_flush += 1;
        let landed = self.cache.poll();
        self.landed(landed)?;
        let periodic = self.opts.flush_every_blocks.is_some_and(|n| self.blocks_since_flush >= n.max(1));
        if periodic || self.cache.over_half_budget() {
            let tf = Instant::now();
            self.flush_with(true)?;
            stats.flush = tf.elapsed();
        }
        Ok(())
    }

    /// Takes the result of a background flush that landed (or failed).
    fn landed(&mut self, r: Result<Option<usize>, StoreError>) -> Result<(), ChainError> {
        match r {
            Ok(None) => Ok(()),
            Ok(Some(_)) => {
                self.headers_in_flight = None;
                Ok(())
            }
            Err(e) => {
                if let Some(h) = self.headers_in_flight.take() {
                    self.flushed_headers = h;
                }
                Err(e.into())
            }
        }
    }

    /// Saves what lets the next opening of the store start sooner ([`Store::save_for_reopening`]),
    /// for a process that exits without dropping the chain state; call it after the last
    /// [`Chainstate::flush`]. A chain state that is dropped has its store save it.
    pub fn save_for_reopening(&self) -> Result<(), ChainError> {
        Ok(self.cache.store().save_for_reopening()?)
    }

    /// Writes the cache and the best block atomically, and waits for the write (and for a
    /// flush the chain state started in the background while connecting blocks).
    pub fn flush(&mut self) -> Result<(), ChainError> {
        self.flush_with(false)
    }

    /// Flushes; `background`: without waiting for the commit
    /// ([`CoinsCache::flush_in_background`]), whose failure is reported by a later call.
    fn flush_with(&mut self, background: bool) -> Result<(), ChainError> {
        let landed = self.cache.land();
        self.landed(landed)?;
        let Some((height, hash)) = self.tip() else { return Ok(()) };
        let meta = ChainMeta {
            height,
            hash,
            muhash: self.muhash,
            utxo_count: self.utxo_count,
            total_amount: self.total_amount,
        };
        let headers: Vec<(u32, [u8; 40])> = self.headers[self.flushed_headers..]
            .iter()
            .enumerate()
            .map(|(i, h)| ((self.flushed_headers + i) as u32, header_record(h)))
            .collect();
        if background {
            self.cache.flush_in_background(meta, headers)?;
            self.headers_in_flight = Some(self.flushed_headers);
        } else {
            self.cache.flush(meta, headers)?;
        }
        self.flushed_headers = self.headers.len();
        self.blocks_since_flush = 0;
        Ok(())
    }
}
