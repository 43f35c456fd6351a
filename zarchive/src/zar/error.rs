//! Errors of the container layer. Every message names what failed: the archive section, the
//! entry's path, the block number, the file on disk.

use std::io;
use std::path::PathBuf;

use super::names::{self, UnsafeName};
use crate::zstd::ZstdError;

/// Errors of the ZAR container: opening, reading, writing, packing, extracting.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ZarError {
    /// An I/O operation failed; `what` says on what.
    #[error("{what}: {cause}")]
    Io {
        /// What was being done, and on which file or entry.
        what: String,
        /// The underlying error. Its message is part of this one's, so it is not also
        /// returned by `source()` (error reports would print it twice).
        cause: io::Error,
    },
    /// The bytes are not a ZAR archive at all.
    #[error("not a ZAR archive: {reason}")]
    NotAnArchive {
        /// What is missing or wrong.
        reason: String,
    },
    /// The footer's version word is neither ZAR v1 nor its dictionary extension.
    #[error(
        "unsupported ZAR version 0x{found:08X} (supported: version 1, 0x61BF3A01, and its dictionary extension, 0x61BF3AD1)"
    )]
    UnsupportedVersion {
        /// The version word found.
        found: u32,
    },
    /// The footer's total size disagrees with the file's length.
    #[error(
        "the footer says the archive is {footer} bytes but it is {actual} bytes (truncated or padded file)"
    )]
    TotalSizeMismatch {
        /// Size recorded in the footer.
        footer: u64,
        /// Actual length.
        actual: u64,
    },
    /// A section does not lie inside the file, or has an impossible size.
    #[error("the {section} section (offset {offset}, size {size}) is invalid: {reason}")]
    BadSection {
        /// Which section.
        section: &'static str,
        /// Its offset.
        offset: u64,
        /// Its size.
        size: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// The file tree is malformed.
    #[error("corrupt file tree at {path}: {reason}")]
    BadTree {
        /// Path of the directory or entry concerned (`/` for the root).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// An entry's name cannot be decoded from the name table.
    #[error(
        "entry {index} in directory {dir}: its name at name-table offset {offset} does not fit the name table"
    )]
    BadName {
        /// The directory holding the entry.
        dir: String,
        /// Node index of the entry.
        index: u32,
        /// The name offset.
        offset: u32,
    },
    /// An entry's name cannot become a path component (path traversal and similar).
    #[error("refused entry name \"{name}\" in directory {dir}: {reason}")]
    UnsafeName {
        /// The directory holding the entry.
        dir: String,
        /// The name, escaped for display.
        name: String,
        /// Why it is refused.
        reason: UnsafeName,
    },
    /// Two entries of one directory have the same name (ASCII case ignored).
    #[error(
        "directory {dir} holds two entries named \"{name}\" (names are compared ignoring ASCII case)"
    )]
    DuplicateName {
        /// The directory.
        dir: String,
        /// The name.
        name: String,
    },
    /// A file's bytes extend past the blocks the archive holds.
    #[error("file {path}: its {size} bytes at stream offset {offset} {reason}")]
    FileExtent {
        /// The file.
        path: String,
        /// Stream offset.
        offset: u64,
        /// Size.
        size: u64,
        /// Which blocks it needs and why they are not there.
        reason: String,
    },
    /// A block could not be read or decoded.
    #[error("block {block}: {reason}")]
    Block {
        /// Block index in the data stream.
        block: u64,
        /// What went wrong.
        reason: String,
        /// The decoder's error, when it was a decode failure.
        cause: Option<ZstdError>,
    },
    /// Reading a file's bytes failed.
    #[error("file {path}: {cause}")]
    File {
        /// The file.
        path: String,
        /// What failed.
        cause: Box<ZarError>,
    },
    /// No entry has this path.
    #[error("no entry named {path} in the archive")]
    NotFound {
        /// The path looked up.
        path: String,
    },
    /// The entry is a directory where a file was needed, or the other way round.
    #[error("{path} is {what}")]
    WrongKind {
        /// The path.
        path: String,
        /// "a directory, not a file" or similar.
        what: &'static str,
    },
    /// A write to the archive was refused.
    #[error("cannot add {path}: {reason}")]
    Entry {
        /// The archive path being added.
        path: String,
        /// Why.
        reason: String,
    },
    /// A limit of the ZAR v1 format would be exceeded.
    #[error("ZAR v1 limit exceeded: {0}")]
    Limit(String),
    /// A path on disk was refused or failed while packing or extracting.
    #[error("{}: {reason}", names::display_path(path))]
    Path {
        /// The path on disk.
        path: PathBuf,
        /// What is wrong (including the system's message when `cause` is set).
        reason: String,
        /// The system's error, when one caused this.
        cause: Option<io::Error>,
    },
    /// An entry id that names no entry of this archive (taken from another one).
    #[error("entry id {id} does not belong to this archive")]
    ForeignEntry {
        /// The id's index.
        id: u32,
    },
    /// File bytes were written to an archive writer with no file started (before the first
    /// [`start_file`](super::ArchiveWriter::start_file), or after a directory was added).
    #[error("file bytes written to the archive with no file started (start_file first)")]
    NoFileStarted,
    /// An archive writer that already failed was used again; start a new archive.
    #[error("the archive writer already failed on an earlier error and cannot go on")]
    WriterFailed,
    /// A read of a file's bytes asked for a range outside the file.
    #[error("file {path}: range {offset}+{len} is beyond its {size} bytes")]
    OutOfRange {
        /// The file.
        path: String,
        /// First byte asked for.
        offset: u64,
        /// Number of bytes asked for.
        len: u64,
        /// The file's size.
        size: u64,
    },
    /// A file or directory on disk has a name a ZAR archive cannot hold (a `\\`, a drive
    /// letter, ...). Packing refuses it rather than store it under another name.
    #[error(
        "{}: the name cannot be stored in a ZAR archive: {reason}; refusing to pack it under another name",
        names::display_path(path)
    )]
    UnstorableName {
        /// The path on disk.
        path: PathBuf,
        /// Why the name cannot be stored.
        reason: UnsafeName,
    },
    /// Two names in one directory on disk differ only in ASCII case, which a ZAR archive
    /// cannot tell apart (it looks names up ignoring case).
    #[error(
        "{}: its name differs only in case from {}, and a ZAR archive compares names ignoring ASCII case: it cannot hold both",
        names::display_path(path),
        names::display_path(kept)
    )]
    CaseCollision {
        /// The later name on disk (in byte order).
        path: PathBuf,
        /// The sibling it collides with.
        kept: PathBuf,
    },
    /// The output path exists and replacing it was not allowed.
    #[error("{}: already exists", names::display_path(path))]
    Exists {
        /// The existing path.
        path: PathBuf,
    },
    /// The archive's SHA-256 does not match the footer: its bytes were changed after it was
    /// written. When extraction reports this, the files were written but cannot be trusted.
    #[error("integrity hash mismatch: the footer says {stored}, the archive hashes to {computed}")]
    HashMismatch {
        /// The hash recorded in the footer, in hex.
        stored: String,
        /// The hash of the archive's bytes, in hex.
        computed: String,
    },
    /// A source archive of a merge is damaged (its SHA-256 does not match its footer, a
    /// block of one of its files does not decode, or it could not be read to the end): the
    /// merged archive is not written, so the damage is never carried into an archive with a
    /// fresh, valid hash.
    #[error("source {} of the merge is damaged: {error}", source_index + 1)]
    SourceDamaged {
        /// The damaged source's place in the `sources` given to [`super::merge()`] or
        /// [`super::merge_to()`], from 0.
        source_index: usize,
        /// What is wrong with it.
        error: Box<ZarError>,
    },
    /// Extraction finished, but some entries failed; each is listed with its error.
    #[error("{} of the selected entries could not be extracted:\n{}", failures.len(), failures.iter().map(|f| format!("  {f}")).collect::<Vec<_>>().join("\n"))]
    ExtractFailed {
        /// Every failed entry, in archive order.
        failures: Vec<ExtractFailure>,
    },
}

impl ZarError {
    /// Wrap an I/O error with what was being done.
    pub fn io(what: impl Into<String>, cause: io::Error) -> ZarError {
        ZarError::Io {
            what: what.into(),
            cause,
        }
    }

    /// An error about a path on disk.
    pub fn path(path: impl Into<PathBuf>, reason: impl Into<String>) -> ZarError {
        ZarError::Path {
            path: path.into(),
            reason: reason.into(),
            cause: None,
        }
    }

    /// An I/O error on a path on disk: `what` was being done ("cannot read"), `cause` is the
    /// system's error, kept (and its kind survives a conversion to [`io::Error`]).
    pub fn path_io(
        path: impl Into<PathBuf>,
        what: impl Into<String>,
        cause: io::Error,
    ) -> ZarError {
        // A temporary file's error (the `tempfile` crate's) names its own random path
        // after the reason: the message names the path that matters already.
        let text = cause.to_string();
        let text = text.split(" at path \"").next().unwrap_or_default();
        ZarError::Path {
            path: path.into(),
            reason: format!("{}: {text}", what.into()),
            cause: Some(cause),
        }
    }

    /// The archive error behind a failed read of a [`super::FileReader`] (which carries it
    /// inside an [`io::Error`]), or the I/O error itself, naming the file `path`.
    pub fn from_read(path: &str, e: io::Error) -> ZarError {
        if e.get_ref().is_some_and(|inner| inner.is::<ZarError>()) {
            if let Some(Ok(z)) = e.into_inner().map(|inner| inner.downcast::<ZarError>()) {
                return *z;
            }
            return ZarError::io(format!("reading {path}"), io::Error::other("read failed"));
        }
        ZarError::io(format!("reading {path}"), e)
    }

    /// The kind of the I/O error at the root of this error, if one is.
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            ZarError::Io { cause, .. } => Some(cause.kind()),
            ZarError::Path {
                cause: Some(cause), ..
            } => Some(cause.kind()),
            ZarError::File { cause, .. } => cause.io_kind(),
            ZarError::Exists { .. } => Some(io::ErrorKind::AlreadyExists),
            _ => None,
        }
    }
}

/// One entry that failed to extract.
#[derive(Debug)]
pub struct ExtractFailure {
    /// The entry's path in the archive (empty for a failure of the whole archive, such as a
    /// hash mismatch).
    pub path: String,
    /// Why it failed.
    pub error: ZarError,
    /// For a directory: how many entries below it were therefore not extracted.
    pub not_extracted_inside: u64,
}

impl std::fmt::Display for ExtractFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.error, f)?;
        match self.not_extracted_inside {
            0 => Ok(()),
            1 => f.write_str(" (1 entry inside was not extracted)"),
            n => write!(f, " ({n} entries inside were not extracted)"),
        }
    }
}

impl From<ZarError> for io::Error {
    fn from(e: ZarError) -> io::Error {
        // A system error keeps its kind (a permission denied stays one); everything the
        // archive's own bytes caused is invalid data.
        let kind = e.io_kind().unwrap_or(match e {
            // What the caller asked the writer for, not the data, was wrong.
            ZarError::NoFileStarted | ZarError::Entry { .. } => io::ErrorKind::InvalidInput,
            _ => io::ErrorKind::InvalidData,
        });
        io::Error::new(kind, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_error_keeps_its_kind_through_io_error_and_is_told_once() {
        let e = ZarError::path_io(
            "/x/y",
            "cannot open",
            io::Error::from(io::ErrorKind::PermissionDenied),
        );
        // Its message is part of the error's: a report walking `source()` would print it
        // twice (it did).
        assert!(std::error::Error::source(&e).is_none());
        assert!(e.to_string().starts_with("/x/y: cannot open: "), "{e}");
        let as_io: io::Error = e.into();
        assert_eq!(as_io.kind(), io::ErrorKind::PermissionDenied);
        let wrapped = ZarError::File {
            path: "f".into(),
            cause: Box::new(ZarError::io(
                "reading",
                io::Error::from(io::ErrorKind::Interrupted),
            )),
        };
        assert!(std::error::Error::source(&wrapped).is_none());
        assert!(
            wrapped.to_string().starts_with("file f: reading: "),
            "{wrapped}"
        );
        assert_eq!(io::Error::from(wrapped).kind(), io::ErrorKind::Interrupted);
        let damage = ZarError::Block {
            block: 3,
            reason: "bad".into(),
            cause: None,
        };
        assert_eq!(io::Error::from(damage).kind(), io::ErrorKind::InvalidData);
    }
}
