//! Reading archives: open and validate the whole index, look entries up, read file bytes.
//!
//! Everything read from the archive is hostile until checked. [`Archive::open`] validates
//! the footer, every section, the offset records, every reachable node, name and file extent
//! before it returns, with memory bounded by the file's real size; after that, reads can only
//! fail on block contents (corrupt or short blocks), and then say which block and which file.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::compressor::{BlockDecodeContext, BlockDecompressor, ZstdDecompressor};
use super::error::ZarError;
use super::format::*;
use super::mmap::Mapped;
use super::names;
use super::source::{FileSource, MmapSource, ReadAt, SeekSource};
use crate::zstd;

/// Blocks kept decoded by default (1 MiB).
pub const DEFAULT_CACHE_BLOCKS: usize = 16;

/// How to open an archive.
#[derive(Clone)]
pub struct OpenOptions {
    mmap: bool,
    cache_blocks: usize,
    decompressor: Arc<dyn BlockDecompressor>,
}

impl std::fmt::Debug for OpenOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenOptions")
            .field("mmap", &self.mmap)
            .field("cache_blocks", &self.cache_blocks)
            .field("decompressor", &self.decompressor.describe())
            .finish()
    }
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            mmap: true,
            cache_blocks: DEFAULT_CACHE_BLOCKS,
            decompressor: Arc::new(ZstdDecompressor),
        }
    }
}

impl OpenOptions {
    /// Default options: memory-map when possible, a 16-block cache.
    pub fn new() -> Self {
        Self::default()
    }
    /// Whether to memory-map the file (default true; falls back to plain reads when the map
    /// fails). The map serves random access (`cat`, [`FileReader`], mounts); passes over the
    /// whole archive ([`super::extract`], [`super::verify`], [`Archive::compute_hash`]) read
    /// the file with positioned reads in bounded batches either way, so they never leave the
    /// archive resident.
    ///
    /// # Security
    ///
    /// A mapped file that another process truncates while it is open makes the next access
    /// to the lost pages raise `SIGBUS`, which ends the process: the map cannot turn that
    /// into an error. Turn the map off for archives that untrusted processes can modify
    /// while they are open (plain positioned reads then fail with an error instead). The
    /// bytes themselves are validated the same way either way.
    pub fn mmap(mut self, on: bool) -> Self {
        self.mmap = on;
        self
    }
    /// How many decoded 64 KiB blocks to keep (at least 1).
    pub fn cache_blocks(mut self, n: usize) -> Self {
        self.cache_blocks = n.max(1);
        self
    }
    /// What decodes compressed blocks (default [`ZstdDecompressor`], this crate's decoder).
    pub fn decompressor(mut self, d: Arc<dyn BlockDecompressor>) -> Self {
        self.decompressor = d;
        self
    }
    /// Open the archive at `path`.
    pub fn open(&self, path: impl AsRef<Path>) -> Result<Archive, ZarError> {
        let path = path.as_ref();
        // Checked before opening: opening a fifo would wait for a writer, and its length (0)
        // would only give a misleading "too small".
        match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => {
                let reason = if m.is_dir() {
                    "is a directory, not an archive"
                } else {
                    "is not a regular file (a pipe, socket or device); an archive is read at random positions and must be a file (read a stream into memory and open that instead)"
                };
                return Err(ZarError::path(path, reason));
            }
            _ => {}
        }
        let file = File::open(path).map_err(|e| ZarError::path_io(path, "cannot open it", e))?;
        let source: Box<dyn ReadAt> = match self.mmap.then(|| Mapped::map(&file)) {
            Some(Ok(map)) => Box::new(MmapSource::new(map, file)),
            _ => Box::new(FileSource::new(file).map_err(|e| {
                ZarError::io(format!("cannot read {}", names::display_path(path)), e)
            })?),
        };
        Archive::from_source(source, self)
    }
    /// Open an archive from any seekable reader.
    pub fn open_reader<R: Read + Seek + Send + 'static>(
        &self,
        reader: R,
    ) -> Result<Archive, ZarError> {
        let source =
            SeekSource::new(reader).map_err(|e| ZarError::io("cannot seek the archive", e))?;
        Archive::from_source(Box::new(source), self)
    }

    /// Open an archive from any [`ReadAt`] source: the archive's bytes in memory (a
    /// `Vec<u8>`, read in place without the lock and the copies of
    /// [`open_reader`](Self::open_reader)) or a source of the caller's own.
    pub fn open_read_at(&self, source: impl ReadAt + 'static) -> Result<Archive, ZarError> {
        Archive::from_source(Box::new(source), self)
    }
}

/// Identifies an entry of an open archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(u32);

impl EntryId {
    /// The root directory.
    pub const ROOT: EntryId = EntryId(0);
    /// The node index in the file tree.
    pub fn index(self) -> u32 {
        self.0
    }
    /// The id with node index `index` (as given by [`EntryId::index`]); whether it names an
    /// entry is checked by [`Archive::entry`].
    pub fn from_index(index: u32) -> EntryId {
        EntryId(index)
    }
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A file of `size` bytes starting at `offset` in the uncompressed stream.
    File {
        /// Stream offset.
        offset: u64,
        /// Size in bytes.
        size: u64,
    },
    /// A directory.
    Dir,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// Name range in the name table (empty for the root).
    name_start: u32,
    name_len: u32,
    parent: u32,
    kind: NodeKind,
}

#[derive(Debug, Clone, Copy)]
enum NodeKind {
    File {
        offset: u64,
        size: u64,
    },
    Dir {
        first: u32,
        count: u32,
        sorted: bool,
    },
}

/// An open, validated archive.
pub struct Archive {
    source: Box<dyn ReadAt>,
    footer: Footer,
    records: Vec<OffsetRecord>,
    /// Blocks whose stored extent lies inside the compressed-data section (a prefix).
    block_count: u64,
    names: Vec<u8>,
    nodes: Vec<Node>,
    file_count: u64,
    dir_count: u64,
    cache: Mutex<BlockCache>,
    decompressor: Arc<dyn BlockDecompressor>,
    /// Idle decoding contexts, taken by the thread that decodes a block.
    decoders: Mutex<Vec<Box<dyn BlockDecodeContext>>>,
    /// The dictionaries of the dictionary extension (none in v1 archives).
    dictionaries: Vec<ArchiveDictionary>,
}

/// A zstd dictionary an archive holds (the dictionary extension): blocks whose frames name
/// its ID decode with it.
#[derive(Debug, Clone)]
pub struct ArchiveDictionary {
    /// Its ID, as frames name it.
    pub id: u32,
    /// Where its bytes lie in the archive file.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// The dictionary, parsed once and shared by every decoding context.
    pub dictionary: zstd::DecoderDictionary,
    /// Its bytes as stored (a zstd-format dictionary).
    pub bytes: Arc<[u8]>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("size", &self.footer.total_size)
            .field("blocks", &self.block_count)
            .field("files", &self.file_count)
            .field("dirs", &self.dir_count)
            .finish_non_exhaustive()
    }
}

/// A borrowed view of one entry.
#[derive(Clone, Copy)]
pub struct Entry<'a> {
    archive: &'a Archive,
    id: EntryId,
}

impl std::fmt::Debug for Entry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("path", &self.path_display())
            .field("kind", &self.kind())
            .finish()
    }
}

/// Whether the file at `path` looks like a ZAR archive: its last 144 bytes are a footer
/// with the ZAR magic that gives the file's own length. Nothing else is read or checked
/// ([`Archive::open`] validates); any error reading it is a no.
pub fn looks_like_archive(path: impl AsRef<Path>) -> bool {
    let footer = (|| {
        let mut f = std::fs::File::open(path.as_ref())?;
        let len = f.metadata()?.len();
        let Some(at) = len.checked_sub(FOOTER_SIZE as u64) else {
            return Ok(None);
        };
        let mut b = [0u8; FOOTER_SIZE];
        f.seek(SeekFrom::Start(at))?;
        f.read_exact(&mut b)?;
        Ok::<_, std::io::Error>(Some((Footer::parse(&b), len)))
    })();
    matches!(footer, Ok(Some((footer, len))) if footer.magic == MAGIC && footer.total_size == len)
}

impl Archive {
    /// Open and validate the archive at `path` with default [`OpenOptions`] (memory-mapped,
    /// a 16-block cache).
    ///
    /// # Errors
    ///
    /// [`ZarError::Io`] or [`ZarError::Path`] when the file cannot be opened or read (or is
    /// not a regular file); [`ZarError::NotAnArchive`], [`ZarError::UnsupportedVersion`],
    /// [`ZarError::TotalSizeMismatch`], [`ZarError::BadSection`], [`ZarError::BadTree`],
    /// [`ZarError::BadName`], [`ZarError::UnsafeName`], [`ZarError::DuplicateName`] or
    /// [`ZarError::FileExtent`] when the index does not validate. Block contents are not
    /// decoded here: a damaged block fails the reads that need it (or [`super::verify`]).
    ///
    /// # Security
    ///
    /// The archive's bytes are treated as hostile. The whole index is validated before this
    /// returns (checked arithmetic for every section, child ranges, no node reached twice,
    /// every name a single safe path component, no duplicate names ignoring ASCII case,
    /// every file covered by existing blocks), memory is bounded by the file's real size,
    /// and no size field drives an allocation. See [`OpenOptions::mmap`] for the one risk of
    /// the memory map.
    pub fn open(path: impl AsRef<Path>) -> Result<Archive, ZarError> {
        OpenOptions::default().open(path)
    }

    /// Open and validate an archive from any seekable reader.
    pub fn from_reader<R: Read + Seek + Send + 'static>(reader: R) -> Result<Archive, ZarError> {
        OpenOptions::default().open_reader(reader)
    }

    /// Open and validate an archive from any [`ReadAt`] source, such as its bytes in memory
    /// (see [`OpenOptions::open_read_at`]).
    pub fn from_read_at(source: impl ReadAt + 'static) -> Result<Archive, ZarError> {
        OpenOptions::default().open_read_at(source)
    }

    /// Validate everything the index says. Mirrors zarchivereader.cpp `OpenFromFile`, plus
    /// the checks the reference reader lacks (wrap-around, child ranges, cycles, names, extents).
    fn from_source(source: Box<dyn ReadAt>, opts: &OpenOptions) -> Result<Archive, ZarError> {
        let len = source.len();
        if len < (FOOTER_SIZE + NODE_SIZE) as u64 {
            return Err(ZarError::NotAnArchive {
                reason: format!(
                    "the file is {len} byte{}, too small to hold a root node and the 144-byte footer",
                    if len == 1 { "" } else { "s" }
                ),
            });
        }
        let mut fb = [0u8; FOOTER_SIZE];
        source
            .read_exact_at(len - FOOTER_SIZE as u64, &mut fb)
            .map_err(|e| ZarError::io("cannot read the footer", e))?;
        let footer = Footer::parse(&fb);
        if footer.magic != MAGIC {
            return Err(ZarError::NotAnArchive {
                reason: format!(
                    "the footer magic is 0x{:08X}, expected 0x{MAGIC:08X} (an archive ends \
                     with it: this file is not one, or was cut short, as by an incomplete \
                     download)",
                    footer.magic
                ),
            });
        }
        if footer.version != VERSION_1 && footer.version != VERSION_META {
            return Err(ZarError::UnsupportedVersion {
                found: footer.version,
            });
        }
        if footer.total_size != len {
            return Err(ZarError::TotalSizeMismatch {
                footer: footer.total_size,
                actual: len,
            });
        }
        let body_end = len - FOOTER_SIZE as u64;
        for (name, s) in footer.sections() {
            match s.end() {
                Some(end) if end <= body_end => {}
                _ => {
                    return Err(bad_section(
                        name,
                        s,
                        format!(
                            "it does not lie inside the first {body_end} bytes (before the footer)"
                        ),
                    ));
                }
            }
        }
        let check = |name, s: Section, max: u64, unit: u64, min: u64| -> Result<(), ZarError> {
            if s.size > max {
                return Err(bad_section(
                    name,
                    s,
                    format!("larger than the format allows ({max} bytes)"),
                ));
            }
            if !s.size.is_multiple_of(unit) || s.size < min {
                return Err(bad_section(
                    name,
                    s,
                    format!("the size must be a multiple of {unit} (at least {min})"),
                ));
            }
            Ok(())
        };
        check(
            "offset records",
            footer.offset_records,
            MAX_RECORDS_SECTION,
            RECORD_SIZE as u64,
            0,
        )?;
        check("name table", footer.names, MAX_NAMES_SECTION, 1, 0)?;
        check(
            "file tree",
            footer.file_tree,
            MAX_TREE_SECTION,
            NODE_SIZE as u64,
            NODE_SIZE as u64,
        )?;

        // Sizes are now bounded by the file length, so these allocations are too.
        let read_section = |name: &'static str, s: Section| -> Result<Vec<u8>, ZarError> {
            let mut buf = vec![0u8; s.size as usize];
            source
                .read_exact_at(s.offset, &mut buf)
                .map_err(|e| ZarError::io(format!("cannot read the {name} section"), e))?;
            Ok(buf)
        };
        let records: Vec<OffsetRecord> = read_section("offset records", footer.offset_records)?
            .chunks_exact(RECORD_SIZE)
            .map(|c| OffsetRecord::parse(c.try_into().expect("chunk of RECORD_SIZE")))
            .collect();
        let names = read_section("name table", footer.names)?;
        let raw_nodes: Vec<RawNode> = read_section("file tree", footer.file_tree)?
            .chunks_exact(NODE_SIZE)
            .map(|c| RawNode::parse(c.try_into().expect("chunk of NODE_SIZE")))
            .collect();

        // v1 readers ignore the meta sections; the extension's must validate.
        let dictionaries = if footer.version == VERSION_META {
            let dir = read_section("meta directory", footer.meta_directory)?;
            read_dictionaries(&*source, &footer, &dir)?
        } else {
            Vec::new()
        };
        let (in_range, in_use, first_bad_block) =
            present_blocks(&records, footer.compressed_data.size);
        let mut archive = Archive {
            source,
            footer,
            records,
            // Every slot a file may need while the tree is checked; then those in use, and
            // any others a file needs (which fail when read, not at open).
            block_count: in_range,
            names,
            nodes: Vec::new(),
            file_count: 0,
            dir_count: 0,
            cache: Mutex::new(BlockCache::new(opts.cache_blocks)),
            decompressor: opts.decompressor.clone(),
            decoders: Mutex::new(Vec::new()),
            dictionaries,
        };
        archive.build_tree(&raw_nodes, first_bad_block)?;
        let needed = archive
            .nodes
            .iter()
            .filter_map(|n| match n.kind {
                NodeKind::File { offset, size } if size > 0 => {
                    Some((offset + size).div_ceil(BLOCK_SIZE_U64))
                }
                _ => None,
            })
            .max()
            .unwrap_or(0);
        archive.block_count = in_use.min(in_range).max(needed);
        Ok(archive)
    }

    /// Walk the tree breadth-first from the root with a visited set: every child range in
    /// bounds, no node reached twice, every name decodable and safe, no duplicate names,
    /// every file extent covered by present blocks.
    fn build_tree(
        &mut self,
        raw: &[RawNode],
        first_bad_block: Option<(u64, String)>,
    ) -> Result<(), ZarError> {
        let n = raw.len();
        let RawNode::Dir { name_offset, .. } = raw[0] else {
            return Err(ZarError::BadTree {
                path: "/".into(),
                reason: "the root node is a file, not a directory".into(),
            });
        };
        // The root has no name (written as offset 0x7FFFFFFF); the reference reader refuses
        // one whose name decodes to something (an offset at an empty name, or at none, it
        // takes as no name: so do we, where any other offset was refused).
        if name_offset != ROOT_NAME_OFFSET
            && let Some(range) = names::decode_entry(&self.names, name_offset as usize)
            && !range.is_empty()
        {
            return Err(ZarError::BadTree {
                path: "/".into(),
                reason: format!(
                    "the root directory carries a name (\"{}\", at name-table offset \
                     {name_offset})",
                    names::display(&self.names[range])
                ),
            });
        }
        const UNVISITED: u32 = u32::MAX;
        // Nodes not reachable from the root stay as placeholders and are never exposed.
        self.nodes = vec![
            Node {
                name_start: 0,
                name_len: 0,
                parent: UNVISITED,
                kind: NodeKind::File { offset: 0, size: 0 }
            };
            n
        ];
        self.nodes[0].parent = 0;
        let stream_end = self.block_count * BLOCK_SIZE_U64;
        let mut queue = VecDeque::from([0u32]);
        while let Some(d) = queue.pop_front() {
            let RawNode::Dir {
                first_child, count, ..
            } = raw[d as usize]
            else {
                unreachable!("only directories are queued")
            };
            // An empty directory's first child may be anything (the reference reader never
            // reads an empty range; another writer may leave 0xFFFFFFFF there).
            let first_child = if count == 0 { 0 } else { first_child };
            let end = u64::from(first_child) + u64::from(count);
            if end > n as u64 {
                return Err(ZarError::BadTree {
                    path: self.path_display_of(d),
                    reason: format!(
                        "its children are nodes {first_child}..{end} but the tree has only {n} nodes"
                    ),
                });
            }
            self.nodes[d as usize].kind = NodeKind::Dir {
                first: first_child,
                count,
                sorted: true,
            };
            self.dir_count += 1;
            for c in first_child..first_child + count {
                let ci = c as usize;
                if self.nodes[ci].parent != UNVISITED {
                    return Err(ZarError::BadTree {
                        path: self.path_display_of(d),
                        reason: format!(
                            "its child node {c} is already part of the tree (a cycle or a shared subtree)"
                        ),
                    });
                }
                self.nodes[ci].parent = d;
                let name_offset = raw[ci].name_offset();
                let range =
                    names::decode_entry(&self.names, name_offset as usize).ok_or_else(|| {
                        ZarError::BadName {
                            dir: self.path_display_of(d),
                            index: c,
                            offset: name_offset,
                        }
                    })?;
                let name = &self.names[range.clone()];
                if let Err(reason) = names::check_component(name) {
                    return Err(ZarError::UnsafeName {
                        dir: self.path_display_of(d),
                        name: names::display(name),
                        reason,
                    });
                }
                self.nodes[ci].name_start = range.start as u32;
                self.nodes[ci].name_len = range.len() as u32;
                match raw[ci] {
                    RawNode::Dir { .. } => queue.push_back(c),
                    RawNode::File { offset, size, .. } => {
                        self.file_count += 1;
                        self.nodes[ci].kind = NodeKind::File { offset, size };
                        let end = offset + size; // both < 2^48: no overflow
                        if size > 0 && end > stream_end {
                            let (first, last) =
                                (offset / BLOCK_SIZE_U64, (end - 1) / BLOCK_SIZE_U64);
                            let reason = match &first_bad_block {
                                Some((b, why)) if (first..=last).contains(b) => {
                                    format!("need block {b}, {why}")
                                }
                                _ => format!(
                                    "need blocks {first} to {last} but the archive holds only {} {}",
                                    self.block_count,
                                    if self.block_count == 1 {
                                        "block"
                                    } else {
                                        "blocks"
                                    }
                                ),
                            };
                            return Err(ZarError::FileExtent {
                                path: self.path_display_of(c),
                                offset,
                                size,
                                reason,
                            });
                        }
                    }
                }
            }
            self.check_directory_names(d)?;
        }
        Ok(())
    }

    /// Note whether a directory's children are in comparator order (then lookups use binary
    /// search) and refuse names that collide ignoring ASCII case.
    fn check_directory_names(&mut self, d: u32) -> Result<(), ZarError> {
        let NodeKind::Dir { first, count, .. } = self.nodes[d as usize].kind else {
            return Ok(());
        };
        let ids: Vec<u32> = (first..first + count).collect();
        let sorted = ids
            .windows(2)
            .all(|w| names::compare(self.name_of(w[0]), self.name_of(w[1])).is_lt());
        if !sorted {
            let mut order = ids.clone();
            order.sort_by(|&a, &b| names::compare(self.name_of(a), self.name_of(b)));
            if let Some(w) = order
                .windows(2)
                .find(|w| names::eq_ignore_case(self.name_of(w[0]), self.name_of(w[1])))
            {
                return Err(ZarError::DuplicateName {
                    dir: self.path_display_of(d),
                    name: names::display(self.name_of(w[1])),
                });
            }
        }
        self.nodes[d as usize].kind = NodeKind::Dir {
            first,
            count,
            sorted,
        };
        Ok(())
    }

    fn name_of(&self, id: u32) -> &[u8] {
        let n = &self.nodes[id as usize];
        &self.names[n.name_start as usize..(n.name_start + n.name_len) as usize]
    }

    fn path_of(&self, id: u32) -> Vec<u8> {
        let mut parts = Vec::new();
        let mut cur = id;
        while cur != 0 {
            parts.push(self.name_of(cur));
            cur = self.nodes[cur as usize].parent;
        }
        parts.reverse();
        parts.join(&b'/')
    }

    fn path_display_of(&self, id: u32) -> String {
        if id == 0 {
            "/".into()
        } else {
            names::display(&self.path_of(id))
        }
    }

    /// The footer.
    pub fn footer(&self) -> &Footer {
        &self.footer
    }
    /// Number of data blocks.
    pub fn block_count(&self) -> u64 {
        self.block_count
    }
    /// Number of files.
    pub fn file_count(&self) -> u64 {
        self.file_count
    }
    /// Number of directories, the root included.
    pub fn dir_count(&self) -> u64 {
        self.dir_count
    }
    /// Total length of the archive file.
    pub fn archive_size(&self) -> u64 {
        self.footer.total_size
    }
    /// The root directory.
    pub fn root(&self) -> Entry<'_> {
        Entry {
            archive: self,
            id: EntryId::ROOT,
        }
    }
    /// The entry `id`, as returned by this archive's [`Entry::id`].
    ///
    /// # Errors
    ///
    /// [`ZarError::ForeignEntry`] for an id that names no entry of this archive (one taken
    /// from another archive).
    pub fn entry(&self, id: EntryId) -> Result<Entry<'_>, ZarError> {
        match self.nodes.get(id.0 as usize) {
            // Nodes never reached from the root were left without a parent at open.
            Some(n) if n.parent != u32::MAX => Ok(Entry { archive: self, id }),
            _ => Err(ZarError::ForeignEntry { id: id.0 }),
        }
    }

    /// Find an entry by path: components split on `/` and `\`, empty components ignored, ASCII
    /// letters compared ignoring case. Mirrors zarchivereader.cpp `LookUp`, and besides it
    /// skips `.` components (`./sub`, as shells and `find .` write paths; no entry can be
    /// named `.`) and, as every POSIX lookup does, finds only a directory for a path ending
    /// in a separator or `.` (`sub/f.txt/` and `sub/f.txt/.` are no file).
    pub fn lookup(&self, path: impl AsRef<[u8]>) -> Option<Entry<'_>> {
        let path = path.as_ref();
        let mut cur = self.root();
        for part in names::split_path(path).filter(|p| *p != b".") {
            cur = cur.child(part)?;
        }
        // `f.txt/` and `f.txt/.` alike: the last component names a directory.
        let last = path.rsplit(|&c| c == b'/' || c == b'\\').next();
        if path.len() > 1 && matches!(last, Some(b"" | b".")) && !cur.is_dir() {
            return None;
        }
        Some(cur)
    }

    /// The child of directory node `dir` named `name` (ASCII case ignored): binary search
    /// when the directory is in comparator order, a scan otherwise.
    fn child_of(&self, dir: u32, name: &[u8]) -> Option<u32> {
        let NodeKind::Dir {
            first,
            count,
            sorted,
        } = self.nodes[dir as usize].kind
        else {
            return None;
        };
        let children = first..first + count;
        if sorted {
            let (mut lo, mut hi) = (children.start, children.end);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match names::compare(self.name_of(mid), name) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return Some(mid),
                }
            }
            None
        } else {
            children
                .into_iter()
                .find(|&c| names::eq_ignore_case(self.name_of(c), name))
        }
    }

    /// Like [`Archive::lookup`], with an error naming the path when it is missing.
    pub fn get(&self, path: impl AsRef<[u8]>) -> Result<Entry<'_>, ZarError> {
        let p = path.as_ref();
        self.lookup(p).ok_or_else(|| ZarError::NotFound {
            path: names::display(p),
        })
    }

    /// Every entry below the root, depth-first in stored order, a directory before its
    /// contents (the order the reference extractor uses). Uses an explicit stack.
    pub fn walk(&self) -> Walk<'_> {
        self.root().walk()
    }

    /// Open the file at `path` for reading.
    pub fn open_file(&self, path: impl AsRef<[u8]>) -> Result<FileReader<'_>, ZarError> {
        self.get(path)?.open()
    }

    /// Read one decoded block (through the cache).
    pub fn read_block(&self, block: u64) -> Result<DecodedBlock, ZarError> {
        self.read_block_shared(block).map(DecodedBlock)
    }

    /// [`Archive::read_block`] as the cache holds it: the block's 65,536 bytes, then the
    /// decoder's slack.
    fn read_block_shared(&self, block: u64) -> Result<Arc<[u8]>, ZarError> {
        if let Some(b) = self.cache.lock().ok().and_then(|mut c| c.get(block)) {
            return Ok(b);
        }
        let (pos, len) = self.block_extent(block)?;
        let owned: Vec<u8>;
        let stored: &[u8] = match self.source.slice(pos, len as usize) {
            Some(s) => s,
            None => {
                owned = self.stored_block(block)?;
                &owned
            }
        };
        self.decode_cached(block, stored)
    }

    /// Decode `block` from its stored bytes into a cache buffer and cache it. The buffer is
    /// the least recently used entry's when the cache is full and nobody else holds it, so
    /// a pass over many blocks allocates, zeroes and copies no block buffer after the first
    /// few.
    fn decode_cached(&self, block: u64, stored: &[u8]) -> Result<Arc<[u8]>, ZarError> {
        let spare = self.cache.lock().ok().and_then(|mut c| c.spare());
        let mut data = spare.unwrap_or_else(|| Arc::from(vec![0u8; BLOCK_BUFFER_SIZE]));
        if Arc::get_mut(&mut data).is_none() {
            data = Arc::from(vec![0u8; BLOCK_BUFFER_SIZE]);
        }
        let buf = Arc::get_mut(&mut data).ok_or_else(|| ZarError::Block {
            block,
            reason: "no block buffer to decode into".into(),
            cause: None,
        })?;
        self.decode_stored(block, stored, buf)?;
        if let Ok(mut c) = self.cache.lock() {
            c.put(block, data.clone());
        }
        Ok(data)
    }

    /// Stored extent of `block`: file offset and length.
    pub fn block_extent(&self, block: u64) -> Result<(u64, u64), ZarError> {
        if block >= self.block_count {
            return Err(ZarError::Block {
                block,
                reason: format!("the archive has only {} blocks", self.block_count),
                cause: None,
            });
        }
        let rec = &self.records[(block / BLOCKS_PER_RECORD as u64) as usize];
        let (off, len) = rec.block_extent((block % BLOCKS_PER_RECORD as u64) as usize);
        Ok((self.footer.compressed_data.offset + off, len))
    }

    /// The stored bytes of `block` as they are in the archive (raw or compressed).
    pub fn stored_block(&self, block: u64) -> Result<Vec<u8>, ZarError> {
        let (pos, len) = self.block_extent(block)?;
        let mut buf = vec![0u8; len as usize];
        self.source
            .read_exact_at(pos, &mut buf)
            // A failed read, not damage: its kind is kept (it was invalid data).
            .map_err(|cause| ZarError::Io {
                what: format!("block {block}: reading its {len} bytes at offset {pos}"),
                cause,
            })?;
        Ok(buf)
    }

    /// Read and decode `block` without the cache: a stored length of 65536 is a raw block,
    /// anything else is zstd frames that must decode to exactly 65536 bytes.
    /// Mirrors zarchivereader.cpp `LoadBlock` (with its checks made strict).
    pub fn decode_block(&self, block: u64) -> Result<Vec<u8>, ZarError> {
        let (pos, len) = self.block_extent(block)?;
        let mut out = vec![0u8; BLOCK_BUFFER_SIZE];
        let owned: Vec<u8>;
        let stored: &[u8] = match self.source.slice(pos, len as usize) {
            Some(s) => s,
            None => {
                owned = self.stored_block(block)?;
                &owned
            }
        };
        self.decode_stored(block, stored, &mut out)?;
        out.truncate(BLOCK_SIZE);
        Ok(out)
    }

    /// Decode the stored bytes of `block` into `out[..65536]`; `out` is at least that long,
    /// and its bytes past the block are the decoder's scratch ([`BLOCK_BUFFER_SIZE`] bytes
    /// let it decode without end-of-buffer checks).
    pub(crate) fn decode_stored(
        &self,
        block: u64,
        stored: &[u8],
        out: &mut [u8],
    ) -> Result<(), ZarError> {
        if stored.len() == BLOCK_SIZE {
            out[..BLOCK_SIZE].copy_from_slice(stored);
            return Ok(());
        }
        let mut dec = self
            .decoders
            .lock()
            .ok()
            .and_then(|mut d| d.pop())
            .unwrap_or_else(|| self.decompressor.context());
        let result = match self.block_dictionary(block, stored)? {
            None => dec.decode_block(stored, out),
            Some(dict) => dec.decode_block_with_dictionary(stored, out, dict),
        };
        if let Ok(mut pool) = self.decoders.lock() {
            pool.push(dec);
        }
        result.map_err(|e| {
            let reason = match e {
                zstd::ZstdError::SizeMismatch { got, .. } => {
                    format!("decodes to {got} bytes, not {BLOCK_SIZE}")
                }
                zstd::ZstdError::TooLarge { .. } => {
                    format!("decodes to more than {BLOCK_SIZE} bytes")
                }
                ref other => other.to_string(),
            };
            ZarError::Block {
                block,
                reason,
                cause: Some(e),
            }
        })
    }

    /// The dictionary `block`'s frames are decoded with: the one whose ID its first frame
    /// names, none when it names none (always in a v1 archive: its frames must then name
    /// none).
    fn block_dictionary(
        &self,
        block: u64,
        stored: &[u8],
    ) -> Result<Option<&zstd::DecoderDictionary>, ZarError> {
        if self.dictionaries.is_empty() {
            return Ok(None);
        }
        let id = zstd::frame_dictionary_id(stored).map_err(|e| ZarError::Block {
            block,
            reason: e.to_string(),
            cause: Some(e),
        })?;
        if id == 0 {
            return Ok(None);
        }
        match self.dictionaries.iter().find(|d| d.id == id) {
            Some(d) => Ok(Some(&d.dictionary)),
            None => Err(ZarError::Block {
                block,
                reason: format!(
                    "its frame names dictionary {id}, which the archive does not hold (it holds {})",
                    self.dictionaries
                        .iter()
                        .map(|d| d.id.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                // A decode failure like any other: the block cannot be read as written.
                cause: Some(zstd::ZstdError::DictionaryRequired { at: 0, dict_id: id }),
            }),
        }
    }

    /// The zstd dictionaries the archive holds (the dictionary extension; empty for a v1
    /// archive).
    pub fn dictionaries(&self) -> &[ArchiveDictionary] {
        &self.dictionaries
    }

    /// Read one decoded block through the cache, taking its stored bytes from `batch`
    /// (which reads ahead up to block `until`) instead of the memory map.
    pub(crate) fn read_block_batched(
        &self,
        block: u64,
        until: u64,
        batch: &mut BlockBatch,
    ) -> Result<Arc<[u8]>, ZarError> {
        if let Some(b) = self.cache.lock().ok().and_then(|mut c| c.get(block)) {
            return Ok(b);
        }
        let stored = batch.stored(self, block, until)?;
        self.decode_cached(block, stored)
    }

    /// Read `buf.len()` bytes of the uncompressed stream at `offset` (crossing blocks).
    fn read_stream(&self, mut offset: u64, mut buf: &mut [u8]) -> Result<(), ZarError> {
        while !buf.is_empty() {
            let block = offset / BLOCK_SIZE_U64;
            let within = (offset % BLOCK_SIZE_U64) as usize;
            let data = self.read_block_shared(block)?;
            let n = buf.len().min(BLOCK_SIZE - within);
            buf[..n].copy_from_slice(&data[within..within + n]);
            buf = &mut buf[n..];
            offset += n as u64;
        }
        Ok(())
    }

    /// [`Archive::compute_hash`] compared with the footer's hash: a mismatch is
    /// [`ZarError::HashMismatch`], naming both in hex.
    pub fn check_hash(&self) -> Result<(), ZarError> {
        let computed = self.compute_hash()?;
        self.compare_hash(computed)
    }

    /// [`check_hash`](Self::check_hash), given up once `stop` is set (tested between reads
    /// of 1 MiB): `Ok(false)` then, `Ok(true)` when the hash matched. For a check that runs
    /// beside other work which may fail first.
    pub(crate) fn check_hash_unless(&self, stop: &AtomicBool) -> Result<bool, ZarError> {
        match PassHasher::new(self).finish_unless(self, Some(stop))? {
            Some(computed) => self.compare_hash(computed).map(|()| true),
            None => Ok(false),
        }
    }

    /// [`ZarError::HashMismatch`] unless `computed` is the footer's hash.
    fn compare_hash(&self, computed: [u8; HASH_SIZE]) -> Result<(), ZarError> {
        let stored = self.footer.integrity_hash;
        if computed == stored {
            return Ok(());
        }
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        Err(ZarError::HashMismatch {
            stored: hex(&stored),
            computed: hex(&computed),
        })
    }

    /// Compute the SHA-256 of the archive with the hash field zeroed, as the reference writer
    /// does, and compare it with the footer's. Returns the computed digest.
    pub fn compute_hash(&self) -> Result<[u8; HASH_SIZE], ZarError> {
        PassHasher::new(self).finish(self)
    }
}

/// The SHA-256 of the archive (its hash field taken as zeros) over one pass in file order:
/// bytes already read for another purpose are fed in with [`PassHasher::feed`], the rest
/// is read when needed, 1 MiB at a time.
pub(crate) struct PassHasher {
    sha: sha2::Sha256,
    /// Bytes `0..done` of the file are hashed.
    done: u64,
    /// File offset of the footer's hash field.
    hash_at: u64,
    buf: Vec<u8>,
}

impl PassHasher {
    pub(crate) fn new(archive: &Archive) -> Self {
        use sha2::Digest;
        PassHasher {
            sha: sha2::Sha256::new(),
            done: 0,
            hash_at: archive.footer.total_size - FOOTER_SIZE as u64 + HASH_OFFSET_IN_FOOTER as u64,
            buf: Vec::new(),
        }
    }

    /// Hash `bytes`, which are the archive's bytes at `pos`: reads and hashes the bytes
    /// before them not hashed yet, then the part of `bytes` not hashed yet.
    pub(crate) fn feed(
        &mut self,
        archive: &Archive,
        pos: u64,
        bytes: &[u8],
    ) -> Result<(), ZarError> {
        self.read_to(archive, pos)?;
        let end = pos + bytes.len() as u64;
        if end > self.done {
            let skip = (self.done - pos) as usize;
            self.update(&bytes[skip..]);
        }
        Ok(())
    }

    /// Read and hash the rest of the archive; the digest.
    pub(crate) fn finish(self, archive: &Archive) -> Result<[u8; HASH_SIZE], ZarError> {
        let digest = self.finish_unless(archive, None)?;
        Ok(digest.expect("a hash without a stop flag is never given up"))
    }

    /// [`finish`](Self::finish), given up (`None`) once `stop` is set.
    fn finish_unless(
        mut self,
        archive: &Archive,
        stop: Option<&AtomicBool>,
    ) -> Result<Option<[u8; HASH_SIZE]>, ZarError> {
        use sha2::Digest;
        if !self.read_to_unless(archive, archive.footer.total_size, stop)? {
            return Ok(None);
        }
        Ok(Some(self.sha.finalize().into()))
    }

    /// Read and hash the bytes from `done` to `end`.
    fn read_to(&mut self, archive: &Archive, end: u64) -> Result<(), ZarError> {
        self.read_to_unless(archive, end, None).map(|_| ())
    }

    /// [`read_to`](Self::read_to), given up (`false`) once `stop` is set.
    fn read_to_unless(
        &mut self,
        archive: &Archive,
        end: u64,
        stop: Option<&AtomicBool>,
    ) -> Result<bool, ZarError> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.resize(1 << 20, 0);
        while self.done < end {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                self.buf = buf;
                return Ok(false);
            }
            let pos = self.done;
            let n = (end - pos).min(buf.len() as u64) as usize;
            let chunk = &mut buf[..n];
            archive
                .source
                .read_pass_at(pos, chunk)
                .map_err(|e| ZarError::io(format!("cannot read the archive at offset {pos}"), e))?;
            self.update(chunk);
        }
        self.buf = buf;
        Ok(true)
    }

    /// Hash `bytes`, the archive's bytes at `done`, with the hash field read as zeros.
    fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest;
        let pos = self.done;
        let end = pos + bytes.len() as u64;
        let (lo, hi) = (
            self.hash_at.max(pos),
            (self.hash_at + HASH_SIZE as u64).min(end),
        );
        if lo < hi {
            let (lo, hi) = ((lo - pos) as usize, (hi - pos) as usize);
            self.sha.update(&bytes[..lo]);
            self.sha.update(&[0u8; HASH_SIZE][..hi - lo]);
            self.sha.update(&bytes[hi..]);
        } else {
            self.sha.update(bytes);
        }
        self.done = end;
    }
}

/// Most bytes of stored blocks one [`BlockBatch`] reads at once (four blocks stored raw, more
/// compressed ones).
pub(crate) const BATCH_BYTES: usize = 4 * BLOCK_SIZE;

/// Reads the stored bytes of consecutive blocks with one positioned read per batch into
/// one reused buffer of at most [`BATCH_BYTES`], for passes that take the blocks in order
/// (extraction, verification). Memory stays bounded whatever the archive's size, and a
/// memory-mapped archive is not touched through its map.
pub(crate) struct BlockBatch {
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    pos: u64,
    /// The blocks whose stored bytes are in `buf`.
    blocks: std::ops::Range<u64>,
    /// How many reads were made.
    reads: u64,
    /// The blocks of every read (for tests).
    #[cfg(test)]
    log: Vec<std::ops::Range<u64>>,
}

impl BlockBatch {
    pub(crate) fn new() -> Self {
        BlockBatch {
            buf: Vec::new(),
            pos: 0,
            blocks: 0..0,
            reads: 0,
            #[cfg(test)]
            log: Vec::new(),
        }
    }

    /// How many reads were made so far.
    pub(crate) fn reads(&self) -> u64 {
        self.reads
    }

    /// The bytes of the last read and their file offset.
    pub(crate) fn contents(&self) -> (u64, &[u8]) {
        (self.pos, &self.buf)
    }

    /// The stored bytes of `block`. When they are not in the buffer, reads `block` and the
    /// blocks after it that follow it in the file, up to (not including) `until`, as many
    /// as fit in [`BATCH_BYTES`].
    pub(crate) fn stored(
        &mut self,
        archive: &Archive,
        block: u64,
        until: u64,
    ) -> Result<&[u8], ZarError> {
        let (pos, len) = archive.block_extent(block)?;
        if !self.blocks.contains(&block) {
            self.fill(archive, block, pos, len, until)?;
        }
        // In the buffer: the blocks of a batch are contiguous in the file.
        let at = (pos - self.pos) as usize;
        Ok(&self.buf[at..at + len as usize])
    }

    fn fill(
        &mut self,
        archive: &Archive,
        block: u64,
        pos: u64,
        len: u64,
        until: u64,
    ) -> Result<(), ZarError> {
        let until = until.min(archive.block_count);
        let mut total = len;
        let mut end = block + 1;
        while end < until {
            match archive.block_extent(end) {
                Ok((p, l)) if p == pos + total && total + l <= BATCH_BYTES as u64 => {
                    total += l;
                    end += 1;
                }
                _ => break,
            }
        }
        // At most BATCH_BYTES: a stored block is at most 65,536 bytes.
        self.blocks = 0..0;
        self.buf.resize(total as usize, 0);
        archive
            .source
            .read_pass_at(pos, &mut self.buf)
            .map_err(|cause| ZarError::Io {
                what: format!("blocks {block}..{end}: reading their {total} bytes at offset {pos}"),
                cause,
            })?;
        self.reads += 1;
        #[cfg(test)]
        self.log.push(block..end);
        self.pos = pos;
        self.blocks = block..end;
        Ok(())
    }
}

/// The dictionaries of an archive with the dictionary extension: every entry of its meta
/// directory (`dir`) checked, unknown tags marked required refused by name, every `ZDCT`
/// payload a zstd-format dictionary whose ID (not 0, not repeated) the entry names.
fn read_dictionaries(
    source: &dyn ReadAt,
    footer: &Footer,
    dir: &[u8],
) -> Result<Vec<ArchiveDictionary>, ZarError> {
    let data = footer.meta_data;
    let entries = parse_meta_directory(dir, data.size)
        .map_err(|reason| bad_section("meta directory", footer.meta_directory, reason))?;
    let mut dictionaries: Vec<ArchiveDictionary> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let bad = |reason: String| {
            bad_section(
                "meta directory",
                footer.meta_directory,
                format!("entry {i} ({}): {reason}", e.tag_name()),
            )
        };
        if e.tag != TAG_DICTIONARY {
            if e.flags & META_FLAG_REQUIRED != 0 {
                return Err(bad(
                    "an unknown tag marked required: the archive needs a reader that knows it"
                        .into(),
                ));
            }
            continue;
        }
        let id = e.param as u32;
        if e.param >> 32 != 0 || id == 0 {
            return Err(bad(format!(
                "0x{:016X} is not a dictionary ID (a non-zero 32-bit number)",
                e.param
            )));
        }
        // Inside the meta-data section (checked above), which lies inside the file.
        let offset = data.offset + e.offset;
        let mut bytes = vec![0u8; e.size as usize];
        source
            .read_exact_at(offset, &mut bytes)
            .map_err(|err| ZarError::io(format!("cannot read dictionary {id}"), err))?;
        if bytes.len() < 8 || bytes[..4] != zstd::DICTIONARY_MAGIC {
            return Err(bad(format!(
                "the {}-byte payload is not a zstd-format dictionary (no dictionary magic number)",
                bytes.len()
            )));
        }
        let named = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        if named != id {
            return Err(bad(format!(
                "the entry names dictionary {id} but the dictionary's own ID is {named}"
            )));
        }
        if dictionaries.iter().any(|d| d.id == id) {
            return Err(bad(format!("dictionary {id} is stored twice")));
        }
        let dictionary = zstd::DecoderDictionary::new(&bytes)
            .map_err(|err| bad(format!("dictionary {id} is damaged: {err}")))?;
        dictionaries.push(ArchiveDictionary {
            id,
            offset,
            size: e.size,
            dictionary,
            bytes: bytes.into(),
        });
    }
    Ok(dictionaries)
}

/// The slots of the offset records, in record order, as `(in_range, in_use, first_bad)`:
/// - `in_range`, how many lead whose stored bytes lie inside the `data_size`-byte
///   compressed-data section (the blocks a file may need);
/// - `in_use`, how many lead up to the last one whose size field is not 0;
/// - the first slot in use that lies outside, with the reason, for error messages.
///
/// A size field of 0 stands for a 1-byte block, which no block can be (a zstd frame takes
/// at least 6 bytes, a raw block 65,536): the trailing run of them is the last record's
/// unused slots, wherever they point, and counts as blocks only where a file needs them
/// ([`Archive::open`] takes the larger count). The reference reader counts them as blocks
/// that fail when read (16 per record); counted where they point inside the section (its
/// size counting the pad to 8 bytes, or records stored out of order), `verify` reported
/// them as damage.
fn present_blocks(records: &[OffsetRecord], data_size: u64) -> (u64, u64, Option<(u64, String)>) {
    let slots = records.iter().flat_map(|rec| {
        rec.size_minus_one.iter().scan(rec.base_offset, |off, &s| {
            let at = *off;
            let len = u64::from(s) + 1;
            *off = off.saturating_add(len);
            Some((at, len))
        })
    });
    let in_use = records
        .iter()
        .enumerate()
        .rev()
        .find_map(|(r, rec)| {
            let last = rec.size_minus_one.iter().rposition(|&s| s != 0)?;
            Some(r * rec.size_minus_one.len() + last + 1)
        })
        .unwrap_or(0) as u64;
    let mut in_range = 0u64;
    for (at, len) in slots {
        if at.checked_add(len).is_none_or(|end| end > data_size) {
            let bad = (in_range < in_use).then(|| {
                let why = format!(
                    "which the offset records place at {at}..{} outside the {data_size}-byte compressed-data section",
                    at.saturating_add(len)
                );
                (in_range, why)
            });
            return (in_range, in_use, bad);
        }
        in_range += 1;
    }
    (in_range, in_use, None)
}

fn bad_section(section: &'static str, s: Section, reason: String) -> ZarError {
    ZarError::BadSection {
        section,
        offset: s.offset,
        size: s.size,
        reason,
    }
}

impl<'a> Entry<'a> {
    /// The entry's id.
    pub fn id(&self) -> EntryId {
        self.id
    }
    fn node(&self) -> &'a Node {
        &self.archive.nodes[self.id.0 as usize]
    }
    /// The name as stored (opaque bytes, normally UTF-8); empty for the root.
    pub fn name(&self) -> &'a [u8] {
        self.archive.name_of(self.id.0)
    }
    /// The full path from the root, components joined with `/`.
    pub fn path(&self) -> Vec<u8> {
        self.archive.path_of(self.id.0)
    }
    /// The path for messages (`/` for the root).
    pub fn path_display(&self) -> String {
        self.archive.path_display_of(self.id.0)
    }
    /// File or directory.
    pub fn kind(&self) -> EntryKind {
        match self.node().kind {
            NodeKind::File { offset, size } => EntryKind::File { offset, size },
            NodeKind::Dir { .. } => EntryKind::Dir,
        }
    }
    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        matches!(self.node().kind, NodeKind::Dir { .. })
    }
    /// Whether this is a file.
    pub fn is_file(&self) -> bool {
        !self.is_dir()
    }
    /// Size in bytes (0 for directories).
    pub fn size(&self) -> u64 {
        match self.node().kind {
            NodeKind::File { size, .. } => size,
            NodeKind::Dir { .. } => 0,
        }
    }
    /// The parent directory (the root is its own parent).
    pub fn parent(&self) -> Entry<'a> {
        Entry {
            archive: self.archive,
            id: EntryId(self.node().parent),
        }
    }
    /// The entry of this directory named `name` (ASCII case ignored, as ZAR looks names up);
    /// `None` for a file or a missing name.
    pub fn child(&self, name: &[u8]) -> Option<Entry<'a>> {
        self.archive.child_of(self.id.0, name).map(|c| Entry {
            archive: self.archive,
            id: EntryId(c),
        })
    }

    /// The entries of this directory, in stored order (empty for a file).
    pub fn children(&self) -> impl Iterator<Item = Entry<'a>> + 'a {
        let range = match self.node().kind {
            NodeKind::Dir { first, count, .. } => first..first + count,
            NodeKind::File { .. } => 0..0,
        };
        let archive = self.archive;
        range.map(move |i| Entry {
            archive,
            id: EntryId(i),
        })
    }
    /// All entries below this one, depth-first, a directory before its contents.
    pub fn walk(&self) -> Walk<'a> {
        Walk {
            archive: self.archive,
            stack: self
                .children()
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .map(|e| e.id.0)
                .collect(),
        }
    }
    /// The range of blocks holding this file's bytes (empty for directories and empty files).
    pub fn blocks(&self) -> std::ops::Range<u64> {
        match self.node().kind {
            NodeKind::File { offset, size } if size > 0 => {
                offset / BLOCK_SIZE_U64..(offset + size).div_ceil(BLOCK_SIZE_U64)
            }
            _ => 0..0,
        }
    }
    /// Open this file for reading.
    pub fn open(&self) -> Result<FileReader<'a>, ZarError> {
        match self.node().kind {
            NodeKind::File { offset, size } => Ok(FileReader {
                entry: *self,
                offset,
                size,
                pos: 0,
            }),
            NodeKind::Dir { .. } => Err(ZarError::WrongKind {
                path: self.path_display(),
                what: "a directory, not a file",
            }),
        }
    }
    /// Read `buf.len()` bytes of this file starting at `pos`; the range must lie in the file.
    pub fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<(), ZarError> {
        let NodeKind::File { offset, size } = self.node().kind else {
            return Err(ZarError::WrongKind {
                path: self.path_display(),
                what: "a directory, not a file",
            });
        };
        match pos.checked_add(buf.len() as u64) {
            Some(end) if end <= size => {}
            _ => {
                return Err(ZarError::OutOfRange {
                    path: self.path_display(),
                    offset: pos,
                    len: buf.len() as u64,
                    size,
                });
            }
        }
        self.archive
            .read_stream(offset + pos, buf)
            .map_err(|e| ZarError::File {
                path: self.path_display(),
                cause: Box::new(e),
            })
    }
}

/// Depth-first iterator over entries; see [`Archive::walk`].
pub struct Walk<'a> {
    archive: &'a Archive,
    stack: Vec<u32>,
}

impl std::fmt::Debug for Walk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walk")
            .field("entries_queued", &self.stack.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = Entry<'a>;
    fn next(&mut self) -> Option<Entry<'a>> {
        let id = self.stack.pop()?;
        let e = Entry {
            archive: self.archive,
            id: EntryId(id),
        };
        if let NodeKind::Dir { first, count, .. } = e.node().kind {
            self.stack.extend((first..first + count).rev());
        }
        Some(e)
    }
}

/// Reads one file of an archive; implements `Read` and `Seek`, decoding only the blocks it
/// needs (through the archive's block cache).
pub struct FileReader<'a> {
    entry: Entry<'a>,
    offset: u64,
    size: u64,
    pos: u64,
}

impl std::fmt::Debug for FileReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileReader")
            .field("path", &self.entry.path_display())
            .field("size", &self.size)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl FileReader<'_> {
    /// The file's size.
    pub fn len(&self) -> u64 {
        self.size
    }
    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

impl Read for FileReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.size || buf.is_empty() {
            return Ok(0);
        }
        let at = self.offset + self.pos;
        let within = (at % BLOCK_SIZE_U64) as usize;
        let n = buf
            .len()
            .min(BLOCK_SIZE - within)
            .min((self.size - self.pos) as usize);
        let block = self
            .entry
            .archive
            .read_block_shared(at / BLOCK_SIZE_U64)
            .map_err(|e| {
                io::Error::from(ZarError::File {
                    path: self.entry.path_display(),
                    cause: Box::new(e),
                })
            })?;
        buf[..n].copy_from_slice(&block[within..within + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for FileReader<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (from, d) = match to {
            SeekFrom::Start(p) => (p, 0),
            SeekFrom::End(d) => (self.size, d),
            SeekFrom::Current(d) => (self.pos, d),
        };
        let target = from.checked_add_signed(d).ok_or_else(|| {
            let why = if d < 0 {
                "seek to a negative position"
            } else {
                "seek past the largest position (2^64 - 1)"
            };
            io::Error::new(io::ErrorKind::InvalidInput, why)
        })?;
        self.pos = target;
        Ok(target)
    }
}

/// A block buffer: the block's 65,536 bytes, then the slack that lets the decoder work in
/// a fixed-size window ([`zstd::BLOCK_SLACK`]).
pub(crate) const BLOCK_BUFFER_SIZE: usize = BLOCK_SIZE + zstd::BLOCK_SLACK;

/// One decoded block of an archive, its 65,536 bytes shared with the reader's cache.
#[derive(Clone)]
pub struct DecodedBlock(Arc<[u8]>);

impl std::ops::Deref for DecodedBlock {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0[..BLOCK_SIZE]
    }
}

impl AsRef<[u8]> for DecodedBlock {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for DecodedBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DecodedBlock({} bytes)", self.len())
    }
}

/// A small least-recently-used cache of decoded blocks.
struct BlockCache {
    capacity: usize,
    entries: VecDeque<(u64, Arc<[u8]>)>,
}

impl BlockCache {
    fn new(capacity: usize) -> Self {
        BlockCache {
            capacity,
            entries: VecDeque::with_capacity(capacity),
        }
    }
    fn get(&mut self, block: u64) -> Option<Arc<[u8]>> {
        let i = self.entries.iter().position(|(b, _)| *b == block)?;
        let e = self.entries.remove(i)?;
        let data = e.1.clone();
        self.entries.push_front(e);
        Some(data)
    }
    /// When the cache is full, take out the least recently used entry that nobody else
    /// holds, to decode the next block into.
    fn spare(&mut self) -> Option<Arc<[u8]>> {
        if self.entries.len() < self.capacity {
            return None;
        }
        let i = self
            .entries
            .iter()
            .rposition(|(_, d)| Arc::strong_count(d) == 1 && <[u8]>::len(d) == BLOCK_BUFFER_SIZE)?;
        self.entries.remove(i).map(|(_, d)| d)
    }
    fn put(&mut self, block: u64, data: Arc<[u8]>) {
        if self.entries.iter().any(|(b, _)| *b == block) {
            return;
        }
        if self.entries.len() == self.capacity {
            self.entries.pop_back();
        }
        self.entries.push_front((block, data));
    }
}

#[cfg(test)]
#[path = "pass_tests.rs"]
mod pass_tests;
