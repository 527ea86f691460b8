//! What a definition's result and bound must be to be accepted: a value a caller can take (no function out of an entry point, no `none` of unknown type), and a bound under the ceiling.

use super::expr::Checker;
use super::types::Ty;
use crate::cost::{Cost, CEILING};
use crate::span::Span;
use crate::syntax::ast::Def;

impl Checker<'_> {
    /// An entry point's result is data: it may hold no stream (reading it
    /// would be unbounded) and no function.
    pub(super) fn check_result(&mut self, def: &Def, ty: &Ty) {
        if let Ty::Stream(stream) = ty {
            let stream = (**stream).clone();
            self.reject_unconsumed(def.body.span, &stream, def.kind.keyword());
        } else if ty.holds_stream() {
            self.error(
                "E0301",
                format!(
                    "the {} returns a stream inside its result, with no limit",
                    def.kind.keyword()
                ),
                def.body.span,
                "holds an unlimited stream",
            )
            .help
            .push("limit each stream in the result: `posts: Post.by_author[a] |> take(n)`".into());
        } else if ty.holds_fn() {
            self.error(
                "E0418",
                format!("a {} cannot return a function", def.kind.keyword()),
                def.body.span,
                "holds a function",
            )
            .help
            .push("return the values the function gives: apply it first".into());
        }
    }

    /// E0536: a result that holds a `none` whose type nothing fixed (a
    /// caller could not tell what it is). Only where no other error left
    /// an unknown type.
    pub(super) fn untyped_result(&mut self, def: &Def, ty: &Ty) {
        // Or a result whose type an untyped `none` left unknown
        // (`[none] |> flatten() |> map(g => g(u))`).
        let unknown = self.untyped_none.is_some() && ty.any(&Ty::is_error);
        if !(ty.holds_bare_none() || unknown) || !self.diagnostics.is_empty() {
            return;
        }
        // A `none` of this definition, or else one a call returned.
        let none = self.untyped_none.unwrap_or(def.body.span);
        self.error(
            "E0536",
            format!(
                "the type of this `none` is not known: nothing in the {} says what it is missing",
                def.kind.keyword()
            ),
            none,
            "`none` of what?",
        )
        .help
        .push(format!(
            "declare the result type, as in `{} {}(…) -> Int? = …`, or give it a type first: `let x: Int? = none`",
            def.kind.keyword(),
            def.name.name
        ));
    }

    /// E0536: a `none` whose type nothing fixed, where a body was checked
    /// with it (a lambda `map` would apply to its value): that body has no
    /// type to check, and is not run.
    pub(super) fn untyped_none_used(&mut self, none: crate::span::Span) {
        self.error(
            "E0536",
            "the type of this `none` is not known, and it is used where its type matters",
            none,
            "`none` of what?",
        )
        .help
        .push("give it a type first: `let x: Int? = none`, or take the value's type from a parameter declared `Int?`".into());
    }

    /// E0308: a proved bound above the ceiling is no proof.
    pub(super) fn ceiling(&mut self, def: &Def, cost: &Cost) {
        // The steps have a limit of their own (`steps_within_reads`).
        for (what, poly) in cost
            .measures()
            .into_iter()
            .filter(|(what, _)| *what != "steps")
        {
            let max = poly.max_value().unwrap_or(u64::MAX);
            if max > CEILING {
                let shown = shown_count(Some(max));
                self.error(
                    "E0308",
                    format!("this {} may {} {shown} {what}, above the ceiling of {CEILING}", def.kind.keyword(), if what == "round trips" { "make" } else { "read" }),
                    def.name.span,
                    "too large to prove anything",
                )
                .help
                .push("lower the declared bounds it relies on (a `bound`, a `small … max`, a parameter's `<=`)".into());
                return;
            }
        }
    }

    /// E0308 for a list that may hold more elements than the ceiling: the
    /// seeks and rows may be few, but building it is not real-time work.
    /// Reported once per definition, where it first arises.
    pub(super) fn list_within_ceiling(&mut self, ty: &Ty, span: Span) {
        let too_large = std::cell::Cell::new(None);
        ty.any(&|t| {
            if let Ty::List(_, size, _) = t {
                match size.max_value() {
                    Some(max) if max > CEILING => too_large.set(Some(max)),
                    _ => {}
                }
            }
            false
        });
        let Some(max) = too_large.get() else {
            return;
        };
        if self.diagnostics.iter().any(|d| d.code == "E0308") {
            return;
        }
        let shown = shown_count(Some(max));
        self.error(
            "E0308",
            format!(
                "this list may hold {shown} elements, above the ceiling of {}",
                CEILING
            ),
            span,
            "too large to build in one run",
        )
        .help
        .push("lower the bounds that size it (a list parameter's `<=`, a `bound`), or nest fewer `flat_map`s".into());
    }

    /// E0308 for a part whose own bound is above the ceiling, though the
    /// definition's may not be (a lambda applied to at most 0 elements
    /// costs 0 whatever its body reads): the plan claims each operator's
    /// bound, and a claim above the ceiling proves nothing (the plan
    /// verifier refuses it, E0632). Where a returned function is applied
    /// to a huge argument (`mkc(a)(9223372036854775807)`), this is where
    /// its reads are first a number. Reported once per definition.
    pub(super) fn cost_within_ceiling(&mut self, cost: &Cost, span: Span) {
        let Some((what, max)) = cost
            .measures()
            .into_iter()
            .filter(|(what, _)| *what != "steps")
            .find_map(|(what, poly)| {
                poly.max_value()
                    .filter(|max| *max > CEILING)
                    .map(|max| (what, max))
            })
        else {
            return;
        };
        if self.diagnostics.iter().any(|d| d.code == "E0308") {
            return;
        }
        let shown = shown_count(Some(max));
        let verb = if what == "round trips" {
            "make"
        } else {
            "read"
        };
        self.error(
            "E0308",
            format!(
                "this part may {verb} {shown} {what}, above the ceiling of {}",
                CEILING
            ),
            span,
            "too large to prove anything",
        )
        .help
        .push("lower the counts and bounds it relies on (a `take`'s count, a parameter's `<=`, a `bound`)".into());
    }
}

/// A count past the ceiling as a message shows it: the number, or "more
/// than 2^64" where it has no maximum (or saturated at `u64::MAX`).
pub(super) fn shown_count(max: Option<u64>) -> String {
    match max {
        Some(max) if max < u64::MAX => max.to_string(),
        _ => "more than 2^64".to_string(),
    }
}
