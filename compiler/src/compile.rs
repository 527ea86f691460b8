//! The whole pipeline in one call: texts in, checked program, plans and diagnostics out.

use crate::check::CheckedProgram;
use crate::db::Analysis;
use crate::diagnostics::{Diagnostic, Sources};
use crate::plan::PlanCheck;
use rqc_plan::CompiledProgram;
use std::sync::Arc;

/// The result of compiling a program; never fails as a whole.
#[derive(Debug)]
pub struct Compilation {
    pub sources: Sources,
    pub checked: CheckedProgram,
    pub program: CompiledProgram,
    /// Syntax and checking diagnostics, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles `(file name, text)` pairs as one program, through the same
/// incremental database the language server uses. A program of 128
/// definitions or more is checked over the cores the process may use (threads
/// of its own, ended before this returns; `RQC_THREADS=1` keeps it to the
/// calling thread, and a value that is not a whole number from 1 to 64 is
/// ignored here: the `rqc` command refuses it, E0601).
pub fn compile(files: &[(String, String)]) -> Compilation {
    compile_checked(files, None)
}

/// As [`compile`], each accepted entry point's plan checked by
/// `plan_check` (the runtime's verifier, passed in by a front end that
/// installs what it compiles): one it refuses is rejected with its code.
pub fn compile_checked(
    files: &[(String, String)],
    plan_check: Option<Arc<dyn PlanCheck>>,
) -> Compilation {
    crate::stack::with_deep_stack(|| compile_analysis(&Analysis::checked_by(files, plan_check)))
}

/// What `rqc check` and `rqc compile` run: [`compile_checked`], for a process that
/// exits once it has reported. The analysis (the salsa database) and the
/// compilation are leaked on purpose, never freed: freeing their many small
/// trees costs about a tenth of a cold check, and the process's exit gives
/// the memory back at once. Everything [`compile`] computes is computed.
pub fn compile_for_exit(
    files: &[(String, String)],
    plan_check: Option<Arc<dyn PlanCheck>>,
) -> &'static Compilation {
    crate::stack::with_deep_stack(|| {
        let analysis: &'static Analysis =
            Box::leak(Box::new(Analysis::checked_by(files, plan_check)));
        &*Box::leak(Box::new(compile_analysis(analysis)))
    })
}

/// Compiles what an analysis holds now.
pub fn compile_analysis(analysis: &Analysis) -> Compilation {
    let (mut checked, sources, plans) = analysis.program();
    let diagnostics = std::mem::take(&mut checked.diagnostics);
    let program = rqc_plan::CompiledProgram {
        format_version: rqc_plan::FORMAT_VERSION,
        schema: checked.schema.clone(),
        entries: plans,
    };
    Compilation {
        sources,
        checked,
        program,
        diagnostics,
    }
}
