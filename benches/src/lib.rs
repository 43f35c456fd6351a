//! Benchmark and differential-harness helpers: the native oracle (the workspace's only C)
//! and a zstd frame anatomy parser that names the part of a frame a byte offset falls in.

pub mod anatomy;
pub mod oracle;
