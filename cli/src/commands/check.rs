//! `rqc check` and `rqc compile`: verdicts, diagnostics, and the compiled program file.

use super::report::{print_diagnostics, report_error, verdict_line};
use super::Status;
use clap::{Args, ValueEnum};
use rqc::{read_program, Error};
use rqc_compiler::check::Verdict;
use rqc_compiler::diagnostics::to_json;
use rqc_compiler::syntax::ast::DefKind;
use rqc_compiler::{compile_for_exit, Compilation};
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CheckArgs {
    /// `.rq` files, or directories of them, that form one program.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// `text` for people, `json` for tools (one object; see spec/json.md).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Args)]
pub struct CompileArgs {
    /// `.rq` files, or directories of them, that form one program.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Write the compiled program (schema and plans, JSON) here.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The program compiled; never freed (the command ends the process: see
/// [`compile_for_exit`]).
fn load(paths: &[PathBuf]) -> Result<&'static Compilation, Status> {
    match read_program(paths) {
        Ok(files) => Ok(compile_for_exit(
            &files,
            Some(rqc::install::install_check()),
        )),
        Err(error) => Err(report_error(&error)),
    }
}

fn status_of(compilation: &Compilation) -> Status {
    let rejected = compilation
        .checked
        .verdicts
        .iter()
        .any(|v| !v.accepted && v.kind != DefKind::Fn);
    if compilation.has_errors() || rejected {
        Status::Errors
    } else {
        Status::Clean
    }
}

pub fn check(args: CheckArgs) -> Status {
    let compilation = match load(&args.paths) {
        Ok(c) => c,
        Err(status) => return status,
    };
    match args.format {
        Format::Text => {
            print_verdicts(compilation, true);
            print_diagnostics(&compilation.diagnostics, &compilation.sources);
        }
        Format::Json => println!("{}", json_report(compilation)),
    }
    status_of(compilation)
}

/// Writes a compiled program as a plan file (JSON, with its format
/// version), as `rqc compile -o` and `rqc dump` write it.
pub(super) fn write_plan(path: &Path, program: &rqc_plan::CompiledProgram) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(program).expect("plans serialize");
    std::fs::write(path, text + "\n").map_err(|error| Error::Io {
        path: path.to_path_buf(),
        error,
    })
}

pub fn compile(args: CompileArgs) -> Status {
    let compilation = match load(&args.paths) {
        Ok(c) => c,
        Err(status) => return status,
    };
    print_verdicts(compilation, false);
    print_diagnostics(&compilation.diagnostics, &compilation.sources);
    let status = status_of(compilation);
    if let Some(output) = args.output {
        if status != Status::Clean {
            eprintln!("not written: {} (the program has errors)", output.display());
            return status;
        }
        if let Err(error) = write_plan(&output, &compilation.program) {
            return report_error(&error);
        }
        eprintln!("wrote {}", output.display());
    }
    status
}

/// One line per query and mutation (with its upkeep when `upkeep` is
/// asked and it has one), through one buffer: standard output writes each
/// line at once otherwise, a system call per definition.
fn print_verdicts(compilation: &Compilation, with_upkeep: bool) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for verdict in entry_verdicts(compilation) {
        let line = verdict_line(verdict);
        // A closed pipe (`rqc check … | head`) ends the listing quietly.
        let written = match upkeep(verdict).filter(|_| with_upkeep) {
            Some(upkeep) => writeln!(
                out,
                "{line}  upkeep: ≤ {} range{}, re-run per touching commit",
                upkeep.ranges,
                if upkeep.ranges == "1" { "" } else { "s" }
            ),
            None => writeln!(out, "{line}"),
        };
        if written.is_err() {
            return;
        }
    }
    let _ = out.flush();
}

/// Queries and mutations; helpers (`fn`) are checked but not listed.
fn entry_verdicts(compilation: &Compilation) -> impl Iterator<Item = &Verdict> {
    compilation
        .checked
        .verdicts
        .iter()
        .map(|v| &**v)
        .filter(|v| v.kind != DefKind::Fn)
}

/// A live subscription's upkeep, for an accepted query: it listens to at
/// most one key range per seek of its bound, and a commit that writes into
/// one re-runs it within the bound (spec/live.md).
struct Upkeep {
    /// At most this many ranges (the seek bound, or its formula).
    ranges: String,
}

fn upkeep(verdict: &Verdict) -> Option<Upkeep> {
    if !verdict.accepted || verdict.kind != DefKind::Query {
        return None;
    }
    let ranges = match verdict.seeks_max() {
        Some(max) => max.to_string(),
        None => verdict.cost.seeks.to_string(),
    };
    Some(Upkeep { ranges })
}

fn json_report(compilation: &Compilation) -> serde_json::Value {
    let queries: Vec<serde_json::Value> = compilation
        .checked
        .verdicts
        .iter()
        .map(|v| {
            json!({
                "module": v.module,
                "name": v.name,
                "kind": v.kind.keyword(),
                "signature": v.signature,
                "verdict": if v.accepted { "accepted" } else { "rejected" },
                "cause": v.cause,
                "seeks": v.cost.seeks.to_string(),
                "rows": v.cost.rows.to_string(),
                "seeks_max": v.seeks_max(),
                "rows_max": v.rows_max(),
                "round_trips": v.cost.trips.to_string(),
                "round_trips_max": v.round_trips_max(),
                "class": v.accepted.then_some(v.class),
                "upkeep": upkeep(v).map(|_| json!({
                    "ranges": v.cost.seeks.to_string(),
                    "ranges_max": v.seeks_max(),
                    "match": "O(log S + m) per written key",
                })),
            })
        })
        .collect();
    let diagnostics: Vec<_> = compilation
        .diagnostics
        .iter()
        .map(|d| to_json(d, &compilation.sources))
        .collect();
    json!({ "queries": queries, "diagnostics": diagnostics })
}
