// SPDX-License-Identifier: MIT OR Apache-2.0
//! A small tmpfs for the storage-fault tests: a disk that fills up, or is remounted read-only.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A tmpfs mounted at a directory for the life of the value (root only). Dropping it unmounts
/// the directory lazily, so a store a test leaves open does not keep it mounted.
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount`'s form: `2m`, `64m`) at `dir`, creating `dir`; `None`,
    /// with a line naming `what` is skipped, where mounting is not allowed.
    pub fn mount(dir: &Path, size: &str, what: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|st| st.success());
        if !ok {
            eprintln!("SKIP {what}: cannot mount a tmpfs at {} (needs root)", dir.display());
            return None;
        }
        Some(Tmpfs(dir.to_path_buf()))
    }

    /// The mounted directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Remounts with `how` (`ro`, `rw`).
    pub fn remount(&self, how: &str) {
        let st = Command::new("mount").args(["-o", &format!("remount,{how}")]).arg(&self.0).status().unwrap();
        assert!(st.success(), "remount {how}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}
