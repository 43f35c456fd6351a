//! Differential harness, dictionary mode: our `Compressor::compress_with_dict_into` against
//! libzstd 1.5.7's `ZSTD_compress_usingDict` on the same source, dictionary and level.
//!
//! `cargo run --release -p zarkit-benches --bin dict_diff [-- --cases N --seed S --levels 1,2
//! --max-size BYTES --cdict | --loaded]`; `--cdict` compares `Compressor::compress_prepared_into`
//! with `ZSTD_compress_usingCDict` instead, `--loaded` `Compressor::compress_loaded_dict_into`
//! with `ZSTD_CCtx_loadDictionary` + `ZSTD_compress2`.
//!
//! `--ldm` draws level 22's sources above 64 MiB instead, where libzstd turns on
//! long-distance matching (`dict_cases::ldm_random`: half of them past the 128 MiB window;
//! 7-17 s a case; the first case is `dict_cases::ldm_window_edge_case`).
//!
//! Each case draws a shape, a dictionary kind and size (1 B to 112 KiB) and a source size
//! (0 B to 256 KiB, half of them below 20 KiB). The dictionary is either related to the
//! source (the bytes generated just before it, as a `zstd --train`ed dictionary or a
//! prefix would be), of the same shape with another seed, or of another shape. Every frame
//! of ours must also decode with libzstd and the dictionary.

use std::collections::BTreeMap;
use std::process::ExitCode;

use zarkit_benches::dict_cases::{self, EntryPoint, Outcome};
use zarkit_benches::oracle;
use zarkit_corpus::SplitMix64;

/// Levels checked unless `--levels` says otherwise: every strategy's first level.
const LEVELS: &[i32] = &[-5, -1, 1, 2, 3, 5, 6, 13, 16, 19];

#[derive(Default)]
struct Tally {
    identical: usize,
    total: usize,
    /// Bytes of the frames with the dictionary, and of the same sources without it: shows
    /// that the dictionary is used, not only accepted.
    with_dict: usize,
    without: usize,
    /// Identical frames that name a dictionary ID (formatted dictionaries).
    named: usize,
}

fn main() -> ExitCode {
    let code = check();
    zarkit_benches::report_overflow_corrections();
    code
}

fn check() -> ExitCode {
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
    let entry = if args.iter().any(|a| a == "--cdict") {
        EntryPoint::UsingCDict
    } else if args.iter().any(|a| a == "--loaded") {
        EntryPoint::Loaded
    } else {
        EntryPoint::UsingDict
    };
    let seed = num("--seed", 0xD1C7);
    let max_size = num("--max-size", 256 * 1024);
    let max_reports = num("--max-reports", 20) as usize;
    let ldm = args.iter().any(|a| a == "--ldm");
    let levels: Vec<i32> = match value("--levels") {
        Some(list) => list
            .split(',')
            .map(|l| l.parse().expect("--levels takes a comma-separated list"))
            .collect(),
        None if ldm => vec![22],
        None => LEVELS.to_vec(),
    };

    let mut rng = SplitMix64::new(seed);
    let mut tallies: BTreeMap<i32, Tally> = BTreeMap::new();
    let mut failures = 0usize;
    // Index overflow corrections in the frames with a dictionary (`correct-overflow-often`).
    let mut dict_corrections = 0u64;
    for i in 0..cases {
        let case = if ldm && i == 0 {
            dict_cases::ldm_window_edge_case(seed)
        } else if ldm {
            dict_cases::ldm_random(&mut rng, i - 1)
        } else {
            dict_cases::random(&mut rng, i, max_size)
        };
        for &level in &levels {
            let t = tallies.entry(level).or_default();
            let before = zarkit_benches::overflow_corrections();
            let started = std::time::Instant::now();
            let outcome = dict_cases::check_entry(&case, level, entry);
            if ldm {
                let verdict = match &outcome {
                    Outcome::Identical(len, _) => format!("identical, {len} bytes"),
                    Outcome::Failed(_) => "FAILED".to_string(),
                };
                println!(
                    "{} L{level}: {verdict} ({:.1} s)",
                    case.name,
                    started.elapsed().as_secs_f64()
                );
            }
            dict_corrections += zarkit_benches::overflow_corrections() - before;
            match outcome {
                Outcome::Identical(len, named) => {
                    t.total += 1;
                    t.named += named as usize;
                    t.identical += 1;
                    t.with_dict += len;
                    if !ldm {
                        t.without +=
                            zarkit::zstd::compress(&case.src, level).map_or(0, |f| f.len());
                    }
                }
                Outcome::Failed(what) => {
                    t.total += 1;
                    if failures < max_reports {
                        println!("{what}");
                    }
                    failures += 1;
                }
            }
        }
    }

    println!(
        "oracle: libzstd {} ; {cases} cases ({}, raw-content and formatted dictionaries)",
        oracle::version_number(),
        match entry {
            EntryPoint::UsingDict => "ZSTD_compress_usingDict",
            EntryPoint::UsingCDict => "ZSTD_compress_usingCDict",
            EntryPoint::Loaded => "ZSTD_CCtx_loadDictionary + ZSTD_compress2",
        }
    );
    for (level, t) in &tallies {
        println!(
            "level {level:>4}: identical {}/{} ({} with a formatted dictionary); frames {} bytes with the dictionaries, {} without",
            t.identical, t.total, t.named, t.with_dict, t.without
        );
    }
    if cfg!(feature = "correct-overflow-often") {
        println!("index overflow corrections in the frames with a dictionary: {dict_corrections}");
    }
    if failures > 0 {
        println!("FAILED: {failures} frame(s) differ or do not decode");
        ExitCode::FAILURE
    } else {
        println!("OK: all frames identical and decodable");
        ExitCode::SUCCESS
    }
}
