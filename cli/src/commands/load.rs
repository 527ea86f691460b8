//! `rqc load`: rows from a file into a table, all or nothing.

use super::report::{note_errors, report_error};
use super::run::StoreChoice;
use super::Status;
use crate::rowfile::{parse_csv, parse_jsonl};
use clap::Args;
use rqc::{compile_installable, read_program, Error, Installable};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct LoadArgs {
    /// The database directory, created if missing; or a database on etcd,
    /// etcd://HOST:PORT[,HOST:PORT...]/PREFIX (see --ca, --user).
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
    /// Let the program drop this table, index, bound or max of the
    /// database's schema (see `rqc run --help`). Repeat for each.
    #[arg(long, value_name = "WHAT")]
    migrate: Vec<String>,
    /// The program whose schema the rows follow.
    #[arg(value_name = "PROGRAM")]
    program: PathBuf,
    /// The table to load.
    #[arg(value_name = "TABLE")]
    table: String,
    /// The rows: `.jsonl` (one object per line) or `.csv` (a header line).
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub fn load(args: LoadArgs) -> Status {
    match load_inner(&args) {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

fn load_inner(args: &LoadArgs) -> Result<Status, Error> {
    let extension = args.file.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !matches!(extension, "jsonl" | "csv") {
        eprintln!(
            "error[E0600]: {}: the file must end in .jsonl or .csv",
            args.file.display()
        );
        return Ok(Status::Usage);
    }
    let files = read_program(std::slice::from_ref(&args.program))?;
    let Installable { program, report } = compile_installable(&files)?;
    let table = rqc_runtime::load::table_to_load(&program.schema, &args.table)?.clone();
    let text = std::fs::read_to_string(&args.file).map_err(|error| Error::Io {
        path: args.file.clone(),
        error,
    })?;
    let rows = if extension == "csv" {
        parse_csv(&table, &text)
    } else {
        parse_jsonl(&table, &text)
    };
    let total = rows.len();
    rqc_runtime::check_room_for_load(&args.db, text.len() as u64)?;
    let mut db =
        super::connection::open(&args.db, super::run::open_options(args.store, args.wait))?;
    db.install_dropping(program, &args.migrate)?;
    note_errors(&report, "its schema is sound and the rows load");
    let terminal = std::io::stderr().is_terminal();
    let mut progress = |done: usize| {
        if terminal && (done.is_multiple_of(1000) || done == total) {
            let width = 30;
            let filled = (done * width).checked_div(total).unwrap_or(width);
            eprint!(
                "\rloading {} [{}{}] {done}/{total}",
                args.table,
                "#".repeat(filled),
                " ".repeat(width - filled)
            );
            let _ = std::io::stderr().flush();
        }
    };
    let report = db.load(&args.table, rows, &mut progress)?;
    if terminal {
        eprintln!();
    }
    if report.rejected.is_empty() {
        let skipped = match report.skipped {
            0 => String::new(),
            n => format!(
                " ({n} identical row{} already there)",
                if n == 1 { "" } else { "s" }
            ),
        };
        eprintln!(
            "loaded {} row{} into {}{skipped}",
            report.written,
            if report.written == 1 { "" } else { "s" },
            args.table
        );
        return Ok(Status::Clean);
    }
    let file = args.file.display();
    for (line, error) in report.rejected.iter().take(50) {
        eprintln!("{file}:{line}: error[{}]: {}", error.code, error.message);
    }
    if report.rejected.len() > 50 {
        eprintln!("… and {} more refused rows", report.rejected.len() - 50);
    }
    eprintln!(
        "nothing was loaded: {} of {total} rows were refused (a file loads whole or not at all); fix them and load the file again",
        report.rejected.len()
    );
    Ok(Status::Errors)
}
