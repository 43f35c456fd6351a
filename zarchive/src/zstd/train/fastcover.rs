//! The fastCOVER content selection and `ZDICT_trainFromBuffer`'s search over its segment
//! size `k` (`ZDICT_optimizeTrainFromBuffer_fastCover` with d = 8, steps = 4).
//!
//! Each `d`-byte window ("dmer") of the learning samples is hashed to `f` bits and counted.
//! The samples are cut into epochs; from each, in turn, the `k`-byte segment whose distinct
//! dmer hashes have the largest total count is copied to the dictionary, filled from its end,
//! and the counts of its hashes are zeroed. Each `k` gives a candidate, finalized with the
//! learning samples' statistics and measured by compressing the held-out samples with it.

use super::finalize::finalize;
use super::{Samples, cannot_train};
use crate::zstd::compress::matcher::hash_ptr;
use crate::zstd::error::ZstdError;
use crate::zstd::{Compressor, EncoderDictionary};

/// Bytes hashed per dmer (`d`; `ZDICT_trainFromBuffer` fixes it).
const D: usize = 8;
/// Bits of the dmer hashes (`f`, `DEFAULT_F`).
const F: u32 = 20;
/// Share of the samples used to learn from; the rest measure (`FASTCOVER_DEFAULT_SPLITPOINT`).
const SPLIT_POINT: f64 = 0.75;
/// The `k` searched: `K_MIN`, then steps of `(K_MAX - K_MIN) / STEPS` up to `K_MAX`.
const K_MIN: u32 = 50;
const K_MAX: u32 = 2000;
const STEPS: u32 = 4;
/// Level the candidates are finalized and measured at (`ZSTD_CLEVEL_DEFAULT`).
const LEVEL: i32 = 3;
/// Epochs in a row that may yield nothing before the selection stops.
const MAX_ZERO_SCORE_RUN: usize = 10;

/// One candidate segment: dmer positions `begin..end` and their score.
#[derive(Clone, Copy, Default)]
struct Segment {
    begin: u32,
    end: u32,
    score: u32,
}

/// Entries of the count tables (`2^f`).
const TABLE_LEN: usize = 1 << F;
/// A count per dmer hash.
type Table<T> = Box<[T; TABLE_LEN]>;

fn table<T: Copy + Default>() -> Table<T> {
    vec![T::default(); TABLE_LEN]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has TABLE_LEN entries"))
}

/// Learning parts of up to this many dmers get their hashes computed once for every `k`
/// (4 bytes each); larger ones hash as they go, as libzstd does.
const MAX_HASHED_DMERS: usize = 1 << 25;

/// What every `k` shares (`FASTCOVER_ctx_t`): the samples, their split, and the dmer counts
/// of the learning part.
struct Context<'a> {
    samples: &'a Samples,
    nb_train: usize,
    /// Dmer positions in the learning part (each reads 8 bytes).
    nb_dmers: usize,
    freqs: Table<u32>,
    /// The hash of every dmer position, when there are at most [`MAX_HASHED_DMERS`].
    hashes: Vec<u32>,
}

fn hash(samples: &[u8], pos: usize) -> usize {
    hash_ptr::<8>(samples, pos, F)
}

impl<'a> Context<'a> {
    /// Mirrors FASTCOVER_ctx_init (and FASTCOVER_computeFrequency).
    fn new(samples: &'a Samples) -> Result<Context<'a>, ZstdError> {
        let n = samples.len();
        let total = samples.size_of_first(n);
        let nb_train = (n as f64 * SPLIT_POINT) as usize;
        let nb_test = n - nb_train;
        if total < D || total >= u32::MAX as usize {
            return Err(cannot_train(format!(
                "the samples total {total} bytes; training needs 8 bytes to 4 GiB"
            )));
        }
        if nb_train < 5 || nb_test < 1 {
            return Err(cannot_train(format!(
                "{n} samples are too few: training needs at least 7 (5 to learn from, 1 to measure with)"
            )));
        }
        let train_size = samples.size_of_first(nb_train);
        if train_size < D {
            // libzstd's count of dmers would wrap around here.
            return Err(cannot_train(format!(
                "the first {nb_train} samples, which training learns from, total {train_size} bytes; at least 8 are needed"
            )));
        }
        let nb_dmers = train_size - D + 1;
        let hashes = if nb_dmers <= MAX_HASHED_DMERS {
            (0..nb_dmers)
                .map(|pos| hash(&samples.flat, pos) as u32)
                .collect()
        } else {
            Vec::new()
        };
        let mut ctx = Context {
            samples,
            nb_train,
            nb_dmers,
            freqs: table(),
            hashes,
        };
        let mut freqs = table::<u32>();
        for i in 0..nb_train {
            let (start, end) = (samples.offsets[i], samples.offsets[i + 1]);
            for pos in start..(end + 1).saturating_sub(D) {
                let h = ctx.dmer_hash(pos);
                freqs[h] = freqs[h].wrapping_add(1);
            }
        }
        ctx.freqs = freqs;
        Ok(ctx)
    }

    /// The hash of the dmer at `pos` (below `nb_dmers`), less than [`TABLE_LEN`].
    #[inline(always)]
    fn dmer_hash(&self, pos: usize) -> usize {
        let h = match self.hashes.get(pos) {
            Some(&h) => h as usize,
            None => hash(&self.samples.flat, pos),
        };
        h & (TABLE_LEN - 1)
    }

    /// The best segment of `begin..end` for `k`; zeroes the counts of the hashes it
    /// covers. `segment_freqs` (all zero on entry and on return) counts the hashes in the
    /// sliding window.
    ///
    /// Mirrors FASTCOVER_selectSegment.
    fn select_segment(
        &self,
        freqs: &mut Table<u32>,
        begin: u32,
        end: u32,
        k: u32,
        segment_freqs: &mut Table<u16>,
    ) -> Segment {
        if let Some(hashes) = self.hashes.get(begin as usize..end as usize) {
            return select_hashed(hashes, begin, freqs, k, segment_freqs);
        }
        let dmers_in_k = k - D as u32 + 1;
        let mut best = Segment::default();
        let mut active = Segment {
            begin,
            end: begin,
            score: 0,
        };
        while active.end < end {
            let idx = self.dmer_hash(active.end as usize);
            if segment_freqs[idx] == 0 {
                active.score = active.score.wrapping_add(freqs[idx]);
            }
            active.end += 1;
            segment_freqs[idx] = segment_freqs[idx].wrapping_add(1);
            if active.end - active.begin == dmers_in_k + 1 {
                let del = self.dmer_hash(active.begin as usize);
                segment_freqs[del] = segment_freqs[del].wrapping_sub(1);
                if segment_freqs[del] == 0 {
                    active.score = active.score.wrapping_sub(freqs[del]);
                }
                active.begin += 1;
            }
            if active.score > best.score {
                best = active;
            }
        }
        while active.begin < end {
            let del = self.dmer_hash(active.begin as usize);
            segment_freqs[del] = segment_freqs[del].wrapping_sub(1);
            active.begin += 1;
        }
        for pos in best.begin..best.end {
            freqs[self.dmer_hash(pos as usize)] = 0;
        }
        best
    }

    /// Fills `dict` from its end with the selected segments; returns where the content
    /// starts.
    ///
    /// Mirrors FASTCOVER_buildDictionary.
    fn build_dictionary(&self, freqs: &mut Table<u32>, dict: &mut [u8], k: u32) -> usize {
        let mut segment_freqs = table::<u16>();
        let mut tail = dict.len();
        let (epoch_num, epoch_size) = compute_epochs(dict.len() as u32, self.nb_dmers as u32, k);
        let mut zero_score_run = 0;
        let mut epoch = 0u32;
        while tail > 0 {
            let begin = epoch.wrapping_mul(epoch_size);
            let end = begin.wrapping_add(epoch_size);
            epoch = (epoch + 1) % epoch_num;
            let segment = self.select_segment(freqs, begin, end, k, &mut segment_freqs);
            if segment.score == 0 {
                zero_score_run += 1;
                if zero_score_run >= MAX_ZERO_SCORE_RUN {
                    break;
                }
                continue;
            }
            zero_score_run = 0;
            let size = ((segment.end - segment.begin) as usize + D - 1).min(tail);
            if size < D {
                break;
            }
            tail -= size;
            let from = segment.begin as usize;
            dict[tail..tail + size].copy_from_slice(&self.samples.flat[from..from + size]);
        }
        tail
    }
}

/// [`Context::select_segment`] over the dmer hashes of the epoch, computed beforehand
/// (`hashes`, the first one at dmer position `begin`): the window's first and last dmers
/// come from the same slice, so no step needs a bounds check. The same choice. (The
/// hashing form stays for learning parts past [`MAX_HASHED_DMERS`], whose hashes are not
/// kept: an epoch can be all of them.)
fn select_hashed(
    hashes: &[u32],
    begin: u32,
    freqs: &mut Table<u32>,
    k: u32,
    segment_freqs: &mut Table<u16>,
) -> Segment {
    let slot = |h: u32| h as usize & (TABLE_LEN - 1);
    // The window holds at most this many dmers; each step past it drops its first.
    let width = ((k as usize) - D + 1).min(hashes.len());
    let (mut best_begin, mut best_end, mut best_score) = (0usize, 0usize, 0u32);
    let mut score = 0u32;
    // Filling the window: no dmer leaves it.
    for (i, &h) in hashes[..width].iter().enumerate() {
        let idx = slot(h);
        if segment_freqs[idx] == 0 {
            score = score.wrapping_add(freqs[idx]);
        }
        segment_freqs[idx] = segment_freqs[idx].wrapping_add(1);
        if score > best_score {
            (best_begin, best_end, best_score) = (0, i + 1, score);
        }
    }
    // Sliding: dmer `width + j` enters as dmer `j` leaves.
    for (j, (&h, &gone)) in hashes[width..].iter().zip(hashes).enumerate() {
        let idx = slot(h);
        if segment_freqs[idx] == 0 {
            score = score.wrapping_add(freqs[idx]);
        }
        segment_freqs[idx] = segment_freqs[idx].wrapping_add(1);
        let del = slot(gone);
        segment_freqs[del] = segment_freqs[del].wrapping_sub(1);
        if segment_freqs[del] == 0 {
            score = score.wrapping_sub(freqs[del]);
        }
        if score > best_score {
            (best_begin, best_end, best_score) = (j + 1, width + j + 1, score);
        }
    }
    // Empty the window's counts again.
    for &h in &hashes[hashes.len() - width..] {
        let idx = slot(h);
        segment_freqs[idx] = segment_freqs[idx].wrapping_sub(1);
    }
    for &h in &hashes[best_begin..best_end] {
        freqs[slot(h)] = 0;
    }
    Segment {
        begin: begin + best_begin as u32,
        end: begin + best_end as u32,
        score: best_score,
    }
}

/// Epoch count and size for a dictionary of `max_dict_size` bytes: one segment of `k` per
/// epoch, epochs at least `10 k` dmers long.
///
/// Mirrors COVER_computeEpochs (one pass).
fn compute_epochs(max_dict_size: u32, nb_dmers: u32, k: u32) -> (u32, u32) {
    let min_epoch_size = k * 10;
    let num = (max_dict_size / k).max(1);
    let size = nb_dmers / num;
    if size >= min_epoch_size {
        return (num, size);
    }
    let size = min_epoch_size.min(nb_dmers);
    (nb_dmers / size, size)
}

/// Mirrors ZDICT_trainFromBuffer (ZDICT_optimizeTrainFromBuffer_fastCover with d = 8,
/// steps = 4, one thread): the candidate with the smallest measured total wins, the first
/// one on a tie. The candidates run on up to as many threads as the machine has cores; the
/// result does not depend on it.
pub(super) fn train(samples: &Samples, capacity: usize) -> Result<Vec<u8>, ZstdError> {
    if samples.len() == 0 {
        return Err(cannot_train("no samples were given".to_string()));
    }
    if capacity < super::MIN_DICTIONARY_SIZE {
        return Err(cannot_train(format!(
            "a dictionary needs at least {} bytes, {capacity} were allowed",
            super::MIN_DICTIONARY_SIZE
        )));
    }
    if capacity > u32::MAX as usize {
        return Err(cannot_train(format!(
            "a dictionary of {capacity} bytes was asked for; libzstd's builder counts in 32 bits"
        )));
    }
    let ctx = Context::new(samples)?;
    let step = ((K_MAX - K_MIN) / STEPS).max(1);
    // FASTCOVER_checkParameters: k within the capacity (d <= k holds).
    let ks: Vec<u32> = (K_MIN..=K_MAX)
        .step_by(step as usize)
        .filter(|&k| k as usize <= capacity)
        .collect();
    // The candidates are independent: they are tried on several threads, and their
    // results compared in k order afterwards, so the choice is the sequential one.
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(ks.len())
        .max(1);
    let mut results: Vec<Option<Candidate>> = (0..ks.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let ctx = &ctx;
        let ks = &ks;
        for (t, chunk) in results.chunks_mut(ks.len().div_ceil(threads)).enumerate() {
            let first = t * ks.len().div_ceil(threads);
            scope.spawn(move || {
                for (i, slot) in chunk.iter_mut().enumerate() {
                    *slot = Some(try_k(ctx, capacity, ks[first + i]));
                }
            });
        }
    });
    let mut best: Option<(usize, Vec<u8>)> = None;
    let mut last_error = None;
    for result in results.into_iter().flatten() {
        match result {
            Ok((measured, dict)) => {
                if best.as_ref().is_none_or(|(b, _)| measured < *b) {
                    best = Some((measured, dict));
                }
            }
            Err(e) => last_error = Some(e),
        }
    }
    match (best, last_error) {
        (Some((_, dict)), _) => Ok(dict),
        (None, Some(e)) => Err(e),
        (None, None) => Err(cannot_train(format!(
            "no segment size from {K_MIN} to {K_MAX} fits in {capacity} bytes"
        ))),
    }
}

/// A candidate dictionary and its measured total (its size and the held-out samples'
/// compressed sizes), or why it failed.
type Candidate = Result<(usize, Vec<u8>), ZstdError>;

/// One candidate: content selected with segments of `k`, finalized on the learning
/// samples, measured as its own size plus the held-out samples compressed with it.
///
/// Mirrors FASTCOVER_tryParameters + COVER_selectDict (no shrinking) +
/// COVER_checkTotalCompressedSize.
fn try_k(ctx: &Context<'_>, capacity: usize, k: u32) -> Candidate {
    let mut freqs = ctx.freqs.clone();
    let mut buf = vec![0u8; capacity];
    let tail = ctx.build_dictionary(&mut freqs, &mut buf, k);
    let dict = finalize(&buf[tail..], ctx.samples, ctx.nb_train, capacity, LEVEL, 0)?;
    let prepared = EncoderDictionary::new(&dict, LEVEL)?;
    let mut cctx = Compressor::new(LEVEL)?;
    let mut out = Vec::new();
    let mut total = dict.len();
    for i in ctx.nb_train..ctx.samples.len() {
        out.clear();
        total += cctx.compress_prepared_into(ctx.samples.get(i), &prepared, &mut out)?;
    }
    Ok((total, dict))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search over precomputed hashes (every learning part up to 2^25 dmers) and the
    /// one hashing as it goes (larger ones) choose the same segments and leave the same
    /// counts, for window widths below, at and above an epoch's length.
    #[test]
    fn hashed_and_hashing_selections_agree() {
        let mut x = 7u32;
        let samples: Vec<Vec<u8>> = (0..40)
            .map(|i| {
                (0..300 + i * 37)
                    .map(|_| {
                        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        b"abcdefgh  .,"[(x >> 16) as usize % 12]
                    })
                    .collect()
            })
            .collect();
        let samples = Samples::new(&samples);
        let hashed = Context::new(&samples).expect("trainable");
        let hashing = Context {
            hashes: Vec::new(),
            freqs: hashed.freqs.clone(),
            ..Context::new(&samples).expect("trainable")
        };
        assert!(!hashed.hashes.is_empty());
        for k in [16u32, 50, 537, 2000, 9000] {
            let (mut fa, mut fb) = (hashed.freqs.clone(), hashing.freqs.clone());
            let (mut sa, mut sb) = (table::<u16>(), table::<u16>());
            let n = hashed.nb_dmers as u32;
            for (begin, end) in [(0, n / 3), (n / 3, n / 3 + 700), (n - 40, n), (5, 5)] {
                let a = hashed.select_segment(&mut fa, begin, end, k, &mut sa);
                let b = hashing.select_segment(&mut fb, begin, end, k, &mut sb);
                assert_eq!(a.score, b.score, "k {k} epoch {begin}..{end}");
                if a.score > 0 {
                    assert_eq!((a.begin, a.end), (b.begin, b.end), "k {k} {begin}..{end}");
                }
                assert!(fa[..] == fb[..], "counts after k {k} {begin}..{end}");
                assert!(sa.iter().all(|&c| c == 0) && sb.iter().all(|&c| c == 0));
            }
        }
    }
}
