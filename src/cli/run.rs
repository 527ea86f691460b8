//! `rqc run` and `rqc explain`: compile, install into a database, execute or show a plan.

use super::args::parse_args;
use super::report::report_error;
use super::Status;
use crate::{compile_checked, read_program, Backend, Database, Error, OpenOptions};
use clap::{Args, ValueEnum};
use rqc_compiler::plan::explain as explain_plan;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StoreChoice {
    /// sled 0.34: an embedded B-tree database in the --db directory.
    Sled,
    /// In memory: nothing is kept after the command ends.
    Memory,
}

#[derive(Args)]
pub struct RunArgs {
    /// The database directory; created if missing.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend.
    #[arg(long = "store", value_enum, default_value_t = StoreChoice::Sled)]
    store: StoreChoice,
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
}

pub fn run(args: RunArgs) -> Status {
    match run_inner(&args) {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

fn run_inner(args: &RunArgs) -> Result<Status, Error> {
    let files = read_program(std::slice::from_ref(&args.program))?;
    let compilation = compile_checked(&files)?;
    let options = OpenOptions {
        backend: match args.store {
            StoreChoice::Sled => Backend::Sled,
            StoreChoice::Memory => Backend::Memory,
        },
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(&args.db, options)?;
    db.install(compilation.program)?;
    let entry = db.program().expect("installed").entry(&args.name).cloned();
    let Some(entry) = entry else {
        // Let the engine phrase the unknown-name error with the known names.
        db.run(&args.name, &[])?;
        unreachable!("an unknown entry is an error");
    };
    let values = parse_args(&entry, &args.args)?;
    let output = db.run(&args.name, &values)?;
    for row in &output.rows {
        println!("{}", row.to_json());
    }
    let what = match entry.kind {
        rqc_plan::EntryKind::Query => format!(
            "{} row{}",
            output.rows.len(),
            if output.rows.len() == 1 { "" } else { "s" }
        ),
        rqc_plan::EntryKind::Mutation => format!(
            "{} row{} written",
            output.written,
            if output.written == 1 { "" } else { "s" }
        ),
    };
    eprintln!(
        "{what} · seeks {} (bound {}) · rows read {} (bound {})",
        output.stats.seeks, output.bound.seeks, output.stats.rows, output.bound.rows
    );
    Ok(Status::Clean)
}

pub fn explain(args: ExplainArgs) -> Status {
    let result =
        read_program(std::slice::from_ref(&args.program)).and_then(|files| compile_checked(&files));
    let compilation = match result {
        Ok(c) => c,
        Err(error) => return report_error(&error),
    };
    match compilation.program.entry(&args.name) {
        Some(entry) => {
            print!("{}", explain_plan(entry));
            Status::Clean
        }
        None => {
            let names: Vec<&str> = compilation
                .program
                .entries
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            eprintln!(
                "error[E0521]: the program has no query or mutation `{}`",
                args.name
            );
            eprintln!("  help: the entry points are: {}", names.join(", "));
            Status::Errors
        }
    }
}
