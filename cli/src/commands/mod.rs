//! The `rqc` command line: argument definitions and dispatch, thin over the library.

mod args;
mod batch;
mod check;
pub(crate) mod connection;
mod dump_manifest;
mod durability;
mod load;
mod maintain;
mod page;
mod repl;
pub(crate) mod report;
mod run;
mod upgrade;
mod watch;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Examples:
  rqc check examples/social              report each query's bound, or why it is rejected
  rqc compile app.rq -o app.rqc.json     compile to a plan file the runtime loads
  rqc run --db data app.rq add --arg id=1 --arg name=lamp
  rqc run --db data item --arg id=1      run what the database holds
  rqc explain app.rq item                show the index-only plan of `item`
  rqc verify --db data                   check every checksum, index, counter and reference

Exit status: 0 when clean, 1 when any error or rejection was reported,
2 for usage and input/output errors.";

#[derive(Parser)]
#[command(
    name = "rqc",
    version,
    about = "The realtime query compiler: every query that compiles runs in O(log N)",
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour in diagnostics: `auto` (on a terminal, unless `NO_COLOR` is
    /// set or `TERM=dumb`), `always` or `never`.
    #[arg(long, global = true, value_enum, default_value_t = report::ColorChoice::Auto)]
    color: report::ColorChoice,
    #[command(flatten)]
    etcd: connection::EtcdFlags,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a program: report every error and each entry point's bound;
    /// with -o, write the compiled program (schema and plans) as JSON.
    #[command(after_help = "Example:\n  rqc compile examples/social -o social.rqc.json")]
    Compile(check::CompileArgs),
    /// Check a program: one line per query and mutation with its proved
    /// bound (seeks, rows, class), then every diagnostic.
    #[command(
        after_help = "Examples:\n  rqc check examples/social\n  rqc check app.rq --format json"
    )]
    Check(check::CheckArgs),
    /// Run a query or mutation against a database directory; rows are
    /// printed as JSON lines, the seeks and rows read go to stderr.
    ///
    /// With PROGRAM (sources) or --plan FILE (compiled), that program is
    /// installed first and kept in the database; without either, the
    /// program the database holds runs. A program with errors elsewhere
    /// still installs its accepted queries and mutations; one whose syntax,
    /// schema, modules or imports are broken installs nothing.
    #[command(
        override_usage = "rqc run [OPTIONS] --db <DIR> [PROGRAM]... <NAME>\n       rqc run [OPTIONS] --db <DIR> [PROGRAM]... --batch <FILE>",
        after_help = "Examples:\n  rqc run --db data examples/social add_user --arg id=1 --arg handle=ann --arg name=Ann --arg country=NZ\n  rqc run --db data user --arg id=1                  the program the database holds\n  rqc run --db data --batch calls.jsonl              the calls of a file, one transaction\n  rqc compile examples/social -o social.rqc.json\n  rqc run --db data --plan social.rqc.json user --arg id=1"
    )]
    Run(run::RunArgs),
    /// Print the index-only plan of a query or mutation: each operator, its
    /// access path and its bound; with --analyze, run it and show what each
    /// operator actually read.
    #[command(
        after_help = "Examples:\n  rqc explain examples/social timeline\n  rqc explain examples/social timeline --analyze --db data --arg u=1 --arg n=10"
    )]
    Explain(run::ExplainArgs),
    /// Watch a query: print its whole result as one JSON line, then one
    /// line for each commit (of any process) that changes it — the rows
    /// added and removed for a list, the new result otherwise — each with
    /// the commit's position. When a program is installed meanwhile, the
    /// query is planned again under it and its whole result printed; when
    /// it cannot be (gone, rejected, or its parameters changed), a last
    /// line says why with its code and the watch ends.
    #[command(
        allow_missing_positional = true,
        after_help = "Examples:\n  rqc watch --db data user --arg id=1\n  rqc watch --db data timeline --arg u=1 --arg n=10 --events 5\n\nExit status: 0 after --events N lines or when the database closes; 3 when an install ended the watch (its last line's code: E0587 the query is gone or rejected, E0588 its parameters changed, E0589 a watched expression no longer compiles), so watching again may succeed; 1 for any other error that ends it, 2 for usage errors."
    )]
    Watch(watch::WatchArgs),
    /// Load rows into a table from a JSON-lines (.jsonl) or CSV (.csv) file.
    /// Every row is checked against the schema and the constraints; the
    /// file loads as one transaction: all rows, or — if any row is refused
    /// — none, with every refused row reported by line.
    #[command(
        override_usage = "rqc load [OPTIONS] --db <DIR> [PROGRAM]... <TABLE> <FILE>",
        after_help = "Examples:\n  rqc load --db data examples/social User users.jsonl\n  rqc load --db data User users.csv          the program the database holds"
    )]
    Load(load::LoadArgs),
    /// Run the language server over stdio (for editors): diagnostics as you
    /// type, hover with types and bounds, go to definition, completion,
    /// inlay hints with each query's bound, quick fixes and symbols.
    #[command(
        after_help = "Example (Neovim):\n  vim.lsp.start({ name = 'rqc', cmd = { 'rqc', 'lsp' }, root_dir = vim.fn.getcwd() })"
    )]
    Lsp,
    /// An interactive session against a database: type an RQL expression to
    /// check it as a query and, when it is bounded, run it; :help lists the
    /// commands. Piped input is read line by line, so scripts can drive it.
    #[command(
        after_help = "Examples:\n  rqc repl --db data examples/social\n  echo 'User[1]' | rqc repl --db data examples/social"
    )]
    Repl(repl::ReplArgs),
    /// Check a whole database: every entry's checksum, every row's key,
    /// every index against its table, every counter against its rows and
    /// every reference against its target. Exits 0 only when all hold;
    /// otherwise lists each problem (E0591) and exits 1.
    #[command(after_help = "Example:\n  rqc verify --db data")]
    Verify(maintain::VerifyArgs),
    /// Copy every row that is still readable out of a database, one
    /// TABLE.jsonl file per table, and its program (program.rqc.json),
    /// past damaged entries (each is listed; the status is then 1).
    #[command(after_help = "Example:\n  rqc dump --db data --out saved")]
    Dump(maintain::DumpArgs),
    /// Load the files `rqc dump` wrote into a new database with the
    /// program (given, or the one the dump holds): referenced tables
    /// first, every row checked as `rqc load` checks it.
    #[command(
        after_help = "Examples:\n  rqc restore --db fresh --from saved                    the program the dump holds\n  rqc restore --db fresh examples/social --from saved"
    )]
    Restore(maintain::RestoreArgs),
    /// Bring a database an older rqc wrote to what this one writes, then
    /// verify it: an LMDB database of storage format 3 (each tree a
    /// database of its own) moved into format 4 (one B-tree) in one
    /// transaction; every `-0.0` stored in a row or key rewritten as `0.0`
    /// (with the index entries, counters and aggregates its rows decide),
    /// in another. Refused, naming the keys and writing nothing, where two
    /// rows would then have one key or unique value, a group would pass
    /// its bound, or a reference would name no row.
    #[command(
        after_help = "Examples:\n  rqc upgrade --db data      after E0518: a database of storage format 3\n  rqc verify --db data       lists E0552 for each tree holding -0.0; then rqc upgrade"
    )]
    Upgrade(upgrade::UpgradeArgs),
}

/// Runs the command line and returns the process's exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version print and exit 0; usage errors exit 2.
            let _ = error.print();
            return ExitCode::from(error.exit_code() as u8);
        }
    };
    report::choose_color(cli.color);
    if let Some(Err(text)) = rqc_compiler::db::threads_setting() {
        let message = format!(
            "RQC_THREADS is {text:?}, not a whole number of threads from 1 to {}",
            rqc_compiler::db::MAX_THREADS
        );
        let help = "unset it to check over every core, or set RQC_THREADS=1 to check on one thread";
        report::print_problem("E0601", &message, &[help]);
        return ExitCode::from(Status::Usage as u8);
    }
    connection::set_flags(cli.etcd);
    let status = match cli.command {
        Command::Compile(args) => check::compile(args),
        Command::Check(args) => check::check(args),
        Command::Run(args) => run::run(args),
        Command::Explain(args) => run::explain(args),
        Command::Watch(args) => watch::watch(args),
        Command::Load(args) => load::load(args),
        Command::Repl(args) => repl::repl(args),
        Command::Verify(args) => maintain::verify(args),
        Command::Dump(args) => maintain::dump(args),
        Command::Restore(args) => maintain::restore(args),
        Command::Upgrade(args) => upgrade::upgrade(args),
        Command::Lsp => match crate::lsp::serve() {
            Ok(()) => Status::Clean,
            Err(error) => {
                let message = format!("the language server stopped: {error}");
                report::print_problem("E0600", &message, &[]);
                Status::Usage
            }
        },
    };
    ExitCode::from(status as u8)
}

/// The documented exit statuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Clean = 0,
    Errors = 1,
    Usage = 2,
    /// `rqc watch`: the watched query ended at an install it cannot follow
    /// (E0587–E0589): subscribing again may succeed.
    Ended = 3,
    /// Another writer held the database past `--wait` (E0540): trying
    /// again later may succeed (sysexits' EX_TEMPFAIL).
    Busy = 75,
}
