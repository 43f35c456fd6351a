//! Extract a whole archive, or one file to standard output:
//! `cargo run --example extract -- ARCHIVE DEST` or `... -- ARCHIVE --cat PATH`.

use std::io::{Read, Write};

use zarkit::zar::{Archive, ExtractOptions, extract};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (archive, rest) = args
        .split_first()
        .ok_or("usage: extract ARCHIVE DEST | ARCHIVE --cat PATH")?;
    let archive = Archive::open(archive)?;
    match rest {
        [flag, path] if flag == "--cat" => {
            // Random access: only the blocks holding this file are read and decoded.
            let mut data = Vec::new();
            archive.open_file(path)?.read_to_end(&mut data)?;
            std::io::stdout().write_all(&data)?;
        }
        [dest] => {
            // Names were validated at open; nothing is written outside `dest`, and the
            // archive's SHA-256 is checked alongside.
            let summary = extract(
                &archive,
                dest.as_ref(),
                &ExtractOptions::default(),
                &mut |_| {},
            )?;
            eprintln!("{} files, {} bytes", summary.files, summary.bytes);
        }
        _ => return Err("usage: extract ARCHIVE DEST | ARCHIVE --cat PATH".into()),
    }
    Ok(())
}
