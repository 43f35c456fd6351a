//! Interleaved measurement of our code against the native oracle in one process.
//!
//! On a noisy two-core machine absolute times wander; what holds still is the ratio between
//! two pieces of code measured turn about, moments apart. Each round times a batch of ours,
//! then a batch of theirs, and gives one ratio; the median over the rounds is the figure.

use std::time::{Duration, Instant};

/// The outcome of [`interleaved`].
#[derive(Debug, Clone, Copy)]
pub struct Ratio {
    /// Median over rounds of (native time / our time): above 1 means we are faster.
    pub ratio: f64,
    /// Median time of one call of ours, in nanoseconds.
    pub ours_ns: f64,
    /// Median time of one native call, in nanoseconds.
    pub native_ns: f64,
    /// Rounds measured.
    pub rounds: usize,
}

fn time_batch(iters: u64, f: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    t.elapsed()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Measure `ours` against `native` for about `budget`, in `rounds` alternating batches.
pub fn interleaved(
    ours: &mut dyn FnMut(),
    native: &mut dyn FnMut(),
    budget: Duration,
    rounds: usize,
) -> Ratio {
    let rounds = rounds.max(3);
    // Warm up both and calibrate the batch so one side takes about budget / (2 * rounds).
    let target = budget.as_secs_f64() / (2.0 * rounds as f64);
    let once = time_batch(1, ours)
        .max(time_batch(1, native))
        .as_secs_f64()
        .max(1e-7);
    let mut iters = ((target / once) as u64).max(1);
    // Refine with a bigger sample, as the first call pays for cold caches.
    let sample = time_batch(iters, native).as_secs_f64().max(1e-7);
    iters = ((target / (sample / iters as f64)) as u64).max(1);
    let (mut ratios, mut o, mut n) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        // Alternate which side goes first, so neither always inherits the other's caches.
        let (to, tn) = if r % 2 == 0 {
            let to = time_batch(iters, ours);
            (to, time_batch(iters, native))
        } else {
            let tn = time_batch(iters, native);
            (time_batch(iters, ours), tn)
        };
        let (to, tn) = (to.as_secs_f64(), tn.as_secs_f64());
        ratios.push(tn / to.max(1e-12));
        o.push(to * 1e9 / iters as f64);
        n.push(tn * 1e9 / iters as f64);
    }
    Ratio {
        ratio: median(&mut ratios),
        ours_ns: median(&mut o),
        native_ns: median(&mut n),
        rounds,
    }
}

/// Puts the allocator in the state a long-running process reaches, before any row runs.
///
/// glibc serves a large allocation from a fresh mapping (zeroed for free, touched lazily,
/// unmapped on free) until the first such block is freed; it then raises its mmap
/// threshold to that block's size and serves the next ones from the heap (reused, so a
/// zeroed one is memset). Which regime a row met depended on the rows before it: the
/// one-shot rows on both sides (`ZSTD_compress` makes its context per call) and the pack
/// rows moved by 10-60 % with it. Freeing one 16 MiB block first puts every row in the
/// heap regime, the one any process that has freed a large buffer is in.
pub fn settle_allocator() {
    let block = std::hint::black_box(vec![0u8; 16 << 20]);
    drop(block);
}

/// The value after `flag` on a bench binary's command line, if it was given one.
pub fn flag_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == flag)?;
    args.get(i + 1).map(String::as_str)
}

/// The measuring budget a bench binary was given with `--budget-ms N`, or `default_ms`.
pub fn budget_arg(args: &[String], default_ms: u64) -> Duration {
    let ms = flag_value(args, "--budget-ms")
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_ms);
    Duration::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[test]
    fn identical_work_measures_near_one_and_double_work_near_half() {
        let work = |n: u64| {
            let mut x = 0u64;
            for i in 0..n {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
            }
            x
        };
        let same = interleaved(
            &mut || {
                black_box(work(20_000));
            },
            &mut || {
                black_box(work(20_000));
            },
            Duration::from_millis(150),
            9,
        );
        assert!((0.7..1.4).contains(&same.ratio), "{same:?}");
        let slow = interleaved(
            &mut || {
                black_box(work(40_000));
            },
            &mut || {
                black_box(work(20_000));
            },
            Duration::from_millis(150),
            9,
        );
        assert!((0.3..0.75).contains(&slow.ratio), "{slow:?}");
    }
}
