// SPDX-License-Identifier: MIT OR Apache-2.0
//! Output scripts: push, P2PKH, P2SH and multisig templates, taproot trees with one spendable
//! leaf, and `Gen`, which draws the keys of a new output and makes its script.

use super::keys::{Key, Rng, KEY_COUNT};
use super::profile::Kind;
use fullverify::encode::write_compact_size;
use fullverify::hash::{hash160, sha256, tags};
use fullverify::secp256k1::XOnlyPublicKey;
use std::sync::Arc;

/// A taproot script tree with one spendable leaf at some depth.
#[derive(Debug)]
pub(super) struct TapLeaf {
    pub(super) script: Vec<u8>,
    pub(super) leaf_hash: [u8; 32],
    pub(super) control: Vec<u8>,
    pub(super) output_key: [u8; 32],
}

pub(super) fn push(s: &mut Vec<u8>, data: &[u8]) {
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

pub(super) fn p2pkh(h: &[u8; 20]) -> Vec<u8> {
    let mut s = Vec::with_capacity(25);
    s.extend_from_slice(&[0x76, 0xa9, 0x14]);
    s.extend_from_slice(h);
    s.extend_from_slice(&[0x88, 0xac]);
    s
}

pub(super) fn p2sh(script: &[u8]) -> Vec<u8> {
    p2sh_of_hash(&hash160(script))
}

fn p2sh_of_hash(h: &[u8; 20]) -> Vec<u8> {
    let mut s = Vec::with_capacity(23);
    s.extend_from_slice(&[0xa9, 0x14]);
    s.extend_from_slice(h);
    s.push(0x87);
    s
}

pub(super) fn multisig(m: u8, keys: &[&[u8]]) -> Vec<u8> {
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

pub(super) struct Gen {
    pub(super) keys: Vec<Key>,
    pub(super) rng: Rng,
}

impl Gen {
    fn key(&self, i: u16) -> &Key {
        &self.keys[i as usize]
    }

    fn redeem_2of3(&self, k: [u16; 3]) -> Vec<u8> {
        multisig(2, &[&self.key(k[0]).compressed, &self.key(k[1]).compressed, &self.key(k[2]).compressed])
    }

    /// A new output of `kind` with fresh keys: its script and, for script paths, its leaf.
    pub(super) fn new_output(&mut self, kind: Kind) -> (Vec<u8>, [u16; 3], Option<Arc<TapLeaf>>) {
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
        if matches!(kind, Kind::P2trLeafChecksig | Kind::P2trLeafChecksigadd) {
            let leaf = Arc::new(self.new_leaf(kind, keys));
            return (self.script(kind, keys, Some(&leaf)), keys, Some(leaf));
        }
        (self.script(kind, keys, None), keys, None)
    }

    /// The script of an output of `kind` with `keys` (and, for script paths, its `leaf`): what
    /// [`Gen::new_output`] made, made again from what a coin keeps.
    pub(super) fn script(&self, kind: Kind, keys: [u16; 3], leaf: Option<&TapLeaf>) -> Vec<u8> {
        let k0 = self.key(keys[0]);
        match kind {
            Kind::P2pk => {
                let mut s = Vec::with_capacity(35);
                push(&mut s, &k0.compressed);
                s.push(0xac);
                s
            }
            Kind::P2pkUncompressed => {
                let mut s = Vec::with_capacity(67);
                push(&mut s, &k0.uncompressed);
                s.push(0xac);
                s
            }
            Kind::P2pkh => p2pkh(&k0.h160[0]),
            Kind::P2pkhUncompressed => p2pkh(&k0.h160[1]),
            Kind::P2pkhHybrid => p2pkh(&k0.h160[2]),
            Kind::Multisig => multisig(1, &[&k0.compressed, &self.key(keys[1]).compressed]),
            Kind::P2shMultisig => p2sh(&self.redeem_2of3(keys)),
            Kind::P2wpkh => {
                let mut s = Vec::with_capacity(22);
                s.extend_from_slice(&[0x00, 0x14]);
                s.extend_from_slice(&k0.h160[0]);
                s
            }
            Kind::P2shP2wpkh => p2sh_of_hash(&k0.h160[3]),
            Kind::P2wshMultisig => {
                let mut s = Vec::with_capacity(34);
                s.extend_from_slice(&[0x00, 0x20]);
                s.extend_from_slice(&sha256(&self.redeem_2of3(keys)));
                s
            }
            Kind::P2trKey | Kind::P2trLeafChecksig | Kind::P2trLeafChecksigadd => {
                let q = match leaf {
                    Some(l) => &l.output_key,
                    None => &k0.tr_output,
                };
                let mut s = Vec::with_capacity(34);
                s.extend_from_slice(&[0x51, 0x20]);
                s.extend_from_slice(q);
                s
            }
        }
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
