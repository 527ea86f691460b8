//! Reporting a value of the wrong type: E0401, and E0537 for a `none` where no option is allowed, each with a help line that names the fix.

use super::expr::Checker;
use super::types::Ty;
use crate::span::Span;

impl Checker<'_> {
    /// `why` is only rendered when the types do not fit: callers pass
    /// `format_args!`, so the check itself formats nothing.
    pub fn expect_type(
        &mut self,
        expected: &Ty,
        found: &Ty,
        span: Span,
        why: impl std::fmt::Display,
    ) -> bool {
        if expected.accepts(found) {
            return true;
        }
        self.mismatch(expected, found, span, why);
        false
    }

    pub fn mismatch(&mut self, expected: &Ty, found: &Ty, span: Span, why: impl std::fmt::Display) {
        if found.is_bare_none() && !matches!(expected, Ty::Option(_) | Ty::Error) {
            let expected = expected.shape();
            self.error(
                "E0537",
                format!("`none` is not a `{expected}`: this place is not optional"),
                span,
                "`none` here",
            )
            .help
            .push(format!(
                "give a `{expected}` value here ({why}); where no value is meant, make the place optional: `{expected}?`"
            ));
            return;
        }
        let help = match (expected, found) {
            (Ty::List(..), Ty::Stream(_)) => {
                "a stream is unbounded; limit it first: `|> take(n)` with `n: Int <= 100`"
                    .to_string()
            }
            (Ty::Int(_), Ty::Float) | (Ty::Float, Ty::Int(_)) => {
                "Int and Float do not mix: write the literal as the other kind (`2` or `2.0`)"
                    .to_string()
            }
            (inner, Ty::Option(found_inner)) if inner.accepts(found_inner) => {
                "this may be none; handle that first, e.g. `|> flatten()` over a list of options"
                    .to_string()
            }
            // `{ x }` is a record of one field, not a block.
            (expected, Ty::Record(fields))
                if fields.len() == 1 && !matches!(expected, Ty::Record(_)) =>
            {
                let name = &fields[0].0;
                format!(
                    "`{{ {name} }}` is a record with one field, `{name}`; for the value itself drop the braces (a block needs a `let`: `{{ let y = {name}; y }}`)"
                )
            }
            _ => {
                let shape = expected.shape();
                format!("give {} `{shape}` here ({why})", article(&shape))
            }
        };
        let (expected, found) = (expected.shape(), found.shape());
        self.error(
            "E0401",
            format!("expected `{expected}`, found `{found}`"),
            span,
            format!("this is `{found}`"),
        )
        .help
        .push(help);
    }
}

/// "an" before a type whose name is read with a vowel first (`Int`), "a"
/// otherwise.
fn article(shape: &str) -> &'static str {
    match shape.trim_start_matches('`').chars().next() {
        Some('A' | 'E' | 'I' | 'O' | 'U' | 'a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}
