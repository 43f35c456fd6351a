//! What a one-shot call costs follows its source: a new compression context is sized to
//! it, as libzstd's `ZSTD_compress` sizes its own (a call on a small file must not allocate,
//! and so zero, megabytes); the one-shot encoder keeps its thread's working memory after
//! sources up to 64 KiB only, and the one-shot decoder reuses its thread's context (making
//! either costs more than a small frame). A counting allocator records the peak of live
//! heap bytes. (This test binary holds a single test so nothing else allocates.)

use zarkit_tests::counting::{Counting, live_bytes, peak_during};

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
            // On a new thread: a new context, whatever earlier calls left on this one.
            let mut frame = Vec::new();
            let peak = peak_during(|| {
                frame = std::thread::scope(|s| {
                    s.spawn(|| zarkit::zstd::compress(src, level).unwrap())
                        .join()
                        .expect("compresses")
                })
            });
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
    // What one-shot calls leave on their thread: the working memory of the last source
    // of up to 64 KiB (the highest levels' is the largest), nothing of a larger one.
    let large = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 1 << 20, 13);
    let before = live_bytes();
    let mut kept = Vec::new();
    for (level, src) in [(22, &block), (1, &small), (19, &large), (3, &large)] {
        let frame = zarkit::zstd::compress(src, level).unwrap();
        drop(frame);
        kept.push(live_bytes().saturating_sub(before));
    }
    report.push(format!("kept by one-shot calls: {kept:?} bytes"));
    let after_small = kept[..2].iter().max().copied().unwrap_or(0);
    if after_small > 2 << 20 || kept[2] > after_small || kept[3] > after_small {
        failures.push(format!(
            "one-shot calls kept {kept:?} bytes (at most 2 MiB, and nothing for 1 MiB sources)"
        ));
    }
    // The kept memory serves the next call: a small source then allocates little (the
    // large sources above left nothing: the first call makes a context again).
    drop(zarkit::zstd::compress(&small, 22).unwrap());
    let peak = peak_during(|| drop(zarkit::zstd::compress(&small, 22).unwrap()));
    if peak > 64 << 10 {
        failures.push(format!(
            "a 2 KiB one-shot call after others took {} KiB at peak",
            peak >> 10
        ));
    }
    // A new context per file with a dictionary too large for the small buffer (the
    // trainer's default size is 112 KiB): its first frames read the dictionary and the
    // source from a buffer of their size instead of zeroing the 4 MiB padded one, through
    // each of the three dictionary entry points.
    let dict = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 112 << 10, 14);
    let file = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 8 << 10, 15);
    for level in [1, 3, 6, 19] {
        let prepared = zarkit::zstd::EncoderDictionary::new(&dict, level).unwrap();
        let entry_points: [(&str, EntryPoint); 3] = [
            ("prepared", &|c, out| {
                c.compress_prepared_into(&file, &prepared, out).unwrap();
            }),
            ("usingDict", &|c, out| {
                c.compress_with_dict_into(&file, &dict, out).unwrap();
            }),
            ("loaded", &|c, out| {
                c.compress_loaded_dict_into(&file, &prepared, out).unwrap();
            }),
        ];
        for (what, call) in entry_points {
            let mut out = Vec::with_capacity(64 << 10);
            let peak = peak_during(|| {
                let mut c = zarkit::zstd::Compressor::new(level).unwrap();
                call(&mut c, &mut out);
            });
            report.push(format!(
                "L{level} 8 KiB with a 112 KiB dictionary, {what}: {} KiB",
                peak >> 10
            ));
            if peak >= 4 << 20 {
                failures.push(format!(
                    "level {level}, a new context with a 112 KiB dictionary ({what}): {} KiB at peak",
                    peak >> 10
                ));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One way to compress a file with a dictionary into a buffer.
type EntryPoint<'a> = &'a dyn Fn(&mut zarkit::zstd::Compressor, &mut Vec<u8>);
