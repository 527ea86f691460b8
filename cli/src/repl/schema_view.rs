//! The REPL's `:schema`: the installed tables, indexes, bounds and aggregates, and the program's entry points with their bounds, as text.

use super::Repl;

impl Repl {
    /// `:schema`: what the database holds and what runs on it.
    pub(super) fn schema(&self) -> String {
        let Some(program) = self.db.program() else {
            return "no program loaded; :load PATH".into();
        };
        let mut out = String::new();
        for table in &program.schema.tables {
            let key: Vec<&str> = table
                .key
                .iter()
                .map(|&c| table.columns[c].name.as_str())
                .collect();
            out.push_str(&format!(
                "{}table {}{} — key ({})\n",
                if table.small_max.is_some() {
                    "small "
                } else {
                    ""
                },
                table.name,
                table
                    .small_max
                    .map(|m| format!(" max {m}"))
                    .unwrap_or_default(),
                key.join(", ")
            ));
            for column in &table.columns {
                let reference = column
                    .references
                    .as_ref()
                    .map(|r| match column.on_delete {
                        Some(action) => format!(" ref {r} on delete {}", action.text()),
                        None => format!(" ref {r}"),
                    })
                    .unwrap_or_default();
                out.push_str(&format!(
                    "  {}: {}{reference}\n",
                    column.name,
                    column.declared()
                ));
            }
            for index in &table.indexes {
                let columns: Vec<String> = index
                    .columns
                    .iter()
                    .zip(&index.descending)
                    .map(|(&c, d)| {
                        format!("{}{}", table.columns[c].name, if *d { " desc" } else { "" })
                    })
                    .collect();
                out.push_str(&format!(
                    "  {} {} ({})\n",
                    if index.unique { "unique" } else { "index" },
                    index.name,
                    columns.join(", ")
                ));
            }
            for bound in &table.bounds {
                let columns: Vec<&str> = bound
                    .columns
                    .iter()
                    .map(|&c| table.columns[c].name.as_str())
                    .collect();
                out.push_str(&format!(
                    "  bound {} <= {}\n",
                    columns.join(", "),
                    bound.limit
                ));
            }
            for aggregate in &table.aggregates {
                out.push_str(&format!(
                    "  aggregate {} = {}\n",
                    aggregate.name,
                    aggregate.definition(table)
                ));
            }
        }
        out.trim_end().to_string()
    }
}
