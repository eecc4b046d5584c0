// SPDX-License-Identifier: MIT OR Apache-2.0
//! Block validation: real blocks with their spent outputs through `check_block_with_spent`
//! (coinbase value = subsidy + fees exactly), invalid blocks made by mutating valid regtest
//! blocks and re-mining them (each rejected with Core's reason and the state unchanged), and
//! the parallel script check giving the same verdicts for 1..8 threads.
use fullverify_testkit as common;

use common::harness::{regtest_1_206, BlockWithPrevouts, MAINNET_277647, MAINNET_866342, TESTNET3_928816};
use common::{block_bytes, mine, remine};
use fullverify::chain::{self, Network};
use fullverify::chainstate::{ChainError, Chainstate, ChainstateOptions};
use fullverify::encode::{Block, OutPoint, Transaction, TxIn, TxOut};
use fullverify::script::{BackendVerifier, ScriptError, ScriptFlags};
use fullverify::utxo::Coin;
use fullverify::validation::{self, check_block_with_spent, verify_scripts, CheckOptions, SigMode};
use fullverify::Backend;

/// The options of a check on the detected backend.
fn checks(network: Network, threads: usize, sig_mode: SigMode) -> CheckOptions {
    CheckOptions { network, threads, backend: Backend::detect(), sig_mode }
}

fn check_real(r: &BlockWithPrevouts, hash: &str, n_inputs: usize) {
    for (threads, mode) in
        [(1, SigMode::Inline), (2, SigMode::Inline), (2, SigMode::for_backend(Backend::detect()))]
    {
        let s = check_block_with_spent(&r.raw, &r.coins, r.height, &checks(r.network, threads, mode))
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(fullverify::encode::display_hex(&s.hash), hash);
        assert_eq!(s.inputs, n_inputs);
        assert_eq!(s.coinbase_value, s.subsidy + s.fees, "coinbase = subsidy + fees");
        assert!(s.sigops_cost <= validation::MAX_BLOCK_SIGOPS_COST);
    }
}

#[test]
fn mainnet_866342_with_spent() {
    let Some(r) = MAINNET_866342.load() else { return };
    assert_eq!(r.height, 866_342);
    check_real(&r, "000000000000000000014ce9ba7c6760053c3c82ce6ab43d60afb101d3c8f1f1", 7972);
    // A wrong spent amount breaks the coinbase balance or a signature: never accepted.
    let mut bad = r.coins.clone();
    bad[0].out.value += 1;
    for mode in SigMode::ALL {
        assert!(check_block_with_spent(&r.raw, &bad, r.height, &checks(Network::Mainnet, 2, mode)).is_err());
    }
}

#[test]
fn mainnet_277647_with_spent() {
    let Some(r) = MAINNET_277647.load() else { return };
    check_real(&r, "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8", 732);
}

#[test]
fn testnet3_928816_with_spent() {
    let Some(r) = TESTNET3_928816.load() else { return };
    check_real(&r, "00000000000001c4b87edf974ddc601d88dda332265b9849a944a5ff0141a378", 8692);
}

/// Block 866342 (2,373 taproot inputs) in every signature mode, on 1 and 2 threads: accepted
/// with the same summary.
#[test]
fn mainnet_866342_every_signature_mode_same_summary() {
    let Some(r) = MAINNET_866342.load() else { return };
    let key = |s: validation::BlockCheckSummary| {
        (s.hash, s.txs, s.inputs, s.fees, s.sigops_cost, s.coinbase_value, s.subsidy)
    };
    for threads in [1, 2] {
        let run = |mode| {
            check_block_with_spent(&r.raw, &r.coins, r.height, &checks(Network::Mainnet, threads, mode))
                .unwrap_or_else(|e| panic!("{mode}: {e}"))
        };
        let want = key(run(SigMode::Inline));
        for mode in SigMode::ALL {
            assert_eq!(key(run(mode)), want, "{mode} threads {threads}");
        }
    }
}

/// With two threads `check_block_with_spent` verifies the scripts against the given spent
/// outputs while the other checks run alongside; on one thread everything runs in Core's
/// order. Both give the same verdict: a given output that disagrees with the block's own
/// output it names is ignored, a failed check outranks a failed script, and a failed script
/// alone is reported at the same input.
#[test]
fn mainnet_866342_checks_beside_scripts_same_verdict() {
    let Some(r) = MAINNET_866342.load() else { return };
    let block = &r.block;
    let txids: std::collections::HashSet<[u8; 32]> = block.txdata.iter().map(|t| t.txid()).collect();
    // (position in the spent list, transaction, input) of every non-coinbase input.
    let positions: Vec<(usize, usize, usize)> = (1..block.txdata.len())
        .flat_map(|t| (0..block.txdata[t].inputs.len()).map(move |i| (t, i)))
        .enumerate()
        .map(|(k, (t, i))| (k, t, i))
        .collect();
    let is_segwit = |o: &TxOut| matches!(o.script_pubkey.first(), Some(0x00 | 0x51));
    // An input spending an output of this block whose given output is signed (segwit).
    let in_block = positions
        .iter()
        .copied()
        .find(|&(k, t, i)| txids.contains(&block.txdata[t].inputs[i].prevout.txid) && is_segwit(&r.spent[k]))
        .expect("an in-block segwit spend");
    // Two inputs spending earlier blocks' segwit outputs.
    let mut outside = positions.iter().copied().filter(|&(k, t, i)| {
        !txids.contains(&block.txdata[t].inputs[i].prevout.txid) && is_segwit(&r.spent[k])
    });
    let first = outside.next().unwrap();
    let last = outside.next_back().unwrap();
    let verdict = |spent: &[Coin], threads: usize, mode: SigMode| {
        check_block_with_spent(&r.raw, spent, r.height, &checks(Network::Mainnet, threads, mode))
            .map(|s| (s.fees, s.sigops_cost))
            .map_err(|e| (e.reason, e.tx.map(|t| t.0), e.input))
    };
    let agree = |spent: &[Coin]| {
        let want = verdict(spent, 1, SigMode::Inline);
        for mode in SigMode::ALL {
            for threads in [1, 2, 3] {
                assert_eq!(verdict(spent, threads, mode), want, "{mode} threads {threads}");
            }
        }
        want
    };
    assert!(agree(&r.coins).is_ok());
    // The given output of an in-block spend is wrong: the block's own output is used.
    let mut wrong_in_block = r.coins.clone();
    wrong_in_block[in_block.0].out.value += 1;
    wrong_in_block[in_block.0].out.script_pubkey[2] ^= 1;
    assert!(agree(&wrong_in_block).is_ok());
    // A signed amount off by one: a script failure at that input.
    let mut bad_amount = r.coins.clone();
    bad_amount[last.0].out.value += 1;
    let e = agree(&bad_amount).unwrap_err();
    assert!(e.0.starts_with("block-script-verify-flag-failed"), "{e:?}");
    assert_eq!((e.1, e.2), (Some(last.1), Some(last.2)));
    // The same, and an earlier input spending an immature coinbase: the check outranks the
    // script, though the script's input comes later in the block.
    let mut both = bad_amount.clone();
    both[first.0].coinbase = true;
    both[first.0].height = r.height - 1;
    let e = agree(&both).unwrap_err();
    assert_eq!(e, ("bad-txns-premature-spend-of-coinbase".to_string(), Some(first.1), Some(first.2)));
    // An overspend with every script valid: the amounts decide.
    let mut all_value = r.coins.clone();
    all_value[first.0].out.script_pubkey = vec![0x51];
    all_value[first.0].out.value = 0;
    assert!(agree(&all_value).unwrap_err().0.starts_with("bad-txns-in-belowout"));
}

/// A block's spent outputs grouped per transaction (none for the coinbase).
fn spent_per_tx(r: &BlockWithPrevouts) -> Vec<Vec<TxOut>> {
    let mut spent: Vec<Vec<TxOut>> = Vec::new();
    let mut k = 0;
    for tx in &r.block.txdata {
        if tx.is_coinbase() {
            spent.push(Vec::new());
        } else {
            spent.push(r.spent[k..k + tx.inputs.len()].to_vec());
            k += tx.inputs.len();
        }
    }
    spent
}

/// The witness elements of a taproot input without the annex.
fn taproot_stack(w: &[Vec<u8>]) -> &[Vec<u8>] {
    match w {
        [rest @ .., last] if !rest.is_empty() && last.first() == Some(&0x50) => rest,
        _ => w,
    }
}

/// Inline script checks and every other signature mode agree, for 1 and 3 threads.
fn same_verdict(
    block: &Block,
    spent: &[Vec<TxOut>],
    flags: ScriptFlags,
) -> Result<(), validation::ScriptFailure> {
    let v = BackendVerifier(Backend::detect());
    let exact = verify_scripts(&block.txdata, spent, flags, 1, &v);
    for mode in SigMode::ALL {
        for threads in [1, 3] {
            let got = validation::verify_scripts_with(
                &block.txdata,
                spent,
                flags,
                threads,
                Backend::detect(),
                mode,
            );
            assert_eq!(got, exact, "{mode} threads {threads}");
        }
    }
    exact
}

/// Mutated signatures in block 866342 (a taproot key-path signature, a tapscript signature, an
/// ECDSA signature): every deferred or batched signature mode rejects each with the same error
/// at the same input as inline verification, and with several mutations reports the lowest
/// failing input.
#[test]
fn deferred_signature_modes_report_the_exact_failure() {
    let Some(r) = MAINNET_866342.load() else { return };
    let (block, spent, flags) = (&r.block, spent_per_tx(&r), r.flags);
    assert_eq!(same_verdict(block, &spent, flags), Ok(()));
    let is_p2tr = |o: &TxOut| o.script_pubkey.len() == 34 && o.script_pubkey[..2] == [0x51, 0x20];
    let is_p2wpkh = |o: &TxOut| o.script_pubkey.len() == 22 && o.script_pubkey[..2] == [0x00, 0x14];
    let inputs =
        || (1..block.txdata.len()).flat_map(|t| (0..block.txdata[t].inputs.len()).map(move |i| (t, i)));
    let witness = |t: usize, i: usize| &block.txdata[t].inputs[i].witness;
    // A key-path spend: one signature element (64 or 65 bytes) after removing the annex.
    let key_path = inputs()
        .filter(|&(t, i)| is_p2tr(&spent[t][i]))
        .find(|&(t, i)| matches!(taproot_stack(witness(t, i)), [s] if s.len() == 64 || s.len() == 65))
        .expect("a key-path spend");
    // A script-path spend with a signature among its stack elements.
    let script_path = inputs()
        .filter(|&(t, i)| is_p2tr(&spent[t][i]))
        .find_map(|(t, i)| {
            let st = taproot_stack(witness(t, i));
            if st.len() < 3 {
                return None;
            }
            let e = st[..st.len() - 2].iter().position(|s| s.len() == 64 || s.len() == 65)?;
            Some((t, i, e))
        })
        .expect("a script-path spend with a signature");
    let ecdsa = inputs().rfind(|&(t, i)| is_p2wpkh(&spent[t][i])).expect("a P2WPKH spend");

    let mutated = |muts: &[(usize, usize, usize, usize)]| {
        let mut b = block.clone();
        for &(t, i, e, byte) in muts {
            b.txdata[t].inputs[i].witness[e][byte] ^= 1;
        }
        b
    };
    let check = |muts: &[(usize, usize, usize, usize)], want: (usize, usize)| {
        let f = same_verdict(&mutated(muts), &spent, flags).unwrap_err();
        assert_eq!((f.tx, f.input), want, "{muts:?}");
        f.error
    };
    // Key path: the signature no longer verifies.
    let e = check(&[(key_path.0, key_path.1, 0, 10)], key_path);
    assert_eq!(e, ScriptError::SchnorrSig);
    // ECDSA: flip a byte of the DER signature's S value.
    let sig_len = witness(ecdsa.0, ecdsa.1)[0].len();
    check(&[(ecdsa.0, ecdsa.1, 0, sig_len - 3)], ecdsa);
    // Tapscript: a non-empty signature that fails is an error, not a false.
    let (t, i, e) = script_path;
    assert_eq!(check(&[(t, i, e, 5)], (t, i)), ScriptError::SchnorrSig);
    // Several mutations: the lowest failing input is reported.
    let mut all = vec![(key_path.0, key_path.1, 0, 10), (ecdsa.0, ecdsa.1, 0, sig_len - 3)];
    all.push((t, i, e, 5));
    let lowest = all.iter().map(|&(t, i, _, _)| (t, i)).min().unwrap();
    check(&all, lowest);
}

/// The same block's scripts with 1..8 threads, repeatedly, with two corrupted inputs: the
/// verdict is always the lower-indexed failure.
#[test]
fn parallel_script_check_is_deterministic() {
    let Some(r) = MAINNET_866342.load() else { return };
    let (block, mut spent, flags) = (&r.block, spent_per_tx(&r), r.flags);
    let v = BackendVerifier(Backend::detect());
    assert_eq!(verify_scripts(&block.txdata, &spent, flags, 4, &v), Ok(()));
    // Corrupt the amount of one input near the end and one in the middle (amounts are signed
    // by segwit and taproot inputs; pick such inputs).
    let segwit_input = |t: usize| {
        let s = &spent[t];
        (0..s.len())
            .find(|&i| s[i].script_pubkey.first() == Some(&0x00) || s[i].script_pubkey.first() == Some(&0x51))
    };
    let late = (1..block.txdata.len()).rev().find_map(|t| segwit_input(t).map(|i| (t, i))).unwrap();
    let mid =
        (block.txdata.len() / 2..block.txdata.len()).find_map(|t| segwit_input(t).map(|i| (t, i))).unwrap();
    assert!(mid.0 < late.0);
    spent[late.0][late.1].value += 1;
    spent[mid.0][mid.1].value += 1;
    let rounds = fullverify_testkit::test_iters(2);
    for _ in 0..rounds {
        for threads in 1..=8 {
            let f = verify_scripts(&block.txdata, &spent, flags, threads, &v).unwrap_err();
            assert_eq!((f.tx, f.input), mid, "threads {threads}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Invalid blocks from mutated regtest blocks
// ---------------------------------------------------------------------------------------------

fn expect_reject(cs: &mut Chainstate, b: &Block, reason: &str) {
    let before = cs.summary();
    match cs.connect_block(&block_bytes(b)) {
        Err(ChainError::Invalid(e)) => assert_eq!(e.reason, reason, "{e}"),
        other => panic!("expected {reason}, got {other:?}"),
    }
    assert_eq!(cs.summary(), before, "state changed by a rejected block ({reason})");
}

#[test]
fn mutated_regtest_blocks_rejected_with_core_reasons() {
    let Some(raw) = regtest_1_206() else { return };
    let blocks: Vec<Block> = raw.iter().map(|b| Block::from_bytes(b).unwrap()).collect();
    // The first block with a segwit spend.
    let target = blocks
        .iter()
        .position(|b| b.txdata.len() > 1 && b.txdata[1..].iter().any(|t| t.has_witness()))
        .expect("a block with spends");
    let mut cs = Chainstate::open_in_memory(ChainstateOptions {
        threads: 2,
        ..ChainstateOptions::new(Network::Regtest)
    });
    for b in &raw[..target] {
        cs.connect_block(b).unwrap();
    }
    let good = blocks[target].clone();
    let spend_ix = (1..good.txdata.len()).find(|&t| good.txdata[t].has_witness()).unwrap();
    let mutate = |f: &dyn Fn(&mut Block), commit: bool| {
        let mut b = good.clone();
        f(&mut b);
        remine(&mut b, commit);
        b
    };
    let mut done = Vec::new();
    let mut case = |cs: &mut Chainstate, name: &str, b: Block, reason: &str| {
        expect_reject(cs, &b, reason);
        done.push(name.to_string());
    };

    // Merkle root that does not match.
    let mut b = good.clone();
    b.header.merkle_root[0] ^= 1;
    mine(&mut b);
    case(&mut cs, "bad merkle root", b, "bad-txnmrklroot");

    // CVE-2012-2459: the last transaction duplicated keeps the root.
    let mut b = good.clone();
    let last = b.txdata.last().unwrap().clone();
    b.txdata.push(last);
    remine(&mut b, false);
    case(&mut cs, "duplicated transaction", b, "bad-txns-duplicate");

    // An input spending the same outpoint twice.
    let b = mutate(
        &|b| {
            let i = b.txdata[spend_ix].inputs[0].clone();
            b.txdata[spend_ix].inputs.push(i);
        },
        true,
    );
    case(&mut cs, "duplicate input", b, "bad-txns-inputs-duplicate");

    // Two transactions spending the same coin.
    let b = mutate(
        &|b| {
            let mut t = b.txdata[spend_ix].clone();
            t.outputs[0].value -= 1;
            b.txdata.push(t);
        },
        true,
    );
    case(&mut cs, "double spend", b, "bad-txns-inputs-missingorspent");

    // Spending more than the inputs.
    let b = mutate(&|b| b.txdata[spend_ix].outputs[0].value += 100 * 100_000_000, true);
    case(&mut cs, "overspend", b, "bad-txns-in-belowout");

    // An input whose coin does not exist.
    let b = mutate(&|b| b.txdata[spend_ix].inputs[0].prevout.txid[0] ^= 1, true);
    case(&mut cs, "missing coin", b, "bad-txns-inputs-missingorspent");

    // Spending the previous block's coinbase (99 confirmations short).
    let prev_cb = blocks[target - 1].txdata[0].txid();
    let b = mutate(
        &|b| {
            let mut t = b.txdata[spend_ix].clone();
            t.inputs = vec![TxIn {
                prevout: OutPoint { txid: prev_cb, vout: 0 },
                script_sig: Vec::new(),
                sequence: u32::MAX,
                witness: Vec::new(),
            }];
            t.outputs.truncate(1);
            t.outputs[0].value = 1000;
            b.txdata.push(t);
        },
        true,
    );
    case(&mut cs, "immature coinbase spend", b, "bad-txns-premature-spend-of-coinbase");

    // A signature byte flipped (inside r, so the DER encoding stays valid).
    let b = mutate(&|b| b.txdata[spend_ix].inputs[0].witness[0][10] ^= 1, true);
    case(
        &mut cs,
        "bad signature",
        b,
        "block-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)",
    );

    // Coinbase claiming one satoshi too many.
    let b = mutate(&|b| b.txdata[0].outputs[0].value += 1, true);
    case(&mut cs, "coinbase amount", b, "bad-cb-amount");

    // BIP34 height off by one.
    let height = target as u32;
    let b = mutate(
        &|b| {
            let s = &mut b.txdata[0].inputs[0].script_sig;
            let want = validation::bip34_height_push(height);
            let wrong = validation::bip34_height_push(height + 1);
            assert!(s.starts_with(&want));
            s.splice(..want.len(), wrong);
        },
        true,
    );
    case(&mut cs, "bip34 height", b, "bad-cb-height");

    // Timestamp at the median time past.
    let mtp = chain::median_time_past(cs.headers(), height - 1);
    let mut b = good.clone();
    b.header.time = mtp as u32;
    mine(&mut b);
    case(&mut cs, "time too old", b, "time-too-old");

    // Weight above 4M through a large witness item.
    let b = mutate(&|b| b.txdata[spend_ix].inputs[0].witness.push(vec![0u8; 4_000_000]), true);
    case(&mut cs, "weight", b, "bad-blk-weight");

    // 20,001 legacy CHECKSIGs in a coinbase output: 80,004 sigop cost.
    let b =
        mutate(&|b| b.txdata[0].outputs.push(TxOut { value: 0, script_pubkey: vec![0xac; 20_001] }), true);
    case(&mut cs, "sigops", b, "bad-blk-sigops");

    // Legacy sigops at `CheckBlock`'s limit (a cost of 80,000) and the spends' P2SH and witness
    // sigops beyond it: only the connection, which adds the part that needs the spent outputs
    // to the legacy count, rejects the block.
    let legacy = fullverify::script::sigops::block_legacy_sigop_count(&good);
    let spent_out = |o: &OutPoint, cs: &mut Chainstate| match cs.coin(o).unwrap() {
        Some(c) => c.out,
        None => good.txdata.iter().find(|t| t.txid() == o.txid).expect("an earlier output").outputs
            [o.vout as usize]
            .clone(),
    };
    let flags = ScriptFlags::P2SH | ScriptFlags::WITNESS;
    let spends: u64 = good.txdata[1..]
        .iter()
        .map(|t| {
            let outs: Vec<TxOut> = t.inputs.iter().map(|i| spent_out(&i.prevout, &mut cs)).collect();
            fullverify::script::sigops::spent_sigop_cost(t, &outs, flags)
        })
        .sum();
    assert!(spends >= 1, "the block's spends carry sigops");
    let fill = (20_000 - legacy) as usize;
    let b = mutate(&|b| b.txdata[0].outputs.push(TxOut { value: 0, script_pubkey: vec![0xac; fill] }), true);
    let params = Network::Regtest.params();
    assert!(validation::check_block(&b, target as u32, params, Backend::detect()).is_ok());
    case(&mut cs, "sigops with the spent outputs", b, "bad-blk-sigops");

    // A witness commitment that does not match.
    let b = mutate(&|b| b.txdata[spend_ix].inputs[0].witness[0][10] ^= 1, false);
    case(&mut cs, "witness commitment", b, "bad-witness-merkle-match");

    // Wrong difficulty bits.
    let mut b = good.clone();
    b.header.bits = 0x207ffffe;
    mine(&mut b);
    case(&mut cs, "bits", b, "bad-diffbits");

    eprintln!("rejected: {done:?}");
    assert!(done.len() >= 13);
    // The valid block still connects after every rejection.
    cs.connect_block(&raw[target]).unwrap();

    // With assumevalid at a later block of this chain, scripts below it are not run: the
    // bad-signature block is accepted, and every other rule still applies.
    let av = Block::from_bytes(raw.last().unwrap()).unwrap().block_hash();
    let o = ChainstateOptions { assumevalid: Some(av), ..ChainstateOptions::new(Network::Regtest) };
    let mut skip = Chainstate::open_in_memory(o);
    for b in &raw[..target] {
        skip.connect_block(b).unwrap();
    }
    let b = mutate(&|b| b.txdata[0].outputs[0].value += 1, true);
    expect_reject(&mut skip, &b, "bad-cb-amount");
    let bad_sig = mutate(&|b| b.txdata[spend_ix].inputs[0].witness[0][10] ^= 1, true);
    skip.connect_block(&block_bytes(&bad_sig)).unwrap();
}

/// BIP30: a block whose transaction would overwrite an unspent coin is rejected where BIP30 is
/// enforced (a duplicate txid cannot be made on a BIP34 chain, so the coin source claims one).
#[test]
fn bip30_overwrite_rejected_when_enforced() {
    let Some(raw) = regtest_1_206() else { return };
    struct Everything;
    impl validation::CoinSource for Everything {
        type Error = ();
        fn coin(&mut self, _: &OutPoint) -> Result<Option<Coin>, ()> {
            Ok(Some(Coin { out: TxOut { value: 1, script_pubkey: vec![0x51] }, height: 0, coinbase: false }))
        }
    }
    let p = Network::Regtest.params();
    let block = Block::from_bytes(&raw[1]).unwrap();
    let checked = validation::check_block(&block, 1, p, Backend::detect()).unwrap();
    let mut ctx = validation::ConnectContext {
        params: p,
        height: 1,
        flags: validation::script_flags(p, 1, &checked.hash),
        mtp: None,
        enforce_bip30: true,
        verify_scripts: true,
        threads: 1,
        backend: Backend::detect(),
        sig_mode: validation::SigMode::Inline,
    };
    match validation::connect_block(&block, &checked, &ctx, &mut Everything) {
        Err(validation::ConnectError::Invalid(e)) => {
            assert_eq!(e.reason, "bad-txns-BIP30");
            assert_eq!(e.tx.map(|t| t.0), Some(0));
        }
        other => panic!("{other:?}"),
    }
    ctx.enforce_bip30 = false;
    assert!(validation::connect_block(&block, &checked, &ctx, &mut Everything).is_ok());

    // A source that knows its txids: only the transaction whose txid it may hold has its
    // outputs looked up, and the overwrite is still found there.
    struct Indexed {
        held: OutPoint,
        lookups: Vec<OutPoint>,
    }
    impl validation::CoinSource for Indexed {
        type Error = ();
        fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, ()> {
            self.lookups.push(*op);
            Ok((*op == self.held).then(|| Coin {
                out: TxOut { value: 1, script_pubkey: vec![0x51] },
                height: 0,
                coinbase: false,
            }))
        }
        fn may_hold_txid(&mut self, txid: &[u8; 32]) -> bool {
            *txid == self.held.txid
        }
    }
    let (height, block) = (raw.iter().enumerate())
        .map(|(h, b)| (h as u32, Block::from_bytes(b).unwrap()))
        .find(|(_, b)| b.txdata.len() >= 3 && b.txdata.last().unwrap().outputs.len() >= 2)
        .expect("a block with three transactions, the last with two outputs");
    let checked = validation::check_block(&block, height, p, Backend::detect()).unwrap();
    let last = block.txdata.len() - 1;
    let ctx = validation::ConnectContext {
        height,
        flags: validation::script_flags(p, height, &checked.hash),
        ..ctx
    };
    let ctx = validation::ConnectContext { enforce_bip30: true, ..ctx };
    let mut source = Indexed { held: OutPoint { txid: checked.txids[last], vout: 1 }, lookups: vec![] };
    match validation::connect_block(&block, &checked, &ctx, &mut source) {
        Err(validation::ConnectError::Invalid(e)) => {
            assert_eq!(e.reason, "bad-txns-BIP30");
            assert_eq!(e.tx.map(|t| t.0), Some(last));
        }
        other => panic!("{other:?}"),
    }
    let want: Vec<OutPoint> = (0..2).map(|vout| OutPoint { txid: checked.txids[last], vout }).collect();
    assert_eq!(source.lookups, want, "only the held transaction's outputs, up to the overwrite");
}

/// Spends of the block's own outputs, as Core's view holds them while it connects a block: an
/// earlier transaction's output is spendable once (a second spend is missing), a later
/// transaction's output is not there yet, an unspendable (`OP_RETURN`) or absent output of an
/// earlier transaction was never added, so the outpoint is looked for before the block (where
/// only a duplicate txid could find one, BIP30 unenforced); the coins the block leaves come out
/// in block order without those spent in it. Scripts are not run here (`verify_scripts` off).
#[test]
fn spends_of_the_blocks_own_outputs() {
    let Some(raw) = regtest_1_206() else { return };
    let p = Network::Regtest.params();
    let template = Block::from_bytes(&raw[1]).unwrap();
    let anyone = |v: i64| TxOut { value: v, script_pubkey: vec![0x51] };
    let op_return = TxOut { value: 0, script_pubkey: vec![0x6a, 0x01, 0x07] };
    let tx = |ins: &[OutPoint], outs: Vec<TxOut>| Transaction {
        version: 2,
        inputs: ins
            .iter()
            .map(|&prevout| TxIn { prevout, script_sig: vec![], sequence: u32::MAX, witness: vec![] })
            .collect(),
        outputs: outs,
        lock_time: 0,
    };
    let funding = OutPoint { txid: [0xf0; 32], vout: 0 };
    let extra = OutPoint { txid: [0xf1; 32], vout: 0 };
    struct Held(std::collections::HashMap<OutPoint, Coin>);
    impl validation::CoinSource for Held {
        type Error = ();
        fn coin(&mut self, op: &OutPoint) -> Result<Option<Coin>, ()> {
            Ok(self.0.get(op).cloned())
        }
    }
    let held = |extra_coins: &[OutPoint]| {
        let coin = Coin { out: anyone(50_000), height: 0, coinbase: false };
        Held([funding, extra].iter().chain(extra_coins).map(|&op| (op, coin.clone())).collect())
    };
    // The coinbase of block 1, its value taken down so that fees never matter.
    let connect = |txs: Vec<Transaction>, source: &mut Held| {
        let mut b = template.clone();
        for o in &mut b.txdata[0].outputs {
            o.value = 0;
        }
        b.txdata.truncate(1);
        b.txdata.extend(txs);
        remine(&mut b, true);
        let checked = validation::check_block(&b, 1, p, Backend::detect()).unwrap();
        let ctx = validation::ConnectContext {
            params: p,
            height: 1,
            flags: validation::script_flags(p, 1, &checked.hash),
            mtp: None,
            enforce_bip30: false,
            verify_scripts: false,
            threads: 1,
            backend: Backend::detect(),
            sig_mode: validation::SigMode::Inline,
        };
        match validation::connect_block(&b, &checked, &ctx, source) {
            Ok(out) => Ok((checked.txids, out.delta)),
            Err(validation::ConnectError::Invalid(e)) => Err((e.reason, e.tx.map(|t| t.0), e.input)),
            Err(e) => panic!("{e:?}"),
        }
    };
    let missing = |t: usize, i: usize| Some(("bad-txns-inputs-missingorspent".to_string(), Some(t), Some(i)));

    // tx1 spends the funding coin: outputs 0 and 2 spent by tx2, 1 unspendable, 3 left.
    let tx1 = tx(&[funding], vec![anyone(10), op_return.clone(), anyone(20), anyone(5)]);
    let t1 = tx1.txid();
    let at = |vout| OutPoint { txid: t1, vout };
    let tx2 = tx(&[at(2), at(0)], vec![anyone(30)]);
    let (txids, delta) = connect(vec![tx1.clone(), tx2.clone()], &mut held(&[])).unwrap();
    // (The coinbase's own coins come first.)
    let created: Vec<&(OutPoint, Coin)> =
        delta.created.iter().filter(|(op, _)| op.txid != txids[0]).collect();
    let want = [(at(3), anyone(5)), (OutPoint { txid: txids[2], vout: 0 }, anyone(30))];
    assert_eq!(created.len(), 2);
    for ((op, coin), (want_op, want_out)) in created.into_iter().zip(want) {
        assert_eq!((*op, coin), (want_op, &Coin { out: want_out, height: 1, coinbase: false }));
    }
    assert_eq!(delta.spent.iter().map(|(op, _)| *op).collect::<Vec<_>>(), vec![funding]);

    // A second spend of an output spent earlier in the block.
    let tx3 = tx(&[extra, at(0)], vec![anyone(1)]);
    assert_eq!(connect(vec![tx1.clone(), tx2.clone(), tx3], &mut held(&[])).err(), missing(3, 1));
    // An input spending twice in one transaction is CheckBlock's (bad-txns-inputs-duplicate);
    // two transactions spending the same output of the block:
    let tx3 = tx(&[at(2)], vec![anyone(1)]);
    assert_eq!(connect(vec![tx1.clone(), tx2.clone(), tx3], &mut held(&[])).err(), missing(3, 0));
    // The unspendable output and one past the last.
    for vout in [1, 4, 9] {
        let tx2 = tx(&[at(vout)], vec![anyone(1)]);
        assert_eq!(connect(vec![tx1.clone(), tx2], &mut held(&[])).err(), missing(2, 0), "vout {vout}");
    }
    // The same transaction twice, not in a pair the merkle tree's mutation check catches
    // (CheckBlock passes it): the second copy's input was spent by the first.
    assert_eq!(connect(vec![tx1.clone(), tx1.clone()], &mut held(&[])).err(), missing(2, 0));
    // An output of a later transaction.
    let later = tx(&[extra], vec![anyone(7)]);
    let early = tx(&[OutPoint { txid: later.txid(), vout: 0 }], vec![anyone(1)]);
    assert_eq!(connect(vec![early, later], &mut held(&[])).err(), missing(1, 0));
    // Where the block's own transaction added nothing (unspendable, past its last output), a
    // coin of the same outpoint from before the block is what the input spends.
    for vout in [1, 9] {
        let tx2 = tx(&[at(vout)], vec![anyone(1)]);
        let (_, delta) = connect(vec![tx1.clone(), tx2], &mut held(&[at(vout)])).unwrap();
        assert_eq!(delta.spent.iter().map(|(op, _)| *op).collect::<Vec<_>>(), vec![funding, at(vout)]);
    }
}
