//! Generated directory trees for the container benchmarks, from the frozen corpus
//! generators (the same bytes on every machine).

use std::path::Path;

use zarkit_corpus::{Shape, generate};

/// The small tree's four 64 KiB files (text, hetero, binary, random), by name.
pub fn small_tree_files() -> Vec<(&'static str, Vec<u8>)> {
    let files = [
        ("a_text.txt", Shape::Text),
        ("b_hetero.bin", Shape::Hetero),
        ("c_records.bin", Shape::Binary),
        ("d_random.bin", Shape::Random),
    ];
    files
        .iter()
        .enumerate()
        .map(|(i, (name, shape))| (*name, generate(*shape, 65536, 0xB0 + i as u64)))
        .collect()
}

/// Writes the small tree (`small_tree_files`) into `dir`: 4 blocks. Returns its byte count.
pub fn small_tree(dir: &Path) -> std::io::Result<u64> {
    std::fs::create_dir_all(dir)?;
    let mut total = 0;
    for (name, bytes) in small_tree_files() {
        std::fs::write(dir.join(name), &bytes)?;
        total += bytes.len() as u64;
    }
    Ok(total)
}

/// About `total` bytes in a game-dump-like tree: nested folders, many small files, some
/// large ones, a mix of text, binary records, low-entropy data, zeros and random data.
pub fn big_tree(dir: &Path, total: u64) -> std::io::Result<u64> {
    const SHAPES: [Shape; 7] = [
        Shape::Text,
        Shape::Binary,
        Shape::Records,
        Shape::LowEntropy,
        Shape::Mixed,
        Shape::Zeros,
        Shape::Random,
    ];
    let mut rng = zarkit_corpus::SplitMix64::new(0x6A3E_5EED);
    let mut written = 0u64;
    let mut i = 0u64;
    while written < total {
        let folder = dir.join(format!(
            "content/dir{:02}/sub{}",
            rng.below(24),
            rng.below(3)
        ));
        std::fs::create_dir_all(&folder)?;
        // Mostly small files, a few up to 4 MiB.
        let size = match rng.below(10) {
            0..=5 => 1 + rng.below(32 << 10),
            6..=8 => (32 << 10) + rng.below(480 << 10),
            _ => (512 << 10) + rng.below(3 << 20),
        }
        .min(total - written);
        let shape = SHAPES[rng.below(SHAPES.len() as u64) as usize];
        std::fs::write(
            folder.join(format!("file{i:05}.bin")),
            generate(shape, size as usize, i),
        )?;
        written += size;
        i += 1;
    }
    Ok(written)
}
