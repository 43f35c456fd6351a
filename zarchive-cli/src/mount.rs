//! `zarchive mount`: an archive as a read-only file system (FUSE), so its contents can be
//! browsed with any program. Inode `n + 1` is the archive's entry with node index `n` (the
//! root, node 0, is FUSE's inode 1); reads go through the archive's block cache.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use clap::Args;
use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, Generation, INodeNo, LockOwner, MountOption,
    OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEntry, Request,
};
use zarkit::zar::names::display_path;
use zarkit::zar::{Archive, Entry, EntryId, EntryKind};

use crate::output::open_archive;
use crate::{EXIT_FAILURE, Failure, fail};

/// How long the kernel may cache names and attributes: the archive never changes.
const TTL: Duration = Duration::from_secs(3600);

/// Arguments of `zarchive mount`.
#[derive(Args, Debug)]
#[command(
    after_help = "The archive is mounted read-only until Ctrl-C (or `umount DIR`). \
Needs FUSE: /dev/fuse, and either root or the fusermount3 helper."
)]
pub struct MountArgs {
    /// The archive.
    archive: PathBuf,
    /// An existing, empty directory to mount it on.
    dir: PathBuf,
    /// Let other users see the mount (needs `user_allow_other` in /etc/fuse.conf).
    #[arg(long)]
    allow_other: bool,
}

/// The file system: an open archive, shared by the FUSE worker threads.
struct ArchiveFs {
    archive: Arc<Archive>,
    uid: u32,
    gid: u32,
    /// Every entry's times: the archive file's modification time (entries have none of
    /// their own), as fuse-zip and squashfuse show them, not 1970.
    time: SystemTime,
}

impl ArchiveFs {
    fn entry(&self, ino: INodeNo) -> Result<Entry<'_>, Errno> {
        let index = u64::from(ino)
            .checked_sub(1)
            .and_then(|i| u32::try_from(i).ok())
            .ok_or(Errno::ENOENT)?;
        self.archive
            .entry(EntryId::from_index(index))
            .map_err(|_| Errno::ENOENT)
    }

    fn attr(&self, e: &Entry<'_>) -> FileAttr {
        let (kind, perm, size, nlink) = match e.kind() {
            EntryKind::Dir => (FileType::Directory, 0o555, 0, 2),
            EntryKind::File { size, .. } => (FileType::RegularFile, 0o444, size, 1),
        };
        FileAttr {
            ino: ino_of(e),
            size,
            blocks: size.div_ceil(512),
            atime: self.time,
            mtime: self.time,
            ctime: self.time,
            crtime: self.time,
            kind,
            perm,
            nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: 65536,
            flags: 0,
        }
    }
}

fn ino_of(e: &Entry<'_>) -> INodeNo {
    INodeNo(u64::from(e.id().index()) + 1)
}

fn name_bytes(name: &OsStr) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes()
}

impl Filesystem for ArchiveFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.entry(parent).map(|p| p.child(name_bytes(name))) {
            Ok(Some(e)) => reply.entry(&TTL, &self.attr(&e), Generation(0)),
            Ok(None) => reply.error(Errno::ENOENT),
            Err(e) => reply.error(e),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.entry(ino) {
            Ok(e) => reply.attr(&TTL, &self.attr(&e)),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let e = match self.entry(ino) {
            Ok(e) if e.is_file() => e,
            Ok(_) => return reply.error(Errno::EISDIR),
            Err(e) => return reply.error(e),
        };
        let len = e.size().saturating_sub(offset).min(u64::from(size));
        let mut buf = vec![0u8; len as usize];
        match e.read_at(offset, &mut buf) {
            Ok(()) => reply.data(&buf),
            // A damaged block: the reader sees an I/O error, never wrong bytes.
            Err(err) => {
                eprintln!("zarchive: mount: {}: {err}", e.path_display());
                reply.error(Errno::EIO)
            }
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let dir = match self.entry(ino) {
            Ok(d) if d.is_dir() => d,
            Ok(_) => return reply.error(Errno::ENOTDIR),
            Err(e) => return reply.error(e),
        };
        let dots = [
            (ino, FileType::Directory, OsStr::new(".")),
            (ino_of(&dir.parent()), FileType::Directory, OsStr::new("..")),
        ];
        let children = dir.children().map(|c| {
            let kind = if c.is_dir() {
                FileType::Directory
            } else {
                FileType::RegularFile
            };
            (ino_of(&c), kind, os_name(c.name()))
        });
        for (i, (child_ino, kind, name)) in dots
            .into_iter()
            .chain(children)
            .enumerate()
            .skip(offset as usize)
        {
            if reply.add(child_ino, i as u64 + 1, kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

fn os_name(name: &[u8]) -> &OsStr {
    use std::os::unix::ffi::OsStrExt;
    OsStr::from_bytes(name)
}

/// Run `zarchive mount`: serve until Ctrl-C, then unmount.
pub fn run(a: MountArgs) -> Result<(), Failure> {
    let archive = Arc::new(open_archive(&a.archive)?);
    if !a.dir.is_dir() {
        return Err(fail(
            EXIT_FAILURE,
            format!("{}: not a directory to mount on", display_path(&a.dir)),
        ));
    }
    // Mounted over, its files would be hidden until the archive is unmounted.
    let empty = std::fs::read_dir(&a.dir)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(&a.dir))))?
        .next()
        .is_none();
    if !empty {
        return Err(fail(
            EXIT_FAILURE,
            format!(
                "{}: not empty: its files would be hidden while the archive is mounted; mount on an empty directory",
                display_path(&a.dir)
            ),
        ));
    }
    let meta = std::fs::metadata(&a.dir)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(&a.dir))))?;
    let time = std::fs::metadata(&a.archive)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| SystemTime::now());
    let fs = ArchiveFs {
        archive,
        uid: std::os::unix::fs::MetadataExt::uid(&meta),
        gid: std::os::unix::fs::MetadataExt::gid(&meta),
        time,
    };
    let mut config = fuser::Config::default();
    config.mount_options = vec![
        MountOption::RO,
        MountOption::FSName(a.archive.to_string_lossy().into_owned()),
        MountOption::Subtype("zarchive".into()),
        MountOption::NoDev,
        MountOption::NoSuid,
    ];
    if a.allow_other {
        config.acl = fuser::SessionACL::All;
    }
    // Caught before the mount appears: a Ctrl-C between the two ended the process and left
    // a dead mount (a test that interrupted a loaded machine's fresh mount saw it).
    let (tx, rx) = std::sync::mpsc::channel();
    let mut signals = signal_hook::iterator::Signals::new(crate::termination_signals())
        .map_err(|e| fail(EXIT_FAILURE, format!("cannot catch Ctrl-C: {e}")))?;
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if tx.send(()).is_err() {
                return;
            }
        }
    });
    let session = fuser::spawn_mount(fs, &a.dir, &config).map_err(|e| {
        fail(
            EXIT_FAILURE,
            format!(
                "{}: cannot mount: {e} (FUSE needs /dev/fuse and root or the fusermount3 helper)",
                display_path(&a.dir)
            ),
        )
    })?;
    eprintln!(
        "Mounted {} on {} (read-only); Ctrl-C to unmount",
        display_path(&a.archive),
        display_path(&a.dir)
    );
    // Ends on Ctrl-C, or when the file system was unmounted from outside. Run by root, a
    // mount still in use stays mounted and served (it was left dead: "Unmounted", exit 0,
    // and every access "Transport endpoint is not connected"); without root, fuser's
    // `fusermount3 -u` detaches it lazily.
    loop {
        if rx.recv_timeout(Duration::from_millis(200)).is_ok() {
            if try_unmount(&a.dir) == Unmount::Busy {
                eprintln!(
                    "zarchive: {} is busy (a file or directory in it is in use); it stays mounted: \
                     close what uses it and press Ctrl-C again",
                    display_path(&a.dir)
                );
                continue;
            }
            break;
        }
        if session.guard.is_finished() {
            break;
        }
    }
    // Unmounted above, or by fuser now (`fusermount3 -u`, which detaches a busy mount
    // lazily where our unmount was not permitted); its thread is not waited for, which
    // would wait for the last user of a lazily detached mount.
    drop(session);
    eprintln!("Unmounted {}", display_path(&a.dir));
    Ok(())
}

/// What an unmount of our own found.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(PartialEq)]
enum Unmount {
    /// Unmounted (the file system's thread then ends).
    Done,
    /// In use (`EBUSY`): nothing changed.
    Busy,
    /// Not permitted or not possible here: fuser's unmount (`fusermount3 -u`) is the one.
    Other,
}

/// Unmount `dir` with the system call, which root may make (fuser's own unmount, after
/// it, gives up the session whatever happens; this one leaves a busy mount as it is).
#[cfg(target_os = "linux")]
fn try_unmount(dir: &Path) -> Unmount {
    match rustix::mount::unmount(dir, rustix::mount::UnmountFlags::empty()) {
        Ok(()) => Unmount::Done,
        Err(rustix::io::Errno::BUSY) => Unmount::Busy,
        Err(_) => Unmount::Other,
    }
}

#[cfg(not(target_os = "linux"))]
fn try_unmount(_dir: &Path) -> Unmount {
    Unmount::Other
}
