//! Streaming compression without the oracle (the oracle's comparison is in
//! `zarkit-benches`' `stream_cases` and `--bin stream_diff`): frames decode back, the way
//! the input is cut into `ZSTD_e_continue` calls never changes the bytes, and misuse is a
//! typed error.

use std::io::Write;

use proptest::prelude::*;
use zarkit::zstd::{self, Encoder, StreamEncoder, ZstdError};
use zarkit_corpus::{Shape, generate};

/// Compress `src` cut at `cuts` (each a chunk length), ending with an empty end call.
fn stream(level: i32, src: &[u8], cuts: &[usize], pledged: Option<u64>) -> Vec<u8> {
    let mut enc = StreamEncoder::new(level).unwrap();
    enc.set_checksum(true).unwrap();
    enc.set_pledged_size(pledged).unwrap();
    let mut out = Vec::new();
    let mut pos = 0;
    for &n in cuts {
        let end = (pos + n).min(src.len());
        enc.compress(&src[pos..end], &mut out).unwrap();
        pos = end;
    }
    enc.compress(&src[pos..], &mut out).unwrap();
    enc.finish(&[], &mut out).unwrap();
    out
}

fn decode(frame: &[u8], len: usize) -> Vec<u8> {
    let mut d = zstd::Decoder::new();
    d.set_max_window_size(1 << 30);
    d.decompress(frame, len).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random chunkings give the same frame as one call, and it decodes back.
    #[test]
    fn chunking_never_changes_the_bytes(
        level in prop::sample::select(vec![-3, 1, 3, 6, 9, 13, 16]),
        shape in prop::sample::select(Shape::ALL.to_vec()),
        size in 0usize..700_000,
        cuts in prop::collection::vec(1usize..200_000, 0..12),
        pledge in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let src = generate(shape, size, seed);
        let pledged = pledge.then_some(size as u64);
        let whole = stream(level, &src, &[], pledged);
        let cut = stream(level, &src, &cuts, pledged);
        prop_assert!(whole == cut, "chunking changed the frame");
        prop_assert_eq!(decode(&whole, size), src);
    }
}

#[test]
fn a_stream_past_its_window_decodes_back() {
    // Level 1 with no size pledged: a 512 KiB window, so 3 MiB wraps the input buffer
    // several times and lowers the indices.
    let src = generate(Shape::FarRepeats, 3 << 20, 7);
    let frame = stream(1, &src, &[4096; 800], None);
    assert_eq!(decode(&frame, src.len()), src);
}

/// The stream decoder's ring holds the window and two blocks: past it, decoding wraps to
/// the ring's start and matches reach back into the previous lap, whole or across its end.
#[test]
fn the_stream_decoder_reads_matches_from_its_previous_lap() {
    use std::io::Read;
    for (shape, seed) in [(Shape::FarRepeats, 7), (Shape::Text, 8), (Shape::Hetero, 9)] {
        let src = generate(shape, 3 << 20, seed);
        // Level 1 without a pledged size: a 512 KiB window, a 768 KiB ring.
        let frame = stream(1, &src, &[1 << 16; 48], None);
        // Each block copied out of the reader, or decoded where the slice holds it.
        for in_place in [false, true] {
            let mut dec = if in_place {
                zstd::StreamDecoder::with_buffer(&frame[..])
            } else {
                zstd::StreamDecoder::new(&frame[..])
            };
            let mut back = Vec::new();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = dec.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                back.extend_from_slice(&buf[..n]);
            }
            assert!(
                back == src,
                "{shape:?} (in place: {in_place}): the stream decodes back"
            );
        }
    }
}

/// A buffered reader whose buffer is the whole input, counting the bytes handed out by
/// `read` (copied) and by `consume` (read in place).
struct Counted<'a> {
    src: &'a [u8],
    copied: usize,
    in_place: usize,
}

impl std::io::Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::Read::read(&mut self.src, buf)?;
        self.copied += n;
        Ok(n)
    }
}

impl std::io::BufRead for Counted<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(self.src)
    }

    fn consume(&mut self, n: usize) {
        self.src = &self.src[n..];
        self.in_place += n;
    }
}

/// `StreamDecoder::with_buffer` decodes every block where the reader's buffer holds it:
/// only the frame header and the checksum are copied; `new` copies everything, and
/// `read_in_place` turns the former on for a decoder made otherwise, across `reset`.
#[test]
fn a_buffered_stream_decoder_reads_its_blocks_in_place() {
    use std::io::Read;
    let src = generate(Shape::Text, 1 << 20, 4);
    let frame = stream(3, &src, &[1 << 16; 16], None);
    let counted = || Counted {
        src: &frame,
        copied: 0,
        in_place: 0,
    };
    let mut back = Vec::new();
    let mut dec = zstd::StreamDecoder::with_buffer(counted());
    dec.read_to_end(&mut back).unwrap();
    assert!(back == src, "decodes back in place");
    let c = dec.into_inner();
    assert_eq!(
        c.copied + c.in_place,
        frame.len(),
        "every byte consumed once"
    );
    assert!(c.copied <= 16, "only headers copied: {} bytes", c.copied);

    let mut dec = zstd::StreamDecoder::new(counted());
    back.clear();
    dec.read_to_end(&mut back).unwrap();
    assert!(back == src, "decodes back copied");
    let c = dec.into_inner();
    assert_eq!(
        (c.copied, c.in_place),
        (frame.len(), 0),
        "new copies every block"
    );

    let mut dec = zstd::StreamDecoder::with_max_window_size(counted(), 1 << 22).read_in_place();
    for _ in 0..2 {
        back.clear();
        dec.read_to_end(&mut back).unwrap();
        assert!(back == src, "decodes back after a reset");
        let c = dec.reset(counted());
        assert!(
            c.copied <= 16,
            "in place across resets: {} bytes copied",
            c.copied
        );
    }
}

#[test]
fn the_writer_adapter_flushes_a_decodable_prefix_and_finishes() {
    let src = generate(Shape::Text, 300_000, 3);
    let mut enc = Encoder::new(Vec::new(), 5).unwrap();
    enc.write_all(&src[..1000]).unwrap();
    enc.flush().unwrap();
    // After a flush, everything written so far decodes from what the writer holds.
    let flushed = enc.get_ref().clone();
    let mut partial = Vec::new();
    let mut dec = zstd::StreamDecoder::new(&flushed[..]);
    let _ = std::io::Read::read_to_end(&mut dec, &mut partial);
    assert_eq!(partial, &src[..1000]);
    enc.write_all(&src[1000..]).unwrap();
    let frame = enc.finish().unwrap();
    assert_eq!(decode(&frame, src.len()), src);
}

#[test]
fn an_empty_stream_is_one_empty_frame() {
    for last in [true, false] {
        let mut enc = StreamEncoder::new(3).unwrap();
        let mut out = Vec::new();
        if !last {
            enc.compress(&[], &mut out).unwrap();
        }
        enc.finish(&[], &mut out).unwrap();
        assert_eq!(decode(&out, 10), b"");
    }
}

#[test]
fn a_broken_pledge_is_an_error() {
    let src = vec![7u8; 1000];
    let mut enc = StreamEncoder::new(3).unwrap();
    enc.set_pledged_size(Some(999)).unwrap();
    let mut out = Vec::new();
    // A first call that ends the frame pledges its own size, as libzstd's does.
    enc.finish(&src, &mut out).unwrap();
    assert_eq!(decode(&out, 1000), src);

    let mut enc = StreamEncoder::new(3).unwrap();
    enc.set_pledged_size(Some(999)).unwrap();
    let mut out = Vec::new();
    // Too many bytes fail as soon as they are compressed (here at once: the block is the
    // pledged size, plus one byte so it is not compressed before the end).
    let err = enc.compress(&src, &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::PledgedSizeMismatch {
                pledged: 999,
                got: 1000
            }
        ),
        "{err}"
    );

    let mut enc = StreamEncoder::new(3).unwrap();
    enc.set_pledged_size(Some(2000)).unwrap();
    let mut out = Vec::new();
    enc.compress(&src, &mut out).unwrap();
    let err = enc.finish(&[], &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            ZstdError::PledgedSizeMismatch {
                pledged: 2000,
                got: 1000
            }
        ),
        "{err}"
    );
}

#[test]
fn settings_wait_for_the_next_frame() {
    let mut enc = StreamEncoder::new(3).unwrap();
    let mut out = Vec::new();
    enc.compress(b"some bytes", &mut out).unwrap();
    assert!(matches!(
        enc.set_checksum(true),
        Err(ZstdError::FrameInProgress { .. })
    ));
    enc.finish(&[], &mut out).unwrap();
    enc.set_checksum(true).unwrap();
}

#[test]
fn level_22_turns_on_long_distance_matching_with_or_without_a_dictionary() {
    // An unknown size: the 128 MiB window, long-distance matching on, as libzstd.
    let mut enc = StreamEncoder::new(22).unwrap();
    let mut out = Vec::new();
    enc.finish(b"x", &mut out).unwrap();
    assert_eq!(decode(&out, 1), b"x");
    let mut enc = StreamEncoder::new(22).unwrap();
    let mut out = Vec::new();
    enc.compress(b"xyz", &mut out).unwrap();
    enc.finish(&[], &mut out).unwrap();
    assert_eq!(decode(&out, 3), b"xyz");
    // With a dictionary too (attached: the long-distance finder starts empty).
    let dict = zarkit::zstd::EncoderDictionary::new(&[7u8; 4000], 22).unwrap();
    let mut enc = StreamEncoder::with_dictionary(&dict);
    let mut out = Vec::new();
    enc.compress(b"x", &mut out).unwrap();
    enc.finish(&[], &mut out).unwrap();
    let mut decoder = zarkit::zstd::Decoder::with_dictionary(
        &zarkit::zstd::DecoderDictionary::new(&[7u8; 4000]).unwrap(),
    );
    decoder.set_max_window_size(1 << 27);
    assert_eq!(decoder.decompress(&out, 1).unwrap(), b"x");
    // Asked for with a window below the dictionary's own (2^13 for 4,000 bytes): the
    // dictionary is prepared again with that window, as libzstd does (refused before; the
    // bytes are checked by `long_windows_below_the_dictionary_match_the_oracle`).
    let mut enc = StreamEncoder::with_dictionary(&dict);
    enc.set_long_distance_matching(Some(10)).unwrap();
    let mut out = Vec::new();
    enc.finish(&[7u8; 3000], &mut out).unwrap();
    let mut decoder = zarkit::zstd::Decoder::with_dictionary(
        &zarkit::zstd::DecoderDictionary::new(&[7u8; 4000]).unwrap(),
    );
    assert_eq!(decoder.decompress(&out, 3000).unwrap(), [7u8; 3000]);
    // Asked for at any level, and a window log out of range refused.
    let mut enc = StreamEncoder::new(1).unwrap();
    assert!(matches!(
        enc.set_long_distance_matching(Some(32)),
        Err(ZstdError::UnsupportedWindowLog { window_log: 32 })
    ));
    enc.set_long_distance_matching(Some(10)).unwrap();
    let mut out = Vec::new();
    enc.finish(&[9u8; 5000], &mut out).unwrap();
    assert_eq!(decode(&out, 5000), [9u8; 5000]);
}

/// One line of the stream goldens file.
struct StreamGolden {
    size: usize,
    seed: u64,
    level: i32,
    file: bool,
    frame_size: usize,
    sha256: String,
    /// Long-distance matching asked for with this window log (`long=W`).
    long: Option<u32>,
}

/// Multi-megabyte streams past their window and input buffer, driven as the `zstd` tool
/// drives libzstd: byte identity with libzstd 1.5.7 through frozen (size, SHA-256) goldens.
#[test]
fn streams_match_oracle_goldens() {
    use sha2::{Digest, Sha256};
    let text = std::fs::read_to_string(zarkit_corpus::GOLDEN_STREAM_FRAMES_FILE)
        .expect("stream goldens file");
    let goldens: Vec<StreamGolden> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            assert!(
                (f.len() == 7 || f.len() == 8) && f[0] == "stream",
                "malformed stream golden: {line:?}"
            );
            StreamGolden {
                size: f[1].parse().expect("size"),
                seed: u64::from_str_radix(f[2], 16).expect("seed"),
                level: f[3].parse().expect("level"),
                file: f[4] == "file",
                frame_size: f[5].parse().expect("frame size"),
                sha256: f[6].to_string(),
                long: f.get(7).map(|l| {
                    let w = l.strip_prefix("long=").expect("long=W");
                    w.parse().expect("window log")
                }),
            }
        })
        .collect();
    assert!(goldens.len() >= 20, "stream goldens present");
    let mut failures = Vec::new();
    let mut input: Option<(usize, u64, Vec<u8>)> = None;
    for g in &goldens {
        if !matches!(&input, Some((s, seed, _)) if *s == g.size && *seed == g.seed) {
            input = Some((g.size, g.seed, zarkit_corpus::long_range(g.size, g.seed)));
        }
        let src = &input.as_ref().unwrap().2;
        let mut enc = StreamEncoder::new(g.level).unwrap();
        enc.set_checksum(true).unwrap();
        enc.set_long_distance_matching(g.long).unwrap();
        enc.set_pledged_size(g.file.then_some(src.len() as u64))
            .unwrap();
        let mut frame = Vec::new();
        let chunks: Vec<&[u8]> = src.chunks(1 << 17).collect();
        for (i, c) in chunks.iter().enumerate() {
            if g.file && i + 1 == chunks.len() {
                enc.finish(c, &mut frame).unwrap();
            } else {
                enc.compress(c, &mut frame).unwrap();
            }
        }
        if !g.file {
            enc.finish(&[], &mut frame).unwrap();
        }
        let hash: String = Sha256::digest(&frame)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if frame.len() != g.frame_size || hash != g.sha256 {
            failures.push(format!(
                "{} bytes L{} {} (long {:?}): {} bytes vs oracle {}",
                g.size,
                g.level,
                if g.file { "file" } else { "stdin" },
                g.long,
                frame.len(),
                g.frame_size
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "streams differ from libzstd 1.5.7:\n{}",
        failures.join("\n")
    );
}

#[test]
fn one_stream_decoder_reset_onto_many_streams() {
    use std::io::Read;
    let big = generate(Shape::Text, 700_000, 1);
    let small = generate(Shape::Hetero, 5_000, 2);
    let frames: Vec<(Vec<u8>, &[u8])> = vec![
        (zstd::compress(&big, 19).unwrap(), &big),
        (zstd::compress(&small, 1).unwrap(), &small),
        (stream(3, &big, &[1000; 20], None), &big),
        (zstd::compress(&small, 6).unwrap(), &small),
    ];
    let mut dec = zstd::StreamDecoder::new(&[][..]);
    for (frame, src) in &frames {
        dec.reset(&frame[..]);
        let mut back = Vec::new();
        dec.read_to_end(&mut back).unwrap();
        assert!(&back == src, "a reset decoder decodes the next stream");
    }
}

/// A writer that fails some of its calls (`WouldBlock` on the calls numbered in `fail`)
/// and takes at most `most` bytes per call.
struct Flaky {
    out: Vec<u8>,
    calls: usize,
    fail: Vec<usize>,
    most: usize,
}

impl Flaky {
    fn new(fail: &[usize], most: usize) -> Flaky {
        Flaky {
            out: Vec::new(),
            calls: 0,
            fail: fail.to_vec(),
            most,
        }
    }
}

impl Write for Flaky {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.fail.contains(&self.calls) {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        let n = buf.len().min(self.most);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A call that failed in the writer is made again, as `Write` allows after `WouldBlock`:
/// the frame is the one an untroubled writer gets. Before, the failed `write` had taken
/// its input into the frame already (the retry compressed it twice: 400,000 bytes decoded
/// to 531,072) and the bytes the writer had taken were written again.
#[test]
fn the_writer_adapter_can_be_called_again_after_the_writer_fails() {
    let src = generate(Shape::Text, 400_000, 5);
    let mut plain = Encoder::new(Vec::new(), 3).unwrap();
    plain.write_all(&src).unwrap();
    let expected = plain.finish().unwrap();
    for (fail, most) in [(vec![2], usize::MAX), (vec![2, 3, 7], 1000), (vec![1], 1)] {
        let mut enc = Encoder::new(Flaky::new(&fail, most), 3).unwrap();
        let mut failures = 0;
        for chunk in src.chunks(131_072) {
            let mut chunk = chunk;
            while !chunk.is_empty() {
                match enc.write(chunk) {
                    Ok(n) => chunk = &chunk[n..],
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => failures += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        loop {
            match enc.try_finish() {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => failures += 1,
                Err(e) => panic!("{e}"),
            }
        }
        let w = enc.get_ref();
        assert!(
            w.fail.iter().all(|&c| c <= w.calls),
            "{fail:?}: not every failure happened"
        );
        // A failure after a `write` took its input is reported by the next call, or by
        // none when the next write succeeds.
        assert!(failures <= fail.len());
        let out = enc.finish().unwrap().out;
        assert!(out == expected, "{fail:?}, {most}: another frame");
    }
}

/// One large `write` takes at most 1 MiB (a short write, which `write_all` continues), so
/// the compressed bytes the encoder holds stay bounded; before, it compressed all of it
/// into memory first. The frame is the same.
#[test]
fn a_large_write_is_taken_a_mebibyte_at_a_time() {
    let src = generate(Shape::Text, 3 << 20, 6);
    let mut enc = Encoder::new(Vec::new(), 1).unwrap();
    assert_eq!(enc.write(&src).unwrap(), 1 << 20);
    enc.write_all(&src[1 << 20..]).unwrap();
    let frame = enc.finish().unwrap();
    let mut one = StreamEncoder::new(1).unwrap();
    let mut expected = Vec::new();
    one.compress(&src, &mut expected).unwrap();
    one.finish(&[], &mut expected).unwrap();
    assert!(frame == expected, "another frame");
    assert_eq!(decode(&frame, src.len()), src);
}

/// A frame that failed (more bytes than pledged) stays failed: `finish` reports it, where
/// it returned the failed call's dangling header followed by a new, empty frame. The count
/// is what the caller gave (it said 4 of 5 bytes). A reset starts afresh.
#[test]
fn a_failed_frame_stays_failed_until_reset() {
    let mut enc = Encoder::new(Vec::new(), 3).unwrap();
    enc.set_pledged_size(Some(3)).unwrap();
    let err = enc.write_all(b"12345").unwrap_err();
    assert!(err.to_string().contains("5 bytes given where 3"), "{err}");
    let err = enc.write_all(b"6").unwrap_err();
    assert!(err.to_string().contains("failed earlier"), "{err}");
    assert!(
        enc.get_ref().is_empty(),
        "nothing of the failed frame written"
    );
    let err = enc.finish().unwrap_err();
    assert!(err.to_string().contains("failed earlier"), "{err}");

    let mut stream = StreamEncoder::new(3).unwrap();
    stream.set_pledged_size(Some(3)).unwrap();
    let mut out = Vec::new();
    assert!(stream.compress(b"12345", &mut out).is_err());
    assert!(matches!(
        stream.finish(&[], &mut out),
        Err(ZstdError::FrameFailed { .. })
    ));
    assert!(matches!(
        stream.set_checksum(true),
        Err(ZstdError::FrameFailed { .. })
    ));
    stream.reset();
    let mut out = Vec::new();
    stream.finish(b"12345", &mut out).unwrap();
    assert_eq!(decode(&out, 5), b"12345");
}

/// A flush before anything was written starts the frame as libzstd's does (the settings
/// then wait for the next frame), and the frame is libzstd's for the same calls: skipping
/// the flush gave a header with the size known (0) where libzstd's says unknown.
#[test]
fn a_flush_before_any_input_starts_the_frame_as_libzstds_does() {
    for data in [&b""[..], b"abc"] {
        let mut enc = Encoder::new(Vec::new(), 3).unwrap();
        enc.flush().unwrap();
        assert!(enc.set_checksum(true).is_err());
        enc.write_all(data).unwrap();
        let frame = enc.finish().unwrap();
        let mut expected = StreamEncoder::new(3).unwrap();
        let mut out = Vec::new();
        expected.flush(&mut out).unwrap();
        expected.compress(data, &mut out).unwrap();
        expected.finish(&[], &mut out).unwrap();
        assert_eq!(frame, out);
        // No size in the header (single-segment flag clear, no content size field).
        assert_eq!(frame[4] & 0xE0, 0, "{:02x}", frame[4]);
    }
}

/// Frames of one stream encoder with a dictionary are a fresh encoder's, frame after frame:
/// the tables of an attached dictionary's frames go on past the last frame's indices (and
/// change size with the source), the dictionary's content stays at the slice's start, and
/// frames of unknown size, with long-distance matching or copying the dictionary's tables
/// come in between. Dictionaries of 8 KB (hash chains at the lazy levels) and 40 KB (rows).
#[test]
fn a_reused_stream_encoder_with_a_dictionary_gives_fresh_frames() {
    let sizes = [
        2048usize, 2048, 9000, 700, 30_000, 2048, 0, 12, 5000, 16_384, 40_000, 2048, 100_000, 3000,
        2048, 6000,
    ];
    for level in [1, 2, 3, 5, 6, 8] {
        for dict_len in [8192usize, 40_000] {
            let content = generate(Shape::ALL[0], dict_len, 7);
            let dict = zstd::EncoderDictionary::new(&content, level).unwrap();
            for dds in [false, true] {
                let mut enc = StreamEncoder::with_dictionary(&dict);
                enc.set_dedicated_dict_search(dds).unwrap();
                for (i, &size) in sizes.iter().enumerate() {
                    let src = generate(Shape::ALL[(i / 2) % 12], size, i as u64);
                    let pledged = (i % 5 != 4).then_some(size as u64);
                    let long = (i % 7 == 6).then_some(24);
                    let run = |enc: &mut StreamEncoder| {
                        enc.set_long_distance_matching(long).unwrap();
                        enc.set_pledged_size(pledged).unwrap();
                        let mut out = Vec::new();
                        enc.compress(&src, &mut out).unwrap();
                        enc.finish(&[], &mut out).unwrap();
                        out
                    };
                    let frame = run(&mut enc);
                    let mut fresh = StreamEncoder::with_dictionary(&dict);
                    fresh.set_dedicated_dict_search(dds).unwrap();
                    let expected = run(&mut fresh);
                    assert!(
                        frame == expected,
                        "level {level}, {dict_len}-byte dictionary, dds {dds}, frame {i} ({size} bytes)"
                    );
                }
            }
        }
    }
    // A frame past its window drops the dictionary's content from the slice's front: the
    // next frame must have it again.
    let content = generate(Shape::ALL[0], 8192, 7);
    let dict = zstd::EncoderDictionary::new(&content, 1).unwrap();
    let mut enc = StreamEncoder::with_dictionary(&dict);
    for (i, size) in [2048usize, 3 << 20, 2048].into_iter().enumerate() {
        // The small frames repeat a part of the dictionary.
        let src = match size {
            2048 => content[1000..3048].to_vec(),
            _ => generate(Shape::ALL[1], size, i as u64),
        };
        let run = |enc: &mut StreamEncoder| {
            enc.set_pledged_size(Some(size as u64)).unwrap();
            let mut out = Vec::new();
            for chunk in src.chunks(128 << 10) {
                enc.compress(chunk, &mut out).unwrap();
            }
            enc.finish(&[], &mut out).unwrap();
            out
        };
        let frame = run(&mut enc);
        let expected = run(&mut StreamEncoder::with_dictionary(&dict));
        assert!(
            frame == expected,
            "frame {i} ({size} bytes) after a frame past its window"
        );
    }
}
