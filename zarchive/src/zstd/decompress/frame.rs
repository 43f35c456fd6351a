//! Frames and blocks: magic numbers, skippable frames, frame headers, block headers, the
//! content size and checksum checks, and one-shot decoding of every frame of an input into
//! one output slice.

use super::block::decompress_block;
use super::dict::DictTables;
use super::{BLOCK_SIZE_MAX, DCtx};
pub(crate) use crate::zstd::common::format::BLOCK_HEADER_SIZE;
use crate::zstd::common::format::{MAGIC_NUMBER, WINDOW_LOG_ABSOLUTE_MIN};
use crate::zstd::error::ZstdError;
use std::sync::Arc;

/// Skippable frames have magic numbers `0x184D2A50..=0x184D2A5F` (`ZSTD_MAGIC_SKIPPABLE_START`).
const SKIPPABLE_START: u32 = 0x184D_2A50;
const SKIPPABLE_MASK: u32 = 0xFFFF_FFF0;
/// Bytes of a skippable frame's header (`ZSTD_SKIPPABLEHEADERSIZE`).
const SKIPPABLE_HEADER: usize = 8;
/// Largest window log a frame may declare at all (`ZSTD_WINDOWLOG_MAX_64`).
const WINDOWLOG_MAX: u32 = 31;

/// The largest window a frame header can declare within [`WINDOWLOG_MAX`]: 2^31 and
/// seven eighths of it.
const LARGEST_WINDOW: u64 = (1 << WINDOWLOG_MAX) + 7 * (1 << (WINDOWLOG_MAX - 3));

/// The window limit of the streaming decoder, which keeps a window in memory: `limit`, at
/// most 2 GiB (libzstd's `ZSTD_d_windowLogMax` goes no higher).
pub(crate) fn stream_window_limit(limit: u64) -> u64 {
    limit.min(1 << WINDOWLOG_MAX)
}

/// The history a block's matches may reach: the current frame's contiguous output from
/// `prefix_start`, plus an older segment `ext` (`lo..hi` in the same buffer) that holds the
/// bytes just before it (the ring buffer's previous lap), and before those the content of
/// the context's dictionary while `dict` says it still adjoins them (one-shot decoding:
/// always; streaming: until the ring first wraps and its bytes leave the window).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Window {
    pub(crate) prefix_start: usize,
    pub(crate) ext: (usize, usize),
    pub(crate) dict: bool,
    /// Where the frame's declared content ends in the buffer, when the header declares it
    /// (one-shot decoding): the output of a valid frame stays below it.
    pub(crate) frame_end: Option<usize>,
}

/// Which dictionary IDs a frame header may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DictIds {
    /// No dictionary was given: a frame naming one is refused.
    Missing,
    /// This dictionary was given (0: raw content): a frame naming another is refused.
    Only(u32),
    /// Any (sizing an output from the headers, before any dictionary matters).
    Any,
    /// Exactly this ID: a frame naming none is refused too.
    Exactly(u32),
}

/// A parsed frame header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameHeader {
    /// Header bytes including the magic number.
    pub(crate) len: usize,
    pub(crate) window: u64,
    pub(crate) content_size: Option<u64>,
    pub(crate) dict_id: u32,
    pub(crate) checksum: bool,
    /// Largest block content: min(window, 128 KiB).
    pub(crate) block_max: usize,
}

/// What the bytes at a frame boundary are.
pub(crate) enum FrameKind {
    Zstd,
    /// A skippable frame of this many bytes in all.
    Skippable(usize),
}

/// Classify the frame starting at `src[0]` (at byte `at` of the input).
///
/// Mirrors the magic-number part of ZSTD_decompressMultiFrame and readSkippableFrameSize.
pub(crate) fn frame_kind(src: &[u8], at: usize) -> Result<FrameKind, ZstdError> {
    let m = src.get(..4).ok_or_else(|| short_frame_start(src, at))?;
    let magic = u32::from_le_bytes([m[0], m[1], m[2], m[3]]);
    if magic == MAGIC_NUMBER {
        return Ok(FrameKind::Zstd);
    }
    if magic & SKIPPABLE_MASK == SKIPPABLE_START {
        let s = src.get(4..8).ok_or(ZstdError::Truncated {
            at,
            what: "skippable frame",
        })?;
        let size = u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize + SKIPPABLE_HEADER;
        if size > src.len() {
            return Err(ZstdError::Truncated {
                at,
                what: "skippable frame",
            });
        }
        return Ok(FrameKind::Skippable(size));
    }
    Err(ZstdError::UnknownFrame { at, magic })
}

/// The error for the fewer than 4 bytes `rest` where a frame's magic number belongs (at
/// byte `at`): a cut frame when they begin a zstd or skippable magic number, else no zstd
/// data at all (their value padded with zero bytes), where `zstd` says "unknown header"
/// for both.
pub(crate) fn short_frame_start(rest: &[u8], at: usize) -> ZstdError {
    let zstd = MAGIC_NUMBER.to_le_bytes();
    let skippable = SKIPPABLE_START.to_le_bytes();
    let begins = |magic: &[u8; 4], first_mask: u8| {
        rest.iter()
            .zip(magic)
            .enumerate()
            .all(|(i, (&b, &m))| if i == 0 { b & first_mask == m } else { b == m })
    };
    if begins(&zstd, 0xFF) || begins(&skippable, 0xF0) {
        return ZstdError::Truncated { at, what: "frame" };
    }
    let mut magic = [0u8; 4];
    magic[..rest.len().min(4)].copy_from_slice(&rest[..rest.len().min(4)]);
    ZstdError::UnknownFrame {
        at,
        magic: u32::from_le_bytes(magic),
    }
}

/// Parse the header of the zstd frame at `src[0]` (magic included; at byte `at`), and
/// apply the decoder's refusals: reserved bit, window limit, unknown dictionary.
///
/// Mirrors ZSTD_getFrameHeader_advanced + ZSTD_decodeFrameHeader.
pub(crate) fn parse_frame_header(
    src: &[u8],
    at: usize,
    max_window: u64,
    dict_ids: DictIds,
) -> Result<FrameHeader, ZstdError> {
    let truncated = || ZstdError::Truncated {
        at,
        what: "frame header",
    };
    // The caller's limit is all that bounds the window's size: libzstd refuses an exponent
    // above 31 (`ZSTD_WINDOWLOG_MAX_64`) but its one-shot decoder takes any window below
    // that, mantissa included (up to 3.75 GiB); the streaming decoder, which keeps a window,
    // passes at most 2 GiB ([`stream_window_limit`]).
    let &fhd = src.get(4).ok_or_else(truncated)?;
    let fcs_code = fhd >> 6;
    let single = fhd & 0x20 != 0;
    let checksum = fhd & 0x04 != 0;
    let did_code = fhd & 3;
    let did_len = [0usize, 1, 2, 4][did_code as usize];
    let fcs_len = match fcs_code {
        0 => single as usize,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let len = 5 + (!single) as usize + did_len + fcs_len;
    let h = src.get(..len).ok_or_else(truncated)?;
    if fhd & 0x08 != 0 {
        return Err(ZstdError::ReservedBit { at });
    }
    let mut pos = 5;
    let mut window = 0u64;
    if !single {
        let wd = h[pos];
        pos += 1;
        let log = (wd >> 3) as u32 + WINDOW_LOG_ABSOLUTE_MIN;
        if log > WINDOWLOG_MAX {
            return Err(ZstdError::WindowTooLarge {
                at,
                window: 1 << log,
                limit: max_window.min(LARGEST_WINDOW),
            });
        }
        let base = 1u64 << log;
        window = base + (base >> 3) * (wd & 7) as u64;
    }
    let mut le = |n: usize| {
        let v = h[pos..pos + n]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | b as u64);
        pos += n;
        v
    };
    let dict = le(did_len) as u32;
    let content_size = match fcs_code {
        0 if !single => None,
        0 => Some(le(1)),
        1 => Some(le(2) + 256),
        2 => Some(le(4)),
        // Deliberate, as libzstd: an 8-byte size of all ones is ZSTD_CONTENTSIZE_UNKNOWN,
        // not a declared size (ZSTD_getFrameHeader_advanced).
        _ => Some(le(8)).filter(|&v| v != u64::MAX),
    };
    if single {
        // An unknown size in a single-segment frame leaves no window to speak of: refused
        // below as too large, where libzstd's one-shot decoder takes it as unlimited.
        window = content_size.unwrap_or(u64::MAX);
    }
    match dict_ids {
        DictIds::Exactly(required) if dict == 0 => {
            return Err(ZstdError::DictionaryIdMissing {
                at,
                dict_id: required,
            });
        }
        _ if dict == 0 => {}
        DictIds::Missing => return Err(ZstdError::DictionaryRequired { at, dict_id: dict }),
        DictIds::Only(given) | DictIds::Exactly(given) if given != dict => {
            return Err(ZstdError::WrongDictionary {
                at,
                frame_dict_id: dict,
                given_dict_id: given,
            });
        }
        DictIds::Only(_) | DictIds::Exactly(_) | DictIds::Any => {}
    }
    if window > max_window {
        return Err(ZstdError::WindowTooLarge {
            at,
            window,
            limit: max_window,
        });
    }
    let block_max = window.min(BLOCK_SIZE_MAX as u64) as usize;
    Ok(FrameHeader {
        len,
        window,
        content_size,
        dict_id: dict,
        checksum,
        block_max,
    })
}

/// A parsed block header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockHeader {
    pub(crate) last: bool,
    pub(crate) kind: BlockKind,
    /// Stored size for raw and compressed blocks, content size for RLE blocks.
    pub(crate) size: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Raw,
    Rle,
    Compressed,
}

impl BlockHeader {
    /// Bytes the block occupies after its header.
    pub(crate) fn stored(&self) -> usize {
        if self.kind == BlockKind::Rle {
            1
        } else {
            self.size
        }
    }
}

/// Parse the block header at `src[0]` (at byte `at`) and check its size against the
/// frame's block maximum.
///
/// Mirrors ZSTD_getcBlockSize, with the size checks of ZSTD_decompressContinue.
pub(crate) fn parse_block_header(
    src: &[u8],
    at: usize,
    block_max: usize,
) -> Result<BlockHeader, ZstdError> {
    let b = src.get(..BLOCK_HEADER_SIZE).ok_or(ZstdError::Truncated {
        at,
        what: "block header",
    })?;
    let h = u32::from_le_bytes([b[0], b[1], b[2], 0]);
    let size = (h >> 3) as usize;
    let kind = match (h >> 1) & 3 {
        0 => BlockKind::Raw,
        1 => BlockKind::Rle,
        2 => BlockKind::Compressed,
        _ => return Err(ZstdError::ReservedBlockType { at }),
    };
    // Deliberate: libzstd's one-shot ZSTD_decompress lets raw and RLE blocks exceed the
    // maximum; its streaming decoder refuses them, and so do we, on every path.
    if size > block_max {
        return Err(ZstdError::BlockTooLarge {
            at,
            size,
            max: block_max,
        });
    }
    Ok(BlockHeader {
        last: h & 1 != 0,
        kind,
        size,
    })
}

/// The block whose header starts at `src[ip]` (byte `at + ip` of the input): its header
/// and its stored body, which must lie within `src`.
pub(crate) fn next_block(
    src: &[u8],
    ip: usize,
    at: usize,
    block_max: usize,
) -> Result<(BlockHeader, &[u8]), ZstdError> {
    let bat = at + ip;
    let bh = parse_block_header(src.get(ip..).unwrap_or(&[]), bat, block_max)?;
    let start = ip + BLOCK_HEADER_SIZE;
    let body = src
        .get(start..start + bh.stored())
        .ok_or(ZstdError::Truncated {
            at: bat,
            what: "block",
        })?;
    Ok((bh, body))
}

/// Decode every frame of `src` into `dst` (skippable frames skipped); returns the bytes
/// written. Each frame's history starts at its own first byte.
///
/// Mirrors ZSTD_decompressMultiFrame.
pub(crate) fn decompress_frames(
    ctx: &mut DCtx,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize, ZstdError> {
    if let Some(dict) = ctx.dict.clone()
        && !dict.content.is_empty()
        && dst.len() <= CONTIGUOUS_DICT_OUTPUT_MAX
    {
        return decompress_frames_after(ctx, &dict, src, dst);
    }
    let mut op = 0usize;
    for_each_frame(src, |frame, at| {
        let (used, produced) = decompress_frame(ctx, frame, at, dst, op, op)?;
        op += produced;
        Ok(used)
    })?;
    Ok(op)
}

/// Outputs up to this size decode right after a copy of the dictionary's content, so that
/// matches into it take the fast path (small frames with a dictionary reach into it all the
/// time); larger ones decode in place and take the exact path for those matches.
const CONTIGUOUS_DICT_OUTPUT_MAX: usize = 1 << 20;

/// [`decompress_frames`] for small outputs with a dictionary: each frame decodes into the
/// context's scratch buffer right after `content` (kept there between calls), the history
/// running on from the dictionary into the frame as libzstd's contiguous case does, and is
/// then copied to `dst`.
fn decompress_frames_after(
    ctx: &mut DCtx,
    dict: &Arc<DictTables>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize, ZstdError> {
    let d = dict.content.len();
    // Decoding never writes below `d`: the copy stays valid while the dictionary does.
    // Taken out while in use (so an unwinding panic cannot leave it claimed but empty).
    let held = ctx.scratch_dict.take();
    let mut scratch = std::mem::take(&mut ctx.dict_scratch);
    if !held.as_ref().is_some_and(|s| Arc::ptr_eq(s, dict)) || scratch.len() < d {
        scratch.clear();
        scratch.extend_from_slice(&dict.content);
    }
    let cap = dst.len();
    scratch.resize(d + cap, 0);
    let mut op = 0usize;
    let result = for_each_frame(src, |frame, at| {
        // The frame may fill what is left of the caller's buffer.
        let room = &mut scratch[..d + (cap - op)];
        let (used, produced) =
            decompress_frame(ctx, frame, at, room, d, 0).map_err(|e| match e {
                ZstdError::TooLarge { .. } => ZstdError::TooLarge { limit: cap },
                e => e,
            })?;
        let out = dst
            .get_mut(op..op + produced)
            .ok_or(ZstdError::TooLarge { limit: cap })?;
        out.copy_from_slice(&scratch[d..d + produced]);
        op += produced;
        Ok(used)
    });
    ctx.dict_scratch = scratch;
    ctx.scratch_dict = Some(dict.clone());
    result.map(|()| op)
}

/// Walk the frames of `src`: skippable frames are skipped, `decode` is called with each zstd
/// frame's bytes (to the end of the input) and its offset, and returns the bytes it used.
/// An empty input is an error (deliberate: libzstd returns 0 bytes; an empty input is no
/// frame).
///
/// Mirrors the frame loop of ZSTD_decompressMultiFrame.
pub(crate) fn for_each_frame(
    src: &[u8],
    mut decode: impl FnMut(&[u8], usize) -> Result<usize, ZstdError>,
) -> Result<(), ZstdError> {
    if src.is_empty() {
        return Err(ZstdError::Truncated {
            at: 0,
            what: "frame",
        });
    }
    let mut pos = 0usize;
    while pos < src.len() {
        pos += match frame_kind(&src[pos..], pos)? {
            FrameKind::Skippable(n) => n,
            FrameKind::Zstd => decode(&src[pos..], pos)?,
        };
    }
    Ok(())
}

/// Decode the zstd frame at `src[0]` (at byte `at`) into `dst[op..]`, its history starting
/// at `dst[history..]` (`op`, or earlier when a dictionary's content was copied before
/// it); returns `(input bytes used, bytes produced)`.
///
/// Mirrors ZSTD_decompressFrame.
fn decompress_frame(
    ctx: &mut DCtx,
    src: &[u8],
    at: usize,
    dst: &mut [u8],
    op: usize,
    history: usize,
) -> Result<(usize, usize), ZstdError> {
    let hdr = parse_frame_header(src, at, ctx.max_window, ctx.dict_ids())?;
    if let Some(fcs) = hdr.content_size
        && fcs > (dst.len() - op) as u64
    {
        return Err(ZstdError::TooLarge { limit: dst.len() });
    }
    ctx.reset_for_frame();
    let frame_start = op;
    // With the dictionary's content copied in front, it is part of the prefix.
    let win = Window {
        prefix_start: history,
        ext: (0, 0),
        dict: history == op,
        frame_end: hdr.content_size.map(|fcs| op + fcs as usize),
    };
    let mut ip = hdr.len;
    let mut op = op;
    let cap = dst.len();
    loop {
        let bat = at + ip;
        let (bh, body) = next_block(src, ip, at, hdr.block_max)?;
        match bh.kind {
            BlockKind::Raw => {
                let end = op + bh.size;
                let d = dst
                    .get_mut(op..end)
                    .ok_or(ZstdError::TooLarge { limit: cap })?;
                d.copy_from_slice(body);
                op = end;
            }
            BlockKind::Rle => {
                let end = op + bh.size;
                let d = dst
                    .get_mut(op..end)
                    .ok_or(ZstdError::TooLarge { limit: cap })?;
                d.fill(body[0]);
                op = end;
            }
            BlockKind::Compressed => {
                op = decompress_block(ctx, body, bat, dst, op, cap, &win, hdr.block_max)?;
            }
        }
        ip += BLOCK_HEADER_SIZE + bh.stored();
        if bh.last {
            break;
        }
    }
    let produced = op - frame_start;
    if let Some(fcs) = hdr.content_size
        && fcs != produced as u64
    {
        return Err(ZstdError::ContentSizeMismatch {
            at,
            declared: fcs,
            got: produced as u64,
        });
    }
    if hdr.checksum {
        let c = src.get(ip..ip + 4).ok_or(ZstdError::Truncated {
            at: at + ip,
            what: "content checksum",
        })?;
        let stored = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let computed = xxhash_rust::xxh64::xxh64(&dst[frame_start..op], 0) as u32;
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

/// An upper bound of the bytes every frame of `src` decodes to, from frame and block
/// headers only (no decoding); `None` when the headers are not walkable.
///
/// Mirrors ZSTD_decompressBound, except that a frame's declared content size counts for
/// no more than its blocks can hold (libzstd's takes the declared size as it is).
pub(crate) fn decompressed_bound(src: &[u8], max_window: u64) -> Option<u64> {
    let mut pos = 0usize;
    let mut total = 0u64;
    while pos < src.len() {
        match frame_kind(&src[pos..], pos).ok()? {
            FrameKind::Skippable(n) => pos += n,
            FrameKind::Zstd => {
                let hdr = parse_frame_header(&src[pos..], pos, max_window, DictIds::Any).ok()?;
                let mut ip = pos + hdr.len;
                // What the blocks can hold: raw and RLE blocks exactly their size, a
                // compressed block up to the block maximum.
                let mut most = 0u64;
                loop {
                    let bh = parse_block_header(src.get(ip..)?, ip, hdr.block_max).ok()?;
                    ip += BLOCK_HEADER_SIZE + bh.stored();
                    most += match bh.kind {
                        BlockKind::Raw | BlockKind::Rle => bh.size,
                        BlockKind::Compressed => hdr.block_max,
                    } as u64;
                    if bh.last {
                        break;
                    }
                }
                if hdr.checksum {
                    ip += 4;
                }
                pos = ip;
                // No frame holds more than its blocks can, whatever its header says (a
                // frame claiming more is corrupt, and must not size anything).
                total = total.saturating_add(hdr.content_size.map_or(most, |fcs| fcs.min(most)));
            }
        }
    }
    Some(total)
}
