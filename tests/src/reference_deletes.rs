//! The reference evaluator's deletes: the row, and what each `on delete` column that references its table says of the rows naming it — deleted the same way (`cascade`) or holding `none` (`set none`) — written plainly, every naming row found by a search, apart from the runtime's islands and their bounds.

use crate::reference::{column, same_key, Reference};
use rqc_plan::{TableSchema, Value};

impl Reference<'_> {
    /// Deletes the row of `table` with `target`'s key, if there is one,
    /// and what its `on delete` columns say of the rows naming it: each
    /// deleted the same way (`cascade`) or holding `none` (`set none`),
    /// written plainly here, apart from the runtime's islands.
    pub(crate) fn delete_row(&mut self, table: &str, schema: &TableSchema, target: &Value) -> bool {
        let rows = self.tables.entry(table.to_string()).or_default();
        let Some(at) = rows.iter().position(|r| same_key(schema, r, target)) else {
            return false;
        };
        let row = rows.remove(at);
        let key = column(schema, &row, schema.key[0]);
        let naming: Vec<(String, String, rqc_plan::OnDelete)> = self
            .schema()
            .tables
            .iter()
            .flat_map(|t| {
                t.columns.iter().filter_map(move |c| {
                    let action = c.on_delete?;
                    (c.references.as_deref() == Some(table))
                        .then(|| (t.name.clone(), c.name.clone(), action))
                })
            })
            .collect();
        for (child, name, action) in naming {
            let child_schema = self.table_schema(&child);
            let children: Vec<Value> = self
                .rows(&child)
                .iter()
                .filter(|r| r.field(&name) == Some(&key))
                .cloned()
                .collect();
            for child_row in children {
                match action {
                    rqc_plan::OnDelete::Cascade => {
                        self.delete_row(&child, &child_schema, &child_row);
                    }
                    rqc_plan::OnDelete::SetNone => {
                        let rows = self.tables.entry(child.clone()).or_default();
                        let found = rows
                            .iter_mut()
                            .find(|r| same_key(&child_schema, r, &child_row));
                        if let Some(Value::Record(fields)) = found {
                            *fields.get_mut(&name).unwrap() = Value::Null;
                        }
                    }
                }
            }
        }
        true
    }
}
