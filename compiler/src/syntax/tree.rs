//! A readable, indented dump of the AST for the parse-tree snapshot tests.

use super::ast::*;
use super::printer::{print_member, print_param, print_type};
use crate::span::Span;

/// Dumps the tree one node a line; `spans` adds each node's byte range.
pub fn dump_module(module: &Module, spans: bool) -> String {
    let mut dump = Dump {
        out: String::new(),
        spans,
    };
    if let Some(header) = &module.header {
        dump.line(0, &format!("module {}", header.dotted()), header.span);
    }
    for item in &module.items {
        dump.item(item);
    }
    dump.out
}

struct Dump {
    out: String,
    spans: bool,
}

impl Dump {
    fn line(&mut self, depth: usize, text: &str, span: Span) {
        self.out.push_str(&"  ".repeat(depth));
        self.out.push_str(text);
        if self.spans {
            self.out
                .push_str(&format!(" @{}..{}", span.start, span.end));
        }
        self.out.push('\n');
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Import(import) => {
                let names = match &import.names {
                    None => String::new(),
                    Some(names) => {
                        let names: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
                        format!(".{{{}}}", names.join(", "))
                    }
                };
                self.line(
                    0,
                    &format!("import {}{names}", import.path.dotted()),
                    import.span,
                );
            }
            Item::Aggregate(aggregate) => {
                self.line(
                    0,
                    &crate::syntax::printer::print_item(&Item::Aggregate(aggregate.clone())),
                    aggregate.span,
                );
            }
            Item::Table(table) => {
                let head = match table.small_max {
                    Some((max, _)) => format!("small table {} max {max}", table.name.name),
                    None => format!("table {}", table.name.name),
                };
                let head = if table.public {
                    format!("pub {head}")
                } else {
                    head
                };
                self.line(0, &head, table.span);
                for member in &table.members {
                    let span = match member {
                        TableMember::Field(f) => f.span,
                        TableMember::Key(c) | TableMember::Unique(c) => c.span,
                        TableMember::Index(i) => i.span,
                        TableMember::Bound(b) => b.span,
                    };
                    self.line(1, &print_member(member), span);
                }
            }
            Item::Def(def) => {
                let mut head = format!(
                    "{}{} {}",
                    if def.public { "pub " } else { "" },
                    def.kind.keyword(),
                    def.name.name
                );
                if !def.generics.is_empty() {
                    let names: Vec<&str> = def.generics.iter().map(|n| n.name.as_str()).collect();
                    head.push_str(&format!("<{}>", names.join(", ")));
                }
                self.line(0, &head, def.span);
                for param in &def.params {
                    self.line(1, &format!("param {}", print_param(param)), param.span);
                }
                if let Some(ret) = &def.ret {
                    self.line(1, &format!("returns {}", print_type(ret)), ret.span);
                }
                self.expr(1, &def.body);
            }
        }
    }

    fn expr(&mut self, depth: usize, expr: &Expr) {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Int(n) => self.line(depth, &format!("Int {n}"), span),
            ExprKind::Float(x) => self.line(depth, &format!("Float {x:?}"), span),
            ExprKind::Str(s) => self.line(depth, &format!("Str {s:?}"), span),
            ExprKind::Bool(b) => self.line(depth, &format!("Bool {b}"), span),
            ExprKind::None => self.line(depth, "None", span),
            ExprKind::Name(ident) => self.line(depth, &format!("Name {}", ident.name), span),
            ExprKind::Record(fields) => {
                self.line(depth, "Record", span);
                for field in fields {
                    if field.shorthand {
                        self.line(
                            depth + 1,
                            &format!("{} (shorthand)", field.name.name),
                            field.name.span,
                        );
                    } else {
                        let op = field.step.map_or(":", |step| step.text());
                        let label = match field.step {
                            Some(_) => format!("{} {op}", field.name.name),
                            None => format!("{}{op}", field.name.name),
                        };
                        self.line(depth + 1, &label, field.name.span);
                        self.expr(depth + 2, &field.value);
                    }
                }
            }
            ExprKind::List(items) => self.node(depth, "List", span, items),
            ExprKind::Field(base, field) => {
                self.line(depth, &format!("Field .{}", field.name), span);
                self.expr(depth + 1, base);
            }
            ExprKind::Call(callee, args) => {
                self.line(depth, "Call", span);
                self.expr(depth + 1, callee);
                for arg in args {
                    self.expr(depth + 1, arg);
                }
            }
            ExprKind::Index(base, args) => {
                self.line(depth, "Index", span);
                self.expr(depth + 1, base);
                for arg in args {
                    self.expr(depth + 1, arg);
                }
            }
            ExprKind::Pipe(input, stage) => {
                self.line(depth, "Pipe", span);
                self.expr(depth + 1, input);
                self.expr(depth + 1, stage);
            }
            ExprKind::Lambda(params, body) => {
                let names: Vec<&str> = params.iter().map(|n| n.name.as_str()).collect();
                self.line(depth, &format!("Lambda ({})", names.join(", ")), span);
                self.expr(depth + 1, body);
            }
            ExprKind::Unary(op, operand) => {
                self.line(depth, &format!("Unary {op:?}"), span);
                self.expr(depth + 1, operand);
            }
            ExprKind::Binary(op, a, b) => {
                self.line(depth, &format!("Binary {}", op.symbol()), span);
                self.expr(depth + 1, a);
                self.expr(depth + 1, b);
            }
            ExprKind::Tuple(items) => {
                self.line(depth, "Tuple", span);
                for item in items {
                    self.expr(depth + 1, item);
                }
            }
            ExprKind::Range(a, b) => {
                self.line(depth, "Range", span);
                self.expr(depth + 1, a);
                self.expr(depth + 1, b);
            }
            ExprKind::If(cond, then, otherwise) => {
                self.line(depth, "If", span);
                self.expr(depth + 1, cond);
                self.expr(depth + 1, then);
                self.expr(depth + 1, otherwise);
            }
            ExprKind::Block(stmts, result) => {
                self.line(depth, "Block", span);
                for stmt in stmts {
                    match stmt {
                        Stmt::Let { name, ty, value } => {
                            let ty = ty.as_ref().map(|t| format!(": {}", print_type(t)));
                            self.line(
                                depth + 1,
                                &format!("let {}{}", name.name, ty.unwrap_or_default()),
                                name.span,
                            );
                            self.expr(depth + 2, value);
                        }
                        Stmt::Expr(expr) => self.expr(depth + 1, expr),
                    }
                }
                self.expr(depth + 1, result);
            }
            ExprKind::Insert(table, row) => {
                self.line(depth, &format!("Insert {}", table.dotted()), span);
                self.expr(depth + 1, row);
            }
            ExprKind::Upsert(table, row) => {
                self.line(depth, &format!("Upsert {}", table.dotted()), span);
                self.expr(depth + 1, row);
            }
            ExprKind::Update(target, row, changes) => {
                match row {
                    Some(row) => self.line(depth, &format!("Update as {}", row.name), span),
                    None => self.line(depth, "Update", span),
                }
                self.expr(depth + 1, target);
                self.expr(depth + 1, changes);
            }
            ExprKind::Delete(target) => {
                self.line(depth, "Delete", span);
                self.expr(depth + 1, target);
            }
            ExprKind::Error => self.line(depth, "Error", span),
        }
    }

    fn node(&mut self, depth: usize, label: &str, span: Span, children: &[Expr]) {
        self.line(depth, label, span);
        for child in children {
            self.expr(depth + 1, child);
        }
    }
}
