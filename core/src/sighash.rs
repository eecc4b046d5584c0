// SPDX-License-Identifier: MIT OR Apache-2.0
//! Signature hashes: legacy (pre-segwit), BIP143 (segwit v0) and BIP341/342 (taproot).
//!
//! A [`TxContext`] is built once per transaction and shared read-only by every input's check
//! (it is `Sync`). It holds the aggregate hashes each scheme needs, each computed at most once
//! and only when an input asks for it (`OnceLock`):
//!
//! - BIP341 single SHA-256s: `sha_prevouts`, `sha_amounts`, `sha_scriptpubkeys`,
//!   `sha_sequences`, `sha_outputs` (one pass over the inputs or outputs each);
//! - BIP143 `hashPrevouts`, `hashSequence`, `hashOutputs` = SHA-256 of the same single hashes
//!   (BIP143 defines them as double SHA-256 of the same serializations), so the two schemes
//!   share the one pass over the data.
//!
//! Legacy hashing streams the modified transaction straight into the SHA-256 engine (no copy of
//! the transaction, no allocation), so one input costs one pass over the transaction's bytes.
//!
//! Specs: BIP143 <https://github.com/bitcoin/bips/blob/7fe0b034ec967b52a5a28276419117326df93263/bip-0143.mediawiki>,
//! BIP341 <https://github.com/bitcoin/bips/blob/7fe0b034ec967b52a5a28276419117326df93263/bip-0341.mediawiki>,
//! BIP342 <https://github.com/bitcoin/bips/blob/7fe0b034ec967b52a5a28276419117326df93263/bip-0342.mediawiki>.

use crate::encode::{compact_size_len, write_compact_size, write_var_bytes, Sink, Transaction, TxOut};
use crate::hash::{sha256, tags, Sha256};
use crate::script::opcodes::{get_op, OP_CODESEPARATOR};
use std::sync::OnceLock;

mod pair;

/// `SIGHASH_ALL`.
pub const SIGHASH_ALL: u32 = 1;
/// `SIGHASH_NONE`.
pub const SIGHASH_NONE: u32 = 2;
/// `SIGHASH_SINGLE`.
pub const SIGHASH_SINGLE: u32 = 3;
/// `SIGHASH_ANYONECANPAY`.
pub const SIGHASH_ANYONECANPAY: u32 = 0x80;
/// BIP341 `SIGHASH_DEFAULT` (no hash-type byte).
pub const SIGHASH_DEFAULT: u8 = 0;

/// The "1" hash legacy signing returns for `SIGHASH_SINGLE` without a matching output (and for
/// an input index out of range): `0x01` followed by 31 zero bytes, internal order.
pub const ONE_HASH: [u8; 32] = {
    let mut h = [0u8; 32];
    h[0] = 1;
    h
};

/// BIP143 aggregate hashes (double SHA-256s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bip143Hashes {
    /// dSHA256 of every input's outpoint.
    pub hash_prevouts: [u8; 32],
    /// dSHA256 of every input's `nSequence`.
    pub hash_sequence: [u8; 32],
    /// dSHA256 of every output.
    pub hash_outputs: [u8; 32],
}

/// BIP341 aggregate hashes (single SHA-256s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bip341Hashes {
    /// SHA256 of every input's outpoint.
    pub sha_prevouts: [u8; 32],
    /// SHA256 of every spent output's amount.
    pub sha_amounts: [u8; 32],
    /// SHA256 of every spent output's `scriptPubKey` (with its length prefix).
    pub sha_scriptpubkeys: [u8; 32],
    /// SHA256 of every input's `nSequence`.
    pub sha_sequences: [u8; 32],
    /// SHA256 of every output.
    pub sha_outputs: [u8; 32],
}

/// Why a BIP341 signature message cannot be formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SighashError {
    /// hash_type not in {0x00..0x03, 0x81..0x83}.
    InvalidHashType(u8),
    /// SIGHASH_SINGLE with no output at the input's index.
    SingleWithoutOutput,
    /// The input index is out of range.
    InputIndex,
    /// The spent outputs are missing or do not match the inputs.
    MissingSpentOutputs,
}

/// The per-transaction precomputation, shared read-only by every input's check.
#[derive(Debug)]
pub struct TxContext<'a> {
    /// The spending transaction.
    pub tx: &'a Transaction,
    /// The outputs spent by each input (same order), when known. BIP341 needs all of them.
    pub spent_outputs: Option<&'a [TxOut]>,
    sha_prevouts: OnceLock<[u8; 32]>,
    sha_sequences: OnceLock<[u8; 32]>,
    sha_outputs: OnceLock<[u8; 32]>,
    sha_amounts: OnceLock<[u8; 32]>,
    sha_spks: OnceLock<[u8; 32]>,
    bip143: OnceLock<Bip143Hashes>,
    /// BIP143 engine after `nVersion || hashPrevouts || hashSequence` for SIGHASH_ALL without
    /// ANYONECANPAY: identical for every such input, so it is absorbed once. The engines are
    /// boxed: a block has thousands of contexts, most of which need none of them, and a
    /// smaller context is less memory to touch.
    bip143_prefix_all: OnceLock<Box<Sha256>>,
    /// BIP341 engines after `tag || epoch || hash_type || nVersion || nLockTime || sha_*` for the
    /// non-ANYONECANPAY hash types 0..=3, whose prefix is identical for every input.
    bip341_prefix: OnceLock<Box<[OnceLock<Sha256>; 4]>>,
    /// Legacy hashing of large transactions: the engine after `nVersion || count ||
    /// inputs[0..i]` (other inputs' form under SIGHASH_ALL: empty script, own sequence) for
    /// every `i`, built in one pass the first time an ALL-class input asks.
    legacy_prefix: OnceLock<Vec<Sha256>>,
    /// The transaction as every ALL-class legacy preimage has it but for the signing input's
    /// script: `nVersion || count || inputs (each with an empty script) || count || outputs ||
    /// nLockTime`, built the first time an ALL-class input asks (see [`LegacyImage`]).
    legacy_image: OnceLock<LegacyImage>,
    /// Per input, the ALL-class legacy hash computed ahead, beside the input before it, for
    /// the script code and hash type its spend is expected to ask for (see [`pair`]).
    legacy_ahead: OnceLock<Box<[OnceLock<pair::Ahead>]>>,
}

/// The bytes of a transaction's ALL-class legacy preimages that every input shares: each
/// input's record is 41 bytes (outpoint, an empty script's length, sequence) from `inputs_at`
/// on. An input's preimage is these bytes with its record's script replaced by the script code,
/// then the hash type: five absorptions of slices in place of a few for every input and output.
#[derive(Debug)]
struct LegacyImage {
    bytes: Vec<u8>,
    inputs_at: usize,
}

/// The length of an input's record in a [`LegacyImage`]: outpoint, `0x00`, sequence.
const LEGACY_INPUT_LEN: usize = 36 + 1 + 4;

impl LegacyImage {
    /// The ALL-class preimage of input 0 with an empty script code (every input's record then
    /// has the empty script), less its hash type. `tx` has inputs.
    fn of(tx: &Transaction) -> LegacyImage {
        let mut bytes = Vec::with_capacity(tx.base_size() + 4);
        let written = legacy_write(&mut bytes, tx, 0, &[], SIGHASH_ALL);
        debug_assert!(written, "a transaction with inputs");
        bytes.truncate(bytes.len().saturating_sub(4));
        LegacyImage { bytes, inputs_at: 4 + compact_size_len(tx.inputs.len() as u64) }
    }

    /// Where input `i`'s record starts.
    fn input_at(&self, i: usize) -> usize {
        self.inputs_at + i * LEGACY_INPUT_LEN
    }
}

/// Whether a legacy `hash_type` is of the ALL class (no ANYONECANPAY, neither NONE nor SINGLE),
/// whose preimages share every byte but the signing input's script.
fn all_class(hash_type: u32) -> bool {
    let base = hash_type & 0x1f;
    hash_type & SIGHASH_ANYONECANPAY == 0 && base != SIGHASH_NONE && base != SIGHASH_SINGLE
}

/// Transactions with at least this many inputs get [`TxContext`]'s legacy prefix engines.
const LEGACY_PREFIX_MIN_INPUTS: usize = 32;

/// SHA-256 of `items`, each serialized by `write`: the per-transaction aggregates of BIP143
/// and BIP341.
fn sha256_of<T>(items: &[T], write: impl Fn(&mut Sha256, &T)) -> [u8; 32] {
    let mut e = Sha256::new();
    for item in items {
        write(&mut e, item);
    }
    e.finalize()
}

impl<'a> TxContext<'a> {
    /// A context over `tx`; `spent_outputs` must have one entry per input when given (a list
    /// of another length is treated as absent, so BIP341 hashing and [`crate::script::verify_input`]
    /// report missing data instead of using the wrong outputs). Nothing is computed here: each
    /// aggregate is computed on first use, once.
    pub fn new(tx: &'a Transaction, spent_outputs: Option<&'a [TxOut]>) -> TxContext<'a> {
        let spent_outputs = spent_outputs.filter(|s| s.len() == tx.inputs.len());
        TxContext {
            tx,
            spent_outputs,
            sha_prevouts: OnceLock::new(),
            sha_sequences: OnceLock::new(),
            sha_outputs: OnceLock::new(),
            sha_amounts: OnceLock::new(),
            sha_spks: OnceLock::new(),
            bip143: OnceLock::new(),
            bip143_prefix_all: OnceLock::new(),
            bip341_prefix: OnceLock::new(),
            legacy_prefix: OnceLock::new(),
            legacy_image: OnceLock::new(),
            legacy_ahead: OnceLock::new(),
        }
    }

    /// SHA256 of the serialization of all input outpoints.
    pub fn sha_prevouts(&self) -> [u8; 32] {
        *self.sha_prevouts.get_or_init(|| sha256_of(&self.tx.inputs, |e, i| i.prevout.encode(e)))
    }

    /// SHA256 of the serialization of all input nSequence.
    pub fn sha_sequences(&self) -> [u8; 32] {
        *self
            .sha_sequences
            .get_or_init(|| sha256_of(&self.tx.inputs, |e, i| e.update(&i.sequence.to_le_bytes())))
    }

    /// SHA256 of the serialization of all outputs (`CTxOut` format).
    pub fn sha_outputs(&self) -> [u8; 32] {
        *self.sha_outputs.get_or_init(|| sha256_of(&self.tx.outputs, |e, o| o.encode(e)))
    }

    /// SHA256 of the serialization of all spent amounts (BIP341), if the spent outputs are known.
    pub fn sha_amounts(&self) -> Option<[u8; 32]> {
        let spent = self.spent_outputs?;
        Some(*self.sha_amounts.get_or_init(|| sha256_of(spent, |e, o| e.update(&o.value.to_le_bytes()))))
    }

    /// SHA256 of all spent scriptPubKeys serialized as with CompactSize prefixes (BIP341).
    pub fn sha_scriptpubkeys(&self) -> Option<[u8; 32]> {
        let spent = self.spent_outputs?;
        Some(*self.sha_spks.get_or_init(|| sha256_of(spent, |e, o| write_var_bytes(e, &o.script_pubkey))))
    }

    /// The BIP143 aggregates: double SHA-256 = SHA-256 of the single hashes above.
    pub fn bip143_hashes(&self) -> Bip143Hashes {
        *self.bip143.get_or_init(|| Bip143Hashes {
            hash_prevouts: sha256(&self.sha_prevouts()),
            hash_sequence: sha256(&self.sha_sequences()),
            hash_outputs: sha256(&self.sha_outputs()),
        })
    }

    /// The BIP341 aggregates, if the spent outputs are known.
    pub fn bip341_hashes(&self) -> Option<Bip341Hashes> {
        Some(Bip341Hashes {
            sha_prevouts: self.sha_prevouts(),
            sha_amounts: self.sha_amounts()?,
            sha_scriptpubkeys: self.sha_scriptpubkeys()?,
            sha_sequences: self.sha_sequences(),
            sha_outputs: self.sha_outputs(),
        })
    }

    /// Legacy (pre-segwit) signature hash, as Core's `SignatureHash` with `SigVersion::BASE`.
    /// `script_code` is the subscript after the last executed OP_CODESEPARATOR, with the
    /// signature already removed (FindAndDelete); remaining OP_CODESEPARATORs are stripped
    /// here. `hash_type` is the full 32-bit value appended to the preimage.
    ///
    /// SIGHASH_ALL-class hashes (no ANYONECANPAY, neither NONE nor SINGLE) read the bytes they
    /// share from one serialization of the transaction made on first use, in a few slices; for
    /// transactions with many inputs they start from a cached engine that has already absorbed
    /// the inputs before this one, so an input costs the bytes after it, not the whole
    /// transaction.
    ///
    /// ```
    /// use fullverify::encode::{display_hex, Transaction};
    /// use fullverify::hash::sha256d;
    /// use fullverify::sighash::{legacy_preimage, TxContext};
    ///
    /// // A case of Bitcoin Core's sighash.json (the hash is shown byte-reversed, as Core does).
    /// let tx = Transaction::from_bytes(&hex::decode(
    ///     "b7877f82019c832707a60cf14fba44cfa254d787501fdd676bd58c744f6e951dbba0b3b77f0200000009ac\
    ///      515263ac53525300a5a36e500148f89c0500000000085265ac6a6a65acab00000000",
    /// ).unwrap()).unwrap();
    /// let script_code = [0x65, 0x63];
    /// let hash_type = -1785108415i32 as u32;
    /// let ctx = TxContext::new(&tx, None);
    /// let h = ctx.legacy_sighash(0, &script_code, hash_type);
    /// assert_eq!(display_hex(&h), "cb6e4322955af12eb29613c70e1a00ddbb559c887ba844df0bcdebed736dffbd");
    /// // It is the double SHA-256 of the legacy preimage.
    /// assert_eq!(h, sha256d(&legacy_preimage(&tx, 0, &script_code, hash_type).unwrap()));
    /// ```
    pub fn legacy_sighash(&self, input_index: usize, script_code: &[u8], hash_type: u32) -> [u8; 32] {
        let tx = self.tx;
        if !all_class(hash_type) || input_index >= tx.inputs.len() {
            return legacy_sighash(tx, input_index, script_code, hash_type);
        }
        let image = self.legacy_image.get_or_init(|| LegacyImage::of(tx));
        if let Some(h) = self.legacy_paired(image, input_index, script_code, hash_type) {
            return h;
        }
        let at = image.input_at(input_index);
        let mut e = self.legacy_start(image, input_index);
        // The record's outpoint, the script code for its empty script, its sequence, and the
        // rest of the transaction as it is.
        e.update(&image.bytes[at..at + 36]);
        write_script_code(&mut e, script_code);
        e.update(&image.bytes[at + 37..]);
        e.update(&hash_type.to_le_bytes());
        sha256(&e.finalize())
    }

    /// An engine that has absorbed an ALL-class legacy preimage up to input `input_index`'s
    /// record.
    fn legacy_start(&self, image: &LegacyImage, input_index: usize) -> Sha256 {
        let tx = self.tx;
        let at = image.input_at(input_index);
        if tx.inputs.len() < LEGACY_PREFIX_MIN_INPUTS {
            Sha256::new().chain(&image.bytes[..at])
        } else {
            let prefixes = self.legacy_prefix.get_or_init(|| {
                let mut e = Sha256::new().chain(&image.bytes[..image.inputs_at]);
                let mut v = Vec::with_capacity(tx.inputs.len());
                for i in 0..tx.inputs.len() {
                    v.push(e.clone());
                    let r = image.input_at(i);
                    e.update(&image.bytes[r..r + LEGACY_INPUT_LEN]);
                }
                v
            });
            prefixes[input_index].clone()
        }
    }

    /// BIP143 preimage (for display; verification streams it through [`Self::bip143_sighash`]).
    pub fn bip143_preimage(
        &self,
        input_index: usize,
        script_code: &[u8],
        amount: i64,
        hash_type: u32,
    ) -> Result<Vec<u8>, SighashError> {
        if input_index >= self.tx.inputs.len() {
            return Err(SighashError::InputIndex);
        }
        let mut v = Vec::with_capacity(156 + script_code.len());
        self.bip143_write(&mut v, input_index, script_code, amount, hash_type);
        Ok(v)
    }

    /// BIP143 signature hash (double SHA-256 of the preimage). `amount` is the value of the
    /// output the input spends; `script_code` as BIP143 defines it (for P2WPKH, the P2PKH
    /// script of the key hash).
    ///
    /// ```
    /// use fullverify::encode::Transaction;
    /// use fullverify::sighash::{TxContext, SIGHASH_ALL};
    ///
    /// // BIP143's "Native P2WPKH" example: input 1 spends 6 BTC.
    /// let tx = Transaction::from_bytes(&hex::decode(
    ///     "0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000ee\
    ///      ffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff\
    ///      02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d00000000\
    ///      1976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000",
    /// ).unwrap()).unwrap();
    /// let script_code = hex::decode("76a9141d0f172a0ecb48aee1be1f2687d2963ae33f71a188ac").unwrap();
    /// let ctx = TxContext::new(&tx, None);
    /// let h = ctx.bip143_sighash(1, &script_code, 600_000_000, SIGHASH_ALL).unwrap();
    /// assert_eq!(hex::encode(h), "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670");
    /// ```
    pub fn bip143_sighash(
        &self,
        input_index: usize,
        script_code: &[u8],
        amount: i64,
        hash_type: u32,
    ) -> Result<[u8; 32], SighashError> {
        if input_index >= self.tx.inputs.len() {
            return Err(SighashError::InputIndex);
        }
        let base = hash_type & 0x1f;
        let acp = hash_type & SIGHASH_ANYONECANPAY != 0;
        let mut e = if !acp && base != SIGHASH_SINGLE && base != SIGHASH_NONE {
            // Steps 1-3 are the same for every ALL-class input: absorb them once.
            Sha256::clone(self.bip143_prefix_all.get_or_init(|| {
                let mut e = Sha256::new();
                self.bip143_write_prefix(&mut e, hash_type);
                Box::new(e)
            }))
        } else {
            let mut e = Sha256::new();
            self.bip143_write_prefix(&mut e, hash_type);
            e
        };
        self.bip143_write_rest(&mut e, input_index, script_code, amount, hash_type);
        Ok(sha256(&e.finalize()))
    }

    fn bip143_write<S: Sink>(&self, s: &mut S, n_in: usize, script_code: &[u8], amount: i64, hash_type: u32) {
        self.bip143_write_prefix(s, hash_type);
        self.bip143_write_rest(s, n_in, script_code, amount, hash_type);
    }

    /// Steps 1-3: the part of the preimage that does not depend on the input.
    fn bip143_write_prefix<S: Sink>(&self, s: &mut S, hash_type: u32) {
        let base = hash_type & 0x1f;
        let acp = hash_type & SIGHASH_ANYONECANPAY != 0;
        let zero = [0u8; 32];
        // 1. nVersion of the transaction (4-byte little endian)
        s.put(&self.tx.version.to_le_bytes());
        // 2. hashPrevouts (32-byte hash): zero if ANYONECANPAY
        if acp {
            s.put(&zero);
        } else {
            s.put(&self.bip143_hashes().hash_prevouts);
        }
        // 3. hashSequence (32-byte hash): zero if ANYONECANPAY, SINGLE or NONE
        if acp || base == SIGHASH_SINGLE || base == SIGHASH_NONE {
            s.put(&zero);
        } else {
            s.put(&self.bip143_hashes().hash_sequence);
        }
    }

    /// Steps 4-10: the input's own fields, outputs, locktime and hash type.
    fn bip143_write_rest<S: Sink>(
        &self,
        s: &mut S,
        n_in: usize,
        script_code: &[u8],
        amount: i64,
        hash_type: u32,
    ) {
        let tx = self.tx;
        let base = hash_type & 0x1f;
        let zero = [0u8; 32];
        let input = &tx.inputs[n_in];
        // 4. outpoint (32-byte hash + 4-byte little endian)
        input.prevout.encode(s);
        // 5. scriptCode of the input (serialized as scripts inside CTxOuts)
        write_var_bytes(s, script_code);
        // 6. value of the output spent by this input (8-byte little endian)
        s.put(&amount.to_le_bytes());
        // 7. nSequence of the input (4-byte little endian)
        s.put(&input.sequence.to_le_bytes());
        // 8. hashOutputs (32-byte hash): all outputs unless SINGLE/NONE; for SINGLE with a
        //    matching output, the double SHA256 of that output; otherwise zero.
        if base != SIGHASH_SINGLE && base != SIGHASH_NONE {
            s.put(&self.bip143_hashes().hash_outputs);
        } else if base == SIGHASH_SINGLE && n_in < tx.outputs.len() {
            let mut e = Sha256::new();
            tx.outputs[n_in].encode(&mut e);
            s.put(&sha256(&e.finalize()));
        } else {
            s.put(&zero);
        }
        // 9. nLocktime of the transaction (4-byte little endian)
        s.put(&tx.lock_time.to_le_bytes());
        // 10. sighash type of the signature (4-byte little endian)
        s.put(&hash_type.to_le_bytes());
    }

    /// The bytes BIP341 hashes: the epoch `0x00` followed by `SigMsg(hash_type, ext_flag)`, with
    /// BIP342's extension when `tapscript` is given as `(tapleaf_hash, codesep_pos)` (the form
    /// the BIP341 wallet vectors call `sigMsg`). `annex` includes its 0x50 tag.
    pub fn bip341_sigmsg(
        &self,
        input_index: usize,
        hash_type: u8,
        annex: Option<&[u8]>,
        tapscript: Option<([u8; 32], u32)>,
    ) -> Result<Vec<u8>, SighashError> {
        self.bip341_check(input_index, hash_type)?;
        let mut v = Vec::with_capacity(256);
        v.push(0x00);
        self.bip341_write_prefix(&mut v, hash_type);
        self.bip341_write_rest(&mut v, input_index, hash_type, annex, tapscript);
        Ok(v)
    }

    /// BIP341 signature hash: `hash_TapSighash(0x00 || SigMsg(...))`. Needs the spent outputs
    /// (every input's amount and `scriptPubKey`); `annex` includes its 0x50 tag; `tapscript`
    /// is `(tapleaf_hash, codesep_pos)` for a script-path spend (BIP342), `None` for key path.
    ///
    /// ```
    /// use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
    /// use fullverify::hash::tagged_hash;
    /// use fullverify::secp256k1::{schnorr, PublicKey};
    /// use fullverify::sighash::{SighashError, TxContext, SIGHASH_DEFAULT};
    ///
    /// let seckey = [0x33; 32];
    /// let (key, _) = PublicKey::from_secret(&seckey).unwrap().x_only();
    /// let mut spk = vec![0x51, 0x20]; // OP_1 <32-byte key>: a P2TR output
    /// spk.extend_from_slice(&key.serialize());
    /// let spent = [TxOut { value: 100_000, script_pubkey: spk }];
    /// let tx = Transaction {
    ///     version: 2,
    ///     inputs: vec![TxIn {
    ///         prevout: OutPoint { txid: [1; 32], vout: 0 },
    ///         sequence: 0xffff_fffd,
    ///         ..TxIn::default()
    ///     }],
    ///     outputs: vec![TxOut { value: 90_000, script_pubkey: vec![0x51] }],
    ///     lock_time: 0,
    /// };
    ///
    /// let ctx = TxContext::new(&tx, Some(&spent));
    /// let h = ctx.bip341_sighash(0, SIGHASH_DEFAULT, None, None).unwrap();
    /// let msg = ctx.bip341_sigmsg(0, SIGHASH_DEFAULT, None, None).unwrap();
    /// assert_eq!(h, tagged_hash(b"TapSighash", &msg));
    ///
    /// // A key-path signature commits to it.
    /// let sig = schnorr::sign(&seckey, &h, &[0; 32]);
    /// assert!(schnorr::verify(&key, &h, &sig));
    ///
    /// // Without the spent outputs there is no BIP341 hash.
    /// let blind = TxContext::new(&tx, None);
    /// assert_eq!(blind.bip341_sighash(0, SIGHASH_DEFAULT, None, None), Err(SighashError::MissingSpentOutputs));
    /// ```
    pub fn bip341_sighash(
        &self,
        input_index: usize,
        hash_type: u8,
        annex: Option<&[u8]>,
        tapscript: Option<([u8; 32], u32)>,
    ) -> Result<[u8; 32], SighashError> {
        self.bip341_check(input_index, hash_type)?;
        let mut e = if hash_type <= 3 {
            // Without ANYONECANPAY everything up to the input data is the same for every input
            // with this hash type: absorb it once per transaction.
            self.bip341_prefix.get_or_init(Default::default)[hash_type as usize]
                .get_or_init(|| {
                    let mut e = tags::tap_sighash().engine();
                    e.update(&[0x00]);
                    self.bip341_write_prefix(&mut e, hash_type);
                    e
                })
                .clone()
        } else {
            let mut e = tags::tap_sighash().engine();
            // The epoch 0x00 precedes SigMsg.
            e.update(&[0x00]);
            self.bip341_write_prefix(&mut e, hash_type);
            e
        };
        self.bip341_write_rest(&mut e, input_index, hash_type, annex, tapscript);
        Ok(e.finalize())
    }

    /// The checks that make a BIP341 message undefined.
    fn bip341_check(&self, n_in: usize, hash_type: u8) -> Result<(), SighashError> {
        let tx = self.tx;
        if self.spent_outputs.is_none() {
            return Err(SighashError::MissingSpentOutputs);
        }
        if n_in >= tx.inputs.len() {
            return Err(SighashError::InputIndex);
        }
        // "hash_type ... Using any undefined hash_type causes validation failure if violated."
        if !(hash_type <= 0x03 || (0x81..=0x83).contains(&hash_type)) {
            return Err(SighashError::InvalidHashType(hash_type));
        }
        // "If hash_type & 3 equals SIGHASH_SINGLE" there must be an output at the input's index.
        if hash_type & 3 == SIGHASH_SINGLE as u8 && n_in >= tx.outputs.len() {
            return Err(SighashError::SingleWithoutOutput);
        }
        Ok(())
    }

    /// SigMsg up to "Data about this input": control and transaction data. Caller checked.
    fn bip341_write_prefix<S: Sink>(&self, s: &mut S, hash_type: u8) {
        let tx = self.tx;
        // Default (0x00) is treated as SIGHASH_ALL for the output type.
        let output_type = if hash_type == SIGHASH_DEFAULT { SIGHASH_ALL as u8 } else { hash_type & 3 };
        let acp = hash_type & 0x80 != 0;
        // Control: hash_type (1).
        s.put(&[hash_type]);
        // Transaction data: nVersion (4), nLockTime (4).
        s.put(&tx.version.to_le_bytes());
        s.put(&tx.lock_time.to_le_bytes());
        // "If the hash_type & 0x80 does not equal SIGHASH_ANYONECANPAY:" sha_prevouts (32),
        // sha_amounts (32), sha_scriptpubkeys (32), sha_sequences (32).
        if !acp {
            s.put(&self.sha_prevouts());
            s.put(&self.sha_amounts().expect("checked"));
            s.put(&self.sha_scriptpubkeys().expect("checked"));
            s.put(&self.sha_sequences());
        }
        // "If hash_type & 3 does not equal SIGHASH_NONE or SIGHASH_SINGLE:" sha_outputs (32).
        if output_type == SIGHASH_ALL as u8 {
            s.put(&self.sha_outputs());
        }
    }

    /// SigMsg from "Data about this input" on, plus BIP342's extension. Caller checked.
    fn bip341_write_rest<S: Sink>(
        &self,
        s: &mut S,
        n_in: usize,
        hash_type: u8,
        annex: Option<&[u8]>,
        tapscript: Option<([u8; 32], u32)>,
    ) {
        let tx = self.tx;
        let spent = self.spent_outputs.expect("checked");
        let output_type = if hash_type == SIGHASH_DEFAULT { SIGHASH_ALL as u8 } else { hash_type & 3 };
        let acp = hash_type & 0x80 != 0;
        // Data about this input: spend_type (1) = (ext_flag * 2) + annex_present.
        let ext_flag = u8::from(tapscript.is_some());
        s.put(&[ext_flag * 2 + u8::from(annex.is_some())]);
        // "If hash_type & 0x80 equals SIGHASH_ANYONECANPAY:" outpoint (36), amount (8),
        // scriptPubKey (35 for P2TR, with CompactSize), nSequence (4); else input_index (4).
        if acp {
            tx.inputs[n_in].prevout.encode(s);
            spent[n_in].encode(s);
            s.put(&tx.inputs[n_in].sequence.to_le_bytes());
        } else {
            s.put(&(n_in as u32).to_le_bytes());
        }
        // "If an annex is present": sha_annex (32) = SHA256(compact_size(size of annex) || annex).
        if let Some(a) = annex {
            let mut e = Sha256::new();
            write_var_bytes(&mut e, a);
            s.put(&e.finalize());
        }
        // Data about this output: "If hash_type & 3 equals SIGHASH_SINGLE": sha_single_output (32).
        if output_type == SIGHASH_SINGLE as u8 {
            let mut e = Sha256::new();
            tx.outputs[n_in].encode(&mut e);
            s.put(&e.finalize());
        }
        // BIP342 extension (ext_flag = 1): tapleaf_hash (32), key_version (1) = 0x00,
        // codesep_pos (4).
        if let Some((leaf, codesep_pos)) = tapscript {
            s.put(&leaf);
            s.put(&[0x00]);
            s.put(&codesep_pos.to_le_bytes());
        }
    }
}

/// Writes `script_code` with every OP_CODESEPARATOR removed, as Core's
/// `CTransactionSignatureSerializer::SerializeScriptCode` does (including its behaviour on a
/// script whose final push is truncated).
fn write_script_code<S: Sink>(s: &mut S, script: &[u8]) {
    let mut pc = 0;
    let mut n_seps = 0usize;
    while let Some(op) = get_op(script, &mut pc) {
        if op.opcode == OP_CODESEPARATOR {
            n_seps += 1;
        }
    }
    write_compact_size(s, (script.len() - n_seps) as u64);
    let mut pc = 0;
    let mut begin = 0;
    loop {
        let op = get_op(script, &mut pc);
        match op {
            Some(op) => {
                if op.opcode == OP_CODESEPARATOR {
                    s.put(&script[begin..pc - 1]);
                    begin = pc;
                }
            }
            None => break,
        }
    }
    if begin != script.len() {
        s.put(&script[begin..pc]);
    }
}

/// Legacy signature hash (Core's `SignatureHash`, `SigVersion::BASE`); see
/// [`TxContext::legacy_sighash`].
pub fn legacy_sighash(tx: &Transaction, n_in: usize, script_code: &[u8], hash_type: u32) -> [u8; 32] {
    let mut e = Sha256::new();
    if !legacy_write(&mut e, tx, n_in, script_code, hash_type) {
        return ONE_HASH;
    }
    sha256(&e.finalize())
}

/// The legacy preimage (the modified transaction followed by the 4-byte hash type), or `None`
/// where Core signs the constant [`ONE_HASH`] instead (input index out of range, or
/// SIGHASH_SINGLE without a matching output).
pub fn legacy_preimage(tx: &Transaction, n_in: usize, script_code: &[u8], hash_type: u32) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    legacy_write(&mut v, tx, n_in, script_code, hash_type).then_some(v)
}

/// Writes the legacy preimage; false (nothing written) in the "1" cases.
fn legacy_write<S: Sink>(
    s: &mut S,
    tx: &Transaction,
    n_in: usize,
    script_code: &[u8],
    hash_type: u32,
) -> bool {
    if n_in >= tx.inputs.len() {
        return false;
    }
    let base = hash_type & 0x1f;
    let acp = hash_type & SIGHASH_ANYONECANPAY != 0;
    let none = base == SIGHASH_NONE;
    let single = base == SIGHASH_SINGLE;
    // The "SIGHASH_SINGLE bug": no output at this index signs the constant 1.
    if single && n_in >= tx.outputs.len() {
        return false;
    }
    s.put(&tx.version.to_le_bytes());
    // Inputs: only the signing one under ANYONECANPAY.
    let n_inputs = if acp { 1 } else { tx.inputs.len() };
    write_compact_size(s, n_inputs as u64);
    let put_input = |s: &mut S, i: usize| {
        let input = &tx.inputs[i];
        input.prevout.encode(s);
        if i == n_in {
            write_script_code(s, script_code);
        } else {
            s.put(&[0]);
        }
        // Other inputs' sequences are zeroed under NONE and SINGLE.
        if i != n_in && (none || single) {
            s.put(&[0, 0, 0, 0]);
        } else {
            s.put(&input.sequence.to_le_bytes());
        }
    };
    if acp {
        put_input(s, n_in);
    } else {
        for i in 0..tx.inputs.len() {
            put_input(s, i);
        }
    }
    // Outputs: none under NONE; up to and including n_in under SINGLE, earlier ones blanked
    // (value -1, empty script).
    if none {
        s.put(&[0]);
    } else if single {
        write_compact_size(s, (n_in + 1) as u64);
        for _ in 0..n_in {
            s.put(&(-1i64).to_le_bytes());
            s.put(&[0]);
        }
        tx.outputs[n_in].encode(s);
    } else {
        write_compact_size(s, tx.outputs.len() as u64);
        for o in &tx.outputs {
            o.encode(s);
        }
    }
    s.put(&tx.lock_time.to_le_bytes());
    s.put(&hash_type.to_le_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{OutPoint, TxIn};

    #[test]
    fn out_of_range_inputs_are_errors_not_panics() {
        let tx = Transaction {
            version: 2,
            inputs: vec![TxIn { prevout: OutPoint { txid: [1; 32], vout: 0 }, ..TxIn::default() }],
            outputs: vec![TxOut { value: 5, script_pubkey: vec![0x51] }],
            lock_time: 0,
        };
        let spent = [TxOut { value: 7, script_pubkey: vec![0x51, 0x20] }];
        let ctx = TxContext::new(&tx, Some(&spent));
        assert_eq!(ctx.bip143_sighash(1, &[], 0, 1), Err(SighashError::InputIndex));
        assert_eq!(ctx.bip143_preimage(1, &[], 0, 1), Err(SighashError::InputIndex));
        assert_eq!(ctx.bip341_sighash(1, 0, None, None), Err(SighashError::InputIndex));
        assert_eq!(ctx.legacy_sighash(1, &[], 1), ONE_HASH);
        assert_eq!(legacy_preimage(&tx, 1, &[], 1), None);
        // SIGHASH_SINGLE without an output is undefined in BIP341 and signs "1" in legacy.
        let tx2 = Transaction { outputs: vec![], ..tx.clone() };
        let ctx2 = TxContext::new(&tx2, Some(&spent));
        assert_eq!(ctx2.bip341_sighash(0, 3, None, None), Err(SighashError::SingleWithoutOutput));
        assert_eq!(ctx2.legacy_sighash(0, &[], 3), ONE_HASH);
        // Undefined BIP341 hash types, and missing spent outputs.
        for ht in [4u8, 0x80, 0x84, 0xff] {
            assert_eq!(ctx.bip341_sighash(0, ht, None, None), Err(SighashError::InvalidHashType(ht)));
        }
        let ctx3 = TxContext::new(&tx, None);
        assert_eq!(ctx3.bip341_sighash(0, 0, None, None), Err(SighashError::MissingSpentOutputs));
    }
}
