//! The `dfast` strategy (`zstd_double_fast.c`, `ZSTD_compressBlock_doubleFast_noDict_generic`).

use super::fast::{AttachedTables, TAG_BITS, Tagger};
use super::source::{Source, with_source};
use super::{Block, BlockReps, SEARCH_STRENGTH, count, hash_ptr, hash_word, read32, read64};
use crate::zstd::compress::params::CParams;
use crate::zstd::compress::seq_store::REPCODE1_TO_OFFBASE;
use crate::zstd::compress::window::{HASH_READ_SIZE, WINDOW_START_INDEX, Window, index_of};

/// Every `STEP_INCR` positions without a match the step grows by one (`1 << kSearchStrength`).
const STEP_INCR: usize = 1 << SEARCH_STRENGTH;
/// The long table hashes 8 bytes.
const LONG_MLS: u32 = 8;

/// Mirrors ZSTD_compressBlock_doubleFast: picks the `mls` specialisation (4..=7) of the
/// short table. `hash_long` has `1 << hashLog` entries, `hash_small` `1 << chainLog`.
/// Returns the number of trailing literals.
pub(crate) fn compress_block(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    b: Block<'_>,
    window: &Window,
) -> usize {
    with_source!(b, src => compress_block_from(hash_long, hash_small, src, b, window))
}

/// [`compress_block`] reading its input from `src` (the block's `src` cut at its end).
#[inline(always)]
fn compress_block_from<'a, S: Source<'a>>(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let isa = crate::zstd::dispatch::Isa::detect();
    // Levels 3 and 4 on 64 KiB blocks (ZAR) and on large inputs get their table logs
    // compiled in; all get the CPU's three-operand shifts.
    match (b.cp.min_match, b.cp.hash_log, b.cp.chain_log) {
        (5, 16, 15) => isa.run(
            #[inline(always)]
            || generic::<S, 5, 16, 15>(hash_long, hash_small, src, b, window),
        ),
        (4, 17, 16) => isa.run(
            #[inline(always)]
            || generic::<S, 4, 17, 16>(hash_long, hash_small, src, b, window),
        ),
        // Levels 3 and 4 past 256 KiB (the `zstd` tool's default level on large files).
        (5, 17, 16) => isa.run(
            #[inline(always)]
            || generic::<S, 5, 17, 16>(hash_long, hash_small, src, b, window),
        ),
        (5, 18, 18) => isa.run(
            #[inline(always)]
            || generic::<S, 5, 18, 18>(hash_long, hash_small, src, b, window),
        ),
        (5, _, _) => isa.run(
            #[inline(always)]
            || generic::<S, 5, 0, 0>(hash_long, hash_small, src, b, window),
        ),
        (6, _, _) => isa.run(
            #[inline(always)]
            || generic::<S, 6, 0, 0>(hash_long, hash_small, src, b, window),
        ),
        (7.., _, _) => isa.run(
            #[inline(always)]
            || generic::<S, 7, 0, 0>(hash_long, hash_small, src, b, window),
        ),
        _ => isa.run(
            #[inline(always)]
            || generic::<S, 4, 0, 0>(hash_long, hash_small, src, b, window),
        ),
    }
}

/// Mirrors ZSTD_compressBlock_doubleFast_noDict_generic (positions are offsets into `src`).
/// The prefix start comes from the block's end (`ZSTD_getLowestPrefixIndex(endIndex)`).
/// `HLOG` and `CLOG`, when not 0, are the long and short tables' logs, compiled in.
#[inline(always)]
fn generic<'a, S: Source<'a>, const MLS: u32, const HLOG: u32, const CLOG: u32>(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let Block {
        src: _,
        padded: _,
        start: block_start,
        end: block_end,
        cp,
        seqs,
        rep,
    } = b;
    debug_assert!(HLOG == 0 || (HLOG == cp.hash_log && CLOG == cp.chain_log));
    let h_bits_l = if HLOG == 0 { cp.hash_log } else { HLOG };
    let h_bits_s = if CLOG == 0 { cp.chain_log } else { CLOG };
    let hash_long = &mut hash_long[..1 << h_bits_l];
    let hash_small = &mut hash_small[..1 << h_bits_s];
    // Nothing here reads past the block: the source is cut there, and the search's word
    // reads double as its end test.
    let iend = block_end;
    let hl = |p: usize| src.hash::<LONG_MLS>(p, h_bits_l);
    let hs = |p: usize| src.hash::<MLS>(p, h_bits_s);
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);
    let prefix_lowest_index = window.lowest_prefix_index(index_of(block_end));
    let prefix_lowest = (prefix_lowest_index - WINDOW_START_INDEX) as usize;
    let mut anchor = block_start;
    let mut ip = block_start;
    ip += (ip == prefix_lowest) as usize;
    let curr = index_of(ip);
    let (mut offset_1, mut offset_2, saved_reps) =
        BlockReps::start(rep, curr - window.lowest_prefix_index(curr));

    'outer: loop {
        let mut step = 1;
        let mut next_step = ip + STEP_INCR;
        let mut ip1 = ip + step;
        // The 8 bytes at ip and at ip1, read once for both tables' hashes and both
        // candidates' tests (and carried over when the search moves on); where ip1's
        // cannot be read, ip1 is past `ilimit` and the block's search is over.
        let Some(mut word1) = src.probe8(ip1) else {
            break 'outer;
        };
        let mut word = src.read64(ip);
        let mut hl0 = hash_word::<LONG_MLS>(word, h_bits_l);
        let mut idxl0 = hash_long[hl0];
        let mut curr;
        let mut hl1;

        // (match start, match source, offset or None for a repcode, length)
        let found: (usize, usize, Option<u32>, usize);
        loop {
            let hs0 = hash_word::<MLS>(word, h_bits_s);
            let idxs0 = hash_small[hs0];
            curr = ip;
            hash_long[hl0] = index_of(ip);
            hash_small[hs0] = index_of(ip);

            if offset_1 > 0 && src.read32(ip + 1 - offset_1 as usize) == (word >> 8) as u32 {
                let len = src.count(ip + 1 + 4, ip + 1 + 4 - offset_1 as usize, iend) + 4;
                found = (ip + 1, ip + 1 - offset_1 as usize, None, len);
                hl1 = usize::MAX;
                break;
            }

            hl1 = hash_word::<LONG_MLS>(word1, h_bits_l);
            if src.candidate_matches8(word, idxl0, prefix_lowest_index) {
                let m = (idxl0 - WINDOW_START_INDEX) as usize;
                let mut len = src.count(ip + 8, m + 8, iend) + 8;
                let offset = (ip - m) as u32;
                let (mut p, mut mm) = (ip, m);
                while p > anchor && mm > prefix_lowest && src.byte(p - 1) == src.byte(mm - 1) {
                    p -= 1;
                    mm -= 1;
                    len += 1;
                }
                found = (p, mm, Some(offset), len);
                break;
            }

            let idxl1 = hash_long[hl1];
            if src.candidate_matches4(word as u32, idxs0, prefix_lowest_index) {
                let ms = (idxs0 - WINDOW_START_INDEX) as usize;
                // _search_next_long: a short match; look for a long one at ip + 1.
                let mut len = src.count(ip + 4, ms + 4, iend) + 4;
                let mut offset = (ip - ms) as u32;
                let (mut p, mut mm) = (ip, ms);
                // Strict `>` for the ip+1 long candidate (deliberate, as in libzstd).
                if src.candidate_matches8(word1, idxl1, prefix_lowest_index + 1) {
                    let ml1 = (idxl1 - WINDOW_START_INDEX) as usize;
                    let l1len = src.count(ip1 + 8, ml1 + 8, iend) + 8;
                    if l1len > len {
                        p = ip1;
                        len = l1len;
                        offset = (ip1 - ml1) as u32;
                        mm = ml1;
                    }
                }
                while p > anchor && mm > prefix_lowest && src.byte(p - 1) == src.byte(mm - 1) {
                    p -= 1;
                    mm -= 1;
                    len += 1;
                }
                found = (p, mm, Some(offset), len);
                break;
            }

            if ip1 >= next_step {
                step += 1;
                next_step += STEP_INCR;
            }
            ip = ip1;
            ip1 += step;
            word = word1;
            hl0 = hl1;
            idxl0 = idxl1;
            let Some(w) = src.probe8(ip1) else {
                break 'outer;
            };
            word1 = w;
        }

        let (mstart, _msrc, offset, m_length) = found;
        match offset {
            None => seqs.store(src, anchor, mstart, REPCODE1_TO_OFFBASE, m_length),
            Some(offset) => {
                offset_2 = offset_1;
                offset_1 = offset;
                if step < 4 {
                    hash_long[hl1] = index_of(ip1);
                }
                seqs.store(src, anchor, mstart, offset + 3, m_length);
            }
        }
        ip = mstart + m_length;
        anchor = ip;

        if ip <= ilimit {
            let p = curr + 2;
            hash_long[hl(p)] = index_of(p);
            hash_long[hl(ip - 2)] = index_of(ip - 2);
            hash_small[hs(p)] = index_of(p);
            hash_small[hs(ip - 1)] = index_of(ip - 1);
            while ip <= ilimit
                && offset_2 > 0
                && src.read32(ip) == src.read32(ip - offset_2 as usize)
            {
                let r_length = src.count(ip + 4, ip + 4 - offset_2 as usize, iend) + 4;
                std::mem::swap(&mut offset_1, &mut offset_2);
                hash_small[hs(ip)] = index_of(ip);
                hash_long[hl(ip)] = index_of(ip);
                seqs.store(src, ip, ip, REPCODE1_TO_OFFBASE, r_length);
                ip += r_length;
                anchor = ip;
            }
        }
    }

    saved_reps.finish(rep, offset_1, offset_2);
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}

/// Mirrors ZSTD_fillDoubleHashTable: every third position of `src[range]` goes into
/// both tables, up to where a hash could read past `end`; with `full` (`ZSTD_dtlm_full`,
/// a CDict) the two positions after each also go into the long table where their entry is
/// still empty. A CDict's entries (`full`) carry tags, as ZSTD_fillDoubleHashTableForCDict
/// writes them (see [`super::fast::fill_hash_table`]). Position 0 has index `base`.
pub(crate) fn fill_hash_tables(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    src: &[u8],
    range: std::ops::Range<usize>,
    cp: &CParams,
    full: bool,
    base: u32,
) {
    if full {
        match cp.min_match {
            5 => fill_generic::<5, true>(hash_long, hash_small, src, range, cp, base),
            6 => fill_generic::<6, true>(hash_long, hash_small, src, range, cp, base),
            7.. => fill_generic::<7, true>(hash_long, hash_small, src, range, cp, base),
            _ => fill_generic::<4, true>(hash_long, hash_small, src, range, cp, base),
        }
    } else {
        match cp.min_match {
            5 => fill_generic::<5, false>(hash_long, hash_small, src, range, cp, base),
            6 => fill_generic::<6, false>(hash_long, hash_small, src, range, cp, base),
            7.. => fill_generic::<7, false>(hash_long, hash_small, src, range, cp, base),
            _ => fill_generic::<4, false>(hash_long, hash_small, src, range, cp, base),
        }
    }
}

/// How far apart the dictionary fill inserts positions (`fastHashFillStep`).
const FILL_STEP: usize = 3;

fn fill_generic<const MLS: u32, const FULL: bool>(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    src: &[u8],
    range: std::ops::Range<usize>,
    cp: &CParams,
    base: u32,
) {
    let (start, end) = (range.start, range.end);
    let (h_bits_l, h_bits_s) = (cp.hash_log, cp.chain_log);
    let hash_long = &mut hash_long[..1 << h_bits_l];
    let hash_small = &mut hash_small[..1 << h_bits_s];
    let (put_l, put_s) = (Tagger::<FULL>::new(h_bits_l), Tagger::<FULL>::new(h_bits_s));
    // `ip + fastHashFillStep - 1 <= iend` with `iend = end - HASH_READ_SIZE`.
    let mut ip = start;
    while ip + FILL_STEP - 1 + HASH_READ_SIZE <= end {
        let idx = ip as u32 + base;
        let (slot, entry) = put_s.entry(hash_ptr::<MLS>(src, ip, put_s.bits), idx);
        hash_small[slot] = entry;
        let (slot, entry) = put_l.entry(hash_ptr::<LONG_MLS>(src, ip, put_l.bits), idx);
        hash_long[slot] = entry;
        if FULL {
            for p in ip + 1..ip + FILL_STEP {
                let h = hash_ptr::<LONG_MLS>(src, p, put_l.bits);
                let (slot, entry) = put_l.entry(h, p as u32 + base);
                if hash_long[slot] == 0 {
                    hash_long[slot] = entry;
                }
            }
        }
        ip += FILL_STEP;
    }
}

/// Mirrors ZSTD_compressBlock_doubleFast_extDict: picks the `mls` specialisation (4..=7).
pub(crate) fn compress_block_ext_dict(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    b: Block<'_>,
    window: &Window,
) -> usize {
    // The dictionary slid out of the window: the prefix-only finder takes the block.
    if window.dict_limit() <= window.lowest_match_index(index_of(b.end)) {
        return compress_block(hash_long, hash_small, b, window);
    }
    with_source!(b, src => ext_dict_from(hash_long, hash_small, src, b, window))
}

/// [`compress_block_ext_dict`] reading its input from `src` (the block's `src` cut at its
/// end).
#[inline(always)]
fn ext_dict_from<'a, S: Source<'a>>(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let isa = crate::zstd::dispatch::Isa::detect();
    match (b.cp.min_match, b.cp.hash_log, b.cp.chain_log) {
        // Levels 3 and 4 on streams past their window (the `zstd` tool's default level).
        (5, 17, 16) => isa.run(
            #[inline(always)]
            || ext_dict_generic::<S, 5, 17, 16>(hash_long, hash_small, src, b, window),
        ),
        (5, 18, 18) => isa.run(
            #[inline(always)]
            || ext_dict_generic::<S, 5, 18, 18>(hash_long, hash_small, src, b, window),
        ),
        (5, _, _) => isa.run(
            #[inline(always)]
            || ext_dict_generic::<S, 5, 0, 0>(hash_long, hash_small, src, b, window),
        ),
        (6, _, _) => isa.run(
            #[inline(always)]
            || ext_dict_generic::<S, 6, 0, 0>(hash_long, hash_small, src, b, window),
        ),
        (7.., _, _) => isa.run(
            #[inline(always)]
            || ext_dict_generic::<S, 7, 0, 0>(hash_long, hash_small, src, b, window),
        ),
        _ => isa.run(
            #[inline(always)]
            || ext_dict_generic::<S, 4, 0, 0>(hash_long, hash_small, src, b, window),
        ),
    }
}

/// Mirrors ZSTD_compressBlock_doubleFast_extDict_generic, on the joined slice of
/// [`Window`] (one `count` serves `ZSTD_count_2segments`). Unlike the prefix-only finder it
/// keeps no repcodes aside: each repcode is checked against the dictionary's start where
/// it is tried, and table candidates must lie strictly above that start.
#[inline(always)]
fn ext_dict_generic<'a, S: Source<'a>, const MLS: u32, const HLOG: u32, const CLOG: u32>(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let dict_start_index = window.lowest_match_index(index_of(b.end));
    let prefix_start_index = window.dict_limit().max(dict_start_index);
    debug_assert!(prefix_start_index > dict_start_index);
    let Block {
        src: _,
        padded: _,
        start: block_start,
        end: iend,
        cp,
        seqs,
        rep,
    } = b;
    debug_assert!(HLOG == 0 || (HLOG, CLOG) == (cp.hash_log, cp.chain_log));
    let (h_bits_l, h_bits_s) = if HLOG == 0 {
        (cp.hash_log, cp.chain_log)
    } else {
        (HLOG, CLOG)
    };
    let hash_long = &mut hash_long[..1 << h_bits_l];
    let hash_small = &mut hash_small[..1 << h_bits_s];
    // Nothing here reads past the block: the source is cut there.
    let hl = |p: usize| src.hash::<LONG_MLS>(p, h_bits_l);
    let hs = |p: usize| src.hash::<MLS>(p, h_bits_s);
    let pos = |idx: u32| (idx - WINDOW_START_INDEX) as usize;
    let dict_start = pos(dict_start_index);
    let prefix_start = pos(prefix_start_index);
    // Where a match found at `idx` may extend backwards to.
    let low_of = |idx: u32| {
        if idx < prefix_start_index {
            dict_start
        } else {
            prefix_start
        }
    };
    // ZSTD_index_overlap_check: a repcode's 4 bytes must not straddle the prefix start.
    let no_overlap = |rep_index: u32| (prefix_start_index - 1).wrapping_sub(rep_index) >= 3;
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);
    let (mut offset_1, mut offset_2) = (rep[0], rep[1]);
    let mut anchor = block_start;
    let mut ip = block_start;

    // `<` rather than `<=`: the repcode is tried at ip + 1.
    while ip < ilimit {
        // The 8 bytes at `ip`: both hashes and every compare at `ip` and `ip + 1` read
        // within them.
        let w = src.read64(ip);
        let h_small = hash_word::<MLS>(w, h_bits_s);
        let match_index = hash_small[h_small];
        let h_long = hash_word::<LONG_MLS>(w, h_bits_l);
        let match_long_index = hash_long[h_long];
        let curr = index_of(ip);
        let rep_index = (curr + 1).wrapping_sub(offset_1);
        hash_small[h_small] = curr;
        hash_long[h_long] = curr;

        let (start, m_length);
        if no_overlap(rep_index)
            && offset_1 <= curr + 1 - dict_start_index
            && src.read32(pos(rep_index)) == (w >> 8) as u32
        {
            m_length = src.count(ip + 5, pos(rep_index) + 4, iend) + 4;
            ip += 1;
            seqs.store(src, anchor, ip, REPCODE1_TO_OFFBASE, m_length);
            start = ip;
        } else {
            // (match start, match position, offset, length)
            let found = if match_long_index > dict_start_index
                && src.read64(pos(match_long_index)) == w
            {
                let m = pos(match_long_index);
                let len = src.count(ip + 8, m + 8, iend) + 8;
                Some((
                    ip,
                    m,
                    low_of(match_long_index),
                    curr - match_long_index,
                    len,
                ))
            } else if match_index > dict_start_index && src.read32(pos(match_index)) == w as u32 {
                let h3 = hl(ip + 1);
                let match_index3 = hash_long[h3];
                hash_long[h3] = curr + 1;
                if match_index3 > dict_start_index
                    && src.read64(pos(match_index3)) == src.read64(ip + 1)
                {
                    let m = pos(match_index3);
                    let len = src.count(ip + 9, m + 8, iend) + 8;
                    Some((
                        ip + 1,
                        m,
                        low_of(match_index3),
                        curr + 1 - match_index3,
                        len,
                    ))
                } else {
                    let m = pos(match_index);
                    let len = src.count(ip + 4, m + 4, iend) + 4;
                    Some((ip, m, low_of(match_index), curr - match_index, len))
                }
            } else {
                None
            };
            let Some((mut p, mut m, low, offset, mut len)) = found else {
                ip += ((ip - anchor) >> SEARCH_STRENGTH) + 1;
                continue;
            };
            // Catch up backwards.
            while p > anchor && m > low && src.byte(p - 1) == src.byte(m - 1) {
                p -= 1;
                m -= 1;
                len += 1;
            }
            offset_2 = offset_1;
            offset_1 = offset;
            seqs.store(src, anchor, p, offset + 3, len);
            (start, m_length) = (p, len);
        }

        // Move to the next sequence start.
        ip = start + m_length;
        anchor = ip;
        if ip <= ilimit {
            // Complementary insertion, after the limit test: candidates may pass iend - 8.
            let insert = pos(curr + 2);
            hash_long[hl(insert)] = curr + 2;
            hash_long[hl(ip - 2)] = index_of(ip - 2);
            hash_small[hs(insert)] = curr + 2;
            hash_small[hs(ip - 1)] = index_of(ip - 1);
            // Immediate repcodes.
            while ip <= ilimit {
                let current2 = index_of(ip);
                let rep_index2 = current2.wrapping_sub(offset_2);
                if !(no_overlap(rep_index2)
                    && offset_2 <= current2 - dict_start_index
                    && src.read32(pos(rep_index2)) == src.read32(ip))
                {
                    break;
                }
                let r_length = src.count(ip + 4, pos(rep_index2) + 4, iend) + 4;
                std::mem::swap(&mut offset_1, &mut offset_2);
                seqs.store(src, anchor, ip, REPCODE1_TO_OFFBASE, r_length);
                hash_small[hs(ip)] = current2;
                hash_long[hl(ip)] = current2;
                ip += r_length;
                anchor = ip;
            }
        }
    }

    rep[0] = offset_1;
    rep[1] = offset_2;
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}

/// Mirrors ZSTD_compressBlock_doubleFast_dictMatchState: picks the `mls` specialisation.
pub(crate) fn compress_block_dict_match_state(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    b: Block<'_>,
    window: &Window,
    dms: &AttachedTables<'_>,
) -> usize {
    match b.cp.min_match {
        5 => dms_generic::<5>(hash_long, hash_small, b, window, dms),
        6 => dms_generic::<6>(hash_long, hash_small, b, window, dms),
        7.. => dms_generic::<7>(hash_long, hash_small, b, window, dms),
        _ => dms_generic::<4>(hash_long, hash_small, b, window, dms),
    }
}

/// Mirrors ZSTD_compressBlock_doubleFast_dictMatchState_generic: the frame's own long and
/// short tables find matches in the prefix, the CDict's tagged ones (read in place) in the
/// dictionary, each dictionary table consulted only where the prefix one has no candidate.
fn dms_generic<const MLS: u32>(
    hash_long: &mut [u32],
    hash_small: &mut [u32],
    b: Block<'_>,
    window: &Window,
    dms: &AttachedTables<'_>,
) -> usize {
    let Block {
        src,
        padded: _,
        start: block_start,
        end: iend,
        cp,
        seqs,
        rep,
    } = b;
    let (h_bits_l, h_bits_s) = (cp.hash_log, cp.chain_log);
    let hash_long = &mut hash_long[..1 << h_bits_l];
    let hash_small = &mut hash_small[..1 << h_bits_s];
    let (dict_bits_l, dict_bits_s) = (dms.hash_log + TAG_BITS, dms.chain_log + TAG_BITS);
    let dict_long = &dms.tagged[..1 << dms.hash_log];
    let dict_small = &dms.tagged_small[..1 << dms.chain_log];
    let hl = |p: usize| hash_ptr::<LONG_MLS>(src, p, h_bits_l);
    let hs = |p: usize| hash_ptr::<MLS>(src, p, h_bits_s);
    // Finder position 0 is the dictionary's first byte, at index `base` in the frame's
    // index space and at WINDOW_START_INDEX in the CDict's (see `Window::attached`).
    let base = window.base();
    let pos = |idx: u32| (idx - base) as usize;
    let index_of = |p: usize| p as u32 + base;
    // A tagged lookup: the entry's index when its tag agrees with the hash's low bits, in
    // the frame's index space (`dictIndexDelta` added); an empty entry (index 0) comes out
    // below the dictionary's first index.
    let lookup = |table: &[u32], hash_and_tag: usize| -> Option<u32> {
        let entry = table[hash_and_tag >> TAG_BITS];
        ((entry as usize ^ hash_and_tag) & 0xFF == 0)
            .then_some((entry >> TAG_BITS).wrapping_add(base - WINDOW_START_INDEX))
    };
    let prefix_lowest_index = window.lowest_prefix_index(index_of(iend));
    let prefix_lowest = pos(prefix_lowest_index);
    // The dictionary's indices equal the frame's; its content starts the slice.
    let dict_start = 0usize;
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);
    let (mut offset_1, mut offset_2) = (rep[0], rep[1]);
    let rep_ok = |rep_index: u32, ip: usize| {
        (prefix_lowest_index - 1).wrapping_sub(rep_index) >= 3
            && rep_index >= base
            && read32(src, pos(rep_index)) == read32(src, ip)
    };
    let mut anchor = block_start;
    let mut ip = block_start;
    ip += (block_start == 0) as usize;

    'search: while ip < ilimit {
        let h2 = hl(ip);
        let h = hs(ip);
        let dict_l = lookup(dict_long, hash_ptr::<LONG_MLS>(src, ip, dict_bits_l));
        let dict_s = lookup(dict_small, hash_ptr::<MLS>(src, ip, dict_bits_s));
        let curr = index_of(ip);
        let match_index_l = hash_long[h2];
        let mut match_index_s = hash_small[h];
        let rep_index = (curr + 1).wrapping_sub(offset_1);
        hash_long[h2] = curr;
        hash_small[h] = curr;

        let m_length;
        'found: {
            if rep_ok(rep_index, ip + 1) {
                m_length = count(src, ip + 5, pos(rep_index) + 4, iend) + 4;
                ip += 1;
                seqs.store(src, anchor, ip, REPCODE1_TO_OFFBASE, m_length);
                break 'found;
            }
            // (match start, match position, lowest position to extend back to, offset, length)
            let mut found: Option<(usize, usize, usize, u32, usize)> = None;
            if match_index_l >= prefix_lowest_index
                && read64(src, pos(match_index_l)) == read64(src, ip)
            {
                let m = pos(match_index_l);
                let len = count(src, ip + 8, m + 8, iend) + 8;
                found = Some((ip, m, prefix_lowest, (ip - m) as u32, len));
            } else if let Some(dict_index) = dict_l {
                let m = pos(dict_index.max(base));
                if m > dict_start && read64(src, m) == read64(src, ip) {
                    let len = count(src, ip + 8, m + 8, iend) + 8;
                    found = Some((ip, m, dict_start, curr - dict_index, len));
                }
            }
            if found.is_none() {
                // A short candidate: the prefix's, or where it has none the dictionary's.
                let short = if match_index_s > prefix_lowest_index {
                    read32(src, pos(match_index_s)) == read32(src, ip)
                } else if let Some(dict_index) = dict_s {
                    match_index_s = dict_index;
                    let m = pos(dict_index.max(base));
                    m > dict_start && read32(src, m) == read32(src, ip)
                } else {
                    false
                };
                if !short {
                    ip += ((ip - anchor) >> SEARCH_STRENGTH) + 1;
                    continue 'search;
                }
                // _search_next_long: a long match at ip + 1 beats the short one.
                let hl3 = hl(ip + 1);
                let dict_l3 = lookup(dict_long, hash_ptr::<LONG_MLS>(src, ip + 1, dict_bits_l));
                let match_index_l3 = hash_long[hl3];
                hash_long[hl3] = curr + 1;
                if match_index_l3 >= prefix_lowest_index
                    && read64(src, pos(match_index_l3)) == read64(src, ip + 1)
                {
                    let m = pos(match_index_l3);
                    let len = count(src, ip + 9, m + 8, iend) + 8;
                    found = Some((ip + 1, m, prefix_lowest, (ip + 1 - m) as u32, len));
                } else if let Some(dict_index) = dict_l3 {
                    let m = pos(dict_index.max(base));
                    if m > dict_start && read64(src, m) == read64(src, ip + 1) {
                        let len = count(src, ip + 9, m + 8, iend) + 8;
                        found = Some((ip + 1, m, dict_start, curr + 1 - dict_index, len));
                    }
                }
                if found.is_none() {
                    let m = pos(match_index_s);
                    let len = count(src, ip + 4, m + 4, iend) + 4;
                    found = Some(if match_index_s < prefix_lowest_index {
                        (ip, m, dict_start, curr - match_index_s, len)
                    } else {
                        (ip, m, prefix_lowest, (ip - m) as u32, len)
                    });
                }
            }
            let Some((mut p, mut m, low, offset, mut len)) = found else {
                unreachable!("a match was found above");
            };
            while p > anchor && m > low && src[p - 1] == src[m - 1] {
                p -= 1;
                m -= 1;
                len += 1;
            }
            offset_2 = offset_1;
            offset_1 = offset;
            seqs.store(src, anchor, p, offset + 3, len);
            ip = p;
            m_length = len;
        }

        // _match_stored
        ip += m_length;
        anchor = ip;
        if ip <= ilimit {
            let insert = pos(curr + 2);
            hash_long[hl(insert)] = curr + 2;
            hash_long[hl(ip - 2)] = index_of(ip - 2);
            hash_small[hs(insert)] = curr + 2;
            hash_small[hs(ip - 1)] = index_of(ip - 1);
            while ip <= ilimit {
                let current2 = index_of(ip);
                let rep_index2 = current2.wrapping_sub(offset_2);
                if !rep_ok(rep_index2, ip) {
                    break;
                }
                let r_length = count(src, ip + 4, pos(rep_index2) + 4, iend) + 4;
                std::mem::swap(&mut offset_1, &mut offset_2);
                seqs.store(src, anchor, ip, REPCODE1_TO_OFFBASE, r_length);
                hash_small[hs(ip)] = current2;
                hash_long[hl(ip)] = current2;
                ip += r_length;
                anchor = ip;
            }
        }
    }

    rep[0] = offset_1;
    rep[1] = offset_2;
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}
