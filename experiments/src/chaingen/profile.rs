// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a corpus is made of: its size ([`Profile`]), the output kinds it spends ([`Kind`]) with
//! their weight and sigop estimates, the eras' output mixes and the block budgets.

use serde::{Deserialize, Serialize};

/// Estimated weight and sigop budgets of a block (the limits are 4,000,000 and 80,000).
pub(super) const BLOCK_WEIGHT_BUDGET: usize = 3_980_000;
pub(super) const BLOCK_SIGOPS_BUDGET: u64 = 79_000;

/// The three eras of the spend range, in chain order.
pub const ERAS: [&str; 3] = ["legacy", "segwit", "taproot"];

/// How big a corpus is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// About 130 blocks and 3,000 inputs: for determinism tests.
    Tiny,
    /// About 200 blocks and 20,000 inputs: for tests.
    Small,
    /// About 2,000 blocks and 250,000 inputs: the replay's default.
    Default,
    /// About 12,000 blocks and 3,000,000 inputs: for scaling runs.
    Large,
    /// A UTXO set that grows the way mainnet's does, to 20,000,000 coins at the tip by default
    /// ([`Spec::utxos`] scales it) over about 10,000 blocks and 2,040,000 inputs: for the coins
    /// store.
    #[serde(rename = "utxo-heavy")]
    UtxoHeavy,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 5] =
        [Profile::Tiny, Profile::Small, Profile::Default, Profile::Large, Profile::UtxoHeavy];

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Tiny => "tiny",
            Profile::Small => "small",
            Profile::Default => "default",
            Profile::Large => "large",
            Profile::UtxoHeavy => "utxo-heavy",
        }
    }

    /// Height of the last block (`utxo-heavy`: at [`DEFAULT_UTXOS`]; see [`Spec::tip_height`]).
    pub fn tip_height(self) -> u32 {
        match self {
            Profile::Tiny => 130,
            Profile::Small => 200,
            Profile::Default => 2_000,
            Profile::Large => 12_000,
            Profile::UtxoHeavy => heavy_tip_height(DEFAULT_UTXOS),
        }
    }

    /// Mean number of inputs per block in the spend range.
    pub(super) fn inputs_per_block(self) -> usize {
        match self {
            Profile::Tiny => 100,
            Profile::Small => 200,
            Profile::Default => 130,
            Profile::Large => 252,
            Profile::UtxoHeavy => 210,
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Profile, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown profile {s:?} (tiny, small, default, large, utxo-heavy)"))
    }
}

/// Coins in the set at the tip of a `utxo-heavy` corpus when no size is given.
pub const DEFAULT_UTXOS: u64 = 20_000_000;

/// The smallest set a `utxo-heavy` corpus can be asked for.
pub const MIN_UTXOS: u64 = 50_000;

/// Tip height of a `utxo-heavy` corpus of `utxos` coins: 2,000 coins per block on average,
/// and never under 3,000 blocks, so that spends can reach coins thousands of blocks old.
pub(super) fn heavy_tip_height(utxos: u64) -> u32 {
    (utxos / 2_000).clamp(3_000, 1_000_000) as u32
}

/// What to generate: a profile, a seed and, for `utxo-heavy`, the size of the final set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The profile.
    pub profile: Profile,
    /// Seed of every choice.
    pub seed: u64,
    /// `utxo-heavy` only: coins in the set at the tip (the corpus ends with at least this
    /// many); `None` is [`DEFAULT_UTXOS`].
    pub utxos: Option<u64>,
}

impl Spec {
    /// `profile` from `seed` at its default size.
    pub fn new(profile: Profile, seed: u64) -> Spec {
        Spec { profile, seed, utxos: None }
    }

    /// The same with a final set of `utxos` coins: `utxo-heavy` only, at least [`MIN_UTXOS`].
    pub fn with_utxos(self, utxos: u64) -> Result<Spec, String> {
        if self.profile != Profile::UtxoHeavy {
            return Err(format!("--utxos applies to the utxo-heavy profile, not {}", self.profile.name()));
        }
        if utxos < MIN_UTXOS {
            return Err(format!("--utxos {utxos}: at least {MIN_UTXOS}"));
        }
        Ok(Spec { utxos: (utxos != DEFAULT_UTXOS).then_some(utxos), ..self })
    }

    /// The size of the final set the generator aims at: `Some` for `utxo-heavy` only.
    pub fn utxo_target(&self) -> Option<u64> {
        (self.profile == Profile::UtxoHeavy).then(|| self.utxos.unwrap_or(DEFAULT_UTXOS))
    }

    /// Height of the last block.
    pub fn tip_height(&self) -> u32 {
        match self.utxo_target() {
            Some(n) => heavy_tip_height(n),
            None => self.profile.tip_height(),
        }
    }
}

/// The kind of an output, which fixes how it is spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `<compressed key> CHECKSIG`.
    P2pk,
    /// `<uncompressed key> CHECKSIG`.
    P2pkUncompressed,
    /// P2PKH of a compressed key.
    P2pkh,
    /// P2PKH of an uncompressed key.
    P2pkhUncompressed,
    /// P2PKH of a hybrid (0x06/0x07) key.
    P2pkhHybrid,
    /// Bare 1-of-2 CHECKMULTISIG.
    Multisig,
    /// P2SH of a 2-of-3 CHECKMULTISIG.
    P2shMultisig,
    /// Native segwit v0 key hash.
    P2wpkh,
    /// P2WPKH nested in P2SH.
    P2shP2wpkh,
    /// Native segwit v0 script hash of a 2-of-3 CHECKMULTISIG.
    P2wshMultisig,
    /// Taproot spent by the key path.
    P2trKey,
    /// Taproot spent by a `<key> CHECKSIG` leaf.
    P2trLeafChecksig,
    /// Taproot spent by a 2-of-3 CHECKSIGADD leaf.
    P2trLeafChecksigadd,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 13] = [
        Kind::P2pk,
        Kind::P2pkUncompressed,
        Kind::P2pkh,
        Kind::P2pkhUncompressed,
        Kind::P2pkhHybrid,
        Kind::Multisig,
        Kind::P2shMultisig,
        Kind::P2wpkh,
        Kind::P2shP2wpkh,
        Kind::P2wshMultisig,
        Kind::P2trKey,
        Kind::P2trLeafChecksig,
        Kind::P2trLeafChecksigadd,
    ];

    /// The name used in manifests and packets.
    pub fn name(self) -> &'static str {
        match self {
            Kind::P2pk => "p2pk",
            Kind::P2pkUncompressed => "p2pk-uncompressed",
            Kind::P2pkh => "p2pkh",
            Kind::P2pkhUncompressed => "p2pkh-uncompressed",
            Kind::P2pkhHybrid => "p2pkh-hybrid",
            Kind::Multisig => "multisig",
            Kind::P2shMultisig => "p2sh-multisig",
            Kind::P2wpkh => "p2wpkh",
            Kind::P2shP2wpkh => "p2sh-p2wpkh",
            Kind::P2wshMultisig => "p2wsh-multisig",
            Kind::P2trKey => "p2tr-key",
            Kind::P2trLeafChecksig => "p2tr-script-checksig",
            Kind::P2trLeafChecksigadd => "p2tr-script-checksigadd",
        }
    }

    pub(super) fn is_legacy(self) -> bool {
        matches!(
            self,
            Kind::P2pk
                | Kind::P2pkUncompressed
                | Kind::P2pkh
                | Kind::P2pkhUncompressed
                | Kind::P2pkhHybrid
                | Kind::Multisig
                | Kind::P2shMultisig
        )
    }

    pub(super) fn is_taproot(self) -> bool {
        matches!(self, Kind::P2trKey | Kind::P2trLeafChecksig | Kind::P2trLeafChecksigadd)
    }

    /// Upper bound of the weight one input spending this kind adds (taproot script paths add
    /// their control block on top).
    pub(super) fn input_weight(self) -> usize {
        // prevout 36, sequence 4, script length 1: 41 bytes ×4.
        let base = 41 * 4;
        base + match self {
            Kind::P2pk | Kind::P2pkUncompressed => 75 * 4,
            Kind::P2pkh => (75 + 34) * 4,
            Kind::P2pkhUncompressed | Kind::P2pkhHybrid => (75 + 66) * 4,
            Kind::Multisig => (1 + 75) * 4,
            Kind::P2shMultisig => (1 + 2 * 75 + 2 + 105 + 2) * 4,
            Kind::P2wpkh => 1 + 74 + 34 + 1,
            Kind::P2shP2wpkh => 23 * 4 + 1 + 74 + 34 + 1,
            Kind::P2wshMultisig => 1 + 1 + 2 * 74 + 1 + 105 + 1,
            Kind::P2trKey => 1 + 66,
            Kind::P2trLeafChecksig => 1 + 66 + 35,
            Kind::P2trLeafChecksigadd => 1 + 3 * 66 + 3 * 35 + 4,
        } + 48 // an annex
    }

    /// Sigop cost of spending (P2SH redeem scripts and witness programs).
    pub(super) fn spend_sigops(self) -> u64 {
        match self {
            Kind::P2shMultisig => 12,
            Kind::P2wpkh | Kind::P2shP2wpkh => 1,
            Kind::P2wshMultisig => 3,
            _ => 0,
        }
    }

    /// Legacy sigop cost of creating an output of this kind.
    pub(super) fn output_sigops(self) -> u64 {
        match self {
            Kind::P2pk
            | Kind::P2pkUncompressed
            | Kind::P2pkh
            | Kind::P2pkhUncompressed
            | Kind::P2pkhHybrid => 4,
            Kind::Multisig => 80,
            _ => 0,
        }
    }
}

/// Output-type weights (per mille) in the legacy, segwit and taproot eras, shaped after the
/// spent-output mix of mainnet's years before segwit, between segwit and taproot, and since
/// taproot. The order of the rows is the order in which [`era_weights`] offers the kinds.
const ERA_WEIGHTS: [(Kind, [u32; 3]); 13] = [
    (Kind::P2pkh, [560, 360, 170]),
    (Kind::P2pkhUncompressed, [170, 15, 0]),
    (Kind::P2pkhHybrid, [3, 0, 0]),
    (Kind::P2pk, [20, 5, 0]),
    (Kind::P2pkUncompressed, [50, 0, 0]),
    (Kind::Multisig, [17, 5, 0]),
    (Kind::P2shMultisig, [180, 120, 50]),
    (Kind::P2shP2wpkh, [0, 250, 80]),
    (Kind::P2wpkh, [0, 190, 430]),
    (Kind::P2wshMultisig, [0, 55, 50]),
    (Kind::P2trKey, [0, 0, 190]),
    (Kind::P2trLeafChecksig, [0, 0, 20]),
    (Kind::P2trLeafChecksigadd, [0, 0, 10]),
];

/// The kinds an era creates with their weights (per mille), in [`ERA_WEIGHTS`]' order; eras
/// past the third are the third.
pub(super) fn era_weights(era: usize) -> impl Iterator<Item = (Kind, u32)> + Clone {
    ERA_WEIGHTS.iter().map(move |&(k, w)| (k, w[era.min(2)])).filter(|&(_, w)| w > 0)
}
