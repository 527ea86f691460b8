//! The engine: an open store with an installed program, running entries by name.

use crate::bound::{bind_entry, Access, Tables};
use crate::catalog;
pub use crate::entry_args::{check_args, find_entry};
use crate::error::{Result, RuntimeError};
use crate::group::Group;
use crate::live::{Hub, Logging};
use crate::open::open_store;
pub use crate::open::{Backend, Durability, OpenOptions};
use crate::plan_format::{self, Origin};
use crate::session::Session;
use crate::store::{MemoryStore, Store, Tree, WriteTxn};
use rqc_plan::{CompiledProgram, Entry, EntryKind, Schema, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

// Running a transaction again after a conflict lives below, in
// `backoff`; these names stay for the crates above.
pub(crate) use crate::backoff::retrying;
pub use crate::backoff::{retrying_as, MAX_ATTEMPTS};
// Evaluating a plan in a session lives in `evaluate`; these names stay
// for the callers that reach it through the engine.
use crate::evaluate::committing;
pub(crate) use crate::evaluate::{evaluate, evaluate_in, evaluate_paged, within_round_trips};
// What a run returns lives in `output`.
pub use crate::output::{Output, Stats};

/// Isolation is the store's: a query reads inside one read transaction, a
/// mutation reads, checks and writes inside one write transaction, and the
/// backend keeps them apart (see `store`), so the engine holds no lock.
pub struct Engine {
    /// Shared with the live watcher, which reads while the engine runs.
    store: Arc<dyn Store>,
    /// The installed program bound to the store, or why none can run
    /// (E0514 before one is installed, E0513 when the catalog's is of an
    /// older plan format). Shared with the live subscriptions made under it.
    installed: Result<Arc<Installed>>,
    /// The live subscriptions and their watcher (started by the first).
    live: Arc<Hub>,
    /// Mutations of concurrent threads sharing commits, where the store
    /// groups them (see [`Store::groups_commits`]).
    group: Group<GroupedCall>,
    /// Whether a plan run without being installed is verified first
    /// (always, but for the tests of the run's own backstops).
    verifies_lines: bool,
}

/// A mutation queued for a shared commit (`crate::group`), owned: its
/// entry point (the installed program's own, or a REPL line's copy) and
/// its checked arguments. The leader runs it with its own engine, the one
/// the group belongs to.
pub(crate) struct GroupedCall {
    entry: Arc<Entry>,
    args: Vec<Value>,
}

/// An installed program, bound to the store: its tables' trees, and what
/// each entry point's operators access, resolved once.
pub(crate) struct Installed {
    pub(crate) program: CompiledProgram,
    pub(crate) bound: Tables,
    /// By entry point, in the order of `program.entries`.
    pub(crate) accesses: Vec<Vec<Access>>,
    /// The name of every tree a run writes, for the live changelog.
    pub(crate) names: HashMap<Tree, String>,
    /// The catalog's tree, and the schema generation the program was
    /// installed or opened at: every commit of a run expects it (E0550).
    pub(crate) catalog: Tree,
    pub(crate) generation: Vec<u8>,
    /// The changelog position of the install that wrote this program
    /// (`catalog::installed_at`): a live subscription planned under it
    /// is planned again once the catalog holds another (spec/live.md).
    pub(crate) installed_at: u64,
    /// The last read snapshot whose catalog was found to hold
    /// `generation` (`ReadTxn::snapshot`, plus one; 0: none yet): a run
    /// reading that snapshot again need not read the catalog again
    /// (`stale_schema.rs`).
    pub(crate) generation_seen: std::sync::atomic::AtomicU64,
}

impl Installed {
    /// `entry`'s position among the program's entry points, when it is one
    /// of them (the same plan, not an equal copy: a plan built elsewhere is
    /// bound on its own).
    fn position(&self, entry: &Entry) -> Option<usize> {
        self.program
            .entries
            .iter()
            .position(|e| std::ptr::eq(&**e, entry))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // The watcher holds the store: it stops before the store closes.
        self.live.shutdown();
    }
}

impl Engine {
    /// Opens the database in `dir` (created when missing) with the
    /// backend it records (see [`OpenOptions::backend`]).
    pub fn open(dir: &Path, options: OpenOptions) -> Result<Engine> {
        let (_, store) = open_store(dir, options)?;
        Engine::with_store_in(store, Some(dir))
    }

    /// Connects to the database on etcd at `url`
    /// (`etcd://host:port,host:port/prefix`), making it when the prefix is
    /// empty. Its entries are checksummed like an on-disk store's.
    #[cfg(feature = "etcd")]
    pub fn connect(url: &str, options: &crate::store::EtcdOptions) -> Result<Engine> {
        let store = crate::store::EtcdStore::connect(url, options)?;
        Engine::with_store(Box::new(crate::store::Checked::unchained(Box::new(store))))
    }

    /// An engine over any store (a remote one, or a test double), running
    /// the program its catalog holds, if any: a database answers without
    /// the program's sources. A catalog written by a newer rqc is refused
    /// (E0512 for its storage, E0516 for its program); an older program
    /// opens but does not run until one is installed again (E0513).
    pub fn with_store(store: Box<dyn Store>) -> Result<Engine> {
        Engine::with_store_in(store, None)
    }

    /// As [`Engine::with_store`], for a store whose files are in `dir`
    /// (live subscriptions then hear of other processes' writes at once).
    fn with_store_in(store: Box<dyn Store>, dir: Option<&Path>) -> Result<Engine> {
        let catalog = catalog::catalog(store.as_ref());
        // The catalog is read in a transaction of its own, retried: on
        // LMDB, a read that meets a tree another process just made starts over.
        let (held, _) = retrying(|| {
            let txn = store.begin_read()?;
            catalog::check_format(txn.as_ref(), catalog)?;
            catalog::check_finished(txn.as_ref(), catalog)?;
            let generation = catalog::generation(txn.as_ref(), catalog)?;
            let at = catalog::installed_at(txn.as_ref(), catalog)?;
            match catalog::installed_program(txn.as_ref(), catalog) {
                Ok(program) => Ok(Ok(program.map(|p| (p, generation, at)))),
                Err(older) if older.code == "E0513" => Ok(Err(older)),
                Err(refused) => Err(refused),
            }
        })?;
        let installed = match held {
            Ok(Some((program, generation, at))) => {
                bind(store.as_ref(), program, generation, at).map(Arc::new)
            }
            Ok(None) => Err(not_installed()),
            Err(older) => Err(older),
        };
        let store: Arc<dyn Store> = Arc::from(store);
        let live = Arc::new(Hub::new(Arc::clone(&store), dir));
        if let Ok(installed) = &installed {
            live.installed(installed);
        }
        Ok(Engine {
            store,
            installed,
            live,
            group: Group::default(),
            verifies_lines: true,
        })
    }

    /// Runs plans not installed without verifying them first, so that a
    /// test can hand the run a plan that claims less than it reads and
    /// see the run's own meters stop it (E0546, E0599): the backstop
    /// behind the verifier. Only for those tests.
    #[cfg(feature = "backstop-tests")]
    #[doc(hidden)]
    pub fn skip_verifying_lines(&mut self) {
        self.verifies_lines = false;
    }

    pub fn in_memory() -> Engine {
        Engine::with_store(Box::new(MemoryStore::new()))
            .expect("an empty store has no format or program to refuse")
    }

    /// Installs a compiled program: it goes into the catalog with its
    /// schema, migrating the stored one (see [`catalog::install`]), and its
    /// plans become runnable.
    pub fn install(&mut self, program: CompiledProgram) -> Result<()> {
        self.install_dropping(program, &[])
    }

    /// Installs a program that drops what the installed schema declares:
    /// each drop is named in `drops` as [`catalog::dropped`] names it
    /// (`table:T`, `index:T.name`, `bound:T(a)`, `max:T`, `aggregate:name`, `length:T.column`); any other drop
    /// is refused with E0519.
    pub fn install_dropping(&mut self, program: CompiledProgram, drops: &[String]) -> Result<()> {
        plan_format::check_version(program.format_version, Origin::Given)?;
        plan_format::check_depth(&program, Origin::Given)?;
        // A program may come from a file anyone could edit: verified whole
        // before anything of it is bound or written (spec/cost.md §12).
        crate::verifier::verify(&program)?;
        self.check_limits(&program)?;
        // Bound first: a program that cannot be leaves the catalog as it was.
        let mut installed = bind(self.store.as_ref(), program, Vec::new(), 0)?;
        let installation = catalog::install(self.store.as_ref(), &installed.program, drops)?;
        installed.generation = installation.generation;
        installed.installed_at = installation.position;
        let installed = Arc::new(installed);
        // Live subscriptions are planned again under it (spec/live.md).
        self.live.installed(&installed);
        self.installed = Ok(installed);
        Ok(())
    }

    /// On a store of limited transactions (etcd), every mutation of
    /// `program` must be proved to fit them (E0570, E0577).
    fn check_limits(&self, program: &CompiledProgram) -> Result<()> {
        if let Some(limit) = self.store.max_txn_ops() {
            crate::commit_limit::check(program, limit)?;
        }
        if let Some(limit) = self.store.request_limit() {
            crate::commit_limit::check_request_bytes(program, limit)?;
        }
        Ok(())
    }

    pub fn program(&self) -> Option<&CompiledProgram> {
        self.installed.as_ref().ok().map(|i| &i.program)
    }

    /// The installed program (E0514 before one is).
    pub(crate) fn installed(&self) -> Result<&CompiledProgram> {
        Ok(&self.bound_program()?.program)
    }

    pub(crate) fn bound_program(&self) -> Result<&Installed> {
        self.installed.as_deref().map_err(Clone::clone)
    }

    /// The live subscriptions of this database.
    pub(crate) fn live(&self) -> &Arc<Hub> {
        &self.live
    }

    /// The installed program, shared, and `entry`'s position in it when
    /// it is one of its entry points (for a subscription, which outlives
    /// a borrow of the engine).
    pub(crate) fn bound_installed(&self, entry: &Entry) -> Result<(Arc<Installed>, Option<usize>)> {
        let installed = self.installed.as_ref().map_err(Clone::clone)?;
        Ok((Arc::clone(installed), installed.position(entry)))
    }

    /// A write transaction whose commit records its writes in the live
    /// changelog (and wakes the watcher).
    pub(crate) fn write_session(&self) -> Result<Session<'_>> {
        Ok(self.write_session_in(self.store.begin_write()?))
    }

    /// A session for a bulk load: its transaction is the store's
    /// [`Store::begin_load`].
    pub(crate) fn load_session(&self) -> Result<Session<'_>> {
        Ok(self.write_session_in(self.store.begin_load()?))
    }

    /// As [`Engine::write_session`], in a write transaction begun elsewhere.
    fn write_session_in<'s>(&'s self, txn: Box<dyn WriteTxn + 's>) -> Session<'s> {
        let mut session = Session::write_in(self.store(), txn);
        if let Ok(installed) = &self.installed {
            session.live.log_to(Logging {
                tree: self.live.log_tree(),
                compact: self.live.compact_log(),
                names: &installed.names,
                wake: &*self.live.wake,
            });
            session
                .expects
                .generation(installed.catalog, &installed.generation);
        }
        session
    }

    /// The tables, and what `entry`'s operators access: bound at install for
    /// an installed entry point, now for another (a plan built by hand).
    pub(crate) fn bound_entry(
        &self,
        entry: &Entry,
    ) -> Result<(&Tables, std::borrow::Cow<'_, [Access]>)> {
        let installed = self.bound_program()?;
        let accesses = match installed.position(entry) {
            Some(i) => std::borrow::Cow::Borrowed(installed.accesses[i].as_slice()),
            None => {
                // Compiled beside the installed program, not installed (a
                // REPL line, a watch): its plan is verified as an install
                // verifies a program's, so no plan runs unproved.
                if self.verifies_lines {
                    crate::verifier::verify(&CompiledProgram {
                        format_version: rqc_plan::FORMAT_VERSION,
                        schema: self.installed()?.schema.clone(),
                        entries: vec![Arc::new(entry.clone())],
                    })?;
                }
                std::borrow::Cow::Owned(bind_entry(&installed.bound, entry)?)
            }
        };
        Ok((&installed.bound, accesses))
    }

    /// A mutation that is not installed (the REPL's own lines) is held to
    /// the store's limits when it runs, as an installed one is at install.
    pub(crate) fn check_unbound(&self, entry: &Entry) -> Result<()> {
        let installed = self.bound_program()?.position(entry).is_some();
        if entry.kind == EntryKind::Mutation && !installed {
            self.check_limits(&CompiledProgram {
                format_version: rqc_plan::FORMAT_VERSION,
                schema: self.installed()?.schema.clone(),
                entries: vec![Arc::new(entry.clone())],
            })?;
        }
        Ok(())
    }

    /// The installed tables, bound to the store.
    pub(crate) fn bound(&self) -> Result<&Tables> {
        Ok(&self.bound_program()?.bound)
    }

    /// The entry point called `name` (or `module.name`).
    pub fn entry(&self, name: &str) -> Result<&Entry> {
        find_entry(self.installed()?, name)
    }

    /// Runs an entry after checking the arguments against its parameters.
    pub fn run(&self, name: &str, args: &[Value]) -> Result<Output> {
        let entry = self.entry(name)?;
        self.run_entry(entry, args)
    }

    pub fn run_entry(&self, entry: &Entry, args: &[Value]) -> Result<Output> {
        self.execute(entry, args, true)
    }

    /// Runs an entry to measure it: a mutation's writes are checked and
    /// counted, then discarded.
    pub fn analyze(&self, entry: &Entry, args: &[Value]) -> Result<Output> {
        self.execute(entry, args, false)
    }

    fn execute(&self, entry: &Entry, args: &[Value], commit: bool) -> Result<Output> {
        let args = &check_args(entry, args)?[..];
        let (bound, accesses) = self.bound_entry(entry)?;
        self.check_unbound(entry)?;
        let accesses = accesses.as_ref();
        let store = self.store.as_ref();
        if entry.kind == EntryKind::Query {
            // A read conflicts only where the store must start it again (an
            // LMDB tree another process created meanwhile).
            // A query proved to read nothing computes from its arguments
            // alone, so a handle another process's install left behind
            // may still run it (the REPL's constant arguments).
            let reads = entry.bound.seeks > 0 || entry.bound.rows > 0;
            let (mut output, attempts) = retrying(|| {
                let mut session = Session::read(store)?;
                if reads {
                    self.same_schema(session.reads())?;
                }
                Ok(evaluate_in(bound, accesses, entry, args, &mut session, !commit, None)?.0)
            })
            .map_err(|e| self.explained(e))?;
            output.attempts = attempts;
            return Ok(output);
        }
        if commit && store.groups_commits() {
            let entry = match self.bound_program()?.position(entry) {
                Some(i) => Arc::clone(&self.bound_program()?.program.entries[i]),
                None => Arc::new(entry.clone()),
            };
            let (mut output, attempts) =
                retrying(|| self.grouped(&entry, args)).map_err(|e| self.explained(e))?;
            output.attempts = attempts;
            return Ok(output);
        }
        // A mutation's reads, checks and writes are one write transaction,
        // run again from scratch when its commit conflicts.
        let resent = crate::store::resent_commits();
        let (mut output, attempts) = retrying(|| {
            let session = self.write_session()?;
            self.same_schema(session.reads())?;
            let (mut output, mut session) =
                evaluate(bound, accesses, entry, args, session, !commit)?;
            if commit {
                committing(&entry.name, &mut output, &mut session)?;
                session.commit()?;
            }
            Ok(output)
        })
        .map_err(|e| self.explained(e))?;
        // The runs, and the commits sent again within any of them.
        output.attempts = attempts + crate::store::resent_since(resent);
        Ok(output)
    }

    /// One attempt of a mutation in a commit shared with the mutations
    /// other threads run meanwhile (`crate::group`): its reads, checks and
    /// writes run in the group's transaction, after the mutations before
    /// it, and it returns once that transaction is committed.
    fn grouped(&self, entry: &Arc<Entry>, args: &[Value]) -> Result<Output> {
        let call = GroupedCall {
            entry: Arc::clone(entry),
            args: args.to_vec(),
        };
        let output = self.group.run(self.store(), self, call)?;
        // The session woke the watcher before the shared commit was done.
        self.live.wake.notify();
        Ok(output)
    }

    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Marks the database unfinished while a restore fills it in place,
    /// or finished once it has: meanwhile every other open refuses it
    /// (E0682), so that a restore that stops midway leaves no database
    /// that passes for the dump's.
    pub fn mark_unfinished(&self, unfinished: bool) -> Result<()> {
        catalog::mark_unfinished(self.store(), unfinished)
    }

    /// Checks the whole database against its schema (see [`crate::verify`]).
    pub fn verify(&self) -> Result<crate::verify::Verification> {
        crate::verify::verify(self.store(), &self.schema()?)
    }

    /// Every readable row, past damage (see [`crate::dump`]).
    pub fn dump(&self) -> Result<crate::dump::Dump> {
        crate::dump::dump(self.store(), &self.schema()?)
    }

    /// Every readable row, past damage, handed to `each` a chunk at a time
    /// (see [`crate::dump::dump_each`]).
    pub fn dump_each(
        &self,
        each: &mut dyn FnMut(crate::dump::Dumped<'_>) -> Result<()>,
    ) -> Result<()> {
        crate::dump::dump_each(self.store(), &self.schema()?, each)
    }

    /// Moves `table`'s generated key counter to `at_least` when it is
    /// below (`restore` carries a dump's counters; it never goes back).
    /// One write transaction.
    pub fn raise_key_counter(&self, table: &str, at_least: u64) -> Result<()> {
        let schema = self.schema()?;
        if !schema.table(table).is_some_and(|t| t.auto) {
            return Err(crate::error::RuntimeError::new(
                "E0661",
                format!("`{table}` has no generated key (`key auto`), so no counter to carry"),
                "carry counters only for tables declared `id: Int key auto` in the program",
            ));
        }
        crate::backoff::retrying(|| {
            let mut session = self.write_session()?;
            let tree = session.tree(&crate::rows::auto_tree(table));
            let counter = session.get_counter(tree, b"")?;
            session.set_counter(tree, b"", counter.max(at_least))?;
            session.commit()?;
            Ok(())
        })
        .map(|_| ())
    }

    /// The installed schema: the program's, or the catalog's when the
    /// program is of an older plan format (E0514 when none is installed).
    pub(crate) fn schema(&self) -> Result<Schema> {
        if let Some(program) = self.program() {
            return Ok(program.schema.clone());
        }
        let catalog = catalog::catalog(self.store());
        retrying(|| catalog::installed_schema(self.store.begin_read()?.as_ref(), catalog))?
            .0
            .ok_or_else(not_installed)
    }

    pub fn flush(&self) -> Result<()> {
        self.store.flush()
    }
}

/// `program` bound to `store`'s trees, each entry point's accesses
/// resolved; installed at `generation` and changelog position `installed_at`.
pub(crate) fn bind(
    store: &dyn Store,
    program: CompiledProgram,
    generation: Vec<u8>,
    installed_at: u64,
) -> Result<Installed> {
    let bound = Tables::new(store, &program.schema);
    let names = tree_names(store, &program.schema);
    let accesses = program
        .entries
        .iter()
        .map(|entry| bind_entry(&bound, entry))
        .collect::<Result<_>>()?;
    Ok(Installed {
        program,
        bound,
        accesses,
        names,
        catalog: catalog::catalog(store),
        generation,
        installed_at,
        generation_seen: Default::default(),
    })
}

/// Every tree a run of `schema` writes, by handle: its tables' rows,
/// indexes, counters, reference counts and aggregates (whose writes a live
/// query reading the aggregate hears of, spec/live.md).
fn tree_names(store: &dyn Store, schema: &Schema) -> HashMap<Tree, String> {
    use crate::rows::{auto_tree, bound_tree, index_tree, refcount_tree, small_tree, table_tree};
    let mut names = Vec::new();
    for table in &schema.tables {
        let name = &table.name;
        names.push(table_tree(name));
        names.extend(table.indexes.iter().map(|i| index_tree(name, &i.name)));
        names.extend((0..table.bounds.len()).map(|i| bound_tree(name, i)));
        names.push(small_tree(name));
        names.push(auto_tree(name));
        names.push(refcount_tree(name));
        names.extend(
            table
                .aggregates
                .iter()
                .map(|a| crate::rows::aggregate_tree(name, &a.name)),
        );
    }
    names
        .into_iter()
        .map(|name| (store.tree(&name), name))
        .collect()
}

fn not_installed() -> RuntimeError {
    RuntimeError::new(
        "E0514",
        "no program is installed in this database",
        "install one first: `rqc run --db DIR PROGRAM NAME …` or `--plan FILE`, or `Database::install_paths` when embedding",
    )
}

impl crate::group::Runs<GroupedCall> for Engine {
    /// A queued mutation, run by the group's leader in the shared
    /// transaction, as it would have run alone.
    fn run(&self, call: &mut GroupedCall, txn: Box<dyn WriteTxn + '_>) -> Result<Output> {
        let (bound, accesses) = self.bound_entry(&call.entry)?;
        let session = self.write_session_in(txn);
        self.same_schema(session.reads())?;
        let (mut output, mut session) =
            evaluate(bound, &accesses, &call.entry, &call.args, session, false)?;
        committing(&call.entry.name, &mut output, &mut session)?;
        session.commit()?;
        Ok(output)
    }
}
