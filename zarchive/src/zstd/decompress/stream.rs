//! Streaming decoding with memory bounded by the window: each frame decodes block by block
//! into a ring buffer of `window + 2 × block maximum + slack` bytes, and every block is
//! handed to the writer as soon as it is decoded. When a block would not fit before the
//! buffer's end, decoding wraps to its start and the previous lap becomes the older history
//! segment that matches may still reach.

use super::block::decompress_block;
use super::frame::{
    BLOCK_HEADER, BlockKind, FrameHeader, FrameKind, Window, frame_kind, parse_block_header,
    parse_frame_header,
};
use super::{DCtx, WILDCOPY_OVERLENGTH};
use crate::zstd::ZstdError;
use std::io::Write;

/// Map a writer failure: the output side refused the bytes.
fn write_error(e: std::io::Error) -> ZstdError {
    ZstdError::Write { source: e }
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
        let history = hdr.content_size.map_or(hdr.window, |c| c.min(hdr.window)) as usize;
        let size = history + 2 * hdr.block_max + 2 * WILDCOPY_OVERLENGTH;
        Ring {
            buf: vec![0u8; size],
            win: Window::default(),
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
    let hdr = parse_frame_header(src, at, ctx.max_window, ctx.dict_id)?;
    ctx.reset_for_frame();
    let mut ring = Ring::for_frame(&hdr);
    let mut hasher = hdr.checksum.then(|| xxhash_rust::xxh64::Xxh64::new(0));
    let mut ip = hdr.len;
    let mut produced = 0u64;
    loop {
        let bat = at + ip;
        let bh = parse_block_header(&src[ip..], bat, hdr.block_max)?;
        ip += BLOCK_HEADER;
        let body = src.get(ip..ip + bh.stored()).ok_or(ZstdError::Truncated {
            at: bat,
            what: "block",
        })?;
        let win = ring.prepare(hdr.block_max);
        let op = ring.op;
        let end = match bh.kind {
            BlockKind::Raw => {
                ring.buf[op..op + bh.size].copy_from_slice(body);
                op + bh.size
            }
            BlockKind::Rle => {
                ring.buf[op..op + bh.size].fill(body[0]);
                op + bh.size
            }
            BlockKind::Compressed => {
                let cap = ring.buf.len();
                decompress_block(ctx, body, bat, &mut ring.buf, op, cap, &win, hdr.block_max)?
            }
        };
        let block = &ring.buf[op..end];
        if let Some(h) = hasher.as_mut() {
            h.update(block);
        }
        out.write_all(block).map_err(write_error)?;
        produced += block.len() as u64;
        ring.op = end;
        ip += bh.stored();
        if bh.last {
            break;
        }
    }
    if let Some(fcs) = hdr.content_size
        && fcs != produced
    {
        return Err(ZstdError::ContentSizeMismatch {
            at,
            declared: fcs,
            got: produced,
        });
    }
    if let Some(h) = hasher {
        let c = src.get(ip..ip + 4).ok_or(ZstdError::Truncated {
            at: at + ip,
            what: "content checksum",
        })?;
        let stored = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let computed = h.digest() as u32;
        if stored != computed {
            return Err(ZstdError::ChecksumMismatch {
                at,
                stored,
                computed,
            });
        }
        ip += 4;
    }
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
    if src.is_empty() {
        return Err(ZstdError::Truncated {
            at: 0,
            what: "frame",
        });
    }
    let mut pos = 0usize;
    let mut total = 0u64;
    while pos < src.len() {
        match frame_kind(&src[pos..], pos)? {
            FrameKind::Skippable(n) => pos += n,
            FrameKind::Zstd => {
                let (used, n) = stream_frame(ctx, &src[pos..], pos, out)?;
                pos += used;
                total += n;
            }
        }
    }
    Ok(total)
}
