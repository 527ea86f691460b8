//! The benchmark's smoke test: `--quick` runs every experiment at tiny
//! sizes (which checks, before timing, that every side returns the same
//! rows) and writes a report with every section and the plot. Timings are
//! never asserted.

use std::process::Command;

#[test]
fn quick_mode_checks_every_side_and_reports_every_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    let status = Command::new(env!("CARGO_BIN_EXE_rqc-bench"))
        .args(["--quick", "--tmp"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .status()
        .expect("rqc-bench runs");
    assert!(
        status.success(),
        "a side returned other rows, or a run failed"
    );
    let report = std::fs::read_to_string(&out).unwrap();
    for part in [
        "Made by `cargo run --release -p rqc-bench -- --quick",
        "## The goals of issue #12",
        "## How it is measured",
        "## Differences in work that remain",
        "### point read by key",
        "### unique index read",
        "### bounded range",
        "### island scan",
        "### index nested-loop join",
        "### top-k of an island",
        "| rqc (redb) / raw redb |",
        "| rqc (lmdb) / raw LMDB |",
        "| rqc (lmdb) / SQLite |",
        "| rqc (sled) / raw sled |",
        "| rqc (redb) / SQLite mmap |",
        "## P4: latency against data size",
        "## Inserts: one row per commit, two secondary indexes",
        "### 8 concurrent writers, durable",
        "## P6: the TPC-C mix",
        "| Stock-Level |",
        "rqc (lmdb) / SQLite",
        "## Commands",
    ] {
        assert!(report.contains(part), "the report lacks {part}:\n{report}");
    }
    let svg = std::fs::read_to_string(out.with_extension("svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("raw LMDB") && svg.contains("timeline"),
        "the plot has its panels and series"
    );
}

#[test]
fn unknown_arguments_are_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_rqc-bench"))
        .arg("--fast")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown argument `--fast`"));
}

/// `--etcd --quick` starts a real 3-member cluster (etcd on PATH, as the
/// other etcd suites need), checks both systems return the same rows, holds
/// every run to its round-trip bound and writes its section into the report
/// file, keeping what the file held.
#[test]
fn etcd_mode_checks_both_systems_and_splices_its_section() {
    rqc_tests::etcd_cluster::require_etcd();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    std::fs::write(&out, "# rqc benchmarks\n\nearlier text\n").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_rqc-bench"))
        .args(["--etcd", "--quick", "--tmp"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .status()
        .expect("rqc-bench runs");
    assert!(
        status.success(),
        "a side returned other rows, or a run passed its bound"
    );
    let report = std::fs::read_to_string(&out).unwrap();
    assert!(
        report.starts_with("# rqc benchmarks\n\nearlier text\n"),
        "{report}"
    );
    for part in [
        "## rqc on etcd (issue #14)",
        "| P1 | 1 | rqc (lmdb) |",
        "| P1 | 8 | rqc (etcd) |",
        "| P2 | 8 | rqc (etcd) |",
        "| P6 | 1 | rqc (etcd) |",
        "| new_order |",
        "<!-- /etcd -->",
    ] {
        assert!(report.contains(part), "the report lacks {part}:\n{report}");
    }
    assert_eq!(report.matches("## rqc on etcd").count(), 1);
}
