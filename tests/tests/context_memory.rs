//! What a one-shot call costs follows its source: a new compression context is sized to
//! it, as libzstd's `ZSTD_compress` sizes its own (a call on a small file must not allocate,
//! and so zero, megabytes), and the one-shot decoder reuses its thread's context (making
//! one costs more than decoding a small frame). A counting allocator records the peak of
//! live heap bytes. (This test binary holds a single test so nothing else allocates.)

use zarkit_tests::counting::{Counting, peak_during};

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn a_one_shot_call_allocates_for_its_source_not_for_the_largest() {
    let small = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 2048, 11);
    let block = zarkit_corpus::generate(zarkit_corpus::Shape::Hetero, 65536, 12);
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for level in [-5, 1, 3, 5, 6, 9, 13, 16, 19, 22] {
        for (what, src, bound) in [("2 KiB", &small, 512 << 10), ("64 KiB", &block, 2 << 20)] {
            let mut frame = Vec::new();
            let peak = peak_during(|| frame = zarkit::zstd::compress(src, level).unwrap());
            report.push(format!("L{level} {what}: {} KiB", peak >> 10));
            if peak > bound {
                failures.push(format!(
                    "level {level}, {what} source: {} KiB at peak (at most {} KiB)",
                    peak >> 10,
                    bound >> 10
                ));
            }
            // The one-shot decoder's context is made once per thread (the first call of
            // this test), then reused: a call allocates its output and little else.
            let mut back = Vec::new();
            let peak = peak_during(|| back = zarkit::zstd::decompress(&frame, src.len()).unwrap());
            assert_eq!(&back, src);
            if peak > src.len() + (16 << 10) && (level, what) != (-5, "2 KiB") {
                failures.push(format!(
                    "level {level}, {what} frame: the one-shot decode took {} KiB at peak",
                    peak >> 10
                ));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
