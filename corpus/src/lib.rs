//! Frozen, seeded payload generators for zarkit's tests, goldens and benchmarks.
//!
//! Every generator is deterministic forever: it uses its own SplitMix64 generator with a
//! fixed seed, never `rand` or the host. Changing a generator changes the goldens in
//! `goldens/zstd-frames.txt`, so treat the code below as frozen.

/// Path of the golden oracle frame sizes and hashes, relative to this crate.
pub const GOLDEN_FRAMES_FILE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/goldens/zstd-frames.txt");
/// Path of the golden oracle frames of multi-megabyte [`long_range`] inputs: lines of
/// `longrange <input size> <seed> <level> <frame size> <SHA-256 of the frame, hex>`.
pub const GOLDEN_LARGE_FRAMES_FILE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/goldens/zstd-frames-large.txt");
/// Path of the golden oracle streams (`ZSTD_compressStream2` driven as the `zstd` tool
/// drives it) of multi-megabyte [`long_range`] inputs: lines of `stream <input size> <seed>
/// <level> <file|stdin> <frame size> <SHA-256 of the frame, hex>`.
pub const GOLDEN_STREAM_FRAMES_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/goldens/zstd-stream-frames.txt"
);

/// SplitMix64, a tiny fixed PRNG (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }
}

/// Payload shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Pseudo-English words, spaces, punctuation and line breaks.
    Text,
    /// Fixed-layout binary records with counters, small floats and tags.
    Binary,
    /// Uniform random bytes.
    Random,
    /// All zero.
    Zeros,
    /// Mostly a few byte values with rare others.
    LowEntropy,
    /// Only two byte values, randomly mixed.
    TwoSymbol,
    /// One short record repeated with rare mutations.
    Records,
    /// Alternating runs of text, random, zeros and records.
    Mixed,
    /// 16 KiB text + 8 KiB random + 8 KiB text, zero-padded to the size.
    Hetero,
    /// Geometric byte distribution (symbol k has probability about 2^-(k+1)): deep Huffman trees.
    Skewed,
    /// All 256 byte values with linearly falling probabilities: wide Huffman alphabets.
    Triangular,
    /// Text copied from random earlier distances (up to 192 KiB back) with small edits.
    FarRepeats,
}

impl Shape {
    pub const ALL: [Shape; 12] = [
        Shape::Text,
        Shape::Binary,
        Shape::Random,
        Shape::Zeros,
        Shape::LowEntropy,
        Shape::TwoSymbol,
        Shape::Records,
        Shape::Mixed,
        Shape::Hetero,
        Shape::Skewed,
        Shape::Triangular,
        Shape::FarRepeats,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Text => "text",
            Shape::Binary => "binary",
            Shape::Random => "random",
            Shape::Zeros => "zeros",
            Shape::LowEntropy => "lowent",
            Shape::TwoSymbol => "twosym",
            Shape::Records => "records",
            Shape::Mixed => "mixed",
            Shape::Hetero => "hetero",
            Shape::Skewed => "skewed",
            Shape::Triangular => "triangular",
            Shape::FarRepeats => "farrepeats",
        }
    }
}

const WORDS: [&str; 64] = [
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
    "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
    "been", "if", "more", "when", "will", "would", "who", "so", "archive", "block", "window",
    "literal", "sequence", "offset", "entropy", "table", "stream", "frame", "header", "checksum",
    "compress", "decoder", "huffman", "state",
];

/// Generates `size` bytes of `shape` from `seed`.
pub fn generate(shape: Shape, size: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed ^ (shape as u64).wrapping_mul(0x1000_0000_01B3));
    let mut out = Vec::with_capacity(size + 64);
    match shape {
        Shape::Text => text(&mut rng, &mut out, size),
        Shape::Binary => {
            let mut counter = rng.next_u64() as u32;
            while out.len() < size {
                counter = counter.wrapping_add(1 + rng.below(3) as u32);
                out.extend_from_slice(&counter.to_le_bytes());
                out.extend_from_slice(&((rng.below(1000) as f32) * 0.25).to_le_bytes());
                out.extend_from_slice(&[b'R', b'C', rng.below(4) as u8, 0]);
                out.extend_from_slice(&(rng.below(65536) as u16).to_le_bytes());
                out.extend_from_slice(&[0, 0]);
            }
        }
        Shape::Random => {
            while out.len() < size {
                out.extend_from_slice(&rng.next_u64().to_le_bytes());
            }
        }
        Shape::Zeros => out.resize(size, 0),
        Shape::LowEntropy => {
            while out.len() < size {
                let r = rng.below(100);
                out.push(match r {
                    0..=59 => b'a',
                    60..=84 => b'b',
                    85..=94 => b'c',
                    _ => rng.below(256) as u8,
                });
            }
        }
        Shape::TwoSymbol => {
            while out.len() < size {
                let bits = rng.next_u64();
                for i in 0..64 {
                    out.push(if (bits >> i) & 1 == 1 { b'x' } else { b'y' });
                }
            }
        }
        Shape::Records => {
            let record: Vec<u8> = (0..(24 + rng.below(40)))
                .map(|_| rng.below(256) as u8)
                .collect();
            while out.len() < size {
                let start = out.len();
                out.extend_from_slice(&record);
                if rng.below(8) == 0 {
                    let i = start + rng.below(record.len() as u64) as usize;
                    out[i] = rng.below(256) as u8;
                }
            }
        }
        Shape::Mixed => {
            while out.len() < size {
                let run = 256 + rng.below(4096) as usize;
                let sub = match rng.below(4) {
                    0 => Shape::Text,
                    1 => Shape::Random,
                    2 => Shape::Zeros,
                    _ => Shape::Records,
                };
                out.extend_from_slice(&generate(sub, run, rng.next_u64()));
            }
        }
        Shape::Hetero => {
            out.extend_from_slice(&generate(Shape::Text, 16 * 1024, seed ^ 1));
            out.extend_from_slice(&generate(Shape::Random, 8 * 1024, seed ^ 2));
            out.extend_from_slice(&generate(Shape::Text, 8 * 1024, seed ^ 3));
            out.truncate(size);
            out.resize(size, 0);
        }
        Shape::Skewed => {
            while out.len() < size {
                let r = rng.next_u64() | (1 << 40);
                out.push(r.trailing_zeros() as u8);
            }
        }
        Shape::Triangular => {
            while out.len() < size {
                let a = rng.below(256);
                let b = rng.below(256);
                out.push(a.min(b) as u8);
            }
        }
        Shape::FarRepeats => {
            while out.len() < size {
                if out.len() < 1024 || rng.below(4) == 0 {
                    let target = out.len() + 64 + rng.below(512) as usize;
                    text(&mut rng, &mut out, target);
                } else {
                    let back = 1 + rng.below(out.len().min(192 * 1024) as u64) as usize;
                    let len = 4 + rng.below(300) as usize;
                    let from = out.len() - back;
                    for i in 0..len {
                        let b = out[from + i];
                        out.push(if rng.below(64) == 0 { b ^ 0x20 } else { b });
                    }
                }
            }
        }
    }
    out.truncate(size);
    out
}

fn text(rng: &mut SplitMix64, out: &mut Vec<u8>, size: usize) {
    let mut sentence_start = true;
    while out.len() < size {
        // Zipf-like: low word indices are much more frequent.
        let a = rng.below(WORDS.len() as u64);
        let b = rng.below(WORDS.len() as u64);
        let word = WORDS[a.min(b) as usize];
        if sentence_start {
            let mut w = word.as_bytes().to_vec();
            w[0] = w[0].to_ascii_uppercase();
            out.extend_from_slice(&w);
            sentence_start = false;
        } else {
            out.extend_from_slice(word.as_bytes());
        }
        match rng.below(20) {
            0 => {
                out.extend_from_slice(b". ");
                sentence_start = true;
            }
            1 => out.extend_from_slice(b", "),
            2 => {
                out.extend_from_slice(b".\n");
                sentence_start = true;
            }
            _ => out.push(b' '),
        }
    }
}

/// A named, frozen payload used by goldens and benchmarks.
#[derive(Clone, Copy, Debug)]
pub struct Payload {
    pub name: &'static str,
    pub shape: Shape,
    pub size: usize,
    pub seed: u64,
}

impl Payload {
    pub fn bytes(&self) -> Vec<u8> {
        generate(self.shape, self.size, self.seed)
    }
}

const fn p(name: &'static str, shape: Shape, size: usize) -> Payload {
    Payload {
        name,
        shape,
        size,
        seed: 0x5A52_2024,
    }
}

/// The frozen payload set. Names are stable; benches use text8k, random8k, hetero64k,
/// text64k, binary64k, random64k and text200k.
pub const PAYLOADS: &[Payload] = &[
    p("empty", Shape::Zeros, 0),
    p("text1", Shape::Text, 1),
    p("text100", Shape::Text, 100),
    p("text1k", Shape::Text, 1024),
    p("text8k", Shape::Text, 8 * 1024),
    p("random8k", Shape::Random, 8 * 1024),
    p("binary8k", Shape::Binary, 8 * 1024),
    p("text16k", Shape::Text, 16 * 1024),
    p("mixed20k", Shape::Mixed, 20_000),
    p("hetero64k", Shape::Hetero, 64 * 1024),
    p("text64k", Shape::Text, 64 * 1024),
    p("binary64k", Shape::Binary, 64 * 1024),
    p("random64k", Shape::Random, 64 * 1024),
    p("zeros64k", Shape::Zeros, 64 * 1024),
    p("lowent64k", Shape::LowEntropy, 64 * 1024),
    p("twosym64k", Shape::TwoSymbol, 64 * 1024),
    p("records64k", Shape::Records, 64 * 1024),
    p("mixed64k", Shape::Mixed, 64 * 1024),
    p("text65537", Shape::Text, 65537),
    p("text128k", Shape::Text, 128 * 1024),
    p("skewed64k", Shape::Skewed, 64 * 1024),
    p("triangular64k", Shape::Triangular, 64 * 1024),
    p("farrepeats64k", Shape::FarRepeats, 64 * 1024),
    p("text200k", Shape::Text, 200_000),
    p("farrepeats250k", Shape::FarRepeats, 250_000),
    p("mixed200k", Shape::Mixed, 200_000),
    p("zeros256k", Shape::Zeros, 256 * 1024),
    p("text256k", Shape::Text, 256 * 1024),
];

/// Looks a payload up by name.
pub fn payload(name: &str) -> Option<Payload> {
    PAYLOADS.iter().copied().find(|p| p.name == name)
}

/// Levels the goldens cover (implemented or not; later stages use the rest).
pub const GOLDEN_LEVELS: &[i32] = &[
    -131072, -100, -7, -5, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
    19, 20, 21, 22,
];

/// One line of the goldens file: the oracle's frame for a payload at a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Golden {
    pub payload: String,
    pub level: i32,
    pub frame_size: usize,
    pub xxh64: u64,
}

/// xxh64 (seed 0) of a frame, as stored in the goldens.
pub fn frame_hash(frame: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(frame, 0)
}

/// Formats a golden line: `payload level frame_size xxh64-hex`.
pub fn format_golden(g: &Golden) -> String {
    format!(
        "{} {} {} {:016x}",
        g.payload, g.level, g.frame_size, g.xxh64
    )
}

/// Parses the goldens file (comments start with `#`).
pub fn parse_goldens(text: &str) -> Result<Vec<Golden>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("goldens line {}: malformed: {line:?}", i + 1);
        if f.len() != 4 {
            return Err(bad());
        }
        out.push(Golden {
            payload: f[0].to_string(),
            level: f[1].parse().map_err(|_| bad())?,
            frame_size: f[2].parse().map_err(|_| bad())?,
            xxh64: u64::from_str_radix(f[3], 16).map_err(|_| bad())?,
        });
    }
    Ok(out)
}

/// Reads and parses [`GOLDEN_FRAMES_FILE`].
pub fn load_goldens() -> Result<Vec<Golden>, String> {
    let text = std::fs::read_to_string(GOLDEN_FRAMES_FILE)
        .map_err(|e| format!("{GOLDEN_FRAMES_FILE}: {e}"))?;
    parse_goldens(&text)
}

/// A large input (`zstd_diff --huge`, the large goldens) whose matches reach back across
/// every window size: fresh pieces of text, binary records and random bytes, interleaved with copies (a few bytes edited) from
/// distances just below, at and just above each power of two from 2^17 to 2^27, and from
/// anywhere earlier.
pub fn long_range(size: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let mut out = generate(Shape::Mixed, size.min(256 << 10), seed ^ 0x10A6);
    let fresh = [
        Shape::Text,
        Shape::Binary,
        Shape::Random,
        Shape::FarRepeats,
        Shape::Records,
    ];
    while out.len() < size {
        let len = (1 + rng.below(64 << 10) as usize).min(size - out.len());
        let choice = rng.below(8);
        if choice < 3 {
            let shape = fresh[rng.below(fresh.len() as u64) as usize];
            out.extend_from_slice(&generate(shape, len, rng.next_u64())[..len]);
            continue;
        }
        let dist = if choice < 7 {
            let k = 17 + rng.below(11) as u32;
            let around = (rng.below(9) as i64 - 4) * (1 + rng.below(64) as i64);
            ((1i64 << k) + around).max(1) as usize
        } else {
            1 + rng.below(out.len() as u64) as usize
        };
        if dist > out.len() {
            out.extend_from_slice(&generate(Shape::Text, len, rng.next_u64())[..len]);
            continue;
        }
        let from = out.len() - dist;
        for i in 0..len {
            let b = out[from + i];
            out.push(if rng.below(4096) == 0 { b ^ 0x5A } else { b });
        }
    }
    out.truncate(size);
    out
}

/// xxh64 over the xxh64s of all [`PAYLOADS`], pinned by a test.
#[cfg(test)]
const PAYLOADS_HASH: &str = "87e9726a69b6f885";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_have_exact_sizes_and_are_deterministic() {
        for shape in Shape::ALL {
            for size in [0, 1, 7, 1000, 70_000] {
                let a = generate(shape, size, 42);
                assert_eq!(a.len(), size, "{shape:?}");
                assert_eq!(a, generate(shape, size, 42));
            }
        }
    }

    #[test]
    fn generator_output_is_frozen() {
        // One hash over every payload: a change here invalidates the goldens.
        let mut all = Vec::new();
        for p in PAYLOADS {
            all.extend_from_slice(&frame_hash(&p.bytes()).to_le_bytes());
        }
        assert_eq!(format!("{:016x}", frame_hash(&all)), PAYLOADS_HASH);
    }

    #[test]
    fn golden_lines_round_trip() {
        let g = Golden {
            payload: "text8k".into(),
            level: -5,
            frame_size: 1234,
            xxh64: 0xdead_beef,
        };
        assert_eq!(parse_goldens(&format_golden(&g)).unwrap(), vec![g]);
    }
}
