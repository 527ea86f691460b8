//! Applying a delayed lambda: its body checked with the arguments' types, in the scope it was written in, under the facts around where it was written and where it is applied, each answer kept for the same context (spec/cost.md §3.1 and §5).

use super::expr::Checker;
use super::lambda_bodies::{merge, merged_root};
use super::tir::TExpr;
use super::types::{DelayedLambda, Ty};
use crate::cost::Cost;
use std::sync::Arc;

/// What a delayed lambda's check reads of the place that applies it: the
/// enclosing `if`s' facts (the nearest `ENCLOSING_FACTS_READ`, by
/// identity), which narrow what it captured and which its own `if`s read
/// again, and whether it is inside another lambda's check before any
/// application, which reports no error that a value decides
/// ([`Checker::delay_lambda`]): an answer found there is never reused
/// elsewhere.
#[derive(Clone, Debug)]
pub(super) struct ApplicationContext {
    /// Held, so that no other fact is made where one of these lies while
    /// the answer is kept: compared by identity.
    facts: Vec<BranchFact>,
    before_application: bool,
    /// The sums the arguments are, which the parameters keep.
    definitions: ArgumentSums,
    /// `None` where applied in the check of a body it was made in (the
    /// facts reach it whole); else the checks in progress, which decide
    /// which facts reach it (`rqc_cost::Frames::one_value`; none where
    /// there are no facts).
    narrowed_to: Option<Vec<u64>>,
}

/// The sum of named values each argument of a call is, where it is one
/// (`f(m)`, `f(n - 1)`): the parameter keeps it, as a `let` keeps its
/// value's (spec/cost.md §3.1).
pub(super) type ArgumentSums = Vec<Option<Arc<super::narrowing::Side>>>;

impl ApplicationContext {
    /// Whether an application with these nearest facts, inside a first
    /// check or not, with these argument sums, is in this context.
    fn is(
        &self,
        facts: &[BranchFact],
        before_application: bool,
        sums: &[Option<Arc<super::narrowing::Side>>],
        narrowed_to: &Option<Vec<u64>>,
    ) -> bool {
        self.narrowed_to == *narrowed_to
            && self.before_application == before_application
            && self.definitions.as_slice() == sums
            && self.facts.len() == facts.len()
            && self
                .facts
                .iter()
                .zip(facts)
                .all(|((a, x), (b, y))| Arc::ptr_eq(a, b) && x == y)
    }
}

/// What [`Checker::probe_delayed`] found a lambda returns.
pub(super) enum Probe {
    /// Its type at the types it was given.
    Returned(Ty),
    /// No type (an error there, which its applications report).
    NoType,
    /// The definition's checks of lambdas ran out (E0424, kept).
    Refused,
}

/// An enclosing `if`'s condition and whether it held there.
type BranchFact = (Arc<super::narrowing::Condition>, bool);

impl Checker<'_> {
    /// Checks a delayed lambda's body with `arg_tys` in the scope it was
    /// written in, under the facts around where it was written and where
    /// it is applied (`let h = if n <= 5 { x => f(x) } else { … }`: `f`
    /// applied in `h`'s body knows `n ≤ 5`); its typed body joins the
    /// lambda's merged one.
    pub(super) fn apply_delayed(
        &mut self,
        lambda: &DelayedLambda,
        arg_tys: &[Ty],
        sums: &[Option<Arc<super::narrowing::Side>>],
    ) -> (Ty, Cost) {
        // Made in this check of a body, its bindings are the
        // application's; made in another, the facts and sums of the
        // application reach it only for bindings with one value here (made
        // outside every lambda body, or in a check still in progress)
        // (`rqc_cost::Frames`).
        let here = lambda.frame == self.frames.current();
        let frames = &self.frames;
        let one_value = |(_, binding): &super::narrowing::Named| frames.one_value(*binding);
        // A sum is kept where the lambda sees every name in it (as the
        // same binding) where it was written, or where its body makes a
        // lambda, which may capture the parameter and be applied where the
        // names are narrowed (`let a = mk(n); if n <= 5 { a(u) }`), or is
        // a condition, which a call in a condition reads (`if small(n)`,
        // `guards.rs`), or where it is given a function, which may have
        // captured them (`g(m, f)`, `g` applying `f` where it tested its
        // parameter): elsewhere nothing could narrow them, and fresh names
        // would make every application a new one to check. (The verifier,
        // which keeps no answers, keeps every such sum.)
        let foreign = lambda.keeps_foreign_sums || arg_tys.iter().any(Ty::holds_fn);
        let seen = |side: &Arc<super::narrowing::Side>| {
            side.terms.iter().all(|term| {
                let (path, binding) = &term.name;
                let root = path.split('.').next().unwrap_or(path);
                let captured = lambda
                    .captured
                    .get(root)
                    .is_some_and(|l| l.binding == *binding);
                (captured || foreign) && (here || one_value(&term.name))
            })
        };
        let sums: ArgumentSums = sums
            .iter()
            .map(|sum| sum.clone().filter(|side| seen(side)))
            .collect();
        let keep: Option<&dyn Fn(&super::narrowing::Named) -> bool> = match here {
            true => None,
            false => Some(&one_value),
        };
        let around = crate::cost::facts_around(&lambda.facts, &self.branch_facts, keep);
        // An answer is reused in the same context: the facts around where
        // it was made and applied (by identity, before any is narrowed to
        // `keep`), and what decides that narrowing: whether it is applied
        // here, else which checks are in progress (where there are facts).
        let combined = crate::cost::facts_around(&lambda.facts, &self.branch_facts, None);
        let facts = combined.as_deref().unwrap_or(&self.branch_facts);
        let nearest = &facts[facts
            .len()
            .saturating_sub(crate::cost::ENCLOSING_FACTS_READ)..];
        let narrowed_to = match (here, nearest.is_empty()) {
            (true, _) => None,
            (false, true) => Some(Vec::new()),
            (false, false) => Some(self.frames.active().to_vec()),
        };
        let before_application = self.lambda_checks.unknown_parameters > 0;
        if let Some((_, _, ret, cost)) =
            self.lambdas[lambda.id].seen.iter().find(|(tys, at, _, _)| {
                tys.as_slice() == arg_tys && at.is(nearest, before_application, &sums, &narrowed_to)
            })
        {
            return (ret.clone(), cost.clone());
        }
        let context = ApplicationContext {
            facts: nearest.to_vec(),
            before_application,
            definitions: sums.clone(),
            narrowed_to,
        };
        let Some(around) = around else {
            return self.apply_delayed_here(lambda, arg_tys, context);
        };
        let outer = std::mem::replace(&mut self.branch_facts, around);
        let applied = self.apply_delayed_here(lambda, arg_tys, context);
        self.branch_facts = outer;
        applied
    }

    /// What a delayed lambda's body returns given `arg_tys`, checked as
    /// before any application is ([`Checker::delay_lambda`]): its typed
    /// body joins no other and the answer is never reused by an
    /// application, and what it reports is dropped (the applications
    /// report their own: an error of cost, such as the unbounded calls of
    /// a function parameter, says nothing of the type, and a `take` with
    /// no maximum is read as any length), but for the definition's E0424:
    /// a probe that passes the definition's checks of lambdas leaves it
    /// refused (adversary round 71: dropped, later applications were
    /// left unchecked and the definition accepted with their cost
    /// missing).
    pub(super) fn probe_delayed(&mut self, lambda: &DelayedLambda, arg_tys: &[Ty]) -> Probe {
        if self.lambda_checks.refused {
            return Probe::Refused;
        }
        self.lambda_checks.unknown_parameters += 1;
        self.lambda_checks.probing_lengths += 1;
        let before = self.diagnostics.len();
        let sums = vec![None; arg_tys.len()];
        let (ty, _) = self.apply_delayed(lambda, arg_tys, &sums);
        let kept_nothing = self.drop_reported_since(before);
        self.lambda_checks.probing_lengths -= 1;
        self.lambda_checks.unknown_parameters -= 1;
        match (kept_nothing, ty.is_error()) {
            (false, _) => Probe::Refused,
            (true, true) => Probe::NoType,
            (true, false) => Probe::Returned(ty),
        }
    }

    /// [`Checker::apply_delayed`] under the facts `branch_facts` holds.
    fn apply_delayed_here(
        &mut self,
        lambda: &DelayedLambda,
        arg_tys: &[Ty],
        context: ApplicationContext,
    ) -> (Ty, Cost) {
        let sums = context.definitions.clone();
        if !self.may_check_body(lambda) {
            return (Ty::Error, Cost::zero());
        }
        let outer = std::mem::replace(&mut self.scope, lambda.captured.clone());
        self.frames.enter();
        // The names it captured as the `if`s around this application
        // prove them (spec/cost.md §3.1).
        self.narrow_to_enclosing_facts();
        let mut bindings = Vec::with_capacity(lambda.params.len());
        for (i, (param, ty)) in lambda.params.iter().zip(arg_tys).enumerate() {
            let tir = TExpr::Local(param.name.clone());
            let mut local =
                super::expr::Local::new(param.name.clone(), param.span, ty.clone(), tir);
            // The parameter is the argument's sum, as a `let` keeps one.
            local.definition = sums.get(i).cloned().flatten();
            bindings.push(local.binding);
            self.bind_local(local);
        }
        self.lambda_checks.applying += 1;
        let checked = self.check(&lambda.body);
        self.lambda_checks.applying -= 1;
        // Set after the body, whose own lambdas set it too (a `filter`
        // given a lambda by name reads what it proves of this binding).
        self.last_lambda_params = bindings;
        self.frames.leave();
        self.scope = outer;
        let mut conflict = false;
        // Into the lambda its body was merged into, if it was: the plan
        // holds that one's body only, which must cover every application.
        // Not an application inside another lambda's check before any
        // application, whose answers are never used (and whose errors a
        // value decides went unreported): the real ones are merged.
        if !context.before_application {
            let target = merged_root(&self.lambdas, lambda.id);
            let merged = match self.lambdas[target].body.take() {
                None => checked.tir,
                Some(previous) => merge(previous, checked.tir, &mut self.lambdas, &mut conflict),
            };
            self.lambdas[target].body = Some(merged);
        }
        self.lambdas[lambda.id].seen.push((
            arg_tys.to_vec(),
            context,
            checked.ty.clone(),
            checked.cost.clone(),
        ));
        if conflict {
            self.error(
                "E0420",
                "this lambda is applied to inputs of different shapes in two places (an option, a list or a stream in one, another of them in the other)",
                lambda.body.span,
                "one body for both",
            )
            .help
            .push("write a lambda for each use".into());
        }
        (checked.ty, checked.cost)
    }
}
