//! Checking expressions: types, costs and the typed IR, one construct at a time.

use super::join::{join_all, join_types};
use super::modules::ProgramIndex;
pub use super::signature::FnSig;
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::Interval;
use crate::cost::{Cost, Poly};
use crate::diagnostics::{Diagnostic, Label};
use crate::span::Span;
use crate::syntax::ast::{DefKind, Expr, ExprKind, Ident};
use rqc_plan::{Schema, Value};
use std::sync::Arc;

/// The file name of a label on table `T`'s declaration, until it is placed.
pub fn table_marker(table: &str) -> String {
    format!("{TABLE_MARKER}{table}")
}

/// Labels in a definition's own text are checked with this file name and
/// spans relative to the definition's start, so that a definition whose
/// text did not change checks to an equal result wherever it moved.
pub const DEF_MARKER: &str = "\u{0}def";
pub const TABLE_MARKER: &str = "\u{0}table:";

/// An expression's type (with the value range of an `Int`), cost and typed form.
#[derive(Clone, Debug)]
pub struct Checked {
    pub ty: Ty,
    pub cost: Cost,
    pub tir: TExpr,
}

impl Checked {
    pub fn new(ty: Ty, cost: Cost, tir: TExpr) -> Checked {
        Checked { ty, cost, tir }
    }

    pub fn error() -> Checked {
        Checked::new(Ty::Error, Cost::zero(), TExpr::Error)
    }
}

/// A name in scope. A `let`-bound stream is not read where it is bound:
/// each use that consumes it reads it (and pays its opening cost) again.
#[derive(Clone)]
pub struct Local {
    pub name: String,
    /// Where the name is bound (for go-to-definition).
    pub span: Span,
    pub ty: Ty,
    pub tir: TExpr,
    /// The binding's identity, kept when an `if` narrows it
    /// (`narrowing.rs`): a comparison narrows the binding it read.
    pub binding: u64,
    /// A `Bool` bound by `let` to a condition: what it says of the
    /// integers it compared, for an `if` that tests the name.
    pub condition: Option<Arc<super::narrowing::Condition>>,
    /// What enclosing `if`s proved of `Int` fields of this binding, by
    /// their path from it (`at` for `q.at`, `inner.lim`): the name bound
    /// again with them in a branch (`narrowing.rs`).
    pub fields: Vec<(String, crate::cost::Interval)>,
    /// An `Int` bound by `let` to a sum of named values and literals
    /// (`let d = n - 5`): that sum, so that a comparison of the name
    /// narrows the names it was made of (`narrowing.rs`).
    pub definition: Option<Arc<super::narrowing::Side>>,
    /// Bound by a `let` inside a condition still open (`if { let t = m
    /// == 2; … } { … }`, a `Bool` function's body): a `Bool` read there by
    /// what its value says only, not its flag's 0 or 1 too, as the plan
    /// verifier reads a `let` inside a condition (`narrowing.rs`).
    pub in_condition: bool,
}

/// What the checker learnt about a place in the source, for editors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// An expression's type and cost.
    Type {
        span: Span,
        ty: TypeText,
        /// Shared with the operator's node in the typed body.
        cost: std::sync::Arc<Cost>,
    },
    /// A name and what it refers to.
    Ref { span: Span, target: Target },
}

/// An expression's type as an editor shows it (`[Post; ≤ 100]`), written
/// out only when read: every expression of every definition has one, and
/// a compile reads none.
#[derive(Clone, Debug)]
pub struct TypeText(Ty);

impl std::fmt::Display for TypeText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Equal when they read the same, as the text they stand for.
impl PartialEq for TypeText {
    fn eq(&self, other: &TypeText) -> bool {
        self.0 == other.0 || self.to_string() == other.to_string()
    }
}

impl Eq for TypeText {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Def(usize),
    Table(String),
    Column(String, String),
    Index(String, String),
    Aggregate(String),
    /// A parameter, `let` or lambda parameter of the same definition.
    Local(Span),
}

pub struct Checker<'p> {
    pub index: &'p ProgramIndex,
    pub schema: &'p Schema,
    pub sig_of: &'p dyn Fn(usize) -> Option<FnSig>,
    pub module: usize,
    pub file: &'p str,
    pub kind: DefKind,
    /// Whether the definition may write: a mutation, or a function
    /// given a function (a caller's writing lambda) or a type parameter.
    /// There a list or an island is not read as a stream (`calls.rs`).
    pub(super) may_write: bool,
    /// Where a list or an island was first read as a stream in this
    /// definition (`calls.rs`): a function that does must not return a
    /// stream or a function (`definition.rs`).
    pub(super) read_as_stream: Option<Span>,
    pub diagnostics: Vec<Diagnostic>,
    /// Shared entries: a delayed lambda keeps the scope it was written in,
    /// and copying it must not copy every type in scope.
    pub(super) scope: super::locals::Locals,
    /// Types and references, in the definition's (relative) spans: kept
    /// only when asked (an editor's hover, definitions and completion read
    /// them; a check for verdicts and plans reads none, and every
    /// expression would have one).
    pub facts: Option<Vec<Fact>>,
    /// The definition's delayed lambdas, by id.
    pub(super) lambdas: Vec<super::functions::LambdaBody>,
    /// The delayed lambdas being applied, and how many bodies were checked.
    pub(super) lambda_checks: super::functions::LambdaChecks,
    /// Instances of returned functions' own variables given so far
    /// (`returned.rs`).
    pub(super) own_instances: u64,
    /// The measures of this definition's parameters (`Generic`): a call's
    /// signature names its own apart from them (`measures::apart`).
    pub(super) def_measures: std::collections::BTreeSet<crate::cost::Var>,
    /// This function's list parameters' declared maxima, by their length's
    /// measure (`|ys|` → 10): proved by every call, so passing the list on
    /// where `<= 10` is asked is within it (`passing.rs`).
    pub(super) declared_sizes: std::collections::BTreeMap<crate::cost::Var, u64>,
    /// What the function parameters' own parameters must admit.
    pub(super) requirements: super::measures::Requirements,
    /// The types a call's result is about to be applied to, for the call
    /// at that span (`deferred.rs`).
    pub(super) call_hint: Option<(crate::span::Span, Vec<Ty>)>,
    /// The span of the `min()` or `max()` checked last, where its list is
    /// known to hold an element (`rqc_cost::Extremes::nonempty`): never
    /// `none`, so an `unwrap_or` of it, checked next, is its value alone
    /// (`builtins.rs`).
    pub(super) present_extreme: Option<crate::span::Span>,
    /// Type parameters whose values the body compares or hashes: a call
    /// may not bind them to streams or functions.
    pub(super) inspected: std::collections::BTreeSet<String>,
    /// The first `none` written where nothing expected an option: its type
    /// comes from where it flows, and a result it leaves untyped is E0536.
    pub(super) untyped_none: Option<Span>,
    /// The `filter(…)` call (its span) whose result `count()` reads, while
    /// its input is checked: its rejection proposes a maintained count.
    pub(super) counted_filter: Option<Span>,
    /// The last island access checked (a scan a declared bound limits,
    /// read in full as a list), as the stream it also is: `take(k)` with
    /// `k` below the bound, `first()` and `exists()` read it as a stream,
    /// `k` rows or one, not the whole island (`builtins.rs`).
    pub(super) island_stream: Option<super::island_stream::IslandStream>,
    /// The table whose update's changes are being checked: a name that is
    /// one of its columns and nothing in scope gets a help that reads the
    /// row (`score += 1`, `as q`).
    pub(super) updating: Option<String>,
    /// Comparisons of `Int`s checked inside the conditions being checked
    /// (`narrowing.rs`), and how many conditions are open.
    pub(super) comparisons: Vec<super::narrowing::Comparison>,
    pub(super) conditions_open: usize,
    /// The ranges of the `Int` names, fields and calls checked inside the
    /// open conditions, by span: the leaves of compared sides.
    pub(super) leaves: Vec<(Span, crate::cost::Interval)>,
    /// The conditions of the `if` branches being checked, outermost
    /// first, each with whether it held there (spec/cost.md §3.1).
    pub(super) branch_facts: Vec<(Arc<super::narrowing::Condition>, bool)>,
    /// The sums a call's arguments are (`call_local`), for the
    /// application that follows it at once (`Checker::apply`).
    pub(super) argument_sums: super::applications::ArgumentSums,
    /// Which check of a body is in progress, and the bindings with one
    /// value per run.
    pub(super) frames: crate::cost::Frames,
    /// The bindings the parameters of the last lambda checked in place
    /// got (`check_lambda`): a `filter`'s predicate narrows the elements
    /// by what it proves of its parameter's binding, not of a `let` in it
    /// of the same name.
    pub(super) last_lambda_params: Vec<u64>,
    /// The delayed lambda applied last (`Checker::apply`): a `filter`
    /// given one by name reads its body as its condition.
    pub(super) last_applied: Option<Arc<super::types::DelayedLambda>>,
    /// Whether the definition being checked is an entry point (a query or
    /// a mutation), whose parameters' measures are the caller's values.
    pub(super) checking_entry: bool,
    /// A function's parameters as comparisons name them (none in an
    /// entry point), and the counts its body measures as sums of them
    /// (`sum_measures.rs`).
    pub(super) fn_params: Vec<super::narrowing::Named>,
    pub(super) sum_measures: Vec<super::sum_measures::SumMeasure>,
    /// The largest value walked so far past `MAX_VALUE_PARTS`, and where:
    /// of one holding no rows, and of one holding rows (`type_limits.rs`).
    pub(super) largest_value: [Option<(u64, Span)>; 2],
}

impl<'p> Checker<'p> {
    pub fn error(
        &mut self,
        code: &str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::error(code, message, self.file, span, label));
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// A label on a table's declaration, resolved to its place when the
    /// definition's diagnostics are placed (see `crate::db`).
    pub fn table_label(&self, table: &str, message: impl Into<String>) -> Option<Label> {
        Some(Label::new(table_marker(table), Span::default(), message))
    }

    pub(super) fn push_local(&mut self, name: &Ident, ty: Ty, tir: TExpr) {
        self.bind_local(Local::new(name.name.clone(), name.span, ty, tir));
    }

    /// Binds `local`, a new binding, in the scope.
    pub(super) fn bind_local(&mut self, local: Local) {
        self.frames.bound(local.binding);
        self.scope.push(Arc::new(local));
    }

    pub(super) fn local(&self, name: &str) -> Option<&Local> {
        self.scope.get(name)
    }

    /// Checks an expression with no expected type.
    pub fn check(&mut self, expr: &Expr) -> Checked {
        self.check_expected(expr, None)
    }

    /// Checks an expression; `expected` guides lambdas (parameter types).
    /// Operators (accesses, combinators, calls, writes) keep their cost in
    /// the typed form: the planner gives it to the plan as their bound.
    pub fn check_expected(&mut self, expr: &Expr, expected: Option<&Ty>) -> Checked {
        // Applying a delayed lambda checks its body inside the expression
        // that applies it, so nesting adds up past one definition's depth.
        if self.lambda_checks.nesting >= super::functions::MAX_CHECK_NESTING {
            self.refuse_lambda_checks(
                format!(
                    "the lambdas this definition applies nest more than {} levels deep, their bodies included",
                    super::functions::MAX_CHECK_NESTING
                ),
                expr.span,
            );
            return Checked::error();
        }
        self.lambda_checks.nesting += 1;
        let checked = self.check_nested(expr, expected);
        self.lambda_checks.nesting -= 1;
        checked
    }

    fn check_nested(&mut self, expr: &Expr, expected: Option<&Ty>) -> Checked {
        let mut checked = self.check_inner(expr, expected);
        self.record_leaf(expr, &checked.ty);
        // Evaluating the expression is a step itself (spec/cost.md §2,
        // "Steps"): a lambda's body of a thousand operators costs a
        // thousand steps at each application.
        checked.cost.add_steps(1);
        let operator = matches!(
            expr.kind,
            ExprKind::Index(..)
                | ExprKind::Pipe(..)
                | ExprKind::Call(..)
                | ExprKind::Insert(..)
                | ExprKind::Upsert(..)
                | ExprKind::Update(..)
                | ExprKind::Delete(..)
        ) || matches!(checked.tir, TExpr::Scan { .. });
        let fact = self.facts.is_some() && !checked.ty.is_error();
        // One copy of the cost, for the operator's node and the fact.
        let cost = (operator || fact).then(|| std::sync::Arc::new(checked.cost.clone()));
        if let (true, Some(cost)) = (operator, &cost) {
            checked.tir = TExpr::Costed(Box::new(checked.tir), cost.clone());
        }
        self.list_within_ceiling(&checked.ty, expr.span);
        self.cost_within_ceiling(&checked.cost, expr.span);
        if let (Some(facts), true, Some(cost)) = (&mut self.facts, fact, cost) {
            facts.push(Fact::Type {
                span: expr.span,
                ty: TypeText(checked.ty.clone()),
                cost,
            });
        }
        checked
    }

    /// E0458: a string literal past the most any string may hold (16 MiB):
    /// every bound counts a string's work as at most that long, and the
    /// runtime refuses a longer one in a plan (E0635) or a row (E0576).
    fn string_past_any(&mut self, span: Span, bytes: usize) {
        self.error(
            "E0458",
            super::schema_columns::past_any_string("this string literal", bytes),
            span,
            "too long",
        )
        .help
        .push("keep large text in a table (loaded with `rqc load`) and read it by key".into());
    }

    /// Records what the name at `span` refers to, when facts are kept
    /// (`target` is built only then).
    pub fn refer(&mut self, span: Span, target: impl FnOnce() -> Target) {
        if let Some(facts) = &mut self.facts {
            facts.push(Fact::Ref {
                span,
                target: target(),
            });
        }
    }

    fn check_inner(&mut self, expr: &Expr, expected: Option<&Ty>) -> Checked {
        match &expr.kind {
            ExprKind::Int(n) => Checked::new(
                Ty::Int(Interval::exact(*n)),
                Cost::zero(),
                TExpr::Const(Value::Int(*n)),
            ),
            ExprKind::Float(x) => {
                Checked::new(Ty::Float, Cost::zero(), TExpr::Const(Value::float(*x)))
            }
            ExprKind::Str(s) => {
                if s.len() as u64 > crate::cost::MAX_STRING_BYTES {
                    self.string_past_any(expr.span, s.len());
                    return Checked::error();
                }
                let bytes = Poly::constant(s.len() as u64);
                Checked::new(
                    Ty::Str(bytes),
                    Cost::zero(),
                    TExpr::Const(Value::Str(s.clone())),
                )
            }
            ExprKind::Bool(b) => {
                Checked::new(Ty::Bool, Cost::zero(), TExpr::Const(Value::Bool(*b)))
            }
            ExprKind::None => {
                let ty = match expected {
                    // It holds no value: any within the ends fits, and
                    // the least adds nothing to a join with a value.
                    Some(Ty::Option(inner)) => Ty::Option(Box::new(inner.held_by_none_where(true))),
                    _ => {
                        self.untyped_none.get_or_insert(expr.span);
                        Ty::option(Ty::Error)
                    }
                };
                Checked::new(ty, Cost::zero(), TExpr::Const(Value::Null))
            }
            ExprKind::Name(ident) => self.check_name(ident),
            ExprKind::Record(fields) => {
                // A step per field made (a lambda's body is made again
                // at each application).
                let mut cost = Cost::steps(Poly::constant(fields.len() as u64));
                let mut tys = Vec::new();
                let mut tirs = Vec::new();
                // The names given so far, in a set once there are many (a
                // record of thousands of fields searched its list per field).
                let mut given = std::collections::HashSet::new();
                for field in fields {
                    let name = field.name.name.as_str();
                    let twice = if fields.len() > 16 {
                        !given.insert(name)
                    } else {
                        tys.iter().any(|(n, _): &(String, Ty)| n == name)
                    };
                    if twice {
                        self.error(
                            "E0203",
                            format!("field `{}` is given twice", field.name.name),
                            field.name.span,
                            "second value",
                        )
                        .help
                        .push("give each field of a record one value".into());
                        continue;
                    }
                    let value = self.check(&field.value);
                    cost = cost.plus(&value.cost);
                    tys.push((field.name.name.clone(), value.ty));
                    tirs.push((field.name.name.clone(), value.tir));
                }
                self.type_within_limits(
                    Checked::new(Ty::Record(tys), cost, TExpr::Record(tirs)),
                    expr.span,
                )
            }
            ExprKind::List(items) => {
                // A step per element made, as for a record.
                let mut cost = Cost::steps(Poly::constant(items.len() as u64));
                let mut first = Ty::Error;
                // Every element's sizes and costs, not the first's.
                let mut elems = Vec::new();
                let mut tirs = Vec::new();
                for item in items {
                    let checked = self.check(item);
                    if first.is_error() {
                        first = checked.ty.clone();
                        elems.push(checked.ty);
                    } else if !first.compatible(&checked.ty) {
                        self.mismatch(
                            &first,
                            &checked.ty,
                            item.span,
                            "the list's first element sets its type",
                        );
                    } else {
                        elems.push(checked.ty);
                    }
                    cost = cost.plus(&checked.cost);
                    tirs.push(checked.tir);
                }
                // Its least and greatest elements, known element by
                // element (`[n, 10] |> min()` is at most 10).
                let ints: Option<Vec<Interval>> = elems
                    .iter()
                    .map(|t| t.interval().filter(|_| t.is_int()).cloned())
                    .collect();
                let extremes = ints.and_then(|ints| crate::cost::Extremes::of_elements(&ints));
                let elem = join_all(elems);
                self.type_within_limits(
                    Checked::new(
                        Ty::list_with(elem, Poly::constant(items.len() as u64), extremes),
                        cost,
                        TExpr::List(tirs),
                    ),
                    expr.span,
                )
            }
            ExprKind::Field(base, field) => self.check_field(expr, base, field),
            ExprKind::Call(callee, args) => self.check_call(expr.span, callee, None, args),
            ExprKind::Pipe(input, stage) => match &stage.kind {
                ExprKind::Call(callee, args) => {
                    self.check_call(stage.span, callee, Some(input), args)
                }
                _ => self.check_call(stage.span, stage, Some(input), &[]),
            },
            ExprKind::Index(base, args) => match self.aggregate_named(base) {
                Some(name) => self.check_aggregate_read(expr.span, &name, args),
                None => self.check_access(expr, base, args),
            },
            // Passed straight to a combinator or a function parameter, a
            // lambda is checked there (`function_argument`); anywhere else
            // it is checked where it is applied.
            ExprKind::Lambda(params, body) => self.delay_lambda(params, body),
            ExprKind::Unary(op, operand) => self.check_unary(*op, operand),
            ExprKind::Binary(op, a, b) => self.check_binary(*op, a, b),
            ExprKind::Tuple(_) => {
                self.error(
                    "E0230",
                    "a tuple only compares index columns in a range",
                    expr.span,
                    "not a range over index columns",
                )
                .help
                .push(
                    "compare a tuple of columns with a tuple of values as the last value of an access: `Post.by_time[(at, id) < (t, i)]`"
                        .into(),
                );
                Checked::error()
            }
            ExprKind::Range(..) => {
                self.error(
                    "E0405",
                    "a range only selects rows inside `[…]`",
                    expr.span,
                    "not inside an access",
                )
                .help
                .push(
                    "write it as the last value of an access, as in `Post.by_author[a, t1..t2]`"
                        .into(),
                );
                Checked::error()
            }
            ExprKind::If(cond, then, otherwise) => {
                // A call the condition makes and the `if` makes again is
                // computed once, so what the condition proves of it holds
                // where it is given again (`repeated_calls.rs`).
                if let Some(shared) = self.shared_if(expr, (cond, then, otherwise)) {
                    for occurrence in &shared.replaced {
                        self.refer_names(occurrence);
                    }
                    return self.check_inner(&shared.block, expected);
                }
                let mark = self.begin_condition();
                let c = self.check(cond);
                // Its records stay for a condition the `if` is part of
                // (`let ok = if c { n <= 100 } else { n <= 10 }`), which
                // reads it as `(c && a) || (!c && b)`
                // (`read_condition_within`), as the verifier reads the
                // plan's `If`.
                let condition = Arc::new(self.condition_kept(cond, mark));
                self.expect_type(&Ty::Bool, &c.ty, cond.span, "an `if` condition is a Bool");
                // Each branch sees what the condition proves (or disproves)
                // of the integers it compares; one it rules out never runs
                // (`dead_branches.rs`).
                let (t, then_never) = self.check_branch(&condition, true, then, expected);
                let at = expected.or(Some(&t.ty));
                let (e, else_never) = self.check_branch(&condition, false, otherwise, at);
                if !t.ty.compatible(&e.ty) {
                    let (tt, et) = (t.ty.to_string(), e.ty.to_string());
                    let file = self.file;
                    self.error(
                        "E0401",
                        format!("the branches of this `if` differ: `{tt}` and `{et}`"),
                        otherwise.span,
                        format!("this is `{et}`"),
                    )
                    .with_secondary_mut(Label::new(file, then.span, format!("this is `{tt}`")))
                    .help
                    .push("make both branches give the same type".into());
                }
                // The condition, then the dearer branch of those that run.
                let (ty, branches) = match (then_never, else_never) {
                    (true, false) => (e.ty.clone(), e.cost.clone()),
                    (false, true) => (t.ty.clone(), t.cost.clone()),
                    _ => (join_types(&t.ty, &e.ty), t.cost.max(&e.cost)),
                };
                Checked::new(
                    ty,
                    c.cost.plus(&branches),
                    TExpr::If(Box::new(c.tir), Box::new(t.tir), Box::new(e.tir)),
                )
            }
            ExprKind::Block(stmts, result) => self.check_block(stmts, result, expected),
            ExprKind::Insert(path, row) => self.check_insert(expr.span, path, row),
            ExprKind::Upsert(path, row) => self.check_upsert(expr.span, path, row),
            ExprKind::Update(target, row, changes) => {
                self.check_update(expr.span, target, row.as_ref(), changes)
            }
            ExprKind::Delete(target) => self.check_delete(expr.span, target),
            ExprKind::Error => Checked::error(),
        }
    }
}

trait SecondaryMut {
    fn with_secondary_mut(&mut self, label: Label) -> &mut Self;
}

impl SecondaryMut for Diagnostic {
    fn with_secondary_mut(&mut self, label: Label) -> &mut Self {
        self.secondary.push(label);
        self
    }
}
