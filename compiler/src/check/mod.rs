//! The checker: modules, names, types and provable cost bounds of every definition.
//!
//! It takes parsed files and returns what it could establish — the schema,
//! a verdict per definition, the accepted entry points in typed form — plus
//! diagnostics. It never fails as a whole: a broken definition is rejected
//! and the rest are still checked. spec/cost.md states its rules.

mod access;
mod aggregates;
mod applications;
mod applied_results;
mod batch;
mod blocks;
mod broken;
mod builtins;
mod island_stream;
pub use broken::Broken;
mod application_errors;
mod call_errors;
mod call_functions;
mod call_types;
mod called_values;
mod calls;
mod cascades;
mod condition_reading;
mod counts;
mod dead_branches;
mod declared;
mod declared_functions;
mod declared_lengths;
mod declared_maxima;
mod deferred;
mod definition;
mod elements;
mod expr;
pub mod extremes;
mod fed_types;
mod fields;
mod fits;
mod fixes;
pub mod fn_id;
mod functions;
mod guards;
mod join;
mod lambda_bodies;
mod list_ops;
pub(crate) mod locals;
mod measures;
mod mismatch;
mod module_scope;
mod modules;
pub mod names;
mod narrowed_types;
mod narrowing;
mod none_types;
mod operators;
mod parameters;
mod passing;
mod predicates;
mod range_conditions;
mod reject;
mod repeated_calls;
mod result_checks;
mod returned;
mod returned_guards;
mod reverse;
mod schema;
mod schema_columns;
mod schema_types;
mod self_applied;
mod signature;
mod sum_measures;
mod sums;
pub mod tir;
mod tuple_range;
mod type_binding;
mod type_limits;
mod type_sizes;
pub mod types;
mod unbounded_arguments;
mod unknown_args;
mod upsert;
mod writes;

pub use definition::{CheckedEntry, Outcome};
pub use expr::{Fact, FnSig, Target, TypeText, DEF_MARKER, TABLE_MARKER};
pub use modules::{collect_calls, cycles, ProgramIndex};
pub(crate) use reject::BOUNDED_PART;
pub use writes::STEPPED_ROW;
/// Names and what they stand for, for editors.
pub mod modules_symbol {
    pub use super::modules::Symbol;
}

use crate::cost::Cost;
use crate::diagnostics::{Diagnostic, Label};
use crate::syntax::ast::{DefKind, Item, Module};
use expr::Checker;
use rqc_plan::Schema;
use schema::{build_schema, TableSource};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// One parsed file of a program.
pub struct SourceModule {
    /// The file name diagnostics point into.
    pub file: String,
    /// Shared with the incremental database's parse result.
    pub module: std::sync::Arc<Module>,
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
    /// Why it was rejected: its first error, `E0304: \`f\` could not be
    /// checked, …` (a rejected definition whose result could not be typed
    /// shows this in place of a type).
    pub cause: Option<String>,
}

impl Verdict {
    pub fn seeks_max(&self) -> Option<u64> {
        self.accepted.then(|| self.cost.seeks.max_value()).flatten()
    }

    pub fn rows_max(&self) -> Option<u64> {
        self.accepted.then(|| self.cost.rows.max_value()).flatten()
    }

    /// The most round trips a run may make (its commit included).
    pub fn round_trips_max(&self) -> Option<u64> {
        self.accepted.then(|| self.cost.trips.max_value()).flatten()
    }
}

#[derive(Debug)]
pub struct CheckedProgram {
    pub schema: Schema,
    pub entries: Vec<Arc<CheckedEntry>>,
    /// Accepted definitions by `module.name`: parameter names and typed
    /// body, inlined by the planner at each call (the prelude's too).
    pub functions: HashMap<String, tir::FnBody>,
    /// One per definition of the user's files, in source order.
    pub verdicts: Vec<Arc<Verdict>>,
    pub diagnostics: Vec<Diagnostic>,
    /// No syntax error and no error in the program's shape (schema,
    /// modules, imports, duplicate names): an accepted entry point can run
    /// even when other definitions have errors.
    pub shape_sound: bool,
}

impl CheckedProgram {
    /// The verdict on the definition `name` (the first of that name, in
    /// any module).
    pub fn verdict(&self, name: &str) -> Option<&Verdict> {
        self.verdicts.iter().map(|v| &**v).find(|v| v.name == name)
    }
}

/// The standard library's text, built in.
pub const PRELUDE_TEXT: &str = include_str!("../../../stdlib/prelude.rq");
pub const PRELUDE_FILE: &str = "<prelude>";

/// What the whole program's names and tables establish, before any body is
/// checked: the index, the schema, where each table is declared, and the
/// diagnostics of that level (schema, imports, duplicates).
pub struct Shape {
    /// Shared with the program's shape (see `db::program_shape`), which
    /// would otherwise copy every definition's entry and every scope.
    pub index: std::sync::Arc<modules::ProgramIndex>,
    pub schema: Schema,
    pub table_decls: BTreeMap<String, (String, crate::Span)>,
    pub diagnostics: Vec<Diagnostic>,
    /// Tables whose declaration has an error: kept in the schema (so the
    /// rest of the program is still checked), but no definition that
    /// reads or writes one, or one its writes keep (a reference either
    /// way), gets a bound (`broken::touches_broken`).
    pub broken: std::sync::Arc<broken::Broken>,
}

/// Builds the shape of `sources` (the user's files) with `prelude`.
pub fn shape(sources: &[SourceModule], prelude: &[SourceModule]) -> Shape {
    let mut diagnostics = Vec::new();
    let mut table_decls = BTreeMap::new();
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
    for t in &tables {
        table_decls
            .entry(t.table.name.name.clone())
            .or_insert((t.file.to_string(), t.table.name.span));
    }
    let mut schema = build_schema(&tables, &mut diagnostics);
    let indexed = modules::index_program(sources, prelude, &mut diagnostics);
    let refused_aggregates =
        aggregates::build_aggregates(sources, &indexed.index, &mut schema, &mut diagnostics);
    report_duplicate_defs(sources, &mut diagnostics);
    let mut broken = broken::broken_tables(&tables, &diagnostics);
    broken.written = refused_aggregates;
    Shape {
        index: std::sync::Arc::new(indexed.index),
        schema,
        table_decls,
        diagnostics,
        broken: std::sync::Arc::new(broken),
    }
}

/// Checks definition `id` (whose syntax is `def`) against the shape, with
/// callees' signatures from `sig_of` and the call graph's `cycles`.
/// Diagnostics in the definition's own text use [`DEF_MARKER`] and spans
/// relative to `def`'s (which the caller parsed from the definition's text
/// alone). The outcome's facts (each expression's type, each name's
/// target) are gathered only when `with_facts` asks for them.
#[allow(clippy::too_many_arguments)]
pub fn check_one(
    index: &modules::ProgramIndex,
    schema: &Schema,
    broken: &broken::Broken,
    sig_of: &dyn Fn(usize) -> Option<FnSig>,
    cycles: &[Vec<usize>],
    id: usize,
    def: &crate::syntax::ast::Def,
    with_facts: bool,
) -> (definition::Outcome, Vec<Diagnostic>) {
    let info = &index.defs[id];
    let module_name = index.modules[info.module].name.clone();
    if let Some(cycle) = cycles.iter().find(|c| c.contains(&id)) {
        let diagnostics = recursion(index, cycle, id, def);
        let verdict = Verdict {
            module: module_name,
            name: info.name.clone(),
            kind: info.kind,
            signature: format!("{}(…)", info.name),
            cost: Cost::zero(),
            accepted: false,
            class: "O(N)",
            cause: diagnostics
                .first()
                .map(|d| format!("{}: {}", d.code, d.message)),
        };
        let outcome = definition::Outcome {
            verdict,
            sig: None,
            entry: None,
            body: None,
            facts: Vec::new(),
        };
        return (outcome, diagnostics);
    }
    let mut checker = Checker {
        index,
        schema,
        sig_of,
        module: info.module,
        file: DEF_MARKER,
        kind: info.kind,
        may_write: info.kind == DefKind::Mutation,
        read_as_stream: None,
        diagnostics: Vec::new(),
        scope: Default::default(),
        // A fact per expression and name: room for a typical definition's
        // from the start (growing copies them, and each is a few hundred
        // bytes).
        facts: with_facts.then(|| Vec::with_capacity(FACTS_EXPECTED)),
        lambdas: Vec::new(),
        lambda_checks: Default::default(),
        own_instances: 0,
        def_measures: Default::default(),
        declared_sizes: Default::default(),
        requirements: Default::default(),
        call_hint: None,
        present_extreme: None,
        inspected: Default::default(),
        untyped_none: None,
        counted_filter: None,
        island_stream: None,
        updating: None,
        comparisons: Vec::new(),
        conditions_open: 0,
        leaves: Vec::new(),
        branch_facts: Vec::new(),
        argument_sums: Vec::new(),
        frames: Default::default(),
        last_lambda_params: Vec::new(),
        last_applied: None,
        checking_entry: false,
        fn_params: Vec::new(),
        sum_measures: Vec::new(),
        largest_value: [None, None],
    };
    let mut outcome = checker.check_definition(def, &module_name);
    outcome.facts = checker.facts.unwrap_or_default();
    broken::reject_if_touching(&mut outcome, schema, broken);
    // A delayed lambda's body is checked at each application: report each
    // of its diagnostics once, in order (a set: a definition may have
    // thousands, and a search of the list for each grew with their square).
    let mut seen = std::collections::HashSet::with_capacity(checker.diagnostics.len());
    let first: Vec<bool> = checker.diagnostics.iter().map(|d| seen.insert(d)).collect();
    let diagnostics: Vec<Diagnostic> = checker
        .diagnostics
        .into_iter()
        .zip(first)
        .filter_map(|(d, first)| first.then_some(d))
        .collect();
    (outcome, diagnostics)
}

/// Room for the facts of a definition of a few lines (a dozen or two).
const FACTS_EXPECTED: usize = 32;

fn report_duplicate_defs(sources: &[SourceModule], diagnostics: &mut Vec<Diagnostic>) {
    for source in sources {
        let mut seen: HashMap<&str, crate::Span, crate::cost::NameHash> =
            HashMap::with_capacity_and_hasher(source.module.items.len(), Default::default());
        for item in &source.module.items {
            let (name, span) = match item {
                Item::Def(def) => (def.name.name.as_str(), def.name.span),
                Item::Table(table) => (table.name.name.as_str(), table.name.span),
                Item::Aggregate(aggregate) => (aggregate.name.name.as_str(), aggregate.name.span),
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

/// E0214 at the call in `def` that continues the cycle.
fn recursion(
    index: &modules::ProgramIndex,
    cycle: &[usize],
    id: usize,
    def: &crate::syntax::ast::Def,
) -> Vec<Diagnostic> {
    let names: Vec<String> = cycle.iter().map(|&d| index.defs[d].name.clone()).collect();
    let i = cycle
        .iter()
        .position(|&d| d == id)
        .expect("the definition is in the cycle");
    let next = cycle[(i + 1) % cycle.len()];
    let mut calls = Vec::new();
    modules::collect_calls(index, index.defs[id].module, def, &mut calls);
    let span = calls
        .iter()
        .find(|(callee, _)| *callee == next)
        .map(|(_, span)| *span)
        .unwrap_or(def.name.span);
    let mut path = names[i..].to_vec();
    path.extend_from_slice(&names[..i]);
    path.push(names[i].clone());
    vec![Diagnostic::error(
        "E0214",
        format!("recursion is not allowed: {}", path.join(" → ")),
        DEF_MARKER,
        span,
        "this call closes the cycle",
    )
    .with_help("iterate with the bounded combinators instead: `xs |> map(…)`, `flat_map`, `filter`, over a bounded list")
    .with_note("a recursive definition could run any number of times, so no bound could be proved")]
}
