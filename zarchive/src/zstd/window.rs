//! The index model of libzstd's match state (`ZSTD_window_t`) for a one-shot frame.
//!
//! A fresh window starts at index [`WINDOW_START_INDEX`], so source byte `p` of the frame
//! has index `p + WINDOW_START_INDEX` and a hash-table entry of 0 means "empty". For the
//! one-shot sizes handled here the whole source fits the window, so the lowest valid index
//! (`prefixStartIndex`, `dictLimit`, `lowLimit`) is always the start index.

/// Index of the first source byte (`ZSTD_WINDOW_START_INDEX`).
pub(crate) const WINDOW_START_INDEX: u32 = 2;
/// Bytes the hash functions may read past a position (`HASH_READ_SIZE`): the last
/// `HASH_READ_SIZE` bytes of a block are never searched.
pub(crate) const HASH_READ_SIZE: usize = 8;

/// Index of source position `pos`.
#[inline(always)]
pub(crate) fn index_of(pos: usize) -> u32 {
    pos as u32 + WINDOW_START_INDEX
}
