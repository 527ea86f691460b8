//! `rqc run --batch FILE`: the calls of a file, one JSON object a line, run in one transaction and printed after its commit.

use super::args::parse_args;
use super::connection::{self, Access};
use super::run::compile_program;
use crate::json_text::{self, Json, JsonError};
use rqc::{read_plan, Database, Error, OpenOptions, Value};
use rqc_plan::Entry;
use rqc_runtime::RuntimeError;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What `rqc run --batch` was given.
pub struct Batch<'a> {
    pub db: &'a Path,
    pub options: OpenOptions,
    pub sources: &'a [PathBuf],
    pub plan: Option<&'a Path>,
    pub migrate: &'a [String],
    /// The file of calls (`-`: stdin).
    pub calls: &'a Path,
}

/// One line's call: its line number, the entry's name and its arguments
/// by name, as the line wrote them.
struct Call {
    line: usize,
    entry: String,
    args: Vec<String>,
}

/// Installs the program (if any), reads every call, runs them all in one
/// transaction and, once it committed, prints one JSON result a call and
/// the transaction's figures on stderr. Nothing runs when a line is not a
/// call; nothing commits when a call is refused.
pub fn run(batch: &Batch<'_>) -> Result<super::Status, Error> {
    // The program and the calls are read before the database is opened: a
    // file that cannot be used leaves the database as it was.
    let program = match (batch.sources, batch.plan) {
        ([], Some(plan)) => Some(read_plan(plan)?),
        ([], None) => None,
        (sources, _) => Some(compile_program(sources)?),
    };
    let calls = read_calls(batch.calls)?;
    // Without a program, the database must hold one: a missing one is
    // refused (E0608), never created empty.
    let access = match program {
        Some(_) => Access::Write,
        None => Access::Read,
    };
    // With no program of its own, a handle made stale by another
    // process's install is opened again (nothing was written).
    let (outputs, stats, bound, attempts) = connection::reopening_when_stale(program, |program| {
        let mut db = connection::open(batch.db, batch.options, access)?;
        if let Some(program) = program {
            db.install_dropping(program, batch.migrate)?;
        }
        let typed = calls
            .iter()
            .map(|call| typed(&db, call).map_err(|e| at_line(e, call)))
            .collect::<Result<Vec<_>, Error>>()?;
        run_all(&db, &typed, &calls)
    })?;
    for output in &outputs {
        println!("{}", output.value.to_json());
    }
    let written: u64 = outputs.iter().map(|o| o.written).sum();
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let retried = if attempts > 1 {
        format!(" · {attempts} attempts (conflicts)")
    } else {
        String::new()
    };
    eprintln!(
        "{} in one transaction · {} written · seeks {} (bound {}) · rows read {} (bound {}) · round trips {} (bound {}){retried}",
        plural(outputs.len() as u64, "call"),
        plural(written, "row"),
        stats.seeks,
        bound.seeks,
        stats.rows,
        bound.rows,
        stats.round_trips,
        bound.round_trips,
    );
    Ok(super::Status::Clean)
}

/// The outputs of every call, what the transaction read (its commit
/// counted) and its bound, and its attempts: a commit that conflicts runs
/// every call again, each attempt held to the bounds on its own.
type Ran = (Vec<rqc::Output>, rqc::Stats, rqc_plan::Bound, u32);

fn run_all(db: &Database, typed: &[(&Entry, Vec<Value>)], calls: &[Call]) -> Result<Ran, Error> {
    let resent = rqc_runtime::store::resent_commits();
    let ((outputs, stats, bound), attempts) = rqc_runtime::engine::retrying_as(|| {
        let transaction = db.begin()?;
        let mut outputs = Vec::with_capacity(typed.len());
        for ((entry, args), call) in typed.iter().zip(calls) {
            let output = transaction
                .run_entry(entry, args)
                .map_err(|e| at_line(e, call))?;
            outputs.push(output);
        }
        let bound = transaction.bound();
        let stats = transaction.commit()?;
        Ok::<_, Error>((outputs, stats, bound))
    })?;
    // The attempts, and the commits etcd sent again within any of them.
    let attempts = attempts + rqc_runtime::store::resent_since(resent);
    Ok((outputs, stats, bound, attempts))
}

/// The entry point a call names and its arguments, typed by its parameters
/// as `--arg` types them (one number parser: `1` for a `Float` is `1.0`,
/// `1.0` for an `Int` is refused).
fn typed<'db>(db: &'db Database, call: &Call) -> Result<(&'db Entry, Vec<Value>), Error> {
    let entry = db.prepare(&call.entry)?.entry();
    Ok((entry, parse_args(entry, &call.args)?))
}

/// Every call of the file, in order; a line that is not one is E0668,
/// named by its number. Blank lines are skipped.
fn read_calls(path: &Path) -> Result<Vec<Call>, Error> {
    let io = |error| Error::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut text = String::new();
    if path == Path::new("-") {
        std::io::stdin().read_to_string(&mut text).map_err(io)?;
    } else {
        std::fs::File::open(path)
            .and_then(|mut file| file.read_to_string(&mut text))
            .map_err(io)?;
    }
    // A byte-order mark (editors on Windows write one) is skipped, as a
    // load skips it.
    text.strip_prefix('\u{feff}')
        .unwrap_or(&text)
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(at, line)| call(at + 1, line).map_err(Error::Runtime))
        .collect()
}

/// A line as a call: `{"entry": NAME, "args": {…}}` (`args` may be left
/// out for an entry point without parameters).
fn call(line: usize, text: &str) -> Result<Call, RuntimeError> {
    let not_a_call = |why: String| {
        RuntimeError::new(
            "E0668",
            format!("line {line} of the batch is not a call: {why}; nothing was run"),
            r#"write one JSON object a line: {"entry": "add", "args": {"id": 1, "name": "lamp"}}"#,
        )
    };
    fn json<'a>(
        text: &'a str,
        not_a_call: &dyn Fn(String) -> RuntimeError,
    ) -> Result<Json<'a>, RuntimeError> {
        json_text::read(text).map_err(|e| match e {
            JsonError::Syntax(e) => not_a_call(format!("it is not JSON ({e})")),
            JsonError::Twice(key) => not_a_call(format!("it gives the key `{key}` twice")),
        })
    }
    let Json::Object(fields) = json(text, &not_a_call)? else {
        return Err(not_a_call("it is not a JSON object".into()));
    };
    let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, v)| *v);
    let Some(Json::Str(entry)) = field("entry")
        .map(|v| json(v.get(), &not_a_call))
        .transpose()?
    else {
        return Err(not_a_call("it has no `entry` string".into()));
    };
    let args = match field("args")
        .map(|v| json(v.get(), &not_a_call))
        .transpose()?
    {
        None => Vec::new(),
        Some(Json::Object(args)) => args,
        Some(_) => return Err(not_a_call("its `args` is not a JSON object".into())),
    };
    if let Some((other, _)) = fields
        .iter()
        .find(|(key, _)| key != "entry" && key != "args")
    {
        return Err(not_a_call(format!(
            "it has a field `{other}` besides `entry` and `args`"
        )));
    }
    let entry = json_text::name(&entry);
    // Each value as its JSON text, as `--arg` reads it: a string stays
    // quoted (`"none"` is the text, not none), `null` is none, a number
    // keeps its spelling (`-0` for an `Int` is 0, `-0.0` is refused).
    let args = args
        .into_iter()
        .map(|(name, value)| format!("{name}={}", value.get()))
        .collect();
    Ok(Call { line, entry, args })
}

/// A call's refusal, its line named: the code stays the refusal's own.
fn at_line(error: Error, call: &Call) -> Error {
    match error {
        Error::Runtime(e) if e.code == "E0668" => Error::Runtime(e),
        Error::Runtime(e) => Error::Runtime(RuntimeError::new(
            e.code,
            format!(
                "line {} (`{}`): {}; nothing of the batch was committed",
                call.line, call.entry, e.message
            ),
            e.help,
        )),
        other => other,
    }
}
