//! The checker: names, types and cost bounds of a program's entry points.
//!
//! This version proves bounds for the first path to rows: whole-key reads
//! `T[k]` and single-row `insert`s. Every other construct is reported with
//! E0399 (not yet provable) rather than accepted without proof; the cost
//! calculus of spec/cost.md widens it.

mod entry;
pub mod names;
mod schema;

pub use entry::{Body, CheckedEntry, Operand, Verdict};

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{Item, Module};
use rqc_plan::Schema;
use schema::{build_schema, TableSource};

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

#[derive(Debug)]
pub struct CheckedProgram {
    pub schema: Schema,
    pub entries: Vec<CheckedEntry>,
    /// One per `query` and `mutation`, accepted or not, in source order.
    pub verdicts: Vec<Verdict>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks every file of a program together: tables form one schema.
pub fn check_program(sources: &[SourceModule]) -> CheckedProgram {
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
    let declared: Vec<&str> = tables.iter().map(|t| t.table.name.name.as_str()).collect();
    let mut entries = Vec::new();
    let mut verdicts = Vec::new();
    for source in sources {
        let module = source.module_name();
        let mut seen: Vec<&crate::syntax::ast::Def> = Vec::new();
        for item in &source.module.items {
            let Item::Def(def) = item else { continue };
            if let Some(first) = seen.iter().find(|d| d.name.name == def.name.name) {
                diagnostics.push(
                    Diagnostic::error(
                        "E0203",
                        format!("`{}` is defined twice in module `{module}`", def.name.name),
                        &source.file,
                        def.name.span,
                        "second definition",
                    )
                    .with_secondary(crate::diagnostics::Label::new(
                        &source.file,
                        first.name.span,
                        "first defined here",
                    ))
                    .with_help("rename one of them"),
                );
                continue;
            }
            seen.push(def);
            let context = entry::Context {
                file: &source.file,
                module: &module,
                schema: &schema,
                declared: &declared,
            };
            let (checked, verdict) = entry::check_def(&context, def, &mut diagnostics);
            if let Some(verdict) = verdict {
                verdicts.push(verdict);
            }
            entries.extend(checked);
        }
    }
    CheckedProgram {
        schema,
        entries,
        verdicts,
        diagnostics,
    }
}
