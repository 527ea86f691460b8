//! A load on sled spills its writes into the store in journaled batches
//! (`runtime/src/store/sled_load.rs`): it still commits whole, a refused row
//! after many spilled batches leaves the database as it was, and a process
//! that dies in the middle of a load leaves nothing of it once the database
//! is opened again. Each load here spills every 16 keys, so a few hundred
//! rows make dozens of batches.

use rqc_compiler::{compile, Compilation};
use rqc_plan::Value;
use rqc_runtime::load::{LoadRow, LoadRows, RowSource};
use rqc_runtime::store::{Checked, Durability, SledStore};
use rqc_runtime::{Engine, Result};
use rqc_tests::state::check_integrity;
use std::path::Path;

/// The program: the fixtures' teams and members, at most 4 members a
/// team, and the definitions below.
fn source() -> String {
    rqc_tests::fixtures::teams(4) + REST
}

const REST: &str = "
query members(team: Int) = Member.by_team[team]
";

const TEAMS: i64 = 100;

fn program() -> Compilation {
    let compilation = compile(&[("teams.rq".into(), source())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    compilation
}

/// An engine on a sled store in `dir` whose loads spill every 16 keys, with
/// the program installed.
fn engine(dir: &Path) -> Engine {
    let store = SledStore::open(dir, Durability::Full)
        .unwrap()
        .spill_loads_at(16);
    let mut engine = Engine::with_store(Box::new(Checked::new(Box::new(store)))).unwrap();
    engine.install(program().program).unwrap();
    engine
}

fn team(id: i64) -> LoadRow {
    let row: Vec<Value> = vec![id.into(), format!("team {id}").into()];
    (id as usize, Ok(row))
}

/// Member `id`: of team `id % TEAMS`, nick `m{id}`.
fn member(id: i64) -> LoadRow {
    let row: Vec<Value> = vec![(id % TEAMS).into(), id.into(), format!("m{id}").into()];
    (id as usize, Ok(row))
}

fn load(engine: &Engine, table: &str, rows: &mut dyn RowSource) -> (u64, u64) {
    let report = engine.load(table, rows, &mut |_| {}).unwrap();
    (report.written, report.refused)
}

/// Every entry of the load's trees, as the store holds them.
fn entries(engine: &Engine) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
    let store = engine.store();
    let read = store.begin_read().unwrap();
    rqc_tests::fixtures::TEAM_TREES
        .iter()
        .map(|tree| {
            read.range(store.tree(tree), &[], None, false, usize::MAX)
                .unwrap()
        })
        .collect()
}

fn with_teams(dir: &Path) -> Engine {
    let engine = engine(dir);
    let mut teams: LoadRows = (0..TEAMS).map(team).collect();
    assert_eq!(load(&engine, "Team", &mut teams), (TEAMS as u64, 0));
    engine
}

#[test]
fn a_load_that_spills_commits_every_row_and_index_entry() {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_teams(dir.path());
    let mut members: LoadRows = (0..4 * TEAMS).map(member).collect();
    assert_eq!(load(&engine, "Member", &mut members), (400, 0));
    let loaded = entries(&engine);
    assert_eq!(loaded[1].len(), 400, "every row");
    assert_eq!(loaded[2].len(), 400, "every by_team entry");
    assert_eq!(loaded[3].len(), 400, "every nick entry");
    let team_7 = engine.run("members", &[7.into()]).unwrap();
    assert_eq!(team_7.rows().len(), 4);
    let schema = &engine.program().unwrap().schema;
    assert_eq!(check_integrity(engine.store(), schema), Ok(()));
}

#[test]
fn a_row_refused_after_many_spilled_batches_leaves_the_database_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_teams(dir.path());
    let mut first: LoadRows = (0..TEAMS).map(member).collect();
    assert_eq!(load(&engine, "Member", &mut first), (100, 0));
    let before = entries(&engine);
    // Each refusal comes after hundreds of keys went into sled, and each
    // is refused for a row of the load itself (already spilled): a fifth
    // member of team 0, a nick taken, a key taken.
    let fifth: LoadRow = (9, Ok(vec![0.into(), 9_000.into(), "fifth".into()]));
    let nick: LoadRow = (9, Ok(vec![1.into(), 9_001.into(), "m150".into()]));
    let key: LoadRow = (9, Ok(vec![2.into(), 150.into(), "again".into()]));
    for bad in [fifth, nick, key] {
        let mut rows: LoadRows = (TEAMS..4 * TEAMS).map(member).collect();
        rows.push(bad.clone());
        assert_eq!(load(&engine, "Member", &mut rows), (0, 1), "{bad:?}");
        assert!(entries(&engine) == before, "{bad:?}: the load left writes");
    }
    let schema = &engine.program().unwrap().schema;
    assert_eq!(check_integrity(engine.store(), schema), Ok(()));
    // The same rows, without the bad one, still load.
    let mut rows: LoadRows = (TEAMS..4 * TEAMS).map(member).collect();
    assert_eq!(load(&engine, "Member", &mut rows), (300, 0));
}

/// Rows of members that end the process after `after` rows, once sled has
/// had time to write what the load spilled to disk.
struct DiesMidway {
    after: usize,
}

impl RowSource for DiesMidway {
    fn rows(&mut self) -> Result<Box<dyn Iterator<Item = Result<LoadRow>> + '_>> {
        let after = self.after;
        Ok(Box::new((0..).map(move |i| {
            if i == after {
                // sled writes its log every 500 ms in the background.
                std::thread::sleep(std::time::Duration::from_millis(1_500));
                std::process::exit(0);
            }
            Ok(member(i as i64))
        })))
    }
}

const CHILD: &str = "RQC_SLED_LOAD_CHILD_DIR";

#[test]
fn a_load_cut_short_by_the_process_dying_is_rolled_back_on_opening() {
    if let Ok(dir) = std::env::var(CHILD) {
        let engine = engine(Path::new(&dir));
        engine
            .load("Member", &mut DiesMidway { after: 300 }, &mut |_| {})
            .ok();
        unreachable!("the source ends the process");
    }
    let dir = tempfile::tempdir().unwrap();
    let before = entries(&with_teams(dir.path()));
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_load_cut_short_by_the_process_dying_is_rolled_back_on_opening",
            "--nocapture",
        ])
        .env(CHILD, dir.path())
        .status()
        .unwrap();
    assert!(status.success(), "the child: {status}");
    // What the child left: spilled members, and their journal.
    let raw = raw_sled(dir.path());
    let journal = raw.open_tree("__rqc_load_journal").unwrap();
    let spilled = raw.open_tree("t:Member").unwrap();
    assert!(
        journal.len() > 100 && spilled.len() > 100,
        "the child spilled members before it died: journal {}, rows {}",
        journal.len(),
        spilled.len()
    );
    drop((journal, spilled, raw));
    // Opened again: none of them.
    let engine = engine(dir.path());
    assert!(entries(&engine) == before, "the dead load left writes");
    let schema = &engine.program().unwrap().schema;
    assert_eq!(check_integrity(engine.store(), schema), Ok(()));
    drop(engine);
    let raw = raw_sled(dir.path());
    assert_eq!(raw.open_tree("__rqc_load_journal").unwrap().len(), 0);
}

/// The sled database itself, under no rqc store; sled lets go of its lock a
/// moment after the last handle closes, so opening waits for it.
fn raw_sled(dir: &Path) -> sled::Db {
    for _ in 0..200 {
        if let Ok(db) = sled::open(dir) {
            return db;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("sled at {} stayed locked", dir.display())
}
