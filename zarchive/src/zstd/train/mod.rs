//! Dictionary training, as libzstd's `dictBuilder` trains: the fastCOVER content selection
//! with `ZDICT_trainFromBuffer`'s parameter search (`fastcover`), and the entropy header a
//! formatted dictionary starts with (`finalize`, `ZDICT_finalizeDictionary`).
//!
//! Both give libzstd 1.5.7's bytes for the same samples in the same order.

mod fastcover;
mod finalize;

use super::error::ZstdError;

/// Smallest dictionary libzstd's builder writes (`ZDICT_DICTSIZE_MIN`).
pub const MIN_DICTIONARY_SIZE: usize = 256;
/// The size `zstd --train` trains to unless told otherwise (110 KiB, `g_defaultMaxDictSize`).
pub const DEFAULT_DICTIONARY_SIZE: usize = 112_640;
/// The first four bytes of a zstd-format dictionary (little-endian `0xEC30A437`).
pub const DICTIONARY_MAGIC: [u8; 4] = crate::zstd::common::format::DICT_MAGIC.to_le_bytes();

/// The samples of one training run, one flat buffer as libzstd takes them (the content
/// selection reads across sample boundaries).
struct Samples {
    flat: Vec<u8>,
    /// `offsets[i]..offsets[i + 1]` is sample `i`.
    offsets: Vec<usize>,
}

impl Samples {
    fn new<S: AsRef<[u8]>>(samples: &[S]) -> Samples {
        let total = samples.iter().map(|s| s.as_ref().len()).sum();
        let mut flat = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(samples.len() + 1);
        offsets.push(0);
        for s in samples {
            flat.extend_from_slice(s.as_ref());
            offsets.push(flat.len());
        }
        Samples { flat, offsets }
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn get(&self, i: usize) -> &[u8] {
        &self.flat[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Total size of the first `n` samples.
    fn size_of_first(&self, n: usize) -> usize {
        self.offsets[n]
    }
}

/// Train a dictionary of at most `capacity` bytes on `samples`, as
/// `ZDICT_trainFromBuffer(dict, capacity, samples, sizes, n)` of libzstd 1.5.7 trains it
/// (fastCOVER, d = 8, f = 20, k searched in 4 steps from 50 to 2000, the first 75 % of the
/// samples to select content and entropy statistics, the rest to measure each candidate
/// with `ZSTD_compress_usingCDict` at level 3): the same bytes for the same samples in the
/// same order.
///
/// Fails, as libzstd does, for a capacity below [`MIN_DICTIONARY_SIZE`] (or above 4 GiB), fewer than 7
/// samples (5 to learn from and one to measure with), samples totalling under 8 bytes or
/// 4 GiB and more, and samples from which no table can be built. It also refuses samples
/// whose learning part totals under 8 bytes, which libzstd does not check.
pub fn train_dictionary<S: AsRef<[u8]>>(
    samples: &[S],
    capacity: usize,
) -> Result<Vec<u8>, ZstdError> {
    fastcover::train(&Samples::new(samples), capacity)
}

/// Put `items` (sample files) in the order `zstd --train` loads them: a Fisher-Yates
/// shuffle driven by its fixed pseudo-random sequence, so that a cut at a size limit takes
/// files from everywhere. Training on the files in this order reproduces `zstd --train`'s
/// dictionary from the files in the original order.
///
/// Mirrors DiB_shuffle (and DiB_rand) of the `zstd` program.
pub fn shuffle_like_zstd<T>(items: &mut [T]) {
    let mut seed: u32 = 0xFD2F_B528;
    let mut next = || {
        seed = (seed.wrapping_mul(2_654_435_761) ^ 2_246_822_519).rotate_left(13);
        seed >> 5
    };
    for i in (1..items.len()).rev() {
        let j = next() as usize % (i + 1);
        items.swap(i, j);
    }
}

/// Options of [`finalize_dictionary`] (`ZDICT_params_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FinalizeOptions {
    /// The level the statistics are gathered at (0: libzstd's default, 3).
    pub level: i32,
    /// The dictionary's ID; 0 derives one from the content (`XXH64`), as libzstd does.
    pub dict_id: u32,
}

/// Make a formatted dictionary of at most `capacity` bytes from raw `content`: a header
/// with entropy tables gathered by compressing `samples` with the content at
/// `options.level`, then the content (its start kept when it does not fit, padded to 8
/// bytes when shorter). Byte-identical to libzstd 1.5.7's
/// `ZDICT_finalizeDictionary(dict, capacity, content, len, samples, sizes, n, params)`.
///
/// Fails for a capacity below [`MIN_DICTIONARY_SIZE`] or below the content's size, for
/// content of 2 GiB less 128 KiB and more, and for a level outside zstd's range.
pub fn finalize_dictionary<S: AsRef<[u8]>>(
    content: &[u8],
    samples: &[S],
    capacity: usize,
    options: FinalizeOptions,
) -> Result<Vec<u8>, ZstdError> {
    super::check_level(options.level)?;
    let samples = Samples::new(samples);
    finalize::finalize(
        content,
        &samples,
        samples.len(),
        capacity,
        options.level,
        options.dict_id,
    )
}

/// A training failure in plain words.
fn cannot_train(reason: String) -> ZstdError {
    ZstdError::CannotTrain { reason }
}
