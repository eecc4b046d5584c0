// SPDX-License-Identifier: MIT OR Apache-2.0
//! The tags Bitcoin consensus uses, each with its midstate computed once per process.

use super::sha256::TaggedHash;

macro_rules! tags {
    ($($(#[$doc:meta])* $fn:ident => $tag:literal;)*) => {$(
        $(#[$doc])*
        pub fn $fn() -> &'static TaggedHash {
            static T: std::sync::OnceLock<TaggedHash> = std::sync::OnceLock::new();
            T.get_or_init(|| TaggedHash::new($tag))
        }
    )*};
}

tags! {
    /// `BIP0340/challenge`: e = H(R.x || P.x || m).
    bip340_challenge => b"BIP0340/challenge";
    /// `BIP0340/aux`: masks the secret key with auxiliary randomness.
    bip340_aux => b"BIP0340/aux";
    /// `BIP0340/nonce`: the signing nonce.
    bip340_nonce => b"BIP0340/nonce";
    /// `TapLeaf`: a tapscript leaf hash.
    tap_leaf => b"TapLeaf";
    /// `TapBranch`: an inner node of the script tree.
    tap_branch => b"TapBranch";
    /// `TapTweak`: the output key tweak.
    tap_tweak => b"TapTweak";
    /// `TapSighash`: the BIP341 signature message hash.
    tap_sighash => b"TapSighash";
}
