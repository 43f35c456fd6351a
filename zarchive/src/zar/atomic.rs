//! Files that appear only when complete: written under a temporary name in their final
//! directory, then renamed into place. Used for archives and for extracted files.

use std::path::Path;

#[cfg(doc)]
use super::{extract, merge, pack_dir};

/// Rename a finished temporary file to `target`. Without `overwrite`, an existing target is
/// never replaced: an atomic no-replace rename where the file system has one, and where it
/// has neither that nor hard links (FAT, exFAT on old kernels), a check then a rename.
pub(crate) fn move_into_place(
    tmp: tempfile::NamedTempFile,
    target: &Path,
    overwrite: bool,
) -> std::io::Result<()> {
    if overwrite {
        return tmp.persist(target).map(|_| ()).map_err(|e| e.error);
    }
    match tmp.persist_noclobber(target) {
        Ok(_) => Ok(()),
        Err(e)
            if e.error.kind() != std::io::ErrorKind::AlreadyExists
                && target.symlink_metadata().is_err() =>
        {
            e.file.persist(target).map(|_| ()).map_err(|e| e.error)
        }
        Err(e) => Err(e.error),
    }
}

/// A builder for the temporary files that become archives or extracted files: named
/// `PREFIX*.partial`, created with the ordinary mode for new files (0666 less the umask)
/// rather than the 0600 of private temporary files.
pub(crate) fn temp_builder(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).suffix(".partial");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b
}

/// The temporary files this process is writing (archives, extracted files, and those a
/// program registers with [`PartialFile`]), for [`remove_partial_files`].
static PARTIALS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

fn partials() -> std::sync::MutexGuard<'static, Vec<std::path::PathBuf>> {
    // A thread that panicked holding the list left it whole: each change is one push or
    // one removal.
    PARTIALS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file being written, listed for [`remove_partial_files`] from its creation
/// until this guard is dropped (after the file was moved into place or removed).
#[derive(Debug)]
pub struct PartialFile {
    path: std::path::PathBuf,
}

impl PartialFile {
    /// List the temporary file at `path` (as named where it was created: relative to the
    /// working directory if relative).
    pub fn new(path: &Path) -> PartialFile {
        partials().push(path.to_path_buf());
        PartialFile {
            path: path.to_path_buf(),
        }
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        let mut list = partials();
        if let Some(i) = list.iter().rposition(|p| *p == self.path) {
            list.swap_remove(i);
        }
    }
}

/// Remove every temporary file this process is writing: the archive [`pack_dir`] or
/// [`merge`] has not finished, the files [`extract`] has not moved into place, and those
/// listed with [`PartialFile`]. For a program stopped by a signal (Ctrl-C), whose
/// destructors do not run: call it from the signal's handler, then exit. Files already
/// moved into place are not touched (their temporary names are gone). Returns how many
/// were removed.
pub fn remove_partial_files() -> usize {
    partials()
        .drain(..)
        .filter(|path| std::fs::remove_file(path).is_ok())
        .count()
}
