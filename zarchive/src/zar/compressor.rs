//! The seam between the container and the codec: how a 64 KiB block gets compressed.
//!
//! A [`BlockCompressor`] is shared by all worker threads; each thread asks it once for a
//! [`BlockContext`] and reuses that context for every block it compresses. Whatever a context
//! produces, the writer applies the reference writer's rule: a result of 65536 bytes or more
//! is replaced by the raw block (zarchivewriter.cpp `StoreBlock`).

use super::format::BLOCK_SIZE;
use crate::zstd;

/// Something that can compress ZAR blocks. Implementations must be deterministic: the same
/// block must always give the same bytes, on every thread, so archives do not depend on the
/// thread count.
pub trait BlockCompressor: Send + Sync {
    /// A per-thread compression context, created once and reused across blocks.
    fn context(&self) -> Result<Box<dyn BlockContext>, std::io::Error>;
    /// A short human-readable description (for `info` and progress output).
    fn describe(&self) -> String;
    /// The zstd dictionary its frames are compressed with (a formatted dictionary, its ID
    /// not 0), which the writer stores in the archive's meta sections (the dictionary
    /// extension, [`VERSION_META`](super::format::VERSION_META)); `None` (the default) for
    /// plain v1 archives.
    fn dictionary(&self) -> Option<&[u8]> {
        None
    }
}

/// A per-thread block compression context.
pub trait BlockContext: Send {
    /// Compress one full block, appending the compressed bytes to `out` (which the caller
    /// has cleared). Appending exactly `block` marks it as stored raw.
    fn compress_block(
        &mut self,
        block: &[u8; BLOCK_SIZE],
        out: &mut Vec<u8>,
    ) -> Result<(), std::io::Error>;

    /// [`BlockContext::compress_block`] for a block held in a [`zstd::PaddedBlock`] (the
    /// writer's own block buffers), which a zstd context reads in place instead of copying
    /// it first. The default compresses the block's bytes with `compress_block`.
    fn compress_padded_block(
        &mut self,
        block: &zstd::PaddedBlock,
        out: &mut Vec<u8>,
    ) -> Result<(), std::io::Error> {
        self.compress_block(block, out)
    }
}

/// Stores every block raw (no compression).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stored;

impl BlockCompressor for Stored {
    fn context(&self) -> Result<Box<dyn BlockContext>, std::io::Error> {
        Ok(Box::new(Stored))
    }
    fn describe(&self) -> String {
        "stored".into()
    }
}

impl BlockContext for Stored {
    fn compress_block(
        &mut self,
        block: &[u8; BLOCK_SIZE],
        out: &mut Vec<u8>,
    ) -> Result<(), std::io::Error> {
        out.extend_from_slice(block);
        Ok(())
    }
}

/// The built-in zstd block compressor: each block is one zstd frame at `level`, as the
/// reference writer's `ZSTD_compress(dst, ZSTD_compressBound(65536), src, 65536, 6)`.
#[derive(Debug, Clone, Copy)]
pub struct Zstd {
    level: i32,
}

/// The level the reference ZArchive tool uses.
pub const REFERENCE_LEVEL: i32 = 6;

impl Zstd {
    /// A zstd block compressor at `level`; fails if the encoder does not implement it.
    pub fn new(level: i32) -> Result<Self, zstd::ZstdError> {
        zstd::check_level(level)?;
        Ok(Zstd { level })
    }
    /// The compression level.
    pub fn level(&self) -> i32 {
        self.level
    }
}

impl Default for Zstd {
    /// The reference tool's level, [`REFERENCE_LEVEL`] (6).
    fn default() -> Self {
        Zstd {
            level: REFERENCE_LEVEL,
        }
    }
}

/// The context of [`Zstd`] and [`ZstdWithDictionary`]: a reused compressor, and the
/// prepared dictionary every block is compressed with, if any.
struct ZstdContext {
    cctx: zstd::Compressor,
    dict: Option<std::sync::Arc<zstd::EncoderDictionary>>,
}

impl ZstdContext {
    fn boxed(
        level: i32,
        dict: Option<std::sync::Arc<zstd::EncoderDictionary>>,
    ) -> Result<Box<dyn BlockContext>, std::io::Error> {
        let cctx = zstd::Compressor::new(level).map_err(std::io::Error::other)?;
        Ok(Box::new(ZstdContext { cctx, dict }))
    }
}

impl BlockCompressor for Zstd {
    fn context(&self) -> Result<Box<dyn BlockContext>, std::io::Error> {
        ZstdContext::boxed(self.level, None)
    }
    fn describe(&self) -> String {
        format!("zstd level {}", self.level)
    }
}

impl BlockContext for ZstdContext {
    fn compress_block(
        &mut self,
        block: &[u8; BLOCK_SIZE],
        out: &mut Vec<u8>,
    ) -> Result<(), std::io::Error> {
        match &self.dict {
            None => self.cctx.compress_into(block, out),
            Some(dict) => self.cctx.compress_prepared_into(block, dict, out),
        }
        .map_err(std::io::Error::other)?;
        Ok(())
    }

    fn compress_padded_block(
        &mut self,
        block: &zstd::PaddedBlock,
        out: &mut Vec<u8>,
    ) -> Result<(), std::io::Error> {
        if self.dict.is_some() {
            // The dictionary's content goes before the block in one buffer anyway.
            return self.compress_block(block, out);
        }
        self.cctx
            .compress_block_into(block, out)
            .map_err(std::io::Error::other)?;
        Ok(())
    }
}

/// zstd with a dictionary: each block is one zstd frame at the dictionary's level that
/// names the dictionary's ID, as libzstd 1.5.7's
/// `ZSTD_compress_usingCDict(cctx, dst, cap, block, 65536, ZSTD_createCDict(dict, size,
/// level))`. The archive stores the dictionary (see [`BlockCompressor::dictionary`]).
#[derive(Clone)]
pub struct ZstdWithDictionary {
    dict: std::sync::Arc<zstd::EncoderDictionary>,
    bytes: std::sync::Arc<[u8]>,
}

impl std::fmt::Debug for ZstdWithDictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZstdWithDictionary")
            .field("level", &self.dict.level())
            .field("id", &self.dict.id())
            .field("len", &self.bytes.len())
            .finish()
    }
}

impl ZstdWithDictionary {
    /// Prepare `dict` for `level`. The dictionary must be in the zstd format (as
    /// `zarchive train` and `zstd --train` write it), so that frames name it by its ID;
    /// raw content is refused, as is a damaged header or an ID of 0.
    pub fn new(dict: &[u8], level: i32) -> Result<Self, zstd::ZstdError> {
        let prepared = zstd::EncoderDictionary::new(dict, level)?;
        if prepared.id() == 0 {
            return Err(zstd::ZstdError::BadDictionary {
                reason: "an archive needs a zstd-format dictionary with an ID (raw content, or an ID of 0, cannot be named by frames)",
            });
        }
        // The reader parses the same bytes; refuse here what it would refuse there.
        zstd::DecoderDictionary::new(dict)?;
        Ok(ZstdWithDictionary {
            dict: std::sync::Arc::new(prepared),
            bytes: dict.into(),
        })
    }
    /// The dictionary's ID.
    pub fn id(&self) -> u32 {
        self.dict.id()
    }
    /// The compression level.
    pub fn level(&self) -> i32 {
        self.dict.level()
    }
}

impl BlockCompressor for ZstdWithDictionary {
    fn context(&self) -> Result<Box<dyn BlockContext>, std::io::Error> {
        ZstdContext::boxed(self.level(), Some(self.dict.clone()))
    }
    fn describe(&self) -> String {
        format!(
            "zstd level {} with dictionary {} ({} bytes)",
            self.level(),
            self.id(),
            self.bytes.len()
        )
    }
    fn dictionary(&self) -> Option<&[u8]> {
        Some(&self.bytes)
    }
}

/// Something that can decode the zstd frames of ZAR blocks: the reader's side of
/// [`BlockCompressor`]. The default, [`ZstdDecompressor`], is this crate's decoder; another
/// one (a benchmark's native libzstd, say) plugs in through
/// [`OpenOptions::decompressor`](super::OpenOptions::decompressor). Raw blocks (stored
/// length 65,536) never reach it.
pub trait BlockDecompressor: Send + Sync {
    /// A decoding context, created when a reading thread needs one and reused across blocks.
    fn context(&self) -> Box<dyn BlockDecodeContext>;
    /// A short human-readable description.
    fn describe(&self) -> String;
}

/// A block decoding context.
pub trait BlockDecodeContext: Send {
    /// Decode the stored frames of one block into `out[..65536]`, which they must fill
    /// exactly: producing fewer or more bytes is an error
    /// ([`zstd::ZstdError::SizeMismatch`], [`zstd::ZstdError::TooLarge`]). `out` may be
    /// longer (the reader gives [`zstd::BLOCK_SLACK`] bytes more): the bytes past the block
    /// are scratch the decoder may overwrite.
    fn decode_block(&mut self, stored: &[u8], out: &mut [u8]) -> Result<(), zstd::ZstdError>;
    /// As [`BlockDecodeContext::decode_block`], for frames that name `dict` (the archive's
    /// dictionary with the ID their headers name): every frame must name it. A context
    /// without dictionary support refuses ([`zstd::ZstdError::DictionaryRequired`], the
    /// default).
    fn decode_block_with_dictionary(
        &mut self,
        stored: &[u8],
        out: &mut [u8],
        dict: &zstd::DecoderDictionary,
    ) -> Result<(), zstd::ZstdError> {
        let _ = (stored, out);
        Err(zstd::ZstdError::DictionaryRequired {
            at: 0,
            dict_id: dict.id(),
        })
    }
}

/// The built-in block decoder: [`zstd::Decoder::decompress_exact_in`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ZstdDecompressor;

impl BlockDecompressor for ZstdDecompressor {
    fn context(&self) -> Box<dyn BlockDecodeContext> {
        let mut decoder = zstd::Decoder::new();
        // A block is decoded in one shot into its 64 KiB, whatever window its frame
        // declares (nothing is allocated for the window), as the reference tool's
        // `ZSTD_decompress` does: `zstd --ultra -22` reading a pipe declares 128 MiB, and
        // such blocks were refused as damage. Any window a frame header can declare.
        decoder.set_max_window_size(u64::MAX);
        Box::new(decoder)
    }
    fn describe(&self) -> String {
        "zarkit zstd decoder".into()
    }
}

impl BlockDecodeContext for zstd::Decoder {
    fn decode_block(&mut self, stored: &[u8], out: &mut [u8]) -> Result<(), zstd::ZstdError> {
        // A frame of a block decoded without a dictionary names none.
        self.set_required_dictionary(None);
        self.decompress_exact_in(stored, out, BLOCK_SIZE)
    }
    fn decode_block_with_dictionary(
        &mut self,
        stored: &[u8],
        out: &mut [u8],
        dict: &zstd::DecoderDictionary,
    ) -> Result<(), zstd::ZstdError> {
        self.set_required_dictionary(Some(dict));
        self.decompress_exact_in(stored, out, BLOCK_SIZE)
    }
}
