//! Directories on disk reached by handle, so a tree's depth is never limited by the
//! system's path length (`PATH_MAX`, 4096 bytes on Linux).
//!
//! On Unix a [`DirHandle`] holds an open directory descriptor and every operation on an
//! entry is relative to it (`openat`, `fstatat`, `mkdirat`, `renameat`, `linkat`,
//! `unlinkat`, through the `rustix` crate): a path of any length is opened in pieces shorter
//! than the limit. Elsewhere it holds the path and uses the ordinary path functions.
//! Packing walks the tree with it; extraction creates directories and files with it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// What an entry of a directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link (only when links are not followed).
    Symlink,
    /// A fifo, socket or device.
    Other,
}

/// The metadata of a directory entry that packing and extraction need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Meta {
    /// What it is.
    pub kind: Kind,
    /// Its size in bytes (files).
    pub size: u64,
    /// Device and inode, where the system has them: identifies directories on a followed
    /// path (loops) and files not to pack (the archive being written).
    pub id: Option<(u64, u64)>,
}

/// The metadata of `path` itself, following links; `None` if it does not exist.
pub(crate) fn identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// An open directory.
#[derive(Debug)]
pub(crate) struct DirHandle {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

/// Longest piece of a path opened in one call; far below `PATH_MAX`.
#[cfg(unix)]
const PIECE: usize = 1024;

impl DirHandle {
    /// Open the directory at `path`, however long the path is (symbolic links in it are
    /// followed, as the ordinary path functions do).
    pub(crate) fn open(path: &Path) -> io::Result<DirHandle> {
        #[cfg(unix)]
        {
            use rustix::fs::{CWD, Mode, OFlags, openat};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let mut fd: Option<std::os::fd::OwnedFd> = None;
            let mut piece = PathBuf::new();
            let open = |fd: &Option<std::os::fd::OwnedFd>, p: &Path| match fd {
                Some(d) => openat(d, p, flags, Mode::empty()),
                None => openat(CWD, p, flags, Mode::empty()),
            };
            for c in path.components() {
                let c = c.as_os_str();
                if !piece.as_os_str().is_empty() && piece.as_os_str().len() + c.len() + 1 > PIECE {
                    fd = Some(open(&fd, &piece)?);
                    piece = PathBuf::new();
                }
                piece.push(c);
            }
            if piece.as_os_str().is_empty() {
                piece.push(".");
            }
            let fd = open(&fd, &piece)?;
            Ok(DirHandle {
                path: path.to_path_buf(),
                fd,
            })
        }
        #[cfg(not(unix))]
        {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(DirHandle {
                path: path.to_path_buf(),
            })
        }
    }

    /// The directory's path (for messages; operations never go through it on Unix).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Open the subdirectory `name`. Without `follow`, a symbolic link named `name` is
    /// refused rather than followed.
    pub(crate) fn open_dir(&self, name: &OsStr, follow: bool) -> io::Result<DirHandle> {
        let path = self.path.join(name);
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags, openat};
            let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            if !follow {
                flags |= OFlags::NOFOLLOW;
            }
            let fd = openat(&self.fd, name, flags, Mode::empty())?;
            Ok(DirHandle { path, fd })
        }
        #[cfg(not(unix))]
        {
            let m = if follow {
                std::fs::metadata(&path)?
            } else {
                std::fs::symlink_metadata(&path)?
            };
            if !m.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(DirHandle { path })
        }
    }

    /// The directory above this one (`..`), which must be the directory `id` (device and
    /// inode) at `path`: a walk that closed its handle to save descriptors opens it again
    /// this way. Fails if `..` is another directory (this one was moved meanwhile).
    #[cfg(unix)]
    pub(crate) fn reopen_parent(&self, path: PathBuf, id: (u64, u64)) -> io::Result<DirHandle> {
        use rustix::fs::{Mode, OFlags, fstat, openat};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let fd = openat(&self.fd, "..", flags, Mode::empty())?;
        let st = fstat(&fd)?;
        if (st.st_dev as u64, st.st_ino as u64) != id {
            return Err(io::Error::other(
                "it was moved out of that directory while it was being read",
            ));
        }
        Ok(DirHandle { path, fd })
    }

    /// The names in the directory (without `.` and `..`), in no particular order.
    pub(crate) fn names(&self) -> io::Result<Vec<OsString>> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let mut out = Vec::new();
            for entry in rustix::fs::Dir::read_from(&self.fd)? {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    out.push(OsStr::from_bytes(name).to_os_string());
                }
            }
            Ok(out)
        }
        #[cfg(not(unix))]
        {
            std::fs::read_dir(&self.path)?
                .map(|e| e.map(|e| e.file_name()))
                .collect()
        }
    }

    /// The metadata of entry `name`; with `follow`, of what a symbolic link points to.
    pub(crate) fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Meta> {
        #[cfg(unix)]
        {
            use rustix::fs::{AtFlags, FileType, statat};
            let flags = if follow {
                AtFlags::empty()
            } else {
                AtFlags::SYMLINK_NOFOLLOW
            };
            let st = statat(&self.fd, name, flags)?;
            let kind = match FileType::from_raw_mode(st.st_mode as _) {
                FileType::Directory => Kind::Dir,
                FileType::RegularFile => Kind::File,
                FileType::Symlink => Kind::Symlink,
                _ => Kind::Other,
            };
            Ok(Meta {
                kind,
                size: st.st_size as u64,
                id: Some((st.st_dev as u64, st.st_ino as u64)),
            })
        }
        #[cfg(not(unix))]
        {
            let path = self.path.join(name);
            let m = if follow {
                std::fs::metadata(&path)?
            } else {
                std::fs::symlink_metadata(&path)?
            };
            let ft = m.file_type();
            let kind = if ft.is_dir() {
                Kind::Dir
            } else if ft.is_file() {
                Kind::File
            } else if ft.is_symlink() {
                Kind::Symlink
            } else {
                Kind::Other
            };
            Ok(Meta {
                kind,
                size: m.len(),
                id: None,
            })
        }
    }

    /// Open file `name` for reading (following a symbolic link only with `follow`). A FIFO
    /// put there is opened without waiting for a writer (`O_NONBLOCK`), so that the
    /// caller's check of what it opened ([`Stamp::of`]) can refuse it; a regular file is
    /// then read with blocking reads as usual. A file under a lease (a Samba oplock, an NFS
    /// delegation), whose non-blocking open fails with `EAGAIN`, is opened again waiting
    /// for the lease, as a plain open does.
    pub(crate) fn open_file(&self, name: &OsStr, follow: bool) -> io::Result<(File, Stamp)> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags, fcntl_setfl, openat};
            let mut flags = OFlags::RDONLY | OFlags::CLOEXEC;
            if !follow {
                flags |= OFlags::NOFOLLOW;
            }
            let fd = match openat(&self.fd, name, flags | OFlags::NONBLOCK, Mode::empty()) {
                Err(rustix::io::Errno::AGAIN) => openat(&self.fd, name, flags, Mode::empty())?,
                Err(e) => return Err(e.into()),
                Ok(fd) => fd,
            };
            let stamp = Stamp::of_fd(&fd)?;
            if stamp.regular {
                // The only status flag set above (access mode and `O_CLOEXEC` are not
                // status flags): no need to read them first.
                fcntl_setfl(&fd, OFlags::empty())?;
            }
            Ok((File::from(fd), stamp))
        }
        #[cfg(not(unix))]
        {
            let _ = follow;
            let file = File::open(self.path.join(name))?;
            let stamp = Stamp::of(&file)?;
            Ok((file, stamp))
        }
    }

    /// Whether the permissions let this process read the file `name` (a regular file, or
    /// a link to one), asked without opening it (`faccessat` with the effective IDs): the
    /// walk finds every unreadable file before anything is compressed. Only a refusal
    /// (`EACCES`) is an error; anything else is left to the open.
    pub(crate) fn check_readable(&self, name: &OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            use rustix::fs::{Access, AtFlags, accessat};
            match accessat(&self.fd, name, Access::READ_OK, AtFlags::EACCESS) {
                Err(rustix::io::Errno::ACCESS) => Err(rustix::io::Errno::ACCESS.into()),
                _ => Ok(()),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = name;
            Ok(())
        }
    }

    /// Create the subdirectory `name` (mode 0777 less the umask).
    pub(crate) fn create_dir(&self, name: &OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::mkdirat(&self.fd, name, rustix::fs::Mode::from_bits_truncate(0o777))?;
            Ok(())
        }
        #[cfg(not(unix))]
        {
            std::fs::create_dir(self.path.join(name))
        }
    }

    /// Create the new file `name` in this directory (failing if the name exists), written
    /// under its final name: for a directory no one else writes to (one this extraction
    /// made), where no existing file needs keeping whole until the new one is. It is
    /// removed when dropped unless [`TempFile::commit`] is called, and listed for
    /// `remove_partial_files` until then.
    pub(crate) fn new_file(&self, name: &OsStr) -> io::Result<TempFile<'_>> {
        let _gate = super::atomic::partial_gate();
        let file = self.create_new(name)?;
        Ok(TempFile {
            dir: self,
            name: name.to_os_string(),
            file: Some(file),
            _partial: super::atomic::PartialFile::new(&self.path.join(name)),
            in_place: true,
        })
    }

    /// Create a new, empty temporary file in this directory, named `PREFIX<random>.partial`,
    /// with the ordinary mode for new files (0666 less the umask). It is removed when
    /// dropped unless [`TempFile::commit`] moved it into place.
    pub(crate) fn temp_file(&self, prefix: &str) -> io::Result<TempFile<'_>> {
        use std::hash::{BuildHasher, Hasher};
        let mut last = None;
        for _ in 0..16 {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u32(process_id());
            let name = OsString::from(format!("{prefix}{:016x}.partial", h.finish()));
            let _gate = super::atomic::partial_gate();
            match self.create_new(&name) {
                Ok(file) => {
                    let partial = super::atomic::PartialFile::new(&self.path.join(&name));
                    return Ok(TempFile {
                        dir: self,
                        name,
                        file: Some(file),
                        _partial: partial,
                        in_place: false,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free temporary file name")))
    }

    fn create_new(&self, name: &OsStr) -> io::Result<File> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags, openat};
            let flags =
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let fd = openat(&self.fd, name, flags, Mode::from_bits_truncate(0o666))?;
            Ok(File::from(fd))
        }
        #[cfg(not(unix))]
        {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
        }
    }

    fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::renameat(&self.fd, from, &self.fd, to)?;
            Ok(())
        }
        #[cfg(not(unix))]
        {
            std::fs::rename(self.path.join(from), self.path.join(to))
        }
    }

    /// Rename `from` to `to` unless `to` exists ([`io::ErrorKind::AlreadyExists`]), in
    /// one step where the system has it (`renameat2` with `RENAME_NOREPLACE`); `None`
    /// where it has not (another system, or a file system that refuses the flag).
    fn rename_no_replace(&self, from: &OsStr, to: &OsStr) -> Option<io::Result<()>> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use rustix::fs::{RenameFlags, renameat_with};
            match renameat_with(&self.fd, from, &self.fd, to, RenameFlags::NOREPLACE) {
                Ok(()) => Some(Ok(())),
                Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => None,
                Err(e) => Some(Err(e.into())),
            }
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        {
            let _ = (from, to);
            None
        }
    }

    fn link(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::linkat(&self.fd, from, &self.fd, to, rustix::fs::AtFlags::empty())?;
            Ok(())
        }
        #[cfg(not(unix))]
        {
            std::fs::hard_link(self.path.join(from), self.path.join(to))
        }
    }

    fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        #[cfg(unix)]
        {
            rustix::fs::unlinkat(&self.fd, name, rustix::fs::AtFlags::empty())?;
            Ok(())
        }
        #[cfg(not(unix))]
        {
            std::fs::remove_file(self.path.join(name))
        }
    }
}

/// This process's ID, asked of the system once (every temporary name carries it).
fn process_id() -> u32 {
    static ID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ID.get_or_init(std::process::id)
}

/// A file being written in a [`DirHandle`]'s directory, under a temporary name or (from
/// [`DirHandle::new_file`]) its final one; removed on drop unless committed.
#[derive(Debug)]
pub(crate) struct TempFile<'a> {
    dir: &'a DirHandle,
    name: OsString,
    file: Option<File>,
    /// Listed for `remove_partial_files` until dropped (after the rename or the removal).
    _partial: super::atomic::PartialFile,
    /// Written under its final name: committing only keeps it.
    in_place: bool,
}

impl TempFile<'_> {
    /// The file, open for writing.
    pub(crate) fn file(&mut self) -> &File {
        self.file.as_ref().expect("open until commit")
    }

    /// Close the file and give it the name `target` in the same directory. Without
    /// `overwrite`, an existing `target` is never replaced (a rename that refuses to
    /// replace; where the system has none, a hard link, which fails if the name exists,
    /// then the temporary name removed; where the file system has no hard links either, a
    /// check then a rename) and the error is [`io::ErrorKind::AlreadyExists`]. A file
    /// written under its final name (`target`) is kept as it is.
    pub(crate) fn commit(mut self, target: &OsStr, overwrite: bool) -> io::Result<()> {
        drop(self.file.take());
        if self.in_place {
            debug_assert_eq!(self.name, target);
            self.name.clear();
            return Ok(());
        }
        let moved = if overwrite {
            self.dir.rename(&self.name, target)
        } else if let Some(r) = self.dir.rename_no_replace(&self.name, target) {
            if r.is_ok() {
                self.name.clear();
            }
            r
        } else {
            match self.dir.link(&self.name, target) {
                // Linked under its final name: the temporary name is dropped below.
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
                Err(_) => match self.dir.stat(target, false) {
                    Ok(_) => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
                    Err(_) => self.dir.rename(&self.name, target).map(|()| {
                        self.name.clear();
                    }),
                },
            }
        };
        if moved.is_ok() && overwrite {
            self.name.clear();
        }
        moved
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.name.is_empty() {
            let _ = self.dir.remove_file(&self.name);
        }
    }
}

/// What `fstat` says of an open file that changes when its content changes (its size and
/// modification time, which `tar` compares too), and whether it is a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// Whether it is a regular file.
    pub regular: bool,
    /// Its size in bytes.
    pub size: u64,
    modified: Option<std::time::SystemTime>,
}

impl Stamp {
    /// The stamp of the open file `f`.
    pub(crate) fn of(f: &File) -> io::Result<Stamp> {
        #[cfg(unix)]
        {
            Stamp::of_fd(f)
        }
        #[cfg(not(unix))]
        {
            let m = f.metadata()?;
            Ok(Stamp {
                regular: m.is_file(),
                size: m.len(),
                modified: m.modified().ok(),
            })
        }
    }

    /// The stamp of the open file `fd` (one `fstat`).
    #[cfg(unix)]
    fn of_fd(fd: impl std::os::fd::AsFd) -> io::Result<Stamp> {
        let st = rustix::fs::fstat(fd)?;
        let modified = u64::try_from(st.st_mtime).ok().map(|secs| {
            std::time::UNIX_EPOCH + std::time::Duration::new(secs, st.st_mtime_nsec as u32)
        });
        Ok(Stamp {
            regular: rustix::fs::FileType::from_raw_mode(st.st_mode as _)
                == rustix::fs::FileType::RegularFile,
            size: st.st_size as u64,
            modified,
        })
    }
}

/// The directory the last file was opened in by [`open_file`], kept open for the next file
/// of the same directory (the walk lists a directory's files together): one open a
/// directory, where each file opened every component of its path again (a pack of 50,000
/// small files made 150,000 opens). Keyed by the parent's path and how it was opened. A
/// directory swapped for a link after its first file was opened is not looked at again:
/// its files are read from the directory the walk saw, as `tar` reads them.
#[derive(Default)]
pub(crate) struct LastDir(Option<(PathBuf, bool, usize, DirHandle)>);

/// Open the file at `path` for reading, however long the path is, with its [`Stamp`]. Its
/// last `inside` components lie inside the tree being packed: without `follow`, none of
/// them is followed as a symbolic link (a directory swapped for a link to outside the tree
/// after the walk is refused, where the path functions would follow it), as `tar` opens
/// each file relative to the directory it walks. The components before them (the tree's
/// own path) are followed. The parent directory is kept in `last` for the next file.
pub(crate) fn open_file(
    path: &Path,
    follow: bool,
    inside: usize,
    last: &mut LastDir,
) -> io::Result<(File, Stamp)> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        let file = File::open(path)?;
        let stamp = Stamp::of(&file)?;
        return Ok((file, stamp));
    };
    if let Some((p, f, i, dir)) = &last.0
        && (p.as_path(), *f, *i) == (parent, follow, inside)
    {
        return dir.open_file(name, follow);
    }
    last.0 = None;
    let parts: Vec<&OsStr> = parent.components().map(|c| c.as_os_str()).collect();
    let within = inside.saturating_sub(1).min(parts.len());
    let root: PathBuf = parts[..parts.len() - within].iter().collect();
    let root = if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    };
    let mut dir = DirHandle::open(&root)?;
    for part in &parts[parts.len() - within..] {
        dir = dir.open_dir(part, follow)?;
    }
    let opened = dir.open_file(name, follow);
    last.0 = Some((parent.to_path_buf(), follow, inside, dir));
    opened
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The names in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Files of one directory are opened through the directory kept from the first (no
    /// walk down from the tree's root for each): a directory swapped for a link to
    /// outside the tree after that is not followed, its files are read from the directory
    /// the walk saw; a file of another directory opens that directory, and the swap is
    /// refused there.
    #[cfg(unix)]
    #[test]
    fn files_of_one_directory_are_opened_through_the_directory_kept() {
        use std::io::Read;
        let tmp = tempfile::tempdir().unwrap();
        let tree = tmp.path().join("tree");
        for d in ["tree/d", "tree/e", "outside"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        for (f, text) in [
            ("tree/d/a", "a"),
            ("tree/d/b", "b"),
            ("tree/e/c", "c"),
            ("outside/b", "B"),
            ("outside/c", "C"),
        ] {
            std::fs::write(tmp.path().join(f), text).unwrap();
        }
        let read = |path: &Path, last: &mut LastDir| {
            let (mut f, stamp) = open_file(path, false, 2, last)?;
            let mut text = String::new();
            f.read_to_string(&mut text).unwrap();
            assert!(stamp.regular);
            assert_eq!(stamp.size, text.len() as u64);
            io::Result::Ok(text)
        };
        let mut last = LastDir::default();
        assert_eq!(read(&tree.join("d/a"), &mut last).unwrap(), "a");
        let swap = |name: &str| {
            std::fs::rename(tree.join(name), tmp.path().join(format!("{name}.old"))).unwrap();
            std::os::unix::fs::symlink(tmp.path().join("outside"), tree.join(name)).unwrap();
        };
        swap("d");
        assert_eq!(read(&tree.join("d/b"), &mut last).unwrap(), "b");
        swap("e");
        let err = read(&tree.join("e/c"), &mut last).unwrap_err();
        assert!(
            err.kind() == io::ErrorKind::NotADirectory
                || err.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()),
            "{err}"
        );
    }

    #[test]
    fn commit_without_overwrite_never_replaces_and_leaves_no_temporary_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DirHandle::open(tmp.path()).unwrap();
        std::fs::write(tmp.path().join("a"), b"old").unwrap();
        // A name taken after the caller's check: the commit itself refuses it.
        let mut t = dir.temp_file(".t.").unwrap();
        t.file().write_all(b"new").unwrap();
        let err = t.commit(OsStr::new("a"), false).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(tmp.path().join("a")).unwrap(), b"old");
        assert_eq!(listing(tmp.path()), ["a"]);
        // A free name: moved into place, nothing else left.
        let mut t = dir.temp_file(".t.").unwrap();
        t.file().write_all(b"new").unwrap();
        t.commit(OsStr::new("b"), false).unwrap();
        assert_eq!(std::fs::read(tmp.path().join("b")).unwrap(), b"new");
        assert_eq!(listing(tmp.path()), ["a", "b"]);
        // With overwrite, the old file is replaced.
        let mut t = dir.temp_file(".t.").unwrap();
        t.file().write_all(b"newer").unwrap();
        t.commit(OsStr::new("a"), true).unwrap();
        assert_eq!(std::fs::read(tmp.path().join("a")).unwrap(), b"newer");
        assert_eq!(listing(tmp.path()), ["a", "b"]);
    }
}
