//! Dictionaries for decoding: raw content, or the zstd dictionary format (magic, ID,
//! entropy tables, repeat offsets, content), parsed once and shared by the frames that
//! use it.

use super::fse_table::{LL_KIND, ML_KIND, OF_KIND, SeqTables, Spread, read_seq_table};
use super::huf::HufTable;
use crate::zstd::common::format::DICT_MAGIC;
use crate::zstd::error::ZstdError;

/// The entropy a formatted dictionary seeds every frame with.
#[derive(Clone, Debug)]
pub(crate) struct DictEntropy {
    pub(crate) huf: HufTable,
    pub(crate) seq: SeqTables,
    pub(crate) reps: [usize; 3],
}

/// A dictionary ready for decoding.
///
/// Mirrors ZSTD_DDict (ZSTD_createDDict_advanced with `ZSTD_dct_auto` or
/// `ZSTD_dct_rawContent`).
#[derive(Clone, Debug)]
pub(crate) struct DictTables {
    /// The ID frames name it by (0 for raw content).
    pub(crate) id: u32,
    /// The history before each frame's first byte.
    pub(crate) content: Vec<u8>,
    /// The entropy tables and repeat offsets of a formatted dictionary.
    pub(crate) entropy: Option<Box<DictEntropy>>,
}

impl DictTables {
    /// Raw content: history only, no ID, no tables.
    pub(crate) fn raw(bytes: &[u8]) -> DictTables {
        DictTables {
            id: 0,
            content: bytes.to_vec(),
            entropy: None,
        }
    }

    /// A formatted dictionary when `bytes` starts with its magic number (and has at least
    /// 8 bytes), else raw content.
    ///
    /// Mirrors ZSTD_decompress_insertDictionary (ZSTD_dct_auto).
    pub(crate) fn parse(bytes: &[u8]) -> Result<DictTables, ZstdError> {
        let magic = bytes
            .get(..4)
            .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]));
        if bytes.len() < 8 || magic != Some(DICT_MAGIC) {
            return Ok(DictTables::raw(bytes));
        }
        let bad = |reason| ZstdError::BadDictionary { reason };
        let id = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let (entropy, used) = load_entropy(&bytes[8..])?;
        let content = &bytes[8 + used..];
        for &rep in &entropy.reps {
            if rep == 0 || rep > content.len() {
                return Err(bad(
                    "a repeat offset is zero or larger than the dictionary's content",
                ));
            }
        }
        Ok(DictTables {
            id,
            content: content.to_vec(),
            entropy: Some(Box::new(entropy)),
        })
    }
}

/// Read the entropy part of a formatted dictionary (after magic and ID): the Huffman table,
/// the offset, match-length and literal-length tables (in that order), three repeat
/// offsets. Returns the tables and the bytes read.
///
/// Mirrors ZSTD_loadDEntropy.
fn load_entropy(src: &[u8]) -> Result<(DictEntropy, usize), ZstdError> {
    let bad = |reason| ZstdError::BadDictionary { reason };
    let mut huf = HufTable::default();
    let mut pos = huf
        .read(src)
        .map_err(|_| bad("its Huffman table is invalid"))?;
    // Built once here: every treeless section that reads it in place decodes two symbols
    // per lookup.
    huf.prepare_pairs();
    let mut seq = SeqTables::default();
    for (table, kind) in [
        (&mut seq.of, &OF_KIND),
        (&mut seq.ml, &ML_KIND),
        (&mut seq.ll, &LL_KIND),
    ] {
        let rest = src.get(pos..).unwrap_or(&[]);
        pos += read_seq_table(table, kind, rest, &mut Spread::default())
            .map_err(|_| bad("one of its sequence tables is invalid"))?;
    }
    let r = src
        .get(pos..pos + 12)
        .ok_or(bad("it ends before its repeat offsets"))?;
    let rep = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]) as usize;
    let reps = [rep(0), rep(4), rep(8)];
    Ok((DictEntropy { huf, seq, reps }, pos + 12))
}
