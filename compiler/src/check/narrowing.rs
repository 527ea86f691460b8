//! What an `if` condition proves about the integers it compares: each branch sees the names, and the fields of names, it tested narrowed (spec/cost.md §3.1), by the shared rule `rqc_cost::assume`.
//!
//! While a condition is checked, each comparison of two plain `Int`s
//! (`<`, `<=`, `>`, `>=`, `==`, `!=`) records both sides' ranges and which
//! side is a name in scope, or a field of one (`q.at`: [`Checker::named`])
//! ([`Checker::record_comparison`]). The condition
//! is then read as a [`Condition`] — comparisons under `!`, `&&` and `||`,
//! and `Bool` names bound by `let` to such a condition — and each branch is
//! checked with the names it proves something of bound again to their
//! narrowed range: the then branch under the condition, the else branch
//! under its negation. `&&` narrows in the then branch, `||` in the else
//! branch; `!` swaps them.
//!
//! A name is narrowed only where it is still the binding the comparison
//! read (a binding keeps its identity, [`Local::binding`], when narrowed),
//! and only an `Int` against an `Int`: an `Int?` side may be `none`,
//! which compares below every number, so its number is narrowed and the
//! other side is not (`rqc_cost::Condition::MayBeNone`).

use super::expr::{Checked, Checker, Local};
use super::modules::Symbol;
use super::narrowed_types::narrowed_ty;
use super::types::Ty;
use crate::cost::{Interval, Relation, SideSum};
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind};
use std::sync::Arc;

/// A name and its binding's identity: what a comparison's side names.
pub type Named = (String, u64);

/// One side of a recorded comparison: its range, and the binding it names.
pub type Side = crate::cost::Side<Named>;

/// What a `Bool` expression says about the integers it compares (the
/// shared rule, `rqc_cost::narrowing`).
pub type Condition = crate::cost::Condition<Named>;

/// A comparison checked in a condition, found again by its operands' spans:
/// what it says, read where it was checked, with the sums its `let`-bound
/// names were bound to then (a block's `let`s are gone where the block is
/// read as a condition: `{ let k2 = k; k2 <= 10 }` proves `k ≤ 10`).
#[derive(Clone, Debug)]
pub struct Comparison {
    pub(super) operands: (Span, Span),
    pub(super) says: Condition,
}

impl Comparison {
    /// What a call of a `Bool` function at `span` says of its arguments
    /// (`guards.rs`), found again by the call's span.
    pub(super) fn said_by_call(span: Span, says: Condition) -> Comparison {
        Comparison {
            operands: (span, span),
            says,
        }
    }
}

/// Where a condition's records begin ([`Checker::begin_condition`]).
#[derive(Clone, Copy, Debug)]
pub struct ConditionMark {
    pub(super) comparisons: usize,
    pub(super) leaves: usize,
}

impl Checker<'_> {
    /// Records that the expression at `span` says `says` (a call, a flag,
    /// a `let`-bound name), read through every alias its names are, found
    /// again by its span (`read_condition_within`); nothing where no
    /// condition is open, or it says nothing.
    pub(super) fn record_said(&mut self, span: Span, says: Condition) {
        if self.conditions_open == 0 || says == Condition::Opaque {
            return;
        }
        let says = self.through_aliases(&says);
        if says != Condition::Opaque {
            self.comparisons.push(Comparison::said_by_call(span, says));
        }
    }

    /// Records `a op b` when both are `Int`s, or one an `Int?` (called by
    /// the check of a comparison).
    pub(super) fn record_comparison(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        left: &Ty,
        right: &Ty,
    ) {
        let relation = match op {
            BinaryOp::Lt => Some(Relation::Below),
            BinaryOp::LtEq => Some(Relation::AtMost),
            BinaryOp::Gt => Some(Relation::Above),
            BinaryOp::GtEq => Some(Relation::AtLeast),
            BinaryOp::Eq => Some(Relation::Equal),
            BinaryOp::NotEq => None,
            _ => return,
        };
        if self.conditions_open == 0 {
            return;
        }
        // A plain `Int`'s range, or an `Int?`'s number's (`true`).
        let int = |ty: &Ty| match ty {
            Ty::Int(x) => Some((x.clone(), false)),
            Ty::Option(inner) => match &**inner {
                Ty::Int(x) => Some((x.clone(), true)),
                _ => None,
            },
            _ => None,
        };
        let (Some((x, x_optional)), Some((y, y_optional))) = (int(left), int(right)) else {
            return;
        };
        let side = |this: &Self, e: &Expr, interval: Interval| {
            let mut sum = SideSum::default();
            this.add_leaves(e, Some(&interval), &mut sum);
            sum.side(interval)
        };
        let Ok(optional) = crate::cost::Optional::of(x_optional, y_optional) else {
            return;
        };
        let (left, right) = (side(self, a, x), side(self, b, y));
        let says = crate::cost::compared(left, relation, right, &|named| self.definition_of(named))
            .with_option(optional);
        let comparison = Comparison {
            operands: (a.span, b.span),
            says,
        };
        self.comparisons.push(comparison);
    }

    /// What a comparison's side names: a name in scope, or a field of one
    /// however deep (`q.at`, `q.author.at`, kept as the path `"q.at"`), with
    /// the identity of the name's binding. A field is as fixed as the name
    /// it is read from: a binding's value never changes, so a field of it
    /// read again in a branch is the value the condition compared.
    pub(super) fn named(&self, e: &Expr) -> Option<Named> {
        match &e.kind {
            ExprKind::Name(ident) => self
                .local(&ident.name)
                .map(|local| (ident.name.clone(), local.binding)),
            ExprKind::Field(base, field) => {
                let (path, binding) = self.named(base)?;
                Some((format!("{path}.{}", field.name), binding))
            }
            _ => None,
        }
    }

    /// The string `e` takes the length of, when `e` is the built-in
    /// `length(s)` or `s |> length()`.
    pub(super) fn length_argument<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        self.builtin_input(e, LENGTH_FUNCTION, 0)
            .map(|(string, _)| string)
    }

    /// The input of `e` and its other arguments, when `e` calls the
    /// built-in `function` with `others` arguments besides its input
    /// (`f(x, …)` or `x |> f(…)`), not a function or a name of that name,
    /// which a call would find first (`calls.rs`).
    fn builtin_input<'e>(
        &self,
        e: &'e Expr,
        function: &str,
        others: usize,
    ) -> Option<(&'e Expr, &'e [Expr])> {
        let (callee, input, rest) = match &e.kind {
            ExprKind::Call(callee, args) if args.len() == others + 1 => {
                (callee, &args[0], &args[1..])
            }
            ExprKind::Pipe(input, stage) => match &stage.kind {
                ExprKind::Call(callee, args) if args.len() == others => {
                    (callee, &**input, &args[..])
                }
                _ => return None,
            },
            _ => return None,
        };
        let ExprKind::Name(name) = &callee.kind else {
            return None;
        };
        let shadowed = self.local(function).is_some()
            || matches!(
                self.index.lookup(self.module, function),
                Some(Symbol::Def(_) | Symbol::Table(_))
            );
        (name.name == function && !shadowed).then_some((input, rest))
    }

    /// The list whose greatest (or least) `e` is, when `e` is
    /// `unwrap_or(max(xs), d)` in any spelling (`xs |> max() |>
    /// unwrap_or(d)`) of the built-ins, and the pseudo-field the fact is
    /// kept under (`max(d)`, `min(d)`: [`extreme_field`]). The default is
    /// part of the value: of an empty list, `unwrap_or(max(xs), 0)` and
    /// `unwrap_or(max(xs), 1000)` are two values. A default that is no
    /// integer literal gets a key of its own, new at each reading
    /// (`max(#7)`), which no other reading ever finds: a fact of it
    /// narrows the list's elements and never the value. Where it is at
    /// most `c`, every element of `xs` is (`elements.rs`), whatever the
    /// default: an empty list has no element to narrow.
    pub(super) fn extreme_argument<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, String)> {
        let (extreme, default) = self.builtin_input(e, "unwrap_or", 1)?;
        let default = match super::sums::literal(&default[0]) {
            Some(literal) => literal.to_string(),
            None => format!("#{}", new_binding()),
        };
        if let Some((list, _)) = self.builtin_input(extreme, "max", 0) {
            return Some((list, format!("{GREATEST}({default})")));
        }
        if let Some((list, _)) = self.builtin_input(extreme, "min", 0) {
            return Some((list, format!("{LEAST}({default})")));
        }
        // An `Int?` given by name (`unwrap_or(o, d)`): its one value is its
        // greatest (`unwrap_or` of anything but an option is refused).
        matches!(extreme.kind, ExprKind::Name(_))
            .then(|| (extreme, format!("{GREATEST}({default})")))
    }

    /// `length(s)`'s range `ty` within what an enclosing `if` proved of the
    /// length of that binding of `s` (or of that field of it).
    pub(super) fn narrowed_length(&self, string: &Expr, ty: Ty) -> Ty {
        let Ty::Int(known) = &ty else {
            return ty;
        };
        match self.fact_on(string, LENGTH) {
            Some(proved) => Ty::Int(known.intersect(&proved)),
            None => ty,
        }
    }

    /// What an enclosing `if` proved of `what` (a field's path, or
    /// [`LENGTH`]) of the value `expr` names: a name or a field of one.
    fn fact_on(&self, expr: &Expr, what: &str) -> Option<Interval> {
        let mut root = expr;
        while let ExprKind::Field(base, _) = &root.kind {
            root = base;
        }
        let ExprKind::Name(ident) = &root.kind else {
            return None;
        };
        let local = self.local(&ident.name).filter(|l| !l.fields.is_empty())?;
        let (path, _) = self.named(expr)?;
        let below = path.get(ident.name.len() + 1..).unwrap_or_default();
        let key = match (below.is_empty(), what.is_empty()) {
            (true, _) => what.to_string(),
            (false, true) => below.to_string(),
            (false, false) => format!("{below}.{what}"),
        };
        local
            .fields
            .iter()
            .find(|(field, _)| *field == key)
            .map(|(_, proved)| proved.clone())
    }

    /// `ty`, the type of the field read `expr`, within what an enclosing
    /// `if` proved of that field of the binding it is read from
    /// ([`Checker::narrowed`], which binds the name again with the fact):
    /// an `Int` field's range, a `String` field's length. Most reads find
    /// no fact on their name and make no path.
    pub(super) fn narrowed_field(&self, expr: &Expr, ty: Ty) -> Ty {
        match &ty {
            Ty::Int(known) => match self.fact_on(expr, "") {
                Some(proved) => Ty::Int(known.intersect(&proved)),
                None => ty,
            },
            Ty::Str(bytes) => match self.fact_on(expr, LENGTH) {
                Some(proved) => Ty::Str(crate::cost::bytes_within_length(bytes, &proved)),
                None => ty,
            },
            _ => ty,
        }
    }

    /// Comparisons are recorded from here until [`Checker::condition`]
    /// (only inside conditions: elsewhere nothing reads them); the mark
    /// to give it.
    pub(super) fn begin_condition(&mut self) -> ConditionMark {
        self.conditions_open += 1;
        ConditionMark {
            comparisons: self.comparisons.len(),
            leaves: self.leaves.len(),
        }
    }

    /// `a && b` (`and`) or `a || b`: `b` runs only where `a` held (or,
    /// for `||`, failed), so it is checked with what `a` proves then
    /// (`if n <= 5 && f(n) > 0`): `a`'s comparisons are recorded, and kept
    /// for a condition this one is part of.
    pub(super) fn check_after_condition(
        &mut self,
        and: bool,
        a: &Expr,
        b: &Expr,
    ) -> (Checked, Checked) {
        let mark = self.begin_condition();
        let left = self.check(a);
        let from = mark.comparisons.min(self.comparisons.len());
        let proves = Arc::new(self.read_condition(a, &self.comparisons[from..]));
        // `||` of rows is a union, which reads both sides (a list, not a
        // branch: `check_union`), and proves nothing.
        let right = match left.ty.holds_rows() {
            true => self.check(b),
            false => self.narrowed(&proves, and, |this| this.check(b)),
        };
        self.close_kept(mark);
        (left, right)
    }

    /// Checks a branch with the names `condition` proves something of
    /// (when it is `holds`) bound to their narrowed ranges.
    /// The outer `if`s' conditions the branch is inside are read again
    /// with it ([`crate::cost::assume_within`]).
    pub(super) fn narrowed<T>(
        &mut self,
        condition: &Arc<Condition>,
        holds: bool,
        check: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let mut narrowed: Vec<(Named, Interval)> = Vec::new();
        crate::cost::assume_within(
            &self.branch_facts,
            condition,
            holds,
            &mut narrowed,
            crate::cost::Reading::Checker,
        );
        let depth = self.scope.len();
        self.bind_narrowed(narrowed);
        self.branch_facts.push((condition.clone(), holds));
        let result = check(self);
        self.branch_facts.pop();
        self.scope.truncate(depth);
        result
    }

    /// The type `elem` of the elements `filter(param => …)` keeps, within
    /// what its predicate's condition `kept` proves of `param` where it is
    /// true (spec/cost.md §3.1): an `Int`'s range, a `String`'s length,
    /// and the same of a record's field or a row's column inside it.
    /// `param` is the parameter's name and the binding the check of the
    /// predicate gave it: a fact about another binding of that name (one
    /// around the `filter`, or a `let` inside the predicate) is not the
    /// parameter's.
    pub(super) fn kept_by(&self, param: (&str, Option<&u64>), kept: &Condition, elem: Ty) -> Ty {
        let (param, Some(&parameter)) = param else {
            return elem;
        };
        let mut narrowed: Vec<(Named, Interval)> = Vec::new();
        crate::cost::assume_within(
            &[],
            kept,
            true,
            &mut narrowed,
            crate::cost::Reading::Checker,
        );
        let mut elem = elem;
        for ((name, binding), interval) in narrowed {
            if binding != parameter {
                continue;
            }
            // The element itself, or a path inside it: a record's field,
            // a row's column, a length (`p.body.length()`).
            let fields: Vec<&str> = match crate::cost::path_below(&name, param) {
                Some("") => Vec::new(),
                Some(path) => path.split('.').collect(),
                None => continue,
            };
            if let Some(ty) = narrowed_ty(&elem, &fields, &interval) {
                elem = ty;
            }
        }
        elem
    }

    /// Binds again, in the scope, the names the facts of the `if`s around
    /// this place prove something of (the scope being a delayed lambda's,
    /// applied here: `let f = k => take(n); if n <= 5 { f(1) }`). The
    /// caller drops the bindings with the scope.
    pub(super) fn narrow_to_enclosing_facts(&mut self) {
        if self.branch_facts.is_empty() {
            return;
        }
        let mut narrowed: Vec<(Named, Interval)> = Vec::new();
        crate::cost::assume_within(
            &self.branch_facts,
            &Condition::Opaque,
            true,
            &mut narrowed,
            crate::cost::Reading::Checker,
        );
        self.bind_narrowed(narrowed);
    }

    /// Binds each name (or field of one) of `narrowed` again, with what
    /// it was proved to lie in, where it is still the binding the fact
    /// read.
    fn bind_narrowed(&mut self, narrowed: Vec<(Named, Interval)>) {
        for ((name, binding), interval) in narrowed {
            // A field of a name (`q.at`): the name, while still the binding
            // the comparison read, is bound again holding the fact, which
            // [`Checker::narrowed_field`] reads where the field is read.
            if let Some((root, path)) = name.split_once('.') {
                let Some(root) = self.local(root).filter(|l| l.binding == binding) else {
                    continue;
                };
                // A part of each element (`ps.[].at`): the list's type.
                if path.starts_with(crate::cost::EACH_ELEMENT) {
                    let fields: Vec<&str> = path.split('.').collect();
                    if let Some(ty) = narrowed_ty(&root.ty, &fields, &interval) {
                        let mut narrowed = root.clone();
                        narrowed.ty = ty;
                        self.scope.push(Arc::new(narrowed));
                    }
                    continue;
                }
                let mut narrowed = root.clone();
                // A record's type holds its fields' ranges: narrowed there
                // too, so the record passed whole keeps what the branch
                // proved of it (a row's type is its table's).
                let fields: Vec<&str> = path.split('.').collect();
                if let Some(ty) = narrowed_ty(&root.ty, &fields, &interval) {
                    narrowed.ty = ty;
                }
                match narrowed.fields.iter_mut().find(|(field, _)| field == path) {
                    Some((_, known)) => *known = known.intersect(&interval),
                    None => narrowed.fields.push((path.to_string(), interval)),
                }
                self.scope.push(Arc::new(narrowed));
                continue;
            }
            let Some(local) = self.local(&name) else {
                continue;
            };
            if local.binding != binding {
                continue;
            }
            // A list's elements (`all`, `elements.rs`).
            if let Some(ty) = super::elements::narrowed_elements(&local.ty, &interval) {
                let mut local = local.clone();
                local.ty = ty;
                self.scope.push(Arc::new(local));
                continue;
            }
            // Only the binding the comparison read, and only an `Int`.
            if !matches!(local.ty, Ty::Int(_)) {
                continue;
            }
            // What the binding already knew holds too (an outer `if`).
            let mut local = local.clone();
            if let Ty::Int(known) = &local.ty {
                local.ty = Ty::Int(known.intersect(&interval));
            }
            self.scope.push(Arc::new(local));
        }
    }
}

/// The built-in function whose result narrowing reads as a fact of its
/// string, and the pseudo-field the fact is kept under.
const LENGTH_FUNCTION: &str = "length";
pub(super) const LENGTH: &str = "length()";

/// The pseudo-fields a fact of a list's greatest and least element is
/// kept under, with the default after them ([`Checker::extreme_argument`]).
const GREATEST: &str = "max";
const LEAST: &str = "min";

/// Whether `field` is a list's greatest (`Some(true)`) or least element
/// ([`Checker::extreme_argument`]).
pub(super) fn extreme_field(field: &str) -> Option<bool> {
    let (name, _) = field.split_once('(')?;
    match name {
        GREATEST => Some(true),
        LEAST => Some(false),
        _ => None,
    }
}

/// The identity a new binding gets: narrowing binds a name again with the
/// same identity, so a comparison recorded against one finds it.
pub fn new_binding() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Local {
    /// A fresh binding of `name`.
    pub fn new(name: String, span: Span, ty: super::types::Ty, tir: super::tir::TExpr) -> Local {
        Local {
            name,
            span,
            ty,
            tir,
            binding: new_binding(),
            condition: None,
            fields: Vec::new(),
            definition: None,
            in_condition: false,
        }
    }
}
