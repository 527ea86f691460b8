//! Modules and names: which module each file is, what its imports bring, and in what order to check definitions.

use super::module_scope::ModuleScope;
use super::names::NearList;
use super::SourceModule;
use crate::diagnostics::{Diagnostic, Label};
use crate::span::Span;
use crate::syntax::ast::{Def, DefKind, Expr, ExprKind, Ident, Item, Stmt};

/// What a name in a module's scope stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symbol {
    Table(String),
    /// A maintained aggregate, by its (program-wide) name.
    Aggregate(String),
    Def(usize),
    Module(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInfo {
    pub name: String,
    pub file: String,
    pub is_prelude: bool,
}

/// A definition's place and header facts; its body is looked up apart, so
/// that the index stays the same when only a body changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefInfo {
    pub module: usize,
    /// Its position among the module's items.
    pub item: usize,
    pub name: String,
    pub kind: DefKind,
    pub public: bool,
}

/// Every module, definition and scope of a program: names only, no spans
/// and no bodies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramIndex {
    pub modules: Vec<ModuleInfo>,
    pub defs: Vec<DefInfo>,
    /// Per module: the names visible in it (own items, imports, prelude).
    /// (The call graph is apart, from the bodies: [`collect_calls`] for
    /// each definition, then [`cycles`].)
    pub scopes: Vec<ModuleScope>,
    /// Each module's number by its name: a program of thousands of
    /// modules looks one up per import and per definition, and a search
    /// of the list each time grew with modules × modules.
    by_name: std::collections::HashMap<String, usize>,
    /// The module (not the prelude) that declares each table, aggregate
    /// and public definition: where a module without it imports it from.
    homes: std::collections::HashMap<String, usize>,
}

impl ProgramIndex {
    pub fn def_name(&self, id: usize) -> String {
        let info = &self.defs[id];
        format!("{}.{}", self.modules[info.module].name, info.name)
    }

    pub fn lookup(&self, module: usize, name: &str) -> Option<&Symbol> {
        self.scopes[module].get(name)
    }

    /// The number of the module named `name`.
    pub fn module_id(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The module other than `module` that declares `name` (a table, an
    /// aggregate or a public definition), where `module` can import it.
    pub fn home_of(&self, module: usize, name: &str) -> Option<&str> {
        let home = *self.homes.get(name)?;
        (home != module).then(|| self.modules[home].name.as_str())
    }

    /// Records `m` as where `name` is declared, unless a module before it
    /// is (or `m` is the prelude).
    fn add_home(&mut self, name: &str, m: usize) {
        if !self.modules[m].is_prelude && !self.homes.contains_key(name) {
            self.homes.insert(name.to_string(), m);
        }
    }

    /// Adds a module (its name not yet taken), and returns its number.
    fn add_module(&mut self, info: ModuleInfo) -> usize {
        let id = self.modules.len();
        self.by_name.insert(info.name.clone(), id);
        self.modules.push(info);
        id
    }

    pub fn find(&self, module: &str, name: &str) -> Option<usize> {
        let m = self.module_id(module)?;
        match self.scopes[m].get(name)? {
            Symbol::Def(id) if self.defs[*id].module == m => Some(*id),
            // Shadowed by an import of the same name: search the module's own.
            _ => self
                .defs
                .iter()
                .position(|d| d.module == m && d.name == name),
        }
    }
}

/// The index, and the parsed modules it was built from (by module number).
pub struct Indexed<'a> {
    pub index: ProgramIndex,
    pub sources: Vec<&'a SourceModule>,
}

impl<'a> Indexed<'a> {
    pub fn def(&self, id: usize) -> &'a crate::syntax::ast::Def {
        let info = &self.index.defs[id];
        match &self.sources[info.module].module.items[info.item] {
            Item::Def(def) => def,
            _ => unreachable!("a definition's item is a definition"),
        }
    }
}

/// Indexes the program: `sources` are the user's files, `prelude` the
/// standard library (visible everywhere without an import).
pub fn index_program<'a>(
    sources: &'a [SourceModule],
    prelude: &'a [SourceModule],
    diagnostics: &mut Vec<Diagnostic>,
) -> Indexed<'a> {
    let mut index = ProgramIndex::default();
    let mut modules: Vec<&'a SourceModule> = Vec::new();
    for (source, is_prelude) in prelude
        .iter()
        .map(|s| (s, true))
        .chain(sources.iter().map(|s| (s, false)))
    {
        let name = source.module_name();
        if let Some(existing) = index.module_id(&name).map(|m| &index.modules[m]) {
            let span = source
                .module
                .header
                .as_ref()
                .map(|h| h.span)
                .unwrap_or_default();
            diagnostics.push(
                Diagnostic::error(
                    "E0215",
                    format!("module `{name}` is declared by two files"),
                    &source.file,
                    span,
                    "second file",
                )
                .with_note(format!("`{}` declares it too", existing.file))
                .with_help("give each file its own `module` name"),
            );
            continue;
        }
        index.add_module(ModuleInfo {
            name,
            file: source.file.clone(),
            is_prelude,
        });
        modules.push(source);
    }
    // Own items first, so imports can refer to any module's items.
    for (m, source) in modules.iter().enumerate() {
        let mut scope = ModuleScope::with_capacity(source.module.items.len());
        for (position, item) in source.module.items.iter().enumerate() {
            match item {
                Item::Table(table) => {
                    scope.insert(
                        table.name.name.clone(),
                        Symbol::Table(table.name.name.clone()),
                    );
                    index.add_home(&table.name.name, m);
                }
                Item::Def(def) => {
                    if scope.contains(&def.name.name) {
                        continue; // reported by the duplicate check
                    }
                    index.defs.push(DefInfo {
                        module: m,
                        item: position,
                        name: def.name.name.clone(),
                        kind: def.kind,
                        public: def.public,
                    });
                    scope.insert(def.name.name.clone(), Symbol::Def(index.defs.len() - 1));
                    if def.public {
                        index.add_home(&def.name.name, m);
                    }
                }
                Item::Aggregate(aggregate) => {
                    scope.insert_if_absent(
                        aggregate.name.name.clone(),
                        Symbol::Aggregate(aggregate.name.name.clone()),
                    );
                    index.add_home(&aggregate.name.name, m);
                }
                Item::Import(_) => {}
            }
        }
        index.scopes.push(scope);
    }
    let prelude_names: Vec<(String, Symbol)> = (0..index.modules.len())
        .filter(|&m| index.modules[m].is_prelude)
        .flat_map(|m| {
            index.scopes[m]
                .sorted()
                .into_iter()
                .filter(|(_, s)| matches!(s, Symbol::Def(d) if index.defs[*d].public))
                .map(|(n, s)| (n.clone(), s.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut indexed = Indexed {
        index,
        sources: modules,
    };
    let mut near = NearLists::default();
    for m in 0..indexed.index.modules.len() {
        let imported = resolve_imports(&indexed, m, &mut near, diagnostics);
        let index = &mut indexed.index;
        let scope = &mut index.scopes[m];
        for (name, symbol) in imported {
            scope.insert_if_absent(name, symbol);
        }
        if !index.modules[m].is_prelude {
            for (name, symbol) in &prelude_names {
                scope.insert_if_absent(name.clone(), symbol.clone());
            }
        }
    }
    report_import_cycles(&indexed, diagnostics);
    indexed
}

/// The names misspelt imports are compared with, each list made once: the
/// modules, and what each module offers.
#[derive(Default)]
struct NearLists {
    modules: Option<NearList>,
    offered: std::collections::HashMap<usize, NearList>,
}

impl NearLists {
    fn modules(&mut self, index: &ProgramIndex) -> &NearList {
        self.modules.get_or_insert_with(|| {
            let modules = index.modules.iter().filter(|t| !t.is_prelude);
            NearList::new(modules.map(|t| t.name.clone()).collect())
        })
    }

    /// What module `target` offers to an import: its tables, aggregates
    /// and public definitions.
    fn offered(&mut self, indexed: &Indexed<'_>, target: usize) -> &NearList {
        self.offered.entry(target).or_insert_with(|| {
            let items = indexed.sources[target].module.items.iter();
            let offered = items.filter_map(|i| match i {
                Item::Table(t) => Some(t.name.name.clone()),
                Item::Aggregate(a) => Some(a.name.name.clone()),
                Item::Def(d) if d.public => Some(d.name.name.clone()),
                _ => None,
            });
            NearList::new(offered.collect())
        })
    }
}

fn resolve_imports(
    indexed: &Indexed<'_>,
    m: usize,
    near: &mut NearLists,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(String, Symbol)> {
    let index = &indexed.index;
    let module = &index.modules[m];
    let file = module.file.as_str();
    let mut out = Vec::new();
    for item in &indexed.sources[m].module.items {
        let Item::Import(import) = item else { continue };
        let path = import.path.dotted();
        let Some(target) = index.module_id(&path) else {
            let known = near.modules(index);
            let mut d = Diagnostic::error(
                "E0210",
                format!("no module named `{path}`"),
                file,
                import.path.span,
                "unknown module",
            );
            d = match known.closest(&path) {
                Some(close) => d.with_help(format!("did you mean `import {close}`?")),
                None => d.with_help(format!(
                    "add the file that declares `module {path}` to the program (the modules here are: {})",
                    known.listed()
                )),
            };
            diagnostics.push(d);
            continue;
        };
        match &import.names {
            None => {
                let alias = import
                    .path
                    .segments
                    .last()
                    .expect("a path has a segment")
                    .name
                    .clone();
                out.push((alias, Symbol::Module(target)));
            }
            Some(names) => {
                for name in names {
                    match index.scopes[target].get(&name.name) {
                        Some(Symbol::Table(t)) => {
                            out.push((name.name.clone(), Symbol::Table(t.clone())))
                        }
                        Some(Symbol::Aggregate(a)) => {
                            out.push((name.name.clone(), Symbol::Aggregate(a.clone())))
                        }
                        Some(Symbol::Def(d)) if index.defs[*d].public => {
                            out.push((name.name.clone(), Symbol::Def(*d)))
                        }
                        Some(Symbol::Def(d)) => {
                            let def = indexed.def(*d);
                            diagnostics.push(
                                Diagnostic::error(
                                    "E0212",
                                    format!("`{}` is private to module `{path}`", name.name),
                                    file,
                                    name.span,
                                    "not public",
                                )
                                .with_secondary(Label::new(
                                    index.modules[target].file.as_str(),
                                    def.name.span,
                                    "declared without `pub`",
                                ))
                                .with_help(format!(
                                    "mark it public where it is declared: `pub {} {}`",
                                    def.kind.keyword(),
                                    def.name.name
                                )),
                            );
                        }
                        _ => {
                            let known = near.offered(indexed, target);
                            let mut d = Diagnostic::error(
                                "E0211",
                                format!("module `{path}` has no `{}`", name.name),
                                file,
                                name.span,
                                "not declared there",
                            );
                            d = match known.closest(&name.name) {
                                Some(close) => d.with_help(format!("did you mean `{close}`?")),
                                None => d.with_help(format!("`{path}` offers: {}", known.listed())),
                            };
                            diagnostics.push(d);
                        }
                    }
                }
            }
        }
    }
    out
}

fn report_import_cycles(indexed: &Indexed<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let index = &indexed.index;
    let edges: Vec<Vec<(usize, Span)>> = indexed
        .sources
        .iter()
        .map(|source| {
            source
                .module
                .items
                .iter()
                .filter_map(|item| match item {
                    Item::Import(import) => index
                        .module_id(&import.path.dotted())
                        .map(|t| (t, import.path.span)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    for cycle in cycles(
        &edges
            .iter()
            .map(|e| e.iter().map(|(t, _)| *t).collect::<Vec<usize>>())
            .collect::<Vec<_>>(),
    ) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&m| index.modules[m].name.as_str())
            .collect();
        let first = cycle[0];
        let next = cycle[1 % cycle.len()];
        let span = edges[first]
            .iter()
            .find(|(t, _)| *t == next)
            .map(|(_, s)| *s)
            .unwrap_or_default();
        let mut shown = names.clone();
        shown.push(names[0]);
        diagnostics.push(
            Diagnostic::error(
                "E0213",
                format!("modules import each other: {}", shown.join(" → ")),
                index.modules[first].file.as_str(),
                span,
                "this import closes the cycle",
            )
            .with_help("move what both modules need into a third module that both import"),
        );
    }
}

/// The cycles of a directed graph, each once, as the nodes in order
/// (Tarjan's strongly connected components of more than one node, or a
/// node with an edge to itself).
pub fn cycles<E: AsRef<[usize]>>(edges: &[E]) -> Vec<Vec<usize>> {
    struct State<'e, E> {
        edges: &'e [E],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit<E: AsRef<[usize]>>(s: &mut State<'_, E>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].as_ref() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.reverse();
            if component.len() > 1 || s.edges[v].as_ref().contains(&v) {
                s.out.push(component);
            }
        }
    }
    let n = edges.len();
    let mut state = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.out
}

/// The definitions `def`'s body names, with where, as seen from `module`.
/// A name the body binds — a parameter, a `let`, a lambda's parameter, an
/// update's row — is that binding where it is in scope, not a definition
/// (`query f(f: Int) = f + 1` calls nothing).
pub fn collect_calls(index: &ProgramIndex, module: usize, def: &Def, out: &mut Vec<(usize, Span)>) {
    let mut bound: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
    calls_in(index, module, &def.body, &mut bound, out);
}

/// A definition `ident` names, unless a parameter, lambda or `let` binds
/// the name there.
fn called_by_name(
    index: &ProgramIndex,
    module: usize,
    ident: &Ident,
    bound: &[&str],
    out: &mut Vec<(usize, Span)>,
) {
    if bound.contains(&ident.name.as_str()) {
        return;
    }
    if let Some(Symbol::Def(d)) = index.lookup(module, &ident.name) {
        out.push((*d, ident.span));
    }
}

fn calls_in<'e>(
    index: &ProgramIndex,
    module: usize,
    expr: &'e Expr,
    bound: &mut Vec<&'e str>,
    out: &mut Vec<(usize, Span)>,
) {
    let mark = bound.len();
    // A macro, not a closure: a closure would hold `out` across the arms
    // that push to it directly.
    macro_rules! visit {
        ($e:expr, $bound:expr) => {
            calls_in(index, module, $e, $bound, out)
        };
    }
    match &expr.kind {
        // `desc` and `asc` named (not called) are the orders, as the
        // checker reads them (`check_name`), whatever else has the name.
        ExprKind::Name(ident) if matches!(ident.name.as_str(), "desc" | "asc") => {}
        ExprKind::Name(ident) => called_by_name(index, module, ident, bound, out),
        ExprKind::Field(base, field) => {
            if let ExprKind::Name(m) = &base.kind {
                let module_named = !bound.contains(&m.name.as_str());
                if let Some(Symbol::Module(target)) =
                    index.lookup(module, &m.name).filter(|_| module_named)
                {
                    if let Some(Symbol::Def(d)) = index.scopes[*target].get(&field.name) {
                        out.push((*d, field.span));
                    }
                    return;
                }
            }
            visit!(base, bound);
        }
        ExprKind::Record(fields) => fields.iter().for_each(|f| visit!(&f.value, bound)),
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|e| visit!(e, bound))
        }
        ExprKind::Call(callee, args) | ExprKind::Index(callee, args) => {
            match &callee.kind {
                ExprKind::Name(ident) => called_by_name(index, module, ident, bound, out),
                _ => visit!(callee, bound),
            }
            args.iter().for_each(|e| visit!(e, bound));
        }
        ExprKind::Pipe(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Range(a, b) => {
            visit!(a, bound);
            visit!(b, bound);
        }
        ExprKind::Lambda(params, body) => {
            bound.extend(params.iter().map(|p| p.name.as_str()));
            visit!(body, bound);
        }
        ExprKind::Unary(_, body) | ExprKind::Delete(body) => visit!(body, bound),
        ExprKind::If(c, t, e) => {
            visit!(c, bound);
            visit!(t, bound);
            visit!(e, bound);
        }
        ExprKind::Block(stmts, result) => {
            for stmt in stmts {
                match stmt {
                    // In scope from the next statement on.
                    Stmt::Let { name, value, .. } => {
                        visit!(value, bound);
                        bound.push(&name.name);
                    }
                    Stmt::Expr(e) => visit!(e, bound),
                }
            }
            visit!(result, bound);
        }
        ExprKind::Insert(_, row) | ExprKind::Upsert(_, row) => visit!(row, bound),
        ExprKind::Update(target, row, changes) => {
            visit!(target, bound);
            bound.extend(row.iter().map(|r| r.name.as_str()));
            visit!(changes, bound);
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Error => {}
    }
    bound.truncate(mark);
}
