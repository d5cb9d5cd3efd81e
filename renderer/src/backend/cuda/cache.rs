//! The compiled-kernel disk cache, so that a second start does not run NVRTC again.
//!
//! One CUBIN (and its compile log) per key; the key hashes everything that changes
//! the machine code: sources, NVRTC options (architecture included), NVRTC version
//! and driver version. Files are written to a temporary name and renamed, so a
//! crash or a concurrent start never leaves half a file. Cache trouble is never an
//! error: the kernels are compiled instead.

use std::io;
use std::path::{Path, PathBuf};

use scene_compiler::files::write_atomic;

use super::sources::KernelSources;

/// Bumped when the cached file format or the key's contents change.
const CACHE_FORMAT: &str = "renderer-kernel-cache-1";

/// What identifies one compiled module.
pub struct CacheKey(u64);

impl CacheKey {
    /// The key of `sources` compiled with `options` by NVRTC `nvrtc_version` for a
    /// driver of `driver_version` (cuDriverGetVersion).
    pub fn new(
        sources: &KernelSources,
        options: &[String],
        nvrtc_version: (i32, i32),
        driver_version: i32,
    ) -> CacheKey {
        let mut hash = Fnv1a::new();
        hash.field(CACHE_FORMAT.as_bytes());
        for file in &sources.files {
            hash.field(file.name.as_bytes());
            hash.field(file.text.as_bytes());
        }
        for option in options {
            hash.field(option.as_bytes());
        }
        hash.field(&nvrtc_version.0.to_le_bytes());
        hash.field(&nvrtc_version.1.to_le_bytes());
        hash.field(&driver_version.to_le_bytes());
        CacheKey(hash.0)
    }

    fn path(&self, dir: &Path, extension: &str) -> PathBuf {
        dir.join(format!("render-{:016x}.{extension}", self.0))
    }
}

/// A cached CUBIN and its compile log, if present and readable.
pub fn load(dir: &Path, key: &CacheKey) -> Option<(Vec<u8>, String)> {
    let image = std::fs::read(key.path(dir, "cubin")).ok().filter(|i| !i.is_empty())?;
    let log = std::fs::read_to_string(key.path(dir, "log")).unwrap_or_default();
    Some((image, log))
}

/// Stores a CUBIN and its log under `key`.
pub fn store(dir: &Path, key: &CacheKey, image: &[u8], log: &str) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    // The log first: a reader only looks for it once the CUBIN exists.
    write_atomic(&key.path(dir, "log"), log.as_bytes())?;
    write_atomic(&key.path(dir, "cubin"), image)
}

/// 64-bit FNV-1a: stable across Rust versions and platforms (std's hashers are not
/// promised to be), and plenty against accidental collisions of a few cache files.
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `bytes` with its length first, so that field boundaries matter.
    fn field(&mut self, bytes: &[u8]) {
        for &b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_changes_with_any_input_and_round_trips() {
        let sources = KernelSources::embedded();
        let options = vec!["--gpu-architecture=sm_90".to_owned()];
        let base = CacheKey::new(&sources, &options, (12, 9), 13000).0;
        assert_eq!(base, CacheKey::new(&sources, &options, (12, 9), 13000).0);
        assert_ne!(base, CacheKey::new(&sources, &options, (13, 0), 13000).0);
        assert_ne!(base, CacheKey::new(&sources, &options, (12, 9), 12080).0);
        assert_ne!(base, CacheKey::new(&sources, &["--gpu-architecture=sm_86".to_owned()], (12, 9), 13000).0);
        let mut edited = sources.clone();
        edited.files[1].text.push(' ');
        assert_ne!(base, CacheKey::new(&edited, &options, (12, 9), 13000).0);

        let dir = tempfile::tempdir().unwrap();
        let key = CacheKey(base);
        assert!(load(dir.path(), &key).is_none());
        store(&dir.path().join("nested"), &key, b"cubin", "log").unwrap();
        assert_eq!(load(&dir.path().join("nested"), &key), Some((b"cubin".to_vec(), "log".to_owned())));
    }
}
