//! A call an `if`'s condition holds and that the `if` gives again (`if limit_of(n) > 50 { 50 } else { limit_of(n) }`), computed once by a `let` before it under a name no program can write, so that what the condition proves of it holds where it is given again (spec/cost.md §3.1, "A call written twice").
//!
//! Not in a mutation, and only where the `if` reaches no function value
//! (the only way a query or a function writes: a mutation's lambda it is
//! given): there every call reads one snapshot
//! and returns the same value each time it is made with the same
//! arguments, so computing it once changes no result, and no more work
//! is done than the `if` did. An occurrence is the same value only where
//! every name it reads is bound as at the `if`: one under a lambda or a
//! `let` that binds such a name again is left as it is, and so is one
//! past a test of what the call is given.

use super::expr::{Checker, Target};
use super::modules::Symbol;
use super::signature::FnSig;
use super::tir::TExpr;
use super::types::Ty;
use crate::syntax::ast::{BinaryOp, DefKind, Expr, ExprKind, Ident, Stmt};
use crate::syntax::printer::print_expr;

/// The most nodes an `if` may hold for a call in it to be shared: a
/// larger one is checked as written (which is sound), so that a deep
/// nest of `if`s is neither searched nor copied again at every level (a
/// nest of 800 copied its whole subtree at each, for 30 s).
const SHARED_IF_NODES: usize = 2048;

/// What the checker answers of the names and calls an `if` holds.
struct Tests<'t> {
    /// Whether a call may be shared (`Checker::shareable_call`).
    shareable: &'t dyn Fn(&Expr) -> bool,
    /// Whether a callee names a definition, whose arguments are
    /// evaluated before it is.
    is_definition: &'t dyn Fn(&Expr) -> bool,
    /// Whether a name is bound where the `if` is.
    bound: &'t dyn Fn(&str) -> bool,
    /// Whether a name a test reads may say something of another value (a
    /// `let`, a lambda's parameter, a name bound inside the `if`), not a
    /// parameter or a definition, which say nothing of the arguments.
    may_alias: &'t dyn Fn(&str) -> bool,
    /// Whether the `if` reads a name that may hold a function
    /// (`Checker::reaches_a_function_value`): asked last, once the `if`
    /// is known to be small enough, since it walks the whole `if`.
    reaches_a_function: &'t dyn Fn(&Expr) -> bool,
}

/// The most calls of one condition tried as the one to share, outermost
/// first: each is compared with every call of the `if` (a nest of 960
/// calls tried each took 39 s to check, adversary round 68).
const CANDIDATES: usize = 4;

/// The `if` rewritten with a repeated call computed once.
pub(super) struct Shared {
    /// `{ let <call> = call; if … }`, each occurrence the name.
    pub block: Expr,
    /// The occurrences replaced outside the `let`'s own (for the editor's
    /// references, which the name alone would lose).
    pub replaced: Vec<Expr>,
}

/// The `if` (`cond`, `then`, `otherwise`, spanning `span`) with the first
/// call its condition always makes ([`strict_calls`]) that the `if` makes
/// again outside a lambda, computed once before it; `None` where there is
/// none. Only a call `tests.shareable` admits is (one whose condition says
/// nothing of its arguments, which the name would not carry), and not
/// where the condition tests the arguments too. A call whose name
/// (its printed text) is bound already (`bound`: an enclosing `if` shared
/// a call written alike, under names bound again since) is not shared,
/// so no name means two values.
fn share_repeated_call(
    span: crate::span::Span,
    (cond, then, otherwise): (&Expr, &Expr, &Expr),
    tests: &Tests<'_>,
) -> Option<Shared> {
    let mut candidates = Vec::new();
    strict_calls(cond, tests.is_definition, &mut candidates);
    candidates.retain(|call| (tests.shareable)(call));
    candidates.truncate(CANDIDATES);
    if candidates.is_empty() {
        return None;
    }
    let mut left = SHARED_IF_NODES;
    for part in [cond, then, otherwise] {
        if !within(part, &mut left) {
            return None;
        }
    }
    // An `if` binds no name: it reads what its parts read.
    if [cond, then, otherwise]
        .into_iter()
        .any(|part| (tests.reaches_a_function)(part))
    {
        return None;
    }
    let mut budget = SHARED_IF_NODES;
    for call in candidates {
        let shown = hidden_name(call);
        if (tests.bound)(&shown) {
            continue;
        }
        let reads = call.free_names();
        let arguments = argument_names(call);
        // What may say something of the arguments: their names, and any
        // name that may stand for one (`let m = n`, `let ok = n <= 10`).
        // An argument that may stand for another value (`lim(m)` after
        // `let m = n`) is related to every name in scope.
        let aliased = arguments.iter().any(|a| (tests.may_alias)(a));
        let related = |name: &str| {
            arguments.iter().any(|a| a == name)
                || (tests.may_alias)(name)
                || (aliased && (tests.bound)(name))
        };
        // A condition that tests what the call is given too (`lim(n) > 3
        // && n <= 10`) narrows the arguments in its branches, where the
        // call recomputed is bounded by them and the name is not
        // (adversary rounds 67, 68): left as written.
        if mentions_outside(cond, call, &related) {
            continue;
        }
        let mut sharing = Sharing {
            call,
            shown: &shown,
            reads: &reads,
            related: &related,
            inside: Vec::new(),
            replaced: Vec::new(),
            budget: &mut budget,
        };
        let then2 = sharing.replace(then);
        let otherwise2 = sharing.replace(otherwise);
        if *sharing.budget == 0 {
            return None;
        }
        if sharing.replaced.is_empty() {
            continue;
        }
        let cond2 = sharing.replace(cond);
        if *sharing.budget == 0 {
            return None;
        }
        let name = Ident {
            name: shown.clone(),
            span: call.span,
        };
        let shared_if = Expr::new(
            ExprKind::If(Box::new(cond2), Box::new(then2), Box::new(otherwise2)),
            span,
        );
        let replaced = sharing
            .replaced
            .into_iter()
            .filter(|e| e.span != call.span)
            .collect();
        let block = Expr::let_in(name, call.clone(), shared_if, span);
        return Some(Shared { block, replaced });
    }
    None
}

/// The name a shared call is computed under: its printed text, which no
/// program can write as a name (it holds a parenthesis), with each `.`
/// written `․` (U+2024, one dot leader, which looks the same): narrowing
/// keeps a field's facts under `name.field`, so `mods.lim(n)` or `lim(r.n)`
/// named with a dot proved nothing of the name (adversary round 66).
fn hidden_name(call: &Expr) -> String {
    print_expr(call).replace('.', "\u{2024}")
}

/// Whether `expr` has at most `left` nodes, counted off `left`; stops as
/// soon as it has more.
fn within(expr: &Expr, left: &mut usize) -> bool {
    if *left == 0 {
        return false;
    }
    *left -= 1;
    expr.children().into_iter().all(|child| within(child, left))
}

/// The calls `expr` makes whenever it is evaluated, outermost first:
/// not under a lambda or a block, nor on the right of `&&` or `||`, in
/// an `if`'s branches, or among a built-in's arguments (`unwrap_or`'s
/// default), which may not be evaluated. Hoisted before the `if`, such a
/// call would run where the condition skips it (`n != 0 && inv(n) > 5`
/// with `n` 0 divided by zero; adversary round 66). A definition's
/// arguments (`is_definition` of its callee) are evaluated before it is.
fn strict_calls<'e>(
    expr: &'e Expr,
    is_definition: &dyn Fn(&Expr) -> bool,
    found: &mut Vec<&'e Expr>,
) {
    if matches!(expr.kind, ExprKind::Call(..) | ExprKind::Pipe(..)) {
        found.push(expr);
    }
    let strict: Vec<&Expr> = match &expr.kind {
        ExprKind::Lambda(..) | ExprKind::Block(..) | ExprKind::Update(..) => Vec::new(),
        ExprKind::If(cond, _, _) => vec![cond],
        ExprKind::Binary(BinaryOp::And | BinaryOp::Or, left, _) => vec![left],
        ExprKind::Call(callee, args) => std::iter::once(&**callee)
            .chain(args.iter().filter(|_| is_definition(callee)))
            .collect(),
        // The stage is no call of its own (`count()` in `xs |> count()`
        // is given `xs`): only what it is given is.
        ExprKind::Pipe(input, stage) => match &stage.kind {
            ExprKind::Call(callee, args) if is_definition(callee) => {
                std::iter::once(&**input).chain(args).collect()
            }
            _ => vec![input],
        },
        _ => expr.children(),
    };
    for part in strict {
        strict_calls(part, is_definition, found);
    }
}

impl Checker<'_> {
    /// The `if` (`expr`, of `cond`, `then`, `otherwise`) with a call its
    /// condition makes and it makes again computed once
    /// ([`share_repeated_call`]), in a definition that cannot write;
    /// `None` where there is none.
    pub(super) fn shared_if(
        &self,
        expr: &Expr,
        (cond, then, otherwise): (&Expr, &Expr, &Expr),
    ) -> Option<Shared> {
        // Nor in a body checked at each application of a lambda (`let h
        // = x => if cnt(a) > 5 …; h(y => y) + h(1)`): whether it reaches
        // a function may differ from one application to the next, and the
        // plan holds one body for all (adversary round 68: E0631).
        // Not in a mutation, whose body writes. Elsewhere only a function
        // value (a parameter's, a stream's `map`) may run a mutation's
        // writing lambda, and an `if` that reaches none
        // (`reaches_a_function_value`, asked in `share_repeated_call`)
        // writes nothing between the two calls, even in a function given
        // one it applies elsewhere (adversary round 70).
        if self.kind == DefKind::Mutation || self.lambda_checks.applying > 0 {
            return None;
        }
        let tests = Tests {
            shareable: &|call: &Expr| self.shareable_call(call),
            is_definition: &|callee: &Expr| self.definition_named(callee).is_some(),
            bound: &|name: &str| self.local(name).is_some(),
            may_alias: &|name: &str| self.may_alias(name),
            reaches_a_function: &|expr: &Expr| self.reaches_a_function_value(expr),
        };
        share_repeated_call(expr.span, (cond, then, otherwise), &tests)
    }

    /// Whether `name`, read by a test inside an `if`, may say something
    /// of another value: a `let` (`let m = n`, `let ok = n <= 10`), a
    /// lambda's parameter, a name bound inside the `if`; not a parameter
    /// of the definition, a call shared already, a definition, a table or
    /// a module.
    fn may_alias(&self, name: &str) -> bool {
        // A call shared already (its name holds a parenthesis): what a
        // test proves of its value says nothing of its arguments.
        if name.contains('(') {
            return false;
        }
        match self.local(name) {
            Some(local) => {
                let entry_parameter = matches!(local.tir, TExpr::Param(_));
                let parameter = self
                    .fn_params
                    .iter()
                    .any(|(n, binding)| n == name && *binding == local.binding);
                !entry_parameter && !parameter
            }
            None => self.index.lookup(self.module, name).is_none(),
        }
    }

    /// Whether `expr` reads a name bound to a value that may hold a
    /// function (or a type parameter or a stream, which may carry one): a
    /// lambda a function returns (`g => if owned(o) > 2 { 2 } else { g(0)
    /// + owned(o) }`) is given one by its caller, perhaps a mutation's
    /// that writes, between the two calls (adversary round 67: the second
    /// read the count from before the write). Without one, nothing the
    /// `if` runs can write.
    fn reaches_a_function_value(&self, expr: &Expr) -> bool {
        expr.free_idents().into_iter().any(|ident| {
            self.local(&ident.name).is_some_and(|local| {
                local.ty.holds_fn()
                    || !local.ty.generics().is_empty()
                    || local.ty.any(&|t| matches!(t, Ty::Stream(_)))
            })
        })
    }

    /// The signature of the definition `callee` names (`lim`,
    /// `mods.lim`); `None` for a local value or a built-in.
    fn definition_named(&self, callee: &Expr) -> Option<FnSig> {
        let local = match &callee.kind {
            ExprKind::Name(name) => self.local(&name.name).is_some(),
            ExprKind::Field(base, _) => {
                matches!(&base.kind, ExprKind::Name(m) if self.local(&m.name).is_some())
            }
            _ => true,
        };
        if local {
            return None;
        }
        self.named_definition_sig(callee)
    }

    /// Whether `call` (a call or a pipe into one) may be shared: a call of
    /// a definition by name, none of whose results a condition reads as a
    /// fact of its arguments (a `Bool` function that proves something of
    /// its parameters, `if small(n) { take(n) }`; one returning a
    /// predicate; one returning its parameter itself, unless an `Int`,
    /// of which a comparison says nothing of the argument). Those facts
    /// would hold of the name alone, and the arguments would lose them.
    /// Nor a built-in (`length(s)`, `unwrap_or(max(xs), n)`), which
    /// narrowing reads as a fact of its argument.
    fn shareable_call(&self, call: &Expr) -> bool {
        let callee = match &call.kind {
            ExprKind::Call(callee, _) => callee,
            ExprKind::Pipe(_, stage) => match &stage.kind {
                ExprKind::Call(callee, _) => callee,
                _ => return false,
            },
            _ => return false,
        };
        self.definition_named(callee).is_some_and(|sig| {
            let passes_on = sig.returns_param.is_some() && !matches!(sig.ret, Ty::Int(_));
            sig.proves.is_none() && sig.returned_guard.is_none() && !passes_on
        })
    }

    /// The references an occurrence replaced by the name made (its
    /// function, its arguments' names), recorded for the editor as if it
    /// had been checked where it is written.
    pub(super) fn refer_names(&mut self, occurrence: &Expr) {
        for ident in occurrence.free_idents() {
            if let Some(local) = self.local(&ident.name) {
                let binding = local.span;
                self.refer(ident.span, || Target::Local(binding));
                continue;
            }
            match self.index.lookup(self.module, &ident.name) {
                Some(Symbol::Def(def)) => {
                    let def = *def;
                    self.refer(ident.span, || Target::Def(def));
                }
                Some(Symbol::Table(table)) => {
                    let table = table.clone();
                    self.refer(ident.span, || Target::Table(table));
                }
                _ => {}
            }
        }
    }
}

/// The names a call's arguments read (not its callee's): `n` of
/// `lim(n)`, `n` and `r` of `n |> f(r.k)`.
fn argument_names(call: &Expr) -> Vec<String> {
    let arguments: Vec<&Expr> = match &call.kind {
        ExprKind::Call(_, args) => args.iter().collect(),
        ExprKind::Pipe(input, stage) => match &stage.kind {
            ExprKind::Call(_, args) => std::iter::once(&**input).chain(args).collect(),
            _ => vec![input],
        },
        _ => Vec::new(),
    };
    let mut names: Vec<String> = Vec::new();
    for name in arguments.into_iter().flat_map(Expr::free_names) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Whether `expr` reads a name `related` admits outside the occurrences
/// of `call` in it and the callees it names (any binding of the name
/// counts: a test of another `n` is taken as one of this `n`, which only
/// leaves more as written).
fn mentions_outside(expr: &Expr, call: &Expr, related: &dyn Fn(&str) -> bool) -> bool {
    if matches!(expr.kind, ExprKind::Call(..) | ExprKind::Pipe(..)) && expr.written_alike(call) {
        return false;
    }
    let named = |callee: &Expr| match &callee.kind {
        ExprKind::Name(_) => true,
        ExprKind::Field(base, _) => matches!(base.kind, ExprKind::Name(_)),
        _ => false,
    };
    match &expr.kind {
        ExprKind::Name(ident) => related(&ident.name),
        ExprKind::Call(callee, args) if named(callee) => {
            args.iter().any(|a| mentions_outside(a, call, related))
        }
        _ => expr
            .children()
            .into_iter()
            .any(|child| mentions_outside(child, call, related)),
    }
}

/// One call's occurrences replaced by the name it is computed under.
struct Sharing<'s> {
    call: &'s Expr,
    /// The call, printed: the name, and how an occurrence is recognised.
    shown: &'s str,
    /// The names it reads: an occurrence under a binding of one is left.
    reads: &'s [String],
    /// Whether a name may say something of what its arguments read: an
    /// occurrence past a test of one (`if n <= 10 { lim(n) }`) is left,
    /// bounded by what the test proves.
    related: &'s dyn Fn(&str) -> bool,
    /// The names `let`s inside the `if` bind on the way to where it is
    /// (each may stand for an argument: `let m = n`, even where a
    /// parameter outside is named `m` too; adversary round 69).
    inside: Vec<String>,
    replaced: Vec<Expr>,
    budget: &'s mut usize,
}

impl Sharing<'_> {
    fn binds_a_read(&self, name: &Ident) -> bool {
        self.reads.contains(&name.name)
    }

    /// Whether `test` reads what may say something of the call's
    /// arguments, outside the call.
    fn tests_the_arguments(&self, test: &Expr) -> bool {
        let related = |name: &str| (self.related)(name) || self.inside.iter().any(|n| n == name);
        mentions_outside(test, self.call, &related)
    }

    /// `expr` with every occurrence the call's names reach replaced.
    fn replace(&mut self, expr: &Expr) -> Expr {
        if *self.budget == 0 {
            return expr.clone();
        }
        *self.budget -= 1;
        if self.is_occurrence(expr) {
            self.replaced.push(expr.clone());
            let name = Ident {
                name: self.shown.to_string(),
                span: expr.span,
            };
            return Expr::new(ExprKind::Name(name), expr.span);
        }
        let kind = match &expr.kind {
            // A lambda may run later, after a mutation that called this
            // definition has written (`x => cnt(b) + x` returned and
            // applied after an insert read the count before it; adversary
            // round 66): its calls are its own.
            ExprKind::Lambda(..) => return expr.clone(),
            ExprKind::Block(stmts, result) => {
                let mut rebound = false;
                let mut shared = Vec::with_capacity(stmts.len());
                let mark = self.inside.len();
                for stmt in stmts {
                    shared.push(match stmt {
                        _ if rebound => stmt.clone(),
                        Stmt::Let { name, ty, value } => {
                            let value = self.replace(value);
                            rebound = self.binds_a_read(name);
                            self.inside.push(name.name.clone());
                            Stmt::Let {
                                name: name.clone(),
                                ty: ty.clone(),
                                value,
                            }
                        }
                        Stmt::Expr(e) => Stmt::Expr(self.replace(e)),
                    });
                }
                let result = if rebound {
                    (**result).clone()
                } else {
                    self.replace(result)
                };
                self.inside.truncate(mark);
                ExprKind::Block(shared, Box::new(result))
            }
            // A definition that cannot write holds no `update` (whose row
            // name binds); left as it is.
            ExprKind::Update(..) => return expr.clone(),
            // A branch, or the right of `&&` or `||`, past a test of what
            // the call is given is left: the test narrows the arguments
            // there, which bounds the call recomputed and not the name.
            ExprKind::If(c, a, b) => {
                let c2 = self.replace(c);
                let (a2, b2) = match self.tests_the_arguments(c) {
                    true => ((**a).clone(), (**b).clone()),
                    false => (self.replace(a), self.replace(b)),
                };
                ExprKind::If(Box::new(c2), Box::new(a2), Box::new(b2))
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), l, r) => {
                let l2 = self.replace(l);
                let r2 = match self.tests_the_arguments(l) {
                    true => (**r).clone(),
                    false => self.replace(r),
                };
                ExprKind::Binary(*op, Box::new(l2), Box::new(r2))
            }
            // The stage is no call of its own, only what it is given.
            ExprKind::Pipe(input, stage) => {
                let mut stage = (**stage).clone();
                for child in children_mut(&mut stage) {
                    *child = self.replace(child);
                }
                ExprKind::Pipe(Box::new(self.replace(input)), Box::new(stage))
            }
            _ => {
                let mut copy = expr.clone();
                for child in children_mut(&mut copy) {
                    *child = self.replace(child);
                }
                return copy;
            }
        };
        Expr::new(kind, expr.span)
    }

    /// Whether `expr` is the call, written the same.
    fn is_occurrence(&self, expr: &Expr) -> bool {
        matches!(expr.kind, ExprKind::Call(..) | ExprKind::Pipe(..))
            && expr.written_alike(self.call)
    }
}

/// [`Expr::children`], to replace; only of the kinds that bind no name.
fn children_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match &mut expr.kind {
        ExprKind::Record(fields) => fields.iter_mut().map(|f| &mut f.value).collect(),
        ExprKind::List(items) | ExprKind::Tuple(items) => items.iter_mut().collect(),
        ExprKind::Field(base, _) => vec![base],
        ExprKind::Call(callee, args) | ExprKind::Index(callee, args) => {
            std::iter::once(&mut **callee)
                .chain(args.iter_mut())
                .collect()
        }
        ExprKind::Pipe(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Range(a, b) => vec![a, b],
        ExprKind::Unary(_, body) | ExprKind::Delete(body) => vec![body],
        ExprKind::If(c, a, b) => vec![c, a, b],
        ExprKind::Insert(_, row) | ExprKind::Upsert(_, row) => vec![row],
        _ => Vec::new(),
    }
}
