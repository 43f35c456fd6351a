//! Differential check of our zstd decoder against native libzstd 1.5.7 on mutated frames:
//! both must accept the same inputs with identical output, or both refuse. Prints counts and
//! the first examples of every disagreement.
//!
//! `cargo run --release -p zarkit-benches --bin decode_diff [-- ROUNDS]`

use zarkit::zstd::{self, ZstdError};
use zarkit_benches::oracle;
use zarkit_corpus::SplitMix64;

const CAPACITY: usize = 1 << 20;

fn main() {
    oracle::assert_version();
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let mut rng = SplitMix64::new(0x5eed);
    let mut frames = Vec::new();
    let mut frames_src = Vec::new();
    let mut by_kind: std::collections::BTreeMap<(String, bool), usize> = Default::default();
    for (k, name) in [
        "text64k",
        "binary64k",
        "hetero64k",
        "text8k",
        "mixed20k",
        "text200k",
    ]
    .into_iter()
    .enumerate()
    {
        let src = zarkit_corpus::payload(name).expect("payload").bytes();
        for level in [-5, 1, 3, 6, 12, 19] {
            let mut f = oracle::compress(&src, level);
            if (k as i32 + level).rem_euclid(3) == 0 {
                // Add a content checksum.
                f[4] |= 0x04;
                f.extend_from_slice(&(xxhash_rust::xxh64::xxh64(&src, 0) as u32).to_le_bytes());
            }
            frames.push(f);
            frames_src.push(src.clone());
        }
    }
    let (mut agree_ok, mut agree_err) = (0usize, 0usize);
    let mut differ: Vec<String> = Vec::new();
    let mut ours_only: Vec<String> = Vec::new();
    let mut native_only: Vec<String> = Vec::new();
    let (mut n_differ, mut n_ours_only, mut n_native_only) = (0usize, 0usize, 0usize);
    for round in 0..rounds {
        let f = &frames[round % frames.len()];
        let mut m = f.clone();
        match rng.below(5) {
            0 => m.truncate(rng.below(m.len() as u64 + 1) as usize),
            1 => {
                for _ in 0..1 + rng.below(4) {
                    let i = rng.below(m.len() as u64) as usize;
                    m[i] ^= 1 << rng.below(8);
                }
            }
            2 => {
                let i = rng.below(m.len() as u64) as usize;
                m[i] = rng.below(256) as u8;
            }
            3 => {
                let i = rng.below(m.len().min(96) as u64) as usize;
                m[i] ^= 1 << rng.below(8);
            }
            _ => {
                // Flip a bit in the last bytes (sequence bitstreams, checksum).
                let i = m.len() - 1 - rng.below(m.len().min(64) as u64) as usize;
                m[i] ^= 1 << rng.below(8);
            }
        }
        let ours = zstd::decompress(&m, CAPACITY);
        let native = oracle::decompress(&m, CAPACITY);
        match (&ours, &native) {
            (Ok(a), Ok(b)) if a == b => agree_ok += 1,
            (Ok(_), Ok(_)) => {
                n_differ += 1;
                if differ.len() < 5 {
                    differ.push(format!("round {round}: both accept, outputs differ"));
                }
            }
            (Err(_), Err(_)) => agree_err += 1,
            (Ok(a), Err(e)) => {
                n_ours_only += 1;
                if ours_only.len() < 8 {
                    ours_only.push(format!(
                        "round {round}: we accept ({} bytes), libzstd: {e}",
                        a.len()
                    ));
                }
            }
            (Err(e), Ok(b)) => {
                n_native_only += 1;
                let kind = match e {
                    ZstdError::BlockTooLarge { .. } => "block maximum".to_string(),
                    ZstdError::BitstreamNotConsumed { stream, .. } => {
                        format!("{stream} not consumed")
                    }
                    other => format!("{other:?}")
                        .split([' ', '{'])
                        .next()
                        .unwrap_or("")
                        .to_string(),
                };
                let original = frames_src[round % frames.len()] == *b;
                *by_kind.entry((kind.clone(), original)).or_insert(0) += 1;
                if native_only.len() < 12 && !kind.contains("not consumed") {
                    native_only.push(format!(
                        "round {round} [{kind}]: libzstd accepts ({} bytes), we: {e}",
                        b.len()
                    ));
                }
            }
        }
    }
    println!(
        "{rounds} mutated frames: {agree_ok} both decode identically, {agree_err} both refuse"
    );
    println!("outputs differ: {n_differ}");
    differ.iter().for_each(|s| println!("  {s}"));
    println!("only we accept: {n_ours_only}");
    ours_only.iter().for_each(|s| println!("  {s}"));
    println!("only libzstd accepts: {n_native_only}");
    for ((kind, original), n) in &by_kind {
        let what = if *original {
            "libzstd's output is the original payload"
        } else {
            "libzstd's output is NOT the original"
        };
        println!("  {n} x {kind} ({what})");
    }
    native_only.iter().for_each(|s| println!("  {s}"));
}
