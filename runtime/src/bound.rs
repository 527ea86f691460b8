//! A schema bound to one store: every table's rows, indexes, counters and cascades resolved to tree handles, its references to table positions, its column names shared by every row read.
//!
//! Built once when a program is installed, so that no run formats, hashes
//! or compares a tree's or a table's name.

use crate::rows::{
    aggregate_tree, auto_tree, bound_tree, index_tree, refcount_tree, small_tree, table_tree,
};
use crate::store::{Store, Tree};
use rqc_plan::{OnDelete, Schema, TableSchema};
use std::collections::HashMap;
use std::sync::Arc;

/// One table and where its data lives.
pub struct BoundTable {
    pub schema: TableSchema,
    /// The rows, by primary key.
    pub rows: Tree,
    /// Each index's entries, in the order of `schema.indexes`.
    pub indexes: Vec<Tree>,
    /// Each `bound`'s counters, in the order of `schema.bounds`.
    pub bounds: Vec<Tree>,
    /// Each aggregate's entries, in the order of `schema.aggregates`.
    pub aggregates: Vec<Tree>,
    /// The row count of a `small table`.
    pub small: Option<Tree>,
    /// A `key auto` table's counter of keys.
    pub auto: Option<Tree>,
    /// How many rows reference each row of this table.
    pub refcount: Tree,
    /// Whether some table references this one.
    pub referenced: bool,
    /// The columns of other tables (or this one) that reference this
    /// table with `on delete`: what deleting a row also does.
    pub cascades: Vec<BoundCascade>,
    /// For each column that is a `ref`, the referenced table's position.
    pub references: Vec<Option<usize>>,
    /// The column names, shared by the records of every row read.
    pub columns: Arc<[String]>,
    /// The longest key any of the table's trees can hold, when its strings
    /// are length-bounded: a read keyed past it finds nothing
    /// (`entry_bytes`).
    pub key_limit: Option<u64>,
}

/// Every table of a schema, bound to a store.
pub struct Tables {
    pub tables: Vec<BoundTable>,
}

impl Tables {
    pub fn new(store: &dyn Store, schema: &Schema) -> Tables {
        let position = |name: &str| schema.tables.iter().position(|t| t.name == name);
        let mut cascades = bind_all(store, schema);
        let tables = schema
            .tables
            .iter()
            .map(|table| BoundTable {
                schema: table.clone(),
                rows: store.tree(&table_tree(&table.name)),
                indexes: table
                    .indexes
                    .iter()
                    .map(|index| store.tree(&index_tree(&table.name, &index.name)))
                    .collect(),
                bounds: (0..table.bounds.len())
                    .map(|i| store.tree(&bound_tree(&table.name, i)))
                    .collect(),
                aggregates: table
                    .aggregates
                    .iter()
                    .map(|a| store.tree(&aggregate_tree(&table.name, &a.name)))
                    .collect(),
                small: table
                    .small_max
                    .map(|_| store.tree(&small_tree(&table.name))),
                auto: table.auto.then(|| store.tree(&auto_tree(&table.name))),
                refcount: store.tree(&refcount_tree(&table.name)),
                referenced: schema.is_referenced(&table.name),
                cascades: cascades.remove(&table.name).unwrap_or_default(),
                references: table
                    .columns
                    .iter()
                    .map(|c| c.references.as_deref().and_then(position))
                    .collect(),
                columns: table.columns.iter().map(|c| c.name.clone()).collect(),
                key_limit: crate::entry_bytes::TableBytes::of(table).key,
            })
            .collect();
        Tables { tables }
    }

    /// The table called `name` (a name in the plan; resolved when an entry
    /// point is bound, not while it runs).
    pub fn position(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| t.schema.name == name)
    }

    pub fn table(&self, name: &str) -> Option<&BoundTable> {
        self.position(name).map(|i| &self.tables[i])
    }
}

/// Where an operator reads or writes: a table's position, and an index's
/// position in it (an aggregate's, for an aggregate read); for a variable,
/// where its value is bound.
#[derive(Clone, Debug, Default)]
pub struct Access {
    pub table: u32,
    pub index: Option<u32>,
    /// A variable's binding, counted from the innermost binding in scope
    /// (0: the newest `let`, lambda parameter or update's row): the run
    /// finds its value by position, never by comparing names.
    pub slot: u32,
    /// A record literal's shape: its names sorted once here, so a run
    /// building the record copies and compares no name.
    pub record: Option<std::sync::Arc<rqc_plan::RecordShape>>,
    /// A row read's columns that the plan uses, by position, where every
    /// use of the row takes a column (`Column` over the read, or over the
    /// name a `let` binds it to): the run decodes only those
    /// ([`projections`]). `None`: the whole row.
    pub columns: Option<std::sync::Arc<[bool]>>,
}

/// For each operator of an entry point (by node id), what it accesses:
/// resolved once, so a run looks nothing up by name. E0593 when the plan
/// names a table or index the schema lacks.
pub fn bind_entry(bound: &Tables, entry: &rqc_plan::Entry) -> crate::error::Result<Vec<Access>> {
    use rqc_plan::Op;
    let mut accesses = Vec::new();
    let mut uses = Uses::new();
    bind_slots(&entry.root, &mut Vec::new(), &mut accesses, &mut uses)?;
    let mut failure = None;
    entry.root.walk(&mut |node| {
        let (table, index) = match &node.op {
            Op::Get { table, .. }
            | Op::Insert { table, .. }
            | Op::Update { table, .. }
            | Op::Upsert { table, .. }
            | Op::Delete { table, .. } => (table, None),
            Op::GetUnique { table, index, .. } => (table, Some(index)),
            Op::Scan { table, index, .. } => (table, index.as_ref()),
            Op::Aggregate { aggregate, .. } => {
                let resolved = bound.tables.iter().enumerate().find_map(|(t, table)| {
                    let a = table
                        .schema
                        .aggregates
                        .iter()
                        .position(|a| &a.name == aggregate)?;
                    Some(Access {
                        table: t as u32,
                        index: Some(a as u32),
                        ..Access::default()
                    })
                });
                let id = node.id as usize;
                if accesses.len() <= id {
                    accesses.resize(id + 1, Access::default());
                }
                match resolved {
                    Some(access) => accesses[id] = access,
                    None => {
                        failure.get_or_insert_with(|| format!("aggregate {aggregate}"));
                    }
                }
                return;
            }
            _ => return,
        };
        let resolved = bound.position(table).and_then(|t| {
            let schema = &bound.tables[t].schema;
            let index = match index {
                Some(name) => Some(schema.indexes.iter().position(|i| &i.name == name)? as u32),
                None => None,
            };
            Some(Access {
                table: t as u32,
                index,
                ..Access::default()
            })
        });
        let id = node.id as usize;
        if accesses.len() <= id {
            accesses.resize(id + 1, Access::default());
        }
        match resolved {
            Some(access) => accesses[id] = access,
            None => {
                failure.get_or_insert_with(|| table.clone());
            }
        }
    });
    match failure {
        None => {
            projections(bound, &mut accesses, uses);
            Ok(accesses)
        }
        Some(table) => Err(crate::error::RuntimeError::new(
            "E0593",
            format!(
                "the plan reads `{table}` (a table, one of its indexes, or an aggregate), which the schema lacks"
            ),
            "recompile the program; the plan and the schema come from different versions",
        )),
    }
}

/// Each variable's slot ([`Access::slot`]), resolved as the run binds
/// names (`values::Env`): a `let`'s body sees its name, a lambda's body
/// its parameters (the last one innermost) over the scope it was made in,
/// an update's changes its row. E0593 for a variable nothing binds: the
/// verifier refuses such a plan first, so this is the install's own check.
fn bind_slots<'p>(
    node: &'p rqc_plan::Node,
    scope: &mut Scope<'p>,
    accesses: &mut Vec<Access>,
    uses: &mut Uses,
) -> crate::error::Result<()> {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
        bind_slots_here(node, scope, accesses, uses)
    })
}

/// Below this much stack left, a walk of a plan (binding, verifying or
/// evaluating it) first moves to a new segment: a plan nests as deep as
/// `rqc_plan::MAX_PLAN_DEPTH`, and more than one level of a walk takes
/// more than one frame in a debug build.
pub(crate) const STACK_RED_ZONE: usize = 256 << 10;
/// The size of each segment the stack grows by.
pub(crate) const STACK_SEGMENT: usize = 8 << 20;

/// [`bind_slots`] of one node, on the stack it has.
fn bind_slots_here<'p>(
    node: &'p rqc_plan::Node,
    scope: &mut Scope<'p>,
    accesses: &mut Vec<Access>,
    uses: &mut Uses,
) -> crate::error::Result<()> {
    use rqc_plan::Op;
    let id = node.id as usize;
    if accesses.len() <= id {
        accesses.resize(id + 1, Access::default());
    }
    match &node.op {
        Op::Record(fields) => {
            let names = fields.iter().map(|(name, _)| name.clone()).collect();
            accesses[id].record = Some(std::sync::Arc::new(rqc_plan::RecordShape::of(names)));
            fields
                .iter()
                .try_for_each(|(_, value)| bind_slots(value, scope, accesses, uses))
        }
        Op::Var(name) => {
            // Used whole (or as anything but a column's base, below).
            if let Some(read) = bind_var(node, name, scope, accesses)? {
                uses.insert(read, None);
            }
            Ok(())
        }
        Op::Column(base, column) => match &base.op {
            Op::Get { .. } | Op::GetUnique { .. } => {
                take_column(uses, base.id, column.position);
                bind_slots(base, scope, accesses, uses)
            }
            Op::Var(name) => {
                if accesses.len() <= base.id as usize {
                    accesses.resize(base.id as usize + 1, Access::default());
                }
                if let Some(read) = bind_var(base, name, scope, accesses)? {
                    take_column(uses, read, column.position);
                }
                Ok(())
            }
            _ => bind_slots(base, scope, accesses, uses),
        },
        Op::Let(name, value, body) => {
            bind_slots(value, scope, accesses, uses)?;
            let read =
                matches!(value.op, Op::Get { .. } | Op::GetUnique { .. }).then_some(value.id);
            bound_in(scope, &[(name.as_str(), read)], |scope| {
                bind_slots(body, scope, accesses, uses)
            })
        }
        Op::Lambda(params, body) => {
            let params: Vec<_> = params.iter().map(|p| (p.as_str(), None)).collect();
            bound_in(scope, &params, |scope| {
                bind_slots(body, scope, accesses, uses)
            })
        }
        Op::Update {
            target,
            changes,
            row,
            ..
        } => {
            bind_slots(target, scope, accesses, uses)?;
            let row: Vec<_> = row.iter().map(|r| (r.as_str(), None)).collect();
            bound_in(scope, &row, |scope| {
                changes
                    .iter()
                    .try_for_each(|(_, change)| bind_slots(change, scope, accesses, uses))
            })
        }
        _ => node
            .children()
            .into_iter()
            .try_for_each(|child| bind_slots(child, scope, accesses, uses)),
    }
}

/// The names in scope, innermost last, each with the row read a `let`
/// bound it to (its node's id), if it was one.
type Scope<'p> = Vec<(&'p str, Option<u32>)>;

/// For each row read (by node id) some use of which was seen: the columns
/// taken, or `None` once it is used whole.
type Uses = std::collections::HashMap<u32, Option<std::collections::BTreeSet<usize>>>;

/// Resolves variable `node` to its slot; the row read its binding holds,
/// if a `let` bound it to one.
fn bind_var(
    node: &rqc_plan::Node,
    name: &str,
    scope: &Scope<'_>,
    accesses: &mut [Access],
) -> crate::error::Result<Option<u32>> {
    let Some(depth) = scope.iter().rev().position(|(bound, _)| *bound == name) else {
        return Err(crate::error::RuntimeError::new(
            "E0593",
            format!("the plan reads the variable `{name}`, which nothing binds there"),
            "recompile the program; the plan was not made by this rqc's compiler",
        ));
    };
    accesses[node.id as usize].slot = depth as u32;
    Ok(scope[scope.len() - 1 - depth].1)
}

/// Notes that a use of row read `read` takes only column `position`.
fn take_column(uses: &mut Uses, read: u32, position: usize) {
    if let Some(columns) = uses.entry(read).or_insert_with(|| Some(Default::default())) {
        columns.insert(position);
    }
}

/// Sets [`Access::columns`] of each row read every use of which takes a
/// column: its value is then read only through those columns (a `Column`
/// over it, or over each use of the one name a `let` bound it to, names
/// resolved by scope, so a name shadowed or used whole, in a lambda, a
/// list or a call, keeps the whole row). A column past the table's is the
/// verifier's to refuse; here it only leaves the row whole.
fn projections(bound: &Tables, accesses: &mut [Access], uses: Uses) {
    for (read, columns) in uses {
        let Some(columns) = columns else {
            continue;
        };
        let Some(access) = accesses.get_mut(read as usize) else {
            continue;
        };
        let Some(table) = bound.tables.get(access.table as usize) else {
            continue;
        };
        let width = table.schema.columns.len();
        if columns.iter().any(|&c| c >= width) {
            continue;
        }
        let wanted: Vec<bool> = (0..width).map(|c| columns.contains(&c)).collect();
        access.columns = Some(wanted.into());
    }
}

/// `within` run with `names` bound on top of `scope` (in order: the last
/// innermost), then unbound.
fn bound_in<'p, T>(
    scope: &mut Scope<'p>,
    names: &[(&'p str, Option<u32>)],
    within: impl FnOnce(&mut Scope<'p>) -> T,
) -> T {
    scope.extend_from_slice(names);
    let out = within(scope);
    scope.truncate(scope.len() - names.len());
    out
}

/// A column that cascades into a table, bound to the store: where its
/// island is read.
pub struct BoundCascade {
    /// The referencing table's position.
    pub table: usize,
    /// The referencing column's position in it.
    pub column: usize,
    pub action: OnDelete,
    /// The referencing table's rows (the key begins with the column) or
    /// the index that begins with it.
    pub tree: Tree,
    /// Whether the column runs descending in that tree.
    pub descending: bool,
    /// The island's most rows (the column's `bound`).
    pub limit: u64,
}

/// The columns that cascade into each table, by the referenced table's
/// name (those whose island the verifier found; it refuses a schema with
/// any other).
pub fn bind_all(store: &dyn Store, schema: &Schema) -> HashMap<String, Vec<BoundCascade>> {
    schema
        .cascades_by_target()
        .into_iter()
        .map(|(table, cascades)| (table, bind(store, schema, cascades)))
        .collect()
}

fn bind(
    store: &dyn Store,
    schema: &Schema,
    cascades: Vec<rqc_plan::cascade::Cascade>,
) -> Vec<BoundCascade> {
    cascades
        .into_iter()
        .filter_map(|cascade| {
            let island = cascade.island?;
            let referencing = &schema.tables[cascade.table];
            let (tree, descending) = match island.index {
                None => (crate::rows::table_tree(&referencing.name), false),
                Some(i) => (
                    crate::rows::index_tree(&referencing.name, &referencing.indexes[i].name),
                    referencing.indexes[i].descending[0],
                ),
            };
            Some(BoundCascade {
                table: cascade.table,
                column: cascade.column,
                action: cascade.action,
                tree: store.tree(&tree),
                descending,
                limit: island.limit,
            })
        })
        .collect()
}
