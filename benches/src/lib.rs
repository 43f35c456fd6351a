//! Benchmark and differential-harness helpers: the native oracle (the workspace's only C),
//! a zstd frame anatomy parser that names the part of a frame a byte offset falls in, the
//! native block compressor for container comparisons, interleaved ratio measurement, the
//! CI gate's logic, and generated trees.

pub mod anatomy;
pub mod gate;
pub mod measure;
pub mod native;
pub mod oracle;
pub mod rows;
pub mod trees;
