//! The `fast` strategy (`zstd_fast.c`, `ZSTD_compressBlock_fast_noDict_generic`).

use super::source::{Source, with_source};
use super::{Block, BlockReps, SEARCH_STRENGTH, hash_ptr, hash_word};
use crate::zstd::compress::params::CParams;
use crate::zstd::compress::seq_store::REPCODE1_TO_OFFBASE;
use crate::zstd::compress::window::{HASH_READ_SIZE, WINDOW_START_INDEX, Window, index_of};

/// Every `STEP_INCR` bytes without a match the step grows by one (`1 << (kSearchStrength - 1)`).
const STEP_INCR: usize = 1 << (SEARCH_STRENGTH - 1);

/// Mirrors ZSTD_compressBlock_fast: picks the `mls` specialisation (4..=7).
/// Returns the number of trailing literals.
///
/// A block with a padded copy of its input is read from there, without bounds checks
/// (game blocks at level 1: the finder's instructions 135.4 M -> 110.5 M for three passes,
/// libzstd's 90.7 M).
pub(crate) fn compress_block(hash_table: &mut [u32], b: Block<'_>, window: &Window) -> usize {
    with_source!(b, src => compress_block_from(hash_table, src, b, window))
}

/// [`compress_block`] reading its input from `src` (the block's `src` cut at its end).
#[inline(always)]
fn compress_block_from<'a, S: Source<'a>>(
    hash_table: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let isa = crate::zstd::dispatch::Isa::detect();
    match (b.cp.min_match, b.cp.hash_log) {
        // The shapes that matter most get their hash log compiled in: level 1 on 64 KiB
        // blocks (ZAR) and on larger inputs, level 2 on 64 KiB blocks. All get the CPU's
        // three-operand shifts.
        (6, 13) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 6, 13>(hash_table, src, b, window),
        ),
        (7, 14) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 7, 14>(hash_table, src, b, window),
        ),
        // Level 1 on sources of 128-256 KiB.
        (6, 14) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 6, 14>(hash_table, src, b, window),
        ),
        // Level 2 on 64 KiB blocks.
        (5, 15) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 5, 15>(hash_table, src, b, window),
        ),
        (5, _) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 5, 0>(hash_table, src, b, window),
        ),
        (6, _) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 6, 0>(hash_table, src, b, window),
        ),
        (7.., _) => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 7, 0>(hash_table, src, b, window),
        ),
        _ => isa.run(
            #[inline(always)]
            || compress_block_generic::<S, 4, 0>(hash_table, src, b, window),
        ),
    }
}

/// The word one byte on from `w`, as far as the finders read it: its low 7 bytes (at most
/// `MLS <= 7` bytes are hashed, 4 compared).
#[inline(always)]
fn next(w: u64) -> u64 {
    w >> 8
}

/// Mirrors ZSTD_compressBlock_fast_noDict_generic. Positions are offsets into `src` (the
/// whole frame input); the block is `src[block_start..block_end]`. Candidates below the
/// prefix start, which libzstd computes from the block's *end*
/// (`ZSTD_getLowestPrefixIndex(endIndex)`), are ignored.
#[inline(always)]
fn compress_block_generic<'a, S: Source<'a>, const MLS: u32, const HLOG: u32>(
    hash_table: &mut [u32],
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
    debug_assert!(HLOG == 0 || HLOG == cp.hash_log);
    let hlog = if HLOG == 0 { cp.hash_log } else { HLOG };
    let hash_table = &mut hash_table[..1 << hlog];
    let step_size = cp.target_length as usize + (cp.target_length == 0) as usize + 1;
    // Nothing here reads past the block: the source is cut there.
    let iend = block_end;
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);
    let hash = |p: usize| src.hash::<MLS>(p, hlog);
    let hash_at = |w: u64| hash_word::<MLS>(w, hlog);

    let prefix_start_index = window.lowest_prefix_index(index_of(block_end));
    let prefix_start = (prefix_start_index - WINDOW_START_INDEX) as usize;

    let mut anchor = block_start;
    let mut ip0 = block_start;
    // The very first position of the frame is never searched.
    ip0 += (ip0 == prefix_start) as usize;
    let curr = index_of(ip0);
    let (mut rep_offset1, mut rep_offset2, saved_reps) =
        BlockReps::start(rep, curr - window.lowest_prefix_index(curr));

    'start: loop {
        let mut step = step_size;
        let mut next_step = ip0 + STEP_INCR;
        let mut ip2 = ip0 + step;
        // `ip1 = ip0 + 1` and `ip3 = ip2 + 1` are read from the probes of ip0 and ip2, which
        // are also libzstd's `ip3 < ilimit` test.
        let Some(mut w2) = src.probe(ip2) else {
            break 'start;
        };
        // Below ip2, so within the input where ip2's probe is.
        let mut w0 = src.read64(ip0);
        let mut hash0 = hash_at(w0);
        let mut hash1 = hash_at(next(w0));
        let mut match_idx = hash_table[hash0];
        let mut current0;

        // Find a match: (match start, match source, offBase, length so far).
        let (mstart, match0, off_base, mut m_length);
        // The search in two copies: repcode 1 changes only where the search ends, so
        // whether it is valid (not 0) is settled here. The common copy tests the repcode at
        // ip2 without testing its validity; the other leaves the repcode test out.
        macro_rules! search {
            ($rep:expr, $start:lifetime) => {
                loop {
                    current0 = ip0;
                    hash_table[hash0] = index_of(ip0);

                    if $rep && w2 as u32 == src.read32(ip2 - rep_offset1 as usize) {
                        let p = ip2;
                        let m = p - rep_offset1 as usize;
                        // One byte of backward extension, without the anchor check (deliberate).
                        let back = (src.byte(p - 1) == src.byte(m - 1)) as usize;
                        mstart = p - back;
                        match0 = m - back;
                        off_base = REPCODE1_TO_OFFBASE;
                        m_length = back + 4;
                        hash_table[hash1] = index_of(ip0 + 1);
                        break;
                    }
                    if src.candidate_matches4(w0 as u32, match_idx, prefix_start_index) {
                        hash_table[hash1] = index_of(ip0 + 1);
                        (mstart, match0, off_base, m_length) = new_offset(
                            src,
                            ip0,
                            match_idx,
                            anchor,
                            prefix_start,
                            &mut rep_offset1,
                            &mut rep_offset2,
                        );
                        break;
                    }

                    // Advance by one: ip0 <- ip1, ip1 <- ip2, ip2 <- ip3.
                    match_idx = hash_table[hash1];
                    hash0 = hash1;
                    hash1 = hash_at(w2);
                    ip0 += 1;

                    current0 = ip0;
                    hash_table[hash0] = index_of(ip0);
                    if src.candidate_matches4(next(w0) as u32, match_idx, prefix_start_index) {
                        // Only written back when the search cannot resume before ip1 (deliberate).
                        if step <= 4 {
                            hash_table[hash1] = index_of(ip2);
                        }
                        (mstart, match0, off_base, m_length) = new_offset(
                            src,
                            ip0,
                            match_idx,
                            anchor,
                            prefix_start,
                            &mut rep_offset1,
                            &mut rep_offset2,
                        );
                        break;
                    }

                    // Advance: ip0 <- ip1 (= ip2), ip1 <- ip2 (= ip3), then ip2 and ip3 a step on.
                    match_idx = hash_table[hash1];
                    hash0 = hash1;
                    hash1 = hash_at(next(w2));
                    ip0 = ip2;
                    w0 = w2;
                    ip2 = ip0 + step;
                    if ip2 >= next_step {
                        step += 1;
                        next_step += STEP_INCR;
                    }
                    let Some(w) = src.probe(ip2) else {
                        break $start;
                    };
                    w2 = w;
                }
            };
        }
        if rep_offset1 > 0 {
            search!(true, 'start);
        } else {
            search!(false, 'start);
        }

        // _match: extend forwards and store.
        m_length += src.count(mstart + m_length, match0 + m_length, iend);
        seqs.store(src, anchor, mstart, off_base, m_length);
        ip0 = mstart + m_length;
        anchor = ip0;

        if ip0 <= ilimit {
            let p = current0 + 2;
            hash_table[hash(p)] = index_of(p);
            hash_table[hash(ip0 - 2)] = index_of(ip0 - 2);
            if rep_offset2 > 0 {
                while ip0 <= ilimit && src.read32(ip0) == src.read32(ip0 - rep_offset2 as usize) {
                    let r_length = src.count(ip0 + 4, ip0 + 4 - rep_offset2 as usize, iend) + 4;
                    std::mem::swap(&mut rep_offset1, &mut rep_offset2);
                    hash_table[hash(ip0)] = index_of(ip0);
                    ip0 += r_length;
                    seqs.store(src, ip0, ip0, REPCODE1_TO_OFFBASE, r_length);
                    anchor = ip0;
                }
            }
        }
    }

    saved_reps.finish(rep, rep_offset1, rep_offset2);
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}

/// The `_offset` path: a new offset found in the hash table at `ip0`; extends backwards
/// while the match stays above `prefix_start`.
#[inline(always)]
fn new_offset<'a, S: Source<'a>>(
    src: S,
    ip0: usize,
    match_idx: u32,
    anchor: usize,
    prefix_start: usize,
    rep1: &mut u32,
    rep2: &mut u32,
) -> (usize, usize, u32, usize) {
    let mut p = ip0;
    let mut m = (match_idx - WINDOW_START_INDEX) as usize;
    *rep2 = *rep1;
    *rep1 = (p - m) as u32;
    let off_base = *rep1 + 3;
    let mut len = 4;
    while ((p > anchor) & (m > prefix_start)) && src.byte(p - 1) == src.byte(m - 1) {
        p -= 1;
        m -= 1;
        len += 1;
    }
    (p, m, off_base, len)
}

/// Mirrors ZSTD_fillHashTable: every third position of `src[start..end]` goes into the
/// hash table, up to where a hash could read past `end`; with `full` (`ZSTD_dtlm_full`,
/// how a CDict is filled) the two positions after each also go in where their entry is
/// still empty. A context loading a raw-content dictionary for `ZSTD_compress_usingDict`
/// fills with `ZSTD_dtlm_fast`. A CDict's entries (`full`) carry tags, as
/// ZSTD_fillHashTableForCDict writes them: each entry `index << 8 | tag`, the tag being
/// the low bits of the position hashed over `hash_log + 8` bits, whose high bits are the
/// untagged entry's place ([`strip_tags`] makes the table a context's). Position 0 has
/// index `base`.
pub(crate) fn fill_hash_table(
    hash_table: &mut [u32],
    src: &[u8],
    start: usize,
    end: usize,
    cp: &CParams,
    full: bool,
    base: u32,
) {
    let (h, t) = (hash_table, cp.hash_log);
    if full {
        match cp.min_match {
            5 => fill_hash_table_generic::<5, true>(h, src, start, end, t, base),
            6 => fill_hash_table_generic::<6, true>(h, src, start, end, t, base),
            7.. => fill_hash_table_generic::<7, true>(h, src, start, end, t, base),
            _ => fill_hash_table_generic::<4, true>(h, src, start, end, t, base),
        }
    } else {
        match cp.min_match {
            5 => fill_hash_table_generic::<5, false>(h, src, start, end, t, base),
            6 => fill_hash_table_generic::<6, false>(h, src, start, end, t, base),
            7.. => fill_hash_table_generic::<7, false>(h, src, start, end, t, base),
            _ => fill_hash_table_generic::<4, false>(h, src, start, end, t, base),
        }
    }
}

/// How far apart `fill_hash_table` inserts positions (`fastHashFillStep`).
const FILL_STEP: usize = 3;

fn fill_hash_table_generic<const MLS: u32, const FULL: bool>(
    hash_table: &mut [u32],
    src: &[u8],
    start: usize,
    end: usize,
    hlog: u32,
    base: u32,
) {
    let hash_table = &mut hash_table[..1 << hlog];
    let put = Tagger::<FULL>::new(hlog);
    // `ip + fastHashFillStep < iend + 2` with `iend = end - HASH_READ_SIZE`.
    let mut ip = start;
    while ip + FILL_STEP + HASH_READ_SIZE < end + 2 {
        let (slot, entry) = put.entry(hash_ptr::<MLS>(src, ip, put.bits), ip as u32 + base);
        hash_table[slot] = entry;
        if FULL {
            for p in ip + 1..ip + FILL_STEP {
                let (slot, entry) = put.entry(hash_ptr::<MLS>(src, p, put.bits), p as u32 + base);
                if hash_table[slot] == 0 {
                    hash_table[slot] = entry;
                }
            }
        }
        ip += FILL_STEP;
    }
}

/// Where a table fill puts an index and what it writes there: with `TAGGED` (a CDict's
/// tables, ZSTD_writeTaggedIndex) the hash is [`TAG_BITS`] longer, its high bits the
/// place and its low bits the entry's tag; else the hash is the place and the index the
/// entry. A compile-time choice: the untagged fill also runs after every long match of
/// long-distance matching, where a runtime tag width measured 26.3 -> 41.7 M instructions
/// (`stream_speed --prof ours 1 2 long`).
#[derive(Clone, Copy)]
pub(crate) struct Tagger<const TAGGED: bool> {
    /// Bits of the hash to compute.
    pub(crate) bits: u32,
}

impl<const TAGGED: bool> Tagger<TAGGED> {
    /// For a table of `1 << log` entries.
    pub(crate) fn new(log: u32) -> Self {
        Tagger {
            bits: log + if TAGGED { TAG_BITS } else { 0 },
        }
    }

    /// The place and the entry for `index` at hash `h` (of [`Tagger::bits`] bits).
    #[inline(always)]
    pub(crate) fn entry(self, h: usize, index: u32) -> (usize, u32) {
        if TAGGED {
            (
                h >> TAG_BITS,
                (index << TAG_BITS) | (h as u32 & ((1 << TAG_BITS) - 1)),
            )
        } else {
            (h, index)
        }
    }
}

/// Turn a CDict's tagged table into a context's (ZSTD_copyCDictTableIntoCCtx): each
/// entry's index without its tag.
pub(crate) fn strip_tags(table: &mut [u32]) {
    for e in table {
        *e >>= TAG_BITS;
    }
}

/// Mirrors ZSTD_compressBlock_fast_extDict: picks the `mls` specialisation (4..=7).
pub(crate) fn compress_block_ext_dict(
    hash_table: &mut [u32],
    b: Block<'_>,
    window: &Window,
) -> usize {
    let end_index = index_of(b.end);
    // The dictionary slid out of the window: the prefix-only finder takes the block.
    if window.dict_limit() <= window.lowest_match_index(end_index) {
        return compress_block(hash_table, b, window);
    }
    with_source!(b, src => ext_dict_from(hash_table, src, b, window))
}

/// [`compress_block_ext_dict`] reading its input from `src` (the block's `src` cut at its
/// end).
#[inline(always)]
fn ext_dict_from<'a, S: Source<'a>>(
    hash_table: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let isa = crate::zstd::dispatch::Isa::detect();
    match (b.cp.min_match, b.cp.hash_log) {
        // Level 1 on a stream (the `zstd` tool's shape for inputs of unknown or large size).
        (6, 13) => isa.run(
            #[inline(always)]
            || compress_block_ext_dict_generic::<S, 6, 13>(hash_table, src, b, window),
        ),
        (5, _) => isa.run(
            #[inline(always)]
            || compress_block_ext_dict_generic::<S, 5, 0>(hash_table, src, b, window),
        ),
        (6, _) => isa.run(
            #[inline(always)]
            || compress_block_ext_dict_generic::<S, 6, 0>(hash_table, src, b, window),
        ),
        (7.., _) => isa.run(
            #[inline(always)]
            || compress_block_ext_dict_generic::<S, 7, 0>(hash_table, src, b, window),
        ),
        _ => isa.run(
            #[inline(always)]
            || compress_block_ext_dict_generic::<S, 4, 0>(hash_table, src, b, window),
        ),
    }
}

/// Mirrors ZSTD_compressBlock_fast_extDict_generic. `src` holds the older segment (a
/// dictionary's content, from the lowest match index) directly before the prefix (see
/// [`Window`]): a match in the older segment that reaches its end goes on into the prefix,
/// as `ZSTD_count_2segments` does, so one `count` serves both; what differs from the
/// prefix-only finder is which candidates are valid and how far a match extends backwards.
#[inline(always)]
fn compress_block_ext_dict_generic<'a, S: Source<'a>, const MLS: u32, const HLOG: u32>(
    hash_table: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
) -> usize {
    let end_index = index_of(b.end);
    let dict_start_index = window.lowest_match_index(end_index);
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
    debug_assert!(HLOG == 0 || HLOG == cp.hash_log);
    let hlog = if HLOG == 0 { cp.hash_log } else { HLOG };
    let hash_table = &mut hash_table[..1 << hlog];
    let step_size = cp.target_length as usize + (cp.target_length == 0) as usize + 1;
    // Nothing here reads past the block: the source is cut there.
    let hash = |p: usize| src.hash::<MLS>(p, hlog);
    let hash_at = |w: u64| hash_word::<MLS>(w, hlog);
    let pos = |idx: u32| (idx - WINDOW_START_INDEX) as usize;
    let dict_start = pos(dict_start_index);
    let prefix_start = pos(prefix_start_index);
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);

    let mut anchor = block_start;
    let mut ip0 = block_start;
    // Repcodes reaching below the dictionary's start (`offset >= maxRep`) sit this block out.
    let max_rep = index_of(ip0) - dict_start_index;
    let (mut offset_1, mut offset_2, saved_reps) = BlockReps::start(rep, max_rep - 1);

    'start: loop {
        let mut step = step_size;
        let mut next_step = ip0 + STEP_INCR;
        let mut ip1 = ip0 + 1;
        let mut ip2 = ip0 + step;
        // `ip1 = ip0 + 1` and `ip3 = ip2 + 1` are read from the probes of ip0 and ip2, which
        // are also libzstd's `ip3 < ilimit` test.
        let Some(mut w2) = src.probe(ip2) else {
            break 'start;
        };
        // Below ip2, so within the input where ip2's probe is.
        let mut w0 = src.read64(ip0);
        let mut hash0 = hash_at(w0);
        let mut hash1 = hash_at(next(w0));
        let mut idx = hash_table[hash0];
        let mut current0;

        // A candidate from the hash table matches the 4 bytes `word` when it is in the window.
        let found =
            |idx: u32, word: u64| idx >= dict_start_index && src.read32(pos(idx)) == word as u32;
        // Find a match: (match start, match source, offBase, length so far).
        let (mstart, match0, off_base, mut m_length);
        'search: {
            loop {
                // The repcode at ip2, unless it would read across the prefix start.
                let rep_index = index_of(ip2).wrapping_sub(offset_1);
                let rep_ok = prefix_start_index.wrapping_sub(rep_index) >= 4 && offset_1 > 0;
                current0 = ip0;
                hash_table[hash0] = index_of(ip0);
                if rep_ok && w2 as u32 == src.read32(pos(rep_index)) {
                    let m = pos(rep_index);
                    // One byte of backward extension, without the anchor check (deliberate).
                    let back = (src.byte(ip2 - 1) == src.byte(m - 1)) as usize;
                    (mstart, match0, off_base, m_length) =
                        (ip2 - back, m - back, REPCODE1_TO_OFFBASE, back + 4);
                    break 'search;
                }
                if found(idx, w0) {
                    break;
                }

                // Advance by one: ip0 <- ip1, ip1 <- ip2, ip2 <- ip3.
                idx = hash_table[hash1];
                hash0 = hash1;
                hash1 = hash_at(w2);
                ip0 = ip1;
                ip1 = ip2;

                current0 = ip0;
                hash_table[hash0] = index_of(ip0);
                if found(idx, next(w0)) {
                    break;
                }

                // Advance: ip0 <- ip1 (= ip2), ip1 <- ip2 (= ip3), then ip2 and ip3 a step on.
                idx = hash_table[hash1];
                hash0 = hash1;
                hash1 = hash_at(next(w2));
                ip0 = ip1;
                ip1 = ip0 + 1;
                w0 = w2;
                ip2 = ip0 + step;
                if ip2 >= next_step {
                    step += 1;
                    next_step += STEP_INCR;
                }
                let Some(w) = src.probe(ip2) else {
                    break 'start;
                };
                w2 = w;
            }
            // _offset: a new offset; a match in the dictionary extends backwards down to its
            // start, one in the prefix down to the prefix start.
            let low = if idx < prefix_start_index {
                dict_start
            } else {
                prefix_start
            };
            let (mut p, mut m) = (ip0, pos(idx));
            offset_2 = offset_1;
            offset_1 = index_of(ip0) - idx;
            let mut len = 4;
            while p > anchor && m > low && src.byte(p - 1) == src.byte(m - 1) {
                p -= 1;
                m -= 1;
                len += 1;
            }
            (mstart, match0, off_base, m_length) = (p, m, offset_1 + 3, len);
        }

        // _match: extend forwards (across the segment boundary) and store.
        m_length += src.count(mstart + m_length, match0 + m_length, iend);
        seqs.store(src, anchor, mstart, off_base, m_length);
        ip0 = mstart + m_length;
        anchor = ip0;
        if ip1 < ip0 {
            hash_table[hash1] = index_of(ip1);
        }

        if ip0 <= ilimit {
            let p = current0 + 2;
            hash_table[hash(p)] = index_of(p);
            hash_table[hash(ip0 - 2)] = index_of(ip0 - 2);
            while ip0 <= ilimit {
                // ZSTD_index_overlap_check: the 4 bytes must not straddle the prefix start.
                let rep_index2 = index_of(ip0).wrapping_sub(offset_2);
                if !((prefix_start_index - 1).wrapping_sub(rep_index2) >= 3 && offset_2 > 0)
                    || src.read32(pos(rep_index2)) != src.read32(ip0)
                {
                    break;
                }
                let r_length = src.count(ip0 + 4, pos(rep_index2) + 4, iend) + 4;
                std::mem::swap(&mut offset_1, &mut offset_2);
                seqs.store(src, anchor, ip0, REPCODE1_TO_OFFBASE, r_length);
                hash_table[hash(ip0)] = index_of(ip0);
                ip0 += r_length;
                anchor = ip0;
            }
        }
    }

    saved_reps.finish(rep, offset_1, offset_2);
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}

/// A CDict attached to a frame (`ZSTD_resetCCtx_byAttachingCDict`): its content lies
/// directly before the source in the finders' slice (positions `0..content_len`, the same
/// indices as in the CDict), and its hash table is read in place, entries tagged with the
/// low 8 bits of a hash 8 bits longer (`ZSTD_writeTaggedIndex`).
pub(crate) struct AttachedTables<'a> {
    pub(crate) content_len: usize,
    pub(crate) hash_log: u32,
    pub(crate) chain_log: u32,
    /// The fast strategy's table, or dfast's long one (tagged); empty for the others.
    pub(crate) tagged: &'a [u32],
    /// dfast's short table (tagged, `1 << chain_log` entries); empty for the others.
    pub(crate) tagged_small: &'a [u32],
    /// The hash chains, rows or tree of greedy to btlazy2.
    pub(crate) lazy: Option<super::lazy::AttachedLazy<'a>>,
    /// The optimal parser's tree.
    pub(crate) opt: Option<super::opt::OptDictTree<'a>>,
}

/// Bits of a CDict table entry's tag (`ZSTD_SHORT_CACHE_TAG_BITS`).
pub(crate) const TAG_BITS: u32 = 8;

/// Mirrors ZSTD_compressBlock_fast_dictMatchState: picks the `mls` specialisation (4..=7).
pub(crate) fn compress_block_dict_match_state(
    hash_table: &mut [u32],
    b: Block<'_>,
    window: &Window,
    dms: &AttachedTables<'_>,
) -> usize {
    with_source!(b, src => match b.cp.min_match {
        5 => dict_match_state_generic::<_, 5>(hash_table, src, b, window, dms),
        6 => dict_match_state_generic::<_, 6>(hash_table, src, b, window, dms),
        7.. => dict_match_state_generic::<_, 7>(hash_table, src, b, window, dms),
        _ => dict_match_state_generic::<_, 4>(hash_table, src, b, window, dms),
    })
}

/// Mirrors ZSTD_compressBlock_fast_dictMatchState_generic: the frame's own table finds
/// matches in the prefix, the CDict's tagged table (read in place) matches in the
/// dictionary, used only when the prefix has no candidate; one position per step, the
/// step growing every 256 bytes without a match.
fn dict_match_state_generic<'a, S: Source<'a>, const MLS: u32>(
    hash_table: &mut [u32],
    src: S,
    b: Block<'_>,
    window: &Window,
    dms: &AttachedTables<'_>,
) -> usize {
    let Block {
        src: _,
        padded: _,
        start: block_start,
        end: iend,
        cp,
        seqs,
        rep,
    } = b;
    let hlog = cp.hash_log;
    let hash_table = &mut hash_table[..1 << hlog];
    let dict_hbits = dms.hash_log + TAG_BITS;
    let dict_table = &dms.tagged[..1 << dms.hash_log];
    let step_size = cp.target_length as usize + (cp.target_length == 0) as usize;
    let hash = |p: usize| src.hash::<MLS>(p, hlog);
    let dict_hash = |p: usize| src.hash::<MLS>(p, dict_hbits);
    // Finder position 0 is the dictionary's first byte, at index `base` in the frame's
    // index space and at WINDOW_START_INDEX in the CDict's: a dictionary index is the
    // frame's index less `dict_delta` (`dictIndexDelta`; see `Window::attached`).
    let base = window.base();
    let dict_delta = base - WINDOW_START_INDEX;
    let pos = |idx: u32| (idx - base) as usize;
    let index_of = |p: usize| p as u32 + base;
    let prefix_start_index = window.dict_limit();
    let prefix_start = pos(prefix_start_index);
    let dict_start_index = WINDOW_START_INDEX;
    let dict_start = 0;
    debug_assert_eq!(dms.content_len, prefix_start);
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);
    let (mut offset_1, mut offset_2) = (rep[0], rep[1]);
    // A repcode at `rep_index` (tried at `ip`): not straddling the prefix start, in the
    // history, and agreeing on 4 bytes.
    let rep_ok = |rep_index: u32, ip: usize| {
        (prefix_start_index - 1).wrapping_sub(rep_index) >= 3
            && rep_index >= base
            && src.read32(pos(rep_index)) == src.read32(ip)
    };

    let mut anchor = block_start;
    let mut ip0 = block_start;
    let dict_and_prefix_length = block_start - prefix_start + dms.content_len;
    ip0 += (dict_and_prefix_length == 0) as usize;
    let mut ip1 = ip0 + step_size;

    'outer: while ip1 <= ilimit {
        let mut hash0 = hash(ip0);
        let mut dict_entry = dict_table[dict_hash(ip0) >> TAG_BITS];
        let mut dict_tags_match = (dict_entry as usize ^ dict_hash(ip0)) & 0xFF == 0;
        let mut match_index = hash_table[hash0];
        let mut curr = index_of(ip0);
        let mut step = step_size;
        let mut next_step = ip0 + (1 << SEARCH_STRENGTH);

        let m_length;
        loop {
            let rep_index = (curr + 1).wrapping_sub(offset_1);
            let hash1 = hash(ip1);
            let dict_hash1 = dict_hash(ip1);
            hash_table[hash0] = curr;
            if rep_ok(rep_index, ip0 + 1) {
                let len = src.count(ip0 + 5, pos(rep_index) + 4, iend) + 4;
                ip0 += 1;
                seqs.store(src, anchor, ip0, REPCODE1_TO_OFFBASE, len);
                m_length = len;
                break;
            }
            if dict_tags_match {
                // A possible dictionary match, taken only when the prefix has no candidate
                // (as the extDict parse would).
                let dict_match_index = dict_entry >> TAG_BITS;
                // An empty entry (index 0) has no position: test the index first.
                let mut m = (dict_match_index.max(dict_start_index) - dict_start_index) as usize;
                if dict_match_index > dict_start_index
                    && src.read32(m) == src.read32(ip0)
                    && match_index <= prefix_start_index
                {
                    let offset = curr - (dict_match_index + dict_delta);
                    let mut len = src.count(ip0 + 4, m + 4, iend) + 4;
                    while ip0 > anchor && m > dict_start && src.byte(ip0 - 1) == src.byte(m - 1) {
                        ip0 -= 1;
                        m -= 1;
                        len += 1;
                    }
                    offset_2 = offset_1;
                    offset_1 = offset;
                    seqs.store(src, anchor, ip0, offset + 3, len);
                    m_length = len;
                    break;
                }
            }
            if match_index >= prefix_start_index && src.read32(pos(match_index)) == src.read32(ip0)
            {
                let mut m = pos(match_index);
                let offset = (ip0 - m) as u32;
                let mut len = src.count(ip0 + 4, m + 4, iend) + 4;
                while ip0 > anchor && m > prefix_start && src.byte(ip0 - 1) == src.byte(m - 1) {
                    ip0 -= 1;
                    m -= 1;
                    len += 1;
                }
                offset_2 = offset_1;
                offset_1 = offset;
                seqs.store(src, anchor, ip0, offset + 3, len);
                m_length = len;
                break;
            }
            // Next position.
            dict_entry = dict_table[dict_hash1 >> TAG_BITS];
            dict_tags_match = (dict_entry as usize ^ dict_hash1) & 0xFF == 0;
            match_index = hash_table[hash1];
            if ip1 >= next_step {
                step += 1;
                next_step += 1 << SEARCH_STRENGTH;
            }
            ip0 = ip1;
            ip1 += step;
            if ip1 > ilimit {
                break 'outer;
            }
            curr = index_of(ip0);
            hash0 = hash1;
        }

        // A match was stored.
        ip0 += m_length;
        anchor = ip0;
        if ip0 <= ilimit {
            let p = pos(curr + 2);
            hash_table[hash(p)] = curr + 2;
            hash_table[hash(ip0 - 2)] = index_of(ip0 - 2);
            while ip0 <= ilimit {
                let current2 = index_of(ip0);
                let rep_index2 = current2.wrapping_sub(offset_2);
                if !rep_ok(rep_index2, ip0) {
                    break;
                }
                let len = src.count(ip0 + 4, pos(rep_index2) + 4, iend) + 4;
                std::mem::swap(&mut offset_1, &mut offset_2);
                seqs.store(src, anchor, ip0, REPCODE1_TO_OFFBASE, len);
                hash_table[hash(ip0)] = current2;
                ip0 += len;
                anchor = ip0;
            }
        }
        ip1 = ip0 + step_size;
    }

    rep[0] = offset_1;
    rep[1] = offset_2;
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}
