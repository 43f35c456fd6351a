//! The zstd codec, in safe Rust.
//!
//! The encoder reproduces libzstd 1.5.7's one-shot `ZSTD_compress(src, level)` byte for byte
//! for the levels it implements; a level that is not implemented yet is a typed error
//! ([`ZstdError::UnsupportedLevel`]), never a silent fallback to another level.
//! Decoding goes through [`decode`], one facade that hides which decoder does the work.
#![forbid(unsafe_code)]

mod bits;
mod block;
pub mod decode;
mod decompress;
mod frame;
mod fse;
mod hist;
mod huf;
mod literals;
mod matcher;
pub mod params;
mod presplit;
mod seq_store;
mod sequences;
mod split;
mod window;

pub use decode::{Decoder, StreamDecoder, decompress, decompress_exact};
pub use params::{CParams, Strategy};

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
    /// The level is implemented, but not for a source of this size. Refused are: sources above
    /// [`MAX_SOURCE_SIZE`] (4 MiB); sources larger than their window `2^windowLog` (above 512 KiB
    /// at levels 1 and below, 1 MiB at level 2, 2 MiB at levels 3-8; levels 9-22 reach the
    /// 4 MiB cap first). Everything else (every level
    /// -131072..=22, the optimal parser and its post-block splitter included) is encoded.
    #[error("compression level {level} is not implemented by this encoder for {size}-byte inputs")]
    UnsupportedLevelForSize { level: i32, size: usize },
    /// The frames decode to a different number of bytes than the caller required.
    #[error("zstd data decodes to {got} bytes, expected exactly {expected}")]
    SizeMismatch { expected: usize, got: usize },
    /// The input ends inside the structure that starts at byte `at`.
    #[error("zstd data is truncated: the {what} at byte {at} runs past the end of the input")]
    Truncated { at: usize, what: &'static str },
    /// The bytes at `at` are neither a zstd frame nor a skippable frame.
    #[error("zstd data at byte {at}: not a zstd frame (magic number {magic:#010x})")]
    UnknownFrame { at: usize, magic: u32 },
    /// The frame header at `at` has its reserved bit set.
    #[error("zstd frame at byte {at}: the reserved bit of the frame header is set")]
    ReservedBit { at: usize },
    /// The frame at `at` declares a window larger than the decoder accepts.
    #[error("zstd frame at byte {at}: its window of {window} bytes is above the decoder's limit of {limit} bytes")]
    WindowTooLarge { at: usize, window: u64, limit: u64 },
    /// The frame at `at` was compressed with a dictionary, and none was given.
    #[error("zstd frame at byte {at}: it needs dictionary {dict_id}, and no dictionary was given")]
    DictionaryRequired { at: usize, dict_id: u32 },
    /// The block header at `at` has the reserved block type 3.
    #[error("zstd block at byte {at}: reserved block type 3")]
    ReservedBlockType { at: usize },
    /// The block at `at` is larger (stored or decoded) than its frame allows.
    #[error("zstd block at byte {at}: {size} bytes, above the block maximum of {max} bytes")]
    BlockTooLarge { at: usize, size: usize, max: usize },
    /// The frame at `at` decodes to another size than its header declares.
    #[error("zstd frame at byte {at}: it decodes to {got} bytes but its header declares {declared}")]
    ContentSizeMismatch { at: usize, declared: u64, got: u64 },
    /// The content checksum of the frame at `at` does not match its decoded bytes.
    #[error("zstd frame at byte {at}: content checksum does not match (stored {stored:#010x}, computed {computed:#010x})")]
    ChecksumMismatch { at: usize, stored: u32, computed: u32 },
    /// A match in the block at `at` reaches before the first byte of its frame's history.
    #[error("zstd block at byte {at}: match offset {offset} reaches before the start of the data ({available} bytes available)")]
    OffsetBeyondHistory { at: usize, offset: u64, available: u64 },
    /// An FSE or Huffman table description in the block at `at` is invalid.
    #[error("zstd block at byte {at}: invalid {table} table description ({reason})")]
    BadTable { at: usize, table: &'static str, reason: &'static str },
    /// A bitstream in the block at `at` is not consumed exactly by the symbols it holds.
    #[error("zstd block at byte {at}: the {stream} bitstream is not consumed exactly")]
    BitstreamNotConsumed { at: usize, stream: &'static str },
    /// The writer given to [`decode::decompress_to`] refused the decoded bytes.
    #[error("decoded zstd data could not be written: {source}")]
    Write {
        #[source]
        source: std::io::Error,
    },
    /// Another inconsistency in the block at `at`, described in plain words.
    #[error("zstd block at byte {at}: {reason}")]
    Malformed { at: usize, reason: &'static str },
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

/// Largest source [`Compressor`] accepts at any level. Below it, a source is also refused
/// when it is larger than its window (`2^windowLog`, which would need `enforceMaxDist`);
/// see [`ZstdError::UnsupportedLevelForSize`]. Inputs up to here were checked
/// byte-identical by the differential harness (`zstd_diff --big`).
pub const MAX_SOURCE_SIZE: usize = 4 * 1024 * 1024;

/// A reusable compression context: its tables are allocated once and reused across calls.
pub struct Compressor {
    level: i32,
    state: frame::FrameState,
}

impl std::fmt::Debug for Compressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compressor").field("level", &self.level).finish_non_exhaustive()
    }
}

impl Compressor {
    /// A context for `level`. Fails with [`ZstdError::UnsupportedLevel`] for levels the
    /// encoder does not implement.
    pub fn new(level: i32) -> Result<Self, ZstdError> {
        if !is_level_supported(level) {
            return Err(ZstdError::UnsupportedLevel { level });
        }
        Ok(Compressor { level, state: frame::FrameState::default() })
    }

    /// The level this context compresses at.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Compress `src` into one frame appended to `dst`; returns the frame's length.
    ///
    /// The frame is byte-identical to libzstd 1.5.7's `ZSTD_compress(src, level)`. Sources
    /// larger than [`MAX_SOURCE_SIZE`] or than their window are refused with
    /// [`ZstdError::UnsupportedLevelForSize`].
    pub fn compress_into(&mut self, src: &[u8], dst: &mut Vec<u8>) -> Result<usize, ZstdError> {
        let cp = params::cparams(self.level, src.len() as u64);
        if !size_supported(&cp, src.len()) {
            return Err(ZstdError::UnsupportedLevelForSize { level: self.level, size: src.len() });
        }
        let start = dst.len();
        frame::compress_frame(&mut self.state, &cp, src, dst);
        Ok(dst.len() - start)
    }
}

/// Whether a source of `len` bytes with the (adjusted) parameters `cp` is encoded
/// byte-identically: up to [`MAX_SOURCE_SIZE`], and only while the whole source fits the
/// window (no `ZSTD_window_enforceMaxDist` ever moves the low limit).
fn size_supported(cp: &CParams, len: usize) -> bool {
    len <= MAX_SOURCE_SIZE && (len as u64) <= 1u64 << cp.window_log
}

/// Highest level implemented: every level up to 22. Levels 11 to 22 select the optimal
/// parser (`btopt`, `btultra`, `btultra2`) for some sizes, with libzstd's post-block
/// splitter from 64 KiB + 1 on. Every level is implemented for every source that fits its
/// window, up to [`MAX_SOURCE_SIZE`].
pub const MAX_SUPPORTED_LEVEL: i32 = MAX_LEVEL;

/// Whether [`Compressor`] implements `level`: the negative levels, 0 (libzstd's default,
/// level 3) and 1 to 22. Some sizes may still be refused by [`Compressor::compress_into`]
/// with [`ZstdError::UnsupportedLevelForSize`] (see [`MAX_SUPPORTED_LEVEL`]).
pub fn is_level_supported(level: i32) -> bool {
    (MIN_LEVEL..=MAX_SUPPORTED_LEVEL).contains(&level)
}
