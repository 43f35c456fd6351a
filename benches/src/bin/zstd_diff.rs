//! Differential harness: our encoder against libzstd 1.5.7's `ZSTD_compress`, byte for byte.
//!
//! `cargo run --release -p zarkit-benches --bin zstd_diff [-- --random N --seed S --verbose]`
//! `... -- --big [--random 0] [--levels 1,2,19]`: also every shape at the large sizes
//! ([`BIG_SIZES`], up to 4 MiB; slow), optionally restricted to some levels.
//! `... -- --files PATH[,PATH...] [--max-file-mib N] [--levels 1,3,19]`: only real files,
//! every regular file under each path (directories walked in name order), up to N MiB
//! each (default 64); the project's own bytes are generated, so this is the check on data
//! no generator made.
//! `... -- --huge [--sizes 5M,9M,17M+1] [--shapes longrange,text] [--levels 1,19]`: only
//! inputs beyond 4 MiB ([`HUGE_SIZES`] by default), built so that matches reach back across
//! every window size (see `long_range`); no corpus, edge or random inputs.
//!
//! Inputs: (a) the frozen corpus payloads, (b) generated inputs of every shape at the edge
//! sizes and at N random sizes up to 256 KiB. Every frame of ours must also decode (our
//! decoder, and the oracle's ZSTD_decompress) back to the input. Sources of
//! exactly 64 KiB are also compressed in place from a `PaddedBlock` and compared.
//! Exits non-zero on any mismatch or decode failure.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use zarkit::zstd;
use zarkit_benches::{anatomy, oracle};
use zarkit_corpus::{PAYLOADS, Shape, SplitMix64, generate};

const LEVELS: &[i32] = &[
    -131072, -100, -7, -5, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
    18, 19, 20, 21, 22,
];
const EDGE_SIZES: &[usize] = &[
    0, 1, 6, 7, 8, 255, 256, 1023, 1024, 16383, 16384, 16385, 65535, 65536, 65537, 131072, 131073,
    262144,
];
const MAX_SIZE: usize = 256 * 1024;
/// Large sizes of `--big`: several blocks, pre-splitting, and the window edges of table 0
/// (512 KiB at levels 1 and below, 1 MiB at level 2, 2 MiB at 3-8, 4 MiB at 9-16),
/// and the old 4 MiB cap.
const BIG_SIZES: &[usize] = &[
    300 * 1024,
    512 * 1024,
    512 * 1024 + 1,
    1 << 20,
    3 << 20,
    4 << 20,
];

/// Sizes of `--huge`: past the 4 MiB of `--big`, straddling the windows of table 0
/// (8 MiB at levels 17-19, 32 MiB at 20, 64 MiB at 21 and the LDM edge of level 22).
const HUGE_SIZES: &[&str] = &["5M", "9M", "17M", "33M", "65M"];
/// Largest input the project's decoder also decodes in the harness.
const FACADE_DECODE_MAX: usize = 1 << 30;
/// Shapes of `--huge` unless `--shapes` says otherwise.
const HUGE_SHAPES: &[&str] = &["longrange", "text"];

/// Parses `5M`, `512K+1`, `9M-3` or a plain byte count.
fn parse_size(s: &str) -> usize {
    let (base, delta) = match s.find(['+', '-']) {
        Some(i) => (&s[..i], s[i..].parse::<i64>().expect("size offset")),
        None => (s, 0),
    };
    let (digits, unit) = match base.as_bytes().last() {
        Some(b'K' | b'k') => (&base[..base.len() - 1], 1 << 10),
        Some(b'M' | b'm') => (&base[..base.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&base[..base.len() - 1], 1 << 30),
        _ => (base, 1),
    };
    let n = digits.parse::<i64>().expect("size") * unit + delta;
    usize::try_from(n).expect("non-negative size")
}

fn make_input(shape: &str, size: usize, seed: u64) -> Vec<u8> {
    if shape == "longrange" {
        return zarkit_corpus::long_range(size, seed);
    }
    let shape = Shape::ALL
        .iter()
        .copied()
        .find(|s| s.name() == shape)
        .unwrap_or_else(|| panic!("unknown shape {shape}"));
    generate(shape, size, seed)
}

#[derive(Default)]
struct Tally {
    identical: usize,
    total: usize,
    /// Frames whose window exceeds what the project's decoder accepts, or above
    /// [`FACADE_DECODE_MAX`] (checked by libzstd only).
    libzstd_decode_only: usize,
    /// 64 KiB sources also compressed in place (and compared).
    in_place: usize,
}

fn main() -> ExitCode {
    let code = check();
    zarkit_benches::report_overflow_corrections();
    code
}

fn check() -> ExitCode {
    oracle::assert_version();
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let random_count = arg("--random", 40) as usize;
    let seed = arg("--seed", 0xD1FF);
    let verbose = args.iter().any(|a| a == "--verbose");
    let max_reports = arg("--max-reports", 20) as usize;
    let big = args.iter().any(|a| a == "--big");
    let huge = args.iter().any(|a| a == "--huge");
    let list = |name: &str, default: &[&str]| -> Vec<String> {
        match args
            .iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
        {
            Some(l) => l.split(',').map(str::to_string).collect(),
            None => default.iter().map(|s| s.to_string()).collect(),
        }
    };
    let levels: Vec<i32> = match args
        .iter()
        .position(|a| a == "--levels")
        .and_then(|i| args.get(i + 1))
    {
        Some(list) => list
            .split(',')
            .map(|l| l.parse().expect("--levels takes a comma-separated list"))
            .collect(),
        None => LEVELS.to_vec(),
    };

    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(paths) = args
        .iter()
        .position(|a| a == "--files")
        .and_then(|i| args.get(i + 1))
    {
        let max = (arg("--max-file-mib", 64) as usize) << 20;
        for root in paths.split(',') {
            collect_files(std::path::Path::new(root), max, &mut inputs);
        }
        eprintln!("{} files", inputs.len());
        return run(&inputs, &levels, verbose, max_reports, true);
    }
    if huge {
        for shape in list("--shapes", HUGE_SHAPES) {
            for size in list("--sizes", HUGE_SIZES) {
                let n = parse_size(&size);
                inputs.push((
                    format!("{shape}:{size}"),
                    make_input(&shape, n, seed ^ n as u64),
                ));
            }
        }
        return run(&inputs, &levels, verbose, max_reports, true);
    }
    inputs.extend(
        PAYLOADS
            .iter()
            .map(|p| (format!("corpus:{}", p.name), p.bytes())),
    );
    for &shape in &Shape::ALL {
        for &size in EDGE_SIZES {
            inputs.push((
                format!("{}:{size}", shape.name()),
                generate(shape, size, size as u64 ^ 0xE06E),
            ));
        }
    }
    if big {
        for &shape in &Shape::ALL {
            for &size in BIG_SIZES {
                inputs.push((
                    format!("{}:{size}", shape.name()),
                    generate(shape, size, size as u64 ^ 0xB16),
                ));
            }
        }
    }
    let mut rng = SplitMix64::new(seed);
    for i in 0..random_count {
        let shape = Shape::ALL[rng.below(Shape::ALL.len() as u64) as usize];
        // Half the sizes small (more block-level variety), half anywhere up to 256 KiB.
        let size = if i % 2 == 0 {
            rng.below(20_000) as usize
        } else {
            rng.below(MAX_SIZE as u64 + 1) as usize
        };
        let s = rng.next_u64();
        inputs.push((
            format!("{}:{size}#{s:x}", shape.name()),
            generate(shape, size, s),
        ));
    }
    run(&inputs, &levels, verbose, max_reports, false)
}

/// Every regular file under `path` of at most `max` bytes, directories in name order
/// (symbolic links and unreadable entries skipped).
fn collect_files(path: &std::path::Path, max: usize, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        let Ok(dir) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<_> = dir.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            collect_files(&e, max, out);
        }
    } else if meta.is_file()
        && meta.len() as usize <= max
        && let Ok(bytes) = std::fs::read(path)
    {
        out.push((path.display().to_string(), bytes));
    }
}

/// Compresses every input at every level with both encoders, compares, decodes ours back.
fn run(
    inputs: &[(String, Vec<u8>)],
    levels: &[i32],
    verbose: bool,
    max_reports: usize,
    progress: bool,
) -> ExitCode {
    let mut tallies: BTreeMap<i32, Tally> = BTreeMap::new();
    let mut failures = 0usize;
    let mut decoder = zstd::Decoder::new();
    for (name, src) in inputs {
        for &level in levels {
            let t = tallies.entry(level).or_default();
            let t0 = Instant::now();
            let expected = oracle::compress(src, level);
            let t1 = Instant::now();
            let result = zstd::compress(src, level);
            if progress {
                println!(
                    "  {name} L{level}: {} bytes, oracle {:.1} s, ours {:.1} s, {}",
                    src.len(),
                    (t1 - t0).as_secs_f64(),
                    t1.elapsed().as_secs_f64(),
                    match &result {
                        Ok(f) if *f == expected => "identical".to_string(),
                        Ok(_) => "DIFFERENT".to_string(),
                        Err(e) => e.to_string(),
                    }
                );
            }
            let ours = match result {
                Ok(f) => f,
                Err(e) => {
                    failures += 1;
                    println!("ERROR {name} L{level}: {e}");
                    continue;
                }
            };
            t.total += 1;
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
            // A 64 KiB source also read in place from a padded block (the ZAR writer's path,
            // `Compressor::compress_block_into`): the same frame.
            if src.len() == zstd::PaddedBlock::LEN {
                let mut block = zstd::PaddedBlock::new();
                block.copy_from_slice(src);
                let mut in_place = Vec::new();
                let made = zstd::Compressor::new(level)
                    .and_then(|mut c| c.compress_block_into(&block, &mut in_place));
                t.in_place += 1;
                if made.is_err() || in_place != expected {
                    ok = false;
                    println!("MISMATCH {name} L{level}: in place (PaddedBlock): {made:?}");
                }
            }
            // Every frame of ours must decode, with both decoders; the project's decoder only
            // where the frame's window fits its limit (`decode::MAX_WINDOW_SIZE`).
            let window = (1u64 << zstd::params::cparams(level, src.len() as u64).window_log)
                .min(src.len() as u64);
            // Above 1 GiB only libzstd decodes (memory: the input is held three times already).
            let facade = window <= zstd::decode::MAX_WINDOW_SIZE && src.len() <= FACADE_DECODE_MAX;
            let mut back = if facade {
                vec![0u8; src.len()]
            } else {
                Vec::new()
            };
            if back.len() != src.len() {
                t.libzstd_decode_only += 1;
            } else if let Err(e) = decoder
                .decompress_exact(&ours, &mut back)
                .map(|_| back == *src)
            {
                ok = false;
                println!("DECODE (ours) {name} L{level}: {e}");
            } else if back != *src {
                ok = false;
                println!("DECODE (ours) {name} L{level}: wrong content");
            }
            match oracle::decompress(&ours, src.len()) {
                Ok(d) if d == *src => {}
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
        "oracle: libzstd {} ; {} inputs",
        oracle::version_number(),
        inputs.len()
    );
    for (level, t) in &tallies {
        println!(
            "level {level:>7}: identical {}/{}   (decoded by libzstd only: {}; 64 KiB also in place: {})",
            t.identical, t.total, t.libzstd_decode_only, t.in_place
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
