// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`named_enum!`](crate::named_enum): the one definition of a closed set of named values
//! (networks, backends, signature modes, source kinds), so each names its values once, and
//! [`UnknownName`], the error of a name that is none of them.

use std::fmt;

/// A name that is none of a set's (see [`named_enum!`](crate::named_enum)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What the set names (`"network"`, `"signature mode"`, …).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The names there are.
    pub names: &'static [&'static str],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {:?} ({})", self.what, self.name, self.names.join(", "))
    }
}

impl std::error::Error for UnknownName {}

/// Declares a fieldless enum whose values have names (on command lines, in packets): the enum
/// as written, with `ALL` (every value, in order), `NAMES`, `name()`, `from_name()`,
/// `Display`, and `FromStr` for the exact names, failing with [`UnknownName`] (a set that
/// accepts other spellings writes its own `FromStr` and says `custom_from_str`).
///
/// ```
/// fullverify::named_enum! {
///     /// A colour.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Colour as "colour" {
///         /// Red.
///         Red => "red",
///         /// Dark blue.
///         DarkBlue => "dark-blue",
///     }
/// }
/// assert_eq!(Colour::ALL, [Colour::Red, Colour::DarkBlue]);
/// assert_eq!(Colour::DarkBlue.to_string(), "dark-blue");
/// assert_eq!(Colour::from_name("red"), Some(Colour::Red));
/// assert_eq!(Colour::from_name("Red"), None);
/// assert_eq!(
///     "Red".parse::<Colour>().unwrap_err().to_string(),
///     r#"unknown colour "Red" (red, dark-blue)"#
/// );
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $T:ident as $what:literal {
            $($(#[$vmeta:meta])* $V:ident => $name:literal,)+
        }
    ) => {
        $crate::named_enum! {
            $(#[$meta])*
            $vis enum $T as $what custom_from_str {
                $($(#[$vmeta])* $V => $name,)+
            }
        }

        impl ::core::str::FromStr for $T {
            type Err = $crate::UnknownName;

            fn from_str(s: &str) -> Result<$T, $crate::UnknownName> {
                $T::parse_name(s)
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $T:ident as $what:literal custom_from_str {
            $($(#[$vmeta:meta])* $V:ident => $name:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $T {
            $($(#[$vmeta])* $V,)+
        }

        impl $T {
            /// Every value, in declaration order.
            pub const ALL: [$T; [$($name),+].len()] = [$($T::$V),+];

            /// Every value's name, in declaration order.
            pub const NAMES: [&'static str; [$($name),+].len()] = [$($name),+];

            /// The value's name (command lines, result packets).
            pub const fn name(self) -> &'static str {
                match self {
                    $($T::$V => $name,)+
                }
            }

            /// The value named exactly `s`.
            pub fn from_name(s: &str) -> Option<$T> {
                $T::ALL.into_iter().find(|v| v.name() == s)
            }

            /// The value named exactly `s`, or the error that lists the names.
            pub fn parse_name(s: &str) -> Result<$T, $crate::UnknownName> {
                $T::from_name(s).ok_or_else(|| $crate::UnknownName {
                    what: $what,
                    name: s.to_string(),
                    names: &$T::NAMES,
                })
            }
        }

        impl ::core::fmt::Display for $T {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
