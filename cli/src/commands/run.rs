//! `rqc run` and `rqc explain`: install a program (sources or a plan file) into a database, execute or show a plan.

use super::args::parse_args;
use super::report::{note_errors, report_error, run_summary};
use super::Status;
use clap::{Args, ValueEnum};
use rqc::{
    compile_installable, read_plan, read_program, Backend, Database, Error, Installable,
    OpenOptions,
};
use rqc_compiler::plan::explain as explain_plan;
use rqc_plan::EntryKind;
use rqc_runtime::engine::find_entry;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreChoice {
    /// redb: a copy-on-write B-tree, each commit fsynced (the default).
    Redb,
    /// sled 0.34: an embedded B-tree database.
    Sled,
    /// In memory: nothing is kept after the command ends.
    Memory,
}

impl StoreChoice {
    pub fn backend(self) -> Backend {
        match self {
            StoreChoice::Redb => Backend::Redb,
            StoreChoice::Sled => Backend::Sled,
            StoreChoice::Memory => Backend::Memory,
        }
    }
}

#[derive(Args)]
pub struct RunArgs {
    /// The database directory; created if missing.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend.
    #[arg(long = "store", value_enum, default_value_t = StoreChoice::Redb)]
    store: StoreChoice,
    /// The program to install first: `.rq` files or a directory of them.
    /// Without it or --plan, the program the database holds runs.
    #[arg(value_name = "PROGRAM", conflicts_with = "plan")]
    program: Option<PathBuf>,
    /// A compiled program to install first, as `rqc compile -o` wrote it.
    #[arg(long, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// The query or mutation to run (`name` or `module.name`).
    #[arg(value_name = "NAME")]
    name: String,
    /// An argument as `name=value`; repeat for each parameter.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
}

#[derive(Args)]
pub struct ExplainArgs {
    /// The program: `.rq` files or directories.
    #[arg(value_name = "FILE|DIR")]
    program: PathBuf,
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
    /// The storage backend for --analyze.
    #[arg(long = "store", value_enum, default_value_t = StoreChoice::Redb)]
    store: StoreChoice,
    /// An argument as `name=value`, for --analyze.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
}

pub fn run(args: RunArgs) -> Status {
    match run_inner(&args) {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

/// Compiles the program by the library's installation rule (see
/// `rqc::install`) and finds the entry point in it: other definitions'
/// errors do not stop an accepted entry (a note counts them); a program
/// whose shape is unsound, or an entry that was rejected, is refused with
/// the diagnostics.
fn compile_entry(program: &Path, name: &str) -> Result<Installable, Error> {
    let files = read_program(std::slice::from_ref(&program.to_path_buf()))?;
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

fn open(db: &Path, store: StoreChoice) -> Result<Database, Error> {
    Database::open_with(
        db,
        OpenOptions {
            backend: store.backend(),
            ..OpenOptions::default()
        },
    )
}

fn run_inner(args: &RunArgs) -> Result<Status, Error> {
    // The program is compiled, or the plan read, before the database is
    // opened: one that cannot install, or lacks the entry point, leaves the
    // database as it was.
    let program = match (&args.program, &args.plan) {
        (Some(sources), _) => Some(compile_entry(sources, &args.name)?.program),
        (None, Some(plan)) => {
            let program = read_plan(plan)?;
            find_entry(&program, &args.name)?;
            Some(program)
        }
        (None, None) => None,
    };
    let mut db = open(&args.db, args.store)?;
    if let Some(program) = program {
        db.install(program)?;
    }
    let prepared = db.prepare(&args.name)?;
    let entry = prepared.entry();
    let output = prepared.run(&parse_args(entry, &args.args)?)?;
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
    Ok(Status::Clean)
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
        print!("{}", explain_plan(&entry));
        return Ok(Status::Clean);
    };
    let mut db = open(dir, args.store)?;
    db.install(program)?;
    let values = parse_args(&entry, &args.args)?;
    let output = db.analyze(&args.name, &values)?;
    print!(
        "{}",
        rqc_compiler::plan::explain_with(&entry, Some(&output.operators))
    );
    println!(
        "actual: seeks {} of {} · rows {} of {}",
        output.stats.seeks, output.bound.seeks, output.stats.rows, output.bound.rows
    );
    Ok(Status::Clean)
}
