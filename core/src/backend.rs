// SPDX-License-Identifier: MIT OR Apache-2.0
//! Backend selection.
//!
//! Three implementations of the machine-level kernels sit behind one API:
//!
//! | backend    | needs                              | where                          |
//! |------------|------------------------------------|--------------------------------|
//! | `Portable` | nothing                            | every target, including wasm32 |
//! | `Asm`      | x86-64 with BMI2 + ADX             | x86-64 only                    |
//! | `Ifma`     | x86-64 with AVX-512 F + IFMA + VL  | x86-64 only                    |
//!
//! [`Backend::detect`] runs once per process and is cached. Callers pass a `Backend` to the
//! coarse entry points (verify, batch verify, `sha256d64_many`, MSM, MuHash), which dispatch
//! once per call, never per field multiplication.
//!
//! Overrides exist for testing and benchmarking only:
//! - `FULLVERIFY_BACKEND=portable|asm|ifma` forces the detected backend (a backend the CPU
//!   cannot run is refused with a message on stderr, and detection proceeds);
//! - the `no_asm` / `no_ifma` cargo features compile the kernels but never select them;
//! - `--cfg fullverify_backend="portable"` forces Portable at compile time;
//! - `FULLVERIFY_REQUIRE_BACKENDS=asm,ifma` makes [`require_or_skip`] fail instead of skip.
//!
//! The x86-64 backends also use SHA-NI for SHA-256 kernels when the CPU has it; SHA-NI is a
//! separate CPU feature, reported by [`Cpu::sha_ni`].

use core::fmt;

pub mod portable;
#[cfg(target_arch = "x86_64")]
pub mod x86_64_asm;

/// A set of kernels. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    /// Pure Rust with `u128` products; runs everywhere.
    Portable,
    /// x86-64 assembly using MULX/ADCX/ADOX (BMI2 + ADX), and SHA-NI where present.
    Asm,
    /// AVX-512 IFMA, eight independent field elements per register.
    Ifma,
}

/// CPU features relevant to the backends, read once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cpu {
    /// BMI2 (MULX) and ADX (ADCX/ADOX).
    pub bmi2_adx: bool,
    /// AVX-512 F + IFMA + VL.
    pub avx512ifma: bool,
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

impl Backend {
    /// Every backend, in order of preference (worst first).
    pub const ALL: [Backend; 3] = [Backend::Portable, Backend::Asm, Backend::Ifma];

    /// Portable is always available.
    pub const fn portable() -> Backend {
        Backend::Portable
    }

    /// The Asm backend, if this CPU and build can run it.
    pub fn asm() -> Option<Backend> {
        Backend::Asm.is_supported().then_some(Backend::Asm)
    }

    /// The IFMA backend, if this CPU and build can run it.
    pub fn ifma() -> Option<Backend> {
        Backend::Ifma.is_supported().then_some(Backend::Ifma)
    }

    /// Whether this CPU and build can run `self`.
    pub fn is_supported(self) -> bool {
        if cfg!(fullverify_backend = "portable") {
            return self == Backend::Portable;
        }
        match self {
            Backend::Portable => true,
            Backend::Asm => cfg!(target_arch = "x86_64") && !cfg!(feature = "no_asm") && Cpu::get().bmi2_adx,
            Backend::Ifma => {
                // The IFMA kernels arrive with their own issue; until then detection reports
                // the hardware but never selects a backend that has no kernels.
                cfg!(target_arch = "x86_64")
                    && !cfg!(feature = "no_ifma")
                    && IFMA_KERNELS_PRESENT
                    && Cpu::get().avx512ifma
            }
        }
    }

    /// All backends this CPU and build can run, worst first.
    pub fn available() -> Vec<Backend> {
        Backend::ALL.iter().copied().filter(|b| b.is_supported()).collect()
    }

    /// The best available backend, or the one forced by `FULLVERIFY_BACKEND` (cached).
    pub fn detect() -> Backend {
        static DETECTED: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            if let Ok(name) = std::env::var("FULLVERIFY_BACKEND") {
                match name.parse::<Backend>() {
                    Ok(b) if b.is_supported() => return b,
                    Ok(b) => eprintln!(
                        "fullverify: FULLVERIFY_BACKEND={name}: {} is not supported here; detecting",
                        b.name()
                    ),
                    Err(e) => eprintln!("fullverify: {e}; detecting"),
                }
            }
            Backend::best()
        })
    }

    fn best() -> Backend {
        *Backend::ALL.iter().rev().find(|b| b.is_supported()).unwrap_or(&Backend::Portable)
    }

    /// Lower-case name, as accepted by `FULLVERIFY_BACKEND`.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Asm => "asm",
            Backend::Ifma => "ifma",
        }
    }

    /// The CPU features the backend needs, as `/proc/cpuinfo` names them.
    pub const fn required_flags(self) -> &'static str {
        match self {
            Backend::Portable => "",
            Backend::Asm => "bmi2 adx",
            Backend::Ifma => "avx512f avx512ifma avx512vl",
        }
    }
}

/// Whether this build contains IFMA kernels. Flipped when the IFMA backend lands.
const IFMA_KERNELS_PRESENT: bool = false;

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown backend name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBackend(pub String);

impl fmt::Display for UnknownBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown backend {:?} (expected portable, asm or ifma)", self.0)
    }
}

impl std::error::Error for UnknownBackend {}

impl core::str::FromStr for Backend {
    type Err = UnknownBackend;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "portable" => Ok(Backend::Portable),
            "asm" => Ok(Backend::Asm),
            "ifma" => Ok(Backend::Ifma),
            _ => Err(UnknownBackend(s.to_string())),
        }
    }
}

/// For backend tests: returns `Some(backend)` when it can run here. Otherwise prints
/// `SKIP <backend>: missing <flags>` and returns `None`, unless `FULLVERIFY_REQUIRE_BACKENDS`
/// names it, in which case it panics so that the skip becomes a failure.
pub fn require_or_skip(backend: Backend) -> Option<Backend> {
    if backend.is_supported() {
        return Some(backend);
    }
    let required = std::env::var("FULLVERIFY_REQUIRE_BACKENDS").unwrap_or_default();
    let must = required.split(',').filter_map(|s| s.parse::<Backend>().ok()).any(|b| b == backend);
    assert!(
        !must,
        "FULLVERIFY_REQUIRE_BACKENDS requires {backend}, but it is unavailable (needs {})",
        backend.required_flags()
    );
    eprintln!("SKIP {backend}: missing {}", backend.required_flags());
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_always_available_and_detect_is_available() {
        assert!(Backend::available().contains(&Backend::Portable));
        assert!(Backend::detect().is_supported());
        assert_eq!(Backend::portable(), Backend::Portable);
    }

    #[test]
    fn names_round_trip() {
        for b in Backend::ALL {
            assert_eq!(b.name().parse::<Backend>().unwrap(), b);
            assert_eq!(b.to_string().to_uppercase().parse::<Backend>().unwrap(), b);
        }
        assert!("avx".parse::<Backend>().is_err());
    }

    #[test]
    fn constructors_agree_with_support() {
        assert_eq!(Backend::asm().is_some(), Backend::Asm.is_supported());
        assert_eq!(Backend::ifma().is_some(), Backend::Ifma.is_supported());
        let avail = Backend::available();
        assert_eq!(*avail.last().unwrap(), Backend::best());
    }
}
