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

/// Opens `db`: on etcd when it is an `etcd://` URL (where `--store`
/// means nothing, and is refused), else the directory with `options`.
pub fn open(db: &Path, options: OpenOptions) -> Result<Database, Error> {
    let Some(url) = db.to_str().filter(|d| is_etcd_url(d)) else {
        // From here on a signal most likely comes from a damaged page (and
        // before, from anything else: the default report stands).
        crate::abort::report_aborts_as_damage();
        return Database::open_with(db, options);
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

/// Whether `db` names a database on etcd.
pub fn on_etcd(db: &Path) -> bool {
    db.to_str().is_some_and(is_etcd_url)
}
