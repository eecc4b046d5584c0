// SPDX-License-Identifier: MIT OR Apache-2.0
//! The planner: the spends and unsigned transactions of each block, chosen by the seeded
//! generator within the block budgets, with the stress shapes at their heights; the counts of
//! the inputs by era, kind and age of the spent coin.

use super::manifest::{Counts, Stress};
use super::pool::{Heavy, Role, Utxo};
use super::profile::{era_weights, Kind, Profile, BLOCK_SIGOPS_BUDGET, BLOCK_WEIGHT_BUDGET};
use super::scripts::Gen;
use fullverify::encode::{OutPoint, Transaction, TxIn, TxOut};
use fullverify::sighash::{SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE};
use std::collections::{BTreeMap, VecDeque};

/// Where an input's coin comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Prev {
    Confirmed,
    /// Output `vout` of transaction `tx` of the same block.
    InBlock(usize, u32),
}

#[derive(Clone, Debug)]
pub(super) struct PlanIn {
    pub(super) coin: Utxo,
    pub(super) prev: Prev,
    pub(super) hash_type: u32,
    pub(super) high_s: bool,
    pub(super) annex: Option<Vec<u8>>,
    /// Which keys of a 2-of-3 sign (a pair of indices).
    pub(super) signers: [usize; 2],
}

/// How [`State::make_tx_with`] values a transaction's outputs and sets its fee.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TxShape {
    /// Every output but the last gets a value in this range (log-uniform, satoshis) and the
    /// last is the change; without it the value is split at random over the outputs.
    pub(super) payouts: Option<(i64, i64)>,
    /// Fee rate ranges (sat/vB) of the legacy, segwit and taproot eras instead of 1–10, 1–30
    /// and 1–50.
    pub(super) feerates: Option<[(usize, usize); 3]>,
}

pub(super) struct PlanTx {
    pub(super) tx: Transaction,
    pub(super) ins: Vec<PlanIn>,
    /// The new coins, their outpoints filled once the txid is known.
    pub(super) outs: Vec<Utxo>,
    /// Outputs spent later in the same block.
    pub(super) spent_in_block: Vec<bool>,
    pub(super) level: usize,
    pub(super) role: Role,
}

pub(super) struct State {
    pub(super) g: Gen,
    pub(super) profile: Profile,
    pub(super) pool: Vec<Utxo>,
    pub(super) immature: VecDeque<Utxo>,
    pub(super) era_bounds: [u32; 4],
    pub(super) counts: Counts,
    pub(super) era_inputs: [u64; 3],
    pub(super) in_block_spends: u64,
    pub(super) stress: Vec<Stress>,
    pub(super) schedule: BTreeMap<u32, &'static str>,
    pub(super) threads: usize,
    pub(super) seed: u64,
    /// Inputs by the age of the coin they spend, in [`AGE_BANDS`].
    pub(super) ages: [u64; AGE_BANDS.len()],
    /// The utxo-heavy profile's pool (`pool` then only holds a transaction's coins while it is
    /// planned).
    pub(super) heavy: Option<Box<Heavy>>,
}

/// The age bands (in blocks, inclusive; `None`: no upper bound) of [`State::ages`]: the same
/// block, the next six, a day, a week, four weeks, older.
pub(super) const AGE_BANDS: [(u32, Option<u32>); 6] =
    [(0, Some(0)), (1, Some(6)), (7, Some(144)), (145, Some(1_000)), (1_001, Some(4_000)), (4_001, None)];

/// The band of [`AGE_BANDS`] an age falls in.
pub(super) fn age_band(age: u32) -> usize {
    AGE_BANDS.iter().position(|&(_, hi)| hi.is_none_or(|h| age <= h)).unwrap_or(AGE_BANDS.len() - 1)
}

/// Block being planned.
#[derive(Default)]
pub(super) struct BlockPlan {
    pub(super) txs: Vec<PlanTx>,
    pub(super) weight: usize,
    pub(super) sigops: u64,
    pub(super) inputs: usize,
    pub(super) fees: i64,
    pub(super) new_outputs: usize,
}

const TX_OVERHEAD_WEIGHT: usize = (4 + 4 + 3 + 3) * 4 + 2;

impl State {
    pub(super) fn era(&self, height: u32) -> Option<usize> {
        (0..3).find(|&e| height >= self.era_bounds[e] && height < self.era_bounds[e + 1])
    }

    pub(super) fn pick_kind(&mut self, era: usize) -> Kind {
        let w = era_weights(era);
        let total: u32 = w.clone().map(|x| x.1).sum();
        let mut r = (self.g.rng.next() % u64::from(total)) as u32;
        for (k, x) in w.clone() {
            if r < x {
                return k;
            }
            r -= x;
        }
        w.map(|x| x.0).next().expect("every era creates some kind")
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

    pub(super) fn plan_input(&mut self, coin: Utxo, prev: Prev, era: usize) -> PlanIn {
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

    /// Keeps a new or matured coin: in the pool, or where the utxo-heavy pool puts coins of
    /// transactions of `role`.
    pub(super) fn keep(&mut self, coin: Utxo, role: Role) {
        match &mut self.heavy {
            None => self.pool.push(coin),
            Some(h) => h.keep(coin, role),
        }
    }

    /// Coins in the set now: the pools and the immature coinbases.
    pub(super) fn utxo_count(&self) -> u64 {
        (self.pool.len() + self.immature.len()) as u64 + self.heavy.as_ref().map_or(0, |h| h.len())
    }

    /// Builds a transaction spending `ins` into `n_out` outputs with kinds from the era, its
    /// values split at random. Returns `None` when the block has no room for it (the coins go
    /// back to the pool).
    fn make_tx(&mut self, plan: &mut BlockPlan, ins: Vec<PlanIn>, n_out: usize, era: usize) -> Option<usize> {
        self.make_tx_with(plan, ins, n_out, era, &TxShape::default())
    }

    /// [`State::make_tx`] with the values and fee of `shape`. Returns `None` when the block has
    /// no room for it or the inputs cannot pay for the outputs (the coins go back to the pool).
    pub(super) fn make_tx_with(
        &mut self,
        plan: &mut BlockPlan,
        mut ins: Vec<PlanIn>,
        n_out: usize,
        era: usize,
        shape: &TxShape,
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
        let feerate = match (shape.feerates, era) {
            (Some(f), _) => self.g.rng.range(f[era.min(2)].0, f[era.min(2)].1),
            (None, 0) => self.g.rng.range(1, 10),
            (None, 1) => self.g.rng.range(1, 30),
            (None, _) => self.g.rng.range(1, 50),
        } as i64;
        let fee = feerate * weight.div_ceil(4) as i64;
        let spendable = total_in - fee;
        let min_out = 600i64;
        let payouts: Vec<i64> = match shape.payouts {
            Some((lo, hi)) => (1..n_out).map(|_| self.g.rng.log_uniform(lo, hi)).collect(),
            None => Vec::new(),
        };
        let need = if shape.payouts.is_some() {
            payouts.iter().sum::<i64>() + min_out
        } else {
            min_out * n_out as i64
        };
        if plan.weight + weight > BLOCK_WEIGHT_BUDGET
            || plan.sigops + sigops > BLOCK_SIGOPS_BUDGET
            || spendable < need
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
        if shape.payouts.is_some() {
            // Values: the payouts and the change.
            for (o, &v) in outs.iter_mut().zip(&payouts) {
                o.value = v;
            }
            outs[n_out - 1].value = spendable - payouts.iter().sum::<i64>();
        } else {
            // Values: a random split with every output above the minimum.
            let free = spendable - min_out * n_out as i64;
            let mut parts: Vec<u64> = (0..n_out).map(|_| 1 + self.g.rng.next() % 1000).collect();
            if n_out > 1 && self.g.rng.chance(500) {
                parts[0] *= 10; // a payment and a larger change
            }
            let sum: u64 = parts.iter().sum();
            let mut left = free;
            for (j, o) in outs.iter_mut().enumerate() {
                let v = if j + 1 == n_out {
                    left
                } else {
                    (free as i128 * parts[j] as i128 / sum as i128) as i64
                };
                o.value = min_out + v;
                left -= v;
            }
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
        plan.txs.push(PlanTx { tx, ins, outs, spent_in_block, level, role: Role::Payment });
        Some(plan.txs.len() - 1)
    }

    pub(super) fn confirmed(&mut self, coins: Vec<Utxo>, era: usize) -> Vec<PlanIn> {
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

    pub(super) fn plan_block(&mut self, height: u32) -> BlockPlan {
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
}
