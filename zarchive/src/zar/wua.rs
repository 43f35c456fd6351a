//! Wii U titles in a `.wua`: Cemu stores each title in a top-level folder named
//! `<16 hex digits of the title ID>_v<decimal version>` (Cemu's
//! `TitleInfo::ParseWuaTitleFolderName`), with the title's `code/`, `content/` and `meta/`
//! inside. This module lists them, says what each is from the title ID's high word, and reads
//! the long name from `meta/meta.xml`.

use std::io::Read;

use super::reader::Archive;

/// The largest `meta/meta.xml` read for a title's name (real ones are a few KiB).
const MAX_META_XML: u64 = 1 << 20;

/// What a title is, from the high 32 bits of its ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TitleKind {
    /// `00050000`: a game (application).
    Game,
    /// `00050002`: a demo (eShop or kiosk).
    Demo,
    /// `0005000E`: an update (application patch) of a game.
    Update,
    /// `0005000C`: downloadable content of a game.
    Dlc,
    /// `00050010`, `0005001B`, `00050030`: system software or data.
    System,
    /// Any other high word.
    Other(u32),
}

impl TitleKind {
    /// The kind of the title with this ID.
    pub fn of(title_id: u64) -> TitleKind {
        match (title_id >> 32) as u32 {
            0x0005_0000 => TitleKind::Game,
            0x0005_0002 => TitleKind::Demo,
            0x0005_000E => TitleKind::Update,
            0x0005_000C => TitleKind::Dlc,
            0x0005_0010 | 0x0005_001B | 0x0005_0030 => TitleKind::System,
            other => TitleKind::Other(other),
        }
    }

    /// A short word for listings: `game`, `demo`, `update`, `dlc`, `system`, `other`.
    pub fn word(self) -> &'static str {
        match self {
            TitleKind::Game => "game",
            TitleKind::Demo => "demo",
            TitleKind::Update => "update",
            TitleKind::Dlc => "dlc",
            TitleKind::System => "system",
            TitleKind::Other(_) => "other",
        }
    }
}

/// One title of a `.wua`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Title {
    /// The folder's name in the archive.
    pub folder: String,
    /// The 64-bit title ID.
    pub id: u64,
    /// The title version.
    pub version: u16,
    /// What it is.
    pub kind: TitleKind,
    /// The English long name from `meta/meta.xml` (line breaks as spaces), when present.
    pub name: Option<String>,
    /// Why `meta/meta.xml`, which the title has, could not be read (a damaged block, or the
    /// archive's file failing to read): the name is then unknown, not absent.
    pub name_unreadable: Option<String>,
    /// Whether what made `name_unreadable` is damage in the archive's own bytes (a block
    /// that does not decode), not a failure to read its file.
    pub name_damaged: bool,
}

/// Parse a title folder name: 16 hex digits, `_v`, a decimal version without leading zeros
/// that fits 16 bits. Mirrors Cemu's `TitleInfo::ParseWuaTitleFolderName`.
pub fn parse_title_folder(name: &str) -> Option<(u64, u16)> {
    let (id, version) = name.split_at_checked(16)?;
    if !id.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let version = version.strip_prefix("_v")?;
    if version.is_empty()
        || !version.bytes().all(|c| c.is_ascii_digit())
        || (version.starts_with('0') && version.len() != 1)
    {
        return None;
    }
    Some((u64::from_str_radix(id, 16).ok()?, version.parse().ok()?))
}

/// The titles of `archive`, in archive order: every top-level folder whose name is a title
/// folder. An archive that is not a `.wua` has none.
pub fn titles(archive: &Archive) -> Vec<Title> {
    archive
        .root()
        .children()
        .filter(|e| e.is_dir())
        .filter_map(|e| {
            let folder = std::str::from_utf8(e.name()).ok()?;
            let (id, version) = parse_title_folder(folder)?;
            let (name, name_unreadable, name_damaged) = match long_name(archive, folder) {
                Ok(name) => (name, None, false),
                Err(e) => (
                    None,
                    Some(e.to_string()),
                    e.kind() == std::io::ErrorKind::InvalidData,
                ),
            };
            Some(Title {
                folder: folder.to_string(),
                id,
                version,
                kind: TitleKind::of(id),
                name,
                name_unreadable,
                name_damaged,
            })
        })
        .collect()
}

/// The English long name from `<folder>/meta/meta.xml` (`longname_en`, or `shortname_en`
/// when that is empty); `None` without such a file or name, an error when the file is there
/// but cannot be read.
fn long_name(archive: &Archive, folder: &str) -> Result<Option<String>, std::io::Error> {
    let path = format!("{folder}/meta/meta.xml");
    let Some(entry) = archive.lookup(&path).filter(|e| e.is_file()) else {
        return Ok(None);
    };
    let mut xml = Vec::new();
    entry
        .open()?
        .take(MAX_META_XML)
        .read_to_end(&mut xml)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{path}: {e}")))?;
    let xml = String::from_utf8_lossy(&xml);
    Ok(["longname_en", "shortname_en"]
        .iter()
        .filter_map(|tag| element_text(&xml, tag))
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|t| !t.is_empty()))
}

/// The unescaped text of the first `<tag ...>text</tag>` element.
fn element_text(xml: &str, tag: &str) -> Option<String> {
    // Comments hold no elements (one commenting out an old name was read as the name).
    let xml = without_comments(xml);
    let xml = xml.as_ref();
    let open = format!("<{tag}");
    let mut at = 0;
    let start = loop {
        let i = at + xml[at..].find(&open)?;
        let after = &xml[i + open.len()..];
        // `<longname_en>` or `<longname_en type=...>`, not `<longname_enx>`.
        if after.starts_with('>') || after.starts_with(char::is_whitespace) {
            break i + open.len() + start_tag_end(after)? + 1;
        }
        at = i + open.len();
    };
    let end = start + xml[start..].find(&format!("</{tag}>"))?;
    Some(text_content(&xml[start..end]))
}

/// `xml` without its `<!-- ... -->` comments (an unclosed one runs to the end).
fn without_comments(xml: &str) -> std::borrow::Cow<'_, str> {
    if !xml.contains("<!--") {
        return std::borrow::Cow::Borrowed(xml);
    }
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        rest = rest[i + 4..]
            .find("-->")
            .map_or("", |e| &rest[i + 4 + e + 3..]);
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Where the start tag whose attributes begin `after` ends: its `>`, not one inside a
/// quoted attribute value.
fn start_tag_end(after: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in after.char_indices() {
        match (quote, c) {
            (None, '>') => return Some(i),
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    None
}

/// An element's text: references unescaped, `<![CDATA[...]]>` sections taken as they are.
fn text_content(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("<![CDATA[") {
        out.push_str(&unescape(&rest[..i]));
        let body = &rest[i + 9..];
        let end = body.find("]]>").unwrap_or(body.len());
        out.push_str(&body[..end]);
        rest = body.get(end + 3..).unwrap_or("");
    }
    out.push_str(&unescape(rest));
    out
}

/// XML character references and the five predefined entities.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        // The `;` of an entity is within its first 11 bytes: looked for there only (a
        // search of the whole rest at each `&` made a name of a million `&` take 22 s).
        let Some(end) = rest.as_bytes()[..rest.len().min(11)]
            .iter()
            .position(|&c| c == b';')
        else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_folders_parse_as_cemu_parses_them() {
        assert_eq!(
            parse_title_folder("0005000010101a00_v0"),
            Some((0x0005_0000_1010_1a00, 0))
        );
        assert_eq!(
            parse_title_folder("0005000E10101A00_v208"),
            Some((0x0005_000E_1010_1A00, 208))
        );
        for bad in [
            "0005000010101a00_v",
            "0005000010101a00_v01",
            "0005000010101a00_v70000",
            "0005000010101a0_v1",
            "0005000010101a0g_v1",
            "0005000010101a00-v1",
            "0005000010101a00_v1x",
            "content",
        ] {
            assert_eq!(parse_title_folder(bad), None, "{bad}");
        }
    }

    /// A meta.xml the archive's file fails to read is not called damage; one whose block
    /// does not decode is (`info` took both for damage).
    #[test]
    fn an_unreadable_name_tells_damage_from_a_failed_read() {
        use crate::zar::source::ReadAt;
        use crate::zar::{ArchiveWriter, WriterOptions, Zstd};
        use std::sync::Arc;

        /// The archive's bytes, whose first block fails to read.
        struct Failing(Vec<u8>);
        impl ReadAt for Failing {
            fn len(&self) -> u64 {
                self.0.len() as u64
            }
            fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
                if offset == 0 {
                    return Err(std::io::Error::other("the disk failed"));
                }
                self.0.read_exact_at(offset, buf)
            }
        }
        let xml = "<menu><longname_en>Game</longname_en></menu>\n".repeat(40);
        let opts = WriterOptions::new().compressor(Arc::new(Zstd::new(1).unwrap()));
        let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
        w.add_dir_all("0005000010101a00_v0/meta").unwrap();
        w.add_file("0005000010101a00_v0/meta/meta.xml", xml.as_bytes())
            .unwrap();
        let bytes = w.finish().unwrap().0;

        let failing = Archive::from_read_at(Failing(bytes.clone())).unwrap();
        let t = &titles(&failing)[0];
        assert!(t.name.is_none() && !t.name_damaged, "{t:?}");
        assert!(
            t.name_unreadable
                .as_ref()
                .unwrap()
                .contains("the disk failed")
        );

        // The block's frame without its magic number.
        let mut damaged = bytes;
        damaged[..4].fill(0);
        let damaged = Archive::from_read_at(damaged).unwrap();
        let t = &titles(&damaged)[0];
        assert!(t.name.is_none() && t.name_damaged, "{t:?}");
    }

    #[test]
    fn kinds_come_from_the_high_word() {
        assert_eq!(TitleKind::of(0x0005_0000_1010_1A00), TitleKind::Game);
        assert_eq!(TitleKind::of(0x0005_000E_1010_1A00), TitleKind::Update);
        assert_eq!(TitleKind::of(0x0005_000C_1010_1A00), TitleKind::Dlc);
        assert_eq!(TitleKind::of(0x0005_0002_1010_1A00), TitleKind::Demo);
        assert_eq!(TitleKind::of(0x0005_0010_1000_0000), TitleKind::System);
        assert_eq!(
            TitleKind::of(0x0001_0000_0000_0000),
            TitleKind::Other(0x0001_0000)
        );
    }

    #[test]
    fn the_long_name_is_unescaped_and_flattened() {
        let xml = r#"<?xml version="1.0"?><menu><longname_ja type="string">x</longname_ja>
            <longname_en type="string" length="512">Mario &amp; Sonic
at the Games &#x263A;</longname_en><shortname_en>M&amp;S</shortname_en></menu>"#;
        let t = element_text(xml, "longname_en").unwrap();
        assert_eq!(t, "Mario & Sonic\nat the Games \u{263A}");
        assert_eq!(element_text(xml, "shortname_en").unwrap(), "M&S");
        assert_eq!(element_text(xml, "longname_fr"), None);
        assert_eq!(unescape("a & b &bogus; &#65;"), "a & b &bogus; A");
        // The longest reference taken (`;` 10 bytes on), one byte longer left as it is.
        assert_eq!(unescape("&#00000065;"), "A");
        assert_eq!(unescape("&#000000065;"), "&#000000065;");
    }

    /// Comments, CDATA and a `>` in an attribute value, as an XML parser (Cemu's) reads
    /// them: the name was taken from inside a comment, CDATA's markup shown, the text cut at
    /// the attribute's `>`.
    #[test]
    fn comments_cdata_and_quoted_attributes_are_read_as_xml() {
        let el = |xml: &str| element_text(xml, "longname_en");
        assert_eq!(
            el("<!-- old: <longname_en>Fake</longname_en> --><longname_en>Real</longname_en>")
                .as_deref(),
            Some("Real")
        );
        assert_eq!(
            el("<longname_en><![CDATA[Mario & Luigi]]> &amp; co</longname_en>").as_deref(),
            Some("Mario & Luigi & co")
        );
        assert_eq!(
            el("<longname_en attr=\"a>b\" other='c>d'>Attr</longname_en>").as_deref(),
            Some("Attr")
        );
        assert_eq!(el("<!-- unclosed <longname_en>x</longname_en>"), None);
    }

    /// A run of `&` without a `;` (a crafted meta.xml of 600 compressed bytes): each `&`
    /// looks 11 bytes ahead, not to the end of the text. A million of them took 22 s; the
    /// 16 million here, quadratic, would take hours (not a timing: it cannot end).
    #[test]
    fn a_run_of_ampersands_is_read_once() {
        let text = "&".repeat(1 << 24);
        assert_eq!(unescape(&text), text);
    }
}
