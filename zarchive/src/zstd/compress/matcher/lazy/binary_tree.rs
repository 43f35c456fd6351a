//! The binary-tree match finder of `btlazy2` (`ZSTD_BtFindBestMatch`: `ZSTD_updateDUBT`,
//! `ZSTD_insertDUBT1`, `ZSTD_DUBT_findBestMatch`; "DUBT" = dual unsorted binary tree).
//!
//! Each position owns two tree links, `bt[2 * (idx & btMask)]` (its "smaller" child) and
//! the slot after it (its "larger" child). New positions are first only chained through
//! the hash table, with the second slot holding [`UNSORTED_MARK`]; a search sorts the
//! pending ones into the tree in a batch before walking it.

use super::{LazyState, NO_MATCH_OFF_BASE, SearchMax};
use crate::zstd::compress::bits::highbit32;
use crate::zstd::compress::matcher::source::Source;
use crate::zstd::compress::matcher::{Links, TreeWalk, count, hash_ptr};
use crate::zstd::compress::params::CParams;
use crate::zstd::compress::window::{
    BlockLimits, HASH_READ_SIZE, WINDOW_START_INDEX, Window, index_of,
};

// Marks a position that is chained but not yet sorted into the tree (`ZSTD_DUBT_UNSORTED_MARK`).
use crate::zstd::compress::matcher::table::DUBT_UNSORTED_MARK as UNSORTED_MARK;
use crate::zstd::compress::seq_store::OFFSET_TO_OFFBASE;

/// An attached CDict's binary tree (its hash table and chain table, sorted when it was
/// loaded), searched after the frame's own with the compares left.
#[derive(Clone, Copy)]
pub(crate) struct DictTree<'t> {
    pub(crate) hash: &'t [u32],
    pub(crate) bt: &'t [u32],
    pub(crate) hash_log: u32,
    pub(crate) chain_log: u32,
    /// Bytes of the dictionary's content (its indices end at `2 + content_len`).
    pub(crate) content_len: usize,
}

/// The binary tree over the frame's hash table and the chain table (`1 << chainLog`
/// entries, i.e. `1 << (chainLog - 1)` node pairs).
pub(crate) struct BinaryTree<'t, const MLS: u32> {
    hash: &'t mut [u32],
    bt: &'t mut [u32],
    next_to_update: &'t mut usize,
    hash_log: u32,
    bt_mask: u32,
    compares: u32,
    limits: BlockLimits,
    /// The limits ZSTD_insertDUBT1 sorts with: by the window alone, even while a
    /// dictionary counts as loaded.
    sort_limits: BlockLimits,
    /// The prefix start (`dictLimit`) when the window has an extDict segment, else 0.
    ext_end: u32,
    dms: Option<DictTree<'t>>,
}

impl<'t, const MLS: u32> BinaryTree<'t, MLS> {
    pub(crate) fn new(
        hash: &'t mut [u32],
        state: &'t mut LazyState,
        cp: &CParams,
        window: &Window,
        block_end: usize,
    ) -> Self {
        BinaryTree {
            hash: &mut hash[..1 << cp.hash_log],
            bt: &mut state.chain.as_mut_slice()[..1 << cp.chain_log],
            next_to_update: &mut state.next_to_update,
            hash_log: cp.hash_log,
            bt_mask: (1 << (cp.chain_log - 1)) - 1,
            compares: 1 << cp.search_log,
            limits: window.block_limits(block_end),
            sort_limits: window.block_limits_ignoring_dict(block_end),
            ext_end: if window.has_ext_dict() {
                window.dict_limit()
            } else {
                0
            },
            dms: None,
        }
    }

    /// The finder with an attached dictionary's tree searched after its own.
    pub(crate) fn with_dict(mut self, dms: DictTree<'t>) -> Self {
        self.dms = Some(dms);
        self
    }

    /// Mirrors ZSTD_DUBT_findBetterDictMatch: walks the attached dictionary's tree with the
    /// `compares` left, keeping a longer match only when its gain beats the offset's cost.
    fn find_better_dict_match(
        &self,
        src: &[u8],
        ip: usize,
        iend: usize,
        mut compares: u32,
        mut best_length: usize,
        mut off_base: u32,
    ) -> (usize, u32) {
        let Some(d) = self.dms else {
            return (best_length, off_base);
        };
        let curr = index_of(ip);
        let high_limit = WINDOW_START_INDEX + d.content_len as u32;
        let low_limit = WINDOW_START_INDEX;
        let bt_mask = (1u32 << (d.chain_log - 1)) - 1;
        let bt_low = if bt_mask >= high_limit - low_limit {
            low_limit
        } else {
            high_limit - bt_mask
        };
        let (mut common_smaller, mut common_larger) = (0usize, 0usize);
        let mut match_index = d.hash[hash_ptr::<MLS>(src, ip, d.hash_log)];
        while compares > 0 && match_index > low_limit {
            let next = 2 * (match_index & bt_mask) as usize;
            let m = (match_index - WINDOW_START_INDEX) as usize;
            let mut len = common_smaller.min(common_larger);
            // Across the dictionary's end as ZSTD_count_2segments (see `Window`).
            len += count(src, ip + len, m + len, iend);
            if len > best_length {
                let gain = 4 * (len - best_length) as i64;
                let cost = highbit32(curr - match_index + 1) as i64
                    - highbit32(off_base.wrapping_add(1)) as i64;
                if gain > cost {
                    best_length = len;
                    off_base = curr - match_index + OFFSET_TO_OFFBASE;
                }
                if ip + len == iend {
                    break;
                }
            }
            if match_index <= bt_low {
                break;
            }
            if src[m + len] < src[ip + len] {
                common_smaller = len;
                match_index = d.bt[next + 1];
            } else {
                common_larger = len;
                match_index = d.bt[next];
            }
            compares -= 1;
        }
        (best_length, off_base)
    }

    #[inline(always)]
    fn node(&self, idx: u32) -> usize {
        2 * (idx & self.bt_mask) as usize
    }

    /// Mirrors ZSTD_updateDUBT: chains positions up to `ip` (excluded) through the hash
    /// table, marked unsorted.
    fn update<'a, S: Source<'a>>(&mut self, src: S, ip: usize) {
        for p in *self.next_to_update..ip {
            let h = src.hash::<MLS>(p, self.hash_log);
            let idx = index_of(p);
            let n = self.node(idx);
            self.bt[n] = self.hash[h];
            self.bt[n + 1] = UNSORTED_MARK;
            self.hash[h] = idx;
        }
        *self.next_to_update = ip;
    }

    /// Mirrors ZSTD_insertDUBT1: sorts the already chained position `curr` into the tree,
    /// comparing at most `compares` nodes and going no lower than `bt_low`.
    fn insert_one<'a, S: Source<'a>>(
        &mut self,
        src: S,
        curr: u32,
        iend: usize,
        mut compares: u32,
        bt_low: u32,
    ) {
        let ip = (curr - WINDOW_START_INDEX) as usize;
        // A candidate in the extDict segment (a stream's previous segment, chained before
        // the input stopped being contiguous) is compared up to that segment's end only.
        let iend = if curr < self.ext_end {
            (self.ext_end - WINDOW_START_INDEX) as usize
        } else {
            iend
        };
        // The unsorted node's first slot still holds its chain successor.
        let mut match_index = self.bt[self.node(curr)];
        // The lowest index for the candidate being sorted, not for the searched position,
        // and by the window alone.
        let window_low = self.sort_limits.lowest_match_index(curr);
        // The walk keeps what it reads in locals: nothing it writes can move them.
        let bt = Links::new(self.bt);
        let mut walk = TreeWalk::new(&bt, curr);
        // Candidates must be strictly above the window's low end (deliberately `>`).
        while compares > 0 && match_index > window_low {
            let m = (match_index - WINDOW_START_INDEX) as usize;
            let (len, smaller_here) = src.tree_step(ip, iend, m, walk.common());
            if len == iend - ip {
                break; // equal: no way to know the order; drop to keep the tree consistent
            }
            match walk.descend(&bt, match_index, len, smaller_here, bt_low) {
                Some(next) => match_index = next,
                None => break,
            }
            compares -= 1;
        }
        walk.finish();
    }
}

impl<const MLS: u32> SearchMax for BinaryTree<'_, MLS> {
    const MARGIN: usize = HASH_READ_SIZE;
    const LAZY2_ONLY: bool = true;

    fn start_block<'a, S: Source<'a>>(&mut self, _src: S, _ilimit: Option<usize>) {}

    /// Mirrors ZSTD_BtFindBestMatch + ZSTD_DUBT_findBestMatch (noDict, extDict,
    /// dictMatchState). Ignores
    /// lazy-skipping mode, as libzstd's tree search does.
    fn search<'a, S: Source<'a>>(
        &mut self,
        src: S,
        ip: usize,
        iend: usize,
        _lazy_skipping: bool,
    ) -> (usize, u32) {
        let mut off_base = NO_MATCH_OFF_BASE;
        if ip < *self.next_to_update {
            return (0, off_base); // inside a skipped repetitive area
        }
        self.update(src, ip);

        let h = src.hash::<MLS>(ip, self.hash_log);
        let curr = index_of(ip);
        let bt_low = curr.saturating_sub(self.bt_mask); // `btMask >= curr ? 0 : curr - btMask`
        let window_low = self.limits.lowest_match_index(curr);
        let unsort_limit = bt_low.max(window_low);

        // Walk to the end of the unsorted candidates, reversing their chain into a stack
        // through the mark slots.
        let mut match_index = self.hash[h];
        let mut candidates = self.compares;
        let mut previous = 0;
        while match_index > unsort_limit
            && self.bt[self.node(match_index) + 1] == UNSORTED_MARK
            && candidates > 1
        {
            let n = self.node(match_index);
            self.bt[n + 1] = previous;
            previous = match_index;
            match_index = self.bt[n];
            candidates -= 1;
        }
        // A last candidate still unsorted is dropped (speed over ratio, as libzstd).
        if match_index > unsort_limit && self.bt[self.node(match_index) + 1] == UNSORTED_MARK {
            let n = self.node(match_index);
            self.bt[n] = 0;
            self.bt[n + 1] = 0;
        }
        // Sort the stacked candidates, oldest first.
        let mut match_index = previous;
        while match_index != 0 {
            let next = self.bt[self.node(match_index) + 1];
            self.insert_one(src, match_index, iend, candidates, unsort_limit);
            match_index = next;
            candidates += 1;
        }

        // Insert `curr` into the tree while looking for the longest match.
        let mut match_end_idx = curr + 8 + 1;
        let mut best_length = 0usize;
        let mut compares = self.compares;
        let mut match_index = self.hash[h];
        self.hash[h] = curr;
        let bt = Links::new(self.bt);
        let mut walk = TreeWalk::new(&bt, curr);
        // Candidates must be strictly above the window's low end (deliberately `>`).
        while compares > 0 && match_index > window_low {
            let m = (match_index - WINDOW_START_INDEX) as usize;
            let (len, smaller_here) = src.tree_step(ip, iend, m, walk.common());
            if len > best_length {
                if len as u32 > match_end_idx - match_index {
                    match_end_idx = match_index + len as u32;
                }
                let gain = 4 * (len - best_length) as i64;
                let cost = highbit32(curr - match_index + 1) as i64 - highbit32(off_base) as i64;
                if gain > cost {
                    best_length = len;
                    off_base = curr - match_index + OFFSET_TO_OFFBASE;
                }
                if len == iend - ip {
                    // Equal: no way to know the order; drop to keep the tree consistent
                    // (and skip the dictionary).
                    compares = 0;
                    break;
                }
            }
            match walk.descend(&bt, match_index, len, smaller_here, bt_low) {
                Some(next) => match_index = next,
                None => break,
            }
            compares -= 1;
        }
        walk.finish();
        if self.dms.is_some() && compares > 0 {
            (best_length, off_base) = self.find_better_dict_match(
                src.as_slice(),
                ip,
                iend,
                compares,
                best_length,
                off_base,
            );
        }
        // Skip repetitive patterns: the next search starts inserting near the match end.
        *self.next_to_update = (match_end_idx - 8 - WINDOW_START_INDEX) as usize;
        (best_length, off_base)
    }

    fn end_skipping<'a, S: Source<'a>>(&mut self, _src: S, _ilimit: Option<usize>) {}
}
