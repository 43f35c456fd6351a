//! Byte and code histograms (`hist.c`).

/// Counts the symbols of `src` into `count[..=255]`.
/// Returns `(largest count, highest present symbol)`; an empty input gives `(0, 0)`.
///
/// Mirrors HIST_count_simple (HIST_count_wksp and HIST_countFast give the same results).
pub(crate) fn count(count: &mut [u32], src: &[u8]) -> (u32, u32) {
    count.fill(0);
    if src.len() >= 4096 {
        // Four interleaved tables keep the dependency chains short.
        let mut tables = [[0u32; 256]; 4];
        let chunks = src.chunks_exact(4);
        let rest = chunks.remainder();
        for c in chunks {
            tables[0][c[0] as usize] += 1;
            tables[1][c[1] as usize] += 1;
            tables[2][c[2] as usize] += 1;
            tables[3][c[3] as usize] += 1;
        }
        for &b in rest {
            tables[0][b as usize] += 1;
        }
        for s in 0..256.min(count.len()) {
            count[s] = tables[0][s] + tables[1][s] + tables[2][s] + tables[3][s];
        }
    } else {
        for &b in src {
            count[b as usize] += 1;
        }
    }
    summarize(count)
}

/// `(largest count, highest symbol with a non-zero count)` of a histogram.
pub(crate) fn summarize(count: &[u32]) -> (u32, u32) {
    let max_symbol = count.iter().rposition(|&c| c != 0).unwrap_or(0);
    let largest = count[..=max_symbol].iter().copied().max().unwrap_or(0);
    (largest, max_symbol as u32)
}

/// Mirrors HIST_add: adds the bytes of `src` to `count` without clearing it.
pub(crate) fn add(count: &mut [u32; 256], src: &[u8]) {
    for &b in src {
        count[b as usize] += 1;
    }
}
