//! The engine: an open store with an installed program, running entries by name.

use crate::catalog;
use crate::constraints::fits;
use crate::error::{Result, RuntimeError};
use crate::interp::{Env, Interp};
use crate::session::Session;
use crate::store::{MemoryStore, RedbStore, SledStore, Store};
use rqc_plan::{
    Bound, CompiledProgram, Entry, EntryKind, NodeStats, ParamType, Value, FORMAT_VERSION,
};
use std::path::Path;
use std::sync::RwLock;

/// What a run read: B-tree descents and entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub seeks: u64,
    pub rows: u64,
}

/// The result of running an entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The entry's value.
    pub value: Value,
    /// Rows written (mutations).
    pub written: u64,
    pub stats: Stats,
    pub bound: Bound,
    /// Per operator, by node id (for `explain --analyze`).
    pub operators: Vec<NodeStats>,
}

impl Output {
    /// The value as rows: a list's items, a found row, nothing for none.
    pub fn rows(&self) -> &[Value] {
        match &self.value {
            Value::List(items) => items,
            Value::Null => &[],
            other => std::slice::from_ref(other),
        }
    }
}

/// Which store backs the database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// redb: a copy-on-write B-tree; with flush on commit, each commit is
    /// fsynced before it returns. The default (see the README's measurements).
    #[default]
    Redb,
    /// sled 0.34: flushes with `sync_file_range`, which is no full barrier
    /// against power loss.
    Sled,
    /// Nothing is written to disk; for tests.
    Memory,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Redb => "redb",
            Backend::Sled => "sled",
            Backend::Memory => "memory",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    pub backend: Backend,
    /// Flush every commit before acknowledging it (the default), or leave
    /// flushing to the backend's background thread.
    pub flush_on_commit: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            backend: Backend::default(),
            flush_on_commit: true,
        }
    }
}

pub struct Engine {
    store: Box<dyn Store>,
    program: Option<CompiledProgram>,
    /// Mutations run one at a time: each reads, checks and writes as if
    /// alone, then commits atomically. Writers hold it exclusively (one
    /// mutation or load at a time); queries that cannot read a snapshot hold
    /// it shared, so they never read half of a commit.
    write_lock: RwLock<()>,
}

impl Engine {
    pub fn open(dir: &Path, options: OpenOptions) -> Result<Engine> {
        let store: Box<dyn Store> = match options.backend {
            Backend::Memory => Box::new(MemoryStore::new()),
            Backend::Sled => {
                check_database_dir(dir, options.backend)?;
                Box::new(SledStore::open(dir, options.flush_on_commit)?)
            }
            Backend::Redb => {
                check_database_dir(dir, options.backend)?;
                Box::new(RedbStore::open(dir, options.flush_on_commit)?)
            }
        };
        Engine::with_store(store)
    }

    /// An engine over any store (a remote one, or a test double).
    pub fn with_store(store: Box<dyn Store>) -> Result<Engine> {
        catalog::check_format(store.as_ref())?;
        Ok(Engine {
            store,
            program: None,
            write_lock: RwLock::new(()),
        })
    }

    pub fn in_memory() -> Engine {
        Engine::with_store(Box::new(MemoryStore::new()))
            .expect("an empty store has no format to refuse")
    }

    /// Installs a compiled program: its schema goes into the catalog (see
    /// [`catalog::install`]) and its plans become runnable.
    pub fn install(&mut self, program: CompiledProgram) -> Result<()> {
        if program.format_version != FORMAT_VERSION {
            return Err(RuntimeError::new(
                "E0513",
                format!(
                    "the compiled program has format {}, this rqc runs format {FORMAT_VERSION}",
                    program.format_version
                ),
                "recompile the program with this rqc",
            ));
        }
        catalog::install(self.store.as_ref(), &program.schema)?;
        self.program = Some(program);
        Ok(())
    }

    pub fn program(&self) -> Option<&CompiledProgram> {
        self.program.as_ref()
    }

    /// The installed program (E0514 before one is).
    pub(crate) fn installed(&self) -> Result<&CompiledProgram> {
        self.program.as_ref().ok_or_else(|| {
            RuntimeError::new(
                "E0514",
                "no program is installed",
                "install a program before running it or loading rows",
            )
        })
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
        check_args(entry, args)?;
        let program = self.installed()?;
        // Mutations run alone (locked before their first read); queries
        // that cannot read a snapshot wait for a commit in progress (see
        // `write_lock`).
        let _exclusive = (entry.kind == EntryKind::Mutation).then(|| self.lock_writes());
        let mut interp = Interp::new(&program.schema, args, Session::new(self.store.as_ref()));
        let _shared =
            (entry.kind == EntryKind::Query && !interp.session.reads_a_snapshot()).then(|| {
                self.write_lock
                    .read()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
            });
        let value = interp.value(&entry.root, &Env::new())?;
        let stats = Stats {
            seeks: interp.session.seeks,
            rows: interp.session.rows,
        };
        let operators = std::mem::take(&mut interp.stats);
        let written = interp.session.rows_written();
        if entry.kind == EntryKind::Mutation && commit {
            interp.session.commit()?;
        }
        Ok(Output {
            value,
            written,
            stats,
            bound: entry.bound,
            operators,
        })
    }

    /// Held by every writer: mutations and loads run one at a time.
    pub fn lock_writes(&self) -> std::sync::RwLockWriteGuard<'_, ()> {
        self.write_lock
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    pub fn flush(&self) -> Result<()> {
        self.store.flush()
    }
}

/// The entry point of `program` called `name` (or `module.name`); E0521,
/// listing the entry points, when there is none.
pub fn find_entry<'p>(program: &'p CompiledProgram, name: &str) -> Result<&'p Entry> {
    program.entry(name).ok_or_else(|| {
        let names: Vec<&str> = program.entries.iter().map(|e| e.name.as_str()).collect();
        RuntimeError::new(
            "E0521",
            format!("the program has no query or mutation `{name}`"),
            if names.is_empty() {
                "the program has no accepted entry points; run `rqc check` on it".to_string()
            } else {
                format!("the entry points are: {}", names.join(", "))
            },
        )
    })
}

/// Arguments must match the parameters in number, type and declared bound.
pub fn check_args(entry: &Entry, args: &[Value]) -> Result<()> {
    if args.len() != entry.params.len() {
        let expected: Vec<String> = entry.params.iter().map(ToString::to_string).collect();
        return Err(RuntimeError::new(
            "E0520",
            format!(
                "`{}` takes {} argument{}, {} given",
                entry.name,
                entry.params.len(),
                if entry.params.len() == 1 { "" } else { "s" },
                args.len()
            ),
            format!("its parameters are ({})", expected.join(", ")),
        ));
    }
    for (param, arg) in entry.params.iter().zip(args) {
        let fits_param = match (&param.ty, arg) {
            (ParamType::Scalar(ty), value) => fits(ty, value),
            (ParamType::List(ty), Value::List(items)) => items.iter().all(|i| fits(ty, i)),
            (ParamType::List(_), _) => false,
        };
        if !fits_param {
            return Err(RuntimeError::new(
                "E0520",
                format!(
                    "parameter `{}` is `{}`, but the argument is {arg}",
                    param.name,
                    param.ty.name()
                ),
                format!("pass a `{}` value for `{}`", param.ty.name(), param.name),
            ));
        }
        let size = match arg {
            Value::Int(n) => Some(*n),
            Value::List(items) => Some(items.len() as i64),
            _ => None,
        };
        // `ids: [Int; <= n]`: no longer than the `n` given either.
        let max = match (param.max_param.and_then(|i| args.get(i)), param.max) {
            (Some(Value::Int(n)), Some(max)) => Some(max.min((*n).max(0))),
            (Some(Value::Int(n)), None) => Some((*n).max(0)),
            _ => param.max,
        };
        if let (Some(max), Some(size)) = (max, size) {
            if size > max {
                let what = if matches!(param.ty, ParamType::List(_)) {
                    "holds at most"
                } else {
                    "is declared `<=`"
                };
                return Err(RuntimeError::new(
                    "E0522",
                    format!(
                        "parameter `{}` {what} {max}, and the argument is {}",
                        param.name,
                        if matches!(arg, Value::List(_)) {
                            format!("{size} long")
                        } else {
                            size.to_string()
                        }
                    ),
                    format!("pass a value of at most {max}"),
                ));
            }
        }
    }
    Ok(())
}

/// The file naming a database directory's backend.
const MARKER: &str = "rqc-store";

/// Refuses a path that is a file, a non-empty directory that is not an rqc
/// database, or a database of another backend, before anything is written
/// into it; marks a new database with its backend.
fn check_database_dir(dir: &Path, backend: Backend) -> Result<()> {
    if dir.is_file() {
        return Err(RuntimeError::new(
            "E0511",
            format!("`{}` is a file, not a database directory", dir.display()),
            "give --db a directory (it is created if missing)",
        ));
    }
    let marker = dir.join(MARKER);
    match std::fs::read_to_string(&marker) {
        Ok(found) if found.trim() == backend.name() => return Ok(()),
        Ok(found) => {
            return Err(RuntimeError::new(
                "E0515",
                format!(
                    "`{}` is a {} database, not a {} one",
                    dir.display(),
                    found.trim(),
                    backend.name()
                ),
                format!("open it with `--store {}`", found.trim()),
            ))
        }
        Err(_) => {}
    }
    let is_empty = std::fs::read_dir(dir)
        .map(|mut e| e.next().is_none())
        .unwrap_or(true);
    if !is_empty {
        return Err(RuntimeError::new(
            "E0511",
            format!("`{}` is not an rqc database", dir.display()),
            "give --db an empty or new directory, or one rqc created",
        ));
    }
    std::fs::create_dir_all(dir).map_err(RuntimeError::store)?;
    std::fs::write(&marker, backend.name()).map_err(RuntimeError::store)?;
    Ok(())
}
