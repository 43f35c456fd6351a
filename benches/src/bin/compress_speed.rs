//! Compress speed on the sets of distinct 64 KiB blocks (`benches/src/blocks.rs`: generated,
//! Freedoom game data, this repository's text) against native libzstd 1.5.7, the work a ZAR
//! packer does: one frame per block, both contexts reused (our `Compressor`, libzstd's
//! `ZSTD_compressCCtx` on one CCtx), frames checked equal first, interleaved rounds; prints
//! the median ratio per block (> 1: we are faster).
//!
//! `cargo run --release -p zarkit-benches --bin compress_speed [-- --budget-ms N] [--levels 1,6,19]`

use std::time::Duration;

use zarkit_benches::blocks;
use zarkit_benches::measure::interleaved;
use zarkit_benches::oracle;

fn main() {
    oracle::assert_version();
    let args: Vec<String> = std::env::args().collect();
    let budget = args
        .iter()
        .position(|a| a == "--budget-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_millis(800), Duration::from_millis);
    let levels: Vec<i32> = args
        .iter()
        .position(|a| a == "--levels")
        .and_then(|i| args.get(i + 1))
        .map_or(vec![1, 6, 19], |s| {
            s.split(',').map(|l| l.parse().expect("a level")).collect()
        });
    println!("| block set | blocks | ours µs/block | native µs/block | × native |");
    println!("|---|---|---|---|---|");
    for &level in &levels {
        for name in ["gen", "game", "text"] {
            let mut row = blocks::compress_blocks_row(name, level);
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
