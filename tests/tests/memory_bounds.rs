//! Memory per open archive is bounded by the file's real size, whatever its fields claim.
//! A counting allocator records the peak of live heap bytes while hostile archives are
//! opened and read. (This test binary holds a single test so nothing else allocates.)

use std::io::Read;

use zarkit_tests::counting::{Counting, peak_during};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Emits, for every block, a zstd frame header declaring a 1 GiB window.
struct HugeWindow;

impl zarkit::zar::BlockCompressor for HugeWindow {
    fn context(&self) -> std::io::Result<Box<dyn zarkit::zar::BlockContext>> {
        Ok(Box::new(HugeWindow))
    }
    fn describe(&self) -> String {
        "huge window".into()
    }
}

impl zarkit::zar::BlockContext for HugeWindow {
    fn compress_block(&mut self, _: &[u8; 65536], out: &mut Vec<u8>) -> std::io::Result<()> {
        // Magic, FHD 0 (no content size, not single-segment), window descriptor 0xA0
        // (2^30 bytes), then an empty raw last block.
        out.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA0, 0x01, 0x00, 0x00]);
        Ok(())
    }
}

#[test]
fn hostile_size_fields_never_drive_allocation() {
    // A block whose frame declares a 1 GiB window is refused before any window is allocated.
    let opts = zarkit::zar::WriterOptions::new().compressor(std::sync::Arc::new(HugeWindow));
    let mut w = zarkit::zar::ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    w.add_file("f.bin", &[7u8; 100][..]).unwrap();
    let bytes = w.finish().unwrap().0;
    let mut msg = String::new();
    let peak = peak_during(|| {
        let a = zarkit::zar::Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
        msg = a
            .open_file("f.bin")
            .unwrap()
            .read_to_end(&mut Vec::new())
            .unwrap_err()
            .to_string();
    });
    assert!(msg.contains("block 0") && msg.contains("f.bin"), "{msg}");
    assert!(
        peak < 1 << 20,
        "peak {peak} bytes for a frame declaring a 1 GiB window"
    );

    let dir = zarkit_tests::zar("bad");
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "zar") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let len = bytes.len();
        let peak = peak_during(|| {
            if let Ok(a) = zarkit::zar::Archive::from_reader(std::io::Cursor::new(bytes)) {
                for f in a.walk().filter(|e| e.is_file()).collect::<Vec<_>>() {
                    let _ = f.open().unwrap().take(1 << 20).read_to_end(&mut Vec::new());
                }
            }
        });
        // The file itself, the decoded blocks in the cache (16 x 64 KiB), one decoder
        // window (the frames here declare at most 64 KiB), and small change.
        let bound = 2 * len + 16 * 65536 + 2 * 65536 + (256 << 10);
        assert!(
            peak <= bound,
            "{}: peak {peak} bytes > bound {bound}",
            p.display()
        );
    }
}
