//! The codec's contexts live on the heap: making and using them needs little stack, so a
//! program may run them on threads with small stacks (async runtimes' blocking pools,
//! thread pools sized down for many workers). libzstd's contexts are heap objects too.
//! The frames and contexts are built on a thread of 64 KiB of stack; a context built on
//! the stack and then moved into its box (the decoder's is about 300 KiB) overflows it
//! and aborts the test binary.

const STACK: usize = 64 << 10;
const LEVELS: [i32; 9] = [-5, 1, 3, 6, 9, 13, 16, 19, 22];

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("the thread starts")
        .join()
        .expect("the thread finishes")
}

#[test]
fn decoders_are_made_and_used_on_a_small_stack() {
    let src = zarkit_corpus::generate(zarkit_corpus::Shape::Hetero, 200_000, 3);
    let frame = zarkit::zstd::compress(&src, 3).unwrap();
    let back = on_small_stack(move || {
        let mut d = zarkit::zstd::Decoder::new();
        let one = d.decompress(&frame, src.len()).unwrap();
        let two = zarkit::zstd::decompress(&frame, src.len()).unwrap();
        let mut streamed = Vec::new();
        std::io::copy(
            &mut zarkit::zstd::StreamDecoder::new(&frame[..]),
            &mut streamed,
        )
        .unwrap();
        one == src && two == src && streamed == src
    });
    assert!(back, "a decoder on a small stack gave other bytes");
}

#[test]
fn encoders_are_made_and_used_on_a_small_stack() {
    let src = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 300_000, 4);
    let expected: Vec<Vec<u8>> = LEVELS
        .iter()
        .map(|&level| zarkit::zstd::compress(&src, level).unwrap())
        .collect();
    let src_copy = src.clone();
    let (one_shot, streamed) = on_small_stack(move || {
        let one_shot: Vec<Vec<u8>> = LEVELS
            .iter()
            .map(|&level| zarkit::zstd::compress(&src, level).unwrap())
            .collect();
        let streamed: Vec<Vec<u8>> = LEVELS
            .iter()
            .map(|&level| {
                let mut e = zarkit::zstd::Encoder::new(Vec::new(), level).unwrap();
                for chunk in src.chunks(100_000) {
                    std::io::Write::write_all(&mut e, chunk).unwrap();
                }
                e.finish().unwrap()
            })
            .collect();
        (one_shot, streamed)
    });
    // A stream of unknown size at level 22 declares a 128 MiB window.
    let mut d = zarkit::zstd::Decoder::new();
    d.set_max_window_size(1 << 30);
    let streamed = streamed
        .iter()
        .all(|f| d.decompress(f, 1 << 20).unwrap() == src_copy);
    assert!(one_shot == expected, "frames made on a small stack differ");
    assert!(
        streamed,
        "a stream made on a small stack does not decode to its source"
    );
}

#[test]
fn dictionaries_are_prepared_and_used_on_a_small_stack() {
    let dict = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 16 << 10, 5);
    let src = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 8 << 10, 6);
    let frames = |dict: &[u8], src: &[u8]| -> Vec<Vec<u8>> {
        [1, 6, 19]
            .iter()
            .flat_map(|&level| {
                let mut c = zarkit::zstd::Compressor::new(level).unwrap();
                let mut loaded = Vec::new();
                c.compress_with_dict_into(src, dict, &mut loaded).unwrap();
                let prepared = zarkit::zstd::EncoderDictionary::new(dict, level).unwrap();
                let mut with_prepared = Vec::new();
                c.compress_prepared_into(src, &prepared, &mut with_prepared)
                    .unwrap();
                [loaded, with_prepared]
            })
            .collect()
    };
    let expected = frames(&dict, &src);
    let (d, s, e) = (dict.clone(), src.clone(), expected.clone());
    let (made, decoded) = on_small_stack(move || {
        let made = frames(&d, &s);
        let mut decoder =
            zarkit::zstd::Decoder::with_dictionary(&zarkit::zstd::DecoderDictionary::raw(&d));
        let decoded = e
            .iter()
            .all(|f| decoder.decompress(f, s.len()).unwrap() == s);
        (made, decoded)
    });
    assert!(
        made == expected,
        "dictionary frames made on a small stack differ"
    );
    assert!(decoded, "dictionary frames decoded on a small stack differ");
}
