//! A reference evaluator: runs a checked program by brute force over rows
//! kept in memory, with none of the runtime's storage, indexes or plans.
//! The end-to-end suites compare the runtime's answers with its answers.

use rqc_compiler::check::tir::TExpr;
use rqc_compiler::check::CheckedProgram;
use rqc_compiler::syntax::ast::{BinaryOp, UnaryOp};
use rqc_plan::{compare, Schema, TableSchema, Value};
use std::cmp::Ordering;
use std::collections::HashMap;

#[derive(Clone)]
enum Val {
    Data(Value),
    Closure(Vec<String>, TExpr, Vec<(String, Val)>),
}

impl Val {
    fn data(self) -> Value {
        match self {
            Val::Data(v) => v,
            Val::Closure(..) => panic!("a function where a value was expected"),
        }
    }
}

/// Tables as plain lists of row records.
pub struct Reference<'c> {
    pub checked: &'c CheckedProgram,
    pub tables: HashMap<String, Vec<Value>>,
}

impl<'c> Reference<'c> {
    pub fn new(checked: &'c CheckedProgram) -> Reference<'c> {
        Reference {
            checked,
            tables: HashMap::new(),
        }
    }

    fn schema(&self) -> &Schema {
        &self.checked.schema
    }

    /// Runs entry `name` with `args`, applying its writes to the tables.
    pub fn run(&mut self, name: &str, args: &[Value]) -> Value {
        let entry = self
            .checked
            .entries
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no entry {name}"));
        let body = entry.body.clone();
        self.eval(&body, args, &[]).data()
    }

    fn eval(&mut self, t: &TExpr, args: &[Value], env: &[(String, Val)]) -> Val {
        let v = |this: &mut Self, e: &TExpr| this.eval(e, args, env).data();
        Val::Data(match t {
            TExpr::Const(c) => c.clone(),
            TExpr::Param(i) => args[*i].clone(),
            TExpr::Local(name) => {
                return env
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| panic!("unbound {name}"))
            }
            TExpr::Costed(inner, _) => return self.eval(inner, args, env),
            TExpr::Lookup { table, key } => {
                let key: Vec<Value> = key.iter().map(|k| v(self, k)).collect();
                let schema = self.table_schema(table);
                let columns = schema.key.clone();
                self.rows(table)
                    .iter()
                    .find(|r| matches(&schema, r, &columns, &key))
                    .cloned()
                    .unwrap_or(Value::Null)
            }
            TExpr::UniqueLookup {
                table,
                index,
                values,
            } => {
                let values: Vec<Value> = values.iter().map(|k| v(self, k)).collect();
                let schema = self.table_schema(table);
                let columns = schema.index(index).unwrap().columns.clone();
                self.rows(table)
                    .iter()
                    .find(|r| matches(&schema, r, &columns, &values))
                    .cloned()
                    .unwrap_or(Value::Null)
            }
            TExpr::Scan {
                table,
                index,
                prefix,
                range,
                ..
            } => {
                let prefix: Vec<Value> = prefix.iter().map(|k| v(self, k)).collect();
                let lower = range
                    .as_ref()
                    .and_then(|r| r.lower.as_ref())
                    .map(|(e, incl)| (v(self, e), *incl));
                let upper = range
                    .as_ref()
                    .and_then(|r| r.upper.as_ref())
                    .map(|(e, incl)| (v(self, e), *incl));
                let schema = self.table_schema(table);
                let (columns, descending) = match index {
                    None => (schema.key.clone(), vec![false; schema.key.len()]),
                    Some(i) => {
                        let index = schema.index(i).unwrap();
                        (index.columns.clone(), index.descending.clone())
                    }
                };
                let next = columns.get(prefix.len()).copied();
                let mut rows: Vec<Value> = self
                    .rows(table)
                    .iter()
                    .filter(|r| matches(&schema, r, &columns[..prefix.len()], &prefix))
                    .filter(|r| {
                        let Some(next) = next else { return true };
                        let value = column(&schema, r, next);
                        let above = lower.as_ref().is_none_or(|(l, incl)| {
                            let o = compare(&value, l);
                            o == Ordering::Greater || (*incl && o == Ordering::Equal)
                        });
                        let below = upper.as_ref().is_none_or(|(u, incl)| {
                            let o = compare(&value, u);
                            o == Ordering::Less || (*incl && o == Ordering::Equal)
                        });
                        above && below
                    })
                    .cloned()
                    .collect();
                // Index order: each column ascending or descending, then the key.
                rows.sort_by(|a, b| {
                    for (i, &c) in columns.iter().enumerate() {
                        let o = compare(&column(&schema, a, c), &column(&schema, b, c));
                        let o = if descending[i] { o.reverse() } else { o };
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    for &c in &schema.key {
                        let o = compare(&column(&schema, a, c), &column(&schema, b, c));
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    Ordering::Equal
                });
                Value::List(rows)
            }
            TExpr::Field(base, name) => match v(self, base) {
                Value::Null => Value::Null,
                record => record.field(name).cloned().unwrap(),
            },
            TExpr::Record(fields) => Value::Record(
                fields
                    .iter()
                    .map(|(n, e)| (n.clone(), v(self, e)))
                    .collect(),
            ),
            TExpr::List(items) => Value::List(items.iter().map(|e| v(self, e)).collect()),
            TExpr::Unary(op, a) => match (op, v(self, a)) {
                (UnaryOp::Neg, Value::Int(n)) => Value::Int(-n),
                (UnaryOp::Neg, Value::Float(x)) => Value::Float(-x),
                (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
                _ => Value::Null,
            },
            TExpr::Binary(op, a, b) => {
                let (x, y) = (v(self, a), v(self, b));
                binary(*op, x, y)
            }
            TExpr::If(c, a, b) => {
                return if v(self, c) == Value::Bool(true) {
                    self.eval(a, args, env)
                } else {
                    self.eval(b, args, env)
                };
            }
            TExpr::Let(name, value, body) => {
                let value = self.eval(value, args, env);
                let mut inner = env.to_vec();
                inner.push((name.clone(), value));
                return self.eval(body, args, &inner);
            }
            TExpr::Seq(items) => {
                let mut last = Val::Data(Value::Null);
                for item in items {
                    last = self.eval(item, args, env);
                }
                return last;
            }
            TExpr::Lambda(params, body) => {
                return Val::Closure(params.clone(), (**body).clone(), env.to_vec())
            }
            TExpr::Call(name, call_args) => {
                let values: Vec<Val> = call_args.iter().map(|a| self.eval(a, args, env)).collect();
                let (params, body) = self.checked.functions.get(name).cloned().unwrap();
                // A called query or mutation reads its own arguments by position.
                let positional: Vec<Value> = values
                    .iter()
                    .map(|v| match v {
                        Val::Data(d) => d.clone(),
                        Val::Closure(..) => Value::Null,
                    })
                    .collect();
                let inner: Vec<(String, Val)> = params.into_iter().zip(values).collect();
                return self.eval(&body, &positional, &inner);
            }
            TExpr::CallLocal(name, call_args) => {
                let f = env
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
                    .unwrap();
                let values: Vec<Val> = call_args.iter().map(|a| self.eval(a, args, env)).collect();
                return self.apply(&f, values, args);
            }
            TExpr::Builtin(name, call_args) => return self.builtin(name, call_args, args, env),
            TExpr::Insert { table, row } => {
                let values: Vec<Value> = row.iter().map(|e| v(self, e)).collect();
                let schema = self.table_schema(table);
                let record = record(&schema, values);
                self.tables.entry(table.clone()).or_default().push(record);
                Value::Int(1)
            }
            TExpr::Update {
                table,
                target,
                changes,
            } => {
                let targets = v(self, target).into_items();
                let changes: Vec<(String, Value)> = changes
                    .iter()
                    .map(|(c, e)| (c.clone(), v(self, e)))
                    .collect();
                let schema = self.table_schema(table);
                let rows = self.tables.entry(table.clone()).or_default();
                // Each target by its key, in order, on the row as it is by
                // then: one that is gone, or already so, is not counted.
                let mut updated = 0;
                for target in &targets {
                    let found = rows.iter_mut().find(|r| same_key(&schema, r, target));
                    if let Some(Value::Record(fields)) = found {
                        let mut changed = false;
                        for (column, value) in &changes {
                            let field =
                                &mut fields.iter_mut().find(|(n, _)| n == column).unwrap().1;
                            changed |= field != value;
                            *field = value.clone();
                        }
                        updated += i64::from(changed);
                    }
                }
                Value::Int(updated)
            }
            TExpr::Delete { table, target } => {
                let targets = v(self, target).into_items();
                let schema = self.table_schema(table);
                let rows = self.tables.entry(table.clone()).or_default();
                let mut deleted = 0;
                for target in &targets {
                    if let Some(at) = rows.iter().position(|r| same_key(&schema, r, target)) {
                        rows.remove(at);
                        deleted += 1;
                    }
                }
                Value::Int(deleted)
            }
            TExpr::Order(desc) => Value::Bool(*desc),
            TExpr::Error => panic!("an error node in an accepted program"),
        })
    }

    fn apply(&mut self, f: &Val, values: Vec<Val>, args: &[Value]) -> Val {
        let Val::Closure(params, body, captured) = f else {
            panic!("not a function")
        };
        let mut env = captured.clone();
        env.extend(params.iter().cloned().zip(values));
        self.eval(body, args, &env)
    }

    fn builtin(
        &mut self,
        name: &str,
        call_args: &[TExpr],
        args: &[Value],
        env: &[(String, Val)],
    ) -> Val {
        let input = self.eval(&call_args[0], args, env).data();
        let is_list = matches!(input, Value::List(_));
        let xs = input.clone().into_items();
        let f = call_args.get(1).map(|a| self.eval(a, args, env));
        let call = |this: &mut Self, x: &Value| {
            this.apply(f.as_ref().unwrap(), vec![Val::Data(x.clone())], args)
                .data()
        };
        Val::Data(match name {
            "take" => {
                let Some(Val::Data(Value::Int(n))) = f else {
                    panic!("take needs a count")
                };
                if is_list || matches!(input, Value::Null) {
                    if is_list {
                        Value::List(xs.into_iter().take(n.max(0) as usize).collect())
                    } else {
                        Value::Null
                    }
                } else if n > 0 {
                    input
                } else {
                    Value::Null
                }
            }
            "first" => xs.into_iter().next().unwrap_or(Value::Null),
            "exists" => Value::Bool(!xs.is_empty()),
            "map" if !is_list => match input {
                Value::Null => Value::Null,
                x => call(self, &x),
            },
            "map" => Value::List(xs.iter().map(|x| call(self, x)).collect()),
            "filter" => Value::List(
                xs.into_iter()
                    .filter(|x| call(self, x) == Value::Bool(true))
                    .collect(),
            ),
            "flat_map" => Value::List(xs.iter().flat_map(|x| call(self, x).into_items()).collect()),
            "flatten" => Value::List(xs.into_iter().flat_map(Value::into_items).collect()),
            "sort_by" => {
                let descending = matches!(call_args.get(2), Some(TExpr::Order(true)));
                let mut keyed: Vec<(Value, Value)> =
                    xs.into_iter().map(|x| (call(self, &x), x)).collect();
                keyed.sort_by(|a, b| {
                    if descending {
                        compare(&b.0, &a.0)
                    } else {
                        compare(&a.0, &b.0)
                    }
                });
                Value::List(keyed.into_iter().map(|(_, x)| x).collect())
            }
            "group_by" => {
                let mut groups: Vec<(Value, Vec<Value>)> = Vec::new();
                for x in xs {
                    let k = call(self, &x);
                    match groups.iter_mut().find(|(g, _)| *g == k) {
                        Some((_, rows)) => rows.push(x),
                        None => groups.push((k, vec![x])),
                    }
                }
                Value::List(
                    groups
                        .into_iter()
                        .map(|(k, rows)| {
                            Value::Record(vec![
                                ("key".into(), k),
                                ("rows".into(), Value::List(rows)),
                            ])
                        })
                        .collect(),
                )
            }
            "distinct" => {
                let mut out: Vec<Value> = Vec::new();
                for x in xs {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                Value::List(out)
            }
            "count" => Value::Int(xs.len() as i64),
            "sum" => {
                let values: Vec<Value> = if f.is_some() {
                    xs.iter().map(|x| call(self, x)).collect()
                } else {
                    xs
                };
                if values.iter().any(|v| matches!(v, Value::Float(_))) {
                    Value::Float(
                        values
                            .iter()
                            .map(|v| match v {
                                Value::Float(x) => *x,
                                Value::Int(n) => *n as f64,
                                _ => 0.0,
                            })
                            .sum(),
                    )
                } else {
                    Value::Int(
                        values
                            .iter()
                            .map(|v| match v {
                                Value::Int(n) => *n,
                                _ => 0,
                            })
                            .sum(),
                    )
                }
            }
            "min" | "max" => {
                let keyed: Vec<(Value, Value)> = xs
                    .into_iter()
                    .map(|x| {
                        (
                            if f.is_some() {
                                call(self, &x)
                            } else {
                                x.clone()
                            },
                            x,
                        )
                    })
                    .collect();
                let best = keyed.into_iter().reduce(|a, b| {
                    let o = compare(&b.0, &a.0);
                    let take_b = if name == "min" {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    };
                    if take_b {
                        b
                    } else {
                        a
                    }
                });
                match best {
                    None => Value::Null,
                    Some((k, x)) => {
                        if f.is_some() {
                            k
                        } else {
                            x
                        }
                    }
                }
            }
            "any" => Value::Bool(xs.iter().any(|x| call(self, x) == Value::Bool(true))),
            "all" => Value::Bool(xs.iter().all(|x| call(self, x) == Value::Bool(true))),
            "unwrap_or" => match input {
                Value::Null => f.unwrap().data(),
                other => other,
            },
            other => panic!("unknown builtin {other}"),
        })
    }

    /// Borrowed, so a lookup clones only the rows it returns.
    fn rows(&self, table: &str) -> &[Value] {
        self.tables.get(table).map(Vec::as_slice).unwrap_or(&[])
    }

    fn table_schema(&self, name: &str) -> TableSchema {
        self.schema().table(name).unwrap().clone()
    }
}

fn record(schema: &TableSchema, values: Vec<Value>) -> Value {
    Value::Record(
        schema
            .columns
            .iter()
            .zip(values)
            .map(|(c, v)| (c.name.clone(), v))
            .collect(),
    )
}

/// Whether two rows of a table have the same key.
fn same_key(schema: &TableSchema, a: &Value, b: &Value) -> bool {
    schema
        .key
        .iter()
        .all(|&c| column(schema, a, c) == column(schema, b, c))
}

fn column(schema: &TableSchema, row: &Value, c: usize) -> Value {
    row.field(&schema.columns[c].name)
        .cloned()
        .unwrap_or(Value::Null)
}

fn matches(schema: &TableSchema, row: &Value, columns: &[usize], values: &[Value]) -> bool {
    columns
        .iter()
        .zip(values)
        .all(|(&c, v)| row.field(&schema.columns[c].name).unwrap_or(&Value::Null) == v)
}

fn binary(op: BinaryOp, x: Value, y: Value) -> Value {
    use Value::*;
    match op {
        BinaryOp::Eq => Bool(x == y),
        BinaryOp::NotEq => Bool(x != y),
        BinaryOp::Lt => Bool(compare(&x, &y) == Ordering::Less),
        BinaryOp::LtEq => Bool(compare(&x, &y) != Ordering::Greater),
        BinaryOp::Gt => Bool(compare(&x, &y) == Ordering::Greater),
        BinaryOp::GtEq => Bool(compare(&x, &y) != Ordering::Less),
        BinaryOp::And => Bool(x == Bool(true) && y == Bool(true)),
        BinaryOp::Or => Bool(x == Bool(true) || y == Bool(true)),
        _ => match (x, y) {
            (Int(a), Int(b)) => Int(match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::Div => a / b,
                _ => a % b,
            }),
            (Float(a), Float(b)) => Float(match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::Div => a / b,
                _ => a % b,
            }),
            (Str(a), Str(b)) => Str(a + &b),
            _ => Null,
        },
    }
}
