//! The checker: modules, names, types and provable cost bounds of every definition.
//!
//! It takes parsed files and returns what it could establish — the schema,
//! a verdict per definition, the accepted entry points in typed form — plus
//! diagnostics. It never fails as a whole: a broken definition is rejected
//! and the rest are still checked. spec/cost.md states its rules.

mod access;
mod builtins;
mod calls;
mod definition;
mod expr;
mod modules;
pub mod names;
mod reject;
mod schema;
mod schema_types;
pub mod tir;
pub mod types;
mod writes;

pub use definition::CheckedEntry;
pub use expr::FnSig;

use crate::cost::Cost;
use crate::diagnostics::{Diagnostic, Label};
use crate::syntax::ast::{DefKind, Item, Module};
use expr::Checker;
use rqc_plan::Schema;
use schema::{build_schema, TableSource};
use std::collections::HashMap;

/// One parsed file of a program.
pub struct SourceModule {
    /// The file name diagnostics point into.
    pub file: String,
    pub module: Module,
}

impl SourceModule {
    /// `module a.b` when declared, else the file's stem.
    pub fn module_name(&self) -> String {
        match &self.module.header {
            Some(path) => path.dotted(),
            None => std::path::Path::new(&self.file)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }
}

/// The outcome for one `query`, `mutation` or `fn`.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub module: String,
    pub name: String,
    pub kind: DefKind,
    /// `timeline(u: Int, n: Int <= 100) -> [Post; ≤ 100]`
    pub signature: String,
    pub cost: Cost,
    pub accepted: bool,
    /// `O(log N)` when accepted.
    pub class: &'static str,
}

impl Verdict {
    pub fn seeks_max(&self) -> Option<u64> {
        self.accepted.then(|| self.cost.seeks.max_value()).flatten()
    }

    pub fn rows_max(&self) -> Option<u64> {
        self.accepted.then(|| self.cost.rows.max_value()).flatten()
    }
}

#[derive(Debug)]
pub struct CheckedProgram {
    pub schema: Schema,
    pub entries: Vec<CheckedEntry>,
    /// Accepted definitions by `module.name`: parameter names and typed
    /// body, inlined by the planner at each call (the prelude's too).
    pub functions: HashMap<String, (Vec<String>, tir::TExpr)>,
    /// One per definition of the user's files, in source order.
    pub verdicts: Vec<Verdict>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The standard library's modules, parsed from the RQL text built in.
pub fn prelude() -> Vec<SourceModule> {
    const PRELUDE: &str = include_str!("../../../stdlib/prelude.rq");
    let (module, diagnostics) = crate::syntax::parse("<prelude>", PRELUDE);
    debug_assert!(
        diagnostics.is_empty(),
        "the prelude parses: {diagnostics:?}"
    );
    vec![SourceModule {
        file: "<prelude>".into(),
        module,
    }]
}

/// Checks every file of a program together: tables form one schema, and
/// each module sees its own items, its imports and the prelude.
pub fn check_program(sources: &[SourceModule]) -> CheckedProgram {
    let prelude = prelude();
    let mut diagnostics = Vec::new();
    let tables: Vec<TableSource<'_>> = sources
        .iter()
        .flat_map(|source| {
            source
                .module
                .items
                .iter()
                .filter_map(move |item| match item {
                    Item::Table(table) => Some(TableSource {
                        file: &source.file,
                        table,
                    }),
                    _ => None,
                })
        })
        .collect();
    let schema = build_schema(&tables, &mut diagnostics);
    let index = modules::index_program(sources, &prelude, &mut diagnostics);
    report_duplicate_defs(sources, &mut diagnostics);

    let graph = modules::call_graph(&index);
    let (order, cycles) = modules::check_order(&graph);
    for cycle in &cycles {
        report_recursion(&index, &graph, cycle, &mut diagnostics);
    }
    let mut sigs: HashMap<usize, FnSig> = HashMap::new();
    let mut outcomes: HashMap<usize, definition::Outcome> = HashMap::new();
    let mut functions = HashMap::new();
    for def_id in order {
        let info = &index.defs[def_id];
        let module = &index.modules[info.module];
        let mut checker = Checker {
            index: &index,
            schema: &schema,
            sigs: &sigs,
            module: info.module,
            file: module.file,
            kind: info.def.kind,
            diagnostics: Vec::new(),
            scope: Vec::new(),
        };
        let outcome = checker.check_definition(info.def, &module.name);
        let def_diagnostics = checker.diagnostics;
        if module.is_prelude {
            debug_assert!(
                def_diagnostics.is_empty(),
                "the prelude checks: {def_diagnostics:?}"
            );
        } else {
            diagnostics.extend(def_diagnostics);
        }
        if let Some(sig) = outcome.sig.clone() {
            sigs.insert(def_id, sig);
        }
        if let Some(body) = outcome.body.clone() {
            functions.insert(index.def_name(def_id), body);
        }
        outcomes.insert(def_id, outcome);
    }
    let mut verdicts = Vec::new();
    let mut entries = Vec::new();
    for (def_id, info) in index.defs.iter().enumerate() {
        let module = &index.modules[info.module];
        if module.is_prelude {
            continue;
        }
        match outcomes.remove(&def_id) {
            Some(outcome) => {
                verdicts.push(outcome.verdict);
                entries.extend(outcome.entry);
            }
            None => verdicts.push(Verdict {
                module: module.name.clone(),
                name: info.def.name.name.clone(),
                kind: info.def.kind,
                signature: format!("{}(…)", info.def.name.name),
                cost: Cost::zero(),
                accepted: false,
                class: "O(N)",
            }),
        }
    }
    CheckedProgram {
        schema,
        entries,
        functions,
        verdicts,
        diagnostics,
    }
}

fn report_duplicate_defs(sources: &[SourceModule], diagnostics: &mut Vec<Diagnostic>) {
    for source in sources {
        let mut seen: HashMap<&str, crate::Span> = HashMap::new();
        for item in &source.module.items {
            let (name, span) = match item {
                Item::Def(def) => (def.name.name.as_str(), def.name.span),
                Item::Table(table) => (table.name.name.as_str(), table.name.span),
                Item::Import(_) => continue,
            };
            match seen.get(name) {
                Some(first) => diagnostics.push(
                    Diagnostic::error(
                        "E0203",
                        format!(
                            "`{name}` is defined twice in module `{}`",
                            source.module_name()
                        ),
                        &source.file,
                        span,
                        "second definition",
                    )
                    .with_secondary(Label::new(&source.file, *first, "first defined here"))
                    .with_help("rename one of them"),
                ),
                None => {
                    seen.insert(name, span);
                }
            }
        }
    }
}

fn report_recursion(
    index: &modules::ProgramIndex<'_>,
    graph: &[Vec<(usize, crate::Span)>],
    cycle: &[usize],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let names: Vec<String> = cycle
        .iter()
        .map(|&d| index.defs[d].def.name.name.clone())
        .collect();
    for (i, &def) in cycle.iter().enumerate() {
        let next = cycle[(i + 1) % cycle.len()];
        let Some((_, span)) = graph[def].iter().find(|(callee, _)| *callee == next) else {
            continue;
        };
        let info = &index.defs[def];
        let mut path = names[i..].to_vec();
        path.extend_from_slice(&names[..i]);
        path.push(names[i].clone());
        diagnostics.push(
            Diagnostic::error(
                "E0214",
                format!("recursion is not allowed: {}", path.join(" → ")),
                index.modules[info.module].file,
                *span,
                "this call closes the cycle",
            )
            .with_help("iterate with the bounded combinators instead: `xs |> map(…)`, `flat_map`, `filter`, over a bounded list")
            .with_note("a recursive definition could run any number of times, so no bound could be proved"),
        );
    }
}
