//! How a match finder reads its input: a slice of any length, every read checked against
//! its end, or a copy of a small input in a buffer of fixed size with slack after it,
//! whose reads need no check at all.
//!
//! libzstd reads through pointers and relies on its callers for the bounds. Safe Rust
//! checks each read unless the compiler can prove it in range; in the `fast` finder's
//! search loop those checks (a mask, a compare and a branch per read, and the registers
//! they hold) were a third of the instructions above libzstd's. A position masked to
//! `log` bits indexes a buffer of `2^log` bytes plus slack in range by construction, so a
//! one-shot frame's input that fits (a ZAR block, any frame up to 4 MiB, and the earlier
//! frames a reused context continues after) or a stream's window and pending input (up
//! to 128 MiB) is kept in such a buffer and the finders read it unchecked. The mask
//! changes no position the finders read: they are all below the input's length.
//!
//! The buffer comes in two sizes: [`SMALL_MAX`] (64 KiB, a ZAR block or any smaller
//! source) and [`PADDED_MAX`] (128 MiB). A new context, as every one-shot call makes, must
//! zero what it allocates: 4 MiB for a 2 KiB file made the one-shot call five times slower
//! than libzstd's, whose context is sized to its source. The full size is therefore
//! always a fresh zeroed allocation, never a resize: the allocator maps it without
//! writing it, and only the pages the bytes reach are ever touched.

use super::{candidate_matches4, candidate_matches8, count, hash_word, read32, read64, tree_step};
use crate::zstd::compress::window::WINDOW_START_INDEX;
use crate::zstd::dispatch::Sse2Unit;
use std::collections::TryReserveError;

/// Evaluates `$body` with `$src` bound to the input of the block `$b` as a [`Source`]:
/// its padded copy where the frame has one, else its slice, either cut at the block's end.
macro_rules! with_source {
    ($b:expr, $src:ident => $body:expr) => {
        match $b.padded {
            Some($crate::zstd::compress::matcher::source::Padded::Small(padded)) => {
                let $src = padded.cut($b.end);
                $body
            }
            Some($crate::zstd::compress::matcher::source::Padded::Full(padded)) => {
                let $src = padded.cut($b.end);
                $body
            }
            None => {
                let $src = &$b.src[..$b.end];
                $body
            }
        }
    };
}
pub(crate) use with_source;

/// The largest input the small [`Padded`] copy holds is `2^SMALL_LOG` bytes.
const SMALL_LOG: u32 = 16;
/// The largest input the small [`Padded`] copy holds: a ZAR block.
pub(crate) const SMALL_MAX: usize = 1 << SMALL_LOG;
/// The largest input a full [`Padded`] copy holds is `2^PADDED_LOG` bytes: a stream's
/// whole buffer for windows up to 2^26, and for any window while the input is at most
/// 128 MiB (past it, the finders read the slice, checked). 4 MiB on 32-bit targets, whose
/// address space is scarce.
pub(crate) const PADDED_LOG: u32 = if cfg!(target_pointer_width = "64") {
    27
} else {
    22
};
/// The largest input a [`Padded`] copy holds.
pub(crate) const PADDED_MAX: usize = 1 << PADDED_LOG;
/// Bytes after the largest input, so that a read of up to 32 bytes at any masked
/// position (below the size) stays in the buffer.
const SLACK: usize = 32;
/// The small buffer's length.
const SMALL_LEN: usize = SMALL_MAX + SLACK;
/// The full buffer's length.
const PADDED_LEN: usize = PADDED_MAX + SLACK;

/// A finder's view of its input (positions as [`Block`](super::Block) gives them).
pub(crate) trait Source<'a>: Copy {
    /// The input itself, for code that reads a slice.
    fn as_slice(self) -> &'a [u8];
    /// The 4 bytes at `p` (little-endian); `p + 4` is within the input.
    fn read32(self, p: usize) -> u32;
    /// The 8 bytes at `p` (little-endian); `p + 8` is within the input.
    fn read64(self, p: usize) -> u64;
    /// The 16 bytes at `p`, those past the input's end being scratch (a wild copy's read),
    /// or `None` where they are not there to read.
    fn read16_wild(self, p: usize) -> Option<[u8; 16]>;
    /// The byte at `p`, within the input.
    fn byte(self, p: usize) -> u8;
    /// The 8 bytes at `p`, or `None` where fewer than 10 bytes are left from `p` (the
    /// `fast` finder's end of search, `ip3 >= ilimit`).
    fn probe(self, p: usize) -> Option<u64>;
    /// The 8 bytes at `p`, or `None` where fewer than 8 bytes are left from `p` (the
    /// `dfast` finder's end of search).
    fn probe8(self, p: usize) -> Option<u64>;
    /// Mirrors ZSTD_count: the length of the common prefix of the bytes at `a` and `b`
    /// (`b < a`), not reading `a` at or past `limit` (at most the input's length).
    fn count(self, a: usize, b: usize, limit: usize) -> usize;
    /// Whether the table's candidate `idx` (the index of position `idx - 2`,
    /// [`WINDOW_START_INDEX`] being position 0) is at or above `low` and its first 4 bytes
    /// are `word`, without a branch on the window test; see [`candidate_matches4`].
    fn candidate_matches4(self, word: u32, idx: u32, low: u32) -> bool;
    /// [`Source::candidate_matches4`] on 8 bytes.
    fn candidate_matches8(self, word: u64, idx: u32, low: u32) -> bool;
    /// [`tree_step`] of the run `ip..iend` against the candidate at `m`.
    fn tree_step(self, ip: usize, iend: usize, m: usize, from: usize) -> (usize, bool);
    /// [`Source::tree_step`] that may answer a length at or past the run's end (`iend -
    /// ip`) when the run matched to its end, the order then meaningless: a caller that
    /// only looks closer at lengths above one it knows to be shorter than the run clamps
    /// there, and its common step needs no clamp.
    #[inline(always)]
    fn tree_step_open(self, ip: usize, iend: usize, m: usize, from: usize) -> (usize, bool) {
        self.tree_step(ip, iend, m, from)
    }

    /// The position to read for table index `idx` (at or above `base`) in a window whose
    /// position 0 has index `base`: `idx - base`, or any position this source's reads
    /// take for it (see [`PaddedIn`]'s).
    #[inline(always)]
    fn pos_of(self, idx: u32, base: u32) -> usize {
        idx.wrapping_sub(base) as usize
    }

    /// Mirrors ZSTD_hashPtr (unsalted): the first `MLS` bytes at `p` hashed to `bits`
    /// bits.
    #[inline(always)]
    fn hash<const MLS: u32>(self, p: usize, bits: u32) -> usize {
        match MLS {
            5..=8 => hash_word::<MLS>(self.read64(p), bits),
            _ => hash_word::<4>(u64::from(self.read32(p)), bits),
        }
    }
}

impl<'a> Source<'a> for &'a [u8] {
    #[inline(always)]
    fn as_slice(self) -> &'a [u8] {
        self
    }

    #[inline(always)]
    fn read32(self, p: usize) -> u32 {
        read32(self, p)
    }

    #[inline(always)]
    fn read64(self, p: usize) -> u64 {
        read64(self, p)
    }

    #[inline(always)]
    fn read16_wild(self, p: usize) -> Option<[u8; 16]> {
        // Positions are below `isize::MAX` (the mask changes nothing): `p + 16` cannot
        // wrap, so one compare checks the range.
        let p = p & (isize::MAX as usize);
        self.get(p..p + 16)?.try_into().ok()
    }

    #[inline(always)]
    fn byte(self, p: usize) -> u8 {
        self[p]
    }

    #[inline(always)]
    fn probe(self, p: usize) -> Option<u64> {
        // Positions are below `isize::MAX` (the mask changes nothing): `p + 10` cannot
        // wrap, so one compare checks the range.
        let p = p & (isize::MAX as usize);
        let w: &[u8; 10] = self.get(p..p + 10)?.try_into().ok()?;
        let lo: [u8; 8] = w[..8].try_into().ok()?;
        Some(u64::from_le_bytes(lo))
    }

    #[inline(always)]
    fn probe8(self, p: usize) -> Option<u64> {
        // As in `probe`: one compare.
        let p = p & (isize::MAX as usize);
        Some(u64::from_le_bytes(self.get(p..p + 8)?.try_into().ok()?))
    }

    #[inline(always)]
    fn count(self, a: usize, b: usize, limit: usize) -> usize {
        count(self, a, b, limit)
    }

    #[inline(always)]
    fn candidate_matches4(self, word: u32, idx: u32, low: u32) -> bool {
        let low_pos = low.wrapping_sub(WINDOW_START_INDEX) as usize;
        candidate_matches4(self, word, idx, low, low_pos)
    }

    #[inline(always)]
    fn candidate_matches8(self, word: u64, idx: u32, low: u32) -> bool {
        let low_pos = low.wrapping_sub(WINDOW_START_INDEX) as usize;
        candidate_matches8(self, word, idx, low, low_pos)
    }

    #[inline(always)]
    fn tree_step(self, ip: usize, iend: usize, m: usize, from: usize) -> (usize, bool) {
        tree_step(&self[ip..iend], self, m, from)
    }
}

/// Bytes for the finders, in a buffer of [`SMALL_MAX`] or at least [`PADDED_MAX`] bytes
/// plus slack, to read as a [`Padded`] view while they fit: a one-shot frame's input (and
/// the earlier frames a reused context continues after), a stream's window and pending
/// input. Allocated zeroed at the smaller size that holds what is asked (pages of the large
/// one the bytes never reach stay untouched, so its 128 MiB are address space, not
/// memory); grows to the large size, then past [`PADDED_MAX`] when it must, without a view
/// then.
#[derive(Debug, Default)]
pub(crate) struct PaddedBuffer {
    buf: Vec<u8>,
    len: usize,
}

impl PaddedBuffer {
    /// The number of bytes held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forget the bytes held (the allocation stays).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The allocation [`Self::reserve`] makes for `total` bytes in all: the small size
    /// while everything fits it, else the full size (or more).
    fn padded_size(&self, total: usize) -> usize {
        if total <= SMALL_MAX && self.buf.len() <= SMALL_LEN {
            SMALL_LEN
        } else {
            total.max(PADDED_MAX) + SLACK
        }
    }

    /// Make room for `total` bytes in all without growing again.
    pub(crate) fn reserve(&mut self, total: usize) {
        let size = self.padded_size(total);
        if self.buf.len() < size {
            // Zeroed by the allocator (untouched pages of a fresh mapping cost nothing),
            // where a resize would write every byte.
            self.grow_into(vec![0; size]);
        }
    }

    /// [`Self::reserve`], failing instead of aborting when the memory cannot be had; then
    /// neither [`Self::reserve`] nor [`Self::append`] up to `total` allocates.
    pub(crate) fn try_reserve(&mut self, total: usize) -> Result<(), TryReserveError> {
        let size = self.padded_size(total);
        if self.buf.len() < size {
            self.grow_into(super::table::try_zeroed(size)?);
        }
        Ok(())
    }

    /// Take `grown` (zeroed, larger) as the buffer: only the bytes held move over.
    fn grow_into(&mut self, mut grown: Vec<u8>) {
        grown[..self.len].copy_from_slice(&self.buf[..self.len]);
        self.buf = grown;
    }

    /// Whether `total` bytes in all fit without growing the allocation.
    pub(crate) fn fits(&self, total: usize) -> bool {
        total + SLACK <= self.buf.len()
    }

    /// Whether [`Self::append`] up to `total` bytes in all would allocate the full size
    /// (128 MiB of address space or more, zeroed).
    pub(crate) fn grows_full(&self, total: usize) -> bool {
        self.padded_size(total) > self.buf.len().max(SMALL_LEN)
    }

    /// Append `src`, growing to the small or the full size (zeroed) when it must: the
    /// bytes can then be read as a [`Padded`] view while they are at most [`PADDED_MAX`].
    pub(crate) fn append(&mut self, src: &[u8]) {
        let end = self.len + src.len();
        self.reserve(end);
        self.buf[self.len..end].copy_from_slice(src);
        self.len = end;
    }

    /// Append `src`, growing the allocation to no more than the bytes held and the slack:
    /// past the small size, the bytes then have no [`Padded`] view (the finders read the
    /// slice, checked) but the full size is not mapped for them. The next [`Self::append`] past
    /// the allocation grows it to the full size.
    pub(crate) fn append_unpadded(&mut self, src: &[u8]) {
        let end = self.len + src.len();
        if !self.fits(end) {
            self.buf.resize(end + SLACK, 0);
        }
        self.buf[self.len..end].copy_from_slice(src);
        self.len = end;
    }

    /// Keep the first `len` bytes held (all of them if there are fewer).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Drop the first `n` bytes held; the rest moves to the front.
    pub(crate) fn drop_front(&mut self, n: usize) {
        self.buf.copy_within(n..self.len, 0);
        self.len -= n;
    }

    /// The bytes held.
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The bytes held, to read unchecked, while they are at most [`PADDED_MAX`] (and were
    /// not appended with [`Self::append_unpadded`] past the small size).
    pub(crate) fn view(&self) -> Option<Padded<'_>> {
        if self.buf.len() == SMALL_LEN {
            let buf = self.buf.as_slice().try_into().ok()?;
            return Some(Padded::Small(PaddedIn { buf, len: self.len }));
        }
        if self.len > PADDED_MAX {
            return None;
        }
        let buf = self.buf.get(..PADDED_LEN)?.try_into().ok()?;
        Some(Padded::Full(PaddedIn { buf, len: self.len }))
    }

    /// The bytes allocated (for tests of what a context costs).
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.buf.len()
    }
}

/// A 64 KiB source (a ZAR block) in a buffer with slack after it, which
/// [`Compressor::compress_block_into`](crate::zstd::Compressor::compress_block_into) reads
/// in place: the match finders read it unchecked as they read the context's own padded
/// copy of a source, without that copy. A writer that assembles its blocks here (as the
/// ZAR writer does) saves one 64 KiB copy per block.
///
/// It dereferences to the block's bytes, `[u8; 65536]`; the slack is never written.
#[derive(Clone)]
pub struct PaddedBlock {
    buf: Box<[u8; SMALL_LEN]>,
}

impl PaddedBlock {
    /// The block's length in bytes.
    pub const LEN: usize = SMALL_MAX;

    /// A block of zeros.
    pub fn new() -> Self {
        let buf = vec![0u8; SMALL_LEN]
            .into_boxed_slice()
            .try_into()
            .expect("a buffer of SMALL_LEN bytes");
        PaddedBlock { buf }
    }

    /// The block as the finders read it.
    pub(crate) fn view(&self) -> Padded<'_> {
        Padded::Small(PaddedIn {
            buf: &self.buf,
            len: SMALL_MAX,
        })
    }
}

impl Default for PaddedBlock {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for PaddedBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaddedBlock")
            .field("len", &Self::LEN)
            .finish_non_exhaustive()
    }
}

impl std::ops::Deref for PaddedBlock {
    type Target = [u8; SMALL_MAX];
    fn deref(&self) -> &[u8; SMALL_MAX] {
        self.buf
            .first_chunk()
            .expect("the block is at the buffer's start")
    }
}

impl std::ops::DerefMut for PaddedBlock {
    fn deref_mut(&mut self) -> &mut [u8; SMALL_MAX] {
        self.buf
            .first_chunk_mut()
            .expect("the block is at the buffer's start")
    }
}

/// Where two different 32-byte chunks first differ, from their two halves as integers
/// (where there is no vector unit to give a byte mask).
#[inline(always)]
fn first_difference(x: &[u8; 32], y: &[u8; 32]) -> usize {
    let half =
        |c: &[u8; 32], at: usize| u128::from_le_bytes(c[at..at + 16].try_into().expect("16 bytes"));
    let lo = half(x, 0) ^ half(y, 0);
    if lo != 0 {
        return (lo.trailing_zeros() / 8) as usize;
    }
    16 + ((half(x, 16) ^ half(y, 16)).trailing_zeros() / 8) as usize
}

/// A [`PaddedBuffer`]'s bytes to read unchecked, in the small or the full buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Padded<'a> {
    /// At most [`SMALL_MAX`] bytes.
    Small(PaddedIn<'a, SMALL_LEN>),
    /// At most [`PADDED_MAX`] bytes.
    Full(PaddedIn<'a, PADDED_LEN>),
}

/// An input of at most `LEN - SLACK` bytes (a power of two) at the start of a buffer of
/// `LEN` bytes: every read is masked into the buffer instead of checked. What follows the
/// input in the buffer (an earlier input's bytes) is never part of a result:
/// [`Source::count`] clamps at its limit, and the finders read no position at or past the
/// length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PaddedIn<'a, const LEN: usize> {
    buf: &'a [u8; LEN],
    len: usize,
}

impl<'a, const LEN: usize> PaddedIn<'a, LEN> {
    /// Masks a position into the buffer's first `LEN - SLACK` bytes.
    const MASK: usize = LEN - SLACK - 1;

    /// The same bytes up to `end` (at most the length).
    pub(crate) fn cut(self, end: usize) -> Self {
        debug_assert!(end <= self.len);
        PaddedIn {
            buf: self.buf,
            len: end.min(self.len),
        }
    }

    /// The 8 bytes at `p` when `p + need` is within the input (`need >= 8`). The test
    /// bounds the position below the buffer's end, so the read needs neither a mask nor a
    /// bounds check: one compare with a limit the loops keep (`p + need <= len` is
    /// `p < len - need + 1`, and no position passes when the input is shorter than `need`).
    #[inline(always)]
    fn unmasked_word(self, p: usize, need: usize) -> Option<u64> {
        debug_assert!(need >= 8);
        let end = self.len.min(LEN - SLACK).saturating_sub(need - 1);
        (p < end).then(|| u64::from_le_bytes(self.buf[p..p + 8].try_into().expect("8 bytes")))
    }

    /// The 32 bytes at `p` masked into the buffer.
    #[inline(always)]
    fn chunk32(self, p: usize) -> [u8; 32] {
        let p = p & Self::MASK;
        self.buf[p..p + 32].try_into().expect("32 bytes")
    }

    /// The 8 bytes at `p` masked into the buffer.
    #[inline(always)]
    fn word(self, p: usize) -> u64 {
        let p = p & Self::MASK;
        u64::from_le_bytes(self.buf[p..p + 8].try_into().expect("8 bytes"))
    }
}

impl<'a, const LEN: usize> Source<'a> for PaddedIn<'a, LEN> {
    #[inline(always)]
    fn as_slice(self) -> &'a [u8] {
        &self.buf[..self.len]
    }

    #[inline(always)]
    fn read32(self, p: usize) -> u32 {
        let p = p & Self::MASK;
        u32::from_le_bytes(self.buf[p..p + 4].try_into().expect("4 bytes"))
    }

    #[inline(always)]
    fn read64(self, p: usize) -> u64 {
        self.word(p)
    }

    #[inline(always)]
    fn read16_wild(self, p: usize) -> Option<[u8; 16]> {
        // Masked into the buffer: the slack after the input holds the bytes past its end.
        let p = p & Self::MASK;
        Some(self.buf[p..p + 16].try_into().expect("16 bytes"))
    }

    #[inline(always)]
    fn byte(self, p: usize) -> u8 {
        self.buf[p & Self::MASK]
    }

    #[inline(always)]
    fn probe(self, p: usize) -> Option<u64> {
        self.unmasked_word(p, 10)
    }

    #[inline(always)]
    fn probe8(self, p: usize) -> Option<u64> {
        self.unmasked_word(p, 8)
    }

    #[inline(always)]
    fn count(self, a: usize, b: usize, limit: usize) -> usize {
        // The first word is compared before any test of the length (most matches end in
        // it), as libzstd's ZSTD_count does; then 32 bytes a round, in one vector compare
        // where the target has one. Every read is masked: bytes at or past `limit` may be
        // anything (the mask may even wrap them to the buffer's start), and whatever they
        // say is clamped to `limit`. (A call in here, even out of line, makes the row
        // finder's search spill.)
        let left = limit.saturating_sub(a);
        let first = self.word(a) ^ self.word(b);
        if first != 0 || left <= 8 {
            return ((first.trailing_zeros() / 8) as usize).min(left);
        }
        let unit = Sse2Unit::detect();
        let mut n = 8;
        while n < left {
            let (x, y) = (self.chunk32(a + n), self.chunk32(b + n));
            // The byte mask is the round's test where there is a vector unit: the chunks
            // then stay in registers (a whole-chunk compare first kept them on the
            // stack, to be read back for the mask at the difference).
            if let Some(ne) = unit.ne_mask32(&x, &y) {
                if ne != 0 {
                    return (n + ne.trailing_zeros() as usize).min(left);
                }
            } else if x != y {
                return (n + first_difference(&x, &y)).min(left);
            }
            n += 32;
        }
        left
    }

    /// In the small buffer, every read masks its position to 16 bits, and a window's base
    /// there is [`WINDOW_START_INDEX`] plus a multiple of `2^16` (see
    /// `MatchState::rebase_small`): `idx - WINDOW_START_INDEX` reads as `idx - base`, and
    /// takes no register for the base.
    #[inline(always)]
    fn pos_of(self, idx: u32, base: u32) -> usize {
        if LEN == SMALL_LEN {
            debug_assert_eq!((base - WINDOW_START_INDEX) as usize % SMALL_MAX, 0);
            idx.wrapping_sub(WINDOW_START_INDEX) as usize
        } else {
            idx.wrapping_sub(base) as usize
        }
    }

    #[inline(always)]
    fn candidate_matches4(self, word: u32, idx: u32, low: u32) -> bool {
        // Every read is in the buffer: no clamp, only the window test, folded in.
        let at = (idx as usize).wrapping_sub(WINDOW_START_INDEX as usize);
        ((self.read32(at) ^ word) as usize | usize::from(idx < low)) == 0
    }

    #[inline(always)]
    fn candidate_matches8(self, word: u64, idx: u32, low: u32) -> bool {
        let at = (idx as usize).wrapping_sub(WINDOW_START_INDEX as usize);
        ((self.word(at) ^ word) as usize | usize::from(idx < low)) == 0
    }

    #[inline(always)]
    fn tree_step(self, ip: usize, iend: usize, m: usize, from: usize) -> (usize, bool) {
        // A difference at or past the run's end means the run matched to its end, which
        // orders as not smaller (the slice's answer).
        let left = iend - ip;
        let (len, smaller) = self.tree_step_open(ip, iend, m, from);
        if len < left {
            (len, smaller)
        } else {
            (left, false)
        }
    }

    #[inline(always)]
    fn tree_step_open(self, ip: usize, iend: usize, m: usize, from: usize) -> (usize, bool) {
        // The first word unchecked; past it, the slice's walk (exact).
        let (x, y) = (self.word(ip + from), self.word(m + from));
        let diff = x ^ y;
        if diff != 0 {
            let len = from + (diff.trailing_zeros() / 8) as usize;
            return (len, y.swap_bytes() < x.swap_bytes());
        }
        let left = iend - ip;
        if from + 8 >= left {
            return (left, false);
        }
        let src = self.as_slice();
        tree_step(&src[ip..iend], src, m, from + 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `padded`'s reads give the slice's results over the whole of `src`.
    fn check_reads<'a, S: Source<'a>>(padded: S, src: &[u8]) {
        let slice: &[u8] = src;
        let len = src.len();
        assert_eq!(padded.as_slice(), src);
        for p in (0..len).step_by(7) {
            assert_eq!(padded.probe(p), slice.probe(p), "probe {p}");
            assert_eq!(padded.probe8(p), slice.probe8(p), "probe8 {p}");
            if p + 8 <= len {
                assert_eq!(padded.hash::<6>(p, 13), slice.hash::<6>(p, 13));
                assert_eq!(padded.hash::<4>(p, 17), slice.hash::<4>(p, 17));
                assert_eq!(padded.read64(p), slice.read64(p));
                assert_eq!(padded.read32(p), slice.read32(p));
            }
            assert_eq!(padded.byte(p), slice.byte(p));
            for back in [1, 9, 18, 45, 900] {
                if back <= p {
                    for (iend, from) in [(len, 0), (len, 3), ((p + 12).min(len), 0), (p + 1, 0)] {
                        if from < iend - p {
                            assert_eq!(
                                padded.tree_step(p, iend, p - back, from),
                                slice.tree_step(p, iend, p - back, from),
                                "tree step {p} {back} {iend} {from}"
                            );
                        }
                    }
                    for limit in [p, p + 3, (p + 40).min(len), len] {
                        assert_eq!(
                            padded.count(p, p - back, limit),
                            slice.count(p, p - back, limit),
                            "count {p} {back} {limit}"
                        );
                    }
                }
            }
        }
        // The probes' end of input, position by position, and positions that would wrap.
        for p in (len.saturating_sub(20)..len + 3).chain([usize::MAX - 4, usize::MAX]) {
            assert_eq!(padded.probe(p), slice.probe(p), "probe {p} of {len}");
            assert_eq!(padded.probe8(p), slice.probe8(p), "probe8 {p} of {len}");
        }
        // Wild 16-byte reads: the input's bytes, then scratch where the slice has none.
        for p in (0..len).step_by(13).chain(len.saturating_sub(20)..len) {
            let wild = padded.read16_wild(p);
            match slice.read16_wild(p) {
                Some(bytes) => assert_eq!(wild, Some(bytes), "read16 {p}"),
                None => {
                    if let Some(bytes) = wild {
                        assert_eq!(bytes[..len - p], src[p..], "read16 {p} past the end");
                    }
                }
            }
        }
        // Candidates: valid ones, stale ones below `low`.
        for (idx, low) in [(2u32, 2u32), (700, 2), (1, 2), (0, 2), (5, 90), (95, 90)] {
            let word = slice.read32(idx.wrapping_sub(2) as usize % (len - 4));
            assert_eq!(
                padded.candidate_matches4(word, idx, low),
                slice.candidate_matches4(word, idx, low),
                "candidate {idx} {low}"
            );
            let word = slice.read64(idx.wrapping_sub(2) as usize % (len - 8));
            assert_eq!(
                padded.candidate_matches8(word, idx, low),
                slice.candidate_matches8(word, idx, low),
                "candidate8 {idx} {low}"
            );
        }
    }

    /// Input with repeats at many distances, `len` bytes.
    fn repetitive(len: usize) -> Vec<u8> {
        let mut src = Vec::new();
        for i in 0.. {
            if src.len() >= len {
                break;
            }
            src.extend_from_slice(if i % 5 == 0 { b"abcdefgh" } else { b"abcdexyz" });
            src.push((i % 3) as u8);
        }
        src.truncate(len);
        src
    }

    /// The padded reads give the slice's results over a whole input, in the small buffer
    /// and in the full one after an earlier, longer input left its bytes in it.
    #[test]
    fn padded_reads_match_the_slice() {
        let src = repetitive(27_000);
        let mut small = PaddedBuffer::default();
        assert!(small.view().is_none(), "nothing allocated");
        small.append(&src[..1000]);
        small.append(&src[1000..]);
        match small.view() {
            Some(Padded::Small(p)) => {
                check_reads(p, &src);
                let cut = p.cut(100);
                assert_eq!(cut.probe(90), Some(src.as_slice().read64(90)));
                assert_eq!(cut.probe(91), None, "10 bytes left from 90, 9 from 91");
            }
            other => panic!("a small source in the small buffer, not {other:?}"),
        }

        let mut buffer = PaddedBuffer::default();
        let long: Vec<u8> = (0..PADDED_MAX).map(|i| (i * 7 % 251) as u8).collect();
        buffer.append(&long);
        assert!(buffer.view().is_some());
        buffer.append(b"x");
        assert!(buffer.view().is_none(), "one byte too many");
        assert_eq!(buffer.as_slice().len(), PADDED_MAX + 1);
        buffer.drop_front(PADDED_MAX - 5);
        assert_eq!(
            buffer.as_slice(),
            &[long[PADDED_MAX - 5..].to_vec(), b"x".to_vec()].concat()[..]
        );
        assert!(buffer.view().is_some());
        buffer.clear();
        buffer.append(&long);
        buffer.clear();
        buffer.append(&src);
        match buffer.view() {
            Some(Padded::Full(p)) => check_reads(p, &src),
            other => panic!("a grown buffer stays full, not {other:?}"),
        }
    }

    /// The padded count finds a first difference at every place of its words and chunks,
    /// and clamps at every limit, as the slice's does.
    #[test]
    fn padded_count_finds_every_first_difference() {
        let first: Vec<u8> = (0..100u8).collect();
        for k in 0..100 {
            let mut src = first.clone();
            src.extend_from_slice(&first);
            src[100 + k] ^= 0x80;
            src.extend_from_slice(&[7; 20]);
            let mut buffer = PaddedBuffer::default();
            buffer.append(&src);
            let Some(Padded::Small(padded)) = buffer.view() else {
                panic!("a small source in the small buffer");
            };
            for limit in [100, 100 + k, 101 + k, 140, 200, 220] {
                let want = k.min(limit - 100);
                assert_eq!(
                    padded.count(100, 0, limit),
                    want,
                    "difference {k}, limit {limit}"
                );
                assert_eq!(
                    src.as_slice().count(100, 0, limit),
                    want,
                    "slice {k} {limit}"
                );
            }
        }
    }

    /// A buffer is allocated at the smaller size that holds what it is given, and grows to
    /// the full size when the input outgrows it, keeping the bytes.
    #[test]
    fn small_inputs_allocate_the_small_buffer() {
        let src = repetitive(SMALL_MAX + 1);
        let mut buffer = PaddedBuffer::default();
        buffer.append(&src[..2048]);
        assert_eq!(buffer.allocated(), SMALL_LEN, "2 KiB");
        buffer.append(&src[2048..SMALL_MAX]);
        assert_eq!(buffer.allocated(), SMALL_LEN, "a ZAR block");
        assert!(matches!(buffer.view(), Some(Padded::Small(_))));
        buffer.append(&src[SMALL_MAX..]);
        assert_eq!(buffer.allocated(), PADDED_LEN, "one byte more");
        assert_eq!(buffer.as_slice(), &src[..]);
        match buffer.view() {
            Some(Padded::Full(p)) => check_reads(p, &src),
            other => panic!("the grown buffer is full, not {other:?}"),
        }
        let mut big = PaddedBuffer::default();
        big.append(&src);
        assert_eq!(big.allocated(), PADDED_LEN, "more than a block at once");
    }

    /// A stream's window and input past 4 MiB (a level 19 or `--long` window) are still
    /// read unchecked, from a buffer that was allocated, not grown by a resize.
    #[test]
    fn windows_past_4_mib_keep_their_view() {
        let src = repetitive(5 << 20);
        let mut buffer = PaddedBuffer::default();
        buffer.append(&src[..1000]);
        buffer.append(&src[1000..3 << 20]);
        buffer.append(&src[3 << 20..]);
        assert_eq!(buffer.as_slice(), &src[..]);
        let Some(Padded::Full(p)) = buffer.view() else {
            panic!("5 MiB in the full buffer");
        };
        let slice: &[u8] = &src;
        assert_eq!(p.as_slice(), slice);
        for at in [0, 4 << 20, (5 << 20) - 10, (5 << 20) - 9] {
            assert_eq!(p.probe(at), slice.probe(at), "probe {at}");
            assert_eq!(p.read32(at), slice.read32(at), "read {at}");
            let len = src.len();
            assert_eq!(p.count(at, at / 2, len), slice.count(at, at / 2, len));
        }
    }

    /// Unpadded appends past the small size allocate what they hold (no view then); the
    /// next padded append grows to the full size, keeping the bytes.
    #[test]
    fn unpadded_appends_allocate_what_they_hold() {
        let src = repetitive(2 * SMALL_MAX);
        let mut buffer = PaddedBuffer::default();
        assert!(
            !buffer.grows_full(SMALL_MAX),
            "a block takes the small size"
        );
        assert!(buffer.grows_full(SMALL_MAX + 1));
        buffer.append_unpadded(&src[..1000]);
        buffer.append_unpadded(&src[1000..SMALL_MAX + 1000]);
        assert_eq!(buffer.allocated(), SMALL_MAX + 1000 + SLACK);
        assert!(buffer.view().is_none(), "no view of an unpadded buffer");
        assert!(buffer.grows_full(SMALL_MAX + 1000), "no view to keep");
        buffer.truncate(500);
        buffer.append_unpadded(&src[500..SMALL_MAX + 1000]);
        assert_eq!(buffer.allocated(), SMALL_MAX + 1000 + SLACK, "it fits");
        buffer.append(&src[SMALL_MAX + 1000..]);
        assert_eq!(buffer.allocated(), PADDED_LEN);
        assert_eq!(buffer.as_slice(), &src[..]);
        match buffer.view() {
            Some(Padded::Full(p)) => check_reads(p, &src),
            other => panic!("the grown buffer is full, not {other:?}"),
        }
        assert!(!buffer.grows_full(PADDED_MAX));
    }
}
