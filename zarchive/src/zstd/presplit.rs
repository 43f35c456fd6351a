//! Pre-block splitting of full 128 KiB blocks (`zstd_preSplit.c`), new in libzstd 1.5.7.
//! Only the `fast` variant ("fromBorders") is implemented.

use super::hist;

/// Bytes sampled at each border (`SEGMENT_SIZE`).
const SEGMENT_SIZE: usize = 512;
/// Fingerprints differ when their distance reaches `(BASE + penalty) / RATE` of the product.
const THRESHOLD_PENALTY_RATE: u64 = 16;
const THRESHOLD_BASE: u64 = THRESHOLD_PENALTY_RATE - 2;

/// Mirrors fpDistance for byte histograms of `n1` and `n2` events.
fn distance(a: &[u32; 256], n1: u64, b: &[u32; 256], n2: u64) -> u64 {
    a.iter().zip(b).map(|(&x, &y)| (x as i64 * n2 as i64 - y as i64 * n1 as i64).unsigned_abs()).sum()
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
    hist::add(&mut middle, &block[size / 2 - SEGMENT_SIZE / 2..size / 2 + SEGMENT_SIZE / 2]);
    let from_begin = distance(&begin, n, &middle, n);
    let from_end = distance(&end, n, &middle, n);
    let min_distance = (SEGMENT_SIZE * SEGMENT_SIZE / 3) as u64;
    if from_begin.abs_diff(from_end) < min_distance {
        return 64 * 1024;
    }
    if from_begin > from_end { 32 * 1024 } else { 96 * 1024 }
}
