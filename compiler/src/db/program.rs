//! The whole program assembled for a compilation: each definition checked
//! and planned over the cores, what the program takes of it copied out
//! there, then put together in source order on the calling thread.

use super::{
    check_def, def_keys, def_place, parallel, plan_of, planned_verdict, shape_details, Analysis,
    Database, DefDiagnostics, DefKey, DiagnosticsInOrder, PlanResult, Workspace,
};
use crate::check::{CheckedEntry, CheckedProgram, Verdict};
use crate::diagnostics::{Diagnostic, Sources};
use std::sync::Arc;

impl Analysis {
    /// The whole program checked: every verdict in source order, every
    /// diagnostic placed and sorted, the accepted entry points and bodies,
    /// and the plans of the accepted entry points in definition order.
    /// Each definition is checked and planned over the cores, where what
    /// the program takes of it is copied out too ([`DefOutput`]): this
    /// thread then only puts the pieces together.
    pub fn program(&self) -> (CheckedProgram, Sources, Vec<Arc<rqc_plan::Entry>>) {
        self.warm();
        let mut sources = Sources::new();
        for (name, text) in self.files() {
            sources.add(name, text);
        }
        let mut diagnostics = self.shape_diagnostics();
        let shape_sound = !diagnostics.iter().any(Diagnostic::is_error);
        let shape = self.shape();
        let keys = def_keys(&self.db, self.workspace);
        let outputs = parallel::map(&self.db, keys, |db, key| DefOutput::of(db, *key));
        // Where each definition starts, by file: a parse error belongs to
        // the last definition that starts before it (the parser may end a
        // definition early and skip the tokens it could not place).
        let starts: Vec<(String, u32)> = outputs
            .iter()
            .flatten()
            .filter_map(|o| o.place.as_ref())
            .map(|(file, span)| (file.clone(), span.start))
            .collect();
        // A line that starts an item (a piece's start) after that
        // definition's start and before the error: the error is in that
        // item, which did not parse as a definition, and belongs to no
        // definition that did (`query w2(…) = … + …` dropped whole must not
        // reject the `w1` above it).
        let item_starts: Vec<(String, Vec<u32>)> = self
            .workspace
            .files(&self.db)
            .iter()
            .map(|f| (f.name(&self.db).clone(), f.offsets(&self.db).clone()))
            .collect();
        let texts: std::collections::HashMap<String, String> = self
            .workspace
            .files(&self.db)
            .iter()
            .map(|f| (f.name(&self.db).clone(), f.text(&self.db).clone()))
            .collect();
        let owner_start = |file: &str, at: u32| {
            let def = starts
                .iter()
                .filter(|(f, start)| *f == file && *start < at)
                .map(|(_, start)| *start)
                .max()?;
            let item = item_starts
                .iter()
                .filter(|(f, _)| f == file)
                .flat_map(|(_, offsets)| offsets.iter().copied())
                .filter(|start| *start < at)
                .max();
            // Or one that starts later on a line (`query a() = 1 query )`).
            let later_on_a_line = texts
                .get(file)
                .and_then(|text| text.get(def as usize..at as usize))
                .is_some_and(starts_another_item);
            match item {
                Some(item) if item > def => None,
                _ if later_on_a_line => None,
                _ => Some(def),
            }
        };
        let mut verdicts = Vec::new();
        let mut entries = Vec::new();
        let mut plans = Vec::new();
        let mut listed = DiagnosticsInOrder::default();
        let mut functions = std::collections::HashMap::with_capacity(keys.len());
        for (info, output) in shape.index.defs.iter().zip(outputs) {
            let module = &shape.index.modules[info.module];
            let Some(output) = output else {
                continue;
            };
            if module.is_prelude {
                debug_assert!(
                    output
                        .diagnostics
                        .as_ref()
                        .is_none_or(|d| d.checker.is_empty()),
                    "the prelude checks"
                );
            }
            if let Some(placed) = output.diagnostics {
                listed.add(placed, module.is_prelude);
            }
            if let Some(body) = output.body {
                functions.insert(qualified(&module.name, &info.name), body);
            }
            if module.is_prelude {
                continue;
            }
            // A lexical error inside the definition after which the
            // lexer went on with a stand-in (a number too large read as
            // 0) rejects it: no number is ever read as 0 (spec/types.md).
            let broken = output.place.as_ref().and_then(|(file, span)| {
                use crate::syntax::lexer::{RECOVERED_CODES, STAND_IN_CODES};
                diagnostics.iter().find(|d| {
                    let code = d.code.as_str();
                    let at = d.primary.span.start;
                    let inside = at >= span.start && d.primary.span.end <= span.end;
                    // A parse error at a definition's first token belongs
                    // to the one before it, which it ended.
                    let owned = owner_start(file, at) == Some(span.start);
                    d.primary.file == *file
                        && ((STAND_IN_CODES.contains(&code) && inside)
                            || (RECOVERED_CODES.contains(&code) && owned))
                })
            });
            let verdict = match broken {
                Some(d) => Arc::new(Verdict {
                    accepted: false,
                    cause: Some(format!("{}: {}", d.code, d.message)),
                    ..(*output.verdict).clone()
                }),
                None => output.verdict,
            };
            if verdict.accepted {
                entries.extend(output.entry);
                plans.extend(output.plan);
            } else if broken.is_none() {
                plans.extend(output.plan);
            }
            verdicts.push(verdict);
        }
        diagnostics.extend(listed.into_list());
        self.sort_diagnostics(&mut diagnostics);
        let checked = CheckedProgram {
            schema: shape.schema.clone(),
            entries,
            functions,
            verdicts,
            diagnostics,
            shape_sound,
        };
        (checked, sources, plans)
    }
}

/// What the program takes of one checked definition: its verdict (rejected
/// when the planner refused its plan), its typed body, its entry point, its
/// plan, and its diagnostics placed (as
/// [`definition_diagnostics`](super::gather::definition_diagnostics) has
/// them; `None` when it has none, or no place in a file).
struct DefOutput {
    verdict: Arc<Verdict>,
    body: Option<crate::check::tir::FnBody>,
    entry: Option<Arc<CheckedEntry>>,
    plan: Option<Arc<rqc_plan::Entry>>,
    diagnostics: Option<DefDiagnostics>,
    /// The definition's file and span.
    place: Option<(String, crate::Span)>,
}

impl DefOutput {
    /// `None` for a name the program's shape does not hold.
    fn of(db: &Database, key: DefKey<'_>) -> Option<DefOutput> {
        let result = check_def(db, key).as_ref()?;
        let plan = plan_of(db, key);
        let workspace = Workspace::get(db);
        let place = def_place(db, workspace, key);
        let diagnostics = if DefDiagnostics::any(result, plan) {
            place.map(|(file, span)| {
                let tables = &shape_details(db, workspace).table_decls;
                DefDiagnostics::of(result, plan, key.name(db), file.name(db), span, tables)
            })
        } else {
            None
        };
        let place = place.map(|(file, span)| (file.name(db).to_string(), span));
        Some(DefOutput {
            verdict: planned_verdict(result, plan),
            body: result.body.clone(),
            entry: result.entry.clone(),
            plan: plan.and_then(PlanResult::entry),
            diagnostics,
            place,
        })
    }
}

/// `module.name`, in one allocation (a compilation names every definition).
fn qualified(module: &str, name: &str) -> String {
    let mut text = String::with_capacity(module.len() + 1 + name.len());
    text.push_str(module);
    text.push('.');
    text.push_str(name);
    text
}

/// Whether `text`, from a definition's start, holds the keyword of another
/// item after its own (outside strings and comments): `query`, `fn`,
/// `mutation`, `table`, `import`, words no expression uses.
fn starts_another_item(text: &str) -> bool {
    const KEYWORDS: [&str; 5] = ["query", "fn", "mutation", "table", "import"];
    let mut seen_own = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                // To the closing quote (or the line's end: strings stop there).
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' | '\n' => break,
                        _ => {}
                    }
                }
            }
            '/' if text[i..].starts_with("//") => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                if KEYWORDS.contains(&&text[i..end]) {
                    if seen_own {
                        return true;
                    }
                    seen_own = true;
                }
            }
            _ => {}
        }
    }
    false
}
