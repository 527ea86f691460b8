//! The plan executor: evaluates a plan's operator tree against a session,
//! counting the seeks and rows of every operator and holding each to its
//! static bound.

use crate::combinators::{combinator, sort_by_key};
use crate::constraints::{delete_row, insert_row, update_row};
use crate::encoding::key::encode_key;
use crate::error::{Result, RuntimeError};
use crate::rows::*;
use crate::session::Session;
use crate::store::prefix_end;
use rqc_plan::{compare, BinOp, Node, NodeStats, Op, RangeEnd, Schema, TableSchema, UnOp, Value};
use std::cmp::Ordering;
use std::rc::Rc;

/// A value during evaluation: data, or a function value.
#[derive(Clone)]
pub enum Val<'p> {
    Data(Value),
    Closure(Rc<Closure<'p>>),
}

pub struct Closure<'p> {
    params: &'p [String],
    body: &'p Node,
    env: Env<'p>,
}

/// The names in scope: a persistent list, newest binding first. Scopes are a
/// handful of names (parameters of the lambdas around, `let`s), so a scan
/// beats hashing, and binding costs one small allocation with no copy of the
/// name (profiled on the TPC-C mix: the hash map's inserts were 6% of time).
#[derive(Clone, Default)]
pub struct Env<'p>(Option<Rc<Binding<'p>>>);

struct Binding<'p> {
    name: &'p str,
    value: Val<'p>,
    outer: Env<'p>,
}

impl<'p> Env<'p> {
    pub fn new() -> Env<'p> {
        Env(None)
    }

    /// This scope with `name` bound to `value` (shadowing an outer `name`).
    pub fn bind(&self, name: &'p str, value: Val<'p>) -> Env<'p> {
        Env(Some(Rc::new(Binding {
            name,
            value,
            outer: self.clone(),
        })))
    }

    pub fn get(&self, name: &str) -> Option<&Val<'p>> {
        let mut scope = self.0.as_deref();
        while let Some(binding) = scope {
            if binding.name == name {
                return Some(&binding.value);
            }
            scope = binding.outer.0.as_deref();
        }
        None
    }
}

impl<'p> Val<'p> {
    pub fn data(self) -> Result<Value> {
        match self {
            Val::Data(v) => Ok(v),
            Val::Closure(_) => Err(internal("a function where a value was expected")),
        }
    }
}

pub struct Interp<'p, 's> {
    pub schema: &'p Schema,
    pub params: &'p [Value],
    pub session: Session<'s>,
    /// Per operator, by node id (nodes never evaluated may be missing).
    pub stats: Vec<NodeStats>,
}

impl<'p, 's> Interp<'p, 's> {
    pub fn eval(&mut self, node: &'p Node, env: &Env<'p>) -> Result<Val<'p>> {
        let (seeks, rows) = (self.session.seeks, self.session.rows);
        let value = self.eval_op(node, env)?;
        let (ds, dr) = (self.session.seeks - seeks, self.session.rows - rows);
        // Grown on demand: counting a plan's nodes on every run cost more.
        let id = node.id as usize;
        if id >= self.stats.len() {
            self.stats.resize(id + 1, NodeStats::default());
        }
        let stats = &mut self.stats[id];
        stats.evaluations += 1;
        stats.seeks += ds;
        stats.rows += dr;
        if let Some(bound) = node.bound {
            if ds > bound.seeks || dr > bound.rows {
                let message = format!(
                    "operator {} read {ds} seeks and {dr} rows, beyond its proved bound of {} and {}",
                    node.id, bound.seeks, bound.rows
                );
                // Data cannot cause this: every bound it relies on is
                // enforced on write. It is a bug in rqc.
                debug_assert!(false, "{message}");
                return Err(RuntimeError::new(
                    "E0599",
                    message,
                    "this is a bug in rqc; please report it with the program",
                ));
            }
        }
        Ok(value)
    }

    pub fn value(&mut self, node: &'p Node, env: &Env<'p>) -> Result<Value> {
        self.eval(node, env)?.data()
    }

    fn values(&mut self, nodes: &'p [Node], env: &Env<'p>) -> Result<Vec<Value>> {
        nodes.iter().map(|n| self.value(n, env)).collect()
    }

    fn table(&self, name: &str) -> Result<&'p TableSchema> {
        self.schema.table(name).ok_or_else(|| {
            RuntimeError::new(
                "E0593",
                format!("the plan reads table `{name}`, which the schema lacks"),
                "recompile the program; the plan and the schema come from different versions",
            )
        })
    }

    fn eval_op(&mut self, node: &'p Node, env: &Env<'p>) -> Result<Val<'p>> {
        let data = |v: Value| Ok(Val::Data(v));
        match &node.op {
            Op::Const(v) => data(v.clone()),
            Op::Param(i) => data(
                self.params
                    .get(*i)
                    .cloned()
                    .ok_or_else(|| internal("missing parameter"))?,
            ),
            Op::Var(name) => env
                .get(name)
                .cloned()
                .ok_or_else(|| internal(&format!("unbound name {name}"))),
            Op::Get { table, key } => {
                let schema = self.table(table)?;
                let key = encode_key(&self.values(key, env)?, &[])?;
                match self.session.get(&table_tree(table), &key)? {
                    Some(bytes) => data(decode_record(schema, &bytes)?),
                    None => data(Value::Null),
                }
            }
            Op::GetUnique {
                table,
                index,
                values,
            } => {
                let schema = self.table(table)?;
                let index_schema = schema
                    .index(index)
                    .ok_or_else(|| internal("unknown index"))?;
                let entry = encode_key(&self.values(values, env)?, &index_schema.descending)?;
                match self.session.get(&index_tree(table, index), &entry)? {
                    Some(bytes) => data(decode_record(schema, &bytes)?),
                    None => data(Value::Null),
                }
            }
            Op::Scan {
                table,
                index,
                prefix,
                lower,
                upper,
                limit,
            } => {
                let schema = self.table(table)?;
                // Key columns are all ascending (an empty list says so).
                let (tree, descending): (String, &[bool]) = match index {
                    None => (table_tree(table), &[]),
                    Some(name) => {
                        let index = schema
                            .index(name)
                            .ok_or_else(|| internal("unknown index"))?;
                        (index_tree(table, name), &index.descending)
                    }
                };
                let prefix_values = self.values(prefix, env)?;
                let prefix_bytes = encode_key(&prefix_values, descending)?;
                let next_desc = descending
                    .get(prefix_values.len())
                    .copied()
                    .unwrap_or(false);
                let end_of = |this: &mut Self,
                              e: &'p Option<RangeEnd>|
                 -> Result<Option<(Vec<u8>, bool)>> {
                    match e {
                        None => Ok(None),
                        Some(end) => {
                            let value = this.value(&end.value, env)?;
                            let mut bytes = prefix_bytes.clone();
                            crate::encoding::key::encode_component(&mut bytes, &value, next_desc)?;
                            Ok(Some((bytes, end.inclusive)))
                        }
                    }
                };
                let (mut low, mut high) = (end_of(self, lower)?, end_of(self, upper)?);
                // A descending column's values run backwards in byte order.
                if next_desc {
                    std::mem::swap(&mut low, &mut high);
                }
                let start = match low {
                    None => prefix_bytes.clone(),
                    Some((bytes, true)) => bytes,
                    Some((bytes, false)) => prefix_end(&bytes).unwrap_or(bytes),
                };
                let end = match high {
                    None => prefix_end(&prefix_bytes),
                    Some((bytes, true)) => prefix_end(&bytes),
                    Some((bytes, false)) => Some(bytes),
                };
                let limit = match limit {
                    Some(limit) => match self.value(limit, env)? {
                        Value::Int(n) => n.max(0) as usize,
                        _ => return Err(internal("a limit that is not an Int")),
                    },
                    // The planner emits no limit only where a declared bound limits the range.
                    None => usize::MAX,
                };
                if limit == 0 {
                    return data(Value::List(Vec::new()));
                }
                let entries = self.session.range(&tree, &start, end.as_deref(), limit)?;
                let rows = entries
                    .iter()
                    .map(|(_, bytes)| decode_record(schema, bytes))
                    .collect::<Result<Vec<_>>>()?;
                data(Value::List(rows))
            }
            Op::Field(base, name) => match self.value(base, env)? {
                Value::Null => data(Value::Null),
                record => data(
                    record
                        .field(name)
                        .cloned()
                        .ok_or_else(|| internal(&format!("no field {name}")))?,
                ),
            },
            Op::Record(fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for (name, value) in fields {
                    out.push((name.clone(), self.value(value, env)?));
                }
                data(Value::Record(out))
            }
            Op::List(items) => data(Value::List(self.values(items, env)?)),
            Op::Unary(op, operand) => {
                let v = self.value(operand, env)?;
                data(match (op, v) {
                    (UnOp::Neg, Value::Int(n)) => Value::Int(n.checked_neg().ok_or_else(overflow)?),
                    (UnOp::Neg, Value::Float(x)) => Value::Float(-x),
                    (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
                    (_, Value::Null) => Value::Null,
                    _ => return Err(internal("a unary operator on the wrong type")),
                })
            }
            Op::Binary(op, a, b) => {
                // `&&` and `||` do not evaluate their right side needlessly.
                if matches!(op, BinOp::And | BinOp::Or) {
                    let left = matches!(self.value(a, env)?, Value::Bool(true));
                    if left == (*op == BinOp::Or) {
                        return data(Value::Bool(left));
                    }
                    return data(Value::Bool(matches!(
                        self.value(b, env)?,
                        Value::Bool(true)
                    )));
                }
                let left = self.value(a, env)?;
                let right = self.value(b, env)?;
                data(binary(*op, left, right)?)
            }
            Op::If(c, t, e) => match self.value(c, env)? {
                Value::Bool(true) => self.eval(t, env),
                _ => self.eval(e, env),
            },
            Op::Let(name, value, body) => {
                let value = self.eval(value, env)?;
                let inner = env.bind(name, value);
                self.eval(body, &inner)
            }
            Op::Seq(items) => {
                let mut last = Val::Data(Value::Null);
                for item in items {
                    last = self.eval(item, env)?;
                }
                Ok(last)
            }
            Op::Lambda(params, body) => Ok(Val::Closure(Rc::new(Closure {
                params,
                body,
                env: env.clone(),
            }))),
            Op::Apply(f, args) => {
                let f = self.eval(f, env)?;
                let mut values = Vec::new();
                for arg in args {
                    values.push(self.eval(arg, env)?);
                }
                self.call(&f, values)
            }
            Op::Combinator(c, args) => combinator(self, *c, args, env),
            Op::TopK {
                input,
                key,
                descending,
                k,
            } => {
                let items = self.value(input, env)?.into_items();
                let key = self.eval(key, env)?;
                let k = match self.value(k, env)? {
                    Value::Int(n) => n.max(0) as usize,
                    _ => 0,
                };
                let sorted = sort_by_key(items, *descending, |item| {
                    self.call(&key, vec![Val::Data(item.clone())])?.data()
                })?;
                data(Value::List(sorted.into_iter().take(k).collect()))
            }
            Op::Insert { table, row } => {
                let schema = self.table(table)?;
                let row = self.values(row, env)?;
                insert_row(&mut self.session, schema, row)?;
                data(Value::Int(1))
            }
            Op::Update {
                table,
                target,
                changes,
            } => {
                let schema = self.table(table)?;
                let rows = self.value(target, env)?.into_items();
                let mut resolved = Vec::new();
                for (column, value) in changes {
                    let position = schema
                        .column(column)
                        .ok_or_else(|| internal("unknown column"))?;
                    resolved.push((position, self.value(value, env)?));
                }
                // Each row by its key, as it is now: one listed twice, or
                // gone, is changed once, or not at all. The value counts
                // the rows changed.
                let mut updated = 0;
                for row in &rows {
                    let key = record_key(schema, row)?;
                    updated += i64::from(update_row(&mut self.session, schema, &key, &resolved)?);
                }
                data(Value::Int(updated))
            }
            Op::Delete { table, target } => {
                let schema = self.table(table)?;
                let rows = self.value(target, env)?.into_items();
                let mut deleted = 0;
                for row in &rows {
                    let key = record_key(schema, row)?;
                    deleted += i64::from(delete_row(&mut self.session, self.schema, schema, &key)?);
                }
                data(Value::Int(deleted))
            }
        }
    }

    /// Calls a function value.
    pub fn call(&mut self, f: &Val<'p>, args: Vec<Val<'p>>) -> Result<Val<'p>> {
        let Val::Closure(closure) = f else {
            return Err(internal("a call of something that is not a function"));
        };
        let mut env = closure.env.clone();
        for (param, arg) in closure.params.iter().zip(args) {
            env = env.bind(param, arg);
        }
        self.eval(closure.body, &env)
    }
}

fn binary(op: BinOp, left: Value, right: Value) -> Result<Value> {
    use Value::*;
    Ok(match op {
        BinOp::Eq => Bool(left == right),
        BinOp::NotEq => Bool(left != right),
        BinOp::Lt => Bool(compare(&left, &right) == Ordering::Less),
        BinOp::LtEq => Bool(compare(&left, &right) != Ordering::Greater),
        BinOp::Gt => Bool(compare(&left, &right) == Ordering::Greater),
        BinOp::GtEq => Bool(compare(&left, &right) != Ordering::Less),
        _ => match (left, right) {
            (Null, _) | (_, Null) => Null,
            (Int(a), Int(b)) => Int(match op {
                BinOp::Add => a.checked_add(b).ok_or_else(overflow)?,
                BinOp::Sub => a.checked_sub(b).ok_or_else(overflow)?,
                BinOp::Mul => a.checked_mul(b).ok_or_else(overflow)?,
                BinOp::Div => a.checked_div(b).ok_or_else(division)?,
                _ => a.checked_rem(b).ok_or_else(division)?,
            }),
            (Float(a), Float(b)) => Float(match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => a % b,
            }),
            (Str(a), Str(b)) if op == BinOp::Add => Str(a + &b),
            _ => return Err(internal("arithmetic on the wrong types")),
        },
    })
}

fn overflow() -> RuntimeError {
    RuntimeError::new(
        "E0530",
        "integer overflow",
        "the result does not fit in 64 bits; check the values involved",
    )
}

fn division() -> RuntimeError {
    RuntimeError::new(
        "E0531",
        "division by zero",
        "guard the division with an `if`",
    )
}

pub fn internal(what: &str) -> RuntimeError {
    RuntimeError::new(
        "E0594",
        format!("the plan could not be evaluated: {what}"),
        "this is a bug in rqc; please report it with the program",
    )
}
