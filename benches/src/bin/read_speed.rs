//! The reader against the same reader over native blocks: one archive of a generated
//! game-dump-like tree (level 6), opened twice — once with our decoder, once with
//! [`NativeUnzstd`] behind the same container code — and measured in interleaved rounds
//! (median ratio, > 1: ours is faster):
//!
//! - a cold random 4 KiB read (`Entry::read_at` at a pseudo-random place of a pseudo-random
//!   file, a one-block cache, so nearly every read decodes its block), also set against one
//!   native 64 KiB decode of the archive's blocks (libzstd on a reused context);
//! - `extract` of the whole tree with one thread (no verification pass, files overwritten),
//!   and against a minimal extractor over native blocks (`File::create` per file, no
//!   temporary names or checks; `--minimal-extract ARCHIVE DEST` runs it alone).
//!
//! `cargo run --release -p zarkit-benches --bin read_speed [-- --tree-mib N] [--budget-ms N]
//! [--archive PATH]` (`--archive`: measure an existing archive instead of the generated tree)

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use zarkit::zar::{
    Archive, EntryId, ExtractOptions, OpenOptions, PackOptions, WriterOptions, Zstd, extract,
    pack_dir,
};
use zarkit_benches::measure::interleaved;
use zarkit_benches::native::NativeUnzstd;
use zarkit_benches::oracle::{self, NativeDecoder};
use zarkit_benches::trees;

fn arg(args: &[String], name: &str) -> Option<u64> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
}

/// Pseudo-random 4 KiB reads: (file, offset) pairs over the files of at least 4 KiB.
fn picks(a: &Archive, n: usize) -> Vec<(EntryId, u64)> {
    let files: Vec<(EntryId, u64)> = a
        .walk()
        .filter(|e| e.is_file() && e.size() >= 4096)
        .map(|e| (e.id(), e.size()))
        .collect();
    let mut rng = zarkit_corpus::SplitMix64::new(42);
    (0..n)
        .map(|_| {
            let (id, size) = files[rng.below(files.len() as u64) as usize];
            (id, rng.below(size - 4095))
        })
        .collect()
}

/// A minimal extractor over native blocks, the yardstick of `extract`: every file of `a`
/// in walk order, `create_dir_all` for its folder, `File::create`, and the file's bytes from
/// its blocks (stored bytes read with one positioned read each, decoded by libzstd on a
/// reused context, the last block kept for the next file). No checks beyond the index's,
/// no temporary names: what a careless tool does.
fn minimal_extract(a: &Archive, dest: &std::path::Path) -> std::io::Result<u64> {
    use std::io::Write;
    let mut native = NativeDecoder::new();
    let block_size = zarkit::zar::format::BLOCK_SIZE;
    let mut out = vec![0u8; block_size];
    let mut have: Option<u64> = None;
    let mut bytes = 0u64;
    for e in a.walk() {
        let path = dest.join(String::from_utf8_lossy(&e.path()).as_ref());
        if e.is_dir() {
            std::fs::create_dir_all(&path)?;
            continue;
        }
        let zarkit::zar::EntryKind::File { offset, size } = e.kind() else {
            continue;
        };
        let mut f = std::fs::File::create(&path)?;
        let mut at = offset;
        while at < offset + size {
            let block = at / block_size as u64;
            if have != Some(block) {
                let stored = a.stored_block(block).map_err(std::io::Error::other)?;
                if stored.len() == block_size {
                    out.copy_from_slice(&stored);
                } else {
                    native
                        .decompress_into(&stored, &mut out)
                        .map_err(|_| std::io::Error::other("libzstd refused a block"))?;
                }
                have = Some(block);
            }
            let within = (at % block_size as u64) as usize;
            let n = (block_size - within).min((offset + size - at) as usize);
            f.write_all(&out[within..within + n])?;
            at += n as u64;
            bytes += n as u64;
        }
    }
    Ok(bytes)
}

fn main() {
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();
    let args: Vec<String> = std::env::args().collect();
    // `--minimal-extract ARCHIVE DEST`: only run the minimal extractor once (to time it
    // beside `zarchive extract -j1 --no-verify`).
    if let Some(i) = args.iter().position(|a| a == "--minimal-extract") {
        let a = Archive::open(&args[i + 1]).expect("opens");
        let n = minimal_extract(&a, std::path::Path::new(&args[i + 2])).expect("extracts");
        println!("{n} bytes");
        return;
    }
    let mib = arg(&args, "--tree-mib").unwrap_or(64);
    let budget = Duration::from_millis(arg(&args, "--budget-ms").unwrap_or(2000));
    let dir = tempfile::tempdir().expect("a temporary folder");
    let given = args
        .iter()
        .position(|a| a == "--archive")
        .and_then(|i| args.get(i + 1));
    let (archive, what) = match given {
        Some(path) => (std::path::PathBuf::from(path), path.clone()),
        None => {
            let tree = dir.path().join("tree");
            let bytes = trees::big_tree(&tree, mib << 20).expect("the generated tree");
            let archive = dir.path().join("tree.zar");
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let codec = Arc::new(Zstd::new(6).expect("level 6"));
            let pack = PackOptions::new()
                .writer(WriterOptions::new().compressor(codec).threads(cores))
                .overwrite(true);
            pack_dir(&tree, &archive, &pack, &mut |_| {}).expect("packs");
            (
                archive,
                format!("{mib} MiB generated tree ({bytes} bytes, level 6)"),
            )
        }
    };
    {
        let a = Archive::open(&archive).expect("opens");
        println!(
            "{what}: {} files, {} blocks, archive {} bytes",
            a.file_count(),
            a.block_count(),
            a.archive_size()
        );
    }

    let cold = |native: bool| {
        let o = OpenOptions::new().cache_blocks(1);
        let o = if native {
            o.decompressor(Arc::new(NativeUnzstd))
        } else {
            o
        };
        o.open(&archive).expect("opens")
    };
    let (ours, theirs) = (cold(false), cold(true));
    let reads = picks(&ours, 4096);
    let (mut i, mut j) = (0usize, 0usize);
    let (mut buf_a, mut buf_b) = (vec![0u8; 4096], vec![0u8; 4096]);
    for &(id, at) in &reads[..64] {
        ours.entry(id).unwrap().read_at(at, &mut buf_a).unwrap();
        theirs.entry(id).unwrap().read_at(at, &mut buf_b).unwrap();
        assert_eq!(buf_a, buf_b, "both readers read the same bytes");
    }
    let read = |a: &Archive, k: &mut usize, buf: &mut [u8]| {
        let (id, at) = reads[*k % reads.len()];
        *k += 1;
        a.entry(id).expect("an id").read_at(at, buf).expect("reads");
        black_box(&buf);
    };
    let r = interleaved(
        &mut || read(&ours, &mut i, &mut buf_a),
        &mut || read(&theirs, &mut j, &mut buf_b),
        budget,
        15,
    );
    println!("| row | ours µs | reference µs | × reference |");
    println!("|---|---|---|---|");
    println!(
        "| cold random 4 KiB read vs the same with native blocks | {:.1} | {:.1} | {:.2} |",
        r.ours_ns / 1e3,
        r.native_ns / 1e3,
        r.ratio
    );

    // One native 64 KiB decode: libzstd over the archive's compressed blocks in turn.
    let frames: Vec<Vec<u8>> = (0..ours.block_count())
        .map(|b| ours.stored_block(b).expect("stored bytes"))
        .filter(|f| f.len() != zarkit::zar::format::BLOCK_SIZE)
        .collect();
    let mut native = NativeDecoder::new();
    let mut out = vec![0u8; zarkit::zar::format::BLOCK_SIZE];
    let mut f = 0usize;
    let mut k = 0usize;
    let r = interleaved(
        &mut || read(&ours, &mut k, &mut buf_a),
        &mut || {
            let frame = &frames[f % frames.len()];
            f += 1;
            black_box(native.decompress_into(frame, &mut out).expect("decodes"));
        },
        budget,
        15,
    );
    println!(
        "| cold random 4 KiB read vs one native 64 KiB block decode | {:.1} | {:.1} | {:.2} |",
        r.ours_ns / 1e3,
        r.native_ns / 1e3,
        r.ratio
    );

    let open = |native: bool| {
        let o = OpenOptions::new();
        let o = if native {
            o.decompressor(Arc::new(NativeUnzstd))
        } else {
            o
        };
        o.open(&archive).expect("opens")
    };
    let (ours, theirs) = (open(false), open(true));
    let xo = ExtractOptions::new()
        .overwrite(true)
        .threads(1)
        .verify(false);
    let (dest_a, dest_b) = (dir.path().join("out-ours"), dir.path().join("out-native"));
    let r = interleaved(
        &mut || {
            extract(&ours, &dest_a, &xo, &mut |_| {}).expect("extracts");
        },
        &mut || {
            extract(&theirs, &dest_b, &xo, &mut |_| {}).expect("extracts");
        },
        budget * 4,
        7,
    );
    println!(
        "| extract, 1 thread, vs the same with native blocks | {:.0} | {:.0} | {:.2} |",
        r.ours_ns / 1e3,
        r.native_ns / 1e3,
        r.ratio
    );
    let dest_c = dir.path().join("out-minimal");
    let r = interleaved(
        &mut || {
            extract(&ours, &dest_a, &xo, &mut |_| {}).expect("extracts");
        },
        &mut || {
            minimal_extract(&theirs, &dest_c).expect("extracts");
        },
        budget * 4,
        7,
    );
    println!(
        "| extract, 1 thread, vs a minimal extractor over native blocks | {:.0} | {:.0} | {:.2} |",
        r.ours_ns / 1e3,
        r.native_ns / 1e3,
        r.ratio
    );
}
