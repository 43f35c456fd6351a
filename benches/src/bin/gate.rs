//! The CI gate: quick interleaved measurements of the hot rows as ratios to native libzstd
//! 1.5.7, compared with `benches/gate-baseline.json`; plus a check that every frame our
//! encoder makes for the corpus equals the golden oracle frame. Exits 1 on any regression
//! beyond the tolerance or any frame difference, naming the row.
//!
//! `cargo run --release -p zarkit-benches --bin gate [-- --update] [--baseline PATH] [--budget-ms N]`

use std::collections::BTreeMap;
use std::time::Duration;

use zarkit_benches::gate::{
    Baseline, DEFAULT_TOLERANCE, Finding, compare, format_baseline, parse_baseline,
};
use zarkit_benches::measure::interleaved;
use zarkit_benches::{oracle, rows, trees};

const DEFAULT_BASELINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/gate-baseline.json");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let update = args.iter().any(|a| a == "--update");
    let path = flag(&args, "--baseline").unwrap_or_else(|| DEFAULT_BASELINE.to_string());
    let budget = Duration::from_millis(
        flag(&args, "--budget-ms")
            .and_then(|s| s.parse().ok())
            .unwrap_or(1500),
    );
    oracle::assert_version();
    zarkit_benches::measure::settle_allocator();

    let frame_failures = check_goldens();

    let dir = tempfile::tempdir().expect("temp dir");
    let small_bytes = trees::small_tree(dir.path()).expect("small tree");
    let mut measured = BTreeMap::new();
    let mut all = rows::gate_rows(dir.path(), small_bytes);
    for row in &mut all {
        let r = interleaved(&mut *row.ours, &mut *row.native, budget, 15);
        println!(
            "measured   {:<28} {:6.3}x native  (ours {:9.1} µs, native {:9.1} µs)",
            row.name,
            r.ratio,
            r.ours_ns / 1e3,
            r.native_ns / 1e3
        );
        measured.insert(row.name.clone(), r.ratio);
    }

    if update {
        let b = Baseline {
            tolerance: DEFAULT_TOLERANCE,
            rows: measured,
        };
        let note = "ours / native libzstd 1.5.7 throughput ratios, measured interleaved by `--bin gate -- --update`";
        std::fs::write(&path, format_baseline(&b, note)).expect("write baseline");
        println!("baseline written to {path}");
        std::process::exit(i32::from(!frame_failures.is_empty()));
    }

    let baseline = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| parse_baseline(&t))
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("gate: cannot read the baseline {path}: {e}");
            std::process::exit(1);
        }
    };
    let mut findings = compare(&baseline, &measured);
    // Regression rule: a failing row is measured again, alone and longer, before concluding.
    for f in &mut findings {
        if let Finding::Regressed { row, .. } = f
            && let Some(r) = all.iter_mut().find(|r| &r.name == row)
        {
            let again = interleaved(&mut *r.ours, &mut *r.native, budget * 3, 31);
            println!("re-measured {row}: {:.3}x native", again.ratio);
            measured.insert(row.clone(), again.ratio.max(measured[row.as_str()]));
        }
    }
    if findings.iter().any(Finding::fails) {
        findings = compare(&baseline, &measured);
    }
    println!();
    for f in &findings {
        println!("{f}");
    }
    let failed: Vec<&Finding> = findings.iter().filter(|f| f.fails()).collect();
    for m in &frame_failures {
        println!("FRAME      {m}");
    }
    if failed.is_empty() && frame_failures.is_empty() {
        println!(
            "\ngate: OK ({} rows within {:.0} % of baseline, all frames equal the goldens)",
            findings.len(),
            baseline.tolerance * 100.0
        );
    } else {
        println!(
            "\ngate: FAILED ({} rows regressed or missing, {} frames differ from the goldens)",
            failed.len(),
            frame_failures.len()
        );
        std::process::exit(1);
    }
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Every corpus payload at every implemented level: our frame's size and hash equal the
/// oracle's golden. Returns one message per difference.
fn check_goldens() -> Vec<String> {
    let goldens = zarkit_corpus::load_goldens().expect("goldens");
    let mut failures = Vec::new();
    let mut checked = 0;
    for g in &goldens {
        if !rows::implemented(g.level) {
            continue;
        }
        let src = zarkit_corpus::payload(&g.payload)
            .expect("golden payload exists")
            .bytes();
        match zarkit::zstd::compress(&src, g.level) {
            Ok(frame) => {
                checked += 1;
                if frame.len() != g.frame_size || zarkit_corpus::frame_hash(&frame) != g.xxh64 {
                    failures.push(format!(
                        "{} L{}: {} bytes, golden {} bytes",
                        g.payload,
                        g.level,
                        frame.len(),
                        g.frame_size
                    ));
                }
            }
            Err(e) => failures.push(format!("{} L{}: {e}", g.payload, g.level)),
        }
    }
    println!(
        "frames     {checked} payload x level frames checked against the goldens, {} differ",
        failures.len()
    );
    failures
}
