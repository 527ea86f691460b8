//! Opening `--db`: a database directory, or a database on etcd (`etcd://host:port,.../prefix`) with the TLS and user flags.
//!
//! The flags `--ca`, `--cert`, `--key` and `--user` are global: every
//! command that takes `--db` reaches etcd the same way. The password is
//! read from the environment (RQC_ETCD_PASSWORD), never from a flag, so
//! that it shows in no process list or shell history.

use rqc::{Database, Error, EtcdOptions, OpenOptions};
use rqc_runtime::store::{is_etcd_url, PASSWORD_VARIABLE};
use rqc_runtime::RuntimeError;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// How to reach etcd, as the global flags say.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct EtcdFlags {
    /// etcd: the CA certificate (PEM) of the cluster; given, rqc speaks TLS.
    #[arg(long, global = true, value_name = "FILE")]
    ca: Option<PathBuf>,
    /// etcd: a client certificate (PEM), with --key.
    #[arg(long, global = true, value_name = "FILE")]
    cert: Option<PathBuf>,
    /// etcd: the client certificate's key (PEM).
    #[arg(long, global = true, value_name = "FILE")]
    key: Option<PathBuf>,
    /// etcd: the user; its password comes from the environment variable
    /// RQC_ETCD_PASSWORD.
    #[arg(long, global = true, value_name = "NAME")]
    user: Option<String>,
}

static FLAGS: OnceLock<EtcdFlags> = OnceLock::new();

/// Keeps the global flags for [`open`].
pub fn set_flags(flags: EtcdFlags) {
    let _ = FLAGS.set(flags);
}

/// The global flags given, as arguments of another rqc command (its
/// printed hints).
pub fn flags_as_args() -> Vec<String> {
    let Some(flags) = FLAGS.get() else {
        return Vec::new();
    };
    let files = [
        ("--ca", &flags.ca),
        ("--cert", &flags.cert),
        ("--key", &flags.key),
    ];
    let mut args = Vec::new();
    for (flag, file) in files {
        if let Some(file) = file {
            args.extend([flag.to_string(), file.display().to_string()]);
        }
    }
    if let Some(user) = &flags.user {
        args.extend(["--user".to_string(), user.clone()]);
    }
    args
}

/// What a command does with the database: a command that only reads
/// never creates one (a typo in `--db` is refused, E0608); one that
/// writes creates it, and says so on stderr.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Opens `db`: on etcd when it is an `etcd://` URL (where `--store`
/// means nothing, and is refused), else the directory with `options`.
pub fn open(db: &Path, options: OpenOptions, access: Access) -> Result<Database, Error> {
    let Some(url) = db.to_str().filter(|d| is_etcd_url(d)) else {
        let in_memory = options.backend == Some(rqc::Backend::Memory);
        // A file, or a directory holding other things, is refused as no
        // database (E0511) when opened; nothing or an empty directory is
        // a database to create.
        let absent = !in_memory && (!db.exists() || is_empty_dir(db));
        if absent && access == Access::Read {
            return Err(no_database(db));
        }
        // From here on a signal most likely comes from a damaged page (and
        // before, from anything else: the default report stands).
        crate::abort::report_aborts_as_damage();
        let backend = options.backend.unwrap_or_default();
        let opened = Database::open_with(db, options)?;
        if absent {
            eprintln!(
                "created a new {} database in {}",
                backend.name(),
                db.display()
            );
        }
        return Ok(opened);
    };
    if let Some(backend) = options.backend {
        return Err(Error::Runtime(RuntimeError::new(
            "E0575",
            format!(
                "`--store {}` names an on-disk backend, and `{url}` is a database on etcd",
                backend.name()
            ),
            "leave out --store with an etcd:// database",
        )));
    }
    let flags = FLAGS.get().cloned().unwrap_or_default();
    let options = EtcdOptions {
        ca: flags.ca,
        cert: flags.cert,
        key: flags.key,
        user: flags.user,
        password: std::env::var(PASSWORD_VARIABLE).ok(),
    };
    Database::connect_with(url, &options)
}

/// Whether `dir` is a directory with nothing in it.
fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

/// E0608: no database at `db`, for a command that only reads (or a load
/// with no program to create one with).
pub fn no_database(db: &Path) -> Error {
    Error::Runtime(RuntimeError::new(
        "E0608",
        format!(
            "there is no database at `{}`; this command does not create one",
            db.display()
        ),
        "check the --db path for a typo; a database is created by a command that writes (`rqc run --db DIR PROGRAM MUTATION …`, `rqc load`, `rqc restore`)",
    ))
}

/// How many times a command that installs nothing opens the database
/// again when another process's install made its handle stale (E0550).
const STALE_ATTEMPTS: u32 = 5;

/// Runs `attempt` — which opens the database, installs `program` when it
/// is given, and does the command's work — and hands it the program. A
/// command with no program of its own uses the one installed: another
/// process installing a program of another schema between its open and
/// its work (E0550: nothing written or answered) is met by running the
/// attempt again on a handle opened anew, up to [`STALE_ATTEMPTS`] times.
/// A program given is the command's own, and the other install is
/// reported instead.
pub fn reopening_when_stale<P, T>(
    program: Option<P>,
    mut attempt: impl FnMut(Option<P>) -> Result<T, Error>,
) -> Result<T, Error> {
    let attempts = if program.is_none() { STALE_ATTEMPTS } else { 1 };
    let mut program = program;
    let mut tried = 1;
    loop {
        match attempt(program.take()) {
            Err(Error::Runtime(error)) if error.is_stale() && tried < attempts => {
                tried += 1;
                // Said, so that the requests of the run given up and of the
                // open made again are accounted for (adversary finding).
                eprintln!(
                    "another process installed a program of another schema meanwhile: nothing was written; the database is opened again and the command runs again (attempt {tried})"
                );
            }
            done => return done,
        }
    }
}
