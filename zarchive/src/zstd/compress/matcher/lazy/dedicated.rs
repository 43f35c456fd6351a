//! The dedicated dictionary search (`ZSTD_c_enableDedicatedDictSearch`, on in the `zstd`
//! tool): a CDict for greedy, lazy and lazy2 laid out for being searched only, never
//! inserted into.
//!
//! Its hash table has four times the entries of an ordinary one (`hashLog + 2`), grouped
//! in buckets of four per hash: three cache slots holding the three newest positions
//! with that hash, newest first (0: empty), and a packed pointer `start << 8 | count`
//! to `count` older positions stored one after another in the chain table. A search
//! reads the cache, then that run of the chain: no pointer chasing.

use super::super::hash_ptr;
use super::super::source::Source;
use crate::zstd::compress::params::{CParams, DDS_BUCKET_LOG};
use crate::zstd::compress::seq_store::OFFSET_TO_OFFBASE;
use crate::zstd::compress::window::{HASH_READ_SIZE, WINDOW_START_INDEX, index_of};
use crate::zstd::error::ZstdError;

/// A bucket holds `1 << BUCKET_LOG` entries (`ZSTD_LAZY_DDSS_BUCKET_LOG`).
const BUCKET_LOG: u32 = DDS_BUCKET_LOG;
const BUCKET_SIZE: usize = 1 << BUCKET_LOG;
/// The cache slots of a bucket; the last entry is the chain pointer.
const CACHE_SIZE: usize = BUCKET_SIZE - 1;
/// A bucket's chain holds at most this many positions (its count is 8 bits).
const CHAIN_LIMIT_MAX: u32 = 255;

/// The tables of a dedicated-search CDict.
pub(crate) struct DdsTables {
    /// `1 << hashLog` entries: buckets of [`BUCKET_SIZE`].
    buckets: Vec<u32>,
    /// The buckets' chains, one run after another (at most `1 << chainLog` entries).
    chain: Vec<u32>,
    /// `hashLog - BUCKET_LOG`: the width of the hash that picks a bucket.
    bucket_log: u32,
}

impl DdsTables {
    /// The tables of the dictionary content `content` for the CDict parameters `cp` (hash
    /// log already raised by [`BUCKET_LOG`]), its suffix from `start` indexed; positions
    /// keep the indices of a CDict's window (content byte `p` is index `p + 2`).
    ///
    /// Mirrors ZSTD_dedicatedDictSearch_lazy_loadDictionary, as ZSTD_loadDictionaryContent
    /// calls it: every position of `content[start..len - 8]` is hashed over `minMatch`
    /// bytes (unclamped) into a chain table built in scratch space; each hash's chain is
    /// then walked: its first three positions go to the bucket's cache, the next ones (at
    /// most `2^searchLog - 3`, 255 and the chain table's size, reaching back at most three
    /// positions past the chain table's span) to a run of the chain table.
    ///
    /// Fails with [`ZstdError::OutOfMemory`] when the tables cannot be allocated.
    pub(crate) fn build(
        content: &[u8],
        start: usize,
        cp: &CParams,
    ) -> Result<DdsTables, ZstdError> {
        match cp.min_match {
            5 => build_generic::<5>(content, start, cp),
            6 => build_generic::<6>(content, start, cp),
            7 => build_generic::<7>(content, start, cp),
            8.. => build_generic::<8>(content, start, cp),
            _ => build_generic::<4>(content, start, cp),
        }
    }

    /// The tables as the finders read them when the CDict is attached.
    pub(crate) fn attached(&self) -> DictDds<'_> {
        DictDds {
            buckets: &self.buckets,
            chain: &self.chain,
            bucket_log: self.bucket_log,
        }
    }
}

fn build_generic<const MLS: u32>(
    content: &[u8],
    start: usize,
    cp: &CParams,
) -> Result<DdsTables, ZstdError> {
    let bucket_log = cp.hash_log - BUCKET_LOG;
    let nb_buckets = 1usize << bucket_log;
    let chain_size = 1u32 << cp.chain_log;
    let out_of_memory = |entries: usize| ZstdError::OutOfMemory {
        what: "dictionary tables",
        bytes: entries * 4,
    };
    let mut tables = DdsTables {
        buckets: Vec::new(),
        chain: Vec::new(),
        bucket_log,
    };
    let entries = nb_buckets << BUCKET_LOG;
    tables
        .buckets
        .try_reserve_exact(entries)
        .map_err(|_| out_of_memory(entries))?;
    tables.buckets.resize(entries, 0);
    let Some(end) = content
        .len()
        .checked_sub(HASH_READ_SIZE)
        .filter(|&e| e > start)
    else {
        return Ok(tables);
    };
    // The runs never take more than the chain table's size (libzstd's assumption).
    tables
        .chain
        .try_reserve_exact(chain_size as usize)
        .map_err(|_| out_of_memory(chain_size as usize))?;
    let first = index_of(start);
    let target = index_of(end);
    // Positions older than this lie past the chain table's span.
    let min_chain = if chain_size < target - first {
        target - chain_size
    } else {
        first
    };
    // Deliberately wrapping: a search log below 2 allows the most.
    let chain_limit = (1u32 << cp.search_log)
        .wrapping_sub(CACHE_SIZE as u32)
        .min(CHAIN_LIMIT_MAX);
    // The scratch chains, in the bucket table's space as in libzstd (no memory beyond the
    // CDict's own): its first quarter holds a head per hash, the rest the links of the
    // newest positions.
    let tmp_chain_size = (CACHE_SIZE as u32) << bucket_log;
    let tmp_min_chain = if tmp_chain_size < target {
        target - tmp_chain_size
    } else {
        first
    };
    {
        let (heads, links) = tables.buckets.split_at_mut(nb_buckets);
        for idx in first..target {
            let h = hash_ptr::<MLS>(content, (idx - WINDOW_START_INDEX) as usize, bucket_log);
            if idx >= tmp_min_chain {
                links[(idx - tmp_min_chain) as usize] = heads[h];
            }
            heads[h] = idx;
        }

        // Each hash's chain past its first three positions, moved into the chain table;
        // the head's place then holds the run's packed pointer.
        let link = |i: u32| links[(i - tmp_min_chain) as usize];
        for head in heads.iter_mut() {
            let mut i = *head;
            let mut beyond_min_chain = 0;
            let mut cached = 0;
            while i >= tmp_min_chain && cached < CACHE_SIZE {
                if i < min_chain {
                    beyond_min_chain += 1;
                }
                i = link(i);
                cached += 1;
            }
            let mut count = 0u32;
            if cached == CACHE_SIZE {
                while count < chain_limit {
                    // Only as many positions past the chain table's span as the cache
                    // took out of it, so the runs fit in the chain table.
                    if i < min_chain {
                        beyond_min_chain += 1;
                        if i == 0 || beyond_min_chain > CACHE_SIZE {
                            break;
                        }
                    }
                    tables.chain.push(i);
                    count += 1;
                    if i < tmp_min_chain {
                        break;
                    }
                    i = link(i);
                }
            }
            *head = if count > 0 {
                ((tables.chain.len() as u32 - count) << 8) | count
            } else {
                0
            };
        }
    }
    // Each pointer into the last entry of its bucket, the cache slots emptied: from the
    // last bucket down, so that no pointer is overwritten before it is moved.
    for h in (0..nb_buckets).rev() {
        let pointer = tables.buckets[h];
        let bucket = &mut tables.buckets[h << BUCKET_LOG..][..BUCKET_SIZE];
        bucket[..CACHE_SIZE].fill(0);
        bucket[CACHE_SIZE] = pointer;
    }

    // The cache: the three newest positions of each hash, newest first.
    for idx in first..target {
        let h = hash_ptr::<MLS>(content, (idx - WINDOW_START_INDEX) as usize, bucket_log);
        let bucket = &mut tables.buckets[h << BUCKET_LOG..][..CACHE_SIZE];
        bucket.copy_within(..CACHE_SIZE - 1, 1);
        bucket[0] = idx;
    }
    Ok(tables)
}

/// An attached dedicated-search CDict's tables, searched after the frame's own (its
/// positions keep their indices: its content lies directly before the source).
#[derive(Clone, Copy)]
pub(crate) struct DictDds<'t> {
    buckets: &'t [u32],
    chain: &'t [u32],
    bucket_log: u32,
}

impl DictDds<'_> {
    /// Search the dictionary for a match at `ip` (index `curr` among the dictionary's,
    /// whose content starts the slice at WINDOW_START_INDEX) longer than the best so
    /// far, `best` (length, offBase), with up to `attempts` candidates; returns the best.
    ///
    /// Mirrors ZSTD_dedicatedDictSearch_lazy_search: the bucket's cache slots (up to three,
    /// ending at an empty one), then the bucket's chain with the attempts left.
    #[inline(always)]
    pub(crate) fn search<'a, const MLS: u32, S: Source<'a>>(
        &self,
        src: S,
        ip: usize,
        iend: usize,
        curr: u32,
        attempts: u32,
        best: (usize, u32),
    ) -> (usize, u32) {
        let h = src.hash::<MLS>(ip, self.bucket_log);
        let Some(bucket) = self.buckets.get(h << BUCKET_LOG..(h + 1) << BUCKET_LOG) else {
            return best;
        };
        let (mut ml, mut off_base) = best;
        let ip4 = src.read32(ip);
        // A candidate: whether the search is over (the longest possible match found).
        let mut try_match = |idx: u32| {
            let m = (idx - WINDOW_START_INDEX) as usize;
            if src.read32(m) == ip4 {
                // Across the dictionary's end as ZSTD_count_2segments (see `Window`).
                let len = src.count(ip + 4, m + 4, iend) + 4;
                if len > ml {
                    ml = len;
                    off_base = curr - idx + OFFSET_TO_OFFBASE;
                    return ip + len == iend;
                }
            }
            false
        };
        let cache_limit = attempts.min(CACHE_SIZE as u32) as usize;
        for &idx in &bucket[..cache_limit] {
            if idx == 0 || try_match(idx) {
                return (ml, off_base);
            }
        }
        let pointer = bucket[CACHE_SIZE];
        let (run_start, run_len) = ((pointer >> 8) as usize, pointer & 0xFF);
        let run_len = run_len.min(attempts - cache_limit as u32) as usize;
        if let Some(run) = self.chain.get(run_start..run_start + run_len) {
            for &idx in run {
                if try_match(idx) {
                    break;
                }
            }
        }
        (ml, off_base)
    }
}
