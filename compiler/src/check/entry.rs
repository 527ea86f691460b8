//! Checking one definition: parameter types, the body's form, its cost and verdict.

use crate::diagnostics::{Diagnostic, Label};
use crate::syntax::ast::{Def, DefKind, Expr, ExprKind, RecordField, SizeBound, TypeKind};
use crate::syntax::printer::print_param;
use rqc_plan::{Bound, ColumnType, ParamSpec, Schema, TableSchema, Value};

pub(super) struct Context<'a> {
    pub file: &'a str,
    pub module: &'a str,
    pub schema: &'a Schema,
    /// Every table name declared in the program, even ones with errors, so
    /// that a broken table does not also make its uses "unknown".
    pub declared: &'a [&'a str],
}

/// A value an operator reads at run time.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Param(usize),
    Const(Value),
}

/// The checked form of an entry's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    KeyLookup { table: String, key: Vec<Operand> },
    Insert { table: String, row: Vec<Operand> },
}

#[derive(Clone, Debug)]
pub struct CheckedEntry {
    pub module: String,
    pub name: String,
    pub kind: DefKind,
    pub params: Vec<ParamSpec>,
    pub body: Body,
    pub bound: Bound,
    /// `user(k: Int) -> User?`
    pub signature: String,
}

/// The outcome for one `query`, `mutation` or `fn`.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub module: String,
    pub name: String,
    pub kind: DefKind,
    pub signature: String,
    /// `None` when rejected.
    pub bound: Option<Bound>,
}

pub(super) fn check_def(
    context: &Context<'_>,
    def: &Def,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Option<CheckedEntry>, Option<Verdict>) {
    let before = diagnostics.len();
    let params = check_params(context, def, diagnostics);
    let checked = params.and_then(|params| {
        let (body, bound, result) = check_body(context, def, &params, diagnostics)?;
        let params_text: Vec<String> = def.params.iter().map(print_param).collect();
        Some(CheckedEntry {
            module: context.module.to_string(),
            name: def.name.name.clone(),
            kind: def.kind,
            params,
            body,
            bound,
            signature: format!("{}({}) -> {result}", def.name.name, params_text.join(", ")),
        })
    });
    let accepted = checked.is_some() && diagnostics.len() == before;
    let params_text: Vec<String> = def.params.iter().map(print_param).collect();
    let verdict = Verdict {
        module: context.module.to_string(),
        name: def.name.name.clone(),
        kind: def.kind,
        signature: checked
            .as_ref()
            .map(|c| c.signature.clone())
            .unwrap_or_else(|| format!("{}({})", def.name.name, params_text.join(", "))),
        bound: checked.as_ref().filter(|_| accepted).map(|c| c.bound),
    };
    (checked.filter(|_| accepted), Some(verdict))
}

fn param_type(ty: &crate::syntax::ast::Type) -> Option<ColumnType> {
    match &ty.kind {
        TypeKind::Named(name) => match name.name.as_str() {
            "Int" => Some(ColumnType::Int),
            "Float" => Some(ColumnType::Float),
            "String" => Some(ColumnType::String),
            "Bool" => Some(ColumnType::Bool),
            _ => None,
        },
        TypeKind::Option(inner) => Some(ColumnType::Optional(Box::new(param_type(inner)?))),
        _ => None,
    }
}

fn check_params(
    context: &Context<'_>,
    def: &Def,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Vec<ParamSpec>> {
    let mut specs = Vec::new();
    let mut ok = true;
    for param in &def.params {
        if specs.iter().any(|p: &ParamSpec| p.name == param.name.name) {
            diagnostics.push(
                Diagnostic::error(
                    "E0203",
                    format!("parameter `{}` is declared twice", param.name.name),
                    context.file,
                    param.name.span,
                    "second declaration",
                )
                .with_help("give each parameter its own name"),
            );
            ok = false;
            continue;
        }
        let Some(ty) = param_type(&param.ty) else {
            diagnostics.push(not_yet(
                context.file,
                param.ty.span,
                "parameters of this type",
                "parameters of type `Int`, `Float`, `String` or `Bool`",
            ));
            ok = false;
            continue;
        };
        let max = match &param.bound {
            None => None,
            Some(SizeBound::Literal(n, _)) => Some(*n),
            Some(SizeBound::Name(ident)) => {
                diagnostics.push(not_yet(
                    context.file,
                    ident.span,
                    "a bound named by a parameter",
                    "bounds written as integers, as in `n: Int <= 100`",
                ));
                ok = false;
                None
            }
        };
        specs.push(ParamSpec {
            name: param.name.name.clone(),
            ty,
            max,
        });
    }
    ok.then_some(specs)
}

/// E0399: a construct the checker cannot prove a bound for yet. Rejecting
/// it keeps the promise: nothing runs without a proof.
fn not_yet(file: &str, span: crate::Span, what: &str, supported: &str) -> Diagnostic {
    Diagnostic::error(
        "E0399",
        format!("the checker cannot prove a bound for {what} yet"),
        file,
        span,
        "not yet supported",
    )
    .with_help(format!("this version proves bounds for {supported}"))
    .with_note("see spec/cost.md for the forms the checker accepts")
}

fn check_body(
    context: &Context<'_>,
    def: &Def,
    params: &[ParamSpec],
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(Body, Bound, String)> {
    let body = &def.body;
    match (&body.kind, def.kind) {
        (ExprKind::Index(base, args), DefKind::Query | DefKind::Fn) => {
            let ExprKind::Name(table_name) = &base.kind else {
                diagnostics.push(not_yet(
                    context.file,
                    base.span,
                    "index or field access",
                    "whole-key reads such as `User[k]`",
                ));
                return None;
            };
            let table = lookup_table(context, &table_name.name, base.span, diagnostics)?;
            if args.len() != table.key.len() {
                let key_names: Vec<&str> = table
                    .key
                    .iter()
                    .map(|&i| table.columns[i].name.as_str())
                    .collect();
                let mut d = Diagnostic::error(
                    "E0404",
                    format!(
                        "`{}[…]` takes the whole key: {} value{}",
                        table.name,
                        table.key.len(),
                        if table.key.len() == 1 { "" } else { "s" }
                    ),
                    context.file,
                    body.span,
                    format!("{} given", args.len()),
                )
                .with_help(format!(
                    "give one value per key column: `{}[{}]`",
                    table.name,
                    key_names.join(", ")
                ));
                if args.len() < table.key.len() {
                    d = d.with_note(
                        "reading by a key prefix is proved by the full checker (spec/cost.md)",
                    );
                }
                diagnostics.push(d);
                return None;
            }
            let mut key = Vec::new();
            for (arg, &column) in args.iter().zip(&table.key) {
                let column = &table.columns[column];
                key.push(operand(
                    context,
                    def,
                    params,
                    arg,
                    &column.ty,
                    &column.name,
                    diagnostics,
                )?);
            }
            Some((
                Body::KeyLookup {
                    table: table.name.clone(),
                    key,
                },
                Bound { seeks: 1, rows: 1 },
                format!("{}?", table.name),
            ))
        }
        (ExprKind::Insert(path, row), DefKind::Mutation) => {
            let table_name = path.segments.last().map(|s| s.name.as_str()).unwrap_or("");
            let table = lookup_table(context, table_name, path.span, diagnostics)?;
            let ExprKind::Record(fields) = &row.kind else {
                return None;
            };
            let row = insert_row(context, def, params, table, fields, row.span, diagnostics)?;
            // One seek each: the key check, every unique index, every
            // reference and every bound counter; each reads at most one row.
            let refs = table
                .columns
                .iter()
                .filter(|c| c.references.is_some())
                .count();
            let uniques = table.indexes.iter().filter(|i| i.unique).count();
            let checks =
                1 + uniques + refs + table.bounds.len() + usize::from(table.small_max.is_some());
            Some((
                Body::Insert {
                    table: table.name.clone(),
                    row,
                },
                Bound {
                    seeks: checks as u64,
                    rows: checks as u64,
                },
                "Int".to_string(),
            ))
        }
        (ExprKind::Insert(..), _) => {
            diagnostics.push(
                Diagnostic::error(
                    "E0406",
                    format!("a {} cannot write", def.kind.keyword()),
                    context.file,
                    body.span,
                    "a write",
                )
                .with_help(format!(
                    "declare it as a mutation: `mutation {}(…) = …`",
                    def.name.name
                )),
            );
            None
        }
        _ => {
            diagnostics.push(not_yet(
                context.file,
                body.span,
                "this expression",
                "whole-key reads `T[k]` in queries and `insert T { … }` in mutations",
            ));
            None
        }
    }
}

fn lookup_table<'s>(
    context: &Context<'s>,
    name: &str,
    span: crate::Span,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<&'s TableSchema> {
    if let Some(table) = context.schema.table(name) {
        return Some(table);
    }
    if context.declared.contains(&name) {
        // Declared with errors, already reported at the declaration.
        return None;
    }
    let known: Vec<&str> = context
        .schema
        .tables
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    let mut d = Diagnostic::error(
        "E0201",
        format!("no table named `{name}`"),
        context.file,
        span,
        "unknown table",
    );
    d = match super::names::closest(name, &known) {
        Some(close) => d.with_help(format!("did you mean `{close}`?")),
        None => d.with_help(
            "declare it with `table Name { id: Int key … }`, or import the module that declares it",
        ),
    };
    diagnostics.push(d);
    None
}

fn insert_row(
    context: &Context<'_>,
    def: &Def,
    params: &[ParamSpec],
    table: &TableSchema,
    fields: &[RecordField],
    span: crate::Span,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Vec<Operand>> {
    let mut ok = true;
    for (i, field) in fields.iter().enumerate() {
        if table.column(&field.name.name).is_none() {
            let names: Vec<crate::syntax::ast::Ident> = vec![field.name.clone()];
            diagnostics.push(super::schema::unknown_column(
                context.file,
                &table.name,
                &names[0],
                &table.columns,
            ));
            ok = false;
        } else if fields[..i].iter().any(|f| f.name.name == field.name.name) {
            diagnostics.push(
                Diagnostic::error(
                    "E0203",
                    format!("column `{}` is given twice", field.name.name),
                    context.file,
                    field.name.span,
                    "second value",
                )
                .with_help("give each column one value"),
            );
            ok = false;
        }
    }
    let mut row = Vec::new();
    let mut missing = Vec::new();
    for column in &table.columns {
        match fields.iter().find(|f| f.name.name == column.name) {
            Some(field) => match operand(
                context,
                def,
                params,
                &field.value,
                &column.ty,
                &column.name,
                diagnostics,
            ) {
                Some(op) => row.push(op),
                None => ok = false,
            },
            None if matches!(column.ty, ColumnType::Optional(_)) => {
                row.push(Operand::Const(Value::Null))
            }
            None => missing.push(column.name.as_str()),
        }
    }
    if !missing.is_empty() {
        let fix: Vec<String> = missing.iter().map(|m| format!("{m}: …")).collect();
        diagnostics.push(
            Diagnostic::error(
                "E0402",
                format!(
                    "the row for `{}` lacks {}",
                    table.name,
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                context.file,
                span,
                "missing columns",
            )
            .with_help(format!(
                "give every column without `?` a value: add `{}`",
                fix.join(", ")
            )),
        );
        ok = false;
    }
    ok.then_some(row)
}

/// A parameter or literal used where a column of type `expected` goes.
fn operand(
    context: &Context<'_>,
    def: &Def,
    params: &[ParamSpec],
    expr: &Expr,
    expected: &ColumnType,
    column: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Operand> {
    let (found, operand) = match &expr.kind {
        ExprKind::Int(n) => (ColumnType::Int, Operand::Const(Value::Int(*n))),
        ExprKind::Float(x) => (ColumnType::Float, Operand::Const(Value::Float(*x))),
        ExprKind::Str(s) => (ColumnType::String, Operand::Const(Value::Str(s.clone()))),
        ExprKind::Bool(b) => (ColumnType::Bool, Operand::Const(Value::Bool(*b))),
        ExprKind::None => match expected {
            ColumnType::Optional(_) => return Some(Operand::Const(Value::Null)),
            _ => {
                diagnostics.push(
                    Diagnostic::error(
                        "E0401",
                        format!("`{column}` cannot be none"),
                        context.file,
                        expr.span,
                        format!("expected `{}`", expected.name()),
                    )
                    .with_help(format!(
                        "give a `{}` value, or declare the column as `{column}: {}?`",
                        expected.name(),
                        expected.name()
                    )),
                );
                return None;
            }
        },
        ExprKind::Name(ident) => match params.iter().position(|p| p.name == ident.name) {
            Some(index) => (params[index].ty.clone(), Operand::Param(index)),
            None => {
                let known: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                let mut d = Diagnostic::error(
                    "E0201",
                    format!("no parameter or name `{}` here", ident.name),
                    context.file,
                    ident.span,
                    "unknown name",
                );
                d = match super::names::closest(&ident.name, &known) {
                    Some(close) => d.with_help(format!("did you mean `{close}`?")),
                    None => d.with_help(format!(
                        "add a parameter: `{}({}: {})`",
                        def.name.name,
                        ident.name,
                        expected.name()
                    )),
                };
                diagnostics.push(d);
                return None;
            }
        },
        _ => {
            diagnostics.push(not_yet(
                context.file,
                expr.span,
                "computed values here",
                "parameters and literals as key values and column values",
            ));
            return None;
        }
    };
    let fits =
        found == *expected || matches!(expected, ColumnType::Optional(inner) if **inner == found);
    if !fits {
        let mut d = Diagnostic::error(
            "E0401",
            format!(
                "`{column}` is `{}`, but this is `{}`",
                expected.name(),
                found.name()
            ),
            context.file,
            expr.span,
            format!("this is `{}`", found.name()),
        )
        .with_help(format!("give `{column}` a `{}` value", expected.name()));
        if let Operand::Param(index) = operand {
            if let Some(param) = def.params.get(index) {
                d = d.with_secondary(Label::new(
                    context.file,
                    param.ty.span,
                    format!("declared `{}` here", found.name()),
                ));
            }
        }
        diagnostics.push(d);
        return None;
    }
    Some(operand)
}
