//! On-disk constants and structures of ZAR v1 (zarchivecommon.h in the reference tool).
//!
//! All integers are big-endian. An archive is: compressed blocks, 0–7 zero bytes of
//! alignment, offset records, name table, file tree, two empty meta sections and a
//! 144-byte footer that locates everything else. The dictionary extension ([`VERSION_META`])
//! fills the meta sections: a directory of tagged payloads ([`MetaEntry`]), one of which is
//! a zstd dictionary that blocks select by their frames' dictionary ID.

/// Size of one block of the uncompressed data stream.
pub const BLOCK_SIZE: usize = 65536;
/// [`BLOCK_SIZE`] as a `u64`, for stream arithmetic.
pub const BLOCK_SIZE_U64: u64 = BLOCK_SIZE as u64;
/// Blocks described by one offset record.
pub const BLOCKS_PER_RECORD: usize = 16;
/// Bytes of one offset record: a u64 base offset and 16 u16 sizes.
pub const RECORD_SIZE: usize = 8 + 2 * BLOCKS_PER_RECORD;
/// Bytes of one file-tree node.
pub const NODE_SIZE: usize = 16;
/// Bytes of the footer at the end of every archive.
pub const FOOTER_SIZE: usize = 144;
/// The footer's version word ("kVersion1"), which doubles as an extended magic.
pub const VERSION_1: u32 = 0x61BF_3A01;
/// The footer's version word of this project's dictionary extension: the v1 layout with a
/// meta directory in use (`../shared/docs/dictionaries.md` §5). Readers that know only v1
/// refuse it, as the reference tool does, instead of writing empty files.
pub const VERSION_META: u32 = 0x61BF_3AD1;
/// The footer's magic word, the last four bytes of every archive.
pub const MAGIC: u32 = 0x169F_52D6;
/// Offset of the SHA-256 digest inside the footer.
pub const HASH_OFFSET_IN_FOOTER: usize = 96;
/// Length of the SHA-256 digest.
pub const HASH_SIZE: usize = 32;
/// The name offset the writer gives the root ("no name").
pub const ROOT_NAME_OFFSET: u32 = 0x7FFF_FFFF;
/// Bit 31 of a node's first word: set for files, clear for directories.
pub const NODE_FILE_FLAG: u32 = 0x8000_0000;
/// Longest name the writer stores; longer names are cut (zarchivewriter.cpp).
pub const MAX_NAME_LEN: usize = 0x7FFF;
/// Names of this length or more need the two-byte length header, which the reference reader
/// decodes wrongly (zarchivereader.cpp:362), so Cemu cannot read them.
pub const REFERENCE_READER_NAME_LIMIT: usize = 128;
/// Largest file size and stream offset a node can hold (48 bits).
pub const MAX_FILE_SIZE: u64 = (1 << 48) - 1;
/// Caps the reference reader applies to section sizes (zarchivereader.cpp:57-62).
pub const MAX_RECORDS_SECTION: u64 = 0xFFFF_FFFF;
/// See [`MAX_RECORDS_SECTION`].
pub const MAX_NAMES_SECTION: u64 = 0x7FFF_FFFF;
/// See [`MAX_RECORDS_SECTION`].
pub const MAX_TREE_SECTION: u64 = 0xFFFF_FFFF;

/// An (offset, size) pair locating one section in the archive file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Section {
    /// Absolute file offset of the first byte.
    pub offset: u64,
    /// Length in bytes.
    pub size: u64,
}

impl Section {
    /// The end offset, or `None` if `offset + size` overflows.
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }
}

/// The 144-byte footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Footer {
    /// The compressed blocks (without the alignment pad).
    pub compressed_data: Section,
    /// The offset records.
    pub offset_records: Section,
    /// The name table.
    pub names: Section,
    /// The file tree.
    pub file_tree: Section,
    /// Reserved, empty in v1.
    pub meta_directory: Section,
    /// Reserved, empty in v1.
    pub meta_data: Section,
    /// SHA-256 of the whole file with these 32 bytes taken as zero.
    pub integrity_hash: [u8; HASH_SIZE],
    /// Length of the whole file, footer included.
    pub total_size: u64,
    /// [`VERSION_1`].
    pub version: u32,
    /// [`MAGIC`].
    pub magic: u32,
}

impl Footer {
    /// The six sections in footer order, with their names for error messages.
    pub fn sections(&self) -> [(&'static str, Section); 6] {
        [
            ("compressed data", self.compressed_data),
            ("offset records", self.offset_records),
            ("name table", self.names),
            ("file tree", self.file_tree),
            ("meta directory", self.meta_directory),
            ("meta data", self.meta_data),
        ]
    }

    /// Decode a footer (no validation beyond the fixed layout).
    pub fn parse(b: &[u8; FOOTER_SIZE]) -> Footer {
        let sec = |i: usize| Section {
            offset: be_u64(b, i * 16),
            size: be_u64(b, i * 16 + 8),
        };
        let mut integrity_hash = [0u8; HASH_SIZE];
        integrity_hash
            .copy_from_slice(&b[HASH_OFFSET_IN_FOOTER..HASH_OFFSET_IN_FOOTER + HASH_SIZE]);
        Footer {
            compressed_data: sec(0),
            offset_records: sec(1),
            names: sec(2),
            file_tree: sec(3),
            meta_directory: sec(4),
            meta_data: sec(5),
            integrity_hash,
            total_size: be_u64(b, 128),
            version: be_u32(b, 136),
            magic: be_u32(b, 140),
        }
    }

    /// Encode the footer (zarchivecommon.h `Footer::Serialize`).
    pub fn to_bytes(&self) -> [u8; FOOTER_SIZE] {
        let mut b = [0u8; FOOTER_SIZE];
        for (i, (_, s)) in self.sections().iter().enumerate() {
            b[i * 16..i * 16 + 8].copy_from_slice(&s.offset.to_be_bytes());
            b[i * 16 + 8..i * 16 + 16].copy_from_slice(&s.size.to_be_bytes());
        }
        b[HASH_OFFSET_IN_FOOTER..HASH_OFFSET_IN_FOOTER + HASH_SIZE]
            .copy_from_slice(&self.integrity_hash);
        b[128..136].copy_from_slice(&self.total_size.to_be_bytes());
        b[136..140].copy_from_slice(&self.version.to_be_bytes());
        b[140..144].copy_from_slice(&self.magic.to_be_bytes());
        b
    }
}

/// One offset record: where 16 consecutive blocks are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OffsetRecord {
    /// Offset of the record's first block, relative to the compressed-data section.
    pub base_offset: u64,
    /// Stored length minus one of each block.
    pub size_minus_one: [u16; BLOCKS_PER_RECORD],
}

impl OffsetRecord {
    /// Decode one record.
    pub fn parse(b: &[u8; RECORD_SIZE]) -> OffsetRecord {
        let mut size_minus_one = [0u16; BLOCKS_PER_RECORD];
        for (i, s) in size_minus_one.iter_mut().enumerate() {
            *s = u16::from_be_bytes([b[8 + 2 * i], b[9 + 2 * i]]);
        }
        OffsetRecord {
            base_offset: be_u64(b, 0),
            size_minus_one,
        }
    }

    /// Encode one record.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[..8].copy_from_slice(&self.base_offset.to_be_bytes());
        for (i, s) in self.size_minus_one.iter().enumerate() {
            b[8 + 2 * i..10 + 2 * i].copy_from_slice(&s.to_be_bytes());
        }
        b
    }

    /// Offset (relative to the data section) and stored length of block `slot` of this record.
    pub fn block_extent(&self, slot: usize) -> (u64, u64) {
        let before: u64 = self.size_minus_one[..slot]
            .iter()
            .map(|&s| u64::from(s) + 1)
            .sum();
        (
            self.base_offset.wrapping_add(before),
            u64::from(self.size_minus_one[slot]) + 1,
        )
    }
}

/// A file-tree node as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawNode {
    /// A file: its bytes are `size` bytes at `offset` of the uncompressed stream.
    File {
        /// Offset of the name's header in the name table.
        name_offset: u32,
        /// Position of the first byte in the uncompressed stream (48 bits).
        offset: u64,
        /// Size in bytes (48 bits).
        size: u64,
    },
    /// A directory: its children are nodes `first_child .. first_child + count`.
    Dir {
        /// Offset of the name's header in the name table.
        name_offset: u32,
        /// Index of the first child node.
        first_child: u32,
        /// Number of children.
        count: u32,
        /// Reserved word, written as 0.
        reserved: u32,
    },
}

impl RawNode {
    /// Decode one node.
    pub fn parse(b: &[u8; NODE_SIZE]) -> RawNode {
        let w = |i: usize| be_u32(b, i * 4);
        let (w0, w1, w2, w3) = (w(0), w(1), w(2), w(3));
        let name_offset = w0 & !NODE_FILE_FLAG;
        if w0 & NODE_FILE_FLAG != 0 {
            RawNode::File {
                name_offset,
                offset: u64::from(w1) | (u64::from(w3 & 0xFFFF) << 32),
                size: u64::from(w2) | (u64::from(w3 >> 16) << 32),
            }
        } else {
            RawNode::Dir {
                name_offset,
                first_child: w1,
                count: w2,
                reserved: w3,
            }
        }
    }

    /// Encode one node (zarchivecommon.h `FileDirectoryEntry`); offsets and sizes keep
    /// their low 48 bits, as the reference writer does.
    pub fn to_bytes(&self) -> [u8; NODE_SIZE] {
        let words = match *self {
            RawNode::File {
                name_offset,
                offset,
                size,
            } => [
                name_offset | NODE_FILE_FLAG,
                offset as u32,
                size as u32,
                (((size >> 32) as u32 & 0xFFFF) << 16) | ((offset >> 32) as u32 & 0xFFFF),
            ],
            RawNode::Dir {
                name_offset,
                first_child,
                count,
                reserved,
            } => [name_offset & !NODE_FILE_FLAG, first_child, count, reserved],
        };
        let mut b = [0u8; NODE_SIZE];
        for (i, w) in words.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&w.to_be_bytes());
        }
        b
    }

    /// The name offset of either kind.
    pub fn name_offset(&self) -> u32 {
        match *self {
            RawNode::File { name_offset, .. } | RawNode::Dir { name_offset, .. } => name_offset,
        }
    }
}

/// The meta directory's first word, `'ZMD1'`.
pub const META_DIRECTORY_MAGIC: u32 = 0x5A4D_4431;
/// Bytes of the meta directory's header: magic and entry count.
pub const META_HEADER_SIZE: usize = 8;
/// Bytes of one meta directory entry.
pub const META_ENTRY_SIZE: usize = 32;
/// The tag of a zstd dictionary payload, `'ZDCT'`.
pub const TAG_DICTIONARY: u32 = 0x5A44_4354;
/// Entry flag: a reader that does not know the tag must refuse the archive.
pub const META_FLAG_REQUIRED: u32 = 1;

/// One entry of the meta directory: a tagged payload in the meta-data section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MetaEntry {
    /// What the payload is ([`TAG_DICTIONARY`]).
    pub tag: u32,
    /// [`META_FLAG_REQUIRED`]; the other bits are reserved (zero).
    pub flags: u32,
    /// Offset of the payload, relative to the meta-data section.
    pub offset: u64,
    /// Length of the payload.
    pub size: u64,
    /// Tag-specific: a dictionary's ID in the low 32 bits.
    pub param: u64,
}

impl MetaEntry {
    /// Decode one entry.
    pub fn parse(b: &[u8; META_ENTRY_SIZE]) -> MetaEntry {
        MetaEntry {
            tag: be_u32(b, 0),
            flags: be_u32(b, 4),
            offset: be_u64(b, 8),
            size: be_u64(b, 16),
            param: be_u64(b, 24),
        }
    }

    /// Encode one entry.
    pub fn to_bytes(&self) -> [u8; META_ENTRY_SIZE] {
        let mut b = [0u8; META_ENTRY_SIZE];
        b[0..4].copy_from_slice(&self.tag.to_be_bytes());
        b[4..8].copy_from_slice(&self.flags.to_be_bytes());
        b[8..16].copy_from_slice(&self.offset.to_be_bytes());
        b[16..24].copy_from_slice(&self.size.to_be_bytes());
        b[24..32].copy_from_slice(&self.param.to_be_bytes());
        b
    }

    /// The tag as its four ASCII letters where printable (for messages).
    pub fn tag_name(&self) -> String {
        let b = self.tag.to_be_bytes();
        if b.iter().all(|c| c.is_ascii_graphic()) {
            format!("'{}'", String::from_utf8_lossy(&b))
        } else {
            format!("0x{:08X}", self.tag)
        }
    }
}

/// Encode a meta directory holding `entries`.
pub fn meta_directory_bytes(entries: &[MetaEntry]) -> Vec<u8> {
    let mut b = Vec::with_capacity(META_HEADER_SIZE + entries.len() * META_ENTRY_SIZE);
    b.extend_from_slice(&META_DIRECTORY_MAGIC.to_be_bytes());
    b.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for e in entries {
        b.extend_from_slice(&e.to_bytes());
    }
    b
}

/// Decode and check a meta directory against the size of the meta-data section: the
/// magic, a count that fills the directory exactly, no reserved flag bits, every payload
/// inside the meta-data section and no two overlapping. Returns the entries, or what is
/// wrong in plain words.
pub fn parse_meta_directory(b: &[u8], data_size: u64) -> Result<Vec<MetaEntry>, String> {
    if b.len() < META_HEADER_SIZE {
        return Err(format!(
            "it is {} bytes, too small for its 8-byte header",
            b.len()
        ));
    }
    let magic = be_u32(b, 0);
    if magic != META_DIRECTORY_MAGIC {
        return Err(format!(
            "it starts with 0x{magic:08X}, not 'ZMD1' (0x{META_DIRECTORY_MAGIC:08X})"
        ));
    }
    let count = be_u32(b, 4) as u64;
    let expected = META_HEADER_SIZE as u64 + count * META_ENTRY_SIZE as u64;
    if expected != b.len() as u64 {
        return Err(format!(
            "it says it holds {count} entries ({expected} bytes) but it is {} bytes",
            b.len()
        ));
    }
    let entries: Vec<MetaEntry> = b[META_HEADER_SIZE..]
        .chunks_exact(META_ENTRY_SIZE)
        .map(|c| MetaEntry::parse(c.try_into().expect("chunk of META_ENTRY_SIZE")))
        .collect();
    let mut spans = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if e.flags & !META_FLAG_REQUIRED != 0 {
            return Err(format!(
                "entry {i} ({}) sets reserved flag bits (0x{:08X})",
                e.tag_name(),
                e.flags
            ));
        }
        match e.offset.checked_add(e.size) {
            Some(end) if end <= data_size => spans.push((e.offset, end, i)),
            _ => {
                return Err(format!(
                    "entry {i} ({}) places {} bytes at offset {}, outside the {data_size}-byte meta-data section",
                    e.tag_name(),
                    e.size,
                    e.offset
                ));
            }
        }
    }
    spans.sort_unstable();
    for w in spans.windows(2) {
        let ((_, end, a), (start, _, b)) = (w[0], w[1]);
        if start < end {
            return Err(format!("the payloads of entries {a} and {b} overlap"));
        }
    }
    Ok(entries)
}

fn be_u64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(w)
}

fn be_u32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_be_bytes(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_node_round_trips_48_bit_fields() {
        let n = RawNode::File {
            name_offset: 7,
            offset: 4_294_979_641,
            size: (1 << 32) + 12345,
        };
        let b = n.to_bytes();
        assert_eq!(&b[12..16], &[0, 1, 0, 1]);
        assert_eq!(RawNode::parse(&b), n);
    }

    #[test]
    fn record_extent_sums_previous_slots() {
        let mut r = OffsetRecord {
            base_offset: 100,
            ..Default::default()
        };
        r.size_minus_one[0] = 9;
        r.size_minus_one[1] = 0xFFFF;
        assert_eq!(r.block_extent(0), (100, 10));
        assert_eq!(r.block_extent(1), (110, 65536));
        assert_eq!(r.block_extent(2), (110 + 65536, 1));
        assert_eq!(OffsetRecord::parse(&r.to_bytes()), r);
    }

    #[test]
    fn meta_directory_round_trips_and_refuses_what_does_not_fit() {
        let e = MetaEntry {
            tag: TAG_DICTIONARY,
            flags: META_FLAG_REQUIRED,
            offset: 0,
            size: 100,
            param: 0x1234_5678,
        };
        let b = meta_directory_bytes(&[e]);
        assert_eq!(&b[..8], b"ZMD1\0\0\0\x01");
        assert_eq!(&b[8..12], b"ZDCT");
        assert_eq!(parse_meta_directory(&b, 100).unwrap(), vec![e]);
        assert_eq!(e.tag_name(), "'ZDCT'");
        // Outside the data section, by a byte or by wrapping.
        assert!(
            parse_meta_directory(&b, 99)
                .unwrap_err()
                .contains("outside")
        );
        let wrap = MetaEntry {
            offset: u64::MAX,
            ..e
        };
        let err = parse_meta_directory(&meta_directory_bytes(&[wrap]), 100).unwrap_err();
        assert!(err.contains("outside"), "{err}");
        // A count that does not fill the directory exactly, a huge count.
        let mut short = b.clone();
        short[7] = 2;
        assert!(
            parse_meta_directory(&short, 100)
                .unwrap_err()
                .contains("2 entries")
        );
        short[4] = 0xFF;
        assert!(parse_meta_directory(&short, 100).is_err());
        // Reserved flags; overlapping payloads; a wrong magic.
        let flagged = MetaEntry { flags: 3, ..e };
        let err = parse_meta_directory(&meta_directory_bytes(&[flagged]), 100).unwrap_err();
        assert!(err.contains("reserved flag"), "{err}");
        let other = MetaEntry {
            offset: 99,
            size: 1,
            ..e
        };
        let err = parse_meta_directory(&meta_directory_bytes(&[e, other]), 100).unwrap_err();
        assert!(err.contains("overlap"), "{err}");
        let mut magic = b;
        magic[0] = b'X';
        assert!(
            parse_meta_directory(&magic, 100)
                .unwrap_err()
                .contains("ZMD1")
        );
        assert!(parse_meta_directory(&[], 0).is_err());
    }

    #[test]
    fn footer_round_trips() {
        let f = Footer {
            file_tree: Section {
                offset: 0,
                size: 16,
            },
            total_size: 160,
            version: VERSION_1,
            magic: MAGIC,
            ..Default::default()
        };
        let b = f.to_bytes();
        assert_eq!(&b[136..], &[0x61, 0xBF, 0x3A, 0x01, 0x16, 0x9F, 0x52, 0xD6]);
        assert_eq!(Footer::parse(&b), f);
    }
}
