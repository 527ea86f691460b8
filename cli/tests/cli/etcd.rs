//! The CLI on etcd: `--db etcd://...` runs, loads (in batches, a rerun skipping identical rows), verifies, dumps and restores, an unreachable cluster is refused, and several `rqc` processes racing inserts into one island never pass its bound.

#[path = "../../../tests/src/etcd_cluster.rs"]
pub(super) mod etcd_cluster;

use super::{repo, rqc, stderr, stdout, write};
use etcd_cluster::EtcdCluster;
use std::process::Command;

const TEAMS: &str = "
table Team { id: Int key  name: String <= 40 }
table Member {
  team: Int ref Team
  id: Int key
  nick: String <= 40 unique
  index by_team (team)
  bound team <= 3
}
mutation add_team(id: Int, name: String) = insert Team { id, name }
mutation add_member(team: Int, id: Int, nick: String) = insert Member { team, id, nick }
query members(team: Int) = Member.by_team[team]
";

fn ok(args: &[&str]) -> String {
    let out = rqc(args);
    assert_eq!(out.status.code(), Some(0), "rqc {args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn rqc_runs_loads_and_verifies_a_database_on_etcd() {
    let cluster = EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "teams.rq", TEAMS);
    let db = cluster.url("teams");
    ok(&[
        "run", "--db", &db, &app, "add_team", "--arg", "id=1", "--arg", "name=red",
    ]);
    // The rows of a load are checked first: one refused row loads nothing.
    let rows: String = (1..=3)
        .map(|i| format!("{{\"team\": 1, \"id\": {i}, \"nick\": \"n{i}\"}}\n"))
        .collect();
    let over = format!("{rows}{{\"team\": 1, \"id\": 4, \"nick\": \"n4\"}}\n");
    let refused = rqc(&[
        "load",
        "--db",
        &db,
        &app,
        "Member",
        &write(dir.path(), "over.jsonl", &over),
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("E0504"), "{}", stderr(&refused));
    let listed = ok(&["run", "--db", &db, "members", "--arg", "team=1"]);
    assert_eq!(listed.lines().count(), 0, "{listed}");
    // Loaded, then loaded again: the identical rows are skipped.
    let file = write(dir.path(), "members.jsonl", &rows);
    let loaded = rqc(&["load", "--db", &db, &app, "Member", &file]);
    assert!(
        stderr(&loaded).contains("loaded 3 rows"),
        "{}",
        stderr(&loaded)
    );
    let again = rqc(&["load", "--db", &db, &app, "Member", &file]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("loaded 0 rows into Member (3 identical rows already there)"),
        "{}",
        stderr(&again)
    );
    let listed = ok(&["run", "--db", &db, "members", "--arg", "team=1"]);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    let verified = rqc(&["verify", "--db", &db]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
    // Everything of the database is under its prefix.
    let keys = cluster.etcdctl(&["get", "", "--prefix", "--keys-only"]);
    let ours: Vec<&str> = keys
        .lines()
        .filter(|k| !k.is_empty() && *k != "rqc-ready")
        .collect();
    assert!(ours.iter().all(|k| k.starts_with("teams/")), "{ours:?}");
    // Dumped, and restored into a new prefix (never into one that holds a database).
    let saved = dir.path().join("saved").display().to_string();
    ok(&["dump", "--db", &db, "--out", &saved]);
    let copy = cluster.url("copy");
    ok(&["restore", "--db", &copy, &app, "--from", &saved]);
    let listed = ok(&["run", "--db", &copy, "members", "--arg", "team=1"]);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    let over = rqc(&["restore", "--db", &db, &app, "--from", &saved]);
    assert!(stderr(&over).contains("[E0511] Error"), "{}", stderr(&over));
    // `--store` means nothing on etcd.
    let store = rqc(&[
        "run", "--store", "lmdb", "--db", &db, "members", "--arg", "team=1",
    ]);
    assert!(
        stderr(&store).contains("[E0575] Error"),
        "{}",
        stderr(&store)
    );
}

#[test]
fn an_unreachable_cluster_is_refused_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "teams.rq", TEAMS);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let db = format!("etcd://127.0.0.1:{port}/teams");
    let out = rqc(&[
        "run", "--db", &db, &app, "add_team", "--arg", "id=1", "--arg", "name=red",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("[E0561] Error"), "{}", stderr(&out));
    assert!(stderr(&out).contains("Help:"), "{}", stderr(&out));
    let malformed = rqc(&[
        "run",
        "--db",
        "etcd://127.0.0.1:2379",
        "members",
        "--arg",
        "team=1",
    ]);
    assert!(
        stderr(&malformed).contains("[E0560] Error"),
        "{}",
        stderr(&malformed)
    );
}

/// Eight `rqc` processes at a time insert members into two teams, each
/// bounded at 3: every team ends with exactly 3, as many as inserts
/// succeeded, and the rest were refused at the bound (E0504).
#[test]
fn racing_rqc_processes_never_pass_a_bound() {
    let cluster = EtcdCluster::start(3);
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "teams.rq", TEAMS);
    let db = cluster.url("race");
    for team in 1..=2 {
        let id = format!("id={team}");
        ok(&[
            "run", "--db", &db, &app, "add_team", "--arg", &id, "--arg", "name=t",
        ]);
    }
    let children: Vec<_> = (0..16)
        .map(|i| {
            let team = 1 + i % 2;
            Command::new(env!("CARGO_BIN_EXE_rqc"))
                .args(["run", "--db", &db, "add_member", "--arg"])
                .arg(format!("team={team}"))
                .args([
                    "--arg",
                    &format!("id={}", 100 + i),
                    "--arg",
                    &format!("nick=n{i}"),
                ])
                .current_dir(repo())
                .env("NO_COLOR", "1")
                .output_async()
        })
        .collect();
    let mut added = [0; 2];
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => added[i % 2] += 1,
            _ => assert!(
                String::from_utf8_lossy(&out.stderr).contains("[E0504] Error"),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    assert_eq!(added, [3, 3]);
    for team in 1..=2 {
        let listed = ok(&[
            "run",
            "--db",
            &db,
            "members",
            "--arg",
            &format!("team={team}"),
        ]);
        assert_eq!(listed.lines().count(), 3, "{listed}");
    }
    let verified = rqc(&["verify", "--db", &db]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
}

/// Spawning a command with its output piped, to wait for later.
trait OutputAsync {
    fn output_async(&mut self) -> std::process::Child;
}

impl OutputAsync for Command {
    fn output_async(&mut self) -> std::process::Child {
        use std::process::Stdio;
        self.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("rqc runs")
    }
}

/// On a cluster whose transactions hold 64 operations, a program with a
/// mutation whose bound allows more is refused at install, naming it.
#[test]
fn a_mutation_not_proved_to_fit_the_operation_limit_is_refused_at_install() {
    let cluster = EtcdCluster::start_with(
        1,
        etcd_cluster::ClusterOptions {
            max_txn_ops: Some(64),
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let big = format!("{TEAMS}mutation clear(team: Int) = delete Member.by_team[team]\n")
        .replace("bound team <= 3", "bound team <= 50");
    let app = write(dir.path(), "big.rq", &big);
    let db = cluster.url("big");
    let out = rqc(&[
        "run", "--db", &db, &app, "add_team", "--arg", "id=1", "--arg", "name=red",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("[E0570] Error") && text.contains("`clear` (up to"),
        "{text}"
    );
    assert!(text.contains("at most 64 operations"), "{text}");
    // The program's small mutations install once the large one is gone.
    let small = write(dir.path(), "small.rq", TEAMS);
    ok(&[
        "run", "--db", &db, &small, "add_team", "--arg", "id=1", "--arg", "name=red",
    ]);
}

/// On a cluster whose requests hold 64 reads, a batch of 100 goes as two
/// requests, and the bound the run is held to there counts them
/// (spec/cost.md §11: `T + ⌊S/L⌋`).
#[test]
fn a_batch_larger_than_the_operation_limit_is_split_and_its_bound_counts_it() {
    let cluster = EtcdCluster::start_with(
        1,
        etcd_cluster::ClusterOptions {
            max_txn_ops: Some(64),
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let wide = format!(
        "{TEAMS}query nicks(team: Int) = Member.by_team[team] |> map(m => Member.nick[m.nick])\n"
    )
    .replace("bound team <= 3", "bound team <= 100");
    let app = write(dir.path(), "wide.rq", &wide);
    let checked = ok(&["check", &app]);
    assert!(
        checked.contains(
            "nicks(team: Int) -> [Member?; ≤ 100]  seeks ≤ 201  rows ≤ 200  round trips ≤ 2"
        ),
        "one scan, one batch of lookups: {checked}"
    );
    let db = cluster.url("wide");
    ok(&[
        "run", "--db", &db, &app, "add_team", "--arg", "id=1", "--arg", "name=red",
    ]);
    let rows: String = (1..=100)
        .map(|i| format!("{{\"team\": 1, \"id\": {i}, \"nick\": \"n{i}\"}}\n"))
        .collect();
    ok(&[
        "load",
        "--db",
        &db,
        &app,
        "Member",
        &write(dir.path(), "m.jsonl", &rows),
    ]);
    let out = ok(&[
        "explain",
        &app,
        "nicks",
        "--analyze",
        "--db",
        &db,
        "--arg",
        "team=1",
    ]);
    // The scan, then the 100 lookups in two requests: 3 round trips, held
    // to 2 + ⌊201/64⌋ = 5 there (each lookup is proved to 2 seeks).
    assert!(
        out.contains("actual: seeks 101 of 201 · rows 200 of 200 · round trips 3 of 5"),
        "{out}"
    );
    assert!(
        out.contains("Map (batched)  seeks ≤ 201  rows ≤ 200  round trips ≤ 5  (actual: seeks 101 rows 200 round trips 3 in 1 run)"),
        "{out}"
    );
}

/// `rqc run --batch` on etcd: its calls commit as one request; past the
/// cluster's `--max-txn-ops` the commit is refused (E0665) naming the
/// limit, nothing is written, and the same calls in smaller files commit.
#[test]
fn a_batch_past_the_operation_limit_is_refused_at_its_commit_on_etcd() {
    let cluster = EtcdCluster::start_with(
        1,
        etcd_cluster::ClusterOptions {
            max_txn_ops: Some(64),
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "teams.rq", TEAMS);
    let db = cluster.url("batch");
    let teams = |ids: std::ops::Range<i64>| -> String {
        ids.map(|i| {
            format!("{{\"entry\": \"add_team\", \"args\": {{\"id\": {i}, \"name\": \"t{i}\"}}}}\n")
        })
        .collect()
    };
    let big = write(dir.path(), "big.jsonl", &teams(0..70));
    let out = rqc(&["run", "--db", &db, &app, "--batch", &big]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("[E0665] Error: the transaction of 70 runs"),
        "{text}"
    );
    assert!(text.contains("allows 64"), "{text}");
    assert_eq!(stdout(&out), "", "nothing printed before a commit");
    let small = write(dir.path(), "small.jsonl", &teams(0..10));
    let printed = ok(&["run", "--db", &db, "--batch", &small]);
    assert_eq!(printed.lines().count(), 10, "{printed}");
    let verify = rqc(&["verify", "--db", &db]);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
}
