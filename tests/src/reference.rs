//! A reference evaluator: runs a checked program by brute force over rows
//! kept in memory, with none of the runtime's storage, indexes or plans.
//! The end-to-end suites compare the runtime's answers with its answers.

use rqc_compiler::check::tir::TExpr;
use rqc_compiler::check::CheckedProgram;
use rqc_compiler::syntax::ast::{BinaryOp, UnaryOp};
use rqc_plan::{compare, Schema, Shape, TableSchema, Value};
use std::cmp::Ordering;
use std::collections::HashMap;

/// A value: data, a function, or a list or record holding functions (kept
/// apart so data stays plain). Streams are read in full: this evaluator
/// checks answers, not costs.
#[derive(Clone)]
enum Val {
    Data(Value),
    /// Parameters, body, the names in scope and the entry point's
    /// arguments where it was made (a function called from elsewhere still
    /// reads its maker's parameters).
    Closure(Vec<String>, TExpr, Vec<(String, Val)>, Vec<Value>),
    List(Vec<Val>),
    Record(Vec<(String, Val)>),
}

impl Val {
    fn data(self) -> Value {
        match self {
            Val::Data(v) => v,
            _ => panic!("a function where a value was expected"),
        }
    }

    fn from_items(items: Vec<Val>) -> Val {
        if items.iter().all(|i| matches!(i, Val::Data(_))) {
            Val::Data(Value::List(items.into_iter().map(Val::data).collect()))
        } else {
            Val::List(items)
        }
    }

    fn from_fields(fields: Vec<(String, Val)>) -> Val {
        if fields.iter().all(|(_, v)| matches!(v, Val::Data(_))) {
            Val::Data(Value::Record(
                fields.into_iter().map(|(n, v)| (n, v.data())).collect(),
            ))
        } else {
            Val::Record(fields)
        }
    }

    /// The elements of a list, or of an option (`shape`) as a list of ≤ 1.
    fn items(self, shape: Shape) -> Vec<Val> {
        match (self, shape) {
            (Val::Data(Value::Null), Shape::Option) => Vec::new(),
            (one, Shape::Option) => vec![one],
            (Val::Data(Value::List(items)), _) => items.into_iter().map(Val::Data).collect(),
            (Val::List(items), _) => items,
            (other, _) => panic!("not a list: {}", other.is_data()),
        }
    }

    fn is_data(&self) -> bool {
        matches!(self, Val::Data(_))
    }

    fn field(self, name: &str) -> Val {
        match self {
            Val::Data(Value::Null) => Val::Data(Value::Null),
            Val::Data(record) => Val::Data(record.field(name).cloned().unwrap()),
            Val::Record(fields) => fields.into_iter().find(|(n, _)| n == name).unwrap().1,
            _ => panic!("a field of a function"),
        }
    }
}

/// Tables as plain lists of row records.
pub struct Reference<'c> {
    pub checked: &'c CheckedProgram,
    pub tables: HashMap<String, Vec<Value>>,
    /// Each `key auto` table's counter: the largest key generated or
    /// given, never going back.
    pub counters: HashMap<String, i64>,
    /// `now()` of the run under way: read once per run, as the runtime
    /// reads it once per transaction attempt (`RQC_NOW` fixes both).
    now: Option<i64>,
}

impl<'c> Reference<'c> {
    pub fn new(checked: &'c CheckedProgram) -> Reference<'c> {
        Reference {
            checked,
            tables: HashMap::new(),
            counters: HashMap::new(),
            now: None,
        }
    }

    /// Runs calls as one transaction: each sees the ones before it; when
    /// `refused` says one is refused (asked of the tables as the calls
    /// before it left them, the call's index given), every call of the
    /// transaction is taken back and the refusal returned with the index.
    /// Otherwise the calls' values, in order.
    pub fn transaction<'a>(
        &mut self,
        calls: impl IntoIterator<Item = (&'a str, Vec<Value>)>,
        mut refused: impl FnMut(&Reference<'c>, usize) -> Option<&'static str>,
    ) -> Result<Vec<Value>, (usize, &'static str)> {
        // A refused transaction takes back its rows and the keys it
        // generated (the store's counter is written in the same commit).
        let kept = (self.tables.clone(), self.counters.clone());
        let mut values = Vec::new();
        for (at, (name, args)) in calls.into_iter().enumerate() {
            if let Some(code) = refused(self, at) {
                (self.tables, self.counters) = kept;
                return Err((at, code));
            }
            values.push(self.run(name, &args));
        }
        Ok(values)
    }

    /// The same tables and counters under another program (an install).
    pub fn under(&mut self, checked: &'c CheckedProgram) {
        self.checked = checked;
    }

    pub(crate) fn schema(&self) -> &Schema {
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
        self.now = None;
        self.eval(&body, args, &[]).data()
    }

    fn eval(&mut self, t: &TExpr, args: &[Value], env: &[(String, Val)]) -> Val {
        let v = |this: &mut Self, e: &TExpr| this.eval(e, args, env).data();
        Val::Data(match t {
            TExpr::Const(c) => c.clone(),
            TExpr::Now => {
                let now = self
                    .now
                    .unwrap_or_else(|| rqc_runtime::clock::now_micros().expect("a clock"));
                self.now = Some(now);
                Value::Int(now)
            }
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
            // A maintained aggregate, recounted from the rows every time.
            TExpr::AggregateRead { aggregate, key } => {
                let key: Vec<Value> = key.iter().map(|k| v(self, k)).collect();
                let (schema, aggregate) = self
                    .schema()
                    .aggregate(aggregate)
                    .map(|(t, a)| (t.clone(), a.clone()))
                    .unwrap();
                let group = self
                    .rows(&schema.name)
                    .iter()
                    .filter(|r| matches(&schema, r, &aggregate.by, &key));
                match (aggregate.kind, aggregate.column) {
                    (rqc_plan::AggregateKind::Count, _) => Value::Int(group.count() as i64),
                    (rqc_plan::AggregateKind::Sum, Some(c)) => {
                        // Exactly, as the runtime keeps it: a partial sum
                        // may leave 64 bits where the group's total does not
                        // (the runtime refuses a write whose total would).
                        let mut total: i128 = 0;
                        for row in group {
                            if let Value::Int(n) = column(&schema, row, c) {
                                total += i128::from(n);
                            }
                        }
                        Value::Int(i64::try_from(total).expect("a group's sum within 64 bits"))
                    }
                    // The least or greatest value, none of an empty group.
                    (kind, Some(c)) => {
                        let wanted = if kind == rqc_plan::AggregateKind::Min {
                            Ordering::Less
                        } else {
                            Ordering::Greater
                        };
                        group
                            .map(|row| column(&schema, row, c))
                            .fold(Value::Null, |best, v| {
                                if best == Value::Null || compare(&v, &best) == wanted {
                                    v
                                } else {
                                    best
                                }
                            })
                    }
                    other => panic!("an aggregate the reference does not keep: {other:?}"),
                }
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
                // Each end as the tuple of values it compares with: one
                // value, or a tuple range's several (row-value order).
                let mut end = |e: &(TExpr, bool)| {
                    let values = match &e.0 {
                        TExpr::Tuple(items) => items.iter().map(|i| v(self, i)).collect(),
                        one => vec![v(self, one)],
                    };
                    (values, e.1)
                };
                let lower = range.as_ref().and_then(|r| r.lower.as_ref()).map(&mut end);
                let upper = range.as_ref().and_then(|r| r.upper.as_ref()).map(&mut end);
                let starts_with = range.as_ref().is_some_and(|r| r.starts_with);
                let schema = self.table_schema(table);
                let (columns, descending) = match index {
                    None => (schema.key.clone(), vec![false; schema.key.len()]),
                    Some(i) => {
                        let index = schema.index(i).unwrap();
                        (index.columns.clone(), index.descending.clone())
                    }
                };
                let next = &columns[prefix.len()..];
                // Lexicographic, in the values' own order (never the index's).
                let tuple_cmp = |r: &Value, bound: &[Value]| {
                    for (k, b) in bound.iter().enumerate() {
                        let o = compare(&column(&schema, r, next[k]), b);
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    Ordering::Equal
                };
                let mut rows: Vec<Value> = self
                    .rows(table)
                    .iter()
                    .filter(|r| matches(&schema, r, &columns[..prefix.len()], &prefix))
                    .filter(|r| {
                        if starts_with {
                            // By the values, not by any encoding.
                            let Some(&next) = next.first() else {
                                return true;
                            };
                            let value = column(&schema, r, next);
                            return match (&value, lower.as_ref().map(|l| l.0.first())) {
                                (Value::Str(s), Some(Some(Value::Str(p)))) => {
                                    s.starts_with(p.as_str())
                                }
                                _ => false,
                            };
                        }
                        let above = lower.as_ref().is_none_or(|(l, incl)| {
                            let o = tuple_cmp(r, l);
                            o == Ordering::Greater || (*incl && o == Ordering::Equal)
                        });
                        let below = upper.as_ref().is_none_or(|(u, incl)| {
                            let o = tuple_cmp(r, u);
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
            // By name, as a row's column too: the runtime reads it by
            // position, so the two are compared.
            TExpr::Field(base, name) => return self.eval(base, args, env).field(name),
            TExpr::Column(base, column) => return self.eval(base, args, env).field(&column.name),
            TExpr::Record(fields) => {
                let fields = fields
                    .iter()
                    .map(|(n, e)| (n.clone(), self.eval(e, args, env)))
                    .collect();
                return Val::from_fields(fields);
            }
            TExpr::List(items) => {
                let items = items.iter().map(|e| self.eval(e, args, env)).collect();
                return Val::from_items(items);
            }
            TExpr::Tuple(_) => panic!("a tuple outside a range's end"),
            TExpr::Unary(op, a) => match (op, v(self, a)) {
                (UnaryOp::Neg, Value::Int(n)) => n.checked_neg().map_or(Value::Null, Value::Int),
                (UnaryOp::Neg, Value::Float(x)) => Value::float(-x),
                (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
                (UnaryOp::Length, Value::Str(s)) => Value::Int(s.chars().count() as i64),
                (UnaryOp::Lower, Value::Str(s)) => Value::Str(s.to_lowercase()),
                (UnaryOp::Upper, Value::Str(s)) => Value::Str(s.to_uppercase()),
                (UnaryOp::ToFloat, Value::Int(n)) => Value::float(n as f64),
                _ => Value::Null,
            },
            TExpr::Binary(op, a, b) => {
                let x = v(self, a);
                // `&&` and `||` leave their right side unevaluated when the
                // left decides, as the executor does: what it would read
                // or fail on is never reached.
                match (op, &x) {
                    (BinaryOp::And, Value::Bool(false)) | (BinaryOp::Or, Value::Bool(true)) => x,
                    _ => binary(*op, x, v(self, b)),
                }
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
                return Val::Closure(
                    params.clone(),
                    (**body).clone(),
                    env.to_vec(),
                    args.to_vec(),
                )
            }
            TExpr::Call(name, call_args) => {
                let values: Vec<Val> = call_args.iter().map(|a| self.eval(a, args, env)).collect();
                let (params, body) = self.checked.functions.get(name.name()).cloned().unwrap();
                // A called query or mutation reads its own arguments by position.
                let positional: Vec<Value> = values
                    .iter()
                    .map(|v| match v {
                        Val::Data(d) => d.clone(),
                        _ => Value::Null,
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
                return self.apply(&f, values);
            }
            TExpr::Builtin(name, shape, call_args) => {
                return self.builtin(name.name(), *shape, call_args, args, env)
            }
            TExpr::Insert {
                table,
                row,
                generated,
            } => {
                let mut values: Vec<Value> = row.iter().map(|e| v(self, e)).collect();
                let schema = self.table_schema(table);
                let key = schema.key[0];
                let counter = self.counters.entry(table.clone()).or_default();
                if *generated {
                    // The runtime refuses the end (E0660) and the
                    // reference runs only what the runtime committed.
                    *counter = counter.checked_add(1).expect("a key below the end");
                    values[key] = Value::Int(*counter);
                } else if let (true, Value::Int(k)) = (schema.auto, &values[key]) {
                    *counter = (*counter).max(*k);
                }
                let result = if schema.auto {
                    values[key].clone()
                } else {
                    Value::Int(1)
                };
                let record = record(&schema, values);
                self.tables.entry(table.clone()).or_default().push(record);
                result
            }
            TExpr::Update {
                table,
                target,
                row,
                changes,
            } => {
                let targets = v(self, target).into_items();
                let schema = self.table_schema(table);
                // Without a row's name, the changes are computed once,
                // first; with one, for each row found, from the row as it
                // is then (computing them may write: the row is found
                // again after).
                let once: Option<Vec<(String, Value)>> = match row {
                    None => Some(
                        changes
                            .iter()
                            .map(|(c, e)| (c.name.clone(), v(self, e)))
                            .collect(),
                    ),
                    Some(_) => None,
                };
                // Each target by its key, in order, on the row as it is by
                // then: one that is gone, or already so, is not counted.
                let mut updated = 0;
                for target in &targets {
                    let current = self
                        .rows(table)
                        .iter()
                        .find(|r| same_key(&schema, r, target))
                        .cloned();
                    let Some(current) = current else {
                        continue;
                    };
                    let values = match (&once, row) {
                        (Some(values), _) => values.clone(),
                        (None, Some(name)) => {
                            let mut inner = env.to_vec();
                            inner.push((name.clone(), Val::Data(current)));
                            changes
                                .iter()
                                .map(|(c, e)| (c.name.clone(), self.eval(e, args, &inner).data()))
                                .collect()
                        }
                        (None, None) => unreachable!("changes computed once without a row"),
                    };
                    let rows = self.tables.entry(table.clone()).or_default();
                    let found = rows.iter_mut().find(|r| same_key(&schema, r, target));
                    if let Some(Value::Record(fields)) = found {
                        let mut changed = false;
                        for (column, value) in &values {
                            let field = fields.get_mut(column).unwrap();
                            changed |= field != value;
                            *field = value.clone();
                        }
                        updated += i64::from(changed);
                    }
                }
                Value::Int(updated)
            }
            TExpr::Upsert { table, columns } => {
                let named: Vec<(String, Value)> = columns
                    .iter()
                    .map(|(c, e)| (c.name.clone(), v(self, e)))
                    .collect();
                let schema = self.table_schema(table);
                // The row named: its columns given, the others' defaults.
                let values: Vec<Value> = schema
                    .columns
                    .iter()
                    .map(
                        |column| match named.iter().find(|(c, _)| *c == column.name) {
                            Some((_, value)) => value.clone(),
                            None => column.default.as_ref().map_or(Value::Null, |d| d.value()),
                        },
                    )
                    .collect();
                let new = record(&schema, values);
                let rows = self.tables.entry(table.clone()).or_default();
                match rows.iter_mut().find(|r| same_key(&schema, r, &new)) {
                    Some(Value::Record(fields)) => {
                        // The row there: the columns named change, the
                        // others keep their values.
                        let mut changed = false;
                        for (column, value) in &named {
                            let field = fields.get_mut(column).unwrap();
                            changed |= field != value;
                            *field = value.clone();
                        }
                        Value::Int(i64::from(changed))
                    }
                    Some(_) => panic!("a row that is not a record"),
                    None => {
                        rows.push(new);
                        if let (true, Some((_, Value::Int(k)))) = (
                            schema.auto,
                            named
                                .iter()
                                .find(|(c, _)| *c == schema.columns[schema.key[0]].name),
                        ) {
                            let counter = self.counters.entry(table.clone()).or_default();
                            *counter = (*counter).max(*k);
                        }
                        Value::Int(1)
                    }
                }
            }
            TExpr::Delete { table, target } => {
                let targets = v(self, target).into_items();
                let schema = self.table_schema(table);
                let mut deleted = 0;
                for target in &targets {
                    deleted += i64::from(self.delete_row(table, &schema, target));
                }
                Value::Int(deleted)
            }
            TExpr::Order(desc) => Value::Bool(*desc),
            TExpr::Limit(count, _) => return self.eval(count, args, env),
            TExpr::Error | TExpr::DelayedLambda(_) | TExpr::Unreachable => {
                panic!("{t:?} in an accepted program")
            }
        })
    }

    fn apply(&mut self, f: &Val, values: Vec<Val>) -> Val {
        let Val::Closure(params, body, captured, args) = f else {
            panic!("not a function")
        };
        let mut env = captured.clone();
        env.extend(params.iter().cloned().zip(values));
        self.eval(body, args, &env)
    }

    fn builtin(
        &mut self,
        name: &str,
        shape: Shape,
        call_args: &[TExpr],
        args: &[Value],
        env: &[(String, Val)],
    ) -> Val {
        let input = self.eval(&call_args[0], args, env);
        let is_list = shape != Shape::Option;
        if name == "unwrap_or" {
            return match input {
                Val::Data(Value::Null) => self.eval(&call_args[1], args, env),
                other => other,
            };
        }
        let f = call_args.get(1).map(|a| self.eval(a, args, env));
        if name == "skip" {
            let Some(Val::Data(Value::Int(n))) = f else {
                panic!("skip needs a count")
            };
            return if is_list {
                Val::from_items(
                    input
                        .items(shape)
                        .into_iter()
                        .skip(n.max(0) as usize)
                        .collect(),
                )
            } else if n > 0 {
                Val::Data(Value::Null)
            } else {
                input
            };
        }
        if name == "take" {
            let Some(Val::Data(Value::Int(n))) = f else {
                panic!("take needs a count")
            };
            return if is_list {
                Val::from_items(
                    input
                        .items(shape)
                        .into_iter()
                        .take(n.max(0) as usize)
                        .collect(),
                )
            } else if n > 0 {
                input
            } else {
                Val::Data(Value::Null)
            };
        }
        if name == "reverse" {
            return if is_list {
                let mut items = input.items(shape);
                items.reverse();
                Val::from_items(items)
            } else {
                input
            };
        }
        let xs = input.items(shape);
        let call = |this: &mut Self, x: &Val| this.apply(f.as_ref().unwrap(), vec![x.clone()]);
        let data = |this: &mut Self, x: &Val| call(this, x).data();
        let key = |this: &mut Self, x: &Val| {
            if f.is_some() {
                data(this, x)
            } else {
                x.clone().data()
            }
        };
        match name {
            "first" => xs.into_iter().next().unwrap_or(Val::Data(Value::Null)),
            "exists" => Val::Data(Value::Bool(!xs.is_empty())),
            "map" if !is_list => match xs.first() {
                None => Val::Data(Value::Null),
                Some(x) => call(self, x),
            },
            "map" => Val::from_items(xs.iter().map(|x| call(self, x)).collect()),
            "filter" => Val::from_items(
                xs.into_iter()
                    .filter(|x| data(self, x) == Value::Bool(true))
                    .collect(),
            ),
            "flat_map" => Val::from_items(
                xs.iter()
                    .flat_map(|x| call(self, x).items(Shape::List))
                    .collect(),
            ),
            // An element that is an option flattens as one.
            "flatten" => Val::from_items(
                xs.into_iter()
                    .flat_map(|x| match x {
                        Val::Data(Value::List(_)) | Val::List(_) => x.items(Shape::List),
                        other => other.items(Shape::Option),
                    })
                    .collect(),
            ),
            "sort_by" => {
                let descending = matches!(call_args.get(2), Some(TExpr::Order(true)));
                let mut keyed: Vec<(Value, Val)> =
                    xs.into_iter().map(|x| (data(self, &x), x)).collect();
                keyed.sort_by(|a, b| {
                    if descending {
                        compare(&b.0, &a.0)
                    } else {
                        compare(&a.0, &b.0)
                    }
                });
                Val::from_items(keyed.into_iter().map(|(_, x)| x).collect())
            }
            "group_by" => {
                let mut groups: Vec<(Value, Vec<Val>)> = Vec::new();
                for x in xs {
                    let k = data(self, &x);
                    match groups.iter_mut().find(|(g, _)| *g == k) {
                        Some((_, rows)) => rows.push(x),
                        None => groups.push((k, vec![x])),
                    }
                }
                Val::from_items(
                    groups
                        .into_iter()
                        .map(|(k, rows)| {
                            Val::from_fields(vec![
                                ("key".into(), Val::Data(k)),
                                ("rows".into(), Val::from_items(rows)),
                            ])
                        })
                        .collect(),
                )
            }
            "distinct" => {
                let mut out: Vec<Value> = Vec::new();
                for x in xs {
                    let x = x.data();
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                Val::Data(Value::List(out))
            }
            "count" => Val::Data(Value::Int(xs.len() as i64)),
            "sum" => {
                let values: Vec<Value> = xs.iter().map(|x| key(self, x)).collect();
                Val::Data(if values.iter().any(|v| matches!(v, Value::Float(_))) {
                    Value::float(
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
                    // Exact whatever the order: only the total must fit 64
                    // bits (`[MAX, 1, -5]` sums as `[MAX, -5, 1]` does).
                    let exact: i128 = values
                        .iter()
                        .map(|v| match v {
                            Value::Int(n) => i128::from(*n),
                            _ => 0,
                        })
                        .sum();
                    i64::try_from(exact).map_or(Value::Null, Value::Int)
                })
            }
            "avg" => {
                let values: Vec<f64> = xs
                    .iter()
                    .filter_map(|x| match key(self, x) {
                        Value::Int(n) => Some(n as f64),
                        Value::Float(f) => Some(f),
                        _ => None,
                    })
                    .collect();
                Val::Data(if values.is_empty() {
                    Value::Null
                } else {
                    Value::float(values.iter().sum::<f64>() / values.len() as f64)
                })
            }
            "min" | "max" => {
                let keys: Vec<Value> = xs.iter().map(|x| key(self, x)).collect();
                let best = keys.into_iter().reduce(|a, b| {
                    let o = compare(&b, &a);
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
                Val::Data(best.unwrap_or(Value::Null))
            }
            "any" => Val::Data(Value::Bool(
                xs.iter().any(|x| data(self, x) == Value::Bool(true)),
            )),
            "all" => Val::Data(Value::Bool(
                xs.iter().all(|x| data(self, x) == Value::Bool(true)),
            )),
            other => panic!("unknown builtin {other}"),
        }
    }

    /// Borrowed, so a lookup clones only the rows it returns.
    pub(crate) fn rows(&self, table: &str) -> &[Value] {
        self.tables.get(table).map(Vec::as_slice).unwrap_or(&[])
    }

    pub(crate) fn table_schema(&self, name: &str) -> TableSchema {
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
pub(crate) fn same_key(schema: &TableSchema, a: &Value, b: &Value) -> bool {
    schema
        .key
        .iter()
        .all(|&c| column(schema, a, c) == column(schema, b, c))
}

pub(crate) fn column(schema: &TableSchema, row: &Value, c: usize) -> Value {
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
        BinaryOp::StartsWith => {
            Bool(matches!((&x, &y), (Str(s), Str(p)) if s.starts_with(p.as_str())))
        }
        BinaryOp::In => panic!("`in` outside an access in an accepted program"),
        _ => match (x, y) {
            // Where the runtime stops with an error (an overflow, a division
            // by zero) no answer is compared; `none` keeps evaluating rows
            // this evaluator reads and the runtime never does.
            (Int(a), Int(b)) => match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                BinaryOp::Div => a.checked_div(b),
                _ if b == 0 => None,
                _ => Some(a.wrapping_rem(b)),
            }
            .map_or(Null, Int),
            // An infinite or NaN result is a run-time error too (E0531,
            // E0538).
            (Float(a), Float(b)) => Some(match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::Div => a / b,
                _ => a % b,
            })
            .filter(|r| r.is_finite())
            // No float is -0.0 (spec/types.md, "Value identity").
            .map_or(Null, Value::float),
            (Str(a), Str(b)) => Str(a + &b),
            _ => Null,
        },
    }
}
