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
    /// The level is implemented, but not for a source of this size: above
    /// [`max_source_size`] (64 MiB at level 22, where libzstd turns on long-distance
    /// matching; [`MAX_SOURCE_SIZE`] where index overflow correction is not checked).
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
    #[error(
        "zstd frame at byte {at}: its window of {window} bytes is above the decoder's limit of {limit} bytes"
    )]
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
    #[error(
        "zstd frame at byte {at}: it decodes to {got} bytes but its header declares {declared}"
    )]
    ContentSizeMismatch { at: usize, declared: u64, got: u64 },
    /// The content checksum of the frame at `at` does not match its decoded bytes.
    #[error(
        "zstd frame at byte {at}: content checksum does not match (stored {stored:#010x}, computed {computed:#010x})"
    )]
    ChecksumMismatch {
        at: usize,
        stored: u32,
        computed: u32,
    },
    /// A match in the block at `at` reaches before the first byte of its frame's history.
    #[error(
        "zstd block at byte {at}: match offset {offset} reaches before the start of the data ({available} bytes available)"
    )]
    OffsetBeyondHistory {
        at: usize,
        offset: u64,
        available: u64,
    },
    /// An FSE or Huffman table description in the block at `at` is invalid.
    #[error("zstd block at byte {at}: invalid {table} table description ({reason})")]
    BadTable {
        at: usize,
        table: &'static str,
        reason: &'static str,
    },
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

/// Largest source [`Compressor`] accepts at every level but 22 (see [`max_source_size`]):
/// up to here libzstd never corrects (rebases) its `u32` window indices, which it does once a
/// block would end beyond index 3500 MiB (`ZSTD_CURRENT_MAX`, `ZSTD_overflowCorrectIfNeeded`).
/// The margin covers the start index and btultra2's first-block shift. Larger sources are
/// accepted at the levels whose strategy was checked through a correction.
pub const MAX_SOURCE_SIZE: usize = (window::CURRENT_MAX
    - window::WINDOW_START_INDEX as u64
    - block::BLOCK_SIZE_MAX as u64) as usize;

/// Largest source libzstd compresses at level 22 without long-distance matching: above it
/// the window is `2^27` and `ZSTD_resolveEnableLdm` turns LDM on (strategy >= btopt and
/// windowLog >= 27), which this encoder does not implement.
const LDM_FREE_SOURCE_SIZE: usize = 1 << 26;
/// `ZSTD_resolveEnableLdm`: windowLog from which btopt and above enable LDM.
const LDM_MIN_WINDOW_LOG: u32 = 27;
/// Strategies whose frames were checked byte-identical through an index overflow correction
/// (`zstd_diff --huge --sizes 3501M+1` at levels -5, 1, 3, 5, 6 and 8); the others
/// (btlazy2 and the optimal parser, too slow to check that far so far) are refused above
/// [`MAX_SOURCE_SIZE`].
const OVERFLOW_CORRECTION_CHECKED: &[Strategy] = &[
    Strategy::Fast,
    Strategy::DFast,
    Strategy::Greedy,
    Strategy::Lazy,
    Strategy::Lazy2,
];

/// Largest source [`Compressor::compress_into`] accepts at `level`: unlimited where the
/// index overflow correction was checked, else [`MAX_SOURCE_SIZE`]; 64 MiB at level 22.
/// Larger sources are refused with [`ZstdError::UnsupportedLevelForSize`]. Zero for a level
/// that is not implemented.
pub fn max_source_size(level: i32) -> usize {
    if !is_level_supported(level) {
        return 0;
    }
    // Every source above 256 KiB uses the same row; above 1 GiB the window is not shrunk.
    let cp = params::cparams(level, MAX_SOURCE_SIZE as u64);
    if uses_ldm(&cp) {
        LDM_FREE_SOURCE_SIZE
    } else if OVERFLOW_CORRECTION_CHECKED.contains(&cp.strategy) {
        usize::MAX
    } else {
        MAX_SOURCE_SIZE
    }
}

/// Mirrors ZSTD_resolveEnableLdm for default (auto) parameters.
fn uses_ldm(cp: &CParams) -> bool {
    cp.strategy >= Strategy::BtOpt && cp.window_log >= LDM_MIN_WINDOW_LOG
}

/// A reusable compression context: its tables are allocated once and reused across calls.
pub struct Compressor {
    level: i32,
    state: frame::FrameState,
}

impl std::fmt::Debug for Compressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compressor")
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

impl Compressor {
    /// A context for `level`. Fails with [`ZstdError::UnsupportedLevel`] for levels the
    /// encoder does not implement.
    pub fn new(level: i32) -> Result<Self, ZstdError> {
        if !is_level_supported(level) {
            return Err(ZstdError::UnsupportedLevel { level });
        }
        Ok(Compressor {
            level,
            state: frame::FrameState::default(),
        })
    }

    /// The level this context compresses at.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Compress `src` into one frame appended to `dst`; returns the frame's length.
    ///
    /// The frame is byte-identical to libzstd 1.5.7's `ZSTD_compress(src, level)`. Sources
    /// larger than [`max_source_size`] are refused with
    /// [`ZstdError::UnsupportedLevelForSize`].
    pub fn compress_into(&mut self, src: &[u8], dst: &mut Vec<u8>) -> Result<usize, ZstdError> {
        let cp = params::cparams(self.level, src.len() as u64);
        if !size_supported(&cp, src.len()) {
            return Err(ZstdError::UnsupportedLevelForSize {
                level: self.level,
                size: src.len(),
            });
        }
        let start = dst.len();
        frame::compress_frame(&mut self.state, &cp, src, dst);
        Ok(dst.len() - start)
    }
}

/// Whether a source of `len` bytes with the (adjusted) parameters `cp` is encoded
/// byte-identically (see [`max_source_size`]): the window slides past `2^windowLog` as in
/// libzstd at every size; indices are corrected only for the strategies checked that far;
/// long-distance matching is not implemented.
fn size_supported(cp: &CParams, len: usize) -> bool {
    !uses_ldm(cp) && (len <= MAX_SOURCE_SIZE || OVERFLOW_CORRECTION_CHECKED.contains(&cp.strategy))
}

/// Highest level implemented: every level up to 22. Levels 11 to 22 select the optimal
/// parser (`btopt`, `btultra`, `btultra2`) for some sizes, with libzstd's post-block
/// splitter from 64 KiB + 1 on. Every level is implemented for every source up to
/// [`max_source_size`].
pub const MAX_SUPPORTED_LEVEL: i32 = MAX_LEVEL;

/// Whether [`Compressor`] implements `level`: the negative levels, 0 (libzstd's default,
/// level 3) and 1 to 22. Some sizes may still be refused by [`Compressor::compress_into`]
/// with [`ZstdError::UnsupportedLevelForSize`] (see [`MAX_SUPPORTED_LEVEL`]).
pub fn is_level_supported(level: i32) -> bool {
    (MIN_LEVEL..=MAX_SUPPORTED_LEVEL).contains(&level)
}
