//! What the CLI test files share: running the binary and reading its results.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run `zarchive` with `args`.
pub fn zarchive(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(args)
        .output()
        .unwrap()
}

/// `run!(a, b, ...)`: run `zarchive` with arguments of any `AsRef<OsStr>` type.
#[macro_export]
macro_rules! run {
    ($($a:expr),* $(,)?) => { common::zarchive(&[$(std::ffi::OsStr::new(&$a)),*]) };
}

/// The exit code.
pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A ZAR fixture of the test crate.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/zar")
        .join(rel)
}

/// Copy a directory tree.
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
