//! Lowering the typed IR to plans: functions inlined, `sort_by |> take` fused into top-k, each operator given its bound.
//!
//! A scan a declared bound limits becomes an eager `Scan`; any other is a
//! stream scan, which reads nothing until a limiting consumer (`take`,
//! `first`, `exists`) reads from it at run time — wherever the checker let
//! the stream travel (a `let`, a record field, a function's argument). A
//! `take`'s count carries its proved maximum as a `Limit`, checked before
//! the read. A shape the lowering does not expect is an internal error
//! (E0598), never a value that runs.

use crate::check::tir::{RangeT, TExpr};
use crate::check::{CheckedEntry, CheckedProgram};
use crate::cost::Cost;
use crate::syntax::ast::{BinaryOp, DefKind, UnaryOp};
use rqc_plan::{
    BinOp, Bound, Combinator, CompiledProgram, Entry, EntryKind, Node, Op, RangeEnd, Shape, UnOp,
    Value, FORMAT_VERSION,
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
                lower_entry(&|name| checked.functions.get(name).cloned(), entry)
                    .ok()
                    .flatten()
            })
            .collect(),
    }
}

/// A function's parameter names and typed body, by `module.name`.
pub type FunctionSource<'a> = &'a dyn Fn(&str) -> Option<crate::check::tir::FnBody>;

/// Why an accepted entry point has no plan: a shape the planner does not
/// expect (a bug in rqc).
pub type InternalError = String;

/// The plan of one accepted query or mutation (`None` for a function, or
/// an entry without a bound); `functions` gives the bodies of the
/// definitions it calls (to inline).
pub fn lower_entry(
    functions: FunctionSource<'_>,
    entry: &CheckedEntry,
) -> Result<Option<Entry>, InternalError> {
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
    };
    let body = lowerer.inline((*entry.body).clone(), &HashMap::new(), None)?;
    let mut root = lowerer.lower(&body)?;
    root.bound = Some(bound);
    number(&mut root, &mut 0);
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

/// Gives every node its pre-order position.
fn number(node: &mut Node, next: &mut u32) {
    node.id = *next;
    *next += 1;
    for child in node.children_mut() {
        number(child, next);
    }
}

fn node(op: Op) -> Node {
    Node {
        id: 0,
        op,
        bound: None,
    }
}

fn internal(what: &str) -> InternalError {
    format!("the planner met {what}")
}

struct Lowerer<'a> {
    functions: FunctionSource<'a>,
    fresh: u32,
}

type Lowered<T> = Result<T, InternalError>;

impl Lowerer<'_> {
    fn fresh_name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}#{}", self.fresh)
    }

    /// Replaces calls of RQL functions by their bodies (parameters bound by
    /// `let`, renamed apart). `params`: when inlining a query's or
    /// mutation's body, the arguments its `Param(i)`s stand for. It takes
    /// the tree by value and rebuilds it in one pass: a shared body is
    /// copied once, where it is inlined.
    fn inline(
        &mut self,
        t: TExpr,
        env: &HashMap<String, TExpr>,
        params: Option<&[TExpr]>,
    ) -> Lowered<TExpr> {
        Ok(match t {
            TExpr::Local(name) => env.get(&name).cloned().unwrap_or(TExpr::Local(name)),
            TExpr::Param(i) => match params {
                Some(args) => args
                    .get(i)
                    .cloned()
                    .ok_or_else(|| internal("a parameter the call does not give"))?,
                None => TExpr::Param(i),
            },
            TExpr::Call(function, args) => {
                let args = args
                    .into_iter()
                    .map(|a| self.inline(a, env, params))
                    .collect::<Lowered<Vec<_>>>()?;
                let (names, body) = (self.functions)(&function).ok_or_else(|| {
                    internal(&format!("a call of `{function}`, which has no body"))
                })?;
                let mut inner = HashMap::new();
                let mut lets = Vec::new();
                let mut positional = Vec::new();
                for (param, arg) in names.iter().zip(args) {
                    // Evaluated once, as the cost rules count it.
                    let bound = if is_simple(&arg) {
                        arg
                    } else {
                        let fresh = self.fresh_name(param);
                        lets.push((fresh.clone(), arg));
                        TExpr::Local(fresh)
                    };
                    inner.insert(param.clone(), bound.clone());
                    positional.push(bound);
                }
                let mut result = self.inline((*body).clone(), &inner, Some(&positional))?;
                for (name, value) in lets.into_iter().rev() {
                    result = TExpr::Let(name, Box::new(value), Box::new(result));
                }
                result
            }
            TExpr::Let(name, value, body) => {
                let value = self.inline(*value, env, params)?;
                let fresh = self.fresh_name(&name);
                let mut inner = env.clone();
                inner.insert(name, TExpr::Local(fresh.clone()));
                TExpr::Let(
                    fresh,
                    Box::new(value),
                    Box::new(self.inline(*body, &inner, params)?),
                )
            }
            TExpr::Lambda(lambda_params, body) => {
                let mut inner = env.clone();
                let mut renamed = Vec::new();
                for param in lambda_params {
                    let fresh = self.fresh_name(&param);
                    inner.insert(param, TExpr::Local(fresh.clone()));
                    renamed.push(fresh);
                }
                TExpr::Lambda(renamed, Box::new(self.inline(*body, &inner, params)?))
            }
            TExpr::CallLocal(name, args) => {
                let args = args
                    .into_iter()
                    .map(|a| self.inline(a, env, params))
                    .collect::<Lowered<Vec<_>>>()?;
                let callee = env.get(&name).cloned().unwrap_or(TExpr::Local(name));
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

    fn lower(&mut self, t: &TExpr) -> Lowered<Node> {
        match t {
            TExpr::Costed(inner, cost) => {
                let mut lowered = self.lower_operator(inner)?;
                lowered.bound = bound_of(cost);
                Ok(lowered)
            }
            other => self.lower_operator(other),
        }
    }

    fn all(&mut self, items: &[TExpr]) -> Lowered<Vec<Node>> {
        items.iter().map(|i| self.lower(i)).collect()
    }

    fn boxed(&mut self, t: &TExpr) -> Lowered<Box<Node>> {
        Ok(Box::new(self.lower(t)?))
    }

    fn lower_operator(&mut self, t: &TExpr) -> Lowered<Node> {
        Ok(match t {
            TExpr::Const(value) => node(Op::Const(value.clone())),
            TExpr::Param(i) => node(Op::Param(*i)),
            TExpr::Local(name) => node(Op::Var(name.clone())),
            TExpr::Lookup { table, key } => node(Op::Get {
                table: table.clone(),
                key: self.all(key)?,
            }),
            TExpr::AggregateRead { aggregate, key } => node(Op::Aggregate {
                aggregate: aggregate.clone(),
                key: self.all(key)?,
            }),
            TExpr::UniqueLookup {
                table,
                index,
                values,
            } => node(Op::GetUnique {
                table: table.clone(),
                index: index.clone(),
                values: self.all(values)?,
            }),
            TExpr::Scan { .. } => self.scan(t)?,
            TExpr::Field(base, name) => node(Op::Field(self.boxed(base)?, name.clone())),
            TExpr::Record(fields) => node(Op::Record(
                fields
                    .iter()
                    .map(|(n, v)| Ok((n.clone(), self.lower(v)?)))
                    .collect::<Lowered<Vec<_>>>()?,
            )),
            TExpr::List(items) => node(Op::List(self.all(items)?)),
            TExpr::Tuple(items) => node(Op::Tuple(self.all(items)?)),
            TExpr::Unary(op, a) => node(Op::Unary(
                match op {
                    UnaryOp::Neg => UnOp::Neg,
                    UnaryOp::Not => UnOp::Not,
                    UnaryOp::Length => UnOp::Length,
                    UnaryOp::Lower => UnOp::Lower,
                    UnaryOp::Upper => UnOp::Upper,
                    UnaryOp::ToFloat => UnOp::ToFloat,
                },
                self.boxed(a)?,
            )),
            TExpr::Binary(op, a, b) => node(Op::Binary(
                binop(*op).ok_or_else(|| internal("an `in` outside an access"))?,
                self.boxed(a)?,
                self.boxed(b)?,
            )),
            TExpr::If(c, a, b) => node(Op::If(self.boxed(c)?, self.boxed(a)?, self.boxed(b)?)),
            TExpr::Let(name, value, body) => {
                node(Op::Let(name.clone(), self.boxed(value)?, self.boxed(body)?))
            }
            TExpr::Seq(items) => node(Op::Seq(self.all(items)?)),
            TExpr::Lambda(params, body) => node(Op::Lambda(params.clone(), self.boxed(body)?)),
            TExpr::CallLocal(_, parts) => {
                let (callee, args) = parts
                    .split_first()
                    .ok_or_else(|| internal("a call of nothing"))?;
                node(Op::Apply(self.boxed(callee)?, self.all(args)?))
            }
            TExpr::Builtin(name, shape, args) => self.builtin(name, *shape, args)?,
            TExpr::Limit(count, Some(max)) => node(Op::Limit {
                count: self.boxed(count)?,
                max: *max,
            }),
            // In generic code the maximum is the caller's: the enclosing
            // operator's bound holds the read.
            TExpr::Limit(count, None) => self.lower(count)?,
            TExpr::Insert { table, row } => node(Op::Insert {
                table: table.clone(),
                row: self.all(row)?,
            }),
            TExpr::Update {
                table,
                target,
                changes,
            } => node(Op::Update {
                table: table.clone(),
                target: self.boxed(target)?,
                changes: changes
                    .iter()
                    .map(|(n, v)| Ok((n.clone(), self.lower(v)?)))
                    .collect::<Lowered<Vec<_>>>()?,
            }),
            TExpr::Delete { table, target } => node(Op::Delete {
                table: table.clone(),
                target: self.boxed(target)?,
            }),
            // `desc`/`asc` only appear as `sort_by`'s order, read there.
            TExpr::Order(descending) => node(Op::Const(Value::Bool(*descending))),
            TExpr::Unreachable => node(Op::Unreachable),
            TExpr::Costed(..) => self.lower(t)?,
            TExpr::Call(name, _) => {
                return Err(internal(&format!("a call of `{name}` left after inlining")))
            }
            TExpr::DelayedLambda(_) => {
                return Err(internal("a lambda whose body was never checked"))
            }
            TExpr::Error => return Err(internal("an expression the checker rejected")),
        })
    }

    fn builtin(&mut self, name: &str, shape: Shape, args: &[TExpr]) -> Lowered<Node> {
        let input = args
            .first()
            .ok_or_else(|| internal(&format!("`{name}` without its input")))?;
        // `sort_by(key, order) |> take(k)`: top-k in one pass.
        if name == "take" {
            if let TExpr::Costed(sorted, _) = input {
                if let TExpr::Builtin(inner, Shape::List, sort_args) = &**sorted {
                    if inner == "sort_by"
                        && sort_args.len() >= 2
                        && args.len() == 2
                        && shape == Shape::List
                    {
                        let descending = matches!(sort_args.get(2), Some(TExpr::Order(true)));
                        return Ok(node(Op::TopK {
                            input: self.boxed(&sort_args[0])?,
                            key: self.boxed(&sort_args[1])?,
                            descending,
                            k: self.boxed(&args[1])?,
                        }));
                    }
                }
            }
        }
        let combinator = match name {
            "map" => Combinator::Map,
            "filter" => Combinator::Filter,
            "flat_map" => Combinator::FlatMap,
            "flatten" => Combinator::Flatten,
            "sort_by" => Combinator::SortBy {
                descending: matches!(args.get(2), Some(TExpr::Order(true))),
            },
            "group_by" => Combinator::GroupBy,
            "distinct" => Combinator::Distinct,
            "count" => Combinator::Count,
            "sum" => Combinator::Sum,
            "avg" => Combinator::Avg,
            "min" => Combinator::Min,
            "max" => Combinator::Max,
            "any" => Combinator::Any,
            "all" => Combinator::All,
            "take" => Combinator::Take,
            "skip" => Combinator::Skip,
            "first" => Combinator::First,
            "exists" => Combinator::Exists,
            "unwrap_or" => Combinator::UnwrapOr,
            other => return Err(internal(&format!("an unknown combinator `{other}`"))),
        };
        let operands: &[TExpr] = match combinator {
            Combinator::SortBy { .. } => &args[..args.len().min(2)],
            _ => args,
        };
        Ok(node(Op::Combinator(combinator, shape, self.all(operands)?)))
    }

    fn scan(&mut self, t: &TExpr) -> Lowered<Node> {
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
        let mut end = |e: &Option<(TExpr, bool)>| -> Lowered<Option<RangeEnd>> {
            e.as_ref()
                .map(|(value, inclusive)| {
                    Ok(RangeEnd {
                        value: self.boxed(value)?,
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
            prefix: self.all(prefix)?,
            lower,
            upper,
            stream: !bounded,
            starts_with,
        }))
    }
}

/// A value that can be substituted for a parameter without changing what
/// is evaluated or how often: constants, names, lambdas.
fn is_simple(t: &TExpr) -> bool {
    matches!(
        t,
        TExpr::Const(_) | TExpr::Param(_) | TExpr::Local(_) | TExpr::Lambda(..) | TExpr::Order(_)
    )
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
