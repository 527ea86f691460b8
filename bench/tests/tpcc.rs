//! The `tpcc` driver at CI's size: one warehouse, `--small`, a short mix
//! from two terminals on rqc and SQLite interleaved, then each system's
//! consistency check, which must find nothing.

mod driver;

/// The counts of a line of the driver's table: `| name | rqc count | rqc
/// p90 | SQLite count | SQLite p90 | ratio |`.
fn counts(stdout: &str, name: &str) -> (usize, usize) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("| {name} |")))
        .unwrap_or_else(|| panic!("no `{name}` line: {stdout}"));
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    let count = |at: usize| cells[at].parse().unwrap_or_else(|_| panic!("{line}"));
    (count(2), count(4))
}

/// Both systems' consistency checks found nothing.
fn every_condition_holds(stdout: &str) {
    for system in ["rqc", "SQLite"] {
        assert!(
            stdout.contains(&format!(
                "consistency conditions 3.3.2.1-12 on {system}: 0 violation(s)"
            )),
            "{stdout}"
        );
    }
}

/// The driver at CI's size beside SQLite, 2 s per system in slices of
/// 1 s, with `options` besides: its output.
fn small_mix<const N: usize>(options: [&str; N]) -> String {
    let common = [
        "--warehouses",
        "1",
        "--small",
        "--sqlite",
        "--seconds",
        "2",
        "--slice",
        "1",
    ];
    driver::run(
        env!("CARGO_BIN_EXE_tpcc"),
        common.into_iter().chain(options),
    )
}

#[test]
fn tpcc_small_runs_the_mix_on_rqc_and_sqlite_and_every_condition_holds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.display().to_string();
    let stdout = small_mix(["--durability", "normal", "--threads", "2", "--db", &db]);
    assert!(
        stdout.contains("loaded 1 warehouse(s), 30 customers per district, 1000 items"),
        "{stdout}"
    );
    every_condition_holds(&stdout);
    assert!(stdout.contains("SQLite synchronous=NORMAL"), "{stdout}");
    let (rqc, sqlite) = counts(&stdout, "New-Order");
    assert!(rqc > 0 && sqlite > 0, "both ran New-Orders: {stdout}");
    let (rqc, sqlite) = counts(&stdout, "Payment by name");
    assert!(rqc > 0 && sqlite > 0, "both ran Payments by name: {stdout}");
    assert!(stdout.contains("tpmC-like: rqc "), "{stdout}");
    assert!(
        std::fs::read_dir(&db).unwrap().count() > 0,
        "--db keeps the database"
    );
}

/// rqc's terminals in two processes of their own on the one database
/// (as two application servers would share it), interleaved with SQLite's
/// as many threads: both ran, and every condition holds on each.
#[test]
fn tpcc_small_with_terminal_processes_keeps_every_condition() {
    let stdout = small_mix(["--durability", "none", "--threads", "1", "--processes", "2"]);
    assert!(
        stdout.contains("mix: 2 terminal(s) (rqc's in 2 process(es) of 1 thread(s))"),
        "{stdout}"
    );
    every_condition_holds(&stdout);
    let (rqc, sqlite) = counts(&stdout, "New-Order");
    assert!(rqc > 0 && sqlite > 0, "both ran New-Orders: {stdout}");
}

/// The kill -9 rounds at CI's size: terminal processes killed at random
/// points, three times; every acknowledged transaction is found, none is
/// partial, every condition holds and `verify` finds nothing.
#[test]
fn tpcc_faults_small_finds_every_acknowledged_transaction_after_each_kill() {
    let stdout = driver::run(
        env!("CARGO_BIN_EXE_tpcc-faults"),
        ["--small", "--rounds", "3", "--processes", "2"],
    );
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("3 round(s) of 2 terminal process(es) killed"))
        .unwrap_or_else(|| panic!("no summary: {stdout}"));
    assert!(summary.contains("; 0 violation(s) in all"), "{summary}");
    // The rounds did run transactions, and each round was checked.
    let acknowledged: u64 = summary
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(acknowledged > 0, "{summary}");
    assert_eq!(stdout.matches("; 0 violation(s)\n").count(), 3, "{stdout}");
}

/// On a 3-member etcd cluster: the leader killed during one round's mix,
/// a follower during the next, the terminals killed at each round's end;
/// every acknowledged transaction is found and every condition holds.
#[test]
fn tpcc_faults_small_on_etcd_survives_a_leader_and_a_follower_killed() {
    rqc_tests::etcd_cluster::require_etcd();
    let stdout = driver::run(
        env!("CARGO_BIN_EXE_tpcc-faults"),
        ["--small", "--etcd", "--rounds", "2", "--processes", "2"],
    );
    assert!(stdout.contains("round 1 (the leader killed)"), "{stdout}");
    assert!(stdout.contains("round 2 (the follower killed)"), "{stdout}");
    assert!(stdout.contains("; 0 violation(s) in all"), "{stdout}");
}

/// On a 3-member etcd cluster: the population copied there in bulk from a
/// scratch embedded load, the mix from two terminals interleaved with
/// SQLite's, and every condition holding on each.
#[test]
fn tpcc_small_on_etcd_runs_the_mix_and_every_condition_holds() {
    rqc_tests::etcd_cluster::require_etcd();
    let stdout = small_mix(["--etcd", "--threads", "2"]);
    let copied = stdout
        .lines()
        .find(|l| l.starts_with("copied "))
        .unwrap_or_else(|| panic!("no copy to etcd: {stdout}"));
    let rows: u64 = copied
        .split(' ')
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{copied}"));
    // 1 warehouse, 10 districts, 300 customers, their orders, order lines
    // and history, 1,000 items and stock rows: thousands, not a handful.
    assert!(rows > 5_000, "{copied}");
    every_condition_holds(&stdout);
    let (rqc, sqlite) = counts(&stdout, "New-Order");
    assert!(rqc > 0 && sqlite > 0, "both ran New-Orders: {stdout}");
}
