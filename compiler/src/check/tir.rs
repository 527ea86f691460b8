//! The typed intermediate representation: a checked body with names resolved and access paths chosen.

use crate::cost::Cost;
use crate::syntax::ast::{BinaryOp, UnaryOp};
use rqc_plan::{Builtin, ColumnAt, Shape, Value};
use std::sync::Arc;

/// A checked definition's parameter names and typed body, shared (never
/// copied) between the check, the program and the planner's inlining.
pub type FnBody = (Vec<String>, Arc<TExpr>);

/// A range condition on the column after an access path's prefix.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeT {
    pub lower: Option<(TExpr, bool)>,
    pub upper: Option<(TExpr, bool)>,
    /// `starts_with(col, p)`: `lower` holds the prefix `p`, and the range
    /// is exactly the entries whose column begins with it.
    pub starts_with: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TExpr {
    Const(Value),
    /// `now()` in a mutation: the transaction's time.
    Now,
    /// An entry point's parameter, by position.
    Param(usize),
    /// A `let`, lambda or function parameter in scope.
    Local(String),
    /// Whole primary key: at most one row.
    Lookup {
        table: String,
        key: Vec<TExpr>,
    },
    /// A maintained aggregate's value for one group: one point read.
    AggregateRead {
        aggregate: String,
        key: Vec<TExpr>,
    },
    /// All columns of a unique index: at most one row.
    UniqueLookup {
        table: String,
        index: String,
        values: Vec<TExpr>,
    },
    /// A prefix (and optional range on the next column) of the key
    /// (`index: None`) or of an index; `bounded` when a declared bound or a
    /// small table limits it, else a stream.
    Scan {
        table: String,
        index: Option<String>,
        prefix: Vec<TExpr>,
        range: Option<Box<RangeT>>,
        bounded: bool,
    },
    /// A field of a structural record, by name (its order may differ
    /// between two values of one type).
    Field(Box<TExpr>, String),
    /// A column of a row (the base typed `Ty::Row`), by its position in
    /// the table (lowered to `Op::Column`).
    Column(Box<TExpr>, ColumnAt),
    Record(Vec<(String, TExpr)>),
    List(Vec<TExpr>),
    /// The values of a tuple range's end (`(t, i)` in `(at, id) < (t, i)`),
    /// one per index column; nowhere else.
    Tuple(Vec<TExpr>),
    Unary(UnaryOp, Box<TExpr>),
    Binary(BinaryOp, Box<TExpr>, Box<TExpr>),
    If(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    Let(String, Box<TExpr>, Box<TExpr>),
    /// Statements evaluated in order; the last gives the value.
    Seq(Vec<TExpr>),
    /// A built-in combinator (`take`, `map`, `count`, …) over an input of
    /// the given shape.
    Builtin(Builtin, Shape, Vec<TExpr>),
    Lambda(Vec<String>, Box<TExpr>),
    /// A lambda whose body is checked where it is applied (see
    /// `functions`); replaced by a `Lambda` once the definition is checked.
    DelayedLambda(usize),
    /// A count computed at run time, checked against its proved maximum
    /// (`None` in generic code, where a caller's bound covers it) before
    /// the read it limits.
    Limit(Box<TExpr>, Option<u64>),
    /// The body of a lambda that nothing applies: never evaluated.
    Unreachable,
    /// A call of a function defined in RQL, by its interned `module.name`.
    Call(super::fn_id::FnId, Vec<TExpr>),
    /// A call of a function value in scope (a function-typed parameter).
    CallLocal(String, Vec<TExpr>),
    /// With `generated`, the key (a `key auto` column) is left out: its
    /// place in `row` holds `none`, which the store replaces by the next key.
    Insert {
        table: String,
        row: Vec<TExpr>,
        generated: bool,
    },
    /// Each row of `target` changed by `changes`; with `row`, the changes
    /// are computed for each row with that name bound to the row as it is
    /// before the change (`update T[k] as r { … }`, `c += e`).
    Update {
        table: String,
        target: Box<TExpr>,
        row: Option<String>,
        changes: Vec<(ColumnAt, TExpr)>,
    },
    /// The columns named (by position, with their names): the row with
    /// their key changed to them, or (none has it) inserted with the other
    /// columns' defaults.
    Upsert {
        table: String,
        columns: Vec<(ColumnAt, TExpr)>,
    },
    Delete {
        table: String,
        target: Box<TExpr>,
    },
    /// `desc` (true) or `asc`.
    Order(bool),
    /// An operator with the static cost of one evaluation (behind a
    /// pointer: a cost keeps its formulas' first terms inline, and every
    /// node is as large as the largest kind; shared with the expression's
    /// [`Fact`](super::Fact)).
    Costed(Box<TExpr>, Arc<Cost>),
    Error,
}

/// How to rebuild a node from new children, in the order they were taken.
pub type Rebuild = Box<dyn FnOnce(Vec<TExpr>) -> TExpr>;

impl TExpr {
    /// The direct children, and how to rebuild the node from new ones (in
    /// the same order).
    pub fn into_parts(self) -> (Vec<TExpr>, Rebuild) {
        fn leaf(t: TExpr) -> (Vec<TExpr>, Rebuild) {
            (Vec::new(), Box::new(move |_| t))
        }
        match self {
            TExpr::Const(_)
            | TExpr::Now
            | TExpr::Param(_)
            | TExpr::Local(_)
            | TExpr::Order(_)
            | TExpr::Error
            | TExpr::DelayedLambda(_)
            | TExpr::Unreachable => leaf(self),
            TExpr::Lookup { table, key } => {
                (key, Box::new(move |key| TExpr::Lookup { table, key }))
            }
            TExpr::AggregateRead { aggregate, key } => (
                key,
                Box::new(move |key| TExpr::AggregateRead { aggregate, key }),
            ),
            TExpr::UniqueLookup {
                table,
                index,
                values,
            } => (
                values,
                Box::new(move |values| TExpr::UniqueLookup {
                    table,
                    index,
                    values,
                }),
            ),
            TExpr::Scan {
                table,
                index,
                prefix,
                range,
                bounded,
            } => {
                let n = prefix.len();
                let mut children = prefix;
                let (has_lower, has_upper, lower_inc, upper_inc) = match &range {
                    Some(r) => (
                        r.lower.is_some(),
                        r.upper.is_some(),
                        r.lower.as_ref().is_some_and(|l| l.1),
                        r.upper.as_ref().is_some_and(|u| u.1),
                    ),
                    None => (false, false, false, false),
                };
                let has_range = range.is_some();
                let starts_with = range.as_ref().is_some_and(|r| r.starts_with);
                if let Some(r) = range {
                    let r = *r;
                    children.extend(r.lower.map(|l| l.0));
                    children.extend(r.upper.map(|u| u.0));
                }
                (
                    children,
                    Box::new(move |mut children| {
                        let mut rest = children.split_off(n).into_iter();
                        let range = has_range.then(|| {
                            Box::new(RangeT {
                                lower: if has_lower {
                                    rest.next().map(|v| (v, lower_inc))
                                } else {
                                    None
                                },
                                upper: if has_upper {
                                    rest.next().map(|v| (v, upper_inc))
                                } else {
                                    None
                                },
                                starts_with,
                            })
                        });
                        TExpr::Scan {
                            table,
                            index,
                            prefix: children,
                            range,
                            bounded,
                        }
                    }),
                )
            }
            TExpr::Field(base, name) => (
                vec![*base],
                Box::new(move |mut c| TExpr::Field(Box::new(c.remove(0)), name)),
            ),
            TExpr::Column(base, column) => (
                vec![*base],
                Box::new(move |mut c| TExpr::Column(Box::new(c.remove(0)), column)),
            ),
            TExpr::Record(fields) => {
                let (names, values): (Vec<String>, Vec<TExpr>) = fields.into_iter().unzip();
                (
                    values,
                    Box::new(move |values| TExpr::Record(names.into_iter().zip(values).collect())),
                )
            }
            TExpr::List(items) => (items, Box::new(TExpr::List)),
            TExpr::Tuple(items) => (items, Box::new(TExpr::Tuple)),
            TExpr::Seq(items) => (items, Box::new(TExpr::Seq)),
            TExpr::Unary(op, a) => (
                vec![*a],
                Box::new(move |mut c| TExpr::Unary(op, Box::new(c.remove(0)))),
            ),
            TExpr::Binary(op, a, b) => (
                vec![*a, *b],
                Box::new(move |mut c| {
                    let b = c.pop().expect("two children");
                    TExpr::Binary(op, Box::new(c.remove(0)), Box::new(b))
                }),
            ),
            TExpr::If(c, a, b) => (
                vec![*c, *a, *b],
                Box::new(|mut c| {
                    let b = c.pop().expect("three children");
                    let a = c.pop().expect("three children");
                    TExpr::If(Box::new(c.remove(0)), Box::new(a), Box::new(b))
                }),
            ),
            TExpr::Let(name, value, body) => (
                vec![*value, *body],
                Box::new(move |mut c| {
                    let body = c.pop().expect("two children");
                    TExpr::Let(name, Box::new(c.remove(0)), Box::new(body))
                }),
            ),
            TExpr::Builtin(name, shape, args) => (
                args,
                Box::new(move |args| TExpr::Builtin(name, shape, args)),
            ),
            TExpr::Lambda(params, body) => (
                vec![*body],
                Box::new(move |mut c| TExpr::Lambda(params, Box::new(c.remove(0)))),
            ),
            TExpr::Call(name, args) => (args, Box::new(move |args| TExpr::Call(name, args))),
            TExpr::CallLocal(name, args) => {
                (args, Box::new(move |args| TExpr::CallLocal(name, args)))
            }
            TExpr::Insert {
                table,
                row,
                generated,
            } => (
                row,
                Box::new(move |row| TExpr::Insert {
                    table,
                    row,
                    generated,
                }),
            ),
            TExpr::Update {
                table,
                target,
                row,
                changes,
            } => {
                let (names, values): (Vec<ColumnAt>, Vec<TExpr>) = changes.into_iter().unzip();
                let mut children = vec![*target];
                children.extend(values);
                (
                    children,
                    Box::new(move |mut c| {
                        let values = c.split_off(1);
                        TExpr::Update {
                            table,
                            target: Box::new(c.remove(0)),
                            row,
                            changes: names.into_iter().zip(values).collect(),
                        }
                    }),
                )
            }
            TExpr::Upsert { table, columns } => {
                let (names, values): (Vec<ColumnAt>, Vec<TExpr>) = columns.into_iter().unzip();
                (
                    values,
                    Box::new(move |values| TExpr::Upsert {
                        table,
                        columns: names.into_iter().zip(values).collect(),
                    }),
                )
            }
            TExpr::Delete { table, target } => (
                vec![*target],
                Box::new(move |mut c| TExpr::Delete {
                    table,
                    target: Box::new(c.remove(0)),
                }),
            ),
            TExpr::Costed(inner, cost) => (
                vec![*inner],
                Box::new(move |mut c| TExpr::Costed(Box::new(c.remove(0)), cost)),
            ),
            TExpr::Limit(count, max) => (
                vec![*count],
                Box::new(move |mut c| TExpr::Limit(Box::new(c.remove(0)), max)),
            ),
        }
    }

    /// Calls `f` on each direct child, in [`TExpr::into_parts`]' order,
    /// without taking the tree apart.
    pub fn each_child<'a>(&'a self, f: &mut dyn FnMut(&'a TExpr)) {
        match self {
            TExpr::Const(_)
            | TExpr::Now
            | TExpr::Param(_)
            | TExpr::Local(_)
            | TExpr::Order(_)
            | TExpr::Error
            | TExpr::DelayedLambda(_)
            | TExpr::Unreachable => {}
            TExpr::Lookup { key: items, .. }
            | TExpr::AggregateRead { key: items, .. }
            | TExpr::UniqueLookup { values: items, .. }
            | TExpr::List(items)
            | TExpr::Tuple(items)
            | TExpr::Seq(items)
            | TExpr::Builtin(_, _, items)
            | TExpr::Call(_, items)
            | TExpr::CallLocal(_, items)
            | TExpr::Insert { row: items, .. } => items.iter().for_each(f),
            TExpr::Scan { prefix, range, .. } => {
                prefix.iter().for_each(&mut *f);
                if let Some(range) = range {
                    if let Some((lower, _)) = &range.lower {
                        f(lower);
                    }
                    if let Some((upper, _)) = &range.upper {
                        f(upper);
                    }
                }
            }
            TExpr::Record(fields) => fields.iter().for_each(|(_, value)| f(value)),
            TExpr::Upsert { columns, .. } => columns.iter().for_each(|(_, value)| f(value)),
            TExpr::Field(a, _)
            | TExpr::Column(a, _)
            | TExpr::Unary(_, a)
            | TExpr::Lambda(_, a)
            | TExpr::Delete { target: a, .. }
            | TExpr::Costed(a, _)
            | TExpr::Limit(a, _) => f(a),
            TExpr::Binary(_, a, b) | TExpr::Let(_, a, b) => {
                f(a);
                f(b);
            }
            TExpr::If(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            TExpr::Update {
                target, changes, ..
            } => {
                f(target);
                changes.iter().for_each(|(_, value)| f(value));
            }
        }
    }

    /// The node with `f` applied to each direct child.
    pub fn map_children(self, f: &mut dyn FnMut(TExpr) -> TExpr) -> TExpr {
        let (children, rebuild) = self.into_parts();
        rebuild(children.into_iter().map(f).collect())
    }
}

/// Rewrites top-down: `f` replaces a node (`Ok`, not visited again) or
/// hands it back (`Err`) to have its children rewritten.
pub fn rewrite(t: TExpr, f: &mut dyn FnMut(TExpr) -> Result<TExpr, TExpr>) -> TExpr {
    match f(t) {
        Ok(replaced) => replaced,
        Err(t) => t.map_children(&mut |child| rewrite(child, f)),
    }
}

/// Walks two trees of the same shape together: `f` merges a pair (`Ok`) or
/// hands it back to be merged child by child. Where the shapes differ the
/// first tree is kept.
pub fn zip(
    a: TExpr,
    b: TExpr,
    f: &mut dyn FnMut(TExpr, TExpr) -> Result<TExpr, (TExpr, TExpr)>,
) -> TExpr {
    match f(a, b) {
        Ok(merged) => merged,
        Err((a, b)) => {
            if std::mem::discriminant(&a) != std::mem::discriminant(&b) {
                return a;
            }
            let (children_a, rebuild) = a.into_parts();
            let (children_b, _) = b.into_parts();
            if children_a.len() != children_b.len() {
                return rebuild(children_a);
            }
            rebuild(
                children_a
                    .into_iter()
                    .zip(children_b)
                    .map(|(x, y)| zip(x, y, f))
                    .collect(),
            )
        }
    }
}

/// How many nodes `t` has, counted up to one past `limit` (read in place,
/// without recursion).
pub fn size_up_to(t: &TExpr, limit: usize) -> usize {
    let (mut count, mut work) = (0, vec![t]);
    while let Some(node) = work.pop() {
        count += 1;
        if count > limit {
            break;
        }
        node.each_child(&mut |child| work.push(child));
    }
    count
}

/// Whether an `Error` node (left where an error was reported) is inside.
pub fn contains_error(t: &TExpr) -> bool {
    any_node(t, &mut |node| matches!(node, TExpr::Error))
}

/// Whether `f` holds for `t` or a node inside it (read in place, nothing
/// copied; stops at the first).
pub fn any_node(t: &TExpr, f: &mut dyn FnMut(&TExpr) -> bool) -> bool {
    if f(t) {
        return true;
    }
    let mut found = false;
    t.each_child(&mut |child| found = found || any_node(child, f));
    found
}
