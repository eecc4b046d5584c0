// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `utxo-heavy` planner: each block's consolidations, payments and payouts, chosen so that
//! the set grows the way mainnet's does (the pool: [`Heavy`]).
//!
//! A block at the point x ∈ (0, 1] of the spend range aims at C(x) = (x + x²)/2 of the final
//! totals (activity grows along the chain, three times as fast at the tip as at the start):
//! inputs so far C(x)·inputs, coins in the set C(x)·utxos. Its spends, until its share of
//! inputs (the gap to the first goal, drawn within ±40 %) is reached:
//!
//! - a consolidation whenever a fifth of the shares so far covers its 20–300 inputs, drawn
//!   uniformly among the coins at least 1,000 blocks old (half the chain's age before that),
//!   into one output; three of 1,000–1,500 inputs at 40, 65 and 90 % of the spend range;
//! - payments of 1–3 fresh coins (65 % of the draws), of 1–2 tail coins (30 %: half drawn
//!   uniformly over the tail, half at a log-uniform age, so spends reach the whole age range),
//!   and chains of 2–5 transactions spending outputs of the same block (5 %).
//!
//! Then payouts, one large coin into 200–3,000 outputs of the era's kinds worth
//! 5,000 sat to [`payout_range`]'s bound each plus the change, bring the set to its goal: each
//! waits until the gap to the goal covers its size (the last block closes the gap), so that
//! a small set grows by payouts as large as a big one's. Fees are low (up to 3, 6 and
//! 10 sat/vB in the three eras) so that small coins stay spendable.

use super::manifest::Stress;
use super::plan::{BlockPlan, Prev, State, TxShape};
#[cfg(doc)]
use super::pool::payout_range;
use super::pool::{Heavy, Role, Taken, Utxo};

/// Low fee rates (sat/vB) of the three eras.
const FEERATES: [(usize, usize); 3] = [(1, 3), (1, 6), (1, 10)];

/// The fee rates of every utxo-heavy transaction, and the payouts' values.
fn shape(payouts: Option<(i64, i64)>) -> TxShape {
    TxShape { payouts, feerates: Some(FEERATES) }
}

impl State {
    fn heavy(&mut self) -> &mut Heavy {
        self.heavy.as_mut().expect("the utxo-heavy profile")
    }

    fn utxo_of(&self, t: &Taken) -> Utxo {
        self.heavy.as_ref().expect("the utxo-heavy profile").utxo_of(&self.g, t)
    }

    /// A transaction of the taken coins into `n_out` outputs; on failure the coins go back
    /// where they were taken from.
    fn try_tx(
        &mut self,
        plan: &mut BlockPlan,
        taken: Vec<Taken>,
        n_out: usize,
        era: usize,
        shape: &TxShape,
        role: Role,
    ) -> Option<usize> {
        let coins: Vec<Utxo> = taken.iter().map(|t| self.utxo_of(t)).collect();
        let ins = self.confirmed(coins, era);
        match self.make_tx_with(plan, ins, n_out, era, shape) {
            Some(t) => {
                plan.txs[t].role = role;
                Some(t)
            }
            None => {
                // make_tx_with put the coins in `pool`: they go back where they came from.
                self.pool.clear();
                let h = self.heavy();
                for t in taken {
                    h.put_back(t);
                }
                None
            }
        }
    }

    /// A consolidation of up to `n` coins at least 1,000 blocks old; returns its inputs.
    fn consolidate(&mut self, plan: &mut BlockPlan, n: usize, height: u32, era: usize) -> Option<usize> {
        let mut taken = Vec::with_capacity(n);
        while taken.len() < n {
            let Some(h) = self.heavy.as_mut() else { break };
            match h.take_old(height, &mut self.g.rng) {
                Some(t) => taken.push(t),
                None => break,
            }
        }
        if taken.len() < 2 {
            let h = self.heavy();
            for t in taken {
                h.put_back(t);
            }
            return None;
        }
        let k = taken.len();
        self.try_tx(plan, taken, 1, era, &shape(None), Role::Consolidation).map(|_| k)
    }

    /// A payment of 1–3 fresh coins or 1–2 tail coins into one or two outputs.
    fn pay(&mut self, plan: &mut BlockPlan, fresh: bool, height: u32, era: usize) {
        let r = self.g.rng.below(10);
        let n = if fresh { [1, 1, 1, 1, 2, 2, 2, 2, 3, 3][r] } else { [1, 1, 1, 1, 1, 1, 1, 2, 2, 2][r] };
        let mut taken = Vec::with_capacity(n);
        for _ in 0..n {
            let Some(h) = self.heavy.as_mut() else { break };
            if let Some(t) = h.take_for_payment(fresh, height, &mut self.g.rng) {
                taken.push(t);
            }
        }
        if taken.is_empty() {
            return;
        }
        let total: i64 = taken.iter().map(Taken::value).sum();
        let n_out = if total < 20_000 || self.g.rng.chance(150) { 1 } else { 2 };
        self.try_tx(plan, taken, n_out, era, &shape(None), Role::Payment);
    }

    /// A chain of `len` payments, each spending the previous one's first output.
    fn pay_chain(&mut self, plan: &mut BlockPlan, len: usize, height: u32, era: usize) {
        let h = self.heavy.as_mut().expect("the utxo-heavy profile");
        let Some(first) = h.take_for_payment(true, height, &mut self.g.rng) else { return };
        let Some(mut t) = self.try_tx(plan, vec![first], 2, era, &shape(None), Role::Payment) else { return };
        for _ in 1..len {
            let coin = plan.txs[t].outs[0].clone();
            plan.txs[t].spent_in_block[0] = true;
            let mut ins = vec![self.plan_input(coin, Prev::InBlock(t, 0), era)];
            let mut taken = Vec::new();
            if self.g.rng.chance(300) {
                let h = self.heavy.as_mut().expect("the utxo-heavy profile");
                if let Some(c) = h.take_fresh(height, &mut self.g.rng) {
                    let u = self.utxo_of(&c);
                    ins.push(self.plan_input(u, Prev::Confirmed, era));
                    taken.push(c);
                }
            }
            match self.make_tx_with(plan, ins, 2, era, &shape(None)) {
                Some(n) => t = n,
                None => {
                    self.pool.clear();
                    let h = self.heavy();
                    for c in taken {
                        h.put_back(c);
                    }
                    return;
                }
            }
        }
    }

    /// A payout of one large coin into `n_out` − 1 small outputs and the change.
    fn payout(&mut self, plan: &mut BlockPlan, n_out: usize, era: usize) -> bool {
        let h = self.heavy.as_mut().expect("the utxo-heavy profile");
        let (lo, hi) = h.payout;
        let max_fee = 10 * (n_out as i64 * 45 + 300);
        let need = (n_out as i64 - 1) * hi + max_fee + 600;
        let Some(c) = h.take_big(need, &mut self.g.rng) else { return false };
        self.try_tx(plan, vec![c], n_out, era, &shape(Some((lo, hi))), Role::Payout).is_some()
    }

    /// Plans the block at `height` of a utxo-heavy corpus.
    pub(super) fn plan_heavy_block(&mut self, height: u32) -> BlockPlan {
        let mut plan = BlockPlan::default();
        let Some(era) = self.era(height) else { return plan };
        self.heavy().age_fresh(height);
        let (goal_inputs, goal_utxos) = self.heavy().goals(height);
        let done: u64 = self.era_inputs.iter().sum();
        let want = goal_inputs.saturating_sub(done) as usize;
        let target = if want == 0 { 0 } else { want * self.g.rng.range(60, 140) / 100 };
        if self.schedule.get(&height) == Some(&"consolidation") {
            let n = self.g.rng.range(1_000, 1_500);
            if let Some(k) = self.consolidate(&mut plan, n, height, era) {
                self.stress.push(Stress { height, shape: "consolidation".into(), size: k as u64 });
            }
        }
        self.heavy().credit += target / 5;
        while self.heavy().credit >= self.heavy().next_consolidation {
            let n = self.heavy().next_consolidation;
            self.heavy().credit -= n;
            self.heavy().next_consolidation = self.g.rng.range(20, 300);
            self.consolidate(&mut plan, n, height, era);
        }
        let mut stalls = 0;
        while plan.inputs < target && stalls < 20 {
            let before = plan.txs.len();
            let x = self.g.rng.below(1000);
            if x < 650 {
                self.pay(&mut plan, true, height, era);
            } else if x < 700 {
                let len = self.g.rng.range(2, 5);
                self.pay_chain(&mut plan, len, height, era);
            } else {
                self.pay(&mut plan, false, height, era);
            }
            if plan.txs.len() == before {
                stalls += 1;
            }
        }
        // Payouts bring the set to its goal: the pool now, the outputs this block keeps and
        // the coinbase's four.
        let in_block =
            plan.txs.iter().flat_map(|t| &t.ins).filter(|p| matches!(p.prev, Prev::InBlock(..))).count();
        let projected = self.utxo_count() as i64 + (plan.new_outputs - in_block) as i64 + 4;
        let mut gap = goal_utxos as i64 - projected;
        // A payout waits until the gap covers its size, except in the last block, which
        // closes the gap.
        let last = height == self.era_bounds[3] - 1;
        let mut n_out = self.heavy().next_payout;
        while gap > 0 && n_out >= 2 && (last || gap + 1 >= n_out as i64) {
            let n = n_out.min(gap as usize + 1).max(2);
            if self.payout(&mut plan, n, era) {
                gap -= n as i64 - 1;
                n_out = self.g.rng.range(200, 3_000);
                self.heavy().next_payout = n_out;
            } else {
                n_out /= 2;
            }
        }
        plan
    }
}
