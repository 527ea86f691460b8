//! The nesting limit: a definition or table nested deeper than [`MAX_DEPTH`] levels is E0008 and left out, so no later pass (each of them recursive) meets it.
//!
//! The parser is a table-driven LR parser and builds any depth; the passes
//! after it recurse over the tree. Rather than make every one of them
//! iterative, the tree is measured here without recursion, and what is too
//! deep is taken apart without recursion too (dropping a deep tree of boxes
//! would recurse).

use super::ast::{Def, Expr, ExprKind, Item, Module, Stmt, TableMember, Type, TypeKind};
use crate::diagnostics::Diagnostic;
use crate::Span;

/// The deepest nesting of expressions or types a definition may have. Far
/// beyond what people write (a sum of a thousand terms nests a thousand
/// deep); low enough that every pass runs in a thread's default stack.
pub const MAX_DEPTH: usize = 1000;

/// Leaves out of `module` each item nested deeper than [`MAX_DEPTH`], with
/// an E0008 diagnostic for each.
pub fn limit_depth(file: &str, module: &mut Module, diagnostics: &mut Vec<Diagnostic>) {
    let mut kept = Vec::with_capacity(module.items.len());
    for item in std::mem::take(&mut module.items) {
        match too_deep(&item) {
            Some(span) => {
                diagnostics.push(nested_too_deeply(file, span));
                dismantle_item(item);
            }
            None => kept.push(item),
        }
    }
    module.items = kept;
}

/// A lone expression (the REPL's input): `None` with E0008 when too deep.
pub fn limit_expr_depth(file: &str, expr: Expr, diagnostics: &mut Vec<Diagnostic>) -> Option<Expr> {
    match deepest(&[Node::Expr(&expr)]) {
        Some(span) => {
            diagnostics.push(nested_too_deeply(file, span));
            dismantle(vec![expr], Vec::new());
            None
        }
        None => Some(expr),
    }
}

fn nested_too_deeply(file: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        "E0008",
        format!("this is nested more than {MAX_DEPTH} levels deep"),
        file,
        span,
        "too deep",
    )
    .with_help("split it with `let` bindings or helper functions; a long chain of `+` or `|>` nests once per link")
}

enum Node<'a> {
    Expr(&'a Expr),
    Type(&'a Type),
}

/// Where an item first passes the limit, if it does.
fn too_deep(item: &Item) -> Option<Span> {
    let mut roots = Vec::new();
    match item {
        Item::Def(Def {
            params, ret, body, ..
        }) => {
            roots.extend(params.iter().map(|p| Node::Type(&p.ty)));
            roots.extend(ret.iter().map(Node::Type));
            roots.push(Node::Expr(body));
        }
        Item::Table(table) => {
            for member in &table.members {
                if let TableMember::Field(field) = member {
                    roots.push(Node::Type(&field.ty));
                }
            }
        }
        Item::Import(_) | Item::Aggregate(_) => {}
    }
    deepest(&roots)
}

/// The span of a node deeper than the limit under `roots`, if any.
fn deepest(roots: &[Node<'_>]) -> Option<Span> {
    let mut work: Vec<(Node<'_>, usize)> = roots
        .iter()
        .map(|node| {
            let node = match node {
                Node::Expr(e) => Node::Expr(e),
                Node::Type(t) => Node::Type(t),
            };
            (node, 1)
        })
        .collect();
    while let Some((node, depth)) = work.pop() {
        if depth > MAX_DEPTH {
            return Some(match node {
                Node::Expr(e) => e.span,
                Node::Type(t) => t.span,
            });
        }
        match node {
            Node::Expr(expr) => push_expr_children(expr, depth + 1, &mut work),
            Node::Type(ty) => push_type_children(ty, depth + 1, &mut work),
        }
    }
    None
}

/// Visits every expression under `root` (types are skipped), without
/// recursion.
pub fn each_expr<'a>(root: &'a Expr, mut visit: impl FnMut(&'a Expr)) {
    let mut work = vec![(Node::Expr(root), 0)];
    while let Some((node, depth)) = work.pop() {
        if let Node::Expr(expr) = node {
            visit(expr);
            push_expr_children(expr, depth + 1, &mut work);
        }
    }
}

fn push_expr_children<'a>(expr: &'a Expr, depth: usize, work: &mut Vec<(Node<'a>, usize)>) {
    // A `let`'s declared type is nested too.
    if let ExprKind::Block(stmts, _) = &expr.kind {
        for stmt in stmts {
            if let Stmt::Let { ty: Some(ty), .. } = stmt {
                work.push((Node::Type(ty), depth));
            }
        }
    }
    expr.each_child(&mut |e| work.push((Node::Expr(e), depth)));
}

fn push_type_children<'a>(ty: &'a Type, depth: usize, work: &mut Vec<(Node<'a>, usize)>) {
    match &ty.kind {
        TypeKind::Named(_) => {}
        TypeKind::Option(t) | TypeKind::List(t, _) | TypeKind::Stream(t) => {
            work.push((Node::Type(t), depth))
        }
        TypeKind::Record(fields) => fields
            .iter()
            .for_each(|(_, t)| work.push((Node::Type(t), depth))),
        TypeKind::Function(params, ret) => {
            params
                .iter()
                .for_each(|t| work.push((Node::Type(t), depth)));
            work.push((Node::Type(ret), depth));
        }
    }
}

/// Drops an item left out, without recursing into its depth.
fn dismantle_item(item: Item) {
    match item {
        Item::Def(def) => {
            let types = def
                .params
                .into_iter()
                .map(|p| p.ty)
                .chain(def.ret)
                .collect();
            dismantle(vec![def.body], types);
        }
        Item::Table(table) => {
            let types = table
                .members
                .into_iter()
                .filter_map(|m| match m {
                    TableMember::Field(field) => Some(field.ty),
                    _ => None,
                })
                .collect();
            dismantle(Vec::new(), types);
        }
        Item::Import(_) | Item::Aggregate(_) => {}
    }
}

/// Drops trees node by node: each node's children are moved onto the work
/// lists before it is dropped, so no drop recurses.
fn dismantle(mut exprs: Vec<Expr>, mut types: Vec<Type>) {
    loop {
        if let Some(expr) = exprs.pop() {
            let mut take = |e: Box<Expr>| exprs.push(*e);
            match expr.kind {
                ExprKind::Record(fields) => exprs.extend(fields.into_iter().map(|f| f.value)),
                ExprKind::List(items) | ExprKind::Tuple(items) => exprs.extend(items),
                ExprKind::Field(e, _)
                | ExprKind::Lambda(_, e)
                | ExprKind::Unary(_, e)
                | ExprKind::Insert(_, e)
                | ExprKind::Upsert(_, e)
                | ExprKind::Delete(e) => take(e),
                ExprKind::Call(f, args) | ExprKind::Index(f, args) => {
                    take(f);
                    exprs.extend(args);
                }
                ExprKind::Pipe(a, b)
                | ExprKind::Binary(_, a, b)
                | ExprKind::Range(a, b)
                | ExprKind::Update(a, _, b) => {
                    take(a);
                    take(b);
                }
                ExprKind::If(c, a, b) => {
                    take(c);
                    take(a);
                    take(b);
                }
                ExprKind::Block(stmts, last) => {
                    for stmt in stmts {
                        match stmt {
                            Stmt::Let { ty, value, .. } => {
                                types.extend(ty);
                                take(Box::new(value));
                            }
                            Stmt::Expr(e) => take(Box::new(e)),
                        }
                    }
                    take(last);
                }
                _ => {}
            }
        } else if let Some(ty) = types.pop() {
            match ty.kind {
                TypeKind::Named(_) => {}
                TypeKind::Option(t) | TypeKind::List(t, _) | TypeKind::Stream(t) => types.push(*t),
                TypeKind::Record(fields) => types.extend(fields.into_iter().map(|(_, t)| t)),
                TypeKind::Function(params, ret) => {
                    types.extend(params);
                    types.push(*ret);
                }
            }
        } else {
            return;
        }
    }
}
