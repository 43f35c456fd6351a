//! Compression throughput of one-shot frames at levels 1, 2, 3, 6, 9, 12 and 19 (each once
//! our encoder implements it) over the suite's payloads.
//!
//! `cargo bench -p zarkit-benches --bench compress` — our encoder only;
//! `ZARKIT_BENCH_NATIVE=1 cargo bench ...` adds native libzstd 1.5.7 rows beside it (the
//! interleaved ratio report is `cargo run --release -p zarkit-benches --bin versus`).
//! Frame sizes are printed at setup and checked against the goldens in `corpus/`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use zarkit::zstd::Compressor;
use zarkit_benches::{oracle, rows};
use zarkit_corpus::payload;

/// The suite's levels, plus level 2 (issue 3's row).
const LEVELS: &[i32] = &[1, 2, 3, 6, 9, 12, 19];

fn compress(c: &mut Criterion) {
    oracle::assert_version();
    let native = std::env::var_os("ZARKIT_BENCH_NATIVE").is_some();
    let goldens = zarkit_corpus::load_goldens().expect("goldens");
    for &level in LEVELS {
        let mut group = c.benchmark_group(format!("compress_L{level}"));
        for &name in rows::PAYLOADS {
            let src = payload(name).expect("bench payload").bytes();
            group.throughput(Throughput::Bytes(src.len() as u64));
            let mut out = Vec::with_capacity(src.len() + 1024);
            match Compressor::new(level)
                .and_then(|mut c| c.compress_into(&src, &mut out).map(|_| c))
            {
                Ok(mut ours) => {
                    let golden = goldens
                        .iter()
                        .find(|g| g.payload == name && g.level == level);
                    println!(
                        "setup: {name} L{level}: frame {} bytes ({:.1} %)",
                        out.len(),
                        out.len() as f64 * 100.0 / src.len() as f64
                    );
                    if let Some(g) = golden {
                        assert!(
                            g.frame_size == out.len() && g.xxh64 == zarkit_corpus::frame_hash(&out),
                            "{name} L{level}: frame differs from the golden ({} bytes vs {})",
                            out.len(),
                            g.frame_size
                        );
                    }
                    group.bench_with_input(BenchmarkId::new("zarkit", name), &src, |b, src| {
                        b.iter(|| {
                            out.clear();
                            ours.compress_into(black_box(src), &mut out).unwrap()
                        })
                    });
                }
                Err(e) => println!("setup: {name} L{level}: pending ({e})"),
            }
            if native {
                let mut buf = Vec::with_capacity(oracle::compress_bound(src.len()));
                group.bench_with_input(BenchmarkId::new("libzstd", name), &src, |b, src| {
                    b.iter(|| {
                        buf.clear();
                        oracle::compress_into(black_box(src), level, &mut buf)
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = compress
}
criterion_main!(benches);
