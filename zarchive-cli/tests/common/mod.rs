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

/// Run `cmd` with its standard output read for 16 bytes, then closed, as `| head -c 16`
/// closes it; its output (standard error and status) once it ends.
pub fn run_into_closed_pipe(cmd: &mut Command) -> Output {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// Make a FIFO at `path` (with the system's `mkfifo`: the tests use no `unsafe`).
#[cfg(unix)]
pub fn make_fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Send SIGINT (Ctrl-C) to `child`.
#[cfg(unix)]
pub fn send_sigint(child: &std::process::Child) {
    let sent = Command::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success(), "kill -INT {}", child.id());
}

/// Send the signal named `name` (`TERM`, `HUP`, ...) to `child`.
#[cfg(unix)]
pub fn send_signal(child: &std::process::Child, name: &str) {
    let sent = Command::new("kill")
        .arg("-s")
        .arg(name)
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success(), "kill -s {name} {}", child.id());
}

/// Whether the signal numbered `signal` is ignored in this process, and so in the programs
/// the tests start (`nohup cargo test`, a script's `cargo test &`): `zarchive` then leaves
/// it ignored, and a test that sends it would wait for ever. Read from `/proc/self/status`
/// (Linux); elsewhere `false`.
pub fn signal_ignored(signal: u32) -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// Whether the tests run as root (who reads every file whatever its mode).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// `zarchive` as a user whom file modes bind: as root, run as `nobody` (`setpriv`);
/// otherwise as the tests' own user.
pub fn unprivileged() -> Command {
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_zarchive"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_zarchive"))
    }
}

/// Text files sharing a vocabulary, as sample files for training.
pub fn sample_files(dir: &std::path::Path, n: usize) {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let words = [
        "archive", "block", "entry", "frame", "window", "offset", "literal", "sequence", "table",
        "record", "name", "value", "count", "index", "header", "footer",
    ];
    let mut x: u32 = 12345;
    for i in 0..n {
        let mut text = format!("{{\"id\": {i}, \"kind\": \"sample\", \"words\": \"");
        for _ in 0..(200 + (i * 37) % 900) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            text.push_str(words[(x >> 16) as usize % words.len()]);
            text.push(' ');
        }
        text.push_str("\"}\n");
        let at = if i % 3 == 0 {
            dir.join("sub")
        } else {
            dir.to_path_buf()
        };
        std::fs::write(at.join(format!("f{i:03}.json")), text).unwrap();
    }
    // Empty files are skipped, as `zstd --train` skips them.
    std::fs::write(dir.join("empty"), b"").unwrap();
}

/// A ZAR fixture of the test crate.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/zar")
        .join(rel)
}

#[allow(unused_imports)]
pub use zarkit_tests::copy_tree;

/// Wait for `child`, polling its peak resident size (VmHWM, in KiB) until it ends.
#[allow(dead_code)]
pub fn wait_with_peak_rss(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:"))
        {
            let kib: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            peak_kib = peak_kib.max(kib);
        }
        if let Some(exit) = child.try_wait().unwrap() {
            return (exit, peak_kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
