//! The queries over every definition at once: the keys, the call graph's
//! cycles, and every definition's diagnostics placed in its file (with the
//! planner's errors), which the editor asks for after each edit.

use super::{
    check_def, def_syntax, files_by_name, plan_of, program_shape, shape_details, skeleton, Db,
    DefKey, DefResult, PlanResult, Workspace,
};
use crate::check::{self, DEF_MARKER, TABLE_MARKER};
use crate::diagnostics::{Diagnostic, Label};
use crate::plan::PlanError;
use crate::span::Span;
use std::collections::BTreeMap;

/// The definitions a definition names (its edges in the call graph).
#[salsa::tracked(returns(ref))]
pub(super) fn def_calls(db: &dyn Db, key: DefKey<'_>) -> Vec<usize> {
    let workspace = Workspace::get(db);
    let shape = program_shape(db, workspace);
    let syntax = def_syntax(db, workspace, key);
    let (Some(id), Some(def)) = (shape.index.find(key.module(db), key.name(db)), syntax.def())
    else {
        return Vec::new();
    };
    let mut calls = Vec::new();
    check::collect_calls(&shape.index, shape.index.defs[id].module, def, &mut calls);
    calls.into_iter().map(|(callee, _)| callee).collect()
}

/// The call graph's cycles (each definition in one is refused, E0214).
#[salsa::tracked(returns(ref))]
pub(super) fn call_cycles(db: &dyn Db, workspace: Workspace) -> Vec<Vec<usize>> {
    // Borrowed from each definition's memo, not copied: this runs on one
    // thread, between the steps the threads share.
    let edges: Vec<&[usize]> = def_keys(db, workspace)
        .iter()
        .map(|key| def_calls(db, *key).as_slice())
        .collect();
    check::cycles(&edges)
}

/// Every definition's key, in the index's order.
#[salsa::tracked(returns(ref))]
pub fn def_keys(db: &dyn Db, workspace: Workspace) -> Vec<DefKey<'_>> {
    let shape = program_shape(db, workspace);
    shape
        .index
        .defs
        .iter()
        .map(|info| {
            let module = shape.index.modules[info.module].name.as_str();
            DefKey::new(db, module, info.name.as_str())
        })
        .collect()
}

/// The diagnostics of every definition of the user's files, placed, then
/// the planner's errors (E0598), in the index's order: asked again after
/// each edit (definitions move), it only reads what each check left.
#[salsa::tracked(returns(ref))]
pub(super) fn definition_diagnostics(db: &dyn Db, workspace: Workspace) -> Vec<Diagnostic> {
    let shape = program_shape(db, workspace);
    let keys = def_keys(db, workspace);
    let tables = &shape_details(db, workspace).table_decls;
    // Each module's skeleton, asked once here rather than once per
    // definition.
    let skeletons: Vec<Option<&crate::syntax::ast::Module>> = shape
        .index
        .modules
        .iter()
        .map(|m| {
            files_by_name(db, workspace)
                .get(&m.file)
                .map(|file| &*skeleton(db, file).module)
        })
        .collect();
    let mut listed = DiagnosticsInOrder::default();
    for (info, key) in shape.index.defs.iter().zip(keys) {
        let module = &shape.index.modules[info.module];
        let Some(skeleton) = skeletons[info.module] else {
            continue;
        };
        let span = match skeleton.items.get(info.item) {
            Some(crate::syntax::ast::Item::Def(def)) => def.span,
            _ => continue,
        };
        let Some(result) = check_def(db, *key) else {
            continue;
        };
        let placed = DefDiagnostics::of(
            result,
            plan_of(db, *key),
            &info.name,
            &module.file,
            span,
            tables,
        );
        listed.add(placed, module.is_prelude);
    }
    listed.into_list()
}

/// One definition's diagnostics, placed in its file: the checker's, and
/// the planner's error when it refused the plan.
pub(super) struct DefDiagnostics {
    pub checker: Vec<Diagnostic>,
    pub planner: Option<Diagnostic>,
}

impl DefDiagnostics {
    /// `result` and `plan` are definition `name`'s, at `span` in `file`.
    pub fn of(
        result: &DefResult,
        plan: Option<&PlanResult>,
        name: &str,
        file: &str,
        span: Span,
        tables: &BTreeMap<String, (String, Span)>,
    ) -> DefDiagnostics {
        DefDiagnostics {
            checker: result
                .diagnostics
                .iter()
                .map(|d| place(d, file, span.start, tables))
                .collect(),
            planner: match plan {
                Some(PlanResult(Err(error))) => Some(planner_error(name, error, file, span)),
                _ => None,
            },
        }
    }

    /// Whether `result` and `plan` leave a definition any diagnostic: when
    /// not, its place need not be looked up.
    pub fn any(result: &DefResult, plan: Option<&PlanResult>) -> bool {
        !result.diagnostics.is_empty() || plan.is_some_and(|plan| plan.0.is_err())
    }
}

/// The definitions' diagnostics in the order a program lists them (the
/// editor's and the compilation's alike): every definition's checker
/// diagnostics, the prelude's left out, then every planner error.
#[derive(Default)]
pub(super) struct DiagnosticsInOrder {
    checker: Vec<Diagnostic>,
    planner: Vec<Diagnostic>,
}

impl DiagnosticsInOrder {
    /// The next definition's, in the index's order.
    pub fn add(&mut self, placed: DefDiagnostics, in_prelude: bool) {
        if !in_prelude {
            self.checker.extend(placed.checker);
        }
        self.planner.extend(placed.planner);
    }

    pub fn into_list(mut self) -> Vec<Diagnostic> {
        self.checker.append(&mut self.planner);
        self.checker
    }
}

/// Why an accepted entry point has no plan: E0422, a plan past the size
/// limit; E0598, a shape the planner does not know (a bug in rqc: the
/// checker accepted it); the plan verifier's code, a plan the install
/// would refuse (`plan::PlanCheck`).
fn planner_error(name: &str, error: &PlanError, file: &str, span: Span) -> Diagnostic {
    match error {
        PlanError::TooLarge { call, .. } => {
            let help = match call {
                Some(call) => format!(
                    "every call (and every use of a function parameter) is copied into the plan, \
                     so a helper that uses another twice doubles the plan at each level; call \
                     `{call}` fewer times, compute a repeated value once with `let`, or pass it in \
                     as a parameter"
                ),
                None => "split the query into smaller ones".to_string(),
            };
            too_large(name, error, file, span, help)
        }
        PlanError::TooDeep { call } => {
            let help = match call {
                Some(call) => format!(
                    "a call's body is copied into the plan where it is called, so the depths of \
                     helpers that call each other add up (and each `let` nests what follows it); \
                     make `{call}` or the helpers it calls shallower"
                ),
                None => "make the query shallower, or split it into several".to_string(),
            };
            too_large(name, error, file, span, help)
        }
        PlanError::Refused(refusal) => Diagnostic::error(
            error.code(),
            format!(
                "`{name}` would be refused at install by the plan verifier: {}",
                refusal.message
            ),
            file,
            span,
            "accepted by the checker, refused by the plan verifier",
        )
        .with_help(refusal.help.clone()),
        PlanError::Internal(_) => Diagnostic::error(
            error.code(),
            format!("`{name}` could not be planned: {error}"),
            file,
            span,
            "accepted, but not planned",
        )
        .with_help("this is a bug in rqc; please report it with the program"),
    }
}

/// E0422: a plan past the planner's limits (`plan::budget`).
fn too_large(name: &str, error: &PlanError, file: &str, span: Span, help: String) -> Diagnostic {
    Diagnostic::error(
        error.code(),
        format!("`{name}`'s plan is too large: {error}"),
        file,
        span,
        "its plan passes the planner's limits",
    )
    .with_help(help)
}

/// Places a definition's diagnostic: its own spans in its file, table
/// labels at the tables' declarations.
pub(super) fn place(
    diagnostic: &Diagnostic,
    file: &str,
    offset: u32,
    tables: &BTreeMap<String, (String, Span)>,
) -> Diagnostic {
    let label = |label: &Label| -> Option<Label> {
        if label.file == DEF_MARKER {
            let span = Span {
                start: label.span.start + offset,
                end: label.span.end + offset,
            };
            Some(Label::new(file, span, label.message.clone()))
        } else if let Some(table) = label.file.strip_prefix(TABLE_MARKER) {
            tables
                .get(table)
                .map(|(f, span)| Label::new(f.clone(), *span, label.message.clone()))
        } else {
            Some(label.clone())
        }
    };
    let mut placed = diagnostic.clone();
    placed.primary = label(&diagnostic.primary).unwrap_or_else(|| diagnostic.primary.clone());
    placed.secondary = diagnostic.secondary.iter().filter_map(label).collect();
    placed
}
