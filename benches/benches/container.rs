//! Container throughput: pack and extract a 4 x 64 KiB tree and a 64 MiB generated tree
//! with one thread and all cores, and open + random 4 KiB reads in a 64 MiB archive.
//! Packing uses the reference level 6 once our encoder implements it, else the highest
//! implemented level below it (the row names say which).
//!
//! `cargo bench -p zarkit-benches --bench container`;
//! `ZARKIT_BENCH_NATIVE=1` adds the same container driven by native libzstd blocks.

use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use zarkit::zar::{
    Archive, BlockCompressor, ExtractOptions, PackOptions, WriterOptions, Zstd, extract, pack_dir,
    pack_dir_to,
};
use zarkit_benches::native::NativeZstd;
use zarkit_benches::{oracle, trees};

fn pack_level() -> i32 {
    (1..=6)
        .rev()
        .find(|&l| zarkit::zstd::is_level_supported(l))
        .expect("some level is implemented")
}

fn opts(c: Arc<dyn BlockCompressor>, threads: usize) -> PackOptions {
    PackOptions::new()
        .writer(WriterOptions::new().compressor(c).threads(threads))
        .overwrite(true)
}

fn container(c: &mut Criterion) {
    oracle::assert_version();
    let native = std::env::var_os("ZARKIT_BENCH_NATIVE").is_some();
    let level = pack_level();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let dir = tempfile::tempdir().expect("temp");
    let small = dir.path().join("small");
    let small_bytes = trees::small_tree(&small).expect("small tree");
    let big = dir.path().join("big");
    let big_bytes = trees::big_tree(&big, 64 << 20).expect("big tree");

    for (label, tree, bytes) in [
        ("small4x64k", &small, small_bytes),
        ("tree64m", &big, big_bytes),
    ] {
        let mut group = c.benchmark_group(format!("pack_{label}_L{level}"));
        group.throughput(Throughput::Bytes(bytes));
        if label == "tree64m" {
            group.sample_size(10);
        }
        let mut codecs: Vec<(&str, Arc<dyn BlockCompressor>)> =
            vec![("zarkit", Arc::new(Zstd::new(level).expect("level")))];
        if native {
            codecs.push(("libzstd", Arc::new(NativeZstd { level })));
        }
        for (who, codec) in codecs {
            for threads in [1, cores] {
                let o = opts(codec.clone(), threads);
                group.bench_function(BenchmarkId::new(format!("{who}/j{threads}"), label), |b| {
                    b.iter(|| {
                        black_box(
                            pack_dir_to(
                                tree,
                                Vec::with_capacity(bytes as usize),
                                &o,
                                &[],
                                &mut |_| {},
                            )
                            .unwrap()
                            .0
                            .len(),
                        )
                    })
                });
            }
        }
        group.finish();

        let archive = dir.path().join(format!("{label}.zar"));
        let summary = pack_dir(
            tree,
            &archive,
            &opts(Arc::new(Zstd::new(level).unwrap()), cores),
            &mut |_| {},
        )
        .unwrap();
        println!(
            "setup: {label} L{level}: {} bytes -> {} bytes archive",
            bytes, summary.archive.archive_size
        );
        let mut group = c.benchmark_group(format!("extract_{label}_L{level}"));
        group.throughput(Throughput::Bytes(bytes));
        if label == "tree64m" {
            group.sample_size(10);
        }
        let a = Archive::open(&archive).unwrap();
        let dest = dir.path().join(format!("out-{label}"));
        for threads in [1, cores] {
            let xo = ExtractOptions::new()
                .overwrite(true)
                .threads(threads)
                .verify(false);
            group.bench_function(format!("zarkit/j{threads}"), |b| {
                b.iter(|| extract(&a, &dest, &xo, &mut |_| {}).unwrap())
            });
        }
        group.finish();

        if label == "tree64m" {
            random_reads(c, &archive);
        }
    }
}

/// Open the archive, then read 4 KiB at pseudo-random places of pseudo-random files.
fn random_reads(c: &mut Criterion, archive: &Path) {
    let mut group = c.benchmark_group("random_reads_tree64m");
    group.bench_function("open", |b| {
        b.iter(|| black_box(Archive::open(archive).unwrap().file_count()))
    });
    let a = Archive::open(archive).unwrap();
    let files: Vec<_> = a
        .walk()
        .filter(|e| e.size() >= 4096)
        .map(|e| e.id())
        .collect();
    let mut rng = zarkit_corpus::SplitMix64::new(42);
    let mut buf = vec![0u8; 4096];
    group.throughput(Throughput::Bytes(4096));
    group.bench_function("read_4k", |b| {
        b.iter(|| {
            let e = a
                .entry(files[rng.below(files.len() as u64) as usize])
                .expect("an id of this archive");
            let at = rng.below(e.size() - 4095);
            e.read_at(at, &mut buf).unwrap();
        })
    });
    group.bench_function("open_and_read_4k_x16", |b| {
        b.iter(|| {
            let a = Archive::open(archive).unwrap();
            for _ in 0..16 {
                let e = a
                    .entry(files[rng.below(files.len() as u64) as usize])
                    .expect("an id of this archive");
                let mut r = e.open().unwrap();
                std::io::Seek::seek(&mut r, std::io::SeekFrom::Start(rng.below(e.size() - 4095)))
                    .unwrap();
                r.read_exact(&mut buf).unwrap();
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(15).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(3));
    targets = container
}
criterion_main!(benches);
