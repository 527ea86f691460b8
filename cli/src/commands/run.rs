//! `rqc run` and `rqc explain`: install a program (sources or a plan file) into a database, execute or show a plan.

use super::args::parse_args;
use super::connection::Access;
use super::durability::DurabilityArg;
use super::report::{note_errors, report_error, run_summary};
use super::Status;
use clap::{Args, ValueEnum};
use rqc::{
    compile_installable, read_plan, read_program, Backend, Database, Durability, Error,
    Installable, OpenOptions,
};
use rqc_compiler::plan::explain as explain_plan;
use rqc_plan::EntryKind;
use rqc_runtime::engine::find_entry;
use rqc_runtime::store::DEFAULT_WAIT;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--store`: the backend of a new database (an existing one opens with
/// its own; naming another is refused with E0515).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreChoice {
    /// LMDB (the default): readers in any process run beside one writer.
    Lmdb,
    /// redb: a copy-on-write B-tree, each commit fsynced.
    Redb,
    /// sled 0.34: an embedded B-tree database.
    Sled,
    /// In memory: nothing is kept after the command ends.
    Memory,
}

impl StoreChoice {
    pub fn backend(self) -> Backend {
        match self {
            StoreChoice::Lmdb => Backend::Lmdb,
            StoreChoice::Redb => Backend::Redb,
            StoreChoice::Sled => Backend::Sled,
            StoreChoice::Memory => Backend::Memory,
        }
    }
}

/// The options `--store`, `--wait` and `--durability` give.
pub fn open_options(
    store: Option<StoreChoice>,
    wait: Duration,
    durability: Durability,
) -> OpenOptions {
    OpenOptions {
        backend: store.map(StoreChoice::backend),
        wait,
        durability,
    }
}

/// `--wait`: `5s`, `250ms`, `2m`, or seconds (`1.5`).
pub fn parse_wait(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let scale = match unit {
        "ms" => Some(0.001),
        "s" => Some(1.0),
        "m" => Some(60.0),
        _ => None,
    };
    match (number.trim().parse::<f64>(), scale) {
        (Ok(n), Some(scale)) if n >= 0.0 && (n * scale).is_finite() => {
            Ok(Duration::from_secs_f64(n * scale))
        }
        _ => Err(format!(
            "`{text}` is not a duration: write e.g. `5s`, `250ms` or `2m`"
        )),
    }
}

#[derive(Args)]
pub struct RunArgs {
    /// The database directory; or a database on etcd,
    /// etcd://HOST:PORT[,HOST:PORT...]/PREFIX (see --ca, --user). A
    /// mutation with PROGRAM creates it if missing (and says so); a query
    /// only reads, and refuses a missing one (E0608).
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend of a new database (an existing one opens with
    /// its own).
    #[arg(long = "store", value_enum)]
    store: Option<StoreChoice>,
    /// How long a write waits while another process writes the database,
    /// before it gives up (exit status 75): `5s`, `250ms`, `2m`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_wait)]
    wait: Duration,
    #[command(flatten)]
    durability: DurabilityArg,
    /// The program to install first (`.rq` files or directories of them,
    /// as many as `check` takes), then the query or mutation to run (`name`
    /// or `module.name`; none with --batch). Without a program or --plan,
    /// the program the database holds runs.
    #[arg(value_name = "PROGRAM... NAME", required_unless_present = "batch")]
    words: Vec<String>,
    /// A compiled program to install first, as `rqc compile -o` wrote it.
    #[arg(long, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// Let the program drop this table, index, bound or max of the
    /// database's schema, named as the refusal (E0519) names it:
    /// `table:T`, `index:T.name`, `bound:T(a)`, `max:T`, `aggregate:name`, `length:T.column`;
    /// or rename or drop a column of a table that holds rows:
    /// `rename:T.old=new`, `drop:T.column`. Repeat for each.
    #[arg(long, value_name = "WHAT")]
    migrate: Vec<String>,
    /// An argument as `name=value`; repeat for each parameter. An optional
    /// one takes `none`; a list is JSON, `ids='[1, 2]'`, and a list of
    /// records JSON objects, `rows='[{"id": 1, "name": "a"}]'`.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
    /// Run a pageable query (a stream in index order limited by `take`)
    /// as its first page, and print the token of the next on stderr.
    #[arg(long, conflicts_with = "page_token")]
    page: bool,
    /// Run the page after the one that printed this token: the same query
    /// and arguments, from where that page ended. The token carries the
    /// arguments; any --arg given must match them.
    #[arg(long, value_name = "TOKEN")]
    page_token: Option<String>,
    /// Run the calls of FILE in one transaction, all or nothing: one JSON
    /// object a line, `{"entry": NAME, "args": {"id": 1, …}}`. The first
    /// refusal names its line and nothing commits; after the commit, one
    /// JSON result a call is printed. `-` reads the calls from stdin.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["args", "page", "page_token"])]
    batch: Option<PathBuf>,
}

impl RunArgs {
    /// The program's sources and the entry point's name, from the
    /// positional words: the name is the last, unless --batch names the
    /// calls. A program and --plan at once is a usage error.
    fn program_and_name(&self) -> Result<(Vec<PathBuf>, Option<&str>), clap::Error> {
        let (program, name) = match (&self.batch, self.words.split_last()) {
            (None, Some((name, program))) => (program, Some(name.as_str())),
            _ => (&self.words[..], None),
        };
        if self.plan.is_some() && !program.is_empty() {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                "the argument '--plan <FILE>' cannot be used with '[PROGRAM]...'\n",
            ));
        }
        Ok((program.iter().map(PathBuf::from).collect(), name))
    }
}

#[derive(Args)]
pub struct ExplainArgs {
    /// The program: `.rq` files or directories, as many as `check` takes.
    #[arg(value_name = "FILE|DIR", required = true, num_args = 1..)]
    program: Vec<PathBuf>,
    /// The query or mutation to explain.
    #[arg(value_name = "NAME")]
    name: String,
    /// Run it against --db and show the seeks and rows each operator
    /// actually read beside its bound (a mutation's writes are discarded).
    #[arg(long, requires = "db")]
    analyze: bool,
    /// The database directory for --analyze.
    #[arg(long, value_name = "DIR")]
    db: Option<PathBuf>,
    /// The storage backend the database of --analyze is of (it opens with
    /// its own; naming another is refused). --analyze only reads: a
    /// missing database is refused (E0608), never created.
    #[arg(long = "store", value_enum)]
    store: Option<StoreChoice>,
    /// An argument as `name=value`, for --analyze (`none`, and JSON for
    /// lists and lists of records, as `rqc run` takes them).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
}

pub fn run(args: RunArgs) -> Status {
    let (program, name) = match args.program_and_name() {
        Ok(split) => split,
        Err(usage) => usage.exit(),
    };
    let done = match name {
        Some(name) => run_inner(&args, &program, name),
        None => super::batch::run(&super::batch::Batch {
            db: &args.db,
            options: open_options(args.store, args.wait, args.durability.level()),
            sources: &program,
            plan: args.plan.as_deref(),
            migrate: &args.migrate,
            calls: args.batch.as_deref().unwrap_or(Path::new("-")),
        }),
    };
    match done {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

/// Compiles the program by the library's installation rule (see
/// `rqc::install`) and finds the entry point in it: other definitions'
/// errors do not stop an accepted entry (a note counts them); a program
/// whose shape is unsound, or an entry that was rejected, is refused with
/// the diagnostics.
pub(super) fn compile_entry(program: &[PathBuf], name: &str) -> Result<Installable, Error> {
    let files = read_program(program)?;
    let installable = compile_installable(&files)?;
    if let Err(missing) = find_entry(&installable.program, name) {
        return Err(if installable.report.is_rejected(name) {
            installable.report.into_error()
        } else {
            missing.into()
        });
    }
    note_errors(
        &installable.report,
        &format!("`{name}` is accepted and runs"),
    );
    Ok(installable)
}

/// Compiles a program to install by the library's installation rule,
/// with no entry point to find (`--batch` names its calls in a file).
pub(super) fn compile_program(program: &[PathBuf]) -> Result<rqc::CompiledProgram, Error> {
    let files = read_program(program)?;
    let installable = compile_installable(&files)?;
    note_errors(
        &installable.report,
        "its accepted queries and mutations are installed",
    );
    Ok(installable.program)
}

pub(super) fn open(
    db: &Path,
    store: Option<StoreChoice>,
    wait: Duration,
    durability: Durability,
    access: Access,
) -> Result<Database, Error> {
    super::connection::open(db, open_options(store, wait, durability), access)
}

fn run_inner(args: &RunArgs, sources: &[PathBuf], name: &str) -> Result<Status, Error> {
    // An entry point's name is an identifier, read in normal form C.
    let name = &crate::json_text::name(name);
    // The program is compiled, or the plan read, before the database is
    // opened: one that cannot install, or lacks the entry point, leaves the
    // database as it was.
    let program = match (sources, &args.plan) {
        ([], Some(plan)) => {
            let program = read_plan(plan)?;
            find_entry(&program, name)?;
            Some(program)
        }
        ([], None) => None,
        (sources, _) => Some(compile_entry(sources, name)?.program),
    };
    // Only a mutation may create the database; a query reads one.
    let writes = program
        .as_ref()
        .and_then(|p| p.entry(name))
        .is_some_and(|e| e.kind == EntryKind::Mutation);
    let access = if writes { Access::Write } else { Access::Read };
    let ran = super::connection::reopening_when_stale(program, |program| {
        run_once(args, program, name, access)
    })?;
    let Ran {
        entry,
        output,
        token,
        paged_with,
    } = ran;
    let entry = &entry;
    match entry.kind {
        EntryKind::Query => {
            for row in output.rows() {
                println!("{}", row.to_json());
            }
        }
        EntryKind::Mutation => println!("{}", output.value.to_json()),
    }
    eprintln!(
        "{}",
        run_summary(&output, entry.kind == EntryKind::Mutation)
    );
    if let Some(token) = token {
        let hint = super::page::hint(&args.db, entry, &paged_with, token.as_deref());
        eprintln!("{hint}");
    }
    Ok(Status::Clean)
}

/// One run's entry point, answer, page token and the arguments a next
/// page is asked with.
struct Ran {
    entry: rqc::Entry,
    output: rqc::Output,
    token: Option<Option<String>>,
    paged_with: Vec<rqc::Value>,
}

/// Opens the database, installs `program` when given, and runs the
/// request once.
fn run_once(
    args: &RunArgs,
    program: Option<rqc::CompiledProgram>,
    name: &str,
    access: Access,
) -> Result<Ran, Error> {
    let mut db = open(
        &args.db,
        args.store,
        args.wait,
        args.durability.level(),
        access,
    )?;
    if let Some(program) = program {
        db.install_dropping(program, &args.migrate)?;
    }
    let prepared = db.prepare(name)?;
    let entry = prepared.entry();
    let mut paged_with = Vec::new();
    let (output, token) = match (&args.page_token, args.page) {
        (Some(token), _) => {
            paged_with = super::page::arguments(&prepared, token, &args.args)?;
            let page = prepared.next_page(token)?;
            (page.output, Some(page.token))
        }
        (None, true) => {
            paged_with = parse_args(entry, &args.args)?;
            let page = prepared.run_page(&paged_with)?;
            (page.output, Some(page.token))
        }
        (None, false) => (prepared.run(&parse_args(entry, &args.args)?)?, None),
    };
    Ok(Ran {
        entry: entry.clone(),
        output,
        token,
        paged_with,
    })
}

pub fn explain(args: ExplainArgs) -> Status {
    match explain_inner(&args) {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

fn explain_inner(args: &ExplainArgs) -> Result<Status, Error> {
    let Installable { program, .. } = compile_entry(&args.program, &args.name)?;
    let entry = find_entry(&program, &args.name)?.clone();
    let (true, Some(dir)) = (args.analyze, &args.db) else {
        print!("{}", explain_plan(&entry, &program.schema));
        print!("{}", rqc_compiler::plan::listens(&entry, &program.schema));
        return Ok(Status::Clean);
    };
    let schema = program.schema.clone();
    // --analyze discards its writes: no level to choose.
    let mut db = open(
        dir,
        args.store,
        DEFAULT_WAIT,
        Durability::default(),
        Access::Read,
    )?;
    db.install(program)?;
    let values = parse_args(&entry, &args.args)?;
    let output = db.analyze(&args.name, &values)?;
    // On a store whose requests hold a limited number of reads, each
    // operator is held to its widened bound: shown as held.
    let mut entry = entry;
    let limit = db.max_txn_ops();
    entry.root.walk_mut(&mut |node| {
        node.bound = node.bound.map(|b| rqc_runtime::widened(b, limit));
    });
    print!(
        "{}",
        rqc_compiler::plan::explain_with(&entry, &schema, Some(&output.operators))
    );
    println!(
        "actual: seeks {} of {} · rows {} of {} · round trips {} of {}",
        output.stats.seeks,
        output.bound.seeks,
        output.stats.rows,
        output.bound.rows,
        output.stats.round_trips,
        output.bound.round_trips
    );
    Ok(Status::Clean)
}
