// SPDX-License-Identifier: MIT OR Apache-2.0
//! The signature checker (Core's `BaseSignatureChecker` and
//! `GenericTransactionSignatureChecker`): ECDSA and BIP340 signature checks over the
//! transaction's signature hashes, and the CLTV/CSV lock-time comparisons.

use super::encoding::pubkey_size_valid;
use super::error::{Res, ScriptError};
use super::exec::ExecData;
// Its home is `exec`; the old path stays.
pub use super::exec::SigVersion;
use crate::sighash::TxContext;

/// Signature checking at the elliptic-curve boundary (Core's `BaseSignatureChecker` below the
/// sighash). Implementations must be thread-safe; the interpreter calls them from any thread.
pub trait SigVerifier: Sync {
    /// ECDSA with Core's `CPubKey::Verify` semantics: parse `pubkey` (33 or 65 bytes, hybrid
    /// allowed as libsecp256k1 does), parse `sig` (DER without the hash-type byte) with the lax
    /// parser, normalise S to low-S, verify against `msg32`.
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool;
    /// [`SigVerifier::verify_ecdsa`] for a check inside `CHECKMULTISIG(VERIFY)`, where a
    /// failing check is routine (each signature is tried against the keys in turn until one
    /// matches). The default is the same check; a verifier that defers checks answers these at
    /// once instead.
    fn verify_ecdsa_multisig(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        self.verify_ecdsa(pubkey, sig, msg32)
    }
    /// BIP340 verification of a 64-byte signature on a 32-byte message.
    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool;
    /// The BIP341 commitment check ([`TweakCheck`], libsecp256k1's
    /// `xonly_pubkey_tweak_add_check`); false if the internal key is not a valid x-only key or
    /// the tweak overflows.
    fn tweak_add_check(&self, check: &TweakCheck<'_>) -> bool;
    /// Whether the interpreter reports each `CHECKMULTISIG(VERIFY)` that succeeded with this
    /// verifier's answers to [`SigVerifier::multisig_claim`]. False by default (an exact
    /// verifier has nothing to learn from it).
    fn wants_multisig_claims(&self) -> bool {
        false
    }
    /// A `CHECKMULTISIG(VERIFY)` succeeded with the answers this verifier gave; `claim` holds
    /// what its loop would need to be walked again with other answers. A verifier that answered
    /// some checks without verifying them (deferring them) can decide later whether the exact
    /// answers give the same success without running the script again. Called only when
    /// [`SigVerifier::wants_multisig_claims`] is true.
    fn multisig_claim(&self, claim: &MultisigClaim<'_>) {
        let _ = claim;
    }
}

/// One key of a [`MultisigClaim`], as the `CHECKMULTISIG` loop would meet it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultisigKey<'a> {
    /// Trying it fails the script: its encoding breaks a rule the flags enforce
    /// (`STRICTENC`, `WITNESS_PUBKEYTYPE`).
    Refused,
    /// Trying it answers false without a signature check: its size does not fit its first
    /// byte.
    Unusable,
    /// Trying it is the signature check against these bytes.
    Key(&'a [u8]),
}

/// What a `CHECKMULTISIG(VERIFY)` that succeeded leaves for its verifier to walk its loop
/// again ([`SigVerifier::multisig_claim`]). The loop tries the signatures in order, each
/// against the next keys in order until one matches, and fails as soon as fewer keys are left
/// than signatures; a check of signature `i` against `keys[j]` is the ECDSA check of
/// `sigs[i]` against the key, each step preceded by the key's encoding rule. The success the
/// script went on with is the exact one exactly when that walk, with exact answers, also
/// matches every signature.
#[derive(Clone, Copy, Debug)]
pub struct MultisigClaim<'a> {
    /// The signatures in the order they are tried: the DER bytes without the hash-type byte,
    /// and the message each signs. Every one was matched, so each is non-empty and has a
    /// message.
    pub sigs: &'a [(&'a [u8], [u8; 32])],
    /// The keys in the order they are tried.
    pub keys: &'a [MultisigKey<'a>],
}

/// A BIP341 commitment to check: `output == internal + tweak·G`, with `output`'s y parity
/// equal to `parity` (odd when true). The three keys are named, not positional: they have the
/// same type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TweakCheck<'a> {
    /// The internal x-only key (the control block's).
    pub internal: &'a [u8; 32],
    /// The tweak, `hash_TapTweak(internal ‖ merkle root)`.
    pub tweak: &'a [u8; 32],
    /// The output x-only key (the witness program).
    pub output: &'a [u8; 32],
    /// The output key's y parity (the control block's low bit).
    pub parity: bool,
}

const LOCKTIME_THRESHOLD: i64 = 500_000_000;
const SEQUENCE_FINAL: u32 = 0xffff_ffff;
pub(super) const SEQUENCE_LOCKTIME_DISABLE_FLAG: i64 = 1 << 31;
const SEQUENCE_LOCKTIME_TYPE_FLAG: i64 = 1 << 22;
const SEQUENCE_LOCKTIME_MASK: i64 = 0x0000_ffff;

/// The signature checker for one input: transaction context, index, amount, verifier.
pub(super) struct Checker<'a, V: SigVerifier + ?Sized> {
    pub(super) ctx: &'a TxContext<'a>,
    pub(super) n_in: usize,
    pub(super) amount: i64,
    pub(super) verifier: &'a V,
}

impl<V: SigVerifier + ?Sized> Checker<'_, V> {
    /// The message a non-empty ECDSA signature `sig` (its last byte the hash type) signs with
    /// `script_code`, or `None` where the signature hash is undefined (a check that fails).
    pub(super) fn ecdsa_message(
        &self,
        sig: &[u8],
        script_code: &[u8],
        sigversion: SigVersion,
    ) -> Option<[u8; 32]> {
        let hash_type = sig[sig.len() - 1] as u32;
        match sigversion {
            SigVersion::WitnessV0 => {
                self.ctx.bip143_sighash(self.n_in, script_code, self.amount, hash_type).ok()
            }
            _ => Some(self.ctx.legacy_sighash(self.n_in, script_code, hash_type)),
        }
    }

    /// `CHECKSIG`'s ECDSA check.
    pub(super) fn check_ecdsa(
        &self,
        sig: &[u8],
        pubkey: &[u8],
        script_code: &[u8],
        sigversion: SigVersion,
    ) -> bool {
        if !pubkey_size_valid(pubkey) || sig.is_empty() {
            return false;
        }
        match self.ecdsa_message(sig, script_code, sigversion) {
            Some(msg) => self.verifier.verify_ecdsa(pubkey, &sig[..sig.len() - 1], &msg),
            None => false,
        }
    }

    /// A check of `CHECKMULTISIG`'s loop. `msg` is the signature's message slot: computed on
    /// its first check and kept, since a signature tried against several keys signs the same
    /// message each time.
    pub(super) fn check_ecdsa_multisig(
        &self,
        sig: &[u8],
        pubkey: &[u8],
        script_code: &[u8],
        sigversion: SigVersion,
        msg: &mut Option<Option<[u8; 32]>>,
    ) -> bool {
        if !pubkey_size_valid(pubkey) || sig.is_empty() {
            return false;
        }
        match *msg.get_or_insert_with(|| self.ecdsa_message(sig, script_code, sigversion)) {
            Some(m) => self.verifier.verify_ecdsa_multisig(pubkey, &sig[..sig.len() - 1], &m),
            None => false,
        }
    }

    pub(super) fn check_schnorr(
        &self,
        sig: &[u8],
        pubkey: &[u8; 32],
        sigversion: SigVersion,
        exec: &ExecData,
    ) -> Res<()> {
        let (sig64, hash_type) = match sig.len() {
            64 => (sig, 0u8),
            65 => {
                // An explicit SIGHASH_DEFAULT byte is invalid.
                if sig[64] == 0 {
                    return Err(ScriptError::SchnorrSigHashtype);
                }
                (&sig[..64], sig[64])
            }
            _ => return Err(ScriptError::SchnorrSigSize),
        };
        let tapscript = match sigversion {
            SigVersion::Tapscript => Some((exec.tapleaf_hash.unwrap_or([0; 32]), exec.codesep_pos)),
            _ => None,
        };
        let msg = self
            .ctx
            .bip341_sighash(self.n_in, hash_type, exec.annex.as_deref(), tapscript)
            .map_err(|_| ScriptError::SchnorrSigHashtype)?;
        let sig64: &[u8; 64] = sig64.try_into().expect("64 bytes");
        if self.verifier.verify_schnorr(pubkey, sig64, &msg) {
            Ok(())
        } else {
            Err(ScriptError::SchnorrSig)
        }
    }

    // The condition keeps the shape of Core's `CheckLockTime` so the two read side by side.
    #[allow(clippy::nonminimal_bool)]
    pub(super) fn check_locktime(&self, lock: i64) -> bool {
        let tx = self.ctx.tx;
        let tx_lock = tx.lock_time as i64;
        // Same kind (height or time) on both sides of LOCKTIME_THRESHOLD.
        if !((tx_lock < LOCKTIME_THRESHOLD && lock < LOCKTIME_THRESHOLD)
            || (tx_lock >= LOCKTIME_THRESHOLD && lock >= LOCKTIME_THRESHOLD))
        {
            return false;
        }
        if lock > tx_lock {
            return false;
        }
        // A final input would make nLockTime ineffective.
        tx.inputs[self.n_in].sequence != SEQUENCE_FINAL
    }

    // The condition keeps the shape of Core's `CheckSequence` so the two read side by side.
    #[allow(clippy::nonminimal_bool)]
    pub(super) fn check_sequence(&self, seq: i64) -> bool {
        let tx = self.ctx.tx;
        let tx_seq = tx.inputs[self.n_in].sequence as i64;
        // BIP68 applies to version >= 2 only (compared unsigned).
        if (tx.version as u32) < 2 {
            return false;
        }
        if tx_seq & SEQUENCE_LOCKTIME_DISABLE_FLAG != 0 {
            return false;
        }
        let mask = SEQUENCE_LOCKTIME_TYPE_FLAG | SEQUENCE_LOCKTIME_MASK;
        let tx_masked = tx_seq & mask;
        let masked = seq & mask;
        if !((tx_masked < SEQUENCE_LOCKTIME_TYPE_FLAG && masked < SEQUENCE_LOCKTIME_TYPE_FLAG)
            || (tx_masked >= SEQUENCE_LOCKTIME_TYPE_FLAG && masked >= SEQUENCE_LOCKTIME_TYPE_FLAG))
        {
            return false;
        }
        masked <= tx_masked
    }
}
