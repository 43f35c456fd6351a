//! Decoding facade: one-shot into a caller's buffer, one-shot into a `Vec` with a limit,
//! streaming into a writer, and a [`std::io::Read`] adapter, the last two with memory bounded
//! by the window. The work is done by our own decoder (`zstd::decompress`), which follows
//! libzstd 1.5.7's accept/refuse decisions except where it is deliberately stricter:
//!
//! - an empty input is refused ([`ZstdError::Truncated`]); libzstd returns 0 bytes;
//! - a block above `min(window, 128 KiB)` (stored, or decoded) is refused on every path, as
//!   libzstd's streaming decoder does; its one-shot `ZSTD_decompress` lets raw and RLE blocks
//!   and the output of compressed blocks exceed the maximum;
//! - the window limit ([`MAX_WINDOW_SIZE`] unless raised) applies to one-shot decoding too;
//!   libzstd's one-shot decoder ignores the window (the archive reader's block decoder,
//!   `zar::ZstdDecompressor`, raises it to the format's largest, as the reference tool's
//!   `ZSTD_decompress` of a block reads any window);
//! - every Huffman stream must carry its end mark and be consumed exactly; libzstd's fast
//!   4-stream loop (11-bit tables, every stream at least 8 bytes) checks neither and only
//!   counts the symbols, so it accepts such sections with wrong output (the `decode_diff`
//!   harness in `benches/` finds this on about 5 % of mutated frames).

use super::common::kept;
use super::decompress::dict::DictTables;
use super::decompress::{DCtx, frame, stream};
use super::error::ZstdError;
use std::sync::Arc;

/// Bytes past a block of up to 64 KiB that let [`Decoder::decompress_exact_in`] decode it
/// in a fixed-size window (the wild copies' reach).
pub const BLOCK_SLACK: usize =
    super::decompress::copy::FIXED_VIEW - super::decompress::copy::FIXED_WINDOW;

/// Largest window a frame may declare before we refuse it. Bounds the decoder's allocation
/// for hostile input; every standard level up to 19 fits (windowLog ≤ 23). A caller decoding
/// standalone streams with larger windows raises it with [`Decoder::set_max_window_size`].
pub const MAX_WINDOW_SIZE: u64 = 1 << 23;

/// A dictionary prepared for decoding: raw content, or a dictionary in the zstd format
/// (magic number, ID, entropy tables, repeat offsets, content) as `zstd --train` and
/// `ZDICT_trainFromBuffer` write them. Parsed once; cloning shares it.
///
/// Mirrors ZSTD_DDict (`ZSTD_createDDict`).
#[derive(Clone, Debug)]
pub struct DecoderDictionary {
    tables: Arc<DictTables>,
}

impl DecoderDictionary {
    /// A dictionary in the zstd format when `bytes` starts with its magic number
    /// (`0xEC30A437`, at least 8 bytes), raw content otherwise, as libzstd decides
    /// (`ZSTD_dct_auto`).
    ///
    /// # Errors
    /// [`ZstdError::BadDictionary`] when a formatted dictionary's tables or repeat offsets
    /// are invalid.
    pub fn new(bytes: &[u8]) -> Result<Self, ZstdError> {
        Ok(DecoderDictionary {
            tables: Arc::new(DictTables::parse(bytes)?),
        })
    }

    /// Raw content, whatever its first bytes (`ZSTD_dct_rawContent`): history before each
    /// frame, with no ID and no tables.
    pub fn raw(bytes: &[u8]) -> Self {
        DecoderDictionary {
            tables: Arc::new(DictTables::raw(bytes)),
        }
    }

    /// The ID frames name this dictionary by (0 for raw content).
    pub fn id(&self) -> u32 {
        self.tables.id
    }

    /// How many bytes of history it provides.
    pub fn content_len(&self) -> usize {
        self.tables.content.len()
    }
}

/// The dictionary ID named by the first zstd frame of `src` (skippable frames before it
/// are skipped): 0 when it names none, or when `src` holds no zstd frame. Only the frame
/// header is read.
///
/// # Errors
/// A typed error when the header is truncated or invalid (reserved bit, unknown magic).
pub fn frame_dictionary_id(src: &[u8]) -> Result<u32, ZstdError> {
    let mut pos = 0usize;
    while pos < src.len() {
        match frame::frame_kind(&src[pos..], pos)? {
            frame::FrameKind::Skippable(n) => pos += n,
            frame::FrameKind::Zstd => {
                let hdr =
                    frame::parse_frame_header(&src[pos..], pos, u64::MAX, frame::DictIds::Any)?;
                return Ok(hdr.dict_id);
            }
        }
    }
    Ok(0)
}

/// A reusable decoder context (keeps its tables and literal buffer between calls).
pub struct Decoder {
    ctx: Box<DCtx>,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("max_window", &self.ctx.max_window)
            .finish_non_exhaustive()
    }
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// A fresh decoder context that accepts windows up to [`MAX_WINDOW_SIZE`].
    pub fn new() -> Self {
        Decoder {
            ctx: Box::new(DCtx::new(MAX_WINDOW_SIZE)),
        }
    }

    /// Accept frames whose window is at most `bytes` (default [`MAX_WINDOW_SIZE`]). The
    /// streaming decoder allocates about this much per frame and refuses a window above
    /// 2 GiB whatever this limit (as libzstd's `ZSTD_d_windowLogMax` of 31); decoding into
    /// a buffer allocates nothing for the window and takes any the limit allows, as
    /// libzstd's one-shot decoder does (up to 3.75 GiB: an exponent of 31 with its
    /// mantissa; a higher exponent is refused).
    pub fn set_max_window_size(&mut self, bytes: u64) {
        self.ctx.max_window = bytes;
    }

    /// A decoder whose frames start from `dict` (see [`Decoder::set_dictionary`]).
    pub fn with_dictionary(dict: &DecoderDictionary) -> Self {
        let mut d = Decoder::new();
        d.set_dictionary(Some(dict));
        d
    }

    /// Decode every following frame with `dict` (`None`: without a dictionary): its content
    /// is the history before each frame, and a formatted dictionary's tables and repeat
    /// offsets are where each frame starts.
    ///
    /// A frame that names a dictionary ID is refused without a dictionary
    /// ([`ZstdError::DictionaryRequired`]) and with another one
    /// ([`ZstdError::WrongDictionary`]; raw content has ID 0); frames that name none decode
    /// with whatever dictionary is set, as libzstd's do.
    ///
    /// Mirrors ZSTD_DCtx_refDDict.
    pub fn set_dictionary(&mut self, dict: Option<&DecoderDictionary>) {
        self.ctx.dict = dict.map(|d| d.tables.clone());
        self.ctx.dict_id_required = false;
    }

    /// Decode every following frame with `dict`, as [`Decoder::set_dictionary`], except that
    /// every frame must name `dict`'s ID: a frame that names none is refused
    /// ([`ZstdError::DictionaryIdMissing`]) rather than decoded with the dictionary. With
    /// `None`, frames must name no dictionary. This is the rule of ZAR blocks, where a frame
    /// naming no dictionary was compressed without one.
    pub fn set_required_dictionary(&mut self, dict: Option<&DecoderDictionary>) {
        self.set_dictionary(dict);
        self.ctx.dict_id_required = true;
    }

    /// Whether this context runs the block loop compiled for x86-64-v3 (AVX2, BMI1/2),
    /// chosen at run time when the CPU has it and the `dispatch` feature is on (the default);
    /// otherwise the portable build runs. Both give the same bytes.
    pub fn accelerated(&self) -> bool {
        self.ctx.isa.accelerated()
    }

    /// Decode every frame in `src` (skippable frames are skipped) into `dst`, which must be
    /// large enough; returns the number of bytes written.
    ///
    /// # Errors
    /// [`ZstdError::TooLarge`] when the output does not fit `dst`; a typed error naming the
    /// byte offset for any invalid input.
    pub fn decompress_into(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, ZstdError> {
        frame::decompress_frames(&mut self.ctx, src, dst)
    }

    /// Decode `src` into `dst`, requiring exactly `dst.len()` bytes of output.
    pub fn decompress_exact(&mut self, src: &[u8], dst: &mut [u8]) -> Result<(), ZstdError> {
        let expected = dst.len();
        let got = self.decompress_into(src, dst)?;
        if got != expected {
            return Err(ZstdError::SizeMismatch { expected, got });
        }
        Ok(())
    }

    /// Decode `src` into `dst`, requiring exactly `len` bytes of output, which land in
    /// `dst[..len]`; the bytes of `dst` past `len` are scratch the decoder may overwrite.
    /// Give a block of up to 64 KiB at least [`BLOCK_SLACK`] bytes of it (the ZAR case, as
    /// the archive reader does): its copies then run in a fixed-size window, with no bounds
    /// checks and no careful path for its last bytes.
    ///
    /// # Errors
    /// [`ZstdError::SizeMismatch`] when the frames produce another number of bytes (more
    /// than `dst.len()`: [`ZstdError::TooLarge`]); a typed error naming the byte offset for
    /// any invalid input.
    pub fn decompress_exact_in(
        &mut self,
        src: &[u8],
        dst: &mut [u8],
        len: usize,
    ) -> Result<(), ZstdError> {
        let got = self.decompress_into(src, dst)?;
        if got != len {
            return Err(ZstdError::SizeMismatch { expected: len, got });
        }
        Ok(())
    }

    /// Decode all frames in `src` into a new `Vec`, allowing at most `limit` bytes of output.
    ///
    /// The limit is a ceiling, not an allocation: the output is sized from the frames'
    /// headers, each frame counted for no more than its blocks can hold (a header claiming
    /// 2^60 bytes over one small block reserves one block), and at most 64 times the
    /// input's size (or 64 MiB); it grows with what is decoded past that, when the headers
    /// cannot be walked, or when a frame outgrows its declared size (which then fails with
    /// the precise error).
    pub fn decompress(&mut self, src: &[u8], limit: usize) -> Result<Vec<u8>, ZstdError> {
        let Some(bound) = frame::decompressed_bound(src, self.ctx.max_window) else {
            return self.decompress_growing(src, limit);
        };
        // Past what the input plausibly expands to, the output grows as it is decoded
        // instead: compressed blocks of a few bytes each may each claim a block maximum
        // (a 3 MB frame of them bounds to 2^37 bytes).
        let plausible = (src.len() as u64).saturating_mul(64).max(FIRST_OUTPUT_MIN);
        let first = bound.min(limit as u64).min(plausible) as usize;
        // With [`BLOCK_SLACK`] bytes of room past the output, frames of up to 64 KiB decode
        // in the fixed window (binary64k at level 6: 6.8 % faster than into a buffer of
        // exactly its size); the limit is then checked on what the frames produced.
        let mut out = vec![0u8; first.saturating_add(BLOCK_SLACK)];
        match self.decompress_into(src, &mut out) {
            Ok(n) if n <= limit => {
                out.truncate(n);
                Ok(out)
            }
            Ok(_) => Err(ZstdError::TooLarge { limit }),
            // More than the headers said (a corrupt frame), more than the plausible size,
            // or more than the limit.
            Err(ZstdError::TooLarge { .. }) if first < limit => {
                drop(out);
                self.decompress_growing(src, limit)
            }
            Err(ZstdError::TooLarge { .. }) => Err(ZstdError::TooLarge { limit }),
            Err(e) => Err(e),
        }
    }

    /// [`decompress`](Self::decompress) into a `Vec` that grows with the output (through
    /// the frames' windows), refused past `limit`.
    fn decompress_growing(&mut self, src: &[u8], limit: usize) -> Result<Vec<u8>, ZstdError> {
        /// The output, refusing bytes past the limit.
        struct Capped {
            out: Vec<u8>,
            limit: usize,
            over: bool,
        }
        impl std::io::Write for Capped {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                if bytes.len() > self.limit - self.out.len() {
                    self.over = true;
                    return Err(std::io::Error::other("past the limit"));
                }
                self.out.extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut capped = Capped {
            out: Vec::new(),
            limit,
            over: false,
        };
        match self.decompress_to(src, &mut capped) {
            Ok(_) => Ok(capped.out),
            Err(_) if capped.over => Err(ZstdError::TooLarge { limit }),
            Err(e) => Err(e),
        }
    }

    /// A [`StreamDecoder`] reading frames from `src` with this context's settings (window
    /// limit, dictionary): memory bounded by the frames' windows, whatever the input's size.
    pub fn into_stream<R: std::io::Read>(self, src: R) -> StreamDecoder<R> {
        StreamDecoder {
            inner: stream::StreamReader::new(src, self.ctx),
        }
    }

    /// Decode every frame in `src`, streaming the output into `out` with memory bounded by
    /// the frames' window sizes; returns the bytes written.
    pub fn decompress_to(
        &mut self,
        src: &[u8],
        out: &mut impl std::io::Write,
    ) -> Result<u64, ZstdError> {
        stream::decompress_to(&mut self.ctx, src, out)
    }
}

/// The output [`Decoder::decompress`] may size up front whatever the input's size.
const FIRST_OUTPUT_MIN: u64 = 64 << 20;

thread_local! {
    /// The context the one-shot functions reuse on this thread, taken out while one runs.
    static ONE_SHOT: std::cell::Cell<Option<Decoder>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with this thread's one-shot context: a context's working memory (about 300 KiB
/// of literal, bitstream and table buffers) costs more to make than a small frame does to
/// decode, where libzstd's `ZSTD_decompress` leaves its buffers uninitialised. The context
/// is in its default state (no dictionary, the default window limit) between calls; a call
/// made while it is out (from inside `decompress_to`'s writer) gets a new one.
fn with_one_shot<T>(f: impl FnOnce(&mut Decoder) -> T) -> T {
    let mut decoder = kept::take(&ONE_SHOT);
    let result = f(&mut decoder);
    kept::put_back(&ONE_SHOT, decoder);
    result
}

/// Decode all frames in `src`, allowing at most `limit` bytes of output.
///
/// As `ZSTD_decompress`; a context is reused from call to call on each thread (see
/// [`Decoder`] for a context of one's own).
pub fn decompress(src: &[u8], limit: usize) -> Result<Vec<u8>, ZstdError> {
    with_one_shot(|d| d.decompress(src, limit))
}

/// Decode all frames in `src` into `dst`, requiring exactly `dst.len()` bytes.
///
/// A context is reused from call to call on each thread, as for [`decompress`].
pub fn decompress_exact(src: &[u8], dst: &mut [u8]) -> Result<(), ZstdError> {
    with_one_shot(|d| d.decompress_exact(src, dst))
}

/// Decode every frame in `src` (skippable frames are skipped), streaming the output into
/// `out` with memory bounded by the frames' window sizes; returns the bytes written.
///
/// A context is reused from call to call on each thread, as for [`decompress`].
pub fn decompress_to(src: &[u8], out: &mut impl std::io::Write) -> Result<u64, ZstdError> {
    with_one_shot(|d| d.decompress_to(src, out))
}

/// A [`std::io::Read`] adapter that decodes every zstd frame read from `R` (skippable frames
/// are skipped), with memory bounded by the frames' windows: the input is read one block at
/// a time and each block is decoded into the frame's ring buffer
/// (window + 2 × block maximum).
///
/// # Errors
/// Invalid input fails a read with [`std::io::ErrorKind::InvalidData`] whose inner error is
/// the [`ZstdError`] (with the byte offset in the input); the decoder then keeps failing
/// with the same message. An error of the reader itself (`WouldBlock`, `TimedOut`, ...) is
/// returned as it is, and loses nothing: the next read goes on where it stopped.
pub struct StreamDecoder<R: std::io::Read> {
    inner: stream::StreamReader<R>,
}

impl<R: std::io::Read> StreamDecoder<R> {
    /// Decode from `src`, accepting windows up to [`MAX_WINDOW_SIZE`]. Each block is read
    /// into the decoder's buffer; from a buffered reader, [`StreamDecoder::with_buffer`]
    /// decodes blocks where they lie.
    pub fn new(src: R) -> Self {
        Self::with_max_window_size(src, MAX_WINDOW_SIZE)
    }

    /// Decode from `src`, accepting windows up to `bytes` (memory use is about this much).
    pub fn with_max_window_size(src: R, bytes: u64) -> Self {
        StreamDecoder {
            inner: stream::StreamReader::new(src, Box::new(DCtx::new(bytes))),
        }
    }

    /// Decode from `src` with `dict` (see [`Decoder::set_dictionary`]), accepting windows
    /// up to [`MAX_WINDOW_SIZE`].
    pub fn with_dictionary(src: R, dict: &DecoderDictionary) -> Self {
        let mut ctx = Box::new(DCtx::new(MAX_WINDOW_SIZE));
        ctx.dict = Some(dict.tables.clone());
        StreamDecoder {
            inner: stream::StreamReader::new(src, ctx),
        }
    }

    /// Stop after the first zstd frame (skippable frames before it are skipped), leaving
    /// what follows it in the reader, for a frame inside another format (the `zstd`
    /// crate's `single_frame`); by default every frame is decoded, as the `zstd` tool does.
    pub fn single_frame(mut self) -> Self {
        self.inner.single_frame();
        self
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref()
    }

    /// The underlying reader; reading from it directly corrupts the stream.
    pub fn get_mut(&mut self) -> &mut R {
        self.inner.get_mut()
    }

    /// The underlying reader (positioned after the bytes consumed so far).
    pub fn into_inner(self) -> R {
        self.inner.into_inner()
    }

    /// Decode `src` next, from its start, reusing this decoder's buffers (its window's
    /// allocation, its tables, its dictionary and window limit); returns the previous
    /// reader. Many small streams decode faster through one decoder.
    pub fn reset(&mut self, src: R) -> R {
        self.inner.reset(src)
    }
}

impl<R: std::io::BufRead> StreamDecoder<R> {
    /// Decode from the buffered reader `src` (a slice, a `BufReader`), accepting windows up
    /// to [`MAX_WINDOW_SIZE`]; see [`StreamDecoder::read_in_place`].
    pub fn with_buffer(src: R) -> Self {
        Self::new(src).read_in_place()
    }

    /// Decode each block where the reader's buffer holds the whole of it, instead of
    /// copying it into a buffer of the decoder's own first (as `ZSTD_decompressStream`
    /// decodes from its input when a whole block is there). An in-memory input always
    /// holds its blocks; a `BufReader` holds those that fit its capacity, and the others
    /// are copied as [`StreamDecoder::new`] copies every block. Kept across
    /// [`StreamDecoder::reset`].
    pub fn read_in_place(mut self) -> Self {
        self.inner.read_in_place();
        self
    }
}

impl<R: std::io::Read> std::io::Read for StreamDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<R: std::io::Read> std::fmt::Debug for StreamDecoder<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDecoder").finish_non_exhaustive()
    }
}
