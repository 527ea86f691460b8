//! Cascading deletes over islands: what deleting a referenced row does to the rows that reference it through a column with `on delete cascade` (deleted too) or `on delete set none` (the column set to `none`).
//!
//! Each such column carries a `bound` over exactly itself (the verifier
//! refuses a schema where one does not, E0616), so the rows naming one
//! deleted row are an island: one range read of the key or index the bound
//! is over finds them, at most the bound's limit, and each is deleted or
//! updated by the same rules as any write (its own cascades, counters,
//! references and aggregates kept). spec/cost.md §7.3 charges exactly these
//! reads (`rqc_plan::cascade`).

use crate::bound::{BoundTable, Tables};
use crate::constraints::{delete_row, update_row};
use crate::encoding::key::encode_key;
use crate::encoding::row::decode_row;
use crate::error::{Result, RuntimeError};
use crate::rows::primary_key;
use crate::session::Session;
use crate::store::prefix_end;
use rqc_plan::{OnDelete, Value};

use crate::bound::BoundCascade;

/// Deletes or updates the rows that reference `row` (a row of `t` about to
/// be deleted) through a column with `on delete`. Whether any was
/// written (a `set none` may then have changed `row` itself, when a row
/// refers to itself or through a cascade back to its table: the caller
/// reads it again).
pub fn run(
    session: &mut Session<'_>,
    bound: &Tables,
    t: &BoundTable,
    row: &[Value],
) -> Result<bool> {
    let key = &row[t.schema.key[0]];
    let mut wrote = false;
    for cascade in &t.cascades {
        let referencing = &bound.tables[cascade.table];
        let start = encode_key(std::slice::from_ref(key), &[cascade.descending])?;
        let end = prefix_end(&start);
        // The bound holds the island to its limit: one more is damage.
        let limit = usize::try_from(cascade.limit)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        let entries = session.range(cascade.tree, &start, end.as_deref(), limit)?;
        if entries.len() as u64 > cascade.limit {
            return Err(past_island(t, referencing, cascade, key));
        }
        let columns = referencing.schema.columns.len();
        for (_, bytes) in entries {
            let child = decode_row(&bytes, columns)?;
            let primary = primary_key(&referencing.schema, &child)?;
            wrote |= match cascade.action {
                OnDelete::Cascade => delete_row(session, bound, referencing, &primary)?,
                OnDelete::SetNone => update_row(
                    session,
                    bound,
                    referencing,
                    &primary,
                    &[(cascade.column, Value::Null)],
                )?,
            };
        }
    }
    Ok(wrote)
}

/// E0599: more rows name the deleted row than the column's bound allows,
/// which no write lets happen (the database is damaged).
fn past_island(
    t: &BoundTable,
    referencing: &BoundTable,
    cascade: &BoundCascade,
    key: &Value,
) -> RuntimeError {
    let column = &referencing.schema.columns[cascade.column].name;
    RuntimeError::new(
        "E0599",
        format!(
            "more than {} `{}` rows name `{}` {key} in `{column}`, past `bound {column} <= {}`: deleting it would read past its proved bound; nothing was written",
            cascade.limit, referencing.schema.name, t.schema.name, cascade.limit
        ),
        "the database is damaged: run `rqc verify` to see what, and restore it from a dump",
    )
}
