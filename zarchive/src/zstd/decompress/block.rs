//! One compressed block: literals section, sequences section, fused execution.

use super::DCtx;
use super::frame::Window;
use super::literals::decode_literals;
use super::sequences::{BlockOut, decode_and_execute, decode_seq_headers};
use crate::zstd::error::ZstdError;

/// Decode the compressed block `src` (its header at byte `at`) into `buf` at `op`; returns
/// the new output position. `cap_end` is where the caller's capacity ends.
///
/// Mirrors ZSTD_decompressBlock_internal, run through the context's [`Isa`](super::Isa)
/// as libzstd picks its `_bmi2` variants.
#[allow(clippy::too_many_arguments)]
pub(crate) fn decompress_block(
    ctx: &mut DCtx,
    src: &[u8],
    at: usize,
    buf: &mut [u8],
    op: usize,
    cap_end: usize,
    win: &Window,
    block_max: usize,
) -> Result<usize, ZstdError> {
    let isa = ctx.isa;
    // The block decoder proper, inlined into each code generation.
    isa.run(
        #[inline(always)]
        move || {
            let room = cap_end.saturating_sub(op);
            let (lit_used, lit_len) = decode_literals(ctx, src, at, block_max, room)?;
            let seq = src.get(lit_used..).unwrap_or(&[]);
            let (nb_seq, hdr) = decode_seq_headers(ctx, seq, at)?;
            let cap_end = cap_end.min(buf.len());
            let mut out = BlockOut {
                buf,
                start: op,
                block_end: op + block_max,
                cap_end,
                block_max,
            };
            let seq = seq.get(hdr..).unwrap_or(&[]);
            decode_and_execute(ctx, &mut out, win, seq, nb_seq, lit_len, at)
        },
    )
}
