//! What `.wua` users ask for: titles at a glance.

use std::path::Path;
use std::process::{Command, Output};

fn zarchive(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(args)
        .output()
        .unwrap()
}

macro_rules! run {
    ($($a:expr),* $(,)?) => { zarchive(&[$(std::ffi::OsStr::new(&$a)),*]) };
}

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
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));

    let o = run!("info", wua);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("titles:           3"), "{out}");
    assert!(out.contains("0005000010101a00 v0     game    Super Game & Friends"), "{out}");
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
    assert_eq!(run!("pack", "-q", t.join("not_a_title"), "-o", plain).status.code(), Some(0));
    let out = String::from_utf8_lossy(&run!("info", plain).stdout).into_owned();
    assert!(!out.contains("titles"), "{out}");
}
