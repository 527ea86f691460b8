//! The crash test: a child process runs the examples' mutations (social
//! and TPC-C, `rqc_tests::crash_workload`) at one durability level and
//! reports each acknowledged commit; the parent kills it with SIGKILL at a
//! random moment, reopens the database and checks that `verify` finds it
//! sound, that it holds exactly the reference evaluator's tables after the
//! acknowledged mutations (plus, at most, the one in flight: whole) where
//! the level promises that a process crash loses nothing, and after some
//! prefix of them where it does not ([`keeps_acknowledged`]), that every
//! index and counter equals its rows, and that every query gives the
//! reference evaluator's answer.
//!
//! A SIGKILL loses nothing the process handed to the OS, so it cannot tell
//! LMDB's levels apart (all three keep every acknowledged commit here);
//! what `full` and `normal` promise against a power loss is simulated by
//! `power_loss.rs`, and that the level reaches LMDB is tested by its flags
//! (`runtime/src/store/durability_tests.rs`).
//!
//! Rounds per backend and level: `RQC_CRASH_ROUNDS` (3 by default, for
//! CI). The long run: `RQC_CRASH_ROUNDS=1000 cargo test --release -p rqc-tests --test crash -- --nocapture`
//! (`RQC_CRASH_BACKEND=redb`, `sled` or `lmdb` for one backend,
//! `RQC_CRASH_DURABILITY=full`, `normal` or `none` for one level).

use rqc::{Database, Durability, OpenOptions};
use rqc_compiler::{compile, Compilation};
use rqc_plan::Value;
use rqc_runtime::{Backend, Engine};
use rqc_tests::crash_workload::{example_dirs, operation, query_calls, setup};
use rqc_tests::reference::Reference;
use rqc_tests::state::{check_integrity, reference_tables, store_tables, Tables};
use rqc_tests::{relative, rq_files, Rng};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Lines the child prints start with this, so they are told apart from the
/// test harness's own output on the same stream.
const MARK: &str = "rqc-crash ";

/// Rounds that share one database; then it starts again from the setup,
/// so the reference evaluator's brute force stays fast over 1,000 rounds.
const ROUNDS_PER_DATABASE: usize = 50;

fn backend_named(name: &str) -> Backend {
    Backend::named(name).unwrap_or_else(|| panic!("no backend `{name}`"))
}

fn durability_named(name: &str) -> Durability {
    Durability::named(name).unwrap_or_else(|| panic!("no durability level `{name}`"))
}

/// Whether `backend` at `level` keeps every acknowledged commit when its
/// process is killed: LMDB writes each commit into the OS's page cache at
/// every level; redb's `Durability::None` keeps a commit in the process
/// until a durable one follows, and sled's background flush leaves the
/// last commits in its buffers, so at `none` those two may lose them
/// (never tearing one).
fn keeps_acknowledged(backend: Backend, level: Durability) -> bool {
    level != Durability::None || backend == Backend::Lmdb
}

fn program() -> Compilation {
    let files: Vec<(String, String)> = example_dirs()
        .iter()
        .flat_map(|dir| rq_files(&relative(dir)))
        .map(|path| (relative(&path), std::fs::read_to_string(&path).unwrap()))
        .collect();
    let compilation = compile(&files);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:#?}",
        compilation.diagnostics
    );
    compilation
}

/// Opens the database the child left. (sled's lock, let go a moment after
/// a close, is waited for by `SledStore::open` itself.)
fn open_engine(dir: &Path, backend: Backend, compilation: &Compilation) -> Engine {
    let options = OpenOptions {
        backend: Some(backend),
        durability: Durability::Full,
        ..OpenOptions::default()
    };
    let mut engine =
        Engine::open(dir, options).unwrap_or_else(|e| panic!("reopening after the kill: {e}"));
    engine
        .install(compilation.program.clone())
        .unwrap_or_else(|e| panic!("installing after the kill: {e}"));
    engine
}

/// The child: runs the stream from `RQC_CRASH_START` on through the
/// embedding API at `RQC_CRASH_DURABILITY`, printing each position after
/// its mutation returned, until it is killed.
#[test]
fn crash_child() {
    let (Ok(dir), Ok(backend), Ok(level), Ok(start), Ok(seed)) = (
        std::env::var("RQC_CRASH_DIR"),
        std::env::var("RQC_CRASH_BACKEND"),
        std::env::var("RQC_CRASH_DURABILITY"),
        std::env::var("RQC_CRASH_START"),
        std::env::var("RQC_CRASH_SEED"),
    ) else {
        return; // not the child
    };
    let (start, seed): (i64, u64) = (start.parse().unwrap(), seed.parse().unwrap());
    let options = OpenOptions {
        backend: Some(backend_named(&backend)),
        durability: durability_named(&level),
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(&dir, options).unwrap();
    db.install_paths(&example_dirs()).unwrap();
    println!("{MARK}ready");
    for i in start.. {
        let (name, args) = operation(seed, i);
        match db.run(name, &args) {
            Ok(_) => println!("{MARK}ok {i}"),
            // A constraint refused it: the stream goes on.
            Err(error) if error.code().starts_with("E050") => {
                println!("{MARK}refused {i} {}", error.code())
            }
            Err(error) => panic!("{name}({args:?}): {error}"),
        }
    }
}

/// What the child reported before it was killed.
struct Report {
    /// Positions whose mutations committed, in order.
    committed: Vec<i64>,
    /// The position after the last one reported: the mutation in flight.
    in_flight: i64,
}

/// Where and how a child runs.
struct Child<'a> {
    dir: &'a Path,
    backend: Backend,
    level: Durability,
}

fn crash_round(child: &Child<'_>, start: i64, seed: u64, wait: u64) -> Report {
    let Child {
        dir,
        backend,
        level,
    } = *child;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RQC_CRASH_DIR", dir)
        .env("RQC_CRASH_BACKEND", backend.name())
        .env("RQC_CRASH_DURABILITY", level.name())
        .env("RQC_CRASH_START", start.to_string())
        .env("RQC_CRASH_SEED", seed.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(at) = line.find(MARK) {
                if tx.send(line[at + MARK.len()..].to_string()).is_err() {
                    return;
                }
            }
        }
    });
    // Wait for the child to be ready, let it commit for a random while, kill it.
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line == "ready" => break,
            Ok(_) => {}
            Err(_) => panic!("the child did not start: {}", stderr_of(&mut child)),
        }
    }
    std::thread::sleep(Duration::from_millis(wait));
    if let Ok(Some(status)) = child.try_wait() {
        panic!(
            "the child stopped by itself ({status}): {}",
            stderr_of(&mut child)
        );
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut report = Report {
        committed: Vec::new(),
        in_flight: start,
    };
    // Every line the child wrote before it died: the reader thread ends at
    // the pipe's end, so none still in the pipe is missed.
    for line in rx.iter() {
        let mut words = line.split_whitespace();
        let (Some(outcome), Some(i)) = (words.next(), words.next()) else {
            continue;
        };
        let i: i64 = i.parse().unwrap();
        assert_eq!(
            i, report.in_flight,
            "the child reports every position in order"
        );
        if outcome == "ok" {
            report.committed.push(i);
        }
        report.in_flight = i + 1;
    }
    report
}

fn stderr_of(child: &mut std::process::Child) -> String {
    let _ = child.kill();
    let mut text = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
    }
    text
}

/// The first table where two states differ, for the failure message.
fn first_difference(actual: &Tables, expected: &Tables) -> String {
    for ((table, rows), (_, expected_rows)) in actual.iter().zip(expected) {
        if rows != expected_rows {
            let missing = expected_rows.iter().filter(|r| !rows.contains(r)).count();
            let extra = rows.iter().filter(|r| !expected_rows.contains(r)).count();
            return format!(
                "`{table}`: {} rows where the reference has {} ({missing} missing, {extra} not in the reference)",
                rows.len(),
                expected_rows.len()
            );
        }
    }
    "no table differs".into()
}

/// Totals over the run, for the report.
#[derive(Default)]
struct Totals {
    acknowledged: usize,
    unacknowledged_present: usize,
    /// Acknowledged commits a kill lost, at a level that allows it.
    lost: usize,
    queries: usize,
}

/// Checks the reopened database where the level keeps every acknowledged
/// commit: exactly the reference's tables after the acknowledged
/// mutations, or after the one in flight too (whole); then [`sound`].
/// Returns the next position the child starts from.
fn verify(
    engine: &Engine,
    compilation: &Compilation,
    reference: &mut Reference<'_>,
    report: &Report,
    seed: u64,
    totals: &mut Totals,
    rng: &mut Rng,
) -> i64 {
    let schema = &compilation.program.schema;
    let actual = store_tables(engine.store(), schema);
    let acknowledged = reference_tables(reference, schema);
    let mut next = report.in_flight;
    if actual != acknowledged {
        // The mutation in flight may have committed before it was reported.
        let (name, args) = operation(seed, report.in_flight);
        reference.run(name, &args);
        let with_in_flight = reference_tables(reference, schema);
        assert!(
            actual == with_in_flight,
            "after the kill, the database is neither the state after the {} acknowledged mutations nor that plus the one in flight ({name}): a commit was lost or a mutation torn. Against the acknowledged state: {}",
            report.committed.len(),
            first_difference(&actual, &acknowledged)
        );
        totals.unacknowledged_present += 1;
        next += 1;
    }
    sound(engine, compilation, reference, totals, rng);
    next
}

/// Checks the reopened database where the level may lose the last
/// acknowledged commits: the reference's tables after some prefix of the
/// reported mutations (the one in flight included, whole), none torn; then
/// [`sound`]. `reference` holds the state before the round, and is left at
/// the prefix found. Returns how many acknowledged commits were lost.
fn verify_prefix(
    engine: &Engine,
    compilation: &Compilation,
    reference: &mut Reference<'_>,
    report: &Report,
    seed: u64,
    totals: &mut Totals,
    rng: &mut Rng,
) -> usize {
    let schema = &compilation.program.schema;
    let actual = store_tables(engine.store(), schema);
    let before = reference_tables(reference, schema);
    let stream: Vec<i64> = report
        .committed
        .iter()
        .copied()
        .chain([report.in_flight])
        .collect();
    let mut kept = (actual == before).then_some(0);
    for (n, &i) in stream.iter().enumerate() {
        if kept.is_some() {
            break;
        }
        let (name, args) = operation(seed, i);
        reference.run(name, &args);
        if actual == reference_tables(reference, schema) {
            kept = Some(n + 1);
        }
    }
    let Some(kept) = kept else {
        panic!(
            "after the kill, the database is the state after no prefix of the {} acknowledged mutations (and the one in flight): a mutation torn or a commit reordered. Against the state before the round: {}",
            report.committed.len(),
            first_difference(&actual, &before)
        );
    };
    sound(engine, compilation, reference, totals, rng);
    report.committed.len().saturating_sub(kept)
}

/// `verify` (as `rqc verify` runs it) finds nothing; indexes and counters
/// equal to the rows; queries answering as the reference.
fn sound(
    engine: &Engine,
    compilation: &Compilation,
    reference: &mut Reference<'_>,
    totals: &mut Totals,
    rng: &mut Rng,
) {
    let schema = &compilation.program.schema;
    let verified = engine
        .verify()
        .unwrap_or_else(|e| panic!("verify after the kill: {e}"));
    assert!(
        verified.problems.is_empty(),
        "verify after the kill: {:?}",
        verified.problems
    );
    if let Err(problem) = check_integrity(engine.store(), schema) {
        panic!("after the kill: {problem}");
    }
    for (name, args) in query_calls(&compilation.program.entries, rng) {
        let output = engine
            .run(&name, &args)
            .unwrap_or_else(|e| panic!("{name}({args:?}) after the kill: {e}"));
        assert_eq!(
            output.value,
            reference.run(&name, &args),
            "{name}({args:?}) after the kill"
        );
        assert!(
            output.stats.seeks <= output.bound.seeks && output.stats.rows <= output.bound.rows,
            "{name}({args:?}) read past its bound"
        );
        totals.queries += 1;
    }
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

/// Loads the setup once per backend into `dir` (durably, then closed), and
/// returns the reference's tables after it.
fn prepare_setup(
    dir: &Path,
    backend: Backend,
    compilation: &Compilation,
) -> HashMap<String, Vec<Value>> {
    let engine = Engine::open(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .map(|mut engine| {
        engine.install(compilation.program.clone()).unwrap();
        engine
    })
    .unwrap();
    let mut reference = Reference::new(&compilation.checked);
    for (name, args) in setup() {
        engine
            .run(name, &args)
            .unwrap_or_else(|e| panic!("setup {name}({args:?}): {e}"));
        reference.run(name, &args);
    }
    engine.flush().unwrap();
    reference.tables
}

#[test]
fn acknowledged_commits_survive_sigkill_and_nothing_is_torn() {
    if std::env::var("RQC_CRASH_DIR").is_ok() {
        return; // the child runs `crash_child` only
    }
    let rounds: usize = std::env::var("RQC_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // `RQC_CRASH_BACKEND=sled` (or `redb`, `lmdb`) runs one backend only,
    // `RQC_CRASH_DURABILITY=normal` (or `full`, `none`) one level.
    let only = std::env::var("RQC_CRASH_BACKEND").ok();
    let only_level = std::env::var("RQC_CRASH_DURABILITY").ok();
    let compilation = program();
    for backend in Backend::ON_DISK {
        if only.as_deref().is_some_and(|b| b != backend.name()) {
            continue;
        }
        let scratch = tempfile::tempdir().unwrap();
        let template = scratch.path().join("setup");
        let initial = prepare_setup(&template, backend, &compilation);
        for level in Durability::ALL {
            if only_level.as_deref().is_some_and(|l| l != level.name()) {
                continue;
            }
            let dir = scratch.path().join(level.name());
            let child = Child {
                dir: &dir,
                backend,
                level,
            };
            crash_rounds(&child, &template, &initial, &compilation, rounds);
        }
    }
}

/// `rounds` kills of a child writing at `child.level`, each followed by
/// the checks its level promises.
fn crash_rounds(
    child: &Child<'_>,
    template: &Path,
    initial: &HashMap<String, Vec<Value>>,
    compilation: &Compilation,
    rounds: usize,
) {
    let (backend, level) = (child.backend, child.level);
    let name = format!("{} at {}", backend.name(), level.name());
    let keeps = keeps_acknowledged(backend, level);
    let mut rng = Rng::new(0x2545_F491);
    let mut totals = Totals::default();
    let mut reference = Reference::new(&compilation.checked);
    let (mut next, mut seed) = (0, 0);
    for round in 0..rounds {
        if round % ROUNDS_PER_DATABASE == 0 {
            let _ = std::fs::remove_dir_all(child.dir);
            copy_dir(template, child.dir);
            reference.tables = initial.clone();
            (next, seed) = (0, rng.next_u64());
        }
        let wait = 5 + rng.below(150) as u64;
        let report = crash_round(child, next, seed, wait);
        totals.acknowledged += report.committed.len();
        let engine = open_engine(child.dir, backend, compilation);
        if keeps {
            for &i in &report.committed {
                let (name, args) = operation(seed, i);
                reference.run(name, &args);
            }
            next = verify(
                &engine,
                compilation,
                &mut reference,
                &report,
                seed,
                &mut totals,
                &mut rng,
            );
        } else {
            let lost = verify_prefix(
                &engine,
                compilation,
                &mut reference,
                &report,
                seed,
                &mut totals,
                &mut rng,
            );
            if backend == Backend::Redb {
                // redb keeps a `Durability::None` commit in the process
                // until a durable one follows, and none does: so the
                // level reached redb.
                assert_eq!(
                    lost,
                    report.committed.len(),
                    "{name}: a commit survived the kill without a durable one after it"
                );
            }
            totals.lost += lost;
            next = report.in_flight + 1;
        }
        drop(engine);
        if (round + 1) % 100 == 0 || round + 1 == rounds {
            eprintln!(
                "{name}: {} rounds, {} acknowledged commits ({}), {} committed unacknowledged, 0 torn, verify clean, indexes and counters consistent, {} query answers equal to the reference",
                round + 1,
                totals.acknowledged,
                if keeps {
                    "all present".to_string()
                } else {
                    format!("{} lost to the kill, as this level allows", totals.lost)
                },
                totals.unacknowledged_present,
                totals.queries
            );
        }
    }
    assert!(
        totals.acknowledged > 0,
        "{name}: the child committed nothing before its kills"
    );
}

/// The checks the crash test relies on catch what a crash could leave: a
/// row without its index entries and counters (half a mutation), and a
/// missing committed row.
#[test]
fn the_checks_catch_half_a_mutation() {
    if std::env::var("RQC_CRASH_DIR").is_ok() {
        return;
    }
    let compilation = program();
    let schema = &compilation.program.schema;
    let mut engine = Engine::in_memory();
    engine.install(compilation.program.clone()).unwrap();
    let mut reference = Reference::new(&compilation.checked);
    for (name, args) in setup() {
        engine.run(name, &args).unwrap();
        reference.run(name, &args);
    }
    assert_eq!(
        store_tables(engine.store(), schema),
        reference_tables(&reference, schema)
    );
    assert_eq!(check_integrity(engine.store(), schema), Ok(()));
    // Delete one order line's row only, as a torn write would leave it.
    let tree = engine
        .store()
        .tree(&rqc_runtime::rows::table_tree("OrderLine"));
    let (key, _) = engine
        .store()
        .begin_read()
        .unwrap()
        .range(tree, &[], None, false, 1)
        .unwrap()
        .remove(0);
    let mut txn = engine.store().begin_write().unwrap();
    txn.delete(tree, &key).unwrap();
    txn.commit().unwrap();
    assert_ne!(
        store_tables(engine.store(), schema),
        reference_tables(&reference, schema),
        "a lost row is seen"
    );
    let problem = check_integrity(engine.store(), schema).unwrap_err();
    assert!(
        problem.contains("OrderLine"),
        "the dangling index entry or counter is named: {problem}"
    );
}
