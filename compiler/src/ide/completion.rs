//! Completion: what may be typed at a position — a table's indexes and columns after `T.`, a row's fields, an access's index columns inside its brackets, a written table's columns inside a write's braces, then keywords, combinators, functions, names in scope.

use super::{defs_in, facts_at};
use crate::check::Fact;
use crate::db::Analysis;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Keyword,
    Function,
    Table,
    Index,
    Field,
    Variable,
    Aggregate,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: String,
}

const KEYWORDS: [&str; 25] = [
    "module",
    "import",
    "pub",
    "table",
    "small",
    "fn",
    "query",
    "mutation",
    "let",
    "if",
    "else",
    "insert",
    "update",
    "upsert",
    "as",
    "delete",
    "true",
    "false",
    "none",
    "key",
    "auto",
    "index",
    "bound",
    "in",
    "aggregate",
];

/// Where the last bracket `open` that is still open at the end of `before`
/// is (a `close` after it closes it).
fn unclosed(before: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in before.char_indices().rev() {
        if c == close {
            depth += 1;
        } else if c == open {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// What a keyword completes to, as its detail says (the writes' forms).
fn keyword_detail(keyword: &str) -> String {
    match keyword {
        "upsert" => "upsert T { key, cols }: inserts the row, or changes the columns named of the row with that key".into(),
        "as" => "update T[k] as r { c: r.c + 1 }: names the row as it is before the update".into(),
        "update" => "update R { c: e, n += 1 }: changes the rows of R".into(),
        "insert" => "insert T { cols }: a new row; a column with a default or `?` may be left out, and a `key auto` key (the insert is then the new key)".into(),
        "auto" => "id: Int key auto: the store generates the key an insert leaves out (the table's next, never reused)".into(),
        _ => "keyword".into(),
    }
}

/// After a column's `ref T` on its line (`answer: Int ref Answer o`):
/// the two `on delete` forms, with what each does (spec/cost.md §7.3).
/// `typed` is the text up to the word being typed.
fn on_delete_forms(typed: &str) -> Vec<(&'static str, &'static str)> {
    let line = typed.rsplit('\n').next().unwrap_or("");
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(at) = words.iter().rposition(|w| *w == "ref") else {
        return Vec::new();
    };
    let rest = &words[at + 1..];
    // The target, then nothing or the start of `on delete`.
    let started = matches!(rest, [_] | [_, "on"] | [_, "on", "delete"]);
    if !started {
        return Vec::new();
    }
    vec![
        (
            "on delete cascade",
            "deleting the referenced row deletes this one too; needs `bound column <= n`, the island one delete reads (spec/cost.md §7.3)",
        ),
        (
            "on delete set none",
            "deleting the referenced row sets this optional column to `none`; needs `bound column <= n`, the island one delete reads (spec/cost.md §7.3)",
        ),
    ]
}

/// The columns of the table whose write's braces are open at the end of
/// `before`: `upsert T { `, `insert T { ` or `update T[k] as r { ` (the
/// table named right after `update`).
fn written_columns(schema: &rqc_plan::Schema, before: &str) -> Vec<(String, String)> {
    let Some(open) = unclosed(before, '{', '}') else {
        return Vec::new();
    };
    let head = before[..open].trim_end();
    let Some(at) = ["upsert ", "insert ", "update "]
        .iter()
        .filter_map(|w| head.rfind(w).map(|i| i + w.len()))
        .max()
    else {
        return Vec::new();
    };
    // Past the target, a record field or a statement: another brace.
    if head[at..].contains([':', ';']) {
        return Vec::new();
    }
    let name: String = head[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    // `m.T` names `T` of module `m`; `T.index` is `T`'s.
    let Some(table) = name.split('.').find_map(|segment| schema.table(segment)) else {
        return Vec::new();
    };
    table
        .columns
        .iter()
        .map(|c| (c.name.clone(), format!("{}: {}", table.name, c.declared())))
        .collect()
}

/// Completions at `offset` of `text` (the file as it is being edited).
/// The columns (name, type) of the index or key read by the access whose
/// bracket is open at the end of `before`: `T.index[` or `T[`.
fn access_columns(schema: &rqc_plan::Schema, before: &str) -> Vec<(String, String)> {
    let Some(open) = unclosed(before, '[', ']') else {
        return Vec::new();
    };
    let head = &before[..open];
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|i| i + 1)
        .unwrap_or(0);
    let mut path = head[start..].split('.');
    let Some(table) = path.next().and_then(|t| schema.table(t)) else {
        return Vec::new();
    };
    let columns: Vec<usize> = match path.next() {
        Some(index) => match table.indexes.iter().find(|i| i.name == index) {
            Some(i) => i.columns.clone(),
            None => return Vec::new(),
        },
        None => table.key.clone(),
    };
    columns
        .into_iter()
        .map(|c| {
            let column = &table.columns[c];
            (
                column.name.clone(),
                format!("{}: {}", table.name, column.declared()),
            )
        })
        .collect()
}

pub fn completions(analysis: &Analysis, file: &str, text: &str, offset: usize) -> Vec<Completion> {
    let before = &text[..offset.min(text.len())];
    let word_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(|i| i + 1)
        .unwrap_or(0);
    let shape = analysis.shape();
    let schema = &shape.schema;
    let item = |label: &str, kind: CompletionKind, detail: String| Completion {
        label: label.to_string(),
        kind,
        detail,
    };
    // After `x.`: a table's indexes and columns, or a row's fields.
    if before[..word_start].ends_with('.') {
        let head = &before[..word_start - 1];
        let name_start = head
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map(|i| i + 1)
            .unwrap_or(0);
        let name = &head[name_start..];
        if let Some(table) = schema.table(name) {
            let mut out: Vec<Completion> = table
                .indexes
                .iter()
                .map(|i| {
                    let columns: Vec<&str> = i
                        .columns
                        .iter()
                        .map(|&c| table.columns[c].name.as_str())
                        .collect();
                    item(
                        &i.name,
                        CompletionKind::Index,
                        format!(
                            "{} ({})",
                            if i.unique { "unique" } else { "index" },
                            columns.join(", ")
                        ),
                    )
                })
                .collect();
            out.extend(
                table
                    .columns
                    .iter()
                    .map(|c| item(&c.name, CompletionKind::Field, c.declared())),
            );
            return out;
        }
        // A row: the fields of the type the checker gave the name.
        let types = facts_at(analysis, file, name_start);
        let row = types.iter().find_map(|f| match f {
            Fact::Type { span, ty, .. }
                if span.start as usize == name_start && span.end as usize == head.len() =>
            {
                Some(ty.to_string().trim_end_matches('?').to_string())
            }
            _ => None,
        });
        let tables: Vec<_> = match row.and_then(|t| schema.table(&t).cloned()) {
            Some(t) => vec![t],
            None => schema.tables.clone(),
        };
        return tables
            .iter()
            .flat_map(|t| t.columns.iter().map(move |c| (t.name.clone(), c)))
            .map(|(t, c)| {
                item(
                    &c.name,
                    CompletionKind::Field,
                    format!("{}: {}", t, c.declared()),
                )
            })
            .collect();
    }
    // Inside an access's brackets (`Post.by_time[(at, `, `Follow[u, fol`):
    // the columns of the index or key it reads, in its order, first.
    // Inside a write's braces (`upsert Item { pr`): the table's columns.
    let mut out: Vec<Completion> = on_delete_forms(&before[..word_start])
        .into_iter()
        .map(|(form, detail)| item(form, CompletionKind::Keyword, detail.to_string()))
        .collect();
    out.extend(
        access_columns(schema, before)
            .into_iter()
            .chain(written_columns(schema, before))
            .map(|(name, ty)| item(&name, CompletionKind::Field, ty)),
    );
    out.extend(
        KEYWORDS
            .iter()
            .map(|k| item(k, CompletionKind::Keyword, keyword_detail(k))),
    );
    out.extend(
        rqc_plan::Builtin::ALL
            .iter()
            .map(|b| item(b.name(), CompletionKind::Function, "combinator".into())),
    );
    out.extend(
        crate::syntax::ast::SCALAR_FUNCTIONS
            .iter()
            .map(|f| item(f, CompletionKind::Function, "function of one value".into())),
    );
    out.extend(crate::syntax::ast::CLOCK_FUNCTIONS.iter().map(|f| {
        item(
            f,
            CompletionKind::Function,
            "now(): the transaction's time, microseconds since the Unix epoch (mutations only)"
                .into(),
        )
    }));
    out.extend(crate::syntax::ast::PREDICATE_FUNCTIONS.iter().map(|f| {
        item(
            f,
            CompletionKind::Function,
            "starts_with(s, prefix): a Bool; inside an access, one key range".into(),
        )
    }));
    if let Some(module) = shape.index.modules.iter().position(|m| m.file == file) {
        for (name, symbol) in shape.index.scopes[module].sorted() {
            match symbol {
                crate::check::modules_symbol::Symbol::Table(_) => {
                    out.push(item(name, CompletionKind::Table, "table".into()))
                }
                crate::check::modules_symbol::Symbol::Def(d) => out.push(item(
                    name,
                    CompletionKind::Function,
                    shape.index.defs[*d].kind.keyword().to_string(),
                )),
                crate::check::modules_symbol::Symbol::Aggregate(_) => {
                    out.push(item(name, CompletionKind::Aggregate, "aggregate".into()))
                }
                crate::check::modules_symbol::Symbol::Module(_) => {}
            }
        }
    }
    // Parameters and `let` names of the definition being written.
    if let Some(def) = defs_in(analysis, file)
        .into_iter()
        .rfind(|d| (d.span.start as usize) <= offset)
    {
        let header_end = text[def.span.start as usize..offset.min(text.len())].to_string();
        for (i, _) in header_end.match_indices(':') {
            let name_end = i;
            let name_start = header_end[..name_end]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map(|j| j + 1)
                .unwrap_or(0);
            let name = header_end[name_start..name_end].trim();
            if !name.is_empty() && header_end[..name_start].trim_end().ends_with(['(', ',']) {
                // As declared, ends included (`n: Int >= 0 <= 100`), where
                // the definition parses.
                let declared = analysis.file_syntax(file).and_then(|parsed| {
                    parsed.module.items.iter().find_map(|item| match item {
                        crate::syntax::ast::Item::Def(d) if d.span.start == def.span.start => d
                            .params
                            .iter()
                            .find(|p| p.name.name == name)
                            .map(crate::syntax::printer::print_param),
                        _ => None,
                    })
                });
                let detail = declared.unwrap_or_else(|| "parameter".into());
                out.push(item(name, CompletionKind::Variable, detail));
            }
        }
        // `let` names, and an update's row (`update T[k] as r { … }`).
        for (keyword, detail) in [("let ", "let"), (" as ", "the row being updated")] {
            for (i, _) in header_end.match_indices(keyword) {
                let rest = &header_end[i + keyword.len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(item(&name, CompletionKind::Variable, detail.into()));
                }
            }
        }
    }
    let prefix = &before[word_start..];
    out.retain(|c| c.label.starts_with(prefix));
    out.dedup_by(|a, b| a.label == b.label);
    out
}
