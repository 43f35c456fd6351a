//! Streaming decoding with memory bounded by the window: each frame decodes block by block
//! into a ring buffer of `window + 2 × block maximum + slack` bytes, and every block is
//! handed to the writer as soon as it is decoded. When a block would not fit before the
//! buffer's end, decoding wraps to its start and the previous lap becomes the older history
//! segment that matches may still reach.

use super::block::decompress_block;
use super::frame::{
    BLOCK_HEADER_SIZE, BlockHeader, BlockKind, FrameHeader, Window, next_block, parse_block_header,
    parse_frame_header, stream_window_limit,
};
use super::{DCtx, WILDCOPY_OVERLENGTH};
use crate::zstd::error::ZstdError;
use std::io::{Read, Write};

/// Map a writer failure: the output side refused the bytes.
fn write_error(e: std::io::Error) -> ZstdError {
    ZstdError::Write { cause: e }
}

/// A frame's ring buffer and where decoding stands in it.
///
/// Mirrors the `outBuff` handling of ZSTD_decompressStream with ZSTD_checkContinuity.
pub(crate) struct Ring {
    buf: Vec<u8>,
    win: Window,
    op: usize,
}

impl Ring {
    /// A ring for a frame with this header: the window (or the content size, when smaller)
    /// plus two blocks and the wild-copy slack. The window was checked against the limit.
    ///
    /// Mirrors ZSTD_decodingBufferSize_internal.
    pub(crate) fn for_frame(hdr: &FrameHeader) -> Ring {
        Ring::for_frame_reusing(hdr, Vec::new())
    }

    /// [`Ring::for_frame`] in the buffer of an earlier frame (its stale bytes are never
    /// read: a block only reads history it wrote or its dictionary's).
    pub(crate) fn for_frame_reusing(hdr: &FrameHeader, mut buf: Vec<u8>) -> Ring {
        let history = hdr.content_size.map_or(hdr.window, |c| c.min(hdr.window)) as usize;
        let size = history + 2 * hdr.block_max + 2 * WILDCOPY_OVERLENGTH;
        if buf.len() < size {
            // A new zeroed allocation, not a resize that writes every byte: the pages of
            // a large window are then only touched as decoding reaches them, so a frame
            // declaring a large window but holding little data costs little memory.
            buf = vec![0; size];
        } else {
            buf.truncate(size);
        }
        Ring {
            buf,
            win: Window {
                dict: true,
                ..Window::default()
            },
            op: 0,
        }
    }

    /// Make room for one block of up to `block_max` bytes at the write position, wrapping
    /// to the start when needed, and return the history that block may use.
    pub(crate) fn prepare(&mut self, block_max: usize) -> Window {
        if self.op + block_max + WILDCOPY_OVERLENGTH > self.buf.len() {
            self.win.ext = (self.win.prefix_start, self.op);
            self.win.prefix_start = 0;
            self.op = 0;
            // The dictionary no longer adjoins the history: the lap now older than `ext`
            // (overwritten) lies between them, and it is beyond the window anyway.
            self.win.dict = false;
        }
        // The block may write up to `block_max + 32` bytes from `op`: older bytes below
        // that point are about to be overwritten and leave the history.
        let (lo, hi) = self.win.ext;
        self.win.ext = (
            lo.max(self.op + block_max + WILDCOPY_OVERLENGTH).min(hi),
            hi,
        );
        self.win
    }
}

impl Ring {
    /// Decode one block (its header at byte `at`) at the write position; returns the range
    /// of the ring holding its content.
    pub(crate) fn decode_block(
        &mut self,
        ctx: &mut DCtx,
        bh: &BlockHeader,
        body: &[u8],
        at: usize,
        block_max: usize,
    ) -> Result<std::ops::Range<usize>, ZstdError> {
        let win = self.prepare(block_max);
        let op = self.op;
        let end = match bh.kind {
            BlockKind::Raw => {
                self.buf[op..op + bh.size].copy_from_slice(body);
                op + bh.size
            }
            BlockKind::Rle => {
                self.buf[op..op + bh.size].fill(body[0]);
                op + bh.size
            }
            BlockKind::Compressed => {
                let cap = self.buf.len();
                decompress_block(ctx, body, at, &mut self.buf, op, cap, &win, block_max)?
            }
        };
        self.op = end;
        Ok(op..end)
    }
}

/// Check the end of a frame: the declared content size, then the checksum (`stored`, when
/// the frame has one) against the hash of its content.
///
/// Mirrors the end of ZSTD_decompressFrame.
pub(crate) fn finish_frame(
    hdr: &FrameHeader,
    at: usize,
    produced: u64,
    hasher: Option<xxhash_rust::xxh64::Xxh64>,
    stored: Option<[u8; 4]>,
) -> Result<(), ZstdError> {
    if let Some(fcs) = hdr.content_size
        && fcs != produced
    {
        return Err(ZstdError::ContentSizeMismatch {
            at,
            declared: fcs,
            got: produced,
        });
    }
    if let (Some(h), Some(c)) = (hasher, stored) {
        let stored = u32::from_le_bytes(c);
        let computed = h.digest() as u32;
        if stored != computed {
            return Err(ZstdError::ChecksumMismatch {
                at,
                stored,
                computed,
            });
        }
    }
    Ok(())
}

/// Decode one frame (header at `src[0]`, byte `at`), writing its content to `out` block by
/// block; returns `(input bytes used, bytes written)`.
///
/// Mirrors ZSTD_decompressStream for one frame.
pub(crate) fn stream_frame(
    ctx: &mut DCtx,
    src: &[u8],
    at: usize,
    out: &mut dyn Write,
) -> Result<(usize, u64), ZstdError> {
    let limit = stream_window_limit(ctx.max_window);
    let hdr = parse_frame_header(src, at, limit, ctx.dict_ids())?;
    ctx.reset_for_frame();
    let mut ring = Ring::for_frame(&hdr);
    let mut hasher = hdr.checksum.then(|| xxhash_rust::xxh64::Xxh64::new(0));
    let mut ip = hdr.len;
    let mut produced = 0u64;
    loop {
        let bat = at + ip;
        let (bh, body) = next_block(src, ip, at, hdr.block_max)?;
        let range = ring.decode_block(ctx, &bh, body, bat, hdr.block_max)?;
        let block = &ring.buf[range];
        if let Some(h) = hasher.as_mut() {
            h.update(block);
        }
        out.write_all(block).map_err(write_error)?;
        produced += block.len() as u64;
        ip += BLOCK_HEADER_SIZE + bh.stored();
        if bh.last {
            break;
        }
    }
    // The content size is checked before the checksum is read, as libzstd does.
    finish_frame(&hdr, at, produced, None, None)?;
    let mut stored = None;
    if hdr.checksum {
        let c = src.get(ip..ip + 4).ok_or(ZstdError::Truncated {
            at: at + ip,
            what: "content checksum",
        })?;
        stored = Some([c[0], c[1], c[2], c[3]]);
        ip += 4;
    }
    finish_frame(&hdr, at, produced, hasher, stored)?;
    Ok((ip, produced))
}

/// Decode every frame of `src` into `out` (skippable frames skipped) with memory bounded by
/// the largest window; returns the bytes written.
///
/// Mirrors ZSTD_decompressStream over a whole input.
pub(crate) fn decompress_to(
    ctx: &mut DCtx,
    src: &[u8],
    out: &mut dyn Write,
) -> Result<u64, ZstdError> {
    let mut total = 0u64;
    super::frame::for_each_frame(src, |frame, at| {
        let (used, n) = stream_frame(ctx, frame, at, out)?;
        total += n;
        Ok(used)
    })?;
    Ok(total)
}

/// Where a [`StreamDecoder`] stands between two reads.
enum Stage {
    /// At a frame boundary (or at the start).
    BetweenFrames,
    /// Inside a skippable frame whose magic number is at `at`: `left` bytes still to skip.
    Skipping { at: usize, left: u64 },
    /// Inside a zstd frame, before its next block header.
    InFrame(Box<FrameState>),
    /// After a frame's last block: its content checksum still to read and check.
    Ending(Box<FrameState>),
    /// The input is exhausted after complete frames (or one, when asked for one only).
    Done,
    /// Invalid data was reported; every later read reports it again.
    Failed(String),
}

/// Why a step stopped.
enum StepError {
    /// The reader failed (`WouldBlock`, `TimedOut`, ...): what was read so far is kept, and
    /// the step can be made again.
    Read(std::io::Error),
    /// The input is not valid zstd data, or ends too early: final.
    Data(std::io::Error),
}

impl From<std::io::Error> for StepError {
    fn from(e: std::io::Error) -> Self {
        StepError::Read(e)
    }
}

/// Invalid data, as a step reports it.
fn bad(e: ZstdError) -> StepError {
    StepError::Data(invalid(e))
}

/// The state of the frame a [`StreamDecoder`] is decoding.
struct FrameState {
    hdr: FrameHeader,
    /// Input offset of the frame's magic number.
    at: usize,
    hasher: Option<xxhash_rust::xxh64::Xxh64>,
    produced: u64,
}

/// A buffered reader's buffer, for reading blocks in place (the `BufRead` methods of the
/// reader, kept as function pointers so that [`StreamReader`] needs no `BufRead` bound).
struct InPlace<R> {
    peek: fn(&mut R) -> std::io::Result<&[u8]>,
    consume: fn(&mut R, usize),
}

impl<R> Clone for InPlace<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for InPlace<R> {}

/// A `std::io::Read` adapter that decodes zstd frames (skippable frames skipped) from any
/// reader, with memory bounded by the window: the input is read one block at a time and
/// each block is decoded into the frame's ring buffer. From a buffered reader whose
/// buffer holds a whole block (a slice always does), the block is decoded where it lies.
///
/// Mirrors ZSTD_decompressStream driven by a reader (which also decodes a block from the
/// caller's input when all of it is there, and buffers it otherwise).
pub(crate) struct StreamReader<R> {
    src: R,
    in_place: Option<InPlace<R>>,
    ctx: Box<DCtx>,
    input: Vec<u8>,
    /// Bytes of the input consumed so far (error offsets).
    at: usize,
    stage: Stage,
    /// The current (or last) frame's ring buffer.
    ring: Option<Ring>,
    /// Decoded bytes not yet handed out: `ring.buf[pending]`.
    pending: std::ops::Range<usize>,
    frames: usize,
    /// Whether to stop after the first zstd frame.
    single_frame: bool,
}

fn invalid(e: ZstdError) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e)
}

impl<R: std::io::Read> StreamReader<R> {
    pub(crate) fn new(src: R, ctx: Box<DCtx>) -> Self {
        StreamReader {
            src,
            in_place: None,
            ctx,
            input: Vec::new(),
            at: 0,
            stage: Stage::BetweenFrames,
            ring: None,
            pending: 0..0,
            frames: 0,
            single_frame: false,
        }
    }

    /// Stop after the first zstd frame (skippable frames before it are skipped): the
    /// bytes after it are left in the reader.
    pub(crate) fn single_frame(&mut self) {
        self.single_frame = true;
    }

    pub(crate) fn get_ref(&self) -> &R {
        &self.src
    }

    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.src
    }

    pub(crate) fn into_inner(self) -> R {
        self.src
    }

    /// Decode each block where the reader's buffer holds it whole, instead of copying it
    /// into a buffer of our own first.
    pub(crate) fn read_in_place(&mut self)
    where
        R: std::io::BufRead,
    {
        self.in_place = Some(InPlace {
            peek: R::fill_buf,
            consume: R::consume,
        });
    }

    /// Start over on `src`, keeping the context and the ring buffer; returns the old input.
    pub(crate) fn reset(&mut self, src: R) -> R {
        self.input.clear();
        self.at = 0;
        self.stage = Stage::BetweenFrames;
        self.pending = 0..0;
        self.frames = 0;
        std::mem::replace(&mut self.src, src)
    }

    /// Read until `self.input` holds `total` bytes of the piece being read (a frame
    /// header, a block, a checksum; it is cleared once the piece is used), or the input
    /// ends; returns how many it holds. A read that fails keeps what it had read there.
    ///
    /// Through `read_to_end`, which reads into the vector's spare capacity: readers that
    /// can fill memory they did not initialise (slices, files) skip the zero-fill a `read`
    /// into a resized vector needs (a memset of every compressed block).
    fn fill_to(&mut self, total: usize) -> std::io::Result<usize> {
        let have = self.input.len();
        if have < total {
            self.input.reserve(total - have);
            (&mut self.src)
                .take((total - have) as u64)
                .read_to_end(&mut self.input)?;
        }
        Ok(self.input.len())
    }

    /// [`fill_to`](Self::fill_to) `total` bytes, or fail with a truncation error naming
    /// `what` at `at`.
    fn need_to(&mut self, total: usize, at: usize, what: &'static str) -> Result<(), StepError> {
        if self.fill_to(total)? < total {
            return Err(bad(ZstdError::Truncated { at, what }));
        }
        Ok(())
    }

    /// Advance the decoder until decoded bytes are pending or the input is done. A step
    /// that fails in the reader leaves the stage as it was, to be made again.
    fn step(&mut self) -> Result<(), StepError> {
        let (next, result) = match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Done => (Stage::Done, Ok(())),
            Stage::Failed(msg) => {
                let e = std::io::Error::new(std::io::ErrorKind::InvalidData, msg.clone());
                (Stage::Failed(msg), Err(StepError::Data(e)))
            }
            Stage::BetweenFrames => match self.start_frame() {
                Ok(next) => (next, Ok(())),
                Err(e) => (Stage::BetweenFrames, Err(e)),
            },
            Stage::Skipping { at, left } => self.skip(at, left),
            Stage::InFrame(mut f) => match self.next_block(&mut f) {
                // The checksum is read at once, so that a bad one is reported before the
                // last block's bytes are handed out, when the reader gives it.
                Ok(true) => match self.end_frame(&f) {
                    Ok(()) => (self.after_frame(), Ok(())),
                    Err(StepError::Read(e)) => (Stage::Ending(f), Err(StepError::Read(e))),
                    Err(e) => (Stage::Done, Err(e)),
                },
                Ok(false) => (Stage::InFrame(f), Ok(())),
                Err(e) => (Stage::InFrame(f), Err(e)),
            },
            Stage::Ending(f) => match self.end_frame(&f) {
                Ok(()) => (self.after_frame(), Ok(())),
                Err(e) => (Stage::Ending(f), Err(e)),
            },
        };
        self.stage = next;
        result
    }

    /// The stage after a complete zstd frame.
    fn after_frame(&self) -> Stage {
        if self.single_frame {
            Stage::Done
        } else {
            Stage::BetweenFrames
        }
    }

    /// Read the next frame's magic number and header (or start skipping a skippable
    /// frame); the next stage.
    fn start_frame(&mut self) -> Result<Stage, StepError> {
        let at = self.at;
        let got = self.fill_to(4)?;
        if got == 0 && self.frames > 0 {
            return Ok(Stage::Done);
        }
        if got < 4 {
            let rest = &self.input[..got];
            return Err(bad(super::frame::short_frame_start(rest, at)));
        }
        let magic =
            u32::from_le_bytes([self.input[0], self.input[1], self.input[2], self.input[3]]);
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            self.need_to(8, at, "skippable frame")?;
            let size =
                u32::from_le_bytes([self.input[4], self.input[5], self.input[6], self.input[7]]);
            self.input.clear();
            self.at += 8;
            return Ok(Stage::Skipping {
                at,
                left: u64::from(size),
            });
        }
        if magic != crate::zstd::common::format::MAGIC_NUMBER {
            return Err(bad(ZstdError::UnknownFrame { at, magic }));
        }
        self.need_to(5, at, "frame header")?;
        let fhd = self.input[4];
        let single = fhd & 0x20 != 0;
        let fcs_len = match fhd >> 6 {
            0 => single as usize,
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let rest = (!single) as usize + [0usize, 1, 2, 4][(fhd & 3) as usize] + fcs_len;
        self.need_to(5 + rest, at, "frame header")?;
        let limit = stream_window_limit(self.ctx.max_window);
        let hdr = parse_frame_header(&self.input, at, limit, self.ctx.dict_ids()).map_err(bad)?;
        self.input.clear();
        self.at += hdr.len;
        self.ctx.reset_for_frame();
        let old = self.ring.take().map(|r| r.buf).unwrap_or_default();
        self.ring = Some(Ring::for_frame_reusing(&hdr, old));
        let frame = FrameState {
            hasher: hdr.checksum.then(|| xxhash_rust::xxh64::Xxh64::new(0)),
            hdr,
            at,
            produced: 0,
        };
        self.frames += 1;
        Ok(Stage::InFrame(Box::new(frame)))
    }

    /// Skip `left` more bytes of the skippable frame at `at`; the next stage and how the
    /// step ended (a failed read keeps what was skipped).
    fn skip(&mut self, at: usize, mut left: u64) -> (Stage, Result<(), StepError>) {
        let mut scratch = [0u8; 4096];
        while left > 0 {
            let n = left.min(scratch.len() as u64) as usize;
            match self.src.read(&mut scratch[..n]) {
                Ok(0) => {
                    let what = "skippable frame";
                    return (Stage::Done, Err(bad(ZstdError::Truncated { at, what })));
                }
                Ok(k) => {
                    left -= k as u64;
                    self.at += k;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return (Stage::Skipping { at, left }, Err(StepError::Read(e))),
            }
        }
        self.frames += 1;
        (Stage::BetweenFrames, Ok(()))
    }

    /// Read and decode the frame's next block; whether it was the last (whose content size
    /// is then checked).
    fn next_block(&mut self, f: &mut FrameState) -> Result<bool, StepError> {
        let bat = self.at;
        // Not in place past a failed read: the bytes it read are in `input`.
        let in_place = if self.input.is_empty() {
            self.block_in_place(f.hdr.block_max, bat)?
        } else {
            None
        };
        let (bh, range) = match in_place {
            Some(done) => done,
            None => self.block_copied(f.hdr.block_max, bat)?,
        };
        self.at += BLOCK_HEADER_SIZE + bh.stored();
        if let (Some(h), Some(ring)) = (f.hasher.as_mut(), self.ring.as_ref()) {
            h.update(&ring.buf[range.clone()]);
        }
        f.produced += range.len() as u64;
        self.pending = range;
        if bh.last {
            finish_frame(&f.hdr, f.at, f.produced, None, None).map_err(bad)?;
        }
        Ok(bh.last)
    }

    /// Read the frame's content checksum, if it has one, and check the frame's end.
    fn end_frame(&mut self, f: &FrameState) -> Result<(), StepError> {
        let mut stored = None;
        if f.hdr.checksum {
            self.need_to(4, self.at, "content checksum")?;
            stored = Some([self.input[0], self.input[1], self.input[2], self.input[3]]);
            self.input.clear();
            self.at += 4;
        }
        finish_frame(&f.hdr, f.at, f.produced, f.hasher.clone(), stored).map_err(bad)?;
        Ok(())
    }

    /// Decode the block at input offset `bat` where the reader's buffer holds it, header
    /// and body; `None` (nothing consumed) when the reader is not buffered or its buffer
    /// holds less.
    fn block_in_place(
        &mut self,
        block_max: usize,
        bat: usize,
    ) -> Result<Option<(BlockHeader, std::ops::Range<usize>)>, StepError> {
        let Some(in_place) = self.in_place else {
            return Ok(None);
        };
        let buf = match (in_place.peek)(&mut self.src) {
            Ok(buf) if buf.len() >= BLOCK_HEADER_SIZE => buf,
            // Interrupted (the copying path retries), or too little buffered.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Ok(None),
            Err(e) => return Err(StepError::Read(e)),
            Ok(_) => return Ok(None),
        };
        let bh = parse_block_header(buf, bat, block_max).map_err(bad)?;
        let end = BLOCK_HEADER_SIZE + bh.stored();
        let (Some(body), Some(ring)) = (buf.get(BLOCK_HEADER_SIZE..end), self.ring.as_mut()) else {
            return Ok(None);
        };
        let decoded = ring.decode_block(&mut self.ctx, &bh, body, bat, block_max);
        (in_place.consume)(&mut self.src, end);
        Ok(Some((bh, decoded.map_err(bad)?)))
    }

    /// Read the block at input offset `bat` into our buffer and decode it there.
    fn block_copied(
        &mut self,
        block_max: usize,
        bat: usize,
    ) -> Result<(BlockHeader, std::ops::Range<usize>), StepError> {
        self.need_to(BLOCK_HEADER_SIZE, bat, "block header")?;
        let bh = parse_block_header(&self.input, bat, block_max).map_err(bad)?;
        self.need_to(BLOCK_HEADER_SIZE + bh.stored(), bat, "block")?;
        let Some(ring) = self.ring.as_mut() else {
            return Err(StepError::Data(std::io::Error::other(
                "zstd stream decoder lost its ring buffer",
            )));
        };
        let range = ring
            .decode_block(
                &mut self.ctx,
                &bh,
                &self.input[BLOCK_HEADER_SIZE..],
                bat,
                block_max,
            )
            .map_err(bad)?;
        self.input.clear();
        Ok((bh, range))
    }
}

impl<R: std::io::Read> std::io::Read for StreamReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.pending.is_empty()
                && let Some(ring) = self.ring.as_ref()
            {
                let n = buf.len().min(self.pending.len());
                let from = self.pending.start;
                buf[..n].copy_from_slice(&ring.buf[from..from + n]);
                self.pending.start += n;
                return Ok(n);
            }
            if matches!(self.stage, Stage::Done) {
                return Ok(0);
            }
            match self.step() {
                Ok(()) => {}
                Err(StepError::Read(e)) => return Err(e),
                Err(StepError::Data(e)) => {
                    // Nothing more is handed out, not even the bytes of the block that
                    // failed its frame's check.
                    self.pending = 0..0;
                    self.stage = Stage::Failed(e.to_string());
                    return Err(e);
                }
            }
        }
    }
}
