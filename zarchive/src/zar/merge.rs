//! Merging several sources into one archive: directories on disk, existing archives (read
//! through the decoder, never extracted to disk) and the caller's own entries. A later
//! source's file replaces an earlier one at the same path, compared ignoring ASCII case as ZAR
//! looks names up; directories merge. An entry replaced by one of another kind (a directory
//! by a file, with everything under it, or a file by a directory) is reported as a
//! [`PackWarning::ReplacedKind`]. The result is byte-identical to packing the merged tree
//! laid out on disk, because it is written by the same function in the same canonical order.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::error::ZarError;
use super::names;
use super::pack::{self, Item, ItemData, PackEvent, PackOptions, PackSummary, PackWarning};
use super::reader::{Archive, EntryKind};

/// Where entries come from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Source<'a> {
    /// A directory tree on disk, walked as [`pack::pack_dir`] walks it: its contents at
    /// the top of the archive.
    Dir(PathBuf),
    /// A directory tree on disk placed in the folder `folder` at the top of the archive, as
    /// a `.wua` holds each title in a folder named after it (see
    /// [`wua::parse_title_folder`](super::wua::parse_title_folder)).
    DirIn {
        /// The tree.
        dir: PathBuf,
        /// The folder's name: one path component.
        folder: String,
    },
    /// Every entry of an open archive.
    Archive(&'a Archive),
    /// The caller's own entries: `/`-separated paths, with `None` for a directory.
    /// Parents are created as needed.
    Entries(Vec<(String, Option<Arc<[u8]>>)>),
}

/// One name in the merged tree.
struct Node<'a> {
    /// The name as first seen (later sources replace the contents, not the name, as copying
    /// onto a case-insensitive disk does).
    name: Vec<u8>,
    what: What<'a>,
}

enum What<'a> {
    Dir(Tree<'a>),
    File { data: ItemData<'a>, size: u64 },
}

/// A directory: its children, looked up by ASCII-lowercased name.
#[derive(Default)]
struct Tree<'a> {
    children: HashMap<Vec<u8>, Node<'a>>,
}

impl Tree<'_> {
    /// Entries under this directory, at any depth.
    fn count(&self) -> u64 {
        self.children
            .values()
            .map(|n| match &n.what {
                What::Dir(t) => 1 + t.count(),
                What::File { .. } => 1,
            })
            .sum()
    }
}

impl<'a> Tree<'a> {
    /// The directory at `path` (created, replacing a file on the way, as needed: each
    /// replaced file is reported in `replaced`).
    fn dir_at(&mut self, path: &[u8], replaced: &mut Vec<PackWarning>) -> &mut Tree<'a> {
        let mut cur = self;
        let mut so_far: Vec<u8> = Vec::new();
        for part in names::split_path(path) {
            let top = so_far.is_empty();
            if !top {
                so_far.push(b'/');
            }
            so_far.extend_from_slice(part);
            let node = cur
                .children
                .entry(part.to_ascii_lowercase())
                .or_insert_with(|| Node {
                    name: part.to_vec(),
                    what: What::Dir(Tree::default()),
                });
            // The first spelling is kept, except at the top where a later one names a `.wua`
            // title folder and the first does not (`..._V208` against `..._v208`): Cemu
            // sees only the title folder, so an update could not repair the name.
            if top && is_title_folder(part) && !is_title_folder(&node.name) {
                node.name = part.to_vec();
            }
            if !matches!(node.what, What::Dir(_)) {
                replaced.push(PackWarning::ReplacedKind {
                    path: names::display(&so_far),
                    was_dir: false,
                    entries: 0,
                });
                node.what = What::Dir(Tree::default());
            }
            let What::Dir(t) = &mut node.what else {
                unreachable!("made a directory just above")
            };
            cur = t;
        }
        cur
    }

    /// Add `item` (its path's parents are made directories); an entry of another kind it
    /// replaces is reported in `replaced`.
    fn add(&mut self, item: Item<'a>, replaced: &mut Vec<PackWarning>) {
        let path = item.archive_path;
        let (parent, name) = match path.iter().rposition(|&c| c == b'/' || c == b'\\') {
            Some(i) => (&path[..i], &path[i + 1..]),
            None => (&path[..0], &path[..]),
        };
        if name.is_empty() {
            return;
        }
        if matches!(item.data, ItemData::Dir) {
            self.dir_at(&path, replaced);
            return;
        }
        let dir = self.dir_at(parent, replaced);
        let what = What::File {
            data: item.data,
            size: item.size,
        };
        match dir.children.get_mut(&name.to_ascii_lowercase()) {
            Some(node) => {
                if let What::Dir(t) = &node.what {
                    replaced.push(PackWarning::ReplacedKind {
                        path: names::display(&path),
                        was_dir: true,
                        entries: t.count(),
                    });
                }
                node.what = what;
            }
            None => {
                dir.children.insert(
                    name.to_ascii_lowercase(),
                    Node {
                        name: name.to_vec(),
                        what,
                    },
                );
            }
        }
    }

    /// The items in canonical order: depth-first, a directory before its contents, siblings
    /// sorted by the ZAR name comparator (as the pack walk lists a tree).
    fn into_items(self) -> Vec<Item<'a>> {
        let mut out = Vec::new();
        // (path prefix, children still to visit, reversed so `pop` gives the first).
        let mut stack: Vec<(Vec<u8>, Vec<Node<'a>>)> = vec![(Vec::new(), sorted(self))];
        while let Some((prefix, pending)) = stack.last_mut() {
            let Some(node) = pending.pop() else {
                stack.pop();
                continue;
            };
            let mut path = prefix.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(&node.name);
            match node.what {
                What::Dir(t) => {
                    out.push(Item {
                        archive_path: path.clone(),
                        data: ItemData::Dir,
                        size: 0,
                    });
                    stack.push((path, sorted(t)));
                }
                What::File { data, size } => out.push(Item {
                    archive_path: path,
                    data,
                    size,
                }),
            }
        }
        out
    }
}

/// Whether `name` is a `.wua` title folder's (see [`super::wua::parse_title_folder`]).
fn is_title_folder(name: &[u8]) -> bool {
    std::str::from_utf8(name).is_ok_and(|n| super::wua::parse_title_folder(n).is_some())
}

/// A directory's children in reverse canonical order (the walk pops from the end).
fn sorted(t: Tree<'_>) -> Vec<Node<'_>> {
    let mut v: Vec<Node<'_>> = t.children.into_values().collect();
    v.sort_by(|a, b| names::compare(&b.name, &a.name));
    v
}

/// The items of one source, in its own order.
fn items_of<'a>(
    source: &Source<'a>,
    opts: &PackOptions,
    skip: &[PathBuf],
    output: Option<&Path>,
    warnings: &mut Vec<PackWarning>,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<Vec<Item<'a>>, ZarError> {
    Ok(match source {
        Source::Dir(dir) => pack::scan(dir, opts, skip, output, warnings, progress)?,
        Source::DirIn { dir, folder } => {
            names::check_component(folder.as_bytes()).map_err(|reason| ZarError::UnsafeName {
                dir: String::new(),
                name: names::display(folder.as_bytes()),
                reason,
            })?;
            let inner = pack::scan(dir, opts, skip, output, warnings, progress)?;
            let mut items = Vec::with_capacity(inner.len() + 1);
            items.push(Item {
                archive_path: folder.as_bytes().to_vec(),
                data: ItemData::Dir,
                size: 0,
            });
            items.extend(inner.into_iter().map(|mut item| {
                let mut path = Vec::with_capacity(folder.len() + 1 + item.archive_path.len());
                path.extend_from_slice(folder.as_bytes());
                path.push(b'/');
                path.extend_from_slice(&item.archive_path);
                item.archive_path = path;
                item
            }));
            items
        }
        Source::Archive(archive) => archive
            .walk()
            .map(|e| Item {
                archive_path: e.path(),
                data: match e.kind() {
                    EntryKind::Dir => ItemData::Dir,
                    EntryKind::File { .. } => ItemData::Archive(e),
                },
                size: e.size(),
            })
            .collect(),
        Source::Entries(entries) => {
            let mut items = Vec::with_capacity(entries.len());
            for (path, data) in entries {
                for part in names::split_path(path.as_bytes()) {
                    names::check_component(part).map_err(|reason| ZarError::UnsafeName {
                        dir: path.clone(),
                        name: names::display(part),
                        reason,
                    })?;
                }
                items.push(match data {
                    None => Item {
                        archive_path: path.as_bytes().to_vec(),
                        data: ItemData::Dir,
                        size: 0,
                    },
                    Some(bytes) => Item {
                        archive_path: path.as_bytes().to_vec(),
                        size: bytes.len() as u64,
                        data: ItemData::Bytes(bytes.clone()),
                    },
                });
            }
            items
        }
    })
}

/// Merge `sources` (later ones win) into a new archive at `out`, written to a temporary file
/// beside it and moved into place when complete, as [`pack::pack_dir`] does.
///
/// # Errors
///
/// As [`pack::pack_dir`]; a source archive's damaged block fails the merge, naming the file,
/// and so does one whose SHA-256 does not match its footer ([`ZarError::SourceDamaged`]).
/// Nothing is written then.
pub fn merge(
    sources: &[Source<'_>],
    out: &Path,
    opts: &PackOptions,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<PackSummary, ZarError> {
    pack::write_atomically(out, opts.overwrite_allowed(), |w, skip| {
        merge_guarded(
            sources,
            w,
            opts,
            skip,
            skip.first().map(PathBuf::as_path),
            progress,
        )
    })
}

/// Merge `sources` (later ones win) into `out` (any writer). `skip` lists canonical paths
/// never to take from a source directory (the archive being written).
///
/// The SHA-256 of every source archive is checked on a thread of its own while the merge
/// runs (as a full [`super::extract()`] checks it): a source whose hash does not match its
/// footer fails the merge with [`ZarError::SourceDamaged`], for a damaged stored block
/// decodes without complaint and the merged archive would carry it under a valid hash.
pub fn merge_to<W: Write>(
    sources: &[Source<'_>],
    out: W,
    opts: &PackOptions,
    skip: &[PathBuf],
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<(W, PackSummary), ZarError> {
    merge_guarded(sources, out, opts, skip, None, progress)
}

/// [`merge_to`], refusing to replace `output` (the canonical path of the archive being
/// written, among `skip`) when it is a file of a source directory that is not an archive
/// (see [`pack::scan`]).
fn merge_guarded<W: Write>(
    sources: &[Source<'_>],
    out: W,
    opts: &PackOptions,
    skip: &[PathBuf],
    output: Option<&Path>,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<(W, PackSummary), ZarError> {
    let archives: Vec<(usize, &Archive)> = sources
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Source::Archive(a) => Some((i, *a)),
            _ => None,
        })
        .collect();
    // One thread hashes the source archives one after the other (each a full read of its
    // file: several at once would only compete for the disk). It gives up when the merge
    // fails first: nothing will be written, and the merge's error is reported at once
    // (a damaged archive found by then is still reported instead).
    let stop = AtomicBool::new(false);
    let hash_all = || -> Option<ZarError> {
        for &(i, a) in &archives {
            match a.check_hash_unless(&stop) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(error @ ZarError::HashMismatch { .. }) => {
                    return Some(ZarError::SourceDamaged {
                        source_index: i,
                        error: Box::new(error),
                    });
                }
                // A file that cannot be read is no damaged archive.
                Err(e) => return Some(e),
            }
        }
        None
    };
    std::thread::scope(|s| {
        let hasher = (!archives.is_empty()).then(|| {
            std::thread::Builder::new()
                .name("zar-merge-hash".into())
                .spawn_scoped(s, hash_all)
        });
        // A block of an archive that does not decode names the file; the source it came
        // from is the last archive holding that file (a later directory's file would have
        // replaced it, and reading that is no decode).
        let result = merge_items(sources, out, opts, skip, output, progress).map_err(|e| {
            stop.store(true, Ordering::Relaxed);
            let holder = damaged_file(&e).and_then(|path| {
                archives
                    .iter()
                    .rev()
                    .find(|(_, a)| a.walk().any(|f| f.is_file() && f.path_display() == path))
            });
            match holder {
                Some(&(i, _)) => ZarError::SourceDamaged {
                    source_index: i,
                    error: Box::new(e),
                },
                None => e,
            }
        });
        let damaged = match hasher {
            None => None,
            Some(Ok(t)) => t.join().unwrap_or_else(|_| hash_all()),
            // No thread to spare: hash after the merge.
            Some(Err(_)) => hash_all(),
        };
        match damaged {
            Some(e) => Err(e),
            None => result,
        }
    })
}

/// The archive path of the file whose stored bytes `e` says are damaged (a block that does
/// not decode), if that is what `e` is.
fn damaged_file(e: &ZarError) -> Option<&str> {
    match e {
        ZarError::File { path, cause } => match **cause {
            ZarError::Block { cause: Some(_), .. } => Some(path),
            _ => None,
        },
        _ => None,
    }
}

/// [`merge_to`] without the check of the source archives' hashes.
fn merge_items<W: Write>(
    sources: &[Source<'_>],
    out: W,
    opts: &PackOptions,
    skip: &[PathBuf],
    output: Option<&Path>,
    progress: &mut dyn FnMut(PackEvent<'_>),
) -> Result<(W, PackSummary), ZarError> {
    let mut warnings = Vec::new();
    let mut tree = Tree::default();
    let mut replaced = Vec::new();
    for source in sources {
        for item in items_of(source, opts, skip, output, &mut warnings, progress)? {
            tree.add(item, &mut replaced);
            for w in replaced.drain(..) {
                progress(PackEvent::Warning(&w));
                warnings.push(w);
            }
        }
    }
    let items = tree.into_items();
    pack::write_items(&items, out, opts, warnings, progress)
}
