//! The ZAR v1 container (`.zar` / `.wua`).

mod compressor;
pub mod format;

pub use compressor::{BlockCompressor, BlockContext, Stored, Zstd, REFERENCE_LEVEL};
