//! The whole pipeline in one call: texts in, checked program, plans and diagnostics out.

use crate::check::{check_program, CheckedProgram, SourceModule};
use crate::diagnostics::{Diagnostic, Sources};
use crate::plan::lower_program;
use crate::syntax::parse;
use rqc_plan::CompiledProgram;

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

/// Compiles `(file name, text)` pairs as one program.
pub fn compile(files: &[(String, String)]) -> Compilation {
    let mut sources = Sources::new();
    let mut diagnostics = Vec::new();
    let mut modules = Vec::new();
    for (file, text) in files {
        sources.add(file.clone(), text.clone());
        let (module, parse_diagnostics) = parse(file, text);
        diagnostics.extend(parse_diagnostics);
        modules.push(SourceModule {
            file: file.clone(),
            module,
        });
    }
    let mut checked = check_program(&modules);
    diagnostics.append(&mut checked.diagnostics);
    let order: Vec<&String> = files.iter().map(|(f, _)| f).collect();
    diagnostics.sort_by_key(|d| {
        (
            order.iter().position(|f| **f == d.primary.file),
            d.primary.span.start,
        )
    });
    let program = lower_program(&checked);
    Compilation {
        sources,
        checked,
        program,
        diagnostics,
    }
}
