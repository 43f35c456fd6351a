//! Differential harness for streaming compression: our `zstd::StreamEncoder` against
//! libzstd 1.5.7's `ZSTD_compressStream2` (one thread), driven by the same calls, byte for
//! byte.
//!
//! `cargo run --release -p zarkit-benches --bin stream_diff [-- --cases N --seed S
//! --max SIZE --levels 1,3,19 --case K --verbose]` (`--case K`: only the K-th case drawn);
//! `... -- --files A,B --levels 1,19`: real files, streamed as the `zstd` tool streams them
//! (`--dict FILE`: each with that dictionary, as `zstd -D FILE`);
//! `... -- --huge 3700M --levels 1,3`: one stream past libzstd's index correction;
//! `--dump FILE` with `--case K`: that case's input written to FILE (its dictionary to
//! FILE.dict);
//! `--long W` in any of these: long-distance matching on with window log W (`zstd --long=W`);
//! `--dds` in any of these: the dedicated dictionary search on in both contexts, as the
//! `zstd` tool sets it (`ZSTD_c_enableDedicatedDictSearch`): what `zstd -D` writes.
//!
//! Each case draws a level, an input (every generated shape, and inputs whose matches reach
//! back across every window size), a size up to `--max` (default 4M), a pledged size or
//! none, the checksum flag, a way to cut the input into calls (a fixed chunk size from 1 byte
//! to 1 MiB, or random sizes), whether the last input comes with the end or before it, and
//! sometimes flushes in between. Every frame of ours must also decode back to the input.
//! Exits non-zero on any difference.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use zarkit_benches::oracle;
use zarkit_benches::stream_cases::{Case, LEVELS, Outcome, cli_plan};
use zarkit_corpus::SplitMix64;

fn parse_size(s: &str) -> usize {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    digits.parse::<usize>().expect("size") * unit
}

/// `--files A,B --levels 1,19`: each file as `zarchive compress` and `zstd --single-thread`
/// stream it (file: size pledged, last read ending the frame; stdin: unknown size), checksum
/// on, ours against the oracle.
fn check_files(
    files: &str,
    levels: &[i32],
    long: Option<u32>,
    dict: Option<&(Vec<u8>, String)>,
    dds: bool,
) -> ExitCode {
    let mut failures = 0;
    for path in files.split(',') {
        let src = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for &level in levels {
            for file in [true, false] {
                let case = Case {
                    level,
                    input: format!("{path} ({} bytes)", src.len()),
                    pledged: file.then_some(src.len() as u64),
                    checksum: true,
                    plan: cli_plan(src.len(), file),
                    dict: dict.cloned(),
                    long,
                    header: oracle::HeaderFlags::default(),
                    dds,
                    src: src.clone(),
                };
                let start = Instant::now();
                let outcome = case.check();
                let took = start.elapsed().as_secs_f64();
                match outcome {
                    Outcome::Identical(n) => {
                        println!("{}: identical, {n} bytes ({took:.1} s)", case.describe())
                    }
                    Outcome::Refused(why) => println!("{}: refused ({why})", case.describe()),
                    Outcome::Failed(why) => {
                        failures += 1;
                        println!("{}: {why}", case.describe());
                    }
                }
            }
        }
    }
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `--huge SIZE --levels 1,3`: a stream of SIZE bytes (past 3.5 GiB, libzstd corrects its
/// indices) made 1 MiB at a time and fed to both sides call by call, no size pledged, the
/// frames compared as they grow (nothing holds the whole input or frame).
fn check_huge(size: usize, levels: &[i32], long: Option<u32>) -> ExitCode {
    use zarkit::zstd::StreamEncoder;
    use zarkit_benches::oracle::{NativeStream, StreamCall};
    const CHUNK: usize = 1 << 20;
    let base = zarkit_corpus::long_range(8 * CHUNK, 0x4A6E);
    let mut failures = 0;
    for &level in levels {
        let start = Instant::now();
        let mut ours = StreamEncoder::new(level).expect("level");
        ours.set_checksum(true).unwrap();
        ours.set_long_distance_matching(long).unwrap();
        let mut native = NativeStream::new(level, true);
        if let Some(w) = long {
            native.set_long(w).unwrap();
        }
        native.begin(None).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut compared, mut total_out) = (0u64, 0u64);
        let mut chunk = vec![0u8; CHUNK];
        let mut pos = 0usize;
        let mut differ = None;
        while pos < size && differ.is_none() {
            let k = pos / CHUNK;
            let n = CHUNK.min(size - pos);
            // A window of the base, shifted by the chunk number, with a few edits: matches
            // near and far, never the same chunk twice.
            let from = (k * 7919) % (base.len() - CHUNK);
            chunk[..n].copy_from_slice(&base[from..from + n]);
            for e in 0..16 {
                let at = (k * 131 + e * 65_537) % n;
                chunk[at] ^= (k as u8).wrapping_add(e as u8) | 1;
            }
            ours.compress(&chunk[..n], &mut a).unwrap();
            native
                .call(StreamCall::Continue(&chunk[..n]), &mut b)
                .unwrap();
            pos += n;
            let same = a.len().min(b.len());
            if a[..same] != b[..same] {
                let first = a.iter().zip(&b).position(|(x, y)| x != y).unwrap();
                differ = Some(compared + first as u64);
            }
            compared += same as u64;
            total_out += same as u64;
            a.drain(..same);
            b.drain(..same);
        }
        if differ.is_none() {
            ours.finish(&[], &mut a).unwrap();
            native.call(StreamCall::End(&[]), &mut b).unwrap();
            total_out += a.len() as u64;
            if a != b {
                differ =
                    Some(compared + a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(0) as u64);
            }
        }
        match differ {
            None => println!(
                "level {level}: {size} bytes streamed, {total_out}-byte frames identical ({:.1} s)",
                start.elapsed().as_secs_f64()
            ),
            Some(at) => {
                failures += 1;
                println!(
                    "level {level}: {size} bytes: frames DIFFER at byte {at} (input byte {pos} read)"
                );
            }
        }
    }
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let code = check();
    zarkit_benches::report_overflow_corrections();
    code
}

fn check() -> ExitCode {
    oracle::assert_version();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let cases: usize = arg("--cases").map_or(200, |s| s.parse().expect("--cases"));
    let seed: u64 = arg("--seed").map_or(1, |s| s.parse().expect("--seed"));
    let max = arg("--max").map_or(4 << 20, |s| parse_size(&s));
    let levels: Vec<i32> = arg("--levels").map_or(LEVELS.to_vec(), |s| {
        s.split(',').map(|l| l.parse().expect("level")).collect()
    });
    let verbose = args.iter().any(|a| a == "--verbose");
    let only: Option<usize> = arg("--case").map(|s| s.parse().expect("--case"));
    let long: Option<u32> = arg("--long").map(|s| s.parse().expect("--long"));
    let dds = args.iter().any(|a| a == "--dds");

    if let Some(size) = arg("--huge") {
        return check_huge(parse_size(&size), &levels, long);
    }
    if let Some(files) = arg("--files") {
        let dict = arg("--dict").map(|path| {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            (bytes, path)
        });
        return check_files(&files, &levels, long, dict.as_ref(), dds);
    }
    let mut rng = SplitMix64::new(seed);
    let mut per_level: BTreeMap<i32, (usize, usize, usize)> = BTreeMap::new();
    let mut failures = 0usize;
    let start = Instant::now();
    for i in 0..cases {
        let mut case = Case::draw(&mut rng, &levels, max);
        case.long = long;
        case.dds = dds;
        if only.is_some_and(|c| c != i) {
            continue;
        }
        if let Some(path) = arg("--dump") {
            std::fs::write(&path, &case.src).expect("--dump");
            if let Some((dict, _)) = &case.dict {
                std::fs::write(format!("{path}.dict"), dict).expect("--dump");
            }
        }
        let entry = per_level.entry(case.level).or_default();
        match case.check() {
            Outcome::Identical(n) => {
                entry.0 += 1;
                if verbose {
                    println!("case {i}: {}: identical, {n} bytes", case.describe());
                }
            }
            Outcome::Refused(why) => {
                entry.1 += 1;
                if verbose {
                    println!("case {i}: {}: both refuse ({why})", case.describe());
                }
            }
            Outcome::Failed(why) => {
                entry.2 += 1;
                failures += 1;
                println!("case {i}: {}: {why}", case.describe());
            }
        }
    }
    for (level, (same, refused, differ)) in &per_level {
        println!("level {level:>4}: {same} identical, {refused} refused, {differ} differ");
    }
    println!(
        "{cases} cases in {:.1} s, {failures} failures",
        start.elapsed().as_secs_f64()
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
