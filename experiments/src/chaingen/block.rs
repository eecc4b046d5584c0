// SPDX-License-Identifier: MIT OR Apache-2.0
//! Assembling a planned block: signing level by level (in parallel within a level), moving the
//! coins, the coinbase and its witness commitment, proof of work, the block's bytes and its
//! undo data (the coins it spends, as Core's `CBlockUndo` lists them).

use super::keys::par_map;
use super::plan::{age_band, BlockPlan, Prev, State};
use super::pool::Utxo;
use super::profile::{Kind, ERAS};
use super::sign::sign_input;
use fullverify::chain::Network;
use fullverify::encode::{write_compact_size, Block, BlockHeader, OutPoint, Transaction, TxIn, TxOut};
use fullverify::hash::{merkle_root, sha256d, witness_merkle_root};
use fullverify::sighash::TxContext;
use fullverify::undo::{BlockUndo, TxUndo};
use fullverify::utxo::Coin;
use fullverify::validation::bip34_height_push;

impl State {
    /// Signs the plan level by level (parallel within a level) and assembles the block: its
    /// bytes and its undo data, from the planner's own record of each spent coin.
    pub(super) fn build_block(
        &mut self,
        height: u32,
        prev: [u8; 32],
        mut plan: BlockPlan,
    ) -> (Vec<u8>, BlockUndo) {
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
        // Count and move the coins; a coin of the same block has its height and is no coinbase.
        let era = self.era(height);
        let mut undo = BlockUndo { txs: Vec::with_capacity(plan.txs.len()) };
        for t in &mut plan.txs {
            let coins = t.ins.iter().map(|p| {
                let out = TxOut { value: p.coin.value, script_pubkey: p.coin.spk.clone() };
                match p.prev {
                    Prev::InBlock(..) => Coin { out, height, coinbase: false },
                    Prev::Confirmed => Coin { out, height: p.coin.height, coinbase: p.coin.coinbase },
                }
            });
            undo.txs.push(TxUndo { coins: coins.collect() });
            for p in &t.ins {
                let age = match p.prev {
                    Prev::InBlock(..) => 0,
                    Prev::Confirmed => height - p.coin.height,
                };
                self.ages[age_band(age)] += 1;
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
            let role = t.role;
            for (o, &s) in std::mem::take(&mut t.outs).into_iter().zip(&t.spent_in_block) {
                if !s {
                    self.keep(o, role);
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
                prevout: OutPoint::NULL,
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
        (block_bytes(&block), undo)
    }
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
