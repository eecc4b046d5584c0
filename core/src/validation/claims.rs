// SPDX-License-Identifier: MIT OR Apache-2.0
//! `CHECKMULTISIG` claims of the deferred signature checks: a multisig that succeeded with its
//! checks answered `true` unverified, settled against the exact answers without running its
//! script again; no Core counterpart (Core checks inline).
//!
//! The loop of `CHECKMULTISIG` tries the signatures in order, each against the next keys until
//! one matches. With every deferred check answered `true`, signature `i` meets key `i`; where
//! the signers are not the first keys (keys 1 and 3 of 2-of-3), those checks fail when
//! verified, and the loop with the exact answers takes other pairs. The interpreter reports
//! each multisig that succeeded ([`MultisigClaim`]); here its loop is walked again with the
//! verified answers, verifying the pairs the walk meets that were never checked. A walk that
//! matches every signature settles the claim: the multisig's effect on the script (success,
//! no error) is the one the script went on with.

use crate::script::interpreter::{MultisigClaim, MultisigKey};
use crate::secp256k1::ecdsa;
use crate::utxo::SaltedOutPoints;
use std::collections::{HashMap, HashSet};

/// A deferred ECDSA check: the key's bytes (parsed later, many at once), the message, the
/// parsed signature.
pub(super) type EcdsaItem = (KeyBytes, [u8; 32], ecdsa::Signature);

/// A SEC1 public key's bytes (33 or 65; any other length never parses).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct KeyBytes {
    len: u8,
    bytes: [u8; 65],
}

impl KeyBytes {
    pub(super) fn new(b: &[u8]) -> KeyBytes {
        let mut bytes = [0u8; 65];
        let len = b.len().min(65);
        bytes[..len].copy_from_slice(&b[..len]);
        // A longer input keeps a length that never parses.
        KeyBytes { len: if b.len() > 65 { 0 } else { len as u8 }, bytes }
    }

    pub(super) fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// What a check's answer is known by: its key's bytes, its message and its signature as
/// parsed and normalised (what the verification reads; two encodings of one signature get one
/// answer).
pub(super) type MemoKey = (KeyBytes, [u8; 32], [u8; 64]);

/// Exact answers of `CHECKMULTISIG` checks verified. Hashed with the coin tables' salted
/// folded multiply ([`SaltedOutPoints`], correct for any key), not SipHash: a key is 163
/// bytes, and hashing them for the memo and the walks' asks was about 1 % of a two-thread
/// replay's samples, half of it on the validating thread after the signature job.
pub(super) type Memo = HashMap<MemoKey, bool, SaltedOutPoints>;

/// The memo key of a check.
pub(super) fn memo_key(item: &EcdsaItem) -> MemoKey {
    (item.0, item.1, item.2.to_compact())
}

/// Rounds of verifying the pairs the walks met before the claims still open are given up (their
/// inputs are then verified exactly): a walk takes the pairs it has no answer for as valid and
/// asks for them, so one round settles any claim whose asked pairs are valid, and each further
/// round answers at least one more of a claim's pairs (at most 20 × 20).
const ROUNDS: usize = 4;

/// A claim as recorded, in one allocation: the signature count and the key count (a byte each;
/// at most 20), then each signature (its length as two bytes little-endian, its DER bytes, its
/// message), then each key (a tag: 0 refused, 1 unusable, 2 a key followed by its length as two
/// bytes and its bytes).
pub(super) struct Claim(Box<[u8]>);

const REFUSED: u8 = 0;
const UNUSABLE: u8 = 1;
const KEY: u8 = 2;

impl Claim {
    /// Records `c`.
    pub(super) fn record(c: &MultisigClaim<'_>) -> Claim {
        let len = 2
            + c.sigs.iter().map(|(der, _)| 2 + der.len() + 32).sum::<usize>()
            + c.keys.iter().map(|k| if let MultisigKey::Key(b) = k { 3 + b.len() } else { 1 }).sum::<usize>();
        let mut v = Vec::with_capacity(len);
        v.push(c.sigs.len() as u8);
        v.push(c.keys.len() as u8);
        for (der, msg) in c.sigs {
            v.extend_from_slice(&(der.len() as u16).to_le_bytes());
            v.extend_from_slice(der);
            v.extend_from_slice(msg);
        }
        for k in c.keys {
            match k {
                MultisigKey::Refused => v.push(REFUSED),
                MultisigKey::Unusable => v.push(UNUSABLE),
                MultisigKey::Key(b) => {
                    v.push(KEY);
                    v.extend_from_slice(&(b.len() as u16).to_le_bytes());
                    v.extend_from_slice(b);
                }
            }
        }
        Claim(v.into_boxed_slice())
    }

    /// The signatures and keys recorded.
    fn view(&self) -> View<'_> {
        let b = &self.0;
        let (n_sigs, n_keys) = (b[0] as usize, b[1] as usize);
        let mut at = 2;
        let mut take = |n: usize| {
            let s = &b[at..at + n];
            at += n;
            s
        };
        let sigs = (0..n_sigs)
            .map(|_| {
                let len = u16::from_le_bytes(take(2).try_into().expect("two bytes")) as usize;
                let der = take(len);
                (der, take(32).try_into().expect("32 bytes"))
            })
            .collect();
        let keys = (0..n_keys)
            .map(|_| match take(1)[0] {
                REFUSED => MultisigKey::Refused,
                UNUSABLE => MultisigKey::Unusable,
                _ => {
                    let len = u16::from_le_bytes(take(2).try_into().expect("two bytes")) as usize;
                    MultisigKey::Key(take(len))
                }
            })
            .collect();
        (sigs, keys)
    }
}

/// A claim's signatures (DER bytes, message) and keys, as recorded.
type View<'a> = (Vec<(&'a [u8], [u8; 32])>, Vec<MultisigKey<'a>>);

/// Where a walk of a claim's loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    /// Every signature matched with known answers: the claim holds.
    Holds,
    /// The loop fails (too few keys left, or a refused key reached) even with the missing
    /// answers taken as valid, so it fails with the exact ones: the claim does not hold.
    Fails,
    /// Every signature matched, some with missing answers taken as valid.
    Needs,
}

/// The checks a round of walks asks for, each once.
#[derive(Default)]
struct Asked {
    keys: HashSet<MemoKey, SaltedOutPoints>,
    items: Vec<EcdsaItem>,
}

/// Walks the loop of the claim `(sigs, keys)` with the answers of `memo`. A pair without an
/// answer is asked for in `asked` and taken as valid; a signature that does not parse (as
/// [`ecdsa::Signature::from_der_lax`]) fails every check, as exact verification would. Since
/// the loop matches greedily, it succeeds with the exact answers only if it succeeds with the
/// missing ones taken as valid: `Fails` is final.
fn walk(sigs: &[(&[u8], [u8; 32])], keys: &[MultisigKey<'_>], memo: &Memo, asked: &mut Asked) -> Walk {
    let (mut isig, mut ikey) = (0, 0);
    let mut missing = false;
    while isig < sigs.len() {
        if sigs.len() - isig > keys.len() - ikey {
            return Walk::Fails;
        }
        let (der, msg) = &sigs[isig];
        let valid = match keys[ikey] {
            MultisigKey::Refused => return Walk::Fails,
            MultisigKey::Unusable => false,
            // Parsed as the deferred check was (`DeferringVerifier::defer_ecdsa`).
            MultisigKey::Key(key) => match ecdsa::Signature::from_der_lax(der) {
                Err(_) => false,
                Ok(mut s) => {
                    s.normalize_s();
                    let item = (KeyBytes::new(key), *msg, s);
                    let k = memo_key(&item);
                    match memo.get(&k) {
                        Some(&v) => v,
                        None => {
                            missing = true;
                            if asked.keys.insert(k) {
                                asked.items.push(item);
                            }
                            true
                        }
                    }
                }
            },
        };
        if valid {
            isig += 1;
        }
        ikey += 1;
    }
    if missing {
        Walk::Needs
    } else {
        Walk::Holds
    }
}

/// The checks that one walk of each claim of `suspects` (positions, sorted) asks for, each
/// once: what the first round of [`settle`] would verify, for a caller that verifies them
/// beside other work and passes the answers to `settle` in its memo.
pub(super) fn first_asks(claims: &[(u32, Claim)], suspects: &[u32], memo: &Memo) -> Vec<EcdsaItem> {
    let mut asked = Asked::default();
    for (owner, claim) in claims {
        if suspects.binary_search(owner).is_ok() {
            let (sigs, keys) = claim.view();
            walk(&sigs, &keys, memo, &mut asked);
        }
    }
    asked.items
}

/// The inputs among `suspects` (positions, sorted) with a claim that does not hold, after
/// walking their claims (`claims`: each with its input's position) against `memo`, which holds
/// the verified answers of every `CHECKMULTISIG` check recorded; the pairs the walks meet
/// without an answer are verified with `verify` (answers in order) and added to `memo`. Claims
/// still open after [`ROUNDS`] rounds count as not holding.
pub(super) fn settle(
    claims: &[(u32, Claim)],
    suspects: &[u32],
    memo: &mut Memo,
    verify: impl Fn(&[EcdsaItem]) -> Vec<bool>,
) -> Vec<u32> {
    let mut open: Vec<(u32, &Claim)> = claims
        .iter()
        .filter(|(owner, _)| suspects.binary_search(owner).is_ok())
        .map(|(o, c)| (*o, c))
        .collect();
    let mut failed: Vec<u32> = Vec::new();
    for round in 0..=ROUNDS {
        let mut asked = Asked::default();
        open.retain(|(owner, claim)| {
            let (sigs, keys) = claim.view();
            match walk(&sigs, &keys, memo, &mut asked) {
                Walk::Holds => false,
                Walk::Fails => {
                    failed.push(*owner);
                    false
                }
                Walk::Needs => true,
            }
        });
        if open.is_empty() {
            break;
        }
        if round == ROUNDS {
            failed.extend(open.iter().map(|(owner, _)| *owner));
            break;
        }
        for (item, valid) in asked.items.iter().zip(verify(&asked.items)) {
            memo.insert(memo_key(item), valid);
        }
    }
    failed.sort_unstable();
    failed.dedup();
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compressed-looking key numbered `k` (never parsed here: the answers are given).
    fn key(k: u8) -> [u8; 33] {
        let mut b = [2u8; 33];
        b[32] = k;
        b
    }

    /// The DER signature r = `r`, s = 1.
    fn der(r: u8) -> [u8; 8] {
        [0x30, 6, 2, 1, r, 2, 1, 1]
    }

    /// The check of `der` by `key` on `msg`, as a walk asks for it.
    fn item(key: &[u8], der: &[u8], msg: [u8; 32]) -> EcdsaItem {
        let mut s = ecdsa::Signature::from_der_lax(der).unwrap();
        s.normalize_s();
        (KeyBytes::new(key), msg, s)
    }

    #[test]
    fn a_claim_round_trips_through_its_record() {
        let (k1, k2) = (key(1), [4u8; 65]);
        let sigs: [(&[u8], [u8; 32]); 2] = [(&[0x30, 1, 2][..], [7; 32]), (&[0x30; 300][..], [8; 32])];
        let keys =
            [MultisigKey::Key(&k1), MultisigKey::Refused, MultisigKey::Unusable, MultisigKey::Key(&k2)];
        let c = Claim::record(&MultisigClaim { sigs: &sigs, keys: &keys });
        let (s, k) = c.view();
        assert_eq!(s, sigs.to_vec());
        assert_eq!(k, keys.to_vec());
    }

    /// The greedy loop of `CHECKMULTISIG`, walked with known answers: which pairs it tries,
    /// where it fails, and that a refused key fails it only when reached.
    #[test]
    fn walks_follow_the_loop_of_checkmultisig() {
        let keys_b: Vec<[u8; 33]> = (0..3).map(key).collect();
        let sig_bytes = [der(1), der(2)];
        let sigs: Vec<(&[u8], [u8; 32])> = sig_bytes.iter().map(|s| (&s[..], [9u8; 32])).collect();
        // 2-of-3 over keys 0..3; `valid[i][j]`: signature i matches key j.
        let run = |valid: [[bool; 3]; 2], keys: &[MultisigKey<'_>]| {
            let mut memo = Memo::default();
            for (i, row) in valid.iter().enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    memo.insert(memo_key(&item(&keys_b[j], &sig_bytes[i], [9; 32])), v);
                }
            }
            let mut asked = Asked::default();
            let w = walk(&sigs, keys, &memo, &mut asked);
            assert!(asked.items.is_empty());
            w
        };
        let all: Vec<MultisigKey<'_>> = keys_b.iter().map(|k| MultisigKey::Key(&k[..])).collect();
        let (t, f) = (true, false);
        assert_eq!(run([[t, f, f], [f, t, f]], &all), Walk::Holds); // keys 1 and 2
        assert_eq!(run([[t, f, f], [f, f, t]], &all), Walk::Holds); // keys 1 and 3
        assert_eq!(run([[f, t, f], [f, f, t]], &all), Walk::Holds); // keys 2 and 3
        assert_eq!(run([[t, t, t], [t, t, t]], &all), Walk::Holds);
        assert_eq!(run([[f, f, t], [f, f, f]], &all), Walk::Fails); // out of order
        assert_eq!(run([[f, t, f], [t, f, f]], &all), Walk::Fails);
        assert_eq!(run([[t, f, f], [f, f, f]], &all), Walk::Fails);
        assert_eq!(run([[f, f, f], [f, t, t]], &all), Walk::Fails);
        // Once fewer keys are left than signatures the walk stops, asking for nothing more.
        let mut memo = Memo::default();
        for k in &keys_b[..2] {
            memo.insert(memo_key(&item(k, &sig_bytes[0], [9; 32])), false);
        }
        let mut asked = Asked::default();
        assert_eq!(walk(&sigs, &all, &memo, &mut asked), Walk::Fails);
        assert!(asked.items.is_empty());
        // A refused third key: reached (and failing) only when the first two do not both match.
        let mut refused = all.clone();
        refused[2] = MultisigKey::Refused;
        assert_eq!(run([[t, f, f], [f, t, f]], &refused), Walk::Holds);
        assert_eq!(run([[t, f, f], [f, f, t]], &refused), Walk::Fails);
        // An unusable key is a failed check, not an error.
        let mut unusable = all.clone();
        unusable[1] = MultisigKey::Unusable;
        assert_eq!(run([[t, t, f], [f, t, t]], &unusable), Walk::Holds);
        assert_eq!(run([[t, t, f], [f, t, f]], &unusable), Walk::Fails);
    }

    /// Missing answers are asked for once each, taken as valid, and settled by the rounds;
    /// claims of inputs that are not suspects are left alone; a signature that does not parse
    /// fails its checks without being asked for.
    #[test]
    fn settling_verifies_the_missing_pairs_round_by_round() {
        let keys_b: Vec<[u8; 33]> = (0..3).map(key).collect();
        let keys: Vec<MultisigKey<'_>> = keys_b.iter().map(|k| MultisigKey::Key(&k[..])).collect();
        let (d1, d2) = (der(1), der(2));
        let sigs = [(&d1[..], [1u8; 32]), (&d2[..], [2u8; 32])];
        let claim = || Claim::record(&MultisigClaim { sigs: &sigs, keys: &keys });
        let claims = vec![(3u32, claim()), (5, claim()), (9, claim())];
        // Known: the first signature does not match key 0 (what the deferred run assumed).
        let known = || {
            let mut memo = Memo::default();
            memo.insert(memo_key(&item(&keys_b[0], &d1, [1; 32])), false);
            memo
        };
        // Signature 0 matches key 1; signature 1 matches key 2 when `second`.
        let run = |suspects: &[u32], second: bool| {
            let calls = std::cell::RefCell::new(Vec::new());
            let verify = |items: &[EcdsaItem]| {
                calls.borrow_mut().push(items.len());
                items
                    .iter()
                    .map(|(k, m, _)| {
                        (k.as_slice() == keys_b[1] && *m == [1; 32])
                            || (second && k.as_slice() == keys_b[2] && *m == [2; 32])
                    })
                    .collect()
            };
            let failed = settle(&claims, suspects, &mut known(), verify);
            (failed, calls.into_inner())
        };
        // One round: (sig 0, key 1) and (sig 1, key 2), asked once for both claims.
        assert_eq!(run(&[3, 9], true), (vec![], vec![2]));
        // Signature 1 matches nothing: the claim fails once that round is verified.
        assert_eq!(run(&[5], false), (vec![5], vec![2]));
        // No suspects: nothing walked, nothing asked.
        assert_eq!(run(&[4], false), (vec![], vec![]));
        // An unparseable signature: no check asked for, the claim fails.
        let bad = [(&[0xff][..], [1u8; 32]), (&d2[..], [2u8; 32])];
        let claims = vec![(1u32, Claim::record(&MultisigClaim { sigs: &bad, keys: &keys }))];
        let verify = |items: &[EcdsaItem]| -> Vec<bool> { panic!("asked for {} checks", items.len()) };
        assert_eq!(settle(&claims, &[1], &mut Memo::default(), verify), vec![1]);
    }
}
