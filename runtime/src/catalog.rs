//! The catalog: the installed schema and the storage format version, kept in the database.

use crate::error::{Result, RuntimeError};
use crate::store::{Abort, Store};
use rqc_plan::Schema;

/// The layout of trees, keys and rows this runtime writes. A database with
/// a larger number was written by a newer rqc and is refused.
pub const STORAGE_FORMAT: u32 = 1;

const CATALOG: &str = "__catalog";
const FORMAT_KEY: &[u8] = b"format";
const SCHEMA_KEY: &[u8] = b"schema";

/// Checks the stored format version, refusing data from a newer rqc.
pub fn check_format(store: &dyn Store) -> Result<()> {
    let Some(bytes) = store.get(CATALOG, FORMAT_KEY)? else {
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
    Ok(())
}

/// The schema installed in the database, if any.
pub fn installed_schema(store: &dyn Store) -> Result<Option<Schema>> {
    match store.get(CATALOG, SCHEMA_KEY)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|_| RuntimeError::corrupt("catalog schema")),
    }
}

/// Installs `schema`: a fresh database takes it; the same schema again is
/// a no-op; a different one is refused whole (nothing is changed).
pub fn install(store: &dyn Store, schema: &Schema) -> Result<()> {
    check_format(store)?;
    let encoded = serde_json::to_vec(schema).map_err(RuntimeError::store)?;
    let trees = [CATALOG.to_string()];
    store.transact(&trees, &|txn| {
        if let Some(existing) = txn.get(0, SCHEMA_KEY)? {
            if existing == encoded {
                return Ok(());
            }
            let existing: Schema = serde_json::from_slice(&existing)
                .map_err(|_| Abort::Refused(RuntimeError::corrupt("catalog schema")))?;
            return Err(Abort::Refused(schema_change(&existing, schema)));
        }
        txn.put(0, FORMAT_KEY, &STORAGE_FORMAT.to_be_bytes())?;
        txn.put(0, SCHEMA_KEY, &encoded)?;
        Ok(())
    })
}

/// Names the first difference between two schemas, for the refusal.
fn schema_change(old: &Schema, new: &Schema) -> RuntimeError {
    let mut change = String::from("the schema differs");
    for table in &new.tables {
        match old.table(&table.name) {
            None => {
                change = format!("table `{}` is new", table.name);
                break;
            }
            Some(existing) if existing != table => {
                change = format!("table `{}` changed", table.name);
                break;
            }
            Some(_) => {}
        }
    }
    if let Some(gone) = old.tables.iter().find(|t| new.table(&t.name).is_none()) {
        change = format!("table `{}` is no longer declared", gone.name);
    }
    RuntimeError::new(
        "E0510",
        format!("the database holds a different schema: {change}"),
        "run against the program this database was created with, or use a new --db directory; schema migration is not supported by this version",
    )
}
