//! Edits of one operator's fields: every field changed, dropped, duplicated, made negative or huge, names with NUL, positions out of range; and the sound edits a person may make (a lower `take` limit, another constant, another order).

use crate::reshape::{names, vectors, COMBINATORS};
use rqc_plan::{BinOp, ColumnAt, Node, Op, RangeEnd, Shape, UnOp, Value};

/// An edit of one operator: what it did, the operator after it, whether
/// the tree's ids are numbered again after it (an edit of the tree's
/// shape, as a careful attacker would), and whether the verifier must
/// accept it (a sound edit).
pub struct Edit {
    pub what: String,
    pub node: Node,
    pub renumber: bool,
    pub sound: bool,
}

pub fn node(op: Op) -> Node {
    Node {
        id: 0,
        op,
        bound: None,
    }
}

/// Where an operator sits: under a `take` count, whose constants a sound
/// edit may only lower.
#[derive(Clone, Copy, Default)]
pub struct Place {
    pub in_count: bool,
}

/// Every edit of `n` (see [`Edit`]).
pub fn edits(n: &Node, place: Place, tables: &[String], indexes: &[String]) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut with = |what: &str, op: Op, renumber: bool, sound: bool| {
        out.push(Edit {
            what: what.to_string(),
            node: Node { op, ..n.clone() },
            renumber,
            sound,
        })
    };
    match &n.op {
        Op::Const(value) => {
            for (what, other) in [
                ("0", Value::Int(0)),
                ("-1", Value::Int(-1)),
                ("i64::MAX", Value::Int(i64::MAX)),
                ("i64::MIN", Value::Int(i64::MIN)),
                ("none", Value::Null),
                ("a string", Value::Str("x".repeat(50))),
                ("NaN", Value::Float(f64::NAN)),
                ("-0.0", Value::Float(-0.0)),
                ("a list", Value::List(vec![Value::Int(1); 3])),
            ] {
                with(
                    &format!("constant → {what}"),
                    Op::Const(other),
                    false,
                    false,
                );
            }
            match value {
                Value::Int(c) if place.in_count && *c >= 1 => {
                    with("a lower limit", Op::Const(Value::Int(c - 1)), false, true)
                }
                Value::Int(c) if !place.in_count && *c < i64::MAX => with(
                    "another constant",
                    Op::Const(Value::Int(c + 1)),
                    false,
                    true,
                ),
                Value::Bool(b) => with("another constant", Op::Const(Value::Bool(!b)), false, true),
                _ => {}
            }
        }
        Op::Param(i) => {
            for other in [i + 1, i.wrapping_sub(1), usize::MAX] {
                with(
                    &format!("parameter {other}"),
                    Op::Param(other),
                    false,
                    false,
                );
            }
        }
        // The clock made a constant: the same bounds, it must install.
        Op::Now => with("now → 0", Op::Const(Value::Int(0)), false, true),
        Op::Var(name) => {
            for other in ["nope", "", "x\0y"] {
                with(
                    &format!("variable {name} → {other:?}"),
                    Op::Var(other.into()),
                    false,
                    false,
                );
            }
        }
        Op::Get { table, key } => {
            for t in names(tables, table) {
                with(
                    &format!("table → {t:?}"),
                    Op::Get {
                        table: t,
                        key: key.clone(),
                    },
                    false,
                    false,
                );
            }
            for (what, key) in vectors(key) {
                with(
                    &format!("key {what}"),
                    Op::Get {
                        table: table.clone(),
                        key,
                    },
                    true,
                    false,
                );
            }
        }
        Op::GetUnique {
            table,
            index,
            values,
        } => {
            for i in names(indexes, index) {
                let op = Op::GetUnique {
                    table: table.clone(),
                    index: i.clone(),
                    values: values.clone(),
                };
                with(&format!("index → {i:?}"), op, false, false);
            }
            for t in names(tables, table) {
                let op = Op::GetUnique {
                    table: t.clone(),
                    index: index.clone(),
                    values: values.clone(),
                };
                with(&format!("table → {t:?}"), op, false, false);
            }
            for (what, values) in vectors(values) {
                let op = Op::GetUnique {
                    table: table.clone(),
                    index: index.clone(),
                    values,
                };
                with(&format!("values {what}"), op, true, false);
            }
        }
        Op::Aggregate { aggregate, key } => {
            for a in ["posts_of", "latest", "total", "nope", "a\0"] {
                let op = Op::Aggregate {
                    aggregate: a.into(),
                    key: key.clone(),
                };
                with(&format!("aggregate → {a:?}"), op, false, false);
            }
            for (what, key) in vectors(key) {
                let op = Op::Aggregate {
                    aggregate: aggregate.clone(),
                    key,
                };
                with(&format!("key {what}"), op, true, false);
            }
        }
        Op::Scan {
            table,
            index,
            prefix,
            lower,
            upper,
            stream,
            starts_with,
        } => {
            let scan = |table: &str,
                        index: Option<String>,
                        prefix: Vec<Node>,
                        lower: Option<RangeEnd>,
                        upper: Option<RangeEnd>,
                        stream: bool,
                        starts_with: bool| Op::Scan {
                table: table.into(),
                index,
                prefix,
                lower,
                upper,
                stream,
                starts_with,
            };
            with(
                "stream flipped",
                scan(
                    table,
                    index.clone(),
                    prefix.clone(),
                    lower.clone(),
                    upper.clone(),
                    !stream,
                    *starts_with,
                ),
                false,
                false,
            );
            with(
                "starts_with flipped",
                scan(
                    table,
                    index.clone(),
                    prefix.clone(),
                    lower.clone(),
                    upper.clone(),
                    *stream,
                    !starts_with,
                ),
                false,
                false,
            );
            for t in names(tables, table) {
                with(
                    &format!("table → {t:?}"),
                    scan(
                        &t,
                        index.clone(),
                        prefix.clone(),
                        lower.clone(),
                        upper.clone(),
                        *stream,
                        *starts_with,
                    ),
                    false,
                    false,
                );
            }
            for i in names(indexes, index.as_deref().unwrap_or(""))
                .into_iter()
                .map(Some)
                .chain([None])
            {
                with(
                    &format!("index → {i:?}"),
                    scan(
                        table,
                        i,
                        prefix.clone(),
                        lower.clone(),
                        upper.clone(),
                        *stream,
                        *starts_with,
                    ),
                    false,
                    false,
                );
            }
            for (what, prefix) in vectors(prefix) {
                with(
                    &format!("prefix {what}"),
                    scan(
                        table,
                        index.clone(),
                        prefix,
                        lower.clone(),
                        upper.clone(),
                        *stream,
                        *starts_with,
                    ),
                    true,
                    false,
                );
            }
            let end = |value: Op| {
                Some(RangeEnd {
                    value: Box::new(node(value)),
                    inclusive: true,
                })
            };
            with(
                "a lower end",
                scan(
                    table,
                    index.clone(),
                    prefix.clone(),
                    end(Op::Const(Value::Int(0))),
                    upper.clone(),
                    *stream,
                    *starts_with,
                ),
                true,
                false,
            );
            with(
                "an upper tuple end",
                scan(
                    table,
                    index.clone(),
                    prefix.clone(),
                    lower.clone(),
                    end(Op::Tuple(vec![node(Op::Const(Value::Int(0))); 3])),
                    *stream,
                    *starts_with,
                ),
                true,
                false,
            );
            with(
                "no range",
                scan(
                    table,
                    index.clone(),
                    prefix.clone(),
                    None,
                    None,
                    *stream,
                    *starts_with,
                ),
                true,
                false,
            );
        }
        Op::Limit { count, max } => {
            for other in [
                0,
                max.saturating_sub(1),
                max + 1,
                max.saturating_mul(1000),
                u64::MAX,
            ] {
                let op = Op::Limit {
                    count: count.clone(),
                    max: other,
                };
                with(&format!("limit max {max} → {other}"), op, false, false);
            }
            let huge = Op::Limit {
                count: Box::new(node(Op::Const(Value::Int(i64::MAX)))),
                max: *max,
            };
            with("limit count → i64::MAX", huge, true, false);
        }
        Op::Field(base, name) => {
            for other in ["nope", "id", ""] {
                with(
                    &format!("field {name} → {other:?}"),
                    Op::Field(base.clone(), other.into()),
                    false,
                    false,
                );
            }
        }
        // Another name at the same position, or another position under the
        // same name: either reads a column other than the plan shows.
        Op::Column(base, column) => {
            for (what, other) in renamed_and_moved(column) {
                with(&what, Op::Column(base.clone(), other), false, false);
            }
        }
        Op::Record(fields) => {
            let mut doubled = fields.clone();
            doubled.extend(fields.first().cloned());
            with("a field twice", Op::Record(doubled), true, false);
            with(
                "a field less",
                Op::Record(fields[..fields.len().saturating_sub(1)].to_vec()),
                true,
                false,
            );
        }
        Op::List(items) => {
            for (what, items) in vectors(items) {
                with(&format!("items {what}"), Op::List(items), true, false);
            }
        }
        Op::Unary(op, a) => {
            for other in [
                UnOp::Neg,
                UnOp::Not,
                UnOp::Length,
                UnOp::Lower,
                UnOp::Upper,
                UnOp::ToFloat,
            ] {
                if other != *op {
                    with(
                        &format!("unary → {other:?}"),
                        Op::Unary(other, a.clone()),
                        false,
                        false,
                    );
                }
            }
        }
        Op::Binary(op, a, b) => {
            for other in [
                BinOp::Add,
                BinOp::Mul,
                BinOp::Div,
                BinOp::Rem,
                BinOp::Eq,
                BinOp::Lt,
                BinOp::And,
                BinOp::StartsWith,
            ] {
                if other != *op {
                    with(
                        &format!("binary → {other:?}"),
                        Op::Binary(other, a.clone(), b.clone()),
                        false,
                        false,
                    );
                }
            }
        }
        Op::If(c, t, e) => {
            with(
                "branches swapped",
                Op::If(c.clone(), e.clone(), t.clone()),
                true,
                false,
            );
        }
        Op::Let(name, value, body) => {
            with(
                "binder renamed",
                Op::Let(format!("{name}\0"), value.clone(), body.clone()),
                false,
                false,
            );
            with(
                "value and body swapped",
                Op::Let(name.clone(), body.clone(), value.clone()),
                true,
                false,
            );
        }
        Op::Seq(items) => {
            for (what, items) in vectors(items) {
                with(&format!("statements {what}"), Op::Seq(items), true, false);
            }
        }
        Op::Lambda(params, body) => {
            for (what, params) in [
                ("no parameter", Vec::new()),
                (
                    "a parameter twice",
                    [params.clone(), params.clone()].concat(),
                ),
                (
                    "one more parameter",
                    [params.clone(), vec!["extra".into()]].concat(),
                ),
            ] {
                with(
                    &format!("lambda {what}"),
                    Op::Lambda(params, body.clone()),
                    false,
                    false,
                );
            }
        }
        Op::Apply(f, args) => {
            for (what, args) in vectors(args) {
                with(
                    &format!("arguments {what}"),
                    Op::Apply(f.clone(), args),
                    true,
                    false,
                );
            }
        }
        Op::Combinator(c, shape, args) => {
            for other in COMBINATORS {
                if other != *c {
                    with(
                        &format!("{} → {}", c.name(), other.name()),
                        Op::Combinator(other, *shape, args.clone()),
                        false,
                        false,
                    );
                }
            }
            for other in [Shape::List, Shape::Option, Shape::Stream] {
                if other != *shape {
                    with(
                        &format!("shape → {other:?}"),
                        Op::Combinator(*c, other, args.clone()),
                        false,
                        false,
                    );
                }
            }
            for (what, args) in vectors(args) {
                with(
                    &format!("operands {what}"),
                    Op::Combinator(*c, *shape, args),
                    true,
                    false,
                );
            }
        }
        Op::TopK {
            input,
            key,
            descending,
            k,
        } => {
            let huge = Box::new(node(Op::Const(Value::Int(i64::MAX))));
            with(
                "k → i64::MAX",
                Op::TopK {
                    input: input.clone(),
                    key: key.clone(),
                    descending: *descending,
                    k: huge,
                },
                true,
                false,
            );
            with(
                "order flipped",
                Op::TopK {
                    input: input.clone(),
                    key: key.clone(),
                    descending: !descending,
                    k: k.clone(),
                },
                false,
                true,
            );
        }
        Op::Insert {
            table,
            row,
            generated,
        } => {
            for t in names(tables, table) {
                with(
                    &format!("table → {t:?}"),
                    Op::Insert {
                        table: t,
                        row: row.clone(),
                        generated: *generated,
                    },
                    false,
                    false,
                );
            }
            for (what, row) in vectors(row) {
                with(
                    &format!("row {what}"),
                    Op::Insert {
                        table: table.clone(),
                        row,
                        generated: *generated,
                    },
                    true,
                    false,
                );
            }
            // A key claimed generated where it is given (or a table not
            // `key auto`), or given as the `none` placeholder.
            with(
                &format!("generated → {}", !generated),
                Op::Insert {
                    table: table.clone(),
                    row: row.clone(),
                    generated: !generated,
                },
                false,
                false,
            );
        }
        Op::Update {
            table,
            target,
            changes,
            row,
        } => {
            let update =
                |table: &String, changes: Vec<(ColumnAt, Node)>, row: Option<String>| Op::Update {
                    table: table.clone(),
                    target: target.clone(),
                    changes,
                    row,
                };
            for (what, other) in changes
                .first()
                .map(|c| renamed_and_moved(&c.0))
                .unwrap_or_default()
            {
                let mut renamed = changes.clone();
                renamed[0].0 = other;
                with(
                    &format!("update: {what}"),
                    update(table, renamed, row.clone()),
                    false,
                    false,
                );
            }
            let mut doubled = changes.clone();
            doubled.extend(changes.first().cloned());
            with(
                "a change twice",
                update(table, doubled, row.clone()),
                true,
                false,
            );
            for t in names(tables, table) {
                with(
                    &format!("table → {t:?}"),
                    update(&t, changes.clone(), row.clone()),
                    false,
                    false,
                );
            }
            // The row's name taken away (its reads then name nothing), or
            // given to an update that computed its changes without one.
            for (what, other) in [
                ("row dropped", None),
                ("row renamed", Some("zz".to_string())),
                ("row named id", Some("id".to_string())),
            ] {
                if other != *row {
                    with(what, update(table, changes.clone(), other), false, false);
                }
            }
        }
        Op::Upsert { table, columns } => {
            let upsert = |table: &String, columns: Vec<(ColumnAt, Node)>| Op::Upsert {
                table: table.clone(),
                columns,
            };
            for t in names(tables, table) {
                with(
                    &format!("table → {t:?}"),
                    upsert(&t, columns.clone()),
                    false,
                    false,
                );
            }
            for (what, other) in columns
                .first()
                .map(|c| renamed_and_moved(&c.0))
                .unwrap_or_default()
            {
                let mut renamed = columns.clone();
                renamed[0].0 = other;
                with(
                    &format!("upsert: {what}"),
                    upsert(table, renamed),
                    false,
                    false,
                );
            }
            for dropped in 0..columns.len() {
                let mut fewer = columns.clone();
                let (column, _) = fewer.remove(dropped);
                with(
                    &format!("upsert without {:?}", column.name),
                    upsert(table, fewer),
                    true,
                    false,
                );
            }
            let mut doubled = columns.clone();
            doubled.extend(columns.first().cloned());
            with("a column twice", upsert(table, doubled), true, false);
        }
        Op::Delete { table, target } => {
            for t in names(tables, table) {
                with(
                    &format!("table → {t:?}"),
                    Op::Delete {
                        table: t,
                        target: target.clone(),
                    },
                    false,
                    false,
                );
            }
            let whole = Box::new(node(Op::Scan {
                table: table.clone(),
                index: None,
                prefix: Vec::new(),
                lower: None,
                upper: None,
                stream: false,
                starts_with: false,
            }));
            with(
                "delete of the whole table",
                Op::Delete {
                    table: table.clone(),
                    target: whole,
                },
                true,
                false,
            );
        }
        Op::Unreachable | Op::Tuple(_) => {}
    }
    out.extend(crate::reshape::claims(n));
    out.extend(crate::reshape::shapes(n));
    out
}

/// A column a plan names (a row's read, a write's), named otherwise at its
/// position (other columns' names, none, a NUL) and moved under its name
/// (to other columns, past the table's, to the largest position).
fn renamed_and_moved(column: &ColumnAt) -> Vec<(String, ColumnAt)> {
    let mut out = Vec::new();
    for name in [
        "id", "author", "at", "title", "handle", "name", "weight", "score", "nope", "a\0",
    ] {
        if name != column.name {
            let renamed = ColumnAt {
                name: name.into(),
                ..column.clone()
            };
            out.push((format!("column {:?} → {name:?}", column.name), renamed));
        }
    }
    for position in [0, 1, 2, 3, 99, usize::MAX] {
        if position != column.position {
            let moved = ColumnAt {
                position,
                ..column.clone()
            };
            out.push((
                format!(
                    "column {:?} at {} → {position}",
                    column.name, column.position
                ),
                moved,
            ));
        }
    }
    out
}
