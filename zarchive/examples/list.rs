//! List an archive's entries with their sizes: `cargo run --example list -- ARCHIVE`.

use zarkit::zar::{Archive, EntryKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os().nth(1).ok_or("usage: list ARCHIVE")?;
    // Opening validates the whole index; a hostile archive is refused here.
    let archive = Archive::open(&path)?;
    for entry in archive.walk() {
        match entry.kind() {
            EntryKind::File { size, .. } => println!("{size:>12}  {}", entry.path_display()),
            EntryKind::Dir => println!("{:>12}  {}/", "-", entry.path_display()),
        }
    }
    Ok(())
}
