//! `zarchive mount`: the sample archive mounted read-only equals its source tree (`diff -r`),
//! and Ctrl-C unmounts it. Runs where FUSE is usable; elsewhere it says why it did not run.
#![cfg(all(feature = "mount", target_os = "linux"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A running `zarchive mount`, unmounted however the test ends: a failed assertion (a
/// panic) between the mount and the test's own Ctrl-C would otherwise leave the file system
/// mounted and the temporary directory behind it impossible to remove.
struct Mount {
    child: Option<Child>,
    dir: PathBuf,
}

impl Mount {
    fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("the mount is running")
    }

    /// Ctrl-C: SIGINT to the mounting process, which unmounts and exits; its output.
    fn interrupt(&mut self) -> Output {
        let child = self.child.take().expect("the mount is running");
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        child.wait_with_output().unwrap()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let start = Instant::now();
        while matches!(child.try_wait(), Ok(None)) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        if matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
            let _ = child.wait();
            for tool in ["fusermount3", "fusermount"] {
                let unmounted = Command::new(tool)
                    .arg("-u")
                    .arg(&self.dir)
                    .stderr(Stdio::null())
                    .status();
                if unmounted.is_ok_and(|s| s.success()) {
                    break;
                }
            }
        }
    }
}

/// `tree` packed into `dir/sample.zar`.
fn packed(tree: &Path, dir: &Path) -> std::path::PathBuf {
    let archive = dir.join("sample.zar");
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .args(["pack", "-q"])
        .arg(tree)
        .arg("-o")
        .arg(&archive)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    archive
}

/// The sample tree, packed into a temporary directory (kept while the first value lives),
/// and an empty mount point beside it: (that directory, the tree, the archive, the mount
/// point).
fn sample_and_mount_point() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/sample-tree");
    let d = tempfile::tempdir().unwrap();
    let archive = packed(&tree, d.path());
    let mnt = d.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    (d, tree, archive, mnt)
}

/// `archive` mounted on `mnt` (an empty directory), once its entries show; `None`, saying
/// why, where FUSE is not usable.
fn mounted(archive: &Path, mnt: &Path) -> Option<Mount> {
    if !Path::new("/dev/fuse").exists() {
        eprintln!("mount test did not run: /dev/fuse does not exist on this machine");
        return None;
    }
    if common::signal_ignored(2) {
        eprintln!("mount test did not run: SIGINT, which unmounts, is ignored in this test run");
        return None;
    }
    let mut mount = Mount {
        child: Some(
            Command::new(env!("CARGO_BIN_EXE_zarchive"))
                .arg("mount")
                .arg(archive)
                .arg(mnt)
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        ),
        dir: mnt.to_path_buf(),
    };
    let start = Instant::now();
    loop {
        if std::fs::read_dir(mnt).map(|r| r.count()).unwrap_or(0) > 0 {
            return Some(mount);
        }
        if let Some(status) = mount.child().try_wait().unwrap() {
            let out = mount.child.take().unwrap().wait_with_output().unwrap();
            eprintln!(
                "mount test did not run: FUSE is not usable here ({status}): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        // The guard unmounts whatever showed.
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the mount never showed the archive's entries"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_mounted_sample_archive_equals_its_tree_and_ctrl_c_unmounts_it() {
    let (_d, tree, archive, mnt) = sample_and_mount_point();
    let Some(mut mount) = mounted(&archive, &mnt) else {
        return;
    };
    let diff = Command::new("diff")
        .arg("-r")
        .arg(&tree)
        .arg(&mnt)
        .output()
        .unwrap();
    // Entries show the archive's own modification time (they were all at 1970).
    let entry_time = {
        let first = std::fs::read_dir(&mnt).unwrap().next().unwrap().unwrap();
        first.metadata().unwrap().modified().unwrap()
    };
    // Ctrl-C unmounts and exits 0.
    let out = mount.interrupt();
    assert!(
        diff.status.success(),
        "diff -r: {}{}",
        String::from_utf8_lossy(&diff.stdout),
        String::from_utf8_lossy(&diff.stderr)
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unmounted"));
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0, "unmounted");
    assert_eq!(
        entry_time,
        std::fs::metadata(&archive).unwrap().modified().unwrap()
    );
}

/// A directory that is not empty is refused before anything is mounted: its files would be
/// hidden while the archive is mounted (before, it was mounted over).
#[test]
fn a_directory_that_is_not_empty_is_refused() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/sample-tree");
    let d = tempfile::tempdir().unwrap();
    let archive = packed(&tree, d.path());
    let mnt = d.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    std::fs::write(mnt.join("mine.txt"), b"kept").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zarchive"))
        .arg("mount")
        .arg(&archive)
        .arg(&mnt)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not empty"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(mnt.join("mine.txt")).unwrap(), b"kept");
}

/// Found by a hostile session: Ctrl-C while a file of the mount was open printed
/// "Unmounted" and exited 0, leaving a dead mount ("Transport endpoint is not connected").
/// The mount now stays and is served, and says why; a second Ctrl-C after the file is
/// closed unmounts it.
#[test]
fn ctrl_c_on_a_busy_mount_keeps_it_mounted_and_served() {
    if !common::is_root() {
        // Without root the unmount goes through `fusermount3`, which gives up the session.
        eprintln!("mount test did not run: it needs root (the unmount system call)");
        return;
    }
    let (_d, tree, archive, mnt) = sample_and_mount_point();
    let Some(mut mount) = mounted(&archive, &mnt) else {
        return;
    };
    let first = std::fs::read_dir(&mnt)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_file())
        .expect("a file at the top of the sample tree");
    let open = std::fs::File::open(&first).unwrap();
    let _ = Command::new("kill")
        .args(["-INT", &mount.child().id().to_string()])
        .status();
    std::thread::sleep(Duration::from_millis(1000));
    assert!(
        mount.child().try_wait().unwrap().is_none(),
        "the mount ended with a file open in it"
    );
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &open, &mut bytes).unwrap();
    let name = first.file_name().unwrap();
    assert_eq!(
        bytes,
        std::fs::read(tree.join(name)).unwrap(),
        "still served"
    );
    drop(open);
    let out = mount.interrupt();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("is busy"), "{err}");
    assert!(err.contains("Unmounted"), "{err}");
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0, "unmounted");
}
