//! What `explain` says a write keeps besides its row: a table's checks on insert, the upkeep an update or delete triggers (indexes, bounds, aggregates, references), its cascades, and an aggregate read's definition.

use rqc_plan::Schema;

/// `likes_of = count(Like) by post`, as an aggregate read shows it.
pub(super) fn describe_aggregate(schema: &Schema, name: &str) -> String {
    let Some((table, aggregate)) = schema.aggregate(name) else {
        return name.to_string();
    };
    format!("{name} = {}", aggregate.definition(table))
}

/// The aggregates a write of `table` keeps up to date (an update's only
/// where it changes a `by` column or the column read), as ` (upkeep: …)`.
pub(super) fn upkeep(schema: &Schema, table: &str, changed: Option<&[&str]>) -> String {
    let Some(table) = schema.table(table) else {
        return String::new();
    };
    let kept: Vec<String> = table
        .aggregates
        .iter()
        .filter(|a| match changed {
            None => true,
            Some(names) => {
                a.by.iter()
                    .chain(a.column.iter())
                    .any(|&c| names.contains(&table.columns[c].name.as_str()))
            }
        })
        .map(|a| match table.extreme_path(a) {
            // A `min`/`max`: where its next extreme is found.
            Some((rqc_plan::ExtremePath::Index(i), _)) => {
                format!("{} via {}", a.name, table.indexes[i].name)
            }
            Some((rqc_plan::ExtremePath::Group { limit, .. }, _)) => {
                format!("{} via ≤ {limit} rows", a.name)
            }
            None => a.name.clone(),
        })
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        format!(" (upkeep: {})", kept.join(", "))
    }
}

/// What deleting a row of `table` also does (spec/cost.md §7.3): each
/// column with `on delete` that references it, its action and island.
pub(super) fn cascades(schema: &Schema, table: &str) -> String {
    let reached: Vec<String> = schema
        .cascades_into(table)
        .iter()
        .map(|c| {
            let t = &schema.tables[c.table];
            let limit = c.island.map(|i| i.limit.to_string()).unwrap_or("?".into());
            format!(
                "{} {}.{} ≤ {limit} rows",
                c.action.text(),
                t.name,
                t.columns[c.column].name
            )
        })
        .collect();
    if reached.is_empty() {
        String::new()
    } else {
        format!(" (on delete: {})", reached.join(", "))
    }
}

/// What an insert into `table` checks, as its declaration asks.
pub(super) fn insert_checks(schema: &Schema, table: &str) -> String {
    let Some(table) = schema.table(table) else {
        return "key".into();
    };
    let mut checks = vec!["key"];
    if table.auto {
        checks.push("key counter");
    }
    if table.indexes.iter().any(|i| i.unique) {
        checks.push("unique");
    }
    if table.columns.iter().any(|c| c.references.is_some()) {
        checks.push("ref");
    }
    if !table.bounds.is_empty() {
        checks.push("bound");
    }
    if table.small_max.is_some() {
        checks.push("max");
    }
    if table.columns.iter().any(|c| c.max_len.is_some()) {
        checks.push("length");
    }
    checks.join(", ")
}
