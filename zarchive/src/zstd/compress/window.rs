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

/// Index of source position `pos` in a window that was never moved.
#[inline(always)]
pub(crate) fn index_of(pos: usize) -> u32 {
    pos as u32 + WINDOW_START_INDEX
}

/// The window of one frame: where source position 0 sits in index space, and the lowest
/// index still valid (`ZSTD_window_t`'s `base`, `lowLimit` and `dictLimit`, which are equal
/// without a dictionary).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    /// Frame position of the finders' position 0 (0 until an overflow correction).
    origin: usize,
    /// Index of the finders' position 0 (`-base` in libzstd's pointer arithmetic).
    base: u32,
    /// Lowest valid index (`lowLimit` == `dictLimit`).
    low_limit: u32,
    /// `1 << windowLog`, the largest distance a match may reach back.
    max_dist: u32,
}

impl Window {
    /// Mirrors ZSTD_window_init followed by the first (non-contiguous) ZSTD_window_update.
    pub(crate) fn new(window_log: u32) -> Self {
        Window {
            origin: 0,
            base: WINDOW_START_INDEX,
            low_limit: WINDOW_START_INDEX,
            max_dist: 1 << window_log,
        }
    }

    /// Frame position that the finders see as position 0: they work on `src[origin..]`.
    #[inline(always)]
    pub(crate) fn origin(&self) -> usize {
        self.origin
    }

    /// Mirrors ZSTD_overflowCorrectIfNeeded's test and ZSTD_window_correctOverflow for the
    /// block `start..end` (finder positions): when the block would end past [`CURRENT_MAX`],
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
        if self.base as u64 + end as u64 <= CURRENT_MAX {
            return None;
        }
        let cycle_size = 1u32 << cycle_log;
        let curr = self.index(start);
        let current_cycle = curr & (cycle_size - 1);
        // Keeps `newCurrent - maxDist` at or above the start index.
        let cycle_correction = if current_cycle < WINDOW_START_INDEX {
            cycle_size.max(WINDOW_START_INDEX)
        } else {
            0
        };
        let new_current = current_cycle + cycle_correction + self.max_dist.max(cycle_size);
        let correction = curr - new_current;
        self.low_limit = if self.low_limit < correction + WINDOW_START_INDEX {
            WINDOW_START_INDEX
        } else {
            self.low_limit - correction
        };
        // Finder position p had index p + base; it now has index p + base - correction.
        // Rebase so that index WINDOW_START_INDEX is finder position 0 again.
        let moved = (correction + WINDOW_START_INDEX - self.base) as usize;
        self.origin += moved;
        self.base = WINDOW_START_INDEX;
        Some((correction, moved))
    }

    /// Index of finder position `pos`.
    #[inline(always)]
    pub(crate) fn index(&self, pos: usize) -> u32 {
        pos as u32 + self.base
    }

    /// Index of source position 0.
    #[inline(always)]
    pub(crate) fn base(&self) -> u32 {
        self.base
    }

    /// Lowest valid index (`window.lowLimit`; also `window.dictLimit`).
    #[inline(always)]
    pub(crate) fn low_limit(&self) -> u32 {
        self.low_limit
    }

    /// Source position of the lowest valid index (`prefixStart` as a position).
    #[inline(always)]
    pub(crate) fn low_limit_pos(&self) -> usize {
        (self.low_limit - self.base) as usize
    }

    /// Mirrors ZSTD_window_enforceMaxDist (no dictionary), called with the *start* of the
    /// block about to be compressed: once that index is more than `maxDist` above 0, the low
    /// limit moves up to `blockStart - maxDist`, and `dictLimit` with it.
    pub(crate) fn enforce_max_dist(&mut self, block_start: usize) {
        let block_idx = self.index(block_start);
        if block_idx > self.max_dist {
            self.low_limit = self.low_limit.max(block_idx - self.max_dist);
        }
    }

    /// Mirrors ZSTD_getLowestMatchIndex (no dictionary): the lowest index a match found at
    /// `curr` may use, `max(lowLimit, curr - maxDist)`.
    #[inline(always)]
    pub(crate) fn lowest_match_index(&self, curr: u32) -> u32 {
        // Wrapping as in libzstd: `curr` is never below `lowLimit` for a valid caller.
        if curr.wrapping_sub(self.low_limit) > self.max_dist {
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
        let fixed = self.index(end) - self.low_limit <= self.max_dist;
        // Inside a block, `curr - maxDist` is at or above the low limit once it exceeds it,
        // so the lowest index is their maximum; "no maximum distance" when it never binds.
        BlockLimits {
            low_limit: self.low_limit,
            max_dist: if fixed { u32::MAX } else { self.max_dist },
        }
    }

    /// Mirrors ZSTD_getLowestPrefixIndex (no dictionary). It reads `dictLimit` where
    /// [`Window::lowest_match_index`] reads `lowLimit`; a one-shot window keeps them equal.
    #[inline(always)]
    pub(crate) fn lowest_prefix_index(&self, curr: u32) -> u32 {
        self.lowest_match_index(curr)
    }

    /// Mirrors the window move at the end of ZSTD_initStats_ultra (`base -= srcSize`,
    /// `dictLimit += srcSize`, `lowLimit = dictLimit`): the `size` bytes just parsed are
    /// forgotten, and source position `p` now has index `p + base + size`.
    pub(crate) fn forget_prefix(&mut self, size: u32) {
        self.base += size;
        self.low_limit += size;
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
    fn forgetting_the_seeded_prefix_moves_base_and_limit_together() {
        let mut w = Window::new(17);
        w.forget_prefix(100);
        assert_eq!(w.index(0), WINDOW_START_INDEX + 100);
        assert_eq!(w.low_limit(), w.index(0));
        assert_eq!(w.lowest_match_index(w.index(50)), w.index(0));
    }
}
