//! What `.wua` users ask for: titles at a glance.

mod common;
use common::*;

use std::path::Path;
use std::process::Command;

/// A `.wua`-shaped tree: a game with a name in meta.xml, its update and a DLC, and a folder
/// that is not a title.
fn wua_tree(root: &Path) -> std::path::PathBuf {
    let t = root.join("titles");
    let game = t.join("0005000010101a00_v0");
    std::fs::create_dir_all(game.join("meta")).unwrap();
    std::fs::create_dir_all(game.join("content")).unwrap();
    std::fs::write(
        game.join("meta/meta.xml"),
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<menu>\n  <longname_en type=\"string\" length=\"512\">Super Game &amp;\nFriends</longname_en>\n</menu>\n",
    )
    .unwrap();
    std::fs::write(game.join("content/data.bin"), vec![1u8; 70_000]).unwrap();
    let update = t.join("0005000E10101A00_v208");
    std::fs::create_dir_all(update.join("code")).unwrap();
    std::fs::write(update.join("code/app.xml"), b"<app/>").unwrap();
    let dlc = t.join("0005000c10101a00_v16");
    std::fs::create_dir_all(dlc.join("content")).unwrap();
    std::fs::write(dlc.join("content/extra.bin"), b"dlc").unwrap();
    std::fs::create_dir_all(t.join("not_a_title")).unwrap();
    t
}

#[test]
fn info_lists_the_titles_of_a_wua_with_kind_and_name() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let wua = d.path().join("game.wua");
    let o = run!("pack", "-q", t, "-o", wua);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let o = run!("info", wua);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("titles:           3"), "{out}");
    assert!(
        out.contains("0005000010101a00 v0     game    Super Game & Friends"),
        "{out}"
    );
    assert!(out.contains("0005000e10101a00 v208   update"), "{out}");
    assert!(out.contains("0005000c10101a00 v16    dlc"), "{out}");
    assert!(!out.contains("not_a_title"), "{out}");

    let o = run!("info", "--json", wua);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let titles = v["titles"].as_array().unwrap();
    assert_eq!(titles.len(), 3);
    assert_eq!(titles[0]["kind"], "game");
    assert_eq!(titles[0]["name"], "Super Game & Friends");
    assert_eq!(titles[0]["title_id"], "0005000010101a00");
    let kinds: Vec<&str> = titles.iter().map(|t| t["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["game", "dlc", "update"], "archive order");
    assert_eq!(titles[2]["version"], 208);
    assert!(titles[1]["name"].is_null());

    // An archive that is not a .wua has no titles line.
    let plain = d.path().join("plain.zar");
    assert_eq!(
        run!("pack", "-q", t.join("not_a_title"), "-o", plain)
            .status
            .code(),
        Some(0)
    );
    let out = String::from_utf8_lossy(&run!("info", plain).stdout).into_owned();
    assert!(!out.contains("titles"), "{out}");
}

#[test]
fn extract_takes_several_archives_each_into_its_own_folder_worst_status_wins() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let a = d.path().join("base.wua");
    let b = d.path().join("update.wua");
    assert_eq!(run!("pack", "-q", t, "-o", a).status.code(), Some(0));
    assert_eq!(
        run!("pack", "-q", t.join("0005000E10101A00_v208"), "-o", b)
            .status
            .code(),
        Some(0)
    );
    let out = d.path().join("out");
    let o = run!("extract", a, b, "-C", out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("base.wua: 4 files") && e.contains("update.wua: 1 file,"),
        "{e}"
    );
    assert!(
        out.join("base/0005000010101a00_v0/content/data.bin")
            .is_file()
    );
    assert!(out.join("update/code/app.xml").is_file());

    // A second archive that is damaged (hash) makes the whole command exit 3, after the
    // first was extracted.
    let mut bytes = std::fs::read(&b).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 1; // inside the footer's hash (footer bytes 96..128)
    let bad = d.path().join("bad.wua");
    std::fs::write(&bad, &bytes).unwrap();
    let out2 = d.path().join("out2");
    let o = run!("extract", "-q", a, bad, "-C", out2);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out2.join("base/0005000010101a00_v0/meta/meta.xml")
            .is_file()
    );

    // Paths after the archives select entries in each.
    let out3 = d.path().join("out3");
    let o = run!("extract", "-q", a, "-C", out3, "0005000c10101a00_v16");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out3.join("0005000c10101a00_v16/content/extra.bin")
            .is_file()
    );
    assert!(!out3.join("0005000010101a00_v0").exists());
}

#[test]
fn list_tree_indents_entries_with_sizes_and_directory_totals() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let a = d.path().join("t.wua");
    assert_eq!(run!("pack", "-q", t, "-o", a).status.code(), Some(0));
    let o = run!("list", "--tree", a);
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("  ./"), "{out}");
    let root_total: u64 = lines[0].split_whitespace().next().unwrap().parse().unwrap();
    // data.bin + meta.xml + app.xml + extra.bin.
    let meta = std::fs::metadata(t.join("0005000010101a00_v0/meta/meta.xml"))
        .unwrap()
        .len();
    assert_eq!(root_total, 70_000 + meta + 6 + 3, "{out}");
    assert!(lines.contains(&"         70000        data.bin"), "{out}");
    assert!(lines.contains(&"         70000      content/"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("    0005000010101a00_v0/")),
        "{out}"
    );
}

#[test]
fn merge_and_update_equal_packing_the_merged_tree() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    // Base game alone, then an update folder to merge in.
    let base_dir = d.path().join("base");
    std::fs::create_dir_all(&base_dir).unwrap();
    std::fs::rename(
        t.join("0005000010101a00_v0"),
        base_dir.join("0005000010101a00_v0"),
    )
    .unwrap();
    let upd = d.path().join("upd");
    std::fs::create_dir_all(upd.join("0005000010101a00_v0/content")).unwrap();
    std::fs::write(upd.join("0005000010101a00_v0/content/data.bin"), b"patched").unwrap();
    std::fs::rename(
        t.join("0005000E10101A00_v208"),
        upd.join("0005000E10101A00_v208"),
    )
    .unwrap();

    let base = d.path().join("base.wua");
    assert_eq!(
        run!("pack", "-q", base_dir, "-o", base).status.code(),
        Some(0)
    );
    let merged = d.path().join("merged.wua");
    for j in ["1", "2"] {
        let o = run!("merge", "-q", "-f", "-j", j, "-o", merged, base, upd);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The same tree laid out on disk, packed.
        let on_disk = d.path().join(format!("on-disk-{j}"));
        copy_tree(&base_dir, &on_disk);
        copy_tree(&upd, &on_disk);
        let packed = d.path().join(format!("packed-{j}.wua"));
        assert_eq!(
            run!("pack", "-q", "-j", j, on_disk, "-o", packed)
                .status
                .code(),
            Some(0)
        );
        assert!(
            std::fs::read(&merged).unwrap() == std::fs::read(&packed).unwrap(),
            "-j {j}"
        );
    }
    // update: the same, in place.
    let o = run!("update", "-q", base, upd);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read(&base).unwrap() == std::fs::read(&merged).unwrap());
    // merge refuses to write over one of its inputs.
    let o = run!("merge", "-q", "-f", "-o", base, base, upd);
    assert_eq!(o.status.code(), Some(2));
}

/// The README's `.wua` example as it is written: a title folder given to `merge` or
/// `update` goes into the archive as that folder, beside the others (its `code/`,
/// `content/` and `meta/` went to the top, where they replaced the other titles' and Cemu
/// saw none of them).
#[test]
fn title_folders_given_to_merge_and_update_stay_title_folders() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let base = d.path().join("base");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::rename(
        t.join("0005000010101a00_v0"),
        base.join("0005000010101a00_v0"),
    )
    .unwrap();
    let base_wua = d.path().join("base.wua");
    assert_eq!(code(&run!("pack", "-q", &base, "-o", &base_wua)), 0);
    let full = d.path().join("full.wua");
    // With the trailing slashes of the README.
    let update = format!("{}/", t.join("0005000E10101A00_v208").display());
    let dlc = format!("{}/", t.join("0005000c10101a00_v16").display());
    let o = run!("merge", "-o", &full, &base_wua, &update, &dlc);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is a title folder: merged as 0005000E10101A00_v208/"),
        "{}",
        stderr(&o)
    );
    let o = run!("list", &full);
    let top: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.trim_end_matches('/').matches('/').count() == 0)
        .map(str::to_owned)
        .collect();
    assert_eq!(
        top,
        [
            "0005000010101a00_v0/",
            "0005000c10101a00_v16/",
            "0005000E10101A00_v208/"
        ]
    );
    let o = run!("info", &full);
    assert!(stdout(&o).contains("titles:           3"), "{}", stdout(&o));
    // `update` with the example of its help, from inside the title folder too (`.`).
    let game = d.path().join("game.wua");
    std::fs::copy(&base_wua, &game).unwrap();
    let o = run!("update", "-q", &game, &update);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(t.join("0005000c10101a00_v16"))
        .args(["update", "-q"])
        .arg(&game)
        .arg(".")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run!("info", &game);
    assert!(stdout(&o).contains("titles:           3"), "{}", stdout(&o));
    assert_eq!(
        stdout(&run!(
            "cat",
            &game,
            "0005000c10101a00_v16/content/extra.bin"
        ))
        .as_bytes(),
        b"dlc"
    );
}

/// `merge -o -` writes the archive to standard output, as `pack -o -` does (it made a file
/// named `-`), with the bytes `pack` gives the same tree.
#[test]
fn merge_writes_to_standard_output_with_a_dash() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let packed = run!("pack", "-q", &t, "-o", "-");
    assert_eq!(code(&packed), 0, "{}", stderr(&packed));
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .current_dir(d.path())
        .args(["merge", "-q", "-o", "-"])
        .arg(&t)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!d.path().join("-").exists(), "a file named -");
    assert!(o.stdout == packed.stdout, "merge -o - gives pack's bytes");
}

/// Two `update`s of one archive at once: the second waits for the first and then updates
/// what the first wrote (each renamed its result over the archive, and one was lost while
/// both said they were done). Here the test holds the lock and replaces the archive, as
/// another update would, before it lets go.
#[test]
fn an_update_waits_for_another_and_updates_what_it_wrote() {
    use std::io::BufRead;
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("a.txt"), b"a").unwrap();
    let game = d.path().join("g.zar");
    assert_eq!(code(&run!("pack", "-q", &tree, "-o", &game)), 0);
    std::fs::write(tree.join("b.txt"), b"b, from the other update").unwrap();
    let other = d.path().join("other.zar");
    assert_eq!(code(&run!("pack", "-q", &tree, "-o", &other)), 0);
    let upd = d.path().join("upd");
    std::fs::create_dir_all(&upd).unwrap();
    std::fs::write(upd.join("u.txt"), b"u").unwrap();

    let held = std::fs::File::open(&game).unwrap();
    held.lock().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .arg("update")
        .arg(&game)
        .arg(&upd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let waiting = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l.contains("is being updated by another process; waiting"));
    assert!(waiting, "the update did not wait");
    std::fs::rename(&other, &game).unwrap();
    drop(held);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert!(status.success(), "{rest:?}");
    let listed = stdout(&run!("list", &game));
    assert_eq!(listed, "a.txt\nb.txt\nu.txt\n");
}

/// An update merged beside an older version of itself: both stay (each is its own folder),
/// and the command says so (it did not, and the old update's gigabytes stayed unseen).
#[test]
fn an_older_version_of_a_title_left_beside_a_newer_is_noted() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let game = d.path().join("game.wua");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &game)), 0);
    let newer = d.path().join("0005000e10101a00_v224");
    std::fs::create_dir_all(newer.join("code")).unwrap();
    std::fs::write(newer.join("code/app.xml"), b"<app/>").unwrap();
    let o = run!("update", &game, &newer);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("title 0005000e10101a00 is in the archive as v224 and as v208"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&run!("info", &game)).contains("titles:           4"));
}

/// A title whose meta.xml is damaged is said to be so (exit 3, the title named), where
/// `info` showed it with no name, as if it had none, and exited 0.
#[test]
fn info_says_when_a_titles_meta_xml_cannot_be_read() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let wua = d.path().join("game.wua");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &wua)), 0);
    let archive = zarkit::zar::Archive::open(&wua).unwrap();
    let entry = archive.get("0005000010101a00_v0/meta/meta.xml").unwrap();
    let (at, _) = archive.block_extent(entry.blocks().start).unwrap();
    drop(archive);
    let mut bytes = std::fs::read(&wua).unwrap();
    // The block's frame no longer starts with zstd's magic number.
    bytes[at as usize] ^= 0xff;
    std::fs::write(&wua, &bytes).unwrap();
    let o = run!("info", &wua);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("title 0005000010101a00_v0: 0005000010101a00_v0/meta/meta.xml"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("(meta/meta.xml cannot be read)"),
        "{}",
        stdout(&o)
    );
    let o = run!("info", "--json", &wua);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["titles"][0]["name_unreadable"].is_string(), "{v}");
}

/// `pack TITLE_FOLDER -o game.wua` warns that Cemu will find no title there (it packed the
/// title's contents at the top without a word); the archive is still the reference tool's.
#[test]
fn packing_a_title_folder_as_a_wua_is_warned_about() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let wua = d.path().join("game.wua");
    let o = run!("pack", t.join("0005000c10101a00_v16"), "-o", &wua);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is a title folder: packed as the archive"),
        "{}",
        stderr(&o)
    );
    let o = run!(
        "pack",
        t.join("0005000c10101a00_v16"),
        "-o",
        d.path().join("dlc.zar")
    );
    assert!(!stderr(&o).contains("title folder"), "{}", stderr(&o));
}

/// An archive whose update folder is misnamed for Cemu (`_V208`): `update` with the folder
/// rightly named gives it that name (the first spelling was kept, so the update stayed
/// invisible to Cemu and `info`). Elsewhere the first spelling is still kept.
#[test]
fn update_repairs_a_misnamed_title_folder() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad");
    std::fs::create_dir_all(bad.join("0005000E10101A00_V208/code")).unwrap();
    std::fs::write(bad.join("0005000E10101A00_V208/code/app.xml"), b"old").unwrap();
    std::fs::create_dir_all(bad.join("Other")).unwrap();
    let game = d.path().join("game.wua");
    assert_eq!(code(&run!("pack", "-q", &bad, "-o", &game)), 0);
    assert!(!stdout(&run!("info", &game)).contains("titles:"));
    let good = d.path().join("0005000e10101a00_v208");
    std::fs::create_dir_all(good.join("code")).unwrap();
    std::fs::write(good.join("code/app.xml"), b"new").unwrap();
    let other = d.path().join("wrap/other");
    std::fs::create_dir_all(&other).unwrap();
    let o = run!("update", "-q", &game, &good, d.path().join("wrap"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&run!("list", &game)),
        "0005000e10101a00_v208/\n0005000e10101a00_v208/code/\n0005000e10101a00_v208/code/app.xml\nOther/\n"
    );
    assert!(stdout(&run!("info", &game)).contains("0005000e10101a00 v208   update"));
}

/// A folder named like a title that holds title folders (a user's folder of titles named
/// after the game) is not itself put in as a title folder: its titles go at the top.
#[test]
fn a_folder_of_titles_named_like_a_title_is_not_nested() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let named = d.path().join("0005000010101a00_v0");
    std::fs::rename(&t, &named).unwrap();
    let out = d.path().join("all.wua");
    let o = run!("merge", "-o", &out, &named);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("is a title folder"), "{}", stderr(&o));
    assert!(stdout(&run!("info", &out)).contains("titles:           3"));
}

/// A `.wua` written with a dictionary, or updated keeping one, is warned about: Cemu reads
/// plain ZAR v1 only (nothing said that Cemu was among the readers that refuse it).
#[test]
fn a_wua_with_a_dictionary_is_warned_about() {
    let d = tempfile::tempdir().unwrap();
    let samples = d.path().join("samples");
    sample_files(&samples, 40);
    let dict = d.path().join("d.dict");
    let o = run!("train", &samples, "-o", &dict, "--maxdict", "2K");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let wua = d.path().join("game.wua");
    let o = run!("pack", "-q", &samples, "-o", &wua, "--dict", &dict);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("Cemu cannot open it"), "{}", stderr(&o));
    let o = run!("update", "-q", &wua, d.path().join("samples"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("Cemu cannot open it"), "{}", stderr(&o));
    let o = run!(
        "pack",
        "-q",
        &samples,
        "-o",
        d.path().join("game.zar"),
        "--dict",
        &dict
    );
    assert!(!stderr(&o).contains("Cemu"), "{}", stderr(&o));
    let plain = d.path().join("plain.wua");
    let o = run!("merge", "-q", "-o", &plain, &wua);
    assert!(!stderr(&o).contains("Cemu cannot"), "{}", stderr(&o));
}

/// A title lacking a file Cemu reads to list it (`code/app.xml`, `code/cos.xml`,
/// `meta/meta.xml`) is marked (it was listed as any other), in text and in JSON.
#[test]
fn info_marks_titles_cemu_does_not_list() {
    let d = tempfile::tempdir().unwrap();
    let t = wua_tree(d.path());
    let game = t.join("0005000010101a00_v0/code");
    std::fs::create_dir_all(&game).unwrap();
    std::fs::write(game.join("app.xml"), b"<app/>").unwrap();
    std::fs::write(game.join("cos.xml"), b"<app/>").unwrap();
    let wua = d.path().join("game.wua");
    assert_eq!(code(&run!("pack", "-q", &t, "-o", &wua)), 0);
    let out = stdout(&run!("info", &wua));
    let line = |id: &str| out.lines().find(|l| l.contains(id)).unwrap().to_string();
    assert!(
        line("0005000010101a00").ends_with("Super Game & Friends"),
        "{out}"
    );
    assert!(
        line("0005000e10101a00")
            .ends_with("(no code/cos.xml, no meta/meta.xml: Cemu does not list it)"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&run!("info", "--json", &wua).stdout).unwrap();
    assert_eq!(v["titles"][0]["missing"], serde_json::json!([]));
    assert_eq!(
        v["titles"][1]["missing"],
        serde_json::json!(["code/app.xml", "code/cos.xml", "meta/meta.xml"])
    );
}
