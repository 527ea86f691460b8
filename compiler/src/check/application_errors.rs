//! Function values that cannot be applied where they are: an argument of the wrong type (E0401) or number (E0414), and reads left unbounded by what the function is given (E0302), each said of a direct call or of what applies the function.

use super::expr::Checker;
use super::types::Ty;
use crate::cost::Cost;
use crate::span::Span;

impl Checker<'_> {
    /// E0302 for a returned function whose cost grows with its own
    /// argument (`n => … take(n)`), applied to one with no bound.
    pub(super) fn unbounded_argument_cost(&mut self, span: Span, place: &str, direct: bool) {
        let message = if direct {
            format!("the reads of {place} grow with its argument, and this argument leaves them unbounded")
        } else {
            format!("the reads of the function given to {place} grow with its argument, and what {place} passes it leaves them unbounded")
        };
        self.error("E0302", message, span, "unbounded")
            .help
            .push("pass a value with a bound at the end that matters: a literal, or a parameter declared with bounds such as `n: Int >= 0 <= 100`".into());
    }

    /// E0401 for a function value given an argument of a type it does not
    /// take: called directly, as a call's argument is; handed to a
    /// combinator or a parameter, said of the function and of what
    /// applies it (the value at `span` is the function, not the argument).
    pub(super) fn value_mismatch(
        &mut self,
        param: &Ty,
        arg: &Ty,
        span: Span,
        place: &str,
        direct: bool,
    ) {
        if direct {
            return self.mismatch(param, arg, span, format!("{place} takes `{param}`"));
        }
        let (param, arg) = (param.shape(), arg.shape());
        self.error(
            "E0401",
            format!("the function given to {place} takes `{param}`, and {place} passes it `{arg}`"),
            span,
            format!("takes `{param}`"),
        )
        .help
        .push(format!(
            "give {place} a function that takes `{arg}` (a lambda such as `x => …`), or give {place} a `{param}` to pass it"
        ));
    }

    /// E0302 for a function value whose reads grow with an entry point's
    /// parameter that has no upper end (`let a = mk(m); a(u)`, `mk`
    /// returning a function that reads `take(x)` of its argument): said
    /// where it is applied, not only of the whole definition.
    pub(super) fn unbounded_made_cost(
        &mut self,
        span: Span,
        place: &str,
        direct: bool,
        cost: &Cost,
    ) {
        // In a function, a parameter's measure is fixed at each call (a
        // function-typed one's cost too): its callers are checked.
        if !self.checking_entry {
            return;
        }
        let mut names: Vec<String> = Vec::new();
        for (_, poly) in cost.measures() {
            for name in poly.unbounded_entry_params() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        let Some(first) = names.first().cloned() else {
            return;
        };
        let named = names
            .iter()
            .map(|n| match n.strip_suffix("[]") {
                Some(list) => format!("the elements of `{list}`"),
                None => format!("`{n}`"),
            })
            .collect::<Vec<_>>()
            .join(" and ");
        let what = if direct {
            place.to_string()
        } else {
            format!("the function given to {place}")
        };
        let d = self.error(
            "E0302",
            format!("the reads of {what} grow with {named}, which nothing bounds here"),
            span,
            "unbounded",
        );
        // An element of a list parameter (`xs[]`) has no end to declare.
        d.help.push(match first.strip_suffix("[]") {
            Some(list) => format!(
                "clamp the value where the function is made from an element of `{list}`: `if v <= 100 {{ v }} else {{ 100 }}`"
            ),
            None => format!(
                "bound `{first}` where the function is made from it: declare an upper end (`{first}: Int <= 100`), or pass a clamped value (`if {first} <= 100 {{ {first} }} else {{ 100 }}`)"
            ),
        });
        d.notes.push("a function a definition returns was given this value; its reads are fixed when it is made, and a test of the value after that does not narrow them".into());
    }

    /// E0414 for a function value given a number of arguments it does not
    /// take: called directly, as a call is; handed to a combinator or a
    /// parameter, said of the function and of what applies it.
    pub(super) fn value_arity(
        &mut self,
        span: Span,
        place: &str,
        direct: bool,
        takes: usize,
        given: usize,
    ) {
        if direct {
            return self.arity(span, place, takes, given);
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        self.error(
            "E0414",
            format!(
                "the function given to {place} takes {takes} argument{}, and {place} passes it {given}",
                plural(takes)
            ),
            span,
            "wrong number of parameters",
        )
        .help
        .push(format!(
            "give {place} a function of {given} parameter{}: a lambda such as `{}`",
            plural(given),
            lambda_of(given)
        ));
    }
}

/// A lambda of `n` parameters, for a help line: `x => …`, `(a, b) => …`.
fn lambda_of(n: usize) -> String {
    match n {
        1 => "x => …".to_string(),
        n => {
            let names: Vec<String> = (0..n)
                .map(|i| ((b'a' + (i % 26) as u8) as char).to_string())
                .collect();
            format!("({}) => …", names.join(", "))
        }
    }
}
