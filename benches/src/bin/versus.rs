//! The versus-native report: every row of the suite measured interleaved against native
//! libzstd 1.5.7 in this one process, printed as Markdown tables for BASELINE.md.
//!
//! `cargo run --release -p zarkit-benches --bin versus [-- --budget-ms N] [--classes compress,decode,container]`

use std::time::Duration;

use zarkit_benches::measure::{Ratio, budget_arg, flag_value, interleaved};
use zarkit_benches::rows::{self, Row};
use zarkit_benches::{oracle, trees};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let budget = budget_arg(&args, 1000);
    let classes = flag_value(&args, "--classes").unwrap_or("compress,decode,container");
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();
    println!(
        "libzstd {} (zstd-sys =2.1.3), {} cores, budget {} ms per row\n",
        oracle::version_number(),
        cores(),
        budget.as_millis()
    );

    if classes.contains("compress") {
        println!("### Compress (one-shot frames)\n");
        println!("| row | frame bytes (ratio) | ours µs | ours MB/s | native µs | × native |");
        println!("|---|---|---|---|---|---|");
        for &level in rows::LEVELS {
            for &name in rows::PAYLOADS {
                let src = zarkit_corpus::payload(name).unwrap().bytes();
                match rows::compress_row(name, level) {
                    Some(mut row) => {
                        let frame = zarkit::zstd::compress(&src, level).unwrap();
                        let size = format!(
                            "{} ({:.1} %)",
                            frame.len(),
                            frame.len() as f64 * 100.0 / src.len().max(1) as f64
                        );
                        report(&mut row, &size, budget);
                    }
                    None => println!(
                        "| compress/L{level}/{name} | {} (oracle) | pending | | | |",
                        oracle::compress(&src, level).len()
                    ),
                }
            }
        }
        println!();
    }
    if classes.contains("decode") {
        println!("### Decode (the oracle's frames)\n");
        println!("| row | frame bytes (ratio) | ours µs | ours MB/s | native µs | × native |");
        println!("|---|---|---|---|---|---|");
        for &level in rows::LEVELS {
            for &name in rows::PAYLOADS {
                let src = zarkit_corpus::payload(name).unwrap().bytes();
                let f = oracle::compress(&src, level).len();
                let size = format!("{f} ({:.1} %)", f as f64 * 100.0 / src.len() as f64);
                report(&mut rows::decode_row(name, level), &size, budget);
            }
        }
        println!();
    }
    if classes.contains("container") {
        println!(
            "### Container (pack into memory; our codec vs native libzstd blocks, same container)\n"
        );
        println!("| row | archive bytes (ratio) | ours µs | ours MB/s | native µs | × native |");
        println!("|---|---|---|---|---|---|");
        let dir = tempfile::tempdir().unwrap();
        let small = dir.path().join("small");
        let sb = trees::small_tree(&small).unwrap();
        let big = dir.path().join("big");
        let bb = trees::big_tree(&big, 64 << 20).unwrap();
        // Issue 14's measure of packing across cores: ours on every core against native
        // on one thread (both from the rows above, so each side's time is its own run's).
        let mut scaling = Vec::new();
        for level in [1, 3, 6] {
            for (label, tree, bytes) in [("small4x64k", &small, sb), ("tree64m", &big, bb)] {
                let mut native_j1 = None;
                for threads in [1, cores()] {
                    match rows::pack_row(label, tree, bytes, level, threads) {
                        Some(mut row) => {
                            let opts = zarkit::zar::PackOptions::new().writer(
                                zarkit::zar::WriterOptions::new()
                                    .compressor(std::sync::Arc::new(
                                        zarkit::zar::Zstd::new(level).unwrap(),
                                    ))
                                    .threads(threads),
                            );
                            let n =
                                zarkit::zar::pack_dir_to(tree, Vec::new(), &opts, &[], &mut |_| {})
                                    .unwrap()
                                    .0
                                    .len();
                            let size = format!("{n} ({:.1} %)", n as f64 * 100.0 / bytes as f64);
                            let b = if label == "tree64m" {
                                budget * 8
                            } else {
                                budget
                            };
                            let r = report(&mut row, &size, b);
                            if threads == 1 {
                                native_j1 = Some((r.native_ns, r.ours_ns));
                            } else if let Some((native, ours_j1)) = native_j1 {
                                scaling.push(format!(
                                    "| pack/{label}/L{level} | {:.1} | {:.1} | {:.2} | {:.2} |",
                                    native / 1e3,
                                    r.ours_ns / 1e3,
                                    native / r.ours_ns,
                                    ours_j1 / r.ours_ns
                                ));
                            }
                        }
                        None => println!("| pack/{label}/L{level}/j{threads} | | pending | | | |"),
                    }
                }
            }
        }
        if !scaling.is_empty() {
            let n = cores();
            println!("\n### Packing on {n} cores against native on one\n");
            println!(
                "| row | native j1 µs | ours j{n} µs | ours j{n} / native j1 (speed) | ours j{n} / ours j1 (speed) |"
            );
            println!("|---|---|---|---|---|");
            for line in scaling {
                println!("{line}");
            }
        }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

fn report(row: &mut Row, size: &str, budget: Duration) -> Ratio {
    let r = interleaved(&mut *row.ours, &mut *row.native, budget, 11);
    let mbs = row.bytes as f64 / r.ours_ns * 1e3;
    println!(
        "| {} | {size} | {:.1} | {mbs:.0} | {:.1} | {:.2} |",
        row.name,
        r.ours_ns / 1e3,
        r.native_ns / 1e3,
        r.ratio
    );
    r
}
