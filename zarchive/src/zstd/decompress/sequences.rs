//! The sequences section: its header and table modes (`ZSTD_decodeSeqHeaders`), and the
//! fused loop that decodes each sequence and executes it straight into the output
//! (`ZSTD_decompressSequences_body`), with no intermediate sequence buffer.

use super::bits::{BitReader, STREAM_COPY_MAX, STREAM_COPY_SIZE};
use super::copy::{
    FIXED_VIEW, FIXED_WINDOW, LONG_RUN, copy_apart, copy_short, exact_copy_match, wild_copy_lits,
    wild_copy_match,
};
use super::frame::Window;
use super::fse_table::{
    LL_KIND, ML_KIND, OF_KIND, SeqKind, SeqTable, SeqTables, Spread, build_rle_table,
    read_seq_table,
};
use super::{DCtx, LIT_BUFFER_SIZE, WILDCOPY_OVERLENGTH};
use crate::zstd::common::format::{SET_BASIC, SET_COMPRESSED, SET_REPEAT, SET_RLE};
use crate::zstd::common::seq_codes::LONG_NB_SEQ;
use crate::zstd::error::ZstdError;

/// Bits that fit between two reloads of the 64-bit container for the offset and match
/// length (`STREAM_ACCUMULATOR_MIN_64 - (LLFSELog + MLFSELog + OffFSELog)`).
const MID_RELOAD_BITS: u32 = 57 - (9 + 9 + 8);

/// Positions in the hot loop's window are below 2^32 (see `copy`).
const POS_MASK: usize = u32::MAX as usize;
/// Literal and match lengths are below 2^18 (largest base plus largest extra bits).
const LEN_MASK: usize = (1 << 20) - 1;

/// Select or build one sequence table; returns the bytes read. A predefined table is
/// copied in (at most 64 rows), so the sequence loop always reads the context's tables.
///
/// Mirrors ZSTD_buildSeqTable.
fn build_table(
    mode: u8,
    table: &mut SeqTable,
    kind: &SeqKind,
    fse_valid: bool,
    src: &[u8],
    at: usize,
    sp: &mut Spread,
) -> Result<usize, ZstdError> {
    let bad = |reason| ZstdError::BadTable {
        at,
        table: kind.name,
        reason,
    };
    match mode {
        SET_BASIC => {
            table.copy_from(kind.predefined);
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
            Ok(1)
        }
        SET_COMPRESSED => read_seq_table(table, kind, src, sp).map_err(bad),
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
    // A table still the dictionary's is copied in when this block repeats it, and is the
    // context's own from here on either way.
    if let Some(e) = ctx.dict.as_ref().and_then(|d| d.entropy.as_ref()) {
        let seq = &mut ctx.work.seq;
        let mine = [&mut seq.ll, &mut seq.of, &mut seq.ml];
        let theirs = [&e.seq.ll, &e.seq.of, &e.seq.ml];
        let table_modes = [modes >> 6, (modes >> 4) & 3, (modes >> 2) & 3];
        for (((table, dict_table), from_dict), mode) in mine
            .into_iter()
            .zip(theirs)
            .zip(ctx.seq_from_dict.iter_mut())
            .zip(table_modes)
        {
            if *from_dict && mode == SET_REPEAT {
                table.copy_from(dict_table);
            }
            *from_dict = false;
        }
    }
    let rest = |pos: usize| src.get(pos..).unwrap_or(&[]);
    let work = &mut *ctx.work;
    pos += build_table(
        modes >> 6,
        &mut work.seq.ll,
        &LL_KIND,
        fse_valid,
        rest(pos),
        at,
        &mut work.spread,
    )?;
    pos += build_table(
        (modes >> 4) & 3,
        &mut work.seq.of,
        &OF_KIND,
        fse_valid,
        rest(pos),
        at,
        &mut work.spread,
    )?;
    pos += build_table(
        (modes >> 2) & 3,
        &mut work.seq.ml,
        &ML_KIND,
        fse_valid,
        rest(pos),
        at,
        &mut work.spread,
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

/// One decoded sequence.
#[derive(Clone, Copy)]
struct Sequence {
    ll: usize,
    ml: usize,
    offset: usize,
}

/// The decoding half of the sequence loop: the bitstream, the three states and the repeat
/// offsets, as scalars so that they stay in registers.
///
/// Mirrors ZSTD_fseState + seqState_t.
struct SeqState<'a> {
    r: BitReader<'a>,
    ll_s: usize,
    of_s: usize,
    ml_s: usize,
    rep0: usize,
    rep1: usize,
    rep2: usize,
}

impl SeqState<'_> {
    /// Decode the next sequence; the states move on unless it is the block's `last`.
    /// A repeat offset that resolves to zero comes out as `usize::MAX`, which execution
    /// refuses.
    ///
    /// Mirrors ZSTD_decodeSequence.
    ///
    /// With `FAST`, every reload is a whole-word one: the caller has checked
    /// [`BitReader::has_words`]`(2)`, so nothing here calls out of line and the hot loop
    /// keeps its registers. The container is loaded on entry and the last reload only
    /// moves the position ([`BitReader::advance`]): across the copies that follow, the
    /// hot loop keeps the position instead of the container, and loads it again when it
    /// comes back here. A caller leaving the fast loop calls [`BitReader::load_from`].
    #[inline(always)]
    fn decode<const FAST: bool>(
        &mut self,
        t: &SeqTables,
        words: &[u8; STREAM_COPY_SIZE],
        last: bool,
    ) -> Sequence {
        if FAST {
            self.r.load_from(words);
        }
        let ll = t.ll.row(self.ll_s);
        let ml = t.ml.row(self.ml_s);
        let of = t.of.row(self.of_s);
        let r = &mut self.r;
        let of_bits = of.extra() as u32;
        let offset = if of_bits > 1 {
            let o = of.base() as usize + r.read_fast(of_bits) as usize;
            self.rep2 = self.rep1;
            self.rep1 = self.rep0;
            self.rep0 = o;
            o
        } else {
            let ll0 = ll.base() == 0;
            if of_bits == 0 {
                // Repeat code 0: the latest offset, or the second after no literals.
                if ll0 {
                    std::mem::swap(&mut self.rep0, &mut self.rep1);
                }
                self.rep0
            } else {
                // Offset code 1 (base 1, one extra bit): repeat codes 1 to 3.
                let code = 1 + ll0 as usize + r.read_fast(1) as usize;
                let o = match code {
                    1 => self.rep1,
                    2 => self.rep2,
                    _ => self.rep0.wrapping_sub(1),
                };
                let o = if o == 0 { usize::MAX } else { o };
                if code != 1 {
                    self.rep2 = self.rep1;
                }
                self.rep1 = self.rep0;
                self.rep0 = o;
                o
            }
        };
        // Most codes have no extra bits: skip the read (as ZSTD_decodeSequence does).
        let mut ml_len = ml.base() as usize;
        if ml.extra() > 0 {
            ml_len += r.read_fast(ml.extra() as u32) as usize;
        }
        if of_bits + ml.extra() as u32 + ll.extra() as u32 >= MID_RELOAD_BITS {
            if FAST {
                r.reload_fast_from(words);
            } else {
                r.reload();
            }
        }
        let mut ll_len = ll.base() as usize;
        if ll.extra() > 0 {
            ll_len += r.read_fast(ll.extra() as u32) as usize;
        }
        if !last {
            self.ll_s = ll.next() as usize + r.read(ll.nb() as u32) as usize;
            self.ml_s = ml.next() as usize + r.read(ml.nb() as u32) as usize;
            self.of_s = of.next() as usize + r.read(of.nb() as u32) as usize;
            if FAST {
                r.advance();
            } else {
                r.reload();
            }
        }
        Sequence {
            ll: ll_len,
            ml: ml_len,
            offset,
        }
    }
}

/// The hot loop of [`decode_and_execute`]: decodes and executes sequences into `$hot`
/// while at least two are left, whole-word reloads are certain and each fits the wild
/// copies (`$room` of the match's end `$m_end`; a match reaching below the window's start
/// fails `seq.offset <= lit_end`), then loads the bit container again. A sequence decoded
/// and not executed is left in `$pending`. Positions are masked with `$mask` and lengths
/// to what they can be (no-ops), so that the compiler sees the room test cover each
/// copy's first chunk. A macro rather than a function: the two windows' loops keep the
/// registers of a loop written out in place (a generic function with a closure for the
/// room test measured 1 % slower, `decode_speed`, mean of 27 rows).
macro_rules! run_fast {
    (
        $st:ident, $hot:ident, $mask:expr, |$m_end:ident| $room:expr,
        [$t:ident, $words:ident, $lits:ident, $lit_len:ident],
        [$op_r:ident, $lp:ident, $left:ident, $pending:ident]
    ) => {
        loop {
            let seq = $st.decode::<true>($t, $words, false);
            let op_m = $op_r & $mask;
            let (ll, ml) = (seq.ll & LEN_MASK, seq.ml & LEN_MASK);
            let lit_end = op_m + ll;
            let $m_end = lit_end + ml;
            if $lp + ll <= $lit_len && $room && seq.offset <= lit_end && ml < LONG_RUN {
                wild_copy_lits($hot, op_m, $lits, $lp, ll);
                wild_copy_match::<false, _>($hot, lit_end, seq.offset, ml);
                $op_r = $m_end;
                $lp += ll;
                $left -= 1;
                if $left <= 1 || !$st.r.has_words(2) {
                    break;
                }
            } else {
                $pending = Some(seq);
                break;
            }
        }
        $st.r.load_from($words);
    };
}

/// Decode `nb_seq` sequences from the bitstream `src` and execute each one at once:
/// literals from `ctx.work.lit[..lit_len]`, matches from the history in `win`; then copy the last
/// literals. Returns the new output position.
///
/// Mirrors ZSTD_decompressSequences_body with ZSTD_decodeSequence and ZSTD_execSequence.
#[inline(always)]
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
    if nb_seq > 0 {
        ctx.fse_valid = true;
        // The hot loop reloads from a copy of the stream (a block's sections are at most
        // 128 KiB: the copy always fits).
        let copied = src.len() <= STREAM_COPY_MAX;
        let copy_len = src.len().min(STREAM_COPY_MAX);
        ctx.work.seq_stream[..copy_len].copy_from_slice(&src[..copy_len]);
        let words: &[u8; STREAM_COPY_SIZE] = &ctx.work.seq_stream;
        let t: &SeqTables = &ctx.work.seq;
        let lits: &[u8; LIT_BUFFER_SIZE] = &ctx.work.lit;
        let dict: &[u8] = ctx.dict.as_deref().map_or(&[], |d| &d.content);
        let mut r = BitReader::new(src).ok_or(ZstdError::Malformed {
            at,
            reason: "sequence bitstream is empty or has no end mark",
        })?;
        let ll_s = r.read(t.ll.log) as usize;
        r.reload();
        let of_s = r.read(t.of.log) as usize;
        r.reload();
        let ml_s = r.read(t.ml.log) as usize;
        r.reload();
        let [rep0, rep1, rep2] = ctx.reps;
        let mut st = SeqState {
            r,
            ll_s,
            of_s,
            ml_s,
            rep0,
            rep1,
            rep2,
        };
        let buf_len = out.buf.len();
        // Sequences ending at or before this point take the fast path: their wild copies
        // stay inside the buffer and the block maximum is respected.
        let fast_end = out
            .block_end
            .min(buf_len.saturating_sub(WILDCOPY_OVERLENGTH));
        let prefix_start = win.prefix_start;
        // The hot loop's window on the output: from the lowest byte its matches may read
        // (within 2 GiB of the block) to the end of its wild copies' reach.
        let base = prefix_start.max(out.start.saturating_sub(1 << 31));
        let reach_end = (fast_end + WILDCOPY_OVERLENGTH).min(buf_len).max(base);
        // Whether the block decodes in the fixed window (see below): the buffer holds
        // it, and the block cannot validly write past it (its maximum, the caller's
        // capacity or the frame's declared size ends there). Where the window's fast
        // path ends (a sequence past it takes the exact path, which refuses a write past
        // the block's or the caller's end).
        let fixed = base + FIXED_VIEW <= buf_len
            && out
                .block_end
                .min(out.cap_end)
                .min(win.frame_end.unwrap_or(usize::MAX))
                <= base + FIXED_WINDOW;
        let fixed_lim = fast_end.saturating_sub(base).min(FIXED_WINDOW);
        // Sequences not yet decoded.
        let mut left = nb_seq;
        while left > 0 {
            // The hot loop: every sequence but the last, while whole-word reloads are
            // certain, and while sequences fit the wild copies. It calls nothing out of
            // line, so its state stays in registers; anything else leaves it.
            // It works on the part of the output its copies can touch, rebased to `base`,
            // so that positions fit in 32 bits (see `copy`); a match reaching below
            // `base` leaves the loop.
            // Positions and lengths are masked to what they can be (a no-op), so that the
            // compiler sees the room test cover each copy's first chunk.
            let mut pending = None;
            let mut op_r = op - base;
            if fixed {
                // The ZAR case: the whole block within 64 KiB of `base` and the buffer
                // 64 bytes longer. Positions masked to 64 KiB (a no-op for the sequences
                // that pass the room test) need no bounds checks at all.
                let hot: &mut [u8; FIXED_VIEW] = (&mut out.buf[base..base + FIXED_VIEW])
                    .try_into()
                    .expect("the fixed window fits the buffer");
                if left > 1 && copied && st.r.has_words(2) {
                    run_fast!(
                        st,
                        hot,
                        usize::MAX,
                        |m_end| m_end <= fixed_lim,
                        [t, words, lits, lit_len],
                        [op_r, lp, left, pending]
                    );
                }
            }
            let hot = &mut out.buf[base..reach_end];
            if !fixed && left > 1 && copied && st.r.has_words(2) {
                run_fast!(
                    st,
                    hot,
                    POS_MASK,
                    |m_end| m_end + WILDCOPY_OVERLENGTH <= hot.len(),
                    [t, words, lits, lit_len],
                    [op_r, lp, left, pending]
                );
            }
            op = base + op_r;
            // One sequence the hot loop left: the last, one near the start of the
            // bitstream, or one to execute exactly.
            let seq = match pending {
                Some(seq) => seq,
                None if left == 1 => st.decode::<false>(t, words, true),
                None => st.decode::<false>(t, words, false),
            };
            let Sequence { ll, ml, offset } = seq;
            let lit_end = op + ll;
            let m_end = lit_end + ml;
            let fits = lp + ll <= lit_len && m_end <= fast_end;
            if fits && offset <= lit_end - base {
                // The wild copies take positions below 2^32: the rebased window again.
                let hot = &mut out.buf[base..reach_end];
                wild_copy_lits(hot, op - base, lits, lp, ll);
                wild_copy_match::<true, _>(hot, lit_end - base, offset, ml);
            } else if fits && let Some(from) = in_previous_lap(win, lit_end, offset, ml, reach_end)
            {
                // A streaming ring's previous lap, above everything this block writes:
                // copied from there as from another slice.
                let (near, lap) = out.buf.split_at_mut(win.ext.0);
                let hot = &mut near[base..reach_end];
                wild_copy_lits(hot, op - base, lits, lp, ll);
                copy_short(
                    &mut hot[lit_end - base..m_end - base],
                    &lap[from..from + ml],
                );
            } else {
                exec_sequence_end(out, win, lits, lp, lit_len, op, ll, ml, offset, at, dict)?;
            }
            op = m_end;
            lp += ll;
            left -= 1;
        }
        if !st.r.finished() {
            return Err(ZstdError::BitstreamNotConsumed {
                at,
                stream: "sequences",
            });
        }
        ctx.reps = [st.rep0, st.rep1, st.rep2];
    }
    // Last literals.
    let rest = lit_len - lp;
    check_room(out, op + rest, at)?;
    out.buf[op..op + rest].copy_from_slice(&ctx.work.lit[lp..lit_len]);
    Ok(op + rest)
}

/// Where a match of `ml` bytes at `offset` back from `lit_end` starts in the older history
/// segment (`win.ext`: a streaming ring's previous lap), counted from that segment's
/// start, when it lies wholly there and the segment lies above `reach_end` (everything the
/// block's wild copies may write): then it is copied from a slice apart from the output.
///
/// The role of ZSTD_execSequence's extDict branch (`match + matchLength <= dictEnd`).
#[inline(always)]
fn in_previous_lap(
    win: &Window,
    lit_end: usize,
    offset: usize,
    ml: usize,
    reach_end: usize,
) -> Option<usize> {
    let (lo, hi) = win.ext;
    let back = offset.checked_sub(lit_end - win.prefix_start)?;
    let fits = lo >= reach_end && back <= hi - lo && back >= ml;
    fits.then(|| hi - back - lo)
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
    dict: &[u8],
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
    copy_short(&mut out.buf[op..lit_end], &lits[lp..lp + ll_len]);
    let in_prefix = lit_end - win.prefix_start;
    if offset <= in_prefix {
        exact_copy_match(out.buf, lit_end, lit_end - offset, ml_len);
        return Ok(());
    }
    // The match starts in an older segment: the ring buffer's previous lap, or before it
    // the dictionary's content; it may run on into the newer segments.
    let (ext_lo, ext_hi) = win.ext;
    let ext_len = ext_hi.saturating_sub(ext_lo);
    let dict = if win.dict { dict } else { &[] };
    let mut back = offset - in_prefix;
    if back > ext_len + dict.len() {
        return Err(ZstdError::OffsetBeyondHistory {
            at,
            offset: offset as u64,
            available: (in_prefix + ext_len + dict.len()) as u64,
        });
    }
    let (mut dst, mut left) = (lit_end, ml_len);
    if back > ext_len {
        let from = dict.len() - (back - ext_len);
        let n = (back - ext_len).min(left);
        copy_short(&mut out.buf[dst..dst + n], &dict[from..from + n]);
        (dst, left, back) = (dst + n, left - n, ext_len);
    }
    if left > 0 && back > 0 {
        let from = ext_hi - back;
        let n = back.min(left);
        copy_apart(out.buf, from, dst, n);
        (dst, left) = (dst + n, left - n);
    }
    if left > 0 {
        exact_copy_match(out.buf, dst, win.prefix_start, left);
    }
    Ok(())
}
