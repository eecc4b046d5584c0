// SPDX-License-Identifier: MIT OR Apache-2.0
//! Script verification flags: [`ScriptFlags`], bit-for-bit Core's `SCRIPT_VERIFY_*`
//! (script/interpreter.h), written and parsed in Core's comma notation (`"P2SH,WITNESS"`).
//! The consensus flags of a block are [`crate::chain::ChainParams::script_flags`] (Core's
//! `GetBlockScriptFlags`, with its exception blocks).
//!
//! ```
//! use fullverify::script::ScriptFlags;
//!
//! let f: ScriptFlags = "P2SH,WITNESS".parse().unwrap();
//! assert_eq!(f, ScriptFlags::P2SH | ScriptFlags::WITNESS);
//! assert!(f.contains(ScriptFlags::WITNESS) && !f.contains(ScriptFlags::TAPROOT));
//! assert_eq!(f.to_string(), "P2SH,WITNESS");
//! assert_eq!(ScriptFlags::NONE.to_string(), "NONE");
//! assert!("P2SH,NOSUCHFLAG".parse::<ScriptFlags>().is_err());
//! ```

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Sub, SubAssign};
use std::str::FromStr;

/// A set of script verification flags. Each associated constant is one of Core's
/// `SCRIPT_VERIFY_*` bits under its Core name; sets combine with `|`, `&`, `-` (difference)
/// and `!` (complement within the named flags).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct ScriptFlags(u32);

macro_rules! script_flags {
    ($($(#[$doc:meta])* $name:ident = $bit:literal,)*) => {
        impl ScriptFlags {
            $($(#[$doc])* pub const $name: ScriptFlags = ScriptFlags(1 << $bit);)*

            /// Every named flag with its Core name, in bit order (as written in the JSON
            /// vectors and by Core's `FormatScriptFlags`).
            pub const NAMED: [(&'static str, ScriptFlags); 21] =
                [$((stringify!($name), ScriptFlags::$name),)*];

            /// The union of every named flag.
            pub const ALL: ScriptFlags = ScriptFlags(0 $(| (1 << $bit))*);
        }
    };
}

script_flags! {
    /// Evaluate P2SH subscripts (BIP16).
    P2SH = 0,
    /// Strict signature and public-key encoding (hash type, DER, compressed/uncompressed keys).
    STRICTENC = 1,
    /// Strict DER signatures (BIP66).
    DERSIG = 2,
    /// S at most half the group order (BIP146); implies strict DER.
    LOW_S = 3,
    /// The CHECKMULTISIG dummy element must be empty (BIP147).
    NULLDUMMY = 4,
    /// scriptSig must be push-only (BIP62 rule 2).
    SIGPUSHONLY = 5,
    /// Pushes and numbers must use their minimal encoding (BIP62 rules 3 and 4).
    MINIMALDATA = 6,
    /// NOP1 and NOP4..NOP10 fail (reserved for soft forks).
    DISCOURAGE_UPGRADABLE_NOPS = 7,
    /// Exactly one element left on the stack (BIP62 rule 6); requires P2SH and WITNESS.
    CLEANSTACK = 8,
    /// OP_CHECKLOCKTIMEVERIFY (BIP65).
    CHECKLOCKTIMEVERIFY = 9,
    /// OP_CHECKSEQUENCEVERIFY (BIP112).
    CHECKSEQUENCEVERIFY = 10,
    /// Segregated witness (BIP141, BIP143); requires P2SH.
    WITNESS = 11,
    /// Witness versions and program sizes without rules fail (reserved for soft forks).
    DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM = 12,
    /// The OP_IF/NOTIF argument in segwit v0 must be empty or `0x01`.
    MINIMALIF = 13,
    /// A failing signature check requires every signature to be empty (BIP146).
    NULLFAIL = 14,
    /// Only compressed public keys in segwit v0.
    WITNESS_PUBKEYTYPE = 15,
    /// OP_CODESEPARATOR and FindAndDelete matches fail in pre-segwit scripts.
    CONST_SCRIPTCODE = 16,
    /// Taproot and tapscript (BIP341, BIP342).
    TAPROOT = 17,
    /// Unknown taproot leaf versions fail (reserved for soft forks).
    DISCOURAGE_UPGRADABLE_TAPROOT_VERSION = 18,
    /// OP_SUCCESSx fails (reserved for soft forks).
    DISCOURAGE_OP_SUCCESS = 19,
    /// Tapscript public keys of unknown type fail (reserved for soft forks).
    DISCOURAGE_UPGRADABLE_PUBKEYTYPE = 20,
}

impl ScriptFlags {
    /// No flags: the rules of the original script system.
    pub const NONE: ScriptFlags = ScriptFlags(0);

    /// The bits, as Core's `unsigned int flags`.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set with these bits, or `None` if a bit names no flag.
    #[inline]
    pub const fn from_bits(bits: u32) -> Option<ScriptFlags> {
        if bits & !Self::ALL.0 == 0 {
            Some(ScriptFlags(bits))
        } else {
            None
        }
    }

    /// The set with these bits, dropping those that name no flag.
    #[inline]
    pub const fn from_bits_truncate(bits: u32) -> ScriptFlags {
        ScriptFlags(bits & Self::ALL.0)
    }

    /// Whether every flag of `other` is in the set (true for an empty `other`).
    #[inline]
    pub const fn contains(self, other: ScriptFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set shares a flag with `other`.
    #[inline]
    pub const fn intersects(self, other: ScriptFlags) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of two sets (`|` usable in `const` items).
    #[inline]
    pub const fn union(self, other: ScriptFlags) -> ScriptFlags {
        ScriptFlags(self.0 | other.0)
    }

    /// Adds the flags of `other`.
    #[inline]
    pub fn insert(&mut self, other: ScriptFlags) {
        self.0 |= other.0;
    }

    /// Removes the flags of `other`.
    #[inline]
    pub fn remove(&mut self, other: ScriptFlags) {
        self.0 &= !other.0;
    }

    /// Adds or removes the flags of `other`.
    #[inline]
    pub fn set(&mut self, other: ScriptFlags, value: bool) {
        if value {
            self.insert(other)
        } else {
            self.remove(other)
        }
    }

    /// The named flags in the set, in bit order, with their names.
    pub fn iter(self) -> impl Iterator<Item = (&'static str, ScriptFlags)> {
        Self::NAMED.into_iter().filter(move |(_, f)| self.contains(*f))
    }
}

impl BitOr for ScriptFlags {
    type Output = ScriptFlags;
    #[inline]
    fn bitor(self, rhs: ScriptFlags) -> ScriptFlags {
        ScriptFlags(self.0 | rhs.0)
    }
}

impl BitOrAssign for ScriptFlags {
    #[inline]
    fn bitor_assign(&mut self, rhs: ScriptFlags) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for ScriptFlags {
    type Output = ScriptFlags;
    #[inline]
    fn bitand(self, rhs: ScriptFlags) -> ScriptFlags {
        ScriptFlags(self.0 & rhs.0)
    }
}

impl BitAndAssign for ScriptFlags {
    #[inline]
    fn bitand_assign(&mut self, rhs: ScriptFlags) {
        self.0 &= rhs.0;
    }
}

impl Sub for ScriptFlags {
    type Output = ScriptFlags;
    /// The flags of `self` not in `rhs`.
    #[inline]
    fn sub(self, rhs: ScriptFlags) -> ScriptFlags {
        ScriptFlags(self.0 & !rhs.0)
    }
}

impl SubAssign for ScriptFlags {
    #[inline]
    fn sub_assign(&mut self, rhs: ScriptFlags) {
        self.0 &= !rhs.0;
    }
}

impl Not for ScriptFlags {
    type Output = ScriptFlags;
    /// The named flags not in the set.
    #[inline]
    fn not(self) -> ScriptFlags {
        ScriptFlags(!self.0 & Self::ALL.0)
    }
}

/// Core's comma notation: `"P2SH,WITNESS"`, `"NONE"` for the empty set.
impl fmt::Display for ScriptFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("NONE");
        }
        for (i, (name, _)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl fmt::Debug for ScriptFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ScriptFlags({self})")
    }
}

/// A flag name that [`ScriptFlags::from_str`] does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseFlagsError {
    /// The unknown name, as written.
    pub name: String,
}

impl fmt::Display for ParseFlagsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown script flag {:?}", self.name)
    }
}

impl std::error::Error for ParseFlagsError {}

/// Parses Core's comma notation (`ParseScriptFlags`): names separated by commas, surrounding
/// spaces ignored; `""` and `"NONE"` are the empty set.
impl FromStr for ScriptFlags {
    type Err = ParseFlagsError;

    fn from_str(s: &str) -> Result<ScriptFlags, ParseFlagsError> {
        let mut v = ScriptFlags::NONE;
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty() && *n != "NONE") {
            match ScriptFlags::NAMED.iter().find(|(n, _)| *n == name) {
                Some((_, f)) => v |= *f,
                None => return Err(ParseFlagsError { name: name.to_string() }),
            }
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_bits_vs_core_values() {
        // SCRIPT_VERIFY_* in Core's script/interpreter.h.
        assert_eq!(ScriptFlags::P2SH.bits(), 1);
        assert_eq!(ScriptFlags::LOW_S.bits(), 8);
        assert_eq!(ScriptFlags::WITNESS.bits(), 1 << 11);
        assert_eq!(ScriptFlags::NULLFAIL.bits(), 1 << 14);
        assert_eq!(ScriptFlags::TAPROOT.bits(), 1 << 17);
        assert_eq!(ScriptFlags::DISCOURAGE_UPGRADABLE_PUBKEYTYPE.bits(), 1 << 20);
        assert_eq!(ScriptFlags::ALL.bits(), (1 << 21) - 1);
        for (i, (_, f)) in ScriptFlags::NAMED.iter().enumerate() {
            assert_eq!(f.bits(), 1 << i);
        }
    }

    #[test]
    fn flag_notation_roundtrip() {
        for bits in [0u32, 1, 0x801, 0x1f_ffff, 0x2_0a05] {
            let f = ScriptFlags::from_bits(bits).unwrap();
            assert_eq!(f.to_string().parse::<ScriptFlags>(), Ok(f), "{bits:#x}");
        }
        assert_eq!("".parse::<ScriptFlags>(), Ok(ScriptFlags::NONE));
        assert_eq!("NONE".parse::<ScriptFlags>(), Ok(ScriptFlags::NONE));
        assert_eq!(" P2SH , LOW_S".parse::<ScriptFlags>(), Ok(ScriptFlags::P2SH | ScriptFlags::LOW_S));
        let e = "P2SH,LOWS".parse::<ScriptFlags>().unwrap_err();
        assert_eq!(e.name, "LOWS");
        assert!(e.to_string().contains("LOWS"));
        assert_eq!((ScriptFlags::CLEANSTACK | ScriptFlags::P2SH).to_string(), "P2SH,CLEANSTACK");
        assert_eq!(format!("{:?}", ScriptFlags::NONE), "ScriptFlags(NONE)");
    }

    #[test]
    fn flag_set_operations() {
        assert_eq!(ScriptFlags::from_bits(1 << 21), None);
        assert_eq!(ScriptFlags::from_bits_truncate(u32::MAX), ScriptFlags::ALL);
        let mut f = ScriptFlags::P2SH | ScriptFlags::WITNESS;
        assert!(f.contains(ScriptFlags::P2SH) && f.contains(ScriptFlags::NONE));
        assert!(!f.contains(ScriptFlags::P2SH | ScriptFlags::TAPROOT));
        assert!(f.intersects(ScriptFlags::P2SH | ScriptFlags::TAPROOT));
        f.insert(ScriptFlags::TAPROOT);
        f.remove(ScriptFlags::WITNESS);
        assert_eq!(f, ScriptFlags::P2SH | ScriptFlags::TAPROOT);
        assert_eq!(f - ScriptFlags::P2SH, ScriptFlags::TAPROOT);
        assert_eq!(f & ScriptFlags::TAPROOT, ScriptFlags::TAPROOT);
        assert_eq!(!ScriptFlags::ALL, ScriptFlags::NONE);
        assert_eq!(!f | f, ScriptFlags::ALL);
    }
}
