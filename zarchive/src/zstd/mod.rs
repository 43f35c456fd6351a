//! The zstd codec, in safe Rust.
//!
//! The encoder reproduces libzstd 1.5.7's one-shot `ZSTD_compress(src, level)` byte for byte
//! at every level from -131072 to 22 and for inputs of any size, with or without a
//! dictionary; a level outside that range is a typed error ([`ZstdError::UnsupportedLevel`]),
//! never a silent fallback to another level.
//! Decoding goes through [`decode`] (our decoder, with or without a [`DecoderDictionary`]).
//!
//! The code is laid out like libzstd's `lib/`: `common` (the format's constants and sequence
//! codes, shared), `compress` (the encoder) and `decompress` (the decoder).
#![forbid(unsafe_code)]

mod common;
mod compress;
pub mod decode;
mod decompress;
mod dispatch;
mod encode;
mod error;
mod train;

/// A xorshift64 generator for tests: `seed` must not be 0.
#[cfg(test)]
pub(crate) fn test_rng(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

use common::kept;
use compress::frame;
pub use compress::matcher::source::PaddedBlock;
pub use compress::params;

pub use decode::{
    BLOCK_SLACK, Decoder, DecoderDictionary, StreamDecoder, decompress, decompress_exact,
    decompress_to, frame_dictionary_id,
};
#[doc(hidden)]
pub use dispatch::portable_only;
pub use encode::{Encoder, StreamEncoder};
pub use error::ZstdError;
pub use params::{CParams, Strategy};
pub use train::{
    DEFAULT_DICTIONARY_SIZE, DICTIONARY_MAGIC, FinalizeOptions, MIN_DICTIONARY_SIZE,
    finalize_dictionary, shuffle_like_zstd, train_dictionary,
};

/// The highest compression level libzstd accepts.
pub const MAX_LEVEL: i32 = 22;
/// The lowest (fastest) compression level libzstd accepts.
pub const MIN_LEVEL: i32 = -131072;

/// Compress `src` into one zstd frame, as `ZSTD_compress(dst, ZSTD_compressBound(len), src, len, level)`.
///
/// Each thread keeps the working memory of its last call on a source of up to 64 KiB
/// for the next call (at most about 2 MiB, at the highest levels): making and zeroing it
/// cost more than compressing a small file does. The frames are the same bytes as a new
/// context's. A [`Compressor`] is the context of one's own.
pub fn compress(src: &[u8], level: i32) -> Result<Vec<u8>, ZstdError> {
    let mut out = Vec::new();
    let mut cctx = Compressor::with_state(level, kept::take(&ONE_SHOT))?;
    let written = cctx.compress_into(src, &mut out);
    if src.len() <= ONE_SHOT_KEPT_MAX {
        // No frame continues after this one's bytes: the context keeps its tables and
        // buffers, not the source.
        cctx.state.forget_frames();
        kept::put_back(&ONE_SHOT, cctx.state);
    }
    written?;
    Ok(out)
}

thread_local! {
    /// The working memory [`compress`] reuses on this thread, taken out while it runs.
    static ONE_SHOT: std::cell::Cell<Option<Box<frame::FrameState>>> =
        const { std::cell::Cell::new(None) };
}

/// The largest source whose working memory [`compress`] keeps for the next call (a ZAR
/// block): larger sources size their tables and buffers to megabytes.
const ONE_SHOT_KEPT_MAX: usize = 64 << 10;

/// The index overflow corrections the encoder made in this process so far; only with the
/// `correct-overflow-often` feature, which checks them against a libzstd built with
/// `ZSTD_WINDOW_OVERFLOW_CORRECT_FREQUENTLY=1` (`benches/scripts/correct-often.sh`).
#[cfg(feature = "correct-overflow-often")]
#[doc(hidden)]
pub fn overflow_corrections() -> u64 {
    compress::window::CORRECTIONS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Largest source [`Compressor::compress_into`] accepts at `level`: any size (`usize::MAX`)
/// at every implemented level, zero for a level that is not implemented. Past 3500 MiB
/// libzstd corrects (rebases) its `u32` window indices, and so does this encoder, checked
/// at every strategy against the oracle: at full scale (`zstd_diff --huge --sizes 3501M+1`)
/// at levels -5 to 8, 13 and 16, and with the correction made as often as libzstd's
/// `ZSTD_WINDOW_OVERFLOW_CORRECT_FREQUENTLY` build makes it
/// (`benches/scripts/correct-often.sh`) at every level. (Level 22 above 64 MiB turns on
/// long-distance matching, as in libzstd.)
pub fn max_source_size(level: i32) -> usize {
    if is_level_supported(level) {
        usize::MAX
    } else {
        0
    }
}

/// A reusable compression context: its tables are allocated once and reused across calls.
///
/// A source of up to 4 MiB is copied into a buffer the context keeps (64 KiB, or 128 MiB
/// of address space past a 64 KiB source, allocated zeroed; only what the sources reach
/// becomes resident), so
/// that the match finders read it without bounds checks; consecutive frames of 16 KiB to
/// 2 MiB are kept there together, for the next frame's tables to continue instead of being
/// cleared. Larger sources are read in place.
pub struct Compressor {
    level: i32,
    /// Boxed: a context is moved and held by value (the state is about 25 KiB).
    state: Box<frame::FrameState>,
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
        Self::with_state(level, Box::default())
    }

    /// A context for `level` working in `state` (a new one's, or kept by [`compress`]).
    fn with_state(level: i32, state: Box<frame::FrameState>) -> Result<Self, ZstdError> {
        check_level(level)?;
        Ok(Compressor { level, state })
    }

    /// The level this context compresses at.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Compress `src` into one frame appended to `dst`; returns the frame's length.
    ///
    /// The frame is byte-identical to libzstd 1.5.7's `ZSTD_compress(src, level)`, for
    /// sources of any size (see [`max_source_size`]).
    pub fn compress_into(&mut self, src: &[u8], dst: &mut Vec<u8>) -> Result<usize, ZstdError> {
        let cp = params::cparams(self.level, src.len() as u64);
        let start = dst.len();
        frame::compress_frame(&mut self.state, &cp, src, dst)?;
        Ok(dst.len() - start)
    }

    /// Compress the 64 KiB held in `block` into one frame appended to `dst`; returns the
    /// frame's length.
    ///
    /// The same frame as [`Compressor::compress_into`] of the block's bytes, libzstd
    /// 1.5.7's `ZSTD_compress(block, 65536, level)`, read where the block lies instead of
    /// from a copy in the context (see [`PaddedBlock`]).
    pub fn compress_block_into(
        &mut self,
        block: &PaddedBlock,
        dst: &mut Vec<u8>,
    ) -> Result<usize, ZstdError> {
        let cp = params::cparams(self.level, PaddedBlock::LEN as u64);
        let start = dst.len();
        frame::compress_padded_frame(&mut self.state, &cp, block, dst)?;
        Ok(dst.len() - start)
    }
}

impl Compressor {
    /// Compress `src` with the dictionary `dict` into one frame appended to `dst`; returns
    /// the frame's length.
    ///
    /// The frame is byte-identical to libzstd 1.5.7's
    /// `ZSTD_compress_usingDict(cctx, dst, cap, src, len, dict, dict_len, level)`: the
    /// parameters are chosen with the dictionary's size, and the dictionary is loaded
    /// afresh for this call. A dictionary that does not start with the dictionary magic
    /// number is raw content (the frame then names no dictionary ID); one below 8 bytes is
    /// ignored, as libzstd ignores it. A formatted dictionary (as `zstd --train` writes it)
    /// also seeds the entropy tables and repeat offsets, and the frame names its ID; one
    /// whose header is damaged is refused with [`ZstdError::BadDictionary`]. Sources of any
    /// size are accepted; where the level turns on long-distance matching (level 22 with
    /// source and dictionary above 64 MiB), that finder is seeded with the dictionary's
    /// content too, as libzstd's is.
    pub fn compress_with_dict_into(
        &mut self,
        src: &[u8],
        dict: &[u8],
        dst: &mut Vec<u8>,
    ) -> Result<usize, ZstdError> {
        let cp = params::cparams_with_dict(self.level, src.len() as u64, dict.len() as u64);
        self.ldm_room(&cp)?;
        let start = dst.len();
        frame::compress_frame_with_dict(&mut self.state, &cp, dict, src, dst)?;
        Ok(dst.len() - start)
    }
}

/// A dictionary prepared once for one compression level, to compress many sources with
/// (cheap to clone: the prepared tables are shared)
/// (`ZSTD_createCDict`): its parameters, its header's entropy tables and repeat offsets,
/// and its content's match-finder tables.
#[derive(Clone)]
pub struct EncoderDictionary {
    pub(crate) prepared: std::sync::Arc<compress::dict::PreparedDict>,
}

impl std::fmt::Debug for EncoderDictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncoderDictionary")
            .field("level", &self.prepared.level)
            .field("len", &self.prepared.bytes.len())
            .field("id", &self.id())
            .finish_non_exhaustive()
    }
}

impl EncoderDictionary {
    /// Prepare `dict` (formatted, as `zstd --train` writes it, or raw content) for `level`,
    /// as `ZSTD_createCDict(dict, len, level)`. Fails for a level outside zstd's range and
    /// for a formatted dictionary whose header is damaged.
    pub fn new(dict: &[u8], level: i32) -> Result<Self, ZstdError> {
        check_level(level)?;
        let level = if level == 0 {
            params::DEFAULT_LEVEL
        } else {
            level
        };
        Ok(EncoderDictionary {
            prepared: std::sync::Arc::new(compress::dict::PreparedDict::new(dict, level)?),
        })
    }

    /// The ID frames compressed with it name (0 for raw content).
    pub fn id(&self) -> u32 {
        self.prepared.start.as_ref().map_or(0, |s| s.id)
    }

    /// The level it was prepared for.
    pub fn level(&self) -> i32 {
        self.prepared.level
    }
}

impl Compressor {
    /// Compress `src` with a prepared dictionary into one frame appended to `dst`; returns
    /// the frame's length. The level is the dictionary's, not this context's.
    ///
    /// The frame is byte-identical to libzstd 1.5.7's
    /// `ZSTD_compress_usingCDict(cctx, dst, cap, src, len, ZSTD_createCDict(dict, size,
    /// level))` at every level: small sources read the dictionary's tables in place
    /// (attached, the dictMatchState finders), larger ones get a copy of them, the largest
    /// load the dictionary again (and, where the level turns on long-distance matching,
    /// seed that finder with it). Sources of any size are accepted.
    pub fn compress_prepared_into(
        &mut self,
        src: &[u8],
        dict: &EncoderDictionary,
        dst: &mut Vec<u8>,
    ) -> Result<usize, ZstdError> {
        let pd = &dict.prepared;
        let (src_size, dict_size) = (src.len() as u64, pd.bytes.len() as u64);
        // Long-distance matching is resolved before the window grows to the source.
        let cp = params::using_cdict_cparams(&pd.cp, pd.level, src_size, dict_size);
        self.ldm_room(&cp)?;
        let start = dst.len();
        frame::compress_frame_prepared(&mut self.state, pd, src, dst);
        Ok(dst.len() - start)
    }
}

impl Compressor {
    /// Compress `src` as libzstd 1.5.7 does after `ZSTD_CCtx_loadDictionary(cctx, dict)` on a
    /// context at the dictionary's level, with `ZSTD_compress2` (one call of
    /// `ZSTD_compressStream2` with the whole source: the path of the `zstd` tool's `-D`,
    /// checksum aside, except that the tool also turns on libzstd's dedicated dictionary
    /// search, which changes its frames at the greedy, lazy and lazy2 levels: for those,
    /// use a [`StreamEncoder`] with [`StreamEncoder::set_dedicated_dict_search`]). It
    /// differs from [`Compressor::compress_prepared_into`] in the window
    /// (chosen for the source), and in that larger sources still use the dictionary's
    /// tables (where long-distance matching turns on, that finder starts empty, as
    /// libzstd's does). Byte-identical at every level, for sources of any size.
    pub fn compress_loaded_dict_into(
        &mut self,
        src: &[u8],
        dict: &EncoderDictionary,
        dst: &mut Vec<u8>,
    ) -> Result<usize, ZstdError> {
        let pd = &dict.prepared;
        let (src_size, dict_size) = (src.len() as u64, pd.bytes.len() as u64);
        let cp = params::loaded_dict_cparams(&pd.cp, pd.level, src_size, dict_size);
        self.ldm_room(&cp)?;
        let start = dst.len();
        frame::compress_frame_loaded(&mut self.state, pd, src, dst);
        Ok(dst.len() - start)
    }
}

impl Compressor {
    /// Room for the long-distance finder's tables where `cp` turns it on (64 MiB at level
    /// 22), failing with [`ZstdError::OutOfMemory`] instead of aborting.
    fn ldm_room(&mut self, cp: &CParams) -> Result<(), ZstdError> {
        if compress::ldm::auto_enabled(cp) {
            self.state.ms.try_ldm_room(cp)?;
        }
        Ok(())
    }
}

/// Highest level implemented: every level up to 22. Levels 11 to 22 select the optimal
/// parser (`btopt`, `btultra`, `btultra2`) for some sizes, with libzstd's post-block
/// splitter from 64 KiB + 1 on. Every level is implemented for sources of any size.
pub const MAX_SUPPORTED_LEVEL: i32 = MAX_LEVEL;

/// Whether [`Compressor`] implements `level`: the negative levels, 0 (libzstd's default,
/// level 3) and 1 to 22, for sources of any size, with or without a dictionary.
pub fn is_level_supported(level: i32) -> bool {
    (MIN_LEVEL..=MAX_SUPPORTED_LEVEL).contains(&level)
}

/// [`ZstdError::UnsupportedLevel`] unless [`is_level_supported`]`(level)`: every context
/// and preparation refuses such a level the same way.
pub(crate) fn check_level(level: i32) -> Result<(), ZstdError> {
    if is_level_supported(level) {
        Ok(())
    } else {
        Err(ZstdError::UnsupportedLevel { level })
    }
}
