//! The row-based match finder (`ZSTD_RowFindBestMatch` and its `ZSTD_row_*` helpers), used
//! by greedy, lazy and lazy2 when the window is larger than 16 KiB.
//!
//! The hash table is split into rows of `ROW` entries (16, 32 or 64). A position's hash
//! picks a row with its high bits and gives an 8-bit tag with its low byte. Each row has a
//! parallel row of tag bytes whose byte 0 is the row's head: entries 1..ROW form a circular
//! buffer filled backwards, so walking forwards from the head visits the newest first.
//! Tags are compared eight at a time in a `u64` (SWAR), giving a bit mask of candidates.
//!
//! libzstd salts this hash with a per-context value XORed before the shift; that only
//! permutes rows and tags and does not change the output, so the salt here is 0.

use super::{DictDds, LazyState, MIN_MATCH, NO_MATCH_OFF_BASE, SearchMax};
use crate::zstd::compress::matcher::source::Source;
use crate::zstd::compress::params::CParams;
use crate::zstd::compress::window::{BlockLimits, HASH_READ_SIZE, WINDOW_START_INDEX, Window};
use crate::zstd::dispatch::Sse2Unit;

/// Hashes of the next positions to insert are computed this far ahead (`ZSTD_ROW_HASH_CACHE_SIZE`).
pub(crate) const ROW_HASH_CACHE_SIZE: usize = 8;
/// Low bits of a row hash that form the tag (`ZSTD_ROW_HASH_TAG_BITS`).
const ROW_HASH_TAG_BITS: u32 = 8;
/// A catch-up longer than this only inserts the start and the end of the gap
/// (`kSkipThreshold` in ZSTD_row_update_internal) ...
const SKIP_THRESHOLD: usize = 384;
/// ... namely this many positions at the start (`kMaxMatchStartPositionsToUpdate`) ...
const MAX_MATCH_START_POSITIONS_TO_UPDATE: usize = 96;
/// ... and this many at the end (`kMaxMatchEndPositionsToUpdate`).
const MAX_MATCH_END_POSITIONS_TO_UPDATE: usize = 32;
use crate::zstd::compress::seq_store::OFFSET_TO_OFFBASE;

const LOW_7_BITS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// Multiplying the bytes' low bits by this gathers them into the top byte.
const GATHER_MAGIC: u64 = 0x0102_0408_1020_4080;

/// Rows hold `1 << rowLog` entries, `rowLog` being `searchLog` clamped to this range.
const ROW_LOG_MIN: u32 = 4;
const ROW_LOG_MAX: u32 = 6;

/// Mirrors the rowLog choice of ZSTD_compressBlock_lazy_generic (`BOUNDED(4, searchLog, 6)`).
pub(crate) fn row_log(cp: &CParams) -> u32 {
    cp.search_log.clamp(ROW_LOG_MIN, ROW_LOG_MAX)
}

/// Bit `i` of the result is set iff `tags[i] == tag` (`ZSTD_row_getMatchMask` before its
/// rotation): SSE2 compares where there are (see [`Sse2Unit`]), else [`match_mask_swar`].
#[inline(always)]
fn match_mask<const ROW: usize>(sse2: Sse2Unit, tags: &[u8; ROW], tag: u8) -> u64 {
    match sse2.eq_mask(tags, tag) {
        Some(mask) => mask,
        None => match_mask_swar(tags, tag),
    }
}

/// [`match_mask`] without a vector unit: eight tags per `u64`.
#[inline(always)]
fn match_mask_swar<const ROW: usize>(tags: &[u8; ROW], tag: u8) -> u64 {
    let splat = u64::from_ne_bytes([tag; 8]);
    let mut mask = 0u64;
    for (i, chunk) in tags.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().unwrap()) ^ splat;
        // High bit of each byte: set iff the byte is non-zero (no carries between bytes).
        let non_zero = ((x & LOW_7_BITS) + LOW_7_BITS) | x;
        let zero = !non_zero & HIGH_BITS;
        mask |= ((zero >> 7).wrapping_mul(GATHER_MAGIC) >> 56) << (8 * i);
    }
    mask
}

/// Rotates the low `ROW` bits of `mask` right by `head` (`ZSTD_rotateRight_U16/32/64`).
#[inline(always)]
fn rotate_row_mask<const ROW: usize>(mask: u64, head: usize) -> u64 {
    match ROW {
        16 => (mask as u16).rotate_right(head as u32) as u64,
        32 => (mask as u32).rotate_right(head as u32) as u64,
        _ => mask.rotate_right(head as u32),
    }
}

/// Mirrors ZSTD_row_nextIndex: moves the head one slot back, skipping slot 0 (which holds
/// the head itself), and returns it.
#[inline(always)]
fn next_index<const ROW: usize>(head: &mut u8) -> usize {
    // `(head - 1) & (ROW - 1)`, with 0 replaced by `ROW - 1`: heads 0 and 1 (masked) go to
    // the last slot, the others one slot back. A select, not a branch: which rows wrap
    // is the data's (as a branch it cost 9 % at level 6 on the repetitive hetero64k).
    let h = *head as usize & (ROW - 1);
    let next = std::hint::select_unpredictable(h <= 1, ROW - 1, h.wrapping_sub(1));
    *head = next as u8;
    next
}

/// The salt of a frame whose position 0 has index `base`, for row hashes of `bits` bits:
/// 0 for a fresh table's frame ([`WINDOW_START_INDEX`]). libzstd salts with a value that
/// changes at each reset of a reused context (ZSTD_advanceHashSalt). XORed into the hash
/// before its split into row and tag, any salt only renames rows and tags: the same
/// positions share a row, and the same ones share a tag, so the output does not change.
fn row_salt(base: u32, bits: u32) -> u32 {
    let mixed = u64::from(base - WINDOW_START_INDEX).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((mixed >> 32) as u32) & ((1u32 << bits) - 1)
}

/// An attached CDict's rows (its hash table and tag table), searched after the frame's
/// own with the attempts left (the dictionary's positions keep their indices).
#[derive(Clone, Copy)]
pub(crate) struct DictRows<'t> {
    pub(crate) rows: &'t [u32],
    pub(crate) tags: &'t [u8],
    /// `rowHashLog + 8` of the CDict.
    pub(crate) hash_bits: u32,
}

/// The row finder over the frame's hash table and the tag table, seen as rows.
///
/// The hash cache and `nextToUpdate` are worked on by value and written back to the
/// [`LazyState`] when the finder is dropped at the end of the block.
pub(crate) struct RowFinder<'t, const MLS: u32, const ROW: usize, const NROWS: usize = 0> {
    /// The rows when their number is not known at compile time (`NROWS == 0`).
    rows: &'t mut [[u32; ROW]],
    tag_rows: &'t mut [[u8; ROW]],
    /// The rows when there are `NROWS` of them: a row index masked to that count needs no
    /// bounds check (four a position fewer; see `lazy::compress_block` for the shapes).
    fixed_rows: &'t mut [[u32; ROW]; NROWS],
    fixed_tag_rows: &'t mut [[u8; ROW]; NROWS],
    cache: [u32; ROW_HASH_CACHE_SIZE],
    next_to_update: usize,
    saved_cache: &'t mut [u32; ROW_HASH_CACHE_SIZE],
    saved_next_to_update: &'t mut usize,
    /// Width of a row hash: `rowHashLog + ROW_HASH_TAG_BITS`.
    hash_bits: u32,
    attempts: usize,
    limits: BlockLimits,
    /// Index of position 0 (the window's base: above [`WINDOW_START_INDEX`] when the frame's
    /// indices go on past earlier frames').
    base: u32,
    /// XORed into every row hash of the frame's own rows (`ZSTD_hashPtrSalted`): 0 in a
    /// fresh table, another value for each frame whose indices go on past earlier frames',
    /// so that the tags those frames left match the new frame's by chance only (unsalted,
    /// the same strings in the next block met their old entries' tags, each such match
    /// ending a row's search on a stale entry: 3-5 % of the time on text blocks).
    salt: u32,
    touched: bool,
    dms: Option<DictRows<'t>>,
    /// An attached dedicated-search dictionary, and the attempts it gets beyond those the
    /// rows left.
    dds: Option<(DictDds<'t>, u32)>,
    sse2: Sse2Unit,
}

impl<'t, const MLS: u32, const ROW: usize, const NROWS: usize> RowFinder<'t, MLS, ROW, NROWS> {
    pub(crate) fn new(
        hash: &'t mut [u32],
        state: &'t mut LazyState,
        cp: &CParams,
        window: &Window,
        block_end: usize,
    ) -> Self {
        let row_log = ROW.trailing_zeros();
        debug_assert_eq!(row_log, self::row_log(cp));
        let (rows, _) = hash[..1 << cp.hash_log].as_chunks_mut::<ROW>();
        let (tag_rows, _) = state.tags.as_mut_slice()[..1 << cp.hash_log].as_chunks_mut::<ROW>();
        // With `NROWS`, every row is in the fixed part (the caller chose `NROWS` from the
        // hash log); without, the fixed part is empty.
        let (fixed_rows, rows) = rows.split_at_mut(NROWS);
        let (fixed_tag_rows, tag_rows) = tag_rows.split_at_mut(NROWS);
        // `row_hash` relies on it for the hash's width.
        debug_assert!(
            NROWS == 0 || rows.is_empty(),
            "the fixed part holds every row"
        );
        // `row_pair` masks a row with the count, and cuts the tags to it.
        debug_assert!(rows.len().is_power_of_two() || rows.is_empty());
        debug_assert_eq!(rows.len(), tag_rows.len());
        RowFinder {
            rows,
            tag_rows,
            fixed_rows: fixed_rows.try_into().expect("NROWS rows"),
            fixed_tag_rows: fixed_tag_rows.try_into().expect("NROWS tag rows"),
            cache: state.hash_cache,
            next_to_update: state.next_to_update,
            saved_cache: &mut state.hash_cache,
            saved_next_to_update: &mut state.next_to_update,
            hash_bits: cp.hash_log - row_log + ROW_HASH_TAG_BITS,
            // The number of searches is capped at the entries per row.
            attempts: 1 << cp.search_log.min(row_log),
            limits: window.block_limits(block_end),
            base: window.base(),
            salt: row_salt(window.base(), cp.hash_log - row_log + ROW_HASH_TAG_BITS),
            touched: false,
            dms: None,
            dds: None,
            sse2: Sse2Unit::detect(),
        }
    }

    /// The finder with an attached dictionary's rows searched after its own.
    pub(crate) fn with_dict(mut self, dms: DictRows<'t>) -> Self {
        self.dms = Some(dms);
        self
    }

    /// The finder with an attached dedicated-search dictionary searched after its own,
    /// with the attempts its rows left plus `2^(searchLog - rowLog)` when the search log
    /// is above the row log (ZSTD_RowFindBestMatch's `ddsExtraAttempts`).
    pub(crate) fn with_dds(mut self, dds: DictDds<'t>, cp: &CParams) -> Self {
        let row_log = ROW.trailing_zeros();
        let extra = if cp.search_log > row_log {
            1 << (cp.search_log - row_log)
        } else {
            0
        };
        self.dds = Some((dds, extra));
        self
    }

    /// The tag rows and the hash rows, wherever they are.
    #[inline(always)]
    fn tables(&self) -> (&[[u8; ROW]], &[[u32; ROW]]) {
        if NROWS != 0 {
            (self.fixed_tag_rows, self.fixed_rows)
        } else {
            (self.tag_rows, self.rows)
        }
    }

    /// The tag row and the hash row `r`.
    #[inline(always)]
    fn row_pair(&mut self, r: usize) -> (&mut [u8; ROW], &mut [u32; ROW]) {
        if NROWS != 0 {
            let r = r & NROWS.wrapping_sub(1);
            (&mut self.fixed_tag_rows[r], &mut self.fixed_rows[r])
        } else {
            // Both tables have the same power-of-two number of rows and the row is below
            // it: masked with it (a no-op), the row needs no bounds check, in either table.
            let r = r & self.rows.len().wrapping_sub(1);
            let tag_rows = &mut self.tag_rows[..self.rows.len()];
            (&mut tag_rows[r], &mut self.rows[r])
        }
    }

    /// Row hash of position `p` (`ZSTD_hashPtrSalted` with salt 0).
    #[inline(always)]
    fn row_hash<'a, S: Source<'a>>(&self, src: S, p: usize) -> u32 {
        // With the row count compiled in, so is the hash's width (an immediate shift).
        let bits = if NROWS != 0 {
            NROWS.trailing_zeros() + ROW_HASH_TAG_BITS
        } else {
            self.hash_bits
        };
        src.hash::<MLS>(p, bits) as u32 ^ self.salt
    }

    /// Mirrors ZSTD_row_fillHashCache: caches the hashes of up to 8 positions from `p`,
    /// none beyond `limit`.
    fn fill_hash_cache<'a, S: Source<'a>>(&mut self, src: S, p: usize, limit: Option<usize>) {
        let n = match limit {
            Some(l) if p <= l => (l - p + 1).min(ROW_HASH_CACHE_SIZE),
            _ => 0,
        };
        for q in p..p + n {
            self.cache[q % ROW_HASH_CACHE_SIZE] = self.row_hash(src, q);
        }
    }

    /// Mirrors ZSTD_row_nextCachedHash: the cached hash of `p`, replaced in the cache by
    /// the hash of `p + ROW_HASH_CACHE_SIZE`, whose rows are prefetched now (see
    /// [`RowFinder::touch`]).
    #[inline(always)]
    fn next_cached_hash<'a, S: Source<'a>>(&mut self, src: S, p: usize) -> u32 {
        let new_hash = self.row_hash(src, p + ROW_HASH_CACHE_SIZE);
        self.touch(new_hash);
        std::mem::replace(&mut self.cache[p % ROW_HASH_CACHE_SIZE], new_hash)
    }

    /// Prefetches the tag row and the hash row `hash` selects, `ROW_HASH_CACHE_SIZE`
    /// positions before they are used (ZSTD_row_prefetch: one cache line of each, two of a
    /// 32- or 64-entry hash row and of a 64-entry tag row). Without prefetch hints (see
    /// [`Sse2Unit`]) the two rows are loaded instead, feeding a branch that is never taken (a
    /// head byte is below 64 and slot 0 of a hash row is never written): 7 % of the
    /// instructions at level 6, but the rows of large tables arrive in time (L6 text200k
    /// 0.78 -> 0.84 when the loads were added). No effect on the output.
    #[inline(always)]
    fn touch(&mut self, hash: u32) {
        let r = (hash >> ROW_HASH_TAG_BITS) as usize;
        if self.sse2.available() {
            let (tags, rows) = self.tables();
            let (rows, tags) = (rows.as_flattened(), tags.as_flattened());
            self.sse2.prefetch(tags, r * ROW);
            self.sse2.prefetch(rows, r * ROW);
            if ROW >= 32 {
                self.sse2.prefetch(rows, r * ROW + 16);
            }
            if ROW == 64 {
                self.sse2.prefetch(tags, r * ROW + 32);
            }
            return;
        }
        let (tag_rows, rows) = self.tables();
        if let (Some(t), Some(row)) = (tag_rows.get(r), rows.get(r))
            && (t[0] == u8::MAX) | (row[0] == u32::MAX)
        {
            self.touched = true;
        }
    }

    /// Inserts position `p` with row hash `hash` (the body of ZSTD_row_update_internalImpl).
    #[inline(always)]
    fn insert(&mut self, hash: u32, p: usize) {
        let r = (hash >> ROW_HASH_TAG_BITS) as usize;
        let base = self.base;
        let (tag_row, row) = self.row_pair(r);
        let slot = next_index::<ROW>(&mut tag_row[0]);
        tag_row[slot] = hash as u8;
        row[slot] = p as u32 + base;
    }

    /// Mirrors ZSTD_row_update as ZSTD_loadDictionaryContent calls it (no hash cache, no
    /// skipping): every position of `src[start..end - 8]` goes into its row.
    pub(crate) fn fill_dict(&mut self, src: &[u8], start: usize, end: usize) {
        for p in start..end.saturating_sub(HASH_READ_SIZE) {
            let h = self.row_hash(src, p);
            self.insert(h, p);
        }
    }

    /// Mirrors ZSTD_row_update_internal with the hash cache: inserts the positions from
    /// `next_to_update` up to `ip` (excluded), only the first 96 and the last 32 of a long gap.
    #[inline(always)]
    fn update<'a, S: Source<'a>>(&mut self, src: S, ip: usize) {
        let mut p = self.next_to_update;
        if ip - p > SKIP_THRESHOLD {
            for q in p..p + MAX_MATCH_START_POSITIONS_TO_UPDATE {
                let h = self.next_cached_hash(src, q);
                self.insert(h, q);
            }
            p = ip - MAX_MATCH_END_POSITIONS_TO_UPDATE;
            self.fill_hash_cache(src, p, Some(ip + 1));
        }
        for q in p..ip {
            let h = self.next_cached_hash(src, q);
            self.insert(h, q);
        }
        self.next_to_update = ip;
    }
}

impl<const MLS: u32, const ROW: usize, const NROWS: usize> Drop for RowFinder<'_, MLS, ROW, NROWS> {
    fn drop(&mut self) {
        std::hint::black_box(self.touched);
        *self.saved_cache = self.cache;
        *self.saved_next_to_update = self.next_to_update;
    }
}

impl<const MLS: u32, const ROW: usize, const NROWS: usize> SearchMax
    for RowFinder<'_, MLS, ROW, NROWS>
{
    /// The hash cache reads `ROW_HASH_CACHE_SIZE` positions ahead.
    const MARGIN: usize = HASH_READ_SIZE + ROW_HASH_CACHE_SIZE;
    /// The row count compiled in is for frames without a dictionary.
    const ATTACHABLE: bool = NROWS == 0;

    fn start_block<'a, S: Source<'a>>(&mut self, src: S, ilimit: Option<usize>) {
        self.fill_hash_cache(src, self.next_to_update, ilimit);
    }

    /// Mirrors ZSTD_RowFindBestMatch (noDict, extDict, dictMatchState, dedicatedDictSearch).
    #[inline(always)]
    fn search<'a, S: Source<'a>>(
        &mut self,
        src: S,
        ip: usize,
        iend: usize,
        lazy_skipping: bool,
    ) -> (usize, u32) {
        let hash = if lazy_skipping {
            // Insert only searched positions; the hash cache goes stale.
            self.next_to_update = ip;
            self.row_hash(src, ip)
        } else {
            self.update(src, ip);
            self.next_cached_hash(src, ip)
        };
        let r = (hash >> ROW_HASH_TAG_BITS) as usize;
        let tag = hash as u8;
        let (sse2, limits, attempts, base) = (self.sse2, self.limits, self.attempts, self.base);
        let (tag_row, row) = self.row_pair(r);
        let head = tag_row[0] as usize & (ROW - 1);
        let mut matches = rotate_row_mask::<ROW>(match_mask(sse2, tag_row, tag), head);
        // Byte 0 is the head, not an entry: libzstd skips it inside the loop (without
        // spending an attempt), which is the same as dropping its bit up front.
        matches &= !(1 << ((ROW - head) & (ROW - 1)));

        let curr = ip as u32 + base;
        let low_limit = limits.lowest_match_index(curr);
        let mut ml = MIN_MATCH - 1;
        let mut off_base = NO_MATCH_OFF_BASE;
        // The 4 bytes of `ip` ending at `ml`; only a candidate that agrees on them can be longer.
        let mut ip_word = src.read32(ip + ml - 3);
        // Candidates, newest first, up to the first stale entry. libzstd gathers them all
        // before it compares any; nothing is written between the two, so each is compared
        // as it is found. Stopping at the best possible length leaves fewer counted
        // attempts for the dictionary's row, where nothing longer can be found either.
        let mut n = 0;
        while matches != 0 && n < attempts {
            let slot = (head + matches.trailing_zeros() as usize) & (ROW - 1);
            matches &= matches - 1;
            let idx = row[slot];
            if idx < low_limit {
                break;
            }
            n += 1;
            // Where the candidate's bytes are read (without the base in the small buffer).
            let m = src.pos_of(idx, base);
            if src.read32(m + (ml - 3)) == ip_word {
                let len = src.count(ip, m, iend);
                if len > ml {
                    ml = len;
                    off_base = curr - idx + OFFSET_TO_OFFBASE;
                    if ip + len == iend {
                        break; // best possible
                    }
                    ip_word = src.read32(ip + ml - 3);
                }
            }
        }

        // Insert the current position now, saving one step of the next update.
        let slot = next_index::<ROW>(&mut tag_row[0]);
        tag_row[slot] = tag;
        row[slot] = curr;
        self.next_to_update = ip + 1;

        // `ip`'s index among the CDict's: its content starts the slice at
        // WINDOW_START_INDEX, whatever the frame's base (`dictIndexDelta`).
        let dict_curr = ip as u32 + WINDOW_START_INDEX;
        if let Some((dds, extra)) = self.dds {
            // The attempts left, and some more, go to the dictionary's buckets
            // (dedicatedDictSearch).
            let attempts = (self.attempts - n) as u32 + extra;
            let best = (ml, off_base);
            (ml, off_base) = dds.search::<MLS, S>(src, ip, iend, dict_curr, attempts, best);
        } else if let Some(d) = self.dms {
            // The attempts left go to the dictionary's row (dictMatchState).
            let hash = src.hash::<MLS>(ip, d.hash_bits) as u32;
            let r = (hash >> ROW_HASH_TAG_BITS) as usize;
            let (rows, _) = d.rows.as_chunks::<ROW>();
            let (tag_rows, _) = d.tags.as_chunks::<ROW>();
            let (Some(tag_row), Some(row)) = (tag_rows.get(r), rows.get(r)) else {
                return (ml, off_base);
            };
            let head = tag_row[0] as usize & (ROW - 1);
            let mut matches =
                rotate_row_mask::<ROW>(match_mask(self.sse2, tag_row, hash as u8), head);
            matches &= !(1 << ((ROW - head) & (ROW - 1)));
            let mut candidates = [0u32; ROW];
            let mut k = 0;
            while matches != 0 && n + k < self.attempts {
                let slot = (head + matches.trailing_zeros() as usize) & (ROW - 1);
                matches &= matches - 1;
                let idx = row[slot];
                if idx < WINDOW_START_INDEX {
                    break;
                }
                candidates[k & (ROW - 1)] = idx;
                k += 1;
            }
            for &idx in &candidates[..k] {
                let m = (idx - WINDOW_START_INDEX) as usize;
                if src.read32(m) == src.read32(ip) {
                    // Across the dictionary's end as ZSTD_count_2segments (see `Window`).
                    let len = src.count(ip + 4, m + 4, iend) + 4;
                    if len > ml {
                        ml = len;
                        off_base = dict_curr - idx + OFFSET_TO_OFFBASE;
                        if ip + len == iend {
                            break;
                        }
                    }
                }
            }
        }
        (ml, off_base)
    }

    fn end_skipping<'a, S: Source<'a>>(&mut self, src: S, ilimit: Option<usize>) {
        self.fill_hash_cache(src, self.next_to_update, ilimit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_mask_flags_exactly_the_equal_tags() {
        let mut tags = [0u8; 64];
        for (i, t) in tags.iter_mut().enumerate() {
            *t = (i as u8).wrapping_mul(37) ^ 0x5A;
        }
        for tag in 0..=255u8 {
            let mut row = tags;
            // Every byte pattern around the tag, including 0x80 / 0x7F neighbours.
            for (i, t) in row.iter_mut().enumerate() {
                if i % 3 == 0 {
                    *t = tag;
                } else if i % 5 == 0 {
                    *t = tag ^ 0x80;
                } else if i % 7 == 0 {
                    *t = tag.wrapping_add(1);
                }
            }
            let expected = row
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &t)| m | (((t == tag) as u64) << i));
            let r16: [u8; 16] = row[..16].try_into().unwrap();
            let r32: [u8; 32] = row[..32].try_into().unwrap();
            let (low32, low16) = (expected & 0xFFFF_FFFF, expected & 0xFFFF);
            let unit = Sse2Unit::detect();
            assert_eq!(match_mask::<64>(unit, &row, tag), expected, "tag {tag}");
            assert_eq!(match_mask::<32>(unit, &r32, tag), low32, "tag {tag}");
            assert_eq!(match_mask::<16>(unit, &r16, tag), low16, "tag {tag}");
            assert_eq!(match_mask_swar::<64>(&row, tag), expected, "tag {tag}");
            assert_eq!(match_mask_swar::<32>(&r32, tag), low32, "tag {tag}");
            assert_eq!(match_mask_swar::<16>(&r16, tag), low16, "tag {tag}");
        }
        // All 256 subsets of equal bytes within one chunk.
        for pattern in 0..=255u32 {
            let mut row = [0x11u8; 16];
            for i in 0..8 {
                if pattern >> i & 1 == 1 {
                    row[i + 8] = 0xEE;
                }
            }
            let want = (pattern as u64) << 8;
            assert_eq!(match_mask::<16>(Sse2Unit::detect(), &row, 0xEE), want);
            assert_eq!(match_mask_swar::<16>(&row, 0xEE), want);
        }
    }

    #[test]
    fn rows_rotate_newest_first() {
        let mut head = 0u8;
        let slots: Vec<usize> = (0..17).map(|_| next_index::<16>(&mut head)).collect();
        assert_eq!(slots[..3], [15, 14, 13]);
        assert_eq!(slots[14], 1);
        assert_eq!(slots[15], 15, "slot 0 is skipped");
        assert_eq!(rotate_row_mask::<16>(0b1000, 3), 1);
        assert_eq!(rotate_row_mask::<16>(1, 1), 1 << 15);
    }

    /// ZSTD_row_nextIndex as libzstd writes it, for any head byte (a table left by another
    /// shape may hold anything).
    fn reference_next_index(head: u8, row: usize) -> usize {
        let next = head.wrapping_sub(1) as usize & (row - 1);
        if next == 0 { row - 1 } else { next }
    }

    #[test]
    fn next_index_matches_the_reference_for_every_head_byte() {
        for b in 0..=255u8 {
            for (row, got) in [
                (16, next_index::<16>(&mut b.clone())),
                (32, next_index::<32>(&mut b.clone())),
                (64, next_index::<64>(&mut b.clone())),
            ] {
                assert_eq!(
                    got,
                    reference_next_index(b, row),
                    "head {b}, {row}-entry rows"
                );
            }
            let mut head = b;
            next_index::<32>(&mut head);
            assert_eq!(head as usize, reference_next_index(b, 32), "stored head");
        }
    }
}
