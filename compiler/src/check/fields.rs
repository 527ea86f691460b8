//! Names and fields in expressions: a name in scope (local, parameter, table, aggregate, definition), a field of a row or record, an index named after a table, and the errors with their suggestions.

use super::expr::{Checked, Checker, Target};
use super::modules::Symbol;
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::Cost;
use crate::syntax::ast::{Expr, ExprKind, Ident};
use rqc_plan::near::NearIndex;
use rqc_plan::ColumnAt;

impl Checker<'_> {
    /// The aggregate `base` names (`likes_of`, `social.likes_of`), if it
    /// names one and no local shadows it.
    pub(super) fn aggregate_named(&self, base: &Expr) -> Option<Ident> {
        let ident = match &base.kind {
            ExprKind::Name(ident) => ident,
            ExprKind::Field(module, ident) => match &module.kind {
                ExprKind::Name(m) if self.local(&m.name).is_none() => {
                    let Some(Symbol::Module(m)) = self.index.lookup(self.module, &m.name) else {
                        return None;
                    };
                    return match self.index.scopes[*m].get(&ident.name) {
                        Some(Symbol::Aggregate(_)) => Some(ident.clone()),
                        _ => None,
                    };
                }
                _ => return None,
            },
            _ => return None,
        };
        if self.local(&ident.name).is_some() {
            return None;
        }
        match self.index.lookup(self.module, &ident.name) {
            Some(Symbol::Aggregate(_)) => Some(ident.clone()),
            _ => None,
        }
    }

    pub(super) fn check_name(&mut self, ident: &Ident) -> Checked {
        if let Some(local) = self.local(&ident.name) {
            let binding = local.span;
            self.refer(ident.span, || Target::Local(binding));
            let local = self.local(&ident.name).expect("found above");
            // An entry point's parameter is copied where it is named (a
            // `let`'s value is shared): a step per value it may hold, a
            // string's a step per 4 KiB.
            let copied = match local.tir {
                TExpr::Param(_) => Cost::steps(local.ty.walk_steps()),
                // A `let`'s or a lambda's value is shared, but a string
                // (or a record of scalars holding one) is copied.
                _ => Cost::steps(local.ty.copy_steps()),
            };
            // A `Bool` name a `let` bound to a condition, tested in a
            // condition, says what it does, found again by its span where
            // the name no longer resolves (the last expression of a block
            // that bound it: `read_condition_within`).
            let said = matches!(local.ty, Ty::Bool)
                .then(|| local.condition.clone())
                .flatten();
            let (ty, tir) = (self.defined_now(local), local.tir.clone());
            if let Some(condition) = said {
                self.record_said(ident.span, crate::cost::Condition::Named(condition));
            }
            return Checked::new(ty, copied, tir);
        }
        match ident.name.as_str() {
            "desc" => return Checked::new(Ty::Order, Cost::zero(), TExpr::Order(true)),
            "asc" => return Checked::new(Ty::Order, Cost::zero(), TExpr::Order(false)),
            _ => {}
        }
        match self.index.lookup(self.module, &ident.name).cloned() {
            Some(Symbol::Table(table)) => {
                self.refer(ident.span, || Target::Table(table.clone()));
                self.check_whole_table(&table, None, ident.span)
            }
            Some(Symbol::Def(def)) => {
                let named = Expr {
                    kind: ExprKind::Name(ident.clone()),
                    span: ident.span,
                };
                self.named_function_value(&named, def)
            }
            // A whole-table aggregate is read by its name alone; one whose
            // declaration (or table) was refused is reported there only.
            Some(Symbol::Aggregate(name))
                if self.whole_table(&name) || self.schema.aggregate(&name).is_none() =>
            {
                self.check_aggregate_read(ident.span, ident, &[])
            }
            Some(Symbol::Aggregate(name)) => {
                let by = self
                    .schema
                    .aggregate(&name)
                    .map(|(t, a)| {
                        a.by.iter()
                            .map(|&c| t.columns[c].name.clone())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                self.error(
                    "E0224",
                    format!("`{name}` is an aggregate: it is read one group at a time"),
                    ident.span,
                    "no group given",
                )
                .help
                .push(format!("give the group: `{name}[{by}]`"));
                Checked::error()
            }
            Some(Symbol::Module(_)) => {
                self.error(
                    "E0408",
                    format!("`{}` is a module, not a value", ident.name),
                    ident.span,
                    "a module",
                )
                .help
                .push(format!("name something in it: `{}.name`", ident.name));
                Checked::error()
            }
            None if builtin_function(&ident.name) => {
                let name = &ident.name;
                let lambda = if crate::syntax::ast::SCALAR_FUNCTIONS.contains(&name.as_str()) {
                    format!("x => {name}(x)")
                } else if NO_ARGUMENTS.contains(&name.as_str()) {
                    format!("x => x |> {name}()")
                } else {
                    format!("x => x |> {name}(…)")
                };
                self.error(
                    "E0408",
                    format!("`{name}` is a built-in function, not a value"),
                    ident.span,
                    "a built-in",
                )
                .help
                .push(format!(
                    "pass a lambda that calls it: `{lambda}`; a definition of your own may be passed by its name"
                ));
                Checked::error()
            }
            None => {
                self.unknown_name(ident);
                Checked::error()
            }
        }
    }

    pub fn unknown_name(&mut self, ident: &Ident) {
        // Locals first, then the module's names (as if sorted): neither is
        // copied, since a module of thousands of names may have as many
        // misspellings.
        let mut nearest = super::names::Nearest::new(&ident.name);
        // A name no program can write (the row `c += e` reads) is no
        // suggestion.
        nearest.in_order(self.scope.names().filter(|n| !n.contains(' ')));
        let (updating, schema) = (self.updating.clone(), self.schema);
        let scope = &self.index.scopes[self.module];
        scope.offer(&mut nearest, super::module_scope::Offered::All);
        let suggestion = nearest.best().map(str::to_string);
        let starts_upper = ident.name.chars().next().is_some_and(char::is_uppercase);
        let home = self
            .index
            .home_of(self.module, &ident.name)
            .map(str::to_string);
        let d = self.error(
            "E0201",
            format!("nothing named `{}` is in scope", ident.name),
            ident.span,
            "unknown name",
        );
        let column_of = updating.filter(|table| {
            schema
                .table(table)
                .is_some_and(|t| t.column(&ident.name).is_some())
        });
        d.help.push(match (suggestion, home) {
            // A column of the row being updated: its value is the row's.
            _ if column_of.is_some() => {
                let table = column_of.unwrap_or_default();
                format!(
                    "`{name}` is a column of `{table}`, not a name in scope: to step it, write \
                     `{name} += 1` (or `-=`); to compute from the row, name it: \
                     `update … as r {{ {name}: r.{name} + 1 }}`",
                    name = ident.name
                )
            }
            (Some(close), _) => format!("did you mean `{close}`?"),
            (None, Some(home)) => import_help(&home, &ident.name),
            (None, None) if starts_upper => no_table_help(&ident.name),
            (None, None) => format!(
                "declare it: a parameter `{}: Int`, or `let {} = …;` in a block",
                ident.name, ident.name
            ),
        });
    }

    pub(super) fn check_field(&mut self, expr: &Expr, base: &Expr, field: &Ident) -> Checked {
        // `Table.index` and `module.name` are resolved by their users
        // (access and calls); a bare one is a mistake.
        if let ExprKind::Name(name) = &base.kind {
            if self.local(&name.name).is_none() {
                match self.index.lookup(self.module, &name.name).cloned() {
                    Some(Symbol::Table(table)) => {
                        return self.whole_index(expr, &table, name, field)
                    }
                    Some(Symbol::Module(m)) => {
                        return match self.index.scopes[m].get(&field.name).cloned() {
                            Some(Symbol::Table(table)) => {
                                self.check_whole_table(&table, None, expr.span)
                            }
                            // `module.questions`: a whole-table aggregate.
                            Some(Symbol::Aggregate(aggregate)) if self.whole_table(&aggregate) => {
                                self.check_aggregate_read(expr.span, field, &[])
                            }
                            // `module.inc` as a value: as a call of it is
                            // checked (a private one is refused there).
                            Some(Symbol::Def(def)) => self.named_function_value(expr, def),
                            _ => {
                                self.error(
                                    "E0408",
                                    format!("`{}.{}` is not a value", name.name, field.name),
                                    expr.span,
                                    "call it or give it values",
                                )
                                .help
                                .push(format!("call it: `{}.{}(…)`", name.name, field.name));
                                Checked::error()
                            }
                        };
                    }
                    _ => {}
                }
            }
        }
        let checked = self.check(base);
        let (ty, optional) = match &checked.ty {
            Ty::Option(inner) => ((**inner).clone(), true),
            other => (other.clone(), false),
        };
        // A row's column by its position in the table, a record's field by
        // its name's rank among the record's.
        let position: usize;
        let field_ty = match &ty {
            Ty::Error => return Checked::error(),
            Ty::Row(table, facts) => {
                self.refer(field.span, || {
                    Target::Column(table.clone(), field.name.clone())
                });
                let table_schema = self.schema.table(table);
                match table_schema.and_then(|t| t.column(&field.name).map(|c| (c, &t.columns[c]))) {
                    Some((at, column)) => {
                        position = at;
                        let ty = super::schema_types::table_column_ty(table, column);
                        super::narrowed_types::column_within(ty, &field.name, facts)
                    }
                    None => {
                        let columns = table_schema.map_or(&[][..], |t| &t.columns[..]);
                        let index = table_schema.and_then(|t| t.near_columns());
                        let names = columns.iter().map(|c| c.name.as_str());
                        self.no_field(field, &ty, names, index);
                        return Checked::error();
                    }
                }
            }
            Ty::Record(fields) => match fields.iter().find(|(n, _)| *n == field.name) {
                // A structural record holds its fields in the order of
                // their names (`rqc_plan::Record::structural`): the field
                // is read at its name's rank, whatever order it was
                // written in.
                Some((_, t)) => {
                    position = fields.iter().filter(|(n, _)| *n < field.name).count();
                    t.clone()
                }
                None => {
                    let names = fields.iter().map(|(n, _)| n.as_str());
                    self.no_field(field, &ty, names, None);
                    return Checked::error();
                }
            },
            other => {
                let other = other.to_string();
                self.error(
                    "E0401",
                    format!("`{other}` has no fields"),
                    base.span,
                    format!("this is `{other}`"),
                )
                .help
                .push(match &checked.ty {
                    Ty::List(..) | Ty::Stream(_) => {
                        "to read a field of each element, map: `|> map(x => x.field)`".to_string()
                    }
                    _ => "fields are read from rows and records".to_string(),
                });
                return Checked::error();
            }
        };
        // A field of an optional row is optional (none stays none).
        let ty = if optional && !matches!(field_ty, Ty::Option(_)) {
            Ty::option(field_ty)
        } else {
            self.narrowed_field(expr, field_ty)
        };
        // A record's field read by name is found among its fields: a step
        // per field. Charged though the read is by position, since a
        // lambda's reads at two applications may merge to one by name
        // (`functions.rs`), after this cost is counted; a row's column is
        // read by its position only.
        let width = match &checked.ty {
            Ty::Record(fields) => fields.len(),
            Ty::Option(inner) => match inner.as_ref() {
                Ty::Record(fields) => fields.len(),
                _ => 0,
            },
            _ => 0,
        };
        // A `Bool` field tested in a condition says it is true
        // (`Condition::flag`), found again by its span
        // (`read_condition_within`).
        if self.conditions_open > 0 && ty == Ty::Bool {
            if let Some(named) = self.named(expr) {
                self.record_said(expr.span, crate::cost::Condition::flag(named));
            }
        }
        let base = Box::new(checked.tir);
        let tir = TExpr::Column(
            base,
            ColumnAt {
                position,
                name: field.name.clone(),
            },
        );
        Checked::new(
            ty,
            checked
                .cost
                .plus(&Cost::steps(crate::cost::Poly::constant(width as u64))),
            tir,
        )
    }

    /// `T.index` with no values: the whole index from its start, in its order.
    pub(super) fn whole_index(
        &mut self,
        expr: &Expr,
        table: &str,
        name: &Ident,
        field: &Ident,
    ) -> Checked {
        self.refer(name.span, || Target::Table(table.to_string()));
        let known = self
            .schema
            .table(table)
            .and_then(|t| t.index(&field.name))
            .is_some();
        if !known {
            let schema = self.schema;
            let indexes = schema.table(table).map_or(&[][..], |t| &t.indexes[..]);
            let names = indexes.iter().map(|i| i.name.as_str());
            self.error(
                "E0216",
                format!("table `{table}` has no index `{}`", field.name),
                field.span,
                "unknown index",
            )
            .help
            .push(if names.len() == 0 {
                format!("`{table}` has no indexes; read it in key order: `{table} |> take(n)`")
            } else {
                format!(
                    "the indexes of `{table}` are: {}",
                    super::names::listed_from(names)
                )
            });
            return Checked::error();
        }
        self.refer(field.span, || {
            Target::Index(table.to_string(), field.name.clone())
        });
        self.check_whole_table(table, Some(&field.name), expr.span)
    }

    /// `ty` has no field `field`: its `names`, in order, or their `index`
    /// when it has one (a table of thousands of columns).
    pub(super) fn no_field<'a>(
        &mut self,
        field: &Ident,
        ty: &Ty,
        names: impl ExactSizeIterator<Item = &'a str> + Clone,
        index: Option<&'a NearIndex>,
    ) {
        let suggestion = super::names::closest_of(&field.name, names.clone(), index);
        let suggestion = suggestion.map(str::to_string);
        let d = self.error(
            "E0202",
            format!("`{ty}` has no field `{}`", field.name),
            field.span,
            "unknown field",
        );
        d.help.push(match suggestion {
            Some(close) => format!("did you mean `{close}`?"),
            None => format!("its fields are: {}", super::names::listed_from(names)),
        });
    }
}

/// The help for a name another module declares: its import.
pub(super) fn import_help(home: &str, name: &str) -> String {
    format!("module `{home}` declares `{name}`: import it with `import {home}.{{{name}}}`")
}

/// The help for a capitalized name no module declares.
pub(super) fn no_table_help(name: &str) -> String {
    format!("no module of the program declares `{name}`: declare the table (`table {name} {{ … }}`), or add the file of the module that does")
}

/// Combinators that take nothing but their input.
const NO_ARGUMENTS: [&str; 10] = [
    "count", "sum", "avg", "min", "max", "first", "exists", "flatten", "distinct", "reverse",
];

/// A built-in combinator's or scalar function's name (`count`, `length`).
fn builtin_function(name: &str) -> bool {
    rqc_plan::Builtin::named(name).is_some() || crate::syntax::ast::SCALAR_FUNCTIONS.contains(&name)
}
