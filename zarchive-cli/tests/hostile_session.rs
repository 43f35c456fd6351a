//! What a hostile user session found (issue 9): each test failed before its fix.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;
#[cfg(unix)]
use std::process::Stdio;

/// A small tree: `t/a.txt`, `t/sub/b.bin`.
fn small_tree(root: &Path) -> PathBuf {
    let t = root.join("t");
    std::fs::create_dir_all(t.join("sub")).unwrap();
    std::fs::write(t.join("a.txt"), b"hello archive").unwrap();
    std::fs::write(t.join("sub/b.bin"), vec![7u8; 100_000]).unwrap();
    t
}

// 1. A `\` in a Unix file name is never stored as a separator.
#[cfg(unix)]
#[test]
fn pack_refuses_a_backslash_name_by_its_real_path_and_skips_it_only_on_request() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    std::fs::create_dir_all(t.join("back")).unwrap();
    std::fs::write(t.join("back\\slash"), b"x").unwrap();
    std::fs::write(t.join("z\\"), b"y").unwrap();
    let out = d.path().join("o.zar");
    let o = run!("pack", "-q", t, "-o", out);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("back\\slash"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--skip-invalid-names"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());

    let o = run!("pack", "-q", t, "-o", out, "--skip-invalid-names");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("back\\slash") && stderr(&o).contains("z\\"),
        "{}",
        stderr(&o)
    );
    let o = run!("list", out);
    let listed = stdout(&o);
    assert_eq!(listed, "a.txt\nback/\nsub/\nsub/b.bin\n", "nothing renamed");
}

// 2. The reader side: a named root is refused at open; a block whose frame declares the
//    wrong content size is damage.
#[test]
fn a_root_with_a_name_is_refused_and_verify_calls_it_damaged() {
    let o = run!("list", fixture("bad/root_named.zar"));
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("root directory carries a name"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        code(&run!("verify", "-q", fixture("bad/root_named.zar"))),
        3
    );
}

#[test]
fn verify_and_reads_refuse_a_block_whose_frame_declares_another_content_size() {
    for (name, declared) in [("fcs_1gib.zar", "1073741824"), ("fcs_small.zar", "65535")] {
        let o = run!("verify", "-q", fixture(&format!("bad/{name}")));
        assert_eq!(code(&o), 3, "{name}: {}", stdout(&o));
        assert!(stdout(&o).contains("block 0"), "{name}: {}", stdout(&o));
        let _ = declared;
        let o = run!("cat", fixture(&format!("bad/{name}")), "a.bin");
        assert_eq!(code(&o), 1, "{name}");
        assert!(o.stdout.len() < 65536, "{name}: no wrong block was written");
    }
}

/// A zstd frame: magic, `fhd`, the header `rest`, then one last raw block of `content`,
/// then `trailer` (a checksum).
fn frame(fhd: u8, rest: &[u8], content: &[u8], trailer: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, fhd];
    f.extend_from_slice(rest);
    let bh = ((content.len() as u32) << 3) | 1;
    f.extend_from_slice(&bh.to_le_bytes()[..3]);
    f.extend_from_slice(content);
    f.extend_from_slice(trailer);
    f
}

#[test]
fn decompress_of_a_bad_frame_exits_1_names_the_problem_and_leaves_no_output() {
    let d = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        // single segment + checksum flag, FCS 5, checksum that cannot match.
        (
            "checksum",
            frame(0x24, &[5], b"hello", &[0xEF, 0xBE, 0xAD, 0xDE]),
        ),
        // single segment, declared 10 bytes, holds 5.
        ("declares 10", frame(0x20, &[10], b"hello", &[])),
        // reserved bit 3 set.
        ("reserved", frame(0x28, &[5], b"hello", &[])),
    ];
    for (what, bytes) in cases {
        let input = d.path().join(format!("{}.zst", what.replace(' ', "_")));
        std::fs::write(&input, &bytes).unwrap();
        let out = d.path().join("out");
        let o = run!("decompress", input, "-o", out);
        assert_eq!(code(&o), 1, "{what}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{what}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("byte"),
            "names the offset: {}",
            stderr(&o)
        );
        assert!(
            !stderr(&o).contains("Error("),
            "no debug dump: {}",
            stderr(&o)
        );
        assert!(!out.exists(), "{what}: no partial output");
        let left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            !left
                .iter()
                .any(|n| n.to_string_lossy().ends_with(".partial")),
            "{left:?}"
        );
    }
}

#[test]
fn decompress_reports_garbage_in_plain_words() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("junk.zst");
    std::fs::write(&input, b"this is not zstd at all").unwrap();
    let o = run!("decompress", &input);
    assert_eq!(code(&o), 1);
    let e = stderr(&o);
    assert!(!e.contains("BadMagicNumber") && !e.contains('{'), "{e}");
    // To standard output: nothing was written, so nothing is said to be incomplete ...
    let o = run!("decompress", &input, "-c");
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
    assert!(!stderr(&o).contains("incomplete"), "{}", stderr(&o));
    // ... unlike a good frame followed by garbage.
    let mut after = zarkit::zstd::compress(b"the first frame decodes", 3).unwrap();
    after.extend_from_slice(b"garbage");
    std::fs::write(&input, &after).unwrap();
    let o = run!("decompress", &input, "-c");
    assert_eq!(code(&o), 1);
    assert_eq!(o.stdout, b"the first frame decodes");
    assert!(
        stderr(&o).contains("the output written so far is incomplete"),
        "{}",
        stderr(&o)
    );
}

// 3. compress and decompress keep existing files unless -f, and never overwrite the input.
#[test]
fn compress_and_decompress_keep_existing_files_and_refuse_their_own_input() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.txt");
    std::fs::write(&a, b"original text").unwrap();
    let o = run!("compress", a);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let z = d.path().join("a.txt.zst");
    let frame = std::fs::read(&z).unwrap();

    // The compressed file exists: kept, and the message names -f.
    let o = run!("compress", a);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("-f"), "{}", stderr(&o));
    // Decompressing would overwrite the original: kept.
    std::fs::write(&a, b"edited since").unwrap();
    let o = run!("decompress", z);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("-f"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&a).unwrap(), b"edited since");
    // Input == output is refused even with -f.
    let o = run!("compress", z, "-o", z, "-f");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(std::fs::read(&z).unwrap(), frame);
    let o = run!("decompress", z, "-o", z, "-f");
    assert_eq!(code(&o), 2);
    assert_eq!(std::fs::read(&z).unwrap(), frame);
    // With -f the output is replaced.
    let o = run!("decompress", z, "-f");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(&a).unwrap(), b"original text");
}

// 4. In the reference tool's form, arguments starting with `-` are options.
#[test]
fn the_positional_form_never_takes_an_option_for_a_path() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["t", "-f"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!d.path().join("-f").exists());
    let o = run!("pack", "-q", t, "-o", d.path().join("t.zar"));
    assert_eq!(code(&o), 0);
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["t.zar", "--help"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("Usage"), "{}", stdout(&o));
    assert!(!d.path().join("--help").exists());
    assert!(!d.path().join("t_extracted").exists());
    // `--` ends the options: a directory named `-x` can still be packed this way.
    std::fs::create_dir(d.path().join("-x")).unwrap();
    std::fs::write(d.path().join("-x/f"), b"1").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["--", "-x"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(d.path().join("-x.zar").is_file());
}

// 5. An absurd thread count is capped, not a panic.
#[test]
fn pack_with_an_absurd_thread_count_succeeds() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let out = d.path().join("o.zar");
    let o = run!("pack", "-q", t, "-o", out, "-j", "99999");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    assert_eq!(code(&run!("verify", "-q", out, "-j", "99999")), 0);
}

// 6. Following links: a dangling or looping link is skipped with a warning.
#[cfg(unix)]
#[test]
fn follow_symlinks_skips_dangling_and_looping_links_and_counts_them() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    std::os::unix::fs::symlink("nowhere", t.join("dangling")).unwrap();
    std::os::unix::fs::symlink("..", t.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink("a.txt", t.join("alias.txt")).unwrap();
    let out = d.path().join("o.zar");
    let o = run!("pack", t, "-o", out, "--follow-symlinks");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("dangling") && e.contains("does not exist"),
        "{e}"
    );
    assert!(e.contains("loop") && e.contains("loops back"), "{e}");
    assert!(e.contains("2 entries skipped"), "{e}");
    let listed = stdout(&run!("list", out));
    assert!(
        listed.contains("alias.txt") && !listed.contains("dangling"),
        "{listed}"
    );
}

// 8. A full extract checks the archive's SHA-256.
#[test]
fn full_extract_checks_the_hash_and_partial_extract_does_not() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let out = d.path().join("o.zar");
    assert_eq!(code(&run!("pack", "-q", t, "-o", out, "-l", "stored")), 0);
    let mut bytes = std::fs::read(&out).unwrap();
    bytes[3] ^= 0x20; // inside a.txt's data, in a stored block
    std::fs::write(&out, &bytes).unwrap();
    let o = run!("extract", "-q", out, "-C", d.path().join("x1"));
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("integrity hash mismatch"),
        "{}",
        stderr(&o)
    );
    let o = run!(
        "extract",
        "-q",
        "--no-verify",
        out,
        "-C",
        d.path().join("x2")
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("extract", "-q", out, "-C", d.path().join("x3"), "sub");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let help = stdout(&run!("cat", "--help"));
    assert!(help.contains("not") && help.contains("SHA-256"), "{help}");
    let help = stdout(&run!("extract", "--help"));
    assert!(help.contains("--no-verify"), "{help}");
}

// 9. decompress creates files with the process umask, like compress and extract (an
// output now takes its input's mode, which for a new input is that too).
#[cfg(unix)]
#[test]
fn decompress_output_gets_the_ordinary_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("m.txt");
    std::fs::write(&a, b"mode test").unwrap();
    let reference = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
    assert_eq!(code(&run!("compress", a)), 0);
    std::fs::remove_file(&a).unwrap();
    let z = d.path().join("m.txt.zst");
    assert_eq!(code(&run!("decompress", z)), 0);
    let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, reference, "the input's mode: 0666 less the umask");
    assert_eq!(
        std::fs::metadata(&z).unwrap().permissions().mode() & 0o777,
        reference
    );
}

// 10. Messages and small conventions.
#[test]
fn bare_zarchive_is_a_usage_error() {
    let o = run!();
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("Usage"));
}

#[test]
fn counts_are_worded_in_the_singular_when_there_is_one() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("one");
    std::fs::create_dir(&t).unwrap();
    std::fs::write(t.join("x"), b"1").unwrap();
    let o = run!("pack", t, "-o", d.path().join("one.zar"));
    let e = stderr(&o);
    assert!(e.contains("1 file,") && e.contains("1 byte of data"), "{e}");
    assert!(
        !e.contains("1 files") && !e.contains("1 bytes") && !e.contains("1 blocks"),
        "{e}"
    );
}

#[test]
fn pack_and_compress_word_a_bad_level_the_same_way() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let p = stderr(&run!("pack", t, "-o", d.path().join("o.zar"), "-l", "99"));
    let c = stderr(&run!("compress", t.join("a.txt"), "-l", "23"));
    assert!(
        p.contains("from -131072 to 22") && c.contains("from -131072 to 22"),
        "{p}\n{c}"
    );
    assert!(!p.contains("..=") && !c.contains("..="), "{p}\n{c}");
}

#[test]
fn level_22_above_64_mib_compresses_and_a_long_window_below_the_dictionarys_too() {
    // Level 22 above 64 MiB turns on long-distance matching, as libzstd does (it used to
    // be refused). A `--long` window below the dictionary's own was refused too; it now
    // gives libzstd's frame (checked byte for byte by the library's
    // `long_windows_below_the_dictionary_match_the_oracle`). A sparse file keeps the test
    // cheap.
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let dict = d.path().join("d.dict");
    std::fs::write(&dict, vec![3u8; 4096]).unwrap();
    let o = run!("compress", "-l", "22", "--long=10", "-D", &dict, &big, "-c");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut decoder = zarkit::zstd::Decoder::with_dictionary(
        &zarkit::zstd::DecoderDictionary::new(&[3u8; 4096]).unwrap(),
    );
    let back = decoder.decompress(&o.stdout, (64 << 20) + 1).unwrap();
    assert!(back.len() == (64 << 20) + 1 && back.iter().all(|&b| b == 0));
    let o = run!("compress", "-l", "22", &big);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let frame = std::fs::read(d.path().join("big.bin.zst")).unwrap();
    let mut decoder = zarkit::zstd::Decoder::new();
    decoder.set_max_window_size(1 << 27);
    let back = decoder.decompress(&frame, (64 << 20) + 1).unwrap();
    assert!(back.len() == (64 << 20) + 1 && back.iter().all(|&b| b == 0));
}

#[cfg(unix)]
#[test]
fn a_fifo_is_not_called_a_zero_byte_archive_and_stdin_archives_work() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    make_fifo(&fifo);
    let o = run!("list", fifo);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("0 bytes"), "{}", stderr(&o));

    let reference = std::fs::read(fixture("basic/reference.zar")).unwrap();
    for args in [vec!["list", "-"], vec!["verify", "-q", "-"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &reference).unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    }
    let dest = d.path().join("from-stdin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(["extract", "-q", "-", "-C"])
        .arg(&dest)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &reference).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(dest.join("README.txt").is_file());
}

#[test]
fn list_into_a_closed_pipe_exits_0_in_every_format() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("many");
    std::fs::create_dir(&t).unwrap();
    for i in 0..3000 {
        std::fs::write(t.join(format!("file-with-a-longish-name-{i:05}.txt")), b"").unwrap();
    }
    let out = d.path().join("many.zar");
    assert_eq!(code(&run!("pack", "-q", t, "-o", out)), 0);
    for json in [false, true] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_zarchive"));
        cmd.arg("list").arg(&out);
        if json {
            cmd.arg("--json");
        }
        let o = run_into_closed_pipe(&mut cmd);
        assert_eq!(code(&o), 0, "json={json}: {}", stderr(&o));
    }
}

#[cfg(unix)]
#[test]
fn list_escapes_a_newline_in_a_name() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("nl");
    std::fs::create_dir(&t).unwrap();
    std::fs::write(t.join("two\nlines"), b"x").unwrap();
    let out = d.path().join("nl.zar");
    assert_eq!(code(&run!("pack", "-q", t, "-o", out)), 0);
    assert_eq!(stdout(&run!("list", out)), "two\\nlines\n");
}

#[test]
fn re_extracting_many_existing_files_prints_one_summary_line() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("many");
    std::fs::create_dir(&t).unwrap();
    for i in 0..50 {
        std::fs::write(t.join(format!("f{i:02}")), b"x").unwrap();
    }
    let out = d.path().join("many.zar");
    let dest = d.path().join("x");
    assert_eq!(code(&run!("pack", "-q", t, "-o", out)), 0);
    assert_eq!(code(&run!("extract", "-q", out, "-C", dest)), 0);
    let o = run!("extract", "-q", out, "-C", dest);
    assert_eq!(code(&o), 1);
    let e = stderr(&o);
    assert!(e.lines().count() <= 3, "{e}");
    assert!(
        e.contains("50 files already exist") && e.contains("and 45 more") && e.contains("-f"),
        "{e}"
    );
}

#[test]
fn decompress_with_a_dictionary_decodes_and_names_a_missing_or_wrong_one() {
    // The first golden frame: libzstd's ZSTD_compress_usingDict with the trained dictionary.
    let goldens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/goldens/dict");
    let frames = std::fs::read(goldens.join("frames.bin")).unwrap();
    let manifest = std::fs::read_to_string(goldens.join("frames.txt")).unwrap();
    let first: Vec<&str> = manifest
        .lines()
        .find(|l| !l.starts_with('#'))
        .unwrap()
        .split_whitespace()
        .collect();
    let len: usize = first[6].parse().unwrap();
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("a.zst");
    std::fs::write(&input, &frames[..len]).unwrap();
    let out = d.path().join("a");
    let o = run!("decompress", input, "-o", out);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("needs dictionary"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = run!(
        "decompress",
        "-D",
        goldens.join("raw.dict"),
        input,
        "-o",
        out
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the dictionary given is 0"),
        "{}",
        stderr(&o)
    );
    let o = run!(
        "decompress",
        "--dict",
        goldens.join("formatted.dict"),
        input,
        "-o",
        out
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&out).unwrap().len(),
        first[2].parse::<usize>().unwrap()
    );
}

#[test]
fn decompress_takes_windows_up_to_its_memory_limit_and_says_how_to_raise_it() {
    // A frame declaring a 2^wlog-byte window around 300 raw bytes.
    let frame = |wlog: u8| {
        let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x40, (wlog - 10) << 3];
        f.extend_from_slice(&(300u16 - 256).to_le_bytes());
        f.extend_from_slice(&(1u32 | (300 << 3)).to_le_bytes()[..3]);
        f.extend((0..300u32).map(|i| (i * 7 % 251) as u8));
        f
    };
    let d = tempfile::tempdir().unwrap();
    let (w26, w28) = (d.path().join("w26.zst"), d.path().join("w28.zst"));
    std::fs::write(&w26, frame(26)).unwrap();
    std::fs::write(&w28, frame(28)).unwrap();
    let out = d.path().join("out");
    // 64 MiB: within the default of 128 MiB, as the zstd tool's.
    let o = run!("decompress", "-f", w26, "-o", out);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap().len(), 300);
    // 256 MiB: refused, with the option that allows it.
    let o = run!("decompress", "-f", w28, "-o", out);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("--memory 256M"), "{}", stderr(&o));
    let o = run!("decompress", "-f", "--memory", "256M", w28, "-o", out);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // A lower limit refuses what the default takes; a malformed size is a usage error.
    let o = run!("decompress", "-f", "--memory", "8MB", w26, "-o", out);
    assert_eq!(code(&o), 1);
    let o = run!("decompress", "-f", "--memory", "8 pints", w26, "-o", out);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn compress_with_a_dictionary_round_trips_and_the_frame_needs_it() {
    let goldens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/goldens/dict");
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("notes.txt");
    let text: Vec<u8> = b"dictionary compression of a small text file, "
        .iter()
        .copied()
        .cycle()
        .take(3000)
        .collect();
    std::fs::write(&input, &text).unwrap();
    let frame = d.path().join("notes.txt.zst");
    let o = run!(
        "compress",
        "-D",
        goldens.join("formatted.dict"),
        "-l",
        "6",
        input
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let plain = d.path().join("plain.zst");
    let o = run!("compress", "-l", "6", input, "-o", plain);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_ne!(
        std::fs::read(&frame).unwrap(),
        std::fs::read(&plain).unwrap()
    );
    // Without the dictionary the frame is refused by its ID; with it, it decodes.
    let back = d.path().join("back.txt");
    let o = run!("decompress", frame, "-o", back);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("needs dictionary"), "{}", stderr(&o));
    let o = run!(
        "decompress",
        "-D",
        goldens.join("formatted.dict"),
        frame,
        "-o",
        back
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(&back).unwrap(), text);
    // A damaged dictionary is refused by name before anything is written.
    let bad = d.path().join("bad.dict");
    let mut bytes = std::fs::read(goldens.join("formatted.dict")).unwrap();
    bytes[9] ^= 0xFF;
    bytes[10] ^= 0xFF;
    std::fs::write(&bad, bytes).unwrap();
    let out = d.path().join("x.zst");
    let o = run!("compress", "-D", bad, input, "-o", out);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bad.dict") && stderr(&o).contains("dictionary"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

// 11. Messages a hostile session found misleading: a missing archive named twice, a
// directory given a hint about streams, the reference-tool form suggesting an option it
// refuses, "1 bytes", a missing input directory called "not a directory".
#[test]
fn messages_name_the_real_problem() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("nonexist.zar");
    let o = run!("list", &missing);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("nonexist.zar: cannot open it:"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        stderr(&o).matches("nonexist.zar").count(),
        1,
        "{}",
        stderr(&o)
    );
    let o = run!("list", d.path());
    assert!(
        stderr(&o).contains("is a directory, not an archive"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("stream"), "{}", stderr(&o));
    let tiny = d.path().join("one.zar");
    std::fs::write(&tiny, b"x").unwrap();
    let o = run!("list", &tiny);
    assert!(stderr(&o).contains("the file is 1 byte,"), "{}", stderr(&o));
    let o = run!("pack", d.path().join("nodir"), "-o", d.path().join("x.zar"));
    assert_eq!(code(&o), 1);
    assert!(!stderr(&o).contains("not a directory"), "{}", stderr(&o));

    // `zarchive DIR` twice: the form takes no -f, so the hint names the subcommand.
    let tree = d.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("a"), b"a").unwrap();
    assert_eq!(code(&run!(&tree)), 0);
    let o = run!(&tree);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("`zarchive pack -f` replaces it"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("use -f"), "{}", stderr(&o));
}

/// A file or archive name holding a terminal's escape sequence or a line break is shown
/// escaped in every message, as in listings (it reached the terminal raw in the messages
/// that name paths on disk), and a name that is not UTF-8 is kept as it is.
#[cfg(unix)]
#[test]
fn names_on_disk_never_reach_the_terminal_raw() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let evil = OsStr::from_bytes(b"a\x1b[31mRED\nb");
    std::fs::write(src.join(evil), b"x").unwrap();
    let archive = d.path().join(OsStr::from_bytes(b"o\x1b[2J.zar"));
    let out = d.path().join("out");
    let raw = |o: &std::process::Output| o.stderr.contains(&0x1b) || o.stdout.contains(&0x1b);

    let o = run!("pack", &src, "-o", &archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!raw(&o), "{}", stderr(&o));
    assert!(stderr(&o).contains("o\\x1b[2J.zar"), "{}", stderr(&o));
    assert_eq!(code(&run!("extract", &archive, "-C", &out)), 0);
    // The second extraction names the existing file (the entry's path on disk).
    let o = run!("extract", &archive, "-C", &out);
    assert_eq!(code(&o), 1);
    assert!(!raw(&o), "{}", stderr(&o));
    assert!(stderr(&o).contains("a\\x1b[31mRED\\nb"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 3, "{}", stderr(&o));
    // A failed output named after the input.
    let o = run!(
        "compress",
        src.join(evil),
        "-o",
        d.path().join(evil).join("x")
    );
    assert_eq!(code(&o), 1);
    assert!(!raw(&o), "{}", stderr(&o));

    // An archive whose name is not UTF-8 extracts into a folder of its very name.
    let odd = d.path().join(OsStr::from_bytes(b"n\xff.zar"));
    std::fs::copy(&archive, &odd).unwrap();
    let o = run!("extract", &odd);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("n\\xff_extracted"), "{}", stderr(&o));
    assert!(
        d.path()
            .join(OsStr::from_bytes(b"n\xff_extracted"))
            .join(evil)
            .is_file()
    );
}

// A second hostile session (issue 14's forty-fifth session) found these.

/// A member PATH that names some other file in the current directory stays a member: only
/// archive files (a ZAR footer, or a `.zar` / `.wua` name) lead the arguments. Before,
/// `extract a.zar top.txt -C q` with a local `top.txt` extracted everything into `q/a/` and
/// called `top.txt` a damaged archive (exit 3).
#[test]
fn a_member_path_naming_a_local_file_is_still_a_member() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    std::fs::write(d.path().join("a.txt"), b"an unrelated local file").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["extract", "-q", "t.zar", "a.txt", "-C", "q"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(d.path().join("q/a.txt")).unwrap(),
        b"hello archive"
    );
    assert!(!d.path().join("q/sub").exists() && !d.path().join("q/t").exists());
    // A second archive still leads, by its footer whatever its name, or by its name.
    std::fs::copy(&archive, d.path().join("copy.bin")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["extract", "-q", "t.zar", "copy.bin", "a.txt", "-C", "r"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(d.path().join("r/t/a.txt").is_file() && d.path().join("r/copy/a.txt").is_file());
}

/// A PATH the archive does not hold is reported and the others are extracted (exit 1), as
/// `tar` and `unzip` go on. Before, nothing at all was extracted.
#[test]
fn a_missing_path_does_not_cancel_the_others() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    let q = d.path().join("q");
    let o = run!("extract", "-q", &archive, "sub", "nonexist", "-C", &q);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no entry named nonexist"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(q.join("sub/b.bin")).unwrap(),
        vec![7u8; 100_000]
    );
    assert!(!q.join("a.txt").exists());
    // Only missing paths: nothing is made.
    let r = d.path().join("r");
    let o = run!("extract", "-q", &archive, "nonexist", "-C", &r);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!r.exists());
}

/// Two archives that would share a destination folder (`a.zar`, `a.wua`) are refused
/// before anything is written; before, the second wrote over the first with `-f`.
#[test]
fn two_archives_into_one_folder_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let zar = d.path().join("a.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &zar)), 0);
    let wua = d.path().join("a.wua");
    std::fs::copy(&zar, &wua).unwrap();
    let out = d.path().join("out");
    let o = run!("extract", "-q", "-f", &zar, &wua, "-C", &out);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("would both be extracted into"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    // Also when the names differ only in case, or the paths only in how they are written.
    let upper = d.path().join("A.wua");
    std::fs::copy(&zar, &upper).unwrap();
    let o = run!("extract", "-q", "-f", &zar, &upper, "-C", &out);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["extract", "-q", "-f", "a.zar", "./a.wua"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!out.exists() && !d.path().join("a_extracted").exists());
}

/// `update` (and `pack -f` over an archive) keeps the archive's owner and group where it
/// may (as root); before, root's update handed a user's archive to root.
#[cfg(unix)]
#[test]
fn update_keeps_the_archives_owner() {
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let archive = d.path().join("own.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    if std::fs::metadata(&archive).unwrap().uid() != 0 {
        return; // Only root may give a file away.
    }
    std::os::unix::fs::chown(&archive, Some(65534), Some(65534)).unwrap();
    let add = d.path().join("add");
    std::fs::create_dir_all(&add).unwrap();
    std::fs::write(add.join("z.txt"), b"z").unwrap();
    let o = run!("update", "-q", &archive, &add);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = std::fs::metadata(&archive).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65534));
    let o = run!("pack", "-q", "-f", &t, "-o", &archive);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = std::fs::metadata(&archive).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65534));
}

/// The default output of a directory given by a symbolic link's name is `NAME.zar` beside
/// the link (as the reference tool names it), not beside the directory it leads to.
#[cfg(unix)]
#[test]
fn the_default_archive_of_a_linked_directory_goes_beside_the_link() {
    let d = tempfile::tempdir().unwrap();
    let far = d.path().join("far/away");
    std::fs::create_dir_all(&far).unwrap();
    let t = small_tree(&far);
    let here = d.path().join("here");
    std::fs::create_dir_all(&here).unwrap();
    std::os::unix::fs::symlink(&t, here.join("game")).unwrap();
    for args in [&["pack", "-q", "game"][..], &["game"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .current_dir(&here)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(here.join("game.zar").is_file(), "{args:?}");
        assert!(!far.join("t.zar").exists(), "{args:?}");
        std::fs::remove_file(here.join("game.zar")).unwrap();
    }
}

/// A `.zst` given to the archive commands, and an archive given to `decompress`, say which
/// command reads them.
#[test]
fn a_zstd_file_and_an_archive_given_to_the_other_commands_say_which_reads_them() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    let zst = d.path().join("a.txt.zst");
    assert_eq!(
        code(&run!("compress", "-q", t.join("a.txt"), "-o", &zst)),
        0
    );
    for command in ["info", "list", "verify", "extract"] {
        let o = run!(command, &zst);
        // Not called damaged (3): it is no archive at all.
        assert_eq!(code(&o), 1, "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("(it is a zstd file: `zarchive decompress` reads it)"),
            "{command}: {}",
            stderr(&o)
        );
    }
    let o = run!("decompress", &archive, "-o", d.path().join("out"));
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("(it is a ZAR archive: `zarchive extract`"),
        "{}",
        stderr(&o)
    );
    assert!(!d.path().join("out").exists());
}

/// Messages the second session found wanting: a mistyped subcommand is suggested; an
/// output that is a directory says so at once (it said "use -f", which then said "is a
/// directory"); the reference form's extraction names `zarchive extract -f`, the option it
/// cannot take itself.
#[test]
fn mistyped_subcommands_directory_outputs_and_the_reference_forms_hint() {
    let o = run!("extrct", "x.zar");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("did you mean `zarchive extract`?"),
        "{}",
        stderr(&o)
    );
    let o = run!("frobnicate");
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));

    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let dir = d.path().join("out");
    std::fs::create_dir_all(&dir).unwrap();
    for args in [
        vec!["compress".into(), t.join("a.txt"), "-o".into(), dir.clone()],
        vec![
            "pack".into(),
            "-q".into(),
            t.clone(),
            "-o".into(),
            dir.clone(),
        ],
        vec!["train".into(), t.clone(), "-o".into(), dir.clone()],
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let o = zarchive(&args);
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("directory"), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("use -f"), "{args:?}: {}", stderr(&o));
    }

    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    assert_eq!(code(&run!(&archive)), 0);
    let o = run!(&archive);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(use `zarchive extract -f` to overwrite)"),
        "{}",
        stderr(&o)
    );
}

/// A negative number is refused as a value (clap's tip said to pass it after `--`, which
/// then failed as an extra argument), and a destination that is a file is named as such.
#[test]
fn negative_numbers_and_a_file_as_destination_are_refused_plainly() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    for args in [
        vec![
            "cat".into(),
            archive.clone(),
            "a.txt".into(),
            "--offset".into(),
            "-1".into(),
        ],
        vec![
            "cat".into(),
            archive.clone(),
            "a.txt".into(),
            "--length".into(),
            "-5".into(),
        ],
        vec!["pack".into(), t.clone(), "-j".into(), "-1".into()],
        vec!["extract".into(), archive.clone(), "-j".into(), "-2".into()],
        vec!["verify".into(), archive.clone(), "-j".into(), "-2".into()],
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let o = zarchive(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("invalid value '-"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("tip:"), "{args:?}: {}", stderr(&o));
    }
    let file = d.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    let o = run!("extract", "-q", &archive, "-C", &file);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("the destination exists and is not a directory"),
        "{}",
        stderr(&o)
    );
}

/// `extract ARCHIVE .` (or `/`) selects the whole archive, so it checks the hash as a full
/// extraction does (with `.` taken as a path, it would have skipped the check).
#[test]
fn extracting_dot_checks_the_hash_as_a_full_extraction() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir_all(&t).unwrap();
    let noise = zarkit_tests::noise(100_000, 45);
    std::fs::write(t.join("n.bin"), &noise).unwrap();
    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(&archive, &bytes).unwrap();
    for path in [".", "/", "./"] {
        let o = run!(
            "extract",
            "-q",
            &archive,
            path,
            "-C",
            d.path().join(format!("x{}", path.len())),
            "-f"
        );
        assert_eq!(code(&o), 3, "{path}: {}", stderr(&o));
    }
}

/// `train --maxdict` above what libzstd's trainer counts is a usage error (exit 2) like
/// every other bad `--maxdict` (it failed later, exit 1); `--fast=0`'s message states the
/// range that is enforced (larger factors mean the fastest level, as with `zstd`).
#[test]
fn an_oversized_maxdict_and_fast_zero_are_usage_errors_saying_why() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let o = run!(
        "train",
        &t,
        "-o",
        d.path().join("d.dict"),
        "--maxdict",
        "99999G"
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("at most 4294967295 bytes"),
        "{}",
        stderr(&o)
    );
    let o = run!("compress", "--fast=0", t.join("a.txt"), "-c");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("above 131072 it means 131072"),
        "{}",
        stderr(&o)
    );
    let o = run!("compress", "--fast=999999", t.join("a.txt"), "-c");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// A directory that cannot be made takes the entries below it along: the summary counts
/// them (it said "1 entry could not be extracted" with four missing).
#[test]
fn entries_below_a_directory_that_cannot_be_made_are_counted() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir_all(t.join("sub/deeper")).unwrap();
    for f in ["sub/f1", "sub/f2", "sub/deeper/f3", "top"] {
        std::fs::write(t.join(f), f.as_bytes()).unwrap();
    }
    let archive = d.path().join("t.zar");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &archive)), 0);
    let dest = d.path().join("out");
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::write(dest.join("sub"), b"a file where the directory goes").unwrap();
    let o = run!("extract", "-q", &archive, "-C", &dest);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("1 entry could not be extracted (named above), nor the 4 entries below it"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(dest.join("top")).unwrap(), b"top");
}

/// Outputs whose names are 240-255 bytes long are made (their temporary names, 16 bytes
/// longer, went past the 255-byte limit: "File name too long"); so are those of 200 bytes
/// that are not UTF-8 (each byte shown as a 3-byte replacement character).
#[cfg(unix)]
#[test]
fn outputs_with_names_up_to_the_limit_are_made() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    let long = d.path().join("n".repeat(251));
    std::fs::write(&long, b"some data, some data, some data").unwrap();
    let o = run!("compress", "-q", &long);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let zst = d.path().join(format!("{}.zst", "n".repeat(251)));
    std::fs::remove_file(&long).unwrap();
    let o = run!("decompress", "-q", &zst);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&long).unwrap(),
        b"some data, some data, some data"
    );
    for name in [
        "p".repeat(251).into_bytes(),
        [vec![0xffu8; 200], b".zar".to_vec()].concat(),
    ] {
        let out = d.path().join(std::ffi::OsStr::from_bytes(&name));
        let o = run!("pack", "-q", &t, "-o", &out);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(code(&run!("verify", "-q", &out)), 0);
    }
    let samples = d.path().join("samples");
    sample_files(&samples, 40);
    let dict = d.path().join("d".repeat(255));
    let o = run!("train", &samples, "-o", &dict, "--maxdict", "2K");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(dict.is_file());
}

/// Run by root, `compress` and `decompress` give the output its input's owner and group,
/// as `zstd` does (the outputs of a user's files were root's).
#[cfg(unix)]
#[test]
fn outputs_take_the_inputs_owner_when_root_makes_them() {
    use std::os::unix::fs::MetadataExt;
    if !is_root() {
        eprintln!("skipped: only root may give a file away");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("own.txt");
    std::fs::write(&input, b"a user's file, a user's file").unwrap();
    std::os::unix::fs::chown(&input, Some(65534), Some(65533)).unwrap();
    let o = run!("compress", "-q", &input);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let zst = d.path().join("own.txt.zst");
    let m = std::fs::metadata(&zst).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65533));
    let back = d.path().join("back.txt");
    let o = run!("decompress", "-q", &zst, "-o", &back);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = std::fs::metadata(&back).unwrap();
    assert_eq!((m.uid(), m.gid()), (65534, 65533));
}

/// A directory (mode 0755) holding `ro/` where the user running [`unprivileged`] cannot
/// make files, and in it the files `names`, each holding "old", which that user may write.
/// `None` where the unprivileged user cannot be had.
#[cfg(target_os = "linux")]
fn unwritable_dir_with_writable_files(names: &[&str]) -> Option<(tempfile::TempDir, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    for name in names {
        let f = ro.join(name);
        std::fs::write(&f, b"old").unwrap();
        if is_root() {
            std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
        }
    }
    if !is_root() {
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let o = unprivileged().arg("--version").output().unwrap();
    if !o.status.success() {
        eprintln!("test did not run: {}", stderr(&o));
        return None;
    }
    Some((d, ro))
}

/// `run_unprivileged!(a, b, ...)`: `zarchive` with these arguments as the unprivileged user.
#[cfg(target_os = "linux")]
macro_rules! run_unprivileged {
    ($($a:expr),* $(,)?) => {
        unprivileged().args([$(std::ffi::OsStr::new(&$a)),*]).output().unwrap()
    };
}

/// `-f` onto a file the user may write, in a directory where no file can be made, writes
/// the file where it is, as `zstd -f` does (it failed: the temporary file could not be
/// made). The file is emptied only at the first byte written: an input that cannot be
/// read leaves it as it was (the first form emptied it at once); a failure after bytes
/// were written leaves it empty, never partial. Run as `nobody` when root.
#[cfg(target_os = "linux")]
#[test]
fn force_writes_in_place_where_the_directory_is_not_writable() {
    let Some((d, ro)) = unwritable_dir_with_writable_files(&["out.zst", "back.txt"]) else {
        return;
    };
    let (out, back) = (ro.join("out.zst"), ro.join("back.txt"));
    let input = d.path().join("in.txt");
    let text: Vec<u8> = (0..200_000u32)
        .flat_map(|i| format!("line {i} of the input\n").into_bytes())
        .collect();
    std::fs::write(&input, &text).unwrap();
    let o = run_unprivileged!("compress", "-q", &input, "-o", &out);
    assert_eq!(code(&o), 1, "no -f: {}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    let missing = d.path().join("missing");
    let o = run_unprivileged!("compress", "-q", "-f", &missing, "-o", &out);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"old",
        "an input that cannot be read"
    );
    let o = run_unprivileged!("compress", "-q", "-f", &input, "-o", &out);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("decompress", "-q", &out, "-c");
    assert!(o.stdout == text);
    // A frame cut short: megabytes are written before the cut is found.
    let frame = std::fs::read(&out).unwrap();
    let cut = d.path().join("cut.zst");
    std::fs::write(&cut, &frame[..frame.len() * 3 / 4]).unwrap();
    let o = run_unprivileged!("decompress", "-q", "-f", &cut, "-o", &back);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let left = std::fs::metadata(&back).unwrap().len();
    assert_eq!(left, 0, "left empty, not partial");
}

/// In a sticky directory (`/tmp`), a file of another user that this user may write cannot
/// be renamed over: `-f` writes it in place there too, as `zstd -f` does.
#[cfg(target_os = "linux")]
#[test]
fn force_writes_in_place_where_the_directory_is_sticky() {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        eprintln!("test did not run: it needs a file of another user");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let input = d.path().join("in.txt");
    std::fs::write(&input, b"fresh content, fresh content").unwrap();
    // Root's file, writable by all.
    let out = d.path().join("out.zst");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o666)).unwrap();
    let o = run_unprivileged!("compress", "-q", "-f", &input, "-o", &out);
    if stderr(&o).contains("setpriv") {
        eprintln!("test did not run: {}", stderr(&o));
        return;
    }
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("decompress", "-q", &out, "-c");
    assert_eq!(o.stdout, b"fresh content, fresh content");
}

/// Ctrl-C while a file is written in place (see above) empties it: it cannot be removed,
/// and what was cut short must not pass for a whole output.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_empties_an_output_written_in_place() {
    use std::io::Write;
    let Some((d, ro)) = unwritable_dir_with_writable_files(&["out.zst"]) else {
        return;
    };
    if signal_ignored(2) {
        eprintln!("not run: SIGINT is ignored in this test run, and so in zarchive");
        return;
    }
    let out = ro.join("out.zst");
    let fifo = d.path().join("input");
    make_fifo(&fifo);
    let child = unprivileged()
        .args([
            "compress".as_ref(),
            "-f".as_ref(),
            fifo.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Incompressible input, the pipe kept open: `compress` has written part of its output
    // and waits for the rest.
    let mut pipe = std::fs::File::options().write(true).open(&fifo).unwrap();
    pipe.write_all(&zarkit_tests::noise(1 << 20, 3)).unwrap();
    let started = std::time::Instant::now();
    while std::fs::metadata(&out).unwrap().len() <= 3 {
        assert!(started.elapsed().as_secs() < 20, "nothing was written");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    send_sigint(&child);
    let o = child.wait_with_output().unwrap();
    drop(pipe);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(o.status.signal(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the output written in place was emptied"),
        "{}",
        stderr(&o)
    );
    let left = std::fs::metadata(&out).unwrap().len();
    assert_eq!(left, 0, "emptied, not partial");
}

/// As the `zstd` tool: a symbolic link given as an input is ignored with a warning unless
/// `-f` (exit 1 when nothing is left; a link to a FIFO, as `<(cmd)` gives, is kept), and
/// several inputs go into one `-o` file only with `-f` (they were followed, and joined,
/// without a word).
#[cfg(unix)]
#[test]
fn links_given_as_inputs_and_joined_outputs_need_force_as_with_zstd() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    std::fs::write(&a, b"the data behind the link").unwrap();
    let link = d.path().join("lnk");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let o = run!("compress", &link);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a symbolic link, ignored")
            && stderr(&o).contains("nothing done: 1 symbolic link ignored"),
        "{}",
        stderr(&o)
    );
    assert!(!d.path().join("lnk.zst").exists());
    // The others are done and decide the status, as with `zstd`; `-q` leaves out the
    // warning.
    let o = run!("compress", "-q", &link, &a);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(d.path().join("a.zst").exists());
    assert!(!d.path().join("lnk.zst").exists());
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    // A link to a FIFO is read (process substitution, `/dev/stdin` from a pipe).
    let fifo = d.path().join("fifo");
    make_fifo(&fifo);
    let to_fifo = d.path().join("to-fifo");
    std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
    let writer = std::thread::spawn(move || std::fs::write(fifo, b"through a pipe").unwrap());
    let o = run!("compress", "-q", "-c", &to_fifo);
    writer.join().unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!o.stdout.is_empty());
    let o = run!("compress", "-q", "-f", &link);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let zlink = d.path().join("z.zst");
    std::os::unix::fs::symlink(d.path().join("lnk.zst"), &zlink).unwrap();
    let o = run!("decompress", "-q", &zlink, "-o", d.path().join("back"));
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!d.path().join("back").exists());
    let o = run!(
        "decompress",
        "-q",
        "-f",
        &zlink,
        "-o",
        d.path().join("back")
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        std::fs::read(d.path().join("back")).unwrap(),
        b"the data behind the link"
    );
    // `-D -` says what is wrong (it was "-: No such file or directory").
    let o = run!("compress", "-q", "-D", "-", &a, "-c");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not read from standard input"),
        "{}",
        stderr(&o)
    );
    // Several inputs into one `-o` file.
    let joined = d.path().join("joined.zst");
    let o = run!("compress", "-q", &a, d.path().join("back"), "-o", &joined);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!joined.exists());
}

/// Never in place through a link: another user's link in `/tmp` could lead `-f` to a file
/// of this user's own, where no file can be made (the first form of the in-place fallback
/// followed it and wrote the file). Run as `nobody` by root.
#[cfg(target_os = "linux")]
#[test]
fn force_never_writes_in_place_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        eprintln!("test did not run: it needs a link of another user");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let input = d.path().join("in.txt");
    std::fs::write(&input, b"fresh content").unwrap();
    // The user's own file, in a directory the user may not write.
    let own = d.path().join("own");
    std::fs::create_dir(&own).unwrap();
    let target = own.join("target");
    std::fs::write(&target, b"mine").unwrap();
    std::os::unix::fs::chown(&target, Some(65534), Some(65534)).unwrap();
    // Root's link to it in a sticky directory.
    let sticky = d.path().join("sticky");
    std::fs::create_dir(&sticky).unwrap();
    std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let link = sticky.join("out.zst");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = run_unprivileged!("compress", "-q", "-f", &input, "-o", &link);
    if stderr(&o).contains("setpriv") {
        eprintln!("test did not run: {}", stderr(&o));
        return;
    }
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(std::fs::read(&target).unwrap(), b"mine");
}

/// A tree deeper than the descriptor limit packs: the walk keeps at most 16 of its
/// directories open and opens the others again through `..` when it comes back to them
/// (one descriptor per level failed past about 1,015 levels at the usual limit of 1,024).
#[cfg(unix)]
#[test]
fn pack_walks_a_tree_deeper_than_the_descriptor_limit() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    // 150 levels, each holding `a.txt`, the next level `d/`, and `z.txt`, which the walk
    // reads once it is back from `d/`.
    let mut dir = tree.clone();
    for i in 0..150 {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), format!("a{i}")).unwrap();
        std::fs::write(dir.join("z.txt"), format!("z{i}")).unwrap();
        dir = dir.join("d");
    }
    let out = d.path().join("deep.zar");
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 40 && exec \"$0\" pack -q \"$1\" -o \"$2\"")
        .arg(env!("CARGO_BIN_EXE_zarchive"))
        .arg(&tree)
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let listed = stdout(&run!("list", &out));
    assert_eq!(listed.lines().filter(|l| l.ends_with(".txt")).count(), 300);
    let deepest = format!("{}z.txt", "d/".repeat(149));
    assert_eq!(stdout(&run!("cat", &out, &deepest)), "z149");
    assert_eq!(stdout(&run!("cat", &out, "z.txt")), "z0");
}

// Hostile session 8: resource limits, interruption, names at the edges.

/// A message that cannot be written to standard error (a log on a full disk, `2>&1 | head
/// -1`) is dropped and the work goes on, as with `zstd` and `tar`: `eprintln!` panicked
/// (exit 101), and `pack` left no archive because a warning could not be shown, `compress`
/// no frame because of its summary, `extract` nothing because of its banner.
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_standard_error_loses_no_output() {
    let d = tempfile::tempdir().unwrap();
    let t = small_tree(d.path());
    // A name of 128 bytes or more is warned about.
    std::fs::write(t.join("n".repeat(130)), b"warned").unwrap();
    let into_full_stderr = |args: &[&std::ffi::OsStr]| {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap();
        Command::new(env!("CARGO_BIN_EXE_zarchive"))
            .args(args)
            .stderr(full)
            .output()
            .unwrap()
    };
    let archive = d.path().join("o.zar");
    let o = into_full_stderr(&[
        "pack".as_ref(),
        t.as_os_str(),
        "-o".as_ref(),
        archive.as_os_str(),
    ]);
    assert_eq!(code(&o), 0);
    assert!(archive.exists());
    let frame = d.path().join("a.zst");
    let input = t.join("a.txt");
    let o = into_full_stderr(&[
        "compress".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        frame.as_os_str(),
    ]);
    assert_eq!(code(&o), 0);
    assert!(frame.exists());
    let x = d.path().join("x");
    let o = into_full_stderr(&[
        "extract".as_ref(),
        archive.as_os_str(),
        "-C".as_ref(),
        x.as_os_str(),
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(std::fs::read(x.join("a.txt")).unwrap(), b"hello archive");
    // A failure keeps its status, unsaid.
    let o = into_full_stderr(&["list".as_ref(), d.path().join("missing.zar").as_os_str()]);
    assert_eq!(code(&o), 1);
}

/// The hidden temporary files left in `dir`.
#[cfg(target_os = "linux")]
fn partials_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial"))
        .collect()
}

/// A signal ignored when the tool started stays ignored, as `nohup` and a script's `cmd &`
/// mean it to: it was caught, and `nohup zarchive pack` died at logout (SIGHUP) with no
/// archive.
#[cfg(target_os = "linux")]
#[test]
fn signals_ignored_at_start_stay_ignored() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("input");
    make_fifo(&fifo);
    let out = d.path().join("out.zst");
    let child = Command::new("sh")
        .arg("-c")
        .arg("trap '' HUP INT; exec \"$0\" compress -q \"$1\" -o \"$2\"")
        .arg(env!("CARGO_BIN_EXE_zarchive"))
        .arg(&fifo)
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = std::fs::File::options().write(true).open(&fifo).unwrap();
    pipe.write_all(&[7u8; 100_000]).unwrap();
    let started = std::time::Instant::now();
    while partials_in(d.path()).is_empty() {
        assert!(started.elapsed().as_secs() < 20, "nothing was written");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    send_signal(&child, "HUP");
    send_signal(&child, "INT");
    std::thread::sleep(std::time::Duration::from_millis(200));
    pipe.write_all(&[8u8; 100_000]).unwrap();
    drop(pipe);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut want = vec![7u8; 100_000];
    want.extend_from_slice(&[8u8; 100_000]);
    let o = run!("decompress", "-c", out);
    assert!(o.stdout == want, "{}", stderr(&o));
}

/// A write past `ulimit -f` fails with "File too large" and the failed write's clean-up
/// runs: SIGXFSZ killed the process (exit 153), leaving `pack`'s and `compress`'s hidden
/// temporary files and `extract`'s cut-short files under their own names.
#[cfg(target_os = "linux")]
#[test]
fn a_file_size_limit_leaves_nothing_partial() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir(&t).unwrap();
    std::fs::write(t.join("big.bin"), zarkit_tests::noise(1 << 20, 8)).unwrap();
    // Made without the limit.
    let archive = d.path().join("whole.zar");
    assert_eq!(code(&run!("pack", "-q", t, "-o", archive)), 0);
    // 256 KiB (bash counts `ulimit -f` in KiB).
    let limited = |args: &[&std::ffi::OsStr]| {
        Command::new("bash")
            .arg("-c")
            .arg("ulimit -f 256; exec \"$@\"")
            .arg("bash")
            .arg(env!("CARGO_BIN_EXE_zarchive"))
            .args(args)
            .output()
            .unwrap()
    };
    let o = limited(&[
        "pack".as_ref(),
        "-q".as_ref(),
        t.as_os_str(),
        "-o".as_ref(),
        d.path().join("p.zar").as_os_str(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("File too large"), "{}", stderr(&o));
    let big = t.join("big.bin");
    let o = limited(&[
        "compress".as_ref(),
        "-q".as_ref(),
        big.as_os_str(),
        "-o".as_ref(),
        d.path().join("c.zst").as_os_str(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let x = d.path().join("x");
    let o = limited(&[
        "extract".as_ref(),
        "-q".as_ref(),
        archive.as_os_str(),
        "-C".as_ref(),
        x.as_os_str(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("File too large"), "{}", stderr(&o));
    assert!(
        !x.join("big.bin").exists(),
        "a cut-short file under its name"
    );
    assert!(!d.path().join("p.zar").exists() && !d.path().join("c.zst").exists());
    assert_eq!(partials_in(d.path()), Vec::<String>::new());
    assert!(!x.exists() || partials_in(&x).is_empty());
}

/// An archive written to standard output whose reader goes away (`-o - | head`) ends
/// quietly, as `cat`, `list` and `compress -c` end: it said "writing block 27 of the
/// archive: Broken pipe" and exited 1.
#[cfg(unix)]
#[test]
fn an_archive_into_a_closed_pipe_ends_quietly() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir(&t).unwrap();
    // More than the output's buffer and the pipe's.
    std::fs::write(t.join("big.bin"), zarkit_tests::noise(3 << 20, 9)).unwrap();
    for args in [["pack", "-q", "-o", "-"], ["merge", "-q", "-o", "-"]] {
        let o = run_into_closed_pipe(
            Command::new(env!("CARGO_BIN_EXE_zarchive"))
                .args(args)
                .arg(&t),
        );
        assert_eq!((code(&o), stderr(&o)), (0, String::new()), "{args:?}");
    }
}

/// `list --json` writes C1 controls, line separators and direction overrides as `\u`
/// escapes (the same strings to a JSON reader); `list` shows them as the `\x` of their
/// bytes. They were written as they are, and `x\u{202e}txt.exe` showed as `xexe.txt`.
#[cfg(target_os = "linux")]
#[test]
fn names_that_turn_text_around_are_listed_escaped() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t");
    std::fs::create_dir(&t).unwrap();
    for name in ["x\u{202e}txt.exe", "csi\u{9b}2J", "line\u{2028}sep"] {
        std::fs::write(t.join(name), b"x").unwrap();
    }
    let archive = d.path().join("n.zar");
    assert_eq!(code(&run!("pack", "-q", t, "-o", archive)), 0);
    let o = run!("list", archive);
    assert_eq!(
        stdout(&o),
        "csi\\xc2\\x9b2J\nline\\xe2\\x80\\xa8sep\nx\\xe2\\x80\\xaetxt.exe\n"
    );
    let o = run!("list", "--json", archive);
    let text = stdout(&o);
    for escaped in ["csi\\u009b2J", "line\\u2028sep", "x\\u202etxt.exe"] {
        assert!(text.contains(escaped), "{text}");
    }
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v[2]["path"], "x\u{202e}txt.exe");
}

/// Memory the compressor's tables need and cannot have is an error naming them, exit 1, as
/// `zstd` says "Allocation error: not enough memory": the allocation aborted the process
/// (exit 134, "memory allocation of 536870912 bytes failed"), leaving its hidden output.
#[cfg(target_os = "linux")]
#[test]
fn tables_that_do_not_fit_in_memory_are_an_error() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out.zst");
    // From standard input (size unknown), level 22 takes its full tables: 512 MiB of tree
    // alone, more than 600 MB of address space holds with the rest.
    let o = under_memory_limit(
        600_000,
        &["compress", "--ultra", "-22", "-o", out.to_str().unwrap()],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not enough memory: the compressor's match tables (512 MiB)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(partials_in(d.path()), Vec::<String>::new());
    assert!(!out.exists());
    // The long-distance finder's tables (64 MiB for `--long=30`) too: they still aborted
    // (the review).
    let o = under_memory_limit(60_000, &["compress", "-1", "--long=30", "-c"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("not enough memory"), "{}", stderr(&o));
    // The same input at a level whose tables fit.
    let o = under_memory_limit(600_000, &["compress", "-3", "-c"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// `zarchive ARGS` under `ulimit -v LIMIT` (KiB), given 100,000 bytes of noise on standard
/// input; its standard output is not kept.
#[cfg(target_os = "linux")]
fn under_memory_limit(limit: u32, args: &[&str]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {limit}; exec \"$@\""))
        .arg("bash")
        .arg(env!("CARGO_BIN_EXE_zarchive"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(&zarkit_tests::noise(100_000, 3));
    child.wait_with_output().unwrap()
}

/// What a tenth hostile session found (`zstd` 1.5.7 beside `decompress` and `compress`):
/// `.zstd` names, `--memory=0`, an option given twice, and `--exclude-compressed`'s list.
#[test]
fn decompress_and_compress_take_what_the_zstd_tool_takes() {
    let d = tempfile::tempdir().unwrap();
    let text = b"the zstd tool names its frames .zst, and decodes .zstd too\n".repeat(40);
    let plain = d.path().join("y");
    std::fs::write(&plain, &text).unwrap();
    let o = run!("compress", &plain, "-o", d.path().join("y.zstd"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::remove_file(&plain).unwrap();
    // NAME.zstd decompresses to NAME, as with `zstd -d` (was: no suffix to remove).
    let o = run!("decompress", d.path().join("y.zstd"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&plain).unwrap() == text);
    // `--memory=0` is the default limit, as `zstd`'s unset one (was: a limit of 0 bytes).
    let o = run!("decompress", "--memory=0", "-c", d.path().join("y.zstd"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == text);
    // An option given twice: the last wins, as in `zstd` (was: a usage error).
    let o = run!(
        "decompress",
        "--memory=8K",
        "--memory=128M",
        "--long=31",
        "--long=27",
        "-c",
        d.path().join("y.zstd")
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(o.stdout == text);
    // `--exclude-compressed` leaves out what `zstd` leaves out: images, archives, office
    // documents (was: only nine compressors' suffixes).
    for name in [
        "f.png", "f.jpg", "f.zip", "f.7z", "f.docx", "f.mp4", "f.bz2", "f.txt",
    ] {
        std::fs::write(d.path().join(name), &text).unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["compress", "--exclude-compressed", "-q"])
        .args([
            "f.png", "f.jpg", "f.zip", "f.7z", "f.docx", "f.mp4", "f.bz2", "f.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for name in [
        "f.png", "f.jpg", "f.zip", "f.7z", "f.docx", "f.mp4", "f.bz2",
    ] {
        assert!(!d.path().join(format!("{name}.zst")).exists(), "{name}");
    }
    assert!(d.path().join("f.txt.zst").exists());
    // A character device is no input, as for `zstd` (was: `/dev/null` compressed as empty
    // input, `/dev/zero` read for ever); the next input still goes.
    #[cfg(unix)]
    for command in ["compress", "decompress"] {
        let joined = d.path().join(format!("joined-{command}"));
        let second = d.path().join(if command == "compress" {
            "f.txt"
        } else {
            "y.zstd"
        });
        let o = run!(command, "/dev/null", "-o", joined);
        assert_eq!(code(&o), 1, "{command}: {}", stderr(&o));
        assert!(!joined.exists(), "{command}: no output left");
        let o = run!(command, "-c", "/dev/zero", second);
        assert_eq!(code(&o), 1, "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("/dev/zero: not a regular file or a pipe"),
            "{}",
            stderr(&o)
        );
        assert!(!o.stdout.is_empty(), "{command}: the next input goes on");
    }
}
