//! Quick fixes: the code a rejection's help line proposes, as edits an editor applies (a declaration to add, the read that replaces the rejected pipe).

use crate::check::BOUNDED_PART;
use crate::db::{shape_details, Analysis};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Item, Table};
use crate::syntax::printer::print_expr;

/// An edit: replace `span` of `file` with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: String,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub title: String,
    pub edits: Vec<Edit>,
}

/// Where a help line's proposed read is written, in its text.
const READS: [&str; 7] = [
    "then read `",
    "then read the range `",
    "instead: `",
    "in place of the count: `",
    "in place of the sum: `",
    "in place of the min: `",
    "in place of the max: `",
];

/// For each help line of a rejection that proposes code: an action that
/// applies it. A declaration (`index …` or `bound …` in a table,
/// `aggregate …` or `import …` in the diagnostic's file) is added; a proposed read
/// replaces the rejected pipe `input |> f(…)` (with "in place of the
/// count", the `… |> count()` that reads it). A read that ends in
/// `|> take(n)` keeps a `take` or `first` already after the pipe, and
/// otherwise reads at most 100 rows.
pub fn code_actions(analysis: &Analysis, diagnostic: &Diagnostic) -> Vec<Action> {
    diagnostic
        .help
        .iter()
        .filter_map(|help| action_for(analysis, diagnostic, help))
        .collect()
}

fn action_for(analysis: &Analysis, diagnostic: &Diagnostic, help: &str) -> Option<Action> {
    if let Some(edit) = edit_in_place(analysis, diagnostic, help) {
        return Some(edit);
    }
    let declaration = ["`index ", "`bound ", "`aggregate ", "`import "]
        .iter()
        .find_map(|start| {
            let at = help.find(start)?;
            let rest = &help[at + 1..];
            Some(rest[..rest.find('`')?].to_string())
        });
    let mut edits = Vec::new();
    let mut title = String::new();
    if let Some(declaration) = declaration {
        if declaration.contains('…') {
            return None;
        }
        if declaration.starts_with("aggregate ") {
            // Only with the read of it that replaces the rejected count.
            between(help, "then read `", "`")?;
            let file = diagnostic.primary.file.clone();
            let text = analysis.text(&file)?;
            let end = text.len();
            let before = if text.ends_with('\n') { "" } else { "\n" };
            edits.push(Edit {
                file,
                span: Span::new(end, end),
                text: format!("{before}{declaration}\n"),
            });
            title = format!("Declare `{declaration}`");
        } else if declaration.starts_with("import ") {
            edits.push(import_edit(
                analysis,
                &diagnostic.primary.file,
                &declaration,
            )?);
            title = format!("Add `{declaration}`");
        } else {
            let table = between(help, "table `", "`")?;
            let (decl_file, decl) = table_decl(analysis, &table)?;
            // Before the table's closing brace, on a line of its own.
            let close = decl.span.end as usize - 1;
            edits.push(Edit {
                file: decl_file,
                span: Span::new(close, close),
                text: format!("  {declaration}\n"),
            });
            title = format!("Add `{declaration}` to table `{table}`");
        }
    }
    // A read with `…` in it is a template, not code to apply.
    let read = READS
        .iter()
        .find_map(|start| between(help, start, "`"))
        .filter(|read| !read.contains('…'));
    let target = read.as_ref().and_then(|_| {
        let widen = help.contains("in place of the count");
        replaced_pipe(
            analysis,
            &diagnostic.primary.file,
            diagnostic.primary.span,
            widen,
        )
    });
    match (read, target) {
        (Some(read), Some((span, limited))) => {
            let text = match read
                .strip_suffix("|> take(n)")
                .or_else(|| read.strip_suffix("|> take(k)"))
            {
                Some(access) if limited => access.trim_end().to_string(),
                Some(access) => format!("{access}|> take(100)"),
                None => read.clone(),
            };
            edits.push(Edit {
                file: diagnostic.primary.file.clone(),
                span,
                text: text.clone(),
            });
            title = if title.is_empty() {
                format!("Read `{text}` instead")
            } else {
                format!("{title} and read `{text}`")
            };
        }
        // A read with nothing to replace: the declaration alone, if any.
        _ if edits.is_empty() => return None,
        _ => {}
    }
    Some(Action { title, edits })
}

/// The help lines whose fix edits the rejected code where it stands:
/// "append `|> take(100)`" (after the rejected stream), "`… |> take(100) |>
/// f(…)`" (a bounded part of a stage's input), "limit each inner read:
/// `R |> take(10)`" (the read inside the rejected function), "declare it
/// so: `small table T max 1000 { … }`" (the table's header), "declare a
/// bound on the parameter: `n: Int <= 100`" (the parameter's type).
fn edit_in_place(analysis: &Analysis, diagnostic: &Diagnostic, help: &str) -> Option<Action> {
    let file = diagnostic.primary.file.clone();
    let span = diagnostic.primary.span;
    let action = |title: String, edits: Vec<Edit>| Some(Action { title, edits });
    let at = |offset: usize, text: &str| Edit {
        file: file.clone(),
        span: Span::new(offset, offset),
        text: text.to_string(),
    };
    if let Some(tail) = between(help, "append `", "`") {
        return action(
            format!("Append `{tail}`"),
            vec![at(span.end as usize, &format!(" {tail}"))],
        );
    }
    if help.contains(&format!("`… {BOUNDED_PART}")) {
        // Only for a stage of a pipe, `input |> f(…)`, not a call
        // `f(input, …)` (whose span is the call's own).
        let (pipe, _) = replaced_pipe(analysis, &file, span, false)?;
        if pipe == span {
            return None;
        }
        let take = BOUNDED_PART.strip_prefix("|> ")?;
        return action(
            format!("Read a bounded part first: `{}`", take.trim_end()),
            vec![at(span.start as usize, take)],
        );
    }
    if let Some(limited) = between(help, "limit each inner read: `", "`") {
        let read = limited.strip_suffix(" |> take(10)")?;
        // Inside the rejected function, or the input of a rejected stage.
        let within = replaced_pipe(analysis, &file, span, false).map_or(span, |(pipe, _)| pipe);
        let inner = inner_read(analysis, &file, within, read)?;
        return action(
            format!("Read `{limited}`"),
            vec![Edit {
                file,
                span: inner,
                text: limited.clone(),
            }],
        );
    }
    if let Some(param) = between(help, "declare a bound on the parameter: `", "`") {
        let (name, bound) = param.split_once(": Int ")?;
        let parsed = analysis.file_syntax(&file)?;
        // After the type, replacing what follows it in the parameter when
        // it has no lower end: nothing, or a refused `in a..b` (E0106),
        // which the bound takes the place of; after the lower end else.
        let (start, end) = parsed.module.items.iter().find_map(|item| match item {
            Item::Def(def) if def.span.start <= span.start && span.end <= def.span.end => def
                .params
                .iter()
                .find(|p| p.name.name == name && p.bound.is_none())
                .map(|p| {
                    let end = p.span.end as usize;
                    let start = if p.lower.is_none() {
                        p.ty.span.end as usize
                    } else {
                        end
                    };
                    (start, end)
                }),
            _ => None,
        })?;
        return action(
            format!("Declare `{param}`"),
            vec![Edit {
                file,
                span: Span::new(start, end),
                text: format!(" {bound}"),
            }],
        );
    }
    if let Some(table) = between(help, "declare it so: `small table ", " ") {
        let (decl_file, decl) = table_decl(analysis, &table)?;
        if decl.small_max.is_some() {
            return None;
        }
        let (start, name_end) = (decl.span.start as usize, decl.name.span.end as usize);
        let keyword = start + analysis.text(&decl_file)?[start..name_end].find("table")?;
        let in_decl = |offset: usize, text: &str| Edit {
            file: decl_file.clone(),
            span: Span::new(offset, offset),
            text: text.to_string(),
        };
        return action(
            format!("Declare `{table}` a small table of at most 1000 rows"),
            vec![in_decl(keyword, "small "), in_decl(name_end, " max 1000")],
        );
    }
    None
}

/// The file that declares table `table`, and its declaration there.
fn table_decl<'a>(analysis: &'a Analysis, table: &str) -> Option<(String, &'a Table)> {
    let (file, _) = shape_details(&analysis.db, analysis.workspace)
        .table_decls
        .get(table)
        .cloned()?;
    let decl = analysis
        .file_syntax(&file)?
        .module
        .items
        .iter()
        .find_map(|item| match item {
            Item::Table(t) if t.name.name == table => Some(t),
            _ => None,
        })?;
    Some((file, decl))
}

/// The span of the outermost expression inside `within` of `file` that
/// prints as `read`.
fn inner_read(analysis: &Analysis, file: &str, within: Span, read: &str) -> Option<Span> {
    let parsed = analysis.file_syntax(file)?;
    let mut found: Option<Span> = None;
    for item in &parsed.module.items {
        if let Item::Def(def) = item {
            crate::syntax::depth::each_expr(&def.body, |expr| {
                let inside = expr.span.start >= within.start && expr.span.end <= within.end;
                let outer = found.is_none_or(|f| expr.span.end - expr.span.start > f.end - f.start);
                if inside && outer && print_expr(expr) == read {
                    found = Some(expr.span);
                }
            });
        }
    }
    found
}

/// `import` added to `file`: after its last import, or after its module
/// header, or at its start.
fn import_edit(analysis: &Analysis, file: &str, import: &str) -> Option<Edit> {
    // Only an import of a name its module has (never a template).
    let (module, name) = import.strip_prefix("import ")?.split_once(".{")?;
    let index = &analysis.shape().index;
    index.lookup(index.module_id(module)?, name.strip_suffix('}')?)?;
    let parsed = analysis.file_syntax(file)?;
    let last_import = parsed
        .module
        .items
        .iter()
        .rev()
        .find_map(|item| match item {
            Item::Import(i) => Some(i.span.end as usize),
            _ => None,
        });
    let after = last_import.or(parsed.module.header.as_ref().map(|h| h.span.end as usize));
    let (at, text) = match after {
        Some(end) => (end, format!("\n{import}")),
        None => (0, format!("{import}\n")),
    };
    Some(Edit {
        file: file.to_string(),
        span: Span::new(at, at),
        text,
    })
}

/// The span of `input |> f(…)` in `file` whose `f(…)` is at `call`, or of
/// the call `f(input, …)` at `call` (with
/// `widen`, the `… |> count()` that reads it, unless `f` is `count`), and
/// whether a `take` or `first` reads the result.
fn replaced_pipe(analysis: &Analysis, file: &str, call: Span, widen: bool) -> Option<(Span, bool)> {
    let parsed = analysis.file_syntax(file)?;
    // Each pipe: its span, its input's, its stage's, and the stage's name.
    let mut pipes: Vec<(Span, Span, Span, Option<String>)> = Vec::new();
    // Each call with its input as first argument, `f(input, …)`, the same.
    let mut calls: Vec<(Span, Span, Span, Option<String>)> = Vec::new();
    for item in &parsed.module.items {
        if let Item::Def(def) = item {
            crate::syntax::depth::each_expr(&def.body, |expr| match &expr.kind {
                ExprKind::Pipe(left, right) => {
                    pipes.push((expr.span, left.span, right.span, called(right)));
                }
                ExprKind::Call(_, args) if !args.is_empty() => {
                    calls.push((expr.span, args[0].span, expr.span, called(expr)));
                }
                _ => {}
            });
        }
    }
    let rejected = pipes.iter().find(|p| p.2 == call).or_else(|| {
        // A stage of a pipe is no call of its own input.
        let staged = pipes.iter().any(|p| p.2 == call);
        calls.iter().find(|c| c.2 == call && !staged)
    });
    let (mut span, _, _, name) = rejected?.clone();
    if widen && name.as_deref() != Some("count") {
        let parent = pipes.iter().find(|p| p.1 == span)?;
        if parent.3.as_deref() != Some("count") {
            return None;
        }
        span = parent.0;
    }
    let limited = pipes
        .iter()
        .any(|p| p.1 == span && matches!(p.3.as_deref(), Some("take" | "first")));
    Some((span, limited))
}

/// `f` of a stage `f(…)` or `f`.
fn called(stage: &Expr) -> Option<String> {
    let callee = match &stage.kind {
        ExprKind::Call(callee, _) => callee,
        _ => stage,
    };
    match &callee.kind {
        ExprKind::Name(n) => Some(n.name.clone()),
        _ => None,
    }
}

fn between(text: &str, start: &str, end: &str) -> Option<String> {
    let at = text.find(start)? + start.len();
    let len = text[at..].find(end)?;
    Some(text[at..at + len].to_string())
}
