// SPDX-License-Identifier: MIT OR Apache-2.0
//! Backend selection.
//!
//! Four implementations of the machine-level kernels sit behind one API:
//!
//! | backend    | needs                              | where                          |
//! |------------|------------------------------------|--------------------------------|
//! | `Portable` | nothing                            | every target, including wasm32 |
//! | `Asm`      | x86-64 with BMI2 + ADX             | x86-64 only                    |
//! | `Avx2`     | x86-64 with AVX2 + BMI2 + ADX      | x86-64 only                    |
//! | `Ifma`     | x86-64 with AVX-512 F + IFMA + VL  | x86-64 only                    |
//!
//! Two types name them:
//!
//! - [`BackendKind`] is the plain name of a backend. Any code can hold any kind; it grants
//!   nothing.
//! - [`Backend`] is a *capability token*: a value proves that this CPU and build can run the
//!   backend it names. Its field is private, so the only ways to get one are
//!   [`Backend::portable`], [`Backend::detect`], [`Backend::asm`] / [`Backend::avx2`] /
//!   [`Backend::ifma`] (which return `None` when unsupported), [`Backend::available`],
//!   `Backend::try_from(kind)` and `str::parse::<Backend>()` (which check support and return a
//!   [`BackendError`] otherwise).
//!
//! Every public entry point that runs backend-specific code takes a `Backend` (or calls
//! [`Backend::detect`]) and dispatches on it once per call, never per field multiplication.
//! The backend kernels and every function generic over them are private to the crate, so code
//! outside the crate reaches an instruction such as MULX only through a token that checked
//! the CPU first.
//!
//! ```compile_fail
//! // A token cannot be written as a struct literal: its field is private.
//! let b = fullverify::Backend { kind: fullverify::backend::BackendKind::Asm };
//! ```
//!
//! ```compile_fail
//! // The Asm field kernels are not part of the public API.
//! use fullverify::backend::x86_64_asm::field::Fe4x64Asm;
//! ```
//!
//! ```compile_fail
//! // Nor is the verification code generic over them.
//! use fullverify::secp256k1::ecdsa::verify_generic;
//! ```
//!
//! ```
//! use fullverify::backend::{Backend, BackendKind};
//!
//! let best = Backend::detect();
//! assert!(best.kind().is_supported());
//! assert_eq!(Backend::portable().kind(), BackendKind::Portable);
//! // A token for Asm exists exactly when the CPU has BMI2 and ADX (and the build allows it).
//! assert_eq!(Backend::asm().is_some(), BackendKind::Asm.is_supported());
//! assert_eq!("asm".parse::<Backend>().is_ok(), BackendKind::Asm.is_supported());
//! ```
//!
//! Overrides exist for testing and benchmarking only:
//! - `FULLVERIFY_BACKEND=portable|asm|avx2|ifma` forces the detected backend (a backend the
//!   CPU cannot run is refused with a message on stderr, and detection proceeds);
//! - the `no_asm` / `no_avx2` / `no_ifma` cargo features compile the kernels but never select
//!   them;
//! - `--cfg fullverify_backend="portable"` forces Portable at compile time;
//! - `FULLVERIFY_REQUIRE_BACKENDS=asm,avx2,ifma` makes [`require_or_skip`] fail instead of skip.
//!
//! The x86-64 backends also use SHA-NI for SHA-256 kernels when the CPU has it; SHA-NI is a
//! separate CPU feature, reported by [`Cpu::sha_ni`], and the SHA-NI kernel checks it itself
//! before every use.

use core::fmt;

// Off x86-64 only the tests run the AVX2 kernels (on the portable model).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod avx2;
pub(crate) mod field;
// Off x86-64 only the tests and `field_chain_x8_with` run the eight-lane kernels (on the
// portable model).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod ifma;
pub(crate) mod limbs;
pub(crate) mod portable;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_asm;

crate::named_enum! {
    /// The name of a backend. It grants nothing: to run a backend, get a [`Backend`] token.
    /// [`BackendKind::ALL`] lists them in order of preference (worst first); the names are
    /// those `FULLVERIFY_BACKEND` and [`str::parse`] accept.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum BackendKind as "backend" custom_from_str {
        /// Pure Rust with `u128` products; runs everywhere.
        Portable => "portable",
        /// x86-64 assembly using MULX/ADCX/ADOX (BMI2 + ADX), and SHA-NI where present.
        Asm => "asm",
        /// AVX2, eight field elements in two four-lane registers: the eight-way ECDSA and
        /// BIP340 verification of `verify_many` and bulk key parsing, on CPUs without AVX-512
        /// IFMA. Everything else runs as on Asm: the Asm field (the backend needs BMI2+ADX
        /// too) and SHA-NI where present. Listed after Asm, so detection prefers it on a CPU
        /// with AVX2 but no IFMA: there `verify_many` is faster than the Asm verifier one by
        /// one (1.3–1.6× in `ifmabench`) and nothing else differs.
        Avx2 => "avx2",
        /// AVX-512 IFMA, eight independent field elements per register: eight-way ECDSA and
        /// BIP340 verification (`verify_many`) and MuHash's 3072-bit multiplication. Work with
        /// no eight-way kernel (a single verification, key parsing) runs on the Asm field when
        /// the CPU has BMI2+ADX, else on Portable.
        Ifma => "ifma",
    }
}

/// A backend this CPU and build can run: a capability token (see the module documentation).
///
/// The field is private; values come only from the constructors, which check the CPU.
/// Entry points that take a `Backend` may therefore run its kernels without checking again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Backend {
    kind: BackendKind,
}

/// CPU features relevant to the backends, read once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cpu {
    /// BMI2 (MULX) and ADX (ADCX/ADOX).
    pub bmi2_adx: bool,
    /// AVX-512 F + IFMA + VL.
    pub avx512ifma: bool,
    /// AVX2.
    pub avx2: bool,
    /// SHA extensions (SHA256RNDS2, SHA256MSG1/2) plus SSE4.1.
    pub sha_ni: bool,
}

impl Cpu {
    /// The features of the CPU this process runs on (cached).
    pub fn get() -> Cpu {
        #[cfg(target_arch = "x86_64")]
        {
            static CPU: std::sync::OnceLock<Cpu> = std::sync::OnceLock::new();
            *CPU.get_or_init(|| Cpu {
                bmi2_adx: std::arch::is_x86_feature_detected!("bmi2")
                    && std::arch::is_x86_feature_detected!("adx"),
                avx512ifma: std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512ifma")
                    && std::arch::is_x86_feature_detected!("avx512vl"),
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                sha_ni: std::arch::is_x86_feature_detected!("sha")
                    && std::arch::is_x86_feature_detected!("sse4.1"),
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Cpu::default()
        }
    }
}

/// Whether this build contains IFMA kernels.
const IFMA_KERNELS_PRESENT: bool = true;

impl BackendKind {
    /// Whether this CPU and build can run the backend.
    pub fn is_supported(self) -> bool {
        if cfg!(fullverify_backend = "portable") {
            return self == BackendKind::Portable;
        }
        match self {
            BackendKind::Portable => true,
            BackendKind::Asm => {
                cfg!(target_arch = "x86_64") && !cfg!(feature = "no_asm") && Cpu::get().bmi2_adx
            }
            BackendKind::Avx2 => {
                cfg!(target_arch = "x86_64")
                    && !cfg!(feature = "no_avx2")
                    && Cpu::get().avx2
                    && Cpu::get().bmi2_adx
            }
            BackendKind::Ifma => {
                // Detection reports the hardware but never selects a backend without kernels.
                cfg!(target_arch = "x86_64")
                    && !cfg!(feature = "no_ifma")
                    && IFMA_KERNELS_PRESENT
                    && Cpu::get().avx512ifma
            }
        }
    }

    /// The CPU features the backend needs, as `/proc/cpuinfo` names them (empty for Portable).
    pub const fn required_flags(self) -> &'static str {
        match self {
            BackendKind::Portable => "",
            BackendKind::Asm => "bmi2 adx",
            BackendKind::Avx2 => "avx2 bmi2 adx",
            BackendKind::Ifma => "avx512f avx512ifma avx512vl",
        }
    }
}

impl core::str::FromStr for BackendKind {
    type Err = BackendError;
    /// Case-insensitive; surrounding white space is ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BackendKind::from_name(&s.trim().to_ascii_lowercase())
            .ok_or_else(|| BackendError::Unknown(s.to_string()))
    }
}

impl Backend {
    /// The Portable backend, which every CPU and build can run.
    pub const fn portable() -> Backend {
        Backend { kind: BackendKind::Portable }
    }

    /// The Asm backend, if this CPU and build can run it.
    pub fn asm() -> Option<Backend> {
        Backend::try_from(BackendKind::Asm).ok()
    }

    /// The AVX2 backend, if this CPU and build can run it.
    pub fn avx2() -> Option<Backend> {
        Backend::try_from(BackendKind::Avx2).ok()
    }

    /// The IFMA backend, if this CPU and build can run it.
    pub fn ifma() -> Option<Backend> {
        Backend::try_from(BackendKind::Ifma).ok()
    }

    /// Which backend this token is for.
    pub const fn kind(self) -> BackendKind {
        self.kind
    }

    /// Lower-case name of the backend (as [`BackendKind::name`]).
    pub const fn name(self) -> &'static str {
        self.kind.name()
    }

    /// Every backend this CPU and build can run, worst first (Portable is always first).
    pub fn available() -> Vec<Backend> {
        BackendKind::ALL.iter().filter_map(|&k| Backend::try_from(k).ok()).collect()
    }

    /// The best available backend, or the one forced by `FULLVERIFY_BACKEND` (cached).
    pub fn detect() -> Backend {
        static DETECTED: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            if let Ok(name) = std::env::var("FULLVERIFY_BACKEND") {
                match name.parse::<Backend>() {
                    Ok(b) => return b,
                    Err(e) => eprintln!("fullverify: FULLVERIFY_BACKEND={name}: {e}; detecting"),
                }
            }
            Backend::best()
        })
    }

    fn best() -> Backend {
        BackendKind::ALL.iter().rev().find_map(|&k| Backend::try_from(k).ok()).unwrap_or(Backend::portable())
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<BackendKind> for Backend {
    type Error = BackendError;
    /// The token for `kind`, or [`BackendError::Unsupported`] when this CPU or build cannot
    /// run it.
    fn try_from(kind: BackendKind) -> Result<Backend, BackendError> {
        if kind.is_supported() {
            Ok(Backend { kind })
        } else {
            Err(BackendError::Unsupported(kind))
        }
    }
}

impl core::str::FromStr for Backend {
    type Err = BackendError;
    /// Parses a name as [`BackendKind`] does, then checks support as `Backend::try_from`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Backend::try_from(s.parse::<BackendKind>()?)
    }
}

impl From<Backend> for BackendKind {
    fn from(b: Backend) -> BackendKind {
        b.kind
    }
}

/// Why a backend name or kind did not give a [`Backend`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendError {
    /// The name is none of `portable`, `asm`, `avx2`, `ifma` (the string as given).
    Unknown(String),
    /// The backend exists but this CPU or build cannot run it.
    Unsupported(BackendKind),
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendError::Unknown(s) => {
                write!(f, "unknown backend {s:?} (expected portable, asm, avx2 or ifma)")
            }
            BackendError::Unsupported(BackendKind::Ifma) if !IFMA_KERNELS_PRESENT => {
                write!(f, "backend ifma is not available: this build has no IFMA kernels")
            }
            BackendError::Unsupported(k) => {
                write!(f, "backend {k} is not available on this CPU (needs {})", k.required_flags())
            }
        }
    }
}

impl std::error::Error for BackendError {}

/// For backend tests: returns the token when `kind` can run here. Otherwise prints
/// `SKIP <backend>: missing <flags>` and returns `None`, unless `FULLVERIFY_REQUIRE_BACKENDS`
/// (a comma-separated list of names) names it, in which case it panics so that the skip
/// becomes a failure.
pub fn require_or_skip(kind: BackendKind) -> Option<Backend> {
    if let Ok(b) = Backend::try_from(kind) {
        return Some(b);
    }
    let required = std::env::var("FULLVERIFY_REQUIRE_BACKENDS").unwrap_or_default();
    let must = required.split(',').filter_map(|s| s.parse::<BackendKind>().ok()).any(|k| k == kind);
    assert!(
        !must,
        "FULLVERIFY_REQUIRE_BACKENDS requires {kind}, but it is unavailable (needs {})",
        kind.required_flags()
    );
    eprintln!("SKIP {kind}: missing {}", kind.required_flags());
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_always_available_and_detect_is_available() {
        assert_eq!(Backend::available()[0], Backend::portable());
        assert!(Backend::detect().kind().is_supported());
        assert_eq!(Backend::portable().kind(), BackendKind::Portable);
    }

    #[test]
    fn names_round_trip() {
        for k in BackendKind::ALL {
            assert_eq!(k.name().parse::<BackendKind>().unwrap(), k);
            assert_eq!(k.to_string().to_uppercase().parse::<BackendKind>().unwrap(), k);
            match k.name().parse::<Backend>() {
                Ok(b) => assert_eq!(b.kind(), k),
                Err(e) => assert_eq!(e, BackendError::Unsupported(k)),
            }
        }
        assert_eq!("avx".parse::<BackendKind>(), Err(BackendError::Unknown("avx".into())));
        assert_eq!("avx".parse::<Backend>(), Err(BackendError::Unknown("avx".into())));
    }

    #[test]
    fn constructors_agree_with_support() {
        assert_eq!(Backend::asm().is_some(), BackendKind::Asm.is_supported());
        assert_eq!(Backend::avx2().is_some(), BackendKind::Avx2.is_supported());
        assert_eq!(Backend::ifma().is_some(), BackendKind::Ifma.is_supported());
        for k in BackendKind::ALL {
            assert_eq!(Backend::try_from(k).is_ok(), k.is_supported(), "{k}");
        }
        let avail = Backend::available();
        let kinds: Vec<BackendKind> = avail.iter().map(|b| b.kind()).collect();
        let want: Vec<BackendKind> = BackendKind::ALL.into_iter().filter(|k| k.is_supported()).collect();
        assert_eq!(kinds, want);
        assert_eq!(*avail.last().unwrap(), Backend::best());
    }

    #[test]
    fn detection_prefers_ifma_then_avx2_then_asm() {
        let want = [BackendKind::Ifma, BackendKind::Avx2, BackendKind::Asm, BackendKind::Portable]
            .into_iter()
            .find(|k| k.is_supported())
            .unwrap();
        assert_eq!(Backend::best().kind(), want);
    }

    #[test]
    fn ifma_is_never_selected_without_kernels() {
        if !IFMA_KERNELS_PRESENT {
            assert!(!BackendKind::Ifma.is_supported());
            assert!(Backend::ifma().is_none());
            assert!(Backend::available().iter().all(|b| b.kind() != BackendKind::Ifma));
        }
    }
}
