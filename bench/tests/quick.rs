//! The benchmark program's smoke test: `--quick` runs and writes a report
//! with every experiment and the plot. Timings are never asserted.

use std::process::Command;

#[test]
fn quick_mode_runs_and_reports_every_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    let status = Command::new(env!("CARGO_BIN_EXE_rqc-bench"))
        .args(["--quick", "--out"])
        .arg(&out)
        .status()
        .expect("rqc-bench runs");
    assert!(status.success());
    let report = std::fs::read_to_string(&out).unwrap();
    for experiment in [
        "P1 point read by key",
        "P2 timeline",
        "P3 insert, durable",
        "P3 insert, not synced",
        "## P4",
        "## P6: the TPC-C mix",
        "| ratio |",
        "raw redb get",
        "raw sled get",
    ] {
        assert!(
            report.contains(experiment),
            "the report lacks {experiment}:\n{report}"
        );
    }
    let svg = std::fs::read_to_string(out.with_extension("svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("P2 SQLite"),
        "the plot has its series"
    );
}
