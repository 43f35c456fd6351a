//! The optimal parser of `btopt`, `btultra` and `btultra2` (`zstd_opt.c`, no dictionary):
//! a forward pass prices every reachable position of a segment from the matches the
//! binary tree ([`tree`]) reports, then the cheapest path is written back as sequences.
//! Prices come from adaptive symbol statistics ([`stats`]).
//!
//! Positions are offsets into the frame's source; table entries are window indices. A
//! fresh frame maps position `p` to index `p + 2`; btultra2's statistics-seeding pass
//! shifts that mapping by the first block's size (see [`Window::forget_prefix`]).

mod stats;
pub(crate) mod tree;

use super::Block;
use super::source::{Source, with_source};
use crate::zstd::compress::ldm::RawSeq;
use crate::zstd::compress::params::{CParams, Strategy};
use crate::zstd::compress::seq_store::REP_NUM;
use crate::zstd::compress::window::{HASH_READ_SIZE, WINDOW_START_INDEX, Window};

pub(crate) use stats::DictSeed;
use stats::{BITCOST_MULTIPLIER, OptLevel, PREDEF_THRESHOLD, Stats};
pub(crate) use tree::OptDictTree;
use tree::{Match, Matches, OptTree};

/// Longest segment the forward pass prices before forcing a decision (`ZSTD_OPT_NUM`).
const OPT_NUM: usize = 1 << 12;
/// Entries of the price table (`ZSTD_OPT_SIZE`).
const OPT_SIZE: usize = OPT_NUM + 3;
/// Price of an unreachable position (`ZSTD_MAX_PRICE`).
const MAX_PRICE: i32 = 1 << 30;
/// Largest hash-3 table (`ZSTD_HASHLOG3_MAX`).
const HASH_LOG3_MAX: u32 = 17;
pub(crate) use crate::zstd::compress::seq_store::OFFSET_TO_OFFBASE;

/// One entry of the price table (`ZSTD_optimal_t`): during the forward pass a "stretch"
/// (a match followed by `litlen` literals) ending at this position; during the backward
/// pass a sequence.
#[derive(Clone, Copy, Debug, Default)]
struct Optimal {
    price: i32,
    off: u32,
    mlen: u32,
    litlen: u32,
    rep: [u32; REP_NUM],
}

/// State of the optimal parser kept across blocks and reused across frames (the `opt`,
/// `hashTable3`, chain-table and window parts of `ZSTD_MatchState_t`). The hash table is
/// the frame's.
#[derive(Default)]
pub(crate) struct OptState {
    /// Binary tree: two links per position, `bt[2 * (idx & btMask)]` and the slot after.
    pub(crate) bt: Vec<u32>,
    /// Last index seen per 3-byte hash (only with `minMatch == 3`).
    hash3: Vec<u32>,
    hash_log3: u32,
    /// First index not yet inserted into the tree (`nextToUpdate`).
    pub(crate) next_to_update: u32,
    stats: Stats,
    prices: Vec<Optimal>,
    matches: Matches,
    /// The first block's statistics from a formatted dictionary's tables, for this frame.
    pub(crate) dict_seed: Option<Box<DictSeed>>,
}

impl OptState {
    /// Mirrors the optimal-parser part of ZSTD_reset_matchState for a fresh context:
    /// cleared tables, statistics marked as never collected (`litLengthSum = 0`).
    pub(crate) fn reset(&mut self, cp: &CParams) {
        self.bt.clear();
        self.bt.resize(1 << cp.chain_log, 0);
        self.hash_log3 = if cp.min_match == 3 {
            HASH_LOG3_MAX.min(cp.window_log)
        } else {
            0
        };
        self.hash3.clear();
        if self.hash_log3 > 0 {
            self.hash3.resize(1 << self.hash_log3, 0);
        }
        self.next_to_update = WINDOW_START_INDEX;
        self.stats.reset();
        self.dict_seed = None;
        self.prices.clear();
        self.prices.resize(OPT_SIZE, Optimal::default());
    }

    /// Room for the tree, the hash-3 table and the prices of a frame with `cp` (see
    /// [`super::MatchState::try_room`]); the error is the bytes that could not be had.
    pub(crate) fn try_room(&mut self, cp: &CParams) -> Result<(), usize> {
        fn room<T>(v: &mut Vec<T>, len: usize) -> Result<(), usize> {
            super::table::try_room(v, len).map_err(|_| len.saturating_mul(size_of::<T>()))
        }
        room(&mut self.bt, 1 << cp.chain_log)?;
        if cp.min_match == 3 {
            room(&mut self.hash3, 1 << HASH_LOG3_MAX.min(cp.window_log))?;
        }
        room(&mut self.prices, OPT_SIZE)
    }

    /// Mirrors the optimal-parser part of ZSTD_reduceIndex and ZSTD_overflowCorrectIfNeeded:
    /// the tree and the hash-3 table lose `correction` from every index, and so does
    /// `nextToUpdate` (to 0 if it was below).
    pub(crate) fn reduce_index(&mut self, correction: u32) {
        super::table::reduce_table(&mut self.bt, correction, false);
        super::table::reduce_table(&mut self.hash3, correction, false);
        self.next_to_update = self.next_to_update.saturating_sub(correction);
    }

    /// Mirrors, before the block at `block_start`, the clamp of `nextToUpdate` to the
    /// window's low limit in ZSTD_compress_frameChunk, then the limited catch-up of
    /// ZSTD_buildSeqStore.
    pub(crate) fn limit_catch_up(&mut self, block_start: usize, window: &Window) {
        self.next_to_update = self.next_to_update.max(window.low_limit());
        let curr = window.index(block_start);
        self.next_to_update =
            super::limited_catch_up(curr as usize, self.next_to_update as usize) as u32;
    }
}

/// Sort the positions of `src[start..end - 8]` into the binary tree `bt` (btlazy2's or the
/// optimal parser's chain table), hashed over `minMatch` bytes: how
/// ZSTD_loadDictionaryContent loads a raw-content dictionary for the tree strategies
/// (ZSTD_updateTree, no dictionary mode: the dictionary is the window then). `window` is
/// the frame's, with the dictionary loaded.
pub(crate) fn fill_tree(
    hash: &mut [u32],
    bt: &mut [u32],
    cp: &CParams,
    window: &Window,
    src: &[u8],
    start: usize,
    end: usize,
) {
    let mut next = window.index(start);
    let last = end - HASH_READ_SIZE;
    let mut no_hash3: [u32; 0] = [];
    macro_rules! fill {
        ($mls:literal) => {
            OptTree::<$mls>::new(
                hash,
                bt,
                &mut no_hash3,
                0,
                &mut next,
                window,
                cp,
                &src[..end],
                end,
            )
            .update_tree(last)
        };
    }
    match cp.min_match {
        5 => fill!(5),
        6 => fill!(6),
        7 => fill!(7),
        8.. => fill!(8),
        _ => fill!(4),
    }
}

/// Mirrors ZSTD_compressBlock_btopt, ZSTD_compressBlock_btultra and
/// ZSTD_compressBlock_btultra2 (with ZSTD_initStats_ultra): parses
/// `src[block_start..block_end]` into `seqs`, trailing literals included.
/// `hash` is the frame's hash table (`1 << hashLog` entries). Returns the number of
/// trailing literals.
pub(crate) fn compress_block(
    hash: &mut [u32],
    state: &mut OptState,
    b: Block<'_>,
    window: &mut Window,
    dms: Option<OptDictTree<'_>>,
    ldm_seqs: &[RawSeq],
) -> usize {
    let Block {
        src,
        padded,
        start: block_start,
        end: block_end,
        cp,
        seqs,
        rep,
    } = b;
    let level = if cp.strategy == Strategy::BtOpt {
        OptLevel::Opt0
    } else {
        OptLevel::Opt2
    };
    let block_size = block_end - block_start;
    // ZSTD_initStats_ultra's conditions: the first block, no dictionary segment, and the
    // frame's first position (the index right after a short dictionary's content counts).
    // With a dictionary (extDict or attached) btultra2 is btultra's block compressor, which
    // has no first pass.
    if cp.strategy == Strategy::BtUltra2
        && !window.has_ext_dict()
        && dms.is_none()
        && state.stats.first_block()
        && seqs.sequences.is_empty()
        && window.index(block_start) == window.dict_limit()
        && block_size > PREDEF_THRESHOLD
    {
        // ZSTD_initStats_ultra: a throw-away pass only to seed the statistics, then the
        // window forgets it (its table entries fall below the new lowest index).
        let mut scratch_rep = *rep;
        let scratch = Block {
            src,
            padded,
            start: block_start,
            end: block_end,
            cp,
            seqs: &mut *seqs,
            rep: &mut scratch_rep,
        };
        run(hash, state, scratch, window, level, None, ldm_seqs);
        seqs.reset(block_size);
        window.forget_prefix(block_size as u32);
        state.next_to_update = window.low_limit();
    }
    let b = Block {
        src,
        padded,
        start: block_start,
        end: block_end,
        cp,
        seqs,
        rep,
    };
    run(hash, state, b, window, level, dms, ldm_seqs)
}

/// Picks the tree's `mls` (minMatch clamped to 3..=6, `ZSTD_selectBtGetAllMatches`).
fn run(
    hash: &mut [u32],
    state: &mut OptState,
    b: Block<'_>,
    window: &Window,
    level: OptLevel,
    dms: Option<OptDictTree<'_>>,
    ldm_seqs: &[RawSeq],
) -> usize {
    // A block with an attached dictionary is read from a slice (the dictionary's tree
    // walk reads across both).
    let b = if dms.is_some() {
        Block { padded: None, ..b }
    } else {
        b
    };
    with_source!(b, src => match b.cp.min_match.clamp(3, 6) {
        3 => opt_generic::<3, _>(hash, state, src, b, window, level, dms, ldm_seqs),
        4 => opt_generic::<4, _>(hash, state, src, b, window, level, dms, ldm_seqs),
        5 => opt_generic::<5, _>(hash, state, src, b, window, level, dms, ldm_seqs),
        _ => opt_generic::<6, _>(hash, state, src, b, window, level, dms, ldm_seqs),
    })
}

/// The long-distance finder's matches of a block as candidates of the optimal parser:
/// the one ahead or under the parse, its span in block positions (`u32::MAX` when none is
/// left), and how far the parse has moved into the sequence store.
///
/// Mirrors ZSTD_optLdm_t with its own copy of the store (`pos`, `posInSequence`).
struct OptLdm<'a> {
    seqs: &'a [RawSeq],
    pos: usize,
    pos_in_seq: u32,
    start: u32,
    end: u32,
    offset: u32,
}

impl<'a> OptLdm<'a> {
    /// The store's first match for a block of `block_size` bytes.
    fn new(seqs: &'a [RawSeq], block_size: u32) -> Self {
        let mut l = OptLdm {
            seqs,
            pos: 0,
            pos_in_seq: 0,
            start: 0,
            end: 0,
            offset: 0,
        };
        l.next_match(0, block_size);
        l
    }

    /// Mirrors ZSTD_optLdm_skipRawSeqStoreBytes.
    fn skip(&mut self, n: u32) {
        let mut curr = self.pos_in_seq + n;
        while curr > 0 && self.pos < self.seqs.len() {
            let s = self.seqs[self.pos];
            if curr >= s.lit_len + s.match_len {
                curr -= s.lit_len + s.match_len;
                self.pos += 1;
            } else {
                self.pos_in_seq = curr;
                break;
            }
        }
        if curr == 0 || self.pos == self.seqs.len() {
            self.pos_in_seq = 0;
        }
    }

    /// The span of the next match from block position `curr`, with `remaining` bytes of
    /// the block left, and the store moved past it.
    ///
    /// Mirrors ZSTD_opt_getNextMatchAndUpdateSeqStore.
    fn next_match(&mut self, curr: u32, remaining: u32) {
        let Some(&s) = self.seqs.get(self.pos) else {
            (self.start, self.end) = (u32::MAX, u32::MAX);
            return;
        };
        let block_end = curr + remaining;
        let lits_left = s.lit_len.saturating_sub(self.pos_in_seq);
        let match_left = if lits_left == 0 {
            s.match_len - (self.pos_in_seq - s.lit_len)
        } else {
            s.match_len
        };
        if lits_left >= remaining {
            (self.start, self.end) = (u32::MAX, u32::MAX);
            self.skip(remaining);
            return;
        }
        // Matches may come out shorter than minMatch here; they are not offered.
        self.start = curr + lits_left;
        self.end = self.start + match_left;
        self.offset = s.offset;
        if self.end > block_end {
            self.end = block_end;
            self.skip(block_end - curr);
        } else {
            self.skip(lits_left + match_left);
        }
    }

    /// Offer the match under block position `curr` when it is long enough from there and
    /// longer than the longest found (the candidates stay sorted by length).
    ///
    /// Mirrors ZSTD_optLdm_maybeAddMatch.
    fn maybe_add(&self, matches: &mut Matches, curr: u32, min_match: u32) {
        if curr < self.start || curr >= self.end {
            return;
        }
        let len = self.end - curr;
        if len < min_match {
            return;
        }
        let longer = matches
            .last()
            .is_none_or(|m| len > m.len && matches.len() < OPT_NUM);
        if longer {
            matches.push(Match {
                off: self.offset + OFFSET_TO_OFFBASE,
                len,
            });
        }
    }

    /// Mirrors ZSTD_optLdm_processMatchCandidate at block position `curr` with
    /// `remaining` bytes of the block left. Without long-distance matches (every
    /// strategy's default) this is one inline test at each searched position.
    #[inline(always)]
    fn process_candidate(
        &mut self,
        matches: &mut Matches,
        curr: u32,
        remaining: u32,
        min_match: u32,
    ) {
        if self.pos < self.seqs.len() {
            self.process_candidate_at(matches, curr, remaining, min_match);
        }
    }

    /// [`OptLdm::process_candidate`] while long-distance matches are left.
    fn process_candidate_at(
        &mut self,
        matches: &mut Matches,
        curr: u32,
        remaining: u32,
        min_match: u32,
    ) {
        if curr >= self.end {
            if curr > self.end {
                // The parse went past the match's end: move the store as far.
                self.skip(curr - self.end);
            }
            self.next_match(curr, remaining);
        }
        self.maybe_add(matches, curr, min_match);
    }
}

/// Mirrors ZSTD_updateRep / ZSTD_newRep: the repeat offsets after a match of `off_base`
/// whose literal length is zero iff `ll0`.
#[inline]
pub(crate) fn new_rep(rep: [u32; REP_NUM], off_base: u32, ll0: bool) -> [u32; REP_NUM] {
    if off_base > OFFSET_TO_OFFBASE {
        return [off_base - OFFSET_TO_OFFBASE, rep[0], rep[1]];
    }
    let rep_code = off_base - 1 + ll0 as u32;
    if rep_code == 0 {
        return rep;
    }
    let current = if rep_code == REP_NUM as u32 {
        rep[0].wrapping_sub(1)
    } else {
        rep[rep_code as usize]
    };
    let third = if rep_code >= 2 { rep[1] } else { rep[2] };
    [current, rep[0], third]
}

/// Mirrors ZSTD_compressBlock_opt_generic (noDict) at optLevel 0 (btopt) or 2 (btultra,
/// btultra2), with the tree's `MLS`; the tree reads the block's input from `source` (the
/// block's `src` cut at its end).
#[allow(clippy::too_many_arguments)]
fn opt_generic<'a, const MLS: u32, S: Source<'a>>(
    hash: &mut [u32],
    state: &mut OptState,
    source: S,
    b: Block<'_>,
    window: &Window,
    level: OptLevel,
    dms: Option<OptDictTree<'_>>,
    ldm_seqs: &[RawSeq],
) -> usize {
    let Block {
        src,
        padded: _,
        start: block_start,
        end: block_end,
        cp,
        seqs,
        rep,
    } = b;
    let iend = block_end;
    // `ilimit = iend - 8`; a block too short for it is never searched.
    let ilimit = iend.saturating_sub(HASH_READ_SIZE);
    let sufficient_len = cp.target_length.min(OPT_NUM as u32 - 1);
    let min_match: u32 = if cp.min_match == 3 { 3 } else { 4 };

    let OptState {
        bt,
        hash3,
        hash_log3,
        next_to_update,
        stats,
        prices: opt,
        matches,
        dict_seed,
    } = state;
    // A slice: its address and length stay in registers across the stores into it.
    let opt: &mut [Optimal] = opt;
    let mut tree = OptTree::<MLS, S>::new(
        hash,
        bt,
        hash3,
        *hash_log3,
        next_to_update,
        window,
        cp,
        source,
        iend,
    );
    tree.dms = dms;
    matches.reserve();
    stats.rescale(&src[block_start..block_end], level, dict_seed.as_deref());

    let mut ip = block_start;
    let mut anchor = block_start;
    let mut ldm = OptLdm::new(ldm_seqs, (iend - ip) as u32);
    // The very first position of the frame (or of btultra2's second pass) is never searched.
    ip += (ip == window.pos_of(window.dict_limit())) as usize;
    let mut last_stretch = Optimal::default();

    while ip < ilimit {
        let mut cur: usize;
        let mut last_pos: usize;

        // First match at `ip`.
        let litlen = (ip - anchor) as u32;
        tree.get_all_matches(matches, ip, rep, litlen == 0, min_match);
        let at = (ip - block_start) as u32;
        ldm.process_candidate(matches, at, (iend - ip) as u32, min_match);
        if matches.is_empty() {
            ip += 1;
            continue;
        }
        // opt[0] holds only the literal length's price: the literals before the first
        // match are the same for every path.
        opt[0].mlen = 0;
        opt[0].litlen = litlen;
        opt[0].price = stats.ll_price(litlen);
        opt[0].rep = *rep;

        let longest = matches.as_slice()[matches.len() - 1];
        'parse: {
            if longest.len > sufficient_len {
                // A long enough match is taken at once.
                last_stretch.litlen = 0;
                last_stretch.mlen = longest.len;
                last_stretch.off = longest.off;
                cur = 0;
                last_pos = longest.len as usize;
                break 'parse;
            }
            let mut pos = 1;
            while pos < min_match as usize {
                opt[pos].price = MAX_PRICE;
                opt[pos].mlen = 0;
                opt[pos].litlen = litlen + pos as u32;
                pos += 1;
            }
            let ll0_price = stats.ll_price(0);
            for m in matches.as_slice() {
                let off_price = stats.off_price(m.off);
                while pos <= m.len as usize {
                    let match_price = off_price.wrapping_add(stats.ml_price(pos as u32)) as i32;
                    let sequence_price = opt[0].price + match_price;
                    opt[pos].mlen = pos as u32;
                    opt[pos].off = m.off;
                    opt[pos].litlen = 0;
                    opt[pos].price = sequence_price + ll0_price;
                    pos += 1;
                }
            }
            last_pos = pos - 1;
            opt[pos].price = MAX_PRICE;

            // Forward pass over the later positions.
            cur = 1;
            while cur <= last_pos {
                let inr = ip + cur;
                // Reach `cur` with one more literal if that is not dearer.
                let litlen = opt[cur - 1].litlen + 1;
                let price =
                    opt[cur - 1].price + stats.lit_price(src[inr - 1]) + stats.ll_inc_price(litlen);
                if price <= opt[cur].price {
                    let prev_match = opt[cur];
                    opt[cur] = opt[cur - 1];
                    opt[cur].litlen = litlen;
                    opt[cur].price = price;
                    if level.checks_one_literal()
                        && prev_match.litlen == 0
                        && stats.ll_inc_price(1) < 0
                        && inr < iend
                    {
                        // Maybe the replaced match followed by one literal wins at cur + 1.
                        let next_lit = stats.lit_price(src[inr]);
                        let with_1_literal = prev_match.price + next_lit + stats.ll_inc_price(1);
                        let with_more_literals = price + next_lit + stats.ll_inc_price(litlen + 1);
                        if with_1_literal < with_more_literals
                            && with_1_literal < opt[cur + 1].price
                        {
                            let prev = cur - prev_match.mlen as usize;
                            let reps =
                                new_rep(opt[prev].rep, prev_match.off, opt[prev].litlen == 0);
                            opt[cur + 1] = prev_match;
                            opt[cur + 1].rep = reps;
                            opt[cur + 1].litlen = 1;
                            opt[cur + 1].price = with_1_literal;
                            last_pos = last_pos.max(cur + 1);
                        }
                    }
                }
                // A match ending here is now confirmed: update the offset history.
                if opt[cur].litlen == 0 {
                    let prev = cur - opt[cur].mlen as usize;
                    opt[cur].rep = new_rep(opt[prev].rep, opt[cur].off, opt[prev].litlen == 0);
                }
                // The last match must start at least 8 bytes before the block end.
                if inr > ilimit {
                    cur += 1;
                    continue;
                }
                if cur == last_pos {
                    break;
                }
                if level == OptLevel::Opt0
                    && opt[cur + 1].price <= opt[cur].price + (BITCOST_MULTIPLIER / 2) as i32
                {
                    // btopt skips unpromising positions.
                    cur += 1;
                    continue;
                }
                let base_price = opt[cur].price + stats.ll_price(0);
                let cur_rep = opt[cur].rep;
                tree.get_all_matches(matches, inr, &cur_rep, opt[cur].litlen == 0, min_match);
                let at = (inr - block_start) as u32;
                ldm.process_candidate(matches, at, (iend - inr) as u32, min_match);
                let Some(&longest) = matches.last() else {
                    cur += 1;
                    continue;
                };
                if longest.len > sufficient_len
                    || cur + longest.len as usize >= OPT_NUM
                    || inr + longest.len as usize >= iend
                {
                    last_stretch.mlen = longest.len;
                    last_stretch.off = longest.off;
                    last_stretch.litlen = 0;
                    last_pos = cur + longest.len as usize;
                    break 'parse;
                }
                let mut start_ml = min_match;
                let ml_prices = stats.ml_prices();
                for m in matches.as_slice() {
                    let (lo, hi) = (start_ml as usize, m.len as usize);
                    start_ml = m.len + 1;
                    if lo > hi {
                        continue;
                    }
                    // Positions past the last one priced are unreachable until this match
                    // reaches them (what libzstd writes there when its longest length
                    // gets past `last_pos`): so every length below compares prices.
                    if cur + hi > last_pos {
                        for o in &mut opt[last_pos + 1..=cur + hi] {
                            o.price = MAX_PRICE;
                            // Any non-zero litlen: "not the end of a match".
                            o.litlen = 1;
                        }
                        last_pos = cur + hi;
                    }
                    let off_price = stats.off_price(m.off);
                    let slots = &mut opt[cur + lo..=cur + hi];
                    // Scan each match's lengths downward: the slots and the lengths' costs
                    // side by side, without an index to check.
                    let offer = |slot: &mut Optimal, mlen: usize, ml_price: u32| {
                        let price = base_price + off_price.wrapping_add(ml_price) as i32;
                        debug_assert!(price < MAX_PRICE);
                        if price < slot.price {
                            slot.mlen = mlen as u32;
                            slot.off = m.off;
                            slot.litlen = 0;
                            slot.price = price;
                            true
                        } else {
                            // btopt's early abort.
                            level != OptLevel::Opt0
                        }
                    };
                    match ml_prices.costs(lo, hi) {
                        Some(costs) => {
                            let base = ml_prices.base();
                            for (k, (slot, &c)) in slots.iter_mut().zip(costs).enumerate().rev() {
                                if !offer(slot, lo + k, c.wrapping_add(base)) {
                                    break;
                                }
                            }
                        }
                        None => {
                            for (k, slot) in slots.iter_mut().enumerate().rev() {
                                if !offer(slot, lo + k, ml_prices.price((lo + k) as u32)) {
                                    break;
                                }
                            }
                        }
                    }
                }
                opt[last_pos + 1].price = MAX_PRICE;
                cur += 1;
            }
            last_stretch = opt[last_pos];
            cur = last_pos - last_stretch.mlen as usize;
        }

        // Shortest path: `cur`, `last_pos` and `last_stretch` are set.
        if last_stretch.mlen == 0 {
            // Every match was turned into literals.
            ip += last_pos;
            continue;
        }
        if last_stretch.litlen == 0 {
            *rep = new_rep(opt[cur].rep, last_stretch.off, opt[cur].litlen == 0);
        } else {
            *rep = last_stretch.rep;
            cur -= last_stretch.litlen as usize;
        }
        // Rewrite the stretches as sequences, backwards from `store_end`.
        let store_end = cur + 2;
        if last_stretch.litlen > 0 {
            opt[store_end].litlen = last_stretch.litlen;
            opt[store_end].mlen = 0;
            opt[store_end - 1] = last_stretch;
        }
        // Deliberately not an `else` (libzstd 1.5.7 lacks it): this always runs, so the
        // trailing literals of the last stretch are parsed again by the next round.
        opt[store_end] = last_stretch;
        let mut store_start = store_end;
        let mut stretch_pos = cur;
        loop {
            let next = opt[stretch_pos];
            opt[store_start].litlen = next.litlen;
            if next.mlen == 0 {
                break;
            }
            store_start -= 1;
            opt[store_start] = next;
            stretch_pos -= (next.litlen + next.mlen) as usize;
        }
        for seq in &opt[store_start..=store_end] {
            let llen = seq.litlen as usize;
            let mlen = seq.mlen as usize;
            if mlen == 0 {
                // Only literals: they start the next round.
                ip = anchor + llen;
                continue;
            }
            stats.update(&src[anchor..anchor + llen], seq.off, seq.mlen);
            seqs.store(src, anchor, anchor + llen, seq.off, mlen);
            anchor += llen + mlen;
            ip = anchor;
        }
        stats.set_base_prices();
    }
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}
