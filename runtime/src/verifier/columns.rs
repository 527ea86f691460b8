//! Fields and columns a plan reads or writes: a record's field by name (`Field`) or by position (`Column`), a row's column by position, an update's and an upsert's columns by position, each position held to the schema or the record — one of the table's columns or the record's fields, bearing the name the plan shows (E0627).
//!
//! The executor indexes a row with a column's position and compares no
//! name, so a position past the table's columns, or one whose column is
//! another than the plan names, would read or write the wrong column: it
//! is refused here, before anything is installed.

use super::abstract_value::{Abs, RecordAbs};
use super::bounds::Verifier;
use super::shown;
use crate::error::Result;
use rqc_plan::{ColumnAt, Node, TableSchema};

/// What a field read takes: a field by name (`Field`), or a table's
/// column or a record's field by position (`Column`).
#[derive(Clone, Copy)]
pub(super) enum Read<'a> {
    Field(&'a str),
    Column(&'a ColumnAt),
}

/// `column`'s position in `table`, or what is wrong with it: a position
/// past the table's columns, or one whose column bears another name.
pub(super) fn resolve(
    table: &TableSchema,
    column: &ColumnAt,
) -> std::result::Result<usize, String> {
    match table.columns.get(column.position) {
        None => Err(format!(
            "it names column {} of {}, which has {} columns (shown as {})",
            column.position,
            shown(&table.name),
            table.columns.len(),
            shown(&column.name)
        )),
        Some(found) if found.name != column.name => Err(format!(
            "column {} of {} is {}, not {} as the plan names it",
            column.position,
            shown(&table.name),
            shown(&found.name),
            shown(&column.name)
        )),
        Some(_) => Ok(column.position),
    }
}

impl<'p> Verifier<'p> {
    /// The position of `column` in table `t` (E0627 when it is not there,
    /// or is another column).
    pub(super) fn column_position(
        &self,
        node: &Node,
        t: usize,
        column: &ColumnAt,
    ) -> Result<usize> {
        resolve(&self.schema.tables[t], column).or_else(|what| self.fault("E0627", node, what))
    }

    /// The field `read` takes of `base` (none of none).
    pub(super) fn field(&self, node: &Node, base: &Abs<'p>, read: Read<'_>) -> Result<Abs<'p>> {
        match base {
            Abs::Nothing => Ok(Abs::Nothing),
            Abs::Null => Ok(Abs::Null),
            Abs::Opt(inner) => Ok(match self.field(node, inner, read)? {
                Abs::Opt(value) => Abs::Opt(value),
                Abs::Null => Abs::Null,
                value => Abs::Opt(Box::new(value)),
            }),
            Abs::Record(record) => self.of_record(node, record, read),
            other => self.fault(
                "E0625",
                node,
                format!("it reads {} of {}", shown_read(read), other.kind()),
            ),
        }
    }

    fn of_record(&self, node: &Node, record: &RecordAbs<'p>, read: Read<'_>) -> Result<Abs<'p>> {
        let found = match read {
            Read::Field(name) => record.fields.iter().find(|(n, _)| n == name),
            // A table's row holds its columns in the schema's order; a
            // structural record its fields in their names' order (the
            // executor makes every one so, as this pass does): the field
            // at the position must bear the name the plan shows (E0627).
            Read::Column(column) => match record.table {
                Some(t) => record.fields.get(self.column_position(node, t, column)?),
                None => match record.fields.get(column.position) {
                    Some(field) if field.0 == column.name => Some(field),
                    Some((found, _)) => {
                        return self.fault(
                            "E0627",
                            node,
                            format!(
                                "field {} of the record is {}, not {} as the plan names it",
                                column.position,
                                shown(found),
                                shown(&column.name)
                            ),
                        )
                    }
                    None => None,
                },
            },
        };
        match found {
            Some((_, value)) => Ok(value.clone()),
            None => self.fault(
                "E0625",
                node,
                format!("it reads {} of a record that has none", shown_read(read)),
            ),
        }
    }
}

/// The field a read takes, for a message.
fn shown_read(read: Read<'_>) -> String {
    match read {
        Read::Field(name) => format!("field {}", shown(name)),
        Read::Column(column) => format!("column {} ({})", column.position, shown(&column.name)),
    }
}
