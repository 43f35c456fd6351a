//! Shared helpers for the integration tests: fixture locations, hashing, manifests, a
//! counting allocator.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub mod counting;

/// `len` bytes that do not compress (their 64 KiB blocks are stored raw), made from `seed`.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    zarkit_corpus::generate(zarkit_corpus::Shape::Random, len, seed)
}

/// The fixtures folder shipped in this repository (`tests/fixtures`).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A ZAR fixture by relative path, e.g. `zar("basic/reference.zar")`.
pub fn zar(rel: &str) -> PathBuf {
    fixtures().join("zar").join(rel)
}

/// SHA-256 of `data` as lower-case hex.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One line of a fixture manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestEntry {
    /// `file <offset> <size> <sha256> <path>`
    File {
        offset: u64,
        size: u64,
        sha256: String,
        path: String,
    },
    /// `dir <path>/`
    Dir { path: String },
}

/// Parse a fixture manifest (see tests/fixtures/zar/README.md).
pub fn manifest(rel: &str) -> Vec<ManifestEntry> {
    let text = std::fs::read_to_string(zar(rel)).expect("manifest");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            if let Some(rest) = l.strip_prefix("dir ") {
                let path = rest
                    .split("/ ")
                    .next()
                    .unwrap_or(rest)
                    .trim_end_matches('/')
                    .to_string();
                ManifestEntry::Dir { path }
            } else {
                let mut it = l.splitn(5, ' ');
                let _ = it.next();
                let offset = it.next().unwrap().parse().unwrap();
                let size = it.next().unwrap().parse().unwrap();
                let sha256 = it.next().unwrap().to_string();
                let path = it.next().unwrap().to_string();
                ManifestEntry::File {
                    offset,
                    size,
                    sha256,
                    path,
                }
            }
        })
        .collect()
}

/// Copy the directory tree `src` into `dst` (created), byte for byte.
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// A private copy of `basic/tree` with its empty directory restored (git does not keep it).
pub fn basic_tree_copy(dir: &Path) -> PathBuf {
    let t = dir.join("tree");
    copy_tree(&zar("basic/tree"), &t);
    std::fs::create_dir_all(t.join("emptydir")).unwrap();
    t
}

/// Builds archives by hand, with whatever names and tree the test wants (including ones the
/// real writer refuses), so the reader and extractor can be tested on hostile input.
/// Data is stored in raw blocks; the integrity hash is correct.
pub mod craft {
    use sha2::{Digest, Sha256};
    use zarkit::zar::format::*;

    /// A node to craft: a directory (children are node indices) or a file.
    pub enum CNode {
        /// Directory with its name and child range.
        Dir {
            name: Vec<u8>,
            first: u32,
            count: u32,
        },
        /// File with its name and contents.
        File { name: Vec<u8>, data: Vec<u8> },
    }

    /// Serialise `nodes` (node 0 is the root; its name is ignored) into archive bytes.
    pub fn archive(nodes: &[CNode]) -> Vec<u8> {
        let mut stream = Vec::new();
        let mut names = Vec::new();
        let mut raw = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            let mut name_offset = |name: &[u8]| {
                if i == 0 {
                    return ROOT_NAME_OFFSET;
                }
                let o = names.len() as u32;
                zarkit::zar::names::encode_entry(name, &mut names);
                o
            };
            raw.push(match n {
                CNode::Dir { name, first, count } => RawNode::Dir {
                    name_offset: name_offset(name),
                    first_child: *first,
                    count: *count,
                    reserved: 0,
                },
                CNode::File { name, data } => {
                    let offset = stream.len() as u64;
                    stream.extend_from_slice(data);
                    RawNode::File {
                        name_offset: name_offset(name),
                        offset,
                        size: data.len() as u64,
                    }
                }
            });
        }
        let blocks = stream.len().div_ceil(BLOCK_SIZE);
        stream.resize(blocks * BLOCK_SIZE, 0);
        let mut out = stream;
        let data_size = out.len() as u64;
        let records_offset = out.len() as u64;
        for r in 0..blocks.div_ceil(BLOCKS_PER_RECORD) {
            let mut rec = OffsetRecord {
                base_offset: (r * BLOCKS_PER_RECORD * BLOCK_SIZE) as u64,
                ..Default::default()
            };
            for s in 0..BLOCKS_PER_RECORD.min(blocks - r * BLOCKS_PER_RECORD) {
                rec.size_minus_one[s] = 0xFFFF;
            }
            out.extend_from_slice(&rec.to_bytes());
        }
        let names_offset = out.len() as u64;
        out.extend_from_slice(&names);
        let tree_offset = out.len() as u64;
        for n in &raw {
            out.extend_from_slice(&n.to_bytes());
        }
        let end = out.len() as u64;
        let mut footer = Footer {
            compressed_data: Section {
                offset: 0,
                size: data_size,
            },
            offset_records: Section {
                offset: records_offset,
                size: names_offset - records_offset,
            },
            names: Section {
                offset: names_offset,
                size: tree_offset - names_offset,
            },
            file_tree: Section {
                offset: tree_offset,
                size: end - tree_offset,
            },
            meta_directory: Section {
                offset: end,
                size: 0,
            },
            meta_data: Section {
                offset: end,
                size: 0,
            },
            integrity_hash: [0; 32],
            total_size: end + FOOTER_SIZE as u64,
            version: VERSION_1,
            magic: MAGIC,
        };
        let mut h = Sha256::new();
        h.update(&out);
        h.update(footer.to_bytes());
        footer.integrity_hash = h.finalize().into();
        out.extend_from_slice(&footer.to_bytes());
        out
    }

    /// A root holding the given files.
    pub fn flat(files: &[(&[u8], &[u8])]) -> Vec<u8> {
        let mut nodes = vec![CNode::Dir {
            name: Vec::new(),
            first: 1,
            count: files.len() as u32,
        }];
        for (n, d) in files {
            nodes.push(CNode::File {
                name: n.to_vec(),
                data: d.to_vec(),
            });
        }
        archive(&nodes)
    }
}

/// What the fuzz targets do with one input, shared with `tests/fuzz_regressions.rs` so every
/// crash input replays as an ordinary test. Each function panics only on a real bug.
pub mod exercise {
    use std::io::{Cursor, Read, Write};

    use zarkit::zar::{Archive, OpenOptions};

    /// Bytes read from one archive at most (a crafted index can describe far more).
    const READ_BUDGET: u64 = 4 << 20;

    /// Open `bytes` as an archive; if it opens, list, look up, read and verify everything.
    pub fn archive(bytes: &[u8]) {
        let Ok(a) = OpenOptions::new()
            .cache_blocks(2)
            .open_reader(Cursor::new(bytes.to_vec()))
        else {
            return;
        };
        let mut entries = 0u64;
        let mut budget = READ_BUDGET;
        for e in a.walk() {
            entries += 1;
            let path = e.path();
            let found = a.lookup(&path).expect("every walked path can be looked up");
            assert_eq!(
                found.id(),
                e.id(),
                "lookup of {:?} finds the walked entry",
                e.path_display()
            );
            if e.is_file() && budget > 0 {
                let mut r = e.open().expect("files open");
                let mut sink = Vec::new();
                if r.by_ref().take(budget).read_to_end(&mut sink).is_ok() {
                    assert_eq!(sink.len() as u64, e.size().min(budget));
                }
                budget -= sink.len() as u64;
            }
        }
        assert_eq!(entries + 1, a.file_count() + a.dir_count());
        let _ = a.compute_hash();
        if a.block_count() <= 64 {
            let _ = zarkit::zar::verify(&a, &zarkit::zar::VerifyOptions::new(), &mut |_| {});
        }
    }

    /// Opens an archive and checks it against `Archive::open`'s guarantees, for valid bases.
    pub fn archive_reopens(bytes: &[u8]) -> Option<Archive> {
        Archive::from_reader(Cursor::new(bytes.to_vec())).ok()
    }

    /// Valid archives the structure-aware target mutates.
    pub const BASES: [&[u8]; 4] = [
        include_bytes!("../fixtures/zar/bad/long_name_200.zar"),
        include_bytes!("../fixtures/zar/bad/bad_hash.zar"),
        include_bytes!("../fixtures/zar/multi-frame/multiframe.zar"),
        // The dictionary extension: one block compressed with a 1 KiB trained dictionary.
        include_bytes!("../fixtures/zar/dict/dict_ext.zar"),
    ];

    /// Structure-aware mutation: byte 0 picks a base archive and whether to fix the hash
    /// afterwards; then each 4-byte group `(section, offset hi, offset lo, value)` overwrites
    /// one byte inside the footer, records, names, tree or data section (and, in the
    /// dictionary-extension base, the meta directory and meta data).
    pub fn archive_mutate(input: &[u8]) {
        let Some((&head, rest)) = input.split_first() else {
            return;
        };
        let base = head as usize % BASES.len();
        let mut bytes = BASES[base].to_vec();
        // The v1 bases keep their five sections (so older regression inputs mean the same).
        let sections = if base == 3 { 7 } else { 5 };
        let footer =
            zarkit::zar::format::Footer::parse(bytes[bytes.len() - 144..].try_into().unwrap());
        let len = bytes.len();
        for g in rest.chunks_exact(4) {
            let (start, size) = match g[0] % sections {
                0 => (len - 144, 144),
                1 => (
                    footer.offset_records.offset as usize,
                    footer.offset_records.size as usize,
                ),
                2 => (footer.names.offset as usize, footer.names.size as usize),
                3 => (
                    footer.file_tree.offset as usize,
                    footer.file_tree.size as usize,
                ),
                5 => (
                    footer.meta_directory.offset as usize,
                    footer.meta_directory.size as usize,
                ),
                6 => (
                    footer.meta_data.offset as usize,
                    footer.meta_data.size as usize,
                ),
                _ => (0, footer.compressed_data.size as usize),
            };
            if size == 0 {
                continue;
            }
            let at = start + (usize::from(g[1]) << 8 | usize::from(g[2])) % size;
            bytes[at] = g[3];
        }
        if head & 0x80 != 0 {
            fix_hash(&mut bytes);
        }
        archive(&bytes);
    }

    /// Recompute the footer's SHA-256 (hash field zeroed) so the mutation is the only defect.
    pub fn fix_hash(bytes: &mut [u8]) {
        use sha2::{Digest, Sha256};
        let at = bytes.len() - 48;
        bytes[at..at + 32].fill(0);
        let digest: [u8; 32] = Sha256::digest(&*bytes).into();
        bytes[at..at + 32].copy_from_slice(&digest);
    }

    /// A writer that accepts at most `limit` bytes (bounds decompression bombs).
    struct Capped {
        left: usize,
    }

    impl Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::Error::other("output limit"));
            }
            self.left -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Read a `StreamDecoder` to its end or to 16 MiB (bounds decompression bombs); the
    /// error's text on failure.
    fn read_capped(dec: impl std::io::Read) -> Result<Vec<u8>, String> {
        use std::io::Read;
        let mut out = Vec::new();
        match dec.take(16 << 20).read_to_end(&mut out) {
            Ok(_) => Ok(out),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Decode arbitrary bytes as zstd frames, through every decode path: one-shot,
    /// `decompress_to`, and the `Read` adapter copying each block or reading it in place
    /// (from the slice, and through a small `BufReader` that holds only some blocks).
    pub fn decode(bytes: &[u8]) {
        use zarkit::zstd::StreamDecoder;
        let limited = zarkit::zstd::decompress(bytes, 1 << 20);
        let mut w = Capped { left: 16 << 20 };
        let streamed = zarkit::zstd::decode::decompress_to(bytes, &mut w);
        if let (Ok(a), Ok(n)) = (&limited, &streamed) {
            assert_eq!(a.len() as u64, *n, "both decode paths agree on the size");
        }
        let copied = read_capped(StreamDecoder::new(bytes));
        let in_place = read_capped(StreamDecoder::with_buffer(bytes));
        let small = std::io::BufReader::with_capacity(512, bytes);
        let mixed = read_capped(StreamDecoder::with_buffer(small));
        assert_eq!(copied, in_place, "copied and in-place blocks decode alike");
        assert_eq!(copied, mixed, "a small buffer's blocks decode alike");
        if let Ok(a) = &limited {
            assert_eq!(
                copied.as_ref().ok(),
                Some(a),
                "the Read adapter agrees with one-shot"
            );
        }
        // The archive reader's path: the same output with slack after it (frames of up to
        // 64 KiB decode in the fixed window there).
        if let Ok(a) = &limited {
            let mut padded = vec![0u8; a.len() + zarkit::zstd::BLOCK_SLACK];
            zarkit::zstd::Decoder::new()
                .decompress_exact_in(bytes, &mut padded, a.len())
                .expect("what decodes, decodes with slack");
            assert!(padded[..a.len()] == a[..], "the same bytes with slack");
        }
    }

    /// The golden dictionaries of `corpus/goldens/dict/` (trained, raw content, trained with
    /// other repeat offsets), as the `decode_dict_differential` target picks them.
    pub const DICTIONARIES: [&[u8]; 3] = [
        include_bytes!("../../corpus/goldens/dict/formatted.dict"),
        include_bytes!("../../corpus/goldens/dict/raw.dict"),
        include_bytes!("../../corpus/goldens/dict/reps.dict"),
    ];

    /// Split a `decode_dict_differential` input: byte 0 picks a golden dictionary, or with
    /// bit 7 set the dictionary follows (`u16` length, bytes); the rest is the frame.
    /// `None` when the input is too short for what it announces.
    pub fn dict_input(input: &[u8]) -> Option<(&[u8], &[u8])> {
        let (&pick, rest) = input.split_first()?;
        if pick & 0x80 == 0 {
            return Some((DICTIONARIES[pick as usize % 3], rest));
        }
        let len = rest.get(..2)?;
        let len = u16::from_le_bytes([len[0], len[1]]) as usize;
        Some((rest.get(2..2 + len)?, &rest[2 + len..]))
    }

    /// Our side of `decode_dict_differential`: `Err` when the dictionary is refused, else the
    /// one-shot decode (limited to 1 MiB) of `frame` with it. Where that succeeds, the
    /// streaming decode must give the same bytes or refuse: the one-shot path may put the
    /// dictionary in front of the output, the streaming one keeps it apart until its ring
    /// wraps.
    pub fn decode_with_dict_ours(
        dict: &[u8],
        frame: &[u8],
    ) -> Result<Result<Vec<u8>, zarkit::zstd::ZstdError>, zarkit::zstd::ZstdError> {
        let dict = zarkit::zstd::DecoderDictionary::new(dict)?;
        let mut dec = zarkit::zstd::Decoder::with_dictionary(&dict);
        let one_shot = dec.decompress(frame, 1 << 20);
        if let Ok(a) = &one_shot {
            let mut streamed = Vec::new();
            if dec.decompress_to(frame, &mut streamed).is_ok() {
                assert!(streamed == *a, "both decode paths agree on the bytes");
            }
        }
        Ok(one_shot)
    }

    /// Replay a `decode_dict_differential` input through our side.
    pub fn decode_with_dict(input: &[u8]) {
        if let Some((dict, frame)) = dict_input(input) {
            let _ = decode_with_dict_ours(dict, frame);
        }
    }

    /// The split of a `dict_differential` input: byte 0 picks a level, byte 1 the entry
    /// point (modulo 3: `ZSTD_compress_usingDict`, `ZSTD_compress_usingCDict` with a prepared
    /// dictionary, `ZSTD_CCtx_loadDictionary` + `ZSTD_compress2`), the next two bytes
    /// (little-endian) the dictionary's length (at most what follows), then the dictionary
    /// and the source.
    pub fn dict_compress_input(input: &[u8]) -> Option<(i32, u8, &[u8], &[u8])> {
        let (head, rest) = input.split_at_checked(4)?;
        let levels = supported_levels();
        let level = *levels.get(head[0] as usize % levels.len().max(1))?;
        let entry = head[1] % 3;
        let dict_len = (u16::from_le_bytes([head[2], head[3]]) as usize).min(rest.len());
        let (dict, src) = rest.split_at(dict_len);
        Some((level, entry, dict, src))
    }

    /// Compress with a dictionary through our encoder (the entry point the input picks);
    /// `None` when the encoder refuses the dictionary (a damaged formatted one). An
    /// accepted dictionary must be accepted by our decoder too, and the frame decode back.
    pub fn compress_with_dict_ours(
        level: i32,
        entry: u8,
        dict: &[u8],
        src: &[u8],
    ) -> Option<Vec<u8>> {
        use zarkit::zstd::{Compressor, EncoderDictionary, ZstdError};
        let mut frame = Vec::new();
        let mut c = Compressor::new(level).expect("a supported level");
        let result = match entry {
            0 => c.compress_with_dict_into(src, dict, &mut frame),
            1 => EncoderDictionary::new(dict, level)
                .and_then(|d| c.compress_prepared_into(src, &d, &mut frame)),
            _ => EncoderDictionary::new(dict, level)
                .and_then(|d| c.compress_loaded_dict_into(src, &d, &mut frame)),
        };
        match result {
            Ok(_) => {}
            Err(ZstdError::BadDictionary { .. }) => {
                assert!(frame.is_empty(), "nothing written for a refused dictionary");
                return None;
            }
            Err(e) => panic!("level {level}, {} bytes: {e}", src.len()),
        }
        let d = zarkit::zstd::DecoderDictionary::new(dict)
            .expect("a dictionary the encoder took is one the decoder takes");
        let mut back = vec![0u8; src.len()];
        zarkit::zstd::Decoder::with_dictionary(&d)
            .decompress_exact(&frame, &mut back)
            .expect("our frames decode with their dictionary");
        assert!(back == src, "level {level}: round trip differs");
        Some(frame)
    }

    /// A `train_differential` input: byte 0 picks training (even) or finalizing (odd),
    /// bytes 1-2 the capacity (little-endian), byte 3 the finalize level; then samples, each
    /// a length byte (times 8 when byte 0's bit 1 is set) and that many bytes. Finalizing
    /// takes the first sample as the content.
    pub fn train_input(input: &[u8]) -> Option<(bool, usize, i32, Vec<&[u8]>)> {
        let (head, mut rest) = input.split_at_checked(4)?;
        let finalize = head[0] & 1 == 1;
        let scale = if head[0] & 2 != 0 { 8 } else { 1 };
        let capacity = u16::from_le_bytes([head[1], head[2]]) as usize;
        let levels = supported_levels();
        let level = *levels.get(head[3] as usize % levels.len().max(1))?;
        let mut samples = Vec::new();
        while let Some((&len, tail)) = rest.split_first() {
            let (sample, after) = tail.split_at((len as usize * scale).min(tail.len()));
            samples.push(sample);
            rest = after;
        }
        Some((finalize, capacity, level, samples))
    }

    /// Train (or finalize) through ours: `Err` with the message when refused. Never panics;
    /// a dictionary made is one both sides of the codec accept.
    pub fn train_ours(
        finalize: bool,
        capacity: usize,
        level: i32,
        samples: &[&[u8]],
    ) -> Result<Vec<u8>, String> {
        let dict = if finalize {
            let (content, rest) = samples.split_first().ok_or("no content")?;
            let options = zarkit::zstd::FinalizeOptions { level, dict_id: 0 };
            zarkit::zstd::finalize_dictionary(content, rest, capacity, options)
        } else {
            zarkit::zstd::train_dictionary(samples, capacity)
        }
        .map_err(|e| e.to_string())?;
        assert!(dict.len() <= capacity, "a dictionary within its capacity");
        zarkit::zstd::DecoderDictionary::new(&dict).expect("our decoder reads what we make");
        zarkit::zstd::EncoderDictionary::new(&dict, 3).expect("our encoder reads what we make");
        Ok(dict)
    }

    /// Replay a `train_differential` input through our side.
    pub fn train(input: &[u8]) {
        if let Some((finalize, capacity, level, samples)) = train_input(input) {
            let _ = train_ours(finalize, capacity, level, &samples);
        }
    }

    /// Replay a `dict_differential` input through our side.
    pub fn compress_with_dict(input: &[u8]) {
        if let Some((level, entry, dict, src)) = dict_compress_input(input) {
            let _ = compress_with_dict_ours(level, entry, dict, src);
        }
    }

    /// One call of a `stream_differential` input.
    #[derive(Clone, Copy, Debug)]
    pub enum StreamCall<'a> {
        Continue(&'a [u8]),
        Flush,
        End(&'a [u8]),
    }

    /// A decoded `stream_differential` input: level, flags, dictionary, source and cuts
    /// (chunk lengths, the high bit marking a flush after the chunk).
    pub type StreamInput<'a> = (i32, u16, Option<&'a [u8]>, Vec<u8>, Vec<usize>);

    /// A `stream_differential` input: byte 0 picks the level, byte 1 the flags (bit 0
    /// checksum, bit 1 pledge the size, bit 2 end with the last chunk, bit 3 a dictionary:
    /// the first `byte 4` × 16 bytes of the rest), bytes 2-3 seed the chunk sizes, byte 5
    /// repeats the data (1 to 64 times, so streams pass small windows) and its top bit
    /// turns on the dedicated dictionary search (flag 256, see [`stream_dds`]); the calls
    /// cut the source into chunks of 1 byte to 128 KiB, with a flush after one chunk in
    /// eight.
    pub fn stream_input(input: &[u8]) -> Option<StreamInput<'_>> {
        let (head, rest) = input.split_at_checked(6)?;
        // Levels up to 18: the slowest would starve the fuzzer.
        let levels: Vec<i32> = supported_levels()
            .into_iter()
            .filter(|&l| l <= 18)
            .collect();
        let level = *levels.get(head[0] as usize % levels.len().max(1))?;
        let flags = head[1] as u16 | u16::from(head[5] & 0x80) << 1;
        let (dict, data) = if flags & 8 != 0 {
            let n = (head[4] as usize * 16).min(rest.len());
            let (d, r) = rest.split_at(n);
            (Some(d), r)
        } else {
            (None, rest)
        };
        let repeat = 1 + head[5] as usize % 64;
        let src: Vec<u8> = data.repeat(repeat);
        let mut seed = u16::from_le_bytes([head[2], head[3]]) as u64 | 0x9E37_0000;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut cuts = Vec::new();
        let mut left = src.len();
        while left > 0 {
            let bits = next() % 18;
            let n = (1 + next() % (1usize << bits)).min(left);
            // A flush marker: the high bit of the cut.
            let flush = next() % 8 == 0;
            cuts.push(n | if flush { 1 << 63 } else { 0 });
            left -= n;
        }
        Some((level, flags, dict, src, cuts))
    }

    /// Long-distance matching of a [`stream_input`]: with flag 16, on with a window log of
    /// 10 to 24 (the flags' top three bits), so small inputs pass the window too.
    pub fn stream_long(flags: u16) -> Option<u32> {
        (flags & 16 != 0).then_some(10 + 2 * ((flags >> 5) & 7) as u32)
    }

    /// The dedicated dictionary search of a [`stream_input`] (flag 256), as the `zstd`
    /// tool sets it.
    pub fn stream_dds(flags: u16) -> bool {
        flags & 256 != 0
    }

    /// The calls of a [`stream_input`].
    pub fn stream_calls<'a>(flags: u16, src: &'a [u8], cuts: &[usize]) -> Vec<StreamCall<'a>> {
        let mut calls = Vec::new();
        let mut pos = 0;
        for (i, &cut) in cuts.iter().enumerate() {
            let n = cut & !(1 << 63);
            let chunk = &src[pos..pos + n];
            pos += n;
            if i + 1 == cuts.len() && flags & 4 != 0 {
                calls.push(StreamCall::End(chunk));
                return calls;
            }
            calls.push(StreamCall::Continue(chunk));
            if cut >> 63 == 1 {
                calls.push(StreamCall::Flush);
            }
        }
        calls.push(StreamCall::End(&[]));
        calls
    }

    /// Stream through our encoder: `None` when it refuses (a damaged dictionary,
    /// long-distance matching with a dictionary). A frame made decodes back to the source.
    pub fn stream_ours(
        level: i32,
        flags: u16,
        dict: Option<&[u8]>,
        src: &[u8],
        calls: &[StreamCall<'_>],
    ) -> Option<Vec<u8>> {
        use zarkit::zstd::{EncoderDictionary, StreamEncoder, ZstdError};
        let mut enc = match dict {
            Some(d) => match EncoderDictionary::new(d, level) {
                Ok(d) => StreamEncoder::with_dictionary(&d),
                Err(ZstdError::BadDictionary { .. }) => return None,
                Err(e) => panic!("{e}"),
            },
            None => StreamEncoder::new(level).expect("a supported level"),
        };
        enc.set_checksum(flags & 1 != 0).unwrap();
        enc.set_pledged_size((flags & 2 != 0).then_some(src.len() as u64))
            .unwrap();
        enc.set_long_distance_matching(stream_long(flags)).unwrap();
        enc.set_dedicated_dict_search(stream_dds(flags)).unwrap();
        let mut frame = Vec::new();
        for call in calls {
            let r = match *call {
                StreamCall::Continue(d) => enc.compress(d, &mut frame),
                StreamCall::Flush => enc.flush(&mut frame),
                StreamCall::End(d) => enc.finish(d, &mut frame),
            };
            match r {
                Ok(()) => {}
                Err(e) => panic!("level {level}, {} bytes: {e}", src.len()),
            }
        }
        let mut decoder = zarkit::zstd::Decoder::new();
        decoder.set_max_window_size(1 << 30);
        let dd = dict.map(|d| zarkit::zstd::DecoderDictionary::new(d).expect("a dictionary"));
        decoder.set_dictionary(dd.as_ref());
        let mut back = vec![0u8; src.len()];
        decoder
            .decompress_exact(&frame, &mut back)
            .expect("our streams decode");
        assert!(back == src, "level {level}: round trip differs");
        Some(frame)
    }

    /// Replay a `stream_differential` input through our side.
    pub fn stream(input: &[u8]) {
        if let Some((level, flags, dict, src, cuts)) = stream_input(input) {
            let calls = stream_calls(flags, &src, &cuts);
            let _ = stream_ours(level, flags, dict, &src, &calls);
        }
    }

    /// Levels the encoder implements, in a fixed order (the round-trip target picks one).
    pub fn supported_levels() -> Vec<i32> {
        [-131072, -1000, -100, -7, -5, -3, -2, -1]
            .into_iter()
            .chain(1..=22)
            .filter(|&l| zarkit::zstd::is_level_supported(l))
            .collect()
    }

    /// Byte 0 picks a level; the rest is compressed and must decode back exactly.
    pub fn roundtrip(input: &[u8]) {
        let Some((&sel, data)) = input.split_first() else {
            return;
        };
        let levels = supported_levels();
        if levels.is_empty() {
            return;
        }
        let level = levels[sel as usize % levels.len()];
        let frame = match zarkit::zstd::compress(data, level) {
            Ok(f) => f,
            Err(e) => panic!("level {level}, {} bytes: {e}", data.len()),
        };
        let back = zarkit::zstd::decompress(&frame, data.len()).expect("our frames decode");
        assert!(back == data, "level {level}: round trip differs");
    }
}
