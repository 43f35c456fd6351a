//! Names: the ZAR comparator, path splitting, the name table's encoding, and what makes a
//! name safe to turn into a file-system path.

use std::cmp::Ordering;
use std::path::Path;

use super::format::MAX_NAME_LEN;

/// Order of names in a directory: bytes compared unsigned after folding only ASCII `A`–`Z`
/// to lower case; a proper prefix sorts first. Mirrors zarchivecommon.h `CompareNodeNameLT`.
pub fn compare(a: &[u8], b: &[u8]) -> Ordering {
    let fold = |c: &u8| c.to_ascii_lowercase();
    a.iter().map(fold).cmp(b.iter().map(fold))
}

/// Whether two names are equal under ASCII-only case folding.
/// Mirrors zarchivecommon.h `CompareNodeNameBool`.
pub fn eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Split an archive path into its components: separators are `/` and `\`, empty components
/// (leading, trailing, doubled separators) are skipped, `.` and `..` are ordinary names.
/// Mirrors zarchivecommon.h `SplitFilenameFromPath` as used by `LookUp` and the writer.
pub fn split_path(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.split(|&c| c == b'/' || c == b'\\')
        .filter(|c| !c.is_empty())
}

/// Why a name cannot become one component of a path on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnsafeName {
    /// The name is empty.
    Empty,
    /// The name is `.` or `..`.
    Dots,
    /// The name contains `/` or `\`.
    Separator,
    /// The name contains a NUL byte.
    Nul,
    /// The name starts with a drive letter and a colon (`C:x`), a drive-relative path on
    /// Windows.
    DriveLetter,
}

impl std::fmt::Display for UnsafeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UnsafeName::Empty => "the name is empty",
            UnsafeName::Dots => "the name is `.` or `..`",
            UnsafeName::Separator => "the name contains a path separator (`/` or `\\`)",
            UnsafeName::Nul => "the name contains a NUL byte",
            UnsafeName::DriveLetter => {
                "the name starts with a drive letter (`C:`), a drive-relative path on Windows"
            }
        })
    }
}

/// Check that `name` is a single, harmless path component.
pub fn check_component(name: &[u8]) -> Result<(), UnsafeName> {
    if name.is_empty() {
        Err(UnsafeName::Empty)
    } else if name == b"." || name == b".." {
        Err(UnsafeName::Dots)
    } else if name.iter().any(|&c| c == b'/' || c == b'\\') {
        Err(UnsafeName::Separator)
    } else if name.contains(&0) {
        Err(UnsafeName::Nul)
    } else if name.len() >= 2 && name[0].is_ascii_alphabetic() && name[1] == b':' {
        Err(UnsafeName::DriveLetter)
    } else {
        Ok(())
    }
}

/// Whether `name` is reserved on Windows (`CON`, `PRN`, `AUX`, `NUL`, `COM1`–`COM9`,
/// `LPT1`–`LPT9`, with or without an extension, any case): such files cannot be created
/// there, so extraction warns about them.
pub fn is_windows_reserved(name: &[u8]) -> bool {
    let stem = name.split(|&c| c == b'.').next().unwrap_or(name);
    let stem = stem.to_ascii_uppercase();
    let stem = stem.trim_ascii_end();
    matches!(stem, b"CON" | b"PRN" | b"AUX" | b"NUL")
        || (stem.len() == 4
            && (stem.starts_with(b"COM") || stem.starts_with(b"LPT"))
            && (b'1'..=b'9').contains(&stem[3]))
}

/// Append one name-table entry: a 1-byte length below 128, otherwise two bytes
/// `0x80 | (len & 0x7F), len >> 7`; names longer than [`MAX_NAME_LEN`] are cut.
/// Mirrors the serialisation loop of zarchivewriter.cpp `WriteNameTable`.
#[doc(hidden)]
pub fn encode_entry(name: &[u8], out: &mut Vec<u8>) {
    let name = &name[..name.len().min(MAX_NAME_LEN)];
    let len = name.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        out.push(0x80 | (len & 0x7F) as u8);
        out.push((len >> 7) as u8);
    }
    out.extend_from_slice(name);
}

/// Decode the entry at `offset` of `table`: the byte range of the name, or `None` when the
/// header or the name does not fit. Decodes the two-byte header correctly (the reference
/// reader ORs in the wrong byte, zarchivereader.cpp:362).
pub fn decode_entry(table: &[u8], offset: usize) -> Option<std::ops::Range<usize>> {
    let first = *table.get(offset)?;
    let (len, header) = if first & 0x80 == 0 {
        (usize::from(first), 1)
    } else {
        let second = *table.get(offset + 1)?;
        (usize::from(first & 0x7F) | (usize::from(second) << 7), 2)
    };
    let start = offset + header;
    let end = start.checked_add(len)?;
    (end <= table.len()).then_some(start..end)
}

/// Render a name for messages and listings: printable text as it is (a `\\` stays one
/// character), control characters as `\\n`, `\\t`, `\\r` or `\\xHH`, the characters that
/// break a line or turn text around ([`is_deceptive`]) as the `\\xHH` of their bytes, and
/// bytes that are not UTF-8 as `\\xHH` — so a name can never break a line or hide as
/// something else.
pub fn display(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len());
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() || is_deceptive(c) => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Whether `c` breaks a line or changes the direction of the text after it without being a
/// control character: the line and paragraph separators (U+2028, U+2029) and the
/// directional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069). `x\u{202e}txt.exe` shows as `xexe.txt`.
pub fn is_deceptive(c: char) -> bool {
    matches!(
        c,
        '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}'
    ) || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Render a path on disk for messages as [`display`] renders a name: a file or directory
/// name holding a line break or a terminal's escape sequence is shown escaped instead of
/// acting on the terminal (as `ls` and GNU `tar` quote such names). Bytes that are not
/// UTF-8 are shown as `\\xHH`, where `Path::display` would replace them.
pub fn display_path(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        display(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        display(path.to_string_lossy().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparator_folds_only_ascii_and_puts_prefix_first() {
        let mut v: Vec<&[u8]> = vec![
            b"Zeta.txt",
            b"readme.txt",
            b"dup2.bin",
            b"Deeper",
            b"beta.TXT",
            b"ALPHA.txt",
            b"_under.txt",
        ];
        v.sort_by(|a, b| compare(a, b));
        let want: Vec<&[u8]> = vec![
            b"_under.txt",
            b"ALPHA.txt",
            b"beta.TXT",
            b"Deeper",
            b"dup2.bin",
            b"readme.txt",
            b"Zeta.txt",
        ];
        assert_eq!(v, want);
        assert_eq!(compare(b"Sub", b"sub.txt"), Ordering::Less);
        assert_eq!(compare("É".as_bytes(), "é".as_bytes()), Ordering::Less);
        assert!(!eq_ignore_case("É".as_bytes(), "é".as_bytes()));
        assert!(eq_ignore_case(b"README.txt", b"readme.TXT"));
    }

    #[test]
    fn split_path_skips_empty_components_and_keeps_dots() {
        let parts: Vec<&[u8]> = split_path(b"/a\\\\b/../c/").collect();
        assert_eq!(parts, vec![&b"a"[..], b"b", b"..", b"c"]);
        assert_eq!(split_path(b"").count(), 0);
    }

    #[test]
    fn name_entries_round_trip_both_header_forms() {
        for len in [0usize, 1, 127, 128, 200, 32767] {
            let name = vec![b'x'; len];
            let mut t = vec![9u8];
            encode_entry(&name, &mut t);
            assert_eq!(
                decode_entry(&t, 1),
                Some(if len < 128 { 2..2 + len } else { 3..3 + len })
            );
        }
        let mut t = Vec::new();
        encode_entry(&[b'y'; 200], &mut t);
        assert_eq!(&t[..2], &[0xC8, 0x01]);
        let mut t = Vec::new();
        encode_entry(&[b'z'; 40000], &mut t);
        assert_eq!(t.len(), 2 + MAX_NAME_LEN);
        assert_eq!(decode_entry(&[5, b'a'], 0), None);
        assert_eq!(decode_entry(&[0x81], 0), None);
        assert_eq!(decode_entry(&[3], 1), None);
    }

    #[test]
    fn unsafe_components_are_refused() {
        assert_eq!(check_component(b""), Err(UnsafeName::Empty));
        assert_eq!(check_component(b".."), Err(UnsafeName::Dots));
        assert_eq!(check_component(b"."), Err(UnsafeName::Dots));
        assert_eq!(check_component(b"a/b"), Err(UnsafeName::Separator));
        assert_eq!(check_component(b"..\\x"), Err(UnsafeName::Separator));
        assert_eq!(check_component(b"e\0x"), Err(UnsafeName::Nul));
        assert_eq!(check_component(b"..."), Ok(()));
        assert_eq!(check_component(b"C:x"), Err(UnsafeName::DriveLetter));
        assert_eq!(check_component(b"z:"), Err(UnsafeName::DriveLetter));
        assert_eq!(check_component(b"ab:c"), Ok(()));
    }

    #[cfg(unix)]
    #[test]
    fn display_path_escapes_as_display_and_keeps_raw_bytes() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let p = Path::new(OsStr::from_bytes(b"dir/a\x1b[31m\xff\nb"));
        assert_eq!(display_path(p), "dir/a\\x1b[31m\\xff\\nb");
        assert_eq!(display_path(Path::new("plain/x y.txt")), "plain/x y.txt");
    }

    #[test]
    fn display_keeps_text_and_escapes_only_what_would_mislead() {
        assert_eq!(display(b"a\\"), "a\\");
        assert_eq!(display("café \"x\"".as_bytes()), "café \"x\"");
        assert_eq!(display(b"line\nbreak\ttab"), "line\\nbreak\\ttab");
        assert_eq!(display(b"bad\xffbyte\x1b"), "bad\\xffbyte\\x1b");
        // Line separators and direction overrides are not control characters, and were
        // printed as they are (hostile session 8): `x\u{202e}txt.exe` showed as `xexe.txt`.
        assert_eq!(
            display("x\u{202e}txt.exe".as_bytes()),
            "x\\xe2\\x80\\xaetxt.exe"
        );
        assert_eq!(
            display("a\u{2028}b\u{2029}".as_bytes()),
            "a\\xe2\\x80\\xa8b\\xe2\\x80\\xa9"
        );
        assert_eq!(
            display("\u{2067}\u{200f}".as_bytes()),
            "\\xe2\\x81\\xa7\\xe2\\x80\\x8f"
        );
        // Joiners stay: emoji sequences and scripts need them.
        assert_eq!(display("👩\u{200d}💻".as_bytes()), "👩\u{200d}💻");
    }

    #[test]
    fn windows_reserved_names_are_recognised() {
        for n in [
            "CON",
            "con.txt",
            "Nul",
            "aux.tar.gz",
            "COM1",
            "lpt9.log",
            "PRN ",
        ] {
            assert!(is_windows_reserved(n.as_bytes()), "{n}");
        }
        for n in ["CONSOLE", "COM0", "COM10", "xnul", "content"] {
            assert!(!is_windows_reserved(n.as_bytes()), "{n}");
        }
    }
}
