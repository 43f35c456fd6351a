//! Match-finder tables laid out as libzstd lays out its workspace tables: zeroed, reused
//! across frames, and starting on a cache-line boundary so that a 64-byte hash row (16
//! entries of the row finder) occupies exactly one cache line.

/// Alignment of every table (libzstd's `ZSTD_cwksp` aligns tables to 64 bytes).
const CACHE_LINE: usize = 64;

/// A zero-initialised table of `len` entries whose first entry is 64-byte aligned.
#[derive(Debug, Default)]
pub(crate) struct AlignedTable<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Copy + Default> AlignedTable<T> {
    /// Makes the table `len` entries long, all zero (`T::default()`). Allocates only when
    /// the table grows beyond what an earlier frame needed.
    pub(crate) fn reset(&mut self, len: usize) {
        let per_line = CACHE_LINE / size_of::<T>();
        if self.buf.len() < len + per_line {
            self.buf = vec![T::default(); len + per_line];
        }
        let misaligned = self.buf.as_ptr() as usize % CACHE_LINE / size_of::<T>();
        self.start = (per_line - misaligned) % per_line;
        self.len = len;
        self.buf[self.start..self.start + len].fill(T::default());
    }

    /// The table's entries.
    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

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
}
