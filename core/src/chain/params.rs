// SPDX-License-Identifier: MIT OR Apache-2.0
//! Networks and their consensus parameters: Core's `kernel/chainparams.cpp` (genesis blocks,
//! pow limits, buried deployment heights, script-flag and BIP30 exceptions) and
//! `GetBlockSubsidy` and `GetBlockScriptFlags` (`src/validation.cpp`).

use super::target::U256;
use crate::encode::{Block, BlockHeader, OutPoint, Transaction, TxIn, TxOut};
use crate::hash::merkle_root;
use crate::script::ScriptFlags;

crate::named_enum! {
    /// A Bitcoin network with its consensus parameters ([`Network::params`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Network as "network" custom_from_str {
        /// Bitcoin's main network.
        Mainnet => "mainnet",
        /// Testnet version 3 (BIP34/65/66 at historic heights; min-difficulty blocks after 20
        /// minutes).
        Testnet3 => "testnet3",
        /// Testnet version 4 (BIP94: every deployment from height 1, timewarp rule).
        Testnet4 => "testnet4",
        /// The default signet (BIP325): blocks are signed for the network's challenge script.
        Signet => "signet",
        /// Regression test network: trivial proof of work, no retargeting, 150-block halvings.
        Regtest => "regtest",
    }
}

impl Network {
    /// The consensus parameters.
    pub fn params(self) -> &'static ChainParams {
        match self {
            Network::Mainnet => &MAINNET,
            Network::Testnet3 => &TESTNET3,
            Network::Testnet4 => &TESTNET4,
            Network::Signet => &SIGNET,
            Network::Regtest => &REGTEST,
        }
    }
}

/// A network name that is not recognised.
pub type UnknownNetwork = crate::UnknownName;

impl core::str::FromStr for Network {
    type Err = UnknownNetwork;
    fn from_str(s: &str) -> Result<Network, UnknownNetwork> {
        let name = s.to_ascii_lowercase();
        // Core's aliases besides the names.
        let name = match name.as_str() {
            "main" | "bitcoin" => "mainnet",
            "testnet" | "test" => "testnet3",
            other => other,
        };
        Network::parse_name(name)
    }
}

/// Consensus parameters of one network.
#[derive(Debug)]
pub struct ChainParams {
    /// The network these parameters belong to.
    pub network: Network,
    /// The P2P message start (also the blk*.dat frame magic).
    pub magic: [u8; 4],
    /// Genesis block hash, internal byte order.
    pub genesis_hash: [u8; 32],
    /// The genesis block's fields (see [`ChainParams::genesis_block`]).
    genesis: GenesisSpec,
    /// The easiest allowed target (`powLimit`), as a compact value.
    pub pow_limit_bits: u32,
    /// Seconds between blocks (600).
    pub pow_target_spacing: i64,
    /// Seconds per retarget period (two weeks).
    pub pow_target_timespan: i64,
    /// Testnet rule: a block more than 2 spacings after its parent may use the pow limit.
    pub pow_allow_min_difficulty_blocks: bool,
    /// Regtest: the target never changes.
    pub pow_no_retargeting: bool,
    /// BIP94 (testnet4): retarget from the period's first block and the timewarp rule.
    pub enforce_bip94: bool,
    /// Blocks per subsidy halving.
    pub subsidy_halving_interval: u32,
    /// BIP34 activation height: from here the coinbase starts with the block height and block
    /// versions are ≥ 2. (Buried deployment heights follow; taproot has none: as in Core, its
    /// script flag applies to every block except [`ChainParams::script_flag_exceptions`].)
    pub bip34_height: u32,
    /// The hash of the block at `bip34_height` (Core's `BIP34Hash`; zero where unused).
    pub bip34_hash: [u8; 32],
    /// BIP65 (`OP_CHECKLOCKTIMEVERIFY`, block version ≥ 4) activation height.
    pub bip65_height: u32,
    /// BIP66 (strict DER signatures, block version ≥ 3) activation height.
    pub bip66_height: u32,
    /// CSV activation height: BIP68 sequence locks, BIP112 `OP_CHECKSEQUENCEVERIFY` and BIP113
    /// median-time-past finality.
    pub csv_height: u32,
    /// Segwit activation height (BIP141/143/147): witness commitments and `NULLDUMMY`.
    pub segwit_height: u32,
    /// Blocks whose script flags differ from the rule (Core's `script_flag_exceptions`).
    pub script_flag_exceptions: &'static [([u8; 32], ScriptFlags)],
    /// Blocks exempt from BIP30 (Core's `IsBIP30Repeat`): `(height, hash)`.
    pub bip30_exceptions: &'static [(u32, [u8; 32])],
    /// Signet: the challenge every block's solution must satisfy (BIP325).
    pub signet_challenge: Option<&'static [u8]>,
}

/// Blocks per difficulty period.
pub const DIFFICULTY_ADJUSTMENT_INTERVAL: u32 = 2016;
/// `MAX_FUTURE_BLOCK_TIME`: two hours.
pub const MAX_FUTURE_BLOCK_TIME: i64 = 2 * 60 * 60;
/// BIP94 `MAX_TIMEWARP`.
pub const MAX_TIMEWARP: i64 = 600;
/// Core's `BIP34_IMPLIES_BIP30_LIMIT`: from this height BIP30 is checked again.
pub const BIP34_IMPLIES_BIP30_LIMIT: u32 = 1_983_702;
/// `COINBASE_MATURITY`.
pub const COINBASE_MATURITY: u32 = 100;
/// `COIN`.
pub const COIN: i64 = 100_000_000;

#[derive(Debug)]
struct GenesisSpec {
    time: u32,
    nonce: u32,
    version: i32,
    message: &'static str,
    output_script: &'static [u8],
    reward: i64,
}

/// A 32-byte hash from its display (byte-reversed) hex form, at compile time.
const fn h(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    assert!(b.len() == 64);
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        let hi = hexval(b[2 * i]);
        let lo = hexval(b[2 * i + 1]);
        out[31 - i] = (hi << 4) | lo;
        i += 1;
    }
    out
}

const fn hexval(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("bad hex"),
    }
}

const SATOSHI_PUBKEY_SCRIPT: &[u8] = &[
    0x41, 0x04, 0x67, 0x8a, 0xfd, 0xb0, 0xfe, 0x55, 0x48, 0x27, 0x19, 0x67, 0xf1, 0xa6, 0x71, 0x30, 0xb7,
    0x10, 0x5c, 0xd6, 0xa8, 0x28, 0xe0, 0x39, 0x09, 0xa6, 0x79, 0x62, 0xe0, 0xea, 0x1f, 0x61, 0xde, 0xb6,
    0x49, 0xf6, 0xbc, 0x3f, 0x4c, 0xef, 0x38, 0xc4, 0xf3, 0x55, 0x04, 0xe5, 0x1e, 0xc1, 0x12, 0xde, 0x5c,
    0x38, 0x4d, 0xf7, 0xba, 0x0b, 0x8d, 0x57, 0x8a, 0x4c, 0x70, 0x2b, 0x6b, 0xf1, 0x1d, 0x5f, 0xac,
];
const TIMES_MESSAGE: &str = "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks";
const TESTNET4_SCRIPT: &[u8] = &[
    0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xac,
];

/// The genesis coinbase every network but testnet4 shares: the Times headline paid to
/// Satoshi's key; each network sets its own time and nonce (the bits are its pow limit).
const GENESIS_2009: GenesisSpec = GenesisSpec {
    time: 0,
    nonce: 0,
    version: 1,
    message: TIMES_MESSAGE,
    output_script: SATOSHI_PUBKEY_SCRIPT,
    reward: 50 * COIN,
};

/// What the networks share unless their table says otherwise: ten-minute blocks, two-week
/// retarget periods, a halving every 210,000 blocks, every buried deployment active from block
/// 1, no exceptions, no signet challenge. The identity fields (`network`, `magic`,
/// `genesis_hash`, `genesis`) are always set by the table.
const SHARED: ChainParams = ChainParams {
    network: Network::Mainnet,
    magic: [0; 4],
    genesis_hash: [0; 32],
    genesis: GENESIS_2009,
    pow_limit_bits: 0x1d00ffff,
    pow_target_spacing: 600,
    pow_target_timespan: 14 * 24 * 60 * 60,
    pow_allow_min_difficulty_blocks: false,
    pow_no_retargeting: false,
    enforce_bip94: false,
    subsidy_halving_interval: 210_000,
    bip34_height: 1,
    bip34_hash: [0; 32],
    bip65_height: 1,
    bip66_height: 1,
    csv_height: 1,
    segwit_height: 1,
    script_flag_exceptions: &[],
    bip30_exceptions: &[],
    signet_challenge: None,
};

/// Mainnet.
pub static MAINNET: ChainParams = ChainParams {
    network: Network::Mainnet,
    magic: [0xf9, 0xbe, 0xb4, 0xd9],
    genesis_hash: h("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"),
    genesis: GenesisSpec { time: 1_231_006_505, nonce: 2_083_236_893, ..GENESIS_2009 },
    bip34_height: 227_931,
    bip34_hash: h("000000000000024b89b42a942fe0d9fea3bb44ab7bd1b19115dd6a759c0808b8"),
    bip65_height: 388_381,
    bip66_height: 363_725,
    csv_height: 419_328,
    segwit_height: 481_824,
    script_flag_exceptions: &[
        // BIP16 exception: a P2SH-invalid spend before enforcement.
        (h("00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22"), ScriptFlags::NONE),
        // Taproot exception: an invalid taproot spend before activation.
        (
            h("0000000000000000000f14c35b2d841e986ab5441de8c585d85ffe2c76b2e2f3"),
            ScriptFlags::P2SH.union(ScriptFlags::WITNESS),
        ),
    ],
    bip30_exceptions: &[
        (91_842, h("00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec")),
        (91_880, h("00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721")),
    ],
    ..SHARED
};

/// Testnet3.
pub static TESTNET3: ChainParams = ChainParams {
    network: Network::Testnet3,
    magic: [0x0b, 0x11, 0x09, 0x07],
    genesis_hash: h("000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943"),
    genesis: GenesisSpec { time: 1_296_688_602, nonce: 414_098_458, ..GENESIS_2009 },
    pow_allow_min_difficulty_blocks: true,
    bip34_height: 21_111,
    bip34_hash: h("0000000023b3a96d3484e5abb3755c413e7d41500f8e2a5c3f0dd01299cd8ef8"),
    bip65_height: 581_885,
    bip66_height: 330_776,
    csv_height: 770_112,
    segwit_height: 834_624,
    script_flag_exceptions: &[(
        h("00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105"),
        ScriptFlags::NONE,
    )],
    ..SHARED
};

/// Testnet4 (BIP94).
pub static TESTNET4: ChainParams = ChainParams {
    network: Network::Testnet4,
    magic: [0x1c, 0x16, 0x3f, 0x28],
    genesis_hash: h("00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043"),
    genesis: GenesisSpec {
        time: 1_714_777_860,
        nonce: 393_743_547,
        message: "03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e",
        output_script: TESTNET4_SCRIPT,
        ..GENESIS_2009
    },
    pow_allow_min_difficulty_blocks: true,
    enforce_bip94: true,
    ..SHARED
};

/// The default signet's challenge: a 1-of-2 bare multisig.
pub const SIGNET_DEFAULT_CHALLENGE: &[u8] = &[
    0x51, 0x21, 0x03, 0xad, 0x5e, 0x0e, 0xda, 0xd1, 0x8c, 0xb1, 0xf0, 0xfc, 0x0d, 0x28, 0xa3, 0xd4, 0xf1,
    0xf3, 0xe4, 0x45, 0x64, 0x03, 0x37, 0x48, 0x9a, 0xbb, 0x10, 0x40, 0x4f, 0x2d, 0x1e, 0x08, 0x6b, 0xe4,
    0x30, 0x21, 0x03, 0x59, 0xef, 0x50, 0x21, 0x96, 0x4f, 0xe2, 0x2d, 0x6f, 0x8e, 0x05, 0xb2, 0x46, 0x3c,
    0x95, 0x40, 0xce, 0x96, 0x88, 0x3f, 0xe3, 0xb2, 0x78, 0x76, 0x0f, 0x04, 0x8f, 0x51, 0x89, 0xf2, 0xe6,
    0xc4, 0x52, 0xae,
];

/// Signet (the default signet, BIP325).
pub static SIGNET: ChainParams = ChainParams {
    network: Network::Signet,
    magic: [0x0a, 0x03, 0xcf, 0x40],
    genesis_hash: h("00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"),
    genesis: GenesisSpec { time: 1_598_918_400, nonce: 52_613_770, ..GENESIS_2009 },
    pow_limit_bits: 0x1e0377ae,
    signet_challenge: Some(SIGNET_DEFAULT_CHALLENGE),
    ..SHARED
};

/// Regtest.
pub static REGTEST: ChainParams = ChainParams {
    network: Network::Regtest,
    magic: [0xfa, 0xbf, 0xb5, 0xda],
    genesis_hash: h("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"),
    genesis: GenesisSpec { time: 1_296_688_602, nonce: 2, ..GENESIS_2009 },
    pow_limit_bits: 0x207fffff,
    pow_allow_min_difficulty_blocks: true,
    pow_no_retargeting: true,
    subsidy_halving_interval: 150,
    segwit_height: 0,
    ..SHARED
};

impl ChainParams {
    /// The genesis block (Core's `CreateGenesisBlock`): one coinbase whose scriptSig is
    /// `486604799 4 <message>` paying the reward to the network's genesis output script.
    pub fn genesis_block(&self) -> Block {
        let g = &self.genesis;
        let mut script_sig = vec![0x04, 0xff, 0xff, 0x00, 0x1d, 0x01, 0x04];
        let msg = g.message.as_bytes();
        if msg.len() < 0x4c {
            script_sig.push(msg.len() as u8);
        } else {
            script_sig.extend_from_slice(&[0x4c, msg.len() as u8]);
        }
        script_sig.extend_from_slice(msg);
        let tx = Transaction {
            version: 1,
            inputs: vec![TxIn {
                prevout: OutPoint::NULL,
                script_sig,
                sequence: u32::MAX,
                witness: Vec::new(),
            }],
            outputs: vec![TxOut { value: g.reward, script_pubkey: g.output_script.to_vec() }],
            lock_time: 0,
        };
        let header = BlockHeader {
            version: g.version,
            prev_block: [0; 32],
            merkle_root: merkle_root(&[tx.txid()]).root,
            time: g.time,
            // Every network's genesis block has the easiest target its rules allow.
            bits: self.pow_limit_bits,
            nonce: g.nonce,
        };
        Block { header, txdata: vec![tx] }
    }

    /// The pow limit as a 256-bit target.
    pub fn pow_limit(&self) -> U256 {
        U256::from_compact(self.pow_limit_bits).0
    }

    /// Blocks per retarget period (`DifficultyAdjustmentInterval`).
    pub fn difficulty_adjustment_interval(&self) -> u32 {
        (self.pow_target_timespan / self.pow_target_spacing) as u32
    }

    /// `GetBlockSubsidy`.
    pub fn block_subsidy(&self, height: u32) -> i64 {
        let halvings = height / self.subsidy_halving_interval;
        if halvings >= 64 {
            return 0;
        }
        (50 * COIN) >> halvings
    }

    /// Core's `GetBlockScriptFlags` for the block `hash` at `height`.
    pub fn script_flags(&self, height: u32, hash: &[u8; 32]) -> ScriptFlags {
        let mut f = match self.script_flag_exceptions.iter().find(|(h, _)| h == hash) {
            Some(&(_, f)) => f,
            None => ScriptFlags::P2SH | ScriptFlags::WITNESS | ScriptFlags::TAPROOT,
        };
        if height >= self.bip66_height {
            f |= ScriptFlags::DERSIG;
        }
        if height >= self.bip65_height {
            f |= ScriptFlags::CHECKLOCKTIMEVERIFY;
        }
        if height >= self.csv_height {
            f |= ScriptFlags::CHECKSEQUENCEVERIFY;
        }
        if height >= self.segwit_height {
            f |= ScriptFlags::NULLDUMMY;
        }
        f
    }

    /// Whether the block is one of Core's two BIP30 duplicate-coinbase exceptions.
    pub fn is_bip30_repeat(&self, height: u32, hash: &[u8; 32]) -> bool {
        self.bip30_exceptions.iter().any(|(h_, x)| *h_ == height && x == hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::check_proof_of_work;

    #[test]
    fn genesis_blocks_hash_to_core_values() {
        for n in Network::ALL {
            let p = n.params();
            // Each table sets its identity over `SHARED`.
            assert_eq!(p.network, n);
            assert_ne!(p.magic, SHARED.magic, "{n}");
            assert_eq!(Network::ALL.iter().filter(|m| m.params().magic == p.magic).count(), 1, "{n}");
            let g = p.genesis_block();
            assert_eq!(g.block_hash(), p.genesis_hash, "{n}");
            assert!(check_proof_of_work(&g.block_hash(), g.header.bits, p), "{n}");
        }
        assert_eq!(
            crate::encode::display_hex(&MAINNET.genesis_block().header.merkle_root),
            "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"
        );
    }

    #[test]
    fn signet_magic_derives_from_its_challenge() {
        let mut ser = vec![SIGNET_DEFAULT_CHALLENGE.len() as u8];
        ser.extend_from_slice(SIGNET_DEFAULT_CHALLENGE);
        assert_eq!(crate::hash::sha256d(&ser)[..4], SIGNET.magic);
    }

    #[test]
    fn network_names_round_trip() {
        for n in Network::ALL {
            assert_eq!(n.to_string().parse::<Network>(), Ok(n));
        }
        assert_eq!("testnet".parse::<Network>(), Ok(Network::Testnet3));
        assert!("signet2".parse::<Network>().is_err());
    }

    #[test]
    fn subsidy_halvings() {
        assert_eq!(MAINNET.block_subsidy(0), 50 * COIN);
        assert_eq!(MAINNET.block_subsidy(209_999), 50 * COIN);
        assert_eq!(MAINNET.block_subsidy(210_000), 25 * COIN);
        assert_eq!(MAINNET.block_subsidy(840_000), 3 * COIN + COIN / 8);
        assert_eq!(MAINNET.block_subsidy(64 * 210_000), 0);
        assert_eq!(REGTEST.block_subsidy(150), 25 * COIN);
    }

    #[test]
    fn script_flags_by_height() {
        let base = ScriptFlags::P2SH | ScriptFlags::WITNESS | ScriptFlags::TAPROOT;
        let all = base
            | ScriptFlags::DERSIG
            | ScriptFlags::CHECKLOCKTIMEVERIFY
            | ScriptFlags::CHECKSEQUENCEVERIFY
            | ScriptFlags::NULLDUMMY;
        let x = [7; 32];
        assert_eq!(MAINNET.script_flags(0, &x), base);
        assert_eq!(MAINNET.script_flags(363_724, &x), base);
        assert_eq!(MAINNET.script_flags(363_725, &x), base | ScriptFlags::DERSIG);
        assert_eq!(
            MAINNET.script_flags(419_328, &x),
            base | ScriptFlags::DERSIG | ScriptFlags::CHECKLOCKTIMEVERIFY | ScriptFlags::CHECKSEQUENCEVERIFY
        );
        assert_eq!(MAINNET.script_flags(481_824, &x), all);
        assert_eq!(MAINNET.script_flags(866_342, &x), all);
        assert_eq!(TESTNET3.script_flags(834_623, &x), all - ScriptFlags::NULLDUMMY);
        assert_eq!(TESTNET3.script_flags(834_624, &x), all);
        assert_eq!(REGTEST.script_flags(0, &x), base | ScriptFlags::NULLDUMMY);
        assert_eq!(REGTEST.script_flags(1, &x), all);
        assert_eq!(TESTNET4.script_flags(1, &x), all);
    }

    #[test]
    fn script_flag_exceptions() {
        let bip16 = MAINNET.script_flag_exceptions[0].0;
        assert_eq!(MAINNET.script_flags(170_060, &bip16), ScriptFlags::NONE);
        assert_eq!(
            MAINNET.script_flags(170_061, &[1; 32]),
            ScriptFlags::P2SH | ScriptFlags::WITNESS | ScriptFlags::TAPROOT
        );
        let tr = MAINNET.script_flag_exceptions[1].0;
        let f = MAINNET.script_flags(692_261, &tr);
        assert!(!f.contains(ScriptFlags::TAPROOT));
        assert!(f.contains(ScriptFlags::NULLDUMMY));
    }
}
