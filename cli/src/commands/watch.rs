//! `rqc watch`: subscribe to a query and print one JSON line per event, the whole result first, then each commit's change.

use super::args::parse_args;
use super::connection::Access;
use super::durability::DurabilityArg;
use super::report::report_error;
use super::run::{compile_entry, open, parse_wait, StoreChoice};
use super::Status;
use clap::Args;
use rqc::{Error, Event, Resume, Value, WatchOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct WatchArgs {
    /// The database directory (a watch only reads: a missing one is
    /// refused, E0608, never created).
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend the database is of (it opens with its own;
    /// naming another is refused).
    #[arg(long = "store", value_enum)]
    store: Option<StoreChoice>,
    /// How long installing PROGRAM waits while another process writes.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_wait)]
    wait: Duration,
    #[command(flatten)]
    durability: DurabilityArg,
    /// The program to install first (`.rq` files or directories, as many
    /// as `check` takes); without it, the program the database holds runs.
    #[arg(value_name = "PROGRAM")]
    program: Vec<PathBuf>,
    /// The query to watch (`name` or `module.name`).
    #[arg(value_name = "NAME")]
    name: String,
    /// An argument as `name=value`, as `rqc run` takes them.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
    /// Stop after this many changes: lines after the first, whole result
    /// (which is not counted; `--events 0` prints it alone). Resuming
    /// with --from, every line is a change and counts.
    #[arg(long, value_name = "N")]
    events: Option<usize>,
    /// Events held while this process cannot print them; past it, an
    /// overflow line and the whole result replace them.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    capacity: usize,
    /// Resume: the position of the last event printed before, with
    /// --held, the result then held (JSON); the first line is the change
    /// since (none when nothing changed).
    #[arg(long, value_name = "POSITION", requires = "held")]
    from: Option<u64>,
    /// The result held at --from, as JSON.
    #[arg(long, value_name = "JSON", requires = "from")]
    held: Option<String>,
}

pub fn watch(args: WatchArgs) -> Status {
    match watch_inner(&args) {
        Ok(status) => status,
        Err(error) => report_error(&error),
    }
}

fn watch_inner(args: &WatchArgs) -> Result<Status, Error> {
    // An entry point's name is an identifier, read in normal form C.
    let name = &crate::json_text::name(&args.name);
    let program = match &args.program[..] {
        [] => None,
        sources => Some(compile_entry(sources, name)?.program),
    };
    let mut db = open(
        &args.db,
        args.store,
        args.wait,
        args.durability.level(),
        Access::Read,
    )?;
    if let Some(program) = program {
        db.install(program)?;
    }
    let prepared = db.prepare(name)?;
    let values = parse_args(prepared.entry(), &args.args)?;
    let resume = match (args.from, &args.held) {
        (Some(position), Some(held)) => Some(Resume {
            position,
            result: held_value(held)?,
        }),
        _ => None,
    };
    let options = WatchOptions {
        capacity: args.capacity,
        resume,
    };
    let live = prepared.subscribe_with(&values, options)?;
    let mut out = std::io::stdout().lock();
    // The whole result comes first, unless resuming: it is no change.
    let mut whole_result_to_come = args.from.is_none();
    let mut changes = 0;
    while whole_result_to_come || args.events.is_none_or(|n| changes < n) {
        let Some(event) = live.next_event() else {
            return Ok(Status::Clean);
        };
        // A reader that went away ends the watch.
        if writeln!(out, "{}", event.to_json()).is_err() || out.flush().is_err() {
            return Ok(Status::Clean);
        }
        match whole_result_to_come {
            true => whole_result_to_come = false,
            false => changes += 1,
        }
        if let Event::Failed { error, .. } = &event {
            if live.is_closed() {
                return Ok(ended(error));
            }
        }
    }
    Ok(Status::Clean)
}

/// The status of a watch ended by `error`, reported on stderr: 3 when an
/// install ended it (`--help` documents it), as for any error otherwise.
fn ended(error: &rqc::RuntimeError) -> Status {
    let status = report_error(&Error::Runtime(error.clone()));
    match error.kind() {
        rqc::ErrorKind::Ended => Status::Ended,
        _ => status,
    }
}

fn held_value(text: &str) -> Result<Value, Error> {
    serde_json::from_str(text)
        .ok()
        .and_then(|json| Value::from_json(&json))
        .ok_or_else(|| {
            Error::Runtime(rqc::RuntimeError::new(
                "E0585",
                format!("--held is not a JSON value: {text}"),
                "pass the `result` of the last whole-result line, with the `added`/`removed` of later lines applied",
            ))
        })
}
