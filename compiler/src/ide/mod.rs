//! Editor features over the analysis: hover, definitions, completions,
//! inlay hints, code actions and symbols. Positions are byte offsets; the
//! language server converts them.

use crate::check::{Fact, Target};
use crate::cost::class;
use crate::db::{def_facts, def_offset, parse_file, shape_details, Analysis, DefKey};
use crate::span::Span;
use crate::syntax::ast::{Item, TableMember};
use crate::syntax::printer::print_signature;

mod actions;
mod completion;

pub use actions::{code_actions, Action, Edit};

/// A definition of the file, with where it starts.
struct DefAt {
    module: String,
    name: String,
    span: Span,
}

fn defs_in(analysis: &Analysis, file: &str) -> Vec<DefAt> {
    let Some(parsed) = analysis.file_syntax(file) else {
        return Vec::new();
    };
    let module = module_of(analysis, file).unwrap_or_default();
    parsed
        .module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Def(def) => Some(DefAt {
                module: module.clone(),
                name: def.name.name.clone(),
                span: def.span,
            }),
            _ => None,
        })
        .collect()
}

fn module_of(analysis: &Analysis, file: &str) -> Option<String> {
    analysis
        .shape()
        .index
        .modules
        .iter()
        .find(|m| m.file == file)
        .map(|m| m.name.clone())
}

/// The facts of the definition around `offset`, made absolute.
fn facts_at(analysis: &Analysis, file: &str, offset: usize) -> Vec<Fact> {
    let Some(def) = defs_in(analysis, file)
        .into_iter()
        .find(|d| d.span.contains(offset))
    else {
        return Vec::new();
    };
    let key = DefKey::new(&analysis.db, def.module.clone(), def.name.clone());
    let base = def_offset(&analysis.db, analysis.workspace, key);
    let shift = |span: Span| Span::new((span.start + base) as usize, (span.end + base) as usize);
    def_facts(&analysis.db, key)
        .iter()
        .map(|fact| match fact {
            Fact::Type { span, ty, cost } => Fact::Type {
                span: shift(*span),
                ty: ty.clone(),
                cost: cost.clone(),
            },
            Fact::Ref {
                span,
                target: Target::Local(binding),
            } => Fact::Ref {
                span: shift(*span),
                target: Target::Local(shift(*binding)),
            },
            Fact::Ref { span, target } => Fact::Ref {
                span: shift(*span),
                target: target.clone(),
            },
        })
        .collect()
}

fn bound_text(cost: &crate::cost::Cost) -> String {
    let show = |p: &crate::cost::Poly| match p.max_value() {
        Some(max) if p.to_string() == max.to_string() => format!("≤ {max}"),
        Some(max) => format!("≤ {} = {max}", p),
        None => format!("≤ {p}"),
    };
    format!(
        "seeks {}, rows {}, round trips {}",
        show(&cost.seeks),
        show(&cost.rows),
        show(&cost.trips)
    )
}

/// Hover text at `offset`: for a definition's name its signature and bound,
/// else the innermost expression's type and cost.
pub fn hover(analysis: &Analysis, file: &str, offset: usize) -> Option<String> {
    let parsed = analysis.file_syntax(file)?;
    for item in &parsed.module.items {
        if let Item::Table(table) = item {
            if let Some(text) = on_delete_hover(analysis, table, offset) {
                return Some(text);
            }
        }
        if let Item::Aggregate(aggregate) = item {
            if aggregate.name.span.contains(offset) {
                return Some(aggregate_hover(analysis, &aggregate.name.name));
            }
        }
        if let Item::Def(def) = item {
            if def.name.span.contains(offset) {
                return def_hover(analysis, file, def);
            }
        }
    }
    let facts = facts_at(analysis, file, offset);
    // A definition's name where it is used (called, or named as a value):
    // what it is, as over its declaration.
    let used = facts
        .iter()
        .filter_map(|fact| match fact {
            Fact::Ref { span, target } if span.contains(offset) => Some((span, target)),
            _ => None,
        })
        .min_by_key(|(span, _)| span.end - span.start);
    if let Some((_, target @ Target::Def(_))) = used {
        let (decl_file, at) = locate(analysis, file, target)?;
        let parsed = analysis.file_syntax(&decl_file)?;
        return parsed.module.items.iter().find_map(|item| match item {
            Item::Def(def) if def.name.span == at => def_hover(analysis, &decl_file, def),
            _ => None,
        });
    }
    facts
        .into_iter()
        .filter_map(|fact| match fact {
            Fact::Type { span, ty, cost } if span.contains(offset) => Some((span, ty, cost)),
            _ => None,
        })
        .min_by_key(|(span, _, _)| span.end - span.start)
        .map(|(_, ty, cost)| format!("`{ty}`  ·  {}  ·  {}", bound_text(&cost), class(&cost)))
}

/// A definition's signature, its checked type and its bound (or why it
/// was rejected).
fn def_hover(analysis: &Analysis, file: &str, def: &crate::syntax::ast::Def) -> Option<String> {
    let module = module_of(analysis, file)?;
    let verdict = analysis.verdict(&module, &def.name.name)?;
    let bound = if verdict.accepted {
        format!("{}  ·  {}", bound_text(&verdict.cost), verdict.class)
    } else {
        match &verdict.cause {
            Some(cause) => format!("rejected: {cause}"),
            None => "rejected: see its diagnostic".to_string(),
        }
    };
    Some(format!(
        "```rql\n{}\n```\n{}\n\n{}",
        print_signature(def),
        verdict.signature,
        bound
    ))
}

/// Over a column's `on delete …`: what deleting the referenced row does,
/// and the island that bounds it (spec/cost.md §7.3).
fn on_delete_hover(
    analysis: &Analysis,
    table: &crate::syntax::ast::Table,
    offset: usize,
) -> Option<String> {
    use crate::syntax::ast::{FieldModifier, TableMember};
    let (field, action) = table.members.iter().find_map(|member| {
        let TableMember::Field(field) = member else {
            return None;
        };
        field.modifiers.iter().find_map(|m| match m {
            FieldModifier::OnDelete(action, span) if span.contains(offset) => {
                Some((field, *action))
            }
            _ => None,
        })
    })?;
    let shape = analysis.shape();
    let schema_table = shape.schema.table(&table.name.name)?;
    let c = schema_table.column(&field.name.name)?;
    let column = &schema_table.columns[c];
    let target = column.references.clone().unwrap_or_else(|| "?".into());
    let does = match action {
        crate::syntax::ast::OnDeleteAction::Cascade => format!(
            "deleting a `{target}` row deletes the `{}` rows whose `{}` names it (and what their deletes reach)",
            table.name.name, field.name.name
        ),
        crate::syntax::ast::OnDeleteAction::SetNone => format!(
            "deleting a `{target}` row sets `{}` to `none` in the `{}` rows that name it",
            field.name.name, table.name.name
        ),
    };
    let island = match (column.on_delete, schema_table.island_of(c)) {
        (Some(_), Some(island)) => format!(
            "at most {} rows (`bound {} <= {}`), read with one range read of {}; every delete of `{target}` counts them in its bound",
            island.limit,
            field.name.name,
            island.limit,
            match island.index {
                Some(i) => format!("index `{}`", schema_table.indexes[i].name),
                None => "the key".to_string(),
            }
        ),
        _ => "refused: see its diagnostic".to_string(),
    };
    Some(format!(
        "```rql\n{}: {} ref {target} on delete {}\n```\n{does}\n\n{island}",
        field.name.name,
        column.declared(),
        action.text()
    ))
}

/// An aggregate's read as a signature, its type and what keeps it.
fn aggregate_hover(analysis: &Analysis, name: &str) -> String {
    let shape = analysis.shape();
    let Some((table, aggregate)) = shape.schema.aggregate(name) else {
        return format!("aggregate `{name}`: rejected, see its diagnostic");
    };
    let by: Vec<String> = aggregate
        .by
        .iter()
        .map(|&c| format!("{}: {}", table.columns[c].name, table.columns[c].ty.name()))
        .collect();
    let what = match aggregate.column {
        Some(c) => format!("{}.{}", table.name, table.columns[c].name),
        None => table.name.clone(),
    };
    let extreme = matches!(
        aggregate.kind,
        rqc_plan::AggregateKind::Min | rqc_plan::AggregateKind::Max
    );
    let (ty, empty) = match aggregate.column {
        Some(c) if extreme => (format!("{}?", table.columns[c].ty.name()), "none"),
        _ => ("Int".to_string(), "0"),
    };
    // A whole table's (no `by`) is read by its name alone.
    let (read, per) = if by.is_empty() {
        (
            name.to_string(),
            format!("of the whole table, {empty} when it has no rows"),
        )
    } else {
        (
            format!("{name}[{}]", by.join(", ")),
            format!("per group, {empty} for a group with no rows"),
        )
    };
    format!(
        "```rql\n{read} -> {ty}\n```\n{}({what}) {per}  ·  a read: seeks ≤ 1  rows ≤ 1  round trips ≤ 1  ·  O(log N)\n\nkept up to date by every insert, update and delete of `{}`",
        aggregate.kind.name(),
        table.name
    )
}

/// Where the name at `offset` is defined: (file, span).
pub fn definition(analysis: &Analysis, file: &str, offset: usize) -> Option<(String, Span)> {
    let target = facts_at(analysis, file, offset)
        .into_iter()
        .filter_map(|fact| match fact {
            Fact::Ref { span, target } if span.contains(offset) => Some((span, target)),
            _ => None,
        })
        .min_by_key(|(span, _)| span.end - span.start)
        .map(|(_, t)| t)
        .or_else(|| import_target(analysis, file, offset))?;
    locate(analysis, file, &target)
}

/// A name in an `import` line refers to what it imports.
fn import_target(analysis: &Analysis, file: &str, offset: usize) -> Option<Target> {
    let parsed = analysis.file_syntax(file)?;
    for item in &parsed.module.items {
        let Item::Import(import) = item else { continue };
        for name in import.names.iter().flatten() {
            if name.span.contains(offset) {
                let shape = analysis.shape();
                let module = shape
                    .index
                    .modules
                    .iter()
                    .position(|m| m.name == import.path.dotted())?;
                return match shape.index.scopes[module].get(&name.name)? {
                    crate::check::modules_symbol::Symbol::Table(t) => {
                        Some(Target::Table(t.clone()))
                    }
                    crate::check::modules_symbol::Symbol::Def(d) => Some(Target::Def(*d)),
                    crate::check::modules_symbol::Symbol::Aggregate(a) => {
                        Some(Target::Aggregate(a.clone()))
                    }
                    _ => None,
                };
            }
        }
    }
    None
}

fn locate(analysis: &Analysis, file: &str, target: &Target) -> Option<(String, Span)> {
    let shape = analysis.shape();
    let table_item = |table: &str| -> Option<(String, crate::syntax::ast::Table)> {
        let (decl_file, _) = shape_details(&analysis.db, analysis.workspace)
            .table_decls
            .get(table)?
            .clone();
        let parsed = analysis.file_syntax(&decl_file)?;
        parsed.module.items.iter().find_map(|item| match item {
            Item::Table(t) if t.name.name == table => Some((decl_file.clone(), t.clone())),
            _ => None,
        })
    };
    match target {
        Target::Local(span) => Some((file.to_string(), *span)),
        Target::Table(table) => shape_details(&analysis.db, analysis.workspace)
            .table_decls
            .get(table)
            .cloned(),
        Target::Def(id) => {
            let info = shape.index.defs.get(*id)?;
            let def_file = shape.index.modules[info.module].file.clone();
            let source = analysis
                .workspace
                .files(&analysis.db)
                .iter()
                .copied()
                .find(|f| *f.name(&analysis.db) == def_file)?;
            match parse_file(&analysis.db, source)
                .module
                .items
                .get(info.item)?
            {
                Item::Def(def) => Some((def_file, def.name.span)),
                _ => None,
            }
        }
        Target::Column(table, column) => {
            let (decl_file, t) = table_item(table)?;
            t.members.iter().find_map(|m| match m {
                TableMember::Field(f) if f.name.name == *column => {
                    Some((decl_file.clone(), f.name.span))
                }
                _ => None,
            })
        }
        Target::Aggregate(name) => {
            analysis
                .workspace
                .files(&analysis.db)
                .iter()
                .find_map(|source| {
                    let parsed = parse_file(&analysis.db, *source);
                    parsed.module.items.iter().find_map(|item| match item {
                        Item::Aggregate(a) if a.name.name == *name => {
                            Some((source.name(&analysis.db).clone(), a.name.span))
                        }
                        _ => None,
                    })
                })
        }
        Target::Index(table, index) => {
            let (decl_file, t) = table_item(table)?;
            t.members.iter().find_map(|m| match m {
                TableMember::Index(i) if i.name.name == *index => {
                    Some((decl_file.clone(), i.name.span))
                }
                TableMember::Field(f) if f.name.name == *index => {
                    Some((decl_file.clone(), f.name.span))
                }
                _ => None,
            })
        }
    }
}

pub use completion::{completions, Completion, CompletionKind};

/// A hint after each query and mutation header: its bound, or that it was rejected.
pub fn inlay_hints(analysis: &Analysis, file: &str) -> Vec<(usize, String)> {
    let Some(parsed) = analysis.file_syntax(file) else {
        return Vec::new();
    };
    let Some(module) = module_of(analysis, file) else {
        return Vec::new();
    };
    let text = analysis
        .files()
        .into_iter()
        .find(|(n, _)| n == file)
        .map(|(_, t)| t)
        .unwrap_or_default();
    let mut hints = Vec::new();
    for item in &parsed.module.items {
        let Item::Def(def) = item else { continue };
        let Some(verdict) = analysis.verdict(&module, &def.name.name) else {
            continue;
        };
        let maxima = (
            verdict.seeks_max(),
            verdict.rows_max(),
            verdict.round_trips_max(),
        );
        let label = match (verdict.accepted, maxima) {
            (true, (Some(s), Some(r), Some(t))) => {
                format!(
                    "seeks ≤ {s} · rows ≤ {r} · round trips ≤ {t} · {}",
                    verdict.class
                )
            }
            (true, _) => format!(
                "seeks ≤ {} · rows ≤ {} · round trips ≤ {}",
                verdict.cost.seeks, verdict.cost.rows, verdict.cost.trips
            ),
            (false, _) => "rejected".to_string(),
        };
        // At the end of the header's line.
        let start = def.name.span.end as usize;
        let end = text[start..]
            .find('\n')
            .map(|i| start + i)
            .unwrap_or(text.len());
        hints.push((end, format!("  {label}")));
    }
    hints
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: &'static str,
    pub span: Span,
    pub selection: Span,
    pub children: Vec<Symbol>,
}

/// The tables (with their columns and indexes) and definitions of a file.
pub fn symbols(analysis: &Analysis, file: &str) -> Vec<Symbol> {
    let Some(parsed) = analysis.file_syntax(file) else {
        return Vec::new();
    };
    parsed
        .module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Table(t) => Some(Symbol {
                name: t.name.name.clone(),
                kind: "table",
                span: t.span,
                selection: t.name.span,
                children: t
                    .members
                    .iter()
                    .filter_map(|m| match m {
                        TableMember::Field(f) => Some(Symbol {
                            name: f.name.name.clone(),
                            kind: "column",
                            span: f.span,
                            selection: f.name.span,
                            children: Vec::new(),
                        }),
                        TableMember::Index(i) => Some(Symbol {
                            name: i.name.name.clone(),
                            kind: "index",
                            span: i.span,
                            selection: i.name.span,
                            children: Vec::new(),
                        }),
                        _ => None,
                    })
                    .collect(),
            }),
            Item::Def(d) => Some(Symbol {
                name: d.name.name.clone(),
                kind: d.kind.keyword(),
                span: d.span,
                selection: d.name.span,
                children: Vec::new(),
            }),
            Item::Aggregate(a) => Some(Symbol {
                name: a.name.name.clone(),
                kind: "aggregate",
                span: a.span,
                selection: a.name.span,
                children: Vec::new(),
            }),
            Item::Import(_) => None,
        })
        .collect()
}
