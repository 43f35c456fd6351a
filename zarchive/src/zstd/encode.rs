//! Streaming compression: [`StreamEncoder`] (calls, as `ZSTD_compressStream2`) and
//! [`Encoder`] (a [`std::io::Write`] adapter over any writer).

use super::compress::stream::{EndOp, StreamState};
use super::error::ZstdError;
use std::io::{self, Write};

/// Window logs a frame may use (`ZSTD_WINDOWLOG_MIN`, `ZSTD_WINDOWLOG_MAX_64`).
const WINDOW_LOG_MIN: u32 = 10;
const WINDOW_LOG_MAX: u32 = 31;

/// A streaming compression context, byte-identical to libzstd 1.5.7's
/// `ZSTD_compressStream2` with one thread (`nbWorkers = 0`) at the same level, checksum flag
/// and pledged size, each method being one call of it the way the `zstd` tool makes it
/// (a fresh `ZSTD_CStreamOutSize()` output buffer per call until the call is done):
/// [`StreamEncoder::compress`] is `ZSTD_e_continue`, [`StreamEncoder::flush`]
/// `ZSTD_e_flush` and [`StreamEncoder::finish`] `ZSTD_e_end`.
///
/// How the input is cut into calls never changes the bytes, with one exception libzstd
/// has too: ending the frame with the last input ([`StreamEncoder::finish`] with bytes) and
/// ending it after that input (`compress`, then `finish(&[])`) can differ, as can a
/// stream whose first call ends it (its size is then known, as with a pledge). Streaming
/// is not one-shot compression: [`super::Compressor`] matches `ZSTD_compress`, whose frames
/// differ from a stream's above 128 KiB (blocks are split differently; an unknown size
/// changes the header and the window).
///
/// The context holds the window, one input buffer of about twice the window plus a block,
/// and the level's tables, whatever the stream's length. The input buffer reserves at
/// least 128 MiB of address space (4 MiB on 32-bit targets; allocated zeroed, only what
/// the window reaches becomes resident), so that while it fits the match finders read it
/// without bounds checks. Long-distance matching
/// ([`StreamEncoder::set_long_distance_matching`], the `zstd` tool's `--long`) adds its own
/// table: `2^(windowLog - hashRateLog)` entries of 8 bytes (64 MiB at level 22, 8 MiB at
/// level 1 with a 2^27 window). libzstd turns it on by itself at level 22 on an unknown
/// size or a pledge above 64 MiB, and so does this encoder, with or without a dictionary
/// (the dictionary stays the match state's; the long-distance finder starts empty, as in
/// libzstd). With a dictionary, the window may be smaller than the dictionary: libzstd
/// then prepares its dictionary with that window, and so does this encoder.
pub struct StreamEncoder {
    state: StreamState,
    level: i32,
}

impl std::fmt::Debug for StreamEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamEncoder")
            .field("level", &self.level)
            .field("in_frame", &self.state.in_frame())
            .finish_non_exhaustive()
    }
}

impl StreamEncoder {
    /// A context for `level` (0 is libzstd's default, level 3), without a content checksum
    /// and with no size pledged (libzstd's defaults).
    pub fn new(level: i32) -> Result<Self, ZstdError> {
        super::check_level(level)?;
        Ok(StreamEncoder {
            state: StreamState::new(level, false),
            level,
        })
    }

    /// The level this context compresses at.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Whether the next frame ends with a content checksum (`ZSTD_c_checksumFlag`). Only
    /// between frames, else [`ZstdError::FrameInProgress`].
    pub fn set_checksum(&mut self, on: bool) -> Result<(), ZstdError> {
        self.between_frames("the checksum flag")?;
        self.state.set_checksum(on);
        Ok(())
    }

    /// Whether the header of the next frames names their size when it is known (pledged,
    /// or the whole input given with the end): `ZSTD_c_contentSizeFlag`, on by default;
    /// off is the `zstd` tool's `--no-content-size`. Without it the header names the
    /// window instead; the blocks are the same. Only between frames, else
    /// [`ZstdError::FrameInProgress`].
    pub fn set_content_size(&mut self, on: bool) -> Result<(), ZstdError> {
        self.between_frames("the content size flag")?;
        self.state.set_content_size(on);
        Ok(())
    }

    /// Whether the header of the next frames names the ID of a zstd-format dictionary
    /// (`ZSTD_c_dictIDFlag`, on by default; off is the `zstd` tool's `--no-dictID`, and a
    /// decoder then cannot tell which dictionary the frame needs). Raw-content
    /// dictionaries have no ID either way. Only between frames, else
    /// [`ZstdError::FrameInProgress`].
    pub fn set_dict_id(&mut self, on: bool) -> Result<(), ZstdError> {
        self.between_frames("the dictionary ID flag")?;
        self.state.set_dict_id(on);
        Ok(())
    }

    /// Pledge the size of the next frame (`ZSTD_CCtx_setPledgedSrcSize`): the header then
    /// names it, the parameters fit it, and the frame fails with
    /// [`ZstdError::PledgedSizeMismatch`] when it gets another size (and every later call
    /// with [`ZstdError::FrameFailed`] until [`reset`](Self::reset)). Only between frames;
    /// it applies to one frame.
    pub fn set_pledged_size(&mut self, size: Option<u64>) -> Result<(), ZstdError> {
        self.between_frames("the pledged size")?;
        self.state.set_pledged(size);
        Ok(())
    }

    /// Long-distance matching for the next frames, with a window of `2^window_log` bytes
    /// (`ZSTD_c_enableLongDistanceMatching` and `ZSTD_c_windowLog`; the `zstd` tool's
    /// `--long=window_log`, and 27 for a bare `--long`), or off with `None` (libzstd's own
    /// choice then: on only at level 22 for large or unknown sizes). A pledged or known
    /// size shrinks the window to what the frame needs, as libzstd does. The window log
    /// must lie in 10..=31 ([`ZstdError::UnsupportedWindowLog`]); decoders refuse windows
    /// above their memory limit (the `zstd` tool: 2^27 unless told `--long` or `--memory`).
    /// Only between frames.
    pub fn set_long_distance_matching(&mut self, window_log: Option<u32>) -> Result<(), ZstdError> {
        self.between_frames("long-distance matching")?;
        if let Some(w) = window_log
            && !(WINDOW_LOG_MIN..=WINDOW_LOG_MAX).contains(&w)
        {
            return Err(ZstdError::UnsupportedWindowLog { window_log: w });
        }
        self.state.set_long(window_log);
        Ok(())
    }

    /// Whether the dictionary is searched the way the `zstd` tool has libzstd search it
    /// (`ZSTD_c_enableDedicatedDictSearch`, which the tool sets for every context; off by
    /// default, as in libzstd). At the levels whose strategy is greedy, lazy or lazy2 (5
    /// to 12 for most sizes), the dictionary is then prepared into a dedicated table, four
    /// entries a hash, always attached rather than copied, and searched with its own
    /// limits: other frames than without it, the ones `zstd -D` writes. Elsewhere it
    /// changes nothing. Only between frames.
    pub fn set_dedicated_dict_search(&mut self, on: bool) -> Result<(), ZstdError> {
        self.between_frames("the dedicated dictionary search")?;
        self.state.set_dds(on);
        Ok(())
    }

    /// Whether a frame is in progress: some input taken (or a flush made) and the end
    /// not yet asked for, or a frame that failed and was not [reset](Self::reset).
    pub fn in_frame(&self) -> bool {
        self.state.in_frame()
    }

    fn between_frames(&self, what: &'static str) -> Result<(), ZstdError> {
        if let Some(reason) = self.state.failed() {
            return Err(ZstdError::FrameFailed {
                reason: reason.to_owned(),
            });
        }
        if self.state.in_frame() {
            return Err(ZstdError::FrameInProgress { what });
        }
        Ok(())
    }

    /// Take `input` into the frame, appending to `out` whatever blocks it completes
    /// (`ZSTD_compressStream2(…, ZSTD_e_continue)`). The first call starts a frame.
    pub fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), ZstdError> {
        self.state.call(input, EndOp::Continue, out)
    }

    /// Compress what is buffered as a block that does not end the frame, so that
    /// everything given so far can be decoded from `out` (`ZSTD_e_flush`).
    pub fn flush(&mut self, out: &mut Vec<u8>) -> Result<(), ZstdError> {
        self.state.call(&[], EndOp::Flush, out)
    }

    /// Take `input` as the frame's last bytes and end the frame (`ZSTD_e_end`), appending
    /// the rest of it to `out`. The context is then ready for another frame, with no size
    /// pledged.
    pub fn finish(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), ZstdError> {
        self.state.call(input, EndOp::End, out)
    }

    /// A context that compresses every frame after `dict`, at the dictionary's level, as
    /// libzstd does after `ZSTD_CCtx_loadDictionary(dict)` on a context at that level: the
    /// dictionary is attached while the size is unknown or small, its tables copied
    /// otherwise; frames name a zstd-format dictionary's ID. The `zstd` tool's `-D` frames
    /// also need [`StreamEncoder::set_dedicated_dict_search`].
    pub fn with_dictionary(dict: &super::EncoderDictionary) -> Self {
        let mut state = StreamState::new(dict.level(), false);
        state.set_dict(Some(dict.prepared.clone()));
        StreamEncoder {
            state,
            level: dict.level(),
        }
    }

    /// Abandon the frame in progress, if any, or the one that failed
    /// (`ZSTD_CCtx_reset(ZSTD_reset_session_only)`): the next call starts a new frame,
    /// with no size pledged.
    pub fn reset(&mut self) {
        self.state.reset_session();
    }
}

/// Most input one [`Write::write`] of an [`Encoder`] takes (a short write past it, which
/// `write_all` and `io::copy` continue), so that the compressed bytes it holds stay
/// bounded whatever the size of a call: 1 MiB and what compressing it produced.
const MAX_WRITE: usize = 1 << 20;

/// Compresses what is written to it as one zstd frame into a writer, as the `zstd` tool
/// streams (`ZSTD_compressStream2` with one thread: see [`StreamEncoder`] for what the
/// bytes match). Each [`Write::write`] is one `ZSTD_e_continue` call with at most 1 MiB of
/// its bytes (it takes that much and says so), [`Write::flush`] one `ZSTD_e_flush` call
/// (then a flush of the writer), and [`Encoder::finish`] ends the frame. Dropping it
/// without `finish` leaves the frame unfinished.
///
/// What the writer has not taken yet is kept and written first by the next call, so an
/// error of the writer (`WouldBlock`, `TimedOut`, ...) loses nothing and a call that
/// failed may be made again, as [`Write`] says: a `write` that fails has taken none of its
/// bytes, and [`Encoder::try_finish`] can be called again after an error. A frame that
/// failed in the compressor itself (a size other than the one pledged) stays failed:
/// every later call says so.
///
/// ```
/// use std::io::Write;
/// let mut enc = zarkit::zstd::Encoder::new(Vec::new(), 3)?;
/// enc.write_all(b"hello, hello, hello")?;
/// let frame = enc.finish()?;
/// assert_eq!(zarkit::zstd::decompress(&frame, 100)?, b"hello, hello, hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Encoder<W: Write> {
    stream: StreamEncoder,
    writer: W,
    /// Compressed bytes not all written yet: `buf[written..]` is still to go.
    buf: Vec<u8>,
    written: usize,
    /// The frame's end is in `buf` (or written): [`Encoder::try_finish`] again only
    /// writes what is left.
    ended: bool,
}

impl<W: Write> std::fmt::Debug for Encoder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("stream", &self.stream)
            .field("pending", &(self.buf.len() - self.written))
            .finish_non_exhaustive()
    }
}

impl<W: Write> Encoder<W> {
    /// An encoder at `level` writing to `writer`, without a checksum or a pledged size.
    pub fn new(writer: W, level: i32) -> Result<Self, ZstdError> {
        Ok(Encoder::over(StreamEncoder::new(level)?, writer))
    }

    /// An encoder writing to `writer` with a dictionary (see
    /// [`StreamEncoder::with_dictionary`]).
    pub fn with_dictionary(writer: W, dict: &super::EncoderDictionary) -> Self {
        Encoder::over(StreamEncoder::with_dictionary(dict), writer)
    }

    fn over(stream: StreamEncoder, writer: W) -> Self {
        Encoder {
            stream,
            writer,
            buf: Vec::new(),
            written: 0,
            ended: false,
        }
    }

    /// Whether the frame ends with a content checksum (before the first write).
    pub fn set_checksum(&mut self, on: bool) -> Result<(), ZstdError> {
        self.stream.set_checksum(on)
    }

    /// Whether the header names the frame's size when it is known (before the first
    /// write; see [`StreamEncoder::set_content_size`]).
    pub fn set_content_size(&mut self, on: bool) -> Result<(), ZstdError> {
        self.stream.set_content_size(on)
    }

    /// Whether the header names a zstd-format dictionary's ID (before the first write;
    /// see [`StreamEncoder::set_dict_id`]).
    pub fn set_dict_id(&mut self, on: bool) -> Result<(), ZstdError> {
        self.stream.set_dict_id(on)
    }

    /// Long-distance matching with a window of `2^window_log` bytes, or off (before the
    /// first write; see [`StreamEncoder::set_long_distance_matching`]).
    pub fn set_long_distance_matching(&mut self, window_log: Option<u32>) -> Result<(), ZstdError> {
        self.stream.set_long_distance_matching(window_log)
    }

    /// Whether the dictionary is searched as the `zstd` tool has it searched (before the
    /// first write; see [`StreamEncoder::set_dedicated_dict_search`]).
    pub fn set_dedicated_dict_search(&mut self, on: bool) -> Result<(), ZstdError> {
        self.stream.set_dedicated_dict_search(on)
    }

    /// Pledge the frame's size (before the first write): see
    /// [`StreamEncoder::set_pledged_size`].
    pub fn set_pledged_size(&mut self, size: Option<u64>) -> Result<(), ZstdError> {
        self.stream.set_pledged_size(size)
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.writer
    }

    /// The writer; writing to it directly corrupts the stream.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// End the frame and return the writer (one `ZSTD_e_end` call without input). On an
    /// error the writer is lost with the encoder: [`Encoder::try_finish`] keeps both.
    pub fn finish(mut self) -> io::Result<W> {
        self.try_finish()?;
        Ok(self.writer)
    }

    /// End the frame (one `ZSTD_e_end` call without input), write all of it and flush the
    /// writer, keeping the encoder: after an error of the writer, call it again to write
    /// the rest (the frame is ended once). A later write starts a new frame.
    pub fn try_finish(&mut self) -> io::Result<()> {
        self.drain()?;
        if !self.ended {
            self.compress_with(|stream, buf| stream.finish(&[], buf))?;
            self.ended = true;
        }
        self.drain()?;
        self.writer.flush()
    }

    /// End the frame with `last` as its last bytes (one `ZSTD_e_end` call with them, the
    /// way the `zstd` tool sends the last read of a regular file) and return the writer.
    pub fn finish_with(mut self, last: &[u8]) -> io::Result<W> {
        if last.is_empty() {
            return self.finish();
        }
        self.drain()?;
        self.compress_with(|stream, buf| stream.finish(last, buf))?;
        self.ended = true;
        // The frame is ended: what is left is writing it out.
        self.finish()
    }

    /// One call of the stream into the bytes to write; a call that fails adds nothing
    /// (the frame's header it may have begun is dropped with the failed frame).
    fn compress_with(
        &mut self,
        call: impl FnOnce(&mut StreamEncoder, &mut Vec<u8>) -> Result<(), ZstdError>,
    ) -> io::Result<()> {
        let before = self.buf.len();
        call(&mut self.stream, &mut self.buf).map_err(|e| {
            self.buf.truncate(before);
            io::Error::other(e)
        })
    }

    /// Abandon the frame in progress, or the one that failed, and the bytes of it the
    /// writer has not taken yet ([`StreamEncoder::reset`]): the next write starts a new
    /// frame, with no size pledged.
    pub fn reset(&mut self) {
        self.stream.reset();
        self.buf.clear();
        self.written = 0;
        self.ended = false;
    }

    /// Write what the writer has not taken yet, keeping count of what it took.
    fn drain(&mut self) -> io::Result<()> {
        while self.written < self.buf.len() {
            match self.writer.write(&self.buf[self.written..]) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the writer took no more of the zstd frame",
                    ));
                }
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.clear();
        self.written = 0;
        Ok(())
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        // What earlier calls produced goes first: failing here, the call took nothing.
        self.drain()?;
        if data.is_empty() {
            return Ok(0);
        }
        let data = &data[..data.len().min(MAX_WRITE)];
        self.compress_with(|stream, buf| stream.compress(data, buf))?;
        self.ended = false;
        // The input is taken: an error of the writer now is the next call's to report
        // (the bytes it did not take are kept for it).
        let _ = self.drain();
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        // Before any input too: it starts the frame, with no size known, as libzstd's
        // flush does (skipping it would change the header of a frame ended next).
        self.compress_with(|stream, buf| stream.flush(buf))?;
        self.drain()?;
        self.writer.flush()
    }
}
