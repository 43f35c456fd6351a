//! The streams class: streaming compression and decompression beside libzstd 1.5.7's
//! streaming API in the same run (interleaved, median ratio; > 1 means we are faster).
//!
//! `cargo run --release -p zarkit-benches --bin stream_speed [-- --budget-ms 600]`
//!
//! Compress: 1 MiB of text and 1 MiB of tiled hetero data (the 64 KiB hetero payload 16
//! times) at levels 1 and 6, pumped in 4 KiB and in 64 KiB `ZSTD_e_continue` calls, then an
//! empty `ZSTD_e_end` (no size pledged, no checksum); 10 MiB of text at 1 and 6 in 64 KiB
//! calls; 16 MiB of far repeats (`long_range`) at 1 and 6 with long-distance matching
//! (`--long`, window 2^27). Ours is a reused [`StreamEncoder`], native a reused `ZSTD_CCtx`; the frames are
//! first checked equal to a fresh native context's. Decompress: each frame read back 64 KiB
//! at a time, ours through a reused [`zstd::StreamDecoder::with_buffer`] over the frame
//! (`reset` per frame; blocks decoded where they lie), native through a reused `ZSTD_DCtx`
//! and `ZSTD_decompressStream` (which also decodes a block in the caller's input in place).

use std::hint::black_box;
use std::io::Read;
use std::time::Duration;

use zarkit::zstd::{self, StreamEncoder};
use zarkit_benches::measure::{budget_arg, interleaved};
use zarkit_benches::oracle::{self, NativeStream, NativeStreamDecoder, StreamCall};
use zarkit_corpus::{Shape, generate};

fn main() {
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();
    let args: Vec<String> = std::env::args().collect();
    let budget = budget_arg(&args, 600);
    // `--prof ours|native LEVEL ITERS [long|hetero|text10m]`: only compress text1m in 64 KiB
    // calls (with `long`: 16 MiB of far repeats with `--long`; with `hetero`: hetero1m; with
    // `text10m`: text10m), for callgrind.
    if let Some(i) = args.iter().position(|a| a == "--prof") {
        let side = args[i + 1].as_str();
        let level: i32 = args[i + 2].parse().expect("level");
        let iters: usize = args[i + 3].parse().expect("iterations");
        let long = args.get(i + 4).is_some_and(|a| a == "long");
        let src = prof_input(args.get(i + 4));
        let calls = pumped(&src);
        let mut ours = StreamEncoder::new(level).unwrap();
        let mut native = NativeStream::new(level, false);
        if long {
            ours.set_long_distance_matching(Some(27)).unwrap();
            native.set_long(27).unwrap();
        }
        let mut out = Vec::new();
        for _ in 0..iters {
            out.clear();
            if side == "native" {
                native.compress(None, &calls, &mut out).unwrap();
            } else {
                for chunk in src.chunks(65536) {
                    ours.compress(chunk, &mut out).unwrap();
                }
                ours.finish(&[], &mut out).unwrap();
            }
        }
        println!("{} bytes", out.len());
        return;
    }

    // `--prof-decode ours|native LEVEL ITERS [hetero|text10m]`: only decode text1m's (or
    // hetero1m's, or text10m's) stream frame, read back 64 KiB at a time, for callgrind.
    if let Some(i) = args.iter().position(|a| a == "--prof-decode") {
        let side = args[i + 1].as_str();
        let level: i32 = args[i + 2].parse().expect("level");
        let iters: usize = args[i + 3].parse().expect("iterations");
        let src = prof_input(args.get(i + 4));
        let frame =
            oracle::compress_stream_with(level, false, None, None, None, &pumped(&src)).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0usize;
        if side == "native" {
            let mut native = NativeStreamDecoder::new();
            let mut nbuf = vec![0u8; 1 << 16];
            for _ in 0..iters {
                native.decompress(&frame, &mut nbuf, &mut |piece: &[u8]| total += piece.len());
            }
        } else {
            let mut ours = zstd::StreamDecoder::with_buffer(&[][..]);
            for _ in 0..iters {
                ours.reset(&frame[..]);
                loop {
                    let n = ours.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    total += n;
                }
            }
        }
        println!("{total} bytes");
        return;
    }

    let text1m = generate(Shape::Text, 1 << 20, 11);
    let hetero = generate(Shape::Hetero, 1 << 16, 12);
    let hetero1m: Vec<u8> = hetero.iter().copied().cycle().take(1 << 20).collect();
    let text10m = generate(Shape::Text, 10 << 20, 13);
    let inputs: [(&str, &[u8], &[usize]); 3] = [
        ("text1m", &text1m, &[4096, 65536]),
        ("hetero1m", &hetero1m, &[4096, 65536]),
        ("text10m", &text10m, &[65536]),
    ];

    println!("| row | ours ms | native ms | × native |");
    println!("|---|---|---|---|");
    let mut frames = Vec::new();
    for (name, src, pumps) in inputs {
        for level in [1, 6] {
            for &pump in pumps {
                let label = format!("compress/L{level}/{name}/pump{}k", pump / 1024);
                let expected = compress_row(&label, src, level, pump, None, budget);
                if pump == 65536 {
                    frames.push((format!("{name}/L{level}"), expected, src.len()));
                }
            }
        }
    }
    // Long-distance matching (`--long`, a 2^27 window) on 16 MiB whose repeats lie up to
    // megabytes back, in 64 KiB calls.
    let far = zarkit_corpus::long_range(16 << 20, 14);
    for level in [1, 6] {
        let label = format!("compress/L{level}/longrange16m/long27/pump64k");
        compress_row(&label, &far, level, 65536, Some(27), budget);
    }
    let mut buf = vec![0u8; 1 << 16];
    let mut native = NativeStreamDecoder::new();
    let mut ours = zstd::StreamDecoder::with_buffer(&[][..]);
    for (name, frame, size) in &frames {
        let mut got = 0usize;
        let mut check = |piece: &[u8]| got += piece.len();
        native.decompress(frame, &mut buf, &mut check);
        assert_eq!(got, *size);
        let mut nbuf = vec![0u8; 1 << 16];
        let r = interleaved(
            &mut || {
                ours.reset(black_box(&frame[..]));
                let mut total = 0;
                loop {
                    let n = ours.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    total += n;
                }
                assert_eq!(total, *size);
            },
            &mut || {
                let mut sink = |piece: &[u8]| {
                    black_box(piece);
                };
                native.decompress(black_box(frame), &mut nbuf, &mut sink);
            },
            budget,
            9,
        );
        println!(
            "| decompress/{name}/read64k | {:.2} | {:.2} | {:.2} |",
            r.ours_ns / 1e6,
            r.native_ns / 1e6,
            r.ratio
        );
    }
}

/// The input of the `--prof` modes: 16 MiB of far repeats (`long`), hetero1m (`hetero`),
/// text10m (`text10m`) or text1m.
fn prof_input(kind: Option<&String>) -> Vec<u8> {
    match kind.map(String::as_str) {
        Some("long") => zarkit_corpus::long_range(16 << 20, 14),
        Some("text10m") => generate(Shape::Text, 10 << 20, 13),
        Some("hetero") => {
            let hetero = generate(Shape::Hetero, 1 << 16, 12);
            hetero.iter().copied().cycle().take(1 << 20).collect()
        }
        _ => generate(Shape::Text, 1 << 20, 11),
    }
}

/// `src` in 64 KiB continue calls, then an empty end call.
fn pumped(src: &[u8]) -> Vec<StreamCall<'_>> {
    src.chunks(65536)
        .map(StreamCall::Continue)
        .chain([StreamCall::End(&[])])
        .collect()
}

/// One compress row: `src` pumped in `pump`-byte continue calls then an empty end call (no
/// size pledged, no checksum; long-distance matching with window log `long` when given),
/// ours against native, interleaved; our frame is first checked equal to a fresh native
/// context's, which is returned.
fn compress_row(
    label: &str,
    src: &[u8],
    level: i32,
    pump: usize,
    long: Option<u32>,
    budget: Duration,
) -> Vec<u8> {
    let mut calls: Vec<StreamCall<'_>> = src.chunks(pump).map(StreamCall::Continue).collect();
    calls.push(StreamCall::End(&[]));
    let expected = oracle::compress_stream_with(level, false, None, None, long, &calls).unwrap();
    let mut ours = StreamEncoder::new(level).unwrap();
    ours.set_long_distance_matching(long).unwrap();
    let mut out = Vec::with_capacity(src.len());
    let mut run_ours = |out: &mut Vec<u8>| {
        out.clear();
        for chunk in src.chunks(pump) {
            ours.compress(black_box(chunk), out).unwrap();
        }
        ours.finish(&[], out).unwrap();
    };
    run_ours(&mut out);
    assert!(out == expected, "{label}: our frame equals libzstd's");
    let mut native = NativeStream::new(level, false);
    if let Some(window_log) = long {
        native.set_long(window_log).unwrap();
    }
    let mut nout = Vec::with_capacity(src.len());
    let r = interleaved(
        &mut || run_ours(&mut out),
        &mut || {
            nout.clear();
            native.compress(None, &calls, &mut nout).unwrap();
        },
        budget,
        9,
    );
    println!(
        "| {label} | {:.2} | {:.2} | {:.2} |",
        r.ours_ns / 1e6,
        r.native_ns / 1e6,
        r.ratio
    );
    expected
}
