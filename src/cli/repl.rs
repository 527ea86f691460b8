//! `rqc repl`: open the database, load the program, hand over to `crate::repl`.

use super::report::{color_on_stderr, report_error};
use super::run::StoreChoice;
use super::Status;
use crate::repl::{run, Repl};
use crate::{Database, OpenOptions};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReplArgs {
    /// The database directory; created if missing.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend.
    #[arg(long = "store", value_enum, default_value_t = StoreChoice::Redb)]
    store: StoreChoice,
    /// A program to load first (`:load` loads another).
    #[arg(value_name = "PROGRAM")]
    program: Option<PathBuf>,
}

pub fn repl(args: ReplArgs) -> Status {
    let db = match Database::open_with(
        &args.db,
        OpenOptions {
            backend: Some(args.store.backend()),
            ..OpenOptions::default()
        },
    ) {
        Ok(db) => db,
        Err(error) => return report_error(&error),
    };
    let mut repl = Repl::new(db, color_on_stderr());
    if let Some(program) = &args.program {
        match repl.load(program) {
            Ok(message) => eprintln!("{message}"),
            Err(error) => return report_error(&error),
        }
    }
    match run(repl) {
        Ok(()) => Status::Clean,
        Err(error) => report_error(&error),
    }
}
