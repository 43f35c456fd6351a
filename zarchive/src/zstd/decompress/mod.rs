//! Our zstd decoder (RFC 8878), laid out like libzstd's `lib/decompress/`: frame and block
//! framing (`frame`), literals (`literals`, `huf`), sequences and their fused decode+execute
//! loop (`sequences`, `fse_table`, `copy`), bit readers (`bits`) and the window-bounded
//! streaming decoder (`stream`).
//!
//! Frame bytes are hostile: every size read from the input is checked before use, no
//! allocation depends on a size field beyond the window limit, and every problem is a typed
//! [`ZstdError`](super::ZstdError) naming the byte offset where it was found.

mod bits;
mod block;
mod copy;
pub(crate) mod frame;
mod fse_table;
mod huf;
mod literals;
mod sequences;
pub(crate) mod stream;

use fse_table::SeqTable;
use huf::HufTable;

/// Largest block content (`ZSTD_BLOCKSIZE_MAX`).
pub(crate) const BLOCK_SIZE_MAX: usize = 128 * 1024;
/// Bytes a fast copy may write or read past its end (`WILDCOPY_OVERLENGTH`).
pub(crate) const WILDCOPY_OVERLENGTH: usize = 32;
/// Literal buffer: the largest literal section plus room for wild copies to over-read.
pub(crate) const LIT_BUFFER_SIZE: usize = BLOCK_SIZE_MAX + 2 * WILDCOPY_OVERLENGTH;
/// Repeat offsets a frame starts with (`repStartValue`).
const REP_START: [usize; 3] = [1, 4, 8];

/// Where one sequence table comes from: a predefined table, or the context's own (built
/// from a description or an RLE byte). Repeat mode keeps whatever the previous block used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TableSource {
    Predefined,
    Own,
}

/// The decoding state carried from block to block inside a frame: literal buffer, Huffman
/// table, sequence tables, repeat offsets.
///
/// Mirrors the entropy part of ZSTD_DCtx (`ZSTD_entropyDTables_t`, `litBuffer`, `rep`).
///
/// Dictionary hook: a dictionary (not implemented yet) would seed a frame from here —
/// `dict_id` names it, its entropy tables would be copied into `huf`/`ll`/`of`/`ml` with the
/// `*_valid` flags set, its repeat offsets into `reps`, and its content would be the older
/// history segment that `frame::Window::ext` already models.
pub(crate) struct DCtx {
    lit: Box<[u8; LIT_BUFFER_SIZE]>,
    huf: Box<HufTable>,
    /// A Huffman table is available for treeless literal sections (`litEntropy`).
    huf_valid: bool,
    ll: Box<SeqTable>,
    of: Box<SeqTable>,
    ml: Box<SeqTable>,
    ll_src: TableSource,
    of_src: TableSource,
    ml_src: TableSource,
    /// Sequence tables are available for repeat mode (`fseEntropy`).
    fse_valid: bool,
    reps: [usize; 3],
    /// Largest window a frame may declare.
    pub(crate) max_window: u64,
    /// The dictionary this context holds (0: none). Frames naming another are refused.
    dict_id: u32,
}

impl std::fmt::Debug for DCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DCtx")
            .field("max_window", &self.max_window)
            .finish_non_exhaustive()
    }
}

impl DCtx {
    pub(crate) fn new(max_window: u64) -> Self {
        DCtx {
            lit: vec![0u8; LIT_BUFFER_SIZE]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!()),
            huf: Box::default(),
            huf_valid: false,
            ll: Box::default(),
            of: Box::default(),
            ml: Box::default(),
            ll_src: TableSource::Predefined,
            of_src: TableSource::Predefined,
            ml_src: TableSource::Predefined,
            fse_valid: false,
            reps: REP_START,
            max_window,
            dict_id: 0,
        }
    }

    /// Forget the previous frame's entropy and offsets (frames are independent).
    ///
    /// Mirrors ZSTD_decompressBegin (without a dictionary).
    pub(crate) fn reset_for_frame(&mut self) {
        self.huf_valid = false;
        self.fse_valid = false;
        self.reps = REP_START;
    }
}
