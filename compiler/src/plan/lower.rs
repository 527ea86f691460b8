//! Lowering the typed IR to plans: functions inlined, `sort_by |> take` fused into top-k, each operator given its bound.
//!
//! A scan a declared bound limits becomes an eager `Scan`; any other is a
//! stream scan, which reads nothing until a limiting consumer (`take`,
//! `first`, `exists`) reads from it at run time — wherever the checker let
//! the stream travel (a `let`, a record field, a function's argument). A
//! `take`'s count carries its proved maximum as a `Limit`, checked before
//! the read. A shape the lowering does not expect is an internal error
//! (E0598), never a value that runs.

use super::budget::{Budget, PlanError, MAX_PLAN_DEPTH};
use super::inline::Scope;
use crate::check::tir::{RangeT, TExpr};
use crate::check::{CheckedEntry, CheckedProgram};
use crate::cost::Cost;
use crate::syntax::ast::{BinaryOp, DefKind, UnaryOp};
use rqc_plan::{
    BinOp, Bound, Builtin, Combinator, CompiledProgram, Entry, EntryKind, Node, Op, RangeEnd,
    Shape, UnOp, Value, FORMAT_VERSION,
};
use std::collections::HashMap;

/// The runnable program: the schema and a plan per accepted query and
/// mutation (an entry the planner could not lower is left out; its error is
/// in [`lower_entry`]'s answer).
pub fn lower_program(checked: &CheckedProgram) -> CompiledProgram {
    CompiledProgram {
        format_version: FORMAT_VERSION,
        schema: checked.schema.clone(),
        entries: checked
            .entries
            .iter()
            .filter_map(|entry| {
                lower_entry(&|id| checked.functions.get(id.name()).cloned(), entry)
                    .ok()
                    .flatten()
            })
            .map(std::sync::Arc::new)
            .collect(),
    }
}

/// A function's parameter names and typed body, by its interned
/// `module.name`.
pub type FunctionSource<'a> =
    &'a dyn Fn(crate::check::fn_id::FnId) -> Option<crate::check::tir::FnBody>;

/// The plan of one accepted query or mutation (`None` for a function, or
/// an entry without a bound); `functions` gives the bodies of the
/// definitions it calls (to inline).
pub fn lower_entry(
    functions: FunctionSource<'_>,
    entry: &CheckedEntry,
) -> Result<Option<Entry>, PlanError> {
    let kind = match entry.kind {
        DefKind::Query => EntryKind::Query,
        DefKind::Mutation => EntryKind::Mutation,
        DefKind::Fn => return Ok(None),
    };
    let Some(bound) = bound_of(&entry.cost) else {
        return Ok(None);
    };
    let Some(params) = entry.params.clone() else {
        return Ok(None);
    };
    let mut lowerer = Lowerer {
        functions,
        fresh: 0,
        budget: Budget::new(),
        simple_bodies: HashMap::new(),
    };
    let mut root = lowerer.lower(&entry.body, Some(&Scope::default()))?;
    root.bound = Some(bound);
    // Lowering held its own recursion to the limit; the `let`s that bind
    // arguments around inlined bodies may nest the plan deeper.
    if number(&mut root) > MAX_PLAN_DEPTH {
        return Err(PlanError::TooDeep { call: None });
    }
    Ok(Some(Entry {
        module: entry.module.clone(),
        name: entry.name.clone(),
        kind,
        params,
        bound,
        root,
    }))
}

fn bound_of(cost: &Cost) -> Option<Bound> {
    Some(Bound {
        seeks: cost.seeks.max_value()?,
        rows: cost.rows.max_value()?,
        round_trips: cost.trips.max_value()?,
    })
}

/// Gives every node its pre-order position, and answers how deep the tree
/// nests (without recursion: the tree is not yet known to be shallow).
fn number(root: &mut Node) -> usize {
    let (mut next, mut deepest) = (0, 0);
    let mut work = vec![(root, 1)];
    while let Some((node, depth)) = work.pop() {
        node.id = next;
        next += 1;
        deepest = deepest.max(depth);
        let children = Node::children_mut(node);
        work.extend(children.into_iter().rev().map(|child| (child, depth + 1)));
    }
    deepest
}

pub(super) fn node(op: Op) -> Node {
    Node {
        id: 0,
        op,
        bound: None,
    }
}

pub(super) fn internal(what: &str) -> PlanError {
    PlanError::Internal(format!("the planner met {what}"))
}

pub(super) struct Lowerer<'a> {
    pub(super) functions: FunctionSource<'a>,
    pub(super) fresh: u32,
    pub(super) budget: Budget,
    /// Whether a function's body inlines to a simple value when its
    /// arguments are simple, by function (`Lowerer::simple_when_inlined`).
    pub(super) simple_bodies: HashMap<crate::check::fn_id::FnId, bool>,
}

pub(super) type Lowered<T> = Result<T, PlanError>;

impl Lowerer<'_> {
    /// Lowers `t`, inlining its calls on the way when `scope` is given (as
    /// [`Lowerer::inline`] would, in the same order, so the fresh names are
    /// the same) without copying the bodies it inlines; without a scope, `t`
    /// is inlined already (a substituted argument).
    pub(super) fn lower(&mut self, t: &TExpr, scope: Option<&Scope>) -> Lowered<Node> {
        self.budget.descend()?;
        let lowered = match t {
            TExpr::Costed(inner, cost) => self.lower_operator(inner, scope).map(|mut lowered| {
                lowered.bound = bound_of(cost);
                lowered
            }),
            other => self.lower_operator(other, scope),
        };
        self.budget.ascend();
        lowered
    }

    fn all(&mut self, items: &[TExpr], scope: Option<&Scope>) -> Lowered<Vec<Node>> {
        // Sized up front: collecting through `Result` starts at four nodes
        // whatever the count, and a plan is kept as long as its program.
        let mut nodes = Vec::with_capacity(items.len());
        for item in items {
            nodes.push(self.lower(item, scope)?);
        }
        Ok(nodes)
    }

    /// Named values (record fields, a write's columns), in order.
    fn named<K: Clone>(
        &mut self,
        fields: &[(K, TExpr)],
        scope: Option<&Scope>,
    ) -> Lowered<Vec<(K, Node)>> {
        let mut nodes = Vec::with_capacity(fields.len());
        for (name, value) in fields {
            nodes.push((name.clone(), self.lower(value, scope)?));
        }
        Ok(nodes)
    }

    fn boxed(&mut self, t: &TExpr, scope: Option<&Scope>) -> Lowered<Box<Node>> {
        Ok(Box::new(self.lower(t, scope)?))
    }

    fn lower_operator(&mut self, t: &TExpr, scope: Option<&Scope>) -> Lowered<Node> {
        Ok(match t {
            TExpr::Const(value) => node(Op::Const(value.clone())),
            TExpr::Now => node(Op::Now),
            TExpr::Param(i) => match scope.and_then(|s| s.params.as_deref()) {
                Some(args) => {
                    let arg = args
                        .get(*i)
                        .ok_or_else(|| internal("a parameter the call does not give"))?;
                    self.lower(arg, None)?
                }
                None => node(Op::Param(*i)),
            },
            TExpr::Local(name) => match scope.and_then(|s| s.env.get(name)) {
                Some(value) => self.lower(value, None)?,
                None => node(Op::Var(name.clone())),
            },
            TExpr::Lookup { table, key } => node(Op::Get {
                table: table.clone(),
                key: self.all(key, scope)?,
            }),
            TExpr::AggregateRead { aggregate, key } => node(Op::Aggregate {
                aggregate: aggregate.clone(),
                key: self.all(key, scope)?,
            }),
            TExpr::UniqueLookup {
                table,
                index,
                values,
            } => node(Op::GetUnique {
                table: table.clone(),
                index: index.clone(),
                values: self.all(values, scope)?,
            }),
            TExpr::Scan { .. } => self.scan(t, scope)?,
            TExpr::Field(base, name) => node(Op::Field(self.boxed(base, scope)?, name.clone())),
            TExpr::Column(base, column) => {
                node(Op::Column(self.boxed(base, scope)?, column.clone()))
            }
            TExpr::Record(fields) => node(Op::Record(self.named(fields, scope)?)),
            TExpr::List(items) => node(Op::List(self.all(items, scope)?)),
            TExpr::Tuple(items) => node(Op::Tuple(self.all(items, scope)?)),
            TExpr::Unary(op, a) => node(Op::Unary(
                match op {
                    UnaryOp::Neg => UnOp::Neg,
                    UnaryOp::Not => UnOp::Not,
                    UnaryOp::Length => UnOp::Length,
                    UnaryOp::Lower => UnOp::Lower,
                    UnaryOp::Upper => UnOp::Upper,
                    UnaryOp::ToFloat => UnOp::ToFloat,
                },
                self.boxed(a, scope)?,
            )),
            TExpr::Binary(op, a, b) => {
                let (a, b) = (self.boxed(a, scope)?, self.boxed(b, scope)?);
                node(Op::Binary(
                    binop(*op).ok_or_else(|| internal("an `in` outside an access"))?,
                    a,
                    b,
                ))
            }
            TExpr::If(c, a, b) => node(Op::If(
                self.boxed(c, scope)?,
                self.boxed(a, scope)?,
                self.boxed(b, scope)?,
            )),
            TExpr::Let(name, value, body) => {
                let value = self.boxed(value, scope)?;
                match scope {
                    Some(scope) => {
                        let fresh = self.fresh_name(name);
                        let inner = scope.with(name, TExpr::Local(fresh.clone()));
                        node(Op::Let(fresh, value, self.boxed(body, Some(&inner))?))
                    }
                    None => node(Op::Let(name.clone(), value, self.boxed(body, None)?)),
                }
            }
            TExpr::Seq(items) => node(Op::Seq(self.all(items, scope)?)),
            TExpr::Lambda(params, body) => match scope {
                Some(scope) => {
                    let mut inner = scope.clone();
                    let mut renamed = Vec::new();
                    for param in params {
                        let fresh = self.fresh_name(param);
                        inner
                            .env
                            .insert(param.clone(), std::rc::Rc::new(TExpr::Local(fresh.clone())));
                        renamed.push(fresh);
                    }
                    node(Op::Lambda(renamed, self.boxed(body, Some(&inner))?))
                }
                None => node(Op::Lambda(params.clone(), self.boxed(body, None)?)),
            },
            TExpr::CallLocal(name, parts) => match scope {
                // The callee is the parameter's argument, named after it.
                Some(scope) => {
                    let args = self.all(parts, Some(scope))?;
                    let callee = match scope.env.get(name) {
                        Some(value) => self.lower(value, None)?,
                        None => node(Op::Var(name.clone())),
                    };
                    node(Op::Apply(Box::new(callee), args))
                }
                None => {
                    let (callee, args) = parts
                        .split_first()
                        .ok_or_else(|| internal("a call of nothing"))?;
                    node(Op::Apply(self.boxed(callee, None)?, self.all(args, None)?))
                }
            },
            TExpr::Builtin(name, shape, args) => self.builtin(*name, *shape, args, scope)?,
            TExpr::Limit(count, Some(max)) => node(Op::Limit {
                count: self.boxed(count, scope)?,
                max: *max,
            }),
            // In generic code the maximum is the caller's: the enclosing
            // operator's bound holds the read.
            TExpr::Limit(count, None) => self.lower(count, scope)?,
            TExpr::Insert {
                table,
                row,
                generated,
            } => node(Op::Insert {
                table: table.clone(),
                row: self.all(row, scope)?,
                generated: *generated,
            }),
            TExpr::Update {
                table,
                target,
                row,
                changes,
            } => {
                let target = self.boxed(target, scope)?;
                // The row's name is bound in the changes: renamed apart
                // where calls are inlined, as a `let`'s is.
                let (row, inner) = match (row, scope) {
                    (Some(name), Some(scope)) => {
                        let fresh = self.fresh_name(name);
                        let inner = scope.with(name, TExpr::Local(fresh.clone()));
                        (Some(fresh), Some(inner))
                    }
                    (row, _) => (row.clone(), None),
                };
                let scope = inner.as_ref().or(scope);
                node(Op::Update {
                    table: table.clone(),
                    target,
                    changes: self.named(changes, scope)?,
                    row,
                })
            }
            TExpr::Upsert { table, columns } => node(Op::Upsert {
                table: table.clone(),
                columns: self.named(columns, scope)?,
            }),
            TExpr::Delete { table, target } => node(Op::Delete {
                table: table.clone(),
                target: self.boxed(target, scope)?,
            }),
            // `desc`/`asc` only appear as `sort_by`'s order, read there.
            TExpr::Order(descending) => node(Op::Const(Value::Bool(*descending))),
            TExpr::Unreachable => node(Op::Unreachable),
            TExpr::Costed(..) => self.lower(t, scope)?,
            TExpr::Call(name, args) => match scope {
                Some(scope) => self.call(*name, args, scope)?,
                None => return Err(internal(&format!("a call of `{name}` left after inlining"))),
            },
            TExpr::DelayedLambda(_) => {
                return Err(internal("a lambda whose body was never checked"))
            }
            TExpr::Error => return Err(internal("an expression the checker rejected")),
        })
    }

    fn builtin(
        &mut self,
        name: Builtin,
        shape: Shape,
        args: &[TExpr],
        scope: Option<&Scope>,
    ) -> Lowered<Node> {
        let input = args
            .first()
            .ok_or_else(|| internal(&format!("`{name}` without its input")))?;
        // `sort_by(key, order) |> take(k)`: top-k in one pass.
        if name == Builtin::Take && args.len() == 2 && shape == Shape::List {
            // A call (or a costed call) may inline to the sort: inlined
            // first, in place, then read as inlined.
            let called = match input {
                TExpr::Costed(inner, _) => matches!(**inner, TExpr::Call(..)),
                other => matches!(other, TExpr::Call(..)),
            };
            if let (true, Some(scope)) = (called, scope) {
                let input = self.inline(input.clone(), &scope.env, scope.params.as_deref())?;
                return match top_k_sort(&input) {
                    Some(sort_args) => self.top_k(sort_args, None, &args[1], Some(scope)),
                    None => Ok(node(Op::Combinator(
                        Combinator::Take,
                        shape,
                        vec![
                            self.lower(&input, None)?,
                            self.lower(&args[1], Some(scope))?,
                        ],
                    ))),
                };
            }
            if let Some(sort_args) = top_k_sort(input) {
                return self.top_k(sort_args, scope, &args[1], scope);
            }
        }
        let combinator = name.combinator(matches!(args.get(2), Some(TExpr::Order(true))));
        let mut operands = self.all(args, scope)?;
        if let Combinator::SortBy { .. } = combinator {
            // The order is in the combinator.
            operands.truncate(2);
        }
        Ok(node(Op::Combinator(combinator, shape, operands)))
    }

    /// `sort_by |> take(k)` as one operator: the sort's arguments lowered
    /// in `sort_scope`, then `k` in `k_scope` (each `None` when inlined
    /// already). Every argument of the sort is lowered, as inlining meets
    /// them all; the order is read from the third.
    fn top_k(
        &mut self,
        sort_args: &[TExpr],
        sort_scope: Option<&Scope>,
        k: &TExpr,
        k_scope: Option<&Scope>,
    ) -> Lowered<Node> {
        let descending = matches!(sort_args.get(2), Some(TExpr::Order(true)));
        let mut sorted = self.all(sort_args, sort_scope)?.into_iter();
        let (Some(input), Some(key)) = (sorted.next(), sorted.next()) else {
            return Err(internal("a sort without its key"));
        };
        let k = self.lower(k, k_scope)?;
        Ok(node(Op::TopK {
            input: Box::new(input),
            key: Box::new(key),
            descending,
            k: Box::new(k),
        }))
    }

    fn scan(&mut self, t: &TExpr, scope: Option<&Scope>) -> Lowered<Node> {
        let TExpr::Scan {
            table,
            index,
            prefix,
            range,
            bounded,
        } = t
        else {
            return Err(internal("a scan that is not one"));
        };
        // The prefix first: in the order inlining meets them.
        let prefix = self.all(prefix, scope)?;
        let mut end = |e: &Option<(TExpr, bool)>| -> Lowered<Option<RangeEnd>> {
            e.as_ref()
                .map(|(value, inclusive)| {
                    Ok(RangeEnd {
                        value: self.boxed(value, scope)?,
                        inclusive: *inclusive,
                    })
                })
                .transpose()
        };
        let (lower, upper, starts_with) = match range.as_deref() {
            Some(RangeT {
                lower,
                upper,
                starts_with,
            }) => (end(lower)?, end(upper)?, *starts_with),
            None => (None, None, false),
        };
        Ok(node(Op::Scan {
            table: table.clone(),
            index: index.clone(),
            prefix,
            lower,
            upper,
            stream: !bounded,
            starts_with,
        }))
    }
}

/// The sort's arguments when `input` (inlined) is `sort_by` over a list
/// with its key, as `take` reads it for a top-k.
fn top_k_sort(input: &TExpr) -> Option<&[TExpr]> {
    match input {
        TExpr::Costed(sorted, _) => match &**sorted {
            TExpr::Builtin(inner, Shape::List, sort_args)
                if *inner == Builtin::SortBy && sort_args.len() >= 2 =>
            {
                Some(sort_args)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The plan's operator; `in` has none (the checker turns it into lookups).
fn binop(op: BinaryOp) -> Option<BinOp> {
    Some(match op {
        BinaryOp::Or => BinOp::Or,
        BinaryOp::And => BinOp::And,
        BinaryOp::Eq => BinOp::Eq,
        BinaryOp::NotEq => BinOp::NotEq,
        BinaryOp::Lt => BinOp::Lt,
        BinaryOp::LtEq => BinOp::LtEq,
        BinaryOp::Gt => BinOp::Gt,
        BinaryOp::GtEq => BinOp::GtEq,
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul => BinOp::Mul,
        BinaryOp::Div => BinOp::Div,
        BinaryOp::Rem => BinOp::Rem,
        BinaryOp::StartsWith => BinOp::StartsWith,
        BinaryOp::In => return None,
    })
}
