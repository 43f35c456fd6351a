//! The sequences section: its header and table modes (`ZSTD_decodeSeqHeaders`), and the
//! fused loop that decodes each sequence and executes it straight into the output
//! (`ZSTD_decompressSequences_body`), with no intermediate sequence buffer.

use super::bits::BitReader;
use super::copy::{exact_copy_match, wild_copy_lits, wild_copy_match};
use super::frame::Window;
use super::fse_table::{
    LL_KIND, LL_PREDEFINED, ML_KIND, ML_PREDEFINED, OF_KIND, OF_PREDEFINED, SeqKind, SeqTable,
    build_rle_table, read_seq_table,
};
use super::{DCtx, LIT_BUFFER_SIZE, TableSource, WILDCOPY_OVERLENGTH};
use crate::zstd::error::ZstdError;

/// Sequence counts from this value on take a 3-byte header (`LONGNBSEQ`).
const LONG_NB_SEQ: usize = 0x7F00;
/// Bits that fit between two reloads of the 64-bit container for the offset and match
/// length (`STREAM_ACCUMULATOR_MIN_64 - (LLFSELog + MLFSELog + OffFSELog)`).
const MID_RELOAD_BITS: u32 = 57 - (9 + 9 + 8);

/// Table modes (`symbolEncodingType_e`).
const SET_BASIC: u8 = 0;
const SET_RLE: u8 = 1;
const SET_COMPRESSED: u8 = 2;

/// Select or build one sequence table; returns the bytes read.
///
/// Mirrors ZSTD_buildSeqTable.
fn build_table(
    mode: u8,
    table: &mut SeqTable,
    source: &mut TableSource,
    kind: &SeqKind,
    fse_valid: bool,
    src: &[u8],
    at: usize,
) -> Result<usize, ZstdError> {
    let bad = |reason| ZstdError::BadTable {
        at,
        table: kind.name,
        reason,
    };
    match mode {
        SET_BASIC => {
            *source = TableSource::Predefined;
            Ok(0)
        }
        SET_RLE => {
            let &symbol = src
                .first()
                .ok_or(bad("RLE symbol runs past the end of the block"))?;
            if symbol as usize > kind.max_symbol {
                return Err(bad("RLE symbol above the alphabet"));
            }
            build_rle_table(table, symbol as usize, kind);
            *source = TableSource::Own;
            Ok(1)
        }
        SET_COMPRESSED => {
            let used = read_seq_table(table, kind, src).map_err(bad)?;
            *source = TableSource::Own;
            Ok(used)
        }
        _ => {
            if !fse_valid {
                return Err(bad("repeat mode without a previous table"));
            }
            Ok(0)
        }
    }
}

/// Read the sequences section header at the start of `src` (found at byte `at`) and set up
/// the three tables; returns `(sequence count, bytes read)`.
///
/// Mirrors ZSTD_decodeSeqHeaders.
pub(crate) fn decode_seq_headers(
    ctx: &mut DCtx,
    src: &[u8],
    at: usize,
) -> Result<(usize, usize), ZstdError> {
    let short = || ZstdError::Malformed {
        at,
        reason: "sequences header runs past the end of the block",
    };
    let &b0 = src.first().ok_or_else(short)?;
    let (nb_seq, mut pos) = match b0 {
        0..=127 => (b0 as usize, 1),
        255 => {
            let b = src.get(1..3).ok_or_else(short)?;
            (u16::from_le_bytes([b[0], b[1]]) as usize + LONG_NB_SEQ, 3)
        }
        _ => {
            let &b1 = src.get(1).ok_or_else(short)?;
            ((((b0 as usize) - 0x80) << 8) + b1 as usize, 2)
        }
    };
    // No sequences (in any of the three count forms): the section ends here.
    if nb_seq == 0 {
        if src.len() != pos {
            return Err(ZstdError::Malformed {
                at,
                reason: "bytes after a sequences section with no sequences",
            });
        }
        return Ok((0, pos));
    }
    let &modes = src.get(pos).ok_or_else(short)?;
    if modes & 3 != 0 {
        return Err(ZstdError::Malformed {
            at,
            reason: "reserved bits of the sequences modes byte are set",
        });
    }
    pos += 1;
    let fse_valid = ctx.fse_valid;
    let rest = |pos: usize| src.get(pos..).unwrap_or(&[]);
    pos += build_table(
        modes >> 6,
        &mut ctx.ll,
        &mut ctx.ll_src,
        &LL_KIND,
        fse_valid,
        rest(pos),
        at,
    )?;
    pos += build_table(
        (modes >> 4) & 3,
        &mut ctx.of,
        &mut ctx.of_src,
        &OF_KIND,
        fse_valid,
        rest(pos),
        at,
    )?;
    pos += build_table(
        (modes >> 2) & 3,
        &mut ctx.ml,
        &mut ctx.ml_src,
        &ML_KIND,
        fse_valid,
        rest(pos),
        at,
    )?;
    Ok((nb_seq, pos))
}

/// Where one block's sequences write, and how far they may go.
pub(crate) struct BlockOut<'a> {
    pub(crate) buf: &'a mut [u8],
    /// First byte this block writes.
    pub(crate) start: usize,
    /// End the block's content may not pass (`start + block maximum`, within `buf`).
    pub(crate) block_end: usize,
    /// End of the caller's capacity (`buf.len()` in one-shot mode).
    pub(crate) cap_end: usize,
    pub(crate) block_max: usize,
}

/// Decode `nb_seq` sequences from the bitstream `src` and execute each one at once:
/// literals from `ctx.lit[..lit_len]`, matches from the history in `win`; then copy the last
/// literals. Returns the new output position.
///
/// Mirrors ZSTD_decompressSequences_body with ZSTD_decodeSequence and ZSTD_execSequence.
pub(crate) fn decode_and_execute(
    ctx: &mut DCtx,
    out: &mut BlockOut<'_>,
    win: &Window,
    src: &[u8],
    nb_seq: usize,
    lit_len: usize,
    at: usize,
) -> Result<usize, ZstdError> {
    let mut op = out.start;
    let mut lp = 0usize;
    let lits: &[u8; LIT_BUFFER_SIZE] = &ctx.lit;
    if nb_seq > 0 {
        ctx.fse_valid = true;
        let ll_t: &SeqTable = if ctx.ll_src == TableSource::Predefined {
            &LL_PREDEFINED
        } else {
            &ctx.ll
        };
        let of_t: &SeqTable = if ctx.of_src == TableSource::Predefined {
            &OF_PREDEFINED
        } else {
            &ctx.of
        };
        let ml_t: &SeqTable = if ctx.ml_src == TableSource::Predefined {
            &ML_PREDEFINED
        } else {
            &ctx.ml
        };
        let mut r = BitReader::new(src).ok_or(ZstdError::Malformed {
            at,
            reason: "sequence bitstream is empty or has no end mark",
        })?;
        let mut ll_s = r.read(ll_t.log) as usize;
        r.reload();
        let mut of_s = r.read(of_t.log) as usize;
        r.reload();
        let mut ml_s = r.read(ml_t.log) as usize;
        r.reload();
        let mut reps = ctx.reps;
        let buf_len = out.buf.len();
        // Sequences ending at or before this point take the fast path: their wild copies
        // stay inside the buffer and the block maximum is respected.
        let fast_end = out
            .block_end
            .min(buf_len.saturating_sub(WILDCOPY_OVERLENGTH));
        let prefix_start = win.prefix_start;
        for i in 0..nb_seq {
            let ll = ll_t.rows[ll_s & 511];
            let ml = ml_t.rows[ml_s & 511];
            let of = of_t.rows[of_s & 511];
            let of_bits = of.extra as u32;
            let offset = if of_bits > 1 {
                let o = of.base as usize + r.read_fast(of_bits) as usize;
                reps = [o, reps[0], reps[1]];
                o
            } else {
                let ll0 = (ll.base == 0) as usize;
                if of_bits == 0 {
                    let o = reps[ll0];
                    reps[1] = reps[1 - ll0];
                    reps[0] = o;
                    o
                } else {
                    let code = of.base as usize + ll0 + r.read(1) as usize;
                    let mut o = if code == 3 {
                        reps[0].wrapping_sub(1)
                    } else {
                        reps[code & 3]
                    };
                    // A zero offset is corrupt: make it impossible so execution refuses it.
                    if o == 0 {
                        o = usize::MAX;
                    }
                    if code != 1 {
                        reps[2] = reps[1];
                    }
                    reps[1] = reps[0];
                    reps[0] = o;
                    o
                }
            };
            // Most codes have no extra bits: skip the read (as ZSTD_decodeSequence does).
            let mut ml_len = ml.base as usize;
            if ml.extra > 0 {
                ml_len += r.read_fast(ml.extra as u32) as usize;
            }
            if of_bits + ml.extra as u32 + ll.extra as u32 >= MID_RELOAD_BITS {
                r.reload();
            }
            let mut ll_len = ll.base as usize;
            if ll.extra > 0 {
                ll_len += r.read_fast(ll.extra as u32) as usize;
            }
            if i + 1 != nb_seq {
                ll_s = ll.next as usize + r.read(ll.nb as u32) as usize;
                ml_s = ml.next as usize + r.read(ml.nb as u32) as usize;
                of_s = of.next as usize + r.read(of.nb as u32) as usize;
                r.reload();
            }
            // Execute.
            let lit_end = op + ll_len;
            let m_end = lit_end + ml_len;
            if lp + ll_len <= lit_len && m_end <= fast_end && offset <= lit_end - prefix_start {
                wild_copy_lits(out.buf, op, lits, lp, ll_len);
                wild_copy_match(out.buf, lit_end, offset, ml_len);
            } else {
                exec_sequence_end(out, win, lits, lp, lit_len, op, ll_len, ml_len, offset, at)?;
            }
            op = m_end;
            lp += ll_len;
        }
        if !r.finished() {
            return Err(ZstdError::BitstreamNotConsumed {
                at,
                stream: "sequences",
            });
        }
        ctx.reps = reps;
    }
    // Last literals.
    let rest = lit_len - lp;
    check_room(out, op + rest, at)?;
    out.buf[op..op + rest].copy_from_slice(&ctx.lit[lp..lit_len]);
    Ok(op + rest)
}

/// Refuse a write ending at `end` past the block maximum or the caller's capacity.
#[inline]
fn check_room(out: &BlockOut<'_>, end: usize, at: usize) -> Result<(), ZstdError> {
    if end > out.block_end {
        return Err(ZstdError::BlockTooLarge {
            at,
            size: end - out.start,
            max: out.block_max,
        });
    }
    if end > out.cap_end {
        return Err(ZstdError::TooLarge { limit: out.cap_end });
    }
    Ok(())
}

/// Execute one sequence exactly: near the end of the output, with matches reaching into
/// the older history segment, or when the sequence is invalid (then a typed error).
///
/// Mirrors ZSTD_execSequenceEnd (and the extDict branch of ZSTD_execSequence).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn exec_sequence_end(
    out: &mut BlockOut<'_>,
    win: &Window,
    lits: &[u8],
    lp: usize,
    lit_len: usize,
    op: usize,
    ll_len: usize,
    ml_len: usize,
    offset: usize,
    at: usize,
) -> Result<(), ZstdError> {
    let lit_end = op + ll_len;
    let m_end = lit_end + ml_len;
    check_room(out, m_end, at)?;
    if lp + ll_len > lit_len {
        return Err(ZstdError::Malformed {
            at,
            reason: "sequences use more literals than the literals section holds",
        });
    }
    if offset == usize::MAX {
        return Err(ZstdError::Malformed {
            at,
            reason: "a repeat offset resolves to zero",
        });
    }
    out.buf[op..lit_end].copy_from_slice(&lits[lp..lp + ll_len]);
    let in_prefix = lit_end - win.prefix_start;
    if offset <= in_prefix {
        exact_copy_match(out.buf, lit_end, lit_end - offset, ml_len);
        return Ok(());
    }
    // The match starts in the older segment (the ring buffer's previous lap).
    let (ext_lo, ext_hi) = win.ext;
    let ext_len = ext_hi.saturating_sub(ext_lo);
    let back = offset - in_prefix;
    if back > ext_len {
        return Err(ZstdError::OffsetBeyondHistory {
            at,
            offset: offset as u64,
            available: (in_prefix + ext_len) as u64,
        });
    }
    let from = ext_hi - back;
    let first = back.min(ml_len);
    out.buf.copy_within(from..from + first, lit_end);
    if first < ml_len {
        exact_copy_match(out.buf, lit_end + first, win.prefix_start, ml_len - first);
    }
    Ok(())
}
