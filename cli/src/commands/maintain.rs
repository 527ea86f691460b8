//! `rqc verify`, `rqc dump` and `rqc restore`: a database checked whole, its readable rows copied out past damage, and loaded into a new one.

use super::connection::Access;
use super::durability::DurabilityArg;
use super::report::{color_on_stdout, print_problem, problem_text, report_error};
use super::run::{open_options, StoreChoice};
use super::Status;
use crate::rowfile::{Format, RowFile};
use clap::Args;
use rqc::{compile_installable, read_plan, read_program, Database, Dumped, Durability, Error};
use rqc_runtime::store::DEFAULT_WAIT;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct VerifyArgs {
    /// The database directory to check (or etcd://HOST:PORT,.../PREFIX).
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
}

#[derive(Args)]
pub struct DumpArgs {
    /// The database directory to copy out (or etcd://HOST:PORT,.../PREFIX).
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// Where the rows go: one `TABLE.jsonl` per table, and the program the
    /// database holds as `program.rqc.json` (the directory is created;
    /// files of the same names are replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Args)]
pub struct RestoreArgs {
    /// The new database directory (it must not hold a database yet), or
    /// etcd://HOST:PORT,.../PREFIX.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The storage backend of the new database.
    #[arg(long = "store", value_enum)]
    store: Option<StoreChoice>,
    #[command(flatten)]
    durability: DurabilityArg,
    /// The program whose schema the rows follow (`.rq` files or
    /// directories); without it, the one the dump holds
    /// (`program.rqc.json`).
    #[arg(value_name = "PROGRAM")]
    program: Vec<PathBuf>,
    /// A directory `rqc dump` wrote: `TABLE.jsonl` files.
    #[arg(long, value_name = "DIR")]
    from: PathBuf,
}

/// The file of a dump that holds the program the database held.
const PROGRAM_FILE: &str = "program.rqc.json";

/// The program a dump in `from` holds; E0514 when it holds none (a dump
/// of a database without one, or of an older rqc).
fn dumped_program(from: &Path) -> Result<rqc_plan::CompiledProgram, Error> {
    let path = from.join(PROGRAM_FILE);
    if !path.exists() {
        return Err(Error::Runtime(rqc::RuntimeError::new(
            "E0514",
            format!("the dump in `{}` holds no program ({PROGRAM_FILE})", from.display()),
            "give the program whose schema the rows follow: `rqc restore --db NEW PROGRAM --from DIR`",
        )));
    }
    read_plan(&path)
}

pub(super) fn finish(outcome: Result<Status, Error>) -> Status {
    outcome.unwrap_or_else(|error| report_error(&error))
}

/// Opens an existing database at `durability` (`verify` and `dump` only
/// read: any level will do).
pub(super) fn open_existing(dir: &Path, durability: Durability) -> Result<Database, Error> {
    super::connection::open(
        dir,
        open_options(None, DEFAULT_WAIT, durability),
        Access::Read,
    )
}

pub fn verify(args: VerifyArgs) -> Status {
    finish(verify_inner(&args))
}

fn verify_inner(args: &VerifyArgs) -> Result<Status, Error> {
    let db = open_existing(&args.db, Durability::default())?;
    let found = db.verify()?;
    for (i, problem) in found.problems.iter().enumerate() {
        let code = found.codes.get(i).copied().unwrap_or("E0591");
        print!("{}", problem_text(code, problem, &[], color_on_stdout()));
    }
    if found.is_sound() {
        eprintln!(
            "verified: {} rows, {} index entries and counters; every checksum, index, counter and reference holds",
            found.rows, found.entries
        );
        return Ok(Status::Clean);
    }
    eprintln!(
        "{} problem{} in {}: `rqc dump --db {} --out DIR` copies out every readable row",
        found.problems.len(),
        if found.problems.len() == 1 { "" } else { "s" },
        args.db.display(),
        args.db.display()
    );
    Ok(Status::Errors)
}

pub fn dump(args: DumpArgs) -> Status {
    finish(dump_inner(&args))
}

fn dump_inner(args: &DumpArgs) -> Result<Status, Error> {
    let db = open_existing(&args.db, Durability::default())?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| Error::Io { path, error }
    };
    std::fs::create_dir_all(&args.out).map_err(io(&args.out))?;
    if let Some(program) = db.program() {
        super::check::write_plan(&args.out.join(PROGRAM_FILE), program)?;
    }
    // Each table's rows are written as they are read: a dump holds a
    // chunk of rows at a time, whatever the tables' sizes.
    let mut counted: std::collections::BTreeMap<String, usize> = Default::default();
    let mut key_counters = serde_json::Map::new();
    let mut problems = Vec::new();
    let mut file: Option<TableFile> = None;
    db.dump_each(|dumped| {
        match dumped {
            Dumped::Table(table) => {
                if let Some(done) = file.take() {
                    counted.insert(done.table.clone(), done.finish()?);
                }
                file = Some(TableFile::create(&args.out, table)?);
            }
            Dumped::Row(row) => {
                if let Some(file) = &mut file {
                    file.write(&row)?;
                }
            }
            Dumped::KeyCounter(table, counter) => {
                key_counters.insert(table.to_string(), counter.into());
            }
            Dumped::Problem(problem) => problems.push(problem),
        }
        Ok(())
    })?;
    if let Some(done) = file.take() {
        counted.insert(done.table.clone(), done.finish()?);
    }
    if !key_counters.is_empty() {
        let path = args.out.join(KEY_COUNTERS_FILE);
        std::fs::write(&path, serde_json::Value::Object(key_counters).to_string())
            .map_err(io(&path))?;
    }
    // Last: a dump cut short before here has no manifest, and `restore`
    // refuses it.
    super::dump_manifest::write(&args.out, &counted)?;
    for problem in &problems {
        print_problem("E0591", problem, &[]);
    }
    let total: usize = counted.values().sum();
    eprintln!(
        "dumped {total} rows of {} tables into {}{}",
        counted.len(),
        args.out.display(),
        if problems.is_empty() {
            String::new()
        } else {
            format!("; {} entries could not be read", problems.len())
        }
    );
    Ok(if problems.is_empty() {
        Status::Clean
    } else {
        Status::Errors
    })
}

/// A table's file of a dump (`TABLE.jsonl`), written a row at a time.
struct TableFile {
    table: String,
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    rows: usize,
}

impl TableFile {
    fn create(dir: &Path, table: &str) -> Result<TableFile, rqc::RuntimeError> {
        let path = dir.join(format!("{table}.jsonl"));
        let out = std::fs::File::create(&path).map_err(|e| rqc::RuntimeError::io_at(&path, e))?;
        Ok(TableFile {
            table: table.to_string(),
            path,
            out: std::io::BufWriter::new(out),
            rows: 0,
        })
    }

    fn write(&mut self, row: &rqc::Value) -> Result<(), rqc::RuntimeError> {
        use std::io::Write;
        writeln!(self.out, "{}", row.to_json())
            .map_err(|e| rqc::RuntimeError::io_at(&self.path, e))?;
        self.rows += 1;
        Ok(())
    }

    /// Its rows, once all are on their way to disk.
    fn finish(mut self) -> Result<usize, rqc::RuntimeError> {
        use std::io::Write;
        self.out
            .flush()
            .map_err(|e| rqc::RuntimeError::io_at(&self.path, e))?;
        Ok(self.rows)
    }
}

/// Where a dump keeps each `key auto` table's counter, `{"T": 17}`.
const KEY_COUNTERS_FILE: &str = "key_counters.json";

/// The counters a dump carries (none in a dump without the file).
fn dumped_key_counters(from: &Path) -> Result<Vec<(String, u64)>, Error> {
    let path = from.join(KEY_COUNTERS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(Error::Io { path, error }),
    };
    let refused = || {
        Error::Runtime(rqc::RuntimeError::new(
            "E0662",
            format!("`{}` is not a dump's key counters", path.display()),
            "it holds one object of table names and counters, `{\"Post\": 17}`, as `rqc dump` writes it; remove it to restore without (keys past the largest stored one may then be reused)",
        ))
    };
    let json: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|_| refused())?;
    json.into_iter()
        .map(|(table, counter)| {
            counter
                .as_u64()
                .filter(|&c| c <= i64::MAX as u64)
                .map(|c| (table, c))
                .ok_or_else(refused)
        })
        .collect()
}

pub fn restore(args: RestoreArgs) -> Status {
    finish(restore_inner(&args))
}

fn restore_inner(args: &RestoreArgs) -> Result<Status, Error> {
    let holds_files = std::fs::read_dir(&args.db).is_ok_and(|mut e| e.next().is_some());
    if holds_files {
        return Err(Error::Runtime(rqc::RuntimeError::new(
            "E0511",
            format!("`{}` already holds files", args.db.display()),
            "restore into a new directory; nothing was written",
        )));
    }
    // Read whole before anything is written: a dump cut short is refused.
    let dumped = super::dump_manifest::read_whole(&args.from)?;
    let program = match &args.program[..] {
        [] => dumped_program(&args.from)?,
        paths => compile_installable(&read_program(paths)?)?.program,
    };
    if let Some((table, rows)) = dumped
        .iter()
        .find(|(table, rows)| **rows > 0 && program.schema.table(table).is_none())
    {
        return Err(Error::Runtime(rqc::RuntimeError::new(
            "E0681",
            format!("the program has no table `{table}`, whose {rows} rows the dump holds"),
            "restore with the program the dump was made under (without PROGRAM, the one the dump holds); nothing was written",
        )));
    }
    // Referenced tables load before the tables that reference them.
    let files: Vec<(rqc_plan::TableSchema, PathBuf)> = program
        .schema
        .referenced_first()
        .into_iter()
        .filter(|table| dumped.get(&table.name).is_some_and(|&rows| rows > 0))
        .map(|table| {
            (
                table.clone(),
                args.from.join(format!("{}.jsonl", table.name)),
            )
        })
        .collect();
    // A directory is restored beside its place and moved there once whole
    // (one rename): a restore killed midway leaves no database that
    // passes for the dump's. On etcd (no directory) it loads in place.
    let on_etcd = args.db.to_string_lossy().starts_with("etcd://");
    let staging = if on_etcd {
        args.db.clone()
    } else {
        staging_dir(&args.db)
    };
    if !on_etcd && staging.exists() {
        // A restore killed before its rename left it: nothing else is there.
        std::fs::remove_dir_all(&staging).map_err(|error| Error::Io {
            path: staging.clone(),
            error,
        })?;
    }
    let restored = restore_into(&staging, args, program, files);
    if on_etcd {
        return restored;
    }
    match restored {
        Ok(Status::Clean) => {
            std::fs::rename(&staging, &args.db).map_err(|error| Error::Io {
                path: args.db.clone(),
                error,
            })?;
            let backend = args.store.map(StoreChoice::backend).unwrap_or_default();
            eprintln!(
                "created a new {} database in {}",
                backend.name(),
                args.db.display()
            );
            Ok(Status::Clean)
        }
        other => {
            let _ = std::fs::remove_dir_all(&staging);
            other
        }
    }
}

/// Where a restore into the directory `db` builds the database: beside
/// it, under a name that says what it is.
fn staging_dir(db: &Path) -> PathBuf {
    let name = db
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "db".into());
    db.with_file_name(format!(".{name}.restoring"))
}

/// The restore itself, into `db` (a staging directory, or an etcd prefix).
fn restore_into(
    db: &Path,
    args: &RestoreArgs,
    program: rqc_plan::CompiledProgram,
    files: Vec<(rqc_plan::TableSchema, PathBuf)>,
) -> Result<Status, Error> {
    let options = open_options(args.store, DEFAULT_WAIT, args.durability.level());
    let mut db_handle = if args.db.to_string_lossy().starts_with("etcd://") {
        super::connection::open(db, options, Access::Write)?
    } else {
        Database::open_with(db, options)?
    };
    let db = &mut db_handle;
    // On etcd there is no directory to find empty: a prefix that holds a
    // program holds a database.
    if db.program().is_some() {
        return Err(Error::Runtime(rqc::RuntimeError::new(
            "E0511",
            format!("`{}` already holds a database", args.db.display()),
            "restore into a new prefix; nothing was written",
        )));
    }
    // Until its last row, the database is marked unfinished: on etcd the
    // rows commit in several transactions, and a restore stopped midway
    // must leave nothing that opens as the dump's database (E0682).
    db.mark_unfinished(true)?;
    db.install(program)?;
    let mut total = 0;
    for (table, path) in files {
        let mut rows = RowFile::new(&path, table.clone(), Format::Jsonl);
        let report = db.load_from(&table.name, &mut rows, &mut |_| {})?;
        if !report.rejected.is_empty() {
            for (line, error) in report.rejected.iter().take(20) {
                let message = format!("{}:{line}: {}", path.display(), error.message);
                print_problem(error.code, &message, &[]);
            }
            let left = if args.db.to_string_lossy().starts_with("etcd://") {
                format!(
                    "{} is marked unfinished: every open refuses it (E0682)",
                    args.db.display()
                )
            } else {
                format!("nothing was restored into {}", args.db.display())
            };
            eprintln!(
                "the restore stopped at `{}`: {} rows were refused; {left}",
                table.name, report.refused
            );
            return Ok(Status::Errors);
        }
        total += report.written;
    }
    for (table, counter) in dumped_key_counters(&args.from)? {
        db.raise_key_counter(&table, counter)?;
    }
    db.mark_unfinished(false)?;
    eprintln!("restored {total} rows into {}", args.db.display());
    Ok(Status::Clean)
}
