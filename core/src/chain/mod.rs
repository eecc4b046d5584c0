// SPDX-License-Identifier: MIT OR Apache-2.0
//! Chain parameters and header rules: networks, genesis blocks, proof of work, difficulty
//! retargeting, subsidy, buried deployment heights and Core's per-block script-flag exceptions.
//!
//! Proof of work: a header's `nBits` is a compact float `mantissa · 256^(exponent − 3)` (23-bit
//! mantissa, sign bit 0x0080_0000). The target it encodes must be positive, must not overflow
//! 256 bits and must not exceed the network's `pow_limit`; the header hash, read as a 256-bit
//! little-endian integer, must be ≤ the target (Core's `CheckProofOfWork`).
//!
//! Retargeting (Core's `GetNextWorkRequired`/`CalculateNextWorkRequired`): every 2016 blocks the
//! target is multiplied by `actual / (14 days)` with `actual` clamped to [3.5 days, 56 days],
//! where `actual` is the time between the first and last block of the period, and capped at
//! `pow_limit`. Testnets allow a minimum-difficulty block when a block comes more than 20
//! minutes after its parent; other blocks inside a period carry the bits of the last block that
//! was not such a minimum-difficulty exception. Testnet4 (BIP94) multiplies the *first* block's
//! target of the period (never a min-difficulty exception), and forbids a period's first block
//! from being more than 600 s earlier than its parent (the timewarp rule). Regtest never
//! retargets.
//!
//! Signet (BIP325, the default signet): besides proof of work, every block after genesis
//! carries a solution of the network's challenge script in its coinbase witness commitment
//! (checked in [`crate::validation::check_signet_solution`]).
//!
//! All constants are Bitcoin Core's `kernel/chainparams.cpp`, `pow.cpp` and `validation.cpp`.
//!
//! Files: `params` (networks and their tables), `target` (256-bit targets and `nBits`), `pow`
//! (proof of work, retargeting, median time past).

mod params;
mod pow;
mod target;

pub use params::{
    ChainParams, Network, UnknownNetwork, BIP34_IMPLIES_BIP30_LIMIT, COIN, COINBASE_MATURITY,
    DIFFICULTY_ADJUSTMENT_INTERVAL, MAINNET, MAX_FUTURE_BLOCK_TIME, MAX_TIMEWARP, REGTEST, SIGNET,
    SIGNET_DEFAULT_CHALLENGE, TESTNET3, TESTNET4,
};
pub use pow::{
    calculate_next_work_required, check_proof_of_work, median_time_past, next_work_required, HeaderEntry,
};
pub use target::{derive_target, Compact, U256};
