// SPDX-License-Identifier: MIT OR Apache-2.0
//! `chaingen`: a deterministic regtest chain whose transactions walk through the eras of
//! mainnet, for replays that cannot download the real chain.
//!
//! From a seed and a [`Profile`] the generator builds blocks with real proof of work at regtest
//! difficulty, BIP34 heights and witness commitments. Every coin it creates belongs to a key it
//! derives from the seed, so every coin can be spent again: value keeps flowing through the
//! regtest halvings (every 150 blocks) because fees return to the coinbase.
//!
//! The spend range (from the first mature coinbase to the tip) is cut into three eras, each
//! with its own mix of output types, hash types and odd encodings:
//!
//! - `legacy`: P2PK and P2PKH with compressed, uncompressed and a few hybrid keys, bare 1-of-2
//!   multisig, P2SH 2-of-3 multisig, high-S signatures, every legacy hash type (SINGLE with an
//!   input past the last output signs the constant one hash, as on mainnet);
//! - `segwit`: adds P2WPKH, P2SH-P2WPKH and P2WSH 2-of-3 multisig with every hash type;
//! - `taproot`: adds key-path spends (default and explicit hash types), script paths with a
//!   CHECKSIG leaf or a CHECKSIGADD 2-of-3 leaf at depths up to 12, and annexes.
//!
//! Shapes that stress a verifier are scheduled at fixed points of the spend range:
//! consolidations of 1,000+ inputs (the legacy one hashes quadratically), fan-outs of 3,000
//! outputs, blocks filled close to 4,000,000 weight units, and chains of transactions that spend
//! outputs of the same block.
//!
//! Planning is sequential and driven by one seeded generator; signing is spread over threads in
//! fixed contiguous chunks and every signature is deterministic (RFC 6979, BIP340 with a derived
//! auxiliary value), so the blocks are byte-identical for any thread count.
//!
//! The corpus on disk: `blk00000.dat`, `blk00001.dat`, … of `magic | u32 LE length | block`
//! records (regtest magic `fabfb5da`, files cut at 128 MiB as Bitcoin Core does, so its block
//! importer reads them) and `manifest.json` ([`Manifest`]).

use fullverify::chain::{Network, COINBASE_MATURITY};
use fullverify::encode::{
    display_hex, write_compact_size, Block, BlockHeader, OutPoint, Transaction, TxIn, TxOut,
};
use fullverify::hash::{hash160, sha256, sha256d, tags};
use fullverify::hash::{merkle_root, witness_merkle_root};
use fullverify::muhash::MuHash3072;
use fullverify::secp256k1::{ecdsa, schnorr, secret_tweak_add_xonly, PublicKey, XOnlyPublicKey};
use fullverify::sighash::{TxContext, SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE};
use fullverify::utxo::{txout_ser, Coin};
use fullverify::validation::bip34_height_push;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Version of the corpus format and of the generator's choices: a change to either gives
/// different blocks for the same seed, so it is part of the cache folder's name.
pub const FORMAT_VERSION: u32 = 1;

/// The seed used when none is given.
pub const DEFAULT_SEED: u64 = 20_090_103;

/// Bitcoin Core's maximum blk*.dat file size.
const MAX_BLOCKFILE_SIZE: usize = 128 << 20;

/// Estimated weight and sigop budgets of a block (the limits are 4,000,000 and 80,000).
const BLOCK_WEIGHT_BUDGET: usize = 3_980_000;
const BLOCK_SIGOPS_BUDGET: u64 = 79_000;

/// The three eras of the spend range, in chain order.
pub const ERAS: [&str; 3] = ["legacy", "segwit", "taproot"];

/// How big a corpus is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// About 130 blocks and 3,000 inputs: for determinism tests.
    Tiny,
    /// About 200 blocks and 20,000 inputs: for tests.
    Small,
    /// About 2,000 blocks and 250,000 inputs: the replay's default.
    Default,
    /// About 12,000 blocks and 3,000,000 inputs: for scaling runs.
    Large,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 4] = [Profile::Tiny, Profile::Small, Profile::Default, Profile::Large];

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Tiny => "tiny",
            Profile::Small => "small",
            Profile::Default => "default",
            Profile::Large => "large",
        }
    }

    /// Height of the last block.
    pub fn tip_height(self) -> u32 {
        match self {
            Profile::Tiny => 130,
            Profile::Small => 200,
            Profile::Default => 2_000,
            Profile::Large => 12_000,
        }
    }

    /// Mean number of inputs per block in the spend range.
    fn inputs_per_block(self) -> usize {
        match self {
            Profile::Tiny => 100,
            Profile::Small => 200,
            Profile::Default => 130,
            Profile::Large => 252,
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Profile, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown profile {s:?} (tiny, small, default, large)"))
    }
}

/// The kind of an output, which fixes how it is spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `<compressed key> CHECKSIG`.
    P2pk,
    /// `<uncompressed key> CHECKSIG`.
    P2pkUncompressed,
    /// P2PKH of a compressed key.
    P2pkh,
    /// P2PKH of an uncompressed key.
    P2pkhUncompressed,
    /// P2PKH of a hybrid (0x06/0x07) key.
    P2pkhHybrid,
    /// Bare 1-of-2 CHECKMULTISIG.
    Multisig,
    /// P2SH of a 2-of-3 CHECKMULTISIG.
    P2shMultisig,
    /// Native segwit v0 key hash.
    P2wpkh,
    /// P2WPKH nested in P2SH.
    P2shP2wpkh,
    /// Native segwit v0 script hash of a 2-of-3 CHECKMULTISIG.
    P2wshMultisig,
    /// Taproot spent by the key path.
    P2trKey,
    /// Taproot spent by a `<key> CHECKSIG` leaf.
    P2trLeafChecksig,
    /// Taproot spent by a 2-of-3 CHECKSIGADD leaf.
    P2trLeafChecksigadd,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 13] = [
        Kind::P2pk,
        Kind::P2pkUncompressed,
        Kind::P2pkh,
        Kind::P2pkhUncompressed,
        Kind::P2pkhHybrid,
        Kind::Multisig,
        Kind::P2shMultisig,
        Kind::P2wpkh,
        Kind::P2shP2wpkh,
        Kind::P2wshMultisig,
        Kind::P2trKey,
        Kind::P2trLeafChecksig,
        Kind::P2trLeafChecksigadd,
    ];

    /// The name used in manifests and packets.
    pub fn name(self) -> &'static str {
        match self {
            Kind::P2pk => "p2pk",
            Kind::P2pkUncompressed => "p2pk-uncompressed",
            Kind::P2pkh => "p2pkh",
            Kind::P2pkhUncompressed => "p2pkh-uncompressed",
            Kind::P2pkhHybrid => "p2pkh-hybrid",
            Kind::Multisig => "multisig",
            Kind::P2shMultisig => "p2sh-multisig",
            Kind::P2wpkh => "p2wpkh",
            Kind::P2shP2wpkh => "p2sh-p2wpkh",
            Kind::P2wshMultisig => "p2wsh-multisig",
            Kind::P2trKey => "p2tr-key",
            Kind::P2trLeafChecksig => "p2tr-script-checksig",
            Kind::P2trLeafChecksigadd => "p2tr-script-checksigadd",
        }
    }

    fn is_legacy(self) -> bool {
        matches!(
            self,
            Kind::P2pk
                | Kind::P2pkUncompressed
                | Kind::P2pkh
                | Kind::P2pkhUncompressed
                | Kind::P2pkhHybrid
                | Kind::Multisig
                | Kind::P2shMultisig
        )
    }

    fn is_taproot(self) -> bool {
        matches!(self, Kind::P2trKey | Kind::P2trLeafChecksig | Kind::P2trLeafChecksigadd)
    }

    /// Upper bound of the weight one input spending this kind adds (taproot script paths add
    /// their control block on top).
    fn input_weight(self) -> usize {
        // prevout 36, sequence 4, script length 1: 41 bytes ×4.
        let base = 41 * 4;
        base + match self {
            Kind::P2pk | Kind::P2pkUncompressed => 75 * 4,
            Kind::P2pkh => (75 + 34) * 4,
            Kind::P2pkhUncompressed | Kind::P2pkhHybrid => (75 + 66) * 4,
            Kind::Multisig => (1 + 75) * 4,
            Kind::P2shMultisig => (1 + 2 * 75 + 2 + 105 + 2) * 4,
            Kind::P2wpkh => 1 + 74 + 34 + 1,
            Kind::P2shP2wpkh => 23 * 4 + 1 + 74 + 34 + 1,
            Kind::P2wshMultisig => 1 + 1 + 2 * 74 + 1 + 105 + 1,
            Kind::P2trKey => 1 + 66,
            Kind::P2trLeafChecksig => 1 + 66 + 35,
            Kind::P2trLeafChecksigadd => 1 + 3 * 66 + 3 * 35 + 4,
        } + 48 // an annex
    }

    /// Sigop cost of spending (P2SH redeem scripts and witness programs).
    fn spend_sigops(self) -> u64 {
        match self {
            Kind::P2shMultisig => 12,
            Kind::P2wpkh | Kind::P2shP2wpkh => 1,
            Kind::P2wshMultisig => 3,
            _ => 0,
        }
    }

    /// Legacy sigop cost of creating an output of this kind.
    fn output_sigops(self) -> u64 {
        match self {
            Kind::P2pk
            | Kind::P2pkUncompressed
            | Kind::P2pkh
            | Kind::P2pkhUncompressed
            | Kind::P2pkhHybrid => 4,
            Kind::Multisig => 80,
            _ => 0,
        }
    }
}

/// Output-type weights per era (per mille), shaped after the spent-output mix of mainnet's
/// years before segwit, between segwit and taproot, and since taproot.
fn era_weights(era: usize) -> &'static [(Kind, u32)] {
    match era {
        0 => &[
            (Kind::P2pkh, 560),
            (Kind::P2pkhUncompressed, 170),
            (Kind::P2pkhHybrid, 3),
            (Kind::P2pk, 20),
            (Kind::P2pkUncompressed, 50),
            (Kind::Multisig, 17),
            (Kind::P2shMultisig, 180),
        ],
        1 => &[
            (Kind::P2pkh, 360),
            (Kind::P2pkhUncompressed, 15),
            (Kind::P2pk, 5),
            (Kind::Multisig, 5),
            (Kind::P2shMultisig, 120),
            (Kind::P2shP2wpkh, 250),
            (Kind::P2wpkh, 190),
            (Kind::P2wshMultisig, 55),
        ],
        _ => &[
            (Kind::P2pkh, 170),
            (Kind::P2shMultisig, 50),
            (Kind::P2shP2wpkh, 80),
            (Kind::P2wpkh, 430),
            (Kind::P2wshMultisig, 50),
            (Kind::P2trKey, 190),
            (Kind::P2trLeafChecksig, 20),
            (Kind::P2trLeafChecksigadd, 10),
        ],
    }
}

/// SplitMix64: the generator's only source of choices.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn chance(&mut self, per_mille: u32) -> bool {
        (self.next() % 1000) < u64::from(per_mille)
    }
    fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        for c in b.chunks_mut(8) {
            c.copy_from_slice(&self.next().to_le_bytes());
        }
        b
    }
}

/// One key with every form the generator uses.
struct Key {
    sk: [u8; 32],
    compressed: [u8; 33],
    uncompressed: [u8; 65],
    hybrid: [u8; 65],
    xonly: [u8; 32],
    /// Key-path-only taproot output key and the matching tweaked secret key.
    tr_output: [u8; 32],
    tr_sk: [u8; 32],
}

const KEY_COUNT: usize = 512;

fn derive_keys(seed: u64, threads: usize) -> Vec<Key> {
    let make = |i: usize| {
        let mut ctr = 0u32;
        loop {
            let mut m = b"chaingen key".to_vec();
            m.extend_from_slice(&seed.to_le_bytes());
            m.extend_from_slice(&(i as u64).to_le_bytes());
            m.extend_from_slice(&ctr.to_le_bytes());
            let sk = sha256(&m);
            if let Ok(pk) = PublicKey::from_secret(&sk) {
                let uncompressed = pk.serialize_uncompressed();
                let mut hybrid = uncompressed;
                hybrid[0] = 0x06 | (uncompressed[64] & 1);
                let (x, _) = pk.x_only();
                let xonly = x.serialize();
                let tweak = tags::tap_tweak().hash(&xonly);
                let (q, _) = x.tweak_add(&tweak).expect("taproot tweak");
                let tr_sk = secret_tweak_add_xonly(&sk, &tweak).expect("taproot secret tweak");
                return Key {
                    sk,
                    compressed: pk.serialize_compressed(),
                    uncompressed,
                    hybrid,
                    xonly,
                    tr_output: q.serialize(),
                    tr_sk,
                };
            }
            ctr += 1;
        }
    };
    par_map(&(0..KEY_COUNT).collect::<Vec<_>>(), threads, |&i| make(i))
}

/// Maps `items` in order over `threads` contiguous chunks.
fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = threads.max(1).min(items.len().max(1));
    if threads == 1 || items.len() < 8 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("chaingen worker")).collect()
    })
}

/// A taproot script tree with one spendable leaf at some depth.
#[derive(Debug)]
struct TapLeaf {
    script: Vec<u8>,
    leaf_hash: [u8; 32],
    control: Vec<u8>,
    output_key: [u8; 32],
}

/// A coin the generator can spend.
#[derive(Clone, Debug)]
struct Utxo {
    op: OutPoint,
    value: i64,
    kind: Kind,
    keys: [u16; 3],
    height: u32,
    coinbase: bool,
    spk: Vec<u8>,
    leaf: Option<Arc<TapLeaf>>,
}

fn push(s: &mut Vec<u8>, data: &[u8]) {
    match data.len() {
        n if n < 0x4c => s.push(n as u8),
        n if n <= 0xff => s.extend_from_slice(&[0x4c, n as u8]),
        n => {
            s.push(0x4d);
            s.extend_from_slice(&(n as u16).to_le_bytes());
        }
    }
    s.extend_from_slice(data);
}

fn p2pkh(h: &[u8; 20]) -> Vec<u8> {
    let mut s = vec![0x76, 0xa9, 0x14];
    s.extend_from_slice(h);
    s.extend_from_slice(&[0x88, 0xac]);
    s
}

fn p2sh(script: &[u8]) -> Vec<u8> {
    let mut s = vec![0xa9, 0x14];
    s.extend_from_slice(&hash160(script));
    s.push(0x87);
    s
}

fn multisig(m: u8, keys: &[&[u8]]) -> Vec<u8> {
    let mut s = vec![0x50 + m];
    for k in keys {
        push(&mut s, k);
    }
    s.push(0x50 + keys.len() as u8);
    s.push(0xae);
    s
}

fn tap_branch(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let (l, r) = if a <= b { (a, b) } else { (b, a) };
    let mut m = [0u8; 64];
    m[..32].copy_from_slice(l);
    m[32..].copy_from_slice(r);
    tags::tap_branch().hash(&m)
}

struct Gen {
    keys: Vec<Key>,
    rng: Rng,
}

impl Gen {
    fn key(&self, i: u16) -> &Key {
        &self.keys[i as usize]
    }

    fn redeem_2of3(&self, k: [u16; 3]) -> Vec<u8> {
        multisig(2, &[&self.key(k[0]).compressed, &self.key(k[1]).compressed, &self.key(k[2]).compressed])
    }

    /// A new output of `kind` with fresh keys: its script and, for script paths, its leaf.
    fn new_output(&mut self, kind: Kind) -> (Vec<u8>, [u16; 3], Option<Arc<TapLeaf>>) {
        let mut keys = [0u16; 3];
        for k in &mut keys {
            *k = self.rng.below(KEY_COUNT) as u16;
        }
        while keys[1] == keys[0] {
            keys[1] = self.rng.below(KEY_COUNT) as u16;
        }
        while keys[2] == keys[0] || keys[2] == keys[1] {
            keys[2] = self.rng.below(KEY_COUNT) as u16;
        }
        let k0 = self.key(keys[0]);
        let spk = match kind {
            Kind::P2pk => {
                let mut s = Vec::new();
                push(&mut s, &k0.compressed);
                s.push(0xac);
                s
            }
            Kind::P2pkUncompressed => {
                let mut s = Vec::new();
                push(&mut s, &k0.uncompressed);
                s.push(0xac);
                s
            }
            Kind::P2pkh => p2pkh(&hash160(&k0.compressed)),
            Kind::P2pkhUncompressed => p2pkh(&hash160(&k0.uncompressed)),
            Kind::P2pkhHybrid => p2pkh(&hash160(&k0.hybrid)),
            Kind::Multisig => multisig(1, &[&k0.compressed, &self.key(keys[1]).compressed]),
            Kind::P2shMultisig => p2sh(&self.redeem_2of3(keys)),
            Kind::P2wpkh => {
                let mut s = vec![0x00, 0x14];
                s.extend_from_slice(&hash160(&k0.compressed));
                s
            }
            Kind::P2shP2wpkh => {
                let mut w = vec![0x00, 0x14];
                w.extend_from_slice(&hash160(&k0.compressed));
                p2sh(&w)
            }
            Kind::P2wshMultisig => {
                let mut s = vec![0x00, 0x20];
                s.extend_from_slice(&sha256(&self.redeem_2of3(keys)));
                s
            }
            Kind::P2trKey => {
                let mut s = vec![0x51, 0x20];
                s.extend_from_slice(&k0.tr_output);
                s
            }
            Kind::P2trLeafChecksig | Kind::P2trLeafChecksigadd => {
                let leaf = self.new_leaf(kind, keys);
                let mut s = vec![0x51, 0x20];
                s.extend_from_slice(&leaf.output_key);
                return (s, keys, Some(Arc::new(leaf)));
            }
        };
        (spk, keys, None)
    }

    fn new_leaf(&mut self, kind: Kind, keys: [u16; 3]) -> TapLeaf {
        let mut script = Vec::new();
        if kind == Kind::P2trLeafChecksig {
            push(&mut script, &self.key(keys[1]).xonly);
            script.push(0xac);
        } else {
            push(&mut script, &self.key(keys[0]).xonly);
            script.push(0xac);
            push(&mut script, &self.key(keys[1]).xonly);
            script.push(0xba);
            push(&mut script, &self.key(keys[2]).xonly);
            script.push(0xba);
            script.push(0x52);
            script.push(0x9c);
        }
        let mut lm = vec![0xc0];
        write_compact_size(&mut lm, script.len() as u64);
        lm.extend_from_slice(&script);
        let leaf_hash = tags::tap_leaf().hash(&lm);
        // Depth 1..=12, mostly shallow; the other branches are hashes of unknown scripts.
        let depth = if self.rng.chance(150) { self.rng.range(5, 12) } else { self.rng.range(1, 4) };
        let mut node = leaf_hash;
        let mut path = Vec::with_capacity(depth * 32);
        for _ in 0..depth {
            let sibling = self.rng.bytes32();
            path.extend_from_slice(&sibling);
            node = tap_branch(&node, &sibling);
        }
        // The internal key is a key nobody spends with directly.
        let internal = self.key(keys[0]).xonly;
        let mut tm = internal.to_vec();
        tm.extend_from_slice(&node);
        let tweak = tags::tap_tweak().hash(&tm);
        let (q, odd) = XOnlyPublicKey::parse(&internal).expect("key").tweak_add(&tweak).expect("tweak");
        let mut control = vec![0xc0 | odd as u8];
        control.extend_from_slice(&internal);
        control.extend_from_slice(&path);
        TapLeaf { script, leaf_hash, control, output_key: q.serialize() }
    }
}

/// Where an input's coin comes from.
#[derive(Clone, Copy, Debug)]
enum Prev {
    Confirmed,
    /// Output `vout` of transaction `tx` of the same block.
    InBlock(usize, u32),
}

#[derive(Clone, Debug)]
struct PlanIn {
    coin: Utxo,
    prev: Prev,
    hash_type: u32,
    high_s: bool,
    annex: Option<Vec<u8>>,
    /// Which keys of a 2-of-3 sign (a pair of indices).
    signers: [usize; 2],
}

struct PlanTx {
    tx: Transaction,
    ins: Vec<PlanIn>,
    /// The new coins, their outpoints filled once the txid is known.
    outs: Vec<Utxo>,
    /// Outputs spent later in the same block.
    spent_in_block: Vec<bool>,
    level: usize,
}

/// Per-era and per-kind counts of spent inputs.
pub type Counts = BTreeMap<String, BTreeMap<String, u64>>;

/// An era's height range and its input count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Era {
    /// `legacy`, `segwit` or `taproot`.
    pub name: String,
    /// First height of the era.
    pub first_height: u32,
    /// Last height of the era (inclusive).
    pub last_height: u32,
    /// Inputs spent in the era (the coinbases' excluded).
    pub inputs: u64,
}

/// A scheduled stress shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stress {
    /// The block's height.
    pub height: u32,
    /// `consolidation`, `legacy-consolidation`, `fan-out` or `full-block`.
    pub shape: String,
    /// Inputs (consolidations) or outputs (fan-outs) of the largest transaction, or the
    /// block's weight (full blocks).
    pub size: u64,
}

/// The UTXO set the corpus ends with, as `replay` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedState {
    /// Unspent outputs.
    pub utxo_count: u64,
    /// Their total in satoshis.
    pub total_amount: i64,
    /// MuHash3072 as `gettxoutsetinfo muhash` prints it.
    pub muhash: String,
}

/// `manifest.json` of a corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// `chaingen`.
    pub generator: String,
    /// The seed.
    pub seed: u64,
    /// The profile.
    pub profile: Profile,
    /// Always `regtest`.
    pub network: String,
    /// Heights of the first and last block in the files (genesis is not in them).
    pub first_height: u32,
    /// Height of the tip.
    pub tip_height: u32,
    /// Tip hash (display hex).
    pub tip: String,
    /// Transactions, the coinbases included.
    pub txs: u64,
    /// Inputs that spend a coin (the coinbases' excluded).
    pub inputs: u64,
    /// The eras in chain order (heights before the first era hold only coinbases).
    pub eras: Vec<Era>,
    /// Inputs by era and then by spent-output kind.
    pub inputs_by_era: Counts,
    /// Inputs by spent-output kind over the whole corpus.
    pub inputs_by_type: BTreeMap<String, u64>,
    /// Transactions whose inputs include an output of the same block.
    pub in_block_spends: u64,
    /// The scheduled stress shapes.
    pub stress: Vec<Stress>,
    /// The block files in order.
    pub files: Vec<String>,
    /// Total size of the blocks (without frames).
    pub block_bytes: u64,
    /// SHA-256 of all blocks' bytes concatenated in chain order.
    pub sha256: String,
    /// The final UTXO set.
    pub expected_state: ExpectedState,
}

impl Manifest {
    /// The era of a height, if it is in one.
    pub fn era_of(&self, height: u32) -> Option<&str> {
        self.eras.iter().find(|e| (e.first_height..=e.last_height).contains(&height)).map(|e| e.name.as_str())
    }

    /// Reads `manifest.json` of the corpus in `dir`.
    pub fn read(dir: &Path) -> Result<Manifest, String> {
        let p = dir.join("manifest.json");
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
    }
}

/// A generated chain in memory.
pub struct Corpus {
    /// Serialized blocks from height 1 to the tip.
    pub blocks: Vec<Vec<u8>>,
    /// Its manifest (`files` empty until written).
    pub manifest: Manifest,
}

/// Serializes a block (BIP144 form when it has witnesses).
pub fn block_bytes(b: &Block) -> Vec<u8> {
    let mut v = b.header.to_bytes().to_vec();
    write_compact_size(&mut v, b.txdata.len() as u64);
    for tx in &b.txdata {
        v.extend_from_slice(&tx.to_bytes(true));
    }
    v
}

const SECP_N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xba,
    0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
];

/// DER signature plus hash type byte; `high_s` replaces s by n − s (valid by consensus).
fn ecdsa_sig(sk: &[u8; 32], msg: &[u8; 32], hash_type: u32, high_s: bool) -> Vec<u8> {
    let sig = ecdsa::sign(sk, msg);
    let sig = if high_s {
        let mut c = sig.to_compact();
        let mut borrow = 0i16;
        let mut s = [0u8; 32];
        for i in (0..32).rev() {
            let d = i16::from(SECP_N[i]) - i16::from(c[32 + i]) - borrow;
            borrow = i16::from(d < 0);
            s[i] = d.rem_euclid(256) as u8;
        }
        c[32..].copy_from_slice(&s);
        ecdsa::Signature::from_compact(&c).expect("n - s is in range")
    } else {
        sig
    };
    let mut v = sig.to_der();
    v.push(hash_type as u8);
    v
}

fn schnorr_sig(sk: &[u8; 32], msg: &[u8; 32], hash_type: u32) -> Vec<u8> {
    let aux = sha256(msg);
    let mut v = schnorr::sign(sk, msg, &aux).to_vec();
    if hash_type != 0 {
        v.push(hash_type as u8);
    }
    v
}

/// The scriptSig and witness of one input, on the transaction whose other inputs are unsigned.
fn sign_input(keys: &[Key], ctx: &TxContext<'_>, i: usize, p: &PlanIn) -> (Vec<u8>, Vec<Vec<u8>>) {
    let c = &p.coin;
    let key = |j: usize| &keys[c.keys[j] as usize];
    let ht = p.hash_type;
    let legacy = |script_code: &[u8]| ctx.legacy_sighash(i, script_code, ht);
    let v0 = |script_code: &[u8]| ctx.bip143_sighash(i, script_code, c.value, ht).expect("bip143 sighash");
    let redeem = |k: [u16; 3]| {
        multisig(
            2,
            &[
                &keys[k[0] as usize].compressed,
                &keys[k[1] as usize].compressed,
                &keys[k[2] as usize].compressed,
            ],
        )
    };
    let mut ss = Vec::new();
    let mut wit = Vec::new();
    match c.kind {
        Kind::P2pk | Kind::P2pkUncompressed => {
            push(&mut ss, &ecdsa_sig(&key(0).sk, &legacy(&c.spk), ht, p.high_s));
        }
        Kind::P2pkh | Kind::P2pkhUncompressed | Kind::P2pkhHybrid => {
            push(&mut ss, &ecdsa_sig(&key(0).sk, &legacy(&c.spk), ht, p.high_s));
            match c.kind {
                Kind::P2pkh => push(&mut ss, &key(0).compressed),
                Kind::P2pkhUncompressed => push(&mut ss, &key(0).uncompressed),
                _ => push(&mut ss, &key(0).hybrid),
            }
        }
        Kind::Multisig => {
            ss.push(0x00);
            let j = p.signers[0] % 2;
            push(&mut ss, &ecdsa_sig(&key(j).sk, &legacy(&c.spk), ht, p.high_s));
        }
        Kind::P2shMultisig => {
            let r = redeem(c.keys);
            let h = legacy(&r);
            ss.push(0x00);
            for &j in &p.signers {
                push(&mut ss, &ecdsa_sig(&key(j).sk, &h, ht, p.high_s));
            }
            push(&mut ss, &r);
        }
        Kind::P2wpkh | Kind::P2shP2wpkh => {
            let h = v0(&p2pkh(&hash160(&key(0).compressed)));
            wit.push(ecdsa_sig(&key(0).sk, &h, ht, p.high_s));
            wit.push(key(0).compressed.to_vec());
            if c.kind == Kind::P2shP2wpkh {
                let mut w = vec![0x00, 0x14];
                w.extend_from_slice(&hash160(&key(0).compressed));
                push(&mut ss, &w);
            }
        }
        Kind::P2wshMultisig => {
            let r = redeem(c.keys);
            let h = v0(&r);
            wit.push(Vec::new());
            for &j in &p.signers {
                wit.push(ecdsa_sig(&key(j).sk, &h, ht, p.high_s));
            }
            wit.push(r);
        }
        Kind::P2trKey => {
            let h = ctx.bip341_sighash(i, ht as u8, p.annex.as_deref(), None).expect("bip341 sighash");
            wit.push(schnorr_sig(&key(0).tr_sk, &h, ht));
        }
        Kind::P2trLeafChecksig | Kind::P2trLeafChecksigadd => {
            let leaf = c.leaf.as_ref().expect("script-path coin has a leaf");
            let h = ctx
                .bip341_sighash(i, ht as u8, p.annex.as_deref(), Some((leaf.leaf_hash, u32::MAX)))
                .expect("bip341 sighash");
            if c.kind == Kind::P2trLeafChecksig {
                wit.push(schnorr_sig(&key(1).sk, &h, ht));
            } else {
                // The script checks keys 0, 1, 2 in order: the witness lists them reversed.
                for j in (0..3).rev() {
                    if p.signers.contains(&j) {
                        wit.push(schnorr_sig(&key(j).sk, &h, ht));
                    } else {
                        wit.push(Vec::new());
                    }
                }
            }
            wit.push(leaf.script.clone());
            wit.push(leaf.control.clone());
        }
    }
    if let Some(a) = &p.annex {
        wit.push(a.clone());
    }
    (ss, wit)
}

/// Generator progress, for a display.
pub trait Observer {
    /// Called after each block with its height and the inputs spent so far.
    fn block(&mut self, height: u32, inputs: u64);
}

impl Observer for () {
    fn block(&mut self, _: u32, _: u64) {}
}

struct State {
    g: Gen,
    profile: Profile,
    pool: Vec<Utxo>,
    immature: VecDeque<Utxo>,
    era_bounds: [u32; 4],
    counts: Counts,
    era_inputs: [u64; 3],
    in_block_spends: u64,
    stress: Vec<Stress>,
    schedule: BTreeMap<u32, &'static str>,
    threads: usize,
    seed: u64,
}

/// Block being planned.
#[derive(Default)]
struct BlockPlan {
    txs: Vec<PlanTx>,
    weight: usize,
    sigops: u64,
    inputs: usize,
    fees: i64,
    new_outputs: usize,
}

const TX_OVERHEAD_WEIGHT: usize = (4 + 4 + 3 + 3) * 4 + 2;

impl State {
    fn era(&self, height: u32) -> Option<usize> {
        (0..3).find(|&e| height >= self.era_bounds[e] && height < self.era_bounds[e + 1])
    }

    fn pick_kind(&mut self, era: usize) -> Kind {
        let w = era_weights(era);
        let total: u32 = w.iter().map(|x| x.1).sum();
        let mut r = (self.g.rng.next() % u64::from(total)) as u32;
        for &(k, x) in w {
            if r < x {
                return k;
            }
            r -= x;
        }
        w[0].0
    }

    fn take_random(&mut self) -> Option<Utxo> {
        if self.pool.is_empty() {
            return None;
        }
        let i = self.g.rng.below(self.pool.len());
        Some(self.pool.swap_remove(i))
    }

    /// Takes up to `n` coins that satisfy `pred`, scanning from a random point.
    fn take_where(&mut self, n: usize, pred: impl Fn(&Utxo) -> bool) -> Vec<Utxo> {
        let len = self.pool.len();
        if len == 0 {
            return Vec::new();
        }
        let start = self.g.rng.below(len);
        let mut idx: Vec<usize> =
            (0..len).map(|k| (start + k) % len).filter(|&i| pred(&self.pool[i])).take(n).collect();
        idx.sort_unstable_by(|a, b| b.cmp(a));
        let mut out: Vec<Utxo> = idx.into_iter().map(|i| self.pool.swap_remove(i)).collect();
        out.reverse();
        out
    }

    fn plan_input(&mut self, coin: Utxo, prev: Prev, era: usize) -> PlanIn {
        let r = &mut self.g.rng;
        let hash_type = if coin.kind.is_taproot() {
            if r.chance(850) {
                0
            } else {
                [1, 2, 3, 0x81, 0x82, 0x83][r.below(6)]
            }
        } else {
            let x = r.below(1000);
            match x {
                0..=939 => SIGHASH_ALL,
                940..=954 => SIGHASH_NONE,
                955..=969 => SIGHASH_SINGLE,
                970..=979 => SIGHASH_ALL | SIGHASH_ANYONECANPAY,
                980..=989 => SIGHASH_NONE | SIGHASH_ANYONECANPAY,
                _ => SIGHASH_SINGLE | SIGHASH_ANYONECANPAY,
            }
        };
        let high_s = !coin.kind.is_taproot() && r.chance(if era == 0 { 20 } else { 5 });
        let annex = if coin.kind.is_taproot() && r.chance(30) {
            let n = r.range(1, 40);
            let mut a = vec![0x50];
            a.extend((0..n).map(|_| r.next() as u8));
            Some(a)
        } else {
            None
        };
        let a = r.below(3);
        let b = (a + 1 + r.below(2)) % 3;
        let signers = if a < b { [a, b] } else { [b, a] };
        PlanIn { coin, prev, hash_type, high_s, annex, signers }
    }

    fn input_weight(p: &PlanIn) -> usize {
        p.coin.kind.input_weight() + p.coin.leaf.as_ref().map_or(0, |l| l.control.len() + 2)
    }

    /// Builds a transaction spending `ins` into outputs of `values` with kinds from the era.
    /// Returns `None` when the block has no room for it (the coins go back to the pool).
    fn make_tx(
        &mut self,
        plan: &mut BlockPlan,
        mut ins: Vec<PlanIn>,
        n_out: usize,
        era: usize,
    ) -> Option<usize> {
        let kinds: Vec<Kind> = (0..n_out).map(|_| self.pick_kind(era)).collect();
        let mut outs = Vec::with_capacity(n_out);
        for &k in &kinds {
            let (spk, keys, leaf) = self.g.new_output(k);
            outs.push(Utxo {
                op: OutPoint::default(),
                value: 0,
                kind: k,
                keys,
                height: 0,
                coinbase: false,
                spk,
                leaf,
            });
        }
        let w_in: usize = ins.iter().map(Self::input_weight).sum();
        let w_out: usize = outs.iter().map(|o| (9 + o.spk.len() + 2) * 4).sum();
        let weight = TX_OVERHEAD_WEIGHT + w_in + w_out;
        let sigops: u64 = ins.iter().map(|p| p.coin.kind.spend_sigops()).sum::<u64>()
            + outs.iter().map(|o| o.kind.output_sigops()).sum::<u64>();
        let total_in: i64 = ins.iter().map(|p| p.coin.value).sum();
        let feerate = match era {
            0 => self.g.rng.range(1, 10),
            1 => self.g.rng.range(1, 30),
            _ => self.g.rng.range(1, 50),
        } as i64;
        let fee = feerate * weight.div_ceil(4) as i64;
        let spendable = total_in - fee;
        let min_out = 600i64;
        if plan.weight + weight > BLOCK_WEIGHT_BUDGET
            || plan.sigops + sigops > BLOCK_SIGOPS_BUDGET
            || spendable < min_out * n_out as i64
        {
            for p in ins {
                if let Prev::Confirmed = p.prev {
                    self.pool.push(p.coin);
                } else {
                    // An in-block parent's output that will not be spent stays with the parent.
                    if let Prev::InBlock(t, v) = p.prev {
                        plan.txs[t].spent_in_block[v as usize] = false;
                    }
                }
            }
            return None;
        }
        // Values: a random split with every output above the minimum.
        let free = spendable - min_out * n_out as i64;
        let mut parts: Vec<u64> = (0..n_out).map(|_| 1 + self.g.rng.next() % 1000).collect();
        if n_out > 1 && self.g.rng.chance(500) {
            parts[0] *= 10; // a payment and a larger change
        }
        let sum: u64 = parts.iter().sum();
        let mut left = free;
        for (j, o) in outs.iter_mut().enumerate() {
            let v =
                if j + 1 == n_out { left } else { (free as i128 * parts[j] as i128 / sum as i128) as i64 };
            o.value = min_out + v;
            left -= v;
        }
        let version = if era == 0 && self.g.rng.chance(700) { 1 } else { 2 };
        let tx = Transaction {
            version,
            inputs: ins
                .iter()
                .map(|p| TxIn {
                    prevout: p.coin.op,
                    script_sig: Vec::new(),
                    sequence: if era == 0 { u32::MAX } else { 0xffff_fffd },
                    witness: Vec::new(),
                })
                .collect(),
            outputs: outs.iter().map(|o| TxOut { value: o.value, script_pubkey: o.spk.clone() }).collect(),
            lock_time: 0,
        };
        // SIGHASH_SINGLE past the last output: the legacy "one" hash is kept for legacy and v0
        // inputs; taproot forbids it, so those sign ALL instead.
        for (i, p) in ins.iter_mut().enumerate() {
            if p.hash_type & 0x1f == SIGHASH_SINGLE && i >= n_out && p.coin.kind.is_taproot() {
                p.hash_type = 0;
            }
        }
        let level = ins
            .iter()
            .map(|p| match p.prev {
                Prev::InBlock(t, _) => plan.txs[t].level + 1,
                Prev::Confirmed => 0,
            })
            .max()
            .unwrap_or(0);
        if level > 0 {
            self.in_block_spends += 1;
        }
        plan.weight += weight;
        plan.sigops += sigops;
        plan.inputs += ins.len();
        plan.fees += fee;
        plan.new_outputs += n_out;
        let spent_in_block = vec![false; n_out];
        plan.txs.push(PlanTx { tx, ins, outs, spent_in_block, level });
        Some(plan.txs.len() - 1)
    }

    fn confirmed(&mut self, coins: Vec<Utxo>, era: usize) -> Vec<PlanIn> {
        coins.into_iter().map(|c| self.plan_input(c, Prev::Confirmed, era)).collect()
    }

    /// A chain of `len` transactions, each spending the previous one's first output.
    fn chain(&mut self, plan: &mut BlockPlan, len: usize, era: usize) {
        let Some(c) = self.take_random() else { return };
        let ins = self.confirmed(vec![c], era);
        let Some(mut t) = self.make_tx(plan, ins, 2, era) else { return };
        for _ in 1..len {
            let parent = &plan.txs[t];
            let coin = parent.outs[0].clone();
            plan.txs[t].spent_in_block[0] = true;
            let mut ins = vec![self.plan_input(coin, Prev::InBlock(t, 0), era)];
            if self.g.rng.chance(300) {
                if let Some(c) = self.take_random() {
                    ins.push(self.plan_input(c, Prev::Confirmed, era));
                }
            }
            match self.make_tx(plan, ins, 2, era) {
                Some(n) => t = n,
                None => return,
            }
        }
    }

    fn plan_block(&mut self, height: u32) -> BlockPlan {
        let mut plan = BlockPlan::default();
        let Some(era) = self.era(height) else { return plan };
        let mean = self.profile.inputs_per_block();
        let low_water = 4 * mean + 1_600;
        let special = self.schedule.get(&height).copied();
        match special {
            Some("consolidation") | Some("legacy-consolidation") => {
                let n = self.g.rng.range(1_000, 1_500);
                let coins = if special == Some("legacy-consolidation") {
                    self.take_where(n, |u| u.kind == Kind::P2pkh)
                } else {
                    self.take_where(n, |_| true)
                };
                let k = coins.len();
                let ins = self.confirmed(coins, era);
                if self.make_tx(&mut plan, ins, 1, era).is_some() {
                    self.stress.push(Stress {
                        height,
                        shape: special.unwrap_or_default().into(),
                        size: k as u64,
                    });
                }
            }
            Some("fan-out") => {
                let coins = self.take_where(1, |u| u.value > 3_000 * 5_000);
                let ins = self.confirmed(coins, era);
                if !ins.is_empty() && self.make_tx(&mut plan, ins, 3_000, era).is_some() {
                    self.stress.push(Stress { height, shape: "fan-out".into(), size: 3_000 });
                }
            }
            _ => {}
        }
        let full = special == Some("full-block");
        let target = if full { usize::MAX } else { self.g.rng.range(mean / 2, mean * 3 / 2) };
        let mut stalls = 0;
        let max_stalls = if full { 200 } else { 20 };
        while plan.inputs < target && stalls < max_stalls {
            let before = plan.txs.len();
            let refill = if full {
                self.pool.len() < 64 || stalls % 2 == 1
            } else {
                self.pool.len() + plan.new_outputs < low_water
            };
            if refill {
                // Refill the pool: one coin into many (a full block fills up with fan-outs).
                let coins = self.take_where(1, |u| u.value > 200 * 100_000);
                if coins.is_empty() {
                    break;
                }
                let n = if full { self.g.rng.range(1_000, 3_000) } else { self.g.rng.range(50, 400) };
                let ins = self.confirmed(coins, era);
                self.make_tx(&mut plan, ins, n, era);
            } else if self.pool.is_empty() {
                break;
            } else {
                let x = self.g.rng.below(1000);
                if x < 120 {
                    let len = self.g.rng.range(2, 6);
                    self.chain(&mut plan, len, era);
                } else if x < 170 {
                    let n = self.g.rng.range(10, 80).min(self.pool.len());
                    let coins = self.take_where(n, |_| true);
                    let ins = self.confirmed(coins, era);
                    self.make_tx(&mut plan, ins, 1, era);
                } else if x < 230 {
                    let coins = self.take_where(1, |_| true);
                    let n = self.g.rng.range(5, 40);
                    let ins = self.confirmed(coins, era);
                    self.make_tx(&mut plan, ins, n, era);
                } else if x < 240 && era == 0 {
                    // Many legacy inputs in one transaction: quadratic legacy hashing.
                    let n = self.g.rng.range(100, 300);
                    let coins = self.take_where(n, |u| u.kind.is_legacy());
                    let ins = self.confirmed(coins, era);
                    self.make_tx(&mut plan, ins, 2, era);
                } else {
                    let n = self.g.rng.range(1, 3).min(self.pool.len());
                    let coins: Vec<Utxo> = (0..n).filter_map(|_| self.take_random()).collect();
                    let ins = self.confirmed(coins, era);
                    let n_out = if self.g.rng.chance(150) { 1 } else { 2 };
                    self.make_tx(&mut plan, ins, n_out, era);
                }
            }
            if plan.txs.len() == before {
                stalls += 1;
            }
        }
        if full {
            self.stress.push(Stress { height, shape: "full-block".into(), size: plan.weight as u64 });
        }
        plan
    }

    /// Signs the plan level by level (parallel within a level) and assembles the block.
    fn build_block(&mut self, height: u32, prev: [u8; 32], mut plan: BlockPlan) -> Vec<u8> {
        let max_level = plan.txs.iter().map(|t| t.level).max().unwrap_or(0);
        for level in 0..=max_level {
            // Fill outpoints of in-block parents (their txids are final).
            for ti in 0..plan.txs.len() {
                if plan.txs[ti].level != level {
                    continue;
                }
                for ii in 0..plan.txs[ti].ins.len() {
                    if let Prev::InBlock(t, v) = plan.txs[ti].ins[ii].prev {
                        let op = plan.txs[t].outs[v as usize].op;
                        plan.txs[ti].ins[ii].coin.op = op;
                        plan.txs[ti].tx.inputs[ii].prevout = op;
                    }
                }
            }
            let idx: Vec<usize> = (0..plan.txs.len()).filter(|&t| plan.txs[t].level == level).collect();
            let spent: Vec<Vec<TxOut>> = idx
                .iter()
                .map(|&t| {
                    plan.txs[t]
                        .ins
                        .iter()
                        .map(|p| TxOut { value: p.coin.value, script_pubkey: p.coin.spk.clone() })
                        .collect()
                })
                .collect();
            let ctxs: Vec<TxContext<'_>> =
                idx.iter().zip(&spent).map(|(&t, s)| TxContext::new(&plan.txs[t].tx, Some(s))).collect();
            let work: Vec<(usize, usize)> =
                (0..idx.len()).flat_map(|k| (0..plan.txs[idx[k]].ins.len()).map(move |i| (k, i))).collect();
            let keys = &self.g.keys;
            let txs = &plan.txs;
            let sigs =
                par_map(&work, self.threads, |&(k, i)| sign_input(keys, &ctxs[k], i, &txs[idx[k]].ins[i]));
            drop(ctxs);
            for (&(k, i), (ss, w)) in work.iter().zip(sigs) {
                let tx = &mut plan.txs[idx[k]].tx;
                tx.inputs[i].script_sig = ss;
                tx.inputs[i].witness = w;
            }
            for &t in &idx {
                let txid = plan.txs[t].tx.txid();
                for (v, o) in plan.txs[t].outs.iter_mut().enumerate() {
                    o.op = OutPoint { txid, vout: v as u32 };
                    o.height = height;
                }
            }
        }
        // Count and move the coins.
        let era = self.era(height);
        for t in &plan.txs {
            for p in &t.ins {
                if let Some(e) = era {
                    *self
                        .counts
                        .entry(ERAS[e].into())
                        .or_default()
                        .entry(p.coin.kind.name().into())
                        .or_default() += 1;
                    self.era_inputs[e] += 1;
                }
            }
            for (o, &s) in t.outs.iter().zip(&t.spent_in_block) {
                if !s {
                    self.pool.push(o.clone());
                }
            }
        }
        // The coinbase: subsidy and fees over several outputs, and the witness commitment.
        let reward = Network::Regtest.params().block_subsidy(height) + plan.fees;
        let cb_era = era.unwrap_or(0);
        let n_cb = if era.is_none() { 60 } else { 4 };
        let mut cb_outs = Vec::new();
        let mut left = reward;
        for j in 0..n_cb {
            let kind = if era.is_none() {
                [Kind::P2pkUncompressed, Kind::P2pkh, Kind::P2pk][j % 3]
            } else {
                self.pick_kind(cb_era)
            };
            let (spk, keys, leaf) = self.g.new_output(kind);
            let v = if j + 1 == n_cb { left } else { reward / n_cb as i64 };
            left -= v;
            cb_outs.push(Utxo {
                op: OutPoint::default(),
                value: v,
                kind,
                keys,
                height,
                coinbase: true,
                spk,
                leaf,
            });
        }
        let mut script_sig = bip34_height_push(height);
        script_sig.extend_from_slice(&[0x08]);
        script_sig.extend_from_slice(&self.seed.to_le_bytes());
        let mut coinbase = Transaction {
            version: 2,
            inputs: vec![TxIn {
                prevout: OutPoint { txid: [0; 32], vout: u32::MAX },
                script_sig,
                sequence: u32::MAX,
                witness: vec![vec![0u8; 32]],
            }],
            outputs: cb_outs.iter().map(|o| TxOut { value: o.value, script_pubkey: o.spk.clone() }).collect(),
            lock_time: 0,
        };
        let txs: Vec<Transaction> = plan.txs.into_iter().map(|t| t.tx).collect();
        let mut wtxids = vec![[0u8; 32]];
        wtxids.extend(txs.iter().map(|t| t.wtxid()));
        let wroot = witness_merkle_root(&wtxids).root;
        let mut cm = wroot.to_vec();
        cm.extend_from_slice(&[0u8; 32]);
        let commitment = sha256d(&cm);
        let mut spk = vec![0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed];
        spk.extend_from_slice(&commitment);
        coinbase.outputs.push(TxOut { value: 0, script_pubkey: spk });
        let cb_txid = coinbase.txid();
        for (v, mut o) in cb_outs.into_iter().enumerate() {
            o.op = OutPoint { txid: cb_txid, vout: v as u32 };
            self.immature.push_back(o);
        }
        let mut all = vec![coinbase];
        all.extend(txs);
        let txids: Vec<[u8; 32]> = all.iter().map(|t| t.txid()).collect();
        let mut header = BlockHeader {
            version: 0x2000_0000,
            prev_block: prev,
            merkle_root: merkle_root(&txids).root,
            time: Network::Regtest.params().genesis_block().header.time + height * 600,
            bits: 0x207f_ffff,
            nonce: 0,
        };
        let params = Network::Regtest.params();
        while !fullverify::chain::check_proof_of_work(&header.block_hash(), header.bits, params) {
            header.nonce += 1;
        }
        let block = Block { header, txdata: all };
        block_bytes(&block)
    }
}

/// Generates the corpus of `profile` from `seed` with `threads` signing threads.
pub fn generate(profile: Profile, seed: u64, threads: usize, observer: &mut dyn Observer) -> Corpus {
    let tip = profile.tip_height();
    let first_spend = COINBASE_MATURITY + 1;
    let span = tip + 1 - first_spend;
    let era_bounds = [first_spend, first_spend + span * 35 / 100, first_spend + span * 70 / 100, tip + 1];
    let mut schedule = BTreeMap::new();
    let at = |f: u32| first_spend + span * f / 100;
    for (f, shape) in [
        (20, "fan-out"),
        (30, "legacy-consolidation"),
        (45, "full-block"),
        (50, "fan-out"),
        (60, "consolidation"),
        (75, "full-block"),
        (80, "fan-out"),
        (90, "consolidation"),
        (96, "full-block"),
    ] {
        schedule.insert(at(f), shape);
    }
    let mut st = State {
        g: Gen { keys: derive_keys(seed, threads), rng: Rng(seed ^ 0x6368_6169_6e67_656e) },
        profile,
        pool: Vec::new(),
        immature: VecDeque::new(),
        era_bounds,
        counts: BTreeMap::new(),
        era_inputs: [0; 3],
        in_block_spends: 0,
        stress: Vec::new(),
        schedule,
        threads,
        seed,
    };
    let mut prev = Network::Regtest.params().genesis_hash;
    let mut blocks = Vec::with_capacity(tip as usize);
    let mut digest = sha2::Sha256::new();
    let mut n_txs = 0u64;
    for height in 1..=tip {
        while st.immature.front().is_some_and(|u| u.height + COINBASE_MATURITY <= height) {
            let u = st.immature.pop_front().expect("front");
            st.pool.push(u);
        }
        let plan = st.plan_block(height);
        n_txs += plan.txs.len() as u64 + 1;
        let b = st.build_block(height, prev, plan);
        prev = sha256d(&b[..80]);
        use sha2::Digest;
        digest.update(&b);
        blocks.push(b);
        observer.block(height, st.era_inputs.iter().sum());
    }
    // The final set: the pool and the immature coinbases.
    let coins: Vec<&Utxo> = st.pool.iter().chain(st.immature.iter()).collect();
    let total_amount: i64 = coins.iter().map(|u| u.value).sum();
    let parts = par_map(&coins.chunks(4096).collect::<Vec<_>>(), threads, |chunk| {
        let mut m = MuHash3072::new();
        for u in chunk.iter() {
            let coin = Coin {
                out: TxOut { value: u.value, script_pubkey: u.spk.clone() },
                height: u.height,
                coinbase: u.coinbase,
            };
            m.insert(&txout_ser(&u.op, &coin));
        }
        m
    });
    let mut m = MuHash3072::new();
    for p in &parts {
        m.combine(p);
    }
    let mut d = m.finalize();
    d.reverse();
    let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
    for per in st.counts.values() {
        for (k, v) in per {
            *by_type.entry(k.clone()).or_default() += v;
        }
    }
    use sha2::Digest;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        generator: "chaingen".into(),
        seed,
        profile,
        network: "regtest".into(),
        first_height: 1,
        tip_height: tip,
        tip: display_hex(&prev),
        txs: n_txs,
        inputs: st.era_inputs.iter().sum(),
        eras: (0..3)
            .map(|e| Era {
                name: ERAS[e].into(),
                first_height: era_bounds[e],
                last_height: era_bounds[e + 1] - 1,
                inputs: st.era_inputs[e],
            })
            .collect(),
        inputs_by_era: st.counts,
        inputs_by_type: by_type,
        in_block_spends: st.in_block_spends,
        stress: st.stress,
        files: Vec::new(),
        block_bytes: blocks.iter().map(|b| b.len() as u64).sum(),
        sha256: hex::encode(digest.finalize()),
        expected_state: ExpectedState {
            utxo_count: coins.len() as u64,
            total_amount,
            muhash: hex::encode(d),
        },
    };
    Corpus { blocks, manifest }
}

/// Writes the block files and `manifest.json` into `dir` (created), returning the manifest.
pub fn write_corpus(corpus: &Corpus, dir: &Path) -> std::io::Result<Manifest> {
    std::fs::create_dir_all(dir)?;
    let magic = Network::Regtest.params().magic;
    let mut files = Vec::new();
    let mut cur: Option<std::io::BufWriter<std::fs::File>> = None;
    let mut size = 0usize;
    for b in &corpus.blocks {
        if cur.is_none() || size + b.len() + 8 > MAX_BLOCKFILE_SIZE {
            if let Some(mut f) = cur.take() {
                f.flush()?;
            }
            let name = format!("blk{:05}.dat", files.len());
            cur = Some(std::io::BufWriter::new(std::fs::File::create(dir.join(&name))?));
            files.push(name);
            size = 0;
        }
        let f = cur.as_mut().expect("open file");
        f.write_all(&magic)?;
        f.write_all(&(b.len() as u32).to_le_bytes())?;
        f.write_all(b)?;
        size += b.len() + 8;
    }
    if let Some(mut f) = cur {
        f.flush()?;
    }
    let mut m = corpus.manifest.clone();
    m.files = files;
    let mut text = serde_json::to_string_pretty(&m).expect("manifest json");
    text.push('\n');
    std::fs::write(dir.join("manifest.json"), text)?;
    Ok(m)
}

/// The cache folder of a corpus under `root`: `<root>/<profile>-<seed>-v<FORMAT_VERSION>`.
pub fn cache_dir(root: &Path, profile: Profile, seed: u64) -> PathBuf {
    root.join(format!("{}-{seed}-v{FORMAT_VERSION}", profile.name()))
}

/// The corpus of `profile` and `seed` under `root`, generated first unless a complete one is
/// there (a folder whose manifest matches). Generation writes to a temporary sibling folder
/// and renames it, so an interrupted run leaves no half corpus behind.
pub fn ensure_corpus(
    root: &Path,
    profile: Profile,
    seed: u64,
    threads: usize,
    observer: &mut dyn Observer,
) -> std::io::Result<(PathBuf, Manifest, bool)> {
    let dir = cache_dir(root, profile, seed);
    if let Ok(m) = Manifest::read(&dir) {
        if m.format_version == FORMAT_VERSION
            && m.seed == seed
            && m.profile == profile
            && m.files.iter().all(|f| dir.join(f).is_file())
        {
            return Ok((dir, m, false));
        }
    }
    let corpus = generate(profile, seed, threads, observer);
    let tmp = root.join(format!(".{}-{seed}-v{FORMAT_VERSION}.tmp-{}", profile.name(), std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let m = write_corpus(&corpus, &tmp)?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&tmp, &dir)?;
    Ok((dir, m, true))
}

/// The spent-output kind of every non-coinbase input of `blocks` (heights from 1), counted by
/// era from the scripts alone: a recount that checks a manifest.
pub fn recount(blocks: &[Vec<u8>], manifest: &Manifest) -> Result<Counts, String> {
    let mut coins: std::collections::HashMap<OutPoint, Vec<u8>> = std::collections::HashMap::new();
    let mut counts: Counts = BTreeMap::new();
    for (i, raw) in blocks.iter().enumerate() {
        let height = i as u32 + 1;
        let block = Block::from_bytes(raw).map_err(|e| format!("block {height}: {e}"))?;
        for tx in &block.txdata {
            if !tx.is_coinbase() {
                for input in &tx.inputs {
                    let spk = coins
                        .remove(&input.prevout)
                        .ok_or_else(|| format!("block {height}: unknown coin"))?;
                    let kind =
                        classify(&spk, input).ok_or_else(|| format!("block {height}: unknown script"))?;
                    let era = manifest
                        .era_of(height)
                        .ok_or_else(|| format!("block {height}: spend outside eras"))?;
                    *counts.entry(era.into()).or_default().entry(kind.name().into()).or_default() += 1;
                }
            }
            let txid = tx.txid();
            for (v, o) in tx.outputs.iter().enumerate() {
                coins.insert(OutPoint { txid, vout: v as u32 }, o.script_pubkey.clone());
            }
        }
    }
    Ok(counts)
}

/// The kind of a spent output, from its script and the spending input.
fn classify(spk: &[u8], input: &TxIn) -> Option<Kind> {
    Some(match spk {
        [0x21, .., 0xac] if spk.len() == 35 => Kind::P2pk,
        [0x41, .., 0xac] if spk.len() == 67 => Kind::P2pkUncompressed,
        [0x76, 0xa9, 0x14, .., 0x88, 0xac] if spk.len() == 25 => {
            let ss = &input.script_sig;
            let sig_len = *ss.first()? as usize;
            match ss.get(1 + sig_len)? {
                0x21 => Kind::P2pkh,
                0x41 if matches!(ss.get(2 + sig_len)?, 0x06 | 0x07) => Kind::P2pkhHybrid,
                0x41 => Kind::P2pkhUncompressed,
                _ => return None,
            }
        }
        [0xa9, 0x14, .., 0x87] if spk.len() == 23 => {
            if input.witness.is_empty() {
                Kind::P2shMultisig
            } else {
                Kind::P2shP2wpkh
            }
        }
        [0x00, 0x14, ..] if spk.len() == 22 => Kind::P2wpkh,
        [0x00, 0x20, ..] if spk.len() == 34 => Kind::P2wshMultisig,
        [0x51, .., 0xae] if !(spk.len() == 34 && spk[1] == 0x20) => Kind::Multisig,
        [0x51, 0x20, ..] if spk.len() == 34 => {
            let w = &input.witness;
            let n = w.len() - usize::from(w.len() >= 2 && w.last()?.first() == Some(&0x50));
            match n {
                1 => Kind::P2trKey,
                3 => Kind::P2trLeafChecksig,
                _ => Kind::P2trLeafChecksigadd,
            }
        }
        _ => return None,
    })
}
