//! Dictionary-training differential cases: sample sets drawn from the corpus shapes, and
//! the comparison of our `train_dictionary` / `finalize_dictionary` with libzstd 1.5.7's
//! `ZDICT_trainFromBuffer` / `ZDICT_finalizeDictionary`, shared by the `train_diff` harness
//! and the tests below (which CI runs).

use zarkit::zstd::{FinalizeOptions, finalize_dictionary, train_dictionary};
use zarkit_corpus::{Shape, SplitMix64, generate};

use crate::oracle;

/// One training case: samples and a capacity.
pub struct TrainCase {
    pub name: String,
    pub samples: Vec<Vec<u8>>,
    pub capacity: usize,
}

/// Samples of `shape`: `n` files of `min..=max` bytes, each a fresh draw (so they share
/// vocabulary, not bytes) or, when `related`, cuts of one long stream.
pub fn samples(
    shape: Shape,
    n: usize,
    min: usize,
    max: usize,
    related: bool,
    seed: u64,
) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64::new(seed);
    let sizes: Vec<usize> = (0..n)
        .map(|_| min + rng.below((max - min) as u64 + 1) as usize)
        .collect();
    if related {
        let all = generate(shape, sizes.iter().sum(), rng.next_u64());
        let mut at = 0;
        sizes
            .iter()
            .map(|&s| {
                at += s;
                all[at - s..at].to_vec()
            })
            .collect()
    } else {
        sizes
            .iter()
            .map(|&s| generate(shape, s, rng.next_u64()))
            .collect()
    }
}

/// The samples `zstd --train DIR` would load from the files under `dir`: the files in name
/// order (directories walked in place), put in its order (`shuffle_like_zstd`), empty ones
/// left out, each cut to its first 128 KiB.
pub fn samples_of_dir(dir: &std::path::Path) -> Vec<Vec<u8>> {
    fn walk(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        if !p.is_dir() {
            out.push(p.to_path_buf());
            return;
        }
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .expect("readable directory")
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for e in entries {
            walk(&e, out);
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    zarkit::zstd::shuffle_like_zstd(&mut files);
    files
        .iter()
        .map(|f| {
            let mut data = std::fs::read(f).expect("readable file");
            data.truncate(128 * 1024);
            data
        })
        .filter(|d| !d.is_empty())
        .collect()
}

/// A random training case: 0 to 400 samples of 0 B to 160 KiB (most of them small), a
/// capacity of 0 to 112 KiB.
pub fn random(rng: &mut SplitMix64) -> TrainCase {
    let shape = Shape::ALL[rng.below(Shape::ALL.len() as u64) as usize];
    let n = match rng.below(4) {
        0 => rng.below(12) as usize,
        1 => 8 + rng.below(60) as usize,
        2 => 50 + rng.below(200) as usize,
        _ => 200 + rng.below(200) as usize,
    };
    let (min, max) = match rng.below(4) {
        0 => (0, 64),
        1 => (16, 2048),
        2 => (512, 16 * 1024),
        _ => (0, 160 * 1024 / n.max(8)),
    };
    let capacity = match rng.below(4) {
        0 => rng.below(1024) as usize,
        1 => 256 + rng.below(4096) as usize,
        2 => 1024 + rng.below(32 * 1024) as usize,
        _ => 16 * 1024 + rng.below(96 * 1024) as usize,
    };
    let related = rng.below(2) == 0;
    let seed = rng.next_u64();
    TrainCase {
        name: format!(
            "{} x{n} {min}..{max}{} cap {capacity} #{seed:x}",
            shape.name(),
            if related { " related" } else { "" }
        ),
        samples: samples(shape, n, min, max, related, seed),
        capacity,
    }
}

/// What one comparison found.
pub enum Outcome {
    /// Both made the same dictionary, of this size.
    Identical(usize),
    /// Both refused (libzstd's error name, ours).
    BothRefused(String, String),
    /// Anything else, described.
    Failed(String),
}

fn compare(ours: Result<Vec<u8>, String>, native: Result<Vec<u8>, String>) -> Outcome {
    match (ours, native) {
        (Ok(a), Ok(b)) if a == b => Outcome::Identical(a.len()),
        (Ok(a), Ok(b)) => {
            let at = a.iter().zip(&b).position(|(x, y)| x != y);
            Outcome::Failed(format!(
                "dictionaries differ: ours {} bytes, libzstd {} bytes, first difference at {}",
                a.len(),
                b.len(),
                at.map_or("the end of the shorter".to_string(), |i| format!(
                    "byte {i}"
                ))
            ))
        }
        (Err(ours), Err(native)) => Outcome::BothRefused(native, ours),
        (Ok(a), Err(native)) => Outcome::Failed(format!(
            "libzstd refused ({native}), ours made {} bytes",
            a.len()
        )),
        (Err(ours), Ok(b)) => Outcome::Failed(format!(
            "ours refused ({ours}), libzstd made {} bytes",
            b.len()
        )),
    }
}

/// Train on `case` both ways and compare.
pub fn check_train(case: &TrainCase) -> Outcome {
    let ours = train_dictionary(&case.samples, case.capacity).map_err(|e| e.to_string());
    let native = oracle::try_train_dictionary(&case.samples, case.capacity);
    compare(ours, native)
}

/// Finalize `content` with `case`'s samples both ways and compare.
pub fn check_finalize(case: &TrainCase, content: &[u8], level: i32, dict_id: u32) -> Outcome {
    let options = FinalizeOptions { level, dict_id };
    let ours = finalize_dictionary(content, &case.samples, case.capacity, options)
        .map_err(|e| e.to_string());
    let native =
        oracle::try_finalize_dictionary(content, &case.samples, case.capacity, level, dict_id);
    compare(ours, native)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect_identical(outcome: Outcome, what: &str) -> usize {
        match outcome {
            Outcome::Identical(n) => n,
            Outcome::BothRefused(native, ours) => {
                panic!("{what}: both refused (libzstd: {native}; ours: {ours})")
            }
            Outcome::Failed(why) => panic!("{what}: {why}"),
        }
    }

    #[test]
    fn trained_dictionaries_equal_libzstd() {
        for (i, (shape, n, min, max, capacity)) in [
            (Shape::Text, 64, 1024, 4096, 4096),
            (Shape::Text, 200, 100, 3000, 16 * 1024),
            (Shape::Binary, 40, 512, 8192, 2048),
            (Shape::Records, 30, 64, 2048, 1000),
            (Shape::Mixed, 12, 4096, 40_000, 112 * 1024),
        ]
        .into_iter()
        .enumerate()
        {
            let case = TrainCase {
                name: String::new(),
                samples: samples(shape, n, min, max, i % 2 == 0, i as u64),
                capacity,
            };
            expect_identical(check_train(&case), shape.name());
        }
    }

    /// Real files: the repository's sample tree, gathered as `zstd --train` gathers them.
    #[test]
    fn training_on_the_sample_tree_equals_libzstd() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/sample-tree");
        let samples = samples_of_dir(&root);
        for capacity in [4096, 16 * 1024] {
            let case = TrainCase {
                name: String::new(),
                samples: samples.clone(),
                capacity,
            };
            expect_identical(check_train(&case), "corpus/sample-tree");
        }
    }

    #[test]
    fn finalized_dictionaries_equal_libzstd() {
        let case = TrainCase {
            name: String::new(),
            samples: samples(Shape::Text, 30, 200, 6000, false, 7),
            capacity: 8192,
        };
        let content = generate(Shape::Text, 6000, 99);
        for level in [-3, 1, 3, 6, 12, 19, 22] {
            expect_identical(
                check_finalize(&case, &content, level, 0),
                &format!("level {level}"),
            );
        }
        // The content's start is kept when it does not fit; an ID may be given.
        let big = generate(Shape::Text, 8192, 98);
        expect_identical(check_finalize(&case, &big, 3, 1234), "content too large");
        // Content shorter than 8 bytes is padded.
        expect_identical(check_finalize(&case, b"abc", 3, 0), "tiny content");
    }

    #[test]
    fn refusals_match_libzstd() {
        let few = TrainCase {
            name: String::new(),
            samples: samples(Shape::Text, 6, 1000, 2000, false, 1),
            capacity: 4096,
        };
        assert!(matches!(check_train(&few), Outcome::BothRefused(..)));
        let small = TrainCase {
            capacity: 255,
            ..TrainCase {
                name: String::new(),
                samples: samples(Shape::Text, 20, 1000, 2000, false, 2),
                capacity: 0,
            }
        };
        assert!(matches!(check_train(&small), Outcome::BothRefused(..)));
    }
}
