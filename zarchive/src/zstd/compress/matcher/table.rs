//! Match-finder tables laid out as libzstd lays out its workspace tables: zeroed, reused
//! across frames, and starting on a cache-line boundary so that a 64-byte hash row (16
//! entries of the row finder) occupies exactly one cache line.

use std::collections::TryReserveError;

use crate::zstd::compress::window::WINDOW_START_INDEX;

/// Alignment of every table (libzstd's `ZSTD_cwksp` aligns tables to 64 bytes).
const CACHE_LINE: usize = 64;

/// A zero-initialised table of `len` entries whose first entry is 64-byte aligned.
#[derive(Debug, Default)]
pub(crate) struct AlignedTable<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
    /// The entries from `start` that hold zero or what was written since the last
    /// [`Self::reset`] (or copy); past them the buffer may hold older entries.
    kept: usize,
}

impl<T: Copy + Default> AlignedTable<T> {
    /// Makes the table `len` entries long, all zero (`T::default()`). Allocates only when
    /// the table grows beyond what an earlier frame needed.
    pub(crate) fn reset(&mut self, len: usize) {
        let per_line = CACHE_LINE / size_of::<T>();
        if self.buf.len() < Self::room(len) {
            self.buf = vec![T::default(); Self::room(len)];
        }
        let misaligned = self.buf.as_ptr() as usize % CACHE_LINE / size_of::<T>();
        self.start = (per_line - misaligned) % per_line;
        self.len = len;
        self.kept = len;
        self.buf[self.start..self.start + len].fill(T::default());
    }

    /// Makes the table `len` entries long keeping what was written since the last
    /// [`Self::reset`]: entries the buffer holds from before it are zeroed, those past `len`
    /// are dropped from view (and seen again if it grows back). Allocates, zeroed, only when
    /// the table grows beyond what an earlier frame needed.
    pub(crate) fn resize_keeping(&mut self, len: usize) {
        if self.buf.len() < Self::room(len) {
            let mut grown = AlignedTable::default();
            grown.reset(len);
            let kept = self.kept.min(len);
            grown.as_mut_slice()[..kept].copy_from_slice(&self.buf[self.start..self.start + kept]);
            *self = grown;
            return;
        }
        if len > self.kept {
            self.buf[self.start + self.kept..self.start + len].fill(T::default());
            self.kept = len;
        }
        self.len = len;
    }

    /// Makes room for a [`Self::reset`] to `len` entries that allocates nothing, failing
    /// instead of aborting when the memory cannot be had. The entries are kept when the
    /// room is there already; otherwise they are lost (returns `true`) and a reset must
    /// come before any use.
    pub(crate) fn try_room(&mut self, len: usize) -> Result<bool, TryReserveError> {
        if self.buf.len() >= Self::room(len) {
            return Ok(false);
        }
        self.buf = try_zeroed(Self::room(len))?;
        self.start = 0;
        self.len = 0;
        self.kept = 0;
        Ok(true)
    }

    /// The bytes the buffer of a table of `len` entries takes.
    pub(crate) fn bytes(len: usize) -> usize {
        Self::room(len).saturating_mul(size_of::<T>())
    }

    /// The entries the buffer of a table of `len` entries holds (the table and the slack
    /// to align it).
    fn room(len: usize) -> usize {
        len + CACHE_LINE / size_of::<T>()
    }

    /// Makes the table a copy of `src` (sized to it, allocating only to grow).
    pub(crate) fn copy_from_slice(&mut self, src: &[T]) {
        let per_line = CACHE_LINE / size_of::<T>();
        if self.buf.len() < Self::room(src.len()) {
            self.buf = vec![T::default(); Self::room(src.len())];
        }
        let misaligned = self.buf.as_ptr() as usize % CACHE_LINE / size_of::<T>();
        self.start = (per_line - misaligned) % per_line;
        self.len = src.len();
        self.kept = src.len();
        self.buf[self.start..self.start + src.len()].copy_from_slice(src);
    }

    /// The table's entries.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.buf[self.start..self.start + self.len]
    }

    /// The table's entries.
    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// `vec![T::default(); len]` (zeroed by the allocator where `T`'s default is zero, so
/// pages never touched cost nothing), failing instead of aborting when the memory cannot be
/// had: the room is tried first (and given back at once), as `std` has no fallible zeroed
/// allocation. libzstd's context creation fails the same way (`memory_allocation`).
pub(crate) fn try_zeroed<T: Clone + Default>(len: usize) -> Result<Vec<T>, TryReserveError> {
    injected_failure()?;
    Vec::<T>::new().try_reserve_exact(len)?;
    Ok(vec![T::default(); len])
}

/// Room for `len` entries in `v` (kept), failing instead of aborting when the memory cannot
/// be had: a `clear` and `resize` to at most `len` then allocates nothing.
pub(crate) fn try_room<T>(v: &mut Vec<T>, len: usize) -> Result<(), TryReserveError> {
    if v.capacity() >= len {
        return Ok(());
    }
    injected_failure()?;
    v.try_reserve_exact(len - v.len())
}

#[cfg(test)]
thread_local! {
    /// Tests: how many of the fallible allocations above succeed before one fails (none
    /// fails while `None`).
    pub(crate) static ALLOCATIONS_BEFORE_FAILURE: std::cell::Cell<Option<u32>> =
        const { std::cell::Cell::new(None) };
}

/// Tests: the failure [`ALLOCATIONS_BEFORE_FAILURE`] asks for (a real one: a request past
/// what any allocator gives).
fn injected_failure() -> Result<(), TryReserveError> {
    #[cfg(test)]
    if let Some(left) = ALLOCATIONS_BEFORE_FAILURE.get() {
        if left == 0 {
            return Vec::<u8>::new().try_reserve(usize::MAX);
        }
        ALLOCATIONS_BEFORE_FAILURE.set(Some(left - 1));
    }
    Ok(())
}

/// Mirrors ZSTD_reduceTable_internal: lowers every index by `reducer` after an overflow
/// correction; indices that would fall below the start index become 0 ("empty"). With
/// `preserve_mark` (btlazy2's `ZSTD_reduceTable_btlazy2`), the unsorted mark 1 is kept.
pub(crate) fn reduce_table(table: &mut [u32], reducer: u32, preserve_mark: bool) {
    let threshold = reducer + WINDOW_START_INDEX;
    for v in table.iter_mut() {
        *v = if preserve_mark && *v == DUBT_UNSORTED_MARK {
            DUBT_UNSORTED_MARK
        } else if *v < threshold {
            0
        } else {
            *v - reducer
        };
    }
}

/// btlazy2's unsorted mark (`ZSTD_DUBT_UNSORTED_MARK`), which a reduction must not touch.
pub(crate) const DUBT_UNSORTED_MARK: u32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_start_on_a_cache_line_and_are_zeroed_on_reset() {
        let mut t = AlignedTable::<u32>::default();
        t.reset(1 << 10);
        assert_eq!(t.as_mut_slice().as_ptr() as usize % CACHE_LINE, 0);
        t.as_mut_slice().fill(7);
        t.reset(1 << 8);
        assert_eq!(t.as_mut_slice().len(), 1 << 8);
        assert!(t.as_mut_slice().iter().all(|&v| v == 0));
        let mut tags = AlignedTable::<u8>::default();
        tags.reset(100);
        assert_eq!(tags.as_mut_slice().as_ptr() as usize % CACHE_LINE, 0);
    }

    #[test]
    fn a_table_resized_keeping_its_entries_zeroes_only_what_it_did_not_hold() {
        let mut t = AlignedTable::<u32>::default();
        t.reset(1 << 8);
        t.as_mut_slice().fill(7);
        // Shrunk: the first entries kept.
        t.resize_keeping(1 << 6);
        assert!(t.as_slice().iter().all(|&v| v == 7));
        // Grown back: what was written since the reset is seen again.
        t.resize_keeping(1 << 8);
        assert!(t.as_slice().iter().all(|&v| v == 7));
        // After a reset to fewer entries, the buffer's older entries past them are not
        // seen again: zero when the table grows over them.
        t.reset(1 << 6);
        t.as_mut_slice().fill(5);
        t.resize_keeping(1 << 7);
        assert_eq!(t.as_slice().len(), 1 << 7);
        assert!(t.as_slice()[..1 << 6].iter().all(|&v| v == 5));
        assert!(t.as_slice()[1 << 6..].iter().all(|&v| v == 0));
        // Grown beyond the buffer: kept, zeroed, aligned.
        t.resize_keeping(1 << 12);
        assert_eq!(t.as_mut_slice().as_ptr() as usize % CACHE_LINE, 0);
        assert!(t.as_slice()[..1 << 6].iter().all(|&v| v == 5));
        assert!(t.as_slice()[1 << 6..].iter().all(|&v| v == 0));
    }

    #[test]
    fn reduction_empties_indices_below_the_start_and_keeps_the_mark_on_request() {
        let mut t = [0, 1, 2, 1000, 1001, 1002, 5000];
        reduce_table(&mut t, 1000, false);
        assert_eq!(t, [0, 0, 0, 0, 0, 2, 4000]);
        let mut t = [0, 1, 1002, 999];
        reduce_table(&mut t, 1000, true);
        assert_eq!(t, [0, 1, 2, 0]);
    }
}
