//! Files that appear only when complete: written under a temporary name in their final
//! directory, then renamed into place. Used for archives and for extracted files.

use std::path::Path;

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
