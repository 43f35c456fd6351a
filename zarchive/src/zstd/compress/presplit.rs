//! Pre-block splitting of full 128 KiB blocks (`zstd_preSplit.c`), new in libzstd 1.5.7.
//! `fast` uses "fromBorders"; the other strategies use "byChunks" at a level by strategy.

use super::hist;

/// Bytes sampled at each border (`SEGMENT_SIZE`).
const SEGMENT_SIZE: usize = 512;
/// Fingerprints differ when their distance reaches `(BASE + penalty) / RATE` of the product.
const THRESHOLD_PENALTY_RATE: u64 = 16;
const THRESHOLD_BASE: u64 = THRESHOLD_PENALTY_RATE - 2;

/// Mirrors fpDistance for byte histograms of `n1` and `n2` events.
fn distance(a: &[u32; 256], n1: u64, b: &[u32; 256], n2: u64) -> u64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (x as i64 * n2 as i64 - y as i64 * n1 as i64).unsigned_abs())
        .sum()
}

/// Mirrors ZSTD_splitBlock_fromBorders: returns the size of the first block to emit out
/// of the full block `block` (128 KiB, 96 KiB, 64 KiB or 32 KiB).
pub(crate) fn split_from_borders(block: &[u8]) -> usize {
    let size = block.len();
    let mut begin = [0u32; 256];
    let mut end = [0u32; 256];
    hist::add(&mut begin, &block[..SEGMENT_SIZE]);
    hist::add(&mut end, &block[size - SEGMENT_SIZE..]);
    let n = SEGMENT_SIZE as u64;
    // compareFingerprints with penalty 0.
    let threshold = n * n * THRESHOLD_BASE / THRESHOLD_PENALTY_RATE;
    if distance(&begin, n, &end, n) < threshold {
        return size;
    }
    let mut middle = [0u32; 256];
    hist::add(
        &mut middle,
        &block[size / 2 - SEGMENT_SIZE / 2..size / 2 + SEGMENT_SIZE / 2],
    );
    let from_begin = distance(&begin, n, &middle, n);
    let from_end = distance(&end, n, &middle, n);
    let min_distance = (SEGMENT_SIZE * SEGMENT_SIZE / 3) as u64;
    if from_begin.abs_diff(from_end) < min_distance {
        return 64 * 1024;
    }
    if from_begin > from_end {
        32 * 1024
    } else {
        96 * 1024
    }
}

/// Fingerprints of 8 KiB chunks are compared (`CHUNKSIZE`).
const CHUNK_SIZE: usize = 8 << 10;
/// Starting penalty of the chunk comparison (`THRESHOLD_PENALTY`).
const THRESHOLD_PENALTY: u64 = 3;
/// Hashes read two bytes (`HASHLENGTH`).
const HASH_LENGTH: usize = 2;
/// Multiplier of the 2-byte hash (`KNUTH`).
const KNUTH: u32 = 0x9e37_79b9;
/// Fingerprint table size (`HASHTABLESIZE`).
const FP_TABLE_SIZE: usize = 1 << 10;
/// Sampling rate and hash log per byChunks level (`records_fs`, `hashParams`).
const CHUNK_RATES: [usize; 4] = [43, 11, 5, 1];
const CHUNK_HASH_LOGS: [u32; 4] = [8, 9, 10, 10];

struct Fingerprint {
    events: [u32; FP_TABLE_SIZE],
    nb_events: u64,
}

/// Mirrors hash2.
fn hash2(p: &[u8], hash_log: u32) -> usize {
    if hash_log == 8 {
        return p[0] as usize;
    }
    (u16::from_le_bytes([p[0], p[1]]) as u32).wrapping_mul(KNUTH) as usize >> (32 - hash_log)
}

/// Mirrors recordFingerprint_generic.
fn record(fp: &mut Fingerprint, chunk: &[u8], rate: usize, hash_log: u32) {
    fp.events[..1 << hash_log].fill(0);
    let limit = chunk.len() - HASH_LENGTH + 1;
    for n in (0..limit).step_by(rate) {
        fp.events[hash2(&chunk[n..], hash_log)] += 1;
    }
    fp.nb_events = (limit / rate) as u64;
}

/// Mirrors fpDistance.
fn fp_distance(a: &Fingerprint, b: &Fingerprint, hash_log: u32) -> u64 {
    (0..1usize << hash_log)
        .map(|n| {
            (a.events[n] as i64 * b.nb_events as i64 - b.events[n] as i64 * a.nb_events as i64)
                .unsigned_abs()
        })
        .sum()
}

/// Mirrors ZSTD_splitBlock_byChunks (`level` 0..=3): the first chunk boundary where the
/// data stops looking like what came before, or the whole block.
pub(crate) fn split_by_chunks(block: &[u8], level: usize) -> usize {
    let (rate, hash_log) = (CHUNK_RATES[level], CHUNK_HASH_LOGS[level]);
    let mut past = Fingerprint {
        events: [0; FP_TABLE_SIZE],
        nb_events: 0,
    };
    let mut new = Fingerprint {
        events: [0; FP_TABLE_SIZE],
        nb_events: 0,
    };
    let mut penalty = THRESHOLD_PENALTY;
    record(&mut past, &block[..CHUNK_SIZE], rate, hash_log);
    let mut pos = CHUNK_SIZE;
    while pos <= block.len() - CHUNK_SIZE {
        record(&mut new, &block[pos..pos + CHUNK_SIZE], rate, hash_log);
        let p50 = past.nb_events * new.nb_events;
        let threshold = p50 * (THRESHOLD_BASE + penalty) / THRESHOLD_PENALTY_RATE;
        if fp_distance(&past, &new, hash_log) >= threshold {
            return pos;
        }
        for (a, b) in past.events.iter_mut().zip(&new.events) {
            *a += b;
        }
        past.nb_events += new.nb_events;
        penalty = penalty.saturating_sub(1);
        pos += CHUNK_SIZE;
    }
    block.len()
}
