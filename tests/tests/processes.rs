//! Many processes on one database, with real processes racing (this test
//! binary runs itself as the children, as the crash test does): readers in
//! other processes never see half a commit, writers of several processes
//! take turns and never pass a bound, a writer waits for another process
//! at most `wait` and then reports busy (E0540), a writer killed while
//! writing blocks nobody, and a user who cannot write the database still
//! queries it.
//!
//! On the backends that admit several processes: LMDB. (redb and sled
//! admit one process at a time; a second one waits at open, then E0540.)

use rqc::{Backend, Database, Error, OpenOptions, Value};
use rqc_runtime::Engine;
use rqc_tests::state::check_integrity;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The backends whose databases several processes share.
const SHARED: [Backend; 1] = [Backend::Lmdb];

/// Lines the children print start with this.
const MARK: &str = "rqc-proc ";

/// The program: the fixtures' teams and members, at most 3 members a
/// team, and the definitions below.
fn program() -> String {
    rqc_tests::fixtures::teams(3) + REST
}

const REST: &str = "
mutation add_team(id: Int, name: String) = insert Team { id, name }
mutation add_member(team: Int, id: Int, nick: String) = insert Member { team, id, nick }
mutation pair(team: Int, a: Int, b: Int, na: String, nb: String) = {
  insert Member { team, id: a, nick: na };
  insert Member { team, id: b, nick: nb }
}
mutation unpair(a: Int, b: Int) = { delete Member[a]; delete Member[b] }
query pair_state(team: Int) = {
  listed: Member.by_team[team] |> count(),
  by_key: Member.by_team[team] |> map(m => Member[m.id]) |> flatten() |> count(),
  by_nick: Member.by_team[team] |> map(m => Member.nick[m.nick]) |> flatten() |> count()
}
query members(team: Int) = Member.by_team[team]
query team(id: Int) = Team[id]
";

fn open(dir: &Path, backend: Option<Backend>, wait: Duration) -> Database {
    let options = OpenOptions {
        backend,
        wait,
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(dir, options).unwrap();
    db.install_source("teams.rq", &program()).unwrap();
    db
}

/// A new database of `backend` with four teams.
fn setup(dir: &Path, backend: Backend) {
    let db = open(dir, Some(backend), Duration::from_secs(5));
    for team in 1..=4i64 {
        db.run("add_team", &[team.into(), format!("t{team}").into()])
            .unwrap();
    }
}

fn say(line: impl std::fmt::Display) {
    println!("{MARK}{line}");
}

/// The children: `RQC_PROC_ROLE` says which, `RQC_PROC_DIR` where.
#[test]
fn process_child() {
    let (Ok(role), Ok(dir)) = (
        std::env::var("RQC_PROC_ROLE"),
        std::env::var("RQC_PROC_DIR"),
    ) else {
        return; // run as a test of its own: nothing to do
    };
    let dir = Path::new(&dir);
    let stop = || dir.join("stop").exists();
    let id: i64 = std::env::var("RQC_PROC_ID").map_or(0, |n| n.parse().unwrap());
    match role.as_str() {
        "pair-writer" => {
            let db = open(dir, None, Duration::from_secs(30));
            let mut round = 0i64;
            while !stop() {
                round += 1;
                let team = 1 + round % 4;
                let (a, b) = (1000 + 2 * round, 1001 + 2 * round);
                let nicks = [format!("a{round}"), format!("b{round}")];
                let args: [Value; 5] = [
                    team.into(),
                    a.into(),
                    b.into(),
                    nicks[0].clone().into(),
                    nicks[1].clone().into(),
                ];
                db.run("pair", &args).unwrap();
                db.run("unpair", &[a.into(), b.into()]).unwrap();
                say(format!("round {round}"));
            }
        }
        "pair-reader" => {
            let db = open(dir, None, Duration::from_secs(30));
            let (mut reads, mut torn) = (0u64, 0u64);
            while !stop() {
                for team in 1..=4i64 {
                    let state = db.run("pair_state", &[team.into()]).unwrap().value;
                    let field = |f: &str| match state.field(f) {
                        Some(Value::Int(n)) => *n,
                        other => panic!("{f}: {other:?}"),
                    };
                    let listed = field("listed");
                    if !(listed == 0 || listed == 2)
                        || field("by_key") != listed
                        || field("by_nick") != listed
                    {
                        torn += 1;
                    }
                    reads += 1;
                }
                say(format!("reads {reads} torn {torn}"));
            }
        }
        "member-writer" => {
            let db = open(dir, None, Duration::from_secs(30));
            for i in 0..12i64 {
                let member = 100 * id + i;
                let team = 1 + (i + id) % 4;
                // Nicks repeat across the writers: some inserts are refused
                // as duplicates, others for the bound.
                let nick = format!("n{}", (member * 7) % 23);
                match db.run("add_member", &[team.into(), member.into(), nick.into()]) {
                    Ok(_) => say(format!("ok {member} {team}")),
                    Err(Error::Runtime(e)) => say(format!("refused {member} {}", e.code)),
                    Err(other) => panic!("{other}"),
                }
            }
        }
        "holder" => {
            let store = Backend::Lmdb
                .open_store(dir, &OpenOptions::default())
                .unwrap();
            let _txn = store.begin_write().unwrap();
            say("holding");
            while !stop() {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        "read-only" => {
            let db = open(dir, None, Duration::from_secs(5));
            let rows = db.run("members", &[1.into()]).unwrap().rows().len();
            say(format!("members {rows}"));
            match db.run("add_team", &[9.into(), "t9".into()]) {
                Err(Error::Runtime(e)) => say(format!("write {} {}", e.code, e.message)),
                other => say(format!("write {other:?}")),
            }
        }
        other => panic!("no role {other}"),
    }
    say("done");
}

/// A running child and the lines it printed so far.
struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
}

fn spawn(role: &str, dir: &Path, id: i64, user: Option<u32>) -> Proc {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "process_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RQC_PROC_ROLE", role)
        .env("RQC_PROC_DIR", dir)
        .env("RQC_PROC_ID", id.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(uid) = user {
        use std::os::unix::process::CommandExt;
        command.uid(uid).gid(uid);
    }
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(at) = line.find(MARK) {
                let _ = tx.send(line[at + MARK.len()..].to_string());
            }
        }
    });
    Proc { child, lines }
}

impl Proc {
    /// The next line, within `limit`.
    fn next(&mut self, limit: Duration) -> String {
        self.lines
            .recv_timeout(limit)
            .unwrap_or_else(|_| panic!("a child said nothing for {limit:?}"))
    }

    /// Every line up to its end, and whether it exited cleanly.
    fn finish(mut self) -> Vec<String> {
        let status = self.child.wait().unwrap();
        let lines: Vec<String> = self.lines.iter().collect();
        assert!(status.success(), "a child failed ({status}): {lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("done"));
        lines
    }
}

#[test]
fn readers_in_other_processes_never_see_half_a_commit() {
    for backend in SHARED {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path(), backend);
        let mut writer = spawn("pair-writer", dir.path(), 0, None);
        let mut readers: Vec<Proc> = (1..=2)
            .map(|r| spawn("pair-reader", dir.path(), r, None))
            .collect();
        // Race until the writer has committed and each reader has read a
        // while beside it.
        let started = Instant::now();
        let mut rounds = 0;
        while rounds < 30 {
            rounds += 1;
            writer.next(Duration::from_secs(30));
        }
        for reader in &mut readers {
            for _ in 0..20 {
                reader.next(Duration::from_secs(30));
            }
        }
        // One more commit, made while the readers were reading.
        rounds += 1;
        writer.next(Duration::from_secs(30));
        std::fs::write(dir.path().join("stop"), "").unwrap();
        let writes = rounds
            + writer
                .finish()
                .iter()
                .filter(|l| l.starts_with("round"))
                .count();
        for reader in readers {
            let lines = reader.finish();
            let last = &lines[lines.len() - 2];
            assert!(last.ends_with(" torn 0"), "{backend:?}: {last}");
        }
        assert!(writes > 30, "{backend:?}: {writes} rounds");
        assert!(started.elapsed() < Duration::from_secs(60));
    }
}

#[test]
fn writers_in_several_processes_take_turns_and_never_pass_a_bound() {
    for backend in SHARED {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path(), backend);
        let writers: Vec<Proc> = (1..=4)
            .map(|w| spawn("member-writer", dir.path(), w, None))
            .collect();
        let mut acknowledged = Vec::new();
        let mut refused = Vec::new();
        for writer in writers {
            for line in writer.finish() {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words.as_slice() {
                    ["ok", member, team] => {
                        acknowledged.push((member.parse::<i64>().unwrap(), team.parse().unwrap()))
                    }
                    ["refused", member, code] => {
                        assert!(["E0502", "E0504"].contains(code), "{line}");
                        refused.push(member.parse::<i64>().unwrap());
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(acknowledged.len() + refused.len(), 48);
        let db = open(dir.path(), None, Duration::from_secs(5));
        let mut stored = Vec::new();
        for team in 1..=4i64 {
            let members = db.run("members", &[team.into()]).unwrap();
            assert!(
                members.rows().len() <= 3,
                "{backend:?}: team {team} passed its bound"
            );
            for row in members.rows() {
                let Some(Value::Int(id)) = row.field("id") else {
                    panic!("{row:?}")
                };
                stored.push((*id, team));
            }
        }
        acknowledged.sort();
        stored.sort();
        assert_eq!(
            stored, acknowledged,
            "{backend:?}: every acknowledged commit, nothing else"
        );
        let program = db.program().unwrap().clone();
        drop(db);
        let engine = Engine::open(dir.path(), OpenOptions::default()).unwrap();
        check_integrity(engine.store(), &program.schema).unwrap();
    }
}

#[test]
fn a_writer_waits_for_another_process_then_reports_busy_and_readers_never_wait() {
    for backend in SHARED {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path(), backend);
        let mut holder = spawn("holder", dir.path(), 0, None);
        assert_eq!(holder.next(Duration::from_secs(30)), "holding");
        let wait = Duration::from_millis(300);
        let db = open(dir.path(), None, wait);
        let started = Instant::now();
        assert_eq!(db.run("team", &[1.into()]).unwrap().rows().len(), 1);
        assert!(started.elapsed() < wait, "a reader waited for the writer");
        let started = Instant::now();
        let busy = db.run("add_team", &[5.into(), "t5".into()]);
        let waited = started.elapsed();
        let Err(Error::Runtime(error)) = busy else {
            panic!("{backend:?}: a write beside another process's writer: {busy:?}")
        };
        assert_eq!(error.code, "E0540", "{error}");
        assert!(error.help.contains("--wait"), "{}", error.help);
        assert!(waited >= wait && waited < wait * 10, "waited {waited:?}");
        // A writer killed in the middle of its transaction blocks nobody:
        // the kernel lets go of its lock, LMDB of its mutex.
        holder.child.kill().unwrap();
        holder.child.wait().unwrap();
        db.run("add_team", &[5.into(), "t5".into()]).unwrap();
        assert_eq!(db.run("team", &[5.into()]).unwrap().rows().len(), 1);
    }
}

#[test]
fn a_user_who_cannot_write_the_database_queries_it() {
    use std::os::unix::fs::PermissionsExt;
    for backend in SHARED {
        let dir = tempfile::tempdir().unwrap();
        let db_dir = dir.path().join("db");
        setup(&db_dir, backend);
        {
            let db = open(&db_dir, None, Duration::from_secs(5));
            db.run("add_member", &[1.into(), 1.into(), "ann".into()])
                .unwrap();
        }
        // Readable by all, writable by nobody but root.
        for path in [dir.path().to_path_buf(), db_dir.clone()] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        for file in std::fs::read_dir(&db_dir).unwrap() {
            let path = file.unwrap().path();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        }
        // Root writes anyway: the child runs as another user then.
        let user = is_root().then_some(65534);
        let lines = spawn("read-only", &db_dir, 0, user).finish();
        assert_eq!(lines[0], "members 1", "{lines:?}");
        assert!(lines[1].starts_with("write E0541 "), "{lines:?}");
        assert!(
            lines[1].contains(&db_dir.display().to_string()),
            "{lines:?}"
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&db_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn is_root() -> bool {
    // The owner of a file this process makes.
    let probe = tempfile::NamedTempFile::new().unwrap();
    std::os::unix::fs::MetadataExt::uid(&probe.as_file().metadata().unwrap()) == 0
}
