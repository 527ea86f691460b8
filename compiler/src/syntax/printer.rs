//! The pretty-printer: an AST back to canonical RQL source that parses to the same tree.

use super::ast::*;
use super::lexer::escape;
use std::fmt::Write as _;

/// Binding strength, loosest first; a child printed below its context's
/// level gets parentheses.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Expr,
    Or,
    And,
    Compare,
    Pipe,
    Additive,
    Multiplicative,
    Unary,
    Postfix,
    Atom,
}

pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    if let Some(header) = &module.header {
        out.push_str(&format!("module {}\n", header.dotted()));
    }
    for item in &module.items {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&print_item(item));
        out.push('\n');
    }
    out
}

pub fn print_item(item: &Item) -> String {
    match item {
        Item::Import(import) => match &import.names {
            None => format!("import {}", import.path.dotted()),
            Some(names) => format!("import {}.{{{}}}", import.path.dotted(), names_list(names)),
        },
        Item::Table(table) => print_table(table),
        Item::Def(def) => print_def(def),
        Item::Aggregate(aggregate) => print_aggregate(aggregate),
    }
}

fn print_aggregate(aggregate: &Aggregate) -> String {
    // A whole table's (a count or sum with no `by`) is printed without one.
    let by = match aggregate.by.len() {
        0 => String::new(),
        1 => format!(" by {}", aggregate.by[0].name),
        _ => format!(" by ({})", names_list(&aggregate.by)),
    };
    format!(
        "{}aggregate {} = {}({}){by}",
        if aggregate.public { "pub " } else { "" },
        aggregate.name.name,
        aggregate.function.name,
        aggregate.source.dotted()
    )
}

fn names_list(names: &[Ident]) -> String {
    names
        .iter()
        .map(|n| n.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_table(table: &Table) -> String {
    let mut out = String::new();
    if table.public {
        out.push_str("pub ");
    }
    match table.small_max {
        Some((max, _)) => out.push_str(&format!("small table {} max {max} {{\n", table.name.name)),
        None => out.push_str(&format!("table {} {{\n", table.name.name)),
    }
    for member in &table.members {
        out.push_str("  ");
        out.push_str(&print_member(member));
        out.push('\n');
    }
    out.push('}');
    out
}

pub fn print_member(member: &TableMember) -> String {
    match member {
        TableMember::Field(field) => {
            let mut line = format!("{}: {}", field.name.name, print_type(&field.ty));
            if let Some((max_len, _)) = field.max_len {
                line.push_str(&format!(" <= {max_len}"));
            }
            for modifier in &field.modifiers {
                match modifier {
                    FieldModifier::Key(_) => line.push_str(" key"),
                    FieldModifier::Unique(_) => line.push_str(" unique"),
                    FieldModifier::Auto(_) => line.push_str(" auto"),
                    FieldModifier::Ref(path, _) => {
                        line.push_str(&format!(" ref {}", path.dotted()))
                    }
                    FieldModifier::OnDelete(action, _) => {
                        line.push_str(" on delete ");
                        line.push_str(action.text());
                    }
                    FieldModifier::Default(value, _) => {
                        line.push_str(&format!(" = {}", print_expr(value)))
                    }
                }
            }
            line
        }
        TableMember::Key(columns) => format!("key ({})", names_list(&columns.columns)),
        TableMember::Unique(columns) => format!("unique ({})", names_list(&columns.columns)),
        TableMember::Index(index) => {
            let columns: Vec<String> = index
                .columns
                .iter()
                .map(|c| {
                    if c.descending {
                        format!("{} desc", c.name.name)
                    } else {
                        c.name.name.clone()
                    }
                })
                .collect();
            format!("index {} ({})", index.name.name, columns.join(", "))
        }
        TableMember::Bound(bound) => {
            let columns = if bound.columns.len() == 1 {
                bound.columns[0].name.clone()
            } else {
                format!("({})", names_list(&bound.columns))
            };
            format!("bound {columns} <= {}", bound.limit)
        }
    }
}

/// The header of a definition: `pub query name<T>(a: Int <= 5) -> R`.
pub fn print_signature(def: &Def) -> String {
    let mut out = String::new();
    if def.public {
        out.push_str("pub ");
    }
    out.push_str(def.kind.keyword());
    out.push(' ');
    out.push_str(&def.name.name);
    if !def.generics.is_empty() {
        out.push('<');
        out.push_str(&names_list(&def.generics));
        out.push('>');
    }
    write_params(&mut out, &def.params);
    if let Some(ret) = &def.ret {
        out.push_str(" -> ");
        write_type(&mut out, ret, false);
    }
    out
}

/// `(a: Int <= 5, b: [Post])`, written onto `out`.
pub fn write_params(out: &mut String, params: &[Param]) {
    out.push('(');
    for (i, param) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_param(out, param);
    }
    out.push(')');
}

pub fn print_param(param: &Param) -> String {
    let mut out = String::new();
    write_param(&mut out, param);
    out
}

fn write_param(out: &mut String, param: &Param) {
    out.push_str(&param.name.name);
    out.push_str(": ");
    write_type(out, &param.ty, false);
    if let Some((lower, _)) = &param.lower {
        out.push_str(" >= ");
        out.push_str(&lower.to_string());
    }
    if let Some(bound) = &param.bound {
        out.push_str(" <= ");
        write_size(out, bound);
    }
}

fn print_def(def: &Def) -> String {
    format!("{} =\n  {}", print_signature(def), print_expr(&def.body))
}

fn write_size(out: &mut String, size: &SizeBound) {
    match size {
        // Writing to a `String` cannot fail.
        SizeBound::Literal(n, _) => {
            let _ = write!(out, "{n}");
        }
        SizeBound::Name(ident) => out.push_str(&ident.name),
    }
}

pub fn print_type(ty: &Type) -> String {
    let mut out = String::new();
    write_type(&mut out, ty, false);
    out
}

/// Writes a type onto `out` (one buffer for a whole signature: a check
/// writes every definition's). `atom` asks for a form that can take a `?`
/// or sit left of `->`.
fn write_type(out: &mut String, ty: &Type, atom: bool) {
    match &ty.kind {
        TypeKind::Named(name) => out.push_str(&name.name),
        TypeKind::Option(inner) => {
            write_type(out, inner, true);
            out.push('?');
        }
        TypeKind::List(elem, bound) => {
            out.push('[');
            write_type(out, elem, false);
            if let Some(bound) = bound {
                out.push_str("; <= ");
                write_size(out, bound);
            }
            out.push(']');
        }
        // `stream` takes a primary type: `stream T?` reads as `(stream T)?`.
        TypeKind::Stream(inner) => {
            out.push_str("stream ");
            let grouped = matches!(inner.kind, TypeKind::Option(_) | TypeKind::Function(..));
            if grouped {
                out.push('(');
            }
            write_type(out, inner, false);
            if grouped {
                out.push(')');
            }
        }
        TypeKind::Record(fields) => {
            out.push_str("{ ");
            for (i, (name, ty)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&name.name);
                out.push_str(": ");
                write_type(out, ty, false);
            }
            out.push_str(" }");
        }
        TypeKind::Function(params, ret) => {
            if atom {
                out.push('(');
            }
            match params.as_slice() {
                [single] => write_type(out, single, true),
                // `(A, B) -> C` already starts with a parenthesis of its own.
                many => {
                    out.push('(');
                    for (i, param) in many.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_type(out, param, false);
                    }
                    out.push(')');
                }
            }
            out.push_str(" -> ");
            write_type(out, ret, false);
            if atom {
                out.push(')');
            }
        }
    }
}

pub fn print_expr(expr: &Expr) -> String {
    print_at(expr, Level::Expr)
}

fn level_of(expr: &Expr) -> Level {
    match &expr.kind {
        ExprKind::Lambda(..) | ExprKind::Delete(_) => Level::Expr,
        ExprKind::Binary(BinaryOp::Or, ..) => Level::Or,
        ExprKind::Binary(BinaryOp::And, ..) => Level::And,
        ExprKind::Binary(op, ..) if op.is_comparison() || *op == BinaryOp::In => Level::Compare,
        ExprKind::Binary(BinaryOp::StartsWith, ..) => Level::Postfix,
        ExprKind::Range(..) => Level::Compare,
        ExprKind::Pipe(..) => Level::Pipe,
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => Level::Additive,
        ExprKind::Binary(..) => Level::Multiplicative,
        ExprKind::Unary(..) => Level::Unary,
        ExprKind::Field(..) | ExprKind::Call(..) | ExprKind::Index(..) => Level::Postfix,
        _ => Level::Atom,
    }
}

fn print_at(expr: &Expr, context: Level) -> String {
    let text = print_bare(expr);
    if level_of(expr) < context {
        format!("({text})")
    } else {
        text
    }
}

fn args(exprs: &[Expr]) -> String {
    exprs.iter().map(print_expr).collect::<Vec<_>>().join(", ")
}

fn print_bare(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Float(x) => format!("{x:?}"),
        ExprKind::Str(s) => format!("\"{}\"", escape(s)),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::None => "none".to_string(),
        ExprKind::Name(ident) => ident.name.clone(),
        ExprKind::Record(fields) => print_record(fields),
        ExprKind::List(items) => format!("[{}]", args(items)),
        ExprKind::Field(base, field) => {
            format!("{}.{}", print_at(base, Level::Postfix), field.name)
        }
        ExprKind::Call(callee, arguments) => {
            format!("{}({})", print_at(callee, Level::Postfix), args(arguments))
        }
        ExprKind::Index(base, arguments) => {
            format!("{}[{}]", print_at(base, Level::Postfix), args(arguments))
        }
        ExprKind::Pipe(input, stage) => format!(
            "{} |> {}",
            print_at(input, Level::Pipe),
            print_at(stage, Level::Postfix)
        ),
        ExprKind::Lambda(params, body) => match params.as_slice() {
            [single] => format!("{} => {}", single.name, print_expr(body)),
            many => format!("({}) => {}", names_list(many), print_expr(body)),
        },
        // `-(-k)` as written: `--k` reads as a typo (and a negative
        // literal, `-(-9223372036854775808)`, is one token of its own).
        ExprKind::Unary(UnaryOp::Neg, operand)
            if match operand.kind {
                ExprKind::Unary(UnaryOp::Neg, _) => true,
                ExprKind::Int(n) => n < 0,
                ExprKind::Float(x) => x.is_sign_negative(),
                _ => false,
            } =>
        {
            format!("-({})", print_expr(operand))
        }
        ExprKind::Unary(op @ (UnaryOp::Neg | UnaryOp::Not), operand) => {
            format!("{}{}", op.written(), print_at(operand, Level::Unary))
        }
        ExprKind::Unary(op, operand) => format!("{}({})", op.written(), print_expr(operand)),
        ExprKind::Binary(BinaryOp::StartsWith, a, b) => {
            format!("starts_with({}, {})", print_expr(a), print_expr(b))
        }
        ExprKind::Binary(op, a, b) => {
            let (left, right) = match level_of(expr) {
                Level::Compare => (Level::Pipe, Level::Pipe),
                Level::Or => (Level::Or, Level::And),
                Level::And => (Level::And, Level::Compare),
                Level::Additive => (Level::Additive, Level::Multiplicative),
                _ => (Level::Multiplicative, Level::Unary),
            };
            format!(
                "{} {} {}",
                print_at(a, left),
                op.symbol(),
                print_at(b, right)
            )
        }
        ExprKind::Range(a, b) => {
            format!("{}..{}", print_at(a, Level::Pipe), print_at(b, Level::Pipe))
        }
        ExprKind::Tuple(items) => format!(
            "({})",
            items.iter().map(print_expr).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::If(cond, then, otherwise) => {
            let otherwise = match &otherwise.kind {
                ExprKind::If(..) => print_bare(otherwise),
                _ => print_body(otherwise),
            };
            format!(
                "if {} {} else {}",
                print_expr(cond),
                print_body(then),
                otherwise
            )
        }
        ExprKind::Block(stmts, result) => print_block(stmts, result),
        ExprKind::Insert(table, row) => format!("insert {} {}", table.dotted(), print_bare(row)),
        ExprKind::Upsert(table, row) => format!("upsert {} {}", table.dotted(), print_bare(row)),
        ExprKind::Update(target, row, changes) => format!(
            "update {}{} {}",
            print_at(target, Level::Postfix),
            row.as_ref()
                .map(|r| format!(" as {}", r.name))
                .unwrap_or_default(),
            print_bare(changes)
        ),
        ExprKind::Delete(target) => format!("delete {}", print_at(target, Level::Postfix)),
        ExprKind::Error => "<error>".to_string(),
    }
}

fn print_record(fields: &[RecordField]) -> String {
    if fields.is_empty() {
        return "{}".to_string();
    }
    let fields: Vec<String> = fields
        .iter()
        .map(|f| {
            if f.shorthand {
                f.name.name.clone()
            } else if let Some(step) = f.step {
                format!("{} {} {}", f.name.name, step.text(), print_expr(&f.value))
            } else {
                format!("{}: {}", f.name.name, print_expr(&f.value))
            }
        })
        .collect();
    format!("{{ {} }}", fields.join(", "))
}

fn print_stmts(stmts: &[Stmt]) -> String {
    let mut out = String::new();
    for stmt in stmts {
        match stmt {
            Stmt::Let { name, ty, value } => {
                out.push_str(&format!("let {}", name.name));
                if let Some(ty) = ty {
                    out.push_str(&format!(": {}", print_type(ty)));
                }
                out.push_str(&format!(" = {}; ", print_expr(value)));
            }
            Stmt::Expr(expr) => out.push_str(&format!("{}; ", print_expr(expr))),
        }
    }
    out
}

fn print_block(stmts: &[Stmt], result: &Expr) -> String {
    format!("{{ {}{} }}", print_stmts(stmts), print_expr(result))
}

/// An `if` branch: its braces hold statements and a value directly.
fn print_body(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Block(stmts, result) => print_block(stmts, result),
        _ => format!("{{ {} }}", print_expr(expr)),
    }
}

#[cfg(test)]
mod tests {
    use super::print_signature;
    use crate::syntax::ast::Item;

    /// Each signature printed back as it was written: every type form
    /// (options, bounded lists, records, streams, functions of one and of
    /// several parameters, a function as an option's or a function's
    /// operand), where a wrong parenthesis would change the meaning.
    #[test]
    fn signatures_print_as_written() {
        let signatures = [
            "fn a(x: Int?, y: [Int; <= 5], z: [String]) -> Int",
            "fn b(r: { a: Int, b: [Post]? }) -> { n: Int }",
            "fn c(s: stream Int, t: stream (Int?), u: stream (Int -> Int)) -> stream Post",
            "fn d<T>(f: T -> Int, g: (T, Int) -> Bool, h: (Int -> Int) -> Int) -> (Int -> Int)?",
            "pub query e(n: Int <= 100, xs: [Int; <= n]) -> [Int]",
        ];
        for signature in signatures {
            let text = format!("module m\n\n{signature} = 1\n");
            let (module, diagnostics) = crate::syntax::parse("t.rq", &text);
            assert!(diagnostics.is_empty(), "{signature}: {diagnostics:?}");
            let Some(Item::Def(def)) = module.items.first() else {
                panic!("{signature}: no definition");
            };
            assert_eq!(print_signature(def), signature);
        }
    }

    /// A negation of a negation keeps its parenthesis (`--k` reads as a
    /// typo); a negated literal or name needs none.
    #[test]
    fn negations_print_as_written() {
        for expression in [
            "-(-k)",
            "-5 + k",
            "-k",
            "-(k + 1)",
            "!(!b)",
            "-(-5)",
            "-(-9223372036854775808)",
            "-(-2.5)",
        ] {
            let text = format!(
                "module m

fn f(k: Int, b: Bool) = {expression}\n"
            );
            let (module, diagnostics) = crate::syntax::parse("t.rq", &text);
            assert!(diagnostics.is_empty(), "{expression}: {diagnostics:?}");
            let Some(Item::Def(def)) = module.items.first() else {
                panic!("{expression}: no definition");
            };
            let printed = super::print_expr(&def.body);
            let expected = if expression == "!(!b)" {
                "!!b"
            } else {
                expression
            };
            assert_eq!(printed, expected);
        }
    }
}
