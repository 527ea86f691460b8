//! Calls that cannot be checked: a name that is no function (E0201, with the nearest name or the module to import it from) and a wrong number of arguments (E0414).

use super::expr::Checker;
use crate::span::Span;

impl Checker<'_> {
    pub(super) fn unknown_function(&mut self, name: &crate::syntax::ast::Ident) {
        // The built-in functions first, then the module's (as if sorted).
        let mut nearest = super::names::Nearest::new(&name.name);
        nearest.in_order(
            rqc_plan::Builtin::ALL.iter().map(|b| b.name()).chain(
                crate::syntax::ast::SCALAR_FUNCTIONS
                    .iter()
                    .chain(crate::syntax::ast::PREDICATE_FUNCTIONS.iter())
                    .chain(crate::syntax::ast::CLOCK_FUNCTIONS.iter())
                    .copied(),
            ),
        );
        let scope = &self.index.scopes[self.module];
        scope.offer(&mut nearest, super::module_scope::Offered::Functions);
        let suggestion = nearest.best().map(str::to_string);
        let home = self
            .index
            .home_of(self.module, &name.name)
            .map(str::to_string);
        let d = self.error(
            "E0201",
            format!("no function named `{}`", name.name),
            name.span,
            "unknown function",
        );
        d.help.push(match (suggestion, home) {
            (Some(close), _) => format!("did you mean `{close}`?"),
            (None, Some(home)) => super::fields::import_help(&home, &name.name),
            (None, None) => "the combinators are take, first, exists, map, filter, flat_map, flatten, sort_by, group_by, distinct, count, sum, min, max, any, all, unwrap_or; a function of another module is imported from it (`import m.{f}`)".into(),
        });
    }

    pub(super) fn arity(&mut self, span: Span, name: &str, expected: usize, found: usize) {
        self.error(
            "E0414",
            format!(
                "{name} takes {expected} argument{}, {found} given",
                if expected == 1 { "" } else { "s" }
            ),
            span,
            "wrong number of arguments",
        )
        .help
        .push("with `x |> f(a)`, `x` is the first argument".into());
    }
}
