//! Benchmark and differential-harness helpers: the native oracle (the workspace's only C),
//! a zstd frame anatomy parser that names the part of a frame a byte offset falls in, the
//! native block compressor for container comparisons, interleaved ratio measurement, the
//! CI gate's logic, generated trees, sets of distinct 64 KiB blocks for decode rows, and a
//! peer crate's rows for comparison.

pub mod anatomy;
pub mod blocks;
pub mod dict_cases;
pub mod gate;
pub mod measure;
pub mod native;
pub mod oracle;
pub mod peer;
pub mod rows;
pub mod stream_cases;
pub mod train_cases;
pub mod trees;

/// The SHA-256 of `bytes` in lower-case hex (the goldens' frame hashes).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The index overflow corrections our encoder made in this run: counted with the
/// `correct-overflow-often` feature (`scripts/correct-often.sh`), 0 without it.
pub fn overflow_corrections() -> u64 {
    #[cfg(feature = "correct-overflow-often")]
    return zarkit::zstd::overflow_corrections();
    #[cfg(not(feature = "correct-overflow-often"))]
    0
}

/// With the `correct-overflow-often` feature: print [`overflow_corrections`], so that the
/// run shows it exercised them. Without the feature, nothing.
pub fn report_overflow_corrections() {
    if cfg!(feature = "correct-overflow-often") {
        println!(
            "index overflow corrections made by ours (correct-overflow-often): {}",
            overflow_corrections()
        );
    }
}
