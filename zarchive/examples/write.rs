//! Write an archive from code, byte-identical to what the reference tool would write for the
//! same tree: `cargo run --example write -- OUT.zar`.

use std::fs::File;
use std::io::BufWriter;

use zarkit::zar::{ArchiveWriter, WriterOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args_os().nth(1).ok_or("usage: write OUT.zar")?;
    // Level 6 blocks (the reference tool's), compressed on two threads.
    let options = WriterOptions::new().threads(2);
    let mut w = ArchiveWriter::with_options(BufWriter::new(File::create(out)?), &options)?;
    w.add_dir("content")?;
    w.add_file("content/hello.txt", &b"hello, archive\n"[..])?;
    w.start_file("content/numbers.txt")?;
    for i in 0..10_000 {
        w.append(format!("{i}\n").as_bytes())?;
    }
    let (_, summary) = w.finish()?;
    eprintln!(
        "{} files in {} blocks, {} bytes",
        summary.files, summary.blocks, summary.archive_size
    );
    Ok(())
}
