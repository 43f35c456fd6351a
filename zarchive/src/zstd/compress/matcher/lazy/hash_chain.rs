//! The hash-chain match finder (`ZSTD_HcFindBestMatch`, `ZSTD_insertAndFindFirstIndex`),
//! used by greedy, lazy and lazy2 when the window is 16 KiB or smaller.

use super::{DictDds, LazyState, MIN_MATCH, NO_MATCH_OFF_BASE, SearchMax};
use crate::zstd::compress::matcher::hash_ptr;
use crate::zstd::compress::matcher::source::Source;
use crate::zstd::compress::params::CParams;
use crate::zstd::compress::window::{
    BlockLimits, HASH_READ_SIZE, WINDOW_START_INDEX, Window, index_of,
};

use crate::zstd::compress::seq_store::OFFSET_TO_OFFBASE;

/// An attached CDict's hash chains, searched after the frame's own (the dictionary's
/// positions keep their indices: its content lies directly before the source).
#[derive(Clone, Copy)]
pub(crate) struct DictChains<'t> {
    pub(crate) hash: &'t [u32],
    pub(crate) chain: &'t [u32],
    pub(crate) hash_log: u32,
    pub(crate) chain_log: u32,
    /// Bytes of the dictionary's content.
    pub(crate) content_len: usize,
}

/// A hash table of chain heads plus a chain of earlier positions with the same hash.
pub(crate) struct HashChain<'t, const MLS: u32> {
    hash: &'t mut [u32],
    chain: &'t mut [u32],
    next_to_update: &'t mut usize,
    hash_log: u32,
    /// The chain table's entries minus one (a power of two minus one).
    chain_mask: u32,
    attempts: u32,
    limits: BlockLimits,
    dms: Option<DictChains<'t>>,
    dds: Option<DictDds<'t>>,
}

impl<'t, const MLS: u32> HashChain<'t, MLS> {
    pub(crate) fn new(
        hash: &'t mut [u32],
        state: &'t mut LazyState,
        cp: &CParams,
        window: &Window,
        block_end: usize,
    ) -> Self {
        HashChain {
            hash: &mut hash[..1 << cp.hash_log],
            chain: &mut state.chain.as_mut_slice()[..1 << cp.chain_log],
            next_to_update: &mut state.next_to_update,
            hash_log: cp.hash_log,
            chain_mask: (1 << cp.chain_log) - 1,
            attempts: 1 << cp.search_log,
            limits: window.block_limits(block_end),
            dms: None,
            dds: None,
        }
    }

    /// The finder with an attached dictionary's chains searched after its own.
    pub(crate) fn with_dict(mut self, dms: DictChains<'t>) -> Self {
        self.dms = Some(dms);
        self
    }

    /// The finder with an attached dedicated-search dictionary searched after its own.
    pub(crate) fn with_dds(mut self, dds: DictDds<'t>) -> Self {
        self.dds = Some(dds);
        self
    }

    /// Mirrors ZSTD_insertAndFindFirstIndex_internal: links positions up to `ip`
    /// (excluded) into their chains, only one in lazy-skipping mode, and returns the
    /// chain head for `ip`.
    #[inline(always)]
    fn insert_and_find_first_index<'a, S: Source<'a>>(
        &mut self,
        src: S,
        ip: usize,
        lazy_skipping: bool,
    ) -> u32 {
        // Both tables hold a power of two entries: a hash masked with the hash table's
        // length (a no-op on a hash of `hash_log` bits) and an index masked into the chain
        // table cut to `chain_mask + 1` entries need no bounds check.
        let hash_mask = self.hash.len().wrapping_sub(1);
        let chain_mask = self.chain_mask;
        let chain = &mut self.chain[..chain_mask as usize + 1];
        let mut p = *self.next_to_update;
        while p < ip {
            let h = src.hash::<MLS>(p, self.hash_log) & hash_mask;
            let idx = index_of(p);
            chain[(idx & chain_mask) as usize] = self.hash[h];
            self.hash[h] = idx;
            p += 1;
            if lazy_skipping {
                break;
            }
        }
        *self.next_to_update = ip;
        self.hash[src.hash::<MLS>(ip, self.hash_log) & hash_mask]
    }
}

/// Mirrors ZSTD_insertAndFindFirstIndex as ZSTD_loadDictionaryContent calls it: every
/// position of `src[start..end - 8]` goes into the hash chains, hashed over `minMatch`
/// bytes (unclamped, unlike the search).
pub(crate) fn fill_dict(
    hash: &mut [u32],
    state: &mut LazyState,
    cp: &CParams,
    src: &[u8],
    start: usize,
    end: usize,
) {
    match cp.min_match {
        5 => fill_dict_generic::<5>(hash, state, cp, src, start, end),
        6 => fill_dict_generic::<6>(hash, state, cp, src, start, end),
        7 => fill_dict_generic::<7>(hash, state, cp, src, start, end),
        8.. => fill_dict_generic::<8>(hash, state, cp, src, start, end),
        _ => fill_dict_generic::<4>(hash, state, cp, src, start, end),
    }
}

fn fill_dict_generic<const MLS: u32>(
    hash: &mut [u32],
    state: &mut LazyState,
    cp: &CParams,
    src: &[u8],
    start: usize,
    end: usize,
) {
    let hash = &mut hash[..1 << cp.hash_log];
    let chain = &mut state.chain.as_mut_slice()[..1 << cp.chain_log];
    let chain_mask = (1u32 << cp.chain_log) - 1;
    for p in start..end.saturating_sub(HASH_READ_SIZE) {
        let h = hash_ptr::<MLS>(src, p, cp.hash_log);
        let idx = index_of(p);
        chain[(idx & chain_mask) as usize] = hash[h];
        hash[h] = idx;
    }
}

impl<const MLS: u32> SearchMax for HashChain<'_, MLS> {
    const MARGIN: usize = HASH_READ_SIZE;

    fn start_block<'a, S: Source<'a>>(&mut self, _src: S, _ilimit: Option<usize>) {}

    /// Mirrors ZSTD_HcFindBestMatch (noDict, extDict, dictMatchState, dedicatedDictSearch).
    #[inline(always)]
    fn search<'a, S: Source<'a>>(
        &mut self,
        src: S,
        ip: usize,
        iend: usize,
        lazy_skipping: bool,
    ) -> (usize, u32) {
        let curr = index_of(ip);
        // Deliberately `curr > chainSize ? curr - chainSize : 0`.
        let min_chain = curr.saturating_sub(self.chain_mask + 1);
        let mut attempts = self.attempts;
        let mut ml = MIN_MATCH - 1;
        let mut off_base = NO_MATCH_OFF_BASE;
        let mut match_index = self.insert_and_find_first_index(src, ip, lazy_skipping);
        let low_limit = self.limits.lowest_match_index(curr);
        let chain_mask = self.chain_mask;
        let chain = &self.chain[..chain_mask as usize + 1];
        // The 4 bytes of `ip` ending at `ml`; only a candidate that agrees on them can be longer.
        let mut ip_word = src.read32(ip + ml - 3);
        while match_index >= low_limit && attempts > 0 {
            let m = (match_index - WINDOW_START_INDEX) as usize;
            // Both terms fit in 32 bits, so the sum needs no overflow check.
            if src.read32(m + (ml as u32 - 3) as usize) == ip_word {
                let len = src.count(ip, m, iend);
                if len > ml {
                    ml = len;
                    off_base = curr - match_index + OFFSET_TO_OFFBASE;
                    if ip + len == iend {
                        break; // best possible
                    }
                    ip_word = src.read32(ip + ml - 3);
                }
            }
            if match_index <= min_chain {
                break;
            }
            match_index = chain[(match_index & chain_mask) as usize];
            attempts -= 1;
        }
        if let Some(dds) = self.dds {
            // The attempts left go to the dictionary's buckets (dedicatedDictSearch).
            (ml, off_base) = dds.search::<MLS, S>(src, ip, iend, curr, attempts, (ml, off_base));
        } else if let Some(dms) = self.dms {
            // The attempts left go to the dictionary's chains (dictMatchState).
            let chain_size = 1u32 << dms.chain_log;
            let dms_end = WINDOW_START_INDEX + dms.content_len as u32;
            let min_chain = dms_end.saturating_sub(chain_size);
            let mut match_index = dms.hash[src.hash::<MLS>(ip, dms.hash_log)];
            let ip4 = src.read32(ip);
            while match_index >= WINDOW_START_INDEX && attempts > 0 {
                let m = (match_index - WINDOW_START_INDEX) as usize;
                if src.read32(m) == ip4 {
                    // Across the dictionary's end as ZSTD_count_2segments (see `Window`).
                    let len = src.count(ip + 4, m + 4, iend) + 4;
                    if len > ml {
                        ml = len;
                        off_base = curr - match_index + OFFSET_TO_OFFBASE;
                        if ip + len == iend {
                            break;
                        }
                    }
                }
                if match_index <= min_chain {
                    break;
                }
                // An index past the chain table (none is) ends the search like index 0.
                match_index = dms
                    .chain
                    .get((match_index & (chain_size - 1)) as usize)
                    .copied()
                    .unwrap_or(0);
                attempts -= 1;
            }
        }
        (ml, off_base)
    }

    fn end_skipping<'a, S: Source<'a>>(&mut self, _src: S, _ilimit: Option<usize>) {}
}
