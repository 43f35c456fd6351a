//! Decode speed against native libzstd 1.5.7 with both contexts reused (our `Decoder`,
//! libzstd's `ZSTD_decompressDCtx` on one DCtx), both into a preallocated buffer, measured in
//! interleaved rounds; prints the median ratio (> 1: we are faster). The `versus` decode
//! rows call `ZSTD_decompress`, which builds a new context per call.
//!
//! Then the sets of distinct 64 KiB blocks (`benches/src/blocks.rs`: generated, Freedoom
//! game data, text), each block a different frame, per block.
//!
//! `cargo run --release -p zarkit-benches --bin decode_speed [-- --budget-ms N]`

use std::hint::black_box;
use std::time::Duration;
use zarkit::zstd::Decoder;
use zarkit_benches::blocks;
use zarkit_benches::measure::interleaved;
use zarkit_benches::oracle::{self, NativeDecoder};

fn main() {
    oracle::assert_version();
    let args: Vec<String> = std::env::args().collect();
    let budget = args
        .iter()
        .position(|a| a == "--budget-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_millis(800), Duration::from_millis);
    println!("accelerated block loop: {}", Decoder::new().accelerated());
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
    println!("| block set | blocks | ours µs/block | native µs/block | × native |");
    println!("|---|---|---|---|---|");
    for level in [1, 6, 19] {
        for name in ["gen", "game", "text"] {
            let mut row = blocks::decode_blocks_row(name, level);
            let n = row.bytes as f64 / blocks::BLOCK as f64;
            let r = interleaved(&mut *row.ours, &mut *row.native, budget, 15);
            println!(
                "| {} | {n} | {:.1} | {:.1} | {:.2} |",
                row.name,
                r.ours_ns / 1e3 / n,
                r.native_ns / 1e3 / n,
                r.ratio
            );
        }
    }
}
