//! `rqc upgrade --db DIR`: a database an older rqc wrote, brought to what this one writes (the library's `Database::upgrade_layout`, then `Database::upgrade`), and verified.

use super::durability::DurabilityArg;
use super::maintain::{finish, open_existing};
use super::run::open_options;
use super::Status;
use clap::Args;
use rqc::{Database, Error};
use rqc_runtime::store::{is_etcd_url, DEFAULT_WAIT};
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
    let shown = args.db.display();
    let remote = args.db.to_str().is_some_and(is_etcd_url);
    let mut moved = rqc::Converted::default();
    if !remote && args.db.exists() {
        let options = open_options(None, DEFAULT_WAIT, args.durability.level());
        moved = Database::upgrade_layout(&args.db, options)?;
        if !moved.trees.is_empty() {
            let entries: u64 = moved.trees.iter().map(|(_, n)| n).sum();
            eprintln!(
                "moved {} trees ({entries} entries) into storage format {}: one LMDB B-tree",
                moved.trees.len(),
                rqc_runtime::store::STORAGE_FORMAT
            );
        }
    }
    let db = open_existing(&args.db, args.durability.level())?;
    let upgraded = db.upgrade()?;
    for (tree, entries) in &upgraded.trees {
        eprintln!("rewrote {entries} entries of `{tree}`: every -0.0 it stored is 0.0 now");
    }
    if moved.trees.is_empty() && upgraded.trees.is_empty() {
        eprintln!("{shown} is up to date: nothing to upgrade");
        return Ok(Status::Clean);
    }
    let found = db.verify()?;
    if !found.is_sound() {
        eprintln!(
            "{} problem{} in {shown} after the upgrade: `rqc verify --db {shown}` lists them",
            found.problems.len(),
            if found.problems.len() == 1 { "" } else { "s" },
        );
        return Ok(Status::Errors);
    }
    eprintln!(
        "{shown} is in storage format {}: verified {} rows, {} index entries and counters",
        rqc_runtime::store::STORAGE_FORMAT,
        found.rows,
        found.entries
    );
    if db.program().is_none() {
        eprintln!(
            "its program was compiled by an older rqc: install it again with this one (`rqc run --db {shown} PROGRAM NAME …`); the rows are kept"
        );
    }
    Ok(Status::Clean)
}
