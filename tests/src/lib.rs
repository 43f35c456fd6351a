//! Shared helpers for the integration tests: fixture locations, hashing, manifests.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The fixtures folder shipped in this repository (`tests/fixtures`).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A ZAR fixture by relative path, e.g. `zar("basic/reference.zar")`.
pub fn zar(rel: &str) -> PathBuf {
    fixtures().join("zar").join(rel)
}

/// SHA-256 of `data` as lower-case hex.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// One line of a fixture manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestEntry {
    /// `file <offset> <size> <sha256> <path>`
    File { offset: u64, size: u64, sha256: String, path: String },
    /// `dir <path>/`
    Dir { path: String },
}

/// Parse a fixture manifest (see tests/fixtures/zar/README.md).
pub fn manifest(rel: &str) -> Vec<ManifestEntry> {
    let text = std::fs::read_to_string(zar(rel)).expect("manifest");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            if let Some(rest) = l.strip_prefix("dir ") {
                let path = rest.split("/ ").next().unwrap_or(rest).trim_end_matches('/').to_string();
                ManifestEntry::Dir { path }
            } else {
                let mut it = l.splitn(5, ' ');
                let _ = it.next();
                let offset = it.next().unwrap().parse().unwrap();
                let size = it.next().unwrap().parse().unwrap();
                let sha256 = it.next().unwrap().to_string();
                let path = it.next().unwrap().to_string();
                ManifestEntry::File { offset, size, sha256, path }
            }
        })
        .collect()
}

/// Copy the directory tree `src` into `dst` (created), byte for byte.
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A private copy of `basic/tree` with its empty directory restored (git does not keep it).
pub fn basic_tree_copy(dir: &Path) -> PathBuf {
    let t = dir.join("tree");
    copy_tree(&zar("basic/tree"), &t);
    std::fs::create_dir_all(t.join("emptydir")).unwrap();
    t
}
