//! The zstd codec, in safe Rust.
//!
//! The encoder reproduces libzstd 1.5.7's one-shot `ZSTD_compress(src, level)` byte for byte
//! for the levels it implements; a level that is not implemented yet is a typed error
//! ([`ZstdError::UnsupportedLevel`]), never a silent fallback to another level.
//! Decoding goes through [`decode`], one facade that hides which decoder does the work.
#![forbid(unsafe_code)]

pub mod decode;

pub use decode::{Decoder, decompress, decompress_exact};

/// Errors of the zstd codec.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ZstdError {
    /// The encoder does not implement this compression level (yet).
    #[error("compression level {level} is not implemented by this encoder")]
    UnsupportedLevel { level: i32 },
    /// The input is not a valid zstd stream, or decoding it failed.
    #[error("zstd data is corrupt: {reason}")]
    Corrupt { reason: String },
    /// The frames decode to more bytes than the caller allowed.
    #[error("zstd data decodes to more than {limit} bytes")]
    TooLarge { limit: usize },
    /// The frames decode to a different number of bytes than the caller required.
    #[error("zstd data decodes to {got} bytes, expected exactly {expected}")]
    SizeMismatch { expected: usize, got: usize },
}

/// The highest compression level libzstd accepts.
pub const MAX_LEVEL: i32 = 22;
/// The lowest (fastest) compression level libzstd accepts.
pub const MIN_LEVEL: i32 = -131072;

/// Compress `src` into one zstd frame, as `ZSTD_compress(dst, ZSTD_compressBound(len), src, len, level)`.
pub fn compress(src: &[u8], level: i32) -> Result<Vec<u8>, ZstdError> {
    let mut out = Vec::new();
    Compressor::new(level)?.compress_into(src, &mut out)?;
    Ok(out)
}

/// A reusable compression context: its tables are allocated once and reused across calls.
#[derive(Debug)]
pub struct Compressor {
    level: i32,
}

impl Compressor {
    /// A context for `level`. Fails with [`ZstdError::UnsupportedLevel`] for levels the
    /// encoder does not implement.
    pub fn new(level: i32) -> Result<Self, ZstdError> {
        if !is_level_supported(level) {
            return Err(ZstdError::UnsupportedLevel { level });
        }
        Ok(Compressor { level })
    }

    /// The level this context compresses at.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Compress `src` into one frame appended to `dst`; returns the frame's length.
    pub fn compress_into(&mut self, _src: &[u8], _dst: &mut Vec<u8>) -> Result<usize, ZstdError> {
        Err(ZstdError::UnsupportedLevel { level: self.level })
    }
}

/// Whether [`Compressor`] implements `level`.
pub fn is_level_supported(_level: i32) -> bool {
    false
}
