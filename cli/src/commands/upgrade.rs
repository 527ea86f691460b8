//! `rqc upgrade --db DIR`: a database an older rqc wrote, brought to what this one writes (the library's `Database::upgrade`).

use super::durability::DurabilityArg;
use super::maintain::{finish, open_existing};
use super::Status;
use clap::Args;
use rqc::Error;
use std::path::PathBuf;

#[derive(Args)]
pub struct UpgradeArgs {
    /// The database directory to upgrade (or etcd://HOST:PORT,.../PREFIX).
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    #[command(flatten)]
    durability: DurabilityArg,
}

pub fn upgrade(args: UpgradeArgs) -> Status {
    finish(upgrade_inner(&args))
}

fn upgrade_inner(args: &UpgradeArgs) -> Result<Status, Error> {
    let db = open_existing(&args.db, args.durability.level())?;
    let upgraded = db.upgrade()?;
    if upgraded.trees.is_empty() {
        eprintln!("{} is up to date: nothing to upgrade", args.db.display());
        return Ok(Status::Clean);
    }
    for (tree, entries) in &upgraded.trees {
        eprintln!("rewrote {entries} entries of `{tree}`");
    }
    eprintln!(
        "upgraded {}: every -0.0 it stored is 0.0 now; `rqc verify --db {}` checks it",
        args.db.display(),
        args.db.display()
    );
    Ok(Status::Clean)
}
