//! Our zstd decoder: round trips with our encoder at every level (checked against ruzstd as a
//! second opinion), frames from the reference CLI, hand-built frames for every header form,
//! and one hand-built frame per strictness rule, each refused with its typed error.

use proptest::prelude::*;
use sha2::{Digest, Sha256};
use zarkit::zstd::{self, Decoder, ZstdError, decode};

const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Deterministic structured bytes (words, counters, runs) so every level finds matches.
fn sample(size: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            (0..2 + next() % 8)
                .map(|_| b'a' + (next() % 26) as u8)
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(size + 64);
    while out.len() < size {
        match next() % 10 {
            0 => out.extend(std::iter::repeat_n(
                (next() % 256) as u8,
                (next() % 200) as usize,
            )),
            1 => out.extend_from_slice(&(next() as u32).to_le_bytes()),
            _ => {
                out.extend_from_slice(&words[(next() % 64) as usize]);
                out.push(b' ');
            }
        }
    }
    out.truncate(size);
    out
}

fn ruzstd_decode(frame: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut dec =
        ruzstd::decoding::StreamingDecoder::new(frame).expect("ruzstd reads our frame header");
    let mut out = Vec::new();
    dec.read_to_end(&mut out).expect("ruzstd decodes our frame");
    out
}

fn stream(src: &[u8]) -> Result<Vec<u8>, ZstdError> {
    let mut out = Vec::new();
    decode::decompress_to(src, &mut out)?;
    Ok(out)
}

/// A reader that hands out at most `chunk` bytes per call, and is interrupted
/// (`ErrorKind::Interrupted`, to be retried) every other call.
struct Trickle<'a> {
    src: &'a [u8],
    chunk: usize,
    calls: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(2) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.chunk).min(self.src.len());
        buf[..n].copy_from_slice(&self.src[..n]);
        self.src = &self.src[n..];
        Ok(n)
    }
}

/// Decode through [`zstd::StreamDecoder`] reading `chunk` bytes at a time.
fn read_stream(src: &[u8], chunk: usize, max_window: u64) -> Result<Vec<u8>, ZstdError> {
    use std::io::Read;
    let mut d = zstd::StreamDecoder::with_max_window_size(
        Trickle {
            src,
            chunk,
            calls: 0,
        },
        max_window,
    );
    let mut out = Vec::new();
    match d.read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(e) => {
            let inner = e.into_inner().expect("decoder errors carry the zstd error");
            Err(*inner.downcast::<ZstdError>().expect("a ZstdError"))
        }
    }
}

/// Decode through [`zstd::StreamDecoder::with_buffer`]: from the slice itself (every block
/// in place), or through a `BufReader` of `capacity` bytes over a [`Trickle`] (the blocks
/// its buffer holds in place, the others copied).
fn read_buffered(src: &[u8], capacity: Option<usize>) -> Result<Vec<u8>, ZstdError> {
    use std::io::Read;
    let mut out = Vec::new();
    let read = match capacity {
        None => zstd::StreamDecoder::with_buffer(src).read_to_end(&mut out),
        Some(cap) => {
            let trickle = Trickle {
                src,
                chunk: 1000,
                calls: 0,
            };
            zstd::StreamDecoder::with_buffer(std::io::BufReader::with_capacity(cap, trickle))
                .read_to_end(&mut out)
        }
    };
    match read {
        Ok(_) => Ok(out),
        Err(e) => {
            let inner = e.into_inner().expect("decoder errors carry the zstd error");
            Err(*inner.downcast::<ZstdError>().expect("a ZstdError"))
        }
    }
}

/// Require `other` (decoded by `how`) to be the one-shot result `one`: the same bytes, or
/// the same error.
fn assert_agrees(one: &Result<Vec<u8>, ZstdError>, other: &Result<Vec<u8>, ZstdError>, how: &str) {
    match (one, other) {
        (Ok(a), Ok(b)) => assert!(a == b, "one-shot and {how} agree"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "same error from {how}"),
        _ => panic!("one-shot {one:?} vs {how} {other:?}"),
    }
}

/// Decode through every entry point and require the same result from each.
fn decode_all_ways(src: &[u8], expected_len: usize) -> Result<Vec<u8>, ZstdError> {
    let one = zstd::decompress(src, expected_len + 100);
    assert_agrees(&one, &stream(src), "streaming");
    for chunk in [1, 7, 1 << 20] {
        let read = read_stream(src, chunk, decode::MAX_WINDOW_SIZE);
        assert_agrees(&one, &read, &format!("StreamDecoder ({chunk}-byte reads)"));
    }
    for capacity in [None, Some(64), Some(5000)] {
        let read = read_buffered(src, capacity);
        assert_agrees(
            &one,
            &read,
            &format!("StreamDecoder in place ({capacity:?})"),
        );
    }
    if let Ok(v) = &one {
        let mut exact = vec![0u8; v.len()];
        zstd::decompress_exact(src, &mut exact).expect("exact size decodes");
        assert_eq!(&exact, v);
    }
    // With the archive reader's slack after the output (frames of up to 64 KiB then
    // decode in the fixed window): the same bytes, or a refusal where one-shot refuses.
    let mut padded = vec![0u8; expected_len + zstd::BLOCK_SLACK];
    let slack = zstd::Decoder::new().decompress_exact_in(src, &mut padded, expected_len);
    match &one {
        Ok(v) if v.len() == expected_len => {
            slack.expect("decodes with slack");
            assert!(padded[..expected_len] == v[..], "the same bytes with slack");
        }
        Ok(_) => assert!(slack.is_err(), "another size is refused with slack too"),
        Err(_) => assert!(slack.is_err(), "refused with slack too: {slack:?}"),
    }
    one
}

// ---------------------------------------------------------------------------------------
// Frame building helpers.

/// A frame header: `fcs` with an explicit field width (0, 1 = single segment only, 2, 4, 8),
/// a window descriptor byte unless single segment, a dictionary ID of `did_width` bytes.
fn header(
    fcs: Option<(u64, usize)>,
    single: bool,
    window_desc: u8,
    did: (u32, usize),
    checksum: bool,
) -> Vec<u8> {
    let fcs_code = match fcs.map(|f| f.1) {
        None | Some(0) | Some(1) => 0u8,
        Some(2) => 1,
        Some(4) => 2,
        _ => 3,
    };
    let did_code = match did.1 {
        0 => 0u8,
        1 => 1,
        2 => 2,
        _ => 3,
    };
    let fhd = (fcs_code << 6) | ((single as u8) << 5) | ((checksum as u8) << 2) | did_code;
    let mut h = MAGIC.to_vec();
    h.push(fhd);
    if !single {
        h.push(window_desc);
    }
    h.extend_from_slice(&did.0.to_le_bytes()[..did.1]);
    if let Some((v, w)) = fcs {
        let v = if w == 2 { v - 256 } else { v };
        h.extend_from_slice(&v.to_le_bytes()[..w]);
    }
    h
}

fn block_header(last: bool, kind: u8, size: usize) -> [u8; 3] {
    let v = (size as u32) << 3 | (kind as u32) << 1 | last as u32;
    [v as u8, (v >> 8) as u8, (v >> 16) as u8]
}

fn raw_block(last: bool, data: &[u8]) -> Vec<u8> {
    let mut b = block_header(last, 0, data.len()).to_vec();
    b.extend_from_slice(data);
    b
}

fn rle_block(last: bool, byte: u8, n: usize) -> Vec<u8> {
    let mut b = block_header(last, 1, n).to_vec();
    b.push(byte);
    b
}

fn compressed_block(last: bool, body: &[u8]) -> Vec<u8> {
    let mut b = block_header(last, 2, body.len()).to_vec();
    b.extend_from_slice(body);
    b
}

/// Bytes after the frame header of one of our encoder's frames: its blocks (no checksum).
fn blocks_of(frame: &[u8]) -> &[u8] {
    let fhd = frame[4];
    let single = fhd & 0x20 != 0;
    let fcs_len = match fhd >> 6 {
        0 => single as usize,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let did_len = [0, 1, 2, 4][(fhd & 3) as usize];
    &frame[5 + !single as usize + did_len + fcs_len..]
}

fn xxh64_low(data: &[u8]) -> [u8; 4] {
    (xxhash_rust::xxh64::xxh64(data, 0) as u32).to_le_bytes()
}

/// A compressed block of raw literals then sequences coded with three RLE tables, so the
/// bitstream holds only the extra bits: `bits` are (value, width) in decoding order.
fn rle_seq_block(
    lits: &[u8],
    nb_seq: u8,
    ll_sym: u8,
    of_sym: u8,
    ml_sym: u8,
    bits: &[(u64, u32)],
) -> Vec<u8> {
    assert!(lits.len() < 32);
    let mut b = vec![(lits.len() as u8) << 3];
    b.extend_from_slice(lits);
    b.push(nb_seq);
    b.push(0b0101_0100);
    b.extend_from_slice(&[ll_sym, of_sym, ml_sym]);
    // The decoder reads the last-written bits first: write in reverse, then the end mark.
    let mut acc = 0u128;
    let mut n = 0u32;
    for &(v, w) in bits.iter().rev() {
        acc |= (v as u128) << n;
        n += w;
    }
    acc |= 1u128 << n;
    n += 1;
    b.extend_from_slice(&acc.to_le_bytes()[..n.div_ceil(8) as usize]);
    b
}

fn frame_with(content_size: Option<u64>, blocks: &[Vec<u8>]) -> Vec<u8> {
    let mut f = match content_size {
        Some(n) => header(Some((n, 4)), false, 0x50, (0, 0), false),
        None => header(None, false, 0x50, (0, 0), false),
    };
    for b in blocks {
        f.extend_from_slice(b);
    }
    f
}

// ---------------------------------------------------------------------------------------
// Round trips.

#[test]
fn our_frames_decode_at_every_level_and_agree_with_ruzstd() {
    let levels: Vec<i32> = (-5..=22).chain([-131072, -1000]).collect();
    let sizes = [0usize, 1, 100, 5000, 65536, 65537, 200_000, 300 * 1024];
    for (i, &level) in levels.iter().enumerate() {
        for (j, &size) in sizes.iter().enumerate() {
            let data = sample(size, (i * 31 + j) as u64);
            let frame = match zstd::compress(&data, level) {
                Ok(f) => f,
                Err(e) => panic!("L{level} {size}: {e}"),
            };
            let back = decode_all_ways(&frame, data.len())
                .unwrap_or_else(|e| panic!("L{level} {size}: {e}"));
            assert!(back == data, "L{level} {size}: round trip differs");
            assert!(
                ruzstd_decode(&frame) == data,
                "L{level} {size}: ruzstd disagrees"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_level_any_size_round_trips(
        level in prop::sample::select((-5..=22).chain([-131072]).collect::<Vec<i32>>()),
        size in 0usize..300 * 1024,
        seed in any::<u64>(),
        noise in 0u8..4,
    ) {
        let mut data = sample(size, seed);
        // Some inputs with random stretches (raw literals, raw blocks).
        if noise == 0 {
            let mut x = seed | 1;
            for b in data.iter_mut().step_by(3) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (x >> 56) as u8;
            }
        }
        let frame = match zstd::compress(&data, level) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        };
        let back = decode_all_ways(&frame, data.len()).unwrap();
        prop_assert!(back == data);
        prop_assert!(ruzstd_decode(&frame) == data);
    }
}

// ---------------------------------------------------------------------------------------
// Frames from the reference CLI.

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/fixtures/zstd/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

const TEXT_SHA: &str = "dd4fc4177763ff6781faeaee16808f6ac00c41c09d4c85428e4b410b4c9886b8";
const RECORDS_SHA: &str = "94d59508a280f6f494c9d3292e9b039a8a7d8d59b8147dc73b79a93d15dd14d9";

#[test]
fn reference_cli_frames_decode_to_their_payloads() {
    for (name, sha) in [
        ("text-wlog10-check.zst", TEXT_SHA),
        ("text-nosize.zst", TEXT_SHA),
        ("records-l3.zst", RECORDS_SHA),
        ("records-wlog10-l1.zst", RECORDS_SHA),
        (
            "two-frames.zst",
            "545961ad66ff1263c4200aeecf9d2eb3076217d4aa10aae04cf6680c75a62592",
        ),
    ] {
        let src = fixture(name);
        let out = decode_all_ways(&src, 60_000).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sha256_hex(&out), sha, "{name}");
    }
}

#[test]
fn window_above_the_limit_is_refused_until_the_caller_raises_it() {
    let src = fixture("records-wlog24.zst");
    let err = zstd::decompress(&src, 100_000).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::WindowTooLarge {
                at: 0,
                window: 16_777_216,
                limit: 8_388_608
            }
        ),
        "{err:?}"
    );
    assert!(matches!(
        stream(&src),
        Err(ZstdError::WindowTooLarge { .. })
    ));
    let mut dec = Decoder::new();
    dec.set_max_window_size(1 << 24);
    let out = dec.decompress(&src, 100_000).unwrap();
    assert_eq!(sha256_hex(&out), RECORDS_SHA);
    let mut streamed = Vec::new();
    dec.decompress_to(&src, &mut streamed).unwrap();
    assert_eq!(sha256_hex(&streamed), RECORDS_SHA);
    assert!(matches!(
        read_stream(&src, 4096, 1 << 23),
        Err(ZstdError::WindowTooLarge { .. })
    ));
    assert_eq!(
        sha256_hex(&read_stream(&src, 4096, 1 << 24).unwrap()),
        RECORDS_SHA
    );
}

// ---------------------------------------------------------------------------------------
// Hand-built frames: header forms, block types, skippable and concatenated frames.

#[test]
fn every_content_size_width_and_window_form_decodes() {
    let small = b"hello, zstd".to_vec();
    let big = sample(70_000, 3);
    let cases: Vec<(Vec<u8>, Vec<u8>)> = vec![
        // Single segment, 1-byte FCS.
        (
            header(Some((small.len() as u64, 1)), true, 0, (0, 0), false),
            small.clone(),
        ),
        // Single segment, 2-byte FCS (256 + value).
        (
            header(Some((300, 2)), true, 0, (0, 0), false),
            vec![9u8; 300],
        ),
        // Window descriptor with 2-, 4- and 8-byte FCS, and with no FCS.
        (
            header(Some((big.len() as u64, 4)), false, 0x38, (0, 0), false),
            big.clone(),
        ),
        (
            header(Some((big.len() as u64, 8)), false, 0x38, (0, 0), false),
            big.clone(),
        ),
        (
            header(Some((600, 2)), false, 0x00, (0, 0), false),
            vec![1u8; 600],
        ),
        (header(None, false, 0x38, (0, 0), false), big.clone()),
        // Window with a mantissa (1 KiB + 7/8).
        (header(None, false, 0x07, (0, 0), false), sample(1900, 5)),
    ];
    for (i, (mut frame, content)) in cases.into_iter().enumerate() {
        let max = if frame[4] & 0x20 != 0 {
            content.len()
        } else {
            128 * 1024
        };
        let max = max.min(match frame.get(5) {
            Some(&wd) if frame[4] & 0x20 == 0 => {
                let base = 1usize << (10 + (wd >> 3));
                base + (base >> 3) * (wd & 7) as usize
            }
            _ => usize::MAX,
        });
        let chunks: Vec<&[u8]> = content.chunks(max.max(1)).collect();
        if chunks.is_empty() {
            frame.extend_from_slice(&raw_block(true, &[]));
        }
        for (k, c) in chunks.iter().enumerate() {
            let last = k + 1 == chunks.len();
            if c.iter().all(|&b| b == c[0]) {
                frame.extend_from_slice(&rle_block(last, c[0], c.len()));
            } else {
                frame.extend_from_slice(&raw_block(last, c));
            }
        }
        let out =
            decode_all_ways(&frame, content.len()).unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_eq!(out, content, "case {i}");
    }
}

#[test]
fn skippable_frames_are_skipped_and_concatenated_frames_are_joined() {
    let a = sample(10_000, 1);
    let b = sample(70_000, 2);
    let fa = zstd::compress(&a, 3).unwrap();
    let fb = zstd::compress(&b, 19).unwrap();
    let skippable = |magic_low: u8, len: usize| {
        let mut s = vec![0x50 | magic_low, 0x2A, 0x4D, 0x18];
        s.extend_from_slice(&(len as u32).to_le_bytes());
        s.extend(std::iter::repeat_n(0xEE, len));
        s
    };
    let mut src = skippable(0, 5);
    src.extend_from_slice(&fa);
    src.extend_from_slice(&skippable(0xF, 0));
    src.extend_from_slice(&fb);
    src.extend_from_slice(&fa);
    src.extend_from_slice(&skippable(7, 100));
    let mut expected = a.clone();
    expected.extend_from_slice(&b);
    expected.extend_from_slice(&a);
    assert_eq!(decode_all_ways(&src, expected.len()).unwrap(), expected);
    // Only skippable frames: no output.
    assert_eq!(
        decode_all_ways(&skippable(3, 4), 0).unwrap(),
        Vec::<u8>::new()
    );
    // A skippable frame that claims more bytes than remain.
    let mut cut = skippable(0, 10);
    cut.truncate(12);
    assert!(matches!(
        decode_all_ways(&cut, 0),
        Err(ZstdError::Truncated { at: 0, .. })
    ));
}

#[test]
fn checksummed_frames_verify_their_content() {
    for (size, level) in [(0usize, 3), (1000, 1), (100_000, 6), (250_000, 19)] {
        let data = sample(size, size as u64);
        let plain = zstd::compress(&data, level).unwrap();
        let mut frame = plain.clone();
        frame[4] |= 0x04;
        frame.extend_from_slice(&xxh64_low(&data));
        assert_eq!(decode_all_ways(&frame, data.len()).unwrap(), data, "{size}");
        let last = frame.len() - 1;
        frame[last] ^= 0x40;
        let err = decode_all_ways(&frame, data.len()).unwrap_err();
        assert!(
            matches!(err, ZstdError::ChecksumMismatch { at: 0, .. }),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("zstd frame at byte 0: content checksum does not match"),
            "{err}"
        );
        // A missing checksum is truncation.
        frame.truncate(last - 1);
        assert!(matches!(
            decode_all_ways(&frame, data.len()),
            Err(ZstdError::Truncated { .. })
        ));
    }
}

#[test]
fn hand_built_sequences_with_rle_tables_decode() {
    // Literals "abcd", one sequence: 4 literals, offset 1 + 3 = 4, match 3 → "abcdabc".
    let body = rle_seq_block(b"abcd", 1, 4, 2, 0, &[(3, 2)]);
    let frame = frame_with(Some(7), &[compressed_block(true, &body)]);
    assert_eq!(decode_all_ways(&frame, 7).unwrap(), b"abcdabc");
    // Offset 1 (a run) with a longer match: ML symbol 10 → 13 bytes.
    let body = rle_seq_block(b"xy", 1, 2, 2, 10, &[(0, 2)]);
    let frame = frame_with(None, &[compressed_block(true, &body)]);
    assert_eq!(decode_all_ways(&frame, 20).unwrap(), b"xyyyyyyyyyyyyyy");
}

// ---------------------------------------------------------------------------------------
// Strictness: each rule, its typed error, no panic.

#[test]
fn content_size_mismatch_is_refused() {
    let data = sample(5000, 9);
    let frame = zstd::compress(&data, 3).unwrap();
    let mut lying = header(Some((5001, 4)), false, 0x40, (0, 0), false);
    lying.extend_from_slice(blocks_of(&frame));
    let err = decode_all_ways(&lying, 6000).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::ContentSizeMismatch {
                at: 0,
                declared: 5001,
                got: 5000
            }
        ),
        "{err:?}"
    );
    let mut short = header(Some((4999, 4)), false, 0x40, (0, 0), false);
    short.extend_from_slice(blocks_of(&frame));
    assert!(matches!(
        zstd::decompress(&short, 6000),
        Err(ZstdError::ContentSizeMismatch { .. })
    ));
}

#[test]
fn offset_beyond_the_produced_data_is_refused() {
    // 4 literals, then offset 5 + 0 = 5 > 4 bytes produced.
    let body = rle_seq_block(b"abcd", 1, 4, 3, 0, &[(0, 3)]);
    let mut frame = MAGIC.to_vec();
    frame.push(0x00);
    frame.push(0x50);
    frame.extend_from_slice(&compressed_block(true, &body));
    let err = decode_all_ways(&frame, 100).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::OffsetBeyondHistory {
                at: 6,
                offset: 5,
                available: 4
            }
        ),
        "{err:?}"
    );
    // Matches never reach into the previous frame, even in one output buffer.
    let mut two = zstd::compress(b"abcdefgh", 1).unwrap();
    two.extend_from_slice(&frame);
    assert!(matches!(
        decode_all_ways(&two, 100),
        Err(ZstdError::OffsetBeyondHistory { .. })
    ));
}

#[test]
fn zero_repeat_offset_is_refused() {
    // Literal length 0 with offset code 1 and bit 1 → rep0 - 1 = 0.
    let body = rle_seq_block(b"ab", 1, 0, 1, 0, &[(1, 1)]);
    let frame = frame_with(
        None,
        &[raw_block(false, b"zz"), compressed_block(true, &body)],
    );
    let err = decode_all_ways(&frame, 100).unwrap_err();
    assert!(matches!(err, ZstdError::Malformed { .. }), "{err:?}");
}

#[test]
fn bitstream_not_consumed_exactly_is_refused() {
    let body = rle_seq_block(b"abcd", 1, 4, 2, 0, &[(3, 2), (0, 1)]);
    let frame = frame_with(Some(7), &[compressed_block(true, &body)]);
    let err = decode_all_ways(&frame, 100).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::BitstreamNotConsumed {
                stream: "sequences",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn blocks_above_their_maximum_are_refused() {
    // Window 1 KiB: a 1025-byte raw block, RLE block, and compressed block are all too large.
    for block in [
        raw_block(true, &[7u8; 1025]),
        rle_block(true, 7, 1025),
        compressed_block(true, &[0u8; 1025]),
    ] {
        let mut frame = header(None, false, 0x00, (0, 0), false);
        frame.extend_from_slice(&block);
        let err = decode_all_ways(&frame, 5000).unwrap_err();
        assert!(
            matches!(
                err,
                ZstdError::BlockTooLarge {
                    at: 6,
                    size: 1025,
                    max: 1024
                }
            ),
            "{err:?}"
        );
    }
    // A block of exactly the maximum is fine.
    let mut frame = header(None, false, 0x00, (0, 0), false);
    frame.extend_from_slice(&rle_block(true, 7, 1024));
    assert_eq!(decode_all_ways(&frame, 5000).unwrap(), vec![7u8; 1024]);
    // A compressed block that decodes to more than the maximum: 1000 RLE literals, then one
    // sequence of 1000 literals (LL code 28: 512 + 488) and a 515-byte match (ML code 44) at
    // offset 1 (OF code 2, extra bits 0).
    let mut body = vec![0x85, 0x3E, b'q', 1, 0b0101_0100, 28, 2, 44];
    let bits = 488u32 | 1 << 19;
    body.extend_from_slice(&bits.to_le_bytes()[..3]);
    let mut frame = header(None, false, 0x00, (0, 0), false);
    frame.extend_from_slice(&compressed_block(true, &body));
    let err = decode_all_ways(&frame, 5000).unwrap_err();
    assert!(
        matches!(err, ZstdError::BlockTooLarge { max: 1024, .. }),
        "{err:?}"
    );
}

#[test]
fn truncated_input_is_refused_at_every_cut() {
    let data = sample(20_000, 4);
    let mut frame = zstd::compress(&data, 6).unwrap();
    frame[4] |= 0x04;
    frame.extend_from_slice(&xxh64_low(&data));
    for cut in 0..frame.len() {
        let err = decode_all_ways(&frame[..cut], data.len()).unwrap_err();
        if cut < 9 {
            assert!(
                matches!(err, ZstdError::Truncated { .. }),
                "cut {cut}: {err:?}"
            );
        }
    }
}

#[test]
fn reserved_fields_are_refused() {
    let frame = zstd::compress(b"some bytes", 1).unwrap();
    let mut reserved = frame.clone();
    reserved[4] |= 0x08;
    assert!(matches!(
        decode_all_ways(&reserved, 100),
        Err(ZstdError::ReservedBit { at: 0 })
    ));
    let mut frame3 = header(None, false, 0x00, (0, 0), false);
    frame3.extend_from_slice(&block_header(true, 3, 4));
    frame3.extend_from_slice(&[0; 4]);
    assert!(matches!(
        decode_all_ways(&frame3, 100),
        Err(ZstdError::ReservedBlockType { at: 6 })
    ));
    // The sequences modes byte's reserved bits.
    let mut body = rle_seq_block(b"abcd", 1, 4, 2, 0, &[(3, 2)]);
    body[6] |= 1;
    let bad = frame_with(Some(7), &[compressed_block(true, &body)]);
    assert!(matches!(
        decode_all_ways(&bad, 100),
        Err(ZstdError::Malformed { .. })
    ));
    // Trailing bytes after the last frame: fewer than a magic number's four are a cut
    // frame only when they begin a magic number (zstd's or a skippable frame's); others
    // are no zstd data, as `zstd` says of both ("unknown header").
    for (tail, cut) in [
        (&b"xy"[..], false),
        (&b"x"[..], false),
        (&[0x28, 0xB5][..], true),
        (&[0x28, 0xB5, 0x2F][..], true),
        (&[0x28, 0xB6][..], false),
        (&[0x5C, 0x2A, 0x4D][..], true),
        (&[0x5C, 0x2B][..], false),
    ] {
        let mut trailing = frame.clone();
        trailing.extend_from_slice(tail);
        let got = decode_all_ways(&trailing, 100);
        let at = frame.len();
        if cut {
            assert!(
                matches!(got, Err(ZstdError::Truncated { at: a, .. }) if a == at),
                "{tail:x?}: {got:?}"
            );
        } else {
            assert!(
                matches!(got, Err(ZstdError::UnknownFrame { at: a, .. }) if a == at),
                "{tail:x?}: {got:?}"
            );
        }
    }
    let mut trailing = frame.clone();
    trailing.extend_from_slice(b"xyzzzz");
    assert!(matches!(
        decode_all_ways(&trailing, 100),
        Err(ZstdError::UnknownFrame { .. })
    ));
    assert!(matches!(
        decode_all_ways(&[], 100),
        Err(ZstdError::Truncated { at: 0, .. })
    ));
}

#[test]
fn dictionary_frames_are_refused_for_every_id_width() {
    for (id, width) in [(7u32, 1usize), (0x1234, 2), (0xDEAD_BEEF, 4)] {
        let mut frame = header(Some((3, 1)), true, 0, (id, width), false);
        frame.extend_from_slice(&raw_block(true, b"abc"));
        let err = decode_all_ways(&frame, 100).unwrap_err();
        assert!(
            matches!(err, ZstdError::DictionaryRequired { at: 0, dict_id } if dict_id == id),
            "{err:?}"
        );
    }
    // Dictionary ID 0 in a 4-byte field means "no dictionary".
    let mut frame = header(Some((3, 1)), true, 0, (0, 4), false);
    frame.extend_from_slice(&raw_block(true, b"abc"));
    assert_eq!(decode_all_ways(&frame, 100).unwrap(), b"abc");
}

#[test]
fn window_descriptors_above_the_limit_are_refused() {
    for wd in [0x70u8, 0xA8, 0xF8] {
        let mut frame = header(None, false, wd, (0, 0), false);
        frame.extend_from_slice(&raw_block(true, b"abc"));
        let err = decode_all_ways(&frame, 100).unwrap_err();
        assert!(
            matches!(err, ZstdError::WindowTooLarge { at: 0, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("limit"), "{err}");
    }
}

#[test]
fn over_long_table_descriptions_are_refused() {
    // LL table described with table log 10 (> 9): NCount's first 4 bits are log - 5.
    // No literals (raw, size 0), one sequence, LL mode compressed, NCount log nibble 5.
    let body = vec![0u8, 1, 0b1000_0000, 0x05, 0, 0, 0];
    let frame = frame_with(None, &[compressed_block(true, &body)]);
    let err = decode_all_ways(&frame, 100).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::BadTable {
                table: "literal-length",
                ..
            }
        ),
        "{err:?}"
    );
    // Huffman weights: a direct weight above 12.
    let lits_hdr = |n: usize, c: usize| {
        let v = 2u32 | (1 << 2) | ((n as u32) << 4) | ((c as u32) << 14);
        v.to_le_bytes()[..3].to_vec()
    };
    let mut body = lits_hdr(8, 4);
    body.extend_from_slice(&[128 + 2, 0xD1, 0x00, 0x01]);
    body.push(0);
    let frame = frame_with(None, &[compressed_block(true, &body)]);
    let err = decode_all_ways(&frame, 100).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::BadTable {
                table: "Huffman",
                ..
            }
        ),
        "{err:?}"
    );
    // Huffman description that claims more bytes than the section holds.
    let mut body = lits_hdr(8, 4);
    body.extend_from_slice(&[128 + 60, 0x11, 0x11, 0x11]);
    body.push(0);
    let frame = frame_with(None, &[compressed_block(true, &body)]);
    let err = decode_all_ways(&frame, 100).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::BadTable {
                table: "Huffman",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn output_larger_than_the_buffer_is_too_large() {
    let data = sample(70_000, 8);
    let frame = zstd::compress(&data, 3).unwrap();
    let mut small = vec![0u8; 69_999];
    let err = Decoder::new()
        .decompress_into(&frame, &mut small)
        .unwrap_err();
    assert!(
        matches!(err, ZstdError::TooLarge { limit: 69_999 }),
        "{err:?}"
    );
    // Without a content size, the overflow is found while decoding.
    let mut nosize = header(None, false, 0x40, (0, 0), false);
    nosize.extend_from_slice(blocks_of(&frame));
    for limit in [0usize, 1, 100, 65_536, 69_999] {
        let mut out = vec![0u8; limit];
        let err = Decoder::new()
            .decompress_into(&nosize, &mut out)
            .unwrap_err();
        assert!(
            matches!(err, ZstdError::TooLarge { .. }),
            "{limit}: {err:?}"
        );
    }
    let mut exact = vec![0u8; 70_000];
    Decoder::new().decompress_into(&nosize, &mut exact).unwrap();
    assert_eq!(exact, data);
    assert!(matches!(
        zstd::decompress(&nosize, 69_999),
        Err(ZstdError::TooLarge { limit: 69_999 })
    ));
    // The `Vec` API decodes with room past the output: the limit is still the caller's,
    // to the byte, with and without a content size, for frames below and above 64 KiB.
    let small_data = sample(30_000, 9);
    let small = zstd::compress(&small_data, 3).unwrap();
    let mut small_nosize = header(None, false, 0x40, (0, 0), false);
    small_nosize.extend_from_slice(blocks_of(&small));
    for (frame, data) in [
        (&frame, &data),
        (&nosize, &data),
        (&small, &small_data),
        (&small_nosize, &small_data),
    ] {
        let n = data.len();
        for limit in [n - 64, n - 63, n - 1] {
            assert!(
                matches!(zstd::decompress(frame, limit), Err(ZstdError::TooLarge { limit: l }) if l == limit),
                "{n} bytes, limit {limit}"
            );
        }
        for limit in [n, n + 1, n + 64, usize::MAX >> 8] {
            assert_eq!(
                &zstd::decompress(frame, limit).unwrap(),
                data,
                "limit {limit}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hostile input: mutated valid frames never panic, and both decode paths agree.

#[test]
fn mutated_frames_never_panic_and_paths_agree() {
    let mut frames = Vec::new();
    for (k, (size, level)) in [
        (3000usize, 1),
        (20_000, 6),
        (70_000, 19),
        (500, -5),
        (9000, 12),
    ]
    .into_iter()
    .enumerate()
    {
        let data = sample(size, 100 + k as u64);
        let mut f = zstd::compress(&data, level).unwrap();
        if k % 2 == 0 {
            f[4] |= 0x04;
            f.extend_from_slice(&xxh64_low(&data));
        }
        frames.push((f, data));
    }
    for name in ["text-wlog10-check.zst", "two-frames.zst"] {
        frames.push((fixture(name), Vec::new()));
    }
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut rnd = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let mut dec = Decoder::new();
    for round in 0..4000 {
        let (f, _) = &frames[round % frames.len()];
        let mut m = f.clone();
        match rnd(4) {
            0 => m.truncate(rnd(m.len() + 1)),
            1 => {
                for _ in 0..1 + rnd(4) {
                    let i = rnd(m.len());
                    m[i] ^= 1 << rnd(8);
                }
            }
            2 => {
                let i = rnd(m.len());
                m[i] = rnd(256) as u8;
            }
            _ => {
                // Flip inside the first 64 bytes: headers and tables.
                let i = rnd(m.len().min(64));
                m[i] ^= 1 << rnd(8);
            }
        }
        let one = dec.decompress(&m, 1 << 20);
        let mut streamed = Vec::new();
        let st = dec.decompress_to(&m, &mut streamed);
        let read = read_stream(&m, 1000, decode::MAX_WINDOW_SIZE);
        match (&st, &read) {
            (Ok(_), Ok(r)) => assert!(*r == streamed, "round {round}: StreamDecoder differs"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "round {round}"),
            _ => panic!("round {round}: streaming {st:?} vs StreamDecoder {read:?}"),
        }
        match (&one, &st) {
            (Ok(a), Ok(n)) => {
                assert_eq!(a.len() as u64, *n, "round {round}");
                assert!(*a == streamed, "round {round}: paths disagree");
            }
            (Err(_), Err(_)) => {}
            // The one-shot path has an output limit the streaming path does not.
            (Err(ZstdError::TooLarge { .. }), Ok(_)) => {}
            _ => panic!("round {round}: one-shot {one:?} vs streaming {st:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// libzstd's own golden frames (tests/golden-decompression*, facebook/zstd at 2dddf09,
// BSD-licensed; see fixtures/zstd/libzstd/README.md).

#[test]
fn libzstd_golden_frames_decode() {
    for (name, len) in [
        ("block-128k.zst", 131_068usize),
        ("empty-block.zst", 0),
        ("rle-first-block.zst", 1_048_576),
        ("zeroSeq_2B.zst", 13),
    ] {
        let src = fixture(&format!("libzstd/{name}"));
        let out = decode_all_ways(&src, len).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.len(), len, "{name}");
    }
}

#[test]
fn libzstd_golden_error_frames_are_refused() {
    for name in [
        "off0.bin.zst",
        "truncated_huff_state.zst",
        "zeroSeq_extraneous.zst",
    ] {
        let src = fixture(&format!("libzstd/{name}"));
        let err = decode_all_ways(&src, 1 << 20).unwrap_err();
        let expected = match name {
            "off0.bin.zst" => matches!(err, ZstdError::Malformed { .. }),
            "truncated_huff_state.zst" => matches!(err, ZstdError::BitstreamNotConsumed { .. }),
            _ => matches!(err, ZstdError::Malformed { .. }),
        };
        assert!(expected, "{name}: {err:?}");
    }
}

#[test]
fn huge_declared_content_sizes_are_refused_without_overflow() {
    let mut one = header(Some((u64::MAX - 1, 8)), false, 0x00, (0, 0), false);
    one.extend_from_slice(&raw_block(true, b"abc"));
    let mut two = one.clone();
    two.extend_from_slice(&one);
    for src in [&one, &two] {
        // The declared size sizes nothing (its blocks hold 3 bytes): the lie is found at
        // the frame's end, as streaming finds it (this was "more than the limit").
        assert!(matches!(
            zstd::decompress(src, 100),
            Err(ZstdError::ContentSizeMismatch { at: 0, got: 3, .. })
        ));
        assert!(matches!(
            stream(src),
            Err(ZstdError::ContentSizeMismatch { at: 0, got: 3, .. })
        ));
    }
}

/// An 8-byte content size of all ones is libzstd's ZSTD_CONTENTSIZE_UNKNOWN: the frame decodes
/// as one of unknown size (found by the decode-differential fuzz target: we refused it as
/// "decodes to more than the limit"); in a single-segment frame it is refused as a window
/// too large, never taken as a declared size.
#[test]
fn an_all_ones_content_size_means_unknown_as_in_libzstd() {
    let mut f = header(Some((u64::MAX, 8)), false, 0x30, (0, 0), false);
    f.extend(raw_block(true, b"hello"));
    assert_eq!(decode_all_ways(&f, 5).unwrap(), b"hello");
    let mut single = header(Some((u64::MAX, 8)), true, 0, (0, 0), false);
    single.extend(raw_block(true, b"hello"));
    assert!(matches!(
        zstd::decompress(&single, 100),
        Err(ZstdError::WindowTooLarge { .. })
    ));
}

/// Output positions past 4 GiB in one-shot decoding: a first frame of 4 GiB + 128 KiB of
/// RLE zeros, then one of our frames with matches at many distances, decoded into one
/// buffer, so the second frame's output lies past 2^32. Every sequence must land where it
/// belongs (the hot loop works on a window rebased below 2^32; nothing may write at a
/// position cut to 32 bits).
///
/// Ignored by default (it writes 4 GiB): `cargo test --release -p zarkit-tests --test
/// zstd_decoder -- --ignored`.
#[test]
#[ignore = "writes 4 GiB of output; run with --ignored"]
fn output_past_four_gib_lands_exactly() {
    const RLE: usize = 128 << 10;
    let zeros = (1usize << 32) + RLE;
    // Window 128 KiB (descriptor 0x38), no content size.
    let mut src = header(None, false, 0x38, (0, 0), false);
    let blocks = zeros / RLE;
    for i in 0..blocks {
        src.extend_from_slice(&rle_block(i + 1 == blocks, 0, RLE));
    }
    let tail = sample(300_000, 44);
    src.extend_from_slice(&zstd::compress(&tail, 6).expect("compresses"));
    let mut dst = vec![0u8; zeros + tail.len()];
    let n = Decoder::new()
        .decompress_into(&src, &mut dst)
        .expect("decodes");
    assert_eq!(n, zeros + tail.len());
    assert!(dst[..zeros].iter().step_by(4093).all(|&b| b == 0));
    assert!(
        dst[zeros..] == tail[..],
        "the frame past 4 GiB decodes to its content"
    );
}

#[test]
fn blocks_ending_in_short_overlapping_matches_decode_with_the_readers_slack() {
    // 64 KiB blocks of structured bytes (thousands of sequences in the fixed window) whose
    // last bytes repeat the bytes `offset` back: the frames end with a match whose wild
    // copy reaches past the block, into the window's slack.
    let mut checked = 0;
    for offset in 16..=40usize {
        for len in [17usize, 20, 31, 32, 33, 40, 47, 48, 63, 64, 65, 100] {
            let mut block = sample(65_536 - len, (offset * 1000 + len) as u64);
            for _ in 0..len {
                block.push(block[block.len() - offset]);
            }
            let frame = zstd::compress(&block, 1).expect("compresses");
            let mut padded = vec![0u8; 65_536 + zstd::BLOCK_SLACK];
            Decoder::new()
                .decompress_exact_in(&frame, &mut padded, 65_536)
                .expect("decodes with slack");
            assert!(
                padded[..65_536] == block[..],
                "offset {offset}, a match of {len} at the end"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 25 * 12);
}

/// The one-shot functions reuse a context per thread: a call from inside another's writer
/// (the context is out then), a call after a failed one, and calls after a frame with a
/// checksum and one without, all decode as a new context would.
#[test]
fn one_shot_calls_reuse_their_context_safely() {
    let a = sample(70_000, 1);
    let b = sample(3_000, 2);
    let fa = zarkit::zstd::compress(&a, 3).unwrap();
    let fb = zarkit::zstd::compress(&b, 19).unwrap();

    struct Nested<'a> {
        inner: &'a [u8],
        expected: &'a [u8],
        out: Vec<u8>,
        calls: usize,
    }
    impl std::io::Write for Nested<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let got = zarkit::zstd::decompress(self.inner, self.expected.len()).unwrap();
            assert_eq!(got, self.expected, "decoded from inside the writer");
            self.calls += 1;
            self.out.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Nested {
        inner: &fb,
        expected: &b,
        out: Vec::new(),
        calls: 0,
    };
    assert_eq!(
        zarkit::zstd::decompress_to(&fa, &mut w).unwrap(),
        a.len() as u64
    );
    assert!(w.calls > 0);
    assert_eq!(w.out, a);

    let mut corrupt = fa.clone();
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0x5A;
    let _ = zarkit::zstd::decompress(&corrupt, a.len());
    assert!(zarkit::zstd::decompress(&fa[..fa.len() - 3], a.len()).is_err());
    assert_eq!(zarkit::zstd::decompress(&fb, b.len()).unwrap(), b);
    let mut exact = vec![0; a.len()];
    zarkit::zstd::decompress_exact(&fa, &mut exact).unwrap();
    assert_eq!(exact, a);
    assert!(matches!(
        zarkit::zstd::decompress_exact(&fa, &mut vec![0; a.len() + 1]),
        Err(ZstdError::SizeMismatch { .. })
    ));
    assert_eq!(zarkit::zstd::decompress(&fb, b.len()).unwrap(), b);
}

/// A frame header claiming a content size its blocks cannot hold sizes nothing: before, the
/// output was allocated from the claim (2^60 bytes: the process aborted) or, when a frame
/// outgrew a small claim, from the caller's whole limit (4 GiB resident for 14 bytes at a
/// 4 GiB limit, a capacity-overflow panic at `usize::MAX`). Both frames are refused by what
/// they really decode to.
#[test]
fn a_lying_content_size_drives_no_allocation() {
    // Window 1 KiB, content size 2^60, one last RLE block of 4 bytes.
    let mut huge = MAGIC.to_vec();
    huge.extend_from_slice(&[0xC0, 0x00]);
    huge.extend_from_slice(&(1u64 << 60).to_le_bytes());
    huge.extend_from_slice(&[(4 << 3) | 0b011, 0, 0, b'Z']);
    // Window 1 KiB, content size 1, one last RLE block of 1,000 bytes.
    let mut small = MAGIC.to_vec();
    small.extend_from_slice(&[0x80, 0x00]);
    small.extend_from_slice(&1u32.to_le_bytes());
    let rle = (1000u32 << 3) | 0b011;
    small.extend_from_slice(&[rle as u8, (rle >> 8) as u8, (rle >> 16) as u8, b'Z']);
    for frame in [&huge, &small] {
        for limit in [usize::MAX, 4 << 30, 1 << 20] {
            let err = zstd::decompress(frame, limit).unwrap_err();
            match err {
                ZstdError::ContentSizeMismatch { .. } | ZstdError::BlockTooLarge { .. } => {}
                ref e => panic!("limit {limit}: {e}"),
            }
        }
    }
    // A million empty blocks (a valid frame of 3 to 5 MB, window 128 KiB, no declared
    // size): raw ones are counted at their size, compressed ones (an empty literals
    // section and no sequences) at most 64 times the input (each was counted at the
    // block maximum: 128 GiB).
    for body in [&[][..], &[0u8, 0][..]] {
        let kind = if body.is_empty() { 0u32 } else { 2 };
        let mut frame = MAGIC.to_vec();
        frame.extend_from_slice(&[0x00, (17 - 10) << 3]);
        for i in 0..1_000_000 {
            let header = (body.len() as u32) << 3 | kind << 1 | u32::from(i == 999_999);
            frame.extend_from_slice(&header.to_le_bytes()[..3]);
            frame.extend_from_slice(body);
        }
        assert_eq!(zstd::decompress(&frame, usize::MAX).unwrap(), b"");
    }
    // A frame without a declared size still decodes into what it produces.
    let frame = zstd::compress(&[7u8; 300_000], 3).unwrap();
    let mut stream = zstd::StreamEncoder::new(3).unwrap();
    let mut unknown = Vec::new();
    stream.compress(&[7u8; 300_000], &mut unknown).unwrap();
    stream.finish(&[], &mut unknown).unwrap();
    for f in [&frame, &unknown] {
        assert_eq!(zstd::decompress(f, usize::MAX).unwrap(), vec![7u8; 300_000]);
        assert!(matches!(
            zstd::decompress(f, 299_999),
            Err(ZstdError::TooLarge { limit: 299_999 })
        ));
    }
}

/// A reader that fails every third call with `WouldBlock` (the fifth with `TimedOut`) and
/// gives at most `most` bytes per call.
struct Stalling<'a> {
    data: &'a [u8],
    calls: usize,
    most: usize,
}

impl std::io::Read for Stalling<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls == 5 {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        if self.calls.is_multiple_of(3) {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        let n = buf.len().min(self.most).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Reads the whole of `d`, reading again after every error of the reader.
fn read_retrying(d: &mut impl std::io::Read) -> (Vec<u8>, usize) {
    let (mut out, mut errors) = (Vec::new(), 0);
    let mut buf = [0u8; 5000];
    loop {
        match d.read(&mut buf) {
            Ok(0) => return (out, errors),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => {
                assert!(
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ),
                    "{e}"
                );
                errors += 1;
            }
        }
    }
}

/// An error of the reader loses nothing: the next read goes on where it stopped, as the
/// `zstd` crate's and `flate2`'s decoders do over non-blocking sources. Before, one
/// `WouldBlock` failed the decoder for good, later reads saying "invalid data".
#[test]
fn the_stream_decoder_goes_on_after_its_reader_fails() {
    let a = sample(300_000, 1);
    let b = sample(70_000, 2);
    let mut enc = zstd::StreamEncoder::new(3).unwrap();
    enc.set_checksum(true).unwrap();
    let mut input = Vec::new();
    enc.compress(&a, &mut input).unwrap();
    enc.finish(&[], &mut input).unwrap();
    // A skippable frame between the two.
    input.extend_from_slice(&[0x50, 0x2A, 0x4D, 0x18, 10, 0, 0, 0]);
    input.extend_from_slice(&[0xEE; 10]);
    input.extend_from_slice(&zstd::compress(&b, 19).unwrap());
    let expected = [a, b].concat();
    for most in [1, 7, 1000, 1 << 20] {
        let reader = || Stalling {
            data: &input,
            calls: 0,
            most,
        };
        let (out, errors) = read_retrying(&mut zstd::StreamDecoder::new(reader()));
        assert!(errors > 0);
        assert!(out == expected, "copied blocks, {most} bytes a read");
        let buffered = std::io::BufReader::with_capacity(200_000, reader());
        let (out, _) = read_retrying(&mut zstd::StreamDecoder::with_buffer(buffered));
        assert!(out == expected, "blocks in place, {most} bytes a read");
    }
}

/// `single_frame` stops after the first frame and leaves what follows in the reader (it
/// tried to read a next frame from it: "not a zstd frame", 4 bytes consumed).
#[test]
fn a_single_frame_leaves_what_follows_it() {
    let mut input = zstd::compress(b"frame content", 3).unwrap();
    input.extend_from_slice(b"PAYLOAD AFTER FRAME");
    let mut d = zstd::StreamDecoder::new(&input[..]).single_frame();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut d, &mut out).unwrap();
    assert_eq!(out, b"frame content");
    assert_eq!(d.into_inner(), b"PAYLOAD AFTER FRAME");
    // Without it, the bytes after the frame are an error, as for the `zstd` tool.
    let mut out = Vec::new();
    let err = std::io::Read::read_to_end(&mut zstd::StreamDecoder::new(&input[..]), &mut out)
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
}

/// After invalid data every read fails, with the same message: the last block of a frame
/// whose checksum does not match is not handed out by the read after the error (it was).
#[test]
fn after_invalid_data_every_read_fails() {
    let mut enc = zstd::StreamEncoder::new(3).unwrap();
    enc.set_checksum(true).unwrap();
    let mut frame = Vec::new();
    enc.finish(&sample(1000, 3), &mut frame).unwrap();
    let last = frame.len() - 1;
    frame[last] ^= 1;
    let mut d = zstd::StreamDecoder::new(&frame[..]);
    let mut buf = [0u8; 100];
    let first = std::io::Read::read(&mut d, &mut buf).unwrap_err();
    for _ in 0..3 {
        let again = std::io::Read::read(&mut d, &mut buf).unwrap_err();
        assert_eq!(again.to_string(), first.to_string());
    }
}

/// A frame declaring the largest window a header can (exponent 31, mantissa 7: 3.75 GiB)
/// decodes into a buffer when the limit allows it, as libzstd's one-shot
/// `ZSTD_decompress` does, and so does an archive block (the reader's decoder has no
/// window limit); the streaming decoder, which would keep the window, refuses it whatever
/// its limit. Before, anything above 2 GiB was refused everywhere.
#[test]
fn one_shot_decoding_takes_any_window_a_header_can_declare() {
    use std::io::Read;
    use zarkit::zar::{BlockDecompressor, ZstdDecompressor};
    // Magic, a header with no content size and the window descriptor 0xAF, one raw block.
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xAF];
    frame.extend_from_slice(&[(5 << 3) | 1, 0, 0]);
    frame.extend_from_slice(b"hello");

    let mut d = Decoder::new();
    d.set_max_window_size(u64::MAX);
    let mut out = [0u8; 64];
    assert_eq!(d.decompress_into(&frame, &mut out).unwrap(), 5);
    assert_eq!(&out[..5], b"hello");
    let err = Decoder::new()
        .decompress_into(&frame, &mut out)
        .unwrap_err();
    assert!(matches!(err, ZstdError::WindowTooLarge { .. }), "{err}");

    let mut block = frame.clone();
    block.truncate(6);
    block.extend_from_slice(&[0x03, 0x00, 0x08, b'z']); // last, RLE of 65,536 bytes
    let mut out = vec![0u8; 65_536 + zstd::BLOCK_SLACK];
    ZstdDecompressor
        .context()
        .decode_block(&block, &mut out)
        .unwrap();
    assert!(out[..65_536].iter().all(|&b| b == b'z'));

    let mut s = decode::StreamDecoder::with_max_window_size(&frame[..], u64::MAX);
    let mut got = Vec::new();
    let err = s.read_to_end(&mut got).unwrap_err().to_string();
    assert!(err.contains("window"), "{err}");
}

/// Data of another format is named as such (the `zstd` tool decodes gzip, xz and lz4
/// itself, and a user who hands one over should learn what it is, not only its bytes).
#[test]
fn another_formats_data_is_named() {
    let cases: [(&[u8], &str); 6] = [
        (&[0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3], "gzip data"),
        (&[0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0, 0], "xz data"),
        (b"BZh91AY&SY", "bzip2 data"),
        (&[0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7], "lz4 data"),
        (b"PK\x03\x04\x14\x00\x00\x00", "a zip archive"),
        (
            &[0x27, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0],
            "zstd's pre-1.0 format",
        ),
    ];
    for (data, name) in cases {
        let e = zstd::decompress(data, 1 << 20).unwrap_err();
        assert!(
            matches!(e, ZstdError::UnknownFrame { at: 0, .. }),
            "{name}: {e}"
        );
        assert!(e.to_string().contains(name), "{name}: {e}");
    }
    // Others keep the plain message.
    let e = zstd::decompress(b"hello world", 1 << 20).unwrap_err();
    assert_eq!(
        e.to_string(),
        "zstd data at byte 0: not a zstd frame (magic number 0x6c6c6568)"
    );
}
