//! The native adapters behind the container's codec traits: libzstd 1.5.7's
//! `ZSTD_compress(block, level)`, exactly what the reference ZArchive tool calls, and
//! `ZSTD_decompressDCtx` on a reused context for reading. Lives in `benches/` only, to
//! measure the container with the native codec beside ours.

use zarkit::zar::format::BLOCK_SIZE;
use zarkit::zar::{BlockCompressor, BlockContext, BlockDecodeContext, BlockDecompressor};
use zarkit::zstd::ZstdError;

use crate::oracle::{self, NativeDecoder};

/// Compresses ZAR blocks with native libzstd at `level`.
#[derive(Debug, Clone, Copy)]
pub struct NativeZstd {
    /// The zstd level.
    pub level: i32,
}

impl BlockCompressor for NativeZstd {
    fn context(&self) -> std::io::Result<Box<dyn BlockContext>> {
        Ok(Box::new(*self))
    }
    fn describe(&self) -> String {
        format!("native libzstd 1.5.7 level {}", self.level)
    }
}

impl BlockContext for NativeZstd {
    fn compress_block(
        &mut self,
        block: &[u8; BLOCK_SIZE],
        out: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        oracle::compress_into(block, self.level, out);
        Ok(())
    }
}

/// Decodes ZAR blocks with native libzstd: the same container code (cache, batches,
/// checks, writes) over native block decoding, for reads and extracts "with native blocks".
#[derive(Debug, Clone, Copy, Default)]
pub struct NativeUnzstd;

impl BlockDecompressor for NativeUnzstd {
    fn context(&self) -> Box<dyn BlockDecodeContext> {
        Box::new(NativeBlockDecoder(NativeDecoder::new()))
    }
    fn describe(&self) -> String {
        "native libzstd 1.5.7".into()
    }
}

struct NativeBlockDecoder(NativeDecoder);

impl BlockDecodeContext for NativeBlockDecoder {
    fn decode_block(&mut self, stored: &[u8], out: &mut [u8]) -> Result<(), ZstdError> {
        // The block is `out[..BLOCK_SIZE]`; the reader's slack after it is scratch.
        match self.0.decompress_into(stored, out) {
            Ok(n) if n == BLOCK_SIZE => Ok(()),
            Ok(n) => Err(ZstdError::SizeMismatch {
                expected: BLOCK_SIZE,
                got: n,
            }),
            Err(_) => Err(ZstdError::Malformed {
                at: 0,
                reason: "libzstd refused the frame",
            }),
        }
    }
}
