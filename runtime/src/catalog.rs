//! The catalog: the storage format version, the installed schema and the installed program, kept in the database.

use crate::encoding::key::encode_key;
use crate::encoding::row::{decode_row, encode_row};
use crate::error::{Result, RuntimeError};
use crate::plan_format::{self, Origin};
use crate::rows::{
    aggregate_tree, bound_tree, index_entry, index_tree, primary_key, small_tree, table_tree,
};
use crate::session::Session;
use crate::store::{ReadTxn, Store, Tree};
use rqc_plan::{CompiledProgram, Schema, TableSchema, Value};

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
                migrate(&mut session, &existing, &program.schema, drops)?;
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

fn refuse(change: String, why: &str) -> RuntimeError {
    RuntimeError::new(
        "E0510",
        format!("the program changes the installed schema incompatibly: {change}"),
        format!("{why}; or use a new --db directory"),
    )
}

/// What `new` drops of `old`, each named as `--migrate` takes it:
/// `table:T`, `index:T.name`, `bound:T(a, b)`, `max:T`, `aggregate:name`,
/// `length:T.column` (a `String <= n` bound removed; a looser one is kept).
pub fn dropped(old: &Schema, new: &Schema) -> Vec<String> {
    let mut dropped = Vec::new();
    for before in &old.tables {
        let Some(table) = new.table(&before.name) else {
            dropped.push(format!("table:{}", before.name));
            continue;
        };
        // A unique index made plain drops its uniqueness, a constraint
        // other programs rely on: named as the index (adversary finding:
        // an edited plan file turned it off with no `--migrate`).
        for index in &before.indexes {
            let plain = |now: &rqc_plan::IndexSchema| index.unique && !now.unique;
            if table.index(&index.name).is_none_or(plain) {
                dropped.push(format!("index:{}.{}", before.name, index.name));
            }
        }
        for bound in &before.bounds {
            if !table.bounds.iter().any(|b| b.columns == bound.columns) {
                let names: Vec<&str> = bound
                    .columns
                    .iter()
                    .map(|&c| before.columns[c].name.as_str())
                    .collect();
                dropped.push(format!("bound:{}({})", before.name, names.join(", ")));
            }
        }
        if before.small_max.is_some() && table.small_max.is_none() {
            dropped.push(format!("max:{}", before.name));
        }
        for column in before.columns.iter().filter(|c| c.max_len.is_some()) {
            if table
                .columns
                .iter()
                .any(|c| c.name == column.name && c.max_len.is_none())
            {
                dropped.push(format!("length:{}.{}", before.name, column.name));
            }
        }
        // An aggregate whose definition changed is dropped and added again.
        for aggregate in &before.aggregates {
            if !table.aggregates.contains(aggregate) {
                dropped.push(format!("aggregate:{}", aggregate.name));
            }
        }
    }
    dropped
}

/// A column as stored: its default matters only when it is added.
fn stored_shape(column: &rqc_plan::Column) -> (&str, &rqc_plan::ColumnType, &Option<String>) {
    (&column.name, &column.ty, &column.references)
}

fn migrate(
    session: &mut Session<'_>,
    stored: &Schema,
    new: &Schema,
    drops: &[String],
) -> Result<()> {
    // Renamed and dropped columns first: the rest compares the program
    // with the installed schema as the program names its columns.
    let (reshaped, layouts, implied) = crate::column_changes::reshaped(stored, new, drops)?;
    let old = &reshaped;
    let unasked: Vec<String> = dropped(old, new)
        .into_iter()
        .filter(|d| !drops.contains(d) && !implied.contains(d))
        .collect();
    if !unasked.is_empty() {
        let flags: Vec<String> = unasked.iter().map(|d| format!("--migrate '{d}'")).collect();
        return Err(RuntimeError::new(
            "E0519",
            format!(
                "the program would drop what the database's schema declares: {} (is it older than the program that installed the schema?)",
                unasked.join(", ")
            ),
            format!(
                "run the program that installed the schema; to drop them, install with {} (a dropped table loses its rows)",
                flags.join(" ")
            ),
        ));
    }
    for gone in old.tables.iter().filter(|t| new.table(&t.name).is_none()) {
        release_references(session, gone, new)?;
        drop_table(session, gone)?;
    }
    for table in &new.tables {
        let Some(before) = old.table(&table.name) else {
            continue;
        };
        // A table the program declares as the database does (no column
        // renamed or dropped) has nothing to migrate: its rows are not
        // read, so writers of it meanwhile do not conflict with the
        // install (etcd compares every key an install read; reading every
        // table made a schema-changing install amid writers of other
        // tables give up, E0596: adversary finding).
        if before == table && !layouts.iter().any(|(name, _)| *name == table.name) {
            continue;
        }
        let kept = before.columns.len() <= table.columns.len()
            && before
                .columns
                .iter()
                .zip(&table.columns)
                .all(|(a, b)| stored_shape(a) == stored_shape(b));
        if !kept || before.key != table.key {
            let why = match crate::column_changes::suggested_flags(before, table) {
                Some(flags) => format!("to rename or drop a column, install with {flags}; columns may otherwise only be added, at the end (optional, or with a default)"),
                None => "columns may only be added, at the end (optional, or with a default), renamed or dropped (`--migrate 'rename:T.old=new'`, `--migrate 'drop:T.column'`); add a new table for other changes".to_string(),
            };
            return Err(refuse(
                format!("the columns or the key of `{}` changed", table.name),
                &why,
            ));
        }
        let added = &table.columns[before.columns.len()..];
        if let Some(column) = added
            .iter()
            .find(|c| c.default.is_none() && !matches!(c.ty, rqc_plan::ColumnType::Optional(_)))
        {
            return Err(refuse(
                format!(
                    "the new column `{}.{}` has no value for the rows already stored",
                    table.name, column.name
                ),
                &format!(
                    "declare it optional (`{}: {}?`) or give it a default (`{}: {} = …`)",
                    column.name,
                    column.ty.name(),
                    column.name,
                    column.ty.name()
                ),
            ));
        }
        if let Some(column) = added.iter().find(|c| {
            c.references.is_some() && c.default.as_ref().is_some_and(|d| d.value() != Value::Null)
        }) {
            return Err(refuse(
                format!(
                    "the new reference `{}.{}` has a default, which every stored row would reference",
                    table.name, column.name
                ),
                "declare it optional without a default: stored rows then reference nothing",
            ));
        }
        let layout = layouts.iter().find(|(name, _)| *name == table.name);
        let mut rows = match (layout, stored.table(&table.name)) {
            (Some((_, layout)), Some(as_stored)) => all_rows(session, as_stored)?
                .iter()
                .map(|row| crate::column_changes::reshape_row(row, layout))
                .collect(),
            _ => all_rows(session, before)?,
        };
        check_length_bounds(before, table, &rows)?;
        let rewritten = !added.is_empty() || layout.is_some();
        if rewritten {
            let tree = session.tree(&table_tree(&table.name));
            for row in &mut rows {
                row.extend(
                    added
                        .iter()
                        .map(|c| c.default.as_ref().map_or(Value::Null, |d| d.value())),
                );
                session.put(tree, &primary_key(table, row)?, &encode_row(row)?)?;
            }
        }
        for index in &table.indexes {
            // Index entries hold a copy of the row: rewritten rows, new entries.
            if before.index(&index.name) == Some(index) && !rewritten {
                continue;
            }
            if before.index(&index.name).is_some() {
                clear(session, &index_tree(&table.name, &index.name))?;
            }
            backfill_index(session, table, index, &rows)?;
        }
        for index in &before.indexes {
            if table.index(&index.name).is_none() {
                clear(session, &index_tree(&table.name, &index.name))?;
            }
        }
        if before.bounds != table.bounds {
            for i in 0..before.bounds.len() {
                clear(session, &bound_tree(&table.name, i))?;
            }
            for (i, bound) in table.bounds.iter().enumerate() {
                count_groups(session, table, i, bound, &rows)?;
            }
        }
        if before.small_max != table.small_max {
            clear(session, &small_tree(&table.name))?;
            if let Some(max) = table.small_max {
                if rows.len() as u64 > max {
                    return Err(refuse(
                        format!(
                            "`{}` holds {} rows, more than `max {max}`",
                            table.name,
                            rows.len()
                        ),
                        "delete rows first, or declare a larger max",
                    ));
                }
                let tree = session.tree(&small_tree(&table.name));
                session.set_counter(tree, b"", rows.len() as u64)?;
            }
        }
        // `key auto` declared on a table with rows: its counter starts
        // past every stored key (one kept from an earlier `auto` stays if
        // larger: keys are never reused).
        if table.auto && !before.auto {
            let tree = session.tree(&crate::rows::auto_tree(&table.name));
            let counter = rows.iter().fold(session.get_counter(tree, b"")?, |c, row| {
                crate::rows::auto_counter_past(c, &row[table.key[0]])
            });
            session.set_counter(tree, b"", counter)?;
        }
        // A dropped (or redefined) aggregate's entries go; a new one is
        // back-filled from the rows, in this same transaction.
        for aggregate in &before.aggregates {
            if !table.aggregates.contains(aggregate) {
                clear(session, &aggregate_tree(&table.name, &aggregate.name))?;
            }
        }
        for aggregate in &table.aggregates {
            if !before.aggregates.contains(aggregate) {
                crate::aggregates::backfill(session, table, aggregate, &rows)?;
            }
        }
    }
    Ok(())
}

/// A length bound added or tightened on a stored column must hold for every
/// stored value (looser or dropped ones always do).
fn check_length_bounds(
    before: &TableSchema,
    table: &TableSchema,
    rows: &[Vec<Value>],
) -> Result<()> {
    for (i, (was, column)) in before.columns.iter().zip(&table.columns).enumerate() {
        let Some(max) = column
            .max_len
            .filter(|&max| was.max_len.is_none_or(|was| max < was))
        else {
            continue;
        };
        let longest = rows
            .iter()
            .filter_map(|row| match row.get(i) {
                Some(Value::Str(text)) => Some(text.len() as u64),
                _ => None,
            })
            .max();
        if let Some(longest) = longest.filter(|&longest| longest > max) {
            return Err(refuse(
                format!(
                    "`{}.{}` would hold at most {max} bytes, but a stored value has {longest}",
                    table.name, column.name
                ),
                &format!(
                    "declare `{}: {} <= {longest}` or more, or shorten the stored values first",
                    column.name,
                    column.ty.name()
                ),
            ));
        }
    }
    Ok(())
}

/// A dropped table's rows no longer reference anything: each reference
/// they hold to a table that stays is taken off its counter, or the
/// referenced row could never be deleted again (E0506) and `verify` would
/// find the counter wrong (adversary finding). One read of the dropped
/// rows, one counter write per reference, in the install's transaction.
fn release_references(session: &mut Session<'_>, table: &TableSchema, new: &Schema) -> Result<()> {
    let staying: Vec<(usize, &str)> = table
        .columns
        .iter()
        .enumerate()
        .filter_map(|(c, column)| Some((c, column.references.as_deref()?)))
        .filter(|(_, target)| new.table(target).is_some())
        .collect();
    if staying.is_empty() {
        return Ok(());
    }
    for row in all_rows(session, table)? {
        for &(c, target) in &staying {
            if row[c] == Value::Null {
                continue;
            }
            let tree = session.tree(&crate::rows::refcount_tree(target));
            let key = crate::encoding::key::encode_key(std::slice::from_ref(&row[c]), &[])?;
            let count = session.get_counter(tree, &key)?;
            session.set_counter(tree, &key, count.saturating_sub(1))?;
        }
    }
    Ok(())
}

/// Every tree of a table dropped with `--migrate table:T`: its rows go.
fn drop_table(session: &mut Session<'_>, table: &TableSchema) -> Result<()> {
    clear(session, &table_tree(&table.name))?;
    for index in &table.indexes {
        clear(session, &index_tree(&table.name, &index.name))?;
    }
    for i in 0..table.bounds.len() {
        clear(session, &bound_tree(&table.name, i))?;
    }
    clear(session, &small_tree(&table.name))?;
    clear(session, &crate::rows::auto_tree(&table.name))?;
    for aggregate in &table.aggregates {
        clear(session, &aggregate_tree(&table.name, &aggregate.name))?;
    }
    clear(session, &crate::rows::refcount_tree(&table.name))
}

fn all_rows(session: &mut Session<'_>, table: &TableSchema) -> Result<Vec<Vec<Value>>> {
    let tree = session.tree(&table_tree(&table.name));
    session
        .range(tree, &[], None, usize::MAX)?
        .into_iter()
        .map(|(_, bytes)| decode_row(&bytes, table.columns.len()))
        .collect()
}

fn clear(session: &mut Session<'_>, tree: &str) -> Result<()> {
    let tree = session.tree(tree);
    for (key, _) in session.range(tree, &[], None, usize::MAX)? {
        session.delete(tree, &key)?;
    }
    Ok(())
}

fn backfill_index(
    session: &mut Session<'_>,
    table: &TableSchema,
    index: &rqc_plan::IndexSchema,
    rows: &[Vec<Value>],
) -> Result<()> {
    let tree = session.tree(&index_tree(&table.name, &index.name));
    let mut seen = std::collections::HashSet::new();
    for row in rows {
        let primary = primary_key(table, row)?;
        let entry = index_entry(index, row, &primary)?;
        if index.unique && !seen.insert(entry.clone()) {
            let values: Vec<String> = index.columns.iter().map(|&c| row[c].to_string()).collect();
            return Err(refuse(
                format!(
                    "the new unique index `{}.{}` finds {} twice",
                    table.name,
                    index.name,
                    values.join(", ")
                ),
                "make the values unique first, or declare a plain `index`",
            ));
        }
        session.put(tree, &entry, &encode_row(row)?)?;
    }
    Ok(())
}

fn count_groups(
    session: &mut Session<'_>,
    table: &TableSchema,
    i: usize,
    bound: &rqc_plan::schema::BoundSchema,
    rows: &[Vec<Value>],
) -> Result<()> {
    let mut counts: std::collections::BTreeMap<Vec<u8>, (u64, Vec<Value>)> =
        std::collections::BTreeMap::new();
    // A row holding `none` in a bound column is in no group.
    for row in rows
        .iter()
        .filter(|r| !crate::constraints::in_no_group(bound, r))
    {
        let values: Vec<Value> = bound.columns.iter().map(|&c| row[c].clone()).collect();
        let key = encode_key(&values, &[])?;
        counts.entry(key).or_insert((0, values)).0 += 1;
    }
    let names: Vec<&str> = bound
        .columns
        .iter()
        .map(|&c| table.columns[c].name.as_str())
        .collect();
    for (key, (count, values)) in counts {
        if count > bound.limit {
            let shown: Vec<String> = values.iter().map(Value::to_string).collect();
            return Err(refuse(
                format!(
                    "the new `bound {} <= {}` on `{}` is broken by {} ({count} rows)",
                    names.join(", "),
                    bound.limit,
                    table.name,
                    shown.join(", ")
                ),
                "delete rows of that group first, or declare a larger bound",
            ));
        }
        let tree = session.tree(&bound_tree(&table.name, i));
        session.set_counter(tree, &key, count)?;
    }
    Ok(())
}
