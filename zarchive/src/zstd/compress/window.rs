//! The index model of libzstd's match state (`ZSTD_window_t`) for a one-shot frame.
//!
//! A fresh window starts at index [`WINDOW_START_INDEX`], so source byte `p` of the frame
//! has index `p + WINDOW_START_INDEX` and a hash-table entry of 0 means "empty" (btultra2's
//! statistics-seeding pass later moves that mapping once, see [`Window::forget_prefix`]).
//! Once the input passes `2^windowLog`, the lowest valid index (`lowLimit`, and with it
//! `dictLimit`, since a one-shot source is one contiguous segment) follows the start of each
//! block at a distance of `2^windowLog` ([`Window::enforce_max_dist`]), and each finder
//! bounds its candidates by [`Window::lowest_match_index`] or
//! [`Window::lowest_prefix_index`].
//!
//! Indices are `u32`. When a block would end beyond [`CURRENT_MAX`], libzstd rebases them
//! (`ZSTD_overflowCorrectIfNeeded`): every index drops by a multiple of the cycle size and
//! the tables are reduced with it. Here the finders index a source slice that starts at
//! [`Window::origin`], so a correction moves that origin forward instead of the bytes.

/// Index of the first source byte (`ZSTD_WINDOW_START_INDEX`).
pub(crate) const WINDOW_START_INDEX: u32 = 2;
/// Bytes the hash functions may read past a position (`HASH_READ_SIZE`): the last
/// `HASH_READ_SIZE` bytes of a block are never searched.
pub(crate) const HASH_READ_SIZE: usize = 8;
/// Largest block-end index before libzstd corrects its indices on a 64-bit host
/// (`ZSTD_CURRENT_MAX`, 3500 MiB).
pub(crate) const CURRENT_MAX: u64 = 3500 << 20;

/// Whether indices are also corrected where libzstd built with
/// `ZSTD_WINDOW_OVERFLOW_CORRECT_FREQUENTLY=1` corrects them (the `correct-overflow-often`
/// feature, for checking only): as soon as the block start lies a cycle and a window above
/// the start index (`ZSTD_window_canOverflowCorrect`), so that inputs of a few MiB exercise
/// the correction that otherwise first runs past 3500 MiB.
pub(crate) const CORRECT_OFTEN: bool = cfg!(feature = "correct-overflow-often");

/// Corrections made by every window of the process (with `correct-overflow-often` only),
/// so that a check can tell that it exercised them.
#[cfg(feature = "correct-overflow-often")]
pub(crate) static CORRECTIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Index of source position `pos` in a window that was never moved.
#[inline(always)]
pub(crate) fn index_of(pos: usize) -> u32 {
    pos as u32 + WINDOW_START_INDEX
}

/// The window of one frame: where source position 0 sits in index space, and the lowest
/// index still valid (`ZSTD_window_t`'s `base`, `lowLimit` and `dictLimit`, which are equal
/// without a dictionary).
///
/// With a raw-content dictionary loaded for the frame (`ZSTD_compress_usingDict`), the
/// finders see the dictionary and the source as one slice, the dictionary first: libzstd's
/// two segments (`dictBase` and `base`) then map indices to the same positions, and a match
/// that runs off the dictionary's end continues into the source exactly as
/// `ZSTD_count_2segments` continues at `prefixStart`. `lowLimit` is the dictionary's first
/// index and `dictLimit` (the prefix start) the source's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    /// Frame position of the finders' position 0 (0 until an overflow correction).
    origin: usize,
    /// Index of the finders' position 0 (`-base` in libzstd's pointer arithmetic).
    base: u32,
    /// Lowest valid index (`lowLimit`).
    low_limit: u32,
    /// First index of the prefix, the frame's own input (`dictLimit`); equal to `low_limit`
    /// without a dictionary.
    dict_limit: u32,
    /// End index of a loaded dictionary while it stays valid as a whole (`loadedDictEnd`),
    /// else 0.
    loaded_dict_end: u32,
    /// `1 << windowLog`, the largest distance a match may reach back.
    max_dist: u32,
    /// How far below libzstd's every index lies after [`Window::shift_down`] (a multiple of
    /// the cycle size; 0 in one-shot frames). Only the overflow test and correction see it.
    virt: u64,
    /// Corrections made so far (`nbOverflowCorrections`): spaces out the early corrections
    /// of [`CORRECT_OFTEN`].
    corrections: u32,
}

impl Window {
    /// Mirrors ZSTD_window_init followed by the first (non-contiguous) ZSTD_window_update.
    pub(crate) fn new(window_log: u32) -> Self {
        Window {
            origin: 0,
            base: WINDOW_START_INDEX,
            low_limit: WINDOW_START_INDEX,
            dict_limit: WINDOW_START_INDEX,
            loaded_dict_end: 0,
            max_dist: 1 << window_log,
            virt: 0,
            corrections: 0,
        }
    }

    /// A window whose first `dict_len` positions hold a dictionary's content, loaded as
    /// ZSTD_loadDictionaryContent does (ZSTD_window_update of the dictionary, then of the
    /// source, which is not contiguous with it): the dictionary is the extDict segment
    /// `[lowLimit, dictLimit)` and stays valid as a whole (`loadedDictEnd = dictLimit`) until
    /// the window slides past it. A dictionary below 8 bytes is not loaded at all
    /// (ZSTD_compress_insertDictionary); the caller leaves it out.
    ///
    /// A formatted dictionary's content may be shorter: below 8 bytes it is no segment at
    /// all (`lowLimit` moves up to `dictLimit`, "too small extDict"), yet the source's
    /// indices still start after it.
    pub(crate) fn with_dict(window_log: u32, dict_len: usize) -> Self {
        let dict_end = WINDOW_START_INDEX + dict_len as u32;
        let low_limit = if dict_len < HASH_READ_SIZE {
            dict_end
        } else {
            WINDOW_START_INDEX
        };
        Window {
            low_limit,
            dict_limit: dict_end,
            loaded_dict_end: dict_end,
            ..Window::new(window_log)
        }
    }

    /// A window after a CDict is attached (ZSTD_resetCCtx_byAttachingCDict): cleared to
    /// start at the index after the dictionary's `dict_len` bytes of content, which stays
    /// "loaded" (`loadedDictEnd`) while the window holds it; no extDict segment. Finder
    /// position 0, the dictionary's first byte, has index `base`: [`WINDOW_START_INDEX`]
    /// in fresh tables, further on where the context's indices continue from earlier
    /// frames (ZSTD_window_clear; see `MatchState::reset_attached`). The dictionary's own
    /// indices then lie `base - WINDOW_START_INDEX` below the frame's (`dictIndexDelta`).
    pub(crate) fn attached(window_log: u32, dict_len: usize, base: u32) -> Self {
        let dict_end = base + dict_len as u32;
        Window {
            base,
            low_limit: dict_end,
            dict_limit: dict_end,
            loaded_dict_end: dict_end,
            ..Window::new(window_log)
        }
    }

    /// A fresh frame's window whose first byte is finder position `start` (the positions
    /// before it hold earlier frames' bytes, which no index reaches: every one is below the
    /// low limit). Index differences and every test of the finders are those of
    /// [`Window::new`].
    pub(crate) fn continuing(window_log: u32, start: usize) -> Self {
        let first = WINDOW_START_INDEX + start as u32;
        Window {
            low_limit: first,
            dict_limit: first,
            ..Window::new(window_log)
        }
    }

    /// A fresh frame's window whose first byte has index `base` (at or above
    /// [`WINDOW_START_INDEX`]): the window libzstd's reused context gives a frame after
    /// ZSTD_window_clear, its indices going on past the earlier frames' (`ZSTDirp_continue`).
    /// Every index an earlier frame left in the tables lies below `base`, the low limit,
    /// and reads as an empty entry; finder positions start at 0 as in [`Window::new`].
    pub(crate) fn rebased(window_log: u32, base: u32) -> Self {
        debug_assert!(base >= WINDOW_START_INDEX);
        Window {
            base,
            low_limit: base,
            dict_limit: base,
            ..Window::new(window_log)
        }
    }

    /// Whether a dictionary still counts as loaded (`loadedDictEnd != 0`).
    #[inline(always)]
    pub(crate) fn dict_loaded(&self) -> bool {
        self.loaded_dict_end != 0
    }

    /// Whether the history has a segment before the prefix (`ZSTD_window_hasExtDict`): the
    /// frame's block compressors are then the extDict ones.
    #[inline(always)]
    pub(crate) fn has_ext_dict(&self) -> bool {
        self.low_limit < self.dict_limit
    }

    /// First index of the prefix (`window.dictLimit`).
    #[inline(always)]
    pub(crate) fn dict_limit(&self) -> u32 {
        self.dict_limit
    }

    /// Mirrors ZSTD_checkDictValidity, called with the *end* of the block about to be
    /// compressed: a dictionary the window would slide over within that block no longer
    /// counts as loaded (its bytes stay usable down to the low limit).
    pub(crate) fn check_dict_validity(&mut self, block_end: usize) {
        let block_end_idx = self.index(block_end);
        if block_end_idx > self.loaded_dict_end.wrapping_add(self.max_dist)
            || self.loaded_dict_end != self.dict_limit
        {
            self.loaded_dict_end = 0;
        }
    }

    /// Frame position that the finders see as position 0: they work on `src[origin..]`.
    #[inline(always)]
    pub(crate) fn origin(&self) -> usize {
        self.origin
    }

    /// Mirrors ZSTD_overflowCorrectIfNeeded's test and ZSTD_window_correctOverflow for the
    /// block `start..end` (finder positions): when the block would end past [`CURRENT_MAX`]
    /// (or, with [`CORRECT_OFTEN`], where [`Window::can_correct_early`] says so),
    /// lowers every index by a multiple of `1 << cycle_log` so that the block starts at
    /// `max(maxDist, cycleSize)` plus its offset in the cycle, and returns the correction
    /// (the caller reduces its tables and `nextToUpdate`) and how far the finder positions
    /// moved. Without a correction, returns `None`.
    pub(crate) fn correct_overflow_if_needed(
        &mut self,
        start: usize,
        end: usize,
        cycle_log: u32,
    ) -> Option<(u32, usize)> {
        let due = self.base as u64 + end as u64 + self.virt > CURRENT_MAX
            || (CORRECT_OFTEN && self.can_correct_early(start, cycle_log));
        if !due {
            return None;
        }
        self.corrections += 1;
        #[cfg(feature = "correct-overflow-often")]
        CORRECTIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let cycle_size = 1u32 << cycle_log;
        let curr = self.index(start);
        // `virt` is a multiple of the cycle size: libzstd's index has the same cycle offset.
        let current_cycle = curr & (cycle_size - 1);
        // Keeps `newCurrent - maxDist` at or above the start index.
        let cycle_correction = if current_cycle < WINDOW_START_INDEX {
            cycle_size.max(WINDOW_START_INDEX)
        } else {
            0
        };
        let new_current = current_cycle + cycle_correction + self.max_dist.max(cycle_size);
        self.loaded_dict_end = 0;
        if curr < new_current {
            // libzstd lowers its indices by less than they already lie below its own: every
            // index it clears is below our low limit, cleared or never stored.
            self.virt -= (curr as u64 + self.virt) - new_current as u64;
            return None;
        }
        let correction = curr - new_current;
        self.virt = 0;
        let lower = |limit: u32| {
            if limit < correction + WINDOW_START_INDEX {
                WINDOW_START_INDEX
            } else {
                limit - correction
            }
        };
        self.low_limit = lower(self.low_limit);
        self.dict_limit = lower(self.dict_limit);
        // ZSTD_overflowCorrectIfNeeded: a correction invalidates the dictionary.
        self.loaded_dict_end = 0;
        // Finder position p had index p + base; it now has index p + base - correction.
        // Rebase so that index WINDOW_START_INDEX is finder position 0 again (after
        // btultra2's first block moved the base up, a small correction lowers it instead).
        if correction + WINDOW_START_INDEX < self.base {
            self.base -= correction;
            return Some((correction, 0));
        }
        let moved = (correction + WINDOW_START_INDEX - self.base) as usize;
        self.origin += moved;
        self.base = WINDOW_START_INDEX;
        Some((correction, moved))
    }

    /// Mirrors ZSTD_window_canOverflowCorrect for the block starting at finder position
    /// `start`: whether its index (libzstd's) lies above a cycle, a window and the start
    /// index, times the corrections made so far plus one, and above the end of a loaded
    /// dictionary's reach. Only [`CORRECT_OFTEN`] asks.
    fn can_correct_early(&self, start: usize, cycle_log: u32) -> bool {
        let cycle_size = 1u32 << cycle_log;
        // libzstd's indices are `u32` (`virt` only ever lowers ours below them).
        let curr = self.libzstd_index(start) as u32;
        let min = cycle_size + self.max_dist.max(cycle_size) + WINDOW_START_INDEX;
        let adjusted = min.wrapping_mul(self.corrections + 1).max(min);
        let loaded_dict_end = if self.loaded_dict_end == 0 {
            0
        } else {
            (self.loaded_dict_end as u64 + self.virt) as u32
        };
        curr > adjusted && curr > self.max_dist.wrapping_add(loaded_dict_end)
    }

    /// Hand the finder positions below [`Window::origin`] back to the caller: it drops
    /// them from its buffer, and position 0 is the old origin.
    pub(crate) fn take_origin(&mut self) -> usize {
        std::mem::take(&mut self.origin)
    }

    /// The largest amount, a multiple of `1 << cycle_log`, by which [`Window::shift_down`]
    /// may lower every index without touching a valid one (every index it would clear lies
    /// below the low limit).
    pub(crate) fn free_shift(&self, cycle_log: u32) -> u32 {
        let free = self.low_limit.saturating_sub(self.base);
        free >> cycle_log << cycle_log
    }

    /// Lower every index by `shift` (at most [`Window::free_shift`]) and drop the first
    /// `shift` finder positions, where libzstd keeps its indices: no output byte changes
    /// (the cleared table entries were all below the low limit, the chain and tree slots
    /// keep their places modulo the cycle), and a stream's buffer stops growing with its
    /// input. The caller reduces its tables by `shift` and drops `shift` bytes from the
    /// front of the finders' slice; [`Window::correct_overflow_if_needed`] still corrects
    /// where libzstd does.
    pub(crate) fn shift_down(&mut self, shift: u32) {
        debug_assert!(shift <= self.free_shift(0));
        self.low_limit -= shift;
        self.dict_limit -= shift;
        self.virt += shift as u64;
    }

    /// Mirrors the non-contiguous branch of ZSTD_window_update: the bytes from `dictLimit`
    /// to `next` (the index after the last byte compressed) become the extDict segment,
    /// dropped when it is shorter than [`HASH_READ_SIZE`], and the prefix starts at `next`.
    /// The finders still see both segments as one slice (see [`Window`]).
    pub(crate) fn start_segment(&mut self, next: u32) {
        self.low_limit = self.dict_limit;
        self.dict_limit = next;
        if next - self.low_limit < HASH_READ_SIZE as u32 {
            self.low_limit = next;
        }
    }

    /// Mirrors the overlap test of ZSTD_window_update: input written over the extDict
    /// segment's bytes up to index `overwritten_end` removes them from it (never past the
    /// prefix start).
    pub(crate) fn drop_overwritten(&mut self, overwritten_end: u32) {
        self.low_limit = self.low_limit.max(overwritten_end.min(self.dict_limit));
    }

    /// Index of finder position `pos`.
    #[inline(always)]
    pub(crate) fn index(&self, pos: usize) -> u32 {
        pos as u32 + self.base
    }

    /// libzstd's index of finder position `pos`: ours plus what [`Window::shift_down`]
    /// took off.
    #[inline(always)]
    pub(crate) fn libzstd_index(&self, pos: usize) -> u64 {
        self.index(pos) as u64 + self.virt
    }

    /// Finder position of index `idx` (at or above the index of position 0).
    #[inline(always)]
    pub(crate) fn pos_of(&self, idx: u32) -> usize {
        (idx - self.base) as usize
    }

    /// Index of source position 0.
    #[inline(always)]
    pub(crate) fn base(&self) -> u32 {
        self.base
    }

    /// Lowest valid index (`window.lowLimit`; `window.dictLimit` too without an extDict
    /// segment).
    #[inline(always)]
    pub(crate) fn low_limit(&self) -> u32 {
        self.low_limit
    }

    /// Source position of the lowest valid index (`prefixStart` as a position without an
    /// extDict segment).
    #[inline(always)]
    pub(crate) fn low_limit_pos(&self) -> usize {
        (self.low_limit - self.base) as usize
    }

    /// Mirrors ZSTD_window_enforceMaxDist, called with the *start* of the block about to be
    /// compressed: once that index is more than `maxDist` above the end of a loaded
    /// dictionary (or above 0), the low limit moves up to `blockStart - maxDist`,
    /// `dictLimit` at least as far, and the dictionary no longer counts as loaded.
    pub(crate) fn enforce_max_dist(&mut self, block_start: usize) {
        let block_idx = self.index(block_start);
        if block_idx > self.max_dist.wrapping_add(self.loaded_dict_end) {
            self.low_limit = self.low_limit.max(block_idx - self.max_dist);
            self.dict_limit = self.dict_limit.max(self.low_limit);
            self.loaded_dict_end = 0;
        }
    }

    /// Mirrors ZSTD_getLowestMatchIndex: the lowest index a match found at `curr` may use,
    /// `max(lowLimit, curr - maxDist)`, or the whole dictionary while it counts as loaded.
    #[inline(always)]
    pub(crate) fn lowest_match_index(&self, curr: u32) -> u32 {
        // Wrapping as in libzstd: `curr` is never below `lowLimit` for a valid caller.
        if self.loaded_dict_end == 0 && curr.wrapping_sub(self.low_limit) > self.max_dist {
            curr.wrapping_sub(self.max_dist)
        } else {
            self.low_limit
        }
    }

    /// Finder for the lowest match index of every position of the block ending at finder
    /// position `end`: when the block lies within `maxDist` of the low limit (always so for
    /// sources that fit their window) it is the low limit throughout, and the finders skip
    /// the per-position [`Window::lowest_match_index`].
    #[inline(always)]
    pub(crate) fn block_limits(&self, end: usize) -> BlockLimits {
        let fixed = self.loaded_dict_end != 0 || self.index(end) - self.low_limit <= self.max_dist;
        // Inside a block, `curr - maxDist` is at or above the low limit once it exceeds it,
        // so the lowest index is their maximum; "no maximum distance" when it never binds.
        BlockLimits {
            low_limit: self.low_limit,
            max_dist: if fixed { u32::MAX } else { self.max_dist },
        }
    }

    /// [`Window::block_limits`] by the window alone, as if no dictionary were loaded: the
    /// rule ZSTD_insertDUBT1 applies to the candidates it sorts.
    #[inline(always)]
    pub(crate) fn block_limits_ignoring_dict(&self, end: usize) -> BlockLimits {
        let fixed = self.index(end) - self.low_limit <= self.max_dist;
        BlockLimits {
            low_limit: self.low_limit,
            max_dist: if fixed { u32::MAX } else { self.max_dist },
        }
    }

    /// Mirrors ZSTD_getLowestPrefixIndex: [`Window::lowest_match_index`] with `dictLimit`
    /// for `lowLimit`.
    #[inline(always)]
    pub(crate) fn lowest_prefix_index(&self, curr: u32) -> u32 {
        if self.loaded_dict_end == 0 && curr.wrapping_sub(self.dict_limit) > self.max_dist {
            curr.wrapping_sub(self.max_dist)
        } else {
            self.dict_limit
        }
    }

    /// Mirrors the window move at the end of ZSTD_initStats_ultra (`base -= srcSize`,
    /// `dictLimit += srcSize`, `lowLimit = dictLimit`): the `size` bytes just parsed are
    /// forgotten, and source position `p` now has index `p + base + size`.
    pub(crate) fn forget_prefix(&mut self, size: u32) {
        debug_assert!(!self.has_ext_dict());
        self.base += size;
        self.low_limit += size;
        self.dict_limit = self.low_limit;
    }
}

/// The lowest match index for the positions of one block (see [`Window::block_limits`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockLimits {
    low_limit: u32,
    /// `maxDist`, or `u32::MAX` when the low limit bounds every position of the block.
    max_dist: u32,
}

impl BlockLimits {
    /// [`Window::lowest_match_index`] for `curr`, a position of this block or before it.
    #[inline(always)]
    pub(crate) fn lowest_match_index(&self, curr: u32) -> u32 {
        self.low_limit.max(curr.saturating_sub(self.max_dist))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_limit_follows_the_block_start_once_the_window_is_full() {
        let mut w = Window::new(10);
        w.enforce_max_dist(1000);
        assert_eq!(
            w.low_limit(),
            WINDOW_START_INDEX,
            "index 1002 is within 1024 of index 0"
        );
        w.enforce_max_dist(1023);
        assert_eq!(
            w.low_limit(),
            WINDOW_START_INDEX,
            "1025 - 1024 = 1 is below the start index"
        );
        w.enforce_max_dist(5000);
        assert_eq!(w.low_limit(), 5002 - 1024);
        assert_eq!(w.low_limit_pos(), 5000 - 1024);
        // Positions inside the block are bounded by their own distance.
        assert_eq!(w.lowest_match_index(w.index(5000)), 5002 - 1024);
        assert_eq!(w.lowest_match_index(w.index(5100)), 5102 - 1024);
        // A position older than the block (a btlazy2 candidate sorted late) keeps lowLimit.
        assert_eq!(w.lowest_match_index(w.index(4500)), 5002 - 1024);
        // Per-block shortcut: the same answers.
        for end in [5001, 5100, 6000] {
            let b = w.block_limits(end);
            for p in [4500, 5000, 5001, end] {
                assert_eq!(
                    b.lowest_match_index(w.index(p)),
                    w.lowest_match_index(w.index(p)),
                    "end {end} p {p}"
                );
            }
        }
        assert_eq!(Window::new(20).block_limits(1000).max_dist, u32::MAX);
    }

    #[test]
    fn early_corrections_wait_for_a_cycle_and_a_window_times_the_corrections_made() {
        // ZSTD_window_canOverflowCorrect with a 1 KiB window and 512-byte cycles: the block
        // start's index must pass 512 + 1024 + 2, then twice that after one correction.
        let mut w = Window::new(10);
        assert!(!w.can_correct_early(1536, 9), "index 1538 is not past 1538");
        assert!(w.can_correct_early(1537, 9));
        w.corrections = 1;
        assert!(
            !w.can_correct_early(3074, 9),
            "index 3076 is not past 2 x 1538"
        );
        assert!(w.can_correct_early(3075, 9));
        // A dictionary still in reach (its end, index 4002, within a window) holds it back.
        let d = Window::with_dict(10, 4000);
        assert!(!d.can_correct_early(5024, 9));
        assert!(d.can_correct_early(5025, 9));
    }

    #[test]
    fn a_block_ending_past_3500_mib_lowers_every_index_by_whole_cycles() {
        let mut w = Window::new(10);
        w.forget_prefix(CURRENT_MAX as u32 - 2000);
        // Position 1998 has index 3500 MiB: a block ending there needs no correction.
        assert_eq!(w.correct_overflow_if_needed(1000, 1998, 9), None);
        // The block's start, index 3500 MiB - 998, keeps its place in the 512-byte cycle
        // (26) and lands a window above it: 26 + 1024.
        let (correction, moved) = w.correct_overflow_if_needed(1000, 1999, 9).unwrap();
        assert_eq!(correction, CURRENT_MAX as u32 - 2048);
        assert_eq!(moved, 0, "the positions stay; the base comes down");
        assert_eq!(w.index(1000), 1050);
        assert_eq!(w.low_limit(), 50);
        assert!(!w.dict_loaded());
    }

    #[test]
    fn forgetting_the_seeded_prefix_moves_base_and_limit_together() {
        let mut w = Window::new(17);
        w.forget_prefix(100);
        assert_eq!(w.index(0), WINDOW_START_INDEX + 100);
        assert_eq!(w.low_limit(), w.index(0));
        assert_eq!(w.lowest_match_index(w.index(50)), w.index(0));
    }
}
