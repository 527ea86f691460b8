//! The embedding API: open a database, install a program, run its entry points.

use crate::error::Error;
use crate::install::{compile_installable, names, Installable, Installed};
use crate::prepared::Prepared;
use crate::sources::{read_plan, read_program};
use crate::transaction::Transaction;
use rqc_plan::{CompiledProgram, Entry, Value};
use rqc_runtime::dump::{Dump, Dumped};
use rqc_runtime::live::{Subscription, WatchOptions};
use rqc_runtime::page::Page;
#[cfg(feature = "etcd")]
pub use rqc_runtime::store::EtcdOptions;
use rqc_runtime::upgrade::Upgraded;
use rqc_runtime::verify::Verification;
pub use rqc_runtime::{Backend, Durability, OpenOptions, Output};
use rqc_runtime::{Converted, Engine, LoadReport, LoadRows, RowSource};
use std::path::{Path, PathBuf};

/// An open rqc database with (once installed) a program to run.
///
/// The installed program — schema and plans — is kept in the database, so
/// a database opened again runs it without its sources. Installing from
/// sources follows the rule in [`crate::install`]: a program whose shape
/// is sound installs its accepted queries and mutations, and the rejected
/// ones' diagnostics come back as warnings in [`Installed`].
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let mut db = rqc::Database::open(dir.path()).unwrap();
/// db.install_source("app.rq", "
///     table Item { id: Int key  name: String }
///     mutation add(id: Int, name: String) = insert Item { id: id, name: name }
///     query item(id: Int) = Item[id]
/// ").unwrap();
/// db.run("add", &[7.into(), "lamp".into()]).unwrap();
/// drop(db);
///
/// // Opened again, the database runs the program it holds.
/// let db = rqc::Database::open(dir.path()).unwrap();
/// let found = db.run("item", &[7.into()]).unwrap();
/// assert_eq!(found.rows()[0].field("name"), Some(&"lamp".into()));
/// ```
pub struct Database {
    pub(crate) engine: Engine,
    /// The queries and mutations the last installation from sources left
    /// out as rejected, so that asking for one says so.
    rejected: Vec<String>,
}

impl Database {
    /// Opens (or creates) the database in `dir` with the default options:
    /// the LMDB backend for a new database (an existing one opens with its
    /// own), every commit durable before it returns. The
    /// program installed in it, if any, is ready to run.
    pub fn open(dir: impl AsRef<Path>) -> Result<Database, Error> {
        Database::open_with(dir, OpenOptions::default())
    }

    /// Opens (or creates) the database in `dir` with `options`: the backend
    /// of a new database, its durability level, how long a writer waits
    /// for another.
    pub fn open_with(dir: impl AsRef<Path>, options: OpenOptions) -> Result<Database, Error> {
        Ok(Database::with_engine(Engine::open(dir.as_ref(), options)?))
    }

    /// Connects to (or creates) the database on etcd at `url`:
    /// `etcd://host:port[,host:port...]/prefix`, every member of the
    /// cluster (the client fails over among them) and the key prefix that
    /// holds the database, so several share one cluster. Without TLS or a
    /// user; see [`Database::connect_with`].
    #[cfg(feature = "etcd")]
    pub fn connect(url: &str) -> Result<Database, Error> {
        Database::connect_with(url, &EtcdOptions::default())
    }

    /// Connects to the database on etcd at `url` with TLS files and a
    /// user (see [`EtcdOptions`]). Unreachable members (E0561), a wrong
    /// password (E0562) and a user without rights on the prefix (E0563)
    /// are refused before anything is written.
    #[cfg(feature = "etcd")]
    pub fn connect_with(url: &str, options: &EtcdOptions) -> Result<Database, Error> {
        Ok(Database::with_engine(Engine::connect(url, options)?))
    }

    /// A database that lives in memory only.
    pub fn in_memory() -> Database {
        Database::with_engine(Engine::in_memory())
    }

    fn with_engine(engine: Engine) -> Database {
        Database {
            engine,
            rejected: Vec::new(),
        }
    }

    /// Compiles one source text and installs it (see [`Database::install_files`]).
    pub fn install_source(&mut self, name: &str, text: &str) -> Result<Installed, Error> {
        self.install_files(&[(name.to_string(), text.to_string())])
    }

    /// Compiles the `.rq` files and directories at `paths` and installs
    /// them (see [`Database::install_files`]).
    pub fn install_paths(&mut self, paths: &[PathBuf]) -> Result<Installed, Error> {
        let files = read_program(paths)?;
        self.install_files(&files)
    }

    /// Compiles `(file name, text)` pairs as one program and installs it.
    /// A program whose shape (syntax, schema, modules, imports) is unsound
    /// is [`Error::Compile`] and changes nothing; otherwise its accepted
    /// queries and mutations are installed and the rejected definitions'
    /// diagnostics are returned as warnings. The schema is migrated as
    /// [`Database::install`] says.
    pub fn install_files(&mut self, files: &[(String, String)]) -> Result<Installed, Error> {
        let Installable { program, report } = compile_installable(files)?;
        self.install(program)?;
        self.rejected.clone_from(&report.rejected);
        Ok(report)
    }

    /// Installs an already compiled program, in one transaction: it is kept
    /// in the database with its schema, and a changed schema is migrated
    /// when every change is safe (new tables, indexes and bounds are built
    /// and verified, bounds loosened, columns added optional or with a
    /// default) or refused whole: E0510 for a change of stored rows, E0519
    /// for a drop (see [`Database::install_dropping`]). A program of
    /// another plan format is refused (E0513). spec/storage.md lists the
    /// rules.
    pub fn install(&mut self, program: CompiledProgram) -> Result<(), Error> {
        self.install_dropping(program, &[])
    }

    /// Installs a program that drops tables, indexes, bounds or `max`es the
    /// database's schema declares, each named in `drops` as E0519's help
    /// names it: `table:T`, `index:T.name`, `bound:T(a, b)`, `max:T`, `aggregate:name`, `length:T.column`; and renames or drops columns named `rename:T.old=new` and `drop:T.column` (a drop is refused, E0528, while an index, bound, aggregate, reference or the key uses the column).
    pub fn install_dropping(
        &mut self,
        program: CompiledProgram,
        drops: &[String],
    ) -> Result<(), Error> {
        self.engine.install_dropping(program, drops)?;
        self.rejected.clear();
        Ok(())
    }

    /// Installs a plan file written by `rqc compile -o`, as
    /// [`Database::install`] does. A file of another plan format is refused
    /// with E0513 (compile it again with this rqc), one that is not a
    /// compiled program with E0517.
    pub fn install_plan(&mut self, path: impl AsRef<Path>) -> Result<(), Error> {
        let program = read_plan(path.as_ref())?;
        self.install(program)
    }

    /// Runs a query or mutation by name with positional arguments.
    pub fn run(&self, name: &str, args: &[Value]) -> Result<Output, Error> {
        Ok(self.engine.run_entry(self.entry(name)?, args)?)
    }

    /// Runs an entry point compiled against the installed program's schema
    /// but not installed (the REPL's expressions): it must come from the
    /// compiler, and is held to its bounds like any other.
    pub fn run_entry(&self, entry: &Entry, args: &[Value]) -> Result<Output, Error> {
        Ok(self.engine.run_entry(entry, args)?)
    }

    /// The first page of a pageable entry point compiled against the
    /// installed program but not installed (the REPL's `:page`), as
    /// [`Prepared::run_page`] gives it.
    pub fn run_page_entry(&self, entry: &Entry, args: &[Value]) -> Result<Page, Error> {
        Ok(self.engine.run_page(entry, args)?)
    }

    /// The page after the one whose token this is, of an entry point
    /// compiled as for [`Database::run_page_entry`] (the REPL's `:next`).
    pub fn next_page_entry(&self, entry: &Entry, token: &str) -> Result<Page, Error> {
        Ok(self.engine.next_page(entry, token)?)
    }

    /// Subscribes to an entry point compiled against the installed
    /// program but not installed, as [`Prepared::subscribe_with`] does.
    /// With no text to compile again, it goes on across an install only
    /// when the schema stays the same, and ends with E0589 otherwise
    /// ([`Database::subscribe_recompiled`] follows any install).
    pub fn subscribe_entry(
        &self,
        entry: &Entry,
        args: &[Value],
        options: WatchOptions,
    ) -> Result<Subscription, Error> {
        Ok(self.engine.subscribe(entry, args, options)?)
    }

    /// Subscribes to an entry point compiled from a text against the
    /// installed program (an expression, as the REPL's `:watch EXPR`), as
    /// [`Database::subscribe_entry`]; when a program is installed after it
    /// (by this process or another), `recompile` compiles the text again
    /// against the new program, and the subscription runs what it gives
    /// (or ends with E0589 and the reason it returns; spec/live.md).
    pub fn subscribe_recompiled(
        &self,
        entry: &Entry,
        args: &[Value],
        options: WatchOptions,
        recompile: impl Fn(&CompiledProgram) -> Result<Entry, String> + Send + Sync + 'static,
    ) -> Result<Subscription, Error> {
        Ok(self.engine.subscribe_recompiled(
            entry,
            args,
            options,
            std::sync::Arc::new(recompile),
        )?)
    }

    /// Live subscriptions, the index of their read ranges, and the
    /// watcher's work so far (its evaluations, and the time its looks at
    /// new commits took): what the live benchmark reports.
    pub fn live_stats(&self) -> rqc_runtime::live::LiveStats {
        self.engine.live_stats()
    }

    /// The position of the last commit (0 before any): what a live
    /// event's `position` counts.
    pub fn position(&self) -> Result<u64, Error> {
        Ok(self.engine.position()?)
    }

    /// Loads plain rows (each the table's columns, in their declared order)
    /// into `table` as one transaction: all of them, or — when any is
    /// refused — none, with every refusal reported by its position (from
    /// 1). [`Database::load_from`] streams rows from a source instead.
    pub fn load(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = Vec<Value>>,
    ) -> Result<LoadReport, Error> {
        let mut rows: LoadRows = rows
            .into_iter()
            .enumerate()
            .map(|(i, row)| (i + 1, Ok(row)))
            .collect();
        self.load_from(table, &mut rows, &mut |_| {})
    }

    /// Loads rows into `table` as [`Database::load`] does, read one at a
    /// time from `source` (a source of your own streams a file of any
    /// size; [`LoadRows`] holds rows in memory), the refusals reported by
    /// the line `source` gives each, and `progress` told the rows read.
    pub fn load_from(
        &self,
        table: &str,
        source: &mut dyn RowSource,
        progress: &mut dyn FnMut(usize),
    ) -> Result<LoadReport, Error> {
        Ok(self.engine.load(table, source, progress)?)
    }

    /// The most reads one request of the store holds, when it has a limit
    /// (etcd's `--max-txn-ops` as the database recorded it): a plan's
    /// round-trip bounds there are widened by it ([`rqc_runtime::widened`]).
    pub fn max_txn_ops(&self) -> Option<u64> {
        self.engine.store().max_txn_ops().map(|l| l as u64)
    }

    /// Runs an entry point to measure it, per operator; a mutation's writes
    /// are discarded.
    pub fn analyze(&self, name: &str, args: &[Value]) -> Result<Output, Error> {
        Ok(self.engine.analyze(self.entry(name)?, args)?)
    }

    /// Runs `body` in one transaction, all or nothing: the calls it makes
    /// through its [`Transaction`] see each other's writes, each is held to
    /// its own bound, and when it returns `Ok` every write of every call is
    /// stored at once, with one commit (one sync); an error (of a call, or
    /// the body's own) stores nothing. A commit that conflicts with another
    /// writer's runs `body` again from the start, so it should do nothing
    /// outside the transaction.
    ///
    /// ```
    /// # let mut db = rqc::Database::in_memory();
    /// db.install_source("app.rq", "
    ///     table Item { id: Int key  stock: Int }
    ///     mutation add(id: Int, stock: Int) = insert Item { id, stock }
    ///     mutation take(id: Int, n: Int) = update Item[id] { stock -= n }
    ///     query stock(id: Int) = Item[id] |> map(i => i.stock)
    /// ").unwrap();
    /// let left = db.transaction(|tx| {
    ///     tx.prepare("add")?.run(&[1.into(), 10.into()])?;
    ///     tx.prepare("take")?.run(&[1.into(), 3.into()])?;
    ///     // A query in the transaction sees its earlier writes.
    ///     Ok(tx.prepare("stock")?.run(&[1.into()])?.value)
    /// }).unwrap();
    /// assert_eq!(left, rqc::Value::Int(7));
    ///
    /// // A refusal anywhere stores nothing of the transaction.
    /// let refused = db.transaction(|tx| {
    ///     tx.run("take", &[1.into(), 2.into()])?;
    ///     tx.run("add", &[1.into(), 5.into()]) // the key is taken: E0501
    /// });
    /// assert_eq!(refused.unwrap_err().code(), "E0501");
    /// assert_eq!(db.run("stock", &[1.into()]).unwrap().value, rqc::Value::Int(7));
    /// ```
    pub fn transaction<T>(
        &self,
        mut body: impl FnMut(&Transaction<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let (value, _) = rqc_runtime::engine::retrying_as(|| {
            let transaction = self.begin()?;
            let value = body(&transaction)?;
            transaction.commit()?;
            Ok::<T, Error>(value)
        })?;
        Ok(value)
    }

    /// Begins one attempt of a transaction, for a caller that cannot hand
    /// the calls over as one body (the REPL's `:begin`): it stores nothing
    /// unless [`Transaction::commit`] is called, and a conflict at the
    /// commit (E0595) is the caller's to answer. [`Database::transaction`]
    /// retries on its own.
    pub fn begin(&self) -> Result<Transaction<'_>, Error> {
        Ok(Transaction::new(self, self.engine.begin()?))
    }

    /// Looks an entry point up once, to run it many times.
    pub fn prepare(&self, name: &str) -> Result<Prepared<'_>, Error> {
        let entry = self.entry(name)?;
        Ok(Prepared { db: self, entry })
    }

    /// Checks the whole database: every entry's checksum, every row's key,
    /// every index against its table, every counter against its rows,
    /// every reference against its target (see `rqc verify`).
    pub fn verify(&self) -> Result<Verification, Error> {
        Ok(self.engine.verify()?)
    }

    /// Brings a database an older rqc wrote to what this one writes, in
    /// one transaction (see `rqc upgrade`): every stored `-0.0` rewritten
    /// as `0.0`, with the index entries, counters and aggregates its rows
    /// decide. Refused with E0553–E0555, naming the keys and writing
    /// nothing, where the rows could not all stand once the two zeros are
    /// one value.
    pub fn upgrade(&self) -> Result<Upgraded, Error> {
        Ok(self.engine.upgrade()?)
    }

    /// Moves the database in `dir` into this rqc's storage layout before it
    /// is opened (`rqc upgrade`'s first step): an LMDB database of storage
    /// format 3, which [`Database::open`] refuses (E0518), into format 4,
    /// in one transaction, every entry as it was. What it moved; nothing
    /// for a database in this layout already or of another backend. Then
    /// open it and run [`Database::upgrade`], and [`Database::verify`].
    pub fn upgrade_layout(dir: impl AsRef<Path>, options: OpenOptions) -> Result<Converted, Error> {
        Ok(rqc_runtime::upgrade_layout(dir.as_ref(), options)?)
    }

    /// Every row that is still readable, table by table, and what could not
    /// be read (see `rqc dump`).
    pub fn dump(&self) -> Result<Dump, Error> {
        Ok(self.engine.dump()?)
    }

    /// Every row that is still readable, handed to `each` in order (each
    /// table, its rows, its key counter) a chunk of entries read at a
    /// time, so memory does not grow with the tables; what could not be
    /// read comes as [`Dumped::Problem`]. An error of `each` stops it.
    pub fn dump_each(
        &self,
        mut each: impl FnMut(Dumped<'_>) -> Result<(), rqc_runtime::RuntimeError>,
    ) -> Result<(), Error> {
        Ok(self.engine.dump_each(&mut each)?)
    }

    /// Moves `table`'s generated key counter (`key auto`) up to `at_least`
    /// when it is below; it never goes back. `rqc restore` carries a dump's
    /// counters with it, so a key deleted before the dump is not reused.
    pub fn raise_key_counter(&self, table: &str, at_least: u64) -> Result<(), Error> {
        Ok(self.engine.raise_key_counter(table, at_least)?)
    }

    /// Marks the database unfinished while a restore fills it (`rqc
    /// restore` does, from before its install to after its last row), or
    /// finished: meanwhile every other open refuses it with E0682, so a
    /// restore that stops midway leaves no database that passes for the
    /// dump's.
    pub fn mark_unfinished(&self, unfinished: bool) -> Result<(), Error> {
        Ok(self.engine.mark_unfinished(unfinished)?)
    }

    /// The installed program, if one runs.
    pub fn program(&self) -> Option<&CompiledProgram> {
        self.engine.program()
    }

    /// The entry point `name`; when the last installation rejected it, the
    /// error says so rather than that there is no such name.
    pub(crate) fn entry(&self, name: &str) -> Result<&Entry, Error> {
        self.engine.entry(name).map_err(|missing| {
            let rejected = self.rejected.iter().any(|full| names(full, name));
            if missing.code != "E0521" || !rejected {
                return Error::Runtime(missing);
            }
            Error::Runtime(rqc_runtime::RuntimeError::new(
                "E0521",
                format!("`{name}` was rejected when the program was installed, so it cannot run"),
                "the installation's warnings (or `rqc check`) say why; fix it and install the program again",
            ))
        })
    }
}
