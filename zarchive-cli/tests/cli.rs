//! The `zarchive` binary: forms, outputs and exit codes.

mod common;
use common::*;

#[cfg(target_os = "linux")]
use std::ffi::OsStr;
use std::process::Command;

#[test]
fn reference_positional_form_packs_dir_to_dir_zar_and_extracts_to_stem_extracted() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("game");
    std::fs::create_dir_all(tree.join("content")).unwrap();
    std::fs::write(tree.join("content/a.txt"), b"hello").unwrap();
    let o = run!(tree);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let archive = d.path().join("game.zar");
    assert!(archive.is_file());
    let o = run!(archive);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(d.path().join("game_extracted/content/a.txt")).unwrap(),
        b"hello"
    );
    let o = run!(tree, archive, "third");
    assert_eq!(code(&o), 2);
}

#[test]
fn verify_exit_codes_distinguish_damage_from_other_failures() {
    assert_eq!(
        code(&run!("verify", "-q", fixture("basic/reference.zar"))),
        0
    );
    let o = run!("verify", "-q", fixture("bad/bad_hash.zar"));
    assert_eq!(code(&o), 3);
    assert!(String::from_utf8_lossy(&o.stdout).contains("integrity hash mismatch"));
    let o = run!("verify", "-q", fixture("bad/corrupt_block.zar"));
    assert_eq!(code(&o), 3);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("block 0") && out.contains("ok.txt") && out.contains("text.txt"),
        "{out}"
    );
    assert_eq!(code(&run!("verify", fixture("bad/cycle.zar"))), 3);
    assert_eq!(code(&run!("verify", fixture("does-not-exist.zar"))), 1);
}

#[test]
fn hostile_archives_fail_extraction_and_write_nothing_outside() {
    let d = tempfile::tempdir().unwrap();
    for name in [
        "dotdot_dir.zar",
        "dotdot_file.zar",
        "backslash_name.zar",
        "cycle.zar",
        "huge_file_size.zar",
    ] {
        let dest = d.path().join("inner").join(name);
        let o = run!("extract", "-q", fixture(&format!("bad/{name}")), "-C", dest);
        // An index that does not validate: the archive is damaged (3), as `verify` says.
        assert_eq!(code(&o), 3, "{name}");
        assert!(!String::from_utf8_lossy(&o.stderr).is_empty());
    }
    let top: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(top.is_empty(), "nothing created at all: {top:?}");
}

#[test]
fn usage_errors_exit_2_and_unimplemented_levels_are_refused() {
    assert_eq!(code(&run!("pack", "--no-such-flag", ".")), 2);
    let d = tempfile::tempdir().unwrap();
    let o = run!(
        "pack",
        fixture("raw/tree"),
        "-o",
        d.path().join("x.zar"),
        "-l",
        "99"
    );
    assert_eq!(code(&o), 2);
    assert!(!d.path().join("x.zar").exists());
    let o = run!(
        "pack",
        "-q",
        fixture("raw/tree"),
        "-o",
        d.path().join("s.zar"),
        "-l",
        "stored"
    );
    assert_eq!(code(&o), 0);
    let o = run!();
    assert_eq!(
        code(&o),
        2,
        "no arguments is a usage error (the usage goes to stderr)"
    );
}

#[test]
fn list_json_cat_range_and_pack_to_stdout() {
    let o = run!("list", "--json", fixture("basic/reference.zar"));
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let first = &v.as_array().unwrap()[0];
    assert_eq!(first["path"], "-dash.txt");
    assert_eq!(first["size"], 5);
    let o = run!(
        "cat",
        fixture("multi-frame/multiframe.zar"),
        "SUB\\c.txt",
        "--offset",
        "10",
        "--length",
        "20"
    );
    assert_eq!(code(&o), 0);
    let want = std::fs::read(fixture("multi-frame/expected/sub/c.txt")).unwrap();
    assert_eq!(o.stdout, &want[10..30]);
    // A length past the end stops at the end, as `head -c` does (it was an error, with
    // nothing written); an offset past the end is still an error.
    let o = run!(
        "cat",
        fixture("multi-frame/multiframe.zar"),
        "SUB\\c.txt",
        "--offset",
        "10",
        "--length",
        "99999999"
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, &want[10..]);
    let o = run!(
        "cat",
        fixture("multi-frame/multiframe.zar"),
        "a.txt",
        "--offset",
        "999999"
    );
    assert_eq!(code(&o), 1);
    let o = run!("pack", "-q", fixture("raw/tree"), "-o", "-", "-l", "stored");
    assert_eq!(code(&o), 0);
    assert_eq!(&o.stdout[o.stdout.len() - 4..], &[0x16, 0x9F, 0x52, 0xD6]);
    let o = run!("info", fixture("basic/reference.zar"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("18 of 64 KiB (3 stored raw, 15 compressed)"),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn killing_pack_midway_never_leaves_an_archive_at_the_target() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    // 256 MiB of sparse zeros: cheap to create, long enough to pack that we can kill it.
    std::fs::File::create(tree.join("big.bin"))
        .unwrap()
        .set_len(256 << 20)
        .unwrap();
    let out = d.path().join("out.zar");
    let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args([
            std::ffi::OsStr::new("pack"),
            "-q".as_ref(),
            "-j1".as_ref(),
            "-l".as_ref(),
            "stored".as_ref(),
        ])
        .arg(&tree)
        .arg("-o")
        .arg(&out)
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let partial_seen = loop {
        let partial = std::fs::read_dir(d.path()).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".partial")
        });
        if partial || started.elapsed() > std::time::Duration::from_secs(20) {
            break partial;
        }
        if child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    child.kill().ok();
    let status = child.wait().unwrap();
    if partial_seen && !status.success() {
        assert!(
            !out.exists(),
            "a killed pack must not leave an archive at the target"
        );
    } else {
        // It finished before we could kill it: then the archive must be complete.
        assert_eq!(code(&run!("verify", "-q", out)), 0);
    }
}

#[test]
fn default_pack_reproduces_the_reference_archives_byte_for_byte() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("tree");
    copy_tree(&fixture("basic/tree"), &tree);
    std::fs::create_dir_all(tree.join("emptydir")).unwrap();
    for (src, reference) in [
        (tree.clone(), "basic/reference.zar"),
        (fixture("raw/tree"), "raw/reference.zar"),
    ] {
        for j in ["1", "2"] {
            let out = d
                .path()
                .join(format!("{}-{j}.zar", reference.replace('/', "_")));
            let o = run!("pack", "-q", src, "-o", out, "-j", j);
            assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
            assert!(
                std::fs::read(&out).unwrap() == std::fs::read(fixture(reference)).unwrap(),
                "{reference} with -j {j}"
            );
        }
    }
}

#[test]
fn train_writes_the_dictionary_zstd_train_would_and_it_compresses() {
    let d = tempfile::tempdir().unwrap();
    let samples = d.path().join("samples");
    sample_files(&samples, 60);
    let dict = d.path().join("d.dict");
    let o = run!("train", samples, "-o", dict, "--maxdict", "4K");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("60 samples"), "{}", stderr(&o));
    let bytes = std::fs::read(&dict).unwrap();
    assert!(bytes.len() <= 4096 && bytes.starts_with(&[0x37, 0xA4, 0x30, 0xEC]));

    // The files in name order (directories walked in place), shuffled as `zstd --train`
    // shuffles them, empty ones skipped: the library's trainer gives the same bytes.
    let mut files = Vec::new();
    fn walk(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                walk(&e, out)
            } else {
                out.push(e)
            }
        }
    }
    walk(&samples, &mut files);
    zarkit::zstd::shuffle_like_zstd(&mut files);
    let loaded: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(
        zarkit::zstd::train_dictionary(&loaded, 4096).unwrap(),
        bytes
    );

    // An existing output is kept unless -f.
    let o = run!("train", samples, "-o", dict, "--maxdict", "4K");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("exists"), "{}", stderr(&o));
    let o = run!("train", samples, "-o", dict, "--maxdict", "4K", "-f");
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // The dictionary serves `compress -D` / `decompress -D`.
    let input = samples.join("f005.json");
    let frame = d.path().join("f.zst");
    let o = run!("compress", "-D", dict, input, "-o", frame);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let back = d.path().join("back.json");
    let o = run!("decompress", "-D", dict, frame, "-o", back);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(back).unwrap(), std::fs::read(input).unwrap());

    // Too few samples, a bad size: refused by name, nothing written.
    let few = d.path().join("few");
    sample_files(&few, 4);
    let none = d.path().join("none.dict");
    let o = run!("train", few, "-o", none);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("4 samples were found"),
        "{}",
        stderr(&o)
    );
    let o = run!("train", samples, "-o", none, "--maxdict", "100");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("at least 256 bytes"), "{}", stderr(&o));
    let o = run!("train", samples, "-o", none, "-B", "1M");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!none.exists());
}

#[test]
fn pack_with_a_dictionary_file_or_auto_says_what_it_chose_and_reads_back() {
    let d = tempfile::tempdir().unwrap();
    let samples = d.path().join("samples");
    sample_files(&samples, 60);
    let dict = d.path().join("d.dict");
    let o = run!("train", samples, "-o", dict, "--maxdict", "8K");
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // A given dictionary: the dictionary extension, named by `info`, verified, extracted.
    let out = d.path().join("with.zar");
    let o = run!("pack", samples, "-o", out, "--dict", dict, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(
        &bytes[bytes.len() - 8..bytes.len() - 4],
        &[0x61, 0xBF, 0x3A, 0xD1]
    );
    let o = run!("info", out);
    let id = u32::from_le_bytes(std::fs::read(&dict).unwrap()[4..8].try_into().unwrap());
    assert!(
        stdout(&o).contains(&format!("dictionary:       ID {id}")),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("dictionary extension"),
        "{}",
        stdout(&o)
    );
    let o = run!("info", "--json", out);
    assert!(
        stdout(&o).contains(&format!("\"id\": {id}")),
        "{}",
        stdout(&o)
    );
    let o = run!("verify", out);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let x = d.path().join("x");
    let o = run!("extract", out, "-C", x, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for e in std::fs::read_dir(&samples).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            assert_eq!(
                std::fs::read(&p).unwrap(),
                std::fs::read(x.join(p.file_name().unwrap())).unwrap()
            );
        }
    }

    // auto on a tree of a few blocks: too few to measure, plain v1, and it says so.
    let plain = d.path().join("auto.zar");
    let o = run!("pack", samples, "-o", plain, "--dict", "auto", "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no dictionary") && stderr(&o).contains("at least 16"),
        "{}",
        stderr(&o)
    );
    let bytes = std::fs::read(&plain).unwrap();
    assert_eq!(
        &bytes[bytes.len() - 8..bytes.len() - 4],
        &[0x61, 0xBF, 0x3A, 0x01]
    );

    // auto on 2 MiB of text over a large shared vocabulary (each 64 KiB block meets much of
    // it anew, a dictionary holds it): kept, and reported with its saving.
    let big = d.path().join("big");
    std::fs::create_dir_all(&big).unwrap();
    let mut x: u32 = 7;
    let mut next = || {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        x >> 8
    };
    let vocabulary: Vec<String> = (0..6000)
        .map(|_| {
            let len = 4 + next() as usize % 7;
            (0..len)
                .map(|_| (b'a' + (next() % 26) as u8) as char)
                .collect()
        })
        .collect();
    for i in 0..400 {
        let mut text = String::new();
        while text.len() < 5000 {
            text.push_str(&vocabulary[next() as usize % vocabulary.len()]);
            text.push(' ');
        }
        std::fs::write(big.join(format!("t{i:03}.txt")), text).unwrap();
    }
    let kept = d.path().join("kept.zar");
    let o = run!("pack", big, "-o", kept, "--dict", "auto", "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("kept: it saves"), "{}", stderr(&o));
    let o = run!("verify", kept);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Never for a `.wua` (Cemu could not open it; auto kept the dictionary there, with only
    // the warning that Cemu cannot open the archive): plain, and said, for pack, merge and
    // update alike.
    let wua = d.path().join("big.wua");
    let o = run!("pack", &big, "-o", &wua, "--dict", "auto");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--dict auto: no dictionary for") && !stderr(&o).contains("kept"),
        "{}",
        stderr(&o)
    );
    let merged = d.path().join("merged.wua");
    let o = run!("merge", "-q", "-o", &merged, &kept, "--dict", "auto");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("update", "-q", &wua, &big, "--dict", "auto");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for archive in [&wua, &merged] {
        let bytes = std::fs::read(archive).unwrap();
        assert_eq!(
            &bytes[bytes.len() - 8..bytes.len() - 4],
            &[0x61, 0xBF, 0x3A, 0x01],
            "{}",
            archive.display()
        );
    }

    // No dictionary with stored blocks; raw content is not an archive dictionary.
    let o = run!(
        "pack",
        samples,
        "-o",
        d.path().join("s.zar"),
        "--dict",
        dict,
        "-l",
        "stored"
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let raw = samples.join("f001.json");
    let o = run!("pack", samples, "-o", d.path().join("r.zar"), "--dict", raw);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("zstd-format"), "{}", stderr(&o));
}

/// `decompress` streams its input: a 48 MiB frame (incompressible data, stored blocks)
/// decodes with a peak resident size far below the input's size.
#[cfg(target_os = "linux")]
#[test]
fn decompress_streams_its_input_with_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("noise.bin");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let data: Vec<u8> = (0..48 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(&input, &data).unwrap();
    let frame = d.path().join("noise.bin.zst");
    let o = run!("compress", "-l", "1", input, "-o", frame);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::metadata(&frame).unwrap().len() > 48 << 20);
    drop(data);

    let out = d.path().join("back.bin");
    let child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args([std::ffi::OsStr::new("decompress"), frame.as_os_str()])
        .arg("-o")
        .arg(&out)
        .spawn()
        .unwrap();
    // The peak resident size so far (VmHWM), polled until the process ends.
    let (exit, peak_kib) = wait_with_peak_rss(child);
    assert!(exit.success());
    assert_eq!(
        std::fs::metadata(&out).unwrap().len(),
        std::fs::metadata(&input).unwrap().len()
    );
    assert!(peak_kib > 0, "the process was observed");
    assert!(
        peak_kib < 24 << 10,
        "peak resident size {peak_kib} KiB for a 48 MiB input"
    );
}

/// `zarchive compress` driven the way `zstd --single-thread` drives libzstd (128 KiB
/// reads; a file's size pledged and its last read ending the frame; standard input ended by
/// an empty call), through the library: the oracle test `the_zstd_tools_calls_match_the_oracle`
/// in `zarkit-benches` checks that these calls give libzstd 1.5.7's bytes.
fn zstd_tool_frame(src: &[u8], level: i32, file: bool) -> Vec<u8> {
    zstd_tool_frame_with(zarkit::zstd::StreamEncoder::new(level).unwrap(), src, file)
}

fn zstd_tool_frame_with(mut enc: zarkit::zstd::StreamEncoder, src: &[u8], file: bool) -> Vec<u8> {
    enc.set_checksum(true).unwrap();
    enc.set_pledged_size(file.then_some(src.len() as u64))
        .unwrap();
    let mut out = Vec::new();
    let chunks: Vec<&[u8]> = src.chunks(1 << 17).collect();
    for (i, c) in chunks.iter().enumerate() {
        if file && i + 1 == chunks.len() {
            enc.finish(c, &mut out).unwrap();
            return out;
        }
        enc.compress(c, &mut out).unwrap();
    }
    enc.finish(&[], &mut out).unwrap();
    out
}

#[test]
fn compress_streams_as_the_zstd_tool_does_with_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("log.txt");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut data = Vec::with_capacity(40 << 20);
    while data.len() < 40 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data.extend_from_slice(
            format!("{} request {} took {} ms\n", x % 1000, x >> 40, x % 97).as_bytes(),
        );
    }
    std::fs::write(&input, &data).unwrap();
    let frame = d.path().join("log.txt.zst");
    let child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args([std::ffi::OsStr::new("compress"), input.as_os_str()])
        .args(["-l", "3"])
        .spawn()
        .unwrap();
    let (exit, peak_kib) = wait_with_peak_rss(child);
    assert!(exit.success());
    let got = std::fs::read(&frame).unwrap();
    assert!(
        got == zstd_tool_frame(&data, 3, true),
        "file: not the zstd tool's frame"
    );
    // Level 3 on an unknown size: a 2 MiB window, a 2.1 MiB input buffer, 1 MiB of tables.
    assert!(peak_kib > 0, "the process was observed");
    assert!(
        peak_kib < 24 << 10,
        "peak resident size {peak_kib} KiB for a 40 MiB input"
    );

    // From standard input (size unknown), to standard output.
    let small = &data[..(3 << 20) + 5];
    let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(["compress", "-", "-l", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = small.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        // Uneven writes: the reads still come in 128 KiB pieces.
        for piece in feed.chunks(10_000) {
            stdin.write_all(piece).unwrap();
        }
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(o.status.success());
    assert!(
        o.stdout == zstd_tool_frame(small, 1, false),
        "stdin: not the zstd tool's frame"
    );
    assert_eq!(
        zarkit::zstd::decompress(&o.stdout, small.len()).unwrap(),
        small
    );

    // --no-check: no checksum flag in the header.
    let o = run!(
        "compress",
        &input,
        "-o",
        d.path().join("n.zst"),
        "--no-check",
        "-l",
        "1"
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let n = std::fs::read(d.path().join("n.zst")).unwrap();
    assert_eq!(n[4] & 4, 0);
    assert_eq!(got[4] & 4, 4);
}

/// `compress` takes the `zstd` tool's level forms beside `-l`: `-N`, `--fast[=N]`, `--ultra`
/// for `-20` .. `-22` (without it they mean 19, with a warning, as in `zstd`), the last
/// level given winning; `-c` writes to standard output; option values and arguments after
/// `--` are never taken for levels.
#[test]
fn compress_takes_the_zstd_tools_level_forms() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in.txt");
    // Numbered lines with earlier stretches of 1.5-2.5 KB repeated: matches longer than
    // level 19's target length (256), so that level 22 (999) parses differently.
    let mut x: u64 = 0x1234_5678_9ABC_DEF1;
    let mut data: Vec<u8> = Vec::new();
    let mut i = 0u64;
    while data.len() < 700_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i % 50 == 49 && data.len() > 5000 {
            let from = ((x >> 10) % (data.len() as u64 - 3000)) as usize;
            let len = 1500 + (x % 1000) as usize;
            data.extend_from_within(from..from + len);
        }
        data.extend_from_slice(format!("record {i:06} value {:04}\n", x % 10000).as_bytes());
        i += 1;
    }
    std::fs::write(&input, &data).unwrap();
    // The frame `compress ARGS... in.txt -c` writes, and its stderr.
    let frame = |args: &[&str]| {
        let mut all: Vec<&std::ffi::OsStr> = vec!["compress".as_ref()];
        all.extend(args.iter().map(std::ffi::OsStr::new));
        all.extend([input.as_os_str(), "-c".as_ref()]);
        let o = common::zarchive(&all);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        (o.stdout, err)
    };
    let level = |l: i32| zstd_tool_frame(&data, l, true);
    assert!(frame(&["-7"]).0 == level(7), "-7");
    assert!(frame(&["--fast=4"]).0 == level(-4), "--fast=4");
    assert!(frame(&["--fast"]).0 == level(-1), "--fast");
    assert!(
        frame(&["--fast=9999999"]).0 == level(zarkit::zstd::MIN_LEVEL),
        "a factor past the fastest level's"
    );
    assert!(
        frame(&["-l", "5", "-9"]).0 == level(9),
        "the last level wins"
    );
    assert!(
        frame(&["-9", "-l", "5"]).0 == level(5),
        "the last level wins"
    );
    assert_eq!(
        frame(&["-l", "-2"]).0,
        level(-2),
        "-l's value is not a level form"
    );
    assert!(level(19) != level(22), "the input tells 19 from 22");
    let (capped, warning) = frame(&["-22"]);
    assert!(capped == level(19), "-22 without --ultra is 19, as in zstd");
    assert!(warning.contains("--ultra"), "{warning}");
    for args in [&["-22", "--ultra"], &["--ultra", "-22"]] {
        let (got, quiet) = frame(args);
        assert!(got == level(22), "{args:?}");
        assert!(quiet.is_empty(), "{quiet}");
    }
    assert_eq!(
        frame(&["-22", "-l", "19"]).1,
        "",
        "the capped level is not the last"
    );
    // Above the highest level, as `zstd`: 22 with --ultra, 19 without (refused before).
    let (got, warning) = frame(&["-23", "--ultra"]);
    assert!(got == level(22), "-23 --ultra");
    assert!(warning.contains("above the highest"), "{warning}");
    let (got, warning) = frame(&["-30"]);
    assert!(got == level(19), "-30");
    assert!(warning.contains("above the highest"), "{warning}");
    assert_eq!(
        frame(&["-l", "22"]).0,
        level(22),
        "-l takes 22 without --ultra"
    );
    // Short options grouped with a level, as `zstd` reads them; `-q` silences the warning.
    for args in [
        &["-7c"][..],
        &["-k7"],
        &["-c7k"],
        &["-kc", "-7"],
        &["-22", "-kl", "7"],
    ] {
        let (got, err) = frame(args);
        assert!(got == level(7), "{args:?}");
        assert_eq!(err, "", "{args:?}");
    }
    for args in [
        &["-q22"][..],
        &["-22q"],
        &["-q", "-22"],
        &["--quiet", "-30"],
    ] {
        let (got, err) = frame(args);
        assert!(got == level(19), "{args:?}");
        assert_eq!(err, "", "{args:?}: quiet, as zstd -q");
    }

    // Refused: a factor of 0 or not a number, `-c` with `-o`.
    for bad in ["--fast=0", "--fast=x", "--fast="] {
        let o = run!("compress", &input, bad, "-c");
        assert_eq!(code(&o), 2, "{bad}");
        assert!(stderr(&o).contains("--fast"), "{}", stderr(&o));
    }
    let o = run!("compress", &input, "-c", "-o", d.path().join("x"));
    assert_eq!(code(&o), 2);

    // An output named `-5` and an input named `-19` (after `--`) are paths.
    let in_dir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .current_dir(d.path())
            .args(args)
            .output()
            .unwrap()
    };
    let o = in_dir(&["compress", "in.txt", "-o", "-5", "-19"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::read(d.path().join("-5")).unwrap() == level(19),
        "-5"
    );
    let o = in_dir(&["compress", "-o", "-5", "-f", "-l", "2", "--", "-19"]);
    assert_eq!(code(&o), 1, "no file named -19: {}", stderr(&o));
    assert!(stderr(&o).contains("-19"), "{}", stderr(&o));
    std::fs::write(d.path().join("-19"), &data).unwrap();
    let o = in_dir(&["compress", "-f", "-l", "2", "--", "-19"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::read(d.path().join("-19.zst")).unwrap() == level(2),
        "-19.zst"
    );
    // `decompress -c` writes to standard output, the file named `-19.zst` read as it is.
    let o = in_dir(&["decompress", "-c", "-k", "--", "-19.zst"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == data, "decompress -c");
    let o = run!("decompress", d.path().join("-19.zst"), "-c", "-o", "x");
    assert_eq!(code(&o), 2, "-c with -o");
}

/// Several inputs, as `zstd FILE...` and `zstd -d FILE...`: each to its own output, a failed
/// one named while the others go on (exit 1), or all into the one output of `-o` or `-c`,
/// frame after frame.
#[test]
fn compress_and_decompress_take_several_inputs() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a.txt"), d.path().join("b.txt"));
    let a_data = b"the first file, the first file, the first file\n".repeat(300);
    let b_data = b"and the second one\n".repeat(1000);
    std::fs::write(&a, &a_data).unwrap();
    std::fs::write(&b, &b_data).unwrap();
    let missing = d.path().join("missing.txt");
    let o = run!("compress", &a, &missing, &b, "-l", "5");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.txt"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 of 3 inputs failed"),
        "{}",
        stderr(&o)
    );
    let a_frame = std::fs::read(d.path().join("a.txt.zst")).unwrap();
    let b_frame = std::fs::read(d.path().join("b.txt.zst")).unwrap();
    assert!(a_frame == zstd_tool_frame(&a_data, 5, true), "a.txt.zst");
    assert!(b_frame == zstd_tool_frame(&b_data, 5, true), "b.txt.zst");
    assert!(!d.path().join("missing.txt.zst").exists());

    // Existing outputs are kept, each named.
    let o = run!("compress", &a, &b, "-l", "5");
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("a.txt.zst") && stderr(&o).contains("b.txt.zst"));
    // One output for all: the frames one after the other; as `zstd`, only with -f (joined,
    // the inputs lose their names).
    let both = d.path().join("both.zst");
    let o = run!("compress", &a, &b, "-l", "5", "-o", &both);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("give -f to join them"),
        "{}",
        stderr(&o)
    );
    assert!(!both.exists());
    let o = run!("compress", &a, &b, "-l", "5", "-o", &both, "-f");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&both).unwrap() == [a_frame.clone(), b_frame.clone()].concat());
    let o = run!("compress", "-l", "5", "-c", &b, &a);
    assert!(o.stdout == [b_frame.clone(), a_frame].concat(), "-c");
    // Standard input at most once.
    let o = run!("compress", "-", "-", "-c");
    assert_eq!(code(&o), 2);

    // Decompress each beside its frame, or all into one output.
    std::fs::remove_file(&a).unwrap();
    std::fs::remove_file(&b).unwrap();
    let o = run!(
        "decompress",
        d.path().join("a.txt.zst"),
        d.path().join("b.txt.zst")
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&a).unwrap() == a_data && std::fs::read(&b).unwrap() == b_data);
    let o = run!("decompress", &both, "-c");
    assert!(
        o.stdout == [a_data.clone(), b_data.clone()].concat(),
        "both.zst"
    );
    let joined = d.path().join("joined");
    let o = run!(
        "decompress",
        d.path().join("b.txt.zst"),
        d.path().join("a.txt.zst"),
        "-o",
        &joined,
        "-f"
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&joined).unwrap() == [b_data.clone(), a_data.clone()].concat());
    // NAME.tzst decompresses to NAME.tar, as with `zstd -d`.
    std::fs::copy(&both, d.path().join("t.tzst")).unwrap();
    let o = run!("decompress", d.path().join("t.tzst"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::read(d.path().join("t.tar")).unwrap() == [a_data.clone(), b_data.clone()].concat()
    );
    // A failure into one output leaves none.
    let o = run!(
        "decompress",
        &both,
        &missing,
        "-o",
        d.path().join("none"),
        "-f"
    );
    assert_eq!(code(&o), 1);
    assert!(!d.path().join("none").exists());
    // Into standard output, as `zstd -c`: the failed input is named, the others go on.
    let o = run!(
        "decompress",
        &both,
        &missing,
        d.path().join("b.txt.zst"),
        "-c"
    );
    assert_eq!(code(&o), 1);
    assert!(o.stdout == [a_data.as_slice(), &b_data, &b_data].concat());
    assert!(
        stderr(&o).contains("missing.txt") && stderr(&o).contains("1 of 3 inputs failed"),
        "{}",
        stderr(&o)
    );
    let o = run!("compress", "-l", "5", "-c", &missing, &b);
    assert_eq!(code(&o), 1);
    assert!(o.stdout == b_frame, "{}", stderr(&o));
    // But a reader that went away (`| head`) ends it: the inputs after it are not tried.
    #[cfg(unix)]
    {
        let big = b"a line of text that repeats ".repeat(40_000);
        let frames: Vec<_> = (0..3)
            .map(|i| {
                let f = d.path().join(format!("big{i}.zst"));
                std::fs::write(&f, zstd_tool_frame(&big, 1, true)).unwrap();
                f
            })
            .collect();
        // Bytes that do not compress, so that `compress -c` fills the pipe too.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..1 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let noisy: Vec<_> = (0..2)
            .map(|i| {
                let f = d.path().join(format!("noise{i}"));
                std::fs::write(&f, &noise).unwrap();
                f
            })
            .collect();
        // One input or several, decompressed or compressed.
        for (command, inputs) in [
            ("decompress", &frames[..]),
            ("decompress", &frames[..1]),
            ("compress", &noisy[..]),
        ] {
            let o = run_into_closed_pipe(
                Command::new(env!("CARGO_BIN_EXE_zarchive"))
                    .arg(command)
                    .arg("-c")
                    .arg("-f")
                    .args(inputs),
            );
            // Quietly, as `cat` and `list` end on a closed pipe.
            assert_eq!(code(&o), 0, "{command} {}: {}", inputs.len(), stderr(&o));
            assert_eq!(stderr(&o), "", "{command} {}: no message", inputs.len());
        }
    }

    // --rm removes an input once its output is complete, never one that failed or went to
    // standard output; -k after it keeps them.
    let o = run!("compress", "-f", "--rm", &a, &missing, &b);
    assert_eq!(code(&o), 1);
    assert!(!a.exists() && !b.exists(), "removed after their outputs");
    let o = run!("decompress", "--rm", d.path().join("a.txt.zst"), "-c");
    assert!(o.stdout == a_data, "to stdout");
    assert!(stderr(&o).contains("--rm ignored"), "{}", stderr(&o));
    assert!(
        d.path().join("a.txt.zst").exists(),
        "kept: the output was stdout"
    );
    let o = run!("decompress", "--rm", "-k", d.path().join("a.txt.zst"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(a.exists() && d.path().join("a.txt.zst").exists(), "-k wins");
    let bad = d.path().join("bad.zst");
    std::fs::write(&bad, b"not a zstd frame").unwrap();
    let o = run!("decompress", "--rm", &bad);
    assert_eq!(code(&o), 1);
    assert!(
        bad.exists() && !d.path().join("bad").exists(),
        "a failed input is kept"
    );
    let o = run!("decompress", "--rm", d.path().join("b.txt.zst"), "-o", &b);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        b.exists() && !d.path().join("b.txt.zst").exists(),
        "-o then --rm"
    );
}

/// `-r`, as `zstd -r` / `zstd -dr`: every file under a directory, each beside itself;
/// symbolic links met in the walk are not followed (a loop would never end); what
/// `decompress -r` cannot name an output for is left alone. Also `--exclude-compressed`,
/// an empty input's message, and a name that is not UTF-8.
#[test]
fn compress_and_decompress_walk_directories_with_r() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir_all(t.join("s")).unwrap();
    std::fs::create_dir_all(d.path().join("empty")).unwrap();
    let a_data = b"a file at the top of the tree\n".repeat(100);
    let b_data = b"a file one directory down\n".repeat(200);
    std::fs::write(t.join("a.txt"), &a_data).unwrap();
    std::fs::write(t.join("s/b.txt"), &b_data).unwrap();
    std::fs::write(t.join("old.gz"), b"not really gzip").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", t.join("s/loop")).unwrap();

    // Without -r a directory is refused, with the hint.
    let o = run!("compress", &t);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("is a directory") && stderr(&o).contains("-r"));

    let o = run!("compress", "-r", &t, "-l", "4");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(t.join("a.txt.zst")).unwrap() == zstd_tool_frame(&a_data, 4, true));
    assert!(std::fs::read(t.join("s/b.txt.zst")).unwrap() == zstd_tool_frame(&b_data, 4, true));
    assert!(
        t.join("old.gz.zst").exists(),
        "zstd -r compresses every file"
    );
    #[cfg(unix)]
    assert!(
        stderr(&o).contains("loop: a symbolic link, not followed"),
        "{}",
        stderr(&o)
    );
    // The outputs of the first walk are inputs of the next, unless excluded.
    std::fs::remove_file(t.join("old.gz.zst")).unwrap();
    let o = run!("compress", "-r", &t, "-f", "--exclude-compressed");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!t.join("old.gz.zst").exists() && !t.join("a.txt.zst.zst").exists());
    assert!(t.join("a.txt.zst").exists());
    // A directory with no file in it: nothing to do, said.
    let o = run!("compress", "-r", d.path().join("empty"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("no files to compress"));

    // Decompress the tree back; the file with no .zst suffix is left alone, counted.
    std::fs::remove_file(t.join("a.txt")).unwrap();
    std::fs::remove_file(t.join("s/b.txt")).unwrap();
    let o = run!("decompress", "-r", &t, "--rm");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(t.join("a.txt")).unwrap() == a_data);
    assert!(std::fs::read(t.join("s/b.txt")).unwrap() == b_data);
    assert!(!t.join("a.txt.zst").exists(), "--rm");
    assert!(
        stderr(&o).contains("1 file under the directories given has no .zst"),
        "{}",
        stderr(&o)
    );

    // Into standard output every file under the directory is an input, as `zstd -dr -c`
    // takes them: the frames decode in name order, the file that holds none fails by name.
    let m = d.path().join("mixed");
    std::fs::create_dir_all(m.join("s")).unwrap();
    std::fs::write(m.join("a.zst"), zstd_tool_frame(&a_data, 3, true)).unwrap();
    std::fs::write(m.join("b.bin"), zstd_tool_frame(&b_data, 1, true)).unwrap();
    std::fs::write(m.join("plain.txt"), b"no frame here").unwrap();
    std::fs::write(m.join("s/c.zst"), zstd_tool_frame(b"down", 19, true)).unwrap();
    let o = run!("decompress", "-r", "-c", &m);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        o.stdout == [a_data.as_slice(), &b_data, b"down"].concat(),
        "a.zst, b.bin, then s/c.zst"
    );
    assert!(stderr(&o).contains("plain.txt"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("left alone"), "{}", stderr(&o));
    // Into one `-o` file (all or nothing), only the named ones.
    let joined = d.path().join("joined-r");
    let o = run!("decompress", "-r", &m, "-o", &joined, "-f");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&joined).unwrap() == [a_data.as_slice(), b"down"].concat());
    assert!(stderr(&o).contains("2 files under the directories given have no .zst"));
    // Into files, only the named ones, as before.
    let o = run!("decompress", "-r", &m);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(m.join("a").exists() && m.join("s/c").exists() && !m.join("b").exists());

    // An empty input holds no frame: said so, not as a truncated frame.
    std::fs::write(d.path().join("nothing.zst"), b"").unwrap();
    let o = run!("decompress", d.path().join("nothing.zst"));
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("nothing.zst: empty: no zstd frame"),
        "{}",
        stderr(&o)
    );

    // The output name is derived from the bytes of the input's, UTF-8 or not.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let stem = d.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
        let mut frame = stem.clone().into_os_string();
        frame.push(".zst");
        std::fs::write(&frame, zstd_tool_frame(&a_data, 3, true)).unwrap();
        let o = run!("decompress", &frame);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(std::fs::read(&stem).unwrap() == a_data);
    }
}

/// `compress --long[=W]` streams as `zstd --single-thread --long=W` (the oracle test
/// `long_distance_matching_matches_the_oracle` in `zarkit-benches` checks the library's
/// bytes against libzstd's), finds repeats beyond the level's own window, and a frame whose
/// window passes 128 MiB decodes only with `decompress --long=W` (or `--memory`).
#[test]
fn compress_long_finds_far_repeats_and_decompress_long_accepts_its_window() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("far.bin");
    // 3 MiB of noise twice: the repeat lies 3 MiB back, past level 1's 512 KiB window.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let noise: Vec<u8> = (0..3 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    let data = [noise.as_slice(), noise.as_slice()].concat();
    std::fs::write(&input, &data).unwrap();
    let plain = d.path().join("plain.zst");
    let o = run!("compress", "-l", "1", &input, "-o", &plain);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let long = d.path().join("long.zst");
    let o = run!("compress", "-l", "1", "--long", &input, "-o", &long);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut enc = zarkit::zstd::StreamEncoder::new(1).unwrap();
    enc.set_long_distance_matching(Some(27)).unwrap();
    let got = std::fs::read(&long).unwrap();
    assert!(
        got == zstd_tool_frame_with(enc, &data, true),
        "not the zstd tool's frame"
    );
    let plain_len = std::fs::metadata(&plain).unwrap().len();
    assert!(
        (got.len() as u64) < plain_len * 6 / 10,
        "--long: {} bytes, without: {plain_len}",
        got.len()
    );
    let back = d.path().join("back.bin");
    let o = run!("decompress", &long, "-o", &back);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&back).unwrap() == data);

    // From standard input (no size to shrink the window to) with a 2^28 window: beyond
    // what `decompress` accepts unless told, as `zstd -d`.
    let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(["compress", "-", "-l", "1", "--long=28"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&data[..100_000]).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let wide = d.path().join("wide.zst");
    std::fs::write(&wide, &o.stdout).unwrap();
    let o = run!("decompress", "-f", &wide, "-o", &back);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("--memory"), "{}", stderr(&o));
    let o = run!("decompress", "-f", "--long=28", &wide, "-o", &back);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&back).unwrap() == data[..100_000]);

    // With a dictionary too, as `zstd --long -D` (the oracle test covers those bytes); a
    // window below the dictionary's own, or a window log out of range, is a usage error.
    let dict_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/goldens/dict/formatted.dict");
    let dict_bytes = std::fs::read(&dict_path).unwrap();
    let o = run!(
        "compress", "-f", "-l", "1", "--long", "-D", &dict_path, &input, "-o", &long
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let dict = zarkit::zstd::EncoderDictionary::new(&dict_bytes, 1).unwrap();
    let mut enc = zarkit::zstd::StreamEncoder::with_dictionary(&dict);
    enc.set_long_distance_matching(Some(27)).unwrap();
    assert!(
        std::fs::read(&long).unwrap() == zstd_tool_frame_with(enc, &data, true),
        "-D: not the zstd tool's frame"
    );
    let o = run!(
        "compress",
        "-f",
        "--long=10",
        "-D",
        &dict_path,
        &input,
        "-o",
        &long
    );
    // A window below the dictionary's own: libzstd's frame (it was refused; the bytes are
    // checked by the library's `long_windows_below_the_dictionary_match_the_oracle`).
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("decompress", "--long=10", "-D", &dict_path, &long, "-c");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == data, "decodes back");
    let o = run!("compress", "-f", "--long=40", &input, "-o", &long);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

/// `compress -D` writes the `zstd` tool's frames, which set libzstd's dedicated dictionary
/// search: at levels 5 and 6 (greedy and lazy for this 8 KiB dictionary) those differ from a
/// plain `ZSTD_CCtx_loadDictionary` stream's (29,552 and 24,721 bytes from a file), and
/// ours were the plain ones until the search was mirrored. The sizes are libzstd 1.5.7's
/// (`stream_diff --dds --files notes.txt --dict formatted.dict --levels 5,6`: identical).
#[test]
fn compress_with_a_dictionary_streams_as_zstd_d_does() {
    let dict_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/goldens/dict/formatted.dict");
    let dict_bytes = std::fs::read(&dict_path).unwrap();
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("notes.txt");
    let text: Vec<u8> = (0..20_000u32)
        .flat_map(|i| format!("note {} of the archive, block {}\n", i % 977, i % 13).into_bytes())
        .collect();
    std::fs::write(&input, &text).unwrap();
    for (level, native_size) in [(3, None), (5, Some(32_325)), (6, Some(27_852)), (19, None)] {
        let out = d.path().join(format!("notes.{level}.zst"));
        let o = run!(
            "compress",
            "-D",
            &dict_path,
            "-l",
            level.to_string(),
            &input,
            "-o",
            &out
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let dict = zarkit::zstd::EncoderDictionary::new(&dict_bytes, level).unwrap();
        let mut enc = zarkit::zstd::StreamEncoder::with_dictionary(&dict);
        enc.set_dedicated_dict_search(true).unwrap();
        let expected = zstd_tool_frame_with(enc, &text, true);
        let written = std::fs::read(&out).unwrap();
        assert!(
            written == expected,
            "level {level}: not the zstd tool's frame"
        );
        if let Some(size) = native_size {
            assert_eq!(written.len(), size, "level {level}: not libzstd's size");
        }
    }
}

/// After each input, `compress` and `decompress` print `zstd`'s summary lines on stderr:
/// one line for a single input, a total for several (each input's line too with `-v`),
/// nothing with `-q` or into standard output.
#[test]
fn compress_and_decompress_summarise_as_zstd_does() {
    let d = tempfile::tempdir().unwrap();
    let text: Vec<u8> = (0..30_000u32)
        .flat_map(|i| format!("{}\n", i % 100).into_bytes())
        .collect();
    let (a, b) = (d.path().join("a.txt"), d.path().join("b.txt"));
    std::fs::write(&a, &text).unwrap();
    std::fs::write(&b, &text).unwrap();
    let (az, bz) = (d.path().join("a.txt.zst"), d.path().join("b.txt.zst"));
    let name = |p: &std::path::Path| p.display().to_string();
    // One input: its line, the ratio and both sizes as `zstd` writes them.
    let o = run!("compress", "-f", &a);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let size = std::fs::metadata(&az).unwrap().len();
    let ratio = size as f64 / text.len() as f64 * 100.0;
    assert_eq!(
        stderr(&o),
        format!(
            "{:<20} :{ratio:6.2}%   (  85.0 KiB => {size:>6} B, {}) \n",
            name(&a),
            name(&az)
        )
    );
    assert!(size < 1000, "the sizes above are for this input: {size}");
    let o = run!("decompress", "-f", &az);
    assert_eq!(
        stderr(&o),
        format!("{:<20}: {} bytes \n", name(&az), text.len())
    );
    // Several: the total only, each line with -v.
    let o = run!("compress", "-f", &a, &b);
    let total = format!(
        "  2 files compressed : {:.2}% (   170 KiB => {:>6}   B)\n",
        ratio,
        2 * size
    );
    assert_eq!(stderr(&o), total);
    let o = run!("compress", "-f", "-v", &a, &b);
    let lines: Vec<_> = stderr(&o).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[1].starts_with(&format!("{:<20} :", name(&b))),
        "{lines:?}"
    );
    assert_eq!(format!("{}\n", lines[2]), total);
    let o = run!("decompress", "-f", &az, &bz);
    assert_eq!(
        stderr(&o),
        format!("2 files decompressed : {} bytes total \n", 2 * text.len())
    );
    // Quiet, and into standard output: nothing.
    for args in [&["-q"][..], &["-c"][..]] {
        let o = common::zarchive(
            &[
                &["compress".as_ref(), "-f".as_ref()][..],
                &args.iter().map(std::ffi::OsStr::new).collect::<Vec<_>>(),
                &[a.as_os_str()],
            ]
            .concat(),
        );
        assert_eq!(code(&o), 0);
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    let o = run!("decompress", "-f", "-q", &az);
    assert_eq!(stderr(&o), "");
    // With -v, into standard output too; a total counts the inputs done, and inputs with
    // no bytes have no ratio (as zstd prints them).
    let o = run!("compress", "-f", "-v", "-c", &a);
    assert!(
        stderr(&o).starts_with(&format!("{:<20} :", name(&a)))
            && stderr(&o).ends_with(", /*stdout*\\) \n"),
        "{}",
        stderr(&o)
    );
    let (e1, e2) = (d.path().join("e1"), d.path().join("e2"));
    std::fs::write(&e1, b"").unwrap();
    std::fs::write(&e2, b"").unwrap();
    let o = run!("compress", "-f", &e1, &e2);
    assert_eq!(
        stderr(&o),
        "  2 files compressed : (     0   B =>     26   B)\n"
    );
    let o = run!("compress", "-f", &a, d.path().join("missing"));
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains(&format!(
            "  1 files compressed : {ratio:.2}% (  85.0 KiB => {size:>6}   B)\n"
        )),
        "{}",
        stderr(&o)
    );
}

/// `--no-content-size` and `--no-dictID` leave the size and the dictionary's ID out of the
/// header, as `zstd` does with them (the header then names the window); the blocks stay
/// those of the default frame, which names both. `--content-size` undoes the first.
#[test]
fn compress_leaves_the_size_and_dictionary_id_out_of_the_header_when_told() {
    let dict_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/goldens/dict/formatted.dict");
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("notes.txt");
    let text: Vec<u8> = (0..9_000u32)
        .flat_map(|i| format!("entry {} of the list, page {}\n", i % 613, i % 11).into_bytes())
        .collect();
    std::fs::write(&input, &text).unwrap();
    let frame = |args: &[&str]| {
        let out = d.path().join("out.zst");
        let mut all: Vec<&std::ffi::OsStr> = vec!["compress".as_ref(), "-f".as_ref()];
        all.extend(args.iter().map(std::ffi::OsStr::new));
        all.extend([input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
        let o = common::zarchive(&all);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        std::fs::read(&out).unwrap()
    };
    let dict = dict_path.to_str().unwrap();
    let full = frame(&["-D", dict]);
    // Single segment, a 4-byte content size (FCS code 2), a 4-byte dictionary ID (code 3).
    assert_eq!(full[4], 0b1010_0111);
    let bare = frame(&["-D", dict, "--no-content-size", "--no-dictID"]);
    // The checksum flag only, then the window descriptor; no ID, no size.
    assert_eq!(bare[4], 0b0000_0100);
    assert_eq!(full[5 + 4 + 4..], bare[6..], "the blocks differ");
    let dd = zarkit::zstd::DecoderDictionary::new(&std::fs::read(&dict_path).unwrap()).unwrap();
    let mut decoder = zarkit::zstd::Decoder::new();
    decoder.set_dictionary(Some(&dd));
    assert_eq!(decoder.decompress(&bare, text.len()).unwrap(), text);
    // Each flag alone; the last of `--content-size` and `--no-content-size` wins.
    assert_eq!(frame(&["-D", dict, "--no-dictID"])[4], 0b1010_0100);
    assert_eq!(frame(&["-D", dict, "--no-content-size"])[4], 0b0000_0111);
    assert_eq!(
        frame(&["-D", dict, "--no-content-size", "--content-size"]),
        full
    );
    // Without a dictionary.
    let plain = frame(&["--no-content-size"]);
    assert_eq!(plain[4], 0b0000_0100);
    assert_eq!(zarkit::zstd::decompress(&plain, text.len()).unwrap(), text);
}

/// `pack -f` and `merge -f` into a file of the tree being packed that is not an archive
/// fail and keep it: before, the walk left it out as the output and the archive replaced
/// it (exit 0), so it was neither packed nor kept. An earlier archive there is replaced.
#[test]
fn pack_and_merge_never_write_over_a_file_of_their_own_tree() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("src");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("notes.txt"), b"important").unwrap();
    std::fs::write(tree.join("a.txt"), b"other").unwrap();
    let notes = tree.join("notes.txt");
    let o = run!("pack", &tree, "-o", &notes, "-f", "-q");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("notes.txt: the output is a file of the tree being packed"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&notes).unwrap(), b"important");
    let o = run!("merge", "-o", &notes, "-f", &tree, "-q");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(std::fs::read(&notes).unwrap(), b"important");
    // An archive written inside the tree is replaced the next time, and never packed.
    let archive = tree.join("src.zar");
    for _ in 0..2 {
        let o = run!("pack", &tree, "-o", &archive, "-f", "-q");
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let o = run!("list", &archive);
        assert_eq!(String::from_utf8_lossy(&o.stdout), "a.txt\nnotes.txt\n");
    }
}

/// `update` and `merge` refuse an archive whose hash does not match (a flipped bit in a
/// block stored raw decodes without complaint): exit 3, the archive named and left as it
/// was. Before, both exited 0 and wrote the damage under a fresh, valid hash.
#[test]
fn update_and_merge_refuse_a_damaged_archive() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("src");
    let add = d.path().join("add");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&add).unwrap();
    let noise = zarkit_tests::noise(100_000, 45);
    std::fs::write(src.join("game.bin"), &noise).unwrap();
    std::fs::write(add.join("new.txt"), b"new").unwrap();
    let archive = d.path().join("a.zar");
    let o = run!("pack", &src, "-o", &archive, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes[1000] ^= 0xff;
    std::fs::write(&archive, &bytes).unwrap();
    let o = run!("update", &archive, &add, "-q");
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a.zar: the archive is damaged (integrity hash mismatch")
            && stderr(&o).contains("the archive is left as it was"),
        "{}",
        stderr(&o)
    );
    assert!(std::fs::read(&archive).unwrap() == bytes);
    let merged = d.path().join("m.zar");
    let o = run!("merge", "-o", &merged, &add, &archive, "-q");
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a.zar: the archive is damaged"),
        "{}",
        stderr(&o)
    );
    assert!(!merged.exists());
}

#[test]
fn update_keeps_the_archives_dictionary_and_merge_says_it_does_not() {
    let d = tempfile::tempdir().unwrap();
    let samples = d.path().join("samples");
    sample_files(&samples, 40);
    let dict = d.path().join("d.dict");
    let o = run!("train", samples, "-o", dict, "--maxdict", "4K");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let archive = d.path().join("a.zar");
    let o = run!("pack", samples, "-o", archive, "--dict", dict, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let extra = d.path().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        extra.join("new.json"),
        b"{\"id\": 1000, \"kind\": \"sample\"}\n",
    )
    .unwrap();
    let o = run!("update", archive, extra, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let id = u32::from_le_bytes(std::fs::read(&dict).unwrap()[4..8].try_into().unwrap());
    let o = run!("info", archive);
    assert!(
        stdout(&o).contains(&format!("dictionary:       ID {id}")),
        "{}",
        stdout(&o)
    );
    let o = run!("cat", archive, "new.json");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // `merge` writes plain v1 unless given --dict, and says so (found by a hostile
    // session: the dictionary was dropped without a word).
    let merged = d.path().join("m.zar");
    let o = run!("merge", "-o", &merged, archive, extra);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("has a dictionary"), "{}", stderr(&o));
    let o = run!("info", &merged);
    assert!(!stdout(&o).contains("dictionary:"), "{}", stdout(&o));
    // -l stored drops it: a plain v1 archive.
    let o = run!("update", archive, extra, "-q", "-l", "stored");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("info", archive);
    assert!(!stdout(&o).contains("dictionary:"), "{}", stdout(&o));
}

/// Found by a hostile session: `--rm` removed a FIFO given as an input, and all the inputs
/// joined into one `-o` output; an existing device as the output was refused without `-f`
/// and replaced by a file with it; outputs took the ordinary mode instead of the input's
/// (a private file's frame was world-readable) and the current time; a batch with an input
/// that had no `.zst` suffix exited 2; `update` through a symbolic link replaced the link
/// and made a private archive world-readable; a missing output directory was reported
/// with the temporary file's random name.
#[cfg(unix)]
#[test]
fn outputs_and_removals_keep_what_zstd_keeps() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    let data = b"private data, private data, private data\n".repeat(50);
    std::fs::write(p("s"), &data).unwrap();
    std::fs::set_permissions(p("s"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(978_307_200);
    std::fs::File::options()
        .write(true)
        .open(p("s"))
        .unwrap()
        .set_modified(old)
        .unwrap();

    // The output takes the input's mode and modification time, both ways.
    let o = run!("compress", "-q", p("s"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = std::fs::metadata(p("s.zst")).unwrap();
    assert_eq!(m.mode() & 0o777, 0o600);
    assert_eq!(m.modified().unwrap(), old);
    std::fs::rename(p("s"), p("s.orig")).unwrap();
    let o = run!("decompress", "-q", p("s.zst"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = std::fs::metadata(p("s")).unwrap();
    assert_eq!((m.mode() & 0o777, m.modified().unwrap()), (0o600, old));
    assert!(std::fs::read(p("s")).unwrap() == data);

    // A device as the output is written into, without -f, and stays a device; with
    // --rm the input stays too (nothing can be read back from there).
    let o = run!("decompress", p("s.zst"), "-o", "/dev/null", "--rm");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert!(p("s.zst").exists(), "--rm into /dev/null");
    assert!(
        stderr(&o).contains("the output is not a regular file"),
        "{}",
        stderr(&o)
    );

    // --rm leaves a FIFO given as an input where it is.
    let fifo = p("fifo");
    make_fifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, b"through a pipe").unwrap())
    };
    let o = run!("compress", "--rm", &fifo);
    writer.join().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(stderr(&o).contains("not a regular file, so not removed"));

    // Inputs joined into one output are not removed (as zstd).
    std::fs::write(p("a"), b"a").unwrap();
    std::fs::write(p("b"), b"b").unwrap();
    let o = run!("compress", "--rm", p("a"), p("b"), "-o", p("ab.zst"), "-f");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(p("a").exists() && p("b").exists() && p("ab.zst").exists());

    // Any input that could not be done makes the batch exit 1, as zstd.
    let o = run!("decompress", p("s.zst"), p("a"), "-f");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 2 inputs failed"));

    // A missing directory is named by the output's path, not a temporary file's.
    let o = run!("compress", p("a"), "-o", p("nodir/a.zst"));
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("nodir/a.zst: cannot create it"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("partial") && !stderr(&o).contains("at path"));
    // What failed is making a file in that directory: said so, for `pack` too (the user
    // may own the output file and still not write its directory).
    assert!(
        stderr(&o).contains("(written as a temporary file in ")
            && stderr(&o).contains("nodir first, then renamed)"),
        "{}",
        stderr(&o)
    );
    std::fs::create_dir_all(p("t0")).unwrap();
    std::fs::write(p("t0/x"), b"x").unwrap();
    let o = run!("pack", "-q", p("t0"), "-o", p("nodir/a.zar"));
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o)
            .contains("nodir/a.zar: cannot create the archive (written as a temporary file in ")
            && stderr(&o).contains("nodir first, then renamed)"),
        "{}",
        stderr(&o)
    );

    // `update` through a link updates the archive it names and keeps its mode.
    std::fs::create_dir_all(p("store")).unwrap();
    std::fs::create_dir_all(p("t")).unwrap();
    std::fs::create_dir_all(p("u")).unwrap();
    std::fs::write(p("t/one"), b"1").unwrap();
    std::fs::write(p("u/two"), b"2").unwrap();
    let archive = p("store/game.zar");
    assert_eq!(code(&run!("pack", "-q", p("t"), "-o", &archive)), 0);
    std::fs::set_permissions(&archive, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink(&archive, p("game.zar")).unwrap();
    let o = run!("update", "-q", p("game.zar"), p("u"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(p("game.zar"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::metadata(&archive).unwrap().mode() & 0o777, 0o600);
    let o = run!("list", &archive);
    assert!(
        stdout(&o).contains("one") && stdout(&o).contains("two"),
        "{}",
        stdout(&o)
    );
}

/// Found by a hostile session: Ctrl-C (or `kill`) during `compress`, `decompress` or
/// `pack` left the hidden temporary output (`.NAME.XXXXXX.partial`) behind, as large as
/// what was written so far. Now a signal removes it, then ends the process by the same
/// signal (it exited 130 for all three, and a shell loop went on after Ctrl-C).
#[cfg(unix)]
#[test]
fn a_signal_leaves_no_partial_output() {
    for signal in ["INT", "TERM", "HUP"] {
        a_signal_leaves_no_partial_output_with(signal);
    }
}

#[cfg(unix)]
fn a_signal_leaves_no_partial_output_with(signal: &str) {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    let number = match signal {
        "INT" => 2,
        "TERM" => 15,
        _ => 1,
    };
    if signal_ignored(number) {
        eprintln!("not run: SIG{signal} is ignored in this test run, and so in zarchive");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("input");
    make_fifo(&fifo);
    let partials = || {
        std::fs::read_dir(d.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".partial")
            })
            .count()
    };
    let child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .arg("compress")
        .arg(&fifo)
        .arg("-o")
        .arg(d.path().join("out.zst"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Some input, and the pipe kept open: `compress` waits for the rest with its output
    // begun.
    let mut pipe = std::fs::File::options().write(true).open(&fifo).unwrap();
    pipe.write_all(&[7u8; 100_000]).unwrap();
    let started = std::time::Instant::now();
    while partials() == 0 {
        assert!(
            started.elapsed().as_secs() < 20,
            "no temporary output appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    send_signal(&child, signal);
    let out = child.wait_with_output().unwrap();
    drop(pipe);
    assert_eq!(
        out.status.signal(),
        Some(number as i32),
        "SIG{signal}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(partials(), 0, "a temporary output was left behind");
    assert!(!d.path().join("out.zst").exists());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "zarchive: interrupted; the unfinished output was removed\n"
    );
}

#[cfg(unix)]
#[test]
fn archives_and_dictionaries_are_written_into_a_device_or_fifo_never_over_it() {
    use std::os::unix::fs::FileTypeExt;
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    let tree = p("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    for i in 0..12 {
        let text = format!("sample {i}: the quick brown fox jumps over the lazy dog\n");
        std::fs::write(tree.join(format!("sub/f{i}.txt")), text.repeat(20 + i)).unwrap();
    }
    // A link to /dev/null stands for the device: before, `-f` renamed a regular file over
    // the path (which, given /dev/null itself as root, replaced the system's device).
    let link = p("null.zar");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let still_the_device = |what: &str| {
        let target = std::fs::read_link(&link).unwrap_or_else(|_| panic!("{what}: link replaced"));
        assert_eq!(target, std::path::Path::new("/dev/null"), "{what}");
        let m = std::fs::metadata(&link).unwrap();
        assert!(m.file_type().is_char_device(), "{what}");
    };
    let (link_s, tree_s, sub_s) = (
        link.to_str().unwrap(),
        tree.to_str().unwrap(),
        tree.join("sub").to_str().unwrap().to_string(),
    );
    for force in [&[][..], &["-f"][..]] {
        let commands: [Vec<&str>; 3] = [
            vec!["pack", "-q", tree_s, "-o", link_s],
            vec!["merge", "-q", "-o", link_s, tree_s],
            vec!["train", "-o", link_s, &sub_s],
        ];
        for mut args in commands {
            args.splice(1..1, force.iter().copied());
            let os: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
            let o = zarchive(&os);
            assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
            still_the_device(args[0]);
        }
    }

    // A FIFO gets the archive's bytes, the same as standard output does.
    let fifo = p("fifo.zar");
    make_fifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = run!("pack", "-q", &tree, "-o", &fifo);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO was replaced"
    );
    let through_fifo = reader.join().unwrap();
    let o = run!("pack", "-q", &tree, "-o", "-");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(through_fifo, o.stdout);
}

#[test]
fn decompress_refuses_windows_past_2_gib_whatever_the_memory_allowed() {
    let d = tempfile::tempdir().unwrap();
    // A single-segment frame declaring 2^40 bytes of content (so a window that large), and a
    // frame whose window descriptor says 2^32: both beyond the format's largest window.
    // Before, the first made `--memory 1048576M` abort on a 1 TiB allocation, and the
    // second was said to be "above the decoder's limit" of the larger `--memory`.
    let mut huge = b"\x28\xb5\x2f\xfd\xe0".to_vec();
    huge.extend_from_slice(&(1u64 << 40).to_le_bytes());
    huge.extend_from_slice(b"\x51\x00\x00hello12345");
    let log32 = b"\x28\xb5\x2f\xfd\x00\xb0\x51\x00\x00hello12345";
    for (name, frame) in [("huge.zst", &huge[..]), ("log32.zst", &log32[..])] {
        let path = d.path().join(name);
        std::fs::write(&path, frame).unwrap();
        for memory in ["8G", "1048576M"] {
            let o = run!("decompress", "-c", "--memory", memory, &path);
            assert_eq!(code(&o), 1, "{name} {memory}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(
                err.contains("above the decoder's limit of 2147483648 bytes")
                    && err.contains("no zstd decoder accepts a window above 2 GiB")
                    && !err.contains("panicked"),
                "{name} {memory}: {err}"
            );
            assert!(o.stdout.is_empty());
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_large_window_costs_memory_only_as_far_as_the_frame_writes() {
    // A 14-byte frame whose window descriptor says 256 MiB, holding 5 bytes: the ring is
    // allocated for the window, but its pages are only touched where blocks are written.
    // Before, the ring was zero-filled up front: 267 MB resident for five bytes.
    // The frame comes through standard input, held open a while after it so that the
    // process is observed with the frame's ring allocated.
    let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(["decompress", "-c", "--memory", "512M", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        stdin
            .write_all(b"\x28\xb5\x2f\xfd\x00\x90\x29\x00\x00hello")
            .unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(400));
    });
    let (exit, peak_kib) = wait_with_peak_rss(child);
    feeder.join().unwrap();
    assert!(exit.success());
    assert!(peak_kib > 0, "the process was observed");
    assert!(
        peak_kib < 64 << 10,
        "peak resident size {peak_kib} KiB for a 5-byte frame"
    );
}

#[test]
fn extract_exits_3_when_the_archive_is_damaged_whatever_else_failed() {
    let d = tempfile::tempdir().unwrap();
    // A block that does not decode fails its files: the archive is damaged (3), in a full
    // extraction and in one of a single path (which checks no hash).
    let o = run!(
        "extract",
        "-q",
        fixture("bad/corrupt_block.zar"),
        "-C",
        d.path().join("a")
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let o = run!(
        "extract",
        "-q",
        fixture("bad/corrupt_block.zar"),
        "-C",
        d.path().join("b"),
        "ok.txt"
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    // A packed archive with four bytes flipped inside its data: the block errors and the
    // hash mismatch are both reported, and the status is 3 (it was 1 when blocks failed
    // beside the hash).
    let tree = d.path().join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let mut text = Vec::new();
    for i in 0..40_000u32 {
        text.extend_from_slice(format!("line {i} of a file that compresses well\n").as_bytes());
    }
    std::fs::write(tree.join("big.txt"), &text).unwrap();
    std::fs::write(tree.join("small.txt"), b"small").unwrap();
    let archive = d.path().join("t.zar");
    let o = run!("pack", "-q", &tree, "-o", &archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes[3000..3004].copy_from_slice(&[0xff; 4]);
    std::fs::write(&archive, &bytes).unwrap();
    let o = run!("extract", "-q", &archive, "-C", d.path().join("c"));
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("damaged"), "{}", stderr(&o));
}

/// `--help` and `--version` into a full device fail (before, the write error was ignored
/// and the status was 0).
#[cfg(target_os = "linux")]
#[test]
fn help_and_version_into_a_full_device_fail() {
    // `zarchive ARGS > /dev/full` fails, saying so.
    let fails_into_full_device = |args: &[&OsStr]| {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("writing to standard output: No space left on device"),
            "{args:?}: {}",
            stderr(&o)
        );
    };
    for args in [
        &["-V"][..],
        &["--help"],
        &["pack", "--help"],
        &["help", "extract"],
    ] {
        fails_into_full_device(&args.iter().map(OsStr::new).collect::<Vec<_>>());
    }
    let o = run!("--version");
    assert_eq!(code(&o), 0);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("zarchive "));
    // `compress -c` / `decompress -c` call it standard output too (it was `-`).
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in.bin");
    std::fs::write(&input, zarkit_tests::noise(300_000, 7)).unwrap();
    let frame = d.path().join("in.bin.zst");
    assert_eq!(code(&run!("compress", "-q", &input)), 0);
    fails_into_full_device(&["compress".as_ref(), "-c".as_ref(), input.as_os_str()]);
    fails_into_full_device(&["decompress".as_ref(), "-c".as_ref(), frame.as_os_str()]);
}

#[cfg(target_os = "linux")]
#[test]
fn verify_reports_a_failed_standard_output_plainly_and_a_closed_pipe_not_at_all() {
    // Before, `verify` printed with `println!`, which panics when standard output fails.
    let archive = fixture("basic/reference.zar");
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .arg("verify")
        .arg(&archive)
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("writing to standard output") && !stderr(&o).contains("panicked"),
        "{}",
        stderr(&o)
    );
    // A reader gone before anything was written leaves the status to the verification:
    // 0 for a sound archive, 3 for a damaged one.
    let closed_from_the_start = |archive: std::path::PathBuf| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .arg("verify")
            .arg(archive)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        child.wait_with_output().unwrap()
    };
    let o = closed_from_the_start(archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let o = closed_from_the_start(fixture("bad/bad_hash.zar"));
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

#[test]
fn compress_takes_a_dictionary_larger_than_the_levels_window_with_long() {
    // A 1.2 MB raw dictionary at level 1 (a 512 KiB window) with --long=27: libzstd makes
    // its local CDict with the long window, so the dictionary is prepared again with it.
    // Before, every --long was refused ("a window smaller than the dictionary's own"). The
    // frame's hash is libzstd 1.5.7's (`stream_diff --files IN --dict DICT --long 27
    // --levels 1`: identical, 333,540 bytes).
    let d = tempfile::tempdir().unwrap();
    let data = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/realdata/freedoom2-32blocks.bin"),
    )
    .unwrap();
    let (dict, input) = (d.path().join("dict"), d.path().join("in"));
    std::fs::write(&dict, &data[..1_200_000]).unwrap();
    std::fs::write(&input, &data[1_250_000..]).unwrap();
    let o = run!(
        "compress",
        "-q",
        "-l",
        "1",
        "--long=27",
        "-D",
        &dict,
        &input,
        "-c"
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout.len(), 333_540);
    assert_eq!(
        zarkit_tests::sha256_hex(&o.stdout),
        "7c62416a9bffec1306873cae931a958dbc8f6383862711d233aa708cbb7de6fd"
    );
    let frame = d.path().join("in.zst");
    std::fs::write(&frame, &o.stdout).unwrap();
    let o = run!("decompress", "-q", "--long=27", "-D", &dict, &frame, "-c");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == data[1_250_000..]);
}

#[test]
fn compress_and_decompress_read_standard_input_when_given_no_input() {
    // `cat x.zst | zarchive decompress` was a usage error; `zstd -d` reads standard input
    // when it is not a terminal, and so does `zstd` to compress. The `zstd` options that
    // change nothing here (-T, --single-thread, --no-progress) are taken.
    let data = b"from a pipe, from a pipe, from a pipe\n".repeat(500);
    let through = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let feeder = std::thread::spawn(move || {
            use std::io::Write;
            stdin.write_all(&input).unwrap();
        });
        let o = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        o
    };
    let o = through(&["compress", "-l", "7"], &data);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let frame = o.stdout;
    let o = through(
        &[
            "compress",
            "-l",
            "7",
            "-T0",
            "--single-thread",
            "--no-progress",
            "-",
        ],
        &data,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, frame, "the compatibility options change nothing");
    let o = through(&["decompress"], &frame);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == data);
    let o = through(&["decompress", "-T", "2", "--no-progress"], &frame);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == data);
}

/// `list --json` writes entry after entry: its memory is one entry's, not the listing's.
/// Before, the whole array was built and then rendered, so a small archive of deeply
/// nested directories (paths growing with the depth) drove it to gigabytes.
#[cfg(target_os = "linux")]
#[test]
fn list_json_streams_its_entries() {
    let d = tempfile::tempdir().unwrap();
    // 4,000 nested directories `d`, a file at the bottom: about 16 MB of paths in all.
    let depth = 4_000;
    let file = format!("{}f", "d/".repeat(depth));
    let (bytes, _) = zarkit::zar::merge_to(
        &[zarkit::zar::Source::Entries(vec![(
            file.clone(),
            Some(std::sync::Arc::from(&b"bottom"[..])),
        )])],
        Vec::new(),
        &zarkit::zar::PackOptions::new(),
        &[],
        &mut |_| {},
    )
    .unwrap();
    let archive = d.path().join("deep.zar");
    std::fs::write(&archive, bytes).unwrap();
    let listing = d.path().join("listing.json");
    let child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(["list", "--json"])
        .arg(&archive)
        .stdout(std::fs::File::create(&listing).unwrap())
        .spawn()
        .unwrap();
    let (exit, peak_kib) = common::wait_with_peak_rss(child);
    assert!(exit.success());
    let text = std::fs::read(&listing).unwrap();
    assert!(text.len() > 16_000_000, "{} bytes", text.len());
    assert!(
        peak_kib > 0 && peak_kib < 20 << 10,
        "peak resident size {peak_kib} KiB for {} bytes of listing",
        text.len()
    );
    let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
    let entries = v.as_array().unwrap();
    assert_eq!(entries.len(), depth + 1);
    assert_eq!(entries[depth]["path"], file.as_str());
    assert_eq!(entries[depth]["size"], 6);
    assert_eq!(entries[0]["path"], "d");
    assert_eq!(entries[0]["type"], "dir");
}

#[cfg(target_os = "linux")]
#[test]
fn a_name_that_is_not_utf8_keeps_its_bytes_in_json_and_can_be_chosen() {
    // Before, such a name came out with U+FFFD only: the exact name was lost.
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(tree.join(name), b"latin-1").unwrap();
    std::fs::write(tree.join("plain.txt"), b"utf-8").unwrap();
    let archive = d.path().join("t.zar");
    let o = run!("pack", "-q", &tree, "-o", &archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("list", "--json", &archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let entries = v.as_array().unwrap();
    let odd = entries
        .iter()
        .find(|e| e["path"] == "caf\u{fffd}.txt")
        .unwrap();
    let bytes: Vec<u8> = odd["path_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(bytes, b"caf\xe9.txt");
    let plain = entries.iter().find(|e| e["path"] == "plain.txt").unwrap();
    assert!(plain.get("path_bytes").is_none());
    // Found by a hostile session: such an entry could not be chosen: `cat` refused the
    // raw name as an argument (exit 2), `extract` made it lossy and found no such entry.
    let o = run!("cat", &archive, name);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(o.stdout, b"latin-1");
    let out = d.path().join("out");
    let o = run!("extract", &archive, name, "-C", &out, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join(name)).unwrap(), b"latin-1");
    assert!(!out.join("plain.txt").exists());
    // A missing one is named with its bytes escaped, as `list` shows them.
    let o = run!("cat", &archive, std::ffi::OsStr::from_bytes(b"\xff"));
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("\\xff"), "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn an_output_that_is_a_link_to_a_file_replaces_the_file_and_keeps_the_link() {
    // Before, `-f` renamed the new file over the link (`-o /dev/stdout` redirected to a
    // file replaced the link and left the redirected file empty); `tar -cf LINK` writes
    // through it.
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    std::fs::create_dir_all(p("tree")).unwrap();
    std::fs::write(p("tree/a.txt"), b"through the link\n".repeat(100)).unwrap();
    std::fs::write(p("real.zar"), b"old").unwrap();
    std::os::unix::fs::symlink("real.zar", p("link.zar")).unwrap();
    let o = run!("pack", "-q", "-f", p("tree"), "-o", p("link.zar"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read_link(p("link.zar")).unwrap(),
        std::path::Path::new("real.zar")
    );
    let o = run!("pack", "-q", p("tree"), "-o", "-");
    assert_eq!(std::fs::read(p("real.zar")).unwrap(), o.stdout);
    // The same for `compress -f -o`.
    std::fs::write(p("real.zst"), b"old").unwrap();
    std::os::unix::fs::symlink("real.zst", p("link.zst")).unwrap();
    let o = run!("compress", "-q", "-f", p("tree/a.txt"), "-o", p("link.zst"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(p("link.zst"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let o = run!("decompress", "-q", p("real.zst"), "-c");
    assert_eq!(o.stdout, b"through the link\n".repeat(100));
    // Without -f the file behind the link is still not replaced.
    let o = run!("pack", "-q", p("tree"), "-o", p("link.zar"));
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

#[test]
fn extract_exits_3_for_a_block_naming_a_dictionary_the_archive_lacks() {
    // The block's frame names a dictionary ID the archive does not hold: the reader's
    // error had no decoder error behind it, so it did not count as damage (exit 1).
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    for i in 0..24 {
        let text = format!(
            "record {i}: name=item{i} kind=text value={} note=the same words\n",
            i * 7
        );
        std::fs::write(tree.join(format!("f{i:02}.txt")), text.repeat(3 + i % 5)).unwrap();
    }
    let dict = d.path().join("dict");
    let o = run!("train", "-o", &dict, &tree);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let archive = d.path().join("a.zar");
    let o = run!("pack", "-q", "--dict", &dict, &tree, "-o", &archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut bytes = std::fs::read(&archive).unwrap();
    // The first block's frame: its dictionary ID follows the header byte (and the window
    // byte of a frame that is not single-segment).
    assert_eq!(&bytes[..4], b"\x28\xb5\x2f\xfd");
    let fhd = bytes[4];
    assert_ne!(fhd & 3, 0, "the frame names a dictionary");
    let at = 5 + usize::from(fhd & 0x20 == 0);
    bytes[at] ^= 0xff;
    std::fs::write(&archive, &bytes).unwrap();
    let o = run!(
        "extract",
        "-q",
        &archive,
        "-C",
        d.path().join("x"),
        "f00.txt"
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("dictionary"), "{}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_of_the_archive_names_the_output() {
    // Before: "writing block 0 of the archive: No space left on device", with no path.
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("a.bin"), vec![7u8; 300_000]).unwrap();
    let o = run!("pack", "-q", &tree, "-o", "/dev/full");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/dev/full: No space left on device"),
        "{}",
        stderr(&o)
    );
}

/// Found by a hostile session: `-D` / `--dict` read their file whole whatever it was:
/// `--dict /dev/zero` grew to 24 GB until the kernel killed it, a FIFO hung, a 1 GiB file
/// aborted on its allocation. Now a regular file of at most 32 MiB, as `zstd` takes them.
#[cfg(unix)]
#[test]
fn dictionaries_must_be_regular_files_of_at_most_32_mib() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    std::fs::write(&input, b"some input").unwrap();
    let big = d.path().join("big.dict");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((32 << 20) + 1)
        .unwrap();
    let tree = d.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("f"), b"data").unwrap();
    let fifo = d.path().join("fifo");
    make_fifo(&fifo);
    for dict in [
        std::path::Path::new("/dev/zero"),
        big.as_path(),
        fifo.as_path(),
    ] {
        let want = if dict == big {
            "larger than 33554432 bytes"
        } else {
            "must be a regular file"
        };
        let o = run!("compress", "-q", "-D", dict, &input, "-c");
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
        let o = run!("decompress", "-q", "-D", dict, &input, "-c");
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
        let o = run!("pack", &tree, "-o", d.path().join("t.zar"), "--dict", dict);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
}

/// Found by a hostile session: an archive truncated while `cat` (or `mount`) read it
/// ended the process with `SIGBUS` (exit 135; the mount left dead): the archive was
/// memory-mapped. The command line reads with positioned reads, and says what failed.
#[cfg(unix)]
#[test]
fn an_archive_truncated_while_it_is_read_is_an_error_not_a_crash() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    // 4 MiB that does not compress: 64 blocks stored raw, which a map serves in place.
    let data = zarkit_tests::noise(4 << 20, 47);
    std::fs::write(tree.join("big"), &data).unwrap();
    let archive = d.path().join("a.zar");
    let o = run!("pack", &tree, "-o", &archive, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args([
            std::ffi::OsStr::new("cat"),
            archive.as_os_str(),
            "big".as_ref(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    // The pipe fills; the archive then loses all but its first 100,000 bytes.
    let mut first = vec![0u8; 1000];
    out.read_exact(&mut first).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&archive)
        .unwrap()
        .set_len(100_000)
        .unwrap();
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), None, "ended by a signal: {:?}", o.status);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(rest.len() + 1000 < data.len());
}

/// Found by a hostile session: `update` replaced a read-only (0444) archive without a
/// word, and split its hard links silently (the other name kept the old archive).
#[cfg(unix)]
#[test]
fn update_refuses_a_read_only_archive_and_warns_of_hard_links() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let (tree, more) = (d.path().join("t"), d.path().join("more"));
    std::fs::create_dir(&tree).unwrap();
    std::fs::create_dir(&more).unwrap();
    std::fs::write(tree.join("a"), b"a").unwrap();
    std::fs::write(more.join("b"), b"b").unwrap();
    let archive = d.path().join("a.zar");
    let o = run!("pack", &tree, "-o", &archive, "-q");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let before = std::fs::read(&archive).unwrap();
    std::fs::set_permissions(&archive, std::fs::Permissions::from_mode(0o444)).unwrap();
    let o = run!("update", &archive, &more, "-q");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("read-only"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&archive).unwrap(), before, "left as it was");
    std::fs::set_permissions(&archive, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = d.path().join("link.zar");
    std::fs::hard_link(&archive, &link).unwrap();
    let o = run!("update", &archive, &more);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("has 1 other hard link;"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(&link).unwrap(),
        before,
        "the other name keeps the old one"
    );
}

/// Found by a hostile session: a /proc file (size 0, content made up as it is read) was
/// reported as "changed while being packed: it was 0 bytes when listed", though nothing
/// changed.
#[cfg(target_os = "linux")]
#[test]
fn a_proc_file_is_named_as_what_it_may_be() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    std::os::unix::fs::symlink("/proc/self/status", tree.join("status")).unwrap();
    let o = run!(
        "pack",
        &tree,
        "-o",
        d.path().join("p.zar"),
        "--follow-symlinks",
        "-q"
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("as /proc and /sys files are"),
        "{}",
        stderr(&o)
    );
}

/// Found by a hostile session: `pack` stopped at the first entry it could not read (a
/// file only once every file before it was compressed), so a user fixed them one run at a
/// time. The walk now finds them all, and they are all named; nothing is packed. Root
/// reads everything: as root the test runs the pack as `nobody` (`setpriv`).
#[cfg(target_os = "linux")]
#[test]
fn pack_names_every_unreadable_entry_at_once() {
    use std::os::unix::fs::PermissionsExt;
    let root = is_root();
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let tree = d.path().join("t");
    for dir in ["t/a", "t/b/locked", "t/c"] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
    }
    std::fs::write(tree.join("a/ok"), b"ok").unwrap();
    std::fs::write(tree.join("a/secret"), b"secret").unwrap();
    std::fs::write(tree.join("b/locked/x"), b"x").unwrap();
    std::fs::write(tree.join("c/ok"), b"ok").unwrap();
    for (p, mode) in [
        ("t", 0o755),
        ("t/a", 0o755),
        ("t/b", 0o755),
        ("t/c", 0o000),
        ("t/b/locked", 0o000),
        ("t/a/secret", 0o000),
        ("t/a/ok", 0o644),
    ] {
        std::fs::set_permissions(d.path().join(p), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let archive = d.path().join("t.zar");
    let o = unprivileged()
        .args(["pack", "-q"])
        .arg(&tree)
        .arg("-o")
        .arg(&archive)
        .output()
        .unwrap();
    // Let the temporary directory be removed.
    for p in ["t/c", "t/b/locked"] {
        std::fs::set_permissions(d.path().join(p), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let err = stderr(&o);
    if root && err.contains("setpriv") {
        eprintln!("test did not run: setpriv failed: {err}");
        return;
    }
    assert_eq!(code(&o), 1, "{err}");
    assert!(
        err.contains("3 entries of the tree cannot be read"),
        "{err}"
    );
    for name in ["a/secret", "b/locked", "t/c"] {
        assert!(err.contains(name), "{name} not named: {err}");
    }
    assert!(!archive.exists(), "nothing is packed");
}

/// Found by a hostile session: `train` skipped a FIFO or device among its inputs without
/// a word (`zstd --train` refuses it: "Src size is incorrect").
#[cfg(unix)]
#[test]
fn train_refuses_a_fifo_or_a_device_among_its_inputs() {
    let d = tempfile::tempdir().unwrap();
    let samples = d.path().join("samples");
    sample_files(&samples, 40);
    let dict = d.path().join("d.dict");
    let o = run!(
        "train",
        &samples,
        "/dev/null",
        "-o",
        &dict,
        "--maxdict",
        "4K"
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    let fifo = samples.join("fifo");
    make_fifo(&fifo);
    let o = run!("train", &samples, "-o", &dict, "--maxdict", "4K");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
}
