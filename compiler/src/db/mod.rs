//! The incremental analysis (salsa): file texts in; parse, program shape,
//! per-definition checks and plans as tracked queries. The CLI, the
//! language server and the REPL all ask this database.
//!
//! A file is split into pieces (one per top-level item, by a cheap scan),
//! each a salsa input parsed alone (`syntax.rs`), so a definition's syntax
//! has spans relative to its start: editing one definition parses and
//! re-checks it alone, and its callers only if its signature changed;
//! definitions that merely moved are not re-checked. Diagnostics are placed
//! at their absolute positions when collected.

mod gather;
mod parallel;
mod plans;
pub use crate::plan::{PlanCheck, Refusal};
mod program;
pub use parallel::{threads_setting, MAX_THREADS};
pub use plans::{entry_plan, PlanResult};
use plans::{plan_of, planned_verdict};
mod syntax;
pub use gather::def_keys;
use gather::{
    call_cycles, def_calls, definition_diagnostics, place, DefDiagnostics, DiagnosticsInOrder,
};
pub use syntax::{
    def_offset, def_syntax, layout, parse_piece, skeleton, DefSyntax, ItemSource, Layout, Piece,
    PieceSyntax, Skeleton,
};
use syntax::{def_place, files_by_name};

use crate::check::{self, CheckedEntry, FnSig, Outcome, SourceModule, Verdict};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::Module;
use crate::syntax::parse;
use crate::syntax::pieces::pieces;
use rqc_plan::Schema;
use salsa::Setter;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub name: String,
    /// The whole text: the editor's features read it, the checks read the
    /// pieces.
    #[returns(ref)]
    pub text: String,
    /// The text's pieces, in order (`crate::syntax::pieces`).
    #[returns(ref)]
    pub pieces: Vec<Piece>,
    /// Where each piece starts.
    #[returns(ref)]
    pub offsets: Vec<u32>,
}

/// The files of one program (the prelude is added by [`Analysis`]); one
/// per database, so queries of a definition take its key alone.
#[salsa::input(singleton, debug)]
pub struct Workspace {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
}

/// A definition, by module and name.
#[salsa::interned(debug)]
pub struct DefKey<'db> {
    #[returns(ref)]
    pub module: String,
    #[returns(ref)]
    pub name: String,
}

#[salsa::db]
pub trait Db: salsa::Database {
    /// Records that a tracked query ran (for incremental tests); `event`
    /// is only called while a log is kept.
    fn record(&self, event: &dyn Fn() -> String);

    /// The check each accepted entry point's plan must pass
    /// (`plan_check.rs`); none where the front end installs nothing.
    fn plan_check(&self) -> Option<&dyn PlanCheck>;
}

/// The salsa database.
#[salsa::db]
#[derive(Clone, Default)]
pub struct Database {
    storage: salsa::Storage<Self>,
    log: Arc<Mutex<Option<Vec<String>>>>,
    /// Set when the database is made, never after: a tracked query's
    /// answer depends on it, and salsa would not know it changed.
    plan_check: Option<Arc<dyn PlanCheck>>,
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn record(&self, event: &dyn Fn() -> String) {
        if let Some(log) = self.log.lock().expect("log lock").as_mut() {
            log.push(event());
        }
    }

    fn plan_check(&self) -> Option<&dyn PlanCheck> {
        self.plan_check.as_deref()
    }
}

impl Database {
    /// Starts recording which queries run.
    pub fn start_log(&self) {
        *self.log.lock().expect("log lock") = Some(Vec::new());
    }

    /// The queries that ran since the last call (or `start_log`).
    pub fn take_log(&self) -> Vec<String> {
        self.log
            .lock()
            .expect("log lock")
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// A parsed file. Equal when the syntax trees are (floats in literals are
/// never NaN, so equality is an equivalence).
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub module: Arc<Module>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Eq for Parsed {}

/// The whole file parsed in one go: for the editor's features (hover,
/// completion, definitions), which read bodies at their places. Checking
/// reads the pieces instead.
#[salsa::tracked(returns(ref))]
pub fn parse_file(db: &dyn Db, file: SourceFile) -> Parsed {
    db.record(&|| format!("parse_file({})", file.name(db)));
    let (module, diagnostics) = parse(file.name(db), file.text(db));
    Parsed {
        module: Arc::new(module),
        diagnostics,
    }
}

/// The program's shape: index and schema (no spans, no bodies), so it
/// stays equal while only bodies change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramShape {
    pub index: Arc<check::ProgramIndex>,
    pub schema: Schema,
    /// Tables whose declaration has an error (`check::broken`).
    pub broken: Arc<check::Broken>,
}

fn modules(db: &dyn Db, workspace: Workspace) -> (Vec<SourceModule>, Vec<SourceModule>) {
    let mut user = Vec::new();
    let mut prelude = Vec::new();
    for file in workspace.files(db) {
        let source = SourceModule {
            file: file.name(db).clone(),
            module: skeleton(db, *file).module.clone(),
        };
        if file.name(db) == check::PRELUDE_FILE {
            prelude.push(source);
        } else {
            user.push(source);
        }
    }
    (user, prelude)
}

/// The whole shape, computed once per revision; the two queries below
/// project it, so that each is equal (and its dependents spared) when its
/// part did not change.
#[salsa::tracked(returns(ref), no_eq)]
fn full_shape(db: &dyn Db, workspace: Workspace) -> Arc<check::Shape> {
    db.record(&|| "program_shape".into());
    let (user, prelude) = modules(db, workspace);
    Arc::new(check::shape(&user, &prelude))
}

#[salsa::tracked(returns(ref))]
pub fn program_shape(db: &dyn Db, workspace: Workspace) -> ProgramShape {
    let shape = full_shape(db, workspace);
    ProgramShape {
        index: Arc::clone(&shape.index),
        schema: shape.schema.clone(),
        broken: Arc::clone(&shape.broken),
    }
}

/// The program's schema alone: what a plan is checked against
/// (`entry_plan`), equal (and its dependents spared) while only
/// definitions change.
#[salsa::tracked(returns(ref))]
pub fn program_schema(db: &dyn Db, workspace: Workspace) -> Schema {
    program_shape(db, workspace).schema.clone()
}

/// Where tables are declared, and the diagnostics of the program's shape
/// (schema, imports, duplicates), with their absolute spans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeDetails {
    pub table_decls: BTreeMap<String, (String, Span)>,
    pub diagnostics: Vec<Diagnostic>,
}

#[salsa::tracked(returns(ref))]
pub fn shape_details(db: &dyn Db, workspace: Workspace) -> ShapeDetails {
    let shape = full_shape(db, workspace);
    ShapeDetails {
        table_decls: shape.table_decls.clone(),
        diagnostics: shape.diagnostics.clone(),
    }
}

/// What checking one definition gives; equal when nothing of it changed.
#[derive(Clone, Debug, PartialEq)]
pub struct DefResult {
    /// Shared with the compilation that lists it (as is the entry).
    pub verdict: Arc<Verdict>,
    pub sig: Option<FnSig>,
    pub entry: Option<Arc<CheckedEntry>>,
    pub body: Option<crate::check::tir::FnBody>,
    /// Relative to the definition (see [`check::DEF_MARKER`]).
    pub diagnostics: Vec<Diagnostic>,
}

impl Eq for DefResult {}

#[salsa::tracked(returns(ref))]
pub fn check_def(db: &dyn Db, key: DefKey<'_>) -> Option<DefResult> {
    db.record(&|| format!("check_def({}.{})", key.module(db), key.name(db)));
    let (outcome, diagnostics) = check_key(db, key, false)?;
    Some(DefResult {
        verdict: Arc::new(outcome.verdict),
        sig: outcome.sig,
        entry: outcome.entry.map(Arc::new),
        body: outcome.body,
        diagnostics,
    })
}

/// A definition's facts (each expression's type and cost, each name's
/// target), relative to the definition: checked again for the editor's
/// features alone, which ask for one definition's at a time, so that a
/// check of the whole program keeps none.
#[salsa::tracked(returns(ref))]
pub fn def_facts(db: &dyn Db, key: DefKey<'_>) -> Vec<check::Fact> {
    check_key(db, key, true).map_or_else(Vec::new, |(outcome, _)| outcome.facts)
}

/// Checks the definition `key` names against the program's shape and its
/// callees' signatures (`with_facts`: see [`check::check_one`]).
fn check_key(db: &dyn Db, key: DefKey<'_>, with_facts: bool) -> Option<(Outcome, Vec<Diagnostic>)> {
    let workspace = Workspace::get(db);
    let shape = program_shape(db, workspace);
    let id = shape.index.find(key.module(db), key.name(db))?;
    let syntax = def_syntax(db, workspace, key);
    let def = syntax.def()?;
    // The keys by index position: a callee's key without interning its
    // names again at each call.
    let keys = def_keys(db, workspace);
    let sig_of = |callee: usize| -> Option<FnSig> { def_signature(db, keys[callee]).clone() };
    let cycles = call_cycles(db, workspace);
    Some(check::check_one(
        &shape.index,
        &shape.schema,
        &shape.broken,
        &sig_of,
        cycles,
        id,
        def,
        with_facts,
    ))
}

/// A definition's signature alone: callers depend on this, so a body edit
/// that keeps the signature does not re-check them.
#[salsa::tracked(returns(ref))]
pub fn def_signature(db: &dyn Db, key: DefKey<'_>) -> Option<FnSig> {
    check_def(db, key).as_ref().and_then(|r| r.sig.clone())
}

/// A file's input, its text split into pieces.
fn new_file(db: &Database, name: &str, text: &str) -> SourceFile {
    let (pieces, offsets): (Vec<Piece>, Vec<u32>) = pieces(text)
        .into_iter()
        .map(|(offset, piece)| (Piece::new(db, piece.to_string()), offset as u32))
        .unzip();
    SourceFile::new(db, name.to_string(), text.to_string(), pieces, offsets)
}

/// Sets a file's new text, changing only the pieces whose text changed:
/// in place when the pieces are as many as before, else reusing each piece
/// whose text is still there.
fn update_file(db: &mut Database, file: SourceFile, text: &str) {
    let split = pieces(text);
    let old = file.pieces(db).clone();
    if old.len() == split.len() {
        for (piece, (_, new)) in old.iter().zip(&split) {
            if piece.text(db) != new {
                piece.set_text(db).to(new.to_string());
            }
        }
    } else {
        let mut unused: std::collections::HashMap<String, Vec<Piece>> =
            std::collections::HashMap::new();
        for piece in old.iter().rev() {
            unused
                .entry(piece.text(db).clone())
                .or_default()
                .push(*piece);
        }
        let pieces: Vec<Piece> = split
            .iter()
            .map(|(_, new)| {
                unused
                    .get_mut(*new)
                    .and_then(Vec::pop)
                    .unwrap_or_else(|| Piece::new(&*db, new.to_string()))
            })
            .collect();
        file.set_pieces(db).to(pieces);
    }
    let offsets: Vec<u32> = split.iter().map(|(offset, _)| *offset as u32).collect();
    if *file.offsets(db) != offsets {
        file.set_offsets(db).to(offsets);
    }
    file.set_text(db).to(text.to_string());
}

/// One analysed program: the files, the database, the answers.
pub struct Analysis {
    pub db: Database,
    pub workspace: Workspace,
}

impl Analysis {
    /// A database over `files` (name, text), with the prelude.
    pub fn new(files: &[(String, String)]) -> Analysis {
        Analysis::checked_by(files, None)
    }

    /// As [`Analysis::new`], each accepted entry point's plan checked by
    /// `plan_check` (`plan_check.rs`): what a front end that installs what
    /// it compiles uses.
    pub fn checked_by(
        files: &[(String, String)],
        plan_check: Option<Arc<dyn PlanCheck>>,
    ) -> Analysis {
        let db = Database {
            plan_check,
            ..Database::default()
        };
        let mut inputs = vec![new_file(&db, check::PRELUDE_FILE, check::PRELUDE_TEXT)];
        inputs.extend(files.iter().map(|(name, text)| new_file(&db, name, text)));
        let workspace = Workspace::new(&db, inputs);
        Analysis { db, workspace }
    }

    /// Replaces a file's text (adding the file if new).
    pub fn set_file(&mut self, name: &str, text: &str) {
        match self.file_named(name) {
            Some(file) => {
                if file.text(&self.db) != text {
                    update_file(&mut self.db, file, text);
                }
            }
            None => {
                let file = new_file(&self.db, name, text);
                let mut files = self.workspace.files(&self.db).clone();
                files.push(file);
                self.workspace.set_files(&mut self.db).to(files);
            }
        }
    }

    pub fn remove_file(&mut self, name: &str) {
        let files: Vec<SourceFile> = self
            .workspace
            .files(&self.db)
            .iter()
            .copied()
            .filter(|f| f.name(&self.db) != name)
            .collect();
        self.workspace.set_files(&mut self.db).to(files);
    }

    /// A file's text (not the prelude's), without copying the others.
    pub fn text(&self, name: &str) -> Option<&str> {
        if name == check::PRELUDE_FILE {
            return None;
        }
        self.file_named(name).map(|f| f.text(&self.db).as_str())
    }

    /// The file of that name, through the workspace's map of them: the
    /// language server asks for each file's text and a search of the list
    /// each time grew with files × files.
    fn file_named(&self, name: &str) -> Option<SourceFile> {
        files_by_name(&self.db, self.workspace).get(name)
    }

    pub fn files(&self) -> Vec<(String, String)> {
        self.workspace
            .files(&self.db)
            .iter()
            .filter(|f| f.name(&self.db) != check::PRELUDE_FILE)
            .map(|f| (f.name(&self.db).clone(), f.text(&self.db).clone()))
            .collect()
    }

    /// The plans of every accepted entry point, in definition order.
    pub fn plans(&self) -> Vec<Arc<rqc_plan::Entry>> {
        let shape = self.shape();
        let keys = def_keys(&self.db, self.workspace);
        shape
            .index
            .defs
            .iter()
            .zip(keys)
            .filter(|(info, _)| !shape.index.modules[info.module].is_prelude)
            .filter_map(|(_, key)| plan_of(&self.db, *key)?.entry())
            .collect()
    }

    pub fn shape(&self) -> &ProgramShape {
        program_shape(&self.db, self.workspace)
    }

    pub fn file_syntax(&self, name: &str) -> Option<&Parsed> {
        let file = self
            .workspace
            .files(&self.db)
            .iter()
            .copied()
            .find(|f| f.name(&self.db) == name)?;
        Some(parse_file(&self.db, file))
    }

    /// The result of checking `module.name`, with its diagnostics placed.
    pub fn check(&self, module: &str, name: &str) -> Option<(&DefResult, Vec<Diagnostic>)> {
        let key = DefKey::new(&self.db, module, name);
        let result = check_def(&self.db, key).as_ref()?;
        let shape = self.shape();
        let id = shape.index.find(module, name)?;
        let file = &shape.index.modules[shape.index.defs[id].module].file;
        let offset = def_offset(&self.db, self.workspace, key);
        let tables = &shape_details(&self.db, self.workspace).table_decls;
        let placed = result
            .diagnostics
            .iter()
            .map(|d| place(d, file, offset, tables))
            .collect();
        Some((result, placed))
    }

    /// `module.name`'s verdict as the program gives it (what editors show):
    /// rejected when the planner refused the plan.
    pub fn verdict(&self, module: &str, name: &str) -> Option<Arc<Verdict>> {
        let key = DefKey::new(&self.db, module, name);
        let result = check_def(&self.db, key).as_ref()?;
        Some(planned_verdict(result, plan_of(&self.db, key)))
    }

    /// Every diagnostic of the program, placed and in source order: what an
    /// editor shows after each edit. It clones nothing but the diagnostics
    /// (no bodies, plans or schema), so an edit costs what it re-checks.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut diagnostics = self.shape_diagnostics();
        diagnostics.extend(
            definition_diagnostics(&self.db, self.workspace)
                .iter()
                .cloned(),
        );
        self.sort_diagnostics(&mut diagnostics);
        diagnostics
    }

    /// The diagnostics of syntax and of the program's shape (schema,
    /// modules, imports, duplicates), which every entry point relies on.
    fn shape_diagnostics(&self) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        for file in self.workspace.files(&self.db) {
            if file.name(&self.db) != check::PRELUDE_FILE {
                diagnostics.extend(skeleton(&self.db, *file).diagnostics.iter().cloned());
            }
        }
        diagnostics.extend(
            shape_details(&self.db, self.workspace)
                .diagnostics
                .iter()
                .cloned(),
        );
        diagnostics
    }

    /// Sorts diagnostics by file (in the workspace's order), then offset.
    fn sort_diagnostics(&self, diagnostics: &mut [Diagnostic]) {
        // The first file of a name, as a search of the list finds it.
        let mut order = std::collections::HashMap::new();
        for (at, file) in self.workspace.files(&self.db).iter().enumerate() {
            order.entry(file.name(&self.db).as_str()).or_insert(at);
        }
        diagnostics.sort_by_key(|d| {
            (
                order.get(d.primary.file.as_str()).copied(),
                d.primary.span.start,
            )
        });
    }

    /// Computes, over the cores, what [`Analysis::program`] needs before
    /// it checks the definitions: every piece parsed, the program's shape
    /// and keys, every definition's calls and the call graph (which every
    /// check reads).
    fn warm(&self) {
        let pieces: Vec<Piece> = self
            .workspace
            .files(&self.db)
            .iter()
            .flat_map(|file| file.pieces(&self.db).iter().copied())
            .collect();
        parallel::warm(&self.db, &pieces, |db, piece| {
            parse_piece(db, *piece);
        });
        parallel::aside(&self.db, |db| {
            def_keys(db, self.workspace);
        });
        let keys = def_keys(&self.db, self.workspace);
        parallel::warm(&self.db, keys, |db, key| {
            def_calls(db, *key);
        });
        parallel::aside(&self.db, |db| {
            call_cycles(db, self.workspace);
        });
    }
}
