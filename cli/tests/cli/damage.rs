//! Damage is detected, never answered: copies of a database with flipped bytes or zeroed 4 KB blocks, queried through the CLI on every backend.
//!
//! Each round damages a fresh copy of the social example's database and
//! runs its queries. Every command must either answer exactly as the
//! undamaged database does, or fail with a code; never answer otherwise
//! with status 0, never panic (status 101), never die by a signal. `rqc
//! verify` on a copy that answered wrongly would be a miss too. CI runs a
//! few rounds; `RQC_DAMAGE_ROUNDS=n` runs more (the README's campaign).

use super::{rqc, stderr, stdout};
use std::path::{Path, PathBuf};

/// The queries each round runs, with their arguments.
const QUERIES: &[&[&str]] = &[
    &["user", "--arg", "id=7"],
    &["user", "--arg", "id=42"],
    &["user_by_handle", "--arg", "h=user13"],
    &["recent_posts", "--arg", "a=27", "--arg", "n=5"],
    &["timeline", "--arg", "u=3", "--arg", "n=10"],
    &["following_count", "--arg", "u=5"],
    &["top_followed", "--arg", "u=9"],
    &["countries"],
];

/// The file of each backend's database that damage goes into.
fn data_file(db: &Path, store: &str) -> PathBuf {
    match store {
        "lmdb" => db.join("data.mdb"),
        "redb" => db.join("rqc.redb"),
        _ => db.join("db"),
    }
}

fn load(db: &str, store: &str) {
    for (table, file) in [
        ("Country", "examples/social/data/countries.csv"),
        ("User", "examples/social/data/users.jsonl"),
        ("Post", "examples/social/data/posts.jsonl"),
        ("Follow", "examples/social/data/follows.csv"),
    ] {
        let out = rqc(&[
            "load",
            "--store",
            store,
            "--db",
            db,
            "examples/social",
            table,
            file,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

fn query(db: &str, q: &[&str]) -> std::process::Output {
    let mut args = vec!["run", "--db", db];
    args.extend_from_slice(q);
    rqc(&args)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A small deterministic generator (xorshift), so a failing round can be
/// replayed from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Flips a byte, or zeroes a 4 KB block, of `file`.
fn damage(file: &Path, rng: &mut Rng) -> String {
    let mut bytes = std::fs::read(file).unwrap();
    let len = bytes.len() as u64;
    let how = if rng.below(2) == 0 {
        let at = rng.below(len) as usize;
        let bit = rng.below(8);
        bytes[at] ^= 1 << bit;
        format!("bit {bit} flipped at {at}")
    } else {
        let block = rng.below(len.div_ceil(4096)) as usize * 4096;
        let end = (block + 4096).min(bytes.len());
        bytes[block..end].fill(0);
        format!("block {block}..{end} zeroed")
    };
    std::fs::write(file, bytes).unwrap();
    how
}

fn first_line(out: &std::process::Output) -> String {
    stderr(out).lines().take(2).collect::<Vec<_>>().join(" / ")
}

#[derive(Default, Debug)]
struct Tally {
    commands: u32,
    same: u32,
    refused: u32,
    /// Of the refused: LMDB stopped the process on an assertion.
    stopped: u32,
    wrong: Vec<String>,
    panics: Vec<String>,
}

#[test]
fn damaged_databases_answer_right_or_refuse_on_every_backend() {
    let rounds: u64 = std::env::var("RQC_DAMAGE_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    let only = std::env::var("RQC_DAMAGE_STORE").ok();
    for (at, store) in ["lmdb", "redb", "sled"].into_iter().enumerate() {
        if only.as_deref().is_some_and(|o| o != store) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let clean = dir.path().join("clean");
        let clean_db = clean.display().to_string();
        load(&clean_db, store);
        let expected: Vec<String> = QUERIES
            .iter()
            .map(|q| {
                let out = query(&clean_db, q);
                assert!(out.status.success(), "{}", stderr(&out));
                stdout(&out)
            })
            .collect();
        let mut tally = Tally::default();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (at as u64 + 1));
        for round in 0..rounds {
            let copy = dir.path().join(format!("copy{round}"));
            copy_dir(&clean, &copy);
            let how = damage(&data_file(&copy, store), &mut rng);
            let db = copy.display().to_string();
            for (q, expected) in QUERIES.iter().zip(&expected) {
                tally.commands += 1;
                let out = query(&db, q);
                let case = format!("{store} round {round} ({how}): {q:?}");
                match out.status.code() {
                    Some(0) if stdout(&out) == *expected => tally.same += 1,
                    Some(0) => {
                        let verify = rqc(&["verify", "--db", &db]);
                        tally.wrong.push(format!(
                            "{case}: answered {:?} for {expected:?}; verify exits {:?}: {}",
                            stdout(&out),
                            verify.status.code(),
                            stdout(&verify)
                        ))
                    }
                    Some(101) | None => tally.panics.push(format!("{case}: {}", first_line(&out))),
                    Some(_) if stderr(&out).contains("] Error: ") => {
                        if stderr(&out).contains("stopped on an inconsistent page") {
                            tally.stopped += 1;
                        }
                        tally.refused += 1
                    }
                    Some(_) => tally
                        .panics
                        .push(format!("{case}: no code: {}", first_line(&out))),
                }
            }
            let _ = std::fs::remove_dir_all(&copy);
        }
        eprintln!(
            "{store}: {} commands on {rounds} damaged copies: {} answered as undamaged, {} refused with a code ({} of them LMDB's assertion), {} wrong, {} panics or signals",
            tally.commands,
            tally.same,
            tally.refused,
            tally.stopped,
            tally.wrong.len(),
            tally.panics.len()
        );
        assert!(
            tally.wrong.is_empty() && tally.panics.is_empty(),
            "wrong answers: {:#?}\npanics: {:#?}",
            tally.wrong,
            tally.panics
        );
    }
}

#[test]
fn verify_dump_and_restore_round_trip_and_find_damage() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    load(&db, "lmdb");
    let verified = rqc(&["verify", "--db", &db]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
    assert!(
        stderr(&verified).contains("verified: 755 rows"),
        "{}",
        stderr(&verified)
    );

    let saved = dir.path().join("saved").display().to_string();
    let dumped = rqc(&["dump", "--db", &db, "--out", &saved]);
    assert_eq!(dumped.status.code(), Some(0), "{}", stderr(&dumped));
    let users = std::fs::read_to_string(dir.path().join("saved/User.jsonl")).unwrap();
    assert_eq!(users.lines().count(), 50);
    let fresh = dir.path().join("fresh").display().to_string();
    let restored = rqc(&[
        "restore",
        "--db",
        &fresh,
        "examples/social",
        "--from",
        &saved,
    ]);
    assert_eq!(restored.status.code(), Some(0), "{}", stderr(&restored));
    assert!(
        stderr(&restored).contains("restored 755 rows"),
        "{}",
        stderr(&restored)
    );
    for q in QUERIES {
        assert_eq!(stdout(&query(&db, q)), stdout(&query(&fresh, q)), "{q:?}");
    }
    // A restore never writes into a directory that holds anything.
    let again = rqc(&[
        "restore",
        "--db",
        &fresh,
        "examples/social",
        "--from",
        &saved,
    ]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("[E0511] Error"),
        "{}",
        stderr(&again)
    );

    // A row's bytes changed on disk: the query that reads it refuses, verify
    // names the tree, dump keeps every other row and says what it lost.
    let file = dir.path().join("db/data.mdb");
    let mut bytes = std::fs::read(&file).unwrap();
    // The row and its copies in the indexes.
    let copies: Vec<usize> = (0..bytes.len() - 7)
        .filter(|&at| &bytes[at..at + 7] == b"User 42")
        .collect();
    assert!(!copies.is_empty(), "the row is in the file");
    for at in copies {
        bytes[at + 5] = b'9';
    }
    std::fs::write(&file, &bytes).unwrap();
    let damaged = rqc(&["verify", "--db", &db]);
    assert_eq!(damaged.status.code(), Some(1));
    assert!(
        stdout(&damaged).contains("[E0591] Error"),
        "{}",
        stdout(&damaged)
    );
    assert!(
        stdout(&damaged).contains("fails its checksum"),
        "{}",
        stdout(&damaged)
    );
    let partial = dir.path().join("partial").display().to_string();
    let dumped = rqc(&["dump", "--db", &db, "--out", &partial]);
    assert_eq!(dumped.status.code(), Some(1), "{}", stderr(&dumped));
    assert!(
        stderr(&dumped).contains("fails its checksum"),
        "{}",
        stderr(&dumped)
    );

    // An emptied data file is damage, never a new database.
    std::fs::write(&file, b"").unwrap();
    let empty = query(&db, &["user", "--arg", "id=1"]);
    assert_eq!(empty.status.code(), Some(1), "{}", stderr(&empty));
    assert!(
        stderr(&empty).contains("[E0591] Error"),
        "{}",
        stderr(&empty)
    );
    assert!(stderr(&empty).contains("is empty"), "{}", stderr(&empty));
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        0,
        "nothing was written"
    );

    // A device is no database either, refused as any other file is.
    for command in [
        &["run", "--db", "/dev/null", "user", "--arg", "id=1"][..],
        &["verify", "--db", "/dev/null"],
    ] {
        let out = rqc(command);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("[E0511] Error"), "{}", stderr(&out));
    }
}

/// A row cut out of the table's tree behind rqc's back (the raw LMDB
/// store, no seal written): the point read of it refuses (E0591) rather
/// than answer "no such user", `verify` lists the break, and `dump` keeps
/// every other row.
#[test]
fn a_row_cut_out_of_its_tree_is_damage_and_dump_keeps_the_rest() {
    use rqc_runtime::store::{Durability, LmdbStore, Store};
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    load(&db, "lmdb");
    let before = query(&db, &["user", "--arg", "id=42"]);
    assert_eq!(before.status.code(), Some(0), "{}", stderr(&before));
    {
        let raw = LmdbStore::open(&db_dir, Durability::Full).unwrap();
        let tree = raw.tree("t:User");
        // User 42's entry: the one whose bytes hold its name.
        let read = raw.begin_read().unwrap();
        let entries = read.range(tree, &[], None, false, usize::MAX).unwrap();
        let (key, _) = entries
            .iter()
            .find(|(_, v)| v.windows(7).any(|w| w == b"User 42"))
            .expect("user 42 is stored");
        let key = key.clone();
        drop(read);
        let mut txn = raw.begin_write().unwrap();
        txn.delete(tree, &key).unwrap();
        txn.commit().unwrap();
    }
    let cut = query(&db, &["user", "--arg", "id=42"]);
    assert_eq!(cut.status.code(), Some(1), "{}", stdout(&cut));
    assert!(stderr(&cut).contains("[E0591] Error"), "{}", stderr(&cut));
    assert!(
        stderr(&cut).contains("the entry after it still links to it"),
        "{}",
        stderr(&cut)
    );
    let verified = rqc(&["verify", "--db", &db]);
    assert_eq!(verified.status.code(), Some(1));
    assert!(
        stdout(&verified).contains("does not link to the entry read before it"),
        "{}",
        stdout(&verified)
    );
    let saved = dir.path().join("saved");
    let dumped = rqc(&["dump", "--db", &db, "--out", &saved.display().to_string()]);
    assert_eq!(dumped.status.code(), Some(1), "{}", stderr(&dumped));
    let users = std::fs::read_to_string(saved.join("User.jsonl")).unwrap();
    assert_eq!(users.lines().count(), 49, "every user but the one cut out");
}

/// A database of storage format 2 (checksums, no chain of entries), made
/// by the rqc before the chain (`cli/tests/data/format2/README.md`): every
/// command refuses it with E0518 and a help line saying what to run, and
/// nothing of it changes.
#[test]
fn a_database_of_the_format_before_the_chain_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format2");
    let db_dir = dir.path().join("db");
    std::fs::create_dir_all(&db_dir).unwrap();
    for file in ["data.mdb", "rqc-store"] {
        std::fs::copy(golden.join("db").join(file), db_dir.join(file)).unwrap();
    }
    let app = golden.join("app.rq").display().to_string();
    let db = db_dir.display().to_string();
    let before = std::fs::read(db_dir.join("data.mdb")).unwrap();
    for args in [
        vec!["run", "--db", &db, "item", "--arg", "id=1"],
        vec!["run", "--db", &db, &app, "item", "--arg", "id=2"],
        vec![
            "run", "--db", &db, &app, "add", "--arg", "id=3", "--arg", "name=pen", "--arg",
            "price=1",
        ],
        vec!["verify", "--db", &db],
        // No upgrade reads format 2: it takes a dump and a restore.
        vec!["upgrade", "--db", &db],
    ] {
        let out = rqc(&args);
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("[E0518] Error"), "{args:?}: {err}");
        assert!(err.contains("storage format 2"), "{err}");
        assert!(err.contains("rqc dump --db DIR --out saved"), "{err}");
        assert!(
            err.contains("rqc restore --db NEW --from saved PROGRAM"),
            "{err}"
        );
    }
    assert_eq!(
        std::fs::read(db_dir.join("data.mdb")).unwrap(),
        before,
        "the old database is left as it was"
    );
}

/// `rqc` in its own process with piped stdin, killed by `signal` once it
/// is ready (it has printed or waited a moment); its status and stderr.
fn killed_by(signal: i32, args: &[&str], ready: std::time::Duration) -> (Option<i32>, String) {
    use std::process::Stdio;
    let child = super::rqc_command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    super::signalled(child, signal, ready)
}

/// A signal is reported as a damaged page only once a database is open: a
/// command that opens none (the language server, `check`) dies with the
/// signal's own report, such as running out of memory, and is not sent to
/// `rqc verify`.
#[test]
fn an_abort_is_called_damage_only_with_a_database_open() {
    let wait = std::time::Duration::from_millis(1500);
    let (code, text) = killed_by(libc::SIGABRT, &["lsp"], wait);
    assert_eq!(code, None, "killed by the signal: {text}");
    assert!(!text.contains("E0591"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let (code, text) = killed_by(libc::SIGABRT, &["repl", "--db", &db], wait);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("E0591"), "{text}");
}

/// Running out of memory with a database open is reported as that
/// (E0602), not as damage: the run's allocation fails, the allocator notes
/// it, and the abort that follows is told apart.
#[test]
fn running_out_of_memory_is_not_called_damage() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("m.rq");
    // A string may hold 16 MiB (E0539 past that), so the run builds many:
    // one that doubles at each `let` to 8 MiB, then 320 distinct joins of
    // it with itself, all alive at the end: 5 GiB in all.
    let doubling: String = (1..23)
        .map(|i| format!("  let a{i} = a{} + a{};\n", i - 1, i - 1))
        .collect();
    let joins: String = (0..320)
        .map(|j| format!("  let b{j} = a22 + a22;\n"))
        .collect();
    let total = (0..320)
        .map(|j| format!("length(b{j})"))
        .collect::<Vec<_>>()
        .join(" + ");
    std::fs::write(
        &program,
        format!(
            "module m\nquery q(x: String) = {{\n  let a0 = x;\n{doubling}{joins}  {total}\n}}\n"
        ),
    )
    .unwrap();
    let db = dir.path().join("db");
    // The database the query reads (a query alone creates none).
    let made = super::rqc_with_input(&["repl", "--db", &db.display().to_string()], "");
    assert!(made.status.success(), "{}", stderr(&made));
    // A 3 GB address space: the run cannot build the string.
    let command = format!(
        "ulimit -v 3000000; exec '{}' run --db '{}' '{}' q --arg x=ab",
        env!("CARGO_BIN_EXE_rqc"),
        db.display(),
        program.display()
    );
    let output = std::process::Command::new("bash")
        .args(["-c", &command])
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("[E0602] Error"), "{text}");
    assert!(!text.contains("E0591"), "{text}");
}

/// A flipped byte in the changelog (the tree every commit reads the head
/// of and appends to): every later write refuses with E0591, whose help
/// says to run `verify`, and `verify` now reads that tree too and lists
/// the damage (it said the database was sound: a fault an independent
/// campaign found, issue 35 §5).
#[test]
fn a_damaged_changelog_entry_is_found_by_verify() {
    use rqc_runtime::store::{Durability, LmdbStore, Store};
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    load(&db, "lmdb");
    let wrote = query(&db, &["post", "--arg", "author=1", "--arg", "body=hello"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    let sound = rqc(&["verify", "--db", &db]);
    assert_eq!(sound.status.code(), Some(0), "{}", stdout(&sound));
    {
        let raw = LmdbStore::open(&db_dir, Durability::Full).unwrap();
        let tree = raw.tree("__live");
        let read = raw.begin_read().unwrap();
        let entries = read.range(tree, &[], None, false, usize::MAX).unwrap();
        let (key, value) = entries.last().expect("the post's changelog entry").clone();
        drop(read);
        let mut flipped = value.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x20;
        let mut txn = raw.begin_write().unwrap();
        txn.put(tree, &key, &flipped).unwrap();
        txn.commit().unwrap();
    }
    let refused = query(&db, &["post", "--arg", "author=1", "--arg", "body=again"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    assert!(stderr(&refused).contains("E0591"), "{}", stderr(&refused));
    let verified = rqc(&["verify", "--db", &db]);
    assert_eq!(verified.status.code(), Some(1), "{}", stdout(&verified));
    assert!(
        stdout(&verified).contains("__live"),
        "{}",
        stdout(&verified)
    );
}
