//! `rqc repl`: open the database, load the program, hand over to `crate::repl`.

use super::durability::DurabilityArg;
use super::report::{color_on_stderr, report_error};
use super::run::StoreChoice;
use super::Status;
use crate::repl::{run, Repl};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct ReplArgs {
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
    #[command(flatten)]
    durability: DurabilityArg,
    /// A program to load first (`:load` loads another).
    #[arg(value_name = "PROGRAM")]
    program: Option<PathBuf>,
    /// With piped input, stop at the first input that fails, with status 1
    /// (like sqlite3's `-bail`).
    #[arg(long)]
    bail: bool,
    /// With piped input, print each prompt and the line read after it, as
    /// a terminal shows a session typed (for transcripts; the README's are
    /// made and tested this way).
    #[arg(long)]
    echo: bool,
    /// How long a transaction opened by `:begin` waits for the next input
    /// before it is rolled back (and the next input says so).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_idle)]
    idle: Duration,
}

/// `--idle`: a duration, more than zero (an idle time of zero would roll
/// every transaction back before its first call could reach it).
fn parse_idle(text: &str) -> Result<Duration, String> {
    let idle = super::run::parse_wait(text)?;
    if idle.is_zero() {
        return Err(format!(
            "`{text}` would roll every transaction back before its first call: give a positive duration, e.g. `60s`"
        ));
    }
    Ok(idle)
}

pub fn repl(args: ReplArgs) -> Status {
    let db = match super::connection::open(
        &args.db,
        super::run::open_options(args.store, args.wait, args.durability.level()),
        super::connection::Access::Write,
    ) {
        Ok(db) => db,
        Err(error) => return report_error(&error),
    };
    let mut repl = Repl::new(db, color_on_stderr(), args.idle);
    if let Some(program) = &args.program {
        match repl.load(program) {
            Ok(message) => eprintln!("{message}"),
            Err(error) => return report_error(&error),
        }
    } else if let Some(message) = repl.use_installed_schema() {
        eprintln!("{message}");
    }
    match run(repl, args.bail, args.echo) {
        Ok(true) => Status::Clean,
        Ok(false) => Status::Errors,
        Err(error) => report_error(&error),
    }
}
