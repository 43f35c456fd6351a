//! Decode speed against native libzstd 1.5.7 with both contexts reused (our `Decoder`,
//! libzstd's `ZSTD_decompressDCtx` on one DCtx), both into a preallocated buffer, measured in
//! interleaved rounds; prints the median ratio (> 1: we are faster). The `versus` decode
//! rows call `ZSTD_decompress`, which builds a new context per call.
//!
//! Then the sets of distinct 64 KiB blocks (`benches/src/blocks.rs`: generated, Freedoom
//! game data, text), each block a different frame, per block.
//!
//! With `--peer`, the block-set rows follow with mzstd 0.2.9 in our place
//! (`benches/src/peer.rs`).
//!
//! `cargo run --release -p zarkit-benches --bin decode_speed [-- --budget-ms N] [--dict-only] [--peer]`

use std::hint::black_box;
use std::time::Duration;
use zarkit::zstd::{Decoder, DecoderDictionary};
use zarkit_benches::blocks;
use zarkit_benches::measure::{budget_arg, interleaved};
use zarkit_benches::oracle::{self, NativeDDict, NativeDecoder};
use zarkit_benches::peer;
use zarkit_corpus::{Shape, generate};

fn main() {
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();
    let args: Vec<String> = std::env::args().collect();
    let budget = budget_arg(&args, 800);
    println!("accelerated block loop: {}", Decoder::new().accelerated());
    if args.iter().any(|a| a == "--dict-only") {
        dictionary_rows(budget);
        return;
    }
    println!("| row | ours µs | native µs (reused DCtx) | × native |");
    println!("|---|---|---|---|");
    for level in [1, 6, 19] {
        for name in ["text64k", "binary64k", "hetero64k", "text200k"] {
            let src = zarkit_corpus::payload(name).expect("payload").bytes();
            let frame = oracle::compress(&src, level);
            let (mut ours, mut native) = (Decoder::new(), NativeDecoder::new());
            let (mut a, mut b) = (vec![0u8; src.len()], vec![0u8; src.len()]);
            ours.decompress_exact(&frame, &mut a).expect("ours decodes");
            native
                .decompress_into(&frame, &mut b)
                .expect("native decodes");
            assert!(
                a == src && b == src,
                "{name} L{level}: both decode to the payload"
            );
            let r = interleaved(
                &mut || {
                    ours.decompress_exact(black_box(&frame), &mut a)
                        .expect("ours")
                },
                &mut || {
                    black_box(
                        native
                            .decompress_into(black_box(&frame), &mut b)
                            .expect("native"),
                    );
                },
                budget,
                15,
            );
            println!(
                "| decode/L{level}/{name} | {:.1} | {:.1} | {:.2} |",
                r.ours_ns / 1e3,
                r.native_ns / 1e3,
                r.ratio
            );
        }
    }
    println!();
    blocks::print_rows(&[1, 6, 19], budget, "ours", blocks::decode_blocks_row);
    if args.iter().any(|a| a == "--peer") {
        println!();
        blocks::print_rows(&[1, 6, 19], budget, peer::NAME, peer::decode_blocks_row);
    }
    dictionary_rows(budget);
}

/// Small frames with a dictionary, as the benchmark page's dictionary class: 64 files of
/// 2 KiB and 32 of 8 KiB of generated text, compressed at L6 by libzstd with an 8 KiB raw
/// dictionary and with a trained one; both sides reuse a prepared dictionary (our
/// `DecoderDictionary`, libzstd's `ZSTD_DDict`) and a context.
fn dictionary_rows(budget: Duration) {
    println!();
    println!("| dictionary set | frames | ours µs/frame | native µs/frame | × native |");
    println!("|---|---|---|---|---|");
    let training: Vec<Vec<u8>> = (0..400u64)
        .map(|i| generate(Shape::Text, 1000 + (i as usize * 37) % 3000, 100 + i))
        .collect();
    let trained = oracle::train_dictionary(&training, 8192);
    let raw = generate(Shape::Text, 8192, 77);
    for (kind, dict) in [("raw 8 KiB", &raw), ("trained 8 KiB", &trained)] {
        for (count, size) in [(64usize, 2048usize), (32, 8192)] {
            let files: Vec<Vec<u8>> = (0..count as u64)
                .map(|i| generate(Shape::Text, size, 5000 + i))
                .collect();
            let frames: Vec<Vec<u8>> = files
                .iter()
                .map(|f| oracle::compress_using_dict(f, dict, 6))
                .collect();
            let ours_dict = DecoderDictionary::new(dict).expect("our decoder reads it");
            let native_dict = NativeDDict::new(dict);
            let (mut ours, mut native) =
                (Decoder::with_dictionary(&ours_dict), NativeDecoder::new());
            let mut out = vec![0u8; size];
            for (f, src) in frames.iter().zip(&files) {
                ours.decompress_exact(f, &mut out).expect("ours decodes");
                assert!(&out == src, "ours gives the file back");
            }
            let mut out2 = vec![0u8; size];
            let r = interleaved(
                &mut || {
                    for f in &frames {
                        ours.decompress_exact(black_box(f), &mut out).expect("ours");
                    }
                },
                &mut || {
                    for f in &frames {
                        black_box(
                            native
                                .decompress_with(black_box(f), &mut out2, &native_dict)
                                .expect("native"),
                        );
                    }
                },
                budget,
                15,
            );
            let n = frames.len() as f64;
            println!(
                "| decode/L6/{kind}/{count}x{}k | {count} | {:.2} | {:.2} | {:.2} |",
                size / 1024,
                r.ours_ns / 1e3 / n,
                r.native_ns / 1e3 / n,
                r.ratio
            );
        }
    }
}
