//! The CI gate's decision logic: measured ratios (ours / native, from [`crate::measure`])
//! against a machine-readable baseline kept in the repository. It never compares absolute
//! times, which differ from machine to machine; only ratios measured in one process.

use std::collections::BTreeMap;

/// Default allowed drop below a baseline ratio before the gate fails (15 %).
pub const DEFAULT_TOLERANCE: f64 = 0.15;

/// The recorded ratios.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// Allowed relative drop (0.15 = a row fails below 85 % of its baseline).
    pub tolerance: f64,
    /// Row name → ratio ours / native (above 1 = faster than native).
    pub rows: BTreeMap<String, f64>,
}

/// What the gate concluded about one row.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// Within tolerance.
    Ok {
        row: String,
        baseline: f64,
        measured: f64,
    },
    /// More than the tolerance below its baseline.
    Regressed {
        row: String,
        baseline: f64,
        measured: f64,
    },
    /// In the baseline but not measured (a level disappeared, a row was renamed).
    Missing { row: String, baseline: f64 },
    /// Measured but not in the baseline yet (informational; `--update` records it).
    New { row: String, measured: f64 },
}

impl Finding {
    /// Whether this finding fails the gate.
    pub fn fails(&self) -> bool {
        matches!(self, Finding::Regressed { .. } | Finding::Missing { .. })
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::Ok {
                row,
                baseline,
                measured,
            } => {
                write!(
                    f,
                    "ok         {row:<28} {measured:6.3}x native (baseline {baseline:.3}, {:+.1} %)",
                    change(*baseline, *measured)
                )
            }
            Finding::Regressed {
                row,
                baseline,
                measured,
            } => write!(
                f,
                "REGRESSED  {row:<28} {measured:6.3}x native (baseline {baseline:.3}, {:+.1} %)",
                change(*baseline, *measured)
            ),
            Finding::Missing { row, baseline } => write!(
                f,
                "MISSING    {row:<28} (baseline {baseline:.3}) was not measured"
            ),
            Finding::New { row, measured } => write!(
                f,
                "new        {row:<28} {measured:6.3}x native (not in the baseline)"
            ),
        }
    }
}

fn change(baseline: f64, measured: f64) -> f64 {
    (measured / baseline - 1.0) * 100.0
}

/// Compare measured ratios with the baseline, row by row (sorted by name).
pub fn compare(baseline: &Baseline, measured: &BTreeMap<String, f64>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (row, &b) in &baseline.rows {
        match measured.get(row) {
            None => out.push(Finding::Missing {
                row: row.clone(),
                baseline: b,
            }),
            Some(&m) if m < b * (1.0 - baseline.tolerance) => out.push(Finding::Regressed {
                row: row.clone(),
                baseline: b,
                measured: m,
            }),
            Some(&m) => out.push(Finding::Ok {
                row: row.clone(),
                baseline: b,
                measured: m,
            }),
        }
    }
    for (row, &m) in measured {
        if !baseline.rows.contains_key(row) {
            out.push(Finding::New {
                row: row.clone(),
                measured: m,
            });
        }
    }
    out
}

/// Parse the baseline file (`benches/gate-baseline.json`).
pub fn parse_baseline(text: &str) -> Result<Baseline, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("baseline is not valid JSON: {e}"))?;
    let tolerance = match v.get("tolerance") {
        None => DEFAULT_TOLERANCE,
        Some(t) => t
            .as_f64()
            .filter(|t| (0.0..1.0).contains(t))
            .ok_or("baseline: tolerance must be a number in [0, 1)")?,
    };
    let rows = v
        .get("rows")
        .and_then(|r| r.as_object())
        .ok_or("baseline: missing \"rows\" object")?;
    let mut out = BTreeMap::new();
    for (k, x) in rows {
        let r = x
            .as_f64()
            .filter(|r| r.is_finite() && *r > 0.0)
            .ok_or_else(|| format!("baseline: row {k} is not a positive number"))?;
        out.insert(k.clone(), r);
    }
    Ok(Baseline {
        tolerance,
        rows: out,
    })
}

/// Serialise a baseline, with a note on where the figures came from.
pub fn format_baseline(b: &Baseline, note: &str) -> String {
    let rows: serde_json::Map<String, serde_json::Value> = b
        .rows
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                serde_json::Value::from((v * 1000.0).round() / 1000.0),
            )
        })
        .collect();
    let v = serde_json::json!({ "note": note, "tolerance": b.tolerance, "rows": rows });
    serde_json::to_string_pretty(&v).expect("JSON") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(rows: &[(&str, f64)]) -> Baseline {
        Baseline {
            tolerance: 0.15,
            rows: rows.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    fn measured(rows: &[(&str, f64)]) -> BTreeMap<String, f64> {
        rows.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn a_drop_of_more_than_15_percent_fails_and_names_the_row() {
        let f = compare(
            &baseline(&[("compress/L1/text64k", 1.0)]),
            &measured(&[("compress/L1/text64k", 0.84)]),
        );
        assert_eq!(f.len(), 1);
        assert!(f[0].fails());
        let msg = f[0].to_string();
        assert!(
            msg.contains("REGRESSED")
                && msg.contains("compress/L1/text64k")
                && msg.contains("-16.0 %"),
            "{msg}"
        );
    }

    #[test]
    fn a_drop_within_tolerance_and_any_gain_pass() {
        let b = baseline(&[("a", 1.0), ("b", 0.5)]);
        let f = compare(&b, &measured(&[("a", 0.86), ("b", 2.0)]));
        assert!(f.iter().all(|x| !x.fails()), "{f:?}");
    }

    #[test]
    fn the_threshold_is_relative_to_each_rows_baseline() {
        let b = baseline(&[("slow", 0.4)]);
        assert!(!compare(&b, &measured(&[("slow", 0.35)]))[0].fails());
        assert!(compare(&b, &measured(&[("slow", 0.33)]))[0].fails());
    }

    #[test]
    fn a_row_missing_from_the_measurement_fails_and_a_new_row_does_not() {
        let f = compare(&baseline(&[("gone", 1.0)]), &measured(&[("fresh", 1.0)]));
        assert_eq!(f.iter().filter(|x| x.fails()).count(), 1);
        assert!(matches!(&f[0], Finding::Missing { row, .. } if row == "gone"));
        assert!(matches!(&f[1], Finding::New { row, .. } if row == "fresh"));
    }

    #[test]
    fn baseline_round_trips_and_rejects_nonsense() {
        let b = baseline(&[("compress/L6/hetero64k", 0.912), ("decode/L6/text64k", 0.5)]);
        assert_eq!(parse_baseline(&format_baseline(&b, "test")).unwrap(), b);
        assert!(parse_baseline("{").is_err());
        assert!(parse_baseline(r#"{"rows": {"a": -1}}"#).is_err());
        assert!(parse_baseline(r#"{"tolerance": 2, "rows": {}}"#).is_err());
        assert_eq!(
            parse_baseline(r#"{"rows": {}}"#).unwrap().tolerance,
            DEFAULT_TOLERANCE
        );
    }
}
