// SPDX-License-Identifier: MIT OR Apache-2.0
//! Which outputs BIP 457 calls unspendable, and the BIP 456 index of the others in a block.

use crate::chain::Network;
use crate::encode::{Block, TxOut};

/// Mainnet heights whose coinbase outputs were overwritten by a duplicate coinbase before BIP30
/// (blocks 91842 and 91880 repeat the coinbase txids of 91812 and 91722), so no input can spend
/// them.
pub const MAINNET_OVERWRITTEN_COINBASES: [u32; 2] = [91_722, 91_812];

/// Whether the script makes an output unspendable: longer than 10,000 bytes or starting with
/// `OP_RETURN` (Core's `CScript::IsUnspendable`).
pub fn is_unspendable_script(script_pubkey: &[u8]) -> bool {
    crate::script::opcodes::is_unspendable(script_pubkey)
}

/// Whether the coinbase outputs of block `height` are BIP-30 unspendable on `network`.
pub fn coinbase_overwritten(network: Network, height: u32) -> bool {
    network == Network::Mainnet && MAINNET_OVERWRITTEN_COINBASES.contains(&height)
}

/// One output that BIP 456 counts, with its index among the block's counted outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedOutput<'b> {
    /// Its index in the block's hints (0 for the first counted output).
    pub index: u32,
    /// Position of its transaction in the block (0 for the coinbase).
    pub tx: usize,
    /// Its position in the transaction's outputs.
    pub vout: u32,
    /// The output.
    pub out: &'b TxOut,
}

/// The outputs of `block` (at `height` on `network`) that BIP 456 numbers, in block order:
/// every output but the unspendable ones of BIP 457. Outputs spent later in the same block are
/// counted.
pub fn counted_outputs(
    block: &Block,
    network: Network,
    height: u32,
) -> impl Iterator<Item = CountedOutput<'_>> {
    let skip_coinbase = coinbase_overwritten(network, height);
    block
        .txdata
        .iter()
        .enumerate()
        .filter(move |(tx, _)| !(skip_coinbase && *tx == 0))
        .flat_map(|(tx, t)| t.outputs.iter().enumerate().map(move |(vout, out)| (tx, vout as u32, out)))
        .filter(|(_, _, out)| !is_unspendable_script(&out.script_pubkey))
        .enumerate()
        .map(|(index, (tx, vout, out))| CountedOutput { index: index as u32, tx, vout, out })
}
