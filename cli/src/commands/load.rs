//! `rqc load`: rows from a file into a table, all or nothing.

use super::connection::Access;
use super::durability::DurabilityArg;
use super::report::{note_errors, print_problem, report_error};
use super::run::StoreChoice;
use super::Status;
use crate::rowfile::{Format, RowFile};
use clap::Args;
use rqc::{compile_installable, read_program, Error, Installable};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

#[derive(Args)]
pub struct LoadArgs {
    /// The database directory, created if missing when PROGRAM is given
    /// (without it, the database must hold one); or a database on etcd,
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
    #[command(flatten)]
    durability: DurabilityArg,
    /// Let the program drop this table, index, bound or max of the
    /// database's schema, or rename or drop a column (see `rqc run
    /// --help`). Repeat for each.
    #[arg(long, value_name = "WHAT")]
    migrate: Vec<String>,
    /// [PROGRAM]... TABLE FILE: the program whose schema the rows follow
    /// (`.rq` files or directories, installed first; without it, the
    /// program the database holds), the table to load, and the rows:
    /// `.jsonl` (one object per line) or `.csv` (a header line).
    #[arg(value_name = "OPERAND", num_args = 2.., required = true)]
    operands: Vec<PathBuf>,
}

impl LoadArgs {
    /// The program's paths (none: the database's own), the table and the
    /// file; `None` with fewer than two operands (clap asks for two).
    fn operands(&self) -> Option<(&[PathBuf], String, &PathBuf)> {
        let (file, rest) = self.operands.split_last()?;
        let (table, program) = rest.split_last()?;
        // A table's name is an identifier, read in normal form C.
        let table = crate::json_text::name(&table.display().to_string());
        Some((program, table, file))
    }
}

pub fn load(args: LoadArgs) -> Status {
    match load_inner(&args) {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

fn load_inner(args: &LoadArgs) -> Result<Status, Error> {
    let Some((program, table, file)) = args.operands() else {
        print_problem("E0600", "give the table and the file to load", &[]);
        return Ok(Status::Usage);
    };
    let Some(format) = Format::of(file) else {
        let message = format!("{}: the file must end in .jsonl or .csv", file.display());
        print_problem("E0600", &message, &[]);
        return Ok(Status::Usage);
    };
    // A program given is compiled, and the table found in it, before the
    // database is opened (and perhaps created); without one, the
    // database must exist and hold one.
    let compiled = match program {
        [] => None,
        paths => {
            let installable = compile_installable(&read_program(paths)?)?;
            rqc_runtime::load::table_to_load(&installable.program.schema, &table)?;
            Some(installable)
        }
    };
    // The rows are streamed from the file (twice if the commit conflicts);
    // only its size is needed up front, for the room check and progress.
    let size = std::fs::metadata(file)
        .map_err(|error| Error::Io {
            path: file.clone(),
            error,
        })?
        .len();
    rqc_runtime::check_room_for_load(&args.db, args.store.map(StoreChoice::backend), size)?;
    let options = super::run::open_options(args.store, args.wait, args.durability.level());
    let access = match compiled {
        Some(_) => Access::Write,
        None => Access::Read,
    };
    let terminal = std::io::stderr().is_terminal();
    // With no program of its own, a handle made stale by another
    // process's install is opened again and the file read anew (nothing
    // was written).
    let report = super::connection::reopening_when_stale(compiled, |compiled| {
        let mut db = super::connection::open(&args.db, options, access)?;
        if let Some(Installable { program, report }) = compiled {
            db.install_dropping(program, &args.migrate)?;
            note_errors(&report, "its schema is sound and the rows load");
        }
        let Some(installed) = db.program() else {
            return Err(Error::Runtime(rqc::RuntimeError::new(
                "E0514",
                format!("`{}` holds no program to load rows by", args.db.display()),
                "give the program whose schema the rows follow: `rqc load --db DIR PROGRAM TABLE FILE`",
            )));
        };
        let schema = rqc_runtime::load::table_to_load(&installed.schema, &table)?.clone();
        let mut rows = RowFile::new(file, schema, format);
        let read = rows.bytes_read();
        let mut progress = |done: usize| {
            if terminal && done.is_multiple_of(1000) {
                let width = 30;
                let bytes = read.load(Ordering::Relaxed).min(size);
                let filled = (bytes as usize * width)
                    .checked_div(size as usize)
                    .unwrap_or(width);
                eprint!(
                    "\rloading {} [{}{}] {done} rows",
                    table,
                    "#".repeat(filled),
                    " ".repeat(width - filled)
                );
                let _ = std::io::stderr().flush();
            }
        };
        db.load_from(&table, &mut rows, &mut progress)
    })?;
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
            table
        );
        return Ok(Status::Clean);
    }
    let file = file.display();
    for (line, error) in report.rejected.iter().take(50) {
        print_problem(
            error.code,
            &format!("{file}:{line}: {}", error.message),
            &[],
        );
    }
    let shown = report.rejected.len().min(50) as u64;
    if report.refused > shown {
        eprintln!("… and {} more refused rows", report.refused - shown);
    }
    eprintln!(
        "nothing was loaded: {} of {} rows were refused (a file loads whole or not at all); fix them and load the file again",
        report.refused, report.read
    );
    Ok(Status::Errors)
}
