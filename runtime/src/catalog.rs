//! The catalog: the storage format version, the installed schema and the installed program, kept in the database.

use crate::error::{Result, RuntimeError};
use crate::plan_format::{self, Origin};
use crate::rows::table_tree;
use crate::session::Session;
use crate::store::{ReadTxn, Store, Tree};
use rqc_plan::{CompiledProgram, Schema};

/// What a program drops of the installed schema (the migrations, which
/// apply it, live in `crate::migrate`).
pub use crate::migrate::dropped;

/// The layout this runtime writes ([`crate::store::STORAGE_FORMAT`]). A
/// database with a larger number was written by a newer rqc and is
/// refused; one older than [`OLDEST_FORMAT`] too.
pub use crate::store::STORAGE_FORMAT;

/// The oldest storage format read as it is: format 3 differs from 4 only
/// in LMDB's layout, which the LMDB store refuses at open until `rqc
/// upgrade` moves it, so a catalog of format 3 is a redb, sled or etcd
/// database, whose layout is format 4's.
pub const OLDEST_FORMAT: u32 = 3;

// The catalog's tree and its generation key are named where every tree
// is (`rows`), for the layers below that read them.
pub(crate) use crate::rows::CATALOG;
pub use crate::rows::GENERATION_KEY;
const FORMAT_KEY: &[u8] = b"format";
const SCHEMA_KEY: &[u8] = b"schema";
/// The whole compiled program (schema and plans, as `rqc compile -o` writes
/// it), so that an opened database runs without the program's sources. The
/// schema is also kept apart under [`SCHEMA_KEY`]: databases written before
/// the program was kept have only that, and migrations compare it.
const PROGRAM_KEY: &[u8] = b"program";
/// The live changelog's position of the install that wrote the program
/// (its entry, spec/live.md): a live subscription planned under a program
/// installed at another position is planned again before it runs. Absent
/// (0) in a database no install of this rqc has written.
const INSTALLED_AT_KEY: &[u8] = b"installed_at";

/// Where an install left the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installation {
    /// The schema generation, which every commit of a run expects.
    pub generation: Vec<u8>,
    /// The changelog position of the install that wrote the program.
    pub position: u64,
}

/// The stored schema generation (empty before any install).
pub fn generation(txn: &dyn ReadTxn, catalog: Tree) -> Result<Vec<u8>> {
    Ok(txn.get(catalog, GENERATION_KEY)?.unwrap_or_default())
}

/// The changelog position of the install that wrote the installed program
/// (0 when none recorded one).
pub fn installed_at(txn: &dyn ReadTxn, catalog: Tree) -> Result<u64> {
    match txn.get(catalog, INSTALLED_AT_KEY)? {
        None => Ok(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes.as_slice())
            .map(u64::from_be_bytes)
            .map_err(|_| RuntimeError::corrupt("catalog install position")),
    }
}

/// The catalog's tree in `store`.
pub fn catalog(store: &dyn Store) -> Tree {
    store.tree(CATALOG)
}

/// Checks the stored format version, refusing data from a newer rqc.
/// Present while a restore fills the database in place (on etcd, where
/// it loads in several transactions): every open refuses it (E0682) until
/// the restore finishes and removes it ([`mark_unfinished`]).
const UNFINISHED_KEY: &[u8] = b"unfinished";

/// E0682 when the database is an unfinished restore.
pub fn check_finished(txn: &dyn ReadTxn, catalog: Tree) -> Result<()> {
    if txn.get(catalog, UNFINISHED_KEY)?.is_none() {
        return Ok(());
    }
    Err(RuntimeError::new(
        "E0682",
        "this database is an unfinished restore: the `rqc restore` filling it stopped before its end, so it holds only part of the dump",
        "restore the dump again into a new database (on etcd, a new prefix; or this one once emptied: `etcdctl del --prefix PREFIX`)",
    ))
}

/// Marks the database unfinished (a restore begins filling it) or
/// finished (it has), in a transaction of its own. Marking is refused
/// (E0511) where a program is installed or a restore is under way, read
/// in the same transaction: of two restores begun at once into one etcd
/// prefix, whose marks conflict, one goes on and the other is refused
/// (they both loaded, into a database of neither dump: adversary finding).
pub fn mark_unfinished(store: &dyn crate::store::Store, unfinished: bool) -> Result<()> {
    let catalog = catalog(store);
    let mut txn = store.begin_write()?;
    if !unfinished {
        txn.delete(catalog, UNFINISHED_KEY)?;
        return txn.commit();
    }
    let taken = || {
        RuntimeError::new(
            "E0511",
            "the database already holds a program, or another restore is filling it",
            "restore into a new database (on etcd, a new prefix); nothing was written",
        )
    };
    if txn.get(catalog, UNFINISHED_KEY)?.is_some() || txn.get(catalog, PROGRAM_KEY)?.is_some() {
        return Err(taken());
    }
    txn.put(catalog, UNFINISHED_KEY, b"restoring")?;
    txn.commit()
        .map_err(|e| if e.is_conflict() { taken() } else { e })
}

pub fn check_format(txn: &dyn ReadTxn, catalog: Tree) -> Result<()> {
    let Some(bytes) = txn.get(catalog, FORMAT_KEY)? else {
        return Ok(());
    };
    let version = <[u8; 4]>::try_from(bytes.as_slice())
        .map(u32::from_be_bytes)
        .map_err(|_| RuntimeError::corrupt("catalog format version"))?;
    if version > STORAGE_FORMAT {
        return Err(RuntimeError::new(
            "E0512",
            format!(
                "this database was written by a newer rqc (storage format {version}; this rqc reads up to {STORAGE_FORMAT})"
            ),
            "open it with the rqc version that wrote it, or upgrade rqc",
        ));
    }
    if version < OLDEST_FORMAT {
        return Err(RuntimeError::older_format(version, STORAGE_FORMAT));
    }
    Ok(())
}

/// The schema installed in the database, if any.
pub fn installed_schema(txn: &dyn ReadTxn, catalog: Tree) -> Result<Option<Schema>> {
    match txn.get(catalog, SCHEMA_KEY)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|_| RuntimeError::corrupt("catalog schema")),
    }
}

/// The program installed in the database, if any. One of another plan
/// format is refused (see [`plan_format::check_version`]): an older one
/// with E0513, a newer one with E0516.
pub fn installed_program(txn: &dyn ReadTxn, catalog: Tree) -> Result<Option<CompiledProgram>> {
    match txn.get(catalog, PROGRAM_KEY)? {
        None => Ok(None),
        Some(bytes) => plan_format::decode(&bytes, Origin::Catalog).map(Some),
    }
}

/// Installs `program`: its schema and the program itself. A fresh database
/// takes them; the same program again is a no-op; a changed schema is
/// migrated when every change is safe — a new table, a new index
/// (back-filled, a unique one verified), a new, tightened or loosened
/// `bound` or `small … max` (verified against the rows), a new column that
/// is optional or has a default (every row rewritten with it), a new
/// aggregate (back-filled from the rows) — or is a
/// drop that `drops` names (see [`dropped`]); it is refused whole
/// otherwise (spec/storage.md lists the rules). Either way nothing is half-applied: the catalog's reads, the
/// migration's and the new catalog's writes are one write transaction.
/// An install that writes appends an entry to the live changelog in the
/// same transaction, and records its position (spec/live.md).
/// Returns the schema generation and the install's position.
pub fn install(
    store: &dyn Store,
    program: &CompiledProgram,
    drops: &[String],
) -> Result<Installation> {
    crate::column_changes::check(drops)?;
    let schema = serde_json::to_vec(&program.schema).map_err(RuntimeError::store)?;
    let encoded = plan_format::encode(program)?;
    // The same program again writes nothing — read first, outside a write
    // transaction — so a database opened read-only runs the program it holds.
    let unchanged = crate::backoff::retrying(|| {
        let txn = store.begin_read()?;
        let catalog = catalog(store);
        check_format(txn.as_ref(), catalog)?;
        let same = txn.get(catalog, SCHEMA_KEY)?.as_deref() == Some(schema.as_slice())
            && txn.get(catalog, PROGRAM_KEY)?.as_deref() == Some(encoded.as_slice());
        let generation = generation(txn.as_ref(), catalog)?;
        let position = installed_at(txn.as_ref(), catalog)?;
        Ok((same && !generation.is_empty()).then_some(Installation {
            generation,
            position,
        }))
    })?;
    if let Some(installation) = unchanged.0 {
        return Ok(installation);
    }
    crate::backoff::retrying(|| {
        let mut session = Session::write(store)?;
        let catalog = catalog(store);
        check_format(session.reads(), catalog)?;
        let stored = generation(session.reads(), catalog)?;
        let same_schema = match installed_schema(session.reads(), catalog)? {
            Some(existing) if existing == program.schema => {
                let program_kept = session.reads().get(catalog, PROGRAM_KEY)?;
                if program_kept.as_deref() == Some(encoded.as_slice()) && !stored.is_empty() {
                    let position = installed_at(session.reads(), catalog)?;
                    return Ok(Installation {
                        generation: stored,
                        position,
                    });
                }
                true
            }
            Some(existing) => {
                crate::migrate::migrate(&mut session, &existing, &program.schema, drops)?;
                false
            }
            None => {
                check_fresh(&mut session, catalog, &program.schema)?;
                false
            }
        };
        let generation = match <[u8; 8]>::try_from(stored.as_slice()) {
            Ok(bytes) if same_schema => bytes.to_vec(),
            Ok(bytes) => (u64::from_be_bytes(bytes) + 1).to_be_bytes().to_vec(),
            Err(_) => 1u64.to_be_bytes().to_vec(),
        };
        session.put(catalog, FORMAT_KEY, &STORAGE_FORMAT.to_be_bytes())?;
        session.put(catalog, SCHEMA_KEY, &schema)?;
        session.put(catalog, PROGRAM_KEY, &encoded)?;
        session.put(catalog, GENERATION_KEY, &generation)?;
        // Live subscriptions in every process hear of the install here.
        // Its position, written into the catalog with the entry: on etcd
        // made again if the commit is sent again after the head moved.
        let position = session.log_install(catalog, INSTALLED_AT_KEY)?;
        session.commit()?;
        Ok(Installation {
            generation,
            position: position.get(),
        })
    })
    .map(|(installation, _)| installation)
}

/// Checks that a database whose catalog holds no schema is fresh: its
/// catalog holds at most the storage format, and no table of `schema`
/// holds a row. The catalog is not chained (`store::chain`), so a schema
/// entry cut out or moved by damage reads as missing: installed as fresh,
/// the program would skip every migration (a new index never back-filled
/// answers nothing). Reading the catalog whole opens every entry, so a
/// moved one fails its checksum (E0591); one seek per table.
fn check_fresh(session: &mut Session<'_>, catalog: Tree, schema: &Schema) -> Result<()> {
    for (key, _) in session.range(catalog, &[], None, usize::MAX)? {
        if key != FORMAT_KEY && key != crate::store::IDENTITY_KEY && key != UNFINISHED_KEY {
            return Err(RuntimeError::damaged(format!(
                "the catalog holds no schema but holds `{}`",
                String::from_utf8_lossy(&key)
            )));
        }
    }
    for table in &schema.tables {
        let tree = session.tree(&table_tree(&table.name));
        if !session.range(tree, &[], None, 1)?.is_empty() {
            return Err(RuntimeError::damaged(format!(
                "the catalog holds no schema but table `{}` holds rows",
                table.name
            )));
        }
    }
    Ok(())
}
