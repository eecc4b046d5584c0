// SPDX-License-Identifier: MIT OR Apache-2.0
//! The internal test kit of fullverify (not published): what the integration tests, the
//! benches and the experiment drivers share.
//!
//! - [`vectors`]: where the external vectors are, and the skip-or-fail contract when they are
//!   absent (`FULLVERIFY_REQUIRE_VECTORS=1` turns every skip into a failure that names the
//!   missing file);
//! - [`harness`]: runners for Bitcoin Core's vector formats (script_tests, tx_valid/invalid,
//!   sighash, BIP143/341, script assets, blocks with the outputs they spend), so `cargo test`
//!   and the conformance runner apply one definition of "pass"; the blocks and spent outputs
//!   are read by the replay's own readers (`fullverify_driver`);
//! - [`SecpVerifier`]: a [`SigVerifier`] over libsecp256k1, the reference the production stack
//!   is compared with. It follows Core's `CPubKey::Verify`: parse the key (hybrid allowed),
//!   parse the signature with the lax DER parser, normalise S, verify;
//! - deterministic randomness for tests ([`SplitMix64`], [`test_seed`], [`test_iters`]) and
//!   hex helpers;
//! - [`Tmpfs`]: a small tmpfs for the storage-fault tests (root only; they skip without).

pub mod harness;
mod tmpfs;
pub mod vectors;

pub use tmpfs::Tmpfs;

pub use vectors::{
    load_json, read_maybe_compressed, test_iters, test_seed, vector_file, vectors_dir, Scratch, SplitMix64,
};

/// Serializes a block (BIP144 form when it has witnesses): the replay's own.
pub use fullverify_driver::replay::block_bytes;

use fullverify::script::{SigVerifier, TweakCheck};
use secp256k1::{ecdsa, schnorr, Message, Parity, PublicKey, Scalar, XOnlyPublicKey};

/// Recomputes the witness commitment (when `commit` and the block has one) and the merkle root
/// of a regtest block `b`, then grinds the nonce until the regtest proof of work holds: a
/// mutated block that fails only the rule its mutation breaks.
pub fn remine(b: &mut fullverify::encode::Block, commit: bool) {
    if commit {
        if let Some(pos) = fullverify::validation::witness_commitment_index(b) {
            let mut wtxids: Vec<[u8; 32]> = b.txdata.iter().map(|t| t.wtxid()).collect();
            wtxids[0] = [0; 32];
            let root = fullverify::hash::witness_merkle_root(&wtxids).root;
            let nonce = b.txdata[0].inputs[0].witness[0].clone();
            let c = fullverify::hash::sha256d(&[&root[..], &nonce[..]].concat());
            b.txdata[0].outputs[pos].script_pubkey[6..38].copy_from_slice(&c);
        }
    }
    let txids: Vec<[u8; 32]> = b.txdata.iter().map(|t| t.txid()).collect();
    b.header.merkle_root = fullverify::hash::merkle_root(&txids).root;
    mine(b);
}

/// Grinds the nonce of a regtest block until its proof of work holds.
pub fn mine(b: &mut fullverify::encode::Block) {
    let p = fullverify::chain::Network::Regtest.params();
    while !fullverify::chain::check_proof_of_work(&b.header.block_hash(), b.header.bits, p) {
        b.header.nonce = b.header.nonce.wrapping_add(1);
    }
}

/// libsecp256k1-backed signature checks.
pub struct SecpVerifier;

impl SigVerifier for SecpVerifier {
    fn verify_ecdsa(&self, pubkey: &[u8], sig: &[u8], msg32: &[u8; 32]) -> bool {
        let Ok(pk) = PublicKey::from_slice(pubkey) else { return false };
        let Ok(mut s) = ecdsa::Signature::from_der_lax(sig) else { return false };
        s.normalize_s();
        ecdsa::verify(&s, Message::from_digest(*msg32), &pk).is_ok()
    }

    fn verify_schnorr(&self, xonly: &[u8; 32], sig64: &[u8; 64], msg32: &[u8; 32]) -> bool {
        let Ok(pk) = XOnlyPublicKey::from_byte_array(*xonly) else { return false };
        let sig = schnorr::Signature::from_byte_array(*sig64);
        schnorr::verify(&sig, msg32, &pk).is_ok()
    }

    fn tweak_add_check(&self, check: &TweakCheck<'_>) -> bool {
        let Ok(p) = XOnlyPublicKey::from_byte_array(*check.internal) else { return false };
        let Ok(q) = XOnlyPublicKey::from_byte_array(*check.output) else { return false };
        let Ok(t) = Scalar::from_be_bytes(*check.tweak) else { return false };
        p.tweak_add_check(&q, if check.parity { Parity::Odd } else { Parity::Even }, t)
    }
}

/// `internal + tweak·G` as (x-only output, odd parity).
pub fn tweak_xonly(internal: &[u8; 32], tweak: &[u8; 32]) -> ([u8; 32], bool) {
    let p = XOnlyPublicKey::from_byte_array(*internal).expect("valid internal key");
    let (q, parity) = p.add_tweak(&Scalar::from_be_bytes(*tweak).expect("tweak < n")).expect("tweak ok");
    (q.to_byte_array(), parity == Parity::Odd)
}

/// Hex to bytes (panics on bad hex: vectors are trusted to be hex where they say so).
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// Hex of bytes.
pub fn tohex(b: &[u8]) -> String {
    hex::encode(b)
}

/// A 32-byte value from display-order (reversed) hex.
pub fn rev32(s: &str) -> [u8; 32] {
    let mut v: [u8; 32] = unhex(s).try_into().expect("32 bytes");
    v.reverse();
    v
}

/// `internal + tweak·G` with fullverify's own secp256k1 layer.
pub fn tweak_xonly_native(internal: &[u8; 32], tweak: &[u8; 32]) -> ([u8; 32], bool) {
    let p = fullverify::secp256k1::XOnlyPublicKey::parse(internal).expect("valid internal key");
    let (q, odd) = p.tweak_add(tweak).expect("tweak ok");
    (q.serialize(), odd)
}
