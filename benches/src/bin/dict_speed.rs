//! The dictionary bench class: many small files compressed and decompressed at L6, plain
//! and with an 8 KiB dictionary (raw prefix, and trained), ours beside native libzstd 1.5.7
//! in the same run, interleaved. Both sides reuse a context and a prepared dictionary
//! (our `EncoderDictionary` / `DecoderDictionary`, libzstd's `ZSTD_CDict` / `ZSTD_DDict`).
//!
//! `cargo run --release -p zarkit-benches --bin dict_speed [-- --budget-ms N --level L]`
//! (`--level`: the class's rows at another level than 6; training is level-free);
//! `-- --prof-train ours|native N` only trains the 110 KiB dictionary `N` times (for
//! `perf` and `valgrind`).
//!
//! Rows: `compress` (ours `compress_prepared_into` vs `ZSTD_compress_usingCDict`, and the
//! plain rows `compress_into` vs `ZSTD_compressCCtx`), `decompress` (ours vs
//! `ZSTD_decompress_usingDDict`), µs per file and the ratio (> 1: ours is faster); then the
//! per-file cost of a prepared dictionary against the plain per-file cost, ours and
//! native; then training (`train_dictionary` vs `ZDICT_trainFromBuffer`, ms per dictionary).
//! Every compressed frame and trained dictionary of ours equals libzstd's (checked before
//! timing).

use std::hint::black_box;

use zarkit::zstd::{Compressor, Decoder, DecoderDictionary, EncoderDictionary, train_dictionary};
use zarkit_benches::measure::{budget_arg, flag_value, interleaved};
use zarkit_benches::oracle::{self, NativeCompressor, NativeDDict, NativeDecoder};
use zarkit_corpus::{Shape, generate};

/// The level of the class (`--level` picks another).
const CLASS_LEVEL: i32 = 6;

fn main() {
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();
    let args: Vec<String> = std::env::args().collect();
    let budget = budget_arg(&args, 600);
    let level: i32 = flag_value(&args, "--level")
        .map(|v| v.parse().expect("--level takes a number"))
        .unwrap_or(CLASS_LEVEL);

    if let Some(i) = args.iter().position(|a| a == "--prof-train") {
        let who = args.get(i + 1).map(String::as_str).unwrap_or("ours");
        let n: usize = args.get(i + 2).and_then(|v| v.parse().ok()).unwrap_or(1);
        let samples = mixed_samples();
        for _ in 0..n {
            if who == "native" {
                black_box(oracle::train_dictionary(black_box(&samples), 112_640));
            } else {
                black_box(train_dictionary(black_box(&samples), 112_640).unwrap());
            }
        }
        return;
    }

    // Phrase-cycle text files; the raw dictionary is the first 8 KiB of the same cycle
    // ("raw prefix"), the trained one comes from libzstd's trainer on other files.
    let training: Vec<Vec<u8>> = (0..400u64)
        .map(|i| generate(Shape::Text, 1000 + (i as usize * 37) % 3000, 100 + i))
        .collect();
    let trained = oracle::train_dictionary(&training, 8192);
    let raw = generate(Shape::Text, 8192, 77);

    println!("| row | files | ours µs/file | native µs/file | × native |");
    println!("|---|---|---|---|---|");
    let mut per_file = Vec::new();
    for (count, size) in [(64usize, 2048usize), (32, 8192)] {
        let files: Vec<Vec<u8>> = (0..count as u64)
            .map(|i| generate(Shape::Text, size, 5000 + i))
            .collect();
        let mut plain_us = (0.0, 0.0);
        for (kind, dict) in [
            ("plain", None),
            ("raw 8 KiB", Some(&raw)),
            ("trained 8 KiB", Some(&trained)),
        ] {
            let mut ours = Compressor::new(level).unwrap();
            let prepared = dict.map(|d| EncoderDictionary::new(d, level).unwrap());
            let mut native = NativeCompressor::new(dict.map(|d| d.as_slice()), level);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut frames = Vec::new();
            for f in &files {
                a.clear();
                match &prepared {
                    Some(p) => ours.compress_prepared_into(f, p, &mut a).unwrap(),
                    None => ours.compress_into(f, &mut a).unwrap(),
                };
                native.compress(f, &mut b);
                assert!(a == b, "{kind}: our frame equals libzstd's");
                frames.push(a.clone());
            }
            let r = interleaved(
                &mut || {
                    for f in &files {
                        a.clear();
                        match &prepared {
                            Some(p) => ours
                                .compress_prepared_into(black_box(f), p, &mut a)
                                .unwrap(),
                            None => ours.compress_into(black_box(f), &mut a).unwrap(),
                        };
                    }
                },
                &mut || {
                    for f in &files {
                        black_box(native.compress(black_box(f), &mut b));
                    }
                },
                budget,
                15,
            );
            let n = count as f64;
            let (o, nat) = (r.ours_ns / 1e3 / n, r.native_ns / 1e3 / n);
            println!(
                "| compress/L{level}/{kind}/{count}x{}k | {count} | {o:.2} | {nat:.2} | {:.2} |",
                size / 1024,
                r.ratio
            );
            match dict {
                None => plain_us = (o, nat),
                Some(_) => per_file.push((
                    format!("{kind}, {count} x {} KiB", size / 1024),
                    o / plain_us.0,
                    nat / plain_us.1,
                )),
            }

            // Decompression of the same frames.
            let ddict = dict.map(|d| DecoderDictionary::new(d).unwrap());
            let native_ddict = dict.map(|d| NativeDDict::new(d));
            let mut dec = match &ddict {
                Some(d) => Decoder::with_dictionary(d),
                None => Decoder::new(),
            };
            let mut native_dec = NativeDecoder::new();
            let (mut out, mut out2) = (vec![0u8; size], vec![0u8; size]);
            let r = interleaved(
                &mut || {
                    for f in &frames {
                        dec.decompress_exact(black_box(f), &mut out).unwrap();
                    }
                },
                &mut || {
                    for f in &frames {
                        black_box(match &native_ddict {
                            Some(d) => native_dec.decompress_with(black_box(f), &mut out2, d),
                            None => native_dec.decompress_into(black_box(f), &mut out2),
                        })
                        .unwrap();
                    }
                },
                budget,
                15,
            );
            println!(
                "| decompress/L{level}/{kind}/{count}x{}k | {count} | {:.2} | {:.2} | {:.2} |",
                size / 1024,
                r.ours_ns / 1e3 / n,
                r.native_ns / 1e3 / n,
                r.ratio
            );
        }
    }
    println!();
    println!("| per-file cost with a prepared dictionary / plain | ours | native |");
    println!("|---|---|---|");
    for (what, ours, native) in per_file {
        println!("| {what} | {ours:.2} | {native:.2} |");
    }

    // Training: the class's 400 files to 8 KiB, and 2,000 files of text and records to
    // 110 KiB (the `zstd --train` default size).
    println!();
    println!("| train | samples | ours ms | native ms | × native |");
    println!("|---|---|---|---|---|");
    let mixed = mixed_samples();
    for (what, samples, capacity) in [
        ("text to 8 KiB", &training, 8192usize),
        ("text and records to 110 KiB", &mixed, 112_640),
    ] {
        let ours = train_dictionary(samples, capacity).unwrap();
        assert!(
            ours == oracle::train_dictionary(samples, capacity),
            "{what}: our dictionary equals libzstd's"
        );
        let r = interleaved(
            &mut || {
                black_box(train_dictionary(black_box(samples), capacity).unwrap());
            },
            &mut || {
                black_box(oracle::train_dictionary(black_box(samples), capacity));
            },
            budget * 4,
            5,
        );
        println!(
            "| {what} | {} | {:.1} | {:.1} | {:.2} |",
            samples.len(),
            r.ours_ns / 1e6,
            r.native_ns / 1e6,
            r.ratio
        );
    }
}

/// The training rows' second sample set: 2,000 files of text and records.
fn mixed_samples() -> Vec<Vec<u8>> {
    (0..2000u64)
        .map(|i| {
            let shape = if i % 3 == 0 {
                Shape::Records
            } else {
                Shape::Text
            };
            generate(shape, 500 + (i as usize * 53) % 6000, 9000 + i)
        })
        .collect()
}
