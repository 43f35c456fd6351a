//! `zarchive`: pack, extract, list, verify and read ZAR (.zar / .wua) archives.
//! Thin over the `zarkit` library: argument parsing, progress bars, exit codes.
//!
//! One module per subcommand family: [`pack`], [`read`] (extract, list, verify, cat, info)
//! and [`frames`] (compress, decompress); [`output`] holds what they share (progress bars,
//! files that appear only when complete, wording).

/// Every message of the tool goes to standard error through this `eprintln!`, which never
/// panics: a message that cannot be written there (a log file on a full disk, `2>&1 |
/// head -1`, `2>/dev/full`) is dropped and the work goes on, as `zstd` and `tar` go on.
/// `std`'s panicked, and the panic threw the command's output away (`pack` left no
/// archive because a warning could not be shown). Defined before the modules, it is the
/// `eprintln!` they all see.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod frames;
#[cfg(all(feature = "mount", any(target_os = "linux", target_os = "macos")))]
mod mount;
mod output;
mod pack;
mod read;
mod train;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use zarkit::zar::ZarError;
use zarkit::zar::names::display_path;

/// Success.
const EXIT_OK: u8 = 0;
/// Any failure (I/O, a refused archive, a failed entry).
const EXIT_FAILURE: u8 = 1;
/// Bad command line.
const EXIT_USAGE: u8 = 2;
/// `verify` or `extract` found the archive damaged (hash mismatch, undecodable block,
/// invalid index).
const EXIT_DAMAGED: u8 = 3;

const AFTER_HELP: &str = "\
Reference-tool form (Exzap's ZArchive):
  zarchive DIR [OUT]         pack DIR into OUT (default: DIR.zar beside DIR)
  zarchive FILE.zar [OUTDIR] extract into OUTDIR (default: FILE_extracted beside FILE.zar)
  Arguments starting with `-` are options, never paths; put `--` before a path that starts
  with `-`.

Exit codes: 0 success (also when entries were skipped with a warning), 1 failure,
2 usage error, 3 the archive is damaged (verify; extract: an index that does not validate, a
block that does not decode, or the hash check of a full extract).";

#[derive(Parser, Debug)]
#[command(name = "zarchive", version, about = "Pack, extract, list and verify ZAR (.zar / .wua) archives", after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Pack a directory tree into an archive.
    Pack(pack::PackArgs),
    /// Merge directories and archives into one archive (later inputs win).
    Merge(pack::MergeArgs),
    /// Merge directories into an existing archive, in place (atomically).
    Update(pack::UpdateArgs),
    /// Extract entries (all, or the given paths) into a directory.
    Extract(read::ExtractArgs),
    /// List the entries.
    List(read::ListArgs),
    /// Check the integrity hash and decode every block.
    Verify(read::VerifyArgs),
    /// Write a file (or a byte range of it) to standard output.
    Cat(read::CatArgs),
    /// Show what an archive holds and how it is stored.
    Info(read::InfoArgs),
    /// Mount an archive as a read-only file system (FUSE) until Ctrl-C.
    #[cfg(all(feature = "mount", any(target_os = "linux", target_os = "macos")))]
    Mount(mount::MountArgs),
    /// Compress files, each into one zstd frame, streamed as `zstd --single-thread` does (`-` for stdin/stdout).
    #[command(args_override_self = true)]
    Compress(frames::CompressArgs),
    /// Decompress standard zstd frames (`-` for stdin/stdout).
    #[command(args_override_self = true)]
    Decompress(frames::DecompressArgs),
    /// Train a zstd dictionary on sample files, as `zstd --train`.
    Train(train::TrainArgs),
}

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    message: String,
}

impl From<ZarError> for Failure {
    fn from(e: ZarError) -> Self {
        Failure {
            code: EXIT_FAILURE,
            message: output::explain(&e),
        }
    }
}

/// A failure with `code` and `message`.
pub fn fail(code: u8, message: impl Into<String>) -> Failure {
    Failure {
        code,
        message: message.into(),
    }
}

/// Largest dictionary file read (`zstd`'s `DICTSIZE_MAX`, 32 MiB).
pub const DICTIONARY_MAX: u64 = 32 << 20;

/// The bytes of the dictionary file at `path` (`-D`, `--dict`): a regular file of at most
/// [`DICTIONARY_MAX`] bytes, as the `zstd` tool takes them. A device or FIFO (`/dev/zero`,
/// which was read until memory ran out) or a file above the limit is refused.
pub fn read_dictionary(path: &std::path::Path) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    let shown = zarkit::zar::names::display_path(path);
    let failed = |e: std::io::Error| fail(EXIT_FAILURE, format!("{shown}: {e}"));
    if path.as_os_str() == "-" {
        return Err(fail(
            EXIT_USAGE,
            "a dictionary is not read from standard input (`-`): give its file (`./-` for a file named `-`)",
        ));
    }
    // Looked at before it is opened: opening a FIFO waits for a writer.
    let meta = std::fs::metadata(path).map_err(failed)?;
    if !meta.is_file() {
        return Err(fail(
            EXIT_FAILURE,
            format!("{shown}: a dictionary must be a regular file"),
        ));
    }
    let too_large = || {
        fail(
            EXIT_FAILURE,
            format!("{shown}: the dictionary is larger than {DICTIONARY_MAX} bytes (32 MiB)"),
        )
    };
    if meta.len() > DICTIONARY_MAX {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(failed)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(DICTIONARY_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(failed)?;
    if bytes.len() as u64 > DICTIONARY_MAX {
        return Err(too_large());
    }
    Ok(bytes)
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.len() == 1 {
        // No arguments: the usage, on stderr, as a usage error.
        let _ = Cli::command().write_help(&mut std::io::stderr());
        return ExitCode::from(EXIT_USAGE);
    }
    // `compress` takes the `zstd` tool's level forms (`-19`, `--fast=5`) too.
    let args = if args.get(1).is_some_and(|a| a == "compress") {
        match frames::zstd_level_forms(args) {
            Ok(args) => args,
            Err(f) => {
                eprintln!("zarchive: {}", f.message);
                return ExitCode::from(f.code);
            }
        }
    } else {
        args
    };
    let result = match legacy_form(&args) {
        Some(r) => r,
        None => match Cli::try_parse_from(&args) {
            Ok(cli) => run(cli.command),
            Err(e) => {
                let printed = e.print().and_then(|()| std::io::stdout().flush());
                if e.use_stderr() {
                    return ExitCode::from(EXIT_USAGE);
                }
                // `--help` and `--version` go to standard output: a failed write there
                // (`> /dev/full`) is a failure, a reader gone away (`| head`) is not.
                return match printed {
                    Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                        eprintln!("zarchive: writing to standard output: {err}");
                        ExitCode::from(EXIT_FAILURE)
                    }
                    _ => ExitCode::from(EXIT_OK),
                };
            }
        },
    };
    match result {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(f) => {
            eprintln!("zarchive: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// The names that select a subcommand (and clap's `help`), taken from the parser itself so
/// the reference-tool form can never shadow one.
fn subcommand_names() -> Vec<String> {
    let cmd = Cli::command();
    let mut names: Vec<String> = cmd
        .get_subcommands()
        .flat_map(|c| std::iter::once(c.get_name()).chain(c.get_all_aliases()))
        .map(str::to_owned)
        .collect();
    names.push("help".into());
    names
}

/// The reference tool's positional form: `zarchive INPUT [OUTPUT]`, where a directory is
/// packed and a file is extracted. Returns `None` when the arguments are for the parser
/// (a subcommand, or options such as `--help`). An argument starting with `-` is an option:
/// `--help`/`-h` and `--version`/`-V` are answered, anything else is a usage error — never
/// a path, unless it follows `--`.
fn legacy_form(args: &[OsString]) -> Option<Result<(), Failure>> {
    let first = args.get(1)?;
    let first_str = first.to_string_lossy();
    if first_str.starts_with('-') && first_str != "--"
        || subcommand_names().contains(&first_str.to_string())
    {
        return None;
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut options_ended = false;
    for a in &args[1..] {
        let s = a.to_string_lossy();
        if !options_ended && s == "--" {
            options_ended = true;
        } else if !options_ended && s.starts_with('-') && s != "-" {
            return match s.as_ref() {
                "-h" | "--help" => {
                    let _ = Cli::command().print_help();
                    Some(Ok(()))
                }
                "-V" | "--version" => {
                    let mut out = std::io::stdout().lock();
                    let written = writeln!(out, "zarchive {}", env!("CARGO_PKG_VERSION"))
                        .and_then(|()| out.flush());
                    Some(output::ignore_broken_pipe(written))
                }
                _ => Some(Err(fail(
                    EXIT_USAGE,
                    format!(
                        "unexpected option {s} in the form `zarchive INPUT [OUTPUT]`; use `zarchive pack` or `zarchive extract` for options, or put `--` before a path that starts with `-`"
                    ),
                ))),
            };
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    let (input, output) = match paths.as_slice() {
        [input] => (input.clone(), None),
        [input, output] => (input.clone(), Some(output.clone())),
        [] => {
            return Some(Err(fail(
                EXIT_USAGE,
                "no input given: use `zarchive INPUT [OUTPUT]` or a subcommand (see --help)",
            )));
        }
        _ => {
            return Some(Err(fail(
                EXIT_USAGE,
                "too many paths: use `zarchive INPUT [OUTPUT]` or a subcommand (see --help)",
            )));
        }
    };
    remove_partial_files_on_signal();
    // This form takes no options: an existing output is never replaced, and the hint names
    // the subcommand that can.
    let no_force = |r: Result<(), Failure>, sub: &str| {
        r.map_err(|mut f| {
            if let Some(m) = f.message.strip_suffix(output::REPLACE_HINT) {
                f.message = format!("{m}; `zarchive {sub} -f` replaces it");
            }
            f
        })
    };
    Some(if input.is_dir() {
        no_force(pack::run(pack::PackArgs::positional(input, output)), "pack")
    } else if input.is_file() {
        no_force(
            read::extract(read::ExtractArgs::positional(input, output)),
            "extract",
        )
    } else {
        // A mistyped subcommand is the likelier meaning than a missing file.
        let typed = input.to_string_lossy();
        let near = subcommand_names()
            .into_iter()
            .filter(|n| n != "help")
            .map(|n| (edit_distance(typed.as_bytes(), n.as_bytes()), n))
            .filter(|(d, n)| *d <= 2 && *d < n.len())
            .min();
        Err(fail(
            EXIT_USAGE,
            match near {
                Some((_, name)) => format!(
                    "{}: not a file or directory, nor a subcommand; did you mean `zarchive {name}`?",
                    display_path(&input)
                ),
                None => format!(
                    "{}: not a file or directory (and not a subcommand; see --help)",
                    display_path(&input)
                ),
            },
        ))
    })
}

/// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// On Ctrl-C or a termination signal, remove the temporary files being written (an archive,
/// extracted files, a frame's output), which destructors would have removed on any other
/// way out, then end by the same signal, as `tar` ends: the shell sees 128 + its number
/// (130, 143, 129), and a shell loop stops on Ctrl-C (exiting 130 let `for f in …; do
/// zarchive …; done` go on to the next file). Nothing partial is left behind, hidden or
/// not. On Linux, a signal ignored when the process started (`nohup`, a script's `cmd &`)
/// stays ignored, as it does for `tar` and `zstd` (it was caught, and `nohup zarchive pack`
/// died on SIGHUP); where the system does not say which are ignored, all three are caught.
/// A write past `ulimit -f` fails with "File too large" instead of killing the process with
/// SIGXFSZ, so that the clean-up of a failed write runs.
#[cfg(unix)]
fn remove_partial_files_on_signal() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    );
    // Without a handler (none could be set) a signal ends the process as before.
    let Ok(mut signals) = signal_hook::iterator::Signals::new(termination_signals()) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("zarchive-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let done = zarkit::zar::remove_partial_files();
                eprintln!("zarchive: {}", interrupted(done));
                // Does not return for these signals (signal-hook aborts if the signal
                // cannot be raised again); the exit only for one it would not know.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
}

/// Elsewhere: Ctrl-C (and the console's close) through `ctrlc`, which does not say which.
#[cfg(not(unix))]
fn remove_partial_files_on_signal() {
    // The exit status after Ctrl-C (128 + SIGINT, as shells report it).
    const EXIT_INTERRUPTED: i32 = 130;
    let _ = ctrlc::set_handler(|| {
        eprintln!(
            "zarchive: {}",
            interrupted(zarkit::zar::remove_partial_files())
        );
        std::process::exit(EXIT_INTERRUPTED);
    });
}

/// What the tool says when a signal stops it, after `done`.
fn interrupted(done: zarkit::zar::PartialsRemoved) -> &'static str {
    match (done.removed > 0, done.emptied > 0) {
        (false, false) => "interrupted",
        (true, false) => "interrupted; the unfinished output was removed",
        (false, true) => {
            "interrupted; the output written in place was emptied (it cannot be removed)"
        }
        (true, true) => {
            "interrupted; the unfinished output was removed (the part written in place, emptied)"
        }
    }
}

/// The signals that end the process and that the tool catches: SIGINT, SIGTERM and SIGHUP,
/// less those ignored when it started (on Linux, as `/proc/self/status` lists them; where
/// the system does not say, all three).
#[cfg(unix)]
fn termination_signals() -> Vec<i32> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let ignored = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .unwrap_or(0);
    [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|&s| ignored & (1 << (s - 1)) == 0)
        .collect()
}

fn run(cmd: Command) -> Result<(), Failure> {
    // `mount` handles Ctrl-C itself (it unmounts); it writes no files.
    #[cfg(all(feature = "mount", any(target_os = "linux", target_os = "macos")))]
    let mount = matches!(cmd, Command::Mount(_));
    #[cfg(not(all(feature = "mount", any(target_os = "linux", target_os = "macos"))))]
    let mount = false;
    if !mount {
        remove_partial_files_on_signal();
    }
    match cmd {
        Command::Pack(a) => pack::run(a),
        Command::Merge(a) => pack::merge(a),
        Command::Update(a) => pack::update(a),
        Command::Extract(a) => read::extract(a),
        Command::List(a) => read::list(a),
        Command::Verify(a) => read::verify(a),
        Command::Cat(a) => read::cat(a),
        Command::Info(a) => read::info(a),
        #[cfg(all(feature = "mount", any(target_os = "linux", target_os = "macos")))]
        Command::Mount(a) => mount::run(a),
        Command::Compress(a) => frames::compress(a),
        Command::Decompress(a) => frames::decompress(a),
        Command::Train(a) => train::train(a),
    }
}
