//! Compress speed on the sets of distinct 64 KiB blocks (`benches/src/blocks.rs`: generated,
//! Freedoom game data, this repository's text) against native libzstd 1.5.7, the work a ZAR
//! packer does: one frame per block, both contexts reused (our `Compressor`, libzstd's
//! `ZSTD_compressCCtx` on one CCtx), frames checked equal first, interleaved rounds; prints
//! the median ratio per block (> 1: we are faster).
//!
//! With `--peer`, the same rows follow with mzstd 0.2.9 in our place (`benches/src/peer.rs`).
//!
//! `cargo run --release -p zarkit-benches --bin compress_speed [-- --budget-ms N] [--levels 1,6,19] [--peer]`

use zarkit_benches::blocks;
use zarkit_benches::measure::budget_arg;
use zarkit_benches::oracle;
use zarkit_benches::peer;

fn main() {
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();
    let args: Vec<String> = std::env::args().collect();
    let budget = budget_arg(&args, 800);
    let levels: Vec<i32> = args
        .iter()
        .position(|a| a == "--levels")
        .and_then(|i| args.get(i + 1))
        .map_or(vec![1, 6, 19], |s| {
            s.split(',').map(|l| l.parse().expect("a level")).collect()
        });
    blocks::print_rows(&levels, budget, "ours", blocks::compress_blocks_row);
    if args.iter().any(|a| a == "--peer") {
        println!();
        blocks::print_rows(&levels, budget, peer::NAME, peer::compress_blocks_row);
    }
}
