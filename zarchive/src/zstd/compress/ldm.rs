//! Long-distance matching (libzstd's `zstd_ldm.c`): a second, sparse match finder over the
//! whole window that finds long repeats far back, whose matches the block compressor
//! either takes as they are (fast to btlazy2: the block compressor only parses the literals
//! between them) or weighs as extra candidates (the optimal parser).
//!
//! Positions are split by a gear rolling hash (a split every `2^hashRateLog` bytes on
//! average); each split point's preceding `minMatch` bytes are hashed with XXH64 into
//! buckets of `2^bucketSizeLog` entries. At a split, the bucket's entries with the same
//! checksum are extended forwards and backwards; the longest becomes a raw sequence.
//!
//! The table holds indices of the match state's index space (the window the finders use),
//! and is reduced with it: libzstd keeps a second window for this finder whose own
//! overflow correction only lowers indices that are already below its low limit, so the
//! difference never shows in the output. What shows is the low limit itself: this finder's
//! window enforces the maximum distance at the *end* of each block (libzstd cuts its input
//! into chunks of at most 1 MiB and enforces it at each chunk's end; a block is never
//! longer), while the match state enforces it at the block's start.

use super::matcher::count;
use super::params::{CParams, Strategy};
use super::window::{HASH_READ_SIZE, Window};
use crate::zstd::dispatch::Sse2Unit;

/// Random 64-bit values per byte value (`ZSTD_ldm_gearTab`).
#[rustfmt::skip]
const GEAR: [u64; 256] = [
    0xf5b8f72c5f77775c, 0x84935f266b7ac412, 0xb647ada9ca730ccc,
    0xb065bb4b114fb1de, 0x34584e7e8c3a9fd0, 0x4e97e17c6ae26b05,
    0x3a03d743bc99a604, 0xcecd042422c4044f, 0x76de76c58524259e,
    0x9c8528f65badeaca, 0x86563706e2097529, 0x2902475fa375d889,
    0xafb32a9739a5ebe6, 0xce2714da3883e639, 0x021eaf821722e69e,
    0x00037b628620b628, 0x049a8d455d88caf5, 0x8556d711e6958140,
    0x04f7ae74fc605c1f, 0x829f0c3468bd3a20, 0x4ffdc885c625179e,
    0x8473de048a3daf1b, 0x51008822b05646b2, 0x69d75d12b2d1cc5f,
    0x8c9d4a19159154bc, 0xc3cc10f4abbd4003, 0xd06ddc1cecb97391,
    0xbe48e6e7ed80302e, 0x3481db31cee03547, 0xacc3f67cdaa1d210,
    0x65cb771d8c7f96cc, 0x8eb27177055723dd, 0xc789950d44cd94be,
    0x934feadc3700b12b, 0x5e485f11edbdf182, 0x1e2e2a46fd64767a,
    0x2969ca71d82efa7c, 0x9d46e9935ebbba2e, 0xe056b67e05e6822b,
    0x94d73f55739d03a0, 0xcd7010bdb69b5a03, 0x455ef9fcd79b82f4,
    0x869cb54a8749c161, 0x38d1a4fa6185d225, 0xb475166f94bbe9bb,
    0xa4143548720959f1, 0x7aed4780ba6b26ba, 0xd0ce264439e02312,
    0x84366d746078d508, 0xa8ce973c72ed17be, 0x21c323a29a430b01,
    0x9962d617e3af80ee, 0xab0ce91d9c8cf75b, 0x530e8ee6d19a4dbc,
    0x2ef68c0cf53f5d72, 0xc03a681640a85506, 0x496e4e9f9c310967,
    0x78580472b59b14a0, 0x273824c23b388577, 0x66bf923ad45cb553,
    0x47ae1a5a2492ba86, 0x35e304569e229659, 0x4765182a46870b6f,
    0x6cbab625e9099412, 0xddac9a2e598522c1, 0x7172086e666624f2,
    0xdf5003ca503b7837, 0x88c0c1db78563d09, 0x58d51865acfc289d,
    0x177671aec65224f1, 0xfb79d8a241e967d7, 0x2be1e101cad9a49a,
    0x6625682f6e29186b, 0x399553457ac06e50, 0x035dffb4c23abb74,
    0x429db2591f54aade, 0xc52802a8037d1009, 0x6acb27381f0b25f3,
    0xf45e2551ee4f823b, 0x8b0ea2d99580c2f7, 0x3bed519cbcb4e1e1,
    0x0ff452823dbb010a, 0x9d42ed614f3dd267, 0x5b9313c06257c57b,
    0xa114b8008b5e1442, 0xc1fe311c11c13d4b, 0x66e8763ea34c5568,
    0x8b982af1c262f05d, 0xee8876faaa75fbb7, 0x8a62a4d0d172bb2a,
    0xc13d94a3b7449a97, 0x6dbbba9dc15d037c, 0xc786101f1d92e0f1,
    0xd78681a907a0b79b, 0xf61aaf2962c9abb9, 0x2cfd16fcd3cb7ad9,
    0x868c5b6744624d21, 0x25e650899c74ddd7, 0xba042af4a7c37463,
    0x4eb1a539465a3eca, 0xbe09dbf03b05d5ca, 0x774e5a362b5472ba,
    0x47a1221229d183cd, 0x504b0ca18ef5a2df, 0xdffbdfbde2456eb9,
    0x46cd2b2fbee34634, 0xf2aef8fe819d98c3, 0x357f5276d4599d61,
    0x24a5483879c453e3, 0x088026889192b4b9, 0x28da96671782dbec,
    0x4ef37c40588e9aaa, 0x8837b90651bc9fb3, 0xc164f741d3f0e5d6,
    0xbc135a0a704b70ba, 0x069cd868f7622ada, 0xbc37ba89e0b9c0ab,
    0x47c14a01323552f6, 0x4f00794bacee98bb, 0x7107de7d637a69d5,
    0x88af793bb6f2255e, 0xf3c6466b8799b598, 0xc288c616aa7f3b59,
    0x81ca63cf42fca3fd, 0x88d85ace36a2674b, 0x0d056bd3792389e7,
    0xe55c396c4e9dd32d, 0xbefb504571e6c0a6, 0x96ab32115e91e8cc,
    0xbf8acb18de8f38d1, 0x66dae58801672606, 0x833b6017872317fb,
    0xb87c16f2d1c92864, 0xdb766a74e58b669c, 0x89659f85c61417be,
    0xc8daad856011ea0c, 0x76a4b565b6fe7eae, 0xa469d085f6237312,
    0xaaf0365683a3e96c, 0x4dbb746f8424f7b8, 0x0638755af4e4acc1,
    0x3d7807f5bde64486, 0x17be6d8f5bbb7639, 0x0903f0cd44dc35dc,
    0x67b672eafdf1196c, 0xa676ff93ed4c82f1, 0x521d1004c5053d9d,
    0x37ba9ad09ccc9202, 0x84e54d297aacfb51, 0x0a0b4b776a143445,
    0x0820d471e20b348e, 0x1874383cb83d46dc, 0x97edeec7a1efe11c,
    0xb330e50b1bdc42aa, 0x1dd91955ce70e032, 0xa514cdb88f2939d5,
    0x2791233fd90db9d3, 0x7b670a4cc50f7a9b, 0x77c07d2a05c6dfa5,
    0xe3778b6646d0a6fa, 0xb39c8eda47b56749, 0x933ed448addbef28,
    0xaf846af6ab7d0bf4, 0x0e5af208eb666e49, 0x5e6622f73534cd6a,
    0x297daeca42ef5b6e, 0x862daef3d35539a6, 0xe68722498f8e1ea9,
    0x981c53093dc0d572, 0xfa09b0bfbf86fbf5, 0x30b1e96166219f15,
    0x70e7d466bdc4fb83, 0x5a66736e35f2a8e9, 0xcddb59d2b7c1baef,
    0xd6c7d247d26d8996, 0xea4e39eac8de1ba3, 0x539c8bb19fa3aff2,
    0x09f90e4c5fd508d8, 0xa34e5956fbaf3385, 0x2e2f8e151d3ef375,
    0x173691e9b83faec1, 0xb85a8d56bf016379, 0x8382381267408ae3,
    0xb90f901bbdc0096d, 0x7c6ad32933bcec65, 0x76bb5e2f2c8ad595,
    0x390f851a6cf46d28, 0xc3e6064da1c2da72, 0xc52a0c101cfa5389,
    0xd78eaf84a3fbc530, 0x3781b9e2288b997e, 0x73c2f6dea83d05c4,
    0x04228e364c5b5ed7, 0x9d7a3edf0da43911, 0x8edcfeda24686756,
    0x5e7667a7b7a9b3a1, 0x4c4f389fa143791d, 0xb08bc1023da7cddc,
    0x7ab4be3ae529b1cc, 0x754e6132dbe74ff9, 0x71635442a839df45,
    0x2f6fb1643fbe52de, 0x961e0a42cf7a8177, 0xf3b45d83d89ef2ea,
    0xee3de4cf4a6e3e9b, 0xcd6848542c3295e7, 0xe4cee1664c78662f,
    0x9947548b474c68c4, 0x25d73777a5ed8b0b, 0x00c915b1d636b7fc,
    0x21c2ba75d9b0d2da, 0x5f6b5dcf608a64a1, 0xdcf333255ff9570c,
    0x633b922418ced4ee, 0xc136dde0b004b34a, 0x58cc83b05d4b2f5a,
    0x5eb424dda28e42d2, 0x62df47369739cd98, 0xb4e0b42485e4ce17,
    0x16e1f0c1f9a8d1e7, 0x8ec3916707560ebf, 0x62ba6e2df2cc9db3,
    0xcbf9f4ff77d83a16, 0x78d9d7d07d2bbcc4, 0xef554ce1e02c41f4,
    0x8d7581127eccf94d, 0xa9b53336cb3c8a05, 0x38c42c0bf45c4f91,
    0x640893cdf4488863, 0x80ec34bc575ea568, 0x39f324f5b48eaa40,
    0xe9d9ed1f8eff527f, 0x9224fc058cc5a214, 0xbaba00b04cfe7741,
    0x309a9f120fcf52af, 0xa558f3ec65626212, 0x424bec8b7adabe2f,
    0x41622513a6aea433, 0xb88da2d5324ca798, 0xd287733b245528a4,
    0x9a44697e6d68aec3, 0x7b1093be2f49bb28, 0x50bbec632e3d8aad,
    0x6cd90723e1ea8283, 0x897b9e7431b02bf3, 0x219efdcb338a7047,
    0x3b0311f0a27c0656, 0xdb17bf91c0db96e7, 0x8cd4fd6b4e85a5b2,
    0xfab071054ba6409d, 0x40d6fe831fa9dfd9, 0xaf358debad7d791e,
    0xeb8d0e25a65e3e58, 0xbbcbd3df14e08580, 0x0cf751f27ecdab2b,
    0x2b4da14f2613d8f4,
];

/// Smallest bucket size log (`LDM_BUCKET_SIZE_LOG`) and largest (`ZSTD_LDM_BUCKETSIZELOG_MAX`).
const BUCKET_SIZE_LOG_MIN: u32 = 4;
const BUCKET_SIZE_LOG_MAX: u32 = 8;
/// Default minimum match length (`LDM_MIN_MATCH_LENGTH`), halved for btultra and btultra2.
const MIN_MATCH_DEFAULT: u32 = 64;
/// Bounds of the table's hash log (`ZSTD_HASHLOG_MIN`, `ZSTD_HASHLOG_MAX`).
const HASH_LOG_MIN: u32 = 6;
const HASH_LOG_MAX: u32 = 30;
/// Split points gathered before they are looked up (`LDM_BATCH_SIZE`).
const BATCH_SIZE: usize = 64;

/// Strategies from btopt with a window of at least this log turn long-distance matching on
/// by themselves (`ZSTD_resolveEnableLdm` with `ZSTD_ps_auto`).
pub(crate) const AUTO_MIN_WINDOW_LOG: u32 = 27;

/// Mirrors ZSTD_resolveEnableLdm for default (auto) settings.
pub(crate) fn auto_enabled(cp: &CParams) -> bool {
    cp.strategy >= Strategy::BtOpt && cp.window_log >= AUTO_MIN_WINDOW_LOG
}

/// The finder's parameters (`ldmParams_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LdmParams {
    pub(crate) window_log: u32,
    pub(crate) hash_log: u32,
    pub(crate) bucket_size_log: u32,
    pub(crate) min_match: u32,
    pub(crate) hash_rate_log: u32,
}

impl LdmParams {
    /// Mirrors ZSTD_ldm_adjustParameters with every LDM parameter left to libzstd (the
    /// `zstd` tool's `--long`): derived from the frame's final parameters.
    pub(crate) fn new(cp: &CParams) -> Self {
        let strategy = cp.strategy as u32;
        // From fast (a split every 128 bytes) to btultra2 (every 16).
        let hash_rate_log = 7 - strategy / 3;
        let hash_log = cp
            .window_log
            .saturating_sub(hash_rate_log)
            .clamp(HASH_LOG_MIN, HASH_LOG_MAX);
        let min_match = if cp.strategy >= Strategy::BtUltra {
            MIN_MATCH_DEFAULT / 2
        } else {
            MIN_MATCH_DEFAULT
        };
        let bucket_size_log = strategy
            .clamp(BUCKET_SIZE_LOG_MIN, BUCKET_SIZE_LOG_MAX)
            .min(hash_log);
        LdmParams {
            window_log: cp.window_log,
            hash_log,
            bucket_size_log,
            min_match,
            hash_rate_log,
        }
    }
}

/// The split points of one batch (`splits` and `numSplits` of
/// ZSTD_ldm_generateSequences_internal), at most [`BATCH_SIZE`].
struct Splits {
    at: [usize; BATCH_SIZE],
    len: usize,
}

impl Splits {
    fn new() -> Self {
        Splits {
            at: [0; BATCH_SIZE],
            len: 0,
        }
    }

    /// Add a split point; returns whether the batch is now full (no more may be added
    /// before [`Splits::clear`]).
    #[inline(always)]
    fn push(&mut self, split: usize) -> bool {
        self.at[self.len % BATCH_SIZE] = split;
        self.len += 1;
        self.len == BATCH_SIZE
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn as_slice(&self) -> &[usize] {
        &self.at[..self.len]
    }
}

/// The gear rolling hash (`ldmRollingHashState_t`).
struct Gear {
    rolling: u64,
    stop_mask: u64,
}

impl Gear {
    /// Mirrors ZSTD_ldm_gear_init: a split wherever the `hashRateLog` highest bits that
    /// still depend on only the last `minMatch` bytes are zero.
    fn new(p: &LdmParams) -> Self {
        let max_bits = p.min_match.min(64);
        let rate = p.hash_rate_log;
        let stop_mask = if rate > 0 && rate <= max_bits {
            ((1u64 << rate) - 1) << (max_bits - rate)
        } else {
            (1u64 << rate.min(63)) - 1
        };
        Gear {
            rolling: u32::MAX as u64,
            stop_mask,
        }
    }

    /// Mirrors ZSTD_ldm_gear_feed: feed `data` until its end or until `splits` holds
    /// [`BATCH_SIZE`] split points (each the count of bytes fed up to and including the
    /// byte that ends it); returns the bytes fed.
    ///
    /// Out of line, so the hash stays in a register (inlined into the block loop, it lived
    /// on the stack).
    #[inline(never)]
    fn feed(&mut self, data: &[u8], splits: &mut Splits) -> usize {
        let mut hash = self.rolling;
        let mask = self.stop_mask;
        // Four bytes per step, with two shift-and-adds on the hash's dependency chain
        // (`h2 = 4 hash + x12`, `h4 = 4 h2 + x34`, where `x12 = 2 g0 + g1` and
        // `x34 = 2 g2 + g3` do not depend on the hash; each is one `lea`), and the odd
        // bytes' hashes `h1`, `h3` off the chain. Against one shift-and-add per byte
        // (libzstd's loop, which Rust compiles to two adds: a 2-cycle chain per byte), and
        // against `h4 = 16 hash + x4` with `x4` kept opaque (a store and a reload per step),
        // 16 MiB in 6.3 ms against 9.6 ms and 7.7 ms.
        let mut chunks = data.chunks_exact(4);
        let mut n = 0;
        for c in &mut chunks {
            let g = [c[0], c[1], c[2], c[3]].map(|b| GEAR[b as usize]);
            let x12 = g[1].wrapping_add(g[0] << 1);
            let x34 = g[3].wrapping_add(g[2] << 1);
            let h2 = x12.wrapping_add(hash << 2);
            let h4 = x34.wrapping_add(h2 << 2);
            let h = [
                g[0].wrapping_add(hash << 1),
                h2,
                g[2].wrapping_add(h2 << 1),
                h4,
            ];
            for (k, &h) in h.iter().enumerate() {
                if h & mask == 0 && splits.push(n + k + 1) {
                    self.rolling = h;
                    return n + k + 1;
                }
            }
            hash = h[3];
            n += 4;
        }
        for &b in chunks.remainder() {
            hash = (hash << 1).wrapping_add(GEAR[b as usize]);
            n += 1;
            if hash & mask == 0 && splits.push(n) {
                break;
            }
        }
        self.rolling = hash;
        n
    }
}

/// One table entry (`ldmEntry_t`): an index, 0 when empty, and the upper half of the
/// XXH64 of the `minMatch` bytes there.
#[derive(Clone, Copy, Default)]
struct Entry {
    offset: u32,
    checksum: u32,
}

/// A match found by this finder, with the literals before it (`rawSeq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSeq {
    pub(crate) lit_len: u32,
    pub(crate) match_len: u32,
    pub(crate) offset: u32,
}

/// A split point about to be looked up (`ldmMatchCandidate_t`).
#[derive(Clone, Copy)]
struct Candidate {
    split: usize,
    hash: usize,
    checksum: u32,
}

/// The finder's state in a frame (`ldmState_t` and the context's LDM sequence store).
pub(crate) struct LdmState {
    p: LdmParams,
    table: Vec<Entry>,
    /// Next slot to fill in each bucket.
    bucket_offsets: Vec<u8>,
    /// The finder's own window limits (`lowLimit`, `dictLimit`), as indices of the match
    /// state's window.
    low_limit: u32,
    dict_limit: u32,
    /// End index of a dictionary loaded into this finder while it stays valid as a whole
    /// (`loadedDictEnd`), else 0.
    loaded_dict_end: u32,
    /// `ms->nextToUpdate` of fast and dfast, a finder position: where the hash tables are
    /// filled from before each stretch of literals (the other strategies keep their own).
    pub(crate) fast_next: usize,
    /// This block's sequences and how far the block compressor has used them
    /// (`RawSeqStore_t`: `pos`, `posInSequence`).
    pub(crate) seqs: Vec<RawSeq>,
    pos: usize,
    splits: Splits,
    candidates: Vec<Candidate>,
    /// Cache hints for the candidates' buckets (`PREFETCH_L1`).
    sse2: Sse2Unit,
}

impl LdmState {
    /// A fresh finder for a frame with parameters `cp` whose window is `window`.
    ///
    /// Mirrors the LDM part of ZSTD_resetCCtx_internal (zeroed tables, a new window).
    pub(crate) fn new(cp: &CParams, window: &Window) -> Self {
        let mut st = Self::empty(cp);
        st.reset(cp, window);
        st
    }

    /// A finder for parameters `cp` whose tables are not allocated yet.
    pub(crate) fn empty(cp: &CParams) -> Self {
        LdmState {
            p: LdmParams::new(cp),
            table: Vec::new(),
            bucket_offsets: Vec::new(),
            low_limit: 0,
            dict_limit: 0,
            loaded_dict_end: 0,
            fast_next: 0,
            seqs: Vec::new(),
            pos: 0,
            splits: Splits::new(),
            candidates: Vec::with_capacity(BATCH_SIZE),
            sse2: Sse2Unit::detect(),
        }
    }

    /// Room for the tables of a frame with `cp`, failing instead of aborting when the
    /// memory cannot be had (the entries are kept); [`LdmState::reset`] then allocates
    /// nothing. The error is the bytes that could not be had.
    pub(crate) fn try_room(&mut self, cp: &CParams) -> Result<(), usize> {
        let p = LdmParams::new(cp);
        let entries = 1usize << p.hash_log;
        let buckets = 1usize << (p.hash_log - p.bucket_size_log);
        super::matcher::table::try_room(&mut self.table, entries)
            .map_err(|_| entries.saturating_mul(size_of::<Entry>()))?;
        super::matcher::table::try_room(&mut self.bucket_offsets, buckets)
            .map_err(|_| buckets.saturating_mul(size_of::<u8>()))
    }

    /// Clear the tables for a new frame with `cp` (reallocated only when their size
    /// changes).
    pub(crate) fn reset(&mut self, cp: &CParams, window: &Window) {
        self.p = LdmParams::new(cp);
        let entries = 1usize << self.p.hash_log;
        let buckets = 1usize << (self.p.hash_log - self.p.bucket_size_log);
        self.table.clear();
        self.table.resize(entries, Entry::default());
        self.bucket_offsets.clear();
        self.bucket_offsets.resize(buckets, 0);
        // A fresh window: its first segment is the frame's input (a dictionary the match
        // state holds, attached or copied, is not this finder's).
        self.low_limit = window.dict_limit();
        self.dict_limit = window.dict_limit();
        self.loaded_dict_end = 0;
        self.fast_next = window.pos_of(window.dict_limit());
        self.seqs.clear();
        self.pos = 0;
    }

    /// Load the dictionary content at finder positions `0..dict_len` of `src`, the frame's
    /// first segment (see [`Window::with_dict`]), as the context loads a dictionary for
    /// `ZSTD_compress_usingDict`: its split points enter the table, and the content becomes
    /// this finder's extDict segment, valid as a whole (`loadedDictEnd`) until the window
    /// slides past it. Call after [`LdmState::reset`].
    ///
    /// Mirrors the LDM part of ZSTD_loadDictionaryContent (ZSTD_window_update of the
    /// dictionary, then of the source, which is not contiguous with it) and
    /// ZSTD_ldm_fillHashTable.
    pub(crate) fn load_dict(&mut self, src: &[u8], dict_len: usize, window: &Window) {
        let (start, end) = (window.index(0), window.index(dict_len));
        // Below 8 bytes the dictionary is no segment at all ("too small extDict"), yet
        // the source's indices start after it.
        self.low_limit = if dict_len < HASH_READ_SIZE {
            end
        } else {
            start
        };
        self.dict_limit = end;
        self.loaded_dict_end = end;
        let p = self.p;
        let min_match = p.min_match as usize;
        let h_mask = (1usize << (p.hash_log - p.bucket_size_log)) - 1;
        // Unlike a block's search, the hash starts at the dictionary's first byte and runs
        // to its last.
        let mut gear = Gear::new(&p);
        let mut ip = 0;
        while ip < dict_len {
            self.splits.clear();
            let hashed = gear.feed(&src[ip..dict_len], &mut self.splits);
            for i in 0..self.splits.as_slice().len() {
                let end_of_split = ip + self.splits.as_slice()[i];
                if end_of_split < min_match {
                    continue;
                }
                let split = end_of_split - min_match;
                let xxhash = xxhash_rust::xxh64::xxh64(&src[split..end_of_split], 0);
                let entry = Entry {
                    offset: window.index(split),
                    checksum: (xxhash >> 32) as u32,
                };
                self.insert(xxhash as usize & h_mask, entry);
            }
            ip += hashed;
        }
    }

    /// Mirrors the non-contiguous branch of ZSTD_window_update on this finder's window
    /// (see [`Window::start_segment`]), and `nextToUpdate = dictLimit` for fast and dfast.
    pub(crate) fn start_segment(&mut self, next: u32, window: &Window) {
        self.low_limit = self.dict_limit;
        self.dict_limit = next;
        if next - self.low_limit < HASH_READ_SIZE as u32 {
            self.low_limit = next;
        }
        self.fast_next = window.pos_of(window.dict_limit());
    }

    /// Mirrors the overlap test of ZSTD_window_update on this finder's window (see
    /// [`Window::drop_overwritten`]).
    pub(crate) fn drop_overwritten(&mut self, overwritten_end: u32) {
        self.low_limit = self.low_limit.max(overwritten_end.min(self.dict_limit));
    }

    /// Every index of the match state's window lowered by `correction`, finder positions
    /// moved down by `moved` (see [`super::matcher::MatchState::reduce_index`]): entries
    /// below it are cleared (all of them below this window's low limit already).
    ///
    /// Mirrors ZSTD_ldm_reduceTable.
    pub(crate) fn reduce_index(&mut self, correction: u32, moved: usize) {
        for e in &mut self.table {
            e.offset = e.offset.saturating_sub(correction);
        }
        self.low_limit = self.low_limit.saturating_sub(correction);
        self.dict_limit = self.dict_limit.saturating_sub(correction);
        self.loaded_dict_end = 0;
        self.fast_next = self.fast_next.saturating_sub(moved);
    }

    /// Every index of the match state's window raised by `delta` (btultra2's first block
    /// forgets its statistics pass that way, see [`Window::forget_prefix`], which libzstd
    /// does to the match state's window only): the entries and limits follow, so they
    /// still name the same bytes.
    pub(crate) fn shift_up(&mut self, delta: u32) {
        for e in &mut self.table {
            if e.offset != 0 {
                e.offset += delta;
            }
        }
        self.low_limit += delta;
        self.dict_limit += delta;
    }

    /// Mirrors ZSTD_window_enforceMaxDist on this finder's window, at the end of the block
    /// ending at finder position `end`: a loaded dictionary (see [`LdmState::load_dict`])
    /// stays whole until the block ends more than a window past it.
    fn enforce_max_dist(&mut self, window: &Window, end: usize) {
        let max_dist = 1u64 << self.p.window_log;
        // libzstd's own index decides; ours may lie below it (see `Window::shift_down`).
        // A stream's dictionary is a CDict, attached or copied into the match state only:
        // none is loaded here (`loadedDictEnd` stays 0).
        if window.libzstd_index(end) > max_dist + u64::from(self.loaded_dict_end) {
            let new_low = window.index(end).saturating_sub(max_dist as u32);
            self.low_limit = self.low_limit.max(new_low);
            self.dict_limit = self.dict_limit.max(self.low_limit);
            self.loaded_dict_end = 0;
        }
    }

    /// Find the long matches of the block `src[start..end]` (finder positions of the match
    /// state's window) into [`LdmState::seqs`].
    ///
    /// Mirrors ZSTD_ldm_generateSequences for one block (at most 128 KiB: one chunk).
    pub(crate) fn generate(&mut self, src: &[u8], start: usize, end: usize, window: &Window) {
        self.seqs.clear();
        self.pos = 0;
        self.enforce_max_dist(window, end);
        self.generate_internal(src, start, end, window);
    }

    /// Insert `entry` in the bucket of `hash`, replacing the bucket's oldest.
    ///
    /// Mirrors ZSTD_ldm_insertEntry.
    fn insert(&mut self, hash: usize, entry: Entry) {
        let slot = self.bucket_offsets[hash] as usize;
        self.table[(hash << self.p.bucket_size_log) + slot] = entry;
        self.bucket_offsets[hash] = ((slot + 1) & ((1 << self.p.bucket_size_log) - 1)) as u8;
    }

    /// Mirrors ZSTD_ldm_generateSequences_internal. The window's two segments (an extDict
    /// segment and the prefix) are one slice here, the first ending where the second
    /// starts, so counting forwards past the first segment's end continues at the prefix
    /// start (`ZSTD_count_2segments`) and counting backwards past the prefix start
    /// continues at the first segment's end (`ZSTD_ldm_countBackwardsMatch_2segments`):
    /// both stop at the low limit.
    fn generate_internal(&mut self, src: &[u8], start: usize, end: usize, window: &Window) {
        let p = self.p;
        let ext = self.low_limit < self.dict_limit;
        let lowest = if ext { self.low_limit } else { self.dict_limit };
        let low_pos = window.pos_of(self.low_limit);
        let min_match = p.min_match as usize;
        let entries_per_bucket = 1usize << p.bucket_size_log;
        let h_mask = (1usize << (p.hash_log - p.bucket_size_log)) - 1;
        if end - start < min_match {
            return;
        }
        let ilimit = end - HASH_READ_SIZE;
        let mut anchor = start;
        // The first `minMatch` bytes are skipped. libzstd 1.5.7 means to feed them to the
        // hash (ZSTD_ldm_gear_reset), but that function hashes into a local and never
        // stores it: the hash starts from its initial value, and so it does here.
        let mut gear = Gear::new(&p);
        let mut ip = start + min_match;
        let mut candidates = std::mem::take(&mut self.candidates);
        while ip < ilimit {
            self.splits.clear();
            let hashed = gear.feed(&src[ip..ilimit], &mut self.splits);
            candidates.clear();
            for &s in self.splits.as_slice() {
                let split = ip + s - min_match;
                let xxhash = xxhash_rust::xxh64::xxh64(&src[split..split + min_match], 0);
                let hash = xxhash as usize & h_mask;
                // The buckets of a batch are looked up after all its hashes: each is a
                // likely cache miss in a table of megabytes, started now.
                self.sse2.prefetch(&self.table, hash << p.bucket_size_log);
                candidates.push(Candidate {
                    split,
                    hash,
                    checksum: (xxhash >> 32) as u32,
                });
            }
            for c in &candidates {
                let new_entry = Entry {
                    offset: window.index(c.split),
                    checksum: c.checksum,
                };
                // A split inside the last match is only registered.
                if c.split < anchor {
                    self.insert(c.hash, new_entry);
                    continue;
                }
                let bucket = c.hash << p.bucket_size_log;
                let mut best: Option<(usize, usize, u32)> = None;
                let mut best_len = 0;
                for e in &self.table[bucket..bucket + entries_per_bucket] {
                    if e.checksum != c.checksum || e.offset <= lowest {
                        continue;
                    }
                    let m = window.pos_of(e.offset);
                    let forward = count(src, c.split, m, end);
                    if forward < min_match {
                        continue;
                    }
                    let backward = count_backwards(src, c.split, anchor, m, low_pos);
                    if forward + backward > best_len {
                        best_len = forward + backward;
                        best = Some((forward, backward, e.offset));
                    }
                }
                let Some((forward, backward, match_idx)) = best else {
                    self.insert(c.hash, new_entry);
                    continue;
                };
                self.seqs.push(RawSeq {
                    lit_len: (c.split - backward - anchor) as u32,
                    match_len: (forward + backward) as u32,
                    offset: new_entry.offset - match_idx,
                });
                // After the lookup, so the entry just used is not overwritten first.
                self.insert(c.hash, new_entry);
                anchor = c.split + forward;
                // A match running past what was hashed is a repeating pattern: its other
                // split points would all match the same way. Resume hashing at its end.
                // (libzstd's ZSTD_ldm_gear_reset here leaves the hash as it is, see above.)
                if anchor > ip + hashed {
                    ip = anchor - hashed;
                    break;
                }
            }
            ip += hashed;
        }
        self.candidates = candidates;
    }

    /// The next sequence for the block compressor with `remaining` bytes of the block left:
    /// cut to the block when it runs past it (an offset of 0 then says the rest of the
    /// block is literals), with the store moved past what was used.
    ///
    /// Mirrors maybeSplitSequence.
    pub(crate) fn next_for_block(&mut self, remaining: u32, min_match: u32) -> Option<RawSeq> {
        let mut seq = *self.seqs.get(self.pos)?;
        if remaining >= seq.lit_len + seq.match_len {
            self.pos += 1;
            return Some(seq);
        }
        if remaining <= seq.lit_len {
            seq.offset = 0;
        } else {
            seq.match_len = remaining - seq.lit_len;
            if seq.match_len < min_match {
                seq.offset = 0;
            }
        }
        self.skip_sequences(remaining, min_match);
        Some(seq)
    }

    /// Mirrors ZSTD_ldm_skipSequences: move `size` bytes into the store, dropping a
    /// partly used match that becomes shorter than `min_match` (its bytes go to the next
    /// sequence's literals).
    fn skip_sequences(&mut self, mut size: u32, min_match: u32) {
        while size > 0 && self.pos < self.seqs.len() {
            let seq = &mut self.seqs[self.pos];
            if size <= seq.lit_len {
                seq.lit_len -= size;
                return;
            }
            size -= seq.lit_len;
            seq.lit_len = 0;
            if size < seq.match_len {
                seq.match_len -= size;
                if seq.match_len < min_match {
                    let rest = seq.match_len;
                    if let Some(next) = self.seqs.get_mut(self.pos + 1) {
                        next.lit_len += rest;
                    }
                    self.pos += 1;
                }
                return;
            }
            size -= seq.match_len;
            seq.match_len = 0;
            self.pos += 1;
        }
    }
}

/// Bytes that match backwards before `a` and `b`, not going below `a_low` for `a` and
/// `b_low` for `b`.
///
/// Mirrors ZSTD_ldm_countBackwardsMatch.
fn count_backwards(src: &[u8], mut a: usize, a_low: usize, mut b: usize, b_low: usize) -> usize {
    let mut n = 0;
    while a > a_low && b > b_low && src[a - 1] == src[b - 1] {
        a -= 1;
        b -= 1;
        n += 1;
    }
    n
}

/// Mirrors ZSTD_ldm_limitTableUpdate: after a long match, the finders resume inserting at
/// most 512 positions behind `curr` once they lag more than 1024 behind it (positions or
/// indices, one unit for both).
pub(crate) fn limit_table_update(curr: usize, next: usize) -> usize {
    if curr > next + 1024 {
        curr - 512.min(curr - next - 1024)
    } else {
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zstd::compress::params;

    /// The gear feed finds the split points and leaves the hash a byte-at-a-time rolling
    /// hash would (libzstd's loop), for every batch of a long input, at several split
    /// rates, whatever the length fed.
    #[test]
    fn gear_feed_splits_where_a_byte_loop_does() {
        let data: Vec<u8> = (0u64..20_000)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as u8 ^ (i / 7) as u8)
            .collect();
        for rate in [2, 4, 7] {
            let p = LdmParams {
                window_log: 27,
                hash_log: 20,
                bucket_size_log: 3,
                min_match: 64,
                hash_rate_log: rate,
            };
            for len in [0, 1, 3, 4, 5, 999, data.len()] {
                let data = &data[..len];
                // The reference: one byte at a time, a batch ending at its 64th split.
                let mut want = Vec::new();
                let mut hash = Gear::new(&p).rolling;
                let mask = Gear::new(&p).stop_mask;
                let mut batch = 0;
                for (i, &b) in data.iter().enumerate() {
                    hash = (hash << 1).wrapping_add(GEAR[b as usize]);
                    if hash & mask == 0 {
                        want.push((i + 1, hash));
                        batch += 1;
                    }
                    if batch == BATCH_SIZE {
                        batch = 0;
                    }
                }
                let mut gear = Gear::new(&p);
                let mut splits = Splits::new();
                let mut got = Vec::new();
                let mut fed = 0;
                while fed < data.len() {
                    splits.clear();
                    let n = gear.feed(&data[fed..], &mut splits);
                    assert!(n > 0, "rate {rate} len {len}: no progress");
                    got.extend(splits.as_slice().iter().map(|&s| fed + s));
                    if splits.len == BATCH_SIZE {
                        // A full batch stops right after its last split, with its hash.
                        assert_eq!(n, splits.as_slice()[BATCH_SIZE - 1]);
                        let last = want[got.len() - 1];
                        assert_eq!(gear.rolling, last.1, "rate {rate} len {len}");
                    }
                    fed += n;
                }
                let want: Vec<usize> = want.iter().map(|w| w.0).collect();
                assert_eq!(got, want, "rate {rate} len {len}");
                assert_eq!(gear.rolling, hash, "rate {rate} len {len}: final hash");
            }
        }
    }

    #[test]
    fn parameters_follow_the_strategy() {
        // Level 22 on a large input: btultra2, window 2^27.
        let cp = params::cparams_unknown_size(22);
        let p = LdmParams::new(&CParams {
            window_log: 27,
            ..cp
        });
        assert_eq!(
            (p.hash_rate_log, p.hash_log, p.min_match, p.bucket_size_log),
            (4, 23, 32, 8)
        );
        // Level 1 with `--long`: fast.
        let cp = CParams {
            window_log: 27,
            ..params::cparams_unknown_size(1)
        };
        let p = LdmParams::new(&cp);
        assert_eq!(
            (p.hash_rate_log, p.hash_log, p.min_match, p.bucket_size_log),
            (7, 20, 64, 4)
        );
    }

    #[test]
    fn skipping_a_partly_used_match_hands_a_short_rest_to_the_next_literals() {
        let mut st = LdmState::new(&params::cparams(1, 1 << 20), &Window::new(20));
        st.seqs = vec![
            RawSeq {
                lit_len: 10,
                match_len: 100,
                offset: 5000,
            },
            RawSeq {
                lit_len: 7,
                match_len: 80,
                offset: 9000,
            },
        ];
        // The block ends 2 bytes before the first match's end: 98 bytes of it are used,
        // the 2 left are too short and become literals of the next sequence.
        let first = st.next_for_block(108, 4).unwrap();
        assert_eq!(first.match_len, 98);
        assert_eq!(first.offset, 5000);
        assert_eq!(st.pos, 1);
        assert_eq!(st.seqs[1].lit_len, 9);
        // A block that ends inside the literals: the rest of it is literals.
        let second = st.next_for_block(5, 4).unwrap();
        assert_eq!(second.offset, 0);
        assert_eq!(st.seqs[1].lit_len, 4);
    }
}
