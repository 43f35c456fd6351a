//! The native adapter behind the container's block-compressor trait: libzstd 1.5.7's
//! `ZSTD_compress(block, level)`, exactly what the reference ZArchive tool calls. Lives in
//! `benches/` only, to measure the container with the native codec beside ours.

use zarkit::zar::format::BLOCK_SIZE;
use zarkit::zar::{BlockCompressor, BlockContext};

use crate::oracle;

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
