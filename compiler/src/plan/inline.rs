//! Inlining calls of RQL functions, for the planner: the parameters of a called body stand for its arguments, its names renamed apart.
//!
//! Lowering (`lower.rs`) inlines as it goes ([`Lowerer::call`]), reading
//! each called body in place; a simple argument (a constant, a name, a
//! lambda) is substituted, inlined by [`Lowerer::inline`] beforehand, and
//! every other is bound once by a `let`. Both give the fresh names in the
//! same order, so a plan's names do not depend on which path made them.

use super::lower::{internal, node, Lowered, Lowerer};
use crate::check::fn_id::FnId;
use crate::check::tir::TExpr;
use rqc_plan::{Node, Op, Value};
use std::rc::Rc;

/// What names stand for while a body is inlined: a persistent map of shared
/// values, so the scope copied for each `let` and lambda inside shares the
/// map rather than copying it (a body of 16,000 `let`s copied a map that
/// grew by one each time) and copies no value (a lambda argument may be
/// large). Its names are hashed as the interner's are.
pub(super) type Env = imbl::GenericHashMap<
    String,
    Rc<TExpr>,
    crate::cost::NameHash,
    imbl::shared_ptr::DefaultSharedPtr,
>;

impl Lowerer<'_> {
    pub(super) fn fresh_name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}#{}", self.fresh)
    }

    /// Replaces calls of RQL functions by their bodies (parameters bound by
    /// `let`, renamed apart). `params`: when inlining a query's or
    /// mutation's body, the arguments its `Param(i)`s stand for. It takes
    /// the tree by value and rebuilds it in one pass: a shared body is
    /// copied once, where it is inlined. Used where lowering needs the
    /// inlined tree itself: a simple argument, and a `take`'s input that
    /// is a call (it may inline to the sort of a top-k).
    pub(super) fn inline(
        &mut self,
        t: TExpr,
        env: &Env,
        params: Option<&[TExpr]>,
    ) -> Lowered<TExpr> {
        self.budget.descend()?;
        let inlined = self.inline_node(t, env, params);
        self.budget.ascend();
        inlined
    }

    fn inline_node(&mut self, t: TExpr, env: &Env, params: Option<&[TExpr]>) -> Lowered<TExpr> {
        Ok(match t {
            TExpr::Local(name) => match env.get(&name) {
                Some(value) => self.budget.copy(value)?,
                None => TExpr::Local(name),
            },
            TExpr::Param(i) => match params {
                Some(args) => self.budget.copy(
                    args.get(i)
                        .ok_or_else(|| internal("a parameter the call does not give"))?,
                )?,
                None => TExpr::Param(i),
            },
            TExpr::Call(function, args) => {
                let args = args
                    .into_iter()
                    .map(|a| self.inline(a, env, params))
                    .collect::<Lowered<Vec<_>>>()?;
                let (names, body) = (self.functions)(function).ok_or_else(|| {
                    internal(&format!("a call of `{function}`, which has no body"))
                })?;
                let args = args.into_iter().map(|arg| {
                    if is_simple(&arg) {
                        Arg::Simple(arg)
                    } else {
                        Arg::Bound(arg)
                    }
                });
                let bound = self.bind_params(&names, args);
                self.budget.enter(function)?;
                let result = self.inline((*body).clone(), &bound.env, Some(&bound.positional))?;
                self.budget.leave();
                bound
                    .lets
                    .into_iter()
                    .rev()
                    .fold(result, |body, (name, value)| {
                        TExpr::Let(name, Box::new(value), Box::new(body))
                    })
            }
            TExpr::Let(name, value, body) => {
                let value = self.inline(*value, env, params)?;
                let fresh = self.fresh_name(&name);
                let mut inner = env.clone();
                inner.insert(name, Rc::new(TExpr::Local(fresh.clone())));
                TExpr::Let(
                    fresh,
                    Box::new(value),
                    Box::new(self.inline(*body, &inner, params)?),
                )
            }
            TExpr::Update {
                table,
                target,
                row: Some(row),
                changes,
            } => {
                // The row's name is bound in the changes, as a `let`'s.
                let target = self.inline(*target, env, params)?;
                let fresh = self.fresh_name(&row);
                let mut inner = env.clone();
                inner.insert(row, Rc::new(TExpr::Local(fresh.clone())));
                let mut renamed = Vec::with_capacity(changes.len());
                for (column, value) in changes {
                    renamed.push((column, self.inline(value, &inner, params)?));
                }
                TExpr::Update {
                    table,
                    target: Box::new(target),
                    row: Some(fresh),
                    changes: renamed,
                }
            }
            TExpr::Lambda(lambda_params, body) => {
                let mut inner = env.clone();
                let mut renamed = Vec::new();
                for param in lambda_params {
                    let fresh = self.fresh_name(&param);
                    inner.insert(param, Rc::new(TExpr::Local(fresh.clone())));
                    renamed.push(fresh);
                }
                TExpr::Lambda(renamed, Box::new(self.inline(*body, &inner, params)?))
            }
            TExpr::CallLocal(name, args) => {
                let args = args
                    .into_iter()
                    .map(|a| self.inline(a, env, params))
                    .collect::<Lowered<Vec<_>>>()?;
                let callee = match env.get(&name) {
                    Some(value) => self.budget.copy(value)?,
                    None => TExpr::Local(name),
                };
                TExpr::CallLocal(String::new(), std::iter::once(callee).chain(args).collect())
            }
            other => {
                let mut failure = None;
                let rebuilt = other.map_children(&mut |child| {
                    if failure.is_some() {
                        return TExpr::Error;
                    }
                    match self.inline(child, env, params) {
                        Ok(done) => done,
                        Err(error) => {
                            failure = Some(error);
                            TExpr::Error
                        }
                    }
                });
                if let Some(error) = failure {
                    return Err(error);
                }
                rebuilt
            }
        })
    }

    /// A call of an RQL function, inlined: its body lowered with each
    /// parameter standing for its argument — a simple one substituted, any
    /// other evaluated once by a `let` (as the cost rules count it).
    pub(super) fn call(&mut self, function: FnId, args: &[TExpr], scope: &Scope) -> Lowered<Node> {
        let (names, body) = (self.functions)(function)
            .ok_or_else(|| internal(&format!("a call of `{function}`, which has no body")))?;
        let args = args
            .iter()
            .zip(&names)
            .map(|(arg, param)| {
                // A number the body compares is bound by a `let` too: the
                // plan verifier narrows a name by the comparisons it passes,
                // as the checker narrows the parameter (`if p > 10 { 10 }
                // else { p }` at 1000 is 10), never a constant in its place.
                // A `Bool` literal is substituted: the checker reads it as
                // its flag's number (`guard_argument`), the verifier as the
                // literal (`p == (m <= 10)` at `true` is `m <= 10`), where a
                // `let` would hide it in the condition.
                if self.simple_when_inlined(arg) {
                    let value = self.inline(arg.clone(), &scope.env, scope.params.as_deref())?;
                    let number =
                        matches!(value, TExpr::Const(ref c) if !matches!(c, Value::Bool(_)));
                    if !(number && compares(&body, param)) {
                        return Ok(Arg::Simple(value));
                    }
                }
                Ok(Arg::Bound(self.lower(arg, Some(scope))?))
            })
            .collect::<Lowered<Vec<_>>>()?;
        let bound = self.bind_params(&names, args.into_iter());
        let inner = Scope {
            env: bound.env,
            params: Some(bound.positional.into()),
        };
        self.budget.enter(function)?;
        let result = self.lower(&body, Some(&inner))?;
        self.budget.leave();
        Ok(bound
            .lets
            .into_iter()
            .rev()
            .fold(result, |body, (name, value)| {
                node(Op::Let(name, Box::new(value), Box::new(body)))
            }))
    }

    /// A called body's parameters bound to its arguments, in order: a
    /// simple argument stands for itself, any other gets a fresh name that
    /// the caller binds by a `let` around the body (evaluated once, as the
    /// cost rules count it). Both ways of inlining bind through here, so
    /// their fresh names come in the same order.
    fn bind_params<V>(
        &mut self,
        names: &[String],
        args: impl Iterator<Item = Arg<V>>,
    ) -> BoundParams<V> {
        let mut bound = BoundParams {
            env: Env::default(),
            positional: Vec::new(),
            lets: Vec::new(),
        };
        for (param, arg) in names.iter().zip(args) {
            let value = match arg {
                Arg::Simple(value) => value,
                Arg::Bound(value) => {
                    let fresh = self.fresh_name(param);
                    bound.lets.push((fresh.clone(), value));
                    TExpr::Local(fresh)
                }
            };
            bound.positional.push(value.clone());
            bound.env.insert(param.clone(), Rc::new(value));
        }
        bound
    }

    /// Whether [`Lowerer::inline`] makes `t` a simple value ([`is_simple`]):
    /// names and parameters always become one (they stand for simple
    /// values or fresh names), and a call does when all its arguments do
    /// and so does its body. A body's answer is kept, so a helper that
    /// calls another twice is looked at once, not once per copy.
    fn simple_when_inlined(&mut self, t: &TExpr) -> bool {
        match t {
            TExpr::Call(function, args) => {
                args.iter().all(|arg| self.simple_when_inlined(arg)) && self.simple_body(*function)
            }
            other => is_simple(other),
        }
    }

    fn simple_body(&mut self, function: FnId) -> bool {
        if let Some(known) = self.simple_bodies.get(&function) {
            return *known;
        }
        let simple =
            (self.functions)(function).is_some_and(|(_, body)| self.simple_when_inlined(&body));
        self.simple_bodies.insert(function, simple);
        simple
    }
}

/// An argument of an inlined call: substituted as it is, or bound once
/// (`V`: the typed form, or its lowered plan).
enum Arg<V> {
    Simple(TExpr),
    Bound(V),
}

/// What [`Lowerer::bind_params`] gives: each parameter's stand-in by name
/// and by position, and the `let`s to put around the body, in order.
struct BoundParams<V> {
    env: Env,
    positional: Vec<TExpr>,
    lets: Vec<(String, V)>,
}

/// What the names of the body being inlined stand for: `env` by name,
/// `params` (an inlined function's arguments) by position.
#[derive(Clone, Default)]
pub(super) struct Scope {
    pub(super) env: Env,
    pub(super) params: Option<Rc<[TExpr]>>,
}

impl Scope {
    pub(super) fn with(&self, name: &str, value: TExpr) -> Scope {
        let mut inner = self.clone();
        inner.env.insert(name.to_string(), Rc::new(value));
        inner
    }
}

/// Whether `body` compares `param` (`p > 10`), wherever the comparison
/// is: an `if`'s condition, or a `Bool` a `let` names and an `if` tests
/// later, which narrows `p` all the same (spec/cost.md §3.1).
fn compares(body: &TExpr, param: &str) -> bool {
    let is_param = |t: &TExpr| matches!(t, TExpr::Local(name) if name == param);
    crate::check::tir::any_node(body, &mut |t| match t {
        TExpr::Binary(op, a, b) => op.is_comparison() && (is_param(a) || is_param(b)),
        _ => false,
    })
}

/// A value that can be substituted for a parameter without changing what
/// is evaluated or how often: constants, names, lambdas.
fn is_simple(t: &TExpr) -> bool {
    matches!(
        t,
        TExpr::Const(_) | TExpr::Param(_) | TExpr::Local(_) | TExpr::Lambda(..) | TExpr::Order(_)
    )
}
