//! Differential harness, dictionary mode: our `Compressor::compress_with_dict_into` against
//! libzstd 1.5.7's `ZSTD_compress_usingDict` on the same source, dictionary and level.
//!
//! `cargo run --release -p zarkit-benches --bin dict_diff [-- --cases N --seed S --levels 1,2
//! --max-size BYTES --verbose]`
//!
//! Each case draws a shape, a dictionary kind and size (1 B to 112 KiB) and a source size
//! (0 B to 256 KiB, half of them below 20 KiB). The dictionary is either related to the
//! source (the bytes generated just before it, as a `zstd --train`ed dictionary or a
//! prefix would be), of the same shape with another seed, or of another shape. Levels the
//! encoder refuses with a dictionary are counted as unsupported, not as failures; every
//! frame of ours must also decode with libzstd and the dictionary.

use std::collections::BTreeMap;
use std::process::ExitCode;

use zarkit::zstd::{Compressor, ZstdError};
use zarkit_benches::{anatomy, oracle};
use zarkit_corpus::{Shape, SplitMix64, generate};

/// Levels checked unless `--levels` says otherwise: every strategy's first level.
const LEVELS: &[i32] = &[-5, -1, 1, 2, 3, 5, 6, 13, 16, 19];
/// Largest dictionary drawn (the range: 1 B to 112 KiB).
const MAX_DICT: u64 = 112 * 1024;

#[derive(Default)]
struct Tally {
    identical: usize,
    total: usize,
    unsupported: usize,
    /// Bytes of the frames with the dictionary, and of the same sources without it: shows
    /// that the dictionary is used, not only accepted.
    with_dict: usize,
    without: usize,
}

/// One case: a name, a dictionary and a source.
struct Case {
    name: String,
    dict: Vec<u8>,
    src: Vec<u8>,
}

fn make_case(rng: &mut SplitMix64, i: usize, max_size: u64) -> Case {
    let shape = Shape::ALL[rng.below(Shape::ALL.len() as u64) as usize];
    // Dictionary sizes spread over the logarithmic range 1 B .. 112 KiB.
    let dict_size = match rng.below(4) {
        0 => rng.below(64) as usize + 1,
        1 => rng.below(4096) as usize + 1,
        2 => rng.below(32 * 1024) as usize + 1,
        _ => rng.below(MAX_DICT) as usize + 1,
    };
    let src_size = if i % 2 == 0 {
        rng.below(20_000.min(max_size) + 1) as usize
    } else {
        rng.below(max_size + 1) as usize
    };
    let seed = rng.next_u64();
    let (kind, dict, src) = match rng.below(3) {
        0 => {
            // The source continues where the dictionary's bytes end.
            let all = generate(shape, dict_size + src_size, seed);
            let (d, s) = all.split_at(dict_size);
            ("prefix", d.to_vec(), s.to_vec())
        }
        1 => (
            "same-shape",
            generate(shape, dict_size, seed ^ 0xD1C7),
            generate(shape, src_size, seed),
        ),
        _ => {
            let other = Shape::ALL[rng.below(Shape::ALL.len() as u64) as usize];
            (
                "other-shape",
                generate(other, dict_size, seed ^ 0xD1C7),
                generate(shape, src_size, seed),
            )
        }
    };
    Case {
        name: format!(
            "{}:{src_size} dict {kind}:{dict_size} #{seed:x}",
            shape.name()
        ),
        dict,
        src,
    }
}

fn main() -> ExitCode {
    oracle::assert_version();
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let num = |name: &str, default: u64| -> u64 {
        value(name).and_then(|v| v.parse().ok()).unwrap_or(default)
    };
    let cases = num("--cases", 200) as usize;
    let seed = num("--seed", 0xD1C7);
    let max_size = num("--max-size", 256 * 1024);
    let max_reports = num("--max-reports", 20) as usize;
    let verbose = args.iter().any(|a| a == "--verbose");
    let levels: Vec<i32> = match value("--levels") {
        Some(list) => list
            .split(',')
            .map(|l| l.parse().expect("--levels takes a comma-separated list"))
            .collect(),
        None => LEVELS.to_vec(),
    };

    let mut rng = SplitMix64::new(seed);
    let mut tallies: BTreeMap<i32, Tally> = BTreeMap::new();
    let mut failures = 0usize;
    for i in 0..cases {
        let Case { name, dict, src } = make_case(&mut rng, i, max_size);
        for &level in &levels {
            let t = tallies.entry(level).or_default();
            let mut ours = Vec::new();
            match Compressor::new(level)
                .and_then(|mut c| c.compress_with_dict_into(&src, &dict, &mut ours))
            {
                Ok(_) => {}
                Err(
                    ZstdError::UnsupportedDictionary { .. }
                    | ZstdError::UnsupportedLevelForSize { .. },
                ) => {
                    t.unsupported += 1;
                    continue;
                }
                Err(e) => {
                    failures += 1;
                    println!("ERROR {name} L{level}: {e}");
                    continue;
                }
            }
            let expected = oracle::compress_using_dict(&src, &dict, level);
            t.total += 1;
            t.with_dict += ours.len();
            t.without += zarkit::zstd::compress(&src, level).map_or(0, |f| f.len());
            let mut ok = true;
            if ours == expected {
                t.identical += 1;
            } else {
                ok = false;
                if failures < max_reports {
                    let first = ours
                        .iter()
                        .zip(&expected)
                        .position(|(a, b)| a != b)
                        .unwrap_or(ours.len().min(expected.len()));
                    println!(
                        "MISMATCH {name} L{level}: ours {} bytes, oracle {} bytes; first difference at byte {first}: {}",
                        ours.len(),
                        expected.len(),
                        anatomy::locate(&expected, first)
                    );
                    if verbose {
                        for p in anatomy::parts(&expected) {
                            println!("    oracle {:>7}..{:<7} {}", p.start, p.end, p.label);
                        }
                        for p in anatomy::parts(&ours) {
                            println!("    ours   {:>7}..{:<7} {}", p.start, p.end, p.label);
                        }
                    }
                }
            }
            match oracle::decompress_using_dict(&ours, &dict, src.len()) {
                Ok(d) if d == src => {}
                Ok(_) => {
                    ok = false;
                    println!("DECODE (libzstd) {name} L{level}: wrong content");
                }
                Err(e) => {
                    ok = false;
                    println!("DECODE (libzstd) {name} L{level}: {e}");
                }
            }
            if !ok {
                failures += 1;
            }
        }
    }

    println!(
        "oracle: libzstd {} ; {cases} cases (ZSTD_compress_usingDict, raw-content dictionaries)",
        oracle::version_number()
    );
    for (level, t) in &tallies {
        println!(
            "level {level:>4}: identical {}/{}   (refused as not implemented yet: {}); frames {} bytes with the dictionaries, {} without",
            t.identical, t.total, t.unsupported, t.with_dict, t.without
        );
    }
    if failures > 0 {
        println!("FAILED: {failures} frame(s) differ or do not decode");
        ExitCode::FAILURE
    } else {
        println!("OK: all frames identical and decodable");
        ExitCode::SUCCESS
    }
}
