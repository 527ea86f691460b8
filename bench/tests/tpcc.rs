//! The `tpcc` driver at CI's size: one warehouse, `--small`, a short mix
//! from two terminals, then its consistency check, which must find nothing.

use std::process::Command;

#[test]
fn tpcc_small_runs_the_mix_and_every_condition_holds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let out = Command::new(env!("CARGO_BIN_EXE_tpcc"))
        .args([
            "--warehouses",
            "1",
            "--small",
            "--threads",
            "2",
            "--seconds",
            "2",
            "--db",
        ])
        .arg(&db)
        .output()
        .expect("tpcc runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("loaded 1 warehouse(s), 30 customers per district, 1000 items"),
        "{stdout}"
    );
    assert!(
        stdout.contains("consistency conditions 3.3.2.1-12: 0 violation(s)"),
        "{stdout}"
    );
    let new_orders: usize = stdout
        .lines()
        .find_map(|l| l.strip_prefix("| New-Order | "))
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .expect("a New-Order line");
    assert!(new_orders > 0, "the mix ran New-Orders: {stdout}");
    assert!(
        std::fs::read_dir(&db).unwrap().count() > 0,
        "--db keeps the database"
    );
}
