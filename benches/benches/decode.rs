//! Decode throughput of the frames the compress class makes (oracle frames, so every level
//! is covered whether or not our encoder implements it yet).
//!
//! `cargo bench -p zarkit-benches --bench decode` — our decoder facade only;
//! `ZARKIT_BENCH_NATIVE=1 cargo bench ...` adds native libzstd rows beside it.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use zarkit::zstd::Decoder;
use zarkit_benches::{oracle, rows};
use zarkit_corpus::payload;

fn decode(c: &mut Criterion) {
    oracle::assert_version();
    let native = std::env::var_os("ZARKIT_BENCH_NATIVE").is_some();
    for &level in rows::LEVELS {
        let mut group = c.benchmark_group(format!("decode_L{level}"));
        for &name in rows::PAYLOADS {
            let src = payload(name).expect("payload").bytes();
            let frame = oracle::compress(&src, level);
            println!(
                "setup: {name} L{level}: oracle frame {} bytes ({:.1} %)",
                frame.len(),
                frame.len() as f64 * 100.0 / src.len() as f64
            );
            group.throughput(Throughput::Bytes(src.len() as u64));
            let mut dec = Decoder::new();
            let mut buf = vec![0u8; src.len()];
            group.bench_with_input(BenchmarkId::new("zarkit", name), &frame, |b, f| {
                b.iter(|| dec.decompress_exact(black_box(f), &mut buf).unwrap())
            });
            if native {
                group.bench_with_input(BenchmarkId::new("libzstd", name), &frame, |b, f| {
                    b.iter(|| oracle::decompress(black_box(f), src.len()).unwrap())
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = decode
}
criterion_main!(benches);
