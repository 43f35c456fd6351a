//! One block: entropy-code the sequence store, then libzstd's raw / RLE / compressed
//! decision (`ZSTD_compressBlock_internal`, `ZSTD_entropyCompressSeqStore`).

use super::huf::HufWorkspace;
use super::literals::{self, HufState, min_gain};
use super::params::{CParams, Strategy};
use super::seq_store::SeqStore;
use super::sequences::{self, FseRepeat, FseState};

pub(crate) use crate::zstd::common::format::BLOCK_SIZE_MAX;
/// Blocks smaller than this are stored raw without trying (`MIN_CBLOCK_SIZE + ZSTD_blockHeaderSize + 1 + 1`).
pub(crate) const MIN_COMPRESS_BLOCK_SIZE: usize = 2 + 3 + 1 + 1;
/// An all-one-byte block becomes an RLE block only if its compressed form is smaller (`rleMaxLength`).
pub(crate) const RLE_MAX_LENGTH: usize = 25;
/// Literals per sequence from which literals are suspected incompressible (`SUSPECT_UNCOMPRESSIBLE_LITERAL_RATIO`).
const SUSPECT_UNCOMPRESSIBLE_LITERAL_RATIO: usize = 20;

/// Entropy tables carried from block to block (`ZSTD_entropyCTables_t`).
#[derive(Clone, Debug, Default)]
pub(crate) struct EntropyTables {
    pub(crate) huf: HufState,
    pub(crate) fse: FseState,
}

/// Mirrors ZSTD_literalsCompressionIsDisabled for default (auto) parameters.
pub(crate) fn literals_compression_disabled(cp: &CParams) -> bool {
    cp.strategy == Strategy::Fast && cp.target_length > 0
}

/// Mirrors ZSTD_entropyCompressSeqStore_wExtLitBuffer: appends the compressed block body
/// to `out` and returns its size, or returns 0 (nothing appended) when the block must be
/// stored raw.
pub(crate) fn entropy_compress(
    out: &mut Vec<u8>,
    seqs: &mut SeqStore,
    prev: &EntropyTables,
    next: &mut EntropyTables,
    ws: &mut HufWorkspace,
    cp: &CParams,
    block_size: usize,
) -> usize {
    let start = out.len();
    let nb_seq = seqs.sequences.len();
    let lit_size = seqs.literals().len();
    let suspect = nb_seq == 0 || lit_size / nb_seq >= SUSPECT_UNCOMPRESSIBLE_LITERAL_RATIO;
    literals::compress_literals(
        out,
        seqs.literals(),
        &prev.huf,
        &mut next.huf,
        ws,
        cp.strategy,
        literals_compression_disabled(cp),
        suspect,
    );
    seqs.compute_codes();
    let scratch = &mut ws.stream;
    if sequences::compress_sequences(out, seqs, &prev.fse, &mut next.fse, cp.strategy, scratch)
        .is_none()
    {
        out.truncate(start);
        return 0;
    }
    let c_size = out.len() - start;
    if c_size >= block_size - min_gain(block_size, cp.strategy) {
        out.truncate(start);
        return 0;
    }
    c_size
}

/// Mirrors the end of ZSTD_compressBlock_internal: a `valid` offset table is demoted.
pub(crate) fn demote_offcode_repeat(tables: &mut EntropyTables) {
    if tables.fse.of_repeat == FseRepeat::Valid {
        tables.fse.of_repeat = FseRepeat::Check;
    }
}

/// Mirrors ZSTD_isRLE.
pub(crate) fn is_rle(src: &[u8]) -> bool {
    src.iter().all(|&b| b == src[0])
}
