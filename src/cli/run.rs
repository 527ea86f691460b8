//! `rqc run` and `rqc explain`: compile, install into a database, execute or show a plan.

use super::args::parse_args;
use super::report::{report_error, run_summary};
use super::Status;
use crate::{read_program, Backend, Database, Error, OpenOptions};
use rqc_runtime::store::DEFAULT_WAIT;
use clap::{Args, ValueEnum};
use rqc_compiler::plan::explain as explain_plan;
use rqc_plan::{Entry, EntryKind};
use std::path::PathBuf;
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

/// The options `--store` and `--wait` give.
pub fn open_options(store: Option<StoreChoice>, wait: Duration) -> OpenOptions {
    OpenOptions {
        backend: store.map(StoreChoice::backend),
        wait,
        ..OpenOptions::default()
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
    /// The database directory; created if missing.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend of a new database (an existing one opens with
    /// its own).
    #[arg(long = "store", value_enum)]
    store: Option<StoreChoice>,
    /// How long a write waits while another process writes the database,
    /// before it gives up (exit status 75): `5s`, `250ms`, `2m`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = super::run::parse_wait)]
    wait: Duration,
    /// The program: `.rq` files or directories.
    #[arg(value_name = "FILE|DIR")]
    program: PathBuf,
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
    /// The storage backend, if --analyze makes a new database.
    #[arg(long = "store", value_enum)]
    store: Option<StoreChoice>,
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

/// Compiles the program and finds the entry point. Other definitions'
/// errors do not stop an accepted entry from running (they are counted in a
/// note); syntax errors, errors in the program's shape (schema, modules,
/// imports) or in the entry itself do.
fn load_entry(
    program: &std::path::Path,
    name: &str,
) -> Result<(rqc_compiler::Compilation, Entry), Error> {
    let files = read_program(std::slice::from_ref(&program.to_path_buf()))?;
    let compilation = rqc_compiler::compile(&files);
    let compile_error = |compilation: rqc_compiler::Compilation| Error::Compile {
        diagnostics: compilation.diagnostics,
        sources: compilation.sources,
    };
    if !compilation.checked.shape_sound {
        return Err(compile_error(compilation));
    }
    let entry = match rqc_runtime::engine::find_entry(&compilation.program, name) {
        Ok(entry) => entry.clone(),
        // Not accepted: its diagnostics say why.
        Err(_) if compilation.has_errors() => return Err(compile_error(compilation)),
        Err(missing) => return Err(missing.into()),
    };
    let errors = compilation
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .count();
    if errors > 0 {
        eprintln!("note: the program has {errors} error{} elsewhere; `{name}` is accepted and runs (see `rqc check`)", if errors == 1 { "" } else { "s" });
    }
    Ok((compilation, entry))
}

fn run_inner(args: &RunArgs) -> Result<Status, Error> {
    let (compilation, entry) = load_entry(&args.program, &args.name)?;
    let options = open_options(args.store, args.wait);
    let mut db = Database::open_with(&args.db, options)?;
    db.install(compilation.program)?;
    let values = parse_args(&entry, &args.args)?;
    let output = db.run(&args.name, &values)?;
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
    let (compilation, entry) = load_entry(&args.program, &args.name)?;
    let (true, Some(dir)) = (args.analyze, &args.db) else {
        print!("{}", explain_plan(&entry));
        return Ok(Status::Clean);
    };
    let mut db = Database::open_with(
        dir,
        open_options(args.store, DEFAULT_WAIT),
    )?;
    db.install(compilation.program)?;
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
