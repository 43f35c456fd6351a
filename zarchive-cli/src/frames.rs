//! `zarchive compress` and `zarchive decompress`: standard zstd frames, with the `zstd`
//! tool's conventions for output files (kept unless `-f`, never the input itself, removed
//! when the operation fails).

use std::ffi::OsString;
use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use zarkit::zar::names::display_path;
use zarkit::zstd;

use crate::output::{self, OutputFile, count, is_dash, is_special};
use crate::pack::parse_level;
use crate::{EXIT_FAILURE, EXIT_USAGE, Failure, fail};

/// Arguments of `zarchive compress`.
#[derive(Args, Debug)]
pub struct CompressArgs {
    /// Input files, or `-` for standard input: each is compressed to INPUT.zst, as `zstd
    /// FILE...` does (a failed one is named and the others go on), or all into the one
    /// output of `-c`, or of `-o` with `-f` (as `zstd`: joined, they lose their names),
    /// frame after frame. None: standard input, unless it is a terminal (as `zstd`).
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Output file, or `-` for standard output (default: INPUT.zst; standard output when
    /// the input is `-`); the next argument is taken as it is, as `zstd -o` takes it.
    #[arg(short, long, allow_hyphen_values = true)]
    output: Option<PathBuf>,
    /// zstd level, from -131072 to 22. The `zstd` tool's forms work too: `-1` .. `-19`
    /// (`-20` .. `-22` with `--ultra`; above 22, 22 with `--ultra` and 19 without, with a
    /// warning, as `zstd`), also grouped with short options (`-19c`), and `--fast[=N]`
    /// (level -N, 1 when bare); the last level given wins.
    #[arg(short, long, default_value = "3", allow_hyphen_values = true)]
    level: String,
    /// Let `-20` .. `-22` reach levels above 19, as `zstd --ultra` (without it they mean
    /// 19, as in `zstd`, with a warning); `-l` takes those levels without it.
    #[arg(long)]
    ultra: bool,
    #[command(flatten)]
    dest: Destination,
    /// Replace the output file if it exists; follow symbolic links given as inputs (ignored
    /// otherwise, as `zstd` does); join several inputs into one `-o` file; write compressed
    /// data to a terminal.
    #[arg(short, long)]
    force: bool,
    /// No progress bar (shown on stderr when it is a terminal).
    #[arg(short, long)]
    quiet: bool,
    /// End the frame with a content checksum (the default, as `zstd`).
    #[arg(long, overrides_with = "no_check")]
    check: bool,
    /// No content checksum.
    #[arg(long = "no-check", overrides_with = "check")]
    no_check: bool,
    /// Name a file's size in the frame header when it is known (the default, as `zstd`).
    #[arg(long = "content-size", overrides_with = "no_content_size")]
    content_size: bool,
    /// Leave the size out of the frame header, as `zstd --no-content-size` (the header
    /// names the window instead; the blocks are the same).
    #[arg(long = "no-content-size", overrides_with = "content_size")]
    no_content_size: bool,
    /// Leave a zstd-format dictionary's ID out of the frame header, as `zstd
    /// --no-dictID` (the decoder must then be given the right dictionary unasked).
    #[arg(long = "no-dictID")]
    no_dict_id: bool,
    /// Compress with this dictionary (a zstd-format dictionary, such as `zstd --train`
    /// writes, or raw content), as `zstd -D`: the frame is libzstd's after
    /// `ZSTD_CCtx_loadDictionary` with the dedicated dictionary search the `zstd` tool
    /// turns on, streamed as without one, and names a zstd-format dictionary's ID.
    #[arg(short = 'D', long = "dict", value_name = "FILE")]
    dict: Option<PathBuf>,
    #[command(flatten)]
    long: LongArg,
    #[command(flatten)]
    compat: ZstdCompat,
    /// Compress every file under each directory given, each to its own FILE.zst beside
    /// it, as `zstd -r` (names in order; symbolic links met there are not followed).
    #[arg(short = 'r', long = "recursive")]
    recursive: bool,
    /// Leave out inputs already compressed, by their suffix, as `zstd --exclude-compressed`
    /// (its list: .zst, .gz, .xz, .lz4 and the like, archives such as .zip and .7z, and
    /// formats compressed inside such as .png, .jpg, .mp4 and .docx).
    #[arg(long)]
    exclude_compressed: bool,
}

/// Options of the `zstd` tool taken for compatibility, shared by `compress` and
/// `decompress`: they change nothing here.
#[derive(Args, Debug)]
struct ZstdCompat {
    /// Accepted as `zstd -T` takes it; this tool compresses and decompresses with one
    /// thread, its frames those of `zstd --single-thread` (a multi-threaded `zstd` writes
    /// other bytes, which decode the same).
    #[arg(short = 'T', long = "threads", value_name = "N")]
    #[allow(dead_code)] // Taken, not used: see above.
    threads: Option<u32>,
    /// Accepted as `zstd --single-thread` takes it: what this tool always does.
    #[arg(long = "single-thread")]
    #[allow(dead_code)] // Taken, not used: see above.
    single_thread: bool,
    /// No progress bar, as `zstd --no-progress` (messages are still shown).
    #[arg(long = "no-progress")]
    no_progress: bool,
    /// Say more, as `zstd -v`: with several inputs, a line for each besides the total.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count)]
    verbose: u8,
}

/// The summary lines `zstd` prints on stderr once an input is done (`fileio.c`): one per
/// input when there is one input or `-v` was given, a total when there are several.
/// Nothing with `-q`, nor (unless `-v`) into standard output: `zstd` lowers its display
/// level then.
struct Summary {
    /// Whether lines are shown at all (not `-q`).
    shown: bool,
    /// `-v` given: every input's line, and lines for standard output too.
    verbose: bool,
    /// Inputs given, inputs done, and their bytes in and out.
    inputs: u64,
    done: u64,
    bytes_in: u64,
    bytes_out: u64,
    /// Whether the last input went to standard output.
    to_stdout: bool,
}

impl Summary {
    fn new(quiet: bool, verbose: u8, inputs: usize) -> Self {
        Summary {
            shown: !quiet,
            verbose: verbose > 0,
            inputs: inputs as u64,
            done: 0,
            bytes_in: 0,
            bytes_out: 0,
            to_stdout: false,
        }
    }

    /// Whether the line of an input written to `output` is shown.
    fn each(&self, output: &Path) -> bool {
        self.shown && (self.verbose || (self.inputs <= 1 && !is_dash(output)))
    }

    /// How `zstd` names an input or output in these lines.
    fn name(path: &Path, stdio: &str) -> String {
        if is_dash(path) {
            stdio.to_string()
        } else {
            display_path(path)
        }
    }

    /// `input` compressed from `bytes_in` to `bytes_out` bytes into `output`.
    fn compressed(&mut self, input: &Path, output: &Path, bytes_in: u64, bytes_out: u64) {
        self.add(output, bytes_in, bytes_out);
        if self.each(output) {
            let name = Self::name(input, "/*stdin*\\");
            let to = Self::name(output, "/*stdout*\\");
            let (i, o) = (human_size(bytes_in, 0), human_size(bytes_out, 0));
            if bytes_in == 0 {
                eprintln!("{name:<20} :  ({i} => {o}, {to}) ");
            } else {
                let ratio = bytes_out as f64 / bytes_in as f64 * 100.0;
                eprintln!("{name:<20} :{ratio:6.2}%   ({i} => {o}, {to}) ");
            }
        }
    }

    /// `input` decompressed to `bytes_out` bytes into `output`.
    fn decompressed(&mut self, input: &Path, output: &Path, bytes_out: u64) {
        self.add(output, 0, bytes_out);
        if self.each(output) {
            eprintln!(
                "{:<20}: {bytes_out} bytes ",
                Self::name(input, "/*stdin*\\")
            );
        }
    }

    fn add(&mut self, output: &Path, bytes_in: u64, bytes_out: u64) {
        self.done += 1;
        self.bytes_in += bytes_in;
        self.bytes_out += bytes_out;
        self.to_stdout = is_dash(output);
    }

    /// The total line after several inputs, if any was done: the inputs done, as `zstd`
    /// counts them.
    fn finish(&self, compressing: bool) {
        if !self.shown || self.inputs <= 1 || self.done == 0 || (self.to_stdout && !self.verbose) {
            return;
        }
        if !compressing {
            eprintln!(
                "{} files decompressed : {:6} bytes total ",
                self.done, self.bytes_out
            );
            return;
        }
        let (i, o) = (human_size(self.bytes_in, 4), human_size(self.bytes_out, 4));
        if self.bytes_in == 0 {
            eprintln!("{:3} files compressed : ({i} => {o})", self.done);
        } else {
            let ratio = self.bytes_out as f64 / self.bytes_in as f64 * 100.0;
            eprintln!(
                "{:3} files compressed : {ratio:.2}% ({i} => {o})",
                self.done
            );
        }
    }
}

/// A size as `zstd` shows it (`UTIL_makeHumanReadableSize`): scaled to the largest binary
/// unit it reaches, with three significant digits, the number 6 wide and the unit (with
/// its leading space) `unit_width` wide.
fn human_size(n: u64, unit_width: usize) -> String {
    const UNITS: [(u32, &str); 6] = [
        (60, " EiB"),
        (50, " PiB"),
        (40, " TiB"),
        (30, " GiB"),
        (20, " MiB"),
        (10, " KiB"),
    ];
    let (value, unit) = UNITS
        .iter()
        .find(|(shift, _)| n >= 1u64 << shift)
        .map_or((n as f64, " B"), |&(shift, unit)| {
            (n as f64 / (1u64 << shift) as f64, unit)
        });
    let precision = if value >= 100.0 || value as u64 == n {
        0
    } else if value >= 10.0 {
        1
    } else if value > 1.0 {
        2
    } else {
        3
    };
    format!("{value:6.precision$}{unit:>unit_width$}")
}

/// The inputs as given, or standard input when none is (refused when it is a terminal, as
/// `zstd` refuses to read compressed data, or data to compress, from the console).
fn inputs_or_stdin(inputs: &[PathBuf], what: &str) -> Result<Vec<PathBuf>, Failure> {
    if !inputs.is_empty() {
        return Ok(inputs.to_vec());
    }
    if io::stdin().is_terminal() {
        return Err(fail(
            EXIT_USAGE,
            format!(
                "no input given, and standard input is a terminal: name the files {what}, or redirect standard input"
            ),
        ));
    }
    Ok(vec![PathBuf::from("-")])
}

/// `-c`, `-k` and `--rm`, shared by `compress` and `decompress` with the `zstd` tool's
/// meaning.
#[derive(Args, Debug)]
struct Destination {
    /// Write to standard output, as `zstd -c` (the same as `-o -`).
    #[arg(short = 'c', long = "stdout", conflicts_with = "output")]
    stdout: bool,
    /// Keep the input files, as `zstd -k` (the default).
    #[arg(short, long, overrides_with = "remove")]
    keep: bool,
    /// Remove each input file once its output is complete, as `zstd --rm` (not when the
    /// output is standard output: then the inputs are kept, with a note).
    #[arg(long = "rm", overrides_with = "keep")]
    remove: bool,
}

impl Destination {
    /// The one output of `-o OUTPUT` or `-c`, if either was given.
    fn single(&self, output: &Option<PathBuf>) -> Option<PathBuf> {
        output.clone().or(self.stdout.then(|| PathBuf::from("-")))
    }
}

/// `--long[=WINDOWLOG]`, shared by `compress` and `decompress` with the `zstd` tool's meaning.
#[derive(Args, Debug)]
struct LongArg {
    /// Long-distance matching with a window of 2^WINDOWLOG bytes (10 to 31; 27 when bare),
    /// as `zstd --long`. `compress` finds repeats far back in large inputs; its frames
    /// with a window above 2^27 need `decompress --long=WINDOWLOG` (or `--memory`), which
    /// accepts windows up to 2^WINDOWLOG (`--memory` wins when both are given).
    #[arg(
        long,
        value_name = "WINDOWLOG",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "27",
        value_parser = clap::value_parser!(u32).range(10..=31)
    )]
    long: Option<u32>,
}

/// The window log of a bare `--long` (`ZSTD_LDM_DEFAULT_WINDOW_LOG`), and the largest
/// window `decompress` accepts unless told otherwise (128 MiB, as `zstd`).
const LONG_DEFAULT_WINDOW_LOG: u32 = 27;

/// The size of each read, as the `zstd` tool's (`ZSTD_CStreamInSize()`, 128 KiB).
const READ_SIZE: usize = 1 << 17;

/// Arguments of `zarchive decompress`.
#[derive(Args, Debug)]
pub struct DecompressArgs {
    /// Input files, or `-` for standard input: each is decompressed to INPUT without its
    /// `.zst` or `.zstd` (NAME.tzst to NAME.tar), as `zstd -d FILE...` does (a failed one is named and
    /// the others go on), or all into the one output of `-c`, or of `-o` with `-f` (as
    /// `zstd -d`), one after the other. None: standard input, unless it is a terminal (as
    /// `zstd -d`).
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Output file, or `-` for standard output (default: INPUT without its `.zst`/`.zstd`;
    /// standard output when the input is `-`); the next argument is taken as it is, as
    /// `zstd -o` takes it.
    #[arg(short, long, allow_hyphen_values = true)]
    output: Option<PathBuf>,
    #[command(flatten)]
    dest: Destination,
    /// Replace the output file if it exists; follow symbolic links given as inputs (ignored
    /// otherwise, as `zstd -d` does); join several inputs into one `-o` file.
    #[arg(short, long)]
    force: bool,
    /// No progress bar (shown on stderr when it is a terminal).
    #[arg(short, long)]
    quiet: bool,
    /// Decode with this dictionary (a zstd-format dictionary, such as `zstd --train`
    /// writes, or raw content), as `zstd -D`.
    #[arg(short = 'D', long = "dict", value_name = "FILE")]
    dict: Option<PathBuf>,
    /// Largest window a frame may ask for, as `zstd --memory`: bytes, or with a K, M or G
    /// suffix (KiB, MiB, GiB; `KB`, `MB`, `GB` and `KiB`, `MiB`, `GiB` too). Decoding holds
    /// about this much. Default 128M, as `zstd` (every level's frames fit but those made
    /// with `--long` above 27); 0 means the default, as in `zstd`.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<u64>,
    #[command(flatten)]
    long: LongArg,
    #[command(flatten)]
    compat: ZstdCompat,
    /// Decompress every file named .zst, .zstd or .tzst under each directory given, each beside
    /// itself, as `zstd -dr` (names in order; symbolic links met there are not followed;
    /// other files there are left alone, with a note of how many). Into standard output
    /// (`-c`) every file there is decompressed, as `zstd -dr -c` does.
    #[arg(short = 'r', long = "recursive")]
    recursive: bool,
}

/// Parse a memory size the way `zstd --memory` does: a number with an optional K, M or G
/// suffix (powers of 1024), the suffix optionally followed by `B` or `iB`.
pub(crate) fn parse_memory(s: &str) -> Result<u64, String> {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(digits);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("{s:?} is not a size (a whole number, optionally with K, M or G)"))?;
    let shift = match unit.trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        _ => {
            return Err(format!(
                "{s:?} is not a size (a whole number, optionally with K, M or G)"
            ));
        }
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// The `zstd` tool's level forms in the arguments of `zarchive compress` (`args[2..]`),
/// rewritten for the parser, which takes levels through `--level`: `-N` (digits only)
/// becomes `--level=N` and `--fast[=N]` `--level=-N` (N from 1, 1 when bare). Short options
/// grouped with a level, as `zstd` reads them (`-19c`, `-kc5`, `-c3f`), are split into the
/// level and the others (`-c`, `--level=19`). As in `zstd`, `-20` .. `-22` need `--ultra`
/// (given anywhere): without it such a level, if it is the last one given, becomes 19 with
/// a warning on stderr (none with `-q`, as `zstd -q`); a level above 22 becomes 22 with
/// `--ultra`, 19 without. Values of the options that take one (`-o`, `-l`, `-D`, `-T` and
/// their long names, also at the end of a group) and everything after `--` are left as
/// they are; anything else is the parser's to judge. `--fast=0` and a factor that is not a
/// number are refused; a factor above the fastest level's means that level.
pub(crate) fn zstd_level_forms(args: Vec<OsString>) -> Result<Vec<OsString>, Failure> {
    const TAKES_VALUE: [&str; 8] = [
        "-o",
        "--output",
        "-l",
        "--level",
        "-D",
        "--dict",
        "-T",
        "--threads",
    ];
    // The short options that take a value: the rest of a group, or the next argument.
    const SHORT_VALUE: &[u8] = b"olDT";
    let mut ultra = false;
    let mut quiet = false;
    // The last level given: its argument's index in `out`, and the `-N` form's level.
    let mut last: Option<(usize, Option<u32>)> = None;
    let mut out: Vec<OsString> = Vec::with_capacity(args.len() + 2);
    let mut rest = args.into_iter();
    out.extend(rest.by_ref().take(2));
    while let Some(arg) = rest.next() {
        let Some(a) = arg.to_str().map(str::to_owned) else {
            out.push(arg);
            continue;
        };
        let a = a.as_str();
        if a == "--" {
            out.push(arg);
            break;
        }
        if TAKES_VALUE.contains(&a) {
            out.push(arg);
            if a == "-l" || a == "--level" {
                last = Some((out.len(), None));
            }
            out.extend(rest.next());
            continue;
        }
        if a == "--ultra" {
            ultra = true;
        } else if a == "--quiet" {
            quiet = true;
        } else if a.starts_with("--level=") || (a.starts_with("-l") && !a.starts_with("--")) {
            last = Some((out.len(), None));
        } else if let Some(digits) = a.strip_prefix('-')
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            // More digits than a level has: left to the level's own range check.
            last = Some((out.len(), digits.parse::<u32>().ok()));
            out.push(format!("--level={digits}").into());
            continue;
        } else if a == "--fast" {
            last = Some((out.len(), None));
            out.push("--level=-1".into());
            continue;
        } else if let Some(n) = a.strip_prefix("--fast=") {
            // As `zstd`: a factor above the fastest level's is that level's; 0 is refused.
            let fastest = u64::from(zstd::MIN_LEVEL.unsigned_abs());
            let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            // Digits past u64 are above the fastest level's factor too.
            let factor = if digits {
                n.parse::<u64>().unwrap_or(u64::MAX)
            } else {
                0
            };
            if factor == 0 {
                return Err(fail(
                    EXIT_USAGE,
                    format!(
                        "invalid {a}: the factor is a whole number from 1 (above {fastest} it means {fastest}, as with `zstd`)"
                    ),
                ));
            }
            let n = factor.min(fastest);
            last = Some((out.len(), None));
            out.push(format!("--level=-{n}").into());
            continue;
        } else if let Some(group) = a.strip_prefix('-')
            && !group.starts_with('-')
            && group.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            // A group of short options (`-kc`, `-19c`): its letters up to the first that
            // takes a value (the group's rest, or the next argument, is that value).
            let shorts = group
                .bytes()
                .position(|b| SHORT_VALUE.contains(&b))
                .map_or(group, |at| &group[..at]);
            quiet |= shorts.contains('q');
            if shorts.bytes().any(|b| b.is_ascii_digit()) {
                // Split as `zstd` reads it: each run of digits a level, the letters around
                // them options of their own.
                let mut at = 0;
                while at < shorts.len() {
                    let digits = shorts[at..].bytes().take_while(u8::is_ascii_digit).count();
                    if digits > 0 {
                        let n = &shorts[at..at + digits];
                        last = Some((out.len(), n.parse::<u32>().ok()));
                        out.push(format!("--level={n}").into());
                        at += digits;
                    } else {
                        let letters = shorts[at..]
                            .bytes()
                            .take_while(|b| !b.is_ascii_digit())
                            .count();
                        out.push(format!("-{}", &shorts[at..at + letters]).into());
                        at += letters;
                    }
                }
                if shorts.len() < group.len() {
                    out.push(format!("-{}", &group[shorts.len()..]).into());
                }
            } else {
                out.push(arg);
            }
            if group.as_bytes().get(shorts.len()) == Some(&b'l') {
                // `-l` in the group: a level given after the ones before.
                last = Some((out.len() - 1, None));
            }
            // A group ending with an option that takes a value: the next argument is it.
            if group.len() > 1 && group.len() == shorts.len() + 1 {
                out.extend(rest.next());
            }
            continue;
        }
        out.push(arg);
    }
    out.extend(rest);
    if let Some((i, Some(n))) = last {
        let max = zstd::MAX_LEVEL as u32;
        if n > ULTRA_FREE_MAX && n <= max && !ultra {
            if !quiet {
                eprintln!(
                    "zarchive: warning: level {n} needs --ultra, as with zstd: level {ULTRA_FREE_MAX} used (or give -l {n})"
                );
            }
            out[i] = format!("--level={ULTRA_FREE_MAX}").into();
        } else if n > max {
            // As `zstd`: the highest level there is (that `--ultra` allows).
            let (used, why) = if ultra {
                (max, String::new())
            } else {
                (ULTRA_FREE_MAX, format!(" ({max} with --ultra)"))
            };
            if !quiet {
                eprintln!(
                    "zarchive: warning: level {n} is above the highest, as with zstd: level {used} used{why}"
                );
            }
            out[i] = format!("--level={used}").into();
        }
    }
    Ok(out)
}

/// The highest level `zstd`'s `-N` reaches without `--ultra` (`ZSTDCLI_CLEVEL_MAX`).
const ULTRA_FREE_MAX: u32 = 19;

/// A failed write to `output`, standard output named as such (it was called `-`).
fn write_failure(output: &Path, e: io::Error) -> Failure {
    if is_dash(output) {
        fail(EXIT_FAILURE, format!("writing to standard output: {e}"))
    } else {
        fail(EXIT_FAILURE, format!("{}: {e}", display_path(output)))
    }
}

/// Refuse to write over the input: `zarchive compress x -o x` would destroy it.
fn refuse_same_file(input: &Path, output: &Path) -> Result<(), Failure> {
    if !is_dash(input) && !is_dash(output) && output::same_file(input, output) {
        return Err(fail(
            EXIT_USAGE,
            format!(
                "{}: the output is the input file itself; refusing to overwrite it",
                display_path(output)
            ),
        ));
    }
    Ok(())
}

/// The permissions and times of the regular file `input`, for its output (as `zstd` gives
/// an output its input's mode and modification time); `None` for anything else.
fn stat_of(input: &Path) -> Option<std::fs::Metadata> {
    if is_dash(input) {
        return None;
    }
    std::fs::metadata(input).ok().filter(|m| m.is_file())
}

/// Give `file` the owner and group (where this process may: root, or a group it is in),
/// the permission bits (not set-id or sticky) and the access and modification times of
/// `from`, as `zstd` does (UTIL_setFDStat): root compressing a user's file must not leave
/// the output root's.
fn transfer_stat(
    file: &std::fs::File,
    from: &std::fs::Metadata,
    output: &Path,
) -> Result<(), Failure> {
    let failed = |e: io::Error| {
        fail(
            EXIT_FAILURE,
            format!(
                "{}: cannot set its mode and times: {e}",
                display_path(output)
            ),
        )
    };
    // As `zstd` (UTIL_setFDStat): the group, the mode and times, the owner last (once the
    // file is another user's, only a process that may act for any owner may change the
    // rest). Refusals of the group and owner are not failures: the output stays the
    // process's own, as a copy would.
    #[cfg(unix)]
    let now = {
        use std::os::unix::fs::MetadataExt;
        let now = file.metadata().ok().map(|m| (m.uid(), m.gid()));
        if now.is_some_and(|(_, gid)| gid != from.gid()) {
            let _ = std::os::unix::fs::fchown(file, None, Some(from.gid()));
        }
        now
    };
    #[cfg(unix)]
    let perm = {
        use std::os::unix::fs::PermissionsExt;
        let mut perm = from.permissions();
        perm.set_mode(perm.mode() & 0o777);
        perm
    };
    #[cfg(not(unix))]
    let perm = from.permissions();
    file.set_permissions(perm).map_err(failed)?;
    let mut times = std::fs::FileTimes::new();
    if let Ok(t) = from.modified() {
        times = times.set_modified(t);
    }
    if let Ok(t) = from.accessed() {
        times = times.set_accessed(t);
    }
    file.set_times(times).map_err(failed)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if now.is_some_and(|(uid, _)| uid != from.uid()) {
            let _ = std::os::unix::fs::fchown(file, Some(from.uid()), None);
        }
    }
    Ok(())
}

/// Write `produce`'s bytes to `output`: standard output, a device or FIFO written where it
/// is, or a file that appears only when complete (so a failure leaves no partial output
/// and keeps an existing file intact), with the mode and times of `stat` when given.
fn write_output(
    output: &Path,
    force: bool,
    binary_to_terminal_ok: bool,
    stat: Option<&std::fs::Metadata>,
    produce: impl FnOnce(&mut dyn Write) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if is_dash(output) {
        let stdout = io::stdout();
        if !binary_to_terminal_ok && stdout.is_terminal() {
            return Err(fail(
                EXIT_USAGE,
                "refusing to write compressed data to a terminal; redirect standard output, give -o, or force it with -f",
            ));
        }
        let mut w = output::Watched::new(io::BufWriter::new(stdout.lock()));
        match produce(&mut w) {
            // The reader went away (`| head`) with what it wanted: ended quietly, as `cat`
            // and `list` end.
            Err(_) if w.gone => return Ok(()),
            // What was written already cannot be taken back; say so.
            Err(f) if w.written > 0 => {
                let _ = w.flush();
                return Err(fail(
                    f.code,
                    format!("{} (the output written so far is incomplete)", f.message),
                ));
            }
            Err(f) => return Err(f),
            Ok(()) => return output::ignore_broken_pipe(w.flush()),
        }
    }
    if is_special(output) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(output)
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(output))))?;
        let mut w = io::BufWriter::new(file);
        produce(&mut w)?;
        return w
            .flush()
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(output))));
    }
    let mut file = OutputFile::create(output, force)?;
    {
        let mut w = io::BufWriter::new(&mut file);
        produce(&mut w)?;
        w.flush()
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(output))))?;
    }
    if let Some(stat) = stat {
        let r = transfer_stat(file.as_file(), stat, output);
        // A file written in place keeps its owner, who alone may change its mode.
        if !file.in_place() {
            r?;
        }
    }
    file.commit()
}

/// Where the outputs of `compress` and `decompress` go: each input's own file (named by
/// `name`), or one output for all (`-o`, `-c`), frame after frame as `zstd` writes them.
/// Runs `one` for each input and its output; with several inputs and an output each, or
/// one standard output or device for all, a failed input is reported and the others go
/// on, and the command fails at the end (into one file, the first failure ends it). With
/// `remove` (`--rm`), an input file is removed once its output file is complete (for one
/// output, once all of it is).
fn each_input(
    inputs: &[PathBuf],
    output: Option<PathBuf>,
    force: bool,
    remove: bool,
    to_terminal_ok: bool,
    name: impl Fn(&Path) -> Result<PathBuf, Failure>,
    mut one: impl FnMut(&Path, &mut dyn Write, &Path) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if inputs.iter().filter(|p| is_dash(p)).count() > 1 {
        return Err(fail(
            EXIT_USAGE,
            "standard input (`-`) given more than once",
        ));
    }
    if inputs.iter().any(|p| is_dash(p)) && io::stdin().is_terminal() {
        // As `zstd`: nothing sensible is typed in, and the command would wait for ever.
        return Err(fail(
            EXIT_USAGE,
            "refusing to read from a terminal; redirect standard input",
        ));
    }
    let exists = |output: &Path| output::check_output(output, force);
    // An input is removed only where its data went to a file that is now complete, and
    // only a regular file (never a device or FIFO given as an input).
    let remove_input = |input: &Path, output: &Path| {
        if !remove || is_dash(input) || is_dash(output) {
            return Ok(());
        }
        if is_special(output) {
            // `-o /dev/null`: the data went nowhere it can be read back from.
            eprintln!(
                "zarchive: note: {}: not removed (--rm): the output is not a regular file",
                display_path(input)
            );
            return Ok(());
        }
        if !std::fs::metadata(input).is_ok_and(|m| m.is_file()) {
            eprintln!(
                "zarchive: note: {}: not a regular file, so not removed (--rm)",
                display_path(input)
            );
            return Ok(());
        }
        std::fs::remove_file(input).map_err(|e| {
            fail(
                EXIT_FAILURE,
                format!("{}: could not remove it (--rm): {e}", display_path(input)),
            )
        })
    };
    let to_stdout = output.as_deref().is_some_and(is_dash);
    if remove && to_stdout && inputs.iter().any(|p| !is_dash(p)) {
        eprintln!("zarchive: note: --rm ignored for the inputs written to standard output");
    }
    if let Some(output) = output {
        if inputs.len() > 1 && !to_stdout && !force {
            // As `zstd`: the joined output cannot give back the inputs' names.
            return Err(fail(
                EXIT_FAILURE,
                format!(
                    "{} inputs into one output file ({}) lose their names and metadata: give -f to join them anyway, or write to standard output with -c",
                    inputs.len(),
                    display_path(&output)
                ),
            ));
        }
        for input in inputs {
            refuse_same_file(input, &output)?;
        }
        exists(&output)?;
        // One input's output takes its mode and times; several inputs' have their own.
        let stat = match inputs {
            [input] => stat_of(input),
            _ => None,
        };
        // Into standard output or a device, what is written cannot be taken back, so a
        // failed input is reported and the others go on, as `zstd -c` does (unless the
        // reader went away); a file output appears only whole, so there the first failure
        // ends the command.
        let goes_on = inputs.len() > 1 && (to_stdout || is_special(&output));
        let mut failed = 0usize;
        write_output(&output, force, to_terminal_ok, stat.as_ref(), |w| {
            let mut w = output::Watched::new(w);
            for input in inputs {
                match one(input, &mut w, &output) {
                    Ok(()) => {}
                    // A closed pipe fails every input after it: it ends the command.
                    Err(f) if goes_on && !w.gone => {
                        eprintln!("zarchive: {}", f.message);
                        failed += 1;
                    }
                    Err(f) => return Err(f),
                }
            }
            Ok(())
        })?;
        if failed > 0 {
            return Err(fail(
                EXIT_FAILURE,
                format!(
                    "{failed} of {} inputs failed (named above): the output lacks some or all of their data",
                    inputs.len()
                ),
            ));
        }
        if remove && inputs.len() > 1 && !to_stdout {
            // As `zstd`: the inputs of one joined output are not removed.
            eprintln!(
                "zarchive: note: --rm ignored: several inputs went into one output, which cannot give any of them back alone"
            );
            return Ok(());
        }
        return inputs
            .iter()
            .try_for_each(|input| remove_input(input, &output));
    }
    let mut failed = 0usize;
    for input in inputs {
        let result = name(input).and_then(|output| {
            refuse_same_file(input, &output)?;
            exists(&output)?;
            let stat = stat_of(input);
            write_output(&output, force, to_terminal_ok, stat.as_ref(), |w| {
                one(input, w, &output)
            })?;
            remove_input(input, &output)
        });
        match result {
            Ok(()) => {}
            Err(f) if inputs.len() == 1 => return Err(f),
            Err(f) => {
                eprintln!("zarchive: {}", f.message);
                failed += 1;
            }
        }
    }
    // As `zstd`: an input that could not be done is a failure (1), whatever its reason.
    match failed {
        0 => Ok(()),
        n => Err(fail(
            EXIT_FAILURE,
            format!("{n} of {} inputs failed (named above)", inputs.len()),
        )),
    }
}

/// How an input is named in messages.
fn shown(input: &Path) -> String {
    if is_dash(input) {
        "standard input".to_string()
    } else {
        display_path(input)
    }
}

/// Suffixes of compressed formats, as `zstd --exclude-compressed` knows them
/// (`compressedFileExtensions`: its own and the other compressors' formats, then
/// archives, images, audio, video and office documents, whose contents are compressed).
const COMPRESSED_SUFFIXES: [&str; 113] = [
    "zst", "tzst", "gz", "tgz", "xz", "txz", "lzma", "lz4", "tlz4", "7z", "aa3", "aac", "aar",
    "ace", "alac", "ape", "apk", "apng", "arc", "archive", "arj", "ark", "asf", "avi", "avif",
    "ba", "br", "bz2", "cab", "cdx", "chm", "cr2", "divx", "dmg", "dng", "docm", "docx", "dotm",
    "dotx", "dsft", "ear", "eftx", "emz", "eot", "epub", "f4v", "flac", "flv", "gho", "gif",
    "gifv", "gnp", "iso", "jar", "jpeg", "jpg", "jxl", "lz", "lzh", "m4a", "m4v", "mkv", "mov",
    "mp2", "mp3", "mp4", "mpa", "mpc", "mpe", "mpeg", "mpg", "mpl", "mpv", "msi", "odp", "ods",
    "odt", "ogg", "ogv", "otp", "ots", "ott", "pea", "png", "pptx", "qt", "rar", "s7z", "sfx",
    "sit", "sitx", "sqx", "svgz", "swf", "tbz2", "tib", "tlz", "vob", "war", "webm", "webp", "wma",
    "wmv", "woff", "woff2", "wvl", "xlsx", "xpi", "xps", "zip", "zipx", "zoo", "zpaq",
];

/// Whether `path`'s name ends in one of `suffixes` (after a dot, with a name before it).
fn has_suffix(path: &Path, suffixes: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| suffixes.contains(&e))
}

/// The output name `zstd -d` derives from an input's: `NAME.zst` (or `NAME.zstd`) gives
/// `NAME`, and `NAME.tzst` `NAME.tar` (whatever bytes NAME holds).
fn decompressed_name(input: &Path) -> Option<PathBuf> {
    match input.extension()?.to_str()? {
        "zst" | "zstd" => Some(input.with_extension("")),
        "tzst" => Some(input.with_extension("tar")),
        _ => None,
    }
}

/// The inputs of `-r`: each directory among `inputs` replaced by the regular files under
/// it, depth first in name order, those `wanted` turns down left out and counted in
/// `left_out`. Symbolic links and special files met inside a directory are skipped with
/// a note, as `zstd -r` skips links (following them could loop); inputs named on the
/// command line are taken as given (a link to a directory, with `-f`, is walked). Returns the files
/// and how many directories could not be read (each reported on stderr).
fn expand_directories(
    inputs: &[PathBuf],
    wanted: impl Fn(&Path) -> bool,
    left_out: &mut usize,
) -> (Vec<PathBuf>, usize) {
    let mut files = Vec::new();
    let mut unreadable = 0;
    for input in inputs {
        if is_dash(input) || !std::fs::metadata(input).is_ok_and(|m| m.is_dir()) {
            files.push(input.clone());
            continue;
        }
        // Entries still to visit, the next one last.
        let mut pending = vec![(input.clone(), true)];
        while let Some((path, is_dir)) = pending.pop() {
            if !is_dir {
                if wanted(&path) {
                    files.push(path);
                } else {
                    *left_out += 1;
                }
                continue;
            }
            let entries = std::fs::read_dir(&path).and_then(|dir| {
                dir.map(|e| e.and_then(|e| Ok((e.path(), e.file_type()?))))
                    .collect::<io::Result<Vec<_>>>()
            });
            let mut entries = match entries {
                Ok(entries) => entries,
                Err(e) => {
                    eprintln!(
                        "zarchive: {}: could not read the directory: {e}",
                        display_path(&path)
                    );
                    unreadable += 1;
                    continue;
                }
            };
            entries.sort_by(|a, b| b.0.cmp(&a.0));
            for (path, kind) in entries {
                if kind.is_symlink() {
                    eprintln!(
                        "zarchive: note: {}: a symbolic link, not followed (-r)",
                        display_path(&path)
                    );
                } else if kind.is_dir() || kind.is_file() {
                    pending.push((path, kind.is_dir()));
                } else {
                    eprintln!(
                        "zarchive: note: {}: not a regular file, skipped (-r)",
                        display_path(&path)
                    );
                }
            }
        }
    }
    (files, unreadable)
}

/// The inputs named on the command line less the symbolic links among them, unless
/// `force`, as `zstd` ignores such a link unless `-f`: each named on stderr (not with
/// `quiet`); a link to a FIFO (`<(cmd)`, `/dev/stdin` from a pipe) is kept. When every
/// input was left out, the command fails, as `zstd` exits 1 then; otherwise the others
/// decide its status, as there.
fn without_links(given: Vec<PathBuf>, force: bool, quiet: bool) -> Result<Vec<PathBuf>, Failure> {
    if force || given.is_empty() {
        return Ok(given);
    }
    let (links, kept): (Vec<PathBuf>, Vec<PathBuf>) = given.into_iter().partition(|p| {
        #[cfg(unix)]
        let fifo = {
            use std::os::unix::fs::FileTypeExt;
            std::fs::metadata(p).is_ok_and(|m| m.file_type().is_fifo())
        };
        #[cfg(not(unix))]
        let fifo = false;
        !is_dash(p)
            && std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
            && !fifo
    });
    if !quiet {
        for link in &links {
            eprintln!(
                "zarchive: warning: {}: a symbolic link, ignored (give -f to follow it, as with zstd)",
                display_path(link)
            );
        }
    }
    if kept.is_empty() {
        return Err(fail(
            EXIT_FAILURE,
            format!(
                "nothing done: {} ignored (give -f to follow {})",
                count(links.len() as u64, "symbolic link", "symbolic links"),
                if links.len() == 1 { "it" } else { "them" }
            ),
        ));
    }
    Ok(kept)
}

/// The end of a command whose `-r` could not read `unreadable` directories: a failure
/// after the work on the others, unless that failed already.
fn with_unreadable(result: Result<(), Failure>, unreadable: usize) -> Result<(), Failure> {
    match result {
        Ok(()) if unreadable > 0 => Err(fail(
            EXIT_FAILURE,
            format!(
                "{} could not be read (named above)",
                count(unreadable as u64, "directory", "directories")
            ),
        )),
        other => other,
    }
}

/// Run `zarchive compress`.
pub fn compress(a: CompressArgs) -> Result<(), Failure> {
    let level = parse_level(&a.level, false)?;
    let mut encoder = match &a.dict {
        Some(path) => {
            let bytes = crate::read_dictionary(path)?;
            let dict = zstd::EncoderDictionary::new(&bytes, level)
                .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
            zstd::StreamEncoder::with_dictionary(&dict)
        }
        None => zstd::StreamEncoder::new(level).map_err(|e| fail(EXIT_USAGE, e.to_string()))?,
    };
    encoder
        .set_checksum(a.check || !a.no_check)
        .and_then(|()| encoder.set_content_size(a.content_size || !a.no_content_size))
        .and_then(|()| encoder.set_dict_id(!a.no_dict_id))
        // As the `zstd` tool sets it for every context (FIO_createCResources).
        .and_then(|()| encoder.set_dedicated_dict_search(true))
        .map_err(|e| fail(EXIT_USAGE, e.to_string()))?;
    encoder
        .set_long_distance_matching(a.long.long)
        .map_err(|e| fail(EXIT_USAGE, format!("--long: {e}")))?;
    let given = without_links(inputs_or_stdin(&a.inputs, "to compress")?, a.force, a.quiet)?;
    let quiet = a.quiet || a.compat.no_progress;
    let mut left_out = 0;
    let (mut inputs, unreadable) = if a.recursive {
        expand_directories(&given, |_| true, &mut left_out)
    } else {
        (given, 0)
    };
    if a.exclude_compressed {
        inputs.retain(|p| is_dash(p) || !has_suffix(p, &COMPRESSED_SUFFIXES));
    }
    if inputs.is_empty() {
        eprintln!("zarchive: note: no files to compress");
        return with_unreadable(Ok(()), unreadable);
    }
    let output = a.dest.single(&a.output);
    let name = |input: &Path| {
        Ok(if is_dash(input) {
            PathBuf::from("-")
        } else {
            let mut name = input.as_os_str().to_owned();
            name.push(".zst");
            PathBuf::from(name)
        })
    };
    let mut summary = Summary::new(a.quiet, a.compat.verbose, inputs.len());
    // One read buffer for every input (zeroing 128 KiB per file cost as much as
    // compressing a small one).
    let mut chunk = vec![0u8; READ_SIZE];
    let result = each_input(
        &inputs,
        output,
        a.force,
        a.dest.remove,
        // As `zstd`: compressed data goes to a terminal only when forced.
        a.force,
        name,
        |input, w, output| {
            let (bytes_in, bytes_out) =
                compress_one(&mut encoder, &mut chunk, input, w, output, quiet, a.force)?;
            summary.compressed(input, output, bytes_in, bytes_out);
            Ok(())
        },
    );
    summary.finish(true);
    with_unreadable(result, unreadable)
}

/// Compress `input` into one frame written to `w` (the output `output`), with the reads
/// and calls of `zstd --single-thread`, read through `chunk` ([`READ_SIZE`] bytes).
fn compress_one(
    encoder: &mut zstd::StreamEncoder,
    chunk: &mut [u8],
    input: &Path,
    w: &mut dyn Write,
    output: &Path,
    quiet: bool,
    force: bool,
) -> Result<(u64, u64), Failure> {
    // A frame an earlier input left unfinished is dropped.
    encoder.reset();
    let shown = shown(input);
    // A regular file's size is pledged, and its last read ends the frame, as `zstd` does;
    // anything else (standard input, a pipe) is ended by an empty last call.
    let (mut input, size): (Box<dyn Read>, Option<u64>) = if is_dash(input) {
        (Box::new(io::stdin().lock()), None)
    } else {
        let file =
            std::fs::File::open(input).map_err(|e| fail(EXIT_FAILURE, format!("{shown}: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| fail(EXIT_FAILURE, format!("{shown}: {e}")))?;
        if meta.is_dir() {
            return Err(fail(
                EXIT_FAILURE,
                format!("{shown}: is a directory (the files under it with -r)"),
            ));
        }
        check_input_kind(&meta, &shown, force)?;
        let size = meta.is_file().then_some(meta.len());
        (Box::new(file), size)
    };
    encoder
        .set_pledged_size(size)
        .map_err(|e| fail(EXIT_USAGE, e.to_string()))?;
    let failed = |e: zstd::ZstdError| match e {
        zstd::ZstdError::PledgedSizeMismatch { pledged, got } => fail(
            EXIT_FAILURE,
            format!(
                "{shown}: the file changed size while it was read ({} at the start, {} read)",
                count(pledged, "byte", "bytes"),
                count(got, "byte", "bytes")
            ),
        ),
        e @ zstd::ZstdError::OutOfMemory { .. } => fail(EXIT_FAILURE, format!("{shown}: {e}")),
        other => fail(EXIT_USAGE, format!("{shown}: {other}")),
    };
    let pb = output::bar(quiet, size.unwrap_or(0), true);
    let result = (|| {
        let mut frame = Vec::new();
        let mut total = 0u64;
        let mut written = 0u64;
        loop {
            let n = read_full(&mut input, chunk)
                .map_err(|e| fail(EXIT_FAILURE, format!("{shown}: {e}")))?;
            total += n as u64;
            pb.inc(n as u64);
            let last = n == 0 || size == Some(total);
            if last {
                encoder.finish(&chunk[..n], &mut frame).map_err(failed)?;
            } else {
                encoder.compress(&chunk[..n], &mut frame).map_err(failed)?;
            }
            w.write_all(&frame).map_err(|e| write_failure(output, e))?;
            written += frame.len() as u64;
            frame.clear();
            if last {
                return Ok((total, written));
            }
        }
    })();
    pb.finish_and_clear();
    result
}

/// Fill `buf` from `r` unless the input ends first (as `fread`); returns the bytes read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Run `zarchive decompress`.
pub fn decompress(a: DecompressArgs) -> Result<(), Failure> {
    // `zstd -d --long=W` raises the limit to 2^W unless `--memory` says otherwise.
    // `--memory=0` sets no limit of its own, as in `zstd` (its `memLimit` 0 is "unset").
    let memory = a
        .memory
        .filter(|&m| m != 0)
        .or(a.long.long.map(|w| 1u64 << w))
        .unwrap_or(1 << LONG_DEFAULT_WINDOW_LOG);
    let dict = match &a.dict {
        Some(path) => {
            let bytes = crate::read_dictionary(path)?;
            let dict = zstd::DecoderDictionary::new(&bytes)
                .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
            Some(dict)
        }
        None => None,
    };
    let mut left_out = 0;
    let output = a.dest.single(&a.output);
    // Into standard output no file needs a name of its own, so every file under the
    // directories is an input, as `zstd -dr -c` takes them: those that hold no frame fail
    // by name and the others go on. An `-o` file, which appears only whole, still takes
    // the named ones only: a stray file there would fail it all.
    let every_file = output.as_deref().is_some_and(is_dash);
    let given = without_links(
        inputs_or_stdin(&a.inputs, "to decompress")?,
        a.force,
        a.quiet,
    )?;
    let quiet = a.quiet || a.compat.no_progress;
    let (inputs, unreadable) = if a.recursive {
        expand_directories(
            &given,
            |p| every_file || decompressed_name(p).is_some(),
            &mut left_out,
        )
    } else {
        (given, 0)
    };
    if left_out > 0 {
        eprintln!(
            "zarchive: note: {} under the directories given {} no .zst, .zstd or .tzst suffix: left alone",
            count(left_out as u64, "file", "files"),
            if left_out == 1 { "has" } else { "have" }
        );
    }
    if inputs.is_empty() {
        eprintln!("zarchive: note: no files to decompress");
        return with_unreadable(Ok(()), unreadable);
    }
    let name = |input: &Path| {
        if is_dash(input) {
            return Ok(PathBuf::from("-"));
        }
        // What is wrong with the input itself comes first (a missing file, a link loop).
        match std::fs::metadata(input) {
            Err(e) => return Err(fail(EXIT_FAILURE, format!("{}: {e}", display_path(input)))),
            Ok(m) if m.is_dir() => {
                return Err(fail(
                    EXIT_FAILURE,
                    format!(
                        "{}: is a directory (the .zst files under it with -r)",
                        display_path(input)
                    ),
                ));
            }
            Ok(_) => {}
        }
        decompressed_name(input).ok_or_else(|| {
            fail(
                EXIT_FAILURE,
                format!(
                    "{}: no .zst, .zstd or .tzst suffix to remove, so no output name to derive; give it with -o",
                    display_path(input)
                ),
            )
        })
    };
    let mut summary = Summary::new(a.quiet, a.compat.verbose, inputs.len());
    let result = each_input(
        &inputs,
        output,
        a.force,
        a.dest.remove,
        true,
        name,
        |input, w, output| {
            let mut decoder = zstd::Decoder::new();
            decoder.set_max_window_size(memory);
            if let Some(dict) = &dict {
                decoder.set_dictionary(Some(dict));
            }
            let bytes_out = decompress_one(decoder, input, w, output, quiet, a.force)?;
            summary.decompressed(input, output, bytes_out);
            Ok(())
        },
    );
    summary.finish(false);
    with_unreadable(result, unreadable)
}

/// Refuse an input that is neither a regular file nor a pipe (a character device such as
/// `/dev/zero`, which never ends, or a socket; a block device unless `force`), as `zstd`
/// refuses it (FIO_openSrcFile: "is not a regular file -- ignored").
fn check_input_kind(meta: &std::fs::Metadata, shown: &str, force: bool) -> Result<(), Failure> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if !(t.is_file() || t.is_fifo() || (force && t.is_block_device())) {
            let hint = if t.is_block_device() {
                " (-f reads a block device)"
            } else {
                ""
            };
            return Err(fail(
                EXIT_FAILURE,
                format!("{shown}: not a regular file or a pipe, so left alone{hint}, as zstd does"),
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, shown, force);
    Ok(())
}

/// Decode the frames of `input` with `decoder`, writing to `w` (the output `output`).
fn decompress_one(
    decoder: zstd::Decoder,
    input: &Path,
    w: &mut dyn Write,
    output: &Path,
    quiet: bool,
    force: bool,
) -> Result<u64, Failure> {
    let shown = shown(input);
    let input_path = input;
    // The input streams through the decoder: memory is the frames' windows, whatever the
    // input's size.
    let input: Box<dyn Read> = if is_dash(input) {
        Box::new(io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(input).map_err(|e| fail(EXIT_FAILURE, format!("{shown}: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| fail(EXIT_FAILURE, format!("{shown}: {e}")))?;
        if meta.is_dir() {
            return Err(fail(
                EXIT_FAILURE,
                format!("{shown}: is a directory (the .zst files under it with -r)"),
            ));
        }
        check_input_kind(&meta, &shown, force)?;
        Box::new(file)
    };
    // Blocks the reader's buffer holds whole are decoded there, not copied again; 1 MiB
    // rather than 128 KiB so that fewer blocks straddle its end (40 MB of text at L1:
    // 563.8 -> 558.8 M instructions for the whole command).
    let mut input = io::BufReader::with_capacity(1 << 20, input);
    // An empty input holds no frame at all (`zstd`: "unexpected end of file").
    let empty = loop {
        match input.fill_buf() {
            Ok(bytes) => break bytes.is_empty(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(fail(EXIT_FAILURE, format!("{shown}: {e}"))),
        }
    };
    if empty {
        return Err(fail(
            EXIT_FAILURE,
            format!("{shown}: empty: no zstd frame in it"),
        ));
    }
    let mut stream = decoder.into_stream(input).read_in_place();
    let pb = output::bar(quiet, 0, true);
    let mut written = 0u64;
    let result = output::copy_apart(&mut stream, w, 1 << 17, |n| {
        pb.inc(n as u64);
        written += n as u64;
    })
    .map_err(|e| match e {
        // A ZAR archive starts with a block's frame, then goes on with what is no frame.
        output::CopyError::Read(e)
            if !is_dash(input_path) && zarkit::zar::looks_like_archive(input_path) =>
        {
            let mut f = decode_failure(&shown, e);
            f.message
                .push_str(" (it is a ZAR archive: `zarchive extract` or `zarchive cat` reads it)");
            f
        }
        output::CopyError::Read(e) => decode_failure(&shown, e),
        output::CopyError::Write(e) => write_failure(output, e),
    });
    pb.finish_and_clear();
    result.map(|()| written)
}

/// The message of a failed decode: the decoder's error (with the `--memory` that would
/// allow a larger window), or the read error.
fn decode_failure(shown: &str, e: io::Error) -> Failure {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<zstd::ZstdError>())
    {
        Some(z) => {
            let hint = match z {
                zstd::ZstdError::WindowTooLarge { window, .. } if *window <= 1 << 31 => {
                    format!(" (allow it with --memory {}M)", window.div_ceil(1 << 20))
                }
                zstd::ZstdError::WindowTooLarge { .. } => {
                    " (no zstd decoder accepts a window above 2 GiB)".to_string()
                }
                _ => String::new(),
            };
            fail(EXIT_FAILURE, format!("{shown}: {z}{hint}"))
        }
        None => fail(EXIT_FAILURE, format!("{shown}: {e}")),
    }
}
