//! The parser driver: runs the lalrpop grammar over the lexer's tokens and
//! turns every syntax error, recovered or not, into a diagnostic.

use super::ast::*;
use super::lexer::{StandIns, Token, Tokens};
use super::syntax_errors::syntax_error;
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use lalrpop_util::ErrorRecovery;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code)]
    grammar,
    "/syntax/grammar.rs"
);

type Recovery = ErrorRecovery<usize, Token, ()>;

/// Parses one file. Never fails: broken items are left out of the module and
/// each problem is a diagnostic, so later items are still parsed and checked.
pub fn parse(file: &str, source: &str) -> (Module, Vec<Diagnostic>) {
    parse_at(file, source, 0)
}

/// Parses `source` as the text found at byte `base` of a file: every span,
/// the tree's and the diagnostics', is `base` further on.
pub fn parse_at(file: &str, source: &str, base: usize) -> (Module, Vec<Diagnostic>) {
    let (module, diagnostics, _) = parse_at_outcome(file, source, base);
    (module, diagnostics)
}

/// [`parse_at`], and whether the parser gave up (then the module is empty,
/// whatever came before the error).
pub fn parse_at_outcome(file: &str, source: &str, base: usize) -> (Module, Vec<Diagnostic>, bool) {
    let mut tokens = Tokens::new(file, source, base);
    let mut ctx = ParseContext::new(file, &tokens);
    let end = base + source.len();
    let result = grammar::ModuleParser::new().parse(&mut ctx, (&mut tokens).map(Ok));
    // The parser stops at an error it cannot recover from: the lexical
    // errors after it are still the file's.
    tokens.by_ref().for_each(drop);
    ctx.finish();
    let mut syntax = Vec::new();
    for recovery in std::mem::take(&mut ctx.recoveries) {
        syntax.push(syntax_error(file, end, recovery.error));
    }
    let gave_up = result.is_err();
    let mut module = match result {
        Ok(module) => module,
        Err(error) => {
            syntax.push(syntax_error(file, end, error));
            Module::default()
        }
    };
    // A tree is never deeper than its tokens are many (each node has more
    // tokens than any node under it): only a piece with more tokens than
    // the limit needs measuring.
    if tokens.count > super::depth::MAX_DEPTH {
        super::depth::limit_depth(file, &mut module, &mut syntax);
    }
    // A token right after a bad character usually fails to parse only
    // because of it; the lexical error already says what to fix.
    let shadowed = tokens.after_errors;
    syntax.retain(|d| !(d.code == "E0101" && shadowed.contains(&d.primary.span.start)));
    syntax.extend(ctx.diagnostics);
    syntax.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    let mut diagnostics = tokens.diagnostics;
    diagnostics.extend(syntax);
    diagnostics.sort_by_key(|d| d.primary.span.start);
    (module, diagnostics, gave_up)
}

/// Parses a lone expression (the REPL's input, tests).
pub fn parse_expr(file: &str, source: &str) -> (Option<Expr>, Vec<Diagnostic>) {
    let mut tokens = Tokens::new(file, source, 0);
    let mut ctx = ParseContext::new(file, &tokens);
    let result = grammar::ExprParser::new().parse(&mut ctx, (&mut tokens).map(Ok));
    tokens.by_ref().for_each(drop);
    let mut diagnostics = std::mem::take(&mut tokens.diagnostics);
    ctx.finish();
    let expr = match result {
        Ok(expr) => super::depth::limit_expr_depth(file, expr, &mut diagnostics),
        Err(error) => {
            diagnostics.push(syntax_error(file, source.len(), error));
            None
        }
    };
    diagnostics.extend(ctx.diagnostics);
    (expr, diagnostics)
}

/// What grammar actions need besides the tokens: where to put the problems
/// they find while building the tree.
pub struct ParseContext {
    file: String,
    recoveries: Vec<Recovery>,
    diagnostics: Vec<Diagnostic>,
    /// `(a, b)` written so far and not yet claimed by an access's tuple
    /// comparison: each is E0104 at the end unless one claims it.
    tuples: Vec<(Span, Vec<Expr>)>,
    /// Where the lexer put a stand-in literal for one it could not read
    /// (shared with the tokens, which the parser reads ahead of its actions).
    stand_ins: StandIns,
}

/// A piece of a table body before modifiers are attached to their fields.
pub enum MemberPart {
    Field(Field),
    Modifier(FieldModifier),
    Member(TableMember),
}

impl ParseContext {
    fn new(file: &str, tokens: &Tokens<'_>) -> ParseContext {
        ParseContext {
            file: file.to_string(),
            recoveries: Vec::new(),
            diagnostics: Vec::new(),
            tuples: Vec::new(),
            stand_ins: tokens.stand_ins.clone(),
        }
    }

    /// A literal as an expression, or an error expression where the lexer
    /// could not read it (`99999999999999999999`, `1e999`, a bad escape):
    /// its stand-in keeps the parse going, but no definition holding it is
    /// accepted or run (it would run with the stand-in, `0`, in its place;
    /// the lexical error is the one reported).
    pub fn literal(&self, kind: ExprKind, span: Span) -> Expr {
        if self.stand_ins.borrow().contains(&(span.start as usize)) {
            Expr::new(ExprKind::Error, span)
        } else {
            Expr::new(kind, span)
        }
    }

    /// `a - 9223372036854775808`: the number subtracted is no `Int`
    /// (E0004, as the lexer says of it anywhere but after a negating `-`);
    /// the expression is an error, so its definition is rejected.
    pub fn int_min_subtracted(&mut self, literal: Span, span: Span) -> Expr {
        self.diagnostics.push(
            Diagnostic::error(
                "E0004",
                "integer literal too large",
                &self.file,
                literal,
                "does not fit in a 64-bit signed integer",
            )
            .with_help(format!(
                "integers range from {} to {}; to subtract 9223372036854775808 add the least one: `+ {}`",
                i64::MIN,
                i64::MAX,
                i64::MIN
            )),
        );
        Expr::new(ExprKind::Error, span)
    }

    /// `n: Int in a..b`: E0106, pointing to the inclusive ends to write;
    /// the parameter is kept without bounds.
    pub fn param_range(
        &mut self,
        name: Ident,
        ty: Type,
        from: (i64, Span),
        to: (i64, Span),
        range: Span,
        span: Span,
    ) -> Box<Param> {
        let (a, b) = (from.0, to.0);
        let written = format!("{}: {}", name.name, super::printer::print_type(&ty));
        self.diagnostics.push(
            Diagnostic::error(
                "E0106",
                "a parameter's bounds are written with `>=` and `<=`, not `in`",
                &self.file,
                range,
                "not a parameter bound",
            )
            .with_help(format!(
                "write `{written} >= {a} <= {}`: both ends are included (in an access `{a}..{b}` excludes {b}; \
                 to include it write `<= {b}`)",
                b.saturating_sub(1)
            )),
        );
        Box::new(Param {
            name,
            ty,
            lower: None,
            bound: None,
            span,
        })
    }

    /// Reports every tuple no access claimed: RQL has no tuple values.
    fn finish(&mut self) {
        for (span, _) in std::mem::take(&mut self.tuples) {
            self.diagnostics.push(
                Diagnostic::error("E0104", "RQL has no tuples", &self.file, span, "here")
                    .with_help(
                        "use a record instead: `{ a: x, b: y }`, or add `=> …` to make a lambda; \
                     a tuple only compares index columns as the last value of an access: \
                     `Post.by_time[(at, id) < (t, i)]`",
                    ),
            );
        }
    }

    /// `base[args]`: when the last value is a comparison with a tuple on
    /// either side (`(at, id) < (t, i)`), the tuples are claimed as such.
    pub fn access(&mut self, base: Expr, mut args: Vec<Expr>, span: Span) -> Expr {
        if let Some(Expr {
            kind: ExprKind::Binary(op, lhs, rhs),
            ..
        }) = args.last_mut()
        {
            if op.is_comparison() {
                for side in [lhs, rhs] {
                    if !matches!(side.kind, ExprKind::Error) {
                        continue;
                    }
                    if let Some(at) = self.tuples.iter().position(|(s, _)| *s == side.span) {
                        let (_, items) = self.tuples.remove(at);
                        side.kind = ExprKind::Tuple(items);
                    }
                }
            }
        }
        Expr::new(ExprKind::Index(Box::new(base), args), span)
    }

    pub fn recovered(&mut self, recovery: Recovery) {
        self.recoveries.push(recovery);
    }

    /// Assembles a table, attaching each `key`/`unique`/`ref` to the field
    /// written just before it.
    pub fn table(
        &mut self,
        public: bool,
        name: Ident,
        small_max: Option<(i64, Span)>,
        parts: Vec<Option<Box<MemberPart>>>,
        span: Span,
    ) -> Table {
        let mut members: Vec<TableMember> = Vec::new();
        for part in parts.into_iter().flatten() {
            match *part {
                MemberPart::Field(field) => members.push(TableMember::Field(field)),
                MemberPart::Member(member) => members.push(member),
                MemberPart::Modifier(modifier) => match members.last_mut() {
                    Some(TableMember::Field(field)) => {
                        field.span = field.span.to(modifier_span(&modifier));
                        field.modifiers.push(modifier);
                    }
                    _ => self.diagnostics.push(stray_modifier(&self.file, &modifier)),
                },
            }
        }
        Table {
            public,
            name,
            small_max,
            members,
            span,
        }
    }

    /// `aggregate NAME = f(T…) by columns`: `by` is a name everywhere
    /// else, so the grammar takes any word there and this checks it (E0101
    /// otherwise, with the form to write). Without `by`, a `count` or `sum`
    /// is kept for the whole table (one group, no columns); a `min` or
    /// `max` without `by` is E0108 (its next extreme, when the extreme row
    /// goes, has no group to be found in within a bound).
    pub fn aggregate(
        &mut self,
        public: bool,
        name: Ident,
        function: Ident,
        source: Path,
        by: Option<(Ident, Vec<Ident>)>,
        span: Span,
    ) -> Option<Aggregate> {
        let form = "declare an aggregate as `aggregate likes_of = count(Like) by post` or `aggregate spent = sum(Order.total) by customer`";
        let Some((by_word, by)) = by else {
            if !matches!(function.name.as_str(), "min" | "max") {
                // The whole table: `aggregate questions = count(Question)`.
                return Some(Aggregate {
                    public,
                    name,
                    function,
                    source,
                    by: Vec::new(),
                    span,
                });
            }
            let written = format!(
                "aggregate {} = {}({})",
                name.name,
                function.name,
                source.dotted()
            );
            self.diagnostics.push(
                Diagnostic::error(
                    "E0108",
                    format!("`{written}` has no `by`: a `{}` is kept per group of rows", function.name),
                    &self.file,
                    Span::new(span.end as usize, span.end as usize),
                    "`by` and the group's columns are missing here",
                )
                .with_help(format!(
                    "name the columns whose values make a group: `{written} by column`; only a `count` or a `sum` is kept for the whole table"
                )),
            );
            return None;
        };
        if by_word.name != "by" {
            self.diagnostics.push(
                Diagnostic::error(
                    "E0101",
                    format!("unexpected `{}`: expected `by`", by_word.name),
                    &self.file,
                    by_word.span,
                    "expected `by`",
                )
                .with_help(form),
            );
            return None;
        }
        Some(Aggregate {
            public,
            name,
            function,
            source,
            by,
            span,
        })
    }

    /// `on delete cascade` or `on delete set none` after a field's `ref T`:
    /// `on`, `cascade` and `set` are names everywhere else, so the grammar
    /// takes any word in their places and this checks them (E0101 with the
    /// forms to write otherwise).
    pub fn on_delete(
        &mut self,
        on: Ident,
        action: Ident,
        none: Option<Span>,
        span: Span,
    ) -> Option<FieldModifier> {
        let form = "after `ref T` write `on delete cascade` (the rows that reference a deleted row are deleted too) or, on an optional column, `on delete set none`";
        let (word, expected) = if on.name != "on" {
            (&on, "`on` (as in `on delete cascade`)")
        } else {
            match (action.name.as_str(), none) {
                ("cascade", None) => {
                    return Some(FieldModifier::OnDelete(OnDeleteAction::Cascade, span))
                }
                ("set", Some(_)) => {
                    return Some(FieldModifier::OnDelete(OnDeleteAction::SetNone, span))
                }
                ("set", None) => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0101",
                            "unexpected end of `on delete set`: expected `none`",
                            &self.file,
                            Span::new(action.span.end as usize, action.span.end as usize),
                            "expected `none`",
                        )
                        .with_help(form),
                    );
                    return None;
                }
                _ => (&action, "`cascade` or `set none`"),
            }
        };
        self.diagnostics.push(
            Diagnostic::error(
                "E0101",
                format!("unexpected `{}`: expected {expected}", word.name),
                &self.file,
                word.span,
                "not an `on delete` action",
            )
            .with_help(form),
        );
        None
    }

    /// `(a, b) => body`: every parameter must be a plain name.
    pub fn lambda(&mut self, params: Vec<Expr>, body: Expr, span: Span) -> Expr {
        let mut names = Vec::new();
        for param in params {
            match param.kind {
                ExprKind::Name(ident) => names.push(ident),
                _ => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0103",
                            "a lambda parameter must be a name",
                            &self.file,
                            param.span,
                            "not a name",
                        )
                        .with_help("write parameters as names: `(a, b) => a + b`"),
                    );
                    return Expr::new(ExprKind::Error, span);
                }
            }
        }
        Expr::new(ExprKind::Lambda(names, Box::new(body)), span)
    }

    /// `( e )` is grouping; `()` and `(a, b)` are not values in RQL.
    pub fn parenthesized(&mut self, mut items: Vec<Expr>, span: Span) -> Expr {
        if items.len() == 1 {
            let mut inner = items.pop().expect("one item");
            inner.span = span;
            return inner;
        }
        if !items.is_empty() {
            // A tuple: an access may claim it (`access`), else `finish` reports it.
            self.tuples.push((span, items));
            return Expr::new(ExprKind::Error, span);
        }
        self.diagnostics.push(
            Diagnostic::error(
                "E0104",
                "empty parentheses are not a value",
                &self.file,
                span,
                "here",
            )
            .with_help(
                "`()` is only written before `=>` in a lambda without parameters: `() => 1`",
            ),
        );
        Expr::new(ExprKind::Error, span)
    }
}

/// The values of a list the grammar boxed while the parser held them.
pub fn unboxed<T>(items: Vec<Box<T>>) -> Vec<T> {
    items.into_iter().map(|item| *item).collect()
}

pub fn binary(op: BinaryOp, a: Expr, b: Expr, l: usize, r: usize) -> Expr {
    Expr::new(
        ExprKind::Binary(op, Box::new(a), Box::new(b)),
        Span::new(l, r),
    )
}

fn modifier_span(modifier: &FieldModifier) -> Span {
    match modifier {
        FieldModifier::Key(span)
        | FieldModifier::Unique(span)
        | FieldModifier::Auto(span)
        | FieldModifier::Ref(_, span)
        | FieldModifier::OnDelete(_, span)
        | FieldModifier::Default(_, span) => *span,
    }
}

fn stray_modifier(file: &str, modifier: &FieldModifier) -> Diagnostic {
    let word = match modifier {
        FieldModifier::Key(_) => "key",
        FieldModifier::Unique(_) => "unique",
        FieldModifier::Auto(_) => "auto",
        FieldModifier::Ref(..) => "ref",
        FieldModifier::OnDelete(..) => "on delete",
        FieldModifier::Default(..) => "= value",
    };
    Diagnostic::error(
        "E0105",
        format!("`{word}` must follow a field"),
        file,
        modifier_span(modifier),
        "no field before it",
    )
    .with_help(if word == "on delete" {
        "write it after a column's reference, as in `answer: Int ref Answer on delete cascade`"
            .to_string()
    } else {
        format!(
            "write it after the field's type, as in `id: Int {word}`{}",
            match word {
                "key" => ", or list columns: `key (a, b)`",
                "unique" => ", or list columns: `unique (a, b)`",
                _ => "",
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str) -> Vec<String> {
        parse("t.rq", src).1.into_iter().map(|d| d.code).collect()
    }

    #[test]
    fn a_clean_module_has_no_diagnostics() {
        let (module, diagnostics) = parse(
            "t.rq",
            "module m\ntable T { id: Int key }\nquery q(k: Int) = T[k]",
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(module.items.len(), 2);
        assert_eq!(module.header.unwrap().dotted(), "m");
    }

    #[test]
    fn modifiers_attach_to_the_field_before_them() {
        let (module, _) = parse("t.rq", "table T { a: Int key unique b: Int ref U.V }");
        let Item::Table(table) = &module.items[0] else {
            panic!("not a table")
        };
        let TableMember::Field(a) = &table.members[0] else {
            panic!("not a field")
        };
        assert_eq!(a.modifiers.len(), 2);
        let TableMember::Field(b) = &table.members[1] else {
            panic!("not a field")
        };
        assert!(matches!(&b.modifiers[0], FieldModifier::Ref(p, _) if p.dotted() == "U.V"));
    }

    #[test]
    fn recovery_reports_errors_in_two_items() {
        let src = "query a(x: Int) = x +\nquery b(y Int) = y\nquery c() = 1";
        assert_eq!(codes(src), vec!["E0101", "E0101"]);
        let (module, _) = parse("t.rq", src);
        assert_eq!(module.items.len(), 1, "the third query survives");
    }

    #[test]
    fn end_of_file_inside_brackets_says_what_is_missing() {
        let (_, diagnostics) = parse("t.rq", "query q(k: Int) = f(k");
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, "E0102");
        assert_eq!(diagnostics[0].help, vec!["add the missing `)`"]);
    }

    #[test]
    fn arithmetic_after_a_pipeline_says_to_wrap_it() {
        let (_, diagnostics) = parse("t.rq", "query q(xs: [Int]) = xs |> count() + 1");
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, "E0101");
        assert!(
            diagnostics[0].help[0].contains("wrap it in parentheses")
                && diagnostics[0].help[0].ends_with(") + 1`"),
            "{:?}",
            diagnostics[0].help
        );
        // The same operator where a pipeline is not what came before.
        let (_, diagnostics) = parse("t.rq", "query q() = [1 +]");
        assert!(diagnostics
            .iter()
            .all(|d| d.help.iter().all(|h| !h.contains("pipeline"))));
    }

    #[test]
    fn stray_modifier_and_tuples_are_errors() {
        assert_eq!(codes("table T { key id: Int }"), vec!["E0105"]);
        assert_eq!(codes("query q() = (1, 2)"), vec!["E0104"]);
    }

    #[test]
    fn an_access_claims_the_tuples_of_its_last_comparison_and_no_others() {
        let (expr, diagnostics) = parse_expr("t.rq", "P.by_time[a, (at, id) <= (t, i + 1)]");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let ExprKind::Index(_, args) = expr.expect("parsed").kind else {
            panic!("not an access")
        };
        let ExprKind::Binary(BinaryOp::LtEq, lhs, rhs) = &args[1].kind else {
            panic!("not a comparison")
        };
        assert!(matches!(&lhs.kind, ExprKind::Tuple(items) if items.len() == 2));
        assert!(matches!(&rhs.kind, ExprKind::Tuple(items) if items.len() == 2));
        // Anywhere else a tuple is still no value: not the last value, not
        // compared, inside a call, or one access's tuple beside another's.
        for src in [
            "query q() = P.ix[(a, b) < (1, 2), 3]",
            "query q() = P.ix[(a, b)]",
            "query q() = f((a, b) < (1, 2))",
            "query q() = (a, b) < (1, 2)",
        ] {
            assert!(codes(src).contains(&"E0104".to_string()), "{src}");
        }
        assert_eq!(
            codes("query q() = P.ix[(a, b) > (1, 2)] |> take(3)"),
            Vec::<String>::new()
        );
    }
}
