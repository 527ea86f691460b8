//! Fault injection: a store that fails its N-th operation. For every N over
//! a set of mutations, the failure reaches the caller as an error with a
//! code, nothing partial is visible, and the data stays consistent. And a
//! store whose commits conflict: the engine runs the mutation again, up to
//! its cap.

use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::store::{ReadTxn, Store, Tree, WriteTxn};
use rqc_runtime::{Backend, Durability, Engine, OpenOptions, Result, RuntimeError};
use rqc_tests::state::check_integrity;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Fails the operation numbered `fail_at` (counting every get, range, put,
/// delete and commit of its transactions), once.
struct Faulty {
    inner: Arc<dyn Store>,
    /// Operations counted since armed; `usize::MAX` while not armed.
    count: Arc<AtomicUsize>,
    fail_at: usize,
    /// Commits still to refuse as conflicting, as an optimistic store
    /// would, before commits go through; and commits attempted.
    conflicts: Arc<AtomicUsize>,
    commits: Arc<AtomicUsize>,
}

impl Faulty {
    fn new(inner: Arc<dyn Store>, count: Arc<AtomicUsize>, fail_at: usize) -> Faulty {
        Faulty {
            inner,
            count,
            fail_at,
            conflicts: Arc::new(AtomicUsize::new(0)),
            commits: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A commit attempted: a conflict while any are left to inject.
    fn conflict(&self) -> Result<()> {
        self.commits.fetch_add(1, Ordering::SeqCst);
        let left = self.conflicts.load(Ordering::SeqCst);
        if left > 0 {
            self.conflicts.store(left - 1, Ordering::SeqCst);
            return Err(RuntimeError::conflict("injected conflict"));
        }
        Ok(())
    }

    /// Counts one operation: an error if it is the one to fail.
    fn tick(&self) -> Result<()> {
        let before = self.count.load(Ordering::SeqCst);
        if before != usize::MAX && self.count.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at {
            return Err(RuntimeError::store("injected fault"));
        }
        Ok(())
    }
}

/// A transaction of the wrapped store, failing where its store says.
struct FaultyTxn<'s, T: ?Sized> {
    inner: Box<T>,
    store: &'s Faulty,
}

impl<T: ReadTxn + ?Sized> ReadTxn for FaultyTxn<'_, T> {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.store.tick()?;
        self.inner.get(tree, key)
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.store.tick()?;
        self.inner.get_many(tree, keys)
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.store.tick()?;
        self.inner.range(tree, start, end, reverse, limit)
    }
}

impl<T: WriteTxn + ?Sized> WriteTxn for FaultyTxn<'_, T> {
    fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        // The transaction has written part of its batch: it must not show.
        self.store.tick()?;
        self.inner.put(tree, key, value)
    }

    fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.store.tick()?;
        self.inner.delete(tree, key)
    }

    fn commit(self: Box<Self>) -> Result<()> {
        // Failing here drops the inner transaction uncommitted.
        self.store.tick()?;
        self.store.conflict()?;
        self.inner.commit()
    }
}

impl Store for Faulty {
    fn tree(&self, name: &str) -> Tree {
        self.inner.tree(name)
    }

    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        Ok(Box::new(FaultyTxn {
            inner: self.inner.begin_read()?,
            store: self,
        }))
    }

    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        Ok(Box::new(FaultyTxn {
            inner: self.inner.begin_write()?,
            store: self,
        }))
    }

    fn flush(&self) -> Result<()> {
        self.inner.flush()
    }
}

/// The program: the fixtures' teams and members, at most 4 members a
/// team, and the definitions below.
fn program() -> String {
    rqc_tests::fixtures::teams(4) + REST
}

const REST: &str = "
mutation add_team(id: Int, name: String) = insert Team { id, name }
mutation pair(team: Int, a: Int, b: Int) = {
  insert Member { team, id: a, nick: \"a\" + name_of(a) };
  insert Member { team, id: b, nick: \"b\" + name_of(b) }
}
fn name_of(x: Int) = if x > 0 { \"p\" } else { \"n\" }
mutation rename(id: Int, nick: String) = update Member[id] { nick: nick }
mutation drop(id: Int) = delete Member[id]
query members(team: Int) = Member.by_team[team]
query member(id: Int) = Member[id]
";

/// Every tree's entries, by tree name.
type Trees = Vec<(String, Vec<(Vec<u8>, Vec<u8>)>)>;

fn dump(store: &dyn Store) -> Trees {
    let txn = store.begin_read().unwrap();
    rqc_tests::fixtures::TEAM_TREES
        .iter()
        .map(|t| {
            (
                t.to_string(),
                txn.range(store.tree(t), &[], None, false, usize::MAX)
                    .unwrap(),
            )
        })
        .collect()
}

/// A fresh store of `backend` in `dir` (memory ignores it).
fn open_store(backend: Backend, dir: &Path) -> Arc<dyn Store> {
    let options = OpenOptions {
        durability: Durability::None,
        ..OpenOptions::default()
    };
    Arc::from(backend.open_store(dir, &options).unwrap())
}

#[test]
fn a_failure_at_any_operation_leaves_nothing_partial_on_every_backend() {
    for backend in Backend::ALL {
        let failures = inject_everywhere(backend);
        assert!(
            failures > 20,
            "{backend:?}: faults were injected at {failures} points"
        );
    }
}

/// Fails each operation of a sequence of mutations in turn; returns how many
/// runs failed.
fn inject_everywhere(backend: Backend) -> usize {
    let compilation = compile(&[("teams.rq".into(), program())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let steps: Vec<(&str, Vec<Value>)> = vec![
        ("pair", vec![1.into(), 10.into(), 11.into()]),
        ("rename", vec![10.into(), "zed".into()]),
        ("drop", vec![11.into()]),
        ("pair", vec![1.into(), 12.into(), 13.into()]),
    ];
    let mut failures = 0;
    for fail_at in 1..200 {
        let dir = tempfile::tempdir().unwrap();
        let mut inner = open_store(backend, dir.path());
        // Set up without faults.
        let count = Arc::new(AtomicUsize::new(usize::MAX));
        let mut engine =
            Engine::with_store(Box::new(Faulty::new(inner.clone(), count.clone(), fail_at)))
                .unwrap();
        engine.install(compilation.program.clone()).unwrap();
        engine.run("add_team", &[1.into(), "red".into()]).unwrap();
        count.store(0, Ordering::SeqCst);
        let mut failed = false;
        for (name, args) in &steps {
            let before = dump(inner.as_ref());
            match engine.run(name, args) {
                Ok(_) => {}
                Err(error) => {
                    assert_eq!(
                        error.code, "E0590",
                        "{backend:?}: the fault reaches the caller as a storage error: {error}"
                    );
                    assert_eq!(
                        before,
                        dump(inner.as_ref()),
                        "{backend:?}, fail_at {fail_at}: `{name}` left part of its writes"
                    );
                    failed = true;
                    failures += 1;
                    break;
                }
            }
        }
        // Reopened without faults, the data is consistent: every index
        // entry matches a row, every counter its rows.
        drop(engine);
        if backend != Backend::Memory {
            drop(inner);
            inner = open_store(backend, dir.path());
        }
        let unarmed = Arc::new(AtomicUsize::new(usize::MAX));
        let mut clean =
            Engine::with_store(Box::new(Faulty::new(inner.clone(), unarmed, fail_at))).unwrap();
        clean.install(compilation.program.clone()).unwrap();
        let members = clean.run("members", &[1.into()]).unwrap().rows().to_vec();
        let rows = inner
            .begin_read()
            .unwrap()
            .range(inner.tree("t:Member"), &[], None, false, usize::MAX)
            .unwrap();
        assert_eq!(members.len(), rows.len(), "the index matches the table");
        let integrity = check_integrity(inner.as_ref(), &compilation.program.schema);
        assert_eq!(integrity, Ok(()), "{backend:?}, fail_at {fail_at}");
        if !failed {
            break; // every operation of the steps has had its turn to fail
        }
    }
    failures
}

#[test]
fn a_conflicting_commit_runs_the_whole_transaction_again_up_to_the_cap() {
    let compilation = compile(&[("teams.rq".into(), program())]);
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let inner = open_store(backend, dir.path());
        let unarmed = Arc::new(AtomicUsize::new(usize::MAX));
        let store = Faulty::new(inner.clone(), unarmed, 0);
        let (conflicts, commits) = (store.conflicts.clone(), store.commits.clone());
        let mut engine = Engine::with_store(Box::new(store)).unwrap();
        // The install and a load are transactions too.
        conflicts.store(2, Ordering::SeqCst);
        engine.install(compilation.program.clone()).unwrap();
        conflicts.store(1, Ordering::SeqCst);
        let row = |id: i64, name: &str| (id as usize, Ok(vec![id.into(), name.into()]));
        let loaded = engine
            .load(
                "Team",
                &mut vec![row(1, "red"), row(2, "blue")],
                &mut |_| {},
            )
            .unwrap();
        assert_eq!((loaded.written, loaded.rejected.len()), (2, 0));
        // Three conflicts: the fourth attempt commits, once, within the
        // bound (each attempt starts from scratch).
        conflicts.store(3, Ordering::SeqCst);
        commits.store(0, Ordering::SeqCst);
        let output = engine
            .run("pair", &[1.into(), 10.into(), 11.into()])
            .unwrap();
        assert_eq!((output.attempts, commits.load(Ordering::SeqCst)), (4, 4));
        assert!(output.stats.seeks <= output.bound.seeks);
        assert_eq!(engine.run("members", &[1.into()]).unwrap().rows().len(), 2);
        // Conflicts without end: given up after the cap, nothing written.
        conflicts.store(usize::MAX, Ordering::SeqCst);
        commits.store(0, Ordering::SeqCst);
        let before = dump(inner.as_ref());
        // (Negative ids: nicks other than the first pair's.)
        let error = engine
            .run("pair", &[1.into(), (-12).into(), (-13).into()])
            .unwrap_err();
        assert_eq!(error.code, "E0596", "{backend:?}: {error}");
        assert_eq!(
            commits.load(Ordering::SeqCst),
            rqc_runtime::engine::MAX_ATTEMPTS as usize
        );
        assert_eq!(before, dump(inner.as_ref()), "{backend:?}");
        conflicts.store(0, Ordering::SeqCst);
        let integrity = check_integrity(inner.as_ref(), &compilation.program.schema);
        assert_eq!(integrity, Ok(()), "{backend:?}");
    }
}
