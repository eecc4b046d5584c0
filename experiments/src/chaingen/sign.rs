// SPDX-License-Identifier: MIT OR Apache-2.0
//! Signatures: DER ECDSA (high-S on request) and BIP340 Schnorr with a derived auxiliary value,
//! and the scriptSig and witness of one planned input of every kind.

use super::keys::Key;
use super::plan::PlanIn;
use super::profile::Kind;
use super::scripts::{multisig, p2pkh, push};
use fullverify::hash::{hash160, sha256};
use fullverify::secp256k1::{ecdsa, schnorr};
use fullverify::sighash::TxContext;

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
pub(super) fn sign_input(keys: &[Key], ctx: &TxContext<'_>, i: usize, p: &PlanIn) -> (Vec<u8>, Vec<Vec<u8>>) {
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
