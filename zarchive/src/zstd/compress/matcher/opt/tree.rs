//! The binary tree of the optimal parser (`ZSTD_insertBt1`, `ZSTD_updateTree_internal`,
//! `ZSTD_insertBtAndGetAllMatches`), plus the 3-byte hash table used when
//! `minMatch == 3` (`ZSTD_insertAndFindFirstIndexHash3`).
//!
//! Unlike btlazy2's lazily sorted tree, every position is sorted in as it is inserted, and a
//! search reports every match longer than the previous one, repcodes first.

use super::{OFFSET_TO_OFFBASE, OPT_NUM};
use crate::zstd::compress::matcher::source::Source;
use crate::zstd::compress::matcher::{Links, TreeWalk, count, hash_ptr};
use crate::zstd::compress::params::CParams;
use crate::zstd::compress::seq_store::REP_NUM;
use crate::zstd::compress::window::{WINDOW_START_INDEX, Window};

/// Prime of the 3-byte hash (`prime3bytes`).
const PRIME_3_BYTES: u32 = 506_832_829;
/// A hash-3 candidate this far back or further is not worth its offset (the `1 << 18` heuristic).
const HASH3_MAX_DISTANCE: u32 = 1 << 18;
/// `insertBt1` reports at least `matchEnd - (curr + BT_SKIP_BASE)` positions as done.
const BT_SKIP_BASE: u32 = 8;
/// After a match longer than this, `insertBt1` skips up to [`BT_LONG_MATCH_SKIP_MAX`]
/// positions (a speed optimisation that changes the tree).
const BT_LONG_MATCH: usize = 384;
const BT_LONG_MATCH_SKIP_MAX: usize = 192;

/// A candidate match (`ZSTD_match_t`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Match {
    /// `offBase`: 1..=3 repcodes, otherwise offset + 3.
    pub(super) off: u32,
    pub(super) len: u32,
}

/// The candidates of one search, longest last (`ZSTD_match_t matches[ZSTD_OPT_NUM+1]`):
/// a buffer sized once, so adding a candidate is a store, never a reallocation. Every
/// candidate is longer than the one before and a search stops after one longer than
/// [`OPT_NUM`], so at most `OPT_NUM + 1` are ever held.
#[derive(Default)]
pub(super) struct Matches {
    buf: Box<[Match]>,
    len: usize,
}

impl Matches {
    /// Room for the longest list (once per context).
    pub(super) fn reserve(&mut self) {
        if self.buf.len() < OPT_NUM + 1 {
            self.buf = vec![Match::default(); OPT_NUM + 1].into_boxed_slice();
        }
        self.len = 0;
    }

    #[inline(always)]
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    #[inline(always)]
    pub(super) fn push(&mut self, m: Match) {
        self.buf[self.len] = m;
        self.len += 1;
    }

    #[inline(always)]
    pub(super) fn as_slice(&self) -> &[Match] {
        &self.buf[..self.len]
    }

    #[inline(always)]
    pub(super) fn last(&self) -> Option<&Match> {
        self.as_slice().last()
    }

    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Mirrors ZSTD_hash3Ptr.
#[inline(always)]
fn hash3<'a, S: Source<'a>>(src: S, pos: usize, h_bits: u32) -> usize {
    ((src.read32(pos) << 8).wrapping_mul(PRIME_3_BYTES) >> (32 - h_bits)) as usize
}

/// Mirrors ZSTD_readMINMATCH: the bytes a repcode candidate must share, as a comparable word.
#[inline(always)]
fn read_min_match<'a, S: Source<'a>>(src: S, pos: usize, min_match: u32) -> u32 {
    if min_match == 3 {
        src.read32(pos) << 8
    } else {
        src.read32(pos)
    }
}

/// An attached CDict's binary tree (sorted when it was loaded), searched after the frame's
/// own with the compares left.
#[derive(Clone, Copy)]
pub(crate) struct OptDictTree<'t> {
    pub(crate) hash: &'t [u32],
    pub(crate) bt: &'t [u32],
    pub(crate) hash_log: u32,
    pub(crate) chain_log: u32,
    /// Bytes of the dictionary's content (its indices end at `2 + content_len`).
    pub(crate) content_len: usize,
}

/// What both halves of a search read first: the searched position `ip`, its hash `h`, the
/// hash table's entry there (`head`) and the window's lowest index for it.
#[derive(Clone, Copy)]
struct Head {
    ip: usize,
    h: usize,
    head: u32,
    window_low: u32,
}

/// The tree over the frame's hash table and the chain table, for one block, reading its
/// input from `S` (the block's padded copy, or a slice).
pub(super) struct OptTree<'t, const MLS: u32, S = &'t [u8]> {
    hash: &'t mut [u32],
    bt: &'t mut [u32],
    hash3: &'t mut [u32],
    hash_log3: u32,
    next_to_update: &'t mut u32,
    /// `nextToUpdate3`: a per-block copy of `nextToUpdate` at the block start.
    next_to_update3: u32,
    /// Index of source position 0.
    base: u32,
    /// The window's low limit and maximum distance (`windowLow`, `dictLimit`).
    window: Window,
    hash_log: u32,
    bt_mask: u32,
    compares: u32,
    sufficient_len: u32,
    src: S,
    /// Block end (`iend`): no match reads past it.
    iend: usize,
    /// An attached dictionary's tree (`ZSTD_dictMatchState`).
    pub(super) dms: Option<OptDictTree<'t>>,
}

impl<'t, 's, const MLS: u32, S: Source<'s>> OptTree<'t, MLS, S> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        hash: &'t mut [u32],
        bt: &'t mut [u32],
        hash3: &'t mut [u32],
        hash_log3: u32,
        next_to_update: &'t mut u32,
        window: &Window,
        cp: &CParams,
        src: S,
        iend: usize,
    ) -> Self {
        let next_to_update3 = *next_to_update;
        OptTree {
            hash: &mut hash[..1 << cp.hash_log],
            bt: &mut bt[..1 << cp.chain_log],
            hash3,
            hash_log3,
            next_to_update,
            next_to_update3,
            base: window.base(),
            window: *window,
            hash_log: cp.hash_log,
            bt_mask: (1 << (cp.chain_log - 1)) - 1,
            compares: 1 << cp.search_log,
            sufficient_len: cp.target_length.min(OPT_NUM as u32 - 1),
            src,
            iend,
            dms: None,
        }
    }

    #[inline(always)]
    fn pos(&self, idx: u32) -> usize {
        (idx - self.base) as usize
    }

    #[inline(always)]
    fn node(&self, idx: u32) -> usize {
        2 * (idx & self.bt_mask) as usize
    }

    /// Mirrors ZSTD_insertBt1 (noDict): sorts position `ip` into the tree. Returns how many
    /// positions the caller may skip (at least 1). The lowest valid index is the one of
    /// the update `target` (the searched position), not of `ip`.
    fn insert_bt1(&mut self, ip: usize, target: u32) -> u32 {
        let src = self.src;
        let iend = self.iend;
        let curr = ip as u32 + self.base;
        let h = src.hash::<MLS>(ip, self.hash_log);
        let mut match_index = self.hash[h];
        let bt_low = curr.saturating_sub(self.bt_mask);
        let window_low = self.window.lowest_match_index(target);
        let mut match_end = curr + BT_SKIP_BASE + 1;
        let mut best_length = BT_SKIP_BASE as usize;
        let mut compares = self.compares;
        self.hash[h] = curr;
        // The walk keeps what it reads in locals: nothing it writes can move them.
        let base = self.base;
        let bt = Links::new(self.bt);
        let mut walk = TreeWalk::new(&bt, curr);
        while compares > 0 && match_index >= window_low {
            let m = (match_index - base) as usize;
            let (len, smaller_here) = src.tree_step(ip, iend, m, walk.common());
            if len > best_length {
                best_length = len;
                if len > (match_end - match_index) as usize {
                    match_end = match_index + len as u32;
                }
            }
            if ip + len == iend {
                // Cannot tell smaller from larger: drop the rest to keep the tree consistent.
                break;
            }
            match walk.descend(&bt, match_index, len, smaller_here, bt_low) {
                Some(next) => match_index = next,
                None => break,
            }
            compares -= 1;
        }
        walk.finish();
        let positions = if best_length > BT_LONG_MATCH {
            BT_LONG_MATCH_SKIP_MAX.min(best_length - BT_LONG_MATCH) as u32
        } else {
            0
        };
        positions.max(match_end - (curr + BT_SKIP_BASE))
    }

    /// Mirrors ZSTD_updateTree_internal: inserts the positions before `ip`.
    #[inline(never)]
    pub(super) fn update_tree(&mut self, ip: usize) {
        let target = ip as u32 + self.base;
        let mut idx = *self.next_to_update;
        while idx < target {
            let forward = self.insert_bt1(self.pos(idx), target);
            idx += forward;
        }
        *self.next_to_update = target;
    }

    /// Mirrors ZSTD_insertAndFindFirstIndexHash3: inserts positions up to `ip` (excluded)
    /// into the hash-3 table and returns its entry for `ip`.
    #[inline(always)]
    fn insert_and_find_hash3(&mut self, ip: usize) -> u32 {
        let target = ip as u32 + self.base;
        let h = hash3(self.src, ip, self.hash_log3);
        for idx in self.next_to_update3..target {
            let p = self.pos(idx);
            self.hash3[hash3(self.src, p, self.hash_log3)] = idx;
        }
        self.next_to_update3 = target;
        self.hash3[h]
    }

    /// Mirrors ZSTD_btGetAllMatches_internal + ZSTD_insertBtAndGetAllMatches (noDict):
    /// fills `matches` with candidates at `ip` of increasing length (at least
    /// `length_to_beat`), repcodes first; `ll0` tells whether the literal length is zero.
    #[inline(never)]
    pub(super) fn get_all_matches(
        &mut self,
        matches: &mut Matches,
        ip: usize,
        rep: &[u32; REP_NUM],
        ll0: bool,
        length_to_beat: u32,
    ) {
        matches.clear();
        let curr = ip as u32 + self.base;
        if curr < *self.next_to_update {
            // Skipped area (after a long repetitive match).
            return;
        }
        if curr > *self.next_to_update {
            self.update_tree(ip);
        }
        // The hash table's entry for `ip` and the window's lowest index, read by both paths
        // below (nothing between them changes either).
        let h = self.src.hash::<MLS>(ip, self.hash_log);
        let head = self.hash[h];
        let window_low = self.window.lowest_match_index(curr);
        let at = Head {
            ip,
            h,
            head,
            window_low,
        };
        if self.nothing_to_find(at, rep, ll0) {
            return;
        }
        // A search without a dictionary of any kind (a ZAR block's) has its own code: no
        // repcode into a dictionary, no dictionary tree after the frame's.
        if self.dms.is_none() && !self.window.has_ext_dict() {
            self.get_all_matches_found::<true>(matches, at, rep, ll0, length_to_beat);
        } else {
            self.get_all_matches_found::<false>(matches, at, rep, ll0, length_to_beat);
        }
    }

    /// The common case of data without matches, settled without the search's set-up: no
    /// repcode and no hash-3 candidate agrees on the first `min_match` bytes, and the hash
    /// table holds no candidate in the window (no dictionary of any kind). Then `ip`
    /// goes into the hash table as a leaf of the tree, as the full search would leave it,
    /// and there are no matches. Otherwise nothing is changed but the hash-3 table's
    /// insertions (which the full search repeats as a no-op). On random data the full
    /// search's set-up was most of each position's instructions.
    #[inline(always)]
    fn nothing_to_find(&mut self, at: Head, rep: &[u32; REP_NUM], ll0: bool) -> bool {
        if self.dms.is_some() || self.window.has_ext_dict() {
            return false;
        }
        let Head {
            ip,
            h,
            head,
            window_low,
        } = at;
        let src = self.src;
        let curr = ip as u32 + self.base;
        // The tree first: on data with matches, it settles most positions.
        let match_low = window_low.max(1);
        if self.compares > 0 && head >= match_low {
            return false;
        }
        let min_match: u32 = if MLS == 3 { 3 } else { 4 };
        let here = read_min_match(src, ip, min_match);
        let in_prefix = curr - self.window.dict_limit();
        let offsets = if ll0 {
            [rep[1], rep[2], rep[0].wrapping_sub(1)]
        } else {
            *rep
        };
        for o in offsets {
            // Wrapping on purpose: offsets 0 and "-1" are no candidates.
            if o.wrapping_sub(1) < in_prefix
                && read_min_match(src, ip - o as usize, min_match) == here
            {
                return false;
            }
        }
        if MLS == 3 {
            let index3 = self.insert_and_find_hash3(ip);
            if index3 >= match_low
                && curr - index3 < HASH3_MAX_DISTANCE
                && read_min_match(src, self.pos(index3), 3) == here
            {
                return false;
            }
        }
        self.hash[h] = curr;
        let node = self.node(curr);
        self.bt[node] = 0;
        self.bt[node + 1] = 0;
        *self.next_to_update = curr + 1;
        true
    }

    /// [`OptTree::get_all_matches`] where a candidate may be found (`at`: the position, its
    /// hash and what the hash table and the window say there); `PLAIN` when the frame has
    /// no dictionary of any kind.
    #[inline(always)]
    fn get_all_matches_found<const PLAIN: bool>(
        &mut self,
        matches: &mut Matches,
        at: Head,
        rep: &[u32; REP_NUM],
        ll0: bool,
        length_to_beat: u32,
    ) {
        let Head {
            ip,
            h,
            head,
            window_low,
        } = at;
        let curr = ip as u32 + self.base;

        let src = self.src;
        let iend = self.iend;
        let min_match: u32 = if MLS == 3 { 3 } else { 4 };
        let mut match_index = head;
        let bt_low = curr.saturating_sub(self.bt_mask);
        let dict_limit = self.window.dict_limit();
        let ext_dict = !PLAIN && self.window.has_ext_dict();
        let dms = if PLAIN { None } else { self.dms };
        let match_low = window_low.max(1);
        let mut match_end = curr + BT_SKIP_BASE + 1;
        let mut compares = self.compares;
        let sufficient_len = self.sufficient_len as usize;
        let mut best_length = (length_to_beat - 1) as usize;

        // Repcodes (with ll0, "rep 1" means rep[1] and a fourth candidate rep[0] - 1).
        let ll0 = ll0 as u32;
        for rep_code in ll0..REP_NUM as u32 + ll0 {
            let rep_offset = if rep_code == REP_NUM as u32 {
                rep[0].wrapping_sub(1)
            } else {
                rep[rep_code as usize]
            };
            let rep_index = curr.wrapping_sub(rep_offset);
            let mut rep_len = 0;
            // Wrapping on purpose: offsets 0 and "-1" are rejected.
            let in_prefix = rep_offset.wrapping_sub(1) < curr - dict_limit;
            let valid = if in_prefix {
                rep_index >= window_low
            } else if let Some(d) = dms {
                // A repcode into an attached dictionary: above its first index, not
                // straddling the prefix start (ZSTD_index_overlap_check).
                let dms_low = window_low - (d.content_len as u32);
                rep_offset.wrapping_sub(1) < curr - dms_low
                    && (dict_limit - 1).wrapping_sub(rep_index) >= 3
            } else {
                // A repcode into the dictionary (extDict only): within the window, and its
                // first 4 bytes not straddling the prefix start (ZSTD_index_overlap_check).
                ext_dict
                    && rep_offset.wrapping_sub(1) < curr - window_low
                    && (dict_limit - 1).wrapping_sub(rep_index) >= 3
            };
            if valid
                && read_min_match(src, ip, min_match)
                    == read_min_match(src, ip - rep_offset as usize, min_match)
            {
                // Across the segment boundary as ZSTD_count_2segments (see `Window`).
                let mm = min_match as usize;
                rep_len = src.count(ip + mm, ip + mm - rep_offset as usize, iend) + mm;
            }
            if rep_len > best_length {
                best_length = rep_len;
                matches.push(Match {
                    off: rep_code - ll0 + 1,
                    len: rep_len as u32,
                });
                if rep_len > sufficient_len || ip + rep_len == iend {
                    return;
                }
            }
        }

        if MLS == 3 && best_length < MLS as usize {
            let index3 = self.insert_and_find_hash3(ip);
            if index3 >= match_low && curr - index3 < HASH3_MAX_DISTANCE {
                let len = src.count(ip, self.pos(index3), iend);
                if len >= MLS as usize {
                    best_length = len;
                    matches.clear();
                    matches.push(Match {
                        off: curr - index3 + OFFSET_TO_OFFBASE,
                        len: len as u32,
                    });
                    if len > sufficient_len || ip + len == iend {
                        // Best possible: skip the tree insertion of `ip`.
                        *self.next_to_update = curr + 1;
                        return;
                    }
                }
            }
        }

        self.hash[h] = curr;
        // The walk keeps what it reads in locals: nothing it writes can move them.
        let base = self.base;
        let bt = Links::new(self.bt);
        let mut walk = TreeWalk::new(&bt, curr);
        // Every length the walk looks closer at is above `best_length`, which is below
        // the run's length (a repcode or hash-3 match to the block's end returned above):
        // the step's open length needs its clamp there only.
        let left = iend - ip;
        debug_assert!(best_length < left);
        while compares > 0 && match_index >= match_low {
            let m = (match_index - base) as usize;
            let (len, smaller_here) = src.tree_step_open(ip, iend, m, walk.common());
            if len > best_length {
                let len = len.min(left);
                if len > (match_end - match_index) as usize {
                    match_end = match_index + len as u32;
                }
                best_length = len;
                matches.push(Match {
                    off: curr - match_index + OFFSET_TO_OFFBASE,
                    len: len as u32,
                });
                if len > OPT_NUM || ip + len == iend {
                    // Drop the rest to keep the tree consistent (the dictionary's too).
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
        if let Some(d) = dms
            && compares > 0
        {
            // The attached dictionary's tree (dictMatchState), its indices shifted to the
            // frame's (`dmsIndexDelta`, nonzero after btultra2's first pass). A block with
            // an attached dictionary is read from a slice.
            let src = src.as_slice();
            let high_limit = WINDOW_START_INDEX + d.content_len as u32;
            let low_limit = WINDOW_START_INDEX;
            let delta = window_low - high_limit;
            let bt_mask = (1u32 << (d.chain_log - 1)) - 1;
            let dms_bt_low = if bt_mask < high_limit - low_limit {
                high_limit - bt_mask
            } else {
                low_limit
            };
            let (mut common_smaller, mut common_larger) = (0usize, 0usize);
            let mut dict_index = d.hash[hash_ptr::<MLS>(src, ip, d.hash_log)];
            while compares > 0 && dict_index > low_limit {
                let next = 2 * (dict_index & bt_mask) as usize;
                let m = (dict_index - WINDOW_START_INDEX) as usize;
                let mut len = common_smaller.min(common_larger);
                // Across the dictionary's end as ZSTD_count_2segments (see `Window`).
                len += count(src, ip + len, m + len, iend);
                if len > best_length {
                    let match_index = dict_index + delta;
                    if len > (match_end - match_index) as usize {
                        match_end = match_index + len as u32;
                    }
                    best_length = len;
                    matches.push(Match {
                        off: curr - match_index + OFFSET_TO_OFFBASE,
                        len: len as u32,
                    });
                    if len > OPT_NUM || ip + len == iend {
                        break;
                    }
                }
                if dict_index <= dms_bt_low {
                    break;
                }
                if src[m + len] < src[ip + len] {
                    common_smaller = len;
                    dict_index = d.bt[next + 1];
                } else {
                    common_larger = len;
                    dict_index = d.bt[next];
                }
                compares -= 1;
            }
        }
        // Skip repetitive patterns.
        *self.next_to_update = match_end - BT_SKIP_BASE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zstd::compress::params;
    use crate::zstd::compress::window::HASH_READ_SIZE;

    /// Random bytes with stretches copied from earlier, at short and long distances, so
    /// that positions without any candidate (the shortcut) and positions with repcodes,
    /// hash-3 and tree candidates (the full search) alternate.
    fn mixed(n: usize) -> Vec<u8> {
        let mut next = crate::zstd::test_rng(0x9E37_79B9_7F4A_7C15);
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            let r = next();
            if v.len() > 4096 && r.is_multiple_of(3) {
                let len = 3 + (r >> 8) as usize % 60;
                let dist = 1
                    + (r >> 20) as usize
                        % v.len().min(if r.is_multiple_of(2) { 16 } else { 30_000 });
                for _ in 0..len {
                    v.push(v[v.len() - dist]);
                }
            } else {
                v.extend((0..1 + r as usize % 300).map(|_| next() as u8));
            }
        }
        v.truncate(n);
        v
    }

    /// The candidates found at each position (`(offBase, length)`), then the hash table,
    /// the tree and the hash-3 table left, and `nextToUpdate`.
    type Searched = (Vec<Vec<(u32, u32)>>, Vec<u32>, Vec<u32>, Vec<u32>, u32);

    /// Every position searched, through `get_all_matches` or through the full search
    /// alone: the candidates found and the tables left.
    fn search_all<const MLS: u32>(src: &[u8], cp: &params::CParams, full: bool) -> Searched {
        let window = Window::new(cp.window_log);
        let mut hash = vec![0u32; 1 << cp.hash_log];
        // Links left by earlier frames (as tables kept across frames hold): a link the
        // search should clear and did not would then show.
        let mut bt: Vec<u32> = (0..1u32 << cp.chain_log)
            .map(|i| 2 + i * 7 % 1000)
            .collect();
        let hash_log3 = if MLS == 3 { 17 } else { 0 };
        let mut hash3 = vec![0u32; 1 << hash_log3];
        let mut next_to_update = WINDOW_START_INDEX;
        let mut found = Vec::new();
        {
            let mut tree = OptTree::<MLS>::new(
                &mut hash,
                &mut bt,
                &mut hash3,
                hash_log3,
                &mut next_to_update,
                &window,
                cp,
                src,
                src.len(),
            );
            let mut matches = Matches::default();
            matches.reserve();
            let reps = [[1, 4, 8], [7, 1, 300], [0, 2, 3]];
            for ip in 1..src.len() - HASH_READ_SIZE {
                let rep = &reps[ip % 3];
                let ll0 = ip % 5 == 0;
                let min_match = MLS.min(4);
                if full {
                    matches.clear();
                    if ip as u32 + tree.base >= *tree.next_to_update {
                        tree.update_tree(ip);
                        let h = hash_ptr::<MLS>(src, ip, tree.hash_log);
                        let at = Head {
                            ip,
                            h,
                            head: tree.hash[h],
                            window_low: tree.window.lowest_match_index(ip as u32 + tree.base),
                        };
                        tree.get_all_matches_found::<true>(&mut matches, at, rep, ll0, min_match);
                    }
                } else {
                    tree.get_all_matches(&mut matches, ip, rep, ll0, min_match);
                }
                found.push(matches.as_slice().iter().map(|m| (m.off, m.len)).collect());
            }
        }
        (found, hash, bt, hash3, next_to_update)
    }

    #[test]
    fn the_shortcut_for_positions_without_candidates_leaves_what_the_full_search_leaves() {
        let src = mixed(48 * 1024);
        let mut cp = params::cparams(19, src.len() as u64);
        // Small tables, so that nodes are reused.
        cp.chain_log = 11;
        cp.hash_log = 12;
        let with = search_all::<3>(&src, &cp, false);
        let without = search_all::<3>(&src, &cp, true);
        assert!(
            with.0.iter().filter(|m| m.is_empty()).count() > 10_000,
            "shortcut taken"
        );
        assert!(
            with.0.iter().filter(|m| !m.is_empty()).count() > 3_000,
            "matches found"
        );
        assert!(with == without, "minimum match 3");
        let with = search_all::<4>(&src, &cp, false);
        let without = search_all::<4>(&src, &cp, true);
        assert!(with == without, "minimum match 4");
    }
}
