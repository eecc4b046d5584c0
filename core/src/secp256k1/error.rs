// SPDX-License-Identifier: MIT OR Apache-2.0
//! Why an input (a key, a scalar, a signature encoding) was rejected.

/// Why an input was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input has the wrong length for its encoding.
    InvalidLength,
    /// The leading byte of a public key is not 0x02/0x03/0x04/0x06/0x07.
    InvalidPrefix,
    /// A coordinate is ≥ p (non-canonical).
    FieldOverflow,
    /// The point is not on the curve (or x has no matching y).
    NotOnCurve,
    /// A hybrid (0x06/0x07) key whose prefix disagrees with the parity of y.
    HybridParity,
    /// A scalar ≥ n.
    ScalarOverflow,
    /// A scalar that must be nonzero is zero.
    ZeroScalar,
    /// A DER signature that does not parse.
    InvalidDer,
    /// A result is the point at infinity (e.g. a tweak that cancels the key).
    Infinity,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = match self {
            Error::InvalidLength => "wrong length",
            Error::InvalidPrefix => "invalid public key prefix",
            Error::FieldOverflow => "coordinate not below p",
            Error::NotOnCurve => "point not on the curve",
            Error::HybridParity => "hybrid key prefix does not match y parity",
            Error::ScalarOverflow => "scalar not below n",
            Error::ZeroScalar => "scalar is zero",
            Error::InvalidDer => "invalid DER signature",
            Error::Infinity => "result is the point at infinity",
        };
        f.write_str(s)
    }
}

impl std::error::Error for Error {}
