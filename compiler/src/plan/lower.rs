//! Lowering the typed IR to plans: functions inlined, limits pushed into scans,
//! `sort_by |> take` fused into top-k, and each operator given its bound.
//!
//! Streams exist only in the typed IR: the checker lets a stream be consumed
//! by `take`, `first` or `exists` (through any `map`s), so each consumer
//! becomes a limit on the scan it reads, and a plan reads no range without
//! a limit or a declared bound.

use crate::check::tir::{RangeT, TExpr};
use crate::check::{CheckedEntry, CheckedProgram};
use crate::cost::Cost;
use crate::syntax::ast::{BinaryOp, DefKind, UnaryOp};
use rqc_plan::{
    BinOp, Bound, Combinator, CompiledProgram, Entry, EntryKind, Node, Op, RangeEnd, UnOp, Value,
    FORMAT_VERSION,
};
use std::collections::HashMap;

/// The runnable program: the schema and a plan per accepted query and mutation.
pub fn lower_program(checked: &CheckedProgram) -> CompiledProgram {
    CompiledProgram {
        format_version: FORMAT_VERSION,
        schema: checked.schema.clone(),
        entries: checked
            .entries
            .iter()
            .filter_map(|entry| lower_entry(&|name| checked.functions.get(name).cloned(), entry))
            .collect(),
    }
}

/// A function's parameter names and typed body, by `module.name`.
pub type FunctionSource<'a> = &'a dyn Fn(&str) -> Option<(Vec<String>, TExpr)>;

/// The plan of one accepted query or mutation; `functions` gives the bodies
/// of the definitions it calls (to inline).
pub fn lower_entry(functions: FunctionSource<'_>, entry: &CheckedEntry) -> Option<Entry> {
    let kind = match entry.kind {
        DefKind::Query => EntryKind::Query,
        DefKind::Mutation => EntryKind::Mutation,
        DefKind::Fn => return None,
    };
    let bound = bound_of(&entry.cost)?;
    let mut lowerer = Lowerer {
        functions,
        fresh: 0,
    };
    let body = lowerer.inline(&entry.body, &HashMap::new(), None);
    let mut root = lowerer.lower(&body);
    root.bound = Some(bound);
    number(&mut root, &mut 0);
    Some(Entry {
        module: entry.module.clone(),
        name: entry.name.clone(),
        kind,
        params: entry.params.clone()?,
        bound,
        root,
    })
}

fn bound_of(cost: &Cost) -> Option<Bound> {
    Some(Bound {
        seeks: cost.seeks.max_value()?,
        rows: cost.rows.max_value()?,
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

struct Lowerer<'a> {
    functions: FunctionSource<'a>,
    fresh: u32,
}

impl Lowerer<'_> {
    fn fresh_name(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}#{}", self.fresh)
    }

    /// Replaces calls of RQL functions by their bodies (parameters bound by
    /// `let`, renamed apart), and `let`-bound streams by their definitions
    /// (each use reads the range again, as the cost rules count it).
    /// `params`: when inlining a query's or mutation's body, the arguments
    /// its `Param(i)`s stand for.
    fn inline(
        &mut self,
        t: &TExpr,
        env: &HashMap<String, TExpr>,
        params: Option<&[TExpr]>,
    ) -> TExpr {
        match t {
            TExpr::Local(name) => env.get(name).cloned().unwrap_or_else(|| t.clone()),
            TExpr::Param(i) => match params {
                Some(args) => args.get(*i).cloned().unwrap_or(TExpr::Error),
                None => t.clone(),
            },
            TExpr::Call(function, args) => {
                let args: Vec<TExpr> = args.iter().map(|a| self.inline(a, env, params)).collect();
                let Some((names, body)) = (self.functions)(function) else {
                    return TExpr::Error;
                };
                let mut inner = HashMap::new();
                let mut lets = Vec::new();
                let mut positional = Vec::new();
                for (param, arg) in names.iter().zip(args) {
                    let bound = if is_stream(&arg) || is_simple(&arg) {
                        arg
                    } else {
                        let fresh = self.fresh_name(param);
                        lets.push((fresh.clone(), arg));
                        TExpr::Local(fresh)
                    };
                    inner.insert(param.clone(), bound.clone());
                    positional.push(bound);
                }
                let mut result = self.inline(&body, &inner, Some(&positional));
                for (name, value) in lets.into_iter().rev() {
                    result = TExpr::Let(name, Box::new(value), Box::new(result));
                }
                result
            }
            TExpr::Let(name, value, body) => {
                let value = self.inline(value, env, params);
                let mut inner = env.clone();
                if is_stream(&value) {
                    inner.insert(name.clone(), value);
                    return self.inline(body, &inner, params);
                }
                let fresh = self.fresh_name(name);
                inner.insert(name.clone(), TExpr::Local(fresh.clone()));
                TExpr::Let(
                    fresh,
                    Box::new(value),
                    Box::new(self.inline(body, &inner, params)),
                )
            }
            TExpr::Lambda(lambda_params, body) => {
                let mut inner = env.clone();
                let mut renamed = Vec::new();
                for param in lambda_params {
                    let fresh = self.fresh_name(param);
                    inner.insert(param.clone(), TExpr::Local(fresh.clone()));
                    renamed.push(fresh);
                }
                TExpr::Lambda(renamed, Box::new(self.inline(body, &inner, params)))
            }
            TExpr::CallLocal(name, args) => {
                let args = args.iter().map(|a| self.inline(a, env, params)).collect();
                let callee = env
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| TExpr::Local(name.clone()));
                TExpr::CallLocal(
                    String::new(),
                    std::iter::once(callee).chain(args_vec(args)).collect(),
                )
            }
            other => map_children(other, &mut |child| self.inline(child, env, params)),
        }
    }

    fn lower(&mut self, t: &TExpr) -> Node {
        match t {
            TExpr::Costed(inner, cost) => {
                let mut lowered = self.lower_operator(inner);
                lowered.bound = bound_of(cost);
                lowered
            }
            other => self.lower_operator(other),
        }
    }

    fn lower_operator(&mut self, t: &TExpr) -> Node {
        let all = |this: &mut Self, items: &[TExpr]| {
            items.iter().map(|i| this.lower(i)).collect::<Vec<_>>()
        };
        match t {
            TExpr::Const(value) => node(Op::Const(value.clone())),
            TExpr::Param(i) => node(Op::Param(*i)),
            TExpr::Local(name) => node(Op::Var(name.clone())),
            TExpr::Lookup { table, key } => node(Op::Get {
                table: table.clone(),
                key: all(self, key),
            }),
            TExpr::UniqueLookup {
                table,
                index,
                values,
            } => node(Op::GetUnique {
                table: table.clone(),
                index: index.clone(),
                values: all(self, values),
            }),
            TExpr::Scan { .. } => self.scan(t, None),
            TExpr::Field(base, name) => node(Op::Field(Box::new(self.lower(base)), name.clone())),
            TExpr::Record(fields) => node(Op::Record(
                fields
                    .iter()
                    .map(|(n, v)| (n.clone(), self.lower(v)))
                    .collect(),
            )),
            TExpr::List(items) => node(Op::List(all(self, items))),
            TExpr::Unary(op, a) => node(Op::Unary(
                match op {
                    UnaryOp::Neg => UnOp::Neg,
                    UnaryOp::Not => UnOp::Not,
                },
                Box::new(self.lower(a)),
            )),
            TExpr::Binary(op, a, b) => node(Op::Binary(
                binop(*op),
                Box::new(self.lower(a)),
                Box::new(self.lower(b)),
            )),
            TExpr::If(c, a, b) => node(Op::If(
                Box::new(self.lower(c)),
                Box::new(self.lower(a)),
                Box::new(self.lower(b)),
            )),
            TExpr::Let(name, value, body) => node(Op::Let(
                name.clone(),
                Box::new(self.lower(value)),
                Box::new(self.lower(body)),
            )),
            TExpr::Seq(items) => node(Op::Seq(all(self, items))),
            TExpr::Lambda(params, body) => {
                node(Op::Lambda(params.clone(), Box::new(self.lower(body))))
            }
            TExpr::CallLocal(_, parts) => {
                let callee = self.lower(&parts[0]);
                node(Op::Apply(Box::new(callee), all(self, &parts[1..])))
            }
            TExpr::Builtin(name, args) => self.builtin(name, args),
            TExpr::Insert { table, row } => node(Op::Insert {
                table: table.clone(),
                row: all(self, row),
            }),
            TExpr::Update {
                table,
                target,
                changes,
            } => node(Op::Update {
                table: table.clone(),
                target: Box::new(self.lower(target)),
                changes: changes
                    .iter()
                    .map(|(n, v)| (n.clone(), self.lower(v)))
                    .collect(),
            }),
            TExpr::Delete { table, target } => node(Op::Delete {
                table: table.clone(),
                target: Box::new(self.lower(target)),
            }),
            // `desc`/`asc` only appear as `sort_by`'s order, read there.
            TExpr::Order(descending) => node(Op::Const(Value::Bool(*descending))),
            TExpr::Costed(..) => self.lower(t),
            TExpr::Call(..) | TExpr::Error => node(Op::Const(Value::Null)),
        }
    }

    fn builtin(&mut self, name: &str, args: &[TExpr]) -> Node {
        let input = &args[0];
        // Limiting consumers of a stream become the scan's limit.
        if is_stream(input) {
            return match name {
                "take" => {
                    let limit = self.lower(&args[1]);
                    self.push_limit(input, limit)
                }
                "first" | "exists" => {
                    let one = node(Op::Const(Value::Int(1)));
                    let limited = self.push_limit(input, one);
                    let combinator = if name == "first" {
                        Combinator::First
                    } else {
                        Combinator::Exists
                    };
                    node(Op::Combinator(combinator, vec![limited]))
                }
                // `map` over a stream is lowered where a limit reaches it.
                _ => node(Op::Const(Value::Null)),
            };
        }
        // `sort_by(key, order) |> take(k)`: top-k in one pass.
        if name == "take" {
            if let TExpr::Costed(sorted, _) = input {
                if let TExpr::Builtin(inner, sort_args) = &**sorted {
                    if inner == "sort_by" {
                        let descending = matches!(sort_args.get(2), Some(TExpr::Order(true)));
                        return node(Op::TopK {
                            input: Box::new(self.lower(&sort_args[0])),
                            key: Box::new(self.lower(&sort_args[1])),
                            descending,
                            k: Box::new(self.lower(&args[1])),
                        });
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
            "min" => Combinator::Min,
            "max" => Combinator::Max,
            "any" => Combinator::Any,
            "all" => Combinator::All,
            "take" => Combinator::Take,
            "first" => Combinator::First,
            "exists" => Combinator::Exists,
            _ => Combinator::UnwrapOr,
        };
        let operands: Vec<&TExpr> = match combinator {
            Combinator::SortBy { .. } => args.iter().take(2).collect(),
            _ => args.iter().collect(),
        };
        node(Op::Combinator(
            combinator,
            operands.into_iter().map(|a| self.lower(a)).collect(),
        ))
    }

    /// The stream `t` read at most `limit` times: the limit goes into the
    /// scan under any `map`s, `let`s and branches.
    fn push_limit(&mut self, t: &TExpr, limit: Node) -> Node {
        match t {
            TExpr::Costed(inner, _) => self.push_limit(inner, limit),
            TExpr::Scan { .. } => self.scan(t, Some(limit)),
            TExpr::Builtin(name, args) if name == "map" => {
                let input = self.push_limit(&args[0], limit);
                node(Op::Combinator(
                    Combinator::Map,
                    vec![input, self.lower(&args[1])],
                ))
            }
            TExpr::If(c, a, b) => {
                let cond = self.lower(c);
                let then = self.push_limit(a, limit.clone());
                let otherwise = self.push_limit(b, limit);
                node(Op::If(Box::new(cond), Box::new(then), Box::new(otherwise)))
            }
            TExpr::Let(name, value, body) => node(Op::Let(
                name.clone(),
                Box::new(self.lower(value)),
                Box::new(self.push_limit(body, limit)),
            )),
            TExpr::Seq(items) => {
                let (last, rest) = items.split_last().expect("a sequence has a value");
                let mut lowered: Vec<Node> = rest.iter().map(|i| self.lower(i)).collect();
                lowered.push(self.push_limit(last, limit));
                node(Op::Seq(lowered))
            }
            other => self.lower(other),
        }
    }

    fn scan(&mut self, t: &TExpr, limit: Option<Node>) -> Node {
        let TExpr::Scan {
            table,
            index,
            prefix,
            range,
            ..
        } = t
        else {
            unreachable!("scan() is called on scans")
        };
        let end = |this: &mut Self, e: &Option<(TExpr, bool)>| {
            e.as_ref().map(|(value, inclusive)| RangeEnd {
                value: Box::new(this.lower(value)),
                inclusive: *inclusive,
            })
        };
        let (lower, upper) = match range.as_deref() {
            Some(RangeT { lower, upper }) => (end(self, lower), end(self, upper)),
            None => (None, None),
        };
        node(Op::Scan {
            table: table.clone(),
            index: index.clone(),
            prefix: prefix.iter().map(|p| self.lower(p)).collect(),
            lower,
            upper,
            limit: limit.map(Box::new),
        })
    }
}

fn args_vec(args: Vec<TExpr>) -> Vec<TExpr> {
    args
}

/// A value that can be substituted for a parameter without changing what
/// is evaluated or how often: constants, names, lambdas.
fn is_simple(t: &TExpr) -> bool {
    matches!(
        t,
        TExpr::Const(_) | TExpr::Param(_) | TExpr::Local(_) | TExpr::Lambda(..) | TExpr::Order(_)
    )
}

/// A stream: an unbounded scan, possibly mapped, let-bound or branched.
fn is_stream(t: &TExpr) -> bool {
    match t {
        TExpr::Costed(inner, _) => is_stream(inner),
        TExpr::Scan { bounded, .. } => !bounded,
        TExpr::Builtin(name, args) => name == "map" && args.first().is_some_and(is_stream),
        TExpr::If(_, a, b) => is_stream(a) || is_stream(b),
        TExpr::Let(_, _, body) => is_stream(body),
        TExpr::Seq(items) => items.last().is_some_and(is_stream),
        _ => false,
    }
}

/// Rebuilds `t` with `f` applied to each direct child.
fn map_children(t: &TExpr, f: &mut dyn FnMut(&TExpr) -> TExpr) -> TExpr {
    let mut all = |items: &[TExpr]| items.iter().map(&mut *f).collect::<Vec<_>>();
    match t {
        TExpr::Const(_) | TExpr::Param(_) | TExpr::Local(_) | TExpr::Order(_) | TExpr::Error => {
            t.clone()
        }
        TExpr::Lookup { table, key } => TExpr::Lookup {
            table: table.clone(),
            key: all(key),
        },
        TExpr::UniqueLookup {
            table,
            index,
            values,
        } => TExpr::UniqueLookup {
            table: table.clone(),
            index: index.clone(),
            values: all(values),
        },
        TExpr::Scan {
            table,
            index,
            prefix,
            range,
            bounded,
        } => TExpr::Scan {
            table: table.clone(),
            index: index.clone(),
            prefix: all(prefix),
            range: range.as_ref().map(|r| {
                Box::new(RangeT {
                    lower: r.lower.as_ref().map(|(v, i)| (f(v), *i)),
                    upper: r.upper.as_ref().map(|(v, i)| (f(v), *i)),
                })
            }),
            bounded: *bounded,
        },
        TExpr::Field(base, name) => TExpr::Field(Box::new(f(base)), name.clone()),
        TExpr::Record(fields) => {
            TExpr::Record(fields.iter().map(|(n, v)| (n.clone(), f(v))).collect())
        }
        TExpr::List(items) => TExpr::List(all(items)),
        TExpr::Unary(op, a) => TExpr::Unary(*op, Box::new(f(a))),
        TExpr::Binary(op, a, b) => TExpr::Binary(*op, Box::new(f(a)), Box::new(f(b))),
        TExpr::If(c, a, b) => TExpr::If(Box::new(f(c)), Box::new(f(a)), Box::new(f(b))),
        TExpr::Let(name, value, body) => {
            TExpr::Let(name.clone(), Box::new(f(value)), Box::new(f(body)))
        }
        TExpr::Seq(items) => TExpr::Seq(all(items)),
        TExpr::Builtin(name, args) => TExpr::Builtin(name.clone(), all(args)),
        TExpr::Lambda(params, body) => TExpr::Lambda(params.clone(), Box::new(f(body))),
        TExpr::Call(name, args) => TExpr::Call(name.clone(), all(args)),
        TExpr::CallLocal(name, args) => TExpr::CallLocal(name.clone(), all(args)),
        TExpr::Insert { table, row } => TExpr::Insert {
            table: table.clone(),
            row: all(row),
        },
        TExpr::Update {
            table,
            target,
            changes,
        } => TExpr::Update {
            table: table.clone(),
            target: Box::new(f(target)),
            changes: changes.iter().map(|(n, v)| (n.clone(), f(v))).collect(),
        },
        TExpr::Delete { table, target } => TExpr::Delete {
            table: table.clone(),
            target: Box::new(f(target)),
        },
        TExpr::Costed(inner, cost) => TExpr::Costed(Box::new(f(inner)), cost.clone()),
    }
}

fn binop(op: BinaryOp) -> BinOp {
    match op {
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
    }
}
