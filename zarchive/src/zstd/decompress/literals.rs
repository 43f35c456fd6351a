//! The literals section of a compressed block: raw, RLE, Huffman-compressed (1 or 4
//! streams) or treeless (reusing the previous Huffman table), decoded into the context's
//! literal buffer.

use super::DCtx;
use super::huf::{self, HufTable, StreamError};
use crate::zstd::common::format;
use crate::zstd::error::ZstdError;

/// Fewest literals a 4-stream section may hold (`MIN_LITERALS_FOR_4_STREAMS`).
const MIN_LITERALS_FOR_4_STREAMS: usize = 6;

/// Literals block types: `symbolEncodingType_e` read for literals.
const LIT_RAW: u8 = format::SET_BASIC;
const LIT_RLE: u8 = format::SET_RLE;
const LIT_TREELESS: u8 = format::SET_REPEAT;

/// Decode the literals section at the start of `src` (a compressed block found at byte
/// `at`) into `ctx.lit`; returns `(bytes read, literal count)`. `room` is how many bytes the
/// output can still take.
///
/// Mirrors ZSTD_decodeLiteralsBlock.
#[inline(always)]
pub(crate) fn decode_literals(
    ctx: &mut DCtx,
    src: &[u8],
    at: usize,
    block_max: usize,
    room: usize,
) -> Result<(usize, usize), ZstdError> {
    let malformed = |reason| ZstdError::Malformed { at, reason };
    let truncated = || ZstdError::Malformed {
        at,
        reason: "literals section runs past the end of the block",
    };
    if src.len() < 2 {
        return Err(malformed("compressed block shorter than 2 bytes"));
    }
    let b0 = src[0];
    let kind = b0 & 3;
    let size_format = (b0 >> 2) & 3;
    let check_size = |n: usize| -> Result<(), ZstdError> {
        if n > block_max {
            return Err(ZstdError::BlockTooLarge {
                at,
                size: n,
                max: block_max,
            });
        }
        if n > room {
            return Err(ZstdError::TooLarge { limit: room });
        }
        Ok(())
    };
    match kind {
        LIT_RAW | LIT_RLE => {
            let (header, n) = match size_format {
                0 | 2 => (1, (b0 >> 3) as usize),
                1 => (2, (u16::from_le_bytes([b0, src[1]]) >> 4) as usize),
                _ => {
                    let b = src.get(..3).ok_or_else(truncated)?;
                    (3, (u32::from_le_bytes([b[0], b[1], b[2], 0]) >> 4) as usize)
                }
            };
            check_size(n)?;
            if kind == LIT_RAW {
                let body = src.get(header..header + n).ok_or_else(truncated)?;
                ctx.work.lit[..n].copy_from_slice(body);
                Ok((header + n, n))
            } else {
                let &byte = src.get(header).ok_or_else(truncated)?;
                ctx.work.lit[..n].fill(byte);
                Ok((header + 1, n))
            }
        }
        _ => {
            if kind == LIT_TREELESS && !ctx.huf_valid {
                return Err(malformed(
                    "treeless literals without a previous Huffman table",
                ));
            }
            if src.len() < 5 {
                return Err(malformed(
                    "compressed literals header runs past the end of the block",
                ));
            }
            let h = u64::from_le_bytes([src[0], src[1], src[2], src[3], src[4], 0, 0, 0]);
            let (header, n, csize, single) = match size_format {
                0 | 1 => (
                    3,
                    ((h >> 4) & 0x3FF) as usize,
                    ((h >> 14) & 0x3FF) as usize,
                    size_format == 0,
                ),
                2 => (
                    4,
                    ((h >> 4) & 0x3FFF) as usize,
                    ((h >> 18) & 0x3FFF) as usize,
                    false,
                ),
                _ => (
                    5,
                    ((h >> 4) & 0x3FFFF) as usize,
                    ((h >> 22) & 0x3FFFF) as usize,
                    false,
                ),
            };
            if n > block_max {
                return Err(ZstdError::BlockTooLarge {
                    at,
                    size: n,
                    max: block_max,
                });
            }
            if !single && n < MIN_LITERALS_FOR_4_STREAMS {
                return Err(malformed(
                    "4-stream literals section with fewer than 6 literals",
                ));
            }
            let body = src.get(header..header + csize).ok_or_else(truncated)?;
            check_size(n)?;
            let bad_table = |reason| ZstdError::BadTable {
                at,
                table: "Huffman",
                reason,
            };
            let streams = if kind != LIT_TREELESS {
                let used = ctx.huf.read(body).map_err(bad_table)?;
                ctx.huf_valid = true;
                ctx.huf_from_dict = false;
                if used >= body.len() {
                    return Err(bad_table("tree description leaves no room for the streams"));
                }
                &body[used..]
            } else {
                body
            };
            if !single && kind != LIT_TREELESS && huf::pairs_pay_off(n, csize) {
                ctx.huf.prepare_pairs();
            }
            // A treeless section right after a dictionary reads the dictionary's table.
            let table: &HufTable = match ctx.dict.as_ref().and_then(|d| d.entropy.as_ref()) {
                Some(e) if ctx.huf_from_dict => &e.huf,
                _ => &ctx.huf,
            };
            let res = if single {
                table.decode_1x(streams, &mut ctx.work.lit[..n])
            } else if table.pairs_ready() {
                table.decode_4x_pairs(streams, &mut ctx.work.lit, n)
            } else {
                table.decode_4x(streams, &mut ctx.work.lit[..n])
            };
            res.map_err(|e| match e {
                StreamError::Malformed(reason) => malformed(reason),
                StreamError::NotConsumed => ZstdError::BitstreamNotConsumed {
                    at,
                    stream: "Huffman literals",
                },
            })?;
            Ok((header + csize, n))
        }
    }
}
