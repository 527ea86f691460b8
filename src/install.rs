//! The installation rule, one for the library and the `rqc` front ends: what of a program with errors is installed.
//!
//! A program whose *shape* is sound — no syntax error, and no error in its
//! schema, modules or imports (the compiler's `CheckedProgram::shape_sound`)
//! — installs: its accepted queries and mutations become runnable, and the
//! diagnostics of the definitions the checker rejected come back as
//! warnings in the [`Installed`] report, not as an error. A program whose
//! shape is unsound is an [`Error::Compile`] and installs nothing: every
//! entry point relies on the schema and names it would establish, so none
//! of them can be trusted to mean what its source says.
//!
//! `rqc run`, `explain`, `load` and the REPL's `:load` apply this same rule
//! through [`compile_installable`], so a program runs the same way from the
//! command line and from an embedding application.

use crate::error::Error;
use rqc_compiler::diagnostics::{renderer, RenderOptions};
use rqc_compiler::plan::{PlanCheck, Refusal};
use rqc_compiler::syntax::ast::DefKind;
use rqc_compiler::{compile_checked, Diagnostic, Sources};
use rqc_plan::{CompiledProgram, Entry, Schema};
use std::sync::Arc;

/// A compiled program that may be installed, with what installing it
/// leaves to report.
#[derive(Debug)]
pub struct Installable {
    /// The accepted entry points and the schema, ready to install.
    pub program: CompiledProgram,
    /// What the installation leaves out, and why.
    pub report: Installed,
}

/// What installing a program from sources reports besides success.
#[derive(Debug)]
pub struct Installed {
    /// The queries and mutations that were not installed, as
    /// `module.name`: the checker rejected them (their diagnostics say why).
    pub rejected: Vec<String>,
    /// The rejected definitions' diagnostics — errors, with their codes and
    /// help — and any warnings: reported, but they stopped nothing else.
    pub warnings: Vec<Diagnostic>,
    /// The program's texts, to render the warnings against.
    pub sources: Sources,
}

impl Installed {
    /// Whether every definition was accepted and nothing was said.
    pub fn is_clean(&self) -> bool {
        self.warnings.is_empty()
    }

    /// How many of the warnings are the rejected definitions' errors.
    pub fn errors(&self) -> usize {
        self.warnings.iter().filter(|d| d.is_error()).count()
    }

    /// Whether the query or mutation `name` (or `module.name`) was
    /// rejected, and so is not runnable.
    pub fn is_rejected(&self, name: &str) -> bool {
        self.rejected.iter().any(|full| names(full, name))
    }

    /// The warnings as text, as `rqc check` prints them.
    pub fn render(&self, color: bool) -> String {
        let mut renderer = renderer(&self.sources, RenderOptions { color });
        self.warnings.iter().map(|d| renderer.render(d)).collect()
    }

    /// The warnings as the error of a front end asked to run a rejected
    /// entry point: there they are why it cannot.
    pub fn into_error(self) -> Error {
        Error::Compile {
            diagnostics: self.warnings,
            sources: self.sources,
        }
    }
}

/// Whether `name`, as a caller gives it (`name` or `module.name`), names
/// the definition `full` (`module.name`), as entry points are looked up.
pub(crate) fn names(full: &str, name: &str) -> bool {
    full == name || full.rsplit_once('.').map(|(_, short)| short) == Some(name)
}

/// Compiles `(file name, text)` pairs under the installation rule (see the
/// module's documentation): [`Error::Compile`] when the program's shape is
/// unsound, else the program of its accepted entry points and the report
/// of the rest.
pub fn compile_installable(files: &[(String, String)]) -> Result<Installable, Error> {
    let compilation = compile_verified(files);
    if !compilation.checked.shape_sound {
        return Err(Error::Compile {
            diagnostics: compilation.diagnostics,
            sources: compilation.sources,
        });
    }
    let program = compilation.program;
    // Each plan was verified as it was made ([`InstallCheck`]); the schema
    // is verified here as installing will, so that a schema this rqc
    // compiled and its own verifier refuses says it is a bug in rqc rather
    // than suggest the plan was edited.
    if let Err(mut refused) = rqc_runtime::verifier::verify_schema(&program.schema) {
        refused.help = format!("{BUG}; nothing was installed");
        return Err(Error::Runtime(refused));
    }
    // Rejected by the checker, or accepted and then not planned (E0598) or
    // its plan refused by the verifier: either way, not in the program. (A set: a program of thousands of
    // entry points searched its list once per verdict.)
    let planned: std::collections::HashSet<(&str, &str)> = program
        .entries
        .iter()
        .map(|e| (e.module.as_str(), e.name.as_str()))
        .collect();
    let rejected = compilation
        .checked
        .verdicts
        .iter()
        .filter(|v| v.kind != DefKind::Fn)
        .filter(|v| !planned.contains(&(v.module.as_str(), v.name.as_str())))
        .map(|v| format!("{}.{}", v.module, v.name))
        .collect();
    Ok(Installable {
        program,
        report: Installed {
            rejected,
            warnings: compilation.diagnostics,
            sources: compilation.sources,
        },
    })
}

/// What a refusal of a plan this rqc compiled from the sources means,
/// unless it is a limit of the verifier's own work.
const BUG: &str = "this plan was compiled from the sources by this rqc just now, so its refusal is a bug \
     in rqc (the checker proved what the plan does not keep): please report the program; until then, \
     change or remove this entry point";

/// The runtime's plan verifier, as the compiler asks it of each accepted
/// entry point's plan as it is made (`rqc_compiler::plan::PlanCheck`): a
/// plan the install would refuse is then a rejected definition with the
/// verifier's code, in `rqc check` and the editor as at install. The
/// checker costs a function given to a function once, through its
/// parameters' requirements, where the verifier evaluates it at every
/// application, so only the verifier sees its own work pass its limits
/// (E0641, its steps; E0640, applications nested 64 deep: spec/cost.md
/// §10); any other refusal is a bug in rqc.
pub struct InstallCheck;

impl PlanCheck for InstallCheck {
    fn refusal(&self, schema: &Schema, entry: &Entry) -> Option<Refusal> {
        let refused = rqc_runtime::verifier::verify_entry(schema, entry).err()?;
        let help = match refused.code {
            rqc_runtime::verifier::TOO_MANY_STEPS => {
                "the verifier evaluates a function given to a function at every place it is \
                 applied, so functions that apply the function they are given more than once, \
                 nested level upon level, double its work at each level: nest fewer levels, or \
                 apply the given function once per level"
            }
            rqc_runtime::verifier::TOO_DEEP => {
                "the verifier follows a function given to a function into every place it is \
                 applied, at most 64 applications deep: pass a function on through fewer \
                 functions that each give it to the next"
            }
            _ => BUG,
        };
        Some(Refusal {
            code: refused.code.to_string(),
            message: refused.message,
            help: help.to_string(),
        })
    }
}

/// [`InstallCheck`], as the compiler takes it.
pub fn install_check() -> Arc<dyn PlanCheck> {
    Arc::new(InstallCheck)
}

/// Compiles `(file name, text)` pairs as the installation does: each
/// accepted entry point's plan verified as it is made ([`InstallCheck`]).
pub fn compile_verified(files: &[(String, String)]) -> rqc_compiler::Compilation {
    compile_checked(files, Some(install_check()))
}
