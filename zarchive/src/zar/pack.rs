//! Packing a directory tree into an archive.
//!
//! Entries are added in the canonical order (depth-first, a directory before its contents,
//! siblings sorted by the ZAR name comparator), so the same tree always gives the same
//! archive, whatever order the file system lists it in. The archive file appears only when
//! complete: it is written to a temporary file beside the target and renamed at the end.

use std::ffi::OsString;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::compressor::ZstdWithDictionary;
use super::dirs::{self, DirHandle, Kind};
use super::error::ZarError;
use super::names;
use super::writer::{ArchiveWriter, WriteSummary, WriteWarning, WriterOptions};

/// How to pack: `PackOptions::new().writer(...).follow_symlinks(true)`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PackOptions {
    writer: WriterOptions,
    follow_symlinks: bool,
    overwrite: bool,
    skip_invalid_names: bool,
    auto_dictionary: Option<i32>,
}

impl PackOptions {
    /// Defaults: zstd level 6 on one thread, links skipped, an existing output refused,
    /// names the archive cannot hold refused.
    pub fn new() -> Self {
        Self::default()
    }
    /// Compressor and thread count.
    pub fn writer(mut self, writer: WriterOptions) -> Self {
        self.writer = writer;
        self
    }
    /// Follow symbolic links (default: skip them with a warning). A dangling link, or one
    /// that loops back to a directory being walked, is skipped with a warning.
    pub fn follow_symlinks(mut self, on: bool) -> Self {
        self.follow_symlinks = on;
        self
    }
    /// Replace an existing archive at the target path (default: refuse with
    /// [`ZarError::Exists`]).
    pub fn overwrite(mut self, on: bool) -> Self {
        self.overwrite = on;
        self
    }
    /// Whether an existing output may be replaced.
    pub(crate) fn overwrite_allowed(&self) -> bool {
        self.overwrite
    }
    /// Decide on a zstd dictionary before writing (`--dict auto`): train one on a sample of
    /// the archive's blocks and keep it, compressing every block with it at `level`, only
    /// if it saves at least 1 % of the compressed data, its own size included (see
    /// [`DictionaryChoice`](super::DictionaryChoice), reported through
    /// [`PackEvent::Dictionary`]). The archive then uses the dictionary extension
    /// ([`VERSION_META`](super::format::VERSION_META)); otherwise it is plain v1, written
    /// with the writer's compressor. `None` (the default) writes with the writer's
    /// compressor without measuring.
    pub fn auto_dictionary(mut self, level: Option<i32>) -> Self {
        self.auto_dictionary = level;
        self
    }
    /// Leave out files and directories whose names a ZAR archive cannot hold (a `\\` in a
    /// Unix file name, a drive-letter prefix, a name that differs only in ASCII case from a
    /// sibling's: the first of those in byte order is packed), with a warning each. By
    /// default such a name fails the pack with [`ZarError::UnstorableName`] (or
    /// [`ZarError::CaseCollision`]): the archive would not hold the tree. Such a name is
    /// never stored under another name.
    pub fn skip_invalid_names(mut self, on: bool) -> Self {
        self.skip_invalid_names = on;
        self
    }
}

/// Progress of a pack, reported through the callback.
#[derive(Debug)]
#[non_exhaustive]
pub enum PackEvent<'a> {
    /// The walk is done: this many files and bytes will be packed.
    Scanned {
        /// Files to pack.
        files: u64,
        /// Their total size as listed by the walk.
        bytes: u64,
    },
    /// Adding this entry (path relative to the packed directory, `/`-separated).
    Entry {
        /// The entry.
        path: &'a str,
    },
    /// This many more bytes of file data were added.
    Data(u64),
    /// Something was skipped or will not work with the reference reader.
    Warning(&'a PackWarning),
    /// `--dict auto` measured the tree and decided (before any block is written).
    Dictionary(&'a super::DictionaryChoice),
}

/// A warning raised while packing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PackWarning {
    /// A symbolic link was skipped (use `follow_symlinks` to pack its target).
    SkippedSymlink(PathBuf),
    /// Not a regular file or directory (fifo, socket, device): skipped.
    SkippedSpecial(PathBuf),
    /// A name the archive cannot hold, skipped on request (with everything below it).
    SkippedInvalidName(PathBuf, super::names::UnsafeName),
    /// With links followed: a link whose target is missing or unreadable, or that leads back
    /// to a directory above it (a loop), was skipped.
    SkippedBrokenLink(PathBuf, String),
    /// A name equal ignoring ASCII case to a sibling's (`kept`, packed in its place), left
    /// out on request: the archive looks names up ignoring case.
    SkippedCaseDuplicate {
        /// The file or directory left out.
        path: PathBuf,
        /// The sibling packed instead (the first of them in byte order).
        kept: PathBuf,
    },
    /// Merging: a later source's entry of another kind took the place of an earlier one
    /// with the same name (ignoring ASCII case): a file replaced a directory and the
    /// `entries` under it, or a directory replaced a file (`entries` 0).
    ReplacedKind {
        /// The path in the archive, as the later source spells it.
        path: String,
        /// Whether the earlier entry was a directory.
        was_dir: bool,
        /// Entries under the replaced directory, all gone with it.
        entries: u64,
    },
    /// A warning from the archive writer.
    Writer(WriteWarning),
}

impl std::fmt::Display for PackWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackWarning::SkippedSymlink(p) => write!(
                f,
                "{}: symbolic link skipped (follow links to pack its target)",
                names::display_path(p)
            ),
            PackWarning::SkippedSpecial(p) => write!(
                f,
                "{}: not a regular file or directory, skipped",
                names::display_path(p)
            ),
            PackWarning::SkippedInvalidName(p, why) => write!(
                f,
                "{}: skipped: the name cannot be stored in a ZAR archive: {why}",
                names::display_path(p)
            ),
            PackWarning::SkippedBrokenLink(p, why) => {
                write!(
                    f,
                    "{}: symbolic link skipped: {why}",
                    names::display_path(p)
                )
            }
            PackWarning::SkippedCaseDuplicate { path, kept } => write!(
                f,
                "{}: skipped: its name differs only in case from {}, which is packed (the \
                 archive compares names ignoring ASCII case)",
                names::display_path(path),
                names::display_path(kept)
            ),
            PackWarning::ReplacedKind {
                path,
                was_dir: true,
                entries,
            } => write!(
                f,
                "{path}: a file given later replaces the directory of that name{}",
                match entries {
                    0 => String::new(),
                    1 => " and the entry under it".to_string(),
                    n => format!(" and the {n} entries under it"),
                }
            ),
            PackWarning::ReplacedKind { path, .. } => write!(
                f,
                "{path}: a directory given later replaces the file of that name"
            ),
            PackWarning::Writer(w) => w.fmt(f),
        }
    }
}

/// The result of a pack.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PackSummary {
    /// What the writer wrote (its warnings are in `warnings`, once).
    pub archive: WriteSummary,
    /// Every warning raised, in order: skipped entries, then the writer's.
    pub warnings: Vec<PackWarning>,
}

/// One entry to write, in canonical order: its path in the archive and where its bytes
/// come from. Packing, merging and the caller's own entries all end up as a list of these,
/// written by one function ([`write_items`]).
pub(crate) struct Item<'a> {
    pub(crate) archive_path: Vec<u8>,
    pub(crate) data: ItemData<'a>,
    /// The file's size when listed (0 for directories).
    pub(crate) size: u64,
}

/// Where an [`Item`]'s bytes come from.
pub(crate) enum ItemData<'a> {
    /// A directory.
    Dir,
    /// A file on disk (with links followed or not), and how many of its path's last
    /// components lie inside the tree walked (none of them is followed as a link, unless
    /// links are followed).
    Disk {
        path: PathBuf,
        follow: bool,
        inside: usize,
    },
    /// A file of an open archive.
    Archive(super::reader::Entry<'a>),
    /// Bytes the caller gave.
    Bytes(std::sync::Arc<[u8]>),
}

impl Item<'_> {
    fn is_dir(&self) -> bool {
        matches!(self.data, ItemData::Dir)
    }
}

/// Pack `dir` into a new archive at `out`. The file appears only when complete; on any
/// failure no archive (complete or partial) is left at `out`. An existing device or FIFO at
/// `out` (`/dev/null`) is written into, never replaced.
pub fn pack_dir(
    dir: &Path,
    out: &Path,
    opts: &PackOptions,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<PackSummary, ZarError> {
    write_atomically(out, opts.overwrite, |w, skip| {
        pack_dir_guarded(
            dir,
            w,
            opts,
            skip,
            skip.first().map(PathBuf::as_path),
            progress,
        )
    })
}

/// Write an archive to `out` through `write`, which gets a buffered writer to a temporary
/// file beside `out` and the canonical paths never to pack (the target and the temporary
/// file); the file is moved into place only when `write` succeeded. Without `overwrite`, an
/// existing `out` is refused before anything is written and never replaced.
///
/// An existing `out` that is neither a regular file nor a directory after symbolic links (a
/// device such as `/dev/null`, a FIFO) is written into where it is, with or without
/// `overwrite`, and never replaced by a file, as `tar -cf /dev/null` and `zstd -o` do. A
/// symbolic link to a regular file stays: the file it leads to is replaced.
pub(crate) fn write_atomically(
    out: &Path,
    overwrite: bool,
    write: impl FnOnce(
        BufWriter<NamedSink>,
        &[PathBuf],
    ) -> Result<(BufWriter<NamedSink>, PackSummary), ZarError>,
) -> Result<PackSummary, ZarError> {
    if is_special_file(out) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(out)
            .map_err(|e| ZarError::path_io(out, "cannot write the archive", e))?;
        let skip: Vec<PathBuf> = out.canonicalize().into_iter().collect();
        let sink = NamedSink::new(file, out);
        let (w, summary) = write(BufWriter::with_capacity(1 << 20, sink), &skip)?;
        w.into_inner()
            .map_err(|e| ZarError::path(out, format!("cannot write the archive: {}", e.error())))?;
        return Ok(summary);
    }
    // A directory first: `-f` could not replace it, so it is no use suggesting.
    if out.is_dir() {
        return Err(ZarError::path(out, "the output path is a directory"));
    }
    if !overwrite && out.symlink_metadata().is_ok() {
        return Err(ZarError::Exists {
            path: out.to_path_buf(),
        });
    }
    let resolved = resolve_link_to_file(out)?;
    let out = resolved.as_deref().unwrap_or(out);
    let name = out
        .file_name()
        .ok_or_else(|| ZarError::path(out, "the output path has no file name"))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let gate = super::atomic::partial_gate();
    let tmp = super::atomic::temp_builder(&super::atomic::temp_prefix(name))
        .tempfile_in(&parent)
        .map_err(|e| {
            // The archive is written beside its name and renamed: what failed is making
            // a file in that directory, whatever the file of that name allows.
            ZarError::path_io(
                out,
                format!(
                    "cannot create the archive (written as a temporary file in {} first, then renamed)",
                    names::display_path(&parent)
                ),
                e,
            )
        })?;
    let _partial = super::atomic::PartialFile::new(tmp.path());
    drop(gate);
    // An archive replaced keeps its permissions (a private one stays private) and, where
    // this process may give it (root), its owner and group: `update` run by root must not
    // hand a user's archive to root.
    if let Ok(old) = std::fs::metadata(out)
        && old.is_file()
    {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if let Ok(new) = tmp.as_file().metadata()
                && (new.uid(), new.gid()) != (old.uid(), old.gid())
            {
                // The owner only root may give; the group any member of it. Refused, the
                // new file stays the process's own, as a copy of it would.
                let file = tmp.as_file();
                if std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
                    let _ = std::os::unix::fs::fchown(file, None, Some(old.gid()));
                }
            }
        }
        tmp.as_file()
            .set_permissions(old.permissions())
            .map_err(|e| {
                ZarError::path_io(
                    out,
                    "cannot give the new archive the old one's permissions",
                    e,
                )
            })?;
    }
    // Never pack the archive into itself: skip the target and the temporary file.
    let canonical_parent = parent
        .canonicalize()
        .map_err(|e| ZarError::path_io(&parent, "cannot resolve the directory", e))?;
    let skip = vec![
        canonical_parent.join(name),
        canonical_parent.join(tmp.path().file_name().unwrap_or_default()),
    ];
    // Errors name the archive being written, not its temporary file's random name.
    let file = tmp
        .as_file()
        .try_clone()
        .map_err(|e| ZarError::path_io(out, "cannot write the archive", e))?;
    let sink = NamedSink::new(file, out);
    let (w, summary) = write(BufWriter::with_capacity(1 << 20, sink), &skip)?;
    let sink = w
        .into_inner()
        .map_err(|e| ZarError::path(out, format!("cannot write the archive: {}", e.error())))?;
    sink.file
        .sync_all()
        .map_err(|e| ZarError::path_io(out, "cannot write the archive", e))?;
    super::atomic::move_into_place(tmp, out, overwrite).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            ZarError::Exists {
                path: out.to_path_buf(),
            }
        } else {
            ZarError::path_io(out, "cannot move the finished archive into place", e)
        }
    })?;
    Ok(summary)
}

/// The file an archive is written to, whose write errors name the archive's path: the
/// writer's own messages say what was being written (`writing block 16 of the archive`),
/// not where.
pub(crate) struct NamedSink {
    file: std::fs::File,
    shown: String,
}

impl NamedSink {
    fn new(file: std::fs::File, path: &Path) -> Self {
        NamedSink {
            file,
            shown: names::display_path(path),
        }
    }

    fn named(&self, e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("{}: {e}", self.shown))
    }
}

impl Write for NamedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush().map_err(|e| self.named(e))
    }
}

/// Where a symbolic link `path` leads when it leads to a regular file: an output replaces
/// that file and keeps the link (as `tar -cf LINK` writes through it), rather than putting a
/// file in the link's place. `None` for anything else.
pub fn resolve_link_to_file(path: &Path) -> Result<Option<PathBuf>, ZarError> {
    let is_link = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    if !is_link || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    path.canonicalize()
        .map(Some)
        .map_err(|e| ZarError::path_io(path, "cannot resolve the link", e))
}

/// Whether `path` exists and is neither a regular file nor a directory, after symbolic
/// links: a device or a FIFO, which an output is written into rather than replaced.
pub fn is_special_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Pack `dir` into `out` (any writer, e.g. stdout). `skip` lists canonical paths never to
/// pack (the archive being written, when it lies inside `dir`).
pub fn pack_dir_to<W: Write>(
    dir: &Path,
    out: W,
    opts: &PackOptions,
    skip: &[PathBuf],
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<(W, PackSummary), ZarError> {
    pack_dir_guarded(dir, out, opts, skip, None, progress)
}

/// [`pack_dir_to`], refusing to go on when `output` (the canonical path of the archive
/// being written, among `skip`) is a file of the tree that is not an archive: replacing it
/// would lose it (see [`scan`]).
fn pack_dir_guarded<W: Write>(
    dir: &Path,
    out: W,
    opts: &PackOptions,
    skip: &[PathBuf],
    output: Option<&Path>,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<(W, PackSummary), ZarError> {
    let mut warnings = Vec::new();
    let items = scan(dir, opts, skip, output, &mut warnings, progress)?;
    write_items(&items, out, opts, warnings, progress)
}

/// Write `items` (in canonical order) as an archive to `out`: the one writer path of pack,
/// merge and the caller's own entries.
pub(crate) fn write_items<W: Write>(
    items: &[Item<'_>],
    out: W,
    opts: &PackOptions,
    mut warnings: Vec<PackWarning>,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<(W, PackSummary), ZarError> {
    let files = items.iter().filter(|i| !i.is_dir()).count() as u64;
    progress(PackEvent::Scanned {
        files,
        bytes: items.iter().map(|i| i.size).sum(),
    });
    let writer_opts = match opts.auto_dictionary {
        None => opts.writer.clone(),
        Some(level) => {
            let choice = super::dictionary::choose(items, level)?;
            progress(PackEvent::Dictionary(&choice));
            match &choice.dictionary {
                None => opts.writer.clone(),
                Some(dict) => {
                    let c = ZstdWithDictionary::new(dict, level).map_err(|e| {
                        ZarError::io("preparing the trained dictionary", std::io::Error::other(e))
                    })?;
                    opts.writer.clone().compressor(std::sync::Arc::new(c))
                }
            }
        }
    };
    let mut writer = ArchiveWriter::with_options(out, &writer_opts)?;
    let mut last_dir = dirs::LastDir::default();
    for item in items {
        let shown = String::from_utf8_lossy(&item.archive_path);
        progress(PackEvent::Entry { path: &shown });
        let on_path = |e: ZarError| match (e, &item.data) {
            (ZarError::Entry { reason, .. }, ItemData::Disk { path, .. }) => {
                ZarError::path(path, format!("cannot add to the archive: {reason}"))
            }
            (other, _) => other,
        };
        let Some(mut reader) = open_item(item, &mut last_dir)? else {
            writer.add_dir(&item.archive_path).map_err(on_path)?;
            continue;
        };
        writer.start_file(&item.archive_path).map_err(on_path)?;
        let mut read = 0u64;
        loop {
            // Read straight into the block being filled (no copy in between).
            let n = writer.read_into_file(&mut reader, |e| match &item.data {
                ItemData::Disk { path, .. } => {
                    match e.get_ref().and_then(|r| r.downcast_ref::<DiskChange>()) {
                        Some(change) => ZarError::path(path, change.to_string()),
                        None => ZarError::path_io(path, "cannot read", e),
                    }
                }
                _ => ZarError::from_read(&shown, e),
            })?;
            if n == 0 {
                break;
            }
            read += n as u64;
            progress(PackEvent::Data(n as u64));
        }
        if read != item.size {
            // The archive would not hold what the walk saw: refuse rather than pack a
            // moving target.
            let what = match &item.data {
                ItemData::Disk { path, .. } => path.clone(),
                _ => PathBuf::from(shown.into_owned()),
            };
            return Err(ZarError::path(
                what,
                format!(
                    "changed while being packed: it was {} bytes when listed, {read} bytes were read",
                    item.size
                ),
            ));
        }
    }
    let (w, mut archive) = writer.finish()?;
    for w in std::mem::take(&mut archive.warnings) {
        let pw = PackWarning::Writer(w);
        progress(PackEvent::Warning(&pw));
        warnings.push(pw);
    }
    Ok((w, PackSummary { archive, warnings }))
}

/// A reader of a file item's bytes from byte `offset` on; `None` for a directory. A file
/// on disk is opened through `last` (see [`dirs::LastDir`]).
pub(crate) fn open_item_at<'a>(
    item: &'a Item<'_>,
    offset: u64,
    last: &mut dirs::LastDir,
) -> Result<Option<Box<dyn Read + 'a>>, ZarError> {
    use std::io::{Seek, SeekFrom};
    Ok(Some(match &item.data {
        ItemData::Dir => return Ok(None),
        ItemData::Disk {
            path,
            follow,
            inside,
        } => {
            let (mut f, stamp) = dirs::open_file(path, *follow, *inside, last).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    ZarError::path(path, "was removed before it was read")
                } else if replaced_by_link(&e) {
                    // A directory on the way, or the file, is a link now: not followed.
                    ZarError::path(
                        path,
                        "changed while being packed: it or a directory on its path was \
                         replaced by a symbolic link",
                    )
                } else {
                    ZarError::path_io(path, "cannot open", e)
                }
            })?;
            // A FIFO put there is not waited on (it hung pack), nor read.
            if !stamp.regular {
                return Err(ZarError::path(
                    path,
                    "changed while being packed: it is no longer a regular file",
                ));
            }
            if offset > 0 {
                f.seek(SeekFrom::Start(offset))
                    .map_err(|e| ZarError::path_io(path, "cannot read", e))?;
            }
            Box::new(DiskReader {
                file: f,
                stamp,
                read: offset,
            })
        }
        ItemData::Archive(entry) => {
            let mut r = entry.open()?;
            if offset > 0 {
                r.seek(SeekFrom::Start(offset)).map_err(|e| {
                    ZarError::from_read(&String::from_utf8_lossy(&item.archive_path), e)
                })?;
            }
            Box::new(r)
        }
        ItemData::Bytes(bytes) => Box::new(bytes.get(offset as usize..).unwrap_or(&[])),
    }))
}

/// A file on disk being read, which checks at its end that the file did not change while
/// it was read (its size and modification time, as `tar` checks them: a file written to in
/// place was packed part old, part new), and that it held the bytes its size says: one
/// that ends short of its size (a /sys file), or says 0 and holds some (a /proc file), is
/// made up as it is read. It is read up to its size and no further, as `tar` reads it:
/// content beyond a size that did not change is not seen.
struct DiskReader {
    file: std::fs::File,
    stamp: dirs::Stamp,
    /// Bytes read so far, from the file's start.
    read: u64,
}

impl Read for DiskReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // Once its size is read, the file ends there if it did not change (as `tar` reads
        // a file's size and no more): one read a small file, not two. A file whose size
        // says nothing (0: /proc) is read to its end.
        let n = if self.read == self.stamp.size && self.read > 0 {
            0
        } else {
            self.file.read(buf)?
        };
        self.read += n as u64;
        if n == 0 && !buf.is_empty() {
            if dirs::Stamp::of(&self.file)? != self.stamp {
                return Err(std::io::Error::other(DiskChange::WhileRead));
            }
            if self.read != self.stamp.size {
                return Err(std::io::Error::other(DiskChange::MadeUp {
                    size: self.stamp.size,
                    read: self.read,
                }));
            }
        }
        Ok(n)
    }
}

/// How a file on disk failed [`DiskReader`]'s checks.
#[derive(Debug)]
enum DiskChange {
    /// Its size or modification time changed while it was read.
    WhileRead,
    /// Unchanged, yet it read other than its size.
    MadeUp { size: u64, read: u64 },
}

impl std::fmt::Display for DiskChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiskChange::WhileRead => {
                write!(
                    f,
                    "changed while being packed: it changed while it was read"
                )
            }
            DiskChange::MadeUp { size, read } => write!(
                f,
                "its size says {size} bytes, {read} bytes were read: it is made up as it is \
                 read (as /proc and /sys files are) and cannot be packed as it is"
            ),
        }
    }
}

impl std::error::Error for DiskChange {}

/// Whether opening failed on a symbolic link that was not to be followed (`ELOOP`, or
/// `ENOTDIR` for a link where a directory was).
fn replaced_by_link(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
            || e.kind() == std::io::ErrorKind::NotADirectory
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// A reader of a file item's bytes; `None` for a directory.
pub(crate) fn open_item<'a>(
    item: &'a Item<'_>,
    last: &mut dirs::LastDir,
) -> Result<Option<Box<dyn Read + 'a>>, ZarError> {
    open_item_at(item, 0, last)
}

/// One directory being walked: its handle, its path in the archive, the names still to
/// visit (sorted), and its identity (for loop detection when links are followed).
struct Level {
    /// Closed (`None`) while the walk is deeper than [`OPEN_LEVELS`] below it, opened
    /// again when the walk comes back.
    dir: Option<DirHandle>,
    /// Its path on disk (for messages).
    path: PathBuf,
    archive_path: Vec<u8>,
    names: std::vec::IntoIter<OsString>,
    id: Option<(u64, u64)>,
    /// Whether it was reached through a symbolic link (then its `..` is not the level
    /// above it, and that level's handle is kept open).
    via_link: bool,
    /// The last name taken here (names equal to it ignoring case come right after it).
    last: Vec<u8>,
}

/// How many directories of the walk's path stay open at most, the deepest ones: those
/// above are closed and opened again through `..` from the one below when the walk comes
/// back (each checked to be the directory it was), as `fts` does. One descriptor per level
/// made trees deeper than the descriptor limit (1,024 by default) fail to pack. A directory
/// above one reached through a symbolic link (with links followed) stays open: that one's
/// `..` is elsewhere.
const OPEN_LEVELS: usize = 16;

/// Close the handle of the level [`OPEN_LEVELS`] above the walk's top, when it can be
/// opened again: through `..` of the level below it (not reached through a link), checked
/// by its identity (Unix only; elsewhere a level holds no descriptor).
fn close_above(stack: &mut [Level]) {
    if !cfg!(unix) || stack.len() <= OPEN_LEVELS {
        return;
    }
    let i = stack.len() - 1 - OPEN_LEVELS;
    if stack[i].id.is_some() && !stack[i + 1].via_link {
        stack[i].dir = None;
    }
}

/// After the walk left `done`, open again the level it returns to if its handle was
/// closed ([`close_above`]).
fn reopen_top(stack: &mut [Level], done: Option<Level>) -> Result<(), ZarError> {
    #[cfg(unix)]
    if let (Some(top), Some(done)) = (stack.last_mut(), done)
        && top.dir.is_none()
    {
        let (Some(child), Some(id)) = (&done.dir, top.id) else {
            unreachable!("a level is closed only when it can be opened again");
        };
        let dir = child.reopen_parent(top.path.clone(), id).map_err(|e| {
            ZarError::path_io(&done.path, "cannot go back to the directory above it", e)
        })?;
        top.dir = Some(dir);
    }
    #[cfg(not(unix))]
    let _ = (stack, done);
    Ok(())
}

/// A directory's names in the canonical order (the ZAR name comparator).
fn sorted_names(dir: &DirHandle) -> Result<std::vec::IntoIter<OsString>, ZarError> {
    let mut names = dir
        .names()
        .map_err(|e| ZarError::path_io(dir.path(), "cannot read the directory", e))?;
    // Names equal ignoring case (which one archive cannot hold together) in byte order, so
    // that which of them `--skip-invalid-names` keeps does not depend on the directory's.
    names.sort_by(|a, b| {
        let (a, b) = (os_bytes(a), os_bytes(b));
        names::compare(&a, &b).then_with(|| a.cmp(&b))
    });
    Ok(names.into_iter())
}

/// Walk `dir` in canonical order (depth-first, a directory before its contents, siblings
/// sorted by the ZAR name comparator) and list what to pack. Directories are opened by
/// handle, one level below the other, so no depth is too deep for the system's path limit.
/// The paths of `skip` are left out; `output`, one of them, is the archive being written
/// over an existing file: when that file is in the tree and is not a ZAR archive, the
/// walk fails, for the file would be neither packed nor kept.
pub(crate) fn scan(
    dir: &Path,
    opts: &PackOptions,
    skip: &[PathBuf],
    output: Option<&Path>,
    warnings: &mut Vec<PackWarning>,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<Vec<Item<'static>>, ZarError> {
    let (follow, skip_invalid) = (opts.follow_symlinks, opts.skip_invalid_names);
    let meta = std::fs::metadata(dir)
        .map_err(|e| ZarError::path_io(dir, "cannot read the input directory", e))?;
    if !meta.is_dir() {
        return Err(ZarError::path(dir, "not a directory"));
    }
    let root = DirHandle::open(dir)
        .map_err(|e| ZarError::path_io(dir, "cannot read the input directory", e))?;
    // The archive being written is never packed: known by identity where the system has
    // one, by name and canonical path elsewhere.
    let skip_ids: Vec<(u64, u64)> = skip.iter().filter_map(|p| dirs::identity(p)).collect();
    let skip_names: Vec<&std::ffi::OsStr> = skip.iter().filter_map(|p| p.file_name()).collect();
    let output_id = output.and_then(dirs::identity);
    let names = sorted_names(&root)?;
    let mut stack = vec![Level {
        path: root.path().to_path_buf(),
        dir: Some(root),
        archive_path: Vec::new(),
        names,
        id: dirs::identity(dir),
        via_link: false,
        last: Vec::new(),
    }];
    let mut items = Vec::new();
    // Entries that cannot be read: the walk goes on past them so that all are reported
    // at once (it stopped at the first, after compressing every file before it), and
    // nothing is packed.
    let mut unreadable: Vec<ZarError> = Vec::new();
    while !stack.is_empty() {
        // The directories walked down to here, and the name itself.
        let depth = stack.len();
        let Some(level) = stack.last_mut() else {
            break;
        };
        let Some(name) = level.names.next() else {
            let done = stack.pop();
            reopen_top(&mut stack, done)?;
            continue;
        };
        let Some(dir) = &level.dir else {
            unreachable!("the directory being read is open");
        };
        let disk = dir.path().join(&name);
        let mut warn = |w: PackWarning| {
            progress(PackEvent::Warning(&w));
            warnings.push(w);
        };
        let mut meta = match dir.stat(&name, false) {
            Ok(m) => m,
            Err(e) => {
                unreadable.push(ZarError::path_io(&disk, "cannot read", e));
                continue;
            }
        };
        let via_link = meta.kind == Kind::Symlink;
        if via_link {
            if !follow {
                warn(PackWarning::SkippedSymlink(disk));
                continue;
            }
            // With links followed, a dangling link is skipped (as `tar -h` does) rather
            // than failing the whole pack.
            meta = match dir.stat(&name, true) {
                Ok(m) => m,
                Err(e) => {
                    let why = if e.kind() == std::io::ErrorKind::NotFound {
                        "its target does not exist".to_string()
                    } else {
                        format!("cannot read its target: {e}")
                    };
                    warn(PackWarning::SkippedBrokenLink(disk, why));
                    continue;
                }
            };
        }
        // The archive being written (a file, or a FIFO or device it is written into) is
        // left out without a word.
        if meta.kind != Kind::Dir {
            let is_output = match meta.id {
                Some(id) => skip_ids.contains(&id),
                None => {
                    skip_names.contains(&name.as_os_str())
                        && disk.canonicalize().is_ok_and(|c| skip.contains(&c))
                }
            };
            if is_output {
                // Replaced (`--force`), a file of the tree would be lost: it is neither
                // packed nor kept. An earlier archive written there is what `--force`
                // means to replace.
                let is_target = match (meta.id, output_id) {
                    (Some(id), Some(out)) => id == out,
                    _ => output.is_some_and(|o| disk.canonicalize().is_ok_and(|c| c == o)),
                };
                if is_target && meta.kind == Kind::File && !super::reader::looks_like_archive(&disk)
                {
                    return Err(ZarError::path(
                        &disk,
                        "the output is a file of the tree being packed, and not an archive: \
                         writing the archive over it would lose it; write the archive elsewhere",
                    ));
                }
                continue;
            }
        }
        if meta.kind == Kind::Other || meta.kind == Kind::Symlink {
            warn(PackWarning::SkippedSpecial(disk));
            continue;
        }
        // The name must be stored as it is, or not at all: a `\\` in a Unix name would
        // otherwise become a directory separator in the archive.
        let bytes = component_bytes(&name).ok_or_else(|| {
            ZarError::path(
                &disk,
                "the name is not valid Unicode and cannot be stored portably",
            )
        })?;
        if let Err(reason) = names::check_component(&bytes) {
            if !skip_invalid {
                return Err(ZarError::UnstorableName { path: disk, reason });
            }
            warn(PackWarning::SkippedInvalidName(disk, reason));
            continue;
        }
        // A name equal to the one before it ignoring ASCII case cannot be looked up apart
        // from it: refused, or left out on request.
        if !level.last.is_empty() && names::eq_ignore_case(&bytes, &level.last) {
            let kept = level.path.join(os_str_of(&level.last));
            if !skip_invalid {
                return Err(ZarError::CaseCollision { path: disk, kept });
            }
            warn(PackWarning::SkippedCaseDuplicate { path: disk, kept });
            continue;
        }
        // Made at its size: every item keeps its path until the archive is written.
        let mut archive_path = Vec::with_capacity(level.archive_path.len() + 1 + bytes.len());
        archive_path.extend_from_slice(&level.archive_path);
        if !archive_path.is_empty() {
            archive_path.push(b'/');
        }
        archive_path.extend_from_slice(&bytes);
        if meta.kind == Kind::File {
            level.last = bytes;
            if let Err(e) = dir.check_readable(&name) {
                unreadable.push(ZarError::path_io(&disk, "cannot open", e));
                continue;
            }
            items.push(Item {
                archive_path,
                data: ItemData::Disk {
                    path: disk,
                    follow,
                    inside: depth,
                },
                size: meta.size,
            });
            continue;
        }
        // A directory reached through a link that leads back to one being walked: a loop.
        if via_link && let Some(above) = stack.iter().find(|l| l.id.is_some() && l.id == meta.id) {
            let why = format!("it loops back to {}", names::display_path(&above.path));
            progress(PackEvent::Warning(&PackWarning::SkippedBrokenLink(
                disk.clone(),
                why.clone(),
            )));
            warnings.push(PackWarning::SkippedBrokenLink(disk, why));
            continue;
        }
        let Some(level) = stack.last_mut() else {
            break;
        };
        // Taken: later names equal to it ignoring case collide with it.
        level.last = bytes;
        let Some(dir) = &level.dir else {
            unreachable!("the directory being read is open");
        };
        let listed = dir
            .open_dir(&name, follow)
            .map_err(|e| ZarError::path_io(&disk, "cannot read the directory", e))
            .and_then(|sub| sorted_names(&sub).map(|names| (sub, names)));
        let (sub, names) = match listed {
            Ok(listed) => listed,
            Err(e) => {
                unreadable.push(e);
                continue;
            }
        };
        items.push(Item {
            archive_path: archive_path.clone(),
            data: ItemData::Dir,
            size: 0,
        });
        stack.push(Level {
            path: sub.path().to_path_buf(),
            dir: Some(sub),
            archive_path,
            names,
            id: meta.id,
            via_link,
            last: Vec::new(),
        });
        close_above(&mut stack);
    }
    match unreadable.len() {
        0 => Ok(items),
        1 => Err(unreadable.remove(0)),
        n => {
            const SHOWN: usize = 10;
            let mut reason = format!("{n} entries of the tree cannot be read, nothing was packed:");
            for e in unreadable.iter().take(SHOWN) {
                reason.push_str(&format!("\n  {e}"));
            }
            if n > SHOWN {
                reason.push_str(&format!("\n  and {} more", n - SHOWN));
            }
            Err(ZarError::path(dir, reason))
        }
    }
}

/// The bytes of a file name as stored in the archive: the raw bytes on Unix, UTF-8 elsewhere.
fn component_bytes(s: &std::ffi::OsStr) -> Option<Vec<u8>> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(s.as_bytes().to_vec())
    }
    #[cfg(not(unix))]
    {
        s.to_str().map(|s| s.as_bytes().to_vec())
    }
}

/// The name whose bytes [`component_bytes`] gave.
fn os_str_of(bytes: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(bytes).to_os_string()
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(s.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match s.to_string_lossy() {
            std::borrow::Cow::Borrowed(b) => std::borrow::Cow::Borrowed(b.as_bytes()),
            std::borrow::Cow::Owned(o) => std::borrow::Cow::Owned(o.into_bytes()),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The items of `dir` as a default pack lists them.
    fn listed(dir: &Path) -> Vec<Item<'static>> {
        scan(
            dir,
            &PackOptions::default(),
            &[],
            None,
            &mut Vec::new(),
            &mut |_| {},
        )
        .unwrap()
    }

    /// Writes `items`; the error's text.
    fn write_error(items: &[Item<'_>]) -> String {
        let opts = PackOptions::default();
        match write_items(items, Vec::new(), &opts, Vec::new(), &mut |_| {}) {
            Ok(_) => panic!("written"),
            Err(e) => e.to_string(),
        }
    }

    /// Found by a hostile session: files are opened again by path after the whole walk, and
    /// a directory swapped for a link in between (to a directory outside the tree, with
    /// files of the listed sizes) had those outside files packed, exit 0.
    #[test]
    fn a_directory_swapped_for_a_link_after_the_walk_is_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let (src, outside) = (t.path().join("src"), t.path().join("outside"));
        std::fs::create_dir_all(src.join("z")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(src.join("z/x"), "secret\n").unwrap();
        std::fs::write(outside.join("x"), "TOPSEC\n").unwrap();
        let items = listed(&src);
        std::fs::rename(src.join("z"), src.join("z.old")).unwrap();
        std::os::unix::fs::symlink(&outside, src.join("z")).unwrap();
        let e = write_error(&items);
        assert!(e.contains("replaced by a symbolic link"), "{e}");
    }

    /// The same session: a file swapped for a FIFO after the walk hung `pack` until
    /// something wrote to the FIFO, whose bytes were then packed. (`mkfifoat`: Linux.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_swapped_for_a_fifo_is_refused_without_waiting() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("x"), "FIFO!!\n").unwrap();
        let items = listed(t.path());
        std::fs::remove_file(t.path().join("x")).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            t.path().join("x"),
            rustix::fs::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let e = write_error(&items);
        assert!(e.contains("no longer a regular file"), "{e}");
        // Removed before it was read: said so (was "cannot open: No such file").
        std::fs::remove_file(t.path().join("x")).unwrap();
        let e = write_error(&items);
        assert!(e.contains("was removed before it was read"), "{e}");
    }

    /// The same session: a file written to in place while it was read (same size) was
    /// packed part old, part new, exit 0, and the archive verified.
    #[test]
    fn a_file_written_to_while_it_is_read_is_refused() {
        use std::io::Write as _;
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("f");
        std::fs::write(&path, vec![1u8; 300_000]).unwrap();
        let items = listed(t.path());
        let mut r = open_item(&items[0], &mut dirs::LastDir::default())
            .unwrap()
            .unwrap();
        let mut head = vec![0u8; 1000];
        r.read_exact(&mut head).unwrap();
        // Another second on the clock, so that the times differ on any file system.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all(&[2u8; 1000]).unwrap();
        drop(f);
        let mut rest = Vec::new();
        let e = r.read_to_end(&mut rest).unwrap_err();
        assert!(
            e.to_string().contains("it changed while it was read"),
            "{e}"
        );
        // A file not written to while it is read reads whole.
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all(&[3u8; 10]).unwrap();
        drop(f);
        let items = listed(t.path());
        let mut r = open_item(&items[0], &mut dirs::LastDir::default())
            .unwrap()
            .unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all.len(), 300_000, "an unchanged file reads whole");
    }
}
