//! Profiling loop: compresses (or decodes) one corpus payload at one level many times, with
//! our codec or the native oracle, for `perf record` / `perf stat`.
//!
//! `cargo run --release -p zarkit-benches --bin zstd_prof -- <payload> <level> [iterations] [native | peer] [decode | dict | fresh | padded]`
//!
//! `peer` runs mzstd 0.2.9 instead (plain compression and decoding, reused or `fresh`; not
//! `dict`), to profile a peer on the same loop.
//!
//! With `padded`, ours compresses each 64 KiB source (a block set's blocks) from a
//! `PaddedBlock`, as the packer and the gate's block rows do.
//!
//! With `dict`, every source is compressed with a prepared raw 8 KiB dictionary. With
//! `fresh`, every frame is made (or decoded) by a one-shot call, `zstd::compress` against
//! `ZSTD_compress` (`zstd::decompress` against `ZSTD_decompress`): libzstd makes a context
//! per call, ours keep their thread's working memory for sources up to 64 KiB.
//!
//! The payload may also be `file:PATH`, a real file compressed (or decoded) whole.
//!
//! With `decode`, the payload may also be a block set (`gen-blocks`, `game-blocks`,
//! `text-blocks`), `small-files` (64 distinct 2 KiB text files) or `small-tree` (the gate's
//! four 64 KiB pack files): each iteration decodes every block's frame.

use std::time::Instant;

use zarkit::zstd::{Compressor, Decoder};
use zarkit_benches::blocks;
use zarkit_benches::oracle::{self, NativeDecoder};
use zarkit_corpus::payload;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    zarkit_benches::measure::settle_allocator();
    let name = args.get(1).map_or("text64k", String::as_str);
    let level: i32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(6);
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let native = args.iter().skip(4).any(|s| s == "native");
    let peer = args.iter().skip(4).any(|s| s == "peer");
    let decode = args.iter().skip(4).any(|s| s == "decode");
    // Every frame by a one-shot call with a new context, on both sides.
    let fresh = args.iter().skip(4).any(|s| s == "fresh");
    let sources: Vec<Vec<u8>> = match name.strip_suffix("-blocks") {
        // A real file, compressed whole (`file:PATH`).
        _ if name.starts_with("file:") => {
            vec![std::fs::read(&name["file:".len()..]).expect("the file reads")]
        }
        // The gate's small pack tree: four 64 KiB files (text, hetero, binary, random).
        _ if name == "small-tree" => zarkit_benches::trees::small_tree_files()
            .into_iter()
            .map(|(_, bytes)| bytes)
            .collect(),
        // The dictionary class's plain files: 64 distinct 2 KiB text files.
        _ if name == "small-files" => (0..64u64)
            .map(|i| zarkit_corpus::generate(zarkit_corpus::Shape::Text, 2048, 5000 + i))
            .collect(),
        // Its 8 KiB files: 32 distinct ones.
        _ if name == "small-files-8k" => (0..32u64)
            .map(|i| zarkit_corpus::generate(zarkit_corpus::Shape::Text, 8192, 5000 + i))
            .collect(),
        Some(set) => blocks::set(set),
        None => vec![payload(name).expect("known payload").bytes()],
    };
    let total: usize = sources.iter().map(Vec::len).sum();
    let who = match (native, peer) {
        (true, _) => "libzstd",
        (_, true) => "mzstd",
        _ => "zarkit",
    };
    let start = Instant::now();
    let size;
    if decode {
        let frames: Vec<Vec<u8>> = sources.iter().map(|b| oracle::compress(b, level)).collect();
        // Every output followed by the archive reader's slack, on both sides (blocks of up
        // to 64 KiB then decode in our fixed window, as the reader's do).
        // With `exact`, no slack: the output buffer is the frame's size, as a caller sizing it
        // from the content size has.
        let exact = args.iter().skip(4).any(|s| s == "exact");
        let pad = if exact { 0 } else { zarkit::zstd::BLOCK_SLACK };
        let mut dst = vec![0u8; sources.iter().map(Vec::len).max().unwrap_or(0) + pad];
        let (mut ours, mut theirs) = (Decoder::new(), NativeDecoder::new());
        let mut peer_dec = mzstd::Decompressor::default();
        let mut peer_out = Vec::with_capacity(dst.len());
        for _ in 0..iterations {
            for (f, src) in frames.iter().zip(&sources) {
                let out = &mut dst[..src.len() + pad];
                if fresh && native {
                    std::hint::black_box(oracle::decompress(f, src.len()).expect("decodes"));
                } else if fresh && peer {
                    peer_out.clear();
                    mzstd::Decompressor::default()
                        .decompress_into(f, &mut peer_out)
                        .expect("decodes");
                } else if fresh {
                    let back = zarkit::zstd::decompress(f, src.len()).expect("decodes");
                    std::hint::black_box(back);
                } else if native {
                    theirs.decompress_into(f, out).expect("decodes");
                } else if peer {
                    peer_out.clear();
                    peer_dec.decompress_into(f, &mut peer_out).expect("decodes");
                } else {
                    ours.decompress_exact_in(f, out, src.len())
                        .expect("decodes");
                }
            }
        }
        for (f, src) in frames.iter().zip(&sources) {
            ours.decompress_exact(f, &mut dst[..src.len()])
                .expect("decodes");
            assert!(
                dst[..src.len()] == src[..],
                "the decode gives the payload back"
            );
        }
        size = frames.iter().map(Vec::len).sum();
    } else {
        let longest = sources.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = Vec::with_capacity(longest + 1024);
        let mut ours = Compressor::new(level).expect("implemented level");
        let mut n = 0;
        if args.iter().skip(4).any(|s| s == "dict") {
            assert!(!peer, "`dict` runs ours or libzstd only, not the peer");
            // Every source with a prepared raw 8 KiB dictionary of the same generator
            // (`ZSTD_compress_usingCDict`, as the dictionary bench class).
            let raw = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 8192, 77);
            let prepared = zarkit::zstd::EncoderDictionary::new(&raw, level).expect("a dictionary");
            let mut theirs = oracle::NativeCompressor::new(Some(&raw), level);
            for _ in 0..iterations {
                for src in &sources {
                    out.clear();
                    n = if native {
                        theirs.compress(src, &mut out)
                    } else {
                        ours.compress_prepared_into(src, &prepared, &mut out)
                            .expect("compresses")
                    };
                }
            }
            let secs = start.elapsed().as_secs_f64();
            let mib = (total * iterations) as f64 / secs / (1024.0 * 1024.0);
            println!("{name} L{level} compress with a dictionary {who}: {n} bytes, {mib:.2} MiB/s");
            return;
        }
        // A block set compresses every block each iteration (distinct frames, one context
        // on each side: `ZSTD_compressCCtx` on a reused CCtx).
        let mut theirs = oracle::NativeCompressor::new(None, level);
        let config = mzstd::EncoderConfig::default()
            .with_level(mzstd::Level::try_from(level).expect("a level mzstd takes"));
        let mut peer_enc = mzstd::Compressor::new(config).expect("an mzstd compressor");
        // With `padded`, ours reads each 64 KiB source where a ZAR packer holds it, a
        // `PaddedBlock` (`Compressor::compress_block_into`, the gate's block rows), instead
        // of copying it into the compressor's padded buffer.
        let padded = args.iter().skip(4).any(|s| s == "padded");
        if padded && !native && !peer && !fresh {
            let blocks: Vec<zarkit::zstd::PaddedBlock> = sources
                .iter()
                .map(|src| {
                    let mut b = zarkit::zstd::PaddedBlock::new();
                    b.copy_from_slice(src);
                    b
                })
                .collect();
            for _ in 0..iterations {
                for b in &blocks {
                    out.clear();
                    n = ours.compress_block_into(b, &mut out).expect("compresses");
                }
            }
            let secs = start.elapsed().as_secs_f64();
            let mib = (total * iterations) as f64 / secs / (1024.0 * 1024.0);
            println!("{name} L{level} compress in place {who}: {n} bytes, {mib:.2} MiB/s");
            return;
        }
        for _ in 0..iterations {
            for src in &sources {
                out.clear();
                n = if native && fresh {
                    oracle::compress_into(src, level, &mut out)
                } else if peer && fresh {
                    mzstd::Compressor::new(config)
                        .expect("an mzstd compressor")
                        .compress_into(src, &mut out)
                        .expect("compresses")
                        .len()
                } else if fresh {
                    out = zarkit::zstd::compress(src, level).expect("compresses");
                    out.len()
                } else if native {
                    theirs.compress(src, &mut out)
                } else if peer {
                    peer_enc
                        .compress_into(src, &mut out)
                        .expect("compresses")
                        .len()
                } else {
                    ours.compress_into(src, &mut out).expect("compresses")
                };
            }
        }
        size = n;
    }
    let secs = start.elapsed().as_secs_f64();
    let mib = (total * iterations) as f64 / secs / (1024.0 * 1024.0);
    let what = if decode { "decode" } else { "compress" };
    println!("{name} L{level} {what} {who}: {size} bytes, {mib:.2} MiB/s");
}
