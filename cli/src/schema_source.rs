//! A database's installed schema written back as RQL tables and aggregates, so that the REPL checks expressions against a database opened without its sources.

use rqc_plan::{Literal, Schema, TableSchema};

/// The module the tables are declared in.
pub const MODULE: &str = "database";

/// `module database` with every table of `schema`, public.
pub fn schema_source(schema: &Schema) -> String {
    let mut out = format!("module {MODULE}\n");
    for table in &schema.tables {
        out.push_str(&table_source(table));
    }
    out
}

fn table_source(table: &TableSchema) -> String {
    let name = |c: &usize| table.columns[*c].name.clone();
    let mut out = match table.small_max {
        Some(max) => format!("pub small table {} max {max} {{\n", table.name),
        None => format!("pub table {} {{\n", table.name),
    };
    for (position, column) in table.columns.iter().enumerate() {
        out.push_str(&format!("  {}: {}", column.name, column.declared()));
        // A generated key is declared on its column (`auto` follows `key`).
        if table.auto && table.key == [position] {
            out.push_str(" key auto");
        }
        if let Some(target) = &column.references {
            out.push_str(&format!(" ref {target}"));
        }
        if let Some(action) = column.on_delete {
            out.push_str(&format!(" on delete {}", action.text()));
        }
        if let Some(default) = &column.default {
            out.push_str(&format!(" = {}", literal(default)));
        }
        out.push('\n');
    }
    if !table.auto {
        let key: Vec<String> = table.key.iter().map(name).collect();
        out.push_str(&format!("  key ({})\n", key.join(", ")));
    }
    for index in &table.indexes {
        let columns: Vec<String> = index
            .columns
            .iter()
            .zip(&index.descending)
            .map(|(c, desc)| format!("{}{}", name(c), if *desc { " desc" } else { "" }))
            .collect();
        if index.unique {
            out.push_str(&format!("  unique ({})\n", columns.join(", ")));
        } else {
            out.push_str(&format!(
                "  index {} ({})\n",
                index.name,
                columns.join(", ")
            ));
        }
    }
    for bound in &table.bounds {
        let columns: Vec<String> = bound.columns.iter().map(name).collect();
        out.push_str(&format!(
            "  bound ({}) <= {}\n",
            columns.join(", "),
            bound.limit
        ));
    }
    out.push_str("}\n");
    // Declared after the table, each public like it.
    for aggregate in &table.aggregates {
        let by: Vec<String> = aggregate.by.iter().map(name).collect();
        let over = match aggregate.column {
            Some(c) => format!("{}.{}", table.name, table.columns[c].name),
            None => table.name.clone(),
        };
        // A whole table's (no `by`) is written without one.
        let group = if by.is_empty() {
            String::new()
        } else {
            format!(" by ({})", by.join(", "))
        };
        out.push_str(&format!(
            "pub aggregate {} = {}({over}){group}\n",
            aggregate.name,
            aggregate.kind.name(),
        ));
    }
    out
}

fn literal(value: &Literal) -> String {
    match value {
        Literal::None => "none".into(),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(n) => n.to_string(),
        Literal::Float(bits) => format!("{:?}", f64::from_bits(*bits)),
        Literal::String(s) => serde_json::to_string(s).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written back and compiled again, a schema is the same schema.
    #[test]
    fn a_schema_written_back_compiles_to_itself() {
        let source = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/social/social.rq"),
        )
        .unwrap();
        let first = rqc_compiler::compile(&[("social.rq".into(), source)]);
        let written = schema_source(&first.program.schema);
        let again = rqc_compiler::compile(&[("db.rq".into(), written.clone())]);
        assert!(
            again.diagnostics.is_empty(),
            "{written}\n{:?}",
            again.diagnostics
        );
        assert_eq!(again.program.schema, first.program.schema, "{written}");
    }

    /// `on delete cascade` and `on delete set none` are written back, so a
    /// REPL over the database deletes as the program does.
    #[test]
    fn cascades_are_written_back() {
        let source = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/readme/qa.rq"),
        )
        .unwrap();
        let first = rqc_compiler::compile(&[("qa.rq".into(), source)]);
        let written = schema_source(&first.program.schema);
        assert!(written.contains(" on delete cascade"), "{written}");
        assert!(written.contains(" on delete set none"), "{written}");
        let again = rqc_compiler::compile(&[("db.rq".into(), written.clone())]);
        assert!(
            again.diagnostics.is_empty(),
            "{written}\n{:?}",
            again.diagnostics
        );
        assert_eq!(again.program.schema, first.program.schema, "{written}");
    }
}
