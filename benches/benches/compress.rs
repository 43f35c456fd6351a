//! Compression throughput: our encoder and the native libzstd 1.5.7 in the same run.
//!
//! `cargo bench -p zarkit-benches --bench compress`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use zarkit::zstd::Compressor;
use zarkit_benches::oracle;
use zarkit_corpus::payload;

const PAYLOADS: &[&str] = &["text64k", "hetero64k", "random64k", "binary64k", "text200k"];
const LEVELS: &[i32] = &[1, 2, 3, 6, 9];

fn compress(c: &mut Criterion) {
    oracle::assert_version();
    for &level in LEVELS {
        let mut group = c.benchmark_group(format!("compress_L{level}"));
        for &name in PAYLOADS {
            let src = payload(name).expect("bench payload").bytes();
            group.throughput(Throughput::Bytes(src.len() as u64));
            let mut ours = Compressor::new(level).expect("level implemented");
            let mut out = Vec::with_capacity(src.len() + 1024);
            if ours.compress_into(&src, &mut out).is_ok() {
                group.bench_with_input(BenchmarkId::new("zarkit", name), &src, |b, src| {
                    b.iter(|| {
                        out.clear();
                        ours.compress_into(black_box(src), &mut out).unwrap()
                    })
                });
            }
            let mut native = Vec::with_capacity(oracle::compress_bound(src.len()));
            group.bench_with_input(BenchmarkId::new("libzstd", name), &src, |b, src| {
                b.iter(|| {
                    native.clear();
                    oracle::compress_into(black_box(src), level, &mut native)
                })
            });
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
