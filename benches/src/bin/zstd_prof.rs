//! Profiling loop: compresses one corpus payload at one level many times, with our encoder
//! or the native oracle, for `perf record` / `perf stat`.
//!
//! `cargo run --release -p zarkit-benches --bin zstd_prof -- <payload> <level> [iterations] [native]`

use std::time::Instant;

use zarkit::zstd::Compressor;
use zarkit_benches::oracle;
use zarkit_corpus::payload;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("text64k", String::as_str);
    let level: i32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(6);
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let native = args.get(4).is_some_and(|s| s == "native");
    let src = payload(name).expect("known payload").bytes();
    let mut out = Vec::with_capacity(src.len() + 1024);
    let mut ours = Compressor::new(level).expect("implemented level");
    let start = Instant::now();
    let mut size = 0;
    for _ in 0..iterations {
        out.clear();
        size = if native {
            oracle::compress_into(&src, level, &mut out)
        } else {
            ours.compress_into(&src, &mut out).expect("compresses")
        };
    }
    let secs = start.elapsed().as_secs_f64();
    let mib = (src.len() * iterations) as f64 / secs / (1024.0 * 1024.0);
    println!(
        "{name} L{level} {}: {size} bytes, {mib:.1} MiB/s",
        if native { "libzstd" } else { "zarkit" }
    );
}
