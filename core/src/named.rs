// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`named_enum!`](crate::named_enum): the one definition of a closed set of named values
//! (networks, backends, signature modes, source kinds), so each names its values once.

/// Declares a fieldless enum whose values have names (on command lines, in packets): the enum
/// as written, with `ALL` (every value, in order), `name()`, `from_name()` and `Display`.
///
/// ```
/// fullverify::named_enum! {
///     /// A colour.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Colour {
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
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $T:ident {
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
        }

        impl ::core::fmt::Display for $T {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
