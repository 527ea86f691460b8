//! The `ycsb` driver at CI's size: 10^4 records, a few hundred operations
//! of every workload on rqc, SQLite and raw LMDB; each workload's check
//! and table, and the agreement of every record at the end. No figure is
//! judged: the point is that the driver runs.

mod driver;

#[test]
fn ycsb_runs_every_workload_at_ci_size_and_the_systems_agree() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().display().to_string();
    let stdout = driver::run(
        env!("CARGO_BIN_EXE_ycsb"),
        [
            "--workload",
            "all",
            "--records",
            "10000",
            "--ops",
            "300",
            "--seed",
            "5",
            "--db",
            &db,
        ],
    );
    assert!(stdout.contains("the systems interleaved"), "{stdout}");
    assert_every_workload_checked_and_agreed(&stdout, 300);
}

/// `--in-turn` (how the 10^7 figures are taken): each system loads and
/// runs alone, one after another, and the warm-ups (compared by digest
/// with rqc's) and the records still agree.
#[test]
fn ycsb_in_turn_runs_each_system_alone_and_they_still_agree() {
    let stdout = driver::run(
        env!("CARGO_BIN_EXE_ycsb"),
        [
            "--workload",
            "all",
            "--records",
            "3000",
            "--ops",
            "100",
            "--seed",
            "7",
            "--in-turn",
        ],
    );
    assert!(
        stdout.contains("the systems in turn, each alone with the machine"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(during rqc's, SQLite's and LMDB's runs)"),
        "{stdout}"
    );
    assert_every_workload_checked_and_agreed(&stdout, 100);
}

/// Every workload's check line and table (a line per operation, counts
/// summing to `ops`), and the agreement of every record at the end.
fn assert_every_workload_checked_and_agreed(stdout: &str, ops: usize) {
    assert!(stdout.contains("SQLite synchronous=OFF"), "{stdout}");
    for (w, operations) in [
        ('A', &["read", "update"][..]),
        ('B', &["read", "update"]),
        ('C', &["read"]),
        ('D', &["read", "insert"]),
        ('E', &["scan", "insert"]),
        ('F', &["read", "read-modify-write"]),
    ] {
        assert!(
            stdout.contains(&format!("### Workload {w}: ")),
            "no workload {w}: {stdout}"
        );
        assert!(
            stdout.contains(&format!(
                "check {w}: 50 warm-up operations, the same rows on rqc, SQLite and LMDB"
            )),
            "workload {w} unchecked: {stdout}"
        );
        // The workload's table: a line per operation, counts summing to the ops.
        let section = stdout
            .split(&format!("### Workload {w}: "))
            .nth(1)
            .and_then(|s| s.split("### Workload").next())
            .unwrap();
        let mut total = 0;
        for op in operations {
            let line = section
                .lines()
                .find(|l| l.starts_with(&format!("| {op} |")))
                .unwrap_or_else(|| panic!("workload {w} has no {op} line: {section}"));
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // Name and count, three figures for each of three systems, two ratios.
            assert_eq!(cells.len(), 2 + 2 + 9 + 2, "{line}");
            total += cells[2].replace(',', "").parse::<usize>().unwrap();
        }
        // Every operation counted once (the seeds are fixed: B's updates and
        // D's and E's inserts, 5% each, are among those drawn).
        assert_eq!(total, ops, "workload {w}: {section}");
    }
    assert!(
        stdout.contains("agreement: every record the same on rqc, SQLite and LMDB ("),
        "{stdout}"
    );
}
