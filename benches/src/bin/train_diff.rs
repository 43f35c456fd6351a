//! Differential harness, dictionary training: our `train_dictionary` against libzstd 1.5.7's
//! `ZDICT_trainFromBuffer`, and `finalize_dictionary` against `ZDICT_finalizeDictionary`, on
//! the same samples.
//!
//! `cargo run --release -p zarkit-benches --bin train_diff [-- --cases N --seed S
//! --finalize]`, or `-- --dir DIR [--maxdict BYTES]` to compare on the files under DIR
//! gathered as `zstd --train` gathers them (name order, its shuffle, empty files skipped,
//! the first 128 KiB of each).
//!
//! Each case draws a shape, 0 to 400 samples (fresh draws of the shape or cuts of one
//! stream) of 0 B to 160 KiB, and a capacity of 0 B to 112 KiB. Both sides must make the
//! same dictionary or both refuse. With `--finalize`, each case also finalizes a content
//! (bytes of a shape drawn, up to 1.25 times the capacity and 64 KiB) at a level drawn from -7..=22, with an ID
//! drawn or derived.

use std::process::ExitCode;
use std::time::Instant;

use zarkit_benches::oracle;
use zarkit_benches::train_cases::{self, Outcome};
use zarkit_corpus::{Shape, SplitMix64, generate};

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
    let cases = num("--cases", 100) as usize;
    let seed = num("--seed", 0x7EA1);
    let finalize = args.iter().any(|a| a == "--finalize");
    if let Some(dir) = value("--dir") {
        return compare_dir(
            std::path::Path::new(dir),
            num("--maxdict", 112_640) as usize,
        );
    }
    let mut rng = SplitMix64::new(seed);
    let (mut identical, mut refused, mut failed) = (0, 0, 0);
    let started = Instant::now();
    for i in 0..cases {
        let case = train_cases::random(&mut rng);
        let outcome = if finalize {
            let shape = Shape::ALL[rng.below(Shape::ALL.len() as u64) as usize];
            // Mostly content that fits the capacity, sometimes more.
            let len = rng.below((case.capacity + case.capacity / 4).min(64 * 1024) as u64 + 1);
            let content = generate(shape, len as usize, rng.next_u64());
            let level = rng.below(30) as i32 - 7;
            let dict_id = if rng.below(2) == 0 {
                0
            } else {
                rng.next_u64() as u32
            };
            let outcome = train_cases::check_finalize(&case, &content, level, dict_id);
            if let Outcome::Failed(why) = &outcome {
                eprintln!(
                    "case {i} ({}; content {} {} B, level {level}, id {dict_id}): {why}",
                    case.name,
                    shape.name(),
                    content.len()
                );
            }
            outcome
        } else {
            let outcome = train_cases::check_train(&case);
            if let Outcome::Failed(why) = &outcome {
                eprintln!("case {i} ({}): {why}", case.name);
            }
            outcome
        };
        match outcome {
            Outcome::Identical(_) => identical += 1,
            Outcome::BothRefused(..) => refused += 1,
            Outcome::Failed(_) => failed += 1,
        }
    }
    println!(
        "{} cases ({}): {identical} identical, {refused} refused by both, {failed} failed, {:.1} s",
        cases,
        if finalize { "finalize" } else { "train" },
        started.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Train both ways on the files under `dir`, gathered as `zstd --train DIR/*` gathers them.
fn compare_dir(dir: &std::path::Path, capacity: usize) -> ExitCode {
    let samples = train_cases::samples_of_dir(dir);
    let case = train_cases::TrainCase {
        name: dir.display().to_string(),
        samples,
        capacity,
    };
    match train_cases::check_train(&case) {
        Outcome::Identical(n) => {
            println!(
                "{}: identical, {n} bytes from {} samples",
                case.name,
                case.samples.len()
            );
            ExitCode::SUCCESS
        }
        Outcome::BothRefused(native, ours) => {
            println!(
                "{}: both refused (libzstd: {native}; ours: {ours})",
                case.name
            );
            ExitCode::SUCCESS
        }
        Outcome::Failed(why) => {
            println!("{}: {why}", case.name);
            ExitCode::FAILURE
        }
    }
}
