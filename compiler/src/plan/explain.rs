//! Printing a plan as a tree: each operator, its access path and its bound,
//! and with `--analyze` what it actually read.

use rqc_plan::{
    BinOp, ColumnAt, Combinator, Entry, EntryKind, Node, NodeStats, Op, ParamType, RangeEnd,
    Schema, Shape, UnOp, Value,
};

use super::explain_upkeep::{cascades, describe_aggregate, insert_checks, upkeep};

/// The plan tree of `entry`, a program's entry point over `schema`.
pub fn explain(entry: &Entry, schema: &Schema) -> String {
    explain_with(entry, schema, None)
}

/// The plan tree; with `stats` (indexed by node id), actual reads beside
/// each bound.
pub fn explain_with(entry: &Entry, schema: &Schema, stats: Option<&[NodeStats]>) -> String {
    let params: Vec<String> = entry
        .params
        .iter()
        .map(|p| match (&p.ty, p.max) {
            // Ends as declared: `n: Int >= 0 <= 10`.
            (ParamType::Scalar(ty), max) if p.min.is_some() || max.is_some() => {
                let mut text = format!("{}: {}", p.name, ty.name());
                if let Some(min) = p.min {
                    text.push_str(&format!(" >= {min}"));
                }
                if let Some(max) = max {
                    text.push_str(&format!(" <= {max}"));
                }
                text
            }
            (ParamType::List(ty), Some(max)) => format!("{}: [{}; <= {max}]", p.name, ty.name()),
            (ty @ ParamType::Records(_), Some(max)) => {
                let name = ty.name();
                format!("{}: {}; <= {max}]", p.name, &name[..name.len() - 1])
            }
            (ty, _) => format!("{}: {}", p.name, ty.name()),
        })
        .collect();
    let kind = match entry.kind {
        EntryKind::Query => "query",
        EntryKind::Mutation => "mutation",
    };
    let mut out = format!(
        "{kind} {}({})  seeks ≤ {}  rows ≤ {}  round trips ≤ {}\n",
        entry.name,
        params.join(", "),
        entry.bound.seeks,
        entry.bound.rows,
        entry.bound.round_trips
    );
    let printer = Printer {
        entry,
        schema,
        stats,
    };
    printer.tree(&entry.root, "", true, &mut out);
    out
}

/// What a live subscription to `entry` listens to, from its plan: each
/// operator that reads, and what part of its tree a run of it reads; a
/// commit that writes none of those keys does not touch the subscription
/// (spec/live.md). Empty for a mutation.
pub fn listens(entry: &Entry, schema: &Schema) -> String {
    if entry.kind != EntryKind::Query {
        return String::new();
    }
    let printer = Printer {
        entry,
        schema,
        stats: None,
    };
    let mut reads = Vec::new();
    entry.root.walk(&mut |node| {
        let what = match &node.op {
            Op::Get { .. } | Op::GetUnique { .. } | Op::Aggregate { .. } => "one key",
            Op::Scan { .. } => "a range, up to the last entry read when a limit stopped it",
            _ => return,
        };
        let (label, _) = printer.describe(node);
        reads.push(format!("  {label}: {what}\n"));
    });
    let mut out = format!(
        "live: a subscription listens to the key ranges its last run read, at most {} (one per seek):\n",
        entry.bound.seeks
    );
    out.extend(reads);
    out.push_str(&format!(
        "a commit that writes into one re-runs it (seeks ≤ {}  rows ≤ {}); any other commit costs it nothing\n",
        entry.bound.seeks, entry.bound.rows
    ));
    out
}

struct Printer<'a> {
    entry: &'a Entry,
    schema: &'a Schema,
    stats: Option<&'a [NodeStats]>,
}

impl Printer<'_> {
    fn tree(&self, node: &Node, indent: &str, last: bool, out: &mut String) {
        let (label, children) = self.describe(node);
        out.push_str(indent);
        out.push_str(if last { "└─ " } else { "├─ " });
        out.push_str(&label);
        // Making a stream reads nothing: its consumer's bound says what
        // reading it may cost.
        let unread = node.bound.is_some_and(|b| b.seeks == 0 && b.rows == 0)
            && matches!(
                node.op,
                Op::Scan { stream: true, .. }
                    | Op::Combinator(Combinator::Map | Combinator::Reverse, _, _)
                    | Op::Combinator(Combinator::SortBy { .. }, Shape::Stream, _)
            );
        if let Some(bound) = node.bound.filter(|_| !unread) {
            out.push_str(&format!(
                "  seeks ≤ {}  rows ≤ {}  round trips ≤ {}",
                bound.seeks, bound.rows, bound.round_trips
            ));
        }
        if let Some(stats) = self.stats.and_then(|s| s.get(node.id as usize)) {
            if stats.evaluations > 0 && (node.bound.is_some() || is_access(node)) {
                out.push_str(&format!(
                    "  (actual: seeks {} rows {} round trips {} in {} run{})",
                    stats.seeks,
                    stats.rows,
                    stats.round_trips,
                    stats.evaluations,
                    if stats.evaluations == 1 { "" } else { "s" }
                ));
            }
        }
        out.push('\n');
        let child_indent = format!("{indent}{}", if last { "   " } else { "│  " });
        for (i, child) in children.iter().enumerate() {
            self.tree(child, &child_indent, i + 1 == children.len(), out);
        }
    }

    /// A line for an operator, and the children worth their own lines.
    fn describe<'n>(&self, node: &'n Node) -> (String, Vec<&'n Node>) {
        let e = |n: &Node| self.expr(n);
        let ops = |items: &'n [Node]| items.iter().filter(|n| has_operator(n)).collect::<Vec<_>>();
        match &node.op {
            Op::Now => ("Now (the transaction's time)".to_string(), Vec::new()),
            Op::Get { table, key } => (format!("Get {table} key=[{}]", list(key, &e)), ops(key)),
            // A whole table's (no `by`) has no group to show.
            Op::Aggregate { aggregate, key } if key.is_empty() => (
                format!("Aggregate {}", describe_aggregate(self.schema, aggregate)),
                Vec::new(),
            ),
            Op::Aggregate { aggregate, key } => (
                format!(
                    "Aggregate {} [{}]",
                    describe_aggregate(self.schema, aggregate),
                    list(key, &e)
                ),
                ops(key),
            ),
            Op::GetUnique {
                table,
                index,
                values,
            } => (
                format!("GetUnique {table}.{index} [{}] → {table}", list(values, &e)),
                ops(values),
            ),
            Op::Scan {
                table,
                index,
                prefix,
                lower,
                upper,
                stream,
                starts_with,
            } => {
                let path = match index {
                    Some(index) => format!("{table}.{index}"),
                    None => format!("{table} (key)"),
                };
                // A stream reads nothing itself: its consumer reads from it.
                let kind = if *stream { "Stream" } else { "Scan" };
                let mut text = format!("{kind} {path} prefix=[{}]", list(prefix, &e));
                // A tuple range is shown as written, its columns named.
                let tuple = |end: &RangeEnd, op: &str| -> Option<String> {
                    let Op::Tuple(values) = &end.value.op else {
                        return None;
                    };
                    let table = self.schema.tables.iter().find(|t| &t.name == table)?;
                    let columns = match index {
                        Some(index) => &table.index(index)?.columns,
                        None => &table.key,
                    };
                    let names: Vec<&str> = columns
                        .iter()
                        .skip(prefix.len())
                        .take(values.len())
                        .map(|&c| table.columns[c].name.as_str())
                        .collect();
                    Some(format!(
                        " where ({}) {op} ({})",
                        names.join(", "),
                        list(values, &e)
                    ))
                };
                let lower_tuple = lower
                    .as_ref()
                    .and_then(|l| tuple(l, if l.inclusive { ">=" } else { ">" }));
                let upper_tuple = upper
                    .as_ref()
                    .and_then(|u| tuple(u, if u.inclusive { "<=" } else { "<" }));
                if let Some(shown) = lower_tuple.or(upper_tuple) {
                    text.push_str(&shown);
                    return (text, ops(prefix));
                }
                if let (true, Some(l)) = (*starts_with, lower) {
                    text.push_str(&format!(" starts_with {}", e(&l.value)));
                } else if let Some(l) = lower {
                    text.push_str(&format!(
                        " from {}{}",
                        e(&l.value),
                        if l.inclusive { " incl" } else { " excl" }
                    ));
                }
                if let Some(u) = upper {
                    text.push_str(&format!(
                        " to {}{}",
                        e(&u.value),
                        if u.inclusive { " incl" } else { " excl" }
                    ));
                }
                (text, ops(prefix))
            }
            Op::Combinator(c, shape, args) => {
                let mut text = c.name().to_string();
                if let Combinator::SortBy { descending } = c {
                    text.push_str(if *descending { " desc" } else { " asc" });
                }
                // On a stream both choose which end its range is read from.
                if *shape == Shape::Stream
                    && matches!(c, Combinator::Reverse | Combinator::SortBy { .. })
                {
                    text.push_str(" (read order)");
                }
                if rqc_plan::batch::reads_ahead(node) {
                    text.push_str(" (batched)");
                }
                let (operators, inline): (Vec<&Node>, Vec<&Node>) =
                    args.iter().partition(|n| has_operator(n));
                if !inline.is_empty() {
                    text.push_str(&format!(
                        " {}",
                        inline.iter().map(|n| e(n)).collect::<Vec<_>>().join(", ")
                    ));
                }
                (text, operators)
            }
            Op::TopK {
                input,
                key,
                descending,
                k,
            } => (
                format!(
                    "TopK {} k={} by {}{}",
                    if *descending { "desc" } else { "asc" },
                    e(k),
                    e(key),
                    if rqc_plan::batch::reads_ahead(node) {
                        " (batched)"
                    } else {
                        ""
                    }
                ),
                vec![&**input],
            ),
            Op::Insert {
                table,
                row,
                generated,
            } => (
                format!(
                    "Insert {table} [{}]{} (checks: {}){}",
                    list(row, &e),
                    if *generated {
                        " (key: the next, in place of none)"
                    } else {
                        ""
                    },
                    insert_checks(self.schema, table),
                    upkeep(self.schema, table, None)
                ),
                ops(row),
            ),
            Op::Upsert { table, columns } => (
                format!(
                    "Upsert {table} [{}] (by key: an insert, checks: {}; or an update){}",
                    columns
                        .iter()
                        .map(|(c, v)| format!("{}={}", c.name, e(v)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    insert_checks(self.schema, table),
                    upkeep(self.schema, table, None)
                ),
                columns
                    .iter()
                    .map(|(_, n)| n)
                    .filter(|n| has_operator(n))
                    .collect(),
            ),
            Op::Update {
                table,
                target,
                changes,
                row,
            } => (
                format!(
                    "Update {table}{} set {}{}",
                    row.as_deref()
                        .map(|r| r.split('#').next().unwrap_or(r))
                        .filter(|r| *r != crate::check::STEPPED_ROW)
                        .map(|r| format!(" as {r}"))
                        .unwrap_or_default(),
                    changes
                        .iter()
                        .map(|(c, v)| match stepped(row.as_deref(), c.position, v) {
                            Some((op, by)) => format!("{} {op} {}", c.name, e(by)),
                            None => format!("{}={}", c.name, e(v)),
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    upkeep(
                        self.schema,
                        table,
                        Some(
                            &changes
                                .iter()
                                .map(|(c, _)| c.name.as_str())
                                .collect::<Vec<_>>()
                        )
                    )
                ),
                // The target, then each change that reads or writes.
                std::iter::once(&**target)
                    .chain(changes.iter().map(|(_, n)| n).filter(|n| has_operator(n)))
                    .collect(),
            ),
            Op::Delete { table, target } => (
                format!(
                    "Delete {table}{}{}",
                    upkeep(self.schema, table, None),
                    cascades(self.schema, table)
                ),
                vec![&**target],
            ),
            Op::Lambda(params, body) => (format!("λ {} =>", params.join(", ")), vec![&**body]),
            Op::Let(name, value, body) => (
                format!("Let {}", name.split('#').next().unwrap_or(name)),
                vec![&**value, &**body],
            ),
            Op::If(c, a, b) => (format!("If {}", e(c)), vec![&**a, &**b]),
            Op::Seq(items) => ("Sequence".to_string(), items.iter().collect()),
            Op::Record(fields) => (
                format!(
                    "Record {{ {} }}",
                    fields
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                fields
                    .iter()
                    .map(|(_, n)| n)
                    .filter(|n| has_operator(n))
                    .collect(),
            ),
            Op::List(items) => ("List".to_string(), items.iter().collect()),
            Op::Tuple(items) => ("Tuple".to_string(), items.iter().collect()),
            Op::Apply(f, args) => (
                "Apply".to_string(),
                std::iter::once(&**f).chain(args.iter()).collect(),
            ),
            // A row's column shows as the field it is in the source.
            Op::Field(base, name) | Op::Column(base, ColumnAt { name, .. }) => {
                (format!("Field .{name}"), vec![&**base])
            }
            Op::Limit { .. } => (format!("Limit {}", e(node)), ops_of(node)),
            Op::Unreachable => ("Unreachable".to_string(), Vec::new()),
            Op::Unary(..) | Op::Binary(..) | Op::Const(_) | Op::Param(_) | Op::Var(_) => {
                (format!("Value {}", e(node)), ops_of(node))
            }
        }
    }

    /// An expression as text (operators inside show as `…`).
    fn expr(&self, node: &Node) -> String {
        match &node.op {
            Op::Const(v) => v.to_string(),
            Op::Now => "now()".to_string(),
            Op::Param(i) => self
                .entry
                .params
                .get(*i)
                .map(|p| format!("${}", p.name))
                .unwrap_or_else(|| format!("${i}")),
            Op::Var(name) => name.split('#').next().unwrap_or(name).to_string(),
            Op::Field(base, name) | Op::Column(base, ColumnAt { name, .. }) => {
                format!("{}.{name}", self.expr(base))
            }
            Op::Unary(UnOp::Neg, a) => format!("-{}", self.expr(a)),
            Op::Unary(UnOp::Not, a) => format!("!{}", self.expr(a)),
            Op::Unary(op, a) => {
                let name = match op {
                    UnOp::Length => "length",
                    UnOp::Lower => "lower",
                    UnOp::Upper => "upper",
                    _ => "float",
                };
                format!("{name}({})", self.expr(a))
            }
            Op::Binary(BinOp::StartsWith, a, b) => {
                format!("starts_with({}, {})", self.expr(a), self.expr(b))
            }
            Op::Binary(op, a, b) => format!("({} {} {})", self.expr(a), symbol(*op), self.expr(b)),
            Op::Lambda(params, body) => {
                let names: Vec<&str> = params
                    .iter()
                    .map(|p| p.split('#').next().unwrap_or(p))
                    .collect();
                format!("{} => {}", names.join(", "), self.expr(body))
            }
            Op::Record(fields) => format!(
                "{{ {} }}",
                fields
                    .iter()
                    .map(|(n, v)| format!("{n}: {}", self.expr(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Op::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Op::Tuple(items) => format!(
                "({})",
                items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Op::Limit { count, max } => match &count.op {
                Op::Const(Value::Int(n)) if *n as u64 == *max => n.to_string(),
                _ => format!("{} (max {max})", self.expr(count)),
            },
            Op::Combinator(c, _, args) => format!(
                "{}({})",
                // As the program wrote it (`unwrap_or`, `sort_by`).
                rqc_plan::Builtin::of(*c).map_or(c.name(), rqc_plan::Builtin::name),
                args.iter()
                    .map(|a| self.expr(a))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "…".to_string(),
        }
    }
}

/// `c += e` (or `-=`) where an update's change of the column at `column`
/// is the row's own value plus (or minus) `e`: the operator and `e`.
fn stepped<'n>(
    row: Option<&str>,
    column: usize,
    change: &'n Node,
) -> Option<(&'static str, &'n Node)> {
    let Op::Binary(op, stored, by) = &change.op else {
        return None;
    };
    let Op::Column(base, read) = &stored.op else {
        return None;
    };
    let step = match op {
        BinOp::Add => "+=",
        BinOp::Sub => "-=",
        _ => return None,
    };
    (matches!(&base.op, Op::Var(name) if Some(name.as_str()) == row) && read.position == column)
        .then_some((step, &**by))
}

fn list(items: &[Node], e: &dyn Fn(&Node) -> String) -> String {
    items.iter().map(e).collect::<Vec<_>>().join(", ")
}

fn ops_of(node: &Node) -> Vec<&Node> {
    node.children()
        .into_iter()
        .filter(|n| has_operator(n))
        .collect()
}

fn is_access(node: &Node) -> bool {
    matches!(
        node.op,
        Op::Get { .. } | Op::GetUnique { .. } | Op::Scan { .. } | Op::Aggregate { .. }
    )
}

/// Whether a subtree reads or writes (and so deserves its own lines).
fn has_operator(node: &Node) -> bool {
    let mut found = false;
    node.walk(&mut |n| {
        if matches!(
            n.op,
            Op::Get { .. }
                | Op::GetUnique { .. }
                | Op::Aggregate { .. }
                | Op::Scan { .. }
                | Op::Insert { .. }
                | Op::Update { .. }
                | Op::Upsert { .. }
                | Op::Delete { .. }
                | Op::TopK { .. }
        ) || matches!(n.op, Op::Combinator(..))
        {
            found = true;
        }
    });
    found
}

fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Or => "||",
        BinOp::And => "&&",
        BinOp::Eq => "==",
        BinOp::NotEq => "!=",
        BinOp::Lt => "<",
        BinOp::LtEq => "<=",
        BinOp::Gt => ">",
        BinOp::GtEq => ">=",
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::StartsWith => "starts_with",
    }
}
